// Just-in-time refresh for read tools (docs/freshness.md) and after an edit: a file whose bytes differ
// from its rows (stat first, then the content hash: index/read.ts) is re-parsed and rewritten
// before the tool answers — without structure.lock, with a 200 ms
// write budget, one 50 ms retry for a file caught mid-write, and the stale rows (flagged) as the
// answer when the refresh cannot win. A file gone from disk loses its rows. The files one answer
// names change together with everything derived from them (imports, edges) in one transaction,
// and never while an index run is writing: waiting for its commit would block the answer.
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import type { FileStamp } from "../store/file-stamps.js";
import { Store } from "../store/store.js";
import type { ResolvedConfig } from "./config.js";
import type { ParseOutcome } from "./parse-task.js";
import { compareWithIndex, pathsStatAsStamped, sameStat, stampPaths, stampStat, type FileStat } from "./read.js";
import { indexLock } from "./status.js";
import type { IndexThreads } from "./run-thread.js";
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
  const names = [...new Set(paths)];
  for (let attempt = 0; ; attempt++) {
    const result = await refreshOnce(store, config, names);
    if (result !== "moved") return result;
    // The disk or the index moved while the refresh looked at them: looked at again, once.
    if (attempt > 0) return observe(store, config, names).result;
  }
}

/** A named file as the refresh first saw it: its row and its stat on disk (null: gone). */
interface Seen {
  readonly path: string;
  readonly abs: string;
  readonly row: FileStamp;
  readonly stat: FileStat | null;
}

function statOf(abs: string): FileStat | null {
  const st = statSync(abs, { throwIfNoEntry: false });
  return st ? { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs } : null;
}

/** Every named file's row and stat; the stale ones (other bytes on disk, or gone) marked busy until refreshed. */
function observe(store: Store, config: ResolvedConfig, names: readonly string[]): { result: Map<string, Refresh>; seen: Seen[]; stale: Seen[] } {
  const result = new Map<string, Refresh>();
  const seen: Seen[] = [];
  const stale: Seen[] = [];
  for (const path of names) {
    const row = store.fileStamp(path);
    if (!row) {
      result.set(path, "unknown");
      continue;
    }
    const abs = join(config.project_root, path);
    const file: Seen = { path, abs, row, stat: statOf(abs) };
    seen.push(file);
    if (file.stat !== null && compareWithIndex(path, config.project_root, config.max_file_bytes, row, file.stat).state === "unchanged") result.set(path, "fresh");
    else {
      stale.push(file);
      result.set(path, "busy"); // until the refresh says otherwise
    }
  }
  return { result, seen, stale };
}

