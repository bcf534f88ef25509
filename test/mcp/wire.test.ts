// No single message ends an MCP stdio session, with the real SDK client: a request over the
// request limit is answered with a JSON-RPC error to its id and the next call is served, and an
// answer whose message (its JSON plus the escaped text copy) would pass the client's read limit is
// cut, saying how much it left out, so the client stays connected.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LIST_BUDGET_BYTES } from "../../src/base/budget.js";
import { runIndex } from "../../src/index/run.js";
import { MAX_REQUEST_BYTES, requestIdOf } from "../../src/mcp/stdio.js";
import { BASE_FILES, tempSpace } from "../helpers/project.js";

const MAST = join(import.meta.dirname, "..", "..", "dist", "bin", "mast.js");
/** The SDK client's stdio read limit: a message over it closes the connection. */
const SDK_READ_LIMIT = 10 * 1024 * 1024;
const space = tempSpace(BASE_FILES);
let clients: Client[] = [];
afterEach(async () => {
  for (const c of clients) await c.close();
  clients = [];
});

async function serve(root: string): Promise<{ client: Client; closed: () => boolean; stderr: () => string }> {
  const home = space.dir("mast-wire-home-");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAST, "serve", root, "--no-startup-reindex", "--toolsets", "read,edit,more"],
    env: { PATH: process.env.PATH ?? "", HASHPILOT_HOME: home, HOME: home },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: "mast-wire-test", version: "1.0.0" });
  let closed = false;
  client.onclose = () => (closed = true);
  await client.connect(transport);
  clients.push(client);
  return { client, closed: () => closed, stderr: () => err };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; data: any; raw: unknown }> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
  return { isError: r.isError === true, data: JSON.parse(r.content[0]!.text), raw: r };
}

async function indexed(files: Record<string, string>): Promise<string> {
  const p = space.project({ ...BASE_FILES, ...files });
  mkdirSync(join(p.root, ".git"));
  await runIndex(p.config(), { mode: "full" });
  return p.root;
}

describe("one message never ends an MCP stdio session", () => {
  it("answers a request over the limit with a JSON-RPC error to its id, and serves the next one", async () => {
    const root = await indexed({});
    const { client, closed, stderr } = await serve(root);
    const content = "x".repeat(11 * 1024 * 1024);
    const refused = await client.callTool({ name: "replace_hash", arguments: { file: "src/repo.ts", old_hash: "0123456789ab", new_content: content, range: "1" } }).then(
      () => null,
      (err: { code?: number; message: string; data?: unknown }) => ({ code: err.code, message: err.message, data: err.data }),
    );
    expect(refused).not.toBeNull();
    expect(refused!.code).toBe(-32600);
    expect(refused!.message).toContain(`over the ${MAX_REQUEST_BYTES}-byte request limit`);
    expect(refused!.data).toMatchObject({ code: "REQUEST_TOO_LARGE", limit: MAX_REQUEST_BYTES });
    expect((refused!.data as { bytes: number }).bytes).toBeGreaterThan(content.length);
    // Nothing was written, the connection is up, and the next call is answered.
    expect(readFileSync(join(root, "src/repo.ts"), "utf8")).toBe(BASE_FILES["src/repo.ts"]);
    const next = await call(client, "read_hash", { file: "src/repo.ts", line: 1 });
    expect([next.isError, next.data.data.content, closed()]).toEqual([false, "export class Repo {", false]);
    expect(stderr()).toContain("REQUEST_TOO_LARGE");
  }, 60_000);

  it("finds a cut-off request's id where clients write it: first (after jsonrpc) or last", () => {
    expect(requestIdOf('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"', "")).toBe(7);
    expect(requestIdOf('{ "id" : "a\\"b", "method"', "")).toBe('a"b');
    expect(requestIdOf('{"method":"tools/call","params":{"arguments":{"c":"', 'xxxx"}},"jsonrpc":"2.0","id":12}\r')).toBe(12);
    // A nested id, an id inside a string, or none at either end: no id.
    expect(requestIdOf('{"method":"m","params":{"id":3,', 'xx","id":4}}')).toBeUndefined();
    expect(requestIdOf('{"method":"m","params":{"s":"', 'x\\",\\"id\\":5}"}')).toBeUndefined();
    expect(requestIdOf("xxxx", "xxxx")).toBeUndefined();
  });

  it("cuts a quote-heavy grep answer to fit the message, saying how many matches it left out; the client stays connected", async () => {
    // 1,000 lines of 3,000 quotes: each quote is 2 bytes in the answer's JSON and 4 more in its escaped text copy.
    const LINES = 1000;
    const line = '"'.repeat(3000);
    const root = await indexed({ "quotes.txt": `${line}\n`.repeat(LINES) });
    const { client, closed } = await serve(root);
    const r = await call(client, "grep_many", { pattern: '"', paths: ["quotes.txt"], max_results: LINES });
    const results = r.data.data.results as Array<{ line: number; content: string }>;
    // The matches that fit the list budget — each counted as its JSON plus its escaped copy — in order.
    let kept = 0;
    for (let bytes = 4; kept < LINES; kept++) {
      const json = JSON.stringify({ ...results[0], line: kept + 1 });
      bytes += Buffer.byteLength(json) + Buffer.byteLength(JSON.stringify(json));
      if (bytes > LIST_BUDGET_BYTES) break;
    }
    expect(r.isError).toBe(false);
    expect(results.map((m) => m.line)).toEqual(Array.from({ length: kept }, (_, i) => i + 1));
    expect(results.every((m) => m.content === line)).toBe(true);
    expect(r.data.data.truncated).toBe(true);
    expect(r.data.warnings).toEqual([{ code: "RESULT_TRUNCATED", message: `${LINES - kept} more match(es) were left out (the answer cap): narrow the paths or the pattern`, omitted: LINES - kept }]);
    expect(Buffer.byteLength(JSON.stringify(r.raw))).toBeLessThan(SDK_READ_LIMIT);
    const next = await call(client, "read_hash", { file: "src/repo.ts", line: 1 });
    expect([next.isError, next.data.data.content, closed()]).toEqual([false, "export class Repo {", false]);
  }, 60_000);
});
