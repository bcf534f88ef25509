// mast_search: ranked chunks for a query — BM25 fused with the declaration-exact ranker (docs/search.md)
// — shaped for a context window: each content cut to max_chars at a line end, and `fields` for
// a compact answer.
import { LANGUAGE_NAMES } from "../lang/languages.js";
import { searchChunks } from "../query/search.js";
import type { SearchResponse, SearchResult } from "../query/search-types.js";
import { CHUNK_TYPES } from "../syntax/types.js";
import { READ_ONLY, defineTool } from "./define.js";
import { READ_MARKS, open } from "./outputs.js";
import { MAX_NAME_LENGTH, globInput, nameInput, z } from "./schema.js";
import { withNote } from "./telemetry.js";

/** A result's content is cut to this many characters unless max_chars says otherwise: ten results stay near 8 KB. */
export const DEFAULT_MAX_CHARS = 400;
const MAX_CONTENT_CHARS = 100_000;
const RESULT_FIELDS = [
  "file_path",
  "start_line",
  "end_line",
  "content_start_line",
  "content",
  "chunk_type",
  "symbol_name",
  "parent_symbol",
  "is_exported",
  "is_test",
  "match_score",
  "rank",
  "match_snippet",
  "related",
  "stale",
] as const satisfies ReadonlyArray<keyof SearchResult>;

type ShapedResult = Partial<SearchResult> & { content_truncated?: true; content_end_line?: number };

/** Content cut to `max` characters at the last line end inside the budget (mid-line only when the first line is longer). */
function cutContent(r: SearchResult, max: number): ShapedResult {
  if (r.content.length <= max) return r;
  const cut = max === 0 ? 0 : r.content.lastIndexOf("\n", max) > 0 ? r.content.lastIndexOf("\n", max) : max;
  const content = r.content.slice(0, cut);
  const lines = content === "" ? 0 : content.split("\n").length;
  return { ...r, content, content_truncated: true, content_end_line: r.content_start_line + lines - 1 };
}

function shape(full: SearchResponse, max: number, fields: readonly string[] | null | undefined): SearchResponse {
  const { declex, ...response } = full;
  const results = response.results.map((r) => {
    const cut = cutContent(r, max);
    if (!fields) return cut;
    const keep = new Set<string>(fields);
    // The cut markers travel with the content they describe.
    if (keep.has("content")) keep.add("content_truncated").add("content_end_line");
    return Object.fromEntries(Object.entries(cut).filter(([k]) => keep.has(k)));
  });
  // What telemetry records beside the answer: every result's file and name (whatever `fields` kept), and ranker D's fire.
  return withNote(
    { ...response, results: results as SearchResult[] },
    {
      files: response.results.map((r) => r.file_path),
      results: response.results.map((r) => ({ file_path: r.file_path, symbol_name: r.symbol_name })),
      ...(declex ? { declex } : {}),
    },
  );
}

export const searchTool = defineTool({
  name: "mast_search",
  source: { defined: "tools/search.ts", answers: "query/search.ts" },
  title: "Search code",
  description: "Ranked code chunks (function, method, class outline, doc section) for a name, part of one, or words.",
  details:
    "Search the index and get back chunks (a function, a method, a class outline, a doc section), not whole files. " +
    "start_line..end_line is the declaration; content begins at content_start_line (its doc comment and context lines come first). " +
    "Ranks by BM25 over chunk text fused with exact symbol-name matches; a nested function and a namespace's function are hits of their own (`outer.inner`, `Ns.f`). " +
    "A query of several words (a task: a bug report, a commit subject) is also matched by its words against names and identifiers (split on camelCase, snake_case and dots, weighted by how rare each is in the project) and against file paths (directories and file stems); its answer covers distinct files — each file's best chunk, a second chunk of a file only when no other file is left — and names the next files it reached in more_files (path, line, symbol; first those next to a top hit — a caller's, a callee's or an importer's file — with related_to naming the hit's file); when its every word is common in the project and names no file, the answer says low_confidence: true. " +
    "The source ranks before tests, documents and examples unless the query names them (test, spec, docs, example, …) or a file. Scope with file_pattern (glob: * stays in one " +
    "path segment, ** crosses them) and language; narrow with chunk_type and only_exported. " +
    "Text matches by word, any case: a word of 3+ characters also matches the words it begins (`valid` finds validate), a word inside a camelCase or snake_case identifier counts (`password` finds hashPassword), and a term with punctuation needs all its words (`res.json`); FTS syntax is literal; a query with no word in it (`=>`) matches nothing (grep_many finds punctuation). " +
    "Each content is cut to max_chars (default 400) at a line end, marked content_truncated with its content_end_line; fields picks the keys of each result for a compact answer. " +
    "An empty result carries `suggestions` to re-query with (only close names), and `scope_empty: true` when file_pattern or language matches no indexed file; a result whose file changed since indexing carries `stale: true`.",
  unlisted: ["language", "max_chars", "fields"],
  input: () =>
    z
      .object({
        query: nameInput().describe(`Text to search for (at most ${MAX_NAME_LENGTH} characters): a symbol name, part of an identifier, or words from comments.`),
        limit: z.number().int().min(1).max(100).default(10).describe("Maximum results (default 10)."),
        language: z.enum(LANGUAGE_NAMES).nullish().describe("Only chunks of files in this language."),
        file_pattern: globInput().nullish().describe("Only files whose project-relative path matches this glob."),
        chunk_type: z.enum(CHUNK_TYPES).nullish().describe("Only chunks of this type (applied after ranking)."),
        only_exported: z.boolean().default(false).describe("Only exported declarations (the public API surface)."),
        max_chars: z
          .number()
          .int()
          .min(0)
          .max(MAX_CONTENT_CHARS)
          .default(DEFAULT_MAX_CHARS)
          .describe(`Characters of content per result (default ${DEFAULT_MAX_CHARS}; 0 for none): a longer content is cut at a line end, with content_truncated and content_end_line.`),
        fields: z.array(z.enum(RESULT_FIELDS)).min(1).max(RESULT_FIELDS.length).nullish().describe('Only these fields of each result, e.g. ["file_path", "start_line", "symbol_name"] (default: all).'),
      })
      .strict(),
  output: open({
    results: z.array(
      open({
        file_path: z.string().optional(),
        start_line: z.number().int().optional(),
        end_line: z.number().int().optional(),
        content_start_line: z.number().int().optional(),
        content: z.string().optional(),
        chunk_type: z.string().optional(),
        symbol_name: z.string().nullable().optional(),
        is_exported: z.boolean().optional(),
        rank: z.number().int().optional(),
      }),
    ),
    suggestions: z.array(open({ symbol: z.string(), file_path: z.string(), reason: z.string() })).optional(),
    low_confidence: z.literal(true).optional(),
    more_files: z.array(open({ file_path: z.string(), start_line: z.number().int(), symbol_name: z.string().nullable(), related_to: z.string().optional() })).optional(),
    scope_empty: z.literal(true).optional(),
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  handler: async (ctx, args) => {
    return ctx.store().snapshot((db) =>
      shape(
        searchChunks(db, args, {
          projectRoot: ctx.config.project_root,
          rrfK: ctx.config.rrf_k,
          declarationExactRanker: ctx.config.declaration_exact_ranker,
        }),
        args.max_chars,
        args.fields,
      ),
    );
  },
});
