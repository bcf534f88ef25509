// The `edit` toolset: hashpilot's operations in the one registry, so `mast serve` offers them
// over MCP, `mast query` calls them, and the `hashpilot` CLI maps its argv onto the same inputs.
// Each answers with the apiVersion 1 envelope (command = the tool name); each call that writes is
// its own changeSet. Writing tools are annotated destructive, the rest read-only.
import { parseRange } from "../edit/anchor.js";
import { changeSets, diffApply, diffGenerate, grepMany, readHash, readMany, replaceHash, symbolLookupMany, undo, type OpContext, type OpResult } from "../edit/operations.js";
import { extname, resolve } from "node:path";
import { ChangeSet, mintChangeSetId } from "../edit/snapshots.js";
import { isMastError } from "../base/errors.js";
import { loadHashpilotConfig, parsePolicy } from "../edit/config.js";
import { chooseRoute } from "../edit/route.js";
import { provenanceChangeSet, provenanceQuery, telemetryExport, telemetryHealth, telemetrySessions, telemetryShow, telemetrySummary } from "../edit/reports.js";
import { clearLogs, pruneLogs, recordEvent, type TelemetryEvent } from "../edit/telemetry.js";
import { refreshIndexedFiles } from "../index/jit.js";
import { extensionInfo } from "../lang/languages.js";
import type { ToolContext } from "./context.js";
import { DESTRUCTIVE, READ_ONLY, defineTool } from "./define.js";
import { okEnvelope, type Envelope } from "./envelope.js";
import { z } from "./schema.js";

/** What one call is, for its telemetry event. */
interface CallMeta {
  /** The contract's operation name (`replace-hash`). */
  readonly operation: string;
  /** read | hash | diff | undo. */
  readonly route: string;
  /** The files the call is about (the first is the event's `file`). */
  readonly files: readonly string[];
  readonly actor?: string | undefined;
  readonly task_id?: string | undefined;
  readonly reason?: string | undefined;
}

const FALLBACK_REASONS: Partial<Record<string, string>> = { STALE_ANCHOR: "stale-anchor", AMBIGUOUS_ANCHOR: "ambiguous-anchor", PARSE_ERROR: "parse-error" };

/**
 * Runs one operation as a tool call: its own changeSet, the project's mast index caught up with
 * what it wrote, one telemetry event (unless `telemetry.enabled` is false), and the envelope.
 */
async function run(ctx: ToolContext, tool: string, meta: CallMeta, op: (oc: OpContext) => OpResult<unknown> | Promise<OpResult<unknown>>): Promise<Envelope> {
  const config = loadHashpilotConfig({ cwd: ctx.cwd, configPath: ctx.editConfigPath });
  const oc: OpContext = { root: ctx.config.project_root, cwd: ctx.cwd, changeSet: new ChangeSet(mintChangeSetId(), tool) };
  const started = performance.now();
  const file = meta.files[0] === undefined ? null : resolve(ctx.cwd, meta.files[0]);
  const event = (success: boolean, extra: Partial<TelemetryEvent>): TelemetryEvent => ({
    timestamp: new Date().toISOString(),
    session: process.env.HASHPILOT_SESSION || `ppid-${process.ppid}`,
    operation: meta.operation,
    route: meta.route,
    file,
    files_count: meta.files.length,
    language: file === null ? null : (extensionInfo(file)?.language ?? (extname(file).slice(1) || null)),
    success,
    errorCode: null,
    fallback_reason: null,
    retries: 0,
    verification_result: null,
    elapsed_ms: Math.round(performance.now() - started),
    changeSetId: null,
    actor: meta.actor ?? null,
    taskId: meta.task_id ?? null,
    reason: meta.reason ?? null,
    diff: null,
    ...extra,
  });
  let result: OpResult<unknown>;
  try {
    result = await op(oc);
  } catch (err) {
    const code = isMastError(err) ? err.code : "INTERNAL";
    if (config.telemetry.enabled) recordEvent(event(false, { errorCode: code, fallback_reason: FALLBACK_REASONS[code] ?? null }));
    throw err;
  }
  const wrote = result.written !== undefined && result.written.length > 0;
  if (wrote) await refreshIndexedFiles(ctx.config, result.written!);
  if (config.telemetry.enabled) {
    const retries = (result.data as { retries?: unknown } | null)?.retries;
    recordEvent(event(true, { retries: typeof retries === "number" ? retries : 0, changeSetId: wrote ? oc.changeSet.id : null, diff: wrote ? (result.unifiedDiff ?? null) : null }));
  }
  return okEnvelope(tool, result.data, result.warnings);
}

