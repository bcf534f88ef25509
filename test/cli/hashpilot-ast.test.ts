// The AST edits, route-edit and batch through the built `hashpilot` bin: each command's envelope
// and exit code (AMBIGUOUS_SYMBOL and PARSE_ERROR 2, UNSUPPORTED_OPERATION 1, a batch the worst of
// its entries), the route a file and operation take (ROUTE_FALLBACK on a downgrade), a batch's
// conflicts counted apart from failures, and LOCK_TIMEOUT when a file's lock is held.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256 } from "../../src/base/hash.js";
import { assertBuilt, runMast, startLockHolder } from "../helpers/cli.js";
import { hashpilotProject as project, hp, sha12 } from "../helpers/hashpilot.js";

beforeAll(() => assertBuilt());

const TS = "export class Auth {\n  check(token: string) {\n    return token.length > 0;\n  }\n}\n\nexport function use(a: Auth, token: string) {\n  return a.check(token);\n}\n";

describe("hashpilot ast", () => {
  it("rename-symbol writes the rename, records a changeSet undo restores, and answers the contract's payload", async () => {
    const p = project({ "src/auth.ts": TS });
    const r = await hp(p, ["ast", "rename-symbol", "src/auth.ts", "Auth.check", "verify", "--actor", "agent-1"]);
    expect(r.code).toBe(0);
    expect(r.envelope.data).toMatchObject({
      success: true,
      path: p.path("src/auth.ts"),
      operation: "rename-symbol",
      changes: 2,
      message: "Renamed 2 occurrences of 'Auth.check' to 'verify' (member of Auth)",
      route: "ast",
    });
    expect(p.read("src/auth.ts")).toBe(TS.replace("check(token", "verify(token").replace("a.check(", "a.verify("));
    const undone = await hp(p, ["undo", "--last"]);
    expect(undone.code).toBe(0);
    expect(p.read("src/auth.ts")).toBe(TS);
  });

  it("exit codes: AMBIGUOUS_SYMBOL 2, SYMBOL_NOT_FOUND 2, PARSE_ERROR 2, UNSUPPORTED_OPERATION 1, INVALID_ARGUMENT 1 — the file untouched", async () => {
    const p = project({ "src/auth.ts": TS, "notes.txt": "token\n", "broken.ts": "export function f( {\n" });
    const cases: Array<[string[], number, string]> = [
      [["ast", "rename-symbol", "src/auth.ts", "token", "jwt"], 2, "AMBIGUOUS_SYMBOL"],
      [["ast", "replace-body", "src/auth.ts", "nothing", "return 1;"], 2, "SYMBOL_NOT_FOUND"],
      [["ast", "replace-body", "src/auth.ts", "use", "return (;"], 2, "PARSE_ERROR"],
      [["ast", "replace-body", "broken.ts", "f", "return 1;"], 2, "PARSE_ERROR"],
      [["ast", "rename-symbol", "notes.txt", "token", "jwt"], 1, "UNSUPPORTED_OPERATION"],
      [["ast", "rename-symbol", "src/auth.ts", "use", "not a name"], 1, "INVALID_ARGUMENT"],
    ];
    for (const [args, code, error] of cases) {
      const r = await hp(p, args);
      expect([args.join(" "), r.code, r.envelope.error!.code]).toEqual([args.join(" "), code, error]);
    }
    expect(p.read("src/auth.ts")).toBe(TS);
    expect(p.read("broken.ts")).toBe("export function f( {\n");
  });

  it("rename-symbol refuses a rename whose uses a `with` body may take for its object's property (UNRESOLVED_REFERENCES, exit 2, the lines listed, the file untouched); --yes renames the rest", async () => {
    const WITH = "var count = 0;\nvar obj = { count: 10 };\nfunction n() {\n  with (obj) {\n    count = count + 1;\n  }\n  return count;\n}\nconsole.log(n(), obj.count);\n";
    const p = project({ "with.js": WITH });
    const r = await hp(p, ["ast", "rename-symbol", "with.js", "count", "n2"]);
    expect([r.code, r.envelope.error!.code, r.envelope.error!.details.unresolved.map((u: { line: number }) => u.line), r.envelope.error!.details.unresolvedTotal]).toEqual([
      2,
      "UNRESOLVED_REFERENCES",
      [5, 5],
      2,
    ]);
    expect(p.read("with.js")).toBe(WITH);
    const yes = await hp(p, ["ast", "rename-symbol", "with.js", "count", "n2", "--yes"]);
    // The project has no index: other files' uses of the file-level `count` were not checked.
    expect([yes.code, yes.envelope.data.changes, yes.envelope.data.unresolvedTotal, yes.envelope.warnings.map((w) => w.code)]).toEqual([0, 2, 2, ["UNRESOLVED_REFERENCES", "CROSS_FILE_UNCHECKED"]]);
    expect(p.read("with.js")).toBe(WITH.replace("var count = 0;", "var n2 = 0;").replace("return count;", "return n2;"));
  });

  it("rename-symbol of a function another file calls: the rename made, exit 0, CROSS_FILE_USES with the sites once `mast init` indexed the project, CROSS_FILE_UNCHECKED before", async () => {
    const B = "import { use } from './auth.js';\n\nexport const ok = use(new Auth(), 'x') && use(new Auth(), 'y');\n";
    const p = project({ "src/auth.ts": TS, "src/b.ts": B });
    const before = await hp(p, ["ast", "rename-symbol", "src/auth.ts", "use", "run", "--dry-run"]);
    expect([before.code, before.envelope.warnings.map((w) => w.code)]).toEqual([0, ["CROSS_FILE_UNCHECKED"]]);
    const init = await runMast(["init", p.root]);
    expect(init.code, init.stderr).toBe(0);
    const r = await hp(p, ["ast", "rename-symbol", "src/auth.ts", "use", "run"]);
    expect([r.code, r.envelope.data.changes]).toEqual([0, 1]);
    expect(r.envelope.warnings).toEqual([
      {
        code: "CROSS_FILE_USES",
        message: "1 use(s) in 1 other file(s) (e.g. src/b.ts:3) still name 'use'; rename across files with `hashpilot intent rename-exported-symbol`",
        symbol: "use",
        total: 1,
        verified: 1,
        fileCount: 1,
        sites: [{ path: "src/b.ts", line: 3 }],
      },
    ]);
    expect(p.read("src/auth.ts")).toBe(TS.replace("export function use(", "export function run("));
  });

  it("find-symbols and capabilities; --dry-run answers the diff with sourceOmitted", async () => {
    const p = project({ "src/auth.ts": TS });
    const found = await hp(p, ["ast", "find-symbols", "src/auth.ts"]);
    expect(found.envelope.data.symbols.map((s: { qualifiedName: string; startLine: number }) => `${s.startLine} ${s.qualifiedName}`)).toEqual(["1 Auth", "2 Auth.check", "7 use"]);
    const caps = await hp(p, ["ast", "capabilities"]);
    expect(caps.envelope.data.map((c: { lang: string }) => c.lang)).toEqual(["typescript", "javascript", "python", "go", "rust"]);
    const dry = await hp(p, ["ast", "insert-after", "src/auth.ts", "use", "export const N = 1;", "--dry-run"]);
    expect(dry.envelope.data).toMatchObject({ dryRun: true, sourceOmitted: true, diff: expect.stringContaining("+export const N = 1;") });
    expect(dry.envelope.data.newSource).toBeUndefined();
    expect(p.read("src/auth.ts")).toBe(TS);
  });
});

