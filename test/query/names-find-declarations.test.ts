// Names find their declarations (issue 34): a nested function and a namespace's function are
// search hits of their own (their own lines, not the enclosing chunk's) and answer mast_signature
// and mast_callers by `outer.inner` / `Ns.f` and by the short name with file_path; a top-level
// function comes before the methods of its name; tests and documents rank after the source unless
// the query names them.
import { describe, expect, it } from "vitest";
import type { SearchResponse } from "../../src/query/search-types.js";
import { indexedProject } from "../helpers/indexed.js";
import { flat } from "../helpers/sites.js";

const p = indexedProject({
  "src/locale.ts": [
    "export const error = () => {",
    "  const sizes = { string: 'characters' };",
    "  function getSizing(origin: string): string | null {",
    "    return sizes[origin as 'string'] ?? null;",
    "  }",
    "  return (issue: { origin: string }) => getSizing(issue.origin);",
    "};",
    "",
  ].join("\n"),
  "src/util.ts": [
    "export namespace util {",
    "  export const objectValues = (obj: Record<string, unknown>) => Object.keys(obj).map((k) => obj[k]);",
    "  export function joinValues(values: unknown[]): string {",
    "    return values.join(' | ');",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/enum.ts": ["import { util } from './util';", "", "export function enumValues(e: Record<string, unknown>) {", "  return util.objectValues(e);", "}", ""].join("\n"),
  "src/schemas.ts": [
    "export class ZodString {",
    "  static create(): ZodString {",
    "    return new ZodString();",
    "  }",
    "}",
    "",
    "export class ZodNumber {",
    "  static create(): ZodNumber {",
    "    return new ZodNumber();",
    "  }",
    "}",
    "",
    "export function create(kind: string): ZodString | ZodNumber {",
    "  return kind === 'string' ? ZodString.create() : ZodNumber.create();",
    "}",
    "",
    "export class Router {",
    "  #match(path: string): boolean {",
    "    return path.length > 0;",
    "  }",
    "  route(path: string): boolean {",
    "    return this.#match(path);",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/redirects.ts": [
    "export function followRedirects(url: string, maxRedirects: number): string {",
    "  let next = url;",
    "  for (let i = 0; i < maxRedirects; i++) next = next.replace('http:', 'https:');",
    "  return next;",
    "}",
    "",
  ].join("\n"),
  "test/redirects.test.ts": [
    "import { followRedirects } from '../src/redirects';",
    "",
    "it('follows redirects', () => {",
    "  function Page() {",
    "    return followRedirects('http://a', 3);",
    "  }",
    "  expect(Page()).toBe('https://a');",
    "});",
    "",
    "it('follows redirects up to the limit', () => {",
    "  function Page() {",
    "    return followRedirects('http://b', 1);",
    "  }",
    "  expect(Page()).toBe('https://b');",
    "});",
    "",
  ].join("\n"),
  "docs/redirects.md": ["# Redirects", "", "Follow redirects with followRedirects: redirects are followed up to maxRedirects.", ""].join("\n"),
});

const search = (query: string, extra: Record<string, unknown> = {}) => p.call("mast_search", { query, limit: 10, ...extra }) as Promise<SearchResponse>;
const hits = (r: SearchResponse) => r.results.map((x) => `${x.file_path}:${x.start_line}-${x.end_line} ${x.chunk_type} ${x.symbol_name ?? "-"}`);

describe("a nested function is a declaration of its own", () => {
  it("is the first hit for its name, with its own lines and its container as parent", async () => {
    const r = await search("getSizing");
    // The enclosing function (its body calls getSizing) comes after it.
    expect(hits(r)).toEqual(["src/locale.ts:3-5 function error.getSizing", "src/locale.ts:1-7 function error"]);
    expect(r.results[0]).toMatchObject({ parent_symbol: "error", is_exported: false });
  });

  it("answers mast_signature by outer.inner and by its name in its file, and mast_callers with the call in its container", async () => {
    const qualified = await p.call("mast_signature", { symbol: "error.getSizing" });
    expect(qualified.results.map((r: { file_path: string; line: number; signature: string }) => [r.file_path, r.line, r.signature])).toEqual([
      ["src/locale.ts", 3, "function getSizing(origin: string): string | null"],
    ]);
    const short = await p.call("mast_signature", { symbol: "getSizing", file_path: "src/locale.ts" });
    expect(short.results.map((r: { symbol: string }) => r.symbol)).toEqual(["error.getSizing"]);
    const callers = await p.call("mast_callers", { symbol: "getSizing", file_path: "src/locale.ts" });
    expect(callers.declaration).toEqual({ file_path: "src/locale.ts", line: 3, kind: "function", is_exported: false, signature: "function getSizing(origin: string): string | null" });
    expect(flat(callers.verified_callers).map((c: { line: number; caller_symbol: string }) => [c.line, c.caller_symbol])).toEqual([[6, "error"]]);
  });

  it("in a test's unnamed callback, each declaration is a hit by its own name", async () => {
    const r = await search("Page");
    expect(hits(r).slice(0, 2).sort()).toEqual(["test/redirects.test.ts:11-13 function Page", "test/redirects.test.ts:4-6 function Page"]);
    const sig = await p.call("mast_signature", { symbol: "Page", file_path: "test/redirects.test.ts" });
    expect(sig.results.map((s: { line: number }) => s.line)).toEqual([4, 11]);
  });
});

describe("a namespace's function is a declaration of its own", () => {
  it("is the first hit for Ns.f, with its own lines", async () => {
    expect(hits(await search("util.objectValues"))[0]).toBe("src/util.ts:2-2 function util.objectValues");
    expect(hits(await search("util.joinValues"))[0]).toBe("src/util.ts:3-5 function util.joinValues");
  });

  it("answers mast_callers by Ns.f: the call through the namespace is verified", async () => {
    const r = await p.call("mast_callers", { symbol: "util.objectValues" });
    expect(r.declaration).toEqual({ file_path: "src/util.ts", line: 2, kind: "function", is_exported: true, signature: "export const objectValues = (obj: Record<string, unknown>) =>" });
    expect(flat(r.verified_callers).map((c: { file_path: string; line: number; caller_symbol: string }) => [c.file_path, c.line, c.caller_symbol])).toEqual([["src/enum.ts", 4, "enumValues"]]);
  });

  it("is not listed in the skeleton beside the namespace (a member, as a method is)", async () => {
    const r = await p.call("mast_project_skeleton", {});
    const util = r.files.find((f: { file_path: string }) => f.file_path === "src/util.ts");
    expect(util.exports).toEqual(["util"]);
  });
});

describe("a name's functions before its methods", () => {
  it("ranks the top-level function create before every Class.create", async () => {
    expect(hits(await search("create")).slice(0, 3)).toEqual(["src/schemas.ts:13-15 function create", "src/schemas.ts:2-4 method ZodString.create", "src/schemas.ts:8-10 method ZodNumber.create"]);
  });

  it("reads Class.#private as one name", async () => {
    expect(hits(await search("Router.#match"))[0]).toBe("src/schemas.ts:18-20 method Router.#match");
  });
});

describe("source before tests and documents", () => {
  it("answers a concept query with the source first, and leaves out what a better hit's lines hold", async () => {
    // The test file's top-level block holds both nested Page functions: they are not listed again.
    expect(hits(await search("follow redirects"))).toEqual([
      "src/redirects.ts:1-5 function followRedirects",
      "docs/redirects.md:1-3 doc redirects.md > Redirects",
      "test/redirects.test.ts:1-15 block -",
    ]);
  });

  it("ranks tests or documents by their match alone when the query names them", async () => {
    const files = async (q: string) => (await search(q)).results.map((x) => x.file_path);
    expect(await files("follow redirects")).toEqual(["src/redirects.ts", "docs/redirects.md", "test/redirects.test.ts"]);
    expect(await files("follow redirects test")).toEqual(["src/redirects.ts", "test/redirects.test.ts", "docs/redirects.md"]);
    expect(await files("follow redirects docs")).toEqual(["docs/redirects.md", "src/redirects.ts", "test/redirects.test.ts"]);
  });
});
