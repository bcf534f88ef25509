// mast's SQLite function, in the addon's library and loaded into a better-sqlite3 connection by
// SQLite itself (store/db.ts: load_extension of mast_native.node, entry point sqlite3_mast_init):
// mast_ids(x), an aggregate handing its rows' integers back as one blob of host-order doubles, so a
// list of 277,000 rowids crosses into JavaScript as one value, not a row each (better-sqlite3
// spends three quarters of such a query handing rows over one by one). Doubles: a JavaScript
// number holds any rowid exactly (below 2^53); the reader views the blob as a Float64Array.
// Calls SQLite only through the routines table SQLite passes in (sqlite3ext.h), so it runs
// against whichever SQLite loads it; the header comes from the installed better-sqlite3.
#include <stddef.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

typedef struct {
  double *values;
  sqlite3_int64 count;
  sqlite3_int64 capacity;
  int failed;
} IdPack;

static void ids_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  IdPack *pack = (IdPack *)sqlite3_aggregate_context(ctx, sizeof(IdPack));
  if (pack == NULL || pack->failed) return;
  if (pack->count == pack->capacity) {
    sqlite3_int64 capacity = pack->capacity == 0 ? 1024 : pack->capacity * 2;
    double *grown = (double *)sqlite3_realloc64(pack->values, (sqlite3_uint64)capacity * sizeof(double));
    if (grown == NULL) {
      pack->failed = 1;
      return;
    }
    pack->values = grown;
    pack->capacity = capacity;
  }
  pack->values[pack->count++] = (double)sqlite3_value_int64(argv[0]);
}

static void ids_final(sqlite3_context *ctx) {
  IdPack *pack = (IdPack *)sqlite3_aggregate_context(ctx, 0);
  // No row (no context was made): an empty blob, not NULL.
  if (pack == NULL) {
    sqlite3_result_zeroblob(ctx, 0);
    return;
  }
  if (pack->failed) {
    sqlite3_free(pack->values);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  // SQLite takes the buffer and frees it with sqlite3_free once better-sqlite3 has copied it.
  sqlite3_result_blob64(ctx, pack->values, (sqlite3_uint64)pack->count * sizeof(double), sqlite3_free);
  pack->values = NULL;
}

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_mast_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
  (void)error;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_function_v2(db, "mast_ids", 1, SQLITE_UTF8 | SQLITE_INNOCUOUS, NULL, NULL, ids_step, ids_final, NULL);
}
