// Reports over the telemetry log (docs/editing.md#telemetry-and-provenance): recent
// events, per route:operation summaries, sessions, filtered exports, the health report with its
// thresholds (and the trend against the previous window), and provenance — who changed a file or
// a line, when and why. Every report warns TELEMETRY_LOG_CORRUPT when it skipped unreadable lines.
import { resolve } from "node:path";
import { cutMarks, fitList } from "../base/budget.js";
import { MastError } from "../base/errors.js";
import type { OpResult, Warning } from "./op-result.js";
import { truncatedList } from "./operations.js";
import { diffNewRanges, diskBytes, readEvents, type EventLog, type TelemetryEvent } from "./telemetry.js";

function withLog<T>(build: (log: EventLog) => T): OpResult<T> {
  const log = readEvents();
  const warnings: Warning[] = log.corrupt > 0 ? [{ code: "TELEMETRY_LOG_CORRUPT", message: `${log.corrupt} malformed telemetry line(s) were skipped`, skipped: log.corrupt }] : [];
  return { data: build(log), warnings };
}

const pct = (n: number, d: number) => (d === 0 ? 0 : Math.round((n / d) * 1000) / 10);

/** A list answer cut to `limit` and the answer budget: `truncated` and `omitted` say what was left out. */
function listAnswer<T>(items: readonly T[], limit: number): { events: T[]; truncated?: true; omitted?: number } {
  const fit = fitList(items, limit);
  return { events: fit.items, ...cutMarks(fit.omitted) };
}

export function telemetryShow(limit: number): OpResult<{ events: TelemetryEvent[]; truncated?: true; omitted?: number }> {
  if (!Number.isInteger(limit) || limit < 1) throw new MastError("INVALID_ARGUMENT", "-n must be a positive integer");
  return withLog((log) => listAnswer([...log.events].reverse(), limit));
}

export interface SummaryRow {
  key: string;
  count: number;
  success: number;
  successRate: number;
  avgElapsedMs: number;
}

export function telemetrySummary(): OpResult<{ totalEvents: number; byRouteOperation: SummaryRow[] }> {
  return withLog((log) => {
    const groups = new Map<string, TelemetryEvent[]>();
    for (const e of log.events) {
      const key = `${e.route}:${e.operation}`;
      (groups.get(key) ?? groups.set(key, []).get(key)!).push(e);
    }
    const rows = [...groups].map(([key, es]) => ({
      key,
      count: es.length,
      success: es.filter((e) => e.success).length,
      successRate: pct(es.filter((e) => e.success).length, es.length),
      avgElapsedMs: Math.round(es.reduce((n, e) => n + e.elapsed_ms, 0) / es.length),
    }));
    rows.sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
    return { totalEvents: log.events.length, byRouteOperation: rows };
  });
}

export function telemetrySessions(
  limit: number,
): OpResult<{ sessions: Array<{ session: string; events: number; errors: number; errorRate: number; start: string; end: string; durationMs: number }>; truncated?: true; omitted?: number }> {
  return withLog((log) => {
    const groups = new Map<string, TelemetryEvent[]>();
    for (const e of log.events) (groups.get(e.session) ?? groups.set(e.session, []).get(e.session)!).push(e);
    const sessions = [...groups].map(([session, es]) => {
      const errors = es.filter((e) => !e.success).length;
      const start = es[0]!.timestamp;
      const end = es.at(-1)!.timestamp;
      return { session, events: es.length, errors, errorRate: pct(errors, es.length), start, end, durationMs: Date.parse(end) - Date.parse(start) };
    });
    sessions.sort((a, b) => (a.end < b.end ? 1 : -1));
    const fit = fitList(sessions, limit);
    return { sessions: fit.items, ...cutMarks(fit.omitted) };
  });
}

function parseDate(value: string, flag: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new MastError("INVALID_ARGUMENT", `${flag} must be a date (e.g. 2026-11-30 or an ISO time), not ${JSON.stringify(value)}`);
  return t;
}

/**
 * The events between two dates (and of one session), oldest first, at most `limit` and within
 * the answer budget; `omitted` counts the later ones left out (export again from the last
 * timestamp for them).
 */
export function telemetryExport(filter: { from?: string; to?: string; session?: string; limit: number }): OpResult<{ events: TelemetryEvent[]; truncated?: true; omitted?: number }> {
  const from = filter.from === undefined ? -Infinity : parseDate(filter.from, "--from");
  const to = filter.to === undefined ? Infinity : parseDate(filter.to, "--to");
  return withLog((log) =>
    listAnswer(
      log.events.filter((e) => {
        const t = Date.parse(e.timestamp);
        return t >= from && t <= to && (filter.session === undefined || e.session === filter.session);
      }),
      filter.limit,
    ),
  );
}

