// mast_callers, mast_implementors and mast_rename_impact end to end: real projects indexed into
// real SQLite, queried through the tool registry. Covers each resolution rule of docs/call-graph.md#call-sites-and-the-local-type-environment as a
// verified caller and each "does NOT catch" case as a potential match only; same-named
// declarations routed by their file evidence; named and star barrels; `.js` specifiers, tsconfig
// paths and workspace packages; transitive callers and recursion; the potential cap; implementors
// and their stale flag; the just-in-time refresh of docs/freshness.md#the-just-in-time-refresh; odd inputs; and `mast query` parity.
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MastError } from "../../src/base/errors.js";
import { assertBuilt, runMast } from "../helpers/cli.js";
import { flat } from "../helpers/sites.js";
import { indexedProject } from "../helpers/indexed.js";

// ---- fixtures ----

/** A source file's text from its lines (line N of the file is the Nth argument). */
const source = (...lines: string[]): string => [...lines, ""].join("\n");

/** One rule of docs/call-graph.md#call-sites-and-the-local-type-environment (or one case it does not catch) per function, method or class. */
const RESOLVER: Record<string, string> = {
  "src/repo.ts": source(
    "export class Repo {",
    "  find(id: string): string {",
    "    return id;",
    "  }",
    "",
    "  later(id: string): void {",
    "    setTimeout(() => this.find(id));",
    "    setTimeout(function () {",
    "      this.find(id);",
    "    });",
    "  }",
    "}",
    "",
    "export function makeRepo() {",
    "  return new Repo();",
    "}",
    "",
    "export function getRepo() {",
    "  return new Repo();",
    "}",
  ),
  "src/audit.ts": source("export function audit(event: string): void {", "  console.log(event);", "}"),
  "src/service.ts": source(
    "import { audit } from './audit.js';",
    "import { Repo } from './repo.js';",
    "",
    "export class AuthService {",
    "  private repo: Repo = new Repo();",
    "",
    "  constructor(private readonly users: Repo) {",
    "    users.find('boot');",
    "  }",
    "",
    "  login(id: string): string {",
    "    audit('login');",
    "    this.check(id);",
    "    return this.repo.find(id);",
    "  }",
    "",
    "  check(id: string): string {",
    "    return this.users.find(id);",
    "  }",
    "}",
  ),
  "src/helpers.ts": source(
    "import { Repo } from './repo.js';",
    "",
    "function normalise(id: string): string {",
    "  return id.trim();",
    "}",
    "",
    "export function lookup(repo: Repo, id: string): string {",
    "  return repo.find(normalise(id));",
    "}",
    "",
    "export function fresh(id: string): string {",
    "  const r = new Repo();",
    "  return r.find(id);",
    "}",
    "",
    "export async function unwrapped(repo: Repo): Promise<void> {",
    "  (await repo).find('a');",
    "  (repo).find('b');",
    "  repo!.find('c');",
    "  (repo as Repo).find('d');",
    "}",
  ),
  "src/jobs.ts": source(
    "export class BaseJob {",
    "  run(): void {}",
    "}",
    "",
    "export class Job extends BaseJob {",
    "  run(): void {",
    "    super.run();",
    "  }",
    "}",
    "",
    "export class Lonely {",
    "  run(): void {",
    "    super.run();",
    "  }",
    "}",
  ),
  "src/container.ts": source("export const container = {", "  get<T>(type: new () => T): T {", "    return new type();", "  },", "};"),
  "src/unresolved.ts": source(
    "import { Repo, getRepo, makeRepo } from './repo.js';",
    "import { container } from './container.js';",
    "",
    "export function viaFactory(id: string): string {",
    "  const r = makeRepo();",
    "  return r.find(id);",
    "}",
    "",
    "export function viaContainer(id: string): string {",
    "  return container.get(Repo).find(id);",
    "}",
    "",
    "export function viaChain(id: string): string {",
    "  return getRepo().find(id);",
    "}",
    "",
    "export function viaDynamic(repos: Record<string, Repo>, name: string): string {",
    "  return repos[name].find(name);",
    "}",
    "",
    "export function viaGeneric<T extends Repo>(repo: T, id: string): string {",
    "  return repo.find(id);",
    "}",
  ),
  "src/chain.ts": source(
    "export function leaf(): number {",
    "  return 1;",
    "}",
    "",
    "export function middle(): number {",
    "  return leaf() + 1;",
    "}",
    "",
    "export function top(): number {",
    "  return middle() * 2;",
    "}",
    "",
    "export function countdown(n: number): number {",
    "  return n > 0 ? countdown(n - 1) : 0;",
    "}",
    "",
    "export function ping(n: number): number {",
    "  return n > 0 ? pong(n - 1) : 0;",
    "}",
    "",
    "export function pong(n: number): number {",
    "  return n > 0 ? ping(n - 1) : 0;",
    "}",
  ),
  "src/main.ts": source("import { top } from './chain.js';", "", "export function start(): number {", "  return top();", "}"),
  "src/stores.ts": source(
    "export interface Store {",
    "  get(key: string): string | undefined;",
    "  put(key: string, value: string): void;",
    "}",
    "",
    "export class MemoryStore implements Store {",
    "  put(key: string, value: string): void {}",
    "  get(key: string): string | undefined {",
    "    return undefined;",
    "  }",
    "}",
    "",
    "export class DiskStore implements Store {",
    "  get(key: string): string | undefined {",
    "    return undefined;",
    "  }",
    "  put(key: string, value: string): void {}",
    "  flush(): void {}",
    "}",
  ),
  "src/cached.ts": source(
    "import { DiskStore } from './stores.js';",
    "",
    "export class CachedDiskStore extends DiskStore {",
    "  override get(key: string): string | undefined {",
    "    return super.get(key);",
    "  }",
    "}",
  ),
};

