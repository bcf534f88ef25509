// `verify-changes` (hashpilot contract): the formatter, linter, type checker and tests a caller
// names (or `auto_detect` finds in package.json, pyproject.toml, go.mod or Cargo.toml, walking up
// from the changed files to the nearest project), run through edit/commands.ts in that project's
// directory; tests restricted to the changed files by default (edit/test-runners.ts). Baselines:
// `record_baseline` runs the tests and keeps the failing names, keyed by commit + runner + scope,
// in $HASHPILOT_HOME/baselines; `use_baseline` subtracts them, or says the comparison is not
// comparable — never a guess. The verdict is pass, fail, timeout (never reverts) or skipped (no
// check ran); `revert_on_failure` puts back the bytes from before the edit — the newest changeSet
// of this project that wrote each file — as a changeSet of its own, so the revert can be undone.
// What a formatter rewrites is recorded in that changeSet too.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { writeAtomic } from "../base/atomic.js";
import { removePinned } from "../base/confined.js";
import { MastError, errorMessage, isMastError } from "../base/errors.js";
import { parseToml } from "../base/formats.js";
import { sha256 } from "../base/hash.js";
import { readRegularFile } from "../base/read.js";
import { checkCommand, findProgram, runCommand, splitCommand, type CheckCommand, type RunOutcome } from "./commands.js";
import type { OpContext, OpResult, Warning } from "./op-result.js";
import { readablePath } from "./paths.js";
import { listChangeSets, readBlob } from "./snapshots.js";
import { RUNNERS, runnerNamed, stripAnsi, type TestRunner } from "./test-runners.js";
import { decodeForEdit, fileHash } from "./text.js";
import { ensurePrivateDir, hashpilotHome, readBytes, withFileLocks } from "./writer.js";

export interface VerifyInput {
  readonly files: readonly string[];
  readonly formatter?: string | undefined;
  readonly linter?: string | undefined;
  readonly typecheck?: string | undefined;
  readonly test_runner?: string | undefined;
  readonly test_filter?: string | undefined;
  readonly auto_detect: boolean;
  readonly scope_tests: boolean;
  readonly revert_on_failure: boolean;
  readonly timeout_ms: number;
  readonly use_baseline: boolean;
  readonly record_baseline: boolean;
  readonly formatter_args?: string | undefined;
  readonly linter_args?: string | undefined;
  readonly test_args?: string | undefined;
  /** The tsconfig a type check of a file should name (query/checker-program.ts owningTsconfig; edit/ cannot import query/). */
  readonly tsconfigOf?: (file: string) => string | null;
}

type CheckName = "formatter" | "linter" | "typecheck" | "tests";
const CHECK_ORDER: readonly CheckName[] = ["formatter", "linter", "typecheck", "tests"];

export interface CheckResult {
  passed: boolean;
  output: string;
  command: string;
  exitCode: number | null;
  timedOut?: true;
  truncated?: true;
  elapsed_ms: number;
}

export interface TestScopeReport {
  cmd: string;
  args: string[];
  scoped: boolean;
  reason: string;
}

export interface BaselineReport {
  source: "cache";
  comparable: boolean;
  preExisting: string[];
  newFailures: string[];
  reason: string;
}

export interface VerifyResult {
  files: string[];
  formatter?: CheckResult;
  linter?: CheckResult;
  typecheck?: CheckResult;
  tests?: CheckResult;
  overall: "pass" | "fail" | "timeout" | "skipped";
  checksRun: CheckName[];
  errorCode?: "VERIFY_FAILED" | "VERIFY_TIMEOUT" | "VERIFY_NO_CHECKS";
  timedOut?: CheckName[];
  testScope?: TestScopeReport;
  baseline?: BaselineReport;
  elapsed_ms: number;
  fileHashes: Record<string, string | null>;
  detected?: Record<string, string>;
  /** Files the formatter rewrote (recorded in this call's changeSet). */
  formatted?: string[];
  revertedFiles?: string[];
  /** With revert_on_failure: files that could not be put back, and why. */
  unrevertedFiles?: Array<{ file: string; reason: string }>;
  changeSetId?: string;
}

export interface BaselineRecorded {
  recorded: boolean;
  reason: string;
  commit: string | null;
  runner: string | null;
  failures: string[] | null;
  cached: boolean;
}

