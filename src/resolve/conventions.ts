// Import resolution for the languages read at breadth, by their file-layout conventions: Java's
// `a.b.C` is a file `a/b/C.java` under any source root; C and C++'s `#include "x.h"` is found
// beside the including file, at the project root, under `include/`, or as the one file ending in
// `/x.h`; Ruby's `require_relative "x"` is `x.rb` beside the file and `require "x"` a file on the
// load path a repository of gems gives it (every `lib/`, nearest first, then for a test file the
// `spec/` and `test/` of its own gem and those above it); PHP's `require`/`include` path is
// relative to the file, and `use A\B\C` is the file the autoload maps of the project's
// composer.json files name (`psr-4`, `psr-0`, `classmap`), else the one file whose path ends with
// the longest suffix of `A/B/C.php` that keeps `B/C.php`.
import { posix } from "node:path";

/** Files by basename, for suffix lookups. */
function byBasename(files: ReadonlySet<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of files) {
    const base = posix.basename(f);
    const list = out.get(base);
    if (list) list.push(f);
    else out.set(base, [f]);
  }
  return out;
}

/** The one indexed file whose path is `suffix` or ends with `/suffix`, or null (none, or several). */
function uniqueSuffix(index: Map<string, string[]>, suffix: string): string | null {
  const matches = (index.get(posix.basename(suffix)) ?? []).filter((f) => f === suffix || f.endsWith(`/${suffix}`));
  return matches.length === 1 ? matches[0]! : null;
}

