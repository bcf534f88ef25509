// The index lifecycle against real files and the real SQLite store: full and incremental runs,
// incremental-equals-full, deterministic builds, deletion, content-hash freshness, the schema
// guard, and every per-file failure (binary, invalid UTF-8, parse, write, vanished) counted.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { measureFreshness } from "../../src/index/freshness.js";
import { indexStatus } from "../../src/index/status.js";
import { pathsStatAsStamped, stampPaths } from "../../src/index/read.js";
import { runIndex, type IndexReport } from "../../src/index/run.js";
import { readIndexJson, readManifest, statePaths } from "../../src/index/state.js";
import { Store } from "../../src/store/store.js";
import { FileStamps, packStamps, packedGeneration } from "../../src/store/file-stamps.js";
import { sha256 } from "../../src/base/hash.js";
import type { Chunk, FileExtraction } from "../../src/syntax/types.js";
import { createToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { BASE_FILES, tempSpace, type TestProject } from "../helpers/project.js";
import { runMast } from "../helpers/cli.js";
import { dumpStore, edgeResolution, edgeType, queryStore } from "../helpers/store-dump.js";
import { EDGE } from "../../src/store/edge-codes.js";

const space = tempSpace();
const project = space.project;

async function index(p: TestProject, mode: "full" | "incremental", stateDir = join(p.root, ".mast")): Promise<IndexReport> {
  return runIndex(p.config({ stateDir }), { mode });
}

function graph(p: TestProject, stateDir = join(p.root, ".mast")): string {
  return statePaths(stateDir).graphDb;
}

/** A read tool's just-in-time refresh of `path` (a server's), through the registry. */
async function refreshJustInTime(p: TestProject, stateDir: string, path: string): Promise<void> {
  const ctx = createToolContext(p.config({ stateDir }), p.root);
  try {
    await callTool(ctx, "mast_exports", { file_path: path });
  } finally {
    ctx.close();
  }
}

/** A fresh full build of the project's current tree in a separate state dir. */
async function freshDump(p: TestProject): Promise<string> {
  const dir = space.dir("mast-fresh-");
  await runIndex(p.config({ stateDir: dir }), { mode: "full" });
  return dumpStore(statePaths(dir).graphDb);
}

describe("full index", () => {
  it("indexes every file and writes the state files", async () => {
    const p = project();
    const report = await index(p, "full");
    expect(report).toMatchObject({ mode: "full", files_walked: 4, files_indexed: 4, parse_errors: 0, write_errors: 0, read_errors: 0, file_count: 4 });
    const paths = statePaths(join(p.root, ".mast"));
    const idx = readIndexJson(paths)!;
    expect(idx.schema_version).toBe("1.27.0");
    expect(idx.file_count).toBe(4);
    expect(idx.chunk_count).toBe(report.chunk_count);
    expect(Object.keys(readManifest(paths))).toEqual(["docs/guide.md", "src/auth.ts", "src/index.ts", "src/repo.ts"]);
    expect(readManifest(paths)["src/repo.ts"]).toBe(statSync(join(p.root, "src/repo.ts")).mtimeMs);
    expect(existsSync(paths.config)).toBe(false); // only init and serve persist the config

    const store = Store.open(paths.graphDb, { readonly: true });
    try {
      const rows = store.db
        .prepare("SELECT c.chunk_type, c.symbol_name, c.start_line, c.end_line, c.is_exported FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'src/auth.ts' ORDER BY c.start_line, c.id")
        .all();
      expect(rows).toEqual([
        { chunk_type: "block", symbol_name: null, start_line: 1, end_line: 1, is_exported: 0 },
        { chunk_type: "class_shell", symbol_name: "AuthService", start_line: 4, end_line: 11, is_exported: 1 },
        { chunk_type: "method", symbol_name: "AuthService.constructor", start_line: 5, end_line: 5, is_exported: 1 },
        { chunk_type: "method", symbol_name: "AuthService.validate", start_line: 8, end_line: 10, is_exported: 1 },
      ]);
      // PARENT_OF edges: class → each method.
      const parentOf = store.db
        .prepare(`SELECT a.name AS parent, b.name AS child FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.edge_type = ${EDGE.PARENT_OF} ORDER BY b.name`)
        .all();
      expect(parentOf).toEqual([
        { parent: "AuthService", child: "AuthService.constructor" },
        { parent: "AuthService", child: "AuthService.validate" },
        { parent: "Repo", child: "Repo.find" },
      ]);
      // Imports resolve `.js` specifiers to the .ts source; `export *` becomes a re_export_files row.
      expect(store.db.prepare("SELECT module, (SELECT path FROM files WHERE id = resolved_file_id) AS resolved_path, kind, is_external FROM imports ORDER BY module").all()).toEqual([
        { module: "./auth.js", resolved_path: "src/auth.ts", kind: "export_star", is_external: 0 },
        { module: "./repo", resolved_path: "src/repo.ts", kind: "export_from", is_external: 0 },
        { module: "./repo.js", resolved_path: "src/repo.ts", kind: "import", is_external: 0 },
      ]);
      expect(store.db.prepare("SELECT a.path AS barrel, b.path AS target FROM re_export_files r JOIN files a ON a.id = r.from_file_id JOIN files b ON b.id = r.to_file_id").all()).toEqual([
        { barrel: "src/index.ts", target: "src/auth.ts" },
      ]);
      // Marker symbol for the aliased re-export.
      expect(store.db.prepare("SELECT name, kind, reexport_module, reexport_name FROM symbols WHERE kind = 'export'").all()).toEqual([
        { name: "Repository", kind: "export", reexport_module: "./repo", reexport_name: "Repo" },
      ]);
      // Both FTS indexes answer real queries.
      const hit = store.db
        .prepare("SELECT c.symbol_name FROM chunk_words t JOIN chunks c ON c.id = t.rowid WHERE chunk_words MATCH ? ORDER BY bm25(chunk_words) LIMIT 1")
        .get('words : "Checks a token"') as { symbol_name: string };
      expect(hit.symbol_name).toBe("AuthService.validate");
      const ident = store.db.prepare("SELECT c.symbol_name FROM identifier_fts t JOIN chunks c ON c.id = t.rowid WHERE identifier_fts MATCH ? ORDER BY c.symbol_name").all("find") as Array<{
        symbol_name: string;
      }>;
      expect(ident.map((r) => r.symbol_name)).toEqual(["AuthService.validate", "Repo", "Repo.find"]);
      // Qualified compounds (docs/extraction.md#identifier-bags): a phrase query for `Repo.find` finds the method's own
      // chunk, the chunk whose call the resolver typed (`this.repo.find()`, repo: Repo) and the
      // class outline (its bag starts `Repo find`).
      const qualified = store.db.prepare("SELECT c.symbol_name FROM identifier_fts t JOIN chunks c ON c.id = t.rowid WHERE identifier_fts MATCH ? ORDER BY c.symbol_name").all('"Repo.find"') as Array<{
        symbol_name: string;
      }>;
      expect(qualified.map((r) => r.symbol_name)).toEqual(["AuthService.validate", "Repo", "Repo.find"]);
      // Markdown: doc chunks, no symbols, no identifiers.
      expect(store.db.prepare("SELECT c.symbol_name, c.chunk_type FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'docs/guide.md' ORDER BY c.start_line").all()).toEqual([
        { symbol_name: "guide.md > Guide", chunk_type: "doc" },
        { symbol_name: "guide.md > Guide > Setup", chunk_type: "doc" },
      ]);
    } finally {
      store.close();
    }
  });

  it("two full builds of one tree are byte-for-byte the same store", async () => {
    const p = project();
    // Files older than the racy window, so both builds trust their stamps alike however slow the machine.
    const past = new Date(Date.now() - 3_600_000);
    for (const path of Object.keys(BASE_FILES)) utimesSync(join(p.root, path), past, past);
    await index(p, "full", join(p.root, "s1"));
    await index(p, "full", join(p.root, "s2"));
    // Each build excludes only its own state dir; the other one holds no indexable files.
    expect(readFileSync(graph(p, join(p.root, "s1")))).toEqual(readFileSync(graph(p, join(p.root, "s2"))));
    // And so are their packed stamps (named by the same files generation).
    expect(readFileSync(statePaths(join(p.root, "s1")).stamps)).toEqual(readFileSync(statePaths(join(p.root, "s2")).stamps));
  });
});

describe("incremental index", () => {
  it("equals a fresh full build after edits, additions, deletions and renames", async () => {
    const p = project();
    await index(p, "full");
    p.write("src/repo.ts", ["export class Repo {", "  find(id: string): string | null {", "    return null;", "  }", "  /** new */", "  all(): string[] { return []; }", "}", ""].join("\n"));
    p.write("src/extra.ts", "export const extra = () => 1;\nexport * from './repo.js';\n");
    p.remove("docs/guide.md");
    p.write("src/auth.ts", BASE_FILES["src/auth.ts"]!.replace("validate", "check"));
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ mode: "incremental", files_indexed: 3, files_unchanged: 1, files_deleted: 1 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("equals a fresh full build with TypeScript, Python and markdown mixed, across edits and a module added later", async () => {
    const p = project({
      "py/pkg/__init__.py": "from .core import run\n",
      "py/pkg/core.py": "class Engine:\n    def start(self) -> None:\n        self.stop()\n\n    def stop(self) -> None:\n        pass\n\n\ndef run(e: Engine) -> None:\n    e.start()\n",
      "py/main.py": "from pkg import run\nfrom pkg.extra import helper\n\nrun(None)\nhelper()\n",
      // A submodule imported by name from its package, the submodule added later.
      "py/use.py": "from pkg import extra\n\nextra.helper()\n",
    });
    await index(p, "full");
    p.write("py/pkg/extra.py", "def helper() -> int:\n    return 1\n");
    p.write(
      "py/pkg/core.py",
      "class Engine:\n    def start(self) -> None:\n        self.stop()\n\n    def stop(self) -> None:\n        print('stopped')\n\n\ndef run(e: Engine) -> None:\n    e.stop()\n",
    );
    p.write("src/index.ts", `${BASE_FILES["src/index.ts"]!}\nexport const more = 1;\n`);
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ mode: "incremental", files_indexed: 3, files_deleted: 0 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    const linked = queryStore(
      graph(p),
      `SELECT f.path, e.call_line AS line, ${edgeResolution("e")} AS resolution FROM edges e JOIN symbols t ON t.id = e.to_id JOIN symbols s ON s.id = e.from_id JOIN files f ON f.id = s.file_id WHERE t.name = 'helper' ORDER BY 1`,
    );
    expect(linked).toEqual([
      { path: "py/main.py", line: 5, resolution: "import" },
      { path: "py/use.py", line: 3, resolution: "import" },
    ]);
  });

  it("equals a fresh full build with files of every parsed language beyond TypeScript and Python, across edits that move names between files", async () => {
    const p = project({
      "go.mod": "module example.com/app\n\ngo 1.21\n",
      "pkg/a.go": "package pkg\n\ntype Store struct{}\n\nfunc F() int { return helper() }\n\nfunc (s *Store) Get() int { return 1 }\n",
      "pkg/b.go": "package pkg\n\nfunc helper() int { return 2 }\n\ntype Getter interface {\n\tGet() int\n\tPut(int)\n}\n",
      "cmd/main.go": 'package main\n\nimport "example.com/app/pkg"\n\nfunc main() { pkg.F(); s := &pkg.Store{}; s.Get() }\n',
      "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n',
      "src/lib.rs": "mod util;\n\npub fn f() -> i32 { util::g() }\n",
      "src/util.rs": "pub fn g() -> i32 { 1 }\n",
      "c/util.h": "int add(int a, int b);\n",
      "c/main.c": '#include "util.h"\n\nint main(void) { return add(1, 2) + twice(3); }\n',
      "java/com/x/Util.java": "package com.x;\n\npublic class Util {\n  public static int one() { return 1; }\n}\n",
      "java/com/x/App.java": "package com.x;\n\nimport com.x.Util;\n\npublic class App {\n  int go() { return Util.one() + two(); }\n  int two() { return 2; }\n}\n",
      "cpp/shape.hpp": "struct Shape {\n  int area();\n};\n",
      "cpp/shape.cpp": '#include "shape.hpp"\n\nint Shape::area() { return side(); }\n',
      "cs/Svc.cs": "public class Svc {\n  public int Run() { return Helper(); }\n  int Helper() { return 1; }\n}\n",
      "rb/lib/greet.rb": "def greet(name)\n  name\nend\n",
      "rb/main.rb": 'require_relative "lib/greet"\n\ndef run\n  greet("x")\nend\n',
      "php/util.php": "<?php\nfunction shout($s) { return $s; }\n",
      "php/main.php": "<?php\nrequire_once __DIR__ . '/util.php';\nfunction main() { return shout('x') . whisper('y'); }\n",
    });
    await index(p, "full");
    // helper moves to a new file of the package; Store gains Put (now implementing Getter by method set).
    p.write("pkg/b.go", "package pkg\n\ntype Getter interface {\n\tGet() int\n\tPut(int)\n}\n");
    p.write("pkg/c.go", "package pkg\n\nfunc helper() int { return 3 }\n\nfunc (s *Store) Put(v int) {}\n");
    p.write("src/util.rs", "pub fn g() -> i32 { h() }\n\npub fn h() -> i32 { 2 }\n");
    p.write("c/util.h", "int add(int a, int b);\nint twice(int v);\n");
    // A name added in another file of every other language: the callers' edges appear without re-parsing them.
    p.write("cpp/shape.hpp", "struct Shape {\n  int area();\n  int side() { return 1; }\n};\n");
    p.write("php/util.php", "<?php\nfunction shout($s) { return $s; }\nfunction whisper($s) { return $s; }\n");
    p.write("java/com/x/Util.java", "package com.x;\n\npublic class Util {\n  public static int one() { return 11; }\n}\n");
    p.write("rb/lib/greet.rb", "def greet(name)\n  name * 2\nend\n");
    p.write("cs/Svc.cs", "public class Svc {\n  public int Run() { return Helper() + Other(); }\n  int Helper() { return 1; }\n  int Other() { return 2; }\n}\n");
    await index(p, "incremental");
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    const edges = queryStore(
      graph(p),
      `SELECT a.name AS source, b.name AS target, ${edgeType("e")} AS type FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.edge_type IN (${EDGE.POTENTIAL_CALL}, ${EDGE.IMPLEMENTS}) ORDER BY 1, 2`,
    );
    expect(edges).toEqual([
      { source: "App.go", target: "App.two", type: "POTENTIAL_CALL" },
      { source: "App.go", target: "Util.one", type: "POTENTIAL_CALL" },
      { source: "F", target: "helper", type: "POTENTIAL_CALL" },
      { source: "Shape.area", target: "Shape.side", type: "POTENTIAL_CALL" },
      { source: "Store", target: "Getter", type: "IMPLEMENTS" },
      { source: "Svc.Run", target: "Svc.Helper", type: "POTENTIAL_CALL" },
      { source: "Svc.Run", target: "Svc.Other", type: "POTENTIAL_CALL" },
      { source: "f", target: "g", type: "POTENTIAL_CALL" },
      { source: "g", target: "h", type: "POTENTIAL_CALL" },
      { source: "main", target: "F", type: "POTENTIAL_CALL" },
      { source: "main", target: "Store.Get", type: "POTENTIAL_CALL" },
      { source: "main", target: "add", type: "POTENTIAL_CALL" },
      { source: "main", target: "shout", type: "POTENTIAL_CALL" },
      { source: "main", target: "twice", type: "POTENTIAL_CALL" },
      { source: "main", target: "whisper", type: "POTENTIAL_CALL" },
      { source: "run", target: "greet", type: "POTENTIAL_CALL" },
    ]);
  });

  it("a rewrite keeps the symbol ids of what the file still declares: a body edit relinks that file alone (CLI run and a server's refresh), a changed return type or a renamed declaration every file reaching it", async () => {
    const a = (body: string, ret = "number", comment = "") =>
      `${comment}export function helper(n: number): ${ret} {\n  return ${body};\n}\n\nexport class Box {\n  open(): number {\n    return helper(1) as number;\n  }\n}\n`;
    const p = project({
      "src/a.ts": a("n + 1"),
      "src/b.ts": "import { helper, Box } from './a';\nexport function run(): number {\n  return helper(2) + new Box().open();\n}\n",
      "src/c.ts": "import { run } from './b';\nexport const value = run();\n",
    });
    expect((await index(p, "full")).files_linked).toBe(3);
    const ids = () => queryStore(graph(p), "SELECT s.name, s.id, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = 'src/a.ts' ORDER BY s.id");
    const before = ids();
    // The body and a comment above it: the lines move, no declaration reads otherwise.
    p.write("src/a.ts", a("n * 2 + 1", "number", "// the helper\n// of the box\n"));
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 1 });
    expect(ids()).toEqual(before.map((s) => ({ ...s, line: s.line + 2 })));
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // The same through a server's just-in-time refresh.
    p.write("src/a.ts", a("n * 3", "number", "// the helper\n"));
    await refreshJustInTime(p, join(p.root, ".mast"), "src/a.ts");
    expect(ids().map((s) => s.id)).toEqual(before.map((s) => s.id));
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // What a caller reads changed — a return type, a name: every file reaching it (a name can reach
    // a file that never writes it: through a re-export's alias, a return type, an embedded type).
    p.write("src/a.ts", a("String(n)", "string"));
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 3 });
    expect(ids().map((s) => s.id)).toEqual(before.map((s) => s.id));
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    p.write("src/a.ts", a("n + 1").replace("export class Box", "export class Crate"));
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 3 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // Two declarations trade places: each is still its name's only one.
    p.write("src/a.ts", "export class Crate {\n  open(): number {\n    return helper(1);\n  }\n}\n\nexport function helper(n: number): number {\n  return n + 1;\n}\n");
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 1 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // A second declaration of a name, before the first: the files naming it resolve to it now.
    p.write(
      "src/a.ts",
      "export function helper(n: number): number {\n  return n;\n}\nexport class Crate {\n  open(): number {\n    return helper(1);\n  }\n}\n\nexport function helper(n: number): number {\n  return n + 1;\n}\n",
    );
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 3 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("a declaration turned into an alias of another reaches the files that import it through a re-export's alias (they never write its name)", async () => {
    const p = project({
      "src/x.ts": "export function a() { return 1; }\n",
      "src/barrel.ts": "export { a as b } from './x';\n",
      "src/g.ts": "import { b } from './barrel';\nexport function run() { return b(); }\n",
    });
    await index(p, "full");
    p.write("src/x.ts", "function impl() { return 1; }\nexport { impl as a };\n");
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 3 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("Go: a declaration added that no file writes relinks its own file (unexported, or in a test file); a struct's field type its writers, an embedding type's among them (as a fresh build links them)", async () => {
    const p = project({
      "go.mod": "module example.com/app\n\ngo 1.21\n",
      "a/t.go": "package a\n\ntype A struct{}\n\nfunc (A) M() {}\n\ntype B struct{}\n\nfunc (B) M() {}\n\ntype T struct{ F A }\n\nfunc NewT() T { return T{} }\n\nfunc helper() int { return 1 }\n",
      "a/u.go": "package a\n\nfunc Use() int { return helper() }\n",
      "a/t_test.go": "package a\n\nfunc fixture() int { return helper() }\n",
      "a/iface.go": "package a\n\ntype I interface{ M() }\n",
      "b/b.go": 'package b\n\nimport "example.com/app/a"\n\ntype S struct{ a.T }\n\nfunc Run() { a.NewT().F.M() }\n',
      "c/c.go": 'package c\n\nimport "example.com/app/b"\n\nfunc Go() { b.Run() }\n',
    });
    await index(p, "full");
    // An unexported function added: no file writes it.
    p.write(
      "a/t.go",
      "package a\n\ntype A struct{}\n\nfunc (A) M() {}\n\ntype B struct{}\n\nfunc (B) M() {}\n\ntype T struct{ F A }\n\nfunc NewT() T { return T{} }\n\nfunc helper() int { return 1 }\n\nfunc other() int { return 2 }\n",
    );
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 1 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // A test file's function: no file writes it either.
    p.write("a/t_test.go", "package a\n\nfunc fixture() int { return helper() }\n\nfunc Fixture2() int { return other() }\n");
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 1 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // A field's type changes (T's declaration, exported): b's chain `a.NewT().F.M()` now means B.M
    // (b writes T: its embedded type; NewT's face writes it too, and b writes NewT). c writes neither.
    p.write(
      "a/t.go",
      "package a\n\ntype A struct{}\n\nfunc (A) M() {}\n\ntype B struct{}\n\nfunc (B) M() {}\n\ntype T struct{ F B }\n\nfunc NewT() T { return T{} }\n\nfunc helper() int { return 1 }\n\nfunc other() int { return 2 }\n",
    );
    expect((await index(p, "incremental")).files_linked).toBe(2);
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("Go: a change to exported names relinks the files writing them, and those writing a name whose face writes one (a return type, an embedded type's method set), as a fresh build links them", async () => {
    const t = (extra = "", ret = "T") => `package a\n\ntype A struct{}\n\nfunc (A) M() {}\n\ntype T struct{ F A }\n\nfunc (T) Open() {}\n\nfunc NewT() ${ret} { return ${ret}{} }\n${extra}`;
    const p = project({
      "go.mod": "module example.com/app\n\ngo 1.21\n",
      "a/t.go": t(),
      "a/u.go": "package a\n\nfunc Use() { NewT().Open() }\n",
      "b/b.go": 'package b\n\nimport "example.com/app/a"\n\ntype S struct{ a.T }\n\nfunc Make() a.T { return a.NewT() }\n\nfunc Other() int { return 1 }\n',
      "c/c.go": 'package c\n\nimport "example.com/app/b"\n\ntype Closer interface{ Close() }\n\nfunc Go() { b.Make().Close() }\n\nfunc Other() { b.Other() }\n',
      "d/d.go": 'package d\n\nimport "example.com/app/a"\n\nfunc Plain() { a.NewT() }\n',
      "e/e.go": 'package e\n\nimport "example.com/app/c"\n\nfunc Far() { c.Other() }\n',
    });
    await index(p, "full");
    // An exported function appended that no file calls yet: its own file alone.
    p.write("a/t.go", t("\nfunc Extra() int { return 1 }\n"));
    expect((await index(p, "incremental")).files_linked).toBe(1);
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // T gains Close: c's `b.Make().Close()` resolves through Make's return type (c never writes T),
    // T implements c's Closer, and S's method set moved with T's (b's heritage writes T: its
    // interfaces are derived again); d and e write no moved name.
    p.write("a/t.go", t("\nfunc Extra() int { return 1 }\n\nfunc (T) Close() {}\n"));
    expect((await index(p, "incremental")).files_linked).toBe(3);
    expect(
      queryStore(
        graph(p),
        `SELECT a.name AS source, b.name AS target FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.edge_type = ${EDGE.IMPLEMENTS} ORDER BY 1, 2`,
      ),
    ).toEqual([{ source: "T", target: "Closer" }]);
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // NewT returns A now: the files writing it (a/u.go, b, d); Make's face (it returns a.T) held: not c.
    p.write("a/t.go", t("\nfunc Extra() int { return 1 }\n\nfunc (T) Close() {}\n", "A"));
    expect((await index(p, "incremental")).files_linked).toBe(4);
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("Go: a type's method set or fields reach the files that get a value of it through another package, its package mates, an accessor of its name, or an unexported type's exported producer; an interface embedded by one outside the scope keeps its declared IMPLEMENTS edge (as a fresh build links them)", async () => {
    const mod = { "go.mod": "module example.com/app\n\ngo 1.21\n" };
    const two = "type A struct{}\n\nfunc (A) M() {}\n\ntype B struct{}\n\nfunc (B) M() {}\n";
    const cases: Array<{ files: Record<string, string>; edit: [string, string] }> = [
      {
        // d imports b only; b's Make returns c's C: a method added to C is d's `.M()`.
        files: {
          "c/c.go": "package c\n\ntype C struct{ X int }\n\nfunc (C) N() {}\n",
          "b/b1.go": 'package b\n\nimport "example.com/app/c"\n\nfunc Make() c.C { return c.C{} }\n',
          "b/b2.go": "package b\n\nfunc Near() { Make().M() }\n",
          "d/d.go": 'package d\n\nimport "example.com/app/b"\n\nfunc Go() { b.Make().M() }\n',
        },
        edit: ["c/c.go", "package c\n\ntype C struct{ X int }\n\nfunc (C) N() {}\n\nfunc (C) M() {}\n"],
      },
      {
        // An accessor named as the type it returns: `s.Config().F.M()` follows Config's field type.
        files: {
          "config/config.go": `package config\n\n${two}\ntype Config struct{ F A }\n`,
          "srv/srv.go": 'package srv\n\nimport "example.com/app/config"\n\ntype Server struct{}\n\nfunc (Server) Config() config.Config { return config.Config{} }\n',
          "d/d.go": 'package d\n\nimport "example.com/app/srv"\n\nfunc Go(s srv.Server) { s.Config().F.M() }\n',
        },
        edit: ["config/config.go", `package config\n\n${two}\ntype Config struct{ F B }\n`],
      },
      {
        // An unexported type's fields, reached through its exported producer.
        files: {
          "a/a.go": `package a\n\n${two}\ntype t struct{ F A }\n\nfunc NewT() *t { return &t{} }\n`,
          "d/d.go": 'package d\n\nimport "example.com/app/a"\n\nfunc Go() { a.NewT().F.M() }\n',
        },
        edit: ["a/a.go", `package a\n\n${two}\ntype t struct{ F B }\n\nfunc NewT() *t { return &t{} }\n`],
      },
    ];
    // An interface embedding two (the second a declared IMPLEMENTS edge): the embedded one's file relinked
    // alone (a function no file writes appended) derives the edge into it again.
    cases.push({
      files: {
        "s/append.go": "package s\n\ntype Appendable interface{ Appender() int }\n",
        "s/storage.go": "package s\n\ntype Queryable interface{ Querier() int }\n\ntype Storage interface {\n\tQueryable\n\tAppendable\n\tClose()\n}\n",
      },
      edit: ["s/append.go", "package s\n\ntype Appendable interface{ Appender() int }\n\nfunc Extra() {}\n"],
    });
    // A struct whose block comment holds a backtick: its field types are still its face (T removed:
    // r's `s.F.M()` no longer resolves).
    cases.push({
      files: {
        "p/t.go": "package p\n\ntype T struct{}\n",
        "p/m.go": "package p\n\nfunc (T) M() {}\n",
        "q/q.go": 'package q\n\nimport "example.com/app/p"\n\ntype S struct {\n\t/* the ` char */\n\tF p.T\n\tG int `json:"g"`\n}\n',
        "r/r.go": 'package r\n\nimport "example.com/app/q"\n\nfunc G(s q.S) { s.F.M() }\n',
      },
      edit: ["p/t.go", "package p\n"],
    });
    // An import alias with a non-ASCII letter beside one that ends like it: `äp.J` is p's J.
    cases.push({
      files: {
        "p/p.go": "package p\n\ntype J interface{ N() }\n",
        "x/x.go": "package x\n\nfunc X() {}\n",
        "q/q.go": 'package q\n\nimport (\n\tp "example.com/app/x"\n\täp "example.com/app/p"\n)\n\ntype I interface{ äp.J }\n\nfunc Q() { p.X() }\n',
        "r/r.go": 'package r\n\nimport "example.com/app/q"\n\nfunc G(i q.I) { i.M() }\n\ntype Z struct{}\n\nfunc (Z) N() {}\n',
      },
      edit: ["p/p.go", "package p\n\ntype J interface {\n\tN()\n\tM()\n}\n"],
    });
    // The first case again, with an import added to c.go (its rows written anew: every file reaching it).
    cases.push({ ...cases[0]!, edit: ["c/c.go", 'package c\n\nimport "fmt"\n\ntype C struct{ X int }\n\nfunc (C) N() { fmt.Println() }\n\nfunc (C) M() {}\n'] });
    for (const { files, edit } of cases) {
      const p = project({ ...mod, ...files });
      await index(p, "full");
      p.write(edit[0], edit[1]);
      await index(p, "incremental");
      expect(dumpStore(graph(p)), edit[0]).toEqual(await freshDump(p));
    }
  });

  it("Go: an edit, an added or a removed file relinks its package and importers, not every Go file; IMPLEMENTS by method set follows an interface or a type edited on either side", async () => {
    const others = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`other${i}/o.go`, `package other${i}\n\nfunc Work${i}() int { return ${i} }\n`]));
    const p = project({
      "go.mod": "module example.com/app\n\ngo 1.21\n",
      "iface/iface.go": "package iface\n\ntype Reader interface {\n\tRead() int\n}\n",
      "impl/file.go": "package impl\n\ntype File struct{}\n\nfunc (f *File) Read() int { return 1 }\n",
      "impl/pipe.go": "package impl\n\ntype Pipe struct{}\n\nfunc (p *Pipe) Read() int { return 2 }\nfunc (p *Pipe) Close() {}\n",
      ...others,
    });
    const implementors = () =>
      queryStore(
        graph(p),
        `SELECT a.name AS source, b.name AS target FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.edge_type = ${EDGE.IMPLEMENTS} ORDER BY 1, 2`,
      );
    expect((await index(p, "full")).files_linked).toBe(23);
    expect(implementors()).toEqual([
      { source: "File", target: "Reader" },
      { source: "Pipe", target: "Reader" },
    ]);
    // A body edit in one package: that package's one file is relinked, not the 22 others.
    p.write("other3/o.go", "package other3\n\nfunc Work3() int { return 33 }\n");
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 1 });
    // The interface gains a method: File no longer implements it (its file is not relinked), Pipe does.
    p.write("iface/iface.go", "package iface\n\ntype Reader interface {\n\tRead() int\n\tClose()\n}\n");
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 1 });
    expect(implementors()).toEqual([{ source: "Pipe", target: "Reader" }]);
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // A type gains the method: it implements the (unchanged, unrelinked) interface again.
    p.write("impl/file.go", "package impl\n\ntype File struct{}\n\nfunc (f *File) Read() int { return 1 }\nfunc (f *File) Close() {}\n");
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 1 });
    expect(implementors()).toEqual([
      { source: "File", target: "Reader" },
      { source: "Pipe", target: "Reader" },
    ]);
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // A file added to a package relinks that package (its method can complete a type's set), not every Go file.
    p.write("impl/close.go", "package impl\n\nfunc (f *File) Flush() {}\n");
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1, files_linked: 3 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    // A file removed: its package mates, whose method sets it took from (Pipe loses Close, and Reader).
    p.remove("impl/close.go");
    p.write("impl/pipe.go", "package impl\n\ntype Pipe struct{}\n\nfunc (p *Pipe) Read() int { return 2 }\n");
    p.write("impl/pclose.go", "package impl\n\nfunc (p *Pipe) Close() {}\n");
    await index(p, "incremental");
    expect(implementors()).toEqual([
      { source: "File", target: "Reader" },
      { source: "Pipe", target: "Reader" },
    ]);
    p.remove("impl/pclose.go");
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 0, files_linked: 2 });
    expect(implementors()).toEqual([{ source: "File", target: "Reader" }]);
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("links an import to a file added later without re-parsing the importer", async () => {
    const p = project({ "a.ts": "export * from './b';\nimport { b } from './b';\n" });
    await index(p, "full");
    p.write("b.ts", "export const b = 1;\n");
    const report = await index(p, "incremental");
    expect(report.files_indexed).toBe(1);
    const store = Store.open(graph(p), { readonly: true });
    try {
      expect(store.db.prepare("SELECT (SELECT path FROM files WHERE id = resolved_file_id) AS resolved_path FROM imports ORDER BY line").pluck().all()).toEqual(["b.ts", "b.ts"]);
      expect((store.db.prepare("SELECT count(*) AS n FROM re_export_files").get() as { n: number }).n).toBe(1);
    } finally {
      store.close();
    }
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("unlinks imports of a file that turned binary", async () => {
    const p = project({ "a.ts": "import { b } from './b';\nexport * from './b';\n", "b.ts": "export const b = 1;\n" });
    await index(p, "full");
    p.write("b.ts", Buffer.from("export const b = 1;\0"));
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ skipped_binary: 1, file_count: 1 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("a run that fails after writing its rows commits none of them, and the next run completes", async () => {
    const p = project({ "a.ts": "import { b } from './b';\nexport function a() { return b(); }\n", "b.ts": "export function b() { return 1; }\n" });
    await index(p, "full");
    const before = dumpStore(graph(p));
    // A failure in the derived pass, after every row of the run was written: a new path (c.ts)
    // and a rewritten file (a.ts now calls c).
    p.write("c.ts", "export function c() { return 2; }\n");
    p.write("a.ts", "import { b } from './b';\nimport { c } from './c';\nexport function a() { return b() + c(); }\n");
    const store = Store.open(graph(p));
    store.db.exec(`CREATE TRIGGER fail_edges BEFORE INSERT ON edges WHEN NEW.edge_type = ${EDGE.POTENTIAL_CALL} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    store.close();
    await expect(index(p, "incremental")).rejects.toMatchObject({ code: "WRITE_FAILED" });
    expect(dumpStore(graph(p))).toEqual(before);
    const fixed = Store.open(graph(p));
    fixed.db.exec("DROP TRIGGER fail_edges");
    fixed.close();
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ files_indexed: 2, files_unchanged: 1 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("re-parses a file whose content changed even when size and mtime did not, when it was indexed within the racy window", async () => {
    // a.ts was written just before the run: its stamp is not trusted, so every check hashes it.
    const p = project({ "a.ts": "export const a = 1;\n" });
    await index(p, "full");
    const abs = join(p.root, "a.ts");
    const { mtime } = statSync(abs);
    writeFileSync(abs, "export const b = 2;\n");
    utimesSync(abs, mtime, mtime);
    const report = await index(p, "incremental");
    expect(report.files_indexed).toBe(1);
    const store = Store.open(graph(p), { readonly: true });
    try {
      expect(store.db.prepare("SELECT name FROM symbols").pluck().all()).toEqual(["b"]);
    } finally {
      store.close();
    }
  });

  it("rewriting the file that holds the newest chunks, run after run, keeps both FTS indexes whole (chunk ids are never reused)", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "z.ts": "export function z1() { return 1; }\n" });
    await index(p, "full");
    for (let i = 2; i <= 4; i++) {
      p.write("z.ts", `export function z${i}() { return ${i}; }\n`);
      expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1 });
      expect(JSON.parse(dumpStore(graph(p))).integrity).toEqual({ chunk_words: "ok", identifier_fts: "ok" });
    }
    expect(queryStore(graph(p), "SELECT c.symbol_name FROM chunk_words t JOIN chunks c ON c.id = t.rowid WHERE chunk_words MATCH 'z4 OR z3'")).toEqual([{ symbol_name: "z4" }]);
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("stat first: a trusted stamp the stat still matches is not read; another inode, size, mtime or ctime is read and hashed", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 1;\n", "c.ts": "export const c = 1;\n" });
    const past = new Date(Date.now() - 3_600_000);
    for (const f of ["a.ts", "b.ts", "c.ts"]) utimesSync(join(p.root, f), past, past);
    await index(p, "full");
    expect(queryStore(graph(p), "SELECT path, stat_clean FROM files ORDER BY path")).toEqual([
      { path: "a.ts", stat_clean: 1 },
      { path: "b.ts", stat_clean: 1 },
      { path: "c.ts", stat_clean: 1 },
    ]);
    // Same size, same mtime, same inode — but the rewrite moved the ctime, which git stamps too:
    // read, hashed, re-parsed (before ctime was stamped, this rewrite went unseen).
    writeFileSync(join(p.root, "a.ts"), "export const A = 1;\n");
    utimesSync(join(p.root, "a.ts"), past, past);
    // Another inode (replaced by a rename), same size and mtime: read, hashed, re-parsed.
    writeFileSync(join(p.root, "b.new"), "export const B = 1;\n");
    utimesSync(join(p.root, "b.new"), past, past);
    renameSync(join(p.root, "b.new"), join(p.root, "b.ts"));
    // Another mtime, same bytes: read, hashed, unchanged, re-stamped.
    const later = new Date(past.getTime() + 1_000);
    utimesSync(join(p.root, "c.ts"), later, later);
    expect(await measureFreshness(p.config())).toMatchObject({ stale_files: 2, changed: 2 });
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ files_indexed: 2, files_unchanged: 1 });
    expect(queryStore(graph(p), "SELECT name FROM symbols ORDER BY name").map((r) => r.name)).toEqual(["A", "B", "c"]);
    // Nothing moved since: every stamp is proved by the stat alone.
    expect(await measureFreshness(p.config())).toMatchObject({ stale_files: 0 });
    expect(queryStore(graph(p), "SELECT mtime FROM files WHERE path = 'c.ts'")).toEqual([{ mtime: statSync(join(p.root, "c.ts")).mtimeMs }]);
  });

  it("does not re-parse a file that was only touched, but records its new mtime", async () => {
    const p = project({ "a.ts": "export const a = 1;\n" });
    await index(p, "full");
    const abs = join(p.root, "a.ts");
    const later = new Date(Date.now() + 60_000);
    utimesSync(abs, later, later);
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ files_indexed: 0, files_unchanged: 1 });
    expect(readManifest(statePaths(join(p.root, ".mast")))["a.ts"]).toBe(statSync(abs).mtimeMs);
  });

  it("a no-change run touches nothing", async () => {
    const p = project();
    const full = await index(p, "full");
    // The full run parsed (its phases say where the time went); the no-change run parsed and wrote nothing.
    expect(full.phases_ms.parse).toBeGreaterThan(0);
    expect(full.phases_ms.extract).toBeGreaterThan(0);
    const before = dumpStore(graph(p));
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ files_indexed: 0, files_unchanged: 4, files_deleted: 0 });
    expect(report.phases_ms).toMatchObject({ read: 0, parse: 0, extract: 0, parse_wait: 0, write: 0 });
    const { read: _r, parse: _p, extract: _e, ...mainThread } = report.phases_ms;
    expect(Object.values(mainThread).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(report.duration_ms + 1);
    expect(dumpStore(graph(p))).toBe(before);
  });

  it("a first build writes its rows without the secondary indexes and builds them before its link: the store ends with the schema's own", async () => {
    const p = project();
    const indexesOf = (path: string) => {
      const store = Store.open(path, { readonly: true });
      try {
        return store.db.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all();
      } finally {
        store.close();
      }
    };
    const empty = join(space.dir(), "schema-only.db");
    Store.open(empty).close();
    const first = await index(p, "full");
    expect(first.files_indexed).toBe(4);
    expect(indexesOf(graph(p))).toEqual(indexesOf(empty));
    expect(indexesOf(graph(p)).filter((i) => ["chunks", "symbols", "imports"].includes((i as { tbl_name: string }).tbl_name))).toHaveLength(10);
    // Over a store that holds files, a full run keeps them (its deletes find rows by them).
    const again = await index(p, "full");
    expect([again.files_indexed, again.phases_ms.indexes]).toEqual([4, 0]);
    expect(indexesOf(graph(p))).toEqual(indexesOf(empty));
  });

  it("a graph.db whose files table is corrupt, found when a stat cannot prove a file and its hash is read: status says corrupt, not an internal error", async () => {
    const p = project();
    // Just written: within the racy window, so no stat proves these files and each one's content hash is read.
    await index(p, "full");
    const db = graph(p);
    const store = Store.open(db, { readonly: true });
    const pages = store.db.prepare("SELECT pageno FROM dbstat WHERE name = 'files' AND pagetype = 'leaf'").pluck().all() as number[];
    const pageSize = store.db.pragma("page_size", { simple: true }) as number;
    store.close();
    expect(pages.length).toBeGreaterThan(0);
    const fd = openSync(db, "r+");
    for (const page of pages) writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (page - 1) * pageSize);
    closeSync(fd);
    expect(await measureFreshness(p.config())).toMatchObject({ unreadable: true, stale_files: 4, unindexed: 4 });
    expect(await indexStatus(p.config())).toMatchObject({ index_fresh: false, freshness_cause: "corrupt" });
  });

  it("drops files that become excluded", async () => {
    const p = project();
    await index(p, "full");
    p.write("mast.config.json", JSON.stringify({ exclude_patterns: ["docs/**"] }));
    const report = await index(p, "incremental");
    expect(report.files_deleted).toBe(1);
    expect(Object.keys(readManifest(statePaths(join(p.root, ".mast"))))).not.toContain("docs/guide.md");
  });
});

describe("extraction settings", () => {
  it("a changed setting makes an incremental run re-extract everything, like a full one", async () => {
    const p = project();
    await index(p, "full");
    p.write("mast.config.json", JSON.stringify({ context_lines: 0 }));
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ mode: "full", files_indexed: 4 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
    const again = await index(p, "incremental");
    expect(again).toMatchObject({ mode: "incremental", files_indexed: 0 });
  });
});

describe("event loop", () => {
  it("an inline run gives timers a turn between files (the lock refresh, Ctrl-C)", async () => {
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.ts`, `export function f${i}() { return ${i}; }\n`.repeat(400)]));
    const p = project(files);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    let ticksAtEnd = -1;
    try {
      await runIndex(p.config(), {
        mode: "full",
        threads: 0,
        onProgress: ({ done, total }) => {
          if (done === total) ticksAtEnd = ticks;
        },
      });
    } finally {
      clearInterval(timer);
    }
    expect(ticksAtEnd).toBeGreaterThan(3);
  });
});

