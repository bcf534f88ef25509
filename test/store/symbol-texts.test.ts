// store/symbol-texts.ts: a file's symbols' signatures, doc comments and parameters kept as one
// deflated row, read back by symbol id through store/db.ts symbolTextReader — each file's row
// unpacked once per connection until the data changes (test/store/file-rows.test.ts); damaged
// bytes refused, never misread.
import { describe, expect, it } from "vitest";
import { deflate } from "../../src/base/deflate.js";
import { packSymbolTexts, unpackSymbolTexts } from "../../src/store/symbol-texts.js";

describe("symbol texts", () => {
  it("round-trip with nulls kept apart from empty texts, in a fraction of their JSON", () => {
    const texts = [
      { signature: "export function greet(name: string): string", doc: "/** Says hello. */", params: '[["name","string"]]' },
      { signature: "", doc: null, params: null },
    ];
    expect(unpackSymbolTexts(1, packSymbolTexts(texts))).toEqual(texts);
    const many = Array.from({ length: 200 }, (_, i) => ({
      signature: `export function handler${i}(request: Request, response: Response): Promise<void>`,
      doc: null,
      params: '[["request","Request"],["response","Response"]]',
    }));
    expect(packSymbolTexts(many).length).toBeLessThan(JSON.stringify(many).length * 0.2);
  });

  it("refuse bytes that are not theirs", () => {
    const cases: Array<[Uint8Array, RegExp]> = [
      [Buffer.from([0xff, 0x00, 0x13]), /^damaged symbol texts \(file 7\): not deflated \(/],
      [deflate('[["sig"'), /^damaged symbol texts \(file 7\): not JSON \(/],
      [deflate('{"a": 1}'), /^damaged symbol texts \(file 7\): not a list$/],
      [deflate('[["sig", null]]'), /^damaged symbol texts \(file 7\): an entry that is not \[signature, doc, params\]$/],
      [deflate('[["sig", null, 3]]'), /^damaged symbol texts \(file 7\): an entry that is not \[signature, doc, params\]$/],
    ];
    for (const [bytes, why] of cases) expect(() => unpackSymbolTexts(7, bytes)).toThrow(why);
  });
});
