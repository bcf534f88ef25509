// `mast metrics` (docs/telemetry.md#mast-metrics): the read tools' recorded calls by tool over a window — calls,
// tokens, average and nearest-rank p50/p95 durations, efficiency — with a text chart of calls and
// tokens per day; the roll-up and vacuum of metrics.db; and `--locks`, the structure lock's hold
// and wait times by caller from lock-metrics.jsonl (malformed lines counted and skipped).
import { existsSync, readFileSync } from "node:fs";
import { MastError } from "../base/errors.js";
import type { LockEvent } from "../index/lock.js";
import { MetricsDb, nearestRank, type DayTotals, type ToolTotals } from "../store/metrics.js";
import { metricsSummary, latestSession } from "../tools/efficiency.js";
import { efficiency, metricsPath } from "../tools/telemetry.js";
import { TOKENIZER_LABEL } from "../tools/tokenizer.js";
import { CLI_SESSION } from "../tools/telemetry.js";

const UNIT_SECONDS: Record<string, number> = { m: 60, h: 3_600, d: 86_400, w: 604_800 };

/** `90m`, `24h`, `7d`, `2w` → seconds. */
export function parseDuration(text: string): number {
  const m = /^(\d{1,7})([mhdw])$/.exec(text.trim());
  if (!m)
    throw new MastError("INVALID_ARGUMENT", `--since takes a duration like 1h, 24h, 7d or 30d, not ${JSON.stringify(text)}`, { hint: "A number and a unit: m (minutes), h, d or w.", usage: true });
  return Number(m[1]) * UNIT_SECONDS[m[2]!]!;
}

export function parseKeepDays(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 36_500)
    throw new MastError("INVALID_ARGUMENT", `--keep-days takes a whole number of days, not ${JSON.stringify(text)}`, { hint: "e.g. --keep-days 30", usage: true });
  return n;
}

/** A tool's totals as printed: rounded, with their efficiency; how many calls only the roll-up counts is left to mast_efficiency. */
export type MetricsRow = Omit<ToolTotals, "rolled_up_calls"> & { readonly efficiency_ratio: number };

export interface MetricsReport {
  readonly since: string;
  readonly session_id?: string;
  readonly rows: readonly MetricsRow[];
  readonly days: readonly DayTotals[];
  readonly tokenizer: string;
}

export function metricsReport(stateDir: string, options: { sinceSeconds: number; session?: string | true; byTool: boolean; now?: number }): MetricsReport {
  const now = options.now ?? Date.now() / 1000;
  const session = options.session === true ? (latestSession(stateDir) ?? undefined) : options.session;
  if (options.session === true && session === undefined) return { since: iso(now - options.sinceSeconds), rows: [], days: [], tokenizer: TOKENIZER_LABEL };
  const filter = { since: now - options.sinceSeconds, ...(session ? { session } : {}) };
  const { tools, days } = metricsSummary(stateDir, filter);
  const rows: MetricsRow[] = tools.map(({ rolled_up_calls: _rolled, ...t }) => ({
    ...t,
    avg_duration_ms: Math.round(t.avg_duration_ms * 10) / 10,
    efficiency_ratio: efficiency(t.tokens_returned, t.tokens_full_file_upper_bound),
  }));
  const all = options.byTool ? rows : [total(rows)];
  return { since: iso(filter.since), ...(session ? { session_id: session } : {}), rows: rows.length === 0 ? [] : all, days, tokenizer: TOKENIZER_LABEL };
}

function total(rows: readonly MetricsRow[]): MetricsRow {
  const calls = rows.reduce((n, r) => n + r.calls, 0);
  const ret = rows.reduce((n, r) => n + r.tokens_returned, 0);
  const full = rows.reduce((n, r) => n + r.tokens_full_file_upper_bound, 0);
  return {
    tool_name: "(all tools)",
    calls,
    tokens_returned: ret,
    tokens_full_file_upper_bound: full,
    avg_duration_ms: calls ? Math.round((rows.reduce((n, r) => n + r.avg_duration_ms * r.calls, 0) / calls) * 10) / 10 : 0,
    // Percentiles do not sum across tools; the per-tool table has them.
    p50_duration_ms: null,
    p95_duration_ms: null,
    efficiency_ratio: efficiency(ret, full),
  };
}

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();
const num = (x: number | null) => (x === null ? "-" : Math.round(x).toLocaleString("en-US"));

export function renderMetrics(report: MetricsReport, chart: boolean): string {
  if (report.rows.length === 0) return `No tool calls recorded since ${report.since}${report.session_id ? ` in session ${report.session_id}` : ""}.\n\nTokenizer: ${report.tokenizer}`;
  const header = ["Tool", "Calls", "Tokens", "Avg ms", "p50 ms", "p95 ms", "Efficiency"];
  const cells = report.rows.map((r) => [
    r.tool_name,
    num(r.calls),
    num(r.tokens_returned),
    r.avg_duration_ms.toFixed(1),
    num(r.p50_duration_ms),
    num(r.p95_duration_ms),
    `${(r.efficiency_ratio * 100).toFixed(1)}%`,
  ]);
  const lines = table(header, cells);
  if (chart && report.days.length > 0) lines.push("", ...dayChart(report.days));
  lines.push("", `Tokenizer: ${report.tokenizer}; \`mast query\` calls (session ${CLI_SESSION}) are counted at 4 bytes a token`);
  return lines.join("\n");
}