describe("schema guard", () => {
  it("wipes derived state and runs a full index when the schema version differs", async () => {
    const p = project();
    await index(p, "full");
    const paths = statePaths(join(p.root, ".mast"));
    const idx = JSON.parse(readFileSync(paths.indexJson, "utf8"));
    writeFileSync(paths.indexJson, JSON.stringify({ ...idx, schema_version: "0.9.0" }));
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ mode: "full", schema_reset: true, files_indexed: 4 });
    expect(readIndexJson(paths)!.schema_version).toBe("1.27.0");
  });

  it("wipes a graph.db whose own schema version differs", async () => {
    const p = project();
    await index(p, "full");
    const store = Store.open(graph(p));
    store.setMeta("schema_version", "1.0.0");
    store.close();
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ mode: "full", schema_reset: true, files_indexed: 4 });
  });
});

describe("freshness", () => {
  it("an indexed file that turned binary is stale until the next run drops it", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 1;\n" });
    await index(p, "full");
    p.write("a.ts", Buffer.from("export const a = 1;\0"));
    expect(await measureFreshness(p.config())).toMatchObject({ stale_files: 1, changed: 1, unindexed: 0, vanished: 0 });
    await index(p, "incremental");
    expect(await measureFreshness(p.config())).toMatchObject({ stale_files: 0 });
  });
});

