// The file walker: which files under the project root get indexed (extensions, exclude globs,
// .gitignore rules, skipped directories), listed with size, mtime and inode in a deterministic
// order. Symlinks are never followed: an in-root target is walked under its canonical path anyway,
// so following links would only index duplicates, escape the root or loop. With a cache of the
// last walk (git's untracked cache), a directory whose own stat is unchanged is not read again:
// its entries cannot have changed, only their contents, and every file is still stat'ed — the
// directories a generation at a time and the kept files all at once, each in one native call. When
// the last walk trusted every directory it read, its cache also keeps the sorted list of the files
// it kept (index/walk-cache.ts): a walk finding every directory as cached then stats the
// directories in one call and those files in another, and lists nothing.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type Ignore from "ignore";
import { MastError, ioErrorMessage } from "../base/errors.js";
import { compileGlobs, type GlobSet } from "../base/glob.js";
import { STAT_WORDS, StatKind, lstatMany, lstatManyAsync, splitPaths, statKeyAt, type JoinedPaths } from "../base/native.js";
import { trustedList, type CachedDir, type StatKey, type WalkCache } from "./walk-cache.js";
import type { ResolvedConfig } from "./config.js";
import { RACY_WINDOW_MS } from "./read.js";

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
  /**
   * The last walk's listings (null: none) and the key of these options: listings made under
   * another key (other extensions, excludes, .gitignore setting) are not used.
   */
  readonly cache?: { readonly key: string; readonly previous: WalkCache | null };
}

export interface WalkedFile {
  /** Project-relative, "/" separators. */
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly ctimeMs: number;
}

export interface WalkProblem {
  /** Project-relative path of the entry that could not be read. */
  readonly path: string;
  /** The system error without the absolute path, e.g. "EACCES: permission denied". */
  readonly error: string;
}

export interface WalkResult {
  /** The files' paths, sorted in code-unit order. */
  readonly paths: readonly string[];
  /** The files' stats: STAT_WORDS doubles per path (kind FILE, size, mtimeMs, ino, ctimeMs), in `paths`' order (`walkedFileAt` makes one an object). */
  readonly stats: Float64Array;
  /** Sorted by path in code-unit order. */
  readonly problems: WalkProblem[];
  /** Symlinks seen and not followed (those excluded by globs or .gitignore are not counted). */
  readonly skippedSymlinks: number;
  /** The listings for the next walk, when the options asked for a cache. */
  readonly cache?: WalkCache;
  /** With a cache: whether its listings differ from the previous walk's (false: every listing came from it, and no listed directory went). */
  readonly cacheChanged?: boolean;
  /** With a cache: each directory walked (absolute path) with its lstat as [size, mtime, ino, ctime] (made when first read). */
  readonly dirStats?: ReadonlyMap<string, StatKey>;
  /** `paths` as the joined list they were split from, when the walk took them whole from its cache's trusted list. */
  readonly list?: JoinedPaths;
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
  /** The rules of an ancestor changed since the cache was made: this subtree is read afresh. */
  readonly stale: boolean;
}

interface DirStat {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly ctimeMs: number;
}

/** The `index`th path's stat in an lstatMany answer, or undefined where it could not be stat'ed. */
function dirStatAt(stats: Float64Array, index: number): DirStat | undefined {
  const at = index * STAT_WORDS;
  return stats[at] === StatKind.NONE ? undefined : { size: stats[at + 1]!, mtimeMs: stats[at + 2]!, ino: stats[at + 3]!, ctimeMs: stats[at + 4]! };
}

/** A path's lstat as [size, mtime, ino, ctime], or null when it cannot be stat'ed (absent, under a non-directory, unreadable). */
function statKey(abs: string): StatKey | null {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  return st ? [st.size, st.mtimeMs, st.ino, st.ctimeMs] : null;
}

const sameKey = (a: StatKey | null, b: StatKey | null) => (a === null || b === null ? a === b : a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3]);

type Kind = "file" | "dir" | "symlink" | "other";

/**
 * A walk with every directory listed and no file stat'ed yet: `kept` names the files it keeps
 * (root-relative; `base` + path is each one's), `finish` makes the result from their lstatMany
 * answer — made meanwhile off the main thread by a caller with other work to do (lstatManyAsync).
 */
