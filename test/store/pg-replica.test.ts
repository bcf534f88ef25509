// A published snapshot's replica (store/pg/replica.ts, index/replicas.ts) against a real
// PostgreSQL: every read tool answers from the replica what it answers from the project's own
// index (the same JSON, query by query, over TypeScript, Python and markdown); the org fan-out
// (tools/org.ts) names each answer's repository and commit, narrows by a repository glob and fuses
// search by rank; a republished commit is served from a new replica; and a store whose rows name a
// path outside the tree is STORE_DAMAGED with nothing written outside the cache.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MastError } from "../../src/base/errors.js";
import { compileGlobs } from "../../src/base/glob.js";
import { publishProject } from "../../src/index/publish.js";
import { syncReplicas } from "../../src/index/replicas.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { orgAnswer, type OrgRepository } from "../../src/tools/org.js";
import { runTool } from "../../src/tools/registry.js";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";
import { startPostgres } from "../helpers/postgres-server.mjs";

let server: Awaited<ReturnType<typeof startPostgres>>;
let url: string;
let admin: pg.Client;
const cleanups: Array<() => void> = [];

const FILES: Record<string, string> = {
  ...BASE_FILES,
  "src/session.ts": [
    "import { AuthService } from './auth.js';",
    "import { Repo } from './repo.js';",
    "",
    "export function openSession(token: string): boolean {",
    "  const auth = new AuthService(new Repo());",
    "  // validate is called once here",
    "  return auth.validate(token);",
    "}",
    "",
  ].join("\n"),
  "py/shapes.py": [
    "class Shape:",
    "    def area(self) -> float:",
    "        return 0.0",
    "",
    "class Square(Shape):",
    "    def __init__(self, side: float):",
    "        self.side = side",
    "",
    "    def area(self) -> float:",
    "        return self.side * self.side",
    "",
    "def total(shapes: list[Shape]) -> float:",
    "    return sum(s.area() for s in shapes)",
    "",
  ].join("\n"),
  "py/main.py": ["from shapes import Square, total", "", "def run() -> float:", "    return total([Square(2.0)])", ""].join("\n"),
};

/** Queries for every read tool the store serves: each answered the same from the replica as from the index. */
const QUERIES: Array<[string, Record<string, unknown>]> = [
  ["mast_search", { query: "validate token" }],
  ["mast_search", { query: "area of a square" }],
  ["mast_search", { query: "Repo" }],
  ["mast_search", { query: "setup" }],
  ["mast_signature", { symbol: "AuthService.validate" }],
  ["mast_signature", { symbol: "total" }],
  ["mast_signature", { symbol: "valdate" }],
  ["mast_exports", { file_path: "src/index.ts" }],
  ["mast_exports", { file_path: "src/auth.ts" }],
  ["mast_callers", { symbol: "AuthService.validate" }],
  ["mast_callers", { symbol: "Repo.find" }],
  ["mast_callers", { symbol: "total" }],
  ["mast_callers", { symbol: "area" }],
  ["mast_implementors", { interface_name: "Shape" }],
  ["mast_implementors", { interface_name: "Repo" }],
  ["mast_rename_impact", { symbol: "Repo" }],
  ["mast_rename_impact", { symbol: "openSession" }],
  ["mast_graph", { symbol: "openSession" }],
  ["mast_graph", { symbol: "Square.area", direction: "callers" }],
];

beforeAll(async () => {
  server = await startPostgres();
  admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  await admin.query("CREATE DATABASE org");
  url = server.url("org");
}, 120_000);

afterAll(async () => {
  await admin?.end();
  await server?.stop();
  for (const c of cleanups.reverse()) c();
});

function project(files: Record<string, string>): TestProject {
  const p = makeProject(files);
  cleanups.push(() => p.cleanup());
  return p;
}

