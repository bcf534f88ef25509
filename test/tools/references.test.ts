// mast_definition and mast_references on a small project per deep language: a local, an import,
// a method through a typed receiver, a field; a field's references with read/write marks; the
// position errors; each answer's size in bytes.
import { describe, expect, it } from "vitest";
import { indexedProject } from "../helpers/indexed.js";

const FILES: Record<string, string> = {
  "src/cmd.ts": [
    "export class Command {",
    "  name: string = '';",
    "  private count = 0;",
    "  run(times: number): void {",
    "    const total = times + 1;",
    "    this.count += total;",
    "    this.count++;",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/index.ts": "export { Command } from './cmd.js';\n",
  "src/use.ts": [
    "import { Command } from './index.js';",
    "",
    "export function start(cmd: Command): string {",
    "  cmd.name = 'x';",
    "  cmd.run(2);",
    "  const c = new Command();",
    "  ({ name: cmd.name } = { name: 'y' });",
    "  return c.name + cmd.name;",
    "}",
    "// name in a comment",
    "",
  ].join("\n"),
  "src/other.ts": ["export const thing = { name: 'z' };", "export function f(o: any) { return o.name; }", "export function g(o: any) { return o.run(1); }", ""].join("\n"),
  "web/app.js": ["import { Store } from './store.js';", "", "export function boot() {", "  const store = new Store();", "  store.items.push(1);", "  return store.size();", "}", ""].join("\n"),
  "web/store.js": ["export class Store {", "  constructor() {", "    this.items = [];", "  }", "  size() {", "    return this.items.length;", "  }", "}", ""].join("\n"),
  "pkg/__init__.py": "",
  "pkg/cmd.py": [
    "class Command:",
    "    name: str = ''",
    "",
    "    def __init__(self, count: int):",
    "        self.count = count",
    "",
    "    def run(self, times):",
    "        total = times + 1",
    "        self.count += total",
    "        return total",
    "",
  ].join("\n"),
  "pkg/use.py": ["from pkg.cmd import Command", "", "def start(cmd: Command):", "    cmd.name = 'x'", "    cmd.run(2)", "    c = Command(1)", "    return c.name + cmd.name", ""].join("\n"),
  "go.mod": "module example.com/m\n\ngo 1.21\n",
  "cmd/cmd.go": [
    "package cmd",
    "",
    "type Command struct {",
    "\tName  string",
    "\tcount int",
    "}",
    "",
    "func (c *Command) Run(times int) int {",
    "\ttotal := times + 1",
    "\tc.count += total",
    "\tc.count++",
    "\treturn total",
    "}",
    "",
  ].join("\n"),
  "main.go": ["package main", "", 'import "example.com/m/cmd"', "", "func main() {", '\tc := &cmd.Command{Name: "x"}', '\tc.Name = "y"', "\tc.Run(2)", "\tprintln(c.Name)", "}", ""].join("\n"),
  "Cargo.toml": '[package]\nname = "r"\nversion = "0.1.0"\n',
  "src/lib.rs": "pub mod cmd;\n",
  "src/cmd.rs": [
    "pub struct Command {",
    "    pub name: String,",
    "    count: u32,",
    "}",
    "",
    "impl Command {",
    "    pub fn run(&mut self, times: u32) -> u32 {",
    "        let total = times + 1;",
    "        self.count += total;",
    "        total",
    "    }",
    "}",
    "",
  ].join("\n"),
  "src/main.rs": ["use r::cmd::Command;", "", "fn start(c: &mut Command) -> u32 {", "    c.name = String::new();", "    c.run(2)", "}", ""].join("\n"),
};

const p = indexedProject(FILES);
const bytes = (answer: unknown) => Buffer.byteLength(JSON.stringify(answer));
const definition = (file_path: string, line: number, column: number) => p.call("mast_definition", { file_path, line, column });

const def = (file_path: string, line: number, column: number | null, name: string, kind: string, signature: string | null) => ({ file_path, line, column, name, kind, signature });

describe("mast_definition", () => {
  it("TypeScript: a local, an import through a barrel, a method and a field through a typed receiver, a name fallback", async () => {
    expect(await definition("src/cmd.ts", 6, 19)).toEqual({
      name: "total",
      at: { line: 6, column: 19 },
      resolution: "scope",
      definitions: [def("src/cmd.ts", 5, 11, "total", "variable", "const total = times + 1;")],
    });
    const imported = await definition("src/use.ts", 1, 10);
    expect(imported).toEqual({ name: "Command", at: { line: 1, column: 10 }, resolution: "import", definitions: [def("src/cmd.ts", 1, 14, "Command", "class", "export class Command")] });
    expect(bytes(imported)).toBe(199);
    expect(await definition("src/use.ts", 5, 7)).toEqual({
      name: "run",
      at: { line: 5, column: 7 },
      resolution: "type",
      definitions: [def("src/cmd.ts", 4, 3, "Command.run", "method", "run(times: number): void")],
    });
    // The caret just after the name (column 11, past `name`) still finds it.
    expect(await definition("src/use.ts", 4, 11)).toEqual({
      name: "name",
      at: { line: 4, column: 7 },
      resolution: "type",
      definitions: [def("src/cmd.ts", 2, 3, "Command.name", "field", "name: string = '';")],
    });
    // An object literal's key: the literal's own property, a candidate before the declarations of the name.
    expect(await definition("src/other.ts", 1, 24)).toEqual({
      name: "name",
      at: { line: 1, column: 24 },
      resolution: "name",
      definitions: [def("src/other.ts", 1, 24, "name", "property", "export const thing = { name: 'z' };")],
    });
    // `o: any`: the declarations of members named run, in the file's language only (not Python's or Rust's).
    expect(await definition("src/other.ts", 3, 38)).toEqual({
      name: "run",
      at: { line: 3, column: 38 },
      resolution: "name",
      definitions: [def("src/cmd.ts", 4, 3, "Command.run", "method", "run(times: number): void")],
    });
  });

  it("JavaScript: a property first assigned through this, a method through a constructed name, an import", async () => {
    expect(await definition("web/app.js", 5, 9)).toEqual({
      name: "items",
      at: { line: 5, column: 9 },
      resolution: "type",
      definitions: [def("web/store.js", 3, 10, "Store.items", "property", "this.items = [];")],
    });
    expect(await definition("web/app.js", 6, 16)).toEqual({
      name: "size",
      at: { line: 6, column: 16 },
      resolution: "type",
      definitions: [def("web/store.js", 5, 3, "Store.size", "method", "size()")],
    });
    expect(await definition("web/app.js", 4, 22)).toEqual({
      name: "Store",
      at: { line: 4, column: 21 },
      resolution: "import",
      definitions: [def("web/store.js", 1, 14, "Store", "class", "export class Store")],
    });
  });

  it("Python: a local, an import, a method and a class attribute through an annotated parameter", async () => {
    expect(await definition("pkg/cmd.py", 9, 23)).toEqual({
      name: "total",
      at: { line: 9, column: 23 },
      resolution: "scope",
      definitions: [def("pkg/cmd.py", 8, 9, "total", "variable", "total = times + 1")],
    });
    expect(await definition("pkg/use.py", 3, 16)).toEqual({
      name: "Command",
      at: { line: 3, column: 16 },
      resolution: "import",
      definitions: [def("pkg/cmd.py", 1, 7, "Command", "class", "class Command")],
    });
    expect(await definition("pkg/use.py", 5, 9)).toEqual({
      name: "run",
      at: { line: 5, column: 9 },
      resolution: "type",
      definitions: [def("pkg/cmd.py", 7, 9, "Command.run", "method", "def run(self, times)")],
    });
    expect(await definition("pkg/use.py", 4, 9)).toEqual({
      name: "name",
      at: { line: 4, column: 9 },
      resolution: "type",
      definitions: [def("pkg/cmd.py", 2, 5, "Command.name", "variable", "name: str = ''")],
    });
  });

  it("Go: a local, a package's name (its import, as TypeScript answers a namespace), a method and a field through a literal of the package's type", async () => {
    expect(await definition("cmd/cmd.go", 10, 13)).toEqual({
      name: "total",
      at: { line: 10, column: 13 },
      resolution: "scope",
      definitions: [def("cmd/cmd.go", 9, 2, "total", "variable", "total := times + 1")],
    });
    expect(await definition("main.go", 6, 8)).toEqual({
      name: "cmd",
      at: { line: 6, column: 8 },
      resolution: "import",
      definitions: [def("main.go", 3, null, "cmd", "import", 'import "example.com/m/cmd"')],
    });
    expect(await definition("main.go", 8, 4)).toEqual({
      name: "Run",
      at: { line: 8, column: 4 },
      resolution: "type",
      definitions: [def("cmd/cmd.go", 8, 19, "Command.Run", "method", "func (c *Command) Run(times int) int")],
    });
    expect(await definition("main.go", 7, 4)).toEqual({
      name: "Name",
      at: { line: 7, column: 4 },
      resolution: "type",
      definitions: [def("cmd/cmd.go", 4, 2, "Command.Name", "field", "Name  string")],
    });
  });

  it("Rust: a local, a use, a method and a field through a typed parameter", async () => {
    expect(await definition("src/cmd.rs", 9, 23)).toEqual({
      name: "total",
      at: { line: 9, column: 23 },
      resolution: "scope",
      definitions: [def("src/cmd.rs", 8, 13, "total", "let", "let total = times + 1;")],
    });
    expect(await definition("src/main.rs", 3, 18)).toEqual({
      name: "Command",
      at: { line: 3, column: 18 },
      resolution: "import",
      definitions: [def("src/cmd.rs", 1, 12, "Command", "class", "pub struct Command {")],
    });
    expect(await definition("src/main.rs", 5, 7)).toEqual({
      name: "run",
      at: { line: 5, column: 7 },
      resolution: "type",
      definitions: [def("src/cmd.rs", 7, 12, "Command.run", "method", "pub fn run(&mut self, times: u32) -> u32")],
    });
    expect(await definition("src/main.rs", 4, 7)).toEqual({
      name: "name",
      at: { line: 4, column: 7 },
      resolution: "type",
      definitions: [def("src/cmd.rs", 2, 9, "Command.name", "field", "pub name: String,")],
    });
  });

  it("a position on no name, or past the end, is a named error with a hint", async () => {
    await expect(definition("src/use.ts", 2, 1)).rejects.toMatchObject({ code: "NO_NAME_AT_POSITION" });
    await expect(definition("src/use.ts", 4, 13)).rejects.toMatchObject({ code: "NO_NAME_AT_POSITION", message: "no name at src/use.ts:4:13 (\"cmd.name = 'x';\" around it)" });
    await expect(definition("src/use.ts", 99, 1)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "line 99 is past the end of src/use.ts (10 lines)" });
    await expect(definition("src/use.ts", 4, 40)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "column 40 is past the end of line 4 of src/use.ts (17 characters)" });
  });
});

