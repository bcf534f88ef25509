// The only importer of better-sqlite3: the connection layer. Opens graph.db (WAL) with the schema
// in place — it owns the schema and its version; store.ts's Store is graph.db's connection for an
// index's reads and writes — and the state dir's other databases, and holds what every connection
// shares: statements prepared once, the addon's SQLite extension (`mast_ids`, `mast_doubles`, the
// FTS5 functions), values derived once per data version, symbol texts unpacked per file, the
// recorded totals, and the stamp each Store checkpoint records beside graph.db for status's trust.
import type BetterSqlite3 from "better-sqlite3";
import { createRequire } from "node:module";
import { closeSync, constants, fchmodSync, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { DAMAGED_ROW, damagedRow, errorMessage } from "../base/errors.js";
import { nativeAddonPath } from "../base/native.js";
import { fileURLToPath } from "node:url";
import { sha256 } from "../base/hash.js";
import { unpackSymbolTexts, type SymbolTexts } from "./symbol-texts.js";

// A CommonJS package is required, not imported: ESM's import of CommonJS first scans its source
// for export names (~25 ms of every CLI start for `ignore` alone).
let sqlite: typeof BetterSqlite3 | null = null;
/** better-sqlite3, loaded at the first open: the state files' helpers below need none of it (`mast serve` answers tools/list before it opens graph.db). */
const Database = (): typeof BetterSqlite3 => (sqlite ??= createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3);

/** Bumped whenever the tables, index.json or what a committed database guarantees change incompatibly; a mismatch wipes derived state. */
export const CURRENT_SCHEMA_VERSION = "1.27.0";
/** Meta key: when the checker pass (query/checker.ts) last ran on this index; cleared by a full run without it. */
export const CHECKER_META = "checker_ran";
/** The meta key a published snapshot's packages are kept under (JSON: resolve/packages.ts PackageIdentity[]), in the store's index_meta and a replica's graph.db. */
export const PACKAGES_META = "packages";
/** Meta key: set when a file's rows are replaced or removed after the pass last ran (its lines lost their verdicts); the pass clears it. */
export const CHECKER_BEHIND = "checker_behind";
/** Meta key: JSON of the last checker pass's languages, each available or not with the reason (`mast status`). */
export const CHECKER_LANGUAGES = "checker_languages";

/** Busy wait of the shared connection; JIT writes use their own short budget (docs/index-lifecycle.md#write-locking). */
const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * A file's size, mtime, ctime and inode as one string; null when it does not exist (graph.db's, and
 * the state files recorded beside it). A database's WAL is left out: commits land there and reach the file only at a checkpoint, and a WAL frame that
 * fails its checksum is SQLite's to drop.
 */
