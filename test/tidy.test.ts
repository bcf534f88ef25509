// Architecture rules as a test: imports flow one way between layers and never in a cycle, each
// outside dependency has exactly one importer, and every module opens with a header comment saying
// what it owns.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");

/** Layers each layer may import from (besides itself). */
const ALLOWED: Record<string, readonly string[]> = {
  base: [],
  lang: ["base"],
  syntax: ["base", "lang"],
  store: ["base", "lang", "syntax"],
  resolve: ["base", "lang"],
  index: ["base", "lang", "syntax", "store", "resolve"],
  query: ["base", "lang", "syntax", "store", "resolve", "index"],
  edit: ["base", "lang", "syntax", "store", "resolve", "index"],
  structural: ["base", "lang", "syntax", "store", "resolve", "index", "query"],
  tools: ["base", "lang", "syntax", "store", "resolve", "index", "query", "edit", "structural"],
  mcp: ["base", "lang", "syntax", "store", "resolve", "index", "query", "edit", "structural", "tools"],
  cli: ["base", "lang", "syntax", "store", "resolve", "index", "query", "edit", "structural", "tools", "mcp"],
};

/** Outside packages and the one module allowed to import each. */
const SOLE_IMPORTER: Record<string, string> = {
  "tree-sitter": "syntax/parser.ts",
  "tree-sitter-typescript": "lang/typescript.ts",
  typescript: "query/checker-program.ts",
  "tree-sitter-javascript": "lang/javascript.ts",
  "tree-sitter-python": "lang/python.ts",
  "tree-sitter-go": "lang/go.ts",
  "tree-sitter-rust": "lang/rust.ts",
  "tree-sitter-java": "lang/java.ts",
  "tree-sitter-c": "lang/c.ts",
  "tree-sitter-cpp": "lang/cpp.ts",
  "tree-sitter-c-sharp": "lang/csharp.ts",
  "tree-sitter-ruby": "lang/ruby.ts",
  "tree-sitter-php": "lang/php.ts",
  "node-gyp-build": "lang/csharp.ts",
  "better-sqlite3": "store/db.ts",
  pg: "store/pg/client.ts",
  "@anthropic-ai/tokenizer": "tools/tokenizer.ts",
  "proper-lockfile": "index/lock.ts",
  chokidar: "index/watch.ts",
  picomatch: "base/glob.ts",
  "jsonc-parser": "base/formats.ts",
  "smol-toml": "base/formats.ts",
  yaml: "base/formats.ts",
  "lru-cache": "base/lru.ts",
  ignore: "index/walk.ts",
  diff: "edit/diff.ts",
  zod: "tools/schema.ts",
  "@modelcontextprotocol/sdk/server/index.js": "mcp/server.ts",
  "@modelcontextprotocol/sdk/shared/stdio.js": "mcp/stdio.ts",
  "@modelcontextprotocol/sdk/shared/transport.js": "mcp/stdio.ts",
  "@modelcontextprotocol/sdk/types.js": "mcp/server.ts",
  "@modelcontextprotocol/sdk/server/streamableHttp.js": "mcp/http.ts",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

const files = sourceFiles(SRC).map((abs) => ({ rel: relative(SRC, abs), text: readFileSync(abs, "utf8") }));

function importsOf(text: string): string[] {
  const staticOrDynamic = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|^\s*import\s*\(?\s*["']([^"']+)["']/gm)].map((m) => m[1] ?? m[2]!);
  const required = [...text.matchAll(/\b(?:require|import)\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!);
  return [...staticOrDynamic, ...required];
}

/** Code lines: non-blank lines that are not only a comment (doc comments are welcome and do not count against a module's size). */
const codeLines = (lines: readonly string[]): number => lines.filter((l) => l.trim() !== "" && !/^\s*(?:\/\/|\*|\/\*)/.test(l)).length;

/** A file's functions (declarations, methods, arrows, function expressions, constructors, accessors) with more than `max` code lines. */
function longFunctions(rel: string, text: string, max: number): string[] {
  const lines = text.split("\n");
  const source = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true);
  const long: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const n = codeLines(lines.slice(first, last + 1));
      if (n > max) long.push(`${rel}:${first + 1} ${node.name?.getText(source) ?? "(anonymous)"}: ${n} code lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

/** Layers that ask a LanguageSpec instead of naming a language. */
const LANGUAGE_NEUTRAL = ["index", "store", "query", "tools"];
/** Programs whose name is a language's, and the one module allowed to run them (the checker pass's Go backend runs `go`). */
const SOLE_RUNNER: Record<string, string> = { go: "query/checker-go.ts" };

describe("architecture", () => {
  it("SQL has one home per layer: statements are prepared only in store/ (writes and reads) and query/ (reads)", () => {
    const violations = files
      .filter((f) => !["store", "query"].includes(f.rel.split("/")[0]!))
      .filter((f) => /\b(?:prepared\(|\.prepare\(|\.exec\(\s*["'`]|\.pragma\()/.test(f.text))
      .map((f) => f.rel);
    expect(violations).toEqual([]);
  });

  it("generic layers never name a language or a grammar: they ask its LanguageSpec", async () => {
    const { LANGUAGE_SPECS } = await import("../src/lang/languages.js");
    const names = new Set(LANGUAGE_SPECS.flatMap((spec) => [spec.name, ...Object.keys(spec.grammars)]));
    const violations: string[] = [];
    for (const f of files) {
      if (!LANGUAGE_NEUTRAL.includes(f.rel.split("/")[0]!)) continue;
      // A package whose name is a language's (the `typescript` compiler) may be named by its one importer, a program (`go`) by its one runner.
      for (const m of f.text.matchAll(/["'`]([a-z-]+)["'`]/g)) if (names.has(m[1]!) && SOLE_IMPORTER[m[1]!] !== f.rel && SOLE_RUNNER[m[1]!] !== f.rel) violations.push(`${f.rel} names ${m[0]}`);
    }
    expect(violations).toEqual([]);
  });

  it("the configuration's extensions are the languages' own: each LanguageSpec's files come from lang/files.ts, in LANGUAGE_SPECS's order", async () => {
    const { EXTENSIONS, LANGUAGE_SPECS } = await import("../src/lang/languages.js");
    const { DEFAULT_EXTENSIONS, LANGUAGE_FILES, SUPPORTED_EXTENSIONS } = await import("../src/lang/files.js");
    expect(LANGUAGE_SPECS.map((spec) => spec.extensions)).toEqual(Object.values(LANGUAGE_FILES).map((l) => l.extensions));
    expect(Object.keys(EXTENSIONS)).toEqual(SUPPORTED_EXTENSIONS);
    expect(LANGUAGE_SPECS.flatMap((spec) => spec.indexedByDefault)).toEqual(DEFAULT_EXTENSIONS);
    expect(DEFAULT_EXTENSIONS).toEqual([
      ".ts",
      ".tsx",
      ".mts",
      ".cts",
      ".js",
      ".jsx",
      ".mjs",
      ".cjs",
      ".py",
      ".pyi",
      ".go",
      ".rs",
      ".java",
      ".c",
      ".cc",
      ".cpp",
      ".cxx",
      ".hpp",
      ".hh",
      ".hxx",
      ".h",
      ".cs",
      ".rb",
      ".php",
      ".md",
    ]);
  });

  it("every source file sits in a known layer", () => {
    const unknown = files.map((f) => f.rel.split("/")[0]!).filter((layer) => !(layer in ALLOWED));
    expect(unknown).toEqual([]);
  });

  it("imports flow one way between layers", () => {
    const violations: string[] = [];
    for (const f of files) {
      const layer = f.rel.split("/")[0]!;
      for (const spec of importsOf(f.text)) {
        if (!spec.startsWith(".")) continue;
        const target = relative(SRC, join(SRC, f.rel, "..", spec)).split("/")[0]!;
        if (target !== layer && !ALLOWED[layer]!.includes(target)) violations.push(`${f.rel} imports ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("the query layer does not know which store the rows came from: query/, tools/ and mcp/ never import store/pg/", () => {
    const violations: string[] = [];
    for (const f of files) {
      if (!["query", "tools", "mcp"].includes(f.rel.split("/")[0]!)) continue;
      for (const spec of importsOf(f.text)) {
        if (spec.startsWith(".") && relative(SRC, join(SRC, f.rel, "..", spec)).startsWith("store/pg/")) violations.push(`${f.rel} imports ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("no module imports itself back, by any path (type-only imports included)", () => {
    const edges = new Map<string, string[]>();
    for (const f of files) {
      const targets = importsOf(f.text)
        .filter((spec) => spec.startsWith("."))
        .map((spec) => relative(SRC, join(SRC, f.rel, "..", spec)).replace(/\.js$/, ".ts"))
        .filter((rel) => files.some((g) => g.rel === rel));
      edges.set(f.rel, targets);
    }
    // Depth-first, each module once: a module met again while on the path closes a cycle.
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const path: string[] = [];
    const visit = (rel: string): void => {
      state.set(rel, "open");
      path.push(rel);
      for (const next of edges.get(rel) ?? []) {
        if (state.get(next) === "open") cycles.push([...path.slice(path.indexOf(next)), next].join(" → "));
        else if (!state.has(next)) visit(next);
      }
      path.pop();
      state.set(rel, "done");
    };
    for (const f of files) if (!state.has(f.rel)) visit(f.rel);
    expect(cycles).toEqual([]);
  });

  it("each outside dependency has one importer", () => {
    const violations: string[] = [];
    for (const f of files) {
      for (const spec of importsOf(f.text)) {
        if (spec.startsWith(".") || spec.startsWith("node:")) continue;
        const owner = SOLE_IMPORTER[spec];
        if (owner === undefined) violations.push(`${f.rel} imports unlisted package ${spec}`);
        else if (owner !== f.rel) violations.push(`${f.rel} imports ${spec} (only ${owner} may)`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("syntax/ reads the clock only where a parse runs: its time budget and its measured time", () => {
    const clock = /\b(Date\.now|performance\.now|new Date)\b|process\.hrtime/;
    const reading = files.filter((f) => f.rel.startsWith("syntax/") && clock.test(f.text)).map((f) => f.rel);
    expect(reading.sort()).toEqual(["syntax/flat-tree.ts", "syntax/parser.ts"]);
  });

  it("only cli/ knows about argv and the process's exit", () => {
    const outside = files.filter((f) => !f.rel.startsWith("cli/") && /process\.(argv|exit\b|exitCode)/.test(f.text)).map((f) => f.rel);
    expect(outside).toEqual([]);
  });

  it("no module runs past 600 code lines and no function past 100: a grab-bag is split along its seams", () => {
    expect(files.filter((f) => codeLines(f.text.split("\n")) > 600).map((f) => `${f.rel}: ${codeLines(f.text.split("\n"))} code lines`)).toEqual([]);
    expect(files.flatMap((f) => longFunctions(f.rel, f.text, 100))).toEqual([]);
  });

  it("ARCHITECTURE.md is a true map: a short paragraph per folder, and every module it names exists", () => {
    const map = readFileSync(join(SRC, "..", "ARCHITECTURE.md"), "utf8");
    const layers = Object.keys(ALLOWED);
    const paragraphs = layers.map((layer) => map.split("\n").find((l) => l.startsWith(`- **\`src/${layer}/\`**`)) ?? `(no paragraph for src/${layer}/)`);
    expect(paragraphs.filter((p) => p.startsWith("(") || p.length > 700)).toEqual([]);
    const named = (text: string) => new Set([...text.matchAll(/`([\w./-]+\.ts)\b/g)].map((m) => m[1]!));
    // In a folder's paragraph a bare name is that folder's module (or its subfolders'); elsewhere, any module of that path.
    const missingIn = (layer: string) =>
      [...named(paragraphs[layers.indexOf(layer)]!)]
        .filter((name) => !files.some((f) => f.rel.startsWith(`${layer}/`) && (f.rel === `${layer}/${name}` || f.rel.endsWith(`/${name}`) || f.rel === name)) && !files.some((f) => f.rel === name))
        .map((name) => `${layer}: ${name}`);
    expect(layers.flatMap(missingIn)).toEqual([]);
    const exists = (name: string) =>
      name.startsWith("test/") ? statSync(join(SRC, "..", name), { throwIfNoEntry: false }) !== undefined : files.some((f) => f.rel === name || f.rel.endsWith(`/${name}`));
    expect([...named(map)].filter((name) => !exists(name))).toEqual([]);
  });

  it("every module opens with a header comment", () => {
    const missing = files.filter((f) => !/^(#![^\n]*\n)?\/\/ \S/.test(f.text)).map((f) => f.rel);
    expect(missing).toEqual([]);
  });
});
