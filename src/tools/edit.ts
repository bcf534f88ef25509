// The `edit` toolset's hash-anchored reads and writes (hashpilot's read-many, read-hash,
// replace-hash, diff apply and undo); route_edit is route-edit.ts, intent intent.ts, verify_changes
// verify.ts. Each answers with the apiVersion 1 envelope (command = the tool name); each call that
// writes is its own changeSet (edit-call.ts). Writing tools are annotated destructive, the rest read-only.
import { parseRange } from "../edit/anchor.js";
import { MAX_READ_FILES } from "../edit/grep.js";
import { DESTRUCTIVE, PROVENANCE_KEYS, READ_ONLY, defineTool } from "./define.js";
import { operations, runEditOperation } from "./edit-call.js";
import { content, file, fileHashInput, hash, provenance } from "./edit-inputs.js";
import { ENVELOPE_OUTPUT } from "./outputs.js";
import { z } from "./schema.js";

const DEFINED = "tools/edit.ts";

export const readManyTool = defineTool({
  name: "read_many",
  toolset: "edit",
  source: { defined: DEFINED, answers: "edit/operations.ts" },
  cli: [{ name: "read-many", summary: "Read files with their content hashes.", positionals: ["...files"] }],
  title: "Read files with hashes",
  description: "Whole files with their 12-character hashes (replace_hash's whole-file anchor, later expected_file_hash).",
  details:
    "Reads files inside the project whole, each with its 12-character content hash " +
    "(the anchor for a whole-file replace_hash, and the expected_file_hash of later edits) and line count; " +
    "a file that cannot be read carries its error (PATH_DENIED outside the project, READ_FAILED for FIFOs and devices). " +
    "Files are read in order up to the answer cap: the file that crosses it is cut at a line end " +
    "(truncated: true, its content lines 1..contentEndLine; hash and lines are still the whole file's) and the files after it are not read — " +
    "a RESULT_TRUNCATED warning counts them (omitted) and lists them (files) to read in another call.",
  input: () => z.object({ files: z.array(file).min(1).max(MAX_READ_FILES).describe(`Files to read (at most ${MAX_READ_FILES}).`) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) => runEditOperation(ctx, "read_many", { operation: "read-many", route: "read", files: args.files }, async (oc) => (await operations()).readMany(oc, args.files)),
});

export const readHashTool = defineTool({
  name: "read_hash",
  toolset: "edit",
  source: { defined: DEFINED, answers: "edit/operations.ts" },
  cli: [{ name: "read-hash", summary: "Read one line with its hash and the hash of its context.", positionals: ["file", "line"], short: { c: "context" } }],
  title: "Read a line with its hashes",
  description: "A line's lineHash, its context's contextHash and the fileHash: the anchors replace_hash takes.",
  details:
    "One line with its lineHash, the contextHash of the lines around it (contextRange) and the file's fileHash: " +
    "pass lineHash or contextHash with its range to replace_hash, with fileHash as expected_file_hash. " +
    "ANCHOR_NOT_UNIQUE warns when the line's text occurs elsewhere in the file. Ranges are 1-based and inclusive.",
  input: () =>
    z
      .object({
        file,
        line: z.number().int().min(1).describe("1-based line number."),
        context: z.number().int().min(0).default(3).describe("Lines of context on each side (default 3)."),
      })
      .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) =>
    runEditOperation(ctx, "read_hash", { operation: "read-hash", route: "read", files: [args.file] }, async (oc) => (await operations()).readHash(oc, args.file, args.line, args.context)),
});

