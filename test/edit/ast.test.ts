// The AST edits on real files in temp projects, per language: every operation's output against a
// golden diff of its fixture (test/goldens/ast/*.diff, of test/fixtures/ast/), every refusal
// with its code and the file left byte-identical, CRLF and BOM kept, tabs vs spaces, Python
// decorators and nested functions, Go receivers, Rust impl blocks and mod items, TSX components.
import { readFileSync, readdirSync } from "node:fs";
import { extname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isMastError } from "../../src/base/errors.js";
import { astAddImport, astCapabilities, astFindSymbols, astInsert, astRemoveImport, astRenameSymbol, astReplaceBody } from "../../src/edit/ast.js";
import type { OpContext, OpResult } from "../../src/edit/op-result.js";
import { generateDiff } from "../../src/edit/diff.js";
import { projectBoundary } from "../../src/edit/paths.js";
import { ChangeSet } from "../../src/edit/snapshots.js";
import { expectGolden } from "../helpers/golden.js";
import { makeProject, type TestProject } from "../helpers/project.js";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "ast");
let project: TestProject;

beforeAll(() => {
  process.env.HASHPILOT_HOME = makeProject().root;
  const files = Object.fromEntries(readdirSync(FIXTURES).map((f) => [f, readFileSync(join(FIXTURES, f))]));
  project = makeProject(files);
});

let changeSets = 0;
function ctx(): OpContext {
  const boundary = projectBoundary(project.root);
  return { boundary, cwd: project.root, changeSet: new ChangeSet(`test-${++changeSets}`, "ast", boundary.realRoot) };
}

const PREVIEW = { dryRun: true, includeSource: true, allowParseErrors: false };
const WRITE = { dryRun: false, includeSource: false, allowParseErrors: false };

type Op = (oc: OpContext, file: string) => Promise<OpResult<{ newSource?: string; changes: number }>>;
const rename =
  (from: string, to: string, line: number | null = null): Op =>
  (oc, f) =>
    astRenameSymbol(oc, f, from, to, line, PREVIEW);
const body =
  (symbol: string, text: string): Op =>
  (oc, f) =>
    astReplaceBody(oc, f, symbol, text, PREVIEW);
const imp =
  (spec: string): Op =>
  (oc, f) =>
    astAddImport(oc, f, spec, PREVIEW);
const unimp =
  (spec: string): Op =>
  (oc, f) =>
    astRemoveImport(oc, f, spec, PREVIEW);
const insert =
  (symbol: string, text: string, where: "before" | "after"): Op =>
  (oc, f) =>
    astInsert(oc, f, symbol, text, where, PREVIEW);

