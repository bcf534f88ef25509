// The `edit`, `more` and `admin` toolsets: hashpilot's operations in the one registry (`edit`:
// reads with hashes, edits, undo; `more`: grep, diff generation, symbol lookup, changeSet history;
// `admin`: telemetry, provenance, configuration and route reports — the last two off by default
// in `mast serve`), so it offers them
// over MCP, `mast query` calls them, and the `hashpilot` CLI maps its argv onto the same inputs.
// Each answers with the apiVersion 1 envelope (command = the tool name); each call that writes is
// its own changeSet. Writing tools are annotated destructive, the rest read-only. A file-scoped
// rename's cross-file uses are asked of the mast index here (the query layer's callers).
import { parseRange } from "../edit/anchor.js";
import type { OpContext, OpResult, Warning } from "../edit/op-result.js";
import { dirname, extname, resolve } from "node:path";
import type { CrossFileUses, RenamedDeclaration } from "../edit/ast.js";
import { ChangeSet, mintChangeSetId } from "../edit/snapshots.js";
import { errorMessage, isMastError } from "../base/errors.js";
import { projectPath } from "../base/paths.js";
import { callersOf, type Callers } from "../query/graph.js";
import { freshAnswer } from "./fresh.js";
import { loadHashpilotConfig, parsePolicy, type HashpilotConfig, type RoutePolicy } from "../edit/config.js";
import { DEFAULT_GREP_TIMEOUT_MS, MAX_PATTERN_LENGTH, MAX_READ_FILES } from "../edit/grep.js";
import { projectBoundary, readablePath } from "../edit/paths.js";
import { EDIT_MAX_FILE_BYTES } from "../edit/writer.js";
import { ROUTED_OPERATIONS, chooseRoute } from "../edit/route.js";
import { clearLogs, pruneLogs, recordEvent, type TelemetryEvent } from "../edit/telemetry.js";
import { refreshIndexedFiles } from "../index/jit.js";
import { extensionInfo } from "../lang/languages.js";
import type { ToolContext } from "./context.js";
import { DESTRUCTIVE, PROVENANCE_KEYS, READ_ONLY, defineTool, type CliCommand } from "./define.js";
import { ENVELOPE_OUTPUT } from "./outputs.js";
import { okEnvelope, type Envelope } from "./envelope.js";
import { globInput, nameInput, pathInput, z } from "./schema.js";

// The editing engine (the operations, AST edits and tree-sitter, routed edits, the reports) is
// loaded by the first call that uses it: a call of another tool (`mast query mast_search`) loads
// none of it (~20 ms of a CLI call's start-up). The modules stay loaded once imported.
const operations = () => import("../edit/operations.js");
const ast = () => import("../edit/ast.js");
const routed = () => import("../edit/route-edit.js");
const reports = () => import("../edit/reports.js");

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

/** The merged hashpilot configuration of a call. */
function editConfig(ctx: ToolContext): HashpilotConfig {
  return loadHashpilotConfig({ cwd: ctx.cwd, configPath: ctx.editConfigPath });
}

/** The operations' context of a call: the project's boundary (the state dir sealed, the configured read roots open to reads) and a fresh changeSet. */
function opContext(ctx: ToolContext, tool: string, config: HashpilotConfig): OpContext {
  const boundary = projectBoundary(ctx.config.project_root, { stateDir: ctx.config.state_dir, readRoots: config.readRoots });
  return { boundary, cwd: ctx.cwd, changeSet: new ChangeSet(mintChangeSetId(), tool, boundary.realRoot) };
}

/** Bytes an edit may write and still have the index refreshed before it answers; a bigger write is refreshed by the next run or read. */
export const REFRESH_BUDGET_BYTES = 1024 * 1024;

/**
 * Runs one operation as a tool call: its own changeSet, the project's mast index caught up with
 * what it wrote (within REFRESH_BUDGET_BYTES, else deferred with INDEX_REFRESH_DEFERRED), one
 * telemetry event (unless `telemetry.enabled` is false), and the envelope.
 */
export async function run(ctx: ToolContext, tool: string, meta: CallMeta, op: (oc: OpContext) => OpResult<unknown> | Promise<OpResult<unknown>>): Promise<Envelope> {
  const config = editConfig(ctx);
  const oc = opContext(ctx, tool, config);
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
    ranges: null,
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
  const warnings: Warning[] = [...result.warnings];
  if (wrote) {
    const { deferred } = await refreshIndexedFiles(ctx.config, result.written!, { maxBytes: REFRESH_BUDGET_BYTES });
    if (deferred.length > 0) {
      warnings.push({
        code: "INDEX_REFRESH_DEFERRED",
        message: `the mast index was not refreshed for ${deferred.length} file(s) over ${REFRESH_BUDGET_BYTES} bytes written (${deferred.join(", ")}): the next index run or read of them catches up`,
        files: deferred,
      });
    }
  }
  if (config.telemetry.enabled) {
    const retries = (result.data as { retries?: unknown } | null)?.retries;
    // A routed edit records the route it took.
    const route = (result.data as { route?: unknown } | null)?.route;
    recordEvent(
      event(true, {
        ...(typeof route === "string" ? { route } : {}),
        retries: typeof retries === "number" ? retries : 0,
        changeSetId: wrote ? oc.changeSet.id : null,
        ranges: wrote ? [...(result.changedRanges ?? [])] : null,
        diff: wrote && config.telemetry.recordContent ? (result.unifiedDiff?.() ?? null) : null,
      }),
    );
  }
  return okEnvelope(tool, result.data, warnings);
}

