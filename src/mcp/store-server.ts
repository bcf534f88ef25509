// `mast serve --store` (docs/organisation.md#serving-from-the-store): the read tools over every
// repository published to a PostgreSQL store, on stdio or streamable HTTP, through the same MCP
// server as a project's (server.ts). The replicas are brought up with the store (in a worker
// thread) before the transport opens, then every `syncMs`: a repository whose active snapshot moved is answered from
// its new replica once that is whole (an answer reads one snapshot per repository, never a mix),
// and the old replica is removed once no answer can still be reading it. A store that cannot be
// reached leaves the replicas serving as they are; the server logs it and tries again.
import { errorMessage } from "../base/errors.js";
import { pruneReplicas, type Replica } from "../index/replicas.js";
import { indexThreads } from "../query/index-threads.js";
import { ORG_TOOLS, narrowSearch, orgListing, selectRepositories, type SearchPlan } from "../tools/org.js";
import { DEFAULT_ANSWER_THREADS, OrgThreads, type OrgReply } from "../tools/org-threads.js";
import type { ListingForm } from "../tools/registry.js";
import type { HttpOptions } from "./http.js";
import { createMcpServer, openTransport, sessionEnd, type Session } from "./server.js";

export interface StoreServeOptions {
  /** The store's connection string. */
  readonly url: string;
  /** Where the replicas are kept. */
  readonly cacheDir: string;
  /** The glob of the repositories served (all when null). */
  readonly filter: string | null;
  /** How often the store is asked for moved snapshots, ms. */
  readonly syncMs: number;
  /** The threads answering calls (DEFAULT_ANSWER_THREADS when absent). */
  readonly answerThreads?: number;
  readonly version: string;
  readonly log: (line: string) => void;
  readonly exit: (code: number) => void;
  readonly http?: HttpOptions;
  readonly schemas?: ListingForm;
  /** A search over more repositories than this asks only the ones the store ranks highest (0: every one; DEFAULT_SEARCH_REPOSITORIES when absent). */
  readonly searchRepositories?: number;
  /** The store's ranking of repositories for a search (store/pg/search.ts); null when it cannot say now. Without it every repository is asked. */
  readonly relevance?: {
    rank(snapshots: ReadonlyArray<{ readonly repository: string; readonly snapshot: number }>, query: string): Promise<ReadonlyMap<string, number> | null>;
    close(): Promise<void>;
  };
}

/**
 * The repositories a search asks at most when the store can rank them. Below about this many the
 * ranking costs what asking the rest would (docs/organisation.md#measured); an answer's first
 * results come from a few repositories' first results, so 50 leaves a wide margin.
 */
export const DEFAULT_SEARCH_REPOSITORIES = 50;

/** mast_search's arguments that keep only some of what it finds. */
const SEARCH_FILTERS = ["language", "file_pattern", "chunk_type", "only_exported"];

/** How long after it stopped serving a replica is removed (or checked again, while answers still read it or a sync runs), ms. */
const RETIRE_AFTER_MS = 30_000;

const INSTRUCTIONS =
  "Answers over every repository published to this store: each answer names the repository and commit of what it found. " +
  "Pass `repository` (a glob over repository names) to ask fewer. mast_search fuses the repositories' results by rank; over many repositories it asks those the store ranks highest and names the rest in `not_asked`.";

/** The replicas served at one time, and the answers still reading them. */
interface Generation {
  readonly replicas: readonly Replica[];
  inFlight: number;
}

/** The served replicas, swapped whole (a generation) when a sync moved any; answered on the answering threads. */
class Served {
  current: Generation = { replicas: [], inFlight: 0 };
  private readonly retiring = new Set<NodeJS.Timeout>();
  private damaged: readonly string[] = [];
  /** A sync is running: retired replicas wait for it to end before they are removed. */
  syncing = false;
  /** A sync has ended (the server answers since). */
  private synced = false;
  private closed = false;

  constructor(
    private readonly options: StoreServeOptions,
    readonly threads: OrgThreads,
  ) {}

  /** `name` answered over the current generation; a generation is retired only once its answers ended. */
  async answer(name: string, args: unknown, signal?: AbortSignal): Promise<OrgReply> {
    const generation = this.current;
    generation.inFlight++;
    try {
      const narrowed = name === "mast_search" ? await this.narrowed(generation.replicas, args) : null;
      if (narrowed === null) return await this.threads.answer(generation.replicas, name, args, signal);
      return await this.threads.answer(narrowed.replicas, name, narrowed.args, signal, narrowed.plan);
    } finally {
      generation.inFlight--;
    }
  }