/** Each case's output, as a unified diff of its fixture, is test/goldens/ast/<name><ext of the fixture>.diff. */
const CASES: Array<[name: string, fixture: string, op: Op]> = [
  ["ts-rename-member", "service.ts", rename("AuthService.validate", "verify")],
  ["ts-rename-class", "service.ts", rename("AuthService", "TokenService")],
  ["ts-rename-import", "service.ts", rename("Repository", "Store")],
  ["ts-rename-namespace-import", "service.ts", rename("log", "logger")],
  ["ts-rename-overloaded", "service.ts", rename("format", "padToken")],
  ["ts-rename-shorthand", "service.ts", rename("token", "jwt", 29)],
  ["ts-rename-parameter-property", "service.ts", rename("AuthService.repo", "store")],
  ["ts-rename-field", "service.ts", rename("AuthService.attempts", "tries")],
  ["ts-body-method", "service.ts", body("AuthService.reset", 'this.attempts = 0;\nlog.debug("reset");')],
  ["ts-body-braced", "service.ts", body("check", "{\n    return null;\n}")],
  ["ts-before-method", "service.ts", insert("AuthService.validate", "/** Counts calls. */\ncount(): number {\n  return this.attempts;\n}\n", "before")],
  ["ts-after-function", "service.ts", insert("check", "export const VERSION = 1;", "after")],
  ["ts-before-overloads", "service.ts", insert("format", "// the overloads follow", "before")],
  ["ts-after-overloads", "service.ts", insert("format", "// the overloads end", "after")],
  ["ts-before-class-doc", "service.ts", insert("AuthService", "export type Token = string;\n", "before")],
  ["tsx-rename-prop-type", "component.tsx", rename("Props", "CounterProps")],
  ["tsx-rename-destructured", "component.tsx", rename("count", "clicks")],
  ["tsx-body-arrow", "component.tsx", body("Badge", "return <b>{props.label}</b>;")],
  ["js-rename-var", "legacy.js", rename("item", "entry")],
  ["js-rename-require", "legacy.js", rename("path", "nodePath")],
  ["js-rename-exported", "legacy.js", rename("resolveAll", "resolveEach")],
  ["js-rename-private", "legacy.js", rename("Cache.get", "read")],
  ["js-body", "legacy.js", body("resolveAll", 'return items.map((item) => path.join("/", item));')],
  ["py-rename-import-alias", "models.py", rename("open_store", "open_db")],
  ["py-rename-module-const", "models.py", rename("LIMIT", "MAX_ROWS")],
  ["py-rename-method", "models.py", rename("User.load", "fetch")],
  ["py-rename-attribute", "models.py", rename("User.name", "username")],
  ["py-rename-param", "models.py", rename("fn", "func")],
  ["py-body-decorated", "models.py", body("User.load", "return []")],
  ["py-body-nested", "models.py", body("wrapper", "print(args)\nreturn fn(*args)")],
  ["py-before-decorated", "models.py", insert("User.load", "def count(self):\n    return 0\n", "before")],
  ["py-after-class", "models.py", insert("User", '\n\nclass Admin(User):\n    kind = "admin"', "after")],
  ["go-rename-field", "server.go", rename("Server.name", "label")],
  ["go-rename-method", "server.go", rename("Server.Run", "Serve")],
  ["go-rename-import", "server.go", rename("str", "strs")],
  ["go-rename-local", "server.go", rename("srv", "s2")],
  ["go-body-tabs", "server.go", body("New", "return &Server{name: name}")],
  ["go-before-type-doc", "server.go", insert("Server", "// Client calls a server.\ntype Client struct{}\n", "before")],
  ["go-after-method", "server.go", insert("Server.Run", "\nfunc (s *Server) Stop() {\n\ts.count = 0\n}", "after")],
  ["rs-rename-field", "shapes.rs", rename("Point.x", "px")],
  ["rs-rename-struct", "shapes.rs", rename("Point", "Vec2")],
  ["rs-rename-shadowed", "shapes.rs", rename("sum", "total", 16)],
  ["rs-rename-method", "shapes.rs", rename("Point.norm", "length")],
  ["rs-rename-used-by-tests", "shapes.rs", rename("far", "distant")],
  ["rs-body-impl", "shapes.rs", body("Point.norm", "(self.x * self.x + self.y * self.y).sqrt()")],
  ["rs-after-mod-item", "shapes.rs", insert("origin", "pub fn unit() -> super::Point {\n    super::Point::new(1.0, 0.0)\n}", "after")],
  ["rs-before-attributes", "shapes.rs", insert("Point", "/// A size.\npub type Size = f64;\n", "before")],
  ["ts-add-merge-multiline", "imports.ts", imp("{ gamma } from ./letters")],
  ["ts-add-new-style", "imports.ts", imp("{ z } from ./z")],
  ["ts-add-default-into", "component.tsx", imp("{ useEffect } from react")],
  ["ts-add-first", "plain.ts", imp("* as os from node:os")],
  ["ts-add-type", "imports.ts", imp("type { Dirent } from node:fs")],
  ["ts-remove-name", "imports.ts", unimp("{ beta } from ./letters")],
  ["ts-remove-module", "imports.ts", unimp("node:path")],
  ["ts-remove-type", "imports.ts", unimp("type { Stats } from node:fs")],
  ["js-add-require-merge", "common.cjs", imp("{ dirname } from path")],
  ["js-add-require-new", "common.cjs", imp("* as os from os")],
  ["js-add-require-default", "legacy.js", imp("util from util")],
  ["js-remove-require", "common.cjs", unimp("fs from fs")],
  ["py-add-merge-parenthesized", "imports.py", imp("from typing import Dict")],
  ["py-add-module", "imports.py", imp("import sys")],
  ["py-add-esm-form", "imports.py", imp("{ Store, Engine } from .store")],
  ["py-add-after-docstring", "models.py", imp("import re")],
  ["py-remove-name", "imports.py", unimp("from typing import Any")],
  ["py-remove-module", "imports.py", unimp("import os")],
  ["go-add-to-single", "imports.go", imp('"os"')],
  ["go-add-to-block", "server.go", imp('"os"')],
  ["go-add-first", "noimports.go", imp('str "strings"')],
  ["go-remove-from-block", "server.go", unimp('"fmt"')],
  ["rs-add-merge-list", "imports.rs", imp("std::io::Write")],
  ["rs-add-merge-single", "imports.rs", imp("std::collections::HashSet")],
  ["rs-add-new", "imports.rs", imp("serde::Serialize")],
  ["rs-add-first", "shapes.rs", imp("std::cmp::Ordering")],
  ["rs-remove-from-list", "imports.rs", unimp("std::io::Read")],
  ["rs-remove-whole", "imports.rs", unimp("std::collections::HashMap")],
  ["four-body-spaces", "four.ts", body("Queue.push", 'if (n < 0) {\n  throw new Error("negative");\n}\nthis.items.push(n);')],
];

describe("AST edits: golden outputs", () => {
  for (const [name, fixture, op] of CASES) {
    it(`${name} (${fixture})`, async () => {
      const before = readFileSync(project.root + "/" + fixture);
      const result = await op(ctx(), fixture);
      expect(result.data.changes).toBeGreaterThan(0);
      // The golden is the edit as a diff of its fixture: what changed, reviewable at a glance.
      expectGolden(`ast/${name}${extname(fixture)}.diff`, generateDiff(`a/${fixture}`, `b/${fixture}`, before.toString("utf8"), result.data.newSource!, 2));
      // A preview writes nothing.
      expect(readFileSync(project.root + "/" + fixture).equals(before)).toBe(true);
    });
  }
});

async function refusal(op: Op, fixture: string): Promise<{ code: string; message: string }> {
  const before = readFileSync(join(project.root, fixture));
  try {
    await op(ctx(), fixture);
  } catch (err) {
    if (!isMastError(err)) throw err;
    expect(readFileSync(join(project.root, fixture)).equals(before)).toBe(true);
    return { code: err.code, message: err.message };
  }
  throw new Error("expected a refusal");
}