// ---- health ----

export interface HealthReport {
  totalEvents: number;
  windowDays: number;
  routeDistribution: Record<string, { count: number; success: number }>;
  fallbackFrequency: Record<string, number>;
  staleAnchors: { total: number; recovered: number; failed: number };
  perLanguage: Record<string, { operations: number; failures: number }>;
  verifyFailures: { total: number; byCheck: Record<string, number> };
  topFallbackCauses: Array<{ reason: string; count: number }>;
  diskBytes: number;
  warnings: string[];
}

/** Thresholds past which the health report warns. */
export const HEALTH_THRESHOLDS = { staleAnchorRate: 10, fallbackToDiffRate: 10, verifyFailureRate: 20, languageFailureRate: 30, languageMinOperations: 3, diskBytes: 100 * 1024 * 1024 };

function healthOf(events: TelemetryEvent[], windowDays: number, disk: number): HealthReport {
  const routeDistribution: HealthReport["routeDistribution"] = {};
  const fallbackFrequency: Record<string, number> = {};
  const perLanguage: HealthReport["perLanguage"] = {};
  let recovered = 0;
  let failed = 0;
  let replaceCalls = 0;
  let verifyRuns = 0;
  let verifyFailed = 0;
  for (const e of events) {
    const r = (routeDistribution[e.route] ??= { count: 0, success: 0 });
    r.count++;
    if (e.success) r.success++;
    if (e.fallback_reason) fallbackFrequency[e.fallback_reason] = (fallbackFrequency[e.fallback_reason] ?? 0) + 1;
    if (e.operation === "replace-hash") {
      replaceCalls++;
      if (e.success && e.retries > 0) recovered++;
      if (e.errorCode === "STALE_ANCHOR" || e.errorCode === "AMBIGUOUS_ANCHOR") failed++;
    }
    if (e.route === "verify") {
      verifyRuns++;
      if (!e.success) verifyFailed++;
    }
    if (e.language) {
      const l = (perLanguage[e.language] ??= { operations: 0, failures: 0 });
      l.operations++;
      if (!e.success) l.failures++;
    }
  }
  const staleAnchors = { total: recovered + failed, recovered, failed };
  const warnings: string[] = [];
  const t = HEALTH_THRESHOLDS;
  const staleRate = pct(staleAnchors.total, replaceCalls);
  if (replaceCalls > 0 && staleRate > t.staleAnchorRate) warnings.push(`Stale-anchor rate ${staleRate}% exceeds threshold of ${t.staleAnchorRate}%`);
  const fallbackRate = pct(fallbackFrequency["fallback-to-diff"] ?? 0, events.length);
  if (fallbackRate > t.fallbackToDiffRate) warnings.push(`Fallback-to-diff rate ${fallbackRate}% exceeds threshold of ${t.fallbackToDiffRate}%`);
  const verifyRate = pct(verifyFailed, verifyRuns);
  if (verifyRuns > 0 && verifyRate > t.verifyFailureRate) warnings.push(`Verify-changes failure rate ${verifyRate}% exceeds threshold of ${t.verifyFailureRate}%`);
  for (const [lang, l] of Object.entries(perLanguage).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const rate = pct(l.failures, l.operations);
    if (l.operations >= t.languageMinOperations && rate > t.languageFailureRate) warnings.push(`${lang} failure rate ${rate}% exceeds threshold of ${t.languageFailureRate}%`);
  }
  if (disk > t.diskBytes) warnings.push(`Telemetry store ${Math.round(disk / 1024 / 1024)} MB exceeds threshold of ${t.diskBytes / 1024 / 1024} MB`);
  const topFallbackCauses = Object.entries(fallbackFrequency)
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
  return {
    totalEvents: events.length,
    windowDays,
    routeDistribution,
    fallbackFrequency,
    staleAnchors,
    perLanguage,
    verifyFailures: { total: verifyFailed, byCheck: {} },
    topFallbackCauses,
    diskBytes: disk,
    warnings,
  };
}

const errorRate = (h: HealthReport) => {
  const total = Object.values(h.routeDistribution).reduce((n, r) => n + r.count, 0);
  const ok = Object.values(h.routeDistribution).reduce((n, r) => n + r.success, 0);
  return pct(total - ok, total);
};

