#!/usr/bin/env node
// Telemetry bench: what `_stats` and the metrics recording cost each read tool (docs/telemetry.md#overhead: the
// target is < 5% of a tool's time), on the index of ~1,000 real TypeScript files (the corpus of
// bench/index-speed.mjs).
//
//   npm run build && npm run bench:telemetry
//
// 1. The corpus is reused (downloaded when missing) and indexed fresh into a temp --state-dir.
// 2. A seeded sample of exported symbols and files is drawn from graph.db.
// 3. Each read tool is called in-process through dist/tools/registry.js runTool, the path
//    `mast serve` takes: with telemetry off (the baseline: the same call, no `_stats`, no
//    recording) and on (`_stats` attached, the call handed to the telemetry thread), in
//    alternating passes after a warm-up. The p50 of each is reported, and the overhead.
// 4. The exact counting the telemetry thread does off the request path is timed here on the
//    same answers (the tokenizer over the answer, the full-file bound with a cold and a warm
//    cache) — the cost that `_stats` would add if it were counted on the request path.
//
// A report, not a test: exits 0 whether the target is met or not.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { BenchError, CORPUS, DIST, OUT_DIR, benchEnvironment, buildNotes, distStamp, ensureCorpus, indexCorpus, missingBuild, prng, publish, runBench, shuffled } from "./corpus.mjs";

const SEED = 20261202;
const SYMBOLS = 30;
const FILES = 20;
const PASSES = 4;
const TARGET = 0.05;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.max(1, Math.ceil((p / 100) * s.length)) - 1] : null;
};

