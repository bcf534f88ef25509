// `mast metrics`: the read tools' recorded calls as tables and a per-day chart, the roll-up and
// vacuum of metrics.db, and the structure lock's times (cli/metrics.ts computes and renders them).
import { FLAGS } from "../flags.js";
import type { CommandSpec } from "../program.js";
import { loadConfig, n, print, statePathsOf, type CommonOptions } from "./common.js";

interface MetricsOptions extends CommonOptions {
  since: string;
  byTool: boolean;
  session?: string | true;
  rollup?: boolean;
  vacuum?: boolean;
  keepDays?: string;
  locks?: boolean;
}

export const metricsCommand: CommandSpec<MetricsOptions> = {
  name: "metrics",
  description: "the read tools' recorded calls (mast serve's telemetry): calls, tokens, latency and efficiency by tool, with a per-day chart",
  args: ["[path]"],
  flags: [
    FLAGS.stateDir,
    { name: "since", value: "<duration>", help: "the window: 1h, 24h, 7d, 30d", default: "7d" },
    { name: "by-tool", help: "one row per tool", default: true },
    { name: "no-by-tool", help: "one row for all tools" },
    { name: "session", value: "[id]", help: "only one session's calls (without an id: the latest session)" },
    { name: "rollup", help: "sum the rows older than --keep-days (default 7) into metrics_daily, then delete them" },
    { name: "vacuum", help: "delete daily roll-ups older than --keep-days (default 90), then compact metrics.db" },
    { name: "keep-days", value: "<n>", help: "retention for --rollup / --vacuum" },
    { name: "locks", help: "the structure lock's hold and wait times by caller (lock-metrics.jsonl)" },
    FLAGS.json,
  ],
  run: async ([path], opts) => {
    const m = await import("../metrics.js");
    const config = loadConfig(path, { stateDir: opts.stateDir });
    const keep = opts.keepDays === undefined ? undefined : m.parseKeepDays(opts.keepDays);
    if (opts.locks) {
      const report = m.lockReport((await statePathsOf(config)).lockMetrics);
      print(opts.json, report, () => m.renderLocks(report));
      return;
    }
    if (opts.rollup || opts.vacuum) {
      const done = {
        ...(opts.rollup ? { rollup: m.rollupMetrics(config.state_dir, keep ?? 7) } : {}),
        ...(opts.vacuum ? { vacuum: m.vacuumMetrics(config.state_dir, keep ?? 90) } : {}),
      };
      print(opts.json, done, () =>
        [
          ...(done.rollup ? [`rolled up ${n(done.rollup.rows_rolled_up)} row(s) from before ${done.rollup.before} into ${n(done.rollup.days)} day(s)`] : []),
          ...(done.vacuum ? [`deleted ${n(done.vacuum.daily_rows_deleted)} daily roll-up(s) before ${done.vacuum.before_day}; metrics.db compacted`] : []),
        ].join("\n"),
      );
      return;
    }
    const report = m.metricsReport(config.state_dir, {
      sinceSeconds: m.parseDuration(opts.since),
      byTool: opts.byTool,
      ...(opts.session === undefined ? {} : { session: opts.session }),
    });
    print(opts.json, report, () => m.renderMetrics(report, process.stdout.isTTY === true));
  },
};
