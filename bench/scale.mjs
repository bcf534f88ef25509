#!/usr/bin/env node
// Scale bench: how mast's index, CLI and server grow with the tree, on a synthetic monorepo
// assembled reproducibly from real repositories (TypeScript, Python, Go and Rust) at 100 MB,
// 300 MB and 1 GB of source by default, each figure reported beside how it grew.
//
//   npm run build && npm run bench:scale [-- --sizes 100,300,1000 --queries 10000]
//
// The tree: SOURCES below, each pinned at a commit, read from a git directory holding it
// ($MAST_SCALE_GIT_ROOT/<owner>+<name>/repo, default ../.mirror/<owner>+<name>/repo, where the
// `fetch` tool puts it; a missing one is named with the command that brings it). Their code files
// (CODE) and manifests (MANIFEST, not counted) are copied side by side into
// bench/.scale/tree-<MB>/c<copy>/<name>/ (gitignored), copy after copy, until the code reaches the
// size; every copy after the first gets one comment line per file, so no two copies are the same
// bytes (a content-addressed cache cannot make a copy free). ~100 MB per copy.
//
// Per size, with dist/'s mast:
// - full build (`mast index --json` under /usr/bin/time): wall, peak RSS, the state dir's bytes
//   beside the code's;
// - no-op incremental, one-file change (CLI), `mast status`, one `mast query` (walls, median of 3);
// - the server (`mast serve` over stdio, a real MCP client): spawn → tools/list answered (with the
//   startup reindex, as users run it), the first mast_search after it, then (another server,
//   --no-startup-reindex) mast_search / mast_callers / mast_rename_impact p50 and p95 over
//   QUERY_SAMPLE names drawn with a seeded PRNG from the index, a one-file change answered by the
//   running server (mast_signature of a function just appended to a file), and the server's RSS
//   after --queries calls (default 10,000) cycling through the three tools.
//
// A report, not a test: exits 0 whether targets PASS or MISS, non-zero only when something could
// not run. Figures go to bench/.out/scale.json.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BENCH_DIR, BenchError, MAST, OUT_DIR, REPO, fmt, lpad, machineFacts, median, missingBuild, pad, percentile, prng, publish, round, runBench, shuffled, verdict, TIME } from "./corpus.mjs";

/** The real repositories a copy is made of, each at a pinned commit (~100 MB of code in all). */
const SOURCES = [
  { repo: "eclipse-theia/theia", commit: "c66a38110467826d2eb718fccd88eb2692d28969" },
  { repo: "sqlalchemy/sqlalchemy", commit: "f35da7e2b9349a08b8de1f6bd3b07c8bf8616790" },
  { repo: "rust-lang/rust-analyzer", commit: "d2e55da49132fa70a13dfbdc99122432b02cf464" },
  { repo: "prometheus/prometheus", commit: "d15adb9ad7e5d9fbde3a9a8f30200593a5a14d86" },
  { repo: "pydantic/pydantic", commit: "2151025aa51263f3016502b00010b78e4481eaa1" },
  { repo: "TanStack/query", commit: "40321a0b1b3bdd0afa11f0e439642ab84cdf6afe" },
  { repo: "trpc/trpc", commit: "340811ba5320637fbaf48fccf3dbfdd258bd34db" },
  { repo: "colinhacks/zod", commit: "e516c3baf22615e20934116abebfed6c000222c2" },
  { repo: "honojs/hono", commit: "28a9c128912de19f3fb28b00ae289c9b93f6f392" },
  { repo: "nestjs/graphql", commit: "5f53531469b19af85c9c60cb853428852d2caebd" },
  { repo: "urfave/cli", commit: "1305a08200f7c4d873e28bd2bbad1ff257c6cfc4" },
  { repo: "pallets/flask", commit: "2ac89889f4cc330eabd50f295dcef02828522c69" },
  { repo: "encode/httpx", commit: "ae1b9f66238f75ced3ced5e4485408435de10768" },
];
const CODE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|py|pyi|go|rs)$/;
const MANIFEST = /(^|\/)(package\.json|tsconfig[^/]*\.json|go\.mod|Cargo\.toml|pyproject\.toml)$/;
/** The line a copy appends to a code file, by its comment syntax. */
const copyMark = (file, copy) => (/\.pyi?$/.test(file) ? `\n# scale copy ${copy}\n` : `\n// scale copy ${copy}\n`);
/** Bump when the tree's assembly changes, so an old tree is rebuilt. */
const TREE_FORMAT = 1;
const SCALE_DIR = path.join(BENCH_DIR, ".scale");
const GIT_ROOT = process.env.MAST_SCALE_GIT_ROOT ?? path.resolve(REPO, "..", ".mirror");
const SEED = 0x5ca1e;
const QUERY_SAMPLE = 200;
const CHANGES = 5;
/** How long the server idles after the query loop before its RSS is read again. */
const IDLE_MS = 12_000;

