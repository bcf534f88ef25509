// `mast graph`: the call graph around a symbol (the mast_graph tool's answer) as Mermaid, DOT, or
// SVG through Graphviz (cli/graph.ts).
import { existsSync } from "node:fs";
import { MastError } from "../../base/errors.js";
import { FLAGS } from "../flags.js";
import type { CommandSpec } from "../program.js";
import { loadConfig, print, statePathsOf, type CommonOptions } from "./common.js";

interface GraphOptions extends CommonOptions {
  format: string;
  depth: string;
  direction: string;
  maxNodes: string;
  file?: string;
}

export const graphCommand: CommandSpec<GraphOptions> = {
  name: "graph",
  description: "draw the call graph around a symbol: Mermaid, DOT, or SVG through Graphviz's `dot` (verified edges solid, potential dashed)",
  args: ["<symbol>", "[path]"],
  flags: [
    FLAGS.stateDir,
    { name: "format", value: "<format>", help: "mermaid, dot or svg", choices: ["mermaid", "dot", "svg"], default: "mermaid" },
    { name: "depth", value: "<n>", help: "levels of verified callers and callees (1-5)", default: "2" },
    { name: "direction", value: "<direction>", help: "which way to follow calls", choices: ["callers", "callees", "both"], default: "both" },
    { name: "max-nodes", value: "<n>", help: "nodes drawn at most", default: "40" },
    { name: "file", value: "<file>", help: "the declaration's file, when several declare the name" },
    FLAGS.json,
  ],
  run: async ([symbol, path], opts) => {
    const { callTool } = await import("../../tools/registry.js");
    const { createToolContext } = await import("../../tools/context.js");
    const config = loadConfig(path, { stateDir: opts.stateDir });
    if (!existsSync((await statePathsOf(config)).graphDb)) {
      throw new MastError("NOT_INDEXED", `no index found at ${config.state_dir}; run \`mast init\` / \`mast index\` first`);
    }
    const { renderSvg } = await import("../graph.js");
    const ctx = createToolContext(config);
    try {
      const args = {
        symbol,
        depth: Number(opts.depth),
        direction: opts.direction,
        max_nodes: Number(opts.maxNodes),
        format: opts.format === "mermaid" ? "mermaid" : "dot",
        ...(opts.file ? { file_path: opts.file } : {}),
      };
      const answer = (await callTool(ctx, "mast_graph", args)) as { graph: string | null; not_found?: true; did_you_mean?: string[] };
      if (opts.json) return print(true, answer, () => "");
      if (answer.graph === null) {
        throw new MastError("SYMBOL_NOT_FOUND", `no declaration of ${JSON.stringify(symbol)} in the index`, {
          hint: answer.did_you_mean?.length ? `Did you mean ${answer.did_you_mean.join(", ")}?` : "Check the name with mast_search.",
        });
      }
      process.stdout.write(`${opts.format === "svg" ? renderSvg(answer.graph) : answer.graph}\n`);
    } finally {
      ctx.close();
    }
  },
};
