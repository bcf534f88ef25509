// The opt-in TypeScript-checker pass (spec §10.3.2, `mast index --checker`); the only importer of
// `typescript`. It takes the potential matches of every TypeScript/JavaScript function and method
// (query/graph.ts `potentialMatches`: the one definition of a candidate), asks the compiler what
// each candidate line calls, and records the answer in `checker_verdicts`: `calls_target` with a
// POTENTIAL_CALL edge of resolution 'checker' when the call resolves to the target's own
// declaration (its file, and its line ±3: the false-green gate); `resolves_to_different` or
// `non_call_site`, which take the line out of the target's potential matches; `unresolved` when
// the compiler cannot tell (the line stays potential). One `ts.Program` at a time: one per
// tsconfig project (the nearest tsconfig.json above a file, as tsserver picks it), then one
// inferred project of the files no config includes (tsserver's default options). A candidate that
// already has a verdict is not checked again: a rewritten file has lost its verdicts. The index run
// calls it (`RunIndexOptions.checker`) inside its transaction; the writes are the store's.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as TS from "typescript";
import { errorMessage } from "../base/errors.js";
import { absoluteIn, relativeInside } from "../base/paths.js";
import { extensionInfo } from "../lang/languages.js";
import type { CheckerReport } from "../index/run.js";
import { CHECKER_META, type Store } from "../store/db.js";
import { PotentialMemo, potentialMatches, tailOf, verifiedCallers } from "./graph.js";

type Ts = typeof TS;
type CheckerVerdict = "calls_target" | "resolves_to_different" | "non_call_site" | "unresolved";


/** How far a declaration's reported line may be from the symbol's recorded one (decorators, doc comments, overloads). */
const LINE_SLACK = 3;
/** Alias hops followed from an import binding to what it names. */
const MAX_ALIAS_HOPS = 8;

/** The compiler options of files no tsconfig holds: tsserver's inferred-project defaults, resolving `./x` and `./x.js` alike. */
function inferredOptions(ts: Ts): TS.CompilerOptions {
  return { allowJs: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve, skipLibCheck: true, noEmit: true, types: [] };
}

interface Target {
  readonly id: number;
  readonly name: string;
  readonly line: number;
  readonly fileId: number;
  readonly path: string;
}

interface Candidate {
  readonly target: Target;
  readonly fileId: number;
  readonly path: string;
  readonly line: number;
  readonly context: string;
}

