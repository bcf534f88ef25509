// catalog.sqlite, the structural index's serving store (docs/structural.md#the-catalog):
// its schema with the contract's column names, CHECKs and indexes, the one write of a
// build's rows, and the per-database reads behind the five query operations. A shard has the same
// schema; structural/query.ts merges what each database answers. The catalog is a rollback-journal
// database: it is built in tmp/, renamed into place whole and read by the Python helper too.
import { type Db, openDatabase, prepared } from "./db.js";

/** `schema_meta.catalog_schema`: bumped when a table changes; another value is never read. */
export const CATALOG_SCHEMA_VERSION = "1";

export const PRECISIONS = ["semantic", "typecheck", "ast", "symbol-only", "heuristic", "coverage-only"] as const;
export type Precision = (typeof PRECISIONS)[number];
export const EDGE_KINDS = ["direct", "indirect", "virtual", "macro", "unresolved"] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

const inList = (values: readonly string[]) => values.map((v) => `'${v}'`).join(", ");

// `call_edges.precision` and `call_edges.backend` go beyond the contract's columns: an edge carries
// the tier that proved it (a checker-verified call in a typecheck partition, say), so every
// caller and callee result can say so without a join (docs/decisions.md, "Structural index").
const SCHEMA = `
CREATE TABLE IF NOT EXISTS schema_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS symbols (
  symbol_id      TEXT PRIMARY KEY,
  name           TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  namespace      TEXT NOT NULL,
  language       TEXT NOT NULL,
  file_path      TEXT NOT NULL,
  start_line     INTEGER NOT NULL,
  end_line       INTEGER NOT NULL,
  kind           TEXT NOT NULL,
  signature      TEXT,
  backend        TEXT NOT NULL,
  precision      TEXT NOT NULL CHECK (precision IN (${inList(PRECISIONS)})),
  corpus         TEXT NOT NULL DEFAULT 'default',
  partition_key  TEXT NOT NULL,
  unit_cache_key TEXT NOT NULL,
  source_layer   TEXT NOT NULL DEFAULT 'baseline'
);
CREATE TABLE IF NOT EXISTS call_edges (
  edge_id       INTEGER PRIMARY KEY AUTOINCREMENT,
  caller_id     TEXT NOT NULL,
  callee_id     TEXT,
  callee_name   TEXT NOT NULL,
  file_path     TEXT NOT NULL,
  line          INTEGER NOT NULL,
  edge_kind     TEXT NOT NULL CHECK (edge_kind IN (${inList(EDGE_KINDS)})),
  corpus        TEXT NOT NULL DEFAULT 'default',
  partition_key TEXT NOT NULL,
  source_layer  TEXT NOT NULL DEFAULT 'baseline',
  precision     TEXT NOT NULL CHECK (precision IN (${inList(PRECISIONS)})),
  backend       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS function_boundaries (
  symbol_id  TEXT PRIMARY KEY,
  file_path  TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line   INTEGER NOT NULL,
  signature  TEXT,
  language   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS coverage (
  file_path      TEXT NOT NULL,
  indexed        INTEGER NOT NULL,
  backend        TEXT NOT NULL,
  precision      TEXT NOT NULL,
  unit_cache_key TEXT,
  status         TEXT NOT NULL DEFAULT 'pending',
  corpus         TEXT NOT NULL DEFAULT 'default',
  partition_key  TEXT NOT NULL,
  sha256         TEXT,
  PRIMARY KEY (file_path, corpus)
);
CREATE TABLE IF NOT EXISTS unit_cache (
  cache_key         TEXT PRIMARY KEY,
  unit_id           TEXT NOT NULL,
  language          TEXT NOT NULL,
  extractor_name    TEXT NOT NULL,
  extractor_version TEXT NOT NULL,
  file_count        INTEGER NOT NULL,
  symbol_count      INTEGER NOT NULL,
  edge_count        INTEGER NOT NULL,
  source_bytes      INTEGER NOT NULL,
  created_at        TEXT NOT NULL,
  snapshot_id       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS deferred_units (
  unit_id    TEXT PRIMARY KEY,
  language   TEXT NOT NULL,
  files      TEXT NOT NULL,
  priority   INTEGER NOT NULL,
  reason     TEXT NOT NULL,
  cache_key  TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_symbols_name      ON symbols(name);
CREATE INDEX IF NOT EXISTS idx_symbols_qualified ON symbols(qualified_name);
CREATE INDEX IF NOT EXISTS idx_symbols_file      ON symbols(file_path, start_line);
CREATE INDEX IF NOT EXISTS idx_symbols_language  ON symbols(language);
CREATE INDEX IF NOT EXISTS idx_edges_caller      ON call_edges(caller_id);
CREATE INDEX IF NOT EXISTS idx_edges_callee      ON call_edges(callee_id);
CREATE INDEX IF NOT EXISTS idx_edges_callee_name ON call_edges(callee_name);
CREATE INDEX IF NOT EXISTS idx_edges_site        ON call_edges(file_path, line);
CREATE INDEX IF NOT EXISTS idx_boundaries_span   ON function_boundaries(file_path, start_line, end_line);
CREATE INDEX IF NOT EXISTS idx_coverage_status   ON coverage(status);
CREATE INDEX IF NOT EXISTS idx_deferred_priority ON deferred_units(priority);
`;

