// hashpilot's route, symbol-lookup-many, doctor, upgrade and uninstall through the built bin: the
// route and its reasons under each policy rule; declarations found by name; the doctor's checks
// (always exit 0); upgrade of the git clone an install runs from (git pull, npm ci — never the npm
// registry) and its refusal for an installed copy; the npm command uninstall would run.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../src/base/version.js";
import { assertBuilt, runHashpilot, spawnBin } from "../helpers/cli.js";
import { hashpilotProject as project, hp, space, type Envelope } from "../helpers/hashpilot.js";

beforeAll(() => assertBuilt());

const ROOT = join(import.meta.dirname, "..", "..");

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
}

/** An install of the built bins at `dir` (created when missing), as a tarball or clone leaves one: dist/bin/, package.json, node_modules. */
function installedBin(dir: string): string {
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, "dist", "bin"), join(dir, "dist", "bin"), { recursive: true });
  if (!existsSync(join(dir, "package.json"))) writeFileSync(join(dir, "package.json"), readFileSync(join(ROOT, "package.json")));
  symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"));
  return join(dir, "dist", "bin", "hashpilot.js");
}

/** An `npm` first on PATH that records its arguments and succeeds. */
function fakeNpm(): { env: Record<string, string>; calls(): string[] } {
  const dir = space.dir("hashpilot-fake-npm-");
  const log = join(dir, "calls.log");
  writeFileSync(join(dir, "npm"), `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\n`, { mode: 0o755 });
  return { env: { PATH: `${dir}${delimiter}${process.env.PATH ?? ""}` }, calls: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []) };
}

/** Runs an installed hashpilot bin; its stdout is the envelope. */
async function installed(bin: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; envelope: Envelope }> {
  const r = await spawnBin(bin, [...args, "--format", "json"], { env: { ...env, HASHPILOT_HOME: space.dir("hashpilot-home-") } }).done;
  return { code: r.code, envelope: JSON.parse(r.stdout) as Envelope };
}

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
    // PATH is a directory of the test's own: the machine's (where `npm install -g .` may have linked the commands) is not read.
    const bin = space.dir("hashpilot-path-");
    const r = await hp(p, ["doctor", "--json"], { HOME: home, PATH: bin });
    expect(r.code).toBe(0);
    expect(r.envelope.data.checks.map((c: any) => [c.name, c.status])).toEqual([
      ["cli-executable", "warn"],
      ["config-file", "skip"],
      ["snapshot-store", "pass"],
      ["telemetry-store", "pass"],
      ["grammars", "pass"],
      ["native-addon", "pass"],
      ["sqlite-extension", "pass"],
      ["mcp-server", "pass"],
    ]);
    expect(r.envelope.data.checks.find((c: any) => c.name === "mcp-server").message).toMatch(/^mast serve started and listed \d+ tools$/);
    expect([r.envelope.data.healthy, r.envelope.data.version]).toEqual([true, VERSION]);
    // Both commands on PATH (executables of that name): the check passes and names them.
    for (const name of ["mast", "hashpilot"]) writeFileSync(join(bin, name), "#!/bin/sh\n", { mode: 0o755 });
    const linked = await hp(p, ["doctor", "--json"], { HOME: home, PATH: bin });
    expect(linked.envelope.data.checks[0]).toEqual({ name: "cli-executable", status: "pass", message: `On PATH: ${join(bin, "mast")}, ${join(bin, "hashpilot")}` });
    const text = await runHashpilot(["doctor"], { cwd: p.root, env: { HASHPILOT_HOME: p.home, HOME: home } });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("ok    grammars         Loaded: typescript, tsx, javascript, python, go, rust, java, c, cpp, c_sharp, ruby, php\n");
    expect(text.stdout.trimEnd().endsWith(`healthy (hashpilot ${VERSION})`)).toBe(true);
  });

  it("upgrade pulls and rebuilds the git clone the install runs from (--dry-run shows the commands), never installing from the npm registry", async () => {
    const upstream = space.dir("hashpilot-upstream-");
    git(upstream, "init", "-q", "-b", "main");
    writeFileSync(join(upstream, "package.json"), readFileSync(join(ROOT, "package.json")));
    writeFileSync(join(upstream, "CHANGES"), "one\n");
    git(upstream, "add", ".");
    git(upstream, "commit", "-q", "-m", "one");
    const clone = join(space.dir("hashpilot-install-"), "mast");
    git(upstream, "clone", "-q", upstream, clone);
    const bin = installedBin(clone);
    writeFileSync(join(upstream, "CHANGES"), "one\ntwo\n");
    git(upstream, "commit", "-q", "-am", "two");
    const npm = fakeNpm();
    const commands = [
      ["git", "-C", clone, "pull", "--ff-only"],
      ["npm", "--prefix", clone, "ci"],
    ];
    const dry = await installed(bin, ["upgrade", "--dry-run"], npm.env);
    expect([dry.code, dry.envelope.data]).toEqual([0, { success: true, dryRun: true, install: "git-clone", packageDir: clone, commands }]);
    expect([readFileSync(join(clone, "CHANGES"), "utf8"), npm.calls()]).toEqual(["one\n", []]);
    const up = await installed(bin, ["upgrade"], npm.env);
    expect([up.code, up.envelope.data]).toEqual([0, { success: true, install: "git-clone", packageDir: clone, commands }]);
    expect([readFileSync(join(clone, "CHANGES"), "utf8"), npm.calls()]).toEqual(["one\ntwo\n", [`--prefix ${clone} ci`]]);
    const branch = await installed(bin, ["upgrade", "--dry-run", "--channel", "next"], npm.env);
    expect(branch.envelope.data.commands[0]).toEqual(["git", "-C", clone, "pull", "--ff-only", "origin", "next"]);
    const target = await installed(bin, ["upgrade", "--target", "/usr/local"], npm.env);
    expect([target.code, target.envelope.error!.code]).toEqual([1, "INVALID_ARGUMENT"]);
  });

  it("upgrade refuses an installed copy that is no git clone (UNSUPPORTED_OPERATION) and runs nothing, --dry-run too", async () => {
    const copy = join(space.dir("hashpilot-install-"), "mast");
    const bin = installedBin(copy);
    const npm = fakeNpm();
    for (const args of [["upgrade"], ["upgrade", "--dry-run"]]) {
      const r = await installed(bin, args, npm.env);
      expect([r.code, r.envelope.error!.code, r.envelope.error!.details]).toEqual([1, "UNSUPPORTED_OPERATION", { packageDir: copy }]);
      expect(r.envelope.error!.recovery).toContain("npm install -g .");
    }
    expect(npm.calls()).toEqual([]);
  });

  it("uninstall goes through npm; --dry-run shows the command and what would be removed or kept", async () => {
    const p = project({});
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