/** Same-named declarations in two files, barrels, and every kind of module specifier. */
const MODULES: Record<string, string> = {
  "tsconfig.json": `{ "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["src/lib/*"] } } }\n`,
  "package.json": `{ "name": "acme", "private": true, "workspaces": ["packages/*"] }\n`,
  "packages/ids/package.json": `{ "name": "@acme/ids", "main": "src/index.ts", "types": "src/index.ts", "exports": { ".": "./src/index.ts" } }\n`,
  "packages/ids/src/index.ts": source("export function newId(): string {", "  return 'id';", "}"),
  "src/lib/repo.ts": source(
    "export class UserRepository {",
    "  findById(id: string): string {",
    "    return id;",
    "  }",
    "}",
    "",
    "export function audit(event: string): void {}",
    "",
    "export function track(event: string): void {}",
  ),
  "src/lib/index.ts": source("export { track as record } from './repo.js';"),
  "src/lib/all.ts": source("export * from './repo.js';"),
  "src/index.ts": source("export * from './lib/index.js';"),
  "src/other/repo.ts": source("export class UserRepository {", "  findById(id: string): string {", "    return id.toUpperCase();", "  }", "}", "", "export function audit(): void {}"),
  "scripts/seed.ts": source("function audit(): void {}", "", "export function seed(): void {", "  audit();", "}"),
  "src/app.ts": source(
    "import { UserRepository, track } from './lib/all.js';",
    "import { record } from './lib/index.js';",
    "import { audit } from '@lib/repo';",
    "import { UserRepository as LegacyRepository, audit as legacyAudit } from './other/repo.js';",
    "import { newId } from '@acme/ids';",
    "",
    "export function main(): void {",
    "  const users = new UserRepository();",
    "  users.findById(newId());",
    "  track('start');",
    "  record('a');",
    "  audit('c');",
    "  legacyAudit();",
    "  const legacy = new LegacyRepository();",
    "  legacy.findById('d');",
    "}",
  ),
};

// ---- helpers ----

/** Indexes `files` once for the enclosing describe and calls tools on it through the registry. */
type Resolution = "import" | "field_type" | "parameter_type" | "new_expression" | "same_file" | "this_method" | "super_method";

/** A verified_callers entry. */
const site = (file_path: string, line: number, caller_symbol: string, context: string, resolution: Resolution) => ({ file_path, line, caller_symbol, context, resolution });
/** A transitive verified_callers entry (a direct caller, depth 1, states no depth). */
const hop = (file_path: string, line: number, caller_symbol: string, context: string, resolution: Resolution, depth: number, callee_symbol: string) => ({
  ...site(file_path, line, caller_symbol, context, resolution),
  ...(depth === 1 ? {} : { depth, callee_symbol }),
});
/** A potential_matches entry. */
const mention = (file_path: string, line: number, context: string) => ({ file_path, line, context });
/** A declaration / declaration_sites entry. */
const declared = (file_path: string, line: number, kind: string, is_exported = true, signature?: string) => ({ file_path, line, kind, is_exported, ...(signature === undefined ? {} : { signature }) });
/** A result entry as `path:line`. */
const at = (entry: { file_path: string; line: number }) => `${entry.file_path}:${entry.line}`;

/** The MastError code a tool call fails with. */
async function failureCode(call: Promise<unknown>): Promise<string> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MastError);
  return (err as MastError).code;
}

// ---- the resolver project ----

