// mast's SQLite functions, in the addon's library and loaded into a better-sqlite3 connection by
// SQLite itself (store/db.ts: load_extension of mast_native.node, entry point sqlite3_mast_init):
// mast_ids(x), an aggregate handing its rows' integers back as one blob of host-order doubles, so a
// list of 277,000 rowids crosses into JavaScript as one value, not a row each (better-sqlite3
// spends three quarters of such a query handing rows over one by one). Doubles: a JavaScript
// number holds any rowid exactly (below 2^53); the reader views the blob as a Float64Array.
// mast_doubles(a, b, ...) is the same aggregate over every argument of each row, in order (the
// indexed files' stamps: six numbers a row, 110,000 rows at 1 GB).
// Calls SQLite only through the routines table SQLite passes in (sqlite3ext.h), so it runs
// against whichever SQLite loads it; the header comes from the installed better-sqlite3.
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include "fts5.h"

typedef struct {
  double *values;
  sqlite3_int64 count;
  sqlite3_int64 capacity;
  int failed;
} IdPack;

static void ids_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  IdPack *pack = (IdPack *)sqlite3_aggregate_context(ctx, sizeof(IdPack));
  if (pack == NULL || pack->failed) return;
  if (pack->count + argc > pack->capacity) {
    sqlite3_int64 capacity = pack->capacity == 0 ? 1024 : pack->capacity * 2;
    while (capacity < pack->count + argc) capacity *= 2;
    double *grown = (double *)sqlite3_realloc64(pack->values, (sqlite3_uint64)capacity * sizeof(double));
    if (grown == NULL) {
      pack->failed = 1;
      return;
    }
    pack->values = grown;
    pack->capacity = capacity;
  }
  // An integer is converted as such (exact below 2^53), anything else as SQLite reads it as a double (NULL: 0).
  for (int i = 0; i < argc; i++) pack->values[pack->count++] = sqlite3_value_type(argv[i]) == SQLITE_INTEGER ? (double)sqlite3_value_int64(argv[i]) : sqlite3_value_double(argv[i]);
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

// FTS5's BM25 over a query's first phrases, for search's best-matches cut (query/search.ts
// overBest): a query `(a OR b OR c) AND (a OR b)` matches only the rows holding a or b, and
// mast_bm25(t, 3, idf, name, w...) scores each as bm25(t, w...) scores it for `a OR b OR c` alone
// (the same phrases, weights and arithmetic, copied from SQLite's fts5_aux.c; a test holds the two
// equal). phrases: how many of the query's first phrases are scored (0: all). idf: NULL, or the blob
// mast_fts_stats answered for those phrases (not counted again). name: NULL, or the FTS5 table's
// name, whose rows' token counts (its %_docsize records, varints per column) are then kept by the
// connection (RowSizes) instead of read by one lookup statement per row as FTS5's own xColumnSize
// does: three quarters of bm25's time on a common word. mast_fts_stats(t, known): [rows, then each
// phrase's matching rows, then each phrase's IDF] as doubles — what bounds the score a row holding
// only some phrases can reach, and what mast_bm25 takes instead of counting; known: NULL, or the
// phrases' matching rows already counted (NaN for one to count), which are not counted again.

// Rows of a %_docsize table read at a time, and kept together.
#define SIZES_BLOCK 64

// One FTS5 table's row sizes (token counts over every column) as this connection has read them:
// blocks of SIZES_BLOCK rows by rowid, each read whole at its first use; -1 for a rowid with no
// record. Dropped whenever the database changed since (data_version: another connection's commit;
// total_changes: this one's writes), so a size is never one a later write replaced.
typedef struct {
  char name[64];
  sqlite3_stmt *read;   // SELECT id, sz FROM "<name>_docsize" WHERE id >= ?1 AND id < ?2
  int **blocks;
  sqlite3_int64 count;  // entries in blocks
} TableSizes;

typedef struct {
  sqlite3 *db;
  unsigned int version;
  sqlite3_int64 changes;
  int tables;
  TableSizes table[4];
} RowSizes;

static void sizes_clear(RowSizes *sizes) {
  for (int t = 0; t < sizes->tables; t++) {
    TableSizes *ts = &sizes->table[t];
    for (sqlite3_int64 k = 0; k < ts->count; k++) sqlite3_free(ts->blocks[k]);
    sqlite3_free(ts->blocks);
    ts->blocks = NULL;
    ts->count = 0;
  }
}