describe("AST edits: refusals leave the file as it was", () => {
  it("AMBIGUOUS_SYMBOL lists each contending binding as `line N (kind)`; line picks one; a bare name is a variable's before a member's", async () => {
    expect(await refusal(rename("token", "jwt"), "service.ts")).toEqual({
      code: "AMBIGUOUS_SYMBOL",
      // The overload signature's parameter (line 23) binds nothing a body sees.
      message: "'token' binds 3 different symbols in the file: line 11 (parameter), line 24 (parameter), line 29 (parameter)",
    });
    // A bare name is the variable's when one variable has it (the field is AuthService.attempts).
    const local = await rename("attempts", "n")(ctx(), "service.ts");
    expect(local.data.newSource!.split("\n").filter((l, i) => l !== readFileSync(join(FIXTURES, "service.ts"), "utf8").split("\n")[i])).toEqual([
      "  const n = 3;",
      "    return { token, attempts: n };",
    ]);
    project.write("twice-local.ts", "export function a() {\n  const v = 1;\n  return v;\n}\nexport function b() {\n  const v = 2;\n  return v;\n}\n");
    expect(await refusal(rename("v", "w"), "twice-local.ts")).toEqual({
      code: "AMBIGUOUS_SYMBOL",
      message: "'v' binds 2 different symbols in the file: line 2 (variable_declarator), line 6 (variable_declarator)",
    });
    // A shadowed local in Python, and a method of two owners in Rust (`fmt` of Display and the module `fmt`).
    expect((await refusal(rename("name", "n"), "models.py")).message).toBe("'name' binds 2 different symbols in the file: line 17 (parameter), line 30 (parameter)");
    // `fmt` is the module `use std::fmt::{self}` binds (the method is Display's, Point.fmt).
    const module = await rename("fmt", "f2")(ctx(), "shapes.rs");
    expect(module.data.newSource).toContain("use std::fmt::{self as f2, Display};");
    expect(module.data.newSource).toContain("fn fmt(&self, f: &mut f2::Formatter) -> f2::Result {");
  });

  it("a new name the file already uses is refused (it would change what a name refers to)", async () => {
    expect(await refusal(rename("pad", "token"), "service.ts")).toMatchObject({ code: "AMBIGUOUS_SYMBOL", message: expect.stringContaining("'token' is already a name in the file") });
    expect(await refusal(rename("Point.x", "y"), "shapes.rs")).toMatchObject({ code: "AMBIGUOUS_SYMBOL", message: expect.stringContaining("Point already has a member named 'y'") });
  });

  it("SYMBOL_NOT_FOUND for an unknown name; insertions refuse a parameter or import naming its node type; AMBIGUOUS_SYMBOL lists anchors", async () => {
    expect(await refusal(rename("nothing", "x"), "service.ts")).toMatchObject({ code: "SYMBOL_NOT_FOUND" });
    expect(await refusal(insert("token", "x;", "after"), "service.ts")).toEqual({
      code: "SYMBOL_NOT_FOUND",
      message: "no declaration named 'token' in the file; it is only a name in required_parameter at line 11, which is no statement or declaration to insert at",
    });
    expect(await refusal(insert("Repository", "x;", "after"), "service.ts")).toMatchObject({ code: "SYMBOL_NOT_FOUND", message: expect.stringContaining("import_specifier at line 1") });
    // A free function and a method of one name: the line picks one.
    project.write("visit.rs", "fn visit() -> u8 {\n    1\n}\n\nimpl V {\n    fn visit(&self) -> u8 {\n        2\n    }\n}\n");
    expect(await refusal(body("visit", "0"), "visit.rs")).toMatchObject({ code: "AMBIGUOUS_SYMBOL", message: "'visit' names 2 declarations: function_item at line 1, function_item at line 6" });
    const picked = await astReplaceBody(ctx(), "visit.rs", "visit", "0", PREVIEW, 1);
    expect(picked.data.newSource).toBe("fn visit() -> u8 {\n    0\n}\n\nimpl V {\n    fn visit(&self) -> u8 {\n        2\n    }\n}\n");
    project.write("twice.ts", "export function f() {}\nexport const x = 1;\nexport namespace f {}\n");
    expect(await refusal(insert("f", "x;", "before"), "twice.ts")).toEqual({
      code: "AMBIGUOUS_SYMBOL",
      message: "'f' names 2 declarations: function_declaration at line 1, internal_module at line 3",
    });
    expect(await refusal(body("Handler.Handle", "return nil"), "server.go")).toMatchObject({ code: "SYMBOL_NOT_FOUND", message: "'Handler.Handle' has no body to replace (method_elem at line 16)" });
  });

  it("PARSE_ERROR: a broken file unless waived, and an edit that would break it never", async () => {
    project.write("broken.ts", "export function f( {\n  return 1;\n}\n");
    expect(await refusal(body("f", "return 2;"), "broken.ts")).toMatchObject({ code: "PARSE_ERROR", message: expect.stringContaining("does not parse") });
    expect(await refusal(body("AuthService.reset", "this.attempts = ;"), "service.ts")).toMatchObject({ code: "PARSE_ERROR", message: expect.stringContaining("would leave") });
    // Waived, the broken file is edited, and the edit adds no error of its own.
    project.write("half.ts", "export function ok() {\n  return 1;\n}\nexport function bad( {\n");
    const waived = await astReplaceBody(ctx(), "half.ts", "ok", "return 2;", { ...WRITE, allowParseErrors: true });
    expect(waived.data.changes).toBe(1);
    expect(readFileSync(join(project.root, "half.ts"), "utf8")).toBe("export function ok() {\n  return 2;\n}\nexport function bad( {\n");
    // A waived broken file still may not get an error of the edit's own.
    project.write("half2.ts", "export function ok() {\n  return 1;\n}\nexport function bad( {\n");
    expect((await refusal((oc, f) => astReplaceBody(oc, f, "ok", "return (;", { ...WRITE, allowParseErrors: true }), "half2.ts")).code).toBe("PARSE_ERROR");
  });

  it("UNSUPPORTED_OPERATION for a language without AST edits and for .d.ts files", async () => {
    project.write("notes.md", "# notes\n");
    project.write("types.d.ts", "export declare function f(): void;\n");
    expect((await refusal(rename("notes", "n"), "notes.md")).code).toBe("UNSUPPORTED_OPERATION");
    expect((await refusal(rename("f", "g"), "types.d.ts")).code).toBe("UNSUPPORTED_OPERATION");
  });

  it("SEARCH_TRUNCATED, never SYMBOL_NOT_FOUND, when the walk stops at the depth guard", async () => {
    const deep = `export const v = ${"[".repeat(250)}1${"]".repeat(250)};\nexport function f() {}\n`;
    project.write("deep.ts", deep);
    expect((await refusal(rename("f", "g"), "deep.ts")).code).toBe("SEARCH_TRUNCATED");
    expect((await refusal(body("missing", "x"), "deep.ts")).code).toBe("SEARCH_TRUNCATED");
    const found = astFindSymbols(ctx(), "deep.ts");
    expect(found.data.truncated).toBe(true);
    expect(found.warnings.map((w) => w.code)).toEqual(["SEARCH_TRUNCATED"]);
  });
});

