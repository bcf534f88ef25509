// `mast serve`: the MCP server (docs/index-lifecycle.md#startup-reindex) over stdio (stdio.ts) or streamable HTTP (http.ts). Its
// startup ladder bootstraps the state dir (copying a seed index when one exists), guards the
// schema, opens the transport answering tools/list from the build's listing (listing.ts), loads
// the tools after the first listing (or at the first call), reindexes in the background, and
// answers `mast query` of its project on the state dir's socket (local.ts).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { cpSync, existsSync, readdirSync } from "node:fs";
import { MastError, errorMessage, isMastError } from "../base/errors.js";
import type { ResolvedConfig } from "../index/config.js";
import { SERVER_LOCK_POLICY, withStructureLock } from "../index/lock.js";
import { indexThreads } from "../query/index-threads.js";
import type { ToolContext } from "../tools/context.js";
import { startWatch } from "../index/watch.js";
import { ensureStateDir, guardSchema, isNeverIndexed, packedStampsCurrent, persistConfig, readIndexJson, statePaths, writeJsonAtomic } from "../index/state.js";
import { indexLock } from "../index/status.js";
import { Store } from "../store/store.js";
import { failureOf } from "../tools/envelope.js";
import { DEFAULT_TOOLSETS, type ToolCall, type Toolset } from "../tools/define.js";
// The HTTP transport (and the SDK's, with what it loads: undici, http2) loads only for --http: 40 ms of every stdio start.
import type { HttpOptions } from "./http.js";
import type { ListedTool, ListingForm } from "../tools/registry.js";
import { offeredListing, toolListings } from "./listing.js";
import { listenLocal, type LocalReply, type LocalRequest } from "./local.js";
import { LimitedStdioTransport } from "./stdio.js";

export const DEFAULT_SEED_DIR = "/opt/mast-seed";

/** Where a call result's `_meta` carries the answer's `_stats` (docs/telemetry.md#the-_stats-of-an-answer): a prefixed key, as MCP asks of `_meta` keys. */
export const STATS_META_KEY = "mast/stats";

export interface ServeOptions {
  readonly startupReindex: boolean;
  readonly version: string;
  /** Where a pre-built seed index may be found (MAST_SEED_DIR, default /opt/mast-seed). */
  readonly seedDir: string;
  readonly log: (line: string) => void;
  /** The toolsets offered (default: read and edit): `read` (the index tools), `edit` (hashpilot's reads and edits), `more`, `admin` (its reports), `structural` (the structural index). */
  readonly toolsets?: readonly Toolset[];
  /** Watch the tree and reindex what changes (docs/index-lifecycle.md#watching-the-tree). */
  readonly watch?: boolean;
  /** Serve over streamable HTTP instead of stdio. */
  readonly http?: HttpOptions;
  /** The state root the `structural` toolset reads the structural index under (default: the state dir). */
  readonly structuralRoot?: string;
  /** How tools/list gives the tools (default compact: no output schemas, unlisted keys left out). */
  readonly schemas?: ListingForm;
  /** Answer `mast query` of this project on the state dir's socket (local.ts; default true). */
  readonly localSocket?: boolean;
  /** Ends the process at once with `code`: a second SIGINT/SIGTERM while the first one's cleanup runs (the CLI's, which alone knows exit codes). */
  readonly exit: (code: number) => void;
}

/** Step 1: a missing or empty state dir is filled from the seed index when one exists. */
function bootstrapStateDir(config: ResolvedConfig, seedDir: string, log: (line: string) => void): void {
  const dir = config.state_dir;
  const empty = !existsSync(dir) || readdirSync(dir).length === 0;
  const seed = statePaths(seedDir);
  if (empty && existsSync(seed.graphDb) && existsSync(seed.indexJson)) {
    cpSync(seedDir, dir, { recursive: true });
    const paths = statePaths(dir);
    const index = readIndexJson(paths);
    if (index) writeJsonAtomic(paths.indexJson, { ...index, seed_commit: index.seed_commit ?? index.source_commit ?? "unknown" });
    log(`mast serve: state dir seeded from ${seedDir}`);
  }
  ensureStateDir(config);
}