/** A report over hashpilot's own stores: no event, no changeSet. */
async function report(tool: string, result: OpResult<unknown> | Promise<OpResult<unknown>>): Promise<Envelope> {
  const { data, warnings } = await result;
  return okEnvelope(tool, data, warnings);
}

const file = pathInput().describe("Path of the file (relative to the project root, or absolute inside it).");
/** File content an argument may carry: no more than the largest file the tools edit. */
const content = z.string().max(EDIT_MAX_FILE_BYTES);
const hash = z.string().max(64);
const provenance = {
  actor: z.string().min(1).max(200).optional().describe("Who makes the edit (e.g. the agent's model name; at most 200 characters)."),
  task_id: z.string().min(1).max(200).optional().describe("The task or issue the edit belongs to (at most 200 characters)."),
  reason: z.string().min(1).max(2000).optional().describe("Why the edit is made (at most 2,000 characters)."),
};
const fileHashInput = hash
  .nullish()
  .describe("The fileHash (read_hash, replace_hash, diff_apply) or hash (read_many) of the read this edit is based on: while the file still has it, the edit goes exactly where that read saw the lines, even when their text occurs elsewhere too.");

export const readManyTool = defineTool({
  name: "read_many",
  toolset: "edit",
  cli: [{ name: "read-many", summary: "Read files with their content hashes.", positionals: ["...files"] }],
  title: "Read files with hashes",
  description: "Whole files with their 12-character hashes (replace_hash's whole-file anchor, later expected_file_hash).",
  details:
    "Reads files inside the project whole, each with its 12-character content hash (the anchor for a whole-file replace_hash, and the expected_file_hash of later edits) and line count; a file that cannot be read carries its error (PATH_DENIED outside the project, READ_FAILED for FIFOs and devices). Files are read in order up to the answer cap: the file that crosses it is cut at a line end (truncated: true, its content lines 1..contentEndLine; hash and lines are still the whole file's) and the files after it are not read — a RESULT_TRUNCATED warning counts them (omitted) and lists them (files) to read in another call.",
  input: () => z.object({ files: z.array(file).min(1).max(MAX_READ_FILES).describe(`Files to read (at most ${MAX_READ_FILES}).`) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) => run(ctx, "read_many", { operation: "read-many", route: "read", files: args.files }, async (oc) => (await operations()).readMany(oc, args.files)),
});

export const readHashTool = defineTool({
  name: "read_hash",
  toolset: "edit",
  cli: [{ name: "read-hash", summary: "Read one line with its hash and the hash of its context.", positionals: ["file", "line"], short: { c: "context" } }],
  title: "Read a line with its hashes",
  description: "A line's lineHash, its context's contextHash and the fileHash: the anchors replace_hash takes.",
  details:
    "One line with its lineHash, the contextHash of the lines around it (contextRange) and the file's fileHash: pass lineHash or contextHash with its range to replace_hash, with fileHash as expected_file_hash. ANCHOR_NOT_UNIQUE warns when the line's text occurs elsewhere in the file. Ranges are 1-based and inclusive.",
  input: () => z
    .object({
      file,
      line: z.number().int().min(1).describe("1-based line number."),
      context: z.number().int().min(0).default(3).describe("Lines of context on each side (default 3)."),
    })
    .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) => run(ctx, "read_hash", { operation: "read-hash", route: "read", files: [args.file] }, async (oc) => (await operations()).readHash(oc, args.file, args.line, args.context)),
});

export const grepManyTool = defineTool({
  name: "grep_many",
  toolset: "more",
  cli: [{ name: "grep-many", summary: "Search a regular expression across files and directories.", positionals: ["pattern", "...paths"], short: { i: "ignore_case" }, flags: { timeout: "timeout_ms" } }],
  title: "Search files by regular expression",
  description:
    "Every line matching a JavaScript regular expression (POSIX bracket classes allowed) under the given files and directories inside the project, with its 1-based line and column; the line is verbatim (a line over 4,096 characters is a slice around the match). The search runs off the server's thread within a time budget (timedOut: what was found by then); a pattern that backtracks catastrophically is stopped with REGEX_TIMEOUT. Binary, unreadable, oversized and special files are skipped and counted.",
  input: () => z
    .object({
      pattern: z.string().min(1).max(MAX_PATTERN_LENGTH).describe("Regular expression."),
      paths: z.array(file).min(1).max(100).describe("Files or directories to search."),
      ignore_case: z.boolean().default(false),
      file_pattern: globInput().nullish().describe("Only files whose path or name matches this glob."),
      max_results: z.number().int().min(1).max(100_000).default(1000).describe("Stop after this many matches (truncated: true); matches past the answer cap are left out too (truncated: true, and a RESULT_TRUNCATED warning counting them)."),
      timeout_ms: z.number().int().min(100).max(60_000).default(DEFAULT_GREP_TIMEOUT_MS).describe(`The search's time budget in ms (default ${DEFAULT_GREP_TIMEOUT_MS}).`),
    })
    .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) =>
    run(ctx, "grep_many", { operation: "grep-many", route: "read", files: args.paths }, async (oc) =>
      (await operations()).grepMany(oc, args.pattern, args.paths, { ignoreCase: args.ignore_case, filePattern: args.file_pattern ?? null, maxResults: args.max_results, timeoutMs: args.timeout_ms }),
    ),
});

