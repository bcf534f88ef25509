// Language-neutral chunk assembly: turns declaration spans ("drafts") into stored chunks —
// the split rule, the context_lines expansion, the per-chunk character cap and chunk ids — with
// every non-blank line in some chunk (lines no draft covers become blocks), and the class shell's
// outline built from its lines (members by their signatures, everything else verbatim).
import { chunkId } from "../base/hash.js";
import { MAX_CHUNK_CHARS, SPLIT_OVERLAP_LINES, type Chunk, type ChunkType } from "./types.js";

export interface ChunkDraft {
  readonly startLine: number;
  readonly endLine: number;
  readonly chunkType: ChunkType;
  readonly symbolName: string | null;
  readonly parentSymbol: string | null;
  readonly isExported: boolean;
  /** Last line of the declaration header; sub-chunk 0 always reaches it. */
  readonly headerEndLine?: number;
  /** First line of an attached doc comment, pulled into the stored content. */
  readonly docStartLine?: number;
  /**
   * Synthesized content (class shells): stored as is, never split or expanded. It holds the lines of
   * the draft's span that no member's own chunk holds, verbatim (`shellOutline`): the draft covers its
   * whole span.
   */
  readonly synthesized?: string;
  /** Skip context_lines expansion (markdown sections are self-delimiting). */
  readonly noContext?: boolean;
  /** A mirror of another draft (an export alias): it stores its own copy of long lines. */
  readonly mirror?: boolean;
}

export interface SourceLines {
  /** The text itself. */
  readonly text: string;
  /** Line i (1-based) is lines[i - 1], without its line terminator. */
  readonly lines: readonly string[];
  /** Offset in the original text where line i starts is lineStarts[i - 1] (see base/text.ts lineStarts). */
  readonly lineStarts: readonly number[];
}

export interface MaterializeOptions {
  readonly chunkSplitThreshold: number;
  readonly contextLines: number;
  /** Identifier bag for one emitted piece of a draft: the source text between two offsets of the original text. */
  readonly identifiers: (draft: ChunkDraft, fromOffset: number, toOffset: number) => readonly string[];
}

/** Line windows of a declaration: one window, or overlapping windows when it exceeds the threshold. */
export function splitWindows(startLine: number, endLine: number, threshold: number, headerEndLine = startLine): Array<[number, number]> {
  if (endLine - startLine + 1 <= threshold) return [[startLine, endLine]];
  const windows: Array<[number, number]> = [];
  let s = startLine;
  for (;;) {
    const e = Math.min(endLine, s === startLine ? Math.max(s + threshold - 1, headerEndLine) : s + threshold - 1);
    windows.push([s, e]);
    if (e >= endLine) return windows;
    s = Math.max(s + 1, e - SPLIT_OVERLAP_LINES + 1);
  }
}

interface Piece {
  startLine: number;
  endLine: number;
  contentStartLine: number;
  content: string;
  /** Where the content sits in the file: first line and column, last line and end column (exclusive). */
  from: [number, number];
  to: [number, number];
}

/**
 * Cuts text that exceeds the character cap at line boundaries, and inside a line only when one line alone exceeds it.
 * A line over the cap is stored once per file: `emittedLong` holds the ones already cut, which later pieces skip
 * (in a minified file every declaration shares one line; re-storing it per declaration is quadratic).
 */
