// Path helpers shared by every layer: project-relative POSIX paths, the inside-the-root check,
// their order as a tree, the local-versus-external classification of module specifiers, and test
// files by path.
import { isAbsolute, relative, sep } from "node:path";
import { MastError } from "./errors.js";

/** The longest path argument any tool accepts (Linux PATH_MAX). */
export const MAX_PATH_LENGTH = 4096;

/** Project-relative path with "/" separators for an absolute path, or null when it is outside the root. */
export function relativeInside(root: string, absolute: string): string | null {
  const rel = relative(root, absolute);
  if (rel === "") return "";
  if (rel.startsWith("..") || isAbsolute(rel)) return null;
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/** The absolute path of a project-relative POSIX path (both already normal: joined, not normalised). */
export function absoluteIn(root: string, rel: string): string {
  return root.endsWith("/") ? root + rel : `${root}/${rel}`;
}

/**
 * Project paths in tree order, component by component: a directory's files come before those of a
 * sibling whose name extends its own (`Src/Foo/A.cs` before `Src/Foo.Tests/B.cs`, where plain string
 * order puts `.` before `/`). Components compare by UTF-16 code unit.
 */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A component ending first sorts first: "/" is below every other character.
    if (x === 0x2f) return -1;
    if (y === 0x2f) return 1;
    return x - y;
  }
  return a.length - b.length;
}

/** Bare specifiers (packages, node: builtins) are external; relative and absolute ones are local. */
export function isExternalSpecifier(module: string): boolean {
  return !(module.startsWith("./") || module.startsWith("../") || module === "." || module === ".." || module.startsWith("/"));
}

/**
 * A path argument as a project-relative POSIX path: `\\` and leading `./` normalised, an absolute
 * path inside `root` made relative (when the root is known); PATH_DENIED for a path outside the
 * project, INVALID_ARGUMENT for a NUL byte.
 */
export function projectPath(path: string, root: string | null): string {
  if (path.includes("\0")) throw new MastError("INVALID_ARGUMENT", "a path has a NUL byte");
  let p = path.replace(/\\/g, "/");
  if (root !== null && isAbsolute(p)) {
    const rel = relativeInside(root, p);
    if (rel === null) throw new MastError("PATH_DENIED", `path must be inside the project ${root}: ${path}`);
    p = rel;
  }
  p = p.replace(/^(\.\/+)+/, "").replace(/\/+$/, "");
  if (p.startsWith("/") || p === ".." || p.startsWith("../") || p.includes("/../")) throw new MastError("PATH_DENIED", `path must be inside the project: ${path}`);
  return p;
}

/** Directory names whose files are tests wherever they sit (`test/`, `tests/`, `__tests__/`, `spec/`). */
const TEST_DIRS = new Set(["test", "tests", "__tests__", "spec", "__mocks__"]);
/** A .NET test project's directory: `Newtonsoft.Json.Tests`, `Serilog.Tests`, `Foo.UnitTests`, `Foo.Test`. */
const TEST_PROJECT_DIR = /.\.[A-Za-z]*Tests?$/;

/**
 * A project path is a test file when its name has a `.test.` / `.spec.` part (`a.test.ts`,
 * `a.spec.tsx`), a `_test` / `test_` affix (`a_test.go`, `test_a.py`), or when a directory on
 * its path is a test directory or a test project's.
 */
export function isTestPath(path: string): boolean {
  const parts = path.split("/");
  const name = parts[parts.length - 1] ?? "";
  if (/\.(test|spec)\.[^/]+$/.test(name) || /_test\.[^./]+$/.test(name) || /^test_[^/]+\.[^./]+$/.test(name)) return true;
  return parts.slice(0, -1).some((d) => TEST_DIRS.has(d) || TEST_PROJECT_DIR.test(d));
}

/** Directory names whose files document the product or show it in use, wherever they sit. */
const DOC_DIRS = new Set(["docs", "doc", "documentation"]);
const EXAMPLE_DIRS = new Set(["examples", "example", "samples", "sample"]);

/** What a project file is to a reader looking for the product's code: the code itself, a test, a document or an example. */
export type PathRole = "source" | "test" | "doc" | "example";

/** A project path's role (`isTestPath` first, then a docs or examples directory on its path). */
export function pathRole(path: string): PathRole {
  if (isTestPath(path)) return "test";
  const dirs = path.split("/").slice(0, -1);
  if (dirs.some((d) => DOC_DIRS.has(d))) return "doc";
  if (dirs.some((d) => EXAMPLE_DIRS.has(d))) return "example";
  return "source";
}
