// The editable-text model and anchor planning of the hashpilot commands, as values: byte-exact
// round trips (LF, CRLF, lone CR, mixed endings, BOM, no final newline), the 12-character hashes over
// LF-joined lines, replacements that keep every untouched byte, and replace-hash's plans —
// exact anchors, relocation, ambiguity, staleness, whole-file anchors and range validation.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MastError } from "../../src/base/errors.js";
import { distinctive, planReplace, previewDiff } from "../../src/edit/anchor.js";
import { decodeForEdit, fileHash, hash12, parseText, rangeHash, renderText, replaceLines } from "../../src/edit/text.js";

const sha12 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 12);

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof MastError) return err.code;
    throw err;
  }
  return "no error";
}

describe("editable text", () => {
  it.each([
    ["LF", "a\nb\n"],
    ["CRLF", "a\r\nb\r\n"],
    ["CR", "a\rb\r"],
    ["mixed", "a\r\nb\nc\rd"],
    ["BOM and CRLF", "\uFEFFa\r\nb"],
    ["no final newline", "a\nb"],
    ["empty", ""],
    ["only a newline", "\n"],
    ["blank lines at the end", "a\n\n\n"],
  ])("renders a %s file back byte for byte", (_, raw) => {
    expect(renderText(parseText(raw))).toBe(raw);
  });

  it("ends lines at LF and CRLF only: a lone CR is text in its line, as tree-sitter's rows count it", () => {
    expect([parseText("a\rb\r").lines, parseText("a\rb\r").endings]).toEqual([["a\rb\r"], [""]]);
    const mixed = parseText("a\r\nb\nc\rd\n\r");
    expect([mixed.lines, mixed.endings]).toEqual([
      ["a", "b", "c\rd", "\r"],
      ["\r\n", "\n", "\n", ""],
    ]);
    expect([parseText("a\r\nb\r\nc\n").eol, parseText("a\r\nb\nc\n").eol, parseText("a\rb\rc").eol]).toEqual(["\r\n", "\n", "\n"]);
  });

  it("hashes lines joined by LF, whatever the file's endings and BOM", () => {
    const crlf = parseText("\uFEFFone\r\ntwo\r\nthree\r\n");
    const lf = parseText("one\ntwo\nthree\n");
    expect(crlf.lines).toEqual(["one", "two", "three"]);
    expect(fileHash(crlf)).toBe(sha12("one\ntwo\nthree"));
    expect(fileHash(lf)).toBe(fileHash(crlf));
    expect(rangeHash(crlf, 2, 3)).toBe(sha12("two\nthree"));
    expect(hash12("two")).toBe(sha12("two"));
    expect(hash12("two")).toHaveLength(12);
  });

  it("replaces lines keeping untouched endings, the BOM and the missing final newline", () => {
    const t = parseText("\uFEFFa\r\nb\nc\r\nd");
    expect(renderText(replaceLines(t, 2, 2, "B1\nB2"))).toBe("\uFEFFa\r\nB1\nB2\r\nc\r\nd");
    expect(renderText(replaceLines(t, 4, 4, "D\n"))).toBe("\uFEFFa\r\nb\nc\r\nD");
    expect(renderText(replaceLines(t, 1, 4, ""))).toBe("\uFEFF");
    expect(renderText(replaceLines(parseText("a\nb\n"), 2, 2, ""))).toBe("a\n");
    expect(renderText(replaceLines(parseText("a\nb\n"), 1, 1, "x\r\ny"))).toBe("x\ny\nb\n");
  });

  it("refuses binary and non-UTF-8 bytes (READ_FAILED): writing them back would change bytes nobody saw", () => {
    expect(codeOf(() => decodeForEdit("a.bin", Buffer.from([0x61, 0x00, 0x62])))).toBe("READ_FAILED");
    expect(codeOf(() => decodeForEdit("a.txt", Buffer.from([0x61, 0xff, 0x62])))).toBe("READ_FAILED");
    expect(decodeForEdit("a.ts", Buffer.from("\uFEFFx\n", "utf8")).bom).toBe(true);
  });
});

