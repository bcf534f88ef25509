// Golden-file and value tests for the TS/JS extractor (docs/extraction.md): every chunk type
// and export form, class shells and method chunks, overloads, imports, comments, the split rule,
// context lines, CRLF sources, syntax errors, and the declaration/body stability-hash rules.
import { describe, expect, it } from "vitest";
import { sha256 } from "../../src/base/hash.js";
import type { FileExtraction } from "../../src/syntax/types.js";
import { checkExtraction, checkInvariants, extractOk, fixturePath, lookup, readFixture, renderExtraction } from "../helpers/extraction.js";
import { expectGolden, UPDATING_GOLDENS } from "../helpers/golden.js";

/** Golden check of a fixture plus name lookups over its extraction. */
function check(fixture: string, options?: Parameters<typeof checkExtraction>[1], variant?: string) {
  const x = checkExtraction(fixture, options, variant);
  return { x, ...lookup(x) };
}

const brief = (x: FileExtraction) => x.chunks.map((c) => [c.chunkType, c.symbolName, c.parentSymbol, c.isExported, c.startLine, c.endLine, c.part]);

describe("functions", () => {
  it("declarations, generators, async, and const-bound arrow/function expressions are function chunks", () => {
    const { x, chunk, symbol } = check("functions.ts");
    for (const name of ["add", "counter", "load", "stream", "double", "greet", "square", "named", "gen"]) {
      const c = chunk(name);
      expect(c.chunkType).toBe("function");
      expect(c.parentSymbol).toBeNull();
      expect(c.isExported).toBe(false);
      expect(symbol(name).kind).toBe("function");
    }
    // The variable name wins over a named function expression's own name.
    expect(x.chunks.some((c) => c.symbolName === "inner")).toBe(false);
    expect(symbol("add").signature).toBe("function add(a: number, b: number): number");
    expect(symbol("counter").signature).toBe("function* counter(limit: number): Generator<number>");
    expect(symbol("double").signature).toBe("const double = (n: number): number =>");
    // The attached TSDoc is part of the stored content, not of the AST span.
    expect(chunk("add")).toMatchObject({ startLine: 2, endLine: 4, contentStartLine: 1 });
    expect(chunk("add").content.startsWith("/** Adds two numbers. */\nfunction add(")).toBe(true);
    expect(symbol("add").doc).toBe("/** Adds two numbers. */");
  });
});

