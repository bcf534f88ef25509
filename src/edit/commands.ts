// The commands `verify-changes` may run (docs/editing.md#verification-and-intents): a check's command line,
// split into words without a shell, runs only when its program is on an allow-list of formatters,
// linters, type checkers and test runners, none of its words is an option that would run other code
// (read as that program reads options: combined, with values attached, `--opt=value`, go's `-flag`,
// argparse's prefixes) and none names a path outside the project root, lexically or through a
// symlink. A wrapper (npx, npm exec, bunx, pnpm exec) is never run: the program it names runs
// itself, found in node_modules/.bin of the project directory or one above it up to the root, then
// on PATH, or named by a path inside the root. A run has the project directory as its working
// directory, a time budget (its whole process group is killed past it), and each output stream
// captured up to 256 KB with the cut stated.
import { isExecutable, pathDirectories } from "../base/programs.js";
import { spawn } from "node:child_process";
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { MastError } from "../base/errors.js";
import { relativeInside } from "../base/paths.js";

/** Captured bytes per stream of one check, at most (contract: 256 KB). */
export const OUTPUT_CAP_BYTES = 256 * 1024;

/** What a program's arguments may not be: options refused in every form they take, and whatever else they must be. */
interface ArgumentRule {
  /** Long options that run code: `--name`, `--name=…` and `--name.field` (node's `--na_me`; go's `-name`; argparse: any prefix of it). */
  readonly long?: readonly string[];
  /** Short options that run code, refused wherever they stand in a `-abc` word: combined, or with a value attached. */
  readonly short?: string;
  /** Option syntax other than getopt's: go's single-dash long flags, argparse's abbreviated long options. */
  readonly syntax?: "go" | "abbreviating";
  /** Why the arguments are refused otherwise (a subcommand, a script, a module), or null. */
  readonly check?: (args: readonly string[]) => string | null;
}

const PYTHON: ArgumentRule = {
  check: (args) => (args[0] === "-m" && (args[1] === "pytest" || args[1] === "mypy") ? argumentRefusal(args[1], args.slice(2)) : "python runs only as `python -m pytest` or `python -m mypy`"),
};

/** Programs a check may run, each with the rule its arguments follow. */
const PROGRAMS: ReadonlyMap<string, ArgumentRule> = new Map<string, ArgumentRule>([
  ...["prettier", "eslint", "biome", "tsc", "jest", "ruff", "black", "gofmt", "rustfmt"].map((p): [string, ArgumentRule] => [p, {}]),
  ["vitest", { long: ["inspect", "inspect-brk", "api", "ui"] }],
  ["mypy", { long: ["python-executable", "install-types"], syntax: "abbreviating" }],
  ["pytest", { long: ["pyargs", "pdbcls"], check: pytestValues }],
  ["python", PYTHON],
  ["python3", PYTHON],
  [
    "node",
    {
      short: "epric",
      long: ["eval", "print", "require", "import", "loader", "experimental-loader", "interactive", "check", "run", "inspect", "inspect-brk", "inspect-wait"],
      check: (args) => (args.some((a) => !a.startsWith("-")) ? null : "node runs only a script (e.g. `node node_modules/.bin/vitest`)"),
    },
  ],
  ["bun", { short: "epr", long: ["eval", "print", "preload", "require", "inspect", "inspect-brk", "inspect-wait"], check: (args) => (args[0] === "test" ? null : "bun runs only as `bun test`") }],
  [
    "go",
    {
      syntax: "go",
      long: ["exec", "toolexec", "overlay", "vettool", "ldflags", "gccgoflags"],
      check: (args) => (["vet", "test", "build"].includes(args[0] ?? "") ? null : "go runs only as `go vet`, `go test` or `go build`"),
    },
  ],
  [
    "cargo",
    {
      short: "Z",
      long: ["config"],
      check: (args) => {
        const sub = args.find((a) => !a.startsWith("-") && !a.startsWith("+"));
        return ["check", "clippy", "test", "fmt", "build"].includes(sub ?? "") ? null : "cargo runs only as `cargo check`, `clippy`, `test`, `fmt` or `build`";
      },
    },
  ],
]);

/**
 * pytest's option values that load code: `-p` imports a plugin module (`-p no:<name>` only turns one
 * off), and `-o addopts=…` adds arguments, checked as pytest's own. In a short-option word the first
 * letter that takes a value takes the rest (`-rfp` is `-r fp`).
 */