describe("on a project exercising the local type environment (docs/call-graph.md#call-sites-and-the-local-type-environment)", () => {
  const p = indexedProject(RESOLVER);

  describe("mast_callers: what the resolver links", () => {
    it("links every typed receiver of Repo.find, looking through await, parentheses, ! and as", async () => {
      const r = await p.call("mast_callers", { symbol: "Repo.find" });
      expect(r.declaration).toEqual(declared("src/repo.ts", 2, "method", true, "find(id: string): string"));
      expect(r.other_declarations).toBeUndefined();
      expect(flat(r.verified_callers)).toEqual([
        // An annotated parameter of a plain function.
        site("src/helpers.ts", 8, "lookup", "return repo.find(normalise(id));", "parameter_type"),
        // `const r = new Repo(); r.find()`.
        site("src/helpers.ts", 13, "fresh", "return r.find(id);", "new_expression"),
        // The same parameter behind await, parentheses, a non-null assertion and `as`.
        site("src/helpers.ts", 17, "unwrapped", "(await repo).find('a');", "parameter_type"),
        site("src/helpers.ts", 18, "unwrapped", "(repo).find('b');", "parameter_type"),
        site("src/helpers.ts", 19, "unwrapped", "repo!.find('c');", "parameter_type"),
        site("src/helpers.ts", 20, "unwrapped", "(repo as Repo).find('d');", "parameter_type"),
        // `this` inside an arrow function is still the instance.
        site("src/repo.ts", 7, "Repo.later", "setTimeout(() => this.find(id));", "this_method"),
        // A constructor parameter property used as the parameter it also is.
        site("src/service.ts", 8, "AuthService.constructor", "users.find('boot');", "parameter_type"),
        // An annotated class field.
        site("src/service.ts", 14, "AuthService.login", "return this.repo.find(id);", "field_type"),
        // The implicit field a parameter property creates "resolves the same way as (2)" (docs/call-graph.md#call-sites-and-the-local-type-environment).
        site("src/service.ts", 18, "AuthService.check", "return this.users.find(id);", "field_type"),
      ]);
      expect(r.summary).toEqual({ verified_count: 10, potential_count: 6 });
    });

    it("links a call through a named import", async () => {
      const r = await p.call("mast_callers", { symbol: "audit" });
      expect(r.declaration).toEqual(declared("src/audit.ts", 1, "function", true, "export function audit(event: string): void"));
      expect(flat(r.verified_callers)).toEqual([site("src/service.ts", 12, "AuthService.login", "audit('login');", "import")]);
      // The declaration's own line is not a potential caller, nor is the import the verified call resolved through.
      expect([r.potential_matches, r.summary]).toEqual([[], { verified_count: 1, potential_count: 0, imports_omitted: 1 }]);
    });

    it("links a call to a function declared in the same file", async () => {
      const r = await p.call("mast_callers", { symbol: "normalise" });
      expect(r.declaration).toEqual(declared("src/helpers.ts", 3, "function", false, "function normalise(id: string): string"));
      expect(flat(r.verified_callers)).toEqual([site("src/helpers.ts", 8, "lookup", "return repo.find(normalise(id));", "same_file")]);
    });

    it("links this.method() to the enclosing class's method", async () => {
      const r = await p.call("mast_callers", { symbol: "AuthService.check" });
      expect(flat(r.verified_callers)).toEqual([site("src/service.ts", 13, "AuthService.login", "this.check(id);", "this_method")]);
    });

    it("links super.method() only in a class with an extends clause", async () => {
      const r = await p.call("mast_callers", { symbol: "BaseJob.run" });
      expect(flat(r.verified_callers)).toEqual([site("src/jobs.ts", 7, "Job.run", "super.run();", "super_method")]);
    });
  });

  describe("mast_callers: what the resolver does not catch is a potential match only", () => {
    const cases: Array<[string, string, ReturnType<typeof mention>]> = [
      ["a factory's return value without an annotation", "Repo.find", mention("src/unresolved.ts", 6, "return r.find(id);")],
      ["a DI container lookup", "Repo.find", mention("src/unresolved.ts", 10, "return container.get(Repo).find(id);")],
      ["a chained call without a binding", "Repo.find", mention("src/unresolved.ts", 14, "return getRepo().find(id);")],
      ["dynamic dispatch", "Repo.find", mention("src/unresolved.ts", 18, "return repos[name].find(name);")],
      ["a receiver typed by a generic type parameter", "Repo.find", mention("src/unresolved.ts", 22, "return repo.find(id);")],
      ["this.x() inside a nested non-arrow function", "Repo.find", mention("src/repo.ts", 9, "this.find(id);")],
      ["super.x() in a class without extends", "BaseJob.run", mention("src/jobs.ts", 13, "super.run();")],
    ];
    it.each(cases)("%s", async (_case, symbol, expected) => {
      const r = await p.call("mast_callers", { symbol });
      expect(flat(r.verified_callers).map(at)).not.toContain(at(expected));
      expect(flat(r.potential_matches, "potential")).toContainEqual(expected);
    });
  });

  describe("mast_callers: potential_matches quote the source at its line", () => {
    it("leaves a member's own declaration line out, and quotes other declarations of the name at their lines", async () => {
      // AuthService.check is declared at line 17 of src/service.ts: nothing else names it.
      const check = await p.call("mast_callers", { symbol: "AuthService.check" });
      expect([flat(check.potential_matches, "potential"), check.summary.potential_count]).toEqual([[], 0]);
      const later = await p.call("mast_callers", { symbol: "Repo.later" });
      expect(flat(later.potential_matches, "potential")).toEqual([]);
    });
  });

  describe("mast_callers: transitive", () => {
    it("follows callers of callers across files, each with its depth and callee", async () => {
      const r = await p.call("mast_callers", { symbol: "leaf", transitive: true });
      expect(flat(r.verified_callers)).toEqual([
        hop("src/chain.ts", 6, "middle", "return leaf() + 1;", "same_file", 1, "leaf"),
        hop("src/chain.ts", 10, "top", "return middle() * 2;", "same_file", 2, "middle"),
        hop("src/main.ts", 4, "start", "return top();", "import", 3, "top"),
      ]);
      expect(r.summary).toEqual({ verified_count: 3, potential_count: 0, transitive: true });
    });

    it("terminates on a function calling itself and on a cycle", async () => {
      const self = await p.call("mast_callers", { symbol: "countdown", transitive: true });
      expect(flat(self.verified_callers)).toEqual([hop("src/chain.ts", 14, "countdown", "return n > 0 ? countdown(n - 1) : 0;", "same_file", 1, "countdown")]);
      const cycle = await p.call("mast_callers", { symbol: "ping", transitive: true });
      expect(flat(cycle.verified_callers)).toEqual([
        hop("src/chain.ts", 22, "pong", "return n > 0 ? ping(n - 1) : 0;", "same_file", 1, "ping"),
        hop("src/chain.ts", 18, "ping", "return n > 0 ? pong(n - 1) : 0;", "same_file", 2, "pong"),
      ]);
    });
  });

  describe("mast_callers: the potential set's switches and cap", () => {
    it("include_potential: false returns the verified set alone", async () => {
      const r = await p.call("mast_callers", { symbol: "Repo.find", include_potential: false });
      expect(flat(r.potential_matches, "potential")).toEqual([]);
      expect(flat(r.verified_callers)).toHaveLength(10);
      expect(r.summary).toEqual({ verified_count: 10, potential_count: 0 });
    });

    it("potential_limit caps the list; summary.potential_total is the real count, potential_truncated what was left out", async () => {
      const full = await p.call("mast_callers", { symbol: "Repo.find" });
      expect(flat(full.potential_matches, "potential")).toHaveLength(6);
      expect(full.summary).toEqual({ verified_count: 10, potential_count: 6 });
      const capped = await p.call("mast_callers", { symbol: "Repo.find", potential_limit: 2 });
      expect(flat(capped.potential_matches, "potential")).toEqual(flat(full.potential_matches, "potential").slice(0, 2));
      expect(capped.summary).toEqual({ verified_count: 10, potential_count: 2, potential_total: 6, potential_truncated: 4 });
      const exact = await p.call("mast_rename_impact", { symbol: "Repo.find", potential_limit: 6 });
      expect(exact.summary.potential_count).toBe(6);
      expect([exact.summary.potential_total, exact.summary.potential_truncated]).toEqual([undefined, undefined]);
    });

    it("verified_limit caps the verified sites in their order; summary.verified_total and verified_truncated say so; mast_rename_impact lists them all", async () => {
      const full = await p.call("mast_callers", { symbol: "Repo.find", include_potential: false });
      const capped = await p.call("mast_callers", { symbol: "Repo.find", include_potential: false, verified_limit: 3 });
      expect(flat(capped.verified_callers)).toEqual(flat(full.verified_callers).slice(0, 3));
      expect(capped.summary).toEqual({ verified_count: 3, verified_total: 10, verified_truncated: 7, potential_count: 0 });
      const all = await p.call("mast_callers", { symbol: "Repo.find", include_potential: false, verified_limit: 10 });
      expect(all.summary).toEqual({ verified_count: 10, potential_count: 0 });
      expect((await p.call("mast_rename_impact", { symbol: "Repo.find" })).summary.verified_count).toBe(10);
    });
  });

  describe("mast_implementors", () => {
    it("lists an interface's implementors with their methods in declaration order, then their subclasses", async () => {
      const r = await p.call("mast_implementors", { interface_name: "Store" });
      expect(r).toEqual({
        declaration: declared("src/stores.ts", 1, "interface"),
        implementors: [
          { class_name: "MemoryStore", file_path: "src/stores.ts", line: 6, relation: "implements", methods: ["put", "get"] },
          { class_name: "DiskStore", file_path: "src/stores.ts", line: 13, relation: "implements", methods: ["get", "put", "flush"] },
          { class_name: "CachedDiskStore", file_path: "src/cached.ts", line: 3, relation: "extends", via: "DiskStore", methods: ["get"] },
        ],
      });
    });

    it("given a class, lists its subclasses", async () => {
      const r = await p.call("mast_implementors", { interface_name: "DiskStore" });
      expect(r.declaration).toEqual(declared("src/stores.ts", 13, "class"));
      expect(r.implementors).toEqual([{ class_name: "CachedDiskStore", file_path: "src/cached.ts", line: 3, relation: "extends", methods: ["get"] }]);
    });
  });

  describe("odd inputs", () => {
    it("a name that is not declared says not_found, with the names it may have meant", async () => {
      const wrongCase = await p.call("mast_callers", { symbol: "repo.find" });
      expect([wrongCase.declaration, wrongCase.not_found, wrongCase.did_you_mean[0]]).toEqual([null, true, "Repo.find"]);
      expect((await p.call("mast_rename_impact", { symbol: "Repo.fnd" })).did_you_mean[0]).toBe("Repo.find");
      expect((await p.call("mast_implementors", { interface_name: "Stor" })).did_you_mean).toContain("Store");
      const found = await p.call("mast_callers", { symbol: "Repo.find" });
      expect([found.not_found, found.did_you_mean]).toEqual([undefined, undefined]);
    });

    it("an unknown name has no declaration and, named nowhere, no matches", async () => {
      expect(await p.call("mast_callers", { symbol: "nothingLikeThis" })).toEqual({
        declaration: null,
        not_found: true,
        did_you_mean: [],
        verified_callers: [],
        potential_matches: [],
        summary: { verified_count: 0, potential_count: 0 },
      });
      expect(await p.call("mast_implementors", { interface_name: "NothingLikeThis" })).toEqual({ declaration: null, not_found: true, did_you_mean: [], implementors: [] });
      expect(await p.call("mast_rename_impact", { symbol: "nothingLikeThis" })).toEqual({
        declaration_sites: [],
        not_found: true,
        did_you_mean: [],
        verified_callers: [],
        potential_matches: [],
        barrel_exports: [],
        summary: {
          declaration_count: 0,
          verified_count: 0,
          potential_count: 0,
          barrel_count: 0,
          checklist: "0 verified call site(s) to update, 0 review-required identifier match(es), 0 barrel export(s) to update.",
        },
      });
    });

    it("a name declared nowhere but used in code has only potential matches", async () => {
      const r = await p.call("mast_callers", { symbol: "setTimeout" });
      expect(r.declaration).toBeNull();
      expect(flat(r.verified_callers)).toEqual([]);
      expect(flat(r.potential_matches, "potential")).toEqual([mention("src/repo.ts", 7, "setTimeout(() => this.find(id));"), mention("src/repo.ts", 8, "setTimeout(function () {")]);
    });

    const bad: Array<[code: string, tool: string, args: Record<string, unknown>]> = [
      ["PATH_DENIED", "mast_callers", { symbol: "Repo.find", file_path: "../outside.ts" }],
      ["PATH_DENIED", "mast_rename_impact", { symbol: "Repo.find", file_path: "/etc/passwd" }],
      ["PATH_DENIED", "mast_implementors", { interface_name: "Store", file_path: "../outside.ts" }],
      ["FILE_NOT_FOUND", "mast_callers", { symbol: "Repo.find", file_path: "src/missing.ts" }],
      ["FILE_NOT_FOUND", "mast_rename_impact", { symbol: "Repo.find", file_path: "src/missing.ts" }],
      ["FILE_NOT_FOUND", "mast_implementors", { interface_name: "Store", file_path: "src/missing.ts" }],
      ["INVALID_ARGUMENT", "mast_callers", { symbol: "Repo.find", potential_limit: 0 }],
      ["INVALID_ARGUMENT", "mast_callers", { symbol: "Repo.find", verified_limit: 10_001 }],
      ["INVALID_ARGUMENT", "mast_rename_impact", { symbol: "Repo.find", potential_limit: 1001 }],
      ["INVALID_ARGUMENT", "mast_callers", { symbol: "" }],
      ["INVALID_ARGUMENT", "mast_callers", { symbol: "Repo.find", transitive: "yes" }],
      ["INVALID_ARGUMENT", "mast_implementors", { interface_name: "Store", extra: true }],
    ];
    it.each(bad)("%s: %s %j", async (code, tool, args) => {
      expect(await failureCode(p.call(tool, args))).toBe(code);
    });
  });

  describe("mast query", () => {
    it("prints exactly what the registry answers for the same call", async () => {
      assertBuilt();
      for (const [tool, args] of [
        ["mast_callers", { symbol: "Repo.find", transitive: true, potential_limit: 3 }],
        ["mast_implementors", { interface_name: "Store" }],
        ["mast_rename_impact", { symbol: "audit" }],
      ] as const) {
        const cli = await runMast(["query", tool, JSON.stringify(args), p.project.root, "--json"]);
        expect(cli.code, cli.stderr).toBe(0);
        expect(JSON.parse(cli.stdout)).toEqual(await p.call(tool, args));
      }
    });
  });
});

