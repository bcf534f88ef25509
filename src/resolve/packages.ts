// The packages a project provides, as other projects import them (docs/organisation.md
// #cross-repository-callers): npm packages (the root package.json's name and each workspace
// package's, with the file its entry resolves to), Go modules (each go.mod's module path), crates
// (each Cargo.toml's library name, as code names it: `-` as `_`) and the Python distribution a
// pyproject.toml names (its import name: lower case, `-` and `.` as `_`). Manifests are read through
// the resolver's confined reader, only inside the project.
import { posix } from "node:path";
import { parseToml } from "../base/formats.js";

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
  /** The module an import names: exactly, or (prefix) as the start of a longer one. */
  readonly module: string;
  readonly prefix: boolean;
  /** An import of exactly `module` reaches this declaration (a prefix never is). */
  readonly verified: boolean;
}

const SEPARATOR: Readonly<Record<Ecosystem, string>> = { npm: "/", go: "/", cargo: "::", pypi: "." };

/** Whether an import of `module` names `path`. */
export function importNames(path: ImportPath, module: string): boolean {
  return path.prefix ? module.startsWith(`${path.module}${SEPARATOR[path.ecosystem]}`) : module === path.module;
}

/**
 * The import paths into `pkg` from which another project reaches the declaration of `name` in
 * `file` (none when the file is not in the package): npm's package name, verified when
 * `entryLeadsHere(entry)` says its entry file exports the name as this declaration, and its
 * subpaths (potential); the Go package of the file's directory (verified for an exported name);
 * a crate's or a Python package's name and its module paths (potential).
 */
export function importPathsInto(pkg: PackageIdentity, file: string, name: string, entryLeadsHere: (entry: string) => boolean): ImportPath[] {
  if (pkg.dir !== "" && !file.startsWith(`${pkg.dir}/`)) return [];
  if (pkg.ecosystem === "npm") {
    return [
      { ecosystem: "npm", module: pkg.name, prefix: false, verified: pkg.entry !== undefined && entryLeadsHere(pkg.entry) },
      { ecosystem: "npm", module: pkg.name, prefix: true, verified: false },
    ];
  }
  if (pkg.ecosystem === "go") {
    const dir = posix.dirname(file) === "." ? "" : posix.dirname(file);
    const rel = pkg.dir === "" ? dir : dir.slice(pkg.dir.length + 1);
    return [{ ecosystem: "go", module: rel === "" ? pkg.name : `${pkg.name}/${rel}`, prefix: false, verified: /^\p{Lu}/u.test(name) }];
  }
  return [
    { ecosystem: pkg.ecosystem, module: pkg.name, prefix: false, verified: false },
    { ecosystem: pkg.ecosystem, module: pkg.name, prefix: true, verified: false },
  ];
}
