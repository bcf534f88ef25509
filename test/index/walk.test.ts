// Tests for the file walker on real temp directories: extension and glob filtering with pruning,
// .gitignore semantics, skipped directories and symlinks, I/O problems (provoked without fs mocks,
// also as root) and deterministic ordering.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { walkProject, walkedFileAt, type WalkOptions, type WalkResult } from "../../src/index/walk.js";
import { packWalkCache, unpackWalkCache, wellFormedInJs, type WalkCache } from "../../src/index/walk-cache.js";
import { compileGlobs, globSyntaxError } from "../../src/base/glob.js";
import { MastError } from "../../src/base/errors.js";
import { STAT_WORDS, StatKind, joinPaths, nativeTrustedListHolds } from "../../src/base/native.js";

/** Whether chmod 000 actually blocks reading a directory here (it does not for root). */
const chmodBlocksReads = (() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-walk-probe-"));
  try {
    fs.chmodSync(dir, 0o000);
    try {
      fs.readdirSync(dir);
      return false;
    } catch {
      return true;
    }
  } finally {
    fs.chmodSync(dir, 0o700);
    fs.rmSync(dir, { recursive: true, force: true });
  }
})();

/** Whether this filesystem stores names that are not valid UTF-8 (Linux filesystems do). */
const rawNamesSupported = (() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-walk-probe-"));
  try {
    fs.writeFileSync(Buffer.concat([Buffer.from(dir + "/bad"), Buffer.from([0xff]), Buffer.from(".ts")]), "x");
    return fs.readdirSync(dir)[0] === "bad\uFFFD.ts";
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
})();

const isLinux = process.platform === "linux";
const LINUX_PATH_MAX = 4095; // longest path (without the NUL) a syscall accepts

let root: string;
/** Undo steps (renames back under PATH_MAX, chmods) run before the temp dir is removed. */
let undo: Array<() => void>;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mast-walk-")));
  undo = [];
});

afterEach(() => {
  for (const step of undo.reverse()) step();
  fs.rmSync(root, { recursive: true, force: true });
});

function write(rel: string, content = "x"): void {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
}

function walk(options: Partial<Omit<WalkOptions, "exclude">> & { exclude?: string[] } = {}) {
  return walkProject({
    root,
    extensions: options.extensions ?? [".ts"],
    exclude: compileGlobs(options.exclude ?? []),
    respectGitignore: options.respectGitignore ?? true,
    skipDirs: options.skipDirs ?? [],
  });
}

const paths = (options: Parameters<typeof walk>[0] = {}) => walk(options).paths;
/** A walk's files as objects, its problems and symlinks (its columns are checked where the cache is). */
/** A walk's files as objects, from its columns. */
const filesOf = (r: Pick<WalkResult, "paths" | "stats">) => r.paths.map((_, i) => walkedFileAt(r, i));
const strip = (r: ReturnType<typeof walkProject>) => ({ files: filesOf(r), problems: r.problems, skippedSymlinks: r.skippedSymlinks });

/**
 * Builds `<root>/<parentRel>/<250 chars>/<segments…>` whose deepest directory is `length`
 * characters long (absolute), which may exceed PATH_MAX: the chain is created under a 1-char
 * name while it still fits, with `files` (names) in the deepest directory, then the top is
 * renamed to its 250-char name. The rename is undone in afterEach so the tree can be removed.
 * Returns the project-relative directories of the chain, shallowest first.
 */
function longChain(parentRel: string, length: number, files: string[] = []): string[] {
  const top = "L".repeat(250);
  const parentAbs = path.join(root, parentRel);
  const segments: string[] = [];
  let remaining = length - (parentAbs.length + 1 + top.length);
  while (remaining > 201) {
    const n = remaining - 201 === 1 ? 199 : 200; // never leave a lone separator
    segments.push("d".repeat(n));
    remaining -= n + 1;
  }
  if (remaining > 0) segments.push("e".repeat(remaining - 1));
  const shortDeep = path.join(parentAbs, "s", ...segments);
  fs.mkdirSync(shortDeep, { recursive: true });
  for (const name of files) fs.writeFileSync(path.join(shortDeep, name), "x");
  fs.renameSync(path.join(parentAbs, "s"), path.join(parentAbs, top));
  undo.push(() => fs.renameSync(path.join(parentAbs, top), path.join(parentAbs, "s")));
  const rels: string[] = [];
  let rel = parentRel === "" ? top : `${parentRel}/${top}`;
  rels.push(rel);
  for (const segment of segments) rels.push((rel = `${rel}/${segment}`));
  expect(path.join(root, rel).length).toBe(length);
  return rels;
}

/** The first directory of a chain a syscall cannot reach. */
const firstTooLong = (rels: string[]) => rels.find((rel) => path.join(root, rel).length > LINUX_PATH_MAX)!;

