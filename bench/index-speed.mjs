#!/usr/bin/env node
// Index-speed bench: how fast `mast index` builds and refreshes its index, side by side with
// optave codegraph (a Rust-native code-graph indexer) and universal-ctags on the same trees in the
// same run, interleaved round by round so machine noise lands on all three alike.
//
//   npm run build && npm run bench:index
//
// Trees:
// - corpus: ~1,000 real TypeScript files (~4.5 MB), the TypeScript source eleven npm packages ship
//   in their tarballs, pinned by version and integrity in bench/corpus.mjs (shared with the other
//   benches), fetched with `npm pack` into bench/.corpus/ (gitignored).
// - large: the eclipse-theia/theia monorepo at a pinned commit (3,237 TypeScript files, 23 MB of
//   them; 3,604 files mast indexes), written into bench/.large/theia/ (gitignored) from a git
//   directory that holds the commit: $MAST_BENCH_LARGE_GIT, else ../.mirror/eclipse-theia+theia/repo
//   (where the `fetch` tool puts it). Without one the large tree is skipped and the report says so.
//
// codegraph (`@optave/codegraph`, pinned below) is installed by the bench into bench/.tools/
// (gitignored) with `npm install`; it is never a dependency of mast.
//
// This is a report, not a test: it exits 0 whether targets PASS or MISS, and non-zero only when
// something could not run (no build, npm/tar/ctags/time missing, mast failing). Figures also go
// to bench/.out/index-speed.json.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  BENCH_DIR,
  BenchError,
  CORPUS,
  CORPUS_FORMAT,
  EDIT_MARK,
  PACKAGES,
  REPO,
  describeCorpus,
  distStamp,
  measure as measureRun,
  TIME,
  ensureCorpus,
  ensureNpmTool,
  have,
  machineFacts,
  openTools,
  publish,
  repairInterruptedEdit,
  runBench,
} from "./corpus.mjs";

const OUT_JSON = path.join(BENCH_DIR, ".out", "index-speed.json");
const MAST = path.join(REPO, "dist", "bin", "mast.js");

const CODEGRAPH = { name: "@optave/codegraph", version: "3.11.2" };
const CODEGRAPH_DIR = path.join(BENCH_DIR, ".tools", "codegraph");
const CODEGRAPH_BIN = path.join(CODEGRAPH_DIR, "node_modules", ".bin", "codegraph");

const LARGE = { name: "theia", repo: "eclipse-theia/theia", commit: "c66a38110467826d2eb718fccd88eb2692d28969" };
const LARGE_ROOT = path.join(BENCH_DIR, ".large", LARGE.name);
const LARGE_STAMP = path.join(BENCH_DIR, ".large", `${LARGE.name}.stamp.json`);

/** Interleaved rounds of full builds (mast, codegraph, ctags), after one unmeasured warm-up each. */
const ROUNDS = { corpus: 5, large: 3 };
const INCREMENTAL_RUNS = 5;

const TARGETS = {
  ratio_vs_codegraph: 0.66,
  ratio_vs_ctags: 3.5,
  peak_rss_mb: 500,
  nochange_ms: 100,
  onefile_cli_ms: 120,
  onefile_server_ms: 50,
  status_ms: 150,
  query_ms: 150,
};

// Ctrl-C reaches the child too; let the current step fail so `finally` restores the edited file.
let interrupted = false;
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => (interrupted = true));

// ---------------------------------------------------------------------------------------------
// small helpers

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const best = (xs) => Math.min(...xs);
const mb = (bytes) => bytes / 1e6;
const fmt = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? "n/a" : x.toFixed(digits));
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
const verdict = (ok) => (ok === null ? "n/a " : ok ? "PASS" : "MISS");
const series = (xs) => ({ best: best(xs), median: median(xs), all: xs });

/** `measure` (bench/corpus.mjs), failing the step when Ctrl-C arrived while it ran. */
function measure(argv, opts) {
  const m = measureRun(argv, opts);
  if (interrupted) throw new BenchError("interrupted");
  return m;
}

