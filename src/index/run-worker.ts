// Worker-thread entry of run-thread.ts: one job (an index run or a status snapshot), its answer or
// its error posted back.
import { parentPort, workerData } from "node:worker_threads";
import { errorMessage, isMastError } from "../base/errors.js";
import { runJob, type ThreadJob, type ThreadMessage } from "./run-thread.js";

const post = (msg: ThreadMessage) => parentPort!.postMessage(msg);

runJob(workerData as ThreadJob).then(
  (value) => post({ ok: true, value }),
  (err: unknown) =>
    post({
      ok: false,
      error: isMastError(err) ? { code: err.code, message: err.message, hint: err.hint, ...(err.details ? { details: err.details } : {}) } : { message: errorMessage(err) },
    }),
);
