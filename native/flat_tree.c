// The flat syntax tree: parses a JavaScript string with a grammar (the TSLanguage a grammar
// package exports) and returns every node of the tree, in document order, as one Uint32Array of
// FLAT_WORDS words per node (layout in src/syntax/flat-tree.ts, which reads it), and, given a
// compiled query, every match of it over the tree as a second Uint32Array whose captures name
// nodes by their index in the first. One call crosses into JavaScript per file; extraction then
// reads integers instead of calling into the binding for every node or capture it looks at.
// Per-thread state (the parser, the query cursor) lives in the addon's instance data, so worker
// threads each get their own.
#include "mast_native.h"
#include <stdio.h>
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
  TSQueryCursor *cursor;
} Instance;

static void finalize_instance(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Instance *instance = data;
  if (instance->parser) ts_parser_delete(instance->parser);
  if (instance->cursor) ts_query_cursor_delete(instance->cursor);
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

/** A call's `count` arguments into argv, and its first as a language: NULL when fewer were passed or it is none. */
static const TSLanguage *language_call(napi_env env, napi_callback_info info, size_t count, napi_value *argv) {
  size_t argc = count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < count) return NULL;
  return language_arg(env, argv[0]);
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

/** A growable array of 32-bit words. */
typedef struct {
  uint32_t *data;
  size_t length, capacity;
  bool failed;
} Words;

static void push_word(Words *w, uint32_t value) {
  if (w->failed) return;
  if (w->length == w->capacity) {
    size_t capacity = w->capacity ? w->capacity * 2 : 256;
    uint32_t *grown = realloc(w->data, capacity * sizeof(uint32_t));
    if (!grown) {
      w->failed = true;
      return;
    }
    w->data = grown;
    w->capacity = capacity;
  }
  w->data[w->length++] = value;
}

static TSQuery *query_arg(napi_env env, napi_value value) {
  napi_valuetype type;
  void *query = NULL;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external) return NULL;
  if (napi_get_value_external(env, value, &query) != napi_ok) return NULL;
  return query;
}

static napi_value uint32_array(napi_env env, const uint32_t *data, size_t length) {
  void *bytes;
  napi_value buffer, result;
  if (napi_create_arraybuffer(env, length * sizeof(uint32_t), &bytes, &buffer) != napi_ok) return NULL;
  if (length) memcpy(bytes, data, length * sizeof(uint32_t));
  if (napi_create_typedarray(env, napi_uint32_array, length, buffer, 0, &result) != napi_ok) return NULL;
  return result;
}

/**
 * The flat index of a captured node: the nodes are in document order, so their starts never
 * decrease; among those starting where it starts, the one tree-sitter gave the same id.
 */
static int64_t flat_index(const uint32_t *words, const void **ids, size_t count, TSNode node) {
  uint32_t start = ts_node_start_byte(node) / 2;
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (words[mid * FLAT_WORDS + 2] < start) lo = mid + 1;
    else hi = mid;
  }
  for (size_t i = lo; i < count && words[i * FLAT_WORDS + 2] == start; i++) {
    if (ids[i] == node.id) return (int64_t)i;
  }
  return -1;
}

/**
 * parse(language, text, timeoutMs[, query]): the flat tree, or null when the parse did not finish
 * in time. With a query (query()'s handle): [flat tree, matches], the matches in tree-sitter's
 * order as [pattern, capture count, (capture id, node index) × count] words.
 */
static napi_value parse(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3) return throw_error(env, "parse(language, text, timeoutMs[, query])");
  const TSLanguage *language = language_arg(env, argv[0]);
  if (!language) return throw_error(env, "parse: the first argument is not a tree-sitter language");
  double timeout_ms;
  if (napi_get_value_double(env, argv[2], &timeout_ms) != napi_ok) return throw_error(env, "parse: the timeout is not a number");
  TSQuery *query = NULL;
  if (argc >= 4) {
    napi_valuetype type;
    napi_typeof(env, argv[3], &type);
    if (type != napi_undefined && type != napi_null && !(query = query_arg(env, argv[3]))) return throw_error(env, "parse: the query is not a compiled query");
  }
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
  // Each node's tree-sitter id, to find a query's captures among the nodes.
  const void **ids = query ? malloc(capacity * sizeof(void *)) : NULL;
  bool complete = false, lost = false;
  Words matches = {0};
  if (!words || !stack || (query && !ids)) goto cleanup;
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  for (;;) {
    if (count == capacity) {
      capacity *= 2;
      uint32_t *grown = realloc(words, capacity * FLAT_WORDS * sizeof(uint32_t));
      if (!grown) break;
      words = grown;
      if (ids) {
        const void **grown_ids = realloc(ids, capacity * sizeof(void *));
        if (!grown_ids) break;
        ids = grown_ids;
      }
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
    if (ids) ids[count] = node.id;
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
      if (depth == 0 || !ts_tree_cursor_goto_parent(&cursor)) goto dumped;
      words[stack[--depth] * FLAT_WORDS + 9] = (uint32_t)count;
    }
  }
dumped:
  complete = depth == 0 && words[9] == count;
  ts_tree_cursor_delete(&cursor);
  if (complete && query) {
    if (!instance->cursor) instance->cursor = ts_query_cursor_new();
    ts_query_cursor_exec(instance->cursor, query, ts_tree_root_node(tree));
    TSQueryMatch match;
    while (!lost && ts_query_cursor_next_match(instance->cursor, &match)) {
      push_word(&matches, match.pattern_index);
      push_word(&matches, match.capture_count);
      for (uint16_t i = 0; i < match.capture_count; i++) {
        int64_t at = flat_index(words, ids, count, match.captures[i].node);
        if (at < 0) lost = true;
        push_word(&matches, match.captures[i].index);
        push_word(&matches, (uint32_t)at);
      }
    }
    complete = !lost && !matches.failed;
  }

