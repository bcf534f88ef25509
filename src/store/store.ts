// The Store: graph.db's connection for an index's reads and writes — a run's one BEGIN IMMEDIATE
// transaction held across awaits with savepoints (`batch`) inside, what every commit does last
// (the FTS indexes in step, the path set's and files' versions and the files generation moved
// on, the totals recorded), its own WAL checkpoints (SQLite's automatic ones off) each recording
// graph.db's stamp beside it, reads of the files' stamps and the meta table; the rows themselves
// are written by file-rows.ts and derived-rows.ts.
import { statSync } from "node:fs";
import { writeAtomic } from "../base/atomic.js";
import type { ChunkSearchWords } from "../base/text.js";
import type { FileExtraction } from "../syntax/types.js";
import { Batchers } from "./batcher.js";
import {
  checkpointStampPath,
  databaseStamp,
  FILES_VERSION,
  CHUNK_TOTAL,
  hasCurrentSchema,
  isUnusableDatabase,
  openGraphDatabase,
  prepared,
  recordedCheckpointStamp,
  recordedTotals,
  schemaVersionOf,
  stampColumns,
  type Db,
  type GraphDatabaseOptions,
  type Statement,
} from "./db.js";
import { addCheckerEdge, recordCheckerVerdicts, relinkImports, replaceCheckerImplements, replaceDerivedEdges } from "./derived-rows.js";
import { FileRows, type ChunkDelta, type FileMeta } from "./file-rows.js";
import { FileStamps, type FileStamp, type StoredStampRow } from "./file-stamps.js";

/** The WAL bytes after which a committed write checkpoints: about SQLite's default (1,000 pages), and 64 MB for index runs. */
const CHECKPOINT_WAL_BYTES = 4 * 1024 * 1024;
const BULK_CHECKPOINT_WAL_BYTES = 64 * 1024 * 1024;

/** The files row of a stamp, as `stampOf` reads it back. */
const STAMP_COLUMNS = "id, path, mtime, size, ino, ctime, content_hash, stat_clean";
type StampRow = [number, string, number, number, number, number, string, number];

function stampOf([id, path, mtime, size, ino, ctime, contentHash, clean]: StampRow): FileStamp {
  return { id, path, mtime, size, ino, ctime, contentHash, statClean: clean === 1 };
}

export interface StoreCounts {
  readonly files: number;
  readonly chunks: number;
  readonly symbols: number;
}

/** Meta key: moves on with every commit that added or removed a file row. */
const PATHS_VERSION = "paths_version";
/** Meta key: the name of the file rows' history, set with every files_version (`filesGeneration`). */
const FILES_GENERATION = "files_generation";

export class Store {
  readonly db: Db;
  private readonly batchers: Batchers;
  /** The file rows this connection writes, and what the open write transaction's file writes moved. */
  private readonly rows: FileRows;
  /** The file rows written when the open write transaction began (see filesVersion). */
  private fileWritesAtBegin = 0;
  /** The totals `counts` read in the open write transaction, and the file rows written then (see CHUNK_TOTAL). */
  private counted: { readonly counts: StoreCounts; readonly writes: number } | null = null;

  private constructor(
    db: Db,
    /** WAL bytes after which a commit checkpoints (the connection's automatic checkpoints are off: this one records the file's stamp). */
    private readonly checkpointWalBytes: number,
  ) {
    this.db = db;
    this.batchers = new Batchers(db);
    this.rows = new FileRows(db, this.batchers);
  }

