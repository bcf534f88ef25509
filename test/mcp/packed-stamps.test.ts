// A running server keeps file-stamps.bin up with graph.db (mcp/server.ts keepPackedStamps): after
// its just-in-time refresh commits a file's rows, the copy names an older files generation (every
// `mast status` would read the stamps from the rows); once a check (every 2.5 s) finds no commit
// moved the generation since the one before, a worker
// writes it again, naming graph.db's generation and holding every row's stamp.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { Store } from "../../src/store/store.js";
import { FileStamps, packedGeneration } from "../../src/store/file-stamps.js";
import { makeProject } from "../helpers/project.js";

const MAST = join(import.meta.dirname, "..", "..", "dist", "bin", "mast.js");
let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

describe("a server's packed stamps", () => {
  it("are written again after its refreshes commit file rows, naming graph.db's generation with every row's stamp", async () => {
    const p = makeProject({ "src/a.ts": "export function alpha(): number {\n  return 1;\n}\n", "src/b.ts": "export const b = 2;\n" });
    cleanups.push(() => p.cleanup());
    const past = new Date(Date.now() - 3_600_000);
    for (const f of ["src/a.ts", "src/b.ts"]) utimesSync(join(p.root, f), past, past);
    await runIndex(p.config(), { mode: "full", persistConfig: true });
    const paths = statePaths(p.config().state_dir);
    const generation = () => {
      const store = Store.open(paths.graphDb, { readonly: true });
      try {
        return store.filesGeneration();
      } finally {
        store.close();
      }
    };
    const packed = () => packedGeneration(readFileSync(paths.stamps));
    const before = generation();
    expect(packed()).toBe(before);

    const transport = new StdioClientTransport({ command: process.execPath, args: [MAST, "serve", p.root, "--no-startup-reindex"], env: { PATH: process.env.PATH ?? "" }, stderr: "pipe" });
    const client = new Client({ name: "mast-test", version: "1.0.0" });
    await client.connect(transport);
    cleanups.push(() => client.close());
    // A file changed under the server: the call naming it refreshes its rows first (a commit).
    p.write("src/a.ts", "export function alpha(): number {\n  return 1;\n}\nexport function beta(): string {\n  return 'b';\n}\n");
    const r = (await client.callTool({ name: "mast_signature", arguments: { symbol: "beta", file_path: "src/a.ts" } })) as { content: Array<{ text: string }> };
    expect(JSON.parse(r.content[0]!.text).results[0].signature).toBe("export function beta(): string");
    const after = generation();
    expect(after).not.toBe(before);

    const deadline = Date.now() + 15_000;
    while (packed() !== after && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(packed()).toBe(after);
    // The copy is the rows: each path's stamp as the files table has it.
    const store = Store.open(paths.graphDb, { readonly: true });
    try {
      const copy = FileStamps.fromPacked(readFileSync(paths.stamps), after, () => "")!;
      const rows = store.stampRows();
      expect([...copy.keys()]).toEqual(rows.map((r) => r[1]).sort());
      for (const [id, path, mtime, size] of rows) expect([copy.get(path)!.id, copy.get(path)!.mtime, copy.get(path)!.size]).toEqual([id, mtime, size]);
    } finally {
      store.close();
    }
  }, 60_000);
});
