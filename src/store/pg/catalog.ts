// The structural index in a PostgreSQL store (docs/organisation.md#the-structural-index): a
// published build's catalog layers copied in (`publishStructural`, one transaction, the active build
// flipped at its end), and read back as CatalogReaders (store/catalog.ts) over a synchronous session,
// so structural/query.ts answers the five operations from the store exactly as from the files.
// The statements are the SQLite catalog's, in PostgreSQL's dialect: text ordered byte-wise
// (COLLATE "C", as SQLite's BINARY), a language list as an array.
import { MastError } from "../../base/errors.js";
import type { BoundaryResult, CatalogReader, CoverageCounts, EdgeResult, FallbackSymbol, SymbolResult } from "../catalog.js";
import type { Db } from "../db.js";
import type { PgSession, PgSyncSession, PgValue } from "./client.js";

const SYMBOL_COLUMNS = "symbol_id, name, qualified_name, namespace, language, file_path, start_line, end_line, kind, signature, precision, backend";
const EDGE_COLUMNS =
  "e.edge_id AS edge_id, e.caller_id AS caller_id, s.qualified_name AS caller_name, e.callee_id AS callee_id, e.callee_name AS callee_name, e.file_path AS file_path, e.line AS line, e.edge_kind AS edge_kind, e.precision AS precision, e.backend AS backend";
/** A caller's symbol in the same layer (the SQLite catalog's LEFT JOIN symbols). */
const CALLER_JOIN = "LEFT JOIN mast.structural_symbols s ON s.build = e.build AND s.layer = e.layer AND s.symbol_id = e.caller_id";
/** A partition key `lang:<language>:…` of one of the languages in $n. */
const inLanguages = (column: string, param: string) => `EXISTS (SELECT 1 FROM unnest(${param}::text[]) l WHERE substr(${column}, 6, length(l) + 1) = l || ':')`;

