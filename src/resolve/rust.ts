// Rust path resolution against the indexed file set, through each crate's module tree. A crate
// is declared by a Cargo.toml: its library root (`[lib] path`, else `src/lib.rs`) is named by the
// package (or `[lib] name`, dashes as underscores) to the other crates of the workspace; its
// binaries (`[[bin]] path`, else `src/main.rs`) and tests (`[[test]] path`) are roots of their
// own. A root's modules live beside it: module `a::b` of root `dir/lib.rs` is `dir/a/b.rs` or
// `dir/a/b/mod.rs`. `crate::`, `self::` and `super::` are read from the importing file's module
// path under its nearest root; any other first segment is a workspace crate or a child module.
import { posix } from "node:path";
import { parseToml } from "../base/formats.js";

interface Root {
  /** The root file and the directory its modules live in. */
  readonly file: string;
  readonly dir: string;
  /** The crate name other crates use (library roots only). */
  readonly name: string | null;
}

/** A table of a parsed TOML document, or an empty one. */
const tableOf = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const stringOf = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** A Cargo.toml's tables; none when TOML cannot read it (cargo refuses it too: its crate's files keep the default roots). */
function cargoManifest(text: string): Record<string, unknown> {
  try {
    return parseToml(text);
  } catch {
    return {};
  }
}

/** The module path of `file` in the crate whose root file is `rootFile` (`a/b.rs` or `a/b/mod.rs` beside it → [a, b]; the root itself → []). */
export function rustModulePath(rootFile: string, file: string): string[] {
  if (file === rootFile) return [];
  const segs = posix.relative(posix.dirname(rootFile), file).replace(/\.rs$/, "").split("/");
  if (segs[segs.length - 1] === "mod") segs.pop();
  return segs;
}

/** The file of module `segs` in the crate whose root file is `rootFile`: `a/b.rs` or `a/b/mod.rs`, whichever `has` (the root for []); null for neither. */
export function rustModuleFile(rootFile: string, segs: readonly string[], has: (file: string) => boolean): string | null {
  if (segs.length === 0) return rootFile;
  const dir = posix.dirname(rootFile);
  return [`${segs.join("/")}.rs`, `${segs.join("/")}/mod.rs`].map((c) => posix.join(dir, c)).find(has) ?? null;
}

export function createRustResolver(files: ReadonlySet<string>, dirs: Iterable<string>, read: (rel: string) => string | null): (fromPath: string, module: string) => string | null {
  const roots: Root[] = [];
  const addRoot = (file: string, name: string | null) => {
    const path = posix.normalize(file);
    if (files.has(path) && !roots.some((r) => r.file === path)) roots.push({ file: path, dir: posix.dirname(path) === "." ? "" : posix.dirname(path), name });
  };
  for (const d of dirs) {
    const text = read(posix.join(d, "Cargo.toml"));
    if (text === null) continue;
    const manifest = cargoManifest(text);
    const lib = tableOf(manifest.lib);
    const libName = stringOf(lib.name) ?? stringOf(tableOf(manifest.package).name);
    addRoot(posix.join(d, stringOf(lib.path) ?? "src/lib.rs"), libName ? libName.replace(/-/g, "_") : null);
    for (const kind of ["bin", "test", "example", "bench"]) {
      const targets = manifest[kind];
      for (const t of Array.isArray(targets) ? targets : []) {
        const path = stringOf(tableOf(t).path);
        if (path) addRoot(posix.join(d, path), null);
      }
    }
    addRoot(posix.join(d, "src/main.rs"), null);
  }
  // Deepest directory first: a file belongs to the nearest root above it.
  roots.sort((a, b) => b.dir.length - a.dir.length || Number(a.name === null) - Number(b.name === null));
  const rootOf = (file: string) => roots.find((r) => r.file === file) ?? roots.find((r) => r.dir === "" || file.startsWith(`${r.dir}/`)) ?? null;
  const modulePath = (file: string, r: Root): string[] => rustModulePath(r.file, file);
  const lookup = (r: Root, segs: readonly string[]): string | null => rustModuleFile(r.file, segs, (f) => files.has(f));
  return (fromPath, module) => {
    const segs = module.split("::").filter((s) => s !== "");
    const own = rootOf(fromPath);
    const head = segs[0];
    if (head === undefined) return null;
    if (head === "crate") return own ? lookup(own, segs.slice(1)) : null;
    if (head === "self" || head === "super") {
      if (!own) return null;
      let base = modulePath(fromPath, own);
      let i = 0;
      for (; segs[i] === "super"; i++) {
        if (base.length === 0) return null;
        base = base.slice(0, -1);
      }
      if (segs[i] === "self") i++;
      return lookup(own, [...base, ...segs.slice(i)]);
    }
    const named = roots.find((r) => r.name === head);
    if (named) return lookup(named, segs.slice(1));
    // A 2018-edition path into a child module of the importing file (`use util::f` after `mod util;`).
    return own ? lookup(own, [...modulePath(fromPath, own), ...segs]) : null;
  };
}
