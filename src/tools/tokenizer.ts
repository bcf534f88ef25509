// Token counts for telemetry (docs/telemetry.md#the-tokenizer): the only importer of @anthropic-ai/tokenizer, the
// label every surface prints, and the full-file upper bound — exact counts for at most 32 files a
// call (cache hits excluded), size estimates past them, and an mtime-keyed cache of 8,192 files.
// Only the telemetry worker (tools/telemetry-worker.ts) loads this: a count costs ~0.25 µs a byte,
// which is kept off the request path.
import { createRequire } from "node:module";
import { lstatSync, type Stats } from "node:fs";
import { join } from "node:path";
import { LRUCache } from "../base/lru.js";
import { readRegularFile } from "../base/read.js";
import { decodeSource } from "../base/text.js";

/** How every surface names the counter (mast_efficiency's `tokenizer`, `mast metrics`' footer). */
export const TOKENIZER_LABEL = "@anthropic-ai/tokenizer (claude-2 era, approximate for current models)";
/** Exact file reads a call may spend on the full-file bound (F8); the rest are size estimates. */
export const FULL_FILE_TOKENIZE_BUDGET_PER_CALL = 32;
/** Bytes per token of a size estimate (the usual figure for source text). */
export const BYTES_PER_TOKEN_ESTIMATE = 4;
/** Files whose exact counts are kept, keyed by path, mtime and size. */
export const FULL_FILE_BOUND_CACHE_LIMIT = 8_192;
/** Files over this size are estimated, never read whole for a count. */
const MAX_COUNTED_FILE_BYTES = 4 * 1024 * 1024;

interface Tiktoken {
  encode(text: string, allowedSpecial: "all"): Uint32Array;
}

let tokenizer: Tiktoken | null = null;

/**
 * Tokens of `text` as the package's countTokens counts them (NFKC, special tokens allowed), with
 * one tokenizer kept for the process: countTokens builds a new one from the vocabulary at every
 * call (~50 ms), which would make each count cost more than the tool call it describes.
 */
export function countTokens(text: string): number {
  if (tokenizer === null) {
    const pkg = createRequire(import.meta.url)("@anthropic-ai/tokenizer") as { getTokenizer(): Tiktoken };
    tokenizer = pkg.getTokenizer();
  }
  return tokenizer.encode(text.normalize("NFKC"), "all").length;
}

/** A size estimate of a file's tokens. */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN_ESTIMATE);
}

export interface FullFileBound {
  readonly tokens: number;
  /** Files counted exactly by this call (cache misses read and tokenized). */
  readonly counted: number;
  /** Files whose count came from the cache. */
  readonly cached: number;
  /** Files past the budget (or too large, or unreadable as text): size estimates, never cached. */
  readonly estimated: number;
}

/** The full-file counterfactual of the files an answer names, with its cache (one per process). */
export class FullFileTokens {
  private readonly cache: LRUCache<string, { mtimeMs: number; size: number; tokens: number }>;

  constructor(limit = FULL_FILE_BOUND_CACHE_LIMIT) {
    this.cache = new LRUCache({ max: limit });
  }

  get size(): number {
    return this.cache.size;
  }

  /** Sum of the full files' tokens: cached counts, then exact counts within `budget`, then estimates. */
  bound(root: string, files: readonly string[], budget = FULL_FILE_TOKENIZE_BUDGET_PER_CALL): FullFileBound {
    let tokens = 0;
    let counted = 0;
    let cached = 0;
    let estimated = 0;
    for (const rel of files) {
      const abs = join(root, rel);
      let st: Stats;
      try {
        st = lstatSync(abs);
      } catch {
        continue; // gone: a naive read would have cost nothing
      }
      if (!st.isFile()) continue;
      const hit = this.hit(rel, st.size, st.mtimeMs);
      if (hit !== null) {
        tokens += hit;
        cached += 1;
        continue;
      }
      const r = counted < budget && st.size <= MAX_COUNTED_FILE_BYTES ? readRegularFile(abs, { maxBytes: MAX_COUNTED_FILE_BYTES, noFollow: true }) : null;
      const decoded = r?.kind === "read" ? decodeSource(r.bytes) : null;
      if (r?.kind !== "read" || decoded?.kind !== "text") {
        // Past the budget, too large, unreadable or binary: estimated from its size, never cached.
        tokens += estimateTokens(st.size);
        estimated += 1;
        continue;
      }
      const n = countTokens(decoded.text);
      counted += 1;
      tokens += n;
      this.cache.set(rel, { mtimeMs: r.stat.mtimeMs, size: r.stat.size, tokens: n });
    }
    return { tokens, counted, cached, estimated };
  }

  /** A cached count still true of the file (same size and mtime); refreshed as most recent. */
  private hit(rel: string, size: number, mtimeMs: number): number | null {
    const entry = this.cache.get(rel);
    if (!entry || entry.size !== size || entry.mtimeMs !== mtimeMs) return null;
    return entry.tokens;
  }
}
