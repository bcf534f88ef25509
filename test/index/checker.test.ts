// The opt-in checker pass (query/checker.ts, docs/call-graph.md#the-checker-pass) on real files and the real compiler:
// a potential match the compiler resolves to the target becomes a verified `checker` edge; one it
// resolves to another declaration, and a mention that is no call, leave the target's potential
// matches and are counted in mast_callers' summary; a rewritten file loses its verdicts; an
// incremental run with the pass equals a full one; a config that cannot be read is skipped by name.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runIndex, type IndexReport } from "../../src/index/run.js";
import { checkerPass } from "../../src/query/checker.js";
import { statePaths } from "../../src/index/state.js";
import { createToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { runMast } from "../helpers/cli.js";
import { tempSpace, type TestProject } from "../helpers/project.js";
import { dumpStore, queryStore } from "../helpers/store-dump.js";
import { RESOLVED } from "../../src/store/edge-codes.js";

const FILES: Record<string, string> = {
  "src/store.ts": [
    "export class Store {",
    "  get(key: string) { return key; }",
    "}",
    "export const cache = {",
    "  get(key: string) { return key.length; },",
    "};",
    "// A factory without a declared return type: only the compiler knows what it makes.",
    "export function makeStore() { return new Store(); }",
    "",
  ].join("\n"),
  "src/app.ts": [
    "import { makeStore, cache } from './store';",
    "export function run() {",
    "  const s = makeStore();",
    "  const c = cache;",
    "  s.get('a');",
    "  c.get('b');",
    "  // s.get is cheap",
    "  return s;",
    "}",
    "",
  ].join("\n"),
};

const space = tempSpace(FILES);

const index = (p: TestProject, mode: "full" | "incremental", checker: boolean, stateDir = join(p.root, ".mast")): Promise<IndexReport> =>
  runIndex(p.config({ stateDir }), { mode, threads: 0, ...(checker ? { checker: checkerPass } : {}) });

async function callers(p: TestProject, symbol: string, file_path = "src/store.ts"): Promise<Record<string, any>> {
  const ctx = createToolContext(p.config({ stateDir: join(p.root, ".mast") }));
  try {
    return (await callTool(ctx, "mast_callers", { symbol, file_path })) as Record<string, any>;
  } finally {
    ctx.close();
  }
}

describe("the checker pass", () => {
  it("verifies a call only the compiler can type, and classifies another declaration's call and a mention away", async () => {
    const p = space.project();
    await index(p, "full", false);
    const plain = await callers(p, "Store.get");
    expect(plain.summary).toMatchObject({ verified_count: 0 });
    expect(plain.summary.checker_classified_non_call_site).toBeUndefined();
    expect(JSON.stringify(plain.potential_matches)).toContain("s.get('a');");

    const report = await index(p, "incremental", true);
    // `s.get` only the compiler can type; `c.get` is an object literal's method, not a symbol mast has.
    expect(report.checker).toMatchObject({ projects: 1, skipped: [], outside_ts_scope: 0, calls_target: 1, edges: 1, resolves_to_different: 1 });
    const checked = await callers(p, "Store.get");
    expect(checked.verified_callers).toEqual([{ file_path: "src/app.ts", resolution: "checker", sites: ["5 run: s.get('a');"] }]);
    // `c.get('b')` is the object literal's, the comment names no call: both leave Store.get's potential matches.
    expect(checked.potential_matches).toEqual([]);
    expect(checked.summary).toMatchObject({ verified_count: 1, potential_count: 0, checker_classified_non_call_site: 1, checker_classified_different_declaration: 1 });
    expect(
      queryStore(
        statePaths(join(p.root, ".mast")).graphDb,
        `SELECT a.name AS caller, b.name AS target, e.call_line AS line FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.resolution = ${RESOLVED.checker} ORDER BY line`,
      ),
    ).toEqual([{ caller: "run", target: "Store.get", line: 5 }]);
  });

  it("drops a rewritten file's verdicts and edges, and an incremental run with the pass equals a full one", async () => {
    const p = space.project();
    await index(p, "full", true);
    p.write("src/app.ts", FILES["src/app.ts"]!.replace("  s.get('a');", "  s.get('a');\n  makeStore().get('again');"));
    // Without the pass, the rewritten file's verdicts and checker edges are gone: its lines are potential again.
    await index(p, "incremental", false);
    expect(queryStore(statePaths(join(p.root, ".mast")).graphDb, "SELECT count(*) AS n FROM checker_verdicts v JOIN files f ON f.id = v.file_id WHERE f.path = 'src/app.ts'")).toEqual([{ n: 0 }]);
    expect((await callers(p, "Store.get")).summary).toMatchObject({ verified_count: 0 });
    await index(p, "incremental", true);
    expect((await callers(p, "Store.get")).verified_callers).toEqual([{ file_path: "src/app.ts", resolution: "checker", sites: ["5 run: s.get('a');", "6 run: makeStore().get('again');"] }]);
    const fresh = space.dir("mast-checker-full-");
    await index(p, "full", true, fresh);
    expect(dumpStore(statePaths(join(p.root, ".mast")).graphDb)).toBe(dumpStore(statePaths(fresh).graphDb));
    // A full run without the pass leaves none of its verdicts, and the answers stop counting them.
    await index(p, "full", false);
    const plain = await callers(p, "Store.get");
    expect(plain.summary.checker_classified_non_call_site).toBeUndefined();
    expect(plain.summary.verified_count).toBe(0);
  });

  it("skips the pass when nothing changed since it last ran, and catches up on what a run without it rewrote", async () => {
    const p = space.project();
    await index(p, "full", true);
    const skipped = await index(p, "incremental", true);
    expect([skipped.checker, skipped.checker_up_to_date]).toEqual([undefined, true]);
    p.write("src/app.ts", FILES["src/app.ts"]!.replace("  s.get('a');", "  s.get('a');\n  s.get('z');"));
    await index(p, "incremental", false);
    expect((await callers(p, "Store.get")).summary).toMatchObject({ verified_count: 0 });
    // Nothing changed since that run, but the pass has not seen its rewrite: it checks the file's lines.
    const caught = await index(p, "incremental", true);
    expect(caught.checker).toMatchObject({ calls_target: 2, edges: 2 });
    expect((await callers(p, "Store.get")).verified_callers).toEqual([{ file_path: "src/app.ts", resolution: "checker", sites: ["5 run: s.get('a');", "6 run: s.get('z');"] }]);
    expect((await index(p, "incremental", true)).checker).toBeUndefined();
  });

  it("runs from the CLI with --checker, or with `checker: true` in mast.config.json", async () => {
    const p = space.project({ ...FILES, "mast.config.json": JSON.stringify({ checker: true }) });
    const r = await runMast(["index", p.root, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).checker).toMatchObject({ projects: 1, calls_target: 1, edges: 1 });
    const plain = space.project();
    const off = await runMast(["index", plain.root, "--json"]);
    expect(JSON.parse(off.stdout).checker).toBeUndefined();
    const flagged = await runMast(["index", plain.root]);
    expect(flagged.stdout).not.toContain("checker:");
    const on = await runMast(["index", plain.root, "--checker"]);
    expect(on.stdout).toMatch(
      /^checker: 1 project\(s\), 5 potential matches checked in [\d.]+ s: 1 verified \(1 edges\), 1 call another declaration, 3 no call, 0 unresolved; outside every analyzer \(outside_ts_scope\): 0$/m,
    );
    const again = await runMast(["index", plain.root, "--incremental", "--checker"]);
    expect(again.stdout).toMatch(/^checker: up to date \(nothing changed since the last pass\)$/m);
  });

  it("keeps a config's traceResolution off stdout: the --json report is the only thing printed", async () => {
    const p = space.project({ ...FILES, "tsconfig.json": '{ "compilerOptions": { "strict": true, "traceResolution": true } }\n' });
    const r = await runMast(["index", p.root, "--json", "--checker"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("Resolving module");
    expect(JSON.parse(r.stdout).checker).toMatchObject({ projects: 1, calls_target: 1, edges: 1 });
  });

  it("checks each tsconfig project with its own program, one at a time, and the files no config includes last", async () => {
    const store = "export class Store {\n  get(key: string) { return key; }\n}\nexport function makeStore() { return new Store(); }\n";
    const p = space.project({
      "packages/a/tsconfig.json": '{ "compilerOptions": { "strict": true }, "include": ["src"] }\n',
      "packages/a/src/store.ts": store,
      "packages/a/src/use-a.ts": "import { makeStore } from './store';\nexport function a() {\n  return makeStore().get('a');\n}\n",
      "packages/b/tsconfig.json": '{ "compilerOptions": { "strict": true }, "include": ["src"] }\n',
      "packages/b/src/use-b.ts": "import { makeStore } from '../../a/src/store';\nexport function b() {\n  return makeStore().get('b');\n}\n",
      "scripts/tool.ts": "import { makeStore } from '../packages/a/src/store';\nexport function tool() {\n  return makeStore().get('c');\n}\n",
      // A solution config: it names the projects and holds no file itself.
      "tsconfig.json": '{ "files": [], "references": [{ "path": "packages/a" }, { "path": "packages/b" }] }\n',
    });
    const report = await index(p, "full", true);
    expect(report.checker).toMatchObject({ projects: 3, calls_target: 3, edges: 3, outside_ts_scope: 0 });
    // scripts/ has the solution as its nearest config, which includes it not: the inferred project checks it.
    expect(report.checker!.skipped).toEqual([{ config: "tsconfig.json", reason: "solution: it only references 2 other project(s), each checked by its own config" }]);
    const answer = await callers(p, "Store.get", "packages/a/src/store.ts");
    expect(answer.verified_callers).toEqual([
      { file_path: "packages/a/src/use-a.ts", resolution: "checker", sites: ["3 a: return makeStore().get('a');"] },
      { file_path: "packages/b/src/use-b.ts", resolution: "checker", sites: ["3 b: return makeStore().get('b');"] },
      { file_path: "scripts/tool.ts", resolution: "checker", sites: ["3 tool: return makeStore().get('c');"] },
    ]);
  });

  it("resolves a workspace package's import to its sources (no node_modules installed): the sibling package's call is verified", async () => {
    const p = space.project({
      "package.json": '{ "private": true, "workspaces": ["packages/*"] }\n',
      "packages/store/package.json": '{ "name": "@shop/store", "main": "dist/index.js", "types": "dist/index.d.ts" }\n',
      "packages/store/tsconfig.json": '{ "compilerOptions": { "strict": true, "outDir": "dist", "rootDir": "src" }, "include": ["src"] }\n',
      "packages/store/src/index.ts": "export class Store {\n  get(key: string) { return key; }\n}\nexport function makeStore() { return new Store(); }\n",
      "packages/app/package.json": '{ "name": "@shop/app", "dependencies": { "@shop/store": "workspace:*" } }\n',
      "packages/app/tsconfig.json": '{ "compilerOptions": { "strict": true, "moduleResolution": "bundler", "module": "esnext" }, "include": ["src"] }\n',
      "packages/app/src/main.ts": "import { makeStore } from '@shop/store';\nexport function main() {\n  return makeStore().get('a');\n}\n",
    });
    const report = await index(p, "full", true);
    expect(report.checker).toMatchObject({ projects: 1, calls_target: 1, edges: 1, unresolved: 0, outside_ts_scope: 0 });
    expect((await callers(p, "Store.get", "packages/store/src/index.ts")).verified_callers).toEqual([
      { file_path: "packages/app/src/main.ts", resolution: "checker", sites: ["3 main: return makeStore().get('a');"] },
    ]);
  });

  it("skips a tsconfig it cannot read, naming it, and keeps the syntactic edges", async () => {
    const p = space.project({
      ...FILES,
      "tsconfig.json": '{ "compilerOptions": { "strict": tru } }\n',
      "src/direct.ts": "import { Store } from './store';\nexport function d(s: Store) { return s.get('x'); }\n",
    });
    const report = await index(p, "full", true);
    expect(report.checker!.skipped).toEqual([{ config: "tsconfig.json", reason: "Compiler option 'strict' requires a value of type boolean." }]);
    // Its files went to the inferred project instead; the parameter-typed call stays verified.
    expect(report.checker!.projects).toBe(1);
    expect((await callers(p, "Store.get")).verified_callers).toEqual([
      { file_path: "src/app.ts", resolution: "checker", sites: ["5 run: s.get('a');"] },
      { file_path: "src/direct.ts", resolution: "parameter_type", sites: ["2 d: export function d(s: Store) { return s.get('x'); }"] },
    ]);
  });
});