export interface CatalogSymbol {
  readonly symbol_id: string;
  readonly name: string;
  readonly qualified_name: string;
  readonly namespace: string;
  readonly language: string;
  readonly file_path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly kind: string;
  readonly signature: string | null;
  readonly backend: string;
  readonly precision: Precision;
  readonly partition_key: string;
  readonly unit_cache_key: string;
  readonly source_layer: string;
}

export interface CatalogEdge {
  readonly caller_id: string;
  readonly callee_id: string | null;
  readonly callee_name: string;
  readonly file_path: string;
  readonly line: number;
  readonly edge_kind: EdgeKind;
  readonly partition_key: string;
  readonly source_layer: string;
  readonly precision: Precision;
  readonly backend: string;
}

export interface CatalogBoundary {
  readonly symbol_id: string;
  readonly file_path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly signature: string | null;
  readonly language: string;
}

export interface CatalogCoverage {
  readonly file_path: string;
  readonly indexed: 0 | 1;
  readonly backend: string;
  /** A tier, or `deferred` for a native index recorded but not ingested. */
  readonly precision: string;
  readonly unit_cache_key: string | null;
  /** indexed | deferred | failed | empty */
  readonly status: string;
  readonly partition_key: string;
  /** Beyond the contract: the file's content digest when indexed (the next build's change test). */
  readonly sha256: string | null;
}

export interface CatalogUnit {
  readonly cache_key: string;
  readonly unit_id: string;
  readonly language: string;
  readonly extractor_name: string;
  readonly extractor_version: string;
  readonly file_count: number;
  readonly symbol_count: number;
  readonly edge_count: number;
  readonly source_bytes: number;
  readonly created_at: string;
  readonly snapshot_id: string;
}

export interface CatalogDeferred {
  readonly unit_id: string;
  readonly language: string;
  /** JSON array of the unit's files. */
  readonly files: string;
  readonly priority: number;
  readonly reason: string;
  readonly cache_key: string | null;
  readonly created_at: string;
}

export interface CatalogRows {
  readonly meta: Readonly<Record<string, string>>;
  readonly symbols: readonly CatalogSymbol[];
  readonly edges: readonly CatalogEdge[];
  readonly boundaries: readonly CatalogBoundary[];
  readonly coverage: readonly CatalogCoverage[];
  readonly units: readonly CatalogUnit[];
  readonly deferred: readonly CatalogDeferred[];
}

