// The flags several mast commands take, each defined once with one help text; a command lists the
// ones it takes (cli/commands/) in the order its help shows them.
import { MastError } from "../base/errors.js";
import type { Flag } from "./argv.js";

function parseThreads(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 64) {
    throw new MastError("INVALID_ARGUMENT", `--threads must be an integer from 0 to 64, not ${JSON.stringify(value)}`, {
      hint: "0 parses on the main thread; the default is one thread per core beyond the first (at least 2 with 2 cores).",
      usage: true,
    });
  }
  return n;
}

function parseKeep(value: string): number {
  const keep = Number(value);
  if (!Number.isInteger(keep) || keep < 1 || keep > 1_000_000) {
    throw new MastError("INVALID_ARGUMENT", `--keep must be a whole number, at least 1, not ${JSON.stringify(value)}`, { usage: true });
  }
  return keep;
}

export const FLAGS = {
  stateDir: { name: "state-dir", value: "<dir>", help: "state directory (default: $MAST_STATE_DIR, mast.config.json, or <path>/.mast)" },
  json: { name: "json", help: "print the result as JSON" },
  threads: { name: "threads", value: "<n>", help: "parse threads (0: parse on the main thread)", parse: parseThreads },
  checker: {
    name: "checker",
    help: "also run the checker pass: each language's analyzer (the TypeScript compiler, scip-python, go/types) classifies potential callers (a verified 'checker' edge, another declaration, or no call)",
  },
  showProgress: { name: "show-progress", help: "print a progress bar to stderr even when it is not a terminal (a line per 10%)" },
  noProgress: { name: "no-progress", help: "no progress bar on a terminal" },
  keep: { name: "keep", value: "<n>", help: "keep the newest n published (the active one always); older ones are pruned (default: keep all)", parse: parseKeep },
} as const satisfies Record<string, Flag>;

/** Where `mast structural`'s commands find the code, the snapshot and the state (the mantis contract's locators). */
export const LOCATOR_FLAGS: readonly Flag[] = [
  { name: "target-root", value: "<dir>", help: "the code root (default: the current project)" },
  {
    name: "snapshot-root",
    value: "<dir>",
    help: "a pinned snapshot's root (default: $SNAPSHOT_ROOT); pinned when its .mantis_snapshot.json names the snapshot id",
  },
  {
    name: "snapshot-id",
    value: "<id>",
    help: "the snapshot id (default: workspace/.mantis_state.json's active_snapshot, the sentinel's, else \"unknown\": MODE-OFF, always rebuilt)",
  },
  { name: "state-root", value: "<dir>", help: "where workspace/ (kb/structural_index, helpers) lives (default: the project's state dir)" },
];
