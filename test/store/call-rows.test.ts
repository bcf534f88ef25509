// store/call-rows.ts: a file's call sites packed into one JSON text, deflated, and read back as
// they were; a pack an older index stored as JSON text reads the same.
import { inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { packCalls, unpackCalls, type CallSiteRow } from "../../src/store/call-rows.js";

describe("packed call sites", () => {
  const sites: CallSiteRow[] = [
    { line: 3, caller: "AuthService.login", callee: "hash", receiver: "bare", receiverName: null, resolution: null, isNew: 0 },
    { line: 3, caller: "AuthService.login", callee: "find", receiver: "typed", receiverName: "UserRepo", resolution: "field_type", isNew: 0 },
    { line: 9, caller: null, callee: "AuthService", receiver: "bare", receiverName: null, resolution: null, isNew: 1 },
  ];

  it("reads back every site of the file, in order, with its file id", () => {
    expect(unpackCalls(7, packCalls(sites))).toEqual(sites.map((s) => ({ fileId: 7, ...s })));
  });

  it("writes each string once: the caller two sites share, and `bare` twice, are one entry each", () => {
    expect(JSON.parse(inflateRawSync(packCalls(sites)).toString("utf8"))).toEqual({
      strings: ["AuthService.login", "hash", "bare", "find", "typed", "UserRepo", "field_type", "AuthService"],
      sites: [3, 0, 1, 2, -1, -1, 0, 3, 0, 3, 4, 5, 6, 0, 9, -1, 7, 2, -1, -1, 1],
    });
    expect(unpackCalls(1, packCalls([]))).toEqual([]);
  });

  it("stores a third of the JSON's bytes for a file of many sites, and reads an older index's JSON text as it is", () => {
    const many: CallSiteRow[] = Array.from({ length: 300 }, (_, i) => ({ ...sites[i % 3]!, line: 3 + i }));
    const json = inflateRawSync(packCalls(many)).toString("utf8");
    expect(packCalls(many).length).toBeLessThan(json.length / 3);
    expect(unpackCalls(4, json)).toEqual(unpackCalls(4, packCalls(many)));
    expect(unpackCalls(4, json)[299]).toEqual({ fileId: 4, ...sites[2]!, line: 302 });
  });
});