/** Records the server's config in the state dir, under structure.lock (after the first answers: the lock and the fsync are not on the way to tools/list); never rejects. */
async function persistServeConfig(config: ResolvedConfig, log: (line: string) => void): Promise<void> {
  try {
    await withStructureLock(statePaths(config.state_dir).lock, "mast serve startup", SERVER_LOCK_POLICY, async () => persistConfig(config));
  } catch (err) {
    // Another indexer holds the lock: the config it runs with stands; serving goes on.
    log(`mast serve: config not persisted: ${errorMessage(err)}`);
  }
}

/**
 * What the server tells a client at initialize: which tool answers what, in a few lines, naming
 * only the tools it offers (a line whose tools are not all offered is left out).
 */
export function serverInstructions(offered: readonly string[]): string {
  const lines: Array<[string, readonly string[]]> = [
    ["mast answers from a persistent index of this project: ask it for the code you need instead of reading whole files.", []],
    [
      "- Find code: mast_search (ranked chunks, exact names first). Overview: mast_project_skeleton. " +
        "A file's API: mast_exports; its imports: mast_dependencies. A symbol's signature and types: mast_signature.",
      ["mast_search", "mast_project_skeleton", "mast_exports", "mast_dependencies", "mast_signature"],
    ],
    [
      "- Before changing a symbol: mast_callers (verified_callers are proven; review potential_matches), mast_implementors, mast_rename_impact. " +
        "A name no declaration has answers not_found: true with did_you_mean names.",
      ["mast_callers", "mast_implementors", "mast_rename_impact"],
    ],
    [
      "- After writing files by other means: mast_reindex. Health and freshness: mast_status. " +
        "An answer carrying `indexing` is from the index before a running reindex; " +
        "`stale` and `file_busy_returning_stale_cache` mark rows older than the disk.",
      ["mast_reindex", "mast_status"],
    ],
    [
      "- Edit safely: read_hash gives line hashes and the file hash; " +
        "replace_hash and diff_apply write only where the anchor is certain (AMBIGUOUS_ANCHOR or STALE_ANCHOR otherwise: re-read, retry); " +
        "undo reverts a changeSet.",
      ["read_hash", "replace_hash", "diff_apply", "undo"],
    ],
  ];
  return lines
    .filter(([, tools]) => tools.every((t) => offered.includes(t)))
    .map(([line]) => line)
    .join("\n");
}

/** How long after its transport is up a server that has had no tools/list or tools/call starts the rest of its startup. */
const STARTUP_QUIET_MS = 250;
/** How often a server checks that file-stamps.bin still names graph.db's files generation. */
const STAMPS_CHECK_MS = 2_500;

/**
 * Keeps file-stamps.bin up with graph.db while the server runs: its just-in-time refreshes commit
 * file rows no index run follows, after which every `mast status` (and the next run) read 110,000
 * stamps from the rows instead (a 1 GB status 300 → 360 ms). Every STAMPS_CHECK_MS the copy's
 * header is compared with graph.db's files generation; when it is behind, no commit moved the
 * generation since the last check (an agent's edits in a row make one write, after them: at 1 GB
 * the write reads 110,000 rows and writes 11 MB, ~370 ms of a worker's time) and no index run
 * holds the lock (a run writes the copy at its end), it is written again in a worker thread.
 * `stop` ends it.
 */
