#!/usr/bin/env node
// The `mast` CLI: argv → config → index/status → human text or JSON. Only this layer knows
// about exit codes; every error leaves as one line on stderr naming its code and a hint.
import { createRequire } from "node:module";
import type * as Commander from "commander";
import { existsSync, realpathSync } from "node:fs";
import { join, resolve as resolvePath } from "node:path";
import { ERROR_CODES, MastError, errorMessage, isMastError } from "../base/errors.js";
import { VERSION } from "../base/version.js";
import { findProjectRoot, parseList, resolveConfig, resolveProjectRoot, type ConfigOverrides, type ResolvedConfig } from "../index/config.js";
import type { IndexReport } from "../index/run.js";
import type { StatePaths } from "../index/state.js";
import { TOOLSETS, type Toolset } from "../tools/define.js";
import { enableCompileCache } from "./compile-cache.js";
import { progressReporter } from "./progress.js";

// The state files' helpers (and through them the store and SQLite) load only for the commands that
// use them: a `mast query` a running server answers needs none of them.
const state = (): Promise<typeof import("../index/state.js")> => import("../index/state.js");
const statePathsOf = async (config: ResolvedConfig): Promise<StatePaths> => (await state()).statePaths(config.state_dir);

// A CommonJS package is required, not imported: ESM's import of CommonJS first scans its source
// for export names (~25 ms of every CLI start for `ignore` alone).
const { Command, CommanderError, Option } = createRequire(import.meta.url)("commander") as typeof Commander;
type Command = Commander.Command;


interface CommonOptions {
  stateDir?: string;
  json?: boolean;
}

/** The config of the project `path` is in (walking up to the nearest `.mast`, like git); `init` passes `walk: false`. */
function loadConfig(path: string | undefined, overrides: ConfigOverrides, walk = true): ResolvedConfig {
  return resolveConfig(walk ? findProjectRoot(path) : resolveProjectRoot(path), overrides);
}

function print(json: boolean | undefined, data: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
}

interface IndexFlags {
  incremental?: boolean;
  showProgress?: boolean;
  /** false with --no-progress. */
  progress?: boolean;
  threads?: number;
  /** `mast init` persists the resolved config; `mast index` only reads it. */
  persistConfig?: boolean;
  /** Run the TypeScript-checker pass after the call graph (§10.3.2). */
  checker?: boolean;
}

function parseThreads(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 64) {
    throw new MastError("INVALID_ARGUMENT", `--threads must be an integer from 0 to 64, not ${JSON.stringify(value)}`, { hint: "0 parses on the main thread; the default is one thread per core beyond the first (at least 2 with 2 cores)." });
  }
  return n;
}

async function indexCommand(config: ResolvedConfig, flags: IndexFlags, json: boolean | undefined, operation: string): Promise<void> {
  // A terminal sees the bar unless --no-progress; a pipe only with --show-progress.
  const progress = flags.showProgress || (flags.progress !== false && process.stderr.isTTY === true) ? progressReporter() : null;
  // The indexer (with the resolvers and the linker) loads only for the commands that index.
  const { runIndex } = await import("../index/run.js");
  const report = await runIndex(config, {
    persistConfig: flags.persistConfig ?? false,
    // The command names its project: it may re-point a state dir another project was indexed in.
    repoint: true,
    mode: flags.incremental ? "incremental" : "full",
    operation,
    ...(flags.threads === undefined ? {} : { threads: flags.threads }),
    // The compiler loads only for a run that asks for it.
    ...((flags.checker ?? config.checker) ? { checker: (await import("../query/checker.js")).checkerPass } : {}),
    ...(progress ? { onProgress: progress.update } : {}),
  });
  progress?.finish();
  for (const p of report.problems) process.stderr.write(`mast: warning: ${p.kind} ${p.path}: ${p.message}\n`);
  print(json, report, () => renderReport(report));
}

const n = (x: number) => x.toLocaleString("en-US");

const CHECKER_HELP = "also run the checker pass: each language's analyzer (the TypeScript compiler, scip-python, go/types) classifies potential callers (a verified 'checker' edge, another declaration, or no call)";

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

function ago(iso: string): string {
  const secs = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  const unit = (n: number, name: string) => `${n} ${name}${n === 1 ? "" : "s"} ago`;
  if (secs < 60) return unit(secs, "second");
  if (secs < 3600) return unit(Math.round(secs / 60), "minute");
  if (secs < 86400) return unit(Math.round(secs / 3600), "hour");
  return unit(Math.round(secs / 86400), "day");
}

