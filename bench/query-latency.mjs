#!/usr/bin/env node
// Query-latency bench: how fast mast's read tools answer on the index of ~1,000 real TypeScript
// files (the corpus of bench/index-speed.mjs, shared through bench/corpus.mjs), in-process and
// through `mast serve` over MCP stdio, next to ripgrep for the same identifiers in the same run.
//
//   npm run build && npm run bench:query
//
// 1. The corpus is reused (downloaded when missing) and indexed fresh into a temp --state-dir.
// 2. A fixed query set is drawn from the built graph.db with a seeded PRNG: exported symbol names
//    (functions, classes, Class.method methods, interfaces), 3-6 word phrases from doc comments,
//    file paths and a few directories. The corpus is pinned, so the set is the same every run.
// 3. Each tool is called in-process (dist/tools/registry.js callTool): one warm-up pass over the
//    set, then TIMED_PASSES timed passes, performance.now() around each awaited call. Then
//    `mast serve` is spawned and spoken to over newline-delimited JSON-RPC: spawn -> tools/list
//    response ("serve ready", median of SERVE_SPAWNS spawns) and mast_search over MCP.
// 4. ripgrep baseline: `rg -n --no-heading -w <NAME> <corpus>` per symbol and `rg -n -i "<phrase>"
//    <corpus>` per phrase, wall time per spawned process.
//
// This is a report, not a test: it exits 0 whether targets PASS or MISS (and when rg is missing:
// the baseline is skipped), non-zero only when something could not run. Figures also go to
// bench/.out/query-latency.json.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import {
  BenchError,
  CORPUS,
  MAST,
  OUT_DIR,
  PACKAGES,
  REPO,
  RG_INSTALL,
  benchEnvironment,
  buildNotes,
  describeCorpus,
  distStamp,
  ensureCorpus,
  fmt,
  have,
  indexCorpus,
  loadavg,
  lpad,
  median,
  missingBuild,
  openTools,
  pad,
  prng,
  publish,
  repairInterruptedEdit,
  round,
  roundStats,
  runBench,
  shuffled,
  stats,
  verdict,
} from "./corpus.mjs";

const OUT_JSON = path.join(OUT_DIR, "query-latency.json");

/** The query set's seed ("mast"); change it and the set changes. */
const SEED = 0x6d617374;
/** Exported symbols drawn per kind (50 in all). */
const SYMBOL_QUOTA = { function: 15, class: 12, method: 13, interface: 10 };
const PHRASES = 25;
const FILES = 25;
/** Directories for mast_project_skeleton, besides the whole project. */
const DIRECTORIES = 5;
const SEARCH_LIMIT = 10;

/** Timed passes over the query set after the one warm-up pass (in-process, MCP search, rg). */
const TIMED_PASSES = 3;
const SERVE_SPAWNS = 5;
const MCP_TIMEOUT_MS = 30_000;
const PROTOCOL_VERSION = "2025-06-18";

const TARGETS = {
  search_p50_ms: 10,
  search_p95_ms: 40,
  search_cost_growth: 2.5,
  search_longest_ms: 250,
  signature_p50_ms: 5,
  exports_p50_ms: 5,
  callers_p50_ms: 2,
  serve_ready_ms: 1000,
};

// ---------------------------------------------------------------------------------------------
// query set

// Plain identifiers only (an optional Class. prefix): every name is also a safe rg regex and -w word.
const IDENT = "[A-Za-z_][A-Za-z0-9_]*";
const SYMBOL_NAME = new RegExp(`^${IDENT}$`);
const METHOD_NAME = new RegExp(`^${IDENT}\\.${IDENT}$`);
const WORD = /^[A-Za-z]+$/;

/** One phrase from a doc comment: 3-6 consecutive plain words of one line (so rg can match it too). */
function phraseOf(doc, rand) {
  const lines = doc
    .split("\n")
    .map((l) =>
      l
        .replace(/^\s*\/\*\*?/, "")
        .replace(/\*\/\s*$/, "")
        .replace(/^\s*\*\s?/, "")
        .trim(),
    )
    .filter((l) => l !== "" && !l.startsWith("@"));
  for (const line of lines) {
    // Runs of single-space-separated plain words: a double space or punctuation ends a run.
    const runs = [];
    let run = [];
    for (const w of line.split(" ")) {
      if (WORD.test(w)) run.push(w);
      else {
        if (run.length >= 3) runs.push(run);
        run = [];
      }
    }
    if (run.length >= 3) runs.push(run);
    for (const r of runs) {
      // A seeded length and start; the slice must hold at least two words of 4+ letters.
      const len = Math.min(r.length, 3 + Math.floor(rand() * 4));
      const first = Math.floor(rand() * (r.length - len + 1));
      for (let k = 0; k <= r.length - len; k++) {
        const start = (first + k) % (r.length - len + 1);
        const slice = r.slice(start, start + len);
        if (slice.filter((w) => w.length >= 4).length >= 2) return slice.join(" ");
      }
    }
  }
  return null;
}

