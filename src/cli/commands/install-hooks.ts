// `mast install-hooks`: the git hooks that keep the index fresh after commits, checkouts and merges
// (cli/hooks.ts writes them), installed or, with --uninstall, taken out again.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { FLAGS } from "../flags.js";
import type { CommandSpec } from "../program.js";
import { loadConfig, print, type CommonOptions } from "./common.js";

export const installHooksCommand: CommandSpec<CommonOptions & { uninstall?: boolean }> = {
  name: "install-hooks",
  description: "install git hooks (post-commit, post-checkout, post-merge) that run `mast index --incremental` in the background; existing hooks are kept and chained",
  args: ["[path]"],
  flags: [FLAGS.stateDir, { name: "uninstall", help: "remove what install-hooks added (a hook it created is deleted, another keeps everything else)" }, FLAGS.json],
  run: async ([path], opts) => {
    const config = loadConfig(path, { stateDir: opts.stateDir });
    const { hookBlock, installHooks } = await import("../hooks.js");
    // The state dir is named in the hook only when it is not the project's default.
    const custom = config.state_dir === join(config.project_root, ".mast") ? null : config.state_dir;
    const report = installHooks(config.project_root, hookBlock(process.execPath, realpathSync(process.argv[1]!), custom), {
      uninstall: opts.uninstall === true,
    });
    print(opts.json, report, () => [`hooks in ${report.hooks_dir}:`, ...report.hooks.map((h) => `  ${h.hook.padEnd(14)} ${h.action}`)].join("\n"));
  },
};