describe("classes", () => {
  it("a class becomes a synthesized class_shell outline plus one method chunk per method", () => {
    const { chunk, chunks, symbol, symbols } = check("class-shell.ts");
    const shell = chunk("AuthService");
    expect(shell.chunkType).toBe("class_shell");
    expect(shell.isExported).toBe(true);
    expect(shell.parentSymbol).toBeNull();
    expect(shell).toMatchObject({ startLine: 6, endLine: 61, contentStartLine: 3 });
    const outline = shell.content.split("\n");
    expect(outline.slice(0, 5)).toEqual(["/**", " * Validates and issues sessions.", " */", "@Injectable()", "export class AuthService extends BaseService implements Service {"]);
    for (const member of [
      "  /** Sessions by id. */",
      "  private sessions = new Map<string, Session>();",
      "  static instances = 0;",
      '  #secret = "s3cret";',
      "  [key: string]: unknown;",
      // A static block is no member with a chunk: the outline holds it verbatim.
      "  static {",
      "    AuthService.instances = 0;",
      '  constructor(private readonly store: Store, protected clock: Clock, public label = "x");',
      '  @Log("validate")',
      "  validate(token: string): boolean;",
      "  get size(): number;",
      "  set size(value: number);",
      "  #rotate(): void;",
    ]) {
      expect(outline).toContain(member);
    }
    expect(outline[outline.length - 1]).toBe("}");
    // No method bodies in the outline.
    expect(shell.content).not.toContain("this.sessions.has");
    expect(shell.content).not.toContain("super()");

    const expected: Record<string, boolean> = {
      "AuthService.constructor": true,
      "AuthService.validate": true,
      "AuthService.refresh": true, // protected
      "AuthService.create": true, // public static
      "AuthService.purge": false, // private
      "AuthService.#rotate": false, // #private
      "AuthService.entries": true,
      "AuthService.handler": true, // arrow-function field
    };
    for (const [name, exported] of Object.entries(expected)) {
      const c = chunk(name);
      expect(c.chunkType).toBe("method");
      expect(c.parentSymbol).toBe("AuthService");
      expect(c.isExported, name).toBe(exported);
      expect(symbol(name)).toMatchObject({ kind: "method", parent: "AuthService", isExported: exported });
    }
    expect(chunk("AuthService.validate").isExported).toBe(true);
    expect(chunk("AuthService.validate")).toMatchObject({ startLine: 25, endLine: 28, contentStartLine: 24 });
    expect(chunk("AuthService.validate").content).toContain("return this.sessions.has(token);");
    expect(symbol("AuthService.validate").signature).toBe('@Log("validate")\n  validate(token: string): boolean');
    // Getter and setter are one chunk each under the same qualified name.
    expect(chunks("AuthService.size").map((c) => [c.startLine, c.isExported])).toEqual([
      [46, true],
      [50, true],
    ]);
    expect(symbols("AuthService.size")).toHaveLength(2);
    // Fields, index signatures and static blocks are outline lines only.
    expect(chunks("AuthService.sessions")).toEqual([]);
    expect(chunks("AuthService.#secret")).toEqual([]);
    expect(symbol("AuthService")).toMatchObject({ kind: "class", isExported: true, signature: "@Injectable()\nexport class AuthService extends BaseService implements Service" });
    // The static block's identifiers stay searchable through the shell's bag.
    expect(shell.identifiers).toContain("instances");
    expect(shell.identifiers).not.toContain("has");
  });

  it("abstract classes: abstract members are method chunks; a non-exported class exports nothing", () => {
    const { chunk, symbol } = check("class-abstract.ts");
    expect(chunk("Shape").content.split("\n")).toEqual([
      "/** Base of every shape. */",
      "export abstract class Shape {",
      "  abstract area(): number;",
      "  protected abstract get label(): string;",
      "  describe(): string;",
      "  private check(): boolean;",
      "}",
    ]);
    expect(chunk("Shape.area")).toMatchObject({ chunkType: "method", isExported: true, content: "  abstract area(): number;" });
    expect(chunk("Shape.label").isExported).toBe(true);
    expect(chunk("Shape.check").isExported).toBe(false);
    expect([symbol("Shape.area").hasBody, symbol("Shape").hasBody]).toEqual([false, true]);
    for (const name of ["Hidden", "Hidden.run", "Hidden.start", "Hidden.stop"]) expect(chunk(name).isExported, name).toBe(false);
  });

  it("method exportedness: exported class → all but private; non-exported class → none; `export { C }` later → as exported", () => {
    const { x } = check("class-exportedness.ts");
    const methods = Object.fromEntries(x.chunks.filter((c) => c.chunkType === "method").map((c) => [c.symbolName, c.isExported]));
    expect(methods).toEqual({
      "Exported.open": true,
      "Exported.pub": true,
      "Exported.prot": true,
      "Exported.priv": false,
      "Exported.#hash": false,
      "Internal.open": false,
      "Internal.pub": false,
      "Internal.prot": false,
      "Internal.priv": false,
      "ExportedLater.open": true,
      "ExportedLater.priv": false,
    });
    const { chunk, symbol } = lookup(x);
    expect(chunk("ExportedLater").isExported).toBe(true);
    expect(symbol("ExportedLater.open").isExported).toBe(true);
    expect(symbol("ExportedLater.priv").isExported).toBe(false);
  });

  it("plain JavaScript class fields, #private methods and arrow fields", () => {
    const { x, chunk } = check("class-fields.js");
    expect(x.language).toBe("javascript");
    expect(chunk("Counter").content.split("\n")).toEqual([
      "/** A counter with class fields. */",
      "export class Counter {",
      "  count = 0;",
      "  static zero = 0;",
      "  #step = 1;",
      "  static #instances = 0;",
      "  increment();",
      "  #reset();",
      "  static create();",
      "  get value();",
      "  onClick = () =>;",
      "}",
    ]);
    expect(chunk("Counter.increment").isExported).toBe(true);
    expect(chunk("Counter.#reset").isExported).toBe(false);
    expect(chunk("Counter.onClick")).toMatchObject({ chunkType: "method", parentSymbol: "Counter", isExported: true });
    expect(chunk("helper").isExported).toBe(false);
  });
});

