// The go-types backend of the checker pass (query/checker.ts): go/types through a small
// standard-library-only Go program shipped with mast (gotypes-checker.go, next to this module),
// compiled once with the user's `go` (an absolute PATH entry: base/programs.ts) into mast's state
// dir — never into the project — under a name keyed by the program's source, the toolchain's
// version and GOROOT, so an upgrade rebuilds it. The build and the run pin GOTOOLCHAIN=local,
// GOPROXY=off, GOFLAGS=-mod=mod and CGO_ENABLED=0 (a hostile go.mod's `toolchain` line downloads
// nothing; nothing is generated); the build happens in a temp dir of the state dir with its own
// go.mod, and GOCACHE goes to the state dir when the user's cannot be written. The program reads
// the root and the walked .go files on stdin, type-checks each package (the standard library from
// GOROOT, the project's packages from source, anything else a tolerated error: GO111MODULE=off
// and a GOPATH that does not exist, so nothing outside the root and GOROOT is read) and writes
// every call expression's callee (a declaration position, outside the project, an interface
// method with the project's methods it may dispatch to, or unknown) and which named types
// implement which interfaces. Each candidate is then answered from the calls on its line:
// a call of the target's name whose callee is the target's declaration → `calls_target`; one
// through an interface whose implementors include the target's type, or one go/types cannot
// type (a func value, a value of a package it could not import) → says nothing; any other →
// `resolves_to_different`. A line whose calls of the name all say nothing is `unresolved`; one
// with no call of the name (a func value passed, a method value) is `non_call_site`. Missing
// `go`: the backend is unavailable with "go not on PATH".
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { errorMessage } from "../base/errors.js";
import { childEnvironment, isExecutable, onPath } from "../base/programs.js";
import { ChildAnalyzer, runChild, type Judge } from "./checker-child.js";
import type { CheckTarget, CheckerVerdict } from "./checker-program.js";

/** The program's source, next to this module (src/query, dist/query, and dist/bin in the bundle). */
const SOURCE_FILE = fileURLToPath(new URL("./gotypes-checker.go", import.meta.url));
/** How long the build, and then the run, may take. */
const BUILD_TIMEOUT_MS = 5 * 60 * 1000;
const RUN_TIMEOUT_MS = 20 * 60 * 1000;

/** What go/types says of the project's interfaces: who implements them, and the types whose method sets it knows whole. */
export interface GoTypeFacts {
  readonly implementations: readonly GoImplements[];
  readonly whole: ReadonlyArray<readonly [string, number, string]>;
}

/** A named type of the project that implements an interface of the project (go/types' method sets). */
export interface GoImplements {
  readonly typePath: string;
  readonly typeLine: number;
  readonly typeName: string;
  readonly ifacePath: string;
  readonly ifaceLine: number;
  readonly ifaceName: string;
}

/** One call expression's callee as go/types resolved it. */
interface GoCall {
  readonly name: string;
  /** d: declared at `decl`; x: outside the project; u: unknown; i: an interface method declared at `decl` ("-" outside), `dispatch` the id of the project's methods it may reach. */
  readonly kind: "d" | "x" | "u" | "i";
  readonly decl?: string;
  readonly dispatch?: number;
}

/** What the program wrote. */
export class GoFacts {
  readonly checked = new Set<string>();
  readonly calls = new Map<string, Map<number, GoCall[]>>();
  readonly implementations: GoImplements[] = [];
  /** The project's methods (as path:line) each interface method call's dispatch set may reach. */
  private readonly dispatch = new Map<number, ReadonlySet<string>>();
  /** The named types and interfaces whose method sets go/types knows whole, as path, line, name. */
  readonly whole: Array<readonly [string, number, string]> = [];
  private rest = "";

  /** Takes a chunk of the program's output. */
  feed(chunk: string): void {
    const text = this.rest + chunk;
    const lines = text.split("\n");
    this.rest = lines.pop()!;
    for (const line of lines) this.record(line.split("\t"));
  }

