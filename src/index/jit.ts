// Just-in-time refresh for single-file read tools (spec §9.0): a file newer on disk than its rows
// is re-parsed and rewritten before the tool answers — without structure.lock, with a 200 ms
// write budget, one 50 ms retry for a file caught mid-write, and the stale rows (flagged) as the
// answer when the refresh cannot win. A file gone from disk loses its rows. Either way the rows
// and everything derived from them (imports, edges) change in one transaction, and never while an
// index run is writing: the run's commit would hide the refresh, and waiting for it would block.
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { createImportResolver } from "../resolve/imports.js";
import { Store } from "../store/db.js";
import type { ResolvedConfig } from "./config.js";
import { runParseTask } from "./parse-task.js";
import { rederive } from "./link.js";
import { lockState } from "./lock.js";
import { extractOptionsOf } from "./run.js";
import { runIndexOffThread } from "./run-thread.js";
import { statePaths } from "./state.js";

/** The JIT write's own busy budget (IMMEDIATE_WRITE_BUSY_TIMEOUT_MS), distinct from the connection's 5 s. */
export const JIT_WRITE_BUSY_TIMEOUT_MS = 200;
const RETRY_DELAY_MS = 50;

export type Refresh = "fresh" | "refreshed" | "deleted" | "busy" | "unknown";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Brings one indexed file's rows up to date with the disk. "unknown": the index has no row for
 * it (new files are discovered by a reindex, not here); "busy": the refresh lost, rows are stale.
 */
export async function refreshFile(store: Store, config: ResolvedConfig, path: string): Promise<Refresh> {
  const row = store.db.prepare("SELECT id, mtime, size FROM files WHERE path = ?").get(path) as { id: number; mtime: number; size: number } | undefined;
  if (!row) return "unknown";
  const abs = join(config.project_root, path);
  let mtime: number | null;
  try {
    mtime = statSync(abs).mtimeMs;
  } catch {
    mtime = null;
  }
  if (mtime !== null && mtime <= row.mtime) return "fresh";
  // An index run holds the write lock until its commit: this refresh could only wait, then lose.
  if (indexRunning(config)) return "busy";
  if (mtime === null) return dropVanished(store, config, path);
  const task = { path, abs, options: extractOptionsOf(config), maxFileBytes: config.max_file_bytes };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (attempt > 0) await sleep(RETRY_DELAY_MS);
    const outcome = runParseTask(task);
    if (outcome.kind === "vanished") return dropVanished(store, config, path);
    if (outcome.kind !== "parsed") continue; // mid-write, unreadable, or unparseable: retry once
    const resolve = resolverOf(store, config);
    // The file's symbols get new ids, so its edges (both ways) are rebuilt with its rows.
    const written = quickly(store, () => {
      store.replaceFileRows({ path, language: outcome.language, ...outcome.stamp }, outcome.extraction, outcome.fingerprint);
      rederive(store, resolve, { rewritten: [row.id], pathsChanged: false });
    });
    return written ? "refreshed" : "busy";
  }
  return "busy";
}

/** A file gone from disk loses its rows; every import is re-resolved (a path went) and what reached the file is relinked. */
function dropVanished(store: Store, config: ResolvedConfig, path: string): Refresh {
  const resolve = resolverOf(store, config, path);
  const dropped = quickly(store, () => {
    store.removeFileRows(path);
    rederive(store, resolve, { rewritten: [], pathsChanged: true });
  });
  return dropped ? "deleted" : "busy";
}

/** The import resolver over the indexed paths (less `without`, a path about to be dropped). */
function resolverOf(store: Store, config: ResolvedConfig, without?: string): (fromPath: string, module: string) => string | null {
  const paths = new Set(store.fileStamps().keys());
  if (without !== undefined) paths.delete(without);
  return createImportResolver(paths, config.project_root).resolve;
}

/** Runs a refresh's transaction with the JIT write budget; false when another writer kept it out. */
function quickly(store: Store, fn: () => void): boolean {
  try {
    store.quickly(JIT_WRITE_BUSY_TIMEOUT_MS, fn);
    return true;
  } catch (err) {
    if (isBusy(err)) return false;
    throw err;
  }
}

/** True while a live process (this one included) holds structure.lock: an index run is writing. */
export function indexRunning(config: ResolvedConfig): boolean {
  return lockState(statePaths(config.state_dir).lock).state === "held";
}

function isBusy(err: unknown): boolean {
  return ((err as { code?: string }).code ?? "").startsWith("SQLITE_BUSY");
}

/**
 * After an edit: brings the project's mast index (when it has one) up to date with the files the
 * edit wrote or deleted — indexed files refreshed in place, a file the index has never seen
 * picked up by an incremental run — for at most `maxBytes` of written files; bigger files are
 * left for the next run or read and returned as `deferred`. Never throws: an index that cannot
 * catch up now is caught up by the next run or the next read's just-in-time refresh.
 */
export async function refreshIndexedFiles(config: ResolvedConfig, absPaths: readonly string[], options: { maxBytes: number }): Promise<{ deferred: string[] }> {
  const deferred: string[] = [];
  const graphDb = statePaths(config.state_dir).graphDb;
  if (!existsSync(graphDb)) return { deferred };
  let unseen = false;
  let budget = options.maxBytes;
  try {
    const store = Store.open(graphDb);
    try {
      if (!store.hasCurrentSchema()) return { deferred };
      for (const abs of absPaths) {
        const rel = relative(config.project_root, abs);
        if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
        const path = rel.split("\\").join("/");
        const size = statSync(abs, { throwIfNoEntry: false })?.size ?? 0;
        if (size > budget) {
          deferred.push(path);
          continue;
        }
        budget -= size;
        if ((await refreshFile(store, config, path)) === "unknown" && existsSync(abs)) unseen = true;
      }
    } finally {
      store.close();
    }
    if (unseen) await runIndexOffThread(config, { mode: "incremental", operation: "index after an edit", lockPolicy: { timeoutMs: 0, retryDelayMs: 0 } });
  } catch {
    // The index heals on its next run or read.
  }
  return { deferred };
}