describe("overloads", () => {
  it("merges top-level and method overload signatures into the implementation's chunk", () => {
    const { x, chunk, chunks, symbol } = check("overloads.ts");
    expect(chunks("parse")).toHaveLength(1);
    expect(chunk("parse")).toMatchObject({ startLine: 2, endLine: 6, contentStartLine: 1, isExported: false });
    expect(symbol("parse").signature).toBe("function parse(input: string): number;\nfunction parse(input: number): number;\nfunction parse(input: string | number): number");
    expect(chunk("pick")).toMatchObject({ startLine: 8, endLine: 11, isExported: true });
    // Per-overload docs and trailing comments do not break the run.
    expect(chunks("convert")).toHaveLength(1);
    expect(chunk("convert")).toMatchObject({ startLine: 29, endLine: 34, contentStartLine: 28 });
    expect(symbol("convert").doc).toBe("/** Converts a string. */");
    // Methods: one chunk from the first overload (doc attached) to the implementation.
    expect(chunks("Formatter.format")).toHaveLength(1);
    expect(chunk("Formatter.format")).toMatchObject({ startLine: 17, endLine: 21, contentStartLine: 16 });
    expect(chunks("Parser.read")).toHaveLength(1);
    expect(chunk("Parser.read")).toMatchObject({ startLine: 38, endLine: 44, contentStartLine: 37 });
    expect(symbol("Parser.read").doc).toBe("/** Parses text. */");
    expect(chunk("Formatter").content.split("\n")).toEqual([
      "export class Formatter {",
      "  /** Formats a value. */",
      "  format(value: string): string;",
      "  format(value: number): string;",
      "  format(value: string | number): string;",
      "  plain(): string;",
      "}",
    ]);
    // A signature with no implementation after it stays its own (body-less) method.
    expect(chunk("Parser.abstractLike").content).toBe("  abstractLike(a: string): void;");
    expect(x.symbols.filter((s) => s.kind === "method").map((s) => s.name)).toEqual(["Formatter.format", "Formatter.plain", "Parser.read", "Parser.abstractLike", "Parser.other"]);
  });
});

describe("interfaces, types, enums, namespaces, consts", () => {
  it("interfaces and type aliases are single chunks whose signature is the whole declaration", () => {
    const { chunk, symbol } = check("interface-type.ts");
    expect(chunk("User")).toMatchObject({ chunkType: "interface", isExported: false, startLine: 2, endLine: 7 });
    expect(symbol("User").signature).toBe("interface User {\n  id: string;\n  name?: string;\n  greet(other: User): string;\n  readonly [key: string]: unknown;\n}");
    expect(chunk("Id")).toMatchObject({ chunkType: "type", startLine: 13, endLine: 13 });
    expect(chunk("Partialize")).toMatchObject({ chunkType: "type", contentStartLine: 15 });
    expect(symbol("Handler").kind).toBe("type");
  });

  it("enums, namespaces, ambient modules and const declarations are named blocks", () => {
    const { x, chunk, symbol } = check("enum-namespace-const.ts");
    expect(chunk("Color")).toMatchObject({ chunkType: "block", isExported: false });
    expect(symbol("Color").kind).toBe("enum");
    expect(symbol("Flags").kind).toBe("enum");
    expect(symbol("Geometry")).toMatchObject({ kind: "namespace", signature: "namespace Geometry" });
    // What a namespace exports that can be called is `Ns.fn`, as a class method is `Class.m`, with a function chunk of its own inside the namespace's.
    expect(symbol("Geometry.area")).toMatchObject({ kind: "function", parent: "Geometry", line: 13, endLine: 15, isExported: false, signature: "export function area(r: number)" });
    expect(symbol("Geometry.area").params).toEqual([{ name: "r", type: "number", optional: false }]);
    expect(x.symbols.map((s) => s.name).filter((n) => n.startsWith("Geometry."))).toEqual(["Geometry.area"]);
    expect(x.chunks.filter((c) => c.symbolName === "Geometry.area").map((c) => [c.chunkType, c.parentSymbol, c.startLine, c.endLine])).toEqual([["function", "Geometry", 13, 15]]);
    expect(chunk("Geometry")).toMatchObject({ startLine: 11, endLine: 16 });
    // An ambient module's name is a string, not a namespace a call can name.
    expect(x.symbols.some((s) => s.name.startsWith("ambient-mod."))).toBe(false);
    expect(symbol("ambient-mod").kind).toBe("namespace");
    expect(chunk("LIMIT").chunkType).toBe("block");
    expect(symbol("LIMIT")).toMatchObject({ kind: "const", signature: "const LIMIT" });
    expect(symbol("legacy").kind).toBe("variable");
    // Several declarators: one unnamed block, one symbol per name.
    expect(x.chunks.find((c) => c.startLine === 35)).toMatchObject({ chunkType: "block", symbolName: null });
    expect([symbol("a").line, symbol("b").line]).toEqual([35, 36]);
  });
});

