// Call-graph edges (docs/call-graph.md#linking) built from a real index: each resolution rule yields its
// edge with the right resolution, line and context; same-named symbols route by file evidence;
// barrels (named and star), `.js` specifiers and tsconfig paths are followed; what cannot be
// traced yields no edge; and edges survive incremental runs exactly as a full build makes them.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LINK_PAGE_FILES, linkEdges } from "../../src/index/link.js";
import { runIndex } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { Store } from "../../src/store/store.js";
import { makeProject, type TestProject } from "../helpers/project.js";
import { dumpStore, edgeResolution, edgeType } from "../helpers/store-dump.js";
import { EDGE } from "../../src/store/edge-codes.js";

const FILES: Record<string, string> = {
  "tsconfig.json": `{ "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["src/lib/*"] } } }`,
  "src/lib/repo.ts": [
    "export class UserRepository {",
    "  findById(id: string) { return id; }",
    "  save() {}",
    "  static create() { return new UserRepository(); }",
    "}",
    "export function audit(x: string) { return x; }",
    "export function track(x: string) { return x; }",
    "export function note(x: string) { return x; }",
    "",
  ].join("\n"),
  "src/lib/index.ts": ["export * from './repo.js';", "export { track as record } from './repo.js';", ""].join("\n"),
  "src/other/repo.ts": ["export class UserRepository {", "  findById(id: string) { return id; }", "}", "export function audit() {}", ""].join("\n"),
  "src/base.ts": ["export abstract class BaseService {", "  start() {}", "}", "export interface Service { start(): void }", ""].join("\n"),
  "src/service.ts": [
    "import { UserRepository, record } from './lib/index.js';",
    "import { audit } from '@lib/repo';",
    "import * as lib from './lib/repo.js';",
    "import { BaseService, Service } from './base';",
    "",
    "export class AccountService extends BaseService implements Service {",
    "  private readonly repo: UserRepository;",
    "  constructor(private readonly users: UserRepository) { super(); }",
    "  start() {",
    "    super.start();",
    "    this.repo.findById('a');",
    "    this.users.save();",
    "    this.helper();",
    "    audit('x');",
    "    record('y');",
    "    lib.note('z');",
    "    UserRepository.create();",
    "  }",
    "  helper(r: UserRepository) {",
    "    r.findById('b');",
    "    const fresh = new UserRepository();",
    "    fresh.save();",
    "    makeRepo().findById('c');",
    "    local();",
    "  }",
    "}",
    "function local() { return 1; }",
    "function makeRepo(): any { return null; }",
    "",
  ].join("\n"),
};

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function project(files = FILES): TestProject {
  const p = makeProject(files);
  cleanups.push(() => p.cleanup());
  return p;
}

function edges(p: TestProject): string[] {
  const store = Store.open(statePaths(join(p.root, ".mast")).graphDb, { readonly: true });
  try {
    return (
      store.db
        .prepare(
          `SELECT a.name AS f, tf.path AS tp, b.name AS t, ${edgeType("e")} AS type, ${edgeResolution("e")} AS res, e.call_line AS line
           FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id JOIN files tf ON tf.id = b.file_id
           WHERE e.edge_type != ${EDGE.PARENT_OF} ORDER BY a.name, e.call_line, tf.path, b.name`,
        )
        .all() as Array<{ f: string; tp: string; t: string; type: string; res: string | null; line: number | null }>
    ).map((e) => `${e.f} -> ${e.tp}:${e.t} ${e.type}${e.res ? `/${e.res}` : ""}${e.line ? ` @${e.line}` : ""}`);
  } finally {
    store.close();
  }
}

