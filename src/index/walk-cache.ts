// The walk's cache (`<state_dir>/walk-cache.bin`, git's untracked cache): each directory's filtered
// listing with the stat it was read at, for the next walk to reuse (index/walk.ts), and — when the
// walk that made it trusted every directory — the list of every file it kept with the stats of
// every directory and .gitignore, laid out for a walk that finds them all unchanged to stat them in
// two native calls and list nothing (at 1 GB: 24,000 directories, 110,000 files, no object per
// directory or file read). Its bytes: "MWLK", the format, then the listings as JSON (parsed only
// when a listing is wanted) and the trusted list as typed numbers and NUL-joined paths.
import { nativeTrustedListHolds, splitPaths, type JoinedPaths } from "../base/native.js";

/** A file's stat as the cache compares it: size, mtime (ms), inode, ctime (ms) — what git stamps, so a rewrite that keeps its mtime is seen. */
export type StatKey = readonly [number, number, number, number];

/** One directory's filtered listing, kept only when it can be trusted (index/walk.ts RACY_WINDOW_MS). */
export interface CachedDir {
  /** The directory's mtime, inode and ctime when it was read. */
  readonly m: number;
  readonly i: number;
  readonly c: number;
  /** Its .gitignore's stat; null when it has none. */
  readonly g: StatKey | null;
  /** Names of the files and subdirectories that passed every filter, and the symlinks counted. */
  readonly f: readonly string[];
  readonly d: readonly string[];
  readonly s: number;
}

/**
 * What a walk that read or reused every directory's listing from a trusted cache knows: every
 * directory (root-relative, "" the root) with its mtime, inode and ctime; each .gitignore it read
 * (`<dir>/.gitignore`) with its StatKey; the symlinks counted; and every file kept, sorted as the
 * walk sorts (code-unit order).
 */
export interface TrustedList {
  readonly dirs: JoinedPaths;
  /** m, i, c per directory, in `dirs` order. */
  readonly dirStats: Float64Array;
  readonly gitignores: JoinedPaths;
  /** size, mtime, ino, ctime per .gitignore, in `gitignores` order. */
  readonly gitignoreStats: Float64Array;
  readonly symlinks: number;
  readonly files: JoinedPaths;
}

/** What a walk leaves for the next one. */
export interface WalkCache {
  readonly key: string;
  /** .git/info/exclude's stat (null: absent): another one invalidates every listing. */
  readonly exclude: StatKey | null;
  /** The listings by root-relative directory. */
  readonly dirs: Readonly<Record<string, CachedDir>>;
  /** Present when the walk trusted every directory it read and stat'ed every kept file as a file. */
  readonly trusted?: TrustedList;
}

/** The trusted list of a walk's listings (every directory it walked has one) and its sorted kept files. */
export function trustedList(dirs: Readonly<Record<string, CachedDir>>, files: readonly string[]): TrustedList {
  const rels = Object.keys(dirs);
  const dirStats = new Float64Array(rels.length * 3);
  const gitignores: string[] = [];
  const gitignoreStats: number[] = [];
  let symlinks = 0;
  rels.forEach((rel, i) => {
    const dir = dirs[rel]!;
    dirStats.set([dir.m, dir.i, dir.c], i * 3);
    symlinks += dir.s;
    if (dir.g !== null) {
      gitignores.push(rel === "" ? ".gitignore" : `${rel}/.gitignore`);
      gitignoreStats.push(...dir.g);
    }
  });
  const joined = (list: readonly string[]): JoinedPaths => ({ joined: list.join("\0"), count: list.length });
  return { dirs: joined(rels), dirStats, gitignores: joined(gitignores), gitignoreStats: Float64Array.from(gitignoreStats), symlinks, files: joined(files) };
}

const MAGIC = 0x4b4c574d; // "MWLK"
const FORMAT = 1;
/** The numbers are read in place as the host's doubles, written little-endian: a big-endian host reads no trusted list. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** magic, format, then u32s: head bytes, dirs bytes, directory count, rel bytes, .gitignore count, their bytes, file count, file bytes, symlinks; padded to 8. */
const HEADER = 48;

/**
 * The cache's bytes. With a trusted list, the listings leave their file names out (each
 * directory's are the trusted files in it, put back when the listings are read): the names are
 * stored once.
 */
