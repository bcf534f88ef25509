// store/call-rows.ts: a file's call sites packed into one row of bytes (a string table, then
// varints per site) and read back as they were; a damaged pack is refused, never misread or
// looped over.
import { describe, expect, it } from "vitest";
import { deflate } from "../../src/base/deflate.js";
import { packCalls, storedCallStrings, storedCalls, unpackCalls, unstoredCalls, type CallSiteRow } from "../../src/store/call-rows.js";

describe("packed call sites", () => {
  const sites: CallSiteRow[] = [
    { line: 3, caller: "AuthService.login", callee: "hash", receiver: "bare", receiverName: null, resolution: null, isNew: 0 },
    { line: 3, caller: "AuthService.login", callee: "find", receiver: "typed", receiverName: "UserRepo", resolution: "field_type", isNew: 0 },
    { line: 9, caller: null, callee: "AuthService", receiver: "bare", receiverName: null, resolution: null, isNew: 1 },
  ];
  const strings = ["AuthService.login", "hash", "bare", "find", "typed", "UserRepo", "field_type", "AuthService"];

  it("reads back every site of the file, in order, with its file id", () => {
    expect(unpackCalls(7, packCalls(sites))).toEqual(sites.map((s) => ({ fileId: 7, ...s })));
    expect(unpackCalls(1, packCalls([]))).toEqual([]);
  });

  it("writes each string once (the caller two sites share, and `bare` twice, are one entry each), then seven varints per site", () => {
    expect([...packCalls(sites)]).toEqual([
      1, // the format
      8,
      ...strings.map((s) => s.length), // the strings' count and lengths
      ...Buffer.from(strings.join(""), "utf8"),
      // line step (zigzag), caller, callee, receiver, receiver name, resolution (index + 1, 0 for none), is-new
      6,
      1,
      2,
      3,
      0,
      0,
      0,
      0,
      1,
      4,
      5,
      6,
      7,
      0,
      12,
      0,
      8,
      3,
      0,
      0,
      1,
    ]);
  });

  it("keeps a line past 127 and a string past 127 bytes (multi-byte varints) and UTF-8 names", () => {
    const long = { line: 70_000, caller: `é${"x".repeat(300)}`, callee: "ñame", receiver: "bare", receiverName: null, resolution: null, isNew: 0 };
    expect(unpackCalls(2, packCalls([sites[0]!, long]))).toEqual([
      { fileId: 2, ...sites[0]! },
      { fileId: 2, ...long },
    ]);
  });

  it("takes about half the bytes of the JSON schema 1.19 stored", () => {
    const many: CallSiteRow[] = Array.from({ length: 300 }, (_, i) => ({ ...sites[i % 3]!, line: 3 + i }));
    const ref = (s: string | null) => (s === null ? -1 : strings.indexOf(s));
    const json = JSON.stringify({ strings, sites: many.flatMap((c) => [c.line, ref(c.caller), ref(c.callee), ref(c.receiver), ref(c.receiverName), ref(c.resolution), c.isNew]) });
    expect(packCalls(many).length).toBeLessThan(json.length * 0.6);
    expect(unpackCalls(4, packCalls(many))[299]).toEqual({ fileId: 4, ...sites[2]!, line: 302 });
  });

  it("gives a stored pack's strings without its sites: their bytes as latin1 and where each starts (1) and ends (2)", () => {
    const { bytes, bounds } = storedCallStrings(3, storedCalls(sites));
    expect(bytes).toBe(strings.join(""));
    const marks = (at: number) => bounds[at];
    let at = 0;
    for (const s of strings) {
      expect(marks(at)! & 1).toBe(1);
      at += s.length;
      expect(marks(at)! & 2).toBe(2);
    }
    expect([...bounds].filter((b) => b !== 0).length).toBe(strings.length + 1);
    // A UTF-8 name is its bytes, one latin1 character each.
    expect(storedCallStrings(3, storedCalls([{ ...sites[0]!, callee: "ñame" }])).bytes).toBe(Buffer.from("AuthService.loginñamebare", "utf8").toString("latin1"));
    expect(() => storedCallStrings(4, deflate(Buffer.from([1, 1, 5, 97])))).toThrow("a damaged call-site pack (file 4): a string runs past its end");
  });

  it("refuses a pack of another format, cut short, or naming a string past its table", () => {
    const whole = packCalls(sites);
    const cases: Array<[Buffer, string]> = [
      [Buffer.from([9, 0]), "format 9"],
      [Buffer.from([1, 0x80]), "a number runs past its end"],
      [Buffer.from([1, 0, 2]), "a number runs past its end"],
      [Buffer.from([1, 1, 5, 97]), "a string runs past its end"],
      [Buffer.from([1, 0, 0, 0, 1, 1, 0, 0, 0]), "a string index past the table"],
      [whole.subarray(0, whole.length - 3), "a number runs past its end"],
    ];
    for (const [pack, why] of cases) expect(() => unpackCalls(1, pack), why).toThrow(`a damaged call-site pack (file 1): ${why}`);
  });

  it("are kept deflated: a file's 300 sites in a fraction of their pack, read back the same; bytes that do not inflate are a damaged pack", () => {
    const many = Array.from({ length: 300 }, (_, i) => ({ ...sites[i % 3]!, line: i + 3 }));
    const stored = storedCalls(many);
    expect(stored.length).toBeLessThan(packCalls(many).length * 0.5);
    expect(unstoredCalls(4, stored)).toEqual(unpackCalls(4, packCalls(many)));
    expect(() => unstoredCalls(2, Buffer.from([0xff, 0xff, 0xff]))).toThrow(/^a damaged call-site pack \(file 2\): not deflated \(/);
    // Deflated bytes of something else are refused by the pack's own checks.
    expect(() => unstoredCalls(3, deflate(Buffer.from([9, 0])))).toThrow("a damaged call-site pack (file 3): format 9");
  });
});