/** One layer (0: the main catalog, then the shards) of a published build, read through `pg`. */
export function pgCatalog(pg: PgSyncSession, build: number, layer: number): CatalogReader {
  const at = [build, layer] as const;
  return {
    meta: () => pg.query<{ meta: Record<string, string> }>("SELECT meta FROM mast.structural_layers WHERE build = $1 AND layer = $2", [...at])[0]?.meta ?? {},
    symbolsNamed: (f) =>
      pg.query<SymbolResult>(
        `SELECT ${SYMBOL_COLUMNS} FROM mast.structural_symbols
         WHERE build = $1 AND layer = $2 AND (name = $3 OR qualified_name = $3) AND ($4::text IS NULL OR language = $4) AND ($5::text IS NULL OR file_path = $5) AND ($6::text IS NULL OR namespace = $6)
         ORDER BY file_path COLLATE "C", start_line, qualified_name COLLATE "C", symbol_id COLLATE "C"`,
        [...at, f.name, f.language ?? null, f.file ?? null, f.namespace ?? null],
      ),
    symbolById: (id) => pg.query<SymbolResult>(`SELECT ${SYMBOL_COLUMNS} FROM mast.structural_symbols WHERE build = $1 AND layer = $2 AND symbol_id = $3 LIMIT 1`, [...at, id])[0] ?? null,
    callerEdges: (id, name, languages) =>
      pg
        .query<EdgeResult & { part?: number; edge_id?: number }>(
          `SELECT * FROM (
             SELECT ${EDGE_COLUMNS}, 0 AS part FROM mast.structural_edges e ${CALLER_JOIN} WHERE e.build = $1 AND e.layer = $2 AND e.callee_id = $3
             UNION ALL
             SELECT ${EDGE_COLUMNS}, 1 AS part FROM mast.structural_edges e ${CALLER_JOIN}
             WHERE e.build = $1 AND e.layer = $2 AND e.callee_id IS NULL AND e.callee_name = $4 AND e.edge_kind = 'unresolved' AND ${inLanguages("e.partition_key", "$5")}
           ) x ORDER BY part, file_path COLLATE "C", line, caller_id COLLATE "C", edge_id`,
          [...at, id, name, [...languages]],
        )
        .map(({ part: _, edge_id: _id, ...edge }) => edge),
    calleeEdges: (id) =>
      pg
        .query<EdgeResult & { edge_id?: number }>(
          `SELECT ${EDGE_COLUMNS} FROM mast.structural_edges e ${CALLER_JOIN} WHERE e.build = $1 AND e.layer = $2 AND e.caller_id = $3 ORDER BY e.file_path COLLATE "C", e.line, e.callee_name COLLATE "C", e.edge_id`,
          [...at, id],
        )
        .map(({ edge_id: _, ...edge }) => edge),
    innermostBoundary: (file, line) =>
      pg.query<BoundaryResult>(
        `SELECT b.symbol_id, s.qualified_name AS name, b.file_path, b.start_line, b.end_line, b.signature, b.language, s.precision, s.backend
         FROM mast.structural_boundaries b JOIN mast.structural_symbols s ON s.build = b.build AND s.layer = b.layer AND s.symbol_id = b.symbol_id
         WHERE b.build = $1 AND b.layer = $2 AND b.file_path = $3 AND b.start_line <= $4 AND b.end_line >= $4
         ORDER BY b.end_line - b.start_line, b.start_line DESC, b.symbol_id COLLATE "C" LIMIT 1`,
        [...at, file, line],
      )[0] ?? null,
    coverageCounts: (scope, exclude = []) => {
      const where = `build = $1 AND layer = $2 AND ($3::text IS NULL OR file_path = $3) AND ($4::text[] IS NULL OR ${inLanguages("partition_key", "$4")}) AND NOT (file_path = ANY($5::text[]))`;
      const params: PgValue[] = [...at, scope.file ?? null, scope.languages === undefined ? null : [...scope.languages], [...exclude]];
      const [row] = pg.query<Omit<CoverageCounts, "backends_used">>(
        `SELECT count(*)::int AS total_files, coalesce(sum(indexed), 0)::int AS indexed_files,
                count(*) FILTER (WHERE status = 'failed')::int AS failed, count(*) FILTER (WHERE status = 'deferred')::int AS deferred
         FROM mast.structural_coverage WHERE ${where}`,
        params,
      );
      const backends = pg
        .query<{ backend: string }>(`SELECT DISTINCT backend COLLATE "C" AS backend FROM mast.structural_coverage WHERE ${where} AND (indexed = 1 OR status = 'deferred') ORDER BY 1`, params)
        .map((r) => r.backend);
      return { ...row!, backends_used: backends };
    },
    close: () => {},
  };
}

/** A published structural build: its row id, manifest and number of layers. */
export interface StoredBuild {
  readonly build: number;
  readonly manifest: Record<string, unknown>;
  readonly layers: number;
}

/** A repository's structural build — the active one, or the one of `buildId` — or null when the store has none. */
export function structuralBuild(pg: PgSyncSession, repository: string, buildId: string | null = null): StoredBuild | null {
  const [row] = pg.query<{ id: string; manifest: Record<string, unknown>; layers: number }>(
    `SELECT b.id, b.manifest, (SELECT count(*)::int FROM mast.structural_layers l WHERE l.build = b.id) AS layers
     FROM mast.repositories r JOIN mast.structural_builds b ON b.repository_id = r.id
     WHERE r.name = $1 AND (CASE WHEN $2::text IS NULL THEN b.id = r.active_structural ELSE b.build_id = $2 END)`,
    [repository, buildId],
  );
  return row === undefined ? null : { build: Number(row.id), manifest: row.manifest, layers: row.layers };
}

