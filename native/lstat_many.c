// Many lstat calls in one crossing: the file walk stats every kept file and directory on each run
// (110,000 files at 1 GB), and Node's fs.lstatSync costs a Stats object and a binding call per
// path. lstatMany takes a base and the paths under it joined by NUL (the walk's root-relative
// paths: no absolute copy of each) and returns, per path, STAT_WORDS
// doubles: kind, size, mtimeMs, ino, ctimeMs — the times computed as Node computes Stats'
// (sec * 1e3 + nsec / 1e6), so the values compare equal to fs.lstatSync's. A path that cannot be
// stat'ed has kind 0 and the rest 0 (the caller stats it again to learn the error). Past
// SPLIT_AT paths the work is split over two threads: the syscalls dominate and run in parallel.
// statMany is lstatMany following symlinks (stat: the configs an import resolver read). lstatManyAsync
// answers as lstatMany from a thread of libuv's pool, so a caller can read its index meanwhile (its
// stamps come packed now, 70 ms at 1 GB: splitting there too made status 1.38 → 1.24 s).
// binding.gyp defines _POSIX_C_SOURCE, under which macOS hides st_mtimespec: ask for its own names back.
#if defined(__APPLE__) && !defined(_DARWIN_C_SOURCE)
#define _DARWIN_C_SOURCE
#endif
#include "mast_native.h"
#ifndef _WIN32
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>

#define STAT_WORDS 5
#define LSTAT_ABI 3
#ifdef __APPLE__
#define MTIME(st) (st).st_mtimespec
#define CTIME(st) (st).st_ctimespec
#else
#define MTIME(st) (st).st_mtim
#define CTIME(st) (st).st_ctim
#endif
#define SPLIT_AT 4096

enum { KIND_NONE = 0, KIND_FILE = 1, KIND_DIR = 2, KIND_SYMLINK = 3, KIND_OTHER = 4 };

typedef struct {
  const char *base;
  size_t base_length;
  char **paths;
  double *out;
  size_t from, to;
  bool follow;
} Slice;

static double ms_of(time_t sec, long nsec) { return (double)sec * 1e3 + (double)nsec / 1e6; }

static void *stat_slice(void *arg) {
  Slice *s = arg;
  struct stat st;
  char full[PATH_MAX];
  memcpy(full, s->base, s->base_length);
  for (size_t i = s->from; i < s->to; i++) {
    double *w = s->out + i * STAT_WORDS;
    size_t length = strlen(s->paths[i]);
    // The base and the path joined; one too long for the system is one lstat would refuse.
    if (s->base_length + length >= PATH_MAX || (memcpy(full + s->base_length, s->paths[i], length + 1), (s->follow ? stat(full, &st) : lstat(full, &st)) != 0)) {
      memset(w, 0, STAT_WORDS * sizeof(double));
      continue;
    }
    w[0] = S_ISREG(st.st_mode) ? KIND_FILE : S_ISDIR(st.st_mode) ? KIND_DIR : S_ISLNK(st.st_mode) ? KIND_SYMLINK : KIND_OTHER;
    w[1] = (double)st.st_size;
    w[2] = ms_of(MTIME(st).tv_sec, MTIME(st).tv_nsec);
    w[3] = (double)st.st_ino;
    w[4] = ms_of(CTIME(st).tv_sec, CTIME(st).tv_nsec);
  }
  return NULL;
}

// The paths of one call: the JavaScript strings copied out (the base, the paths cut at their NULs), and the answer's buffer.
typedef struct {
  char *base;
  size_t base_length;
  char *text;
  char **paths;
  uint32_t count;
  bool follow;
  double *out;
  napi_ref buffer;
  napi_deferred deferred;
  napi_async_work work;
} Job;

static void free_job(napi_env env, Job *job) {
  if (job->buffer) napi_delete_reference(env, job->buffer);
  free(job->base);
  free(job->text);
  free(job->paths);
  free(job);
}

// A list argument's UTF-8 bytes and their length: a Uint8Array's own (read where it lies:
// `*owned` false), or a string's copy (malloc'ed, NUL-terminated: `*owned` true); NULL when it is
// neither. Bytes read from disk as they were written (a walk cache's lists) need no conversion,
// which costs V8 a pass to measure a string's UTF-8 length and one to write it (~8 ms for 7 MB).
static const char *list_bytes(napi_env env, napi_value value, size_t *length, bool *owned) {
  bool typed = false;
  if (napi_is_typedarray(env, value, &typed) == napi_ok && typed) {
    napi_typedarray_type type;
    size_t count = 0;
    void *data = NULL;
    if (napi_get_typedarray_info(env, value, &type, &count, &data, NULL, NULL) != napi_ok || type != napi_uint8_array) return NULL;
    *length = count;
    *owned = false;
    // An empty view may have no data pointer: any valid address will do for zero bytes.
    return data != NULL ? data : "";
  }
  size_t n = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &n) != napi_ok) return NULL;
  char *text = malloc(n + 1);
  if (text && napi_get_value_string_utf8(env, value, text, n + 1, &n) != napi_ok) {
    free(text);
    return NULL;
  }
  *length = n;
  *owned = true;
  return text;
}

