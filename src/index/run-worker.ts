// Worker-thread entry of run-thread.ts: one job (an index run, a status snapshot, the trigram
// index), its answer or its error posted back — then what follows the job (afterJob).
import { parentPort, workerData } from "node:worker_threads";
import { errorMessage, isMastError } from "../base/errors.js";
import { afterJob, runJob, type ThreadJob, type ThreadMessage } from "./run-thread.js";

const post = (msg: ThreadMessage) => parentPort!.postMessage(msg);
const job = workerData as ThreadJob;

runJob(job).then(
  (value) => {
    post({ ok: true, value });
    try {
      afterJob(job, value);
    } catch {
      // Left for the next search to finish.
    }
  },
  (err: unknown) =>
    post({
      ok: false,
      error: isMastError(err) ? { code: err.code, message: err.message, hint: err.hint, ...(err.details ? { details: err.details } : {}) } : { message: errorMessage(err) },
    }),
);