describe("export forms", () => {
  it("`export` on each declaration kind keeps the inner chunk type and sets is_exported", () => {
    const { x, chunk, symbol } = check("export-wrapped.ts");
    expect(brief(x)).toEqual([
      ["function", "run", null, true, 2, 2, 0],
      ["function", "pump", null, true, 4, 6, 0],
      ["function", "arrow", null, true, 8, 8, 0],
      ["function", "fnExpr", null, true, 10, 12, 0],
      ["class_shell", "Service", null, true, 15, 17, 0],
      ["method", "Service.go", "Service", true, 16, 16, 0],
      ["class_shell", "Base", null, true, 19, 21, 0],
      ["method", "Base.go", "Base", true, 20, 20, 0],
      ["interface", "Shape", null, true, 23, 25, 0],
      ["type", "Pair", null, true, 27, 27, 0],
      ["block", "Level", null, true, 29, 32, 0],
      ["block", "Tools", null, true, 34, 36, 0],
      ["block", "MAX", null, true, 38, 38, 0],
      ["block", null, null, true, 40, 41, 0],
      ["function", "declared", null, true, 43, 43, 0],
      ["block", null, null, true, 45, 45, 0],
    ]);
    expect(x.symbols.every((s) => s.isExported)).toBe(true);
    expect(symbol("Level").kind).toBe("enum");
    expect(symbol("Tools").kind).toBe("namespace");
    expect(symbol("counter").kind).toBe("variable");
    expect(chunk("run").content).toBe("/** Exported function. */\nexport function run(): void {}");
  });

  it("anonymous `export default function` is named `default`", () => {
    const { chunk, symbol } = check("handler.ts");
    expect(chunk("default")).toMatchObject({ chunkType: "function", isExported: true, startLine: 4, endLine: 6 });
    expect(symbol("default")).toMatchObject({ kind: "function", signature: "export default function (req: Request): string" });
  });

  it("anonymous `export default class` is a shell named `default`, with `default.`-qualified methods", () => {
    const { chunk } = check("widget.ts");
    expect(chunk("default")).toMatchObject({ chunkType: "class_shell", isExported: true });
    expect(chunk("default.render")).toMatchObject({ chunkType: "method", parentSymbol: "default", isExported: true });
    expect(chunk("default.hidden").isExported).toBe(false);
  });

  it("`export default {}` is an export chunk named `default`", () => {
    const { chunk, symbol } = check("settings.ts");
    expect(chunk("default")).toMatchObject({ chunkType: "export", isExported: true, startLine: 3, endLine: 6 });
    expect(symbol("default")).toMatchObject({ kind: "const", isExported: true });
    expect(chunk("base").isExported).toBe(false);
  });

  it("`export default foo` marks the local declaration exported", () => {
    const { x, chunk, symbol } = check("default-identifier.ts");
    expect(chunk("foo").isExported).toBe(true);
    expect(symbol("foo").isExported).toBe(true);
    expect(chunk("Bar").isExported).toBe(false);
    expect(x.chunks.find((c) => c.startLine === 9)).toMatchObject({ chunkType: "export", symbolName: null, isExported: true });
  });

  it("named default exports keep their own names", () => {
    const { chunk } = check("default-named.ts");
    expect(chunk("fetchAll")).toMatchObject({ chunkType: "function", isExported: true });
    expect(chunk("Named")).toMatchObject({ chunkType: "class_shell", isExported: true, content: "export default class Named {}" });
  });

  it("local aliases: a mirror chunk and symbol under the exported name; the local name stays unexported", () => {
    const path = fixturePath("export-local-aliases.ts");
    const { chunk, symbol } = check("export-local-aliases.ts");
    expect(chunk("a").isExported).toBe(true); // `export { a }` without alias
    expect(chunk("b").isExported).toBe(false);
    expect(symbol("b").isExported).toBe(false);
    const c = chunk("c");
    expect(c).toMatchObject({ chunkType: "function", isExported: true, startLine: 6, endLine: 8, content: chunk("b").content });
    expect(c.chunkId).not.toBe(chunk("b").chunkId);
    expect(chunk("b").chunkId).toBe(sha256(`${path}:6`));
    expect(c.chunkId).toBe(sha256(`${path}:6:1`));
    expect(symbol("c")).toMatchObject({ kind: "function", isExported: true, signature: "function b(): string", line: 6 });
    expect(chunk("PublicStore")).toMatchObject({ chunkType: "class_shell", isExported: true });
    expect(chunk("Store").isExported).toBe(false);
    expect(chunk("LIMIT")).toMatchObject({ chunkType: "block", isExported: true });
    expect(chunk("limit").isExported).toBe(false);
  });

  it("re-exports: marker symbols for named re-exports, export_star imports for `export *`", () => {
    const { x, symbol, symbols } = check("re-exports.ts");
    expect(symbol("y")).toMatchObject({ kind: "export", isExported: true, hasBody: false, reExport: { module: "./m", importedName: "x" } });
    expect(symbol("z").reExport).toEqual({ module: "./m", importedName: "z" });
    expect(symbol("ns").reExport).toEqual({ module: "./ns", importedName: "*" });
    expect(symbol("default").reExport).toEqual({ module: "./default-src", importedName: "default" });
    expect(symbol("Widget").reExport).toEqual({ module: "./widget", importedName: "default" });
    expect(symbol("U").reExport).toEqual({ module: "./types", importedName: "T" });
    // Re-exporting imported bindings through a local clause also yields markers.
    expect(symbol("r").reExport).toEqual({ module: "./q", importedName: "q" });
    expect(symbol("Def").reExport).toEqual({ module: "./def", importedName: "default" });
    expect(symbols("x")).toEqual([]);
    expect(x.imports.filter((i) => i.kind !== "import")).toEqual([
      { module: "./m", names: ["x", "z"], locals: [], kind: "export_from", line: 4 },
      { module: "./star", names: ["*"], locals: [], kind: "export_star", line: 5 },
      { module: "./ns", names: ["*"], locals: [], kind: "export_from", line: 6 },
      { module: "./default-src", names: ["default"], locals: [], kind: "export_from", line: 7 },
      { module: "./widget", names: ["default"], locals: [], kind: "export_from", line: 8 },
      { module: "./types", names: ["T"], locals: [], kind: "export_from", line: 9 },
    ]);
    expect(x.chunks.map((c) => [c.chunkType, c.startLine, c.endLine, c.isExported])).toEqual([
      ["block", 1, 2, false],
      ["export", 4, 10, true],
    ]);
  });
});