  /**
   * A search over more repositories than the server asks: the replicas of those the store ranks
   * highest for the query, the search's own arguments, and the plan naming the rest. Null (every
   * repository asked) when the search asks few enough, filters what it finds (the ranking does not
   * apply the filter: the best-ranked repositories may hold nothing it keeps), or the store cannot
   * rank them, or finds the query in none of them.
   */
  private async narrowed(replicas: readonly Replica[], args: unknown): Promise<{ replicas: Replica[]; args: Record<string, unknown>; plan: SearchPlan } | null> {
    const most = this.options.searchRepositories ?? DEFAULT_SEARCH_REPOSITORIES;
    const relevance = this.options.relevance;
    if (relevance === undefined || most === 0) return null;
    const { chosen, rest } = selectRepositories(replicas, "mast_search", args);
    if (chosen.length <= most || typeof rest["query"] !== "string" || SEARCH_FILTERS.some((k) => rest[k] !== undefined && rest[k] !== null && rest[k] !== false)) return null;
    const ranked = await relevance.rank(chosen, rest["query"]);
    if (ranked === null || ranked.size === 0) return null;
    const { asked, plan } = narrowSearch(chosen, ranked, most);
    return { replicas: asked, args: rest, plan };
  }

  async sync(): Promise<void> {
    this.syncing = true;
    try {
      await this.syncOnce();
    } finally {
      this.syncing = false;
    }
  }

  private async syncOnce(): Promise<void> {
    // Off this thread: a replica's build writes thousands of rows, and answers go on meanwhile.
    const { url, cacheDir, filter } = this.options;
    const before = this.current;
    // The first sync, before the server listens, has nothing to yield to.
    const yieldCpu = this.synced;
    const { replicas, damaged, log } = await indexThreads.syncReplicas({ url, cacheDir, filter, previous: before.replicas, damaged: this.damaged, yieldCpu });
    this.synced = true;
    this.damaged = damaged;
    for (const line of log) this.options.log(line);
    const same = replicas.length === before.replicas.length && replicas.every((r, i) => r.dir === before.replicas[i]!.dir);
    if (same) return;
    this.current = { replicas, inFlight: 0 };
    this.retire(
      before,
      before.replicas.filter((r) => !replicas.some((n) => n.dir === r.dir)).map((r) => r.dir),
    );
  }

  /** Closes and removes the replicas `before` served and no longer does, once its answers ended and no sync is running (checked every RETIRE_AFTER_MS). */
  private retire(before: Generation, dirs: readonly string[]): void {
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      if (before.inFlight > 0 || this.syncing) return this.retire(before, dirs);
      // The threads close them first (each after the call it is answering); a sync begun meanwhile may
      // take a directory up again, so the removal waits for it — and a failed release is tried again.
      this.threads
        .release(dirs)
        .then(() => {
          if (this.syncing) return this.retire(before, dirs);
          pruneReplicas(this.options.cacheDir, dirs, this.current.replicas);
        })
        .catch((err: unknown) => {
          this.options.log(`mast serve: old replicas not removed yet: ${errorMessage(err)}`);
          if (!this.closed) this.retire(before, dirs);
        });
    }, RETIRE_AFTER_MS);
    timer.unref();
    this.retiring.add(timer);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.retiring) clearTimeout(t);
    await this.threads.close();
  }
}

export async function serveStore(options: StoreServeOptions): Promise<void> {
  const served = new Served(options, new OrgThreads(options.answerThreads ?? DEFAULT_ANSWER_THREADS, options.log));
  await served.sync();
  options.log(`mast serve: ${served.current.replicas.length} repositories from ${options.cacheDir}, answered on ${served.threads.size} thread(s)`);
  let failing = false;
  const timer = setInterval(() => {
    if (served.syncing) return;
    served.sync().then(
      () => {
        if (failing) options.log("mast serve: the store answers again");
        failing = false;
      },
      (err: unknown) => {
        if (!failing) options.log(`mast serve: the store could not be synced (answers come from the replicas as they are): ${errorMessage(err)}`);
        failing = true;
      },
    );
  }, options.syncMs);
  timer.unref();

  const listing = orgListing(options.schemas ?? "compact");
  const session: Session = {
    version: options.version,
    listing,
    offered: ORG_TOOLS,
    instructions: INSTRUCTIONS,
    call: (name, args, _progress, signal) => served.answer(name, args, signal),
    warm: () => undefined,
    answering: () => undefined,
  };
  const end = sessionEnd(options.exit);
  const closeTransport = await openTransport(() => createMcpServer(session), options.http ? { options: options.http, transport: await import("./http.js") } : null, end.stop, options.log);
  options.log(`mast serve: ready (${ORG_TOOLS.length} tools) for the store`);
  await end.closed;
  clearInterval(timer);
  await closeTransport();
  await served.close();
  await options.relevance?.close();
}