describe("AST edits: imports", () => {
  it("an import already there changes nothing and writes nothing", async () => {
    const before = readFileSync(join(project.root, "imports.ts"));
    const r = await astAddImport(ctx(), "imports.ts", "{ alpha } from ./letters", WRITE);
    expect(r.data).toMatchObject({ changes: 0, message: "'{ alpha } from ./letters' is imported already" });
    expect(r.written).toEqual([]);
    expect(readFileSync(join(project.root, "imports.ts")).equals(before)).toBe(true);
  });

  it("MODULE_SYSTEM_MISMATCH in the three documented cases, with the recovery step", async () => {
    expect(await refusal(imp("{ a } from ./x.js"), "mixed.js")).toMatchObject({ code: "MODULE_SYSTEM_MISMATCH", message: expect.stringContaining("uses both require and import") });
    expect(await refusal(imp("D, { a } from ./x"), "common.cjs")).toMatchObject({ code: "MODULE_SYSTEM_MISMATCH", message: expect.stringContaining("a default binding together with named ones") });
    expect(await refusal(imp("type { T } from ./x"), "common.cjs")).toMatchObject({ code: "MODULE_SYSTEM_MISMATCH", message: expect.stringContaining("type-only") });
    // A package.json type settles a mixed file.
    project.write("pkg/package.json", '{ "type": "module" }');
    project.write("pkg/mixed.js", readFileSync(join(FIXTURES, "mixed.js")));
    const settled = await astAddImport(ctx(), "pkg/mixed.js", "{ c } from ./c.js", PREVIEW);
    expect(settled.data.newSource).toContain('import { c } from "./c.js";');
  });

  it("an import spec that cannot be read is INVALID_ARGUMENT; a missing one SYMBOL_NOT_FOUND", async () => {
    expect((await refusal(imp("{ a from"), "plain.ts")).code).toBe("INVALID_ARGUMENT");
    expect((await refusal(unimp("{ nope } from ./letters"), "imports.ts")).code).toBe("SYMBOL_NOT_FOUND");
    expect((await refusal(unimp('"net/http"'), "server.go")).code).toBe("SYMBOL_NOT_FOUND");
  });
});

