// One file's trip from disk to extraction: stat, read, binary and size checks, content hash,
// decode, extract. Runs inside worker threads or inline; returns data, never throws.
import { decodeSource } from "../base/text.js";
import { extensionInfo } from "../lang/languages.js";
import { extractFile } from "../syntax/extract.js";
import type { ExtractOptions, FileExtraction } from "../syntax/types.js";
import { readForIndex, type FileStampData, type ReadProblem } from "./read.js";

export type { FileStampData } from "./read.js";

export interface ParseTask {
  readonly path: string;
  readonly abs: string;
  readonly options: ExtractOptions;
  readonly maxFileBytes: number;
}

export type ParseOutcome =
  | { kind: "parsed"; path: string; stamp: FileStampData; language: string; extraction: FileExtraction }
  | ReadProblem
  | { kind: "parse_error"; path: string; stamp: FileStampData; error: string };

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
  };
}
