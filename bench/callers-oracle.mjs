#!/usr/bin/env node
// Callers accuracy beyond TypeScript: mast_callers judged against a compiler-grade oracle per
// language, on a real project installed from a pinned Debian package, next to a ripgrep baseline
// in the same run.
//
//   npm run build && npm run bench:callers-lang                 (every language)
//   npm run bench:callers-lang -- --language go                 (one)
//   npm run bench:callers-lang -- --language go --corpus cobra  (one project)
//   npm run bench:callers-lang -- --language python --checker   (indexed with the checker pass:
//           each language's analyzer judges the potential matches; figures to
//           bench/.out/callers-oracle.<language>.checker.json, judged on the semantic-pass targets)
//
//   go      gin 1.8.1, cobra 1.6.1, urfave/cli 2.3.0 (Debian's golang-github-*-dev), oracle:
//           go/types through bench/oracles/go-calls/main.go (golang-go)
//   python  click 8.1.3 (Debian's python3-click); flask and httpx, whole repositories with their
//           tests at pinned commits (a local mirror, else cloned); oracle: jedi's goto through
//           bench/oracles/py-calls.py (python3-jedi 0.18.2) ∪ pyright's through scip-python
//           (bench/oracles/py-scip-calls.mjs, the devDependency @sourcegraph/scip-python)
//   rust    regex-syntax 0.6.27, walkdir 2.3.2 (Debian's librust-*-dev), oracle: rustc's MIR
//           with spans and full paths through bench/oracles/rust-calls.mjs (rustc)
//   (bench/corpus.mjs CALLERS_CORPORA; click, gin and regex-syntax are the corpora the resolver
//   was first measured on, the others held out.)
//
// Each project is scored on its own, then the language's targets are judged on the pooled sample
// (macro over every drawn symbol of its projects).
//
// 1. The package's source is copied into a temp project (`<tmp>/<name>/`) and indexed fresh.
// 2. The oracle lists every call site (the called name's line) whose callee is a function or
//    method of the project, with the callee's declaration line.
// 3. Functions and methods are drawn from graph.db with a seeded PRNG until TARGET_WITH_SITES
//    have an oracle call site (the draws without any stay: they can only cost precision).
// 4. mast_callers (in-process, include_potential, potential_limit POTENTIAL_LIMIT) per symbol;
//    ripgrep `rg -n -w 'NAME\s*\('` over the project's files of the language.
// 5. Per-symbol precision and recall (macro), pooled totals (micro), false positives and misses.
//
// A report, not a test: exits 0 whether targets PASS or MISS; non-zero only when something could
// not run (a missing package names its apt-get line). Figures go to
// bench/.out/callers-oracle.<language>.json (the pooled scores and each project's).
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { pathToFileURL } from "node:url";
import { pyScipCalls } from "./oracles/py-scip-calls.mjs";
import { rustCalls } from "./oracles/rust-calls.mjs";
import {
  BenchError,
  CALLERS_CORPORA,
  DIST,
  OUT_DIR,
  copyCorpus,
  REPO,
  benchEnvironment,
  buildNotes,
  distStamp,
  fmt,
  have,
  indexCorpus,
  lpad,
  missingBuild,
  openTools,
  pad,
  prng,
  publish,
  round,
  runBench,
  shuffled,
  verdict,
} from "./corpus.mjs";

const SEED = 0x63616c6c;
const TARGET_WITH_SITES = 200;
const POTENTIAL_LIMIT = 1000;
const LIST_LIMIT = 8;
/** Issue 32's targets, per language, on the pooled sample (verified recall without the semantic pass). */
const TARGETS = {
  python: { verified_precision: 0.99, all_recall: 0.99, verified_recall: 0.8 },
  go: { verified_precision: 0.99, all_recall: 0.99, verified_recall: 0.92 },
  rust: { verified_precision: 0.99, all_recall: 0.99, verified_recall: 0.85 },
};
/** With the semantic pass (`--checker`): verified recall ≥ 0.95 for Python and Go (Rust where rust-analyzer is installed). */
const CHECKER_TARGETS = {
  python: { ...TARGETS.python, verified_recall: 0.95 },
  go: { ...TARGETS.go, verified_recall: 0.95 },
  rust: { ...TARGETS.rust, verified_recall: 0.95 },
};

