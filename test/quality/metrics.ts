// What the search-quality benchmarks share: a corpus read as files, one query run through
// mast_search, the first relevant rank, and recall@1, recall@10 and MRR over a set of outcomes.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { SearchResponse, SearchResult } from "../../src/query/search-types.js";
import type { ToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";

export interface BenchQuery {
  readonly query: string;
  readonly expected: readonly string[];
  readonly kind: string;
}

/** One configuration's answer to one query: hit keys in rank order and the first relevant rank. */
export interface QueryOutcome {
  readonly hits: readonly SearchResult[];
  /** 1-based rank of the first relevant hit; null when none of the hits is relevant. */
  readonly firstRelevant: number | null;
}

export interface Metrics {
  readonly n: number;
  readonly recallAt1: number;
  readonly recallAt10: number;
  readonly mrr: number;
}

/** Every file under `dir` whose path passes `keep`, as a path → content map, for seeding a temp project. */
export function readCorpus(dir: string, keep: (path: string) => boolean = () => true, root = dir): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, entry.name);
    const rel = relative(root, abs).split("\\").join("/");
    if (entry.isDirectory()) Object.assign(files, readCorpus(abs, keep, root));
    else if (keep(rel)) files[rel] = readFileSync(abs, "utf8");
  }
  return files;
}

export const hitKey = (r: SearchResult): string => `${r.file_path}:${r.symbol_name ?? "(none)"}`;

export async function runQueries(ctx: ToolContext, queries: readonly BenchQuery[], limit: number): Promise<QueryOutcome[]> {
  const outcomes: QueryOutcome[] = [];
  for (const q of queries) {
    const response = (await callTool(ctx, "mast_search", { query: q.query, limit })) as SearchResponse;
    const index = response.results.findIndex((r) => q.expected.includes(hitKey(r)));
    outcomes.push({ hits: response.results, firstRelevant: index < 0 ? null : index + 1 });
  }
  return outcomes;
}

export function metricsOf(outcomes: readonly QueryOutcome[]): Metrics {
  const n = outcomes.length;
  const share = (pred: (o: QueryOutcome) => boolean) => (n === 0 ? 0 : outcomes.filter(pred).length / n);
  return {
    n,
    recallAt1: share((o) => o.firstRelevant === 1),
    recallAt10: share((o) => o.firstRelevant !== null && o.firstRelevant <= 10),
    mrr: n === 0 ? 0 : outcomes.reduce((sum, o) => sum + (o.firstRelevant === null ? 0 : 1 / o.firstRelevant), 0) / n,
  };
}

export const fmt = (x: number): string => x.toFixed(3);

/** One metrics row: `kind  n  R@1  R@10  MRR`. */
export function metricsRow(label: string, m: Metrics): string {
  return `${label.padEnd(26)} ${String(m.n).padStart(3)}  ${fmt(m.recallAt1)}  ${fmt(m.recallAt10)}  ${fmt(m.mrr)}`;
}

/** A hit in a report: `*` when relevant, folded methods and split parts named. */
export function describeHit(r: SearchResult, relevant: boolean): string {
  const folded = r.related && "methods_matched" in r.related ? ` [+${r.related.methods_matched.join(", ")}]` : "";
  return `${relevant ? "*" : " "} ${hitKey(r)}${folded}`;
}

/** An exact-name query of name-queries.json: its own declaration and every declaration answering its name, as `path:start-end:name`. */
export interface NameQuery {
  readonly query: string;
  readonly kind: string;
  readonly own: string;
  readonly answers: readonly string[];
}

export interface NameOutcome {
  readonly hits: readonly SearchResult[];
  /** The first hit is a declaration of that exact name. */
  readonly rank1: boolean;
  /** 1-based rank of the query's own declaration; null when not in the hits. */
  readonly ownRank: number | null;
}

/** Results at or above this rank count for top-5; names with more declarations than this are left out of it. */
export const NAME_TOP = 5;

/** A hit is the declaration `path:start-end:name`: its file, its symbol's last segment, overlapping lines (bench/declarations.mjs isDecl). */
function isDeclaration(r: SearchResult, key: string): boolean {
  const m = /^(.*):(\d+)-(\d+):([^:]+)$/.exec(key)!;
  const name = r.symbol_name?.slice(r.symbol_name.lastIndexOf(".") + 1);
  return r.file_path === m[1] && name === m[4] && r.start_line <= Number(m[3]) && r.end_line >= Number(m[2]);
}

export async function runNameQueries(ctx: ToolContext, queries: readonly NameQuery[], limit: number): Promise<NameOutcome[]> {
  const outcomes: NameOutcome[] = [];
  for (const q of queries) {
    const { results } = (await callTool(ctx, "mast_search", { query: q.query, limit })) as SearchResponse;
    const own = results.findIndex((r) => isDeclaration(r, q.own));
    outcomes.push({ hits: results, rank1: results[0] !== undefined && q.answers.some((a) => isDeclaration(results[0]!, a)), ownRank: own < 0 ? null : own + 1 });
  }
  return outcomes;
}

/** Rank-1 over every query, top-5 over those whose name has at most NAME_TOP declarations. */
export function nameFigures(queries: readonly NameQuery[], outcomes: readonly NameOutcome[]): { n: number; rank1: number; top5n: number; top5: number } {
  const judged = outcomes.filter((_, i) => queries[i]!.answers.length <= NAME_TOP);
  return {
    n: outcomes.length,
    rank1: outcomes.filter((o) => o.rank1).length / Math.max(1, outcomes.length),
    top5n: judged.length,
    top5: judged.filter((o) => o.ownRank !== null && o.ownRank <= NAME_TOP).length / Math.max(1, judged.length),
  };
}

/** The golden report of one corpus's exact-name queries: figures overall and per kind, then each query's own rank, a miss with its top 3. */
export function nameReport(title: string, queries: readonly NameQuery[], outcomes: readonly NameOutcome[]): string {
  const row = (label: string, pick: (q: NameQuery) => boolean) => {
    const idx = queries.map((q, i) => (pick(q) ? i : -1)).filter((i) => i >= 0);
    const f = nameFigures(
      idx.map((i) => queries[i]!),
      idx.map((i) => outcomes[i]!),
    );
    return `${label.padEnd(10)} ${String(f.n).padStart(4)}  rank-1 ${fmt(f.rank1)}  top-5 ${fmt(f.top5)} (of ${f.top5n} with <= ${NAME_TOP} declarations)`;
  };
  const kinds = [...new Set(queries.map((q) => q.kind))];
  const out = [
    title,
    "",
    row("all", () => true),
    ...kinds.map((k) => row(k, (q) => q.kind === k)),
    "",
    "Per query: own declaration's rank ('-' = not in the hits), then 'rank-1 miss' when the first hit is no declaration of the name; a miss's top 3.",
  ];
  queries.forEach((q, i) => {
    const o = outcomes[i]!;
    const miss = !o.rank1 || (q.answers.length <= NAME_TOP && (o.ownRank === null || o.ownRank > NAME_TOP));
    out.push(`[${q.kind}] ${JSON.stringify(q.query)}  ${o.ownRank ?? "-"}${o.rank1 ? "" : "  rank-1 miss"}`);
    if (miss) o.hits.slice(0, 3).forEach((r, j) => out.push(`  ${j + 1}. ${r.file_path}:${r.start_line}-${r.end_line} ${r.symbol_name ?? "(none)"}`));
  });
  return `${out.join("\n")}\n`;
}
