// Runs the BUILT `mast` and `hashpilot` CLIs (dist/bin/, the bundled entry points the package ships) as child processes and collects their
// exit code, signal, output and wall time; also starts a separate process that holds structure.lock, for
// lock-contention tests. Needs `npm run build` first.
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

export const MAST_BIN = fileURLToPath(new URL("../../dist/bin/mast.js", import.meta.url));
export const HASHPILOT_BIN = fileURLToPath(new URL("../../dist/bin/hashpilot.js", import.meta.url));
const LOCK_MODULE = fileURLToPath(new URL("../../dist/index/lock.js", import.meta.url));

/** Throws a clear message when the CLI has not been built. */
export function assertBuilt(): void {
  for (const f of [MAST_BIN, HASHPILOT_BIN, LOCK_MODULE]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run build\` before these tests`);
  }
}

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time from spawn to exit. */
  readonly ms: number;
}

export interface CliOptions {
  /** Extra environment; a key set to undefined is removed. MAST_STATE_DIR is never inherited. */
  readonly env?: Record<string, string | undefined>;
  readonly cwd?: string;
  readonly uid?: number;
  readonly gid?: number;
  /** Written to the child's stdin (which is otherwise closed). */
  readonly input?: string;
}

function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.MAST_STATE_DIR;
  delete env.MAST_DEBUG;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface RunningCli {
  readonly child: ChildProcess;
  /** Settles when the process exits (never rejects; a spawn failure becomes code null). */
  readonly done: Promise<CliResult>;
}

/** Starts `node dist/bin/mast.js ...args` without waiting for it. */
export function spawnMast(args: readonly string[], options: CliOptions = {}): RunningCli {
  return spawnBin(MAST_BIN, args, options);
}

/** Starts `node <bin> ...args` without waiting for it. */
export function spawnBin(bin: string, args: readonly string[], options: CliOptions = {}): RunningCli {
  const started = performance.now();
  const spawnOptions: SpawnOptions = { cwd: options.cwd ?? process.cwd(), env: childEnv(options.env), stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"] };
  if (options.uid !== undefined) spawnOptions.uid = options.uid;
  if (options.gid !== undefined) spawnOptions.gid = options.gid;
  const child = spawn(process.execPath, [bin, ...args], spawnOptions);
  if (options.input !== undefined) child.stdin!.end(options.input);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => {
    child.on("error", (err) => {
      stderr += `spawn error: ${err.message}\n`;
    });
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - started }));
  });
  return { child, done };
}

/** Runs the CLI to completion. */
export function runMast(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return spawnMast(args, options).done;
}

/** Runs `hashpilot` to completion. */
export function runHashpilot(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return spawnBin(HASHPILOT_BIN, args, options).done;
}

/** The lines of a stream's text, without the empty string after a final newline. */
export function lines(text: string): string[] {
  const out = text.split("\n");
  if (out[out.length - 1] === "") out.pop();
  return out;
}

export interface LockHolder {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Settles when the holder exits. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Starts a separate Node process that takes structure.lock through the built withStructureLock
 * (operation name `operation`), holds it for `holdMs`, then releases and exits. Resolves once
 * the holder has printed "locked", i.e. while it holds the lock.
 */
export async function startLockHolder(markerPath: string, operation: string, holdMs: number): Promise<LockHolder> {
  const code = [
    "const [lockUrl, marker, operation, holdMs] = process.argv.slice(1);",
    "const { withStructureLock, CLI_LOCK_POLICY } = await import(lockUrl);",
    "await withStructureLock(marker, operation, CLI_LOCK_POLICY, async () => {",
    "  process.stdout.write('locked\\n');",
    "  await new Promise((r) => setTimeout(r, Number(holdMs)));",
    "});",
    "process.stdout.write('released\\n');",
  ].join("\n");
  const child = spawn(process.execPath, ["--input-type=module", "-e", code, pathToFileURL(LOCK_MODULE).href, markerPath, operation, String(holdMs)], {
    env: childEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`lock holder did not report "locked" within 10 s; stderr: ${stderr}`)), 10_000);
    child.stdout!.on("data", (d: string) => {
      stdout += d;
      if (stdout.includes("locked\n")) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      if (!stdout.includes("locked\n")) reject(new Error(`lock holder exited before locking; stderr: ${stderr}`));
    });
  });
  return { child, pid: child.pid!, exited };
}
