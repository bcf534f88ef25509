// Reading a file for the index without parsing it: its pre-read stamp, the binary and size
// checks, the content hash — and whether it differs from what the index holds. Kept free of the
// parser so freshness checks and no-change runs never load tree-sitter.
import { readFileSync, statSync } from "node:fs";
import { ioErrorMessage } from "../base/errors.js";
import { sha256 } from "../base/hash.js";

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

/** Reads a file with its pre-read stamp; binary/size/IO problems come back as outcomes. */
export function readForIndex(path: string, abs: string, maxFileBytes: number): ReadOutcome | ReadProblem {
  try {
    const st = statSync(abs);
    if (st.size > maxFileBytes) return { kind: "too_large", path, size: st.size };
    const bytes = readFileSync(abs);
    if (bytes.indexOf(0) !== -1) return { kind: "binary", path };
    return { kind: "read", bytes, stamp: { mtime: st.mtimeMs, size: bytes.length, contentHash: sha256(bytes) } };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "vanished", path, error: ioErrorMessage(err) };
    return { kind: "read_error", path, error: ioErrorMessage(err) };
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
