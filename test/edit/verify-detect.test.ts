// verify's auto-detection from a pyproject.toml or a Cargo.toml (edit/verify.ts detectChecks), read
// as TOML: a tool named by its [tool.x] table, a requirement string or a Poetry dependency key, not
// by a word in a comment or a longer package's name; Cargo's edition from [package] in any TOML
// form. Programs are "installed" as executables in the project's node_modules/.bin, which
// findProgram searches first (no global state of the machine is read for them).
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { detectChecks } from "../../src/edit/verify.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A project with `manifest` written and `programs` executable in its node_modules/.bin. */
function project(manifest: Record<string, string>, programs: readonly string[]): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "mast-detect-")));
  dirs.push(dir);
  for (const [name, text] of Object.entries(manifest)) writeFileSync(join(dir, name), text);
  mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
  for (const p of programs) {
    writeFileSync(join(dir, "node_modules", ".bin", p), "#!/bin/sh\nexit 0\n");
    chmodSync(join(dir, "node_modules", ".bin", p), 0o755);
  }
  return dir;
}

const TOOLS = ["black", "ruff", "mypy", "pytest"];

describe("verify's auto-detection from TOML manifests", () => {
  it("names a Python tool by its [tool.x] table, a requirement or a Poetry dependency key", () => {
    const dir = project(
      {
        "pyproject.toml": [
          "[project]",
          'name = "app"',
          'dependencies = ["ruff >= 0.5", "requests"]',
          "[tool.black]",
          "line-length = 100",
          "[tool.poetry.group.dev.dependencies]",
          'pytest = "^8"',
        ].join("\n"),
      },
      TOOLS,
    );
    const found = detectChecks(dir, dir);
    expect({ formatter: found.formatter, linter: found.linter, typecheck: found.typecheck, runner: found.testRunner?.name }).toEqual({
      formatter: "black",
      linter: "ruff check",
      typecheck: undefined,
      runner: "pytest",
    });
  });

  it("does not take a word in a comment, or a longer package's name, for the tool", () => {
    const dir = project({ "pyproject.toml": '# we used to run mypy and black here\n[project]\nname = "app"\ndependencies = ["pytest-cov", "mypy-extensions"]\n' }, TOOLS);
    const found = detectChecks(dir, dir);
    expect([found.formatter, found.linter, found.typecheck, found.testRunner]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("reads nothing from a pyproject.toml TOML cannot read", () => {
    const dir = project({ "pyproject.toml": '[tool.black\nline-length = 100\n"pytest"\n' }, TOOLS);
    expect(detectChecks(dir, dir)).toEqual({ dir });
  });

  it("takes Cargo's edition from [package], a dotted key or a literal string, and none it cannot read", () => {
    const programs = ["cargo", "rustfmt"];
    const edition = (toml: string) => {
      const dir = project({ "Cargo.toml": toml }, programs);
      return detectChecks(dir, dir).formatter;
    };
    expect(edition('[package]\nname = "r"\nedition = "2021"\n')).toBe("rustfmt --edition 2021");
    expect(edition("package.name = 'r'\npackage.edition = '2024' # latest\n")).toBe("rustfmt --edition 2024");
    // Inherited from the workspace: no year here, rustfmt's own default.
    expect(edition('[package]\nname = "r"\nedition.workspace = true\n')).toBe("rustfmt");
    expect(edition('[package\nedition = "2021"\n')).toBe("rustfmt");
  });
});
