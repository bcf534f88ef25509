// base/deflate.ts: raw deflate by the native addon's kept streams (native/deflate.c) or node:zlib,
// the bytes of either read by the other; the native inflater refuses bytes that are not one whole
// raw stream (damaged, cut short, or with bytes after its end), as zlib's own does.
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { deflate, inflate, inflateRow } from "../../src/base/deflate.js";
import { DAMAGED_ROW } from "../../src/base/errors.js";
import { nativeAddon } from "../../src/base/native.js";

const text = Array.from({ length: 400 }, (_, i) => `export function handler${i}(request: Request): Promise<void> {}\n`).join("");

describe("deflate", () => {
  it("round-trips text, bytes, the empty string and 5 MB, each in a fraction of its size", () => {
    for (const data of [text, Buffer.from(text), "", "é𝒜 ﬀ"]) expect(inflate(deflate(data)).toString("utf8")).toBe(data.toString());
    expect(deflate(text).length).toBeLessThan(text.length * 0.1);
    const big = Buffer.alloc(5_000_000, 0x61);
    expect(inflate(deflate(big)).equals(big)).toBe(true);
  });

  it("writes bytes node:zlib reads, and reads node:zlib's", () => {
    expect(zlib.inflateRawSync(deflate(text)).toString("utf8")).toBe(text);
    expect(inflate(zlib.deflateRawSync(Buffer.from(text), { level: 9 })).toString("utf8")).toBe(text);
  });

  it("refuses bytes that are not one whole raw stream, and a stream that inflates past its limit", () => {
    const whole = deflate(text);
    for (const bad of [Buffer.from([0xff, 0xff, 0xff]), whole.subarray(0, whole.length - 4)]) expect(() => inflate(bad)).toThrow();
    // 5 MB of one byte deflates to ~22 KB at level 1: with a 1 MB limit it is refused, at its size it reads.
    const bomb = deflate(Buffer.alloc(5_000_000, 0x61));
    expect(bomb.length).toBeLessThan(25_000);
    expect(() => inflate(bomb, 1_000_000)).toThrow();
    expect(inflate(bomb, 5_000_000).length).toBe(5_000_000);
    expect(inflate(deflate(text), text.length).toString("utf8")).toBe(text);
  });

  it("a stored row that does not inflate is a damaged row, named", () => {
    expect(inflateRow(deflate(text), "the row").toString("utf8")).toBe(text);
    let thrown: unknown;
    try {
      inflateRow(Buffer.from([0xff, 0xff, 0xff]), "a damaged call-site pack (file 3)");
    } catch (err) {
      thrown = err;
    }
    expect((thrown as Error).message).toMatch(/^a damaged call-site pack \(file 3\): not deflated \(.+\)$/);
    expect((thrown as { code?: string }).code).toBe(DAMAGED_ROW);
  });

  it.skipIf(typeof nativeAddon?.inflateRaw !== "function")("natively, names what is wrong with the bytes, and a stream followed by more bytes", () => {
    const inflateRaw = (b: Uint8Array) => (nativeAddon!.inflateRaw as (b: Uint8Array, limit: number) => Buffer)(b, 1_000_000);
    const whole = deflate(text);
    const codeAndMessage = (b: Uint8Array) => {
      try {
        inflateRaw(b);
        return null;
      } catch (err) {
        return [(err as { code?: string }).code, (err as Error).message];
      }
    };
    expect(codeAndMessage(Buffer.from([0xff, 0xff]))).toEqual(["MAST_INFLATE", "invalid block type"]);
    expect(codeAndMessage(whole.subarray(0, whole.length - 4))).toEqual(["MAST_INFLATE", "the stream ends before its last block"]);
    expect(codeAndMessage(Buffer.concat([whole, Buffer.from([1, 2])]))).toEqual(["MAST_INFLATE", "bytes after the stream's end"]);
    expect(codeAndMessage(deflate(Buffer.alloc(5_000_000, 0x61)))).toEqual(["MAST_INFLATE", "the stream inflates past its limit"]);
    expect(() => (nativeAddon!.deflateRaw as (s: unknown) => Buffer)("a string")).toThrow("deflateRaw(bytes: Uint8Array)");
  });
});
