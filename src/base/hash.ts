// Content hashing: one function for every sha256 the index stores (chunk ids, file content
// hashes), so widths and encodings never disagree. node:crypto loads at
// the first hash: a CLI command that hashes nothing (a `mast query` a server answers) is spared it.
import type * as Crypto from "node:crypto";
import { createRequire } from "node:module";

type Sha256 = (data: string | Uint8Array) => string;
let crypto: typeof Crypto | null = null;
let hasher: Sha256 | null = null;

function loaded(): typeof Crypto {
  return (crypto ??= createRequire(import.meta.url)("node:crypto") as typeof Crypto);
}

/** crypto.hash (Node >= 20.12): one call, no Hash object — 2x faster on the short strings chunk ids hash. */
function makeHasher(): Sha256 {
  const c = loaded();
  const oneShot = (c as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "hex") => string }).hash;
  return oneShot ? (data) => oneShot("sha256", data, "hex") : (data) => c.createHash("sha256").update(data).digest("hex");
}

export function sha256(data: string | Uint8Array): string {
  return (hasher ??= makeHasher())(data);
}

/** `bytes` random bytes as hex: a name no one can guess or reproduce (a token). */
export function randomHex(bytes: number): string {
  return loaded().randomBytes(bytes).toString("hex");
}

/** A chunk's id: sha256 of `path:line`, `:n` added for the n-th further chunk starting on that line. */
export function chunkId(path: string, line: number, n: number): string {
  return sha256(n === 0 ? `${path}:${line}` : `${path}:${line}:${n}`);
}

/** Hex digits of a sha256 a hash key keeps: 52 bits, a safe integer. */
const KEY_DIGITS = 13;

/**
 * A sha256's first 52 bits as an integer, which graph.db stores instead of the 64 hex characters
 * (8 bytes at most, not 65): ordered as the hex strings are, and equal for distinct texts once in
 * 2^52. Null stays null.
 */
export function hashKey<T extends string | null>(hex: T): T extends string ? number : null {
  return (hex === null ? null : parseInt(hex.slice(0, KEY_DIGITS), 16)) as T extends string ? number : null;
}
