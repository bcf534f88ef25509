// Worker-thread entry of runIndexOffThread: one index run, its report or its error posted back.
import { parentPort, workerData } from "node:worker_threads";
import { errorMessage, isMastError } from "../base/errors.js";
import type { ResolvedConfig } from "./config.js";
import type { RunMessage, ThreadRunOptions } from "./run-thread.js";
import { runIndex } from "./run.js";

const { config, options } = workerData as { config: ResolvedConfig; options: ThreadRunOptions };
const post = (msg: RunMessage) => parentPort!.postMessage(msg);

runIndex(config, options).then(
  (report) => post({ ok: true, report }),
  (err: unknown) =>
    post({
      ok: false,
      error: isMastError(err) ? { code: err.code, message: err.message, hint: err.hint, ...(err.details ? { details: err.details } : {}) } : { message: errorMessage(err) },
    }),
);