const tempDirs = [];
function tempDir(prefix) {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(d);
  return d;
}

// ---------------------------------------------------------------------------------------------
// the tools

function mastRun(args, useTime) {
  const argv = [process.execPath, MAST, ...args];
  const m = measure(argv, { useTime });
  let report;
  try {
    report = JSON.parse(m.stdout);
  } catch {
    throw new BenchError(`mast printed no JSON report:\n  ${argv.join(" ")}\n${m.stdout.slice(0, 2000)}\n${m.stderr.slice(0, 2000)}`);
  }
  const { problems, ...rest } = report;
  return { wall_ms: m.wallMs, rss_kb: m.rssKb, report: rest, problems: problems ?? [], warnings: m.stderr.trim() };
}

const mastFull = (root, useTime) => {
  const stateDir = tempDir("mast-bench-state-");
  return { ...mastRun(["index", root, "--state-dir", stateDir, "--json"], useTime), state_dir: stateDir };
};

/** Installs the pinned codegraph into bench/.tools/codegraph (once). */
const ensureCodegraph = () => ensureNpmTool(CODEGRAPH, CODEGRAPH_DIR, CODEGRAPH_BIN);

/** One `codegraph build` into a fresh database outside the tree; its engine and file count from its log. */
function codegraphBuild(root, useTime) {
  const db = path.join(tempDir("mast-bench-codegraph-"), "graph.db");
  const m = measure([CODEGRAPH_BIN, "build", root, "--db", db], { useTime });
  const log = `${m.stdout}\n${m.stderr}`;
  return {
    wall_ms: m.wallMs,
    rss_kb: m.rssKb,
    engine: /Using (\w+) engine/.exec(log)?.[1] ?? "unknown",
    files: Number(/Found (\d+) files to parse/.exec(log)?.[1] ?? NaN),
    summary: /completed: ([^\n]*)/.exec(log)?.[1] ?? null,
  };
}

function ctagsArgv(root, tags, hasTsx) {
  // ctags maps only *.ts to TypeScript; map .tsx too so it reads the files mast reads.
  return ["ctags", "-R", "-f", tags, "--languages=TypeScript", ...(hasTsx ? ["--map-TypeScript=+.tsx"] : []), root];
}

function ctagsRun(root, hasTsx, useTime) {
  const tags = path.join(tempDir("mast-bench-ctags-"), "tags");
  const m = measure(ctagsArgv(root, tags, hasTsx), { useTime });
  let n = 0;
  for (const line of fs.readFileSync(tags, "utf8").split("\n")) if (line && !line.startsWith("!_")) n++;
  return { wall_ms: m.wallMs, rss_kb: m.rssKb, tags: n };
}

// ---------------------------------------------------------------------------------------------
// the large tree

/** The git directory that holds the pinned theia commit, or null. */
function largeGitDir() {
  const candidates = [process.env.MAST_BENCH_LARGE_GIT, path.join(REPO, "..", ".mirror", "eclipse-theia+theia", "repo")].filter(Boolean);
  for (const dir of candidates) {
    const r = spawnSync("git", ["--git-dir", dir, "cat-file", "-e", `${LARGE.commit}^{commit}`], { encoding: "utf8" });
    if (r.status === 0) return dir;
  }
  return null;
}

/**
 * bench/.large/theia written from the pinned commit (once; a stamp records it). Every blob the git
 * directory holds is written; blobs a partial mirror lacks are skipped and counted.
 */
