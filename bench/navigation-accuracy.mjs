#!/usr/bin/env node
// Navigation-accuracy bench: how right mast_definition and mast_references are at positions of
// real TypeScript code, judged against the TypeScript compiler's own getDefinitionAtPosition and
// findReferences (fields and properties included), on a corpus indexed fresh.
//
//   npm run build && npm run bench:navigation -- --corpus <dir> [--checker]
//   (e.g. git --git-dir=/work/.mirror/trpc+trpc/repo archive HEAD packages | tar -x -C /tmp/trpc;
//    npm run bench:navigation -- --corpus /tmp/trpc/packages)
//
// 1. The corpus (--corpus <dir>; default: the pinned corpus of bench/corpus.mjs) is indexed into a
//    temp --state-dir with dist/'s mast (with --checker: `mast index --checker`, the compiler's
//    verdicts on call edges).
// 2. One ts.LanguageService over its .ts/.tsx files (bench/ts-host.mjs). Identifier positions are
//    drawn with a seeded PRNG in five kinds — property accesses (`o.p`), calls (`f()`, `o.m()`),
//    field and property declarations, variable and parameter uses, import bindings — keeping
//    those whose compiler definition is in the corpus (a lib or package type is no corpus answer).
// 3. mast_definition at each position (in-process, dist/tools/registry.js callTool): a definition
//    is right when the compiler's definitions include its file:line. Precision over every
//    definition mast gives, and over the resolved ones (resolution other than name); recall: the
//    positions where mast gives a compiler definition.
// 4. mast_references at the first REFERENCE_POSITIONS of them per kind, verified_limit 10,000 and
//    potential_limit 1,000, a cut potential list read on page by page (summary.next): its lines
//    (file:line) against the lines of findReferences' references in the corpus — verified, and
//    verified ∪ potential — pooled (micro) and per position (macro); the first page's recall too.
// 5. Each call's time (p50, p95) on this machine.
//
// A report, not a test: exits 0 whether targets PASS or MISS, non-zero only when something could
// not run. Figures go to bench/.out/navigation-accuracy.<corpus basename>.json.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import ts from "typescript";
import { corpusLanguageService } from "./ts-host.mjs";
import { oracleOptions } from "./ts-oracle.mjs";
import {
  BenchError,
  CORPUS,
  KEEP_SOURCE,
  MAST_EXCLUDED_DIRS,
  OUT_DIR,
  REPO,
  ensureCorpus,
  fmt,
  indexCorpus,
  listFiles,
  lpad,
  missingBuild,
  openTools,
  pad,
  percentile,
  prng,
  publish,
  round,
  runBench,
  shuffled,
  verdict,
} from "./corpus.mjs";

/** The sample's seed ("navi"). */
const SEED = 0x6e617669;
const KINDS = ["property", "call", "field", "variable", "import"];

/**
 * The lines a compiler definition may be named by: its own, and — for one overload of a function
 * or method — the first overload's, which mast names the overloads by (they are one declaration
 * there; the compiler picks the overload a call matches).
 */
function overloadLines(program, d) {
  const sf = program.getSourceFile(d.fileName);
  const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const own = line(d.textSpan.start);
  let node = ts.getTokenAtPosition(sf, d.textSpan.start);
  while (node && !ts.isFunctionDeclaration(node) && !ts.isMethodDeclaration(node) && !ts.isMethodSignature(node)) node = node.parent;
  if (!node?.name || !node.parent) return [own];
  const siblings = ts.isSourceFile(node.parent) || ts.isModuleBlock(node.parent) ? node.parent.statements : (node.parent.members ?? []);
  const index = siblings.indexOf(node);
  let first = index;
  while (first > 0 && siblings[first - 1].kind === node.kind && siblings[first - 1].name?.getText(sf) === node.name.getText(sf)) first--;
  return first === index ? [own] : [own, line(siblings[first].name.getStart(sf))];
}
/** Definition positions per kind, and how many of them also get a references query. */
const DEFINITION_POSITIONS = 80;
const REFERENCE_POSITIONS = 25;
/** definition_precision is over the definitions mast asserts (resolution other than name); name candidates are reported beside it. */
const TARGETS = { definition_precision: 0.99, references_recall: 0.95 };

const posix = (p) => p.split(path.sep).join("/");