export interface WalkListing {
  readonly kept: JoinedPaths;
  readonly base: string;
  finish(stats: Float64Array): WalkResult;
}

export function walkProject(options: WalkOptions): WalkResult {
  const listing = listProject(options);
  return listing.finish(lstatMany(listing.kept, listing.base));
}

/** The project's listing: the cache's list of files when every directory stats as cached (`cachedListing`), else one read directory by directory. */
export function listProject(options: WalkOptions): WalkListing {
  return cachedListing(options) ?? readListing(options);
}

/** The root-relative directory `rel` as the walk names it (a frame's `abs`). */
const dirPath = (root: string, rel: string) => (rel === "" ? root : `${root}/${rel}`);

/**
 * The last walk's files as this walk's, when that walk trusted every directory (its cache has a
 * trusted list) and every directory still stats as it was listed — mtime, inode and ctime, its
 * .gitignore as it was, .git/info/exclude too: then no entry was added, removed or renamed and no
 * rule changed, so a walk reading each listing again would keep exactly these files. The
 * directories are stat'ed in one call, the .gitignore files in another. Null when any of it does
 * not hold; `finish` walks afresh when a kept file no longer stats as a file (replaced by a link since).
 */
function cachedListing(options: WalkOptions): WalkListing | null {
  const prev = options.cache?.previous;
  const t = prev?.trusted;
  if (!prev || !t || prev.key !== options.cache!.key) return null;
  const { root, respectGitignore } = options;
  if (!sameKey(prev.exclude, respectGitignore ? statKey(path.join(root, ".git", "info", "exclude")) : null)) return null;
  // A walk without .gitignore rules reads none: a list made with them is not this walk's.
  if (!respectGitignore && t.gitignores.count > 0) return null;
  const base = root.endsWith("/") ? root : `${root}/`;
  // The root is `base` + "": stat'ed with its trailing slash, still the directory.
  const dirStats = lstatMany(t.dirs, base);
  for (let i = 0; i < t.dirs.count; i++) {
    const at = i * STAT_WORDS;
    if (dirStats[at] !== StatKind.DIR || dirStats[at + 2] !== t.dirStats[i * 3] || dirStats[at + 3] !== t.dirStats[i * 3 + 1] || dirStats[at + 4] !== t.dirStats[i * 3 + 2]) return null;
  }
  const gitignoreStats = lstatMany(t.gitignores, base);
  for (let i = 0; i < t.gitignores.count; i++) {
    const stat = statKeyAt(gitignoreStats, i);
    const listed = t.gitignoreStats.subarray(i * 4, i * 4 + 4);
    if (stat === null || stat.some((v, k) => v !== listed[k])) return null;
  }
  let dirMap: Map<string, StatKey> | null = null;
  const finish = (fileStats: Float64Array): WalkResult => {
    const paths = splitPaths(t.files);
    if (paths.length !== t.files.count || fileStats.length !== t.files.count * STAT_WORDS) return walkAfresh(options);
    // Each in a directory the check stat'ed: verified when the list was read (walk-cache.ts wellFormed).
    for (let i = 0; i < paths.length; i++) if (fileStats[i * STAT_WORDS] !== StatKind.FILE) return walkAfresh(options);
    return {
      paths,
      list: t.files,
      stats: fileStats,
      problems: [],
      skippedSymlinks: t.symlinks,
      cache: prev,
      cacheChanged: false,
      // An index run checks its resolver's recorded directories against these; a status never asks.
      get dirStats(): ReadonlyMap<string, StatKey> {
        if (dirMap === null) {
          const map = new Map<string, StatKey>();
          // Every one stat'ed as a directory above.
          splitPaths(t.dirs).forEach((rel, i) => map.set(dirPath(root, rel), statKeyAt(dirStats, i)!));
          dirMap = map;
        }
        return dirMap;
      },
    };
  };
  return { kept: t.files, base, finish };
}

/**
 * The walk with every directory read, when the cache's file list did not hold up (a file no longer
 * a file, or one outside the directories it checks): the listings, whose names came from that
 * list, are not used either; the cache the walk makes replaces it.
 */
function walkAfresh(options: WalkOptions): WalkResult {
  const listing = readListing(options.cache === undefined ? options : { ...options, cache: { key: options.cache.key, previous: null } });
  return listing.finish(lstatMany(listing.kept, listing.base));
}

