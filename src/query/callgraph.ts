// The call graph around one declaration (mast_graph): its callers and callees to a depth, over the
// verified edges (breadth first, each node at its nearest depth), and the root's potential
// neighbours — lines naming it that no verified edge explains (its potential callers, by their
// enclosing declaration) and its own calls that resolved to nothing (its potential callees, by
// name) — capped at a node count with what was left out stated. Rendered as Mermaid or DOT:
// verified edges solid, potential dashed.
import { prepared, type Db } from "../store/db.js";
import { verifiedCallers } from "./callers.js";
import { potentialMatches } from "./potential-sites.js";
import type { Target } from "./targets.js";
import { chunkContent, type ChunkPlace } from "../store/chunk-text.js";
import { CHUNK_PLACE_COLUMNS, SourceLines } from "./source.js";
import { EDGE } from "../store/edge-codes.js";

export type GraphDirection = "callers" | "callees" | "both";

export interface GraphNode {
  /** `n0` is the root. */
  readonly id: string;
  readonly name: string;
  /** null for a name several declarations share (`name` says how many). */
  readonly file_path: string | null;
  readonly line: number | null;
  /** Its distance from the root (0: the root). */
  readonly depth: number;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: "verified" | "potential";
  /** Call sites the edge stands for. */
  readonly sites: number;
}

export interface CallGraph {
  readonly nodes: GraphNode[];
  readonly edges: GraphEdge[];
  /** Nodes (and the edges touching them) past `maxNodes`, left out. */
  readonly nodes_omitted: number;
  readonly edges_omitted: number;
  /** Lines naming the root past the POTENTIAL_LINES looked at (the most call-like are taken), not drawn. */
  readonly potential_lines_omitted: number;
}

/** Lines naming the root that potential callers are drawn from, at most (ranked most call-like first). */
const POTENTIAL_LINES = 1_000;

interface SymbolRow {
  id: number;
  name: string;
  path: string;
  line: number;
}

const SYMBOL = "SELECT s.id, s.name, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?";

/** Verified call edges into (callers) or out of (callees) a set of symbols: [neighbour, node, sites]. */
function neighbours(db: Db, ids: readonly number[], direction: "callers" | "callees"): Array<{ from: number; to: number; sites: number }> {
  const [near, far] = direction === "callers" ? ["to_id", "from_id"] : ["from_id", "to_id"];
  return prepared(
    db,
    `SELECT e.from_id AS "from", e.to_id AS "to", count(*) AS sites FROM edges e
     WHERE e.edge_type = ${EDGE.POTENTIAL_CALL} AND e.${near} IN (SELECT value FROM json_each(?)) AND e.${far} != e.${near}
     GROUP BY e.from_id, e.to_id ORDER BY e.${near}, e.${far}`,
  ).all(JSON.stringify(ids)) as Array<{ from: number; to: number; sites: number }>;
}

/** A graph being drawn: its nodes by symbol, its edges by their ends and kind, and what the node cap left out. */
class GraphBuilder {
  readonly nodes = new Map<string, GraphNode>();
  readonly bySymbol = new Map<number, string>();
  private readonly edges = new Map<string, GraphEdge>();
  // Past the cap: symbols (each counted once, however many edges asked for it) and placeholders.
  private readonly omittedSymbols = new Set<number>();
  private nodesOmitted = 0;
  private edgesOmitted = 0;
  /** A node with no one declaration behind it: a file's top level, a name several declarations share. */
  private readonly placeholders = new Map<string, string | null>();

  constructor(private readonly maxNodes: number) {}

  nodeOf(row: SymbolRow, depth: number): string | null {
    const known = this.bySymbol.get(row.id);
    if (known) return known;
    if (this.nodes.size >= this.maxNodes) {
      this.omittedSymbols.add(row.id);
      return null;
    }
    const id = `n${this.nodes.size}`;
    // A file's top-level code is its module symbol, which has no name.
    this.nodes.set(id, { id, name: row.name === "" ? "(top level)" : row.name, file_path: row.path, line: row.line, depth });
    this.bySymbol.set(row.id, id);
    return id;
  }

  edge(from: string | null, to: string | null, kind: GraphEdge["kind"], sites: number): void {
    if (from === null || to === null) {
      this.edgesOmitted += 1;
      return;
    }
    const key = `${from}>${to}>${kind}`;
    const prev = this.edges.get(key);
    this.edges.set(key, { from, to, kind, sites: (prev?.sites ?? 0) + sites });
  }

  placeholder(name: string, path: string | null = null, line: number | null = null): string | null {
    const key = `${path}:${name}`;
    if (this.placeholders.has(key)) return this.placeholders.get(key)!;
    let id: string | null = null;
    if (this.nodes.size >= this.maxNodes) this.nodesOmitted += 1;
    else {
      id = `n${this.nodes.size}`;
      this.nodes.set(id, { id, name, file_path: path, line, depth: 1 });
    }
    this.placeholders.set(key, id);
    return id;
  }

