import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { openDatabase, prepared } from "../../src/store/db.js";

const dir = mkdtempSync(join(tmpdir(), "mast-prepared-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("hands each use of a cached statement rows as objects, whatever mode the last use set", () => {
  const db = openDatabase(join(dir, "t.db"));
  try {
    db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t(name) VALUES ('a'), ('b')");
    const q = "SELECT id, name FROM t WHERE name = ?";
    expect(prepared(db, q).pluck().get("a")).toBe(1);
    expect(prepared(db, q).get("a")).toEqual({ id: 1, name: "a" });
    expect(prepared(db, q).raw().get("b")).toEqual([2, "b"]);
    expect(prepared(db, q).get("b")).toEqual({ id: 2, name: "b" });
    expect(prepared(db, q)).toBe(prepared(db, q));
    // With an iterator open on the connection no mode can change: the statement is handed as it is.
    const each = prepared(db, "SELECT id FROM t ORDER BY id").pluck().iterate();
    expect(each.next().value).toBe(1);
    expect(prepared(db, q).get("a")).toEqual({ id: 1, name: "a" });
    expect([...each]).toEqual([2]);
  } finally {
    db.close();
  }
});
