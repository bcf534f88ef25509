// The editing commands' side of the one writer: every edit reads, plans and writes a file inside
// that file's advisory lock (so concurrent editors serialise and none loses an update), and the
// write itself is base/atomic.ts's (temp file, fsync, rename, directory fsync, mode kept).
import { AsyncLocalStorage } from "node:async_hooks";
import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { sha256 } from "../base/hash.js";
import { MastError, errorMessage } from "../base/errors.js";
import { DEFAULT_MAX_FILE_BYTES, readRegularFile } from "../base/read.js";
import { LOCK_STALE_MS, lockState, withStructureLock, type LockPolicy } from "../index/lock.js";

/** Where hashpilot keeps its locks (and, later, snapshots and telemetry): HASHPILOT_HOME or ~/.agentic-tools. */
export function hashpilotHome(): string {
  return process.env.HASHPILOT_HOME || join(homedir(), ".agentic-tools");
}

/**
 * Creates (or tightens) a directory of hashpilot's store as owner-only (0700), with its parents
 * under HASHPILOT_HOME: snapshots and telemetry hold file contents and must not be world-readable.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const home = hashpilotHome();
  for (let d = dir; d.startsWith(home); d = join(d, "..")) {
    try {
      chmodSync(d, 0o700);
    } catch (err) {
      // Another user's directory (EPERM) stays as its owner set it.
      if ((err as NodeJS.ErrnoException).code !== "EPERM") throw err;
    }
    if (d === home) break;
  }
}

/**
 * Writers wait this long for a file another editor holds: past the lock's staleness, so a lock a
 * killed writer left before it could name itself is taken over within one call.
 */
const FILE_LOCK_POLICY: LockPolicy = { timeoutMs: LOCK_STALE_MS + 2_000, retryDelayMs: 20, label: "the file" };

/** The files whose locks the running code holds already (a batch takes its files' locks up front, then edits each). */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/** Runs `fn` holding the advisory lock of one file (kept under hashpilotHome, not beside the file); a lock this call's batch holds is not taken again. */
export async function withFileLock<T>(abs: string, operation: string, fn: () => Promise<T> | T, timeoutMs = FILE_LOCK_POLICY.timeoutMs): Promise<T> {
  if (held.getStore()?.has(abs)) return fn();
  const dir = join(hashpilotHome(), "locks");
  try {
    ensurePrivateDir(dir);
  } catch (err) {
    throw new MastError("WRITE_FAILED", `cannot create the lock directory ${dir}: ${errorMessage(err)}`);
  }
  const marker = join(dir, sha256(abs).slice(0, 32));
  try {
    return await withStructureLock(marker, `${operation} ${abs}`, { ...FILE_LOCK_POLICY, timeoutMs }, async () => fn());
  } finally {
    // An idle lock's marker is removed, so the lock directory does not grow with every file ever
    // edited (a marker another editor has just named itself in is left alone).
    try {
      if (lockState(marker).state === "free") rmSync(marker, { force: true });
    } catch {
      // already gone
    }
  }
}

/**
 * Runs `fn` holding the locks of several files, taken in path order (so two such calls cannot
 * deadlock); edits of those files inside `fn` run under them without taking them again.
 */
export async function withFileLocks<T>(paths: readonly string[], operation: string, fn: () => Promise<T> | T, timeoutMs?: number): Promise<T> {
  const sorted = [...new Set(paths)].sort();
  const all = new Set([...(held.getStore() ?? []), ...sorted]);
  const take = (i: number): Promise<T> => (i === sorted.length ? held.run(all, () => Promise.resolve(fn())) : withFileLock(sorted[i]!, operation, () => take(i + 1), timeoutMs));
  return take(0);
}

/** The largest file the editing tools read or edit (the index's default max_file_bytes). */
export const EDIT_MAX_FILE_BYTES = DEFAULT_MAX_FILE_BYTES;

/**
 * The file's current bytes, or null when it does not exist; READ_FAILED when it is not a regular
 * file (a FIFO, a device, a directory) or cannot be read, FILE_TOO_LARGE past the cap. `abs` is a
 * real path the boundary checked (edit/paths.ts), and the descriptor read must be that file:
 * PATH_DENIED when a directory on the path was swapped for a symlink since. `unchecked` reads a
 * path no boundary checked (a CLI content argument) as named.
 */
export function readBytes(abs: string, options: { maxBytes?: number; unchecked?: boolean } = {}): Buffer | null {
  const maxBytes = options.maxBytes ?? EDIT_MAX_FILE_BYTES;
  const r = readRegularFile(abs, { maxBytes, ...(options.unchecked ? {} : { expect: abs }) });
  switch (r.kind) {
    case "read":
      return r.bytes;
    case "missing":
      return null;
    case "not_regular":
      throw new MastError("READ_FAILED", `${abs} is ${r.what}, not a regular file; only regular files are read or edited`, { hint: "Pass a regular text file." });
    case "too_large":
      throw new MastError("FILE_TOO_LARGE", `${abs} has ${r.size} bytes, over the ${maxBytes}-byte cap of the editing tools`);
    case "redirected":
      throw new MastError("PATH_DENIED", `${abs} resolved elsewhere when it was opened (a directory on its path was swapped for a symlink); nothing was read`, {
        hint: "The project tree changed during the operation: check it and retry.",
        details: { path: abs },
      });
    case "symlink":
    case "error":
      throw new MastError("READ_FAILED", `cannot read ${abs}: ${r.kind === "error" ? r.error : "it is a symlink"}`);
  }
}
