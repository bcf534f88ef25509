// The flat syntax tree: parses a JavaScript string with a grammar (the TSLanguage a grammar
// package exports) and returns every node of the tree, in document order, as one Uint32Array of
// FLAT_WORDS words per node (layout in src/syntax/flat-tree.ts, which reads it). One call crosses
// into JavaScript per file; extraction then reads integers instead of calling into the binding for
// every node it looks at. Per-thread state (the parser) lives in the addon's instance data, so
// worker threads each get their own.
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tree_sitter/api.h>

#define FLAT_WORDS 10
#define NO_PARENT 0xFFFFFFFFu

enum { FLAG_NAMED = 1, FLAG_MISSING = 2, FLAG_HAS_ERROR = 8, FLAG_ERROR = 16 };

typedef struct {
  TSParser *parser;
} Instance;

static void finalize_instance(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Instance *instance = data;
  if (instance->parser) ts_parser_delete(instance->parser);
  free(instance);
}

static napi_value throw_error(napi_env env, const char *message) {
  napi_throw_error(env, "MAST_NATIVE", message);
  return NULL;
}

static const TSLanguage *language_arg(napi_env env, napi_value value) {
  napi_valuetype type;
  void *language = NULL;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external) return NULL;
  if (napi_get_value_external(env, value, &language) != napi_ok) return NULL;
  return language;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool past_deadline(TSParseState *state) {
  return now_ms() > *(double *)state->payload;
}

typedef struct {
  const char *bytes;
  uint32_t length;
} Source;

static const char *read_source(void *payload, uint32_t byte_index, TSPoint position, uint32_t *bytes_read) {
  (void)position;
  const Source *source = payload;
  if (byte_index >= source->length) {
    *bytes_read = 0;
    return "";
  }
  *bytes_read = source->length - byte_index;
  return source->bytes + byte_index;
}

/** parse(language, text, timeoutMs): the flat tree, or null when the parse did not finish in time. */
static napi_value parse(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3) return throw_error(env, "parse(language, text, timeoutMs)");
  const TSLanguage *language = language_arg(env, argv[0]);
  if (!language) return throw_error(env, "parse: the first argument is not a tree-sitter language");
  double timeout_ms;
  if (napi_get_value_double(env, argv[2], &timeout_ms) != napi_ok) return throw_error(env, "parse: the timeout is not a number");
  size_t length;
  if (napi_get_value_string_utf16(env, argv[1], NULL, 0, &length) != napi_ok) return throw_error(env, "parse: the text is not a string");
  Instance *instance;
  napi_get_instance_data(env, (void **)&instance);
  if (!instance->parser) instance->parser = ts_parser_new();
  if (!ts_parser_set_language(instance->parser, language)) return throw_error(env, "parse: the grammar's ABI version is not supported by this tree-sitter runtime");

  char16_t *text = malloc((length + 1) * sizeof(char16_t));
  if (!text) return throw_error(env, "parse: out of memory");
  napi_get_value_string_utf16(env, argv[1], text, length + 1, &length);
  double deadline = now_ms() + timeout_ms;
  TSParseOptions options = {.payload = &deadline, .progress_callback = past_deadline};
  Source source = {.bytes = (const char *)text, .length = (uint32_t)(length * sizeof(char16_t))};
  TSInput input = {.payload = &source, .read = read_source, .encoding = TSInputEncodingUTF16LE, .decode = NULL};
  TSTree *tree = ts_parser_parse_with_options(instance->parser, NULL, input, options);
  free(text);
  napi_value result;
  if (!tree) {
    ts_parser_reset(instance->parser);
    napi_get_null(env, &result);
    return result;
  }

  size_t capacity = 1024, count = 0, depth = 0, stack_capacity = 64;
  uint32_t *words = malloc(capacity * FLAT_WORDS * sizeof(uint32_t));
  uint32_t *stack = malloc(stack_capacity * sizeof(uint32_t));
  if (!words || !stack) {
    free(words);
    free(stack);
    ts_tree_delete(tree);
    return throw_error(env, "parse: out of memory");
  }
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  for (;;) {
    if (count == capacity) {
      capacity *= 2;
      uint32_t *grown = realloc(words, capacity * FLAT_WORDS * sizeof(uint32_t));
      if (!grown) break;
      words = grown;
    }
    TSNode node = ts_tree_cursor_current_node(&cursor);
    uint32_t *w = words + count * FLAT_WORDS;
    TSPoint start = ts_node_start_point(node), end = ts_node_end_point(node);
    w[0] = (uint32_t)ts_node_symbol(node) | ((uint32_t)ts_tree_cursor_current_field_id(&cursor) << 16);
    w[1] = (ts_node_is_named(node) ? FLAG_NAMED : 0) | (ts_node_is_missing(node) ? FLAG_MISSING : 0) |
           (ts_node_has_error(node) ? FLAG_HAS_ERROR : 0) | (ts_node_is_error(node) ? FLAG_ERROR : 0);
    w[2] = ts_node_start_byte(node) / 2;
    w[3] = ts_node_end_byte(node) / 2;
    w[4] = start.row;
    w[5] = start.column / 2;
    w[6] = end.row;
    w[7] = end.column / 2;
    w[8] = depth == 0 ? NO_PARENT : stack[depth - 1];
    w[9] = 0;
    uint32_t index = (uint32_t)count++;
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      if (depth == stack_capacity) {
        stack_capacity *= 2;
        uint32_t *grown = realloc(stack, stack_capacity * sizeof(uint32_t));
        if (!grown) break;
        stack = grown;
      }
      stack[depth++] = index;
      continue;
    }
    // A leaf: it and every ancestor whose last child this was end here.
    words[index * FLAT_WORDS + 9] = (uint32_t)count;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (depth == 0 || !ts_tree_cursor_goto_parent(&cursor)) goto done;
      words[stack[--depth] * FLAT_WORDS + 9] = (uint32_t)count;
    }
  }
