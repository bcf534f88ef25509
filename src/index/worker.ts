// Worker-thread entry of the parse pool: runs parse tasks posted by the main thread.
import { parentPort } from "node:worker_threads";
import { runParseTask, type ParseTask } from "./parse-task.js";

parentPort?.on("message", (msg: { id: number; task: ParseTask }) => {
  parentPort!.postMessage({ id: msg.id, outcome: runParseTask(msg.task) });
});