describe("AST edits: writes", () => {
  it("keep the BOM and CRLF endings of untouched and new lines, and record the changeSet", async () => {
    const r = await astInsert(ctx(), "bom-crlf.ts", "greet", 'export function bye(name: string): string {\n  return "bye " + name;\n}', "after", WRITE);
    expect(r.written).toEqual([join(project.root, "bom-crlf.ts")]);
    expect(readFileSync(join(project.root, "bom-crlf.ts"), "latin1")).toBe(
      '\xef\xbb\xbfexport function greet(name: string): string {\r\n  return "hi " + name;\r\n}\r\nexport function bye(name: string): string {\r\n  return "bye " + name;\r\n}\r\n\r\nexport const NAME = "x";\r\n',
    );
    const renamed = await astRenameSymbol(ctx(), "bom-crlf.ts", "name", "who", 1, WRITE);
    expect(renamed.data).toMatchObject({
      changes: 2,
      changedLines: [
        { start: 1, end: 1 },
        { start: 2, end: 2 },
      ],
    });
    expect(readFileSync(join(project.root, "bom-crlf.ts"), "latin1").split("\r\n").slice(0, 2)).toEqual(["\xef\xbb\xbfexport function greet(who: string): string {", '  return "hi " + who;']);
  });

  it("a dry run answers the unified diff and sourceOmitted, not the file", async () => {
    const r = await astRenameSymbol(ctx(), "server.go", "DefaultName", "FallbackName", null, { ...PREVIEW, includeSource: false });
    expect(r.data).toMatchObject({ dryRun: true, sourceOmitted: true, changes: 2 });
    expect((r.data as { diff: string }).diff.split("\n").filter((l) => /^[-+][^-+]/.test(l))).toEqual([
      '-const DefaultName = "srv"',
      '+const FallbackName = "srv"',
      "-\t\tsrv.name = DefaultName",
      "+\t\tsrv.name = FallbackName",
    ]);
  });

  it("a path inside a macro's tokens is listed as unresolved, not renamed; `use super::x` and `m::x` of an inline module are renamed", async () => {
    const r = await astRenameSymbol(ctx(), "shapes.rs", "Point", "Vec2", null, PREVIEW);
    expect((r.data as { unresolved: Array<{ line: number }> }).unresolved.map((u) => u.line)).toEqual([46]);
    project.write("inline.rs", "mod util {\n    pub fn helper() -> u8 {\n        1\n    }\n}\n\nfn main() {\n    util::helper();\n}\n");
    const inline = await astRenameSymbol(ctx(), "inline.rs", "helper", "aid", null, PREVIEW);
    expect(inline.data.newSource).toBe("mod util {\n    pub fn aid() -> u8 {\n        1\n    }\n}\n\nfn main() {\n    util::aid();\n}\n");
  });

  it("answers are sized for a context window: a dry run's diff, not the file; find-symbols and unresolved lists are capped", async () => {
    const dry = await astRenameSymbol(ctx(), "service.ts", "AuthService.validate", "verify", null, { ...PREVIEW, includeSource: false });
    expect(Buffer.byteLength(JSON.stringify(dry.data))).toBeLessThan(1500);
    // `m: any` says nothing of the object: each access is unresolved (a `Map` one would be known to be no Store).
    const many = ["class Store {", "  get(k: string) {", "    return k;", "  }", "}", ...Array.from({ length: 60 }, (_, i) => `export function f${i}(m: any) { return m.get("k"); }`)].join("\n");
    project.write("many.ts", `${many}\n`);
    const r = await astRenameSymbol(ctx(), "many.ts", "Store.get", "read", null, { ...PREVIEW, includeSource: false });
    expect(r.data).toMatchObject({ changes: 1, unresolvedTotal: 60 });
    expect((r.data as { unresolved: unknown[] }).unresolved).toHaveLength(50);
    expect(Buffer.byteLength(JSON.stringify(r.data))).toBeLessThan(6000);
    project.write("decls.ts", Array.from({ length: 2100 }, (_, i) => `export const c${i} = ${i};`).join("\n"));
    const found = astFindSymbols(ctx(), "decls.ts");
    expect([found.data.symbols.length, found.data.omitted, found.warnings.map((w) => w.code)]).toEqual([2000, 100, ["RESULT_TRUNCATED"]]);
  });

  it("a Python class named in a `case` pattern is renamed there too (a dotted name outside an import is a use)", async () => {
    project.write("match.py", "class Point:\n    x = 0\n\n\ndef where(p):\n    match p:\n        case Point(x=0):\n            return 'origin'\n    return Point\n");
    const r = await astRenameSymbol(ctx(), "match.py", "Point", "Pt", null, PREVIEW);
    expect(r.data.newSource).toBe("class Pt:\n    x = 0\n\n\ndef where(p):\n    match p:\n        case Pt(x=0):\n            return 'origin'\n    return Pt\n");
    // The pattern's keyword matches the attribute: renaming Point.x renames it.
    const attr = await astRenameSymbol(ctx(), "match.py", "Point.x", "left", null, PREVIEW);
    expect(attr.data.newSource).toBe("class Point:\n    left = 0\n\n\ndef where(p):\n    match p:\n        case Point(left=0):\n            return 'origin'\n    return Point\n");
  });

  it("member accesses on objects of unknown type are listed, not changed", async () => {
    const r = await astRenameSymbol(ctx(), "service.ts", "AuthService.validate", "verify", null, PREVIEW);
    expect(r.data).toMatchObject({ changes: 3, unresolved: [{ line: 36, text: "other().validate" }] });
    // No index was asked about other files' uses of the member (the tools layer asks it).
    expect(r.warnings.map((w) => w.code)).toEqual(["UNRESOLVED_REFERENCES", "CROSS_FILE_UNCHECKED"]);
  });
});

describe("ast find-symbols and capabilities", () => {
  it("lists every declaration with both coordinate conventions", () => {
    const found = astFindSymbols(ctx(), "server.go");
    expect(found.data.truncated).toBe(false);
    expect(found.data.symbols.map((s) => `${s.startLine}:${s.startColumn}-${s.endLine}:${s.endColumn} ${s.kind} ${s.qualifiedName}`)).toEqual([
      "9:6-12:2 type_spec Server",
      "10:2-10:14 field_declaration Server.name",
      "11:2-11:11 field_declaration Server.count",
      "15:6-17:2 type_spec Handler",
      "16:2-16:27 method_elem Handler.Handle",
      "19:7-19:26 const_spec DefaultName",
      "22:1-29:2 method_declaration Server.Run",
      "31:1-37:2 function_declaration New",
    ]);
    const first = found.data.symbols[0]!;
    expect([first.startRow, first.startCol, first.endRow, first.endCol]).toEqual([8, 5, 11, 1]);
  });

  it("capabilities are the specs' edit rules", () => {
    const caps = astCapabilities().data;
    expect(caps.map((c) => `${c.lang} ${c.extensions.join(" ")}`)).toEqual(["typescript .ts .mts .cts .tsx", "javascript .js .jsx .mjs .cjs", "python .py .pyi", "go .go", "rust .rs"]);
    expect(caps[0]!.operations).toEqual(["find-symbols", "rename-symbol", "replace-body", "add-import", "remove-import", "insert-before", "insert-after"]);
    expect(caps.find((c) => c.lang === "go")!.limitations[0]).toBe("rename-symbol is file-scoped, but a Go package spans its directory: names used by the package's other files are not changed there");
  });
});