function capPieces(source: SourceLines, sliceable: boolean, firstLine: number, toLine: number, spanStart: number, spanEnd: number, emittedLong: Set<number>): Piece[] {
  const pieces: Piece[] = [];
  const lines = source.lines;
  // A draft may end past the last line (an `#if` view's region): the file's lines are what there is.
  const lastLine = Math.min(toLine, lines.length);
  // Pieces are labelled with lines inside the span, so a long context line never reports lines outside it.
  const clamp = (line: number) => Math.max(spanStart, Math.min(line, spanEnd));
  let bufLines = 0;
  let bufChars = 0;
  let bufFirst = firstLine;
  const flush = (last: number) => {
    if (bufLines === 0) return;
    const start = source.lineStarts[bufFirst - 1]!;
    pieces.push({
      startLine: clamp(bufFirst),
      endLine: clamp(last),
      contentStartLine: bufFirst,
      content: sliceable ? source.text.slice(start, start + bufChars - 1) : lines.slice(bufFirst - 1, last).join("\n"),
      from: [bufFirst, 0],
      to: [last, lines[last - 1]!.length],
    });
    bufLines = 0;
    bufChars = 0;
  };
  for (let lineNo = firstLine; lineNo <= lastLine; lineNo++) {
    const line = lines[lineNo - 1]!;
    if (line.length > MAX_CHUNK_CHARS) {
      flush(lineNo - 1);
      if (emittedLong.has(lineNo)) continue;
      emittedLong.add(lineNo);
      for (let off = 0; off < line.length; off += MAX_CHUNK_CHARS) {
        const end = Math.min(line.length, off + MAX_CHUNK_CHARS);
        pieces.push({ startLine: clamp(lineNo), endLine: clamp(lineNo), contentStartLine: lineNo, content: line.slice(off, end), from: [lineNo, off], to: [lineNo, end] });
      }
      continue;
    }
    if (bufLines > 0 && bufChars + line.length + 1 > MAX_CHUNK_CHARS) flush(lineNo - 1);
    if (bufLines === 0) bufFirst = lineNo;
    bufLines++;
    bufChars += line.length + 1;
  }
  flush(lastLine);
  return pieces;
}

/**
 * The lines no draft covers, as block drafts: each run of uncovered lines (blank lines inside it
 * kept, around it dropped) holding a non-blank line — a license header, a comment between
 * declarations, a statement no extractor claims. A draft covers its span and its doc comment (a
 * synthesized one too: see `ChunkDraft.synthesized`). A run is split by the split rule like any
 * draft. No chunk starts on an uncovered line, so a run's chunks never share a start line (and so a
 * chunk id) with another chunk.
 */
function uncoveredDrafts(lines: readonly string[], drafts: readonly ChunkDraft[]): ChunkDraft[] {
  const lineCount = lines.length;
  // depth[line] after the prefix sum: how many drafts cover the line.
  const delta = new Int32Array(lineCount + 2);
  for (const d of drafts) {
    const from = Math.max(1, Math.min(d.startLine, d.docStartLine ?? d.startLine));
    const to = Math.min(lineCount, d.endLine);
    if (to < from) continue;
    delta[from]!++;
    delta[to + 1]!--;
  }
  const gaps: ChunkDraft[] = [];
  let depth = 0;
  let runStart = 0;
  let runEnd = 0;
  for (let line = 1; line <= lineCount + 1; line++) {
    depth += delta[line]!;
    if (line <= lineCount && depth === 0) {
      if (lines[line - 1]!.trim() === "") continue;
      if (runStart === 0) runStart = line;
      runEnd = line;
    } else if (runStart !== 0) {
      gaps.push({ startLine: runStart, endLine: runEnd, chunkType: "block", symbolName: null, parentSymbol: null, isExported: false });
      runStart = 0;
    }
  }
  return gaps;
}

/** Drafts with the uncovered runs' blocks placed before the first draft that starts after them (the drafts' own order kept). */
function withUncovered(lines: readonly string[], drafts: readonly ChunkDraft[]): readonly ChunkDraft[] {
  const gaps = uncoveredDrafts(lines, drafts);
  if (gaps.length === 0) return drafts;
  const out: ChunkDraft[] = [];
  let g = 0;
  for (const d of drafts) {
    while (g < gaps.length && gaps[g]!.startLine < d.startLine) out.push(gaps[g++]!);
    out.push(d);
  }
  while (g < gaps.length) out.push(gaps[g++]!);
  return out;
}

