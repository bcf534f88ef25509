#!/usr/bin/env node
// Callers-accuracy bench: how right mast_callers is about who calls a function or method, on the
// index of ~1,000 real TypeScript files (the corpus of bench/index-speed.mjs, shared through
// bench/corpus.mjs), judged against the TypeScript compiler's own answer, next to a ripgrep
// baseline on the same symbols in the same run.
//
//   npm run build && npm run bench:callers
//   npm run bench:callers -- --corpus <dir>     (or: node bench/callers-accuracy.mjs --corpus <dir>)
//   npm run bench:callers -- --sample <figures.json>   (score the symbols an earlier run drew)
//   npm run bench:callers -- --checker                 (index with `mast index --checker`)
//
// --corpus <dir> runs it on any directory of TypeScript sources instead of the pinned corpus: no
// download, no stamp check, no repair of an interrupted index-speed edit; the directory must exist
// and hold .ts/.tsx files. The figures then go to bench/.out/callers-accuracy.<basename>.json, so
// the pinned corpus's reference figures are never overwritten.
//
// 1. The corpus is reused (downloaded when missing) and indexed fresh into a temp --state-dir.
// 2. Functions and methods are drawn from the built graph.db with a seeded PRNG (overloads folded,
//    constructors and computed names left out) until TARGET_WITH_SITES of them have at least one
//    call site; the draws without any stay in the sample (they can only cost precision).
// 3. Ground truth: one ts.LanguageService over every corpus .ts/.tsx file. findReferences on the
//    declaration's name; a reference is a call site when it is the callee of a call, `new`,
//    decorator or tagged template, and the checker resolves that callee (through import aliases)
//    to this very declaration: calls that TypeScript files under an overridden, overriding or
//    interface member are counted apart ("related"), not as the symbol's call sites.
// 4. mast_callers is called in-process (dist/tools/registry.js callTool) per symbol with
//    include_potential: the warm-up pass's answers are scored, then TIMED_PASSES timed passes.
//    Until the tool is registered the bench says so and reports the oracle and rg only.
// 5. ripgrep baseline: `rg -n --no-heading -e '\bNAME\s*\(' <corpus>` (a method by its name).
// 6. Per-symbol precision and recall (macro averages) and pooled (micro) totals, for mast's
//    verified callers, verified + potential matches, and rg; the verified false positives and the
//    missed sites are listed for the resolver's author.
//
// This is a report, not a test: it exits 0 whether targets PASS or MISS, when mast_callers is not
// registered yet and when rg is missing (the baseline is skipped), non-zero only when something
// could not run. Figures also go to bench/.out/callers-accuracy.json (callers-accuracy.<basename>.json
// with --corpus).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import ts from "typescript";
import { DECLARATION_LOOKAHEAD, createOracle, sampleOf, score, siteKey, siteLines } from "./ts-oracle.mjs";
import {
  BenchError,
  CORPUS,
  KEEP_SOURCE,
  MAST_EXCLUDED_DIRS,
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
  listFiles,
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
  run,
  runBench,
  shuffled,
  stats,
  verdict,
} from "./corpus.mjs";

const DEFAULT_OUT_JSON = path.join(OUT_DIR, "callers-accuracy.json");
const TOOL = "mast_callers";

/** The sample's seed ("call"); change it and the sample changes. */
const SEED = 0x63616c6c;
/** Draw until this many sampled symbols have at least one call site ... */
const TARGET_WITH_SITES = 200;
/** ... and note it when the population runs out below this many. */
const MIN_WITH_SITES = 150;
const POTENTIAL_LIMIT = 1000;
/** Every verified site is scored: mast_callers' largest verified_limit. */
const VERIFIED_LIMIT = 10_000;
/** mast_callers' default potential_limit. */
const DEFAULT_CAP = 50;
const TIMED_PASSES = 3;
const LIST_LIMIT = 10;

const TARGETS = {
  verified_precision: 0.98,
  verified_recall: 0.8,
  all_recall: 0.98,
  callers_p50_ms: 5,
};

// ---------------------------------------------------------------------------------------------
// sample population

const IDENT = /^#?[A-Za-z_$][\w$]*$/;
const posix = (p) => p.split(path.sep).join("/");

