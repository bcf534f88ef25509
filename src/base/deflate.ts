// Compression of what graph.db keeps as packed bytes (a file's symbol texts, its call sites, a
// class outline's text): raw deflate at level 1, the one level measured worth its time on them
// (1 GB tree: the texts to 27% at 56 MB/s; level 6 reached 25% at the same speed, calls 43 → 41%).
// By the native addon's kept streams (native/deflate.c: Node's deflateRawSync builds a stream per
// call, ~85 µs each on an index run's main thread whatever the size), else by node:zlib — the one
// importer of it, loaded at the first use — with the same bytes either way.
import type * as Zlib from "node:zlib";
import { createRequire } from "node:module";
import { nativeAddon } from "./native.js";

type Codec = (data: Uint8Array) => Buffer;
const native = typeof nativeAddon?.deflateRaw === "function" && typeof nativeAddon.inflateRaw === "function" ? { deflate: nativeAddon.deflateRaw as Codec, inflate: nativeAddon.inflateRaw as Codec } : null;

let zlib: typeof Zlib | null = null;
const loaded = (): typeof Zlib => (zlib ??= createRequire(import.meta.url)("node:zlib") as typeof Zlib);

/** `data` deflated (raw: no header or checksum; graph.db's pages carry their own integrity). */
export function deflate(data: string | Uint8Array): Buffer {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  return native ? native.deflate(bytes) : loaded().deflateRawSync(bytes, { level: 1 });
}

/** The bytes `deflate` was given; throws on bytes that are not one whole raw deflate stream. */
export function inflate(data: Uint8Array): Buffer {
  return native ? native.inflate(data) : loaded().inflateRawSync(data);
}
