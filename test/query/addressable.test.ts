// Every symbol addressable, and names ranked as names: interface and type-literal members as
// `Type.member` (signature, verified callers through a receiver of that type, implementing
// methods), class members through an export alias, anonymous default exports named `default`,
// test files indexed and marked, one-name queries answered by that name first, split
// declarations in one slot.
import { describe, expect, it } from "vitest";
import type { SearchResponse } from "../../src/query/search-types.js";
import { indexedProject } from "../helpers/indexed.js";
import { flat } from "../helpers/sites.js";

const longBody = Array.from({ length: 150 }, (_, i) => `  const step${i} = input + ${i};`).join("\n");

const FILES: Record<string, string> = {
  "src/router.ts": [
    "export interface Router {",
    "  /** Finds the handlers of a path. */",
    "  match(method: string, path: string): string[];",
    "  add: (method: string, path: string) => void;",
    "  readonly name: string;",
    "}",
    "",
    "export type Store = {",
    "  get(key: string): number | undefined;",
    "};",
    "",
  ].join("\n"),
  "src/trie.ts": [
    "import type { Router } from './router';",
    "",
    "export class TrieRouter implements Router {",
    "  readonly name = 'trie';",
    "  match(method: string, path: string): string[] {",
    "    return [method, path];",
    "  }",
    "  add = (method: string, path: string): void => {};",
    "}",
    "",
  ].join("\n"),
  "src/app.ts": [
    "import type { Router } from './router';",
    "",
    "class App {",
    "  constructor(private readonly router: Router) {}",
    "  dispatch(path: string): string[] {",
    "    return this.router.match('GET', path);",
    "  }",
    "  route(path: string): void {}",
    "}",
    "",
    "export function compose(router: Router): string[] {",
    "  return router.match('POST', '/');",
    "}",
    "",
    "export const COMPOSED = 'composed';",
    "",
    "export { App as AppBase };",
    "",
  ].join("\n"),
  "src/handler.ts": "export default (input: string): string => input.trim();\n",
  "src/long.ts": `export function longProcess(input: number): number {\n${longBody}\n  return input;\n}\n`,
  "src/app.test.ts": ["import { compose } from './app';", "", "export function composeFixture(): string[] {", "  return compose({ match: () => [], add: () => {}, name: 'x' });", "}", ""].join("\n"),
};

const p = indexedProject(FILES);
const call = (tool: string, args: Record<string, unknown>) => p.call(tool, args);

describe("interface and type-literal members", () => {
  it("answers mast_signature for a method signature and a function-typed property, not for a plain property", async () => {
    const match = await call("mast_signature", { symbol: "Router.match", detail: "full" });
    expect(match.results.map((r: { file_path: string; line: number; kind: string; signature: string; return_type: string }) => [r.file_path, r.line, r.kind, r.signature, r.return_type])).toEqual([
      ["src/router.ts", 3, "method", "match(method: string, path: string): string[]", "string[]"],
    ]);
    expect(match.results[0].doc).toBe("/** Finds the handlers of a path. */");
    const add = await call("mast_signature", { symbol: "Router.add", detail: "full" });
    expect(add.results.map((r: { line: number; params: unknown }) => [r.line, r.params])).toEqual([
      [
        4,
        [
          { name: "method", type: "string", optional: false },
          { name: "path", type: "string", optional: false },
        ],
      ],
    ]);
    expect((await call("mast_signature", { symbol: "Router.name" })).not_found).toBe(true);
    const get = await call("mast_signature", { symbol: "Store.get" });
    expect(get.results.map((r: { file_path: string; line: number }) => [r.file_path, r.line])).toEqual([["src/router.ts", 9]]);
  });

  it("lists calls through a receiver typed by the interface as verified callers", async () => {
    const r = await call("mast_callers", { symbol: "Router.match" });
    expect(r.declaration).toEqual({ file_path: "src/router.ts", line: 3, kind: "method", is_exported: true, signature: "match(method: string, path: string): string[]" });
    expect(flat(r.verified_callers).map((c: { file_path: string; line: number; caller_symbol: string; resolution: string }) => [c.file_path, c.line, c.caller_symbol, c.resolution])).toEqual([
      ["src/app.ts", 6, "App.dispatch", "field_type"],
      ["src/app.ts", 12, "compose", "parameter_type"],
    ]);
  });

  it("lists the methods that implement an interface member", async () => {
    const r = await call("mast_implementors", { interface_name: "Router.match" });
    expect(r.implementors).toEqual([{ method: "TrieRouter.match", file_path: "src/trie.ts", line: 5, relation: "implements" }]);
    const type = await call("mast_implementors", { interface_name: "Router" });
    expect(type.implementors.map((i: { class_name: string; methods: string[] }) => [i.class_name, i.methods])).toEqual([["TrieRouter", ["match", "add"]]]);
  });
});

