// Worker-thread entry of index/run-thread.ts: one job (an index run, a status snapshot), its answer
// or its error posted back. It sits above the index layer so it can provide the checker pass to a run that asks for it.
import { parentPort, workerData } from "node:worker_threads";
import { errorMessage, isMastError } from "../base/errors.js";
import { provideCheckerPass, runJob, type ThreadJob, type ThreadMessage } from "../index/run-thread.js";

const post = (msg: ThreadMessage) => parentPort!.postMessage(msg);
const { job, progress } = workerData as { job: ThreadJob; progress: boolean };

const provided = job.kind === "index" && job.options.checker ? import("./checker.js").then(({ checkerPass }) => provideCheckerPass(checkerPass)) : Promise.resolve();

provided
  .then(() => runJob(job, progress ? (p) => post({ progress: p }) : undefined))
  .then(
    (value) => post({ ok: true, value }),
    (err: unknown) =>
      post({
        ok: false,
        error: isMastError(err) ? { code: err.code, message: err.message, hint: err.hint, ...(err.details ? { details: err.details } : {}) } : { message: errorMessage(err) },
      }),
  );