// ---- a package beside its examples and tests ----

describe("on a package whose examples and tests declare the same name", () => {
  const p = indexedProject({
    "examples/demo.py": "def group():\n    return 'demo'\n",
    "src/pkg/__init__.py": "from .decorators import group\n",
    "src/pkg/decorators.py": "def group(name=None):\n    return name\n",
    "tests/test_group.py": "def group():\n    return None\n",
  });

  it("answers for the package's declaration, a source file's before an example's or a test's", async () => {
    const r = await p.call("mast_callers", { symbol: "group" });
    expect(r.declaration).toEqual(declared("src/pkg/decorators.py", 1, "function", true, "def group(name=None)"));
    expect(r.other_declarations).toEqual([declared("examples/demo.py", 1, "function"), declared("tests/test_group.py", 1, "function")]);
    // mast_signature lists every one in the same order.
    const signatures = await p.call("mast_signature", { symbol: "group" });
    expect(signatures.results.map(at)).toEqual(["src/pkg/decorators.py:1", "examples/demo.py:1", "tests/test_group.py:1"]);
  });
});

// ---- a class constructed through a namespace import ----

describe("on a class constructed through a namespace import", () => {
  const p = indexedProject({
    "src/models.ts": "export class User {\n  constructor(readonly name: string) {}\n}\n",
    "src/make.ts": "import * as models from './models';\n\nexport function make(name: string) {\n  return new models.User(name);\n}\n",
  });

  it("links `new ns.Class()` to the class the namespace's module exports", async () => {
    const r = await p.call("mast_callers", { symbol: "User" });
    expect(flat(r.verified_callers)).toEqual([site("src/make.ts", 4, "make", "return new models.User(name);", "import")]);
  });
});

