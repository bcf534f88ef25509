// The packages a project provides, as other projects import them (docs/organisation.md
// #cross-repository-callers): npm packages (the root package.json's name and each workspace
// package's, with the file its entry resolves to), Go modules (each go.mod's module path), crates
// (each Cargo.toml's library name, as code names it: `-` as `_`) and the Python distribution a
// pyproject.toml names (its import name: lower case, `-` and `.` as `_`). Manifests are read through
// the resolver's confined reader, only inside the project.
import { posix } from "node:path";
import { parseToml } from "../base/formats.js";
import { pathRole } from "../base/paths.js";
import { rustModuleFile, rustModulePath } from "./rust.js";

export type Ecosystem = "npm" | "go" | "cargo" | "pypi";

export interface PackageIdentity {
  readonly ecosystem: Ecosystem;
  /** The name other projects import it by. */
  readonly name: string;
  /** Its project-relative directory ("" for the root). */
  readonly dir: string;
  /** npm: the project file its entry resolves to (what `import … from "name"` reaches), when one does. */
  readonly entry?: string;
}

/** A manifest's TOML, or nothing when it does not parse. */
function toml(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    return parseToml(text);
  } catch {
    return {};
  }
}

const table = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const text = (v: unknown): string | null => (typeof v === "string" && v.length > 0 && v.length <= 214 ? v : null);

/** The Go modules, crates and Python distribution the manifests in `dirs` declare (`read`: a project-relative file's text, or null). */
export function manifestPackages(dirs: Iterable<string>, read: (rel: string) => string | null): PackageIdentity[] {
  const out: PackageIdentity[] = [];
  for (const dir of [...dirs].sort()) {
    const gomod = read(posix.join(dir, "go.mod"));
    const module = gomod === null ? null : /^\s*module\s+"?([^\s"]+)"?/m.exec(gomod)?.[1];
    if (module) out.push({ ecosystem: "go", name: module, dir });
    const cargo = toml(read(posix.join(dir, "Cargo.toml")));
    const crate = text(table(cargo["lib"])["name"]) ?? text(table(cargo["package"])["name"]);
    if (crate !== null) out.push({ ecosystem: "cargo", name: crate.replace(/-/g, "_"), dir });
    const project = text(table(toml(read(posix.join(dir, "pyproject.toml")))["project"])["name"]);
    if (project !== null) out.push({ ecosystem: "pypi", name: project.toLowerCase().replace(/[-.]+/g, "_"), dir });
  }
  return out;
}

/** An import path that reaches a declaration from another project. */
export interface ImportPath {
  readonly ecosystem: Ecosystem;
  /** The module an import names: exactly, or (prefix) it or any module inside it. */
  readonly module: string;
  readonly prefix: boolean;
  /** An import of exactly `module` reaches this declaration (a prefix never is). */
  readonly verified: boolean;
}

const SEPARATOR: Readonly<Record<Ecosystem, string>> = { npm: "/", go: "/", cargo: "::", pypi: "." };

/** Whether an import of `module` names `path`. */
export function importNames(path: ImportPath, module: string): boolean {
  return module === path.module || (path.prefix && module.startsWith(`${path.module}${SEPARATOR[path.ecosystem]}`));
}

/** What the providing index says of its files: whether one is indexed, and whether `name` imported from a file reaches the declaration asked about. */
export interface ProvidingIndex {
  has(file: string): boolean;
  leadsHere(file: string): boolean;
}

/**
 * The import paths into `pkg` from which another project reaches the declaration of `name` in
 * `file` (none when the file is not in the package): npm's package name, verified when its entry
 * file exports the name as this declaration, and its subpaths (potential); the Go package of the
 * file's directory (verified for an exported name); a Python module — the file's own, verified,
 * and each enclosing package whose `__init__` re-exports it, verified — and a crate's module path
 * — the file's own and each enclosing module (the crate root too) that re-exports it, verified —
 * with the package's other modules (potential).
 */
