// The one glob primitive (walker excludes, later search file_pattern): `*` and `?` never cross
// `/`, `**` does, matching is case-sensitive and dot-files are matched like any other name.
import picomatch from "picomatch";
import { MastError, errorMessage } from "./errors.js";

/** The longest glob accepted. */
export const MAX_GLOB_LENGTH = 1000;

export interface GlobSet {
  /** True when a project-relative file path matches any pattern. */
  matches(path: string): boolean;
  /** True when every path below this directory is excluded (a pattern ending in `/**` covers it). */
  coversDirectory(dir: string): boolean;
}

const OPTIONS = { dot: true, nocase: false, posixSlashes: true } as const;

/** Compiles globs; INVALID_ARGUMENT for one that is too long, has a NUL byte or does not compile. */
export function compileGlobs(patterns: readonly string[]): GlobSet {
  for (const p of patterns) {
    if (p.length > MAX_GLOB_LENGTH) throw new MastError("INVALID_ARGUMENT", `a glob of ${p.length} characters is longer than ${MAX_GLOB_LENGTH}`);
    if (p.includes("\0")) throw new MastError("INVALID_ARGUMENT", "a glob has a NUL byte");
  }
  let full: (path: string) => boolean;
  let dirMatch: (path: string) => boolean;
  try {
    full = patterns.length ? picomatch(patterns as string[], OPTIONS) : () => false;
    const dirPrefixes = patterns.filter((p) => p.endsWith("/**")).map((p) => p.slice(0, -3)).filter((p) => p.length > 0);
    dirMatch = dirPrefixes.length ? picomatch(dirPrefixes, OPTIONS) : () => false;
  } catch (err) {
    throw new MastError("INVALID_ARGUMENT", `the glob ${JSON.stringify(patterns.join(", ").slice(0, 200))} does not compile: ${errorMessage(err)}`);
  }
  return {
    matches: (path) => full(path),
    coversDirectory: (dir) => dirMatch(dir),
  };
}
