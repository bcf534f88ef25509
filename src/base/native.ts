// mast's native addon (native/: flat syntax trees and many lstat calls in one, built from source
// by scripts/build-native.mjs as the package's install script): its one loader, and `lstatMany`,
// the file walk's stats in one call, with the same answer from fs.lstatSync where the addon did
// not build or MAST_NATIVE=0 turns it off. syntax/flat-tree.ts types and checks the tree half.
import { lstatSync } from "node:fs";
import { createRequire } from "node:module";

/** The loaded addon (its exports unchecked: each user checks what it calls), or null. Found from dist/…/x.js, dist/bin/x.js or src/base/x.ts alike: two levels below the package. */
export const nativeAddon: Readonly<Record<string, unknown>> | null = (() => {
  if (process.env.MAST_NATIVE === "0") return null;
  try {
    return createRequire(import.meta.url)(new URL("../../native/build/Release/mast_native.node", import.meta.url).pathname) as Record<string, unknown>;
  } catch {
    return null;
  }
})();

/** Doubles per path in `lstatMany`'s answer: kind, size, mtimeMs, ino, ctimeMs. */
export const STAT_WORDS = 5;
/** A path's kind in `lstatMany`'s answer; NONE: it could not be stat'ed (lstat it again for the error). */
export const StatKind = { NONE: 0, FILE: 1, DIR: 2, SYMLINK: 3, OTHER: 4 } as const;

type LstatMany = (base: string, joined: string, count: number) => Float64Array;
const nativeLstat = typeof nativeAddon?.lstatMany === "function" ? (nativeAddon.lstatMany as LstatMany) : null;
const nativeLstatAsync = typeof nativeAddon?.lstatManyAsync === "function" ? (nativeAddon.lstatManyAsync as (base: string, joined: string, count: number) => Promise<Float64Array>) : null;

/** The addon's refusal of a path holding a NUL (never a real file name: such a path reads as NONE, as fs has it). */
const holdsNul = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === "MAST_NATIVE_NUL";

/**
 * Every path's lstat (`base` + path: the walk passes its root and root-relative paths), STAT_WORDS
 * doubles each, in one native call (split over two threads when there are many; the values equal
 * fs.lstatSync's). A path holding a NUL reads as NONE.
 */
export function lstatMany(paths: readonly string[], base = ""): Float64Array {
  if (nativeLstat !== null) {
    try {
      return nativeLstat(base, paths.join("\0"), paths.length);
    } catch (err) {
      if (!holdsNul(err)) throw err;
    }
  }
  return lstatEach(paths, base);
}

/** lstatMany's answer, made off the main thread (one thread of libuv's pool) where the addon built: the caller reads its index meanwhile, on the other core. */
export async function lstatManyAsync(paths: readonly string[], base = ""): Promise<Float64Array> {
  if (nativeLstatAsync !== null) {
    try {
      return await nativeLstatAsync(base, paths.join("\0"), paths.length);
    } catch (err) {
      if (!holdsNul(err)) throw err;
    }
  }
  return lstatEach(paths, base);
}

/** The answer of lstatMany from fs.lstatSync, path by path. */
function lstatEach(paths: readonly string[], base: string): Float64Array {
  const out = new Float64Array(paths.length * STAT_WORDS);
  paths.forEach((p, i) => {
    let st;
    try {
      st = lstatSync(base + p, { throwIfNoEntry: false });
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
