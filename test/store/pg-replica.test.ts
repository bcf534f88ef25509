// A published snapshot's replica (store/pg/replica.ts, index/replicas.ts) against a real
// PostgreSQL: every read tool answers from the replica what it answers from the project's own
// index (the same JSON, query by query, over TypeScript, Python and markdown); the org fan-out
// (tools/org.ts) names each answer's repository and commit, narrows by a repository glob and fuses
// search by rank; a republished commit is served from a new replica; and a store whose rows name a
// path outside the tree is STORE_DAMAGED: skipped and logged once, nothing written outside the cache.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MastError } from "../../src/base/errors.js";
import { compileGlobs } from "../../src/base/glob.js";
import { publishProject } from "../../src/index/publish.js";
import { syncReplicas } from "../../src/index/replicas.js";
import { openPg } from "../../src/store/pg/client.js";
import { SnapshotGone, writeReplica } from "../../src/store/pg/replica.js";
import { repositoryRelevance } from "../../src/store/pg/search.js";
import { Store } from "../../src/store/store.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { orgAnswer, type OrgRepository } from "../../src/tools/org.js";
import { runTool } from "../../src/tools/registry.js";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";
import { orgStore } from "../helpers/org-store.js";

const cleanups: Array<() => void> = [];

const FILES: Record<string, string> = {
  ...BASE_FILES,
  "package.json": '{ "name": "@acme/api", "main": "src/index.ts" }\n',
  "src/index.ts": ["export * from './auth.js';", "export { Repo as Repository } from './repo';", "export { makeToken } from './tokens.js';", ""].join("\n"),
  // Three exports on one line: their order is the file's (by id), not their names' — what `seq` carries.
  "src/names.ts": "const b = 1, c = 2, a = 3;\nexport { b as zeta, c as alpha, a as mid };\n",
  "src/tokens.ts": "export function makeToken(seed: string): string {\n  return `t-${seed}`;\n}\n",
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
  ["mast_exports", { file_path: "src/names.ts" }],
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

const org = orgStore();
let url: string;
let admin: pg.Client;
beforeAll(() => {
  url = org.url();
  admin = org.admin();
});

afterAll(async () => {
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
    const web = project({
      "web/app.ts": "export function validate(input: string): boolean {\n  return input.length > 0;\n}\nexport const ok = validate('x');\n",
      "web/use.ts": [
        'import { AuthService, Repository } from "@acme/api";',
        'import * as api from "@acme/api";',
        'import { openSession } from "@acme/api/src/session";',
        "",
        "export function check(token: string): boolean {",
        "  return new AuthService(new Repository()).validate(token);",
        "}",
        "",
        "export function again(): string {",
        "  return api.makeToken('s');",
        "}",
        "",
        "export const started = openSession('x');",
        "",
      ].join("\n"),
    });
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
    // Not vacuous: the queries found what the fixture holds, ties in the file's own order.
    expect(((await answer(replica, "mast_exports", { file_path: "src/names.ts" })) as { exports: Array<{ name: string }> }).exports.map((e) => e.name)).toEqual(["zeta", "alpha", "mid"]);
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
    // A narrowed search (the store server's SearchPlan): one rank's results in the store's order of relevance, the repositories not asked named.
    const planned = await orgAnswer(repos, "mast_search", { query: "validate" }, { relevance: { "github.com/acme/web": 1.5, "github.com/acme/api": 0.5 }, notAsked: ["github.com/acme/zz"] });
    expect([(planned["results"] as Array<Record<string, unknown>>).slice(0, 2).map((r) => r["repository"]), planned["not_asked"]]).toEqual([
      ["github.com/acme/web", "github.com/acme/api"],
      { count: 1, repositories: ["github.com/acme/zz"], why: "the store's full-text search ranked them below the 2 asked; pass `repository` to ask them" },
    ]);
    // Of many not asked, the first 20 are named and all counted: the answer stays a context window's share.
    const many = Array.from({ length: 300 }, (_, i) => `github.com/acme/not-asked-${String(i).padStart(3, "0")}`);
    const long = await orgAnswer(repos, "mast_search", { query: "validate" }, { relevance: {}, notAsked: many });
    expect([(long["not_asked"] as { count: number }).count, (long["not_asked"] as { repositories: string[] }).repositories]).toEqual([300, many.slice(0, 20)]);
    expect(Buffer.byteLength(JSON.stringify(long["not_asked"]))).toBeLessThan(1_000);
    // The store's relevance of each repository for a query, from the snapshots the replicas hold.
    const session = await openPg(url, "--store");
    try {
      const snapshots = (await session.query<{ name: string; active_snapshot: string }>("SELECT name, active_snapshot FROM mast.repositories WHERE name LIKE 'github.com/acme/%' ORDER BY name")).map(
        (r) => ({
          repository: r.name,
          snapshot: Number(r.active_snapshot),
        }),
      );
      const ranked = await repositoryRelevance(session, snapshots, "makeToken");
      expect([...ranked.keys()].sort()).toEqual(["github.com/acme/api", "github.com/acme/web"]);
      expect(ranked.get("github.com/acme/api")!).toBeGreaterThan(ranked.get("github.com/acme/web")!);
      expect(await repositoryRelevance(session, snapshots, "zzqqxx")).toEqual(new Map());
    } finally {
      await session.close();
    }
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

  it("lists the calls other repositories make through a package the declaring one provides: verified through its entry, potential through a subpath", async () => {
    const auth = await orgAnswer(repos, "mast_callers", { symbol: "AuthService" });
    const group = (auth["repositories"] as Array<Record<string, unknown>>)[0]!;
    expect([group["repository"], group["cross_repository"], group["cross_repository_callers"]]).toEqual([
      "github.com/acme/api",
      { verified_count: 1, potential_count: 0 },
      [{ repository: "github.com/acme/web", commit: "w1", file_path: "web/use.ts", verified: true, sites: ["6 check: return new AuthService(new Repository()).validate(token);"] }],
    ]);
    // Through a namespace import of the package: `api.makeToken()`.
    const token = await orgAnswer(repos, "mast_callers", { symbol: "makeToken" });
    expect((token["repositories"] as Array<Record<string, unknown>>)[0]!["cross_repository_callers"]).toEqual([
      { repository: "github.com/acme/web", commit: "w1", file_path: "web/use.ts", verified: true, sites: ["10 again: return api.makeToken('s');"] },
    ]);
    const session = await orgAnswer(repos, "mast_callers", { symbol: "openSession" });
    expect((session["repositories"] as Array<Record<string, unknown>>)[0]!["cross_repository_callers"]).toEqual([
      { repository: "github.com/acme/web", commit: "w1", file_path: "web/use.ts", verified: false, sites: ["13 started: export const started = openSession('x');"] },
    ]);
    // A second repository providing the same package (a fork): an import of it no longer proves which one it reaches.
    const fork = project({ "package.json": '{ "name": "@acme/api", "main": "src/index.ts" }\n', "src/index.ts": "export class AuthService {}\n" });
    await publishProject(fork.config(), { to: url, repository: "github.com/acme/fork", commit: "f1" });
    const [forked] = (await syncReplicas(url, cacheDir(), compileGlobs(["github.com/acme/fork"]), () => {})).replicas;
    const withFork = [...repos, { repository: forked!.repository, commit: forked!.commit, ctx: contextOf({ ...createToolContext(forked!.config), pinned: true }) }];
    const both = await orgAnswer(withFork, "mast_callers", { symbol: "AuthService" });
    const api = (both["repositories"] as Array<Record<string, unknown>>).find((g) => g["repository"] === "github.com/acme/api")!;
    expect(api["cross_repository"]).toEqual({ verified_count: 0, potential_count: 1 });
    // A repository that provides no package (web) gets no cross-repository list.
    const validate = await orgAnswer(repos, "mast_callers", { symbol: "validate", repository: "github.com/acme/web" });
    expect(Object.keys((validate["repositories"] as Array<Record<string, unknown>>)[0]!)).not.toContain("cross_repository_callers");
  });

  it("verifies a call into a Python package or a crate another repository provides by the module it is imported from", async () => {
    const shapes = project({
      "pyproject.toml": '[project]\nname = "Acme-Shapes"\n',
      "src/acme_shapes/__init__.py": "from .geometry import area\n",
      "src/acme_shapes/geometry.py": "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n",
      "Cargo.toml": '[package]\nname = "acme-core"\n',
      "src/lib.rs": "pub mod store;\npub use store::db::open_pool;\n",
      "src/store/mod.rs": "pub mod db;\n",
      "src/store/db.rs": "pub fn open_pool(size: usize) -> usize {\n    size\n}\n\npub fn close_pool(size: usize) -> usize {\n    size\n}\n",
    });
    const app = project({
      "app/main.py": [
        "from acme_shapes import area",
        "from acme_shapes.geometry import perimeter",
        "import acme_shapes",
        "",
        "def run():",
        "    a = area(1, 2)",
        "    p = perimeter(1, 2)",
        "    return acme_shapes.area(3, 4) + a + p + acme_shapes.perimeter(5, 6)",
        "",
      ].join("\n"),
      "Cargo.toml": '[package]\nname = "app"\n',
      "src/main.rs": [
        "use acme_core::open_pool;",
        "use acme_core::store::db::close_pool;",
        "",
        "fn main() {",
        "    let n = open_pool(4);",
        "    close_pool(n);",
        // Through the crate's path with no `use`: the crate root and the declaring module.
        "    acme_core::store::db::close_pool(acme_core::open_pool(2));",
        "}",
        "",
      ].join("\n"),
    });
    await publishProject(shapes.config(), { to: url, repository: "github.com/acme/shapes", commit: "s1" });
    await publishProject(app.config(), { to: url, repository: "github.com/acme/app", commit: "a1" });
    const both = (await syncReplicas(url, cacheDir(), compileGlobs(["github.com/acme/{shapes,app}"]), () => {})).replicas.map((r) => ({
      repository: r.repository,
      commit: r.commit,
      ctx: contextOf({ ...createToolContext(r.config), pinned: true }),
    }));
    const crossOf = async (symbol: string) => {
      const group = ((await orgAnswer(both, "mast_callers", { symbol }))["repositories"] as Array<Record<string, unknown>>).find((g) => g["repository"] === "github.com/acme/shapes")!;
      return [group["cross_repository"], group["cross_repository_callers"]];
    };
    const from = { repository: "github.com/acme/app", commit: "a1" };
    // Through the package's __init__ (it re-exports area), by name and through the module imported whole.
    expect(await crossOf("area")).toEqual([
      { verified_count: 2, potential_count: 0 },
      [{ ...from, file_path: "app/main.py", verified: true, sites: ["6 run: a = area(1, 2)", "8 run: return acme_shapes.area(3, 4) + a + p + acme_shapes.perimeter(5, 6)"] }],
    ]);
    // Through the package itself, whose __init__ does not re-export perimeter: potential, never left out.
    expect(await crossOf("perimeter")).toEqual([
      { verified_count: 1, potential_count: 1 },
      [
        { ...from, file_path: "app/main.py", verified: true, sites: ["7 run: p = perimeter(1, 2)"] },
        { ...from, file_path: "app/main.py", verified: false, sites: ["8 run: return acme_shapes.area(3, 4) + a + p + acme_shapes.perimeter(5, 6)"] },
      ],
    ]);
    // The crate root re-exports open_pool; close_pool is reached by its module path.
    const line7 = "7 main: acme_core::store::db::close_pool(acme_core::open_pool(2));";
    expect(await crossOf("open_pool")).toEqual([{ verified_count: 2, potential_count: 0 }, [{ ...from, file_path: "src/main.rs", verified: true, sites: ["5 main: let n = open_pool(4);", line7] }]]);
    expect(await crossOf("close_pool")).toEqual([{ verified_count: 2, potential_count: 0 }, [{ ...from, file_path: "src/main.rs", verified: true, sites: ["6 main: close_pool(n);", line7] }]]);
  });

  it("lists at most 20 repositories' answers, naming the rest, within a context window's bytes", async () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ ...repos[0]!, repository: `github.com/acme/api-${String(i).padStart(2, "0")}` }));
    const answer = await orgAnswer(many, "mast_callers", { symbol: "AuthService.validate" });
    const listed = (answer["repositories"] as Array<{ repository: string }>).map((r) => r.repository);
    expect([listed.length, listed[0], listed[19], answer["truncated"], answer["omitted"], answer["omitted_repositories"], answer["repositories_searched"]]).toEqual([
      20,
      "github.com/acme/api-00",
      "github.com/acme/api-19",
      true,
      5,
      ["github.com/acme/api-20", "github.com/acme/api-21", "github.com/acme/api-22", "github.com/acme/api-23", "github.com/acme/api-24"],
      25,
    ]);
    // One repository's answer is a few hundred bytes; twenty of them stay well inside a context window's share.
    const one = Buffer.byteLength(JSON.stringify((answer["repositories"] as unknown[])[0]));
    expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThan(20 * one + 400);
    expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThan(256 * 1024);
  });

  it("reads a snapshot pruned since it was listed as gone, writing no row", async () => {
    const dir = cacheDir();
    const session = await openPg(url, "--store");
    const store = Store.open(join(dir, "graph.db"));
    try {
      await expect(writeReplica(session, "999999", join(dir, "tree"), store.db)).rejects.toBeInstanceOf(SnapshotGone);
      expect(store.counts()).toEqual({ files: 0, chunks: 0, symbols: 0 });
    } finally {
      store.close();
      await session.close();
    }
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
    const logged: string[] = [];
    const damaged = new Set<string>();
    const synced = await syncReplicas(url, dir, compileGlobs(["evil"]), (line) => logged.push(line), { damaged });
    expect([synced.replicas, synced.built, damaged.size, readdirSync(dir)]).toEqual([[], 0, 1, []]);
    expect(logged).toEqual(['mast serve: evil at e1 not taken up (the published snapshot cannot be read: a file path that is not a plain relative one ("../../escaped.ts"))']);
    // Not tried again, nor logged again, by the next sync.
    await syncReplicas(url, dir, compileGlobs(["evil"]), (line) => logged.push(line), { damaged });
    expect(logged.length).toBe(1);
    // A tree digest that is not one (`/../..`) never names a directory: the repository is skipped, nothing outside the cache is touched.
    const outside = mkdtempSync(join(tmpdir(), "mast-outside-"));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    const cache = join(outside, "cache");
    const c2 = new pg.Client({ connectionString: url });
    await c2.connect();
    await c2.query("UPDATE mast.snapshots SET tree_digest = '/../../../../../../../../../../x' WHERE id = (SELECT active_snapshot FROM mast.repositories WHERE name = 'evil')");
    await c2.end();
    const lines: string[] = [];
    expect((await syncReplicas(url, cache, compileGlobs(["evil"]), (line) => lines.push(line))).replicas).toEqual([]);
    expect([lines, readdirSync(outside)]).toEqual([['mast serve: "evil" not taken up (STORE_DAMAGED: its snapshot\'s id or tree digest is not what mast writes)'], ["cache"]]);
    expect(existsSync(join(dir, "..", "escaped.ts"))).toBe(false);
  });
});
