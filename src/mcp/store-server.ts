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
import { createToolContext } from "../tools/context.js";
import { ORG_TOOLS, orgAnswer, orgListing, type OrgRepository } from "../tools/org.js";
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
  readonly version: string;
  readonly log: (line: string) => void;
  readonly exit: (code: number) => void;
  readonly http?: HttpOptions;
  readonly schemas?: ListingForm;
}

/** How long a replacing replica's predecessor is kept open for answers that began on it, ms. */
const RETIRE_AFTER_MS = 60_000;

const INSTRUCTIONS =
  "Answers over every repository published to this store: each answer names the repository and commit of what it found. " +
  "Pass `repository` (a glob over repository names) to ask fewer. mast_search fuses the repositories' results by rank.";

/** The served repositories: each replica with its tool context, swapped whole when a sync moved any. */
class Served {
  repos: OrgRepository[] = [];
  private replicas: readonly Replica[] = [];
  private readonly retiring = new Set<NodeJS.Timeout>();
  private damaged: readonly string[] = [];

  constructor(private readonly options: StoreServeOptions) {}

  async sync(): Promise<void> {
    // Off this thread: a replica's build writes thousands of rows, and answers go on meanwhile.
    const { url, cacheDir, filter } = this.options;
    const { replicas, damaged, log } = await indexThreads.syncReplicas({ url, cacheDir, filter, previous: this.replicas, damaged: this.damaged });
    this.damaged = damaged;
    for (const line of log) this.options.log(line);
    const same = replicas.length === this.replicas.length && replicas.every((r, i) => r.dir === this.replicas[i]!.dir);
    if (same) return;
    const kept = new Map(this.repos.map((o, i) => [this.replicas[i]!.dir, o]));
    const next = replicas.map((r) => kept.get(r.dir) ?? { repository: r.repository, commit: r.commit, ctx: { ...createToolContext(r.config), pinned: true } });
    const gone = this.repos.filter((o) => !next.includes(o));
    this.repos = next;
    this.replicas = replicas;
    // Answers under way read the old replicas until they end: closed and removed after a while.
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      for (const o of gone) o.ctx.close();
      pruneReplicas(this.options.cacheDir, this.replicas);
    }, RETIRE_AFTER_MS);
    timer.unref();
    this.retiring.add(timer);
  }

  close(): void {
    for (const t of this.retiring) clearTimeout(t);
    for (const o of this.repos) o.ctx.close();
  }
}

export async function serveStore(options: StoreServeOptions): Promise<void> {
  const served = new Served(options);
  await served.sync();
  options.log(`mast serve: ${served.repos.length} repositories from ${options.cacheDir}`);
  let failing = false;
  let syncing = false;
  const timer = setInterval(() => {
    if (syncing) return;
    syncing = true;
    served.sync().then(
      () => {
        if (failing) options.log("mast serve: the store answers again");
        failing = syncing = false;
      },
      (err: unknown) => {
        if (!failing) options.log(`mast serve: the store could not be synced (answers come from the replicas as they are): ${errorMessage(err)}`);
        failing = true;
        syncing = false;
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
    call: async (name, args) => {
      const answer = await orgAnswer(served.repos, name, args);
      return { answer, text: JSON.stringify(answer) };
    },
    warm: () => undefined,
    answering: () => undefined,
  };
  const end = sessionEnd(options.exit);
  const closeTransport = await openTransport(() => createMcpServer(session), options.http ? { options: options.http, transport: await import("./http.js") } : null, end.stop, options.log);
  options.log(`mast serve: ready (${ORG_TOOLS.length} tools) for the store`);
  await end.closed;
  clearInterval(timer);
  await closeTransport();
  served.close();
}
