// Steps 3 and 4 of a structural build: the catalog's rows composed from the unit outputs
// (fallback-tier calls resolved by a unique name), written under tmp/ — one catalog, or past the
// thresholds a catalog and shards by partition key — with the compatibility JSONL export, then the
// manifest (the commit point, manifest.ts) and the published names.
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic } from "../base/atomic.js";
import { randomHex, sha256 } from "../base/hash.js";
import { VERSION } from "../base/version.js";
import { languageSpec } from "../lang/languages.js";
import { writeCatalog, type CatalogBoundary, type CatalogCoverage, type CatalogDeferred, type CatalogEdge, type CatalogSymbol, type CatalogUnit, type FallbackSymbol } from "../store/catalog.js";
import { supersededFiles, type Baseline } from "./baseline.js";
import type { Located } from "./locate.js";
import { commitManifest, finishCommit, pendingPaths, statusOf, type DeferredUnit, type ShardEntry, type StructuralManifest } from "./manifest.js";
import type { Plan, PlannedUnit } from "./plan.js";
import type { BuiltUnits } from "./queue.js";
import type { BuildSources, SourceFile, UnreadableFile } from "./sources.js";
import { group } from "./unit-outputs.js";
import type { UnitEdge, UnitOutput, UnitSymbol } from "./units.js";

const DEFAULT_JSONL_THRESHOLD = 10_000;
const DEFAULT_SHARD_SYMBOLS = 500_000;
const DEFAULT_SHARD_EDGES = 2_000_000;
const PARTITION_BUCKETS = 16;

/** What publishing reads of the build's options. */
export interface PublishOptions {
  readonly jsonlThreshold?: number;
  readonly shardSymbols?: number;
  readonly shardEdges?: number;
  readonly baselineSource?: "ci" | "local";
  readonly crashAt?: "units" | "catalog" | "manifest";
}

/** `lang:{language}:bucket:{NN}` by a stable hash of the path. */
function partitionKey(language: string, path: string): string {
  return `lang:${language}:bucket:${String(parseInt(sha256(path).slice(0, 8), 16) % PARTITION_BUCKETS).padStart(2, "0")}`;
}

/** What a build publishes: its sources and plan, the units it built, and the baseline an overlay sits on. */
export interface PublishInput {
  readonly located: Located;
  readonly collected: BuildSources;
  readonly plan: Plan;
  readonly built: BuiltUnits;
  readonly baseline: Baseline | null;
  /** Units the baseline answers for (`keepOverlay`). */
  readonly fromBaseline: number;
  readonly options: PublishOptions;
  /** When the build started (ms since the epoch). */
  readonly started: number;
}

/**
 * Composes the catalog's rows, writes the catalog and shards, the compatibility export, then the
 * manifest (the commit point), then the published names; the manifest and the row counts.
 */
export function publishBuild(input: PublishInput): { manifest: StructuralManifest; symbols: number; edges: number } {
  const { located, collected, plan, built, baseline, options } = input;
  const { layout } = located;
  const { outputs, deferred } = built;
  // The catalog's rows, composed from the unit outputs.
  const buildId = `${Date.now().toString(36)}-${randomHex(4)}`;
  const createdAt = new Date().toISOString();
  // The files the overlay supersedes in the baseline: those it indexed or deferred, and those gone since.
  const overlayFiles = baseline ? supersededFiles(baseline, outputs, deferred, collected.unreadable, new Set(collected.sources.map((s) => s.path))) : [];
  const superseded = new Set(overlayFiles);
  const baselineNames = baseline ? baseline.fallbackSymbols().filter((s) => !superseded.has(s.file_path)) : [];
  const rows = composeRows(outputs, deferred, plan, collected.sources, collected.unreadable, located.snapshotId, createdAt, baseline ? "overlay" : "baseline", baselineNames);
  const pending = pendingPaths(layout, buildId);
  mkdirSync(layout.tmp, { recursive: true });
  const shards = writeCatalogs(pending, rows, buildId, located, options);
  if (options.crashAt === "catalog") throw new Error("crash injected after the catalog");

  // The compatibility export, then the manifest (the commit point), then the published names.
  const compat = writeJsonl(pending.jsonl, rows, located.snapshotId, options.jsonlThreshold ?? DEFAULT_JSONL_THRESHOLD);
  const manifest = manifestOf(input, rows, { buildId, createdAt, overlayFiles, shards, fullExport: compat.full });
  commitManifest(layout, manifest);
  if (options.crashAt === "manifest") throw new Error("crash injected after the manifest");
  finishCommit(layout, manifest);
  return { manifest, symbols: rows.symbols.length, edges: rows.edges.length };
}

