// verify-changes' parts that need no project: each test runner's failure-name parser on a real
// recorded run (test/fixtures/runners/, made by running vitest 4, jest 29, bun 1.4, pytest 9,
// go 1.19 and cargo 1.x on small suites with known failures), each runner's scoping, and the
// command allow-list that keeps a check from running inline code.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mast-cmd-")));
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "mast-cmd-outside-")));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  const put = (dir: string, rel: string, text = "#!/bin/sh\nexit 0\n") => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text, { mode: 0o755 });
    return join(dir, rel);
  };
  const eslint = put(root, "node_modules/.bin/eslint");
  put(root, "fmt.mjs", "");
  put(root, "tools/eslint");
  put(root, "tools/evil");
  put(outside, "eslint");
  put(outside, "sub/cfg.js", "");
  put(outside, "evil.js", "");
  symlinkSync(join(outside, "evil.js"), join(root, "link.js"));
  symlinkSync(join(outside, "sub"), join(root, "out"));
  mkdirSync(join(root, "bin"));
  symlinkSync(join(outside, "eslint"), join(root, "bin/eslint"));
  symlinkSync(join(outside, "nothing.js"), join(root, "dangling.js"));
  /** "CODE: reason" for a refused command line, null for one that would run. */
  const refused = (line: string) => {
    try {
      checkCommand("linter", splitCommand(line), root);
      return null;
    } catch (err) {
      const message = (err as Error).message;
      return `${(err as { code: string }).code}: ${message.includes(" is refused: ") ? message.slice(message.indexOf(" is refused: ") + 13) : message}`;
    }
  };

  it("splits words without a shell: quotes group, nothing expands", () => {
    expect(splitCommand(`eslint --rule 'no-console: off' "a b.ts" $HOME;ls`)).toEqual(["eslint", "--rule", "no-console: off", "a b.ts", "$HOME;ls"]);
    expect(() => splitCommand("eslint 'open")).toThrow(/unbalanced/);
  });
  it("refuses programs off the list and the flags that run inline code", () => {
    expect(refused("sh -c ls")).toMatch(/^INVALID_ARGUMENT: the linter command runs "sh", which is not an allowed check program/);
    expect(refused("node -e 1")).toBe("INVALID_ARGUMENT: -e would run arbitrary code");
    expect(refused("node --eval=1")).toBe("INVALID_ARGUMENT: --eval=1 would run arbitrary code");
    expect(refused("python3 -c print(1)")).toBe("INVALID_ARGUMENT: python runs only as `python -m pytest` or `python -m mypy`");
    expect(refused("python -m http.server")).toBe("INVALID_ARGUMENT: python runs only as `python -m pytest` or `python -m mypy`");
    expect(refused("go run ./cmd")).toBe("INVALID_ARGUMENT: go runs only as `go vet`, `go test` or `go build`");
    expect(refused("cargo --config target.x.runner=sh test")).toBe("INVALID_ARGUMENT: --config would run arbitrary code");
    expect(refused("bun run x.ts")).toBe("INVALID_ARGUMENT: bun runs only as `bun test`");
  });
  it("reads flags as each program does: combined short options, values attached, --opt=value, node's --a_b, go's -flag, argparse's abbreviations", () => {
    const cases: Array<[string, string]> = [
      ["node -pe 1", "-pe"],
      ["node -ep 1", "-ep"],
      ["node -e'process.exit(0)'", "-eprocess.exit(0)"],
      ["node -rmod fmt.mjs", "-rmod"],
      ["node -ir fmt.mjs", "-ir"],
      ["node --print=1", "--print=1"],
      ["node --import=./x.mjs fmt.mjs", "--import=./x.mjs"],
      ["node --experimental_loader=./x.mjs fmt.mjs", "--experimental_loader=./x.mjs"],
      ["node --inspect=0.0.0.0:9229 fmt.mjs", "--inspect=0.0.0.0:9229"],
      ["vitest run --api.host=0.0.0.0", "--api.host=0.0.0.0"],
      ["bun test -pe 1", "-pe"],
      ["bun test --preload=./x.ts", "--preload=./x.ts"],
      ["cargo -Zunstable-options check", "-Zunstable-options"],
      ["cargo check --config=build.rustc-wrapper=x", "--config=build.rustc-wrapper=x"],
      ["go test -toolexec=x ./...", "-toolexec=x"],
      ["go test --exec x ./...", "--exec"],
      ["go vet -vettool=x ./...", "-vettool=x"],
      ["go build -ldflags=-extld=x .", "-ldflags=-extld=x"],
      ["mypy --python-exec=python9 .", "--python-exec=python9"],
      ["mypy --install-types --non-interactive .", "--install-types"],
      ["pytest --pyargs os", "--pyargs"],
      ["python3 -m pytest --pdbcls=x:y", "--pdbcls=x:y"],
    ];
    expect(cases.map(([line]) => refused(line))).toEqual(cases.map(([, flag]) => `INVALID_ARGUMENT: ${flag} would run arbitrary code`));
    expect(refused("python3 -m pytest -p evil")).toBe("INVALID_ARGUMENT: -p loads a plugin module (only -p no:<name> turns one off)");
    expect(refused("pytest -vpevil")).toBe("INVALID_ARGUMENT: -vpevil loads a plugin module (only -p no:<name> turns one off)");
    expect(refused("python3 -m pytest -o 'addopts=-p evil'")).toBe("INVALID_ARGUMENT: -p loads a plugin module (only -p no:<name> turns one off)");
    expect(refused("pytest --override-ini=addopts=--pyargs")).toBe("INVALID_ARGUMENT: --pyargs would run arbitrary code");
    expect(refused("python3 -m pytest -p no:cacheprovider -pno:randomly -rfp -kplugin -o addopts= -q")).toBeNull();
    expect(refused("python3 -m mypy .")).toBeNull();
  });
  it("a wrapper (npx, npm exec, bunx, pnpm exec) is never run: the program it names runs itself, checked by its own rule", () => {
    expect(refused("npx node -e 1")).toBe("INVALID_ARGUMENT: -e would run arbitrary code");
    expect(refused("npx --yes node -pe 1")).toBe("INVALID_ARGUMENT: -pe would run arbitrary code");
    expect(refused("npm exec -- node -e 1")).toBe("INVALID_ARGUMENT: -e would run arbitrary code");
    expect(refused("npx npm exec python3 -m pytest -p evil")).toBe("INVALID_ARGUMENT: -p loads a plugin module (only -p no:<name> turns one off)");
    expect(refused("npx -c 'rm -rf /'")).toBe("INVALID_ARGUMENT: npx takes only --yes, -y, --no, --quiet, -q before the program, not -c");
    expect(refused("npm exec --call 'node -e 1'")).toBe("INVALID_ARGUMENT: npm exec takes only --yes, -y, --no before the program, not --call");
    expect(refused("npm run lint")).toBe("INVALID_ARGUMENT: npm runs only as `npm exec <program>`");
    expect(refused("pnpm dlx eslint")).toBe("INVALID_ARGUMENT: pnpm runs only as `pnpm exec <program>`");
    expect(refused("bunx --bun eslint")).toBe("INVALID_ARGUMENT: bunx takes no flags before the program, not --bun");
    expect(refused("yarn eslint")).toMatch(/^INVALID_ARGUMENT: yarn runs a package.json script before a program of the same name/);
    expect(refused("npx")).toBe("INVALID_ARGUMENT: npx names no program");
    expect(refused("npx cowsay")).toMatch(/^INVALID_ARGUMENT: the linter command runs "cowsay", which is not an allowed check program/);
    for (const line of ["npx eslint --fix", "npx -y -- eslint --fix", "npm exec -- eslint --fix", "bunx eslint --fix", "pnpm exec eslint --fix"]) {
      expect(checkCommand("linter", splitCommand(line), root)).toEqual({ program: "eslint", path: eslint, args: ["--fix"] });
    }
  });
  it("refuses, as PATH_DENIED, any argument naming a path outside the root: absolute, .., ~, through a symlink, in any option form", () => {
    const out = (p: string) => `PATH_DENIED: ${p} is outside the project root`;
    expect(refused(`rustfmt ${outside}/o.rs`)).toBe(out(`${outside}/o.rs`));
    expect(refused(`node ${outside}/evil.js`)).toBe(out(`${outside}/evil.js`));
    expect(refused(`cargo check --manifest-path ${outside}/Cargo.toml`)).toBe(out(`${outside}/Cargo.toml`));
    expect(refused(`cargo check --manifest-path=${outside}/Cargo.toml`)).toBe(out(`${outside}/Cargo.toml`));
    expect(refused(`tsc --noEmit -p${outside}/tsconfig.json`)).toBe(out(`${outside}/tsconfig.json`));
    expect(refused("node ../evil.js")).toBe(out("../evil.js"));
    expect(refused("eslint -c=../cfg.js")).toBe(out("../cfg.js"));
    expect(refused(`jest --config={"globalSetup":"${outside}/setup.js"}`)).toBe(out(`${outside}/setup.js`));
    expect(refused("jest --rootDir <rootDir>/..")).toBe(out("<rootDir>/.."));
    expect(refused(`pytest -o cache_dir=${outside}`)).toBe(out(outside));
    expect(refused(`mypy @${outside}/args.txt`)).toBe(out(`${outside}/args.txt`));
    expect(refused(`cargo +${outside}/toolchain check`)).toBe(out(`${outside}/toolchain`));
    expect(refused("node ~/evil.js")).toBe("PATH_DENIED: ~/evil.js names a home directory, outside the project root");
    expect(refused("node link.js")).toBe(`PATH_DENIED: link.js resolves through a symlink to ${outside}/evil.js, outside the project root`);
    // The program opens out/../evil.js as the system resolves it: up from the symlink's target, not back to the root.
    expect(refused("node out/../evil.js")).toBe(`PATH_DENIED: out/../evil.js resolves through a symlink to ${outside}/evil.js, outside the project root`);
    expect(refused("eslint --config=out/cfg.js")).toBe(`PATH_DENIED: out/cfg.js resolves through a symlink to ${outside}/sub/cfg.js, outside the project root`);
    expect(refused("node dangling.js")).toBe(`PATH_DENIED: dangling.js resolves through a symlink to ${outside}/nothing.js, outside the project root`);
    symlinkSync("loop-b", join(root, "loop-a"));
    symlinkSync("loop-a", join(root, "loop-b"));
    expect(refused("node loop-a")).toBe("PATH_DENIED: loop-a resolves through a symlink loop");
    // Inside the root, whatever the form: relative, absolute, a scoped package name, a rule with a colon.
    expect(refused("node ./tools/../fmt.mjs")).toBeNull();
    expect(checkCommand("linter", splitCommand(`eslint --plugin @typescript-eslint --rule '@typescript-eslint/no-unused-vars: off' -c./fmt.mjs ${root}/fmt.mjs src/new.ts`), root).args).toEqual([
      "--plugin",
      "@typescript-eslint",
      "--rule",
      "@typescript-eslint/no-unused-vars: off",
      "-c./fmt.mjs",
      `${root}/fmt.mjs`,
      "src/new.ts",
    ]);
  });
  it("a program named by a path runs only when its name is allowed and it resolves inside the root", () => {
    expect(checkCommand("linter", ["./tools/eslint", "a.ts"], root)).toEqual({ program: "./tools/eslint", path: join(root, "tools/eslint"), args: ["a.ts"] });
    expect(refused("./tools/evil")).toMatch(/^INVALID_ARGUMENT: the linter command runs "\.\/tools\/evil", which is not an allowed check program/);
    expect(refused(`${outside}/eslint`)).toBe(`PATH_DENIED: ${outside}/eslint is outside the project root`);
    expect(refused("bin/eslint")).toBe(`PATH_DENIED: bin/eslint resolves through a symlink to ${outside}/eslint, outside the project root`);
    expect(refused("/usr/bin/node fmt.mjs")).toBe("PATH_DENIED: /usr/bin/node is outside the project root");
  });
  it("finds programs in node_modules/.bin, and says when one is not installed", () => {
    expect(refused("prettier")).toBe("FILE_NOT_FOUND: the linter program prettier is not installed (not in node_modules/.bin or on PATH)");
    expect(checkCommand("linter", ["eslint", "a.ts"], root)).toEqual({ program: "eslint", path: eslint, args: ["a.ts"] });
  });
});