function cacheDir(): string {
  const d = mkdtempSync(join(tmpdir(), "mast-replicas-"));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

function contextOf(ctx: ToolContext): ToolContext {
  cleanups.push(() => ctx.close());
  return ctx;
}

async function answer(ctx: ToolContext, name: string, args: Record<string, unknown>): Promise<unknown> {
  try {
    return (await runTool(ctx, name, args, { telemetry: false })).answer;
  } catch (err) {
    return { error: err instanceof MastError ? err.code : String(err) };
  }
}

describe("a published snapshot's replica", () => {
  let repos: OrgRepository[];

  beforeAll(async () => {
    const api = project(FILES);
    await publishProject(api.config(), { to: url, repository: "github.com/acme/api", commit: "c1" });
    const web = project({ "web/app.ts": "export function validate(input: string): boolean {\n  return input.length > 0;\n}\nexport const ok = validate('x');\n" });
    await publishProject(web.config(), { to: url, repository: "github.com/acme/web", commit: "w1" });
    const synced = await syncReplicas(url, cacheDir(), null, () => {});
    expect(synced.replicas.map((r) => [r.repository, r.commit, r.counts.approximate_chunks])).toEqual([
      ["github.com/acme/api", "c1", 0],
      ["github.com/acme/web", "w1", 0],
    ]);
    repos = synced.replicas.map((r) => ({ repository: r.repository, commit: r.commit, ctx: contextOf({ ...createToolContext(r.config), pinned: true }) }));
    cleanups.push(() => undefined);
    (globalThis as { apiProject?: TestProject }).apiProject = api;
  }, 120_000);

  it("answers every read tool as the project's own index does", async () => {
    const api = (globalThis as { apiProject?: TestProject }).apiProject!;
    const local = contextOf(createToolContext(api.config()));
    const replica = repos[0]!.ctx;
    for (const [name, args] of QUERIES) {
      const want = await answer(local, name, args);
      expect(JSON.stringify(want)).not.toMatch(/^\{"error"/);
      expect({ name, args, answer: await answer(replica, name, args) }).toEqual({ name, args, answer: want });
    }
    // Not vacuous: the queries found what the fixture holds.
    expect(await answer(replica, "mast_callers", { symbol: "AuthService.validate" })).toMatchObject({
      verified_callers: [{ file_path: "src/session.ts", sites: ["7 openSession: return auth.validate(token);"] }],
    });
  });

  it("names each answer's repository and commit, narrows by a glob, and fuses search by rank", async () => {
    const callers = await orgAnswer(repos, "mast_callers", { symbol: "validate" });
    expect((callers["repositories"] as Array<Record<string, unknown>>).map((r) => [r["repository"], r["commit"], (r["declaration"] as { file_path: string }).file_path])).toEqual([
      ["github.com/acme/api", "c1", "src/auth.ts"],
      ["github.com/acme/web", "w1", "web/app.ts"],
    ]);
    const narrowed = await orgAnswer(repos, "mast_signature", { symbol: "validate", repository: "github.com/acme/api" });
    expect(narrowed["repositories_searched"]).toBe(1);
    const search = await orgAnswer(repos, "mast_search", { query: "validate" });
    const results = search["results"] as Array<Record<string, unknown>>;
    expect(results.slice(0, 2).map((r) => [r["repository"], r["rank"]])).toEqual([
      ["github.com/acme/api", 1],
      ["github.com/acme/web", 2],
    ]);
    await expect(orgAnswer(repos, "mast_search", { query: "x", repository: "gitlab.com/*" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    // Asking only the repositories that may declare the name answers as asking each one does.
    for (const [tool, args] of QUERIES.filter(([t]) => t !== "mast_search" && t !== "mast_exports")) {
      const each = [];
      for (const r of repos) {
        const one = await orgAnswer(repos, tool, { ...args, repository: r.repository });
        each.push(...(one["repositories"] as unknown[]));
      }
      expect({ tool, args, found: (await orgAnswer(repos, tool, args))["repositories"] }).toEqual({ tool, args, found: each });
    }
    expect(await orgAnswer(repos, "mast_callers", { symbol: "NoSuchThing" })).toMatchObject({ not_found: true, repositories: [], repositories_searched: 2 });
  });

  it("refuses a snapshot whose rows name a path outside its tree, writing nothing outside the cache", async () => {
    const evil = project({ "a.ts": "export const a = 1;\n" });
    await publishProject(evil.config(), { to: url, repository: "evil", commit: "e1" });
    await admin.query("SELECT 1");
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query("UPDATE mast.snapshot_files SET path = '../../escaped.ts' WHERE snapshot = (SELECT active_snapshot FROM mast.repositories WHERE name = 'evil')");
    await c.end();
    const dir = cacheDir();
    await expect(syncReplicas(url, dir, compileGlobs(["evil"]), () => {})).rejects.toMatchObject({ code: "STORE_DAMAGED" });
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, "..", "escaped.ts"))).toBe(false);
  });
});