function pytestValues(args: readonly string[]): string | null {
  for (const [i, a] of args.entries()) {
    const long = /^--override-ini(?:=(.*))?$/.exec(a);
    const cluster = /^-([^-].*)$/.exec(a)?.[1] ?? "";
    const at = cluster.search(/[ckmoprW]/);
    const option = long ? "o" : cluster[at];
    const value = (long ? long[1] : cluster.slice(at + 1)) || args[i + 1];
    if (option === "p" && !value?.startsWith("no:")) return `${a} loads a plugin module (only -p no:<name> turns one off)`;
    const added = option === "o" && value?.startsWith("addopts=") ? argumentRefusal("pytest", splitCommand(value.slice("addopts=".length))) : null;
    if (added) return added;
  }
  return null;
}

/** Whether a word is an option the rule refuses, read as the program reads its options. */
function runsCode(word: string, rule: ArgumentRule): boolean {
  if (!word.startsWith("-") || word === "-" || word === "--") return false;
  if (word.startsWith("--") || rule.syntax === "go") {
    const name = word.replace(/^--?/, "").split(/[=.]/)[0]!.replaceAll("_", "-");
    return (rule.long ?? []).some((n) => n === name || (rule.syntax === "abbreviating" && name !== "" && n.startsWith(name)));
  }
  return [...word.slice(1)].some((c) => rule.short?.includes(c) ?? false);
}

/** Why a program's arguments are refused (they could run code other than the check's), or null. */
function argumentRefusal(program: string, args: readonly string[]): string | null {
  const rule = PROGRAMS.get(program)!;
  const bad = args.find((a) => runsCode(a, rule));
  return bad !== undefined ? `${bad} would run arbitrary code` : (rule.check?.(args) ?? null);
}

/**
 * Wrappers that find a package's program and run it, with the flags of theirs that change nothing
 * else; a string says why one is refused. The program runs itself instead: a wrapper could fetch
 * one from the registry, and has options of its own that run other code (`npx -c`, `npm exec --call`).
 */
type Wrapper = { readonly sub?: string; readonly flags: readonly string[] } | string;
const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map<string, Wrapper>([
  ["npx", { flags: ["--yes", "-y", "--no", "--quiet", "-q"] }],
  ["bunx", { flags: [] }],
  ["npm", { sub: "exec", flags: ["--yes", "-y", "--no"] }],
  ["pnpm", { sub: "exec", flags: [] }],
  ["yarn", "yarn runs a package.json script before a program of the same name: name the program itself"],
]);

/** The command a wrapper would run (`npx prettier --write` is `prettier --write`), or why it is refused. */
function unwrap(words: readonly string[]): readonly string[] | string {
  for (let wrapper = WRAPPERS.get(words[0] ?? ""); wrapper !== undefined; wrapper = WRAPPERS.get(words[0] ?? "")) {
    if (typeof wrapper === "string") return wrapper;
    const own = wrapper.sub === undefined ? words[0]! : `${words[0]} ${wrapper.sub}`;
    if (wrapper.sub !== undefined && words[1] !== wrapper.sub) return `${words[0]} runs only as \`${own} <program>\``;
    let i = wrapper.sub === undefined ? 1 : 2;
    for (; words[i]?.startsWith("-") && words[i] !== "--"; i++) {
      if (!wrapper.flags.includes(words[i]!))
        return wrapper.flags.length > 0 ? `${own} takes only ${wrapper.flags.join(", ")} before the program, not ${words[i]}` : `${own} takes no flags before the program, not ${words[i]}`;
    }
    if (words[i] === "--") i++;
    if (words[i] === undefined) return `${own} names no program`;
    words = words.slice(i);
  }
  return words;
}

/**
 * The parts of a word a program may open as a path: the word, each value in it (split at `=`, `:`,
 * `,`, `;`, quotes and brackets: `--config=a`, `key='a'`, `{"setup":"a"}`), a value attached to
 * short options (`-c/a`, `-Bc../a`), and what follows `+` or `@` (`+toolchain`, `@argsfile`).
 */