const TARGETS = {
  full_build_s_per_gb: 480,
  peak_rss_mb: 2048,
  db_over_source: 1.5,
  noop_ms: 2000,
  change_server_ms: 300,
  status_ms: 300,
  query_cli_ms: 200,
  ready_ms: 300,
  first_search_ms: 1000,
  callers_p50_ms: 20,
  callers_p95_ms: 100,
  search_p50_ms: 30,
};

const gitDirOf = (repo) => path.join(GIT_ROOT, repo.replace("/", "+"), "repo");

/**
 * The pinned commit's code and manifests of `source`, extracted once into bench/.scale/src/ through
 * `git cat-file --batch` (a mirror may lack its largest blobs, which `git archive` refuses; a code
 * file whose blob is absent is left out and counted).
 */
function sourceTree(source) {
  const dir = path.join(SCALE_DIR, "src", source.repo.replace("/", "+"));
  const stamp = path.join(dir, ".mast-scale-commit");
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === source.commit) return dir;
  const git = gitDirOf(source.repo);
  const has = spawnSync("git", ["--git-dir", git, "cat-file", "-e", `${source.commit}^{commit}`]);
  if (has.status !== 0)
    throw new BenchError(
      `${source.repo} at ${source.commit} is not in ${git}: bring it with the fetch tool (github:${source.repo}), or set MAST_SCALE_GIT_ROOT to a directory of <owner>+<name>/repo git dirs holding it`,
    );
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const tree = spawnSync("git", ["--git-dir", git, "ls-tree", "-r", "-z", source.commit], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (tree.status !== 0) throw new BenchError(`cannot list ${source.repo}: ${tree.stderr}`);
  const blobs = tree.stdout
    .split("\0")
    .map((entry) => /^(\d+) blob ([0-9a-f]+)\t(.+)$/s.exec(entry))
    .filter((m) => m !== null && m[1] !== "120000" && (CODE.test(m[3]) || MANIFEST.test(m[3])))
    .map((m) => ({ oid: m[2], file: m[3] }));
  const batch = spawnSync("git", ["--git-dir", git, "cat-file", "--batch"], { input: blobs.map((b) => b.oid).join("\n") + "\n", maxBuffer: 2 * 1024 * 1024 * 1024 });
  if (batch.status !== 0) throw new BenchError(`cannot read ${source.repo}'s blobs: ${batch.stderr}`);
  const out = batch.stdout;
  let at = 0;
  let absent = 0;
  for (const { file } of blobs) {
    const eol = out.indexOf(10, at);
    const header = out.toString("utf8", at, eol).split(" ");
    at = eol + 1;
    if (header[1] !== "blob") {
      absent++;
      continue;
    }
    const size = Number(header[2]);
    const to = path.join(dir, file);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.writeFileSync(to, out.subarray(at, at + size));
    at += size + 1;
  }
  fs.writeFileSync(path.join(dir, ".mast-scale-absent"), String(absent));
  fs.writeFileSync(stamp, source.commit);
  return dir;
}

/** Every file under `dir` (relative paths, sorted), symlinks left out. */
function filesUnder(dir, rel = "") {
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (e.name !== "node_modules" && e.name !== ".git") out.push(...filesUnder(dir, r));
    } else if (e.isFile()) out.push(r);
  }
  return out;
}

