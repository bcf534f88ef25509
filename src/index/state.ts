// The state directory's files (docs/state-dir.md#the-state-directory): config.json, index.json, file_manifest.json,
// structure.lock and graph.db, walk-cache.bin (the last walk's listings: index/walk-cache.ts) and
// file-stamps.bin (the indexed stamps packed, store/file-stamps.ts) — their
// paths, atomic JSON writes, and the schema-version guard that wipes derived state when the
// binary's schema differs from what is on disk.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { writeAtomic } from "../base/atomic.js";
import { join } from "node:path";
import { MastError, errorMessage } from "../base/errors.js";
import { CURRENT_SCHEMA_VERSION, checkpointStampPath, databaseStamp, recordedCheckpointStamp } from "../store/db.js";
import type { Store } from "../store/store.js";
import { STATE_CONFIG_FILE, persistedConfig, type ResolvedConfig } from "./config.js";
import { PACKED_HEADER_BYTES, packStamps, packedGeneration } from "../store/file-stamps.js";
import { packWalkCache, unpackWalkCache, type WalkCache } from "./walk-cache.js";
import { LOCK_METRICS_FILE, STRUCTURE_LOCK_FILE } from "./lock.js";

export interface StatePaths {
  readonly dir: string;
  readonly config: string;
  readonly indexJson: string;
  readonly manifest: string;
  /** The last walk's directory listings (index/walk.ts): a cache, never an answer. */
  readonly walkCache: string;
  /** The indexed stamps packed (store/file-stamps.ts): a copy, read only while it names graph.db's files generation. */
  readonly stamps: string;
  readonly lock: string;
  /** The structure lock's events (index/lock.ts), read by `mast metrics --locks`. */
  readonly lockMetrics: string;
  readonly graphDb: string;
}

export interface IndexJson {
  schema_version: string;
  last_indexed: string | null;
  file_count: number;
  chunk_count: number;
  parse_errors: number;
  write_errors: number;
  seed_commit?: string;
  /** The project's git HEAD commit when it was indexed (read from .git, no git binary needed). */
  source_commit?: string;
  /** The absolute root of the project the index was built from. */
  project_root?: string;
  /** graph.db's stat as the run that wrote this file left it (`storeStamp`): status checks the pages of a file that stats otherwise. */
  store_stamp?: string;
  /** graph.db's files version file_manifest.json was written at (store/store.ts `filesVersion`) and the manifest's stat then: a run finding both unchanged leaves it. */
  manifest_files_version?: number;
  manifest_stamp?: string;
}

/** graph.db's stamp (store/db.ts `databaseStamp`: size, mtime, ctime and inode; not its WAL). */
export function storeStamp(paths: StatePaths): string | null {
  return databaseStamp(paths.graphDb);
}

/** The stamp graph.db had after the last checkpoint a Store made (store/db.ts `checkpointStampPath`); null when none is recorded. */
export function checkpointStamp(paths: StatePaths): string | null {
  return recordedCheckpointStamp(paths.graphDb);
}

/**
 * Refuses a state dir that indexes another project still on disk: read against this root, every
 * file of that index would look vanished, and a refresh would drop its rows. A recorded root that
 * no longer exists (the project moved, or the index was seeded from another machine) is accepted.
 */
export function guardProjectRoot(paths: StatePaths, projectRoot: string): void {
  const recorded = readIndexJson(paths)?.project_root;
  if (recorded === undefined || recorded === projectRoot || !existsSync(recorded)) return;
  throw new MastError("STATE_DIR_MISMATCH", `the index at ${paths.dir} is of ${recorded}, not of ${projectRoot}`, {
    details: { state_dir: paths.dir, indexed_root: recorded, project_root: projectRoot },
  });
}

/**
 * file_manifest.json: `{ path: mtime }` of every indexed file, as docs/state-dir.md#the-state-directory has it (mtime in ms). Read
 * only for its paths, when graph.db holds no stamps; each file's size and content hash are the files
 * table's (and file-stamps.bin's), not copied here (110,000 hashes: 13 MB of a 1 GB tree's state).
 */
export type Manifest = Record<string, number>;

/** Where binaries before the walk's trusted list kept its listings (as JSON). */
const LEGACY_WALK_CACHE = "walk-cache.json";