static void sizes_free(void *p) {
  RowSizes *sizes = (RowSizes *)p;
  sizes_clear(sizes);
  for (int t = 0; t < sizes->tables; t++) sqlite3_finalize(sizes->table[t].read);
  sqlite3_free(sizes);
}

// Forgets every size read before the database last changed.
static void sizes_current(RowSizes *sizes) {
  unsigned int version = 0;
  sqlite3_file_control(sizes->db, "main", SQLITE_FCNTL_DATA_VERSION, &version);
  sqlite3_int64 changes = sqlite3_total_changes64(sizes->db);
  if (version != sizes->version || changes != sizes->changes) sizes_clear(sizes);
  sizes->version = version;
  sizes->changes = changes;
}

// An FTS5 table's name as mast names its own (letters, digits, `_`): the only text put into SQL here.
static int plain_name(const char *name) {
  if (name == NULL || *name == 0 || strlen(name) >= 64) return 0;
  for (; *name; name++) {
    char c = *name;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return 0;
  }
  return 1;
}

static int sizes_table(RowSizes *sizes, const char *name, TableSizes **out) {
  for (int t = 0; t < sizes->tables; t++) {
    if (strcmp(sizes->table[t].name, name) == 0) {
      *out = &sizes->table[t];
      return SQLITE_OK;
    }
  }
  if (!plain_name(name) || sizes->tables == (int)(sizeof(sizes->table) / sizeof(sizes->table[0]))) return SQLITE_MISMATCH;
  TableSizes *ts = &sizes->table[sizes->tables];
  memset(ts, 0, sizeof(*ts));
  char *sql = sqlite3_mprintf("SELECT id, sz FROM \"%s_docsize\" WHERE id >= ?1 AND id < ?2", name);
  int rc = sql == NULL ? SQLITE_NOMEM : sqlite3_prepare_v2(sizes->db, sql, -1, &ts->read, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  strcpy(ts->name, name);
  sizes->tables++;
  *out = ts;
  return SQLITE_OK;
}

// A %_docsize record's token count over `columns` columns (SQLite varints, as FTS5 decodes them); -1 when malformed.
static int record_size(const unsigned char *blob, int size, int columns) {
  int offset = 0, sum = 0;
  for (int c = 0; c < columns; c++) {
    sqlite3_uint64 v = 0;
    // 7 bits a byte, the high bit set while more follow; a ninth byte gives all 8.
    for (int i = 0;; i++) {
      if (offset >= size) return -1;
      unsigned char byte = blob[offset++];
      if (i == 8) {
        v = (v << 8) | byte;
        break;
      }
      v = (v << 7) | (byte & 0x7f);
      if ((byte & 0x80) == 0) break;
    }
    sum += (int)(unsigned int)v;
  }
  return offset == size ? sum : -1;
}

// A row's size from the kept blocks, its block read first when it is not kept yet.
static int row_size(TableSizes *ts, sqlite3_int64 rowid, int columns, int *tokens) {
  if (rowid < 0) return SQLITE_CORRUPT;
  sqlite3_int64 k = rowid / SIZES_BLOCK;
  if (k >= ts->count) {
    sqlite3_int64 count = k + 1 > ts->count * 2 ? k + 1 : ts->count * 2;
    int **grown = (int **)sqlite3_realloc64(ts->blocks, (sqlite3_uint64)count * sizeof(int *));
    if (grown == NULL) return SQLITE_NOMEM;
    memset(grown + ts->count, 0, (size_t)(count - ts->count) * sizeof(int *));
    ts->blocks = grown;
    ts->count = count;
  }
  int *block = ts->blocks[k];
  if (block == NULL) {
    block = (int *)sqlite3_malloc64(SIZES_BLOCK * sizeof(int));
    if (block == NULL) return SQLITE_NOMEM;
    for (int i = 0; i < SIZES_BLOCK; i++) block[i] = -1;
    sqlite3_int64 first = k * SIZES_BLOCK;
    sqlite3_bind_int64(ts->read, 1, first);
    sqlite3_bind_int64(ts->read, 2, first + SIZES_BLOCK);
    int rc;
    while ((rc = sqlite3_step(ts->read)) == SQLITE_ROW) {
      sqlite3_int64 id = sqlite3_column_int64(ts->read, 0);
      block[id - first] = record_size((const unsigned char *)sqlite3_column_blob(ts->read, 1), sqlite3_column_bytes(ts->read, 1), columns);
    }
    sqlite3_reset(ts->read);
    if (rc != SQLITE_DONE) {
      sqlite3_free(block);
      return rc;
    }
    ts->blocks[k] = block;
  }
  int size = block[rowid - k * SIZES_BLOCK];
  if (size < 0) return SQLITE_CORRUPT;
  *tokens = size;
  return SQLITE_OK;
}

typedef struct {
  int phrases;         // phrases scored (the query's first ones)
  double avgdl;
  double *idf;
  double *freq;
  TableSizes *sizes;   // the table's sizes kept by the connection, or NULL: FTS5's xColumnSize
} Bm25Data;

static int count_hit(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
  (void)api;
  (void)fts;
  (*(sqlite3_int64 *)user)++;
  return SQLITE_OK;
}

// FTS5's IDF of one phrase: log((N - n + 0.5) / (n + 0.5)), at least 1e-6.
static double phrase_idf(sqlite3_int64 rows, sqlite3_int64 hits) {
  double idf = log((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0.0 ? 1e-6 : idf;
}

static int phrase_hits(const Fts5ExtensionApi *api, Fts5Context *fts, int phrase, sqlite3_int64 *hits) {
  *hits = 0;
  return api->xQueryPhrase(fts, phrase, (void *)hits, count_hit);
}

static int bm25_data(const Fts5ExtensionApi *api, Fts5Context *fts, RowSizes *sizes, int phrases, sqlite3_value *given, sqlite3_value *name, Bm25Data **out) {
  Bm25Data *data = (Bm25Data *)api->xGetAuxdata(fts, 0);
  if (data != NULL) {
    *out = data;
    return SQLITE_OK;
  }
  int all = api->xPhraseCount(fts);
  if (phrases <= 0 || phrases > all) phrases = all;
  size_t bytes = sizeof(Bm25Data) + (size_t)phrases * 2 * sizeof(double);
  data = (Bm25Data *)sqlite3_malloc64(bytes);
  if (data == NULL) return SQLITE_NOMEM;
  memset(data, 0, bytes);
  data->phrases = phrases;
  data->idf = (double *)&data[1];
  data->freq = &data->idf[phrases];
  sqlite3_int64 rows = 0, tokens = 0;
  int rc = api->xRowCount(fts, &rows);
  if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
  if (rc == SQLITE_OK) data->avgdl = (double)tokens / (double)rows;
  const double *idf = NULL;
  if (rc == SQLITE_OK && given != NULL && sqlite3_value_type(given) == SQLITE_BLOB) {
    // [rows, hits x n, idf x n] from mast_fts_stats over this query's own first phrases.
    int size = sqlite3_value_bytes(given);
    const double *stats = (const double *)sqlite3_value_blob(given);
    int n = (size / (int)sizeof(double) - 1) / 2;
    if (stats != NULL && n >= phrases && size == (1 + 2 * n) * (int)sizeof(double)) idf = stats + 1 + n;
    else rc = SQLITE_MISMATCH;
  }
  for (int i = 0; rc == SQLITE_OK && i < phrases; i++) {
    if (idf != NULL) {
      data->idf[i] = idf[i];
    } else {
      sqlite3_int64 hits = 0;
      rc = phrase_hits(api, fts, i, &hits);
      data->idf[i] = phrase_idf(rows, hits);
    }
  }
  if (rc == SQLITE_OK && name != NULL && sqlite3_value_type(name) == SQLITE_TEXT) {
    // Once per query: the sizes kept so far are dropped if the database changed since.
    sizes_current(sizes);
    rc = sizes_table(sizes, (const char *)sqlite3_value_text(name), &data->sizes);
  }
  if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, data, sqlite3_free);
  else sqlite3_free(data);
  if (rc == SQLITE_OK) *out = data;
  return rc;
}

static void bm25_first(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const double k1 = 1.2, b = 0.75;
  Bm25Data *data = NULL;
  int phrases = argc > 0 ? sqlite3_value_int(argv[0]) : 0;
  int rc = bm25_data(api, fts, (RowSizes *)api->xUserData(fts), phrases, argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL, &data);
  int instances = 0;
  if (rc == SQLITE_OK) {
    memset(data->freq, 0, sizeof(double) * (size_t)data->phrases);
    rc = api->xInstCount(fts, &instances);
  }
  // The weights follow the three leading arguments: column c's is argv[3 + c].
  for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
    int phrase, column, offset;
    rc = api->xInst(fts, i, &phrase, &column, &offset);
    if (rc == SQLITE_OK && phrase < data->phrases) data->freq[phrase] += argc - 3 > column ? sqlite3_value_double(argv[3 + column]) : 1.0;
  }
  double size = 0.0;
  if (rc == SQLITE_OK) {
    int tokens = 0;
    rc = data->sizes != NULL ? row_size(data->sizes, api->xRowid(fts), api->xColumnCount(fts), &tokens) : api->xColumnSize(fts, -1, &tokens);
    size = (double)tokens;
  }
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  double score = 0.0;
  for (int i = 0; i < data->phrases; i++) {
    score += data->idf[i] * ((data->freq[i] * (k1 + 1.0)) / (data->freq[i] + k1 * (1 - b + b * size / data->avgdl)));
  }
  sqlite3_result_double(ctx, -1.0 * score);
}

static void fts_stats(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int n = api->xPhraseCount(fts);
  // known: NULL, or n doubles, each a phrase's matching rows counted before (NaN: count it here).
  const double *known = NULL;
  if (argc > 0 && sqlite3_value_type(argv[0]) == SQLITE_BLOB) {
    if (sqlite3_value_bytes(argv[0]) != n * (int)sizeof(double)) {
      sqlite3_result_error_code(ctx, SQLITE_MISMATCH);
      return;
    }
    known = (const double *)sqlite3_value_blob(argv[0]);
  }
  double *out = (double *)sqlite3_malloc64((sqlite3_uint64)(1 + 2 * n) * sizeof(double));
  if (out == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_int64 rows = 0;
  int rc = api->xRowCount(fts, &rows);
  out[0] = (double)rows;
  for (int i = 0; rc == SQLITE_OK && i < n; i++) {
    sqlite3_int64 hits = 0;
    if (known != NULL && !isnan(known[i])) hits = (sqlite3_int64)known[i];
    else rc = phrase_hits(api, fts, i, &hits);
    out[1 + i] = (double)hits;
    out[1 + n + i] = phrase_idf(rows, hits);
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(out);
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3_result_blob64(ctx, out, (sqlite3_uint64)(1 + 2 * n) * sizeof(double), sqlite3_free);
}

// The connection's FTS5 API (SQLite's documented way: SELECT fts5(?1) with a pointer bound).
static fts5_api *fts5_of(sqlite3 *db) {
  fts5_api *api = NULL;
  sqlite3_stmt *stmt = NULL;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, NULL) != SQLITE_OK) return NULL;
  sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", NULL);
  sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  return api;
}

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_mast_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
  (void)error;
  SQLITE_EXTENSION_INIT2(api);
  int rc = sqlite3_create_function_v2(db, "mast_ids", 1, SQLITE_UTF8 | SQLITE_INNOCUOUS, NULL, NULL, ids_step, ids_final, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_create_function_v2(db, "mast_doubles", -1, SQLITE_UTF8 | SQLITE_INNOCUOUS, NULL, NULL, ids_step, ids_final, NULL);
  // Without FTS5 (a SQLite built without it) mast_ids and mast_doubles alone are registered; search asks for the
  // FTS5 functions by name and ranks with bm25 when they are missing.
  fts5_api *fts5 = rc == SQLITE_OK ? fts5_of(db) : NULL;
  if (fts5 != NULL && fts5->iVersion >= 2) {
    RowSizes *sizes = (RowSizes *)sqlite3_malloc64(sizeof(RowSizes));
    if (sizes == NULL) return SQLITE_NOMEM;
    memset(sizes, 0, sizeof(*sizes));
    sizes->db = db;
    // FTS5 frees the sizes with the connection (its functions are the connection's).
    rc = fts5->xCreateFunction(fts5, "mast_bm25", sizes, bm25_first, sizes_free);
    if (rc == SQLITE_OK) rc = fts5->xCreateFunction(fts5, "mast_fts_stats", NULL, fts_stats, NULL);
  }
  return rc;
}