// ---- the modules project ----

describe("on a project with same-named declarations, barrels and module specifiers", () => {
  const p = indexedProject(MODULES);

  describe("same-named declarations", () => {
    it("answer for the first declaration (exported first, then by path, a source file's first) and list the others", async () => {
      const r = await p.call("mast_callers", { symbol: "audit" });
      expect(r.declaration).toEqual(declared("src/lib/repo.ts", 7, "function", true, "export function audit(event: string): void"));
      expect(r.other_declarations).toEqual([declared("src/other/repo.ts", 7, "function"), declared("scripts/seed.ts", 1, "function", false)]);
      expect(flat(r.verified_callers)).toEqual([site("src/app.ts", 12, "main", "audit('c');", "import")]);
      // Every other line naming `audit` is for review, except seed's own call, linked to its own
      // audit, and app.ts's imports (app.ts has a verified caller): the other declarations' lines.
      expect(flat(r.potential_matches, "potential")).toEqual([mention("scripts/seed.ts", 1, "function audit(): void {}"), mention("src/other/repo.ts", 7, "export function audit(): void {}")]);
      expect(r.summary.imports_omitted).toBe(2);
    });

    it("file_path picks each declaration, with only its own callers", async () => {
      const other = await p.call("mast_callers", { symbol: "audit", file_path: "src/other/repo.ts" });
      expect(other.declaration).toEqual(declared("src/other/repo.ts", 7, "function", true, "export function audit(): void"));
      expect(other.other_declarations).toBeUndefined();
      expect(flat(other.verified_callers)).toEqual([site("src/app.ts", 13, "main", "legacyAudit();", "import")]);
      const seed = await p.call("mast_callers", { symbol: "audit", file_path: "./scripts/seed.ts" });
      expect(seed.declaration).toEqual(declared("scripts/seed.ts", 1, "function", false, "function audit(): void"));
      expect(flat(seed.verified_callers)).toEqual([site("scripts/seed.ts", 4, "seed", "audit();", "same_file")]);
    });

    it("route a method call by the type its receiver was built from", async () => {
      const lib = await p.call("mast_callers", { symbol: "UserRepository.findById" });
      expect(lib.declaration).toEqual(declared("src/lib/repo.ts", 2, "method", true, "findById(id: string): string"));
      expect(lib.other_declarations).toEqual([declared("src/other/repo.ts", 2, "method")]);
      expect(flat(lib.verified_callers)).toEqual([site("src/app.ts", 9, "main", "users.findById(newId());", "new_expression")]);
      const other = await p.call("mast_callers", { symbol: "UserRepository.findById", file_path: "src/other/repo.ts" });
      expect(flat(other.verified_callers)).toEqual([site("src/app.ts", 15, "main", "legacy.findById('d');", "new_expression")]);
      // Each call is linked to one declaration, so neither is left for review under the other.
      expect([...flat(lib.potential_matches, "potential"), ...flat(other.potential_matches, "potential")].map(at)).not.toContain("src/app.ts:9");
      expect([...flat(lib.potential_matches, "potential"), ...flat(other.potential_matches, "potential")].map(at)).not.toContain("src/app.ts:15");
    });
  });

  describe("module specifiers", () => {
    const cases: Array<[string, Record<string, unknown>, ReturnType<typeof site>]> = [
      ["a `.js` specifier naming a `.ts` file", { symbol: "audit", file_path: "src/other/repo.ts" }, site("src/app.ts", 13, "main", "legacyAudit();", "import")],
      ["a tsconfig `paths` alias (@lib/*)", { symbol: "audit", file_path: "src/lib/repo.ts" }, site("src/app.ts", 12, "main", "audit('c');", "import")],
      ["a workspace package (@acme/ids)", { symbol: "newId" }, site("src/app.ts", 9, "main", "users.findById(newId());", "import")],
    ];
    it.each(cases)("%s resolves to a verified import edge", async (_case, args, expected) => {
      expect(flat((await p.call("mast_callers", args)).verified_callers)).toEqual([expected]);
    });

    it("the workspace package's declaration is its own source file", async () => {
      expect((await p.call("mast_callers", { symbol: "newId" })).declaration).toEqual(declared("packages/ids/src/index.ts", 1, "function", true, "export function newId(): string"));
    });
  });

  describe("barrels", () => {
    /** Where `track` is re-exported, and under which name. */
    const TRACK_BARRELS = [
      { file_path: "src/lib/index.ts", line: 1, exported_as: "record", via: "named" },
      { file_path: "src/lib/all.ts", line: null, exported_as: "track", via: "star" },
      // `export * from './lib/index.js'` passes the alias on.
      { file_path: "src/index.ts", line: null, exported_as: "record", via: "star" },
    ];

    it("mast_rename_impact lists callers through a named alias and a star barrel, and every barrel", async () => {
      expect(await p.call("mast_rename_impact", { symbol: "track" })).toEqual({
        declaration_sites: [declared("src/lib/repo.ts", 9, "function")],
        // Grouped by file: the file once (its shared resolution too), then each site as one line.
        verified_callers: [
          {
            file_path: "src/app.ts",
            resolution: "import",
            // Through `export * from './repo.js'` (src/lib/all.ts), then `export { track as record } from './repo.js'` (src/lib/index.ts).
            sites: ["10 main: track('start');", "11 main: record('a');"],
          },
        ],
        // Mentions (imports, a re-export), by path: a rename edits them.
        potential_matches: [
          { file_path: "src/app.ts", sites: ["1: import { UserRepository, track } from './lib/all.js';", "2: import { record } from './lib/index.js';"] },
          { file_path: "src/lib/index.ts", sites: ["1: export { track as record } from './repo.js';"] },
        ],
        barrel_exports: TRACK_BARRELS,
        summary: {
          declaration_count: 1,
          verified_count: 2,
          potential_count: 3,
          barrel_count: 3,
          checklist: "2 verified call site(s) to update, 3 review-required identifier match(es), 3 barrel export(s) to update.",
        },
      });
    });

    it("the alias, given with its barrel, answers for the declaration", async () => {
      const r = await p.call("mast_callers", { symbol: "record", file_path: "src/lib/index.ts" });
      expect(r.declaration).toEqual(declared("src/lib/repo.ts", 9, "function", true, "export function track(event: string): void"));
      expect(flat(r.verified_callers)).toEqual([site("src/app.ts", 10, "main", "track('start');", "import"), site("src/app.ts", 11, "main", "record('a');", "import")]);
    });

    it("mast_rename_impact of the alias, given with its barrel, lists the declaration's barrels under their own names", async () => {
      const r = await p.call("mast_rename_impact", { symbol: "record", file_path: "src/lib/index.ts" });
      expect(r.declaration_sites).toEqual([declared("src/lib/repo.ts", 9, "function")]);
      // src/lib/all.ts is `export * from './repo.js'`: it exports the declaration as `track`, never as `record`.
      expect(r.barrel_exports).toEqual(TRACK_BARRELS);
    });

    it("the alias alone has no declaration of its own, but its call site is listed for review", async () => {
      const r = await p.call("mast_callers", { symbol: "record" });
      expect(r.declaration).toBeNull();
      expect(flat(r.verified_callers)).toEqual([]);
      expect(flat(r.potential_matches, "potential")).toEqual([
        mention("src/app.ts", 11, "record('a');"),
        mention("src/app.ts", 2, "import { record } from './lib/index.js';"),
        mention("src/lib/index.ts", 1, "export { track as record } from './repo.js';"),
      ]);
    });
  });
});