/** A report over hashpilot's own stores: no event, no changeSet. */
async function report(tool: string, result: OpResult<unknown> | Promise<OpResult<unknown>>): Promise<Envelope> {
  const { data, warnings } = await result;
  return okEnvelope(tool, data, warnings);
}

const file = z.string().min(1).describe("Path of the file (relative to the project root, or absolute).");
const provenance = {
  actor: z.string().min(1).optional().describe("Who makes the edit (e.g. the agent's model name)."),
  task_id: z.string().min(1).optional().describe("The task or issue the edit belongs to."),
  reason: z.string().min(1).optional().describe("Why the edit is made."),
};

export const readManyTool = defineTool({
  name: "read_many",
  toolset: "edit",
  title: "Read files with hashes",
  description: "Reads files whole, each with its 12-character content hash (the anchor for a whole-file replace_hash) and line count; a file that cannot be read carries its error.",
  input: z.object({ files: z.array(file).min(1).describe("Files to read.") }).strict(),
  annotations: READ_ONLY,
  handler: (ctx, args) => run(ctx, "read_many", { operation: "read-many", route: "read", files: args.files }, (oc) => readMany(oc, args.files)),
});

export const readHashTool = defineTool({
  name: "read_hash",
  toolset: "edit",
  title: "Read a line with its hashes",
  description:
    "One line with its lineHash and the contextHash of the lines around it (contextRange): pass either hash with its range to replace_hash. Ranges are 1-based and inclusive.",
  input: z
    .object({
      file,
      line: z.number().int().min(1).describe("1-based line number."),
      context: z.number().int().min(0).default(3).describe("Lines of context on each side (default 3)."),
    })
    .strict(),
  annotations: READ_ONLY,
  handler: (ctx, args) => run(ctx, "read_hash", { operation: "read-hash", route: "read", files: [args.file] }, (oc) => readHash(oc, args.file, args.line, args.context)),
});

export const grepManyTool = defineTool({
  name: "grep_many",
  toolset: "edit",
  title: "Search files by regular expression",
  description: "Every line matching a regular expression (POSIX bracket classes allowed) under the given files and directories, with its 1-based line and column; the line is verbatim.",
  input: z
    .object({
      pattern: z.string().min(1).describe("Regular expression."),
      paths: z.array(file).min(1).describe("Files or directories to search."),
      ignore_case: z.boolean().default(false),
      file_pattern: z.string().min(1).nullish().describe("Only files whose path or name matches this glob."),
      max_results: z.number().int().min(1).max(100_000).default(1000).describe("Stop after this many matches (truncated: true)."),
    })
    .strict(),
  annotations: READ_ONLY,
  handler: (ctx, args) =>
    run(ctx, "grep_many", { operation: "grep-many", route: "read", files: args.paths }, (oc) =>
      grepMany(oc, args.pattern, args.paths, { ignoreCase: args.ignore_case, filePattern: args.file_pattern ?? null, maxResults: args.max_results }),
    ),
});

