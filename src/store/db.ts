// The only importer of better-sqlite3: opens graph.db (WAL), owns the schema and its version,
// and performs every write of the index — per-file delete-and-replace in one BEGIN IMMEDIATE
// transaction, multi-row inserts under SQLite's parameter cap, and the two FTS indexes kept in
// step with the chunks: indexed in bulk (per range of new chunk ids, and always before a
// transaction commits), removed by exact rowid. Its checkpoints are its own (SQLite's
// automatic ones are off), each recording graph.db's stamp beside it for status's trust check.
import type BetterSqlite3 from "better-sqlite3";
import { createRequire } from "node:module";
import { closeSync, constants, fchmodSync, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { writeAtomic } from "../base/atomic.js";
import { deflate } from "../base/deflate.js";
import { DAMAGED_ROW, damagedRow, errorMessage } from "../base/errors.js";
import { nativeAddonPath } from "../base/native.js";
import { fileURLToPath } from "node:url";
import { hashKey, sha256 } from "../base/hash.js";
import { isTestPath } from "../base/paths.js";
import { extensionInfo } from "../lang/languages.js";
import { chunkSearchWords, lineStarts, splitTerms, type ChunkSearchWords } from "../base/text.js";
import type { Chunk, FileExtraction, ImportRecord, SymbolRecord } from "../syntax/types.js";
import { EDGE, RESOLVED } from "./edge-codes.js";
import { storedCalls, type CallSiteRow } from "./call-rows.js";
import { heritageRowsOf, importNamesColumns, matchLinkFace, type LinkFaceHeritage, type LinkFaceImport, type LinkFaceSymbol } from "./link-face.js";
import { packedTextsOf, unpackSymbolTexts, type SymbolTexts } from "./symbol-texts.js";
import { FileStamps, type FileStamp, type StampFields, type StoredStampRow } from "./file-stamps.js";

export type { FileStamp } from "./file-stamps.js";

// A CommonJS package is required, not imported: ESM's import of CommonJS first scans its source
// for export names (~25 ms of every CLI start for `ignore` alone).
let sqlite: typeof BetterSqlite3 | null = null;
/** better-sqlite3, loaded at the first open: the state files' helpers below need none of it (`mast serve` answers tools/list before it opens graph.db). */
const Database = (): typeof BetterSqlite3 => (sqlite ??= createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3);

/** Bumped whenever the tables, index.json or what a committed database guarantees change incompatibly; a mismatch wipes derived state. */
export const CURRENT_SCHEMA_VERSION = "1.27.0";
/** Meta key: when the checker pass (query/checker.ts) last ran on this index; cleared by a full run without it. */
export const CHECKER_META = "checker_ran";
/** Meta key: set when a file's rows are replaced or removed after the pass last ran (its lines lost their verdicts); the pass clears it. */
export const CHECKER_BEHIND = "checker_behind";
/** Meta key: JSON of the last checker pass's languages, each available or not with the reason (`mast status`). */
export const CHECKER_LANGUAGES = "checker_languages";

/** SQLite's bound-parameter ceiling (SQLITE_MAX_VARIABLE_NUMBER). */
const MAX_PARAMS = 32_766;
/** Busy wait of the shared connection; JIT writes use their own short budget (spec §7.6). */
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

/** The WAL bytes after which a committed write checkpoints: about SQLite's default (1,000 pages), and 64 MB for index runs. */
const CHECKPOINT_WAL_BYTES = 4 * 1024 * 1024;
const BULK_CHECKPOINT_WAL_BYTES = 64 * 1024 * 1024;

/** Chunks dropped from the FTS indexes in one transaction after which its commit merges each index whole (each leaves a tombstone until a merge). */
const OPTIMIZE_AFTER_DELETES = 20_000;
/** Import rows `relinkImports` reads at a time. */
const RELINK_IMPORTS_PAGE = 10_000;

/** Whether an import in the file at `path` names something outside the project, by the file's language. */
function isExternalImport(path: string, module: string): boolean {
  return extensionInfo(path)?.spec.isExternalImport(module) ?? false;
}

const SCHEMA_SQL = readFileSync(fileURLToPath(new URL("./schema.sql", import.meta.url)), "utf8");
/** Any edit of schema.sql changes this hash, so a database built by another schema is never misread. */
const SCHEMA_HASH = sha256(SCHEMA_SQL);

export type Db = BetterSqlite3.Database;

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

const STATEMENTS = new WeakMap<Db, Map<string, BetterSqlite3.Statement>>();

/**
 * `db.prepare(text)`, compiled once per connection: queries that run on every tool call or link
 * pass would otherwise spend more time compiling SQL than running it. A statement's mode
 * (`pluck`, `raw`, `expand`) sticks to it, and one text has many users: each use starts with rows
 * as objects (a caller that plucks a text another reads as rows would otherwise hand it numbers —
 * `SELECT id FROM files WHERE path = ?` plucked by a references answer broke a server's next
 * refresh).
 */
export function prepared(db: Db, text: string): BetterSqlite3.Statement {
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
    return doublesOf(prepared(db, `SELECT mast_ids(id) FROM (${select})`).pluck().get(...params) as Buffer);
  }
  return Float64Array.from(prepared(db, select).pluck().all(...params) as number[]);
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
function stampColumns(db: Db): { readonly numbers: Float64Array; readonly paths: string } | null {
  if (DOUBLES.get(db) === false || !extensionLoaded(db)) return null;
  let row: { numbers: Buffer; paths: string | null };
  try {
    // A subquery with ORDER BY feeding aggregates is not flattened: both take its rows in its order.
    row = prepared(db, "SELECT mast_doubles(id, mtime, size, ino, ctime, stat_clean) AS numbers, group_concat(path, char(0)) AS paths FROM (SELECT id, mtime, size, ino, ctime, stat_clean, path FROM files ORDER BY path)").get() as typeof row;
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
function fileSymbolTexts(db: Db, fileId: number): (id: number) => SymbolTexts {
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

/** A file as a write names it: its path, its language and the stamp of the read its rows come from. */
export interface FileMeta extends StampFields {
  readonly path: string;
  readonly language: string;
}

/** The files row of a stamp, as `stampOf` reads it back. */
/** Derived edges written per multi-row INSERT round (replaceDerivedEdges). */
const EDGE_WRITE_BATCH = 4096;

const STAMP_COLUMNS = "id, path, mtime, size, ino, ctime, content_hash, stat_clean";
type StampRow = [number, string, number, number, number, number, string, number];

function stampOf([id, path, mtime, size, ino, ctime, contentHash, clean]: StampRow): FileStamp {
  return { id, path, mtime, size, ino, ctime, contentHash, statClean: clean === 1 };
}

export interface ChunkDelta {
  readonly added: number;
  readonly removed: number;
  /**
   * Null: the file's rows were written anew. Else its symbol rows were kept where it still
   * declares them (`replaceFileRows`' `keepIds`), and these are the names whose face moved (none:
   * no other file's edges can tell the new text from the old).
   */
  readonly kept: ReadonlySet<string> | null;
}

export interface StoreCounts {
  readonly files: number;
  readonly chunks: number;
  readonly symbols: number;
}

/**
 * What the FTS indexes lack within the open write transaction. Both are contentless, fed from the
 * chunks as they are written, and complete at every commit: they hold every chunk up to `through`
 * (chunk ids only grow, so the chunks written since are exactly those with a larger id), and the
 * rows of those above it wait in `rows` until `indexSearch`.
 */
interface SearchState {
  through: number;
  /** By chunk id: [words, parts] for chunk_words, [identifiers, name_terms] for identifier_fts. */
  readonly rows: Map<number, readonly [string, string, string, string]>;
  /** Characters of chunk text written and not yet indexed. */
  pending: number;
  /** Rows deleted by rowid in this transaction (each a tombstone until a merge: many are merged at once). */
  deleted: number;
}

/** Meta key: moves on with every commit that added or removed a file row. */
const PATHS_VERSION = "paths_version";
/** Meta key: moves on with every commit that wrote a file row (added, rewritten, re-stamped or removed). */
const FILES_VERSION = "files_version";
/** Meta key: the name of the file rows' history, set with every files_version (`filesGeneration`). */
const FILES_GENERATION = "files_generation";
/** Meta key: `<files_version>:<chunks>:<files>`, the index's totals at that files_version (a commit that counted them after its last file write records them; an older index wrote the chunks alone). */
const CHUNK_TOTAL = "chunk_total";

/**
 * The index's chunk and file totals as its last counting commit recorded them, or null when a
 * later commit wrote file rows without counting (a count of 1.7 million chunks took 85–95 ms cold
 * at 1 GB, of 110,000 files ~45 ms). `files` is null in a record written before it was kept.
 */
function recordedTotals(db: Db): { chunks: number; files: number | null } | null {
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

export class Store {
  readonly db: Db;
  private readonly batchers = new Map<string, Batcher>();
  private search: SearchState | null = null;
  /** Rows of `files` this connection wrote (see fileRowWrites). */
  private fileWrites = 0;
  /** fileWrites when the open write transaction began (see filesVersion). */
  private fileWritesAtBegin = 0;
  /** The files generation folded with every file row written in the open write transaction (see filesGeneration). */
  private filesChain = "";
  /** A file row came or went in the open write transaction (see pathsVersion). */
  private pathsMoved = false;
  /** The totals `counts` read in the open write transaction, and fileWrites then (see CHUNK_TOTAL). */
  private counted: { readonly counts: StoreCounts; readonly writes: number } | null = null;
  /**
   * What the open write transaction's file writes moved the chunk and file totals by, or null once
   * a savepoint of it rolled back (unknown then): a commit that did not count carries the last
   * recorded totals forward by it (see CHUNK_TOTAL).
   */
  private totalsMoved: { chunks: number; files: number } | null = null;

  private constructor(
    db: Db,
    /** WAL bytes after which a commit checkpoints (the connection's automatic checkpoints are off: this one records the file's stamp). */
    private readonly checkpointWalBytes: number,
  ) {
    this.db = db;
  }

  /** Opens (creating when allowed) graph.db with the schema in place. */
  static open(path: string, options: { readonly?: boolean; bulk?: boolean } = {}): Store {
    const db = new (Database())(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    try {
      Store.prepareConnection(db, options);
    } catch (err) {
      db.close();
      throw err;
    }
    return new Store(db, options.bulk ? BULK_CHECKPOINT_WAL_BYTES : CHECKPOINT_WAL_BYTES);
  }

  /**
   * A checkpoint of the WAL into graph.db, then the file's stamp recorded beside it when it moved
   * (see `checkpointStampPath`). Every checkpoint of a writable Store is made here: SQLite's
   * automatic ones are turned off, so the stamp moves only with writes mast made, and a connection
   * that wrote nothing (a query's) writes nothing at close.
   */
  private checkpoint(mode: "PASSIVE" | "TRUNCATE"): void {
    this.db.pragma(`wal_checkpoint(${mode})`);
    const stamp = databaseStamp(this.db.name);
    if (stamp !== null && stamp !== recordedCheckpointStamp(this.db.name)) writeAtomic(checkpointStampPath(this.db.name), Buffer.from(stamp));
  }

  /** After a commit: a checkpoint once the WAL has grown past checkpointWalBytes. */
  private afterCommit(): void {
    const wal = statSync(`${this.db.name}-wal`, { throwIfNoEntry: false });
    if (wal !== undefined && wal.size > this.checkpointWalBytes) this.checkpoint("PASSIVE");
  }

  private static prepareConnection(db: Db, options: { readonly?: boolean; bulk?: boolean }): void {
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

  /** A prepared statement, prepared once per connection. */
  private sql(text: string): BetterSqlite3.Statement {
    return prepared(this.db, text);
  }

  close(): void {
    if (!this.db.readonly && this.db.open && !this.db.inTransaction) {
      try {
        // Without waiting: a checkpoint blocked by a reader or a running index is left to a later close.
        this.db.pragma("busy_timeout = 0");
        this.checkpoint("TRUNCATE");
      } catch {
        // Another connection is writing; the checkpoint happens on a later close.
      }
    }
    this.db.close();
  }

  /** The schema version this database was built with; null when it has no readable schema. */
  schemaVersion(): string | null {
    return this.metaOrNull("schema_version");
  }

  /** True when this database was built by this binary's schema (version and schema.sql alike). */
  hasCurrentSchema(): boolean {
    return this.schemaVersion() === CURRENT_SCHEMA_VERSION && this.metaOrNull("schema_hash") === SCHEMA_HASH;
  }

  /**
   * A meta value; null when the database has no meta table (a file killed before its schema was
   * written) or is not a database. Any other failure (busy, I/O) is thrown: taken for "no schema", it would make an
   * index run wipe a database other connections are reading.
   */
  private metaOrNull(key: string): string | null {
    try {
      const hasMeta = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
      if (!hasMeta) return null;
      const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
      return row?.value ?? null;
    } catch (err) {
      if (isUnusableDatabase(err)) return null; // not a database at all
      throw err;
    }
  }

  /** SQLite's own structural check of every page (`PRAGMA quick_check`): false when it finds the file corrupt. */
  passesQuickCheck(): boolean {
    try {
      return this.db.pragma("quick_check(1)", { simple: true }) === "ok";
    } catch (err) {
      if (isUnusableDatabase(err)) return false;
      throw err;
    }
  }

  /** The indexed files, chunks and symbols (kind module aside): sums of each file's row counts (counting 1.5 million symbols took 0.5 s a run at 1 GB). */
  counts(): StoreCounts {
    const counts = this.sql("SELECT count(*) AS files, coalesce(sum(chunk_rows), 0) AS chunks, coalesce(sum(symbol_rows), 0) AS symbols FROM files").get() as StoreCounts;
    if (this.db.inTransaction) this.counted = { counts, writes: this.fileWrites };
    return counts;
  }

  /**
   * Every file's stamp (FileStamps: content hashes read when asked, while this Store is open): from
   * `packed` (file-stamps.bin) when it names the files generation this Store reads and no file row was
   * written since this transaction began; else from the rows, iterated, not gathered.
   */
  fileStamps(packed: Uint8Array | null = null): FileStamps {
    const hashOf = this.sql("SELECT content_hash FROM files WHERE id = ?").pluck();
    const hash = (id: number) => (hashOf.get(id) as string | undefined) ?? "";
    const fromPacked = packed !== null && this.fileWrites === this.fileWritesAtBegin ? FileStamps.fromPacked(packed, this.filesGeneration(), hash) : null;
    if (fromPacked !== null) return fromPacked;
    const columns = stampColumns(this.db);
    return (columns && FileStamps.fromColumns(columns.numbers, columns.paths, hash)) ?? FileStamps.fromRows(this.sql("SELECT id, path, mtime, size, ino, ctime, stat_clean FROM files").raw().iterate() as Iterable<StoredStampRow>, hash);
  }

  /** Every indexed file's path (an import resolver's set of files; no stamp read: 110,000 stamps cost a server's first refresh 660 ms at 1 GB). */
  filePaths(): string[] {
    return this.sql("SELECT path FROM files").pluck().all() as string[];
  }

  /** Every file's stamp row with its content hash: what file_manifest.json and file-stamps.bin are written from. */
  stampRows(): Array<[...StoredStampRow, string]> {
    return this.sql("SELECT id, path, mtime, size, ino, ctime, stat_clean, content_hash FROM files").raw().all() as Array<[...StoredStampRow, string]>;
  }

  /**
   * Runs `fn` in one BEGIN IMMEDIATE transaction: all of it commits or none of it does. Inside
   * `transaction` it is a savepoint. Index runs write batches of files this way (with
   * `replaceFileRows`, no savepoint per file: FTS5 flushes its pending terms at every savepoint,
   * which made per-file savepoints cost more than the rows).
   */
  batch<T>(fn: () => T): T {
    if (this.db.inTransaction) {
      const writes = this.fileWrites;
      try {
        return this.db.transaction(fn).immediate();
      } catch (err) {
        // How many: a savepoint of A then one of B rolled back is another history than one of A and B rolled back.
        if (this.fileWrites !== writes) {
          this.wroteFileRow(["rolled back", this.fileWrites - writes]);
          this.totalsMoved = null;
        }
        throw err;
      }
    }
    const result = this.db
      .transaction(() => {
        this.beginSearchState();
        try {
          const result = fn();
          this.beforeCommit();
          return result;
        } finally {
          this.search = null;
        }
      })
      .immediate();
    this.afterCommit();
    return result;
  }

  /**
   * Runs async `fn` inside one BEGIN IMMEDIATE transaction held across its awaits: other
   * connections read the database as it was until the COMMIT makes all of it visible at once, and
   * an exception or a killed process leaves none of it. Nothing else may use this connection
   * meanwhile; `batch` inside it is a savepoint. SQLite rolls a transaction back by itself on some
   * errors (a full disk, an I/O error): `fn` must stop writing then (see `assertInTransaction`).
   */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      this.beginSearchState();
      const result = await fn();
      this.beforeCommit();
      this.db.exec("COMMIT");
      this.afterCommit();
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      throw err;
    } finally {
      this.search = null;
    }
  }

  /** What every write transaction does last: the FTS indexes in step, the path set's version moved on. */
  private beforeCommit(): void {
    this.indexSearch();
    if (this.pathsMoved) this.setMeta(PATHS_VERSION, String(this.pathsVersion() + 1));
    if (this.fileWrites !== this.fileWritesAtBegin) {
      // The totals as the last commit recorded them (read before this one moves the version on).
      const before = this.counted?.writes === this.fileWrites ? null : recordedTotals(this.db);
      const version = this.filesVersion() + 1;
      this.setMeta(FILES_VERSION, String(version));
      this.setMeta(FILES_GENERATION, this.filesChain.slice(0, 16));
      // Counted after the last file write: readers take the total from here. Else the last record
      // moved by this commit's writes (a server's refresh of a file: a `mast query` after it would
      // count 1.7 million chunks again, 85–95 ms cold at 1 GB).
      const moved = this.totalsMoved;
      if (this.counted?.writes === this.fileWrites) this.setMeta(CHUNK_TOTAL, `${version}:${this.counted.counts.chunks}:${this.counted.counts.files}`);
      else if (before !== null && before.files !== null && moved !== null) this.setMeta(CHUNK_TOTAL, `${version}:${before.chunks + moved.chunks}:${before.files + moved.files}`);
    }
  }

  /** Rows of `files` this connection wrote (inserted, updated or deleted): a reader of the stamps it read before sees whether they still hold. */
  get fileRowWrites(): number {
    return this.fileWrites;
  }

  /** A number that moves on whenever a commit wrote a file row: what was written from the stamps (file_manifest.json) holds while it stays the same. */
  filesVersion(): number {
    return Number(this.getMeta(FILES_VERSION) ?? 0);
  }

  /**
   * The name of the file rows' history, set by every commit that wrote a file row (null before the
   * first): the last one's name folded with each row that commit wrote or removed, in order (a
   * savepoint rolled back folded in too). Unlike the files version, a graph.db rebuilt or copied in
   * reaches it only by the same writes — two builds of one tree alike, as their bytes are — so a
   * copy of the stamps made at it (file-stamps.bin) holds while it stays the same.
   */
  filesGeneration(): string | null {
    return this.getMeta(FILES_GENERATION);
  }

  /**
   * A number that moves on whenever a file row is added or removed: a cache of anything computed
   * from the set of indexed paths (the import resolver) is valid while it stays the same.
   */
  pathsVersion(): number {
    return Number(this.getMeta(PATHS_VERSION) ?? 0);
  }

  private beginSearchState(): void {
    this.pathsMoved = false;
    this.counted = null;
    this.totalsMoved = { chunks: 0, files: 0 };
    this.fileWritesAtBegin = this.fileWrites;
    this.filesChain = this.filesGeneration() ?? "";
    this.search = { through: this.nextId("chunks") - 1, rows: new Map(), pending: 0, deleted: 0 };
  }

  /**
   * Drops the secondary indexes of the tables a build fills file by file (chunks, symbols, imports)
   * and returns what builds them again, from their own definitions: for a store that holds no file
   * yet, whose rows nothing reads by those indexes until the build's link (an index built once by
   * sorting costs less than one kept up row by row: at theia, 3,604 files, the write phase
   * 1.9–2.2 → 1.2–1.3 s). Only inside a write transaction: a run that dies or fails rolls the drop
   * back with its rows.
   */
  withoutSecondaryIndexes(): () => void {
    if (!this.db.inTransaction) throw new Error("withoutSecondaryIndexes outside a write transaction");
    const indexes = this.db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('chunks', 'symbols', 'imports') ORDER BY name").all() as Array<{ name: string; sql: string }>;
    for (const { name } of indexes) this.db.exec(`DROP INDEX "${name.replace(/"/g, '""')}"`);
    return () => {
      for (const { sql } of indexes) this.db.exec(sql);
    };
  }

  /**
   * Indexes the chunks written since the last call in both FTS indexes, all of one index's rows
   * and then the other's (FTS5 writes a segment whenever a statement touching another table comes
   * between its writes, so rows indexed file by file cost several times the same rows indexed at
   * once). Runs by itself before every commit; an index run also calls it between its batches, so
   * the work overlaps the parse. Only call it inside a transaction and outside `batch`.
   */
  indexSearch(): void {
    const s = this.search;
    if (!s) throw new Error("indexSearch outside a write transaction");
    const last = this.nextId("chunks") - 1;
    if (last > s.through) {
      // Rows of chunks a rolled-back batch wrote (and no later one wrote again) have no chunk row.
      const written = new Set(this.sql("SELECT id FROM chunks WHERE id > ?").pluck().all(s.through) as number[]);
      const rows = [...s.rows].filter(([id]) => written.has(id)).sort((a, b) => a[0] - b[0]);
      const words = this.sql("INSERT INTO chunk_words(rowid, words, parts) VALUES (?, ?, ?)");
      for (const [id, [text, parts]] of rows) words.run(id, text, parts);
      const identifiers = this.sql("INSERT INTO identifier_fts(rowid, identifiers, name_terms) VALUES (?, ?, ?)");
      for (const [id, [, , bag, nameTerms]] of rows) if (bag !== "" || nameTerms !== "") identifiers.run(id, bag, nameTerms);
      s.rows.clear();
      s.through = last;
    }
    // Deleted rows stay in the indexes' segments until a merge: after a run that dropped many, one merge of each whole.
    if (s.deleted >= OPTIMIZE_AFTER_DELETES) {
      this.sql("INSERT INTO chunk_words(chunk_words) VALUES ('optimize')").run();
      this.sql("INSERT INTO identifier_fts(identifier_fts) VALUES ('optimize')").run();
      s.deleted = 0;
    }
    s.pending = 0;
  }

  /** Characters of chunk text the FTS indexes have yet to take in (0 outside a write transaction). */
  pendingSearchChars(): number {
    return this.search?.pending ?? 0;
  }

  /**
   * Runs reads in one read transaction, so every statement of an answer sees the same commit: two
   * queries on either side of a run's commit would mix the index before it with the one after (a
   * full run gives every symbol a new id, so ids read by one query match nothing in the next).
   */
  snapshot<T>(fn: (db: Db) => T): T {
    return this.db.transaction(() => fn(this.db)).deferred();
  }

  /** Throws when the transaction `transaction` opened is gone (SQLite rolled it back after an error). */
  assertInTransaction(cause: unknown): void {
    if (!this.db.inTransaction) throw cause;
  }

  /** Replaces everything indexed for one file in its own BEGIN IMMEDIATE transaction. */
  writeFile(meta: FileMeta, extraction: FileExtraction, search?: readonly ChunkSearchWords[], keepIds = false): ChunkDelta {
    return this.batch(() => this.replaceFileRows(meta, extraction, search, keepIds));
  }

  /**
   * The body of writeFile without a transaction of its own: only call it inside `batch`. `search`:
   * each chunk's search words (chunkSearchWords), when the parse thread computed them. `keepIds`
   * (a run or refresh that links only what a change reaches): a rewrite whose imports and
   * heritage read as before keeps the rows, and ids, of the symbols it still declares
   * (keepSymbolRows), so the edges other files hold into them stand; the delta's `kept` names
   * what moved, from which the link decides what the rewrite reaches.
   */
  replaceFileRows(meta: FileMeta, extraction: FileExtraction, search?: readonly ChunkSearchWords[], keepIds = false): ChunkDelta {
    const { id: fileId, inserted } = this.upsertFileRow(meta, extraction);
    const changedNames = !inserted && keepIds ? this.keepSymbolRows(fileId, extraction) : null;
    // A file row is deleted with its rows in one transaction, so a new row has none to delete; the
    // checker pass is behind either way (a new file's calls are unchecked too).
    const removed = inserted ? 0 : this.deleteFileContents(fileId, changedNames !== null);
    this.markCheckerBehind();
    this.insertChunks(fileId, extraction.chunks, search);
    if (changedNames === null) {
      this.insertSymbols(fileId, extraction.symbols);
      this.insertImports(fileId, meta.path, extraction.imports);
      this.insertHeritage(fileId, extraction.heritage);
    }
    this.insertCalls(fileId, extraction);
    return { added: extraction.chunks.length, removed, kept: changedNames };
  }

  /**
   * A rewrite that keeps the file's symbol rows where it still declares them (matchLinkFace: the
   * same name, kind and parent), when its imports and heritage read as before: those rows move to
   * the new text under their ids (so the edges other files hold into them stand), the gone ones
   * are deleted (with every edge into them), the new ones added. Returns the names whose face
   * moved (empty after an edit inside a body), or null — touching nothing — when the file must be
   * written anew.
   */
  private keepSymbolRows(fileId: number, extraction: FileExtraction): ReadonlySet<string> | null {
    const symbols = this.sql("SELECT id, name, kind, parent_name AS parent, reexport_module AS module, reexport_name AS imported, alias_of AS aliasOf, return_type AS returnType, is_exported AS exported, line FROM symbols WHERE file_id = ? ORDER BY id").all(fileId) as LinkFaceSymbol[];
    const imports = this.sql("SELECT id, module, symbols, bound_as AS boundAs, kind, line FROM imports WHERE file_id = ? ORDER BY id").all(fileId) as LinkFaceImport[];
    const heritage = this.sql("SELECT class_name AS className, relation, target FROM heritage WHERE file_id = ? ORDER BY rowid").all(fileId) as LinkFaceHeritage[];
    const texts = fileSymbolTexts(this.db, fileId);
    const signatures = symbols.map((r) => texts(r.id).signature);
    const match = matchLinkFace({ symbols, signatures, imports, heritage }, extraction);
    if (match === null) return null;
    const moveImport = this.sql("UPDATE imports SET line = ? WHERE id = ?");
    extraction.imports.forEach((im, i) => {
      if (im.line !== imports[i]!.line) moveImport.run(im.line, imports[i]!.id);
    });
    // The checker's verdicts on calls into the file, and its edges either way, were made against
    // the old text: they go as the symbols' deletion would have taken them.
    const ofFile = "(SELECT id FROM symbols WHERE file_id = ?)";
    this.sql(`DELETE FROM checker_verdicts WHERE target_id IN ${ofFile}`).run(fileId);
    this.sql(`DELETE FROM edges WHERE resolution = ${RESOLVED.checker} AND from_id IN ${ofFile}`).run(fileId);
    this.sql(`DELETE FROM edges WHERE resolution = ${RESOLVED.checker} AND to_id IN ${ofFile}`).run(fileId);
    const keptIds = new Set(match.keeps.flatMap((j) => (j === null ? [] : [symbols[j]!.id])));
    const gone = symbols.filter((r) => !keptIds.has(r.id)).map((r) => r.id);
    if (gone.length > 0) this.sql("DELETE FROM symbols WHERE id IN (SELECT value FROM json_each(?))").run(JSON.stringify(gone));
    // Its classes' PARENT_OF edges and its texts are written again with the rows.
    this.sql(`DELETE FROM edges WHERE edge_type = ${EDGE.PARENT_OF} AND from_id IN ${ofFile}`).run(fileId);
    this.sql("DELETE FROM symbol_texts WHERE file_id = ?").run(fileId);
    let next = match.keeps.some((j) => j === null) ? this.nextId("symbols") : 0;
    const ids = match.keeps.map((j) => (j === null ? next++ : symbols[j]!.id));
    this.writeSymbolRows(fileId, extraction.symbols, ids, keptIds);
    return match.changedNames;
  }

  /**
   * `batch` for a read tool's just-in-time refresh (spec §7.6, §9.0): the transaction waits at most
   * `busyTimeoutMs` for another writer instead of the connection's shared 5 s, then fails with
   * SQLITE_BUSY so the caller can answer from the stale rows.
   */
  quickly<T>(busyTimeoutMs: number, fn: () => T): T {
    const previous = this.db.pragma("busy_timeout", { simple: true }) as number;
    this.db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    try {
      return this.batch(fn);
    } finally {
      this.db.pragma(`busy_timeout = ${previous}`);
    }
  }

  /** The bytes are those indexed, read again: only the file's stamp moves. */
  touchFile(meta: Omit<FileMeta, "language">): void {
    this.wroteFileRow(["touched", meta.path, meta.mtime, meta.size, meta.ino, meta.ctime, meta.contentHash, meta.statClean]);
    this.sql("UPDATE files SET mtime = ?, size = ?, ino = ?, ctime = ?, content_hash = ?, stat_clean = ? WHERE path = ?").run(meta.mtime, meta.size, meta.ino, meta.ctime, meta.contentHash, meta.statClean ? 1 : 0, meta.path);
  }

  /** Removes a file and everything derived from it in its own transaction; returns how many chunks went. */
  deleteFile(path: string): number {
    return this.batch(() => this.removeFileRows(path));
  }

  /** The body of deleteFile without a transaction of its own: only call it inside `batch`. */
  removeFileRows(path: string): number {
    const row = this.sql("SELECT id, chunk_rows AS chunks FROM files WHERE path = ?").get(path) as { id: number; chunks: number } | undefined;
    if (!row) return 0;
    if (this.totalsMoved !== null) {
      this.totalsMoved.chunks -= row.chunks;
      this.totalsMoved.files--;
    }
    const removed = this.deleteFileContents(row.id);
    this.markCheckerBehind();
    this.sql("DELETE FROM files WHERE id = ?").run(row.id);
    this.sql("DELETE FROM path_words WHERE rowid = ?").run(row.id);
    this.wroteFileRow(["removed", path]);
    this.pathsMoved = true;
    return removed;
  }

  /**
   * Re-resolves imports against the current file set — all of them, or those of the given files —
   * setting `resolved_file_id` (the indexed file a specifier names; a resolution to a path with no
   * row is none) and `is_external` (a bare specifier no alias or workspace maps into the project),
   * then rebuilds `re_export_files`, reading `pageRows` import rows at a time. Returns the ids of
   * the files whose rows changed.
   */
  relinkImports(resolve: (fromPath: string, module: string) => string | null, scope: "all" | readonly number[], pageRows = RELINK_IMPORTS_PAGE): Set<number> {
    // Read a page at a time: all of a 1 GB tree's 745,000 rows at once were ~140 MB of objects
    // live while they were resolved, and a collection then set V8's next limit from them — the
    // link pass after it left ~900 MB of garbage before the next one (the full build's peak RSS
    // 0.93 → 1.39 GB on some runs: bench/README.md, "stop 62").
    const pageOf = this.sql(
      "SELECT i.id, i.file_id AS fileId, i.module, i.resolved_file_id AS resolvedId, i.is_external AS external, f.path FROM imports i JOIN files f ON f.id = i.file_id " +
        `WHERE i.id > ?${scope === "all" ? "" : " AND i.file_id IN (SELECT value FROM json_each(?))"} ORDER BY i.id LIMIT ${pageRows}`,
    );
    const scopeArgs = scope === "all" ? [] : [JSON.stringify(scope)];
    const update = this.sql("UPDATE imports SET resolved_file_id = ?, is_external = ? WHERE id = ?");
    // A resolution names an indexed path: its row's id, looked up once per path. A path's row
    // can be another than when the import was last resolved (the file went and came back).
    const idOfPath = this.sql("SELECT id FROM files WHERE path = ?");
    const ids = new Map<string, number | null>();
    const idOf = (path: string): number | null => {
      let id = ids.get(path);
      if (id === undefined) ids.set(path, (id = (idOfPath.get(path) as { id: number } | undefined)?.id ?? null));
      return id;
    };
    const changed = new Set<number>();
    this.batch(() => {
      for (let after = 0; ; ) {
        const rows = pageOf.all(after, ...scopeArgs) as Array<{ id: number; fileId: number; module: string; resolvedId: number | null; external: number; path: string }>;
        for (const r of rows) {
          const next = resolve(r.path, r.module);
          const id = next === null ? null : idOf(next);
          const external = next === null && isExternalImport(r.path, r.module) ? 1 : 0;
          if (id !== r.resolvedId || external !== r.external) {
            update.run(id, external, r.id);
            changed.add(r.fileId);
          }
        }
        if (rows.length < pageRows) break;
        after = rows.at(-1)!.id;
      }
      // `export * from` rows are file-level edges, derived from the resolved imports: those of the
      // files in scope (no other file's resolutions or path changed when the scope is not "all").
      const within = scope === "all" ? "" : " AND i.file_id IN (SELECT value FROM json_each(?))";
      const args = scope === "all" ? [] : [JSON.stringify(scope)];
      this.sql(`DELETE FROM re_export_files${scope === "all" ? "" : " WHERE from_file_id IN (SELECT value FROM json_each(?))"}`).run(...args);
      this.sql(
        "INSERT OR IGNORE INTO re_export_files(from_file_id, to_file_id) " +
          `SELECT i.file_id, i.resolved_file_id FROM imports i WHERE i.kind = 'export_star' AND i.resolved_file_id IS NOT NULL${within} ORDER BY i.file_id, i.resolved_file_id`,
      ).run(...args);
    });
    return changed;
  }

  /**
   * Replaces the edges derived across files (`POTENTIAL_CALL`, `EXTENDS`, `IMPLEMENTS`,
   * `RE_EXPORTS`) whose source symbol lies in `fileIds` (every file when null) with the rows
   * `derive` emits, [from_id, to_id, edge_type, resolution, call_line] each (store/edge-codes.ts
   * codes), written in batches as they come, and the `POTENTIAL_CALL` edges of `callsOnly` (files
   * whose other edges stand); the number written. Only call inside `batch`.
   */
  replaceDerivedEdges(fileIds: readonly number[] | null, implementsFrom: readonly string[], derive: (emit: (row: unknown[]) => void) => void, callsOnly: readonly number[] = []): number {
    // The checker pass's edges are not re-derived from rows: they go when either end's file is rewritten (ON DELETE CASCADE).
    const derived = `edge_type IN (${EDGE.POTENTIAL_CALL}, ${EDGE.EXTENDS}, ${EDGE.IMPLEMENTS}, ${EDGE.RE_EXPORTS}) AND resolution IS NOT ${RESOLVED.checker}`;
    if (fileIds === null) this.sql(`DELETE FROM edges WHERE ${derived}`).run();
    else {
      const files = JSON.stringify(fileIds);
      this.sql(`DELETE FROM edges WHERE ${derived} AND from_id IN (SELECT id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)))`).run(files);
      // IMPLEMENTS by method set into the given files, from types of `implementsFrom`'s languages anywhere (derived again with them).
      if (implementsFrom.length > 0) {
        this.sql(
          `DELETE FROM edges WHERE edge_type = ${EDGE.IMPLEMENTS} AND resolution IS NOT ${RESOLVED.checker}
             AND to_id IN (SELECT id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)))
             AND from_id IN (SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.language IN (SELECT value FROM json_each(?)))`,
        ).run(files, JSON.stringify(implementsFrom));
      }
      // Files whose call sites alone are derived again: their other edges stand.
      if (callsOnly.length > 0) this.sql(`DELETE FROM edges WHERE edge_type = ${EDGE.POTENTIAL_CALL} AND resolution IS NOT ${RESOLVED.checker} AND from_id IN (SELECT id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)))`).run(JSON.stringify(callsOnly));
    }
    const batcher = this.batcher("edges", ["from_id", "to_id", "edge_type", "resolution", "call_line"]);
    let pending: unknown[][] = [];
    let written = 0;
    derive((row) => {
      pending.push(row);
      if (pending.length < EDGE_WRITE_BATCH) return;
      batcher.insert(pending);
      written += pending.length;
      pending = [];
    });
    batcher.insert(pending);
    written += pending.length;
    // A site the resolver now links itself needs no checker edge beside it (only the edges just derived, from the files in scope, can be such a site's).
    const fromScope = fileIds === null ? "" : " AND from_id IN (SELECT id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)))";
    this.sql(
      `DELETE FROM edges WHERE resolution = ${RESOLVED.checker}${fromScope} AND EXISTS (SELECT 1 FROM edges h WHERE h.from_id = edges.from_id AND h.to_id = edges.to_id AND h.edge_type = edges.edge_type AND h.call_line IS edges.call_line AND h.resolution IS NOT ${RESOLVED.checker})`,
    ).run(...(fileIds === null ? [] : [JSON.stringify([...fileIds, ...callsOnly])]));
    return written;
  }

  /** The checker pass's verdicts on potential lines, [target_id, file_id, line, verdict] each (query/checker.ts). */
  recordCheckerVerdicts(rows: ReadonlyArray<readonly [number, number, number, string]>): void {
    this.batcher("checker_verdicts", ["target_id", "file_id", "line", "verdict"], "INSERT OR REPLACE").insert(rows as unknown as unknown[][]);
  }

  /**
   * Replaces the checker's IMPLEMENTS edges (resolution 'checker') from the types of `fileIds`
   * with `rows` [type id, interface id], leaving out the pairs the resolver already linked, and
   * drops the resolver's IMPLEMENTS edges from a non-interface type to an interface, both in
   * `whole` (method sets the checker knows in full), that `rows` does not hold; the number inserted.
   */
  replaceCheckerImplements(fileIds: readonly number[], rows: ReadonlyArray<readonly [number, number]>, whole: readonly number[]): number {
    this.sql(`DELETE FROM edges WHERE edge_type = ${EDGE.IMPLEMENTS} AND resolution = ${RESOLVED.checker} AND from_id IN (SELECT id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)))`).run(JSON.stringify(fileIds));
    const known = new Set(rows.map(([from, to]) => `${from}:${to}`));
    const wrong = this.sql(
      "SELECT e.rowid AS id, e.from_id, e.to_id FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id " +
        `WHERE e.edge_type = ${EDGE.IMPLEMENTS} AND e.resolution IS NOT ${RESOLVED.checker} AND a.kind <> 'interface' AND b.kind = 'interface' AND e.from_id IN (SELECT value FROM json_each(?)) AND e.to_id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(whole), JSON.stringify(whole)) as Array<{ id: number; from_id: number; to_id: number }>;
    const drop = this.sql("DELETE FROM edges WHERE rowid = ?");
    for (const e of wrong) if (!known.has(`${e.from_id}:${e.to_id}`)) drop.run(e.id);
    const insert = this.sql(
      `INSERT INTO edges (from_id, to_id, edge_type, resolution) SELECT ?, ?, ${EDGE.IMPLEMENTS}, ${RESOLVED.checker} WHERE NOT EXISTS (SELECT 1 FROM edges WHERE from_id = ? AND to_id = ? AND edge_type = ${EDGE.IMPLEMENTS})`,
    );
    let n = 0;
    for (const [from, to] of rows) n += insert.run(from, to, from, to).changes;
    return n;
  }

  /** A call the checker resolved to its target, as a verified edge of resolution 'checker'. */
  addCheckerEdge(fromId: number, toId: number, line: number): void {
    this.sql(`INSERT INTO edges (from_id, to_id, edge_type, resolution, call_line) VALUES (?, ?, ${EDGE.POTENTIAL_CALL}, ${RESOLVED.checker}, ?)`).run(fromId, toId, line);
  }

  /** The indexed size of each of `paths` that is indexed. */
  fileSizes(paths: readonly string[]): Map<string, number> {
    const rows = this.sql("SELECT path, size FROM files WHERE path IN (SELECT value FROM json_each(?))").raw().all(JSON.stringify(paths)) as Array<[string, number]>;
    return new Map(rows);
  }

  /** A file's row id and stamp, or null when it is not indexed. */
  fileStamp(path: string): FileStamp | null {
    const row = this.sql(`SELECT ${STAMP_COLUMNS} FROM files WHERE path = ?`).raw().get(path) as StampRow | undefined;
    return row ? stampOf(row) : null;
  }

  getMeta(key: string): string | null {
    const row = this.sql("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value ?? null;
  }

  deleteMeta(key: string): void {
    this.sql("DELETE FROM meta WHERE key = ?").run(key);
  }

  /** Counts a file row written (or removed) and folds `record` of it into the files generation to be. */
  private wroteFileRow(record: readonly unknown[]): void {
    this.fileWrites++;
    this.filesChain = sha256(`${this.filesChain}\n${JSON.stringify(record)}`);
  }

  setMeta(key: string, value: string): void {
    this.db.prepare("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  // ---- internals ----

  /** The file's row, updated or inserted (`inserted`: it had none). */
  private upsertFileRow(meta: FileMeta, extraction: FileExtraction): { id: number; inserted: boolean } {
    const existing = this.sql("SELECT id, chunk_rows AS chunks FROM files WHERE path = ?").get(meta.path) as { id: number; chunks: number } | undefined;
    const symbolRows = extraction.symbols.reduce((n, s) => (s.kind === "module" ? n : n + 1), 0);
    const values = [meta.language, meta.mtime, meta.size, meta.ino, meta.ctime, meta.contentHash, meta.statClean ? 1 : 0, extraction.lineCount, extraction.hasSyntaxErrors ? 1 : 0, isTestPath(meta.path) ? 1 : 0, extraction.chunks.length, symbolRows];
    this.wroteFileRow(["written", meta.path, existing?.id ?? null, ...values]);
    if (this.totalsMoved !== null) {
      this.totalsMoved.chunks += extraction.chunks.length - (existing?.chunks ?? 0);
      if (!existing) this.totalsMoved.files++;
    }
    if (existing) {
      this
        .sql("UPDATE files SET language = ?, mtime = ?, size = ?, ino = ?, ctime = ?, content_hash = ?, stat_clean = ?, line_count = ?, has_syntax_errors = ?, is_test = ?, chunk_rows = ?, symbol_rows = ? WHERE id = ?")
        .run(...values, existing.id);
      return { id: existing.id, inserted: false };
    }
    const info = this
      .sql("INSERT INTO files(path, language, mtime, size, ino, ctime, content_hash, stat_clean, line_count, has_syntax_errors, is_test, chunk_rows, symbol_rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .run(meta.path, ...values);
    this.pathsMoved = true;
    const id = Number(info.lastInsertRowid);
    this.sql("INSERT INTO path_words(rowid, words) VALUES (?, ?)").run(id, pathWordsOf(meta.path));
    return { id, inserted: true };
  }

  /** Deletes a file's derived rows (but its symbols, imports and heritage when they were `kept`: keepSymbolRows wrote them); returns how many chunks went. */
  private deleteFileContents(fileId: number, kept = false): number {
    const chunks = this.sql("SELECT id FROM chunks WHERE file_id = ?").pluck().all(fileId) as number[];
    // A contentless row goes by its rowid alone (a chunk that had no identifier_fts row costs a no-op delete).
    const s = this.search;
    if (!s) throw new Error("a file's rows were replaced outside a write transaction");
    const delWords = this.sql("DELETE FROM chunk_words WHERE rowid = ?");
    const delIdentifiers = this.sql("DELETE FROM identifier_fts WHERE rowid = ?");
    for (const id of chunks) {
      if (id > s.through) s.rows.delete(id);
      else {
        delWords.run(id);
        delIdentifiers.run(id);
        s.deleted++;
      }
    }
    this.sql("DELETE FROM chunks WHERE file_id = ?").run(fileId);
    if (!kept) {
      this.sql("DELETE FROM symbols WHERE file_id = ?").run(fileId);
      this.sql("DELETE FROM symbol_texts WHERE file_id = ?").run(fileId);
      this.sql("DELETE FROM imports WHERE file_id = ?").run(fileId);
      this.sql("DELETE FROM heritage WHERE file_id = ?").run(fileId);
    }
    this.sql("DELETE FROM file_calls WHERE file_id = ?").run(fileId);
    // A verdict holds only for the content it was computed against: the file's lines wait for the next pass.
    this.sql("DELETE FROM checker_verdicts WHERE file_id = ?").run(fileId);
    return chunks.length;
  }

  /** Marks the checker pass behind the index (when one has run): a file's rows changed. */
  private markCheckerBehind(): void {
    // Read first: inside an index run's transaction a write statement costs ~38 µs even when it
    // writes nothing (theia: 136 ms of the writer's time, once per file), a read ~1 µs.
    if (this.sql("SELECT 1 FROM meta WHERE key = ?").pluck().get(CHECKER_META) === undefined) return;
    this.sql("INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO NOTHING").run(CHECKER_BEHIND);
  }

  private nextId(table: "chunks" | "symbols"): number {
    // Chunk ids are never reused (AUTOINCREMENT's high-water mark): the FTS indexes track them by range.
    if (table === "chunks") return ((this.sql("SELECT seq FROM sqlite_sequence WHERE name = 'chunks'").pluck().get() as number | undefined) ?? 0) + 1;
    return ((this.sql(`SELECT max(id) AS m FROM ${table}`).get() as { m: number | null }).m ?? 0) + 1;
  }

  private insertChunks(fileId: number, chunks: readonly Chunk[], search: readonly ChunkSearchWords[] | undefined): void {
    let id = this.nextId("chunks");
    const rows: unknown[][] = [];
    let chars = 0;
    const s = this.search;
    if (!s) throw new Error("a file's rows were written outside a write transaction");
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!;
      // The file's own text is kept as its place in the file; a class outline's, which no file holds, as text.
      const place = c.inFile === null ? [c.contentStartLine + lineStarts(c.content).length - 1, null, null, deflate(c.content)] : [c.inFile.endLine, c.inFile.cut?.[0] ?? null, c.inFile.cut?.[1] ?? null, null];
      rows.push([id, hashKey(c.chunkId), fileId, c.startLine, c.endLine, c.contentStartLine, ...place, c.chunkType, c.symbolName, symbolTail(c.symbolName), c.parentSymbol, c.isExported ? 1 : 0, c.part]);
      const searched = c.content.slice(c.searchStart, c.searchEnd);
      const [parts, nameTerms] = search?.[i] ?? chunkSearchWords(searched, c.symbolName);
      s.rows.set(id, [searched, parts, c.identifiers.join(" "), nameTerms]);
      chars += searched.length;
      id++;
    }
    this.batcher("chunks", [
      "id",
      "chunk_key",
      "file_id",
      "start_line",
      "end_line",
      "content_start_line",
      "content_end_line",
      "cut_from",
      "cut_to",
      "content",
      "chunk_type",
      "symbol_name",
      "symbol_tail",
      "parent_symbol",
      "is_exported",
      "part",
    ]).insert(rows);
    s.pending += chars;
  }

  private insertSymbols(fileId: number, symbols: readonly SymbolRecord[]): void {
    const first = this.nextId("symbols");
    this.writeSymbolRows(fileId, symbols, symbols.map((_, i) => first + i), new Set());
  }

  /**
   * Writes a file's symbols under the given ids — a new row each, or the row `existing` says the
   * file keeps, updated — with their texts and the PARENT_OF edges from each class to its methods.
   */
  private writeSymbolRows(fileId: number, symbols: readonly SymbolRecord[], ids: readonly number[], existing: ReadonlySet<number>): void {
    const rows: unknown[][] = [];
    const update = existing.size > 0 ? this.sql("UPDATE symbols SET line = ?, end_line = ?, is_exported = ?, has_body = ?, reexport_module = ?, reexport_name = ?, alias_of = ?, return_type = ? WHERE id = ?") : null;
    const classIds = new Map<string, number>();
    const edges: unknown[][] = [];
    symbols.forEach((s, i) => {
      const id = ids[i]!;
      const columns = [s.line, s.endLine, s.isExported ? 1 : 0, s.hasBody ? 1 : 0, s.reExport?.module ?? null, s.reExport?.importedName ?? null, s.aliasOf, s.returnType];
      if (existing.has(id)) update!.run(...columns, id);
      else rows.push([id, s.name, s.name.includes(".") ? s.name.slice(s.name.lastIndexOf(".") + 1) : null, s.kind, fileId, s.parent, ...columns]);
      if (s.kind === "class" && !classIds.has(s.name)) classIds.set(s.name, id);
      if (s.kind === "method" && s.parent !== null) {
        const parentId = classIds.get(s.parent);
        if (parentId !== undefined) edges.push([parentId, id, EDGE.PARENT_OF]);
      }
    });
    this.batcher("symbols", ["id", "name", "tail", "kind", "file_id", "parent_name", "line", "end_line", "is_exported", "has_body", "reexport_module", "reexport_name", "alias_of", "return_type"]).insert(rows);
    if (symbols.length > 0) {
      // Kept rows and new ones can leave the ids out of one run: then they are listed.
      const contiguous = ids.every((id, i) => id === ids[0]! + i);
      this.sql("INSERT INTO symbol_texts(file_id, first_id, ids, texts) VALUES (?, ?, ?, ?)").run(fileId, ids[0]!, contiguous ? null : JSON.stringify(ids), packedTextsOf(symbols));
    }
    this.batcher("edges", ["from_id", "to_id", "edge_type"], "INSERT OR IGNORE").insert(edges);
  }

  private insertImports(fileId: number, path: string, imports: readonly ImportRecord[]): void {
    const rows = imports.map((i) => {
      // Four imports in five bind each name as itself: stored as nothing (schema.sql's `locals` gives them back).
      const { symbols, boundAs } = importNamesColumns(i.names, i.locals);
      return [fileId, i.module, symbols, boundAs, i.kind, i.line, isExternalImport(path, i.module) ? 1 : 0];
    });
    this.batcher("imports", ["file_id", "module", "symbols", "bound_as", "kind", "line", "is_external"]).insert(rows);
  }

  private insertCalls(fileId: number, extraction: FileExtraction): void {
    const sites: CallSiteRow[] = extraction.calls.map((c) => {
      const r = c.receiver;
      const receiverName = r.kind === "typed" ? r.typeName : r.kind === "namespace" ? r.local : r.kind === "returned" ? r.producer : r.kind === "fixture" ? r.name : r.kind === "bare" ? null : r.className;
      return { line: c.line, caller: c.caller, callee: c.callee, receiver: r.kind, receiverName, resolution: r.kind === "typed" ? r.resolution : null, isNew: c.isNew ? 1 : 0 };
    });
    // In line order (a stable sort: sites on one line keep the extractor's order).
    sites.sort((a, b) => a.line - b.line);
    if (sites.length > 0) this.sql("INSERT INTO file_calls(file_id, calls) VALUES (?, ?)").run(fileId, storedCalls(sites));
  }

  private insertHeritage(fileId: number, heritage: FileExtraction["heritage"]): void {
    this.batcher("heritage", ["file_id", "class_name", "relation", "target"]).insert(heritageRowsOf(heritage).map((h) => [fileId, h.className, h.relation, h.target]));
  }

  private batcher(table: string, columns: readonly string[], verb = "INSERT"): Batcher {
    const key = `${verb} ${table}`;
    let b = this.batchers.get(key);
    if (!b) {
      b = new Batcher(this.db, `${verb} INTO ${table}(${columns.join(", ")})`, columns.length);
      this.batchers.set(key, b);
    }
    return b;
  }
}

/** A path's words as path_words holds them: its directories and stem (the extension left out), split as identifiers. */
export function pathWordsOf(path: string): string {
  return splitTerms(path.replace(/\.[^./]+$/, "")).join(" ");
}

/** The lower-cased last '.'-segment of a symbol name: `AuthService.validate` → `validate`. */
export function symbolTail(name: string | null): string | null {
  if (name === null) return null;
  return name.slice(name.lastIndexOf(".") + 1).toLowerCase();
}

/**
 * Multi-row INSERTs in batches that stay under SQLite's bound-parameter ceiling. Batches have
 * power-of-two row counts, so a handful of prepared statements serve every row count.
 */
class Batcher {
  private readonly maxRows: number;
  private readonly statements = new Map<number, BetterSqlite3.Statement>();

  constructor(
    private readonly db: Db,
    private readonly head: string,
    private readonly width: number,
  ) {
    let rows = 1;
    while (rows * 2 * width <= MAX_PARAMS && rows * 2 <= 256) rows *= 2;
    this.maxRows = rows;
  }

  insert(rows: readonly unknown[][]): void {
    let i = 0;
    while (i < rows.length) {
      let n = this.maxRows;
      while (n > rows.length - i) n >>= 1;
      this.statement(n).run(rows.slice(i, i + n).flat());
      i += n;
    }
  }

  private statement(n: number): BetterSqlite3.Statement {
    let st = this.statements.get(n);
    if (!st) {
      const row = `(${new Array(this.width).fill("?").join(", ")})`;
      st = this.db.prepare(`${this.head} VALUES ${new Array(n).fill(row).join(", ")}`);
      this.statements.set(n, st);
    }
    return st;
  }
}
