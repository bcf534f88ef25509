#!/usr/bin/env node
// Index-speed bench: how fast `mast index` builds and refreshes the index of ~1,000 real
// TypeScript files (~4.5 MB), next to universal-ctags on the same tree in the same run.
//
//   npm run build && npm run bench:index
//
// The corpus is the TypeScript source that eleven npm packages ship in their tarballs, fetched
// with `npm pack <name>@<exact version>` into bench/.corpus/ (gitignored) and checked against the
// integrity hashes pinned in bench/corpus.mjs (shared with bench/query-latency.mjs). Only
// src/**/*.{ts,tsx,mts,cts} (minus .d.ts and *.test/*.spec files) plus each package's
// package.json and LICENSE are kept; compiled output (.js, .d.ts, dist/, build/), READMEs and
// source maps are deleted, so mast and ctags read exactly the same files. The download is skipped
// when bench/.corpus/.stamp.json matches the pinned list.
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
  have,
  machineFacts,
  publish,
  repairInterruptedEdit,
  runBench,
} from "./corpus.mjs";

const OUT_DIR = path.join(BENCH_DIR, ".out");
const OUT_JSON = path.join(OUT_DIR, "index-speed.json");
const MAST = path.join(REPO, "dist", "cli", "mast.js");

const FULL_RUNS = 3;
const INCREMENTAL_RUNS = 5;
const CTAGS_RUNS = 3;

