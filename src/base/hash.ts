// Content hashing: one function for every sha256 the index stores (chunk ids, declaration and
// body hashes, file content hashes), so widths and encodings never disagree.
import { createHash } from "node:crypto";

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