// ---- changes on disk after indexing ----

describe("files changed on disk after indexing", () => {
  const p = indexedProject(RESOLVER);
  const touch = (path: string) => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(p.project.root, path), later, later);
  };

  it("mast_implementors flags only the result whose file is newer on disk", async () => {
    touch("src/cached.ts");
    const r = await p.call("mast_implementors", { interface_name: "Store" });
    expect(r.implementors.map((i: any) => [i.class_name, i.stale])).toEqual([
      ["MemoryStore", undefined],
      ["DiskStore", undefined],
      ["CachedDiskStore", true],
    ]);
  });

  it("mast_callers refreshes a caller file just in time: new call sites at their new lines, removed ones gone", async () => {
    p.project.write(
      "src/helpers.ts",
      RESOLVER["src/helpers.ts"]!.replace("import { Repo } from './repo.js';\n", "import { Repo } from './repo.js';\n\n// Lookups by id.\n")
        .replace("  return repo.find(normalise(id));\n", "  repo.find('warm-up');\n  return repo.find(normalise(id));\n")
        .replace("  return r.find(id);\n", "  return id;\n"),
    );
    touch("src/helpers.ts");
    const r = await p.call("mast_callers", { symbol: "Repo.find" });
    expect(r.file_busy_returning_stale_cache).toBeUndefined();
    expect(flat(r.verified_callers).filter((v: any) => v.file_path === "src/helpers.ts")).toEqual([
      site("src/helpers.ts", 10, "lookup", "repo.find('warm-up');", "parameter_type"),
      site("src/helpers.ts", 11, "lookup", "return repo.find(normalise(id));", "parameter_type"),
      site("src/helpers.ts", 20, "unwrapped", "(await repo).find('a');", "parameter_type"),
      site("src/helpers.ts", 21, "unwrapped", "(repo).find('b');", "parameter_type"),
      site("src/helpers.ts", 22, "unwrapped", "repo!.find('c');", "parameter_type"),
      site("src/helpers.ts", 23, "unwrapped", "(repo as Repo).find('d');", "parameter_type"),
    ]);
    expect(flat(r.potential_matches, "potential").filter((m: any) => m.file_path === "src/helpers.ts")).toEqual([]);
    const normalise = await p.call("mast_callers", { symbol: "normalise" });
    expect(normalise.declaration).toEqual(declared("src/helpers.ts", 5, "function", false, "function normalise(id: string): string"));
    expect(flat(normalise.verified_callers)).toEqual([site("src/helpers.ts", 11, "lookup", "return repo.find(normalise(id));", "same_file")]);
  });

  it("mast_callers refreshes the declaring file just in time and keeps every caller linked to the new declaration", async () => {
    const before = await p.call("mast_callers", { symbol: "audit" });
    // Two lines above the declaration: its symbol is rewritten (new id, new line), callers elsewhere untouched.
    p.project.write("src/audit.ts", `// Audit log.\n\n${RESOLVER["src/audit.ts"]!}`);
    touch("src/audit.ts");
    const after = await p.call("mast_callers", { symbol: "audit" });
    expect(before.declaration).toEqual(declared("src/audit.ts", 1, "function", true, "export function audit(event: string): void"));
    expect(after.declaration).toEqual(declared("src/audit.ts", 3, "function", true, "export function audit(event: string): void"));
    // The caller in another file is linked to the rewritten declaration, before and after.
    const callers = [site("src/service.ts", 12, "AuthService.login", "audit('login');", "import")];
    expect(flat(before.verified_callers)).toEqual(callers);
    expect(flat(after.verified_callers)).toEqual(callers);
  });

  it("the graph tools read the file a call names again: a declaration written there since the run is found", async () => {
    p.project.write("src/audit.ts", `${RESOLVER["src/audit.ts"]!}export function auditLater(): void {\n  audit('later');\n}\n`);
    touch("src/audit.ts");
    // Without the file the call cannot know where to look: not found, as the index has it.
    expect((await p.call("mast_callers", { symbol: "auditLater" })).not_found).toBe(true);
    const callers = await p.call("mast_callers", { symbol: "auditLater", file_path: "src/audit.ts" });
    expect(callers.not_found).toBeUndefined();
    expect(callers.declaration).toEqual(declared("src/audit.ts", 4, "function", true, "export function auditLater(): void"));
    p.project.write("src/audit.ts", `${RESOLVER["src/audit.ts"]!}export function auditLater(): void {}\nexport function auditLast(): void {}\n`);
    touch("src/audit.ts");
    const impact = await p.call("mast_rename_impact", { symbol: "auditLast", file_path: "src/audit.ts" });
    expect([impact.not_found, impact.declaration_sites]).toEqual([undefined, [{ file_path: "src/audit.ts", line: 5, kind: "function", is_exported: true }]]);
    // mast_graph and mast_implementors read the named file again too.
    p.project.write("src/audit.ts", `${RESOLVER["src/audit.ts"]!}export function auditGraph(): void {\n  audit('g');\n}\nexport interface AuditSink {\n  write(line: string): void;\n}\n`);
    touch("src/audit.ts");
    const graph = await p.call("mast_graph", { symbol: "auditGraph", file_path: "src/audit.ts" });
    expect([graph.not_found, graph.declaration]).toEqual([undefined, { file_path: "src/audit.ts", line: 4, kind: "function", is_exported: true }]);
    p.project.write("src/audit.ts", `${RESOLVER["src/audit.ts"]!}export interface AuditSink {\n  write(line: string): void;\n}\nexport interface AuditTrail {}\n`);
    touch("src/audit.ts");
    const implementors = await p.call("mast_implementors", { interface_name: "AuditTrail", file_path: "src/audit.ts" });
    expect([implementors.not_found, implementors.declaration]).toEqual([undefined, { file_path: "src/audit.ts", line: 7, kind: "interface", is_exported: true }]);
  });
});

