// The rows graph.db derives across files, written within the Store's write transaction: imports'
// resolutions and the `export *` closure (`re_export_files`), the link pass's edges written in
// batches as they are derived, and the checker pass's verdicts and edges.
import type { Batchers } from "./batcher.js";
import { prepared, type Db } from "./db.js";
import { EDGE, RESOLVED } from "./edge-codes.js";
import { isExternalImport } from "./file-rows.js";

/** Import rows `relinkImports` reads at a time. */
export const RELINK_IMPORTS_PAGE = 10_000;
/** Derived edges written per multi-row INSERT round (replaceDerivedEdges). */
const EDGE_WRITE_BATCH = 4096;

/**
 * Re-resolves imports against the current file set — all of them, or those of the given files —
 * setting `resolved_file_id` (the indexed file a specifier names; a resolution to a path with no
 * row is none) and `is_external` (a bare specifier no alias or workspace maps into the project),
 * then rebuilds `re_export_files`, reading `pageRows` import rows at a time. Returns the ids of
 * the files whose rows changed. Only call inside `batch`.
 */
export function relinkImports(db: Db, resolve: (fromPath: string, module: string) => string | null, scope: "all" | readonly number[], pageRows = RELINK_IMPORTS_PAGE): Set<number> {
  // Read a page at a time: all of a 1 GB tree's 745,000 rows at once were ~140 MB of objects
  // live while they were resolved, and a collection then set V8's next limit from them — the
  // link pass after it left ~900 MB of garbage before the next one (the full build's peak RSS
  // 0.93 → 1.39 GB on some runs: bench/README.md, "stop 62").
  const pageOf = prepared(
    db,
    "SELECT i.id, i.file_id AS fileId, i.module, i.resolved_file_id AS resolvedId, i.is_external AS external, f.path FROM imports i JOIN files f ON f.id = i.file_id " +
      `WHERE i.id > ?${scope === "all" ? "" : " AND i.file_id IN (SELECT value FROM json_each(?))"} ORDER BY i.id LIMIT ${pageRows}`,
  );
  const scopeArgs = scope === "all" ? [] : [JSON.stringify(scope)];
  const update = prepared(db, "UPDATE imports SET resolved_file_id = ?, is_external = ? WHERE id = ?");
  // A resolution names an indexed path: its row's id, looked up once per path. A path's row
  // can be another than when the import was last resolved (the file went and came back).
  const idOfPath = prepared(db, "SELECT id FROM files WHERE path = ?");
  const ids = new Map<string, number | null>();
  const idOf = (path: string): number | null => {
    let id = ids.get(path);
    if (id === undefined) ids.set(path, (id = (idOfPath.get(path) as { id: number } | undefined)?.id ?? null));
    return id;
  };
  const changed = new Set<number>();
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
  prepared(db, `DELETE FROM re_export_files${scope === "all" ? "" : " WHERE from_file_id IN (SELECT value FROM json_each(?))"}`).run(...args);
  prepared(
    db,
    "INSERT OR IGNORE INTO re_export_files(from_file_id, to_file_id) " +
      `SELECT i.file_id, i.resolved_file_id FROM imports i WHERE i.kind = 'export_star' AND i.resolved_file_id IS NOT NULL${within} ORDER BY i.file_id, i.resolved_file_id`,
  ).run(...args);
  return changed;
}

/**
 * Replaces the edges derived across files (`POTENTIAL_CALL`, `EXTENDS`, `IMPLEMENTS`,
 * `RE_EXPORTS`) whose source symbol lies in `fileIds` (every file when null) with the rows
 * `derive` emits, [from_id, to_id, edge_type, resolution, call_line] each (store/edge-codes.ts
 * codes), written in batches as they come, and the `POTENTIAL_CALL` edges of `callsOnly` (files
 * whose other edges stand); the number written. Only call inside `batch`.
 */
