// The TypeScript compiler as the callers oracle the benches share (callers-accuracy, structural):
// one ts.LanguageService over a corpus; a declaration located from an index row (its member name
// on the row's line or a few after); its call sites from findReferences — a reference that is the
// callee of a call, `new`, decorator or tagged template and that the checker resolves (through
// import aliases) to this very declaration; calls resolving to related declarations (overrides,
// interface members) kept apart; and precision/recall of a predictor's path:line keys.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import ts from "typescript";
import { BenchError } from "./corpus.mjs";
import { COMPILER_OPTIONS, corpusLanguageService } from "./ts-host.mjs";

/** The declaration's name is looked for on the symbol row's line and this many lines after it. */
export const DECLARATION_LOOKAHEAD = 6;
const posix = (p) => p.split(path.sep).join("/");
export const siteKey = (file, line) => `${file}:${line}`;

const NAMED_DECLARATION = [
  ts.isFunctionDeclaration,
  ts.isMethodDeclaration,
  ts.isPropertyDeclaration,
  ts.isVariableDeclaration,
  ts.isGetAccessorDeclaration,
  ts.isSetAccessorDeclaration,
  ts.isMethodSignature,
  ts.isPropertySignature,
  ts.isPropertyAssignment,
  ts.isFunctionExpression,
];

/** The Identifier (or private name, or string literal) that starts at pos, or null. */
function nameAt(sf, pos) {
  let node = sf;
  for (;;) {
    const next = ts.forEachChild(node, (c) => (c.pos <= pos && pos < c.end ? c : undefined));
    if (!next) return (ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isStringLiteral(node)) && node.getStart(sf) === pos ? node : null;
    node = next;
  }
}

/** A symbol as "Owner.member (path:line)" of its first declaration (a lib file by its name), for the related call sites. */
function describe(checker, symbol, root) {
  const d = symbol.declarations?.[0];
  if (!d) return checker.symbolToString(symbol);
  const sf = d.getSourceFile();
  const owner = (ts.isClassLike(d.parent) || ts.isInterfaceDeclaration(d.parent)) && d.parent.name ? `${d.parent.name.text}.` : "";
  const file = sf.fileName.startsWith(`${root}${path.sep}`) ? posix(path.relative(root, sf.fileName)) : path.basename(sf.fileName);
  return `${owner}${checker.symbolToString(symbol)} (${file}:${sf.getLineAndCharacterOfPosition(d.getStart(sf)).line + 1})`;
}

/** The call, `new`, decorator or tagged template whose callee is this reference, or null. */
function callOf(ref) {
  let n = ref;
  const p = n.parent;
  if ((ts.isPropertyAccessExpression(p) && p.name === n) || (ts.isElementAccessExpression(p) && p.argumentExpression === n)) n = p;
  while (ts.isParenthesizedExpression(n.parent) || ts.isNonNullExpression(n.parent)) n = n.parent;
  const q = n.parent;
  if ((ts.isCallExpression(q) || ts.isNewExpression(q)) && q.expression === n) return q;
  if (ts.isDecorator(q) || (ts.isTaggedTemplateExpression(q) && q.tag === n)) return q;
  return null;
}

