// Project files' text as indexing decoded it (base/text.ts decodeSource and splitLines), for the
// answers that show or scan a chunk's lines: graph.db keeps where a chunk's text is in its file,
// not the text — only a class outline, which no file holds, keeps its own. A file is read once per
// query and kept across queries while it stats as it did when read; it is kept as its bytes and
// only the lines asked for are decoded (a callers scan reads ~10 MB of files for a few hundred
// chunks' lines).
import { statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { LRUCache } from "../base/lru.js";
import { DEFAULT_MAX_FILE_BYTES, readRegularFile } from "../base/read.js";
import { isBinary, sliceDecoder } from "../base/text.js";
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
    return f === null ? null : (linesText(f, from, to) ?? "");
  }

  /** Lines `from`..`to` (1-based, inclusive; clamped to the file). */
  lines(path: string, from: number, to: number): string[] | null {
    const f = this.file(path);
    return f === null ? null : (linesText(f, from, to)?.split("\n") ?? []);
  }

  /** Line `n` (1-based); null when the file has no such line or cannot be read. */
  line(path: string, n: number): string | null {
    const f = this.file(path);
    return f === null ? null : linesText(f, n, n);
  }
}

/** A file's bytes (a leading BOM left out, as decoding drops it) with the byte each line starts at. */
interface FileText {
  readonly bytes: Uint8Array;
  readonly starts: readonly number[];
  readonly lineCount: number;
  readonly hasCR: boolean;
}

function fileText(read: Uint8Array): FileText {
  const bytes = read[0] === 0xef && read[1] === 0xbb && read[2] === 0xbf ? read.subarray(3) : read;
  const starts = [0];
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) starts.push(i + 1);
  // splitLines: a final newline opens no line, and an empty text has none.
  const lineCount = bytes.length === 0 ? 0 : bytes[bytes.length - 1] === 10 ? starts.length - 1 : starts.length;
  return { bytes, starts, lineCount, hasCR: bytes.indexOf(13) !== -1 };
}

/**
 * Lines `from`..`to` (clamped to the file) decoded and `\n`-joined, each line's trailing `\r`
 * dropped (splitLines); null when the range holds no line. A `\n` byte is never part of a UTF-8
 * sequence, so a range cut at line breaks decodes as the same range of the whole file (an invalid
 * sequence the break ends is U+FFFD either way).
 */
function linesText(f: FileText, from: number, to: number): string | null {
  const first = Math.max(1, from);
  const last = Math.min(to, f.lineCount);
  if (last < first) return null;
  const end = last < f.starts.length ? f.starts[last]! - 1 : f.bytes.length;
  const text = sliceDecoder.decode(f.bytes.subarray(f.starts[first - 1], end));
  return f.hasCR ? text.replace(/\r(?=\n|$)/g, "") : text;
}

/** The columns a ChunkPlace (store/chunk-text.ts) is read from: the chunks row is aliased c, its file f. */
export const CHUNK_PLACE_COLUMNS = "f.path, c.content_start_line AS contentStart, c.content_end_line AS contentEnd, c.cut_from AS cutFrom, c.cut_to AS cutTo, c.content";

/**
 * Files read, kept across queries (an agent asks about the same code again and again) while the
 * file stats as it did when read — mtime, size, inode and ctime; a file modified within
 * RACY_WINDOW_MS of its read is not kept (git's racy-timestamp rule: a second write in the same
 * tick would not show). At most LINE_CACHE_FILES files and LINE_CACHE_BYTES, the least recently
 * used dropped first.
 */
const LINE_CACHE_FILES = 256;
/** And at most this many bytes of source in all (a file over it is read every time). */
const LINE_CACHE_BYTES = 32 * 1024 * 1024;
const LINE_CACHE = new LRUCache<string, { readonly stamp: string; readonly file: FileText | null; readonly bytes: number }>({
  max: LINE_CACHE_FILES,
  maxSize: LINE_CACHE_BYTES,
  sizeCalculation: (entry) => Math.max(1, entry.bytes),
});

function cachedText(abs: string): FileText | null {
  const st = statSync(abs, { throwIfNoEntry: false });
  const stamp = st ? stampOf(st) : null;
  const hit = LINE_CACHE.get(abs);
  if (hit && stamp !== null && hit.stamp === stamp) return hit.file;
  const read = readRegularFile(abs, { maxBytes: DEFAULT_MAX_FILE_BYTES, noFollow: true, expect: abs });
  const file = read.kind === "read" && !isBinary(read.bytes) ? fileText(read.bytes) : null;
  LINE_CACHE.delete(abs);
  if (read.kind === "read" && Date.now() - read.stat.mtimeMs > RACY_WINDOW_MS && read.stat.size <= LINE_CACHE_BYTES) {
    LINE_CACHE.set(abs, { stamp: stampOf(read.stat), file, bytes: read.stat.size });
  }
  return file;
}

/** What a file's cached text is valid for: its mtime, size, inode and ctime. */
function stampOf(st: Stats): string {
  return `${st.mtimeMs}:${st.size}:${st.ino}:${st.ctimeMs}`;
}
