// The telemetry thread (docs/telemetry.md#the-metrics-database): counts each recorded call's tokens exactly — the
// answer's and the full files' it names, within the per-call budget — and writes the rows to
// metrics.db in batches (every second or every 100 rows), so neither the counting nor the writes
// are on a tool call's path. A write that fails (metrics.db busy) keeps its rows for the next
// batch; past 10,000 waiting rows the oldest are dropped and counted.
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { errorMessage } from "../base/errors.js";
import { MetricsDb, type MetricRow } from "../store/metrics.js";
import type { RecordedCall, TelemetryMessage, TelemetryReply } from "./telemetry.js";
import { FullFileTokens, countTokens } from "./tokenizer.js";

const FLUSH_MS = 1_000;
const FLUSH_ROWS = 100;
const MAX_WAITING_ROWS = 10_000;

const { metricsPath, root } = workerData as { metricsPath: string; root: string };
const port = parentPort!;
const fullFiles = new FullFileTokens();
let waiting: MetricRow[] = [];
let dropped = 0;
let timer: NodeJS.Timeout | null = null;
let db: MetricsDb | null = null;

function reply(message: TelemetryReply): void {
  port.postMessage(message);
}

function rowOf(call: RecordedCall): MetricRow {
  const { text, files, ...row } = call;
  return {
    ...row,
    tokens_returned: text === null ? 0 : countTokens(text),
    tokens_full_file_upper_bound: files.length === 0 ? 0 : fullFiles.bound(root, files).tokens,
  };
}

/** Writes the waiting rows; false (rows kept) when metrics.db cannot be written now. */
function flush(): boolean {
  if (timer !== null) {
    clearTimeout(timer);
    timer = null;
  }
  if (waiting.length === 0) return true;
  try {
    db ??= MetricsDb.open(metricsPath, { busyMs: 200 });
    db.insert(waiting);
    waiting = [];
    return true;
  } catch (err) {
    reply({ type: "warning", message: `telemetry: ${waiting.length} row(s) not written yet: ${errorMessage(err)}` });
    schedule();
    return false;
  }
}

function schedule(): void {
  timer ??= setTimeout(flush, FLUSH_MS);
}

// The counting yields the CPU to the server's own thread (on Linux a thread's own niceness).
try {
  setPriority(19);
} catch {
  // not permitted here: counted at the normal priority
}

port.on("message", (message: TelemetryMessage) => {
  if (message.type === "calls") {
    for (const call of message.calls) {
      try {
        waiting.push(rowOf(call));
      } catch (err) {
        reply({ type: "warning", message: `telemetry: a call of ${call.tool_name} was not counted: ${errorMessage(err)}` });
      }
    }
    if (waiting.length > MAX_WAITING_ROWS) {
      dropped += waiting.length - MAX_WAITING_ROWS;
      waiting = waiting.slice(-MAX_WAITING_ROWS);
      reply({ type: "warning", message: `telemetry: metrics.db cannot be written; ${dropped} row(s) dropped so far` });
    }
    if (waiting.length >= FLUSH_ROWS) flush();
    else schedule();
  } else if (message.type === "flush") {
    const ok = flush();
    reply({ type: "flushed", id: message.id, ok });
  } else {
    flush();
    db?.close();
    db = null;
    port.close();
  }
});