export const replaceHashTool = defineTool({
  name: "replace_hash",
  toolset: "edit",
  cli: [
    {
      name: "replace-hash",
      summary: "Replace the lines a hash anchors (relocating a moved anchor) with new content.",
      positionals: ["file", "old_hash", "new_content"],
      content: ["new_content"],
      flags: { "file-hash": "expected_file_hash", "no-recovery": "!recovery" },
    },
  ],
  title: "Replace hash-anchored lines",
  description: "Replaces the lines old_hash names (range \"a:b\", or the whole file), only where the anchor is certain.",
  details:
    "Replaces the lines an anchor hash names with new content. With range (\"10:15\", inclusive; \"7\" for one line) the hash is of those lines. An anchor whose text occurs more than once (`}`, a blank line) is applied only where something pins it: expected_file_hash still matching (the file is as read), or context_hash/context_range found in one place; otherwise AMBIGUOUS_ANCHOR lists the candidates. Once expected_file_hash no longer matches (the file changed since the read), the anchor's own hash is no proof of its lines (12 characters can collide): only context_hash/context_range places it, else STALE_ANCHOR. A unique anchor whose lines moved is relocated (stale: true, ANCHOR_RELOCATED); one that is gone is STALE_ANCHOR. Without range the hash is the whole file's and is never relocated (a line's hash without its range is STALE_ANCHOR naming the line). Answers newHash, newRange and fileHash, the anchors of a next edit.",
  unlisted: ["recovery", ...PROVENANCE_KEYS],
  input: () => z
    .object({
      file,
      old_hash: hash.describe("The 12-character hash read_hash or read_many reported."),
      new_content: content.describe('The replacement lines. One trailing line break ends the last line, it does not add an empty one: "a\\n" and "a" are the same single line; "a\\n\\n" is "a" and an empty line.'),
      range: z.string().max(40).nullish().describe('"start:end" (1-based, inclusive) or "line"; omit to anchor the whole file.'),
      expected_file_hash: fileHashInput,
      context_hash: hash.nullish().describe("read_hash's contextHash, with context_range: pins an anchor whose own text is not unique."),
      context_range: z.string().max(40).nullish().describe("read_hash's contextRange (\"start:end\"), with context_hash."),
      dry_run: z.boolean().default(false).describe("Plan and preview the diff without writing."),
      recovery: z.boolean().default(true).describe("Relocate a moved range anchor (false: any mismatch is STALE_ANCHOR)."),
      ...provenance,
    })
    .strict()
    .refine((a) => (a.context_hash == null) === (a.context_range == null), { message: "context_hash and context_range go together" }),
  output: ENVELOPE_OUTPUT,
  annotations: DESTRUCTIVE,
  handler: (ctx, args) =>
    run(ctx, "replace_hash", { operation: "replace-hash", route: "hash", files: [args.file], ...args }, async (oc) =>
      (await operations()).replaceHash(oc, args.file, args.old_hash, args.new_content, {
        range: args.range == null ? null : parseRange(args.range),
        dryRun: args.dry_run,
        recovery: args.recovery,
        expectedFileHash: args.expected_file_hash ?? null,
        context: args.context_hash == null || args.context_range == null ? null : { hash: args.context_hash, range: parseRange(args.context_range) },
      }),
    ),
});

export const diffGenerateTool = defineTool({
  name: "diff_generate",
  toolset: "more",
  cli: [{ name: "diff generate", summary: "A unified diff between two contents (--raw prints the diff alone, not the envelope).", positionals: ["file", "old_content", "new_content"], content: ["old_content", "new_content"], short: { c: "context" } }],
  title: "Unified diff of two contents",
  description: 'A unified diff from old to new content, with headers naming the file; a missing final newline is a change (`\\ No newline at end of file`); "(no changes)" when they are the same.',
  input: () => z
    .object({
      file,
      old_content: content,
      new_content: content,
      context: z.number().int().min(0).default(3).describe("Context lines around each change (default 3)."),
    })
    .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) =>
    run(ctx, "diff_generate", { operation: "diff generate", route: "diff", files: [args.file] }, async (oc) => (await operations()).diffGenerate(oc, args.file, args.old_content, args.new_content, args.context)),
});