describe("export aliases and default exports", () => {
  it("resolves Alias.member to the class's own member, and exports the members of an aliased class", async () => {
    const sig = await call("mast_signature", { symbol: "AppBase.dispatch" });
    expect(sig.results.map((r: { symbol: string; file_path: string; line: number; is_exported: boolean }) => [r.symbol, r.file_path, r.line, r.is_exported])).toEqual([
      ["App.dispatch", "src/app.ts", 5, true],
    ]);
    const callers = await call("mast_callers", { symbol: "AppBase.route" });
    expect(callers.declaration).toEqual({ file_path: "src/app.ts", line: 8, kind: "method", is_exported: true, signature: "route(path: string): void" });
  });

  it("names an anonymous default export `default`", async () => {
    const r = await call("mast_exports", { file_path: "src/handler.ts" });
    expect(r.exports.map((e: { name: string; kind: string }) => [e.name, e.kind])).toEqual([["default", "function"]]);
  });
});

describe("search answers a name with that name", () => {
  const top = async (args: Record<string, unknown>) =>
    ((await call("mast_search", { limit: 5, ...args })) as SearchResponse).results.map((r) => `${r.file_path}:${r.symbol_name}${r.is_test ? " (test)" : ""}`);

  it("ranks the exact, same-case declaration first, then other cases, then methods of that name", async () => {
    expect((await top({ query: "compose" }))[0]).toBe("src/app.ts:compose");
    expect((await top({ query: "COMPOSED" }))[0]).toBe("src/app.ts:COMPOSED");
    expect((await top({ query: "match", chunk_type: "method" }))[0]).toBe("src/trie.ts:TrieRouter.match");
  });

  it("completes a partial camelCase name to the declarations that start with it", async () => {
    expect((await top({ query: "longProc" }))[0]).toBe("src/long.ts:longProcess");
  });

  it("reaches a method through the words of its class and name", async () => {
    // TrieRouter.match has both words in its name; App.dispatch's body calls `this.router.match`.
    expect(await top({ query: "router matching", chunk_type: "method" })).toEqual([
      "src/app.ts:App.dispatch",
      "src/app.ts:App.constructor",
      "src/trie.ts:TrieRouter.match",
      "src/trie.ts:TrieRouter.add",
    ]);
  });

  it("indexes test files by default and marks their results, below source of the same standing", async () => {
    const r = await top({ query: "composeFixture" });
    expect(r[0]).toBe("src/app.test.ts:composeFixture (test)");
    const compose = await top({ query: "compose", limit: 10 });
    expect(compose.indexOf("src/app.ts:compose")).toBeLessThan(compose.indexOf("src/app.test.ts:composeFixture (test)"));
    const callers = await call("mast_callers", { symbol: "compose" });
    expect(flat(callers.verified_callers).map((c: { file_path: string; line: number }) => [c.file_path, c.line])).toEqual([["src/app.test.ts", 4]]);
  });

  it("gives a split declaration one slot and names its other matched parts", async () => {
    const r = ((await call("mast_search", { query: "longProcess step1", limit: 10 })) as SearchResponse).results.filter((x) => x.symbol_name === "longProcess");
    expect(r).toHaveLength(1);
    // 153 lines split at 100 with a 10-line overlap: parts at lines 1 and 91; the second holds more `step1…`.
    expect([r[0]!.start_line, r[0]!.related]).toEqual([91, { parts_matched: [1] }]);
  });
});

describe("search answers sized for a context window", () => {
  it("cuts each content to max_chars at a line end and says where it stops", async () => {
    const r = ((await call("mast_search", { query: "longProcess", limit: 1, max_chars: 60 })) as SearchResponse).results[0] as unknown as Record<string, unknown>;
    // Lines 1-2 of src/long.ts are 51 and 26 characters: only the first fits in 60.
    expect([r["content"], r["content_truncated"], r["content_start_line"], r["content_end_line"]]).toEqual(["export function longProcess(input: number): number {", true, 1, 1]);
    const none = ((await call("mast_search", { query: "longProcess", limit: 1, max_chars: 0 })) as SearchResponse).results[0] as unknown as Record<string, unknown>;
    expect([none["content"], none["content_end_line"]]).toEqual(["", 0]);
    const whole = ((await call("mast_search", { query: "compose", limit: 1, max_chars: 10_000 })) as SearchResponse).results[0] as unknown as Record<string, unknown>;
    expect([whole["content_truncated"], (whole["content"] as string).includes("  return router.match('POST', '/');\n}")]).toEqual([undefined, true]);
  });

  it("answers only the fields asked for", async () => {
    const r = await call("mast_search", { query: "compose", limit: 2, fields: ["file_path", "start_line", "symbol_name"] });
    expect(r.results).toEqual([{ file_path: "src/app.ts", start_line: 11, symbol_name: "compose" }, expect.objectContaining({ file_path: expect.any(String) })]);
    expect(Object.keys(r.results[1]).sort()).toEqual(["file_path", "start_line", "symbol_name"]);
    await expect(call("mast_search", { query: "compose", fields: ["nope"] })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