export const replaceHashTool = defineTool({
  name: "replace_hash",
  toolset: "edit",
  title: "Replace hash-anchored lines",
  description:
    "Replaces the lines an anchor hash names with new content. With range (\"10:15\", inclusive; \"7\" for one line) the hash is of those lines; a range whose lines moved is relocated when exactly one same-height window has the hash (stale: true, ANCHOR_RELOCATED), refused when several do (AMBIGUOUS_ANCHOR) or none (STALE_ANCHOR). Without range the hash is the whole file's and is never relocated. Answers newHash and newRange, the anchor for a next edit.",
  input: z
    .object({
      file,
      old_hash: z.string().describe("The 12-character hash read_hash or read_many reported."),
      new_content: z.string().describe('The replacement lines. One trailing line break ends the last line, it does not add an empty one: "a\\n" and "a" are the same single line; "a\\n\\n" is "a" and an empty line.'),
      range: z.string().nullish().describe('"start:end" (1-based, inclusive) or "line"; omit to anchor the whole file.'),
      dry_run: z.boolean().default(false).describe("Plan and preview the diff without writing."),
      recovery: z.boolean().default(true).describe("Relocate a moved range anchor (false: any mismatch is STALE_ANCHOR)."),
      ...provenance,
    })
    .strict(),
  annotations: DESTRUCTIVE,
  handler: (ctx, args) =>
    run(ctx, "replace_hash", { operation: "replace-hash", route: "hash", files: [args.file], ...args }, (oc) =>
      replaceHash(oc, args.file, args.old_hash, args.new_content, {
        range: args.range === null || args.range === undefined ? null : parseRange(args.range),
        dryRun: args.dry_run,
        recovery: args.recovery,
      }),
    ),
});

export const diffGenerateTool = defineTool({
  name: "diff_generate",
  toolset: "edit",
  title: "Unified diff of two contents",
  description: 'A unified diff from old to new content, with headers naming the file; "(no changes)" when they are the same.',
  input: z
    .object({
      file,
      old_content: z.string(),
      new_content: z.string(),
      context: z.number().int().min(0).default(3).describe("Context lines around each change (default 3)."),
    })
    .strict(),
  annotations: READ_ONLY,
  handler: (ctx, args) =>
    run(ctx, "diff_generate", { operation: "diff generate", route: "diff", files: [args.file] }, (oc) => diffGenerate(oc, args.file, args.old_content, args.new_content, args.context)),
});

export const diffApplyTool = defineTool({
  name: "diff_apply",
  toolset: "edit",
  title: "Apply a unified diff",
  description:
    "Applies a one-file unified diff. A hunk lands where the patch says or, when the file moved, where its lines are if they are in exactly one place (placements; fuzzyPlacements for hunks that slid); otherwise nothing is written (STALE_ANCHOR when gone, AMBIGUOUS_ANCHOR when in several places). A --- /dev/null patch creates the file.",
  input: z
    .object({
      file,
      patch: z.string().min(1).describe("The unified diff."),
      dry_run: z.boolean().default(false).describe("Place the hunks without writing; the answer carries the unified diff, not the file (#98)."),
      include_source: z.boolean().default(false).describe("On a dry run, answer the whole post-patch file as newSource instead of the diff."),
      fuzzy: z.number().int().min(0).max(1_000_000).nullish().describe("How far a hunk may slide from where the patch puts it (default: anywhere its lines are unambiguous)."),
      ...provenance,
    })
    .strict(),
  annotations: DESTRUCTIVE,
  handler: (ctx, args) =>
    run(ctx, "diff_apply", { operation: "diff apply", route: "diff", files: [args.file], ...args }, (oc) =>
      diffApply(oc, args.file, args.patch, { dryRun: args.dry_run, includeSource: args.include_source, fuzzy: args.fuzzy ?? null }),
    ),
});

export const changeSetsTool = defineTool({
  name: "changesets",
  toolset: "edit",
  title: "Recorded changeSets",
  description: "The changeSets (one per editing call) whose original bytes are kept for undo, newest first.",
  input: z.object({ limit: z.number().int().min(1).max(1000).default(20) }).strict(),
  annotations: READ_ONLY,
  handler: (_ctx, args) => report("changesets", changeSets(args.limit)),
});