  graph(linesOmitted: number): CallGraph {
    return {
      nodes: [...this.nodes.values()],
      edges: [...this.edges.values()],
      nodes_omitted: this.omittedSymbols.size + this.nodesOmitted,
      edges_omitted: this.edgesOmitted,
      potential_lines_omitted: linesOmitted,
    };
  }
}

export function callGraph(db: Db, projectRoot: string, target: Target, options: { depth: number; direction: GraphDirection; maxNodes: number }): CallGraph {
  const rootRow = target.sites[0]!;
  const graph = new GraphBuilder(options.maxNodes);
  const root = graph.nodeOf({ id: rootRow.id, name: rootRow.name, path: rootRow.path, line: rootRow.line }, 0)!;
  // The root's overloads and export aliases are the root.
  for (const id of target.ids) graph.bySymbol.set(id, root);
  for (const direction of options.direction === "both" ? (["callers", "callees"] as const) : [options.direction]) verifiedNeighbours(db, graph, target.ids, direction, options.depth);
  const linesOmitted = options.direction !== "callees" ? potentialCallers(db, projectRoot, graph, target, root) : 0;
  if (options.direction !== "callers") potentialCallees(db, projectRoot, graph, target, root);
  return graph.graph(linesOmitted);
}

/** The verified callers or callees of the root to a depth, breadth first, each node at its nearest depth. */
function verifiedNeighbours(db: Db, graph: GraphBuilder, ids: readonly number[], direction: "callers" | "callees", maxDepth: number): void {
  let frontier = [...ids];
  const seen = new Set<number>(ids);
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const next: number[] = [];
    for (const e of neighbours(db, frontier, direction)) {
      const far = direction === "callers" ? e.from : e.to;
      const row = prepared(db, SYMBOL).get(far) as SymbolRow | undefined;
      if (!row) continue;
      const farNode = graph.nodeOf(row, depth);
      const nearNode = graph.bySymbol.get(direction === "callers" ? e.to : e.from) ?? null;
      if (direction === "callers") graph.edge(farNode, nearNode, "verified", e.sites);
      else graph.edge(nearNode, farNode, "verified", e.sites);
      if (!seen.has(far)) {
        seen.add(far);
        next.push(far);
      }
    }
    frontier = next;
  }
}

/** Potential callers: the lines naming the root that no verified edge explains, by their enclosing declaration. Returns the lines past POTENTIAL_LINES. */
function potentialCallers(db: Db, projectRoot: string, graph: GraphBuilder, target: Target, root: string): number {
  const rootRow = target.sites[0]!;
  const verified = verifiedCallers(db, target.ids, false);
  const potential = potentialMatches(db, projectRoot, target.names, { ids: target.ids, fileId: rootRow.file_id, path: rootRow.path }, verified, POTENTIAL_LINES, { omitNonCalls: true });
  const enclosing = prepared(
    db,
    `SELECT s.id, s.name, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id
     WHERE f.path = ? AND s.line <= ? AND s.end_line >= ? AND s.kind NOT IN ('export', 'module') ORDER BY s.line DESC, s.id LIMIT 1`,
  );
  // A line outside every declaration is its file's top level: the module symbol a verified top-level caller is drawn as.
  const topLevel = prepared(db, "SELECT s.id, s.name, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.kind = 'module' LIMIT 1");
  for (const m of potential.matches) {
    const row = (enclosing.get(m.file_path, m.line, m.line) ?? topLevel.get(m.file_path)) as SymbolRow | undefined;
    if (row && graph.bySymbol.get(row.id) === root) continue;
    const from = row ? graph.nodeOf(row, 1) : graph.placeholder("(top level)", m.file_path, m.line);
    graph.edge(from, root, "potential", 1);
  }
  return potential.total - potential.matches.length;
}

/**
 * Potential callees: call-shaped names in the root's body (`name(`) that no verified edge from it
 * explains, to the declarations of that name (up to 3; more are one node saying how many). A name
 * no declaration of the project has (a built-in, a dependency) is not one.
 */
