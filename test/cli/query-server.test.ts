// `mast query` with a `mast serve` of the project running (mcp/local.ts): the server answers on the
// state dir's socket, and the CLI prints exactly what it prints answering in its own process
// (stdout, stderr, exit code), for answers and failures alike. A killed server's socket, a wrong token, another project or state dir, a tool the server does not offer:
// the CLI answers in-process. The socket and token are the user's only and go with their server.
import { spawn, type ChildProcess } from "node:child_process";
import { lstatSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { VERSION } from "../../src/base/version.js";
import { askRunningServer, SOCKET_FILE, TOKEN_FILE } from "../../src/mcp/local.js";
import { MAST_BIN, assertBuilt, runMast } from "../helpers/cli.js";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";

const SERVED = "mast: answered by the running mast serve\n";

interface Serving {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  stderr: string;
}

/** Starts `mast serve` (stdin held open) and resolves once it reports ready and its socket is up (or it is told not to make one). */
async function startServe(root: string, extra: string[] = [], expectSocket = true): Promise<Serving> {
  const child = spawn(process.execPath, [MAST_BIN, "serve", root, "--no-startup-reindex", ...extra], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, MAST_STATE_DIR: undefined } as NodeJS.ProcessEnv,
  });
  const serving: Serving = { child, exited: new Promise((resolve) => child.on("close", (code) => resolve(code))), stderr: "" };
  child.stdout!.resume();
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (serving.stderr += d));
  const socket = join(root, ".mast", SOCKET_FILE);
  for (let i = 0; i < 300 && !(serving.stderr.includes("ready") && (!expectSocket || existsSync(socket))); i++) await new Promise((r) => setTimeout(r, 20));
  expect(serving.stderr).toContain("mast serve: ready");
  return serving;
}

async function stopServe(s: Serving): Promise<void> {
  s.child.stdin!.end();
  expect(await s.exited).toBe(0);
}

/** The request line to the socket; on {"accepted":true}, the go line; the reply line back. */
function rawAsk(path: string, request: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    let text = "";
    s.on("data", (d) => {
      text += d;
      if (text === '{"accepted":true}\n') {
        text = "";
        s.write('{"go":true}\n');
      }
    });
    s.on("end", () => resolve(JSON.parse(text))).on("error", reject);
    s.write(`${JSON.stringify(request)}\n`);
  });
}

let p: TestProject;
beforeAll(async () => {
  assertBuilt();
  p = makeProject(BASE_FILES);
  await runIndex(p.config(), { mode: "full" });
});
afterAll(() => p.cleanup());

