// One file's trip from disk to extraction: stat, read, binary and size checks, content hash,
// decode, extract, and each chunk's search words. Runs inside worker threads or inline; returns
// data, never throws.
import { chunkSearchWords, decodeSource, type ChunkSearchWords } from "../base/text.js";
import { extractFile } from "../syntax/extract.js";
import { parseTime } from "../syntax/parser.js";
import type { ExtractOptions, FileExtraction } from "../syntax/types.js";
import { readForIndex, type FileStampData, type ReadProblem } from "./read.js";

export type { FileStampData } from "./read.js";

export interface ParseTask {
  readonly path: string;
  readonly abs: string;
  readonly options: ExtractOptions;
  readonly maxFileBytes: number;
}

/** Where one task's time went (ms): reading and hashing, tree-sitter's parse, the extraction after it. */
export interface TaskTiming {
  readonly read: number;
  readonly parse: number;
  readonly extract: number;
}

export type ParseOutcome = (
  | { kind: "parsed"; path: string; stamp: FileStampData; language: string; extraction: FileExtraction; search: ChunkSearchWords[] }
  | ReadProblem
  | { kind: "parse_error"; path: string; stamp: FileStampData; error: string }
) & { timing?: TaskTiming };

export function runParseTask(task: ParseTask): ParseOutcome {
  const t0 = performance.now();
  const read = readForIndex(task.path, task.abs, task.maxFileBytes);
  if (read.kind !== "read") return read;
  const decoded = decodeSource(read.bytes);
  if (decoded.kind === "binary") return { kind: "binary", path: task.path };
  const t1 = performance.now();
  const parsedBefore = parseTime.ms;
  const result = extractFile(task.path, decoded.text, task.options);
  const search = result.ok ? result.extraction.chunks.map((c) => chunkSearchWords(c.content.slice(c.searchStart, c.searchEnd), c.symbolName)) : [];
  const parse = parseTime.ms - parsedBefore;
  const timing = { read: t1 - t0, parse, extract: performance.now() - t1 - parse };
  if (!result.ok) return { kind: "parse_error", path: task.path, stamp: read.stamp, error: result.error, timing };
  return {
    kind: "parsed",
    path: task.path,
    stamp: read.stamp,
    // The language the extractor read it as (a `.h` with no C++ in it is C).
    language: result.extraction.language,
    extraction: result.extraction,
    search,
    timing,
  };
}