function ensureLargeTree() {
  if (fs.existsSync(LARGE_STAMP)) {
    const stamp = JSON.parse(fs.readFileSync(LARGE_STAMP, "utf8"));
    if (stamp.commit === LARGE.commit && fs.existsSync(LARGE_ROOT)) return { ...stamp, written_now: false };
  }
  const gitDir = largeGitDir();
  if (!gitDir) return null;
  process.stderr.write(`writing ${LARGE.repo}@${LARGE.commit.slice(0, 10)} into ${path.relative(REPO, LARGE_ROOT)} ...\n`);
  fs.rmSync(LARGE_ROOT, { recursive: true, force: true });
  const ls = spawnSync("git", ["--git-dir", gitDir, "ls-tree", "-r", "-z", LARGE.commit], { encoding: "buffer", maxBuffer: 1 << 30 });
  if (ls.status !== 0) throw new BenchError(`git ls-tree ${LARGE.commit} failed in ${gitDir}`);
  const entries = ls.stdout
    .toString("utf8")
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const [meta, file] = line.split("\t");
      const [mode, type, sha] = meta.split(" ");
      return { mode, type, sha, file };
    })
    .filter((e) => e.type === "blob" && e.mode !== "120000"); // no symlinks
  const batch = spawnSync("git", ["--git-dir", gitDir, "cat-file", "--batch"], { input: entries.map((e) => e.sha).join("\n") + "\n", maxBuffer: 1 << 30 });
  if (batch.status !== 0) throw new BenchError(`git cat-file --batch failed in ${gitDir}`);
  const out = batch.stdout;
  let at = 0;
  let written = 0;
  let bytes = 0;
  const missing = [];
  for (const e of entries) {
    const nl = out.indexOf(10, at);
    const header = out.subarray(at, nl).toString("utf8");
    at = nl + 1;
    if (header.endsWith(" missing")) {
      missing.push(e.file);
      continue;
    }
    const size = Number(header.split(" ")[2]);
    const abs = path.join(LARGE_ROOT, e.file);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, out.subarray(at, at + size));
    at += size + 1;
    written++;
    bytes += size;
  }
  const stamp = { repo: LARGE.repo, commit: LARGE.commit, files: written, bytes, missing_blobs: missing };
  fs.writeFileSync(LARGE_STAMP, `${JSON.stringify(stamp, null, 2)}\n`);
  return { ...stamp, written_now: true };
}

// ---------------------------------------------------------------------------------------------
// one tree

function restore(t) {
  fs.writeFileSync(t.abs, t.original);
  fs.utimesSync(t.abs, t.atime, t.mtime);
}

/** Applies `edit` (n) to the tree's edit target, runs `fn`, restores the file's bytes and times. */
async function withEdit(tree, n, edit, fn) {
  const abs = path.join(tree.root, tree.edit_target.path);
  const original = fs.readFileSync(abs);
  const st = fs.statSync(abs);
  const saved = { abs, original, atime: st.atime, mtime: st.mtime };
  try {
    fs.writeFileSync(abs, Buffer.concat([original, Buffer.from(edit(n))]));
    return await fn();
  } finally {
    restore(saved);
  }
}

const commentEdit = (n) => `${EDIT_MARK}${n} ${Date.now()}\n`;
const probeName = (n) => `mastBenchProbe${n}`;
const probeEdit = (n) => `${EDIT_MARK}${n}\nexport function ${probeName(n)}(): number { return ${n}; }\n`;

