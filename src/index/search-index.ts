// The trigram index (chunk_fts) a large run left for later (store/db.ts `deferTrigram`): built in
// slices of about SLICE_CHARS characters of chunk text, each its own short write transaction, so
// no other writer waits long behind it and a build killed midway leaves a consistent index that is
// merely shorter. mast_search completes it before it answers; `mast serve`'s index worker does it
// right after the run that deferred it.
import { Store } from "../store/db.js";
import type { ResolvedConfig } from "./config.js";
import { statePaths } from "./state.js";

const SLICE_CHARS = 4 * 1024 * 1024;
/** How long a slice waits for another writer (an index run holds the lock until it commits). */
const SLICE_BUSY_TIMEOUT_MS = 2_000;

/** Builds what the trigram index lacks; returns how many chunks it still lacks (> 0 only when another writer kept the lock). */
export function completeTrigram(store: Store): number {
  for (;;) {
    let pending: number;
    try {
      pending = store.quickly(SLICE_BUSY_TIMEOUT_MS, () => store.buildTrigram(SLICE_CHARS));
    } catch (err) {
      if (((err as { code?: string }).code ?? "").startsWith("SQLITE_BUSY")) return store.trigramPending();
      throw err;
    }
    if (pending === 0) return 0;
  }
}

/** completeTrigram on the project's graph.db, on a connection of its own (a worker's). */
export function completeTrigramOf(config: ResolvedConfig): number {
  const store = Store.open(statePaths(config.state_dir).graphDb);
  try {
    return store.hasCurrentSchema() ? completeTrigram(store) : 0;
  } finally {
    store.close();
  }
}
