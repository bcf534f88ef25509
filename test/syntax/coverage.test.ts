// Every non-blank line of a file is in some chunk that search reads it by, for every language:
// license headers, comments between declarations, top-level statements, a class's fields,
// constants, comments and static blocks (its shell's outline holds them verbatim), and a class
// body's long non-member as a block of its own with the class as its parent.
import { describe, expect, it } from "vitest";
import { sha256 } from "../../src/base/hash.js";
import { uncoveredLines } from "../helpers/coverage.js";
import { checkExtraction, extractOk, fixturePath, lookup, readFixture } from "../helpers/extraction.js";
import type { Chunk, FileExtraction } from "../../src/syntax/types.js";

/** Extracts a fixture against its golden and asserts every non-blank line is covered. */
function covered(fixture: string): FileExtraction {
  const x = checkExtraction(fixture);
  expect(uncoveredLines(x, readFixture(fixture))).toEqual([]);
  return x;
}

const span = (c: Chunk | undefined) => (c === undefined ? null : [c.chunkType, c.symbolName, c.parentSymbol, c.startLine, c.endLine]);
const at = (x: FileExtraction, line: number) => x.chunks.find((c) => c.startLine === line);

describe("chunk coverage of every non-blank line", () => {
  it("TypeScript: the license header, a detached comment, a class's fields, static block and trailing comment", () => {
    const x = covered("coverage.ts");
    expect(span(at(x, 1))).toEqual(["block", null, null, 1, 12]);
    expect(span(at(x, 16))).toEqual(["block", null, null, 16, 16]);
    const shell = lookup(x).chunk("Router");
    expect(shell.content.split("\n")).toEqual([
      "@sealed",
      "export class Router extends EventEmitter {",
      "  // Routes by method, then by path.",
      "  private readonly routes = new Map<string, Map<string, Handler>>();",
      '  static readonly METHODS = ["GET", "POST", "PUT", "DELETE"] as const;',
      "  static readonly STATUS_CODE: Readonly<Record<string, number>> = …;",
      "  #hits = 0;",
      "  static instances: number;",
      "  static {",
      "    Router.instances = 0;",
      "  }",
      "  /** Registers a handler for a method and a path. */",
      "  add(method: string, path: string, handler: Handler): this;",
      "  // Dispatches one request to its handler.",
      "  async dispatch(req: IncomingMessage): Promise<string>;",
      "  /* end of the public API */",
      "}",
    ]);
    // The 14-line initializer is a block of the class's; the shell's bag keeps its first line's names only.
    const table = at(x, 29)!;
    expect(span(table)).toEqual(["block", null, "Router", 29, 42]);
    expect(table.chunkId).toBe(sha256(`${fixturePath("coverage.ts")}:29`));
    expect(table.identifiers).toEqual(expect.arrayContaining(["STATUS_CODE", "NOT_FOUND", "SERVICE_UNAVAILABLE"]));
    expect(shell.identifiers).toEqual(expect.arrayContaining(["STATUS_CODE", "Readonly", "instances", "routes"]));
    expect(shell.identifiers).not.toContain("NOT_FOUND");
    expect(span(at(x, 70))).toEqual(["block", null, null, 70, 73]);
    expect(x.chunks.map((c) => [c.chunkType, c.startLine])).toEqual([
      ["block", 1],
      ["type", 14],
      ["block", 16],
      ["block", 18],
      ["function", 20],
      ["class_shell", 24],
      ["block", 29],
      ["method", 51],
      ["method", 59],
      ["block", 69],
      ["block", 70],
      ["export", 75],
    ]);
  });

  it("JavaScript: a banner comment, class fields, a long static array and a static block", () => {
    const x = covered("coverage.js");
    const shell = lookup(x).chunk("Counter");
    expect(shell.content.split("\n")).toEqual([
      "class Counter extends EventEmitter {",
      "  // The current value; private so only `step` changes it.",
      "  #value = 0;",
      "  label = 'counter';",
      "  static created = 0;",
      "  static aliases = …;",
      "  static {",
      "    Counter.created = 0;",
      "  }",
      "  constructor(label);",
      "  /** Adds `by` to the value, within the limits. */",
      "  step(by = 1);",
      "  // A computed getter.",
      "  get value();",
      "}",
    ]);
    expect(span(at(x, 17))).toEqual(["block", null, "Counter", 17, 30]);
    expect(span(at(x, 55))).toEqual(["block", null, null, 55, 56]);
  });

  it("Python: a comment header, banner comments, class attributes, a nested class and a long docstring", () => {
    const x = covered("coverage.py");
    // Comments above the first statement, and a banner between declarations, are blocks of their own.
    expect(span(at(x, 1))).toEqual(["block", null, null, 1, 2]);
    expect(span(at(x, 16))).toEqual(["block", null, null, 16, 18]);
    const shell = lookup(x).chunk("Session");
    const outline = shell.content.split("\n");
    expect(outline.slice(0, 8)).toEqual([
      "@dataclass",
      "class Session:",
      '    """A connection pool and its settings."""',
      "    #: The headers every request carries.",
      '    default_headers: t.ClassVar[dict[str, str]] = {"User-Agent": "example/1.0"}',
      '    base_url: str = ""',
      "    timeout: float = DEFAULT_TIMEOUT",
      '    __slots__ = ("base_url", "timeout")',
    ]);
    for (const line of ["    RETRY_STATUS = frozenset(", "            429,", "    class Meta:", '        ordering = ["base_url"]', "    # Requests.", "    def closed(self) -> bool: ..."])
      expect(outline).toContain(line);
    // The 13-line docstring is a block of the class's; the outline keeps its summary.
    expect(span(at(x, 27))).toEqual(["block", null, "Session", 27, 39]);
    expect(at(x, 27)!.content).toContain(":param timeout: seconds to wait for the server.");
    expect(span(at(x, 86))).toEqual(["block", null, null, 86, 89]);
  });

  it("Go: a license header, build constraint, banner comments and a grouped type declaration's parentheses", () => {
    const x = covered("coverage.go");
    expect(span(at(x, 1))).toEqual(["block", null, null, 1, 7]);
    expect(span(at(x, 23))).toEqual(["block", null, null, 23, 27]);
    expect(span(at(x, 41))).toEqual(["block", null, null, 41, 41]);
    expect(span(at(x, 51))).toEqual(["block", null, null, 51, 51]);
    // A struct's field comments are in its chunk.
    expect(lookup(x).chunk("JSON").content).toContain("// Indent, when set, pretty-prints.");
  });

  it("Rust: a license header, inner attributes, an impl of a built-in type, and an impl's consts, comments and long table", () => {
    const x = covered("coverage.rs");
    expect(span(at(x, 1))).toEqual(["block", null, null, 1, 6]);
    expect(span(at(x, 16))).toEqual(["block", null, null, 16, 24]);
    const impl = x.chunks.find((c) => c.chunkType === "class_shell" && c.startLine === 33)!;
    expect(impl.content.split("\n")).toEqual([
      "impl<B: Bound> Interval<B> {",
      "    /// The widest interval.",
      '    pub const FULL_NAME: &\'static str = "full";',
      "    type Item = B;",
      "    // Widths by name; a table, not code.",
      "    const NAMED: &'static [(&'static str, u32)] = &[ …",
      "    pub fn new(a: B, b: B) -> Self;",
      "    #[inline]",
      "    pub fn lower(&self) -> B;",
      "    // More accessors would go here.",
      "}",
    ]);
    expect(span(at(x, 39))).toEqual(["block", null, "Interval", 39, 51]);
    expect(span(at(x, 66))).toEqual(["block", null, null, 66, 70]);
  });

  it("Markdown: the preamble and every section", () => {
    const x = covered("coverage.md");
    expect(x.chunks.map((c) => [c.symbolName, c.startLine, c.endLine])).toEqual([
      ["coverage.md", 1, 4],
      ["coverage.md > Intervals", 5, 8],
      ["coverage.md > Intervals > Bounds", 9, 18],
    ]);
  });
});

describe("lines no declaration covers", () => {
  it("become blocks between the chunks, split by the split rule, with ids of their own start lines", () => {
    const comment = Array.from({ length: 30 }, (_, i) => `// note ${i + 1}`).join("\n");
    const text = `package p\n\nfunc a() {}\n\n${comment}\n\nfunc b() {}\n`;
    const x = extractOk("pkg/p.go", text, { chunkSplitThreshold: 20 });
    expect(uncoveredLines(x, text)).toEqual([]);
    // The 30-line run splits into windows of 20 lines overlapping by 10; `b` keeps its chunk and id.
    expect(x.chunks.map((c) => [c.chunkType, c.symbolName, c.startLine, c.endLine, c.part])).toEqual([
      ["block", null, 1, 1, 0],
      ["function", "a", 3, 3, 0],
      ["block", null, 5, 24, 0],
      ["block", null, 15, 34, 1],
      ["function", "b", 36, 36, 0],
    ]);
    expect(x.chunks.map((c) => c.chunkId)).toEqual([1, 3, 5, 15, 36].map((line) => sha256(`pkg/p.go:${line}`)));
  });
});
