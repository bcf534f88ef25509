// Worker-thread entry of the parse pool: runs the parse tasks posted by the main thread, one per
// event-loop turn — tree-sitter frees a tree's native memory only from a finalizer, which needs
// the loop to turn (a worker draining its queue in one go grew by ~100 MB per MB of source).
import { parentPort } from "node:worker_threads";
import { runParseTask, type ParseTask } from "./parse-task.js";

const queue: Array<{ id: number; task: ParseTask }> = [];
let scheduled = false;

function runNext(): void {
  scheduled = false;
  const msg = queue.shift();
  if (!msg) return;
  parentPort!.postMessage({ id: msg.id, outcome: runParseTask(msg.task) });
  schedule();
}

function schedule(): void {
  if (scheduled || queue.length === 0) return;
  scheduled = true;
  setImmediate(runNext);
}

parentPort?.on("message", (msg: { id: number; task: ParseTask }) => {
  queue.push(msg);
  schedule();
});
