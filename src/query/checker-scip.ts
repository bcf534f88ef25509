// The SCIP backends of the checker pass (query/checker.ts): an indexer that writes a SCIP index
// run once per pass over the project as a child process (checker-child.ts: stdin ignored, a
// timeout, its stderr kept as the reason when it fails), its index decoded (base/scip.ts) and
// each candidate answered from the occurrences on its line. Two indexers:
// - scip-python (pyright; Python): MAST_SCIP_PYTHON (a path; for tests and pinned installs), else
//   mast's own dependency (resolved from mast's modules), else `scip-python` on PATH;
// - rust-analyzer's `scip` command (Rust): only where MAST_RUST_ANALYZER names the program — it
//   loads the workspace as cargo does, running the crate's build scripts and proc macros, which is
//   running the project's code: the user says so for a project they trust (docs/decisions.md).
// None found: the backend is unavailable with the reason, and the pass says so for the language.
// It holds no store: targets and candidates come as plain data, verdicts go back as batches
// (checker-program.ts's codes).
//
// A candidate (target declaration path+line+name, candidate file+line) is judged at each place its
// name (the target's tail) is written on the line as a callee (`name(`): inside a comment or a
// string (Python's; Rust's text is not read for prose: a mention there stays unresolved), after
// `def`/`fn`, or as a reference (an import, a bare decorator), it is no call; a
// call with an occurrence there whose symbol's last descriptor is that name (scip-python 0.6.6
// gives some re-exported classes another function's symbol: those say nothing) and whose
// definition is the target's (its file, its recorded line or up to LINE_SLACK after: decorators,
// attributes; symbols compared without their package, see symbolKey) → `calls_target`; one the project
// defines under a longer module path (a src/ layout resolved to the installed copy of itself), or
// — for a method — another type's method of the name (virtual dispatch, a trait's declaration),
// says nothing; one defined elsewhere or outside the project → `resolves_to_different`. A
// line whose calls of the name are all unknown to the analyzer (an attribute of an untyped
// value) is `unresolved`; one with no call of the name is `non_call_site`.
import { childEnvironment, onPath } from "../base/programs.js";
import { spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { errorMessage } from "../base/errors.js";
import { absoluteIn } from "../base/paths.js";
import { decodeScip, SCIP_ROLE, scipDescriptor, type ScipIndex, type ScipOccurrence } from "../base/scip.js";
import { ChildAnalyzer, runChild, type Judge } from "./checker-child.js";
import type { CheckTarget, CheckerVerdict } from "./checker-program.js";

/** The environment variable that points the lookup at one scip-python executable (or .js entry). */
export const SCIP_PYTHON_ENV = "MAST_SCIP_PYTHON";
/** The environment variable naming the rust-analyzer to run: the user's consent to its running the crate's build scripts. */
export const RUST_ANALYZER_ENV = "MAST_RUST_ANALYZER";
/** How long the indexer may run before the pass gives up on it. */
const TIMEOUT_MS = 20 * 60 * 1000;
/** How far a definition's line may be after the symbol's recorded one (decorators). */
const LINE_SLACK = 3;
const PACKAGE = "@sourcegraph/scip-python";

/** The indexer to run, or why there is none. */
export type ScipPythonLocation = { readonly bin: string } | { readonly reason: string };

export function locateScipPython(env: NodeJS.ProcessEnv = process.env): ScipPythonLocation {
  const pinned = env[SCIP_PYTHON_ENV];
  if (pinned !== undefined && pinned !== "") return existsSync(pinned) ? { bin: pinned } : { reason: `scip-python not found at ${pinned} (${SCIP_PYTHON_ENV})` };
  try {
    const manifest = createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`);
    const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: string | Record<string, string> };
    const entry = typeof bin === "string" ? bin : bin?.["scip-python"];
    if (entry !== undefined && existsSync(join(dirname(manifest), entry))) return { bin: join(dirname(manifest), entry) };
  } catch {
    // not installed with mast: look on PATH
  }
  const found = onPath("scip-python", env);
  if (found !== null) return { bin: found };
  return { reason: `scip-python not found: ${PACKAGE} is not installed with mast and scip-python is not on PATH` };
}

/** How a language's source is read around an occurrence: what declares a name before it, and its comments and strings. */
interface Dialect {
  /** Text before a name that makes it a declaration (`def `, `fn `). */
  readonly declares: RegExp;
  /** 0-based line → [start, end) columns of comments and strings (none: every mention is judged by its occurrence). */
  prose(source: string): Map<number, Array<[number, number]>>;
}

const PYTHON: Dialect = { declares: /\bdef\s+$/, prose: (source) => proseSpans(source) };
const RUST: Dialect = { declares: /\bfn\s+$/, prose: () => new Map() };

/** The rust-analyzer to run, or why none runs: only the one MAST_RUST_ANALYZER names, and only when it answers `--version`. */
export function locateRustAnalyzer(env: NodeJS.ProcessEnv = process.env): { bin: string } | { reason: string } {
  const named = env[RUST_ANALYZER_ENV];
  if (named === undefined || named === "") {
    const found = onPath("rust-analyzer", env);
    return {
      reason: `rust-analyzer runs the crate's build scripts and proc macros, so it is run only when ${RUST_ANALYZER_ENV} names it${found === null ? " (none on PATH)" : ` (${found} is on PATH)`}`,
    };
  }
  if (!isAbsolute(named) || !existsSync(named)) return { reason: `rust-analyzer not found at ${named} (${RUST_ANALYZER_ENV}; an absolute path)` };
  // A rustup proxy without the component answers with an error: unavailable, not a failed pass.
  const probe = spawnSync(named, ["--version"], { encoding: "utf8", timeout: 20_000, env: childEnvironment(env), stdio: ["ignore", "pipe", "pipe"] });
  if (probe.status !== 0 || !/^rust-analyzer/.test(probe.stdout))
    return { reason: `${named} does not run (${probe.error?.message ?? `exit ${probe.status}`}): ${(probe.stderr || probe.stdout).trim().split("\n")[0]?.slice(0, 300) ?? ""}` };
  return { bin: named };
}