/** The synthetic tree of `mb` MB of code: bench/.scale/tree-<mb>/, reused while its stamp matches. */
function assembleTree(mb) {
  const root = path.join(SCALE_DIR, `tree-${mb}`);
  const key = JSON.stringify({ TREE_FORMAT, mb, SOURCES });
  const stamp = path.join(SCALE_DIR, `tree-${mb}.stamp`);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === key && fs.existsSync(root)) return { root, ...JSON.parse(fs.readFileSync(`${stamp}.json`, "utf8")) };
  fs.rmSync(stamp, { force: true });
  fs.rmSync(root, { recursive: true, force: true });
  const listed = SOURCES.map((s) => {
    const dir = sourceTree(s);
    const files = filesUnder(dir).filter((f) => CODE.test(f) || MANIFEST.test(f));
    return { ...s, dir, files };
  });
  let codeBytes = 0;
  let codeFiles = 0;
  let copies = 0;
  for (let copy = 0; codeBytes < mb * 1e6; copy++) {
    copies = copy + 1;
    for (const s of listed) {
      if (codeBytes >= mb * 1e6) break;
      const dest = path.join(root, `c${String(copy).padStart(2, "0")}`, s.repo.split("/")[1]);
      for (const f of s.files) {
        const to = path.join(dest, f);
        fs.mkdirSync(path.dirname(to), { recursive: true });
        let body = fs.readFileSync(path.join(s.dir, f));
        if (CODE.test(f)) {
          if (copy > 0) body = Buffer.concat([body, Buffer.from(copyMark(f, copy))]);
          codeBytes += body.length;
          codeFiles++;
        }
        fs.writeFileSync(to, body);
      }
    }
  }
  const facts = { code_bytes: codeBytes, code_files: codeFiles, copies };
  fs.writeFileSync(`${stamp}.json`, JSON.stringify(facts));
  fs.writeFileSync(stamp, key);
  return { root, ...facts };
}

/** `node dist/bin/mast.js ...args`: wall, peak RSS (under /usr/bin/time) and output; a failure is a BenchError. */
function mast(args, { rss = false } = {}) {
  const argv = rss ? [TIME, "-f", "%M", process.execPath, MAST, ...args] : [process.execPath, MAST, ...args];
  const t0 = performance.now();
  const r = spawnSync(argv[0], argv.slice(1), { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const wallMs = performance.now() - t0;
  if (r.error) throw new BenchError(`cannot run mast: ${r.error.message}`);
  if (r.status !== 0) throw new BenchError(`mast ${args.join(" ")} failed (exit ${r.status}):\n${r.stderr.trim().slice(0, 2000)}`);
  const last = rss ? (r.stderr.trimEnd().split("\n").at(-1)?.trim() ?? "") : "";
  return { wallMs, rssKb: /^\d+$/.test(last) ? Number(last) : null, stdout: r.stdout };
}

const medianWall = (n, f) => median(Array.from({ length: n }, () => f().wallMs));

function dirBytes(dir) {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return total;
}

/** QUERY_SAMPLE function and method names of the index (seeded), and the files to change: TypeScript files of the first copy. */
function sample(stateDir) {
  const db = new Database(path.join(stateDir, "graph.db"), { readonly: true });
  try {
    const rand = prng(SEED);
    const names = db
      .prepare("SELECT s.name AS name, f.path AS file FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method', 'class') AND length(s.name) > 3 ORDER BY s.id")
      .all();
    const picked = shuffled(names, rand).slice(0, QUERY_SAMPLE);
    const tsFiles = db
      .prepare("SELECT path FROM files WHERE path LIKE 'c00/%' AND path LIKE '%.ts' AND path NOT LIKE '%.d.ts' ORDER BY path")
      .all()
      .map((r) => r.path);
    return { picked, changeFiles: shuffled(tsFiles, rand).slice(0, CHANGES + 1) };
  } finally {
    db.close();
  }
}

/** Server starts whose ready time's median is reported. */
const READY_STARTS = 3;

/** A `mast serve` over stdio with a real MCP client; `ready_ms` is spawn → tools/list answered. */
async function startServer(root, stateDir, extra = []) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAST, "serve", root, "--state-dir", stateDir, ...extra], stderr: "ignore" });
  const client = new Client({ name: "mast-bench-scale", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  const readyMs = performance.now() - t0;
  const call = async (name, args) => {
    const t = performance.now();
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
    const ms = performance.now() - t;
    const text = r.content?.[0]?.text ?? "";
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {}
    return { ms, body, isError: r.isError === true };
  };
  const rss = () => {
    const status = fs.readFileSync(`/proc/${transport.pid}/status`, "utf8");
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? NaN);
    return { rss_mb: round(kb("VmRSS") / 1024, 0), hwm_mb: round(kb("VmHWM") / 1024, 0) };
  };
  return { readyMs, call, rss, close: () => client.close() };
}

const p = (xs, q) => round(percentile(xs, q), 1);