export function databaseStamp(path: string): string | null {
  const st = statSync(path, { throwIfNoEntry: false });
  return st === undefined ? null : `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
}

/**
 * Where a Store records the stamp graph.db had right after its own last checkpoint: the file's
 * bytes are then SQLite's, written by mast, and a reader trusting that stamp need not check the
 * pages (status's quick_check, ~20 ms per MB).
 */
export function checkpointStampPath(path: string): string {
  return `${path}-stamp`;
}

/** The stamp a Store recorded after its last checkpoint of the database at `path`; null when none is. */
export function recordedCheckpointStamp(path: string): string | null {
  try {
    return readFileSync(checkpointStampPath(path), "utf8");
  } catch {
    return null;
  }
}

const SCHEMA_SQL = readFileSync(fileURLToPath(new URL("./schema.sql", import.meta.url)), "utf8");
/** Any edit of schema.sql changes this hash, so a database built by another schema is never misread. */
const SCHEMA_HASH = sha256(SCHEMA_SQL);
/** What made an index's rows: its schema version and the schema's text. Rows of another identity are other rows (a published unit is keyed by it). */
export const INDEX_IDENTITY = `${CURRENT_SCHEMA_VERSION}/${SCHEMA_HASH.slice(0, 16)}`;

export type Db = BetterSqlite3.Database;
/** A prepared statement of a connection (better-sqlite3's). */
export type Statement = BetterSqlite3.Statement;

/**
 * A plain connection to another database of the state dir (metrics.db, the structural catalog): WAL
 * unless `journal: "delete"` (a file that is renamed into place whole and read by other programs
 * must hold all of its pages), a busy wait of `busyMs`. With `mode`, a writable database and its
 * -wal and -shm files get that mode (created so; SQLite gives its journals the database's mode).
 */
export function openDatabase(path: string, options: { readonly?: boolean; busyMs?: number; journal?: "wal" | "delete"; mode?: number } = {}): Db {
  if (options.mode !== undefined && !options.readonly) restrictMode(path, options.mode);
  const db = new (Database())(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  try {
    db.pragma(`busy_timeout = ${options.busyMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
    if (!options.readonly) {
      db.pragma(options.journal === "delete" ? "journal_mode = DELETE" : "journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
    }
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Creates `path` with `mode` when missing and sets it, and any -wal and -shm beside it, to `mode` through the opened descriptor (a symlink is refused). */
function restrictMode(path: string, mode: number): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDWR | constants.O_NOFOLLOW | (file === path ? constants.O_CREAT : 0), mode);
    } catch (err) {
      if (file !== path && (err as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw err;
    }
    try {
      if ((fstatSync(fd).mode & 0o7777) !== mode) fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
  }
}

/** Graph.db's connection options: read-only, or an index run's (`bulk`: a larger page cache). */
export interface GraphDatabaseOptions {
  readonly readonly?: boolean;
  readonly bulk?: boolean;
}

/** Opens (creating when allowed) graph.db with the schema in place: the Store's connection (store.ts). */
export function openGraphDatabase(path: string, options: GraphDatabaseOptions): Db {
  const db = new (Database())(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  try {
    prepareGraphConnection(db, options);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

function prepareGraphConnection(db: Db, options: GraphDatabaseOptions): void {
  db.pragma(`busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`);
  if (!options.readonly) {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    // Checkpoints are the Store's own (after a commit, and at close), each recording the file's stamp.
    db.pragma("wal_autocheckpoint = 0");
    // Index runs: a larger page cache for the FTS builds (and a checkpoint per 64 MB of WAL, not per 4 MB).
    if (options.bulk) db.pragma("cache_size = -65536");
    // A database built by another schema is left untouched (hasCurrentSchema() says so, and index
    // runs rebuild it): applying this schema to its tables could fail or half-migrate them. A
    // database with its schema gets no write at all, so opening it never waits on a running index.
    const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
    if (!hasMeta) {
      db.transaction(() => {
        db.exec(SCHEMA_SQL);
        db.prepare("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?), ('schema_hash', ?)").run(CURRENT_SCHEMA_VERSION, SCHEMA_HASH);
      }).immediate();
    }
  }
}

/** The schema version this database was built with; null when it has no readable schema. */
export function schemaVersionOf(db: Db): string | null {
  return metaOrNull(db, "schema_version");
}

/** True when this database was built by this binary's schema (version and schema.sql alike). */
export function hasCurrentSchema(db: Db): boolean {
  return schemaVersionOf(db) === CURRENT_SCHEMA_VERSION && metaOrNull(db, "schema_hash") === SCHEMA_HASH;
}

/**
 * A meta value; null when the database has no meta table (a file killed before its schema was
 * written) or is not a database. Any other failure (busy, I/O) is thrown: taken for "no schema", it would make an
 * index run wipe a database other connections are reading.
 */
function metaOrNull(db: Db, key: string): string | null {
  try {
    const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
    if (!hasMeta) return null;
    const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value ?? null;
  } catch (err) {
    if (isUnusableDatabase(err)) return null; // not a database at all
    throw err;
  }
}

const STATEMENTS = new WeakMap<Db, Map<string, Statement>>();

/**
 * `db.prepare(text)`, compiled once per connection: queries that run on every tool call or link
 * pass would otherwise spend more time compiling SQL than running it. A statement's mode
 * (`pluck`, `raw`, `expand`) sticks to it, and one text has many users: each use starts with rows
 * as objects (a caller that plucks a text another reads as rows would otherwise hand it numbers —
 * `SELECT id FROM files WHERE path = ?` plucked by a references answer broke a server's next
 * refresh).
 */
export function prepared(db: Db, text: string): Statement {
  let cache = STATEMENTS.get(db);
  if (!cache) STATEMENTS.set(db, (cache = new Map()));
  let st = cache.get(text);
  if (!st) cache.set(text, (st = db.prepare(text)));
  else if (st.reader) {
    try {
      st.pluck(false).raw(false).expand(false);
    } catch {
      // An iterator is open on the connection (better-sqlite3 refuses a mode change then): the
      // statement keeps its mode — texts are still written to be used one way (references.ts reads
      // a file's id as a row for that reason).
    }
  }
  return st;
}

/** Per connection: whether the addon's SQLite extension (native/sqlite_ext.c) is loaded into it; false when it could not be. */
const EXTENSION = new WeakMap<Db, boolean>();

function extensionLoaded(db: Db): boolean {
  const known = EXTENSION.get(db);
  if (known !== undefined) return known;
  if (nativeAddonPath === null) {
    EXTENSION.set(db, false);
    return false;
  }
  try {
    // better-sqlite3 takes the entry point its types leave out.
    (db as unknown as { loadExtension(path: string, entryPoint: string): void }).loadExtension(nativeAddonPath, "sqlite3_mast_init");
    EXTENSION.set(db, true);
    return true;
  } catch (err) {
    // SQLite's refusal (an addon built before the extension was added) holds for the connection; an
    // iterator open on it (better-sqlite3 loads nothing then) only for now.
    if ((err as { code?: unknown } | null)?.code !== undefined) EXTENSION.set(db, false);
    return false;
  }
}

const FTS_FUNCTIONS = new WeakMap<Db, boolean>();

/**
 * Whether the extension's FTS5 functions (`mast_bm25`, `mast_fts_stats`) answer in this
 * connection: loaded, and by an addon that has them (FTS5 resolves an auxiliary function's name
 * when a statement is prepared; an addon built before they were added has `mast_ids` only).
 */
export function ftsFunctions(db: Db): boolean {
  const known = FTS_FUNCTIONS.get(db);
  if (known !== undefined) return known;
  if (!extensionLoaded(db)) return false;
  let present = true;
  try {
    db.prepare("SELECT mast_bm25(chunk_words), mast_fts_stats(chunk_words) FROM chunk_words WHERE chunk_words MATCH 'x' LIMIT 0");
  } catch {
    present = false;
  }
  FTS_FUNCTIONS.set(db, present);
  return present;
}

/**
 * What the addon's SQLite extension gives this install (`mast doctor`), asked of a connection of its
 * own: whether it loads, and whether it has its FTS5 functions.
 */
export function sqliteExtensionReport(): { readonly loaded: boolean; readonly fts: boolean } {
  const db = new (Database())(":memory:");
  try {
    db.exec("CREATE VIRTUAL TABLE chunk_words USING fts5(words)");
    return { loaded: extensionLoaded(db), fts: ftsFunctions(db) };
  } finally {
    db.close();
  }
}

/** A blob of host-order doubles (what the extension's functions answer) as numbers, copied when misaligned for a view. */
export function doublesOf(blob: Buffer): Float64Array {
  const bytes = blob.byteOffset % 8 === 0 ? blob : new Uint8Array(blob);
  return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
}

/**
 * The integers of a query's one column, `id`, in its order, as one array: with the addon's
 * `mast_ids` aggregate, in one packed blob (a common word's 277,000 chunk ids at 1 GB: 94 → 46 ms,
 * FTS5's own walk of them 24), else row by row (`packed` false, or no addon) — the same numbers.
 */
export function idList(db: Db, select: string, params: readonly unknown[], packed = true): Float64Array {
  if (packed && extensionLoaded(db)) {
    // A subquery with ORDER BY feeding an aggregate is not flattened: its rows come in its order.
    return doublesOf(
      prepared(db, `SELECT mast_ids(id) FROM (${select})`)
        .pluck()
        .get(...params) as Buffer,
    );
  }
  return Float64Array.from(
    prepared(db, select)
      .pluck()
      .all(...params) as number[],
  );
}

/** Per connection: whether the extension's mast_doubles answers (an addon built before it was added has mast_ids alone). */
const DOUBLES = new WeakMap<Db, boolean>();

/**
 * The files table's stamp columns in two values, where the extension has `mast_doubles`: id,
 * mtime, size, ino, ctime, stat_clean per row as doubles, and the paths NUL-joined, in path order.
 * At 1 GB (110,000 rows), what a status or a run reads when file-stamps.bin is not of graph.db's
 * files generation (a server's refresh committed since the last run): ~170 ms and most of the
 * status's garbage row by row, ~60 ms so. Null without the function.
 */
export function stampColumns(db: Db): { readonly numbers: Float64Array; readonly paths: string } | null {
  if (DOUBLES.get(db) === false || !extensionLoaded(db)) return null;
  let row: { numbers: Buffer; paths: string | null };
  try {
    // A subquery with ORDER BY feeding aggregates is not flattened: both take its rows in its order.
    row = prepared(
      db,
      "SELECT mast_doubles(id, mtime, size, ino, ctime, stat_clean) AS numbers, group_concat(path, char(0)) AS paths FROM (SELECT id, mtime, size, ino, ctime, stat_clean, path FROM files ORDER BY path)",
    ).get() as typeof row;
  } catch (err) {
    if (!/no such function: mast_doubles/.test(errorMessage(err))) throw err;
    DOUBLES.set(db, false);
    return null;
  }
  DOUBLES.set(db, true);
  return { numbers: doublesOf(row.numbers), paths: row.paths ?? "" };
}

const DERIVED = new WeakMap<Db, Map<string, { readonly version: string; readonly value: unknown }>>();

/**
 * A value computed from the database once per connection and kept until the data changes: a
 * commit by another connection moves `PRAGMA data_version`, a write of this one `total_changes()`.
 * For a whole-table summary every query of a kind reads (the method owners of each name), never
 * for one query's answer.
 */
export function derivedOnce<T>(db: Db, key: string, compute: () => T): T {
  const version = `${prepared(db, "PRAGMA data_version").pluck().get()}:${prepared(db, "SELECT total_changes()").pluck().get()}`;
  let cache = DERIVED.get(db);
  if (!cache) DERIVED.set(db, (cache = new Map()));
  const hit = cache.get(key);
  if (hit && hit.version === version) return hit.value as T;
  const value = compute();
  cache.set(key, { version, value });
  return value;
}

/** The files' symbol texts one connection keeps unpacked (until the data changes): past it, it starts again. */
const SYMBOL_TEXT_FILES = 256;
const NO_TEXTS: SymbolTexts = { signature: null, doc: null, params: null };

/**
 * Reads symbols' signatures, doc comments and packed parameters (store/symbol-texts.ts) for one
 * answer: `(fileId, id)` gives the symbol's, each file's row unpacked once per connection until
 * the data changes. A symbol past its file's texts has none (a row of it is never misread).
 */
export function symbolTextReader(db: Db): (fileId: number, id: number) => SymbolTexts {
  const files = derivedOnce(db, "symbol-texts", () => new Map<number, (id: number) => SymbolTexts>());
  return (fileId, id) => {
    let file = files.get(fileId);
    if (file === undefined) {
      file = fileSymbolTexts(db, fileId);
      if (files.size >= SYMBOL_TEXT_FILES) files.clear();
      files.set(fileId, file);
    }
    return file(id);
  };
}

/** A file's symbol_texts row unpacked: each symbol's texts by id (none for an id it does not list). */
export function fileSymbolTexts(db: Db, fileId: number): (id: number) => SymbolTexts {
  const row = prepared(db, "SELECT first_id, ids, texts FROM symbol_texts WHERE file_id = ?").raw().get(fileId) as [number, string | null, Uint8Array] | undefined;
  if (row === undefined) return () => NO_TEXTS;
  const [first, listed, packed] = row;
  const texts = unpackSymbolTexts(fileId, packed);
  if (listed === null) return (id) => texts[id - first] ?? NO_TEXTS;
  let ids: unknown;
  try {
    ids = JSON.parse(listed);
  } catch {
    ids = null;
  }
  if (!Array.isArray(ids) || ids.length !== texts.length || !ids.every((id) => Number.isSafeInteger(id))) throw damagedRow(`damaged symbol ids (file ${fileId})`);
  const at = new Map((ids as number[]).map((id, i) => [id, i]));
  return (id) => texts[at.get(id) ?? -1] ?? NO_TEXTS;
}

/** One symbol's texts by its id alone (none for an id the index does not hold). */
export function symbolTextsOf(db: Db, id: number): SymbolTexts {
  const fileId = prepared(db, "SELECT file_id FROM symbols WHERE id = ?").pluck().get(id) as number | undefined;
  return fileId === undefined ? NO_TEXTS : symbolTextReader(db)(fileId, id);
}

/**
 * An error meaning the file is not a usable database — not one at all, one SQLite finds corrupt
 * (SQLITE_CORRUPT and its extended codes), or bytes of mast's own in it that do not read back
 * (base/errors.ts damagedRow): it is rebuilt, never repaired, and never answered from.
 */
export function isUnusableDatabase(err: unknown): boolean {
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  return code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT") || code === DAMAGED_ROW;
}

/** Meta key: moves on with every commit that wrote a file row (added, rewritten, re-stamped or removed). */
export const FILES_VERSION = "files_version";
/** Meta key: `<files_version>:<chunks>:<files>`, the index's totals at that files_version (a commit that counted them after its last file write records them; an older index wrote the chunks alone). */
export const CHUNK_TOTAL = "chunk_total";

/**
 * The index's chunk and file totals as its last counting commit recorded them, or null when a
 * later commit wrote file rows without counting (a count of 1.7 million chunks took 85–95 ms cold
 * at 1 GB, of 110,000 files ~45 ms). `files` is null in a record written before it was kept.
 */
export function recordedTotals(db: Db): { chunks: number; files: number | null } | null {
  const read = prepared(db, "SELECT key, value FROM meta WHERE key IN (?, ?)").all(FILES_VERSION, CHUNK_TOTAL) as Array<{ key: string; value: string }>;
  const value = (key: string) => read.find((r) => r.key === key)?.value ?? null;
  const recorded = /^(\d+):(\d+)(?::(\d+))?$/.exec(value(CHUNK_TOTAL) ?? "");
  if (recorded === null || recorded[1] !== (value(FILES_VERSION) ?? "0")) return null;
  return { chunks: Number(recorded[2]), files: recorded[3] === undefined ? null : Number(recorded[3]) };
}

/** The index's chunks as recordedTotals has them, or null. */
export function recordedChunkTotal(db: Db): number | null {
  return recordedTotals(db)?.chunks ?? null;
}

/** The index's files as recordedTotals has them, or null. */
export function recordedFileTotal(db: Db): number | null {
  return recordedTotals(db)?.files ?? null;
}