export function runCheckerPass(store: Store, projectRoot: string): CheckerReport {
  const started = performance.now();
  const ts = createRequire(import.meta.url)("typescript") as Ts;
  const db = store.db;
  const fileIds = new Map((db.prepare("SELECT path, id FROM files").raw().all() as Array<[string, number]>).map(([path, id]) => [path, id]));
  // What the compiler reads: the files whose imports resolve as ECMAScript modules.
  const checkable = (path: string) => extensionInfo(path)?.spec.resolver === "ecmascript";
  // Constructors are called by `new C()`, which names the class, not `constructor`: no candidate of theirs is a call of them.
  const targets = (db.prepare("SELECT s.id, s.name, s.line, s.file_id AS fileId, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method') ORDER BY f.path, s.line, s.id").all() as Target[]).filter((t) => checkable(t.path) && tailOf(t.name) !== "constructor");
  const known = new Set((db.prepare("SELECT target_id || ':' || file_id || ':' || line FROM checker_verdicts").pluck().all() as string[]));

  // Candidates: each target's potential matches, as mast_callers finds them, minus those already judged.
  const byFile = new Map<string, Candidate[]>();
  let outside = 0;
  let candidates = 0;
  const memo = new PotentialMemo(projectRoot, targets.map((t) => tailOf(t.name)));
  for (const target of targets) {
    const verified = verifiedCallers(db, [target.id], false);
    const pool = potentialMatches(db, projectRoot, [target.name], { ids: [target.id], fileId: target.fileId, path: target.path }, verified, Number.MAX_SAFE_INTEGER, { unranked: true, memo });
    for (const m of pool.matches) {
      const fileId = fileIds.get(m.file_path);
      if (fileId === undefined || known.has(`${target.id}:${fileId}:${m.line}`)) continue;
      candidates++;
      if (!checkable(m.file_path)) {
        outside++;
        continue;
      }
      const list = byFile.get(m.file_path) ?? byFile.set(m.file_path, []).get(m.file_path)!;
      list.push({ target, fileId, path: m.file_path, line: m.line, context: m.context });
    }
  }

  // Projects: the nearest tsconfig.json above each candidate file; files it does not include go to the inferred project.
  const skipped: Array<{ config: string; reason: string }> = [];
  const configAbove = new Map<string, string | null>();
  const nearestConfig = (dir: string): string | null => {
    if (configAbove.has(dir)) return configAbove.get(dir)!;
    const here = join(dir, "tsconfig.json");
    const found = existsSync(here) ? here : dir === projectRoot || dirname(dir) === dir ? null : nearestConfig(dirname(dir));
    configAbove.set(dir, found);
    return found;
  };
  const parsedConfigs = new Map<string, TS.ParsedCommandLine | null>();
  const parse = (config: string): TS.ParsedCommandLine | null => {
    if (parsedConfigs.has(config)) return parsedConfigs.get(config)!;
    let parsed: TS.ParsedCommandLine | null = null;
    let reason: string | null = null;
    try {
      const host: TS.ParseConfigFileHost = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => (reason = ts.flattenDiagnosticMessageText(d.messageText, " ")) };
      parsed = ts.getParsedCommandLineOfConfigFile(config, {}, host) ?? null;
      const fatal = parsed?.errors.find((e) => e.category === ts.DiagnosticCategory.Error && e.code !== 18003);
      if (fatal) reason = ts.flattenDiagnosticMessageText(fatal.messageText, " ");
      else if (parsed && parsed.fileNames.length === 0) reason = "no_files: it includes no source file";
    } catch (err) {
      reason = errorMessage(err);
    }
    if (reason !== null || !parsed) {
      skipped.push({ config: shown(projectRoot, config), reason: reason ?? "unreadable" });
      parsed = null;
    }
    parsedConfigs.set(config, parsed);
    return parsed;
  };
  const projects = new Map<string | null, Candidate[]>();
  for (const [path, list] of byFile) {
    const abs = absoluteIn(projectRoot, path);
    const config = nearestConfig(dirname(abs));
    const parsed = config === null ? null : parse(config);
    const key = parsed && parsed.fileNames.some((f) => samePath(f, abs)) ? config : null;
    (projects.get(key) ?? projects.set(key, []).get(key)!).push(...list);
  }

  const counts = { calls_target: 0, edges: 0, resolves_to_different: 0, non_call_site: 0, unresolved: 0 };
  const enclosing = db.prepare(
    "SELECT id FROM symbols WHERE file_id = ? AND line <= ? AND end_line >= ? AND kind IN ('function', 'method', 'class', 'const', 'variable') ORDER BY end_line - line, id LIMIT 1",
  );
  const moduleSymbol = db.prepare("SELECT id FROM symbols WHERE file_id = ? AND kind = 'module' LIMIT 1");
  let programs = 0;
  const verdicts: Array<[number, number, number, CheckerVerdict]> = [];
  // Configs in path order, the inferred project last; one program alive at a time.
  const order = [...projects.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0));
  for (const config of order) {
    const list = projects.get(config)!;
    const parsed = config === null ? null : parsedConfigs.get(config)!;
    const rootNames = parsed ? parsed.fileNames : [...new Set(list.map((c) => absoluteIn(projectRoot, c.path)))];
    let program: TS.Program;
    try {
      program = ts.createProgram({ rootNames, options: { ...(parsed ? parsed.options : inferredOptions(ts)), noEmit: true, skipLibCheck: true }, ...(parsed?.projectReferences ? { projectReferences: parsed.projectReferences } : {}) });
    } catch (err) {
      skipped.push({ config: config === null ? "(inferred project)" : shown(projectRoot, config), reason: errorMessage(err) });
      outside += list.length;
      continue;
    }
    programs++;
    const checker = program.getTypeChecker();
    const declarations = new Map<number, TS.Node | null>();
    // What each line's calls of a name resolve to, asked once: targets sharing a name (every `X.get`) share their lines.
    const resolved = new Map<string, Callees>();
    for (const c of list) {
      const sf = program.getSourceFile(absoluteIn(projectRoot, c.path));
      if (!sf) {
        outside++;
        continue;
      }
      const tail = tailOf(c.target.name);
      let own = declarations.get(c.target.id);
      if (own === undefined) declarations.set(c.target.id, (own = targetDeclaration(ts, program, absoluteIn(projectRoot, c.target.path), c.target.line, tail)));
      const key = `${c.path}:${c.line}:${tail}`;
      let callees = resolved.get(key);
      if (callees === undefined) resolved.set(key, (callees = calleesOn(ts, checker, sf, c.line, tail)));
      // The target's declaration not found in this program: nothing can be told of its calls here.
      const verdict = own === null ? "unresolved" : verdictOn(callees, (decl) => decl === own || (decl.parent === own!.parent && nameOf(decl) === tail));
      verdicts.push([c.target.id, c.fileId, c.line, verdict]);
      counts[verdict]++;
      if (verdict !== "calls_target") continue;
      const from = (enclosing.pluck().get(c.fileId, c.line, c.line) ?? moduleSymbol.pluck().get(c.fileId)) as number | undefined;
      if (from === undefined) continue; // classified, but no symbol to draw the edge from
      store.addCheckerEdge(from, c.target.id, c.line, c.context);
      counts.edges++;
    }
  }
  store.recordCheckerVerdicts(verdicts);
  store.setMeta(CHECKER_META, new Date().toISOString());
  return { projects: programs, skipped, targets: targets.length, candidates, ...counts, outside_ts_scope: outside, duration_ms: Math.round(performance.now() - started) };
}