  private record(f: string[]): void {
    if (f[0] === "F" && f.length === 2) this.checked.add(f[1]!);
    else if (f[0] === "C" && f.length >= 5) {
      const kind = f[4] as GoCall["kind"];
      const call: GoCall =
        kind === "d" ? { name: f[3]!, kind, decl: f[5] ?? "-" } : kind === "i" ? { name: f[3]!, kind, decl: f[5] ?? "-", dispatch: f[6] === undefined ? -1 : Number(f[6]) } : { name: f[3]!, kind };
      let byLine = this.calls.get(f[1]!);
      if (!byLine) this.calls.set(f[1]!, (byLine = new Map()));
      const line = Number(f[2]);
      const list = byLine.get(line);
      if (list) list.push(call);
      else byLine.set(line, [call]);
    } else if (f[0] === "R" && f.length >= 2) {
      this.dispatch.set(Number(f[1]), new Set(f.slice(2)));
    } else if (f[0] === "Q" && f.length === 4) {
      this.whole.push([f[1]!, Number(f[2]), f[3]!]);
    } else if (f[0] === "I" && f.length >= 7) {
      this.implementations.push({ typePath: f[1]!, typeLine: Number(f[2]), typeName: f[3]!, ifacePath: f[4]!, ifaceLine: Number(f[5]), ifaceName: f[6]! });
    }
  }

  /** The verdict on `path`:`line` (1-based) as a call of `target`; null when the program did not check the file. */
  verdict(target: CheckTarget, path: string, line: number): CheckerVerdict | null {
    if (!this.checked.has(path)) return null;
    const name = target.name.slice(target.name.lastIndexOf(".") + 1);
    const decl = `${target.path}:${target.line}`;
    let called = false;
    let different = false;
    let unknown = false;
    for (const call of this.calls.get(path)?.get(line) ?? []) {
      if (call.name !== name) continue;
      called = true;
      if ((call.kind === "d" || call.kind === "i") && call.decl === decl) return "calls_target";
      // Dynamic dispatch may reach the target when its type implements the interface: never drop a real call.
      if (call.kind === "u" || (call.kind === "i" && this.dispatch.get(call.dispatch!)?.has(decl))) unknown = true;
      else different = true;
    }
    if (!called) return "non_call_site";
    return different && !unknown ? "resolves_to_different" : "unresolved";
  }
}

/** Where `go` is, or why the backend cannot run. */
export function locateGo(env: NodeJS.ProcessEnv = process.env): { readonly bin: string } | { readonly reason: string } {
  const bin = onPath("go", env);
  return bin === null ? { reason: "go not on PATH" } : { bin };
}

/** The environment every `go` (and the program) runs in: no toolchain switch, no proxy, no cgo. */
function pinned(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // PATH cut to its absolute entries (childEnvironment): nothing `go` looks up lands in a project.
  return { ...childEnvironment(env), GOTOOLCHAIN: "local", GOPROXY: "off", GOFLAGS: "-mod=mod", CGO_ENABLED: "0", GOWORK: "off", GOSUMDB: "off" };
}

/** Whether `dir` (or its nearest existing ancestor) may be written. */
function writable(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(d)) {
      try {
        accessSync(d, constants.W_OK);
        return true;
      } catch {
        return false;
      }
    }
    if (dirname(d) === d) return false;
  }
}

/** Runs `go` with `args` in `cwd`; its stdout, or why it failed. */
async function goOutput(go: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ out: string } | { reason: string }> {
  let out = "";
  const failed = await runChild({ label: `go ${args[0]}`, bin: go, args, cwd, env, timeoutMs: BUILD_TIMEOUT_MS, onStdout: (c) => (out += c) });
  return failed === null ? { out } : { reason: failed };
}