async function statusCommand(config: ResolvedConfig, json: boolean | undefined): Promise<void> {
  const status = await (await import("../index/status.js")).indexStatus(config);
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

/** A tool as `mast query`'s help names it. */
interface NamedTool {
  readonly name: string;
  readonly title: string;
}

/** The tools `mast query` takes, from the build's listing (mcp/listing.ts): the registry (zod, every tool) loads only for a call answered in this process. */
async function loadTools(argv: string[]): Promise<readonly NamedTool[]> {
  if (argv[2] !== "query") return [];
  return (await (await import("../mcp/listing.js")).toolListings()).map((t) => ({ name: t.full.name, title: t.full.annotations?.title ?? "" }));
}

function buildProgram(tools: readonly NamedTool[]): Command {
  const program = new Command("mast")
    .description("Code intelligence for coding agents: index a project, then answer with chunks instead of files.")
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();

  const stateDirOption = () => new Option("--state-dir <dir>", "state directory (default: $MAST_STATE_DIR, mast.config.json, or <path>/.mast)");

  program
    .command("init [path]")
    .description("create the state directory, persist the config and run a full index")
    .addOption(stateDirOption())
    .option("--extensions <ext,...>", "file extensions to index (e.g. ts,tsx,md)")
    .option("--exclude <pattern,...>", "glob patterns to exclude, replacing the defaults (* stays in one path segment, ** crosses them: **/gen/** for a directory anywhere)")
    .option("--no-index", "create the config only, skip the initial index")
    .option("--show-progress", "print a progress bar to stderr even when it is not a terminal (a line per 10%)")
    .option("--no-progress", "no progress bar on a terminal")
    .option("--json", "print the result as JSON")
    .option("--threads <n>", "parse threads (0: parse on the main thread)", parseThreads)
    .option("--checker", CHECKER_HELP)
    .action(async (path: string | undefined, opts: CommonOptions & IndexFlags & { extensions?: string; exclude?: string; index: boolean }) => {
      const config = loadConfig(path, {
        stateDir: opts.stateDir,
        extensions: opts.extensions === undefined ? undefined : parseList(opts.extensions),
        exclude: opts.exclude === undefined ? undefined : parseList(opts.exclude),
      }, false);
      if (!opts.index) {
        const { ensureStateDir, guardSchema, isNeverIndexed, persistConfig } = await state();
        const { CLI_LOCK_POLICY, withStructureLock } = await import("../index/lock.js");
        const paths = ensureStateDir(config);
        // The schema guard may wipe graph.db and the manifest: a coarse write, so it runs under structure.lock (§7.6).
        await withStructureLock(paths.lock, "mast init --no-index", CLI_LOCK_POLICY, async () => {
          persistConfig(config);
          guardSchema(paths);
        });
        const indexed = !isNeverIndexed(paths);
        print(opts.json, { state_dir: config.state_dir, indexed }, () =>
          indexed ? `initialised ${config.state_dir} (index kept: run \`mast index --incremental\` to refresh it)` : `initialised ${config.state_dir} (not indexed: run \`mast index\`)`,
        );
        return;
      }
      await indexCommand(config, { showProgress: opts.showProgress, progress: opts.progress, threads: opts.threads, persistConfig: true, checker: opts.checker }, opts.json, "mast init");
    });

  program
    .command("index [path]")
    .description("build or update the index")
    .addOption(stateDirOption())
    .option("--incremental", "only reindex files whose content changed since the last run")
    .option("--show-progress", "print a progress bar to stderr even when it is not a terminal (a line per 10%)")
    .option("--no-progress", "no progress bar on a terminal")
    .option("--threads <n>", "parse threads (0: parse on the main thread)", parseThreads)
    .option("--checker", CHECKER_HELP)
    .option("--json", "print the result as JSON")
    .action(async (path: string | undefined, opts: CommonOptions & IndexFlags) => {
      const config = loadConfig(path, { stateDir: opts.stateDir });
      await indexCommand(config, opts, opts.json, opts.incremental ? "mast index --incremental" : "mast index");
    });

  program
    .command("status [path]")
    .description("print index health: freshness, counts, errors (creates nothing)")
    .addOption(stateDirOption())
    .option("--json", "print the result as JSON")
    .action(async (path: string | undefined, opts: CommonOptions) => {
      await statusCommand(loadConfig(path, { stateDir: opts.stateDir }), opts.json);
    });

  program
    .command("serve [path]")
    .description("serve every tool over MCP on stdio until stdin closes (reindexes in the background at startup)")
    .addOption(stateDirOption())
    .option("--no-startup-reindex", "skip the background reindex at startup (refused on a never-indexed state dir)")
    .option("--toolsets <list>", "toolsets to offer: read (the index tools), edit (hashpilot's reads and edits), more (grep, diff generation, symbol lookup, history), admin (hashpilot's telemetry, provenance, config and route), structural (the structural index: resolve_symbol, find_callers, find_callees, get_function_boundary, get_coverage)", "read,edit")
    .option("--structural-root <dir>", "the state root the structural toolset reads (default: the project's state dir)")
    .option("--checker", "the startup reindex and mast_reindex also run the TypeScript-checker pass (as `checker: true` in mast.config.json does)")
    .option("--watch", "watch the project and reindex files created, changed or deleted by any means (500 ms debounce)")
    .option("--http", "serve over streamable HTTP at /mcp instead of stdio (until SIGTERM/SIGINT); MAST_HTTP_TOKEN, when set (16 characters or more), is required as a bearer token")
    .option("--port <n>", "with --http: the port (0 picks a free one)", "7730")
    .option("--host <host>", "with --http: the address to listen on (not loopback only with MAST_HTTP_TOKEN set)", "127.0.0.1")
    .option("--idle-timeout <seconds>", "with --http: close a session after this long with no request or stream open (fractions allowed, for tests)", "1800")
    .option("--max-sessions <n>", "with --http: sessions open at once; a new one closes the longest idle, or is refused with 503 when none is idle", "256")
    .option("--schemas <form>", "how tools/list gives the tools: compact (what a model needs: no output schemas, pipeline settings left out) or full (every input and output schema whole, for clients that validate answers)", "compact")
    .option("--no-socket", "do not answer `mast query` of this project on the state dir's socket (serve.sock)")
    .action(async (path: string | undefined, opts: CommonOptions & { socket: boolean; startupReindex: boolean; toolsets: string; checker?: boolean; watch?: boolean; http?: boolean; port: string; host: string; idleTimeout: string; maxSessions: string; structuralRoot?: string; schemas: string }) => {
      if (opts.schemas !== "compact" && opts.schemas !== "full") {
        throw new MastError("INVALID_ARGUMENT", `--schemas takes compact or full, not ${JSON.stringify(opts.schemas)}`, { hint: "e.g. --schemas full", usage: true });
      }
      const toolsets = opts.toolsets.split(",").map((t) => t.trim());
      const unknown = toolsets.filter((t) => !(TOOLSETS as readonly string[]).includes(t));
      if (unknown.length > 0 || toolsets.length === 0) {
        throw new MastError("INVALID_ARGUMENT", `--toolsets takes some of ${TOOLSETS.join(", ")}, not ${JSON.stringify(opts.toolsets)}`, { hint: "e.g. --toolsets read or --toolsets read,edit,admin" });
      }
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new MastError("INVALID_ARGUMENT", `--port takes a port number from 0 to 65535, not ${JSON.stringify(opts.port)}`, { hint: "e.g. --port 7730", usage: true });
      const idleSeconds = Number(opts.idleTimeout);
      if (!(idleSeconds > 0)) throw new MastError("INVALID_ARGUMENT", `--idle-timeout takes a positive number of seconds, not ${JSON.stringify(opts.idleTimeout)}`, { hint: "e.g. --idle-timeout 1800" });
      const maxSessions = Number(opts.maxSessions);
      if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new MastError("INVALID_ARGUMENT", `--max-sessions takes a positive integer, not ${JSON.stringify(opts.maxSessions)}`, { hint: "e.g. --max-sessions 256" });
      const token = process.env.MAST_HTTP_TOKEN?.trim();
      const loaded = loadConfig(path, { stateDir: opts.stateDir });
      const config = opts.checker ? { ...loaded, checker: true } : loaded;
      const { DEFAULT_SEED_DIR, serve } = await import("../mcp/server.js");
      await serve(config, {
        startupReindex: opts.startupReindex,
        version: VERSION,
        seedDir: process.env.MAST_SEED_DIR && process.env.MAST_SEED_DIR.trim() !== "" ? process.env.MAST_SEED_DIR : DEFAULT_SEED_DIR,
        log: (line) => process.stderr.write(`${line}\n`),
        exit: (code) => process.exit(code),
        toolsets: toolsets as Toolset[],
        watch: opts.watch === true,
        schemas: opts.schemas,
        localSocket: opts.socket,
        ...(opts.structuralRoot ? { structuralRoot: resolvePath(opts.structuralRoot) } : {}),
        ...(opts.http ? { http: { host: opts.host, port, idleMs: idleSeconds * 1000, maxSessions, ...(token ? { token } : {}) } } : {}),
      });
    });

  program
    .command("install-hooks [path]")
    .description("install git hooks (post-commit, post-checkout, post-merge) that run `mast index --incremental` in the background; existing hooks are kept and chained")
    .addOption(stateDirOption())
    .option("--uninstall", "remove what install-hooks added (a hook it created is deleted, another keeps everything else)")
    .option("--json", "print the result as JSON")
    .action(async (path: string | undefined, opts: CommonOptions & { uninstall?: boolean }) => {
      const config = loadConfig(path, { stateDir: opts.stateDir });
      const { hookBlock, installHooks } = await import("./hooks.js");
      // The state dir is named in the hook only when it is not the project's default.
      const custom = config.state_dir === join(config.project_root, ".mast") ? null : config.state_dir;
      const report = installHooks(config.project_root, hookBlock(process.execPath, realpathSync(process.argv[1]!), custom), { uninstall: opts.uninstall === true });
      print(opts.json, report, () => [`hooks in ${report.hooks_dir}:`, ...report.hooks.map((h) => `  ${h.hook.padEnd(14)} ${h.action}`)].join("\n"));
    });

  program
    .command("metrics [path]")
    .description("the read tools' recorded calls (mast serve's telemetry): calls, tokens, latency and efficiency by tool, with a per-day chart")
    .addOption(stateDirOption())
    .option("--since <duration>", "the window: 1h, 24h, 7d, 30d", "7d")
    .option("--by-tool", "one row per tool", true)
    .option("--no-by-tool", "one row for all tools")
    .option("--session [id]", "only one session's calls (without an id: the latest session)")
    .option("--rollup", "sum the rows older than --keep-days (default 7) into metrics_daily, then delete them")
    .option("--vacuum", "delete daily roll-ups older than --keep-days (default 90), then compact metrics.db")
    .option("--keep-days <n>", "retention for --rollup / --vacuum")
    .option("--locks", "the structure lock's hold and wait times by caller (lock-metrics.jsonl)")
    .option("--json", "print the result as JSON")
    .action(async (path: string | undefined, opts: CommonOptions & { since: string; byTool: boolean; session?: string | true; rollup?: boolean; vacuum?: boolean; keepDays?: string; locks?: boolean }) => {
      const m = await import("./metrics.js");
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
      const report = m.metricsReport(config.state_dir, { sinceSeconds: m.parseDuration(opts.since), byTool: opts.byTool, ...(opts.session === undefined ? {} : { session: opts.session }) });
      print(opts.json, report, () => m.renderMetrics(report, process.stdout.isTTY === true));
    });

  program
    .command("graph <symbol> [path]")
    .description("draw the call graph around a symbol: Mermaid, DOT, or SVG through Graphviz's `dot` (verified edges solid, potential dashed)")
    .addOption(stateDirOption())
    .addOption(new Option("--format <format>", "mermaid, dot or svg").choices(["mermaid", "dot", "svg"]).default("mermaid"))
    .option("--depth <n>", "levels of verified callers and callees (1-5)", "2")
    .addOption(new Option("--direction <direction>", "which way to follow calls").choices(["callers", "callees", "both"]).default("both"))
    .option("--max-nodes <n>", "nodes drawn at most", "40")
    .option("--file <file>", "the declaration's file, when several declare the name")
    .option("--json", "print the tool's answer as JSON")
    .action(async (symbol: string, path: string | undefined, opts: CommonOptions & { format: string; depth: string; direction: string; maxNodes: string; file?: string }) => {
      const { callTool } = await import("../tools/registry.js");
      const { createToolContext } = await import("../tools/context.js");
      const config = loadConfig(path, { stateDir: opts.stateDir });
      if (!existsSync((await statePathsOf(config)).graphDb)) {
        throw new MastError("NOT_INDEXED", `no index found at ${config.state_dir}; run \`mast init\` / \`mast index\` first`);
      }
      const { renderSvg } = await import("./graph.js");
      const ctx = createToolContext(config);
      try {
        const args = { symbol, depth: Number(opts.depth), direction: opts.direction, max_nodes: Number(opts.maxNodes), format: opts.format === "mermaid" ? "mermaid" : "dot", ...(opts.file ? { file_path: opts.file } : {}) };
        const answer = (await callTool(ctx, "mast_graph", args)) as { graph: string | null; not_found?: true; did_you_mean?: string[] };
        if (opts.json) return print(true, answer, () => "");
        if (answer.graph === null) {
          throw new MastError("SYMBOL_NOT_FOUND", `no declaration of ${JSON.stringify(symbol)} in the index`, { hint: answer.did_you_mean?.length ? `Did you mean ${answer.did_you_mean.join(", ")}?` : "Check the name with mast_search." });
        }
        process.stdout.write(`${opts.format === "svg" ? renderSvg(answer.graph) : answer.graph}\n`);
      } finally {
        ctx.close();
      }
    });

  const structural = program.command("structural").description("the structural index (mantis contract): a content-addressed catalog of symbols, call edges and function boundaries with precision tiers, for agents and tools that query it without mast");
  const locatorOptions = (c: Command) =>
    c
      .option("--target-root <dir>", "the code root (default: the current project)")
      .option("--snapshot-root <dir>", "a pinned snapshot's root (default: $SNAPSHOT_ROOT); pinned when its .mantis_snapshot.json names the snapshot id")
      .option("--snapshot-id <id>", "the snapshot id (default: workspace/.mantis_state.json's active_snapshot, the sentinel's, else \"unknown\": MODE-OFF, always rebuilt)")
      .option("--state-root <dir>", "where workspace/ (kb/structural_index, helpers) lives (default: the project's state dir)");
  locatorOptions(structural.command("build"))
    .description("build (or reuse) the structural index: units per partition at the highest tier available, the catalog, the manifest written last")
    .addOption(new Option("--max-precision <tier>", "the highest tier a partition may use").choices(["semantic", "typecheck", "ast", "symbol-only", "heuristic", "coverage-only"]).default("semantic"))
    .option("--max-units <n>", "units built at most (the rest deferred, resumed by the next build)", "10000")
    .option("--max-source-bytes <n>", "source bytes built at most", String(500 * 1024 * 1024))
    .option("--baseline <manifest>", "a baseline index (its manifest.json or state root): build only the overlay — the units whose output differs — and answer the rest from the baseline")
    .addOption(new Option("--baseline-source <where>", "where the baseline was built").choices(["ci", "local"]).default("ci"))
    .option("--threads <n>", "parse threads of the index run", parseThreads)
    .option("--json", "print the build summary as JSON")
    .action(async (opts: LocatorFlags & { maxPrecision: string; maxUnits: string; maxSourceBytes: string; baseline?: string; baselineSource: string; threads?: number; json?: boolean }) => {
      const { buildStructural } = await import("../structural/build.js");
      const located = await locateStructural(opts);
      const positive = (v: string, flag: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) throw new MastError("INVALID_ARGUMENT", `${flag} must be a positive integer, not ${JSON.stringify(v)}`);
        return n;
      };
      const summary = await buildStructural(located, {
        maxPrecision: opts.maxPrecision as "semantic",
        maxUnits: positive(opts.maxUnits, "--max-units"),
        maxSourceBytes: positive(opts.maxSourceBytes, "--max-source-bytes"),
        checker: (await import("../query/checker.js")).checkerPass,
        ...(opts.baseline === undefined ? {} : { baseline: opts.baseline, baselineSource: opts.baselineSource as "ci" | "local" }),
        ...(opts.threads === undefined ? {} : { threads: opts.threads }),
      });
      print(opts.json, summary, () => {
        const tiers = Object.entries(summary.backends).map(([lang, b]) => `${lang}: ${b.backend_name} (${b.precision})`).join(", ");
        return [
          `${summary.reused_index ? "reused" : "built"} ${summary.manifest} (snapshot ${summary.snapshot_id}, ${summary.mode}, ${summary.status})`,
          `units: ${n(summary.units_total)} (${n(summary.units_reused)} reused, ${n(summary.units_rebuilt)} built, ${n(summary.units_failed)} failed, ${n(summary.units_deferred)} deferred)`,
          `symbols: ${n(summary.symbols)}, call edges: ${n(summary.edges)}; files: ${n(summary.coverage.indexed_files)} of ${n(summary.coverage.total_files)} indexed`,
          ...(tiers ? [`backends: ${tiers}`] : []),
          `query helper: ${summary.query_helper}`,
          ...(summary.message ? [summary.message] : []),
        ].join("\n");
      });
    });
  locatorOptions(structural.command("query <operation> [json]"))
    .description("answer one operation of the consumption contract: resolve_symbol, find_callers, find_callees, get_function_boundary, get_coverage (remote when MANTIS_STRUCTURAL_INDEX_URL is set)")
    .addHelpText("after", `\nExamples:\n  mast structural query resolve_symbol '{"name":"validate"}'\n  mast structural query find_callers '{"symbol_id":"fallback:typescript:src/a.ts:0123456789abcdef","limit":20}'\n  mast structural query get_function_boundary '{"file":"src/a.ts","line":42}'`)
    .action(async (operation: string, json: string | undefined, opts: LocatorFlags) => {
      const { queryStructural } = await import("../structural/query.js");
      let args: unknown;
      try {
        args = JSON.parse(json ?? "{}");
      } catch (err) {
        throw new MastError("INVALID_ARGUMENT", `the arguments are not valid JSON: ${errorMessage(err)}`, { hint: `Pass one JSON object, e.g. '{"name":"validate"}'.` });
      }
      process.stdout.write(`${JSON.stringify(await queryStructural(await queryLayout(opts), operation, args), null, 2)}\n`);
    });
  locatorOptions(structural.command("serve"))
    .description("serve the five operations over HTTP (POST /v1/<operation>): the remote provider MANTIS_STRUCTURAL_INDEX_URL points at")
    .option("--port <port>", "port (0: any free one, printed on stderr)", "7431")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .action(async (opts: LocatorFlags & { port: string; host: string }) => {
      const { structuralServer } = await import("../structural/serve.js");
      const layout = await queryLayout(opts);
      const server = structuralServer(layout);
      await new Promise<void>((resolve, reject) => {
        server.once("error", (err) => reject(new MastError("INVALID_ARGUMENT", `cannot listen on ${opts.host}:${opts.port}: ${errorMessage(err)}`)));
        server.listen(Number(opts.port), opts.host, () => resolve());
      });
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : Number(opts.port);
      process.stderr.write(`mast structural serve: http://${opts.host}:${port}/v1/ (${layout.dir})\n`);
      await new Promise<void>((resolve) => {
        for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => server.close(() => resolve()));
      });
    });

  program
    .command("query <tool> [json] [path]")
    .description("call any tool by its MCP name with a JSON argument object, exactly as an MCP client would")
    .addOption(stateDirOption())
    .option("--json", "print the exact single-line response text (default: pretty-printed)")
    .option("--no-server", "answer in this process even when a `mast serve` of the project is running (by default it answers, from its open index)")
    .addHelpText("after", `\nTools:\n${tools.map((t) => `  ${t.name.padEnd(24)}${t.title}`).join("\n")}\n\nExample:\n  mast query mast_search '{"query":"validate","limit":5}' .`)
    .action(async (toolName: string, json: string | undefined, path: string | undefined, opts: CommonOptions & { server: boolean }) => {
      // An unknown tool is named as the registry names it (with the closest names).
      if (!tools.some((t) => t.name === toolName)) (await import("../tools/registry.js")).findTool(toolName);
      let args: unknown;
      try {
        args = JSON.parse(json ?? "{}");
      } catch (err) {
        throw new MastError("INVALID_ARGUMENT", `the tool arguments are not valid JSON: ${errorMessage(err)}`, { hint: `Pass one JSON object, e.g. '{"query":"validate"}'.`, usage: true });
      }
      const config = loadConfig(path, { stateDir: opts.stateDir });
      // A `mast serve` of this project answers from its open index (mcp/local.ts); else this process does.
      if (opts.server) {
        const { askRunningServer } = await import("../mcp/local.js");
        const reply = await askRunningServer({ root: config.project_root, stateDir: config.state_dir, version: VERSION }, { tool: toolName, arguments: args });
        if (reply !== null) {
          if (process.env.MAST_DEBUG) process.stderr.write("mast: answered by the running mast serve\n");
          if ("text" in reply) {
            process.stdout.write(`${opts.json ? reply.text : JSON.stringify(JSON.parse(reply.text), null, 2)}\n`);
            return;
          }
          process.stdout.write(`${opts.json ? JSON.stringify(reply.failure) : JSON.stringify(reply.failure, null, 2)}\n`);
          const { error } = reply.failure;
          if (error.code === "INTERNAL") throw new Error(error.message);
          throw new MastError(error.code, error.message, { hint: error.recovery ?? ERROR_CODES[error.code], usage: reply.usage, ...(error.details ? { details: error.details } : {}) });
        }
      }
      if (!existsSync((await statePathsOf(config)).graphDb)) {
        throw new MastError("NOT_INDEXED", `no index found at ${config.state_dir}; run \`mast init\` / \`mast index\` first`);
      }
      const { runTool } = await import("../tools/registry.js");
      const { createToolContext } = await import("../tools/context.js");
      // The call is recorded in metrics.db as `mast serve` records its calls (session "mast-query", counted by estimate), after the answer is printed.
      const { EstimatedRecorder } = await import("../tools/telemetry.js");
      const recorder = config.telemetry ? new EstimatedRecorder(config.state_dir, config.project_root, (line) => process.stderr.write(`mast: ${line}\n`)) : undefined;
      const ctx = createToolContext(config, config.project_root, undefined, recorder);
      try {
        // What an MCP client gets as the result's text: the answer, or the failure (then also named on stderr, with its exit code).
        let printed: unknown;
        let failure: unknown = null;
        try {
          // No `_stats` in the text (MCP sends them in the result's `_meta`).
          const { answer, text } = await runTool(ctx, toolName, args);
          printed = opts.json ? text : answer;
        } catch (err) {
          const { failureOf } = await import("../tools/envelope.js");
          printed = opts.json ? JSON.stringify(failureOf(err)) : failureOf(err);
          failure = err;
        }
        process.stdout.write(typeof printed === "string" ? `${printed}\n` : `${JSON.stringify(printed, null, 2)}\n`);
        if (failure !== null) throw failure;
      } finally {
        ctx.close();
        recorder?.close();
      }
    });

  return program;
}