const barrel = indexedProject({
  "lib/external.ts": "export function string(): string { return ''; }\n",
  "lib/index.ts": "import * as z from './external.js';\nexport { z, z as default };\n",
  "app2.ts": "import z2 from './lib/index.js';\nexport const t = z2.string();\n",
  "app.ts": "import { z } from './lib/index.js';\nexport const s = z.string();\n",
  "ns.ts": ["import * as z from './lib/external.js';", "export const a = z.string();", "export const b = z.string().length;", "export function c(o: { z: number }) { return o.z; }", ""].join("\n"),
  "lib/router.ts": "export type AnyRouter = { a: 1 };\n",
  "lib/api.ts": "export type { AnyRouter as AnyApiRouter } from './router.js';\n",
  "alias.ts": "import type { AnyApiRouter } from './lib/api.js';\nexport type R = AnyApiRouter;\n",
  "ns2.ts": [
    "import * as z from './lib/external.js';",
    "export const d = z.string();",
    "export const e = JSON.parse('{}').total + d.length;",
    "export const f = [1].map((x) => ({ total: x }))[0]!.total;",
    "",
  ].join("\n"),
});

it("follows a named import to the module a barrel binds it to (`import * as z from './external'; export { z }`), as the compiler does", async () => {
  expect(await barrel.call("mast_definition", { file_path: "app.ts", line: 1, column: 10 })).toEqual({
    name: "z",
    at: { line: 1, column: 10 },
    resolution: "import",
    definitions: [def("lib/external.ts", 1, null, "./external.js", "module", null)],
  });
  // A default import of `export { z as default }`: the same namespace's module.
  expect(await barrel.call("mast_definition", { file_path: "app2.ts", line: 1, column: 8 })).toEqual({
    name: "z2",
    at: { line: 1, column: 8 },
    resolution: "import",
    definitions: [def("lib/external.ts", 1, null, "./external.js", "module", null)],
  });
});