/** The checks auto_detect found for a project directory, as command lines. */
interface Detection {
  readonly dir: string;
  readonly formatter?: string;
  readonly linter?: string;
  readonly typecheck?: string;
  readonly testRunner?: TestRunner;
}

const MANIFESTS = ["package.json", "pyproject.toml", "go.mod", "Cargo.toml"];

/** The nearest directory from `start` up to `root` holding a project manifest; `root` when none does. */
function projectDir(start: string, root: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (MANIFESTS.some((m) => existsSync(join(dir, m)))) return dir;
    if (dir === root || relative(root, dir).startsWith("..") || dirname(dir) === dir) return root;
  }
}

function readText(path: string): string | null {
  const r = readRegularFile(path, { maxBytes: 4 * 1024 * 1024 });
  return r.kind === "read" ? r.bytes.toString("utf8") : null;
}

/**
 * Whether a pyproject.toml names a tool: its `[tool.<name>]` table, a dependency on it (a
 * requirement string such as "pytest>=8" in any list) or a key of that name in any table (Poetry's
 * `[tool.poetry.group.dev.dependencies] pytest = "^8"`). A file TOML cannot read names none.
 */
function pyprojectMentions(text: string): (tool: string) => boolean {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text);
  } catch {
    return () => false;
  }
  const keys = new Set<string>();
  const requirements = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      const name = /^[A-Za-z0-9._-]+/.exec(v.trim())?.[0];
      if (name !== undefined) requirements.add(name.toLowerCase());
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === "object") {
      for (const [k, inner] of Object.entries(v)) {
        keys.add(k.toLowerCase());
        visit(inner);
      }
    }
  };
  visit(doc);
  // A `[tool.<name>]` table's key is among the keys.
  return (tool) => keys.has(tool) || requirements.has(tool);
}

/** A Cargo.toml's `[package] edition` (a year), when it says one itself. */
function cargoEdition(text: string): string | undefined {
  try {
    const edition = (parseToml(text).package as { edition?: unknown } | undefined)?.edition;
    return typeof edition === "string" && /^\d{4}$/.test(edition) ? edition : undefined;
  } catch {
    return undefined;
  }
}

/** What package.json, pyproject.toml, go.mod or Cargo.toml in `dir` say to run (only programs that are installed). */
export function detectChecks(dir: string, root: string, files: readonly string[] = [], tsconfigOf?: (file: string) => string | null): Detection {
  const has = (p: string) => findProgram(p, dir, root) !== null;
  const pkgText = readText(join(dir, "package.json"));
  if (pkgText !== null) {
    let pkg: { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; scripts?: Record<string, string> } = {};
    try {
      pkg = JSON.parse(pkgText) as typeof pkg;
    } catch {
      throw new MastError("CONFIG_INVALID", `${join(dir, "package.json")} is not valid JSON, so --auto-detect cannot read it`);
    }
    const deps = { ...pkg.dependencies, ...pkg.devDependencies };
    const biome = "@biomejs/biome" in deps && has("biome");
    const bun = existsSync(join(dir, "bun.lockb")) || existsSync(join(dir, "bun.lock")) || /^bun test\b/.test(pkg.scripts?.test ?? "");
    return {
      dir,
      ...("prettier" in deps && has("prettier") ? { formatter: "prettier --write" } : biome ? { formatter: "biome format --write" } : {}),
      ...("eslint" in deps && has("eslint") ? { linter: "eslint" } : biome ? { linter: "biome lint" } : {}),
      ...("typescript" in deps && existsSync(join(dir, "tsconfig.json")) && has("tsc") ? typecheckFor(dir, files, tsconfigOf) : {}),
      ...("vitest" in deps && has("vitest")
        ? { testRunner: RUNNERS.vitest }
        : "jest" in deps && has("jest")
          ? { testRunner: RUNNERS.jest }
          : bun && has("bun")
            ? { testRunner: RUNNERS["bun test"] }
            : {}),
    };
  }
  const py = readText(join(dir, "pyproject.toml"));
  if (py !== null) {
    const mentions = pyprojectMentions(py);
    const pytest = mentions("pytest") && (has("pytest") || pythonModule("pytest"));
    return {
      dir,
      ...(mentions("black") && has("black") ? { formatter: "black" } : {}),
      ...(mentions("ruff") && has("ruff") ? { linter: "ruff check" } : {}),
      ...(mentions("mypy") && has("mypy") ? { typecheck: "mypy ." } : {}),
      ...(pytest ? { testRunner: RUNNERS.pytest } : {}),
    };
  }
  if (existsSync(join(dir, "go.mod")) && has("go")) return { dir, linter: "go vet ./...", testRunner: RUNNERS["go test"] };
  const cargo = readText(join(dir, "Cargo.toml"));
  if (cargo !== null && has("cargo")) {
    const edition = cargoEdition(cargo);
    return { dir, ...(has("rustfmt") ? { formatter: `rustfmt${edition ? ` --edition ${edition}` : ""}` } : {}), linter: "cargo clippy", typecheck: "cargo check", testRunner: RUNNERS["cargo test"] };
  }
  return { dir };
}