describe("a no-op incremental run", () => {
  it("writes nothing, though a file of an indexed extension is binary on every run (it adds no path, so nothing is relinked)", async () => {
    const p = project({ ...BASE_FILES, "src/blob.ts": Buffer.from([0x00, 0x01, 0x02, 0x00, 0x7f]) });
    expect(await index(p, "full")).toMatchObject({ skipped_binary: 1 });
    const stat = () => {
      const st = statSync(graph(p));
      return `${st.size}:${st.mtimeMs}`;
    };
    const before = stat();
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 0, skipped_binary: 1 });
    expect(stat()).toBe(before);
  });

  it("leaves file_manifest.json as it is; a run that writes a file row, a manifest deleted or edited, or a refresh in between writes it again", async () => {
    const p = project({ ...BASE_FILES, "src/extra.ts": "export const b = 20;\n" });
    const paths = statePaths(join(p.root, ".mast"));
    await index(p, "full");
    const stat = () => {
      const st = statSync(paths.manifest);
      return `${st.ino}:${st.mtimeMs}`;
    };
    const mtimeOf = (rel: string) => statSync(join(p.root, rel)).mtimeMs;
    const written = stat();
    await index(p, "incremental");
    expect(stat()).toBe(written);
    // A changed file: its new mtime is in the manifest, the one value docs/state-dir.md#the-state-directory keeps per path.
    p.write("src/extra.ts", "export const b = 21;\n");
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1 });
    const changed = mtimeOf("src/extra.ts");
    expect(readManifest(paths)["src/extra.ts"]).toBe(changed);
    expect(Object.keys(readManifest(paths)).sort()).toEqual([...Object.keys(BASE_FILES), "src/extra.ts"].sort());
    // Gone, or edited by hand (same size): written again from the stamps.
    rmSync(paths.manifest);
    await index(p, "incremental");
    expect(readManifest(paths)["src/extra.ts"]).toBe(changed);
    const text = readFileSync(paths.manifest, "utf8");
    const edited = text.replace(`"src/extra.ts":${changed}`, `"src/extra.ts":${changed + 1000}`);
    expect(edited).not.toBe(text);
    writeFileSync(paths.manifest, edited);
    await index(p, "incremental");
    expect(readFileSync(paths.manifest, "utf8")).toBe(text);
    // A just-in-time refresh (a server's) writes rows but not the manifest: the next run does.
    p.write("src/extra.ts", "export const b = 22;\n");
    await refreshJustInTime(p, paths.dir, "src/extra.ts");
    expect(readManifest(paths)["src/extra.ts"]).toBe(changed);
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 0 });
    expect(readManifest(paths)["src/extra.ts"]).toBe(mtimeOf("src/extra.ts"));
  });

  it("reads file-stamps.bin only while it names graph.db's files generation: not after a refresh's commit, nor for a graph.db rebuilt at the same files version", async () => {
    const p = project({ ...BASE_FILES, "src/extra.ts": "export const b = 20;\n" });
    const paths = statePaths(join(p.root, ".mast"));
    await index(p, "full");
    const generation = () => {
      const store = Store.open(paths.graphDb, { readonly: true });
      try {
        return { version: store.filesVersion(), generation: store.filesGeneration()!, rows: store.stampRows().sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0)) };
      } finally {
        store.close();
      }
    };
    const first = generation();
    expect(packedGeneration(readFileSync(paths.stamps))).toBe(first.generation);
    expect(FileStamps.fromPacked(readFileSync(paths.stamps), first.generation, () => "")!.size).toBe(first.rows.length);
    // A copy naming the generation is what status reads: one without src/extra.ts makes it unindexed.
    const without = packStamps(
      first.rows.filter(([, path]) => path !== "src/extra.ts"),
      first.generation,
    );
    writeFileSync(paths.stamps, without);
    expect(await measureFreshness(p.config())).toMatchObject({ stale_files: 1, unindexed: 1, examples: { unindexed: ["src/extra.ts"] } });
    // Naming another generation, it is not read.
    writeFileSync(
      paths.stamps,
      packStamps(
        first.rows.filter(([, path]) => path !== "src/extra.ts"),
        "0123456789abcdef",
      ),
    );
    expect(await measureFreshness(p.config())).toMatchObject({ stale_files: 0 });
    // A run that writes a file row writes it again; a no-op run leaves it.
    p.write("src/extra.ts", "export const b = 21;\n");
    expect(await index(p, "incremental")).toMatchObject({ files_indexed: 1 });
    const second = generation();
    expect(second.generation).not.toBe(first.generation);
    expect(packedGeneration(readFileSync(paths.stamps))).toBe(second.generation);
    const written = statSync(paths.stamps).mtimeMs;
    await index(p, "incremental");
    expect(statSync(paths.stamps).mtimeMs).toBe(written);
    // A just-in-time refresh (a server's) commits rows but writes no copy: the copy is passed over.
    writeFileSync(
      paths.stamps,
      packStamps(
        second.rows.filter(([, path]) => path !== "src/extra.ts"),
        second.generation,
      ),
    );
    p.write("src/extra.ts", "export const b = 22;\n");
    await refreshJustInTime(p, paths.dir, "src/extra.ts");
    expect(generation().generation).not.toBe(second.generation);
    expect(await measureFreshness(p.config())).toMatchObject({ stale_files: 0 });
    // graph.db deleted by hand and rebuilt: the same files version, another generation.
    await index(p, "incremental");
    const before = generation();
    const copy = readFileSync(paths.stamps);
    for (const f of [paths.graphDb, `${paths.graphDb}-wal`, `${paths.graphDb}-shm`]) rmSync(f, { force: true });
    p.write("src/extra.ts", "export const b = 23;\n");
    await index(p, "incremental");
    const rebuilt = generation();
    expect(rebuilt.version).toBe(1);
    expect(rebuilt.generation).not.toBe(before.generation);
    expect(packedGeneration(readFileSync(paths.stamps))).toBe(rebuilt.generation);
    writeFileSync(paths.stamps, copy);
    expect(await measureFreshness(p.config())).toMatchObject({ stale_files: 0 });
  });

  it("writes file_manifest.json again for a graph.db that is not the one the last run left (deleted by hand, rebuilt at the same files version)", async () => {
    const p = project({ ...BASE_FILES, "src/extra.ts": "export const b = 20;\n" });
    const paths = statePaths(join(p.root, ".mast"));
    await index(p, "full");
    for (const f of [paths.graphDb, `${paths.graphDb}-wal`, `${paths.graphDb}-shm`]) rmSync(f, { force: true });
    p.write("src/extra.ts", "export const b = 21;\n");
    // A time the full run's manifest cannot hold for it.
    utimesSync(join(p.root, "src/extra.ts"), 1_700_000_000, 1_700_000_000);
    await index(p, "incremental");
    expect(readManifest(paths)["src/extra.ts"]).toBe(1_700_000_000_000);
  });
});

