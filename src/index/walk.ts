// The file walker: which files under the project root get indexed (extensions, exclude globs,
// .gitignore rules, skipped directories), listed with size and mtime in a deterministic order.
// Symlinks are never followed: an in-root target is walked under its canonical path anyway, so
// following links would only index duplicates, escape the root or loop.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type Ignore from "ignore";
import { MastError, ioErrorMessage } from "../base/errors.js";
import { compileGlobs, type GlobSet } from "../base/glob.js";
import type { ResolvedConfig } from "./config.js";

// A CommonJS package is required, not imported: ESM's import of CommonJS first scans its source
// for export names (~25 ms of every CLI start for `ignore` alone).
const ignore = createRequire(import.meta.url)("ignore") as typeof Ignore;

export interface WalkOptions {
  /** Absolute, already realpath'd project root. */
  readonly root: string;
  /** A file is walked when its name ends with one of these (case-sensitive), e.g. [".ts", ".md"]. */
  readonly extensions: readonly string[];
  /** Matched against project-relative paths with "/" separators. */
  readonly exclude: GlobSet;
  /** Honour .gitignore files (each scoped to its own directory, like git) and .git/info/exclude. */
  readonly respectGitignore: boolean;
  /** Absolute paths of directories never entered (the state dir). */
  readonly skipDirs: readonly string[];
}

export interface WalkedFile {
  /** Project-relative, "/" separators. */
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

export interface WalkProblem {
  /** Project-relative path of the entry that could not be read. */
  readonly path: string;
  /** The system error without the absolute path, e.g. "EACCES: permission denied". */
  readonly error: string;
}

export interface WalkResult {
  /** Sorted by path in code-unit order. */
  readonly files: WalkedFile[];
  /** Sorted by path in code-unit order. */
  readonly problems: WalkProblem[];
  /** Symlinks seen and not followed (those excluded by globs or .gitignore are not counted). */
  readonly skippedSymlinks: number;
}

type Rules = ReturnType<typeof ignore>;

/** Version-control metadata directories, never entered whatever the options say. */
const VCS_DIRS: ReadonlySet<string> = new Set([".git", ".hg", ".svn"]);

interface Frame {
  readonly abs: string;
  /** "" for the root. */
  readonly rel: string;
  /** Every ignore rule in force for this directory's entries, root-relative; null when none. */
  readonly rules: Rules | null;
}

type Kind = "file" | "dir" | "symlink" | "other";

export function walkProject(options: WalkOptions): WalkResult {
  const { root, extensions, exclude, respectGitignore } = options;
  const skipDirs = new Set(options.skipDirs.map((dir) => path.resolve(dir)));
  const files: WalkedFile[] = [];
  const problems: WalkProblem[] = [];
  let skippedSymlinks = 0;

  const wanted = (name: string): boolean => extensions.some((ext) => name.endsWith(ext));
  const ignored = (rules: Rules | null, rel: string): boolean => rules !== null && rules.ignores(rel);

  let rootRules: Rules | null = null;
  if (respectGitignore) {
    const text = readRuleFile(path.join(root, ".git", "info", "exclude"), ".git/info/exclude", problems, true);
    if (text !== null) rootRules = extendRules(null, "", text);
  }

  const stack: Frame[] = skipDirs.has(path.resolve(root)) ? [] : [{ abs: root, rel: "", rules: rootRules }];
  let frame: Frame | undefined;
  while ((frame = stack.pop()) !== undefined) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(frame.abs, { withFileTypes: true });
    } catch (err) {
      if (frame.rel === "") {
        throw new MastError("READ_FAILED", `Cannot read the project root ${root}: ${ioErrorMessage(err)}`, {
          details: { path: root },
          cause: err,
        });
      }
      problems.push({ path: frame.rel, error: ioErrorMessage(err) });
      continue;
    }

    let rules = frame.rules;
    if (respectGitignore) {
      const entry = entries.find((e) => e.name === ".gitignore");
      // Like git (2.32+), a .gitignore that is a symlink is not read.
      if (entry !== undefined && kindOrNull(entry, path.join(frame.abs, entry.name)) === "file") {
        const rel = join(frame.rel, ".gitignore");
        const text = readRuleFile(path.join(frame.abs, ".gitignore"), rel, problems, false);
        if (text !== null) rules = extendRules(rules, frame.rel, text);
      }
    }

