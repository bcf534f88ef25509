// `mast serve`: every tool over MCP, on stdio or streamable HTTP, until the client goes; its flags
// checked here (toolsets, port, timeouts, the tools/list form) before the server loads.
import { homedir } from "node:os";
import { isAbsolute, join, resolve as resolvePath } from "node:path";
import { compileGlobs } from "../../base/glob.js";
import { sha256 } from "../../base/hash.js";
import { MastError } from "../../base/errors.js";
import { VERSION } from "../../base/version.js";
import { TOOLSETS, type Toolset } from "../../tools/define.js";
import { FLAGS } from "../flags.js";
import type { CommandSpec } from "../program.js";
import { loadConfig, type CommonOptions } from "./common.js";

interface ServeOptions extends CommonOptions {
  socket: boolean;
  startupReindex: boolean;
  toolsets: string;
  checker?: boolean;
  watch?: boolean;
  http?: boolean;
  port: string;
  host: string;
  idleTimeout: string;
  maxSessions: string;
  structuralRoot?: string;
  schemas: string;
  store?: string;
  repository?: string;
  cache?: string;
  syncSeconds: string;
  answerThreads?: string;
  searchRepositories?: string;
}

/** Where `--store`'s replicas are kept by default: the user's cache, a directory per store (`store`: its URL without the password). */
function defaultCacheDir(store: string): string {
  const cache = process.env.XDG_CACHE_HOME && isAbsolute(process.env.XDG_CACHE_HOME) ? process.env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(cache, "mast", "replicas", sha256(store).slice(0, 16));
}

/** `mast serve --store`: the read tools over every repository published to the store. */
async function serveFromStore(path: string | undefined, opts: ServeOptions, settings: ReturnType<typeof checkedSettings>, token: string | undefined): Promise<void> {
  const url = opts.store!;
  // Loaded only here: the PostgreSQL client is not on the way of every other command's start.
  const { checkStoreUrl, withoutPassword } = await import("../../store/pg/client.js");
  checkStoreUrl(url, "--store");
  if (path !== undefined || opts.stateDir !== undefined || opts.watch || opts.structuralRoot !== undefined) {
    throw new MastError("INVALID_ARGUMENT", "--store serves the published repositories: it takes no path, --state-dir, --watch or --structural-root", { usage: true });
  }
  const syncSeconds = Number(opts.syncSeconds);
  if (!(syncSeconds >= 0.1 && syncSeconds <= 86_400)) {
    throw new MastError("INVALID_ARGUMENT", `--sync-seconds takes a number of seconds from 0.1 to 86400, not ${JSON.stringify(opts.syncSeconds)}`, { usage: true });
  }
  const answerThreads = opts.answerThreads === undefined ? undefined : Number(opts.answerThreads);
  if (answerThreads !== undefined && !(Number.isInteger(answerThreads) && answerThreads >= 1 && answerThreads <= 64)) {
    throw new MastError("INVALID_ARGUMENT", `--answer-threads takes a whole number from 1 to 64, not ${JSON.stringify(opts.answerThreads)}`, { usage: true });
  }
  const searchRepositories = opts.searchRepositories === undefined ? undefined : Number(opts.searchRepositories);
  if (searchRepositories !== undefined && !(Number.isInteger(searchRepositories) && searchRepositories >= 0 && searchRepositories <= 100_000)) {
    throw new MastError("INVALID_ARGUMENT", `--search-repositories takes a whole number from 0 (every repository) up, not ${JSON.stringify(opts.searchRepositories)}`, { usage: true });
  }
  // A malformed glob is a usage error now, not a failed sync later.
  if (opts.repository !== undefined) compileGlobs([opts.repository]);
  const { serveStore } = await import("../../mcp/store-server.js");
  const { storeRelevance } = await import("../../store/pg/search.js");
  const log = (line: string) => process.stderr.write(`${line}\n`);
  await serveStore({
    url,
    cacheDir: resolvePath(opts.cache ?? defaultCacheDir(withoutPassword(url))),
    filter: opts.repository ?? null,
    syncMs: syncSeconds * 1000,
    ...(answerThreads === undefined ? {} : { answerThreads }),
    ...(searchRepositories === undefined ? {} : { searchRepositories }),
    relevance: storeRelevance(url, log),
    version: VERSION,
    log,
    exit: (code) => process.exit(code),
    schemas: settings.schemas,
    ...(opts.http ? { http: { host: opts.host, port: settings.port, idleMs: settings.idleSeconds * 1000, maxSessions: settings.maxSessions, ...(token ? { token } : {}) } } : {}),
  });
}

/** The HTTP settings and toolsets the flags name, refused when out of range. */
function checkedSettings(opts: ServeOptions): { schemas: "compact" | "full"; toolsets: Toolset[]; port: number; idleSeconds: number; maxSessions: number } {
  if (opts.schemas !== "compact" && opts.schemas !== "full") {
    throw new MastError("INVALID_ARGUMENT", `--schemas takes compact or full, not ${JSON.stringify(opts.schemas)}`, {
      hint: "e.g. --schemas full",
      usage: true,
    });
  }
  const toolsets = opts.toolsets.split(",").map((t) => t.trim());
  const unknown = toolsets.filter((t) => !(TOOLSETS as readonly string[]).includes(t));
  if (unknown.length > 0 || toolsets.length === 0) {
    throw new MastError("INVALID_ARGUMENT", `--toolsets takes some of ${TOOLSETS.join(", ")}, not ${JSON.stringify(opts.toolsets)}`, {
      hint: "e.g. --toolsets read or --toolsets read,edit,admin",
      usage: true,
    });
  }
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new MastError("INVALID_ARGUMENT", `--port takes a port number from 0 to 65535, not ${JSON.stringify(opts.port)}`, {
      hint: "e.g. --port 7730",
      usage: true,
    });
  const idleSeconds = Number(opts.idleTimeout);
  if (!(idleSeconds > 0))
    throw new MastError("INVALID_ARGUMENT", `--idle-timeout takes a positive number of seconds, not ${JSON.stringify(opts.idleTimeout)}`, {
      hint: "e.g. --idle-timeout 1800",
      usage: true,
    });
  const maxSessions = Number(opts.maxSessions);
  if (!Number.isInteger(maxSessions) || maxSessions < 1)
    throw new MastError("INVALID_ARGUMENT", `--max-sessions takes a positive integer, not ${JSON.stringify(opts.maxSessions)}`, {
      hint: "e.g. --max-sessions 256",
      usage: true,
    });
  return { schemas: opts.schemas, toolsets: toolsets as Toolset[], port, idleSeconds, maxSessions };
}