/** A config's path as reported: project-relative when inside the project. */
function shown(root: string, abs: string): string {
  return relativeInside(root, abs) ?? abs;
}

/** The compiler normalises file names to forward slashes; the project root is already absolute and normal. */
function samePath(tsName: string, abs: string): boolean {
  return tsName === abs || tsName.replace(/\\/g, "/") === abs;
}

function nameOf(decl: TS.Node): string | undefined {
  const name = (decl as { name?: TS.Node & { text?: string } }).name;
  return name?.text;
}

/**
 * The target's own declaration node in the program (the false-green gate): the first declaration
 * named `name` whose name is on the symbol's recorded line or up to LINE_SLACK lines after it (past
 * decorators and doc comments). Null when the program does not hold the file: then no call in it
 * can resolve to the target.
 */
function targetDeclaration(ts: Ts, program: TS.Program, file: string, line: number, name: string): TS.Node | null {
  const sf = program.getSourceFile(file);
  if (!sf) return null;
  const starts = sf.getLineStarts();
  const from = starts[line - 1] ?? sf.text.length;
  const to = starts[line + LINE_SLACK] ?? sf.text.length;
  let found: TS.Node | null = null;
  const visit = (node: TS.Node): void => {
    if (found || node.end <= from || node.pos >= to) return;
    const id = (node as { name?: TS.Node }).name;
    const declares =
      ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isMethodSignature(node) || ts.isPropertyDeclaration(node) || ts.isPropertySignature(node) || ts.isVariableDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) || ts.isPropertyAssignment(node);
    if (declares && id && (ts.isIdentifier(id) || ts.isPrivateIdentifier(id)) && id.text === name) {
      const at = id.getStart(sf);
      if (at >= from && at < to) {
        found = node;
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The declarations each call of a name on a line resolves to (through aliases; empty when the compiler cannot tell). */
type Callees = ReadonlyArray<readonly TS.Node[]>;

/** The calls (`new`, decorators, tagged templates) of `name` on a line, each with the declarations the compiler resolves its callee to. */
function calleesOn(ts: Ts, checker: TS.TypeChecker, sf: TS.SourceFile, line: number, name: string): Callees {
  const starts = sf.getLineStarts();
  const from = starts[line - 1];
  if (from === undefined) return [];
  const to = starts[line] ?? sf.text.length;
  const found: TS.Node[] = [];
  const visit = (node: TS.Node): void => {
    if (node.end <= from || node.pos >= to) return;
    if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && node.text === name) {
      const start = node.getStart(sf);
      if (start >= from && start < to) found.push(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found.filter((id) => calleeOf(ts, id) !== null).map((id) => {
    let symbol = checker.getSymbolAtLocation(id);
    for (let hop = 0; symbol && symbol.flags & ts.SymbolFlags.Alias && hop < MAX_ALIAS_HOPS; hop++) symbol = checker.getAliasedSymbol(symbol);
    return symbol?.declarations ?? [];
  });
}

/**
 * What a line's calls of the name say of the target: no call at all, a call of the target, or of
 * something else. Several calls on the line: one of the target decides; a callee the compiler
 * cannot resolve, or one resolving to several declarations (a union receiver), makes the line
 * `unresolved` unless another calls the target.
 */
function verdictOn(callees: Callees, isTarget: (d: TS.Node) => boolean): CheckerVerdict {
  if (callees.length === 0) return "non_call_site";
  let unresolved = false;
  for (const decls of callees) {
    if (decls.length === 0) {
      unresolved = true;
      continue;
    }
    const own = decls.find(isTarget);
    if (own === undefined) continue; // resolves to another declaration
    // Overloads are declarations side by side with the target's; any other (a union's members, a
    // merged global) makes the call not certainly the target's.
    if (decls.every((d) => d.parent === own.parent)) return "calls_target";
    unresolved = true;
  }
  return unresolved ? "unresolved" : "resolves_to_different";
}

/** The call, `new`, decorator or tagged template an identifier is the callee of (through `a.b`, `(…)` and `!`), or null. */
function calleeOf(ts: Ts, id: TS.Node): TS.Node | null {
  let n: TS.Node = id;
  const p = n.parent;
  if ((ts.isPropertyAccessExpression(p) && p.name === n) || (ts.isElementAccessExpression(p) && p.argumentExpression === n)) n = p;
  while (ts.isParenthesizedExpression(n.parent) || ts.isNonNullExpression(n.parent)) n = n.parent;
  const q = n.parent;
  if ((ts.isCallExpression(q) || ts.isNewExpression(q)) && q.expression === n) return q;
  if (ts.isDecorator(q) || (ts.isTaggedTemplateExpression(q) && q.tag === n)) return q;
  return null;
}
