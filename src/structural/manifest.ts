// The structural index's commit protocol (docs/structural.md#a-build): a build writes its
// catalog, shards and compatibility export under tmp/ with its build id, then manifest.json —
// written to tmp/ and renamed into place, the one commit point — and only then moves the catalog,
// shards and export to their published names. A crash before the rename leaves the last published
// index and debris in tmp/; a crash after it leaves a manifest whose catalog is still in tmp/,
// which readers use there and the next build finishes moving (`finishCommit`).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic } from "../base/atomic.js";
import { readJsonObjectFile } from "../base/json.js";
import { catalogMeta, openCatalog } from "../store/catalog.js";
import type { Db } from "../store/db.js";
import type { StructuralLayout } from "./locate.js";

export const MANIFEST_SCHEMA_VERSION = 1;

/** A build's status, and a partition's in every answer's coverage. */
export type BuildStatus = "complete" | "partial" | "empty" | "failed";

/** complete: every file indexed; partial: some deferred (to resume) or failed; failed: a backend ran and indexed nothing; empty: nothing to index, or no backend. */
export function statusOf(c: { readonly total_files: number; readonly indexed_files: number; readonly failed: number; readonly deferred: number }): BuildStatus {
  if (c.total_files === 0) return "empty";
  if (c.indexed_files === c.total_files) return "complete";
  if (c.deferred > 0) return "partial";
  if (c.indexed_files === 0) return c.failed > 0 ? "failed" : "empty";
  return "partial";
}

export interface BackendVersion {
  readonly backend_name: string;
  readonly backend_version: string;
  readonly precision: string;
  /** Why the language is not at a higher tier that was asked for (its analyzer not installed, or failed). */
  readonly reason?: string;
}

export interface ShardEntry {
  readonly id: string;
  readonly path: string;
  readonly checksum: string;
  readonly partition_key: string;
  readonly symbol_count: number;
  readonly edge_count: number;
}

export interface DeferredUnit {
  readonly unit_id: string;
  readonly language: string;
  readonly files: readonly string[];
  readonly priority: number;
  readonly reason: string;
}

export interface NativeIndexEntry {
  readonly kind: string;
  readonly path: string;
  readonly language: string;
  readonly indexer: string;
  readonly precision: string;
  /** Beyond the contract: whether the catalog holds its symbols (`semantic`) or it was recorded and deferred, and why. */
  readonly ingested: boolean;
  readonly reason?: string;
}

export interface StructuralManifest {
  readonly schema_version: number;
  readonly snapshot_id: string;
  readonly snapshot_pinned: boolean;
  /** A snapshot id without a pinned tree (HALT): consumers treat the hints as advisory. */
  readonly stale: boolean;
  readonly root_fingerprint: string;
  readonly status: BuildStatus;
  readonly provider: { readonly kind: "local-build" | "baseline+overlay" | "remote"; readonly catalog: string; readonly backend_versions: Readonly<Record<string, BackendVersion>> };
  readonly units: { readonly total: number; readonly reused: number; readonly rebuild: number; readonly failed: number };
  readonly coverage: { readonly total_files: number; readonly indexed_files: number; readonly failed_files: number; readonly deferred_files: number };
  readonly shards: readonly ShardEntry[];
  readonly deferred_units: readonly DeferredUnit[];
  readonly native_indexes: readonly NativeIndexEntry[];
  /** `build_id` beyond the contract: the baseline build the overlay was made against (another one there is not this overlay's baseline). */
  readonly baseline: { readonly source: "ci" | "local" | "none"; readonly snapshot_id: string | null; readonly manifest_path: string | null; readonly build_id?: string | null };
  readonly overlay: { readonly units_added: number; readonly units_modified: number; readonly files: readonly string[] };
  readonly compat_pointer: { readonly path: string; readonly full_export: boolean; readonly symbol_count: number };
  readonly created_at: string;
  readonly build_duration_ms: number;
  /** Beyond the contract: the build that wrote it (its catalog's `schema_meta.build_id`). */
  readonly build_id: string;
  readonly code_root: string;
  /** Beyond the contract: the catalog's symbol and edge rows. */
  readonly counts: { readonly symbols: number; readonly edges: number };
}

/** The published manifest, or null when absent or not one. */
export function readManifest(layout: StructuralLayout): StructuralManifest | null {
  const m = readJsonObjectFile(layout.manifest);
  return m && m.schema_version === MANIFEST_SCHEMA_VERSION && typeof m.build_id === "string" ? (m as unknown as StructuralManifest) : null;
}

/** Where a build keeps what it publishes after the manifest. */
export function pendingPaths(layout: StructuralLayout, buildId: string): { catalog: string; shards: string; jsonl: string } {
  return { catalog: join(layout.tmp, `catalog-${buildId}.sqlite`), shards: join(layout.tmp, `shards-${buildId}`), jsonl: join(layout.tmp, `structural_index-${buildId}.jsonl`) };
}

/** The commit point: the manifest written to tmp/ and renamed over manifest.json. */
export function commitManifest(layout: StructuralLayout, manifest: StructuralManifest): void {
  mkdirSync(layout.tmp, { recursive: true });
  const staged = join(layout.tmp, "manifest.json");
  writeAtomic(staged, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  renameSync(staged, layout.manifest);
}

/** Moves a committed build's catalog, shards and export to their published names; removes tmp/ debris of other builds. */
export function finishCommit(layout: StructuralLayout, manifest: StructuralManifest): void {
  const pending = pendingPaths(layout, manifest.build_id);
  if (existsSync(pending.catalog)) {
    rmSync(`${layout.catalog}-journal`, { force: true });
    renameSync(pending.catalog, layout.catalog);
  }
  if (existsSync(pending.shards)) {
    rmSync(layout.shards, { recursive: true, force: true });
    renameSync(pending.shards, layout.shards);
  } else if (manifest.shards.length === 0) rmSync(layout.shards, { recursive: true, force: true });
  if (existsSync(pending.jsonl)) renameSync(pending.jsonl, layout.jsonl);
  if (!existsSync(layout.tmp)) return;
  for (const name of readdirSync(layout.tmp)) rmSync(join(layout.tmp, name), { recursive: true, force: true });
}

/** The build id a catalog file was written by; null when it is absent or not a catalog. */
function buildIdOf(path: string): string | null {
  const db = openCatalog(path);
  if (!db) return null;
  try {
    return catalogMeta(db).build_id ?? null;
  } finally {
    db.close();
  }
}

/**
 * The manifest's databases opened read-only: the catalog, then its shards — where they are
 * published, or in tmp/ when the manifest was committed and they were not moved yet. Null when
 * the catalog the manifest names is in neither place.
 */
export function openPublished(layout: StructuralLayout, manifest: StructuralManifest): Db[] | null {
  const pending = pendingPaths(layout, manifest.build_id);
  const catalogPath = buildIdOf(layout.catalog) === manifest.build_id ? layout.catalog : buildIdOf(pending.catalog) === manifest.build_id ? pending.catalog : null;
  if (catalogPath === null) return null;
  const dbs: Db[] = [];
  const main = openCatalog(catalogPath);
  if (!main) return null;
  dbs.push(main);
  for (const shard of manifest.shards) {
    const published = join(layout.dir, shard.path);
    const staged = join(pending.shards, shard.path.replace(/^shards\//, ""));
    const db = [published, staged].map((p) => (buildIdOf(p) === manifest.build_id ? openCatalog(p) : null)).find((d) => d !== null) ?? null;
    if (!db) {
      for (const d of dbs) d.close();
      return null;
    }
    dbs.push(db);
  }
  return dbs;
}
