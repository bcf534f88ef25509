// Just-in-time refresh for read tools (spec §9.0) and after an edit: a file newer on disk than its
// rows is re-parsed and rewritten before the tool answers — without structure.lock, with a 200 ms
// write budget, one 50 ms retry for a file caught mid-write, and the stale rows (flagged) as the
// answer when the refresh cannot win. A file gone from disk loses its rows. The files one answer
// names change together with everything derived from them (imports, edges) in one transaction,
// and never while an index run is writing: waiting for its commit would block the answer.
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { createImportResolver } from "../resolve/imports.js";
import { Store, prepared } from "../store/db.js";
import type { ResolvedConfig } from "./config.js";
import { runParseTask, type ParseOutcome } from "./parse-task.js";
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
  return (await refreshFiles(store, config, [path])).get(path)!;
}

/**
 * refreshFile for every file an answer names, in one transaction: another reader sees all of
 * them refreshed or none (a file at a time, it could see an answer's files half old, half new).
 */
export async function refreshFiles(store: Store, config: ResolvedConfig, paths: Iterable<string>): Promise<Map<string, Refresh>> {
  const result = new Map<string, Refresh>();
  const stale: Stale[] = [];
  const rowOf = prepared(store.db, "SELECT id, mtime, content_hash AS hash FROM files WHERE path = ?");
  for (const path of paths) {
    if (result.has(path)) continue;
    const row = rowOf.get(path) as Stale["seen"] | undefined;
    if (!row) {
      result.set(path, "unknown");
      continue;
    }
    const abs = join(config.project_root, path);
    const mtime = statSync(abs, { throwIfNoEntry: false })?.mtimeMs ?? null;
    if (mtime !== null && mtime <= row.mtime) result.set(path, "fresh");
    else stale.push({ path, abs, seen: row, gone: mtime === null });
  }
  if (stale.length === 0) return result;
  for (const f of stale) result.set(f.path, "busy"); // until the refresh below says otherwise
  // An index run holds the write lock until its commit: a refresh could only wait, then lose.
  if (indexRunning(config)) return result;
  const rewrites: Array<Stale & { outcome: Extract<ParseOutcome, { kind: "parsed" }> }> = [];
  const removals: Stale[] = [];
  for (const f of stale) {
    if (f.gone) {
      removals.push(f);
      continue;
    }
    const task = { path: f.path, abs: f.abs, options: extractOptionsOf(config), maxFileBytes: config.max_file_bytes };
    let outcome = runParseTask(task);
    // Mid-write, unreadable, or unparseable: retried once.
    if (outcome.kind !== "parsed" && outcome.kind !== "vanished") {
      await sleep(RETRY_DELAY_MS);
      outcome = runParseTask(task);
    }
    if (outcome.kind === "vanished") removals.push({ ...f, gone: true });
    else if (outcome.kind === "parsed") rewrites.push({ ...f, outcome });
  }
  if (rewrites.length === 0 && removals.length === 0) return result;
  let applied: { rewritten: Stale[]; removed: Stale[] } | null = null;
  try {
    store.quickly(JIT_WRITE_BUSY_TIMEOUT_MS, () => {
      // Holding the write lock, each file is checked again: what was seen may be old by now (another
      // writer refreshed it, or the file changed again on disk). Only what still holds is applied;
      // the rest stays flagged busy.
      const current = (f: Stale) => {
        const row = rowOf.get(f.path) as Stale["seen"] | undefined;
        return row !== undefined && row.id === f.seen.id && row.mtime === f.seen.mtime && row.hash === f.seen.hash;
      };
      const rewritten = rewrites.filter((r) => current(r) && statSync(r.abs, { throwIfNoEntry: false })?.mtimeMs === r.outcome.stamp.mtime);
      const removed = removals.filter((f) => current(f) && !existsSync(f.abs));
      const resolve = resolverOf(store, config, removed.map((f) => f.path));
      // Rewritten files' symbols get new ids, so their edges (both ways) are rebuilt with their rows;
      // a path that went re-resolves every import.
      for (const r of rewritten) store.replaceFileRows({ path: r.path, language: r.outcome.language, ...r.outcome.stamp }, r.outcome.extraction, r.outcome.fingerprint);
      for (const f of removed) store.removeFileRows(f.path);
      if (rewritten.length > 0 || removed.length > 0) rederive(store, resolve, { rewritten: rewritten.map((r) => r.seen.id), pathsChanged: removed.length > 0 });
      applied = { rewritten, removed };
    });
  } catch (err) {
    if (!isBusy(err)) throw err;
    return result;
  }
  for (const r of applied!.rewritten) result.set(r.path, "refreshed");
  for (const f of applied!.removed) result.set(f.path, "deleted");
  return result;
}

/** A file whose rows may be older than the disk, and its row as first seen. */
interface Stale {
  readonly path: string;
  readonly abs: string;
  readonly seen: { readonly id: number; readonly mtime: number; readonly hash: string };
  readonly gone: boolean;
}

/** The import resolver over the indexed paths, less those about to be dropped. */
function resolverOf(store: Store, config: ResolvedConfig, without: readonly string[]): (fromPath: string, module: string) => string | null {
  const paths = new Set(store.fileStamps().keys());
  for (const path of without) paths.delete(path);
  return createImportResolver(paths, config.project_root).resolve;
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
      const within = new Map<string, string>();
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
        within.set(path, abs);
      }
      // One transaction for every file the edit wrote: a reader sees the edit's files all refreshed or none.
      for (const [path, refresh] of await refreshFiles(store, config, within.keys())) if (refresh === "unknown" && existsSync(within.get(path)!)) unseen = true;
    } finally {
      store.close();
    }
    if (unseen) await runIndexOffThread(config, { mode: "incremental", operation: "index after an edit", lockPolicy: { timeoutMs: 0, retryDelayMs: 0 } });
  } catch {
    // The index heals on its next run or read.
  }
  return { deferred };
}