export function statePaths(stateDir: string): StatePaths {
  return {
    dir: stateDir,
    config: join(stateDir, STATE_CONFIG_FILE),
    indexJson: join(stateDir, "index.json"),
    manifest: join(stateDir, "file_manifest.json"),
    walkCache: join(stateDir, "walk-cache.bin"),
    stamps: join(stateDir, "file-stamps.bin"),
    lock: join(stateDir, STRUCTURE_LOCK_FILE),
    lockMetrics: join(stateDir, LOCK_METRICS_FILE),
    graphDb: join(stateDir, "graph.db"),
  };
}

/** Writes JSON through a temp file and a rename, so a killed process never leaves half a file. */
export function writeJsonAtomic(path: string, value: unknown, indent: 0 | 2 = 2): void {
  writeAtomic(path, Buffer.from(JSON.stringify(value, null, indent) + "\n"));
}

function readJson<T>(path: string): T | null {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {
    return null; // a torn or hand-edited state file is treated as absent and rebuilt
  }
}

export function readIndexJson(paths: StatePaths): IndexJson | null {
  return readJson<IndexJson>(paths.indexJson);
}

/** The last walk's cache; null when absent or not of this binary's format (the walk then reads every directory). */
export function readWalkCache(paths: StatePaths): WalkCache | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(paths.walkCache);
  } catch {
    return null;
  }
  return unpackWalkCache(bytes);
}

/** The walk's cache, written whole (an earlier binary's walk-cache.json, which nothing reads now, removed). */
export function writeWalkCache(paths: StatePaths, cache: WalkCache): void {
  writeAtomic(paths.walkCache, packWalkCache(cache));
  rmSync(join(paths.dir, LEGACY_WALK_CACHE), { force: true });
}

/**
 * Writes file_manifest.json and file-stamps.bin from the indexed stamps unless the files on disk
 * are already theirs. The manifest is: the run found graph.db as the last run left it
 * (`storeAtStart`, its stat before this run opened it), no commit wrote a file row since the
 * manifest was written (graph.db's files version as recorded: a refresh's commit still in the WAL)
 * and the manifest stats as it did then (a no-op run of 110,000 files leaves 22 MB unwritten,
 * 500 ms). The packed stamps are when their header names graph.db's files generation. Returns what
 * index.json records of the manifest.
 */
export function writeStampCopies(
  paths: StatePaths,
  store: Pick<Store, "filesVersion" | "filesGeneration" | "stampRows">,
  previous: IndexJson | null,
  storeAtStart: string | null,
): Pick<IndexJson, "manifest_files_version" | "manifest_stamp"> {
  const filesVersion = store.filesVersion();
  const generation = store.filesGeneration();
  const onDisk = databaseStamp(paths.manifest);
  const manifestCurrent = onDisk !== null && storeAtStart !== null && previous?.store_stamp === storeAtStart && previous.manifest_files_version === filesVersion && previous.manifest_stamp === onDisk;
  const packedCurrent = packedStampsCurrent(paths, generation);
  if (!manifestCurrent || !packedCurrent) {
    const rows = sortedStampRows(store);
    if (!manifestCurrent) {
      const manifest: Manifest = {};
      for (const [, path, mtime] of rows) manifest[path] = mtime;
      // Compact: 110,000 entries at 1 GB, read by a program only.
      writeJsonAtomic(paths.manifest, manifest, 0);
    }
    if (!packedCurrent) writeAtomic(paths.stamps, packStamps(rows, generation!));
  }
  const written = databaseStamp(paths.manifest);
  return { manifest_files_version: filesVersion, ...(written === null ? {} : { manifest_stamp: written }) };
}