describe("hashpilot --help", () => {
  it("is written from the registry: every editing tool's commands with their usage; a command's --help is its usage and summary", async () => {
    const { TOOLS } = await import("../../src/tools/registry.js");
    const { runHashpilot } = await import("../helpers/cli.js");
    const help = await runHashpilot(["--help"]);
    expect(help.code).toBe(0);
    for (const tool of TOOLS) for (const c of tool.cli ?? []) expect(help.stdout).toContain(`  ${c.name}`);
    expect(help.stdout).toContain(
      "hashpilot ast rename-symbol <file> <old-name> <new-name> [--line <line>] [--dry-run] [--include-source] [--allow-parse-errors] [--yes] [--actor <actor>] [--task-id <task-id>] [--reason <reason>]",
    );
    expect(help.stdout).toContain("hashpilot ast add-import <file> <import-spec> [--dry-run]");
    const one = await runHashpilot(["replace-hash", "--help"]);
    expect(one.stdout.split("\n")[0]).toBe(
      "hashpilot replace-hash <file> <old-hash> <new-content|@file|@@literal> [--range <range>] [--context-hash <context-hash>] [--context-range <context-range>] [--dry-run] [--actor <actor>] [--task-id <task-id>] [--reason <reason>] [--file-hash <expected-file-hash>] [--no-recovery]",
    );
    const missing = await hp(project({}), ["ast", "rename-symbol", "a.ts", "x"]);
    expect([missing.code, missing.envelope.error!.code, missing.envelope.error!.message]).toEqual([1, "INVALID_ARGUMENT", "ast rename-symbol: missing arguments"]);
  });
});

