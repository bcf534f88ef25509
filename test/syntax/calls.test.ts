// Call-site extraction with the local type environment (docs/call-graph.md#call-sites-and-the-local-type-environment): each resolution rule
// records its receiver, and every "does NOT catch" case records none — asserted as values.
import { describe, expect, it } from "vitest";
import type { CallSite } from "../../src/syntax/calls.js";
import { extractOk } from "../helpers/extraction.js";

/** The call sites and class heritage production extraction records for one file (the same walk the index runs). */
function calls(source: string, language: "ts" | "js" = "ts") {
  const extraction = extractOk(`src/file.${language}`, source);
  return { calls: extraction.calls, classes: extraction.heritage };
}

const brief = (c: CallSite) => {
  const r = c.receiver;
  const how =
    r.kind === "typed"
      ? `${r.resolution}:${r.typeName}`
      : r.kind === "this" || r.kind === "super" || r.kind === "static"
        ? `${r.kind}:${r.className}`
        : r.kind === "namespace"
          ? `namespace:${r.local}`
          : r.kind;
  return `${c.caller ?? "<top>"} -> ${c.isNew ? "new " : ""}${c.callee} [${how}] @${c.line}`;
};

const SOURCE = `import { handleLogin } from './handler';
import * as util from './util';
import { UserRepository } from './repo';

export class AuthService extends BaseService implements Auth, Disposable<X> {
  private readonly cache: Cache;
  count = countAll();
  constructor(private readonly users: UserRepository, plain: string) {
    super();
  }
  login(req: Request, repo: UserRepository) {
    handleLogin(req);
    this.validate(req);
    this.users.findByEmail(req.email);
    (await this.cache)!.get('k');
    repo.findById(1);
    (repo as UserRepository).save();
    super.login(req);
    util.hash(req);
    UserRepository.create();
    const fresh = new SessionStore();
    fresh.open();
    function nested() { this.validate(); }
    const arrow = () => this.validate();
  }
  validate(x: unknown) {}
}

function helper(cb: () => void, items: Item[]) {
  cb();
  helper(cb, items);
  format(items);
  makeRepository().findById(1);
  container.get(UserRepository).findById(2);
  repos[name].findById(3);
  items.forEach((item: Item) => item.save());
  let shadow = new Shadow();
  if (items) { let shadow = other(); shadow.run(); }
}

function format(x) { return x; }
helper(() => {}, []);
`;

describe("call sites", () => {
  it("records each resolution rule with its receiver, and nothing it cannot resolve", () => {
    expect(calls(SOURCE).calls.map(brief)).toEqual([
      "AuthService.login -> handleLogin [bare] @12",
      "AuthService.login -> validate [this:AuthService] @13",
      "AuthService.login -> findByEmail [field_type:UserRepository] @14",
      "AuthService.login -> get [field_type:Cache] @15",
      "AuthService.login -> findById [parameter_type:UserRepository] @16",
      "AuthService.login -> save [parameter_type:UserRepository] @17",
      "AuthService.login -> login [super:BaseService] @18",
      "AuthService.login -> hash [namespace:util] @19",
      "AuthService.login -> create [static:UserRepository] @20",
      "AuthService.login -> open [new_expression:SessionStore] @22",
      "AuthService.login -> validate [this:AuthService] @24",
      "helper -> helper [bare] @31",
      "helper -> format [bare] @32",
      "helper -> save [parameter_type:Item] @36",
      // `shadow` is bound twice (the outer `new Shadow()` and an inner `let`): no type, no receiver.
      // Bare calls and `new` of names neither imported nor declared at top level (`countAll`,
      // `makeRepository`, `SessionStore`, `Shadow`, `other`) cannot be linked and are not recorded.
      "<top> -> helper [bare] @42",
    ]);
  });

  it("reads class heritage", () => {
    expect(calls(SOURCE).classes).toEqual([{ className: "AuthService", line: 5, extends: "BaseService", implements: ["Auth", "Disposable"] }]);
  });

  it("treats rest parameters, decorated and modifier parameters as locals that shadow imports", () => {
    const src = [
      "import * as util from './util';",
      "import { save } from './save';",
      "export const a = (...util: unknown[]) => util.hash();",
      "export class C { constructor(@Inject() private readonly save: Saver) { save.run(); } m() { util.hash(); } }",
      "",
    ].join("\n");
    // `save.run()` is the decorated parameter's (typed Saver), not the import's; `util.hash()` in
    // the arrow is the rest parameter's and yields nothing.
    expect(calls(src).calls.map(brief)).toEqual(["C.constructor -> run [parameter_type:Saver] @4", "C.m -> hash [namespace:util] @4"]);
  });

  it("records `new ns.Class()` through a namespace import, and no other member `new`", () => {
    const src = [
      "import * as models from './models';",
      "import { registry } from './registry';",
      "export function make(models2: unknown) {",
      "  const a = new models.User();",
      "  const b = new models.admin.Role();",
      "  const c = new registry.Item();",
      "  return [a, b, c];",
      "}",
      "export const shadowed = (models: any) => new models.User();",
      "",
    ].join("\n");
    expect(calls(src).calls.map(brief)).toEqual(["make -> new User [namespace:models] @4", "make -> new Role [namespace:models.admin] @5"]);
  });

  it("records decorator calls: a class's as the class's, a method's as the method's, a field's as the class's", () => {
    const src = [
      "import { Resolver, Query, Field, Args, Dec } from '@nestjs/graphql';",
      "@Resolver(() => Post)",
      "export class PostResolver {",
      "  @Query(() => Post)",
      "  // a comment between",
      "  findPost(@Args('id') id: number) {}",
      "  @Field() title: string;",
      "}",
      "@Dec() class B {}",
      "export @Dec() class C {}",
      "",
    ].join("\n");
    expect(calls(src).calls.map(brief)).toEqual([
      "PostResolver -> Resolver [bare] @2",
      "PostResolver.findPost -> Query [bare] @4",
      "PostResolver.findPost -> Args [bare] @6",
      "PostResolver -> Field [bare] @7",
      "B -> Dec [bare] @9",
      "C -> Dec [bare] @10",
    ]);
  });

  it("gives super no receiver in a class without extends", () => {
    expect(calls("class A { m() { super.m(); this.n(); } n() {} }").calls.map(brief)).toEqual(["A.m -> n [this:A] @1"]);
  });

  it("handles JavaScript classes and parameters (`go()` in the default export names no top-level function)", () => {
    const src = "class B extends A { run(cb) { cb(); this.go(); super.run(); } go() {} }\nexport default function (x) { x(); go(); }\n";
    expect(calls(src, "js").calls.map(brief)).toEqual(["B.run -> go [this:B] @1", "B.run -> run [super:A] @1"]);
  });
});
