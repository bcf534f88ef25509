// Search-quality benchmark: indexes the fixture corpus twice (ranker D on, and BM25 only via
// mast.config.json), runs every query in queries.json through mast_search, and reports
// recall@1, recall@10 and MRR per query kind against a golden file and regression floors.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { expectGolden } from "../helpers/golden.js";
import { makeProject, type TestProject } from "../helpers/project.js";
import { describeHit, fmt, hitKey, metricsOf, readCorpus, runQueries, type Metrics, type QueryOutcome } from "./metrics.js";

type QueryKind = "exact_symbol" | "partial_identifier" | "prose";

interface BenchQuery {
  readonly query: string;
  readonly expected: readonly string[];
  readonly kind: QueryKind;
}

const HERE = import.meta.dirname;
const CORPUS_DIR = join(HERE, "..", "fixtures", "search-corpus");
const QUERIES: readonly BenchQuery[] = JSON.parse(readFileSync(join(HERE, "queries.json"), "utf8")) as BenchQuery[];
const KINDS: readonly QueryKind[] = ["exact_symbol", "partial_identifier", "prose"];
const LIMIT = 10;

/**
 * Regression floors for the default configuration (BM25 + ranker D), compared after rounding
 * to 3 decimals: a ranking change that drops below them fails here, not silently.
 */
const FLOORS = { overallRecallAt10: 0.95, exactSymbolRecallAt1: 0.9 } as const;

/** A project copy of the corpus, indexed, with a tool context over it. */
interface IndexedCorpus {
  project: TestProject;
  ctx: ToolContext;
}

async function indexCorpus(extraFiles: Record<string, string>): Promise<IndexedCorpus> {
  const project = makeProject({ ...readCorpus(CORPUS_DIR), ...extraFiles });
  const config = project.config();
  await runIndex(config, { mode: "full" });
  return { project, ctx: createToolContext(config) };
}

let withD: IndexedCorpus;
let withoutD: IndexedCorpus;
let outcomesD: QueryOutcome[];
let outcomesBm25: QueryOutcome[];

beforeAll(async () => {
  withD = await indexCorpus({});
  withoutD = await indexCorpus({ "mast.config.json": JSON.stringify({ declaration_exact_ranker: false }) });
  outcomesD = await runQueries(withD.ctx, QUERIES, LIMIT);
  outcomesBm25 = await runQueries(withoutD.ctx, QUERIES, LIMIT);
});

afterAll(() => {
  for (const corpus of [withD, withoutD]) {
    corpus?.ctx.close();
    corpus?.project.cleanup();
  }
});

/** Metrics for one configuration, overall and per kind. */
function table(outcomes: readonly QueryOutcome[]): Array<{ kind: string; m: Metrics }> {
  return [{ kind: "all", m: metricsOf(outcomes) }, ...KINDS.map((kind) => ({ kind, m: metricsOf(outcomes.filter((_, i) => QUERIES[i]!.kind === kind)) }))];
}

function summaryLines(): string[] {
  const lines = ["config  kind                  n  R@1    R@10   MRR"];
  for (const [name, outcomes] of [
    ["BM25+D", outcomesD],
    ["BM25  ", outcomesBm25],
  ] as const) {
    for (const { kind, m } of table(outcomes)) {
      lines.push(`${name}  ${kind.padEnd(18)} ${String(m.n).padStart(3)}  ${fmt(m.recallAt1)}  ${fmt(m.recallAt10)}  ${fmt(m.mrr)}`);
    }
  }
  return lines;
}

function goldenText(): string {
  const rank = (o: QueryOutcome) => (o.firstRelevant === null ? "-" : String(o.firstRelevant));
  const out = [
    `mast_search quality benchmark: ${QUERIES.length} queries over test/fixtures/search-corpus, limit ${LIMIT}`,
    "BM25+D = default (declaration_exact_ranker on); BM25 = declaration_exact_ranker false",
    "",
    ...summaryLines(),
    "",
    "Per query: first relevant rank with BM25+D / BM25 only ('-' = not in top 10), then the",
    "BM25+D top 3 (* = relevant; [+...] = methods folded into a class shell).",
  ];
  QUERIES.forEach((q, i) => {
    const d = outcomesD[i]!;
    const b = outcomesBm25[i]!;
    out.push("", `[${q.kind}] ${JSON.stringify(q.query)}  first relevant: ${rank(d)} / ${rank(b)}`);
    d.hits.slice(0, 3).forEach((r, j) => out.push(`  ${j + 1}. ${describeHit(r, q.expected.includes(hitKey(r)))}`));
    if (d.hits.length === 0) out.push("  (no results)");
  });
  return `${out.join("\n")}\n`;
}

describe("mast_search quality benchmark", () => {
  it("has a well-formed query set with at least 15 queries of each kind", () => {
    for (const kind of KINDS) expect(QUERIES.filter((q) => q.kind === kind).length, kind).toBeGreaterThanOrEqual(15);
    expect(new Set(QUERIES.map((q) => q.query)).size).toBe(QUERIES.length);
    for (const q of QUERIES) expect(q.expected.length, q.query).toBeGreaterThan(0);
  });

  it("names only chunks that exist in the index as expected hits", () => {
    const db = withD.ctx.store().db;
    const rows = db.prepare("SELECT f.path AS path, c.symbol_name AS name FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.symbol_name IS NOT NULL").all() as Array<{
      path: string;
      name: string;
    }>;
    const known = new Set(rows.map((r) => `${r.path}:${r.name}`));
    const unknown = QUERIES.flatMap((q) => q.expected.filter((e) => !known.has(e)));
    expect(unknown).toEqual([]);
  });

  it("matches the golden report and prints the summary", () => {
    console.log(`\n${summaryLines().join("\n")}\n`);
    expectGolden("search-quality.txt", goldenText());
  });

  it("keeps the regression floors", () => {
    const d = table(outcomesD);
    const b = table(outcomesBm25);
    const overallD = d.find((t) => t.kind === "all")!.m;
    const overallB = b.find((t) => t.kind === "all")!.m;
    const exactD = d.find((t) => t.kind === "exact_symbol")!.m;
    const r3 = (x: number) => Number(fmt(x));
    expect(r3(overallD.recallAt10), "overall recall@10 with ranker D").toBeGreaterThanOrEqual(FLOORS.overallRecallAt10);
    expect(r3(exactD.recallAt1), "exact-symbol recall@1 with ranker D").toBeGreaterThanOrEqual(FLOORS.exactSymbolRecallAt1);
    expect(overallD.mrr, "MRR with ranker D vs BM25 only").toBeGreaterThanOrEqual(overallB.mrr);
  });
});