// ---- an empty index ----

describe("an indexed project with no source files", () => {
  const p = indexedProject({ "notes.txt": "Nothing here is indexed.\n" });

  it("says index_empty instead of a bare empty answer", async () => {
    expect(await p.call("mast_callers", { symbol: "find" })).toEqual({
      declaration: null,
      not_found: true,
      did_you_mean: [],
      verified_callers: [],
      potential_matches: [],
      summary: { verified_count: 0, potential_count: 0 },
      index_empty: true,
    });
    expect(await p.call("mast_implementors", { interface_name: "Store" })).toEqual({ declaration: null, not_found: true, did_you_mean: [], implementors: [], index_empty: true });
    expect((await p.call("mast_rename_impact", { symbol: "find" })).index_empty).toBe(true);
  });
});

// ---- names a declaration is known by elsewhere ----

describe("a declaration imported under another name", () => {
  const p = indexedProject({
    "src/dom.ts": source("export function cloneElement(): void {}"),
    "src/view.ts": source("import { cloneElement as cloneForDom } from './dom.js';", "", "export const handlers = [1].map(cloneForDom);"),
  });

  it("lists the alias's mentions among the potential matches (a callback is not a call the resolver can link)", async () => {
    const r = await p.call("mast_callers", { symbol: "cloneElement" });
    expect(flat(r.verified_callers)).toEqual([]);
    expect(flat(r.potential_matches, "potential")).toEqual([
      mention("src/view.ts", 1, "import { cloneElement as cloneForDom } from './dom.js';"),
      mention("src/view.ts", 3, "export const handlers = [1].map(cloneForDom);"),
    ]);
  });
});

