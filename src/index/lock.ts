// structure.lock (docs/index-lifecycle.md#write-locking) and the editing commands' per-file locks: advisory locks via
// proper-lockfile with `stale: 10000`. The marker file names the holder (and, once it lets go, when
// it released); a holder whose process is gone is broken within a second, not waited out; a lock
// compromised mid-run is raised at release, never async. lockState reads it without taking it.
import { appendFileSync, readFileSync, renameSync, rmdirSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { writeAtomic } from "../base/atomic.js";
import { MastError, errorMessage } from "../base/errors.js";

export const LOCK_STALE_MS = 10_000;
/**
 * A dead holder's lock directory is broken only once it is this old. A fresh acquirer writes its
 * marker right after proper-lockfile's mkdir; until then the marker still names the previous
 * (dead) holder, and breaking a younger directory could remove a live lock taken a moment ago.
 */
export const DEAD_HOLDER_GRACE_MS = 1_000;

export interface LockPolicy {
  /** Give up after this long (the CLI's 2 s). */
  readonly timeoutMs: number;
  /** Pause between attempts. */
  readonly retryDelayMs: number;
  /** What the lock guards, for messages ("index" when absent). */
  readonly label?: string;
}

export const CLI_LOCK_POLICY: LockPolicy = { timeoutMs: 2_000, retryDelayMs: 100 };
/** mast_reindex and the serve startup reindex: retried every 1 s for up to 5 s (docs/index-lifecycle.md#write-locking). */
export const SERVER_LOCK_POLICY: LockPolicy = { timeoutMs: 5_000, retryDelayMs: 1_000 };

export interface Holder {
  pid: number;
  host: string;
  operation: string;
  since: string;
  /** Set as the holder lets go: the record stays, so a holder killed while releasing is not taken for one killed mid-run. */
  released?: string;
  /** An index run's progress, noted as it parses (`files_done` of `files_total` files). */
  files_done?: number;
  files_total?: number;
}

/** Adds progress to the holder's record (written whole, through a rename, so a reader never sees half of it). */
export type NoteProgress = (progress: Pick<Holder, "files_done" | "files_total">) => void;

function readHolder(markerPath: string): Holder | null {
  try {
    const h = JSON.parse(readFileSync(markerPath, "utf8")) as Holder;
    return typeof h.pid === "number" ? h : null;
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  // A zombie (killed, not yet reaped by its parent) answers signal 0 but runs nothing: on Linux its
  // state in /proc says so. Elsewhere a signalled process counts as alive.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.charAt(stat.lastIndexOf(")") + 2);
    return state !== "Z" && state !== "X";
  } catch {
    return true;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Who holds a lock, read without taking it: "held" by a live process (this one included),
 * "abandoned" by one that died holding it (its record was never cleared — a killed run), or "free".
 * A holder on another host is judged by the lock directory's mtime, which a live holder refreshes
 * every LOCK_STALE_MS / 2.
 */
export type LockState = { readonly state: "free" } | { readonly state: "held" | "abandoned"; readonly holder: Holder | null };

export function lockState(markerPath: string): LockState {
  const holder = readHolder(markerPath);
  if (holder?.released) return { state: "free" };
  const dirAge = lockDirAge(`${markerPath}.lock`);
  if (holder) {
    const live = holder.host === hostname() ? processAlive(holder.pid) : dirAge !== null && dirAge < LOCK_STALE_MS;
    return { state: live ? "held" : "abandoned", holder };
  }
  // Taken a moment ago, its record not yet written.
  return dirAge !== null && dirAge < LOCK_STALE_MS ? { state: "held", holder: null } : { state: "free" };
}

function lockDirAge(lockDir: string): number | null {
  try {
    return Date.now() - statSync(lockDir).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * Removes the lock directory a dead holder left behind. proper-lockfile's unlock() only releases
 * locks this process owns (anything else is a silent ENOTACQUIRED), so the directory is removed
 * directly — the same stat-then-rmdir the library itself does for a stale lock. Returns false
 * when the directory is too young to break or cannot be removed (the caller then waits).
 */
function breakDeadLock(lockDir: string): boolean {
  try {
    if (Date.now() - statSync(lockDir).mtimeMs < DEAD_HOLDER_GRACE_MS) return false;
    rmdirSync(lockDir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT"; // already gone: just retry
  }
}

/** The structure lock's file name in the state dir; its takes and releases are recorded beside it. */
export const STRUCTURE_LOCK_FILE = "structure.lock";
/** Where the structure lock's events go (`mast metrics --locks`), one JSON object a line. */
export const LOCK_METRICS_FILE = "lock-metrics.jsonl";
/** Past this size the events file is renamed to `.1` (one generation kept) and started afresh. */
const LOCK_METRICS_MAX_BYTES = 2 * 1024 * 1024;

/** One structure-lock event: taken after `waitMs`, let go after `holdMs`, or given up after `waitMs`. */
export type LockEvent =
  | { readonly ts: string; readonly caller: string; readonly event: "acquired"; readonly waitMs: number }
  | { readonly ts: string; readonly caller: string; readonly event: "released"; readonly holdMs: number }
  | { readonly ts: string; readonly caller: string; readonly event: "failed"; readonly waitMs: number };

type LockEventBody = { caller: string } & ({ event: "acquired" | "failed"; waitMs: number } | { event: "released"; holdMs: number });

/** Appends an event of the structure lock (never of the editing tools' file locks); a failed append is not the lock's failure. */
function recordLockEvent(markerPath: string, body: LockEventBody): void {
  if (basename(markerPath) !== STRUCTURE_LOCK_FILE) return;
  const file = join(dirname(markerPath), LOCK_METRICS_FILE);
  try {
    try {
      if (statSync(file).size > LOCK_METRICS_MAX_BYTES) renameSync(file, `${file}.1`);
    } catch {
      // no file yet
    }
    appendFileSync(file, `${JSON.stringify({ ts: new Date().toISOString(), ...body })}\n`);
  } catch {
    // The state dir is read-only or gone: the metric is lost, the run is not.
  }
}

/** Runs `fn` while holding structure.lock; throws LOCK_HELD naming the holder when it cannot get it. */
export async function withStructureLock<T>(markerPath: string, operation: string, policy: LockPolicy, fn: (note: NoteProgress) => Promise<T>): Promise<T> {
  let compromised: Error | null = null;
  const options = {
    stale: LOCK_STALE_MS,
    realpath: false,
    onCompromised: (err: Error) => {
      compromised = err; // recorded here, raised at release (the library's default rethrow would crash the process)
    },
  };
  const asked = Date.now();
  const deadline = asked + policy.timeoutMs;
  let release: (() => Promise<void>) | null = null;
  // Loaded by the commands that take the lock only (`mast status` reads the record alone).
  const { default: lockfile } = await import("proper-lockfile");
  for (;;) {
    try {
      release = await lockfile.lock(markerPath, options);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") {
        recordLockEvent(markerPath, { caller: operation, event: "failed", waitMs: Date.now() - asked });
        throw new MastError("WRITE_FAILED", `cannot take ${markerPath}: ${errorMessage(err)}`);
      }
      const holder = readHolder(markerPath);
      if (holder && holder.host === hostname() && holder.pid !== process.pid && !processAlive(holder.pid) && breakDeadLock(`${markerPath}.lock`)) {
        // The holder was killed; its lock directory was left behind and is now removed, rather than waited out to staleness.
        continue;
      }
      if (Date.now() >= deadline) {
        recordLockEvent(markerPath, { caller: operation, event: "failed", waitMs: Date.now() - asked });
        const who = holder ? `${holder.operation} (pid ${holder.pid} on ${holder.host}, since ${holder.since})` : "another process";
        throw new MastError("LOCK_HELD", `${policy.label ?? "index"} is locked by ${who}; gave up after ${policy.timeoutMs} ms`, { details: { holder } });
      }
      await sleep(policy.retryDelayMs);
    }
  }
  const taken = Date.now();
  recordLockEvent(markerPath, { caller: operation, event: "acquired", waitMs: taken - asked });
  const record: Holder = { pid: process.pid, host: hostname(), operation, since: new Date().toISOString() };
  writeAtomic(markerPath, Buffer.from(JSON.stringify(record)));
  let result: T;
  try {
    result = await fn((progress) => {
      if (!compromised) writeAtomic(markerPath, Buffer.from(JSON.stringify({ ...record, ...progress } satisfies Holder)));
    });
  } finally {
    if (!compromised) {
      writeAtomic(markerPath, Buffer.from(JSON.stringify({ ...record, released: new Date().toISOString() } satisfies Holder)));
      await release().catch((err: unknown) => {
        compromised = err instanceof Error ? err : new Error(String(err));
      });
    }
    recordLockEvent(markerPath, { caller: operation, event: "released", holdMs: Date.now() - taken });
  }
  if (compromised) {
    throw new MastError("LOCK_COMPROMISED", `structure.lock was compromised during ${operation}: ${errorMessage(compromised)}`);
  }
  return result;
}
