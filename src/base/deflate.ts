// Compression of what graph.db keeps as packed bytes (a file's symbol texts, its call sites, a
// class outline's text): raw deflate at level 1, the one level measured worth its time on them
// (1 GB tree: the texts to 27% at 56 MB/s; level 6 reached 25% at the same speed, calls 43 → 41%).
// By the native addon's kept streams (native/deflate.c: Node's deflateRawSync builds a stream per
// call, ~85 µs each on an index run's main thread whatever the size), else by node:zlib — the one
// importer of it, loaded at the first use — with the same bytes either way.
import type * as Zlib from "node:zlib";
import { createRequire } from "node:module";
import { damagedRow, errorMessage } from "./errors.js";
import { nativeAddon } from "./native.js";

const native =
  typeof nativeAddon?.deflateRaw === "function" && typeof nativeAddon.inflateRaw === "function"
    ? { deflate: nativeAddon.deflateRaw as (data: Uint8Array) => Buffer, inflate: nativeAddon.inflateRaw as (data: Uint8Array, limit: number) => Buffer }
    : null;

let zlib: typeof Zlib | null = null;
const loaded = (): typeof Zlib => (zlib ??= createRequire(import.meta.url)("node:zlib") as typeof Zlib);

/** `data` deflated (raw: no header or checksum; graph.db's pages carry their own integrity). */
export function deflate(data: string | Uint8Array): Buffer {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  return native ? native.deflate(bytes) : loaded().deflateRawSync(bytes, { level: 1 });
}

/**
 * What a read inflates at most: V8's longest string (2^29 - 24 code units), past which no text
 * could be read from the bytes anyway — so a planted or damaged row (deflate reaches ~1,000:1) is
 * refused at that size, never inflated without end.
 */
export const INFLATE_LIMIT = 2 ** 29 - 24;

/** The bytes `deflate` was given; throws on bytes that are not one whole raw deflate stream, or that inflate past `limit`. */
export function inflate(data: Uint8Array, limit = INFLATE_LIMIT): Buffer {
  return native ? native.inflate(data, limit) : loaded().inflateRawSync(data, { maxOutputLength: limit });
}

/** The bytes of a row graph.db keeps deflated (`what` names it in the error): bytes that do not inflate are a damaged row (INDEX_CORRUPT), never misread. */
export function inflateRow(data: Uint8Array, what: string): Buffer {
  try {
    return inflate(data);
  } catch (err) {
    throw damagedRow(`${what}: not deflated (${errorMessage(err)})`);
  }
}
