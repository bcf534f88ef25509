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

type LstatMany = (joined: string, count: number) => Float64Array;
const nativeLstat = typeof nativeAddon?.lstatMany === "function" ? (nativeAddon.lstatMany as LstatMany) : null;
const nativeLstatAsync = typeof nativeAddon?.lstatManyAsync === "function" ? (nativeAddon.lstatManyAsync as (joined: string, count: number) => Promise<Float64Array>) : null;

/**
 * Every path's lstat, STAT_WORDS doubles each, in one native call (split over two threads when
 * there are many; the values equal fs.lstatSync's). A path holding a NUL (never a real file name)
 * reads as NONE.
 */
export function lstatMany(paths: readonly string[]): Float64Array {
  if (nativeLstat !== null && !paths.some((p) => p.includes("\0"))) return nativeLstat(paths.join("\0"), paths.length);
  return lstatEach(paths);
}

/** lstatMany's answer, made off the main thread (libuv's pool) where the addon built: the caller reads its index meanwhile. */
export function lstatManyAsync(paths: readonly string[]): Promise<Float64Array> {
  if (nativeLstatAsync !== null && !paths.some((p) => p.includes("\0"))) return nativeLstatAsync(paths.join("\0"), paths.length);
  return Promise.resolve(lstatEach(paths));
}

/** The answer of lstatMany from fs.lstatSync, path by path. */
function lstatEach(paths: readonly string[]): Float64Array {
  const out = new Float64Array(paths.length * STAT_WORDS);
  paths.forEach((p, i) => {
    let st;
    try {
      st = lstatSync(p, { throwIfNoEntry: false });
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
