// measureFreshness: the one producer of `stale_files` for `mast status` and mast_status. A file
// is stale when its content differs from what was indexed, when it is on disk but not indexed,
// or when the index (rows or manifest) still lists it but it is gone. Read-only: creates nothing.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Store, type FileStamp } from "../store/db.js";
import type { ResolvedConfig } from "./config.js";
import { readForIndex } from "./parse-task.js";
import { walkForConfig } from "./run.js";
import { readManifest, statePaths } from "./state.js";

export interface Freshness {
  readonly stale_files: number;
  readonly changed: number;
  readonly unindexed: number;
  readonly vanished: number;
  /** Up to 20 example paths per category, for humans. */
  readonly examples: { readonly changed: string[]; readonly unindexed: string[]; readonly vanished: string[] };
}

const MAX_EXAMPLES = 20;

/**
 * The stamps of every indexed file. A graph.db without its tables (a run killed between creating
 * the file and writing the schema), of another schema version (which the next run wipes), or not a
 * database at all holds nothing this binary can use, so it reads as empty: every file on disk
 * counts as not indexed.
 */
function readStamps(graphDb: string): Map<string, FileStamp> {
  if (!existsSync(graphDb)) return new Map();
  const store = Store.open(graphDb, { readonly: true });
  try {
    if (!store.hasCurrentSchema()) return new Map();
    return store.fileStamps();
  } finally {
    store.close();
  }
}

export function measureFreshness(config: ResolvedConfig): Freshness {
  const paths = statePaths(config.state_dir);
  const stamps = readStamps(paths.graphDb);
  const manifest = readManifest(paths);
  const walk = walkForConfig(config);
  const onDisk = new Set<string>();
  const examples = { changed: [] as string[], unindexed: [] as string[], vanished: [] as string[] };
  const note = (list: string[], path: string) => {
    if (list.length < MAX_EXAMPLES) list.push(path);
  };
  let changed = 0;
  let unindexed = 0;
  for (const file of walk.files) {
    onDisk.add(file.path);
    const read = readForIndex(file.path, join(config.project_root, file.path), config.max_file_bytes);
    // A binary or oversized file is never indexed: not stale, unless the index still holds rows
    // for it (the next run drops them). An unreadable or vanishing file cannot be verified: it
    // counts as changed when indexed, as not indexed otherwise.
    const stamp = stamps.get(file.path);
    if ((read.kind === "binary" || read.kind === "too_large") && !stamp) continue;
    if (!stamp) {
      unindexed++;
      note(examples.unindexed, file.path);
    } else if (read.kind !== "read" || stamp.contentHash !== read.stamp.contentHash) {
      changed++;
      note(examples.changed, file.path);
    }
  }
  let vanished = 0;
  for (const path of new Set([...stamps.keys(), ...Object.keys(manifest)])) {
    if (!onDisk.has(path)) {
      vanished++;
      note(examples.vanished, path);
    }
  }
  for (const list of Object.values(examples)) list.sort();
  return { stale_files: changed + unindexed + vanished, changed, unindexed, vanished, examples };
}
