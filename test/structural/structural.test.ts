// The structural index end to end on a mixed-language project written from text: TypeScript (the
// checker's typecheck tier, or ast), Python (ast), Kotlin and Lua (universal-ctags' symbol-only
// tier, or the regex heuristic tier). Real index runs, the real catalog.sqlite, the Python helper
// run by python3, a SCIP index written by the test's encoder, the HTTP provider on loopback.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkerPass } from "../../src/query/checker.js";
import { buildStructural, indexConfigFor, type BuildOptions } from "../../src/structural/build.js";
import { locate, type Located } from "../../src/structural/locate.js";
import { readManifest } from "../../src/structural/manifest.js";
import { STRUCTURAL_ARGS, queryLocal, queryStructural } from "../../src/structural/query.js";
import { STRUCTURAL_TOOLS } from "../../src/tools/structural.js";
import { structuralServer } from "../../src/structural/serve.js";
import { createToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { encodeScip } from "../helpers/scip-encode.js";
import { makeProject, type TestProject } from "../helpers/project.js";
import { resolveConfig } from "../../src/index/config.js";

const AUTH = [
  "export class AuthService {",
  "  validate(token: string): boolean {",
  "    return check(token);",
  "  }",
  "}",
  "",
  "export function check(token: string): boolean {",
  "  return token.length > 3;",
  "}",
  "",
].join("\n");
const MAIN = [
  'import { AuthService, check } from "./auth.js";',
  "",
  "export function run(t: string): boolean {",
  "  const svc = new AuthService();",
  "  if (!check(t)) return false;",
  "  return svc.validate(t);",
  "}",
  "",
  'run("abcd");',
  "export const alias = check;",
  'import { join } from "node:path";',
  'export const where = (dir: string): string => join(dir, "x");',
  "",
].join("\n");
const TOOL_PY = ["def helper(x):", "    return x * 2", "", "def main():", "    print(helper(3))", ""].join("\n");
const BUILD_KT = ["class Builder {", "    fun build(x: Int): Int {", "        return twice(x) + 1", "    }", "}", "", "fun twice(y: Int): Int {", "    return y * 2", "}", ""].join("\n");
const UTIL_LUA = ["local function double(x)", "  return x * 2", "end", "", "function quad(x)", "  return double(double(x))", "end", ""].join("\n");
const FILES = {
  "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, module: "NodeNext", target: "ES2022", noEmit: true }, include: ["src"] }),
  "src/auth.ts": AUTH,
  "src/main.ts": MAIN,
  "scripts/tool.py": TOOL_PY,
  "scripts/build.kt": BUILD_KT,
  "scripts/util.lua": UTIL_LUA,
};
const hasCtags = spawnSync("ctags", ["--version"], { encoding: "utf8" }).stdout?.startsWith("Universal Ctags") ?? false;

let project: TestProject;
let savedCtags: string | undefined;
beforeEach(() => {
  project = makeProject(FILES);
  savedCtags = process.env.MAST_CTAGS;
  process.env.MAST_CTAGS = "";
});
afterEach(() => {
  if (savedCtags === undefined) delete process.env.MAST_CTAGS;
  else process.env.MAST_CTAGS = savedCtags;
  project.cleanup();
});

const here = (flags: Parameters<typeof locate>[0] = {}): Located => locate(flags, project.root, (root) => resolveConfig(root, {}).state_dir);
const build = (flags: Parameters<typeof locate>[0] = {}, options: BuildOptions = {}) => buildStructural(here(flags), { maxPrecision: "ast", threads: 0, ...options });
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const q = (op: string, args: Record<string, unknown>, located = here()): any => queryLocal(located.layout, op, args);
const idOf = (name: string, located = here()): string => {
  const r = q("resolve_symbol", { name }, located);
  expect(r.total).toBe(1);
  return r.results[0].symbol_id;
};
const sites = (
  answer: { results: { file_path: string; line: number; caller_name?: string | null; callee_name?: string; edge_kind: string; precision: string }[] },
  key: "caller_name" | "callee_name" = "caller_name",
) => answer.results.map((r) => `${r.file_path}:${r.line} ${r[key]} ${r.edge_kind} ${r.precision}`);

describe("mast structural build: tiers, units, catalog", () => {
  it("indexes each partition at its tier and answers the five operations with their exact shapes", async () => {
    const summary = await build();
    expect(summary).toMatchObject({
      reused_index: false,
      snapshot_id: "unknown",
      mode: "mode-off",
      status: "complete",
      units_total: 5,
      units_reused: 0,
      units_rebuilt: 5,
      units_failed: 0,
      units_deferred: 0,
    });
    expect(summary.backends).toEqual({
      typescript: { backend_name: "tree-sitter", backend_version: expect.any(String), precision: "ast" },
      python: { backend_name: "tree-sitter", backend_version: expect.any(String), precision: "ast" },
      kotlin: { backend_name: "regex", backend_version: expect.any(String), precision: "heuristic" },
      lua: { backend_name: "regex", backend_version: expect.any(String), precision: "heuristic" },
    });
    expect(summary.coverage).toEqual({ total_files: 5, indexed_files: 5, failed_files: 0, deferred_files: 0 });
    // Never a write under the code root but the project's state dir.
    expect(readdirSync(project.root).sort()).toEqual([".mast", "scripts", "src", "tsconfig.json"]);

    const check = q("resolve_symbol", { name: "check" });
    expect(check).toMatchObject({ total: 1, ambiguous: false, has_more: false, coverage: { partition_status: "complete", total_files: 5, indexed_files: 5 } });
    expect(check.results[0]).toEqual({
      symbol_id: expect.stringMatching(/^fallback:typescript:src\/auth\.ts:[0-9a-f]{16}$/),
      name: "check",
      qualified_name: "check",
      namespace: "",
      language: "typescript",
      file_path: "src/auth.ts",
      start_line: 7,
      end_line: 9,
      kind: "function",
      signature: "export function check(token: string): boolean",
      precision: "ast",
      backend: "tree-sitter",
    });
    const callers = q("find_callers", { symbol_id: check.results[0].symbol_id });
    expect(sites(callers)).toEqual(["src/auth.ts:3 AuthService.validate direct ast", "src/main.ts:5 run direct ast"]);
    expect(callers).toMatchObject({ total: 2, has_more: false, symbol_found: true, coverage: { partition_status: "complete" } });
    expect(sites(q("find_callers", { symbol_id: idOf("AuthService.validate") }))).toEqual(["src/main.ts:6 run virtual ast"]);
    expect(sites(q("find_callees", { symbol_id: idOf("run") }), "callee_name")).toEqual([
      "src/main.ts:4 AuthService direct ast",
      "src/main.ts:5 check direct ast",
      "src/main.ts:6 validate virtual ast",
    ]);
    // Top-level calls come from the file's <module>; a call no declaration explains is `unresolved`.
    expect(sites(q("find_callees", { symbol_id: idOf("where") }), "callee_name")).toEqual(["src/main.ts:12 join unresolved ast"]);
    const module = q("resolve_symbol", { name: "<module>", file: "src/main.ts" }).results[0].symbol_id;
    expect(sites(q("find_callees", { symbol_id: module }), "callee_name")).toEqual(["src/main.ts:9 run direct ast"]);
    // The regex tier: declarations, blocks, calls resolved by a unique name in the language.
    expect(q("resolve_symbol", { name: "Builder.build" }).results[0]).toMatchObject({
      file_path: "scripts/build.kt",
      start_line: 2,
      end_line: 4,
      kind: "method",
      precision: "heuristic",
      backend: "regex",
    });
    expect(sites(q("find_callers", { symbol_id: idOf("twice") }))).toEqual(["scripts/build.kt:3 Builder.build direct heuristic"]);
    expect(sites(q("find_callers", { symbol_id: idOf("double") }))).toEqual(["scripts/util.lua:6 quad direct heuristic"]);
    expect(q("get_function_boundary", { file: "scripts/util.lua", line: 6 })).toMatchObject({ name: "quad", start_line: 5, end_line: 7, precision: "heuristic", backend: "regex" });
    expect(q("get_function_boundary", { file: "src/auth.ts", line: 3 })).toMatchObject({
      name: "AuthService.validate",
      start_line: 2,
      end_line: 4,
      signature: "validate(token: string): boolean",
      precision: "ast",
      backend: "tree-sitter",
      coverage: { partition_status: "complete", total_files: 1 },
    });
    expect(q("get_function_boundary", { file: "src/main.ts", line: 10 })).toMatchObject({ symbol_id: null, start_line: null, coverage: { partition_status: "complete" } });
    expect(q("get_coverage", {})).toEqual({
      total_files: 5,
      indexed_files: 5,
      failed: 0,
      deferred: 0,
      partition_status: "complete",
      backends_used: ["regex", "tree-sitter"],
      snapshot_id: "unknown",
      stale: false,
      status: "complete",
    });
    expect(q("get_coverage", { language: "lua" })).toMatchObject({ total_files: 1, indexed_files: 1, backends_used: ["regex"] });
    // Every empty answer still says how much was covered.
    expect(q("find_callers", { symbol_id: "fallback:typescript:src/nope.ts:0000000000000000" })).toMatchObject({
      results: [],
      total: 0,
      symbol_found: false,
      coverage: { partition_status: "complete" },
    });
    expect(q("resolve_symbol", { name: "nothing" })).toMatchObject({ results: [], total: 0, ambiguous: false, coverage: { partition_status: "complete" } });
    // Answers are sized for a context window.
    expect(JSON.stringify(callers).length).toBeLessThan(1200);
    expect(JSON.stringify(q("get_coverage", {})).length).toBeLessThan(300);
  });

  it("the ast tier is exactly what mast_callers answers: every verified caller of every TypeScript and Python declaration", async () => {
    const located = here();
    await build();
    const ctx = createToolContext(indexConfigFor(located));
    let counted = 0;
    try {
      for (const name of ["check", "AuthService.validate", "AuthService", "run", "helper", "main"]) {
        const answer = (await callTool(ctx, "mast_callers", { symbol: name, include_potential: false })) as { verified_callers: { file_path: string; sites: string[] }[] };
        // A site is "<line> <caller>: <text>", or "<line>: <text>" at the top level.
        const mast = answer.verified_callers
          .flatMap((v) =>
            v.sites.map((site) => {
              const m = /^(\d+)(?: ([^:]+))?:/.exec(site)!;
              return `${v.file_path}:${m[1]} ${m[2] ?? "<module>"}`;
            }),
          )
          .sort();
        counted += mast.length;
        const structural = q("find_callers", { symbol_id: idOf(name) })
          .results.filter((r: { edge_kind: string }) => r.edge_kind !== "unresolved")
          .map((r: { file_path: string; line: number; caller_name: string }) => `${r.file_path}:${r.line} ${r.caller_name}`)
          .sort();
        expect({ name, structural }).toEqual({ name, structural: mast });
      }
      expect(counted).toBe(6);
    } finally {
      ctx.close();
    }
  });

  it("typecheck: ECMAScript files under a tsconfig form one project unit checked by the compiler", async () => {
    const summary = await build({}, { maxPrecision: "semantic", checker: checkerPass });
    expect(summary.backends.typescript).toMatchObject({ backend_name: "typescript-checker", precision: "typecheck" });
    expect(summary.units_total).toBe(4);
    expect(q("resolve_symbol", { name: "run" }).results[0]).toMatchObject({ precision: "typecheck", backend: "typescript-checker" });
    // The edges the resolver proved keep their tier; the partition's backend is the checker.
    expect(sites(q("find_callers", { symbol_id: idOf("check") }))).toEqual(["src/auth.ts:3 AuthService.validate direct ast", "src/main.ts:5 run direct ast"]);
    // Python's analyzer (scip-python, installed with mast) checked its files too: one project unit at typecheck.
    expect(summary.backends.python).toEqual({ backend_name: "scip-python", backend_version: expect.any(String), precision: "typecheck" });
  });

  it("typecheck asked for, a language's analyzer missing: the language stays at ast and its backend entry says why", async () => {
    const before = process.env.MAST_SCIP_PYTHON;
    process.env.MAST_SCIP_PYTHON = "/nonexistent/scip-python";
    try {
      const summary = await build({}, { maxPrecision: "semantic", checker: checkerPass });
      expect(summary.backends.python).toEqual({
        backend_name: "tree-sitter",
        backend_version: expect.any(String),
        precision: "ast",
        reason: "typecheck unavailable (scip-python): scip-python not found at /nonexistent/scip-python (MAST_SCIP_PYTHON)",
      });
      expect(summary.backends.typescript).toMatchObject({ backend_name: "typescript-checker", precision: "typecheck" });
      expect(q("resolve_symbol", { name: "helper" }).results[0]).toMatchObject({ precision: "ast", backend: "tree-sitter" });
    } finally {
      if (before === undefined) delete process.env.MAST_SCIP_PYTHON;
      else process.env.MAST_SCIP_PYTHON = before;
    }
  });

  it.runIf(hasCtags)("symbol-only: universal-ctags' table with the regex call pass inside its boundaries", async () => {
    delete process.env.MAST_CTAGS;
    const summary = await build();
    expect(summary.backends.kotlin).toMatchObject({ backend_name: "universal-ctags", precision: "symbol-only" });
    expect(q("resolve_symbol", { name: "Builder.build" }).results[0]).toMatchObject({ start_line: 2, end_line: 4, precision: "symbol-only", backend: "universal-ctags" });
    expect(sites(q("find_callers", { symbol_id: idOf("twice") }))).toEqual(["scripts/build.kt:3 Builder.build direct symbol-only"]);
    // Its tags and file list are written to the state root.
    expect(existsSync(join(here().layout.helpers, "tags"))).toBe(true);
  });

  it("coverage-only when no tier is allowed: the manifest says empty and every answer says grep", async () => {
    const summary = await build({}, { maxPrecision: "coverage-only" });
    expect(summary).toMatchObject({ status: "empty", symbols: 0, edges: 0, message: "Structural index is empty — structural context unavailable." });
    expect(q("get_coverage", {})).toMatchObject({ total_files: 5, indexed_files: 0, partition_status: "empty", backends_used: [] });
    expect(q("resolve_symbol", { name: "check" })).toMatchObject({ total: 0, coverage: { partition_status: "empty" } });
  });

  it("units are content-addressed: one changed file rebuilds one unit; MODE-OFF always rebuilds the index but reuses units", async () => {
    expect((await build()).units_reused).toBe(0);
    const again = await build();
    expect(again).toMatchObject({ reused_index: false, units_total: 5, units_reused: 5, units_rebuilt: 0 });
    project.write("scripts/util.lua", `${UTIL_LUA}-- end\n`);
    expect(await build()).toMatchObject({ reused_index: false, units_total: 5, units_reused: 4, units_rebuilt: 1 });
    // A TypeScript body edit that moves no declaration leaves its callers' units alone.
    project.write("src/auth.ts", AUTH.replace("token.length > 3", "token.length > 4"));
    expect(await build()).toMatchObject({ units_total: 5, units_reused: 4, units_rebuilt: 1 });
    const manifest = readManifest(here().layout)!;
    expect(manifest.units).toEqual({ total: 5, reused: 4, rebuild: 1, failed: 0 });
    // A file's unit names its path: two files of equal bytes are two units, each with its own rows.
    project.write("scripts/copy.lua", UTIL_LUA);
    expect(await build()).toMatchObject({ units_total: 6, units_rebuilt: 1, coverage: { total_files: 6, indexed_files: 6 } });
    expect(q("resolve_symbol", { name: "quad" }).results.map((r: { file_path: string }) => r.file_path)).toEqual(["scripts/copy.lua", "scripts/util.lua"]);
  });

  it("a pinned snapshot is reused on a matching snapshot id and rebuilt on another; never built under its root", async () => {
    const state = makeProject({});
    try {
      writeFileSync(join(project.root, ".mantis_snapshot.json"), JSON.stringify({ snapshot_id: "snap-1" }));
      const flags = { snapshotRoot: project.root, stateRoot: state.root };
      expect(here(flags)).toMatchObject({ snapshotId: "snap-1", pinned: true, mode: "pinned" });
      expect(await build(flags)).toMatchObject({ reused_index: false, snapshot_id: "snap-1", mode: "pinned", units_rebuilt: 5 });
      expect(await build(flags)).toMatchObject({ reused_index: true, snapshot_id: "snap-1", units_total: 5 });
      expect(readdirSync(project.root).sort()).toEqual([".mantis_snapshot.json", "scripts", "src", "tsconfig.json"]);
      expect(readManifest(here(flags).layout)).toMatchObject({ snapshot_id: "snap-1", snapshot_pinned: true, stale: false });
      // Another id: rebuilt (its units reused); a snapshot id without a matching sentinel is HALT, marked stale.
      expect(await build({ ...flags, snapshotId: "snap-2" })).toMatchObject({ reused_index: false, mode: "halt", units_reused: 5 });
      expect(readManifest(here(flags).layout)).toMatchObject({ snapshot_id: "snap-2", snapshot_pinned: false, stale: true });
      expect(q("get_coverage", {}, here(flags))).toMatchObject({ snapshot_id: "snap-2", stale: true });
      // A pinned tree's default state root would be inside it: refused.
      expect(() => here({ snapshotRoot: project.root })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
      // The state root's .mantis_state.json names the active snapshot.
      mkdirSync(join(state.root, "workspace"), { recursive: true });
      writeFileSync(join(state.root, "workspace", ".mantis_state.json"), JSON.stringify({ active_snapshot: { snapshot_id: "snap-1", code_root: project.root } }));
      expect(here({ stateRoot: state.root })).toMatchObject({ codeRoot: project.root, snapshotId: "snap-1", pinned: true });
      // The JSONL's provenance header answers when the manifest is gone.
      rmSync(here(flags).layout.manifest);
      expect(await build({ stateRoot: state.root })).toMatchObject({ reused_index: false });
      rmSync(here(flags).layout.manifest);
      expect(await build({ stateRoot: state.root })).toMatchObject({ reused_index: true, snapshot_id: "snap-1" });
    } finally {
      state.cleanup();
    }
  });

  it("a crash before the manifest's rename leaves the previous index; one after it is finished by readers and the next build", async () => {
    await build();
    const layout = here().layout;
    const before = readFileSync(layout.manifest, "utf8");
    project.write("src/extra.ts", 'import { check } from "./auth.js";\nexport function extra(): boolean {\n  return check("x");\n}\n');
    await expect(build({}, { crashAt: "catalog" })).rejects.toThrow("crash injected");
    expect(readFileSync(layout.manifest, "utf8")).toBe(before);
    expect(sites(q("find_callers", { symbol_id: idOf("check") }))).toEqual(["src/auth.ts:3 AuthService.validate direct ast", "src/main.ts:5 run direct ast"]);
    expect(readdirSync(layout.tmp).some((f) => f.startsWith("catalog-"))).toBe(true);
    await expect(build({}, { crashAt: "manifest" })).rejects.toThrow("crash injected");
    // The new manifest is committed; its catalog still sits in tmp/ and is read there.
    expect(sites(q("find_callers", { symbol_id: idOf("check") }))).toEqual(["src/auth.ts:3 AuthService.validate direct ast", "src/extra.ts:3 extra direct ast", "src/main.ts:5 run direct ast"]);
    expect(await build()).toMatchObject({ status: "complete", units_total: 6 });
    expect(readdirSync(layout.tmp)).toEqual([]);
  });

  it("deterministic partial coverage: max_units defers the rest in queue order, and the next build resumes them", async () => {
    mkdirSync(join(project.root, ".mast", "workspace"), { recursive: true });
    writeFileSync(join(project.root, ".mast", "workspace", "plan.json"), JSON.stringify({ target_files: ["scripts/util.lua"] }));
    const first = await build({}, { maxUnits: 2 });
    expect(first).toMatchObject({ status: "partial", units_rebuilt: 2, units_deferred: 3, coverage: { total_files: 5, indexed_files: 2, deferred_files: 3 } });
    const manifest = readManifest(here().layout)!;
    // The plan's target first, then the changed units in unit-id order.
    // The plan's target first, then the changed units in unit-id order.
    expect(manifest.deferred_units.map((d) => [d.unit_id, d.priority, d.reason, d.files])).toEqual([
      ["file:scripts/tool.py", 2, "max_units (2)", ["scripts/tool.py"]],
      ["file:src/auth.ts", 2, "max_units (2)", ["src/auth.ts"]],
      ["file:src/main.ts", 2, "max_units (2)", ["src/main.ts"]],
    ]);
    expect(q("resolve_symbol", { name: "quad" }).total).toBe(1);
    expect(q("get_coverage", { file: "src/auth.ts" })).toMatchObject({ partition_status: "partial", indexed_files: 0, deferred: 1 });
    expect(q("get_coverage", {})).toMatchObject({ partition_status: "partial", deferred: 3 });
    const second = await build({}, { maxUnits: 2 });
    expect(second).toMatchObject({ status: "partial", units_reused: 2, units_rebuilt: 2, units_deferred: 1 });
    expect(await build({}, { maxUnits: 2 })).toMatchObject({ status: "complete", units_reused: 4, units_rebuilt: 1, units_deferred: 0 });
  });

  it("shards past the thresholds, routed by the manifest: the same answers as one catalog", async () => {
    await build();
    const ops: [string, Record<string, unknown>][] = [
      ["resolve_symbol", { name: "check" }],
      ["find_callers", { symbol_id: idOf("check") }],
      ["find_callees", { symbol_id: idOf("run") }],
      ["get_function_boundary", { file: "scripts/util.lua", line: 2 }],
      ["get_coverage", {}],
    ];
    const whole = ops.map(([op, args]) => q(op, args));
    await build({}, { shardSymbols: 3 });
    const manifest = readManifest(here().layout)!;
    expect(manifest.shards.length).toBeGreaterThan(1);
    expect(manifest.shards.every((s) => /^shards\/shard_\d{4}\.sqlite$/.test(s.path) && /^lang:[a-z]+:bucket:\d{2}$/.test(s.partition_key) && existsSync(join(here().layout.dir, s.path)))).toBe(true);
    expect(manifest.shards.reduce((n, s) => n + s.symbol_count, 0)).toBe(manifest.counts.symbols);
    expect(ops.map(([op, args]) => q(op, args))).toEqual(whole);
  });

  it("the compatibility JSONL: a full export under the threshold (queries fall back to it), the header alone above", async () => {
    await build();
    const layout = here().layout;
    const lines = readFileSync(layout.jsonl, "utf8").trim().split("\n");
    expect(JSON.parse(lines[0]!)).toMatchObject({ _provenance: true, snapshot_id: "unknown", full_export: true });
    expect(
      lines
        .slice(1)
        .map((l) => JSON.parse(l)._type)
        .filter((t) => t === "call_edge").length,
    ).toBe(readManifest(layout)!.counts.edges);
    const ops: [string, Record<string, unknown>][] = [
      ["resolve_symbol", { name: "check" }],
      ["find_callers", { symbol_id: idOf("check") }],
      ["find_callees", { symbol_id: idOf("quad") }],
      ["get_function_boundary", { file: "src/auth.ts", line: 8 }],
    ];
    const fromCatalog = ops.map(([op, args]) => q(op, args));
    rmSync(layout.catalog);
    rmSync(layout.manifest);
    const fromJsonl = ops.map(([op, args]) => q(op, args));
    const withoutCoverage = (list: Record<string, unknown>[]) => list.map(({ coverage: _c, ...rest }) => rest);
    expect(withoutCoverage(fromJsonl)).toEqual(withoutCoverage(fromCatalog));
    rmSync(layout.jsonl);
    expect(q("find_callers", { symbol_id: "x" })).toMatchObject({ results: [], coverage: { partition_status: "empty" } });
    const big = await build({}, { jsonlThreshold: 3 });
    expect(readFileSync(layout.jsonl, "utf8").trim().split("\n")).toHaveLength(1);
    expect(readManifest(layout)!.compat_pointer).toEqual({ path: "../structural_index.jsonl", full_export: false, symbol_count: big.symbols });
  });

  it("baseline + overlay: only the units whose output differs are built; the overlay supersedes the baseline per file", async () => {
    const ci = makeProject({});
    try {
      // The baseline, as CI builds it, for the committed tree.
      const base = await build({ stateRoot: ci.root, snapshotId: "base" });
      expect(base).toMatchObject({ provider: "local-build", units_total: 5 });
      const baseManifest = here({ stateRoot: ci.root }).layout.manifest;
      // Locally: a line added above run's calls, a file gone, a file added.
      project.write("src/main.ts", `// moved\n${MAIN}`);
      project.remove("scripts/tool.py");
      project.write("scripts/more.lua", "function twice_quad(x)\n  return quad(quad(x))\nend\n");
      const overlay = await build({}, { baseline: baseManifest });
      expect(overlay).toMatchObject({ provider: "baseline+overlay", status: "complete", units_total: 5, units_reused: 3, units_rebuilt: 2, coverage: { total_files: 5, indexed_files: 5 } });
      const manifest = readManifest(here().layout)!;
      expect(manifest.baseline).toEqual({ source: "ci", snapshot_id: "base", manifest_path: baseManifest, build_id: readManifest(here({ stateRoot: ci.root }).layout)!.build_id });
      expect(manifest.overlay).toEqual({ units_added: 1, units_modified: 1, files: ["scripts/more.lua", "scripts/tool.py", "src/main.ts"] });
      // The local catalog holds the overlay's rows only.
      expect(new Set(q("resolve_symbol", { name: "run" }).results.map((r: { file_path: string }) => r.file_path))).toEqual(new Set(["src/main.ts"]));
      // Answers merge both layers: the baseline's auth.ts, the overlay's main.ts, never the baseline's stale main.ts or deleted tool.py.
      expect(sites(q("find_callers", { symbol_id: idOf("check") }))).toEqual(["src/auth.ts:3 AuthService.validate direct ast", "src/main.ts:6 run direct ast"]);
      expect(q("resolve_symbol", { name: "helper" })).toMatchObject({ total: 0 });
      expect(sites(q("find_callers", { symbol_id: idOf("quad") }))).toEqual(["scripts/more.lua:2 twice_quad direct heuristic"]);
      expect(q("get_function_boundary", { file: "src/main.ts", line: 5 })).toMatchObject({ name: "run", start_line: 4, end_line: 8 });
      expect(q("get_coverage", {})).toMatchObject({ total_files: 5, indexed_files: 5, partition_status: "complete" });
      // The Python helper merges them the same way.
      for (const [op, args] of [
        ["find_callers", { symbol_id: idOf("check") }],
        ["resolve_symbol", { name: "helper" }],
        ["get_coverage", {}],
        ["get_function_boundary", { file: "src/main.ts", line: 5 }],
      ] as const) {
        const run = spawnSync("python3", [here().layout.queryHelper, op, JSON.stringify(args)], { encoding: "utf8" });
        expect({ op, answer: JSON.parse(run.stdout) }).toEqual({ op, answer: q(op, args as Record<string, unknown>) });
      }
      // A baseline that is not a published index is refused.
      await expect(build({}, { baseline: join(ci.root, "nope") })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    } finally {
      ci.cleanup();
    }
  });

  it("a file no backend can read is a failed coverage row, never silently absent", async () => {
    project.write("mast.config.json", JSON.stringify({ max_file_bytes: 1000 }));
    project.write("src/huge.ts", `export const big = "${"x".repeat(2000)}";\n`);
    project.write("scripts/blob.sh", Buffer.from([0x23, 0x21, 0x00, 0x0a]));
    const summary = await build();
    expect(summary).toMatchObject({ status: "partial", coverage: { total_files: 7, indexed_files: 5, failed_files: 2 } });
    expect(q("get_coverage", { file: "src/huge.ts" })).toMatchObject({ total_files: 1, indexed_files: 0, failed: 1, partition_status: "failed" });
    expect(q("get_coverage", { file: "scripts/blob.sh" })).toMatchObject({ failed: 1, partition_status: "failed" });
    expect(q("get_coverage", {})).toMatchObject({ partition_status: "partial" });
  });

  it("one state root follows a pinned snapshot to another directory, reusing its units", async () => {
    const state = makeProject({});
    const copy = makeProject(FILES);
    try {
      for (const [root, id] of [
        [project.root, "s1"],
        [copy.root, "s2"],
      ] as const)
        writeFileSync(join(root, ".mantis_snapshot.json"), JSON.stringify({ snapshot_id: id }));
      expect(await build({ snapshotRoot: project.root, stateRoot: state.root })).toMatchObject({ snapshot_id: "s1", units_rebuilt: 5 });
      expect(await build({ snapshotRoot: copy.root, stateRoot: state.root })).toMatchObject({ snapshot_id: "s2", mode: "pinned", units_reused: 5, units_rebuilt: 0 });
      expect(readManifest(here({ stateRoot: state.root }).layout)).toMatchObject({ code_root: copy.root });
    } finally {
      state.cleanup();
      copy.cleanup();
    }
  });

  it("locators: the orchestrator's snapshot_pinned pins; a snapshot's tree is never written under, through a symlink neither", async () => {
    const state = makeProject({});
    try {
      mkdirSync(join(state.root, "workspace"), { recursive: true });
      writeFileSync(join(state.root, "workspace", ".mantis_state.json"), JSON.stringify({ active_snapshot: { snapshot_id: "S1", code_root: project.root }, snapshot_pinned: true }));
      expect(here({ stateRoot: state.root })).toMatchObject({ snapshotId: "S1", pinned: true, mode: "pinned" });
      // A snapshot id without a state root outside the tree: the default (inside it) is refused.
      expect(() => here({ snapshotRoot: project.root, snapshotId: "S1" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
      symlinkSync(project.root, join(state.root, "link"));
      expect(() => here({ snapshotRoot: join(state.root, "link"), snapshotId: "S1", stateRoot: join(state.root, "link", ".st") })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
      // The default state root's state file is read too.
      mkdirSync(join(project.root, ".mast", "workspace"), { recursive: true });
      writeFileSync(join(project.root, ".mast", "workspace", ".mantis_state.json"), JSON.stringify({ active_snapshot: "S9" }));
      expect(() => here()).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    } finally {
      state.cleanup();
    }
  });

  it("a header-only export never stands in for a lost catalog; reuse needs the catalog it names", async () => {
    const state = makeProject({});
    try {
      writeFileSync(join(project.root, ".mantis_snapshot.json"), JSON.stringify({ snapshot_id: "s1" }));
      const flags = { snapshotRoot: project.root, stateRoot: state.root };
      await build(flags, { jsonlThreshold: 3 });
      rmSync(here(flags).layout.catalog);
      expect(q("resolve_symbol", { name: "check" }, here(flags))).toMatchObject({ total: 0, coverage: { partition_status: "empty" } });
      expect(await build(flags)).toMatchObject({ reused_index: false, status: "complete" });
      expect(await build(flags)).toMatchObject({ reused_index: true });
    } finally {
      state.cleanup();
    }
  });

  it("bounds always progress, and coverage follows each file's language and every language that can call", async () => {
    expect(await build({}, { maxSourceBytes: 10 })).toMatchObject({ units_rebuilt: 1, status: "partial" });
    while ((await build({}, { maxSourceBytes: 10 })).status !== "complete");
    project.write("src/z.js", 'import { check } from "./auth.js";\nexport function z() {\n  return check("z");\n}\n');
    project.write("scripts/tool.py", `${TOOL_PY}# again\n`);
    expect(await build({}, { maxUnits: 1 })).toMatchObject({ units_rebuilt: 1, units_deferred: 1 });
    // check is TypeScript; its callers may be JavaScript: a deferred JavaScript file makes the answer partial.
    const answer = q("find_callers", { symbol_id: idOf("check") });
    expect(answer.coverage.partition_status).toBe("partial");
    while ((await build({}, { maxUnits: 2 })).status !== "complete");
    expect(q("get_coverage", { language: "javascript" })).toMatchObject({ total_files: 1, indexed_files: 1 });
    expect(q("get_coverage", { language: "%" })).toMatchObject({ total_files: 0 });
    expect(sites(q("find_callers", { symbol_id: idOf("check") }))).toEqual(["src/auth.ts:3 AuthService.validate direct ast", "src/main.ts:5 run direct ast", "src/z.js:3 z direct ast"]);
  });

  it("an overlay rebuilds the fallback-tier callers of a file it changes; a lost baseline is never complete", async () => {
    const ci = makeProject({});
    try {
      await build({ stateRoot: ci.root, snapshotId: "base" });
      const baseManifest = here({ stateRoot: ci.root }).layout.manifest;
      project.write("scripts/util.lua", `-- moved\n${UTIL_LUA}`);
      project.write("scripts/more.lua", "function octo(x)\n  return double(x)\nend\n");
      await build({}, { baseline: baseManifest });
      expect(sites(q("find_callers", { symbol_id: idOf("double") }))).toEqual(["scripts/more.lua:2 octo direct heuristic", "scripts/util.lua:7 quad direct heuristic"]);
      rmSync(here({ stateRoot: ci.root }).layout.catalog);
      expect(q("get_coverage", {}).partition_status).toBe("partial");
      const run = spawnSync("python3", [here().layout.queryHelper, "get_coverage", "{}"], { encoding: "utf8" });
      expect(JSON.parse(run.stdout).partition_status).toBe("partial");
    } finally {
      ci.cleanup();
    }
  });

  it.runIf(hasCtags)("a file ctags finds nothing in is read by the regex pass and says so; a failed ctags run is never cached", async () => {
    delete process.env.MAST_CTAGS;
    project.write("scripts/tool.zig", "fn beta(x: i32) i32 {\n    return gamma(x);\n}\nfn gamma(x: i32) i32 {\n    return x;\n}\n");
    await build();
    expect(q("resolve_symbol", { name: "gamma" }).results[0]).toMatchObject({ backend: "regex", precision: "heuristic" });
    expect(sites(q("find_callers", { symbol_id: idOf("gamma") }))).toEqual(["scripts/tool.zig:2 beta direct heuristic"]);
    // A ctags that answers its probes and then fails: the regex output is not stored under ctags' key.
    const fake = join(project.root, "..", `fake-ctags-${process.pid}.sh`);
    writeFileSync(fake, '#!/bin/sh\ncase "$1" in --version) echo "Universal Ctags 9.9.9";; --list-features) echo "json";; *) exit 1;; esac\n', { mode: 0o755 });
    try {
      process.env.MAST_CTAGS = fake;
      project.write("scripts/build.kt", `${BUILD_KT}// again\n`);
      await build();
      expect(q("resolve_symbol", { name: "twice" }).results[0]).toMatchObject({ backend: "regex" });
      delete process.env.MAST_CTAGS;
      await build();
      // Rebuilt with the real ctags, not reused from the failed run.
      expect(q("resolve_symbol", { name: "twice" }).results[0]).toMatchObject({ backend: "universal-ctags", precision: "symbol-only" });
    } finally {
      rmSync(fake, { force: true });
    }
  });

  it("bad arguments are named errors", async () => {
    await build();
    expect(() => q("find_everything", {})).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => q("find_callers", {})).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: "symbol_id is required" }));
    expect(() => q("find_callers", { symbol_id: "x", limit: 0 })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => q("resolve_symbol", { name: "x", colour: "red" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => q("get_function_boundary", { file: "src/auth.ts" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: "line is required" }));
  });

  it("pagination is bounded: limit, offset, has_more and total", async () => {
    project.write("src/many.ts", `import { check } from "./auth.js";\n${Array.from({ length: 7 }, (_, i) => `export function f${i}(): boolean {\n  return check("${i}");\n}\n`).join("")}`);
    await build();
    const id = idOf("check");
    const first = q("find_callers", { symbol_id: id, limit: 4 });
    expect(first).toMatchObject({ total: 9, has_more: true });
    expect(first.results).toHaveLength(4);
    const rest = q("find_callers", { symbol_id: id, limit: 4, offset: 8 });
    expect(rest).toMatchObject({ total: 9, has_more: false });
    expect(sites(rest)).toEqual(["src/many.ts:21 f6 direct ast"]);
  });
});

describe("the Python helper and the remote provider answer like the Node query", () => {
  const OPS = (id: (n: string) => string): [string, Record<string, unknown>][] => [
    ["resolve_symbol", { name: "check" }],
    ["resolve_symbol", { name: "main", language: "python" }],
    ["find_callers", { symbol_id: id("check") }],
    ["find_callers", { symbol_id: id("double"), limit: 1, offset: 0 }],
    ["find_callees", { symbol_id: id("run") }],
    ["get_function_boundary", { file: "src/auth.ts", line: 3 }],
    ["get_function_boundary", { file: "scripts/tool.py", line: 99 }],
    ["get_coverage", {}],
    ["get_coverage", { file: "scripts/build.kt" }],
  ];

  const python = (helper: string, op: string, args: unknown) => {
    const run = spawnSync("python3", [helper, op, JSON.stringify(args)], { encoding: "utf8" });
    return { code: run.status, answer: JSON.parse(run.stdout) as unknown };
  };
  // Asynchronous, so the server in this process can answer it.
  const pythonAsync = (helper: string, op: string, args: unknown) =>
    new Promise<unknown>((resolve, reject) => execFile("python3", [helper, op, JSON.stringify(args)], { encoding: "utf8" }, (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout)))));

  it("takes the arguments structural/query.ts lists, as the MCP tools' schemas do", () => {
    // The helper is a standalone script (it runs where no Node does): its list is checked, not derived.
    const source = join(import.meta.dirname, "../../src/structural/query_structural_index.py");
    const read = spawnSync("python3", ["-c", "import json, runpy, sys; print(json.dumps(runpy.run_path(sys.argv[1])['KNOWN_ARGS']))", source], { encoding: "utf8" });
    expect(read.status).toBe(0);
    const ours = Object.fromEntries(Object.entries(STRUCTURAL_ARGS).map(([op, args]) => [op, Object.keys(args)]));
    expect(JSON.parse(read.stdout)).toEqual(ours);
    expect(ours.get_function_boundary).toEqual(["file", "line"]);
    for (const tool of STRUCTURAL_TOOLS) expect({ tool: tool.name, args: Object.keys((tool.input as unknown as { shape: object }).shape) }).toEqual({ tool: tool.name, args: ours[tool.name] });
  });

  it("every operation, over the catalog, over shards and over the JSONL fallback; the helper is regenerated when its marker differs", async () => {
    await build();
    const layout = here().layout;
    const helper = layout.queryHelper;
    expect(readFileSync(helper, "utf8").split("\n", 1)[0]).toBe("# MANTIS_HELPER_VERSION = 5");
    for (const [op, args] of OPS((n) => idOf(n))) expect({ op, args, answer: python(helper, op, args).answer }).toEqual({ op, args, answer: q(op, args) });
    await build({}, { shardSymbols: 3 });
    for (const [op, args] of OPS((n) => idOf(n))) expect({ op, args, answer: python(helper, op, args).answer }).toEqual({ op, args, answer: q(op, args) });
    rmSync(layout.catalog);
    rmSync(layout.shards, { recursive: true });
    rmSync(layout.manifest);
    for (const [op, args] of OPS(() => "fallback:x")) {
      if (op === "get_coverage") continue;
      expect({ op, args, answer: python(helper, op, args).answer }).toEqual({ op, args, answer: q(op, args) });
    }
    expect(python(helper, "find_callers", {})).toEqual({ code: 2, answer: { error: { code: "INVALID_ARGUMENT", message: "symbol_id is required" } } });
    writeFileSync(helper, "# MANTIS_HELPER_VERSION = 4\nprint('old')\n");
    await build();
    expect(readFileSync(helper, "utf8").split("\n", 1)[0]).toBe("# MANTIS_HELPER_VERSION = 5");
  });

  it("mast structural serve answers the same operations, and MANTIS_STRUCTURAL_INDEX_URL routes both clients to it", async () => {
    await build();
    const layout = here().layout;
    const server = structuralServer((op, args) => queryLocal(layout, op, args));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as { port: number }).port;
    const saved = process.env.MANTIS_STRUCTURAL_INDEX_URL;
    try {
      // A remote client with an empty local state root answers from the server.
      const elsewhere = makeProject({});
      const remote = locate({ stateRoot: elsewhere.root, targetRoot: project.root }, project.root, () => elsewhere.root).layout;
      process.env.MANTIS_STRUCTURAL_INDEX_URL = `http://127.0.0.1:${port}`;
      for (const [op, args] of OPS((n) => idOf(n))) {
        const local = q(op, args);
        expect(await queryStructural(remote, op, args)).toEqual(local);
        expect(await pythonAsync(join(layout.helpers, "query_structural_index.py"), op, args)).toEqual(local);
      }
      await expect(queryStructural(remote, "find_callers", { symbol_id: 3 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      const response = await fetch(`http://127.0.0.1:${port}/v1/find_callers`, { method: "POST", body: "{" });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("INVALID_ARGUMENT");
      elsewhere.cleanup();
    } finally {
      if (saved === undefined) delete process.env.MANTIS_STRUCTURAL_INDEX_URL;
      else process.env.MANTIS_STRUCTURAL_INDEX_URL = saved;
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe("SCIP ingestion", () => {
  const pkg = "scip-typescript npm fixture 1.0.0";
  const AUTH_SYM = `${pkg} src/\`auth.ts\`/`;
  const MAIN_SYM = `${pkg} src/\`main.ts\`/`;
  const scip = () =>
    encodeScip({ name: "scip-typescript", version: "0.3.15" }, "file:///fixture", [
      {
        path: "src/auth.ts",
        language: "TypeScript",
        occurrences: [
          { range: [0, 13, 24], symbol: `${AUTH_SYM}AuthService#`, roles: 1, enclosing: [0, 0, 4, 1] },
          { range: [1, 2, 10], symbol: `${AUTH_SYM}AuthService#validate().`, roles: 1, enclosing: [1, 2, 3, 3] },
          { range: [2, 11, 16], symbol: `${AUTH_SYM}check().` },
          { range: [6, 16, 21], symbol: `${AUTH_SYM}check().`, roles: 1, enclosing: [6, 0, 8, 1] },
          { range: [6, 22, 27], symbol: "local 0", roles: 1 },
        ],
      },
      {
        path: "src/main.ts",
        language: "TypeScript",
        occurrences: [
          { range: [0, 9, 20], symbol: `${AUTH_SYM}AuthService#`, roles: 2 },
          { range: [0, 22, 27], symbol: `${AUTH_SYM}check().`, roles: 2 },
          { range: [2, 16, 19], symbol: `${MAIN_SYM}run().`, roles: 1, enclosing: [2, 0, 6, 1] },
          { range: [3, 18, 29], symbol: `${AUTH_SYM}AuthService#` },
          { range: [4, 7, 12], symbol: `${AUTH_SYM}check().` },
          { range: [5, 13, 21], symbol: `${AUTH_SYM}AuthService#validate().` },
          { range: [8, 12, 15], symbol: `${MAIN_SYM}run().` },
          { range: [9, 21, 26], symbol: `${AUTH_SYM}check().` },
        ],
      },
    ]);

  const attach = (provenance: unknown, bytes: Buffer = scip()) => {
    const dir = join(here().layout.native, "scip");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "index.scip"), bytes);
    writeFileSync(join(dir, "provenance.json"), JSON.stringify(provenance));
  };

  it("a matching SCIP index is ingested at semantic precision; calls are direct, references indirect", async () => {
    await build();
    attach([
      {
        kind: "scip",
        path: "index.scip",
        root_fingerprint: readManifest(here().layout)!.root_fingerprint,
        language: "typescript",
        indexer: "scip-typescript",
        precision: "semantic",
        files: ["src/auth.ts", "src/main.ts"],
      },
    ]);
    const summary = await build({}, { maxPrecision: "semantic" });
    expect(summary.backends.typescript).toEqual({ backend_name: "scip-typescript", backend_version: "0.3.15", precision: "semantic" });
    expect(summary.native_indexes).toEqual([{ kind: "scip", path: "index.scip", language: "typescript", indexer: "scip-typescript", precision: "semantic", ingested: true }]);
    const check = q("resolve_symbol", { name: "check" });
    expect(check.results[0]).toMatchObject({
      symbol_id: `scip:${AUTH_SYM}check().`,
      file_path: "src/auth.ts",
      start_line: 7,
      end_line: 9,
      kind: "function",
      precision: "semantic",
      backend: "scip-typescript",
    });
    expect(sites(q("find_callers", { symbol_id: `scip:${AUTH_SYM}check().` }))).toEqual([
      "src/auth.ts:3 AuthService.validate direct semantic",
      "src/main.ts:5 run direct semantic",
      "src/main.ts:10 <module> indirect semantic",
    ]);
    expect(sites(q("find_callers", { symbol_id: `scip:${AUTH_SYM}AuthService#validate().` }))).toEqual(["src/main.ts:6 run direct semantic"]);
    // A type's reference is a call where the index saw it constructed, and nowhere else.
    expect(sites(q("find_callers", { symbol_id: `scip:${AUTH_SYM}AuthService#` }))).toEqual(["src/main.ts:4 run direct semantic"]);
    expect(q("get_coverage", { language: "typescript" })).toMatchObject({ total_files: 2, indexed_files: 2, backends_used: ["scip-typescript"], partition_status: "complete" });
    // The other partitions stay at their tiers.
    expect(q("resolve_symbol", { name: "helper" }).results[0]).toMatchObject({ precision: "ast" });
  });

  it("an index for another snapshot is ignored; one that cannot be ingested is recorded and its files deferred", async () => {
    attach([{ kind: "scip", path: "index.scip", snapshot_id: "other", language: "typescript", indexer: "scip-typescript", files: ["src/auth.ts"] }]);
    expect((await build({}, { maxPrecision: "semantic" })).native_indexes).toEqual([]);
    attach([{ kind: "lsif", path: "index.scip", root_fingerprint: readManifest(here().layout)!.root_fingerprint, language: "typescript", indexer: "lsif-tsc", files: ["src/auth.ts"] }]);
    const summary = await build({}, { maxPrecision: "semantic" });
    expect(summary.native_indexes).toEqual([
      { kind: "lsif", path: "index.scip", language: "typescript", indexer: "lsif-tsc", precision: "deferred", ingested: false, reason: "lsif indexes are recorded, not ingested" },
    ]);
    expect(summary.status).toBe("partial");
    expect(q("get_coverage", { file: "src/auth.ts" })).toMatchObject({ total_files: 1, indexed_files: 0, deferred: 1, partition_status: "partial", backends_used: ["lsif-tsc"] });
    expect(q("resolve_symbol", { name: "check" })).toMatchObject({ total: 0, coverage: { partition_status: "partial" } });
    // A corrupt SCIP file is recorded with its reason, never trusted.
    const fingerprint = readManifest(here().layout)!.root_fingerprint;
    attach([{ kind: "scip", path: "index.scip", root_fingerprint: fingerprint, indexer: "scip-typescript", files: ["src/auth.ts"] }], Buffer.from([0x12, 0xff, 0x01]));
    expect((await build({}, { maxPrecision: "semantic" })).native_indexes[0]).toMatchObject({ ingested: false, precision: "deferred", reason: expect.stringContaining("cannot read index.scip") });
  });
});