/**
 * `tsc --noEmit`, naming the config whose program holds the changed files when it is not the
 * directory's tsconfig.json (a solution config of references checks nothing); no type check when
 * no config includes them.
 */
function typecheckFor(dir: string, files: readonly string[], tsconfigOf?: (file: string) => string | null): { typecheck?: string } {
  const ts = files.filter((f) => /\.[cm]?tsx?$/.test(f));
  if (ts.length === 0 || !tsconfigOf) return { typecheck: "tsc --noEmit" };
  const config = tsconfigOf(ts[0]!);
  if (config === null) return {};
  return { typecheck: config === join(dir, "tsconfig.json") ? "tsc --noEmit" : `tsc --noEmit -p ${relative(dir, config)}` };
}

const PYTHON_MODULES = new Map<string, boolean>();

/** Whether `python3 -m <module>` can run here (asked of Python once per process). */
function pythonModule(module: string): boolean {
  let found = PYTHON_MODULES.get(module);
  if (found === undefined) {
    found = findProgram("python3", "/") !== null && spawnSync("python3", ["-m", module, "--version"], { stdio: "ignore", timeout: 10_000 }).status === 0;
    PYTHON_MODULES.set(module, found);
  }
  return found;
}

/** The commit HEAD names in the project's git repository, or null outside one. */
function headCommit(dir: string): string | null {
  const r = spawnSync("git", ["rev-parse", "HEAD"], { cwd: dir, encoding: "utf8", timeout: 10_000 });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Programs that take packages or crates, not files: their formatter or linter command gets no file list. */
const WHOLE_PROJECT_PROGRAMS = new Set(["go", "cargo", "tsc", "mypy"]);

function commandFor(label: CheckName, line: string, extra: string | undefined, files: readonly string[], dir: string, root: string): CheckCommand {
  const words = [...splitCommand(line), ...(extra ? splitCommand(extra) : [])];
  const program = words[0] ?? "";
  const withFiles = (label === "formatter" || label === "linter") && !WHOLE_PROJECT_PROGRAMS.has(program) ? [...words, ...files.map((f) => relative(dir, f))] : words;
  return checkCommand(label, withFiles, dir, root);
}

/** The test command: the runner's words, its scope, the filter and --test-args; pytest as `python3 -m pytest` when only the module is installed. */
function testCommand(runner: TestRunner, args: readonly string[], extra: string | undefined, dir: string, root: string): CheckCommand {
  const tail = [...args, ...(extra ? splitCommand(extra) : [])];
  try {
    return checkCommand("test", [...runner.command, ...tail], dir, root);
  } catch (err) {
    if (runner.name === "pytest" && isMastError(err) && err.code === "FILE_NOT_FOUND" && pythonModule("pytest")) return checkCommand("test", ["python3", "-m", "pytest", ...tail], dir, root);
    throw err;
  }
}

function checkResult(command: CheckCommand, run: RunOutcome): CheckResult {
  const output = stripAnsi([run.stdout, run.stderr, run.spawnError ? `cannot start ${command.program}: ${run.spawnError}` : ""].filter((s) => s.length > 0).join("\n"));
  return {
    passed: run.exitCode === 0 && !run.timedOut && run.spawnError === undefined,
    output,
    command: [command.program, ...command.args].join(" "),
    exitCode: run.exitCode,
    ...(run.timedOut ? { timedOut: true as const } : {}),
    ...(run.truncated ? { truncated: true as const } : {}),
    elapsed_ms: run.elapsed_ms,
  };
}

/** Failing tests' names in a run, or null when they cannot be told: output cut, or a failed run whose output names none. */
function failingNames(runner: TestRunner, result: CheckResult): string[] | null {
  if (result.truncated || result.timedOut) return null;
  const names = runner.failures(result.output);
  if (names.length === 0 && result.exitCode !== 0) return null;
  return names.sort();
}

interface StoredBaseline {
  readonly commit: string;
  readonly runner: string;
  readonly scope: readonly string[];
  readonly failures: string[] | null;
  readonly recordedAt: string;
}

function baselinePath(root: string, commit: string, runner: string, scope: readonly string[]): string {
  return join(hashpilotHome(), "baselines", `${sha256(JSON.stringify([root, commit, runner, scope])).slice(0, 32)}.json`);
}

function readBaseline(path: string): StoredBaseline | null {
  const text = readText(path);
  if (text === null) return null;
  try {
    const b = JSON.parse(text) as StoredBaseline;
    return typeof b.commit === "string" && (b.failures === null || (Array.isArray(b.failures) && b.failures.every((f) => typeof f === "string"))) ? b : null;
  } catch {
    return null;
  }
}

interface Plan {
  readonly dir: string;
  readonly files: string[];
  readonly commands: Partial<Record<CheckName, CheckCommand>>;
  readonly runner: TestRunner | null;
  readonly scope: TestScopeReport | null;
  readonly detected: Record<string, string>;
}

/** Which checks run, as what commands, from where: every argument checked before anything runs. */
function planChecks(oc: OpContext, input: VerifyInput): Plan {
  if (input.files.length === 0) throw new MastError("INVALID_ARGUMENT", "verify-changes needs at least one file", { hint: "Name the files the edit changed." });
  // Real paths, as the boundary resolved them: every read, revert and changeSet below goes by the file itself.
  const files = input.files.map((f) => readablePath(f, oc.boundary, oc.cwd).real);
  for (const f of files) if (!existsSync(f)) throw new MastError("FILE_NOT_FOUND", `${f} does not exist`);
  const root = oc.boundary.realRoot;
  const dir = projectDir(dirname(files[0]!), root);
  const detection = input.auto_detect ? detectChecks(dir, root, files, input.tsconfigOf) : { dir };
  const detected: Record<string, string> = {};
  const lines: Partial<Record<Exclude<CheckName, "tests">, string>> = {};
  for (const check of ["formatter", "linter", "typecheck"] as const) {
    const line = input[check] ?? detection[check];
    if (line === undefined) continue;
    lines[check] = line;
    if (input[check] === undefined) detected[check] = line;
  }
  const runner = input.test_runner !== undefined ? runnerNamed(input.test_runner) : (detection.testRunner ?? null);
  if (input.test_runner === undefined && runner) detected.testRunner = runner.name;
  if (input.test_filter !== undefined && runner === null)
    throw new MastError("INVALID_ARGUMENT", "--test-filter needs a test runner", { hint: "Pass --test-runner (vitest, jest, bun test, pytest, go test, cargo test) or --auto-detect." });
  const commands: Partial<Record<CheckName, CheckCommand>> = {};
  const extra = { formatter: input.formatter_args, linter: input.linter_args, typecheck: undefined };
  for (const [check, line] of Object.entries(lines) as Array<[Exclude<CheckName, "tests">, string]>) commands[check] = commandFor(check, line, extra[check], files, dir, root);
  let scope: TestScopeReport | null = null;
  if (runner) {
    const picked = input.scope_tests ? runner.scope(dir, files) : { args: runner.whole, scoped: false, reason: `--no-scope-tests: ${runner.name} ran the whole suite` };
    const args = [...(picked.args.length === 0 ? runner.whole : picked.args), ...(input.test_filter !== undefined ? runner.filter(input.test_filter) : [])];
    commands.tests = testCommand(runner, args, input.test_args, dir, root);
    scope = { cmd: runner.name, args: [...args, ...(input.test_args ? splitCommand(input.test_args) : [])], scoped: picked.scoped, reason: picked.reason };
  }
  return { dir, files, commands, runner, scope, detected };
}

function hashesOf(files: readonly string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const f of files) {
    const bytes = readBytes(f);
    out[f] = bytes === null ? null : fileHash(decodeForEdit(f, bytes));
  }
  return out;
}