describe("imports", () => {
  it("records every import form with the names taken from the module", () => {
    const { x } = check("imports.ts");
    expect(x.imports).toEqual([
      { module: "./named", names: ["default", "a", "c"], locals: ["x", "b", "c"], kind: "import", line: 1 },
      { module: "./ns", names: ["*"], locals: ["ns"], kind: "import", line: 2 },
      { module: "./legacy", names: ["default"], locals: ["t"], kind: "require", line: 3 },
      { module: "./side-effect", names: [], locals: [], kind: "import", line: 4 },
      { module: "./types", names: ["Only"], locals: ["Only"], kind: "import", line: 5 },
      { module: "lodash", names: ["Mixed", "value"], locals: ["Mixed", "value"], kind: "import", line: 6 },
      { module: "fs", names: [], locals: [], kind: "require", line: 8 },
      { module: "./lazy", names: [], locals: [], kind: "dynamic_import", line: 11 },
    ]);
  });

  it("CommonJS and TypeScript module flavours (.mjs, .cjs, .mts, .cts)", () => {
    const mjs = check("esm-module.mjs");
    expect(mjs.x.language).toBe("javascript");
    expect(mjs.chunk("default")).toMatchObject({ chunkType: "function", isExported: true });
    const cjs = check("commonjs.cjs");
    expect(cjs.x.imports.map((i) => [i.kind, i.module])).toEqual([
      ["require", "path"],
      ["require", "./util"],
    ]);
    expect(cjs.chunk("resolve").isExported).toBe(false);
    const mts = check("module-ts.mts");
    expect(mts.x.language).toBe("typescript");
    expect(mts.x.imports).toEqual([{ module: "./other.mjs", names: ["*"], locals: [], kind: "export_star", line: 7 }]);
    const cts = check("commonjs-ts.cts");
    expect(cts.chunk("size").isExported).toBe(true); // `export = size`
    expect(cts.x.imports).toEqual([{ module: "fs", names: ["default"], locals: ["fs"], kind: "require", line: 1 }]);
  });
});