const dirOf = (path: string) => (posix.dirname(path) === "." ? "" : posix.dirname(path));
const normal = (path: string) => posix.normalize(path).replace(/^\.\//, "");

export function createJavaResolver(files: ReadonlySet<string>): (fromPath: string, module: string) => string | null {
  const index = byBasename(files);
  return (_fromPath, module) => uniqueSuffix(index, `${module.replace(/\./g, "/")}.java`);
}

export function createIncludeResolver(files: ReadonlySet<string>): (fromPath: string, module: string) => string | null {
  const index = byBasename(files);
  return (fromPath, module) => {
    if (module.startsWith("<")) return null;
    for (const base of [dirOf(fromPath), "", "include", "src"]) {
      const path = normal(posix.join(base, module));
      if (!path.startsWith("..") && files.has(path)) return path;
    }
    return uniqueSuffix(index, normal(module));
  };
}

/** A project directory's depth (0 at the root, ""). */
const depthOf = (dir: string) => (dir === "" ? 0 : dir.split("/").length);

/** Whether a project path is `ancestor` or lies under it. */
const within = (dir: string, ancestor: string) => ancestor === "" || dir === ancestor || dir.startsWith(`${ancestor}/`);

/** Steps between two directories through the tree: up to their common ancestor, then down. */
function treeDistance(a: string, b: string): number {
  const x = a === "" ? [] : a.split("/");
  const y = b === "" ? [] : b.split("/");
  let common = 0;
  while (common < x.length && common < y.length && x[common] === y[common]) common++;
  return x.length + y.length - 2 * common;
}

/**
 * Ruby's `require "x"` from a file: `x.rb` on the load path a repository of gems gives it — every
 * `lib/` (the outermost of nested ones; one inside a test tree only for its own gem's files),
 * nearest the file first, so its own gem's comes before the other gems' of the repository; then,
 * for a file of a test tree, the `spec/` and `test/` of its own gem and of those above it
 * (`spec_helper`, `test_helper`, `support/...`), nearest first; then the project root.
 */
export function createRubyResolver(files: ReadonlySet<string>): (fromPath: string, module: string) => string | null {
  const dirs = new Set<string>();
  for (const f of files) if (f.endsWith(".rb")) for (let d = dirOf(f); d !== ""; d = dirOf(d)) dirs.add(d);
  /** Directories named one of `names` with no ancestor so named. */
  const outermost = (names: ReadonlySet<string>) =>
    [...dirs]
      .filter(
        (d) =>
          names.has(posix.basename(d)) &&
          !d
            .split("/")
            .slice(0, -1)
            .some((s) => names.has(s)),
      )
      .sort();
  const testNames = new Set(["spec", "test"]);
  const libs = outermost(new Set(["lib"]));
  const tests = outermost(testNames);
  const inTests = (dir: string) => dir.split("/").some((s) => testNames.has(s));
  const loadPaths = new Map<string, string[]>();
  const loadPath = (dir: string): string[] => {
    let path = loadPaths.get(dir);
    if (!path) {
      const nearest = (list: string[]) =>
        list
          .map((d) => ({ d, distance: treeDistance(dir, d) }))
          .sort((a, b) => a.distance - b.distance || (a.d < b.d ? -1 : 1))
          .map((e) => e.d);
      // A test tree's own `lib/` (a fixture gem's, specs mirroring lib/) serves only the files of its gem.
      const ownOrShared = libs.filter((l) => !inTests(l) || within(dir, dirOf(l)));
      path = [...nearest(ownOrShared), ...(inTests(dir) ? nearest(tests.filter((t) => within(dir, dirOf(t)))) : []), ""];
      loadPaths.set(dir, path);
    }
    return path;
  };
  return (fromPath, module) => {
    const file = module.endsWith(".rb") ? module : `${module}.rb`;
    for (const base of module.startsWith(".") ? [dirOf(fromPath)] : loadPath(dirOf(fromPath))) {
      const path = normal(posix.join(base, file));
      if (!path.startsWith("..") && files.has(path)) return path;
    }
    return null;
  };
}

/** One namespace prefix of a composer.json's `psr-4` or `psr-0` map and one directory it names. */
interface AutoloadRoot {
  readonly prefix: string;
  readonly dir: string;
  /** The directory of the composer.json declaring it (its package). */
  readonly pkg: string;
}

/** What the composer.json files of a project autoload: `autoload` and `autoload-dev` together. */
export interface ComposerAutoload {
  readonly psr4: readonly AutoloadRoot[];
  readonly psr0: readonly AutoloadRoot[];
  /** The `classmap` entries: directories or files, project-relative. */
  readonly classmap: readonly string[];
}

/** The autoload maps of the composer.json in each of `dirs` (a file that is not JSON maps nothing). */
export function readComposerAutoload(dirs: Iterable<string>, read: (rel: string) => string | null): ComposerAutoload {
  const out = { psr4: [] as AutoloadRoot[], psr0: [] as AutoloadRoot[], classmap: [] as string[] };
  for (const pkg of [...dirs].sort()) {
    const text = read(posix.join(pkg, "composer.json"));
    if (text === null) continue;
    let json: unknown;
    try {
      json = JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch {
      continue;
    }
    /** A path the package names, project-relative, or null when it leaves the project. */
    const under = (p: string) => {
      const path = normal(posix.join(pkg, p)).replace(/\/+$/, "");
      return path === ".." || path.startsWith("../") ? null : path === "." ? "" : path;
    };
    const strings = (v: unknown): string[] => (Array.isArray(v) ? v : [v]).filter((s): s is string => typeof s === "string");
    for (const section of ["autoload", "autoload-dev"]) {
      const autoload = (json as Record<string, unknown> | null)?.[section];
      if (autoload === null || typeof autoload !== "object") continue;
      const maps = autoload as Record<string, unknown>;
      for (const [kind, list] of [
        ["psr-4", out.psr4],
        ["psr-0", out.psr0],
      ] as const) {
        const map = maps[kind];
        if (map === null || typeof map !== "object" || Array.isArray(map)) continue;
        for (const [prefix, value] of Object.entries(map as Record<string, unknown>)) {
          // A psr-4 prefix is a namespace ending in `\`; psr-0's may also be a class-name prefix (`Twig_`).
          const p = kind === "psr-4" && prefix !== "" && !prefix.endsWith("\\") ? `${prefix}\\` : prefix;
          for (const d of strings(value)) {
            const dir = under(d);
            if (dir !== null) list.push({ prefix: p.replace(/^\\+/, ""), dir, pkg });
          }
        }
      }
      for (const entry of strings(maps.classmap)) {
        const path = under(entry);
        if (path !== null) out.classmap.push(path);
      }
    }
  }
  return out;
}

/**
 * PHP: an include path from the file's directory; a class (`use A\B\C`, a leading `\` dropped) by
 * the autoload maps — the `psr-4` and then the `psr-0` roots whose prefix it starts with, longest
 * prefix first (of equal ones, the package holding the importing file first), at the path the
 * standard gives when that file is indexed; else the one file named `C.php` in the `classmap`
 * directories; else by suffix.
 */
export function createPhpResolver(files: ReadonlySet<string>, autoload: ComposerAutoload): (fromPath: string, module: string) => string | null {
  const index = byBasename(files);
  const classmap = byBasename(new Set([...files].filter((f) => f.endsWith(".php") && autoload.classmap.some((c) => within(f, c)))));
  /** The roots whose prefix `name` starts with, in the order they are tried from `fromDir`. */
  const rootsFor = (roots: readonly AutoloadRoot[], name: string, fromDir: string) =>
    roots
      .filter((r) => name.startsWith(r.prefix))
      .map((r) => ({ r, own: within(fromDir, r.pkg) ? depthOf(r.pkg) : -1 }))
      .sort((a, b) => b.r.prefix.length - a.r.prefix.length || b.own - a.own)
      .map((e) => e.r);
  return (fromPath, module) => {
    if (module.startsWith(".")) {
      const path = normal(posix.join(dirOf(fromPath), module));
      return !path.startsWith("..") && files.has(path) ? path : null;
    }
    const name = module.replace(/^\\+/, "");
    const segments = name.split("\\").filter((s) => s !== "");
    if (segments.length === 0) return null;
    const fromDir = dirOf(fromPath);
    for (const root of rootsFor(autoload.psr4, name, fromDir)) {
      const path = posix.join(root.dir, `${name.slice(root.prefix.length).replace(/\\/g, "/")}.php`);
      if (files.has(path)) return path;
    }
    const cut = name.lastIndexOf("\\") + 1;
    const psr0 = `${name.slice(0, cut).replace(/\\/g, "/")}${name.slice(cut).replace(/_/g, "/")}.php`;
    for (const root of rootsFor(autoload.psr0, name, fromDir)) {
      const path = posix.join(root.dir, psr0);
      if (files.has(path)) return path;
    }
    const mapped = classmap.get(`${segments.at(-1)}.php`) ?? [];
    if (mapped.length === 1) return mapped[0]!;
    // At least the class and its namespace's last segment: a bare basename would match any
    // project class of the same name, whatever the namespace.
    for (let from = 0; from < Math.max(1, segments.length - 1); from++) {
      const found = uniqueSuffix(index, `${segments.slice(from).join("/")}.php`);
      if (found) return found;
    }
    return null;
  };
}
