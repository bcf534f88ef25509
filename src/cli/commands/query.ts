// `mast query`: any tool by its MCP name with a JSON argument object, answered by a running
// `mast serve` of the project (mcp/local.ts) or in this process, printed as MCP sends it.
import { existsSync } from "node:fs";
import { ERROR_CODES, MastError, errorMessage } from "../../base/errors.js";
import { VERSION } from "../../base/version.js";
import type { ResolvedConfig } from "../../index/config.js";
import { FLAGS } from "../flags.js";
import type { CommandSpec } from "../program.js";
import { loadConfig, statePathsOf, type CommonOptions } from "./common.js";

/** A tool as `mast query`'s help names it. */
export interface NamedTool {
  readonly name: string;
  readonly title: string;
}

/** The tools `mast query` takes, from the build's listing (mcp/listing.ts): the registry (zod, every tool) loads only for a call answered in this process. */
export async function loadTools(argv: string[]): Promise<readonly NamedTool[]> {
  // `mast query …` and `mast help query` (whose help lists them); any other command has no use for them.
  if (argv[2] !== "query" && !(argv[2] === "help" && argv[3] === "query")) return [];
  return (await (await import("../../mcp/listing.js")).toolListings()).map((t) => ({ name: t.full.name, title: t.full.annotations?.title ?? "" }));
}

interface QueryOptions extends CommonOptions {
  server: boolean;
}

/** The answer of a `mast serve` of the project, printed; false when none is running. */
async function askServer(config: ResolvedConfig, toolName: string, args: unknown, json: boolean | undefined): Promise<boolean> {
  const { askRunningServer } = await import("../../mcp/local.js");
  const reply = await askRunningServer({ root: config.project_root, stateDir: config.state_dir, version: VERSION }, { tool: toolName, arguments: args });
  if (reply === null) return false;
  if (process.env.MAST_DEBUG) process.stderr.write("mast: answered by the running mast serve\n");
  if ("text" in reply) {
    process.stdout.write(`${json ? reply.text : JSON.stringify(JSON.parse(reply.text), null, 2)}\n`);
    return true;
  }
  process.stdout.write(`${json ? JSON.stringify(reply.failure) : JSON.stringify(reply.failure, null, 2)}\n`);
  const { error } = reply.failure;
  if (error.code === "INTERNAL") throw new Error(error.message);
  throw new MastError(error.code, error.message, {
    hint: error.recovery ?? ERROR_CODES[error.code],
    usage: reply.usage,
    ...(error.details ? { details: error.details } : {}),
  });
}

/** The call answered in this process, printed (a failure also thrown, for its line on stderr and its exit code). */
async function answerHere(config: ResolvedConfig, toolName: string, args: unknown, json: boolean | undefined): Promise<void> {
  if (!existsSync((await statePathsOf(config)).graphDb)) {
    throw new MastError("NOT_INDEXED", `no index found at ${config.state_dir}; run \`mast init\` / \`mast index\` first`);
  }
  const { runTool } = await import("../../tools/registry.js");
  const { createToolContext } = await import("../../tools/context.js");
  // The call is recorded in metrics.db as `mast serve` records its calls (session "mast-query", counted by estimate), after the answer is printed.
  const { EstimatedRecorder } = await import("../../tools/telemetry.js");
  const recorder = config.telemetry ? new EstimatedRecorder(config.state_dir, config.project_root, (line) => process.stderr.write(`mast: ${line}\n`)) : undefined;
  const ctx = createToolContext(config, config.project_root, undefined, recorder);
  try {
    // What an MCP client gets as the result's text: the answer, or the failure (then also named on stderr, with its exit code).
    let printed: unknown;
    let failure: unknown = null;
    try {
      // No `_stats` in the text (MCP sends them in the result's `_meta`).
      const { answer, text } = await runTool(ctx, toolName, args);
      printed = json ? text : answer;
    } catch (err) {
      const { failureOf } = await import("../../tools/envelope.js");
      printed = json ? JSON.stringify(failureOf(err)) : failureOf(err);
      failure = err;
    }
    process.stdout.write(typeof printed === "string" ? `${printed}\n` : `${JSON.stringify(printed, null, 2)}\n`);
    if (failure !== null) throw failure;
  } finally {
    ctx.close();
    recorder?.close();
  }
}

export function queryCommand(tools: readonly NamedTool[]): CommandSpec<QueryOptions> {
  return {
    name: "query",
    description: "call any tool by its MCP name with a JSON argument object, exactly as an MCP client would",
    args: ["<tool>", "[json]", "[path]"],
    flags: [
      FLAGS.stateDir,
      // Here the answer is JSON either way: the flag asks for it as MCP sends it, on one line.
      { ...FLAGS.json, help: "print the exact single-line response text (default: pretty-printed)" },
      { name: "no-server", help: "answer in this process even when a `mast serve` of the project is running (by default it answers, from its open index)" },
    ],
    helpAfter: `\nTools:\n${tools.map((t) => `  ${t.name.padEnd(24)}${t.title}`).join("\n")}\n\nExample:\n  mast query mast_search '{"query":"validate","limit":5}' .`,
    run: async ([toolName, json, path], opts) => {
      // An unknown tool is named as the registry names it (with the closest names).
      if (!tools.some((t) => t.name === toolName)) (await import("../../tools/registry.js")).findTool(toolName!);
      let args: unknown;
      try {
        args = JSON.parse(json ?? "{}");
      } catch (err) {
        throw new MastError("INVALID_ARGUMENT", `the tool arguments are not valid JSON: ${errorMessage(err)}`, {
          hint: `Pass one JSON object, e.g. '{"query":"validate"}'.`,
          usage: true,
        });
      }
      const config = loadConfig(path, { stateDir: opts.stateDir });
      // A `mast serve` of this project answers from its open index (mcp/local.ts); else this process does.
      if (opts.server && (await askServer(config, toolName!, args, opts.json))) return;
      await answerHere(config, toolName!, args, opts.json);
    },
  };
}