/** The build's manifest: its coverage (a baseline's counted without the files the overlay supersedes), units, shards, and provenance. */
function manifestOf(input: PublishInput, rows: Rows, written: { buildId: string; createdAt: string; overlayFiles: string[]; shards: ShardEntry[]; fullExport: boolean }): StructuralManifest {
  const { located, plan, baseline, fromBaseline, options } = input;
  const { outputs, deferred } = input.built;
  const { overlayFiles } = written;
  const base = baseline ? baseline.counts(overlayFiles) : { total_files: 0, indexed_files: 0, failed: 0, deferred: 0 };
  const totalFiles = rows.coverage.length + base.total_files;
  const indexedFiles = rows.coverage.filter((c) => c.indexed === 1).length + base.indexed_files;
  const failedFiles = rows.coverage.filter((c) => c.status === "failed").length + base.failed;
  const deferredFiles = rows.coverage.filter((c) => c.status === "deferred").length + base.deferred;
  const status = statusOf({ total_files: totalFiles, indexed_files: indexedFiles, failed: failedFiles, deferred: deferredFiles });
  const reusedCount = outputs.filter((o) => o.reused).length + fromBaseline;
  return {
    schema_version: 1,
    snapshot_id: located.snapshotId,
    snapshot_pinned: located.pinned,
    stale: located.mode === "halt",
    root_fingerprint: input.collected.rootFingerprint,
    status,
    provider: { kind: baseline ? "baseline+overlay" : "local-build", catalog: "catalog.sqlite", backend_versions: plan.backends },
    units: { total: outputs.length + fromBaseline + deferred.length, reused: reusedCount, rebuild: outputs.length + fromBaseline - reusedCount, failed: input.built.failed },
    coverage: { total_files: totalFiles, indexed_files: indexedFiles, failed_files: failedFiles, deferred_files: deferredFiles },
    shards: written.shards,
    deferred_units: deferred,
    native_indexes: plan.native,
    baseline: baseline
      ? { source: options.baselineSource ?? "ci", snapshot_id: baseline.manifest.snapshot_id, manifest_path: baseline.manifestPath, build_id: baseline.manifest.build_id }
      : { source: "none", snapshot_id: null, manifest_path: null },
    overlay: baseline
      ? {
          units_added: outputs.filter(({ output }) => output.files.every((f) => !baseline.keys.has(f.path))).length,
          units_modified: outputs.filter(({ output }) => output.files.some((f) => baseline.keys.has(f.path))).length,
          files: overlayFiles,
        }
      : { units_added: 0, units_modified: 0, files: [] },
    compat_pointer: { path: "../structural_index.jsonl", full_export: written.fullExport, symbol_count: rows.symbols.length },
    created_at: written.createdAt,
    build_duration_ms: Date.now() - input.started,
    build_id: written.buildId,
    code_root: located.codeRoot,
    counts: { symbols: rows.symbols.length, edges: rows.edges.length },
  };
}

interface Rows {
  readonly symbols: CatalogSymbol[];
  readonly edges: CatalogEdge[];
  readonly boundaries: CatalogBoundary[];
  readonly coverage: CatalogCoverage[];
  readonly units: CatalogUnit[];
  readonly deferred: CatalogDeferred[];
}

/**
 * The catalog's rows from the unit outputs: fallback-tier calls resolved by a unique name among
 * the language's fallback-tier declarations — the outputs' and, for an overlay, the baseline's
 * (`baselineNames`, its superseded files left out).
 */