/** What an overlay build compares with, of a stored build: its main layer's coverage keys and digests, its files, and its fallback-tier declarations and calls (every layer). */
export function baselineRows(pg: PgSyncSession, build: number) {
  const coverage = pg.query<{ file_path: string; indexed: number; unit_cache_key: string | null; sha256: string | null }>(
    `SELECT file_path, indexed, unit_cache_key, sha256 FROM mast.structural_coverage WHERE build = $1 AND layer = 0 ORDER BY file_path COLLATE "C"`,
    [build],
  );
  const indexed = coverage.filter((c) => c.indexed === 1);
  return {
    keys: new Map(indexed.flatMap((c) => (c.unit_cache_key === null ? [] : [[c.file_path, c.unit_cache_key] as const]))),
    digests: new Map(indexed.flatMap((c) => (c.sha256 === null ? [] : [[c.file_path, c.sha256] as const]))),
    files: coverage.map((c) => c.file_path),
    fallbackSymbols: pg.query<FallbackSymbol>(
      `SELECT symbol_id, name, language, file_path, kind FROM mast.structural_symbols WHERE build = $1 AND precision IN ('symbol-only', 'heuristic') ORDER BY layer, file_path COLLATE "C", start_line, symbol_id COLLATE "C"`,
      [build],
    ),
    fallbackCalls: pg.query<{ file_path: string; callee_id: string }>(
      `SELECT DISTINCT file_path, callee_id FROM mast.structural_edges WHERE build = $1 AND precision IN ('symbol-only', 'heuristic') AND callee_id IS NOT NULL`,
      [build],
    ),
  };
}

/** Rows per statement when copying a layer's tables. */
const ROW_BATCH = 10_000;

/** The tables of a catalog layer and the columns copied of each (the reads above use no other). */
const COPIED: ReadonlyArray<{ table: string; columns: readonly string[]; types: readonly string[] }> = [
  {
    table: "symbols",
    columns: ["symbol_id", "name", "qualified_name", "namespace", "language", "file_path", "start_line", "end_line", "kind", "signature", "precision", "backend"],
    types: ["text", "text", "text", "text", "text", "text", "int", "int", "text", "text", "text", "text"],
  },
  {
    table: "call_edges",
    columns: ["edge_id", "caller_id", "callee_id", "callee_name", "file_path", "line", "edge_kind", "precision", "backend", "partition_key"],
    types: ["int", "text", "text", "text", "text", "int", "text", "text", "text", "text"],
  },
  {
    table: "function_boundaries",
    columns: ["symbol_id", "file_path", "start_line", "end_line", "signature", "language"],
    types: ["text", "text", "int", "int", "text", "text"],
  },
  {
    table: "coverage",
    columns: ["file_path", "indexed", "backend", "status", "partition_key", "unit_cache_key", "sha256"],
    types: ["text", "int", "text", "text", "text", "text", "text"],
  },
];
const PG_TABLE: Record<string, string> = { symbols: "structural_symbols", call_edges: "structural_edges", function_boundaries: "structural_boundaries", coverage: "structural_coverage" };

export interface StructuralPublishReport {
  readonly repository: string;
  readonly build_id: string;
  readonly snapshot_id: string;
  readonly build: number;
  readonly unchanged: boolean;
  readonly active: boolean;
  readonly layers: number;
  readonly symbols: number;
  readonly edges: number;
  /** Older builds of the repository deleted by `keep`. */
  readonly pruned_builds: number;
}

/**
 * Copies a published build (its manifest and its catalog layers, main first) into the store under
 * `repository`, in one transaction that ends by making it the repository's active build unless a
 * later one is. A build already published writes nothing. `keep` then deletes the repository's
 * builds past the newest `keep` (never the active one).
 */
