#!/usr/bin/env node
// The `mast` CLI: argv → a command (cli/commands/, read by cli/program.ts) → human text or JSON.
// Only this layer knows about exit codes; every error leaves as one line on stderr naming its code and a hint.
import { errorMessage, isMastError } from "../base/errors.js";
import { VERSION } from "../base/version.js";
import { graphCommand } from "./commands/graph.js";
import { indexCommand, initCommand } from "./commands/indexing.js";
import { installHooksCommand } from "./commands/install-hooks.js";
import { metricsCommand } from "./commands/metrics.js";
import { loadTools, queryCommand } from "./commands/query.js";
import { publishCommand } from "./commands/publish.js";
import { serveCommand } from "./commands/serve.js";
import { statusCommand } from "./commands/status.js";
import { kebabCaseFlags, structuralCommand } from "./commands/structural.js";
import { enableCompileCache } from "./compile-cache.js";
import { runProgram } from "./program.js";

async function main(argv: string[]): Promise<number> {
  // Before the command's own chunks load (this file's imports are compiled already).
  enableCompileCache();
  const program = {
    name: "mast",
    description: "Code intelligence for coding agents: index a project, then answer with chunks instead of files.",
    version: VERSION,
    commands: [initCommand, indexCommand, statusCommand, serveCommand, installHooksCommand, metricsCommand, graphCommand, structuralCommand, publishCommand, queryCommand(await loadTools(argv))],
  };
  try {
    // A usage error was printed with the command's help: exit code 2.
    return await runProgram(program, kebabCaseFlags(argv).slice(2));
  } catch (err) {
    if (isMastError(err)) {
      process.stderr.write(`mast: error ${err.code}: ${err.message} (hint: ${err.hint})\n`);
      // An argument the command cannot take (bad JSON, an unknown tool, an option out of range) is a usage error.
      return err.usage ? 2 : 1;
    }
    process.stderr.write(`mast: internal error: ${errorMessage(err)}\n`);
    if (process.env.MAST_DEBUG) process.stderr.write(`${(err as Error).stack ?? ""}\n`);
    return 1;
  }
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`mast: internal error: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  },
);