/** Expands drafts (and blocks for the lines none covers) into chunks with ids unique per file, in draft order. */
export function materializeChunks(filePath: string, source: SourceLines, drafts: readonly ChunkDraft[], options: MaterializeOptions): Chunk[] {
  const chunks: Chunk[] = [];
  const idsUsed = new Map<number, number>();
  const lineCount = source.lines.length;
  const offset = (line: number, col: number) => (source.lineStarts[line - 1] ?? 0) + col;
  const lineEnd = (line: number) => offset(line, source.lines[line - 1]?.length ?? 0);
  const emittedLong = new Set<number>();
  // Without a CR in the file, lines a..b joined by "\n" are the file's own text from a's start: a
  // piece's content is a slice of it, not a copy built line by line.
  const sliceable = !source.text.includes("\r");
  // Context lines are a convenience: the expansion stops before a line over the cap (a minified line
  // is stored once, by the declarations on it, not again as every neighbour's context).
  const fits = (line: number) => (source.lines[line - 1]?.length ?? 0) <= MAX_CHUNK_CHARS;
  const expandUp = (s: number, ctx: number) => {
    let from = s;
    while (from > 1 && s - from < ctx && fits(from - 1)) from--;
    return from;
  };
  const expandDown = (e: number, ctx: number) => {
    let to = e;
    while (to < lineCount && to - e < ctx && fits(to + 1)) to++;
    return to;
  };
  const idFor = (line: number) => {
    const n = idsUsed.get(line) ?? 0;
    idsUsed.set(line, n + 1);
    return chunkId(filePath, line, n);
  };
  for (const draft of withUncovered(source.lines, drafts)) {
    const base = {
      chunkType: draft.chunkType,
      symbolName: draft.symbolName,
      parentSymbol: draft.parentSymbol,
      isExported: draft.isExported,
    };
    if (draft.synthesized !== undefined) {
      // Never split by lines or expanded; cut only when over the character cap (a minified class).
      const identifiers = options.identifiers(draft, offset(draft.startLine, 0), lineEnd(draft.endLine));
      cutText(draft.synthesized).forEach((content, part) => {
        chunks.push({
          ...base,
          chunkId: idFor(draft.startLine),
          startLine: draft.startLine,
          endLine: draft.endLine,
          content,
          searchStart: 0,
          searchEnd: content.length,
          // A synthesized outline opens with the attached doc comment when there is one.
          contentStartLine: part === 0 ? (draft.docStartLine ?? draft.startLine) : draft.startLine,
          inFile: null,
          part,
          identifiers,
        });
      });
      continue;
    }
    const windows = splitWindows(draft.startLine, draft.endLine, options.chunkSplitThreshold, draft.headerEndLine);
    let part = 0;
    windows.forEach(([s, e], w) => {
      const ctx = draft.noContext ? 0 : options.contextLines;
      let from = w === 0 ? expandUp(s, ctx) : s;
      if (w === 0 && draft.docStartLine !== undefined) from = Math.min(from, draft.docStartLine);
      const to = w === windows.length - 1 ? expandDown(e, ctx) : e;
      const searchFrom = w === 0 && draft.docStartLine !== undefined ? Math.min(s, draft.docStartLine) : s;
      for (const piece of capPieces(source, sliceable, from, to, s, e, draft.mirror ? new Set<number>() : emittedLong)) {
        if (piece.to[0] < s || piece.from[0] > e) continue; // context alone, cut off by a long line: not this chunk's text
        const [searchStart, searchEnd] = searchRange(piece, source.lines, searchFrom, e);
        chunks.push({
          ...base,
          chunkId: idFor(piece.startLine),
          startLine: piece.startLine,
          endLine: piece.endLine,
          content: piece.content,
          contentStartLine: piece.contentStartLine,
          inFile: { endLine: piece.to[0], cut: piece.from[0] === piece.to[0] && (piece.from[1] !== 0 || piece.to[1] !== source.lines[piece.to[0] - 1]!.length) ? [piece.from[1], piece.to[1]] : null },
          searchStart,
          searchEnd,
          part: part++,
          // The bag covers the piece's text inside the declaration's span (context lines excluded).
          identifiers: options.identifiers(draft, Math.max(offset(...piece.from), offset(s, 0)), Math.min(offset(...piece.to), lineEnd(e))),
        });
      }
    });
  }
  return chunks;
}

/** Character offsets in a piece's content of the lines `fromLine`..`toLine` (clamped to the piece); `lines` are the file's. */
function searchRange(piece: Piece, lines: readonly string[], fromLine: number, toLine: number): [number, number] {
  if (piece.from[0] === piece.to[0]) return [0, piece.content.length];
  // A piece of several lines is whole lines of the file, from piece.from's.
  const base = piece.from[0] - 1;
  const count = piece.to[0] - piece.from[0] + 1;
  const first = Math.min(count, Math.max(0, fromLine - piece.from[0]));
  const last = Math.min(count - 1, toLine - piece.from[0]);
  let start = 0;
  for (let i = 0; i < first; i++) start += lines[base + i]!.length + 1;
  let end = start;
  for (let i = first; i <= last; i++) end += lines[base + i]!.length + (i < last ? 1 : 0);
  return end < start ? [start, start] : [start, end];
}