/** `record_baseline`: the tests' failing names now, kept for a later use_baseline at this commit. */
export async function recordBaseline(oc: OpContext, input: VerifyInput): Promise<OpResult<BaselineRecorded>> {
  const plan = planChecks(oc, input);
  const no = (reason: string, commit: string | null = null): OpResult<BaselineRecorded> => ({
    data: { recorded: false, reason, commit, runner: plan.runner?.name ?? null, failures: null, cached: false },
    warnings: [],
  });
  if (!plan.runner || !plan.commands.tests || !plan.scope) return no("no test runner: pass --test-runner or --auto-detect");
  const commit = headCommit(plan.dir);
  if (commit === null) return no("not a git repository: a baseline is keyed by commit");
  const path = baselinePath(oc.boundary.realRoot, commit, plan.runner.name, plan.scope.args);
  const existing = readBaseline(path);
  if (existing) {
    return {
      data: {
        recorded: false,
        cached: true,
        reason: `a baseline for ${commit.slice(0, 8)}, ${plan.runner.name} and this scope already exists; left alone`,
        commit,
        runner: plan.runner.name,
        failures: existing.failures,
      },
      warnings: [],
    };
  }
  const result = checkResult(plan.commands.tests, await runCommand(plan.commands.tests, plan.dir, input.timeout_ms));
  if (result.timedOut) return no(`the baseline run timed out after ${input.timeout_ms} ms; nothing was recorded`, commit);
  const failures = failingNames(plan.runner, result);
  ensurePrivateDir(dirname(path));
  const stored: StoredBaseline = { commit, runner: plan.runner.name, scope: plan.scope.args, failures, recordedAt: new Date().toISOString() };
  writeAtomic(path, Buffer.from(`${JSON.stringify(stored, null, 2)}\n`), { mode: 0o600 });
  const reason =
    failures === null
      ? `recorded at ${commit.slice(0, 8)}, but the output could not be parsed into test names: later comparisons are not comparable`
      : `recorded ${failures.length} pre-existing failure(s) at ${commit.slice(0, 8)}`;
  return { data: { recorded: true, reason, commit, runner: plan.runner.name, failures, cached: false }, warnings: [] };
}