export const diffApplyTool = defineTool({
  name: "diff_apply",
  toolset: "edit",
  cli: [
    {
      name: "diff apply",
      summary: "Apply a one-file unified diff; a hunk that moved goes where its lines are when they are in one place (within --fuzzy lines if given), or the patch is refused.",
      positionals: ["file"],
      stdin: "patch",
      flags: { "file-hash": "expected_file_hash" },
      short: { f: "fuzzy" },
    },
  ],
  title: "Apply a unified diff",
  description: "Applies a one-file unified diff where the patch says (at expected_file_hash) or where its lines are unique.",
  details:
    "Applies a one-file unified diff. While the file has expected_file_hash (it is as the patch was made against), each hunk goes exactly where the patch says; otherwise where its lines are if they are in exactly one place (placements; fuzzyPlacements for hunks that slid). Anything else writes nothing: STALE_ANCHOR when the lines are gone, AMBIGUOUS_ANCHOR when they are in several places or a hunk has no context to place it by. `\\ No newline at end of file` markers must fit the file. A --- /dev/null patch creates the file. Answers placements, newRanges and fileHash (the file itself only with include_source).",
  unlisted: ["include_source", "fuzzy", ...PROVENANCE_KEYS],
  input: () => z
    .object({
      file,
      patch: content.min(1).describe("The unified diff."),
      expected_file_hash: fileHashInput,
      dry_run: z.boolean().default(false).describe("Place the hunks without writing; the answer carries the unified diff, not the file (#98)."),
      include_source: z.boolean().default(false).describe("Answer the whole post-patch file as newSource (a dry run answers the diff otherwise)."),
      fuzzy: z.number().int().min(0).max(1_000_000).nullish().describe("How far a hunk may slide from where the patch puts it (default: anywhere its lines are unambiguous)."),
      ...provenance,
    })
    .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: DESTRUCTIVE,
  handler: (ctx, args) =>
    run(ctx, "diff_apply", { operation: "diff apply", route: "diff", files: [args.file], ...args }, async (oc) =>
      (await operations()).diffApply(oc, args.file, args.patch, { dryRun: args.dry_run, includeSource: args.include_source, fuzzy: args.fuzzy ?? null, expectedFileHash: args.expected_file_hash ?? null }),
    ),
});

export const changeSetsTool = defineTool({
  name: "changesets",
  toolset: "more",
  cli: [{ name: "changesets", summary: "List recorded changeSets (one per editing invocation), newest first." }],
  title: "Recorded changeSets",
  description: "This project's changeSets (one per editing call) whose original bytes are kept for undo, newest first.",
  input: () => z.object({ limit: z.number().int().min(1).max(1000).default(20) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) => report("changesets", operations().then((o) => o.changeSets(opContext(ctx, "changesets", editConfig(ctx)), args.limit))),
});

export const undoTool = defineTool({
  name: "undo",
  toolset: "edit",
  cli: [{ name: "undo", summary: "Restore the files of a changeSet as they were before it (files it created are deleted).", positionals: ["change_set_id"] }],
  title: "Undo a changeSet",
  description: "Restores a changeSet's files (change_set_id, or last: true); a file changed since needs force.",
  details:
    "Puts every file of one of this project's changeSets (change_set_id, or last: true for the newest not yet undone) back as it was before it; files it created are deleted. Every path passes the project boundary again (PATH_DENIED for one that left it or became a symlink). A file changed since is HASH_MISMATCH and nothing is restored, unless force.",
  input: () => z
    .object({
      change_set_id: z.string().min(1).max(100).nullish(),
      last: z.boolean().default(false),
      force: z.boolean().default(false),
      dry_run: z.boolean().default(false),
    })
    .strict()
    .refine((a) => (a.change_set_id ? !a.last : a.last), { message: "pass change_set_id or last: true (not both)" }),
  output: ENVELOPE_OUTPUT,
  annotations: DESTRUCTIVE,
  handler: (ctx, args) => run(ctx, "undo", { operation: "undo", route: "undo", files: [] }, async (oc) => (await operations()).undo(oc, args.change_set_id ?? "last", { force: args.force, dryRun: args.dry_run })),
});

export const symbolLookupManyTool = defineTool({
  name: "symbol_lookup_many",
  toolset: "more",
  cli: [{ name: "symbol-lookup-many", summary: "Where named declarations are, across files and directories.", positionals: ["...paths"], lists: ["names"], flags: { timeout: "timeout_ms" } }],
  title: "Find declarations by name",
  description:
    "Where the named functions, classes, types and methods (Class.method, or the method's own name) are declared in the TypeScript/JavaScript files under the given paths inside the project; at most limit hits (RESULT_TRUNCATED counts the rest), within a time budget (SEARCH_TRUNCATED says the search stopped early).",
  input: () => z
    .object({
      paths: z.array(file).min(1).max(100),
      names: z.array(nameInput()).min(1).max(1000),
      limit: z.number().int().min(1).max(100_000).default(1000),
      timeout_ms: z.number().int().min(100).max(60_000).default(DEFAULT_GREP_TIMEOUT_MS),
    })
    .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) =>
    run(ctx, "symbol_lookup_many", { operation: "symbol-lookup-many", route: "read", files: args.paths }, async (oc) =>
      (await operations()).symbolLookupMany(oc, args.paths, args.names, { limit: args.limit, timeoutMs: args.timeout_ms }),
    ),
});

