#!/usr/bin/env node
// Exact-name search on real repositories (issue 34): declarations drawn with the TypeScript
// compiler from a corpus directory's TypeScript and JavaScript files — top-level functions by name, class methods as `Class.method`,
// functions nested in functions by their own name, namespace members as `Ns.f`; test files counted
// — each searched for with mast_search by that name. Rank-1: the first result is a declaration of
// exactly that name (any file; a method is not a declaration of its bare name). Top-5: the drawn
// declaration itself is among the first five. A result is a declaration when its file is the
// declaration's, its symbol's last `.`-segment is the declared name and its lines overlap the
// declaration's. Concept queries (`--concept "query=>path"`) report where the first result from
// that path ranks and the first five results.
//
//   npm run build
//   npm run bench:search-names -- --corpus /tmp/search/zod/packages [--corpus DIR ...] [--sample 200] [--seed N]
//   npm run bench:search-names -- --corpus /tmp/search/httpx --concept "follow redirects=>httpx/_client.py"
//
// Corpora are directories (e.g. `git archive` of a mirror); each is indexed fresh into a temp state
// dir with dist/bin/mast.js. This is a report: it exits 0 whatever the figures, 1 when something
// could not run. Figures go to bench/.out/search-names.json.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { BenchError, MAST_EXCLUDED_DIRS, OUT_DIR, indexCorpus, missingBuild, openTools, prng, publish, runBench, shuffled } from "./corpus.mjs";
import { DRAWN_KINDS, SOURCE_FILE, answersIndex, declarationsOf, drawDeclarations, isDecl, queryOf, sourceFiles } from "./declarations.mjs";

const LIMIT = 10;
const TOP = 5;
/** Kinds whose whole population is also measured (up to this many each) when the uniform draw holds few of them. */
const KIND_CAP = 100;

function parseArgs(argv) {
  const out = { corpora: [], sample: 200, seed: 20260834, concepts: [], misses: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new BenchError(`${a} needs a value`);
      return v;
    };
    if (a === "--corpus") out.corpora.push(path.resolve(next()));
    else if (a === "--sample") out.sample = Number(next());
    else if (a === "--seed") out.seed = Number(next());
    else if (a === "--concept") {
      const [query, expect] = next().split("=>");
      if (!query || !expect) throw new BenchError(`--concept takes "query=>path", got ${argv[i]}`);
      out.concepts.push({ query: query.trim(), expect: expect.trim() });
    } else if (a === "--misses") out.misses = true;
    else throw new BenchError(`unknown argument ${a}`);
  }
  if (out.corpora.length === 0) throw new BenchError("give at least one --corpus DIR");
  return out;
}

