// What the search-quality benchmarks share: a corpus read as files, one query run through
// mast_search, the first relevant rank, and recall@1, recall@10 and MRR over a set of outcomes.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { SearchResponse, SearchResult } from "../../src/query/search.js";
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
