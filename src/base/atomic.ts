// The one atomic file writer of the product (hashpilot's edits, its snapshot store, the index's
// state files): a temp file in the same directory, fsync, rename over the target, directory
// fsync, the target's mode kept. A crash leaves the old bytes or the new ones, never a torn file;
// temp files a killed writer left behind are removed by the next write in that directory.
import { chmodSync, closeSync, fsyncSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { MastError, errorMessage } from "./errors.js";
import { sha256 } from "./hash.js";

const TEMP = /^\.(.+)\.hashpilot-(\d+)-[0-9a-f]{8}\.tmp$/;

/**
 * Replaces (or creates) a file atomically with `bytes`, keeping an existing file's mode — or
 * giving it `options.mode` (private stores write 0600 whatever an older file had).
 */
export function writeAtomic(abs: string, bytes: Uint8Array, options: { mode?: number } = {}): void {
  const dir = dirname(abs);
  removeOrphans(dir);
  let mode: number | undefined = options.mode;
  if (mode === undefined) {
    try {
      mode = statSync(abs).mode & 0o7777;
    } catch {
      mode = undefined;
    }
  }
  // The temp name carries at most 64 characters of the file's: a long name must not make it too long for the file system.
  const tmp = join(dir, `.${basename(abs).slice(0, 64)}.hashpilot-${process.pid}-${sha256(`${abs}${Date.now()}${Math.random()}`).slice(0, 8)}.tmp`);
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
