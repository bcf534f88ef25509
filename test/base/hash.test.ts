import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chunkId, hashKey, randomHex, sha256 } from "../../src/base/hash.js";

describe("hashing", () => {
  it("sha256 is node:crypto's, in hex, for text and bytes", () => {
    expect(sha256("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256(Buffer.from("é", "utf8"))).toBe(createHash("sha256").update("é").digest("hex"));
    expect(chunkId("src/a.ts", 3, 0)).toBe(sha256("src/a.ts:3"));
    expect(chunkId("src/a.ts", 3, 2)).toBe(sha256("src/a.ts:3:2"));
    expect(hashKey("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")).toBe(0xba7816bf8f01c);
  });

  it("randomHex gives as many random bytes as asked, never the same twice", () => {
    const a = randomHex(8);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(randomHex(32)).toMatch(/^[0-9a-f]{64}$/);
    expect(randomHex(8)).not.toBe(a);
  });
});
