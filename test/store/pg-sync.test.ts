// The synchronous PostgreSQL session (store/pg/client.ts openPgSync) against a real server: a
// statement's rows come back synchronously, a statement's own error is that error (its SQLSTATE
// kept), a server that is not there is STORE_UNAVAILABLE without the password, and closing ends it;
// a search's ranking of repositories (store/pg/search.ts) falls back to asking every one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MastError } from "../../src/base/errors.js";
import { openPgSync } from "../../src/store/pg/client.js";
import { storeRelevance } from "../../src/store/pg/search.js";
import { startPostgres } from "../helpers/postgres-server.mjs";

let server: Awaited<ReturnType<typeof startPostgres>>;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe("openPgSync", () => {
  it("answers statements synchronously, in order, with their parameters", () => {
    const pg = openPgSync(server.url(), "--store");
    try {
      pg.query("CREATE TABLE t (id int PRIMARY KEY, name text)");
      pg.query("INSERT INTO t SELECT g, 'n' || g FROM generate_series(1, 100) g");
      const names = [3, 50, 100].map((id) => pg.query<{ name: string }>("SELECT name FROM t WHERE id = $1", [id])[0]!.name);
      expect(names).toEqual(["n3", "n50", "n100"]);
      expect(pg.query("SELECT count(*)::int AS n FROM t WHERE name = ANY($1::text[])", [["n1", "n2", "nope"]])).toEqual([{ n: 2 }]);
      let caught: unknown;
      try {
        pg.query("SELECT * FROM no_such_table");
      } catch (err) {
        caught = err;
      }
      expect([(caught as { code?: string }).code, (caught as Error).message]).toEqual(["42P01", 'relation "no_such_table" does not exist']);
      // The session goes on after a failed statement.
      expect(pg.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    } finally {
      pg.close();
    }
  });

  it("a server that is not there is STORE_UNAVAILABLE, its password hidden", () => {
    let caught: unknown;
    try {
      openPgSync("postgres://mast:hunter2@127.0.0.1:1/db", "--store");
    } catch (err) {
      caught = err;
    }
    expect((caught as MastError).code).toBe("STORE_UNAVAILABLE");
    expect((caught as MastError).message.includes("hunter2")).toBe(false);
  });

  it("refuses a connection string without //host (INVALID_ARGUMENT) and never repeats a password it holds", () => {
    for (const url of ["u:secret@db/x", "postgres:u:secret@host/db", "postgresql:///db?password=secret", "mysql://u:secret@h/db"]) {
      let caught: unknown;
      try {
        openPgSync(url, "--store");
      } catch (err) {
        caught = err;
      }
      expect([url, (caught as MastError).code, (caught as MastError).message.includes("secret")]).toEqual([url, "INVALID_ARGUMENT", false]);
    }
  });
});

describe("storeRelevance", () => {
  it("says nothing (null: every repository is asked) while the store cannot be reached, logging it once without the password", async () => {
    const logged: string[] = [];
    const relevance = storeRelevance("postgres://mast:hunter2@127.0.0.1:1/db", (line) => logged.push(line));
    try {
      const snapshots = [{ repository: "a", snapshot: 1 }];
      expect([await relevance.rank(snapshots, "parse"), await relevance.rank(snapshots, "parse")]).toEqual([null, null]);
      expect(logged.length).toBe(1);
      expect(logged[0]).toMatch(/^mast serve: the store could not rank a search, so it asks every repository: the PostgreSQL store at postgres:\/\/mast:\*\*\*@127\.0\.0\.1:1\/db cannot be used/);
    } finally {
      await relevance.close();
    }
  });

  it("ranks nothing for a query without a word, over a store that answers", async () => {
    const relevance = storeRelevance(server.url(), () => {});
    try {
      expect(await relevance.rank([{ repository: "a", snapshot: 1 }], "()!")).toEqual(new Map());
    } finally {
      await relevance.close();
    }
  });
});
