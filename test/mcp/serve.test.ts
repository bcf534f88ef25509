// `mast serve` end to end with the real MCP SDK client over stdio: the startup ladder (seed copy,
// background reindex, the --no-startup-reindex refusal), every registry tool listed, tool errors
// returned as MCP tool errors without killing the server, and a clean exit when stdin closes.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { TOOLS } from "../../src/tools/registry.js";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";

const MAST = join(import.meta.dirname, "..", "..", "dist", "bin", "mast.js");
const HASHPILOT = join(import.meta.dirname, "..", "..", "dist", "bin", "hashpilot.js");

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

function project(): TestProject {
  const p = makeProject(BASE_FILES);
  cleanups.push(() => p.cleanup());
  return p;
}

function scratchDir(): string {
  const d = mkdtempSync(join(tmpdir(), "mast-serve-"));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

async function connect(args: string[], env: Record<string, string> = {}): Promise<{ client: Client; stderr: () => string; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAST, "serve", ...args],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: "mast-test", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, stderr: () => err, transport };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; data: any }> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
  return { isError: r.isError === true, data: JSON.parse(r.content[0]!.text) };
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("mast serve", () => {
  it("lists the read and edit toolsets in under 18 KB, indexes in the background and answers queries", async () => {
    const p = project();
    const { client, stderr } = await connect([p.root]);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(TOOLS.filter((t) => ["read", "edit"].includes(t.toolset ?? "read")).map((t) => t.name).sort());
    // The bytes a client hands the model for the default listing (18,432 is the budget: input and output schemas, annotations; verify_changes and intent are in the edit toolset; mast_definition and mast_references in the read one).
    const bytes = Buffer.byteLength(JSON.stringify(tools.tools));
    console.log(`default tools/list: ${tools.tools.length} tools, ${bytes} bytes`);
    expect(bytes).toBeLessThan(18_432);
    const search = tools.tools.find((t) => t.name === "mast_search")!;
    expect(search.annotations).toEqual({ title: "Search code", readOnlyHint: true });
    // Every tool says what its answer is; the listing gives the keys every answer has.
    expect(search.outputSchema).toEqual({ type: "object", properties: { results: { type: "array" } }, required: ["results"] });
    expect(search.inputSchema).toMatchObject({ type: "object", required: ["query"], properties: { query: { type: "string" }, chunk_type: { type: "string", enum: expect.arrayContaining(["method"]) } } });

    const status = await until(
      () => call(client, "mast_status", {}),
      (r) => r.data.indexed_files === 4,
    );
    expect(status.data).toMatchObject({ indexed_files: 4, stale_files: 0, index_fresh: true, schema_version: "1.11.0" });
    const r = await call(client, "mast_search", { query: "validate", limit: 1 });
    expect(r.isError).toBe(false);
    // A one-name query puts the method of that name first; its class outline folds into it.
    expect(r.data.results[0]).toMatchObject({ file_path: "src/auth.ts", symbol_name: "AuthService.validate", rank: 1, related: { parent_symbol: "AuthService" } });
    expect(stderr()).toContain("mast serve: ready (");
    // The instructions name tools it offers, and only those.
    const instructions = client.getInstructions() ?? "";
    const named = [...new Set(instructions.match(/\b(?:mast_[a-z_]+|read_hash|replace_hash|diff_apply|undo)\b/g) ?? [])];
    expect(named.length).toBe(14);
    expect(named.filter((n) => !TOOLS.some((t) => t.name === n))).toEqual([]);
    expect(Buffer.byteLength(instructions)).toBeLessThan(1_500);
  });

  it("sends instructions for the toolsets it offers only", async () => {
    const p = project();
    const { client } = await connect([p.root, "--toolsets", "read"]);
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toContain("mast_callers (verified_callers are proven");
    expect(instructions).not.toContain("replace_hash");
  });

  it("with --checker, the startup reindex and mast_reindex run the checker pass in their worker", async () => {
    const p = makeProject({
      "src/store.ts": "export class Store {\n  get(key: string) { return key; }\n}\nexport function makeStore() { return new Store(); }\n",
      "src/app.ts": "import { makeStore } from './store';\nexport function run() {\n  const s = makeStore();\n  return s.get('a');\n}\n",
    });
    cleanups.push(() => p.cleanup());
    const { client, stderr } = await connect([p.root, "--checker"]);
    // `s.get` only the compiler can type (makeStore declares no return type): a checker edge once the startup reindex is done.
    const callers = () => call(client, "mast_callers", { symbol: "Store.get", file_path: "src/store.ts" });
    const first = await until(callers, (r) => !r.isError && r.data.summary?.verified_count === 1);
    expect(first.data.verified_callers).toEqual([{ file_path: "src/app.ts", resolution: "checker", sites: ["4 run: return s.get('a');"] }]);
    expect(first.data.summary).toMatchObject({ potential_count: 0, checker_classified_non_call_site: 0, checker_classified_different_declaration: 0 });
    expect(await until(async () => stderr(), (e) => e.includes("startup reindex done"))).toContain("; checker: 2 potential matches checked, 1 checker edges");
    p.write("src/app.ts", "import { makeStore } from './store';\nexport function run() {\n  const s = makeStore();\n  s.get('b');\n  return s.get('a');\n}\n");
    const reindex = await call(client, "mast_reindex", {});
    expect(reindex.data).toMatchObject({ files_indexed: 1, checker: { projects: 1, candidates: 3, calls_target: 2, edges: 2, non_call_site: 1, outside_ts_scope: 0 } });
    expect((await callers()).data.verified_callers).toEqual([{ file_path: "src/app.ts", resolution: "checker", sites: ["4 run: s.get('b');", "5 run: return s.get('a');"] }]);
  });

  it("returns a bad call as a tool error with a code and keeps serving", async () => {
    const p = project();
    await runIndex(p.config(), { mode: "full" });
    const { client } = await connect([p.root, "--no-startup-reindex"]);
    const bad = await call(client, "mast_search", { query: "" });
    expect(bad.isError).toBe(true);
    expect(bad.data.error).toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(bad.data.error.message).toContain("query");
    const unknown = await call(client, "mast_nothing", {});
    expect(unknown.isError).toBe(true);
    expect(unknown.data.error.code).toBe("INVALID_ARGUMENT");
    const good = await call(client, "mast_search", { query: "Repo" });
    expect(good.isError).toBe(false);
    expect(good.data.results[0].symbol_name).toBe("Repo");
  });

  it("answers exactly what `mast query --json` prints for the same call", async () => {
    const p = project();
    await runIndex(p.config(), { mode: "full" });
    const { client } = await connect([p.root, "--no-startup-reindex"]);
    for (const [tool, args] of [
      ["mast_signature", { symbol: "AuthService.validate" }],
      ["mast_exports", { file_path: "src/index.ts" }],
      ["mast_search", { query: "find", limit: 3 }],
      ["mast_callers", { symbol: "Repo.find" }],
      ["mast_implementors", { interface_name: "Repo" }],
      ["mast_rename_impact", { symbol: "Repo" }],
    ] as const) {
      const result = (await client.callTool({ name: tool, arguments: args })) as { content: Array<{ text: string }>; structuredContent?: unknown };
      const viaMcp = result.content[0]!.text;
      // The same answer as structured content (the SDK client has checked it against the listed outputSchema).
      expect(result.structuredContent).toEqual(JSON.parse(viaMcp));
      const viaCli = spawnSync(process.execPath, [MAST, "query", tool, JSON.stringify(args), p.root, "--json"], { encoding: "utf8" });
      expect(viaCli.status).toBe(0);
      // Byte for byte, but for the call's own duration in `_stats`.
      const timeless = (text: string) => text.replace(/"duration_ms":\d+/, '"duration_ms":0');
      expect(viaMcp).toContain('"_stats":{"tool":');
      expect(timeless(viaCli.stdout)).toBe(`${timeless(viaMcp)}\n`);
      if (tool === "mast_callers") {
        expect(JSON.parse(viaMcp).verified_callers).toEqual([
          { file_path: "src/auth.ts", resolution: "field_type", sites: ["9 AuthService.validate: return this.repo.find(token) !== null;"] },
        ]);
      }
    }
  });

  it("serves the edit toolset: the same data as the hashpilot CLI for the same call, writes through the one writer, errors as envelopes", async () => {
    const p = project();
    mkdirSync(join(p.root, ".git"));
    await runIndex(p.config(), { mode: "full" });
    const home = scratchDir();
    const { client } = await connect([p.root, "--no-startup-reindex"], { HASHPILOT_HOME: home });
    const viaCli = (args: string[]) => JSON.parse(spawnSync(process.execPath, [HASHPILOT, ...args], { cwd: p.root, encoding: "utf8", env: { ...process.env, HASHPILOT_HOME: home } }).stdout);
    const read = await call(client, "read_hash", { file: "src/auth.ts", line: 9, context: 1 });
    expect(read.isError).toBe(false);
    expect(read.data).toMatchObject({ apiVersion: "1", ok: true, command: "read_hash", error: null, warnings: [] });
    expect(read.data.data).toEqual(viaCli(["read-hash", "src/auth.ts", "9", "-c", "1"]).data);
    const dry = { file: "src/auth.ts", old_hash: read.data.data.lineHash, new_content: "    return this.repo.find(token) != null;", range: "9", dry_run: true };
    const mcpDry = await call(client, "replace_hash", dry);
    expect(mcpDry.data.data).toEqual(viaCli(["replace-hash", "src/auth.ts", dry.old_hash, dry.new_content, "--range", "9", "--dry-run"]).data);
    const write = await call(client, "replace_hash", { ...dry, dry_run: false });
    expect(write.data.data).toMatchObject({ success: true, newRange: { start: 9, end: 9 } });
    expect(readFileSync(join(p.root, "src/auth.ts"), "utf8").split("\n")[8]).toBe("    return this.repo.find(token) != null;");
    const stale = await call(client, "replace_hash", { ...dry, dry_run: false });
    expect(stale.isError).toBe(true);
    expect(stale.data).toMatchObject({ apiVersion: "1", ok: false, command: "replace_hash", data: null, error: { code: "STALE_ANCHOR" } });
    const tools = await client.listTools();
    const annotations = Object.fromEntries(tools.tools.filter((t) => ["read_hash", "replace_hash", "undo"].includes(t.name)).map((t) => [t.name, t.annotations]));
    expect(annotations).toEqual({
      read_hash: { title: "Read a line with its hashes", readOnlyHint: true },
      replace_hash: { title: "Replace hash-anchored lines", destructiveHint: true, openWorldHint: false },
      undo: { title: "Undo a changeSet", destructiveHint: true, openWorldHint: false },
    });
  });

  it("serves route_edit: an AST rename and a batch over the SDK client, the index caught up, a refusal as an error envelope", async () => {
    const p = project();
    mkdirSync(join(p.root, ".git"));
    await runIndex(p.config(), { mode: "full" });
    const { client } = await connect([p.root, "--no-startup-reindex"], { HASHPILOT_HOME: scratchDir() });
    const rename = await call(client, "route_edit", { file: "src/auth.ts", operation: "rename-symbol", symbol: "AuthService.validate", new_name: "check" });
    expect(rename.isError).toBe(false);
    expect(rename.data).toMatchObject({ ok: true, command: "route_edit", data: { route: "ast", changes: 1, message: "Renamed 1 occurrence of 'AuthService.validate' to 'check' (member of AuthService)" } });
    expect(readFileSync(join(p.root, "src/auth.ts"), "utf8")).toContain("  check(token: string): boolean {");
    const signature = await call(client, "mast_signature", { symbol: "AuthService.check" });
    expect(signature.data.results).toMatchObject([{ kind: "method", file_path: "src/auth.ts", line: 8, signature: "check(token: string): boolean" }]);
    const batch = await call(client, "route_edit", { files: ["src/repo.ts", "src/index.ts"], operation: "add-import", symbol: "{ log } from ./log.js" });
    expect(batch.data.data.summary).toMatchObject({ total: 2, succeeded: 2, failed: 0, conflicts: 0 });
    expect(readFileSync(join(p.root, "src/repo.ts"), "utf8").split("\n")[0]).toBe('import { log } from "./log.js";');
    const refused = await call(client, "route_edit", { file: "src/repo.ts", operation: "replace-body", symbol: "nothing", content: "return null;" });
    expect(refused.isError).toBe(true);
    expect(refused.data).toMatchObject({ ok: false, command: "route_edit", data: null, error: { code: "SYMBOL_NOT_FOUND" } });
  });

  it("serves verify_changes: a failing check is a VERIFY_FAILED envelope whose revert puts the edit made over MCP back, and the index follows", async () => {
    const p = project();
    mkdirSync(join(p.root, ".git"));
    writeFileSync(join(p.root, "lint.mjs"), 'import { readFileSync } from "node:fs";\nconst bad = process.argv.slice(2).filter((f) => readFileSync(f, "utf8").includes("console.log"));\nfor (const f of bad) console.error(`${f}: no console.log`);\nprocess.exit(bad.length ? 1 : 0);\n');
    await runIndex(p.config(), { mode: "full" });
    const { client } = await connect([p.root, "--no-startup-reindex"], { HASHPILOT_HOME: scratchDir() });
    const original = readFileSync(join(p.root, "src/auth.ts"), "utf8");
    const read = await call(client, "read_hash", { file: "src/auth.ts", line: 1 });
    const edit = await call(client, "replace_hash", { file: "src/auth.ts", old_hash: read.data.data.lineHash, range: "1", new_content: 'console.log("debug");\n' + original.split("\n")[0] });
    expect(edit.isError, JSON.stringify(edit.data)).toBe(false);
    const verified = await call(client, "verify_changes", { files: ["src/auth.ts"], linter: "node lint.mjs", revert_on_failure: true });
    expect(verified.isError).toBe(true);
    expect(verified.data).toMatchObject({
      ok: false,
      command: "verify_changes",
      data: null,
      error: { code: "VERIFY_FAILED", message: "verification failed: linter; 1 file(s) put back as before the edit", details: { overall: "fail", checksRun: ["linter"], linter: { passed: false, exitCode: 1, output: "src/auth.ts: no console.log\n" }, revertedFiles: [join(p.root, "src/auth.ts")] } },
    });
    expect(readFileSync(join(p.root, "src/auth.ts"), "utf8")).toBe(original);
    const search = await call(client, "mast_search", { query: "debug console.log", limit: 3 });
    expect(JSON.stringify(search.data)).not.toContain("console.log(");
    const clean = await call(client, "verify_changes", { files: ["src/auth.ts"], linter: "node lint.mjs" });
    expect(clean.data).toMatchObject({ ok: true, data: { overall: "pass", checksRun: ["linter"] } });
  });

  it("serves intent: a cross-file rename of an exported class over the SDK client, its barrel alias kept, the index following", async () => {
    const p = project();
    mkdirSync(join(p.root, ".git"));
    await runIndex(p.config(), { mode: "full" });
    const { client } = await connect([p.root, "--no-startup-reindex"], { HASHPILOT_HOME: scratchDir() });
    const r = await call(client, "intent", { intent: JSON.stringify({ operation: "rename-exported-symbol", symbol: "Repo", newName: "Store" }) });
    expect(r.isError, JSON.stringify(r.data).slice(0, 500)).toBe(false);
    expect(r.data).toMatchObject({ ok: true, command: "intent", data: { success: true, execution: { summary: { total: 3, applied: 3, failed: 0 }, reverted: false } } });
    expect(readFileSync(join(p.root, "src/repo.ts"), "utf8").split("\n")[0]).toBe("export class Store {");
    expect(readFileSync(join(p.root, "src/auth.ts"), "utf8")).toContain("import { Store } from './repo.js';");
    expect(readFileSync(join(p.root, "src/auth.ts"), "utf8")).toContain("constructor(private readonly repo: Store) {}");
    expect(readFileSync(join(p.root, "src/index.ts"), "utf8")).toBe("export * from './auth.js';\nexport { Store as Repository } from './repo';\n");
    const signature = await call(client, "mast_signature", { symbol: "Store" });
    expect(signature.data.results).toMatchObject([{ kind: "class", file_path: "src/repo.ts", line: 1 }]);
  });

  it("--toolsets read,edit,more,admin,structural offers every registry tool", async () => {
    const p = project();
    await runIndex(p.config(), { mode: "full" });
    const { client } = await connect([p.root, "--no-startup-reindex", "--toolsets", "read,edit,more,admin,structural"]);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    const r = await call(client, "telemetry_health", {});
    expect([r.isError, r.data.command]).toEqual([false, "telemetry_health"]);
  });

  it("--toolsets read offers only the index tools", async () => {
    const p = project();
    await runIndex(p.config(), { mode: "full" });
    const { client } = await connect([p.root, "--no-startup-reindex", "--toolsets", "read"]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(TOOLS.filter((t) => (t.toolset ?? "read") === "read").map((t) => t.name));
    const refused = await call(client, "replace_hash", { file: "src/auth.ts", old_hash: "000000000000", new_content: "x" });
    expect([refused.isError, refused.data.error.code]).toEqual([true, "INVALID_ARGUMENT"]);
  });

  it("refuses --no-startup-reindex on a never-indexed state dir", () => {
    const p = project();
    const r = spawnSync(process.execPath, [MAST, "serve", p.root, "--no-startup-reindex"], { input: "", encoding: "utf8", timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mast: error NOT_INDEXED: --no-startup-reindex with a never-indexed state dir/);
  });

  it("seeds an empty state dir from MAST_SEED_DIR and reports the seed", async () => {
    const p = project();
    const seed = scratchDir();
    await runIndex(p.config({ stateDir: seed }), { mode: "full" });
    const state = join(scratchDir(), "state");
    const { client, stderr } = await connect([p.root, "--state-dir", state, "--no-startup-reindex"], { MAST_SEED_DIR: seed });
    const status = await call(client, "mast_status", {});
    expect(status.data).toMatchObject({ state_dir: state, indexed_files: 4, seed_commit: "unknown" });
    expect(existsSync(join(state, "graph.db"))).toBe(true);
    expect(stderr()).toContain(`state dir seeded from ${seed}`);
  });

  it("exits cleanly when stdin closes", async () => {
    const p = project();
    await runIndex(p.config(), { mode: "full" });
    const { client, transport } = await connect([p.root, "--no-startup-reindex"]);
    const pid = transport.pid!;
    await client.close();
    const gone = await until(
      async () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      (v) => v,
      10_000,
    );
    expect(gone).toBe(true);
  });
  it("the structural toolset answers the structural index's operations over MCP, from the project's state dir or --structural-root", async () => {
    const p = project();
    const build = spawnSync(process.execPath, [MAST, "structural", "build", "--max_precision", "ast", "--json"], { cwd: p.root, encoding: "utf8", env: { PATH: process.env.PATH ?? "", MAST_CTAGS: "" } });
    expect(build.status).toBe(0);
    expect(JSON.parse(build.stdout)).toMatchObject({ status: "complete", units_total: 3 });
    const { client } = await connect([p.root, "--toolsets", "read,structural"]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => !n.startsWith("mast_"))).toEqual(["resolve_symbol", "find_callers", "find_callees", "get_function_boundary", "get_coverage"]);
    const resolved = await call(client, "resolve_symbol", { name: "Repo.find" });
    expect(resolved.data).toMatchObject({ total: 1, ambiguous: false, results: [{ qualified_name: "Repo.find", file_path: "src/repo.ts", start_line: 2, end_line: 4, precision: "ast", backend: "tree-sitter" }] });
    const callers = await call(client, "find_callers", { symbol_id: resolved.data.results[0].symbol_id });
    expect(callers.data.results.map((r: { file_path: string; line: number; caller_name: string; edge_kind: string }) => `${r.file_path}:${r.line} ${r.caller_name} ${r.edge_kind}`)).toEqual(["src/auth.ts:9 AuthService.validate virtual"]);
    expect((await call(client, "get_function_boundary", { file: "src/auth.ts", line: 9 })).data).toMatchObject({ name: "AuthService.validate", start_line: 8, end_line: 10 });
    expect((await call(client, "get_coverage", {})).data).toMatchObject({ total_files: 3, indexed_files: 3, partition_status: "complete" });
    const bad = await call(client, "find_callers", { symbol_id: "" });
    expect(bad.isError).toBe(true);
    // Another state root holding no index: every answer says so.
    const { client: other } = await connect([p.root, "--toolsets", "structural", "--structural-root", scratchDir()]);
    expect((await call(other, "resolve_symbol", { name: "Repo.find" })).data).toMatchObject({ total: 0, coverage: { partition_status: "empty" } });
  });
});
