// Telemetry of the read tools (docs/telemetry.md): an answer's `_stats` (sent beside it, in the MCP result's
// `_meta`, never in the text a model reads), and the recorder that hands each call to the
// telemetry thread (tools/telemetry-worker.ts) for exact counts and its metrics.db row. On the request path only what costs microseconds happens: the files an answer
// names, its byte size, the files' sizes from the index. `_stats` is therefore an estimate (4
// bytes a token); the rows — what `mast_efficiency` and `mast metrics` report — are counted by the
// tokenizer (docs/decisions.md, "Token counts off the request path").
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { MetricsDb, type MetricRow } from "../store/metrics.js";

/** Where the telemetry lives in the state dir. */
export function metricsPath(stateDir: string): string {
  return join(stateDir, "metrics.db");
}

/** args_json is cut to this many characters, with `_truncated` saying how many were left out. */
export const ARGS_JSON_CAP = 1_000;
/** results_json lists this many `{file_path, symbol_name}` pairs, with `_truncated` counting the rest. */
export const RESULTS_JSON_CAP = 20;

/** What a tool tells the recorder beyond its answer (a symbol key: JSON never carries it). */
export const TELEMETRY_NOTE: unique symbol = Symbol("mast.telemetry");

export interface TelemetryNote {
  /** The files the answer names, when its JSON does not say them all (a `fields` projection). */
  readonly files?: readonly string[];
  readonly results?: ReadonlyArray<{ file_path: string; symbol_name: string | null }>;
  /** Ranker D's fire record (mast_search). */
  readonly declex?: unknown;
}

/** `answer` with a note for the recorder attached (not serialised). */
export function withNote<T extends object>(answer: T, note: TelemetryNote): T {
  Object.defineProperty(answer, TELEMETRY_NOTE, { value: note, enumerable: false });
  return answer;
}

function noteOf(answer: unknown): TelemetryNote | undefined {
  return typeof answer === "object" && answer !== null ? (answer as { [TELEMETRY_NOTE]?: TelemetryNote })[TELEMETRY_NOTE] : undefined;
}

/** The `_stats` of one answer (docs/telemetry.md#the-_stats-of-an-answer; over MCP in the result's `_meta`). */
export interface AnswerStats {
  readonly tool: string;
  readonly tokens_returned: number;
  readonly tokens_full_file_upper_bound: number;
  readonly files_referenced: readonly string[];
  /** Files named beyond the first 20 listed (all are in the bound). */
  readonly files_referenced_omitted?: number;
  readonly efficiency_ratio: number;
  readonly duration_ms: number;
  /** How the counts were made: always `estimate` (bytes / 4) here; exact counts go to metrics.db. */
  readonly counted: "estimate";
}

/** At most this many files are listed in `_stats.files_referenced` (the bound counts them all). */
const FILES_LISTED = 20;

/** Each object of an answer that has a string `file_path`, in document order (an explicit walk: answers can nest deep). */
function forEachFileObject(answer: unknown, visit: (obj: Record<string, unknown> & { file_path: string }) => void): void {
  const stack: unknown[] = [answer];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    const children = Array.isArray(node) ? node : Object.values(node);
    if (!Array.isArray(node) && typeof (node as Record<string, unknown>)["file_path"] === "string") visit(node as Record<string, unknown> & { file_path: string });
    for (let i = children.length - 1; i >= 0; i--) if (typeof children[i] === "object") stack.push(children[i]);
  }
}

/** Every `file_path` an answer names, first appearance first. */
export function referencedFiles(answer: unknown): string[] {
  const note = noteOf(answer);
  if (note?.files) return [...new Set(note.files)];
  const seen = new Set<string>();
  forEachFileObject(answer, (obj) => seen.add(obj.file_path));
  return [...seen];
}

/** The `{file_path, symbol_name}` pairs an answer returns in rank order (results_json). */
export function resultIdentities(answer: unknown): Array<{ file_path: string; symbol_name: string | null }> {
  const note = noteOf(answer);
  if (note?.results) return [...note.results];
  const out: Array<{ file_path: string; symbol_name: string | null }> = [];
  forEachFileObject(answer, (obj) => {
    const name = obj["symbol_name"] ?? obj["name"] ?? obj["symbol"] ?? null;
    out.push({ file_path: obj.file_path, symbol_name: typeof name === "string" ? name : null });
  });
  return out;
}

