// `mast serve --http` with the SDK's streamable HTTP client: the same tools and answers as stdio,
// several sessions at once, the bearer token (refused without it or under 16 characters, never
// logged), the refusal of a network address without a token, a browser Origin other than loopback
// refused, sessions closed when idle and capped, and a bounded soak — 8 concurrent clients mixing
// reads and edits on loopback — with no error, no lost edit and the server's RSS growth under a bound.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";

const MAST = join(import.meta.dirname, "..", "..", "dist", "bin", "mast.js");

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function project(extra: Record<string, string> = {}): Promise<TestProject> {
  const p = makeProject({ ...BASE_FILES, ...extra });
  cleanups.push(() => p.cleanup());
  await runIndex(p.config(), { mode: "full", persistConfig: true });
  return p;
}

/** Starts `mast serve --http --port 0` and waits for the URL it prints. */
async function serveHttp(root: string, env: Record<string, string> = {}, args: string[] = []): Promise<{ url: URL; child: ChildProcess; log: () => string }> {
  const home = mkdtempSync(join(tmpdir(), "mast-http-home-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const child = spawn(process.execPath, [MAST, "serve", root, "--http", "--port", "0", "--no-startup-reindex", ...args], {
    env: { PATH: process.env.PATH ?? "", HASHPILOT_HOME: home, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
  });
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL in: ${log}`)), 15_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(new URL(m[1]!));
      }
    };
    child.stderr!.on("data", check);
    child.once("exit", () => reject(new Error(`exited: ${log}`)));
  });
  return { url, child, log: () => log };
}

async function client(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const c = new Client({ name: "mast-http-test", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  cleanups.push(() => c.close());
  return c;
}

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; data: any }> {
  const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
  return { isError: r.isError === true, data: JSON.parse(r.content[0]!.text) };
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });

/** A raw initialize: its status, the session id it opened, and the body. */
async function initialize(url: URL, headers: Record<string, string> = {}): Promise<{ status: number; sid: string | null; body: string }> {
  const res = await fetch(url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE });
  return { status: res.status, sid: res.headers.get("mcp-session-id"), body: await res.text() };
}

/** The status of a tools/list in session `sid`. */
async function listStatus(url: URL, sid: string): Promise<number> {
  const res = await fetch(url, { method: "POST", headers: { ...MCP_HEADERS, "mcp-session-id": sid }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
  await res.text();
  return res.status;
}

/** Opens session `sid`'s standalone SSE stream (held open until aborted). */
async function openStream(url: URL, sid: string): Promise<AbortController> {
  const abort = new AbortController();
  const res = await fetch(url, { method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": sid }, signal: abort.signal });
  expect(res.status).toBe(200);
  cleanups.push(() => abort.abort());
  return abort;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await sleep(50);
  }
}

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m![1]);
}

describe("mast serve --http", () => {
  it("serves the tools on loopback to several sessions at once, as stdio does", async () => {
    const p = await project();
    const { url } = await serveHttp(p.root);
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.pathname).toBe("/mcp");
    const [a, b] = await Promise.all([client(url), client(url)]);
    const tools = await a.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("mast_search");
    expect(tools.tools.map((t) => t.name)).toContain("replace_hash");
    const [sa, sb] = await Promise.all([call(a, "mast_signature", { symbol: "Repo.find" }), call(b, "mast_callers", { symbol: "Repo.find" })]);
    expect(sa.data.results[0]).toMatchObject({ file_path: "src/repo.ts", line: 2, signature: "find(id: string): string | null" });
    expect(sb.data.verified_callers[0].file_path).toBe("src/auth.ts");
    // A request naming no session, or a closed one, is refused.
    const bare = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(bare.status).toBe(400);
    const lost = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": "nope" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(lost.status).toBe(404);
    // Another Host header (a DNS-rebinding page) is refused on loopback.
    const rebound = spawnSync(
      "curl",
      [
        "-s",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "-H",
        "Host: evil.example:80",
        "-H",
        "content-type: application/json",
        "-H",
        "accept: application/json, text/event-stream",
        "-d",
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }),
        url.href,
      ],
      { encoding: "utf8" },
    );
    if (rebound.status === 0) expect(rebound.stdout).toBe("403");
  }, 60_000);

  it("with MAST_HTTP_TOKEN, a request without the bearer token is refused, and the token is never logged", async () => {
    const p = await project();
    const token = "s3cret-token-value-1234";
    const { url, log } = await serveHttp(p.root, { MAST_HTTP_TOKEN: token });
    await expect(client(url)).rejects.toThrow(/401|unauthorized/i);
    await expect(client(url, { authorization: "Bearer wrong-token-value-12345" })).rejects.toThrow(/401|unauthorized/i);
    const ok = await client(url, { authorization: `Bearer ${token}` });
    expect((await call(ok, "mast_signature", { symbol: "Repo.find" })).data.results[0].file_path).toBe("src/repo.ts");
    expect(log()).toContain("(bearer token required)");
    expect(log()).not.toContain(token);
  }, 60_000);

  it("refuses a network address without a token, and a bad port", () => {
    const p = makeProject(BASE_FILES);
    cleanups.push(() => p.cleanup());
    const r = spawnSync(process.execPath, [MAST, "serve", p.root, "--http", "--host", "0.0.0.0", "--port", "0"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" }, timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("INVALID_ARGUMENT");
    expect(r.stderr).toContain("MAST_HTTP_TOKEN");
    const port = spawnSync(process.execPath, [MAST, "serve", p.root, "--http", "--port", "99999"], { encoding: "utf8", timeout: 20_000 });
    // A port out of range is a usage error (exit 2); a network address without a token is a refusal (exit 1).
    expect(port.status).toBe(2);
    expect(port.stderr).toContain("--port takes a port number");
  });

  it("refuses a MAST_HTTP_TOKEN under 16 characters at startup, naming the rule but not the token", () => {
    const p = makeProject(BASE_FILES);
    cleanups.push(() => p.cleanup());
    const r = spawnSync(process.execPath, [MAST, "serve", p.root, "--http", "--port", "0", "--no-startup-reindex"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", MAST_HTTP_TOKEN: "short-secret" },
      timeout: 20_000,
    });
    expect([r.status, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toContain("INVALID_ARGUMENT: MAST_HTTP_TOKEN is 12 characters; a bearer token needs at least 16");
    expect(r.stderr).not.toContain("short-secret");
  });

  it("refuses a browser Origin other than loopback (403) and serves loopback ones", async () => {
    const p = await project();
    const { url } = await serveHttp(p.root);
    for (const origin of ["http://evil.example", "null", "http://127.0.0.1.evil.example:8080"]) {
      const r = await initialize(url, { origin });
      expect([origin, r.status, r.sid, JSON.parse(r.body).error.message]).toEqual([origin, 403, null, `forbidden: Origin ${origin} is not this server's (loopback or ${url.hostname})`]);
    }
    for (const origin of [`http://localhost:5173`, `http://127.0.0.1:${url.port}`, "http://[::1]:3000"]) {
      const r = await initialize(url, { origin });
      expect([origin, r.status, typeof r.sid]).toEqual([origin, 200, "string"]);
    }
  }, 60_000);

  it("answers a body over the 8 MiB request limit with 413 REQUEST_TOO_LARGE, not a reset connection, and serves the next request", async () => {
    const p = await project();
    const { url } = await serveHttp(p.root);
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(9 * 1024 * 1024) } });
    const res = await fetch(url, { method: "POST", headers: MCP_HEADERS, body: big });
    expect(res.status).toBe(413);
    expect((JSON.parse(await res.text()) as { error: { data: { code: string } } }).error.data.code).toBe("REQUEST_TOO_LARGE");
    expect((await initialize(url)).status).toBe(200);
  }, 60_000);

  it("closes a session idle past --idle-timeout; one with a stream open stays", async () => {
    const p = await project();
    const { url } = await serveHttp(p.root, {}, ["--idle-timeout", "1"]);
    const idle = (await initialize(url)).sid!;
    expect(await listStatus(url, idle)).toBe(200);
    const streaming = (await initialize(url)).sid!;
    await openStream(url, streaming);
    await sleep(2_500);
    expect(await listStatus(url, idle)).toBe(404);
    expect(await listStatus(url, streaming)).toBe(200);
  }, 60_000);

  it("caps sessions at --max-sessions: a new one closes the longest idle, or is refused with 503 when none is idle", async () => {
    const p = await project();
    const { url } = await serveHttp(p.root, {}, ["--max-sessions", "2"]);
    const a = (await initialize(url)).sid!;
    const b = (await initialize(url)).sid!;
    expect(await listStatus(url, a)).toBe(200);
    // b is now the longest idle: the third session closes it.
    const c = (await initialize(url)).sid!;
    expect([await listStatus(url, a), await listStatus(url, b), await listStatus(url, c)]).toEqual([200, 404, 200]);
    const streams = [await openStream(url, a), await openStream(url, c)];
    const refused = await initialize(url);
    expect([refused.status, refused.sid, JSON.parse(refused.body).error.message]).toEqual([
      503,
      null,
      "2 sessions are open and none is idle (--max-sessions 2): close one (DELETE /mcp with its Mcp-Session-Id) or retry later",
    ]);
    // a's stream closes: a is the one idle session, and a new one takes its place.
    streams[0]!.abort();
    const d = await until(
      () => initialize(url),
      (r) => r.status !== 503,
    );
    expect([d.status, typeof d.sid]).toEqual([200, "string"]);
    expect([await listStatus(url, a), await listStatus(url, c), await listStatus(url, d.sid!)]).toEqual([404, 200, 200]);
  }, 60_000);

  it("soak: 8 concurrent clients mixing reads and edits — no error, no lost edit, bounded RSS growth", async () => {
    const CLIENTS = 8;
    // RSS climbs for the first rounds (heap and SQLite caches warming) and then levels off
    // (measured: +8 MB from round 15 to 30, flat from 60 to 150), so growth is measured after a warm-up.
    const WARMUP = 10;
    const ROUNDS = 35;
    const files = Object.fromEntries(Array.from({ length: CLIENTS }, (_, i) => [`src/soak${i}.ts`, `export const soak${i} = 0;\n`]));
    const p = await project(files);
    const { url, child } = await serveHttp(p.root);
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => client(url)));
    const errors: string[] = [];
    const round = async (c: Client, i: number, r: number) => {
      const file = `src/soak${i}.ts`;
      const read = await call(c, "read_hash", { file, line: 1 });
      if (read.isError) errors.push(`read_hash ${file}: ${JSON.stringify(read.data.error)}`);
      const write = await call(c, "replace_hash", { file, old_hash: read.data.data.lineHash, new_content: `export const soak${i} = ${r};`, range: "1" });
      if (write.isError) errors.push(`replace_hash ${file}: ${JSON.stringify(write.data.error)}`);
      for (const [tool, args] of [
        ["mast_search", { query: `soak${i}`, limit: 3 }],
        ["mast_signature", { symbol: "AuthService.validate" }],
        ["mast_callers", { symbol: "Repo.find" }],
      ] as const) {
        const a = await call(c, tool, args);
        if (a.isError) errors.push(`${tool}: ${JSON.stringify(a.data)}`);
      }
    };
    const started = Date.now();
    for (let r = 1; r <= WARMUP; r++) await Promise.all(clients.map((c, i) => round(c, i, r)));
    const before = rssKb(child.pid!);
    for (let r = WARMUP + 1; r <= ROUNDS; r++) await Promise.all(clients.map((c, i) => round(c, i, r)));
    const after = rssKb(child.pid!);
    expect(errors).toEqual([]);
    for (let i = 0; i < CLIENTS; i++) expect(readFileSync(join(p.root, `src/soak${i}.ts`), "utf8")).toBe(`export const soak${i} = ${ROUNDS};\n`);
    // Every edit reached the index too.
    const found = await call(clients[0]!, "mast_search", { query: `soak3`, limit: 1 });
    expect(found.data.results[0].content).toContain(`soak3 = ${ROUNDS}`);
    // Bounds: at most 60 s in all, and under 64 MB of RSS growth across the 1,000 calls after the warm-up.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(after - before).toBeLessThan(64 * 1024);
  }, 120_000);
});
