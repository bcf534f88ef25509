// The one glob primitive (walker excludes, later search file_pattern): `*` and `?` never cross
// `/`, `**` does, matching is case-sensitive and dot-files are matched like any other name.
import picomatch from "picomatch";

export interface GlobSet {
  /** True when a project-relative file path matches any pattern. */
  matches(path: string): boolean;
  /** True when every path below this directory is excluded (a pattern ending in `/**` covers it). */
  coversDirectory(dir: string): boolean;
}

const OPTIONS = { dot: true, nocase: false, posixSlashes: true } as const;

export function compileGlobs(patterns: readonly string[]): GlobSet {
  const full = patterns.length ? picomatch(patterns as string[], OPTIONS) : () => false;
  const dirPrefixes = patterns.filter((p) => p.endsWith("/**")).map((p) => p.slice(0, -3)).filter((p) => p.length > 0);
  const dirMatch = dirPrefixes.length ? picomatch(dirPrefixes, OPTIONS) : () => false;
  return {
    matches: (path) => full(path),
    coversDirectory: (dir) => dirMatch(dir),
  };
}