/** Writes a new catalog (or shard) at `path` (which must not exist) in one transaction. */
export function writeCatalog(path: string, rows: CatalogRows): void {
  const db = openDatabase(path, { journal: "delete" });
  try {
    db.exec(SCHEMA);
    const insert = (table: string, columns: readonly string[], list: readonly object[]) => {
      const st = db.prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
      for (const row of list) st.run(columns.map((c) => (row as Record<string, unknown>)[c] ?? null));
    };
    db.transaction(() => {
      insert(
        "schema_meta",
        ["key", "value"],
        Object.entries({ ...rows.meta, catalog_schema: CATALOG_SCHEMA_VERSION }).map(([key, value]) => ({ key, value })),
      );
      insert(
        "symbols",
        [
          "symbol_id",
          "name",
          "qualified_name",
          "namespace",
          "language",
          "file_path",
          "start_line",
          "end_line",
          "kind",
          "signature",
          "backend",
          "precision",
          "partition_key",
          "unit_cache_key",
          "source_layer",
        ],
        rows.symbols,
      );
      insert("call_edges", ["caller_id", "callee_id", "callee_name", "file_path", "line", "edge_kind", "partition_key", "source_layer", "precision", "backend"], rows.edges);
      insert("function_boundaries", ["symbol_id", "file_path", "start_line", "end_line", "signature", "language"], rows.boundaries);
      insert("coverage", ["file_path", "indexed", "backend", "precision", "unit_cache_key", "status", "partition_key", "sha256"], rows.coverage);
      insert(
        "unit_cache",
        ["cache_key", "unit_id", "language", "extractor_name", "extractor_version", "file_count", "symbol_count", "edge_count", "source_bytes", "created_at", "snapshot_id"],
        rows.units,
      );
      insert("deferred_units", ["unit_id", "language", "files", "priority", "reason", "cache_key", "created_at"], rows.deferred);
    })();
  } finally {
    db.close();
  }
}

// ---- reads (one database; structural/query.ts merges a catalog's shards) ----

/**
 * What the structural operations read of one catalog or shard — a published SQLite catalog
 * (sqliteCatalog) or the same rows in a PostgreSQL store (store/pg/catalog.ts): the operations in
 * structural/query.ts do not know which.
 */
export interface CatalogReader {
  meta(): Record<string, string>;
  symbolsNamed(f: SymbolFilter): SymbolResult[];
  symbolById(id: string): SymbolResult | null;
  callerEdges(id: string, name: string, languages: readonly string[]): EdgeResult[];
  calleeEdges(id: string): EdgeResult[];
  innermostBoundary(file: string, line: number): BoundaryResult | null;
  coverageCounts(scope: { readonly file?: string | undefined; readonly languages?: readonly string[] | undefined }, exclude?: readonly string[]): CoverageCounts;
  close(): void;
}

/** A published SQLite catalog or shard as a CatalogReader (closing it closes the database). */
export function sqliteCatalog(db: Db): CatalogReader {
  return {
    meta: () => catalogMeta(db),
    symbolsNamed: (f) => symbolsNamed(db, f),
    symbolById: (id) => symbolById(db, id),
    callerEdges: (id, name, languages) => callerEdges(db, id, name, languages),
    calleeEdges: (id) => calleeEdges(db, id),
    innermostBoundary: (file, line) => innermostBoundary(db, file, line),
    coverageCounts: (scope, exclude) => coverageCounts(db, scope, exclude),
    close: () => db.close(),
  };
}

/** Opens a catalog or shard read-only; null when it is absent, unreadable or of another schema. */
export function openCatalog(path: string): Db | null {
  let db: Db;
  try {
    db = openDatabase(path, { readonly: true });
  } catch {
    return null;
  }
  try {
    const version = prepared(db, "SELECT value FROM schema_meta WHERE key = 'catalog_schema'").pluck().get();
    if (version === CATALOG_SCHEMA_VERSION) return db;
  } catch {
    // not a catalog
  }
  db.close();
  return null;
}