/** One SCIP indexer as the pass runs it: its name, where it is, its arguments for an output path in a scratch dir, how its index is read. */
interface Indexer {
  readonly label: string;
  locate(env: NodeJS.ProcessEnv): { bin: string } | { reason: string };
  args(out: string, scratch: string): string[];
  readonly dialect: Dialect;
}

const SCIP_PYTHON: Indexer = {
  label: "scip-python",
  locate: locateScipPython,
  args(out, scratch) {
    // An empty environment: the installed packages are not listed (no `pip show` of each) nor
    // labelled; pyright still resolves imports through them, and the verdicts only ask whether a
    // call's definition is the target's (about a quarter of the run on click).
    const environment = join(scratch, "environment.json");
    writeFileSync(environment, "[]");
    return ["index", ".", "--project-name", "mast-checker", "--project-version", "0", "--output", out, "--quiet", "--environment", environment];
  },
  dialect: PYTHON,
};

const RUST_ANALYZER: Indexer = { label: "rust-analyzer", locate: locateRustAnalyzer, args: (out) => ["scip", ".", "--output", out], dialect: RUST };

/** Runs an indexer over `root` in the project's directory; the decoded index, or why there is none. */
async function runIndexer(indexer: Indexer, bin: string, root: string, onChild: (child: ChildProcess) => void): Promise<{ index: ScipIndex } | { reason: string }> {
  const dir = mkdtempSync(join(tmpdir(), "mast-scip-"));
  try {
    const out = join(dir, "index.scip");
    const args = indexer.args(out, dir);
    const script = /\.[cm]?js$/.test(bin);
    const failed = await runChild({
      label: indexer.label,
      bin: script ? process.execPath : bin,
      args: script ? [bin, ...args] : args,
      cwd: root,
      env: childEnvironment(),
      timeoutMs: TIMEOUT_MS,
      onChild,
    });
    if (failed !== null) return { reason: failed };
    if (!existsSync(out)) return { reason: `${indexer.label} failed (exit 0): no index written` };
    try {
      return { index: decodeScip(readFileSync(out)) };
    } catch (err) {
      return { reason: `${indexer.label}'s index could not be read: ${errorMessage(err)}` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A SCIP backend as the pass drives it: started on the language's files, then the targets, candidate chunks and the end. */
class ScipAnalyzer extends ChildAnalyzer<{ index: ScipIndex }> {
  /** Why the indexer cannot run (none found), known at start; null when it was started. */
  readonly unavailable: string | null;
  protected readonly output: Promise<{ index: ScipIndex } | { reason: string }> | null;

  constructor(
    private readonly indexer: Indexer,
    private readonly root: string,
    files: readonly string[],
    env: NodeJS.ProcessEnv,
  ) {
    super(indexer.label, files);
    const where = indexer.locate(env);
    if ("reason" in where) {
      this.unavailable = where.reason;
      this.output = null;
    } else {
      this.unavailable = null;
      this.output = runIndexer(indexer, where.bin, root, (child) => (this.child = child));
    }
  }

  protected judge({ index }: { index: ScipIndex }): Judge {
    const judge = new ScipJudge(this.root, index, this.indexer.dialect);
    return (target, path, line) => judge.verdict(target, path, line);
  }
}

/** Python's backend: scip-python. */
export class ScipPythonAnalyzer extends ScipAnalyzer {
  constructor(root: string, files: readonly string[], env: NodeJS.ProcessEnv = process.env) {
    super(SCIP_PYTHON, root, files, env);
  }
}

/** Rust's backend: rust-analyzer's SCIP index of the workspace, judged as scip-python's is. */
export class RustAnalyzerScip extends ScipAnalyzer {
  constructor(root: string, files: readonly string[], env: NodeJS.ProcessEnv = process.env) {
    super(RUST_ANALYZER, root, files, env);
  }
}

interface FileView {
  readonly lines: readonly string[];
  /** 0-based line → [start, end) columns of comments and strings on it. */
  readonly prose: ReadonlyMap<number, ReadonlyArray<readonly [number, number]>>;
  /** 0-based line → the occurrences starting on it. */
  readonly occurrences: ReadonlyMap<number, readonly ScipOccurrence[]>;
}

/** Answers candidates from one decoded index. */
export class ScipJudge {
  private readonly definitions = new Map<string, { path: string; line: number }>();
  /** The project's definitions by descriptors after the module, to the modules that define them. */
  private readonly modulesOf = new Map<string, string[]>();
  private readonly documents = new Map<string, readonly ScipOccurrence[]>();
  private readonly views = new Map<string, FileView | null>();

  constructor(
    private readonly root: string,
    index: ScipIndex,
    private readonly dialect: Dialect = PYTHON,
  ) {
    for (const doc of index.documents) {
      this.documents.set(doc.path, doc.occurrences);
      for (const o of doc.occurrences) {
        if (!(o.roles & SCIP_ROLE.definition)) continue;
        this.definitions.set(symbolKey(o.symbol), { path: doc.path, line: o.range[0] + 1 });
        const m = moduleSplit(o.symbol);
        if (m !== null) this.modulesOf.set(m.rest, [...(this.modulesOf.get(m.rest) ?? []), m.module]);
      }
    }
  }

  /** The verdict on `path`:`line` (1-based) as a call of `target`; null when the index does not hold the file. */
  verdict(target: CheckTarget, path: string, line: number): CheckerVerdict | null {
    const view = this.view(path);
    if (view === null) return null;
    const text = view.lines[line - 1];
    if (text === undefined) return "unresolved";
    const name = target.name.slice(target.name.lastIndexOf(".") + 1);
    const prose = view.prose.get(line - 1) ?? [];
    const here = view.occurrences.get(line - 1) ?? [];
    let called = false;
    let different = false;
    let unknown = false;
    for (const col of wordPositions(text, name)) {
      if (prose.some(([s, e]) => col >= s && col < e)) continue;
      // Only `name(` is a call (a bare `@decorator` is no call expression); a `def name(` is a
      // declaration whatever its occurrence says (scip-python gives an overload's or a property
      // setter's redefinition the first one's symbol without the definition role).
      if (
        !text
          .slice(col + name.length)
          .trimStart()
          .startsWith("(") ||
        this.dialect.declares.test(text.slice(0, col))
      )
        continue;
      const o = here.find((x) => x.range[1] === col && x.range[2] === line - 1);
      if (o !== undefined && o.roles & SCIP_ROLE.definition) continue;
      called = true;
      if (o === undefined || scipDescriptor(o.symbol)?.name !== name) continue;
      const def = this.definitions.get(symbolKey(o.symbol));
      if (def !== undefined && def.path === target.path && def.line >= target.line && def.line <= target.line + LINE_SLACK) return "calls_target";
      if (def === undefined && this.installedCopy(o.symbol)) {
        // The project's own module as installed elsewhere (a src/ layout whose package is also on
        // the interpreter's path): pyright resolved to the copy, not this file; it cannot say.
        unknown = true;
        continue;
      }
      if (target.name.includes(".") && scipDescriptor(o.symbol)?.owner != null) {
        // Another class's method of this name: the receiver's class at run time may override it
        // with the target, or inherit the target (virtual dispatch) — pyright names the declared one.
        unknown = true;
        continue;
      }
      different = true;
    }
    if (!called) return "non_call_site";
    return different && !unknown ? "resolves_to_different" : "unresolved";
  }

  /** Whether an external symbol names a project definition under a shorter module path (`flask.ctx` for `src.flask.ctx`). */
  private installedCopy(symbol: string): boolean {
    const m = moduleSplit(symbol);
    return m !== null && (this.modulesOf.get(m.rest) ?? []).some((module) => module === m.module || module.endsWith(`.${m.module}`));
  }

  private view(path: string): FileView | null {
    const known = this.views.get(path);
    if (known !== undefined) return known;
    const occurrences = this.documents.get(path);
    let view: FileView | null = null;
    if (occurrences !== undefined) {
      let source: string | null = null;
      try {
        source = readFileSync(absoluteIn(this.root, path), "utf8");
      } catch {
        source = null;
      }
      if (source !== null) {
        const byLine = new Map<number, ScipOccurrence[]>();
        for (const o of occurrences) {
          const list = byLine.get(o.range[0]);
          if (list) list.push(o);
          else byLine.set(o.range[0], [o]);
        }
        view = { lines: source.split(/\r?\n/), prose: this.dialect.prose(source), occurrences: byLine };
      }
    }
    this.views.set(path, view);
    return view;
  }
}

/**
 * A symbol without its package (`scheme descriptors`): scip-python names one project's module by
 * the installed distribution in one place and by `--project-name` in another (flask's own
 * `flask.ctx/g#` under both), so a reference and its definition are matched by descriptors.
 */
function symbolKey(symbol: string): string {
  if (symbol.startsWith("local ")) return symbol;
  const parts = symbol.split(" ");
  return parts.length < 5 ? symbol : `${parts[0]} ${parts.slice(4).join(" ")}`;
}

/** A global symbol's module (its namespace descriptor, unquoted) and the descriptors after it. */
function moduleSplit(symbol: string): { module: string; rest: string } | null {
  if (symbol.startsWith("local ")) return null;
  const parts = symbol.split(" ");
  if (parts.length < 5) return null;
  const m = /^(`(?:[^`]|``)*`|[^/\s`]+)\/(.+)$/s.exec(parts.slice(4).join(" "));
  return m ? { module: m[1]!.replace(/^`|`$/g, "").replace(/``/g, "`"), rest: m[2]! } : null;
}

/** Columns where `name` is written as a whole identifier on `text`. */
function wordPositions(text: string, name: string): number[] {
  const out: number[] = [];
  if (name === "") return out;
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    const before = at === 0 ? "" : text[at - 1]!;
    const after = text[at + name.length] ?? "";
    if (!/[\w]/.test(before) && !/[\w]/.test(after)) out.push(at);
  }
  return out;
}

