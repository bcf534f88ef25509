// The answering of `mast serve --store` (docs/organisation.md#serving-from-the-store) on worker
// threads: a call over many repositories' replicas costs milliseconds of CPU per repository, and
// one thread would answer every session's calls in turn — 64 readers queue behind each other. The
// calls are queued here, each given to the first thread free (one call at a time per thread, so a
// call never waits behind a long one while another thread idles), and a call whose client gave up
// (its MCP request cancelled, as a client's timeout does) while it waited is not answered at all.
// Each thread keeps a tool context per replica directory it was asked about (tools/org.ts
// OrgContexts), closed when the server retires the replica. From TypeScript sources (no compiled
// entry on disk) the calls are answered on this thread, by the same OrgContexts.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { type ErrorData, MastError, errorMessage, fromErrorData } from "../base/errors.js";
import { OrgContexts, mergeOutcomes, selectRepositories, type Outcome, type SearchPlan, type ServedReplica } from "./org.js";

/** An answered call: the answer and its JSON text (made on the answering thread). */
export interface OrgReply {
  readonly answer: unknown;
  readonly text: string;
}

/** What a thread is sent. */
export type OrgThreadRequest = (Work | { readonly type: "close"; readonly dirs: readonly string[] }) & { readonly id: number };

/** A call's work: its whole answer, or its repositories' outcomes for a part of them (an answer another thread merges). */
type Work =
  | { readonly type: "answer"; readonly replicas: readonly ServedReplica[]; readonly name: string; readonly args: unknown; readonly plan?: SearchPlan | undefined }
  | { readonly type: "outcomes"; readonly replicas: readonly ServedReplica[]; readonly name: string; readonly rest: Record<string, unknown> };

/** What a thread answers. */
export type OrgThreadReply = { readonly id: number; readonly ok: true; readonly value: OrgReply | Outcome[] | null } | { readonly id: number; readonly ok: false; readonly error: ErrorData };

const WORKER_FILE = fileURLToPath(new URL("./org-worker.js", import.meta.url));

/** Threads answering, by default: one per core, at most four (each keeps its own connection and caches per replica). */
export const DEFAULT_ANSWER_THREADS = Math.max(1, Math.min(4, availableParallelism()));

/**
 * A search over at least this many repositories per thread is split between the threads, each
 * searching a part and this thread fusing them: its repositories' searches are independent (the
 * other tools' answers read several repositories' indexes at once, and most ask a few).
 */
const SPLIT_SEARCH_REPOSITORIES = 4;

