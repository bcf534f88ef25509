// Module-specifier resolution against the indexed file set: relative specifiers with TypeScript's
// NodeNext extension substitution (spec §13.7 table), extension probing and directory index files.
import { posix } from "node:path";
import { isExternalSpecifier } from "../base/paths.js";

/** `.js` names the compiled output: its TypeScript source is looked up first (tsc's order). */
const SUBSTITUTIONS: Readonly<Record<string, readonly string[]>> = {
  ".js": [".ts", ".tsx", ".js"],
  ".jsx": [".tsx", ".jsx"],
  ".mjs": [".mts", ".mjs"],
  ".cjs": [".cts", ".cjs"],
};

/** Extensions tried for an extensionless specifier, in tsc's preference order. */
const PROBE_EXTENSIONS = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"];

export type ImportResolver = (fromPath: string, specifier: string) => string | null;

/** A resolver over project-relative paths; unresolvable or external specifiers give null. */
export function createImportResolver(files: ReadonlySet<string>): ImportResolver {
  const probe = (base: string): string | null => {
    for (const ext of PROBE_EXTENSIONS) if (files.has(base + ext)) return base + ext;
    return null;
  };
  return (fromPath, specifier) => {
    if (isExternalSpecifier(specifier) || specifier.startsWith("/")) return null;
    const target = posix.normalize(posix.join(posix.dirname(fromPath), specifier.split("?")[0]!));
    if (target === ".." || target.startsWith("../")) return null;
    const ext = posix.extname(target);
    const substitutes = SUBSTITUTIONS[ext];
    if (substitutes) {
      const stem = target.slice(0, -ext.length);
      for (const s of substitutes) if (files.has(stem + s)) return stem + s;
    }
    if (files.has(target)) return target;
    return probe(target) ?? probe(target === "." ? "index" : `${target}/index`);
  };
}
