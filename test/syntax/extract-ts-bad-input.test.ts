// Hostile input for the TS/JS extractor: a ~5 MB single-line minified bundle (character cap, one copy
// of the line), 5,000-deep nesting (no stack overflow), and a parse timeout (a failure as data).
// Kept apart from the golden tests: a timed-out parse leaves the shared per-grammar parser mid-parse.
import { describe, expect, it } from "vitest";
import { extractFile } from "../../src/syntax/extract.js";
import { MAX_CHUNK_CHARS, type ExtractOptions, type FileExtraction } from "../../src/syntax/types.js";
import { checkInvariants } from "../helpers/extraction.js";

const OPTIONS: ExtractOptions = { chunkSplitThreshold: 100, contextLines: 3, markdownHeadingDepth: 2, parseTimeoutMs: 30_000 };

function extract(filePath: string, text: string, options: Partial<ExtractOptions> = {}): FileExtraction {
  const result = extractFile(filePath, text, { ...OPTIONS, ...options });
  if (!result.ok) throw new Error(result.error);
  checkInvariants(filePath, result.extraction);
  return result.extraction;
}

/** 60,000 small functions on one line, padded with a string literal to ~5 MB. */
function minifiedBundle(): string {
  const pad = "x".repeat(56);
  const parts: string[] = [];
  for (let i = 0; i < 60_000; i++) parts.push(`function f${i}(a){return a+"${pad}"};`);
  return parts.join("");
}