export function packWalkCache(cache: WalkCache): Buffer {
  const t = cache.trusted;
  const dirs = t === undefined ? cache.dirs : Object.fromEntries(Object.entries(cache.dirs).map(([rel, { f: _f, ...dir }]) => [rel, dir]));
  const head = Buffer.from(JSON.stringify({ key: cache.key, exclude: cache.exclude }));
  const listings = Buffer.from(JSON.stringify(dirs));
  const rels = Buffer.from(t?.dirs.joined ?? "");
  const gitignores = Buffer.from(t?.gitignores.joined ?? "");
  const files = Buffer.from(t?.files.joined ?? "");
  const numbers = t === undefined ? new Float64Array(0) : Float64Array.from([...t.dirStats, ...t.gitignoreStats]);
  const out = Buffer.alloc(HEADER + numbers.byteLength + head.length + listings.length + rels.length + gitignores.length + files.length);
  const counts = [head.length, listings.length, t?.dirs.count ?? 0, rels.length, t?.gitignores.count ?? 0, gitignores.length, t?.files.count ?? 0, files.length, t?.symlinks ?? 0];
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(FORMAT, 4);
  counts.forEach((n, i) => out.writeUInt32LE(n, 8 + i * 4));
  out.writeUInt32LE(t === undefined ? 0 : 1, 44);
  let at = HEADER;
  for (const n of numbers) at = out.writeDoubleLE(n, at);
  for (const part of [head, listings, rels, gitignores, files]) at += part.copy(out, at);
  return out;
}