/** Each language's oracle, over a corpus of bench/corpus.mjs CALLERS_CORPORA copied to `root`. */
const ORACLES = {
  go: {
    tool: "go/types through bench/oracles/go-calls/main.go",
    install: "apt-get install -y golang-go",
    run: (root) => run("go", ["run", path.join(REPO, "bench/oracles/go-calls/main.go"), root], { GO111MODULE: "off", GOPATH: "/usr/share/gocode", GOFLAGS: "" }),
  },
  python: {
    // Either analyzer alone misses real calls the other sees (jedi: an IntEnum's classmethods;
    // pyright: pytest fixtures), so the truth is their union.
    tool: "jedi's goto (bench/oracles/py-calls.py) ∪ pyright through scip-python (bench/oracles/py-scip-calls.mjs)",
    install: "apt-get install -y python3-jedi",
    run: async (root) => {
      const { decodeScip } = await import(pathToFileURL(path.join(DIST, "base", "scip.js")).href);
      const jedi = run("python3", [path.join(REPO, "bench/oracles/py-calls.py"), root], {});
      const pyright = pyScipCalls(root, REPO, decodeScip);
      const seen = new Set();
      return [...jedi, ...pyright].filter((s) => {
        const k = `${s.file}:${s.line}>${s.target_file}:${s.target_line}`;
        return seen.has(k) ? false : (seen.add(k), true);
      });
    },
  },
  rust: {
    // rustc's MIR names each call's callee by its full path; bench/oracles/rust-calls.mjs maps the
    // path to the declaring file and mast's name for the item there.
    tool: "rustc's MIR (spans, full paths) through bench/oracles/rust-calls.mjs",
    install: "apt-get install -y rustc",
    run: (root, graphDb, corpus) => rustCalls(root, corpus, symbolsByFile(graphDb)),
  },
};

