// Markdown extraction: a line scan (no parser) that cuts a `.md` file into `doc` chunks, one per
// ATX heading of level <= markdown_heading_depth plus an optional preamble, each named by its
// heading path. Docs have no graph presence: no symbols, imports or identifiers.
import { lineStarts, splitLines } from "../base/text.js";
import { materializeChunks, type ChunkDraft } from "./chunking.js";
import type { ExtractOptions, FileExtraction } from "./types.js";

const PATH_SEPARATOR = " > ";

/** An ATX heading: up to 3 spaces, 1-6 `#`, then a space/tab or the end of the line. */
const ATX_HEADING = /^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$/;
/** A code fence opener: up to 3 spaces and a run of >= 3 backticks or tildes, then an info string. */
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
/** A code fence closer: up to 3 spaces, a run of >= 3 backticks or tildes, then only spaces/tabs. */
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

interface Heading {
  readonly line: number;
  readonly level: number;
  readonly text: string;
}

interface Fence {
  readonly char: string;
  readonly length: number;
}

/**
 * The heading's text: content after the `#`s with surrounding spaces/tabs and the optional closing
 * `#` sequence removed (a closing sequence must be preceded by a space/tab or be the whole content,
 * so `# C#` keeps its `#`). An empty heading (`##`) has empty text and still bounds a section.
 */
function headingText(rest: string): string {
  const trimmed = rest.replace(/^[ \t]+|[ \t]+$/g, "");
  return trimmed.replace(/(^|[ \t]+)#+$/, "").replace(/[ \t]+$/, "");
}

/**
 * Boundary headings (level <= depth) in file order. Lines inside fenced code blocks are skipped:
 * a fence closes only on a line of the opener's character, at least as long, with nothing but
 * whitespace after it (CommonMark); an unclosed fence runs to EOF. A backtick opener whose info
 * string contains a backtick is not a fence (CommonMark). Setext headings, HTML blocks and
 * containers (block quotes, list items) are not interpreted.
 */
function findHeadings(lines: readonly string[], depth: number): Heading[] {
  const headings: Heading[] = [];
  let fence: Fence | null = null;
  lines.forEach((line, i) => {
    if (fence !== null) {
      const close = FENCE_CLOSE.exec(line);
      const run = close?.[1];
      if (run !== undefined && run[0] === fence.char && run.length >= fence.length) fence = null;
      return;
    }
    const open = FENCE_OPEN.exec(line);
    const openRun = open?.[1];
    if (openRun !== undefined && !(openRun[0] === "`" && (open?.[2] ?? "").includes("`"))) {
      fence = { char: openRun[0] ?? "`", length: openRun.length };
      return;
    }
    const heading = ATX_HEADING.exec(line);
    const hashes = heading?.[1];
    if (hashes === undefined || hashes.length > depth) return;
    headings.push({ line: i + 1, level: hashes.length, text: headingText(heading?.[2] ?? "") });
  });
  return headings;
}

/**
 * Extracts `doc` chunks from a markdown file. Never throws; pure.
 *
 * Lines are split on "\n" and a trailing "\r" is stripped from every line, both for heading
 * detection and for stored content, so a CRLF file yields LF-joined chunk content.
 *
 * Sections tile the file: a section runs from its heading line through the line before the next
 * boundary heading (or EOF), so trailing blank lines stay in the section they follow. The
 * preamble (lines before the first boundary heading) is emitted only if it has a non-blank line.
 */
export function extractMarkdown(filePath: string, text: string, options: ExtractOptions): FileExtraction {
  const lines = splitLines(text);
  const lineCount = lines.length;

  const fileName = filePath.slice(filePath.lastIndexOf("/") + 1);
  const headings = findHeadings(lines, options.markdownHeadingDepth);
  const drafts: ChunkDraft[] = [];
  const doc = { chunkType: "doc", parentSymbol: null, isExported: false, noContext: true } as const;

  const preambleEnd = (headings[0]?.line ?? lines.length + 1) - 1;
  if (lines.slice(0, preambleEnd).some((l) => /\S/.test(l))) {
    drafts.push({ ...doc, startLine: 1, endLine: preambleEnd, symbolName: fileName });
  }

  // Ancestor boundary headings of the current one; levels strictly increase, so skipped levels
  // simply never appear in the path.
  const ancestors: Heading[] = [];
  headings.forEach((h, i) => {
    while (ancestors.length > 0 && (ancestors[ancestors.length - 1]?.level ?? 0) >= h.level) ancestors.pop();
    const path = [fileName, ...ancestors.map((a) => a.text), h.text].join(PATH_SEPARATOR);
    const endLine = (headings[i + 1]?.line ?? lines.length + 1) - 1;
    drafts.push({ ...doc, startLine: h.line, endLine, headerEndLine: h.line, symbolName: path });
    ancestors.push(h);
  });

  const chunks = materializeChunks(filePath, { text, lines, lineStarts: lineStarts(text) }, drafts, {
    chunkSplitThreshold: options.chunkSplitThreshold,
    contextLines: options.contextLines,
    identifiers: () => [],
  });

  return { language: "markdown", chunks, symbols: [], imports: [], calls: [], heritage: [], lineCount, hasSyntaxErrors: false };
}