describe("blocks and comments", () => {
  it("groups consecutive top-level statements into one block chunk", () => {
    const { x } = check("top-level-blocks.ts");
    expect(brief(x)).toEqual([
      ["block", null, null, false, 1, 7, 0],
      ["function", "between", null, false, 9, 9, 0],
      ["block", null, null, false, 11, 14, 0],
    ]);
  });

  it("attaches TSDoc and `//` runs that touch the declaration; a blank line or a `/* */` block does not attach", () => {
    const { chunk, symbol } = check("comments.ts");
    expect(symbol("tsdoc").doc).toBe("/** TSDoc is attached. */");
    expect(symbol("lineDoc").doc).toBe("// A line comment is attached\n// (both lines of the run).");
    expect(chunk("lineDoc").contentStartLine).toBe(6);
    expect(symbol("detached").doc).toBeNull();
    expect(chunk("detached").contentStartLine).toBe(12);
    expect(symbol("plainBlock").doc).toBeNull();
    expect(chunk("plainBlock").content).toBe("function plainBlock(): void {}");
    expect(symbol("WithRun").doc).toBe("/** Doc for the interface. */\n// then a line comment directly above");
    expect(symbol("Documented.first").doc).toBe("/** Member doc is attached. */");
    expect(symbol("Documented.second").doc).toBeNull();
    expect(symbol("Documented.third").doc).toBe("// line member doc");
    expect(symbol("Documented.fourth").doc).toBeNull();
    // Comments that are no member's doc are the outline's own lines, verbatim.
    expect(chunk("Documented").content.split("\n")).toEqual([
      "export class Documented {",
      "  /** Member doc is attached. */",
      "  first(): void;",
      "  /* plain member comment */",
      "  second(): void;",
      "  // line member doc",
      "  third(): void;",
      "  /** Detached member doc. */",
      "  fourth(): void;",
      "}",
    ]);
  });
});

describe("split rule and context lines", () => {
  it("splits a 250-line function into 100-line windows with a 10-line overlap", () => {
    const path = fixturePath("split-long-function.ts");
    const { chunks, symbol } = check("split-long-function.ts");
    const parts = chunks("long");
    expect(parts.map((c) => [c.part, c.startLine, c.endLine, c.isExported])).toEqual([
      [0, 2, 101, true],
      [1, 92, 191, true],
      [2, 182, 251, true],
    ]);
    expect(parts.map((c) => c.chunkId)).toEqual([sha256(`${path}:2`), sha256(`${path}:92`), sha256(`${path}:182`)]);
    expect(parts[0]!.content.split("\n").slice(0, 2)).toEqual(["/** A very long function (250 lines). */", "export function long(input: number): number {"]);
    expect(parts[2]!.content.endsWith("  return total;\n}")).toBe(true);
    for (const p of parts.slice(1)) expect(p.content.split("\n")).toHaveLength(p.endLine - p.startLine + 1);
    expect(symbol("long")).toMatchObject({ line: 2, endLine: 251 });
  });

  it("sub-chunk 0 always reaches the end of the declaration header, even past the threshold", () => {
    const { chunks } = check("split-long-header.ts", { chunkSplitThreshold: 20 });
    const parts = chunks("manyParams");
    expect(parts.map((c) => [c.part, c.startLine, c.endLine])).toEqual([
      [0, 1, 32],
      [1, 23, 42],
      [2, 33, 49],
    ]);
    expect(parts[0]!.content.split("\n").at(-1)).toBe("): number {");
  });

  it("context_lines grows the stored content but not start_line/end_line", () => {
    const zero = check("context-lines.ts", { contextLines: 0 }, "context0");
    const three = check("context-lines.ts", { contextLines: 3 }, "context3");
    const span = (x: FileExtraction) => x.chunks.map((c) => [c.symbolName, c.startLine, c.endLine, c.chunkId]);
    expect(span(three.x)).toEqual(span(zero.x));
    expect(zero.chunk("twice")).toMatchObject({ startLine: 4, endLine: 6, contentStartLine: 3 });
    expect(zero.chunk("twice").content).toBe("/** Doubles. */\nfunction twice(n: number): number {\n  return n * 2;\n}");
    expect(three.chunk("twice")).toMatchObject({ startLine: 4, endLine: 6, contentStartLine: 1 });
    expect(three.chunk("twice").content.split("\n")).toHaveLength(9); // lines 1..9
    expect(three.chunk("after").content).toBe('    console.log("open");\n  }\n}\nconst after = 2;'); // clipped at EOF
    expect(three.chunk("Box").content).toBe(zero.chunk("Box").content); // outlines are never expanded
    // Identifier bags follow the AST span, not the context.
    expect(three.chunk("twice").identifiers).toEqual(zero.chunk("twice").identifiers);
  });
});