cleanup:
  ts_tree_delete(tree);
  free(stack);
  free(ids);
  napi_value flat = complete ? uint32_array(env, words, count * FLAT_WORDS) : NULL;
  free(words);
  napi_value found = complete && query ? uint32_array(env, matches.data, matches.length) : NULL;
  free(matches.data);
  if (lost) return throw_error(env, "parse: a query capture is not a node of the flat tree");
  if (!flat || (query && !found)) return throw_error(env, "parse: out of memory");
  if (!query) return flat;
  napi_create_array_with_length(env, 2, &result);
  napi_set_element(env, result, 0, flat);
  napi_set_element(env, result, 1, found);
  return result;
}

static void finalize_query(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  ts_query_delete(data);
}

/** A query's capture or string names by id, as a JavaScript array. */
static napi_value query_names(napi_env env, const TSQuery *query, uint32_t count, const char *(*name_for)(const TSQuery *, uint32_t, uint32_t *)) {
  napi_value names, value;
  napi_create_array_with_length(env, count, &names);
  for (uint32_t i = 0; i < count; i++) {
    uint32_t length;
    const char *name = name_for(query, i, &length);
    napi_create_string_utf8(env, name, length, &value);
    napi_set_element(env, names, i, value);
  }
  return names;
}

static const char *QUERY_ERRORS[] = {"none", "syntax", "node type", "field", "capture", "structure", "language"};

/**
 * query(language, source): the compiled query, as { handle, captures, strings, predicates }: the
 * handle for parse(), capture and string names by id, and each pattern's predicate steps as
 * [type (1 capture, 2 string, 0 end of a predicate), value id] pairs. Throws on a query that does
 * not compile, saying where.
 */
static napi_value query(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  const TSLanguage *language = language_call(env, info, 2, argv);
  if (!language) return throw_error(env, "query(language, source): the first argument is not a tree-sitter language");
  size_t length;
  if (napi_get_value_string_utf8(env, argv[1], NULL, 0, &length) != napi_ok) return throw_error(env, "query: the source is not a string");
  char *source = malloc(length + 1);
  if (!source) return throw_error(env, "query: out of memory");
  napi_get_value_string_utf8(env, argv[1], source, length + 1, &length);
  uint32_t error_offset = 0;
  TSQueryError error_type = TSQueryErrorNone;
  TSQuery *compiled = ts_query_new(language, source, (uint32_t)length, &error_offset, &error_type);
  free(source);
  if (!compiled) {
    char message[128];
    snprintf(message, sizeof message, "query: %s error at byte %u", error_type < 7 ? QUERY_ERRORS[error_type] : "unknown", error_offset);
    return throw_error(env, message);
  }
  napi_value result, handle, captures, strings, predicates, value;
  if (napi_create_external(env, compiled, finalize_query, NULL, &handle) != napi_ok) {
    ts_query_delete(compiled);
    return throw_error(env, "query: cannot allocate the result");
  }
  napi_create_object(env, &result);
  napi_set_named_property(env, result, "handle", handle);
  uint32_t capture_count = ts_query_capture_count(compiled), string_count = ts_query_string_count(compiled), pattern_count = ts_query_pattern_count(compiled);
  captures = query_names(env, compiled, capture_count, ts_query_capture_name_for_id);
  napi_set_named_property(env, result, "captures", captures);
  strings = query_names(env, compiled, string_count, ts_query_string_value_for_id);
  napi_set_named_property(env, result, "strings", strings);
  napi_create_array_with_length(env, pattern_count, &predicates);
  for (uint32_t p = 0; p < pattern_count; p++) {
    uint32_t steps_count;
    const TSQueryPredicateStep *steps = ts_query_predicates_for_pattern(compiled, p, &steps_count);
    uint32_t *pairs = malloc((steps_count * 2 + 1) * sizeof(uint32_t));
    if (!pairs) return throw_error(env, "query: out of memory");
    for (uint32_t s = 0; s < steps_count; s++) {
      pairs[2 * s] = (uint32_t)steps[s].type;
      pairs[2 * s + 1] = steps[s].value_id;
    }
    value = uint32_array(env, pairs, steps_count * 2);
    free(pairs);
    if (!value) return throw_error(env, "query: out of memory");
    napi_set_element(env, predicates, p, value);
  }
  napi_set_named_property(env, result, "predicates", predicates);
  return result;
}

/** names(language): [symbol names by symbol id, field names by field id (index 0 unused)]. */
static napi_value names(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  const TSLanguage *language = language_call(env, info, 1, argv);
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

bool flat_tree_register(napi_env env, napi_value exports) {
  Instance *instance = calloc(1, sizeof(Instance));
  if (!instance || napi_set_instance_data(env, instance, finalize_instance, NULL) != napi_ok) return false;
  napi_value fn;
  napi_create_function(env, "parse", NAPI_AUTO_LENGTH, parse, NULL, &fn);
  napi_set_named_property(env, exports, "parse", fn);
  napi_create_function(env, "query", NAPI_AUTO_LENGTH, query, NULL, &fn);
  napi_set_named_property(env, exports, "query", fn);
  napi_create_function(env, "names", NAPI_AUTO_LENGTH, names, NULL, &fn);
  napi_set_named_property(env, exports, "names", fn);
  napi_value words;
  napi_create_uint32(env, FLAT_WORDS, &words);
  napi_set_named_property(env, exports, "FLAT_WORDS", words);
  return true;
}
