// hashpilot's route, symbol-lookup-many, doctor, upgrade and uninstall through the built bin: the
// route and its reasons under each policy rule; declarations found by name; the doctor's checks
// (always exit 0); and the npm commands upgrade and uninstall would run, shown by --dry-run.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../src/base/version.js";
import { assertBuilt, runHashpilot } from "../helpers/cli.js";
import { hashpilotProject as project, hp, space } from "../helpers/hashpilot.js";

beforeAll(() => assertBuilt());

describe("hashpilot route", () => {
  it("explains the default route and each policy rule (language, operation, conflict resolution)", async () => {
    const p = project({});
    const plain = await hp(p, ["route", "src/foo.ts", "replace-hash"]);
    expect(plain.envelope.data).toEqual({
      file: "src/foo.ts",
      operation: "replace-hash",
      language: "typescript",
      route: "hash",
      explanation: { route: "hash", reasons: ["'replace-hash' is anchored by content hashes"], policyApplied: false },
    });
    const rename = await hp(p, ["route", "src/foo.kt", "rename-symbol"]);
    expect(rename.envelope.data.route).toBe("diff");
    expect(rename.envelope.data.explanation.reasons).toEqual(["Language 'kt' has no AST edits in this build", "'rename-symbol' falls back to a diff"]);
    const ast = await hp(p, ["route", "src/foo.ts", "rename-symbol"]);
    expect(ast.envelope.data).toEqual({
      file: "src/foo.ts",
      operation: "rename-symbol",
      language: "typescript",
      route: "ast",
      explanation: { route: "ast", reasons: ["Language 'typescript' supports AST operations"], policyApplied: false },
    });
    const imports = await hp(p, ["route", "src/foo.py", "add-import"]);
    expect([imports.envelope.data.route, imports.envelope.data.language]).toEqual(["ast", "python"]);
    const dts = await hp(p, ["route", "src/foo.d.ts", "rename-symbol"]);
    expect(dts.envelope.data.route).toBe("diff");
    const byLanguage = await hp(p, ["route", "src/foo.kt", "rename-symbol", "--policy", JSON.stringify({ languageOverrides: { kt: "hash" } })]);
    expect(byLanguage.envelope.data.explanation).toMatchObject({ route: "hash", policyApplied: true, policySource: "language" });
    const both = { languageOverrides: { typescript: "hash" }, operationOverrides: { "replace-hash": "diff" } };
    const operationWins = await hp(p, ["route", "a.ts", "replace-hash", "--policy", JSON.stringify(both)]);
    expect([operationWins.envelope.data.route, operationWins.envelope.data.explanation.policySource]).toEqual(["diff", "operation"]);
    const languageWins = await hp(p, ["route", "a.ts", "replace-hash", "--policy", JSON.stringify({ ...both, conflictResolution: "language" })]);
    expect([languageWins.envelope.data.route, languageWins.envelope.data.explanation.policySource]).toEqual(["hash", "language"]);
    const strictest = await hp(p, ["route", "a.ts", "replace-hash", "--policy", JSON.stringify({ ...both, conflictResolution: "strictest" })]);
    expect(strictest.envelope.data.route).toBe("diff");
    const bad = await hp(p, ["route", "a.ts", "replace-hash", "--policy", "{oops"]);
    expect([bad.code, bad.envelope.error!.code]).toEqual([1, "CONFIG_INVALID"]);
  });

  it("ignores the config files with --no-default-config, but not HASHPILOT_ROUTE_POLICY", async () => {
    const p = project({ ".hashpilot.json": JSON.stringify({ routePolicy: { operationOverrides: { "replace-hash": "diff" } } }) });
    expect((await hp(p, ["route", "a.ts", "replace-hash"])).envelope.data.route).toBe("diff");
    expect((await hp(p, ["route", "a.ts", "replace-hash", "--no-default-config"])).envelope.data.route).toBe("hash");
    const env = { HASHPILOT_ROUTE_POLICY: JSON.stringify({ operationOverrides: { "replace-hash": "diff" } }) };
    expect((await hp(p, ["route", "a.ts", "replace-hash", "--no-default-config"], env)).envelope.data.route).toBe("diff");
  });
});

describe("hashpilot symbol-lookup-many", () => {
  it("finds declarations by name, methods by Class.method or their own name", async () => {
    const p = project({
      "src/a.ts": "export function hello() {}\nexport class Greeter {\n  greet() {}\n}\n",
      "src/b.js": "function hello() { return 1; }\n",
      "README.md": "# hello\n",
    });
    const r = await hp(p, ["symbol-lookup-many", "src", "--names", "hello,greet"]);
    expect(r.envelope.data).toEqual([
      { name: "hello", path: p.path("src/a.ts"), line: 1, kind: "function" },
      { name: "Greeter.greet", path: p.path("src/a.ts"), line: 3, kind: "method" },
      { name: "hello", path: p.path("src/b.js"), line: 1, kind: "function" },
    ]);
  });
});

describe("hashpilot doctor, upgrade and uninstall", () => {
  it("doctor checks what the install needs, prints a summary by default and the envelope with --json, and exits 0", async () => {
    const p = project({});
    const home = space.dir("hashpilot-user-");
    const r = await hp(p, ["doctor", "--json"], { HOME: home, PATH: "/usr/bin:/bin" });
    expect(r.code).toBe(0);
    expect(r.envelope.data.checks.map((c: any) => [c.name, c.status])).toEqual([
      ["cli-executable", "warn"],
      ["config-file", "skip"],
      ["snapshot-store", "pass"],
      ["telemetry-store", "pass"],
      ["grammars", "pass"],
      ["mcp-server", "pass"],
    ]);
    expect(r.envelope.data.checks.find((c: any) => c.name === "mcp-server").message).toMatch(/^mast serve started and listed \d+ tools$/);
    expect([r.envelope.data.healthy, r.envelope.data.version]).toEqual([true, VERSION]);
    const text = await runHashpilot(["doctor"], { cwd: p.root, env: { HASHPILOT_HOME: p.home, HOME: home } });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("ok    grammars         Loaded: typescript, tsx, javascript, python, go, rust, java, c, cpp, c_sharp, ruby, php\n");
    expect(text.stdout.trimEnd().endsWith(`healthy (hashpilot ${VERSION})`)).toBe(true);
  });

  it("upgrade and uninstall go through npm; --dry-run shows the command and what would be removed or kept", async () => {
    const p = project({});
    const up = await hp(p, ["upgrade", "--dry-run", "--channel", "next"]);
    expect(up.envelope.data).toEqual({ success: true, dryRun: true, command: ["npm", "install", "--global", "mast@next"] });
    const un = await hp(p, ["uninstall", "--dry-run", "--keep-config"], { HOME: "/home/someone" });
    expect(un.envelope.data.command).toEqual(["npm", "uninstall", "--global", "mast"]);
    expect(un.envelope.data.components.map((c: any) => [c.name, c.action])).toEqual([
      ["package", "remove"],
      ["snapshots", "remove"],
      ["locks", "remove"],
      ["telemetry", "preserve"],
      ["config", "preserve"],
    ]);
    expect(un.envelope.data.components[1].path).toBe(join(p.home, "snapshots"));
  });

  it("reports the package's version", () => {
    expect(VERSION).toBe(JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version);
  });
});