describe("walkProject: selection", () => {
  it("keeps files whose name ends with a listed extension, case-sensitively (.d.ts ends in .ts)", () => {
    for (const name of ["a.ts", "b.tsx", "c.d.ts", "d.js", "e.TS", "README.md", "notes.markdown", "ts", "Makefile"]) write(name);
    expect(paths({ extensions: [".ts"] })).toEqual(["a.ts", "c.d.ts"]);
    expect(paths({ extensions: [".tsx"] })).toEqual(["b.tsx"]);
    expect(paths({ extensions: [".ts", ".tsx", ".md"] })).toEqual(["README.md", "a.ts", "b.tsx", "c.d.ts"]);
    expect(paths({ extensions: [".TS"] })).toEqual(["e.TS"]);
    expect(paths({ extensions: [] })).toEqual([]);
  });

  it("lists files only, with size, mtime, inode and ctime from stat", () => {
    write("src/a.ts", "hello");
    fs.mkdirSync(path.join(root, "empty.ts"));
    const mtime = new Date("2024-01-02T03:04:05.000Z");
    fs.utimesSync(path.join(root, "src/a.ts"), mtime, mtime);
    const { ino, ctimeMs } = fs.statSync(path.join(root, "src/a.ts"));
    expect(filesOf(walk())).toEqual([{ path: "src/a.ts", size: 5, mtimeMs: mtime.getTime(), ino, ctimeMs }]);
  });

  it("excludes **/node_modules/** at any depth and dist/** only at the root", () => {
    for (const rel of ["src/a.ts", "node_modules/x/index.ts", "pkg/node_modules/y.ts", "dist/out.ts", "dist/sub/deep.ts", "src/dist/keep.ts", "distance.ts"]) write(rel);
    expect(paths({ exclude: ["**/node_modules/**", "dist/**"] })).toEqual(["distance.ts", "src/a.ts", "src/dist/keep.ts"]);
  });

  it.skipIf(!isLinux)("prunes excluded directories: an unreadable directory inside one is never read", () => {
    write("src/a.ts");
    const chain = longChain("node_modules/pkg", 4200, ["f.ts"]);
    // Control: without the exclude the walker does reach the unreadable directory.
    expect(walk().problems).toEqual([{ path: firstTooLong(chain), error: "ENAMETOOLONG: name too long" }]);
    const result = walk({ exclude: ["**/node_modules/**"] });
    expect(result.paths).toEqual(["src/a.ts"]);
    expect(result.problems).toEqual([]);
  });

  it.skipIf(!chmodBlocksReads)("prunes excluded directories: a chmod 000 directory inside one is never read", () => {
    write("src/a.ts");
    write("dist/locked/x.ts");
    fs.chmodSync(path.join(root, "dist/locked"), 0o000);
    undo.push(() => fs.chmodSync(path.join(root, "dist/locked"), 0o700));
    expect(walk().problems).toEqual([{ path: "dist/locked", error: "EACCES: permission denied" }]);
    expect(strip(walk({ exclude: ["dist/**"] }))).toEqual({
      files: [{ path: "src/a.ts", size: 1, mtimeMs: expect.any(Number), ino: expect.any(Number), ctimeMs: expect.any(Number) }],
      problems: [],
      skippedSymlinks: 0,
    });
  });

  it("* does not cross /, ** does", () => {
    for (const rel of ["a.ts", "b.ts", "src/c.ts", "src/deep/d.ts"]) write(rel);
    expect(paths({ exclude: ["*.ts"] })).toEqual(["src/c.ts", "src/deep/d.ts"]);
    expect(paths({ exclude: ["src/*.ts"] })).toEqual(["a.ts", "b.ts", "src/deep/d.ts"]);
    expect(paths({ exclude: ["**/*.ts"] })).toEqual([]);
  });

  it("names what makes a glob malformed, as ripgrep's globset does, and accepts the escaped forms", () => {
    expect(["src/[", "a[!", "x{a,b", "trail\\"].map(globSyntaxError)).toEqual([
      "the character class opened at 5 is not closed (a literal [ is written \\[)",
      "the character class opened at 2 is not closed (a literal [ is written \\[)",
      "a {…} group is not closed (a literal { is written \\{)",
      "it ends with an escape (\\)",
    ]);
    expect(["src/[ab].ts", "[]]x", "[!]]", "\\[x", "{a,{b,c}}", "a}b", "**/*.ts"].map(globSyntaxError)).toEqual([null, null, null, null, null, null, null]);
  });

  it("? matches exactly one character and never /", () => {
    for (const rel of ["src/a.ts", "src/ab.ts", "src/sub/a.ts", "src/.ts"]) write(rel);
    expect(paths({ exclude: ["src/?.ts"] })).toEqual(["src/.ts", "src/ab.ts", "src/sub/a.ts"]);
    expect(paths({ exclude: ["src?a.ts"] })).toEqual(["src/.ts", "src/a.ts", "src/ab.ts", "src/sub/a.ts"]);
  });

  it("exclude patterns are case-sensitive", () => {
    for (const rel of ["build/a.ts", "Build/b.ts", "src/Gen.ts", "src/gen.ts"]) write(rel);
    expect(paths({ exclude: ["Build/**", "**/gen.ts"] })).toEqual(["build/a.ts", "src/Gen.ts"]);
  });

  it("never enters .git, .hg or .svn, even without .gitignore handling", () => {
    for (const rel of [".git/hooks/h.ts", ".hg/x.ts", ".svn/y.ts", "sub/.git/z.ts", "src/a.ts", ".github/w.ts"]) write(rel);
    expect(paths({ respectGitignore: false })).toEqual([".github/w.ts", "src/a.ts"]);
  });

  it("never enters skipDirs (given with or without a trailing slash)", () => {
    for (const rel of [".mast/index.ts", "a/state/s.ts", "a/stateful.ts", "src/a.ts"]) write(rel);
    expect(paths({ skipDirs: [path.join(root, ".mast"), path.join(root, "a/state") + "/"] })).toEqual(["a/stateful.ts", "src/a.ts"]);
    expect(paths({ skipDirs: [root] })).toEqual([]);
  });

  it("skips FIFOs without opening them or reporting them", () => {
    write("a.ts");
    execFileSync("mkfifo", [path.join(root, "pipe.ts")]);
    expect(strip(walk())).toEqual({ files: [{ path: "a.ts", size: 1, mtimeMs: expect.any(Number), ino: expect.any(Number), ctimeMs: expect.any(Number) }], problems: [], skippedSymlinks: 0 });
  });
});

