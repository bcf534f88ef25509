// The class outlines among a list of chunk ids (query/mentions.ts outlinesAmong): a few ids probed in
// the outlines' partial index, many merged with every outline's id (kept per connection until the
// data changes) — the same answer either way, and a change to the index seen by the next ask. And
// the chunks mentioning a name (chunksMentioning), a long list kept the same way.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { chunksMentioning, outlinesAmong } from "../../src/query/mentions.js";
import { indexedProject } from "../helpers/indexed.js";

const p = indexedProject({
  "src/a.ts": "export class A {\n  m() {\n    return 1;\n  }\n}\nexport function f() {\n  return 2;\n}\nexport class B {\n  n() {}\n}\n",
});

it("probed or merged, the outlines among the ids are the same; a new outline is seen after a run", async () => {
  const db = p.ctx.store().db;
  const ids = () => db.prepare("SELECT id FROM chunks ORDER BY id").pluck().all() as number[];
  const nameOf = (id: number) => db.prepare("SELECT symbol_name FROM chunks WHERE id = ?").pluck().get(id);
  const probed = outlinesAmong(db, ids(), Infinity);
  expect(probed.map(nameOf)).toEqual(["A", "B"]);
  expect(outlinesAmong(db, ids(), 0)).toEqual(probed);
  // Without A's outline among the ids, only B's; none among none.
  const withoutA = ids().filter((id) => id !== probed[0]);
  expect(outlinesAmong(db, withoutA, 0)).toEqual([probed[1]]);
  expect(outlinesAmong(db, withoutA, Infinity)).toEqual([probed[1]]);
  expect(outlinesAmong(db, [], 0)).toEqual([]);

  writeFileSync(join(p.project.root, "src/c.ts"), "export class C {\n  k() {}\n}\n");
  await runIndex(p.project.config(), { mode: "incremental" });
  const after = outlinesAmong(db, ids(), 0);
  expect(after.map(nameOf)).toEqual(["A", "B", "C"]);
  expect(outlinesAmong(db, ids(), Infinity)).toEqual(after);
});

it("keeps a long list of the chunks mentioning a name until the data changes, the most recent few", async () => {
  const db = p.ctx.store().db;
  const nameOf = (id: number) => db.prepare("SELECT symbol_name FROM chunks WHERE id = ?").pluck().get(id);
  // `k`: C's method, in its own chunk and in C's outline.
  const first = chunksMentioning(db, '"k"', '"k"', 1);
  expect(first.map(nameOf)).toEqual(["C", "C.k"]);
  expect(chunksMentioning(db, '"k"', '"k"', 1)).toBe(first); // kept: the same list
  // Below the threshold, read each time.
  const short = chunksMentioning(db, '"n"', '"n"', 100);
  expect(chunksMentioning(db, '"n"', '"n"', 100)).not.toBe(short);
  expect(chunksMentioning(db, '"n"', '"n"', 100)).toEqual(short);
  // Nine other names read since: the oldest kept list is gone (a new array, the same ids).
  for (let i = 0; i < 9; i++) chunksMentioning(db, `"w${i}"`, `"w${i}"`, 0);
  const again = chunksMentioning(db, '"k"', '"k"', 1);
  expect(again).not.toBe(first);
  expect(again).toEqual(first);
  // A run that adds a mention: the kept list is read again.
  writeFileSync(join(p.project.root, "src/d.ts"), "export function usesK(c: { k(): void }) {\n  c.k();\n}\n");
  await runIndex(p.project.config(), { mode: "incremental" });
  expect(chunksMentioning(db, '"k"', '"k"', 1).map(nameOf)).toEqual(["C", "C.k", "usesK"]);
});
