// `mast query` end to end: the same handler an MCP client reaches, pretty or single-line output,
// and its error contract (unknown tool with the nearest name, malformed JSON, schema failure — usage
// errors, exit 2 — and no index), each one line on stderr; a failure of the tool itself is also
// the MCP error text on stdout.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { runMast } from "../helpers/cli.js";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";

let projects: TestProject[] = [];
afterEach(() => {
  for (const p of projects) p.cleanup();
  projects = [];
});
function project(): TestProject {
  const p = makeProject(BASE_FILES);
  projects.push(p);
  return p;
}

describe("mast query", () => {
  it("prints the tool's response, pretty by default and as one line with --json", async () => {
    const p = project();
    await runIndex(p.config(), { mode: "full" });
    const args = ["query", "mast_signature", '{"symbol":"Repo.find"}', p.root];
    const pretty = await runMast(args);
    expect(pretty.code).toBe(0);
    expect(pretty.stdout.split("\n").length).toBeGreaterThan(5);
    const line = await runMast([...args, "--json"]);
    expect(line.code).toBe(0);
    expect(line.stdout.trimEnd().split("\n")).toHaveLength(1);
    const data = JSON.parse(line.stdout);
    expect(JSON.parse(pretty.stdout)).toEqual(data);
    // The text MCP sends: `_stats` are not in it (MCP sends them in the result's `_meta`).
    expect(data._stats).toBeUndefined();
    // The brief answer: no `symbol` (it is the name asked for), no params/return_type (the signature states them), no doc when there is none.
    expect(data.results[0]).toEqual({
      kind: "method",
      file_path: "src/repo.ts",
      line: 2,
      is_exported: true,
      signature: "find(id: string): string | null",
    });
    // Both calls are recorded as `mast serve`'s are, in session mast-query, counted by estimate (4 bytes a token).
    const metrics = await runMast(["metrics", p.root, "--json"]);
    expect(metrics.code).toBe(0);
    const report = JSON.parse(metrics.stdout) as { rows: Array<{ tool_name: string; calls: number; tokens_returned: number }> };
    expect(report.rows.map((r) => [r.tool_name, r.calls, r.tokens_returned])).toEqual([["mast_signature", 2, 2 * Math.ceil(Buffer.byteLength(line.stdout.trimEnd()) / 4)]]);
    expect((await runMast(["metrics", p.root, "--session", "--json"])).stdout).toContain('"session_id": "mast-query"');
  });

  it("names every failure on one stderr line, with exit 2 for a usage error and 1 for the rest; a tool's own failure is on stdout as over MCP", async () => {
    const p = project();
    const notIndexed = await runMast(["query", "mast_search", '{"query":"x"}', p.root]);
    expect(notIndexed.code).toBe(1);
    expect(notIndexed.stderr).toBe(
      `mast: error NOT_INDEXED: no index found at ${join(p.root, ".mast")}; run \`mast init\` / \`mast index\` first (hint: Run \`mast init\` (or \`mast index\`) on the project first.)\n`,
    );
    expect(existsSync(join(p.root, ".mast"))).toBe(false);
    await runIndex(p.config(), { mode: "full" });
    const cases: Array<[string[], string, string, number]> = [
      [["query", "mast_serch", "{}", p.root], "INVALID_ARGUMENT", 'unknown tool "mast_serch" (hint: Did you mean mast_search? (`mast query --help` lists every tool.))', 2],
      [["query", "mast_nope", "{}", p.root], "INVALID_ARGUMENT", "(hint: `mast query --help` (or an MCP tools/list) lists every tool.)", 2],
      [["query", "mast_search", "{not json", p.root], "INVALID_ARGUMENT", "not valid JSON", 2],
      [["query", "mast_search", '{"query": 5}', p.root], "INVALID_ARGUMENT", "query: Invalid input: expected string, received number", 2],
      [["query", "mast_graph", '{"symbol":"x","depth":9}', p.root], "INVALID_ARGUMENT", "depth: Too big: expected number to be <=5", 2],
      [["query", "mast_exports", '{"file_path":"src/none.ts"}', p.root], "FILE_NOT_FOUND", "not in the index: src/none.ts", 1],
      [
        ["status", "/nonexistent-mast-project"],
        "FILE_NOT_FOUND",
        "project path does not exist: /nonexistent-mast-project (hint: Name an existing directory (a relative path is taken from the current directory).)",
        1,
      ],
      // A malformed flag value is a usage error (exit 2), whichever command takes it.
      [["index", p.root, "--threads", "many"], "INVALID_ARGUMENT", '--threads must be an integer from 0 to 64, not "many"', 2],
      [["serve", p.root, "--http", "--toolsets", "nope"], "INVALID_ARGUMENT", "--toolsets takes some of", 2],
      [["serve", p.root, "--http", "--idle-timeout", "0"], "INVALID_ARGUMENT", '--idle-timeout takes a positive number of seconds, not "0"', 2],
      [["serve", p.root, "--http", "--max-sessions", "x"], "INVALID_ARGUMENT", '--max-sessions takes a positive integer, not "x"', 2],
      [["metrics", p.root, "--since", "soon"], "INVALID_ARGUMENT", "--since takes a duration like 1h", 2],
      [["structural", "build", "--max-units", "0"], "INVALID_ARGUMENT", '--max-units must be a positive integer, not "0"', 2],
      [["structural", "query", "resolve_symbol", "{no"], "INVALID_ARGUMENT", "the arguments are not valid JSON", 2],
      [["publish", p.root, "--to", "postgres://h/db", "--keep", "0"], "INVALID_ARGUMENT", '--keep must be a whole number, at least 1, not "0"', 2],
    ];
    // The tool's own failures (arguments its schema refuses, a file not in the index) print what MCP answers: {error: {code, message, recovery}}.
    const toolFailures: Record<string, string> = {
      [cases[3]![0].join(" ")]: JSON.stringify({
        error: { code: "INVALID_ARGUMENT", message: "invalid arguments for mast_search: query: Invalid input: expected string, received number", recovery: "See docs/tools.md for each tool's input." },
      }),
      [cases[4]![0].join(" ")]: JSON.stringify({
        error: { code: "INVALID_ARGUMENT", message: "invalid arguments for mast_graph: depth: Too big: expected number to be <=5", recovery: "See docs/tools.md for each tool's input." },
      }),
      [cases[5]![0].join(" ")]: JSON.stringify({
        error: { code: "FILE_NOT_FOUND", message: "not in the index: src/none.ts", recovery: "Paths are relative to the project root; a new file is indexed by mast_reindex." },
      }),
    };
    for (const [args, code, text, exit] of cases) {
      const r = await runMast([...args, ...(args[0] === "query" ? ["--json"] : [])]);
      expect(r.code, args.join(" ")).toBe(exit);
      expect(r.stdout).toBe(toolFailures[args.join(" ")] ? `${toolFailures[args.join(" ")]}\n` : "");
      const lines = r.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^mast: error ${code}: `));
      expect(lines[0]).toContain(text);
    }
  });
});
