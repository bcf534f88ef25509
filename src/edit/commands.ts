// The commands `verify-changes` may run (hashpilot contract, verify-changes): a check is given as
// a command line (`prettier --write`, `python -m pytest`), split into words without a shell, and
// run only when its program is on an allow-list of formatters, linters, type checkers and test
// runners, with the flags that would make one of them run arbitrary code refused (`node -e`,
// `python -c`, `go run`, `cargo --config`, `npx -c`; `python -m` only for pytest and mypy). The
// program is found in node_modules/.bin of the project directory or one above it, then on PATH. A run has the project
// root as its working directory, a time budget (its whole process group is killed past it), and
// each output stream captured up to 256 KB with the cut stated.
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, dirname, join, relative } from "node:path";
import { MastError } from "../base/errors.js";

/** Captured bytes per stream of one check, at most (contract: 256 KB). */
export const OUTPUT_CAP_BYTES = 256 * 1024;

/** Programs a check may run, each with the rule its arguments must follow (null: any arguments). */
const PROGRAMS: Readonly<Record<string, ((args: readonly string[]) => string | null) | null>> = {
  prettier: null,
  eslint: null,
  biome: null,
  tsc: null,
  vitest: null,
  jest: null,
  mypy: null,
  ruff: null,
  black: null,
  pytest: null,
  gofmt: null,
  rustfmt: null,
  node: nodeArgs,
  python: pythonArgs,
  python3: pythonArgs,
  bun: (args) => (args[0] === "test" ? refuseFlags(args, ["-e", "--eval", "-p", "--print", "--preload", "-r"]) : "bun runs only as `bun test`"),
  go: (args) => (["vet", "test", "build"].includes(args[0] ?? "") ? refuseFlags(args, ["-exec", "-toolexec", "-overlay"]) : "go runs only as `go vet`, `go test` or `go build`"),
  cargo: (args) => {
    const sub = args.find((a) => !a.startsWith("-") && !a.startsWith("+"));
    if (!["check", "clippy", "test", "fmt", "build"].includes(sub ?? "")) return "cargo runs only as `cargo check`, `clippy`, `test`, `fmt` or `build`";
    return refuseFlags(args, ["--config", "-Z"]);
  },
  npx: (args) => {
    const bad = refuseFlags(args, ["-c", "--call", "-p", "--package"]);
    if (bad) return bad;
    const program = args.find((a) => !a.startsWith("-"));
    return program !== undefined && program in PROGRAMS && program !== "npx" ? null : "npx runs only an allowed program (e.g. `npx prettier --write`)";
  },
};

function refuseFlags(args: readonly string[], flags: readonly string[]): string | null {
  const bad = args.find((a) => flags.some((f) => a === f || a.startsWith(`${f}=`)));
  return bad === undefined ? null : `${bad} would run arbitrary code`;
}

function nodeArgs(args: readonly string[]): string | null {
  const bad = refuseFlags(args, ["-e", "--eval", "-p", "--print", "-r", "--require", "--import", "--loader", "--experimental-loader", "-i", "--interactive", "-c", "--check"]);
  if (bad) return bad;
  return args.some((a) => !a.startsWith("-")) ? null : "node runs only a script (e.g. `node node_modules/.bin/vitest`)";
}

function pythonArgs(args: readonly string[]): string | null {
  if (args.some((a) => a === "-c" || a.startsWith("-c"))) return `${args.find((a) => a.startsWith("-c"))} would run arbitrary code`;
  const m = args.indexOf("-m");
  if (m === -1 || !["pytest", "mypy"].includes(args[m + 1] ?? "")) return "python runs only as `python -m pytest` or `python -m mypy`";
  return args.slice(0, m).length === 0 ? null : "python takes no flags before -m";
}

/** A command line split into words: whitespace separates, '…' and "…" quote (no escapes, no shell). */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let current: string | null = null;
  let quote: '"' | "'" | null = null;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current ??= "";
    } else if (/\s/.test(ch)) {
      if (current !== null) words.push(current);
      current = null;
    } else current = (current ?? "") + ch;
  }
  if (quote) throw new MastError("INVALID_ARGUMENT", `unbalanced ${quote} in the command ${JSON.stringify(line)}`, { hint: "Close the quote, or pass the arguments with --formatter-args / --linter-args / --test-args." });
  if (current !== null) words.push(current);
  return words;
}

