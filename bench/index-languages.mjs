#!/usr/bin/env node
// Index speed beyond TypeScript: a full `mast index` of one real project per language (the pinned
// Debian-packaged corpora of bench/corpus.mjs LANGUAGE_CORPORA: gin for Go, click for Python,
// regex-syntax for Rust, java.util from the JDK's sources, zlib's examples for C, fmt's headers for
// C++, rack for Ruby, symfony/console for PHP — no Debian package ships C# sources), next to
// `ctags -R` on the same tree in the same run.
//
//   npm run build && npm run bench:index-lang
//
// Per language: one unmeasured warm-up, then FULL_RUNS full index runs into fresh temp state dirs
// (wall median, peak RSS under /usr/bin/time, chunks and symbols per file from the JSON report)
// and CTAGS_RUNS `ctags -R --languages=<Lang>` runs. A report, not a test: exits 0 whether the
// targets PASS or MISS; non-zero only when something could not run. Figures go to
// bench/.out/index-languages.json.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  BenchError,
  LANGUAGE_CORPORA,
  MAST,
  OUT_DIR,
  TIME,
  copyLanguageCorpus,
  distStamp,
  fmt,
  have,
  lpad,
  machineFacts,
  measure,
  median,
  missingBuild,
  pad,
  publish,
  runBench,
  verdict,
} from "./corpus.mjs";

const FULL_RUNS = 3;
const CTAGS_RUNS = 3;
/** Per language: full index wall within this many times ctags', peak RSS under this many MB. */
const TARGETS = { ratio_vs_ctags: 4, peak_rss_mb: 400 };

function mastFull(root, useTime) {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-state-"));
  try {
    const m = measure([process.execPath, MAST, "index", root, "--state-dir", state, "--json"], { useTime });
    return { wall_ms: m.wallMs, rss_kb: m.rssKb, report: JSON.parse(m.stdout) };
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
}

function ctags(root, language, useTime) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-ctags-"));
  try {
    const tags = path.join(dir, "tags");
    const m = measure(["ctags", "-R", "-f", tags, `--languages=${language}`, root], { useTime });
    const count = fs
      .readFileSync(tags, "utf8")
      .split("\n")
      .filter((l) => l && !l.startsWith("!_")).length;
    return { wall_ms: m.wallMs, rss_kb: m.rssKb, tags: count };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const missing = missingBuild();
  if (missing) throw new BenchError(`${missing} is missing: run \`npm run build\` first`);
  if (!/Universal Ctags/.test(have("ctags", ["--version"]) ?? "")) throw new BenchError("universal-ctags is missing: apt-get install -y universal-ctags");
  const useTime = fs.existsSync(TIME);
  const env = machineFacts();
  const distAtStart = distStamp();
  const results = [];
  for (const [language, corpus] of Object.entries(LANGUAGE_CORPORA)) {
    const { tmp, root } = copyLanguageCorpus(language);
    try {
      process.stderr.write(`${language}: ${corpus.name} ${corpus.version}, mast x${FULL_RUNS} and ctags x${CTAGS_RUNS} ...\n`);
      mastFull(root, false);
      const runs = Array.from({ length: FULL_RUNS }, () => mastFull(root, useTime));
      ctags(root, corpus.ctags, false);
      const tagRuns = Array.from({ length: CTAGS_RUNS }, () => ctags(root, corpus.ctags, useTime));
      const report = runs.at(-1).report;
      const files = report.files_indexed;
      const wall = median(runs.map((r) => r.wall_ms));
      const ctagsWall = median(tagRuns.map((r) => r.wall_ms));
      const rss = useTime ? Math.max(...runs.map((r) => r.rss_kb)) / 1024 : null;
      results.push({
        language,
        corpus: `${corpus.name} ${corpus.version}`,
        install: corpus.install,
        files,
        bytes: report.bytes_parsed,
        chunks_per_file: report.chunk_count / files,
        symbols_per_file: report.symbol_count / files,
        parse_errors: report.parse_errors ?? null,
        mast_wall_ms: wall,
        mast_walls_ms: runs.map((r) => r.wall_ms),
        mast_duration_ms: median(runs.map((r) => r.report.duration_ms)),
        mast_peak_rss_mb: rss,
        ctags_wall_ms: ctagsWall,
        ctags_peak_rss_mb: useTime ? Math.max(...tagRuns.map((r) => r.rss_kb)) / 1024 : null,
        ctags_tags: tagRuns.at(-1).tags,
        ratio: wall / ctagsWall,
      });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  const L = [];
  L.push(`mast index-languages bench — ${env.date}, mast ${env.mast_commit ?? "?"}, nproc ${env.nproc}, node ${env.node}`);
  L.push("");
  L.push(
    `  ${pad("language", 9)}${pad("corpus", 24)}${lpad("files", 6)}${lpad("MB", 6)}${lpad("chunks/f", 10)}${lpad("syms/f", 8)}${lpad("mast s", 8)}${lpad("(run s)", 9)}${lpad("RSS MB", 8)}${lpad("ctags s", 9)}${lpad("ratio", 7)}`,
  );
  for (const r of results) {
    L.push(
      `  ${pad(r.language, 9)}${pad(r.corpus, 24)}${lpad(r.files, 6)}${lpad(fmt(r.bytes / 1e6, 2), 6)}${lpad(fmt(r.chunks_per_file, 1), 10)}${lpad(fmt(r.symbols_per_file, 1), 8)}${lpad(fmt(r.mast_wall_ms / 1000, 2), 8)}${lpad(fmt(r.mast_duration_ms / 1000, 2), 9)}${lpad(fmt(r.mast_peak_rss_mb, 0), 8)}${lpad(fmt(r.ctags_wall_ms / 1000, 3), 9)}${lpad(`${fmt(r.ratio, 1)}x`, 7)}`,
    );
  }
  L.push("  (mast s: the whole process, Node startup and worker threads included; run s: the index run's own duration_ms;");
  L.push("   ctags is one native process — on trees this small the ratio measures mostly mast's startup; the index-speed issue owns the ratio)");
  L.push("");
  L.push("targets");
  const targets = results.flatMap((r) => [
    { name: `${r.language}: mast / ctags wall (median)`, target: `<= ${TARGETS.ratio_vs_ctags}x`, value: r.ratio, pass: r.ratio <= TARGETS.ratio_vs_ctags },
    { name: `${r.language}: peak RSS`, target: `<= ${TARGETS.peak_rss_mb} MB`, value: r.mast_peak_rss_mb, pass: r.mast_peak_rss_mb === null ? null : r.mast_peak_rss_mb <= TARGETS.peak_rss_mb },
  ]);
  for (const t of targets) L.push(`  ${verdict(t.pass)}  ${pad(t.name, 36)}${pad(t.target, 12)}${lpad(t.value === null ? "n/a" : fmt(t.value, 1), 8)}`);
  const notes = [];
  if (!useTime) notes.push(`${TIME} is missing (apt-get install time): no peak RSS`);
  if (distStamp() !== distAtStart) notes.push("dist/ changed while the bench ran: run again");
  publish(L, notes, path.join(OUT_DIR, "index-languages.json"), { environment: env, settings: { full_runs: FULL_RUNS, ctags_runs: CTAGS_RUNS }, results, targets });
  return 0;
}

await runBench(main);
