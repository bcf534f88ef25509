// The parse pool: worker threads that turn files into extractions while the main thread writes.
// Small work sets (and runs from TypeScript sources, where no compiled worker exists) parse inline.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { runParseTask, type ParseOutcome, type ParseTask } from "./parse-task.js";

export interface ParsePool {
  run(task: ParseTask): Promise<ParseOutcome>;
  close(): Promise<void>;
  readonly threads: number;
}

const WORKER_FILE = fileURLToPath(new URL("./worker.js", import.meta.url));

/** Below this many files a run parses inline: starting workers costs more than it saves. */
export const INLINE_MAX_FILES = 24;

export function defaultThreadCount(): number {
  return Math.max(1, Math.min(8, availableParallelism()));
}

export function createParsePool(files: number, threads = defaultThreadCount()): ParsePool {
  if (files <= INLINE_MAX_FILES || threads < 1 || !existsSync(WORKER_FILE)) {
    return { threads: 0, run: async (task) => runParseTask(task), close: async () => undefined };
  }
  const n = Math.min(threads, files);
  const workers: Worker[] = [];
  const idle: Worker[] = [];
  const queue: Array<{ id: number; task: ParseTask }> = [];
  const pending = new Map<number, { resolve: (o: ParseOutcome) => void; reject: (e: Error) => void; worker?: Worker }>();
  let nextId = 0;
  const dispatch = () => {
    while (idle.length && queue.length) {
      const w = idle.pop()!;
      const job = queue.shift()!;
      pending.get(job.id)!.worker = w;
      w.postMessage(job);
    }
  };
  for (let i = 0; i < n; i++) {
    const w = new Worker(WORKER_FILE);
    w.on("message", (msg: { id: number; outcome: ParseOutcome }) => {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      idle.push(w);
      p?.resolve(msg.outcome);
      dispatch();
    });
    w.on("error", (err) => {
      // A crashed worker fails the tasks it held; the run counts them as parse errors.
      for (const [id, p] of pending) {
        if (p.worker === w) {
          pending.delete(id);
          p.reject(err);
        }
      }
    });
    workers.push(w);
    idle.push(w);
  }
  return {
    threads: n,
    run: (task) =>
      new Promise<ParseOutcome>((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        queue.push({ id, task });
        dispatch();
      }),
    close: async () => {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
