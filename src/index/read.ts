// Reading a file for the index without parsing it: its pre-read stamp, the binary and size
// checks, the content hash — and the one "has this file changed since it was indexed" decision,
// stat first: a file whose (size, mtime, inode, ctime) still equal a trusted stamp is unchanged without
// being read; any other file is hashed, and the hash decides. Kept free of the parser so
// freshness checks and no-change runs never load tree-sitter.
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { sha256 } from "../base/hash.js";
import { absoluteIn } from "../base/paths.js";
import { statKeyAt, statMany } from "../base/native.js";
import { readRegularFile } from "../base/read.js";
import type { StampFields } from "../store/file-stamps.js";
import type { StatKey } from "./walk-cache.js";

/**
 * A stamp is trusted only when the file's mtime was more than this before the read that hashed
 * it: a write in the same timestamp granule as that read (ext4's coarse clock ticks every few
 * milliseconds, FAT's every 2 s) could change the bytes and keep the stat (git's racy-timestamp
 * rule). An untrusted stamp makes every check hash the file until a later read re-stamps it. As in
 * git, the ctime is compared but not put to this test: a rewrite that puts back an old mtime moves
 * the ctime, and only one inside the very tick of the read could hide.
 */
export const RACY_WINDOW_MS = 3_000;

/** The stat of a file as the index records it. */
export interface FileStat {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  /** The inode's change time: any write or utimes moves it, so a same-size rewrite that keeps its mtime (`cp -p`, `touch -r`) is seen — git stamps it too. */
  readonly ctimeMs: number;
}

/** The stamp a read gives a file's rows (store/file-stamps.ts StampFields). */
export type FileStampData = StampFields;

/** A file that could not be read as indexable text. */
export type ReadProblem =
  | { kind: "binary"; path: string }
  | { kind: "too_large"; path: string; size: number }
  | { kind: "vanished"; path: string; error: string }
  | { kind: "read_error"; path: string; error: string };

export interface ReadOutcome {
  readonly kind: "read";
  readonly bytes: Buffer;
  readonly stamp: FileStampData;
}

/** Reads a file with its pre-read stamp; binary/size/IO problems come back as outcomes (a FIFO or device never blocks the read). */
export function readForIndex(path: string, abs: string, maxFileBytes: number): ReadOutcome | ReadProblem {
  const startedMs = Date.now();
  // `abs` is the real root joined with a walked path: the descriptor must be that file, never one
  // a directory swapped for a symlink leads to (the walk follows no symlink either).
  const r = readRegularFile(abs, { maxBytes: maxFileBytes, noFollow: true, expect: abs });
  switch (r.kind) {
    case "read": {
      if (r.bytes.indexOf(0) !== -1) return { kind: "binary", path };
      const { mtimeMs, ino, ctimeMs } = r.stat;
      return { kind: "read", bytes: r.bytes, stamp: { mtime: mtimeMs, size: r.bytes.length, ino, ctime: ctimeMs, contentHash: sha256(r.bytes), statClean: mtimeMs < startedMs - RACY_WINDOW_MS } };
    }
    case "too_large":
      return { kind: "too_large", path, size: r.size };
    case "missing":
      return { kind: "vanished", path, error: r.error };
    case "not_regular":
      return { kind: "read_error", path, error: `it is ${r.what}, not a regular file` };
    case "symlink":
    case "redirected":
    case "error":
      return { kind: "read_error", path, error: r.kind === "error" ? r.error : r.kind === "symlink" ? "it is a symlink" : "a directory on its path was swapped for a symlink while it was read" };
  }
}

/** The stat a stamp recorded. */
export const stampStat = (s: Pick<FileStampData, "size" | "mtime" | "ino" | "ctime">): FileStat => ({ size: s.size, mtimeMs: s.mtime, ino: s.ino, ctimeMs: s.ctime });

/** Equal size, mtime, inode and ctime (null: no file; equal only to null). */
export const sameStat = (a: FileStat | null, b: FileStat | null): boolean =>
  a === null || b === null ? a === b : a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino && a.ctimeMs === b.ctimeMs;

/** True when a stat proves a file's bytes are still those the stamp hashed: equal stat, trusted stamp. */
export function statProvesUnchanged(indexed: FileStampData, stat: FileStat): boolean {
  return indexed.statClean && sameStat(stampStat(indexed), stat);
}

export type IndexedState = { state: "unchanged"; stamp: FileStampData | null } | { state: "changed" } | { state: "unindexed" } | { state: "unindexable" };