  /** Opens (creating when allowed) graph.db with the schema in place. */
  static open(path: string, options: GraphDatabaseOptions = {}): Store {
    return new Store(openGraphDatabase(path, options), options.bulk ? BULK_CHECKPOINT_WAL_BYTES : CHECKPOINT_WAL_BYTES);
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

  /** A prepared statement, prepared once per connection. */
  private sql(text: string): Statement {
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
    return schemaVersionOf(this.db);
  }

  /** True when this database was built by this binary's schema (version and schema.sql alike). */
  hasCurrentSchema(): boolean {
    return hasCurrentSchema(this.db);
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
    if (this.db.inTransaction) this.counted = { counts, writes: this.rows.fileWrites };
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
    const fromPacked = packed !== null && this.rows.fileWrites === this.fileWritesAtBegin ? FileStamps.fromPacked(packed, this.filesGeneration(), hash) : null;
    if (fromPacked !== null) return fromPacked;
    const columns = stampColumns(this.db);
    return (
      (columns && FileStamps.fromColumns(columns.numbers, columns.paths, hash)) ??
      FileStamps.fromRows(this.sql("SELECT id, path, mtime, size, ino, ctime, stat_clean FROM files").raw().iterate() as Iterable<StoredStampRow>, hash)
    );
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
      const rows = this.rows;
      const writes = rows.fileWrites;
      try {
        return this.db.transaction(fn).immediate();
      } catch (err) {
        // How many: a savepoint of A then one of B rolled back is another history than one of A and B rolled back.
        if (rows.fileWrites !== writes) {
          rows.wroteFileRow(["rolled back", rows.fileWrites - writes]);
          rows.totalsMoved = null;
        }
        throw err;
      }
    }
    const result = this.db
      .transaction(() => {
        this.beginWrites();
        try {
          const result = fn();
          this.beforeCommit();
          return result;
        } finally {
          this.rows.end();
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
      this.beginWrites();
      const result = await fn();
      this.beforeCommit();
      this.db.exec("COMMIT");
      this.afterCommit();
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      throw err;
    } finally {
      this.rows.end();
    }
  }

  /** What every write transaction does last: the FTS indexes in step, the path set's version moved on. */
  private beforeCommit(): void {
    this.indexSearch();
    const rows = this.rows;
    if (rows.pathsMoved) this.setMeta(PATHS_VERSION, String(this.pathsVersion() + 1));
    if (rows.fileWrites !== this.fileWritesAtBegin) {
      // The totals as the last commit recorded them (read before this one moves the version on).
      const before = this.counted?.writes === rows.fileWrites ? null : recordedTotals(this.db);
      const version = this.filesVersion() + 1;
      this.setMeta(FILES_VERSION, String(version));
      this.setMeta(FILES_GENERATION, rows.filesChain.slice(0, 16));
      // Counted after the last file write: readers take the total from here. Else the last record
      // moved by this commit's writes (a server's refresh of a file: a `mast query` after it would
      // count 1.7 million chunks again, 85–95 ms cold at 1 GB).
      const moved = rows.totalsMoved;
      if (this.counted?.writes === rows.fileWrites) this.setMeta(CHUNK_TOTAL, `${version}:${this.counted.counts.chunks}:${this.counted.counts.files}`);
      else if (before !== null && before.files !== null && moved !== null) this.setMeta(CHUNK_TOTAL, `${version}:${before.chunks + moved.chunks}:${before.files + moved.files}`);
    }
  }

  /** Rows of `files` this connection wrote (inserted, updated or deleted): a reader of the stamps it read before sees whether they still hold. */
  get fileRowWrites(): number {
    return this.rows.fileWrites;
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

  /** A write transaction began: what its commit records starts from here. */
  private beginWrites(): void {
    this.counted = null;
    this.fileWritesAtBegin = this.rows.fileWrites;
    this.rows.begin(this.filesGeneration() ?? "");
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
    const indexes = this.db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('chunks', 'symbols', 'imports') ORDER BY name").all() as Array<{
      name: string;
      sql: string;
    }>;
    for (const { name } of indexes) this.db.exec(`DROP INDEX "${name.replace(/"/g, '""')}"`);
    return () => {
      for (const { sql } of indexes) this.db.exec(sql);
    };
  }
  /**
   * Indexes the chunks written since the last call in both FTS indexes (store/search-index.ts).
   * Runs by itself before every commit; an index run also calls it between its batches, so the
   * work overlaps the parse. Only call it inside a transaction and outside `batch`.
   */
  indexSearch(): void {
    const s = this.rows.search;
    if (!s) throw new Error("indexSearch outside a write transaction");
    s.index();
  }

  /** Characters of chunk text the FTS indexes have yet to take in (0 outside a write transaction). */
  pendingSearchChars(): number {
    return this.rows.search?.pending ?? 0;
  }

  /**
   * Runs reads in one read transaction, so every statement of an answer sees the same commit: two
   * queries on either side of a run's commit would mix the index before it with the one after (a
   * full run gives every symbol a new id, so ids read by one query match nothing in the next).
   */
  snapshot<T>(fn: (db: Db) => T): T {
    return this.db.transaction(() => fn(this.db)).deferred();
  }

  /**
   * `fn` over one read transaction held across its awaits (snapshot's is synchronous): every read
   * `fn` makes, whenever it makes it, sees the index as it was at the first (WAL mode; writers go on).
   */
  async readAcross<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    this.db.prepare("BEGIN").run();
    try {
      return await fn(this.db);
    } finally {
      if (this.db.inTransaction) this.db.prepare("ROLLBACK").run();
    }
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
   * (file-rows.ts keepSymbolRows), so the edges other files hold into them stand; the delta's `kept` names
   * what moved, from which the link decides what the rewrite reaches.
   */
  replaceFileRows(meta: FileMeta, extraction: FileExtraction, search?: readonly ChunkSearchWords[], keepIds = false): ChunkDelta {
    return this.rows.replace(meta, extraction, search, keepIds);
  }

  /**
   * `batch` for a read tool's just-in-time refresh (docs/freshness.md#the-just-in-time-refresh): the transaction waits at most
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
    this.rows.touch(meta);
  }

  /** Removes a file and everything derived from it in its own transaction; returns how many chunks went. */
  deleteFile(path: string): number {
    return this.batch(() => this.removeFileRows(path));
  }

  /** The body of deleteFile without a transaction of its own: only call it inside `batch`. */
  removeFileRows(path: string): number {
    return this.rows.remove(path);
  }

  /**
   * Re-resolves imports against the current file set — all of them, or those of the given files —
   * and rebuilds `re_export_files`, in a savepoint (store/derived-rows.ts relinkImports); the ids
   * of the files whose rows changed.
   */
  relinkImports(resolve: (fromPath: string, module: string) => string | null, scope: "all" | readonly number[], pageRows?: number): Set<number> {
    return this.batch(() => relinkImports(this.db, resolve, scope, pageRows));
  }

  /**
   * Replaces the edges derived across files whose source symbol lies in `fileIds` (every file when
   * null) with the rows `derive` emits (store/derived-rows.ts replaceDerivedEdges); the number
   * written. Only call inside `batch`.
   */
  replaceDerivedEdges(fileIds: readonly number[] | null, implementsFrom: readonly string[], derive: (emit: (row: unknown[]) => void) => void, callsOnly: readonly number[] = []): number {
    return replaceDerivedEdges(this.db, this.batchers, fileIds, implementsFrom, derive, callsOnly);
  }

  /** The checker pass's verdicts on potential lines, [target_id, file_id, line, verdict] each (query/checker.ts). */
  recordCheckerVerdicts(rows: ReadonlyArray<readonly [number, number, number, string]>): void {
    recordCheckerVerdicts(this.batchers, rows);
  }

  /** Replaces the checker's IMPLEMENTS edges from the types of `fileIds` with `rows` (store/derived-rows.ts replaceCheckerImplements); the number inserted. */
  replaceCheckerImplements(fileIds: readonly number[], rows: ReadonlyArray<readonly [number, number]>, whole: readonly number[]): number {
    return replaceCheckerImplements(this.db, fileIds, rows, whole);
  }

  /** A call the checker resolved to its target, as a verified edge of resolution 'checker'. */
  addCheckerEdge(fromId: number, toId: number, line: number): void {
    addCheckerEdge(this.db, fromId, toId, line);
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

  setMeta(key: string, value: string): void {
    this.db.prepare("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }
}