const TARGETS = {
  full_wall_s: 3,
  ratio_vs_ctags: 4,
  peak_rss_mb: 400,
  nochange_ms: 300,
  onefile_ms: 100,
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

// ---------------------------------------------------------------------------------------------
// measuring

/** `measure` (bench/corpus.mjs), failing the step when Ctrl-C arrived while it ran. */
function measure(argv, opts) {
  const m = measureRun(argv, opts);
  if (interrupted) throw new BenchError("interrupted");
  return m;
}

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

const newStateDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-state-"));

function summarize(runs) {
  const walls = runs.map((r) => r.wall_ms);
  const durations = runs.map((r) => r.report.duration_ms);
  const rss = runs.map((r) => r.rss_kb).filter((x) => x !== null);
  return {
    runs: runs.length,
    wall_ms: { best: best(walls), median: median(walls), all: walls },
    duration_ms: { best: best(durations), median: median(durations), all: durations },
    peak_rss_kb: rss.length ? Math.max(...rss) : null,
  };
}

function benchMast(corpus, useTime) {
  const stateDirs = [];
  const cleanup = () => stateDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
  let target = null;
  try {
    // Warm-up (page cache, V8 code cache, native addons), not counted.
    const warm = newStateDir();
    stateDirs.push(warm);
    mastRun(["index", corpus.root, "--state-dir", warm, "--json"], false);

    const full = [];
    for (let i = 0; i < FULL_RUNS; i++) {
      const dir = newStateDir();
      stateDirs.push(dir);
      process.stderr.write(`mast full index ${i + 1}/${FULL_RUNS} ...\n`);
      full.push({ ...mastRun(["index", corpus.root, "--state-dir", dir, "--json"], useTime), state_dir: dir });
    }
    const stateDir = full.at(-1).state_dir;
    const incrementalArgs = ["index", corpus.root, "--state-dir", stateDir, "--incremental", "--json"];

    process.stderr.write(`mast no-change incremental x${INCREMENTAL_RUNS} ...\n`);
    const nochange = [];
    for (let i = 0; i < INCREMENTAL_RUNS; i++) nochange.push(mastRun(incrementalArgs, useTime));

    process.stderr.write(`mast one-file change x${INCREMENTAL_RUNS} (${corpus.edit_target.path}) ...\n`);
    const abs = path.join(corpus.root, corpus.edit_target.path);
    const original = fs.readFileSync(abs);
    const originalStat = fs.statSync(abs);
    target = { abs, original, atime: originalStat.atime, mtime: originalStat.mtime };
    const onefile = [];
    for (let i = 0; i < INCREMENTAL_RUNS; i++) {
      fs.appendFileSync(abs, `${EDIT_MARK}${i + 1} ${Date.now()}\n`);
      const now = new Date();
      fs.utimesSync(abs, now, now);
      onefile.push(mastRun(incrementalArgs, useTime));
      restore(target);
      mastRun(incrementalArgs, false); // bring the index back to the pristine file, not measured
    }
    target = null;
    return { full, nochange, onefile };
  } finally {
    if (target) restore(target);
    cleanup();
  }
}

function restore(t) {
  fs.writeFileSync(t.abs, t.original);
  fs.utimesSync(t.abs, t.atime, t.mtime);
}

function ctagsTagCount(tagsFile) {
  let n = 0;
  for (const line of fs.readFileSync(tagsFile, "utf8").split("\n")) if (line && !line.startsWith("!_")) n++;
  return n;
}

function benchCtags(corpus, languages, useTime) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-ctags-"));
  try {
    const tags = path.join(dir, "tags");
    // ctags maps only *.ts to TypeScript; map .tsx too so it reads the same files mast does.
    const argv = ["ctags", "-R", "-f", tags, `--languages=${languages}`, ...(corpus.has_tsx ? ["--map-TypeScript=+.tsx"] : []), corpus.root];
    measure(argv, { useTime: false }); // warm-up
    const runs = [];
    for (let i = 0; i < CTAGS_RUNS; i++) {
      fs.rmSync(tags, { force: true });
      const m = measure(argv, { useTime });
      runs.push({ wall_ms: m.wallMs, rss_kb: m.rssKb });
    }
    const walls = runs.map((r) => r.wall_ms);
    const rss = runs.map((r) => r.rss_kb).filter((x) => x !== null);
    return {
      command: argv.join(" ").replace(tags, "<tmp>/tags"),
      languages,
      runs: runs.length,
      wall_ms: { best: best(walls), median: median(walls), all: walls },
      peak_rss_kb: rss.length ? Math.max(...rss) : null,
      tags: ctagsTagCount(tags),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// main

function environment(distAtStart) {
  return { ...machineFacts(), mast_dist_built: new Date(distAtStart).toISOString(), loadavg_1m_at_start: Number(os.loadavg()[0].toFixed(2)) };
}

function main() {
  if (!fs.existsSync(MAST)) {
    process.stderr.write(`bench: ${path.relative(REPO, MAST)} is missing: run \`npm run build\` first\n`);
    return 2;
  }
  const missing = [];
  const ctagsVersion = have("ctags", ["--version"]);
  if (!ctagsVersion || !/Universal Ctags/.test(ctagsVersion)) missing.push("universal-ctags (apt-get install universal-ctags)");
  const useTime = fs.existsSync(TIME);
  if (!useTime) missing.push(`${TIME} for peak RSS (apt-get install time)`);

  const distAtStart = distStamp();
  const env = environment(distAtStart);
  const fetched = ensureCorpus();
  repairInterruptedEdit();
  const corpus = describeCorpus();
  if (corpus.files === 0) throw new BenchError(`the corpus in ${CORPUS} holds no indexable file`);

  const mast = benchMast(corpus, useTime);
  const ctags = [];
  if (ctagsVersion && /Universal Ctags/.test(ctagsVersion)) {
    process.stderr.write(`ctags x${CTAGS_RUNS} ...\n`);
    ctags.push(benchCtags(corpus, "TypeScript", useTime));
    if (corpus.has_js) ctags.push(benchCtags(corpus, "TypeScript,JavaScript", useTime));
  }

  env.loadavg_1m_at_end = Number(os.loadavg()[0].toFixed(2));
  const distRebuilt = distStamp() !== distAtStart;
  const full = summarize(mast.full);
  const nochange = summarize(mast.nochange);
  const onefile = summarize(mast.onefile);
  const last = mast.full.at(-1).report;
  const ct = ctags[0] ?? null;
  const corpusMb = mb(corpus.bytes);
  const peakRssMb = full.peak_rss_kb === null ? null : full.peak_rss_kb / 1024;
  const ratio = ct ? { median: full.wall_ms.median / ct.wall_ms.median, best: full.wall_ms.best / ct.wall_ms.best } : null;

  const targets = [
    { name: "full index wall (median)", target: `<= ${TARGETS.full_wall_s} s`, value: full.wall_ms.median / 1000, unit: "s", pass: full.wall_ms.median / 1000 <= TARGETS.full_wall_s },
    { name: "mast / ctags wall (median)", target: `<= ${TARGETS.ratio_vs_ctags}x`, value: ratio?.median ?? null, unit: "x", pass: ratio ? ratio.median <= TARGETS.ratio_vs_ctags : null },
    { name: "peak RSS (full index)", target: `<= ${TARGETS.peak_rss_mb} MB`, value: peakRssMb, unit: "MB", pass: peakRssMb === null ? null : peakRssMb <= TARGETS.peak_rss_mb },
    { name: "no-change incremental (duration_ms, median)", target: `<= ${TARGETS.nochange_ms} ms`, value: nochange.duration_ms.median, unit: "ms", wall_ms: nochange.wall_ms.median, pass: nochange.duration_ms.median <= TARGETS.nochange_ms },
    { name: "one-file change (duration_ms, median)", target: `<= ${TARGETS.onefile_ms} ms`, value: onefile.duration_ms.median, unit: "ms", wall_ms: onefile.wall_ms.median, pass: onefile.duration_ms.median <= TARGETS.onefile_ms },
  ];

  // Sanity checks on what mast reported: printed as notes, never fatal.
  const notes = [];
  if (last.files_indexed !== corpus.files) notes.push(`mast indexed ${last.files_indexed} files, the corpus walk counted ${corpus.files}`);
  for (const r of mast.nochange) if (r.report.files_indexed !== 0) notes.push(`a no-change incremental run reindexed ${r.report.files_indexed} files`);
  for (const r of mast.onefile) if (r.report.files_indexed !== 1) notes.push(`a one-file-change incremental run reindexed ${r.report.files_indexed} files`);
  if (last.parse_errors || last.read_errors || last.write_errors) notes.push(`mast reported parse_errors=${last.parse_errors} read_errors=${last.read_errors} write_errors=${last.write_errors}`);
  if (last.files_with_syntax_errors) notes.push(`${last.files_with_syntax_errors} files parsed with tree-sitter syntax errors (indexed anyway)`);
  const counts = new Set(mast.full.map((r) => `${r.report.chunk_count}/${r.report.symbol_count}`));
  if (counts.size > 1) notes.push(`full runs disagree on chunk/symbol counts: ${[...counts].join(", ")}`);
  if (distRebuilt) notes.push("dist/ changed while the bench ran (someone rebuilt mast): the figures may mix two builds, run again");
  // The end figure includes the bench's own load; only the start one says the machine was busy.
  if (env.loadavg_1m_at_start > env.nproc / 2) notes.push(`1-minute load average was ${env.loadavg_1m_at_start} at start on ${env.nproc} CPUs: other work was running, timings are noisy`);
  const warned = mast.full.find((r) => r.warnings);
  if (warned) notes.push(`mast warnings on stderr: ${warned.warnings.split("\n").slice(0, 3).join(" | ")}`);

  // ----- print
  const L = [];
  L.push(`mast index-speed bench — ${env.date}`);
  L.push(`machine: nproc ${env.nproc}, ${env.cpu}, ${env.total_mem_gb} GiB, ${env.platform}, node ${env.node}, mast ${env.mast_commit ?? "?"} (dist built ${env.mast_dist_built}), load avg ${env.loadavg_1m_at_start} -> ${env.loadavg_1m_at_end}`);
  L.push("");
  L.push(`corpus: ${path.relative(REPO, CORPUS)}/ (${fetched.downloaded ? "downloaded now" : "cached, stamp matches"}) — ${PACKAGES.length} npm packages, src/ TypeScript only`);
  L.push(`  ${pad("package", 24)}${pad("version", 10)}${lpad("files", 6)}${lpad("KB", 8)}  largest file`);
  for (const p of corpus.packages) {
    const ext = Object.entries(p.by_extension).map(([e, n]) => `${n}${e}`).join(" ");
    L.push(`  ${pad(p.name, 24)}${pad(p.version, 10)}${lpad(p.files, 6)}${lpad((p.bytes / 1000).toFixed(0), 8)}  ${p.largest ? `${p.largest.path.slice(p.name.length + 1)} (${(p.largest.bytes / 1000).toFixed(0)} KB)` : "-"}${ext.includes(".tsx") ? `  [${ext}]` : ""}`);
  }
  L.push(`  ${pad("total", 34)}${lpad(corpus.files, 6)}${lpad((corpus.bytes / 1000).toFixed(0), 8)}  = ${fmt(corpusMb)} MB; ${Object.entries(corpus.by_extension).map(([e, n]) => `${n} ${e}`).join(", ")}`);
  L.push("");
  L.push(`mast full index — ${FULL_RUNS} runs after 1 warm-up, fresh --state-dir each; wall includes Node startup`);
  L.push(`  ${lpad("files", 6)}${lpad("MB", 7)}${lpad("wall best s", 13)}${lpad("median s", 10)}${lpad("MB/s", 7)}${lpad("peak RSS MB", 13)}${lpad("chunks", 8)}${lpad("symbols", 9)}${lpad("threads", 9)}${lpad("duration_ms", 13)}`);
  L.push(
    `  ${lpad(last.files_indexed, 6)}${lpad(fmt(mb(last.bytes_parsed)), 7)}${lpad(fmt(full.wall_ms.best / 1000), 13)}${lpad(fmt(full.wall_ms.median / 1000), 10)}` +
      `${lpad(fmt(mb(last.bytes_parsed) / (full.wall_ms.median / 1000)), 7)}${lpad(fmt(peakRssMb, 0), 13)}${lpad(last.chunk_count, 8)}${lpad(last.symbol_count, 9)}${lpad(last.threads, 9)}${lpad(full.duration_ms.median, 13)}`,
  );
  L.push(`  (MB/s = bytes_parsed / median wall; runs: ${full.wall_ms.all.map((x) => fmt(x / 1000)).join(", ")} s)`);
  L.push("");
  if (ctags.length) {
    L.push(`universal-ctags — ${CTAGS_RUNS} runs after 1 warm-up`);
    for (const c of ctags) {
      L.push(`  ${c.command}`);
      L.push(
        `    wall best ${fmt(c.wall_ms.best / 1000, 3)} s, median ${fmt(c.wall_ms.median / 1000, 3)} s, ${c.tags} tags, peak RSS ${fmt(c.peak_rss_kb === null ? null : c.peak_rss_kb / 1024, 0)} MB` +
          `; mast/ctags ${fmt(full.wall_ms.best / c.wall_ms.best, 1)}x (best), ${fmt(full.wall_ms.median / c.wall_ms.median, 1)}x (median)`,
      );
    }
    if (!corpus.has_js) L.push("  (the corpus has no .js/.jsx/.mjs files, so the TypeScript,JavaScript variant was not run)");
  } else {
    L.push("universal-ctags — not run (missing)");
  }
  L.push("");
  L.push(`mast incremental — ${INCREMENTAL_RUNS} runs each on the state dir of the last full run`);
  L.push(`  ${pad("", 26)}${lpad("duration_ms med", 16)}${lpad("best", 7)}${lpad("wall ms med", 13)}${lpad("best", 7)}${lpad("peak RSS MB", 13)}  reindexed`);
  const incRow = (label, s, runs) =>
    `  ${pad(label, 26)}${lpad(s.duration_ms.median, 16)}${lpad(s.duration_ms.best, 7)}${lpad(fmt(s.wall_ms.median, 0), 13)}${lpad(fmt(s.wall_ms.best, 0), 7)}${lpad(fmt(s.peak_rss_kb === null ? null : s.peak_rss_kb / 1024, 0), 13)}  ${[...new Set(runs.map((r) => r.report.files_indexed))].join("/")} file(s)`;
  L.push(incRow("no change", nochange, mast.nochange));
  L.push(incRow("one file changed", onefile, mast.onefile));
  L.push(`  (changed file: ${corpus.edit_target.path}, ${corpus.edit_target.bytes} B, the median-size corpus file; a comment line appended, restored after each run)`);
  L.push("");
  L.push("targets");
  for (const t of targets) {
    const value = t.value === null ? "n/a" : t.unit === "ms" ? `${t.value} ms` : t.unit === "x" ? `${fmt(t.value, 1)}x` : t.unit === "MB" ? `${fmt(t.value, 0)} MB` : `${fmt(t.value)} s`;
    const extra = t.wall_ms !== undefined ? `   (wall ${fmt(t.wall_ms, 0)} ms incl. Node startup)` : "";
    L.push(`  ${verdict(t.pass)}  ${pad(t.name, 45)}${pad(t.target, 11)}${lpad(value, 9)}${extra}`);
  }
  if (missing.length) {
    L.push("");
    L.push(`could not run: ${missing.join("; ")}`);
  }

  // ----- JSON
  const strip = (runs) => runs.map(({ wall_ms, rss_kb, report }) => ({ wall_ms, rss_kb, report }));
  publish(L, notes, OUT_JSON, {
      environment: env,
      corpus: { ...corpus, root: path.relative(REPO, corpus.root), format: CORPUS_FORMAT, pinned: PACKAGES },
      mast: {
        full: { ...full, files_indexed: last.files_indexed, bytes_parsed: last.bytes_parsed, chunk_count: last.chunk_count, symbol_count: last.symbol_count, threads: last.threads, mb_per_s: mb(last.bytes_parsed) / (full.wall_ms.median / 1000), peak_rss_mb: peakRssMb, runs_detail: strip(mast.full) },
        incremental_nochange: { ...nochange, runs_detail: strip(mast.nochange) },
        incremental_onefile: { ...onefile, file: corpus.edit_target, runs_detail: strip(mast.onefile) },
      },
      ctags,
      ratio_mast_over_ctags: ratio,
      targets,
      notes,
      could_not_run: missing,
  });
  return missing.length ? 1 : 0;
}

await runBench(main);