// ---- calls in a file's top-level code ----

describe("calls made by a file's top-level code", () => {
  const p = indexedProject({
    "src/dom.ts": source("export function render(): void {}"),
    "src/main.ts": source("import { render } from './dom.js';", "", "describe('view', () => {", "  it('renders', () => render());", "});", "render();"),
  });

  it("are verified callers with caller_symbol null", async () => {
    const r = await p.call("mast_callers", { symbol: "render" });
    expect(flat(r.verified_callers)).toEqual([
      { file_path: "src/main.ts", line: 4, caller_symbol: null, context: "it('renders', () => render());", resolution: "import" },
      { file_path: "src/main.ts", line: 6, caller_symbol: null, context: "render();", resolution: "import" },
    ]);
    // The file's top-level code is not a symbol anyone can look up.
    expect((await p.call("mast_signature", { symbol: "render" })).results.map((s: any) => s.kind)).toEqual(["function"]);
  });
});

describe("mast_callers in C: a definition answers for its header's prototype", () => {
  const p = indexedProject({
    "include/util.h": "int scale(int x);\n",
    "src/util.c": '#include "util.h"\n\nint scale(int x) {\n  return x * 2;\n}\n',
    "src/main.c": '#include "util.h"\n\nint main(void) {\n  return scale(3);\n}\n',
  });

  it("names the definition (the one with a body) first, the prototype after, and the call linked through the header", async () => {
    const r = await p.call("mast_callers", { symbol: "scale" });
    expect(r.declaration).toEqual({ file_path: "src/util.c", line: 3, kind: "function", is_exported: true, signature: "int scale(int x)" });
    expect(r.other_declarations).toEqual([{ file_path: "include/util.h", line: 1, kind: "function", is_exported: true }]);
    expect(r.verified_callers).toEqual([{ file_path: "src/main.c", resolution: "import", sites: ["4 main: return scale(3);"] }]);
  });
});