// Cases an adversarial review found (each was once a silent wrong edit).
describe("AST edits: what a rename asks the index about other files", () => {
  /** The declarations a rename hands its crossFileUses hook, and the warnings it answers with. */
  async function asked(file: string, symbol: string, newName: string, line: number | null = null) {
    const seen: string[] = [];
    const r = await astRenameSymbol(ctx(), file, symbol, newName, line, {
      ...PREVIEW,
      crossFileUses: async (d) => {
        seen.push(`${d.path.slice(project.root.length + 1)} ${d.name}`);
        return { total: 0, verified: 0, fileCount: 0, sites: [] };
      },
    });
    return { seen, codes: r.warnings.map((w) => w.code) };
  }

  it("a file-level declaration by its name, a member as Owner.member, in every language; a local, a parameter or an import is not asked about", async () => {
    expect(await asked("models.py", "find", "lookup")).toEqual({ seen: ["models.py find"], codes: [] });
    expect(await asked("models.py", "User.load", "fetch")).toEqual({ seen: ["models.py User.load"], codes: [] });
    expect(await asked("server.go", "DefaultName", "FallbackName")).toEqual({ seen: ["server.go DefaultName"], codes: [] });
    expect(await asked("server.go", "Server.Run", "Start")).toEqual({ seen: ["server.go Server.Run"], codes: [] });
    expect(await asked("shapes.rs", "far", "distant")).toEqual({ seen: ["shapes.rs far"], codes: [] });
    expect(await asked("shapes.rs", "Point.norm", "length")).toEqual({ seen: ["shapes.rs Point.norm"], codes: [] });
    expect(await asked("service.ts", "AuthService", "TokenService")).toEqual({ seen: ["service.ts AuthService"], codes: [] });
    expect((await asked("models.py", "wrapper", "inner")).seen).toEqual([]);
    expect((await asked("service.ts", "token", "jwt", 29)).seen).toEqual([]);
    expect((await asked("service.ts", "Repository", "Store")).seen).toEqual([]);
  });

  it("what the hook answers becomes the warning: CROSS_FILE_USES with the count and sites, CROSS_FILE_UNCHECKED with its reason", async () => {
    const sites = [
      { path: "pkg/b.py", line: 5 },
      { path: "pkg/c.py", line: 2 },
    ];
    const uses = await astRenameSymbol(ctx(), "models.py", "find", "lookup", null, { ...PREVIEW, crossFileUses: async () => ({ total: 7, verified: 3, fileCount: 2, sites }) });
    expect(uses.warnings).toEqual([
      {
        code: "CROSS_FILE_USES",
        message: "7 use(s) in 2 other file(s) (e.g. pkg/b.py:5, pkg/c.py:2) still name 'find'; rename across files with `hashpilot intent rename-exported-symbol`",
        symbol: "find",
        total: 7,
        verified: 3,
        fileCount: 2,
        sites,
      },
    ]);
    const unchecked = await astRenameSymbol(ctx(), "models.py", "find", "lookup", null, { ...PREVIEW, crossFileUses: async () => ({ unchecked: "no index found" }) });
    expect(unchecked.warnings).toEqual([
      {
        code: "CROSS_FILE_UNCHECKED",
        message: "other files' uses of 'find' were not checked (no index found): any that name 'find' still do; mast_rename_impact lists them once the project is indexed",
      },
    ]);
  });
});

