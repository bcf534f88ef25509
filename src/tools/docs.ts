// docs/tools.md, derived from the registry: each tool's name, title, toolset, the module that
// defines it and the one that answers it, description (what the MCP listing says), details,
// annotations, input schema (as JSON Schema, with every argument's description, and the keys the
// compact listing leaves out) and output schema. A test fails when the committed file drifts from this.
import { TOOLS, outputSchema } from "./registry.js";
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
    out.push(
      `## \`${tool.name}\` — ${tool.title}`,
      "",
      `*${tool.toolset ?? "read"} toolset; ${traits}*`,
      "",
      `Defined in \`src/${tool.source.defined}\`; answered by \`src/${tool.source.answers}\`.`,
      "",
      tool.description,
      "",
      ...(tool.details ? [tool.details, ""] : []),
      "Input:",
      "",
      "```json",
    );
    out.push(JSON.stringify(z.toJSONSchema(tool.input, { io: "input" }), null, 2), "```", "");
    if (tool.unlisted?.length) out.push(`Left out of the compact listing (accepted all the same; \`mast serve --schemas full\` lists them): ${tool.unlisted.map((k) => `\`${k}\``).join(", ")}.`, "");
    // The answer's whole schema (the listing gives only the keys every answer has); objects are open.
    out.push("Output (`structuredContent`, and the same JSON as text):", "", "```json", JSON.stringify(outputSchema(tool)), "```", "");
    if (tool.stats)
      out.push("Over MCP the answer's `_stats` (docs/telemetry.md#the-_stats-of-an-answer: tokens returned against the full files, an estimate) ride in the result's `_meta`, not in the answer.", "");
  }
  return out.join("\n");
}