function compareBaseline(oc: OpContext, plan: Plan, result: CheckResult): BaselineReport {
  const not = (reason: string): BaselineReport => ({ source: "cache", comparable: false, preExisting: [], newFailures: [], reason });
  const commit = headCommit(plan.dir);
  if (commit === null) return not("not a git repository, so no baseline can exist: every failure counts");
  const stored = readBaseline(baselinePath(oc.boundary.realRoot, commit, plan.runner!.name, plan.scope!.args));
  if (!stored) return not(`no baseline recorded at ${commit.slice(0, 8)} for ${plan.runner!.name} and this scope (run --record-baseline before editing): every failure counts`);
  if (stored.failures === null) return not("the baseline run's output could not be parsed into test names: every failure counts");
  const now = failingNames(plan.runner!, result);
  if (now === null)
    return not(
      result.truncated ? "this run's output was cut at 256 KB, so its failures cannot be told: every failure counts" : "this run's output could not be parsed into test names: every failure counts",
    );
  const before = new Set(stored.failures);
  const preExisting = now.filter((n) => before.has(n));
  const newFailures = now.filter((n) => !before.has(n));
  const reason =
    now.length === 0
      ? "no test failed"
      : newFailures.length === 0
        ? `all failures were already failing at ${commit.slice(0, 8)}`
        : `${newFailures.length} test(s) fail that did not at ${commit.slice(0, 8)}`;
  return { source: "cache", comparable: true, preExisting, newFailures, reason };
}

/** The bytes each file had before the newest changeSet of this project that wrote it (null: that changeSet created it). */
function preEditBytes(oc: OpContext, files: readonly string[]): Map<string, { bytes: Uint8Array | null; changeSetId: string } | string> {
  const sets = listChangeSets(oc.boundary.realRoot).filter((c) => !c.undoneAt && c.changeSetId !== oc.changeSet.id);
  const out = new Map<string, { bytes: Uint8Array | null; changeSetId: string } | string>();
  for (const file of files) {
    const set = sets.find((c) => c.files.some((f) => f.path === file));
    if (!set) {
      out.set(file, "no changeSet of this project wrote it, so there is nothing to put back");
      continue;
    }
    const before = set.files.find((f) => f.path === file)!.before;
    if (before === null) {
      out.set(file, { bytes: null, changeSetId: set.changeSetId });
      continue;
    }
    try {
      out.set(file, { bytes: readBlob(before), changeSetId: set.changeSetId });
    } catch (err) {
      out.set(file, `the snapshot of ${file} before changeSet ${set.changeSetId} cannot be used: ${errorMessage(err)}`);
    }
  }
  return out;
}