export const replaceHashTool = defineTool({
  name: "replace_hash",
  toolset: "edit",
  source: { defined: DEFINED, answers: "edit/operations.ts" },
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
  description: 'Replaces the lines old_hash names (range "a:b", or the whole file), only where the anchor is certain.',
  details:
    "Replaces the lines an anchor hash names with new content. " +
    'With range ("10:15", inclusive; "7" for one line) the hash is of those lines. ' +
    "An anchor whose text occurs more than once (`}`, a blank line) is applied only where something pins it: " +
    "expected_file_hash still matching (the file is as read), or context_hash/context_range found in one place; " +
    "otherwise AMBIGUOUS_ANCHOR lists the candidates. " +
    "Once expected_file_hash no longer matches (the file changed since the read), " +
    "the anchor's own hash is no proof of its lines (12 characters can collide): only context_hash/context_range places it, else STALE_ANCHOR. " +
    "A unique anchor whose lines moved is relocated (stale: true, ANCHOR_RELOCATED); one that is gone is STALE_ANCHOR. " +
    "Without range the hash is the whole file's and is never relocated (a line's hash without its range is STALE_ANCHOR naming the line). " +
    "Answers newHash, newRange and fileHash, the anchors of a next edit.",
  unlisted: ["recovery", ...PROVENANCE_KEYS],
  input: () =>
    z
      .object({
        file,
        old_hash: hash.describe("The 12-character hash read_hash or read_many reported."),
        new_content: content.describe(
          "The replacement lines. One trailing line break ends the last line, it does not add an empty one: " + '"a\\n" and "a" are the same single line; "a\\n\\n" is "a" and an empty line.',
        ),
        range: z.string().max(40).nullish().describe('"start:end" (1-based, inclusive) or "line"; omit to anchor the whole file.'),
        expected_file_hash: fileHashInput,
        context_hash: hash.nullish().describe("read_hash's contextHash, with context_range: pins an anchor whose own text is not unique."),
        context_range: z.string().max(40).nullish().describe('read_hash\'s contextRange ("start:end"), with context_hash.'),
        dry_run: z.boolean().default(false).describe("Plan and preview the diff without writing."),
        recovery: z.boolean().default(true).describe("Relocate a moved range anchor (false: any mismatch is STALE_ANCHOR)."),
        ...provenance,
      })
      .strict()
      .refine((a) => (a.context_hash == null) === (a.context_range == null), { message: "context_hash and context_range go together" }),
  output: ENVELOPE_OUTPUT,
  annotations: DESTRUCTIVE,
  handler: (ctx, args) =>
    runEditOperation(ctx, "replace_hash", { operation: "replace-hash", route: "hash", files: [args.file], ...args }, async (oc) =>
      (await operations()).replaceHash(oc, args.file, args.old_hash, args.new_content, {
        range: args.range == null ? null : parseRange(args.range),
        dryRun: args.dry_run,
        recovery: args.recovery,
        expectedFileHash: args.expected_file_hash ?? null,
        context: args.context_hash == null || args.context_range == null ? null : { hash: args.context_hash, range: parseRange(args.context_range) },
      }),
    ),
});

export const diffApplyTool = defineTool({
  name: "diff_apply",
  toolset: "edit",
  source: { defined: DEFINED, answers: "edit/operations.ts" },
  cli: [
    {
      name: "diff apply",
      summary: "Apply a one-file unified diff; a hunk that moved goes where its lines are when they are in one place " + "(within --fuzzy lines if given), or the patch is refused.",
      positionals: ["file"],
      stdin: "patch",
      flags: { "file-hash": "expected_file_hash" },
      short: { f: "fuzzy" },
    },
  ],
  title: "Apply a unified diff",
  description: "Applies a one-file unified diff where the patch says (at expected_file_hash) or where its lines are unique.",
  details:
    "Applies a one-file unified diff. " +
    "While the file has expected_file_hash (it is as the patch was made against), each hunk goes exactly where the patch says; " +
    "otherwise where its lines are if they are in exactly one place (placements; fuzzyPlacements for hunks that slid). " +
    "Anything else writes nothing: STALE_ANCHOR when the lines are gone, " +
    "AMBIGUOUS_ANCHOR when they are in several places or a hunk has no context to place it by. " +
    "`\\ No newline at end of file` markers must fit the file. A --- /dev/null patch creates the file. " +
    "Answers placements, newRanges and fileHash (the file itself only with include_source).",
  unlisted: ["include_source", "fuzzy", ...PROVENANCE_KEYS],
  input: () =>
    z
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
    runEditOperation(ctx, "diff_apply", { operation: "diff apply", route: "diff", files: [args.file], ...args }, async (oc) =>
      (await operations()).diffApply(oc, args.file, args.patch, {
        dryRun: args.dry_run,
        includeSource: args.include_source,
        fuzzy: args.fuzzy ?? null,
        expectedFileHash: args.expected_file_hash ?? null,
      }),
    ),
});

export const undoTool = defineTool({
  name: "undo",
  toolset: "edit",
  source: { defined: DEFINED, answers: "edit/operations.ts" },
  cli: [
    {
      name: "undo",
      summary: "Restore the files of a changeSet as they were before it (files it created are deleted).",
      positionals: ["change_set_id"],
    },
  ],
  title: "Undo a changeSet",
  description: "Restores a changeSet's files (change_set_id, or last: true); a file changed since needs force.",
  details:
    "Puts every file of one of this project's changeSets (change_set_id, or last: true for the newest not yet undone) back as it was before it; " +
    "files it created are deleted. " +
    "Every path passes the project boundary again (PATH_DENIED for one that left it or became a symlink). " +
    "A file changed since is HASH_MISMATCH and nothing is restored, unless force.",
  input: () =>
    z
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
  handler: (ctx, args) =>
    runEditOperation(ctx, "undo", { operation: "undo", route: "undo", files: [] }, async (oc) =>
      (await operations()).undo(oc, args.change_set_id ?? "last", { force: args.force, dryRun: args.dry_run }),
    ),
});