/** Every directory read (or its cached listing reused), a generation at a time: the files kept, to be stat'ed by `finish`. */
function readListing(options: WalkOptions): WalkListing {
  const walk = new DirectoryWalk(options);
  // Directories are walked a generation at a time: the stack's frames are stat'ed in one call.
  while (walk.stack.length > 0) {
    const generation = walk.stack.splice(0);
    const generationStats = walk.caching ? lstatMany(generation.map((f) => f.abs)) : null;
    generation.forEach((frame, index) => walk.visit(frame, generationStats === null ? undefined : dirStatAt(generationStats, index)));
  }
  return { kept: { joined: walk.kept.join("\0"), count: walk.kept.length }, base: walk.base, finish: (stats) => walk.finish(stats) };
}

/** readListing's walk: the directories still to list, the files kept, the listings for the next walk's cache, what went wrong. */
class DirectoryWalk {
  private readonly skipDirs: Set<string>;
  private readonly files: WalkedFile[] = [];
  private readonly problems: WalkProblem[] = [];
  private skippedSymlinks = 0;
  readonly caching: boolean;
  private readonly excludeKey: StatKey | null;
  /** The last walk's listings, when made under these options and the same .git/info/exclude. */
  private readonly previous: Record<string, CachedDir> | null;
  private readonly listings: Record<string, CachedDir> = {};
  private readonly dirStats = new Map<string, StatKey>();
  private reused = 0;
  private visited = 0;
  /** The files the walk keeps, stat'ed together once every directory is listed (a cached listing says only that they were there). */
  readonly kept: string[] = [];
  readonly base: string;
  readonly stack: Frame[];

  constructor(private readonly options: WalkOptions) {
    const { root, respectGitignore } = options;
    this.skipDirs = new Set(options.skipDirs.map((dir) => path.resolve(dir)));
    let rootRules: Rules | null = null;
    const excludeFile = path.join(root, ".git", "info", "exclude");
    this.caching = options.cache !== undefined;
    this.excludeKey = this.caching && respectGitignore ? statKey(excludeFile) : null;
    if (respectGitignore) {
      const text = readRuleFile(excludeFile, ".git/info/exclude", this.problems, true);
      if (text !== null) rootRules = extendRules(null, "", text);
    }
    const prev = options.cache?.previous;
    this.previous = prev && prev.key === options.cache!.key && sameKey(prev.exclude, this.excludeKey) ? prev.dirs : null;
    this.base = root.endsWith("/") ? root : `${root}/`;
    this.stack = this.skipDirs.has(path.resolve(root)) ? [] : [{ abs: root, rel: "", rules: rootRules, stale: false }];
  }

  /** The rules in force below a directory: its parent's, extended by its own .gitignore (`abs`). */
  private withGitignore(frame: Frame, abs: string): Rules | null {
    const text = readRuleFile(abs, join(frame.rel, ".gitignore"), this.problems, false);
    return text === null ? frame.rules : extendRules(frame.rules, frame.rel, text);
  }