interface Waiting {
  readonly work: Work;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (r: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/** One answering thread: the calls it was given and is answering, by id. */
interface Thread {
  readonly worker: Worker;
  readonly pending: Map<number, { resolve: (v: unknown) => void; reject: (err: unknown) => void }>;
  busy: boolean;
  /** It stopped: out of turn until its replacement starts. */
  lost?: boolean;
}

/** How long after a thread stopped another is started, ms. */
const RESTART_MS = 1_000;

const shuttingDown = () => new MastError("SERVER_LOST", "the server is shutting down", { hint: "Call again once it is back." });

/** The answering threads (or this thread, from sources), with the queue of calls waiting for one. */
export class OrgThreads {
  private readonly threads: Thread[] = [];
  private readonly queue: Waiting[] = [];
  private readonly inline: OrgContexts | null;
  private nextId = 1;
  private closed = false;

  constructor(
    count: number,
    private readonly log: (line: string) => void,
  ) {
    this.inline = existsSync(WORKER_FILE) ? null : new OrgContexts();
    if (this.inline === null) for (let i = 0; i < count; i++) this.threads.push(this.start());
  }

  /** The threads answering (0: this one). */
  get size(): number {
    return this.threads.length;
  }

  /** `name` answered over `replicas` (a search narrowed by `plan`) by the first thread free; refused when the call was cancelled while it waited. */
  async answer(replicas: readonly ServedReplica[], name: string, args: unknown, signal?: AbortSignal, plan?: SearchPlan): Promise<OrgReply> {
    if (this.inline !== null) return this.inline.answer(replicas, name, args, plan);
    if (name === "mast_search" && this.threads.length > 1) {
      const { chosen, rest } = selectRepositories(replicas, name, args);
      const parts = Math.min(this.threads.length, Math.floor(chosen.length / SPLIT_SEARCH_REPOSITORIES));
      if (parts > 1) {
        const size = Math.ceil(chosen.length / parts);
        const split = Array.from({ length: parts }, (_, i) => chosen.slice(i * size, (i + 1) * size));
        // Every part settled before the call ends: the replicas a part reads are the call's until then.
        const settled = await Promise.allSettled(split.map((part) => this.queued({ type: "outcomes", replicas: part, name, rest }, signal) as Promise<Outcome[]>));
        const failed = settled.find((s) => s.status === "rejected");
        if (failed !== undefined) throw failed.reason;
        const answer = mergeOutcomes(
          name,
          rest,
          chosen.length,
          settled.flatMap((s) => (s.status === "fulfilled" ? s.value : [])),
          { plan },
        );
        return { answer, text: JSON.stringify(answer) };
      }
    }
    return this.queued({ type: "answer", replicas, name, args, plan }, signal) as Promise<OrgReply>;
  }

  private queued(work: Work, signal: AbortSignal | undefined): Promise<unknown> {
    if (this.closed) return Promise.reject(shuttingDown());
    return new Promise((resolve, reject) => {
      this.queue.push({ work, signal, resolve, reject });
      this.dispatch();
    });
  }

  /** Closes every thread's contexts of `dirs` (replicas about to be removed); resolves once all have. */
  async release(dirs: readonly string[]): Promise<void> {
    if (this.inline !== null) return this.inline.close(dirs);
    if (this.closed) throw shuttingDown();
    // A stopped thread's contexts went with it.
    await Promise.all(this.threads.filter((t) => !t.lost).map((t) => this.send(t, { type: "close", id: this.nextId++, dirs })));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.queue.splice(0)) w.reject(shuttingDown());
    this.inline?.close(null);
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  private start(): Thread {
    const thread: Thread = { worker: new Worker(WORKER_FILE), pending: new Map(), busy: false };
    thread.worker.on("message", (reply: OrgThreadReply) => {
      const p = thread.pending.get(reply.id);
      if (p === undefined) return;
      thread.pending.delete(reply.id);
      if (reply.ok) p.resolve(reply.value);
      else p.reject(fromErrorData(reply.error));
    });
    const lost = (why: string) => {
      for (const p of thread.pending.values()) p.reject(new MastError("SERVER_LOST", `an answering thread stopped: ${why}`, { hint: "Call again: the server starts another." }));
      thread.pending.clear();
      if (!this.threads.includes(thread) || this.closed || thread.lost) return;
      // Taken out of turn at once, replaced a second later (a thread that cannot start is not restarted in a loop).
      thread.lost = true;
      thread.busy = true;
      this.log(`mast serve: an answering thread stopped (${why}); another starts in ${RESTART_MS / 1000} s`);
      setTimeout(() => {
        const at = this.threads.indexOf(thread);
        if (at === -1 || this.closed) return;
        this.threads[at] = this.start();
        this.dispatch();
      }, RESTART_MS).unref();
    };
    thread.worker.once("error", (err) => lost(errorMessage(err)));
    thread.worker.once("exit", (code) => lost(`exit code ${code}`));
    return thread;
  }

  private send(thread: Thread, request: OrgThreadRequest): Promise<unknown> {
    return new Promise((resolve, reject) => {
      thread.pending.set(request.id, { resolve, reject });
      thread.worker.postMessage(request);
    });
  }

  /** Gives waiting calls to free threads, dropping those whose client gave up. */
  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread.busy) continue;
      let next = this.queue.shift();
      while (next?.signal?.aborted) {
        next.reject(new MastError("INVALID_ARGUMENT", "the call was cancelled before it was answered", { hint: "Nothing to do: the client gave up on it." }));
        next = this.queue.shift();
      }
      if (next === undefined) return;
      const call = next;
      thread.busy = true;
      this.send(thread, { ...call.work, id: this.nextId++ })
        .then(call.resolve, call.reject)
        .finally(() => {
          if (thread.lost) return;
          thread.busy = false;
          this.dispatch();
        });
    }
  }
}
