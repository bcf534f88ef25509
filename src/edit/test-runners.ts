// The test runners `verify-changes` knows (docs/editing.md#verification-and-intents), as data: each
// one's command, how it is restricted to the tests related to the changed files (vitest
// `related`, jest `--findRelatedTests`, go package directories, cargo test targets, pytest and bun
// by naming convention), how a name filter is passed, and how failing tests' names are read from
// its output — the names a baseline records. A parser answers null when it cannot account for a
// failed run (no names in the output of a run that failed), so a comparison is never made on a
// guess.
import { type Dirent, readdirSync } from "node:fs";
import { basename, dirname, extname, join, relative } from "node:path";
import { MastError } from "../base/errors.js";

export type RunnerName = "vitest" | "jest" | "bun test" | "pytest" | "go test" | "cargo test";

export interface TestScope {
  /** The arguments after the runner's command that pick the tests. */
  readonly args: readonly string[];
  readonly scoped: boolean;
  readonly reason: string;
}

export interface TestRunner {
  readonly name: RunnerName;
  /** The command's words (before scope, filter and --test-args). */
  readonly command: readonly string[];
  /** The arguments that run the whole suite (--no-scope-tests, or nothing related found). */
  readonly whole: readonly string[];
  /** The arguments that run the tests related to the changed files (absolute paths). */
  scope(root: string, files: readonly string[]): TestScope;
  filter(pattern: string): string[];
  /** Failing tests' names in a run's output (ANSI codes already stripped). */
  failures(output: string): string[];
}

const ALIASES: Readonly<Record<string, RunnerName>> = {
  vitest: "vitest",
  jest: "jest",
  bun: "bun test",
  "bun test": "bun test",
  pytest: "pytest",
  "python -m pytest": "pytest",
  go: "go test",
  "go test": "go test",
  cargo: "cargo test",
  "cargo test": "cargo test",
};

/** A --test-runner value as a runner; INVALID_ARGUMENT for one this tool does not know. */
export function runnerNamed(value: string): TestRunner {
  const name = ALIASES[value.trim().replace(/\s+/g, " ")];
  if (!name) throw new MastError("INVALID_ARGUMENT", `--test-runner takes one of ${Object.keys(ALIASES).join(", ")}, not ${JSON.stringify(value)}`);
  return RUNNERS[name];
}

const rel = (root: string, files: readonly string[]) => files.map((f) => relative(root, f) || ".");

/** Directories a test-file search never enters. */
const SKIP_DIRS = new Set(["node_modules", ".git", "dist", "build", "target", ".venv", "venv", "__pycache__", ".mast", "coverage", ".next", ".tox"]);
const MAX_SEARCHED = 50_000;

/** Files under root (skipping dependency and build directories) whose base name passes `want`. */
function filesNamed(root: string, want: (name: string) => boolean): string[] {
  const out: string[] = [];
  const stack = [root];
  let seen = 0;
  while (stack.length > 0 && seen < MAX_SEARCHED) {
    const dir = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      seen += 1;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) stack.push(join(dir, e.name));
      } else if (e.isFile() && want(e.name)) out.push(join(dir, e.name));
    }
  }
  return out.sort();
}

/** Tests found by naming convention: the changed files that are tests, and the tests named after the others. */
function byConvention(root: string, files: readonly string[], isTest: (name: string) => boolean, testNames: (stem: string, ext: string) => string[], runner: string): TestScope {
  const tests = new Set(files.filter((f) => isTest(basename(f))));
  const wanted = new Set<string>();
  for (const f of files) {
    if (tests.has(f)) continue;
    const ext = extname(f);
    for (const n of testNames(basename(f, ext), ext)) wanted.add(n);
  }
  if (wanted.size > 0) for (const f of filesNamed(root, (n) => wanted.has(n))) tests.add(f);
  if (tests.size === 0) return { args: [], scoped: false, reason: `no test file is named after the changed files, so ${runner} ran the whole suite` };
  const list = rel(root, [...tests].sort());
  return { args: list, scoped: true, reason: `${runner} restricted to ${list.length} related test file(s) by naming convention` };
}

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
export const stripAnsi = (s: string) => s.replace(ANSI, "");

const matches = (output: string, re: RegExp) => [...output.matchAll(re)].map((m) => m[1]!.trim());
const unique = (names: string[]) => [...new Set(names)];

const JS_TEST = /\.(test|spec)\.[cm]?[jt]sx?$/;

