// route_edit in the `edit` toolset (hashpilot `route-edit`, `batch` and `ast <operation>`): one
// structured edit by the safest route its file allows — AST, hash or diff, by the route policy —
// on one file or a batch. A file-scoped rename's cross-file uses are asked of the mast index here
// (the query layer's callers), the files they are in refreshed first.
import { dirname } from "node:path";
import type { CrossFileUses, RenamedDeclaration } from "../edit/ast.js";
import { ROUTED_OPERATIONS, chooseRoute } from "../edit/route.js";
import { errorMessage } from "../base/errors.js";
import { projectPath } from "../base/paths.js";
import { extensionInfo } from "../lang/languages.js";
import { callersOf, type Callers } from "../query/callers.js";
import type { ToolContext } from "./context.js";
import { DESTRUCTIVE, PROVENANCE_KEYS, defineTool, type CliCommand } from "./define.js";
import { ast, mergedPolicy, routed, runEditOperation } from "./edit-call.js";
import { content, file, fileHashInput, hash, provenance } from "./edit-inputs.js";
import { busyReason, freshRows } from "./fresh.js";
import { ENVELOPE_OUTPUT } from "./outputs.js";
import { z } from "./schema.js";

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
 * shares, in its directory). No index, none of the declaration in its file, rows another writer kept
 * from being refreshed, or an index that cannot be read (whatever the error: the rename is made by
 * now) is `unchecked` with the reason.
 */
async function crossFileUses(ctx: ToolContext, declaration: RenamedDeclaration): Promise<CrossFileUses> {
  const root = ctx.config.project_root;
  try {
    const path = projectPath(declaration.path, root);
    const callers = () =>
      callersOf(ctx.store().db, root, {
        symbol: declaration.name,
        filePath: path,
        transitive: false,
        potentialLimit: CROSS_FILE_POTENTIAL_LIMIT,
        omitNonCalls: true,
        omitImports: declaration.name.includes("."),
      });
    const { rows: answer, busy } = await freshRows(
      ctx,
      () => otherFileUses(callers(), path),
      (uses) => uses?.map((u) => u.path) ?? [],
    );
    if (busy.size > 0) return { unchecked: busyReason(busy) };
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
  for (const v of callers.verified) {
    if (v.file_path !== path) lines.set(`${v.file_path}:${v.line}`, { path: v.file_path, line: v.line, verified: true });
  }
  for (const m of callers.potential?.matches ?? []) {
    if (m.file_path !== path && visible(m.file_path)) lines.set(`${m.file_path}:${m.line}`, { path: m.file_path, line: m.line, verified: false });
  }
  return [...lines.values()];
}

/** route-edit's and batch's flags (the contract's AST-, hash- and diff-specific names). */
const ROUTE_FLAGS = {
  symbol: "symbol",
  "old-name": "symbol",
  "import-spec": "symbol",
  content: "content",
  "new-body": "content",
  "new-content": "content",
  "file-hash": "expected_file_hash",
};

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
    hidden: [
      "files",
      "serial",
      "old_hash",
      "range",
      "old_content",
      "expected_file_hash",
      "policy",
      ...["content", "new_name"].filter((k) => !positionals.includes(k)),
      ...(imports ? ["line"] : []),
      ...(operation === "rename-symbol" ? [] : ["yes"]),
    ],
  };
}

export const routeEditTool = defineTool({
  name: "route_edit",
  toolset: "edit",
  source: { defined: "tools/route-edit.ts", answers: "edit/route-edit.ts" },
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
    "One edit by the safest route its file allows (ast_capabilities): AST for TypeScript, JavaScript, Python, Go and Rust, " +
    "else the hash route (old_hash, content, range: replace_hash) or the diff route (old_content → content, found in exactly one place); " +
    "method forces a route, the route policy (config, or policy inline) may pick another, " +
    "and a route less safe than the operation's own carries ROUTE_FALLBACK. " +
    "AST edits refuse a file that does not parse before (allow_parse_errors waives that) or after. " +
    "rename-symbol is file-scoped and binding-aware: a variable, function, class, parameter or import is renamed with every use that refers to it " +
    "(shorthand properties keep their key: `{ a }` becomes `{ a: b }`; an import gets an alias); " +
    "a member (Owner.member, or a name only members have) with its accesses through `this`/`self`, the type itself, " +
    "or names annotated with or constructed as the type — " +
    "other accesses of the name are listed in unresolved (UNRESOLVED_REFERENCES), not changed; never inside strings or comments. " +
    "Uses the text cannot tie to a variable " +
    "(JavaScript: inside a `with` body, in the function of a direct `eval` that sees it, and the eval call) " +
    "are listed and refuse the rename (UNRESOLVED_REFERENCES) unless yes, which renames the rest and leaves them. " +
    "A name that binds more than one thing is AMBIGUOUS_SYMBOL with `line N (kind)` for each binding: pass line to pick one; " +
    "a new name the file already uses is refused. " +
    "A rename of what other files may name (a file-level declaration, a member) still renames this file only, " +
    "and asks the project's mast index about the rest: " +
    "CROSS_FILE_USES counts the lines in other files still naming the old name (total, verified calls among them, fileCount, " +
    "the first sites: verified calls, and lines naming it in files of its language that can see it — " +
    "exported, or in its package directory for Go) — rename across files with intent rename-exported-symbol; " +
    "CROSS_FILE_UNCHECKED when there is no index to ask. " +
    "replace-body replaces a function's or method's body with content, re-indented to the target's own indentation (braces optional). " +
    "insert-before/insert-after put content on lines of its own beside a declaration " +
    "(before: above its doc comments, attributes and decorators), at its indentation; " +
    "a name that is only a parameter, import or key is SYMBOL_NOT_FOUND naming what it is. " +
    "add-import and remove-import take the import spec as symbol — in ESM form for TypeScript and JavaScript " +
    "('{ a, b as c } from ./m', 'D from m', '* as ns from m', 'type { T } from ./t'; " +
    "written as require() in a CommonJS file, MODULE_SYSTEM_MISMATCH when it has no form there or the file's system is unsettled), " +
    "'from m import x' or 'import a.b as c' for Python, '\"fmt\"' or 'str \"strings\"' for Go, 'std::io::{Read, Write}' for Rust — " +
    "merged into an existing import of the module (a Go import block) instead of duplicated; an import already there changes nothing. " +
    "With files instead of file the edit runs on each (a batch): " +
    "their locks are taken up front (every entry LOCK_TIMEOUT with route null when one cannot be), in parallel unless serial; " +
    "results has one entry per file and summary counts succeeded, failed and conflicts " +
    "(stale anchors and locks: retryable after a re-read), total = succeeded + failed + conflicts; " +
    "a batch with any failure or conflict is an error whose details carry them.",
  unlisted: ["old_hash", "range", "old_content", "method", "policy", "serial", "include_source", "allow_parse_errors", "yes", ...PROVENANCE_KEYS],
  input: () =>
    z
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
        policy: z
          .string()
          .min(1)
          .max(64 * 1024)
          .nullish()
          .describe("Route policy JSON merged over the configured one."),
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
    const meta = { route, files, actor: args.actor, task_id: args.task_id, reason: args.reason, operation: args.operation };
    return runEditOperation(ctx, "route_edit", meta, async (oc) => {
      const { batchEdit, routeEdit } = await routed();
      return args.files ? batchEdit(oc, args.files, req, policy, args.serial) : routeEdit(oc, args.file!, req, policy);
    });
  },
});
