// `mast publish`: the project's index brought up to date and copied into a PostgreSQL store as
// (repository, commit), made active in one transaction (docs/organisation.md#publishing).
import { MastError } from "../../base/errors.js";
import type { PublishReport } from "../../store/pg/publish.js";
import { FLAGS } from "../flags.js";
import type { CommandSpec } from "../program.js";
import { loadConfig, n, print, type CommonOptions } from "./common.js";

interface PublishFlags extends CommonOptions {
  to?: string;
  repository?: string;
  commit?: string;
  keep?: number;
  threads?: number;
}

function renderReport(r: PublishReport): string {
  const what = r.unchanged
    ? r.units_written > 0
      ? `${r.repository} @ ${r.commit} was published with this content by another publisher meanwhile (snapshot ${r.snapshot}); the ${n(r.units_written)} units written here stay for later publishes`
      : `${r.repository} @ ${r.commit} is already published with this content (snapshot ${r.snapshot}): nothing written`
    : `published ${r.repository} @ ${r.commit} as snapshot ${r.snapshot}: ${n(r.files)} files (${n(r.units_written)} new, ${n(r.units_reused)} unchanged, ${n(r.source_bytes_written)} bytes of source written), ${n(r.symbols)} symbols, ${n(r.edges)} edges`;
  const active = r.active ? "active: yes" : "active: no (a later snapshot of the repository is active)";
  return [what, active, ...(r.pruned_snapshots > 0 ? [`pruned ${n(r.pruned_snapshots)} older snapshot(s)`] : [])].join("\n");
}

export const publishCommand: CommandSpec<PublishFlags> = {
  name: "publish",
  description: "index the project and publish its index to a PostgreSQL store as (repository, commit), made active atomically",
  args: ["[path]"],
  flags: [
    { name: "to", value: "<url>", help: "the store: postgres://USER@HOST:PORT/DATABASE (TLS: ?sslmode=require; the password from PGPASSWORD or ~/.pgpass)" },
    { name: "repository", value: "<name>", help: "the repository's name (default: the origin remote as host/path, else the directory's name)" },
    { name: "commit", value: "<sha>", help: "the commit (default: the checkout's HEAD)" },
    { ...FLAGS.keep, help: "keep the repository's newest n snapshots (the active one always); older ones are pruned (default: keep all)" },
    FLAGS.stateDir,
    FLAGS.threads,
    FLAGS.json,
  ],
  run: async ([path], opts) => {
    if (opts.to === undefined) throw new MastError("INVALID_ARGUMENT", "mast publish needs --to <postgres://…>, the store to publish to", { usage: true });
    const config = loadConfig(path, { stateDir: opts.stateDir });
    const { publishProject } = await import("../../index/publish.js");
    const report = await publishProject(config, {
      to: opts.to,
      ...(opts.repository === undefined ? {} : { repository: opts.repository }),
      ...(opts.commit === undefined ? {} : { commit: opts.commit }),
      ...(opts.keep === undefined ? {} : { keep: opts.keep }),
      ...(opts.threads === undefined ? {} : { threads: opts.threads }),
    });
    print(opts.json, report, () => renderReport(report));
  },
};