async function measureCorpus(root, args, notes) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-search-names-"));
  try {
    const t0 = Date.now();
    indexCorpus(stateDir, root);
    const indexMs = Date.now() - t0;
    const db = new Database(path.join(stateDir, "graph.db"), { readonly: true });
    const indexed = new Map(
      db
        .prepare("SELECT path, is_test FROM files")
        .all()
        .map((r) => [r.path, r.is_test === 1]),
    );
    db.close();
    const decls = sourceFiles(root, (name) => SOURCE_FILE.test(name) && !name.endsWith(".d.ts"), MAST_EXCLUDED_DIRS)
      .filter((f) => indexed.has(f))
      .flatMap((f) => declarationsOf(root, f));
    const answers = answersIndex(decls);
    const { drawable, drawn } = drawDeclarations(decls, { sample: args.sample, rand: prng(args.seed), shuffled, kindCap: KIND_CAP });
    const { ctx, callTool } = await openTools(stateDir, root);
    const outcomes = [];
    try {
      for (const d of drawn) {
        const query = queryOf(d);
        const response = await callTool(ctx, "mast_search", { query, limit: LIMIT });
        const results = response.results;
        const first = results[0];
        const rank1 = first !== undefined && answers(query).some((a) => isDecl(first, a));
        const own = results.findIndex((r) => isDecl(r, d));
        outcomes.push({
          ...d,
          query,
          test: indexed.get(d.path),
          namesakes: answers(query).length,
          rank1,
          ownRank: own < 0 ? null : own + 1,
          top: results.slice(0, 3).map((r) => `${r.file_path}:${r.start_line} ${r.symbol_name ?? "(none)"}${r.is_test ? " [test]" : ""}`),
        });
      }
      const concepts = [];
      for (const c of args.concepts) {
        const response = await callTool(ctx, "mast_search", { query: c.query, limit: LIMIT });
        const at = response.results.findIndex((r) => r.file_path.startsWith(c.expect));
        concepts.push({
          ...c,
          rank: at < 0 ? null : at + 1,
          top: response.results.slice(0, TOP).map((r) => `${r.file_path}:${r.start_line}-${r.end_line} ${r.symbol_name ?? "(none)"}${r.is_test ? " [test]" : ""}`),
        });
      }
      return { root, indexMs, files: indexed.size, declarations: decls.length, drawable, outcomes, concepts };
    } finally {
      ctx.close();
    }
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

const share = (xs, pred) => (xs.length === 0 ? null : xs.filter(pred).length / xs.length);
const pct = (x) => (x === null ? "  n/a" : `${(100 * x).toFixed(1).padStart(5)}%`);
const inTop = (o) => o.ownRank !== null && o.ownRank <= TOP;
/** Top-5 is judged where a ranking can meet it: names with at most five declarations (the others are counted apart). */
const rankable = (xs) => xs.filter((o) => o.namesakes <= TOP);
const row = (label, xs) =>
  `  ${label.padEnd(22)} ${String(xs.length).padStart(4)}  rank-1 ${pct(share(xs, (o) => o.rank1))}  top-5 ${pct(share(rankable(xs), inTop))}` +
  (rankable(xs).length < xs.length ? ` (${xs.length - rankable(xs).length} with more than ${TOP} namesakes left out)` : "");

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const missing = missingBuild();
  if (missing) throw new BenchError(`${missing} is missing: run \`npm run build\` first`);
  const lines = [`search-names: exact-name mast_search on real repositories (sample ${args.sample}, seed ${args.seed}, limit ${LIMIT}; ${os.cpus().length} cores)`];
  const notes = [];
  const figures = [];
  for (const root of args.corpora) {
    const m = await measureCorpus(root, args, notes);
    const sampled = m.outcomes.filter((o) => !o.extra);
    lines.push("", `${root}: ${m.files} files indexed in ${(m.indexMs / 1000).toFixed(1)} s, ${m.declarations} declarations, ${m.drawable} drawable`);
    lines.push(row("sample", sampled));
    for (const k of DRAWN_KINDS) {
      const all = m.outcomes.filter((o) => o.kind === k && (o.extra || !m.outcomes.some((x) => x.extra && x.kind === k)));
      if (all.length > 0) lines.push(row(`${k}${all.some((o) => o.extra) ? " (all, capped)" : ""}`, all));
    }
    lines.push(
      row(
        "in test files",
        sampled.filter((o) => o.test),
      ),
    );
    const misses = m.outcomes.filter((o) => !o.rank1 || (o.namesakes <= TOP && !inTop(o)));
    if (args.misses || misses.length <= 12)
      for (const o of misses) lines.push(`    miss [${o.kind}] ${JSON.stringify(o.query)} (${o.path}:${o.start}) own rank ${o.ownRank ?? "-"}; first: ${o.top[0] ?? "none"}`);
    else lines.push(`    ${misses.length} misses (--misses lists them)`);
    for (const c of m.concepts) {
      lines.push(`  concept ${JSON.stringify(c.query)}: first from ${c.expect} at rank ${c.rank ?? "-"}`);
      c.top.forEach((t, i) => lines.push(`    ${i + 1}. ${t}`));
    }
    figures.push({
      root,
      files: m.files,
      declarations: m.declarations,
      sample: { n: sampled.length, rank1: share(sampled, (o) => o.rank1), top5: share(rankable(sampled), inTop), top5_n: rankable(sampled).length },
      outcomes: m.outcomes,
      concepts: m.concepts,
    });
  }
  publish(lines, notes, path.join(OUT_DIR, "search-names.json"), { sample: args.sample, seed: args.seed, corpora: figures });
  return 0;
}

await runBench(main);
