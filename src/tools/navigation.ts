// The navigation tools (docs/tools.md): mast_project_skeleton, mast_exports, mast_signature and
// mast_dependencies. All but the skeleton are read plans: the registry refreshes the files they name just
// in time (docs/freshness.md).
import { projectPath } from "../base/paths.js";
import { withoutCommentLines } from "../lang/languages.js";
import { notFound } from "../query/targets.js";
import { declaringPaths, docSummary, fileDependencies, fileExports, projectSkeleton, symbolSignatures, type SignatureEntry } from "../query/navigation.js";
import { isIndexEmpty } from "../query/search.js";
import type { ToolContext } from "./context.js";
import { NOT_FOUND_NOTE, READ_ONLY, WRITTEN_SINCE_NOTE, defineTool } from "./define.js";
import { NOT_FOUND, READ_MARKS, open } from "./outputs.js";
import { MAX_PATH_LENGTH, globInput, nameInput, pathInput, z } from "./schema.js";

const DEFINED = "tools/navigation.ts";

/** A file_path argument as a project-relative path (an absolute path inside the project is accepted). */
const inProject = (ctx: ToolContext, path: string) => projectPath(path, ctx.config.project_root);

/** An overview names a file's first exports; a file of 400 (zod's schemas) is mast_exports' to list. */
const DEFAULT_MAX_EXPORTS = 20;
/** And its types' first public members: what a class is for, not all of it (jsoup's Element has 200; mast_signature gives each). */
const DEFAULT_MAX_MEMBERS = 20;

