// Chunk coverage of a file's lines, for the per-language tests that every non-blank line is in
// some chunk a search can find it by: the lines no chunk's searched text holds.
import { splitLines } from "../../src/base/text.js";
import { MAX_CHUNK_CHARS, type Chunk, type FileExtraction } from "../../src/syntax/types.js";

/** The lines a chunk's searched text stands for: from its first searched line (a doc comment's, when attached) to its last line. */
function searchedLines(c: Chunk): [number, number] {
  const before = c.content.slice(0, c.searchStart);
  let newlines = 0;
  for (let i = before.indexOf("\n"); i !== -1; i = before.indexOf("\n", i + 1)) newlines++;
  return [c.contentStartLine + newlines, c.endLine];
}

/**
 * The non-blank lines of `text` (as `line: trimmed text`) that no chunk covers. A line is covered
 * when a chunk whose searched lines include it has searched text holding the line's trimmed text
 * (a line over the character cap: holding one of its pieces). A class shell's searched lines are
 * its whole span, so its outline must hold every line of it that no member's chunk holds.
 */
export function uncoveredLines(x: FileExtraction, text: string): string[] {
  const chunks = x.chunks.map((c) => ({ lines: searchedLines(c), searched: c.content.slice(c.searchStart, c.searchEnd) }));
  const out: string[] = [];
  splitLines(text).forEach((raw, i) => {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === "") return;
    const holds = (searched: string) => (trimmed.length > MAX_CHUNK_CHARS ? searched.length > 0 && trimmed.includes(searched) : searched.includes(trimmed));
    if (!chunks.some((c) => c.lines[0] <= line && line <= c.lines[1] && holds(c.searched))) out.push(`${line}: ${trimmed}`);
  });
  return out;
}
