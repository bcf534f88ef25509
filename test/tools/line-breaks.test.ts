// One line-splitting rule for every tool: lines end at LF or CRLF, and a lone CR is text (as
// tree-sitter's rows count them). A declaration in a file with lone CRs, CRLFs and mixes of them
// is on the same line for the index (mast_search, mast_signature), read_hash, ast_find_symbols
// and grep_many, and an edit by that line keeps every other byte.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { makeProject, type TestProject } from "../helpers/project.js";

/** Each file, the function it declares, and that declaration's line (and its text) under the rule. */
const FILES = [
  { file: "src/cr.ts", text: "a\rb\rfunction crFn() {}\n", name: "crFn", line: 1, content: "a\rb\rfunction crFn() {}" },
  { file: "src/crlf.ts", text: "a\r\nb\r\nfunction crlfFn() {}\r\n", name: "crlfFn", line: 3, content: "function crlfFn() {}" },
  { file: "src/mixed.ts", text: "a\r\n\rb\n\rfunction mixedFn() {}\n", name: "mixedFn", line: 3, content: "\rfunction mixedFn() {}" },
] as const;

let project: TestProject;
let ctx: ToolContext;
let home: string;
const previousHome = process.env.HASHPILOT_HOME;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "mast-line-breaks-home-"));
  process.env.HASHPILOT_HOME = home;
  project = makeProject(Object.fromEntries(FILES.map((f) => [f.file, f.text])));
  await runIndex(project.config(), { mode: "full" });
  ctx = createToolContext(project.config());
});
afterAll(() => {
  ctx?.close();
  project?.cleanup();
  rmSync(home, { recursive: true, force: true });
  if (previousHome === undefined) delete process.env.HASHPILOT_HOME;
  else process.env.HASHPILOT_HOME = previousHome;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const call = (tool: string, args: Record<string, unknown>) => callTool(ctx, tool, args) as Promise<any>;

describe("line numbers agree across tools whatever the line breaks", () => {
  it.each(FILES)("$file: the index, read_hash, ast_find_symbols and grep_many put $name on line $line", async ({ file, name, line, content }) => {
    const signature = await call("mast_signature", { symbol: name });
    const search = await call("mast_search", { query: name, limit: 1 });
    const read = await call("read_hash", { file, line, context: 0 });
    const symbols = await call("ast_find_symbols", { file });
    const grep = await call("grep_many", { pattern: `function ${name}`, paths: [file] });
    expect({
      signature: signature.results.map((r: { line: number }) => r.line),
      search: search.results.map((r: { start_line: number }) => r.start_line),
      read: read.data.content,
      symbols: symbols.data.symbols.map((s: { name: string; startLine: number }) => [s.name, s.startLine]),
      grep: grep.data.results.map((r: { line: number }) => r.line),
    }).toEqual({ signature: [line], search: [line], read: content, symbols: [[name, line]], grep: [line] });
  });

  it("an edit of a line holding lone CRs replaces that line and keeps every other byte", async () => {
    const read = await call("read_hash", { file: "src/mixed.ts", line: 2, context: 0 });
    expect(read.data.content).toBe("\rb");
    const edit = await call("replace_hash", { file: "src/mixed.ts", old_hash: read.data.lineHash, range: "2", new_content: "\rc", expected_file_hash: read.data.fileHash });
    expect(edit.ok).toBe(true);
    expect(readFileSync(join(project.root, "src/mixed.ts"), "utf8")).toBe("a\r\n\rc\n\rfunction mixedFn() {}\n");
  });
});
