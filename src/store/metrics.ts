// metrics.db: the telemetry of the read tools (docs/telemetry.md#the-metrics-database) — one row per call, the daily
// roll-ups, and the reads `mast_efficiency` and `mast metrics` answer from. A database of its own
// in the state dir, not graph.db: an index run holds graph.db's write transaction for its whole
// length, and a schema change rebuilds graph.db (docs/decisions.md, "Telemetry in metrics.db").
import { type Db, openDatabase, prepared } from "./db.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS metrics (
  id                           INTEGER PRIMARY KEY,
  tool_name                    TEXT NOT NULL,
  call_timestamp               REAL NOT NULL,
  tokens_returned              INTEGER NOT NULL,
  tokens_full_file_upper_bound INTEGER NOT NULL,
  duration_ms                  INTEGER NOT NULL,
  mode                         TEXT,
  session_id                   TEXT NOT NULL,
  status                       TEXT NOT NULL,
  args_json                    TEXT,
  results_json                 TEXT,
  declex_json                  TEXT
);
CREATE INDEX IF NOT EXISTS idx_metrics_timestamp ON metrics(call_timestamp);
CREATE INDEX IF NOT EXISTS idx_metrics_tool      ON metrics(tool_name);
CREATE INDEX IF NOT EXISTS idx_metrics_session   ON metrics(session_id);
CREATE TABLE IF NOT EXISTS metrics_daily (
  day                    TEXT NOT NULL,
  tool_name              TEXT NOT NULL,
  calls                  INTEGER NOT NULL,
  tokens_returned_total  INTEGER NOT NULL,
  tokens_full_file_total INTEGER NOT NULL,
  avg_duration_ms        REAL NOT NULL,
  PRIMARY KEY (day, tool_name)
);`;

/** One tool call as it is stored. */
export interface MetricRow {
  readonly tool_name: string;
  /** Unix epoch seconds. */
  readonly call_timestamp: number;
  readonly tokens_returned: number;
  readonly tokens_full_file_upper_bound: number;
  readonly duration_ms: number;
  readonly session_id: string;
  readonly status: "ok" | "stale_returned" | "error";
  readonly args_json: string | null;
  readonly results_json: string | null;
  readonly declex_json: string | null;
}

/** One tool's calls in a window: raw rows and the days rolled up into metrics_daily. */
export interface ToolTotals {
  readonly tool_name: string;
  readonly calls: number;
  readonly tokens_returned: number;
  readonly tokens_full_file_upper_bound: number;
  readonly avg_duration_ms: number;
  /** Nearest-rank percentiles of the raw rows' durations (null when only rolled-up days are in the window). */
  readonly p50_duration_ms: number | null;
  readonly p95_duration_ms: number | null;
  /** Of `calls`, those only the daily roll-up still counts. */
  readonly rolled_up_calls: number;
}

export interface DayTotals {
  readonly day: string;
  readonly calls: number;
  readonly tokens_returned: number;
}

export interface MetricsFilter {
  /** Unix epoch seconds; rows from then on. */
  readonly since: number;
  /** Only this session's rows (rolled-up days carry no session and are left out). */
  readonly session?: string;
}

/** The nearest-rank percentile of ascending values: the value at rank ceil(p/100 · n), no interpolation; null for none. */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
}

export class MetricsDb {
  private constructor(readonly db: Db) {}

  /** Opens metrics.db, creating it (owner-only: it holds every read call's arguments) and its tables unless `readonly`. */
  static open(path: string, options: { readonly?: boolean; busyMs?: number } = {}): MetricsDb {
    const db = openDatabase(path, { ...options, mode: 0o600 });
    if (!options.readonly) db.exec(SCHEMA);
    return new MetricsDb(db);
  }

  close(): void {
    this.db.close();
  }

  insert(rows: readonly MetricRow[]): void {
    const st = prepared(
      this.db,
      `INSERT INTO metrics (tool_name, call_timestamp, tokens_returned, tokens_full_file_upper_bound, duration_ms, session_id, status, args_json, results_json, declex_json)
       VALUES (@tool_name, @call_timestamp, @tokens_returned, @tokens_full_file_upper_bound, @duration_ms, @session_id, @status, @args_json, @results_json, @declex_json)`,
    );
    this.db
      .transaction(() => {
        for (const row of rows) st.run(row);
      })
      .immediate();
  }

  /** Per tool, in the window: raw rows plus (without a session filter) the rolled-up days that start in it. */
  byTool(filter: MetricsFilter): ToolTotals[] {
    const raw = prepared(
      this.db,
      `SELECT tool_name, duration_ms, tokens_returned, tokens_full_file_upper_bound FROM metrics
       WHERE call_timestamp >= @since AND (@session IS NULL OR session_id = @session) ORDER BY tool_name, duration_ms`,
    ).all({ since: filter.since, session: filter.session ?? null }) as Array<{ tool_name: string; duration_ms: number; tokens_returned: number; tokens_full_file_upper_bound: number }>;
    const tools = new Map<string, { calls: number; ret: number; full: number; ms: number; durations: number[]; rolled: number }>();
    const entry = (name: string) => {
      let t = tools.get(name);
      if (!t) tools.set(name, (t = { calls: 0, ret: 0, full: 0, ms: 0, durations: [], rolled: 0 }));
      return t;
    };
    for (const r of raw) {
      const t = entry(r.tool_name);
      t.calls += 1;
      t.ret += r.tokens_returned;
      t.full += r.tokens_full_file_upper_bound;
      t.ms += r.duration_ms;
      t.durations.push(r.duration_ms);
    }
    if (filter.session === undefined) {
      const daily = prepared(this.db, "SELECT * FROM metrics_daily WHERE day >= date(@since, 'unixepoch')").all({ since: filter.since }) as Array<{
        tool_name: string;
        calls: number;
        tokens_returned_total: number;
        tokens_full_file_total: number;
        avg_duration_ms: number;
      }>;
      for (const d of daily) {
        const t = entry(d.tool_name);
        t.calls += d.calls;
        t.rolled += d.calls;
        t.ret += d.tokens_returned_total;
        t.full += d.tokens_full_file_total;
        t.ms += d.avg_duration_ms * d.calls;
      }
    }
    return [...tools.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([tool_name, t]) => ({
        tool_name,
        calls: t.calls,
        tokens_returned: t.ret,
        tokens_full_file_upper_bound: t.full,
        avg_duration_ms: t.calls ? t.ms / t.calls : 0,
        p50_duration_ms: nearestRank(t.durations, 50),
        p95_duration_ms: nearestRank(t.durations, 95),
        rolled_up_calls: t.rolled,
      }));
  }

  /** Calls and tokens returned per UTC day in the window, oldest first. */
  byDay(filter: MetricsFilter): DayTotals[] {
    const rows = prepared(
      this.db,
      `SELECT day, SUM(calls) AS calls, SUM(tokens) AS tokens_returned FROM (
         SELECT date(call_timestamp, 'unixepoch') AS day, COUNT(*) AS calls, SUM(tokens_returned) AS tokens FROM metrics
         WHERE call_timestamp >= @since AND (@session IS NULL OR session_id = @session) GROUP BY day
         UNION ALL
         SELECT day, calls, tokens_returned_total FROM metrics_daily WHERE @session IS NULL AND day >= date(@since, 'unixepoch')
       ) GROUP BY day ORDER BY day`,
    ).all({ since: filter.since, session: filter.session ?? null });
    return rows as DayTotals[];
  }

  /** The session of the latest row, or null when there are none. */
  latestSession(): string | null {
    const row = prepared(this.db, "SELECT session_id FROM metrics ORDER BY call_timestamp DESC, id DESC LIMIT 1").get() as { session_id: string } | undefined;
    return row?.session_id ?? null;
  }

  /** Raw rows older than `before` (epoch seconds) summed into metrics_daily by day and tool, then deleted; one transaction. */
  rollup(before: number): { rows: number; days: number } {
    return this.db
      .transaction(() => {
        const groups = prepared(
          this.db,
          `SELECT date(call_timestamp, 'unixepoch') AS day, tool_name, COUNT(*) AS calls, SUM(tokens_returned) AS ret, SUM(tokens_full_file_upper_bound) AS full, SUM(duration_ms) AS ms
         FROM metrics WHERE call_timestamp < @before GROUP BY day, tool_name`,
        ).all({ before }) as Array<{ day: string; tool_name: string; calls: number; ret: number; full: number; ms: number }>;
        const upsert = prepared(
          this.db,
          `INSERT INTO metrics_daily (day, tool_name, calls, tokens_returned_total, tokens_full_file_total, avg_duration_ms) VALUES (@day, @tool_name, @calls, @ret, @full, @ms * 1.0 / @calls)
         ON CONFLICT(day, tool_name) DO UPDATE SET
           avg_duration_ms = (avg_duration_ms * calls + @ms) / (calls + @calls),
           calls = calls + @calls,
           tokens_returned_total = tokens_returned_total + @ret,
           tokens_full_file_total = tokens_full_file_total + @full`,
        );
        for (const g of groups) upsert.run(g);
        const deleted = prepared(this.db, "DELETE FROM metrics WHERE call_timestamp < @before").run({ before }).changes;
        return { rows: deleted, days: new Set(groups.map((g) => g.day)).size };
      })
      .immediate();
  }

  /** Daily roll-ups of days before `beforeDay` (an ISO date) deleted, then the file compacted. */
  vacuum(beforeDay: string): { days: number } {
    const days = prepared(this.db, "DELETE FROM metrics_daily WHERE day < ?").run(beforeDay).changes;
    this.db.exec("VACUUM");
    return { days };
  }
}
