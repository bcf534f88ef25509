// The one writer of the editing commands: every edit reads, plans and writes a file inside that
// file's advisory lock (so concurrent editors serialise and none loses an update), and writes
// through a temp file in the same directory — fsync, rename, directory fsync — keeping the
// file's mode. A crash leaves either the old bytes or the new ones, never a torn file; temp
// files a killed writer left behind are removed by the next write in that directory.
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { sha256 } from "../base/hash.js";
import { MastError, errorMessage } from "../base/errors.js";
import { withStructureLock, type LockPolicy } from "../index/lock.js";

/** Where hashpilot keeps its locks (and, later, snapshots and telemetry): HASHPILOT_HOME or ~/.agentic-tools. */
export function hashpilotHome(): string {
  return process.env.HASHPILOT_HOME || join(homedir(), ".agentic-tools");
}

/** Writers wait this long for a file another editor holds. */
const FILE_LOCK_POLICY: LockPolicy = { timeoutMs: 10_000, retryDelayMs: 20, label: "the file" };
const TEMP = /^\.(.+)\.hashpilot-(\d+)-[0-9a-f]{8}\.tmp$/;

/** Runs `fn` holding the advisory lock of one file (kept under hashpilotHome, not beside the file). */
export async function withFileLock<T>(abs: string, operation: string, fn: () => Promise<T> | T): Promise<T> {
  const dir = join(hashpilotHome(), "locks");
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new MastError("WRITE_FAILED", `cannot create the lock directory ${dir}: ${errorMessage(err)}`);
  }
  return withStructureLock(join(dir, sha256(abs).slice(0, 32)), `${operation} ${abs}`, FILE_LOCK_POLICY, async () => fn());
}

/** The file's current bytes, or null when it does not exist; READ_FAILED when it cannot be read. */
export function readBytes(abs: string): Buffer | null {
  try {
    return readFileSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    throw new MastError("READ_FAILED", `cannot read ${abs}: ${errorMessage(err)}`);
  }
}

/** Replaces (or creates) a file atomically with `bytes`, keeping an existing file's mode. */
export function writeAtomic(abs: string, bytes: Uint8Array): void {
  const dir = dirname(abs);
  removeOrphans(dir);
  let mode: number | undefined;
  try {
    mode = statSync(abs).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  const tmp = join(dir, `.${basename(abs)}.hashpilot-${process.pid}-${sha256(`${abs}${Date.now()}${Math.random()}`).slice(0, 8)}.tmp`);
  let fd: number | null = null;
  try {
    fd = openSync(tmp, "wx", mode ?? 0o666);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    // openSync's mode is filtered by the umask: an existing file's mode is restored exactly.
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, abs);
  } catch (err) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw new MastError("WRITE_FAILED", `cannot write ${abs}: ${errorMessage(err)}; the file is unchanged`);
  }
  syncDirectory(dir);
}

/** Makes the rename durable; file systems that cannot fsync a directory are left as they are. */
function syncDirectory(dir: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // EISDIR/EINVAL/EPERM on some platforms and file systems: the rename itself has happened.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Temp files of writers that no longer run. */
function removeOrphans(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = TEMP.exec(name);
    if (!m || processAlive(Number(m[2]))) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // raced with another cleaner
    }
  }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
