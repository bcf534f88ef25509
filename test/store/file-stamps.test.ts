import { describe, expect, it } from "vitest";
import { FileStamps, packStamps, packedGeneration, type StoredStampRow } from "../../src/store/file-stamps.js";

const GEN = "00112233aabbccdd";
// [id, path, mtime, size, ino, ctime, stat_clean], in ascending order of path.
const ROWS: StoredStampRow[] = [
  [3, "a.ts", 1_700_000_000_123.25, 10, 901, 1_700_000_000_200.5, 1],
  [1, "src/b.ts", 1_700_000_001_000, 2_048, 902, 1_700_000_001_000, 0],
  [2, "src/é.ts", 1_700_000_002_000, 7, 903, 1_700_000_002_001, 1],
];
const hashOf = (id: number) => `hash-${id}`;
const stampOf = (stamps: FileStamps, path: string) => {
  const s = stamps.get(path);
  return s && [s.id, s.path, s.mtime, s.size, s.ino, s.ctime, s.statClean, s.contentHash];
};

describe("packed file stamps (file-stamps.bin)", () => {
  it("read back every stamp exactly, looked up in order by a merge and out of order by a map", () => {
    const packed = packStamps(ROWS, GEN);
    // A 32-byte header (magic, format, generation, count, paths' bytes), five float64s and a byte per file, the paths.
    expect(packed.byteLength).toBe(32 + 3 * 40 + 3 + Buffer.byteLength("a.ts\0src/b.ts\0src/é.ts"));
    expect(packed.subarray(8, 24).toString("latin1")).toBe(GEN);
    expect(packedGeneration(packed.subarray(0, 32))).toBe(GEN);
    expect(packedGeneration(packed.subarray(0, 31))).toBeNull();
    const stamps = FileStamps.fromPacked(packed, GEN, hashOf)!;
    expect(stamps.size).toBe(3);
    // Ascending, as a walk asks: a path not held is passed over.
    expect(stampOf(stamps, "a.ts")).toEqual([3, "a.ts", 1_700_000_000_123.25, 10, 901, 1_700_000_000_200.5, true, "hash-3"]);
    expect(stamps.get("src/a.ts")).toBeUndefined();
    expect(stampOf(stamps, "src/é.ts")).toEqual([2, "src/é.ts", 1_700_000_002_000, 7, 903, 1_700_000_002_001, true, "hash-2"]);
    // Out of order: found all the same.
    expect(stampOf(stamps, "src/b.ts")).toEqual([1, "src/b.ts", 1_700_000_001_000, 2_048, 902, 1_700_000_001_000, false, "hash-1"]);
    expect(stamps.has("a.ts")).toBe(true);
    expect(stamps.has("z.ts")).toBe(false);
    expect(stamps.delete("a.ts")).toBe(true);
    expect([...stamps.keys()]).toEqual(["src/b.ts", "src/é.ts"]);
    expect(stamps.size).toBe(2);
  });

  it("align with a walk whose list is their paths byte for byte, and answer statProves by place then", () => {
    // A walk's stats, STAT_WORDS (5) a file: kind, size, mtime, ino, ctime — equal to each stamp.
    const stats = new Float64Array(ROWS.flatMap(([, , mtime, size, ino, ctime]) => [1, size, mtime, ino, ctime]));
    const list = (paths: string[]) => ({ joined: paths.join("\0"), count: paths.length, bytes: Buffer.from(paths.join("\0")) });
    const paths = ROWS.map((r) => r[1]);
    const stamps = FileStamps.fromPacked(packStamps(ROWS, GEN), GEN, hashOf)!;
    expect(stamps.alignWith(list(paths))).toBe(true);
    // By place: the path passed is not looked up (a stamp is clean, unclean, clean).
    expect([0, 1, 2].map((i) => stamps.statProves("not-looked-up", stats, i))).toEqual([true, false, true]);
    // Another list (one byte, one path fewer, no bytes), or stamps from rows: by path again, as before.
    for (const other of [list(["a.ts", "src/b.ts", "src/e.ts"]), list(paths.slice(0, 2)), { joined: paths.join("\0"), count: 3 }, undefined]) {
      expect(stamps.alignWith(other)).toBe(false);
      expect(stamps.statProves("not-looked-up", stats, 0)).toBeUndefined();
      expect(paths.map((p, i) => stamps.statProves(p, stats, i))).toEqual([true, false, true]);
    }
    const fromRows = FileStamps.fromRows(ROWS, hashOf);
    expect(fromRows.alignWith(list(paths))).toBe(false);
    expect(fromRows.statProves("not-looked-up", stats, 0)).toBeUndefined();
    // A path forgotten ends the alignment: the places no longer match the walk's.
    expect(stamps.alignWith(list(paths))).toBe(true);
    stamps.delete("a.ts");
    expect(stamps.statProves("a.ts", stats, 0)).toBeUndefined();
  });

  it("equal FileStamps.fromRows for the same rows, read from any offset of a buffer", () => {
    const fromRows = FileStamps.fromRows(ROWS, hashOf);
    // At an odd offset a Float64Array cannot view the bytes: they are copied.
    const packed = packStamps(ROWS, GEN);
    const shifted = Buffer.alloc(packed.byteLength + 3);
    packed.copy(shifted, 3);
    const fromPacked = FileStamps.fromPacked(shifted.subarray(3), GEN, hashOf)!;
    for (const [, path] of ROWS) expect(stampOf(fromPacked, path)).toEqual(stampOf(fromRows, path));
    expect([...fromPacked.keys()]).toEqual([...fromRows.keys()]);
  });

  it("are refused when of another generation, format or shape", () => {
    const packed = packStamps(ROWS, GEN);
    expect(FileStamps.fromPacked(packed, "ffffffffffffffff", hashOf)).toBeNull();
    expect(FileStamps.fromPacked(packed, null, hashOf)).toBeNull();
    expect(FileStamps.fromPacked(packed.subarray(0, packed.byteLength - 1), GEN, hashOf)).toBeNull();
    expect(FileStamps.fromPacked(packed.subarray(0, 10), GEN, hashOf)).toBeNull();
    const otherFormat = Buffer.from(packed);
    otherFormat.writeUInt32LE(2, 4);
    expect(FileStamps.fromPacked(otherFormat, GEN, hashOf)).toBeNull();
    expect(packedGeneration(otherFormat)).toBeNull();
    // Out of order, or a path twice: a merge would miss paths.
    expect(FileStamps.fromPacked(packStamps([ROWS[1]!, ROWS[0]!], GEN), GEN, hashOf)).toBeNull();
    expect(FileStamps.fromPacked(packStamps([ROWS[0]!, ROWS[0]!], GEN), GEN, hashOf)).toBeNull();
    expect(() => packStamps(ROWS, "not-a-generation")).toThrow(/not a files generation/);
    expect(FileStamps.fromPacked(packStamps([], GEN), GEN, hashOf)!.size).toBe(0);
  });
});
