// One file's trip from disk to extraction: stat, read, binary and size checks, content hash,
// decode, extract, fingerprint. Runs inside worker threads or inline; returns data, never throws.
import { readFileSync, statSync } from "node:fs";
import { ioErrorMessage } from "../base/errors.js";
import { sha256 } from "../base/hash.js";
import { decodeSource } from "../base/text.js";
import { extensionInfo } from "../lang/languages.js";
import { extractFile, extractionFingerprint } from "../syntax/extract.js";
import type { ExtractOptions, FileExtraction } from "../syntax/types.js";

export interface ParseTask {
  readonly path: string;
  readonly abs: string;
  readonly options: ExtractOptions;
  readonly maxFileBytes: number;
}

export interface FileStampData {
  readonly mtime: number;
  readonly size: number;
  readonly contentHash: string;
}

export type ParseOutcome =
  | { kind: "parsed"; path: string; stamp: FileStampData; language: string; extraction: FileExtraction; fingerprint: string }
  | { kind: "binary"; path: string }
  | { kind: "too_large"; path: string; size: number }
  | { kind: "vanished"; path: string; error: string }
  | { kind: "read_error"; path: string; error: string }
  | { kind: "parse_error"; path: string; stamp: FileStampData; error: string };

export interface ReadOutcome {
  readonly kind: "read";
  readonly bytes: Buffer;
  readonly stamp: FileStampData;
}

/** Reads a file with its pre-read stamp; binary/size/IO problems come back as outcomes. */
export function readForIndex(path: string, abs: string, maxFileBytes: number): ReadOutcome | Exclude<ParseOutcome, { kind: "parsed" | "parse_error" }> {
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

export function runParseTask(task: ParseTask): ParseOutcome {
  const read = readForIndex(task.path, task.abs, task.maxFileBytes);
  if (read.kind !== "read") return read;
  const decoded = decodeSource(read.bytes);
  if (decoded.kind === "binary") return { kind: "binary", path: task.path };
  const result = extractFile(task.path, decoded.text, task.options);
  if (!result.ok) return { kind: "parse_error", path: task.path, stamp: read.stamp, error: result.error };
  return {
    kind: "parsed",
    path: task.path,
    stamp: read.stamp,
    language: extensionInfo(task.path)?.language ?? "unknown",
    extraction: result.extraction,
    fingerprint: extractionFingerprint(result.extraction),
  };
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
