// The compiler side of the checker pass (query/checker.ts): the only importer of `typescript`. It
// holds no store: it is given the project's TypeScript/JavaScript files, the targets and their
// candidate lines as plain data, and answers a verdict per candidate. One `ts.Program` at a time:
// one per tsconfig project (the nearest tsconfig.json above a file, as tsserver picks it; a file
// its config does not include goes to the inferred project of tsserver's default options, checked
// last). The project with the most files is built as soon as the files are known, before the
// candidates are (in the checker's worker thread that overlaps the main thread's candidate
// collection). Alias chains are followed up to 8 hops; the false-green gate: a call resolves to
// the target only when the compiler's declaration is the target's own (its name on the recorded
// line or up to 3 after, or an overload beside it).
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as TS from "typescript";
import { errorMessage } from "../base/errors.js";
import { absoluteIn, isExternalSpecifier, relativeInside } from "../base/paths.js";
import { createImportResolver, type ImportResolver } from "../resolve/imports.js";

type Ts = typeof TS;

/** Verdicts by code, as batches carry them; OUTSIDE: no program holds the candidate's file (no verdict). */
export const VERDICTS = ["calls_target", "resolves_to_different", "non_call_site", "unresolved"] as const;
export type CheckerVerdict = (typeof VERDICTS)[number];
export const OUTSIDE = 255;

/** A declaration whose calls are checked: its name (`Class.method`), its recorded line, its file. */
export interface CheckTarget {
  readonly name: string;
  readonly line: number;
  readonly path: string;
}

/** What a workspace redirect may resolve to: a file the compiler reads as source or declarations. */
const SOURCE_EXTENSIONS = /\.(?:[cm]?tsx?|[cm]?jsx?)$/;

/** The compiler's extension of a file name (declaration files first: `.d.ts` is not `.ts`). */
function extensionOf(ts: Ts, file: string): TS.Extension {
  const E = ts.Extension;
  const table: Array<[string, TS.Extension]> = [
    [".d.ts", E.Dts],
    [".d.mts", E.Dmts],
    [".d.cts", E.Dcts],
    [".tsx", E.Tsx],
    [".mts", E.Mts],
    [".cts", E.Cts],
    [".ts", E.Ts],
    [".jsx", E.Jsx],
    [".mjs", E.Mjs],
    [".cjs", E.Cjs],
    [".js", E.Js],
  ];
  return table.find(([suffix]) => file.endsWith(suffix))![1];
}

/** Candidates as flat triples: target index, file index (into the session's files), line. */
export type CandidateTriples = Int32Array;

/** Verdict codes for candidate indices (into the triples), one project's slice at a time. */
export interface VerdictBatch {
  readonly indices: Int32Array;
  readonly codes: Uint8Array;
}

export interface ProgramsReport {
  readonly projects: number;
  readonly skipped: Array<{ config: string; reason: string }>;
  /** Every candidate was judged or is outside every program; false when a program could not be built (or the worker was lost). */
  readonly complete: boolean;
  /** The analyzer could not run at all (not installed, failed): why. */
  readonly unavailable?: string;
}

/** How far a declaration's reported line may be from the symbol's recorded one (decorators, doc comments, overloads). */
const LINE_SLACK = 3;
/** Alias hops followed from an import binding to what it names. */
const MAX_ALIAS_HOPS = 8;
/** Verdicts per batch handed back while a program is checked. */
const BATCH = 16_384;

/** The compiler options of files no tsconfig holds: tsserver's inferred-project defaults, resolving `./x` and `./x.js` alike. */
function inferredOptions(ts: Ts): TS.CompilerOptions {
  return {
    allowJs: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.Preserve,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  };
}

/** A pass in progress: its targets, the candidates sent so far, those waiting for their program, the program open now. */
interface Pass {
  readonly targets: readonly CheckTarget[];
  readonly emit: (batch: VerdictBatch) => void;
  /** The candidates sent so far (`count` of them), as triples. */
  triples: Int32Array;
  count: number;
  readonly waiting: Map<string | null, number[]>;
  programs: number;
  open: OpenProgram | null;
  failedEarly: { readonly key: string | null; readonly reason: string } | null;
}

/** A program being checked, with what it has resolved: each target's declaration, each line's calls of a name (targets sharing a name, every `X.get`, share their lines). */
interface OpenProgram {
  readonly key: string | null;
  readonly program: TS.Program;
  readonly checker: TS.TypeChecker;
  readonly declarations: Map<number, TS.Node | null>;
  readonly resolved: Map<string, Callees>;
  readonly batch: Batcher;
  checked: number;
}

