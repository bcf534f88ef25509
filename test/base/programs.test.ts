// Programs on PATH (base/programs.ts): the first executable of the name in an absolute entry; a
// relative entry (`.`) is never searched, so a file of the directory mast runs in (a cloned
// project) is never the program run.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { onPath, pathDirectories } from "../../src/base/programs.js";

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
