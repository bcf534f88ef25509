// Progress notifications over MCP: a mast_reindex called with a progress token reports its parsing
// (files done of the work set) as it goes, increasing, ending at the total; the CLI's bar is
// tested in test/cli/mast-cli.test.ts.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { makeProject } from "../helpers/project.js";

const MAST = join(import.meta.dirname, "..", "..", "dist", "bin", "mast.js");
let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

describe("progress notifications", () => {
  it("mast_reindex full reports files parsed of the total while a progress token is given", async () => {
    const files: Record<string, string> = {};
    // Enough work that parsing spans several 200 ms reports on this machine.
    for (let i = 0; i < 400; i++) files[`src/m${i}.ts`] = Array.from({ length: 60 }, (_, j) => `export function f${i}_${j}(a: number): number {\n  return a + ${j};\n}\n`).join("");
    const p = makeProject(files);
    cleanups.push(() => p.cleanup());
    await runIndex(p.config(), { mode: "full", persistConfig: true });
    const transport = new StdioClientTransport({ command: process.execPath, args: [MAST, "serve", p.root, "--no-startup-reindex"], env: { PATH: process.env.PATH ?? "" }, stderr: "pipe" });
    const client = new Client({ name: "mast-test", version: "1.0.0" });
    await client.connect(transport);
    cleanups.push(() => client.close());

    const events: Array<{ progress: number; total?: number; message?: string }> = [];
    const r = (await client.callTool({ name: "mast_reindex", arguments: { full: true } }, undefined, { onprogress: (e) => events.push(e), timeout: 120_000 })) as { content: Array<{ text: string }> };
    const report = JSON.parse(r.content[0]!.text);
    expect(report.files_indexed).toBe(400);
    expect(events[0]).toEqual({ progress: 0, message: "walking the project" });
    const parsing = events.slice(1);
    expect(parsing.length).toBeGreaterThanOrEqual(1);
    expect(parsing.at(-1)).toEqual({ progress: 400, total: 400, message: "parsed 400 of 400 files" });
    for (let i = 1; i < events.length; i++) expect(events[i]!.progress).toBeGreaterThan(events[i - 1]!.progress);

    // Without a token the call answers as before (incremental: nothing changed).
    const again = (await client.callTool({ name: "mast_reindex", arguments: {} })) as { content: Array<{ text: string }> };
    expect(JSON.parse(again.content[0]!.text)).toMatchObject({ files_indexed: 0, files_skipped: 400 });
  }, 180_000);
});