export const skeletonTool = defineTool({
  name: "mast_project_skeleton",
  source: { defined: DEFINED, answers: "query/navigation.ts" },
  title: "Project skeleton",
  description: "Each file's exported names and its classes' public members, no bodies: the project in one call.",
  details:
    "Every indexed file with the names it exports — names only, no signatures or bodies: an architectural overview in one call. " +
    "exports lists the file's exported declarations in source order (nested types as Outer.Inner) and the names it re-exports; members lists, by type name, the public methods and constructors of the types it exports (and of a type declared in another file that this file defines methods of), in source order, overloads once. A file that exports nothing is listed by its path alone. " +
    "Scope with directory (a subtree), max_depth (directory levels below it; 0 = only files directly in it) and file_pattern (glob); a scope that matches no indexed file answers scope_empty: true. Each file lists its first max_exports names (default " +
    `${DEFAULT_MAX_EXPORTS}) and its first max_members members (default ${DEFAULT_MAX_MEMBERS}), counting the rest in exports_truncated and members_truncated; a test file's members (its test cases) are only counted. ` +
    "Product files come first, test files after, each in tree order. At most limit files are listed, fewer when the answer cap is reached first; files_truncated counts the files left out, test_files_truncated how many of them are tests.",
  unlisted: ["max_depth", "max_exports", "max_members"],
  input: () =>
    z
      .object({
        directory: z.string().max(MAX_PATH_LENGTH).nullish().describe("Project-relative subtree to list (default: the whole project)."),
        max_depth: z.number().int().min(0).nullish().describe("Directory levels below `directory` to include (default: all)."),
        file_pattern: globInput().nullish().describe("Only files whose project-relative path matches this glob."),
        limit: z.number().int().min(1).max(10_000).default(500).describe("Maximum files listed; the rest is counted in files_truncated."),
        max_exports: z
          .number()
          .int()
          .min(0)
          .max(100_000)
          .default(DEFAULT_MAX_EXPORTS)
          .describe(`Names listed per file (default ${DEFAULT_MAX_EXPORTS}), in declaration order; the rest is counted in the file's exports_truncated (mast_exports lists them all).`),
        max_members: z
          .number()
          .int()
          .min(0)
          .max(100_000)
          .default(DEFAULT_MAX_MEMBERS)
          .describe(
            `Members (public methods, constructors) listed per file (default ${DEFAULT_MAX_MEMBERS}), in declaration order; the rest is counted in the file's members_truncated (0 lists none).`,
          ),
      })
      .strict(),
  output: open({
    files: z.array(
      open({
        file_path: z.string(),
        exports: z.array(z.string()).optional(),
        exports_truncated: z.number().int().optional(),
        members: z.record(z.string(), z.array(z.string())).optional(),
        members_truncated: z.number().int().optional(),
      }),
    ),
    files_truncated: z.number().int().optional(),
    test_files_truncated: z.number().int().optional(),
    scope_empty: z.literal(true).optional(),
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  handler: (ctx, args) => ctx.store().snapshot((db) => projectSkeleton(db, { ...args, directory: args.directory ? inProject(ctx, args.directory) : args.directory })),
});

export const exportsTool = defineTool({
  name: "mast_exports",
  source: { defined: DEFINED, answers: "query/navigation.ts" },
  title: "File exports",
  description: "What one file exports: each name with kind, signature, line and doc; re-exports with their source.",
  details: "What one file exports: each name with its kind, signature (no body), line and doc comment; re-exports say where they come from, and `export *` modules are listed in star_exports.",
  input: () => z.object({ file_path: pathInput().describe("Project-relative path of an indexed file.") }).strict(),
  output: open({
    file_path: z.string(),
    exports: z.array(open({ name: z.string(), kind: z.string(), signature: z.string().nullable(), line: z.number().int(), doc: z.string().nullable(), from: z.string().optional() })),
    star_exports: z.array(z.string()),
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  read: {
    first: (ctx, args) => [inProject(ctx, args.file_path)],
    rows: (ctx, args, db) => fileExports(db, inProject(ctx, args.file_path)),
    answer: (_ctx, _args, exports) => exports,
  },
});

/** Lines of a type's declaration a brief type_context keeps (full keeps 50): its head and first members; mast_signature of the type gives the rest. */
const BRIEF_TYPE_LINES = 12;

/**
 * A signature without what the query or its signature line already says: no `symbol` when it is
 * the name asked for, the doc's summary (no `doc` when there is none), no params or return type,
 * no comment lines in the declarations (between overloads, in a type's body), no empty type
 * context, a type's first BRIEF_TYPE_LINES lines, `truncated` only when it was cut.
 */
function briefSignature(entry: SignatureEntry, asked: string): Partial<SignatureEntry> & { file_path: string } {
  const { symbol, params: _params, return_type: _returns, type_context, signature, doc, ...rest } = entry;
  const types = type_context.map((t) => {
    const lines = withoutCommentLines(t.signature, t.file_path).split("\n");
    const cut = t.truncated || lines.length > BRIEF_TYPE_LINES;
    return { name: t.name, signature: lines.slice(0, BRIEF_TYPE_LINES).join("\n"), file_path: t.file_path, line: t.line, ...(cut ? { truncated: true as const } : {}) };
  });
  return {
    ...(symbol === asked ? {} : { symbol }),
    ...rest,
    signature: signature === null ? null : withoutCommentLines(signature, entry.file_path),
    ...(doc === null ? {} : { doc: docSummary(doc) }),
    ...(types.length > 0 ? { type_context: types } : {}),
  };
}

export const signatureTool = defineTool({
  name: "mast_signature",
  source: { defined: DEFINED, answers: "query/navigation.ts" },
  title: "Symbol signature",
  description: "A symbol's declaration, doc, parameters and return type, with the project types they name (Type.member).",
  details:
    "A symbol's declaration, doc comment, parameters and return type, plus the declarations of the project types they name (one level deep, 50 lines each). " +
    "With detail brief (the default) symbol is left out when it is the name asked for, doc is the doc comment's summary (its first sentence, without comment markers; absent when there is none), params/return_type are left out, comment lines are left out of the declarations, and each type in type_context is its first 12 lines (truncated: true when cut); detail full gives all of it. " +
    "Methods are addressed as Class.method. Every match is returned (exported first, a source file's before a test's, an example's or a document's, then by path); pass file_path to pick one — a barrel file is followed to the declaration." +
    NOT_FOUND_NOTE +
    WRITTEN_SINCE_NOTE,
  unlisted: ["limit"],
  input: () =>
    z
      .object({
        symbol: nameInput().describe("Symbol name, e.g. handleLogin or AuthService.validate."),
        file_path: pathInput().nullish().describe("Only the symbol in (or re-exported by) this file."),
        limit: z.number().int().min(1).max(500).default(50).describe("Maximum matches; the rest is counted in results_truncated."),
        detail: z
          .enum(["brief", "full"])
          .default("brief")
          .describe(
            "brief (default): the doc comment's first sentence, no params/return_type (the signature states them), no empty type_context; full: the doc comment as written, params and return_type.",
          ),
      })
      .strict(),
  output: open({
    results: z.array(open({ kind: z.string(), file_path: z.string(), line: z.number().int(), is_exported: z.boolean(), signature: z.string().nullable(), doc: z.string().nullable().optional() })),
    results_truncated: z.number().int().optional(),
    ...NOT_FOUND,
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  read: {
    // The files declaring the matches (or the one named) are brought up to date first; the results come from them.
    first: (ctx, args) => (args.file_path ? [inProject(ctx, args.file_path)] : declaringPaths(ctx.store().db, args.symbol, args.limit)),
    rows: (ctx, args, db) => symbolSignatures(db, args.symbol, args.file_path ? inProject(ctx, args.file_path) : null, args.limit),
    answer: (ctx, args, response, busy) => {
      const db = ctx.store().db;
      // A result from a file whose refresh lost says so itself (the registry flags the answer as a whole).
      const results = response.results.map((entry) => {
        const r = args.detail === "full" ? entry : briefSignature(entry, args.symbol);
        return busy.has(r.file_path) ? { ...r, file_busy_returning_stale_cache: true as const } : r;
      });
      return {
        ...response,
        results,
        ...(results.length === 0 && busy.size === 0 ? notFound(db, args.symbol) : {}),
        ...(results.length === 0 && isIndexEmpty(db) ? { index_empty: true as const } : {}),
      };
    },
  },
});

export const dependenciesTool = defineTool({
  name: "mast_dependencies",
  source: { defined: DEFINED, answers: "query/navigation.ts" },
  title: "File dependencies",
  description: "What one file imports: each module, the names taken, its kind and the project file it resolves to.",
  details:
    "What one file imports and from where: each module with the names taken, its kind (import, export_from, export_star, require, dynamic_import), line, whether it is external, and the project file it resolves to.",
  input: () => z.object({ file_path: pathInput().describe("Project-relative path of an indexed file.") }).strict(),
  output: open({
    file_path: z.string(),
    imports: z.array(open({ module: z.string(), symbols: z.array(z.string()), kind: z.string(), line: z.number().int(), is_external: z.boolean(), resolved_path: z.string().optional() })),
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  read: {
    first: (ctx, args) => [inProject(ctx, args.file_path)],
    rows: (ctx, args, db) => fileDependencies(db, inProject(ctx, args.file_path)),
    answer: (_ctx, _args, imports) => imports,
  },
});
