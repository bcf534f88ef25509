// The replicas `mast serve --store` answers from (docs/organisation.md#serving-from-the-store): each
// published repository's active snapshot as a local tree and graph.db under a cache directory
// (store/pg/replica.ts writes them), kept in step with the store. `sync` lists the active
// snapshots, builds the replicas it lacks — each in a directory of its own, renamed into place
// once whole, so a replica on disk is always complete — and says which replicas serve now; a
// replica is named by its snapshot and tree digest, so one of another store or of rewritten
// content is never taken for it. A store that cannot be reached leaves the replicas as they are.
import { existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { writeAtomic } from "../base/atomic.js";
import { compileGlobs, type GlobSet } from "../base/glob.js";
import { readJsonObjectFile } from "../base/json.js";
import { openPg, type PgSession } from "../store/pg/client.js";
import { errorMessage, isMastError } from "../base/errors.js";
import { SnapshotGone, writeReplica, type ReplicaCounts } from "../store/pg/replica.js";
import { checkSchema } from "../store/pg/schema.js";
import { INDEX_IDENTITY } from "../store/db.js";
import { Store } from "../store/store.js";
import { DEFAULT_SETTINGS, type ResolvedConfig } from "./config.js";
import { statePaths } from "./state.js";

/** A sync's statement that has not answered after this long fails the sync (tried again at the next). */
const SYNC_QUERY_TIMEOUT_MS = 120_000;

/** The file a replica directory holds once whole (written last). */
const REPLICA_RECORD = "replica.json";

/** One repository's active snapshot as a replica on disk. */
export interface Replica {
  readonly repository: string;
  readonly commit: string;
  readonly snapshot: number;
  /** The directory holding `tree/` (the files), `state/` (graph.db) and replica.json. */
  readonly dir: string;
  /** The config a tool context reads the replica with: the defaults, the tree as its root. */
  readonly config: ResolvedConfig;
  readonly counts: ReplicaCounts;
}

interface ActiveSnapshot {
  readonly repository: string;
  readonly snapshot: string;
  readonly commit: string;
  readonly tree_digest: string;
}

/** A whole replica's counts, when `dir` holds one this mast built (its index identity: another mast's graph.db is another schema); else null. */
function builtCounts(dir: string): ReplicaCounts | null {
  const record = existsSync(join(dir, REPLICA_RECORD)) ? readJsonObjectFile(join(dir, REPLICA_RECORD)) : null;
  if (record === null || record["identity"] !== INDEX_IDENTITY || typeof record["counts"] !== "object" || record["counts"] === null) return null;
  return record["counts"] as ReplicaCounts;
}

/** The replica directory's name for a snapshot: its id and its tree digest. */
const dirName = (s: ActiveSnapshot) => `${s.snapshot}-${s.tree_digest.slice(0, 16)}`;

function replicaOf(dir: string, s: ActiveSnapshot, counts: ReplicaCounts): Replica {
  const tree = realpathSync(join(dir, "tree"));
  const config: ResolvedConfig = { ...DEFAULT_SETTINGS, telemetry: false, checker: false, project_root: tree, state_dir: join(dir, "state") };
  return { repository: s.repository, commit: s.commit, snapshot: Number(s.snapshot), dir, config, counts };
}

/**
 * Every repository's active snapshot, by name — only rows whose id and tree digest are what mast
 * writes (a replica's directory is named by them: a digest like `/../..` must never name a path).
 */
async function activeSnapshots(pg: PgSession, log: (line: string) => void): Promise<ActiveSnapshot[]> {
  const rows = await pg.query<ActiveSnapshot>(
    `SELECT r.name AS repository, s.id::text AS snapshot, s.commit, s.tree_digest
       FROM mast.repositories r JOIN mast.snapshots s ON s.id = r.active_snapshot ORDER BY r.name COLLATE "C"`,
  );
  return rows.filter((s) => {
    const ok = /^\d{1,18}$/.test(s.snapshot) && /^[0-9a-f]{64}$/.test(s.tree_digest);
    if (!ok) log(`mast serve: ${JSON.stringify(s.repository.slice(0, 200))} not taken up (STORE_DAMAGED: its snapshot's id or tree digest is not what mast writes)`);
    return ok;
  });
}

/** `name` under `cacheDir`, refused unless it is a direct child of it. */
function inCache(cacheDir: string, name: string): string {
  const path = join(cacheDir, name);
  if (dirname(path) !== resolve(cacheDir) || name.includes("/") || name.startsWith(".")) throw new Error(`a replica directory outside the cache: ${JSON.stringify(name)}`);
  return path;
}

/** Builds the replica of snapshot `s` in a directory of its own and renames it into place once whole; its counts. */
async function buildReplica(pg: PgSession, cacheDir: string, s: ActiveSnapshot): Promise<ReplicaCounts> {
  const dir = inCache(cacheDir, dirName(s));
  const building = join(cacheDir, `.building-${process.pid}-${dirName(s)}`);
  rmSync(building, { recursive: true, force: true });
  // What is there is no whole replica of this mast's (the caller checked): a build cut short, or an older mast's.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(building, "tree"), { recursive: true });
  mkdirSync(join(building, "state"), { recursive: true });
  try {
    const store = Store.open(statePaths(join(building, "state")).graphDb);
    let counts: ReplicaCounts;
    try {
      counts = await writeReplica(pg, s.snapshot, join(building, "tree"), store.db);
    } finally {
      store.close();
    }
    writeAtomic(join(building, REPLICA_RECORD), Buffer.from(`${JSON.stringify({ repository: s.repository, commit: s.commit, snapshot: Number(s.snapshot), identity: INDEX_IDENTITY, counts })}\n`));
    try {
      renameSync(building, dir);
    } catch (err) {
      // Another server sharing the cache put the same replica in place first: it is the same snapshot's.
      const theirs = builtCounts(dir);
      if (theirs === null) throw err;
      rmSync(building, { recursive: true, force: true });
      return theirs;
    }
    return counts;
  } catch (err) {
    rmSync(building, { recursive: true, force: true });
    throw err;
  }
}

export interface ReplicaSync {
  /** The replicas serving now, by repository name. */
  readonly replicas: readonly Replica[];
  /** Replicas built by this sync. */
  readonly built: number;
}

export interface SyncOptions {
  /** The replicas serving before: a repository whose new snapshot cannot be built keeps its own. */
  readonly previous?: readonly Replica[];
  /** Snapshots (by replica directory name) found damaged: not tried again, each logged once. */
  readonly damaged?: Set<string>;
}

/**
 * Brings the replicas under `cacheDir` up with the store at `url`: one per repository `filter`
 * matches (all when null), its active snapshot. A snapshot pruned while its replica was being
 * built, or whose rows are damaged (STORE_DAMAGED), is logged and skipped: the repository keeps its
 * previous replica, if it had one. A store that cannot be reached fails the whole sync. Replicas
 * no repository serves any more are removed by `pruneReplicas` (the caller calls it once no answer
 * reads them).
 */
export async function syncReplicas(url: string, cacheDir: string, filter: GlobSet | null, log: (line: string) => void, options: SyncOptions = {}): Promise<ReplicaSync> {
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const pg = await openPg(url, "--store", { applicationName: "mast serve", queryTimeoutMs: SYNC_QUERY_TIMEOUT_MS });
  try {
    await checkSchema(pg);
    const active = (await activeSnapshots(pg, log)).filter((s) => filter === null || filter.matches(s.repository));
    const replicas: Replica[] = [];
    let built = 0;
    for (const listed of active) {
      const before = options.previous?.find((r) => r.repository === listed.repository);
      // A snapshot pruned while its replica was being built: the repository's active one now, up to three times.
      for (let s: ActiveSnapshot | undefined = listed, attempt = 1; s !== undefined; attempt++) {
        const dir = inCache(cacheDir, dirName(s));
        if (options.damaged?.has(dirName(s))) {
          if (before) replicas.push(before);
          break;
        }
        const counts = builtCounts(dir);
        if (counts !== null) {
          replicas.push(replicaOf(dir, s, counts));
          break;
        }
        try {
          const started = performance.now();
          const counts = await buildReplica(pg, cacheDir, s);
          replicas.push(replicaOf(dir, s, counts));
          built++;
          log(`mast serve: ${s.repository} at ${s.commit}: replica of ${counts.files} files built in ${Math.round(performance.now() - started)} ms`);
          break;
        } catch (err) {
          const gone = err instanceof SnapshotGone;
          if (!gone && !(isMastError(err) && err.code === "STORE_DAMAGED")) throw err;
          if (gone && attempt < 3) {
            s = (await activeSnapshots(pg, log)).find((a) => a.repository === listed.repository);
            continue;
          }
          if (!gone) options.damaged?.add(dirName(s));
          log(`mast serve: ${s.repository} at ${s.commit} not taken up (${gone ? "its snapshot was pruned meanwhile" : errorMessage(err)})${before ? `; still answering from ${before.commit}` : ""}`);
          if (before) replicas.push(before);
          break;
        }
      }
    }
    return { replicas, built };
  } finally {
    await pg.close();
  }
}

/** A sync as data, for a worker thread (index/run-thread.ts): the store, the cache, the repositories' glob, what served before. */
export interface ReplicaSyncJob {
  readonly url: string;
  readonly cacheDir: string;
  readonly filter: string | null;
  readonly previous: readonly Replica[];
  readonly damaged: readonly string[];
  /** Built at a lower priority than the thread's process (a server answering meanwhile): not at startup, when nothing is answered yet. */
  readonly yieldCpu: boolean;
}

/** What a sync on a worker thread answers: the replicas, the snapshots found damaged (all of them) and the lines it logged. */
export interface ReplicaSyncResult extends ReplicaSync {
  readonly damaged: readonly string[];
  readonly log: readonly string[];
}

/** syncReplicas for a worker thread: its log lines returned with the answer. */
export async function runReplicaSync(job: ReplicaSyncJob): Promise<ReplicaSyncResult> {
  const log: string[] = [];
  const damaged = new Set(job.damaged);
  const synced = await syncReplicas(job.url, job.cacheDir, job.filter === null ? null : compileGlobs([job.filter]), (line) => log.push(line), { previous: job.previous, damaged });
  return { ...synced, damaged: [...damaged], log };
}

/** Whether the process that named a `.building-<pid>-…` directory still runs (its build is under way). */
function buildingAlive(name: string): boolean {
  const pid = Number(name.split("-")[1]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the replicas this process retired (`retired`, none of them serving again: `keep`) and
 * the builds a dead process left behind under `cacheDir` — never a directory another server
 * sharing the cache may be answering from.
 */
export function pruneReplicas(cacheDir: string, retired: readonly string[], keep: readonly Replica[]): number {
  const serving = new Set(keep.map((r) => r.dir));
  const doomed = retired.filter((d) => !serving.has(d) && dirname(d) === resolve(cacheDir));
  for (const name of existsSync(cacheDir) ? readdirSync(cacheDir) : []) if (name.startsWith(".building-") && !buildingAlive(name)) doomed.push(join(cacheDir, name));
  for (const dir of doomed) rmSync(dir, { recursive: true, force: true });
  return doomed.length;
}
