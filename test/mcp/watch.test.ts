// `mast serve --watch` end to end with the SDK client: files created, rewritten and deleted by
// plain writes are found (or gone) without a mast_reindex; rapid saves make one run; the
// excludes and the state dir never trigger one; SIGTERM ends the server. The queue's retry and
// drop are exercised with startWatch and a run that fails as a held lock does.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MastError } from "../../src/base/errors.js";
import { runIndex, type IndexReport } from "../../src/index/run.js";
import { startWatch } from "../../src/index/watch.js";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";

const MAST = join(import.meta.dirname, "..", "..", "dist", "bin", "mast.js");

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function project(): Promise<TestProject> {
  const p = makeProject(BASE_FILES);
  cleanups.push(() => p.cleanup());
  await runIndex(p.config(), { mode: "full", persistConfig: true });
  return p;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(fn: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (await fn()) return Date.now() - start;
    await sleep(50);
  }
  throw new Error(`not within ${timeoutMs} ms`);
}

async function serveWatching(root: string) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAST, "serve", root, "--watch", "--no-startup-reindex"], env: { PATH: process.env.PATH ?? "" }, stderr: "pipe" });
  let log = "";
  transport.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const client = new Client({ name: "mast-test", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  await until(() => log.includes("watching for changes"), 10_000);
  const signature = async (symbol: string): Promise<string[]> => {
    const r = (await client.callTool({ name: "mast_signature", arguments: { symbol } })) as { content: Array<{ text: string }> };
    return (JSON.parse(r.content[0]!.text).results as Array<{ file_path: string }>).map((x) => x.file_path);
  };
  return { client, transport, log: () => log, runs: () => log.split("\n").filter((l) => l.includes("change(s):")).length, signature };
}

// The bound: the 500 ms debounce plus 1 s for the run, with room for a loaded 2-core machine.
const FOUND_WITHIN_MS = 4_000;

describe("mast serve --watch", () => {
  it("finds a created file, follows its rewrite and forgets it once deleted, with no mast_reindex", async () => {
    const p = await project();
    const s = await serveWatching(p.root);
    expect(await s.signature("freshlyMade")).toEqual([]);

    p.write("src/fresh.ts", "export function freshlyMade(): number {\n  return 1;\n}\n");
    await until(async () => (await s.signature("freshlyMade")).length === 1, FOUND_WITHIN_MS);
    expect(await s.signature("freshlyMade")).toEqual(["src/fresh.ts"]);

    p.write("src/fresh.ts", "export function renamedAfter(): number {\n  return 2;\n}\n");
    await until(async () => (await s.signature("renamedAfter")).length === 1, FOUND_WITHIN_MS);
    expect(await s.signature("freshlyMade")).toEqual([]);

    p.remove("src/fresh.ts");
    await until(async () => (await s.signature("renamedAfter")).length === 0, FOUND_WITHIN_MS);
    // A new directory's files are found too.
    p.write("lib/deep/more.ts", "export const inNewDir = 1;\n");
    await until(async () => (await s.signature("inNewDir")).length === 1, FOUND_WITHIN_MS);
  }, 60_000);

  it("coalesces rapid saves into one run, and ignores the excludes, .git and the state dir", async () => {
    const p = await project();
    const s = await serveWatching(p.root);
    for (let i = 0; i < 10; i++) {
      p.write("src/busy.ts", `export const busy${i} = ${i};\n`);
      await sleep(20);
    }
    await until(() => s.runs() === 1, FOUND_WITHIN_MS);
    expect(s.log()).toContain("mast serve --watch: 1 change(s): 1 indexed, 0 removed");
    expect(await s.signature("busy9")).toEqual(["src/busy.ts"]);

    mkdirSync(join(p.root, "node_modules", "dep"), { recursive: true });
    writeFileSync(join(p.root, "node_modules", "dep", "index.ts"), "export const dep = 1;\n");
    mkdirSync(join(p.root, ".git"), { recursive: true });
    writeFileSync(join(p.root, ".git", "HEAD.ts"), "x\n");
    writeFileSync(join(p.root, ".mast", "scratch.ts"), "x\n");
    writeFileSync(join(p.root, "notes.bin"), "not an indexed extension\n");
    await sleep(1_500);
    expect(s.runs()).toBe(1);
  }, 60_000);

  it("SIGTERM closes the watcher and the local socket and ends the server", async () => {
    const p = await project();
    const s = await serveWatching(p.root);
    const pid = s.transport.pid!;
    const exited = new Promise<void>((resolve) => (s.transport.onclose = () => resolve()));
    process.kill(pid, "SIGTERM");
    await Promise.race([exited, sleep(5_000).then(() => Promise.reject(new Error("the server did not exit on SIGTERM")))]);
    expect(() => process.kill(pid, 0)).toThrow();
    // Its cleanup ran (a library's signal hook once re-raised SIGTERM before it): the local socket and token are gone.
    expect([existsSync(join(p.root, ".mast", "serve.sock")), existsSync(join(p.root, ".mast", "serve.token"))]).toEqual([false, false]);
  }, 30_000);
});

describe("the watch queue", () => {
  const report = { files_indexed: 1, files_deleted: 0 } as IndexReport;

  it("retries a failed run on the next tick and drops the batch with a warning after 3 failures", async () => {
    const p = makeProject({ "a.ts": "export const a = 1;\n" });
    cleanups.push(() => p.cleanup());
    const lines: string[] = [];
    let calls = 0;
    let fail = 3;
    const watch = startWatch(p.config(), {
      debounceMs: 50,
      log: (l) => lines.push(l),
      run: async () => {
        calls++;
        if (fail-- > 0) throw new MastError("LOCK_HELD", "index is locked by mast_reindex");
        return report;
      },
    });
    cleanups.push(() => watch.close());
    await watch.ready;
    p.write("b.ts", "export const b = 1;\n");
    await until(() => lines.some((l) => l.includes("dropped after 3 failed runs")), 5_000);
    expect(calls).toBe(3);
    expect(lines.filter((l) => l.includes("retrying"))).toHaveLength(2);
    // The next change runs again, and succeeds.
    p.write("c.ts", "export const c = 1;\n");
    await until(() => lines.some((l) => l.includes("1 indexed")), 5_000);
    expect(calls).toBe(4);
  }, 30_000);

  it("never overlaps runs: a change during a run waits for it", async () => {
    const p = makeProject({ "a.ts": "export const a = 1;\n" });
    cleanups.push(() => p.cleanup());
    let active = 0;
    let maxActive = 0;
    let calls = 0;
    const watch = startWatch(p.config(), {
      debounceMs: 20,
      log: () => undefined,
      run: async () => {
        calls++;
        maxActive = Math.max(maxActive, ++active);
        await sleep(400);
        active--;
        return report;
      },
    });
    cleanups.push(() => watch.close());
    await watch.ready;
    p.write("b.ts", "export const b = 1;\n");
    await until(() => calls === 1, 5_000);
    p.write("c.ts", "export const c = 1;\n");
    p.write("d.ts", "export const d = 1;\n");
    await until(() => calls === 2, 5_000);
    await sleep(600);
    expect(maxActive).toBe(1);
    expect(calls).toBe(2);
  }, 30_000);
});