async function drawQuerySet(graphDb) {
  const db = new Database(graphDb, { readonly: true, fileMustExist: true });
  try {
    const rand = prng(SEED);
    const symbols = [];
    for (const [kind, quota] of Object.entries(SYMBOL_QUOTA)) {
      const rows = db
        .prepare(
          `SELECT s.name, MIN(f.path) AS path FROM symbols s JOIN files f ON f.id = s.file_id
           WHERE s.kind = ? AND s.is_exported = 1 GROUP BY s.name ORDER BY s.name`,
        )
        .all(kind);
      const eligible = rows.filter((r) =>
        kind === "method" ? METHOD_NAME.test(r.name) && !r.name.endsWith(".constructor") && r.name.split(".")[1].length >= 3 : SYMBOL_NAME.test(r.name) && r.name.length >= 4,
      );
      const taken = new Set(symbols.map((s) => s.name));
      const picked = shuffled(eligible, rand)
        .filter((r) => !taken.has(r.name))
        .slice(0, quota);
      for (const r of picked) symbols.push({ name: r.name, kind, file: r.path, rg_word: kind === "method" ? r.name.split(".")[1] : r.name });
    }

    // Doc comments live in each file's packed symbol_texts row (store/symbol-texts.ts), by symbol id.
    const { unpackSymbolTexts } = await import(path.join(REPO, "dist/store/symbol-texts.js"));
    const docOf = new Map();
    for (const t of db.prepare("SELECT file_id, first_id, ids, texts FROM symbol_texts").all()) {
      const ids = t.ids === null ? null : JSON.parse(t.ids);
      unpackSymbolTexts(t.file_id, t.texts).forEach((x, i) => x.doc !== null && docOf.set(ids === null ? t.first_id + i : ids[i], x.doc));
    }
    const docs = db
      .prepare("SELECT s.id, s.name, f.path FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.line, s.id")
      .all()
      .filter((r) => docOf.has(r.id))
      .map((r) => ({ name: r.name, doc: docOf.get(r.id), path: r.path }));
    const phrases = [];
    const seenPhrase = new Set();
    for (const d of shuffled(docs, rand)) {
      if (phrases.length >= PHRASES) break;
      const phrase = phraseOf(d.doc, rand);
      if (phrase === null || seenPhrase.has(phrase.toLowerCase())) continue;
      seenPhrase.add(phrase.toLowerCase());
      phrases.push({ phrase, file: d.path, symbol: d.name });
    }

    const allFiles = db.prepare("SELECT path FROM files ORDER BY path").pluck().all();
    const files = shuffled(allFiles, rand).slice(0, FILES);

    // Directories holding at least 3 indexed files (directly or below), the whole project first.
    const under = new Map();
    for (const f of allFiles) {
      const parts = f.split("/");
      for (let i = 1; i < parts.length; i++) {
        const dir = parts.slice(0, i).join("/");
        under.set(dir, (under.get(dir) ?? 0) + 1);
      }
    }
    const dirs = [...under]
      .filter(([, n]) => n >= 3)
      .map(([d]) => d)
      .sort();
    const directories = [null, ...shuffled(dirs, rand).slice(0, DIRECTORIES)];
    return { seed: SEED, symbols, phrases, files, directories, files_in_index: allFiles.length };
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// in-process

const symbolTail = (n) => n.split(".").at(-1).toLowerCase();
/** A symbol query's answer "has" the symbol when a result is its chunk, or a class shell that folded the method in. */
const searchFound = (results, name) => results.some((r) => (r.symbol_name && symbolTail(r.symbol_name) === symbolTail(name)) || r.related?.methods_matched?.includes(name));

/** Each series: a tool, its argument list, and a check of each answer (a quality count, not a test). */
function inProcessSeries(qs) {
  return [
    {
      key: "search_symbols",
      label: "mast_search (symbols)",
      tool: "mast_search",
      queries: qs.symbols.map((s) => ({ args: { query: s.name, limit: SEARCH_LIMIT }, expect: s })),
      check: (res, q) => searchFound(res.results, q.expect.name),
      check_label: "symbol in top 10",
    },
    {
      key: "search_phrases",
      label: "mast_search (phrases)",
      tool: "mast_search",
      queries: qs.phrases.map((p) => ({ args: { query: p.phrase, limit: SEARCH_LIMIT }, expect: p })),
      check: (res, q) => res.results.some((r) => r.file_path === q.expect.file),
      check_label: "source file in top 10",
    },
    {
      key: "signature",
      label: "mast_signature",
      tool: "mast_signature",
      queries: qs.symbols.map((s) => ({ args: { symbol: s.name }, expect: s })),
      check: (res) => res.results.length > 0,
      check_label: "found",
    },
    {
      key: "exports",
      label: "mast_exports",
      tool: "mast_exports",
      queries: qs.files.map((f) => ({ args: { file_path: f } })),
      check: (res) => res.exports.length + res.star_exports.length > 0,
      check_label: "has exports",
    },
    {
      key: "dependencies",
      label: "mast_dependencies",
      tool: "mast_dependencies",
      queries: qs.files.map((f) => ({ args: { file_path: f } })),
      check: (res) => res.imports.length > 0,
      check_label: "has imports",
    },
    {
      key: "skeleton",
      label: "mast_project_skeleton",
      tool: "mast_project_skeleton",
      queries: qs.directories.map((d) => ({ args: d === null ? {} : { directory: d } })),
      check: (res) => res.files.length > 0,
      check_label: "non-empty",
    },
  ];
}

async function benchInProcess(qs, stateDir) {
  const { ctx, callTool } = await openTools(stateDir);
  const series = inProcessSeries(qs);
  try {
    // Warm-up: every call once (opens the store, fills the page cache, JITs the handlers).
    const tOpen = performance.now();
    ctx.store();
    const openMs = performance.now() - tOpen;
    const errors = new Map();
    const checks = new Map();
    const misses = new Map();
    for (const s of series) {
      let ok = 0;
      const missed = [];
      misses.set(s.key, missed);
      for (const q of s.queries) {
        try {
          if (s.check(await callTool(ctx, s.tool, q.args), q)) ok++;
          else missed.push(Object.values(q.args)[0] ?? "<whole project>");
        } catch (err) {
          errors.set(s.key, [...(errors.get(s.key) ?? []), `${JSON.stringify(q.args)}: ${err.message}`]);
        }
      }
      checks.set(s.key, ok);
    }
    const out = {};
    for (const s of series) {
      const times = [];
      for (let pass = 0; pass < TIMED_PASSES; pass++) {
        for (const q of s.queries) {
          const t0 = performance.now();
          try {
            await callTool(ctx, s.tool, q.args);
          } catch {
            // counted in the warm-up pass
          }
          times.push(performance.now() - t0);
        }
      }
      out[s.key] = {
        label: s.label,
        tool: s.tool,
        queries: s.queries.length,
        calls: times.length,
        ms: roundStats(stats(times)),
        check: { label: s.check_label, ok: checks.get(s.key), of: s.queries.length, missed: misses.get(s.key) },
        errors: errors.get(s.key) ?? [],
        samples_ms: times.map((t) => round(t)),
      };
    }
    return { store_open_ms: round(openMs), series: out };
  } finally {
    ctx.close();
  }
}

// ---------------------------------------------------------------------------------------------
// MCP over stdio

/** A `mast serve` child spoken to in newline-delimited JSON-RPC. */
class McpChild {
  constructor(stateDir) {
    this.t0 = performance.now();
    this.child = spawn(process.execPath, [MAST, "serve", CORPUS, "--state-dir", stateDir, "--no-startup-reindex"], { stdio: ["pipe", "pipe", "pipe"] });
    this.pending = new Map();
    this.nextId = 1;
    this.stderr = "";
    this.exited = new Promise((resolve) =>
      this.child.on("exit", (code, signal) => {
        this.exitCode = code;
        for (const p of this.pending.values()) p.reject(new BenchError(`mast serve exited (code ${code}, signal ${signal}) before answering\n${this.stderr.trim()}`));
        this.pending.clear();
        resolve(code);
      }),
    );
    this.child.on("error", (err) => {
      for (const p of this.pending.values()) p.reject(new BenchError(`cannot run mast serve: ${err.message}`));
      this.pending.clear();
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (d) => (this.stderr += d));
    this.child.stdin.on("error", () => undefined); // EPIPE when the child died: reported by `exited`
    let buf = "";
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line === "") continue;
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          continue; // not JSON-RPC: ignore
        }
        const p = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
        if (!p) continue;
        this.pending.delete(msg.id);
        clearTimeout(p.timer);
        if (msg.error) p.reject(new BenchError(`${p.method}: JSON-RPC error ${msg.error.code}: ${msg.error.message}`));
        else p.resolve({ result: msg.result, at: performance.now(), bytes: line.length });
      }
    });
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new BenchError(`${method}: no answer from mast serve within ${MCP_TIMEOUT_MS} ms\n${this.stderr.trim()}`));
      }, MCP_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer, method });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  notify(method, params) {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method, ...(params ? { params } : {}) })}\n`);
  }

  /** initialize -> notifications/initialized -> tools/list; times from spawn. */
  async handshake() {
    const init = await this.request("initialize", { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "mast-query-latency-bench", version: "1" } });
    this.notify("notifications/initialized");
    const list = await this.request("tools/list", {});
    return { initialize_ms: init.at - this.t0, ready_ms: list.at - this.t0, tools: list.result.tools.map((t) => t.name), protocol: init.result.protocolVersion };
  }

  async callTool(name, args) {
    const t0 = performance.now();
    const r = await this.request("tools/call", { name, arguments: args });
    return { ms: r.at - t0, result: r.result, bytes: r.bytes };
  }

  /** Ends the child by closing its stdin (serve's own shutdown); kills it (by its pid) after 5 s. */
  async close() {
    if (this.exitCode !== undefined) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}

const liveChildren = new Set();

async function benchMcp(qs, stateDir) {
  const spawns = [];
  let tools = null;
  let protocol = null;
  let searchChild = null;
  try {
    for (let i = 0; i < SERVE_SPAWNS; i++) {
      const c = new McpChild(stateDir);
      liveChildren.add(c);
      const h = await c.handshake();
      spawns.push({ initialize_ms: round(h.initialize_ms), ready_ms: round(h.ready_ms) });
      tools = h.tools;
      protocol = h.protocol;
      if (i < SERVE_SPAWNS - 1) {
        await c.close();
        liveChildren.delete(c);
      } else searchChild = c;
    }
    // mast_search over the last spawn's connection: one warm-up pass, then the timed passes.
    let hits = 0;
    const errors = [];
    const sizes = [];
    for (const s of qs.symbols) {
      const r = await searchChild.callTool("mast_search", { query: s.name, limit: SEARCH_LIMIT });
      if (r.result.isError) {
        errors.push(`${s.name}: ${r.result.content?.[0]?.text}`);
        continue;
      }
      sizes.push(r.bytes);
      const body = JSON.parse(r.result.content[0].text);
      if (searchFound(body.results, s.name)) hits++;
    }
    const times = [];
    for (let pass = 0; pass < TIMED_PASSES; pass++) {
      for (const s of qs.symbols) times.push((await searchChild.callTool("mast_search", { query: s.name, limit: SEARCH_LIMIT })).ms);
    }
    // mast_callers over the same connection, for the functions and methods of the set (the default
    // answer: verified callers and the first potential matches), one warm-up pass, then the timed passes.
    const callable = qs.symbols.filter((s) => s.kind === "function" || s.kind === "method");
    const callersErrors = [];
    const callersSizes = [];
    let withCallers = 0;
    for (const s of callable) {
      const r = await searchChild.callTool("mast_callers", { symbol: s.name, file_path: s.file });
      if (r.result.isError) {
        callersErrors.push(`${s.name}: ${r.result.content?.[0]?.text}`);
        continue;
      }
      callersSizes.push(r.bytes);
      const body = JSON.parse(r.result.content[0].text);
      if ((body.summary?.verified_count ?? 0) + (body.summary?.potential_count ?? 0) > 0) withCallers++;
    }
    const callersTimes = [];
    for (let pass = 0; pass < TIMED_PASSES; pass++) {
      for (const s of callable) callersTimes.push((await searchChild.callTool("mast_callers", { symbol: s.name, file_path: s.file })).ms);
    }
    const ready = spawns.map((s) => s.ready_ms);
    return {
      command: `node dist/bin/mast.js serve <corpus> --state-dir <tmp> --no-startup-reindex`,
      protocol_version: protocol,
      tools_listed: tools,
      spawns,
      serve_ready_ms: { median: round(median(ready)), min: round(Math.min(...ready)), max: round(Math.max(...ready)) },
      initialize_ms: { median: round(median(spawns.map((s) => s.initialize_ms))) },
      search_symbols: {
        queries: qs.symbols.length,
        calls: times.length,
        ms: roundStats(stats(times)),
        check: { label: "symbol in top 10", ok: hits, of: qs.symbols.length },
        response_bytes_median: sizes.length ? median(sizes) : null,
        errors,
        samples_ms: times.map((t) => round(t)),
      },
      callers: {
        queries: callable.length,
        calls: callersTimes.length,
        ms: roundStats(stats(callersTimes)),
        check: { label: "with callers", ok: withCallers, of: callable.length },
        response_bytes_median: callersSizes.length ? median(callersSizes) : null,
        errors: callersErrors,
        samples_ms: callersTimes.map((t) => round(t)),
      },
    };
  } finally {
    for (const c of liveChildren) await c.close();
    liveChildren.clear();
  }
}

// ---------------------------------------------------------------------------------------------
// ripgrep

// ----- search cost by query length: adversarial shapes up to the documented maximum

/** The query shapes a backtracking or per-pair scan is quadratic in, and plain ones, cut to n characters. */
const COST_SHAPES = {
  "one long run": (n) => "a".repeat(n),
  capitals: (n) => "A".repeat(n),
  "dotted chain": (n) => "ab.".repeat(Math.ceil(n / 3)).slice(0, n),
  "qualified names": (n) =>
    Array.from({ length: Math.ceil(n / 8) }, (_, i) => `X${i}.y${i}`)
      .join(" ")
      .slice(0, n),
  "distinct words": (n) =>
    Array.from({ length: Math.ceil(n / 7) }, (_, i) => `word${i}`)
      .join(" ")
      .slice(0, n),
  "camelCase run": (n) => "getUserByID".repeat(Math.ceil(n / 11)).slice(0, n),
};
const COST_LENGTHS = [125, 250, 500, 1000];

async function benchSearchCost(stateDir) {
  const { ctx, callTool } = await openTools(stateDir);
  const { MAX_NAME_LENGTH } = await import(path.join(REPO, "dist/tools/schema.js"));
  try {
    const rows = {};
    for (const [shape, make] of Object.entries(COST_SHAPES)) {
      rows[shape] = {};
      for (const n of COST_LENGTHS.filter((l) => l <= MAX_NAME_LENGTH)) {
        const query = make(n);
        await callTool(ctx, "mast_search", { query });
        const times = [];
        for (let pass = 0; pass < TIMED_PASSES; pass++) {
          const t0 = performance.now();
          await callTool(ctx, "mast_search", { query });
          times.push(performance.now() - t0);
        }
        rows[shape][n] = round(stats(times).p50);
      }
    }
    let overMax = null;
    try {
      await callTool(ctx, "mast_search", { query: "x".repeat(MAX_NAME_LENGTH + 1) });
      overMax = "answered";
    } catch (err) {
      overMax = err.code ?? err.message;
    }
    return { max_query_length: MAX_NAME_LENGTH, lengths: COST_LENGTHS, p50_ms: rows, over_max: overMax };
  } finally {
    ctx.close();
  }
}

function rgRun(args) {
  const t0 = performance.now();
  const r = spawnSync("rg", args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - t0;
  if (r.error) throw new BenchError(`cannot run rg: ${r.error.message}`);
  if (r.status !== 0 && r.status !== 1) throw new BenchError(`rg ${args.join(" ")} failed (exit ${r.status}): ${r.stderr.trim()}`);
  return { ms, lines: r.status === 0 ? r.stdout.split("\n").filter(Boolean).length : 0 };
}

function benchRg(qs) {
  const series = [
    { key: "symbols", command: "rg -n --no-heading -w <NAME> <corpus>", argv: qs.symbols.map((s) => ["-n", "--no-heading", "-w", s.rg_word, CORPUS]) },
    { key: "phrases", command: 'rg -n -i "<phrase>" <corpus>', argv: qs.phrases.map((p) => ["-n", "-i", p.phrase, CORPUS]) },
  ];
  const out = {};
  for (const s of series) {
    const lines = s.argv.map((a) => rgRun(a).lines); // warm-up pass
    const times = [];
    for (let pass = 0; pass < TIMED_PASSES; pass++) for (const a of s.argv) times.push(rgRun(a).ms);
    out[s.key] = {
      command: s.command,
      queries: s.argv.length,
      calls: times.length,
      ms: roundStats(stats(times)),
      matched: lines.filter((n) => n > 0).length,
      match_lines_median: median(lines),
      samples_ms: times.map((t) => round(t)),
    };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// main

async function main() {
  const missing = missingBuild();
  if (missing) {
    process.stderr.write(`bench: ${missing} is missing: run \`npm run build\` first\n`);
    return 2;
  }
  const rgVersion = have("rg", ["--version"]);
  if (!rgVersion) process.stdout.write(`ripgrep (rg) is not on PATH: the baseline is skipped. Install it with: ${RG_INSTALL}\n`);

  const env = benchEnvironment();
  const distAtStart = distStamp();
  env.mast_dist_built = new Date(distAtStart).toISOString();
  const fetched = ensureCorpus();
  repairInterruptedEdit();
  const corpus = describeCorpus();
  if (corpus.files === 0) throw new BenchError(`the corpus in ${CORPUS} holds no indexable file`);

  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-query-"));
  const cleanup = () => fs.rmSync(stateDir, { recursive: true, force: true });
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.once(sig, () => {
      for (const c of liveChildren) c.child.kill("SIGKILL");
      cleanup();
      process.exit(130);
    });
  }
  let index, qs, inproc, mcp, rg, cost;
  try {
    process.stderr.write(`mast index (fresh state dir) ...\n`);
    index = indexCorpus(stateDir);
    qs = await drawQuerySet(path.join(stateDir, "graph.db"));
    process.stderr.write(`in-process: 1 warm-up + ${TIMED_PASSES} timed passes ...\n`);
    inproc = await benchInProcess(qs, stateDir);
    process.stderr.write(`search cost by query length ...\n`);
    cost = await benchSearchCost(stateDir);
    process.stderr.write(`MCP: ${SERVE_SPAWNS} spawns of mast serve, then mast_search over stdio ...\n`);
    mcp = await benchMcp(qs, stateDir);
    if (rgVersion) {
      process.stderr.write(`ripgrep: 1 warm-up + ${TIMED_PASSES} timed passes ...\n`);
      rg = benchRg(qs);
    }
  } finally {
    cleanup();
  }
  env.loadavg_at_end = loadavg();

  const S = inproc.series;
  const ratio = (a, b) => (a && b ? a / b : null);
  const ratios = rg
    ? {
        search_symbols_p50_in_process: ratio(S.search_symbols.ms.p50, rg.symbols.ms.p50),
        search_symbols_p95_in_process: ratio(S.search_symbols.ms.p95, rg.symbols.ms.p95),
        search_symbols_p50_mcp: ratio(mcp.search_symbols.ms.p50, rg.symbols.ms.p50),
        search_phrases_p50_in_process: ratio(S.search_phrases.ms.p50, rg.phrases.ms.p50),
        search_phrases_p95_in_process: ratio(S.search_phrases.ms.p95, rg.phrases.ms.p95),
      }
    : null;

  const t = (name, target, value, limit) => ({ name, target: `<= ${target} ms`, value: round(value), pass: value === null || value === undefined ? null : value <= limit });
  const targets = [
    t("mast_search symbols p50 (in-process)", TARGETS.search_p50_ms, S.search_symbols.ms.p50, TARGETS.search_p50_ms),
    t("mast_search symbols p95 (in-process)", TARGETS.search_p95_ms, S.search_symbols.ms.p95, TARGETS.search_p95_ms),
    t("mast_search phrases p50 (in-process)", TARGETS.search_p50_ms, S.search_phrases.ms.p50, TARGETS.search_p50_ms),
    t("mast_search phrases p95 (in-process)", TARGETS.search_p95_ms, S.search_phrases.ms.p95, TARGETS.search_p95_ms),
    t("mast_search symbols p50 (MCP stdio)", TARGETS.search_p50_ms, mcp.search_symbols.ms.p50, TARGETS.search_p50_ms),
    t("mast_search symbols p95 (MCP stdio)", TARGETS.search_p95_ms, mcp.search_symbols.ms.p95, TARGETS.search_p95_ms),
    t("mast_signature p50 (in-process)", TARGETS.signature_p50_ms, S.signature.ms.p50, TARGETS.signature_p50_ms),
    t("mast_exports p50 (in-process)", TARGETS.exports_p50_ms, S.exports.ms.p50, TARGETS.exports_p50_ms),
    t("mast_callers p50 (MCP stdio)", TARGETS.callers_p50_ms, mcp.callers.ms.p50, TARGETS.callers_p50_ms),
    t("serve ready, spawn -> tools/list (median)", TARGETS.serve_ready_ms, mcp.serve_ready_ms.median, TARGETS.serve_ready_ms),
  ];
  // Linear growth: doubling the query from half the maximum to the maximum at most 2.5x the time
  // (a quadratic scan would take 4x), and the longest query within the bound.
  const costAt = (n) => Object.values(cost.p50_ms).map((r) => r[n]);
  const half = cost.max_query_length / 2;
  const growth = Math.max(...Object.values(cost.p50_ms).map((r) => (r[cost.max_query_length] ?? 0) / Math.max(r[half] ?? 0, 1)));
  const longest = Math.max(...costAt(cost.max_query_length));
  targets.push({
    name: `mast_search growth, ${half} -> ${cost.max_query_length} chars (worst shape)`,
    target: `<= ${TARGETS.search_cost_growth}x`,
    value: round(growth),
    unit: "x",
    pass: growth <= TARGETS.search_cost_growth,
  });
  targets.push(t(`mast_search at ${cost.max_query_length} chars (worst shape)`, TARGETS.search_longest_ms, longest, TARGETS.search_longest_ms));
  targets.push({ name: `mast_search at ${cost.max_query_length + 1} chars is refused`, target: "INVALID_ARGUMENT", value: cost.over_max, unit: "", pass: cost.over_max === "INVALID_ARGUMENT" });

  const notes = [];
  const kinds = Object.entries(SYMBOL_QUOTA).map(([k, n]) => [k, qs.symbols.filter((s) => s.kind === k).length, n]);
  for (const [k, got, want] of kinds) if (got < want) notes.push(`only ${got} exported ${k} names were eligible (wanted ${want})`);
  if (qs.phrases.length < PHRASES) notes.push(`only ${qs.phrases.length} doc-comment phrases were found (wanted ${PHRASES})`);
  for (const s of Object.values(S)) if (s.errors.length) notes.push(`${s.label}: ${s.errors.length} call(s) answered with an error, e.g. ${s.errors[0]}`);
  const missedSymbols = S.search_symbols.check.missed;
  if (missedSymbols.length)
    notes.push(`mast_search missed ${missedSymbols.length} of its own symbol names in the top ${SEARCH_LIMIT} (neither the chunk nor a class shell listing it): ${missedSymbols.join(", ")}`);
  if (mcp.search_symbols.errors.length) notes.push(`mast_search over MCP: ${mcp.search_symbols.errors.length} error answer(s), e.g. ${mcp.search_symbols.errors[0]}`);
  if (index.report.files_indexed !== corpus.files) notes.push(`mast indexed ${index.report.files_indexed} files, the corpus walk counted ${corpus.files}`);
  // A tool that failed on every query did not run: that, unlike a MISS, makes the exit code non-zero.
  const failed = Object.values(S).filter((s) => s.errors.length === s.queries);
  if (mcp.search_symbols.errors.length === qs.symbols.length) failed.push({ label: "mast_search over MCP" });
  if (mcp.callers.errors.length) notes.push(`mast_callers over MCP: ${mcp.callers.errors.length} error answer(s), e.g. ${mcp.callers.errors[0]}`);
  if (mcp.callers.queries > 0 && mcp.callers.errors.length === mcp.callers.queries) failed.push({ label: "mast_callers over MCP" });
  for (const f of failed) notes.push(`${f.label} answered every query with an error: its timings measure the error path, not the tool`);
  notes.push(...buildNotes(env, distAtStart));

  // ----- print
  const L = [];
  const ms = (x) => fmt(x, 2);
  L.push(`mast query-latency bench — ${env.date}`);
  L.push(`machine: nproc ${env.nproc}, ${env.cpu}, ${env.total_mem_gb} GiB, ${env.platform}, node ${env.node}`);
  L.push(`mast ${env.mast_commit ?? "?"}${env.src_modified ? " (src/ modified)" : ""}, dist built ${env.mast_dist_built}`);
  L.push(`load average (1/5/15 min): start ${env.loadavg_at_start.join(" ")}, end ${env.loadavg_at_end.join(" ")}`);
  L.push("");
  L.push(
    `corpus: ${path.relative(REPO, CORPUS)}/ (${fetched.downloaded ? "downloaded now" : "cached, stamp matches"}) — ${PACKAGES.length} npm packages, ${corpus.files} files, ${fmt(corpus.bytes / 1e6)} MB (${Object.entries(
      corpus.by_extension,
    )
      .map(([e, n]) => `${n} ${e}`)
      .join(", ")})`,
  );
  L.push(
    `index: fresh temp --state-dir, ${index.report.files_indexed} files, ${index.report.chunk_count} chunks, ${index.report.symbol_count} symbols; wall ${fmt(index.wall_ms / 1000)} s (duration_ms ${index.report.duration_ms}), not a target here`,
  );
  L.push("");
  const byKind = Object.keys(SYMBOL_QUOTA).map((k) => `${qs.symbols.filter((s) => s.kind === k).length} ${k === "class" ? "classes" : `${k}s`}`);
  L.push(`query set (seed 0x${SEED.toString(16)}, drawn from graph.db):`);
  L.push(`  symbols      ${lpad(qs.symbols.length, 3)}  (${byKind.join(", ")}; exported; methods as Class.method)`);
  L.push(`  phrases      ${lpad(qs.phrases.length, 3)}  (3-6 words from one line of a doc comment)`);
  L.push(`  files        ${lpad(qs.files.length, 3)}  (of ${qs.files_in_index} indexed)`);
  L.push(`  directories  ${lpad(qs.directories.length, 3)}  (${qs.directories.map((d) => (d === null ? "<whole project>" : d)).join(", ")})`);
  L.push(
    `  e.g. symbols: ${qs.symbols
      .filter((_, i) => i % 12 === 0)
      .map((s) => s.name)
      .join(", ")}`,
  );
  L.push(
    `  e.g. phrases: ${qs.phrases
      .slice(0, 3)
      .map((p) => `"${p.phrase}"`)
      .join(", ")}`,
  );
  L.push("");
  L.push(`in-process (dist/tools/registry.js callTool, one ToolContext; store opened in ${ms(inproc.store_open_ms)} ms) — 1 warm-up pass, ${TIMED_PASSES} timed passes, ms`);
  L.push(`  ${pad("tool", 26)}${lpad("queries", 8)}${lpad("calls", 7)}${lpad("p50", 9)}${lpad("p95", 9)}${lpad("max", 9)}${lpad("mean", 9)}  check`);
  for (const s of Object.values(S)) {
    L.push(
      `  ${pad(s.label, 26)}${lpad(s.queries, 8)}${lpad(s.calls, 7)}${lpad(ms(s.ms.p50), 9)}${lpad(ms(s.ms.p95), 9)}${lpad(ms(s.ms.max), 9)}${lpad(ms(s.ms.mean), 9)}  ${s.check.ok}/${s.check.of} ${s.check.label}${s.errors.length ? `, ${s.errors.length} errors` : ""}`,
    );
  }
  L.push("");
  L.push(`MCP stdio (${mcp.command}; protocol ${mcp.protocol_version}, ${mcp.tools_listed.length} tools listed)`);
  L.push(
    `  serve ready (spawn -> tools/list response), ${SERVE_SPAWNS} spawns: median ${fmt(mcp.serve_ready_ms.median, 0)} ms (min ${fmt(mcp.serve_ready_ms.min, 0)}, max ${fmt(mcp.serve_ready_ms.max, 0)}); spawn -> initialize response median ${fmt(mcp.initialize_ms.median, 0)} ms`,
  );
  L.push(`    runs: ${mcp.spawns.map((s) => fmt(s.ready_ms, 0)).join(", ")} ms`);
  const m = mcp.search_symbols;
  L.push(
    `  ${pad("mast_search (symbols)", 26)}${lpad(m.queries, 8)}${lpad(m.calls, 7)}${lpad(ms(m.ms.p50), 9)}${lpad(ms(m.ms.p95), 9)}${lpad(ms(m.ms.max), 9)}${lpad(ms(m.ms.mean), 9)}  ${m.check.ok}/${m.check.of} ${m.check.label}; median response ${fmt(m.response_bytes_median / 1000, 1)} KB`,
  );
  const c = mcp.callers;
  L.push(
    `  ${pad("mast_callers", 26)}${lpad(c.queries, 8)}${lpad(c.calls, 7)}${lpad(ms(c.ms.p50), 9)}${lpad(ms(c.ms.p95), 9)}${lpad(ms(c.ms.max), 9)}${lpad(ms(c.ms.mean), 9)}  ${c.check.ok}/${c.check.of} ${c.check.label}; median response ${fmt(c.response_bytes_median / 1000, 1)} KB`,
  );
  L.push(`    (request written -> response line parsed, on one connection; 1 warm-up pass, ${TIMED_PASSES} timed passes)`);
  L.push("");
  if (rg) {
    L.push(`ripgrep baseline (${rgVersion.split("\n")[0]}) — wall per query, process spawn included; 1 warm-up pass, ${TIMED_PASSES} timed passes, ms`);
    L.push(`  ${pad("command", 40)}${lpad("queries", 8)}${lpad("calls", 7)}${lpad("p50", 9)}${lpad("p95", 9)}${lpad("max", 9)}  matched`);
    for (const r of Object.values(rg)) {
      L.push(
        `  ${pad(r.command, 40)}${lpad(r.queries, 8)}${lpad(r.calls, 7)}${lpad(ms(r.ms.p50), 9)}${lpad(ms(r.ms.p95), 9)}${lpad(ms(r.ms.max), 9)}  ${r.matched}/${r.queries} (median ${r.match_lines_median} lines)`,
      );
    }
    L.push(`  (for a Class.method symbol rg gets the method name: -w Class.method would match almost nothing)`);
    L.push(
      `  mast/rg: symbols p50 ${fmt(ratios.search_symbols_p50_in_process, 3)}x in-process, ${fmt(ratios.search_symbols_p50_mcp, 3)}x over MCP, p95 ${fmt(ratios.search_symbols_p95_in_process, 3)}x in-process; phrases p50 ${fmt(ratios.search_phrases_p50_in_process, 3)}x, p95 ${fmt(ratios.search_phrases_p95_in_process, 3)}x in-process`,
    );
  } else {
    L.push(`ripgrep baseline — skipped: rg is not on PATH (${RG_INSTALL})`);
  }
  L.push("");
  L.push(`search cost by query length (in-process, p50 of ${TIMED_PASSES} after a warm-up; the schema's maximum is ${cost.max_query_length} characters), ms`);
  L.push(`  ${pad("shape", 18)}${cost.lengths.map((n) => lpad(n, 9)).join("")}`);
  for (const [shape, row] of Object.entries(cost.p50_ms)) L.push(`  ${pad(shape, 18)}${cost.lengths.map((n) => lpad(ms(row[n]), 9)).join("")}`);
  L.push(`  ${cost.max_query_length + 1} characters: ${cost.over_max}`);
  L.push("");
  L.push("targets");
  const shown = (x) => (x.value === null ? "n/a" : typeof x.value === "string" ? x.value : `${fmt(x.value, 2)} ${x.unit ?? "ms"}`);
  for (const x of targets) L.push(`  ${verdict(x.pass)}  ${pad(x.name, 56)}${pad(x.target, 18)}${lpad(shown(x), 17)}`);

  // ----- JSON
  publish(L, notes, OUT_JSON, {
    environment: env,
    corpus: { root: path.relative(REPO, corpus.root), files: corpus.files, bytes: corpus.bytes, by_extension: corpus.by_extension, packages: PACKAGES.map((p) => `${p.name}@${p.version}`) },
    index: { wall_ms: round(index.wall_ms), report: index.report },
    settings: { seed: SEED, search_limit: SEARCH_LIMIT, timed_passes: TIMED_PASSES, serve_spawns: SERVE_SPAWNS, percentile: "nearest-rank" },
    query_set: qs,
    in_process: inproc,
    mcp,
    search_cost: cost,
    ripgrep: rg ? { version: rgVersion.split("\n")[0], ...rg } : { skipped: `rg is not on PATH (${RG_INSTALL})` },
    ratio_mast_over_rg: ratios,
    targets,
    notes,
  });
  return failed.length ? 1 : 0;
}

await runBench(main, () => {
  for (const c of liveChildren) c.child.kill("SIGKILL");
});
