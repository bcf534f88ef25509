// The `structural` toolset: the structural index's five operations (resolve_symbol, find_callers,
// find_callees, get_function_boundary, get_coverage) as MCP tools, answered by
// structural/query.ts over the index `mast structural build` published under the context's
// structural root (default: the project's state dir) — or by the remote provider
// MANTIS_STRUCTURAL_INDEX_URL names. The answers are the contract's shapes, unchanged.
import { structuralLayout } from "../structural/locate.js";
import { DEFAULT_LIMIT, MAX_LIMIT, STRUCTURAL_ARGS, queryStructural, type StructuralArg, type StructuralOperation } from "../structural/query.js";
import type { ToolContext } from "./context.js";
import { READ_ONLY, defineTool } from "./define.js";
import { open } from "./outputs.js";
import { z } from "./schema.js";

const DEFINED = "tools/structural.ts";

const COVERAGE = open({ partition_status: z.enum(["complete", "partial", "empty", "failed"]) });
const HINT = " Hints only: union them with a text search (grep) — partition_status says how much was indexed; only `complete` at semantic precision is strong.";
const ARG_SCHEMAS: Record<StructuralArg, () => z.ZodTypeAny> = {
  string: () => z.string().min(1),
  "string?": () => z.string().min(1).optional(),
  line: () => z.number().int().min(1),
  limit: () => z.number().int().min(1).max(MAX_LIMIT).optional().describe(`results per page (default ${DEFAULT_LIMIT})`),
  offset: () => z.number().int().min(0).optional().describe("results to skip (default 0)"),
};

/** An operation's input schema, from its arguments as structural/query.ts lists them. */
const inputOf = (op: StructuralOperation) => () => z.object(Object.fromEntries(Object.entries(STRUCTURAL_ARGS[op]).map(([name, arg]) => [name, ARG_SCHEMAS[arg]()]))).strict();

const answer = (ctx: ToolContext, op: string, args: Record<string, unknown>) => queryStructural(structuralLayout(ctx.structuralRoot ?? ctx.config.state_dir), op, args);

export const resolveSymbolTool = defineTool({
  name: "resolve_symbol",
  toolset: "structural",
  source: { defined: DEFINED, answers: "structural/query.ts" },
  title: "Resolve a symbol (structural index)",
  description: `Every declaration of a name in the structural index (name or Owner.member; narrow by language, file, namespace) with its symbol_id, span, precision and backend; ambiguous when more than one — pick one before find_callers/find_callees.${HINT}`,
  details: "Run `mast structural build` first. Results are in path order; total counts all matches, has_more says a page was cut.",
  input: inputOf("resolve_symbol"),
  output: open({ results: z.array(open({ symbol_id: z.string(), precision: z.string(), backend: z.string() })), total: z.number().int(), ambiguous: z.boolean(), coverage: COVERAGE }),
  annotations: READ_ONLY,
  handler: (ctx, args) => answer(ctx, "resolve_symbol", args),
});

const edgesOutput = open({
  results: z.array(open({ edge_kind: z.enum(["direct", "indirect", "virtual", "macro", "unresolved"]), precision: z.string(), backend: z.string() })),
  total: z.number().int(),
  has_more: z.boolean(),
  coverage: COVERAGE,
});

/** find_callers and find_callees: one shape, one direction each. */
const edgesTool = ({ name, title, description }: { name: "find_callers" | "find_callees"; title: string; description: string }) =>
  defineTool({
    name,
    toolset: "structural",
    source: { defined: DEFINED, answers: "structural/query.ts" },
    title,
    description,
    input: inputOf(name),
    output: edgesOutput,
    annotations: READ_ONLY,
    handler: (ctx, args) => answer(ctx, name, args),
  });

export const findCallersTool = edgesTool({
  name: "find_callers",
  title: "Find callers (structural index)",
  description: `The call sites of a symbol_id (from resolve_symbol), paginated; each with caller, file, line, edge_kind (direct, indirect, virtual, macro, unresolved — never merged), precision and backend. Calls of the name no symbol was resolved for follow as unresolved.${HINT}`,
});
export const findCalleesTool = edgesTool({
  name: "find_callees",
  title: "Find callees (structural index)",
  description: `The calls made inside a symbol_id, paginated, in the shape find_callers answers.${HINT}`,
});

export const functionBoundaryTool = defineTool({
  name: "get_function_boundary",
  toolset: "structural",
  source: { defined: DEFINED, answers: "structural/query.ts" },
  title: "Function boundary (structural index)",
  description: "The innermost function or method holding file:line — symbol_id, start_line, end_line, signature, precision, backend (null fields when none does) — to read just that span.",
  input: inputOf("get_function_boundary"),
  output: open({ symbol_id: z.string().nullable(), start_line: z.number().int().nullable(), end_line: z.number().int().nullable(), coverage: COVERAGE }),
  annotations: READ_ONLY,
  handler: (ctx, args) => answer(ctx, "get_function_boundary", args),
});

export const coverageTool = defineTool({
  name: "get_coverage",
  toolset: "structural",
  source: { defined: DEFINED, answers: "structural/query.ts" },
  title: "Structural coverage",
  description:
    "How much of the project (or one file, or one language) the structural index covers: total_files, indexed_files, failed, deferred, partition_status, backends_used, the snapshot id and whether it is stale.",
  input: inputOf("get_coverage"),
  output: open({
    total_files: z.number().int(),
    indexed_files: z.number().int(),
    failed: z.number().int(),
    deferred: z.number().int(),
    partition_status: z.enum(["complete", "partial", "empty", "failed"]),
    backends_used: z.array(z.string()),
  }),
  annotations: READ_ONLY,
  handler: (ctx, args) => answer(ctx, "get_coverage", args),
});

export const STRUCTURAL_TOOLS = [resolveSymbolTool, findCallersTool, findCalleesTool, functionBoundaryTool, coverageTool];