// Reads (base, joined, count) into a new Job with its answer buffer, or throws and returns NULL.
static Job *job_of(napi_env env, napi_callback_info info, const char *usage) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint32_t count = 0;
  size_t base_length = 0, length = 0;
  bool owned = false;
  const char *list = NULL;
  if (argc < 3 || napi_get_value_string_utf8(env, argv[0], NULL, 0, &base_length) != napi_ok || (list = list_bytes(env, argv[1], &length, &owned)) == NULL ||
      napi_get_value_uint32(env, argv[2], &count) != napi_ok) {
    if (owned) free((char *)list);
    napi_throw_type_error(env, "MAST_NATIVE", usage);
    return NULL;
  }
  if (base_length >= PATH_MAX) {
    if (owned) free((char *)list);
    napi_throw_range_error(env, "MAST_NATIVE_REFUSED", "lstatMany: a base longer than the system takes");
    return NULL;
  }
  Job *job = calloc(1, sizeof(Job));
  napi_value buffer;
  void *data = NULL;
  if (job) {
    job->count = count;
    job->base = malloc(base_length + 1);
    // The job's own copy, NUL-terminated (an async job outlives the caller's view).
    job->text = owned ? (char *)list : malloc(length + 1);
    owned = false;
    if (job->text && job->text != list) {
      memcpy(job->text, list, length);
      job->text[length] = '\0';
    }
    job->paths = malloc((count ? count : 1) * sizeof(char *));
  } else if (owned) free((char *)list);
  if (!job || !job->base || !job->text || !job->paths || napi_create_arraybuffer(env, (size_t)count * STAT_WORDS * sizeof(double), &data, &buffer) != napi_ok ||
      napi_create_reference(env, buffer, 1, &job->buffer) != napi_ok) {
    if (job) free_job(env, job);
    napi_throw_error(env, "MAST_NATIVE", "lstatMany: out of memory");
    return NULL;
  }
  job->out = data;
  napi_get_value_string_utf8(env, argv[0], job->base, base_length + 1, &job->base_length);
  // The paths are the NUL-separated pieces: exactly `count` of them, or one held a NUL (or the base did): refused.
  size_t found = 0, at = 0;
  for (; found < count && at <= length; found++) {
    job->paths[found] = job->text + at;
    at += strlen(job->text + at) + 1;
  }
  if (found != count || (count > 0 ? at != length + 1 : length != 0) || strlen(job->base) != job->base_length) {
    free_job(env, job);
    napi_throw_range_error(env, "MAST_NATIVE_REFUSED", "lstatMany: a path holds a NUL, or the count is not the paths'");
    return NULL;
  }
  return job;
}

// Stats every path of the job, over two threads past SPLIT_AT paths. Touches no JavaScript value.
static void run_job(Job *job) {
  Slice first = {job->base, job->base_length, job->paths, job->out, 0, job->count, job->follow};
  Slice second = {job->base, job->base_length, job->paths, job->out, job->count / 2, job->count, job->follow};
  pthread_t helper;
  if (job->count >= SPLIT_AT && pthread_create(&helper, NULL, stat_slice, &second) == 0) {
    first.to = job->count / 2;
    stat_slice(&first);
    pthread_join(helper, NULL);
  } else {
    stat_slice(&first);
  }
}

// The job's answer as a Float64Array (its job then freed).
static napi_value answer_of(napi_env env, Job *job) {
  napi_value buffer, result;
  napi_get_reference_value(env, job->buffer, &buffer);
  napi_create_typedarray(env, napi_float64_array, (size_t)job->count * STAT_WORDS, buffer, 0, &result);
  return result;
}

// lstatMany(base: string, joined: string, count: number) → Float64Array(count * STAT_WORDS): each path is base + piece
static napi_value lstat_many(napi_env env, napi_callback_info info) {
  Job *job = job_of(env, info, "lstatMany(base, joined, count)");
  if (!job) return NULL;
  run_job(job);
  napi_value result = answer_of(env, job);
  free_job(env, job);
  return result;
}