/** The estimate an answer carries: its bytes and the named files' indexed sizes, 4 bytes a token. */
export function answerStats(tool: string, answerBytes: number, files: readonly string[], sizes: ReadonlyMap<string, number>, durationMs: number): AnswerStats {
  const returned = Math.ceil(answerBytes / 4);
  let full = 0;
  for (const f of files) full += Math.ceil((sizes.get(f) ?? 0) / 4);
  return {
    tool,
    tokens_returned: returned,
    tokens_full_file_upper_bound: full,
    files_referenced: files.slice(0, FILES_LISTED),
    ...(files.length > FILES_LISTED ? { files_referenced_omitted: files.length - FILES_LISTED } : {}),
    efficiency_ratio: efficiency(returned, full),
    duration_ms: Math.round(durationMs),
    counted: "estimate",
  };
}

/** `1 - returned / full`, in [0, 1], three decimals; 0 when nothing was referenced. */
export function efficiency(returned: number, full: number): number {
  if (full <= 0) return 0;
  return Math.round(Math.min(1, Math.max(0, 1 - returned / full)) * 1000) / 1000;
}

/** `value` as JSON of at most `cap` characters; a longer one is cut and says how much was left out. */
export function cappedJson(value: unknown, cap = ARGS_JSON_CAP): string {
  const text = JSON.stringify(value);
  if (text.length <= cap) return text;
  return JSON.stringify({ _json: text.slice(0, cap), _truncated: text.length - cap });
}

/** The identity pairs as results_json: the first 20, and the count of the rest. */
export function resultsJson(pairs: ReadonlyArray<{ file_path: string; symbol_name: string | null }>): string {
  if (pairs.length <= RESULTS_JSON_CAP) return JSON.stringify(pairs);
  return JSON.stringify({ results: pairs.slice(0, RESULTS_JSON_CAP), _truncated: pairs.length - RESULTS_JSON_CAP });
}

/** One call as the recorder hands it to the telemetry thread: the row without its counts, and what they are counted from. */
export interface RecordedCall extends Omit<MetricRow, "tokens_returned" | "tokens_full_file_upper_bound"> {
  /** The answer's JSON (null for a failed call). */
  readonly text: string | null;
  readonly files: readonly string[];
}

export type TelemetryMessage = { type: "calls"; calls: RecordedCall[] } | { type: "flush"; id: number } | { type: "close" };
export type TelemetryReply = { type: "flushed"; id: number; ok: boolean } | { type: "warning"; message: string };

const WORKER_FILE = fileURLToPath(new URL("./telemetry-worker.js", import.meta.url));

/** Calls recorded are handed to the telemetry thread this often (or at a flush), in one message. */
const HANDOFF_MS = 100;

/**
 * The recorder of one `mast serve` session: a session id, and the telemetry thread started at
 * the first call. Recording never waits and never fails a call: it keeps a closure, and the
 * call's row is made from it after the answer has gone (every 100 ms, one message for them all).
 * `flush` waits until every call recorded so far is in metrics.db (or could not be written: then
 * it resolves false).
 */
/** What records a read tool's calls (tools/registry.ts): `mast serve`'s Telemetry, or `mast query`'s EstimatedRecorder. */
export interface CallRecorder {
  readonly sessionId: string;
  /** Keeps `call` to be made into a row after the answer has gone. */
  record(call: () => Omit<RecordedCall, "session_id">): void;
  /** Writes what is waiting; false when it could not be written now. */
  flush(): Promise<boolean>;
}

/** The session every `mast query` call is recorded in (`mast metrics --session` after CLI calls shows them). */
export const CLI_SESSION = "mast-query";

/**
 * `mast query`'s recorder: its call written to metrics.db when the command closes it, after the
 * answer is printed, counted by estimate — 4 bytes a token, the files' sizes on disk — for a
 * one-shot command (the tokenizer and its thread would cost half a second a call).
 */
export class EstimatedRecorder implements CallRecorder {
  readonly sessionId = CLI_SESSION;
  private readonly calls: Array<() => Omit<RecordedCall, "session_id">> = [];

  constructor(
    private readonly stateDir: string,
    private readonly projectRoot: string,
    private readonly warn: (line: string) => void,
  ) {}

