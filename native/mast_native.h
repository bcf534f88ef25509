// What each part of mast's native addon registers on the module's exports (addon.c calls them).
#ifndef MAST_NATIVE_H
#define MAST_NATIVE_H
#include <node_api.h>
#include <stdbool.h>

/** flat_tree.c: parse, query, names, FLAT_WORDS, and the per-thread parser state; false when it cannot be set up. */
bool flat_tree_register(napi_env env, napi_value exports);
/** lstat_many.c: lstatMany. */
void lstat_many_register(napi_env env, napi_value exports);
/** deflate.c: deflateRaw, inflateRaw. */
void deflate_register(napi_env env, napi_value exports);

#endif