/** Functions and methods of graph.db in a fixed order, overloads (same file and name) folded. */
function readPopulation(graphDb) {
  const db = new Database(graphDb, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        `SELECT s.name, s.kind, f.path AS file, MIN(s.line) AS line, COUNT(*) AS declarations
         FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.kind IN ('function', 'method')
         GROUP BY s.file_id, s.name ORDER BY f.path, line, s.name`,
      )
      .all();
    const files = new Set(db.prepare("SELECT path FROM files").pluck().all());
    const left = { constructors: 0, computed_names: 0 };
    const population = [];
    for (const r of rows) {
      // `Class.method`, and the functions named after what holds them: `ns.f` (a namespace's), `outer.inner` (a nested one).
      const dot = r.name.lastIndexOf(".");
      const member = r.name.slice(dot + 1);
      if (member === "constructor") left.constructors++;
      else if (!IDENT.test(member) || r.name.includes("[")) left.computed_names++;
      else population.push({ name: r.name, kind: r.kind, file: r.file, line: r.line, member, owner: dot >= 0 ? r.name.slice(0, dot) : null });
    }
    const folded = rows.reduce((a, r) => a + r.declarations - 1, 0);
    return { population, files, left: { ...left, overloads_folded: folded } };
  } finally {
    db.close();
  }
}

/** Draws symbols in a seeded order until TARGET_WITH_SITES of them have a call site. */
function drawSample(population, oracle) {
  return sampleOf(shuffled(population, prng(SEED)), oracle, TARGET_WITH_SITES);
}

/**
 * The symbols another run drew (`--sample <its figures.json>`: its `sample.symbols`), to score two
 * builds on the very same symbols — a new symbol kind changes the population, so a fresh draw would not.
 */
function replaySample(figures, oracle) {
  let symbols;
  try {
    symbols = JSON.parse(fs.readFileSync(figures, "utf8")).sample?.symbols;
  } catch (err) {
    throw new BenchError(`--sample ${figures}: ${err.message}`);
  }
  if (!Array.isArray(symbols)) throw new BenchError(`--sample ${figures}: no sample.symbols list in it (a callers-accuracy figures file)`);
  const listed = symbols.map(({ name, kind, file, line }) => {
    const dot = name.lastIndexOf(".");
    return { name, kind, file, line, member: name.slice(dot + 1), owner: dot >= 0 ? name.slice(0, dot) : null };
  });
  return sampleOf(listed, oracle, Infinity);
}

// ---------------------------------------------------------------------------------------------
// mast_callers

async function runMast(sample, stateDir, root) {
  const { ctx, callTool } = await openTools(stateDir, root);
  const args = (s) => ({ symbol: s.name, file_path: s.file, include_potential: true, potential_limit: POTENTIAL_LIMIT, verified_limit: VERIFIED_LIMIT });
  try {
    // Warm-up: every symbol once; these are the answers scored.
    const answers = [];
    // The same call at the default potential_limit: what an agent gets unless it asks for more.
    const capped = [];
    const errors = [];
    for (const s of sample) {
      try {
        answers.push(await callTool(ctx, TOOL, args(s)));
        capped.push(await callTool(ctx, TOOL, { ...args(s), potential_limit: DEFAULT_CAP }));
      } catch (err) {
        if (answers.length === 0 && /unknown tool/i.test(err.message)) return { registered: false, message: err.message };
        if (answers.length === capped.length) answers.push(null);
        capped.push(null);
        errors.push(`${s.name} (${s.file}): ${err.message}`);
      }
    }
    const times = [];
    for (let pass = 0; pass < TIMED_PASSES; pass++) {
      for (const s of sample) {
        const t0 = performance.now();
        try {
          await callTool(ctx, TOOL, args(s));
        } catch {
          // counted in the warm-up pass
        }
        times.push(performance.now() - t0);
      }
    }
    return { registered: true, answers, capped, errors, calls: times.length, ms: roundStats(stats(times)), samples_ms: times.map((t) => round(t)) };
  } finally {
    ctx.close();
  }
}