/** The kind of an identifier's position, or null for one the sample does not draw. */
function kindOf(node) {
  const p = node.parent;
  if (!p) return null;
  if (ts.isImportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p)) return "import";
  if ((ts.isPropertyDeclaration(p) || ts.isPropertySignature(p) || ts.isPropertyAssignment(p)) && p.name === node) return "field";
  const callee = (n) => (ts.isCallExpression(n.parent) || ts.isNewExpression(n.parent)) && n.parent.expression === n;
  if (ts.isPropertyAccessExpression(p) && p.name === node) return callee(p) ? "call" : "property";
  if (callee(node)) return "call";
  if (ts.isDeclaration(p) && p.name === node) return null;
  if (ts.isTypeReferenceNode(p) || ts.isQualifiedName(p) || ts.isExpressionWithTypeArguments(p)) return null;
  return ts.isExpression(node) ? "variable" : null;
}

/** Every identifier position of a source file with its kind. */
function positionsOf(sf) {
  const out = [];
  const visit = (n) => {
    if (ts.isIdentifier(n)) {
      const kind = kindOf(n);
      if (kind) out.push({ kind, pos: n.getStart(sf) });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

async function main() {
  const { values } = parseArgs({ options: { corpus: { type: "string" }, checker: { type: "boolean" } } });
  const missing = missingBuild();
  if (missing) throw new BenchError(`${missing} is missing: run \`npm run build\` first`);
  const root = values.corpus ? path.resolve(values.corpus) : (ensureCorpus(), CORPUS);
  if (!fs.existsSync(root)) throw new BenchError(`no such corpus directory: ${root}`);
  const outJson = path.join(OUT_DIR, `navigation-accuracy${values.corpus ? `.${path.basename(path.dirname(root))}-${path.basename(root)}` : ""}${values.checker ? ".checker" : ""}.json`);
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-nav-bench-"));
  try {
    const indexed = indexCorpus(stateDir, root, values.checker ? ["--checker"] : []);
    const files = listFiles(root)
      .filter((f) => KEEP_SOURCE.test(f) && !f.endsWith(".d.ts") && !f.split("/").some((part) => MAST_EXCLUDED_DIRS.has(part)))
      .map((f) => path.join(root, f));
    if (files.length === 0) throw new BenchError(`no .ts/.tsx files under ${root}`);
    // The compiler resolves imports as the project's editor does (bench/ts-oracle.mjs: workspace packages, tsconfig `paths`).
    const ls = corpusLanguageService(root, files, oracleOptions(root));
    const program = ls.getProgram();
    const inCorpus = (f) => f.startsWith(`${root}${path.sep}`) && !f.endsWith(".d.ts");
    const rel = (f) => posix(path.relative(root, f));
    const lineOf = (file, pos) => program.getSourceFile(file).getLineAndCharacterOfPosition(pos).line + 1;

    // The sample: positions by kind, in a seeded order, whose compiler definition is in the corpus.
    const rand = prng(SEED);
    const byKind = Object.fromEntries(KINDS.map((k) => [k, []]));
    for (const file of files) {
      const sf = program.getSourceFile(file);
      if (!sf) continue;
      for (const p of positionsOf(sf)) byKind[p.kind].push({ file, ...p });
    }
    const sample = [];
    for (const kind of KINDS) {
      let taken = 0;
      for (const p of shuffled(byKind[kind], rand)) {
        if (taken >= DEFINITION_POSITIONS) break;
        const defs = (ls.getDefinitionAtPosition(p.file, p.pos) ?? []).filter((d) => inCorpus(d.fileName));
        if (defs.length === 0) continue;
        taken++;
        sample.push({ ...p, oracle: new Set(defs.flatMap((d) => overloadLines(program, d).map((line) => `${rel(d.fileName)}:${line}`))), references: taken <= REFERENCE_POSITIONS });
      }
    }

    const { ctx, callTool } = await openTools(stateDir, root);
    const defTimes = [];
    const refTimes = [];
    const perKind = Object.fromEntries(KINDS.map((k) => [k, { positions: 0, given: 0, right: 0, resolved_given: 0, resolved_right: 0, found: 0 }]));
    const refs = {
      positions: 0,
      oracle: 0,
      verified: 0,
      verified_right: 0,
      all: 0,
      all_right: 0,
      verified_recall_sum: 0,
      all_recall_sum: 0,
      verified_precision_sum: 0,
      verified_answered: 0,
      first_page_right: 0,
      pages: 0,
    };
    const misses = [];
    const refMisses = [];
    const refPositions = [];
    try {
      for (const s of sample) {
        const sf = program.getSourceFile(s.file);
        const lc = sf.getLineAndCharacterOfPosition(s.pos);
        const at = { file_path: rel(s.file), line: lc.line + 1, column: lc.character + 1 };
        const k = perKind[s.kind];
        k.positions++;
        let answer;
        const t0 = performance.now();
        try {
          answer = await callTool(ctx, "mast_definition", at);
        } catch (err) {
          answer = { resolution: "error", definitions: [], error: String(err.message ?? err) };
        }
        defTimes.push(performance.now() - t0);
        const keys = answer.definitions.map((d) => `${d.file_path}:${d.line}`);
        const right = keys.filter((key) => s.oracle.has(key)).length;
        k.given += keys.length;
        k.right += right;
        if (answer.resolution !== "name") {
          k.resolved = (k.resolved ?? 0) + 1;
          k.resolved_given += keys.length;
          k.resolved_right += right;
        }
        if (right > 0) k.found++;
        else if ((k.unfound ??= []).length < 12)
          k.unfound.push({
            at: `${at.file_path}:${at.line}:${at.column}`,
            text: sf.text.slice(s.pos, s.pos + 40).split("\n")[0],
            resolution: answer.resolution,
            mast: keys.slice(0, 3),
            oracle: [...s.oracle],
          });
        if (right < keys.length && answer.resolution !== "name" && misses.length < 20)
          misses.push({
            kind: s.kind,
            at: `${at.file_path}:${at.line}:${at.column}`,
            text: sf.text.slice(s.pos, s.pos + 30).split("\n")[0],
            mast: keys,
            resolution: answer.resolution,
            oracle: [...s.oracle],
          });
        if (!s.references) continue;
        // References: the compiler's lines against mast's.
        const oracleLines = new Set();
        for (const group of ls.findReferences(s.file, s.pos) ?? [])
          for (const r of group.references) if (inCorpus(r.fileName)) oracleLines.add(`${rel(r.fileName)}:${lineOf(r.fileName, r.textSpan.start)}`);
        const t1 = performance.now();
        let r;
        try {
          r = await callTool(ctx, "mast_references", { ...at, verified_limit: 10_000, potential_limit: 1000 });
        } catch {
          r = { verified: [], potential: [] };
        }
        refTimes.push(performance.now() - t1);
        const linesOf = (groups) => groups.flatMap((g) => g.sites.map((site) => `${g.file_path}:${/^\d+/.exec(site)[0]}`));
        const verified = new Set(linesOf(r.verified));
        const firstPage = new Set([...verified, ...linesOf(r.potential)]);
        // The rest of a cut list, page by page through summary.next (as an agent that wants it all would).
        const all = new Set(firstPage);
        for (let next = r.summary?.next; next?.potential_offset !== undefined; ) {
          const more = await callTool(ctx, "mast_references", { ...at, ...next, verified_limit: 1, potential_limit: 1000 });
          for (const line of linesOf(more.potential)) all.add(line);
          refs.pages++;
          next = more.summary?.next;
        }
        const hit = (set) => [...set].filter((x) => oracleLines.has(x)).length;
        refs.positions++;
        refs.oracle += oracleLines.size;
        refs.verified += verified.size;
        refs.verified_right += hit(verified);
        refs.all += all.size;
        refs.all_right += hit(all);
        refs.first_page_right += hit(firstPage);
        const recallOf = (set) => (oracleLines.size === 0 ? 1 : [...oracleLines].filter((x) => set.has(x)).length / oracleLines.size);
        for (const line of oracleLines) if (!all.has(line) && refMisses.length < 30) refMisses.push({ at: `${at.file_path}:${at.line}:${at.column}`, missed: line });
        refPositions.push({
          kind: s.kind,
          at: `${at.file_path}:${at.line}:${at.column}`,
          text: sf.text.slice(s.pos, s.pos + 30).split("\n")[0],
          resolution: r.resolution ?? null,
          declaration: r.declaration ? `${r.declaration.file_path}:${r.declaration.line} ${r.declaration.name}` : null,
          oracle: oracleLines.size,
          verified_right: hit(verified),
          all_right: hit(all),
          summary: r.summary ?? null,
          missed: [...oracleLines].filter((x) => !all.has(x)).slice(0, 5),
        });
        refs.verified_recall_sum += recallOf(verified);
        refs.all_recall_sum += recallOf(all);
        if (verified.size > 0) {
          refs.verified_precision_sum += hit(verified) / verified.size;
          refs.verified_answered++;
        }
      }
    } finally {
      ctx.close();
    }

    const sum = (f) => KINDS.reduce((a, k) => a + f(perKind[k]), 0);
    const ratio = (a, b) => (b === 0 ? null : a / b);
    const definition = {
      positions: sum((k) => k.positions),
      precision: ratio(
        sum((k) => k.right),
        sum((k) => k.given),
      ),
      resolved_precision: ratio(
        sum((k) => k.resolved_right),
        sum((k) => k.resolved_given),
      ),
      recall: ratio(
        sum((k) => k.found),
        sum((k) => k.positions),
      ),
      by_kind: Object.fromEntries(
        KINDS.map((kind) => [kind, { ...perKind[kind], precision: round(ratio(perKind[kind].right, perKind[kind].given)), recall: round(ratio(perKind[kind].found, perKind[kind].positions)) }]),
      ),
    };
    const references = {
      positions: refs.positions,
      oracle_lines: refs.oracle,
      verified_precision: ratio(refs.verified_right, refs.verified),
      verified_recall: ratio(refs.verified_right, refs.oracle),
      all_precision: ratio(refs.all_right, refs.all),
      all_recall: ratio(refs.all_right, refs.oracle),
      first_page_recall: ratio(refs.first_page_right, refs.oracle),
      further_pages: refs.pages,
      macro_verified_precision: ratio(refs.verified_precision_sum, refs.verified_answered),
      macro_verified_recall: ratio(refs.verified_recall_sum, refs.positions),
      macro_all_recall: ratio(refs.all_recall_sum, refs.positions),
    };
    const timing = {
      definition_p50_ms: percentile(defTimes, 0.5),
      definition_p95_ms: percentile(defTimes, 0.95),
      references_p50_ms: percentile(refTimes, 0.5),
      references_p95_ms: percentile(refTimes, 0.95),
    };
    const lines = [
      `navigation accuracy — ${rel(root) || root} (${files.length} TypeScript files, ${indexed.report.indexed_files ?? "?"} indexed${values.checker ? ", checker pass" : ""}; ${os.cpus().length} cores)`,
      "",
      `mast_definition at ${definition.positions} positions (${KINDS.map((k) => `${k} ${perKind[k].positions}`).join(", ")})`,
      `  ${pad("precision (resolved: scope/import/type/checker)", 44)} ${lpad(fmt(definition.resolved_precision, 3), 6)}   target ≥ ${TARGETS.definition_precision}  ${verdict(definition.resolved_precision === null ? null : definition.resolved_precision >= TARGETS.definition_precision)}`,
      `  ${pad("precision (name candidates counted too)", 44)} ${lpad(fmt(definition.precision, 3), 6)}`,
      `  ${pad("positions resolved (not by name)", 44)} ${lpad(
        fmt(
          ratio(
            sum((k) => k.resolved),
            definition.positions,
          ),
          3,
        ),
        6,
      )}`,
      `  ${pad("recall (a compiler definition given)", 44)} ${lpad(fmt(definition.recall, 3), 6)}`,
      ...KINDS.map((k) => `    ${pad(k, 10)} precision ${fmt(ratio(perKind[k].right, perKind[k].given), 3)}  recall ${fmt(ratio(perKind[k].found, perKind[k].positions), 3)}`),
      "",
      `mast_references at ${references.positions} positions (${references.oracle_lines} compiler reference lines)`,
      `  ${pad("verified precision / recall", 44)} ${lpad(fmt(references.verified_precision, 3), 6)} / ${fmt(references.verified_recall, 3)}`,
      `  ${pad("verified ∪ potential precision / recall", 44)} ${lpad(fmt(references.all_precision, 3), 6)} / ${fmt(references.all_recall, 3)}   recall target ≥ ${TARGETS.references_recall}  ${verdict(references.all_recall === null ? null : references.all_recall >= TARGETS.references_recall)}`,
      `  ${pad("first page only (potential_limit 1,000)", 44)} ${lpad(fmt(references.first_page_recall, 3), 6)}   (${references.further_pages} further pages read through summary.next)`,
      `  ${pad("per position: verified precision / recall, all recall", 44)} ${lpad(fmt(references.macro_verified_precision, 3), 6)} / ${fmt(references.macro_verified_recall, 3)}, ${fmt(references.macro_all_recall, 3)}`,
      "",
      `time per call: definition p50 ${fmt(timing.definition_p50_ms, 1)} ms, p95 ${fmt(timing.definition_p95_ms, 1)} ms; references p50 ${fmt(timing.references_p50_ms, 1)} ms, p95 ${fmt(timing.references_p95_ms, 1)} ms`,
    ];
    if (misses.length > 0)
      lines.push(
        "",
        "resolved definitions the compiler does not give (first 20)",
        ...misses.map((m) => `  ${m.kind} ${m.at} ${JSON.stringify(m.text)} → ${m.mast.join(", ")} [${m.resolution}]; compiler: ${m.oracle.join(", ")}`),
      );
    const notes = [`seed ${SEED.toString(16)}, ${DEFINITION_POSITIONS} definition and ${REFERENCE_POSITIONS} references positions per kind`, `index: ${round(indexed.wall_ms / 1000, 1)} s`];
    publish(lines, notes, outJson, {
      corpus: root,
      files: files.length,
      targets: TARGETS,
      definition,
      references,
      timing,
      misses,
      reference_misses: refMisses,
      reference_positions: refPositions,
      repo: path.relative(REPO, root),
    });
    return 0;
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

await runBench(main);