describe("source shapes", () => {
  it("a CRLF source extracts exactly like its LF twin", () => {
    const lf = readFixture("crlf.ts");
    expect(lf).not.toContain("\r");
    const crlf = lf.replace(/\n/g, "\r\n");
    const path = fixturePath("crlf.ts");
    const a = check("crlf.ts").x;
    const b = extractOk(path, crlf);
    checkInvariants(path, b);
    expect(renderExtraction(path, b)).toBe(renderExtraction(path, a));
    expect(b.symbols).toEqual(a.symbols);
    expect(b.chunks).toEqual(a.chunks);
    for (const c of b.chunks) expect(c.content).not.toContain("\r");
  });

  it("a file with syntax errors is flagged but still chunked from what parsed", () => {
    const { x, chunk } = check("syntax-errors.ts");
    expect(x.hasSyntaxErrors).toBe(true);
    expect(chunk("good").chunkType).toBe("function");
    expect(chunk("broken").chunkType).toBe("function");
    expect(chunk("Survivor").chunkType).toBe("class_shell");
    expect(chunk("Survivor.ok").chunkType).toBe("method");
    expect(chunk("fine").chunkType).toBe("block");
    for (const c of x.chunks) expect(c.identifiers).not.toContain("");
  });

  it("TSX with JSX", () => {
    const { x, chunk } = check("component.tsx");
    expect(x.language).toBe("typescript");
    expect(x.hasSyntaxErrors).toBe(false);
    expect(chunk("Title")).toMatchObject({ chunkType: "function", isExported: true });
    expect(chunk("Title").content).toContain('<h1 className="title">{title}</h1>');
    expect(chunk("List")).toMatchObject({ chunkType: "function", startLine: 12, endLine: 18 });
    expect(chunk("default")).toMatchObject({ chunkType: "function", isExported: true });
  });
});

describe("bodies", () => {
  const service = (o: { body?: string } = {}) =>
    `export class AuthService {\n  /** Validates. */\n  validate(token: string): boolean {\n    ${o.body ?? "return token.length > 0;"}\n  }\n  private purge(): void {\n    this.cache.clear();\n  }\n}\n`;
  const extract = (text: string) => lookup(extractOk("src/auth.ts", text));

  it("editing only a method body keeps the class outline and the other members as they were", () => {
    const base = extract(service());
    const edited = extract(service({ body: "return token.trim().length > 0;" }));
    expect(edited.chunk("AuthService").content).toBe(base.chunk("AuthService").content);
    expect(edited.symbol("AuthService.purge")).toEqual(base.symbol("AuthService.purge"));
    expect(edited.symbol("AuthService.validate").signature).toBe(base.symbol("AuthService.validate").signature);
  });

  it("a definition has a body (an interface's is its members); a bodiless signature and an empty class have none", () => {
    const x = lookup(
      extractOk(
        "src/b.ts",
        [
          "export function f(a: number): number {",
          "  return a;",
          "}",
          "export function g(a: string): string;",
          "export function g(a: number): number;",
          "export function g(a: unknown): unknown {",
          "  return a;",
          "}",
          "export declare function h(): void;",
          "export class Empty {}",
          "export class Full { m(): void {} }",
          "export interface I { m(): void }",
          "",
        ].join("\n"),
      ),
    );
    expect(["f", "g", "h", "Empty", "Full", "Full.m", "I"].map((n) => [n, x.symbol(n).hasBody])).toEqual([
      ["f", true],
      ["g", true],
      ["h", false],
      ["Empty", false],
      ["Full", true],
      ["Full.m", true],
      ["I", true],
    ]);
  });
});

describe("golden helper", () => {
  it.skipIf(UPDATING_GOLDENS)("fails on a missing golden and says how to create it", () => {
    expect(() => expectGolden("extract/no-such-fixture.txt", "x")).toThrow(/does not exist.*UPDATE_GOLDENS=1/);
  });
});
