// Declarations as the TypeScript compiler's syntax tree names them, for measuring exact-name search
// (bench/search-names.mjs, scripts/name-queries.mjs): top-level functions by name, class methods as
// `Class.method`, functions nested in functions by their own name, a namespace's functions as
// `Ns.f`, and every other top-level declaration (classes, types, variables, export aliases) as a
// declaration of its name that is never drawn. Plain data: `{ query, name, kind, path, start, end }`.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export const SOURCE_FILE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
export const DRAWN_KINDS = ["function", "method", "nested", "namespace"];

/** The files under `dir` (relative, sorted) whose names pass `keep`, skipping `excluded` directories and dot-directories. */
export function sourceFiles(dir, keep, excluded, rel = "") {
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!excluded.has(e.name) && !e.name.startsWith(".")) out.push(...sourceFiles(dir, keep, excluded, r));
    } else if (e.isFile() && keep(e.name)) out.push(r);
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
export function declarationsOf(root, rel) {
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
export const isDecl = (r, d) => r.file_path === d.path && r.symbol_name !== null && tail(r.symbol_name) === d.name && r.start_line <= d.end && r.end_line >= d.start;

/** The name a declaration is searched by: `Class.method` and `Ns.f` whole, anything else by its own name. */
export const queryOf = (d) => (d.kind === "method" || d.kind === "namespace" ? d.query : d.name);

/**
 * The declarations that answer a query: for a plain name its functions, nested functions and
 * other declarations (never a method of that name), for `A.b` its methods and namespace functions.
 */
export function answersIndex(decls) {
  const byQuery = new Map();
  for (const d of decls) {
    const q = queryOf(d);
    (byQuery.get(q) ?? byQuery.set(q, []).get(q)).push(d);
  }
  return (q) => (byQuery.get(q) ?? []).filter((d) => (q.includes(".") ? d.kind === "method" || d.kind === "namespace" : d.kind !== "method" && d.kind !== "namespace"));
}

/**
 * A seeded draw: `sample` declarations uniformly from the drawable ones (a kind, a name of two
 * characters or more), then for each kind the draw holds fewer than 30 of, up to `kindCap` more of
 * that kind (marked `extra`), so a rare kind is measured too.
 */
export function drawDeclarations(decls, { sample, rand, shuffled, kindCap }) {
  const drawable = decls.filter((d) => DRAWN_KINDS.includes(d.kind) && d.name.length >= 2);
  const drawn = shuffled(drawable, rand).slice(0, sample);
  const extra = DRAWN_KINDS.flatMap((k) =>
    drawn.filter((d) => d.kind === k).length >= 30
      ? []
      : shuffled(
          drawable.filter((d) => d.kind === k),
          rand,
        )
          .slice(0, kindCap)
          .map((d) => ({ ...d, extra: true })),
  );
  return { drawable: drawable.length, drawn: [...drawn, ...extra] };
}