/** The summary's numbers summed (and its flags counted) over every answer. */
function summaryTotals(answers) {
  const totals = {};
  for (const a of answers) {
    for (const [k, v] of Object.entries(a?.summary ?? {})) {
      if (typeof v === "number" || typeof v === "boolean") totals[k] = (totals[k] ?? 0) + Number(v);
    }
  }
  return totals;
}

// ---------------------------------------------------------------------------------------------
// ripgrep

const rgPattern = (member) => `${/^\w/.test(member) ? "\\b" : ""}${member.replace(/\$/g, "\\$")}\\s*\\(`;

function runRg(sample, mastFiles, root) {
  const prefix = `${root}${path.sep}`;
  const times = [];
  const keys = sample.map((s) => {
    const t0 = performance.now();
    const r = run("rg", ["-n", "--no-heading", "--with-filename", "--color", "never", "-e", rgPattern(s.member), root]);
    times.push(performance.now() - t0);
    if (r.status !== 0 && r.status !== 1) throw new BenchError(`rg for ${s.member} failed (exit ${r.status}): ${r.stderr.trim()}`);
    const out = [];
    for (const line of r.stdout.split("\n")) {
      const m = /^(.+?):(\d+):/.exec(line);
      const file = m && m[1].startsWith(prefix) ? posix(m[1].slice(prefix.length)) : null;
      if (file && mastFiles.has(file)) out.push(siteKey(file, Number(m[2])));
    }
    return out;
  });
  return { keys, ms: roundStats(stats(times)) };
}

// ---------------------------------------------------------------------------------------------
// scoring

/** A verified site as mast_callers writes it: "LINE CALLER: text [resolution] (depth N via CALLEE)". */
const VERIFIED_SITE = /^(\d+)(?: ([^\s:]+))?: (.*?)(?: \[(\w+)\])?(?: \(depth (\d+) via (\S+)\))?$/;
/** mast_callers groups verified sites by file ({file_path, resolution?, sites}): one flat list of objects, each site with its file. */
const flatSites = (groups) =>
  (groups ?? []).flatMap((g) =>
    g.sites.map((site) => {
      const m = VERIFIED_SITE.exec(site) ?? [];
      return { file_path: g.file_path, line: Number(m[1]), caller_symbol: m[2] ?? null, context: m[3] ?? site, resolution: m[4] ?? g.resolution ?? null };
    }),
  );
/** A site is an object with its line (verified callers) or `"LINE: text"` (potential matches). */
const lineOf = (site) => (typeof site === "string" ? Number.parseInt(site, 10) : site.line);
const keysOf = (groups) => (groups ?? []).flatMap((g) => g.sites.map((s) => siteKey(g.file_path, lineOf(s))));

/** Up to `limit` items, at most two per symbol, the symbols with the most items first. */
function worstFirst(items, limit) {
  const bySymbol = new Map();
  for (const it of items) bySymbol.set(it.symbol, [...(bySymbol.get(it.symbol) ?? []), it]);
  return [...bySymbol.values()]
    .sort((a, b) => b.length - a.length)
    .flatMap((xs) => xs.slice(0, 2))
    .slice(0, limit);
}

