// The parse pool: worker threads turn files into extractions while the main thread writes.
// Results come back in task order through a bounded window, so memory stays flat on big trees.
// Small work sets (and runs from TypeScript sources, where no compiled worker exists) parse inline.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { Worker } from "node:worker_threads";
import { errorMessage } from "../base/errors.js";
import { yieldToLoop } from "../base/loop.js";
import { runParseTask, type ParseOutcome, type ParseTask } from "./parse-task.js";

export interface ParsePool {
  /** Parses every task; yields outcomes in task order. */
  map(tasks: readonly ParseTask[]): AsyncGenerator<ParseOutcome>;
  close(): Promise<void>;
  readonly threads: number;
}

const WORKER_FILE = fileURLToPath(new URL("./worker.js", import.meta.url));

/** Below this many files a run parses inline: starting workers costs more than it saves. */
export const INLINE_MAX_FILES = 24;
/** Tasks posted to one worker ahead of its results. */
const QUEUE_PER_WORKER = 48;
/** Tasks submitted ahead of the one the writer waits for, per thread (bounds buffered results). */
const WINDOW_PER_THREAD = 96;

/**
 * V8's optimizing compiler, set for a process that starts parse threads (before their isolates
 * exist; the flags are the process's): each thread compiles the extraction's hot functions itself,
 * and with V8's defaults — inlining up to 920 bytecodes into a function, a tier-up after ~66 KB of
 * bytecode run — TurboFan's background threads spent a fifth of a theia build's CPU (2.3 of 12 s)
 * compiling, several times over, functions that inline half the extractor. Fewer inlined
 * bytecodes and a later tier-up: theia's full build 6.3–6.6 → 5.8–6.0 s wall, 10.7–11.0 → 9.6–9.7 s
 * of CPU (docs/decisions.md, "The compiler flags of an index run"). A flag the process was started
 * with is left as given.
 */
const INDEXING_V8_FLAGS = ["--max-inlined-bytecode-size-cumulative=150", "--interrupt-budget=270336"];

/** The flags of INDEXING_V8_FLAGS a process started with `execArgv` and `NODE_OPTIONS` did not set itself (V8 reads `_` as `-`). */
export function indexingCompilerFlags(execArgv: readonly string[], nodeOptions: string): string[] {
  const name = (arg: string) => arg.split("=")[0]!.replace(/_/g, "-");
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map(name));
  return INDEXING_V8_FLAGS.filter((flag) => !given.has(name(flag)));
}

let compilerTuned = false;

function tuneCompilerForIndexing(): void {
  if (compilerTuned) return;
  compilerTuned = true;
  for (const flag of indexingCompilerFlags(process.execArgv, process.env.NODE_OPTIONS ?? "")) setFlagsFromString(flag);
}

/**
 * One parse thread per core beyond the main thread, which spends the run writing — but at least
 * two on a machine with two cores: the writer waits on the parser a third of a full run, so a
 * second parse thread shares its core (docs/decisions.md, "Parse threads").
 */
export function defaultThreadCount(): number {
  const cores = availableParallelism();
  return cores < 2 ? 1 : Math.min(8, Math.max(2, cores - 1));
}

const inlinePool: ParsePool = {
  threads: 0,
  async *map(tasks) {
    for (const task of tasks) {
      yield runParseTask(task);
      await yieldToLoop();
    }
  },
  close: async () => undefined,
};

export function createParsePool(files: number, threads = defaultThreadCount()): ParsePool {
  if (files <= INLINE_MAX_FILES || threads < 1 || !existsSync(WORKER_FILE)) return inlinePool;
  const n = Math.min(threads, files);
  tuneCompilerForIndexing();
  const workers = Array.from({ length: n }, () => new Worker(WORKER_FILE));
  // Each live worker holds up to QUEUE_PER_WORKER posted tasks, so it keeps parsing while the main
  // thread is busy writing and cannot hand out work.
  const posted = new Map<Worker, Array<{ id: number; task: ParseTask; settle: (o: ParseOutcome) => void }>>(workers.map((w) => [w, []]));
  const waiting: Array<{ id: number; task: ParseTask; settle: (o: ParseOutcome) => void }> = [];
  const dispatch = () => {
    while (waiting.length) {
      let target: Worker | null = null;
      for (const [w, queue] of posted) if (queue.length < QUEUE_PER_WORKER && (!target || queue.length < posted.get(target)!.length)) target = w;
      if (!target) {
        if (posted.size === 0) for (const job of waiting.splice(0)) job.settle(runParseTask(job.task)); // every worker crashed: finish inline
        return;
      }
      const job = waiting.shift()!;
      posted.get(target)!.push(job);
      target.postMessage({ id: job.id, task: job.task });
    }
  };
  for (const w of workers) {
    w.on("message", (msg: { id: number; outcome: ParseOutcome }) => {
      posted.get(w)?.shift()?.settle(msg.outcome);
      dispatch();
    });
    w.on("error", (err) => {
      // A crashed worker fails the file it was parsing (a counted error); its other tasks go to live workers.
      const queue = posted.get(w) ?? [];
      posted.delete(w);
      const [current, ...rest] = queue;
      current?.settle({ kind: "read_error", path: current.task.path, error: `parse worker crashed: ${errorMessage(err)}` });
      waiting.unshift(...rest);
      dispatch();
    });
  }
  let nextId = 0;
  const submit = (task: ParseTask) =>
    new Promise<ParseOutcome>((settle) => {
      waiting.push({ id: nextId++, task, settle });
      dispatch();
    });
  return {
    threads: n,
    async *map(tasks) {
      const window = n * WINDOW_PER_THREAD;
      const inFlight: Array<Promise<ParseOutcome>> = [];
      let next = 0;
      while (next < tasks.length && inFlight.length < window) inFlight.push(submit(tasks[next++]!));
      while (inFlight.length) {
        const outcome = await inFlight.shift()!;
        if (next < tasks.length) inFlight.push(submit(tasks[next++]!));
        yield outcome;
      }
    },
    close: async () => {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
