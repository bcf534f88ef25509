// measureFreshness: the one producer of `stale_files` for `mast status` and mast_status. A file
// is stale when its content differs from what was indexed, when it is on disk but not indexed,
// or when the index (rows or manifest) still lists it but it is gone. Read-only: creates nothing.
import { existsSync } from "node:fs";
import { isUnusableDatabase } from "../store/db.js";
import { Store } from "../store/store.js";
import { FileStamps } from "../store/file-stamps.js";
import type { ResolvedConfig } from "./config.js";
import { compareWithIndex } from "./read.js";
import { readManifest, readPackedStamps, readWalkCache, statePaths, type StatePaths } from "./state.js";
import { walkForConfigWhile, walkedFileAt, type WalkResult } from "./walk.js";

export interface Freshness {
  /** SQLite could not read the indexed stamps (a corrupt graph.db): every file counts as not indexed. */
  readonly unreadable: boolean;
  readonly stale_files: number;
  readonly changed: number;
  readonly unindexed: number;
  readonly vanished: number;
  /** Up to 20 example paths per category, for humans. */
  readonly examples: { readonly changed: string[]; readonly unindexed: string[]; readonly vanished: string[] };
}

const MAX_EXAMPLES = 20;

/**
 * The stamps of every indexed file, read from a Store left open for their content hashes (the
 * caller closes it). A graph.db without its tables (a run killed between creating the file and
 * writing the schema), of another schema version (which the next run wipes), or not a database at
 * all holds nothing this binary can use, so it reads as empty: every file on disk counts as not
 * indexed.
 */
function readStamps(paths: StatePaths): { stamps: FileStamps; unreadable: boolean; store: Store | null } {
  const none = (unreadable: boolean) => ({ stamps: FileStamps.fromRows([], () => ""), unreadable, store: null });
  if (!existsSync(paths.graphDb)) return none(false);
  let store: Store | null = null;
  try {
    store = Store.open(paths.graphDb, { readonly: true });
    if (!store.hasCurrentSchema()) {
      store.close();
      return none(false);
    }
    return { stamps: store.fileStamps(readPackedStamps(paths)), unreadable: false, store };
  } catch (err) {
    store?.close();
    if (!isUnusableDatabase(err)) throw err;
    return none(true);
  }
}

export async function measureFreshness(config: ResolvedConfig): Promise<Freshness> {
  const paths = statePaths(config.state_dir);
  // The index's stamps are read while the walk's files are stat'ed.
  const { walk, during } = await walkForConfigWhile(config, readWalkCache(paths), () => readStamps(paths));
  try {
    return compareAll(config, paths, walk, during.stamps, during.unreadable);
  } catch (err) {
    // A content hash read when a stat could not prove a file (its rows read lazily) found graph.db
    // corrupt: as when its stamps cannot be read at all, every file counts as not indexed.
    if (!isUnusableDatabase(err)) throw err;
    return compareAll(
      config,
      paths,
      walk,
      FileStamps.fromRows([], () => ""),
      true,
    );
  } finally {
    during.store?.close();
  }
}

function compareAll(config: ResolvedConfig, paths: StatePaths, walk: WalkResult, stamps: FileStamps, unreadable: boolean): Freshness {
  // The manifest (megabytes on a large tree) is read only when graph.db holds no stamp to say what is indexed.
  const manifest = stamps.size === 0 ? readManifest(paths) : {};
  const examples = { changed: [] as string[], unindexed: [] as string[], vanished: [] as string[] };
  const note = (list: string[], path: string) => {
    if (list.length < MAX_EXAMPLES) list.push(path);
  };
  let changed = 0;
  let unindexed = 0;
  // The walk lists each path once, so when every stamp matched one of them none vanished (no set of 110,000 paths to build).
  let matched = 0;
  const { paths: walked, stats } = walk;
  stamps.alignWith(walk.list);
  for (let i = 0; i < walked.length; i++) {
    const proven = stamps.statProves(walked[i]!, stats, i);
    if (proven !== undefined) matched++;
    if (proven === true) continue;
    const file = walkedFileAt(walk, i);
    const stamp = proven === undefined ? null : stamps.get(file.path)!;
    const current = compareWithIndex(file.path, config.project_root, config.max_file_bytes, stamp, file);
    // Binary and oversized files are never indexed, so never stale unless the index still holds
    // rows for them; an unreadable file cannot be verified, so an indexed one counts as changed.
    if (current.state === "unindexed") {
      unindexed++;
      note(examples.unindexed, file.path);
    } else if (current.state === "changed") {
      changed++;
      note(examples.changed, file.path);
    }
  }
  let vanished = 0;
  if (matched < stamps.size || Object.keys(manifest).length > 0) {
    const onDisk = new Set(walked);
    for (const path of new Set([...stamps.keys(), ...Object.keys(manifest)])) {
      if (!onDisk.has(path)) {
        vanished++;
        note(examples.vanished, path);
      }
    }
  }
  for (const list of Object.values(examples)) list.sort();
  return { unreadable, stale_files: changed + unindexed + vanished, changed, unindexed, vanished, examples };
}
