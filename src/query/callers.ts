// The callers engine (docs/call-graph.md#what-each-tool-promises): the answer mast_callers and mast_rename_impact share. Verified
// callers come from POTENTIAL_CALL edges only (and recurse over them alone); potential matches
// (potential-sites.ts) are the lines naming the symbol that no verified edge explains, so a real
// call site the resolver missed is listed for review, never silently absent.
import { prepared, type Db } from "../store/db.js";
import type { SourceLines } from "./source.js";
import { EDGE, resolutionName } from "../store/edge-codes.js";
import { findTarget, type Target } from "./targets.js";
import { checkerVerdicts, potentialMatches, type PotentialSet } from "./potential-sites.js";

/** Levels a transitive callers query follows before it stops. */
const MAX_TRANSITIVE_DEPTH = 32;

/** A call site a POTENTIAL_CALL edge links to the target. */
export interface VerifiedSite {
  file_path: string;
  line: number;
  /** The declaration the call is in; null for a call in the file's top-level code. */
  caller_symbol: string | null;
  resolution: string;
  /** Transitive queries: 1 for a direct caller, 2 for a caller's caller, ... */
  depth?: number;
  /** Transitive queries: the symbol this site calls (the target, or a caller nearer to it). */
  callee_symbol?: string;
}

/** A verified site with its line's text, as answers show it. */
export interface VerifiedCaller extends VerifiedSite {
  context: string;
}

/** Verified sites with their lines' text (trimmed), read from their files; empty for a line the file no longer has. */
export function withContexts(sites: readonly VerifiedSite[], source: SourceLines): VerifiedCaller[] {
  return sites.map((s) => ({ ...s, context: (source.line(s.file_path, s.line) ?? "").trim() }));
}

interface EdgeSiteRow {
  file_path: string;
  line: number;
  caller_symbol: string | null;
  resolution: number;
  depth: number;
  callee_symbol: string;
}

/** Call sites linked to the target by POTENTIAL_CALL edges; with `transitive`, their callers too (verified edges only). */
export function verifiedCallers(db: Db, ids: readonly number[], transitive: boolean): VerifiedSite[] {
  if (ids.length === 0) return [];
  const rows = prepared(
    db,
    `WITH RECURSIVE reach(id, depth) AS (
         SELECT value, 0 FROM json_each(?)
         UNION
         SELECT e.from_id, r.depth + 1 FROM edges e JOIN reach r ON e.to_id = r.id
         WHERE e.edge_type = ${EDGE.POTENTIAL_CALL} AND r.depth + 1 < ?
       ),
       nearest(id, depth) AS (SELECT id, min(depth) FROM reach GROUP BY id)
       SELECT f.path AS file_path, e.call_line AS line, CASE a.kind WHEN 'module' THEN NULL ELSE a.name END AS caller_symbol, e.resolution,
              n.depth + 1 AS depth, b.name AS callee_symbol
       FROM nearest n
       JOIN edges e ON e.to_id = n.id AND e.edge_type = ${EDGE.POTENTIAL_CALL}
       JOIN symbols a ON a.id = e.from_id
       JOIN symbols b ON b.id = e.to_id
       JOIN files f ON f.id = a.file_id
       ORDER BY depth, f.path, e.call_line, a.name, b.name`,
  ).all(JSON.stringify(ids), transitive ? MAX_TRANSITIVE_DEPTH : 1) as EdgeSiteRow[];
  const seen = new Set<string>();
  const out: VerifiedSite[] = [];
  for (const r of rows) {
    const key = `${r.file_path}:${r.line}:${r.caller_symbol}:${r.callee_symbol}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const entry: VerifiedSite = { file_path: r.file_path, line: r.line, caller_symbol: r.caller_symbol, resolution: resolutionName(r.resolution)! };
    out.push(transitive ? { ...entry, depth: r.depth, callee_symbol: r.callee_symbol } : entry);
  }
  return out;
}

export interface CallersQuery {
  readonly symbol: string;
  readonly filePath: string | null;
  readonly transitive: boolean;
  /** null skips the identifier search (include_potential: false). */
  readonly potentialLimit: number | null;
  /** Leave out import lines in files with a verified caller, and comment lines (mast_callers; a rename must edit them). */
  readonly omitNonCalls?: boolean;
  /** PotentialOptions.docComments. */
  readonly docComments?: boolean;
  /** PotentialOptions.omitImports. */
  readonly omitImports?: boolean;
  /** PotentialOptions.scanChunks. */
  readonly scanChunks?: number;
}

export interface Callers {
  readonly target: Target;
  readonly verified: VerifiedSite[];
  readonly potential: PotentialSet | null;
}

/** The declaration a query names, its verified callers and (unless skipped) its potential matches. */
export function callersOf(db: Db, projectRoot: string, query: CallersQuery): Callers {
  const target = findTarget(db, query.symbol, query.filePath);
  const verified = verifiedCallers(db, target.ids, query.transitive);
  const potential =
    query.potentialLimit === null
      ? null
      : potentialMatches(db, projectRoot, target.names, { ids: target.ids, fileId: target.sites[0]?.file_id ?? null, path: target.sites[0]?.path ?? null }, verified, query.potentialLimit, {
          omitNonCalls: query.omitNonCalls ?? false,
          omitImports: query.omitImports ?? false,
          docComments: query.docComments ?? false,
          verdicts: checkerVerdicts(db, target.ids),
          ...(query.scanChunks === undefined ? {} : { scanChunks: query.scanChunks }),
        });
  return { target, verified, potential };
}