export const serveCommand: CommandSpec<ServeOptions> = {
  name: "serve",
  description: "serve every tool over MCP on stdio until stdin closes (reindexes in the background at startup)",
  args: ["[path]"],
  flags: [
    FLAGS.stateDir,
    { name: "no-startup-reindex", help: "skip the background reindex at startup (refused on a never-indexed state dir)" },
    {
      name: "toolsets",
      value: "<list>",
      help: "toolsets to offer: read (the index tools), edit (hashpilot's reads and edits), more (grep, diff generation, symbol lookup, history), admin (hashpilot's telemetry, provenance, config and route), structural (the structural index: resolve_symbol, find_callers, find_callees, get_function_boundary, get_coverage)",
      default: "read,edit",
    },
    { name: "structural-root", value: "<dir>", help: "the state root the structural toolset reads (default: the project's state dir)" },
    // Here the flag reaches further than a run's: the startup reindex and every mast_reindex.
    { ...FLAGS.checker, help: "the startup reindex and mast_reindex also run the TypeScript-checker pass (as `checker: true` in mast.config.json does)" },
    { name: "watch", help: "watch the project and reindex files created, changed or deleted by any means (500 ms debounce)" },
    {
      name: "http",
      help: "serve over streamable HTTP at /mcp instead of stdio (until SIGTERM/SIGINT); MAST_HTTP_TOKEN, when set (16 characters or more), is required as a bearer token",
    },
    { name: "port", value: "<n>", help: "with --http: the port (0 picks a free one)", default: "7730" },
    { name: "host", value: "<host>", help: "with --http: the address to listen on (not loopback only with MAST_HTTP_TOKEN set)", default: "127.0.0.1" },
    {
      name: "idle-timeout",
      value: "<seconds>",
      help: "with --http: close a session after this long with no request or stream open (fractions allowed, for tests)",
      default: "1800",
    },
    {
      name: "max-sessions",
      value: "<n>",
      help: "with --http: sessions open at once; a new one closes the longest idle, or is refused with 503 when none is idle",
      default: "256",
    },
    {
      name: "schemas",
      value: "<form>",
      help: "how tools/list gives the tools: compact (what a model needs: no output schemas, pipeline settings left out) or full (every input and output schema whole, for clients that validate answers)",
      default: "compact",
    },
    { name: "no-socket", help: "do not answer `mast query` of this project on the state dir's socket (serve.sock)" },
    {
      name: "store",
      value: "<url>",
      help: "serve the read tools over every repository published to this PostgreSQL store (postgres://…) instead of a project, from local replicas of their active snapshots",
    },
    { name: "repository", value: "<glob>", help: "with --store: serve only the repositories whose names match" },
    { name: "cache", value: "<dir>", help: "with --store: where the replicas are kept (default: ~/.cache/mast/replicas/<store>)" },
    { name: "sync-seconds", value: "<s>", help: "with --store: how often the store is asked for newly published snapshots", default: "5" },
    { name: "answer-threads", value: "<n>", help: "with --store: the threads answering calls, each one call at a time (default: one per core, at most 4)" },
    {
      name: "search-repositories",
      value: "<n>",
      help: "with --store: a mast_search over more repositories asks only the n the store's full-text search ranks highest, and names the rest (default 50; 0: every one)",
    },
  ],
  run: async ([path], opts) => {
    const settings = checkedSettings(opts);
    const { schemas, toolsets, port, idleSeconds, maxSessions } = settings;
    const token = process.env.MAST_HTTP_TOKEN?.trim();
    if (opts.store !== undefined) return serveFromStore(path, opts, settings, token);
    if (opts.repository !== undefined || opts.cache !== undefined || opts.answerThreads !== undefined || opts.searchRepositories !== undefined) {
      throw new MastError("INVALID_ARGUMENT", "--repository, --cache, --answer-threads and --search-repositories go with --store", { usage: true });
    }
    const loaded = loadConfig(path, { stateDir: opts.stateDir });
    const config = opts.checker ? { ...loaded, checker: true } : loaded;
    const { DEFAULT_SEED_DIR, serve } = await import("../../mcp/server.js");
    await serve(config, {
      startupReindex: opts.startupReindex,
      version: VERSION,
      seedDir: process.env.MAST_SEED_DIR && process.env.MAST_SEED_DIR.trim() !== "" ? process.env.MAST_SEED_DIR : DEFAULT_SEED_DIR,
      log: (line) => process.stderr.write(`${line}\n`),
      exit: (code) => process.exit(code),
      toolsets,
      watch: opts.watch === true,
      schemas,
      localSocket: opts.socket,
      ...(opts.structuralRoot ? { structuralRoot: resolvePath(opts.structuralRoot) } : {}),
      ...(opts.http ? { http: { host: opts.host, port, idleMs: idleSeconds * 1000, maxSessions, ...(token ? { token } : {}) } } : {}),
    });
  },
};
