// Reading a file for the index without parsing it: its pre-read stamp, the binary and size
// checks, the content hash — and the one "has this file changed since it was indexed" decision,
// stat first: a file whose (size, mtime, inode) still equal a trusted stamp is unchanged without
// being read; any other file is hashed, and the hash decides. Kept free of the parser so
// freshness checks and no-change runs never load tree-sitter.
import { sha256 } from "../base/hash.js";
import { readRegularFile } from "../base/read.js";

/**
 * A stamp is trusted only when the file's mtime was more than this before the read that hashed
 * it: a write in the same timestamp granule as that read (ext4's coarse clock ticks every few
 * milliseconds, FAT's every 2 s) could change the bytes and keep the stat (git's racy-timestamp
 * rule). An untrusted stamp makes every check hash the file until a later read re-stamps it.
 */
export const RACY_WINDOW_MS = 3_000;

/** The stat of a file as the index records it. */
export interface FileStat {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

export interface FileStampData {
  readonly mtime: number;
  readonly size: number;
  readonly ino: number;
  readonly contentHash: string;
  /** The stat alone can prove the bytes unchanged later (see RACY_WINDOW_MS). */
  readonly statClean: boolean;
}

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
  const r = readRegularFile(abs, { maxBytes: maxFileBytes });
  switch (r.kind) {
    case "read": {
      if (r.bytes.indexOf(0) !== -1) return { kind: "binary", path };
      const { mtimeMs, ino } = r.stat;
      return { kind: "read", bytes: r.bytes, stamp: { mtime: mtimeMs, size: r.bytes.length, ino, contentHash: sha256(r.bytes), statClean: mtimeMs < startedMs - RACY_WINDOW_MS } };
    }
    case "too_large":
      return { kind: "too_large", path, size: r.size };
    case "missing":
      return { kind: "vanished", path, error: r.error };
    case "not_regular":
      return { kind: "read_error", path, error: `it is ${r.what}, not a regular file` };
    case "symlink":
    case "error":
      return { kind: "read_error", path, error: r.kind === "error" ? r.error : "it is a symlink" };
  }
}

/** What the index recorded of a file: the stamp `FileStampData` gave its rows. */
export interface IndexedStamp {
  readonly mtime: number;
  readonly size: number;
  readonly ino: number;
  readonly contentHash: string;
  readonly statClean: boolean;
}

/** True when a stat proves a file's bytes are still those the stamp hashed: equal stat, trusted stamp. */
export function statProvesUnchanged(indexed: IndexedStamp, stat: FileStat): boolean {
  return indexed.statClean && stat.size === indexed.size && stat.mtimeMs === indexed.mtime && stat.ino === indexed.ino;
}

export type IndexedState =
  | { state: "unchanged"; stamp: FileStampData | null }
  | { state: "changed" }
  | { state: "unindexed" }
  | { state: "unindexable" };

/**
 * How a file on disk compares with its indexed stamp. With the file's current stat (the walk's),
 * a trusted stamp the stat still matches is "unchanged" without a read (`stamp` null); otherwise
 * the file is read and its content hash decides — never the mtime alone ("unchanged" then carries
 * the new stamp, for the caller to record). "unindexable": binary or over the size cap, and not
 * indexed. The indexer's work set, `mast status`'s stale count and the read tools' just-in-time
 * checks all come from this one decision.
 */
export function compareWithIndex(path: string, abs: string, maxFileBytes: number, indexed: IndexedStamp | null, stat?: FileStat): IndexedState {
  if (indexed !== null && stat !== undefined && statProvesUnchanged(indexed, stat)) return { state: "unchanged", stamp: null };
  const read = readForIndex(path, abs, maxFileBytes);
  if (indexed === null) return read.kind === "binary" || read.kind === "too_large" ? { state: "unindexable" } : { state: "unindexed" };
  return read.kind === "read" && read.stamp.contentHash === indexed.contentHash ? { state: "unchanged", stamp: read.stamp } : { state: "changed" };
}