async function main() {
  const missing = missingBuild();
  if (missing) throw new BenchError(`${missing} is missing: run \`npm run build\` first`);
  const env = benchEnvironment();
  const distAtStart = distStamp();
  ensureCorpus();
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-telemetry-"));
  try {
    indexCorpus(stateDir);
    const db = new Database(path.join(stateDir, "graph.db"), { readonly: true });
    const rand = prng(SEED);
    const names = db.prepare("SELECT DISTINCT s.name FROM symbols s WHERE s.is_exported = 1 AND s.kind IN ('function', 'class', 'method', 'interface') ORDER BY s.name").pluck().all();
    const files = db.prepare("SELECT path FROM files WHERE language = 'typescript' ORDER BY path").pluck().all();
    const interfaces = db.prepare("SELECT DISTINCT name FROM symbols WHERE kind = 'interface' AND is_exported = 1 ORDER BY name").pluck().all();
    db.close();
    const symbols = shuffled(names, rand).slice(0, SYMBOLS);
    const sampleFiles = shuffled(files, rand).slice(0, FILES);
    const ifaces = shuffled(interfaces, rand).slice(0, 10);
    const calls = {
      mast_search: symbols.map((s) => ({ query: s.split(".").pop() })),
      mast_signature: symbols.map((s) => ({ symbol: s })),
      mast_callers: symbols.map((s) => ({ symbol: s })),
      mast_rename_impact: symbols.slice(0, 10).map((s) => ({ symbol: s })),
      mast_implementors: ifaces.map((i) => ({ interface_name: i })),
      mast_exports: sampleFiles.map((f) => ({ file_path: f })),
      mast_dependencies: sampleFiles.map((f) => ({ file_path: f })),
      mast_project_skeleton: [{}, { max_depth: 2 }, { directory: sampleFiles[0].split("/")[0] }],
    };

    const load = (rel) => import(pathToFileURL(path.join(DIST, rel)).href);
    const [{ createToolContext }, { runTool }, { resolveConfig, resolveProjectRoot }, { Telemetry }, tokenizer] = await Promise.all([
      load("tools/context.js"),
      load("tools/registry.js"),
      load("index/config.js"),
      load("tools/telemetry.js"),
      load("tools/tokenizer.js"),
    ]);
    const config = resolveConfig(resolveProjectRoot(CORPUS), { stateDir });
    const recorder = new Telemetry(stateDir, config.project_root);
    const on = createToolContext({ ...config, telemetry: true }, config.project_root, undefined, recorder);
    const off = createToolContext({ ...config, telemetry: false });

    const rows = [];
    const offPath = [];
    for (const [tool, argsList] of Object.entries(calls)) {
      for (const args of argsList) {
        await runTool(off, tool, args);
        await runTool(on, tool, args);
      }
      const times = { on: [], off: [] };
      for (let pass = 0; pass < PASSES; pass++) {
        for (const args of argsList) {
          // Alternating order, so neither side always runs second on a warm cache.
          const order = pass % 2 === 0 ? ["off", "on"] : ["on", "off"];
          for (const side of order) {
            const t0 = performance.now();
            await runTool(side === "on" ? on : off, tool, args);
            times[side].push(performance.now() - t0);
          }
        }
      }
      // What the telemetry thread does for one call, timed on this thread.
      const bound = new tokenizer.FullFileTokens();
      const counting = { answer: [], cold: [], warm: [] };
      for (const args of argsList) {
        const { answer, text } = await runTool(on, tool, args);
        const referenced = answer._stats ? answer._stats.files_referenced : [];
        let t0 = performance.now();
        tokenizer.countTokens(text);
        counting.answer.push(performance.now() - t0);
        t0 = performance.now();
        bound.bound(config.project_root, referenced);
        counting.cold.push(performance.now() - t0);
        t0 = performance.now();
        bound.bound(config.project_root, referenced);
        counting.warm.push(performance.now() - t0);
      }
      const p50on = pct(times.on, 50);
      const p50off = pct(times.off, 50);
      rows.push({ tool, calls: times.on.length, p50_off_ms: p50off, p50_on_ms: p50on, overhead: p50off > 0 ? (p50on - p50off) / p50off : 0 });
      offPath.push({ tool, answer_tokens_p50_ms: pct(counting.answer, 50), full_bound_cold_p50_ms: pct(counting.cold, 50), full_bound_warm_p50_ms: pct(counting.warm, 50) });
    }
    await recorder.flush();
    await recorder.close();
    on.close();
    off.close();

    // Over MCP: two servers on copies of the index, one with `telemetry: false` in its state dir's config.
    const offState = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-telemetry-off-"));
    fs.cpSync(stateDir, offState, { recursive: true });
    fs.rmSync(path.join(offState, "metrics.db"), { force: true });
    fs.writeFileSync(path.join(offState, "config.json"), JSON.stringify({ telemetry: false }));
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const connect = async (dir) => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [path.join(DIST, "bin", "mast.js"), "serve", CORPUS, "--state-dir", dir, "--no-startup-reindex"], stderr: "ignore" }),
      );
      return client;
    };
    const servers = { on: await connect(stateDir), off: await connect(offState) };
    const mcpRows = [];
    try {
      for (const [tool, argsList] of Object.entries(calls)) {
        for (const args of argsList) for (const side of ["off", "on"]) await servers[side].callTool({ name: tool, arguments: args });
        const times = { on: [], off: [] };
        for (let pass = 0; pass < PASSES; pass++) {
          for (const args of argsList) {
            for (const side of pass % 2 === 0 ? ["off", "on"] : ["on", "off"]) {
              const t0 = performance.now();
              await servers[side].callTool({ name: tool, arguments: args });
              times[side].push(performance.now() - t0);
            }
          }
        }
        const p50on = pct(times.on, 50);
        const p50off = pct(times.off, 50);
        mcpRows.push({ tool, calls: times.on.length, p50_off_ms: p50off, p50_on_ms: p50on, overhead: p50off > 0 ? (p50on - p50off) / p50off : 0 });
      }
    } finally {
      await servers.on.close();
      await servers.off.close();
      fs.rmSync(offState, { recursive: true, force: true });
    }

    const f = (x) => (x === null ? "-" : x.toFixed(2));
    const table = (rs) => [
      `${"tool".padEnd(24)}${"p50 off ms".padStart(12)}${"p50 on ms".padStart(12)}${"overhead".padStart(10)}  target < ${TARGET * 100}%`,
      ...rs.map(
        (r) => `${r.tool.padEnd(24)}${f(r.p50_off_ms).padStart(12)}${f(r.p50_on_ms).padStart(12)}${`${(r.overhead * 100).toFixed(1)}%`.padStart(10)}  ${r.overhead < TARGET ? "PASS" : "MISS"}`,
      ),
    ];
    const lines = [
      `telemetry bench: ${Object.values(calls).flat().length} calls x ${PASSES} passes a side, in-process runTool, corpus ${path.relative(process.cwd(), CORPUS) || CORPUS}`,
      "",
      "over MCP (`mast serve`, stdio, the SDK client): telemetry on vs `telemetry: false`",
      ...table(mcpRows),
      "",
      "in-process (runTool, the server's path without the transport): `_stats` attached and the call handed to the telemetry thread, vs off",
      ...table(rows),
      "",
      "off the request path (the telemetry thread's exact counts, timed here on the same answers)",
      `${"tool".padEnd(24)}${"answer ms".padStart(12)}${"files cold".padStart(12)}${"files warm".padStart(12)}`,
      ...offPath.map((r) => `${r.tool.padEnd(24)}${f(r.answer_tokens_p50_ms).padStart(12)}${f(r.full_bound_cold_p50_ms).padStart(12)}${f(r.full_bound_warm_p50_ms).padStart(12)}`),
    ];
    publish(lines, buildNotes(env, distAtStart), path.join(OUT_DIR, "telemetry.json"), { env, mcp: mcpRows, in_process: rows, off_path: offPath });
    return 0;
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

await runBench(main);
