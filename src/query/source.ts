// Project files' text as indexing decoded it (base/text.ts decodeSource and splitLines), for the
// answers that show or scan a chunk's lines: graph.db keeps where a chunk's text is in its file,
// not the text — only a class outline, which no file holds, keeps its own. A file is read once per
// query and kept across queries while it stats as it did when read.
import { statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MAX_FILE_BYTES, readRegularFile } from "../base/read.js";
import { decodeSource, lineStarts } from "../base/text.js";
import { RACY_WINDOW_MS } from "../index/read.js";

/**
 * Project files' lines as decoded for indexing (base/text.ts splitLines: no terminators, a
 * trailing `\r` dropped), read once per query; null when a file is unreadable, binary, special or
 * too large. A file is held as its text and its line starts, and a range is cut from it: a chunk's
 * lines cost their own length, not a split of the whole file.
 */
export class SourceLines {
  private readonly cache = new Map<string, FileText | null>();
  constructor(private readonly root: string) {}

  private file(path: string): FileText | null {
    let file = this.cache.get(path);
    if (file === undefined) this.cache.set(path, (file = cachedText(join(this.root, path))));
    return file;
  }

  /** Lines `from`..`to` (1-based, inclusive; clamped to the file), joined by `\n`. */
  text(path: string, from: number, to: number): string | null {
    const f = this.file(path);
    if (f === null) return null;
    const last = Math.min(to, f.lineCount);
    if (last < from) return "";
    if (!f.hasCR) return f.text.slice(f.starts[from - 1], lineEnd(f, last));
    return this.lines(path, from, last)!.join("\n");
  }

  /** Lines `from`..`to` (1-based, inclusive; clamped to the file). */
  lines(path: string, from: number, to: number): string[] | null {
    const f = this.file(path);
    if (f === null) return null;
    const out: string[] = [];
    for (let n = Math.max(1, from); n <= Math.min(to, f.lineCount); n++) out.push(lineOf(f, n));
    return out;
  }

  /** Line `n` (1-based); null when the file has no such line or cannot be read. */
  line(path: string, n: number): string | null {
    const f = this.file(path);
    return f === null || n < 1 || n > f.lineCount ? null : lineOf(f, n);
  }
}

/** A file's decoded text with the offset each line starts at. */
interface FileText {
  readonly text: string;
  readonly starts: readonly number[];
  readonly lineCount: number;
  readonly hasCR: boolean;
}

function fileText(text: string): FileText {
  const starts = lineStarts(text);
  // splitLines: a final newline opens no line, and an empty text has none.
  const lineCount = text.length === 0 ? 0 : text.endsWith("\n") ? starts.length - 1 : starts.length;
  return { text, starts, lineCount, hasCR: text.includes("\r") };
}

/** Where line n's text ends (before its `\n`). */
function lineEnd(f: FileText, n: number): number {
  return n < f.starts.length ? f.starts[n]! - 1 : f.text.length;
}

function lineOf(f: FileText, n: number): string {
  const line = f.text.slice(f.starts[n - 1], lineEnd(f, n));
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** Where a chunk's text is (the chunks row's columns): the file's lines contentStart..contentEnd, a cut from one line, or the text itself. */
export interface ChunkPlace {
  readonly path: string;
  readonly contentStart: number;
  readonly contentEnd: number;
  readonly cutFrom: number | null;
  readonly cutTo: number | null;
  /** A class outline's own text; null for text the file holds. */
  readonly content: string | null;
}

/** The columns a ChunkPlace is read from: the chunks row is aliased c, its file f. */
export const CHUNK_PLACE_COLUMNS = "f.path, c.content_start_line AS contentStart, c.content_end_line AS contentEnd, c.cut_from AS cutFrom, c.cut_to AS cutTo, c.content";

/**
 * A chunk's text: its own (a class outline), or its lines as the file has them now — null when the
 * file cannot be read. A file that changed since indexing gives its current lines in the indexed
 * range: the answers that show text say `stale` by the file's stat (query/search.ts staleChecker).
 */
export function chunkContent(c: ChunkPlace, source: SourceLines): string | null {
  if (c.content !== null) return c.content;
  if (c.cutFrom !== null) return source.line(c.path, c.contentStart)?.slice(c.cutFrom, c.cutTo ?? undefined) ?? null;
  return source.text(c.path, c.contentStart, c.contentEnd);
}

/**
 * Files read, kept across queries (an agent asks about the same code again and again) while the
 * file stats as it did when read — mtime, size, inode and ctime; a file modified within
 * RACY_WINDOW_MS of its read is not kept (git's racy-timestamp rule: a second write in the same
 * tick would not show). At most LINE_CACHE_FILES files and LINE_CACHE_BYTES, the least recently
 * used dropped first.
 */
const LINE_CACHE = new Map<string, { readonly stamp: string; readonly file: FileText | null; readonly bytes: number }>();
const LINE_CACHE_FILES = 256;
/** And at most this many bytes of source in all (a file over it is read every time). */
const LINE_CACHE_BYTES = 32 * 1024 * 1024;
let lineCacheBytes = 0;

function cachedText(abs: string): FileText | null {
  const st = statSync(abs, { throwIfNoEntry: false });
  const stamp = st ? stampOf(st) : null;
  const hit = LINE_CACHE.get(abs);
  if (hit && stamp !== null && hit.stamp === stamp) {
    LINE_CACHE.delete(abs);
    LINE_CACHE.set(abs, hit);
    return hit.file;
  }
  const read = readRegularFile(abs, { maxBytes: DEFAULT_MAX_FILE_BYTES, noFollow: true, expect: abs });
  const decoded = read.kind === "read" ? decodeSource(read.bytes) : null;
  const file = decoded?.kind === "text" ? fileText(decoded.text) : null;
  dropCached(abs);
  if (read.kind === "read" && Date.now() - read.stat.mtimeMs > RACY_WINDOW_MS && read.stat.size <= LINE_CACHE_BYTES) {
    LINE_CACHE.set(abs, { stamp: stampOf(read.stat), file, bytes: read.stat.size });
    lineCacheBytes += read.stat.size;
    while (LINE_CACHE.size > LINE_CACHE_FILES || lineCacheBytes > LINE_CACHE_BYTES) dropCached(LINE_CACHE.keys().next().value!);
  }
  return file;
}

/** What a file's cached text is valid for: its mtime, size, inode and ctime. */
function stampOf(st: Stats): string {
  return `${st.mtimeMs}:${st.size}:${st.ino}:${st.ctimeMs}`;
}

function dropCached(abs: string): void {
  const entry = LINE_CACHE.get(abs);
  if (!entry) return;
  LINE_CACHE.delete(abs);
  lineCacheBytes -= entry.bytes;
}
