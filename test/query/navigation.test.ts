// The navigation tools through the registry against a real index: skeleton scoping, caps and budget,
// exports with re-exports, signatures with params and type_context (same file, imports,
// barrels, truncation), dependencies, reindex figures, and the JIT refresh contract of docs/freshness.md#the-just-in-time-refresh.
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { Store } from "../../src/store/store.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { TOOLS, callTool } from "../../src/tools/registry.js";
import { makeProject, type TestProject } from "../helpers/project.js";
import { docSummary, projectSkeleton } from "../../src/query/navigation.js";
import { wireBytes } from "../../src/base/budget.js";
import { syntheticProject } from "../helpers/synthetic-project.js";

const bigInterface = ["export interface Big {", ...Array.from({ length: 60 }, (_, i) => `  f${i}: number;`), "}", ""].join("\n");

const FILES: Record<string, string> = {
  "src/types.ts": ["/** A login attempt. */", "export interface LoginRequest {", "  email: string;", "  password: string;", "}", "", bigInterface].join("\n"),
  "src/auth/handler.ts": [
    "import { LoginRequest, Big } from '../types.js';",
    "import express from 'express';",
    "",
    "export type Reply = { ok: boolean };",
    "",
    "/** Validates credentials. */",
    "export async function handleLogin(req: LoginRequest, big: Big, opts?: Reply): Promise<Reply> {",
    "  return { ok: req.email.length > 0 };",
    "}",
    "",
    "function hidden(): void {}",
    "",
  ].join("\n"),
  "src/auth/index.ts": ["export * from './handler.js';", "export { LoginRequest as Credentials } from '../types.js';", ""].join("\n"),
  "src/deep/a/b/c.ts": "export const deep = 1;\n",
  "README.md": "# Readme\n",
};

let project: TestProject;
let ctx: ToolContext;
const call = (name: string, args: Record<string, unknown>) => callTool(ctx, name, args) as Promise<any>;

beforeAll(async () => {
  project = makeProject(FILES);
  await runIndex(project.config(), { mode: "full" });
  ctx = createToolContext(project.config());
});
afterAll(() => {
  ctx.close();
  project.cleanup();
});

describe("mast_project_skeleton", () => {
  it("lists exported top-level names per file", async () => {
    const r = await call("mast_project_skeleton", {});
    expect(r.files).toEqual([
      // A file exporting nothing is listed by its path.
      { file_path: "README.md" },
      { file_path: "src/auth/handler.ts", exports: ["Reply", "handleLogin"] },
      // A barrel lists the names it re-exports one by one (`export *` is mast_exports' star_exports).
      { file_path: "src/auth/index.ts", exports: ["Credentials"] },
      { file_path: "src/deep/a/b/c.ts", exports: ["deep"] },
      { file_path: "src/types.ts", exports: ["LoginRequest", "Big"] },
    ]);
  });
  it("lists a file's first max_exports names and counts the rest", async () => {
    const r = await call("mast_project_skeleton", { max_exports: 1 });
    expect(r.files).toEqual([
      { file_path: "README.md" },
      { file_path: "src/auth/handler.ts", exports: ["Reply"], exports_truncated: 1 },
      { file_path: "src/auth/index.ts", exports: ["Credentials"] },
      { file_path: "src/deep/a/b/c.ts", exports: ["deep"] },
      { file_path: "src/types.ts", exports: ["LoginRequest"], exports_truncated: 1 },
    ]);
  });
  it("scopes by directory and max_depth, and counts what the limit cut", async () => {
    expect((await call("mast_project_skeleton", { directory: "src", max_depth: 0 })).files.map((f: any) => f.file_path)).toEqual(["src/types.ts"]);
    expect((await call("mast_project_skeleton", { directory: "src/", max_depth: 1 })).files.map((f: any) => f.file_path)).toEqual(["src/auth/handler.ts", "src/auth/index.ts", "src/types.ts"]);
    const capped = await call("mast_project_skeleton", { limit: 1 });
    expect(capped.files).toHaveLength(1);
    expect(capped.files_truncated).toBe(4);
  });
  it("says scope_empty when the directory or pattern matches no indexed file", async () => {
    expect(await call("mast_project_skeleton", { directory: "no/such/dir" })).toEqual({ files: [], scope_empty: true });
    expect(await call("mast_project_skeleton", { file_pattern: "**/*.rs" })).toEqual({ files: [], scope_empty: true });
    // A directory that holds files but none exporting anything is not an empty scope.
    expect((await call("mast_project_skeleton", { directory: "src", max_depth: 0 })).scope_empty).toBeUndefined();
  });
  it("refuses a directory outside the project", async () => {
    await expect(call("mast_project_skeleton", { directory: "../etc" })).rejects.toMatchObject({ code: "PATH_DENIED" });
  });

  it("a skeleton over the answer budget is cut to the files that fit, counted in files_truncated — never refused whole, never index_empty", async () => {
    const big = makeProject(syntheticProject(40));
    try {
      await runIndex(big.config(), { mode: "full" });
      const store = Store.open(statePaths(big.config().state_dir).graphDb);
      try {
        const input = { limit: 10_000, max_exports: 100_000, max_members: 100_000 };
        const whole = store.snapshot((db) => projectSkeleton(db, input));
        expect([whole.files.length, whole.files_truncated, whole.index_empty]).toEqual([41, undefined, undefined]);
        // A budget that holds exactly the first three files' entries, in message bytes (base/budget.ts fitList).
        const budget = 4 + whole.files.slice(0, 3).reduce((n, f) => n + wireBytes(f), 0);
        expect(store.snapshot((db) => projectSkeleton(db, input, budget))).toEqual({ files: whole.files.slice(0, 3), files_truncated: 38 });
        expect(store.snapshot((db) => projectSkeleton(db, input, 10))).toEqual({ files: [], files_truncated: 41 });
      } finally {
        store.close();
      }
    } finally {
      big.cleanup();
    }
  });
});

