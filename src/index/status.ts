// The index health snapshot behind `mast status` and mast_status: one producer for both, and
// the `indexing` flag every read answer carries while a run is writing. Read-only: it reads
// index.json, the lock's record and measures freshness; it never creates the state dir.
import { existsSync } from "node:fs";
import { CHECKER_LANGUAGES, CURRENT_SCHEMA_VERSION, isUnusableDatabase } from "../store/db.js";
import { Store } from "../store/store.js";
import type { CheckerLanguage } from "./run.js";
import type { ResolvedConfig } from "./config.js";
import { measureFreshness } from "./freshness.js";
import { lockState, type LockState } from "./lock.js";
import { checkpointStamp, guardProjectRoot, readIndexJson, statePaths, storeStamp, type IndexJson, type StatePaths } from "./state.js";

export interface IndexStatus {
  readonly state_dir: string;
  /** The schema version compiled into this binary (not the one on disk; docs/freshness.md#index-health). */
  readonly schema_version: string;
  readonly last_indexed: string | null;
  readonly indexed_files: number;
  readonly chunk_count: number;
  readonly stale_files: number;
  readonly parse_errors: number;
  readonly write_errors: number;
  readonly index_fresh: boolean;
  /**
   * interrupted_run: the last run died before it finished (nothing of it was committed, or its
   * manifest lags); corrupt: SQLite finds graph.db corrupt (never answered from; the next index run rebuilds it).
   */
  readonly freshness_cause: "phase1_stale" | "interrupted_run" | "corrupt" | null;
  /** Present while a run is writing: answers come from the index before it. */
  readonly indexing?: Indexing;
  readonly stale_breakdown: { readonly changed: number; readonly unindexed: number; readonly vanished: number };
  readonly seed_commit?: string;
  /** The last checker pass's languages (`--checker`): each analyzer available or not, with the reason. */
  readonly checker?: readonly CheckerLanguage[];
}

/** A run in progress: what it is and since when (from structure.lock's record). */
export interface Indexing {
  readonly in_progress: true;
  readonly operation?: string;
  readonly since?: string;
  /** Files parsed so far of those the run parses, as last noted (at most a second old). */
  readonly files_done?: number;
  readonly files_total?: number;
}

/** The run writing now, or null. Cheap (one small file read): read answers carry it. */
export function indexingNow(config: ResolvedConfig): Indexing | null {
  return indexingOf(indexLock(config));
}

/** structure.lock of the project's state dir, read without taking it. */
export function indexLock(config: ResolvedConfig): LockState {
  return lockState(statePaths(config.state_dir).lock);
}

function indexingOf(lock: LockState): Indexing | null {
  if (lock.state !== "held") return null;
  const h = lock.holder;
  return {
    in_progress: true,
    ...(h ? { operation: h.operation, since: h.since } : {}),
    ...(h?.files_total !== undefined ? { files_done: h.files_done ?? 0, files_total: h.files_total } : {}),
  };
}

export async function indexStatus(config: ResolvedConfig): Promise<IndexStatus> {
  const paths = statePaths(config.state_dir);
  // Another project's index measured against this tree would report its every file gone.
  guardProjectRoot(paths, config.project_root);
  const index = existsSync(paths.graphDb) ? readIndexJson(paths) : null;
  const fresh = await measureFreshness(config);
  const corrupt = fresh.unreadable || storeCorrupt(paths, index);
  const lock = lockState(paths.lock);
  const interrupted = lock.state === "abandoned";
  const indexing = indexingOf(lock);
  const indexed = index !== null && index.last_indexed !== null;
  return {
    state_dir: config.state_dir,
    schema_version: CURRENT_SCHEMA_VERSION,
    last_indexed: index?.last_indexed ?? null,
    indexed_files: index?.file_count ?? 0,
    chunk_count: index?.chunk_count ?? 0,
    stale_files: fresh.stale_files,
    parse_errors: index?.parse_errors ?? 0,
    write_errors: index?.write_errors ?? 0,
    index_fresh: indexed && fresh.stale_files === 0 && !interrupted && !corrupt,
    freshness_cause: corrupt ? "corrupt" : interrupted ? "interrupted_run" : fresh.stale_files > 0 ? "phase1_stale" : null,
    ...(indexing ? { indexing } : {}),
    stale_breakdown: { changed: fresh.changed, unindexed: fresh.unindexed, vanished: fresh.vanished },
    ...(index?.seed_commit ? { seed_commit: index.seed_commit } : {}),
    ...(indexed && !corrupt ? checkerLanguages(paths) : {}),
  };
}

/** What the last checker pass said of each language's analyzer (meta of graph.db), when a pass ran. */
function checkerLanguages(paths: StatePaths): { checker?: readonly CheckerLanguage[] } {
  try {
    const store = Store.open(paths.graphDb, { readonly: true });
    try {
      const json = store.getMeta(CHECKER_LANGUAGES);
      return json === null ? {} : { checker: JSON.parse(json) as CheckerLanguage[] };
    } finally {
      store.close();
    }
  } catch (err) {
    if (!isUnusableDatabase(err) && !(err instanceof SyntaxError)) throw err;
    return {};
  }
}

/** Verdicts of SQLite's quick check by graph.db path and stamp: a server asks again only after the file changed. */
const checked = new Map<string, { readonly stamp: string; readonly corrupt: boolean }>();

/**
 * Whether SQLite finds graph.db corrupt. A file that stats as the last index run left it, or as a
 * Store's last checkpoint left it (a server's refresh, a completed text index), is taken as mast
 * wrote it; any other (a seed copy, a write by anything else) has its pages checked
 * (`PRAGMA quick_check`, about 20 ms per MB), once per change in a process.
 */
function storeCorrupt(paths: StatePaths, index: IndexJson | null): boolean {
  const stamp = storeStamp(paths);
  if (stamp === null || stamp === index?.store_stamp || stamp === checkpointStamp(paths)) return false;
  const hit = checked.get(paths.graphDb);
  if (hit?.stamp === stamp) return hit.corrupt;
  let corrupt: boolean;
  try {
    const store = Store.open(paths.graphDb, { readonly: true });
    try {
      corrupt = !store.passesQuickCheck();
    } finally {
      store.close();
    }
  } catch (err) {
    if (!isUnusableDatabase(err)) throw err;
    corrupt = true;
  }
  checked.set(paths.graphDb, { stamp, corrupt });
  return corrupt;
}