/** The program compiled into `<stateDir>/checker/`, built when its key (source, go version, GOROOT) is new; the binary and GOROOT, or why not. */
export async function buildGoChecker(go: string, stateDir: string, env: NodeJS.ProcessEnv = process.env): Promise<{ bin: string; goroot: string } | { reason: string }> {
  const dir = join(stateDir, "checker");
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    return { reason: `the checker's state dir could not be made: ${errorMessage(err)}` };
  }
  let source: string;
  try {
    source = readFileSync(SOURCE_FILE, "utf8");
  } catch (err) {
    return { reason: `gotypes-checker.go is missing from mast's install: ${errorMessage(err)}` };
  }
  const base = pinned(env);
  const cacheDefault = env.GOCACHE || join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "go-build");
  if (!writable(cacheDefault)) base.GOCACHE = join(dir, "gocache");
  const version = await goOutput(go, ["env", "GOVERSION", "GOROOT"], dir, base);
  if ("reason" in version) return version;
  const [goVersion = "", goroot = ""] = version.out.split("\n").map((s) => s.trim());
  const key = createHash("sha256").update(`${source}\0${goVersion}\0${goroot}\0${process.platform}-${process.arch}`).digest("hex").slice(0, 16);
  const bin = join(dir, `gotypes-${key}${process.platform === "win32" ? ".exe" : ""}`);
  if (isExecutable(bin)) return { bin, goroot };
  const work = mkdtempSync(join(dir, "build-"));
  try {
    writeFileSync(join(work, "main.go"), source);
    writeFileSync(join(work, "go.mod"), "module mastgotypeschecker\n\ngo 1.18\n");
    const temp = join(work, "gotypes-checker.bin");
    const built = await goOutput(go, ["build", "-trimpath", "-o", temp, "."], work, { ...base, GO111MODULE: "on" });
    if ("reason" in built) return built;
    renameSync(temp, bin);
    return { bin, goroot };
  } catch (err) {
    return { reason: `go build of the checker failed: ${errorMessage(err)}` };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The backend as the pass drives it: started on the language's files, then the targets, candidate chunks and the end. */
export class GoTypesAnalyzer extends ChildAnalyzer<GoFacts> {
  /** Why it cannot run (no go command), known at start; null when it was started. */
  readonly unavailable: string | null;
  protected readonly output: Promise<GoFacts | { reason: string }> | null;
  private stopped = false;

  constructor(
    private readonly root: string,
    files: readonly string[],
    stateDir: string | undefined,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    super("gotypes-checker", files);
    const where = locateGo(env);
    if ("reason" in where) {
      this.unavailable = where.reason;
      this.output = null;
    } else {
      this.unavailable = null;
      // A failure to build or run is the backend's reason, never the index run's.
      this.output = this.run(where.bin, stateDir ?? join(tmpdir(), "mast-go-checker"), env).catch((err: unknown) => ({ reason: `gotypes-checker failed: ${errorMessage(err)}` }));
    }
  }

  private async run(go: string, stateDir: string, env: NodeJS.ProcessEnv): Promise<GoFacts | { reason: string }> {
    const built = await buildGoChecker(go, stateDir, env);
    if ("reason" in built) return built;
    if (this.stopped) return { reason: "stopped" };
    const facts = new GoFacts();
    // Paths the line format cannot carry (a tab or a newline in a name) are not sent.
    const files = this.files.filter((f) => !/[\t\n\r]/.test(f));
    const failed = await runChild({
      label: "gotypes-checker",
      bin: built.bin,
      args: [],
      cwd: join(stateDir, "checker"),
      // A soft heap limit (the user's GOMEMLIMIT, else 1 GiB): the types of a large tree stay
      // within it at some CPU (4,509 files: 1.5 GB peak → 1.05 GB, 28 s → 40 s).
      env: { ...pinned({ PATH: "", HOME: env.HOME ?? "" }), GOROOT: built.goroot, GO111MODULE: "off", GOPATH: join(stateDir, "checker", "no-gopath"), GOMEMLIMIT: env.GOMEMLIMIT || "1GiB" },
      timeoutMs: RUN_TIMEOUT_MS,
      stdin: `${this.root}\n${files.join("\n")}\n`,
      onStdout: (chunk) => facts.feed(chunk),
      onChild: (child) => (this.child = child),
    });
    this.child = null;
    return failed === null ? facts : { reason: failed };
  }

  protected judge(facts: GoFacts): Judge {
    return (target, path, line) => facts.verdict(target, path, line);
  }

  /** The implementations go/types found (after the program ran), or null when it did not run. */
  async implementations(): Promise<GoTypeFacts | null> {
    if (this.output === null) return null;
    const result = await this.output;
    return "reason" in result ? null : result;
  }

  override stop(): void {
    this.stopped = true;
    super.stop();
  }
}
