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
import ts from "typescript";
import { BenchError, MAST_EXCLUDED_DIRS, OUT_DIR, indexCorpus, missingBuild, openTools, prng, publish, runBench, shuffled } from "./corpus.mjs";

const LIMIT = 10;
const TOP = 5;
/** Kinds whose whole population is also measured (up to this many each) when the uniform draw holds few of them. */
const KIND_CAP = 100;
const SOURCE_FILE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

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

function tsFiles(dir, rel = "") {
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!MAST_EXCLUDED_DIRS.has(e.name) && !e.name.startsWith(".")) out.push(...tsFiles(dir, r));
    } else if (e.isFile() && SOURCE_FILE.test(e.name) && !e.name.endsWith(".d.ts")) out.push(r);
  }
  return out;
}

const isFunctionValue = (n) => n !== undefined && (ts.isArrowFunction(n) || ts.isFunctionExpression(n));
const lineOf = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
const isFunctionLike = (n) =>
  ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n);

/**
 * Every declaration of one file the compiler's syntax tree names: `{ query, name, kind, path,
 * start, end }`, `kind` one of function | method | nested | namespace | other (classes, interfaces,
 * types, enums, other variables: counted as declarations of their name, never drawn).
 */
function declarationsOf(root, rel) {
  const kind = /\.[mc]?jsx?$/.test(rel) ? (rel.endsWith("x") ? ts.ScriptKind.JSX : ts.ScriptKind.JS) : rel.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(rel, fs.readFileSync(path.join(root, rel), "utf8"), ts.ScriptTarget.Latest, true, kind);
  const out = [];
  const add = (query, name, kind, node) => out.push({ query, name, kind, path: rel, start: lineOf(sf, node.getStart(sf)), end: lineOf(sf, node.getEnd()) });
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.name) add(st.name.text, st.name.text, st.body ? "function" : "other", st);
    else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) add(d.name.text, d.name.text, isFunctionValue(d.initializer) ? "function" : "other", d);
    } else if (ts.isClassDeclaration(st) && st.name) {
      add(st.name.text, st.name.text, "other", st);
      for (const m of st.members) {
        const fn = ts.isMethodDeclaration(m) || (ts.isPropertyDeclaration(m) && isFunctionValue(m.initializer));
        if (fn && m.name && (ts.isIdentifier(m.name) || ts.isPrivateIdentifier(m.name))) add(`${st.name.text}.${m.name.text}`, m.name.text, "method", m);
      }
    } else if ((ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st)) && st.name) add(st.name.text, st.name.text, "other", st);
    else if (ts.isModuleDeclaration(st) && ts.isIdentifier(st.name) && st.body && ts.isModuleBlock(st.body)) {
      add(st.name.text, st.name.text, "other", st);
      for (const m of st.body.statements) {
        const exported = m.modifiers?.some((x) => x.kind === ts.SyntaxKind.ExportKeyword);
        if (!exported) continue;
        if (ts.isFunctionDeclaration(m) && m.name && m.body) add(`${st.name.text}.${m.name.text}`, m.name.text, "namespace", m);
        else if (ts.isVariableStatement(m))
          for (const d of m.declarationList.declarations) if (ts.isIdentifier(d.name) && isFunctionValue(d.initializer)) add(`${st.name.text}.${d.name.text}`, d.name.text, "namespace", d);
      }
    }
  }
  // `export { local as name }`: `name` is declared where `local` is.
  for (const st of sf.statements) {
    if (!ts.isExportDeclaration(st) || st.moduleSpecifier || !st.exportClause || !ts.isNamedExports(st.exportClause)) continue;
    for (const spec of st.exportClause.elements) {
      const local = spec.propertyName?.text;
      const at = local === undefined ? undefined : out.find((d) => d.query === local);
      if (at) out.push({ ...at, query: spec.name.text, name: spec.name.text, kind: "other" });
    }
  }
  // Function declarations whose nearest enclosing function is a function or method: nested functions.
  const visit = (node, insideFunction) => {
    if (ts.isFunctionDeclaration(node) && node.name && node.body && insideFunction) add(node.name.text, node.name.text, "nested", node);
    const inside = insideFunction || isFunctionLike(node);
    ts.forEachChild(node, (c) => visit(c, inside));
  };
  visit(sf, false);
  // Overloads are one declaration (the first signature's line to the implementation's end).
  const merged = new Map();
  for (const d of out) {
    const key = d.kind === "nested" || d.kind === "other" ? `${d.kind}\0${d.query}\0${d.start}` : `${d.kind}\0${d.query}`;
    const prev = merged.get(key);
    if (prev) prev.end = Math.max(prev.end, d.end);
    else merged.set(key, d);
  }
  return [...merged.values()];
}

