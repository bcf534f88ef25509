// Index work off the caller's thread: the MCP server's startup reindex, mast_reindex, the index run
// after an edit, the heal of an interrupted run and mast_status's freshness pass (which hashes
// every file) run in a worker thread, so a request never waits behind a walk, a hash pass, a batch
// write, the derived pass or the final checkpoint — ping and queries are answered throughout.
// The worker's entry and the checker pass belong to the layer above (query/index-threads.ts
// passes both in); from TypeScript sources (no compiled entry on disk) the work happens inline.
import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { type ErrorData, fromErrorData } from "../base/errors.js";
import type { ResolvedConfig } from "./config.js";
import { SERVER_LOCK_POLICY } from "./lock.js";
import type { ReplicaSyncJob, ReplicaSyncResult } from "./replicas.js";
import type { CheckerPass, IndexProgress, IndexReport, RunIndexOptions } from "./run.js";
import { type IndexStatus, indexLock, indexStatus } from "./status.js";

/** A run's options as data: `checker: true` runs the checker pass the thread that runs it was given. */
export type ThreadRunOptions = Omit<RunIndexOptions, "onProgress" | "checker"> & { readonly checker?: boolean };

/** What the owner of the worker's entry passes in: the entry's file, and the checker pass for a run on this thread. */
export interface IndexThreadHost {
  /** The worker thread's entry (a module that runs `runJob` with the checker pass it loads); absent on disk, jobs run inline. */
  readonly workerEntry: string;
  /** The checker pass, loaded when a run on this thread asks for it. */
  readonly checkerPass: () => Promise<CheckerPass>;
}

/** What a worker is asked to do. */
export type ThreadJob =
  | { readonly kind: "index"; readonly config: ResolvedConfig; readonly options: ThreadRunOptions }
  | { readonly kind: "status"; readonly config: ResolvedConfig }
  | { readonly kind: "stamps"; readonly config: ResolvedConfig }
  | { readonly kind: "replicas"; readonly sync: ReplicaSyncJob };

/** What the worker posts back: the job's answer, or its error as plain data. */
export type ThreadMessage = { readonly progress: IndexProgress } | { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: ErrorData };

/** A run's progress is reported at most this often (and once at its last file). */
const PROGRESS_INTERVAL_MS = 200;

/** `onProgress` called at most every 200 ms, and for the last file. */
function throttled(onProgress: (p: IndexProgress) => void): (p: IndexProgress) => void {
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (p.done < p.total && now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    onProgress(p);
  };
}

/** The checker pass a job needs, loaded by `load` only when it is an index run that asks for it. */
export function checkerFor(job: ThreadJob, load: () => Promise<CheckerPass>): Promise<CheckerPass | null> {
  return job.kind === "index" && job.options.checker ? load() : Promise.resolve(null);
}

/**
 * The job itself, on whichever thread runs it (the worker's entry calls this too), with the checker
 * pass the thread was given (null: none, and a run asking for it is refused); an index run reports
 * its progress to `onProgress`.
 */
export function runJob(job: ThreadJob, checkerPass: CheckerPass | null, onProgress?: (p: IndexProgress) => void): Promise<unknown> {
  if (job.kind === "index") {
    const { checker, ...options } = job.options;
    if (checker && checkerPass === null) return Promise.reject(new Error("a run asked for the checker pass, but this thread was given none"));
    // The indexer is loaded by the thread that runs it: a caller that only asks (a query healing
    // an interrupted run, the server's refresh) hands it to a worker without loading it.
    return import("./run.js").then(({ runIndex }) =>
      runIndex(job.config, { ...options, ...(checker && checkerPass ? { checker: checkerPass } : {}), ...(onProgress ? { onProgress: throttled(onProgress) } : {}) }),
    );
  }
  if (job.kind === "stamps") return import("./state.js").then((state) => packStampsNow(job.config, state));
  if (job.kind === "replicas") return import("./replicas.js").then(({ runReplicaSync }) => runReplicaSync(job.sync));
  return indexStatus(job.config);
}

/** file-stamps.bin written again from graph.db's rows when it is behind them (state.ts refreshPackedStamps); whether it was. */
function packStampsNow(config: ResolvedConfig, state: typeof import("./state.js")): Promise<boolean> {
  const paths = state.statePaths(config.state_dir);
  return import("../store/store.js").then(({ Store }) => {
    const store = Store.open(paths.graphDb, { readonly: true });
    try {
      return state.refreshPackedStamps(paths, store);
    } finally {
      store.close();
    }
  });
}

/** Index work off the caller's thread, through the worker entry and with the checker pass its owner passed in. */
export class IndexThreads {
  constructor(private readonly host: IndexThreadHost) {}

  /** An index run off this thread; `onProgress` hears of its parsing (files done of the work set), at most every 200 ms. */
  runIndex(config: ResolvedConfig, options: ThreadRunOptions, onProgress?: (p: IndexProgress) => void): Promise<IndexReport> {
    return this.offThread({ kind: "index", config, options }, onProgress) as Promise<IndexReport>;
  }

  /** file-stamps.bin brought up to graph.db's files generation off this thread (110,000 rows read and 11 MB written at 1 GB); whether it was behind. */
  packStamps(config: ResolvedConfig): Promise<boolean> {
    return this.offThread({ kind: "stamps", config }) as Promise<boolean>;
  }

  /** A store's replicas brought up with it off this thread (index/replicas.ts: a replica's build writes its files and graph.db). */
  syncReplicas(sync: ReplicaSyncJob): Promise<ReplicaSyncResult> {
    return this.offThread({ kind: "replicas", sync }) as Promise<ReplicaSyncResult>;
  }

  /** The status snapshot (a walk and a hash of every file) computed off this thread. */
  status(config: ResolvedConfig): Promise<IndexStatus> {
    return this.offThread({ kind: "status", config }) as Promise<IndexStatus>;
  }

  /**
   * When the last index run died holding the lock (killed, or its machine went down), an incremental
   * run now: a query after a crash answers from an index that is complete for the files on disk,
   * not from the one before the crash. Returns whether it ran; a run that cannot start (another
   * process took the lock meanwhile) leaves the answer to say `indexing`.
   */
  async healInterruptedRun(config: ResolvedConfig): Promise<boolean> {
    if (indexLock(config).state !== "abandoned") return false;
    try {
      await this.runIndex(config, { mode: "incremental", operation: "heal an interrupted index run", lockPolicy: SERVER_LOCK_POLICY });
      return true;
    } catch {
      return false;
    }
  }

  private async offThread(job: ThreadJob, onProgress?: (p: IndexProgress) => void): Promise<unknown> {
    if (!existsSync(this.host.workerEntry)) {
      return runJob(job, await checkerFor(job, this.host.checkerPass), onProgress);
    }
    return new Promise((resolve, reject) => {
      const worker = new Worker(this.host.workerEntry, { workerData: { job, progress: onProgress !== undefined } });
      let settled = false;
      worker.on("message", (msg: ThreadMessage) => {
        if ("progress" in msg) {
          if (!settled) onProgress?.(msg.progress);
          return;
        }
        settled = true;
        if (msg.ok) resolve(msg.value);
        else reject(fromErrorData(msg.error));
      });
      worker.once("error", (err) => {
        settled = true;
        reject(err);
      });
      worker.once("exit", (code) => {
        if (!settled) reject(new Error(`the index worker exited with code ${code} before it answered`));
      });
    });
  }
}