/** Every symbol name of graph.db by file. */
function symbolsByFile(graphDb) {
  const db = new Database(graphDb, { readonly: true, fileMustExist: true });
  try {
    const out = new Map();
    for (const r of db.prepare("SELECT f.path AS file, s.name FROM symbols s JOIN files f ON f.id = s.file_id").all()) {
      if (!out.has(r.file)) out.set(r.file, new Set());
      out.get(r.file).add(r.name);
    }
    return out;
  } finally {
    db.close();
  }
}

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, env: { ...process.env, ...env } });
  if (r.error) throw new BenchError(`cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new BenchError(`${cmd} ${args.join(" ")} failed (exit ${r.status}):\n${r.stderr.slice(0, 2000)}`);
  return r.stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}

const key = (file, line) => `${file}:${line}`;

/** The leading line number of a site ("LINE CALLER: text" or "LINE: text"). */
const siteLines = (groups) => (groups ?? []).flatMap((g) => g.sites.map((s) => key(g.file_path, Number(/^(\d+)/.exec(s)[1]))));

/** Functions and methods of graph.db, overloads (same file and name) folded into one entry with all their lines. */
function population(graphDb) {
  const db = new Database(graphDb, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare("SELECT s.name, s.kind, f.path AS file, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method') ORDER BY f.path, s.line, s.name")
      .all();
    const folded = new Map();
    for (const r of rows) {
      const k = `${r.file}\0${r.name}`;
      if (folded.has(k)) folded.get(k).lines.push(r.line);
      else folded.set(k, { ...r, lines: [r.line] });
    }
    return [...folded.values()];
  } finally {
    db.close();
  }
}

function score(sample, predicted) {
  let p = 0,
    r = 0,
    pn = 0,
    rn = 0,
    tp = 0,
    pred = 0,
    truth = 0;
  sample.forEach((s, i) => {
    const set = predicted[i];
    const hit = [...set].filter((k) => s.sites.has(k)).length;
    if (set.size > 0) {
      p += hit / set.size;
      pn++;
    }
    if (s.sites.size > 0) {
      r += hit / s.sites.size;
      rn++;
    }
    tp += hit;
    pred += set.size;
    truth += s.sites.size;
  });
  return {
    precision: pn ? p / pn : null,
    recall: rn ? r / rn : null,
    precision_micro: pred ? tp / pred : null,
    recall_micro: truth ? tp / truth : null,
    symbols_with_prediction: pn,
    predicted: pred,
    true_positives: tp,
  };
}

async function benchCorpus(language, spec, checker) {
  const { tmp, root } = copyCorpus(language, spec);
  const stateDir = path.join(tmp, "state");
  try {
    // With the pass: a first run (an analyzer built into the state dir, as the Go backend's program
    // is once per state dir), the plain index (its own state dir), then the measured full run
    // with the pass over the first one's state dir, set beside the plain one.
    const first = checker ? indexCorpus(stateDir, root, ["--checker"], { rss: true }) : null;
    const plain = checker ? indexCorpus(path.join(tmp, "state-plain"), root, [], { rss: true }) : null;
    const index = indexCorpus(stateDir, root, checker ? ["--checker"] : [], { rss: checker });
    if (plain) Object.assign(index, { plain, first });
    const t0 = performance.now();
    const rows = await ORACLES[language].run(root, path.join(stateDir, "graph.db"), spec);
    // Files outside the oracle's build (Go build tags) are left out of the sample and the scores.
    const excluded = new Set(rows.filter((r) => r.excluded !== undefined).map((r) => r.excluded));
    const oracle = rows.filter((r) => r.excluded === undefined);
    const oracleMs = performance.now() - t0;
    const truth = new Map();
    for (const s of oracle) {
      // A target is named by its declaration line (go/types, jedi) or by its name in its file (rustc).
      const k = s.target_line !== undefined ? key(s.target_file, s.target_line) : `${s.target_file}\0${s.target_name}`;
      if (!truth.has(k)) truth.set(k, new Set());
      truth.get(k).add(key(s.file, s.line));
    }
    const pop = population(path.join(stateDir, "graph.db")).filter((s) => !excluded.has(s.file));
    const inBuild = (k) => !excluded.has(k.slice(0, k.lastIndexOf(":")));
    const rand = prng(SEED);
    const sample = [];
    let withSites = 0;
    for (const s of shuffled(pop, rand)) {
      if (withSites >= TARGET_WITH_SITES) break;
      const sites = new Set([...s.lines.map((line) => key(s.file, line)), `${s.file}\0${s.name}`].flatMap((k) => [...(truth.get(k) ?? [])]));
      sample.push({ ...s, sites });
      if (sites.size > 0) withSites++;
    }
    const { ctx, callTool } = await openTools(stateDir, root);
    const verified = [];
    const all = [];
    const answers = [];
    try {
      for (const s of sample) {
        const a = await callTool(ctx, "mast_callers", { symbol: s.name, file_path: s.file, potential_limit: POTENTIAL_LIMIT, verified_limit: 10_000 });
        answers.push(a);
        const v = new Set(siteLines(a.verified_callers).filter(inBuild));
        verified.push(v);
        all.push(new Set([...v, ...siteLines(a.potential_matches).filter(inBuild)]));
      }
    } finally {
      ctx.close();
    }
    const rgSets = sample.map((s) => {
      const name = s.name.slice(s.name.lastIndexOf(".") + 1);
      const r = spawnSync("rg", ["-n", "--no-heading", "-t", spec.rgType, "-e", `\\b${name}\\s*\\(`, "."], { cwd: root, encoding: "utf8" });
      return new Set(
        (r.stdout ?? "")
          .split("\n")
          .map((l) => /^(?:\.\/)?(.*?):(\d+):/.exec(l))
          .filter((m) => m !== null)
          .map((m) => key(m[1], Number(m[2])))
          .filter(inBuild),
      );
    });
    const V = score(sample, verified);
    const A = score(sample, all);
    const R = have("rg", ["--version"]) ? score(sample, rgSets) : null;
    const sets = { verified, all, rg: R ? rgSets : null };
    const falsePositives = sample.flatMap((s, i) => [...verified[i]].filter((k) => !s.sites.has(k)).map((k) => ({ symbol: s.name, site: k })));
    const missed = sample.flatMap((s, i) => [...s.sites].filter((k) => !all[i].has(k)).map((k) => ({ symbol: s.name, site: k })));
    const unverified = sample.flatMap((s, i) => [...s.sites].filter((k) => !verified[i].has(k) && all[i].has(k)).map((k) => ({ symbol: s.name, site: k })));
    const withText = (xs) => xs.map((x) => ({ ...x, text: lineOf(root, x.site) }));
    return {
      language,
      spec,
      root,
      index,
      excluded: [...excluded],
      oracle: { sites: oracle.length, ms: oracleMs },
      population: pop.length,
      sample,
      withSites,
      sets,
      V,
      A,
      R,
      falsePositives: withText(falsePositives),
      missed: withText(missed),
      unverified: withText(unverified),
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function lineOf(root, site) {
  const [file, line] = [site.slice(0, site.lastIndexOf(":")), Number(site.slice(site.lastIndexOf(":") + 1))];
  try {
    return fs.readFileSync(path.join(root, file), "utf8").split("\n")[line - 1]?.trim() ?? "";
  } catch {
    return "";
  }
}

const pct = (x) => fmt(x, 3);
const row = (label, s) =>
  `  ${pad(label, 32)}${lpad(s.symbols_with_prediction, 8)}${lpad(pct(s.precision), 11)}${lpad(pct(s.precision_micro), 8)}${lpad(pct(s.recall), 9)}${lpad(pct(s.recall_micro), 8)}${lpad(s.predicted, 11)}${lpad(s.true_positives, 9)}`;
const header = () => `  ${pad("predictor", 32)}${lpad("symbols", 8)}${lpad("precision", 11)}${lpad("micro", 8)}${lpad("recall", 9)}${lpad("micro", 8)}${lpad("predicted", 11)}${lpad("correct", 9)}`;

/** One project's report lines and JSON. */
function corpusReport(spec, r) {
  const L = [];
  L.push(`${spec.name} ${spec.version} from ${spec.git ? `${spec.git.url} @ ${spec.git.commit}` : `${spec.source} (${spec.install.replace("apt-get install -y ", "Debian: ")})`}`);
  L.push(`  index: ${r.index.report.files_indexed} files, ${r.index.report.symbol_count} symbols, wall ${fmt(r.index.wall_ms / 1000)} s`);
  const c = r.index.report.checker;
  if (c) {
    L.push(
      `  checker pass: ${fmt(c.duration_ms / 1000)} s, ${c.candidates} candidates: ${c.calls_target} calls_target (${c.edges} edges), ${c.resolves_to_different} resolves_to_different, ${c.non_call_site} non_call_site, ${c.unresolved} unresolved, ${c.outside_ts_scope} outside`,
    );
    for (const l of c.languages ?? []) L.push(`    ${l.language} (${l.backend}): ${l.available ? "available" : `UNAVAILABLE: ${l.reason}`}`);
    if (r.index.plain)
      L.push(
        `  cost: index with the pass ${fmt(r.index.wall_ms / 1000)} s (peak RSS ${fmt((r.index.rss_kb ?? 0) / 1024, 0)} MB) vs the plain index ${fmt(r.index.plain.wall_ms / 1000)} s (${fmt((r.index.plain.rss_kb ?? 0) / 1024, 0)} MB): ${fmt(r.index.wall_ms / r.index.plain.wall_ms, 2)}x; the first run with the pass (its analyzer built) ${fmt(r.index.first.wall_ms / 1000)} s, ${fmt(r.index.first.wall_ms / r.index.plain.wall_ms, 2)}x`,
      );
  }
  L.push(
    `  oracle: ${r.oracle.sites} call sites of project functions and methods in ${fmt(r.oracle.ms / 1000)} s${r.excluded.length ? `; ${r.excluded.length} files outside its build left out of the scores (${r.excluded.slice(0, 3).join(", ")}${r.excluded.length > 3 ? ", ..." : ""})` : ""}`,
  );
  L.push(
    `  sample (seed 0x${SEED.toString(16)}): ${r.sample.length} of ${r.population} functions and methods drawn, ${r.withSites} with a call site, ${r.sample.reduce((a, s) => a + s.sites.size, 0)} sites`,
  );
  L.push(header());
  L.push(row("mast_callers verified", r.V));
  L.push(row("mast_callers verified + potential", r.A));
  if (r.R) L.push(row("rg '\\bNAME\\s*\\('", r.R));
  L.push(`  verified false positives: ${r.falsePositives.length}`);
  for (const f of r.falsePositives.slice(0, LIST_LIMIT)) L.push(`    ${f.symbol}  ${f.site}  ${f.text}`);
  L.push(`  missed (neither verified nor potential): ${r.missed.length}`);
  for (const m of r.missed.slice(0, LIST_LIMIT)) L.push(`    ${m.symbol}  ${m.site}  ${m.text}`);
  L.push(`  potential only (not verified): ${r.unverified.length}, e.g.`);
  for (const m of r.unverified.slice(0, LIST_LIMIT)) L.push(`    ${m.symbol}  ${m.site}  ${m.text}`);
  const json = {
    corpus: { name: spec.name, version: spec.version, source: spec.source ?? null, install: spec.install ?? null, git: spec.git ?? null },
    index: {
      wall_ms: round(r.index.wall_ms),
      rss_kb: r.index.rss_kb ?? null,
      plain: r.index.plain ? { wall_ms: round(r.index.plain.wall_ms), rss_kb: r.index.plain.rss_kb } : null,
      first_with_checker: r.index.first ? { wall_ms: round(r.index.first.wall_ms), rss_kb: r.index.first.rss_kb, checker_ms: r.index.first.report.checker?.duration_ms ?? null } : null,
      files: r.index.report.files_indexed,
      symbols: r.index.report.symbol_count,
      checker: r.index.report.checker ?? null,
    },
    oracle: { sites: r.oracle.sites, ms: round(r.oracle.ms), excluded_files: r.excluded },
    sample: { seed: SEED, drawn: r.sample.length, with_sites: r.withSites },
    verified: r.V,
    verified_and_potential: r.A,
    ripgrep: r.R,
    false_positives: r.falsePositives,
    missed: r.missed,
    potential_only: r.unverified,
  };
  return { L, json };
}

async function main() {
  const { values } = parseArgs({ options: { language: { type: "string" }, corpus: { type: "string" }, checker: { type: "boolean" } } });
  const checker = values.checker === true;
  const missing = missingBuild();
  if (missing) throw new BenchError(`${missing} is missing: run \`npm run build\` first`);
  const chosen = values.language ? [values.language] : Object.keys(ORACLES);
  for (const l of chosen) if (!ORACLES[l]) throw new BenchError(`unknown --language ${l} (one of ${Object.keys(ORACLES).join(", ")})`);
  const env = benchEnvironment();
  const distAtStart = distStamp();
  for (const language of chosen) {
    const corpora = CALLERS_CORPORA[language].filter((c) => values.corpus === undefined || c.name === values.corpus);
    if (corpora.length === 0) throw new BenchError(`no ${language} corpus named ${values.corpus} (one of ${CALLERS_CORPORA[language].map((c) => c.name).join(", ")})`);
    const L = [
      `mast callers-oracle bench (${language}${checker ? ", indexed with --checker" : ""}) — ${env.date}, mast ${env.mast_commit ?? "?"}, nproc ${env.nproc}`,
      `oracle: ${ORACLES[language].tool}`,
      "",
    ];
    const results = [];
    for (const spec of corpora) {
      process.stderr.write(`${language}: indexing ${spec.name} ${spec.version}${checker ? " with --checker" : ""} and running the oracle ...\n`);
      const r = await benchCorpus(language, spec, checker);
      const report = corpusReport(spec, r);
      L.push(...report.L, "");
      results.push({ r, json: report.json });
    }
    // The language's figures: every project's drawn symbols pooled.
    const sample = results.flatMap(({ r }) => r.sample);
    const pooled = (k) => results.flatMap(({ r }) => r.sets[k] ?? r.sample.map(() => new Set()));
    const V = score(sample, pooled("verified"));
    const A = score(sample, pooled("all"));
    const R = results.every(({ r }) => r.sets.rg) ? score(sample, pooled("rg")) : null;
    L.push(`pooled (${corpora.map((c) => c.name).join(" + ")}): ${sample.length} symbols drawn, ${results.reduce((a, { r }) => a + r.withSites, 0)} with a call site`);
    L.push(header());
    L.push(row("mast_callers verified", V));
    L.push(row("mast_callers verified + potential", A));
    if (R) L.push(row("rg '\\bNAME\\s*\\('", R));
    const T = (checker ? CHECKER_TARGETS : TARGETS)[language];
    const targets = [
      ["verified precision (macro)", T.verified_precision, V.precision],
      ["verified + potential recall (macro)", T.all_recall, A.recall],
      ["verified recall (macro)", T.verified_recall, V.recall],
    ];
    L.push("");
    L.push("targets (pooled)");
    for (const [name, target, value] of targets) L.push(`  ${verdict(value === null ? null : value >= target)}  ${pad(name, 40)}${pad(`>= ${target}`, 10)}${lpad(fmt(value, 3), 8)}`);
    publish(L, buildNotes(env, distAtStart), path.join(OUT_DIR, `callers-oracle.${language}${checker ? ".checker" : ""}.json`), {
      environment: env,
      checker,
      oracle_tool: ORACLES[language].tool,
      pooled: { verified: V, verified_and_potential: A, ripgrep: R },
      corpora: results.map(({ json }) => json),
      targets: targets.map(([name, target, value]) => ({ name, target, value: round(value), pass: value === null ? null : value >= target })),
    });
  }
  return 0;
}

await runBench(main);
