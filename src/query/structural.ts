// What the structural index (src/structural/) takes from graph.db: the files with their content
// hashes, their declarations, the verified call edges with how each was resolved, and the call
// sites no edge explains — one read of one snapshot. The structural build turns these into
// units; it never parses or resolves anything itself.
import type { Db } from "../store/db.js";
import { prepared, symbolTextReader } from "../store/db.js";
import { callRows } from "../store/link-inputs.js";
import { EDGE, resolutionName } from "../store/edge-codes.js";

export interface FactFile {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly content_hash: string;
  readonly size: number;
  readonly line_count: number;
  readonly has_syntax_errors: number;
}

export interface FactSymbol {
  readonly id: number;
  readonly file_id: number;
  readonly name: string;
  readonly kind: string;
  readonly line: number;
  readonly end_line: number;
  readonly signature: string | null;
}

/** A verified call (a POTENTIAL_CALL edge): caller and callee symbol ids, the site's line, how it was proven. */
export interface FactEdge {
  readonly from_id: number;
  readonly to_id: number;
  readonly line: number;
  readonly resolution: string;
}

/** A call site (`calls` row) no verified edge of its line explains. */
export interface FactCall {
  readonly file_id: number;
  readonly caller: string | null;
  readonly callee: string;
  readonly line: number;
}

export interface StructuralFacts {
  readonly files: readonly FactFile[];
  readonly symbols: readonly FactSymbol[];
  readonly edges: readonly FactEdge[];
  /** Every call site. */
  readonly calls: readonly FactCall[];
  readonly unresolved: readonly FactCall[];
  /** Where each import or re-export statement starts (`file_id`, `line`). */
  readonly imports: readonly { readonly file_id: number; readonly line: number }[];
  /** The resolver's config fingerprint (tsconfig paths, workspaces): part of every unit's compile context. */
  readonly resolverFingerprint: string;
}

/** Everything the structural build reads from the index, in path and line order. */
export function structuralFacts(db: Db): StructuralFacts {
  const texts = symbolTextReader(db);
  // In file order: each file's texts unpacked once.
  const symbols = (prepared(db, "SELECT id, file_id, name, kind, line, end_line FROM symbols WHERE kind != 'export' ORDER BY file_id, line, id").all() as Array<Omit<FactSymbol, "signature">>).map(
    (s): FactSymbol => ({ ...s, signature: texts(s.file_id, s.id).signature }),
  );
  const edges = prepared(db, `SELECT from_id, to_id, call_line AS line, resolution FROM edges WHERE edge_type = ${EDGE.POTENTIAL_CALL} ORDER BY from_id, call_line, to_id`)
    .all()
    .map((e) => ({ ...(e as FactEdge), resolution: resolutionName((e as { resolution: number }).resolution)! }));
  // A site is explained when an edge of its file at its line reaches a declaration of its name
  // (`m`, or `Owner.m`).
  const byId = new Map(symbols.map((s) => [s.id, s]));
  const explained = new Set<string>();
  for (const e of edges) {
    const from = byId.get(e.from_id);
    const to = byId.get(e.to_id);
    if (from && to) explained.add(`${from.file_id}:${e.line}:${to.name.slice(to.name.lastIndexOf(".") + 1)}`);
  }
  const calls: FactCall[] = callRows(db, null)
    .map((c) => ({ file_id: c.fileId, caller: c.caller, callee: c.callee, line: c.line }))
    .sort((a, b) => a.file_id - b.file_id || a.line - b.line || (a.callee < b.callee ? -1 : a.callee > b.callee ? 1 : 0));
  return {
    files: prepared(db, "SELECT id, path, language, content_hash, size, line_count, has_syntax_errors FROM files ORDER BY path").all() as FactFile[],
    symbols,
    edges,
    calls,
    imports: prepared(db, "SELECT file_id, line FROM imports ORDER BY file_id, line").all() as { file_id: number; line: number }[],
    unresolved: calls.filter((c) => !explained.has(`${c.file_id}:${c.line}:${c.callee}`)),
    resolverFingerprint: (prepared(db, "SELECT value FROM meta WHERE key = 'resolver_fingerprint'").pluck().get() as string | undefined) ?? "",
  };
}