describe("mast_references", () => {
  it("a namespace import's name: its uses in its own file (an alias, as the compiler answers); another file's alias and a property of that name are not its references", async () => {
    const r = await barrel.call("mast_references", { file_path: "ns.ts", line: 3, column: 18 });
    expect(r).toEqual({
      declaration: def("ns.ts", 1, 13, "z", "import", "import * as z from './lib/external.js';"),
      resolution: "scope",
      verified: [
        {
          file_path: "ns.ts",
          resolution: "scope",
          sites: ["1 declaration: import * as z from './lib/external.js';", "2 read: export const a = z.string();", "3 read: export const b = z.string().length;"],
        },
      ],
      potential: [],
      summary: { verified_count: 3, potential_count: 0, elsewhere_omitted: 1 },
    });
    expect(bytes(r)).toBe(456);
  });

  it("a declaration re-exported under another name: the alias's uses in importers are its references", async () => {
    const r = await barrel.call("mast_references", { symbol: "AnyRouter" });
    expect(r).toEqual({
      declaration: def("lib/router.ts", 1, 13, "AnyRouter", "type", "export type AnyRouter = { a: 1 };"),
      verified: [
        { file_path: "alias.ts", resolution: "import", sites: ["1 declaration: import type { AnyApiRouter } from './lib/api.js';", "2 read: export type R = AnyApiRouter;"] },
        { file_path: "lib/router.ts", resolution: "scope", sites: ["1 declaration: export type AnyRouter = { a: 1 };"] },
      ],
      potential: [{ file_path: "lib/api.ts", sites: ["1 read: export type { AnyRouter as AnyApiRouter } from './router.js';"] }],
      summary: { verified_count: 3, potential_count: 1 },
    });
  });

  it("a property nothing declares (of an inferred type): no declaration, every line naming it potential", async () => {
    const r = await barrel.call("mast_references", { file_path: "ns2.ts", line: 3, column: 37 });
    expect(r).toEqual({
      declaration: null,
      resolution: "name",
      verified: [],
      potential: [{ file_path: "ns2.ts", sites: ["3 read: export const e = JSON.parse('{}').total + d.length;", "4 read: export const f = [1].map((x) => ({ total: x }))[0]!.total;"] }],
      summary: { verified_count: 0, potential_count: 2 },
    });
    expect(bytes(r)).toBe(283);
  });

  it("TypeScript: a field's references, written and read through typed objects; an untyped object's are potential", async () => {
    const r = await p.call("mast_references", { symbol: "Command.name", file_path: "src/cmd.ts" });
    expect(r).toEqual({
      declaration: def("src/cmd.ts", 2, 3, "Command.name", "field", "name: string = '';"),
      verified: [
        { file_path: "src/cmd.ts", resolution: "scope", sites: ["2 declaration: name: string = '';"] },
        { file_path: "src/use.ts", resolution: "type", sites: ["4 write: cmd.name = 'x';", "7 write: ({ name: cmd.name } = { name: 'y' });", "8 read: return c.name + cmd.name;"] },
      ],
      potential: [{ file_path: "src/other.ts", sites: ["1 read: export const thing = { name: 'z' };", "2 read: export function f(o: any) { return o.name; }"] }],
      summary: { verified_count: 4, potential_count: 2, not_code_omitted: 1, other_language_omitted: 5 },
    });
    expect(bytes(r)).toBe(661);
  });

  it("TypeScript: a private field's ++ and += are writes; a local's references stay in its file", async () => {
    expect(await p.call("mast_references", { symbol: "Command.count", file_path: "src/cmd.ts" })).toMatchObject({
      verified: [{ file_path: "src/cmd.ts", sites: ["3 declaration: private count = 0; [scope]", "6 write: this.count += total; [type]", "7 write: this.count++; [type]"] }],
      potential: [],
    });
    const local = await p.call("mast_references", { file_path: "src/cmd.ts", line: 6, column: 19 });
    expect(local).toEqual({
      declaration: def("src/cmd.ts", 5, 11, "total", "variable", "const total = times + 1;"),
      resolution: "scope",
      verified: [{ file_path: "src/cmd.ts", resolution: "scope", sites: ["5 declaration: const total = times + 1;", "6 read: this.count += total;"] }],
      potential: [],
      summary: { verified_count: 2, potential_count: 0 },
    });
    expect(bytes(local)).toBe(366);
  });

  it("JavaScript: a property assigned in the constructor, by position", async () => {
    expect(await p.call("mast_references", { file_path: "web/app.js", line: 5, column: 9 })).toEqual({
      declaration: def("web/store.js", 3, 10, "Store.items", "property", "this.items = [];"),
      resolution: "type",
      verified: [
        { file_path: "web/app.js", resolution: "type", sites: ["5 read: store.items.push(1);"] },
        { file_path: "web/store.js", resolution: "type", sites: ["3 write: this.items = [];", "6 read: return this.items.length;"] },
      ],
      potential: [],
      summary: { verified_count: 3, potential_count: 0 },
    });
  });

  it("Python: an attribute assigned through self; the parameter of its name is another declaration", async () => {
    const r = await p.call("mast_references", { symbol: "Command.count", file_path: "pkg/cmd.py" });
    expect(r).toEqual({
      declaration: def("pkg/cmd.py", 5, 14, "Command.count", "property", "self.count = count"),
      verified: [{ file_path: "pkg/cmd.py", resolution: "type", sites: ["5 write: self.count = count", "9 write: self.count += total"] }],
      potential: [],
      summary: { verified_count: 2, potential_count: 0, elsewhere_omitted: 1, other_language_omitted: 8 },
    });
    expect(bytes(r)).toBe(383);
  });

  it("Go: a struct field (mast_callers' not_found) with a literal's key as a write", async () => {
    const r = await p.call("mast_references", { symbol: "Command.Name" });
    expect(r).toEqual({
      declaration: def("cmd/cmd.go", 4, 2, "Command.Name", "field", "Name  string"),
      verified: [
        { file_path: "cmd/cmd.go", resolution: "scope", sites: ["4 declaration: Name  string"] },
        { file_path: "main.go", resolution: "type", sites: ['6 write: c := &cmd.Command{Name: "x"}', '7 write: c.Name = "y"', "9 read: println(c.Name)"] },
      ],
      potential: [],
      summary: { verified_count: 4, potential_count: 0 },
    });
    expect(bytes(r)).toBe(441);
  });

  it("Rust: a struct field written through a typed parameter", async () => {
    expect(await p.call("mast_references", { symbol: "Command.name", file_path: "src/cmd.rs" })).toEqual({
      declaration: def("src/cmd.rs", 2, 9, "Command.name", "field", "pub name: String,"),
      verified: [
        { file_path: "src/cmd.rs", resolution: "scope", sites: ["2 declaration: pub name: String,"] },
        { file_path: "src/main.rs", resolution: "type", sites: ["4 write: c.name = String::new();"] },
      ],
      potential: [],
      summary: { verified_count: 2, potential_count: 0, other_language_omitted: 10 },
    });
  });

  it("pages through a cut list with summary.next: the pages are the whole list, in its order, and the last has no next", async () => {
    const whole = await p.call("mast_references", { symbol: "Command.name", file_path: "src/cmd.ts" });
    const lines = (groups: { file_path: string; sites: string[] }[]) => groups.flatMap((g) => g.sites.map((s) => `${g.file_path}:${s}`));
    expect(lines(whole.verified)).toHaveLength(4);
    const paged: string[] = [];
    const offsets: number[] = [];
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      offsets.push(offset);
      const page = await p.call("mast_references", { symbol: "Command.name", file_path: "src/cmd.ts", verified_limit: 3, verified_offset: offset });
      paged.push(...lines(page.verified));
      offset = page.summary.next?.verified_offset;
    }
    expect(offsets).toEqual([0, 3]);
    expect(paged).toEqual(lines(whole.verified));
    const last = await p.call("mast_references", { symbol: "Command.name", file_path: "src/cmd.ts", potential_offset: 1 });
    expect(lines(last.potential)).toEqual(lines(whole.potential).slice(1));
    expect(last.summary.next).toBeUndefined();
  });

  it("a page cut by the parse budget hands it on (summary.next.parse_until): every page classifies the lines alike", async () => {
    const args = { symbol: "Command.name", file_path: "src/cmd.ts", parse_until: 0 };
    const whole = await p.call("mast_references", args);
    const first = await p.call("mast_references", { ...args, potential_limit: 1 });
    expect(first.summary.next).toEqual({ potential_offset: 1, parse_until: 0 });
    const second = await p.call("mast_references", { symbol: "Command.name", file_path: "src/cmd.ts", ...first.summary.next });
    expect(second.summary.next).toBeUndefined();
    const lines = (groups: { file_path: string; sites: string[] }[]) => groups.flatMap((g) => g.sites.map((s) => `${g.file_path}:${s}`));
    expect([...lines(first.potential), ...lines(second.potential)]).toEqual(lines(whole.potential));
    // Only the declaring file parsed: the other two files' lines are potential, unmarked, and counted.
    expect(whole.summary).toMatchObject({ verified_count: 1, potential_count: 6, unparsed_files: 2 });
    expect(lines(whole.potential)).toEqual([
      "src/other.ts:1: export const thing = { name: 'z' };",
      "src/other.ts:2: export function f(o: any) { return o.name; }",
      "src/use.ts:4: cmd.name = 'x';",
      "src/use.ts:7: ({ name: cmd.name } = { name: 'y' });",
      "src/use.ts:8: return c.name + cmd.name;",
      "src/use.ts:10: // name in a comment",
    ]);
  });

  it("caps each list and counts the cut; a name nothing declares is not_found; neither symbol nor position is INVALID_ARGUMENT", async () => {
    expect((await p.call("mast_references", { symbol: "Command.name", file_path: "src/cmd.ts", verified_limit: 1, potential_limit: 1 })).summary).toEqual({
      verified_count: 1,
      verified_total: 4,
      verified_truncated: 3,
      potential_count: 1,
      potential_total: 2,
      potential_truncated: 1,
      next: { verified_offset: 1, potential_offset: 1 },
      not_code_omitted: 1,
      other_language_omitted: 5,
    });
    expect(await p.call("mast_references", { symbol: "Command.nope" })).toMatchObject({ declaration: null, not_found: true });
    await expect(p.call("mast_references", { file_path: "src/use.ts" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
