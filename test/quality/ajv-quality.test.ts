// Exact-name search on a second real codebase `npm ci` brings: the TypeScript sources ajv ships
// (node_modules/ajv/lib, pinned by the lockfile), indexed as a project, and its queries of
// name-queries.json (scripts/name-queries.mjs: declarations drawn with the TypeScript compiler —
// functions, Class.method, nested functions). Rank-1 (a declaration of that exact name first) and
// top-5 (its own declaration) per kind are kept in a golden; both at least 97% / 95%.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { expectGolden } from "../helpers/golden.js";
import { makeProject, type TestProject } from "../helpers/project.js";
import { nameFigures, nameReport, readCorpus, runNameQueries, type NameOutcome, type NameQuery } from "./metrics.js";

const AJV_ROOT = dirname(createRequire(import.meta.url).resolve("ajv/package.json"));
const AJV_VERSION = (JSON.parse(readFileSync(join(AJV_ROOT, "package.json"), "utf8")) as { version: string }).version;
const SET = (JSON.parse(readFileSync(join(import.meta.dirname, "name-queries.json"), "utf8")) as { corpora: Array<{ name: string; version: string; queries: NameQuery[] }> }).corpora.find(
  (c) => c.name === "ajv",
)!;
const LIMIT = 10;

let project: TestProject;
let ctx: ToolContext;
let outcomes: NameOutcome[];

beforeAll(async () => {
  project = makeProject(readCorpus(join(AJV_ROOT, "lib"), (p) => p.endsWith(".ts") && !p.endsWith(".d.ts")));
  const config = project.config();
  await runIndex(config, { mode: "full" });
  ctx = createToolContext(config);
  outcomes = await runNameQueries(ctx, SET.queries, LIMIT);
}, 60_000);

afterAll(() => {
  ctx?.close();
  project?.cleanup();
});

describe("exact-name search on ajv", () => {
  it("runs over the ajv version the queries were drawn from", () => {
    expect(AJV_VERSION).toBe(SET.version);
    expect(SET.queries.length).toBeGreaterThanOrEqual(100);
  });

  it("matches the golden report", () => {
    expectGolden("ajv-names-quality.txt", nameReport(`mast_search exact names on ajv@${SET.version} (node_modules/ajv/lib): ${SET.queries.length} queries, limit ${LIMIT}`, SET.queries, outcomes));
  });

  it("answers >= 97% of names with a declaration of that name first, and >= 95% with their own in the top 5", () => {
    const f = nameFigures(SET.queries, outcomes);
    expect(f.rank1).toBeGreaterThanOrEqual(0.97);
    expect(f.top5).toBeGreaterThanOrEqual(0.95);
  });
});