async function measureSize(mb, queries) {
  const tree = assembleTree(mb);
  const stateDir = path.join(SCALE_DIR, `state-${mb}`);
  fs.rmSync(stateDir, { recursive: true, force: true });
  const full = mast(["index", tree.root, "--state-dir", stateDir, "--json"], { rss: true });
  const report = JSON.parse(full.stdout);
  const dbBytes = dirBytes(stateDir);
  const noopMs = medianWall(3, () => mast(["index", tree.root, "--state-dir", stateDir, "--incremental", "--json"]));
  const statusMs = medianWall(3, () => mast(["status", tree.root, "--state-dir", stateDir, "--json"]));
  const queryCliMs = medianWall(3, () => mast(["query", "mast_search", JSON.stringify({ query: "parse config file" }), tree.root, "--state-dir", stateDir, "--json"]));
  const { picked, changeFiles } = sample(stateDir);
  const originals = new Map(changeFiles.map((f) => [f, fs.readFileSync(path.join(tree.root, f))]));
  try {
    // One file changed, then the CLI's incremental run.
    fs.appendFileSync(path.join(tree.root, changeFiles[0]), "\nexport function scaleProbeCli() { return 0; }\n");
    const changeCliMs = mast(["index", tree.root, "--state-dir", stateDir, "--incremental", "--json"]).wallMs;

    // The server as users start it (startup reindex on): ready, and the first search at once. Ready
    // is the median of READY_STARTS starts, as the CLI's walls are medians (one start varies by 20%).
    const a = await startServer(tree.root, stateDir);
    const first = await a.call("mast_search", { query: "parse config file" });
    await a.close();
    const readies = [a.readyMs];
    for (let i = 1; i < READY_STARTS; i++) {
      const again = await startServer(tree.root, stateDir);
      readies.push(again.readyMs);
      await again.close();
    }

    const s = await startServer(tree.root, stateDir, ["--no-startup-reindex"]);
    const times = { search: [], callers: [], rename: [] };
    try {
      for (const { name, file } of picked) {
        const words = name
          .replace(/([a-z])([A-Z])/g, "$1 $2")
          .replace(/[_.]/g, " ")
          .toLowerCase();
        times.search.push((await s.call("mast_search", { query: words })).ms);
        times.callers.push((await s.call("mast_callers", { symbol: name, file_path: file })).ms);
        times.rename.push((await s.call("mast_rename_impact", { symbol: name, file_path: file })).ms);
      }
      // A file changed under the running server: the next call naming it answers the new function.
      const changes = [];
      let changeAnswered = 0;
      for (let i = 1; i <= CHANGES; i++) {
        const file = changeFiles[i];
        fs.appendFileSync(path.join(tree.root, file), `\nexport function scaleProbe${i}(flag: boolean): number { return flag ? ${i} : 0; }\n`);
        const r = await s.call("mast_signature", { symbol: `scaleProbe${i}`, file_path: file });
        changes.push(r.ms);
        if (JSON.stringify(r.body ?? {}).includes(`scaleProbe${i}`) && !r.body?.not_found) changeAnswered++;
      }
      // The CLI's query while the server runs: answered by it over the state dir's socket (mcp/local.ts).
      const queryServedMs = medianWall(3, () => mast(["query", "mast_search", JSON.stringify({ query: "parse config file" }), tree.root, "--state-dir", stateDir, "--json"]));
      const signatureServedMs = medianWall(3, () =>
        mast(["query", "mast_signature", JSON.stringify({ symbol: picked[0].name, file_path: picked[0].file }), tree.root, "--state-dir", stateDir, "--json"]),
      );
      const rssBefore = s.rss();
      const t0 = performance.now();
      for (let i = 0; i < queries; i++) {
        const { name, file } = picked[i % picked.length];
        if (i % 3 === 0) await s.call("mast_search", { query: name });
        else if (i % 3 === 1) await s.call("mast_callers", { symbol: name, file_path: file });
        else await s.call("mast_signature", { symbol: name, file_path: file });
      }
      const loopS = (performance.now() - t0) / 1000;
      const rssAfter = s.rss();
      // V8 gives a collected heap's pages back to the system lazily, when the process idles: the
      // RSS right after a loop holds garbage not yet returned; after IDLE_MS (its memory reducer runs after ~10 s idle, measured) it holds what is live.
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      return {
        mb,
        code_bytes: tree.code_bytes,
        code_files: tree.code_files,
        copies: tree.copies,
        indexed_files: report.files_indexed ?? null,
        full_phases_ms: report.phases_ms ?? null,
        full_s: round(full.wallMs / 1000, 1),
        peak_rss_mb: round(full.rssKb / 1024, 0),
        state_bytes: dbBytes,
        db_over_source: round(dbBytes / tree.code_bytes, 2),
        noop_ms: round(noopMs, 0),
        change_cli_ms: round(changeCliMs, 0),
        status_ms: round(statusMs, 0),
        query_cli_ms: round(queryCliMs, 0),
        query_served_ms: { search: round(queryServedMs, 0), signature: round(signatureServedMs, 0) },
        ready_ms: round(median(readies), 0),
        ready_starts_ms: readies.map((ms) => round(ms, 0)),
        ready_no_reindex_ms: round(s.readyMs, 0),
        first_search_ms: round(first.ms, 0),
        first_search_error: first.isError,
        search_ms: { p50: p(times.search, 0.5), p95: p(times.search, 0.95) },
        callers_ms: { p50: p(times.callers, 0.5), p95: p(times.callers, 0.95) },
        rename_impact_ms: { p50: p(times.rename, 0.5), p95: p(times.rename, 0.95) },
        change_server_ms: { p50: p(changes, 0.5), max: round(Math.max(...changes), 1), answered: changeAnswered, of: CHANGES },
        server_rss_mb: { before_loop: rssBefore, after: rssAfter, after_idle: s.rss(), queries, loop_s: round(loopS, 1) },
      };
    } finally {
      await s.close();
    }
  } finally {
    for (const [f, body] of originals) fs.writeFileSync(path.join(tree.root, f), body);
  }
}