const tail = (name) => name.slice(name.lastIndexOf(".") + 1);
/** A search result is declaration `d`: its file, its declared name, lines overlapping. */
const isDecl = (r, d) => r.file_path === d.path && r.symbol_name !== null && tail(r.symbol_name) === d.name && r.start_line <= d.end && r.end_line >= d.start;

async function measureCorpus(root, args, notes) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-search-names-"));
  try {
    const t0 = Date.now();
    indexCorpus(stateDir, root);
    const indexMs = Date.now() - t0;
    const db = new Database(path.join(stateDir, "graph.db"), { readonly: true });
    const indexed = new Map(db.prepare("SELECT path, is_test FROM files").all().map((r) => [r.path, r.is_test === 1]));
    db.close();
    const decls = tsFiles(root)
      .filter((f) => indexed.has(f))
      .flatMap((f) => declarationsOf(root, f));
    const byQuery = new Map();
    for (const d of decls) {
      const q = d.kind === "method" || d.kind === "namespace" ? d.query : d.name;
      (byQuery.get(q) ?? byQuery.set(q, []).get(q)).push(d);
    }
    // A plain name is answered by its functions, nested functions and other declarations, never by a method of that name.
    const answers = (q) => (byQuery.get(q) ?? []).filter((d) => (q.includes(".") ? d.kind === "method" || d.kind === "namespace" : d.kind !== "method" && d.kind !== "namespace"));
    const drawable = decls.filter((d) => d.kind !== "other" && d.name.length >= 2);
    const rand = prng(args.seed);
    const sample = shuffled(drawable, rand).slice(0, args.sample);
    const kinds = ["function", "method", "nested", "namespace"];
    // Rare kinds also measured over their whole population (capped), so a fix for them shows.
    const extra = kinds.flatMap((k) => {
      const inSample = sample.filter((d) => d.kind === k).length;
      return inSample >= 30 ? [] : shuffled(drawable.filter((d) => d.kind === k), rand).slice(0, KIND_CAP).map((d) => ({ ...d, extra: true }));
    });
    const { ctx, callTool } = await openTools(stateDir, root);
    const outcomes = [];
    try {
      for (const d of [...sample, ...extra]) {
        const query = d.kind === "method" || d.kind === "namespace" ? d.query : d.name;
        const response = await callTool(ctx, "mast_search", { query, limit: LIMIT });
        const results = response.results;
        const first = results[0];
        const rank1 = first !== undefined && answers(query).some((a) => isDecl(first, a));
        const own = results.findIndex((r) => isDecl(r, d));
        outcomes.push({ ...d, query, test: indexed.get(d.path), namesakes: answers(query).length, rank1, ownRank: own < 0 ? null : own + 1, top: results.slice(0, 3).map((r) => `${r.file_path}:${r.start_line} ${r.symbol_name ?? "(none)"}${r.is_test ? " [test]" : ""}`) });
      }
      const concepts = [];
      for (const c of args.concepts) {
        const response = await callTool(ctx, "mast_search", { query: c.query, limit: LIMIT });
        const at = response.results.findIndex((r) => r.file_path.startsWith(c.expect));
        concepts.push({ ...c, rank: at < 0 ? null : at + 1, top: response.results.slice(0, TOP).map((r) => `${r.file_path}:${r.start_line}-${r.end_line} ${r.symbol_name ?? "(none)"}${r.is_test ? " [test]" : ""}`) });
      }
      return { root, indexMs, files: indexed.size, declarations: decls.length, drawable: drawable.length, outcomes, concepts };
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
    for (const k of ["function", "method", "nested", "namespace"]) {
      const all = m.outcomes.filter((o) => o.kind === k && (o.extra || !m.outcomes.some((x) => x.extra && x.kind === k)));
      if (all.length > 0) lines.push(row(`${k}${all.some((o) => o.extra) ? " (all, capped)" : ""}`, all));
    }
    lines.push(row("in test files", sampled.filter((o) => o.test)));
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