  /** Lists one directory (or reuses its cached listing): its kept files, and its subdirectories pushed on the stack. */
  visit(frame: Frame, dirStat: DirStat | undefined): void {
    this.visited++;
    if (dirStat) this.dirStats.set(frame.abs, [dirStat.size, dirStat.mtimeMs, dirStat.ino, dirStat.ctimeMs]);
    const listedAt = Date.now();
    if (this.reuseListing(frame, dirStat)) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(frame.abs, { withFileTypes: true });
    } catch (err) {
      if (frame.rel === "") {
        throw new MastError("READ_FAILED", `Cannot read the project root ${this.options.root}: ${ioErrorMessage(err)}`, {
          details: { path: this.options.root },
          cause: err,
        });
      }
      this.problems.push({ path: frame.rel, error: ioErrorMessage(err) });
      return;
    }
    this.readEntries(frame, dirStat, entries, listedAt);
  }

  /** A directory whose stat (and .gitignore) is as its cached listing has it: that listing's files and subdirectories, taken as they are. */
  private reuseListing(frame: Frame, dirStat: DirStat | undefined): boolean {
    const cached = this.previous && !frame.stale ? this.previous[frame.rel] : undefined;
    if (!cached || !dirStat || cached.m !== dirStat.mtimeMs || cached.i !== dirStat.ino || cached.c !== dirStat.ctimeMs) return false;
    // The entries are those listed before; only a .gitignore edited in place can change what they let through.
    const gitignore = this.options.respectGitignore && cached.g !== null ? path.join(frame.abs, ".gitignore") : null;
    if (gitignore !== null && !sameKey(statKey(gitignore), cached.g)) return false;
    const rules = gitignore === null ? frame.rules : this.withGitignore(frame, gitignore);
    // Names from a listing of this very directory: joined, not normalised.
    for (const name of cached.f) this.kept.push(join(frame.rel, name));
    for (const name of cached.d) this.stack.push({ abs: `${frame.abs}/${name}`, rel: join(frame.rel, name), rules, stale: false });
    this.skippedSymlinks += cached.s;
    this.listings[frame.rel] = cached;
    this.reused++;
    return true;
  }

  /** A directory's entries, read: the files kept, the subdirectories pushed, symlinks counted, and its listing cached when it may be. */
  private readEntries(frame: Frame, dirStat: DirStat | undefined, entries: fs.Dirent[], listedAt: number): void {
    const { extensions, exclude, respectGitignore } = this.options;
    const { problems, kept, stack, skipDirs } = this;
    let rules = frame.rules;
    let gitignoreKey: StatKey | null = null;
    if (respectGitignore) {
      const entry = entries.find((e) => e.name === ".gitignore");
      // Like git (2.32+), a .gitignore that is a symlink is not read.
      const abs = path.join(frame.abs, ".gitignore");
      if (entry !== undefined && kindOrNull(entry, abs) === "file") {
        if (this.caching) gitignoreKey = statKey(abs);
        rules = this.withGitignore(frame, abs);
      }
    }
    // This directory's rules changed (or it is new): its subtree's listings were filtered by others.
    const before = this.previous?.[frame.rel];
    const stale = frame.stale || (before !== undefined && !sameKey(before.g, gitignoreKey));
    const problemsBefore = problems.length;
    const keptFiles: string[] = [];
    const keptDirs: string[] = [];
    let symlinksHere = 0;

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
        stack.push({ abs, rel, rules, stale });
        keptDirs.push(name);
      } else if (kind === "symlink") {
        // git treats a symlink as a non-directory, so `build/` patterns do not match it.
        if (!exclude.matches(rel) && !ignored(rules, rel)) {
          this.skippedSymlinks++;
          symlinksHere++;
        }
      } else if (kind === "file") {
        if (!extensions.some((ext) => name.endsWith(ext)) || exclude.matches(rel) || ignored(rules, rel)) continue;
        kept.push(rel);
        keptFiles.push(name);
      }
      // FIFOs, sockets and devices are not source files and are never opened.
    }
    // Kept for the next walk only when nothing went wrong here and the listing cannot be racy.
    // A listing is cached only when the directory's mtime was RACY_WINDOW_MS before the read: an
    // entry added in the same timestamp granule as the read could keep the mtime (index/read.ts).
    if (this.caching && dirStat && problems.length === problemsBefore && dirStat.mtimeMs < listedAt - RACY_WINDOW_MS) {
      this.listings[frame.rel] = { m: dirStat.mtimeMs, i: dirStat.ino, c: dirStat.ctimeMs, g: gitignoreKey, f: keptFiles, d: keptDirs, s: symlinksHere };
    }
  }

  /** The walk's result from the kept files' lstatMany answer, with the cache for the next walk when it asked for one. */
  finish(stats: Float64Array): WalkResult {
    const { files, problems, kept } = this;
    kept.forEach((rel, index) => {
      const at = index * STAT_WORDS;
      const kind = stats[at];
      if (kind === StatKind.FILE) files.push({ path: rel, size: stats[at + 1]!, mtimeMs: stats[at + 2]!, ino: stats[at + 3]!, ctimeMs: stats[at + 4]! });
      else if (kind === StatKind.SYMLINK)
        this.skippedSymlinks++; // replaced by a link since readdir
      else if (kind === StatKind.NONE) {
        // Typically ENOENT: the file vanished between readdir and stat. Stat'ed again for the error
        // — or for what is there now (recreated since: a checkout, a generator), taken as it is.
        let again: fs.Stats;
        try {
          again = fs.lstatSync(this.base + rel);
        } catch (err) {
          problems.push({ path: rel, error: ioErrorMessage(err) });
          return;
        }
        if (again.isFile()) files.push({ path: rel, size: again.size, mtimeMs: again.mtimeMs, ino: again.ino, ctimeMs: again.ctimeMs });
        else if (again.isSymbolicLink()) this.skippedSymlinks++;
      }
    });
    files.sort((a, b) => compare(a.path, b.path));
    problems.sort((a, b) => compare(a.path, b.path) || compare(a.error, b.error));
    const columns = columnsOf(files);
    const { skippedSymlinks, listings, previous } = this;
    if (!this.caching) return { ...columns, problems, skippedSymlinks };
    // Every directory's listing trusted and every kept file a file: the list of them goes with the listings.
    const listed = Object.keys(listings).length;
    const complete = this.visited === listed && problems.length === 0 && files.length === kept.length;
    const cache: WalkCache = {
      key: this.options.cache!.key,
      exclude: this.excludeKey,
      dirs: listings,
      ...(complete
        ? {
            trusted: trustedList(
              listings,
              files.map((f) => f.path),
            ),
          }
        : {}),
    };
    // Every listing reused, and as many as before: none read afresh, none gone (and the file list as it was).
    const cacheChanged =
      previous === null || this.reused !== listed || this.reused !== Object.keys(previous).length || this.options.cache!.previous!.trusted?.files.joined !== cache.trusted?.files.joined;
    return { ...columns, problems, skippedSymlinks, cache, cacheChanged, dirStats: this.dirStats };
  }
}