/** A program built for a project, or the reason it could not be. */
type Built = { readonly program: TS.Program; readonly checker: TS.TypeChecker } | { readonly failed: string };

export class CheckerPrograms {
  private readonly ts: Ts;
  private readonly skipped: Array<{ config: string; reason: string }> = [];
  /** Each file's absolute path, and its project key: its config's path, or null for the inferred project. */
  private readonly absolute: string[];
  private readonly projectOf: Array<string | null>;
  /** The configs that parsed, by path. */
  private readonly parsedConfigs = new Map<string, TS.ParsedCommandLine>();
  private early: { key: string | null; built: Built } | null = null;

  /** `files`: project-relative paths of every file the compiler may read; the largest project's program is built now. */
  /** The index's import resolver over the files, made when a program first needs it. */
  private resolver: ImportResolver | null = null;

  constructor(
    private readonly root: string,
    private readonly files: readonly string[],
  ) {
    this.ts = createRequire(import.meta.url)("typescript") as Ts;
    const configAbove = new Map<string, string | null>();
    const nearestConfig = (dir: string): string | null => {
      if (configAbove.has(dir)) return configAbove.get(dir)!;
      const here = join(dir, "tsconfig.json");
      const found = existsSync(here) ? here : dir === root || dirname(dir) === dir ? null : nearestConfig(dirname(dir));
      configAbove.set(dir, found);
      return found;
    };
    const members = new Map<string, Set<string> | null>();
    this.absolute = files.map((path) => absoluteIn(root, path));
    this.projectOf = this.absolute.map((abs) => {
      const config = nearestConfig(dirname(abs));
      if (config === null) return null;
      let names = members.get(config);
      if (names === undefined) {
        const parsed = this.parse(config);
        if (parsed) this.parsedConfigs.set(config, parsed);
        members.set(config, (names = parsed ? new Set(parsed.fileNames.map((f) => f.replace(/\\/g, "/"))) : null));
      }
      return names?.has(abs) ? config : null;
    });
    const sizes = new Map<string | null, number>();
    for (const key of this.projectOf) sizes.set(key, (sizes.get(key) ?? 0) + 1);
    const largest = [...sizes].sort((a, b) => b[1] - a[1])[0];
    if (largest) this.early = { key: largest[0], built: this.build(largest[0]) };
  }

  /**
   * A pass over `targets`: the candidates follow in chunks (`add`), each verdict is handed to `emit`
   * in batches, and `end` answers the report. Candidates in the project built early are checked as
   * they come; the others wait for `end`, then project by project: configs in path order, the
   * inferred project last, one program alive at a time.
   */
  begin(targets: readonly CheckTarget[], emit: (batch: VerdictBatch) => void): void {
    const early = this.early;
    this.early = null;
    this.pass = { targets, emit, triples: new Int32Array(0), count: 0, waiting: new Map(), programs: 0, open: null, failedEarly: null };
    if (early === null) return;
    const built = early.built;
    if ("failed" in built) this.pass.failedEarly = { key: early.key, reason: built.failed };
    else this.pass.open = this.open(early.key, built);
  }

  add(chunk: CandidateTriples): void {
    const pass = this.pass!;
    const base = pass.count;
    if ((base + chunk.length / 3) * 3 > pass.triples.length) {
      const grown = new Int32Array(Math.max(pass.triples.length * 2, (base * 3 + chunk.length) * 2));
      grown.set(pass.triples.subarray(0, base * 3));
      pass.triples = grown;
    }
    pass.triples.set(chunk, base * 3);
    pass.count += chunk.length / 3;
    for (let i = base; i < pass.count; i++) {
      const key = this.projectOf[pass.triples[3 * i + 1]!]!;
      if (pass.open && pass.open.key === key) this.checkOne(pass.open, i);
      else (pass.waiting.get(key) ?? pass.waiting.set(key, []).get(key)!).push(i);
    }
  }

