// Content hashing: one function for every sha256 the index stores (chunk ids, declaration and
// body hashes, file content hashes), so widths and encodings never disagree.
import * as crypto from "node:crypto";

/** crypto.hash (Node >= 20.12): one call, no Hash object — 2x faster on the short strings chunk ids hash. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "hex") => string }).hash;

export function sha256(data: string | Uint8Array): string {
  return oneShot ? oneShot("sha256", data, "hex") : crypto.createHash("sha256").update(data).digest("hex");
}

/** The body hash of a declaration without a body (a C prototype, an abstract method): the empty text's. */
export const NO_BODY_HASH = sha256("");

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
