// A chunk's lines as its file has them, for the scans that look for a name in them: each line with
// its number, whether it is inside a multi-line `import {` / `export {` clause, and whether it is
// prose (ProseReader) — every line of the chunk, or only the lines holding one of the names.
import { ProseReader } from "../lang/languages.js";
import { chunkContent, type ChunkPlace } from "../store/chunk-text.js";
import { CHUNK_PLACE_COLUMNS, type SourceLines } from "./source.js";

/** A chunk as mention scans read it. */
export interface ChunkRow extends ChunkPlace {
  readonly id: number;
  readonly fileId: number;
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

/** The select a ChunkRow is read by (with its file's path), a WHERE or ORDER BY to follow. */
export const CHUNK_ROWS = `SELECT c.id, c.file_id AS fileId, c.chunk_type AS type, ${CHUNK_PLACE_COLUMNS}, c.start_line AS start, c.end_line AS end
       FROM chunks c JOIN files f ON f.id = c.file_id`;

/** A line that opens a multi-line `import {` / `export {` clause; the clause ends at the line with `}` or `from`. */
const OPENS_CLAUSE = /^\s*(?:import\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{|export\s+(?:type\s+)?\{)[^}]*$/;
const CLOSES_CLAUSE = /[}]|\bfrom\b/;

/** A chunk's lines as the file has them: a class outline is a summary (members' signatures without bodies), so its lines are read from the file over the class's range; every other chunk is verbatim. */
function chunkText(c: ChunkRow, source: SourceLines): { lines: string[]; first: number } | null {
  if (c.type !== "class_shell") {
    const text = chunkContent(c, source);
    return text === null ? null : { lines: text.split("\n"), first: c.contentStart };
  }
  const lines = source.lines(c.path, c.start, c.end);
  return lines === null ? null : { lines, first: c.start };
}

/** Each line of a chunk with its line number, whether it is inside a multi-line `import {` / `export {` clause, and whether it is prose (ProseReader). */
export function forEachChunkLine(c: ChunkRow, source: SourceLines, visit: (line: number, text: string, inImport: boolean, prose: boolean) => void): void {
  const chunk = chunkText(c, source);
  if (chunk === null) return;
  let prose = new ProseReader(c.path);
  let inClause = false;
  for (let i = 0; i < chunk.lines.length; i++) {
    const text = chunk.lines[i]!;
    // Context lines above the chunk's own first line may start inside a string (the previous
    // declaration's doc string closing): the reader starts again, outside any, at the declaration.
    if (chunk.first + i === c.start && i > 0) prose = new ProseReader(c.path);
    const opensClause = OPENS_CLAUSE.test(text);
    const inImport = inClause && !opensClause;
    if (opensClause) inClause = true;
    else if (inClause && CLOSES_CLAUSE.test(text)) inClause = false;
    visit(chunk.first + i, text, inImport, prose.read(text));
  }
}

/**
 * forEachChunkLine's visits of the lines holding one of `tails`, found by searching the chunk's
 * text instead of splitting it: a line's clause state is the first opener or closer above it
 * (an opener with no closer after it: inside; a closer, or none: outside), as the forward scan has it.
 */
export function forEachLineNaming(c: ChunkRow, source: SourceLines, tails: readonly string[], visit: (line: number, text: string, inImport: boolean, prose: boolean) => void): void {
  if (c.type === "class_shell") {
    const chunk = chunkText(c, source);
    if (chunk === null) return;
    const at = (i: number) => chunk.lines[i]!;
    const prose = new ProseReader(c.path);
    for (let i = 0; i < chunk.lines.length; i++) {
      const naming = tails.some((t) => at(i).includes(t));
      const isProse = prose.read(at(i));
      if (naming) visit(chunk.first + i, at(i), inClauseAt(at, i), isProse);
    }
    return;
  }
  const text = chunkContent(c, source);
  if (text === null) return;
  const starts = new Set<number>();
  for (const t of tails) {
    for (let i = text.indexOf(t); i !== -1; ) {
      starts.add(text.lastIndexOf("\n", i - 1) + 1);
      const end = text.indexOf("\n", i);
      i = end === -1 ? -1 : text.indexOf(t, end + 1);
    }
  }
  if (starts.size === 0) return;
  let prose = new ProseReader(c.path);
  // The reader starts again at the chunk's own first line, as in forEachChunkLine (context lines above it may start inside a string).
  let from = 0;
  for (let k = c.contentStart; k < c.start && from !== -1; k++) from = text.indexOf("\n", from) + 1 || -1;
  let restart = from > 0;
  let passed = 0;
  let counted = 0;
  let line = c.contentStart;
  const lineAt = (start: number) => {
    const end = text.indexOf("\n", start);
    return text.slice(start, end === -1 ? undefined : end);
  };
  for (const start of [...starts].sort((a, b) => a - b)) {
    if (restart && start >= from) {
      prose = new ProseReader(c.path);
      passed = from;
      restart = false;
    }
    for (let nl = text.indexOf("\n", counted); nl !== -1 && nl < start; nl = text.indexOf("\n", nl + 1)) {
      line++;
      counted = nl + 1;
    }
    const own = lineAt(start);
    prose.pass(text.slice(passed, start));
    passed = start + own.length;
    visit(line, own, inClauseAbove(own, linesAbove(text, start)), prose.read(own));
  }
}

/** The lines of `text` above the line starting at `start`, nearest first. */
function* linesAbove(text: string, start: number): Generator<string> {
  for (let end = start - 1; end >= 0; ) {
    const s = end === 0 ? 0 : text.lastIndexOf("\n", end - 1) + 1;
    yield text.slice(s, end);
    end = s - 1;
  }
}

/** inClauseAbove over an array of lines, for line i. */
function inClauseAt(at: (i: number) => string, i: number): boolean {
  function* above(): Generator<string> {
    for (let k = i - 1; k >= 0; k--) yield at(k);
  }
  return inClauseAbove(at(i), above());
}

/** Whether a line is inside an import clause: not an opener itself, and the nearest opener or closer among the lines above it (nearest first) is an opener. */
function inClauseAbove(text: string, above: Iterable<string>): boolean {
  if (OPENS_CLAUSE.test(text)) return false;
  for (const prev of above) {
    if (OPENS_CLAUSE.test(prev)) return true;
    if (CLOSES_CLAUSE.test(prev)) return false;
  }
  return false;
}
