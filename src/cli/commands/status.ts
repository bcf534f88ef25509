// `mast status`: the index's health (freshness, counts, errors, a run in progress) as aligned rows or JSON; it creates nothing.
import type { ResolvedConfig } from "../../index/config.js";
import { FLAGS } from "../flags.js";
import type { CommandSpec } from "../program.js";
import { loadConfig, print, type CommonOptions } from "./common.js";

function ago(iso: string): string {
  const secs = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  const unit = (n: number, name: string) => `${n} ${name}${n === 1 ? "" : "s"} ago`;
  if (secs < 60) return unit(secs, "second");
  if (secs < 3600) return unit(Math.round(secs / 60), "minute");
  if (secs < 86400) return unit(Math.round(secs / 3600), "hour");
  return unit(Math.round(secs / 86400), "day");
}

async function printStatus(config: ResolvedConfig, json: boolean | undefined): Promise<void> {
  const status = await (await import("../../index/status.js")).indexStatus(config);
  const { changed, unindexed, vanished } = status.stale_breakdown;
  print(json, status, () => {
    const rows: Array<[string, string]> = [
      ["state_dir", status.state_dir],
      ["schema_version", status.schema_version],
      ["last_indexed", status.last_indexed ? `${status.last_indexed} (${ago(status.last_indexed)})` : "never"],
      ["indexed_files", String(status.indexed_files)],
      ["chunk_count", String(status.chunk_count)],
      ["stale_files", `${status.stale_files}${status.stale_files ? ` (${changed} changed, ${unindexed} not indexed, ${vanished} gone)` : ""}`],
      ["parse_errors", String(status.parse_errors)],
      ["write_errors", String(status.write_errors)],
      ["index_fresh", String(status.index_fresh)],
      ["freshness_cause", status.freshness_cause ?? "none"],
    ];
    const run = status.indexing;
    if (run) {
      const progress = run.files_total !== undefined ? ` (${run.files_done}/${run.files_total} files)` : "";
      rows.push(["indexing", `in progress${run.operation ? `: ${run.operation}` : ""}${run.since ? ` since ${run.since}` : ""}${progress}`]);
    }
    if (status.freshness_cause === "interrupted_run") rows.push(["hint", "the last index run died before it finished: run `mast index --incremental` (or any query) to bring the index up to date"]);
    if (status.seed_commit) rows.push(["seed_commit", status.seed_commit]);
    for (const l of status.checker ?? []) rows.push([`checker ${l.language}`, l.available ? `available (${l.backend})` : `unavailable (${l.backend}): ${l.reason}`]);
    if (status.last_indexed === null) rows.push(["hint", "not indexed yet: run `mast init` or `mast index`"]);
    // Values start at column 17, as in the spec's sample; a longer label keeps one space.
    return rows.map(([k, v]) => `${`${k}:`.padEnd(15)} ${v}`).join("\n");
  });
}

export const statusCommand: CommandSpec<CommonOptions> = {
  name: "status",
  description: "print index health: freshness, counts, errors (creates nothing)",
  args: ["[path]"],
  flags: [FLAGS.stateDir, FLAGS.json],
  run: async ([path], opts) => {
    await printStatus(loadConfig(path, { stateDir: opts.stateDir }), opts.json);
  },
};