describe("mast query answered by a running mast serve", () => {
  it("prints what the in-process answer prints, for answers and failures; the CLI itself refuses an unknown tool and bad JSON", async () => {
    const server = await startServe(p.root);
    try {
      const state = join(p.root, ".mast");
      const sock = lstatSync(join(state, SOCKET_FILE));
      expect(sock.isSocket()).toBe(true);
      expect(sock.mode & 0o777).toBe(0o600);
      expect(lstatSync(join(state, TOKEN_FILE)).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(state, TOKEN_FILE), "utf8")).toMatch(/^[0-9a-f]{64}$/);
      // [args, answered by the server]
      const cases: Array<[string[], boolean]> = [
        [["mast_signature", '{"symbol":"Repo.find"}'], true],
        [["mast_signature", '{"symbol":"Repo.find"}', "--json"], true],
        [["mast_search", '{"query":"find repo"}', "--json"], true],
        [["mast_exports", '{"file_path":"src/none.ts"}', "--json"], true],
        [["mast_exports", '{"file_path":"src/none.ts"}'], true],
        [["mast_search", '{"query": 5}', "--json"], true],
        [["mast_graph", '{"symbol":"x","depth":9}'], true],
        // Not offered by a server of the default toolsets (admin): answered in-process.
        [["hashpilot_config", "{}", "--json"], false],
        // Refused before any answer: the tool's name, the JSON.
        [["mast_serch", "{}"], false],
        [["mast_search", "{not json"], false],
      ];
      for (const [args, served] of cases) {
        const via = await runMast(["query", args[0]!, args[1]!, p.root, ...args.slice(2)], { env: { MAST_DEBUG: "1" } });
        const own = await runMast(["query", args[0]!, args[1]!, p.root, "--no-server", ...args.slice(2)]);
        const label = args.join(" ");
        expect(via.stderr.startsWith(SERVED), label).toBe(served);
        expect(via.stdout, label).toBe(own.stdout);
        expect(via.stderr.replace(SERVED, ""), label).toBe(own.stderr);
        expect(via.code, label).toBe(own.code);
      }
      // The served answers are the server's calls: session mast-query holds only the two answered in-process.
      const metrics = JSON.parse((await runMast(["metrics", p.root, "--session", "mast-query", "--json"])).stdout) as { rows: Array<{ tool_name: string; calls: number }> };
      expect(metrics.rows.find((r) => r.tool_name === "mast_signature")?.calls).toBe(2);
    } finally {
      await stopServe(server);
    }
    // Gone with their server.
    expect(existsSync(join(p.root, ".mast", SOCKET_FILE))).toBe(false);
    expect(existsSync(join(p.root, ".mast", TOKEN_FILE))).toBe(false);
  });

  it("answers only the same version, token, project and state dir; a second server leaves the first's socket; an idle connection does not hold the exit", async () => {
    const server = await startServe(p.root);
    try {
      const state = join(p.root, ".mast");
      const path = join(state, SOCKET_FILE);
      const token = readFileSync(join(state, TOKEN_FILE), "utf8");
      const request = { v: 1, version: VERSION, token, root: p.root, state_dir: state, tool: "mast_signature", arguments: { symbol: "Repo.find" } };
      expect(JSON.parse(((await rawAsk(path, request)) as { text: string }).text).results[0].signature).toBe("find(id: string): string | null");
      expect(await rawAsk(path, { ...request, token: "0".repeat(64) })).toEqual({ unavailable: "wrong token" });
      expect(await rawAsk(path, { ...request, version: "0.0.0" })).toEqual({ unavailable: `the server runs mast ${VERSION}` });
      expect(await rawAsk(path, { ...request, root: "/elsewhere" })).toEqual({ unavailable: `the server serves ${p.root} (${state})` });
      expect(await askRunningServer({ root: p.root, stateDir: state, version: VERSION }, { tool: "mast_signature", arguments: { symbol: "Repo.find" } })).toMatchObject({
        text: expect.stringContaining('"signature":"find(id: string): string | null"'),
      });
      expect(await askRunningServer({ root: p.root, stateDir: state, version: "0.0.0" }, { tool: "mast_signature", arguments: {} })).toBeNull();

      const ino = lstatSync(path).ino;
      const second = await startServe(p.root, [], false);
      await stopServe(second);
      expect(lstatSync(path).ino).toBe(ino);
      expect((await runMast(["query", "mast_signature", '{"symbol":"Repo.find"}', p.root], { env: { MAST_DEBUG: "1" } })).stderr).toBe(SERVED);
      // A connection that never sends its line does not hold the server's exit (stopServe expects exit 0).
      const idle = connect(path);
      await new Promise((resolve) => idle.once("connect", resolve));
      idle.on("error", () => undefined);
    } finally {
      await stopServe(server);
    }
  });

  it("passes over a killed or stopped server's socket, and a symlink in its place is refused; --no-socket makes none", async () => {
    const state = join(p.root, ".mast");
    const path = join(state, SOCKET_FILE);
    const killed = await startServe(p.root);
    killed.child.kill("SIGKILL");
    await killed.exited;
    expect(lstatSync(path).isSocket()).toBe(true);
    const stale = await runMast(["query", "mast_signature", '{"symbol":"Repo.find"}', p.root, "--json"], { env: { MAST_DEBUG: "1" } });
    expect([stale.code, stale.stderr, JSON.parse(stale.stdout).results[0].line]).toEqual([0, "", 2]);

    const next = await startServe(p.root);
    // A stopped server (SIGSTOP) takes the connection but never the call: the CLI answers in-process after its wait for the accept.
    next.child.kill("SIGSTOP");
    try {
      const stopped = await runMast(["query", "mast_signature", '{"symbol":"Repo.find"}', p.root, "--json"], { env: { MAST_DEBUG: "1" } });
      expect([stopped.code, stopped.stderr, JSON.parse(stopped.stdout).results[0].line]).toEqual([0, "", 2]);
      expect(stopped.ms).toBeLessThan(10_000);
    } finally {
      next.child.kill("SIGCONT");
    }
    await stopServe(next);
    expect(existsSync(path)).toBe(false);

    // A symlink where the socket goes (a repository may carry one in a committed .mast): the state dir is refused whole, as for any symlink in it.
    writeFileSync(join(p.root, "decoy"), "");
    symlinkSync(join(p.root, "decoy"), path);
    const viaLink = await runMast(["query", "mast_signature", '{"symbol":"Repo.find"}', p.root, "--json"], { env: { MAST_DEBUG: "1" } });
    expect([viaLink.code, viaLink.stdout, viaLink.stderr]).toEqual([1, "", expect.stringMatching(/^mast: error STATE_DIR_UNSAFE: .* holds the symlink serve\.sock; nothing was written/)]);
    expect(readFileSync(join(p.root, "decoy"), "utf8")).toBe("");
    rmSync(path);
    rmSync(join(p.root, "decoy"));

    const quiet = await startServe(p.root, ["--no-socket"], false);
    try {
      expect(existsSync(path)).toBe(false);
    } finally {
      await stopServe(quiet);
    }
  });
});
