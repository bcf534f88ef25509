// hashpilot's telemetry and provenance store (docs/editing.md#telemetry-and-provenance): one JSON event
// per editing call appended to $HASHPILOT_HOME/telemetry/events.ndjson, rotated past a size cap;
// the reports read every log in time order, skipping (and counting) lines that do not parse.
// `telemetry.enabled: false` records nothing at all. Provenance (actor, task, reason, the lines
// each write changed) rides on the same events; file content (each write's unified diff) only
// with `telemetry.recordContent`. The store is owner-only (0700 directory, 0600 logs).
import { appendFileSync, chmodSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { MastError, errorMessage } from "../base/errors.js";
import { ensurePrivateDir, hashpilotHome } from "./writer.js";

export interface TelemetryEvent {
  timestamp: string;
  session: string;
  operation: string;
  route: string;
  file: string | null;
  files_count: number;
  language: string | null;
  success: boolean;
  errorCode: string | null;
  fallback_reason: string | null;
  retries: number;
  verification_result: string | null;
  elapsed_ms: number;
  changeSetId: string | null;
  actor: string | null;
  taskId: string | null;
  reason: string | null;
  /** The new-file line ranges a successful write changed (provenance by line). */
  ranges?: Array<{ start: number; end: number }> | null;
  /** The unified diff of a successful write: only with telemetry.recordContent (it is file content). */
  diff: string | null;
}

/** The active log is rotated once it grows past this. */
export const MAX_LOG_BYTES = 5 * 1024 * 1024;
const ACTIVE = "events.ndjson";
const ROTATED = /^events-(\d{8}T\d{9}Z)\.ndjson$/;

function telemetryDir(): string {
  return join(hashpilotHome(), "telemetry");
}

/** Appends one event (never throws: telemetry must not fail an edit). */
export function recordEvent(event: TelemetryEvent): void {
  try {
    const dir = telemetryDir();
    ensurePrivateDir(dir);
    const active = join(dir, ACTIVE);
    const st = statSync(active, { throwIfNoEntry: false });
    if (st && st.size > MAX_LOG_BYTES) {
      renameSync(active, join(dir, `events-${new Date().toISOString().replace(/[-:.]/g, "")}.ndjson`));
    } else if (st && (st.mode & 0o077) !== 0) chmodSync(active, 0o600);
    appendFileSync(active, `${JSON.stringify(event)}\n`, { mode: 0o600 });
  } catch {
    // a full disk or a read-only home loses the event, not the edit
  }
}

/** Every log file, oldest first (rotated ones by their stamp, then the active one). */
function logFiles(): string[] {
  let names: string[];
  try {
    names = readdirSync(telemetryDir());
  } catch {
    return [];
  }
  const rotated = names.filter((n) => ROTATED.test(n)).sort();
  return [...rotated, ...(names.includes(ACTIVE) ? [ACTIVE] : [])].map((n) => join(telemetryDir(), n));
}

export interface EventLog {
  readonly events: TelemetryEvent[];
  /** Lines that did not parse as events (skipped). */
  readonly corrupt: number;
}

/** Every recorded event in time order; READ_FAILED when a log exists but cannot be read. */
export function readEvents(): EventLog {
  const events: TelemetryEvent[] = [];
  let corrupt = 0;
  for (const file of logFiles()) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new MastError("READ_FAILED", `cannot read the telemetry log ${file}: ${errorMessage(err)}`);
    }
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const e = JSON.parse(line) as TelemetryEvent;
        if (typeof e.timestamp !== "string" || typeof e.operation !== "string" || typeof e.success !== "boolean") throw new Error("not an event");
        events.push(e);
      } catch {
        corrupt++;
      }
    }
  }
  events.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  return { events, corrupt };
}

/** Bytes the telemetry store takes on disk. */
export function diskBytes(): number {
  return logFiles().reduce((n, f) => n + (statSync(f, { throwIfNoEntry: false })?.size ?? 0), 0);
}

/** Deletes rotated logs last written more than `days` ago; returns their names. */
export function pruneLogs(days: number): string[] {
  const cutoff = Date.now() - days * 86_400_000;
  const removed: string[] = [];
  for (const file of logFiles()) {
    if (file.endsWith(ACTIVE)) continue;
    if ((statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < cutoff) {
      rmSync(file, { force: true });
      removed.push(file);
    }
  }
  return removed;
}

/** Deletes every log; returns how many files went. */
export function clearLogs(): number {
  const files = logFiles();
  for (const f of files) rmSync(f, { force: true });
  return files.length;
}

/** The new-file line ranges a unified diff's hunks cover (`@@ -a,b +c,d @@` → c..c+d-1, at least c). */
export function diffNewRanges(diff: string): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  for (const m of diff.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    out.push({ start: Math.max(1, start), end: Math.max(start, start + count - 1) });
  }
  return out;
}