describe("walkProject: .gitignore", () => {
  function gitignoreTree(): void {
    write(".gitignore", ["*.log", "build/", "generated.ts", "vendor/", "# a comment", ""].join("\n"));
    for (const rel of ["app.log", "main.ts", "build/out.ts", "src/build/deep.ts", "src/build.ts", "src/generated.ts", "vendor/v.ts"]) write(rel);
    write("pkg/.gitignore", ["!generated.ts", "!debug.log", "!vendor/", "/local.ts"].join("\r\n") + "\r\n");
    for (const rel of ["pkg/generated.ts", "pkg/debug.log", "pkg/other.log", "pkg/vendor/v.ts", "pkg/local.ts", "pkg/sub/local.ts", "local.ts"]) write(rel);
  }

  it("scopes nested .gitignore files to their directory, with ! re-includes and dir-only patterns", () => {
    gitignoreTree();
    expect(paths({ extensions: [".ts", ".log"] })).toEqual([
      "local.ts", // /local.ts in pkg/.gitignore is anchored to pkg/
      "main.ts",
      "pkg/debug.log", // re-included below the root's *.log
      "pkg/generated.ts", // re-included
      "pkg/sub/local.ts",
      "pkg/vendor/v.ts", // a deeper !vendor/ re-includes a directory the root ignored
      "src/build.ts", // build/ matches directories only
    ]);
  });

  it("ignores nothing when respectGitignore is false", () => {
    gitignoreTree();
    expect(paths({ extensions: [".ts", ".log"], respectGitignore: false })).toEqual([
      "app.log",
      "build/out.ts",
      "local.ts",
      "main.ts",
      "pkg/debug.log",
      "pkg/generated.ts",
      "pkg/local.ts",
      "pkg/other.log",
      "pkg/sub/local.ts",
      "pkg/vendor/v.ts",
      "src/build.ts",
      "src/build/deep.ts",
      "src/generated.ts",
      "vendor/v.ts",
    ]);
  });

  it("matches .gitignore patterns case-sensitively, as git does on Linux", () => {
    write(".gitignore", "Secret.ts\n");
    write("Secret.ts");
    write("secret.ts");
    expect(paths()).toEqual(["secret.ts"]);
  });

  it("reads .git/info/exclude with lower precedence than .gitignore", () => {
    write(".git/info/exclude", "*.gen.ts\nprivate/\n");
    write(".gitignore", "!keep.gen.ts\n");
    for (const rel of ["a.ts", "x.gen.ts", "keep.gen.ts", "private/p.ts", "sub/y.gen.ts"]) write(rel);
    expect(paths()).toEqual(["a.ts", "keep.gen.ts"]);
    expect(paths({ respectGitignore: false })).toEqual(["a.ts", "keep.gen.ts", "private/p.ts", "sub/y.gen.ts", "x.gen.ts"]);
  });

  it("treats a .git file (worktree/submodule) as having no info/exclude", () => {
    write(".git", "gitdir: /elsewhere\n");
    write("a.ts");
    expect(strip(walk())).toEqual({ files: [{ path: "a.ts", size: 1, mtimeMs: expect.any(Number), ino: expect.any(Number), ctimeMs: expect.any(Number) }], problems: [], skippedSymlinks: 0 });
  });

  it.skipIf(!chmodBlocksReads)("reports an unreadable .gitignore (chmod 000) as a problem and walks on", () => {
    write("a.ts");
    write("sub/.gitignore", "b.ts\n");
    write("sub/b.ts");
    fs.chmodSync(path.join(root, "sub/.gitignore"), 0o000);
    expect(strip(walk())).toEqual({
      files: [expect.objectContaining({ path: "a.ts" }), expect.objectContaining({ path: "sub/b.ts" })],
      problems: [{ path: "sub/.gitignore", error: "EACCES: permission denied" }],
      skippedSymlinks: 0,
    });
  });

  it.skipIf(!isLinux)("reports a .gitignore that cannot be opened (path over PATH_MAX) as a problem, also as root", () => {
    write("a.ts");
    // The directory itself is readable (4090 chars), its .gitignore is not (4101 chars).
    const chain = longChain("", 4090, [".gitignore"]);
    const result = walk();
    expect(result.paths).toEqual(["a.ts"]);
    expect(result.problems).toEqual([{ path: `${chain[chain.length - 1]}/.gitignore`, error: "ENAMETOOLONG: name too long" }]);
  });
});