describe("mast_exports", () => {
  it("gives kind, signature, line and doc of each export", async () => {
    const r = await call("mast_exports", { file_path: "src/auth/handler.ts" });
    expect(r).toEqual({
      file_path: "src/auth/handler.ts",
      exports: [
        { name: "Reply", kind: "type", signature: "export type Reply = { ok: boolean };", line: 4, doc: null },
        {
          name: "handleLogin",
          kind: "function",
          signature: "export async function handleLogin(req: LoginRequest, big: Big, opts?: Reply): Promise<Reply>",
          line: 7,
          doc: "/** Validates credentials. */",
        },
      ],
      star_exports: [],
    });
  });
  it("lists re-exports with their source and star exports", async () => {
    const r = await call("mast_exports", { file_path: "src/auth/index.ts" });
    expect(r.exports).toEqual([{ name: "Credentials", kind: "export", signature: "export { LoginRequest as Credentials } from '../types.js';", line: 2, doc: null, from: "../types.js" }]);
    expect(r.star_exports).toEqual(["./handler.js"]);
  });
  it("gives each name of a multi-line re-export the statement's part that exports it", async () => {
    const barrel = makeProject({ "src/a.ts": "export type A = 1;\nexport type B = 2;\n", "src/index.ts": "export type {\n  A,\n  B as Bee,\n} from './a.js';\n" });
    await runIndex(barrel.config(), { mode: "full" });
    const barrelCtx = createToolContext(barrel.config());
    try {
      const r = (await callTool(barrelCtx, "mast_exports", { file_path: "src/index.ts" })) as any;
      expect(r.exports.map((e: { name: string; signature: string }) => [e.name, e.signature])).toEqual([
        ["A", "export type { A } from './a.js';"],
        ["Bee", "export type { B as Bee } from './a.js';"],
      ]);
    } finally {
      barrelCtx.close();
      barrel.cleanup();
    }
  });
  it("names an unknown file with FILE_NOT_FOUND", async () => {
    await expect(call("mast_exports", { file_path: "src/nope.ts" })).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
  });
});

