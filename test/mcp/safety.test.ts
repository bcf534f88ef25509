// `mast serve` under hostile input (issue #9) with the real MCP SDK client: a runaway pattern or
// a large diff never stops the server from answering other calls, arguments no tool accepts (NUL bytes,
// unpaired surrogates, FTS5 syntax) get INVALID_ARGUMENT or a real answer — never INTERNAL —
// and absolute in-project paths work for the index tools too.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { applyPatch } from "diff";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_ANSWER_BYTES } from "../../src/base/budget.js";
import { runIndex } from "../../src/index/run.js";
import { BASE_FILES, tempSpace } from "../helpers/project.js";

const MAST = join(import.meta.dirname, "..", "..", "dist", "bin", "mast.js");
const space = tempSpace(BASE_FILES);
let clients: Client[] = [];
afterEach(async () => {
  for (const c of clients) await c.close();
  clients = [];
});

async function serve(root: string, home: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAST, "serve", root, "--no-startup-reindex", "--toolsets", "read,edit,more,admin"],
    env: { PATH: process.env.PATH ?? "", HASHPILOT_HOME: home, HOME: home },
    stderr: "pipe",
  });
  const client = new Client({ name: "mast-safety-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; data: any; ms: number }> {
  const started = performance.now();
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
  return { isError: r.isError === true, data: JSON.parse(r.content[0]!.text), ms: performance.now() - started };
}

/** The error code of an answer: an edit tool's envelope or an index tool's `{ error }`. */
const codeOf = (r: { data: any }) => r.data.error?.code ?? null;

describe("mast serve under hostile input (#9)", () => {
  it("keeps answering while a runaway pattern is stopped off its thread (REGEX_TIMEOUT)", async () => {
    const p = space.project({ ...BASE_FILES, "long.txt": `${"a".repeat(40)}b\n` });
    mkdirSync(join(p.root, ".git"));
    await runIndex(p.config(), { mode: "full" });
    const client = await serve(p.root, space.dir("mast-home-"));
    const runaway = call(client, "grep_many", { pattern: "(a+)+$", paths: ["long.txt"] });
    await new Promise((r) => setTimeout(r, 150));
    const meanwhile = await call(client, "read_hash", { file: "src/repo.ts", line: 1 });
    expect([meanwhile.isError, meanwhile.data.data.content, meanwhile.ms < 1_000]).toEqual([false, "export class Repo {", true]);
    const search = await call(client, "mast_search", { query: "Repo", limit: 1 });
    expect([search.isError, search.data.results[0].symbol_name]).toEqual([false, "Repo"]);
    const stopped = await runaway;
    expect([stopped.isError, codeOf(stopped), stopped.ms < 5_000]).toEqual([true, "REGEX_TIMEOUT", true]);
  });

  it("keeps answering while a large diff_generate runs off its thread", async () => {
    const p = space.project(BASE_FILES);
    mkdirSync(join(p.root, ".git"));
    await runIndex(p.config(), { mode: "full" });
    const client = await serve(p.root, space.dir("mast-home-"));
    // Every other line changed: the minimal-diff search runs its whole 2 s budget.
    const old = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const changed = Array.from({ length: 5000 }, (_, i) => (i % 2 ? `line ${i}` : `changed ${i}`)).join("\n") + "\n";
    const order: string[] = [];
    const diff = call(client, "diff_generate", { file: "big.txt", old_content: old, new_content: changed }).then((r) => (order.push("diff"), r));
    await new Promise((r) => setTimeout(r, 150));
    const meanwhile = await call(client, "read_hash", { file: "src/repo.ts", line: 1 }).then((r) => (order.push("read_hash"), r));
    expect([meanwhile.isError, meanwhile.data.data.content]).toEqual([false, "export class Repo {"]);
    const generated = await diff;
    expect(order).toEqual(["read_hash", "diff"]);
    expect(generated.isError).toBe(false);
    expect(applyPatch(old, generated.data.data.diff)).toBe(changed);
  });

  it("refuses NUL bytes and unpaired surrogates in any argument; FTS5 syntax in a query is searched as text; absolute in-project paths work", async () => {
    const p = space.project(BASE_FILES);
    mkdirSync(join(p.root, ".git"));
    await runIndex(p.config(), { mode: "full" });
    const client = await serve(p.root, space.dir("mast-home-"));
    for (const [tool, args] of [
      ["mast_search", { query: "Repo\0find" }],
      ["mast_exports", { file_path: "src/repo.ts\0" }],
      ["read_hash", { file: "src/repo.ts\0", line: 1 }],
      ["replace_hash", { file: "src/repo.ts", old_hash: "0123456789ab", new_content: "a\0b", range: "1" }],
      ["mast_search", { query: "Repo \ud800 find" }],
      ["diff_apply", { file: "src/new.ts", patch: "--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1 @@\n+\udc00\n" }],
    ] as const) {
      const r = await call(client, tool, args);
      expect([tool, r.isError, codeOf(r)]).toEqual([tool, true, "INVALID_ARGUMENT"]);
    }
    for (const query of ['"', "NEAR(a b", "a AND OR b", "^x", "col:term", "(((", "*"]) {
      const r = await call(client, "mast_search", { query });
      expect([query, r.isError, Array.isArray(r.data.results)]).toEqual([query, false, true]);
    }
    // The documented maximum query length is searched; one character more is refused.
    const longest = await call(client, "mast_search", { query: "Repo ".repeat(200), limit: 1 });
    expect([longest.isError, longest.data.results[0].file_path]).toEqual([false, "src/repo.ts"]);
    const over = await call(client, "mast_search", { query: "x".repeat(1001) });
    expect([over.isError, codeOf(over)]).toEqual([true, "INVALID_ARGUMENT"]);
    // FTS5 syntax is searched as text: `find(` finds the method that has it.
    const literal = await call(client, "mast_search", { query: "find(", limit: 1 });
    expect(literal.data.results[0].file_path).toBe("src/repo.ts");
    const exports = await call(client, "mast_exports", { file_path: join(p.root, "src/repo.ts") });
    expect([exports.isError, exports.data.exports.map((e: { name: string }) => e.name)]).toEqual([false, ["Repo"]]);
    const outside = await call(client, "mast_exports", { file_path: "/etc/passwd" });
    expect(codeOf(outside)).toBe("PATH_DENIED");
  });

  it("read_many of 1000 files of 20 KB answers what fits: whole files in order, the one crossing the cap cut at a line end, the rest counted and listed", async () => {
    const p = space.project(BASE_FILES);
    mkdirSync(join(p.root, ".git"));
    const line = `${"x".repeat(99)}\n`;
    const names = Array.from({ length: 1000 }, (_, i) => `many/f${String(i).padStart(4, "0")}.txt`);
    mkdirSync(join(p.root, "many"));
    for (const name of names) writeFileSync(join(p.root, name), line.repeat(200));
    await runIndex(p.config(), { mode: "full" });
    const client = await serve(p.root, space.dir("mast-home-"));
    const r = (await client.callTool({ name: "read_many", arguments: { files: names } })) as { isError?: boolean; content: Array<{ text: string }> };
    expect(r.isError ?? false).toBe(false);
    expect(Buffer.byteLength(r.content[0]!.text)).toBeLessThan(MAX_ANSWER_BYTES);
    const { data, warnings } = JSON.parse(r.content[0]!.text) as { data: any[]; warnings: any[] };
    const whole = data.slice(0, -1);
    const cut = data.at(-1);
    expect(whole.length).toBeGreaterThan(150);
    expect(whole.every((d, i) => d.path === join(p.root, names[i]!) && d.content === line.repeat(200) && d.lines === 200 && d.error === null && d.truncated === undefined)).toBe(true);
    expect([cut.path, cut.truncated, cut.lines, cut.content]).toEqual([join(p.root, names[data.length - 1]!), true, 200, line.repeat(cut.contentEndLine)]);
    expect(cut.contentEndLine).toBeLessThan(200);
    const left = names.slice(data.length).map((n) => join(p.root, n));
    expect(warnings.map((w) => [w.code, w.omitted, w.files])).toEqual([["RESULT_TRUNCATED", 1000 - data.length, left]]);
  });
});
