// Worker-thread entry of index/run-thread.ts (named by query/index-threads.ts): one job (an index
// run, a status snapshot, the packed stamps, a store's replicas), its answer or its error posted back. It sits above
// the index layer so it can load the checker pass for a run that asks for it.
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { errorData } from "../base/errors.js";
import { checkerFor, runJob, type ThreadJob, type ThreadMessage } from "../index/run-thread.js";
import { loadCheckerPass } from "./index-threads.js";

const post = (msg: ThreadMessage) => parentPort!.postMessage(msg);
const { job, progress } = workerData as { job: ThreadJob; progress: boolean };

// A store server's replica builds yield the CPU to its answering threads (on Linux a thread's own niceness).
if (job.kind === "replicas" && job.sync.yieldCpu) {
  try {
    setPriority(10);
  } catch {
    // not permitted here: built at the normal priority
  }
}

checkerFor(job, loadCheckerPass)
  .then((pass) => runJob(job, pass, progress ? (p) => post({ progress: p }) : undefined))
  .then(
    (value) => post({ ok: true, value }),
    (err: unknown) => post({ ok: false, error: errorData(err) }),
  );