describe("hashpilot route-edit and batch", () => {
  it("route-edit takes the AST route where it can, the diff route with ROUTE_FALLBACK where it cannot, and the policy's route", async () => {
    const p = project({ "a.ts": TS, "b.kt": "fun a(x: Int) = x\n" });
    const ast = await hp(p, ["route-edit", "a.ts", "add-import", "--import-spec", "{ z } from ./z"]);
    expect(ast.envelope.data).toMatchObject({ route: "ast", changes: 1 });
    expect(ast.envelope.warnings).toEqual([]);
    const diff = await hp(p, ["route-edit", "b.kt", "rename-symbol", "--old-content", "fun a(x: Int) = x", "--new-content", "fun a(y: Int) = y"]);
    expect(diff.envelope.data).toMatchObject({ route: "diff", operation: "replace-content" });
    expect(diff.envelope.warnings.map((w) => w.code)).toEqual(["ROUTE_FALLBACK"]);
    expect(p.read("b.kt")).toBe("fun a(y: Int) = y\n");
    // A policy that forces the hash route needs the hash route's arguments.
    const policy = await hp(p, ["route-edit", "a.ts", "rename-symbol", "--symbol", "use", "--new-name", "run", "--policy", '{"languageOverrides":{"typescript":"hash"}}']);
    expect([policy.code, policy.envelope.error!.code, policy.envelope.error!.message]).toEqual([1, "INVALID_ARGUMENT", "rename-symbol by the hash route needs old_hash"]);
    const forced = await hp(p, ["route-edit", "a.ts", "replace-hash", "--method", "ast"]);
    expect([forced.code, forced.envelope.error!.code]).toEqual([1, "UNSUPPORTED_OPERATION"]);
  });

  it("batch: total = succeeded + failed + conflicts, a stale anchor is a conflict, and the exit code is the worst entry's", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 1;\n" });
    const ok = await hp(p, ["batch", "add-import", "a.ts", "b.ts", "--import-spec", "{ z } from ./z"]);
    expect(ok.code).toBe(0);
    expect(ok.envelope.data.summary).toMatchObject({ total: 2, succeeded: 2, failed: 0, conflicts: 0 });
    expect(p.read("b.ts")).toBe('import { z } from "./z";\n\nexport const b = 1;\n');
    // The same hash edit over both: it fits a.ts's first line only; b.ts is stale; a missing file fails.
    const first = 'import { z } from "./z";';
    const mixed = await hp(p, ["batch", "replace-hash", "a.ts", "b.ts", "missing.ts", "--old-hash", sha12("export const a = 1;"), "--range", "3", "--new-content", "export const a = 2;", "--serial"]);
    expect(mixed.code).toBe(5);
    expect(mixed.envelope.error!.details!.summary).toMatchObject({ total: 3, succeeded: 1, failed: 1, conflicts: 1 });
    expect(mixed.envelope.error!.details!.results.map((r: { success: boolean; errorCode?: string; stale?: boolean }) => [r.success, r.errorCode ?? null, r.stale ?? false])).toEqual([
      [true, null, false],
      [false, "STALE_ANCHOR", true],
      [false, "FILE_NOT_FOUND", false],
    ]);
    expect(p.read("a.ts")).toBe(`${first}\n\nexport const a = 2;\n`);
  });

  it("batch: a file another editor holds makes every entry LOCK_TIMEOUT with route null, and nothing is written", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 1;\n" });
    const marker = join(p.home, "locks", sha256(p.path("b.ts")).slice(0, 32));
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(p.home, "locks"), { recursive: true });
    const holder = await startLockHolder(marker, "another editor", 8_000);
    try {
      const r = await hp(p, ["batch", "add-import", "a.ts", "b.ts", "--import-spec", "{ z } from ./z"]);
      expect(r.code).toBe(3);
      expect(r.envelope.error!.code).toBe("LOCK_TIMEOUT");
      expect(r.envelope.error!.details!.results.map((e: { route: unknown; routeReason: string; errorCode: string; stale: boolean }) => [e.route, e.routeReason, e.errorCode, e.stale])).toEqual([
        [null, "lock timeout", "LOCK_TIMEOUT", true],
        [null, "lock timeout", "LOCK_TIMEOUT", true],
      ]);
      expect(r.envelope.error!.details!.summary).toMatchObject({ total: 2, succeeded: 0, failed: 0, conflicts: 2 });
      expect(p.read("a.ts")).toBe("export const a = 1;\n");
    } finally {
      holder.child.kill();
      await holder.exited;
    }
  });
});
