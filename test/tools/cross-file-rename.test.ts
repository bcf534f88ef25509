// A file-scoped rename (route_edit rename-symbol, which `hashpilot ast rename-symbol`, batch and
// MCP all call) of a declaration other files use, on real indexed projects in Python, Go and
// TypeScript: CROSS_FILE_USES with the count, the files and the first sites, the rename still
// made; a name no other file uses, or one only its own file sees, warns nothing; a project with
// no index says CROSS_FILE_UNCHECKED.
import { mkdtempSync, readFileSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { Store } from "../../src/store/store.js";
import { createToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { indexedProject } from "../helpers/indexed.js";
import { tempSpace } from "../helpers/project.js";

beforeAll(() => {
  process.env.HASHPILOT_HOME = mkdtempSync(join(tmpdir(), "hp-home-"));
});

const INTENT = "rename across files with `hashpilot intent rename-exported-symbol`";

interface Envelope {
  data: { changes: number; newSource?: string };
  warnings: Array<{ code: string; message: string; [key: string]: unknown }>;
}

const rename = (call: (tool: string, args: Record<string, unknown>) => Promise<Envelope>, file: string, symbol: string, newName: string, extra: Record<string, unknown> = {}) =>
  call("route_edit", { file, operation: "rename-symbol", symbol, new_name: newName, dry_run: true, include_source: true, ...extra });

describe("Python", () => {
  const py = indexedProject({
    "pkg/__init__.py": "",
    "pkg/a.py": [
      "import re",
      "",
      "",
      "def matches(url):",
      "    return bool(re.match('x', url))",
      "",
      "",
      "def _strip(url):",
      "    return matches(url.strip())",
      "",
      "",
      "class URLPattern:",
      "    def matches(self, other):",
      "        return True",
      "",
      "    def describe(self):",
      "        return 'pattern'",
      "",
      "",
      "LIMIT = 3",
      "",
    ].join("\n"),
    "pkg/b.py": ["from pkg.a import matches", "", "", "def check(u):", "    if matches(u):", "        return 1", "    return matches(u + '/')", ""].join("\n"),
    "pkg/d.py": ["from pkg.a import LIMIT", "", "TOP = LIMIT + 1", ""].join("\n"),
    "pkg/c.py": [
      "from pkg.a import URLPattern",
      "",
      "",
      "def route(pattern: URLPattern, url):",
      "    if pattern.matches(url):",
      "        return url",
      "    return pattern.matches(url + '/')",
      "",
    ].join("\n"),
  });

  it("renaming a function pkg/b.py calls twice warns CROSS_FILE_USES with 2 uses in 1 file and both sites; the file is renamed all the same", async () => {
    const r = await rename(py.call, "pkg/a.py", "matches", "is_match", { line: 4 });
    expect(r.data.changes).toBe(2);
    expect(r.warnings).toEqual([
      {
        code: "CROSS_FILE_USES",
        message: `2 use(s) in 1 other file(s) (e.g. pkg/b.py:5, pkg/b.py:7) still name 'matches'; ${INTENT}`,
        symbol: "matches",
        total: 2,
        verified: 2,
        fileCount: 1,
        sites: [
          { path: "pkg/b.py", line: 5 },
          { path: "pkg/b.py", line: 7 },
        ],
      },
    ]);
  });

  it("renaming the method pkg/c.py calls twice (httpx's URLPattern.matches) warns with both calls, not the import of the function of that name", async () => {
    const r = await rename(py.call, "pkg/a.py", "URLPattern.matches", "accepts");
    expect(r.data.changes).toBe(1);
    expect(r.warnings.map((w) => [w.code, w.symbol, w.total, w.fileCount, w.sites])).toEqual([
      [
        "CROSS_FILE_USES",
        "URLPattern.matches",
        2,
        1,
        [
          { path: "pkg/c.py", line: 5 },
          { path: "pkg/c.py", line: 7 },
        ],
      ],
    ]);
  });

  it("a constant another module imports and reads: its lines naming it are uses, none of them a verified call", async () => {
    const r = await rename(py.call, "pkg/a.py", "LIMIT", "MAX_TRIES");
    expect(r.warnings.map((w) => [w.code, w.total, w.verified, w.fileCount, w.sites])).toEqual([
      [
        "CROSS_FILE_USES",
        2,
        0,
        1,
        [
          { path: "pkg/d.py", line: 1 },
          { path: "pkg/d.py", line: 3 },
        ],
      ],
    ]);
  });

  it("a name only its own file uses (a private helper, a method no other file calls) or a parameter warns nothing", async () => {
    expect((await rename(py.call, "pkg/a.py", "_strip", "_trim")).warnings).toEqual([]);
    expect((await rename(py.call, "pkg/a.py", "URLPattern.describe", "show")).warnings).toEqual([]);
    expect((await rename(py.call, "pkg/a.py", "url", "u", { line: 4 })).warnings).toEqual([]);
  });

  it("the rename is written with the warning, and the index then knows the new name", async () => {
    const r = await rename(py.call, "pkg/a.py", "matches", "is_match", { line: 4, dry_run: false, include_source: false });
    expect(r.warnings.map((w) => [w.code, w.total])).toEqual([["CROSS_FILE_USES", 2]]);
    expect(readFileSync(join(py.project.root, "pkg/a.py"), "utf8")).toContain("def is_match(url):\n");
    const impact = await py.call("mast_rename_impact", { symbol: "is_match", file_path: "pkg/a.py" });
    expect(impact.declaration_sites).toEqual([{ file_path: "pkg/a.py", line: 4, kind: "function", is_exported: true }]);
  });
});

describe("Go", () => {
  const go = indexedProject({
    "go.mod": "module example.com/m\n\ngo 1.21\n",
    "util/a.go": [
      "package util",
      "",
      "func matches(s string) bool {",
      '\treturn s != ""',
      "}",
      "",
      "func Matches(s string) bool {",
      "\treturn matches(s)",
      "}",
      "",
      "func lonely() int {",
      "\treturn 1",
      "}",
      "",
    ].join("\n"),
    "util/b.go": ["package util", "", "func use() bool {", '\tif matches("a") {', "\t\treturn true", "\t}", '\treturn matches("b")', "}", ""].join("\n"),
    "main.go": ["package main", "", 'import "example.com/m/util"', "", "func main() {", '\tutil.Matches("x")', "}", ""].join("\n"),
    "other/c.go": ["package other", "", "func lonely() int {", "\treturn 2", "}", "", "func run() int {", "\treturn lonely()", "}", ""].join("\n"),
  });

  it("an unexported function another file of its package calls twice: CROSS_FILE_USES, 2 uses in util/b.go", async () => {
    const r = await rename(go.call, "util/a.go", "matches", "isMatch");
    expect(r.data.changes).toBe(2);
    expect(r.warnings).toEqual([
      {
        code: "CROSS_FILE_USES",
        message: `2 use(s) in 1 other file(s) (e.g. util/b.go:4, util/b.go:7) still name 'matches'; ${INTENT}`,
        symbol: "matches",
        total: 2,
        verified: 2,
        fileCount: 1,
        sites: [
          { path: "util/b.go", line: 4 },
          { path: "util/b.go", line: 7 },
        ],
      },
    ]);
  });

  it("an exported function another package calls: CROSS_FILE_USES at main.go:6", async () => {
    const r = await rename(go.call, "util/a.go", "Matches", "Match");
    expect(r.warnings.map((w) => [w.code, w.total, w.fileCount, w.sites])).toEqual([["CROSS_FILE_USES", 1, 1, [{ path: "main.go", line: 6 }]]]);
  });

  it("an unexported name another package declares and calls for itself warns nothing", async () => {
    expect((await rename(go.call, "util/a.go", "lonely", "alone")).warnings).toEqual([]);
  });
});

describe("TypeScript", () => {
  const ts = indexedProject({
    "src/a.ts": [
      "export function matches(s: string): boolean {",
      "  return s.length > 0;",
      "}",
      "",
      "function local(s: string): boolean {",
      "  return matches(s);",
      "}",
      "",
      "export class Pattern {",
      "  test(s: string): boolean {",
      "    return local(s);",
      "  }",
      "}",
      "",
    ].join("\n"),
    "src/b.ts": [
      "import { matches, Pattern } from './a.js';",
      "",
      "export function run(u: string): boolean {",
      "  if (matches(u)) return true;",
      "  new Pattern().test(u);",
      "  return matches(u + '/');",
      "}",
      "",
    ].join("\n"),
    "src/c.ts": ["function local(): number {", "  return 2;", "}", "", "export const n = local();", ""].join("\n"),
    // A Python script naming `matches` cannot use the TypeScript function.
    "scripts/run.py": ["from helpers import matches", "", "matches('x')", ""].join("\n"),
  });

  it("an exported function src/b.ts calls twice: CROSS_FILE_USES with both sites (not a Python file's lines naming it), pointing to the intent", async () => {
    const r = await rename(ts.call, "src/a.ts", "matches", "isMatch");
    expect(r.data.changes).toBe(2);
    expect(r.warnings).toEqual([
      {
        code: "CROSS_FILE_USES",
        message: `2 use(s) in 1 other file(s) (e.g. src/b.ts:4, src/b.ts:6) still name 'matches'; ${INTENT}`,
        symbol: "matches",
        total: 2,
        verified: 2,
        fileCount: 1,
        sites: [
          { path: "src/b.ts", line: 4 },
          { path: "src/b.ts", line: 6 },
        ],
      },
    ]);
  });

  it("a method another file calls: CROSS_FILE_USES naming Pattern.test", async () => {
    const r = await rename(ts.call, "src/a.ts", "Pattern.test", "check");
    expect(r.warnings.map((w) => [w.code, w.symbol, w.total, w.sites])).toEqual([["CROSS_FILE_USES", "Pattern.test", 1, [{ path: "src/b.ts", line: 5 }]]]);
  });

  it("a function the file does not export warns nothing, though another file declares and calls the name", async () => {
    expect((await rename(ts.call, "src/a.ts", "local", "helper")).warnings).toEqual([]);
  });

  it("a file the index has not seen yet is CROSS_FILE_UNCHECKED, saying so", async () => {
    ts.project.write("src/fresh.ts", "export function fresh(): number {\n  return 1;\n}\n");
    const r = await rename(ts.call, "src/fresh.ts", "fresh", "stale");
    expect(r.warnings.map((w) => [w.code, w.message])).toEqual([
      [
        "CROSS_FILE_UNCHECKED",
        "other files' uses of 'fresh' were not checked (not in the index: src/fresh.ts): any that name 'fresh' still do; mast_rename_impact lists them once the project is indexed",
      ],
    ]);
  });

  it("while another writer holds the index, a rename's cross-file check says it could not look, and an intent refuses (LOCK_HELD) writing nothing", async () => {
    // src/b.ts changed since the run: the check must refresh it, and the lock makes the refresh lose.
    const b = readFileSync(join(ts.project.root, "src/b.ts"), "utf8");
    ts.project.write("src/b.ts", b.replace("return matches(u + '/');", "return matches(u + '//');"));
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(ts.project.root, "src/b.ts"), later, later);
    const other = Store.open(statePaths(ts.project.config().state_dir).graphDb);
    other.db.prepare("BEGIN IMMEDIATE").run();
    try {
      const r = await rename(ts.call, "src/a.ts", "matches", "isMatch");
      expect(r.warnings.map((w) => [w.code, w.message])).toEqual([
        [
          "CROSS_FILE_UNCHECKED",
          "other files' uses of 'matches' were not checked (another writer held the index, so the rows of src/b.ts could not be brought up to date with the files): any that name 'matches' still do; mast_rename_impact lists them once the project is indexed",
        ],
      ]);
      const planned = ts.call("intent", { intent: JSON.stringify({ operation: "rename-exported-symbol", symbol: "matches", newName: "isMatch", file: "src/a.ts" }), verify: false });
      await expect(planned).rejects.toMatchObject({ code: "LOCK_HELD" });
      expect(readFileSync(join(ts.project.root, "src/a.ts"), "utf8")).toContain("export function matches(");
    } finally {
      other.db.prepare("ROLLBACK").run();
      other.close();
      ts.project.write("src/b.ts", b);
    }
  });

  it("a batch carries each file's warning with its file", async () => {
    const r = await ts.call("route_edit", { files: ["src/a.ts", "src/c.ts"], operation: "rename-symbol", symbol: "local", new_name: "helper", dry_run: true });
    expect(r.warnings).toEqual([]);
    const one = await ts.call("route_edit", { files: ["src/a.ts"], operation: "rename-symbol", symbol: "matches", new_name: "isMatch", dry_run: true });
    expect(one.warnings.map((w: { code: string; file: string; total: number }) => [w.code, w.file, w.total])).toEqual([["CROSS_FILE_USES", join(ts.project.root, "src/a.ts"), 2]]);
  });
});

describe("Rust", () => {
  const rs = indexedProject({
    "Cargo.toml": '[package]\nname = "m"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod a;\npub mod b;\n",
    "src/a.rs": ["pub fn matches(s: &str) -> bool {", "    !s.is_empty()", "}", "", "fn private() -> u8 {", "    1", "}", ""].join("\n"),
    "src/b.rs": ["use crate::a::matches;", "", "pub fn check(u: &str) -> bool {", '    matches(u) || matches("/")', "}", ""].join("\n"),
  });

  it("a pub function another module calls: CROSS_FILE_USES; a private one: nothing", async () => {
    const r = await rename(rs.call, "src/a.rs", "matches", "is_match");
    expect(r.warnings.map((w) => [w.code, w.total, w.verified, w.sites])).toEqual([["CROSS_FILE_USES", 1, 1, [{ path: "src/b.rs", line: 4 }]]]);
    expect((await rename(rs.call, "src/a.rs", "private", "internal")).warnings).toEqual([]);
  });
});

describe("no index", () => {
  const space = tempSpace({});

  it("a declaration other files may name is CROSS_FILE_UNCHECKED with the reason; a local is not", async () => {
    const p = space.project({ ".git/HEAD": "ref: refs/heads/main\n", "pkg/a.py": "def matches(url):\n    return url\n", "pkg/b.py": "from pkg.a import matches\n\nmatches('x')\n" });
    const ctx = createToolContext(p.config());
    try {
      const call = (tool: string, args: Record<string, unknown>) => callTool(ctx, tool, args) as Promise<Envelope>;
      const r = await rename(call, "pkg/a.py", "matches", "is_match");
      expect(r.data.changes).toBe(1);
      expect(r.warnings).toEqual([
        {
          code: "CROSS_FILE_UNCHECKED",
          message: `other files' uses of 'matches' were not checked (no index found at ${p.config().state_dir}; run \`mast init\` / \`mast index\` first): any that name 'matches' still do; mast_rename_impact lists them once the project is indexed`,
        },
      ]);
      expect((await rename(call, "pkg/a.py", "url", "u")).warnings).toEqual([]);
      // Indexed, the same rename counts the use.
      await runIndex(p.config(), { mode: "full" });
      ctx.close();
      expect((await rename(call, "pkg/a.py", "matches", "is_match")).warnings.map((w) => [w.code, w.total, w.sites])).toEqual([["CROSS_FILE_USES", 1, [{ path: "pkg/b.py", line: 3 }]]]);
    } finally {
      ctx.close();
    }
  });
});