export const undoTool = defineTool({
  name: "undo",
  toolset: "edit",
  title: "Undo a changeSet",
  description:
    "Puts every file of a changeSet (change_set_id, or last: true for the newest not yet undone) back as it was before it; files it created are deleted. A file changed since is HASH_MISMATCH and nothing is restored, unless force.",
  input: z
    .object({
      change_set_id: z.string().min(1).nullish(),
      last: z.boolean().default(false),
      force: z.boolean().default(false),
      dry_run: z.boolean().default(false),
    })
    .strict()
    .refine((a) => (a.change_set_id ? !a.last : a.last), { message: "pass change_set_id or last: true (not both)" }),
  annotations: DESTRUCTIVE,
  handler: (ctx, args) => run(ctx, "undo", { operation: "undo", route: "undo", files: [] }, () => undo(args.change_set_id ?? "last", { force: args.force, dryRun: args.dry_run })),
});

export const symbolLookupManyTool = defineTool({
  name: "symbol_lookup_many",
  toolset: "edit",
  title: "Find declarations by name",
  description: "Where the named functions, classes, types and methods (Class.method, or the method's own name) are declared in the TypeScript/JavaScript files under the given paths.",
  input: z.object({ paths: z.array(file).min(1), names: z.array(z.string().min(1)).min(1) }).strict(),
  annotations: READ_ONLY,
  handler: (ctx, args) => run(ctx, "symbol_lookup_many", { operation: "symbol-lookup-many", route: "read", files: args.paths }, (oc) => symbolLookupMany(oc, args.paths, args.names)),
});

export const routeTool = defineTool({
  name: "route",
  toolset: "edit",
  title: "Which route an edit takes",
  description:
    "The route (ast, hash or diff) an operation on a file would take, and why: the file's language, the operation, and the route policy's language and operation overrides (policy: inline policy JSON merged over the configured one; no_default_config: ignore the config files).",
  input: z
    .object({
      file,
      operation: z.string().min(1).describe("e.g. replace-hash, rename-symbol, add-import."),
      policy: z.string().min(1).nullish().describe("Route policy JSON to merge over the configured one."),
      no_default_config: z.boolean().default(false),
    })
    .strict(),
  annotations: READ_ONLY,
  handler: async (ctx, args) => {
    const config = loadHashpilotConfig({ cwd: ctx.cwd, configPath: ctx.editConfigPath, noFiles: args.no_default_config });
    const inline = args.policy ? parsePolicy(args.policy) : {};
    const policy = {
      ...config.routePolicy,
      ...inline,
      languageOverrides: { ...config.routePolicy.languageOverrides, ...inline.languageOverrides },
      operationOverrides: { ...config.routePolicy.operationOverrides, ...inline.operationOverrides },
    };
    return okEnvelope("route", chooseRoute(args.file, args.operation, policy), []);
  },
});

export const provenanceQueryTool = defineTool({
  name: "provenance_query",
  toolset: "edit",
  title: "Who edited a file or line",
  description: "The recorded writes of a file, newest first — actor, task, reason, operation, changeSet and diff — like git blame for agent edits. With line, only writes whose diff touched it (fuzzy: also writes recorded without a diff).",
  input: z
    .object({
      file,
      line: z.number().int().min(1).nullish(),
      fuzzy: z.boolean().default(false),
      limit: z.number().int().min(1).max(10_000).default(20),
    })
    .strict(),
  annotations: READ_ONLY,
  handler: (ctx, args) => report("provenance_query", provenanceQuery(ctx.cwd, args.file, args.line ?? null, args.fuzzy, args.limit)),
});

export const provenanceChangeSetTool = defineTool({
  name: "provenance_changeset",
  toolset: "edit",
  title: "Edits of a changeSet",
  description: "Every recorded edit of one changeSet, in order, with its provenance and diff.",
  input: z.object({ change_set_id: z.string().min(1) }).strict(),
  annotations: READ_ONLY,
  handler: (_ctx, args) => report("provenance_changeset", provenanceChangeSet(args.change_set_id)),
});

export const telemetryShowTool = defineTool({
  name: "telemetry_show",
  toolset: "edit",
  title: "Recent telemetry events",
  description: "The most recent editing events (operation, route, file, language, success, error code, retries, elapsed time), newest first.",
  input: z.object({ limit: z.number().int().min(1).max(10_000).default(20) }).strict(),
  annotations: READ_ONLY,
  handler: (_ctx, args) => report("telemetry_show", telemetryShow(args.limit)),
});

