// Import resolution for the languages read at breadth, by their file-layout conventions: Java's
// `a.b.C` is a file `a/b/C.java` under any source root; C and C++'s `#include "x.h"` is found
// beside the including file, at the project root, under `include/`, or as the one file ending in
// `/x.h`; Ruby's `require_relative "x"` is `x.rb` beside the file and `require "x"` a file under
// `lib/` or the root; PHP's `require`/`include` path is relative to the file, and `use A\B\C` is
// the one file whose path ends with the longest suffix of `A/B/C.php` that keeps `B/C.php` (PSR-4's
// autoload layout).
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

export function createRubyResolver(files: ReadonlySet<string>): (fromPath: string, module: string) => string | null {
  return (fromPath, module) => {
    const file = module.endsWith(".rb") ? module : `${module}.rb`;
    const bases = module.startsWith(".") ? [dirOf(fromPath)] : ["lib", ""];
    for (const base of bases) {
      const path = normal(posix.join(base, file));
      if (!path.startsWith("..") && files.has(path)) return path;
    }
    return null;
  };
}

export function createPhpResolver(files: ReadonlySet<string>): (fromPath: string, module: string) => string | null {
  const index = byBasename(files);
  return (fromPath, module) => {
    if (module.startsWith(".")) {
      const path = normal(posix.join(dirOf(fromPath), module));
      return !path.startsWith("..") && files.has(path) ? path : null;
    }
    const segments = module.split("\\").filter((s) => s !== "");
    // At least the class and its namespace's last segment: a bare basename would match any
    // project class of the same name, whatever the namespace.
    for (let from = 0; from < Math.max(1, segments.length - 1); from++) {
      const found = uniqueSuffix(index, `${segments.slice(from).join("/")}.php`);
      if (found) return found;
    }
    return null;
  };
}