/** Whether a directory's rules (null: none) ignore a root-relative path. */
function ignored(rules: Rules | null, rel: string): boolean {
  return rules !== null && rules.ignores(rel);
}

/** The `index`th of a walk's files as an object (made from its columns: a status reading a few of 110,000 makes a few). */
export function walkedFileAt(walk: Pick<WalkResult, "paths" | "stats">, index: number): WalkedFile {
  const at = index * STAT_WORDS;
  const { stats } = walk;
  return { path: walk.paths[index]!, size: stats[at + 1]!, mtimeMs: stats[at + 2]!, ino: stats[at + 3]!, ctimeMs: stats[at + 4]! };
}

/** The columns of the files a walk read afresh (as objects). */
function columnsOf(files: readonly WalkedFile[]): Pick<WalkResult, "paths" | "stats"> {
  const stats = new Float64Array(files.length * STAT_WORDS);
  files.forEach((f, i) => stats.set([StatKind.FILE, f.size, f.mtimeMs, f.ino, f.ctimeMs], i * STAT_WORDS));
  return { paths: files.map((f) => f.path), stats };
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

/**
 * Walks the project exactly as the indexer does (shared with freshness checks); with `previous`
 * (the last walk's cache, or null) the walk reuses its listings and returns the next cache.
 */
export function walkForConfig(config: ResolvedConfig, previous?: WalkCache | null): WalkResult {
  const listing = listForConfig(config, previous);
  return listing.finish(lstatMany(listing.kept, listing.base));
}

/**
 * walkForConfig with `meanwhile` run while the walk's files are stat'ed off the main thread (an
 * index run and a status read the index's stamps then): both answers.
 */
export async function walkForConfigWhile<T>(config: ResolvedConfig, previous: WalkCache | null, meanwhile: () => T): Promise<{ walk: WalkResult; during: T }> {
  const listing = listForConfig(config, previous);
  const stats = lstatManyAsync(listing.kept, listing.base);
  const during = meanwhile();
  return { walk: listing.finish(await stats), during };
}

/** walkForConfig's listing, its files to be stat'ed by the caller (`WalkListing`). */
function listForConfig(config: ResolvedConfig, previous?: WalkCache | null): WalkListing {
  const key = JSON.stringify({ v: 1, root: config.project_root, ext: config.file_extensions, exclude: config.exclude_patterns, gitignore: config.respect_gitignore, skip: config.state_dir });
  return listProject({
    root: config.project_root,
    extensions: config.file_extensions,
    exclude: compileGlobs(config.exclude_patterns),
    respectGitignore: config.respect_gitignore,
    skipDirs: [config.state_dir],
    ...(previous === undefined ? {} : { cache: { key, previous } }),
  });
}
