#!/usr/bin/env node
// What the breadth languages' extraction finds, measured on one real repository per language no
// rule was written from (BREADTH_CORPORA: jsoup, lua, leveldb, serilog, jekyll, monolog, each at
// a pinned commit — from a mirror under $MAST_BENCH_MIRRORS or cloned), against universal-ctags:
//
//   npm run build && npm run bench:index-lang      (index-languages.mjs, then this)
//
// Per language:
// - recall: ctags' definitions (functions, methods, classes, structs, interfaces, enums, modules;
//   anonymous ones, locals, namespaces, fields and macros left out) in the files mast indexes,
//   found as a mast symbol of that name whose span holds ctags' line;
// - lost to parse errors: the misses in files whose parse had errors;
// - chunk coverage: non-blank lines whose text is in a chunk's searched text (context lines not counted), its doc comment included;
// - exact-name search: 50 seeded ctags names, rank 1 a declaration of that name, and the tag's
//   own declaration in the top 5;
// - verified callers' precision: a sample of 20 verified edges (those whose ids hash lowest), each hand-checked and
//   recorded in bench/fixtures/breadth-callers.json (`correct` or what is wrong); a sampled edge
//   with no verdict there is listed as unchecked (its context printed) and counts against the target.
// Speed beside ctags on the same tree: mast's full index wall and ctags -R's.
// A report, not a test: exits 0 whether the targets PASS or MISS; figures go to bench/.out/breadth-accuracy.json.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  BENCH_DIR,
  BenchError,
  DIST,
  MAST,
  OUT_DIR,
  REPO,
  copyCorpus,
  fmt,
  have,
  indexCorpus,
  machineFacts,
  missingBuild,
  openTools,
  pad,
  prng,
  publish,
  runBench,
  shuffled,
  verdict,
} from "./corpus.mjs";

const git = (owner, name, commit) => ({ url: `https://github.com/${owner}/${name}`, commit });
/** One repository per breadth language, pinned; `kinds`: ctags' kind letters counted. */
export const BREADTH_CORPORA = {
  java: { name: "jsoup", version: "46b6208", git: git("jhy", "jsoup", "46b620860af930eedc193a705eaf7cea5aec89a6"), ctags: "Java", kinds: "acgim" },
  c: { name: "lua", version: "53b41d0", git: git("lua", "lua", "53b41d0cddd80bf33fdc631bdd32e3ba53842b89"), ctags: "C", kinds: "fgsu" },
  cpp: { name: "leveldb", version: "78a352f", git: git("google", "leveldb", "78a352f47ed6c1e9d750545e9b242289185b87e1"), ctags: "C++", kinds: "cfgsu" },
  csharp: { name: "serilog", version: "60935b4", git: git("serilog", "serilog", "60935b4d7abad71cf6157b45a10f5c3c65ead527"), ctags: "C#", kinds: "cgims" },
  ruby: { name: "jekyll", version: "202df57", git: git("jekyll", "jekyll", "202df571314ba1d18e9fccd81d12aaad4a703c38"), ctags: "Ruby", kinds: "cfmS" },
  php: { name: "monolog", version: "57eb102", git: git("Seldaek", "monolog", "57eb1028342134e701e77c617565d51b6e5a2a53"), ctags: "PHP", kinds: "cfit" },
};

const TARGETS = { recall: 0.97, coverage: 1, lost_to_parse_errors: 0, search_rank1: 0.95, callers_precision: 0.99 };
const SEARCH_SAMPLE = 50;
const CALLERS_SAMPLE = 20;
const FIXTURE = path.join(BENCH_DIR, "fixtures", "breadth-callers.json");