function composeRows(
  outputs: readonly { unit: PlannedUnit; output: UnitOutput }[],
  deferred: readonly DeferredUnit[],
  plan: Plan,
  sources: readonly SourceFile[],
  unreadable: readonly UnreadableFile[],
  snapshotId: string,
  createdAt: string,
  layer: "baseline" | "overlay",
  baselineNames: readonly FallbackSymbol[],
): Rows {
  const symbols: CatalogSymbol[] = [];
  const edges: CatalogEdge[] = [];
  const boundaries: CatalogBoundary[] = [];
  const coverage: CatalogCoverage[] = [];
  const units: CatalogUnit[] = [];
  const seen = new Set<string>();
  // Each file's own language keys its partition (a JavaScript file of a TypeScript project is JavaScript's).
  const languageOf = new Map(sources.map((s) => [s.path, s.language]));
  const fallbackByName = fallbackNames(outputs, baselineNames);
  for (const { unit, output } of outputs) {
    for (const s of output.symbols) {
      if (seen.has(s.symbol_id)) continue;
      seen.add(s.symbol_id);
      symbols.push(symbolRow(s, output, layer));
      if (s.boundary) boundaries.push({ symbol_id: s.symbol_id, file_path: s.file_path, start_line: s.start_line, end_line: s.end_line, signature: s.signature, language: s.language });
    }
    for (const e of output.edges) edges.push(edgeRow(e, output, layer, fallbackByName, languageOf));
    for (const f of output.files)
      coverage.push({
        file_path: f.path,
        indexed: f.status === "indexed" ? 1 : 0,
        backend: output.backend,
        precision: output.precision,
        unit_cache_key: output.cache_key,
        status: f.status,
        partition_key: partitionKey(languageOf.get(f.path) ?? unit.language, f.path),
        sha256: f.sha256,
      });
    units.push({
      cache_key: output.cache_key,
      unit_id: output.unit_id,
      language: output.language,
      extractor_name: output.backend,
      extractor_version: output.backend_version,
      file_count: output.files.length,
      symbol_count: output.symbols.length,
      edge_count: output.edges.length,
      source_bytes: unit.source_bytes,
      created_at: createdAt,
      snapshot_id: snapshotId,
    });
  }
  addUnitlessCoverage(coverage, deferred, plan, unreadable, languageOf);
  coverage.sort((a, b) => (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : 0));
  const deferredRows: CatalogDeferred[] = deferred.map((d) => ({
    unit_id: d.unit_id,
    language: d.language,
    files: JSON.stringify(d.files),
    priority: d.priority,
    reason: d.reason,
    cache_key: null,
    created_at: createdAt,
  }));
  return { symbols, edges, boundaries, coverage, units, deferred: deferredRows };
}

/** Names the fallback tiers resolve a call by: a language's declarations at those tiers (modules and classes aside), by `language\0name`. */
function fallbackNames(outputs: readonly { output: UnitOutput }[], baselineNames: readonly FallbackSymbol[]): Map<string, string[]> {
  const fallbackByName = new Map<string, string[]>();
  const fallbackSymbols = [...outputs.filter(({ output }) => output.precision === "symbol-only" || output.precision === "heuristic").flatMap(({ output }) => output.symbols), ...baselineNames];
  for (const s of fallbackSymbols) {
    if (s.kind === "module" || s.kind === "class") continue;
    const k = `${s.language}\0${s.name}`;
    const l = fallbackByName.get(k);
    if (l) l.push(s.symbol_id);
    else fallbackByName.set(k, [s.symbol_id]);
  }
  return fallbackByName;
}

/** A unit's declaration as a catalog row, with its unit's backend and precision. */
function symbolRow(s: UnitSymbol, output: UnitOutput, layer: "baseline" | "overlay"): CatalogSymbol {
  return {
    symbol_id: s.symbol_id,
    name: s.name,
    qualified_name: s.qualified_name,
    namespace: s.namespace,
    language: s.language,
    file_path: s.file_path,
    start_line: s.start_line,
    end_line: s.end_line,
    kind: s.kind,
    signature: s.signature,
    backend: output.backend,
    precision: output.precision,
    partition_key: partitionKey(s.language, s.file_path),
    unit_cache_key: output.cache_key,
    source_layer: layer,
  };
}