/** Whether file-stamps.bin names files generation `generation`, from its header alone (no generation: no copy can name it, none is read — as good as current). */
export function packedStampsCurrent(paths: StatePaths, generation: string | null): boolean {
  if (generation === null) return true;
  // Its header alone: the generation is in its first 32 bytes.
  let fd: number | null = null;
  try {
    fd = openSync(paths.stamps, "r");
    const header = Buffer.alloc(PACKED_HEADER_BYTES);
    return readSync(fd, header, 0, header.length, 0) === header.length && packedGeneration(header) === generation;
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** The files table's stamp rows in ascending order of path (as `<` orders them: what packStamps takes). */
function sortedStampRows(store: Pick<Store, "stampRows">): ReturnType<Store["stampRows"]> {
  return store.stampRows().sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Writes file-stamps.bin again when it does not name graph.db's files generation — after commits
 * no index run followed (a server's just-in-time refreshes), whose readers otherwise read 110,000
 * stamps from the rows (a 1 GB status 300 → 360 ms). Whether it wrote. A commit meanwhile leaves
 * the copy naming the generation it read: readers fall back to the rows, as before.
 */
export function refreshPackedStamps(paths: StatePaths, store: Pick<Store, "filesGeneration" | "stampRows">): boolean {
  const generation = store.filesGeneration();
  if (packedStampsCurrent(paths, generation)) return false;
  writeAtomic(paths.stamps, packStamps(sortedStampRows(store), generation!));
  return true;
}

/** file-stamps.bin's bytes, or null when there is none (the Store checks they name its files generation). */
export function readPackedStamps(paths: StatePaths): Buffer | null {
  try {
    return readFileSync(paths.stamps);
  } catch {
    return null;
  }
}

export function readManifest(paths: StatePaths): Manifest {
  return readJson<Manifest>(paths.manifest) ?? {};
}

export function emptyIndexJson(): IndexJson {
  return { schema_version: CURRENT_SCHEMA_VERSION, last_indexed: null, file_count: 0, chunk_count: 0, parse_errors: 0, write_errors: 0 };
}

/** Creates the state dir and its lock marker (the config is persisted separately, under the lock). */
export function ensureStateDir(config: ResolvedConfig): StatePaths {
  const paths = statePaths(config.state_dir);
  if (existsSync(paths.dir) && !statSync(paths.dir).isDirectory()) {
    throw new MastError("STATE_DIR_INVALID", `state dir is not a directory: ${paths.dir}`);
  }
  try {
    mkdirSync(paths.dir, { recursive: true });
    // Append mode creates the marker when missing and never truncates it: a check-then-write could
    // wipe the holder record a concurrent indexer wrote in between (LOCK_HELD would lose its name).
    writeFileSync(paths.lock, "", { flag: "a" });
    // Everything here is derived state: git ignores the whole directory (this file included), as
    // for a virtualenv, without the user editing their .gitignore. Written once, never overwritten.
    try {
      writeFileSync(join(paths.dir, ".gitignore"), "# mast's index state: derived, never committed\n*\n", { flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  } catch (err) {
    throw new MastError("STATE_DIR_INVALID", `cannot create state dir ${paths.dir}: ${errorMessage(err)}`);
  }
  return paths;
}

/** Persists the resolved config (docs/state-dir.md#the-state-directory: written by init and serve, read back by every command). */
export function persistConfig(config: ResolvedConfig): void {
  writeJsonAtomic(statePaths(config.state_dir).config, persistedConfig(config));
}

/**
 * The schema guard: when index.json names another schema version (or graph.db exists without
 * a readable index.json), graph.db and the manifest are wiped. Returns true when it wiped.
 */
export function guardSchema(paths: StatePaths): boolean {
  const index = readIndexJson(paths);
  const hasDb = existsSync(paths.graphDb);
  if (index?.schema_version === CURRENT_SCHEMA_VERSION) return false;
  if (!index && !hasDb) {
    writeJsonAtomic(paths.indexJson, emptyIndexJson());
    return false;
  }
  wipeDerivedState(paths);
  writeJsonAtomic(paths.indexJson, { ...emptyIndexJson(), ...(index?.seed_commit ? { seed_commit: index.seed_commit } : {}) });
  return true;
}

export function wipeDerivedState(paths: StatePaths): void {
  for (const f of [
    paths.graphDb,
    `${paths.graphDb}-wal`,
    `${paths.graphDb}-shm`,
    checkpointStampPath(paths.graphDb),
    paths.manifest,
    paths.walkCache,
    join(paths.dir, LEGACY_WALK_CACHE),
    paths.stamps,
  ])
    rmSync(f, { force: true });
}

/** True when a state dir has never completed an index run. */
export function isNeverIndexed(paths: StatePaths): boolean {
  if (!existsSync(paths.graphDb)) return true;
  const index = readIndexJson(paths);
  return !index || (index.chunk_count === 0 && !index.last_indexed);
}