function keepPackedStamps(config: ResolvedConfig, log: (line: string) => void): { stop(): void } {
  const paths = statePaths(config.state_dir);
  let running = false;
  let seen: string | null = null;
  const check = () => {
    if (running || indexLock(config).state === "held" || !existsSync(paths.graphDb)) return;
    let generation: string | null;
    try {
      const store = Store.open(paths.graphDb, { readonly: true });
      try {
        generation = store.filesGeneration();
      } finally {
        store.close();
      }
    } catch {
      return; // a graph.db being rebuilt: the run that rebuilds it writes the copy
    }
    const quiet = generation === seen;
    seen = generation;
    if (!quiet || packedStampsCurrent(paths, generation)) return;
    running = true;
    indexThreads.packStamps(config).then(
      () => (running = false),
      (err: unknown) => {
        running = false;
        log(`mast serve: file-stamps.bin not written: ${errorMessage(err)}`);
      },
    );
  };
  const timer = setInterval(check, STAMPS_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** What answers tools/call, loaded once. */
interface Tools {
  readonly registry: typeof import("../tools/registry.js");
  readonly ctx: ToolContext;
  readonly recorder?: { close(): Promise<void> };
}

async function loadTools(config: ResolvedConfig, options: ServeOptions): Promise<Tools> {
  const [registry, { createToolContext }, { Telemetry }] = await Promise.all([import("../tools/registry.js"), import("../tools/context.js"), import("../tools/telemetry.js")]);
  const recorder = config.telemetry ? new Telemetry(config.state_dir, config.project_root, options.log) : undefined;
  return { registry, ctx: createToolContext(config, config.project_root, undefined, recorder, options.structuralRoot), ...(recorder ? { recorder } : {}) };
}

/**
 * The tools themselves (the registry, every tool's code, the telemetry recorder, the checker pass
 * for this thread's runs), loaded once — after the first tools/list is answered, or at the first
 * call — and closed at the session's end if they were.
 */
function lazyTools(config: ResolvedConfig, options: ServeOptions): { load(): Promise<Tools>; close(): Promise<void> } {
  let loaded: Promise<Tools> | null = null;
  return {
    load: () => (loaded ??= loadTools(config, options)),
    close: async () => {
      if (loaded === null) return;
      const tools = await loaded.catch(() => null);
      await tools?.recorder?.close();
      tools?.ctx.close();
    },
  };
}

/** Steps 1 and 2: the state dir bootstrapped (a never-indexed one refused without a startup reindex) and its schema guarded. */
function prepareStateDir(config: ResolvedConfig, options: ServeOptions): void {
  bootstrapStateDir(config, options.seedDir, options.log);
  const paths = statePaths(config.state_dir);
  if (!options.startupReindex && isNeverIndexed(paths)) {
    throw new MastError("NOT_INDEXED", `--no-startup-reindex with a never-indexed state dir (${config.state_dir}) would answer every query with nothing`, {
      hint: "Run `mast init` / `mast index` first, or drop --no-startup-reindex.",
    });
  }
  guardSchema(paths);
}

/** What every connection's Server shares. */
export interface Session {
  readonly version: string;
  /** What tools/list answers. */
  readonly listing: ListedTool[];
  /** The names of the tools offered. */
  readonly offered: readonly string[];
  /** What the server says at initialize. */
  readonly instructions: string;
  /** A tool's answer (its JSON as `text`); throws what the client is told. */
  /** `signal`: aborted when the client cancelled the call (a call still waiting to be answered need not be). */
  readonly call: (name: string, args: unknown, progress: ToolCall["progress"], signal?: AbortSignal) => Promise<{ answer: unknown; text: string; stats?: unknown }>;
  /** Called after a tools/list is answered: what the calls need may load now. */
  readonly warm: () => void;
  /** Called at a tools/list or tools/call: the rest of the startup may begin. */
  readonly answering: () => void;
}

/** The session's call of a project's tools: the registry's, once loaded. */
function projectCall(tools: () => Promise<Tools>, offered: readonly string[]): Session["call"] {
  return async (name, args, progress) => {
    const { registry, ctx } = await tools();
    if (!offered.includes(name)) {
      throw new MastError("INVALID_ARGUMENT", `unknown tool ${JSON.stringify(name)}`, { hint: registry.unknownToolHint(name, offered) });
    }
    return registry.runTool(ctx, name, args, progress ? { progress } : {});
  };
}

/** A tools/call answered: the tool's answer as text and structuredContent, or a tool error — an answer, never a crash. */
async function callTool(session: Session, name: string, args: Record<string, unknown>, progress: ToolCall["progress"], signal?: AbortSignal) {
  try {
    const { answer, text, stats } = await session.call(name, args, progress, signal);
    // `_stats` rides in the result's `_meta`, which clients keep from the model (docs/decisions.md).
    return {
      content: [{ type: "text", text }],
      structuredContent: answer as Record<string, unknown>,
      ...(stats ? { _meta: { [STATS_META_KEY]: stats } } : {}),
    };
  } catch (err) {
    // A tool error is an answer, never a crash, in one shape for every tool: the code, and the recovery that tells the agent what to do.
    return { isError: true, content: [{ type: "text", text: JSON.stringify(failureOf(err)) }] };
  }
}

/** One Server per connection (stdio has one; over HTTP each session has its own), all sharing the session. */
export function createMcpServer(session: Session): Server {
  const server = new Server({ name: "mast", version: session.version }, { capabilities: { tools: {} }, instructions: session.instructions });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    setImmediate(() => {
      session.warm();
      session.answering();
    });
    return { tools: session.listing };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // A client that sent a progress token hears how a long call goes (mast_reindex).
    const token = request.params._meta?.progressToken;
    const notify = (done: number, total: number | undefined, message: string) => {
      const params = { progressToken: token!, progress: done, ...(total === undefined ? {} : { total }), message };
      void extra.sendNotification({ method: "notifications/progress", params }).catch(() => undefined);
    };
    session.answering();
    return callTool(session, request.params.name, request.params.arguments ?? {}, token === undefined ? undefined : notify, extra.signal);
  });
  return server;
}

