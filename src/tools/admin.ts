// The `admin` toolset (off by default in `mast serve`): hashpilot's reports over its own stores —
// provenance (who edited a file or line, a changeSet's edits), the telemetry events and their
// summaries, pruned or cleared — its merged configuration, and the route an edit would take.
import { loadHashpilotConfig } from "../edit/config.js";
import { projectBoundary, readablePath } from "../edit/paths.js";
import { chooseRoute } from "../edit/route.js";
import { clearLogs, pruneLogs } from "../edit/telemetry.js";
import { DESTRUCTIVE, READ_ONLY, defineTool } from "./define.js";
import { editConfig, mergedPolicy, reportEnvelope, reports } from "./edit-call.js";
import { file } from "./edit-inputs.js";
import { okEnvelope } from "./envelope.js";
import { ENVELOPE_OUTPUT } from "./outputs.js";
import { nameInput, z } from "./schema.js";

const DEFINED = "tools/admin.ts";

export const routeTool = defineTool({
  name: "route",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/route.ts" },
  cli: [{ name: "route", summary: "Which route (ast, hash, diff) an operation on a file would take, and why.", positionals: ["file", "operation"] }],
  title: "Which route an edit takes",
  description:
    "The route (ast, hash or diff) an operation on a file would take, and why: the file's language, the operation, " +
    "and the route policy's language and operation overrides " +
    "(policy: inline policy JSON merged over the configured one; no_default_config: ignore the config files).",
  input: () =>
    z
      .object({
        file,
        operation: nameInput().describe("e.g. replace-hash, rename-symbol, add-import."),
        policy: z
          .string()
          .min(1)
          .max(64 * 1024)
          .nullish()
          .describe("Route policy JSON to merge over the configured one."),
        no_default_config: z.boolean().default(false),
      })
      .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: async (ctx, args) => okEnvelope("route", chooseRoute(args.file, args.operation, mergedPolicy(ctx, args.policy, args.no_default_config)), []),
});

export const provenanceQueryTool = defineTool({
  name: "provenance_query",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/reports.ts" },
  cli: [
    {
      name: "provenance query",
      summary: "Who changed a file (or one line of it), when and why, newest first (--human: as text).",
      positionals: ["file", "line"],
    },
  ],
  title: "Who edited a file or line",
  description:
    "The recorded writes of a file, newest first — actor, task, reason, operation, changeSet and the lines each changed " +
    "(ranges; the diff only when telemetry.recordContent is on) — like git blame for agent edits. " +
    "With line, only writes that changed it (fuzzy: also writes recorded without ranges).",
  input: () =>
    z
      .object({
        file,
        line: z.number().int().min(1).nullish(),
        fuzzy: z.boolean().default(false),
        limit: z.number().int().min(1).max(10_000).default(20),
      })
      .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) =>
    reportEnvelope(
      "provenance_query",
      reports().then((r) => r.provenanceQuery(ctx.cwd, args.file, args.line ?? null, args.fuzzy, args.limit)),
    ),
});