export interface CheckCommand {
  /** The program as named (`prettier`), and where it was found. */
  readonly program: string;
  readonly path: string;
  readonly args: readonly string[];
}

/**
 * Where a program is: node_modules/.bin of `dir` and of each directory above it up to `root` (a
 * workspace package, then the workspace), then PATH; null when none has it.
 */
export function findProgram(program: string, dir: string, root: string = dir): string | null {
  const bins: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    bins.push(join(d, "node_modules", ".bin"));
    if (d === root || dirname(d) === d || relative(root, d).startsWith("..")) break;
  }
  for (const bin of [...bins, ...(process.env.PATH ?? "").split(delimiter).filter(Boolean)]) {
    const candidate = join(bin, program);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * A check's command as it will run: its words checked against the allow-list (INVALID_ARGUMENT
 * naming the reason otherwise) and its program found (FILE_NOT_FOUND when it is not installed).
 */
export function checkCommand(label: string, words: readonly string[], dir: string, root: string = dir): CheckCommand {
  const [program, ...args] = words;
  if (program === undefined) throw new MastError("INVALID_ARGUMENT", `the ${label} command is empty`);
  if (program.includes("/") || program.includes("\\") || !(program in PROGRAMS)) {
    throw new MastError("INVALID_ARGUMENT", `the ${label} command runs ${JSON.stringify(program)}, which is not an allowed check program`, {
      hint: `Allowed: ${Object.keys(PROGRAMS).join(", ")} (found in node_modules/.bin or on PATH, named without a path).`,
    });
  }
  const refused = PROGRAMS[program]?.(args) ?? null;
  if (refused) throw new MastError("INVALID_ARGUMENT", `the ${label} command ${JSON.stringify(words.join(" "))} is refused: ${refused}`, { hint: "Name the check's own program and its flags; inline code is never run." });
  const path = findProgram(program, dir, root);
  if (path === null) throw new MastError("FILE_NOT_FOUND", `the ${label} program ${program} is not installed (not in node_modules/.bin or on PATH)`, { hint: `Install ${program}, or leave the ${label} out.` });
  return { program, path, args };
}

export interface RunOutcome {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  /** A stream passed OUTPUT_CAP_BYTES: the rest was not kept. */
  readonly truncated: boolean;
  readonly elapsed_ms: number;
  /** The program could not be started (spawn error). */
  readonly spawnError?: string;
}

/** Runs a command (no shell) in `cwd` within `timeoutMs`; past it the process group is killed. */
export function runCommand(command: CheckCommand, cwd: string, timeoutMs: number): Promise<RunOutcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command.path, [...command.args], { cwd, shell: false, detached: true, stdio: ["ignore", "pipe", "pipe"], env: process.env });
    const streams = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const sizes = { stdout: 0, stderr: 0 };
    let truncated = false;
    let timedOut = false;
    let spawnError: string | undefined;
    const collect = (name: "stdout" | "stderr") => (chunk: Buffer) => {
      const room = OUTPUT_CAP_BYTES - sizes[name];
      if (room <= 0) {
        truncated = true;
        return;
      }
      if (chunk.length > room) truncated = true;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      streams[name].push(kept);
      sizes[name] += kept.length;
    };
    child.stdout!.on("data", collect("stdout"));
    child.stderr!.on("data", collect("stderr"));
    const kill = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.on("error", (err) => {
      spawnError = err.message;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      // A runner's own children (vitest's workers) go with it.
      if (!timedOut && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 0);
          kill();
        } catch {
          // the group is gone
        }
      }
      resolve({
        exitCode: code,
        timedOut,
        stdout: Buffer.concat(streams.stdout).toString("utf8"),
        stderr: Buffer.concat(streams.stderr).toString("utf8"),
        truncated,
        elapsed_ms: Math.round(performance.now() - started),
        ...(spawnError ? { spawnError } : {}),
      });
    });
  });
}