/** Puts each file back as it was before its edit, recorded in this call's changeSet. */
async function revert(oc: OpContext, files: readonly string[]): Promise<{ reverted: string[]; unreverted: Array<{ file: string; reason: string }> }> {
  const targets = preEditBytes(oc, files);
  const reverted: string[] = [];
  const unreverted: Array<{ file: string; reason: string }> = [];
  await withFileLocks([...files], "verify-changes revert", () => {
    for (const [file, target] of targets) {
      if (typeof target === "string") {
        unreverted.push({ file, reason: target });
        continue;
      }
      try {
        const current = readBytes(file);
        if (target.bytes === null) {
          if (current !== null) removePinned(file);
        } else {
          oc.changeSet.recordWrite(file, current, target.bytes);
          try {
            writeAtomic(file, target.bytes, { pinned: true });
          } catch (err) {
            oc.changeSet.forgetLast();
            throw err;
          }
          oc.changeSet.confirmLast();
        }
        reverted.push(file);
      } catch (err) {
        unreverted.push({ file, reason: `cannot write it back: ${errorMessage(err)}` });
      }
    }
  });
  return { reverted, unreverted };
}

/** Runs the checks and gives the verdict (the result whatever it is; the tool turns a non-pass into its error code). */
export async function verifyChanges(oc: OpContext, input: VerifyInput): Promise<OpResult<VerifyResult>> {
  const started = performance.now();
  const plan = planChecks(oc, input);
  const result: VerifyResult = { files: plan.files, overall: "pass", checksRun: [], elapsed_ms: 0, fileHashes: {} };
  const warnings: Warning[] = [];
  const written: string[] = [];
  if (Object.keys(plan.detected).length > 0) result.detected = plan.detected;
  for (const check of CHECK_ORDER) {
    const command = plan.commands[check];
    if (!command) continue;
    const before = check === "formatter" ? plan.files.map((f) => readBytes(f)) : [];
    result[check] = checkResult(command, await runCommand(command, plan.dir, input.timeout_ms));
    result.checksRun.push(check);
    if (check === "formatter") {
      // What the formatter rewrote is recorded (undoable), and the index catches up with it.
      const formatted: string[] = [];
      plan.files.forEach((f, i) => {
        const after = readBytes(f);
        if (after === null || (before[i] && Buffer.compare(before[i]!, after) === 0)) return;
        oc.changeSet.recordWrite(f, before[i] ?? null, after);
        oc.changeSet.confirmLast();
        formatted.push(f);
      });
      if (formatted.length > 0) {
        result.formatted = formatted;
        written.push(...formatted);
      }
    }
  }
  if (plan.scope) result.testScope = plan.scope;
  if (input.use_baseline && result.tests && plan.runner) {
    result.baseline = compareBaseline(oc, plan, result.tests);
    if (result.baseline.comparable && result.baseline.newFailures.length === 0 && !result.tests.timedOut) result.tests.passed = true;
  }
  const ran = result.checksRun.map((c) => [c, result[c]!] as const);
  if (ran.length === 0) {
    result.overall = "skipped";
    result.errorCode = "VERIFY_NO_CHECKS";
    warnings.push({ code: "VERIFY_NO_CHECKS", message: "no check ran, so nothing was verified: name a --formatter, --linter, --typecheck or --test-runner, or pass --auto-detect" });
  } else if (ran.some(([, r]) => !r.passed && !r.timedOut)) {
    result.overall = "fail";
    result.errorCode = "VERIFY_FAILED";
  } else if (ran.some(([, r]) => r.timedOut)) {
    result.overall = "timeout";
    result.errorCode = "VERIFY_TIMEOUT";
    result.timedOut = ran.filter(([, r]) => r.timedOut).map(([c]) => c);
  }
  if (input.revert_on_failure && result.overall === "fail") {
    const { reverted, unreverted } = await revert(oc, plan.files);
    result.revertedFiles = reverted;
    if (unreverted.length > 0) result.unrevertedFiles = unreverted;
    written.push(...reverted);
  }
  if (written.length > 0) result.changeSetId = oc.changeSet.id;
  result.fileHashes = hashesOf(plan.files);
  result.elapsed_ms = Math.round(performance.now() - started);
  return { data: result, warnings, written: [...new Set(written)] };
}
