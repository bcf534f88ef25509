// mast's native addon (native/: flat syntax trees, many lstat calls in one and a SQLite function,
// built from source by scripts/build-native.mjs as the package's install script): its one loader
// (and its library's path, for SQLite's load_extension), and `lstatMany`,
// the file walk's stats in one call, with the same answer from fs.lstatSync where the addon did
// not build or MAST_NATIVE=0 turns it off. syntax/flat-tree.ts types and checks the tree half.
import { lstatSync, statSync } from "node:fs";
import { createRequire } from "node:module";

/** Where the addon's library is: found from dist/…/x.js, dist/bin/x.js or src/base/x.ts alike, two levels below the package. */
const ADDON_PATH = new URL("../../native/build/Release/mast_native.node", import.meta.url).pathname;

/** The loaded addon (its exports unchecked: each user checks what it calls), or null. */
export const nativeAddon: Readonly<Record<string, unknown>> | null = (() => {
  if (process.env.MAST_NATIVE === "0") return null;
  try {
    return createRequire(import.meta.url)(ADDON_PATH) as Record<string, unknown>;
  } catch {
    return null;
  }
})();

/** The loaded addon's library, for SQLite to load its extension from (native/sqlite_ext.c; store/db.ts), or null. */
export const nativeAddonPath: string | null = nativeAddon === null ? null : ADDON_PATH;

/** Doubles per path in `lstatMany`'s answer: kind, size, mtimeMs, ino, ctimeMs. */
export const STAT_WORDS = 5;
/** The `index`th path's [size, mtimeMs, ino, ctimeMs] in an lstatMany or statMany answer, or null where it could not be stat'ed. */
export function statKeyAt(stats: Float64Array, index: number): [number, number, number, number] | null {
  const at = index * STAT_WORDS;
  return stats[at] === StatKind.NONE ? null : [stats[at + 1]!, stats[at + 2]!, stats[at + 3]!, stats[at + 4]!];
}

/** A path's kind in `lstatMany`'s answer; NONE: it could not be stat'ed (lstat it again for the error). */
export const StatKind = { NONE: 0, FILE: 1, DIR: 2, SYMLINK: 3, OTHER: 4 } as const;

type LstatMany = (base: string, joined: string | Uint8Array, count: number) => Float64Array;
/** The stat half's calling convention this file speaks ((base, joined as a string or UTF-8 bytes, count), STAT_WORDS doubles a path; 3: the bytes): an addon built for another is not called. */
const LSTAT_ABI = 3;
const lstatAbi = nativeAddon?.LSTAT_ABI === LSTAT_ABI;
const nativeLstat = lstatAbi ? (nativeAddon!.lstatMany as LstatMany) : null;
const nativeLstatAsync = lstatAbi ? (nativeAddon!.lstatManyAsync as (base: string, joined: string | Uint8Array, count: number) => Promise<Float64Array>) : null;
const nativeStat = lstatAbi && typeof nativeAddon!.statMany === "function" ? (nativeAddon!.statMany as LstatMany) : null;

/**
 * The addon's shape checks of a walk cache's trusted list (native/lstat_many.c trustedListHolds:
 * directories distinct, safe, rooted and each one's parent listed; .gitignore files and files each
 * in a listed directory; every count the list's), or null where it did not build
 * (index/walk-cache.ts then checks the same in JavaScript).
 */
export const nativeTrustedListHolds =
  lstatAbi && typeof nativeAddon!.trustedListHolds === "function"
    ? (nativeAddon!.trustedListHolds as (
        dirs: string | Uint8Array,
        dirCount: number,
        gitignores: string | Uint8Array,
        gitignoreCount: number,
        files: string | Uint8Array,
        fileCount: number,
      ) => boolean)
    : null;

/** The addon's refusal of paths it does not take (one holding a NUL, a base longer than PATH_MAX): fs answers them, each as NONE. */
const refused = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === "MAST_NATIVE_REFUSED";

/** Paths joined by NUL, `count` of them: how the addon takes them (and how a walk's cache keeps its list, stat'ed without an array of it). */
export interface JoinedPaths {
  readonly joined: string;
  readonly count: number;
  /** `joined` as UTF-8, where the list was read as bytes (a walk cache's): the addon takes them as they are. */
  readonly bytes?: Uint8Array;
}

export const joinPaths = (paths: readonly string[]): JoinedPaths => ({ joined: paths.join("\0"), count: paths.length });
export const splitPaths = (list: JoinedPaths): string[] => (list.count === 0 ? [] : list.joined.split("\0"));
const asJoined = (paths: readonly string[] | JoinedPaths): JoinedPaths => ("joined" in paths ? paths : joinPaths(paths));
const asArray = (paths: readonly string[] | JoinedPaths): readonly string[] => ("joined" in paths ? splitPaths(paths) : paths);

/**
 * Every path's lstat (`base` + path: the walk passes its root and root-relative paths), STAT_WORDS
 * doubles each, in one native call (split over two threads when there are many; the values equal
 * fs.lstatSync's). A path holding a NUL, or one too long for the system, reads as NONE.
 */
export function lstatMany(paths: readonly string[] | JoinedPaths, base = ""): Float64Array {
  return statPaths(nativeLstat, paths, base, false);
}

/**
 * lstatMany through symlinks, as fs.statSync stats (a link reads as what it points to; a dangling
 * one, like a missing path or any error, as NONE): for paths read rather than walked, the configs
 * an import resolver read (27,700 of them at 1 GB, stat'ed on each just-in-time refresh of a server).
 */
export function statMany(paths: readonly string[], base = ""): Float64Array {
  return statPaths(nativeStat, paths, base, true);
}

/** The paths' stats in the addon's one call where it answers, else by fs (`follow`: stat, not lstat). */
function statPaths(native: LstatMany | null, paths: readonly string[] | JoinedPaths, base: string, follow: boolean): Float64Array {
  if (native !== null) {
    const list = asJoined(paths);
    try {
      return native(base, list.bytes ?? list.joined, list.count);
    } catch (err) {
      if (!refused(err)) throw err;
    }
  }
  return statEach(asArray(paths), base, follow);
}

/** lstatMany's answer, made off the main thread (from libuv's pool, over two threads past many paths) where the addon built: the caller reads its index meanwhile. */
export async function lstatManyAsync(paths: readonly string[] | JoinedPaths, base = ""): Promise<Float64Array> {
  if (nativeLstatAsync !== null) {
    const list = asJoined(paths);
    try {
      return await nativeLstatAsync(base, list.bytes ?? list.joined, list.count);
    } catch (err) {
      if (!refused(err)) throw err;
    }
  }
  return statEach(asArray(paths), base, false);
}

/** The answer of lstatMany (statMany with `follow`) from fs, path by path. */
function statEach(paths: readonly string[], base: string, follow: boolean): Float64Array {
  const out = new Float64Array(paths.length * STAT_WORDS);
  paths.forEach((p, i) => {
    let st: import("node:fs").Stats | undefined;
    try {
      st = (follow ? statSync : lstatSync)(base + p, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (st === undefined) return;
    const at = i * STAT_WORDS;
    out[at] = st.isFile() ? StatKind.FILE : st.isDirectory() ? StatKind.DIR : st.isSymbolicLink() ? StatKind.SYMLINK : StatKind.OTHER;
    out[at + 1] = st.size;
    out[at + 2] = st.mtimeMs;
    out[at + 3] = st.ino;
    out[at + 4] = st.ctimeMs;
  });
  return out;
}
