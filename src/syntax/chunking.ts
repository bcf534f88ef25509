// Language-neutral chunk assembly: turns declaration spans ("drafts") into stored chunks —
// the split rule, the context_lines expansion, the per-chunk character cap and chunk ids.
import { sha256 } from "../base/hash.js";
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
  /** Synthesized content (class shells): stored as is, never split or expanded. */
  readonly synthesized?: string;
  /** Skip context_lines expansion (markdown sections are self-delimiting). */
  readonly noContext?: boolean;
}

export interface SourceLines {
  /** Line i (1-based) is lines[i - 1], without its newline. */
  readonly lines: readonly string[];
}

export interface MaterializeOptions {
  readonly chunkSplitThreshold: number;
  readonly contextLines: number;
  /** Identifier bag for one emitted piece of a draft (its line window). */
  readonly identifiers: (draft: ChunkDraft, startLine: number, endLine: number) => readonly string[];
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
}

/** Cuts text that exceeds the character cap at line boundaries, and inside a line only when one line alone exceeds it. */
function capPieces(lines: readonly string[], firstLine: number, spanStart: number, spanEnd: number): Piece[] {
  const pieces: Piece[] = [];
  let buf: string[] = [];
  let bufChars = 0;
  let bufFirst = firstLine;
  const flush = (lastLine: number) => {
    if (buf.length === 0) return;
    pieces.push({
      startLine: Math.max(spanStart, Math.min(bufFirst, spanEnd)),
      endLine: Math.min(spanEnd, Math.max(lastLine, spanStart)),
      contentStartLine: bufFirst,
      content: buf.join("\n"),
    });
    buf = [];
    bufChars = 0;
  };
  lines.forEach((line, i) => {
    const lineNo = firstLine + i;
    if (line.length > MAX_CHUNK_CHARS) {
      flush(lineNo - 1);
      for (let off = 0; off < line.length; off += MAX_CHUNK_CHARS) {
        // Clamped to the span like flush(): an over-cap context line must not report lines outside it.
        const inSpan = Math.max(spanStart, Math.min(lineNo, spanEnd));
        pieces.push({ startLine: inSpan, endLine: inSpan, contentStartLine: lineNo, content: line.slice(off, off + MAX_CHUNK_CHARS) });
      }
      bufFirst = lineNo + 1;
      return;
    }
    if (bufChars + line.length + 1 > MAX_CHUNK_CHARS) {
      flush(lineNo - 1);
      bufFirst = lineNo;
    }
    if (buf.length === 0) bufFirst = lineNo;
    buf.push(line);
    bufChars += line.length + 1;
  });
  flush(firstLine + lines.length - 1);
  return pieces;
}

/** Expands drafts into chunks with ids unique per file, in draft order. */
export function materializeChunks(filePath: string, source: SourceLines, drafts: readonly ChunkDraft[], options: MaterializeOptions): Chunk[] {
  const chunks: Chunk[] = [];
  const idsUsed = new Map<number, number>();
  const lineCount = source.lines.length;
  const idFor = (line: number) => {
    const n = idsUsed.get(line) ?? 0;
    idsUsed.set(line, n + 1);
    return sha256(n === 0 ? `${filePath}:${line}` : `${filePath}:${line}:${n}`);
  };
  for (const draft of drafts) {
    const base = {
      chunkType: draft.chunkType,
      symbolName: draft.symbolName,
      parentSymbol: draft.parentSymbol,
      isExported: draft.isExported,
    };
    if (draft.synthesized !== undefined) {
      chunks.push({
        ...base,
        chunkId: idFor(draft.startLine),
        startLine: draft.startLine,
        endLine: draft.endLine,
        content: draft.synthesized,
        contentStartLine: draft.startLine,
        part: 0,
        identifiers: options.identifiers(draft, draft.startLine, draft.endLine),
      });
      continue;
    }
    const windows = splitWindows(draft.startLine, draft.endLine, options.chunkSplitThreshold, draft.headerEndLine);
    let part = 0;
    windows.forEach(([s, e], w) => {
      const ctx = draft.noContext ? 0 : options.contextLines;
      let from = w === 0 ? Math.max(1, s - ctx) : s;
      if (w === 0 && draft.docStartLine !== undefined) from = Math.min(from, draft.docStartLine);
      const to = w === windows.length - 1 ? Math.min(lineCount, e + ctx) : e;
      for (const piece of capPieces(source.lines.slice(from - 1, to), from, s, e)) {
        chunks.push({
          ...base,
          chunkId: idFor(piece.startLine),
          startLine: piece.startLine,
          endLine: piece.endLine,
          content: piece.content,
          contentStartLine: piece.contentStartLine,
          part: part++,
          identifiers: options.identifiers(draft, piece.startLine, piece.endLine),
        });
      }
    });
  }
  return chunks;
}