/** A unit's call edge as a catalog row: a fallback-tier call with no callee resolved `direct` to the one declaration of its name, if there is one. */
function edgeRow(e: UnitEdge, output: UnitOutput, layer: "baseline" | "overlay", fallbackByName: ReadonlyMap<string, string[]>, languageOf: ReadonlyMap<string, string>): CatalogEdge {
  let calleeId = e.callee_id;
  let kind = e.edge_kind;
  if (calleeId === null && (e.precision === "symbol-only" || e.precision === "heuristic")) {
    const candidates = fallbackByName.get(`${output.language}\0${e.callee_name}`) ?? [];
    if (candidates.length === 1) {
      calleeId = candidates[0]!;
      kind = "direct";
    }
  }
  return {
    caller_id: e.caller_id,
    callee_id: calleeId,
    callee_name: e.callee_name,
    file_path: e.file_path,
    line: e.line,
    edge_kind: kind,
    partition_key: partitionKey(languageOf.get(e.file_path) ?? output.language, e.file_path),
    source_layer: layer,
    precision: e.precision,
    backend: output.backend,
  };
}

/** Adds the coverage of the files no unit output answers for: deferred units' and native attachments' (deferred), uncovered ones (empty), unreadable ones (failed). */
function addUnitlessCoverage(coverage: CatalogCoverage[], deferred: readonly DeferredUnit[], plan: Plan, unreadable: readonly UnreadableFile[], languageOf: ReadonlyMap<string, string>): void {
  for (const d of deferred) {
    for (const f of d.files)
      coverage.push({ file_path: f, indexed: 0, backend: "none", precision: "coverage-only", unit_cache_key: null, status: "deferred", partition_key: partitionKey(d.language, f), sha256: null });
  }
  for (const [f, indexer] of plan.nativeDeferred)
    coverage.push({
      file_path: f,
      indexed: 0,
      backend: indexer,
      precision: "deferred",
      unit_cache_key: null,
      status: "deferred",
      partition_key: partitionKey(languageOf.get(f) ?? "unknown", f),
      sha256: null,
    });
  for (const s of plan.uncovered)
    coverage.push({ file_path: s.path, indexed: 0, backend: "grep", precision: "coverage-only", unit_cache_key: null, status: "empty", partition_key: partitionKey(s.language, s.path), sha256: null });
  for (const f of unreadable)
    coverage.push({
      file_path: f.path,
      indexed: 0,
      backend: "none",
      precision: "coverage-only",
      unit_cache_key: null,
      status: "failed",
      partition_key: partitionKey(f.language, f.path),
      sha256: null,
    });
}

/** For each language of the catalog, the languages whose files can call its symbols: those resolved by the same import resolver (TypeScript and JavaScript), else itself. */
function callLanguages(rows: Rows): Record<string, string[]> {
  // Every language the index covers, deferred or failed files' too (a deferred JavaScript file may call TypeScript).
  const present = [...new Set([...rows.symbols.map((s) => s.language), ...rows.coverage.map((c) => c.partition_key.split(":")[1]!)])].sort();
  return Object.fromEntries(
    present.map((l) => {
      const resolver = languageSpec(l)?.resolver;
      return [l, resolver === undefined || resolver === "none" ? [l] : present.filter((o) => languageSpec(o)?.resolver === resolver)];
    }),
  );
}

