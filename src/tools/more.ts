// The `more` toolset: hashpilot's searches and listings beside its edits — grep across files,
// declarations by name, a file's declarations and the languages with AST edits, unified diffs
// generated, and the recorded changeSets. Each answers with the apiVersion 1 envelope; all read only.
import { DEFAULT_GREP_TIMEOUT_MS, MAX_PATTERN_LENGTH } from "../edit/grep.js";
import { READ_ONLY, defineTool } from "./define.js";
import { ast, editConfig, opContext, operations, reportEnvelope, runEditOperation } from "./edit-call.js";
import { content, file } from "./edit-inputs.js";
import { ENVELOPE_OUTPUT } from "./outputs.js";
import { globInput, nameInput, z } from "./schema.js";

const DEFINED = "tools/more.ts";

export const grepManyTool = defineTool({
  name: "grep_many",
  toolset: "more",
  source: { defined: DEFINED, answers: "edit/operations.ts" },
  cli: [
    {
      name: "grep-many",
      summary: "Search a regular expression across files and directories.",
      positionals: ["pattern", "...paths"],
      short: { i: "ignore_case" },
      flags: { timeout: "timeout_ms" },
    },
  ],
  title: "Search files by regular expression",
  description:
    "Every line matching a JavaScript regular expression (POSIX bracket classes allowed) under the given files and directories inside the project, " +
    "with its 1-based line and column; the line is verbatim (a line over 4,096 characters is a slice around the match). " +
    "The search runs off the server's thread within a time budget (timedOut: what was found by then); " +
    "a pattern that backtracks catastrophically is stopped with REGEX_TIMEOUT. " +
    "Binary, unreadable, oversized and special files are skipped and counted.",
  input: () =>
    z
      .object({
        pattern: z.string().min(1).max(MAX_PATTERN_LENGTH).describe("Regular expression."),
        paths: z.array(file).min(1).max(100).describe("Files or directories to search."),
        ignore_case: z.boolean().default(false),
        file_pattern: globInput().nullish().describe("Only files whose path or name matches this glob."),
        max_results: z
          .number()
          .int()
          .min(1)
          .max(100_000)
          .default(1000)
          .describe("Stop after this many matches (truncated: true); " + "matches past the answer cap are left out too (truncated: true, and a RESULT_TRUNCATED warning counting them)."),
        timeout_ms: z.number().int().min(100).max(60_000).default(DEFAULT_GREP_TIMEOUT_MS).describe(`The search's time budget in ms (default ${DEFAULT_GREP_TIMEOUT_MS}).`),
      })
      .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) =>
    runEditOperation(ctx, "grep_many", { operation: "grep-many", route: "read", files: args.paths }, async (oc) =>
      (await operations()).grepMany(oc, args.pattern, args.paths, {
        ignoreCase: args.ignore_case,
        filePattern: args.file_pattern ?? null,
        maxResults: args.max_results,
        timeoutMs: args.timeout_ms,
      }),
    ),
});

export const diffGenerateTool = defineTool({
  name: "diff_generate",
  toolset: "more",
  source: { defined: DEFINED, answers: "edit/operations.ts" },
  cli: [
    {
      name: "diff generate",
      summary: "A unified diff between two contents (--raw prints the diff alone, not the envelope).",
      positionals: ["file", "old_content", "new_content"],
      content: ["old_content", "new_content"],
      short: { c: "context" },
    },
  ],
  title: "Unified diff of two contents",
  description:
    "A unified diff from old to new content, with headers naming the file; " + 'a missing final newline is a change (`\\ No newline at end of file`); "(no changes)" when they are the same.',
  input: () =>
    z
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
    runEditOperation(ctx, "diff_generate", { operation: "diff generate", route: "diff", files: [args.file] }, async (oc) =>
      (await operations()).diffGenerate(oc, args.file, args.old_content, args.new_content, args.context),
    ),
});

export const changeSetsTool = defineTool({
  name: "changesets",
  toolset: "more",
  source: { defined: DEFINED, answers: "edit/operations.ts" },
  cli: [{ name: "changesets", summary: "List recorded changeSets (one per editing invocation), newest first." }],
  title: "Recorded changeSets",
  description: "This project's changeSets (one per editing call) whose original bytes are kept for undo, newest first.",
  input: () => z.object({ limit: z.number().int().min(1).max(1000).default(20) }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) =>
    reportEnvelope(
      "changesets",
      operations().then((o) => o.changeSets(opContext(ctx, "changesets", editConfig(ctx)), args.limit)),
    ),
});

export const symbolLookupManyTool = defineTool({
  name: "symbol_lookup_many",
  toolset: "more",
  source: { defined: DEFINED, answers: "edit/operations.ts" },
  cli: [
    {
      name: "symbol-lookup-many",
      summary: "Where named declarations are, across files and directories.",
      positionals: ["...paths"],
      lists: ["names"],
      flags: { timeout: "timeout_ms" },
    },
  ],
  title: "Find declarations by name",
  description:
    "Where the named functions, classes, types and methods (Class.method, or the method's own name) are declared " +
    "in the TypeScript/JavaScript files under the given paths inside the project; " +
    "at most limit hits (RESULT_TRUNCATED counts the rest), within a time budget (SEARCH_TRUNCATED says the search stopped early).",
  input: () =>
    z
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
    runEditOperation(ctx, "symbol_lookup_many", { operation: "symbol-lookup-many", route: "read", files: args.paths }, async (oc) =>
      (await operations()).symbolLookupMany(oc, args.paths, args.names, { limit: args.limit, timeoutMs: args.timeout_ms }),
    ),
});

export const astCapabilitiesTool = defineTool({
  name: "ast_capabilities",
  toolset: "more",
  source: { defined: DEFINED, answers: "edit/ast.ts" },
  cli: [{ name: "ast capabilities", summary: "Languages with AST edits: extensions, operations and known limitations." }],
  title: "AST edit languages",
  description: "Each language with AST edits: its extensions, the operations it supports and their known limitations.",
  input: () => z.object({}).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: () =>
    reportEnvelope(
      "ast_capabilities",
      ast().then((a) => a.astCapabilities()),
    ),
});

export const astFindSymbolsTool = defineTool({
  name: "ast_find_symbols",
  toolset: "more",
  source: { defined: DEFINED, answers: "edit/ast.ts" },
  cli: [
    {
      name: "ast find-symbols",
      summary: "Every declaration in a file, with 1-based (startLine…) and 0-based (startRow…) coordinates.",
      positionals: ["file"],
    },
  ],
  title: "Declarations of a file",
  description:
    "Every declaration in a file (name, Owner.member, node type) with 1-based startLine/endLine/startColumn/endColumn (use these) " +
    "and 0-based startRow/endRow/startCol/endCol; truncated with SEARCH_TRUNCATED past the depth guard.",
  input: () => z.object({ file }).strict(),
  output: ENVELOPE_OUTPUT,
  annotations: READ_ONLY,
  handler: (ctx, args) => runEditOperation(ctx, "ast_find_symbols", { operation: "find-symbols", route: "ast", files: [args.file] }, async (oc) => (await ast()).astFindSymbols(oc, args.file)),
});