done:;
  bool complete = depth == 0 && words[9] == count;
  ts_tree_cursor_delete(&cursor);
  ts_tree_delete(tree);
  free(stack);
  if (!complete) {
    free(words);
    return throw_error(env, "parse: out of memory");
  }
  void *data;
  napi_value buffer;
  if (napi_create_arraybuffer(env, count * FLAT_WORDS * sizeof(uint32_t), &data, &buffer) != napi_ok) {
    free(words);
    return throw_error(env, "parse: cannot allocate the result");
  }
  memcpy(data, words, count * FLAT_WORDS * sizeof(uint32_t));
  free(words);
  napi_create_typedarray(env, napi_uint32_array, count * FLAT_WORDS, buffer, 0, &result);
  return result;
}

/** names(language): [symbol names by symbol id, field names by field id (index 0 unused)]. */
static napi_value names(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  const TSLanguage *language = argc < 1 ? NULL : language_arg(env, argv[0]);
  if (!language) return throw_error(env, "names: the argument is not a tree-sitter language");
  napi_value symbols, fields, result, name;
  uint32_t symbol_count = ts_language_symbol_count(language), field_count = ts_language_field_count(language);
  napi_create_array_with_length(env, symbol_count, &symbols);
  for (uint32_t i = 0; i < symbol_count; i++) {
    const char *s = ts_language_symbol_name(language, (TSSymbol)i);
    napi_create_string_utf8(env, s ? s : "", NAPI_AUTO_LENGTH, &name);
    napi_set_element(env, symbols, i, name);
  }
  napi_create_array_with_length(env, field_count + 1, &fields);
  for (uint32_t i = 1; i <= field_count; i++) {
    const char *s = ts_language_field_name_for_id(language, (TSFieldId)i);
    napi_create_string_utf8(env, s ? s : "", NAPI_AUTO_LENGTH, &name);
    napi_set_element(env, fields, i, name);
  }
  napi_create_array_with_length(env, 2, &result);
  napi_set_element(env, result, 0, symbols);
  napi_set_element(env, result, 1, fields);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  Instance *instance = calloc(1, sizeof(Instance));
  if (!instance || napi_set_instance_data(env, instance, finalize_instance, NULL) != napi_ok) return throw_error(env, "mast_native: cannot initialise");
  napi_value fn;
  napi_create_function(env, "parse", NAPI_AUTO_LENGTH, parse, NULL, &fn);
  napi_set_named_property(env, exports, "parse", fn);
  napi_create_function(env, "names", NAPI_AUTO_LENGTH, names, NULL, &fn);
  napi_set_named_property(env, exports, "names", fn);
  napi_value words;
  napi_create_uint32(env, FLAT_WORDS, &words);
  napi_set_named_property(env, exports, "FLAT_WORDS", words);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