export function catalogMeta(db: Db): Record<string, string> {
  const rows = prepared(db, "SELECT key, value FROM schema_meta").all() as { key: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export interface SymbolFilter {
  readonly name: string;
  readonly language?: string | undefined;
  readonly file?: string | undefined;
  readonly namespace?: string | undefined;
}

const SYMBOL_COLUMNS = "symbol_id, name, qualified_name, namespace, language, file_path, start_line, end_line, kind, signature, precision, backend";

export type SymbolResult = Pick<
  CatalogSymbol,
  "symbol_id" | "name" | "qualified_name" | "namespace" | "language" | "file_path" | "start_line" | "end_line" | "kind" | "signature" | "precision" | "backend"
>;

/** Every symbol named `name` (or qualified so), narrowed by the optional filters; path order. */
export function symbolsNamed(db: Db, f: SymbolFilter): SymbolResult[] {
  return prepared(
    db,
    `SELECT ${SYMBOL_COLUMNS} FROM symbols
     WHERE (name = @name OR qualified_name = @name) AND (@language IS NULL OR language = @language) AND (@file IS NULL OR file_path = @file) AND (@namespace IS NULL OR namespace = @namespace)
     ORDER BY file_path, start_line, qualified_name, symbol_id`,
  ).all({ name: f.name, language: f.language ?? null, file: f.file ?? null, namespace: f.namespace ?? null }) as SymbolResult[];
}

export function symbolById(db: Db, id: string): SymbolResult | null {
  return (prepared(db, `SELECT ${SYMBOL_COLUMNS} FROM symbols WHERE symbol_id = ?`).get(id) as SymbolResult | undefined) ?? null;
}

export interface EdgeResult {
  readonly caller_id: string;
  readonly caller_name: string | null;
  readonly callee_id: string | null;
  readonly callee_name: string;
  readonly file_path: string;
  readonly line: number;
  readonly edge_kind: EdgeKind;
  readonly precision: Precision;
  readonly backend: string;
}

const EDGE_COLUMNS =
  "e.edge_id AS edge_id, e.caller_id AS caller_id, s.qualified_name AS caller_name, e.callee_id AS callee_id, e.callee_name AS callee_name, e.file_path AS file_path, e.line AS line, e.edge_kind AS edge_kind, e.precision AS precision, e.backend AS backend";

/**
 * The calls of `id` (`callee_id = id`) and, after them, the unresolved calls of its name in the
 * files of `languages` (those that can call it) — a call site no symbol was resolved for may still
 * be one of its calls (hint-only: consumers grep anyway). Site order within each part.
 */
export function callerEdges(db: Db, id: string, name: string, languages: readonly string[]): EdgeResult[] {
  const rows = prepared(
    db,
    `SELECT ${EDGE_COLUMNS}, 0 AS part FROM call_edges e LEFT JOIN symbols s ON s.symbol_id = e.caller_id WHERE e.callee_id = @id
     UNION ALL
     SELECT ${EDGE_COLUMNS}, 1 AS part FROM call_edges e LEFT JOIN symbols s ON s.symbol_id = e.caller_id
     WHERE e.callee_id IS NULL AND e.callee_name = @name AND e.edge_kind = 'unresolved'
       AND EXISTS (SELECT 1 FROM json_each(@languages) l WHERE substr(e.partition_key, 6, length(l.value) + 1) = l.value || ':')
     ORDER BY part, file_path, line, caller_id, edge_id`,
  ).all({ id, name, languages: JSON.stringify(languages) }) as (EdgeResult & { part?: number })[];
  for (const row of rows) {
    delete row.part;
    delete (row as { edge_id?: number }).edge_id;
  }
  return rows;
}

/** The calls made inside `id`, in site order. */
export function calleeEdges(db: Db, id: string): EdgeResult[] {
  const rows = prepared(
    db,
    `SELECT ${EDGE_COLUMNS} FROM call_edges e LEFT JOIN symbols s ON s.symbol_id = e.caller_id WHERE e.caller_id = ? ORDER BY e.file_path, e.line, e.callee_name, e.edge_id`,
  ).all(id) as EdgeResult[];
  for (const row of rows) delete (row as { edge_id?: number }).edge_id;
  return rows;
}

export interface BoundaryResult {
  readonly symbol_id: string;
  readonly name: string;
  readonly file_path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly signature: string | null;
  readonly language: string;
  readonly precision: Precision;
  readonly backend: string;
}

/** The innermost function boundary of `file` holding `line`; null when none does. */
export function innermostBoundary(db: Db, file: string, line: number): BoundaryResult | null {
  return (
    (prepared(
      db,
      `SELECT b.symbol_id, s.qualified_name AS name, b.file_path, b.start_line, b.end_line, b.signature, b.language, s.precision, s.backend
       FROM function_boundaries b JOIN symbols s ON s.symbol_id = b.symbol_id
       WHERE b.file_path = @file AND b.start_line <= @line AND b.end_line >= @line
       ORDER BY b.end_line - b.start_line, b.start_line DESC, b.symbol_id LIMIT 1`,
    ).get({ file, line }) as BoundaryResult | undefined) ?? null
  );
}

export interface CoverageCounts {
  readonly total_files: number;
  readonly indexed_files: number;
  readonly failed: number;
  readonly deferred: number;
  readonly backends_used: string[];
}

/**
 * Coverage rows counted, for one file, some languages' partitions (`lang:<language>:` keys) or all;
 * the files of `exclude` left out (a baseline's rows an overlay supersedes).
 */
export function coverageCounts(db: Db, scope: { readonly file?: string | undefined; readonly languages?: readonly string[] | undefined }, exclude: readonly string[] = []): CoverageCounts {
  const where =
    "(@file IS NULL OR file_path = @file) AND (@languages IS NULL OR EXISTS (SELECT 1 FROM json_each(@languages) l WHERE substr(partition_key, 6, length(l.value) + 1) = l.value || ':')) AND NOT EXISTS (SELECT 1 FROM json_each(@exclude) x WHERE x.value = file_path)";
  const params = { file: scope.file ?? null, languages: scope.languages === undefined ? null : JSON.stringify(scope.languages), exclude: JSON.stringify(exclude) };
  const row = prepared(
    db,
    `SELECT count(*) AS total_files, coalesce(sum(indexed), 0) AS indexed_files,
            coalesce(sum(status = 'failed'), 0) AS failed, coalesce(sum(status = 'deferred'), 0) AS deferred
     FROM coverage WHERE ${where}`,
  ).get(params) as Omit<CoverageCounts, "backends_used">;
  const backends = prepared(db, `SELECT DISTINCT backend FROM coverage WHERE ${where} AND (indexed = 1 OR status = 'deferred') ORDER BY backend`).pluck().all(params) as string[];
  return { ...row, backends_used: backends };
}

/** The unit cache key each covered file was indexed under (a baseline's, to tell which units an overlay rebuilds). */
export function coverageKeys(db: Db): Map<string, string> {
  const rows = prepared(db, "SELECT file_path, unit_cache_key FROM coverage WHERE indexed = 1 AND unit_cache_key IS NOT NULL").raw().all() as [string, string][];
  return new Map(rows);
}

/** Every file the coverage table lists. */
export function coveredFiles(db: Db): string[] {
  return prepared(db, "SELECT file_path FROM coverage ORDER BY file_path").pluck().all() as string[];
}

/** file → content digest of the indexed files. */
export function coverageDigests(db: Db): Map<string, string> {
  const rows = prepared(db, "SELECT file_path, sha256 FROM coverage WHERE indexed = 1 AND sha256 IS NOT NULL").raw().all() as [string, string][];
  return new Map(rows);
}

export type FallbackSymbol = Pick<CatalogSymbol, "symbol_id" | "name" | "language" | "file_path" | "kind">;

/** The declarations found at the fallback tiers (symbol-only, heuristic): what their calls are resolved by name against. */
export function fallbackTierSymbols(db: Db): FallbackSymbol[] {
  return prepared(
    db,
    "SELECT symbol_id, name, language, file_path, kind FROM symbols WHERE precision IN ('symbol-only', 'heuristic') ORDER BY file_path, start_line, symbol_id",
  ).all() as FallbackSymbol[];
}

/** The resolved calls found at the fallback tiers: their site's file and the declaration named. */
export function fallbackTierCalls(db: Db): { file_path: string; callee_id: string }[] {
  return prepared(db, "SELECT DISTINCT file_path, callee_id FROM call_edges WHERE precision IN ('symbol-only', 'heuristic') AND callee_id IS NOT NULL").all() as {
    file_path: string;
    callee_id: string;
  }[];
}