export function replaceDerivedEdges(
  db: Db,
  batchers: Batchers,
  fileIds: readonly number[] | null,
  implementsFrom: readonly string[],
  derive: (emit: (row: unknown[]) => void) => void,
  callsOnly: readonly number[] = [],
): number {
  // The checker pass's edges are not re-derived from rows: they go when either end's file is rewritten (ON DELETE CASCADE).
  const derived = `edge_type IN (${EDGE.POTENTIAL_CALL}, ${EDGE.EXTENDS}, ${EDGE.IMPLEMENTS}, ${EDGE.RE_EXPORTS}) AND resolution IS NOT ${RESOLVED.checker}`;
  if (fileIds === null) prepared(db, `DELETE FROM edges WHERE ${derived}`).run();
  else {
    const files = JSON.stringify(fileIds);
    prepared(db, `DELETE FROM edges WHERE ${derived} AND from_id IN (SELECT id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)))`).run(files);
    // IMPLEMENTS by method set into the given files, from types of `implementsFrom`'s languages anywhere (derived again with them).
    if (implementsFrom.length > 0) {
      prepared(
        db,
        `DELETE FROM edges WHERE edge_type = ${EDGE.IMPLEMENTS} AND resolution IS NOT ${RESOLVED.checker}
           AND to_id IN (SELECT id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)))
           AND from_id IN (SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.language IN (SELECT value FROM json_each(?)))`,
      ).run(files, JSON.stringify(implementsFrom));
    }
    // Files whose call sites alone are derived again: their other edges stand.
    if (callsOnly.length > 0)
      prepared(
        db,
        `DELETE FROM edges WHERE edge_type = ${EDGE.POTENTIAL_CALL} AND resolution IS NOT ${RESOLVED.checker} AND from_id IN (SELECT id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)))`,
      ).run(JSON.stringify(callsOnly));
  }
  const batcher = batchers.get("edges", ["from_id", "to_id", "edge_type", "resolution", "call_line"]);
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
  prepared(
    db,
    `DELETE FROM edges WHERE resolution = ${RESOLVED.checker}${fromScope} AND EXISTS (SELECT 1 FROM edges h WHERE h.from_id = edges.from_id AND h.to_id = edges.to_id AND h.edge_type = edges.edge_type AND h.call_line IS edges.call_line AND h.resolution IS NOT ${RESOLVED.checker})`,
  ).run(...(fileIds === null ? [] : [JSON.stringify([...fileIds, ...callsOnly])]));
  return written;
}

/** The checker pass's verdicts on potential lines, [target_id, file_id, line, verdict] each (query/checker.ts). */
export function recordCheckerVerdicts(batchers: Batchers, rows: ReadonlyArray<readonly [number, number, number, string]>): void {
  batchers.get("checker_verdicts", ["target_id", "file_id", "line", "verdict"], "INSERT OR REPLACE").insert(rows as unknown as unknown[][]);
}

/**
 * Replaces the checker's IMPLEMENTS edges (resolution 'checker') from the types of `fileIds`
 * with `rows` [type id, interface id], leaving out the pairs the resolver already linked, and
 * drops the resolver's IMPLEMENTS edges from a non-interface type to an interface, both in
 * `whole` (method sets the checker knows in full), that `rows` does not hold; the number inserted.
 */
export function replaceCheckerImplements(db: Db, fileIds: readonly number[], rows: ReadonlyArray<readonly [number, number]>, whole: readonly number[]): number {
  prepared(
    db,
    `DELETE FROM edges WHERE edge_type = ${EDGE.IMPLEMENTS} AND resolution = ${RESOLVED.checker} AND from_id IN (SELECT id FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)))`,
  ).run(JSON.stringify(fileIds));
  const known = new Set(rows.map(([from, to]) => `${from}:${to}`));
  const wrong = prepared(
    db,
    "SELECT e.rowid AS id, e.from_id, e.to_id FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id " +
      `WHERE e.edge_type = ${EDGE.IMPLEMENTS} AND e.resolution IS NOT ${RESOLVED.checker} AND a.kind <> 'interface' AND b.kind = 'interface' AND e.from_id IN (SELECT value FROM json_each(?)) AND e.to_id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(whole), JSON.stringify(whole)) as Array<{ id: number; from_id: number; to_id: number }>;
  const drop = prepared(db, "DELETE FROM edges WHERE rowid = ?");
  for (const e of wrong) if (!known.has(`${e.from_id}:${e.to_id}`)) drop.run(e.id);
  const insert = prepared(
    db,
    `INSERT INTO edges (from_id, to_id, edge_type, resolution) SELECT ?, ?, ${EDGE.IMPLEMENTS}, ${RESOLVED.checker} WHERE NOT EXISTS (SELECT 1 FROM edges WHERE from_id = ? AND to_id = ? AND edge_type = ${EDGE.IMPLEMENTS})`,
  );
  let n = 0;
  for (const [from, to] of rows) n += insert.run(from, to, from, to).changes;
  return n;
}

/** A call the checker resolved to its target, as a verified edge of resolution 'checker'. */
export function addCheckerEdge(db: Db, fromId: number, toId: number, line: number): void {
  prepared(db, `INSERT INTO edges (from_id, to_id, edge_type, resolution, call_line) VALUES (?, ?, ${EDGE.POTENTIAL_CALL}, ${RESOLVED.checker}, ?)`).run(fromId, toId, line);
}