/** The structural commands' locator flags, as commander names them (kebab-case: `--target-root` → targetRoot). */
interface LocatorFlags {
  targetRoot?: string;
  snapshotRoot?: string;
  snapshotId?: string;
  stateRoot?: string;
}

/**
 * The mantis contract's flag names (`--target_root`, `--max_precision`, …) as the kebab-case ones
 * every other mast flag uses: in a `mast structural` command line, an argument that is one (or
 * `--name=value`) is rewritten before commander reads the line, so both spellings work and help
 * shows one. Other commands' lines are left as given.
 */
const SNAKE_CASE_FLAGS = ["target_root", "snapshot_root", "snapshot_id", "state_root", "max_precision", "max_units", "max_source_bytes", "baseline_source"];

function kebabCaseFlags(argv: readonly string[]): string[] {
  if (argv[2] !== "structural") return [...argv];
  return argv.map((arg) => {
    const name = /^--([a-z_]+)(=|$)/.exec(arg)?.[1];
    return name !== undefined && SNAKE_CASE_FLAGS.includes(name) ? `--${name.replace(/_/g, "-")}${arg.slice(2 + name.length)}` : arg;
  });
}

/** The structural locators of a command (the state root defaults to the code root's mast state dir). */
async function locateStructural(opts: LocatorFlags) {
  const { locate } = await import("../structural/locate.js");
  return locate(opts, findProjectRoot(undefined), (codeRoot) => resolveConfig(codeRoot, {}).state_dir);
}

/** Where a query reads: `--state-root` alone needs no code root (a pinned snapshot's tree may be gone); else as a build locates it. */
async function queryLayout(opts: LocatorFlags) {
  const { structuralLayout } = await import("../structural/locate.js");
  return opts.stateRoot ? structuralLayout(resolvePath(opts.stateRoot)) : (await locateStructural(opts)).layout;
}

async function main(argv: string[]): Promise<number> {
  // Before the command's own chunks load (this file's imports are compiled already).
  enableCompileCache();
  const program = buildProgram(await loadTools(argv));
  try {
    await program.parseAsync(kebabCaseFlags(argv));
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed its message (help, version, or a usage error).
      return err.exitCode === 0 ? 0 : 2;
    }
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
