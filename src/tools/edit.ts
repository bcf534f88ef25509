// The `edit` toolset: hashpilot's operations in the one registry, so `mast serve` offers them
// over MCP, `mast query` calls them, and the `hashpilot` CLI maps its argv onto the same inputs.
// Each answers with the apiVersion 1 envelope (command = the tool name); each call that writes is
// its own changeSet. Writing tools are annotated destructive, the rest read-only.
import { parseRange } from "../edit/anchor.js";
import { changeSets, diffApply, diffGenerate, grepMany, readHash, readMany, replaceHash, undo, type OpContext, type OpResult } from "../edit/operations.js";
import { ChangeSet, mintChangeSetId } from "../edit/snapshots.js";
import { refreshIndexedFiles } from "../index/jit.js";
import type { ToolContext } from "./context.js";
import { DESTRUCTIVE, READ_ONLY, defineTool } from "./define.js";
import { okEnvelope, type Envelope } from "./envelope.js";
import { z } from "./schema.js";

function opContext(ctx: ToolContext, tool: string): OpContext {
  return { root: ctx.config.project_root, cwd: ctx.cwd, changeSet: new ChangeSet(mintChangeSetId(), tool) };
}

/**
 * The envelope of an operation's result, once the project's mast index (when it has one) has
 * caught up with the files it wrote: a search right after an edit sees the new code.
 */
async function enveloped(ctx: ToolContext, tool: string, result: OpResult<unknown> | Promise<OpResult<unknown>>): Promise<Envelope> {
  const { data, warnings, written } = await result;
  if (written && written.length > 0) await refreshIndexedFiles(ctx.config, written);
  return okEnvelope(tool, data, warnings);
}

const file = z.string().min(1).describe("Path of the file (relative to the project root, or absolute).");
const provenance = {
  actor: z.string().min(1).optional().describe("Who makes the edit (e.g. the agent's model name)."),
  task_id: z.string().min(1).optional().describe("The task or issue the edit belongs to."),
  reason: z.string().min(1).optional().describe("Why the edit is made."),
};
const allowParseErrors = z.boolean().default(false).describe("Write even when the edit leaves a cleanly parsing file with a syntax error.");

export const readManyTool = defineTool({
  name: "read_many",
  toolset: "edit",
  title: "Read files with hashes",
  description: "Reads files whole, each with its 12-character content hash (the anchor for a whole-file replace_hash) and line count; a file that cannot be read carries its error.",
  input: z.object({ files: z.array(file).min(1).describe("Files to read.") }).strict(),
  annotations: READ_ONLY,
  handler: (ctx, args) => enveloped(ctx, "read_many", readMany(opContext(ctx, "read_many"), args.files)),
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
  handler: (ctx, args) => enveloped(ctx, "read_hash", readHash(opContext(ctx, "read_hash"), args.file, args.line, args.context)),
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
    enveloped(ctx, "grep_many", grepMany(opContext(ctx, "grep_many"), args.pattern, args.paths, { ignoreCase: args.ignore_case, filePattern: args.file_pattern ?? null, maxResults: args.max_results })),
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
      new_content: z.string().describe("The replacement lines."),
      range: z.string().nullish().describe('"start:end" (1-based, inclusive) or "line"; omit to anchor the whole file.'),
      dry_run: z.boolean().default(false).describe("Plan and preview the diff without writing."),
      recovery: z.boolean().default(true).describe("Relocate a moved range anchor (false: any mismatch is STALE_ANCHOR)."),
      allow_parse_errors: allowParseErrors,
      ...provenance,
    })
    .strict(),
  annotations: DESTRUCTIVE,
  handler: (ctx, args) =>
    enveloped(ctx, "replace_hash",
      replaceHash(opContext(ctx, "replace_hash"), args.file, args.old_hash, args.new_content, {
        range: args.range === null || args.range === undefined ? null : parseRange(args.range),
        dryRun: args.dry_run,
        recovery: args.recovery,
        allowParseErrors: args.allow_parse_errors,
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
  handler: (ctx, args) => enveloped(ctx, "diff_generate", diffGenerate(opContext(ctx, "diff_generate"), args.file, args.old_content, args.new_content, args.context)),
});

export const diffApplyTool = defineTool({
  name: "diff_apply",
  toolset: "edit",
  title: "Apply a unified diff",
  description:
    "Applies a one-file unified diff. A hunk lands where the patch says or, when the file moved, where its lines match exactly once within fuzzy lines (placements, fuzzyPlacements); otherwise nothing is written (STALE_ANCHOR, AMBIGUOUS_ANCHOR). A --- /dev/null patch creates the file.",
  input: z
    .object({
      file,
      patch: z.string().min(1).describe("The unified diff."),
      dry_run: z.boolean().default(false),
      fuzzy: z.number().int().min(0).max(1000).default(3).describe("How far a hunk may slide (default 3 lines)."),
      allow_parse_errors: allowParseErrors,
      ...provenance,
    })
    .strict(),
  annotations: DESTRUCTIVE,
  handler: (ctx, args) =>
    enveloped(ctx, "diff_apply", diffApply(opContext(ctx, "diff_apply"), args.file, args.patch, { dryRun: args.dry_run, fuzzy: args.fuzzy, allowParseErrors: args.allow_parse_errors })),
});

export const changeSetsTool = defineTool({
  name: "changesets",
  toolset: "edit",
  title: "Recorded changeSets",
  description: "The changeSets (one per editing call) whose original bytes are kept for undo, newest first.",
  input: z.object({ limit: z.number().int().min(1).max(1000).default(20) }).strict(),
  annotations: READ_ONLY,
  handler: (ctx, args) => enveloped(ctx, "changesets", changeSets(args.limit)),
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
  handler: (ctx, args) => enveloped(ctx, "undo", undo(args.change_set_id ?? "last", { force: args.force, dryRun: args.dry_run })),
});

export const EDIT_TOOLS = [readManyTool, readHashTool, grepManyTool, replaceHashTool, diffGenerateTool, diffApplyTool, changeSetsTool, undoTool];