/** One refresh; "moved" when, under the write lock, a named file's row or mtime is not what was seen. */
async function refreshOnce(store: Store, config: ResolvedConfig, names: readonly string[]): Promise<Map<string, Refresh> | "moved"> {
  const { result, seen, stale } = observe(store, config, names);
  if (stale.length === 0) return result;
  // An index run holds the write lock until its commit: a refresh could only wait, then lose.
  if (indexRunning(config)) return result;
  // The parser, extraction and linker, loaded by the first refresh that needs them: a read tool
  // whose files are fresh (a `mast query`'s) never loads them, nor tree-sitter.
  const [{ runParseTask }, { extractOptionsOf }, { rederive }, { createImportResolver }] = await Promise.all([
    import("./parse-task.js"),
    import("./run.js"),
    import("./link.js"),
    import("../resolve/imports.js"),
  ]);
  const rewrites: Array<Seen & { outcome: Extract<ParseOutcome, { kind: "parsed" }> }> = [];
  const removals: Seen[] = [];
  for (const f of stale) {
    if (f.stat === null) {
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
    if (outcome.kind === "vanished" || (outcome.kind === "parsed" && !sameStat(stampStat(outcome.stamp), f.stat))) return "moved";
    if (outcome.kind === "parsed") rewrites.push({ ...f, outcome });
  }
  if (rewrites.length === 0 && removals.length === 0) return result;
  let moved = false;
  try {
    store.quickly(JIT_WRITE_BUSY_TIMEOUT_MS, () => {
      // Holding the write lock: what was seen may be old by now (another writer refreshed or
      // reindexed, a file changed again, a directory was renamed between two stats). Every named
      // file is looked at again, and the refresh is applied only if all of them are as seen.
      moved = seen.some((f) => {
        const row = store.fileStamp(f.path);
        return !row || row.id !== f.row.id || !sameStat(stampStat(row), stampStat(f.row)) || row.contentHash !== f.row.contentHash || !sameStat(statOf(f.abs), f.stat);
      });
      if (moved) return;
      const resolve = resolverOf(
        store,
        config,
        removals.map((f) => f.path),
        createImportResolver,
      );
      // A rewritten file's edges are rebuilt with its rows, and those of the files reaching it (none
      // after a body edit, which keeps its symbol rows: link.ts rederive); a path that went
      // re-resolves every import.
      const kept = new Map<number, ReadonlySet<string>>();
      for (const r of rewrites) {
        const names = store.replaceFileRows({ path: r.path, language: r.outcome.language, ...r.outcome.stamp }, r.outcome.extraction, r.outcome.search, true).kept;
        if (names !== null) kept.set(r.row.id, names);
      }
      for (const f of removals) store.removeFileRows(f.path);
      rederive(store, resolve, { rewritten: rewrites.map((r) => r.row.id), kept, pathsChanged: removals.map((f) => f.path) });
    });
  } catch (err) {
    if (!isBusy(err)) throw err;
    return result;
  }
  if (moved) return "moved";
  for (const r of rewrites) result.set(r.path, "refreshed");
  for (const f of removals) result.set(f.path, "deleted");
  return result;
}

type Resolve = (fromPath: string, module: string) => string | null;

/**
 * The last resolver each project's refreshes built, with the path set's version it was built
 * over and the stats of the configs it read: a server refreshing one file after another reuses it
 * while neither moved (building it reads every tsconfig and manifest: 36 ms on theia).
 */
const resolvers = new Map<string, { readonly version: number; readonly inputs: string; readonly resolve: Resolve }>();

/** The import resolver over the indexed paths, less those about to be dropped. */
function resolverOf(store: Store, config: ResolvedConfig, without: readonly string[], createImportResolver: typeof import("../resolve/imports.js").createImportResolver): Resolve {
  const version = store.pathsVersion();
  const cached = resolvers.get(config.state_dir);
  if (without.length === 0 && cached && cached.version === version && pathsStatAsStamped(cached.inputs)) return cached.resolve;
  const paths = new Set(store.filePaths());
  for (const path of without) paths.delete(path);
  const resolver = createImportResolver(paths, config.project_root);
  if (without.length === 0) resolvers.set(config.state_dir, { version, inputs: stampPaths(resolver.inputs), resolve: resolver.resolve });
  return resolver.resolve;
}

/** True while a live process (this one included) holds structure.lock: an index run is writing. */
export function indexRunning(config: ResolvedConfig): boolean {
  return indexLock(config).state === "held";
}

function isBusy(err: unknown): boolean {
  return ((err as { code?: string }).code ?? "").startsWith("SQLITE_BUSY");
}

/**
 * After an edit: brings the project's mast index (when it has one) up to date with the files the
 * edit wrote or deleted — indexed files refreshed in place, a file the index has never seen
 * picked up by an incremental run on `threads` — for at most `maxBytes` of written files; bigger files are
 * left for the next run or read and returned as `deferred`. Never throws: an index that cannot
 * catch up now is caught up by the next run or the next read's just-in-time refresh.
 */
export async function refreshIndexedFiles(config: ResolvedConfig, absPaths: readonly string[], options: { maxBytes: number; threads: IndexThreads }): Promise<{ deferred: string[] }> {
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
    if (unseen) await options.threads.runIndex(config, { mode: "incremental", operation: "index after an edit", lockPolicy: { timeoutMs: 0, retryDelayMs: 0 } });
  } catch {
    // The index heals on its next run or read.
  }
  return { deferred };
}