/** Text cut into pieces of at most the character cap: at line breaks, and inside a line only when it alone is over. */
function cutText(text: string): string[] {
  if (text.length <= MAX_CHUNK_CHARS) return [text];
  const pieces: string[] = [];
  let buf: string[] = [];
  let chars = 0;
  const flush = () => {
    if (buf.length > 0) pieces.push(buf.join("\n"));
    buf = [];
    chars = 0;
  };
  for (const line of text.split("\n")) {
    if (line.length > MAX_CHUNK_CHARS) {
      flush();
      for (let off = 0; off < line.length; off += MAX_CHUNK_CHARS) pieces.push(line.slice(off, off + MAX_CHUNK_CHARS));
      continue;
    }
    if (buf.length > 0 && chars + 1 + line.length > MAX_CHUNK_CHARS) flush();
    chars += (buf.length > 0 ? 1 : 0) + line.length;
    buf.push(line);
  }
  flush();
  return pieces;
}

/** A non-member of a class body longer than this many lines is a block chunk of its own; the outline keeps one line of it. */
export const OUTLINE_RUN_LINES = 12;

/**
 * A part of a class body as its outline sees it: its lines (from its doc comment or first
 * decorator) and where its text is in the file, in characters.
 */
export type OutlinePart =
  /** A member with a chunk of its own: the lines that stand for it (its signature). */
  | { readonly startLine: number; readonly endLine: number; readonly from: number; readonly to: number; readonly signature: readonly string[] }
  /**
   * Anything else (a field, a constant, a comment, a static block, a nested type, a statement): kept
   * verbatim; one over OUTLINE_RUN_LINES lines is a block of its own, and `summary` (else its first
   * line and " …") stands for it in the outline.
   */
  | { readonly startLine: number; readonly endLine: number; readonly from: number; readonly to: number; readonly summary?: string };

export interface ShellOutline {
  /** The class shell's content (`ChunkDraft.synthesized`). */
  readonly text: string;
  /** The non-members over OUTLINE_RUN_LINES lines, each a block chunk with the class as its parent. */
  readonly blocks: ChunkDraft[];
  /** Their character ranges after their first line, which the shell's identifier bag leaves to them. */
  readonly excluded: Array<[number, number]>;
}

/**
 * A class shell's outline: the file's text from the start of the line `from` is on to the end of
 * the line `to` is on, with each member replaced by its signature and each long non-member by one
 * line (the rest of it is its own block), every other line verbatim and blank lines left out. A
 * member on the header's line (a one-line class) leaves the header's text before it.
 */
export function shellOutline(text: string, shell: { from: number; to: number; className: string }, parts: readonly OutlinePart[]): ShellOutline {
  const out: string[] = [];
  const blocks: ChunkDraft[] = [];
  const excluded: Array<[number, number]> = [];
  const lineStart = (at: number) => text.lastIndexOf("\n", at - 1) + 1;
  let at = lineStart(shell.from);
  const verbatim = (to: number) => {
    if (to <= at) return;
    const lines = text.slice(at, to).split("\n");
    // What a member's line holds after it when that is only its terminator (`;`) is the member's.
    if (at > 0 && text[at - 1] !== "\n" && /^[\s;,]*$/.test(lines[0]!)) lines.shift();
    for (const line of lines) if (line.trim() !== "") out.push(line.trimEnd());
    at = to;
  };
  for (const part of [...parts].sort((a, b) => a.from - b.from)) {
    if ("signature" in part) {
      verbatim(part.from);
      out.push(...part.signature);
      at = Math.max(at, part.to);
    } else if (part.from >= at && part.endLine - part.startLine + 1 > OUTLINE_RUN_LINES) {
      verbatim(part.from);
      const indent = text.slice(lineStart(part.from), part.from);
      const eol = text.indexOf("\n", part.from);
      out.push(part.summary ?? `${indent.trim() === "" ? indent : ""}${text.slice(part.from, eol).trimEnd()} …`);
      blocks.push({ startLine: part.startLine, endLine: part.endLine, chunkType: "block", symbolName: null, parentSymbol: shell.className, isExported: false });
      // The first line stays in the shell's text (and bag); the rest is the block's alone.
      excluded.push([eol, part.to]);
      at = part.to;
    }
  }
  const end = text.indexOf("\n", Math.max(shell.from, shell.to - 1));
  verbatim(end === -1 ? text.length : end);
  return { text: out.join("\n"), blocks, excluded };
}
