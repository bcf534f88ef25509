// Telemetry end to end (docs/telemetry.md): `_stats` beside the read tools' answers over MCP (`_meta`), the rows the
// telemetry thread writes to metrics.db with the tokenizer's exact counts, mast_efficiency, and
// `mast metrics` (by tool, per session, roll-up, vacuum, locks), all on real files, the real
// tokenizer and a real SDK client. Off with one key.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { MetricsDb, nearestRank } from "../../src/store/metrics.js";
import { cappedJson } from "../../src/tools/telemetry.js";
import { FullFileTokens, countTokens as ourCount } from "../../src/tools/tokenizer.js";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";

const MAST = join(import.meta.dirname, "..", "..", "dist", "bin", "mast.js");
const { countTokens } = createRequire(import.meta.url)("@anthropic-ai/tokenizer") as { countTokens(text: string): number };

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function indexed(files: Record<string, string> = BASE_FILES): Promise<TestProject> {
  const p = makeProject(files);
  cleanups.push(() => p.cleanup());
  await runIndex(p.config(), { mode: "full", persistConfig: true });
  return p;
}

async function connect(root: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAST, "serve", root, "--no-startup-reindex"], env: { PATH: process.env.PATH ?? "" }, stderr: "pipe" });
  const client = new Client({ name: "mast-test", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; data: any; stats: any }> {
  const r = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }>; _meta?: Record<string, unknown> };
  return { text: r.content[0]!.text, data: JSON.parse(r.content[0]!.text), stats: r._meta?.["mast/stats"] };
}