describe("replace-hash plans", () => {
  const file = parseText(["function a() {", "  return 1;", "}", "", "function b() {", "  return 1;", "}", ""].join("\n"));

  it("applies at the requested range when its hash matches, and reports the written region", () => {
    const plan = planReplace(file, { oldHash: rangeHash(file, 1, 3), range: { start: 1, end: 3 }, content: "const a = () => 1;\n", recovery: true });
    expect(plan.relocated).toBe(false);
    expect(plan.region).toEqual({ start: 1, end: 3 });
    expect(plan.newRange).toEqual({ start: 1, end: 1 });
    expect(renderText(plan.after)).toBe(["const a = () => 1;", "", "function b() {", "  return 1;", "}", ""].join("\n"));
    expect(previewDiff(plan)).toBe(["- 1 | function a() {", "- 2 |   return 1;", "- 3 | }", "+ 1 | const a = () => 1;", "  2 | ", "  3 | function b() {"].join("\n"));
  });

  it("relocates a moved anchor when exactly one same-height window matches", () => {
    const moved = parseText(`// header\n// more\n${renderText(file)}`);
    const plan = planReplace(moved, { oldHash: rangeHash(file, 5, 7), range: { start: 5, end: 7 }, content: "function b() { return 2; }", recovery: true });
    expect(plan.relocated).toBe(true);
    expect(plan.region).toEqual({ start: 7, end: 9 });
    expect(plan.newRange).toEqual({ start: 7, end: 7 });
  });

  it("refuses an anchor that matches twice (AMBIGUOUS_ANCHOR) or nowhere (STALE_ANCHOR), and never relocates with recovery off", () => {
    const shifted = parseText(`\n${renderText(file)}`);
    // "  return 1;" appears on two lines: a one-line anchor on it cannot be placed.
    expect(codeOf(() => planReplace(shifted, { oldHash: rangeHash(file, 2, 2), range: { start: 2, end: 2 }, content: "x", recovery: true }))).toBe("AMBIGUOUS_ANCHOR");
    expect(codeOf(() => planReplace(file, { oldHash: hash12("gone"), range: { start: 2, end: 2 }, content: "x", recovery: true }))).toBe("STALE_ANCHOR");
    expect(codeOf(() => planReplace(shifted, { oldHash: rangeHash(file, 1, 3), range: { start: 1, end: 3 }, content: "x", recovery: false }))).toBe("STALE_ANCHOR");
  });

  it("never relocates a whole-file anchor: a changed file is STALE_ANCHOR", () => {
    expect(renderText(planReplace(file, { oldHash: fileHash(file), range: null, content: "x\n", recovery: true }).after)).toBe("x\n");
    const changed = parseText(`${renderText(file)}// tail\n`);
    expect(codeOf(() => planReplace(changed, { oldHash: fileHash(file), range: null, content: "x\n", recovery: true }))).toBe("STALE_ANCHOR");
  });

  it("a changed file hash leaves a range anchor unproven: a swapped-in line whose hash collides is refused unless the read's context pins it", () => {
    const read = parseText("function a() {\n  return 1;\n}\nconst total = 1;\n");
    // Another writer swapped line 4 for another line whose 12-character hash collides with the one read. No real
    // 48-bit collision is at hand, so the anchor is given the new line's hash: the line hash still matches at the
    // range, the file hash does not — exactly the collision.
    const swapped = parseText("function a() {\n  return 1;\n}\nconst total = 2;\n");
    const collision = { oldHash: rangeHash(swapped, 4, 4), range: { start: 4, end: 4 }, content: "const total = 3;", recovery: true, expectedFileHash: fileHash(read) };
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return [(err as MastError).code, (err as MastError).message];
      }
      return ["no error"];
    };
    expect(refusal(() => planReplace(swapped, collision))).toEqual([
      "STALE_ANCHOR",
      `anchor ${collision.oldHash} no longer matches: the file changed since it was read (its hash is ${fileHash(swapped)}, not ${fileHash(read)}), and the anchor's hash at its range is no proof these are the lines read; pass the read's --context-hash and --context-range to pin them. Re-read the file and retry.`,
    ]);
    // The read's context is not around it (line 4 is in it): still refused.
    const context = { hash: rangeHash(read, 2, 4), range: { start: 2, end: 4 } };
    expect(codeOf(() => planReplace(swapped, { ...collision, context }))).toBe("STALE_ANCHOR");
    // Only another line changed: the read's context pins the anchor where it was read.
    const elsewhere = parseText("function a() {\n  return 10;\n}\nconst total = 1;\n");
    const anchor = { oldHash: rangeHash(read, 4, 4), range: { start: 4, end: 4 }, content: "const total = 3;", recovery: true, expectedFileHash: fileHash(read) };
    expect(codeOf(() => planReplace(elsewhere, anchor))).toBe("STALE_ANCHOR");
    const pinned = planReplace(elsewhere, { ...anchor, context: { hash: rangeHash(read, 3, 4), range: { start: 3, end: 4 } } });
    expect([renderText(pinned.after), pinned.relocated]).toEqual(["function a() {\n  return 10;\n}\nconst total = 3;\n", false]);
    // The file as read: the range is trusted (unchanged behaviour).
    expect(renderText(planReplace(read, anchor).after)).toBe("function a() {\n  return 1;\n}\nconst total = 3;\n");
  });

  it("a changed file hash does not let a moved anchor be relocated by its hash alone either; its context does", () => {
    const read = parseText("function a() {\n  return 1;\n}\nconst total = computeTotal(items);\n");
    const shifted = parseText(`// header\n${renderText(read)}`);
    const anchor = { oldHash: rangeHash(read, 4, 4), range: { start: 4, end: 4 }, content: "const total = 0;", recovery: true };
    // Without the read's file hash the contract's relocation stands (a distinctive, unique line).
    expect(planReplace(shifted, anchor).region).toEqual({ start: 5, end: 5 });
    expect(codeOf(() => planReplace(shifted, { ...anchor, expectedFileHash: fileHash(read) }))).toBe("STALE_ANCHOR");
    const moved = planReplace(shifted, { ...anchor, expectedFileHash: fileHash(read), context: { hash: rangeHash(read, 3, 4), range: { start: 3, end: 4 } } });
    expect([moved.region, moved.relocated]).toEqual([{ start: 5, end: 5 }, true]);
  });

  it("a line hash without a range says so (the file did not change): STALE_ANCHOR as the contract has it for a whole-file anchor, naming the line and --range", () => {
    const message = (oldHash: string, expectedFileHash: string | null = null) => {
      try {
        planReplace(file, { oldHash, range: null, content: "x", recovery: true, expectedFileHash });
      } catch (err) {
        return [(err as MastError).code, (err as MastError).message, (err as MastError).hint];
      }
      return ["no error"];
    };
    expect(message(rangeHash(file, 5, 5))).toEqual([
      "STALE_ANCHOR",
      `anchor ${rangeHash(file, 5, 5)} is the hash of line 5, not of the whole file: without --range an anchor is the file's hash (${fileHash(file)}); nothing was written.`,
      "Pass the line with its lineHash (--range 5), or the file's hash (read-many's hash, read-hash's fileHash) to replace the whole file.",
    ]);
    // `  return 1;` is on lines 2 and 6.
    expect(message(rangeHash(file, 2, 2))[1]).toBe(
      `anchor ${rangeHash(file, 2, 2)} is the hash of lines 2, 6 (the same text), not of the whole file: without --range an anchor is the file's hash (${fileHash(file)}); nothing was written.`,
    );
    // Nothing has it: the file changed, unless the read's file hash says it did not.
    expect(message(hash12("gone"))[1]).toBe(
      `anchor ${hash12("gone")} no longer matches: it is not the file's hash (${fileHash(file)}) nor any line's: the file changed since it was read, or the anchor is a range's hash given without its --range. Re-read the file and retry.`,
    );
    expect(message(hash12("gone"), fileHash(file))[1]).toBe(
      `anchor ${hash12("gone")} no longer matches: the file is as it was read (its hash is the --file-hash given), but the anchor is not its hash nor any line's: a range's hash needs its --range. Re-read the file and retry.`,
    );
  });

  it("validates ranges (1 <= start <= end <= last line) and hashes (12 hex) before anything else", () => {
    const h = rangeHash(file, 2, 2);
    for (const range of [
      { start: 0, end: 1 },
      { start: 3, end: 2 },
      { start: 8, end: 9 },
      { start: 1.5, end: 2 },
    ]) {
      expect(codeOf(() => planReplace(file, { oldHash: h, range, content: "x", recovery: true }))).toBe("INVALID_ARGUMENT");
    }
    expect(codeOf(() => planReplace(file, { oldHash: h.slice(0, 8), range: { start: 2, end: 2 }, content: "x", recovery: true }))).toBe("INVALID_ARGUMENT");
  });
  it("relocates by its text alone only text distinctive enough to be told from a copy (12 letters and digits)", () => {
    expect([["}"], ["});"], ["return;", "}"], ["} else {"], [""], ["@Input()"], ["  return a - b;"]].map(distinctive)).toEqual([false, false, false, false, false, false, false]);
    expect([["  this.listeners.delete(listener)"], ["export function sub(a: number, b: number): number {"], ["x1", "y2", "z3", "w4", "v5", "u6"]].map(distinctive)).toEqual([true, true, true]);
  });
});
