// docs/tools.md, derived from the registry: each tool's name, title, toolset, description (what
// the MCP listing says), details, annotations and input schema (as JSON Schema, with every
// argument's description). A test fails when the committed file drifts from this.
import { TOOLS } from "./registry.js";
import { z } from "./schema.js";

export function renderToolsDoc(): string {
  const out = [
    "# Tools",
    "",
    "Generated from the tool registry (`src/tools/registry.ts`) by `npm run docs:tools`; do not edit by hand.",
    "Every tool is served by `mast serve` (MCP) and callable as `mast query <tool> '<json>' [path]`.",
    "",
  ];
  for (const tool of TOOLS) {
    const a = tool.annotations;
    const traits = [a.readOnlyHint ? "read-only" : "writes", a.destructiveHint ? "destructive" : null, a.idempotentHint ? "idempotent" : null].filter(Boolean).join(", ");
    out.push(`## \`${tool.name}\` — ${tool.title}`, "", `*${tool.toolset ?? "read"} toolset; ${traits}*`, "", tool.description, "", ...(tool.details ? [tool.details, ""] : []), "Input:", "", "```json");
    out.push(JSON.stringify(z.toJSONSchema(tool.input, { io: "input" }), null, 2), "```", "");
  }
  return out.join("\n");
}
