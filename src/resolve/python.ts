// Python module resolution against the indexed file set: relative modules (`.m`, `..pkg.m`) from
// the importing file's package, absolute ones (`pkg.m`) from the project root, from `src/` (the
// src layout) and from the importing file's own directory (a script's). A module is `m.py`, `m.pyi` or the package `m/__init__.py`.
import { posix } from "node:path";

/** Directories absolute imports are looked up from: the project root and the src layout's `src/`. */
const ROOTS = ["", "src"];

export function resolvePythonModule(files: ReadonlySet<string>, fromPath: string, module: string): string | null {
  const dots = /^\.*/.exec(module)![0].length;
  const parts = module
    .slice(dots)
    .split(".")
    .filter((p) => p !== "");
  if (dots > 0) {
    let base = posix.dirname(fromPath);
    for (let i = 1; i < dots; i++) base = posix.dirname(base);
    if (base === ".") base = "";
    return lookup(files, posix.join(base, ...parts));
  }
  // The importing file's own directory is on the path of the script it is (`python tools/run.py`).
  const own = posix.dirname(fromPath) === "." ? "" : posix.dirname(fromPath);
  for (const root of own === "" || ROOTS.includes(own) ? ROOTS : [...ROOTS, own]) {
    const found = lookup(files, posix.join(root, ...parts));
    if (found) return found;
  }
  return null;
}

function lookup(files: ReadonlySet<string>, stem: string): string | null {
  const clean = stem === "." ? "" : stem;
  for (const candidate of [`${clean}.py`, `${clean}.pyi`, posix.join(clean, "__init__.py"), posix.join(clean, "__init__.pyi")]) {
    const path = candidate.startsWith("/") ? candidate.slice(1) : candidate;
    if (files.has(path)) return path;
  }
  return null;
}
