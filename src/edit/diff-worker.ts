// Worker-thread entry of `diff generate` (edit/diff.ts generateDiffOffThread): makes one diff,
// posts it and is done, so the diff's search never runs on the thread that answers requests.
import { parentPort, workerData } from "node:worker_threads";
import { generateDiff, type DiffRequest } from "./diff.js";

const req = workerData as DiffRequest;
parentPort!.postMessage(generateDiff(req.oldName, req.newName, req.oldText, req.newText, req.context));
