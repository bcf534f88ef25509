// `mast serve --watch` (docs/index-lifecycle.md#watching-the-tree): files created, changed or deleted by any means are found by
// the index without a mast_reindex. The only chokidar importer. A watcher over the project root
// (the indexed extensions; the excludes, .git and the state dir left out) feeds a debounced,
// coalescing, single-flight queue of incremental index runs off the server's thread. A run that
// fails (the lock held by another writer) is retried on the next tick; after 3 failures in a row
// its batch is dropped with a warning. A watcher that cannot start or fails later logs a warning
// and the server keeps serving without it.
import { createRequire } from "node:module";
import { relative, sep } from "node:path";
import type { FSWatcher } from "chokidar";
import { compileGlobs } from "../base/glob.js";
import { errorMessage } from "../base/errors.js";
import type { ResolvedConfig } from "./config.js";
import type { IndexReport } from "./run.js";

/** Quiet time after the last event before a run starts. */
export const WATCH_DEBOUNCE_MS = 500;
/** A stream of events that never pauses still runs this often. */
const WATCH_MAX_WAIT_MS = 2_000;
/** Consecutive failed runs after which a batch is dropped. */
export const WATCH_MAX_FAILURES = 3;

export interface WatchOptions {
  /** Runs one incremental index (off the caller's thread). */
  readonly run: () => Promise<IndexReport>;
  readonly log: (line: string) => void;
  readonly debounceMs?: number;
}

export interface Watch {
  /** Resolves once the watcher has scanned the tree and reports events (or has given up). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export function startWatch(config: ResolvedConfig, options: WatchOptions): Watch {
  const root = config.project_root;
  const exclude = compileGlobs(config.exclude_patterns);
  const extensions = config.file_extensions;
  const debounceMs = options.debounceMs ?? WATCH_DEBOUNCE_MS;
  const rel = (abs: string) => relative(root, abs).split(sep).join("/");
  const stateRel = rel(config.state_dir);
  const insideState = (r: string) => stateRel !== "" && !stateRel.startsWith("..") && (r === stateRel || r.startsWith(`${stateRel}/`));

  const ignored = (abs: string, stats?: { isFile(): boolean; isDirectory(): boolean }): boolean => {
    const r = rel(abs);
    if (r === "") return false;
    if (r.startsWith("..") || r === ".git" || r.startsWith(".git/") || insideState(r)) return true;
    if (stats?.isDirectory()) return exclude.coversDirectory(r);
    if (exclude.matches(r)) return true;
    // Asked before its stats are known (chokidar asks twice), a path may be a directory: only what the excludes cover goes.
    if (stats === undefined) return exclude.coversDirectory(r);
    return stats.isFile() && !extensions.some((e) => r.endsWith(e));
  };

  let pending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let firstEventAt = 0;
  let running: Promise<void> | null = null;
  let failures = 0;
  let closed = false;
  let watcher: FSWatcher | null = null;

  const schedule = () => {
    if (closed) return;
    const now = Date.now();
    if (timer === null) firstEventAt = now;
    else clearTimeout(timer);
    const wait = Math.max(0, Math.min(debounceMs, firstEventAt + WATCH_MAX_WAIT_MS - now));
    timer = setTimeout(fire, wait);
  };

  const fire = () => {
    timer = null;
    if (closed || pending.size === 0) return;
    // Single-flight: events during a run wait for it; the run's end schedules the next.
    if (running) return;
    const batch = pending;
    pending = new Set();
    running = options
      .run()
      .then(
        (report) => {
          failures = 0;
          options.log(`mast serve --watch: ${batch.size} change(s): ${report.files_indexed} indexed, ${report.files_deleted} removed`);
        },
        (err: unknown) => {
          failures += 1;
          if (failures >= WATCH_MAX_FAILURES) {
            failures = 0;
            options.log(
              `mast serve --watch: warning: ${batch.size} change(s) dropped after ${WATCH_MAX_FAILURES} failed runs (${errorMessage(err)}); reads of indexed files stay fresh, new files wait for the next change or mast_reindex`,
            );
          } else {
            options.log(`mast serve --watch: run failed (${errorMessage(err)}); retrying`);
            for (const p of batch) pending.add(p);
          }
        },
      )
      .finally(() => {
        running = null;
        if (pending.size > 0) schedule();
      });
  };

  const onEvent = (abs: string) => {
    pending.add(rel(abs));
    schedule();
  };

  const degrade = (err: unknown) => {
    options.log(`mast serve --watch: warning: the watcher failed (${errorMessage(err)}); serving on without it`);
    const w = watcher;
    watcher = null;
    void w?.close().catch(() => undefined);
  };

  let ready: Promise<void> = Promise.resolve();
  try {
    const { watch } = createRequire(import.meta.url)("chokidar") as typeof import("chokidar");
    const w = watch(root, { ignored, ignoreInitial: true, followSymlinks: false, persistent: true });
    watcher = w;
    ready = new Promise<void>((resolve) => {
      w.once("ready", () => resolve());
      w.once("error", () => resolve());
    });
    w.on("add", onEvent).on("change", onEvent).on("unlink", onEvent).on("unlinkDir", onEvent).on("error", degrade);
  } catch (err) {
    degrade(err);
  }

  return {
    ready,
    async close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      const w = watcher;
      watcher = null;
      await w?.close().catch(() => undefined);
      await running;
    },
  };
}
