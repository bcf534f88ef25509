// Project files' text as indexing decoded it (base/text.ts decodeSource and splitLines), for the
// answers that show or scan a chunk's lines: graph.db keeps where a chunk's text is in its file,
// not the text — only a class outline, which no file holds, keeps its own. A file is read once per
// query and kept across queries while it stats as it did when read.
import { statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MAX_FILE_BYTES, readRegularFile } from "../base/read.js";
import { decodeSource, splitLines } from "../base/text.js";
import { RACY_WINDOW_MS } from "../index/read.js";

/** Project files' lines as decoded for indexing, read once per query; null when unreadable, binary, special or too large. */
export class SourceLines {
  private readonly cache = new Map<string, string[] | null>();
  constructor(private readonly root: string) {}

  of(path: string): string[] | null {
    let lines = this.cache.get(path);
    if (lines === undefined) this.cache.set(path, (lines = cachedLines(join(this.root, path))));
    return lines;
  }
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
  const lines = source.of(c.path);
  if (lines === null) return null;
  if (c.cutFrom !== null) return (lines[c.contentStart - 1] ?? "").slice(c.cutFrom, c.cutTo ?? undefined);
  return lines.slice(c.contentStart - 1, c.contentEnd).join("\n");
}

/**
 * Files read, kept across queries (an agent asks about the same code again and again) while the
 * file stats as it did when read — mtime, size, inode and ctime; a file modified within
 * RACY_WINDOW_MS of its read is not kept (git's racy-timestamp rule: a second write in the same
 * tick would not show). At most LINE_CACHE_FILES files and LINE_CACHE_BYTES, the least recently
 * used dropped first.
 */
const LINE_CACHE = new Map<string, { readonly stamp: string; readonly lines: string[] | null; readonly bytes: number }>();
const LINE_CACHE_FILES = 256;
/** And at most this many bytes of source in all (a file over it is read every time). */
const LINE_CACHE_BYTES = 32 * 1024 * 1024;
let lineCacheBytes = 0;

function cachedLines(abs: string): string[] | null {
  const st = statSync(abs, { throwIfNoEntry: false });
  const stamp = st ? stampOf(st) : null;
  const hit = LINE_CACHE.get(abs);
  if (hit && stamp !== null && hit.stamp === stamp) {
    LINE_CACHE.delete(abs);
    LINE_CACHE.set(abs, hit);
    return hit.lines;
  }
  const read = readRegularFile(abs, { maxBytes: DEFAULT_MAX_FILE_BYTES, noFollow: true, expect: abs });
  const decoded = read.kind === "read" ? decodeSource(read.bytes) : null;
  const lines = decoded?.kind === "text" ? splitLines(decoded.text) : null;
  dropCached(abs);
  if (read.kind === "read" && Date.now() - read.stat.mtimeMs > RACY_WINDOW_MS && read.stat.size <= LINE_CACHE_BYTES) {
    LINE_CACHE.set(abs, { stamp: stampOf(read.stat), lines, bytes: read.stat.size });
    lineCacheBytes += read.stat.size;
    while (LINE_CACHE.size > LINE_CACHE_FILES || lineCacheBytes > LINE_CACHE_BYTES) dropCached(LINE_CACHE.keys().next().value!);
  }
  return lines;
}

/** What a file's cached lines are valid for: its mtime, size, inode and ctime. */
function stampOf(st: Stats): string {
  return `${st.mtimeMs}:${st.size}:${st.ino}:${st.ctimeMs}`;
}

function dropCached(abs: string): void {
  const entry = LINE_CACHE.get(abs);
  if (!entry) return;
  LINE_CACHE.delete(abs);
  lineCacheBytes -= entry.bytes;
}