describe("mast_signature", () => {
  it("returns params, return type and the project types they name (detail: full)", async () => {
    const r = await call("mast_signature", { symbol: "handleLogin", detail: "full" });
    expect(r.results).toHaveLength(1);
    const s = r.results[0];
    expect(s).toMatchObject({ symbol: "handleLogin", file_path: "src/auth/handler.ts", line: 7, is_exported: true, return_type: "Promise<Reply>" });
    expect(s.params).toEqual([
      { name: "req", type: "LoginRequest", optional: false },
      { name: "big", type: "Big", optional: false },
      { name: "opts", type: "Reply", optional: true },
    ]);
    expect(s.type_context.map((t: any) => [t.name, t.file_path, t.line, t.truncated])).toEqual([
      ["LoginRequest", "src/types.ts", 2, undefined],
      ["Big", "src/types.ts", 7, true],
      ["Reply", "src/auth/handler.ts", 4, undefined],
    ]);
    expect(s.type_context[1].signature.split("\n")).toHaveLength(50);
  });
  it("answers briefly by default: no symbol that repeats the query, the doc's first sentence, no params or return type", async () => {
    const r = await call("mast_signature", { symbol: "handleLogin" });
    const full = (await call("mast_signature", { symbol: "handleLogin", detail: "full" })).results[0];
    expect(r.results[0]).toEqual({
      kind: full.kind,
      file_path: full.file_path,
      line: full.line,
      is_exported: true,
      signature: full.signature,
      doc: "Validates credentials.",
      // A type's first 12 lines, `truncated` only when cut.
      type_context: [
        { name: "LoginRequest", signature: "export interface LoginRequest {\n  email: string;\n  password: string;\n}", file_path: "src/types.ts", line: 2 },
        { name: "Big", signature: ["export interface Big {", ...Array.from({ length: 11 }, (_, i) => `  f${i}: number;`)].join("\n"), file_path: "src/types.ts", line: 7, truncated: true },
        { name: "Reply", signature: "export type Reply = { ok: boolean };", file_path: "src/auth/handler.ts", line: 4 },
      ],
    });
    expect(Buffer.byteLength(JSON.stringify(r))).toBe(780);
  });
  it("leaves comment lines out of a brief signature (overloads' docs) and no doc key when there is none", async () => {
    const over = makeProject({
      "src/over.ts": [
        "/** Parses text. */",
        "export function parse(a: string): number;",
        "/** Parses a number. */",
        "export function parse(a: number): number;",
        "export function parse(a: unknown): number {",
        "  return Number(a);",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(over.config(), { mode: "full" });
    const overCtx = createToolContext(over.config());
    try {
      const r = (await callTool(overCtx, "mast_signature", { symbol: "parse" })) as any;
      const signature = "export function parse(a: string): number;\nexport function parse(a: number): number;\nexport function parse(a: unknown): number";
      expect(r.results).toEqual([{ kind: "function", file_path: "src/over.ts", line: 2, is_exported: true, signature, doc: "Parses text." }]);
    } finally {
      overCtx.close();
      over.cleanup();
    }
    expect((await call("mast_signature", { symbol: "hidden" })).results).toEqual([
      { kind: "function", file_path: "src/auth/handler.ts", line: 11, is_exported: false, signature: "function hidden(): void" },
    ]);
  });
  it("cuts a doc comment to its first sentence without its markers", async () => {
    expect(docSummary("/**\n * Checks a value. Looks further.\n * @param v the value\n */")).toBe("Checks a value.");
    expect(docSummary("/** One line, no period */")).toBe("One line, no period");
    expect(docSummary("/**\n * First paragraph\n * goes on.\n *\n * Second.\n */")).toBe("First paragraph goes on.");
    expect(docSummary("/** @deprecated use b */")).toBe("@deprecated use b");
    expect(docSummary("// Version 1.2 here. Next")).toBe("Version 1.2 here.");
  });
  it("follows a barrel to the declaration", async () => {
    const viaStar = await call("mast_signature", { symbol: "handleLogin", file_path: "src/auth/index.ts" });
    expect(viaStar.results.map((r: any) => [r.symbol ?? "(as asked)", r.file_path])).toEqual([["(as asked)", "src/auth/handler.ts"]]);
    const viaAlias = await call("mast_signature", { symbol: "Credentials", file_path: "src/auth/index.ts" });
    expect(viaAlias.results.map((r: any) => [r.symbol, r.file_path, r.kind])).toEqual([["LoginRequest", "src/types.ts", "interface"]]);
  });
  it("returns an empty list for an unknown symbol", async () => {
    expect(await call("mast_signature", { symbol: "nothingLikeThis" })).toEqual({ results: [], not_found: true, did_you_mean: [] });
  });
});

describe("mast_dependencies", () => {
  it("lists imports with their resolution", async () => {
    const r = await call("mast_dependencies", { file_path: "src/auth/handler.ts" });
    expect(r).toEqual({
      file_path: "src/auth/handler.ts",
      imports: [
        { module: "../types.js", symbols: ["LoginRequest", "Big"], kind: "import", line: 1, is_external: false, resolved_path: "src/types.ts" },
        { module: "express", symbols: ["default"], kind: "import", line: 2, is_external: true },
      ],
    });
  });
  it("keeps a row's locals only where they are not its names (else NULL), and answers alike", async () => {
    const store = Store.open(statePaths(join(project.root, ".mast")).graphDb, { readonly: true });
    try {
      // Stored (bound_as) and read (locals, generated from it).
      expect(
        store.db.prepare("SELECT f.path, i.module, i.symbols, i.bound_as, i.locals FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path LIKE 'src/auth/%' ORDER BY f.path, i.line").raw().all(),
      ).toEqual([
        ["src/auth/handler.ts", "../types.js", '["LoginRequest","Big"]', null, '["LoginRequest","Big"]'],
        ["src/auth/handler.ts", "express", '["default"]', '["express"]', '["express"]'],
        // A re-export binds nothing in its file.
        ["src/auth/index.ts", "./handler.js", '["*"]', "[]", "[]"],
        ["src/auth/index.ts", "../types.js", '["LoginRequest"]', "[]", "[]"],
      ]);
    } finally {
      store.close();
    }
    expect((await call("mast_dependencies", { file_path: "src/auth/index.ts" })).imports).toEqual([
      { module: "./handler.js", symbols: ["*"], kind: "export_star", line: 1, is_external: false, resolved_path: "src/auth/handler.ts" },
      { module: "../types.js", symbols: ["LoginRequest"], kind: "export_from", line: 2, is_external: false, resolved_path: "src/types.ts" },
    ]);
  });
});

describe("just-in-time refresh", () => {
  it("answers from the file on disk after an edit, without a reindex", async () => {
    const path = join(project.root, "src/auth/handler.ts");
    writeFileSync(path, FILES["src/auth/handler.ts"]!.replace("handleLogin(req: LoginRequest", "handleLogin(request: LoginRequest"));
    const later = new Date(Date.now() + 60_000);
    utimesSync(path, later, later);
    const r = await call("mast_exports", { file_path: "src/auth/handler.ts" });
    expect(r.exports[1].signature).toBe("export async function handleLogin(request: LoginRequest, big: Big, opts?: Reply): Promise<Reply>");
    expect(r.file_busy_returning_stale_cache).toBeUndefined();
  });

  it("returns the stale answer, flagged, when another writer holds the database", async () => {
    const path = join(project.root, "src/types.ts");
    writeFileSync(path, FILES["src/types.ts"]!.replace("A login attempt", "A sign-in attempt"));
    const later = new Date(Date.now() + 120_000);
    utimesSync(path, later, later);
    const other = Store.open(statePaths(project.config().state_dir).graphDb);
    other.db.prepare("BEGIN IMMEDIATE").run();
    try {
      const started = Date.now();
      const r = await call("mast_signature", { symbol: "LoginRequest", file_path: "src/types.ts" });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(r.results[0]).toMatchObject({ doc: "A login attempt.", file_busy_returning_stale_cache: true });
      expect(r.file_busy_returning_stale_cache).toBe(true);
      // Every read plan is flagged by the registry, whichever tool it is: each call names the changed file.
      const named = { file_path: "src/types.ts" };
      const calls: Record<string, Record<string, unknown>> = {
        mast_exports: named,
        mast_dependencies: named,
        mast_callers: { symbol: "LoginRequest", ...named },
        mast_rename_impact: { symbol: "LoginRequest", ...named },
        mast_implementors: { interface_name: "LoginRequest", ...named },
        mast_graph: { symbol: "LoginRequest", ...named },
        mast_definition: { ...named, line: 2, column: 18 },
        mast_references: { ...named, line: 2, column: 18 },
      };
      expect(Object.keys(calls).sort()).toEqual(
        TOOLS.filter((t) => t.read !== undefined && t.name !== "mast_signature")
          .map((t) => t.name)
          .sort(),
      );
      for (const [name, args] of Object.entries(calls)) expect([name, (await call(name, args)).file_busy_returning_stale_cache]).toEqual([name, true]);
      expect((await call("mast_exports", named)).exports.map((e: { name: string }) => e.name)).toEqual(["LoginRequest", "Big"]);
    } finally {
      other.db.prepare("ROLLBACK").run();
      other.close();
    }
    const after = await call("mast_signature", { symbol: "LoginRequest", file_path: "src/types.ts" });
    expect(after.results[0].doc).toBe("A sign-in attempt.");
    expect(after.results[0].file_busy_returning_stale_cache).toBeUndefined();
  });

  it("drops a deleted file's rows and then says it is not indexed", async () => {
    project.remove("src/deep/a/b/c.ts");
    await expect(call("mast_exports", { file_path: "src/deep/a/b/c.ts" })).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
    expect((await call("mast_project_skeleton", {})).files.map((f: any) => f.file_path)).not.toContain("src/deep/a/b/c.ts");
  });
});

describe("mast_reindex", () => {
  it("reports what a reindex changed", async () => {
    project.write("src/new.ts", "export function fresh(): number { return 1; }\n");
    const r = await call("mast_reindex", {});
    expect(r).toMatchObject({ files_indexed: 1, chunks_added: 1, chunks_removed: 0, parse_errors: 0, write_errors: 0 });
    expect((await call("mast_signature", { symbol: "fresh", detail: "full" })).results[0].return_type).toBe("number");
    const full = await call("mast_reindex", { full: true });
    expect(full.files_indexed).toBe(5);
  });
});