describe("walkProject: symlinks", () => {
  it("follows neither file nor directory links (a cycle is harmless) and counts them", () => {
    write("real.ts");
    write("src/b.ts");
    fs.symlinkSync("real.ts", path.join(root, "link.ts"));
    fs.symlinkSync("..", path.join(root, "src/loop")); // src/loop -> root: a cycle
    fs.symlinkSync(os.tmpdir(), path.join(root, "outside")); // would escape the root
    fs.symlinkSync("missing.ts", path.join(root, "dangling.ts"));
    expect(strip(walk())).toEqual({
      files: [expect.objectContaining({ path: "real.ts" }), expect.objectContaining({ path: "src/b.ts" })],
      problems: [],
      skippedSymlinks: 4,
    });
  });

  it("does not count links that are excluded or inside pruned directories", () => {
    write("a.ts");
    write(".gitignore", "ignored-link.ts\n");
    fs.mkdirSync(path.join(root, "node_modules/.bin"), { recursive: true });
    fs.symlinkSync("../../a.ts", path.join(root, "node_modules/.bin/tool"));
    fs.symlinkSync("a.ts", path.join(root, "excluded-link.ts"));
    fs.symlinkSync("a.ts", path.join(root, "ignored-link.ts"));
    fs.symlinkSync("a.ts", path.join(root, "counted-link.ts"));
    expect(walk({ exclude: ["**/node_modules/**", "excluded-*"] }).skippedSymlinks).toBe(1);
  });
});

describe("walkProject: I/O problems", () => {
  it.skipIf(!chmodBlocksReads)("reports a chmod 000 directory as EACCES and walks on", () => {
    for (const rel of ["a.ts", "locked/x.ts", "z/z.ts"]) write(rel);
    fs.chmodSync(path.join(root, "locked"), 0o000);
    undo.push(() => fs.chmodSync(path.join(root, "locked"), 0o700));
    const result = walk();
    expect(result.paths).toEqual(["a.ts", "z/z.ts"]);
    expect(result.problems).toEqual([{ path: "locked", error: "EACCES: permission denied" }]);
  });

  it.skipIf(!isLinux)("reports a directory that cannot be read (path over PATH_MAX) and walks on, also as root", () => {
    for (const rel of ["a.ts", "z/z.ts"]) write(rel);
    const chain = longChain("deep", 4200, ["f.ts"]);
    const result = walk();
    expect(result.paths).toEqual(["a.ts", "z/z.ts"]);
    expect(result.problems).toEqual([{ path: firstTooLong(chain), error: "ENAMETOOLONG: name too long" }]);
  });

  it.skipIf(!isLinux)("reports a file whose stat fails (path over PATH_MAX) and walks on", () => {
    write("a.ts");
    // The directory is readable (4080 chars); its 20-char file name takes the path past PATH_MAX.
    const name = "f".repeat(17) + ".ts";
    const chain = longChain("", 4080, [name, "ok.ts"]);
    const deepest = chain[chain.length - 1]!;
    const result = walk();
    expect(result.paths).toEqual([`${deepest}/ok.ts`, "a.ts"]); // "L…" sorts before "a"
    expect(result.problems).toEqual([{ path: `${deepest}/${name}`, error: "ENAMETOOLONG: name too long" }]);
  });

  it.skipIf(!rawNamesSupported)("reports a listed file that stat cannot find (ENOENT, as for a file deleted after readdir): provoked with a non-UTF-8 name", () => {
    // readdir decodes the name lossily (0xFF -> U+FFFD), so stat looks up a name that does not exist,
    // exactly like a file that vanished between readdir and stat.
    write("a.ts");
    write("sub/b.ts");
    fs.writeFileSync(Buffer.concat([Buffer.from(path.join(root, "sub", "bad")), Buffer.from([0xff]), Buffer.from(".ts")]), "x");
    const result = walk();
    expect(result.paths).toEqual(["a.ts", "sub/b.ts"]);
    expect(result.problems).toEqual([{ path: "sub/bad\uFFFD.ts", error: "ENOENT: no such file or directory" }]);
  });

  it("throws READ_FAILED when the root itself cannot be read", () => {
    const missing = path.join(root, "missing");
    const read = (dir: string) => () => walkProject({ root: dir, extensions: [".ts"], exclude: compileGlobs([]), respectGitignore: true, skipDirs: [] });
    expect(read(missing)).toThrow(MastError);
    expect(read(missing)).toThrow(expect.objectContaining({ code: "READ_FAILED" }));
    write("file.ts");
    expect(read(path.join(root, "file.ts"))).toThrow(expect.objectContaining({ code: "READ_FAILED" }));
  });
});