/** The package globs of pnpm-workspace.yaml (`- 'glob'` lines under `packages:`; `!` exclusions left out). */
function* pnpmWorkspaces(root) {
  const file = path.join(root, "pnpm-workspace.yaml");
  if (!fs.existsSync(file)) return;
  let inPackages = false;
  for (const line of fs.readFileSync(file, "utf8").split(/\r?\n/)) {
    if (/^packages\s*:/.test(line)) inPackages = true;
    else if (/^\S/.test(line)) inPackages = false;
    else if (inPackages) {
      const m = /^\s*-\s*['"]?([^'"#]+?)['"]?\s*(#.*)?$/.exec(line);
      if (m && !m[1].startsWith("!")) yield m[1].trim();
    }
  }
}

/**
 * The compiler options for a corpus: COMPILER_OPTIONS, plus — for a workspace monorepo — `paths`
 * that resolve each package as an installed, project-referenced workspace does: its name and its
 * deep imports to its directory, and its build output (its tsconfig's outDir, `main`/`types`
 * under it) redirected to its sources (rootDir), as tsserver's project-reference redirects do.
 * Derived from package.json and tsconfig with TypeScript's own config parser, not from mast's.
 */
export function oracleOptions(root) {
  const pkg = ts.readConfigFile(path.join(root, "package.json"), ts.sys.readFile).config;
  const ws = Array.isArray(pkg?.workspaces) ? pkg.workspaces : Array.isArray(pkg?.workspaces?.packages) ? pkg.workspaces.packages : [...pnpmWorkspaces(root)];
  if (ws.length === 0) return COMPILER_OPTIONS;
  const dirs = [];
  for (const pattern of ws) {
    const parts = pattern.replace(/^\.\//, "").replace(/\/+$/, "").split("/");
    let found = [""];
    for (const part of parts) {
      const next = [];
      for (const d of found) {
        if (part === "*" || part === "**") {
          for (const e of fs.readdirSync(path.join(root, d), { withFileTypes: true })) if (e.isDirectory() && e.name !== "node_modules") next.push(d ? `${d}/${e.name}` : e.name);
          if (part === "**") next.push(d);
        } else if (fs.existsSync(path.join(root, d, part))) next.push(d ? `${d}/${part}` : part);
      }
      found = next;
    }
    dirs.push(...found);
  }
  const paths = {};
  /** Each workspace package's tsconfig `paths`, as project-relative substitutions. */
  const packagePaths = {};
  for (const dir of new Set(dirs)) {
    const tsconfig = path.join(root, dir, "tsconfig.json");
    if (!fs.existsSync(tsconfig)) continue;
    const own = ts.parseJsonConfigFileContent(ts.readConfigFile(tsconfig, ts.sys.readFile).config ?? {}, ts.sys, path.join(root, dir)).options;
    const base = own.baseUrl ?? own.pathsBasePath ?? path.join(root, dir);
    packagePaths[dir] = Object.fromEntries(Object.entries(own.paths ?? {}).map(([pattern, subs]) => [pattern, subs.map((sub) => path.relative(root, path.resolve(base, sub)) || ".")]));
  }
  const strip = (p) => p.replace(/\.d\.ts$|\.js$|\.ts$/, "");
  for (const dir of [...new Set(dirs)].sort()) {
    const manifest = ts.readConfigFile(path.join(root, dir, "package.json"), ts.sys.readFile).config;
    if (typeof manifest?.name !== "string" || paths[manifest.name]) continue;
    const name = manifest.name;
    let out = null;
    const tsconfig = path.join(root, dir, "tsconfig.json");
    if (fs.existsSync(tsconfig)) {
      const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(tsconfig, ts.sys.readFile).config ?? {}, ts.sys, path.join(root, dir));
      const { outDir, rootDir } = parsed.options;
      if (outDir && rootDir) out = { outDir: path.relative(path.join(root, dir), outDir), rootDir: path.relative(root, rootDir) };
    }
    const entry = manifest.types ?? manifest.typings ?? manifest.main;
    const source = (rel) => (out && (rel === out.outDir || rel.startsWith(`${out.outDir}/`)) ? `${out.rootDir}${rel.slice(out.outDir.length)}` : `${dir}/${rel}`);
    // The entry's source, else the conventional `src/index` (a bundler's `dist/index.d.cts` has no rootDir to map back from).
    paths[name] = [...(typeof entry === "string" ? [strip(source(path.posix.normalize(entry)))] : []), `${dir}/src/index`, `${dir}/index`];
    if (out) paths[`${name}/${out.outDir}/*`] = [`${out.rootDir}/*`];
    paths[`${name}/*`] = [`${dir}/*`, `${dir}/src/*`];
  }
  // Each package's own `paths` (its tsconfig's, as `tsc -b` builds it: nest-graphql's apollo maps
  // `@nestjs/graphql` to `../graphql/lib`), after the alternatives above.
  for (const own of Object.values(packagePaths)) for (const [pattern, subs] of Object.entries(own)) paths[pattern] = [...new Set([...(paths[pattern] ?? []), ...subs])];
  // The project's own `paths` (its root tsconfig's, as its editor resolves them) come first.
  const rootConfig = path.join(root, "tsconfig.json");
  if (fs.existsSync(rootConfig)) {
    const own = ts.parseJsonConfigFileContent(ts.readConfigFile(rootConfig, ts.sys.readFile).config ?? {}, ts.sys, root).options;
    const base = own.baseUrl ?? own.pathsBasePath ?? root;
    for (const [pattern, subs] of Object.entries(own.paths ?? {})) paths[pattern] = subs.map((sub) => path.relative(root, path.resolve(base, sub)) || ".");
  }
  return { ...COMPILER_OPTIONS, baseUrl: root, paths };
}

export function createOracle(root, corpusFiles, mastFiles) {
  const names = corpusFiles.map((rel) => path.join(root, rel));
  const options = oracleOptions(root);
  const ls = corpusLanguageService(root, names, options);
  const t0 = performance.now();
  const program = ls.getProgram();
  program.getTypeChecker();
  const programMs = performance.now() - t0;
  const referenceMs = [];

  const lineOf = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const textOf = (sf, line) => sf.text.slice(sf.getLineStarts()[line - 1], sf.getLineStarts()[line] ?? sf.text.length).trim();

  /** The declaration a symbol row names: its member name on the row's line or a few after, nearest first, its own class preferred. */
  function locate(sym) {
    const sf = program.getSourceFile(path.join(root, sym.file));
    if (!sf) return null;
    const starts = sf.getLineStarts();
    if (sym.line > starts.length) return null;
    const from = starts[sym.line - 1];
    const to = starts[sym.line + DECLARATION_LOOKAHEAD] ?? sf.text.length;
    let best = null;
    const visit = (node) => {
      if (node.end < from || node.pos > to) return;
      if (node.name && NAMED_DECLARATION.some((is) => is(node)) && node.name.text === sym.member) {
        const start = node.name.getStart(sf);
        if (start >= from && start < to) {
          const line = lineOf(sf, start);
          const own = sym.owner !== null && node.parent?.name?.text === sym.owner ? 0 : 1;
          if (best === null || own < best.own || (own === best.own && line < best.line)) best = { node, line, own };
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    return best && { sf, decl: best.node, line: best.line };
  }

  /** The declaration's call sites (the line of the call and of the called name), and the calls findReferences gave that resolve to related declarations. */
  function callSites(sf, decl) {
    const t0 = performance.now();
    const groups = ls.findReferences(sf.fileName, decl.name.getStart(sf)) ?? [];
    // Declarations are compared by identity: the service must still answer from the same program.
    if (ls.getProgram() !== program) throw new BenchError("the TypeScript language service rebuilt its program mid-run");
    const checker = program.getTypeChecker();
    const sites = new Map();
    const related = new Map();
    for (const g of groups) {
      for (const ref of g.references) {
        if (ref.isDefinition) continue;
        const file = posix(path.relative(root, ref.fileName));
        if (!mastFiles.has(file)) continue;
        const rsf = program.getSourceFile(ref.fileName);
        const name = rsf && nameAt(rsf, ref.textSpan.start);
        const call = name && callOf(name);
        if (!call) continue;
        const line = lineOf(rsf, call.getStart(rsf));
        const site = { file, line, name_line: lineOf(rsf, ref.textSpan.start), context: textOf(rsf, line) };
        let target = checker.getSymbolAtLocation(name);
        if (target && target.flags & ts.SymbolFlags.Alias) target = checker.getAliasedSymbol(target);
        const key = `${siteKey(file, line)}@${site.name_line}`;
        if (target?.declarations?.some((d) => d === decl)) sites.set(key, site);
        else related.set(key, { ...site, calls: target ? describe(checker, target, root) : null });
      }
    }
    referenceMs.push(performance.now() - t0);
    return { sites: [...sites.values()], related: [...related.values()] };
  }

  return { options, programMs, referenceMs, files: names.length, locate, callSites, textOf: (file, line) => textOf(program.getSourceFile(path.join(root, file)), line) };
}

/** Locates symbols in the oracle and reads their call sites, until `withSitesWanted` have one. */
export function sampleOf(symbols, oracle, withSitesWanted) {
  const sample = [];
  const unlocated = [];
  let withSites = 0;
  for (const sym of symbols) {
    if (withSites >= withSitesWanted) break;
    const at = oracle.locate(sym);
    if (!at) {
      unlocated.push(`${sym.name} (${sym.file}:${sym.line})`);
      continue;
    }
    const { sites, related } = oracle.callSites(at.sf, at.decl);
    if (sites.length) withSites++;
    sample.push({ ...sym, name_line: at.line, sites, related_sites: related });
  }
  return { sample, unlocated, with_sites: withSites };
}

/** Every line a site may be reported at: where its call starts and where the called name is (they differ in `a\n  .b()`). */
export const siteLines = (s) => [siteKey(s.file, s.line), siteKey(s.file, s.name_line)];

/** Precision and recall of one predictor: preds[i] is the list of path:line keys predicted for sample[i] (null: no answer). */
export function score(sample, preds) {
  const perSymbol = sample.map((s, i) => {
    const truth = new Set(s.sites.flatMap(siteLines));
    const pred = new Set(preds[i] ?? []);
    const hits = [...pred].filter((k) => truth.has(k)).length;
    const missed = s.sites.filter((site) => !siteLines(site).some((k) => pred.has(k)));
    return { pred: pred.size, hits, truth: s.sites.length, found: s.sites.length - missed.length, missed };
  });
  const scored = perSymbol.filter((_, i) => preds[i] !== null);
  const withPred = scored.filter((p) => p.pred > 0);
  const withTruth = scored.filter((p) => p.truth > 0);
  const sum = (xs, f) => xs.reduce((a, x) => a + f(x), 0);
  const mean = (xs, f) => (xs.length ? sum(xs, f) / xs.length : null);
  const ratio = (a, b) => (b ? a / b : null);
  return {
    answered: scored.length,
    symbols_with_prediction: withPred.length,
    symbols_with_sites: withTruth.length,
    precision: mean(withPred, (p) => p.hits / p.pred),
    recall: mean(withTruth, (p) => p.found / p.truth),
    precision_micro: ratio(
      sum(scored, (p) => p.hits),
      sum(scored, (p) => p.pred),
    ),
    recall_micro: ratio(
      sum(scored, (p) => p.found),
      sum(scored, (p) => p.truth),
    ),
    predicted: sum(scored, (p) => p.pred),
    true_positives: sum(scored, (p) => p.hits),
    sites: sum(scored, (p) => p.truth),
    sites_found: sum(scored, (p) => p.found),
    per_symbol: perSymbol,
  };
}
