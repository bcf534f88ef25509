// hashpilot verify-changes end to end: the built CLI on temp projects with real checks — vitest
// and the TypeScript compiler (this checkout's node_modules, linked into the project), pytest, and
// node scripts as a formatter and a noisy linter — real git repositories for baselines, and edits
// made with replace-hash so a revert has a changeSet to go back to.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashpilotProject, hp, space, type HashpilotProject } from "../helpers/hashpilot.js";

const NODE_MODULES = join(import.meta.dirname, "..", "..", "node_modules");
const hasPytest = spawnSync("python3", ["-m", "pytest", "--version"], { stdio: "ignore" }).status === 0;

const ADD = "export const add = (a: number, b: number): number => a + b;\n";
const ADD_TEST = ['import { expect, it } from "vitest";', 'import { add } from "../src/add.js";', 'it("adds", () => expect(add(1, 2)).toBe(3));', ""].join("\n");

/** A TypeScript project with vitest and tsc available (node_modules linked from this checkout). */
function tsProject(files: Record<string, string>): HashpilotProject {
  const p = hashpilotProject({
    "package.json": JSON.stringify({ type: "module", devDependencies: { vitest: "4.1.12", typescript: "5.9.3" } }),
    "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", target: "es2022", noEmit: true, skipLibCheck: true, types: [] }, include: ["src"] }),
    "src/add.ts": ADD,
    "test/add.test.ts": ADD_TEST,
    ...files,
  });
  symlinkSync(NODE_MODULES, join(p.root, "node_modules"));
  return p;
}

function gitCommit(root: string): void {
  const git = (...args: string[]) => spawnSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: root, encoding: "utf8" });
  git("init", "-q", ".");
  writeFileSync(join(root, ".gitignore"), "node_modules\n");
  git("add", "-A");
  expect(git("commit", "-qm", "base").status).toBe(0);
}

/** Replaces line `line` of a file with replace-hash (a recorded changeSet), returning the changeSet id. */
async function edit(p: HashpilotProject, file: string, line: number, content: string): Promise<string> {
  const read = await hp(p, ["read-hash", file, String(line)]);
  const r = await hp(p, ["replace-hash", file, read.envelope.data.lineHash, content, "--range", String(line)]);
  expect(r.code, r.stdout).toBe(0);
  return r.envelope.data.changeSetId as string;
}