  record(call: () => Omit<RecordedCall, "session_id">): void {
    this.calls.push(call);
  }

  flush(): Promise<boolean> {
    return Promise.resolve(this.write());
  }

  /** Writes the recorded calls; a failure is a warning, never the command's. */
  close(): void {
    this.write();
  }

  private write(): boolean {
    if (this.calls.length === 0) return true;
    try {
      const rows = this.calls.splice(0).map((make): MetricRow => {
        const { text, files, ...row } = make();
        const full = files.reduce((sum, f) => sum + Math.ceil((statSync(join(this.projectRoot, f), { throwIfNoEntry: false })?.size ?? 0) / 4), 0);
        return { ...row, session_id: this.sessionId, tokens_returned: text === null ? 0 : Math.ceil(Buffer.byteLength(text) / 4), tokens_full_file_upper_bound: full };
      });
      const db = MetricsDb.open(metricsPath(this.stateDir), { busyMs: 200 });
      try {
        db.insert(rows);
      } finally {
        db.close();
      }
      return true;
    } catch (err) {
      this.warn(`telemetry: the call was not recorded: ${(err as Error).message}`);
      return false;
    }
  }
}

export class Telemetry implements CallRecorder {
  readonly sessionId = randomUUID();
  private worker: Worker | null = null;
  private nextFlush = 1;
  private readonly flushes = new Map<number, (ok: boolean) => void>();
  private pending: Array<() => Omit<RecordedCall, "session_id">> = [];
  private handoff: NodeJS.Timeout | null = null;

  constructor(
    private readonly stateDir: string,
    private readonly projectRoot: string,
    private readonly warn: (line: string) => void = () => undefined,
  ) {}

  /** Keeps `call` to be made into a row after the answer has gone. */
  record(call: () => Omit<RecordedCall, "session_id">): void {
    this.pending.push(call);
    if (this.handoff === null) {
      this.handoff = setTimeout(() => this.handOff(), HANDOFF_MS);
      this.handoff.unref();
    }
  }

  private handOff(): void {
    if (this.handoff !== null) clearTimeout(this.handoff);
    this.handoff = null;
    const calls = this.pending;
    this.pending = [];
    if (calls.length === 0) return;
    try {
      const rows = calls.map((make) => ({ ...make(), session_id: this.sessionId }));
      this.start().postMessage({ type: "calls", calls: rows } satisfies TelemetryMessage);
    } catch (err) {
      this.warn(`telemetry: ${calls.length} call(s) not recorded: ${(err as Error).message}`);
    }
  }

  flush(): Promise<boolean> {
    this.handOff();
    if (this.worker === null) return Promise.resolve(true);
    const id = this.nextFlush++;
    const worker = this.worker;
    // While a flush is awaited the thread keeps the process alive (otherwise it never does).
    worker.ref();
    return new Promise((resolve) => {
      this.flushes.set(id, (ok) => {
        if (this.flushes.size === 0) worker.unref();
        resolve(ok);
      });
      worker.postMessage({ type: "flush", id } satisfies TelemetryMessage);
    });
  }

  /** Writes what is waiting and stops the thread (at most 5 s). */
  async close(): Promise<void> {
    this.handOff();
    const worker = this.worker;
    if (worker === null) return;
    this.worker = null;
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage({ type: "close" } satisfies TelemetryMessage);
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 5_000).unref());
    await Promise.race([exited, timeout]);
    await worker.terminate();
    for (const resolve of this.flushes.values()) resolve(false);
    this.flushes.clear();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_FILE, { workerData: { metricsPath: metricsPath(this.stateDir), root: this.projectRoot } });
    worker.unref();
    worker.on("message", (reply: TelemetryReply) => {
      if (reply.type === "warning") this.warn(reply.message);
      else {
        const resolve = this.flushes.get(reply.id);
        this.flushes.delete(reply.id);
        resolve?.(reply.ok);
      }
    });
    worker.on("error", (err) => {
      this.warn(`telemetry: the telemetry thread failed: ${err.message}`);
      if (this.worker === worker) this.worker = null;
      for (const resolve of this.flushes.values()) resolve(false);
      this.flushes.clear();
    });
    this.worker = worker;
    return worker;
  }
}