/**
 * The session's end: a SIGTERM or SIGINT, or `stop` (stdio's client closing the pipe). Its handlers
 * are held for the process's life, not once: a library's exit hook (signal-exit, under
 * proper-lockfile) re-raises a signal no other listener holds, which killed the server before its
 * cleanup (the local socket and token were left behind). A second signal exits at once.
 */
export function sessionEnd(exit: (code: number) => void): { closed: Promise<void>; stop: () => void } {
  let stop: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    stop = resolve;
    let signalled = false;
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.on(signal, () => {
        if (signalled) exit(signal === "SIGINT" ? 130 : 143);
        signalled = true;
        process.stdin.destroy();
        resolve();
      });
    }
  });
  return { closed, stop };
}

/** The HTTP transport (http.ts) with its options, when `--http` asked for it. */
interface HttpServing {
  readonly options: HttpOptions;
  readonly transport: typeof import("./http.js");
}

/** Step 3: the transport up — HTTP's listener, or stdio, whose end ends the session (`stop`); answers how to close it. */
export async function openTransport(makeServer: () => Server, http: HttpServing | null, stop: () => void, log: (line: string) => void): Promise<() => Promise<void>> {
  if (http) {
    const listening = await http.transport.serveHttp(makeServer, http.options);
    log(`mast serve: listening on ${listening.url}${http.options.token ? " (bearer token required)" : ""}`);
    return listening.close;
  }
  const server = makeServer();
  const transport = new LimitedStdioTransport();
  transport.onclose = () => stop();
  // What the transport could not deliver (a line over the request limit, one that is not JSON-RPC) is logged.
  server.onerror = (err) => log(`mast serve: ${isMastError(err) ? `${err.code}: ` : ""}${errorMessage(err)}`);
  process.stdin.once("end", () => stop());
  await server.connect(transport);
  return () => server.close().catch(() => undefined);
}

/** Resolves at the first of: `first` (the client's first tools/list or tools/call), `closed`, STARTUP_QUIET_MS. */
async function firstRequestOrQuiet(first: Promise<void>, closed: Promise<void>): Promise<void> {
  let quiet: NodeJS.Timeout | undefined;
  await Promise.race([first, closed, new Promise<void>((resolve) => (quiet = setTimeout(resolve, STARTUP_QUIET_MS)))]);
  clearTimeout(quiet);
}

/**
 * `mast query` of this project answered here (local.ts): the tools offered, except the structural
 * ones when they read another state root than the CLI's would. Null with `localSocket: false`.
 */
async function answerLocalQueries(config: ResolvedConfig, options: ServeOptions, toolsets: readonly Toolset[], session: Session): Promise<{ close(): Promise<void> } | null> {
  const localTools =
    options.structuralRoot === undefined ? session.offered : (await toolListings()).filter((t) => t.toolset !== "structural" && toolsets.includes(t.toolset)).map((t) => t.compact.name);
  const answerLocal = async ({ tool, arguments: args }: LocalRequest): Promise<LocalReply> => {
    if (!localTools.includes(tool)) return { unavailable: `this server does not offer ${tool}` };
    try {
      return { text: (await session.call(tool, args, undefined)).text };
    } catch (err) {
      return { failure: failureOf(err), usage: isMastError(err) && err.usage };
    }
  };
  if (options.localSocket === false) return null;
  return listenLocal({ root: config.project_root, stateDir: config.state_dir, version: options.version }, answerLocal, options.log);
}

