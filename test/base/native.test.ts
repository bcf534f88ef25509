// Tests for the native lstat of base/native.ts against fs.lstatSync on real files: every kind of
// entry, a missing path, a batch large enough to be split over two threads, the async form, and
// the fs fallback (MAST_NATIVE=0) giving the same answer. Also the walk's files stat'ed after their
// listing: one gone or replaced by a symlink in between is a problem or a skipped symlink.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { STAT_WORDS, StatKind, lstatMany, lstatManyAsync, nativeAddon, splitPaths, statMany } from "../../src/base/native.js";
import { compileGlobs } from "../../src/base/glob.js";
import { listProject, walkedFileAt } from "../../src/index/walk.js";

let dir: string;
const at = (name: string) => path.join(dir, name);

/** What fs.lstatSync (fs.statSync with `follow`) says of each path, in lstatMany's layout. */
function expected(paths: readonly string[], follow = false): number[] {
  return paths.flatMap((p) => {
    let st: fs.Stats | undefined;
    try {
      st = (follow ? fs.statSync : fs.lstatSync)(p);
    } catch {
      return [StatKind.NONE, 0, 0, 0, 0]; // ENOENT, ENOTDIR
    }
    const kind = st.isFile() ? StatKind.FILE : st.isDirectory() ? StatKind.DIR : st.isSymbolicLink() ? StatKind.SYMLINK : StatKind.OTHER;
    return [kind, st.size, st.mtimeMs, st.ino, st.ctimeMs];
  });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-native-stat-"));
  fs.writeFileSync(at("a.ts"), "export const a = 1;\n");
  fs.mkdirSync(at("sub"));
  fs.symlinkSync("a.ts", at("link.ts"));
  fs.symlinkSync("gone.ts", at("dangling.ts"));
  execFileSync("mkfifo", [at("pipe")]);
  fs.mkdirSync(at("many"));
  for (let i = 0; i < 5000; i++) fs.writeFileSync(at(`many/f${i}.ts`), "x".repeat(i % 97));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("lstatMany", () => {
  it("answer as fs.lstatSync does for a file, a directory, a symlink, a FIFO and a missing path", async () => {
    expect(nativeAddon).not.toBeNull();
    const paths = ["a.ts", "sub", "link.ts", "pipe", "absent.ts", "a.ts/under-a-file"].map(at);
    const stats = lstatMany(paths);
    expect(Array.from(stats.subarray(0, STAT_WORDS * 5).filter((_, i) => i % STAT_WORDS === 0))).toEqual([StatKind.FILE, StatKind.DIR, StatKind.SYMLINK, StatKind.OTHER, StatKind.NONE]);
    expect(Array.from(stats)).toEqual(expected(paths));
    expect(stats[1]).toBe(20); // a.ts's size
    expect(Array.from(await lstatManyAsync(paths))).toEqual(expected(paths));
  });

  it("answer a batch split over two threads in the paths' order", async () => {
    const paths = Array.from({ length: 5000 }, (_, i) => at(`many/f${4999 - i}.ts`));
    const want = expected(paths);
    expect(Array.from(lstatMany(paths))).toEqual(want);
    expect(Array.from(await lstatManyAsync(paths))).toEqual(want);
    expect(want[STAT_WORDS * 4999 + 1]).toBe(0); // f0.ts, last: empty
    expect(want[1]).toBe(4999 % 97);
  });

  it("read a path holding a NUL as not stat'ed, and an empty list as empty", async () => {
    expect(Array.from(lstatMany([at("a.ts"), `${at("a.ts")}\0x`]))).toEqual([...expected([at("a.ts")]), 0, 0, 0, 0, 0]);
    expect(Array.from(await lstatManyAsync([at("a.ts"), `${at("a.ts")}\0x`]))).toEqual([...expected([at("a.ts")]), 0, 0, 0, 0, 0]);
    expect(lstatMany([]).length).toBe(0);
    expect((await lstatManyAsync([], `${dir}/`)).length).toBe(0);
  });

  it("take a list as its UTF-8 bytes as it takes its text, a non-ASCII name and a miscounted list alike", async () => {
    fs.writeFileSync(at("é-ü.ts"), "x");
    const names = ["a.ts", "é-ü.ts", "sub", "absent.ts"];
    const joined = names.join("\0");
    const bytes = Buffer.from(joined);
    // The bytes win where both are given: a text naming other files is not the one stat'ed.
    const list = { joined: "a.ts\0a.ts\0a.ts\0a.ts", count: names.length, bytes };
    expect(Array.from(lstatMany(list, `${dir}/`))).toEqual(expected(names.map(at)));
    expect(Array.from(await lstatManyAsync(list, `${dir}/`))).toEqual(expected(names.map(at)));
    expect(expected([at("é-ü.ts")])[0]).toBe(StatKind.FILE);
    // A count that is not the bytes' is refused by the addon, and fs answers the text's paths.
    const three = names.slice(0, 3);
    expect(Array.from(lstatMany({ joined: three.join("\0"), count: 3, bytes: bytes.subarray(0, bytes.indexOf(0)) }, `${dir}/`))).toEqual(expected(three.map(at)));
    // An empty view of a larger buffer is an empty list.
    expect(lstatMany({ joined: "", count: 0, bytes: bytes.subarray(3, 3) }).length).toBe(0);
  });

  it("join each path to a base, and read one too long for the system as not stat'ed", async () => {
    const names = ["a.ts", "sub", "link.ts", "many/f3.ts", "absent.ts"];
    expect(Array.from(lstatMany(names, `${dir}/`))).toEqual(expected(names.map(at)));
    expect(Array.from(await lstatManyAsync(names, `${dir}/`))).toEqual(expected(names.map(at)));
    expect(Array.from(lstatMany(["a.ts"], `${dir}\0/`))).toEqual([0, 0, 0, 0, 0]);
    expect(Array.from(lstatMany([`${"x/".repeat(3000)}a.ts`, "a.ts"], `${dir}/`))).toEqual([0, 0, 0, 0, 0, ...expected([at("a.ts")])]);
  });

  it("statMany: answer as fs.statSync does, a symlink read as what it points to and a dangling one as not stat'ed", () => {
    const paths = ["a.ts", "sub", "link.ts", "dangling.ts", "pipe", "absent.ts", "a.ts/under-a-file"].map(at);
    const stats = statMany(paths);
    expect(Array.from(stats.filter((_, i) => i % STAT_WORDS === 0))).toEqual([StatKind.FILE, StatKind.DIR, StatKind.FILE, StatKind.NONE, StatKind.OTHER, StatKind.NONE, StatKind.NONE]);
    expect(Array.from(stats)).toEqual(expected(paths, true));
    // The link's answer is a.ts's own: its size and inode.
    expect(Array.from(stats.subarray(STAT_WORDS * 2, STAT_WORDS * 3))).toEqual(Array.from(stats.subarray(0, STAT_WORDS)));
    const many = Array.from({ length: 5000 }, (_, i) => at(`many/f${i}.ts`));
    expect(Array.from(statMany(many))).toEqual(expected(many, true));
  });

  it("give the same answer from fs where the addon is off (MAST_NATIVE=0)", async () => {
    const paths = ["a.ts", "sub", "link.ts", "dangling.ts", "pipe", "absent.ts", "many/f7.ts"].map(at);
    vi.stubEnv("MAST_NATIVE", "0");
    vi.resetModules();
    try {
      const fallback = await import("../../src/base/native.js");
      expect(fallback.nativeAddon).toBeNull();
      expect(Array.from(fallback.lstatMany(paths))).toEqual(expected(paths));
      expect(Array.from(await fallback.lstatManyAsync(paths))).toEqual(expected(paths));
      expect(Array.from(fallback.statMany(paths))).toEqual(expected(paths, true));
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});

describe("the walk's files, stat'ed after the listing", () => {
  it("report a file gone since it was listed, count one replaced by a symlink, and take one recreated since as it is", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "mast-walk-late-"));
    try {
      for (const name of ["a.ts", "b.ts", "c.ts"]) fs.writeFileSync(path.join(root, name), "x\n");
      const listing = listProject({ root, extensions: [".ts"], exclude: compileGlobs([]), respectGitignore: false, skipDirs: [] });
      expect([splitPaths(listing.kept).sort(), listing.base]).toEqual([["a.ts", "b.ts", "c.ts"], `${root}/`]);
      fs.rmSync(path.join(root, "b.ts"));
      fs.rmSync(path.join(root, "c.ts"));
      fs.symlinkSync("a.ts", path.join(root, "c.ts"));
      const walk = listing.finish(lstatMany(listing.kept, listing.base));
      expect(walk.paths).toEqual(["a.ts"]);
      expect(walk.problems).toEqual([{ path: "b.ts", error: `ENOENT: no such file or directory` }]);
      expect(walk.skippedSymlinks).toBe(1);
      // A stat that found nothing while the file is there again (recreated since) takes it as it is now.
      const again = listProject({ root, extensions: [".ts"], exclude: compileGlobs([]), respectGitignore: false, skipDirs: [] });
      const late = again.finish(new Float64Array(again.kept.count * STAT_WORDS));
      expect([late.paths.map((path, i) => [path, walkedFileAt(late, i).size]), late.problems, late.skippedSymlinks]).toEqual([[["a.ts", 2]], [], 1]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