function potentialCallees(db: Db, projectRoot: string, graph: GraphBuilder, target: Target, root: string): void {
  const declarations = prepared(
    db,
    `SELECT DISTINCT s.id, s.name, f.path, s.line FROM chunks c JOIN symbols s ON s.file_id = c.file_id AND s.name = c.symbol_name AND s.line = c.start_line JOIN files f ON f.id = s.file_id
     WHERE c.symbol_tail = ? ORDER BY f.path, s.line, s.id`,
  );
  const explained = new Set(
    (
      prepared(
        db,
        `SELECT e.call_line AS line, b.name AS name FROM edges e JOIN symbols b ON b.id = e.to_id WHERE e.edge_type = ${EDGE.POTENTIAL_CALL} AND e.from_id IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify(target.ids)) as Array<{ line: number; name: string }>
    ).map((r) => `${r.line}:${r.name.slice(r.name.lastIndexOf(".") + 1)}`),
  );
  const seen = new Set<string>();
  for (const { line, name } of callShapedNames(db, new SourceLines(projectRoot), target.sites[0]!)) {
    if (explained.has(`${line}:${name}`) || seen.has(name)) continue;
    seen.add(name);
    const found = (declarations.all(name.toLowerCase()) as SymbolRow[]).filter((r) => (r.name === name || r.name.endsWith(`.${name}`)) && graph.bySymbol.get(r.id) !== root);
    if (found.length === 0) continue;
    if (found.length <= 3) {
      for (const row of found) graph.edge(root, graph.nodeOf(row, 1), "potential", 1);
    } else {
      graph.edge(root, graph.placeholder(`${name} (${found.length} declarations)`), "potential", 1);
    }
  }
}

/** `name(` and `#name(` (a private method; its edge's callee is `C.#name`). */
const CALL_SHAPED = /(#?[A-Za-z_$][\w$]*)\s*\(/g;

/** `name(` in the lines of a declaration's own chunks (its body), after its first line, with each line number. */
function callShapedNames(db: Db, source: SourceLines, root: { id: number; name: string; file_id: number; line: number }): Array<{ line: number; name: string }> {
  const end = prepared(db, "SELECT end_line FROM symbols WHERE id = ?").pluck().get(root.id) as number;
  const chunks = prepared(
    db,
    `SELECT ${CHUNK_PLACE_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.file_id = ? AND c.symbol_name = ? AND c.start_line >= ? AND c.end_line <= ? ORDER BY c.start_line, c.part`,
  ).all(root.file_id, root.name, root.line, end) as ChunkPlace[];
  const out: Array<{ line: number; name: string }> = [];
  for (const c of chunks) {
    (chunkContent(c, source) ?? "").split("\n").forEach((text, i) => {
      const line = c.contentStart + i;
      if (line <= root.line || line > end || /^\s*(?:\/\/|#|\*)/.test(text)) return;
      for (const m of text.matchAll(CALL_SHAPED)) out.push({ line, name: m[1]! });
    });
  }
  return out;
}

/** What a picture left out, as one sentence (empty when nothing was). */
function omissions(graph: CallGraph): string {
  const parts = [
    graph.nodes_omitted > 0 ? `${graph.nodes_omitted} nodes` : "",
    graph.edges_omitted > 0 ? `${graph.edges_omitted} edges` : "",
    graph.potential_lines_omitted > 0 ? `${graph.potential_lines_omitted} more lines naming the symbol` : "",
  ].filter(Boolean);
  return parts.length === 0 ? "" : `left out: ${parts.join(", ")}`;
}

const label = (n: GraphNode) => (n.file_path === null ? n.name : `${n.name}\n${n.file_path}:${n.line}`);

/** Mermaid flowchart: `-->` verified, `-.->` potential. */
export function toMermaid(graph: CallGraph): string {
  const text = (s: string) => s.replace(/"/g, "#quot;").replace(/\n/g, "<br/>");
  return [
    "flowchart LR",
    ...graph.nodes.map((n) => `  ${n.id}["${text(label(n))}"]`),
    ...graph.edges.map((e) => `  ${e.from} ${e.kind === "verified" ? "-->" : "-.->"}${e.sites > 1 ? `|${e.sites}|` : ""} ${e.to}`),
    "  style n0 stroke-width:3px",
    ...(omissions(graph) ? [`  %% ${omissions(graph)}`] : []),
  ].join("\n");
}

/** Graphviz DOT: solid verified edges, dashed potential ones; the root drawn bold. */
export function toDot(graph: CallGraph): string {
  const text = (s: string) => s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
  return [
    "digraph calls {",
    "  rankdir=LR;",
    '  node [shape=box, fontname="Helvetica"];',
    ...graph.nodes.map((n) => `  ${n.id} [label="${text(label(n))}"${n.depth === 0 ? ", style=bold" : n.file_path === null ? ", style=dashed" : ""}];`),
    ...graph.edges.map((e) => `  ${e.from} -> ${e.to}${e.kind === "potential" ? " [style=dashed]" : e.sites > 1 ? ` [label="${e.sites}"]` : ""};`),
    ...(omissions(graph) ? [`  // ${omissions(graph)}`] : []),
    "}",
  ].join("\n");
}