/** Writes the catalog (and, past the thresholds, its shards: symbols, edges and boundaries by partition key) under tmp/. */
function writeCatalogs(pending: ReturnType<typeof pendingPaths>, rows: Rows, buildId: string, located: Located, options: PublishOptions): ShardEntry[] {
  const meta = { build_id: buildId, snapshot_id: located.snapshotId, code_root: located.codeRoot, call_languages: JSON.stringify(callLanguages(rows)) };
  const sharded = rows.symbols.length > (options.shardSymbols ?? DEFAULT_SHARD_SYMBOLS) || rows.edges.length > (options.shardEdges ?? DEFAULT_SHARD_EDGES);
  if (!sharded) {
    writeCatalog(pending.catalog, { meta, ...rows });
    return [];
  }
  // One shard per language, split into the hash buckets of `lang:{language}:bucket:{NN}`.
  const keys = [...new Set([...rows.symbols.map((s) => s.partition_key), ...rows.edges.map((e) => e.partition_key)])].sort();
  mkdirSync(pending.shards, { recursive: true });
  const symbolsBy = group(rows.symbols, (s) => s.partition_key);
  const edgesBy = group(rows.edges, (e) => e.partition_key);
  const boundaryKey = new Map(rows.symbols.map((s) => [s.symbol_id, s.partition_key]));
  const boundariesBy = group(rows.boundaries, (b) => boundaryKey.get(b.symbol_id) ?? "");
  const shards: ShardEntry[] = keys.map((key, i) => {
    const id = `shard_${String(i + 1).padStart(4, "0")}`;
    const abs = join(pending.shards, `${id}.sqlite`);
    writeCatalog(abs, {
      meta: { ...meta, partition_key: key },
      symbols: symbolsBy.get(key) ?? [],
      edges: edgesBy.get(key) ?? [],
      boundaries: boundariesBy.get(key) ?? [],
      coverage: [],
      units: [],
      deferred: [],
    });
    return { id, path: `shards/${id}.sqlite`, checksum: sha256(readFileSync(abs)), partition_key: key, symbol_count: symbolsBy.get(key)?.length ?? 0, edge_count: edgesBy.get(key)?.length ?? 0 };
  });
  writeCatalog(pending.catalog, { meta: { ...meta, sharded: "true" }, symbols: [], edges: [], boundaries: [], coverage: rows.coverage, units: rows.units, deferred: rows.deferred });
  return shards;
}

/** structural_index.jsonl: the provenance header (with the coverage counts), then every declaration and call edge while they are under the threshold. */
function writeJsonl(path: string, rows: Rows, snapshotId: string, threshold: number): { full: boolean } {
  const functions = rows.symbols.filter((s) => s.kind !== "module");
  const records = functions.length + rows.edges.length;
  const full = records <= threshold;
  const indexed = rows.coverage.filter((c) => c.indexed === 1);
  const coverage = {
    total_files: rows.coverage.length,
    indexed_files: indexed.length,
    failed: rows.coverage.filter((c) => c.status === "failed").length,
    deferred: rows.coverage.filter((c) => c.status === "deferred").length,
    backends_used: [...new Set(rows.coverage.filter((c) => c.indexed === 1 || c.status === "deferred").map((c) => c.backend))].sort(),
  };
  const header = {
    _provenance: true,
    snapshot_id: snapshotId,
    tool: `mast structural ${VERSION}`,
    full_export: full,
    symbol_count: rows.symbols.length,
    edge_count: rows.edges.length,
    coverage,
    call_languages: callLanguages(rows),
  };
  const lines = [JSON.stringify(header)];
  if (full) {
    const keyOf = new Map(rows.symbols.map((s) => [s.symbol_id, `${s.file_path}:${s.qualified_name}`]));
    const callsOf = group(rows.edges, (e) => e.caller_id);
    const boundary = new Set(rows.boundaries.map((b) => b.symbol_id));
    for (const s of rows.symbols) {
      lines.push(
        JSON.stringify({
          _type: "function",
          key: `${s.file_path}:${s.qualified_name}`,
          symbol_id: s.symbol_id,
          name: s.name,
          qualified_name: s.qualified_name,
          namespace: s.namespace,
          language: s.language,
          file_path: s.file_path,
          kind: s.kind,
          start_line: s.start_line,
          end_line: s.end_line,
          signature: s.signature,
          precision: s.precision,
          backend: s.backend,
          boundary: boundary.has(s.symbol_id),
          calls: [...new Set((callsOf.get(s.symbol_id) ?? []).map((e) => e.callee_name))],
        }),
      );
    }
    for (const e of rows.edges)
      lines.push(
        JSON.stringify({
          _type: "call_edge",
          caller: keyOf.get(e.caller_id) ?? e.caller_id,
          callee: e.callee_id === null ? e.callee_name : (keyOf.get(e.callee_id) ?? e.callee_id),
          caller_id: e.caller_id,
          callee_id: e.callee_id,
          callee_name: e.callee_name,
          file: e.file_path,
          line: e.line,
          edge_kind: e.edge_kind,
          precision: e.precision,
          backend: e.backend,
        }),
      );
  }
  writeAtomic(path, Buffer.from(`${lines.join("\n")}\n`));
  return { full };
}