/**
 * How a file on disk compares with its indexed stamp. With the file's current stat (the walk's),
 * a trusted stamp the stat still matches is "unchanged" without a read (`stamp` null); otherwise
 * the file is read and its content hash decides — never the mtime alone ("unchanged" then carries
 * the new stamp, for the caller to record). "unindexable": binary or over the size cap, and not
 * indexed. The indexer's work set, `mast status`'s stale count and the read tools' just-in-time
 * checks all come from this one decision.
 */
export function compareWithIndex(path: string, root: string, maxFileBytes: number, indexed: FileStampData | null, stat?: FileStat): IndexedState {
  if (indexed !== null && stat !== undefined && statProvesUnchanged(indexed, stat)) return { state: "unchanged", stamp: null };
  const read = readForIndex(path, absoluteIn(root, path), maxFileBytes);
  if (indexed === null) return read.kind === "binary" || read.kind === "too_large" ? { state: "unindexable" } : { state: "unindexed" };
  return read.kind === "read" && read.stamp.contentHash === indexed.contentHash ? { state: "unchanged", stamp: read.stamp } : { state: "changed" };
}

/** A path's stat as `stampPaths` records it: [path, size, mtime, ino, ctime], [path] when absent, [] when racy. */
type PathStamp = [string] | [string, number, number, number, number] | [];

/**
 * The stats of paths other than sources (the configs the import resolver read or probed), as JSON:
 * through symlinks, as they are read; one modified within the racy window recorded as unknown, so
 * the next check reads it again. An absent path is recorded by its directory — a file appearing in
 * it changes the directory's mtime — or as absent when the directory is too: the resolver probes
 * ~20 names per directory, 70,000 absent paths on a 1 GB tree, and every check stat'ed each.
 */
export function stampPaths(paths: readonly string[]): string {
  const now = Date.now();
  const stamp = (abs: string, [size, mtime, ino, ctime]: StatKey): PathStamp => (mtime < now - RACY_WINDOW_MS ? [abs, size, mtime, ino, ctime] : []);
  const out: PathStamp[] = [];
  const dirs = new Set<string>();
  // All stat'ed in one call; one it could not stat (absent, or unreadable) is recorded by its
  // directory, and a directory it could not stat as absent (checked by fs when compared).
  const stats = statMany(paths);
  paths.forEach((abs, i) => {
    const key = statKeyAt(stats, i);
    if (key === null) dirs.add(dirname(abs));
    else out.push(stamp(abs, key));
  });
  const dirList = [...dirs];
  const dirStats = statMany(dirList);
  dirList.forEach((dir, i) => {
    const key = statKeyAt(dirStats, i);
    out.push(key === null ? [dir] : stamp(dir, key));
  });
  return JSON.stringify(out);
}

/**
 * True when every path `stampPaths` recorded stats as it did then (absent ones still absent).
 * `known` answers for paths already stat'ed in this run (the walk's directories, not symlinks, so
 * lstat is stat): most recorded paths are directories the walk just read (27,000 stats at 1 GB).
 */
export function pathsStatAsStamped(recorded: string | null, known?: ReadonlyMap<string, StatKey>): boolean {
  if (recorded === null) return false;
  let stamps: PathStamp[];
  try {
    stamps = JSON.parse(recorded) as PathStamp[];
  } catch {
    return false;
  }
  const same = (s: PathStamp, [size, mtime, ino, ctime]: StatKey) => s.length === 5 && s[1] === size && s[2] === mtime && s[3] === ino && s[4] === ctime;
  const unknown: Array<Exclude<PathStamp, []>> = [];
  for (const s of stamps) {
    if (s.length === 0) return false;
    const seen = s.length === 5 ? known?.get(s[0]) : undefined;
    if (seen === undefined) unknown.push(s);
    else if (!same(s, seen)) return false;
  }
  if (unknown.length === 0) return true;
  // The rest in one call (27,700 configs at 1 GB: 140 ms one by one on each of a server's refreshes).
  const stats = statMany(unknown.map((s) => s[0]));
  return unknown.every((s, i) => {
    const key = statKeyAt(stats, i);
    if (key !== null) return same(s, key);
    if (s.length !== 1) return false;
    // Recorded absent and not stat'ed: absent still, or an error (fs throws it: not as stamped).
    try {
      return statSync(s[0], { throwIfNoEntry: false }) === undefined;
    } catch {
      return false;
    }
  });
}
