// A file's lines as answers read them (query/source.ts SourceLines: the bytes kept, a line range
// decoded when asked) equal the lines indexing decoded (base/text.ts decodeSource + splitLines)
// for the texts that make decoding by parts differ if done carelessly: a BOM, a U+FEFF starting a
// later line, CRLF and a lone CR, invalid UTF-8 ended by a line break, multi-byte characters, no
// final newline, an empty file.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { decodeSource, splitLines } from "../../src/base/text.js";
import { SourceLines } from "../../src/query/source.js";

const dir = mkdtempSync(join(tmpdir(), "mast-source-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILES: Record<string, Buffer> = {
  "bom.ts": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("const a = 1;\nconst b = 'é';\n")]),
  "feff.ts": Buffer.from("const a = 1;\n\ufeffconst b = 2;\n", "utf8"),
  "crlf.ts": Buffer.from("a\r\nb\r\r\nc\rd\r\n\r\nlast"),
  "invalid.ts": Buffer.concat([Buffer.from("ok\n"), Buffer.from([0x61, 0xe2, 0x82]), Buffer.from("\n"), Buffer.from([0xc3]), Buffer.from("\r\nz\n")]),
  "wide.ts": Buffer.from("// 日本語 — ümlaut 😀\nlet x = '😀';\n\n", "utf8"),
  "nofinal.ts": Buffer.from("one\ntwo"),
  "empty.ts": Buffer.alloc(0),
};

it("gives every line range as indexing's lines, joined", () => {
  for (const [name, bytes] of Object.entries(FILES)) writeFileSync(join(dir, name), bytes);
  const source = new SourceLines(dir);
  for (const [name, bytes] of Object.entries(FILES)) {
    const decoded = decodeSource(bytes);
    if (decoded.kind !== "text") throw new Error(name);
    const lines = splitLines(decoded.text);
    for (let from = 0; from <= lines.length + 1; from++) {
      for (let to = from; to <= lines.length + 1; to++) {
        const want = lines.slice(Math.max(1, from) - 1, Math.min(to, lines.length));
        expect(source.lines(name, from, to), `${name} ${from}..${to}`).toEqual(want);
        expect(source.text(name, from, to), `${name} ${from}..${to}`).toEqual(want.join("\n"));
      }
      expect(source.line(name, from), `${name} ${from}`).toEqual(from >= 1 && from <= lines.length ? lines[from - 1] : null);
    }
  }
  // Spot values: the BOM is not text, a later U+FEFF is, a lone CR stays inside its line, an invalid byte is U+FFFD.
  expect(source.line("bom.ts", 1)).toBe("const a = 1;");
  expect(source.line("feff.ts", 2)).toBe("\ufeffconst b = 2;");
  expect(source.lines("crlf.ts", 1, 6)).toEqual(["a", "b\r", "c\rd", "", "last"]);
  expect(source.lines("invalid.ts", 2, 3)).toEqual(["a\ufffd", "\ufffd"]);
});
