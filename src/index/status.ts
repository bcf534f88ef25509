// The index health snapshot behind `mast status` and mast_status: one producer for both.
// Read-only: it reads index.json and measures freshness; it never creates the state dir.
import { existsSync } from "node:fs";
import { CURRENT_SCHEMA_VERSION } from "../store/db.js";
import type { ResolvedConfig } from "./config.js";
import { measureFreshness } from "./freshness.js";
import { readIndexJson, statePaths } from "./state.js";

export interface IndexStatus {
  readonly state_dir: string;
  /** The schema version compiled into this binary (not the one on disk; spec §9 mast_status). */
  readonly schema_version: string;
  readonly last_indexed: string | null;
  readonly indexed_files: number;
  readonly chunk_count: number;
  readonly stale_files: number;
  readonly parse_errors: number;
  readonly write_errors: number;
  readonly index_fresh: boolean;
  readonly freshness_cause: "phase1_stale" | null;
  readonly stale_breakdown: { readonly changed: number; readonly unindexed: number; readonly vanished: number };
  readonly seed_commit?: string;
}

export function indexStatus(config: ResolvedConfig): IndexStatus {
  const paths = statePaths(config.state_dir);
  const index = existsSync(paths.graphDb) ? readIndexJson(paths) : null;
  const fresh = measureFreshness(config);
  const indexed = index !== null && index.last_indexed !== null;
  return {
    state_dir: config.state_dir,
    schema_version: CURRENT_SCHEMA_VERSION,
    last_indexed: index?.last_indexed ?? null,
    indexed_files: index?.file_count ?? 0,
    chunk_count: index?.chunk_count ?? 0,
    stale_files: fresh.stale_files,
    parse_errors: index?.parse_errors ?? 0,
    write_errors: index?.write_errors ?? 0,
    index_fresh: indexed && fresh.stale_files === 0,
    freshness_cause: fresh.stale_files > 0 ? "phase1_stale" : null,
    stale_breakdown: { changed: fresh.changed, unindexed: fresh.unindexed, vanished: fresh.vanished },
    ...(index?.seed_commit ? { seed_commit: index.seed_commit } : {}),
  };
}
