// `mast init` and `mast index`: a full or incremental index run with its progress bar and report
// (init also creates the state directory and persists the config, or only that with --no-index).
import { parseList, type ResolvedConfig } from "../../index/config.js";
import type { IndexReport } from "../../index/run.js";
import { FLAGS } from "../flags.js";
import type { CommandSpec } from "../program.js";
import { progressReporter } from "../progress.js";
import { loadConfig, n, print, state, type CommonOptions } from "./common.js";

interface IndexFlags {
  incremental?: boolean;
  showProgress?: boolean;
  /** false with --no-progress. */
  progress?: boolean;
  threads?: number;
  /** `mast init` persists the resolved config; `mast index` only reads it. */
  persistConfig?: boolean;
  /** Run the TypeScript-checker pass after the call graph (docs/call-graph.md#the-checker-pass). */
  checker?: boolean;
}

async function runIndexCommand(config: ResolvedConfig, flags: IndexFlags, json: boolean | undefined, operation: string): Promise<void> {
  // A terminal sees the bar unless --no-progress; a pipe only with --show-progress.
  const progress = flags.showProgress || (flags.progress !== false && process.stderr.isTTY === true) ? progressReporter() : null;
  // The indexer (with the resolvers and the linker) loads only for the commands that index.
  const { runIndex } = await import("../../index/run.js");
  const report = await runIndex(config, {
    persistConfig: flags.persistConfig ?? false,
    // The command names its project: it may re-point a state dir another project was indexed in.
    repoint: true,
    mode: flags.incremental ? "incremental" : "full",
    operation,
    ...(flags.threads === undefined ? {} : { threads: flags.threads }),
    // The compiler loads only for a run that asks for it.
    ...((flags.checker ?? config.checker) ? { checker: (await import("../../query/checker.js")).checkerPass } : {}),
    ...(progress ? { onProgress: progress.update } : {}),
  });
  progress?.finish();
  for (const p of report.problems) process.stderr.write(`mast: warning: ${p.kind} ${p.path}: ${p.message}\n`);
  print(json, report, () => renderReport(report));
}

function renderReport(r: IndexReport): string {
  const lines = [
    `indexed ${n(r.files_indexed)} of ${n(r.files_walked)} files (${r.mode}${r.schema_reset ? ", schema reset" : ""}) in ${(r.duration_ms / 1000).toFixed(2)} s: ` +
      `${n(r.files_unchanged)} unchanged, ${n(r.files_deleted)} removed`,
    `index now holds ${n(r.file_count)} files, ${n(r.chunk_count)} chunks, ${n(r.symbol_count)} symbols`,
    `parse_errors: ${r.parse_errors}  write_errors: ${r.write_errors}  read_errors: ${r.read_errors}  ` +
      `skipped: ${r.skipped_binary} binary, ${r.skipped_too_large} too large, ${r.skipped_symlinks} symlinks`,
    `state_dir: ${r.state_dir}`,
  ];
  if (r.checker_up_to_date) lines.push("checker: up to date (nothing changed since the last pass)");
  if (r.checker) {
    const c = r.checker;
    lines.push(
      `checker: ${n(c.projects)} project(s), ${n(c.candidates)} potential matches checked in ${(c.duration_ms / 1000).toFixed(2)} s: ` +
        `${n(c.calls_target)} verified (${n(c.edges)} edges), ${n(c.resolves_to_different)} call another declaration, ${n(c.non_call_site)} no call, ${n(c.unresolved)} unresolved; outside every analyzer (outside_ts_scope): ${n(c.outside_ts_scope)}`,
    );
    for (const s of c.skipped) lines.push(`checker skipped ${s.config}: ${s.reason}`);
    for (const l of c.languages) if (!l.available) lines.push(`checker unavailable for ${l.language} (${l.backend}): ${l.reason}`);
  }
  if (r.problems_truncated) lines.push(`(${r.problems_truncated} more problems not listed)`);
  return lines.join("\n");
}

/** `mast init --no-index`: the state dir and the config, the index kept as it is. */
async function initWithoutIndex(config: ResolvedConfig, json: boolean | undefined): Promise<void> {
  const { ensureStateDir, guardSchema, isNeverIndexed, persistConfig } = await state();
  const { CLI_LOCK_POLICY, withStructureLock } = await import("../../index/lock.js");
  const paths = ensureStateDir(config);
  // The schema guard may wipe graph.db and the manifest: a coarse write, so it runs under structure.lock (docs/index-lifecycle.md#write-locking).
  await withStructureLock(paths.lock, "mast init --no-index", CLI_LOCK_POLICY, async () => {
    persistConfig(config);
    guardSchema(paths);
  });
  const indexed = !isNeverIndexed(paths);
  print(json, { state_dir: config.state_dir, indexed }, () =>
    indexed ? `initialised ${config.state_dir} (index kept: run \`mast index --incremental\` to refresh it)` : `initialised ${config.state_dir} (not indexed: run \`mast index\`)`,
  );
}

export const initCommand: CommandSpec<CommonOptions & IndexFlags & { extensions?: string; exclude?: string; index: boolean }> = {
  name: "init",
  description: "create the state directory, persist the config and run a full index",
  args: ["[path]"],
  flags: [
    FLAGS.stateDir,
    { name: "extensions", value: "<ext,...>", help: "file extensions to index (e.g. ts,tsx,md)" },
    {
      name: "exclude",
      value: "<pattern,...>",
      help: "glob patterns to exclude, replacing the defaults (* stays in one path segment, ** crosses them: **/gen/** for a directory anywhere)",
    },
    { name: "no-index", help: "create the config only, skip the initial index" },
    FLAGS.showProgress,
    FLAGS.noProgress,
    FLAGS.json,
    FLAGS.threads,
    FLAGS.checker,
  ],
  run: async ([path], opts) => {
    const config = loadConfig(
      path,
      {
        stateDir: opts.stateDir,
        extensions: opts.extensions === undefined ? undefined : parseList(opts.extensions),
        exclude: opts.exclude === undefined ? undefined : parseList(opts.exclude),
      },
      false,
    );
    if (!opts.index) return initWithoutIndex(config, opts.json);
    await runIndexCommand(config, { showProgress: opts.showProgress, progress: opts.progress, threads: opts.threads, persistConfig: true, checker: opts.checker }, opts.json, "mast init");
  },
};

export const indexCommand: CommandSpec<CommonOptions & IndexFlags> = {
  name: "index",
  description: "build or update the index",
  args: ["[path]"],
  flags: [FLAGS.stateDir, { name: "incremental", help: "only reindex files whose content changed since the last run" }, FLAGS.showProgress, FLAGS.noProgress, FLAGS.threads, FLAGS.checker, FLAGS.json],
  run: async ([path], opts) => {
    const config = loadConfig(path, { stateDir: opts.stateDir });
    await runIndexCommand(config, opts, opts.json, opts.incremental ? "mast index --incremental" : "mast index");
  },
};
