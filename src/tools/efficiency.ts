// mast_efficiency (docs/telemetry.md#mast_efficiency): the read tools' recorded calls summed back for the agent — this
// session's or every session's, over a window — with the tokenizer named. `mast metrics` reads
// the same summary (metricsSummary).
import { existsSync } from "node:fs";
import { MetricsDb, type DayTotals, type MetricsFilter, type ToolTotals } from "../store/metrics.js";
import { READ_ONLY, defineTool } from "./define.js";
import { open } from "./outputs.js";
import { z } from "./schema.js";
import { efficiency, metricsPath } from "./telemetry.js";
import { TOKENIZER_LABEL } from "./tokenizer.js";

export interface MetricsSummary {
  readonly tools: readonly ToolTotals[];
  readonly days: readonly DayTotals[];
}

/** The recorded calls in the window, per tool and per day; empty when nothing was ever recorded. */
export function metricsSummary(stateDir: string, filter: MetricsFilter): MetricsSummary {
  const path = metricsPath(stateDir);
  if (!existsSync(path)) return { tools: [], days: [] };
  const db = MetricsDb.open(path, { readonly: true });
  try {
    return { tools: db.byTool(filter), days: db.byDay(filter) };
  } finally {
    db.close();
  }
}

/** The session of the latest recorded call, or null. */
export function latestSession(stateDir: string): string | null {
  const path = metricsPath(stateDir);
  if (!existsSync(path)) return null;
  const db = MetricsDb.open(path, { readonly: true });
  try {
    return db.latestSession();
  } finally {
    db.close();
  }
}

export const efficiencyTool = defineTool({
  name: "mast_efficiency",
  source: { defined: "tools/efficiency.ts", answers: "store/metrics.ts" },
  title: "Token efficiency",
  description: "Tokens the read tools returned against reading their files whole, per tool (this session or all).",
  details:
    "efficiency_ratio is 1 - returned / full files; scope session (the default: this server's calls) or global; since_minutes narrows the window. " +
    "The full-file figure is an upper bound (a naive read of every file an answer named); the real saving lies between 0 and efficiency_ratio. Below 0.30 you are reading more than you need — prefer mast_search over reading files; above 0.85 you are using mast well. " +
    "Counts are made off the request path and written within about a second of a call; this tool waits for the calls made so far. Off when the `telemetry` setting is false.",
  unlisted: ["since_minutes"],
  input: () =>
    z
      .object({
        scope: z.enum(["session", "global"]).default("session").describe("session: this server's calls (outside `mast serve`, the latest recorded session); global: every recorded call."),
        since_minutes: z.number().int().min(1).max(10_000_000).nullish().describe("Only calls from the last N minutes (default: all of the scope)."),
      })
      .strict(),
  output: open({
    enabled: z.literal(false).optional(),
    scope: z.enum(["session", "global"]).optional(),
    session_id: z.string().optional(),
    calls: z.number().int(),
    tokens_returned: z.number().int().optional(),
    tokens_full_file_upper_bound: z.number().int().optional(),
    efficiency_ratio: z.number().min(0).max(1).optional(),
    by_tool: z
      .array(
        open({
          tool: z.string(),
          calls: z.number().int(),
          tokens_returned: z.number().int(),
          tokens_full_file_upper_bound: z.number().int(),
          efficiency_ratio: z.number(),
          p50_duration_ms: z.number().nullable(),
          p95_duration_ms: z.number().nullable(),
        }),
      )
      .optional(),
    tokenizer: z.string().optional(),
  }),
  annotations: READ_ONLY,
  handler: async (ctx, args) => {
    if (!ctx.config.telemetry) {
      return { enabled: false, calls: 0, hint: 'Telemetry is off: set "telemetry": true in mast.config.json to record the read tools\' calls.' };
    }
    const flushed = ctx.recorder ? await ctx.recorder.flush() : true;
    const session = args.scope === "session" ? (ctx.recorder?.sessionId ?? latestSession(ctx.config.state_dir)) : null;
    const since = args.since_minutes ? Date.now() / 1000 - args.since_minutes * 60 : 0;
    const { tools } = args.scope === "session" && session === null ? { tools: [] } : metricsSummary(ctx.config.state_dir, { since, ...(session ? { session } : {}) });
    const returned = tools.reduce((n, t) => n + t.tokens_returned, 0);
    const full = tools.reduce((n, t) => n + t.tokens_full_file_upper_bound, 0);
    return {
      scope: args.scope,
      ...(session ? { session_id: session } : {}),
      ...(args.since_minutes ? { since_minutes: args.since_minutes } : {}),
      calls: tools.reduce((n, t) => n + t.calls, 0),
      tokens_returned: returned,
      tokens_full_file_upper_bound: full,
      efficiency_ratio: efficiency(returned, full),
      by_tool: tools.map((t) => ({
        tool: t.tool_name,
        calls: t.calls,
        tokens_returned: t.tokens_returned,
        tokens_full_file_upper_bound: t.tokens_full_file_upper_bound,
        efficiency_ratio: efficiency(t.tokens_returned, t.tokens_full_file_upper_bound),
        p50_duration_ms: t.p50_duration_ms,
        p95_duration_ms: t.p95_duration_ms,
      })),
      tokenizer: TOKENIZER_LABEL,
      ...(flushed ? {} : { incomplete: "metrics.db could not be written just now; the latest calls are not counted yet" }),
    };
  },
});