async function benchTree(tree, rounds, useTime, codegraph) {
  const withCodegraph = codegraph.version !== undefined;
  process.stderr.write(`[${tree.name}] warm-up ...\n`);
  mastFull(tree.root, false);
  if (withCodegraph) codegraphBuild(tree.root, false);
  ctagsRun(tree.root, tree.has_tsx, false);

  const mast = [];
  const cg = [];
  const ctags = [];
  for (let i = 0; i < rounds; i++) {
    process.stderr.write(`[${tree.name}] round ${i + 1}/${rounds}: mast, codegraph, ctags ...\n`);
    // The order rotates each round, so no tool always runs right after another one's page-cache churn.
    const steps = [() => mast.push(mastFull(tree.root, useTime)), () => withCodegraph && cg.push(codegraphBuild(tree.root, useTime)), () => ctags.push(ctagsRun(tree.root, tree.has_tsx, useTime))];
    for (let k = 0; k < steps.length; k++) steps[(k + i) % steps.length]();
  }

  const stateDir = mast.at(-1).state_dir;
  const incrementalArgs = ["index", tree.root, "--state-dir", stateDir, "--incremental", "--json"];
  process.stderr.write(`[${tree.name}] no-change incremental, status, one-file change x${INCREMENTAL_RUNS} ...\n`);
  mastRun(incrementalArgs, false); // the first run after a build re-stamps files written within the racy window
  const nochange = [];
  for (let i = 0; i < INCREMENTAL_RUNS; i++) nochange.push(mastRun(incrementalArgs, useTime));
  const status = [];
  for (let i = 0; i < INCREMENTAL_RUNS; i++) status.push(mastRun(["status", tree.root, "--state-dir", stateDir, "--json"], false));
  // A read through the CLI: the tool registry loads, the named file is checked just in time, the answer printed.
  const queryArgs = ["query", "mast_exports", JSON.stringify({ file_path: tree.edit_target.path }), tree.root, "--state-dir", stateDir, "--json"];
  const query = [];
  for (let i = 0; i < INCREMENTAL_RUNS; i++) query.push(mastRun(queryArgs, false));
  const onefile = [];
  for (let i = 0; i < INCREMENTAL_RUNS; i++) {
    onefile.push(await withEdit(tree, i + 1, commentEdit, () => mastRun(incrementalArgs, useTime)));
    mastRun(incrementalArgs, false); // back to the pristine file, not measured
  }

  // A running server: the tools in this process, warm. After an edit, the first read naming the
  // file refreshes it just in time; the answer must show the new declaration.
  process.stderr.write(`[${tree.name}] one-file change queried in a running server (in process) x${INCREMENTAL_RUNS} ...\n`);
  const { ctx, callTool } = await openTools(stateDir, tree.root);
  const server = [];
  try {
    const args = { file_path: tree.edit_target.path };
    await callTool(ctx, "mast_exports", args); // warm-up
    for (let i = 0; i < INCREMENTAL_RUNS; i++) {
      const n = 1000 + i;
      await withEdit(tree, n, probeEdit, async () => {
        const t0 = performance.now();
        const answer = await callTool(ctx, "mast_exports", args);
        const ms = performance.now() - t0;
        server.push({ ms, saw_edit: JSON.stringify(answer).includes(probeName(n)) });
      });
      await callTool(ctx, "mast_exports", args); // back to the pristine file, not measured
    }
  } finally {
    ctx.close?.();
  }
  return { mast, codegraph: cg, ctags, nochange, status, query, onefile, server };
}

function summarizeTree(tree, runs) {
  const walls = (xs) => series(xs.map((r) => r.wall_ms));
  const rss = (xs) => {
    const v = xs.map((r) => r.rss_kb).filter((x) => x !== null);
    return v.length ? Math.max(...v) / 1024 : null;
  };
  const mastFullWall = walls(runs.mast);
  const phases = {};
  for (const key of Object.keys(runs.mast[0].report.phases_ms ?? {})) phases[key] = median(runs.mast.map((r) => r.report.phases_ms[key]));
  const cgWall = runs.codegraph.length ? walls(runs.codegraph) : null;
  const ctWall = walls(runs.ctags);
  const last = runs.mast.at(-1).report;
  return {
    tree: {
      name: tree.name,
      root: path.relative(REPO, tree.root),
      files_indexed: last.files_indexed,
      bytes_parsed: last.bytes_parsed,
      chunk_count: last.chunk_count,
      symbol_count: last.symbol_count,
      threads: last.threads,
    },
    mast: { wall_ms: mastFullWall, duration_ms: series(runs.mast.map((r) => r.report.duration_ms)), peak_rss_mb: rss(runs.mast), phases_ms_median: phases },
    codegraph: cgWall && { wall_ms: cgWall, peak_rss_mb: rss(runs.codegraph), engine: runs.codegraph[0].engine, files: runs.codegraph[0].files, summary: runs.codegraph[0].summary },
    ctags: { wall_ms: ctWall, peak_rss_mb: rss(runs.ctags), tags: runs.ctags[0].tags, command: ctagsArgv(tree.root, "<tmp>/tags", tree.has_tsx).join(" ") },
    ratio_vs_codegraph: cgWall ? mastFullWall.median / cgWall.median : null,
    ratio_vs_ctags: mastFullWall.median / ctWall.median,
    nochange: { duration_ms: series(runs.nochange.map((r) => r.report.duration_ms)), wall_ms: walls(runs.nochange), reindexed: [...new Set(runs.nochange.map((r) => r.report.files_indexed))] },
    status: { wall_ms: walls(runs.status), stale: [...new Set(runs.status.map((r) => r.report.stale_files))] },
    query: { wall_ms: walls(runs.query), exports: [...new Set(runs.query.map((r) => r.report.exports?.length ?? 0))] },
    onefile: {
      duration_ms: series(runs.onefile.map((r) => r.report.duration_ms)),
      wall_ms: walls(runs.onefile),
      reindexed: [...new Set(runs.onefile.map((r) => r.report.files_indexed))],
      file: tree.edit_target,
    },
    server_onefile: { ms: series(runs.server.map((r) => r.ms)), saw_edit: runs.server.every((r) => r.saw_edit) },
  };
}