describe("hashpilot verify-changes", () => {
  it("auto-detects tsc and vitest, runs only the tests related to the file, and the whole suite with --no-scope-tests", async () => {
    const p = tsProject({ "test/other.test.ts": ['import { expect, it } from "vitest";', 'it("unrelated and red", () => expect(0).toBe(1));', ""].join("\n") });
    const scoped = await hp(p, ["verify-changes", "src/add.ts", "--auto-detect"]);
    expect(scoped.code, scoped.stdout).toBe(0);
    const data = scoped.envelope.data;
    expect(data).toMatchObject({
      overall: "pass",
      checksRun: ["typecheck", "tests"],
      detected: { typecheck: "tsc --noEmit", testRunner: "vitest" },
      testScope: { cmd: "vitest", args: ["related", "--run", "src/add.ts"], scoped: true },
      typecheck: { passed: true, command: "tsc --noEmit", exitCode: 0 },
      tests: { passed: true, command: "vitest related --run src/add.ts", exitCode: 0 },
      files: [p.path("src/add.ts")],
    });
    // The same fileHash a read answers: the anchor of the next edit.
    const read = await hp(p, ["read-hash", "src/add.ts", "1"]);
    expect(data.fileHashes).toEqual({ [p.path("src/add.ts")]: read.envelope.data.fileHash });
    expect(data.errorCode).toBeUndefined();

    const whole = await hp(p, ["verify-changes", "src/add.ts", "--test-runner", "vitest", "--no-scope-tests"]);
    expect(whole.code).toBe(4);
    expect(whole.envelope.error).toMatchObject({ code: "VERIFY_FAILED", message: "verification failed: tests" });
    const details = whole.envelope.error!.details;
    expect(details).toMatchObject({
      overall: "fail",
      errorCode: "VERIFY_FAILED",
      checksRun: ["tests"],
      testScope: { args: ["run"], scoped: false, reason: "--no-scope-tests: vitest ran the whole suite" },
    });
    expect(details.tests.output).toContain("FAIL  test/other.test.ts > unrelated and red");
  });

  it("a file reached through a symlink inside the project is verified as the file it names (its real path)", async () => {
    const p = tsProject({ "lint.js": "process.exit(0);\n" });
    symlinkSync("add.ts", join(p.root, "src/link.ts"));
    const r = await hp(p, ["verify-changes", "src/link.ts", "--linter", "node lint.js"]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.envelope.data).toMatchObject({ overall: "pass", checksRun: ["linter"], files: [p.path("src/add.ts")] });
  });

  it("a solution tsconfig (files: [] and references) is type-checked through the referenced config that holds the file", async () => {
    const p = tsProject({
      "tsconfig.json": JSON.stringify({ files: [], references: [{ path: "./tsconfig.build.json" }] }),
      "tsconfig.build.json": JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", target: "es2022", noEmit: true, skipLibCheck: true, types: [] }, include: ["src"] }),
      "src/add.ts": "export const add = (a: number, b: number): number => a + b + 'x';\n",
    });
    const r = await hp(p, ["verify-changes", "src/add.ts", "--auto-detect", "--test-filter", "adds"]);
    expect(r.code).toBe(4);
    const details = r.envelope.error!.details;
    expect(details.detected.typecheck).toBe("tsc --noEmit -p tsconfig.build.json");
    expect(details.typecheck).toMatchObject({ passed: false, exitCode: 2 });
    expect(details.typecheck.output).toContain("src/add.ts(1,54): error TS2322: Type 'string' is not assignable to type 'number'.");
  });

  it("with --revert-on-failure puts back the bytes from before the edit, as a changeSet that undo takes back", async () => {
    const p = tsProject({});
    await edit(p, "src/add.ts", 1, "export const add = (a: number, b: number): number => a - b;");
    const edited = p.read("src/add.ts");
    const r = await hp(p, ["verify-changes", "src/add.ts", "--test-runner", "vitest", "--revert-on-failure"]);
    expect(r.code).toBe(4);
    const details = r.envelope.error!.details;
    expect(details.overall).toBe("fail");
    expect(details.revertedFiles).toEqual([p.path("src/add.ts")]);
    expect(details.tests.output).toContain("FAIL  test/add.test.ts > adds");
    expect(p.read("src/add.ts")).toBe(ADD);
    // The revert is a changeSet of its own: undo brings the edit back.
    const undo = await hp(p, ["undo", details.changeSetId]);
    expect(undo.code, undo.stdout).toBe(0);
    expect(p.read("src/add.ts")).toBe(edited);
  });

  it("a timeout is its own verdict (exit 4, VERIFY_TIMEOUT) and never reverts", async () => {
    const p = tsProject({
      "test/add.test.ts": [
        'import { it } from "vitest";',
        'import { add } from "../src/add.js";',
        'it("hangs", async () => { add(1, 2); await new Promise((r) => setTimeout(r, 30_000)); }, 60_000);',
        "",
      ].join("\n"),
    });
    await edit(p, "src/add.ts", 1, "export const add = (a: number, b: number): number => b + a;");
    const edited = p.read("src/add.ts");
    const r = await hp(p, ["verify-changes", "src/add.ts", "--test-runner", "vitest", "--timeout", "4000", "--revert-on-failure"]);
    expect(r.code).toBe(4);
    expect(r.envelope.error!.code).toBe("VERIFY_TIMEOUT");
    const details = r.envelope.error!.details;
    expect(details).toMatchObject({ overall: "timeout", timedOut: ["tests"], tests: { passed: false, timedOut: true } });
    expect(details.revertedFiles).toBeUndefined();
    expect(p.read("src/add.ts")).toBe(edited);
  });

  it("baselines: a pre-existing failure is subtracted, a new one counts, and without a baseline nothing is compared", async () => {
    const p = tsProject({ "test/add.test.ts": [ADD_TEST.trimEnd(), 'it("was already red", () => expect(add(2, 2)).toBe(5));', ""].join("\n") });
    const noRepo = await hp(p, ["verify-changes", "src/add.ts", "--test-runner", "vitest", "--record-baseline"]);
    expect(noRepo.envelope.data).toEqual({ recorded: false, reason: "not a git repository: a baseline is keyed by commit", commit: null, runner: "vitest", failures: null, cached: false });
    gitCommit(p.root);

    const recorded = await hp(p, ["verify-changes", "src/add.ts", "--test-runner", "vitest", "--record-baseline"]);
    expect(recorded.code).toBe(0);
    expect(recorded.envelope.data).toMatchObject({ recorded: true, runner: "vitest", failures: ["test/add.test.ts > was already red"], cached: false });
    expect(recorded.envelope.data.reason).toMatch(/^recorded 1 pre-existing failure\(s\) at [0-9a-f]{8}$/);
    const again = await hp(p, ["verify-changes", "src/add.ts", "--test-runner", "vitest", "--record-baseline"]);
    expect(again.envelope.data).toMatchObject({ recorded: false, cached: true, failures: ["test/add.test.ts > was already red"] });

    const same = await hp(p, ["verify-changes", "src/add.ts", "--test-runner", "vitest", "--use-baseline"]);
    expect(same.code, same.stdout).toBe(0);
    expect(same.envelope.data.baseline).toMatchObject({ source: "cache", comparable: true, preExisting: ["test/add.test.ts > was already red"], newFailures: [] });

    await edit(p, "src/add.ts", 1, "export const add = (a: number, b: number): number => a * b;");
    const broken = await hp(p, ["verify-changes", "src/add.ts", "--test-runner", "vitest", "--use-baseline"]);
    expect(broken.code).toBe(4);
    expect(broken.envelope.error!.details.baseline).toMatchObject({ comparable: true, preExisting: ["test/add.test.ts > was already red"], newFailures: ["test/add.test.ts > adds"] });

    // Another scope has no baseline: not comparable, every failure counts.
    const other = await hp(p, ["verify-changes", "src/add.ts", "--test-runner", "vitest", "--use-baseline", "--test-filter", "adds"]);
    expect(other.code).toBe(4);
    expect(other.envelope.error!.details.baseline).toMatchObject({ comparable: false, newFailures: [] });
    expect(other.envelope.error!.details.baseline.reason).toMatch(/^no baseline recorded at [0-9a-f]{8} for vitest and this scope/);
  });

  it("records what a formatter rewrote (undoable), caps each output at 256 KB, and runs nothing it cannot name", async () => {
    const p = tsProject({
      "fmt.mjs": 'import { readFileSync, writeFileSync } from "node:fs";\nfor (const f of process.argv.slice(2)) writeFileSync(f, readFileSync(f, "utf8").replace("a + b", "a+b"));\n',
      "noisy.mjs": 'process.stdout.write("x".repeat(300 * 1024));\n',
    });
    const r = await hp(p, ["verify-changes", "src/add.ts", "--formatter", "node fmt.mjs", "--linter", "node noisy.mjs"]);
    expect(r.code, r.stdout.slice(0, 500)).toBe(0);
    const data = r.envelope.data;
    expect(data.checksRun).toEqual(["formatter", "linter"]);
    expect(data.formatted).toEqual([p.path("src/add.ts")]);
    expect(p.read("src/add.ts")).toBe(ADD.replace("a + b", "a+b"));
    expect(data.linter).toMatchObject({ passed: true, truncated: true, command: "node noisy.mjs src/add.ts" });
    expect(data.linter.output.length).toBe(256 * 1024);
    expect(r.stdout.length).toBeLessThan(300 * 1024);
    const undo = await hp(p, ["undo", data.changeSetId]);
    expect(undo.code).toBe(0);
    expect(p.read("src/add.ts")).toBe(ADD);

    const none = await hp(p, ["verify-changes", "src/add.ts"]);
    expect(none.code).toBe(4);
    expect(none.envelope.error).toMatchObject({ code: "VERIFY_NO_CHECKS", details: { overall: "skipped", checksRun: [] } });
    expect(none.envelope.warnings.map((w) => w.code)).toEqual(["VERIFY_NO_CHECKS"]);

    const inline = await hp(p, ["verify-changes", "src/add.ts", "--linter", "node -e process.exit(0)"]);
    expect(inline.code).toBe(1);
    expect(inline.envelope.error!.message).toBe('the linter command "node -e process.exit(0) src/add.ts" is refused: -e would run arbitrary code');
    expect(readFileSync(p.path("src/add.ts"), "utf8")).toBe(ADD);
  });

  it("refuses before anything runs (exit 1): inline code behind combined flags or a wrapper, and a path outside the root", async () => {
    const p = hashpilotProject({
      "src/add.ts": ADD,
      "fmt.mjs": 'import { readFileSync, writeFileSync } from "node:fs";\nfor (const f of process.argv.slice(2)) writeFileSync(f, readFileSync(f, "utf8").replace("a + b", "a+b"));\n',
    });
    const outside = space.dir("verify-outside-");
    writeFileSync(join(outside, "o.ts"), ADD);
    const marker = (name: string) => `"require('fs').writeFileSync('${name}', '')"`;

    const combined = await hp(p, ["verify-changes", "src/add.ts", "--formatter", `node -pe ${marker("pe-ran")}`]);
    expect(combined.code).toBe(1);
    expect(combined.envelope.error).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: `the formatter command "node -pe require('fs').writeFileSync('pe-ran', '') src/add.ts" is refused: -pe would run arbitrary code`,
    });
    const wrapped = await hp(p, ["verify-changes", "src/add.ts", "--linter", `npx node -e ${marker("npx-ran")}`]);
    expect(wrapped.code).toBe(1);
    expect(wrapped.envelope.error).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: `the linter command "npx node -e require('fs').writeFileSync('npx-ran', '') src/add.ts" is refused: -e would run arbitrary code`,
    });
    expect([existsSync(p.path("pe-ran")), existsSync(p.path("npx-ran"))]).toEqual([false, false]);

    const escaped = await hp(p, ["verify-changes", "src/add.ts", "--formatter", "node fmt.mjs", "--formatter-args", join(outside, "o.ts")]);
    expect(escaped.code).toBe(1);
    expect(escaped.envelope.error).toMatchObject({
      code: "PATH_DENIED",
      message: `the formatter command "node fmt.mjs ${join(outside, "o.ts")} src/add.ts" is refused: ${join(outside, "o.ts")} is outside the project root`,
    });
    expect([readFileSync(join(outside, "o.ts"), "utf8"), p.read("src/add.ts")]).toEqual([ADD, ADD]);
  });

  it.skipIf(!hasPytest)("pytest by naming convention: the changed module's test file only, its failures named", async () => {
    const p = hashpilotProject({
      "pyproject.toml": '[project]\nname = "demo"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
      "pkg/__init__.py": "",
      "pkg/auth.py": "def check(token):\n    return len(token) > 0\n",
      "tests/test_auth.py": "from pkg.auth import check\n\ndef test_empty():\n    assert check('') is True\n\ndef test_full():\n    assert check('x')\n",
      "tests/test_other.py": "def test_unrelated():\n    assert False\n",
    });
    const r = await hp(p, ["verify-changes", "pkg/auth.py", "--auto-detect"]);
    expect(r.code).toBe(4);
    const details = r.envelope.error!.details;
    expect(details.detected).toEqual({ testRunner: "pytest" });
    expect(details.testScope).toEqual({ cmd: "pytest", args: ["tests/test_auth.py"], scoped: true, reason: "pytest restricted to 1 related test file(s) by naming convention" });
    expect(details.tests.output).toContain("FAILED tests/test_auth.py::test_empty");
    expect(details.tests.output).not.toContain("test_unrelated");
  });
});
