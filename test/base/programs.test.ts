// Programs on PATH (base/programs.ts): the first executable of the name in an absolute entry; a
// relative entry (`.`) is never searched, so a file of the directory mast runs in (a cloned
// project) is never the program run.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { childEnvironment, onPath, pathDirectories } from "../../src/base/programs.js";
import { spawnSync } from "node:child_process";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function binDir(files: Record<string, number>): string {
  const dir = mkdtempSync(join(tmpdir(), "mast-path-"));
  dirs.push(dir);
  for (const [name, mode] of Object.entries(files)) {
    writeFileSync(join(dir, name), "#!/bin/sh\n");
    chmodSync(join(dir, name), mode);
  }
  return dir;
}

describe("onPath", () => {
  it("answers the first executable file of the name in PATH order, skipping one that is not executable or a directory", () => {
    const first = binDir({ tool: 0o644 });
    const second = binDir({});
    mkdirSync(join(second, "tool"));
    const third = binDir({ tool: 0o755 });
    const fourth = binDir({ tool: 0o755 });
    expect(onPath("tool", { PATH: [first, second, third, fourth].join(delimiter) })).toBe(join(third, "tool"));
    expect(onPath("missing", { PATH: [first, third].join(delimiter) })).toBeNull();
  });

  it("never searches a relative or empty PATH entry", () => {
    const abs = binDir({ tool: 0o755 });
    expect(pathDirectories({ PATH: ["", ".", "bin", abs].join(delimiter) })).toEqual([abs]);
    const cwd = process.cwd();
    const here = binDir({ tool: 0o755 });
    process.chdir(here);
    try {
      expect(onPath("tool", { PATH: "." })).toBeNull();
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("childEnvironment", () => {
  it("keeps every variable but cuts PATH to its absolute entries: a child run in the project never finds the project's `python`", () => {
    const abs = binDir({});
    const project = binDir({ python3: 0o755 });
    writeFileSync(join(project, "python3"), "#!/bin/sh\necho project-code-ran\n");
    expect(childEnvironment({ PATH: ["", ".", abs, "bin"].join(delimiter), HOME: "/h" })).toEqual({ PATH: abs, HOME: "/h" });
    // The shell a child might run resolves `python3` through PATH: with the relative entry gone, not to the project's file.
    const run = spawnSync("/bin/sh", ["-c", "command -v python3 || echo none"], { cwd: project, env: childEnvironment({ PATH: [".", abs].join(delimiter) }), encoding: "utf8" });
    expect(run.stdout.trim()).toBe("none");
    const unsafe = spawnSync("/bin/sh", ["-c", "python3"], { cwd: project, env: { PATH: [".", abs].join(delimiter) }, encoding: "utf8" });
    expect(unsafe.stdout.trim()).toBe("project-code-ran");
  });
});