// ---------------------------------------------------------------------------------------------
// main

function main() {
  return mainAsync();
}

async function mainAsync() {
  if (!fs.existsSync(MAST)) {
    process.stderr.write(`bench: ${path.relative(REPO, MAST)} is missing: run \`npm run build\` first\n`);
    return 2;
  }
  const missing = [];
  const ctagsVersion = have("ctags", ["--version"]);
  if (!ctagsVersion || !/Universal Ctags/.test(ctagsVersion)) throw new BenchError("universal-ctags is missing (apt-get install universal-ctags)");
  const useTime = fs.existsSync(TIME);
  if (!useTime) missing.push(`${TIME} for peak RSS (apt-get install time)`);
  const codegraph = ensureCodegraph();
  if (codegraph.error) missing.push(`codegraph: ${codegraph.error}`);

  const distAtStart = distStamp();
  const env = { ...machineFacts(), mast_dist_built: new Date(distAtStart).toISOString(), loadavg_1m_at_start: Number(os.loadavg()[0].toFixed(2)) };
  const fetched = ensureCorpus();
  repairInterruptedEdit();
  const corpus = { name: "corpus", ...describeCorpus() };
  const large = ensureLargeTree();
  if (large) repairInterruptedEdit(LARGE_ROOT);
  else missing.push(`the large tree: no git directory holds ${LARGE.repo}@${LARGE.commit.slice(0, 10)} (fetch github:${LARGE.repo}, or clone it and set MAST_BENCH_LARGE_GIT to its .git)`);

  const trees = [corpus, ...(large ? [{ name: "large", ...describeCorpus(LARGE_ROOT), stamp: large }] : [])];
  const results = {};
  try {
    for (const tree of trees) results[tree.name] = summarizeTree(tree, await benchTree(tree, ROUNDS[tree.name], useTime, codegraph));
  } finally {
    for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
  }
  env.loadavg_1m_at_end = Number(os.loadavg()[0].toFixed(2));

  const targets = [];
  for (const [name, r] of Object.entries(results)) {
    const t = (label, target, value, unit, pass) => targets.push({ tree: name, name: label, target, value, unit, pass });
    t(
      "mast / codegraph full build (median wall)",
      `<= ${TARGETS.ratio_vs_codegraph}x`,
      r.ratio_vs_codegraph,
      "x",
      r.ratio_vs_codegraph === null ? null : r.ratio_vs_codegraph <= TARGETS.ratio_vs_codegraph,
    );
    t("mast / ctags full build (median wall)", `<= ${TARGETS.ratio_vs_ctags}x`, r.ratio_vs_ctags, "x", r.ratio_vs_ctags <= TARGETS.ratio_vs_ctags);
    if (name === "large") t("peak RSS (full build)", `<= ${TARGETS.peak_rss_mb} MB`, r.mast.peak_rss_mb, "MB", r.mast.peak_rss_mb === null ? null : r.mast.peak_rss_mb <= TARGETS.peak_rss_mb);
    t("no-change incremental (in process, median)", `<= ${TARGETS.nochange_ms} ms`, r.nochange.duration_ms.median, "ms", r.nochange.duration_ms.median <= TARGETS.nochange_ms);
    t("one-file change, CLI (wall, median)", `<= ${TARGETS.onefile_cli_ms} ms`, r.onefile.wall_ms.median, "ms", r.onefile.wall_ms.median <= TARGETS.onefile_cli_ms);
    t(
      "one-file change, running server (median)",
      `<= ${TARGETS.onefile_server_ms} ms`,
      r.server_onefile.ms.median,
      "ms",
      r.server_onefile.saw_edit && r.server_onefile.ms.median <= TARGETS.onefile_server_ms,
    );
    if (name === "large") t("mast status (wall, median)", `<= ${TARGETS.status_ms} ms`, r.status.wall_ms.median, "ms", r.status.wall_ms.median <= TARGETS.status_ms);
    if (name === "large") t("mast query mast_exports (wall, median)", `<= ${TARGETS.query_ms} ms`, r.query.wall_ms.median, "ms", r.query.wall_ms.median <= TARGETS.query_ms);
  }

  const notes = [];
  for (const [name, r] of Object.entries(results)) {
    if (!r.nochange.reindexed.every((n) => n === 0)) notes.push(`[${name}] a no-change incremental run reindexed files: ${r.nochange.reindexed.join("/")}`);
    if (!r.onefile.reindexed.every((n) => n === 1)) notes.push(`[${name}] a one-file-change run reindexed ${r.onefile.reindexed.join("/")} files`);
    if (!r.server_onefile.saw_edit) notes.push(`[${name}] the running server's answer after an edit did not show it`);
    if (!r.query.exports.every((n) => n > 0)) notes.push(`[${name}] mast query mast_exports answered no exports for ${r.onefile.file.path}`);
    if (!r.status.stale.every((n) => n === 0)) notes.push(`[${name}] mast status counted stale files on an up-to-date index: ${r.status.stale.join("/")}`);
    if (r.codegraph && r.codegraph.engine !== "native") notes.push(`[${name}] codegraph ran its ${r.codegraph.engine} engine, not the native one`);
  }
  if (large?.missing_blobs?.length) notes.push(`the large tree lacks ${large.missing_blobs.length} blob(s) the git directory does not hold (${large.missing_blobs.slice(0, 3).join(", ")}): skipped`);
  if (distStamp() !== distAtStart) notes.push("dist/ changed while the bench ran (someone rebuilt mast): the figures may mix two builds, run again");
  if (env.loadavg_1m_at_start > env.nproc / 2) notes.push(`1-minute load average was ${env.loadavg_1m_at_start} at start on ${env.nproc} CPUs: other work was running, timings are noisy`);

  // ----- print
  const L = [];
  L.push(`mast index-speed bench — ${env.date}`);
  L.push(
    `machine: nproc ${env.nproc}, ${env.cpu}, ${env.total_mem_gb} GiB, ${env.platform}, node ${env.node}, mast ${env.mast_commit ?? "?"} (dist built ${env.mast_dist_built}), load avg ${env.loadavg_1m_at_start} -> ${env.loadavg_1m_at_end}`,
  );
  L.push(`peers: ${codegraph.version ? `${CODEGRAPH.name}@${CODEGRAPH.version}` : "codegraph not run"}; ${ctagsVersion.split("\n")[0]}`);
  L.push(`corpus: ${path.relative(REPO, CORPUS)}/ (${fetched.downloaded ? "downloaded now" : "cached, stamp matches"}) — ${PACKAGES.length} pinned npm packages, src/ TypeScript only`);
  if (large)
    L.push(
      `large: ${path.relative(REPO, LARGE_ROOT)}/ — ${LARGE.repo}@${LARGE.commit.slice(0, 10)}, ${large.files} files, ${fmt(mb(large.bytes), 1)} MB (${large.written_now ? "written now" : "cached, stamp matches"})`,
    );
  for (const [name, r] of Object.entries(results)) {
    L.push("");
    L.push(`[${name}] ${r.tree.files_indexed} files, ${fmt(mb(r.tree.bytes_parsed))} MB parsed, ${r.tree.chunk_count} chunks, ${r.tree.symbol_count} symbols, ${r.tree.threads} parse threads`);
    L.push(`  full build, ${ROUNDS[name]} interleaved rounds    ${lpad("median s", 9)}${lpad("best s", 8)}${lpad("peak RSS MB", 13)}  mast is`);
    const row = (label, w, rssMb, rel) => L.push(`  ${pad(label, 34)}${lpad(fmt(w.median / 1000), 9)}${lpad(fmt(w.best / 1000), 8)}${lpad(fmt(rssMb, 0), 13)}  ${rel}`);
    row("mast index", r.mast.wall_ms, r.mast.peak_rss_mb, "");
    if (r.codegraph) row(`codegraph build (${r.codegraph.engine}, ${r.codegraph.files} files)`, r.codegraph.wall_ms, r.codegraph.peak_rss_mb, `${fmt(r.ratio_vs_codegraph)}x its time`);
    row(`ctags -R (${r.ctags.tags} tags)`, r.ctags.wall_ms, r.ctags.peak_rss_mb, `${fmt(r.ratio_vs_ctags, 1)}x its time`);
    const p = Object.fromEntries(Object.entries(r.mast.phases_ms_median).map(([k, v]) => [k, Math.round(v)]));
    L.push(
      `  mast phases, median ms — main thread: walk ${p.walk}, work set ${p.work_set}, waiting on parse ${p.parse_wait}, write ${p.write}, search index ${p.search_index}, indexes ${p.indexes ?? 0}, link ${p.link}, commit ${p.commit}, manifest ${p.manifest}, checkpoint ${p.checkpoint}`,
    );
    L.push(`                           parse threads (summed): read+hash ${p.read}, parse ${p.parse}, extract ${p.extract}`);
    L.push(
      `  no-change incremental: ${r.nochange.duration_ms.median} ms in process (wall ${fmt(r.nochange.wall_ms.median, 0)} ms); mast status: wall ${fmt(r.status.wall_ms.median, 0)} ms; mast query mast_exports: wall ${fmt(r.query.wall_ms.median, 0)} ms`,
    );
    L.push(
      `  one-file change (${r.onefile.file.path}): CLI wall ${fmt(r.onefile.wall_ms.median, 0)} ms (${r.onefile.duration_ms.median} ms in process); running server, edit to answer: ${fmt(r.server_onefile.ms.median, 1)} ms`,
    );
  }
  L.push("");
  L.push("targets (medians)");
  for (const t of targets) {
    const value = t.value === null ? "n/a" : t.unit === "ms" ? `${fmt(t.value, 0)} ms` : t.unit === "x" ? `${fmt(t.value, 2)}x` : `${fmt(t.value, 0)} MB`;
    L.push(`  ${verdict(t.pass)}  [${t.tree}] ${pad(t.name, 44)}${pad(t.target, 11)}${lpad(value, 9)}`);
  }
  if (missing.length) L.push("", `could not run: ${missing.join("; ")}`);

  publish(L, notes, OUT_JSON, {
    environment: env,
    peers: { codegraph: codegraph.version ? CODEGRAPH : null, ctags: ctagsVersion.split("\n")[0] },
    corpus: { root: path.relative(REPO, CORPUS), format: CORPUS_FORMAT, pinned: PACKAGES, files: corpus.files, bytes: corpus.bytes },
    large: large ? { ...LARGE, root: path.relative(REPO, LARGE_ROOT), files: large.files, bytes: large.bytes, missing_blobs: large.missing_blobs } : null,
    results,
    targets,
    notes,
    could_not_run: missing,
  });
  return missing.length ? 1 : 0;
}

await runBench(main);