/**
 * The comments and string literals of a Python source, per 0-based line as [start, end) columns
 * (a triple-quoted string spans lines). Prefixes (`f"`, `rb'`) need nothing: the quote opens the
 * string; an f-string's replacement fields count as string (a call inside one stays potential).
 */
export function proseSpans(source: string): Map<number, Array<[number, number]>> {
  const spans = new Map<number, Array<[number, number]>>();
  const add = (line: number, s: number, e: number) => {
    if (e <= s) return;
    const list = spans.get(line);
    if (list) list.push([s, e]);
    else spans.set(line, [[s, e]]);
  };
  let line = 0;
  let col = 0;
  // The open string: its quote, whether triple, where it began on the current line.
  let quote: string | null = null;
  let triple = false;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\n") {
      if (quote !== null) {
        add(line, from, col);
        if (!triple) quote = null; // an unterminated one-line string ends with its line
      }
      line++;
      col = 0;
      from = 0;
      continue;
    }
    if (quote === null) {
      if (c === "#") {
        const end = source.indexOf("\n", i);
        const stop = end === -1 ? source.length : end;
        add(line, col, col + (stop - i));
        col += stop - i;
        i = stop - 1;
        continue;
      }
      if (c === '"' || c === "'") {
        quote = c;
        triple = source.startsWith(c.repeat(3), i);
        from = col;
        if (triple) {
          i += 2;
          col += 2;
        }
      }
    } else if (c === "\\") {
      if (source[i + 1] !== "\n") {
        i++;
        col++;
      }
    } else if (c === quote && (!triple || source.startsWith(c.repeat(3), i))) {
      if (triple) {
        i += 2;
        col += 2;
      }
      add(line, from, col + 1);
      quote = null;
    }
    col++;
  }
  if (quote !== null) add(line, from, col);
  return spans;
}
