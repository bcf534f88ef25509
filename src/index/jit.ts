// Just-in-time refresh for single-file read tools (spec §9.0): a file newer on disk than its rows
// is re-parsed and rewritten before the tool answers — without structure.lock, with a 200 ms
// write budget, one 50 ms retry for a file caught mid-write, and the stale rows (flagged) as the
// answer when the refresh cannot win. A file gone from disk loses its rows.
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { createImportResolver } from "../resolve/imports.js";
import { Store } from "../store/db.js";
import type { ResolvedConfig } from "./config.js";
import { runParseTask } from "./parse-task.js";
import { EDGES_DIRTY, linkEdges } from "./link.js";
import { extractOptionsOf, runIndex } from "./run.js";
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
  let mtime: number;
  try {
    mtime = statSync(abs).mtimeMs;
  } catch {
    dropVanished(store, path);
    return "deleted";
  }
  if (mtime <= row.mtime) return "fresh";
  const task = { path, abs, options: extractOptionsOf(config), maxFileBytes: config.max_file_bytes };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (attempt > 0) await sleep(RETRY_DELAY_MS);
    const outcome = runParseTask(task);
    if (outcome.kind === "vanished") {
      dropVanished(store, path);
      return "deleted";
    }
    if (outcome.kind !== "parsed") continue; // mid-write, unreadable, or unparseable: retry once
    const edgesWereDirty = store.getMeta(EDGES_DIRTY) === "1";
    try {
      // The file's symbols get new ids, so its edges (both ways) are stale until relinked below;
      // the flag commits with the rows, so a relink that loses leaves the next graph query to heal it.
      store.writeFileQuickly({ path, language: outcome.language, ...outcome.stamp }, outcome.extraction, outcome.fingerprint, JIT_WRITE_BUSY_TIMEOUT_MS, () =>
        store.setMeta(EDGES_DIRTY, "1"),
      );
    } catch (err) {
      if (isBusy(err)) return "busy";
      throw err;
    }
    store.relinkImports(createImportResolver(new Set(store.fileStamps().keys()), config.project_root).resolve, "unresolved");
    try {
      linkEdges(store, edgesWereDirty ? "all" : [row.id]);
    } catch (err) {
      if (!isBusy(err)) throw err;
    }
    return "refreshed";
  }
  return "busy";
}

/** A file gone from disk loses its rows; edges that reached it through other names are rebuilt whole before the next graph query. */
function dropVanished(store: Store, path: string): void {
  store.batch(() => {
    store.removeFileRows(path);
    store.setMeta(EDGES_DIRTY, "1");
  });
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
    if (unseen) await runIndex(config, { mode: "incremental", operation: "index after an edit", lockPolicy: { timeoutMs: 0, retryDelayMs: 0 } });
  } catch {
    // The index heals on its next run or read.
  }
  return { deferred };
}