export const routeTool = defineTool({
  name: "route",
  toolset: "admin",
  cli: [{ name: "route", summary: "Which route (ast, hash, diff) an operation on a file would take, and why.", positionals: ["file", "operation"] }],
  title: "Which route an edit takes",
  description:
    "The route (ast, hash or diff) an operation on a file would take, and why: the file's language, the operation, and the route policy's language and operation overrides (policy: inline policy JSON merged over the configured one; no_default_config: ignore the config files).",
  input: () => z
    .object({
      file,
      operation: nameInput().describe("e.g. replace-hash, rename-symbol, add-import."),
      policy: z.string().min(1).max(64 * 1024).nullish().describe("Route policy JSON to merge over the configured one."),
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
  cli: [{ name: "provenance query", summary: "Who changed a file (or one line of it), when and why, newest first (--human: as text).", positionals: ["file", "line"] }],
  title: "Who edited a file or line",
  description:
    "The recorded writes of a file, newest first — actor, task, reason, operation, changeSet and the lines each changed (ranges; the diff only when telemetry.recordContent is on) — like git blame for agent edits. With line, only writes that changed it (fuzzy: also writes recorded without ranges).",
  input: () => z
    .object({
      file,
      line: z.number().int().min(1).nullish(),
      fuzzy: z.boolean().default(false),
      limit: z.number().int().min(1).max(10_000).default(20),
    })
    .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) => report("provenance_query", reports().then((r) => r.provenanceQuery(ctx.cwd, args.file, args.line ?? null, args.fuzzy, args.limit))),
});

export const provenanceChangeSetTool = defineTool({
  name: "provenance_changeset",
  toolset: "admin",
  cli: [{ name: "provenance changeset", summary: "Every recorded edit of one changeSet (--human: as text).", positionals: ["change_set_id"] }],
  title: "Edits of a changeSet",
  description: "Every recorded edit of one changeSet, in order, with its provenance and changed lines.",
  input: () => z.object({ change_set_id: z.string().min(1).max(100) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (_ctx, args) => report("provenance_changeset", reports().then((r) => r.provenanceChangeSet(args.change_set_id))),
});

export const telemetryShowTool = defineTool({
  name: "telemetry_show",
  toolset: "admin",
  cli: [{ name: "telemetry show", summary: "Recent telemetry events (default 20), newest first.", short: { n: "limit" } }],
  title: "Recent telemetry events",
  description: "The most recent editing events (operation, route, file, language, success, error code, retries, elapsed time), newest first.",
  input: () => z.object({ limit: z.number().int().min(1).max(10_000).default(20) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (_ctx, args) => report("telemetry_show", reports().then((r) => r.telemetryShow(args.limit))),
});

export const telemetrySummaryTool = defineTool({
  name: "telemetry_summary",
  toolset: "admin",
  cli: [{ name: "telemetry summary", summary: "Counts by route:operation with success rate and average time." }],
  title: "Telemetry by route and operation",
  description: "Event counts by route:operation with success rate and average time.",
  input: () => z.object({}).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: () => report("telemetry_summary", reports().then((r) => r.telemetrySummary())),
});

export const telemetryHealthTool = defineTool({
  name: "telemetry_health",
  toolset: "admin",
  cli: [{ name: "telemetry health", summary: "Health report over a window of days, with threshold warnings (--trend: against the previous window).", short: { w: "window", t: "trend" } }],
  title: "Editing health report",
  description:
    "Per-route, per-language and stale-anchor figures over a window of days, with warnings past the thresholds (stale anchors > 10% of replace-hash calls, per-language failures > 30%, store > 100 MB, ...); trend compares with the window before.",
  input: () => z.object({ window: z.number().int().min(1).max(3650).default(7), trend: z.boolean().default(false) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (_ctx, args) => report("telemetry_health", reports().then((r) => r.telemetryHealth(args.window, args.trend))),
});

export const telemetrySessionsTool = defineTool({
  name: "telemetry_sessions",
  toolset: "admin",
  cli: [{ name: "telemetry sessions", summary: "Per-session event counts, error rates and durations.", short: { n: "limit" } }],
  title: "Editing sessions",
  description: "Per-session event counts, error rates and durations (a session is HASHPILOT_SESSION, or the calling process).",
  input: () => z.object({ limit: z.number().int().min(1).max(10_000).default(100).describe("Sessions answered at most, newest first (the rest are counted in omitted).") }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (_ctx, args) => report("telemetry_sessions", reports().then((r) => r.telemetrySessions(args.limit))),
});

export const telemetryExportTool = defineTool({
  name: "telemetry_export",
  toolset: "admin",
  cli: [{ name: "telemetry export", summary: "Every event, optionally by date range or session (--ndjson: one compact event per line)." }],
  title: "Export telemetry events",
  description: "The events, oldest first, optionally between two dates and for one session: at most limit and within the answer cap (truncated and omitted say how many later ones were left out; export again from the last timestamp).",
  input: () => z
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
    report(
      "telemetry_export",
      reports().then((r) => r.telemetryExport({ ...(args.from ? { from: args.from } : {}), ...(args.to ? { to: args.to } : {}), ...(args.session ? { session: args.session } : {}), limit: args.limit })),
    ),
});

export const telemetryPruneTool = defineTool({
  name: "telemetry_prune",
  toolset: "admin",
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
  cli: [{ name: "config", summary: "The configuration after merging the global file, .hashpilot.json, --config and HASHPILOT_ROUTE_POLICY.", hidden: ["config_path"] }],
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

const astOptions = {
  dry_run: z.boolean().default(false).describe("Plan without writing; the answer carries the unified diff, not the file."),
  include_source: z.boolean().default(false).describe("Answer the whole new file as newSource."),
  allow_parse_errors: z.boolean().default(false).describe("Edit a file that does not parse."),
  yes: z.boolean().default(false).describe("rename-symbol: rename although some uses may or may not be the variable (UNRESOLVED_REFERENCES), leaving those as they are."),
  ...provenance,
};
const symbolInput = z.string().min(1).max(500).describe("The declaration's name; a member as Owner.member.");
const astEditOptions = (ctx: ToolContext, a: { dry_run: boolean; include_source: boolean; allow_parse_errors: boolean; yes: boolean }) => ({
  dryRun: a.dry_run,
  includeSource: a.include_source,
  allowParseErrors: a.allow_parse_errors,
  yes: a.yes,
  crossFileUses: (declaration: RenamedDeclaration) => crossFileUses(ctx, declaration),
});

/** Lines naming a renamed declaration a cross-file check reads at most. */
const CROSS_FILE_POTENTIAL_LIMIT = 10_000;

/**
 * What the index knows of other files' uses of a declaration a file-scoped rename changed — asked
 * before the index takes in the rename, the files the uses are in refreshed first: the verified
 * call sites there, and the lines naming it that no edge explains in files that can see it (files
 * its language's resolver reads, when it is exported or, for a language whose names a directory
 * shares, in its directory). No index, none of the declaration in its file, or an index that cannot
 * be read (whatever the error: the rename is made by now) is `unchecked` with the reason.
 */
async function crossFileUses(ctx: ToolContext, declaration: RenamedDeclaration): Promise<CrossFileUses> {
  const root = ctx.config.project_root;
  try {
    const path = projectPath(declaration.path, root);
    const { answer } = await freshAnswer(
      ctx,
      () => otherFileUses(callersOf(ctx.store().db, root, { symbol: declaration.name, filePath: path, transitive: false, potentialLimit: CROSS_FILE_POTENTIAL_LIMIT, omitNonCalls: true, omitImports: declaration.name.includes(".") }), path),
      (uses) => uses?.map((u) => u.path) ?? [],
    );
    if (answer === null) return { unchecked: `the index has no declaration '${declaration.name}' in ${path}` };
    return {
      total: answer.length,
      verified: answer.filter((u) => u.verified).length,
      fileCount: new Set(answer.map((u) => u.path)).size,
      sites: answer.slice(0, (await ast()).MAX_CROSS_FILE_SITES).map(({ path, line }) => ({ path, line })),
    };
  } catch (err) {
    return { unchecked: errorMessage(err) };
  }
}

/** A declaration's uses outside its file, one per line (verified first), or null when the index does not declare it in `path`. */
function otherFileUses(callers: Callers, path: string): Array<{ path: string; line: number; verified: boolean }> | null {
  const declared = callers.target.sites[0];
  if (declared === undefined || declared.path !== path) return null;
  const spec = extensionInfo(path)?.spec;
  const visible = (p: string) => extensionInfo(p)?.spec.resolver === spec?.resolver && (declared.is_exported === 1 || (spec?.scope === "directory" && dirname(p) === dirname(path)));
  const lines = new Map<string, { path: string; line: number; verified: boolean }>();
  for (const v of callers.verified) if (v.file_path !== path) lines.set(`${v.file_path}:${v.line}`, { path: v.file_path, line: v.line, verified: true });
  for (const m of callers.potential?.matches ?? []) if (m.file_path !== path && visible(m.file_path)) lines.set(`${m.file_path}:${m.line}`, { path: m.file_path, line: m.line, verified: false });
  return [...lines.values()];
}

export const astCapabilitiesTool = defineTool({
  name: "ast_capabilities",
  toolset: "more",
  cli: [{ name: "ast capabilities", summary: "Languages with AST edits: extensions, operations and known limitations." }],
  title: "AST edit languages",
  description: "Each language with AST edits: its extensions, the operations it supports and their known limitations.",
  input: () => z.object({}).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: () => report("ast_capabilities", ast().then((a) => a.astCapabilities())),
});

export const astFindSymbolsTool = defineTool({
  name: "ast_find_symbols",
  toolset: "more",
  cli: [{ name: "ast find-symbols", summary: "Every declaration in a file, with 1-based (startLine…) and 0-based (startRow…) coordinates.", positionals: ["file"] }],
  title: "Declarations of a file",
  description:
    "Every declaration in a file (name, Owner.member, node type) with 1-based startLine/endLine/startColumn/endColumn (use these) and 0-based startRow/endRow/startCol/endCol; truncated with SEARCH_TRUNCATED past the depth guard.",
  input: () => z.object({ file }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) => run(ctx, "ast_find_symbols", { operation: "find-symbols", route: "ast", files: [args.file] }, async (oc) => (await ast()).astFindSymbols(oc, args.file)),
});

/** route-edit's and batch's flags (the contract's AST-, hash- and diff-specific names). */
const ROUTE_FLAGS = { symbol: "symbol", "old-name": "symbol", "import-spec": "symbol", content: "content", "new-body": "content", "new-content": "content", "file-hash": "expected_file_hash" };

/** `hashpilot ast <operation>`: route_edit with the AST route forced, its content positional. */
function astCommand(operation: string, summary: string, positionals: string[]): CliCommand {
  const imports = operation.endsWith("-import");
  return {
    name: `ast ${operation}`,
    summary,
    positionals,
    required: positionals,
    fixed: { operation, method: "ast" },
    content: positionals.includes("content") ? ["content"] : [],
    labels: imports ? { symbol: "import-spec" } : { symbol: operation === "rename-symbol" ? "old-name" : "symbol-name", ...(operation === "replace-body" ? { content: "new-body" } : {}) },
    hidden: ["files", "serial", "old_hash", "range", "old_content", "expected_file_hash", "policy", ...["content", "new_name"].filter((k) => !positionals.includes(k)), ...(imports ? ["line"] : []), ...(operation === "rename-symbol" ? [] : ["yes"])],
  };
}

/** The route policy of a call: the configured one with an inline policy's overrides merged over it. */
function mergedPolicy(ctx: ToolContext, inlineJson: string | null | undefined, noFiles = false): RoutePolicy {
  const config = loadHashpilotConfig({ cwd: ctx.cwd, configPath: ctx.editConfigPath, noFiles });
  const inline = inlineJson ? parsePolicy(inlineJson) : {};
  return {
    ...config.routePolicy,
    ...inline,
    languageOverrides: { ...config.routePolicy.languageOverrides, ...inline.languageOverrides },
    operationOverrides: { ...config.routePolicy.operationOverrides, ...inline.operationOverrides },
  };
}

export const routeEditTool = defineTool({
  name: "route_edit",
  toolset: "edit",
  cli: [
    {
      name: "route-edit",
      summary: "One structured edit by the safest route the file allows (AST, else hash, else diff); --method forces one.",
      positionals: ["file", "operation"],
      required: ["file"],
      flags: ROUTE_FLAGS,
      content: ["content", "old_content"],
      hidden: ["files", "serial"],
    },
    {
      name: "batch",
      summary: "The same structured edit over many files: locks up front, parallel unless --serial; conflicts counted apart from failures.",
      positionals: ["operation", "...files"],
      required: ["files"],
      flags: ROUTE_FLAGS,
      content: ["content", "old_content"],
      hidden: ["file"],
    },
    astCommand("rename-symbol", "Rename a binding and its uses in one file (Owner.member: a member and its accesses).", ["file", "symbol", "new_name"]),
    astCommand("replace-body", "Replace a function's or method's body, re-indented to the target's own indentation.", ["file", "symbol", "content"]),
    astCommand("add-import", "Add an import (ESM form for TypeScript/JavaScript: '{ Foo } from ./bar'), merged into an existing import of the module.", ["file", "symbol"]),
    astCommand("remove-import", "Remove an import: the names a spec lists, or a module's whole import.", ["file", "symbol"]),
    astCommand("insert-before", "Insert content on its own lines before a declaration (above its doc comments), at its indentation.", ["file", "symbol", "content"]),
    astCommand("insert-after", "Insert content on its own lines after a declaration, at its indentation.", ["file", "symbol", "content"]),
  ],
  title: "Structured edit, routed",
  description: "AST edits: rename-symbol (new_name), replace-body, insert-* (content), add-/remove-import ('{ a } from ./m').",
  details:
    "One edit by the safest route its file allows (ast_capabilities): AST for TypeScript, JavaScript, Python, Go and Rust, else the hash route (old_hash, content, range: replace_hash) or the diff route (old_content → content, found in exactly one place); method forces a route, the route policy (config, or policy inline) may pick another, and a route less safe than the operation's own carries ROUTE_FALLBACK. AST edits refuse a file that does not parse before (allow_parse_errors waives that) or after. rename-symbol is file-scoped and binding-aware: a variable, function, class, parameter or import is renamed with every use that refers to it (shorthand properties keep their key: `{ a }` becomes `{ a: b }`; an import gets an alias); a member (Owner.member, or a name only members have) with its accesses through `this`/`self`, the type itself, or names annotated with or constructed as the type — other accesses of the name are listed in unresolved (UNRESOLVED_REFERENCES), not changed; never inside strings or comments. Uses the text cannot tie to a variable (JavaScript: inside a `with` body, in the function of a direct `eval` that sees it, and the eval call) are listed and refuse the rename (UNRESOLVED_REFERENCES) unless yes, which renames the rest and leaves them. A name that binds more than one thing is AMBIGUOUS_SYMBOL with `line N (kind)` for each binding: pass line to pick one; a new name the file already uses is refused. A rename of what other files may name (a file-level declaration, a member) still renames this file only, and asks the project's mast index about the rest: CROSS_FILE_USES counts the lines in other files still naming the old name (total, verified calls among them, fileCount, the first sites: verified calls, and lines naming it in files of its language that can see it — exported, or in its package directory for Go) — rename across files with intent rename-exported-symbol; CROSS_FILE_UNCHECKED when there is no index to ask. replace-body replaces a function's or method's body with content, re-indented to the target's own indentation (braces optional). insert-before/insert-after put content on lines of its own beside a declaration (before: above its doc comments, attributes and decorators), at its indentation; a name that is only a parameter, import or key is SYMBOL_NOT_FOUND naming what it is. add-import and remove-import take the import spec as symbol — in ESM form for TypeScript and JavaScript ('{ a, b as c } from ./m', 'D from m', '* as ns from m', 'type { T } from ./t'; written as require() in a CommonJS file, MODULE_SYSTEM_MISMATCH when it has no form there or the file's system is unsettled), 'from m import x' or 'import a.b as c' for Python, '\"fmt\"' or 'str \"strings\"' for Go, 'std::io::{Read, Write}' for Rust — merged into an existing import of the module (a Go import block) instead of duplicated; an import already there changes nothing. With files instead of file the edit runs on each (a batch): their locks are taken up front (every entry LOCK_TIMEOUT with route null when one cannot be), in parallel unless serial; results has one entry per file and summary counts succeeded, failed and conflicts (stale anchors and locks: retryable after a re-read), total = succeeded + failed + conflicts; a batch with any failure or conflict is an error whose details carry them.",
  unlisted: ["old_hash", "range", "old_content", "method", "policy", "serial", "include_source", "allow_parse_errors", "yes", ...PROVENANCE_KEYS],
  input: () => z
    .object({
      file: file.nullish(),
      files: z.array(file).min(1).max(1000).nullish().describe("Edit each of these files (a batch) instead of one file."),
      operation: z.enum(ROUTED_OPERATIONS),
      symbol: symbolInput.nullish(),
      new_name: z.string().min(1).max(200).nullish().describe("rename-symbol: the new name."),
      content: content.nullish().describe("replace-body: the new body; insert-*: the lines to insert; the hash and diff routes: the new content."),
      line: z.number().int().min(1).nullish().describe("The line of the binding (rename-symbol) or declaration to edit when the name has several."),
      old_hash: hash.nullish().describe("The hash route: the anchor (read_hash), with range."),
      range: z.string().max(40).nullish(),
      old_content: content.nullish().describe("The diff route: the lines to replace."),
      expected_file_hash: fileHashInput,
      method: z.enum(["ast", "hash", "diff"]).nullish().describe("Force this route."),
      policy: z.string().min(1).max(64 * 1024).nullish().describe("Route policy JSON merged over the configured one."),
      serial: z.boolean().default(false).describe("A batch edits one file after another."),
      ...astOptions,
    })
    .strict()
    .refine((a) => (a.file == null) !== (a.files == null), { message: "pass file or files (not both)" }),
  output: ENVELOPE_OUTPUT,
  annotations: DESTRUCTIVE,
  handler: (ctx, args) => {
    const policy = mergedPolicy(ctx, args.policy);
    const req = {
      operation: args.operation,
      symbol: args.symbol,
      newName: args.new_name,
      content: args.content,
      line: args.line,
      oldHash: args.old_hash,
      range: args.range,
      oldContent: args.old_content,
      expectedFileHash: args.expected_file_hash,
      method: args.method,
      options: astEditOptions(ctx, args),
    };
    const files = args.files ?? [args.file!];
    const route = args.method ?? (args.file ? chooseRoute(args.file, args.operation, policy).route : "batch");
    return run(ctx, "route_edit", { route, files, actor: args.actor, task_id: args.task_id, reason: args.reason, operation: args.operation }, async (oc) => {
      const { batchEdit, routeEdit } = await routed();
      return args.files ? batchEdit(oc, args.files, req, policy, args.serial) : routeEdit(oc, args.file!, req, policy);
    });
  },
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
  astCapabilitiesTool,
  astFindSymbolsTool,
  routeEditTool,
];