async function main() {
  const { values } = parseArgs({ options: { sizes: { type: "string", default: "100,300,1000" }, queries: { type: "string", default: "10000" } } });
  const missing = missingBuild();
  if (missing) throw new BenchError(`${missing} is missing: run \`npm run build\` first`);
  if (spawnSync(TIME, ["-f", "%M", "true"]).status !== 0) throw new BenchError(`${TIME} is missing (apt-get install -y time)`);
  const sizes = values.sizes.split(",").map(Number);
  if (sizes.some((s) => !Number.isInteger(s) || s <= 0)) throw new BenchError(`--sizes takes MB as positive integers (got ${values.sizes})`);
  const queries = Number(values.queries);
  const rows = [];
  for (const mb of sizes) {
    process.stderr.write(`scale: ${mb} MB…\n`);
    rows.push(await measureSize(mb, queries));
    // Each size's figures are kept as soon as they are measured (a 1 GB size takes half an hour).
    fs.mkdirSync(OUT_DIR, { recursive: true });
    fs.writeFileSync(path.join(OUT_DIR, "scale.partial.json"), `${JSON.stringify({ sources: SOURCES, rows }, null, 2)}\n`);
  }
  const base = rows[0];
  const growth = (f) => rows.map((r) => (f(base) > 0 ? `${fmt(f(r) / f(base), 1)}×` : "n/a"));
  const line = (label, f, unit, target) => {
    const cells = rows.map((r) => lpad(`${f(r)}${unit}`, 12)).join("");
    const last = rows.at(-1);
    const pass = target === undefined ? "" : `  target ${target.text}  ${verdict(target.ok(last))}`;
    return `  ${pad(label, 34)}${cells}   growth ${growth((r) => Number(f(r)) || 0).join(" ")}${pass}`;
  };
  const gb = (r) => r.code_bytes / 1e9;
  const lines = [
    `scale — synthetic monorepos of ${SOURCES.length} real repositories per copy (${os.cpus().length} cores)`,
    "",
    `  ${pad("", 34)}${rows.map((r) => lpad(`${r.mb} MB`, 12)).join("")}`,
    line("code (MB) / files", (r) => round(r.code_bytes / 1e6, 0), ""),
    line("files indexed", (r) => r.indexed_files, ""),
    line("full build (s)", (r) => r.full_s, "", { text: `≤ ${TARGETS.full_build_s_per_gb} s per GB`, ok: (r) => r.full_s / gb(r) <= TARGETS.full_build_s_per_gb }),
    line("peak RSS (MB)", (r) => r.peak_rss_mb, "", { text: `≤ ${TARGETS.peak_rss_mb}`, ok: (r) => r.peak_rss_mb <= TARGETS.peak_rss_mb }),
    line("state dir / code", (r) => r.db_over_source, "×", { text: `≤ ${TARGETS.db_over_source}×`, ok: (r) => r.db_over_source <= TARGETS.db_over_source }),
    line("no-op incremental (ms)", (r) => r.noop_ms, "", { text: `≤ ${TARGETS.noop_ms}`, ok: (r) => r.noop_ms <= TARGETS.noop_ms }),
    line("one-file change, CLI (ms)", (r) => r.change_cli_ms, ""),
    line("mast status (ms)", (r) => r.status_ms, "", { text: `≤ ${TARGETS.status_ms}`, ok: (r) => r.status_ms <= TARGETS.status_ms }),
    line("mast query (ms)", (r) => r.query_cli_ms, "", { text: `≤ ${TARGETS.query_cli_ms}`, ok: (r) => r.query_cli_ms <= TARGETS.query_cli_ms }),
    line("query via server: search (ms)", (r) => r.query_served_ms?.search, "", { text: `≤ ${TARGETS.query_cli_ms}`, ok: (r) => r.query_served_ms?.search <= TARGETS.query_cli_ms }),
    line("query via server: signature (ms)", (r) => r.query_served_ms?.signature, "", { text: `≤ ${TARGETS.query_cli_ms}`, ok: (r) => r.query_served_ms?.signature <= TARGETS.query_cli_ms }),
    line("server ready (ms)", (r) => r.ready_ms, "", { text: `≤ ${TARGETS.ready_ms}`, ok: (r) => r.ready_ms <= TARGETS.ready_ms }),
    line("first search after ready (ms)", (r) => r.first_search_ms, "", { text: `≤ ${TARGETS.first_search_ms}`, ok: (r) => r.first_search_ms <= TARGETS.first_search_ms }),
    line("search p50 (ms)", (r) => r.search_ms.p50, "", { text: `≤ ${TARGETS.search_p50_ms}`, ok: (r) => r.search_ms.p50 <= TARGETS.search_p50_ms }),
    line("search p95 (ms)", (r) => r.search_ms.p95, ""),
    line("callers p50 (ms)", (r) => r.callers_ms.p50, "", { text: `≤ ${TARGETS.callers_p50_ms}`, ok: (r) => r.callers_ms.p50 <= TARGETS.callers_p50_ms }),
    line("callers p95 (ms)", (r) => r.callers_ms.p95, "", { text: `≤ ${TARGETS.callers_p95_ms}`, ok: (r) => r.callers_ms.p95 <= TARGETS.callers_p95_ms }),
    line("rename impact p50 / p95 (ms)", (r) => `${r.rename_impact_ms.p50}/${r.rename_impact_ms.p95}`, ""),
    line("one-file change, server p50 (ms)", (r) => r.change_server_ms.p50, "", {
      text: `≤ ${TARGETS.change_server_ms}`,
      ok: (r) => r.change_server_ms.p50 <= TARGETS.change_server_ms && r.change_server_ms.answered === r.change_server_ms.of,
    }),
    line("server RSS before / after loop / idle", (r) => `${r.server_rss_mb.before_loop.rss_mb}/${r.server_rss_mb.after.rss_mb}/${r.server_rss_mb.after_idle.rss_mb}`, ""),
  ];
  const notes = [
    `sources (per copy): ${SOURCES.map((s) => `${s.repo}@${s.commit.slice(0, 10)}`).join(", ")}`,
    `server RSS after ${queries} calls (search, callers, signature in turn), then after ${IDLE_MS / 1000} s idle (V8 returns a collected heap's pages lazily); loop walls: ${rows.map((r) => `${r.mb} MB ${r.server_rss_mb.loop_s} s`).join(", ")}`,
    `growth is each figure over the first size's; the code grew ${rows.map((r) => `${fmt(r.code_bytes / base.code_bytes, 1)}×`).join(" ")}`,
    `one-file change in the server: mast_signature of a function appended to a file, answered ${rows.map((r) => `${r.change_server_ms.answered}/${r.change_server_ms.of}`).join(", ")}`,
    `machine: ${Object.entries(machineFacts())
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  ];
  publish(lines, notes, path.join(OUT_DIR, "scale.json"), { sources: SOURCES, targets: TARGETS, rows });
  return 0;
}

await runBench(main);
