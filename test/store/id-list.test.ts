// A query's integers as one array (store/db.ts idList): packed by the addon's SQLite function
// (native/sqlite_ext.c mast_ids, loaded into the connection on first use) or read row by row — the
// same numbers in the query's order either way, on a real graph.db and its text index.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { nativeAddonPath } from "../../src/base/native.js";
import { idList } from "../../src/store/db.js";
import { Store } from "../../src/store/store.js";
import { extractFile } from "../../src/syntax/extract.js";
import { GOLDEN_OPTIONS } from "../helpers/extraction.js";

let dir: string;
let store: Store;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mast-id-list-"));
  store = Store.open(join(dir, "graph.db"));
  const meta = (path: string) => ({ path, language: "typescript", mtime: 1, size: 10, ino: 1, ctime: 1, contentHash: "0".repeat(64), statClean: true });
  for (let i = 0; i < 30; i++) {
    const r = extractFile(`src/f${i}.ts`, `export function f${i}() {\n  return render(${i});\n}\nexport function g${i}() {\n  return ${i};\n}\n`, GOLDEN_OPTIONS);
    if (!r.ok) throw new Error(r.error);
    store.writeFile(meta(`src/f${i}.ts`), r.extraction);
  }
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const both = (select: string, params: unknown[] = []) => [[...idList(store.db, select, params, true)], [...idList(store.db, select, params, false)]];

it("gives a text index's chunk ids alike packed or row by row, in the query's order", () => {
  const ascending = "SELECT rowid AS id FROM chunk_words WHERE chunk_words MATCH ? ORDER BY rowid";
  const [packed, rows] = both(ascending, ['"render"']);
  expect(packed).toHaveLength(30); // f0..f29, each naming render once
  expect(packed).toEqual(rows);
  expect(packed).toEqual([...packed].sort((a, b) => a - b));
  // Descending: the subquery's order is what the aggregate reads.
  const [down, downRows] = both(ascending.replace("ORDER BY rowid", "ORDER BY rowid DESC"), ['"render"']);
  expect(down).toEqual(downRows);
  expect(down).toEqual([...packed].reverse());
  expect(both(ascending, ['"nowhere"'])).toEqual([[], []]);
});

it("keeps integers past 32 bits exact, many of them", () => {
  const big = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5000) SELECT x * 1099511627 AS id FROM n ORDER BY x";
  const [packed, rows] = both(big);
  expect(packed).toHaveLength(5000);
  expect(packed[4999]).toBe(5000 * 1099511627);
  expect(packed).toEqual(rows);
});

it("packs through the addon's function once it is loaded: a double per row, host order", () => {
  expect(nativeAddonPath).not.toBeNull(); // built by npm ci (native/), as test/base/native.test.ts requires
  idList(store.db, "SELECT 1 AS id", []);
  expect(store.db.prepare("SELECT hex(mast_ids(x)) FROM (SELECT 1 AS x UNION ALL SELECT 2)").pluck().get()).toBe("000000000000F03F0000000000000040");
  expect(store.db.prepare("SELECT length(mast_ids(x)) FROM (SELECT 1 AS x WHERE 0)").pluck().get()).toBe(0);
});

it("packs every argument of each row with mast_doubles: integers exact, reals as they are, NULL as 0, rows in the query's order", () => {
  idList(store.db, "SELECT 1 AS id", []);
  const blob = store.db
    .prepare("SELECT mast_doubles(a, b, c) FROM (SELECT 9007199254740991 AS a, 1700000000123.25 AS b, NULL AS c UNION ALL SELECT -3, 0.5, 7 ORDER BY a DESC)")
    .pluck()
    .get() as Buffer;
  expect([...new Float64Array(new Uint8Array(blob).buffer)]).toEqual([9007199254740991, 1700000000123.25, 0, -3, 0.5, 7]);
  // Past the first buffer's 1,024 doubles, grown as rows come.
  const many = store.db.prepare("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 700) SELECT length(mast_doubles(x, x * 0.5)) FROM n").pluck().get();
  expect(many).toBe(700 * 2 * 8);
});
