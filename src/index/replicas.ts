// The replicas `mast serve --store` answers from (docs/organisation.md#serving-from-the-store): each
// published repository's active snapshot as a local tree and graph.db under a cache directory
// (store/pg/replica.ts writes them), kept in step with the store. `sync` lists the active
// snapshots, builds the replicas it lacks — each in a directory of its own, renamed into place
// once whole, so a replica on disk is always complete — and says which replicas serve now; a
// replica is named by its snapshot and tree digest, so one of another store or of rewritten
// content is never taken for it. A store that cannot be reached leaves the replicas as they are.
import { existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic } from "../base/atomic.js";
import type { GlobSet } from "../base/glob.js";
import { readJsonObjectFile } from "../base/json.js";
import { openPg } from "../store/pg/client.js";
import { writeReplica, type ReplicaCounts } from "../store/pg/replica.js";
import { checkSchema } from "../store/pg/schema.js";
import { Store } from "../store/store.js";
import { DEFAULT_SETTINGS, type ResolvedConfig } from "./config.js";
import { statePaths } from "./state.js";

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

/** The replica directory's name for a snapshot: its id and its tree digest. */
const dirName = (s: ActiveSnapshot) => `${s.snapshot}-${s.tree_digest.slice(0, 16)}`;

function replicaOf(dir: string, s: ActiveSnapshot, counts: ReplicaCounts): Replica {
  const tree = realpathSync(join(dir, "tree"));
  const config: ResolvedConfig = { ...DEFAULT_SETTINGS, telemetry: false, checker: false, project_root: tree, state_dir: join(dir, "state") };
  return { repository: s.repository, commit: s.commit, snapshot: Number(s.snapshot), dir, config, counts };
}

export interface ReplicaSync {
  /** The replicas serving now, by repository name. */
  readonly replicas: readonly Replica[];
  /** Replicas built by this sync. */
  readonly built: number;
}

/**
 * Brings the replicas under `cacheDir` up with the store at `url`: one per repository `filter`
 * matches (all when null), its active snapshot. Replicas no repository serves any more are removed
 * by `prune` (the caller calls it once no answer reads them).
 */
export async function syncReplicas(url: string, cacheDir: string, filter: GlobSet | null, log: (line: string) => void): Promise<ReplicaSync> {
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const pg = await openPg(url, "--store", { applicationName: "mast serve" });
  try {
    await checkSchema(pg);
    const active = (
      await pg.query<ActiveSnapshot>(
        `SELECT r.name AS repository, s.id AS snapshot, s.commit, s.tree_digest
           FROM mast.repositories r JOIN mast.snapshots s ON s.id = r.active_snapshot ORDER BY r.name COLLATE "C"`,
      )
    ).filter((s) => filter === null || filter.matches(s.repository));
    const replicas: Replica[] = [];
    let built = 0;
    for (const s of active) {
      const dir = join(cacheDir, dirName(s));
      const record = existsSync(join(dir, REPLICA_RECORD)) ? readJsonObjectFile(join(dir, REPLICA_RECORD)) : null;
      if (record !== null && typeof record["counts"] === "object" && record["counts"] !== null) {
        replicas.push(replicaOf(dir, s, record["counts"] as ReplicaCounts));
        continue;
      }
      const started = performance.now();
      const building = join(cacheDir, `.building-${process.pid}-${dirName(s)}`);
      rmSync(building, { recursive: true, force: true });
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
        writeAtomic(join(building, REPLICA_RECORD), Buffer.from(`${JSON.stringify({ repository: s.repository, commit: s.commit, snapshot: Number(s.snapshot), counts })}\n`));
        renameSync(building, dir);
        replicas.push(replicaOf(dir, s, counts));
        built++;
        log(`mast serve: ${s.repository} at ${s.commit}: replica of ${counts.files} files built in ${Math.round(performance.now() - started)} ms`);
      } catch (err) {
        rmSync(building, { recursive: true, force: true });
        throw err;
      }
    }
    return { replicas, built };
  } finally {
    await pg.close();
  }
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

/** Removes the replica directories under `cacheDir` that none of `keep` is, and builds a dead process left behind. */
export function pruneReplicas(cacheDir: string, keep: readonly Replica[]): number {
  const wanted = new Set(keep.map((r) => r.dir));
  let removed = 0;
  for (const name of existsSync(cacheDir) ? readdirSync(cacheDir) : []) {
    const dir = join(cacheDir, name);
    if (wanted.has(dir) || (name.startsWith(".building-") && buildingAlive(name))) continue;
    rmSync(dir, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
