// A chunk's text from its row: its own deflated text (a class outline), or the lines of its file it
// covers (one line cut by columns for a piece of a long line). The one reading of a chunk's place,
// for the answers (query/source.ts SourceLines: the file as it is now) and for a publish (the bytes
// it uploads).
import { inflateRow } from "../base/deflate.js";

/** Where a chunk's text is (the chunks row's columns): the file's lines contentStart..contentEnd, a cut from one line, or the text itself. */
export interface ChunkPlace {
  readonly path: string;
  readonly contentStart: number;
  readonly contentEnd: number;
  readonly cutFrom: number | null;
  readonly cutTo: number | null;
  /** A class outline's own text, deflated (base/deflate.ts); null for text the file holds. */
  readonly content: Uint8Array | null;
}

/** Where a chunk's lines come from: a file's line, or its lines first..last joined; null when unreadable. */
export interface ChunkLines {
  line(path: string, n: number): string | null;
  text(path: string, first: number, last: number): string | null;
}

/**
 * A chunk's text: its own (a class outline), or its lines as the file has them now — null when the
 * file cannot be read. A file that changed since indexing gives its current lines in the indexed
 * range: the answers that show text say `stale` by the file's stat (query/search-results.ts staleChecker).
 */
export function chunkContent(c: ChunkPlace, source: ChunkLines): string | null {
  if (c.content !== null) return inflateRow(c.content, `a damaged class outline (${c.path}:${c.contentStart})`).toString("utf8");
  if (c.cutFrom !== null) return source.line(c.path, c.contentStart)?.slice(c.cutFrom, c.cutTo ?? undefined) ?? null;
  return source.text(c.path, c.contentStart, c.contentEnd);
}