function pathParts(word: string): string[] {
  const parts: string[] = [];
  for (const piece of word.split(/[=:,;'"(){}[\]]/)) {
    if (piece === "" || piece.startsWith("--")) continue;
    if (piece.startsWith("-")) {
      for (let i = 1; i < piece.length; i++) {
        parts.push(piece.slice(i));
        if (!/[A-Za-z]/.test(piece[i]!)) break;
      }
    } else parts.push(/^[+@]./.test(piece) ? piece.slice(1) : piece);
  }
  return parts;
}

/**
 * Where a program opening `path` from `from` (a real directory) lands: component by component as
 * the system resolves it (`..` after a symlink leaves its target; a dangling symlink leads to where
 * its target would be); null for a symlink loop.
 */
function physicalPath(path: string, from: string, links = 0): string | null {
  let at = isAbsolute(path) ? "/" : from;
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    at = part === ".." ? dirname(at) : join(at, part);
    let link: string;
    try {
      if (!lstatSync(at).isSymbolicLink()) continue;
      link = readlinkSync(at);
    } catch {
      continue;
    }
    const target = links < 40 ? physicalPath(link, dirname(at), links + 1) : null;
    if (target === null) return null;
    at = target;
  }
  return at;
}

interface Place {
  readonly dir: string;
  readonly realDir: string;
  readonly root: string;
  readonly realRoot: string;
}

/** Why a path named from the check's directory is outside the root, or null. */
function outsideRoot(part: string, at: Place): string | null {
  const path = part.replaceAll("<rootDir>", at.root); // jest's name for its root directory
  if (path.startsWith("~")) return `${part} names a home directory, outside the project root`;
  const lexical = resolve(at.dir, path);
  if (relativeInside(at.root, lexical) === null && relativeInside(at.realRoot, lexical) === null) return `${part} is outside the project root`;
  const real = physicalPath(path, at.realDir);
  if (real === null) return `${part} resolves through a symlink loop`;
  return relativeInside(at.realRoot, real) === null ? `${part} resolves through a symlink to ${real}, outside the project root` : null;
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
  if (quote)
    throw new MastError("INVALID_ARGUMENT", `unbalanced ${quote} in the command ${JSON.stringify(line)}`, {
      hint: "Close the quote, or pass the arguments with --formatter-args / --linter-args / --test-args.",
    });
  if (current !== null) words.push(current);
  return words;
}

export interface CheckCommand {
  /** The program as named (`prettier`, `./bin/prettier`; a wrapper's program), and where it was found. */
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
  for (const bin of [...bins, ...pathDirectories()]) {
    if (isExecutable(join(bin, program))) return join(bin, program);
  }
  return null;
}

/**
 * A check's command as it will run (a wrapper's program without the wrapper), found and checked
 * before anything runs: INVALID_ARGUMENT for a program off the allow-list or an argument that
 * would run other code, PATH_DENIED for one naming a path outside the root (the program's own
 * path too), FILE_NOT_FOUND when the program is not installed.
 */
export function checkCommand(label: string, words: readonly string[], dir: string, root: string = dir): CheckCommand {
  const refuse = (code: "INVALID_ARGUMENT" | "PATH_DENIED", why: string) =>
    new MastError(
      code,
      `the ${label} command ${JSON.stringify(words.join(" "))} is refused: ${why}`,
      code === "INVALID_ARGUMENT" ? { hint: "Name the check's own program and its flags; inline code is never run." } : {},
    );
  if (words.some((w) => w.includes("\0"))) throw refuse("INVALID_ARGUMENT", "a word has a NUL byte");
  const command = unwrap(words);
  if (typeof command === "string") throw refuse("INVALID_ARGUMENT", command);
  const [program, ...args] = command;
  if (program === undefined) throw new MastError("INVALID_ARGUMENT", `the ${label} command is empty`);
  if (!PROGRAMS.has(basename(program))) {
    throw new MastError("INVALID_ARGUMENT", `the ${label} command runs ${JSON.stringify(program)}, which is not an allowed check program`, {
      hint: `Allowed: ${[...PROGRAMS.keys()].join(", ")}, also through npx, npm exec, bunx or pnpm exec (found in node_modules/.bin or on PATH, or named by a path inside the project root).`,
    });
  }
  const refused = argumentRefusal(basename(program), args);
  if (refused) throw refuse("INVALID_ARGUMENT", refused);
  const at: Place = { dir, realDir: realpathSync(dir), root, realRoot: realpathSync(root) };
  const named = program.includes("/");
  const outside = [...(named ? [program] : []), ...args.flatMap(pathParts)].map((p) => outsideRoot(p, at)).find((why) => why !== null);
  if (outside) throw refuse("PATH_DENIED", outside);
  const path = named ? physicalPath(program, at.realDir)! : findProgram(program, dir, root);
  if (path === null || !isExecutable(path)) {
    throw new MastError(
      "FILE_NOT_FOUND",
      named ? `the ${label} program ${program} is not an executable file` : `the ${label} program ${program} is not installed (not in node_modules/.bin or on PATH)`,
      {
        hint: `Install ${basename(program)}, or leave the ${label} out.`,
      },
    );
  }
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