    for (const entry of entries) {
      const name = entry.name;
      const rel = join(frame.rel, name);
      const abs = path.join(frame.abs, name);
      let kind: Kind;
      try {
        kind = kindOf(entry, abs);
      } catch (err) {
        problems.push({ path: rel, error: ioErrorMessage(err) });
        continue;
      }

      if (kind === "dir") {
        if (VCS_DIRS.has(name) || skipDirs.has(abs)) continue;
        if (exclude.coversDirectory(rel) || ignored(rules, rel + "/")) continue;
        stack.push({ abs, rel, rules });
      } else if (kind === "symlink") {
        // git treats a symlink as a non-directory, so `build/` patterns do not match it.
        if (!exclude.matches(rel) && !ignored(rules, rel)) skippedSymlinks++;
      } else if (kind === "file") {
        if (!wanted(name) || exclude.matches(rel) || ignored(rules, rel)) continue;
        let stats: fs.Stats;
        try {
          stats = fs.lstatSync(abs);
        } catch (err) {
          // Typically ENOENT: the file vanished between readdir and stat.
          problems.push({ path: rel, error: ioErrorMessage(err) });
          continue;
        }
        if (stats.isFile()) files.push({ path: rel, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino });
        else if (stats.isSymbolicLink()) skippedSymlinks++; // replaced by a link since readdir
      }
      // FIFOs, sockets and devices are not source files and are never opened.
    }
  }

  files.sort((a, b) => compare(a.path, b.path));
  problems.sort((a, b) => compare(a.path, b.path) || compare(a.error, b.error));
  return { files, problems, skippedSymlinks };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function join(dirRel: string, name: string): string {
  return dirRel === "" ? name : `${dirRel}/${name}`;
}

/** The entry's type without following links; lstat only when the filesystem did not report it. */
function kindOf(entry: fs.Dirent, abs: string): Kind {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isDirectory()) return "dir";
  if (entry.isFile()) return "file";
  if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()) return "other";
  const stats = fs.lstatSync(abs); // DT_UNKNOWN
  if (stats.isSymbolicLink()) return "symlink";
  if (stats.isDirectory()) return "dir";
  if (stats.isFile()) return "file";
  return "other";
}

function kindOrNull(entry: fs.Dirent, abs: string): Kind | null {
  try {
    return kindOf(entry, abs);
  } catch {
    return null; // reported when the entry itself is visited
  }
}

/** The file's text, or null when it is absent (optional files) or unreadable (recorded as a problem). */
function readRuleFile(abs: string, rel: string, problems: WalkProblem[], optional: boolean): string | null {
  try {
    return fs.readFileSync(abs, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (optional && (code === "ENOENT" || code === "ENOTDIR")) return null;
    problems.push({ path: rel, error: ioErrorMessage(err) });
    return null;
  }
}

/**
 * The rules in force below `dirRel`: the parent's rules followed by this directory's, so a
 * deeper file wins (git's precedence). Every rule is rewritten to be root-relative, which keeps
 * one rule set per directory and lets a deeper `!dir/` re-include a directory a shallower
 * file ignored (testing each file's own-relative path against it separately cannot do that,
 * because `ignore` also tests the parent directories against each file on its own).
 */
function extendRules(parent: Rules | null, dirRel: string, text: string): Rules | null {
  const patterns: string[] = [];
  for (const line of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    const pattern = dirRel === "" ? line : scopePattern(line, dirRel);
    if (pattern !== null && pattern.trim() !== "" && !pattern.startsWith("#")) patterns.push(pattern);
  }
  if (patterns.length === 0) return parent;
  const rules = ignore({ ignorecase: false });
  if (parent !== null) rules.add(parent);
  return rules.add(patterns);
}

/** A .gitignore line of directory `dirRel` rewritten relative to the root; null for none. */
function scopePattern(line: string, dirRel: string): string | null {
  if (line === "" || line.startsWith("#")) return null;
  const negative = line.startsWith("!");
  let body = negative ? line.slice(1) : line;
  // Only the separators matter here; trailing spaces are left for `ignore` to trim.
  const core = body.replace(/\s+$/, "").replace(/\/$/, "");
  if (core === "") return null;
  // git: a slash at the start or in the middle anchors the pattern to the .gitignore's
  // directory; otherwise it matches at any depth below it.
  const anchored = core.includes("/");
  if (body.startsWith("/")) body = body.slice(1);
  const prefix = escapeGlob(dirRel) + (anchored ? "/" : "/**/");
  return (negative ? "!" : "") + prefix + body;
}

/** A literal path as a gitignore pattern: glob characters, and `!`/`#` that could lead it, escaped. */
function escapeGlob(literal: string): string {
  return literal.replace(/[\\*?[\]!#]/g, "\\$&");
}

/** Walks the project exactly as the indexer does (shared with freshness checks). */
export function walkForConfig(config: ResolvedConfig): WalkResult {
  return walkProject({
    root: config.project_root,
    extensions: config.file_extensions,
    exclude: compileGlobs(config.exclude_patterns),
    respectGitignore: config.respect_gitignore,
    skipDirs: [config.state_dir],
  });
}
