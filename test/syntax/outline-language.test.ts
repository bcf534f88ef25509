// Adding a breadth language is a spec entry plus a query file: this test adds one (Arduino
// sketches, read with the C++ grammar) from fixtures alone — test/fixtures/outline-language holds
// its query and a sketch — and runs it through the same extractor every breadth language uses.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { OutlineSpec } from "../../src/lang/outline.js";
import { extractOutline } from "../../src/syntax/outline.js";

const FIXTURES = join(import.meta.dirname, "../fixtures/outline-language");
const SKETCH: OutlineSpec = {
  query: { files: ["test/fixtures/outline-language/sketch.scm"], text: () => readFileSync(join(FIXTURES, "sketch.scm"), "utf8") },
  tokens: ["identifier", "type_identifier", "field_identifier"],
  comments: ["comment"],
  selfReceivers: [],
  implicitMembers: false,
  exported: () => true,
};

describe("a breadth language added from a spec entry and a query file", () => {
  const text = readFileSync(join(FIXTURES, "blink.ino"), "utf8");
  const result = extractOutline("blink.ino", text, "cpp", "arduino", SKETCH, { parseTimeoutMs: 5000, chunkSplitThreshold: 120, contextLines: 0, maxFileBytes: 1 << 20 });
  if (!result.ok) throw new Error(result.error);
  const x = result.extraction;

  it("declares its functions, class and members with their lines, docs and parameters", () => {
    expect(x.language).toBe("arduino");
    expect(x.symbols.map((s) => `${s.line}-${s.endLine} ${s.kind} ${s.name}`)).toEqual([
      "4-9 class Blinker",
      "8-8 method Blinker.begin",
      "11-13 function setup",
      "16-18 function loop",
      "20-22 function toggle",
    ]);
    const toggle = x.symbols.find((s) => s.name === "toggle")!;
    expect(toggle.signature).toBe("void toggle(int pin, long wait)");
    expect(toggle.params).toEqual([
      { name: "pin", type: "int", optional: false },
      { name: "wait", type: "long", optional: false },
    ]);
    expect(toggle.returnType).toBe("void");
    expect(x.symbols.find((s) => s.name === "loop")!.doc).toBe("Runs forever.");
    expect(x.symbols.find((s) => s.name === "Blinker")!.doc).toBe("Blinks the LED.");
  });

  it("reads its calls and its include as the query captures them", () => {
    expect(x.calls.map((c) => `${c.line} ${c.caller} ${c.callee} ${c.receiver.kind}`)).toEqual(["12 setup pinMode bare", "17 loop toggle bare", "21 toggle digitalWrite bare"]);
    expect(x.imports).toEqual([{ module: "pins.h", names: ["*"], locals: [], kind: "export_star", line: 1 }]);
  });

  it("puts every non-blank line in a chunk: the class outline holds its fields and sections", () => {
    const shell = x.chunks.find((c) => c.symbolName === "Blinker")!;
    expect(shell.content).toBe("// Blinks the LED.\nclass Blinker {\n  int pin;\n  int rate;\n public:\n  void begin(int p)\n};");
    const lines = text.split("\n");
    const uncovered = lines.flatMap((line, i) =>
      line.trim() === "" || x.chunks.some((c) => c.contentStartLine <= i + 1 && i + 1 <= c.endLine && c.content.includes(line.trim())) ? [] : [`${i + 1}: ${line}`],
    );
    expect(uncovered).toEqual([]);
  });
});
