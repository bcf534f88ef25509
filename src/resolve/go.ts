// Go import resolution against the indexed file set: an import path under a module path that a
// go.mod of the project declares (several modules in one repository included; the longest module
// path wins) names that module's package directory. A package is a directory, and the import
// resolves to the directory's first Go file by path (a non-test file when there is one), which
// stands for the package: the linker reads a Go file's names as its whole directory's.
import { posix } from "node:path";

export function createGoResolver(files: ReadonlySet<string>, dirs: Iterable<string>, read: (rel: string) => string | null): (fromPath: string, module: string) => string | null {
  const modules: Array<{ path: string; dir: string }> = [];
  for (const d of dirs) {
    const m = /^\s*module\s+"?([^\s"]+)"?/m.exec(read(posix.join(d, "go.mod")) ?? "");
    if (m) modules.push({ path: m[1]!, dir: d });
  }
  modules.sort((a, b) => b.path.length - a.path.length || a.dir.localeCompare(b.dir));
  const packages = new Map<string, string>();
  for (const f of [...files].filter((f) => f.endsWith(".go")).sort((a, b) => Number(a.endsWith("_test.go")) - Number(b.endsWith("_test.go")) || (a < b ? -1 : 1))) {
    const dir = posix.dirname(f) === "." ? "" : posix.dirname(f);
    if (!packages.has(dir)) packages.set(dir, f);
  }
  return (_fromPath, module) => {
    for (const mod of modules) {
      if (module !== mod.path && !module.startsWith(`${mod.path}/`)) continue;
      const dir = posix.join(mod.dir, module.slice(mod.path.length + 1));
      return packages.get(dir === "." ? "" : dir) ?? null;
    }
    return null;
  };
}