export const RUNNERS: Readonly<Record<RunnerName, TestRunner>> = {
  vitest: {
    name: "vitest",
    command: ["vitest"],
    whole: ["run"],
    scope: (root, files) => ({ args: ["related", "--run", ...rel(root, files)], scoped: true, reason: `vitest related: the tests that import the ${files.length} changed file(s), directly or not` }),
    filter: (p) => ["-t", p],
    // ` FAIL  test/a.test.ts > suite > name` (a file that failed to load: ` FAIL  test/a.test.ts [ test/a.test.ts ]`).
    failures: (out) => unique(matches(out, /^\s*FAIL\s+(\S.*?)\s*$/gm)),
  },
  jest: {
    name: "jest",
    command: ["jest"],
    whole: [],
    scope: (root, files) => ({ args: ["--findRelatedTests", ...rel(root, files)], scoped: true, reason: `jest --findRelatedTests: the tests that depend on the ${files.length} changed file(s)` }),
    filter: (p) => ["-t", p],
    // `  ● describe › name` per failing test; `● Test suite failed to run` names its file on the FAIL line above.
    failures: (out) => {
      const names: string[] = [];
      let file = "";
      for (const line of out.split("\n")) {
        const f = /^\s*FAIL\s+(\S+)/.exec(line);
        if (f) file = f[1]!;
        const t = /^\s*●\s+(.+?)\s*$/.exec(line);
        if (t) names.push(t[1] === "Test suite failed to run" ? `${file}: ${t[1]}` : t[1]!);
      }
      return unique(names);
    },
  },
  "bun test": {
    name: "bun test",
    command: ["bun", "test"],
    whole: [],
    scope: (root, files) =>
      byConvention(
        root,
        files,
        (n) => JS_TEST.test(n) || /_test\.[cm]?[jt]sx?$/.test(n),
        (stem, ext) => [".test", ".spec", "_test"].map((s) => `${stem}${s}${ext}`),
        "bun test",
      ),
    filter: (p) => ["-t", p],
    // `(fail) describe > name [0.12ms]`
    failures: (out) => unique(matches(out, /^\s*\(fail\)\s+(.+?)(?:\s+\[[\d.]+m?s\])?\s*$/gm)),
  },
  pytest: {
    name: "pytest",
    command: ["pytest"],
    whole: [],
    scope: (root, files) =>
      byConvention(
        root,
        files,
        (n) => /^test_.*\.py$/.test(n) || /_test\.py$/.test(n),
        (stem) => [`test_${stem}.py`, `${stem}_test.py`],
        "pytest",
      ),
    filter: (p) => ["-k", p],
    // The short summary: `FAILED tests/test_x.py::test_name - AssertionError`, `ERROR tests/test_y.py`.
    failures: (out) => unique(matches(out, /^(?:FAILED|ERROR)\s+(\S+)/gm)),
  },
  "go test": {
    name: "go test",
    command: ["go", "test"],
    whole: ["./..."],
    scope: (root, files) => {
      const dirs = [...new Set(files.filter((f) => f.endsWith(".go")).map((f) => dirname(f)))].sort();
      if (dirs.length === 0 || dirs.length !== new Set(files.map((f) => dirname(f))).size) {
        return { args: ["./..."], scoped: false, reason: "a changed file is not Go source, so go test ran every package" };
      }
      const pkgs = dirs.map((d) => `./${relative(root, d)}`.replace(/^\.\/$/, "."));
      return { args: pkgs, scoped: true, reason: `go test restricted to the ${pkgs.length} package(s) of the changed files` };
    },
    filter: (p) => ["-run", p],
    // `--- FAIL: TestName (0.00s)`, subtests `    --- FAIL: TestName/sub (0.00s)`; a package that does not build: `FAIL\tpkg [build failed]`.
    failures: (out) => unique([...matches(out, /^\s*--- FAIL:\s+(\S+)/gm), ...matches(out, /^FAIL\s+(\S+\s+\[(?:build failed|setup failed)\])/gm)]),
  },
  "cargo test": {
    name: "cargo test",
    command: ["cargo", "test", "--no-fail-fast"],
    whole: [],
    scope: (root, files) => {
      const targets = files.map((f) => relative(root, f)).map((r) => /^tests\/([^/]+)\.rs$/.exec(r)?.[1] ?? null);
      if (targets.some((t) => t === null))
        return { args: [], scoped: false, reason: "a changed file is outside tests/, where every test target of the crate may depend on it, so cargo test ran them all" };
      const names = [...new Set(targets as string[])].sort();
      return { args: names.flatMap((n) => ["--test", n]), scoped: true, reason: `cargo test restricted to the ${names.length} integration test target(s) changed` };
    },
    filter: (p) => [p],
    // `     Running tests/api.rs (target/…)` then `test name ... FAILED`: named by target, `tests/api.rs::name`.
    failures: (out) => {
      const names: string[] = [];
      let target = "";
      for (const line of out.split("\n")) {
        const r = /^\s*Running\s+(?:unittests\s+)?(\S+)/.exec(line);
        if (r) target = r[1]!;
        const t = /^test\s+(\S+)\s+\.\.\.\s+FAILED\s*$/.exec(line);
        if (t) names.push(target ? `${target}::${t[1]}` : t[1]!);
      }
      return unique(names);
    },
  },
};
