// verify-changes' parts that need no project: each test runner's failure-name parser on a real
// recorded run (test/fixtures/runners/, made by running vitest 4, jest 29, bun 1.4, pytest 9,
// go 1.19 and cargo 1.x on small suites with known failures), each runner's scoping, and the
// command allow-list that keeps a check from running inline code.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkCommand, splitCommand } from "../../src/edit/commands.js";
import { RUNNERS, runnerNamed, stripAnsi } from "../../src/edit/test-runners.js";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "runners");
const recorded = (name: string) => stripAnsi(readFileSync(join(FIXTURES, `${name}.txt`), "utf8"));

describe("failure names from each runner's real output", () => {
  it("vitest: the FAIL lines, file > describe > test", () => {
    expect(RUNNERS.vitest.failures(recorded("vitest"))).toEqual(["test/add.test.ts > add > breaks", "test/add.test.ts > add > nested > also breaks", "test/other.test.ts > top level fails"]);
  });
  it("jest: the ● lines, a suite that failed to run named by its file", () => {
    expect(RUNNERS.jest.failures(recorded("jest"))).toEqual(["add › breaks", "add › nested › also breaks", "top level fails", "src/broken.test.js: Test suite failed to run"]);
  });
  it("bun test: the (fail) lines without their times", () => {
    expect(RUNNERS["bun test"].failures(recorded("bun"))).toEqual(["add > breaks", "add > nested > also breaks", "top level fails"]);
  });
  it("pytest: the short summary's FAILED node ids", () => {
    expect(RUNNERS.pytest.failures(recorded("pytest"))).toEqual(["test_sample.py::test_bad", "test_sample.py::TestGroup::test_inner"]);
  });
  it("go test: --- FAIL tests and subtests, and a package that did not build", () => {
    expect(RUNNERS["go test"].failures(recorded("go"))).toEqual(["TestBreaks", "TestSub", "TestSub/inner", "example.com/gt/sub [build failed]"]);
  });
  it("cargo test: FAILED tests named by their target, across targets (--no-fail-fast)", () => {
    expect(RUNNERS["cargo test"].failures(recorded("cargo"))).toEqual(["src/lib.rs::tests::breaks", "tests/api.rs::integration_fails"]);
  });
});

describe("test scoping", () => {
  const root = mkdtempSync(join(tmpdir(), "mast-scope-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const put = (rel: string) => {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), "");
    return join(root, rel);
  };
  const auth = put("pkg/auth.py");
  put("tests/test_auth.py");
  put("node_modules/x/test_auth.py");
  const lonely = put("pkg/lonely.py");
  const util = put("src/util.ts");
  put("src/util.test.ts");
  const goFile = put("internal/db/db.go");
  const rsTest = put("tests/api.rs");
  const rsLib = put("src/lib.rs");

  it("pytest and bun find tests by name, never in node_modules; none found runs the whole suite and says so", () => {
    expect(RUNNERS.pytest.scope(root, [auth])).toEqual({ args: ["tests/test_auth.py"], scoped: true, reason: "pytest restricted to 1 related test file(s) by naming convention" });
    expect(RUNNERS.pytest.scope(root, [lonely])).toEqual({ args: [], scoped: false, reason: "no test file is named after the changed files, so pytest ran the whole suite" });
    expect(RUNNERS["bun test"].scope(root, [util]).args).toEqual(["src/util.test.ts"]);
  });
  it("vitest and jest ask the runner for related tests; go by package; cargo by integration target", () => {
    expect(RUNNERS.vitest.scope(root, [util]).args).toEqual(["related", "--run", "src/util.ts"]);
    expect(RUNNERS.jest.scope(root, [util]).args).toEqual(["--findRelatedTests", "src/util.ts"]);
    expect(RUNNERS["go test"].scope(root, [goFile])).toMatchObject({ args: ["./internal/db"], scoped: true });
    expect(RUNNERS["go test"].scope(root, [goFile, util])).toMatchObject({ args: ["./..."], scoped: false });
    expect(RUNNERS["cargo test"].scope(root, [rsTest])).toMatchObject({ args: ["--test", "api"], scoped: true });
    expect(RUNNERS["cargo test"].scope(root, [rsLib])).toMatchObject({ args: [], scoped: false });
  });
  it("names a runner by its aliases, and refuses one it does not know", () => {
    expect(runnerNamed("bun").name).toBe("bun test");
    expect(runnerNamed("python -m pytest").name).toBe("pytest");
    expect(() => runnerNamed("mocha")).toThrow(/--test-runner takes one of/);
  });
});

describe("the commands a check may run", () => {
  const root = mkdtempSync(join(tmpdir(), "mast-cmd-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const refused = (line: string) => {
    try {
      checkCommand("linter", splitCommand(line), root);
      return null;
    } catch (err) {
      return `${(err as { code: string }).code}: ${(err as Error).message}`;
    }
  };

  it("splits words without a shell: quotes group, nothing expands", () => {
    expect(splitCommand(`eslint --rule 'no-console: off' "a b.ts" $HOME;ls`)).toEqual(["eslint", "--rule", "no-console: off", "a b.ts", "$HOME;ls"]);
    expect(() => splitCommand("eslint 'open")).toThrow(/unbalanced/);
  });
  it("refuses programs off the list, paths, and the flags that run inline code", () => {
    expect(refused("sh -c ls")).toMatch(/^INVALID_ARGUMENT: the linter command runs "sh", which is not an allowed check program/);
    expect(refused("/usr/bin/node x.js")).toMatch(/not an allowed check program/);
    expect(refused("node -e 1")).toBe('INVALID_ARGUMENT: the linter command "node -e 1" is refused: -e would run arbitrary code');
    expect(refused("node --eval=1")).toMatch(/--eval=1 would run arbitrary code/);
    expect(refused("python3 -c print(1)")).toMatch(/-c would run arbitrary code/);
    expect(refused("python -m http.server")).toMatch(/python runs only as `python -m pytest` or `python -m mypy`/);
    expect(refused("go run ./cmd")).toMatch(/go runs only as/);
    expect(refused("cargo --config target.x.runner=sh test")).toMatch(/--config/);
    expect(refused("npx -c 'rm -rf /'")).toMatch(/-c would run arbitrary code/);
    expect(refused("npx cowsay")).toMatch(/npx runs only an allowed program/);
    expect(refused("bun run x.ts")).toMatch(/bun runs only as `bun test`/);
  });
  it("allows python -m pytest and python -m mypy, finds programs in node_modules/.bin, and says when one is not installed", () => {
    expect(refused("python3 -m pytest -q")).toBeNull();
    expect(refused("python3 -m mypy .")).toBeNull();
    expect(refused("eslint")).toBe("FILE_NOT_FOUND: the linter program eslint is not installed (not in node_modules/.bin or on PATH)");
    mkdirSync(join(root, "node_modules", ".bin"), { recursive: true });
    writeFileSync(join(root, "node_modules", ".bin", "eslint"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    expect(checkCommand("linter", ["eslint", "a.ts"], root)).toEqual({ program: "eslint", path: join(root, "node_modules", ".bin", "eslint"), args: ["a.ts"] });
  });
});
