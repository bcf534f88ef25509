// The editing commands' side of the one writer: every edit reads, plans and writes a file inside
// that file's advisory lock (so concurrent editors serialise and none loses an update), and the
// write itself is base/atomic.ts's (temp file, fsync, rename, directory fsync, mode kept).
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { sha256 } from "../base/hash.js";
import { MastError, errorMessage } from "../base/errors.js";
import { LOCK_STALE_MS, withStructureLock, type LockPolicy } from "../index/lock.js";

/** Where hashpilot keeps its locks (and, later, snapshots and telemetry): HASHPILOT_HOME or ~/.agentic-tools. */
export function hashpilotHome(): string {
  return process.env.HASHPILOT_HOME || join(homedir(), ".agentic-tools");
}

/**
 * Writers wait this long for a file another editor holds: past the lock's staleness, so a lock a
 * killed writer left before it could name itself is taken over within one call.
 */
const FILE_LOCK_POLICY: LockPolicy = { timeoutMs: LOCK_STALE_MS + 2_000, retryDelayMs: 20, label: "the file" };

/** Runs `fn` holding the advisory lock of one file (kept under hashpilotHome, not beside the file). */
export async function withFileLock<T>(abs: string, operation: string, fn: () => Promise<T> | T): Promise<T> {
  const dir = join(hashpilotHome(), "locks");
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new MastError("WRITE_FAILED", `cannot create the lock directory ${dir}: ${errorMessage(err)}`);
  }
  const marker = join(dir, sha256(abs).slice(0, 32));
  try {
    return await withStructureLock(marker, `${operation} ${abs}`, FILE_LOCK_POLICY, async () => fn());
  } finally {
    // An idle lock's marker is empty: removed, so the lock directory does not grow with every file
    // ever edited (a marker another editor has just named itself in is left alone).
    try {
      if (readFileSync(marker, "utf8") === "") rmSync(marker, { force: true });
    } catch {
      // already gone
    }
  }
}

/** Runs `fn` holding the locks of several files, taken in path order (so two such calls cannot deadlock). */
export async function withFileLocks<T>(paths: readonly string[], operation: string, fn: () => Promise<T> | T): Promise<T> {
  const sorted = [...new Set(paths)].sort();
  const take = (i: number): Promise<T> => (i === sorted.length ? Promise.resolve(fn()) : withFileLock(sorted[i]!, operation, () => take(i + 1)));
  return take(0);
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