export function telemetryHealth(windowDays: number, trend: boolean, now = Date.now()): OpResult<HealthReport | { current: HealthReport; previous: HealthReport; changes: Record<string, unknown> }> {
  if (!Number.isInteger(windowDays) || windowDays < 1) throw new MastError("INVALID_ARGUMENT", "-w must be a positive whole number of days");
  const span = windowDays * 86_400_000;
  return withLog((log) => {
    const inWindow = (from: number, to: number) => log.events.filter((e) => Date.parse(e.timestamp) > from && Date.parse(e.timestamp) <= to);
    const current = healthOf(inWindow(now - span, now), windowDays, diskBytes());
    if (!trend) return current;
    const previous = healthOf(inWindow(now - 2 * span, now - span), windowDays, 0);
    const languageRegressions = Object.entries(current.perLanguage)
      .filter(([lang, l]) => {
        const before = previous.perLanguage[lang];
        return before !== undefined && l.operations >= HEALTH_THRESHOLDS.languageMinOperations && pct(l.failures, l.operations) > pct(before.failures, before.operations);
      })
      .map(([lang, l]) => `${lang} (${pct(previous.perLanguage[lang]!.failures, previous.perLanguage[lang]!.operations)}% → ${pct(l.failures, l.operations)}% failure rate)`);
    return {
      current,
      previous,
      changes: {
        totalEventsDelta: current.totalEvents - previous.totalEvents,
        errorRateDelta: Math.round((errorRate(current) - errorRate(previous)) * 10) / 10,
        staleAnchorDelta: current.staleAnchors.total - previous.staleAnchors.total,
        verifyFailureDelta: current.verifyFailures.total - previous.verifyFailures.total,
        newWarnings: current.warnings.filter((w) => !previous.warnings.includes(w)),
        resolvedWarnings: previous.warnings.filter((w) => !current.warnings.includes(w)),
        languageRegressions,
      },
    };
  });
}

// ---- provenance ----

export interface ProvenanceEntry {
  timestamp: string;
  actor: string | null;
  taskId: string | null;
  reason: string | null;
  operation: string;
  route: string;
  success: boolean;
  changeSetId: string | null;
  /** The lines the write changed in the new file; null when the event recorded neither ranges nor a diff. */
  ranges: Array<{ start: number; end: number }> | null;
  /** The write's unified diff: only when telemetry.recordContent was on. */
  diff: string | null;
}

/** The lines a recorded write changed: its ranges, else its diff's hunks (older events). */
function rangesOf(e: TelemetryEvent): Array<{ start: number; end: number }> | null {
  return e.ranges ?? (e.diff ? diffNewRanges(e.diff) : null);
}

function entryOf(e: TelemetryEvent): ProvenanceEntry {
  return {
    timestamp: e.timestamp,
    actor: e.actor,
    taskId: e.taskId,
    reason: e.reason,
    operation: e.operation,
    route: e.route,
    success: e.success,
    changeSetId: e.changeSetId,
    ranges: rangesOf(e),
    diff: e.diff,
  };
}

/**
 * The writes recorded for a file, newest first; with a line, those whose changed lines include it
 * (edits recorded without ranges only with `fuzzy`). More than `limit` (or the answer budget) is
 * a RESULT_TRUNCATED warning with the count left out.
 */
export function provenanceQuery(cwd: string, file: string, line: number | null, fuzzy: boolean, limit: number): OpResult<ProvenanceEntry[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new MastError("INVALID_ARGUMENT", "--limit must be a positive integer");
  if (line !== null && (!Number.isInteger(line) || line < 1)) throw new MastError("INVALID_ARGUMENT", "the line must be a positive integer");
  const path = resolve(cwd, file);
  return truncatedList(
    withLog((log) =>
      log.events
        .filter((e) => e.file === path && e.changeSetId !== null)
        .filter((e) => {
          if (line === null) return true;
          const ranges = rangesOf(e);
          return ranges === null ? fuzzy : ranges.some((r) => line >= r.start && line <= r.end);
        })
        .reverse()
        .map(entryOf),
    ),
    limit,
  );
}

/** Every recorded edit of one changeSet, in order. */
export function provenanceChangeSet(id: string): OpResult<ProvenanceEntry[]> {
  return truncatedList(
    withLog((log) => log.events.filter((e) => e.changeSetId === id).map(entryOf)),
    Infinity,
  );
}