/** mast's predictions, the verified callers by resolution, and its worst offenders. */
function scoreMast(sample, answers, cappedAnswers, oracle) {
  const verified = answers.map((a) => (a ? keysOf(a.verified_callers) : null));
  const all = answers.map((a) => (a ? [...keysOf(a.verified_callers), ...keysOf(a.potential_matches)] : null));
  // What an agent gets by default: the answer at the default potential_limit (most likely first).
  const capped = answers.map((a, i) => (a && cappedAnswers[i] ? [...keysOf(a.verified_callers), ...keysOf(cappedAnswers[i].potential_matches)] : null));
  const byResolution = {};
  const falsePositives = [];
  const missed = [];
  sample.forEach((s, i) => {
    const a = answers[i];
    if (!a) return;
    const truth = new Set(s.sites.flatMap(siteLines));
    const related = new Map(s.related_sites.flatMap((r) => siteLines(r).map((k) => [k, r.calls])));
    for (const c of flatSites(a.verified_callers)) {
      const key = siteKey(c.file_path, c.line);
      const ok = truth.has(key);
      const r = (byResolution[c.resolution ?? "(none)"] ??= { count: 0, true_positives: 0 });
      r.count++;
      if (ok) r.true_positives++;
      else
        falsePositives.push({
          symbol: s.name,
          site: key,
          resolution: c.resolution ?? null,
          caller_symbol: c.caller_symbol ?? null,
          context: c.context ?? "",
          typescript_calls: related.get(key) ?? null,
        });
    }
    const predicted = new Set(all[i]);
    for (const site of s.sites) {
      if (!siteLines(site).some((k) => predicted.has(k)))
        missed.push({ symbol: s.name, site: siteKey(site.file, site.line), source: oracle.textOf(site.file, site.name_line), name_line: site.name_line });
    }
  });
  for (const r of Object.values(byResolution)) r.precision = round(r.true_positives / r.count);
  return {
    verified: score(sample, verified),
    all: score(sample, all),
    all_default_cap: score(sample, capped),
    by_resolution: byResolution,
    false_positives: falsePositives,
    missed,
    summary_totals: summaryTotals(answers),
  };
}

// ---------------------------------------------------------------------------------------------
// main

const USAGE = "usage: node bench/callers-accuracy.mjs [--corpus <dir>] [--sample <figures.json>] [--checker]";

/** The command line: { root } of a user-given corpus (--corpus <dir>, resolved), or { root: null } for the pinned one. */
function parseCommandLine(argv) {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { corpus: { type: "string" }, sample: { type: "string" }, checker: { type: "boolean" } }, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new BenchError(`${err.message}\n${USAGE}`);
  }
  const sample = values.sample === undefined ? null : path.resolve(values.sample);
  if (sample !== null && !fs.existsSync(sample)) throw new BenchError(`--sample ${values.sample}: ${sample} does not exist`);
  const checker = values.checker === true;
  if (values.corpus === undefined) return { root: null, sample, checker };
  if (values.corpus.trim() === "") throw new BenchError(`--corpus needs a directory\n${USAGE}`);
  const abs = path.resolve(values.corpus);
  if (!fs.existsSync(abs)) throw new BenchError(`--corpus ${values.corpus}: ${abs} does not exist`);
  if (!fs.statSync(abs).isDirectory()) throw new BenchError(`--corpus ${values.corpus}: ${abs} is not a directory`);
  // mast reports paths under the real root (resolveProjectRoot), so the oracle and rg work there too.
  return { root: fs.realpathSync(abs), sample, checker };
}

/** Whether root holds a TypeScript source (.ts/.tsx/.mts/.cts, not a declaration) where mast would look. */
function hasTypeScript(root) {
  return listFiles(root).some(
    (rel) =>
      KEEP_SOURCE.test(rel) &&
      !/\.d\.(ts|mts|cts)$/.test(rel) &&
      !rel
        .split("/")
        .slice(0, -1)
        .some((d) => MAST_EXCLUDED_DIRS.has(d)),
  );
}

/** A directory as printed: project-relative when inside the repo, else absolute. */
function shownDir(dir) {
  const rel = path.relative(REPO, dir);
  if (rel === "") return ".";
  return rel.startsWith("..") || path.isAbsolute(rel) ? dir : rel;
}

