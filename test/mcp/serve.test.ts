// `mast serve` end to end with the real MCP SDK client over stdio: the startup ladder (seed copy,
// background reindex, the --no-startup-reindex refusal), every registry tool listed, tool errors
// returned as MCP tool errors without killing the server, and a clean exit when stdin closes.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { LISTED_TOOL_AVERAGE, LISTING_BUDGET } from "../../src/tools/define.js";
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
  it("lists the read and edit toolsets compactly (within 8 KB, 370 bytes a tool on average), indexes in the background and answers queries", async () => {
    const p = project();
    const { client, stderr } = await connect([p.root]);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(
      TOOLS.filter((t) => ["read", "edit"].includes(t.toolset ?? "read"))
        .map((t) => t.name)
        .sort(),
    );
    // The bytes a client gets for the default listing: 7,196 for 20 tools (16,744 with output
    // schemas, titles and every argument), and mast_definition and mast_references within the average.
    const bytes = Buffer.byteLength(JSON.stringify(tools.tools));
    console.log(`default tools/list: ${tools.tools.length} tools, ${bytes} bytes`);
    expect(bytes).toBeLessThanOrEqual(Math.min(LISTING_BUDGET, LISTED_TOOL_AVERAGE * tools.tools.length));
    expect(bytes).toBeLessThanOrEqual(7_200 + LISTED_TOOL_AVERAGE * (tools.tools.length - 20));
    // What a model is handed (name, description, input schema) and the hints clients act on; no output schema, no title.
    const search = tools.tools.find((t) => t.name === "mast_search")!;
    expect(search).toEqual({
      name: "mast_search",
      description: "Ranked code chunks (function, method, class outline, doc section) for a name, part of one, or words.",
      inputSchema: {
        type: "object",
        properties: {
          query: { type: "string" },
          limit: { type: "integer" },
          file_pattern: { type: "string" },
          chunk_type: { type: "string", enum: ["function", "method", "class_shell", "interface", "type", "export", "block", "doc"] },
          only_exported: { type: "boolean" },
        },
        required: ["query"],
      },
      annotations: { readOnlyHint: true },
    });

    const status = await until(
      () => call(client, "mast_status", {}),
      (r) => r.data.indexed_files === 4,
    );
    expect(status.data).toMatchObject({ indexed_files: 4, stale_files: 0, index_fresh: true, schema_version: "1.27.0" });
    // The server's config is recorded in its state dir (after the first answers, under structure.lock).
    const persisted = JSON.parse(readFileSync(join(String(status.data.state_dir), "config.json"), "utf8")) as Record<string, unknown>;
    expect([persisted.resolved_project_root, persisted.resolved_state_dir]).toEqual([realpathSync(p.root), status.data.state_dir]);
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

  it("with --schemas full, lists every schema whole, and the SDK client checks real answers against the output schemas", async () => {
    const p = project();
    mkdirSync(join(p.root, ".git"));
    await runIndex(p.config(), { mode: "full" });
    const { client } = await connect([p.root, "--no-startup-reindex", "--schemas", "full", "--toolsets", "read,edit,more,admin"], { HASHPILOT_HOME: scratchDir() });
    const tools = (await client.listTools()).tools;
    expect(tools.length).toBe(TOOLS.filter((t) => t.toolset !== "structural").length);
    for (const t of tools) expect([t.name, t.outputSchema?.type, typeof t.annotations?.title, t.inputSchema.$schema]).toEqual([t.name, "object", "string", undefined]);
    const replace = tools.find((t) => t.name === "replace_hash")!;
    expect(Object.keys(replace.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["recovery", "actor", "task_id", "reason"]));
    expect(replace.annotations).toEqual({ title: "Replace hash-anchored lines", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    expect((replace.inputSchema.properties as Record<string, { description?: string }>)["old_hash"]!.description).toBe("The 12-character hash read_hash or read_many reported.");
    // callTool validates structuredContent against the listed outputSchema (and throws when it does not conform).
    for (const [tool, args] of [
      ["mast_search", { query: "validate", limit: 2 }],
      ["mast_callers", { symbol: "Repo.find" }],
      ["mast_signature", { symbol: "nothingLikeThis" }],
      ["mast_status", {}],
      ["read_hash", { file: "src/auth.ts", line: 9 }],
      ["changesets", {}],
    ] as const) {
      const r = (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; structuredContent?: unknown };
      expect([tool, r.isError ?? false, typeof r.structuredContent]).toEqual([tool, false, "object"]);
    }
    const failed = await call(client, "replace_hash", { file: "src/auth.ts", old_hash: "000000000000", new_content: "x", range: "9" });
    expect([failed.isError, Object.keys(failed.data), failed.data.error.code]).toEqual([true, ["error"], "STALE_ANCHOR"]);
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
    expect(
      await until(
        async () => stderr(),
        (e) => e.includes("startup reindex done"),
      ),
    ).toContain("; checker: 2 potential matches checked, 1 checker edges");
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
    // Every tool fails in one shape: {error: {code, message, recovery}} as the text, no structured content.
    const missing = (await client.callTool({ name: "mast_exports", arguments: { file_path: "src/none.ts" } })) as { isError?: boolean; content: Array<{ text: string }>; structuredContent?: unknown };
    expect([missing.isError, missing.structuredContent, missing.content[0]!.text]).toEqual([
      true,
      undefined,
      JSON.stringify({ error: { code: "FILE_NOT_FOUND", message: "not in the index: src/none.ts", recovery: "Paths are relative to the project root; a new file is indexed by mast_reindex." } }),
    ]);
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
      const result = (await client.callTool({ name: tool, arguments: args })) as { content: Array<{ text: string }>; structuredContent?: unknown; _meta?: Record<string, any> };
      const viaMcp = result.content[0]!.text;
      // The same answer as structured content; `_stats` is in neither (a model reads them), but in the result's `_meta`.
      expect(result.structuredContent).toEqual(JSON.parse(viaMcp));
      expect(viaMcp).not.toContain("_stats");
      expect(result._meta?.["mast/stats"]).toMatchObject({ tool, counted: "estimate", tokens_returned: Math.ceil(Buffer.byteLength(viaMcp) / 4) });
      const viaCli = spawnSync(process.execPath, [MAST, "query", tool, JSON.stringify(args), p.root, "--json"], { encoding: "utf8" });
      expect(viaCli.status).toBe(0);
      // Byte for byte.
      expect(viaCli.stdout).toBe(`${viaMcp}\n`);
      if (tool === "mast_callers") {
        expect(JSON.parse(viaMcp).verified_callers).toEqual([{ file_path: "src/auth.ts", resolution: "field_type", sites: ["9 AuthService.validate: return this.repo.find(token) !== null;"] }]);
      }
    }
    // A failure too: the same text on stdout (with its one stderr line and exit code).
    const failed = (await client.callTool({ name: "mast_exports", arguments: { file_path: "src/none.ts" } })) as { content: Array<{ text: string }> };
    const failedCli = spawnSync(process.execPath, [MAST, "query", "mast_exports", '{"file_path":"src/none.ts"}', p.root, "--json"], { encoding: "utf8" });
    expect([failedCli.status, failedCli.stdout, failedCli.stderr.split("\n")[0]!.slice(0, 31)]).toEqual([1, `${failed.content[0]!.text}\n`, "mast: error FILE_NOT_FOUND: not"]);
  });

  it("serves the edit toolset: the same data as the hashpilot CLI for the same call, writes through the one writer, errors as the envelope's error object", async () => {
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
    const stale = (await client.callTool({ name: "replace_hash", arguments: { ...dry, dry_run: false } })) as { isError?: boolean; content: Array<{ text: string }>; structuredContent?: unknown };
    // The same shape as an index tool's failure: the envelope's error object alone (the hashpilot CLI answers with the whole envelope).
    expect([stale.isError, stale.structuredContent, stale.content[0]!.text]).toEqual([
      true,
      undefined,
      JSON.stringify({
        error: {
          code: "STALE_ANCHOR",
          message: `anchor ${dry.old_hash} no longer matches: lines 9-9 changed since they were read, and no range of the same height has it, so it could not be relocated. Re-read the file and retry.`,
          recovery: "Re-read the file (read-hash or read-many) and retry with the fresh hash.",
          details: { currentHash: "be45bb4f827d" },
        },
      }),
    ]);
    const viaHashpilot = viaCli(["replace-hash", "src/auth.ts", dry.old_hash, dry.new_content, "--range", "9"]);
    expect(viaHashpilot).toEqual({ apiVersion: "1", ok: false, command: "replace-hash", data: null, error: JSON.parse(stale.content[0]!.text).error, warnings: [] });
    const tools = await client.listTools();
    const annotations = Object.fromEntries(tools.tools.filter((t) => ["read_hash", "replace_hash", "undo"].includes(t.name)).map((t) => [t.name, t.annotations]));
    // A writing tool states no hint MCP assumes (destructive); `--schemas full` lists all four and the title.
    expect(annotations).toEqual({ read_hash: { readOnlyHint: true }, replace_hash: undefined, undo: undefined });
  });

  it("serves route_edit: an AST rename and a batch over the SDK client, the index caught up, a refusal as an error", async () => {
    const p = project();
    mkdirSync(join(p.root, ".git"));
    await runIndex(p.config(), { mode: "full" });
    const { client } = await connect([p.root, "--no-startup-reindex"], { HASHPILOT_HOME: scratchDir() });
    const rename = await call(client, "route_edit", { file: "src/auth.ts", operation: "rename-symbol", symbol: "AuthService.validate", new_name: "check" });
    expect(rename.isError).toBe(false);
    expect(rename.data).toMatchObject({
      ok: true,
      command: "route_edit",
      data: { route: "ast", changes: 1, message: "Renamed 1 occurrence of 'AuthService.validate' to 'check' (member of AuthService)" },
    });
    expect(readFileSync(join(p.root, "src/auth.ts"), "utf8")).toContain("  check(token: string): boolean {");
    const signature = await call(client, "mast_signature", { symbol: "AuthService.check" });
    expect(signature.data.results).toMatchObject([{ kind: "method", file_path: "src/auth.ts", line: 8, signature: "check(token: string): boolean" }]);
    const batch = await call(client, "route_edit", { files: ["src/repo.ts", "src/index.ts"], operation: "add-import", symbol: "{ log } from ./log.js" });
    expect(batch.data.data.summary).toMatchObject({ total: 2, succeeded: 2, failed: 0, conflicts: 0 });
    expect(readFileSync(join(p.root, "src/repo.ts"), "utf8").split("\n")[0]).toBe('import { log } from "./log.js";');
    const refused = await call(client, "route_edit", { file: "src/repo.ts", operation: "replace-body", symbol: "nothing", content: "return null;" });
    expect(refused.isError).toBe(true);
    expect(refused.data).toMatchObject({ error: { code: "SYMBOL_NOT_FOUND" } });
    expect(Object.keys(refused.data)).toEqual(["error"]);
  });

  it("serves verify_changes: a failing check is a VERIFY_FAILED error whose revert puts the edit made over MCP back, and the index follows", async () => {
    const p = project();
    mkdirSync(join(p.root, ".git"));
    writeFileSync(
      join(p.root, "lint.mjs"),
      'import { readFileSync } from "node:fs";\nconst bad = process.argv.slice(2).filter((f) => readFileSync(f, "utf8").includes("console.log"));\nfor (const f of bad) console.error(`${f}: no console.log`);\nprocess.exit(bad.length ? 1 : 0);\n',
    );
    await runIndex(p.config(), { mode: "full" });
    const { client } = await connect([p.root, "--no-startup-reindex"], { HASHPILOT_HOME: scratchDir() });
    const original = readFileSync(join(p.root, "src/auth.ts"), "utf8");
    const read = await call(client, "read_hash", { file: "src/auth.ts", line: 1 });
    const edit = await call(client, "replace_hash", { file: "src/auth.ts", old_hash: read.data.data.lineHash, range: "1", new_content: 'console.log("debug");\n' + original.split("\n")[0] });
    expect(edit.isError, JSON.stringify(edit.data)).toBe(false);
    const verified = await call(client, "verify_changes", { files: ["src/auth.ts"], linter: "node lint.mjs", revert_on_failure: true });
    expect(verified.isError).toBe(true);
    expect(verified.data).toMatchObject({
      error: {
        code: "VERIFY_FAILED",
        message: "verification failed: linter; 1 file(s) put back as before the edit",
        details: { overall: "fail", checksRun: ["linter"], linter: { passed: false, exitCode: 1, output: "src/auth.ts: no console.log\n" }, revertedFiles: [join(p.root, "src/auth.ts")] },
      },
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
    const build = spawnSync(process.execPath, [MAST, "structural", "build", "--max_precision", "ast", "--json"], {
      cwd: p.root,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", MAST_CTAGS: "" },
    });
    expect(build.status).toBe(0);
    expect(JSON.parse(build.stdout)).toMatchObject({ status: "complete", units_total: 3 });
    const { client } = await connect([p.root, "--toolsets", "read,structural"]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => !n.startsWith("mast_"))).toEqual(["resolve_symbol", "find_callers", "find_callees", "get_function_boundary", "get_coverage"]);
    const resolved = await call(client, "resolve_symbol", { name: "Repo.find" });
    expect(resolved.data).toMatchObject({
      total: 1,
      ambiguous: false,
      results: [{ qualified_name: "Repo.find", file_path: "src/repo.ts", start_line: 2, end_line: 4, precision: "ast", backend: "tree-sitter" }],
    });
    const callers = await call(client, "find_callers", { symbol_id: resolved.data.results[0].symbol_id });
    expect(callers.data.results.map((r: { file_path: string; line: number; caller_name: string; edge_kind: string }) => `${r.file_path}:${r.line} ${r.caller_name} ${r.edge_kind}`)).toEqual([
      "src/auth.ts:9 AuthService.validate virtual",
    ]);
    expect((await call(client, "get_function_boundary", { file: "src/auth.ts", line: 9 })).data).toMatchObject({ name: "AuthService.validate", start_line: 8, end_line: 10 });
    expect((await call(client, "get_coverage", {})).data).toMatchObject({ total_files: 3, indexed_files: 3, partition_status: "complete" });
    const bad = await call(client, "find_callers", { symbol_id: "" });
    expect(bad.isError).toBe(true);
    // Another state root holding no index: every answer says so.
    const { client: other } = await connect([p.root, "--toolsets", "structural", "--structural-root", scratchDir()]);
    expect((await call(other, "resolve_symbol", { name: "Repo.find" })).data).toMatchObject({ total: 0, coverage: { partition_status: "empty" } });
  });
});