// statMany(base, joined, count): lstatMany's answer with symlinks followed (stat, as fs.statSync: a
// link reads as what it points to, a dangling one as NONE) — for paths a resolver read, not walked.
static napi_value stat_many(napi_env env, napi_callback_info info) {
  Job *job = job_of(env, info, "statMany(base, joined, count)");
  if (!job) return NULL;
  job->follow = true;
  run_job(job);
  napi_value result = answer_of(env, job);
  free_job(env, job);
  return result;
}

static void execute_job(napi_env env, void *data) {
  (void)env;
  run_job(data);
}

static void complete_job(napi_env env, napi_status status, void *data) {
  Job *job = data;
  if (status == napi_ok) {
    napi_resolve_deferred(env, job->deferred, answer_of(env, job));
  } else {
    napi_value message, error;
    napi_create_string_utf8(env, "lstatManyAsync: cancelled", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, job->deferred, error);
  }
  napi_delete_async_work(env, job->work);
  free_job(env, job);
}

// lstatManyAsync(base: string, joined: string, count: number) → Promise<Float64Array>: the same answer, the stats
// made on libuv's thread pool while JavaScript goes on.
static napi_value lstat_many_async(napi_env env, napi_callback_info info) {
  Job *job = job_of(env, info, "lstatManyAsync(base, joined, count)");
  if (!job) return NULL;
  napi_value promise, name;
  if (napi_create_promise(env, &job->deferred, &promise) != napi_ok) {
    free_job(env, job);
    napi_throw_error(env, "MAST_NATIVE", "lstatManyAsync: cannot make a promise");
    return NULL;
  }
  napi_create_string_utf8(env, "mast.lstatMany", NAPI_AUTO_LENGTH, &name);
  bool made = napi_create_async_work(env, NULL, name, execute_job, complete_job, job, &job->work) == napi_ok;
  if (!made || napi_queue_async_work(env, job->work) != napi_ok) {
    // Settled here, so no caller waits on it forever.
    if (made) napi_delete_async_work(env, job->work);
    napi_value message, error;
    napi_create_string_utf8(env, "lstatManyAsync: cannot queue the work", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, job->deferred, error);
    free_job(env, job);
  }
  return promise;
}

// ---- trustedListHolds: the shape checks of a walk cache's trusted list (index/walk-cache.ts) ----
// (dirs, dirCount, gitignores, gitignoreCount, files, fileCount), each list NUL-joined: true when the
// directories are as many as counted, distinct, root-relative and safe (no absolute path, no `.`,
// `..` or empty component), the root ("") among them and every other one's parent too; each
// .gitignore safe and in a listed directory; the files as many as counted, each in a listed
// directory. The same answer as walk-cache.ts's JavaScript (its fallback), ~10x sooner: at 1 GB its
// 25,000 directories and 110,000 files took ~35 ms of every `mast status` in JavaScript.

typedef struct {
  const char *at;
  size_t length;
} Piece;

static int compare_pieces(const void *a, const void *b) {
  const Piece *x = a, *y = b;
  size_t n = x->length < y->length ? x->length : y->length;
  int c = memcmp(x->at, y->at, n);
  return c != 0 ? c : (x->length < y->length ? -1 : x->length > y->length ? 1 : 0);
}

// The NUL-separated pieces of text[0..length): exactly `count`, else NULL (a count of 0 is an empty list).
static Piece *pieces_of(const char *text, size_t length, uint32_t count) {
  Piece *out = malloc((count ? count : 1) * sizeof(Piece));
  if (!out || count == 0) return out;
  size_t found = 0, start = 0;
  for (;;) {
    const char *nul = start < length ? memchr(text + start, '\0', length - start) : NULL;
    size_t end = nul ? (size_t)(nul - text) : length;
    if (found == count) {
      free(out);
      return NULL;
    }
    out[found++] = (Piece){text + start, end - start};
    if (!nul) break;
    start = end + 1;
  }
  if (found != count) {
    free(out);
    return NULL;
  }
  return out;
}

// A root-relative path with no empty, `.` or `..` component (the empty path is the root's, not this).
static bool safe_path(Piece p) {
  if (p.length == 0) return false;
  size_t start = 0;
  for (size_t i = 0; i <= p.length; i++) {
    if (i == p.length || p.at[i] == '/') {
      size_t n = i - start;
      if (n == 0 || (n == 1 && p.at[start] == '.') || (n == 2 && p.at[start] == '.' && p.at[start + 1] == '.')) return false;
      start = i + 1;
    }
  }
  return true;
}

static Piece parent_of(Piece p) {
  size_t i = p.length;
  while (i > 0 && p.at[i - 1] != '/') i--;
  return (Piece){p.at, i > 0 ? i - 1 : 0};
}

static bool listed(const Piece *sorted, uint32_t count, Piece p) {
  return bsearch(&p, sorted, count, sizeof(Piece), compare_pieces) != NULL;
}

