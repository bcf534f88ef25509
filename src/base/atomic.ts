// The one atomic file writer of the product (hashpilot's edits, its snapshot store, the index's
// state files): a temp file in the same directory, fsync, rename over the target, directory
// fsync, the target's mode kept. A crash leaves the old bytes or the new ones, never a torn file;
// temp files a killed writer left behind are removed by the next write in that directory. Given
// a real path (`pinned`), every step happens inside the directory descriptor proven to be its
// directory (`confined.ts`): a directory swapped for a symlink meanwhile gets nothing.
import { closeSync, fchmodSync, fsyncSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { pinDirectory, type PinnedDirectory } from "./confined.js";
import { MastError, errorMessage, isMastError } from "./errors.js";
import { sha256 } from "./hash.js";

const TEMP = /^\.(.+)\.hashpilot-(\d+)-[0-9a-f]{8}\.tmp$/;

/**
 * Replaces (or creates) a file atomically with `bytes`, keeping an existing file's mode — or
 * giving it `options.mode` (private stores write 0600 whatever an older file had). With `pinned`,
 * `abs` is a real path and its directory is opened and proven first (PATH_DENIED when a component
 * became a symlink): the temp file, the rename and the fsync all go through that descriptor.
 */
export function writeAtomic(abs: string, bytes: Uint8Array, options: { mode?: number; pinned?: boolean } = {}): void {
  const dir = dirname(abs);
  let pin: PinnedDirectory | null = null;
  try {
    pin = options.pinned ? pinDirectory(dir) : null;
  } catch (err) {
    if (isMastError(err)) throw err;
    throw new MastError("WRITE_FAILED", `cannot write ${abs}: ${errorMessage(err)}; the file is unchanged`);
  }
  const at = (name: string) => (pin ? pin.at(name) : join(dir, name));
  try {
    removeOrphans(at);
    let mode: number | undefined = options.mode;
    if (mode === undefined) {
      try {
        mode = statSync(at(basename(abs))).mode & 0o7777;
      } catch {
        mode = undefined;
      }
    }
    // The temp name carries at most 64 characters of the file's: a long name must not make it too long for the file system.
    const tmp = at(`.${basename(abs).slice(0, 64)}.hashpilot-${process.pid}-${sha256(`${abs}${Date.now()}${Math.random()}`).slice(0, 8)}.tmp`);
    let fd: number | null = null;
    try {
      fd = openSync(tmp, "wx", mode ?? 0o666);
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      // openSync's mode is filtered by the umask: an existing file's mode is restored exactly.
      if (mode !== undefined) fchmodSync(fd, mode);
      fsyncSync(fd);
      closeSync(fd);
      fd = null;
      renameSync(tmp, at(basename(abs)));
    } catch (err) {
      if (fd !== null) closeSync(fd);
      try {
        unlinkSync(tmp);
      } catch {
        // already gone
      }
      throw new MastError("WRITE_FAILED", `cannot write ${abs}: ${errorMessage(err)}; the file is unchanged`);
    }
    syncDirectory(at("."));
  } finally {
    pin?.close();
  }
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

/** Temp files of writers that no longer run, in the directory `at` names paths in. */
function removeOrphans(at: (name: string) => string): void {
  let names: string[];
  try {
    names = readdirSync(at("."));
  } catch {
    return;
  }
  for (const name of names) {
    const m = TEMP.exec(name);
    if (!m || processAlive(Number(m[2]))) continue;
    try {
      unlinkSync(at(name));
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