/** A cache from its bytes; null when they are not one this binary writes (the walk then reads every directory). */
export function unpackWalkCache(bytes: Buffer): WalkCache | null {
  if (bytes.length < HEADER || bytes.readUInt32LE(0) !== MAGIC || bytes.readUInt32LE(4) !== FORMAT) return null;
  const [headBytes, listingBytes, dirCount, relBytes, gitCount, gitBytes, fileCount, fileBytes, symlinks] = Array.from({ length: 9 }, (_, i) => bytes.readUInt32LE(8 + i * 4)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const hasTrusted = bytes.readUInt32LE(44) === 1;
  const numberBytes = hasTrusted ? (dirCount * 3 + gitCount * 4) * 8 : 0;
  if (bytes.length !== HEADER + numberBytes + headBytes + listingBytes + relBytes + gitBytes + fileBytes) return null;
  let at = HEADER + numberBytes;
  const take = (n: number) => bytes.toString("utf8", at, (at += n));
  // A list keeps its bytes beside its text: the addon checks and stats them as they are.
  const list = (n: number, count: number): JoinedPaths => ({ bytes: bytes.subarray(at, at + n), joined: take(n), count });
  let head: { key?: unknown; exclude?: unknown };
  try {
    head = JSON.parse(take(headBytes)) as typeof head;
  } catch {
    return null;
  }
  if (typeof head !== "object" || head === null || typeof head.key !== "string" || !(head.exclude === null || Array.isArray(head.exclude))) return null;
  const listingsAt = at;
  at += listingBytes;
  let trusted: TrustedList | undefined;
  if (hasTrusted) {
    if (!LITTLE_ENDIAN) return { key: head.key, exclude: head.exclude as StatKey | null, dirs: {} };
    // A copy: the view needs its offset aligned to 8, which a pooled read's need not be.
    const numbers = new Float64Array(bytes.buffer.slice(bytes.byteOffset + HEADER, bytes.byteOffset + HEADER + numberBytes));
    trusted = {
      dirs: list(relBytes, dirCount),
      dirStats: numbers.subarray(0, dirCount * 3),
      gitignores: list(gitBytes, gitCount),
      gitignoreStats: numbers.subarray(dirCount * 3),
      symlinks,
      files: list(fileBytes, fileCount),
    };
  }
  // A list that could name a path outside the root, or holds no root to check first, is no walk's:
  // the listings may still serve (each is checked against its own directory's stat).
  if (trusted !== undefined && !wellFormed(trusted)) trusted = undefined;
  let dirs: Record<string, CachedDir> | null = null;
  const cache: WalkCache = {
    key: head.key,
    exclude: head.exclude as StatKey | null,
    // Parsed when a walk first reads a listing (one that found every directory unchanged reads none).
    get dirs(): Readonly<Record<string, CachedDir>> {
      return (dirs ??= listingsOf(bytes.toString("utf8", listingsAt, listingsAt + listingBytes), trusted));
    },
    ...(trusted ? { trusted } : {}),
  };
  return cache;
}

/** A NUL-joined list holding an absolute path, a `.` or `..` component, an empty component (`a//b`, `a/`) or an empty path (the whole of a list of one too). */
const UNSAFE_PATHS = /(?:^|\0|\/)\.{1,2}(?:\/|\0|$)|(?:^|\0)\/|\/(?:\/|\0|$)|\0\0|^\0|\0$|^$/;

/** A root-relative path's directory ("" for the root). */
const parentOf = (path: string) => {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
};

/**
 * Whether a trusted list read from disk is one a walk could have written: root-relative
 * directories, as many as it counts, the root among them and every other one's parent too — so its
 * check stats every directory from the root down, which a list made for another tree (or planted
 * in a cloned `.mast`) cannot match, and a symlinked directory on the way fails (lstat: not a
 * directory) — each .gitignore in one of them, and as many files as it counts, each in a listed
 * directory (a hand-made list could name one through a symlinked directory). By the addon where it
 * built (~3 ms at 1 GB, against ~35 ms here), with the same answer.
 */
function wellFormed(t: TrustedList): boolean {
  const bytes = (l: JoinedPaths) => l.bytes ?? l.joined;
  if (nativeTrustedListHolds !== null) return nativeTrustedListHolds(bytes(t.dirs), t.dirs.count, bytes(t.gitignores), t.gitignores.count, bytes(t.files), t.files.count);
  return wellFormedInJs(t);
}

/** wellFormed where the addon did not build (exported for the test comparing the two). */
export function wellFormedInJs(t: Pick<TrustedList, "dirs" | "gitignores" | "files">): boolean {
  const dirList = splitPaths(t.dirs);
  if (dirList.length !== t.dirs.count || splitPaths(t.gitignores).length !== t.gitignores.count) return false;
  const dirs = new Set(dirList);
  if (dirs.size !== dirList.length || !dirs.has("")) return false;
  // The root is the one empty entry of the directories.
  const others = dirList.filter((d) => d !== "");
  if ((others.length > 0 && UNSAFE_PATHS.test(others.join("\0"))) || (t.gitignores.count > 0 && UNSAFE_PATHS.test(t.gitignores.joined))) return false;
  for (const d of others) if (!dirs.has(parentOf(d))) return false;
  for (const g of splitPaths(t.gitignores)) if (!dirs.has(parentOf(g))) return false;
  if (t.files.count === 0) return t.files.joined === "";
  const files = splitPaths(t.files);
  if (files.length !== t.files.count) return false;
  // Sorted, a directory's files follow one another: it is looked up when it changes.
  let last: string | null = null;
  for (const p of files) {
    const dir = parentOf(p);
    if (dir !== last && !dirs.has(dir)) return false;
    last = dir;
  }
  return true;
}

/** The listings' JSON, each directory's file names put back from the trusted list when they were left out; {} when it does not parse, or any listing is not of the shape written (a listing without its names and no list to take them from). */
function listingsOf(json: string, trusted: TrustedList | undefined): Record<string, CachedDir> {
  let parsed: Record<string, Omit<CachedDir, "f"> & { f?: string[] }>;
  try {
    parsed = JSON.parse(json) as typeof parsed;
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  const names = new Map<string, string[]>();
  if (trusted !== undefined) {
    for (const path of splitPaths(trusted.files)) {
      const slash = path.lastIndexOf("/");
      const dir = slash === -1 ? "" : path.slice(0, slash);
      let list = names.get(dir);
      if (list === undefined) names.set(dir, (list = []));
      list.push(path.slice(slash + 1));
    }
  }
  const out: Record<string, CachedDir> = {};
  for (const [rel, dir] of Object.entries(parsed)) {
    if (!listingShape(dir)) return {};
    const f = (dir as { f?: unknown }).f ?? (trusted === undefined ? undefined : (names.get(rel) ?? []));
    if (!isStrings(f)) return {};
    out[rel] = { ...dir, f };
  }
  return out;
}

/** Entry names as readdir gives them: no separator, not `.` or `..`, not empty (a hand-made listing could name a path outside its directory). */
const isStrings = (x: unknown): x is string[] => Array.isArray(x) && x.every((v) => typeof v === "string" && v !== "" && v !== "." && v !== ".." && !v.includes("/") && !v.includes("\0"));
const isNumber = (x: unknown): x is number => typeof x === "number";

/** A listing as packWalkCache writes it (its file names aside). */
function listingShape(dir: unknown): dir is Omit<CachedDir, "f"> {
  const d = dir as Partial<Record<keyof CachedDir, unknown>> | null;
  return (
    typeof d === "object" &&
    d !== null &&
    isNumber(d.m) &&
    isNumber(d.i) &&
    isNumber(d.c) &&
    isNumber(d.s) &&
    isStrings(d.d) &&
    (d.g === null || (Array.isArray(d.g) && d.g.length === 4 && d.g.every(isNumber)))
  );
}
