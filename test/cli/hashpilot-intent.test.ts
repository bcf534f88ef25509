// hashpilot intent rename-exported-symbol end to end: the built CLIs on temp projects indexed by
// mast — a rename across a named barrel, an alias import and a namespace import, whole files
// compared after it; the index fresh afterwards (mast_rename_impact of the old name is empty);
// dry runs, refusals, a failed step and a failed verification rolled back, and a rollback that
// cannot write a file back (an immutable file, made so by the test suite verification runs).
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runHashpilot, runMast } from "../helpers/cli.js";
import { tmpdir } from "node:os";
import { hashpilotProject, hp, type HashpilotProject } from "../helpers/hashpilot.js";

const NODE_MODULES = join(import.meta.dirname, "..", "..", "node_modules");
const canLock = process.getuid?.() === 0 && spawnSync("chattr", ["--help"], { stdio: "ignore" }).error === undefined;

const COMPOSE = [
  "/** Composes middleware. */",
  "export function compose(fns: Array<() => void>): () => void {",
  "  return () => fns.forEach((f) => f());",
  "}",
  "",
  "export function twice(): () => void {",
  "  return compose([() => {}, () => {}]);",
  "}",
  "",
].join("\n");
const BARREL = 'export { compose } from "./compose.js";\nexport * from "./compose.js";\n';
const APP = [
  'import { compose } from "./lib/index.js";',
  'import { compose as c } from "./lib/compose.js";',
  'import * as lib from "./lib/compose.js";',
  "",
  "export function start(): void {",
  "  compose([])();",
  "  c([])();",
  "  lib.compose([])();",
  '  console.log("compose");',
  "}",
  "",
].join("\n");
const INTENT = JSON.stringify({ operation: "rename-exported-symbol", symbol: "compose", newName: "composeAll" });

let locked: string[] = [];
afterEach(() => {
  for (const f of locked) spawnSync("chattr", ["-i", f]);
  locked = [];
});

async function indexed(files: Record<string, string>): Promise<HashpilotProject> {
  const p = hashpilotProject(files);
  const init = await runMast(["init", p.root]);
  expect(init.code, init.stderr).toBe(0);
  return p;
}

const project = () => indexed({ "src/lib/compose.ts": COMPOSE, "src/lib/index.ts": BARREL, "src/app.ts": APP });

