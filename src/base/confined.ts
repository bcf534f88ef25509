// Proving what a path opened: a directory swapped for a symlink between a check and an open must
// not make a reader return, or a writer create, anything outside the directory it checked. On
// Linux the kernel names an open descriptor's file (/proc/self/fd/N), so a read verifies the
// descriptor it reads from, and a write works inside a directory descriptor pinned and verified
// first (paths through /proc/self/fd/N/ resolve from that descriptor, as openat does); directories
// are created one component at a time under pinned parents, never through a symlink. Where the
// kernel does not name descriptors, the path is resolved again after the open (best effort).
import { closeSync, constants, existsSync, mkdirSync, openSync, readlinkSync, realpathSync, unlinkSync } from "node:fs";
import { sep } from "node:path";
import { MastError } from "./errors.js";
import { relativeInside } from "./paths.js";

const FD_DIR = "/proc/self/fd";
const namesDescriptors = existsSync(FD_DIR);

/** The real path of the file an open descriptor refers to; null when it cannot be known. */
function descriptorPath(fd: number): string | null {
  if (!namesDescriptors) return null;
  try {
    return readlinkSync(`${FD_DIR}/${fd}`);
  } catch {
    return null;
  }
}

/** Whether descriptor `fd` is the file at the real path `expected` (an unlinked file is not). */
export function descriptorIs(fd: number, expected: string): boolean {
  const actual = descriptorPath(fd);
  if (actual !== null) return actual === expected;
  try {
    return realpathSync(expected) === expected;
  } catch {
    return false;
  }
}

/** A directory held open and verified to be `realDir`: names inside it resolve from the descriptor, whatever happens to the path. */
export interface PinnedDirectory {
  readonly realDir: string;
  /** A path naming `name` inside the pinned directory (through the descriptor where the kernel allows). */
  at(name: string): string;
  close(): void;
}

/** PATH_DENIED for a path that changed under the operation (a directory swapped for a symlink, or renamed away). */
export function swapped(path: string, what: string): MastError {
  return new MastError("PATH_DENIED", `${path} changed while it was being opened (${what}); nothing was read or written`, {
    hint: "A directory on the path was replaced (by a symlink or a rename) during the operation: check the project tree and retry.",
    details: { path },
  });
}

/** Opens the directory at the real path `realDir` and proves it is that directory; PATH_DENIED otherwise. */
export function pinDirectory(realDir: string): PinnedDirectory {
  let fd: number;
  try {
    fd = openSync(realDir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR") throw swapped(realDir, "a symlink or a file where a directory was");
    // Gone by its path (a directory on it renamed away mid-operation): the path no longer names what was checked.
    if (code === "ENOENT") throw swapped(realDir, "a directory on its path is gone");
    throw err;
  }
  if (!descriptorIs(fd, realDir)) {
    closeSync(fd);
    throw swapped(realDir, "it resolved through a symlink");
  }
  const base = namesDescriptors ? `${FD_DIR}/${fd}/` : realDir.endsWith(sep) ? realDir : `${realDir}${sep}`;
  return { realDir, at: (name) => base + name, close: () => closeSync(fd) };
}

/**
 * Creates `realDir` and its missing ancestors below `realRoot` (both real paths, `realDir` inside
 * `realRoot`), each made and entered under its pinned parent: a component that is (or becomes) a
 * symlink or a file is PATH_DENIED, and nothing is created outside `realRoot`.
 */
export function makeDirectories(realRoot: string, realDir: string): void {
  const rel = relativeInside(realRoot, realDir);
  if (rel === "") return;
  if (rel === null) throw swapped(realDir, `it is not inside ${realRoot}`);
  let parent = pinDirectory(realRoot);
  try {
    let path = realRoot;
    for (const part of rel.split("/")) {
      path = `${path}${path.endsWith(sep) ? "" : sep}${part}`;
      try {
        mkdirSync(parent.at(part));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const next = pinDirectory(path);
      parent.close();
      parent = next;
    }
  } finally {
    parent.close();
  }
}

/** Removes the file at the real path `realFile` through its pinned directory; false when it was not there. */
export function removePinned(realFile: string): boolean {
  const cut = realFile.lastIndexOf(sep);
  const dir = pinDirectory(cut <= 0 ? sep : realFile.slice(0, cut));
  try {
    unlinkSync(dir.at(realFile.slice(cut + 1)));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  } finally {
    dir.close();
  }
}
