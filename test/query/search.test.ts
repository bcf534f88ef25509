// mast_search through the registry against a real index: ranking (BM25 + ranker D), scope and
// post filters, shell/method dedup with backfill, stale flags, suggestions, index_empty, and
// FTS5 syntax in user text searched literally.
import { mkdirSync, renameSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import type { SearchResponse } from "../../src/query/search-types.js";
import { identifierParts, splitTerms } from "../../src/base/text.js";
import { searchChunks } from "../../src/query/search.js";
import { ftsClauses, ftsExpression, identifierChains, symbolShapedTokens } from "../../src/query/search-terms.js";
import { withoutCommonWords } from "../../src/query/fts-rank.js";
import { symbolNamesBeginning } from "../../src/query/search-suggest.js";
import { wordSnippet } from "../../src/query/search-results.js";
import { Store } from "../../src/store/store.js";
import { chunkId } from "../../src/base/hash.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { makeProject, type TestProject } from "../helpers/project.js";

const FILES: Record<string, string> = {
  "src/auth/service.ts": [
    "import { SessionStore } from './store';",
    "",
    "/** Validates sessions and issues tokens. */",
    "export class AuthService {",
    "  constructor(private readonly store: SessionStore) {}",
    "",
    "  /** Checks that a session token is still valid. */",
    "  validateSession(token: string): boolean {",
    "    return this.store.has(token);",
    "  }",
    "",
    "  private rotate(): void {}",
    "}",
    "",
  ].join("\n"),
  "src/auth/store.ts": [
    "/** Where sessions live. */",
    "export class SessionStore {",
    "  private readonly tokens = new Set<string>();",
    "  has(token: string): boolean {",
    "    return this.tokens.has(token);",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/util/strings.ts": [
    "/** Converts a name to kebab case. */",
    "export function toKebabCase(name: string): string {",
    "  return name.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();",
    "}",
    "",
    "function internalHelper(): number {",
    "  return 42;",
    "}",
    "",
  ].join("\n"),
  // An anonymous default export is named `default`.
  "src/billing.ts": "export default function () {\n  return 1;\n}\n",
  "lib/legacy.js": ["export function validateSession(token) {", "  return Boolean(token);", "}", ""].join("\n"),
  "docs/auth.md": ["# Auth", "", "Sessions are validated by the AuthService.", ""].join("\n"),
};

let project: TestProject;
let ctx: ToolContext;

async function search(args: Record<string, unknown>): Promise<SearchResponse> {
  return (await callTool(ctx, "mast_search", args)) as SearchResponse;
}

beforeAll(async () => {
  project = makeProject(FILES);
  const config = project.config();
  await runIndex(config, { mode: "full" });
  ctx = createToolContext(config);
});
afterAll(() => {
  ctx.close();
  project.cleanup();
});

describe("mast_search ranking", () => {
  it("puts the exact declaration first for a symbol query, with a contiguous rank", async () => {
    const r = await search({ query: "validateSession", limit: 5 });
    expect(r.results.map((x) => [x.file_path, x.symbol_name, x.rank])).toEqual([
      ["lib/legacy.js", "validateSession", 1],
      ["src/auth/service.ts", "AuthService.validateSession", 2],
    ]);
    expect(r.results[0]).toMatchObject({ chunk_type: "function", start_line: 1, end_line: 3, is_exported: true, parent_symbol: null });
    expect(r.results[1]).toMatchObject({ chunk_type: "method", parent_symbol: "AuthService", start_line: 8, end_line: 10 });
    expect(r.results[1]!.match_snippet).toContain("**");
    expect(r.results[1]!.match_score).toBeLessThan(0);
    expect(r.suggestions).toBeUndefined();
  });

  it("gives each result a snippet of its own text", async () => {
    const r = await search({ query: "validateSession", limit: 5 });
    const snippets = r.results.map((x) => x.match_snippet);
    expect(snippets.every((x) => x !== null)).toBe(true);
    // Every fragment of a snippet (markers and elisions taken out) is text of that result's chunk.
    for (const x of r.results) {
      const fragments = x
        .match_snippet!.replaceAll("**", "")
        .split("...")
        .filter((f) => f.trim() !== "");
      expect([x.symbol_name, fragments.every((f) => x.content.includes(f))]).toEqual([x.symbol_name, true]);
    }
    expect(new Set(snippets).size).toBe(snippets.length);
  });

  it("says where each result's content starts: its lines are the file's lines from content_start_line", async () => {
    const r = await search({ query: "kebab case", limit: 3 });
    const first = r.results[0]!;
    // The doc comment comes before the declaration's own line.
    expect([first.symbol_name, first.content_start_line, first.start_line]).toEqual(["toKebabCase", 1, 2]);
    for (const x of r.results) {
      const lines = FILES[x.file_path]!.split("\n");
      const content = x.content.split("\n");
      expect([x.file_path, content]).toEqual([x.file_path, lines.slice(x.content_start_line - 1, x.content_start_line - 1 + content.length)]);
    }
  });

  it("finds a declaration by words from its doc comment", async () => {
    const r = await search({ query: "kebab case", limit: 3 });
    expect(r.results[0]).toMatchObject({ file_path: "src/util/strings.ts", symbol_name: "toKebabCase", start_line: 2, end_line: 4 });
  });

  it("names ranker D's chunks in telemetry by their full chunk id, computed from the row", () => {
    const r = searchChunks(ctx.store().db, { query: "validateSession", limit: 5 }, { projectRoot: project.root, rrfK: 60, declarationExactRanker: true });
    expect(r.declex!.window_effects.slice(0, 2).map((e) => [e.symbol_name, e.chunk_id])).toEqual([
      ["validateSession", chunkId("lib/legacy.js", 1, 0)],
      ["AuthService.validateSession", chunkId("src/auth/service.ts", 8, 0)],
    ]);
  });

  it("reaches a ranker-D-only hit with a null match_score and no snippet", async () => {
    // The text `AuthService.rotate` appears nowhere (the method says `rotate`): only ranker D finds it by its qualified name.
    const r = await search({ query: "AuthService.rotate", limit: 3 });
    expect(r.results.map((x) => [x.file_path, x.symbol_name, x.match_score, x.match_snippet, x.rank])).toEqual([["src/auth/service.ts", "AuthService.rotate", null, null, 1]]);
  });

  it("finds a method by its bare name", async () => {
    const r = await search({ query: "Has", limit: 3 });
    expect(r.results.map((x) => x.symbol_name)).toEqual(["SessionStore.has", "AuthService.validateSession"]);
  });

  it("scopes by file_pattern and language before ranking", async () => {
    const ts = await search({ query: "validateSession", file_pattern: "src/**/*.ts" });
    expect(ts.results.map((x) => x.file_path)).toEqual(["src/auth/service.ts"]);
    const js = await search({ query: "validateSession", language: "javascript" });
    expect(js.results.map((x) => x.file_path)).toEqual(["lib/legacy.js"]);
    const rootOnly = await search({ query: "validateSession", file_pattern: "*.js" });
    expect(rootOnly.results).toEqual([]);
    // No .js file at the root: nothing was searched, and the answer says so.
    expect(rootOnly.scope_empty).toBe(true);
    const nowhere = await search({ query: "validateSession", file_pattern: "**/*.rs" });
    expect([nowhere.results, nowhere.scope_empty]).toEqual([[], true]);
    // Files in scope without a match are not an empty scope.
    const unmatched = await search({ query: "zzqqxxnothing", file_pattern: "src/**/*.ts" });
    expect([unmatched.results, unmatched.scope_empty]).toEqual([[], undefined]);
  });

  it("refuses a malformed file_pattern with INVALID_ARGUMENT instead of answering nothing", async () => {
    for (const file_pattern of ["src/[", "src/{auth,lib", "src/*.ts\\"]) {
      await expect(search({ query: "validateSession", file_pattern }), file_pattern).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    }
    // Escaped, the same characters are literal: well formed, and nothing is named so.
    expect((await search({ query: "validateSession", file_pattern: "src/\\[x" })).results).toEqual([]);
    expect((await search({ query: "validateSession", file_pattern: "src/{auth,lib}/*.ts" })).results.map((x) => x.file_path)).toEqual(["src/auth/service.ts"]);
  });

  it("applies chunk_type and only_exported after ranking", async () => {
    const methods = await search({ query: "validateSession", chunk_type: "method" });
    expect(methods.results.map((x) => x.symbol_name)).toEqual(["AuthService.validateSession"]);
    const internal = await search({ query: "internalHelper" });
    expect(internal.results[0]).toMatchObject({ symbol_name: "internalHelper", is_exported: false });
    const exportedOnly = await search({ query: "internalHelper", only_exported: true });
    expect(exportedOnly.results.map((x) => x.symbol_name)).not.toContain("internalHelper");
  });
});

describe("shell/method dedup", () => {
  it("keeps the higher-ranked half of a class_shell/method pair and says what it absorbed", async () => {
    const r = await search({ query: "AuthService validateSession", limit: 10 });
    // The shell and its matched method take one slot (other methods may match on their own).
    const service = r.results.filter((x) => x.symbol_name === "AuthService" || x.symbol_name === "AuthService.validateSession");
    expect(service).toHaveLength(1);
    const survivor = service[0]!;
    if (survivor.chunk_type === "class_shell") expect(survivor.related).toEqual({ methods_matched: ["AuthService.validateSession"] });
    else expect(survivor.related).toEqual({ parent_symbol: "AuthService" });
    expect(r.results.map((x) => x.rank)).toEqual(r.results.map((_, i) => i + 1));
  });
});

describe("zero results", () => {
  it("suggests similar symbols and never promotes them into results", async () => {
    const r = await search({ query: "validateSesion" });
    expect(r.results).toEqual([]);
    expect(r.suggestions!.length).toBeGreaterThan(0);
    expect(r.suggestions![0]).toEqual({ symbol: "validateSession", file_path: "lib/legacy.js", reason: "similar symbol name" });
    expect(r.index_empty).toBeUndefined();
  });

  it("suggests only close names: none for a query no name resembles", async () => {
    expect(await search({ query: "xyzzy_no_such_thing" })).toEqual({ results: [], suggestions: [] });
    // Split terms a name carries (kebab, case) still suggest it.
    const r = await search({ query: "kebab_case_converter" });
    expect(r.suggestions?.map((x) => x.symbol)).toContain("toKebabCase");
  });
});

describe("literal queries", () => {
  it.each([
    ['"unbalanced', []],
    ["a* OR b", []],
    ["NEAR(x y)", []],
    // Punctuation separates words: these are the words "token" and "store".
    ["-token", ["SessionStore.has", "validateSession", "AuthService.validateSession"]],
    ["(store", [null, "AuthService.constructor", "SessionStore"]],
    ["content:has", []],
    ["^start", []],
    ["{}[]", []],
    // "AND" is a function word, and no operator here: "token" alone matches.
    ["token AND", ["SessionStore.has", "validateSession", "AuthService.validateSession"]],
  ])("searches %j literally", async (query, expected) => {
    const r = await search({ query, limit: 3 });
    expect(r.results.map((x) => x.symbol_name)).toEqual(expected);
  });

  it("matches FTS5 operator words as text", async () => {
    const r = await search({ query: "content:has" });
    expect(r.results).toEqual([]);
    const token = await search({ query: "(token" });
    expect(token.results.map((x) => x.symbol_name)).toContain("SessionStore.has");
  });
});

describe("stale results", () => {
  it("flags a result whose file is newer on disk than indexed", async () => {
    const later = new Date(Date.now() + 120_000);
    utimesSync(join(project.root, "src/util/strings.ts"), later, later);
    const r = await search({ query: "toKebabCase" });
    expect(r.results[0]).toMatchObject({ symbol_name: "toKebabCase", stale: true });
    const other = await search({ query: "internalHelper" });
    expect(other.results[0]!.stale).toBe(true); // same file
    const fresh = await search({ query: "SessionStore" });
    expect(fresh.results.every((x) => x.stale === undefined)).toBe(true);
  });
});

describe("argument validation", () => {
  it("rejects a bad argument with INVALID_ARGUMENT naming the field", async () => {
    await expect(callTool(ctx, "mast_search", { query: "x", limit: 0 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("limit") });
    await expect(callTool(ctx, "mast_search", {})).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("query") });
    await expect(callTool(ctx, "mast_search", { query: "x", bogus: 1 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(callTool(ctx, "mast_serach", {})).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      hint: "Did you mean mast_search or mast_graph? (`mast query --help` lists every tool.)",
      usage: true,
    });
  });
});

describe("empty index", () => {
  it("marks an empty result over an empty index with index_empty", async () => {
    const empty = makeProject({ "README.txt": "nothing indexable\n" });
    try {
      const config = empty.config();
      await runIndex(config, { mode: "full" });
      const c = createToolContext(config);
      try {
        const r = (await callTool(c, "mast_search", { query: "anything" })) as SearchResponse;
        expect(r).toEqual({ results: [], suggestions: [], index_empty: true });
      } finally {
        c.close();
      }
    } finally {
      empty.cleanup();
    }
  });
});

describe("query helpers", () => {
  it("quotes every word, makes words of 3+ characters prefixes, a punctuated term a phrase, and drops one-character words", () => {
    expect(ftsExpression('say "hi" NEAR(x)')).toBe('"say"* OR "hi" OR "near"*');
    expect(ftsExpression("res.json( hash_password")).toBe('words : ("res" + "json"*) OR ("hash_password"* OR parts : ("hash" + "password"*))');
    expect(ftsExpression("a b")).toBeNull();
  });
  it("gives chunk_words the words inside compound identifiers only, in order", () => {
    expect(identifierParts("hashPassword(MAX_RETRIES, x) + plain + HTMLParser.v2Beta")).toBe("hash password max retries html parser v2 beta");
    expect(identifierParts("one two three")).toBe("");
    // A name behind `_` or `$` is also its bare self (once), so `pgfloat` and `scope` begin a word of it.
    expect(identifierParts("class _PGFloat(sqltypes.Float): $scope __init__ _x_y")).toBe("pg float pgfloat scope init x y");
    expect(identifierParts("a".repeat(100_000))).toBe("");
    // Each identifier's parts are kept per thread: asked again, and past the kept count (cleared), the same.
    expect(identifierParts("_PGFloat hashPassword _PGFloat")).toBe("pg float pgfloat hash password pg float pgfloat");
    const many = Array.from({ length: 50_010 }, (_, i) => `get${i}Value`).join(" ");
    expect(identifierParts(many).split(" ").slice(0, 4)).toEqual(["get0", "value", "get1", "value"]);
    expect(identifierParts(many).split(" ").length).toBe(50_010 * 2);
    expect(identifierParts("class _PGFloat(sqltypes.Float): $scope __init__ _x_y")).toBe("pg float pgfloat scope init x y");
  });
  it("marks the first query word found at a word start, clipped on its line", () => {
    const text = "/** Checks a token. */\nvalidateSession(token: string): boolean {\n  return this.store.has(token);\n}";
    expect(wordSnippet(text, ["session", "token"])).toBe("/** Checks a **token**. */");
    // `session` inside validateSession is a word start (a camelCase capital); `ate` in validate is not.
    expect(wordSnippet(text, ["session"])).toBe("validate**Session**(token: string): boolean {");
    expect(wordSnippet(text, ["ate"])).toBeNull();
    // 64 characters of a long line: a third before the word, `...` at each cut end.
    expect(wordSnippet(`${"x ".repeat(100)}needle ${"y ".repeat(100)}`, ["needle"])).toBe(`...${"x ".repeat(10)}**needle** ${"y ".repeat(17)}y...`);
  });
  it("keeps only symbol-shaped tokens for ranker D", () => {
    expect(symbolShapedTokens("validate the AuthService session_id v2 plain")).toEqual(["AuthService", "session_id", "v2"]);
  });
  it("splits identifiers on case, acronym and separator boundaries", () => {
    expect(splitTerms("getUserByID parse_html-doc")).toEqual(["get", "user", "by", "id", "parse", "html", "doc"]);
    expect(splitTerms("HTMLParser v2Beta $ref XMLHttpRequest")).toEqual(["html", "parser", "v2", "beta", "$ref", "xml", "http", "request"]);
    expect(splitTerms("A".repeat(1000))).toEqual(["a".repeat(1000)]);
  });
  it("finds qualified names and lone identifier runs in one pass, whatever the shape", () => {
    expect(identifierChains("call AuthService.refresh then a.b.c, x..y and z. done")).toEqual({
      qualified: ["AuthService.refresh", "a.b.c"],
      plain: ["call", "then", "x", "y", "and", "z", "done"],
    });
    // The shapes a backtracking scan is quadratic in: one long run, a long dotted chain, dots only.
    expect(identifierChains("a".repeat(1000))).toEqual({ qualified: [], plain: ["a".repeat(1000)] });
    expect(identifierChains("ab.".repeat(333)).qualified).toEqual(["ab.".repeat(333).slice(0, -1)]);
    expect(identifierChains(".".repeat(1000))).toEqual({ qualified: [], plain: [] });
  });
});

describe("a result whose file is no longer the regular file indexed", () => {
  it("has no text and says stale, though its stat (through a symlink) still matches: the text outside the project is never read", async () => {
    const p = makeProject({ "src/a.ts": "export function tokenRefresher() {\n  return 1;\n}\n" });
    try {
      await runIndex(p.config(), { mode: "full" });
      // The directory moves (the file keeps its inode, mtime and ctime) and a symlink stands where the file was.
      renameSync(join(p.root, "src"), join(p.root, "moved"));
      mkdirSync(join(p.root, "src"));
      symlinkSync(join(p.root, "moved", "a.ts"), join(p.root, "src", "a.ts"));
      const c = createToolContext(p.config());
      try {
        const r = (await callTool(c, "mast_search", { query: "tokenRefresher", limit: 1 })) as SearchResponse;
        expect(r.results.map((x) => [x.file_path, x.content, x.stale])).toEqual([["src/a.ts", "", true]]);
      } finally {
        c.close();
      }
    } finally {
      p.cleanup();
    }
  });
});

describe("mast_search at scale: names behind `_`, common words, bounded suggestions", () => {
  const files: Record<string, string> = {
    "pg.py": "class _PGFloat(Float):\n    render_bind_cast = True\n\n\nclass _PGTime(Time):\n    pass\n",
    ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`t${i}.py`, `def test_value_${i}():\n    value = make_value(${i})\n    assert value\n`])),
    "parse.py": "def parse_value(text):\n    return text\n",
  };
  let p: TestProject;
  let store: Store;
  beforeAll(async () => {
    p = makeProject(files);
    await runIndex(p.config(), { mode: "full" });
    store = Store.open(join(p.config().state_dir, "graph.db"), { readonly: true });
  });
  afterAll(() => {
    store.close();
    p.cleanup();
  });

  it("finds a name behind `_` by its bare word", async () => {
    const c = createToolContext(p.config());
    try {
      const r = (await callTool(c, "mast_search", { query: "pgfloat", limit: 3 })) as SearchResponse;
      expect(r.results.map((x) => [x.file_path, x.symbol_name, x.start_line])).toEqual([["pg.py", "_PGFloat", 1]]);
    } finally {
      c.close();
    }
  });

  it("leaves a word most chunks hold out of a query with rarer words, and keeps all when none is rarer (each common as itself matched as itself)", () => {
    const texts = (query: string, cut: number) => withoutCommonWords(store.db, ftsClauses(query)!, false, cut).map((c) => c.text);
    // `value` begins words in seven chunks, `parse` in one: with a cut of 3 chunks `value` goes, with 50 it stays.
    expect(texts("parse value", 3)).toEqual(['"parse"*']);
    expect(texts("parse value", 50)).toEqual(['"parse"*', '"value"*']);
    // Both common, and each is in six chunks as itself: their longer forms are left out.
    expect(texts("value test", 3)).toEqual(['"value"', '"test"']);
    // `pars` is common only through the words it begins (no chunk has `pars` itself): it stays a prefix.
    expect(texts("value pars", 0)).toEqual(['"value"', '"pars"*']);
    // A phrase or a compound term is never judged common: with a cut of one chunk it is all that is left.
    expect(texts("parse make_value", 1)).toEqual(['("make_value"* OR parts : ("make" + "value"*))']);
    // A word no chunk holds is no rarer word: left out, the others judged without it; kept only when every word is one.
    expect(texts("parse zzyzx", 3)).toEqual(['"parse"*']);
    expect(texts("value zzyzx", 3)).toEqual(['"value"']);
    expect(texts("zzyzx qqqqq", 3)).toEqual(['"zzyzx"*', '"qqqqq"*']);
  });

  it("counts a prefix's words after an answer's read transaction was rolled back by an error (its temp vocabulary went with it)", () => {
    // A fresh connection: nothing counted yet. The first count makes the vocabulary table inside the
    // answer's transaction; the error rolls it back; the next answer must still count.
    const reader = Store.open(join(p.config().state_dir, "graph.db"), { readonly: true });
    try {
      const texts = () => withoutCommonWords(reader.db, ftsClauses("pars value")!, false, 0).map((c) => c.text);
      expect(() =>
        reader.snapshot(() => {
          expect(texts()).toEqual(['"pars"*', '"value"']);
          throw new Error("an answer failing after it counted");
        }),
      ).toThrow("an answer failing after it counted");
      // Another prefix, not counted yet: read from the vocabulary again.
      expect(reader.snapshot(() => withoutCommonWords(reader.db, ftsClauses("valu parse")!, false, 0).map((c) => c.text))).toEqual(['"valu"*', '"parse"']);
    } finally {
      reader.close();
    }
  });

  it("suggests by names begun as a query word is, `_` aside, when the index is too large to compare every name", () => {
    expect(symbolNamesBeginning(store.db, "pgflaot", null)).toEqual([
      { name: "_PGFloat", path: "pg.py" },
      { name: "_PGTime", path: "pg.py" },
    ]);
    expect(symbolNamesBeginning(store.db, "zz", null)).toEqual([]);
  });
});