describe("minified input", () => {
  it("extracts a ~5 MB one-line bundle as one block cut under the cap, the pieces reproducing the line", () => {
    const line = minifiedBundle();
    expect(line.length).toBeGreaterThan(5_000_000);
    const x = extract("dist/bundle.js", line + "\n");
    expect(x.lineCount).toBe(1);
    // Minified-file mode (docs/decisions.md): no declarations, one block chunk cut into pieces.
    expect(x.symbols).toEqual([]);
    expect(x.chunks.every((c) => c.chunkType === "block" && c.symbolName === null && c.startLine === 1 && c.endLine === 1)).toBe(true);
    for (const c of x.chunks) expect(c.content.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
    expect(x.chunks).toHaveLength(Math.ceil(line.length / MAX_CHUNK_CHARS));
    expect(x.chunks.map((c) => c.content).join("")).toBe(line);
    expect(x.chunks.map((c) => c.part)).toEqual(x.chunks.map((_, i) => i));
    // Each piece's identifier bag covers its own slice of the line only.
    expect(x.chunks[0]!.identifiers).toContain("f0");
    expect(x.chunks[0]!.identifiers).not.toContain("f59999");
    expect(x.chunks.at(-1)!.identifiers).toContain("f59999");
  }, 20_000);

  it("keeps imports of a minified file", () => {
    const line = `import{a as b}from"./dep";${"var v=1;".repeat(5000)}export*from"./star";`;
    const x = extract("dist/min.js", line);
    expect(x.imports).toEqual([
      { module: "./dep", names: ["a"], locals: ["b"], kind: "import", line: 1 },
      { module: "./star", names: ["*"], locals: [], kind: "export_star", line: 1 },
    ]);
    expect(x.chunks.map((c) => c.content).join("")).toBe(line);
  });

  it("a single class on an over-cap line: the outline is cut into pieces, the line stored once", () => {
    const cls = `export class C{${Array.from({ length: 5000 }, (_, i) => `method${i}(a){return a}`).join("")}}`;
    const x = extract("dist/cls.js", cls);
    const shell = x.chunks.filter((c) => c.chunkType === "class_shell");
    expect(shell.length).toBeGreaterThan(1);
    expect(shell.map((c) => c.part)).toEqual(shell.map((_, i) => i));
    for (const c of x.chunks) expect(c.content.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
    expect(
      shell
        .map((c) => c.content)
        .join("\n")
        .split("\n"),
    ).toHaveLength(5002); // header + 5000 members + "}"
    // The class's line is stored once, by the first method on it.
    const methods = x.chunks.filter((c) => c.chunkType === "method");
    expect(methods.every((c) => c.symbolName === "C.method0")).toBe(true);
    expect(methods.map((c) => c.content).join("")).toBe(cls);
  });

  it("does not copy an over-cap line into a neighbour's context lines", () => {
    const long = `var blob = "${"y".repeat(MAX_CHUNK_CHARS + 10)}";`;
    const x = extract("src/mixed.js", `function before() {}\n${long}\nfunction after() {}\n`);
    const before = x.chunks.find((c) => c.symbolName === "before")!;
    const after = x.chunks.find((c) => c.symbolName === "after")!;
    expect(before.content).toBe("function before() {}");
    expect(after.content).toBe("function after() {}");
    // The long line's own chunk is its pieces alone: a piece holding only context lines (cut off
    // by the long line) would be labelled with lines it does not contain.
    expect(x.chunks.filter((c) => c.symbolName === "blob").map((c) => c.content)).toEqual(
      Array.from({ length: Math.ceil(long.length / MAX_CHUNK_CHARS) }, (_, i) => long.slice(i * MAX_CHUNK_CHARS, (i + 1) * MAX_CHUNK_CHARS)),
    );
  });

  it("gives an export alias of a long-line declaration its own chunk", () => {
    const x = extract("src/alias.ts", `const DATA = "${"x".repeat(MAX_CHUNK_CHARS + 10)}";\nexport { DATA as D };\n`);
    const pieces = (name: string) => x.chunks.filter((c) => c.symbolName === name).map((c) => c.content.length);
    expect(pieces("D")).toEqual(pieces("DATA"));
    expect(pieces("D")).toEqual([MAX_CHUNK_CHARS, 26]);
  });
});

describe("deep nesting", () => {
  const depth = 5000;
  const cases: Array<[string, string, string, [string, string | null]]> = [
    ["arrays", "deep.js", `const a = ${"[".repeat(depth)}${"]".repeat(depth)};\n`, ["block", "a"]],
    ["parentheses", "deep.js", `const p = ${"(".repeat(depth)}1${")".repeat(depth)};\n`, ["block", "p"]],
    ["arrow functions", "deep.ts", `const f = ${"() => ".repeat(depth)}1;\n`, ["function", "f"]],
    ["blocks", "deep.js", `${"{".repeat(depth)}${"}".repeat(depth)}\n`, ["block", null]],
    ["functions", "deep.js", `${"function g(){".repeat(depth)}${"}".repeat(depth)}\n`, ["function", "g"]],
    ["multi-line blocks", "deep.ts", `${"if (x) {\n".repeat(depth)}${"}\n".repeat(depth)}`, ["block", null]],
    ["python parentheses", "deep.py", `x = ${"(".repeat(depth)}1${")".repeat(depth)}\n`, ["block", "x"]],
    ["go calls", "deep.go", `package p\n\nfunc f() { ${"g(".repeat(depth)}${")".repeat(depth)} }\n`, ["block", null]],
    ["rust macro token trees", "deep.rs", `fn f() { m!(${"(".repeat(depth)}${")".repeat(depth)}); }\n`, ["function", "f"]],
    ["rust inline modules", "deep.rs", `${"mod m { ".repeat(depth)}${"} ".repeat(depth)}\n`, ["block", "m"]],
  ];
  it.each(cases)("%s: extracts without overflowing the stack", (_name, file, text, first) => {
    const result = extractFile(`src/${file}`, text, OPTIONS);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const c = result.extraction.chunks[0]!;
    expect([c.chunkType, c.symbolName]).toEqual(first);
    checkInvariants(`src/${file}`, result.extraction);
  });

  it("splits a 10,000-line nested block by the split rule", () => {
    const text = `${"if (x) {\n".repeat(depth)}${"}\n".repeat(depth)}`;
    const x = extract("src/deep.ts", text);
    // 10,000 lines in 100-line windows that overlap by 10: a window starts every 90 lines.
    expect(x.chunks.map((c) => [c.startLine, c.endLine]).slice(0, 3)).toEqual([
      [1, 100],
      [91, 190],
      [181, 280],
    ]);
    expect(x.chunks.length).toBe(111);
    expect(x.chunks.at(-1)!.endLine).toBe(10_000);
  });
});

describe("parse timeout", () => {
  it("returns { ok: false } with an error naming the timeout", () => {
    const big = Array.from({ length: 60_000 }, (_, i) => `function f${i}(a) { return a + ${i}; }`).join("\n");
    const result = extractFile("src/big.ts", big, { ...OPTIONS, parseTimeoutMs: 1 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatch(/within 1 ms/);
    expect(result.error).toMatch(/pars/);
  });

  // A cancelled tree-sitter parse would be resumed by the next parse() on the same per-grammar
  // parser (garbage names, lines past EOF) unless parseSource resets it.
  it("the next file parsed with the same grammar is unaffected by a timed-out parse", () => {
    const big = Array.from({ length: 60_000 }, (_, i) => `function f${i}(a) { return a + ${i}; }`).join("\n");
    expect(extractFile("src/big.ts", big, { ...OPTIONS, parseTimeoutMs: 1 }).ok).toBe(false);
    const x = extract("src/small.ts", "function hello() {\n  return 1;\n}\nconst z = 2;\n");
    expect(x.chunks.map((c) => [c.chunkType, c.symbolName, c.startLine, c.endLine])).toEqual([
      ["function", "hello", 1, 3],
      ["block", "z", 4, 4],
    ]);
  });
});