  end(): ProgramsReport {
    const pass = this.pass!;
    if (pass.open) this.close(pass, pass.open);
    pass.open = null;
    const rank = (k: string | null) => (k === null ? 1 : 0);
    const order = [...pass.waiting.keys()].sort((a, b) => rank(a) - rank(b) || (a! < b! ? -1 : a! > b! ? 1 : 0));
    // The program built first failed and no candidate needed it: still say so.
    if (pass.failedEarly && !pass.waiting.has(pass.failedEarly.key)) this.skipped.push({ config: this.label(pass.failedEarly.key), reason: pass.failedEarly.reason });
    for (const key of order) {
      const list = pass.waiting.get(key)!;
      const built: Built = pass.failedEarly?.key === key ? { failed: pass.failedEarly.reason } : this.build(key);
      if ("failed" in built) {
        this.buildFailed = true;
        this.skipped.push({ config: this.label(key), reason: built.failed });
        const batch = new Batcher(pass.emit);
        for (const i of list) batch.add(i, OUTSIDE);
        batch.flush();
        continue;
      }
      const open = this.open(key, built);
      for (const i of list) this.checkOne(open, i);
      this.close(pass, open);
    }
    this.pass = null;
    return { projects: pass.programs, skipped: this.skipped, complete: !this.buildFailed };
  }

  private pass: Pass | null = null;
  private buildFailed = false;

  /** A project as reported: its config, project-relative, or the inferred project. */
  private label(key: string | null): string {
    return key === null ? "(inferred project)" : shown(this.root, key);
  }

  private open(key: string | null, built: { program: TS.Program; checker: TS.TypeChecker }): OpenProgram {
    return { key, ...built, declarations: new Map(), resolved: new Map(), batch: new Batcher(this.pass!.emit), checked: 0 };
  }

  private close(pass: Pass, open: OpenProgram): void {
    open.batch.flush();
    if (open.checked > 0) pass.programs++;
  }

  /** One candidate's verdict (or OUTSIDE when the program does not hold its file). */
  private checkOne(open: OpenProgram, i: number): void {
    const ts = this.ts;
    const { targets, triples } = this.pass!;
    const targetIndex = triples[3 * i]!;
    const fileIndex = triples[3 * i + 1]!;
    const line = triples[3 * i + 2]!;
    const target = targets[targetIndex]!;
    open.checked++;
    const sf = open.program.getSourceFile(this.absolute[fileIndex]!);
    if (!sf) {
      open.batch.add(i, OUTSIDE);
      return;
    }
    const tail = target.name.slice(target.name.lastIndexOf(".") + 1);
    let own = open.declarations.get(targetIndex);
    if (own === undefined) open.declarations.set(targetIndex, (own = targetDeclaration(ts, open.program, absoluteIn(this.root, target.path), target.line, tail)));
    const key = `${fileIndex}:${line}:${tail}`;
    let callees = open.resolved.get(key);
    if (callees === undefined) open.resolved.set(key, (callees = calleesOn(ts, open.checker, sf, line, tail)));
    // The target's declaration not found in this program: nothing can be told of its calls here.
    const verdict = own === null ? "unresolved" : verdictOn(callees, (decl) => decl === own || (decl.parent === own!.parent && nameOf(decl) === tail));
    open.batch.add(i, VERDICTS.indexOf(verdict));
  }

  private build(key: string | null): Built {
    const ts = this.ts;
    const parsed = key === null ? null : this.parsedConfigs.get(key)!;
    try {
      // A config's traceResolution would write the compiler's trace to stdout, through a CLI's JSON report or the MCP stream.
      const options: TS.CompilerOptions = { ...(parsed ? parsed.options : inferredOptions(ts)), noEmit: true, skipLibCheck: true, traceResolution: false };
      // JSDoc types matter in JavaScript only (tsc's own mode): a TypeScript file's doc comments are not parsed.
      const host = ts.createCompilerHost(options);
      host.trace = () => undefined;
      host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
      this.redirectWorkspaces(host, options);
      // The inferred project's roots: every file no config includes.
      const rootNames = parsed ? parsed.fileNames : this.absolute.filter((_, i) => this.projectOf[i] === null);
      const program = ts.createProgram({ rootNames, options, host, ...(parsed?.projectReferences ? { projectReferences: parsed.projectReferences } : {}) });
      return { program, checker: program.getTypeChecker() };
    } catch (err) {
      return { failed: errorMessage(err) };
    }
  }