async function main() {
  const cli = parseCommandLine(process.argv.slice(2));
  const userCorpus = cli.root !== null;
  const root = cli.root ?? CORPUS;
  if (userCorpus && !hasTypeScript(root)) throw new BenchError(`--corpus ${root} holds no .ts/.tsx source file (declarations and files under ${[...MAST_EXCLUDED_DIRS].join(", ")} do not count)`);
  // A replayed sample's figures never overwrite a drawn one's.
  const base = userCorpus ? `callers-accuracy.${path.basename(root) || "root"}` : path.basename(DEFAULT_OUT_JSON, ".json");
  const variant = `${cli.checker ? ".checker" : ""}${cli.sample !== null ? ".replay" : ""}`;
  const outJson = variant !== "" ? path.join(OUT_DIR, `${base}${variant}.json`) : userCorpus ? path.join(OUT_DIR, `${base}.json`) : DEFAULT_OUT_JSON;

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
  env.typescript = ts.version;
  // A user corpus is taken as it is: no download or stamp check, and no repair (only index-speed
  // edits a corpus file, and only the pinned corpus's).
  const fetched = userCorpus ? null : ensureCorpus();
  if (!userCorpus) repairInterruptedEdit();
  const corpus = describeCorpus(root);
  if (corpus.files === 0) throw new BenchError(`the corpus in ${root} holds no indexable file`);

  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-callers-"));
  const cleanup = () => fs.rmSync(stateDir, { recursive: true, force: true });
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.once(sig, () => {
      cleanup();
      process.exit(130);
    });
  }
  let index, pop, oracle, drawn, mast, rg;
  try {
    process.stderr.write(`mast index (fresh state dir) ...\n`);
    index = indexCorpus(stateDir, root, cli.checker ? ["--checker"] : []);
    pop = readPopulation(path.join(stateDir, "graph.db"));
    const tsFiles = [...pop.files].filter((f) => KEEP_SOURCE.test(f) && !f.endsWith(".d.ts")).sort();
    process.stderr.write(`oracle: TypeScript ${ts.version} language service over ${tsFiles.length} files ...\n`);
    oracle = createOracle(root, tsFiles, pop.files);
    drawn = cli.sample === null ? drawSample(pop.population, oracle) : replaySample(cli.sample, oracle);
    process.stderr.write(`${TOOL}: 1 warm-up + ${TIMED_PASSES} timed passes over ${drawn.sample.length} symbols ...\n`);
    mast = await runMast(drawn.sample, stateDir, root);
    if (rgVersion) rg = runRg(drawn.sample, pop.files, root);
  } finally {
    cleanup();
  }
  env.loadavg_at_end = loadavg();

  const { sample } = drawn;
  const withSites = sample.filter((s) => s.sites.length > 0);
  const sitesPer = withSites.map((s) => s.sites.length);
  const allSites = sample.flatMap((s) => s.sites);
  const scoredMast = mast.registered ? scoreMast(sample, mast.answers, mast.capped, oracle) : null;
  const scoredRg = rg ? score(sample, rg.keys) : null;
  const rgMissed = scoredRg
    ? sample.flatMap((s, i) => scoredRg.per_symbol[i].missed.map((site) => ({ symbol: s.name, site: siteKey(site.file, site.line), source: oracle.textOf(site.file, site.name_line) })))
    : [];
  const refMs = stats(oracle.referenceMs);

  const V = scoredMast?.verified;
  const A = scoredMast?.all;
  const t = (name, target, value, limit, better) => ({ name, target, value: round(value), pass: value === null || value === undefined ? null : better === "high" ? value >= limit : value <= limit });
  const targets = [
    t("verified precision (macro)", `>= ${TARGETS.verified_precision}`, V?.precision, TARGETS.verified_precision, "high"),
    t("verified recall (macro)", `>= ${TARGETS.verified_recall}`, V?.recall, TARGETS.verified_recall, "high"),
    t("verified + potential recall (macro)", `>= ${TARGETS.all_recall}`, A?.recall, TARGETS.all_recall, "high"),
    t(`${TOOL} p50 (in-process)`, `<= ${TARGETS.callers_p50_ms} ms`, mast.ms?.p50, TARGETS.callers_p50_ms, "low"),
  ];

  const notes = [];
  if (!mast.registered) notes.push(`${TOOL} is not registered in dist/ (${mast.message}): mast is not scored; the oracle and rg figures stand on their own`);
  // A tool that failed on every symbol did not run: that, unlike a MISS, makes the exit code non-zero.
  const failed = mast.registered && mast.errors.length === sample.length;
  if (mast.registered && mast.errors.length) notes.push(`${TOOL} answered ${mast.errors.length} of ${sample.length} calls with an error (left out of the scores), e.g. ${mast.errors[0]}`);
  if (failed) notes.push(`${TOOL} answered every call with an error: nothing was scored and its timings measure the error path`);
  if (drawn.with_sites < MIN_WITH_SITES) notes.push(`only ${drawn.with_sites} drawn symbols have a call site (wanted ${MIN_WITH_SITES}): the population ran out`);
  if (drawn.unlocated.length)
    notes.push(
      `${drawn.unlocated.length} drawn symbol row(s) name no declaration near their line in the source (typically an anonymous default export, which mast names after its file, or an export alias such as \`export { _catch as catch }\`), left out: ${drawn.unlocated.slice(0, 5).join(", ")}${drawn.unlocated.length > 5 ? ", ..." : ""}`,
    );
  if (index.report.files_indexed !== corpus.files) notes.push(`mast indexed ${index.report.files_indexed} files, the corpus walk counted ${corpus.files}`);
  notes.push(...buildNotes(env, distAtStart));

  // ----- print
  const L = [];
  const pct = (x) => fmt(x, 3);
  L.push(`mast callers-accuracy bench — ${env.date}`);
  L.push(`machine: nproc ${env.nproc}, ${env.cpu}, ${env.total_mem_gb} GiB, ${env.platform}, node ${env.node}, typescript ${ts.version}`);
  L.push(`mast ${env.mast_commit ?? "?"}${env.src_modified ? " (src/ modified)" : ""}, dist built ${env.mast_dist_built}`);
  L.push(`load average (1/5/15 min): start ${env.loadavg_at_start.join(" ")}, end ${env.loadavg_at_end.join(" ")}`);
  L.push("");
  const sizes = `${corpus.files} files, ${fmt(corpus.bytes / 1e6)} MB (${Object.entries(corpus.by_extension)
    .map(([e, n]) => `${n} ${e}`)
    .join(", ")})`;
  L.push(
    userCorpus
      ? `corpus: ${shownDir(root)}/ (user-given with --corpus, not the pinned package list; no download or stamp check) — ${sizes}`
      : `corpus: ${path.relative(REPO, CORPUS)}/ (${fetched.downloaded ? "downloaded now" : "cached, stamp matches"}) — ${PACKAGES.length} npm packages, ${sizes}`,
  );
  L.push(`index: fresh temp --state-dir, ${index.report.files_indexed} files, ${index.report.symbol_count} symbols; wall ${fmt(index.wall_ms / 1000)} s, not a target here`);
  const ck = index.report.checker;
  if (ck)
    L.push(
      `  --checker: ${ck.projects} program(s), ${ck.candidates} potential matches in ${fmt(ck.duration_ms / 1000)} s: ${ck.calls_target} verified, ${ck.resolves_to_different} another declaration, ${ck.non_call_site} no call, ${ck.unresolved} unresolved, outside_ts_scope ${ck.outside_ts_scope}${ck.skipped.length ? `; skipped ${ck.skipped.length} config(s)` : ""}`,
    );
  L.push("");
  const nFn = pop.population.filter((s) => s.kind === "function").length;
  L.push(
    `population: ${pop.population.length} functions and methods in graph.db (${nFn} functions, ${pop.population.length - nFn} methods; ${pop.left.overloads_folded} overload rows folded, ${pop.left.constructors} constructors and ${pop.left.computed_names} computed names left out)`,
  );
  const kinds = (xs) => `${xs.filter((s) => s.kind === "function").length} functions, ${xs.filter((s) => s.kind === "method").length} methods`;
  L.push(
    cli.sample === null
      ? `sample (seed 0x${SEED.toString(16)}): ${sample.length} symbols drawn until ${TARGET_WITH_SITES} had a call site`
      : `sample: the ${sample.length} symbols of ${shownDir(cli.sample)} (--sample), not a new draw`,
  );
  L.push(
    `  with >= 1 call site   ${lpad(withSites.length, 4)}  (${kinds(withSites)}); ${allSites.length} sites, median ${sitesPer.length ? median(sitesPer) : "n/a"} per symbol, max ${sitesPer.length ? Math.max(...sitesPer) : "n/a"}`,
  );
  L.push(`  with no call site     ${lpad(sample.length - withSites.length, 4)}  (${kinds(sample.filter((s) => s.sites.length === 0))}); scored for precision only`);
  if (drawn.unlocated.length) L.push(`  not located           ${lpad(drawn.unlocated.length, 4)}  (left out)`);
  const related = sample.reduce((a, s) => a + s.related_sites.length, 0);
  L.push(`  ${related} further call sites that TypeScript files under a related declaration (an overridden, overriding or interface member) are not counted`);
  const split = allSites.filter((s) => s.line !== s.name_line).length;
  L.push(`  a site counts at the line its call starts on or the line of the called name (they differ for ${split} of ${allSites.length} sites)`);
  L.push("");
  L.push(
    `oracle: ts.LanguageService over ${oracle.files} files${oracle.options.paths ? ` (workspace packages resolved to their sources: ${Object.keys(oracle.options.paths).length} paths patterns)` : ""}; program + checker built in ${fmt(oracle.programMs / 1000)} s; ${oracle.referenceMs.length} findReferences in ${fmt(oracle.referenceMs.reduce((a, b) => a + b, 0) / 1000)} s (p50 ${fmt(refMs?.p50, 1)} ms, max ${fmt(refMs?.max, 0)} ms)`,
  );
  L.push("");
  L.push(`accuracy — precision is the mean over symbols with a prediction, recall over symbols with a call site; micro pools all sites`);
  L.push(
    `  ${pad("predictor", 36)}${lpad("symbols", 8)}${lpad("precision", 11)}${lpad("micro", 8)}${lpad("recall", 9)}${lpad("micro", 8)}${lpad("predicted", 11)}${lpad("correct", 9)}${lpad("sites found", 14)}`,
  );
  const row = (label, s) =>
    `  ${pad(label, 36)}${lpad(s.symbols_with_prediction, 8)}${lpad(pct(s.precision), 11)}${lpad(pct(s.precision_micro), 8)}${lpad(pct(s.recall), 9)}${lpad(pct(s.recall_micro), 8)}${lpad(s.predicted, 11)}${lpad(s.true_positives, 9)}${lpad(`${s.sites_found}/${s.sites}`, 14)}`;
  if (scoredMast) {
    L.push(row(`${TOOL} verified`, V));
    L.push(row(`${TOOL} verified + potential`, A));
    L.push(row(`  ... potential capped at ${DEFAULT_CAP} (default)`, scoredMast.all_default_cap));
  } else {
    L.push(`  ${pad(TOOL, 36)}not registered in dist/ yet: not scored`);
  }
  if (scoredRg) L.push(row(`rg '\\bNAME\\s*\\('`, scoredRg));
  else L.push(`  ${pad("rg", 36)}skipped: rg is not on PATH (${RG_INSTALL})`);
  L.push(`  (symbols = symbols with a non-empty prediction; rg gets a method's name without its class; rg wall p50 ${fmt(rg?.ms?.p50, 1)} ms per symbol, spawn included)`);
  if (scoredMast) {
    L.push("");
    L.push(`${TOOL} latency (in-process, 1 warm-up + ${TIMED_PASSES} timed passes, ${mast.calls} calls): p50 ${fmt(mast.ms?.p50)} ms, p95 ${fmt(mast.ms?.p95)} ms, max ${fmt(mast.ms?.max)} ms`);
    L.push(
      `summary totals: ${
        Object.entries(scoredMast.summary_totals)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ") || "none"
      }`,
    );
    L.push("");
    L.push("verified callers by resolution");
    L.push(`  ${pad("resolution", 28)}${lpad("count", 7)}${lpad("correct", 9)}${lpad("precision", 11)}`);
    for (const [r, x] of Object.entries(scoredMast.by_resolution).sort((a, b) => b[1].count - a[1].count))
      L.push(`  ${pad(r, 28)}${lpad(x.count, 7)}${lpad(x.true_positives, 9)}${lpad(pct(x.precision), 11)}`);
    L.push("");
    L.push(`verified false positives: ${scoredMast.false_positives.length}${scoredMast.false_positives.length ? ` (up to ${LIST_LIMIT} shown, at most 2 per symbol, worst symbols first)` : ""}`);
    for (const f of worstFirst(scoredMast.false_positives, LIST_LIMIT)) {
      L.push(`  ${f.symbol}  ${f.site}  [${f.resolution ?? "-"}]  ${f.context}${f.typescript_calls ? `\n      (TypeScript: calls ${f.typescript_calls})` : ""}`);
    }
    L.push(`missed sites (in neither verified nor potential): ${scoredMast.missed.length}${scoredMast.missed.length ? ` (up to ${LIST_LIMIT} shown)` : ""}`);
    for (const m of worstFirst(scoredMast.missed, LIST_LIMIT)) L.push(`  ${m.symbol}  ${m.site}  ${m.source}`);
  }
  if (scoredRg) {
    L.push("");
    L.push(`rg missed ${rgMissed.length} sites, e.g.:`);
    for (const m of worstFirst(rgMissed, 5)) L.push(`  ${m.symbol}  ${m.site}  ${m.source}`);
  }
  L.push("");
  L.push("targets");
  for (const x of targets) L.push(`  ${verdict(x.pass)}  ${pad(x.name, 40)}${pad(x.target, 12)}${lpad(x.value === null ? "n/a" : fmt(x.value, 3), 8)}`);

  // ----- JSON
  const strip = (s) => s && { ...s, per_symbol: undefined };
  publish(L, notes, outJson, {
    environment: env,
    corpus: userCorpus
      ? { root: shownDir(corpus.root), user_given: true, files: corpus.files, bytes: corpus.bytes, by_extension: corpus.by_extension }
      : { root: path.relative(REPO, corpus.root), files: corpus.files, bytes: corpus.bytes, by_extension: corpus.by_extension, packages: PACKAGES.map((p) => `${p.name}@${p.version}`) },
    index: { wall_ms: round(index.wall_ms), report: index.report },
    settings: {
      seed: SEED,
      target_with_sites: TARGET_WITH_SITES,
      min_with_sites: MIN_WITH_SITES,
      declaration_lookahead: DECLARATION_LOOKAHEAD,
      potential_limit: POTENTIAL_LIMIT,
      timed_passes: TIMED_PASSES,
      // With a workspace monorepo, `paths` for its packages (oracleOptions): their count, not the map.
      compiler_options: { ...oracle.options, ...(oracle.options.paths ? { paths: `${Object.keys(oracle.options.paths).length} workspace patterns` } : {}) },
      rg_pattern: "\\bNAME\\s*\\(",
      percentile: "nearest-rank",
    },
    population: { symbols: pop.population.length, functions: nFn, methods: pop.population.length - nFn, ...pop.left },
    oracle: {
      typescript: ts.version,
      files: oracle.files,
      program_ms: round(oracle.programMs),
      find_references: { calls: oracle.referenceMs.length, total_ms: round(oracle.referenceMs.reduce((a, b) => a + b, 0)), ms: roundStats(refMs) },
    },
    sample: {
      drawn: sample.length,
      with_sites: withSites.length,
      without_sites: sample.length - withSites.length,
      unlocated: drawn.unlocated,
      sites: allSites.length,
      related_sites: related,
      symbols: sample.map((s, i) => ({
        name: s.name,
        kind: s.kind,
        file: s.file,
        line: s.line,
        name_line: s.name_line,
        sites: s.sites,
        related_sites: s.related_sites,
        mast: mast.registered ? { verified: keysOf(mast.answers[i]?.verified_callers), potential: keysOf(mast.answers[i]?.potential_matches), summary: mast.answers[i]?.summary ?? null } : undefined,
        rg: rg?.keys[i],
      })),
    },
    mast: mast.registered
      ? {
          tool: TOOL,
          verified: strip(scoredMast.verified),
          verified_and_potential: strip(scoredMast.all),
          by_resolution: scoredMast.by_resolution,
          summary_totals: scoredMast.summary_totals,
          false_positives: scoredMast.false_positives,
          missed: scoredMast.missed,
          latency: { calls: mast.calls, ms: mast.ms, samples_ms: mast.samples_ms },
          errors: mast.errors,
        }
      : { tool: TOOL, registered: false, message: mast.message },
    ripgrep: rg ? { version: rgVersion.split("\n")[0], ...strip(scoredRg), missed: rgMissed, wall_ms: rg.ms } : { skipped: `rg is not on PATH (${RG_INSTALL})` },
    targets,
    notes,
  });
  return failed ? 1 : 0;
}

await runBench(main);
