// The one glob primitive (walker excludes, later search file_pattern): `*` and `?` never cross
// `/`, `**` does, matching is case-sensitive and dot-files are matched like any other name.
import { createRequire } from "node:module";
import type Picomatch from "picomatch";
import { MastError, errorMessage } from "./errors.js";

// A CommonJS package is required, not imported: ESM's import of CommonJS first scans its source
// for export names (~25 ms of every CLI start for `ignore` alone); and at the first glob compiled,
// not at import (~5 ms of every CLI start, a `mast query` a server answers included).
let loaded: typeof Picomatch | null = null;
const picomatch = (patterns: string[], options: Picomatch.PicomatchOptions) => (loaded ??= createRequire(import.meta.url)("picomatch") as typeof Picomatch)(patterns, options);

/** The longest glob accepted. */
export const MAX_GLOB_LENGTH = 1000;

export interface GlobSet {
  /** True when a project-relative file path matches any pattern. */
  matches(path: string): boolean;
  /** True when every path below this directory is excluded (a pattern ending in `/**` covers it). */
  coversDirectory(dir: string): boolean;
}

const OPTIONS = { dot: true, nocase: false, posixSlashes: true } as const;

/**
 * What makes a glob malformed, as ripgrep's globset says it: an unclosed `[` class or `{` group,
 * or a trailing escape. picomatch would match such a pattern literally, and an answer scoped by a
 * typo would come back empty as if nothing matched. Null when the pattern is well formed.
 */
export function globSyntaxError(pattern: string): string | null {
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      if (i + 1 >= pattern.length) return "it ends with an escape (\\)";
      i++;
    } else if (c === "[") {
      // A `]` right after `[` (or `[!`, `[^`) is a member of the class, not its end.
      let j = i + 1;
      if (pattern[j] === "!" || pattern[j] === "^") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") j += pattern[j] === "\\" ? 2 : 1;
      if (j >= pattern.length) return `the character class opened at ${i + 1} is not closed (a literal [ is written \\[)`;
      i = j;
    } else if (c === "{") braces++;
    else if (c === "}" && braces > 0) braces--;
  }
  return braces > 0 ? "a {…} group is not closed (a literal { is written \\{)" : null;
}

/** Compiles globs; INVALID_ARGUMENT for one that is too long, has a NUL byte, is malformed or does not compile. */
export function compileGlobs(patterns: readonly string[]): GlobSet {
  for (const p of patterns) {
    if (p.length > MAX_GLOB_LENGTH) throw new MastError("INVALID_ARGUMENT", `a glob of ${p.length} characters is longer than ${MAX_GLOB_LENGTH}`);
    if (p.includes("\0")) throw new MastError("INVALID_ARGUMENT", "a glob has a NUL byte");
    const bad = globSyntaxError(p);
    if (bad !== null) throw new MastError("INVALID_ARGUMENT", `the glob ${JSON.stringify(p.slice(0, 200))} is malformed: ${bad}`);
  }
  let full: (path: string) => boolean;
  let dirMatch: (path: string) => boolean;
  try {
    full = patterns.length ? picomatch(patterns as string[], OPTIONS) : () => false;
    const dirPrefixes = patterns
      .filter((p) => p.endsWith("/**"))
      .map((p) => p.slice(0, -3))
      .filter((p) => p.length > 0);
    dirMatch = dirPrefixes.length ? picomatch(dirPrefixes, OPTIONS) : () => false;
  } catch (err) {
    throw new MastError("INVALID_ARGUMENT", `the glob ${JSON.stringify(patterns.join(", ").slice(0, 200))} does not compile: ${errorMessage(err)}`);
  }
  return {
    matches: (path) => full(path),
    coversDirectory: (dir) => dirMatch(dir),
  };
}