export const telemetrySummaryTool = defineTool({
  name: "telemetry_summary",
  toolset: "edit",
  title: "Telemetry by route and operation",
  description: "Event counts by route:operation with success rate and average time.",
  input: z.object({}).strict(),
  annotations: READ_ONLY,
  handler: () => report("telemetry_summary", telemetrySummary()),
});

export const telemetryHealthTool = defineTool({
  name: "telemetry_health",
  toolset: "edit",
  title: "Editing health report",
  description:
    "Per-route, per-language and stale-anchor figures over a window of days, with warnings past the thresholds (stale anchors > 10% of replace-hash calls, per-language failures > 30%, store > 100 MB, ...); trend compares with the window before.",
  input: z.object({ window: z.number().int().min(1).max(3650).default(7), trend: z.boolean().default(false) }).strict(),
  annotations: READ_ONLY,
  handler: (_ctx, args) => report("telemetry_health", telemetryHealth(args.window, args.trend)),
});

export const telemetrySessionsTool = defineTool({
  name: "telemetry_sessions",
  toolset: "edit",
  title: "Editing sessions",
  description: "Per-session event counts, error rates and durations (a session is HASHPILOT_SESSION, or the calling process).",
  input: z.object({}).strict(),
  annotations: READ_ONLY,
  handler: () => report("telemetry_sessions", telemetrySessions()),
});

export const telemetryExportTool = defineTool({
  name: "telemetry_export",
  toolset: "edit",
  title: "Export telemetry events",
  description: "Every event, optionally between two dates and for one session.",
  input: z.object({ from: z.string().min(1).nullish(), to: z.string().min(1).nullish(), session: z.string().min(1).nullish() }).strict(),
  annotations: READ_ONLY,
  handler: (_ctx, args) =>
    report("telemetry_export", telemetryExport({ ...(args.from ? { from: args.from } : {}), ...(args.to ? { to: args.to } : {}), ...(args.session ? { session: args.session } : {}) })),
});

export const telemetryPruneTool = defineTool({
  name: "telemetry_prune",
  toolset: "edit",
  title: "Prune old telemetry logs",
  description: "Deletes rotated telemetry logs older than older_than days (default 30).",
  input: z.object({ older_than: z.number().int().min(0).max(36500).default(30) }).strict(),
  annotations: DESTRUCTIVE,
  handler: async (_ctx, args) => okEnvelope("telemetry_prune", { removed: pruneLogs(args.older_than) }, []),
});

export const telemetryClearTool = defineTool({
  name: "telemetry_clear",
  toolset: "edit",
  title: "Clear telemetry",
  description: "Deletes every telemetry log, the active one and all rotated ones; the provenance they held goes with them.",
  input: z.object({}).strict(),
  annotations: DESTRUCTIVE,
  handler: async () => okEnvelope("telemetry_clear", { removedFiles: clearLogs() }, []),
});

export const configTool = defineTool({
  name: "config",
  toolset: "edit",
  title: "hashpilot configuration",
  description: "The configuration after merging the defaults, the global file, the project's .hashpilot.json, --config and HASHPILOT_ROUTE_POLICY.",
  input: z.object({ config_path: z.string().min(1).nullish() }).strict(),
  annotations: READ_ONLY,
  handler: async (ctx, args) => okEnvelope("config", loadHashpilotConfig({ cwd: ctx.cwd, configPath: args.config_path ?? ctx.editConfigPath }), []),
});

export const EDIT_TOOLS = [
  readManyTool,
  readHashTool,
  grepManyTool,
  replaceHashTool,
  diffGenerateTool,
  diffApplyTool,
  changeSetsTool,
  undoTool,
  provenanceQueryTool,
  provenanceChangeSetTool,
  telemetryShowTool,
  telemetrySummaryTool,
  telemetryHealthTool,
  telemetrySessionsTool,
  telemetryExportTool,
  telemetryPruneTool,
  telemetryClearTool,
  configTool,
  symbolLookupManyTool,
  routeTool,
];