export async function publishStructural(pg: PgSession, repository: string, manifest: Record<string, unknown>, layers: readonly Db[], keep: number | null = null): Promise<StructuralPublishReport> {
  const report = await publishBuildRows(pg, repository, manifest, layers);
  if (keep === null) return { ...report, pruned_builds: 0 };
  // The repository's builds past the newest `keep`, never the active one; their layers and rows go with them.
  const gone = await pg.query(
    `DELETE FROM mast.structural_builds WHERE repository_id = (SELECT id FROM mast.repositories WHERE name = $1)
       AND id <> coalesce((SELECT active_structural FROM mast.repositories WHERE name = $1), 0)
       AND id NOT IN (SELECT b.id FROM mast.structural_builds b JOIN mast.repositories r ON r.id = b.repository_id WHERE r.name = $1 ORDER BY b.id DESC LIMIT $2)
     RETURNING id`,
    [repository, keep],
  );
  return { ...report, pruned_builds: gone.length };
}

async function publishBuildRows(pg: PgSession, repository: string, manifest: Record<string, unknown>, layers: readonly Db[]): Promise<Omit<StructuralPublishReport, "pruned_builds">> {
  const buildId = String(manifest["build_id"] ?? "");
  const snapshotId = String(manifest["snapshot_id"] ?? "unknown");
  if (buildId === "") throw new MastError("INVALID_ARGUMENT", "the structural index's manifest names no build_id: build it again with this mast");
  const counts = (table: string) => layers.reduce((n, db) => n + (db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number), 0);
  const base = { repository, build_id: buildId, snapshot_id: snapshotId, layers: layers.length, symbols: counts("symbols"), edges: counts("call_edges") };
  await pg.query("INSERT INTO mast.repositories(name) VALUES ($1) ON CONFLICT (name) DO NOTHING", [repository]);
  return pg.transaction(async () => {
    const [repo] = await pg.query<{ id: number }>("SELECT id FROM mast.repositories WHERE name = $1", [repository]);
    const made = await pg.query<{ id: string }>(
      "INSERT INTO mast.structural_builds(repository_id, build_id, snapshot_id, manifest) VALUES ($1, $2, $3, $4) ON CONFLICT (repository_id, build_id) DO NOTHING RETURNING id",
      [repo!.id, buildId, snapshotId, JSON.stringify(manifest)],
    );
    if (made.length === 0) {
      const [had] = await pg.query<{ id: string; active: boolean }>(
        "SELECT b.id, r.active_structural = b.id AS active FROM mast.structural_builds b JOIN mast.repositories r ON r.id = b.repository_id WHERE b.repository_id = $1 AND b.build_id = $2",
        [repo!.id, buildId],
      );
      return { ...base, build: Number(had!.id), unchanged: true, active: had!.active === true };
    }
    const build = made[0]!.id;
    for (const [layer, db] of layers.entries()) {
      const meta = Object.fromEntries((db.prepare("SELECT key, value FROM schema_meta").raw().all() as [string, string][]).map(([k, v]) => [k, v]));
      await pg.query("INSERT INTO mast.structural_layers(build, layer, meta) VALUES ($1, $2, $3)", [build, layer, JSON.stringify(meta)]);
      for (const { table, columns, types } of COPIED) {
        const rows = db
          .prepare(`SELECT ${columns.join(", ")} FROM ${table}`)
          .raw()
          .all() as PgValue[][];
        const unnest = types.map((t, i) => `$${i + 3}::${t}[]`).join(", ");
        for (let i = 0; i < rows.length; i += ROW_BATCH) {
          const part = rows.slice(i, i + ROW_BATCH);
          await pg.query(`INSERT INTO mast.${PG_TABLE[table]}(build, layer, ${columns.join(", ")}) SELECT $1::bigint, $2::int, * FROM unnest(${unnest})`, [
            build,
            layer,
            ...columns.map((_, c) => part.map((r) => r[c]!)),
          ]);
        }
      }
    }
    const flipped = await pg.query("UPDATE mast.repositories SET active_structural = $2, updated_at = now() WHERE id = $1 AND (active_structural IS NULL OR active_structural < $2) RETURNING id", [
      repo!.id,
      build,
    ]);
    return { ...base, build: Number(build), unchanged: false, active: flipped.length > 0 };
  });
}
