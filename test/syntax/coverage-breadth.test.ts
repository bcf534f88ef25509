// Every non-blank line of a breadth-language file is in a chunk search reads it by: each caret
// fixture project's files (Java, C, C++, C#, Ruby, PHP — fields, constants, access sections,
// `#if` lines, `class << self`, license headers and comments between declarations), and a class
// body's long static initializer as a block of its own under the class.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { extractFile } from "../../src/syntax/extract.js";
import { uncoveredLines } from "../helpers/coverage.js";

const CARETS = join(import.meta.dirname, "../fixtures/carets");
const OPTIONS = { parseTimeoutMs: 5000, chunkSplitThreshold: 120, contextLines: 3, maxFileBytes: 1 << 20 };

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const abs = join(dir, name);
    return statSync(abs).isDirectory() ? filesUnder(abs) : [abs];
  });
}

const extract = (path: string, text: string) => {
  const r = extractFile(path, text, OPTIONS);
  if (!r.ok) throw new Error(r.error);
  return r.extraction;
};

describe("chunk coverage of every non-blank line, breadth languages", () => {
  for (const language of ["java", "c", "cpp", "csharp", "ruby", "php"]) {
    it(`${language}: every file of its caret fixture project`, () => {
      const files = filesUnder(join(CARETS, language));
      expect(files.length).toBeGreaterThan(1);
      const uncovered = files.flatMap((abs) => {
        const text = readFileSync(abs, "utf8");
        return uncoveredLines(extract(relative(CARETS, abs), text), text).map((l) => `${relative(CARETS, abs)}:${l}`);
      });
      expect(uncovered).toEqual([]);
    });
  }

  it("java: fields and constants in the outline, a long static initializer a block under its class", () => {
    const body = Array.from({ length: 14 }, (_, i) => `    NAMES.put("k${i}", ${i});`);
    const text = [
      "package a;",
      "",
      "/** Names. */",
      "public class Names {",
      "  static final java.util.Map<String, Integer> NAMES = new java.util.HashMap<>();",
      "  static {",
      ...body,
      "  }",
      "",
      "  public int size() { return NAMES.size(); }",
      "}",
      "",
    ].join("\n");
    const x = extract("src/a/Names.java", text);
    expect(uncoveredLines(x, text)).toEqual([]);
    const shell = x.chunks.find((c) => c.symbolName === "Names")!;
    expect(shell.content.split("\n")).toEqual([
      "/** Names. */",
      "public class Names {",
      "  static final java.util.Map<String, Integer> NAMES = new java.util.HashMap<>();",
      "  static { …",
      "  public int size()",
      "}",
    ]);
    const block = x.chunks.find((c) => c.chunkType === "block" && c.parentSymbol === "Names")!;
    expect([block.startLine, block.endLine]).toEqual([6, 21]);
  });
});