function ctagsTags(root, c) {
  const t0 = performance.now();
  const r = spawnSync("ctags", ["-R", "-f", "-", "--output-format=json", "--fields=+nKzZs", `--languages=${c.ctags}`, `--kinds-${c.ctags}=${c.kinds}`, "."], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new BenchError(`ctags failed on ${c.name}: ${r.stderr}`);
  const tags = r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((t) => t._type === "tag")
    .map((t) => ({ path: t.path.replace(/^\.\//, ""), name: t.name, line: t.line, kind: t.kind }));
  return { wallMs, tags };
}

const squash = (name) => name.replace(/\s+/g, "");
const TEST_MACROS = new Set(["TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P"]);
const tail = (name) => name.split(/\.|::/).pop();

async function measureLanguage(language, c, Database, verdicts) {
  const { tmp, root } = copyCorpus(language, c);
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "mast-breadth-state-"));
  try {
    const index = indexCorpus(state, root);
    const ctags = ctagsTags(root, c);
    const db = new Database(path.join(state, "graph.db"), { readonly: true });
    // Edges keep their type and resolution as codes (store/edge-codes.ts, from the build).
    const { EDGE, resolutionName } = await import(path.join(DIST, "store", "edge-codes.js"));
    const files = db.prepare("SELECT id, path, language, has_syntax_errors AS broken FROM files WHERE language = ?").all(language);
    const byPath = new Map(files.map((f) => [f.path, f]));
    const symbols = db.prepare("SELECT s.name, s.line, s.end_line AS endLine, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.language = ?").all(language);
    const symbolsIn = new Map();
    for (const s of symbols) (symbolsIn.get(s.path) ?? symbolsIn.set(s.path, []).get(s.path)).push(s);
    // Anonymous types (`__anon…`) have no name to look up; files mast does not index (no extension) are not counted.
    const tags = ctags.tags.filter((t) => !t.name.startsWith("__anon") && byPath.has(t.path));
    // ctags names a googletest test by its macro (`TEST_F`); mast by its fixture and name (`Fixture.Name`) at that line.
    const found = (t, s) => (TEST_MACROS.has(t.name) ? s.line === t.line : squash(tail(s.name)) === squash(tail(t.name)) && s.line <= t.line && t.line <= s.endLine);
    const misses = tags.filter((t) => !(symbolsIn.get(t.path) ?? []).some((s) => found(t, s)));
    const lost = misses.filter((t) => byPath.get(t.path).broken === 1);

    // Chunk coverage of non-blank lines: a line counts when a chunk spanning it holds its text.
    const chunks = db
      .prepare(
        "SELECT f.path, c.content_start_line AS s, c.end_line AS e, substr(c.content, c.search_from, c.search_len) AS content FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.language = ?",
      )
      .all(language);
    const chunksIn = new Map();
    for (const ch of chunks) (chunksIn.get(ch.path) ?? chunksIn.set(ch.path, []).get(ch.path)).push(ch);
    let nonBlank = 0;
    const uncovered = [];
    for (const f of files) {
      const lines = fs.readFileSync(path.join(root, f.path), "utf8").split(/\r?\n/);
      const list = chunksIn.get(f.path) ?? [];
      lines.forEach((text, i) => {
        const trimmed = text.trim();
        if (trimmed === "") return;
        nonBlank++;
        if (!list.some((ch) => ch.s <= i + 1 && i + 1 <= ch.e && ch.content.includes(trimmed))) uncovered.push(`${f.path}:${i + 1}: ${trimmed.slice(0, 80)}`);
      });
    }

    // Exact-name search and verified callers, through the tools.
    const { ctx, callTool } = await openTools(state, root);
    let rank1 = 0;
    let own5 = 0;
    const searchMisses = [];
    const named = [...new Map(tags.filter((t) => /^[A-Za-z_]\w*$/.test(t.name) && !TEST_MACROS.has(t.name)).map((t) => [`${t.path}:${t.name}`, t])).values()].sort(
      (a, b) => a.path.localeCompare(b.path) || a.line - b.line,
    );
    const sample = shuffled(named, prng(33)).slice(0, SEARCH_SAMPLE);
    for (const t of sample) {
      const answer = await callTool(ctx, "mast_search", { query: t.name, limit: 5 });
      const results = answer.results ?? [];
      const first = results[0];
      if (first && first.symbol_name !== null && tail(first.symbol_name) === t.name) rank1++;
      else searchMisses.push(`${t.name} (${t.path}:${t.line}) → ${first ? `${first.file_path}:${first.start_line} ${first.symbol_name}` : "nothing"}`);
      if (results.some((r) => r.file_path === t.path && r.start_line <= t.line && t.line <= r.end_line)) own5++;
    }
    ctx.close?.();

    const edges = db
      .prepare(
        `SELECT cf.path AS callerFile, e.call_line AS line, e.resolution AS code, t.name AS target, tf.path AS targetFile, t.line AS targetLine
         FROM edges e JOIN symbols c ON c.id = e.from_id JOIN files cf ON cf.id = c.file_id JOIN symbols t ON t.id = e.to_id JOIN files tf ON tf.id = t.file_id
         WHERE e.edge_type = ${EDGE.POTENTIAL_CALL} AND e.call_line IS NOT NULL AND cf.language = ?
         ORDER BY cf.path, e.call_line, tf.path, t.line`,
      )
      .all(language)
      .map(({ code, ...e }) => ({ ...e, resolution: resolutionName(code) }));
    // The edges whose ids hash lowest: a change to the edge set moves only the edges it adds or
    // removes in or out of the sample, so verdicts written by hand stay in use.
    const edgeId = (e) => `${e.callerFile}:${e.line} -> ${e.target} ${e.targetFile}:${e.targetLine}`;
    const picked = edges
      .map((e) => ({ e, id: edgeId(e), h: createHash("sha256").update(edgeId(e)).digest("hex") }))
      .sort((a, b) => (a.h < b.h ? -1 : 1))
      .slice(0, CALLERS_SAMPLE);
    const known = verdicts[language] ?? {};
    const checked = [];
    const unchecked = [];
    for (const { e, id } of picked) {
      if (known[id] === undefined) {
        const context = (fs.readFileSync(path.join(root, e.callerFile), "utf8").split(/\r?\n/)[e.line - 1] ?? "").trim();
        unchecked.push({ id, resolution: e.resolution, context });
      } else checked.push({ id, correct: known[id] === "correct", verdict: known[id] });
    }
    db.close();
    const correct = checked.filter((c) => c.correct).length;
    return {
      language,
      corpus: `${c.name} ${c.version}`,
      files: files.length,
      mast_index_ms: Math.round(index.wall_ms),
      ctags_ms: Math.round(ctags.wallMs),
      tags: tags.length,
      recall: (tags.length - misses.length) / tags.length,
      misses: misses.slice(0, 12).map((t) => `${t.path}:${t.line} ${t.kind} ${t.name}`),
      lost_to_parse_errors: lost.length,
      non_blank_lines: nonBlank,
      coverage: (nonBlank - uncovered.length) / nonBlank,
      uncovered: uncovered.slice(0, 12),
      search_rank1: rank1 / sample.length,
      search_own_top5: own5 / sample.length,
      search_misses: searchMisses.slice(0, 10),
      verified_edges: edges.length,
      callers_sampled: picked.length,
      callers_correct: correct,
      // Unchecked edges count as wrong until checked: precision is over the whole sample.
      callers_precision: picked.length === 0 ? null : correct / picked.length,
      callers_wrong: checked.filter((c) => !c.correct).map((c) => `${c.id}: ${c.verdict}`),
      callers_unchecked: unchecked,
    };
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main() {
  const missing = missingBuild();
  if (missing) throw new BenchError(`${missing} is missing: run \`npm run build\` first`);
  if (!/Universal Ctags/.test(have("ctags", ["--version"]) ?? "")) throw new BenchError("universal-ctags is missing: apt-get install -y universal-ctags");
  const Database = (await import("better-sqlite3")).default;
  const verdicts = JSON.parse(fs.readFileSync(FIXTURE, "utf8"));
  const only = process.argv[2];
  const results = [];
  for (const [language, c] of Object.entries(BREADTH_CORPORA)) {
    if (only && only !== language) continue;
    process.stderr.write(`${language}: ${c.name} ${c.version} ...\n`);
    results.push(await measureLanguage(language, c, Database, verdicts));
  }
  const lines = [
    `breadth languages against universal-ctags (${MAST ? "mast " + path.relative(REPO, MAST) : ""})`,
    "",
    `${pad("language", 9)}${pad("corpus", 17)}${pad("files", 7)}${pad("recall", 8)}${pad("lost", 6)}${pad("coverage", 10)}${pad("rank-1", 8)}${pad("own top5", 10)}${pad("callers", 9)}${pad("mast ms", 9)}ctags ms`,
  ];
  for (const r of results) {
    lines.push(
      `${pad(r.language, 9)}${pad(r.corpus, 17)}${pad(r.files, 7)}${pad(fmt(r.recall, 3), 8)}${pad(r.lost_to_parse_errors, 6)}${pad(fmt(r.coverage, 4), 10)}${pad(fmt(r.search_rank1, 2), 8)}${pad(fmt(r.search_own_top5, 2), 10)}${pad(`${r.callers_correct}/${r.callers_sampled}`, 9)}${pad(r.mast_index_ms, 9)}${r.ctags_ms}`,
    );
  }
  lines.push("", "targets");
  for (const r of results) {
    lines.push(
      `  ${pad(r.language, 8)} recall ≥ ${TARGETS.recall} ${verdict(r.recall >= TARGETS.recall)}  coverage ${TARGETS.coverage} ${verdict(r.coverage >= TARGETS.coverage)}  lost 0 ${verdict(r.lost_to_parse_errors === 0)}  rank-1 ≥ ${TARGETS.search_rank1} ${verdict(r.search_rank1 >= TARGETS.search_rank1)}  callers ≥ ${TARGETS.callers_precision} ${verdict(r.callers_precision !== null && r.callers_precision >= TARGETS.callers_precision)}`,
    );
  }
  const notes = [];
  for (const r of results) {
    if (r.misses.length > 0) notes.push(`${r.language} misses: ${r.misses.join("; ")}`);
    if (r.uncovered.length > 0) notes.push(`${r.language} uncovered: ${r.uncovered.join(" | ")}`);
    if (r.search_misses.length > 0) notes.push(`${r.language} search rank-1 misses: ${r.search_misses.join("; ")}`);
    if (r.callers_wrong.length > 0) notes.push(`${r.language} wrong callers: ${r.callers_wrong.join("; ")}`);
    for (const u of r.callers_unchecked) notes.push(`${r.language} unchecked caller (add a verdict to ${path.relative(REPO, FIXTURE)}): "${u.id}" [${u.resolution}] ${u.context}`);
  }
  publish(lines, notes, path.join(OUT_DIR, "breadth-accuracy.json"), { env: machineFacts(), targets: TARGETS, results });
  return 0;
}

await runBench(main);
