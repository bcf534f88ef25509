// Raw deflate and inflate for graph.db's packed bytes (base/deflate.ts): zlib's own, through the
// symbols the Node.js binary exports for addons (its headers ship zlib.h), one stream per thread
// kept and reset between calls. Node's deflateRawSync builds a stream per call — ~300 KB of state
// allocated and freed — which on an index run's main thread cost ~85 µs a call whatever the size
// (theia: 8,400 calls, 0.7 s); reset, a stream costs nothing more than the bytes it reads. A
// thread's two streams live as long as the thread (~300 KB). deflateRaw(bytes) → Buffer at level
// 1; inflateRaw(bytes, limit) → Buffer, throwing MAST_INFLATE on bytes that are not one whole raw
// stream or that would inflate past `limit` bytes.
#include "mast_native.h"
#ifndef _WIN32
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define LEVEL 1

typedef struct {
  z_stream stream;
  bool ready;
  unsigned char *scratch;
  size_t capacity;
} Codec;

static _Thread_local Codec deflater;
static _Thread_local Codec inflater;

// The scratch buffer at least `size` bytes long; false when it cannot be.
static bool reserve(Codec *c, size_t size) {
  if (c->capacity >= size) return true;
  size_t next = c->capacity ? c->capacity : 1 << 16;
  while (next < size) next *= 2;
  unsigned char *grown = realloc(c->scratch, next);
  if (!grown) return false;
  c->scratch = grown;
  c->capacity = next;
  return true;
}

// The first argument's bytes (a Uint8Array or Buffer) and, with `limit`, the second as a uint32; false after throwing.
static bool bytes_of(napi_env env, napi_callback_info info, const char *name, const unsigned char **data, size_t *length, uint32_t *limit) {
  size_t argc = 2;
  napi_value argv[2];
  napi_typedarray_type type;
  size_t count = 0, offset = 0;
  void *raw = NULL;
  napi_value buffer;
  bool is_typed = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < (limit ? 2u : 1u) || napi_is_typedarray(env, argv[0], &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(env, argv[0], &type, &count, &raw, &buffer, &offset) != napi_ok || type != napi_uint8_array ||
      (limit && napi_get_value_uint32(env, argv[1], limit) != napi_ok)) {
    napi_throw_type_error(env, "MAST_NATIVE", name);
    return false;
  }
  *data = raw ? raw : (const unsigned char *)"";
  *length = count;
  return true;
}

// The thread's stream started (raw: no header) or reset for a new input; false after throwing.
static bool ready(napi_env env, Codec *c, bool deflating) {
  int rc;
  if (!c->ready) {
    memset(&c->stream, 0, sizeof c->stream);
    rc = deflating ? deflateInit2(&c->stream, LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) : inflateInit2(&c->stream, -15);
    c->ready = rc == Z_OK;
  } else {
    rc = deflating ? deflateReset(&c->stream) : inflateReset(&c->stream);
  }
  if (rc != Z_OK) napi_throw_error(env, "MAST_NATIVE", "zlib could not start a stream");
  return rc == Z_OK;
}

static napi_value deflate_raw(napi_env env, napi_callback_info info) {
  const unsigned char *data;
  size_t length;
  if (!bytes_of(env, info, "deflateRaw(bytes: Uint8Array)", &data, &length, NULL)) return NULL;
  Codec *c = &deflater;
  if (!ready(env, c, true)) return NULL;
  size_t bound = deflateBound(&c->stream, (uLong)length);
  if (length > 0xffffffffu || !reserve(c, bound)) {
    napi_throw_range_error(env, "MAST_NATIVE", "deflateRaw: too large");
    return NULL;
  }
  c->stream.next_in = (Bytef *)data;
  c->stream.avail_in = (uInt)length;
  c->stream.next_out = c->scratch;
  c->stream.avail_out = (uInt)bound;
  if (deflate(&c->stream, Z_FINISH) != Z_STREAM_END) {
    napi_throw_error(env, "MAST_NATIVE", "deflateRaw: zlib did not finish");
    return NULL;
  }
  napi_value out;
  void *copied;
  if (napi_create_buffer_copy(env, bound - c->stream.avail_out, c->scratch, &copied, &out) != napi_ok) return NULL;
  return out;
}

static napi_value inflate_raw(napi_env env, napi_callback_info info) {
  const unsigned char *data;
  size_t length;
  uint32_t limit;
  if (!bytes_of(env, info, "inflateRaw(bytes: Uint8Array, limit: number)", &data, &length, &limit)) return NULL;
  Codec *c = &inflater;
  if (!ready(env, c, false)) return NULL;
  size_t first = length * 4 + 64;
  if (length > 0xffffffffu || !reserve(c, first < (size_t)limit + 1 ? first : (size_t)limit + 1)) {
    napi_throw_range_error(env, "MAST_NATIVE", "inflateRaw: too large");
    return NULL;
  }
  c->stream.next_in = (Bytef *)data;
  c->stream.avail_in = (uInt)length;
  size_t produced = 0;
  for (;;) {
    c->stream.next_out = c->scratch + produced;
    c->stream.avail_out = (uInt)(c->capacity - produced);
    int rc = inflate(&c->stream, Z_NO_FLUSH);
    produced = c->capacity - c->stream.avail_out;
    if (rc == Z_STREAM_END) break;
    // Bytes after the end, a damaged stream, or input that ends before the stream does.
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      napi_throw_error(env, "MAST_INFLATE", c->stream.msg ? c->stream.msg : "not a raw deflate stream");
      return NULL;
    }
    if (c->stream.avail_out > 0) {
      napi_throw_error(env, "MAST_INFLATE", "the stream ends before its last block");
      return NULL;
    }
    // A stream that would inflate past the limit is refused before it is (a planted row, a bomb).
    if (c->capacity > limit) {
      napi_throw_error(env, "MAST_INFLATE", "the stream inflates past its limit");
      return NULL;
    }
    if (!reserve(c, c->capacity * 2)) {
      napi_throw_error(env, "MAST_NATIVE", "inflateRaw: out of memory");
      return NULL;
    }
  }
  if (c->stream.avail_in > 0) {
    napi_throw_error(env, "MAST_INFLATE", "bytes after the stream's end");
    return NULL;
  }
  if (produced > limit) {
    napi_throw_error(env, "MAST_INFLATE", "the stream inflates past its limit");
    return NULL;
  }
  napi_value out;
  void *copied;
  if (napi_create_buffer_copy(env, produced, c->scratch, &copied, &out) != napi_ok) return NULL;
  return out;
}

void deflate_register(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "deflateRaw", NAPI_AUTO_LENGTH, deflate_raw, NULL, &fn);
  napi_set_named_property(env, exports, "deflateRaw", fn);
  napi_create_function(env, "inflateRaw", NAPI_AUTO_LENGTH, inflate_raw, NULL, &fn);
  napi_set_named_property(env, exports, "inflateRaw", fn);
}
#else
// Windows: nothing is registered, and base/deflate.ts deflates with node:zlib.
void deflate_register(napi_env env, napi_value exports) {
  (void)env;
  (void)exports;
}
#endif