/** An extraction of one chunk whose text is `name` (a function of that name on line `line`). */
function extractionOf(name: string, line: number): FileExtraction {
  const content = `function ${name}() {}`;
  const chunk: Chunk = {
    chunkId: sha256(`${name}:${line}`),
    startLine: line,
    endLine: line,
    content,
    contentStartLine: line,
    chunkType: "function",
    symbolName: name,
    parentSymbol: null,
    isExported: false,
    inFile: { endLine: line, cut: null },
    searchStart: 0,
    searchEnd: content.length,
    part: 0,
    identifiers: [name],
  };
  return { language: "typescript", chunks: [chunk], symbols: [], imports: [], calls: [], heritage: [], lineCount: line, hasSyntaxErrors: false };
}

describe("the text index (chunk_words)", () => {
  const lacking = (p: TestProject) => queryStore(graph(p), "SELECT (SELECT count(*) FROM chunks) - (SELECT count(*) FROM chunk_words_docsize) AS n")[0]!.n;

  it("holds every chunk's words at the commit of a large run, and a full run over it (every row deleted, then merged) leaves no row of a chunk that is gone", async () => {
    // 2.9 MB of source, 20,400 chunks: a second full run deletes more rows than WORDS_OPTIMIZE_DELETES.
    const body = Array.from({ length: 600 }, (_, i) => `export function handler${i}(input: string): string {\n  return input.trim() + "${"x".repeat(60)}";\n}\n`).join("");
    const files = Object.fromEntries(Array.from({ length: 34 }, (_, f) => [`src/big${f}.ts`, body.replaceAll("handler", `handler${f}_`)]));
    const p = project(files);
    const r = await runMast(["index", p.root, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as IndexReport;
    expect([report.chunk_count, lacking(p)]).toEqual([20_400, 0]);
    p.write("src/big0.ts", body.replaceAll("handler", "renamed_"));
    await index(p, "full");
    expect(lacking(p)).toBe(0);
    expect(queryStore(graph(p), "SELECT count(*) AS n FROM chunk_words WHERE chunk_words MATCH 'renamed_599'")).toEqual([{ n: 1 }]);
    expect(queryStore(graph(p), "SELECT count(*) AS n FROM chunk_words WHERE chunk_words MATCH 'handler0_599'")).toEqual([{ n: 0 }]);
    // No row of a chunk that is gone, and FTS5's own check of the merged index passes.
    expect(queryStore(graph(p), "SELECT count(*) AS n FROM chunk_words_docsize WHERE id NOT IN (SELECT id FROM chunks)")).toEqual([{ n: 0 }]);
    const store = Store.open(graph(p));
    try {
      expect(() => store.db.exec("INSERT INTO chunk_words(chunk_words, rank) VALUES ('integrity-check', 1)")).not.toThrow();
    } finally {
      store.close();
    }
  }, 60_000);

  it("a batch rolled back inside a run leaves no words behind: its chunks are indexed only if a later batch writes them again", async () => {
    const p = project({ "a.ts": "export function alpha() { return 1; }\n" });
    await index(p, "full");
    const store = Store.open(graph(p));
    try {
      await store.transaction(async () => {
        expect(() =>
          store.batch(() => {
            store.replaceFileRows({ path: "ghost.ts", language: "typescript", mtime: 1, size: 1, ino: 1, ctime: 1, contentHash: "x", statClean: false }, extractionOf("ghostlyWord", 1));
            throw new Error("write failed");
          }),
        ).toThrow("write failed");
        store.replaceFileRows({ path: "b.ts", language: "typescript", mtime: 1, size: 1, ino: 2, ctime: 1, contentHash: "y", statClean: false }, extractionOf("bravoWord", 1));
      });
    } finally {
      store.close();
    }
    expect(queryStore(graph(p), "SELECT count(*) AS n FROM chunk_words WHERE chunk_words MATCH 'ghostlyword OR ghostly'")).toEqual([{ n: 0 }]);
    expect(queryStore(graph(p), "SELECT c.symbol_name FROM chunk_words t JOIN chunks c ON c.id = t.rowid WHERE chunk_words MATCH 'parts : bravo'")).toEqual([{ symbol_name: "bravoWord" }]);
    expect(lacking(p)).toBe(0);
  });
});

describe("incremental runs and the import resolver", () => {
  it("resolves a rewritten file's imports over unchanged configs without rereading them all, as a full build does; a config edit relinks everything", async () => {
    const p = project({
      "package.json": JSON.stringify({ private: true, workspaces: ["packages/*"] }),
      "tsconfig.json": `{ "compilerOptions": { "paths": { "@y/*": ["src/lib/*"] } } }`,
      "packages/p/package.json": JSON.stringify({ name: "@acme/p", main: "src/index.ts" }),
      "packages/p/src/index.ts": "export function p() { return 2; }\n",
      "packages/q/tsconfig.json": `{ "compilerOptions": { "paths": { "@q/*": ["lib/*"] } } }`,
      "packages/q/lib/q.ts": "export function q() { return 3; }\n",
      "src/a.ts": "export function a() { return 0; }\n",
      "src/lib/b.ts": "export function b() { return 1; }\n",
    });
    const past = new Date(Date.now() - 3_600_000);
    for (const f of ["package.json", "tsconfig.json", "packages/p/package.json", "packages/p/src/index.ts", "packages/q/tsconfig.json", "packages/q/lib/q.ts", "src/a.ts", "src/lib/b.ts"])
      utimesSync(join(p.root, f), past, past);
    // An absent config the resolver probed is recorded by its directory's stat: theirs are old too
    // (the state dir made first: its creation would change the root's).
    mkdirSync(join(p.root, ".mast"));
    for (const d of ["", "packages", "packages/p", "packages/p/src", "packages/q", "packages/q/lib", "src", "src/lib"]) utimesSync(join(p.root, d), past, past);
    await index(p, "full");
    // Every config the resolver read stats as recorded: the next run may trust its fingerprint.
    const [{ value: inputs }] = queryStore(graph(p), "SELECT value FROM meta WHERE key = 'resolver_inputs'") as [{ value: string }];
    expect(pathsStatAsStamped(inputs)).toBe(true);
    expect(inputs).toContain("packages/q/tsconfig.json");

    p.write("src/a.ts", "import { b } from '@y/b';\nimport { p } from '@acme/p';\nexport function a() { return b() + p(); }\n");
    const report = await index(p, "incremental");
    expect(report.files_indexed).toBe(1);
    expect(dumpStore(graph(p))).toBe(await freshDump(p));
    expect(queryStore(graph(p), "SELECT module, (SELECT path FROM files WHERE id = resolved_file_id) AS target FROM imports ORDER BY module")).toEqual([
      { module: "@acme/p", target: "packages/p/src/index.ts" },
      { module: "@y/b", target: "src/lib/b.ts" },
    ]);

    // A config that changed is read again, whatever the rewritten files: '@y/*' now maps elsewhere.
    p.write("tsconfig.json", `{ "compilerOptions": { "paths": { "@y/*": ["packages/q/lib/*"] } } }`);
    p.write("src/a.ts", "import { q } from '@y/q';\nexport function a() { return q(); }\n");
    await index(p, "incremental");
    expect(dumpStore(graph(p))).toBe(await freshDump(p));
    expect(queryStore(graph(p), "SELECT module, (SELECT path FROM files WHERE id = resolved_file_id) AS target FROM imports")).toEqual([{ module: "@y/q", target: "packages/q/lib/q.ts" }]);
  });
});

describe("store totals", () => {
  it("sums each file's chunk and symbol rows to the counts of the rows themselves, through edits, additions and removals", async () => {
    const p = project({ "a.ts": "export class A {\n  m() { return 1; }\n}\nexport function f() {}\n", "b.py": "def g():\n    return 1\n", "c.go": "package c\n\nfunc H() {}\n" });
    const check = async (mode: "full" | "incremental") => {
      const report = await index(p, mode);
      const [row] = queryStore(graph(p), "SELECT (SELECT count(*) FROM files) AS files, (SELECT count(*) FROM chunks) AS chunks, (SELECT count(*) FROM symbols WHERE kind != 'module') AS symbols") as [
        { files: number; chunks: number; symbols: number },
      ];
      expect({ files: report.file_count, chunks: report.chunk_count, symbols: report.symbol_count }).toEqual(row);
      return row;
    };
    expect(await check("full")).toEqual({ files: 3, chunks: 6, symbols: 5 });
    p.write("a.ts", "export function f() {}\n");
    p.remove("b.py");
    p.write("d.rs", "pub fn k() {}\nfn l() {}\n");
    expect(await check("incremental")).toEqual({ files: 3, chunks: 5, symbols: 4 });
    // Each file's path words are held under its id, and go with it.
    expect(queryStore(graph(p), "SELECT f.path FROM path_words w JOIN files f ON f.id = w.rowid WHERE path_words MATCH 'a OR b OR c OR d' ORDER BY 1")).toEqual([
      { path: "a.ts" },
      { path: "c.go" },
      { path: "d.rs" },
    ]);
  });
});

describe("config stamps", () => {
  it("records an absent path by its directory: a file appearing there, or the directory appearing, is a change", () => {
    const p = project({ "pkg/a.json": "{}" });
    const past = new Date(Date.now() - 3_600_000);
    for (const d of ["pkg", "pkg/a.json", ""]) utimesSync(join(p.root, d), past, past);
    const stamps = stampPaths([join(p.root, "pkg/a.json"), join(p.root, "pkg/tsconfig.json"), join(p.root, "pkg/package.json"), join(p.root, "gone/tsconfig.json")]);
    // One stamp for the file, one for the directory of both absent names in pkg/, one for the absent directory.
    expect((JSON.parse(stamps) as unknown[]).length).toBe(3);
    expect(pathsStatAsStamped(stamps)).toBe(true);
    p.write("pkg/tsconfig.json", "{}");
    expect(pathsStatAsStamped(stamps)).toBe(false);
    p.remove("pkg/tsconfig.json");
    utimesSync(join(p.root, "pkg"), past, past);
    // Same mtime, but the directory's ctime moved: still a change, as for files.
    expect(pathsStatAsStamped(stamps)).toBe(false);
    // What the run already stat'ed (the walk's directories) answers for those paths without another stat.
    const pkg = statSync(join(p.root, "pkg"));
    const known = (pkgMtime: number) => new Map<string, readonly [number, number, number, number]>([[join(p.root, "pkg"), [pkg.size, pkgMtime, pkg.ino, pkg.ctimeMs]]]);
    const now = stampPaths([join(p.root, "pkg/tsconfig.json"), join(p.root, "x.json")]);
    expect(pathsStatAsStamped(now, known(pkg.mtimeMs))).toBe(true);
    expect(pathsStatAsStamped(now, known(pkg.mtimeMs + 1))).toBe(false);
    const again = stampPaths([join(p.root, "gone/tsconfig.json")]);
    expect(pathsStatAsStamped(again)).toBe(true);
    p.write("gone/other.txt", "x");
    expect(pathsStatAsStamped(again)).toBe(false);
  });
});

describe("just-in-time refresh", () => {
  it("refreshes a file on the store a references answer just read from (one statement text, read as rows by both)", async () => {
    const p = project({ ...BASE_FILES, "src/extra.ts": "export const b = 20;\nexport function useB() {\n  return b;\n}\n" });
    await index(p, "full");
    const ctx = createToolContext(p.config(), p.root);
    try {
      const refs = (await callTool(ctx, "mast_references", { symbol: "b", file_path: "src/extra.ts" })) as { summary: { verified_count: number } };
      expect(refs.summary.verified_count).toBe(2);
      p.write("src/extra.ts", "export const b = 20;\nexport const c = 30;\n");
      const exports = (await callTool(ctx, "mast_exports", { file_path: "src/extra.ts" })) as { exports: Array<{ name: string }> };
      expect(exports.exports.map((e) => e.name)).toEqual(["b", "c"]);
      // And a file gone: its rows dropped, the import graph kept.
      p.remove("src/extra.ts");
      await expect(callTool(ctx, "mast_exports", { file_path: "src/extra.ts" })).rejects.toThrow("not in the index: src/extra.ts");
    } finally {
      ctx.close();
    }
  });

  it("reuses its import resolver across refreshes until a config it read changes", async () => {
    const p = project({
      "src/a.ts": "import { b } from '@x/b';\nexport function a() { return b(); }\n",
      "src/lib/b.ts": "export function b() { return 1; }\n",
      "tsconfig.json": `{ "compilerOptions": { "paths": { "@y/*": ["src/lib/*"] } } }`,
    });
    const past = new Date(Date.now() - 3_600_000);
    for (const f of ["src/a.ts", "src/lib/b.ts", "tsconfig.json"]) utimesSync(join(p.root, f), past, past);
    await index(p, "full");
    const ctx = createToolContext(p.config({ stateDir: join(p.root, ".mast") }));
    // mast_exports names a.ts, so it refreshes a.ts just in time; then the call graph is read.
    const callers = async () => {
      await callTool(ctx, "mast_exports", { file_path: "src/a.ts" });
      return ((await callTool(ctx, "mast_callers", { symbol: "b" })) as { summary: { verified_count: number } }).summary.verified_count;
    };
    try {
      expect(await callers()).toBe(0); // '@x/b' maps to nothing yet
      // Two refreshes of a.ts: the second reuses the first one's resolver.
      p.write("src/a.ts", "import { b } from '@x/b';\nexport function a() { return b() + b(); }\n");
      expect(await callers()).toBe(0);
      p.write("src/a.ts", "import { b } from '@x/b';\nexport function a() { return b() + b() + b(); }\n");
      expect(await callers()).toBe(0);
      // The tsconfig now maps '@x/*': the next refresh builds a new resolver and links the calls.
      p.write("tsconfig.json", `{ "compilerOptions": { "paths": { "@x/*": ["src/lib/*"] } } }`);
      p.write("src/a.ts", "import { b } from '@x/b';\nexport function a() { return b() + b() + b() + b(); }\n");
      expect(await callers()).toBe(1); // one call site: the four calls share a line
    } finally {
      ctx.close();
    }
  });
});

describe("unusable graph.db", () => {
  it("rebuilds a graph.db that is not a database", async () => {
    const p = project();
    await index(p, "full");
    writeFileSync(graph(p), "this is not a database, it is a text file that happens to be named graph.db\n".repeat(100));
    for (const suffix of ["-wal", "-shm"]) rmSync(graph(p) + suffix, { force: true });
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ mode: "full", schema_reset: true, files_indexed: 4, file_count: 4 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });
});

describe("bad input", () => {
  it("skips binary files and files with NUL bytes, and counts them", async () => {
    const p = project({ "ok.ts": "export const ok = 1;\n", "nul.ts": "export const a = 1;\0\n", "img.js": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) });
    const report = await index(p, "full");
    expect(report).toMatchObject({ files_walked: 3, files_indexed: 1, skipped_binary: 2, parse_errors: 0 });
    expect(Object.keys(readManifest(statePaths(join(p.root, ".mast"))))).toEqual(["ok.ts"]);
  });

  it("a file that turns binary loses its rows", async () => {
    const p = project({ "a.ts": "export const a = 1;\n" });
    await index(p, "full");
    p.write("a.ts", Buffer.from("export const a = 1;\0"));
    const report = await index(p, "incremental");
    expect(report.skipped_binary).toBe(1);
    expect(report.file_count).toBe(0);
  });

  it("decodes invalid UTF-8 with replacement characters and still indexes the file", async () => {
    const p = project({ "bad.ts": Buffer.concat([Buffer.from("export function caf"), Buffer.from([0xe9]), Buffer.from("() { return 1; }\n")]) });
    const report = await index(p, "full");
    expect(report).toMatchObject({ files_indexed: 1, parse_errors: 0 });
    const store = Store.open(graph(p), { readonly: true });
    try {
      expect(store.db.prepare("SELECT name FROM symbols").pluck().all()).toEqual(["caf\uFFFD"]);
    } finally {
      store.close();
    }
  });

  it("splits a 5 MB minified bundle instead of dropping it", async () => {
    const line = Array.from({ length: 300_000 }, (_, i) => `var v${i}=${i};`).join("");
    expect(line.length).toBeGreaterThan(5_000_000);
    const p = project({ "bundle.js": line + "\n" });
    const report = await index(p, "full");
    expect(report).toMatchObject({ files_indexed: 1, parse_errors: 0 });
    const store = Store.open(graph(p), { readonly: true });
    try {
      // Pieces cut from the one line: [cut_from, cut_to) of it.
      const rows = store.db.prepare("SELECT cut_to - cut_from AS len FROM chunks").all() as Array<{ len: number }>;
      expect(Math.max(...rows.map((r) => r.len))).toBeLessThanOrEqual(32_768);
      expect(rows.reduce((a, r) => a + r.len, 0)).toBeGreaterThanOrEqual(line.length);
      expect(store.db.prepare("SELECT count(*) FROM chunk_words WHERE chunk_words MATCH ?").pluck().get('words : ("v299999" + "299999")')).toBe(1);
    } finally {
      store.close();
    }
  });

  it("indexes 5,000-deep nesting without overflowing", async () => {
    const depth = 5_000;
    const p = project({
      "arrays.ts": `export const deep = ${"[".repeat(depth)}1${"]".repeat(depth)};\n`,
      "calls.js": `export function deep() { return ${"f(".repeat(depth)}1${")".repeat(depth)}; }\n`,
      "blocks.ts": `export function blocks() {\n${"{\n".repeat(depth)}${"}\n".repeat(depth)}}\n`,
    });
    const report = await index(p, "full");
    expect(report).toMatchObject({ files_indexed: 3, parse_errors: 0, write_errors: 0 });
  });

  it("counts a parse that exceeds its budget as a parse error, keeps it out of the manifest, and retries it next run", async () => {
    const big = Array.from({ length: 8_000 }, (_, i) => `export function f${i}(a: number) { return a + ${i}; }`).join("\n");
    const p = project({ "big.ts": big, "small.ts": "export const s = 1;\n", "mast.config.json": JSON.stringify({ parse_timeout_ms: 1 }) });
    const report = await index(p, "full");
    expect(report).toMatchObject({ parse_errors: 1, write_errors: 0, files_indexed: 1 });
    expect(report.problems).toEqual([{ path: "big.ts", kind: "parse_error", message: "tree-sitter did not finish parsing within 1 ms" }]);
    const paths = statePaths(join(p.root, ".mast"));
    expect(Object.keys(readManifest(paths))).toEqual(["small.ts"]);
    expect(readIndexJson(paths)!.parse_errors).toBe(1);
    p.write("mast.config.json", JSON.stringify({ parse_timeout_ms: 60_000 }));
    const retry = await index(p, "incremental");
    expect(retry).toMatchObject({ parse_errors: 0, files_indexed: 1, files_unchanged: 1 });
    expect(readIndexJson(paths)!.parse_errors).toBe(0);
  });

  it("counts a failed write as a write error, not a parse error, and retries it next run", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 2;\n", "c.ts": "export const c = 3;\n" });
    await index(p, "full");
    // A real SQLite failure for one file: a trigger that aborts its file-row update.
    const store = Store.open(graph(p));
    store.db.exec("CREATE TRIGGER no_b BEFORE UPDATE ON files WHEN NEW.path = 'b.ts' BEGIN SELECT RAISE(ABORT, 'disk says no'); END;");
    store.close();
    const indexedAt = readManifest(statePaths(join(p.root, ".mast")))["b.ts"];
    p.write("a.ts", "export const a = 10;\n");
    p.write("b.ts", "export const b = 20;\n");
    utimesSync(join(p.root, "b.ts"), 1_700_000_000, 1_700_000_000);
    const report = await index(p, "incremental");
    expect(report).toMatchObject({ write_errors: 1, parse_errors: 0, files_indexed: 1 });
    expect(report.problems).toEqual([{ path: "b.ts", kind: "write_error", message: "disk says no" }]);
    // The failed file keeps its previous rows intact (the transaction rolled back) and stays stale.
    const check = Store.open(graph(p), { readonly: true });
    try {
      expect(check.db.prepare("SELECT name FROM symbols ORDER BY name").pluck().all()).toEqual(["a", "b", "c"]);
      // The text index still holds b's old text: `2`, not `20`.
      const byWord = check.db.prepare("SELECT c.symbol_name FROM chunk_words t JOIN chunks c ON c.id = t.rowid WHERE chunk_words MATCH ? ORDER BY 1").pluck();
      expect([byWord.all('"2"'), byWord.all('"20"')]).toEqual([["b"], []]);
    } finally {
      check.close();
    }
    const manifest = readManifest(statePaths(join(p.root, ".mast")));
    expect(manifest["b.ts"]).toBe(indexedAt);
    const fix = Store.open(graph(p));
    fix.db.exec("DROP TRIGGER no_b");
    fix.close();
    const retry = await index(p, "incremental");
    expect(retry).toMatchObject({ write_errors: 0, files_indexed: 1 });
    expect(dumpStore(graph(p))).toEqual(await freshDump(p));
  });

  it("a full run over an index keeps for search the rows a failed file keeps", async () => {
    const p = project({ "a.ts": "export const alpha = 1;\n", "b.ts": "export const bravo = 2;\n" });
    await index(p, "full");
    const store = Store.open(graph(p));
    store.db.exec("CREATE TRIGGER no_b BEFORE UPDATE ON files WHEN NEW.path = 'b.ts' BEGIN SELECT RAISE(ABORT, 'disk says no'); END;");
    store.close();
    p.write("a.ts", "export const alpha = 10;\n");
    p.write("b.ts", "export const bravo = 20;\n");
    // b.ts's old chunk survives the failed write and must be searchable when the run commits, a.ts's new chunk too.
    const report = await index(p, "full");
    expect(report).toMatchObject({ write_errors: 1, files_indexed: 1 });
    const search = (table: "chunk_words" | "identifier_fts", q: string) =>
      queryStore(graph(p), `SELECT c.symbol_name FROM ${table} t JOIN chunks c ON c.id = t.rowid WHERE ${table} MATCH '${q}' ORDER BY 1`).map((r) => r.symbol_name);
    expect([search("chunk_words", "const"), search("chunk_words", "10"), search("chunk_words", "2"), search("chunk_words", "20")]).toEqual([["alpha", "bravo"], ["alpha"], ["bravo"], []]);
    expect(search("identifier_fts", "bravo")).toEqual(["bravo"]);
    expect(JSON.parse(dumpStore(graph(p))).integrity).toEqual({ chunk_words: "ok", identifier_fts: "ok" });
  });

  it("counts a file deleted mid-run as a read error and drops its rows", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 2;\n" });
    await index(p, "full");
    p.write("a.ts", "export const a = 2;\n");
    p.write("b.ts", "export const b = 3;\n");
    const report = await runIndex(p.config(), {
      mode: "incremental",
      onProgress: ({ done }) => {
        if (done === 1) p.remove("b.ts"); // b.ts was walked and queued; it vanishes before it is read
      },
    });
    expect(report).toMatchObject({ files_indexed: 1, read_errors: 1 });
    expect(report.problems[0]).toMatchObject({ path: "b.ts", kind: "read_error" });
    expect(report.file_count).toBe(1);
  });
});

describe("state dir", () => {
  it("is never indexed, even when it holds source files", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "state/x.ts": "export const x = 1;\n" });
    const report = await runIndex(p.config({ stateDir: join(p.root, "state") }), { mode: "full" });
    expect(report.files_walked).toBe(1);
    expect(existsSync(join(p.root, "state", "graph.db"))).toBe(true);
  });
});
