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
  it("says nothing (null: every repository is asked) while the store cannot be reached, logging it once without the password, and waits before asking again", async () => {
    const logged: string[] = [];
    const relevance = storeRelevance("postgres://mast:hunter2@127.0.0.1:1/db", (line) => logged.push(line), { retryMs: 60_000 });
    try {
      const snapshots = [{ repository: "a", snapshot: 1 }];
      expect(await relevance.rank(snapshots, "parse")).toBeNull();
      // Within the wait, at once and without a connection.
      const started = performance.now();
      expect(await relevance.rank(snapshots, "parse")).toBeNull();
      expect(performance.now() - started).toBeLessThan(50);
      expect(logged.length).toBe(1);
      expect(logged[0]).toMatch(
        /^mast serve: the store could not rank a search, so searches ask every repository \(again in 60 s\): the PostgreSQL store at postgres:\/\/mast:\*\*\*@127\.0\.0\.1:1\/db cannot be used/,
      );
    } finally {
      await relevance.close();
    }
  });

  it("gives up on a ranking that takes longer than its time, and asks the store again once the wait is over", async () => {
    const logged: string[] = [];
    const slow = storeRelevance(server.url(), (line) => logged.push(line), { timeoutMs: 1, retryMs: 0 });
    const snapshots = [{ repository: "a", snapshot: 1 }];
    try {
      // A connection takes longer than a millisecond: the ranking is abandoned, not waited for.
      expect(await slow.rank(snapshots, "parse")).toBeNull();
      expect(logged).toEqual([expect.stringMatching(/^mast serve: the store could not rank a search, so searches ask every repository \(again in 0 s\): no ranking within 1 ms$/)]);
    } finally {
      await slow.close();
    }
  });
});