export const provenanceChangeSetTool = defineTool({
  name: "provenance_changeset",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/reports.ts" },
  cli: [{ name: "provenance changeset", summary: "Every recorded edit of one changeSet (--human: as text).", positionals: ["change_set_id"] }],
  title: "Edits of a changeSet",
  description: "Every recorded edit of one changeSet, in order, with its provenance and changed lines.",
  input: () => z.object({ change_set_id: z.string().min(1).max(100) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (_ctx, args) =>
    reportEnvelope(
      "provenance_changeset",
      reports().then((r) => r.provenanceChangeSet(args.change_set_id)),
    ),
});

export const telemetryShowTool = defineTool({
  name: "telemetry_show",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/reports.ts" },
  cli: [{ name: "telemetry show", summary: "Recent telemetry events (default 20), newest first.", short: { n: "limit" } }],
  title: "Recent telemetry events",
  description: "The most recent editing events (operation, route, file, language, success, error code, retries, elapsed time), newest first.",
  input: () => z.object({ limit: z.number().int().min(1).max(10_000).default(20) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (_ctx, args) =>
    reportEnvelope(
      "telemetry_show",
      reports().then((r) => r.telemetryShow(args.limit)),
    ),
});

export const telemetrySummaryTool = defineTool({
  name: "telemetry_summary",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/reports.ts" },
  cli: [{ name: "telemetry summary", summary: "Counts by route:operation with success rate and average time." }],
  title: "Telemetry by route and operation",
  description: "Event counts by route:operation with success rate and average time.",
  input: () => z.object({}).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: () =>
    reportEnvelope(
      "telemetry_summary",
      reports().then((r) => r.telemetrySummary()),
    ),
});

export const telemetryHealthTool = defineTool({
  name: "telemetry_health",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/reports.ts" },
  cli: [
    {
      name: "telemetry health",
      summary: "Health report over a window of days, with threshold warnings (--trend: against the previous window).",
      short: { w: "window", t: "trend" },
    },
  ],
  title: "Editing health report",
  description:
    "Per-route, per-language and stale-anchor figures over a window of days, with warnings past the thresholds " +
    "(stale anchors > 10% of replace-hash calls, per-language failures > 30%, store > 100 MB, ...); trend compares with the window before.",
  input: () => z.object({ window: z.number().int().min(1).max(3650).default(7), trend: z.boolean().default(false) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (_ctx, args) =>
    reportEnvelope(
      "telemetry_health",
      reports().then((r) => r.telemetryHealth(args.window, args.trend)),
    ),
});

export const telemetrySessionsTool = defineTool({
  name: "telemetry_sessions",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/reports.ts" },
  cli: [{ name: "telemetry sessions", summary: "Per-session event counts, error rates and durations.", short: { n: "limit" } }],
  title: "Editing sessions",
  description: "Per-session event counts, error rates and durations (a session is HASHPILOT_SESSION, or the calling process).",
  input: () =>
    z
      .object({
        limit: z.number().int().min(1).max(10_000).default(100).describe("Sessions answered at most, newest first (the rest are counted in omitted)."),
      })
      .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (_ctx, args) =>
    reportEnvelope(
      "telemetry_sessions",
      reports().then((r) => r.telemetrySessions(args.limit)),
    ),
});

export const telemetryExportTool = defineTool({
  name: "telemetry_export",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/reports.ts" },
  cli: [{ name: "telemetry export", summary: "Every event, optionally by date range or session (--ndjson: one compact event per line)." }],
  title: "Export telemetry events",
  description:
    "The events, oldest first, optionally between two dates and for one session: at most limit and within the answer cap " +
    "(truncated and omitted say how many later ones were left out; export again from the last timestamp).",
  input: () =>
    z
      .object({
        from: z.string().min(1).max(100).nullish(),
        to: z.string().min(1).max(100).nullish(),
        session: z.string().min(1).max(200).nullish(),
        limit: z.number().int().min(1).max(100_000).default(1000),
      })
      .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (_ctx, args) =>
    reportEnvelope(
      "telemetry_export",
      reports().then((r) =>
        r.telemetryExport({
          ...(args.from ? { from: args.from } : {}),
          ...(args.to ? { to: args.to } : {}),
          ...(args.session ? { session: args.session } : {}),
          limit: args.limit,
        }),
      ),
    ),
});

export const telemetryPruneTool = defineTool({
  name: "telemetry_prune",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/telemetry.ts" },
  cli: [{ name: "telemetry prune", summary: "Delete rotated telemetry logs older than N days (default 30)." }],
  title: "Prune old telemetry logs",
  description: "Deletes rotated telemetry logs older than older_than days (default 30).",
  input: () => z.object({ older_than: z.number().int().min(0).max(36500).default(30) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: DESTRUCTIVE,
  handler: async (_ctx, args) => okEnvelope("telemetry_prune", { removed: pruneLogs(args.older_than) }, []),
});

export const telemetryClearTool = defineTool({
  name: "telemetry_clear",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/telemetry.ts" },
  cli: [{ name: "telemetry clear", summary: "Delete every telemetry log." }],
  title: "Clear telemetry",
  description: "Deletes every telemetry log, the active one and all rotated ones; the provenance they held goes with them.",
  input: () => z.object({}).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: DESTRUCTIVE,
  handler: async () => okEnvelope("telemetry_clear", { removedFiles: clearLogs() }, []),
});

export const configTool = defineTool({
  name: "config",
  toolset: "admin",
  source: { defined: DEFINED, answers: "edit/config.ts" },
  cli: [
    {
      name: "config",
      summary: "The configuration after merging the global file, .hashpilot.json, --config and HASHPILOT_ROUTE_POLICY.",
      hidden: ["config_path"],
    },
  ],
  title: "hashpilot configuration",
  description: "The configuration after merging the defaults, the global file, the project's .hashpilot.json, --config and HASHPILOT_ROUTE_POLICY.",
  input: () => z.object({ config_path: file.nullish().describe("A config file inside the project to merge as --config (it cannot set readRoots).") }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: async (ctx, args) => {
    if (args.config_path == null) return okEnvelope("config", editConfig(ctx), []);
    const boundary = projectBoundary(ctx.config.project_root, { stateDir: ctx.config.state_dir });
    const { real } = readablePath(args.config_path, boundary, ctx.cwd);
    return okEnvelope("config", loadHashpilotConfig({ cwd: ctx.cwd, configPath: real, configTrusted: false }), []);
  },
});