/** Columns padded to their widest cell: the first left-aligned, the rest right-aligned. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]! + 2) : c.padStart(widths[i]! + (i === 1 ? 0 : 2))))
      .join("")
      .trimEnd();
  const head = line(header);
  return [head, "─".repeat(head.length), ...rows.map(line)];
}

const BAR_WIDTH = 30;

/** Calls and tokens returned per day, as bars scaled to the busiest day. */
export function dayChart(days: readonly DayTotals[]): string[] {
  const maxCalls = Math.max(...days.map((d) => d.calls), 1);
  const maxTokens = Math.max(...days.map((d) => d.tokens_returned), 1);
  const bar = (v: number, max: number) => "█".repeat(Math.max(v > 0 ? 1 : 0, Math.round((v / max) * BAR_WIDTH))).padEnd(BAR_WIDTH);
  return [
    `Per day${" ".repeat(5)}calls${" ".repeat(BAR_WIDTH + 5)}tokens returned`,
    ...days.map((d) => `${d.day}  ${bar(d.calls, maxCalls)} ${num(d.calls).padStart(6)}  ${bar(d.tokens_returned, maxTokens)} ${num(d.tokens_returned).padStart(9)}`),
  ];
}

/** `--rollup`: rows older than keepDays summed into metrics_daily and deleted. */
export function rollupMetrics(stateDir: string, keepDays: number, now = Date.now() / 1000): { rows_rolled_up: number; days: number; before: string } {
  const path = metricsPath(stateDir);
  const before = now - keepDays * 86_400;
  if (!existsSync(path)) return { rows_rolled_up: 0, days: 0, before: iso(before) };
  const db = MetricsDb.open(path);
  try {
    const r = db.rollup(before);
    return { rows_rolled_up: r.rows, days: r.days, before: iso(before) };
  } finally {
    db.close();
  }
}

/** `--vacuum`: daily roll-ups older than keepDays deleted, metrics.db compacted. */
export function vacuumMetrics(stateDir: string, keepDays: number, now = Date.now() / 1000): { daily_rows_deleted: number; before_day: string } {
  const path = metricsPath(stateDir);
  const beforeDay = iso(now - keepDays * 86_400).slice(0, 10);
  if (!existsSync(path)) return { daily_rows_deleted: 0, before_day: beforeDay };
  const db = MetricsDb.open(path);
  try {
    return { daily_rows_deleted: db.vacuum(beforeDay).days, before_day: beforeDay };
  } finally {
    db.close();
  }
}

export interface LockRow {
  readonly caller: string;
  readonly count: number;
  readonly hold_p50_ms: number | null;
  readonly hold_p95_ms: number | null;
  readonly hold_max_ms: number | null;
  readonly wait_p50_ms: number | null;
  readonly wait_p95_ms: number | null;
  readonly wait_max_ms: number | null;
  readonly failed: number;
}

export interface LockReport {
  readonly rows: readonly LockRow[];
  readonly malformed_lines: number;
}

function isLockEvent(v: unknown): v is LockEvent {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  if (typeof e["caller"] !== "string" || typeof e["ts"] !== "string") return false;
  if (e["event"] === "released") return typeof e["holdMs"] === "number" && Number.isFinite(e["holdMs"]);
  return (e["event"] === "acquired" || e["event"] === "failed") && typeof e["waitMs"] === "number" && Number.isFinite(e["waitMs"]);
}

/** The structure lock's events by caller; a line that is not JSON or not an event is counted and skipped. */
export function lockReport(file: string): LockReport {
  if (!existsSync(file)) return { rows: [], malformed_lines: 0 };
  const by = new Map<string, { holds: number[]; waits: number[]; failed: number; count: number }>();
  let malformed = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      malformed += 1;
      continue;
    }
    if (!isLockEvent(event)) {
      malformed += 1;
      continue;
    }
    let entry = by.get(event.caller);
    if (!entry) by.set(event.caller, (entry = { holds: [], waits: [], failed: 0, count: 0 }));
    if (event.event === "released") entry.holds.push(event.holdMs);
    else if (event.event === "acquired") {
      entry.waits.push(event.waitMs);
      entry.count += 1;
    } else entry.failed += 1;
  }
  const up = (xs: number[]) => xs.sort((a, b) => a - b);
  const rows = [...by.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([caller, e]) => {
      const holds = up(e.holds);
      const waits = up(e.waits);
      return {
        caller,
        count: e.count,
        hold_p50_ms: nearestRank(holds, 50),
        hold_p95_ms: nearestRank(holds, 95),
        hold_max_ms: holds.length ? holds[holds.length - 1]! : null,
        wait_p50_ms: nearestRank(waits, 50),
        wait_p95_ms: nearestRank(waits, 95),
        wait_max_ms: waits.length ? waits[waits.length - 1]! : null,
        failed: e.failed,
      };
    });
  return { rows, malformed_lines: malformed };
}

export function renderLocks(report: LockReport): string {
  const lines: string[] = [];
  if (report.rows.length === 0) lines.push("No lock metrics recorded.");
  else {
    const header = ["Caller", "Count", "Hold p50", "Hold p95", "Hold max", "Wait p50", "Wait p95", "Wait max", "Failed"];
    lines.push(
      ...table(
        header,
        report.rows.map((r) => [r.caller, num(r.count), num(r.hold_p50_ms), num(r.hold_p95_ms), num(r.hold_max_ms), num(r.wait_p50_ms), num(r.wait_p95_ms), num(r.wait_max_ms), num(r.failed)]),
      ),
    );
  }
  if (report.malformed_lines > 0) lines.push("", `Warning: skipped ${report.malformed_lines} malformed line(s) in lock-metrics.jsonl.`);
  return lines.join("\n");
}