/** Step 4: catch up with the tree in a worker thread; queries are served meanwhile. Not awaited: it logs how it went. */
function startupReindex(config: ResolvedConfig, log: (line: string) => void): void {
  void indexThreads
    .runIndex(config, {
      mode: "incremental",
      operation: "mast serve startup reindex",
      lockPolicy: SERVER_LOCK_POLICY,
      checker: config.checker,
    })
    .then(
      (r) =>
        log(
          `mast serve: startup reindex done: ${r.files_indexed} indexed, ${r.files_deleted} removed, ${r.parse_errors + r.write_errors + r.read_errors} errors` +
            (r.checker ? `; checker: ${r.checker.candidates} potential matches checked, ${r.checker.edges} checker edges` : ""),
        ),
      (err: unknown) => log(`mast serve: startup reindex failed: ${errorMessage(err)}`),
    );
}

/**
 * What starts once the client has been answered: the local socket, the config's record, the startup
 * reindex's worker, the watcher and the packed stamps' keeper. Answers how to stop them, in order.
 */
async function startBackground(config: ResolvedConfig, options: ServeOptions, toolsets: readonly Toolset[], session: Session): Promise<() => Promise<void>> {
  const local = await answerLocalQueries(config, options, toolsets, session);
  // Not awaited: a client's mast_reindex holding the lock must not hold back the startup reindex or a signal.
  const persisted = persistServeConfig(config, options.log);
  if (options.startupReindex) startupReindex(config, options.log);
  const watch = options.watch
    ? startWatch(config, {
        run: () => indexThreads.runIndex(config, { mode: "incremental", operation: "mast serve --watch", lockPolicy: SERVER_LOCK_POLICY, checker: config.checker }),
        log: options.log,
      })
    : null;
  if (watch) void watch.ready.then(() => options.log("mast serve --watch: watching for changes"));
  const stamps = keepPackedStamps(config, options.log);
  return async () => {
    stamps.stop();
    // No `mast query` is taken once the session ends.
    await local?.close();
    await persisted;
    await watch?.close();
  };
}

export async function serve(config: ResolvedConfig, options: ServeOptions): Promise<void> {
  const http = options.http ? { options: options.http, transport: await import("./http.js") } : null;
  http?.transport.checkHttpOptions(http.options);
  prepareStateDir(config, options);

  const toolsets = options.toolsets ?? DEFAULT_TOOLSETS;
  const listing = await offeredListing(toolsets, options.schemas ?? "compact");
  const tools = lazyTools(config, options);
  // The rest of the startup waits for the first tools/list or tools/call, or STARTUP_QUIET_MS.
  let answering: () => void = () => undefined;
  const firstRequest = new Promise<void>((resolve) => (answering = resolve));
  const offered = listing.map((t) => t.name);
  const session: Session = {
    version: options.version,
    listing,
    offered,
    instructions: serverInstructions(offered),
    call: projectCall(tools.load, offered),
    warm: () => void tools.load().catch(() => undefined),
    answering,
  };

  const end = sessionEnd(options.exit);
  const closeTransport = await openTransport(() => createMcpServer(session), http, end.stop, options.log);
  options.log(`mast serve: ready (${session.offered.length} tools) for ${config.project_root}`);
  // The local socket, the config's record, the startup reindex's worker and the watcher start once
  // the client has been answered (its tools/list, or a first call), or after STARTUP_QUIET_MS: none
  // of it is on the way to the first answers (their lock, files, fsync and worker thread took
  // 20-60 ms of a 2-core machine's first 300 ms).
  await firstRequestOrQuiet(firstRequest, end.closed);
  const stopBackground = await startBackground(config, options, toolsets, session);
  await end.closed;
  await stopBackground();
  await closeTransport();
  await tools.close();
}
