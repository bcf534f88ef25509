// mast_search: ranked chunks for a query — BM25 fused with the declaration-exact ranker (spec §7.3, §9).
import { searchChunks } from "../query/search.js";
import { READ_ONLY, defineTool } from "./define.js";
import { MAX_NAME_LENGTH, globInput, nameInput, z } from "./schema.js";

export const searchTool = defineTool({
  name: "mast_search",
  title: "Search code",
  description: "Ranked chunks (function, method, class outline, doc section) for a name, part of one, or words; not whole files. A one-name query puts that name's declarations first. content starts at content_start_line.",
  details:
    "Search the index and get back chunks (a function, a method, a class outline, a doc section), not whole files. " +
    "start_line..end_line is the declaration; content begins at content_start_line (its doc comment and context lines come first). " +
    "Ranks by BM25 over chunk text fused with exact symbol-name matches. Scope with file_pattern (glob: * stays in one " +
    "path segment, ** crosses them) and language; narrow with chunk_type and only_exported. Any text is searched literally. " +
    "An empty result carries `suggestions` to re-query with (only close names), and `scope_empty: true` when file_pattern or language matches no indexed file; a result whose file changed since indexing carries `stale: true`.",
  input: z
    .object({
      query: nameInput().describe(`Text to search for (at most ${MAX_NAME_LENGTH} characters): a symbol name, part of an identifier, or words from comments.`),
      limit: z.number().int().min(1).max(100).default(10).describe("Maximum results (default 10)."),
      language: z.enum(["typescript", "javascript", "markdown"]).nullish().describe("Only chunks of files in this language."),
      file_pattern: globInput().nullish().describe("Only files whose project-relative path matches this glob."),
      chunk_type: z
        .enum(["function", "method", "class_shell", "interface", "type", "export", "block", "doc"])
        .nullish()
        .describe("Only chunks of this type (applied after ranking)."),
      only_exported: z.boolean().default(false).describe("Only exported declarations (the public API surface)."),
    })
    .strict(),
  annotations: READ_ONLY,
  readsIndex: true,
  handler: (ctx, args) =>
    ctx.store().snapshot((db) =>
      searchChunks(db, args, {
        projectRoot: ctx.config.project_root,
        rrfK: ctx.config.rrf_k,
        declarationExactRanker: ctx.config.declaration_exact_ranker,
      }),
    ),
});
