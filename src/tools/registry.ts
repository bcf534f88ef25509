// The one tool registry: each tool is a name, a description, a zod input schema, annotations
// and a handler over a ToolContext. The MCP server, `mast query`, the CLI help and
// docs/tools.md are all derived from this list.
import { MastError } from "../base/errors.js";
import type { ToolContext } from "./context.js";
import type { ToolDefinition } from "./define.js";
import { EDIT_TOOLS } from "./edit.js";
import { callersTool, implementorsTool, renameImpactTool } from "./graph.js";
import { dependenciesTool, exportsTool, signatureTool, skeletonTool } from "./navigation.js";
import { reindexTool } from "./reindex.js";
import { searchTool } from "./search.js";
import { statusTool } from "./status.js";

export const TOOLS: readonly ToolDefinition[] = [
  searchTool,
  skeletonTool,
  exportsTool,
  signatureTool,
  callersTool,
  dependenciesTool,
  implementorsTool,
  renameImpactTool,
  reindexTool,
  statusTool,
  ...EDIT_TOOLS,
] as unknown as ToolDefinition[];

export function findTool(name: string): ToolDefinition {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) {
    throw new MastError("INVALID_ARGUMENT", `unknown tool ${JSON.stringify(name)}`, { hint: `Registered tools: ${TOOLS.map((t) => t.name).join(", ")}` });
  }
  return tool;
}

/** Validates raw arguments against the tool's schema and runs it; bad arguments are INVALID_ARGUMENT with the zod issues. */
export async function callTool(ctx: ToolContext, name: string, rawArgs: unknown): Promise<unknown> {
  const tool = findTool(name);
  const parsed = tool.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(arguments)"}: ${i.message}`).join("; ");
    throw new MastError("INVALID_ARGUMENT", `invalid arguments for ${name}: ${issues}`, { hint: "See docs/tools.md for each tool's input." });
  }
  return tool.handler(ctx, parsed.data);
}
