// Reading a file for the index without parsing it: its pre-read stamp, the binary and size
// checks, the content hash — and whether it differs from what the index holds. Kept free of the
// parser so freshness checks and no-change runs never load tree-sitter.
import { sha256 } from "../base/hash.js";
import { readRegularFile } from "../base/read.js";

export interface FileStampData {
  readonly mtime: number;
  readonly size: number;
  readonly contentHash: string;
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
  const r = readRegularFile(abs, { maxBytes: maxFileBytes });
  switch (r.kind) {
    case "read":
      if (r.bytes.indexOf(0) !== -1) return { kind: "binary", path };
      return { kind: "read", bytes: r.bytes, stamp: { mtime: r.stat.mtimeMs, size: r.bytes.length, contentHash: sha256(r.bytes) } };
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

export type IndexedState =
  | { state: "unchanged"; stamp: FileStampData }
  | { state: "changed" }
  | { state: "unindexed" }
  | { state: "unindexable" };

/**
 * How a file on disk compares with its indexed stamp — by content hash, never by mtime alone.
 * "unindexable": binary or over the size cap, and not indexed. The indexer's work set and
 * `mast status`'s stale count both come from this one decision.
 */
export function compareWithIndex(path: string, abs: string, maxFileBytes: number, indexedHash: string | null): IndexedState {
  const read = readForIndex(path, abs, maxFileBytes);
  if (indexedHash === null) return read.kind === "binary" || read.kind === "too_large" ? { state: "unindexable" } : { state: "unindexed" };
  return read.kind === "read" && read.stamp.contentHash === indexedHash ? { state: "unchanged", stamp: read.stamp } : { state: "changed" };
}