describe("call-graph edges", () => {
  it("links each resolution rule to the declaration its file evidence names", async () => {
    const p = project();
    await runIndex(p.config(), { mode: "full" });
    expect(edges(p)).toEqual([
      "AccountService -> src/base.ts:BaseService EXTENDS",
      "AccountService -> src/base.ts:Service IMPLEMENTS",
      "AccountService.helper -> src/lib/repo.ts:UserRepository.findById POTENTIAL_CALL/parameter_type @20",
      "AccountService.helper -> src/lib/repo.ts:UserRepository POTENTIAL_CALL/import @21",
      "AccountService.helper -> src/lib/repo.ts:UserRepository.save POTENTIAL_CALL/new_expression @22",
      "AccountService.helper -> src/service.ts:makeRepo POTENTIAL_CALL/same_file @23",
      "AccountService.helper -> src/service.ts:local POTENTIAL_CALL/same_file @24",
      "AccountService.start -> src/base.ts:BaseService.start POTENTIAL_CALL/super_method @10",
      "AccountService.start -> src/lib/repo.ts:UserRepository.findById POTENTIAL_CALL/field_type @11",
      "AccountService.start -> src/lib/repo.ts:UserRepository.save POTENTIAL_CALL/field_type @12",
      "AccountService.start -> src/service.ts:AccountService.helper POTENTIAL_CALL/this_method @13",
      // tsconfig path, barrel alias, namespace import: each to its own declaration.
      "AccountService.start -> src/lib/repo.ts:audit POTENTIAL_CALL/import @14",
      "AccountService.start -> src/lib/repo.ts:track POTENTIAL_CALL/import @15",
      "AccountService.start -> src/lib/repo.ts:note POTENTIAL_CALL/import @16",
      "AccountService.start -> src/lib/repo.ts:UserRepository.create POTENTIAL_CALL/import @17",
      "UserRepository.create -> src/lib/repo.ts:UserRepository POTENTIAL_CALL/same_file @4",
      // `export { track as record } from './repo.js'`: the barrel's marker to the declaration.
      "record -> src/lib/repo.ts:track RE_EXPORTS",
    ]);
  });

  it("keeps one edge per call site, so every line that calls is listed", async () => {
    const p = project({ "a.ts": "export function f() {}\nexport function g() {\n  f();\n  f(); f();\n}\n" });
    await runIndex(p.config(), { mode: "full" });
    expect(edges(p)).toEqual(["g -> a.ts:f POTENTIAL_CALL/same_file @3", "g -> a.ts:f POTENTIAL_CALL/same_file @4"]);
  });

  it("follows a named import of a namespace re-export (`export * as util from`) to the module's declaration", async () => {
    const p = project({
      "src/core/util.ts": "export function assignProp() {}\n",
      "src/core/index.ts": "export * as util from './util.js';\n",
      "src/core/barrel.ts": "export * from './index.js';\n",
      "src/app.ts": "import { util } from './core/barrel.js';\nexport function main() {\n  util.assignProp();\n}\n",
    });
    await runIndex(p.config(), { mode: "full" });
    expect(edges(p)).toEqual(["main -> src/core/util.ts:assignProp POTENTIAL_CALL/import @3"]);
  });

  it("links `Ns.f()` to a namespace's exported function: imported, merged with an interface of its name, or in the same file", async () => {
    const p = project({
      "src/nls.ts": [
        "export namespace nls {",
        "  export function localize(key: string): string { return key; }",
        "  export const format = (s: string) => s;",
        "  function hidden() {}",
        "}",
        "export interface Disposable { dispose(): void }",
        "export namespace Disposable {",
        "  export function is(x: unknown): x is Disposable { return !!x; }",
        "}",
        "export function label() {",
        "  return nls.localize('a');",
        "}",
        "",
      ].join("\n"),
      "src/app.ts": [
        "import { nls, Disposable } from './nls';",
        "export function main(x: unknown) {",
        "  nls.localize('b');",
        "  nls.format('c');",
        "  nls.hidden();",
        "  return Disposable.is(x);",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    // `hidden` is not exported from the namespace: `nls.hidden()` names nothing, so no edge.
    expect(edges(p)).toEqual([
      "label -> src/nls.ts:nls.localize POTENTIAL_CALL/same_file @11",
      "main -> src/nls.ts:nls.localize POTENTIAL_CALL/import @3",
      "main -> src/nls.ts:nls.format POTENTIAL_CALL/import @4",
      "main -> src/nls.ts:Disposable.is POTENTIAL_CALL/import @6",
    ]);
  });

  it("types fields and module variables by a plain `new` (or their annotation) and links calls on them, also in importers through a barrel", async () => {
    const p = project({
      "src/host.ts": ["export class StorageHost {", "  add() {}", "}", "export class Emitter<T> {", "  fire(x?: T) {}", "}", "export function makeHost(): any { return null; }", ""].join("\n"),
      "src/storage.ts": [
        "import { StorageHost, makeHost } from './host';",
        "export const storage = new StorageHost();",
        "export const typed: StorageHost = makeHost();",
        "export const lazy = (globalThis as any).x ?? new StorageHost();",
        "",
      ].join("\n"),
      "src/index.ts": "export * from './storage';\n",
      "src/app.ts": [
        "import { storage, typed, lazy } from './index';",
        "import { StorageHost, Emitter } from './host';",
        "const local = new StorageHost();",
        "export class App {",
        "  private readonly emitter = new Emitter<number>();",
        "  protected host = new StorageHost();",
        "  run() {",
        "    this.emitter.fire(1);",
        "    this.host.add();",
        "    storage.add();",
        "    typed.add();",
        "    lazy.add();",
        "    local.add();",
        "  }",
        "  shadow() {",
        "    const local = (globalThis as any).y;",
        "    local.add();",
        "  }",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    // `lazy` (`new` behind `??`) and the shadowing `local` are not typed: no edge.
    expect(edges(p).filter((e) => e.startsWith("App."))).toEqual([
      "App.run -> src/host.ts:Emitter.fire POTENTIAL_CALL/field_type @8",
      "App.run -> src/host.ts:StorageHost.add POTENTIAL_CALL/field_type @9",
      "App.run -> src/host.ts:StorageHost.add POTENTIAL_CALL/import @10",
      "App.run -> src/host.ts:StorageHost.add POTENTIAL_CALL/import @11",
      "App.run -> src/host.ts:StorageHost.add POTENTIAL_CALL/new_expression @13",
    ]);
  });

  it("links a call to a function nested in the caller's scope, recursion included; a shadowed or out-of-scope name is not linked", async () => {
    const p = project({
      "src/locale.ts": [
        "const error = () => {",
        "  function getSizing(origin: string) { return origin; }",
        "  return (issue: { origin: string }) => getSizing(issue.origin);",
        "};",
        "export function walk(n: number): number {",
        "  function run(k: number): number { return k <= 0 ? 0 : run(k - 1); }",
        "  if (n > 1) {",
        "    function inner() { return 1; }",
        "    inner();",
        "  }",
        "  inner();",
        "  return run(n);",
        "}",
        "export function shadow(getSizing: () => void) {",
        "  function helper() {}",
        "  const helper2 = (helper: () => void) => helper();",
        "  getSizing();",
        "  return helper2;",
        "}",
        "export class Box {",
        "  open() {",
        "    function step() {}",
        "    step();",
        "  }",
        "}",
        "export function getSizing() {}",
        "export function picks(o: { h: () => void }) {",
        "  function h() {}",
        "  { const { h } = o; h(); }",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    // `h()` in `picks` calls the destructured `h`, never the nested one.
    // `inner()` at line 11 is outside the block that holds `inner`; `helper` is bound twice in
    // `shadow` (a function and a parameter), so its call is not linked; `getSizing()` in `shadow` is
    // its parameter, never the nested `error.getSizing` nor the top-level one.
    expect(edges(p)).toEqual([
      "Box.open -> src/locale.ts:Box.open.step POTENTIAL_CALL/same_file @23",
      "error -> src/locale.ts:error.getSizing POTENTIAL_CALL/same_file @3",
      "walk -> src/locale.ts:walk.run POTENTIAL_CALL/same_file @6",
      "walk -> src/locale.ts:walk.inner POTENTIAL_CALL/same_file @9",
      "walk -> src/locale.ts:walk.run POTENTIAL_CALL/same_file @12",
    ]);
    const store = Store.open(statePaths(join(p.root, ".mast")).graphDb, { readonly: true });
    try {
      expect(store.db.prepare("SELECT name, kind, parent_name AS parent, line, is_exported AS exported FROM symbols WHERE name LIKE '%.%' ORDER BY line").all()).toEqual([
        { name: "error.getSizing", kind: "function", parent: "error", line: 2, exported: 0 },
        { name: "walk.run", kind: "function", parent: "walk", line: 6, exported: 0 },
        { name: "walk.inner", kind: "function", parent: "walk", line: 8, exported: 0 },
        { name: "Box.open", kind: "method", parent: "Box", line: 21, exported: 1 },
        { name: "Box.open.step", kind: "function", parent: "Box.open", line: 22, exported: 0 },
        { name: "picks.h", kind: "function", parent: "picks", line: 28, exported: 0 },
      ]);
    } finally {
      store.close();
    }
  });

  it("a typed receiver names the type where a value shares its name (DI: `interface S` + `const S = Symbol`), and `T | undefined` types it as T", async () => {
    const p = project({
      "src/chat.ts": ["export const ChatService = Symbol('ChatService');", "export interface ChatService {", "  send(text: string): void;", "}", ""].join("\n"),
      "src/widget.ts": [
        "import { ChatService } from './chat';",
        "export class Editor { focus() {} }",
        "export class Widget {",
        "  protected editor: Editor | undefined;",
        "  protected other: Editor | Widget | null = null;",
        "  constructor(protected readonly chatService: ChatService) {}",
        "  run() {",
        "    this.chatService.send('x');",
        "    this.editor?.focus();",
        "    this.other?.focus();",
        "    ChatService.send('y');",
        "  }",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    // `this.other` is a union of two classes: no edge. `ChatService.send` names the Symbol value: no edge.
    expect(edges(p)).toEqual(["Widget.run -> src/chat.ts:ChatService.send POTENTIAL_CALL/field_type @8", "Widget.run -> src/widget.ts:Editor.focus POTENTIAL_CALL/field_type @9"]);
  });

  it("types what a call returns by the producer's declared return type: chained, bound to a local, through a namespace merged with its class; not through await, a cast, a union, an undeclared type, a loop variable or a destructured name of the same name", async () => {
    const p = project({
      "src/editor.ts": [
        "export class MonacoEditor {",
        "  getControl(): number { return 1; }",
        "}",
        "export namespace MonacoEditor {",
        "  export function get(w: unknown): MonacoEditor | undefined { return undefined; }",
        "}",
        "export class Other { getControl(): number { return 2; } }",
        "export function make(): MonacoEditor { return new MonacoEditor(); }",
        "export function either(): MonacoEditor | Other { return new Other(); }",
        "export async function later(): Promise<MonacoEditor> { return new MonacoEditor(); }",
        "export function loose() { return new MonacoEditor(); }",
        "",
      ].join("\n"),
      "src/use.ts": [
        "import { MonacoEditor, Other, make, either, later, loose } from './editor';",
        "export async function run(w: unknown) {",
        "  const editor = MonacoEditor.get(w);",
        "  editor?.getControl();",
        "  MonacoEditor.get(w)!.getControl();",
        "  make().getControl();",
        "  const e = make();",
        "  e.getControl();",
        "  either().getControl();",
        "  (await later()).getControl();",
        "  (make() as unknown as Other).getControl();",
        "  loose().getControl();",
        "  for (const editor of [new Other()]) {",
        "    editor.getControl();",
        "  }",
        "}",
        "const shared = new MonacoEditor();",
        "export function destructured(list: Array<{ editor: Other; shared: Other }>, { shared: mine }: { shared: Other }) {",
        "  const { editor, shared } = list[0]!;",
        "  editor.getControl();",
        "  shared.getControl();",
        "  mine.getControl();",
        "  shared2().getControl();",
        "}",
        "function shared2(): MonacoEditor { return shared; }",
        "export function shadowed(make: () => Other, list: MonacoEditor[]) {",
        "  make().getControl();",
        "  const e = make();",
        "  e.getControl();",
        "  const m = MonacoEditor.get(list);",
        "  list.forEach(m => m.getControl());",
        "  try { m?.getControl(); }",
        "  catch (m) { m.getControl(); }",
        "  first(list).getControl();",
        "  cond(list).getControl();",
        "  both(list).getControl();",
        "}",
        "function first<MonacoEditor>(xs: MonacoEditor[]): MonacoEditor { return xs[0]!; }",
        "function cond<X>(x: X): Other<X> extends X ? Other : MonacoEditor { return x as any; }",
        "function both(x: unknown): Other<number> & MonacoEditor { return x as any; }",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    // Names a destructuring pattern binds (`editor`, `shared` over the module's `shared`, `mine`) are typed by nothing;
    // a parameter `make` hides the import; an arrow's lone `m` and `catch (m)` hide the outer `m`; a type
    // parameter, a conditional type and an intersection name no one type.
    expect(edges(p).filter((e) => e.includes("getControl"))).toEqual([
      "destructured -> src/editor.ts:MonacoEditor.getControl POTENTIAL_CALL/return_type @23",
      "run -> src/editor.ts:MonacoEditor.getControl POTENTIAL_CALL/return_type @4",
      "run -> src/editor.ts:MonacoEditor.getControl POTENTIAL_CALL/return_type @5",
      "run -> src/editor.ts:MonacoEditor.getControl POTENTIAL_CALL/return_type @6",
      "run -> src/editor.ts:MonacoEditor.getControl POTENTIAL_CALL/return_type @8",
      "shadowed -> src/editor.ts:MonacoEditor.getControl POTENTIAL_CALL/return_type @32",
    ]);
  });

  it("follows return types through namespace members and call chains (locals and top-level variables bound to them) to methods interfaces inherit; an annotation beats the producer", async () => {
    const p = project({
      "src/schemas.ts": [
        "export interface Base<T> {",
        "  parse(data: unknown): T;",
        "}",
        "export interface Text extends Base<string>, Other {",
        "  min(n: number): this;",
        "  trim(): Text;",
        "}",
        "export interface Other { describe(): string; }",
        "export function string(): Text { return null as any; }",
        "",
      ].join("\n"),
      "src/coerce.ts": ["import type { Text } from './schemas';", "export function string(): Text { return null as any; }", ""].join("\n"),
      "src/external.ts": ["export * from './schemas';", "export * as coerce from './coerce';", ""].join("\n"),
      "src/use.ts": [
        "import * as z from './external';",
        "const top = z.string().min(1);",
        "export function run() {",
        "  z.string().parse(1);",
        "  const s = z.string().min(1).trim();",
        "  s.parse(2);",
        "  s.describe();",
        "  z.coerce.string().parse(3);",
        "  const c = z.coerce.string();",
        "  c.min(2).parse(4);",
        "  const loose: any = z.string();",
        "  loose.parse(5);",
        "  top.parse(6);",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    // `Text extends Base<string>, Other`: Text's members include Base's and Other's; `this` is the receiver's own type.
    // A top-level `const top = z.string().min(1)` is typed as a local is.
    expect(edges(p).filter((e) => e.startsWith("run ->"))).toEqual([
      "run -> src/schemas.ts:Base.parse POTENTIAL_CALL/return_type @4",
      "run -> src/schemas.ts:string POTENTIAL_CALL/import @4",
      "run -> src/schemas.ts:Text.min POTENTIAL_CALL/return_type @5",
      "run -> src/schemas.ts:Text.trim POTENTIAL_CALL/return_type @5",
      "run -> src/schemas.ts:string POTENTIAL_CALL/import @5",
      "run -> src/schemas.ts:Base.parse POTENTIAL_CALL/return_type @6",
      "run -> src/schemas.ts:Other.describe POTENTIAL_CALL/return_type @7",
      "run -> src/coerce.ts:string POTENTIAL_CALL/import @8",
      "run -> src/schemas.ts:Base.parse POTENTIAL_CALL/return_type @8",
      "run -> src/coerce.ts:string POTENTIAL_CALL/import @9",
      "run -> src/schemas.ts:Base.parse POTENTIAL_CALL/return_type @10",
      "run -> src/schemas.ts:Text.min POTENTIAL_CALL/return_type @10",
      "run -> src/schemas.ts:string POTENTIAL_CALL/import @11",
      "run -> src/schemas.ts:Base.parse POTENTIAL_CALL/return_type @13",
    ]);
  });

  it("does not type a receiver a type guard may have narrowed: a call, `instanceof` or `in` on it in an enclosing condition", async () => {
    const p = project({
      "src/fs.ts": [
        "export interface Provider { stat(): void; fsPath?(): string }",
        "export interface AccessProvider extends Provider { fsPath(): string }",
        "export function hasAccess(p: Provider): p is AccessProvider { return 'fsPath' in p; }",
        "export class Delegating {",
        "  constructor(protected readonly delegate: Provider) {}",
        "  run(other: Provider) {",
        "    if (hasAccess(this.delegate)) {",
        "      this.delegate.fsPath();",
        "    }",
        "    if (this.delegate) this.delegate.stat();",
        "    const p = other instanceof Object ? other.stat() : undefined;",
        "    return hasAccess(other) && other.fsPath();",
        "  }",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    // Only the truthiness test leaves the declared type standing.
    expect(edges(p).filter((e) => e.startsWith("Delegating.run"))).toEqual([
      "Delegating.run -> src/fs.ts:hasAccess POTENTIAL_CALL/same_file @7",
      "Delegating.run -> src/fs.ts:Provider.stat POTENTIAL_CALL/field_type @10",
      "Delegating.run -> src/fs.ts:hasAccess POTENTIAL_CALL/same_file @12",
    ]);
  });

  it("links a call on an instance constructed in place, `new C().m()` and `(new C<T>()).m()`; neither the call nor the `new` when a local shadows the class", async () => {
    const p = project({
      "src/auth.ts": ["export class AuthService {", "  validate(token: string): boolean { return token.length > 0; }", "}", ""].join("\n"),
      "src/main.ts": [
        "import { AuthService } from './auth.js';",
        "class Box<T> { open(): void {} }",
        "export function main(): boolean {",
        "  new Box<string>().open();",
        "  return new AuthService().validate('t') && (new AuthService()!).validate('u');",
        "}",
        "export function shadowed(AuthService: any) {",
        "  return new AuthService().validate('v');",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    expect(edges(p)).toEqual([
      "main -> src/main.ts:Box POTENTIAL_CALL/same_file @4",
      "main -> src/main.ts:Box.open POTENTIAL_CALL/new_expression @4",
      "main -> src/auth.ts:AuthService POTENTIAL_CALL/import @5",
      "main -> src/auth.ts:AuthService.validate POTENTIAL_CALL/new_expression @5",
    ]);
  });

  it("links `await x.m<T>(…)`, which the grammar parses as a call of `await x.m`", async () => {
    const p = project({
      "src/store.ts": [
        "export class Store {",
        "  async getData<T>(key: string): Promise<T | undefined> { return undefined; }",
        "}",
        "export class Layout {",
        "  constructor(protected readonly store: Store) {}",
        "  async load() {",
        "    const data = await this.store.getData<string>('keyboard');",
        "    return data;",
        "  }",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    expect(edges(p)).toEqual(["Layout.load -> src/store.ts:Store.getData POTENTIAL_CALL/field_type @7"]);
  });

  it("types a name bound more than once in a container by the binding whose scope holds the call", async () => {
    const p = project({
      "src/tracker.ts": "export class Tracker { isStale() { return true; } }\nexport class Other { isStale() { return false; } }\n",
      "src/tracker.spec.ts": [
        "import { Tracker, Other } from './tracker';",
        "describe('all', () => { describe('a', () => {",
        "  let tracker: Tracker;",
        "  it('x', () => { tracker.isStale(); });",
        "}); describe('b', () => {",
        "  let tracker: Other;",
        "  it('y', () => { tracker.isStale(); });",
        "}); });",
        "export function f(x: Tracker) {",
        "  { const x = new Other(); x.isStale(); }",
        "  x.isStale();",
        "  var y = new Tracker();",
        "  var y = new Other();",
        "  y.isStale();",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    // `y` has two `var` bindings in one function scope: no edge.
    expect(edges(p).filter((e) => e.includes("isStale"))).toEqual([
      // Top-level code's calls are made by the file's module symbol (named "").
      " -> src/tracker.ts:Tracker.isStale POTENTIAL_CALL/parameter_type @4",
      " -> src/tracker.ts:Other.isStale POTENTIAL_CALL/parameter_type @7",
      "f -> src/tracker.ts:Other.isStale POTENTIAL_CALL/new_expression @10",
      "f -> src/tracker.ts:Tracker.isStale POTENTIAL_CALL/parameter_type @11",
    ]);
  });

  it("maps a workspace package's build output to its sources through its tsconfig's outDir and rootDir", async () => {
    const p = project({
      "package.json": JSON.stringify({ private: true, workspaces: ["packages/*"] }),
      "configs/base.tsconfig.json": `{ "compilerOptions": { "strict": true } }`,
      "packages/core/package.json": JSON.stringify({ name: "@acme/core", main: "lib/common/index.js", typings: "lib/common/index.d.ts" }),
      "packages/core/tsconfig.json": `{ "extends": "../../configs/base.tsconfig.json", "compilerOptions": { "rootDir": "src", "outDir": "lib" } }`,
      "packages/core/src/common/index.ts": "export function common() {}\n",
      "packages/core/src/browser/widget.ts": "export class Widget {\n  toNodeName() { return 'w'; }\n}\n",
      // No outDir/rootDir: its build path stays unresolved rather than guessed.
      "packages/other/package.json": JSON.stringify({ name: "@acme/other", main: "dist/main.js" }),
      "packages/other/src/main.ts": "export function other() {}\n",
      "packages/app/src/app.ts": [
        "import { common } from '@acme/core';",
        "import { Widget } from '@acme/core/lib/browser/widget';",
        "import { other } from '@acme/other';",
        "export class AppWidget extends Widget {",
        "  render() {",
        "    common();",
        "    other();",
        "    return this.toNodeName();",
        "  }",
        "}",
        "",
      ].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    expect(edges(p)).toEqual([
      "AppWidget -> packages/core/src/browser/widget.ts:Widget EXTENDS",
      "AppWidget.render -> packages/core/src/common/index.ts:common POTENTIAL_CALL/import @6",
      // Inherited across packages: the subclass's `this.toNodeName()` reaches the base in the other package.
      "AppWidget.render -> packages/core/src/browser/widget.ts:Widget.toNodeName POTENTIAL_CALL/this_method @8",
    ]);
  });

  it("links a Rust call through a workspace crate's path with no `use` (`acme_core::db::open()`); a dependency's path stays external", async () => {
    const p = project({
      "Cargo.toml": '[workspace]\nmembers = ["core", "app"]\n',
      "core/Cargo.toml": '[package]\nname = "acme-core"\n',
      "core/src/lib.rs": "pub mod db;\npub use db::open;\n",
      "core/src/db.rs": "pub fn open() -> u8 {\n    0\n}\n",
      "app/Cargo.toml": '[package]\nname = "app"\n',
      "app/src/main.rs": ["fn main() {", "    acme_core::db::open();", "    ::acme_core::open();", "    memchr::memchr(b'a', b\"abc\");", "}", ""].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    expect(edges(p)).toEqual(["main -> core/src/db.rs:open POTENTIAL_CALL/import @2", "main -> core/src/db.rs:open POTENTIAL_CALL/import @3", "open -> core/src/db.rs:open RE_EXPORTS"]);
    const store = Store.open(statePaths(join(p.root, ".mast")).graphDb, { readonly: true });
    try {
      expect(
        store.db
          .prepare(
            "SELECT f.path || ':' || i.line || ' ' || i.module || (CASE i.is_external WHEN 1 THEN ' external' ELSE '' END) FROM imports i JOIN files f ON f.id = i.file_id ORDER BY f.path, i.line",
          )
          .pluck()
          .all(),
      ).toEqual(["app/src/main.rs:2 acme_core::db", "app/src/main.rs:3 acme_core", "app/src/main.rs:4 memchr external", "core/src/lib.rs:1 self::db", "core/src/lib.rs:2 db"]);
    } finally {
      store.close();
    }
  });

  it("an export alias is an exported name, not a local: a same-named import still wins inside the file", async () => {
    const p = project({
      "src/base.ts": "export function serveStatic() {}\n",
      "src/module.ts": ["import { serveStatic } from './base';", "const module = () => {", "  return serveStatic();", "};", "export { module as serveStatic };", ""].join("\n"),
      "src/app.ts": "import { serveStatic } from './module';\nexport function main() {\n  serveStatic();\n}\n",
    });
    await runIndex(p.config(), { mode: "full" });
    expect(edges(p)).toEqual([
      // app.ts's serveStatic is module.ts's alias of `module`: the edge goes to the declaration.
      "main -> src/module.ts:module POTENTIAL_CALL/import @3",
      "module -> src/base.ts:serveStatic POTENTIAL_CALL/import @3",
    ]);
  });

  it("another connection reads the index before a run until the run commits, then the index after it", async () => {
    // 40 callers of audit() are added by one incremental run; a reader looks in after 35 files
    // were written (a 32-file batch flushed) and sees none of them.
    const callers = (body: string) => Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`src/gen/m${i}.ts`, `import { audit } from '../lib/repo.js';\nexport function f${i}() { ${body} }\n`]));
    const p = project({ ...FILES, ...callers("return 1;") });
    const config = p.config();
    await runIndex(config, { mode: "full" });
    const graphDb = statePaths(config.state_dir).graphDb;
    const before = dumpStore(graphDb, { integrity: false });
    for (const [path, text] of Object.entries(callers("audit('x');"))) p.write(path, text);
    let seen: string | null = null;
    const report = await runIndex(config, {
      mode: "incremental",
      onProgress: (progress) => {
        if (progress.done === 35) seen = dumpStore(graphDb, { integrity: false });
      },
    });
    expect(report.files_indexed).toBe(40);
    expect(seen).toEqual(before);
    const after = edges(p).filter((e) => e.endsWith("src/lib/repo.ts:audit POTENTIAL_CALL/import @2"));
    expect(after).toHaveLength(40);
    expect(after[0]).toBe("f0 -> src/lib/repo.ts:audit POTENTIAL_CALL/import @2");
  });

  it("an incremental run keeps the edges a full build makes, through edits on both ends", async () => {
    const p = project();
    const config = p.config();
    await runIndex(config, { mode: "full" });
    p.write("src/lib/repo.ts", FILES["src/lib/repo.ts"]!.replace("save() {}", "save() {}\n  extra() {}"));
    p.write("src/service.ts", FILES["src/service.ts"]!.replace("    local();\n", "    local();\n    this.users.extra();\n"));
    await runIndex(config, { mode: "incremental" });
    const fresh = mkdtempSync(join(tmpdir(), "mast-link-"));
    cleanups.push(() => rmSync(fresh, { recursive: true, force: true }));
    await runIndex(p.config({ stateDir: fresh }), { mode: "full" });
    expect(dumpStore(statePaths(config.state_dir).graphDb)).toEqual(dumpStore(statePaths(fresh).graphDb));
    expect(edges(p)).toContain("AccountService.helper -> src/lib/repo.ts:UserRepository.extra POTENTIAL_CALL/field_type @25");
  });

  it("a changed conftest.py relinks the tests below it, which import nothing from it", async () => {
    const p = project({
      "pkg/models.py": ["class Store:", "    def get(self, key):", "        return key", "", "", "class Repo:", "    def get(self, key):", "        return key", ""].join("\n"),
      "tests/conftest.py": ["import pytest", "from pkg.models import Store, Repo", "", "", "@pytest.fixture", "def backend():", "    return Store()", ""].join("\n"),
      "tests/unit/test_a.py": ["def test_get(backend):", "    backend.get('k')", ""].join("\n"),
    });
    const config = p.config();
    await runIndex(config, { mode: "full" });
    expect(edges(p).filter((e) => e.startsWith("test_get"))).toEqual(["test_get -> pkg/models.py:Store.get POTENTIAL_CALL/parameter_type @2"]);
    p.write("tests/conftest.py", ["import pytest", "from pkg.models import Store, Repo", "", "", "@pytest.fixture", "def backend():", "    return Repo()", ""].join("\n"));
    await runIndex(config, { mode: "incremental" });
    expect(edges(p).filter((e) => e.startsWith("test_get"))).toEqual(["test_get -> pkg/models.py:Repo.get POTENTIAL_CALL/parameter_type @2"]);
    // A change to what the fixture returns (its rows rewritten) relinks the tests too: they import neither file.
    p.write("pkg/models.py", `# moved down a line\n${readFileSync(join(p.root, "pkg/models.py"), "utf8")}`);
    await runIndex(config, { mode: "incremental" });
    expect(edges(p).filter((e) => e.startsWith("test_get"))).toEqual(["test_get -> pkg/models.py:Repo.get POTENTIAL_CALL/parameter_type @2"]);
    const fresh = mkdtempSync(join(tmpdir(), "mast-link-"));
    cleanups.push(() => rmSync(fresh, { recursive: true, force: true }));
    await runIndex(p.config({ stateDir: fresh }), { mode: "full" });
    expect(dumpStore(statePaths(config.state_dir).graphDb)).toEqual(dumpStore(statePaths(fresh).graphDb));
  });

  it("a whole pass linked a page of files at a time makes the edges of one pass over every file: TypeScript barrels and heritage, Go method sets, Python fixtures", async () => {
    const go = (...lines: string[]) => [...lines, ""].join("\n");
    const p = project({
      ...FILES,
      "go.mod": go("module example.com/m", "", "go 1.21"),
      "shapes/shape.go": go("package shapes", "", "type Shape interface {", "\tArea() float64", "\tName() string", "}", "", "type Named interface {", "\tName() string", "}"),
      "shapes/square.go": go("package shapes", "", "type Square struct{ S float64 }", "", "func (q Square) Area() float64 { return q.S * q.S }"),
      "shapes/names.go": go("package shapes", "", 'func (q Square) Name() string { return "square" }', "", "func Describe(s Shape) string { return s.Name() }"),
      "cmd/main.go": go(
        "package main",
        "",
        'import "example.com/m/shapes"',
        "",
        "type Circle struct{}",
        "",
        "func (Circle) Area() float64 { return 3 }",
        'func (Circle) Name() string { return "circle" }',
        "",
        "func main() { shapes.Describe(shapes.Square{S: 2}) }",
      ),
      "pkg/models.py": ["class Store:", "    def get(self, key):", "        return key", ""].join("\n"),
      "tests/conftest.py": ["import pytest", "from pkg.models import Store", "", "", "@pytest.fixture", "def backend():", "    return Store()", ""].join("\n"),
      "tests/unit/test_a.py": ["def test_get(backend):", "    backend.get('k')", ""].join("\n"),
    });
    await runIndex(p.config(), { mode: "full" });
    const whole = edges(p);
    expect(whole).toContain("Square -> shapes/shape.go:Shape IMPLEMENTS");
    expect(whole).toContain("Circle -> shapes/shape.go:Named IMPLEMENTS");
    expect(whole).toContain("test_get -> pkg/models.py:Store.get POTENTIAL_CALL/parameter_type @2");
    expect(whole).toContain("AccountService -> src/base.ts:Service IMPLEMENTS");
    expect(LINK_PAGE_FILES).toBe(4_096);
    for (const pageFiles of [1, 2, 5]) {
      const store = Store.open(statePaths(join(p.root, ".mast")).graphDb);
      try {
        const count = linkEdges(store, "all", [], pageFiles);
        expect(count.files).toBe("all");
      } finally {
        store.close();
      }
      expect(edges(p)).toEqual(whole);
    }
  });
});