describe("hashpilot intent rename-exported-symbol", () => {
  it("renames the declaration, a named barrel, an alias import and a namespace use; the index follows and undo takes it back", async () => {
    const p = await project();
    const r = await hp(p, ["intent", INTENT]);
    expect(r.code, r.stdout.slice(0, 800)).toBe(0);
    expect(p.read("src/lib/compose.ts")).toBe(COMPOSE.replaceAll("compose(", "composeAll("));
    expect(p.read("src/lib/index.ts")).toBe(BARREL.replace("{ compose }", "{ composeAll }"));
    expect(p.read("src/app.ts")).toBe(
      APP.replace("import { compose } from", "import { composeAll } from")
        .replace("{ compose as c }", "{ composeAll as c }")
        .replace("  compose([])", "  composeAll([])")
        .replace("lib.compose(", "lib.composeAll("),
    );
    const data = r.envelope.data;
    expect(data.success).toBe(true);
    expect(data.plan).toMatchObject({
      definition: { file: p.path("src/lib/compose.ts"), line: 2, kind: "function" },
      files: [p.path("src/lib/compose.ts"), p.path("src/app.ts"), p.path("src/lib/index.ts")],
      unresolved: [],
      reconciliation: { resolved: 8, unresolved: 0, ambiguous: 0 },
    });
    // Lines naming it that no edit covered: listed, never edited.
    expect(data.plan.review).toEqual([
      { file: p.path("src/app.ts"), line: 9, context: 'console.log("compose");' },
      { file: p.path("src/lib/index.ts"), line: 2, context: 'export * from "./compose.js";' },
    ]);
    expect(data.execution).toMatchObject({ summary: { total: 3, applied: 3, failed: 0, skipped: 0, changes: 7 }, reverted: false, verification: { overall: "skipped" } });
    expect(r.envelope.warnings.map((w) => w.code)).toEqual(["VERIFY_NO_CHECKS"]);

    const impact = await runMast(["query", "mast_rename_impact", JSON.stringify({ symbol: "compose" }), p.root]);
    expect(JSON.parse(impact.stdout)).toMatchObject({ declaration_sites: [], verified_callers: [], potential_matches: [] });
    const callers = JSON.parse((await runMast(["query", "mast_callers", JSON.stringify({ symbol: "composeAll" }), p.root])).stdout);
    expect(callers.summary).toMatchObject({ verified_count: 4 });

    const undo = await hp(p, ["undo", data.execution.changeSetId]);
    expect(undo.code).toBe(0);
    expect([p.read("src/lib/compose.ts"), p.read("src/lib/index.ts"), p.read("src/app.ts")]).toEqual([COMPOSE, BARREL, APP]);
  });

  it("follows an import that spans lines, and refuses a member rename with uses it cannot resolve unless --yes", async () => {
    const p = await indexed({
      "src/lib/compose.ts": COMPOSE,
      "src/multi.ts": 'import {\n  twice,\n  compose,\n} from "./lib/compose.js";\n\nexport const both = () => [twice(), compose([])];\n',
      "src/box.ts": "export class Box {\n  open(): number {\n    return 1;\n  }\n  twice(): number {\n    return this.open() * 2;\n  }\n}\nexport const spec = { open: 1 };\n",
    });
    const r = await hp(p, ["intent", INTENT]);
    expect(r.code, r.stdout.slice(0, 600)).toBe(0);
    expect(p.read("src/multi.ts")).toBe('import {\n  twice,\n  composeAll,\n} from "./lib/compose.js";\n\nexport const both = () => [twice(), composeAll([])];\n');
    const member = await hp(p, ["intent", JSON.stringify({ operation: "rename-exported-symbol", symbol: "Box.open", newName: "unlock" })]);
    expect(member.code).toBe(1);
    expect(member.envelope.error).toMatchObject({ code: "UNSUPPORTED_OPERATION" });
    expect(member.envelope.error!.message).toMatch(/^a step failed \(1 use\(s\) of 'Box\.open' in .*src\/box\.ts could not be resolved \(lines 9\)/);
    expect(p.read("src/box.ts")).toContain("  open(): number {");
    const yes = await hp(p, ["intent", JSON.stringify({ operation: "rename-exported-symbol", symbol: "Box.open", newName: "unlock" }), "--yes"]);
    expect(yes.code).toBe(0);
    expect(p.read("src/box.ts")).toBe("export class Box {\n  unlock(): number {\n    return 1;\n  }\n  twice(): number {\n    return this.unlock() * 2;\n  }\n}\nexport const spec = { open: 1 };\n");
  });

  it("refuses a member rename whose owner shares the member with other types, or whose name other files access", async () => {
    const p = await indexed({
      "src/shape.ts": "export interface Shape {\n  area(): number;\n}\nexport class Square implements Shape {\n  area(): number {\n    return 1;\n  }\n}\n",
      "src/use.ts": 'import { Square } from "./shape.js";\nexport const a = (s: { area(): number }) => s.area() + new Square().area();\n',
    });
    const reasons = async (symbol: string) => {
      const r = await hp(p, ["intent", JSON.stringify({ operation: "rename-exported-symbol", symbol, newName: "size" })]);
      expect(r.code).toBe(1);
      return (r.envelope.error!.details.plan.unresolved as Array<{ reason: string }>).map((u) => u.reason);
    };
    // The verified call at src/use.ts:2 is planned (the member's access on its line); the contract it shares is not.
    expect(await reasons("Square.area")).toEqual(["Square implements Shape, which may declare 'area': renaming it in Square alone may break that contract"]);
    expect((await reasons("Shape.area"))[0]).toBe("Shape is an interface: the object literals and classes that implement it name 'area' too, and the rename does not follow them");
    expect(p.read("src/shape.ts")).toContain("  area(): number {");
  });

  it("the summary counts exactly the lines review lists; doc comments naming the symbol are listed (never edited), in files that name it nowhere else too", async () => {
    const HEADERS = [
      "/**",
      " * Merges two header sets; see {@link mergeHeaders} for the order.",
      " * @see mergeHeaders",
      " */",
      "export function mergeHeaders(a: Record<string, string>, b: Record<string, string>): Record<string, string> {",
      "  return { ...a, ...b };",
      "}",
      "",
      "/** @param {typeof mergeHeaders} merge the merger */",
      "export function withDefaults(merge: typeof mergeHeaders, h: Record<string, string>): Record<string, string> {",
      '  return merge({ accept: "*/*" }, h);',
      "}",
      "",
    ].join("\n");
    const DEEP = [
      "/**",
      " * Like {@link mergeHeaders}, but deep.",
      " * @see mergeHeaders",
      " * @param {mergeHeaders} x unused",
      " */",
      "export function deepMerge(x: unknown): unknown {",
      "  return x;",
      "}",
      "",
    ].join("\n");
    const USE = 'import { mergeHeaders } from "./headers.js";\n\nexport const h = mergeHeaders({}, { a: "1" });\n';
    const p = await indexed({ "src/headers.ts": HEADERS, "src/deep.ts": DEEP, "src/use.ts": USE });
    const r = await hp(p, ["intent", JSON.stringify({ operation: "rename-exported-symbol", symbol: "mergeHeaders", newName: "combineHeaders" }), "--no-verify"]);
    expect(r.code, r.stdout.slice(0, 600)).toBe(0);
    const at = (file: string, line: number, context: string) => ({ file: p.path(file), line, context });
    expect(r.envelope.data.plan.review).toEqual([
      at("src/deep.ts", 2, "* Like {@link mergeHeaders}, but deep."),
      at("src/deep.ts", 3, "* @see mergeHeaders"),
      at("src/deep.ts", 4, "* @param {mergeHeaders} x unused"),
      at("src/headers.ts", 2, "* Merges two header sets; see {@link mergeHeaders} for the order."),
      at("src/headers.ts", 3, "* @see mergeHeaders"),
      at("src/headers.ts", 9, "/** @param {typeof mergeHeaders} merge the merger */"),
    ]);
    // Line 10's `typeof mergeHeaders` was a potential match the rename edited: it is not counted.
    expect(r.envelope.data.plan.impactSummary).toBe("2 file(s): the declaration, 1 import(s), 0 re-export(s), 0 namespace import(s); 1 verified call site(s); 6 line(s) to review, never edited");
    expect(p.read("src/headers.ts")).toBe(HEADERS.replace("export function mergeHeaders(", "export function combineHeaders(").replace("merge: typeof mergeHeaders,", "merge: typeof combineHeaders,"));
    expect(p.read("src/deep.ts")).toBe(DEEP);
    // Over the list's cap (1,000 lines naming it: 1,003 comments, the import and line 10) the summary and reviewOmitted say how
    // many were left out; of the 1,000 listed, the import (planned) and line 10 (edited) are not lines to review.
    writeFileSync(p.path("src/notes.ts"), `${Array.from({ length: 1003 }, (_, i) => `// combineHeaders note ${i}`).join("\n")}\nexport const notes = 1;\n`);
    expect((await runMast(["index", p.root, "--incremental"])).code).toBe(0);
    const capped = await hp(p, ["intent", JSON.stringify({ operation: "rename-exported-symbol", symbol: "combineHeaders", newName: "joinHeaders" }), "--dry-run"]);
    expect(capped.code, capped.stdout.slice(0, 600)).toBe(0);
    expect([capped.envelope.data.plan.review.length, capped.envelope.data.plan.reviewOmitted, capped.envelope.data.plan.impactSummary]).toEqual([
      998,
      5,
      "2 file(s): the declaration, 1 import(s), 0 re-export(s), 0 namespace import(s); 1 verified call site(s); 998 line(s) to review (and 5 more left out by the cap), never edited",
    ]);
  });

  it("--dry-run answers the plan and each file's diff and writes nothing", async () => {
    const p = await project();
    const r = await hp(p, ["intent", INTENT, "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.envelope.data.dryRun).toBe(true);
    expect(r.envelope.data.execution.steps.map((s: { status: string; changes: number }) => `${s.status} ${s.changes}`)).toEqual(["planned 2", "planned 4", "planned 1"]);
    expect(r.envelope.data.execution.steps[2].diff).toBe(
      '--- a/src/lib/index.ts\n+++ b/src/lib/index.ts\n@@ -1,2 +1,2 @@\n-export { compose } from "./compose.js";\n+export { composeAll } from "./compose.js";\n export * from "./compose.js";\n',
    );
    expect([p.read("src/lib/compose.ts"), p.read("src/lib/index.ts"), p.read("src/app.ts")]).toEqual([COMPOSE, BARREL, APP]);
    // From another directory, --project-root (the contract's flag; --root elsewhere) names the project.
    const away = await runHashpilot(["intent", INTENT, "--dry-run", "--project-root", p.root], { cwd: tmpdir(), env: { HASHPILOT_HOME: p.home } });
    expect(away.code, away.stdout.slice(0, 300)).toBe(0);
    expect(JSON.parse(away.stdout).data.execution.summary).toMatchObject({ total: 3, applied: 3 });
  });

  it("refuses a plan with parts it cannot do unless --yes, and never a remove-parameter", async () => {
    const p = await indexed({ "src/lib/compose.ts": COMPOSE, "src/old.cjs": 'const { compose } = require("./lib/compose.js");\nmodule.exports = () => compose([]);\n' });
    const refused = await hp(p, ["intent", INTENT]);
    expect(refused.code).toBe(1);
    expect(refused.envelope.error).toMatchObject({ code: "UNSUPPORTED_OPERATION" });
    expect(refused.envelope.error!.details.plan.unresolved).toEqual([
      {
        file: p.path("src/old.cjs"),
        operation: "rename",
        reason: "line 1: a require of the module (the names it takes are not rewritten): edit it yourself",
        resolution: "Edit line 1 of src/old.cjs yourself.",
      },
    ]);
    expect(p.read("src/lib/compose.ts")).toBe(COMPOSE);
    const yes = await hp(p, ["intent", INTENT, "--yes"]);
    expect(yes.code).toBe(0);
    expect(p.read("src/lib/compose.ts")).toContain("export function composeAll(");
    expect(p.read("src/old.cjs")).toContain('const { compose } = require("./lib/compose.js");');

    const remove = await hp(p, ["intent", JSON.stringify({ operation: "remove-parameter", symbol: "twice", param: { name: "x" } })]);
    expect(remove.code).toBe(1);
    expect(remove.envelope.error).toMatchObject({ code: "UNSUPPORTED_OPERATION", message: "remove-parameter is not implemented" });
  });

  it("a step that cannot apply rolls back the steps before it (exit 2, revertReason step-failed); verification is skipped", async () => {
    const p = await indexed({ "src/lib/compose.ts": COMPOSE, "src/app.ts": 'import { compose } from "./lib/compose.js";\nexport const run = () => compose([]) +;\n' });
    const r = await hp(p, ["intent", INTENT]);
    expect(r.code).toBe(2);
    expect(r.envelope.error!.code).toBe("PARSE_ERROR");
    const execution = r.envelope.error!.details.execution;
    expect(execution).toMatchObject({ reverted: true, revertReason: "step-failed", summary: { applied: 1, failed: 1 } });
    expect(execution.verification).toBeUndefined();
    expect(p.read("src/lib/compose.ts")).toBe(COMPOSE);
  });

  it("a failed verification rolls every file back (exit 4, revertReason verification-failed); --no-revert keeps the rename", async () => {
    const nameTest = ['import { expect, it } from "vitest";', 'import { compose } from "../src/lib/compose.js";', 'it("keeps its public name", () => expect(compose.name).toBe("compose"));', ""].join(
      "\n",
    );
    const p = await indexed({ "package.json": JSON.stringify({ type: "module", devDependencies: { vitest: "4.1.12" } }), "src/lib/compose.ts": COMPOSE, "test/name.test.ts": nameTest });
    symlinkSync(NODE_MODULES, join(p.root, "node_modules"));
    const r = await hp(p, ["intent", INTENT]);
    expect(r.code).toBe(4);
    expect(r.envelope.error!.code).toBe("VERIFY_FAILED");
    const details = r.envelope.error!.details;
    expect(details.execution).toMatchObject({ reverted: true, revertReason: "verification-failed", verification: { overall: "fail", checksRun: ["tests"] } });
    expect([p.read("src/lib/compose.ts"), p.read("test/name.test.ts")]).toEqual([COMPOSE, nameTest]);
    const kept = await hp(p, ["intent", INTENT, "--no-revert"]);
    expect(kept.code).toBe(4);
    expect(kept.envelope.error!.details.execution.reverted).toBe(false);
    expect(p.read("src/lib/compose.ts")).toContain("export function composeAll(");
  });

  it.skipIf(!canLock)("a rollback that cannot write a file back is ROLLBACK_INCOMPLETE (exit 5) naming it", async () => {
    const p = await indexed({
      "package.json": JSON.stringify({ type: "module", devDependencies: { vitest: "4.1.12" } }),
      "src/lib/compose.ts": COMPOSE,
      "src/app.ts": 'import { compose } from "./lib/compose.js";\nexport const run = () => compose([]);\n',
    });
    symlinkSync(NODE_MODULES, join(p.root, "node_modules"));
    const app = p.path("src/app.ts");
    locked.push(app);
    // The suite the verification runs makes app.ts immutable, then fails.
    const test = [
      'import { execFileSync } from "node:child_process";',
      'import { expect, it } from "vitest";',
      'import { run } from "../src/app.js";',
      `it("locks and fails", () => { execFileSync("chattr", ["+i", ${JSON.stringify(app)}]); expect(typeof run).toBe("string"); });`,
      "",
    ].join("\n");
    mkdirSync(p.path("test"), { recursive: true });
    writeFileSync(p.path("test/app.test.ts"), test);
    const r = await hp(p, ["intent", INTENT]);
    expect(r.code).toBe(5);
    expect(r.envelope.error!.code).toBe("ROLLBACK_INCOMPLETE");
    const execution = r.envelope.error!.details.execution;
    expect(execution.reverted).toBe(false);
    expect(execution.unrevertedFiles).toEqual([app]);
    expect(readFileSync(app, "utf8")).toContain("composeAll");
    expect(p.read("src/lib/compose.ts")).toBe(COMPOSE);
  });
});

describe("hashpilot intent add-parameter", () => {
  const GREET =
    "export function greet(name: string): string {\n  return `hi ${name}`;\n}\n\nexport class Box {\n  open(a: number): number {\n    return a;\n  }\n  twice(): number {\n    return this.open(1) + this.open(2);\n  }\n}\n";
  const USE =
    'import { greet as g, Box } from "./lib/greet.js";\nimport * as lib from "./lib/greet.js";\n\nexport function run(): string {\n  new Box().open(3);\n  return g("a") + lib.greet("b");\n}\n';
  const add = (symbol: string, param: Record<string, string>) => JSON.stringify({ operation: "add-parameter", symbol, param });

  it("appends the parameter and passes param.default at every verified call: aliased, through a namespace, several on a line", async () => {
    const p = await indexed({ "src/lib/greet.ts": GREET, "src/app.ts": USE });
    const fn = await hp(p, ["intent", add("greet", { name: "loud", type: "boolean", default: "false" })]);
    expect(fn.code, fn.stdout.slice(0, 600)).toBe(0);
    const method = await hp(p, ["intent", add("Box.open", { name: "b", type: "number", default: "0" })]);
    expect(method.code, method.stdout.slice(0, 600)).toBe(0);
    expect(p.read("src/lib/greet.ts")).toBe(
      GREET.replace("greet(name: string)", "greet(name: string, loud: boolean)")
        .replace("open(a: number)", "open(a: number, b: number)")
        .replace("this.open(1) + this.open(2)", "this.open(1, 0) + this.open(2, 0)"),
    );
    expect(p.read("src/app.ts")).toBe(USE.replace("open(3)", "open(3, 0)").replace('g("a") + lib.greet("b")', 'g("a", false) + lib.greet("b", false)'));
    expect(method.envelope.data.plan.impactSummary).toBe("the declaration in src/lib/greet.ts gets 'b: number'; 2 verified call site(s) in 2 file(s) get '0'; 0 line(s) to review, never edited");
  });

  it("refuses a parameter the declaration already has, from its indexed parameters", async () => {
    const p = await indexed({ "src/lib/greet.ts": GREET, "src/app.ts": USE });
    const again = await hp(p, ["intent", add("greet", { name: "name", type: "string", default: '"x"' })]);
    expect(again.code).toBe(1);
    expect([again.envelope.error!.code, again.envelope.error!.message]).toEqual(["INVALID_ARGUMENT", "'greet' already has a parameter 'name'"]);
    expect(p.read("src/lib/greet.ts")).toBe(GREET);
  });

  it("without a default refuses with the call sites it cannot compute (the contract's entries); --yes adds only the parameter", async () => {
    const p = await indexed({ "src/lib/greet.ts": GREET, "src/app.ts": USE });
    const refused = await hp(p, ["intent", add("greet", { name: "flag" })]);
    expect(refused.code).toBe(1);
    expect(refused.envelope.error!.details.plan.unresolved).toEqual([
      {
        file: p.path("src/app.ts"),
        operation: "insert-call-arg",
        reason: "no default given for 'flag', so the argument to pass at each call site cannot be computed",
        resolution: 'Re-run with "param": {"name": "flag", "default": "<value>"}, or edit the call sites in src/app.ts yourself with `diff apply`.',
      },
    ]);
    expect(p.read("src/lib/greet.ts")).toBe(GREET);
    const yes = await hp(p, ["intent", add("greet", { name: "flag" }), "--yes"]);
    expect(yes.code, yes.stdout.slice(0, 600)).toBe(0);
    expect(p.read("src/lib/greet.ts").split("\n")[0]).toBe("export function greet(name: string, flag): string {");
    expect(p.read("src/app.ts")).toBe(USE);
  });

  it("refuses a call that passes fewer arguments than the parameters before the new one, and a declaration ending in an optional parameter", async () => {
    const p = await indexed({
      "src/f.ts": "export function f(a: number, b?: number): number {\n  return a + (b ?? 0);\n}\nexport function h(a: number, b: number): number {\n  return a + b;\n}\n",
      "src/use.ts": 'import { f, h } from "./f.js";\nexport const x = f(1) + h(1, 2);\nexport const y = h(1);\n',
    });
    const optional = await hp(p, ["intent", add("f", { name: "c", type: "number", default: "0" })]);
    expect(optional.code).toBe(1);
    expect(optional.envelope.error!.message).toMatch(/optional, has a default or takes the rest/);
    expect(p.read("src/f.ts")).toContain("export function f(a: number, b?: number): number {");
    const h = await hp(p, ["intent", add("h", { name: "c", type: "number", default: "0" })]);
    expect(h.code).toBe(1);
    expect(h.envelope.error!.message).toMatch(/^a step failed \(1 use\(s\) of 'h' in .*src\/use\.ts could not be given the argument \(lines 3\)/);
    expect(p.read("src/f.ts")).toContain("export function h(a: number, b: number): number {");
    const yes = await hp(p, ["intent", add("h", { name: "c", type: "number", default: "0" }), "--yes"]);
    expect(yes.code, yes.stdout.slice(0, 600)).toBe(0);
    expect(p.read("src/use.ts")).toBe('import { f, h } from "./f.js";\nexport const x = f(1) + h(1, 2, 0);\nexport const y = h(1);\n');
  });
});