describe("AST edits: reviewed cases", () => {
  const src = async (file: string, text: string, op: Op) => {
    project.write(file, text);
    return op(ctx(), file);
  };
  const unresolvedLines = (r: OpResult<unknown>) => ((r.data as { unresolved?: Array<{ line: number }> }).unresolved ?? []).map((u) => u.line);

  it("Python: global/nonlocal refuse even with line; defaults and class-body comprehensions resolve outside; walrus binds in the function; match captures bind", async () => {
    project.write("g.py", "counter = 0\ndef bump():\n    global counter\n    counter += 1\n");
    expect((await refusal(rename("counter", "hits", 1), "g.py")).code).toBe("AMBIGUOUS_SYMBOL");
    const d = await src("d.py", "limit = 5\ndef f(xs, limit=limit):\n    return xs\n\n\ntotal = 0\nclass Acc:\n    total = 10\n    items = [total for _ in range(3)]\n", rename("limit", "cap", 1));
    expect(d.data.newSource).toBe("cap = 5\ndef f(xs, limit=cap):\n    return xs\n\n\ntotal = 0\nclass Acc:\n    total = 10\n    items = [total for _ in range(3)]\n");
    const t = await rename("total", "grand", 6)(ctx(), "d.py");
    expect(t.data.newSource).toContain("    items = [grand for _ in range(3)]\n");
    const walrus = await src("w.py", "def g(xs):\n    if any((hit := x) > 3 for x in xs):\n        return hit\n", rename("hit", "found"));
    expect(walrus.data.newSource).toBe("def g(xs):\n    if any((found := x) > 3 for x in xs):\n        return found\n");
    const capture = await src("c.py", 'def where(p, x):\n    match p:\n        case {"x": x}:\n            return x\n    return x\n', rename("x", "xx"));
    expect(capture.data.newSource).toBe('def where(p, xx):\n    match p:\n        case {"x": xx}:\n            return xx\n    return xx\n');
  });

  it("Python: a @staticmethod's first parameter is no instance, keyword arguments and other types' accesses are listed", async () => {
    const st = await src(
      "s.py",
      "class Node:\n    def __init__(self):\n        self.value = 1\n\n    @staticmethod\n    def helper(other):\n        return other.value\n\n    @classmethod\n    def make(cls, v):\n        obj = cls()\n        obj.value = v\n        return obj\n\n\nclass Sub(Node):\n    def get(self):\n        return self.value\n",
      rename("Node.value", "payload"),
    );
    expect(st.data.newSource).toContain("        self.payload = 1\n");
    expect(unresolvedLines(st)).toEqual([7, 12, 18]);
    const kw = await src("k.py", "def fetch(url, timeout=5):\n    return timeout\n\n\nfetch('x', timeout=10)\n", rename("timeout", "limit"));
    expect(kw.data.newSource).toBe("def fetch(url, limit=5):\n    return limit\n\n\nfetch('x', timeout=10)\n");
    expect(unresolvedLines(kw)).toEqual([5]);
  });

  it("TypeScript: uses where the name is declared twice are listed; JSX tags; an object literal's this; destructured keys and overrides are listed; no such member is SYMBOL_NOT_FOUND", async () => {
    const status = await src(
      "st.ts",
      "export const Status = { On: 'on' } as const;\nexport type Status = typeof Status[keyof typeof Status];\nfunction f(s: Status) { return s === Status.On; }\n",
      rename("Status", "State", 1),
    );
    // `Status` is a value and a type in one scope: its uses are listed, only the declaration picked is renamed.
    expect(status.data.newSource!.split("\n")[0]).toBe("export const State = { On: 'on' } as const;");
    expect(unresolvedLines(status)).toEqual([2, 2, 3, 3]);
    const jsx = await src("k.tsx", "const div = 1;\nexport const A = () => <div><Button /></div>;\nfunction Button() { return <span>{div}</span>; }\n", rename("div", "Div"));
    expect(jsx.data.newSource).toBe("const Div = 1;\nexport const A = () => <div><Button /></div>;\nfunction Button() { return <span>{Div}</span>; }\n");
    expect((await refusal(rename("Button", "btn"), "k.tsx")).code).toBe("INVALID_ARGUMENT");
    const members = await src(
      "m.ts",
      "class A {\n  name = 'a';\n  m() {\n    const o = { get() { return this.name; } };\n    const { name } = this;\n    return name + o.get();\n  }\n}\nclass B extends A {\n  name = 'b';\n}\n",
      rename("A.name", "label"),
    );
    expect(members.data.newSource!.split("\n").slice(0, 5)).toEqual(["class A {", "  label = 'a';", "  m() {", "    const o = { get() { return this.name; } };", "    const { name } = this;"]);
    expect(unresolvedLines(members)).toEqual([4, 5, 10]);
    expect((await refusal(rename("A.missing", "x"), "m.ts")).code).toBe("SYMBOL_NOT_FOUND");
    // A namespace written twice is one: its second body's `unit` is the first's export, not the outer const.
    const ns = "namespace Shapes {\n  export const unit = 1;\n}\nnamespace Shapes {\n  export function perim(r: number) {\n    return r * unit;\n  }\n}\nconst unit = 2;\n";
    const inner = await src("ns.ts", ns, rename("unit", "step", 2));
    expect(inner.data.newSource).toBe(ns.replace("export const unit", "export const step").replace("r * unit", "r * step"));
    const outer = await rename("unit", "scale", 9)(ctx(), "ns.ts");
    expect(outer.data.newSource).toBe(ns.replace("const unit = 2;", "const scale = 2;"));
  });

  it('Go: a := declares from its statement on; promoted fields and literals without their type are listed; nothing joins import "C"', async () => {
    const go = "package m\n\nvar count = 0\n\nfunc inc() {\n\tcount++\n\tcount, extra := 1, 2\n\t_, _ = count, extra\n}\n";
    const global = await src("c.go", go, rename("count", "total", 3));
    expect(global.data.newSource).toBe("package m\n\nvar total = 0\n\nfunc inc() {\n\ttotal++\n\tcount, extra := 1, 2\n\t_, _ = count, extra\n}\n");
    const local = await rename("count", "local", 7)(ctx(), "c.go");
    expect(local.data.newSource).toBe("package m\n\nvar count = 0\n\nfunc inc() {\n\tcount++\n\tlocal, extra := 1, 2\n\t_, _ = local, extra\n}\n");
    const promoted = await src(
      "p.go",
      "package m\n\ntype Base struct{ ID int }\ntype Admin struct{ Base }\n\nfunc (a Admin) Show() int { return a.ID }\n\ntype Job struct{ n int }\n\nvar jobs = []Job{{n: 1}}\n",
      rename("Base.ID", "Key"),
    );
    expect(unresolvedLines(promoted)).toEqual([6]);
    const job = await rename("Job.n", "count")(ctx(), "p.go");
    expect(unresolvedLines(job)).toEqual([10]);
    const cgo = await src("cgo.go", 'package main\n\n// int add(int a, int b) { return a + b; }\nimport "C"\n\nfunc main() { println(C.add(1, 2)) }\n', imp('"fmt"'));
    expect(cgo.data.newSource).toBe('package main\n\n// int add(int a, int b) { return a + b; }\nimport "C"\nimport "fmt"\n\nfunc main() { println(C.add(1, 2)) }\n');
  });

  it("Rust: Self literals and struct patterns are the struct's, a shorthand keeps its key either way, format strings are listed", async () => {
    const rs =
      'pub struct Config {\n    retries: u32,\n}\n\nimpl Config {\n    pub fn new() -> Self {\n        Self { retries: 3 }\n    }\n}\n\nfn mk(retries: u32) -> Config {\n    Config { retries }\n}\n\nfn main() {\n    let c = Config::new();\n    let Config { retries } = c;\n    match c {\n        Config { retries: 0 } => {}\n        _ => {}\n    }\n    println!("{retries}");\n}\n';
    const field = await src("cfg.rs", rs, rename("Config.retries", "attempts"));
    expect(field.data.newSource).toBe(
      rs
        .replace("    retries: u32,", "    attempts: u32,")
        .replace("Self { retries: 3 }", "Self { attempts: 3 }")
        .replace("Config { retries }\n}", "Config { attempts: retries }\n}")
        .replace("let Config { retries } = c;", "let Config { attempts: retries } = c;")
        .replace("Config { retries: 0 }", "Config { attempts: 0 }"),
    );
    const local = await rename("retries", "tries", 11)(ctx(), "cfg.rs");
    expect(local.data.newSource).toContain("fn mk(tries: u32) -> Config {\n    Config { retries: tries }\n}");
    const fmt = await rename("retries", "left", 17)(ctx(), "cfg.rs");
    expect(unresolvedLines(fmt)).toEqual([22]);
  });

  it("JavaScript: uses in a `with` body and where a direct eval runs are unresolved — refused (UNRESOLVED_REFERENCES) unless yes, and never renamed", async () => {
    const withJs = "var count = 0;\nvar obj = { count: 10 };\nfunction n() {\n  with (obj) {\n    count = count + 1;\n  }\n  return count;\n}\nconsole.log(n(), obj.count);\n";
    project.write("with.js", withJs);
    expect(await refusal(rename("count", "n2"), "with.js")).toEqual({
      code: "UNRESOLVED_REFERENCES",
      message: "2 use(s) of 'count' may or may not be this variable, which the text cannot tell (lines 5, 5): a rename around them could change what the code does; nothing was renamed",
    });
    const yes = await astRenameSymbol(ctx(), "with.js", "count", "n2", null, { ...PREVIEW, yes: true });
    expect(yes.data.newSource).toBe(withJs.replace("var count = 0;", "var n2 = 0;").replace("return count;", "return n2;"));
    expect((yes.data as { unresolved: unknown[] }).unresolved).toEqual([
      { line: 5, text: "count = count + 1 (inside `with (obj) {` at line 4: the name may be a property of its object)" },
      { line: 5, text: "count + 1 (inside `with (obj) {` at line 4: the name may be a property of its object)" },
    ]);
    expect(yes.warnings.map((w) => w.code)).toEqual(["UNRESOLVED_REFERENCES", "CROSS_FILE_UNCHECKED"]);
    // A `var` in the body binds the function's variable through the object too; a `let` in it is the body's own.
    const inside = await src("with2.js", "function f(o) {\n  var v = 1;\n  with (o) {\n    var v = 2;\n    let k = v;\n    k++;\n  }\n  return v;\n}\n", rename("k", "kk"));
    expect(inside.data.newSource).toBe("function f(o) {\n  var v = 1;\n  with (o) {\n    var v = 2;\n    let kk = v;\n    kk++;\n  }\n  return v;\n}\n");
    expect(unresolvedLines(await astRenameSymbol(ctx(), "with2.js", "v", "w", null, { ...PREVIEW, yes: true }))).toEqual([4, 5]);

    const evalJs = 'var total = 1;\nfunction f(code) {\n  eval(code);\n  return total;\n}\nfunction g() {\n  return total;\n}\nconsole.log(f("total = 5"), g());\n';
    project.write("eval.js", evalJs);
    expect((await refusal(rename("total", "t2"), "eval.js")).code).toBe("UNRESOLVED_REFERENCES");
    const accepted = await astRenameSymbol(ctx(), "eval.js", "total", "t2", null, { ...PREVIEW, yes: true });
    expect(accepted.data.newSource).toBe(evalJs.replace("var total = 1;", "var t2 = 1;").replace("function g() {\n  return total;", "function g() {\n  return t2;"));
    expect((accepted.data as { unresolved: unknown[] }).unresolved).toEqual([
      { line: 3, text: "eval(code) (the code it runs may use or declare 'total')" },
      { line: 4, text: "return total; (in reach of the code run at line 3, which may declare 'total' again)" },
    ]);
    // An eval that cannot see the variable (another function's, shadowed there), and indirect evals, change nothing.
    const apart = "function a() {\n  var x = 1;\n  return x;\n}\nfunction b(c) {\n  var x = 2;\n  eval(c);\n  (0, eval)(c);\n  globalThis.eval(c);\n  return x;\n}\n";
    const a = await src("apart.js", apart, rename("x", "y", 2));
    expect([a.data.newSource, unresolvedLines(a)]).toEqual([apart.replace("var x = 1;\n  return x;", "var y = 1;\n  return y;"), []]);
    const indirect = "var n = 1;\nfunction h(c) {\n  (0, eval)(c);\n  return globalThis.eval(c) + n;\n}\n";
    const i = await src("indirect.js", indirect, rename("n", "m"));
    expect(i.data.newSource).toBe(indirect.replace("var n = 1;", "var m = 1;").replace("+ n;", "+ m;"));
  });

  it("re-indenting keeps the inner lines of multi-line strings; replace-body keeps a Python docstring", async () => {
    const ts = await src("str.ts", "export class S {\n    render() {\n        return 1;\n    }\n}\n", body("S.render", "const s = `line1\nline2\n  line3`;\nreturn s;"));
    expect(ts.data.newSource).toBe("export class S {\n    render() {\n        const s = `line1\nline2\n  line3`;\n        return s;\n    }\n}\n");
    const py = await src("doc.py", 'def f():\n    """Says hi."""\n    return 1\n', body("f", 'x = """a\nb"""\nreturn x'));
    expect(py.data.newSource).toBe('def f():\n    """Says hi."""\n    x = """a\nb"""\n    return x\n');
  });

  it("add-import refuses a name the file binds already, and a type-only import is no value import", async () => {
    project.write("dup.ts", "import { b } from './b';\nexport const x = 1;\n");
    expect((await refusal(imp("{ b } from ./other"), "dup.ts")).code).toBe("AMBIGUOUS_SYMBOL");
    expect((await refusal(imp("{ x } from ./x"), "dup.ts")).code).toBe("AMBIGUOUS_SYMBOL");
    project.write("ty.ts", "import type { A } from './a';\nexport let v: A;\n");
    expect((await refusal(imp("{ A } from ./a"), "ty.ts")).message).toContain("line 1 binds already (import)");
    project.write("al.py", "from a import b as c, d\n");
    expect((await refusal(imp("from a import c"), "al.py")).code).toBe("AMBIGUOUS_SYMBOL");
  });
});
