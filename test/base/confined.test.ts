// A directory swapped for a symlink between a boundary check and the open (the renameat2 race of
// an attacker inside a cloned project) reaches nothing outside: each test checks the path first,
// swaps `src/race` for a symlink to an outside directory, then reads, writes, creates, removes or
// indexes through the checked path — the interleaving the race produces, made deterministic.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { writeAtomic } from "../../src/base/atomic.js";
import { makeDirectories, pinDirectory, removePinned } from "../../src/base/confined.js";
import { readRegularFile } from "../../src/base/read.js";
import { projectBoundary, readablePath, writablePath } from "../../src/edit/paths.js";
import { readBytes } from "../../src/edit/writer.js";
import { readForIndex } from "../../src/index/read.js";

let root: string;
let outside: string;

/** src/race becomes a symlink to the outside directory (the real directory moves aside, as RENAME_EXCHANGE leaves it). */
function swap(): void {
  renameSync(join(root, "src/race"), join(root, "src/race-moved"));
  symlinkSync(outside, join(root, "src/race"));
}

beforeEach(() => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "mast-race-")));
  root = join(base, "project");
  outside = join(base, "outside");
  mkdirSync(join(root, "src/race"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, "src/race/a.ts"), "export const inside = 1;\n");
  writeFileSync(join(outside, "a.ts"), "export const SECRET = 1;\n");
});

const outsideNames = () => readdirSync(outside).sort();

describe("a path checked, then swapped for a symlink out of the root", () => {
  it("read: the editing tools' read refuses it with PATH_DENIED and returns no outside byte", () => {
    const b = projectBoundary(root);
    const { real } = readablePath("src/race/a.ts", b, root);
    swap();
    expect(() => readBytes(real)).toThrow(expect.objectContaining({ code: "PATH_DENIED" }));
    expect(readRegularFile(real, { maxBytes: 1000, expect: real }).kind).toBe("redirected");
  });

  it("index: the file is a read error, never outside content", () => {
    swap();
    const r = readForIndex("src/race/a.ts", join(root, "src/race/a.ts"), 1000);
    expect(r.kind).toBe("read_error");
    expect(JSON.stringify(r)).not.toContain("SECRET");
  });

  it("write: PATH_DENIED, the outside file keeps its bytes and no temp file is created outside", () => {
    const real = writablePath("src/race/a.ts", projectBoundary(root), root);
    swap();
    expect(() => writeAtomic(real, Buffer.from("pwned\n"), { pinned: true })).toThrow(expect.objectContaining({ code: "PATH_DENIED" }));
    expect(readFileSync(join(outside, "a.ts"), "utf8")).toBe("export const SECRET = 1;\n");
    expect(outsideNames()).toEqual(["a.ts"]);
  });

  it("create: a new file's directories are made under pinned parents, never through the symlink", () => {
    const real = writablePath("src/race/new/deep/b.ts", projectBoundary(root), root);
    swap();
    expect(() => makeDirectories(realpathSync(root), join(real, ".."))).toThrow(expect.objectContaining({ code: "PATH_DENIED" }));
    expect(outsideNames()).toEqual(["a.ts"]);
  });

  it("a directory renamed away mid-operation is PATH_DENIED, never an internal error", () => {
    // makeDirectories pins each directory it made by its path: renamed away in between, it is gone.
    const real = writablePath("src/race/a.ts", projectBoundary(root), root);
    renameSync(join(root, "src/race"), join(root, "src/race-moved"));
    expect(() => pinDirectory(join(root, "src/race"))).toThrow(expect.objectContaining({ code: "PATH_DENIED" }));
    expect(() => writeAtomic(real, Buffer.from("x\n"), { pinned: true })).toThrow(expect.objectContaining({ code: "PATH_DENIED" }));
    expect(existsSync(real)).toBe(false);
  });

  it("remove: an undo's delete does not remove the outside file", () => {
    const real = writablePath("src/race/a.ts", projectBoundary(root), root);
    swap();
    expect(() => removePinned(real)).toThrow(expect.objectContaining({ code: "PATH_DENIED" }));
    expect(existsSync(join(outside, "a.ts"))).toBe(true);
  });

  it("unswapped, the same calls read, write, create and remove inside the root", () => {
    const b = projectBoundary(root);
    const real = writablePath("src/race/a.ts", b, root);
    writeAtomic(real, Buffer.from("export const inside = 2;\n"), { pinned: true });
    expect(readBytes(real)?.toString()).toBe("export const inside = 2;\n");
    const created = writablePath("src/race/new/deep/b.ts", b, root);
    makeDirectories(realpathSync(root), join(created, ".."));
    writeAtomic(created, Buffer.from("x\n"), { pinned: true });
    expect(readFileSync(join(root, "src/race/new/deep/b.ts"), "utf8")).toBe("x\n");
    expect(removePinned(created)).toBe(true);
    expect(existsSync(created)).toBe(false);
  });

  it("a dangling symlink inside the project is never replaced by a file (PATH_DENIED)", () => {
    symlinkSync(join(outside, "gone.ts"), join(root, "src/link.ts"));
    expect(() => writablePath("src/link.ts", projectBoundary(root), root)).toThrow(expect.objectContaining({ code: "PATH_DENIED" }));
  });
});

describe("what is refused is refused in any case", () => {
  it(".GIT/hooks is .git on macOS and Windows: PATH_DENIED for writes and reads", () => {
    const b = projectBoundary(root);
    expect(() => writablePath(".GIT/hooks/pre-commit", b, root)).toThrow(expect.objectContaining({ code: "PATH_DENIED" }));
    expect(() => readablePath("sub/.Git/config", b, root)).toThrow(expect.objectContaining({ code: "PATH_DENIED" }));
    expect(writablePath("src/gitlike.ts", b, root)).toBe(join(root, "src/gitlike.ts"));
  });
});
