// Index runs off the caller's thread: the MCP server's startup reindex, mast_reindex and the
// index run after an edit go through here, so a request never waits behind a walk, a hash pass,
// a batch write, the relink or the final checkpoint — ping and queries are answered throughout.
// From TypeScript sources (no compiled worker next to this file) the run happens inline.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ERROR_CODES, MastError, type ErrorCode } from "../base/errors.js";
import type { ResolvedConfig } from "./config.js";
import { SERVER_LOCK_POLICY, lockState } from "./lock.js";
import { statePaths } from "./state.js";
import { runIndex, type IndexReport, type RunIndexOptions } from "./run.js";

const WORKER_FILE = fileURLToPath(new URL("./run-worker.js", import.meta.url));

/** What the worker posts back: the report, or the error as plain data. */
export type RunMessage =
  | { readonly ok: true; readonly report: IndexReport }
  | { readonly ok: false; readonly error: { readonly code?: string; readonly message: string; readonly hint?: string; readonly details?: Record<string, unknown> } };

export type ThreadRunOptions = Omit<RunIndexOptions, "onProgress">;

export function runIndexOffThread(config: ResolvedConfig, options: ThreadRunOptions): Promise<IndexReport> {
  if (!existsSync(WORKER_FILE)) return runIndex(config, options);
  return new Promise<IndexReport>((resolve, reject) => {
    const worker = new Worker(WORKER_FILE, { workerData: { config, options } });
    let settled = false;
    worker.once("message", (msg: RunMessage) => {
      settled = true;
      if (msg.ok) resolve(msg.report);
      else reject(reviveError(msg.error));
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

/**
 * When the last index run died holding the lock (killed, or its machine went down), an incremental
 * run now: a query after a crash answers from an index that is complete for the files on disk,
 * not from the one before the crash. Returns whether it ran; a run that cannot start (another
 * process took the lock meanwhile) leaves the answer to say `indexing`.
 */
export async function healInterruptedRun(config: ResolvedConfig): Promise<boolean> {
  if (lockState(statePaths(config.state_dir).lock).state !== "abandoned") return false;
  try {
    await runIndexOffThread(config, { mode: "incremental", operation: "heal an interrupted index run", lockPolicy: SERVER_LOCK_POLICY });
    return true;
  } catch {
    return false;
  }
}

function reviveError(e: Extract<RunMessage, { ok: false }>["error"]): Error {
  if (e.code !== undefined && e.code in ERROR_CODES) {
    return new MastError(e.code as ErrorCode, e.message, { ...(e.hint === undefined ? {} : { hint: e.hint }), ...(e.details === undefined ? {} : { details: e.details }) });
  }
  return new Error(e.message);
}
