// A file's rows in the real store (store/db.ts): a new file's rows are written without first
// deleting any (a file row goes with its rows in one transaction, so a new one has none), a
// rewritten file's old rows are replaced, and either marks a checker pass that has run as behind.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StatKind } from "../../src/base/native.js";
import { afterEach, describe, expect, it } from "vitest";
import { CHECKER_BEHIND, CHECKER_META, recordedChunkTotal, recordedFileTotal, symbolTextReader } from "../../src/store/db.js";
import { Store } from "../../src/store/store.js";
import { EDGE, RESOLVED } from "../../src/store/edge-codes.js";
import { filesInDirectory } from "../../src/store/link-inputs.js";
import { unpackParams } from "../../src/store/param-rows.js";
import { extractFile } from "../../src/syntax/extract.js";
import { GOLDEN_OPTIONS } from "../helpers/extraction.js";

const opened: Array<{ dir: string; store: Store }> = [];
afterEach(() => {
  for (const { dir, store } of opened.splice(0)) {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A fresh graph.db in a temp directory, closed and removed after the test. */
function openStore(): Store {
  const dir = mkdtempSync(join(tmpdir(), "mast-file-rows-"));
  const store = Store.open(join(dir, "graph.db"));
  opened.push({ dir, store });
  return store;
}

function extraction(path: string, text: string) {
  const r = extractFile(path, text, GOLDEN_OPTIONS);
  if (!r.ok) throw new Error(r.error);
  return r.extraction;
}

const meta = (path: string) => ({ path, language: "typescript", mtime: 1, size: 10, ino: 1, ctime: 1, contentHash: "0".repeat(64), statClean: true });

describe("a file's rows", () => {
  it("are written for a new file and replaced for a rewritten one; each write marks a run checker pass behind", () => {
    const store = openStore();
    const first = store.writeFile(meta("src/a.ts"), extraction("src/a.ts", "export function one() { return two(); }\nexport function two() { return 2; }\n"));
    expect(first).toEqual({ added: 2, removed: 0, kept: null });
    expect(store.getMeta(CHECKER_BEHIND)).toBeNull(); // no checker pass has run: nothing to be behind

    store.setMeta(CHECKER_META, "1");
    const added = store.writeFile(meta("src/b.ts"), extraction("src/b.ts", "export const b = 1;\n"));
    expect(added.removed).toBe(0);
    expect(store.getMeta(CHECKER_BEHIND)).toBe("1"); // a new file's calls are unchecked

    store.deleteMeta(CHECKER_BEHIND);
    const rewritten = store.writeFile(meta("src/a.ts"), extraction("src/a.ts", "export function three() { return 3; }\n"));
    expect(rewritten).toEqual({ added: 1, removed: 2, kept: null });
    expect(store.getMeta(CHECKER_BEHIND)).toBe("1");
    const names = store.snapshot((db) => db.prepare("SELECT s.name FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = 'src/a.ts' ORDER BY s.name").pluck().all());
    expect(names).toEqual(["three"]);
  });

  it("kept where the rewrite still declares them, when asked: the ids and edges into them stay, lines and texts move, the checker's verdicts and edges on them go; the names whose face moved are said", () => {
    const store = openStore();
    const a = (body: string, doc = "", name = "one", params = "") => `${doc}export function ${name}(${params}): number {\n  return ${body};\n}\nexport function other(): number {\n  return 0;\n}\n`;
    store.writeFile(meta("src/a.ts"), extraction("src/a.ts", a("1")));
    store.writeFile(meta("src/b.ts"), extraction("src/b.ts", "import { one } from './a';\nexport function two() { return one(); }\n"));
    const id = (file: string, name: string) =>
      store.db.prepare("SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.name = ?").pluck().get(file, name) as number | undefined;
    const [one, other, two] = [id("src/a.ts", "one")!, id("src/a.ts", "other")!, id("src/b.ts", "two")!];
    // An edge the linker derived into a.ts, and the checker's verdict and edge on the same call.
    store.db
      .prepare("INSERT INTO edges(from_id, to_id, edge_type, resolution, call_line) VALUES (?, ?, ?, ?, 2), (?, ?, ?, ?, 2)")
      .run(two, one, EDGE.POTENTIAL_CALL, RESOLVED.import, two, one, EDGE.POTENTIAL_CALL, RESOLVED.checker);
    store.db.prepare("INSERT INTO checker_verdicts(target_id, file_id, line, verdict) SELECT ?, id, 2, 'calls_target' FROM files WHERE path = 'src/b.ts'").run(one);
    const edges = () => store.db.prepare("SELECT from_id AS source, to_id AS target, resolution FROM edges WHERE edge_type = ? ORDER BY resolution").all(EDGE.POTENTIAL_CALL);
    const texts = (symbol: number) => symbolTextReader(store.db)(store.db.prepare("SELECT file_id FROM symbols WHERE id = ?").pluck().get(symbol) as number, symbol);

    // A body edit under a new doc comment: nothing another file reads moved.
    expect(store.writeFile(meta("src/a.ts"), extraction("src/a.ts", a("2", "/** The first. */\n")), undefined, true)).toEqual({ added: 2, removed: 2, kept: new Set() });
    expect([id("src/a.ts", "one"), id("src/a.ts", "other")]).toEqual([one, other]);
    expect(store.db.prepare("SELECT line, end_line AS endLine FROM symbols WHERE id = ?").get(one)).toEqual({ line: 2, endLine: 4 });
    expect(texts(one).doc).toBe("/** The first. */");
    expect(edges()).toEqual([{ source: two, target: one, resolution: RESOLVED.import }]);
    expect(store.db.prepare("SELECT count(*) FROM checker_verdicts").pluck().get()).toBe(0);

    // A parameter added: the row and its id stay, its signature moved (the files naming it relink).
    expect(store.writeFile(meta("src/a.ts"), extraction("src/a.ts", a("2", "", "one", "x = 1")), undefined, true).kept).toEqual(new Set(["one"]));
    expect(id("src/a.ts", "one")).toBe(one);
    expect(texts(one).signature).toBe("export function one(x = 1): number");
    expect(edges()).toEqual([{ source: two, target: one, resolution: RESOLVED.import }]);

    // Renamed: the old row goes with the edges into it, the new one takes a new id, beside the ids
    // kept (listed with the texts: they are no longer one run).
    expect(store.writeFile(meta("src/a.ts"), extraction("src/a.ts", a("2", "", "uno")), undefined, true).kept).toEqual(new Set(["one", "uno"]));
    const uno = id("src/a.ts", "uno")!;
    expect([id("src/a.ts", "one"), id("src/a.ts", "other"), uno > other]).toEqual([undefined, other, true]);
    expect([texts(uno).signature, texts(other).signature]).toEqual(["export function uno(): number", "export function other(): number"]);
    expect(edges()).toEqual([]);

    // Not asked (a full run): written anew.
    expect(store.writeFile(meta("src/a.ts"), extraction("src/a.ts", a("3", "", "uno"))).kept).toBeNull();
    expect(texts(id("src/a.ts", "uno")!).signature).toBe("export function uno(): number");
  });

  it("record the chunk and file totals when a commit counted them after its last file write, carry them forward by what an uncounted commit's writes moved, and lose them when a savepoint's writes rolled back", async () => {
    const store = openStore();
    const total = () => store.snapshot((db) => recordedChunkTotal(db));
    const files = () => store.snapshot((db) => recordedFileTotal(db));
    const counted = () => store.snapshot((db) => [db.prepare("SELECT count(*) FROM chunks").pluck().get(), db.prepare("SELECT count(*) FROM files").pluck().get()]);
    expect(total()).toBeNull();
    // Written without a count before any was recorded: nothing to carry forward.
    store.writeFile(meta("src/z.ts"), extraction("src/z.ts", "export const z = 1;\n"));
    expect(total()).toBeNull();
    await store.transaction(async () => {
      store.removeFileRows("src/z.ts");
      store.replaceFileRows(meta("src/a.ts"), extraction("src/a.ts", "export function one() { return 1; }\nexport function two() { return 2; }\n"));
      expect(store.counts()).toEqual({ files: 1, chunks: 2, symbols: 2 });
    });
    expect([total(), files()]).toEqual([2, 1]);
    expect(store.getMeta("chunk_total")).toMatch(/^\d+:2:1$/);
    // Counted, then a file written: the count is not this commit's total, the record moved by the writes is.
    await store.transaction(async () => {
      store.counts();
      store.replaceFileRows(meta("src/b.ts"), extraction("src/b.ts", "export const b = 1;\n"));
    });
    expect([total(), files()]).toEqual([3, 2]);
    // A file rewritten with one chunk fewer, one added, one removed (a server's refreshes, each its own commit).
    store.writeFile(meta("src/a.ts"), extraction("src/a.ts", "export function one() { return 1; }\n"));
    store.writeFile(meta("src/c.ts"), extraction("src/c.ts", "export const c = 1;\nexport const d = 2;\n"));
    expect([total(), files()]).toEqual([4, 3]);
    expect([total(), files()]).toEqual(counted());
    await store.transaction(async () => {
      store.deleteMeta(CHECKER_BEHIND);
      store.removeFileRows("src/c.ts");
    });
    expect([total(), files()]).toEqual([2, 2]);
    expect([total(), files()]).toEqual(counted());
    // A savepoint whose file writes rolled back: what the commit moved is unknown, no record is left.
    await store.transaction(async () => {
      store.replaceFileRows(meta("src/e.ts"), extraction("src/e.ts", "export const e = 1;\n"));
      expect(() =>
        store.batch(() => {
          store.replaceFileRows(meta("src/f.ts"), extraction("src/f.ts", "export const f = 1;\n"));
          throw new Error("rolled back");
        }),
      ).toThrow("rolled back");
    });
    expect(total()).toBeNull();
    // The next counting commit records them again.
    await store.transaction(async () => {
      store.replaceFileRows(meta("src/g.ts"), extraction("src/g.ts", "export const g = 1;\n"));
      store.counts();
    });
    expect([total(), files()]).toEqual(counted());
    expect([total(), files()]).toEqual([4, 4]);
    // A record an older mast wrote (the chunks alone) still gives them; the files are counted.
    store.setMeta("chunk_total", store.getMeta("chunk_total")!.replace(/:\d+$/, ""));
    expect([total(), files()]).toEqual([4, null]);
    // ...and is not carried forward (its files unknown).
    store.writeFile(meta("src/h.ts"), extraction("src/h.ts", "export const h = 1;\n"));
    expect(total()).toBeNull();
  });
  it("keep a function's parameters as one array each: name, type, and 1 when optional", () => {
    const store = openStore();
    store.writeFile(meta("src/p.ts"), extraction("src/p.ts", "export function f(a: string, b?: number, c, ...rest: Array<string>) {}\nexport function g() {}\n"));
    const params = (name: string) => {
      const [id, fileId] = store.db.prepare("SELECT id, file_id FROM symbols WHERE name = ?").raw().get(name) as [number, number];
      return symbolTextReader(store.db)(fileId, id).params!;
    };
    expect(params("f")).toBe('[["a","string"],["b","number",1],["c"],["...rest","Array<string>",1]]');
    expect(params("g")).toBe("[]");
    expect(unpackParams(params("f"))).toEqual([
      { name: "a", type: "string", optional: false },
      { name: "b", type: "number", optional: true },
      { name: "c", type: null, optional: false },
      { name: "...rest", type: "Array<string>", optional: true },
    ]);
  });
  it("keep their symbols' texts per file, read by symbol id; a rewritten file's new texts once its rows change", () => {
    const store = openStore();
    store.writeFile(meta("src/a.ts"), extraction("src/a.ts", "/** A. */\nexport function a(x: number): number {\n  return x;\n}\nexport class B {\n  m(y?: string): void {}\n}\n"));
    store.writeFile(meta("src/c.ts"), extraction("src/c.ts", "export const c = 1;\n"));
    const rows = () =>
      store.db.prepare("SELECT s.id, s.file_id, s.name FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.line, s.id").all() as Array<{ id: number; file_id: number; name: string }>;
    const read = () => {
      const texts = symbolTextReader(store.db);
      return rows().map((r) => [r.name, texts(r.file_id, r.id)]);
    };
    expect(read()).toEqual([
      ["a", { signature: "export function a(x: number): number", doc: "/** A. */", params: '[["x","number"]]' }],
      ["B", { signature: "export class B", doc: null, params: null }],
      ["B.m", { signature: "m(y?: string): void", doc: null, params: '[["y","string",1]]' }],
      ["c", { signature: "export const c", doc: null, params: null }],
    ]);
    // One row per file, its first id its first symbol's.
    const firsts = store.db.prepare("SELECT f.path, t.first_id FROM symbol_texts t JOIN files f ON f.id = t.file_id ORDER BY f.path").raw().all();
    expect(firsts).toEqual([
      ["src/a.ts", rows()[0]!.id],
      ["src/c.ts", rows()[3]!.id],
    ]);
    store.writeFile(meta("src/a.ts"), extraction("src/a.ts", "export function a2(): void {}\n"));
    expect(read().map(([name, t]) => [name, (t as { signature: string }).signature])).toEqual([
      ["a2", "export function a2(): void"],
      ["c", "export const c"],
    ]);
    // An id past its file's texts reads none.
    const c = rows().find((r) => r.name === "c")!;
    expect(symbolTextReader(store.db)(c.file_id, c.id + 5)).toEqual({ signature: null, doc: null, params: null });
  });
  it("name a package's files: a language's files directly in one directory, the root's included, by path", () => {
    const store = openStore();
    const go = (path: string) => {
      const r = extractFile(path, "package p\n\nfunc F() {}\n", GOLDEN_OPTIONS);
      if (!r.ok) throw new Error(r.error);
      store.writeFile({ ...meta(path), language: "go" }, r.extraction);
    };
    for (const path of ["pkg/b.go", "pkg/a.go", "pkg/sub/c.go", "pkg2/d.go", "pkg-x/e.go", "pkg.go", "main.go"]) go(path);
    store.writeFile(meta("pkg/f.ts"), extraction("pkg/f.ts", "export const f = 1;\n"));
    const paths = (ids: number[]) => ids.map((id) => store.db.prepare("SELECT path FROM files WHERE id = ?").pluck().get(id));
    expect(paths(filesInDirectory(store.db, "go", "pkg"))).toEqual(["pkg/a.go", "pkg/b.go"]);
    expect(paths(filesInDirectory(store.db, "go", "pkg/sub"))).toEqual(["pkg/sub/c.go"]);
    expect(paths(filesInDirectory(store.db, "go", ""))).toEqual(["main.go", "pkg.go"]);
    expect(paths(filesInDirectory(store.db, "typescript", "pkg"))).toEqual(["pkg/f.ts"]);
    expect(filesInDirectory(store.db, "go", "nowhere")).toEqual([]);
  });
});

describe("the indexed stamps read from the files table", () => {
  it("come as two values where the extension has mast_doubles, equal to the rows read one by one: every stamp, its proof by stat, paths past U+FFFF", () => {
    const store = openStore();
    // Bytewise (the path index) "ﬀ" (EF AC 80) sorts before "𝒜" (F0 9D 92 9C); by code unit (D835 < FB00) after.
    const files = ["src/a.ts", "src/ﬀ.ts", "src/𝒜.ts", "z/last.ts"];
    // Written last first: rows read one by one come in rowid order, the two values in the path index's.
    [...files.entries()]
      .reverse()
      .forEach(([i, path]) =>
        store.writeFile(
          { ...meta(path), mtime: 1_700_000_000_000.5 + i, size: 10 + i, ino: 900 + i, ctime: 1_700_000_000_100 + i, statClean: i !== 1, contentHash: String(i).repeat(64) },
          extraction(path, `export const v${i} = ${i};\n`),
        ),
      );
    const rows = store.stampRows();
    const byRows = new Map(rows.map(([id, path, mtime, size, ino, ctime, clean, hash]) => [path, [id, path, mtime, size, ino, ctime, clean === 1, hash]]));
    const stamps = store.fileStamps();
    expect(stamps.size).toBe(4);
    for (const path of [...files].sort()) {
      const s = stamps.get(path)!;
      expect([s.id, s.path, s.mtime, s.size, s.ino, s.ctime, s.statClean, s.contentHash]).toEqual(byRows.get(path));
    }
    expect(stamps.statProves("src/a.ts", Float64Array.of(StatKind.FILE, 10, 1_700_000_000_000.5, 900, 1_700_000_000_100), 0)).toBe(true);
    expect(stamps.statProves("src/a.ts", Float64Array.of(StatKind.FILE, 11, 1_700_000_000_000.5, 900, 1_700_000_000_100), 0)).toBe(false);
    // Not stat-clean: the stat proves nothing, the content decides.
    expect(stamps.statProves("src/ﬀ.ts", Float64Array.of(StatKind.FILE, 11, 1_700_000_000_001.5, 901, 1_700_000_000_101), 0)).toBe(false);
    expect(stamps.statProves("src/b.ts", Float64Array.of(StatKind.FILE, 11, 1, 1, 1), 0)).toBeUndefined();
    expect([...stamps.keys()]).toEqual(files);
    // An empty table: no stamp.
    expect(openStore().fileStamps().size).toBe(0);
  });
});