static bool holds(const char *dirs_text, size_t dirs_length, uint32_t dir_count, const char *ignores_text, size_t ignores_length, uint32_t ignore_count, const char *files_text, size_t files_length, uint32_t file_count) {
  bool ok = false;
  Piece *dirs = pieces_of(dirs_text, dirs_length, dir_count);
  Piece *ignores = pieces_of(ignores_text, ignores_length, ignore_count);
  Piece *files = NULL;
  if (!dirs || !ignores || dir_count == 0) goto done;
  bool root = false;
  for (uint32_t i = 0; i < dir_count; i++) {
    if (dirs[i].length == 0) root = true;
    else if (!safe_path(dirs[i])) goto done;
  }
  if (!root) goto done;
  qsort(dirs, dir_count, sizeof(Piece), compare_pieces);
  for (uint32_t i = 1; i < dir_count; i++)
    if (compare_pieces(&dirs[i - 1], &dirs[i]) == 0) goto done;
  for (uint32_t i = 0; i < dir_count; i++)
    if (dirs[i].length > 0 && !listed(dirs, dir_count, parent_of(dirs[i]))) goto done;
  for (uint32_t i = 0; i < ignore_count; i++)
    if (!safe_path(ignores[i]) || !listed(dirs, dir_count, parent_of(ignores[i]))) goto done;
  if (file_count == 0) {
    ok = files_length == 0;
    goto done;
  }
  files = pieces_of(files_text, files_length, file_count);
  if (!files) goto done;
  // Sorted, a directory's files follow one another: its lookup is made when the directory changes.
  Piece last = {NULL, 0};
  for (uint32_t i = 0; i < file_count; i++) {
    Piece dir = parent_of(files[i]);
    if (last.at != NULL && compare_pieces(&dir, &last) == 0) continue;
    if (!listed(dirs, dir_count, dir)) goto done;
    last = dir;
  }
  ok = true;
done:
  free(dirs);
  free(ignores);
  free(files);
  return ok;
}

static napi_value trusted_list_holds(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  uint32_t counts[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 6 || napi_get_value_uint32(env, argv[1], &counts[0]) != napi_ok || napi_get_value_uint32(env, argv[3], &counts[1]) != napi_ok ||
      napi_get_value_uint32(env, argv[5], &counts[2]) != napi_ok) {
    napi_throw_type_error(env, "MAST_NATIVE", "trustedListHolds(dirs, dirCount, gitignores, gitignoreCount, files, fileCount)");
    return NULL;
  }
  size_t lengths[3] = {0, 0, 0};
  bool owned[3] = {false, false, false};
  const char *texts[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++) texts[i] = list_bytes(env, argv[i * 2], &lengths[i], &owned[i]);
  napi_value result;
  if (!texts[0] || !texts[1] || !texts[2]) {
    for (int i = 0; i < 3; i++)
      if (owned[i]) free((char *)texts[i]);
    napi_throw_type_error(env, "MAST_NATIVE", "trustedListHolds: the lists are strings or UTF-8 bytes");
    return NULL;
  }
  bool ok = holds(texts[0], lengths[0], counts[0], texts[1], lengths[1], counts[1], texts[2], lengths[2], counts[2]);
  for (int i = 0; i < 3; i++)
    if (owned[i]) free((char *)texts[i]);
  napi_get_boolean(env, ok, &result);
  return result;
}

void lstat_many_register(napi_env env, napi_value exports) {
  napi_value fn, abi;
  // What base/native.ts checks before it calls: (base, joined, count), STAT_WORDS doubles a path.
  napi_create_uint32(env, LSTAT_ABI, &abi);
  napi_set_named_property(env, exports, "LSTAT_ABI", abi);
  napi_create_function(env, "lstatMany", NAPI_AUTO_LENGTH, lstat_many, NULL, &fn);
  napi_set_named_property(env, exports, "lstatMany", fn);
  napi_create_function(env, "lstatManyAsync", NAPI_AUTO_LENGTH, lstat_many_async, NULL, &fn);
  napi_set_named_property(env, exports, "lstatManyAsync", fn);
  napi_create_function(env, "statMany", NAPI_AUTO_LENGTH, stat_many, NULL, &fn);
  napi_set_named_property(env, exports, "statMany", fn);
  napi_create_function(env, "trustedListHolds", NAPI_AUTO_LENGTH, trusted_list_holds, NULL, &fn);
  napi_set_named_property(env, exports, "trustedListHolds", fn);
}
#else
// Windows has neither lstat nor pthreads: nothing is registered, and base/native.ts stats with fs.
void lstat_many_register(napi_env env, napi_value exports) {
  (void)env;
  (void)exports;
}
#endif