function metricsCli(root: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [MAST, "metrics", root, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tokensOfFile = (p: TestProject, rel: string) => countTokens(readFileSync(join(p.root, rel), "utf8"));

describe("_stats and metrics.db", () => {
  it("answers carry an estimate; the rows carry the tokenizer's exact counts; mast_efficiency sums them", async () => {
    const p = await indexed();
    const client = await connect(p.root);

    const search = await call(client, "mast_search", { query: "validate", limit: 3, fields: ["symbol_name"] });
    // `_stats` ride in the result's `_meta`: the text (and structured content) a model reads is the answer alone.
    const { stats, data: answer } = search;
    expect(search.text).toBe(JSON.stringify(answer));
    expect(answer._stats).toBeUndefined();
    // `fields` dropped file_path from the results; the files are still known.
    expect(answer.results[0]).toEqual({ symbol_name: "AuthService.validate" });
    expect(stats.tool).toBe("mast_search");
    expect(stats.files_referenced).toEqual(["src/auth.ts"]);
    expect(stats.counted).toBe("estimate");
    expect(stats.tokens_returned).toBe(Math.ceil(Buffer.byteLength(search.text) / 4));
    const authBytes = Buffer.byteLength(BASE_FILES["src/auth.ts"]!);
    expect(stats.tokens_full_file_upper_bound).toBe(Math.ceil(authBytes / 4));
    expect(stats.efficiency_ratio).toBe(Math.round((1 - stats.tokens_returned / stats.tokens_full_file_upper_bound) * 1000) / 1000);
    expect(typeof stats.duration_ms).toBe("number");

    const sig = await call(client, "mast_signature", { symbol: "Repo.find" });
    expect(sig.stats.files_referenced).toEqual(["src/repo.ts"]);
    const callers = await call(client, "mast_callers", { symbol: "Repo.find" });
    expect(callers.stats.files_referenced).toEqual(["src/repo.ts", "src/auth.ts"]);
    // What moving `_stats` out of the answer saves a model on small answers (the bytes
    // `,"_stats":{…}` took in the text, but for the duration's digits): 183 of mast_signature's
    // 314 (58%), 195 of mast_callers' 552 (35%; its declaration states the signature).
    const saved = (r: { stats: any }) => Buffer.byteLength(`,"_stats":${JSON.stringify({ ...r.stats, duration_ms: 0 })}`);
    expect([Buffer.byteLength(sig.text), saved(sig), Buffer.byteLength(callers.text), saved(callers)]).toEqual([131, 183, 357, 195]);
    // Tools that name no file and the editing tools carry none.
    expect((await call(client, "mast_status", {})).stats).toBeUndefined();

    const eff = (await call(client, "mast_efficiency", {})).data;
    const exactReturned = [search.text, sig.text, callers.text].map(countTokens);
    const exactFull = [tokensOfFile(p, "src/auth.ts"), tokensOfFile(p, "src/repo.ts"), tokensOfFile(p, "src/repo.ts") + tokensOfFile(p, "src/auth.ts")];
    expect(eff.scope).toBe("session");
    expect(eff.calls).toBe(3);
    expect(eff.tokens_returned).toBe(exactReturned[0]! + exactReturned[1]! + exactReturned[2]!);
    expect(eff.tokens_full_file_upper_bound).toBe(exactFull[0]! + exactFull[1]! + exactFull[2]!);
    expect(eff.by_tool.map((t: { tool: string; calls: number; tokens_returned: number }) => [t.tool, t.calls, t.tokens_returned])).toEqual([
      ["mast_callers", 1, exactReturned[2]],
      ["mast_search", 1, exactReturned[0]],
      ["mast_signature", 1, exactReturned[1]],
    ]);
    expect(eff.tokenizer).toBe("@anthropic-ai/tokenizer (claude-2 era, approximate for current models)");
    // The answer an agent reads stays small.
    expect(Buffer.byteLength(JSON.stringify(eff))).toBeLessThan(1_200);

    expect(statSync(join(p.root, ".mast", "metrics.db")).mode & 0o777).toBe(0o600);
    const db = MetricsDb.open(join(p.root, ".mast", "metrics.db"), { readonly: true });
    const rows = db.db.prepare("SELECT tool_name, status, args_json, results_json, declex_json, session_id FROM metrics ORDER BY id").all() as Array<Record<string, string | null>>;
    db.close();
    expect(rows.map((r) => r.tool_name)).toEqual(["mast_search", "mast_signature", "mast_callers"]);
    expect(rows.every((r) => r.status === "ok" && r.session_id === eff.session_id)).toBe(true);
    expect(JSON.parse(rows[0]!.args_json!)).toEqual({ query: "validate", limit: 3, fields: ["symbol_name"] });
    expect(JSON.parse(rows[0]!.results_json!)).toEqual([{ file_path: "src/auth.ts", symbol_name: "AuthService.validate" }]);
    // A one-name query fires ranker D: its record names the chunk and both ranks.
    const declex = JSON.parse(rows[0]!.declex_json!);
    expect(declex).toMatchObject({ fired: true, top_match_channel: "segment", candidate_count: 1 });
    expect(declex.window_effects[0]).toMatchObject({ symbol_name: "AuthService.validate", rank_with_d: 1 });
    expect(rows[1]!.declex_json).toBeNull();
  }, 60_000);

  it("a failed call is a row with status error; a global scope counts every session", async () => {
    const p = await indexed();
    const first = await connect(p.root);
    await call(first, "mast_exports", { file_path: "src/repo.ts" });
    await first.close();
    const second = await connect(p.root);
    const failed = (await second.callTool({ name: "mast_exports", arguments: { file_path: "../outside.ts" } })) as { isError?: boolean };
    expect(failed.isError).toBe(true);
    const session = (await call(second, "mast_efficiency", {})).data;
    const global = (await call(second, "mast_efficiency", { scope: "global" })).data;
    expect(session.calls).toBe(1);
    expect(global.calls).toBe(2);
    const db = MetricsDb.open(join(p.root, ".mast", "metrics.db"), { readonly: true });
    expect(db.db.prepare("SELECT status, tokens_returned FROM metrics ORDER BY id").all()).toEqual([
      { status: "ok", tokens_returned: expect.any(Number) },
      { status: "error", tokens_returned: 0 },
    ]);
    db.close();
  }, 60_000);

  it("telemetry: false in mast.config.json turns both off", async () => {
    const p = await indexed({ ...BASE_FILES, "mast.config.json": JSON.stringify({ telemetry: false }) });
    const client = await connect(p.root);
    const search = await call(client, "mast_search", { query: "validate" });
    expect([search.stats, search.data._stats]).toEqual([undefined, undefined]);
    expect((await call(client, "mast_efficiency", {})).data).toMatchObject({ enabled: false, calls: 0 });
    await client.close();
    expect(existsSync(join(p.root, ".mast", "metrics.db"))).toBe(false);
  }, 60_000);
});

describe("the full-file bound", () => {
  it("counts 32 files exactly a call, estimates the rest from their size, and caches by mtime and size", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`f${String(i).padStart(2, "0")}.ts`] = `export const v${i} = ${"'word' + ".repeat(i + 1)}'end';\n`;
    const p = makeProject(files);
    cleanups.push(() => p.cleanup());
    const names = Object.keys(files);
    const exact = names.map((n) => countTokens(files[n]!));
    const cache = new FullFileTokens();
    const first = cache.bound(p.root, names);
    expect(first).toMatchObject({ counted: 32, cached: 0, estimated: 8 });
    const estimate = names.slice(32).reduce((n, f) => n + Math.ceil(Buffer.byteLength(files[f]!) / 4), 0);
    expect(first.tokens).toBe(exact.slice(0, 32).reduce((a, b) => a + b, 0) + estimate);
    const second = cache.bound(p.root, names);
    expect(second).toMatchObject({ counted: 8, cached: 32, estimated: 0 });
    expect(second.tokens).toBe(exact.reduce((a, b) => a + b, 0));
    // A rewritten file is counted again; a vanished one costs nothing.
    p.write("f00.ts", "export const changed = 1;\n");
    p.remove("f01.ts");
    const third = cache.bound(p.root, names);
    expect(third).toMatchObject({ counted: 1, cached: 38, estimated: 0 });
    expect(third.tokens).toBe(exact.slice(2).reduce((a, b) => a + b, 0) + countTokens("export const changed = 1;\n"));
    // The cache keeps its limit, oldest out first.
    const small = new FullFileTokens(5);
    small.bound(p.root, names.slice(2, 12));
    expect(small.size).toBe(5);
    expect(small.bound(p.root, names.slice(7, 12))).toMatchObject({ cached: 5, counted: 0 });
  });

  it("our reused tokenizer counts what the package's countTokens counts", () => {
    for (const text of [readFileSync(join(import.meta.dirname, "telemetry.test.ts"), "utf8"), "ﬁ ligature <EOT> special", ""]) expect(ourCount(text)).toBe(countTokens(text));
  });
});

