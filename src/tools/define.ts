// How a tool is declared: name, description, zod input schema, annotations and a handler over a
// ToolContext. Kept apart from the registry so tool modules can import it without a cycle.
import type { ToolContext } from "./context.js";
import type { z, ZodType } from "./schema.js";

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/**
 * `read`: mast's index tools; `edit`: hashpilot's reads with hashes, edits and undo; `more`: its
 * grep, diff generation, symbol lookup and changeSet history; `admin`: its telemetry,
 * provenance, configuration and route reports. All but `read` answer with the apiVersion 1
 * envelope.
 */
export type Toolset = "read" | "edit" | "more" | "admin";

/** What `mast serve` offers unless told otherwise (a listing under 8 KB: test/mcp/serve.test.ts). */
export const DEFAULT_TOOLSETS: readonly Toolset[] = ["read", "edit"];
export const TOOLSETS: readonly Toolset[] = ["read", "edit", "more", "admin"];

export interface ToolDefinition<S extends ZodType = ZodType, O = unknown> {
  readonly name: string;
  /** Absent means "read". */
  readonly toolset?: Toolset;
  readonly title: string;
  /** What the MCP listing says: what the tool answers and how to call it, in a few sentences. */
  readonly description: string;
  /** More of the answer's contract, for docs/tools.md and `mast query --help` (not in the MCP listing). */
  readonly details?: string;
  readonly input: S;
  readonly annotations: ToolAnnotations;
  /**
   * Answers from the index: a call heals an interrupted index run first, and its answer carries
   * `indexing` while a run is writing (tools/registry.ts).
   */
  readonly readsIndex?: true;
  handler(ctx: ToolContext, args: z.infer<S>): O | Promise<O>;
}

export function defineTool<S extends ZodType, O>(tool: ToolDefinition<S, O>): ToolDefinition<S, O> {
  return tool;
}

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Tools that change files on disk. */
export const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };


/** Said by every tool that looks a declaration up by name (signature, callers, implementors, rename impact). */
export const NOT_FOUND_NOTE = " A name no declaration has answers not_found: true with up to 5 did_you_mean names (another case first, then the nearest spellings).";