  /**
   * A workspace package's import resolved to its sources, as the index's resolver does: a program
   * of one package in a monorepo without an installed `node_modules` (or with one linking the
   * package's build output) then sees its siblings' declarations, which the targets are. Other
   * specifiers are resolved as the compiler does.
   */
  private redirectWorkspaces(host: TS.CompilerHost, options: TS.CompilerOptions): void {
    const ts = this.ts;
    const resolver = (this.resolver ??= createImportResolver(new Set(this.files), this.root, { readAll: false }));
    const cache = ts.createModuleResolutionCache(host.getCurrentDirectory(), (f) => (host.useCaseSensitiveFileNames() ? f : f.toLowerCase()), options);
    host.resolveModuleNameLiterals = (literals, containingFile, redirected, compilerOptions, sourceFile) =>
      literals.map((literal) => {
        const from = relativeInside(this.root, containingFile);
        const own = from !== null && isExternalSpecifier(literal.text) ? resolver.resolve(from, literal.text) : null;
        if (own !== null && SOURCE_EXTENSIONS.test(own)) {
          return { resolvedModule: { resolvedFileName: absoluteIn(this.root, own), extension: extensionOf(ts, own), isExternalLibraryImport: false } };
        }
        return ts.resolveModuleName(literal.text, containingFile, compilerOptions, host, cache, redirected, ts.getModeForUsageLocation(sourceFile, literal, compilerOptions));
      });
  }

  /** A config as the compiler reads it, or null (recorded in `skipped`) when it cannot be read or includes no file. */
  private parse(config: string): TS.ParsedCommandLine | null {
    const ts = this.ts;
    let parsed: TS.ParsedCommandLine | null = null;
    let reason: string | null = null;
    try {
      const host: TS.ParseConfigFileHost = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => (reason = ts.flattenDiagnosticMessageText(d.messageText, " ")) };
      parsed = ts.getParsedCommandLineOfConfigFile(config, {}, host) ?? null;
      const fatal = parsed?.errors.find((e) => e.category === ts.DiagnosticCategory.Error && e.code !== 18003);
      if (fatal) reason = ts.flattenDiagnosticMessageText(fatal.messageText, " ");
      else if (parsed && parsed.fileNames.length === 0)
        reason = parsed.projectReferences?.length
          ? `solution: it only references ${parsed.projectReferences.length} other project(s), each checked by its own config`
          : "no_files: it includes no source file";
    } catch (err) {
      reason = errorMessage(err);
    }
    if (reason !== null || !parsed) {
      this.skipped.push({ config: shown(this.root, config), reason: reason ?? "unreadable" });
      return null;
    }
    return parsed;
  }
}

/** Verdicts collected and handed back BATCH at a time. */
class Batcher {
  private indices: number[] = [];
  private codes: number[] = [];
  constructor(private readonly emit: (batch: VerdictBatch) => void) {}

  add(index: number, code: number): void {
    this.indices.push(index);
    this.codes.push(code);
    if (this.indices.length >= BATCH) this.flush();
  }

  flush(): void {
    if (this.indices.length === 0) return;
    this.emit({ indices: Int32Array.from(this.indices), codes: Uint8Array.from(this.codes) });
    this.indices = [];
    this.codes = [];
  }
}

/** A config's path as reported: project-relative when inside the project. */
function shown(root: string, abs: string): string {
  return relativeInside(root, abs) ?? abs;
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
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isMethodSignature(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isPropertySignature(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node) ||
      ts.isPropertyAssignment(node);
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
  return found
    .filter((id) => calleeOf(ts, id) !== null)
    .map((id) => {
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

/**
 * The tsconfig a type check of `file` should name: the nearest tsconfig.json above it when its
 * program includes the file; when that config is a solution (`files: []` and references, which
 * `tsc --noEmit` checks nothing of), the referenced config whose program does; null when none
 * does. verify-changes' `tsc --noEmit -p <config>` (tools/verify.ts hands this to edit/verify.ts).
 */
export function owningTsconfig(file: string, root: string): string | null {
  const ts = createRequire(import.meta.url)("typescript") as Ts;
  const parse = (config: string): TS.ParsedCommandLine | null => {
    try {
      return ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined }) ?? null;
    } catch {
      return null;
    }
  };
  const includes = (parsed: TS.ParsedCommandLine | null) => parsed !== null && parsed.fileNames.some((f) => f.replace(/\\/g, "/") === file.replace(/\\/g, "/"));
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const config = join(dir, "tsconfig.json");
    if (existsSync(config)) {
      const parsed = parse(config);
      if (includes(parsed)) return config;
      for (const ref of parsed?.projectReferences ?? []) {
        const path = ref.path.endsWith(".json") ? ref.path : join(ref.path, "tsconfig.json");
        if (includes(parse(path))) return path;
      }
      return null;
    }
    if (dir === root || dirname(dir) === dir) return null;
  }
}