export function importPathsInto(pkg: PackageIdentity, file: string, name: string, index: ProvidingIndex): ImportPath[] {
  if (pkg.dir !== "" && !file.startsWith(`${pkg.dir}/`)) return [];
  if (pkg.ecosystem === "npm") {
    return [
      { ecosystem: "npm", module: pkg.name, prefix: false, verified: pkg.entry !== undefined && index.leadsHere(pkg.entry) },
      { ecosystem: "npm", module: pkg.name, prefix: true, verified: false },
    ];
  }
  if (pkg.ecosystem === "go") {
    const dir = posix.dirname(file) === "." ? "" : posix.dirname(file);
    const rel = pkg.dir === "" ? dir : dir.slice(pkg.dir.length + 1);
    return [{ ecosystem: "go", module: rel === "" ? pkg.name : `${pkg.name}/${rel}`, prefix: false, verified: /^\p{Lu}/u.test(name) }];
  }
  const modules = pkg.ecosystem === "pypi" ? pythonModules(pkg, file, index) : crateModules(pkg, file, index);
  // A script, a test outside any package, a binary: nothing another project imports.
  if (modules === null) return [];
  // The file's own module and every enclosing one that re-exports the name, innermost first; then
  // the rest of the package, the top module itself included (`import acme` then `acme.f()` where
  // acme's __init__ is not seen to re-export f), potential.
  const exact = modules.chain
    .map((m): ImportPath => ({ ecosystem: pkg.ecosystem, module: m.module, prefix: false, verified: m.file !== "" && index.leadsHere(m.file) }))
    .filter((p, i) => i === 0 || p.verified);
  return [...exact, { ecosystem: pkg.ecosystem, module: modules.root, prefix: true, verified: false }];
}

/** A module and the file that is it. */
interface ModuleFile {
  readonly module: string;
  readonly file: string;
}

/**
 * A Python file's module and its enclosing packages (innermost first; a package's file is its
 * `__init__.py`, or none for a namespace package's directory), read up to a source root — the
 * package's directory or its `src/` — through directories holding an `__init__.py` and, above the
 * first of them, namespace packages (`google/cloud/storage/`); the top package is the root. A file
 * at a source root is a module of its own. Null for a file that is no module another project
 * imports: not `.py`, a test's, an example's or a document's, or in a directory that is no package
 * (a script's).
 */
function pythonModules(pkg: PackageIdentity, file: string, index: ProvidingIndex): { chain: ModuleFile[]; root: string } | null {
  if (!/\.pyi?$/.test(file) || pathRole(file) !== "source") return null;
  const top = pkg.dir === "" ? "." : pkg.dir;
  const roots = [posix.join(top, "src"), top];
  const init = (dir: string) => [`${dir}/__init__.py`, `${dir}/__init__.pyi`].find((f) => index.has(f));
  const stem = posix.basename(file).replace(/\.pyi?$/, "");
  const segments = stem === "__init__" ? [] : [stem];
  const files = stem === "__init__" ? [] : [file];
  // A package's own __init__ is the file asked about, whichever of .py and .pyi it is.
  let ownInit: string | undefined = stem === "__init__" ? file : undefined;
  let inPackage = ownInit !== undefined;
  for (let dir = posix.dirname(file); !roots.includes(dir); dir = posix.dirname(dir)) {
    const initFile = ownInit ?? init(dir);
    if (dir === "." || (initFile === undefined && !inPackage)) return null;
    inPackage = true;
    segments.unshift(posix.basename(dir));
    files.unshift(initFile ?? "");
    ownInit = undefined;
  }
  if (segments.length === 0) return null;
  const chain = segments.map((_, i) => ({ module: segments.slice(0, i + 1).join("."), file: files[i]! })).reverse();
  return { chain, root: segments[0]! };
}

/**
 * A Rust file's module path in its crate (`name::a::b` for `src/a/b.rs` or `src/a/b/mod.rs`) and
 * its enclosing modules up to the crate root (`src/lib.rs`), innermost first; a module's file is
 * `a.rs` or `a/mod.rs`, whichever is indexed. Null for a file outside the library's `src/` or a
 * binary's (`main.rs`, `bin/`).
 */
function crateModules(pkg: PackageIdentity, file: string, index: ProvidingIndex): { chain: ModuleFile[]; root: string } | null {
  const src = pkg.dir === "" ? "src/" : `${pkg.dir}/src/`;
  if (!file.startsWith(src) || !file.endsWith(".rs") || /^(?:main(?:\.rs$|\/)|bin\/)/.test(file.slice(src.length))) return null;
  const lib = `${src}lib.rs`;
  const segments = rustModulePath(lib, file);
  const fileOf = (segs: readonly string[]) => rustModuleFile(lib, segs, (f) => index.has(f)) ?? `${src}${segs.join("/")}.rs`;
  const chain = Array.from({ length: segments.length + 1 }, (_, i) => {
    const segs = segments.slice(0, segments.length - i);
    return { module: [pkg.name, ...segs].join("::"), file: i === 0 ? file : fileOf(segs) };
  });
  return { chain, root: pkg.name };
}