describe("walkProject: determinism", () => {
  it("sorts by plain code-unit order and two walks are equal", () => {
    for (const rel of ["b.ts", "a0.ts", "a/b.ts", "a.ts", "a-b.ts", "B.ts", "é.ts", "\uFF61.ts", "\u{1F600}.ts", "z/y/x.ts"]) write(rel);
    const first = walk();
    expect(first.paths).toEqual([
      "B.ts",
      "a-b.ts", // '-' 0x2D
      "a.ts", // '.' 0x2E
      "a/b.ts", // '/' 0x2F
      "a0.ts", // '0' 0x30
      "b.ts",
      "z/y/x.ts",
      "é.ts", // U+00E9
      "\u{1F600}.ts", // surrogate 0xD83D sorts before U+FF61 by code unit (not by code point)
      "\uFF61.ts",
    ]);
    expect(walk()).toEqual(first);
  });
});

describe("walkProject: the cache of directory listings", () => {
  const past = new Date(Date.now() - 3_600_000);
  /** Every file and directory under root dated an hour ago (older than the racy window). */
  function age(rel = ""): void {
    const abs = path.join(root, rel);
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) if (e.isDirectory()) age(path.posix.join(rel, e.name));
    for (const e of fs.readdirSync(abs)) fs.utimesSync(path.join(abs, e), past, past);
    fs.utimesSync(abs, past, past);
  }
  const cached = (previous: ReturnType<typeof walkProject>["cache"] | null, key = "k") =>
    walkProject({ root, extensions: [".ts"], exclude: compileGlobs(["dist/**"]), respectGitignore: true, skipDirs: [], cache: { key, previous: previous ?? null } });

  beforeEach(() => {
    write("src/a.ts");
    write("src/deep/b.ts");
    write("src/deep/c.js");
    write("dist/out.ts");
    write("lib/d.ts");
    write(".gitignore", "lib/\n");
    fs.symlinkSync("a.ts", path.join(root, "src", "link.ts"));
    age();
  });

  it("walks the same with and without the last walk's listings, and lists only trusted directories", () => {
    const first = cached(null);
    expect(Object.keys(first.cache!.dirs).sort()).toEqual(["", "src", "src/deep"]);
    const second = cached(first.cache!);
    expect(strip(second)).toEqual(strip(first));
    expect(strip(second)).toEqual(strip(walk({ exclude: ["dist/**"] })));
    expect(second.paths).toEqual(["src/a.ts", "src/deep/b.ts"]);
    expect(second.skippedSymlinks).toBe(1);
    // Every listing came from the cache: nothing to write again. A directory read afresh, or gone, is a change.
    expect([first.cacheChanged, second.cacheChanged]).toEqual([true, false]);
    write("src/deep/new.ts");
    fs.utimesSync(path.join(root, "src/deep"), past, past);
    expect(cached(second.cache!).cacheChanged).toBe(true);
    fs.rmSync(path.join(root, "src/deep"), { recursive: true });
    fs.utimesSync(path.join(root, "src"), new Date(past.getTime() + 1000), new Date(past.getTime() + 1000));
    expect(cached(second.cache!).cacheChanged).toBe(true);
  });

  it("an entry slipped in with the directory's mtime put back is seen: the directory's ctime moved (the listing is read again)", () => {
    const first = cached(null);
    write("src/deep/new.ts");
    fs.utimesSync(path.join(root, "src/deep"), past, past);
    expect(cached(first.cache!).paths).toEqual(["src/a.ts", "src/deep/b.ts", "src/deep/new.ts"]);
    // Another key (other options) uses none of it.
    expect(cached(first.cache!, "other").paths).toEqual(["src/a.ts", "src/deep/b.ts", "src/deep/new.ts"]);
  });

  it("sees files added and removed (the directory's mtime moves), and a directory modified within the racy window is read every time", () => {
    const first = cached(null);
    write("src/deep/new.ts");
    fs.rmSync(path.join(root, "src/a.ts"));
    const second = cached(first.cache!);
    expect(second.paths).toEqual(["src/deep/b.ts", "src/deep/new.ts"]);
    // Both directories changed just now: not trusted yet, so not kept for the next walk.
    expect(Object.keys(second.cache!.dirs).sort()).toEqual([""]);
    write("src/deep/later.ts");
    expect(cached(second.cache!).paths).toEqual(["src/deep/b.ts", "src/deep/later.ts", "src/deep/new.ts"]);
  });

  it("a .gitignore edited in place (its directory's mtime unchanged) re-reads the subtree under the new rules", () => {
    const first = cached(null);
    fs.writeFileSync(path.join(root, ".gitignore"), "src/deep/\n");
    fs.utimesSync(root, past, past);
    expect(cached(first.cache!).paths).toEqual(["lib/d.ts", "src/a.ts"]);
  });

  it("another .git/info/exclude invalidates every listing", () => {
    const first = cached(null);
    write(".git/info/exclude", "src/\n");
    expect(cached(first.cache!).paths).toEqual([]);
  });

  describe("the trusted list (every directory's listing trusted)", () => {
    const names = (r: ReturnType<typeof walkProject>) => r.paths;
    /** The cache as the next run reads it from disk. */
    const reread = (r: ReturnType<typeof walkProject>) => unpackWalkCache(packWalkCache(r.cache!))!;

    /** A trusted list as read back: each of its lists also as the UTF-8 bytes it was read from (which the addon takes). */
    const asRead = (t: NonNullable<WalkCache["trusted"]>) => ({
      ...t,
      dirs: { ...t.dirs, bytes: Buffer.from(t.dirs.joined) },
      gitignores: { ...t.gitignores, bytes: Buffer.from(t.gitignores.joined) },
      files: { ...t.files, bytes: Buffer.from(t.files.joined) },
    });

    it("is kept when every directory was trusted, with the .gitignore files read, and round-trips through its bytes", () => {
      write("src/deep/.gitignore", "*.gen.ts\n");
      write("src/deep/x.gen.ts");
      age();
      const first = cached(null);
      const t = first.cache!.trusted!;
      expect(t.files.joined.split("\0")).toEqual(["src/a.ts", "src/deep/b.ts"]);
      expect(t.dirs.joined.split("\0").sort()).toEqual(["", "src", "src/deep"]);
      expect(t.gitignores.joined.split("\0").sort()).toEqual([".gitignore", "src/deep/.gitignore"]);
      expect(t.symlinks).toBe(1);
      const back = reread(first);
      expect(back.trusted).toEqual(asRead(t));
      expect([back.key, back.exclude]).toEqual([first.cache!.key, first.cache!.exclude]);
      // The listings leave their file names to the list and get them back (sorted) when read.
      const sortedNames = (dirs: typeof back.dirs) => Object.fromEntries(Object.entries(dirs).map(([rel, d]) => [rel, { ...d, f: [...d.f].sort() }]));
      expect(sortedNames(back.dirs)).toEqual(sortedNames(first.cache!.dirs));
      expect(packWalkCache(back).length).toBe(packWalkCache(first.cache!).length);
    });

    it("answers a walk that finds every directory as listed, with each file's stat now", () => {
      const first = cached(null);
      fs.writeFileSync(path.join(root, "src/a.ts"), "export const a = 2; // longer now\n");
      const second = cached(reread(first));
      expect(second.cacheChanged).toBe(false);
      expect(names(second)).toEqual(["src/a.ts", "src/deep/b.ts"]);
      const a = fs.lstatSync(path.join(root, "src/a.ts"));
      // The columns a status reads, and the objects made from them when asked for.
      expect(second.paths).toEqual(["src/a.ts", "src/deep/b.ts"]);
      expect([...second.stats.subarray(0, STAT_WORDS)]).toEqual([StatKind.FILE, a.size, a.mtimeMs, a.ino, a.ctimeMs]);
      expect(walkedFileAt(second, 0)).toEqual({ path: "src/a.ts", size: a.size, mtimeMs: a.mtimeMs, ino: a.ino, ctimeMs: a.ctimeMs });
      expect(second.skippedSymlinks).toBe(1);
      expect(second.dirStats!.get(path.join(root, "src/deep"))![2]).toBe(fs.lstatSync(path.join(root, "src/deep")).ino);
      expect({ ...strip(second), files: names(second) }).toEqual({ ...strip(walk({ exclude: ["dist/**"] })), files: names(second) });
    });

    it("is not trusted past a directory changed, a .gitignore edited in place, another exclude file or a file turned into a link", () => {
      const first = cached(null);
      // A .gitignore rewritten in place (its directory's stat untouched): the list is not used, the rules apply.
      const rootStat = fs.lstatSync(root);
      fs.writeFileSync(path.join(root, ".gitignore"), "lib/\nsrc/deep/\n");
      expect(fs.lstatSync(root).ctimeMs).toBe(rootStat.ctimeMs);
      expect(names(cached(reread(first)))).toEqual(["src/a.ts"]);
      fs.writeFileSync(path.join(root, ".gitignore"), "lib/\n");
      age();
      const second = cached(null);
      expect(second.cache!.trusted).toBeDefined();
      // A file replaced by a link (its directory's ctime moves): listed afresh, not kept.
      fs.rmSync(path.join(root, "src/deep/b.ts"));
      fs.symlinkSync("../a.ts", path.join(root, "src/deep/b.ts"));
      fs.utimesSync(path.join(root, "src/deep"), past, past);
      const third = cached(reread(second));
      expect([names(third), third.skippedSymlinks, third.cacheChanged]).toEqual([["src/a.ts"], 2, true]);
      // .git/info/exclude rewritten in place (no directory of the walk changes).
      write(".git/info/exclude", "");
      age();
      const fourth = cached(null);
      fs.writeFileSync(path.join(root, ".git/info/exclude"), "src/\n");
      expect(names(cached(reread(fourth)))).toEqual([]);
    });

    it("is left out when a directory could not be trusted (modified within the racy window), and the next walk lists again", () => {
      write("src/deep/new.ts");
      const first = cached(null);
      expect(first.cache!.trusted).toBeUndefined();
      expect(unpackWalkCache(packWalkCache(first.cache!))!.dirs).toEqual(first.cache!.dirs);
      expect(names(cached(reread(first)))).toEqual(["src/a.ts", "src/deep/b.ts", "src/deep/new.ts"]);
    });

    it("a list naming a path outside the root, or without the root among its directories, is not used (a planted or hand-made cache)", () => {
      const first = cached(null);
      const t = first.cache!.trusted!;
      const withList = (change: Partial<typeof t>) => unpackWalkCache(packWalkCache({ ...first.cache!, trusted: { ...t, ...change } }))!;
      expect(withList({}).trusted).toEqual(asRead(t));
      // A file outside every directory the check stats: the walk reads the listings instead (its directories all stat as listed here).
      for (const files of ["../outside.ts", "/etc/passwd.ts", "src/../../x.ts", "src//a.ts", "src/./a.ts", "", "link/secret.ts"]) {
        const list = withList({ files: { joined: `src/a.ts\0${files}`, count: 2 } });
        expect([files, names(cached(list))]).toEqual([files, ["src/a.ts", "src/deep/b.ts"]]);
      }
      // Without the root the check would stat nothing a planted list could not match.
      const dirs = t.dirs.joined.split("\0").filter((d) => d !== "");
      expect(withList({ dirs: { joined: dirs.join("\0"), count: dirs.length }, dirStats: t.dirStats.subarray(3) }).trusted).toBeUndefined();
      expect(withList({ gitignores: { joined: "../.gitignore", count: 1 }, gitignoreStats: new Float64Array(4) }).trusted).toBeUndefined();
      // No directory at all (nothing would be stat'ed), a file in a directory the list does not check, a directory whose parent it does not, a count past the files.
      expect(withList({ dirs: { joined: "", count: 0 }, dirStats: new Float64Array(0), gitignores: { joined: "", count: 0 }, gitignoreStats: new Float64Array(0) }).trusted).toBeUndefined();
      expect(withList({ dirs: { joined: `\0src/deep`, count: 2 }, dirStats: t.dirStats.subarray(0, 6) }).trusted).toBeUndefined();
      expect(withList({ files: { ...t.files, count: 0xffffffff } }).trusted).toBeUndefined();
      // Fewer directories counted than named: the ones past the count would go unchecked.
      expect(withList({ dirs: { joined: `src\0src/deep\0`, count: 2 }, dirStats: t.dirStats.subarray(0, 6) }).trusted).toBeUndefined();
      // The listings still serve: the walk reads them directory by directory.
      const planted = withList({ files: { joined: "../../outside.ts", count: 1 } });
      expect(names(cached(planted))).toEqual(["src/a.ts", "src/deep/b.ts"]);
      // A listing naming an entry with a separator, `..` or nothing is no listing: none is used.
      for (const bad of ["../x.ts", "..", "", "a/b.ts"]) {
        const dirs = { ...first.cache!.dirs, src: { ...first.cache!.dirs["src"]!, f: ["a.ts", bad] } };
        const read = unpackWalkCache(packWalkCache({ key: first.cache!.key, exclude: first.cache!.exclude, dirs }))!;
        expect(read.dirs).toEqual({});
      }
    });

    it("a list's shape is judged the same by the addon and by JavaScript (its fallback)", () => {
      const list = (dirs: string[], files: string[], gitignores: string[] = []) => ({ dirs: joinPaths(dirs), files: joinPaths(files), gitignores: joinPaths(gitignores) });
      const cases: Array<[ReturnType<typeof list>, boolean]> = [
        [list(["", "src", "src/deep"], ["a.ts", "src/a.ts", "src/deep/b.ts", "src/z.ts"], [".gitignore", "src/deep/.gitignore"]), true],
        [list([""], []), true],
        [list(["", "é", "é/𝒜"], ["é/𝒜/x.ts", "é/y.ts"]), true],
        [list([], []), false],
        [list(["src"], ["src/a.ts"]), false],
        [list(["", "src", "src"], ["src/a.ts"]), false],
        [list(["", "src/deep"], ["src/deep/a.ts"]), false],
        [list(["", "src", "src/.."], []), false],
        [list(["", "src", "src/."], []), false],
        [list(["", "/etc"], []), false],
        [list(["", "src", "src/"], []), false],
        [list(["", "src", "src//x"], []), false],
        [list(["", "src"], ["src/a.ts", "lib/b.ts"]), false],
        [list(["", "src"], ["src/a.ts", "src/deep/b.ts"]), false],
        [list(["", "src"], ["src/a.ts"], ["../.gitignore"]), false],
        [list(["", "src"], ["src/a.ts"], ["lib/.gitignore"]), false],
        [list(["", "src"], ["src/a.ts"], [""]), false],
        [{ ...list(["", "src"], ["src/a.ts"]), files: { joined: "src/a.ts\0src/b.ts", count: 1 } }, false],
        [{ ...list(["", "src"], ["src/a.ts"]), files: { joined: "src/a.ts", count: 3 } }, false],
        [{ ...list(["", "src"], []), files: { joined: "src/a.ts", count: 0 } }, false],
        [{ ...list(["", "src"], ["src/a.ts"]), dirs: { joined: "\0src\0lib", count: 2 } }, false],
      ];
      for (const [t, holds] of cases) {
        expect([t, wellFormedInJs(t)]).toEqual([t, holds]);
        if (nativeTrustedListHolds !== null)
          expect([t, nativeTrustedListHolds(t.dirs.joined, t.dirs.count, t.gitignores.joined, t.gitignores.count, t.files.joined, t.files.count)]).toEqual([t, holds]);
      }
    });

    it("bytes of another format, torn or not a cache read as none; listings that do not parse as none listed", () => {
      const first = cached(null);
      const bytes = packWalkCache(first.cache!);
      // A head or a listing that is JSON but not an object: no cache, no listing, no crash.
      const withParts = (head: string, listings: string) => {
        const h = Buffer.from(head);
        const l = Buffer.from(listings);
        const out = Buffer.alloc(48 + h.length + l.length);
        out.writeUInt32LE(0x4b4c574d, 0);
        out.writeUInt32LE(1, 4);
        out.writeUInt32LE(h.length, 8);
        out.writeUInt32LE(l.length, 12);
        h.copy(out, 48);
        l.copy(out, 48 + h.length);
        return out;
      };
      expect(unpackWalkCache(withParts("null", "{}"))).toBeNull();
      const nullListing = unpackWalkCache(withParts(JSON.stringify({ key: first.cache!.key, exclude: first.cache!.exclude }), '{"src":null}'))!;
      expect(nullListing.dirs).toEqual({});
      expect(names(cached(nullListing))).toEqual(["src/a.ts", "src/deep/b.ts"]);
      expect(unpackWalkCache(bytes.subarray(0, bytes.length - 1))).toBeNull();
      expect(unpackWalkCache(Buffer.from(JSON.stringify(first.cache!)))).toBeNull();
      const other = Buffer.from(bytes);
      other.writeUInt32LE(2, 4);
      expect(unpackWalkCache(other)).toBeNull();
      // A listing byte broken: the list still stands, the listings read as none (a changed directory lists afresh).
      const broken = Buffer.from(bytes);
      const listingsAt = 48 + (first.cache!.trusted!.dirs.count * 3 + first.cache!.trusted!.gitignores.count * 4) * 8 + broken.readUInt32LE(8);
      broken[listingsAt] = 0x7b + 1;
      const cache = unpackWalkCache(broken)!;
      expect(cache.dirs).toEqual({});
      write("src/deep/new.ts");
      expect(names(cached(cache))).toEqual(["src/a.ts", "src/deep/b.ts", "src/deep/new.ts"]);
    });
  });
});