describe("caps and percentiles", () => {
  it("metrics.db and its -wal and -shm are owner-only (they hold every read call's arguments), an older world-readable one included", () => {
    const dir = mkdtempSync(join(tmpdir(), "mast-metrics-mode-"));
    const path = join(dir, "metrics.db");
    const row = {
      tool_name: "mast_search",
      call_timestamp: 1,
      tokens_returned: 1,
      tokens_full_file_upper_bound: 1,
      duration_ms: 1,
      session_id: "s",
      status: "ok",
      args_json: '{"query":"secret"}',
      results_json: null,
      declex_json: null,
    };
    const modes = () => ["", "-wal", "-shm"].map((suffix) => statSync(`${path}${suffix}`).mode & 0o777);
    const db = MetricsDb.open(path);
    db.insert([row]);
    expect(modes()).toEqual([0o600, 0o600, 0o600]);
    db.close();
    for (const suffix of ["", "-wal", "-shm"]) writeFileSync(`${path}${suffix}`, "", { flag: "a" });
    for (const suffix of ["", "-wal", "-shm"]) chmodSync(`${path}${suffix}`, 0o644);
    const again = MetricsDb.open(path);
    again.insert([row]);
    expect(modes()).toEqual([0o600, 0o600, 0o600]);
    again.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("args_json past 1,000 characters is cut and says how much", () => {
    expect(cappedJson({ query: "x" })).toBe('{"query":"x"}');
    const long = cappedJson({ query: "y".repeat(1_500) });
    const parsed = JSON.parse(long);
    expect(parsed._json.length).toBe(1_000);
    expect(parsed._truncated).toBe(JSON.stringify({ query: "y".repeat(1_500) }).length - 1_000);
  });

  it("nearest rank: the value at rank ceil(p/100 * n), no interpolation", () => {
    const xs = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(nearestRank(xs, 50)).toBe(10);
    expect(nearestRank(xs, 95)).toBe(19);
    expect(nearestRank([7], 95)).toBe(7);
    expect(nearestRank([], 50)).toBeNull();
  });
});

describe("mast metrics", () => {
  function seed(p: TestProject): void {
    const db = MetricsDb.open(join(p.root, ".mast", "metrics.db"));
    const now = Date.now() / 1000;
    const row = (tool: string, ageDays: number, ms: number, session = "s1") => ({
      tool_name: tool,
      call_timestamp: now - ageDays * 86_400,
      tokens_returned: 100,
      tokens_full_file_upper_bound: 1_000,
      duration_ms: ms,
      session_id: session,
      status: "ok" as const,
      args_json: null,
      results_json: null,
      declex_json: null,
    });
    db.insert([...Array.from({ length: 20 }, (_, i) => row("mast_search", 0.1, i + 1)), row("mast_signature", 1, 5, "s2"), row("mast_signature", 10, 7, "s0"), row("mast_signature", 10.2, 9, "s0")]);
    db.close();
  }

  it("by tool with nearest-rank p50/p95, per session, and the text table", async () => {
    const p = await indexed();
    seed(p);
    const json = JSON.parse(metricsCli(p.root, "--json").stdout);
    expect(json.rows).toEqual([
      { tool_name: "mast_search", calls: 20, tokens_returned: 2_000, tokens_full_file_upper_bound: 20_000, avg_duration_ms: 10.5, p50_duration_ms: 10, p95_duration_ms: 19, efficiency_ratio: 0.9 },
      { tool_name: "mast_signature", calls: 1, tokens_returned: 100, tokens_full_file_upper_bound: 1_000, avg_duration_ms: 5, p50_duration_ms: 5, p95_duration_ms: 5, efficiency_ratio: 0.9 },
    ]);
    expect(JSON.parse(metricsCli(p.root, "--json", "--since", "30d").stdout).rows[1]).toMatchObject({ tool_name: "mast_signature", calls: 3, p50_duration_ms: 7 });
    // The latest session: s1's 20 searches (the newest rows).
    const session = JSON.parse(metricsCli(p.root, "--json", "--session").stdout);
    expect(session.session_id).toBe("s1");
    expect(session.rows.map((r: { tool_name: string; calls: number }) => [r.tool_name, r.calls])).toEqual([["mast_search", 20]]);
    expect(JSON.parse(metricsCli(p.root, "--json", "--no-by-tool").stdout).rows).toEqual([expect.objectContaining({ tool_name: "(all tools)", calls: 21 })]);
    const text = metricsCli(p.root).stdout;
    expect(text.split("\n").slice(0, 4)).toEqual([
      "Tool            Calls  Tokens  Avg ms  p50 ms  p95 ms  Efficiency",
      "─".repeat(65),
      "mast_search        20   2,000    10.5      10      19       90.0%",
      "mast_signature      1     100     5.0       5       5       90.0%",
    ]);
    expect(text).toContain("Tokenizer: @anthropic-ai/tokenizer (claude-2 era, approximate for current models)");
    const bad = metricsCli(p.root, "--since", "soon");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("INVALID_ARGUMENT");
  }, 60_000);

  it("--rollup moves old rows into metrics_daily (still counted), --vacuum drops old days", async () => {
    const p = await indexed();
    seed(p);
    const rolled = JSON.parse(metricsCli(p.root, "--rollup", "--keep-days", "7", "--json").stdout);
    expect(rolled.rollup).toMatchObject({ rows_rolled_up: 2, days: expect.any(Number) });
    const after = JSON.parse(metricsCli(p.root, "--json", "--since", "30d").stdout);
    // The rolled-up calls still count; their durations are gone from the percentiles.
    expect(after.rows[1]).toMatchObject({ tool_name: "mast_signature", calls: 3, avg_duration_ms: 7, p50_duration_ms: 5 });
    const db = MetricsDb.open(join(p.root, ".mast", "metrics.db"), { readonly: true });
    expect((db.db.prepare("SELECT SUM(calls) AS n FROM metrics_daily").get() as { n: number }).n).toBe(2);
    db.close();
    const vac = JSON.parse(metricsCli(p.root, "--vacuum", "--keep-days", "5", "--json").stdout);
    expect(vac.vacuum.daily_rows_deleted).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(metricsCli(p.root, "--json", "--since", "30d").stdout).rows[1]).toMatchObject({ tool_name: "mast_signature", calls: 1 });
  }, 60_000);

  it("--locks: hold and wait by caller from real index runs; malformed lines counted and skipped", async () => {
    const p = await indexed();
    const none = metricsCli(p.root, "--locks");
    // `indexed` ran one index: its events are there.
    expect(none.status).toBe(0);
    const r = spawnSync(process.execPath, [MAST, "index", p.root, "--incremental"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    const file = join(p.root, ".mast", "lock-metrics.jsonl");
    appendFileSync(file, 'not json\n{"ts":"x","caller":"c","event":"released"}\n');
    const report = JSON.parse(metricsCli(p.root, "--locks", "--json").stdout);
    expect(report.malformed_lines).toBe(2);
    expect(report.rows.map((row: { caller: string; count: number; failed: number }) => [row.caller, row.count, row.failed])).toEqual([
      ["mast index (full)", 1, 0],
      ["mast index --incremental", 1, 0],
    ]);
    expect(report.rows[1].hold_max_ms).toBeGreaterThanOrEqual(0);
    expect(metricsCli(p.root, "--locks").stdout).toContain("Warning: skipped 2 malformed line(s) in lock-metrics.jsonl.");
    writeFileSync(file, "");
    const empty = metricsCli(p.root, "--locks");
    expect(empty.status).toBe(0);
    expect(empty.stdout.trim()).toBe("No lock metrics recorded.");
  }, 60_000);
});
