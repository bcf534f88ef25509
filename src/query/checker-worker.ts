// Worker-thread entry of the checker pass (query/checker.ts): the compiler's programs
// (checker-program.ts) built from the files it is started with, the largest at once; then the
// targets, candidate chunks checked as they come with verdicts posted back in batches, and the
// report when the candidates end.
import { parentPort, workerData } from "node:worker_threads";
import { errorMessage } from "../base/errors.js";
import type { CheckerWorkerData, CheckerWorkerMessage, CheckerWorkerRequest } from "./checker.js";
import { CheckerPrograms } from "./checker-program.js";

const post = (msg: CheckerWorkerMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(msg, transfer);
const data = workerData as CheckerWorkerData;

try {
  const programs = new CheckerPrograms(data.root, data.files);
  parentPort!.on("message", (msg: CheckerWorkerRequest) => {
    try {
      if (msg.kind === "begin") programs.begin(msg.targets, (batch) => post({ kind: "batch", batch }, [batch.indices.buffer as ArrayBuffer, batch.codes.buffer as ArrayBuffer]));
      else if (msg.kind === "add") programs.add(msg.candidates);
      else post({ kind: "done", report: programs.end() });
    } catch (err) {
      post({ kind: "failed", message: errorMessage(err) });
    }
  });
} catch (err) {
  post({ kind: "failed", message: errorMessage(err) });
}
