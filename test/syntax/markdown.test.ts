// Tests for the markdown extractor: heading-path naming, depth folding, fences, preamble rules,
// CRLF handling, and oversized sections going through the shared split rule and character cap.
import { describe, it, expect } from "vitest";
import { extractMarkdown } from "../../src/syntax/markdown.js";
import { sha256 } from "../../src/base/hash.js";
import { MAX_CHUNK_CHARS, type ExtractOptions } from "../../src/syntax/types.js";

const OPTIONS: ExtractOptions = { chunkSplitThreshold: 100, contextLines: 3, markdownHeadingDepth: 2, parseTimeoutMs: 10000 };

const md = (...lines: string[]) => lines.join("\n") + "\n";

/** The parts of a chunk most tests care about. */
const brief = (filePath: string, text: string, options: ExtractOptions = OPTIONS) =>
  extractMarkdown(filePath, text, options).chunks.map((c) => ({
    symbolName: c.symbolName,
    startLine: c.startLine,
    endLine: c.endLine,
    content: c.content,
  }));

describe("extractMarkdown", () => {
  it("emits a preamble and one chunk per section, with doc chunk invariants", () => {
    const text = md("Intro line", "", "# Title", "Lead", "", "## Install", "npm i", "", "## Use", "run it");
    const result = extractMarkdown("docs/README.md", text, OPTIONS);
    expect(result.language).toBe("markdown");
    expect(result.symbols).toEqual([]);
    expect(result.imports).toEqual([]);
    expect(result.lineCount).toBe(10);
    expect(result.hasSyntaxErrors).toBe(false);
    expect(result.chunks.map((c) => ({ symbolName: c.symbolName, startLine: c.startLine, endLine: c.endLine, content: c.content }))).toEqual([
      { symbolName: "README.md", startLine: 1, endLine: 2, content: "Intro line\n" },
      { symbolName: "README.md > Title", startLine: 3, endLine: 5, content: "# Title\nLead\n" },
      { symbolName: "README.md > Title > Install", startLine: 6, endLine: 8, content: "## Install\nnpm i\n" },
      { symbolName: "README.md > Title > Use", startLine: 9, endLine: 10, content: "## Use\nrun it" },
    ]);
    for (const c of result.chunks) {
      expect(c.chunkType).toBe("doc");
      expect(c.isExported).toBe(false);
      expect(c.parentSymbol).toBeNull();
      expect(c.identifiers).toEqual([]);
      expect(c.part).toBe(0);
      expect(c.contentStartLine).toBe(c.startLine);
      expect(c.chunkId).toBe(sha256(`docs/README.md:${c.startLine}`));
    }
  });

  it("does not expand sections by context_lines", () => {
    const text = md("## A", "a1", "## B", "b1", "## C", "c1");
    expect(brief("x.md", text, { ...OPTIONS, contextLines: 5 }).map((c) => c.content)).toEqual(["## A\na1", "## B\nb1", "## C\nc1"]);
  });

  it("folds headings deeper than the depth into the enclosing section (depth 2)", () => {
    const text = md("# Top", "## Sec", "text", "### Sub", "sub text", "#### Deeper", "deep", "## Next", "n");
    expect(brief("a.md", text)).toEqual([
      { symbolName: "a.md > Top", startLine: 1, endLine: 1, content: "# Top" },
      {
        symbolName: "a.md > Top > Sec",
        startLine: 2,
        endLine: 7,
        content: "## Sec\ntext\n### Sub\nsub text\n#### Deeper\ndeep",
      },
      { symbolName: "a.md > Top > Next", startLine: 8, endLine: 9, content: "## Next\nn" },
    ]);
  });

  it("cuts at ### headings with depth 3 and pops the path on a shallower heading", () => {
    const text = md("# Top", "## Sec", "### Sub", "x", "#### Deeper", "y", "## Other", "### Sub2", "# Second", "z");
    expect(brief("a.md", text, { ...OPTIONS, markdownHeadingDepth: 3 })).toEqual([
      { symbolName: "a.md > Top", startLine: 1, endLine: 1, content: "# Top" },
      { symbolName: "a.md > Top > Sec", startLine: 2, endLine: 2, content: "## Sec" },
      { symbolName: "a.md > Top > Sec > Sub", startLine: 3, endLine: 6, content: "### Sub\nx\n#### Deeper\ny" },
      { symbolName: "a.md > Top > Other", startLine: 7, endLine: 7, content: "## Other" },
      { symbolName: "a.md > Top > Other > Sub2", startLine: 8, endLine: 8, content: "### Sub2" },
      { symbolName: "a.md > Second", startLine: 9, endLine: 10, content: "# Second\nz" },
    ]);
  });

  it("omits skipped levels from the heading path", () => {
    const text = md("# H1", "### H3", "body", "## H2", "### H3b");
    expect(brief("g/guide.md", text, { ...OPTIONS, markdownHeadingDepth: 3 }).map((c) => [c.symbolName, c.startLine, c.endLine])).toEqual([
      ["guide.md > H1", 1, 1],
      ["guide.md > H1 > H3", 2, 3],
      ["guide.md > H1 > H2", 4, 4],
      ["guide.md > H1 > H2 > H3b", 5, 5],
    ]);
    // A document that starts below level 1 has no phantom ancestors.
    expect(brief("a.md", md("## Only", "x")).map((c) => c.symbolName)).toEqual(["a.md > Only"]);
  });

  it("ignores # lines inside ``` and ~~~ fences, closing only on a long-enough fence of the same char", () => {
    const text = md(
      "## Code", // 1
      "```sh", // 2
      "# not a heading", // 3
      "~~~", // 4  wrong char: does not close
      "## still code", // 5
      "```", // 6  closes
      "## Tilde", // 7
      "~~~~ text", // 8  opens a 4-tilde fence
      "# not a heading", // 9
      "~~~", // 10 too short: does not close
      "```", // 11 wrong char
      "# not a heading", // 12
      "   ~~~~~~", // 13 longer, indented: closes
      "## After", // 14
      "    # indented four: not a heading", // 15
    );
    expect(brief("f.md", text).map((c) => [c.symbolName, c.startLine, c.endLine])).toEqual([
      ["f.md > Code", 1, 6],
      ["f.md > Tilde", 7, 13],
      ["f.md > After", 14, 15],
    ]);
  });

  it("treats a closing fence with trailing text as content, and a backtick opener with a backtick in its info as no fence", () => {
    const text = md("## A", "```", "``` not a closer", "# hidden", "```", "## B", "``` inline `code` ```", "## C");
    expect(brief("f.md", text).map((c) => [c.symbolName, c.startLine, c.endLine])).toEqual([
      ["f.md > A", 1, 5],
      ["f.md > B", 6, 7],
      ["f.md > C", 8, 8],
    ]);
  });

  it("runs an unclosed fence to EOF", () => {
    const text = md("## Start", "```", "## inside", "~~~", "# inside too", "``");
    const chunks = brief("u.md", text);
    expect(chunks).toEqual([{ symbolName: "u.md > Start", startLine: 1, endLine: 6, content: "## Start\n```\n## inside\n~~~\n# inside too\n``" }]);
  });

  it("requires a space, tab or end of line after the #s, and at most 6 #s and 3 leading spaces", () => {
    const text = md("#nospace", "#hashtag text", "####### seven", "    # four spaces", "   #\tTabbed", "body");
    expect(brief("n.md", text)).toEqual([
      { symbolName: "n.md", startLine: 1, endLine: 4, content: "#nospace\n#hashtag text\n####### seven\n    # four spaces" },
      { symbolName: "n.md > Tabbed", startLine: 5, endLine: 6, content: "   #\tTabbed\nbody" },
    ]);
  });

  it("strips the closing # sequence and surrounding whitespace from heading text", () => {
    const text = md("#   Spaced   ", "## Closed ##", "## Closed long #####   ", "## C#", "## Trailing\t#", "## Mid # hash", "##", "## ###");
    expect(brief("s.md", text).map((c) => c.symbolName)).toEqual([
      "s.md > Spaced",
      "s.md > Spaced > Closed",
      "s.md > Spaced > Closed long",
      "s.md > Spaced > C#",
      "s.md > Spaced > Trailing",
      "s.md > Spaced > Mid # hash",
      "s.md > Spaced > ",
      "s.md > Spaced > ",
    ]);
  });

  it("makes a file with no headings one preamble chunk", () => {
    const text = md("Just prose.", "", "More prose.");
    expect(brief("notes/plain.md", text)).toEqual([{ symbolName: "plain.md", startLine: 1, endLine: 3, content: "Just prose.\n\nMore prose." }]);
    expect(extractMarkdown("x.md", "no newline", OPTIONS).chunks.map((c) => [c.startLine, c.endLine, c.content])).toEqual([[1, 1, "no newline"]]);
  });

  it("drops a blank preamble and yields no chunks for empty or all-blank files", () => {
    expect(brief("b.md", md("", "   ", "\t", "## Sec", "x"))).toEqual([{ symbolName: "b.md > Sec", startLine: 4, endLine: 5, content: "## Sec\nx" }]);
    const empty = extractMarkdown("e.md", "", OPTIONS);
    expect(empty.chunks).toEqual([]);
    expect(empty.lineCount).toBe(0);
    const blank = extractMarkdown("e.md", "\n  \n\t\n", OPTIONS);
    expect(blank.chunks).toEqual([]);
    expect(blank.lineCount).toBe(3);
  });

  it("strips \\r from CRLF lines for detection and content", () => {
    const text = "Intro\r\n# Title #\r\nbody\r\n```\r\n# code\r\n```\r\n## Sub\r\nend\r\n";
    const result = extractMarkdown("c.md", text, OPTIONS);
    expect(result.lineCount).toBe(8);
    expect(result.chunks.map((c) => ({ symbolName: c.symbolName, startLine: c.startLine, endLine: c.endLine, content: c.content }))).toEqual([
      { symbolName: "c.md", startLine: 1, endLine: 1, content: "Intro" },
      { symbolName: "c.md > Title", startLine: 2, endLine: 6, content: "# Title #\nbody\n```\n# code\n```" },
      { symbolName: "c.md > Title > Sub", startLine: 7, endLine: 8, content: "## Sub\nend" },
    ]);
  });

  it("splits a 250-line section into overlapping windows with distinct ids", () => {
    const body = Array.from({ length: 249 }, (_, i) => `line ${i + 4}`);
    const lines = ["intro", "", "## Big", ...body, "## Small", "s"];
    const result = extractMarkdown("big.md", md(...lines), OPTIONS);
    const big = result.chunks.filter((c) => c.symbolName === "big.md > Big");
    expect(big.map((c) => [c.startLine, c.endLine, c.part, c.contentStartLine])).toEqual([
      [3, 102, 0, 3],
      [93, 192, 1, 93],
      [183, 252, 2, 183],
    ]);
    for (const c of big) expect(c.content).toBe(lines.slice(c.startLine - 1, c.endLine).join("\n"));
    expect(big[0]?.content.startsWith("## Big\nline 4\n")).toBe(true);
    expect(big[0]?.chunkId).toBe(sha256("big.md:3"));
    expect(big[2]?.content.endsWith("line 252")).toBe(true);
    expect(result.chunks.map((c) => [c.symbolName, c.startLine, c.endLine, c.part])).toEqual([
      ["big.md", 1, 2, 0],
      ["big.md > Big", 3, 102, 0],
      ["big.md > Big", 93, 192, 1],
      ["big.md > Big", 183, 252, 2],
      ["big.md > Small", 253, 254, 0],
    ]);
    expect(new Set(result.chunks.map((c) => c.chunkId)).size).toBe(result.chunks.length);
  });

  it("cuts a single 100,000-character line by the character cap without losing text", () => {
    const line = Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
    const result = extractMarkdown("min.md", line, OPTIONS);
    expect(result.lineCount).toBe(1);
    const chunks = result.chunks;
    expect(chunks.map((c) => c.content.length)).toEqual([MAX_CHUNK_CHARS, MAX_CHUNK_CHARS, MAX_CHUNK_CHARS, 100_000 - 3 * MAX_CHUNK_CHARS]);
    expect(chunks.map((c) => [c.symbolName, c.startLine, c.endLine, c.part])).toEqual([
      ["min.md", 1, 1, 0],
      ["min.md", 1, 1, 1],
      ["min.md", 1, 1, 2],
      ["min.md", 1, 1, 3],
    ]);
    expect(chunks.map((c) => c.content).join("")).toBe(line);
    expect(new Set(chunks.map((c) => c.chunkId)).size).toBe(4);
    expect(chunks[1]?.chunkId).toBe(sha256("min.md:1:1"));
  });

  it("keeps the heading as its own piece when a section's next line is over the cap", () => {
    const long = "y".repeat(40_000);
    const result = extractMarkdown("h.md", md("## Data", long, "after"), OPTIONS);
    expect(result.chunks.map((c) => [c.startLine, c.endLine, c.part, c.content.length])).toEqual([
      [1, 1, 0, "## Data".length],
      [2, 2, 1, MAX_CHUNK_CHARS],
      [2, 2, 2, 40_000 - MAX_CHUNK_CHARS],
      [3, 3, 3, "after".length],
    ]);
    expect(result.chunks.map((c) => c.content).join("\n")).toBe(["## Data", long.slice(0, MAX_CHUNK_CHARS)].join("\n") + "\n" + long.slice(MAX_CHUNK_CHARS) + "\nafter");
  });

  it("never throws on odd input", () => {
    const odd = ["\n", "\r", "\r\n\r\n", "#", "######", "```", "~~~\n# x", "\u0000\uFFFD#\u2028# a", "# a\n".repeat(1000), "\n".repeat(500)];
    for (const text of odd) {
      for (const depth of [0, 1, 6, 7]) {
        expect(() => extractMarkdown("o.md", text, { ...OPTIONS, markdownHeadingDepth: depth })).not.toThrow();
      }
    }
    expect(brief("o.md", "#")).toEqual([{ symbolName: "o.md > ", startLine: 1, endLine: 1, content: "#" }]);
    expect(brief("o.md", md("# a", "b"), { ...OPTIONS, markdownHeadingDepth: 0 })).toEqual([{ symbolName: "o.md", startLine: 1, endLine: 2, content: "# a\nb" }]);
  });
});
