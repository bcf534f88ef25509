// `mast structural build`: the mantis structural index as an adapter over mast's own index. The
// index run (the same extraction, LanguageSpecs and call resolver mast_callers answers from, with
// the TypeScript checker for ECMAScript files under a tsconfig) supplies the `typecheck` and `ast`
// tiers; a matching SCIP attachment declared in native/ the `semantic` one; universal-ctags and
// the regular-expression pass (heuristic.ts) the files no grammar reads. Units (units.ts) are
// content-addressed and reused across snapshots; a deterministic priority queue bounds a build;
// the catalog, shards and compatibility export are written under tmp/ and published by the
// manifest's rename (manifest.ts). Steps follow the spec's numbering.
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve as resolvePath } from "node:path";
import { writeAtomic } from "../base/atomic.js";
import { MastError, errorMessage } from "../base/errors.js";
import { compileGlobs } from "../base/glob.js";
import { randomHex, sha256 } from "../base/hash.js";
import { readJsonObjectFile } from "../base/json.js";
import { readRegularFile } from "../base/read.js";
import { decodeSource } from "../base/text.js";
import { VERSION } from "../base/version.js";
import { heuristicLanguageOf, HEURISTIC_EXTENSIONS } from "../lang/heuristic.js";
import { extensionInfo, languageSpec } from "../lang/languages.js";
import { resolveConfig, type ResolvedConfig } from "../index/config.js";
import { withStructureLock } from "../index/lock.js";
import type { CheckerLanguage, CheckerPass, IndexReport } from "../index/run.js";
import { statePaths } from "../index/state.js";
import { walkForConfig, walkProject } from "../index/walk.js";
import { CHECKER_LANGUAGES, Store } from "../store/db.js";
import { coverageCounts, coverageDigests, coverageKeys, coveredFiles, fallbackTierCalls, fallbackTierSymbols, PRECISIONS, writeCatalog, type FallbackSymbol, type CatalogBoundary, type CatalogCoverage, type CatalogDeferred, type CatalogEdge, type CatalogSymbol, type CatalogUnit, type EdgeKind, type Precision } from "../store/catalog.js";
import { structuralFacts, type FactSymbol, type StructuralFacts } from "../query/structural.js";
import { ctagsDefinitions, probeCtags } from "./ctags.js";
import { blockEnds, findCalls, findDefinitions, type FoundDefinition } from "./heuristic.js";
import { writeQueryHelper } from "./helper.js";
import { layoutOfManifest, structuralLayout, UNKNOWN_SNAPSHOT, type Located, type StructuralLayout } from "./locate.js";
import { commitManifest, finishCommit, openPublished, pendingPaths, readManifest, statusOf, type BackendVersion, type BuildStatus, type DeferredUnit, type NativeIndexEntry, type ShardEntry, type StructuralManifest } from "./manifest.js";
import { decodeScip, SCIP_ROLE, scipDescriptor, type ScipIndex, type ScipOccurrence } from "../base/scip.js";
import { fallbackSymbolId, namespaceOf, unitCacheKey, UnitStore, type UnitEdge, type UnitFile, type UnitOutput, type UnitSymbol } from "./units.js";

/** The builder's own version: part of every unit's extractor version with mast's. */
export const BUILDER_VERSION = 2;

export interface BuildOptions {
  /** The highest tier a partition may use (default `semantic`): `ast` skips SCIP and the checker, `heuristic` parses nothing. */
  readonly maxPrecision?: Precision;
  readonly maxUnits?: number;
  readonly maxSourceBytes?: number;
  /** Records in the compatibility JSONL from which only its header is written (default 10,000). */
  readonly jsonlThreshold?: number;
  /** Symbols or edges from which the catalog is split into shards (defaults 500,000 and 2,000,000). */
  readonly shardSymbols?: number;
  readonly shardEdges?: number;
  /** The checker pass (query/checker.ts), for the typecheck tier; absent: ECMAScript files stay at `ast`. */
  readonly checker?: CheckerPass;
  /** Parse threads of the index run. */
  readonly threads?: number;
  /**
   * A baseline index (its manifest.json, or a state root holding one): this build indexes only the
   * units whose output differs from the baseline's — the overlay — and queries read the baseline
   * for the rest (provider.kind `baseline+overlay`).
   */
  readonly baseline?: string;
  /** Where the baseline was built: `ci` (default) or `local`. */
  readonly baselineSource?: "ci" | "local";
  /** Test hook: throw at a named step (after the units, after the catalog, after the manifest). */
  readonly crashAt?: "units" | "catalog" | "manifest";
}

export interface BuildSummary {
  readonly manifest: string;
  readonly catalog: string;
  readonly query_helper: string;
  /** The published index was reused (its snapshot id matches): nothing was built. */
  readonly reused_index: boolean;
  readonly snapshot_id: string;
  readonly mode: Located["mode"];
  /** `local-build`, or `baseline+overlay` with --baseline. */
  readonly provider: StructuralManifest["provider"]["kind"];
  /** Over a baseline: the files the overlay supersedes in it. */
  readonly overlay_files: number;
  readonly status: BuildStatus;
  readonly units_total: number;
  readonly units_reused: number;
  readonly units_rebuilt: number;
  readonly units_failed: number;
  readonly units_deferred: number;
  readonly symbols: number;
  readonly edges: number;
  readonly backends: Readonly<Record<string, BackendVersion>>;
  readonly coverage: StructuralManifest["coverage"];
  readonly native_indexes: readonly NativeIndexEntry[];
  readonly build_duration_ms: number;
  /** "Structural index is empty — structural context unavailable." when nothing was indexed. */
  readonly message?: string;
}

/** A second build waits for the first (then reuses what it published) rather than fail: up to 30 minutes. */
const BUILD_LOCK_POLICY = { timeoutMs: 30 * 60_000, retryDelayMs: 250, label: "the structural index" };
const DEFAULT_MAX_UNITS = 10_000;
const DEFAULT_MAX_SOURCE_BYTES = 500 * 1024 * 1024;
const DEFAULT_JSONL_THRESHOLD = 10_000;
const DEFAULT_SHARD_SYMBOLS = 500_000;
const DEFAULT_SHARD_EDGES = 2_000_000;
const PARTITION_BUCKETS = 16;
const EMPTY_MESSAGE = "Structural index is empty — structural context unavailable.";
const MODULE = "<module>";

const rank = (p: Precision) => PRECISIONS.length - PRECISIONS.indexOf(p);
const allows = (max: Precision, tier: Precision) => rank(tier) <= rank(max);

/** `lang:{language}:bucket:{NN}` by a stable hash of the path. */
export function partitionKey(language: string, path: string): string {
  return `lang:${language}:bucket:${String(parseInt(sha256(path).slice(0, 8), 16) % PARTITION_BUCKETS).padStart(2, "0")}`;
}

/** The mast config a build indexes the code root with: the project's own index when the state root is its state dir, else one kept under the state root. */
export function indexConfigFor(located: Located): ResolvedConfig {
  const own = resolveConfig(located.codeRoot, {});
  return !located.pinned && own.state_dir === located.layout.stateRoot ? own : resolveConfig(located.codeRoot, { stateDir: located.layout.index });
}

/** A unit planned for this build: which files, at which tier, by which backend, and how to make its output. */
interface PlannedUnit {
  readonly unit_id: string;
  readonly language: string;
  readonly files: readonly string[];
  readonly source_bytes: number;
  readonly precision: Precision;
  readonly backend: string;
  readonly backend_version: string;
  /** The cache key when it is known before the output (fallback tiers, SCIP); null when the output decides it (its dependency digest). */
  readonly key: string | null;
  readonly make: () => UnitOutput;
  /** False when the output just made must not be stored under its key (its backend failed this run). */
  readonly cacheable?: () => boolean;
}

/** A source file the build covers. */
interface SourceFile {
  readonly path: string;
  readonly language: string;
  readonly sha256: string;
  readonly bytes: number;
  /** Read from the index (a LanguageSpec parses it) or by the fallback walk. */
  readonly parsed: boolean;
}

export async function buildStructural(located: Located, options: BuildOptions = {}): Promise<BuildSummary> {
  const { layout } = located;
  mkdirSync(layout.dir, { recursive: true });
  return withStructureLock(join(layout.dir, "build.lock"), "mast structural build", BUILD_LOCK_POLICY, async () => {
    const started = Date.now();
    // Step 1: a committed manifest whose files were not all moved is finished first.
    const published = readManifest(layout);
    if (published) finishCommit(layout, published);
    // The helper is checked on reuse too (the spec's grep-and-regenerate).
    writeQueryHelper(layout);
    const reuse = reusable(located, layout, published);
    if (reuse) return reuse;
    const config = indexConfigFor(located);
    const maxPrecision = options.maxPrecision ?? "semantic";

    // The index run: mast's extraction and call graph, the checker for the typecheck tier.
    const { runIndex } = await import("../index/run.js");
    const wantChecker = allows(maxPrecision, "typecheck") && options.checker !== undefined;
    // The build's own index (under the state root) follows its code root, which a pinned snapshot moves; the project's own index is never re-pointed.
    const report: IndexReport = await runIndex(config, { mode: "incremental", operation: "mast structural build", repoint: config.state_dir === layout.index, ...(wantChecker ? { checker: options.checker! } : {}), ...(options.threads === undefined ? {} : { threads: options.threads }) });
    const store = Store.open(statePaths(config.state_dir).graphDb, { readonly: true });
    let facts: StructuralFacts;
    let checkerLanguages: readonly CheckerLanguage[] = report.checker?.languages ?? [];
    try {
      facts = store.snapshot((db) => structuralFacts(db));
      // A pass with nothing new to check did not run: the languages its last run reported.
      if (report.checker === undefined && report.checker_up_to_date === true) checkerLanguages = JSON.parse(store.getMeta(CHECKER_LANGUAGES) ?? "[]") as CheckerLanguage[];
    } finally {
      store.db.close();
    }
    const skippedConfigs = new Set((report.checker?.skipped ?? []).map((s) => s.config));

    // Every source file: the index's (code languages) and the fallback walk's. A file no backend
    // could read — one the index walked but holds no rows for (binary, over the size cap,
    // unreadable), one whose read or parse failed this run, a fallback file that is binary or too
    // large — is a `failed` coverage row, never silently absent.
    const failedReads = new Set(report.problems.filter((p) => p.kind === "read_error" || p.kind === "parse_error").map((p) => p.path));
    const isSource = (path: string) => extensionInfo(path)?.spec.extractor !== "markdown";
    const sources: SourceFile[] = facts.files.filter((f) => isSource(f.path) && !failedReads.has(f.path)).map((f) => ({ path: f.path, language: f.language, sha256: f.content_hash, bytes: f.size, parsed: true }));
    const indexed = new Set(facts.files.map((f) => f.path));
    const unreadable: { path: string; language: string }[] = walkForConfig(config)
      .paths.filter((path) => isSource(path) && (!indexed.has(path) || failedReads.has(path)))
      .map((path) => ({ path, language: extensionInfo(path)?.spec.name ?? "unknown" }));
    const fallbackTexts = new Map<string, string>();
    for (const file of walkFallbackSources(config)) {
      const read = readRegularFile(join(located.codeRoot, file.path), { maxBytes: config.max_file_bytes, noFollow: true });
      const decoded = read.kind === "read" ? decodeSource(read.bytes) : null;
      if (read.kind !== "read" || decoded?.kind !== "text") {
        unreadable.push(file);
        continue;
      }
      fallbackTexts.set(file.path, decoded.text);
      sources.push({ path: file.path, language: file.language, sha256: sha256(read.bytes), bytes: read.bytes.length, parsed: false });
    }
    sources.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const rootFingerprint = sha256(sources.map((s) => `${s.path}\0${s.sha256}\n`).join(""));

    // Step 2: the backend of each partition, highest first.
    const native = allows(maxPrecision, "semantic") ? probeNative(layout, located.snapshotId, rootFingerprint) : [];
    const plan = planUnits({ located, layout, config, facts, sources, fallbackTexts, native, maxPrecision, checkerRan: wantChecker && (report.checker !== undefined || report.checker_up_to_date === true), checkerLanguages, skippedConfigs });

    // A baseline: the files it covers, each with the unit key it was indexed under.
    const baseline = options.baseline === undefined ? null : openBaselineFor(options.baseline);
    try {

      // Deterministic partial coverage: the queue, bounded by max_units / max_source_bytes (units to build only; a cached unit costs nothing).
      const unitStore = new UnitStore(layout.units);
      const ordered = priorityOrder(plan.units, layout, facts, baseline ? baseline.digests : published ? publishedDigests(layout, published) : new Map());
      const maxUnits = options.maxUnits ?? DEFAULT_MAX_UNITS;
      const maxBytes = options.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES;
      const outputs: { unit: PlannedUnit; output: UnitOutput; reused: boolean }[] = [];
      const deferred: DeferredUnit[] = [];
      let built = 0;
      let builtBytes = 0;
      let failedUnits = 0;
      for (const { unit, priority, changed } of ordered) {
        const cached = unit.key !== null ? unitStore.read(unit.key) : null;
        if (cached) {
          outputs.push({ unit, output: cached, reused: true });
          continue;
        }
        // At least one unit per build, however large, so bounded builds always progress.
        if (changed && built > 0 && (built >= maxUnits || builtBytes + unit.source_bytes > maxBytes)) {
          deferred.push({ unit_id: unit.unit_id, language: unit.language, files: unit.files, priority, reason: built >= maxUnits ? `max_units (${maxUnits})` : `max_source_bytes (${maxBytes})` });
          continue;
        }
        let output: UnitOutput;
        let threw = false;
        try {
          output = unit.make();
        } catch {
          failedUnits++;
          threw = true;
          output = failedOutput(unit, sources);
        }
        const reused = unit.key === null && unitStore.has(output.cache_key);
        if (!reused) {
          // A failure, or an output a backend's own failure degraded, is never cached: the next build retries.
          if (!threw && (unit.cacheable?.() ?? true)) unitStore.write(output);
          built++;
          builtBytes += unit.source_bytes;
        }
        outputs.push({ unit, output, reused });
      }
      // Over a baseline, a unit whose output the baseline holds (same key for each of its files) is the baseline's: the overlay is the rest.
      let fromBaseline = 0;
      if (baseline) {
        const differs = (output: UnitOutput) => !output.files.every((f) => baseline.keys.get(f.path) === output.cache_key);
        // A fallback-tier call was resolved by name into a declaration's id when the baseline was
        // composed: the baseline files calling into a file the overlay rebuilds are rebuilt too.
        const rebuilt = new Set([...outputs.filter(({ output }) => differs(output)).flatMap(({ output }) => output.files.map((f) => f.path)), ...deferred.flatMap((d) => d.files)]);
        const callers = baseline.fallbackCallersOf(rebuilt);
        const overlayOutputs = outputs.filter(({ output }) => differs(output) || output.files.some((f) => callers.has(f.path)));
        fromBaseline = outputs.length - overlayOutputs.length;
        outputs.splice(0, outputs.length, ...overlayOutputs);
      }
      if (options.crashAt === "units") throw new Error("crash injected after the units");

      // The catalog's rows, composed from the unit outputs.
      const buildId = `${Date.now().toString(36)}-${randomHex(4)}`;
      const createdAt = new Date().toISOString();
      // The files the overlay supersedes in the baseline: those it indexed or deferred, and those gone since.
      const present = new Set(sources.map((s) => s.path));
      const overlayFiles = baseline ? [...new Set([...outputs.flatMap(({ output }) => output.files.map((f) => f.path)), ...deferred.flatMap((d) => d.files), ...unreadable.map((f) => f.path), ...baseline.files.filter((f) => !present.has(f))])].sort() : [];
      const superseded = new Set(overlayFiles);
      const baselineNames = baseline ? baseline.fallbackSymbols().filter((s) => !superseded.has(s.file_path)) : [];
      const rows = composeRows(outputs, deferred, plan, sources, unreadable, located.snapshotId, createdAt, baseline ? "overlay" : "baseline", baselineNames);
      const pending = pendingPaths(layout, buildId);
      mkdirSync(layout.tmp, { recursive: true });
      const shards = writeCatalogs(pending, rows, buildId, located, options);
      if (options.crashAt === "catalog") throw new Error("crash injected after the catalog");

      // The compatibility export, then the manifest (the commit point), then the published names.
      const compat = writeJsonl(pending.jsonl, rows, located.snapshotId, options.jsonlThreshold ?? DEFAULT_JSONL_THRESHOLD);
      const base = baseline ? baseline.counts(overlayFiles) : { total_files: 0, indexed_files: 0, failed: 0, deferred: 0 };
      const totalFiles = rows.coverage.length + base.total_files;
      const indexedFiles = rows.coverage.filter((c) => c.indexed === 1).length + base.indexed_files;
      const failedFiles = rows.coverage.filter((c) => c.status === "failed").length + base.failed;
      const deferredFiles = rows.coverage.filter((c) => c.status === "deferred").length + base.deferred;
      const status = statusOf({ total_files: totalFiles, indexed_files: indexedFiles, failed: failedFiles, deferred: deferredFiles });
      const reusedCount = outputs.filter((o) => o.reused).length + fromBaseline;
      const manifest: StructuralManifest = {
        schema_version: 1,
        snapshot_id: located.snapshotId,
        snapshot_pinned: located.pinned,
        stale: located.mode === "halt",
        root_fingerprint: rootFingerprint,
        status,
        provider: { kind: baseline ? "baseline+overlay" : "local-build", catalog: "catalog.sqlite", backend_versions: plan.backends },
        units: { total: outputs.length + fromBaseline + deferred.length, reused: reusedCount, rebuild: outputs.length + fromBaseline - reusedCount, failed: failedUnits },
        coverage: { total_files: totalFiles, indexed_files: indexedFiles, failed_files: failedFiles, deferred_files: deferredFiles },
        shards,
        deferred_units: deferred,
        native_indexes: plan.native,
        baseline: baseline ? { source: options.baselineSource ?? "ci", snapshot_id: baseline.manifest.snapshot_id, manifest_path: baseline.manifestPath, build_id: baseline.manifest.build_id } : { source: "none", snapshot_id: null, manifest_path: null },
        overlay: baseline
          ? { units_added: outputs.filter(({ output }) => output.files.every((f) => !baseline.keys.has(f.path))).length, units_modified: outputs.filter(({ output }) => output.files.some((f) => baseline.keys.has(f.path))).length, files: overlayFiles }
          : { units_added: 0, units_modified: 0, files: [] },
        compat_pointer: { path: "../structural_index.jsonl", full_export: compat.full, symbol_count: rows.symbols.length },
        created_at: createdAt,
        build_duration_ms: Date.now() - started,
        build_id: buildId,
        code_root: located.codeRoot,
        counts: { symbols: rows.symbols.length, edges: rows.edges.length },
      };
      commitManifest(layout, manifest);
      if (options.crashAt === "manifest") throw new Error("crash injected after the manifest");
      finishCommit(layout, manifest);
      return summaryOf(located, manifest, false, rows.symbols.length, rows.edges.length);
    } finally {
      baseline?.close();
    }
  });
}

function summaryOf(located: Located, m: StructuralManifest, reused: boolean, symbols: number, edges: number): BuildSummary {
  const { layout } = located;
  return {
    manifest: layout.manifest,
    catalog: layout.catalog,
    query_helper: layout.queryHelper,
    reused_index: reused,
    snapshot_id: m.snapshot_id,
    mode: located.mode,
    provider: m.provider.kind,
    overlay_files: m.overlay.files.length,
    status: m.status,
    units_total: m.units.total,
    units_reused: m.units.reused,
    units_rebuilt: m.units.rebuild,
    units_failed: m.units.failed,
    units_deferred: m.deferred_units.length,
    symbols,
    edges,
    backends: m.provider.backend_versions,
    coverage: m.coverage,
    native_indexes: m.native_indexes,
    build_duration_ms: m.build_duration_ms,
    ...(m.coverage.indexed_files === 0 ? { message: EMPTY_MESSAGE } : {}),
  };
}

/** Step 1: the published index answers for this snapshot (never for "unknown", never a partial or failed one); the JSONL header when no manifest is there. */
function reusable(located: Located, layout: StructuralLayout, published: StructuralManifest | null): BuildSummary | null {
  if (located.snapshotId === UNKNOWN_SNAPSHOT) return null;
  if (published) {
    // Reused unless something is left to resume, or the catalog it names is gone.
    if (published.snapshot_id !== located.snapshotId || published.deferred_units.length > 0 || published.code_root !== located.codeRoot) return null;
    const dbs = openPublished(layout, published);
    if (!dbs) return null;
    for (const db of dbs) db.close();
    return summaryOf(located, published, true, published.counts.symbols, published.counts.edges);
  }
  if (!existsSync(layout.jsonl)) return null;
  try {
    const header = JSON.parse(readFileSync(layout.jsonl, "utf8").split("\n", 1)[0] ?? "") as Record<string, unknown>;
    // Only a full export can stand in for the catalog.
    if (header._provenance === true && header.snapshot_id === located.snapshotId && header.full_export === true) {
      const empty = { total_files: 0, indexed_files: 0, failed_files: 0, deferred_files: 0 };
      return { manifest: layout.manifest, catalog: layout.catalog, query_helper: layout.queryHelper, reused_index: true, snapshot_id: located.snapshotId, mode: located.mode, provider: "local-build", overlay_files: 0, status: "complete", units_total: 0, units_reused: 0, units_rebuilt: 0, units_failed: 0, units_deferred: 0, symbols: typeof header.symbol_count === "number" ? header.symbol_count : 0, edges: typeof header.edge_count === "number" ? header.edge_count : 0, backends: {}, coverage: empty, native_indexes: [], build_duration_ms: 0 };
    }
  } catch {
    // not a readable export: rebuild
  }
  return null;
}

/** Files of the fallback languages (no LanguageSpec), walked with the index's excludes and .gitignore. */
function walkFallbackSources(config: ResolvedConfig): { path: string; language: string }[] {
  const walked = walkProject({ root: config.project_root, extensions: [...HEURISTIC_EXTENSIONS.keys()], exclude: compileGlobs(config.exclude_patterns), respectGitignore: config.respect_gitignore, skipDirs: [config.state_dir] });
  return walked.paths.flatMap((path) => {
    const lang = heuristicLanguageOf(path);
    return lang ? [{ path, language: lang.name }] : [];
  });
}

// ---- Step 2: native indexes ----

interface NativeAttachment {
  readonly kind: string;
  readonly path: string;
  readonly abs: string;
  readonly language: string;
  readonly indexer: string;
  readonly files: readonly string[];
}

/** Attachments declared by native/provenance.json or native/<kind>/provenance.json that match the snapshot id or the root fingerprint. */
function probeNative(layout: StructuralLayout, snapshotId: string, rootFingerprint: string): NativeAttachment[] {
  const out: NativeAttachment[] = [];
  for (const dir of [layout.native, ...["scip", "lsif", "kythe"].map((k) => join(layout.native, k))]) {
    const provenance = join(dir, "provenance.json");
    if (!existsSync(provenance)) continue;
    let list: unknown;
    try {
      list = JSON.parse(readFileSync(provenance, "utf8"));
    } catch {
      continue;
    }
    const entries = Array.isArray(list) ? list : Array.isArray((list as { attachments?: unknown })?.attachments) ? (list as { attachments: unknown[] }).attachments : [];
    for (const e of entries as Record<string, unknown>[]) {
      if (!e || typeof e !== "object" || typeof e.path !== "string" || typeof e.kind !== "string") continue;
      const matches = (snapshotId !== UNKNOWN_SNAPSHOT && e.snapshot_id === snapshotId) || (typeof e.root_fingerprint === "string" && e.root_fingerprint === rootFingerprint);
      if (!matches) continue;
      out.push({ kind: e.kind, path: e.path, abs: join(dir, e.path), language: typeof e.language === "string" ? e.language : "", indexer: typeof e.indexer === "string" ? e.indexer : e.kind, files: Array.isArray(e.files) ? e.files.filter((f): f is string => typeof f === "string") : [] });
    }
  }
  return out;
}

// ---- Step 2: units per partition ----

interface Plan {
  readonly units: PlannedUnit[];
  readonly native: NativeIndexEntry[];
  /** Files a native index covers without being ingested: deferred coverage, no lower tier. */
  readonly nativeDeferred: Map<string, string>;
  readonly backends: Record<string, BackendVersion>;
  /** Files no backend covers (`coverage-only`). */
  readonly uncovered: SourceFile[];
}

interface PlanInput {
  readonly located: Located;
  readonly layout: StructuralLayout;
  readonly config: ResolvedConfig;
  readonly facts: StructuralFacts;
  readonly sources: readonly SourceFile[];
  readonly fallbackTexts: Map<string, string>;
  readonly native: readonly NativeAttachment[];
  readonly maxPrecision: Precision;
  readonly checkerRan: boolean;
  /** Each language the checker pass has a backend for, and whether its analyzer ran (the reason when not). */
  readonly checkerLanguages: readonly CheckerLanguage[];
  readonly skippedConfigs: ReadonlySet<string>;
}

const MAST_EXTRACTOR = `mast-tree-sitter`;
const extractorVersion = () => `${VERSION}+${BUILDER_VERSION}`;

function planUnits(input: PlanInput): Plan {
  const { facts, sources, maxPrecision, located } = input;
  const units: PlannedUnit[] = [];
  const native: NativeIndexEntry[] = [];
  const nativeDeferred = new Map<string, string>();
  const backends: Record<string, BackendVersion> = {};
  const note = (language: string, b: BackendVersion) => {
    const prev = backends[language];
    if (!prev || rank(b.precision as Precision) > rank(prev.precision as Precision)) backends[language] = b;
  };
  const byPath = new Map(sources.map((s) => [s.path, s]));
  const claimed = new Set<string>();
  const index = indexView(facts);

  // semantic: SCIP attachments (ingested); LSIF and Kythe are recorded and deferred.
  for (const a of input.native) {
    const covered = a.files.filter((f) => byPath.has(f) && !claimed.has(f));
    let scip: ScipIndex | null = null;
    let reason: string | undefined;
    if (a.kind !== "scip") reason = `${a.kind} indexes are recorded, not ingested`;
    else {
      try {
        scip = decodeScip(readFileSync(a.abs));
      } catch (err) {
        reason = `cannot read ${a.path}: ${errorMessage(err)}`;
      }
    }
    native.push({ kind: a.kind, path: a.path, language: a.language, indexer: a.indexer, precision: scip ? "semantic" : "deferred", ingested: scip !== null, ...(reason ? { reason } : {}) });
    if (covered.length === 0) continue;
    if (!scip) {
      for (const f of covered) nativeDeferred.set(f, a.indexer);
      for (const f of covered) claimed.add(f);
      continue;
    }
    const language = byPath.get(covered[0]!)!.language;
    const digest = sha256(readFileSync(a.abs));
    const files = covered.map((f) => byPath.get(f)!);
    const key = unitCacheKey({ extractor: `scip:${a.indexer}`, extractorVersion: `${scip.tool.version}+${BUILDER_VERSION}`, language, compileContext: digest, inputs: files.map((f) => [f.path, f.sha256] as const), dependency: "" });
    const version = scip.tool.version || "unknown";
    const decoded = scip;
    units.push({ unit_id: `scip:${a.path}`, language, files: covered, source_bytes: files.reduce((n, f) => n + f.bytes, 0), precision: "semantic", backend: a.indexer, backend_version: version, key, make: () => scipUnit(decoded, a, files, key, index, (p) => textOf(input, p)) });
    for (const f of covered) claimed.add(f);
    note(language, { backend_name: a.indexer, backend_version: version, precision: "semantic" });
  }

  // typecheck: the TypeScript compiler's languages (LanguageSpec.checker "compiler"), files under a tsconfig the checker read, one unit per project.
  const typecheckRan = allows(maxPrecision, "typecheck") && input.checkerRan;
  const projects = new Map<string, SourceFile[]>();
  if (typecheckRan) {
    for (const s of sources) {
      if (claimed.has(s.path) || !s.parsed || languageSpec(s.language)?.checker !== "compiler") continue;
      const tsconfig = nearestTsconfig(located.codeRoot, s.path);
      if (tsconfig === null || input.skippedConfigs.has(tsconfig)) continue;
      let list = projects.get(tsconfig);
      if (!list) projects.set(tsconfig, (list = []));
      list.push(s);
      claimed.add(s.path);
    }
  }
  for (const [tsconfig, files] of [...projects].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const context = sha256(`${readTextOr(join(located.codeRoot, tsconfig))}\0${facts.resolverFingerprint}`);
    const language = files[0]!.language;
    units.push({ unit_id: `project:${tsconfig}`, language, files: files.map((f) => f.path), source_bytes: files.reduce((n, f) => n + f.bytes, 0), precision: "typecheck", backend: "typescript-checker", backend_version: VERSION, key: null, make: () => indexUnit(`project:${tsconfig}`, language, files, "typecheck", "typescript-checker", context, index) });
    for (const f of files) note(f.language, { backend_name: "typescript-checker", backend_version: VERSION, precision: "typecheck" });
  }

  // typecheck for the other languages with a backend (scip-python, go/types, rust-analyzer): one unit per language whose analyzer ran.
  if (typecheckRan) {
    for (const l of input.checkerLanguages) {
      if (!l.available || languageSpec(l.language)?.checker === "compiler") continue;
      const files = sources.filter((s) => !claimed.has(s.path) && s.parsed && s.language === l.language);
      if (files.length === 0) continue;
      const context = sha256(`${l.backend}\0${facts.resolverFingerprint}`);
      units.push({ unit_id: `project:${l.language}`, language: l.language, files: files.map((f) => f.path), source_bytes: files.reduce((n, f) => n + f.bytes, 0), precision: "typecheck", backend: l.backend, backend_version: VERSION, key: null, make: () => indexUnit(`project:${l.language}`, l.language, files, "typecheck", l.backend, context, index) });
      for (const f of files) claimed.add(f.path);
      note(l.language, { backend_name: l.backend, backend_version: VERSION, precision: "typecheck" });
    }
  }

  // ast: every other file a LanguageSpec parses, one unit per file.
  if (allows(maxPrecision, "ast")) {
    for (const s of sources) {
      if (claimed.has(s.path) || !s.parsed) continue;
      units.push({ unit_id: `file:${s.path}`, language: s.language, files: [s.path], source_bytes: s.bytes, precision: "ast", backend: "tree-sitter", backend_version: VERSION, key: null, make: () => indexUnit(`file:${s.path}`, s.language, [s], "ast", "tree-sitter", facts.resolverFingerprint, index) });
      claimed.add(s.path);
      note(s.language, { backend_name: "tree-sitter", backend_version: VERSION, precision: "ast" });
    }
  }

  // symbol-only (ctags) or heuristic (the regex pass): one unit per file.
  const ctags = allows(maxPrecision, "symbol-only") ? probeCtags() : null;
  const heuristicAllowed = allows(maxPrecision, "heuristic");
  const uncovered: SourceFile[] = [];
  const ctagsFiles: SourceFile[] = [];
  for (const s of sources) {
    if (claimed.has(s.path)) continue;
    if (!ctags && !heuristicAllowed) {
      uncovered.push(s);
      continue;
    }
    const precision: Precision = ctags ? "symbol-only" : "heuristic";
    const backend = ctags ? "universal-ctags" : "regex";
    const version = ctags ? ctags.version : extractorVersion();
    const key = unitCacheKey({ extractor: backend, extractorVersion: `${version}+${BUILDER_VERSION}`, language: s.language, compileContext: "", inputs: [[s.path, s.sha256]], dependency: "" });
    if (ctags) ctagsFiles.push(s);
    units.push({ unit_id: `file:${s.path}`, language: s.language, files: [s.path], source_bytes: s.bytes, precision, backend, backend_version: version, key, make: () => fallbackUnit(input, s, key, ctags ? ctagsBatch : null), ...(ctags ? { cacheable: () => ctagsResult !== null } : {}) });
    note(s.language, { backend_name: backend, backend_version: version, precision });
  }
  // ctags runs once over every file it is asked about that needs a build; filled on the first unit made (null: the run failed).
  let ctagsResult: Map<string, FoundDefinition[]> | null | undefined;
  const keyOf = new Map(units.map((u) => [u.unit_id, u.key]));
  const ctagsBatch = (path: string): FoundDefinition[] | null => {
    if (!ctags) return null;
    if (ctagsResult === undefined) {
      const store = new UnitStore(input.layout.units);
      // A name with a line break cannot be listed to ctags: the regex pass reads it.
      const needed = ctagsFiles.filter((f) => !/[\r\n]/.test(f.path) && !store.has(keyOf.get(`file:${f.path}`) ?? ""));
      mkdirSync(input.layout.helpers, { recursive: true });
      ctagsResult = ctagsDefinitions(ctags, located.codeRoot, needed.map((f) => f.path), { list: join(input.layout.helpers, "ctags-files.txt"), tags: join(input.layout.helpers, "tags") }, (p, starts) => {
        const text = textOf(input, p);
        return text === null ? starts : blockEnds(text, commentPrefixesOf(p), starts);
      });
    }
    return ctagsResult?.get(path) ?? null;
  };
  for (const s of uncovered) note(s.language, { backend_name: "grep", backend_version: "", precision: "coverage-only" });
  // A language the pass was asked for whose analyzer could not run stays below typecheck, saying why.
  if (typecheckRan) {
    for (const l of input.checkerLanguages) {
      const b = backends[l.language];
      if (!l.available && b !== undefined) backends[l.language] = { ...b, reason: `typecheck unavailable (${l.backend}): ${l.reason ?? "not run"}` };
    }
  }
  return { units, native, nativeDeferred, backends, uncovered };
}

function readTextOr(abs: string): string {
  try {
    return readFileSync(abs, "utf8");
  } catch {
    return "";
  }
}

/** The nearest tsconfig.json of a file, project-relative, inside the code root; null when none. */
function nearestTsconfig(root: string, path: string): string | null {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const rel = dir === "." ? "tsconfig.json" : `${dir}/tsconfig.json`;
    try {
      if (statSync(join(root, rel)).isFile()) return rel;
    } catch {
      // none here
    }
    if (dir === "." || dir === "/" || dir === "") return null;
  }
}

function textOf(input: PlanInput, path: string): string | null {
  const cached = input.fallbackTexts.get(path);
  if (cached !== undefined) return cached;
  const read = readRegularFile(join(input.located.codeRoot, path), { maxBytes: input.config.max_file_bytes, noFollow: true });
  if (read.kind !== "read") return null;
  const decoded = decodeSource(read.bytes);
  return decoded.kind === "text" ? decoded.text : null;
}

function commentPrefixesOf(path: string): readonly string[] {
  return heuristicLanguageOf(path)?.commentPrefixes ?? extensionInfo(path)?.spec.commentPrefixes ?? ["//", "#"];
}

// ---- unit outputs ----

/** The index's facts keyed for unit making. */
interface IndexView {
  readonly fileOf: Map<number, { path: string; language: string; line_count: number }>;
  readonly fileIdOf: Map<string, number>;
  readonly symbolsOf: Map<number, FactSymbol[]>;
  readonly symbolById: Map<number, FactSymbol>;
  readonly edgesFrom: Map<number, StructuralFacts["edges"][number][]>;
  readonly unresolvedOf: Map<number, StructuralFacts["unresolved"][number][]>;
  /** `file_id:line` → callee names called there (every call site, for SCIP's call-or-reference test). */
  readonly callNamesAt: Map<string, Set<string>>;
  /** file id → the lines its import statements start on. */
  readonly importLines: Map<number, number[]>;
}

function group<T, K>(list: readonly T[], key: (t: T) => K): Map<K, T[]> {
  const m = new Map<K, T[]>();
  for (const x of list) {
    const k = key(x);
    let l = m.get(k);
    if (!l) m.set(k, (l = []));
    l.push(x);
  }
  return m;
}

function indexView(facts: StructuralFacts): IndexView {
  const callNamesAt = new Map<string, Set<string>>();
  for (const c of facts.calls) {
    const k = `${c.file_id}:${c.line}`;
    let s = callNamesAt.get(k);
    if (!s) callNamesAt.set(k, (s = new Set()));
    s.add(c.callee);
  }
  return {
    fileOf: new Map(facts.files.map((f) => [f.id, f])),
    fileIdOf: new Map(facts.files.map((f) => [f.path, f.id])),
    symbolsOf: group(facts.symbols, (s) => s.file_id),
    symbolById: new Map(facts.symbols.map((s) => [s.id, s])),
    edgesFrom: group(facts.edges, (e) => e.from_id),
    unresolvedOf: group(facts.unresolved, (c) => c.file_id),
    callNamesAt,
    importLines: new Map([...group(facts.imports, (i) => i.file_id)].map(([k, v]) => [k, v.map((i) => i.line)])),
  };
}

const BOUNDARY_KINDS: ReadonlySet<string> = new Set(["function", "method"]);

function symbolIdOf(view: IndexView, s: FactSymbol): string {
  const file = view.fileOf.get(s.file_id)!;
  return fallbackSymbolId(file.language, file.path, s.name === "" ? MODULE : s.name, s.name === "" ? 1 : s.line, s.signature);
}

/** How an index edge dispatches: a method reached through an instance is `virtual` in a language whose methods are (its spec says so), anything else `direct`. */
function edgeKindOf(resolution: string, callee: FactSymbol, language: string): EdgeKind {
  const instance = ["this_method", "field_type", "parameter_type", "new_expression", "return_type", "checker"].includes(resolution);
  return instance && callee.kind === "method" && languageSpec(language)?.methodDispatch === "virtual" ? "virtual" : "direct";
}

/** A unit made from the index's rows of its files: declarations, verified edges (checker edges only at `typecheck`), the call sites no edge explains. */
function indexUnit(unitId: string, language: string, files: readonly SourceFile[], precision: Precision, backend: string, compileContext: string, view: IndexView): UnitOutput {
  const symbols: UnitSymbol[] = [];
  const edges: UnitEdge[] = [];
  const inUnit = new Set(files.map((f) => f.path));
  const outside = new Set<string>();
  for (const f of files) {
    const fileId = view.fileIdOf.get(f.path);
    if (fileId === undefined) continue;
    const fileSymbols = view.symbolsOf.get(fileId) ?? [];
    const info = view.fileOf.get(fileId)!;
    const byName = new Map<string, FactSymbol>();
    for (const s of fileSymbols) if (!byName.has(s.name)) byName.set(s.name, s);
    const unresolved = view.unresolvedOf.get(fileId) ?? [];
    const callersWithEdges = new Set<number>();
    for (const s of fileSymbols) {
      const out = (view.edgesFrom.get(s.id) ?? []).filter((e) => precision === "typecheck" || e.resolution !== "checker");
      const sid = symbolIdOf(view, s);
      for (const e of out) {
        const to = view.symbolById.get(e.to_id);
        if (!to) continue;
        const toFile = view.fileOf.get(to.file_id)!;
        const toId = symbolIdOf(view, to);
        if (!inUnit.has(toFile.path)) outside.add(toId);
        edges.push({ caller_id: sid, callee_id: toId, callee_name: to.name.slice(to.name.lastIndexOf(".") + 1), file_path: f.path, line: e.line, edge_kind: edgeKindOf(e.resolution, to, toFile.language), precision: e.resolution === "checker" ? "typecheck" : "ast" });
        callersWithEdges.add(s.id);
      }
    }
    for (const c of unresolved) {
      const caller = byName.get(c.caller ?? "") ?? byName.get("");
      if (!caller) continue;
      edges.push({ caller_id: symbolIdOf(view, caller), callee_id: null, callee_name: c.callee, file_path: f.path, line: c.line, edge_kind: "unresolved", precision: "ast" });
      callersWithEdges.add(caller.id);
    }
    for (const s of fileSymbols) {
      if (s.name === "" && !callersWithEdges.has(s.id)) continue;
      const qualified = s.name === "" ? MODULE : s.name;
      symbols.push({ symbol_id: symbolIdOf(view, s), name: qualified.slice(qualified.lastIndexOf(".") + 1), qualified_name: qualified, namespace: s.name === "" ? "" : namespaceOf(qualified), language: info.language, file_path: f.path, start_line: s.name === "" ? 1 : s.line, end_line: s.name === "" ? Math.max(1, info.line_count) : s.end_line, kind: s.name === "" ? "module" : s.kind, signature: s.signature, boundary: BOUNDARY_KINDS.has(s.kind) });
    }
  }
  edges.sort((a, b) => (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : a.line - b.line || (a.callee_name < b.callee_name ? -1 : a.callee_name > b.callee_name ? 1 : 0)));
  const key = unitCacheKey({ extractor: backend === "tree-sitter" ? MAST_EXTRACTOR : `${MAST_EXTRACTOR}+${backend}`, extractorVersion: extractorVersion(), language, compileContext, inputs: files.map((f) => [f.path, f.sha256] as const), dependency: sha256([...outside].sort().join("\n")) });
  const unitFiles: UnitFile[] = files.map((f) => ({ path: f.path, sha256: f.sha256, bytes: f.bytes, status: "indexed" }));
  return { unit_schema: 1, unit_id: unitId, cache_key: key, language, backend, backend_version: VERSION, precision, files: unitFiles, symbols, edges };
}

/**
 * A fallback-tier unit: ctags' declarations when it found any in the file, else the regex pass's
 * (and the unit says which: `universal-ctags`/`symbol-only` or `regex`/`heuristic`); the regex
 * call pass inside them; callees are resolved by name when the catalog is composed.
 */
function fallbackUnit(input: PlanInput, s: SourceFile, key: string, ctagsBatch: ((path: string) => FoundDefinition[] | null) | null): UnitOutput {
  const text = textOf(input, s.path);
  const tagged = text !== null && ctagsBatch ? ctagsBatch(s.path) : null;
  const ctags = tagged !== null && tagged.length > 0 ? probeCtags() : null;
  const precision: Precision = ctags ? "symbol-only" : "heuristic";
  const base = { unit_schema: 1, unit_id: `file:${s.path}`, cache_key: key, language: s.language, backend: ctags ? "universal-ctags" : "regex", backend_version: ctags ? ctags.version : extractorVersion(), precision };
  if (text === null) return { ...base, files: [{ path: s.path, sha256: s.sha256, bytes: s.bytes, status: "failed" }], symbols: [], edges: [] };
  const prefixes = commentPrefixesOf(s.path);
  const defs = ctags ? tagged! : findDefinitions(text, prefixes);
  const calls = findCalls(text, prefixes, defs);
  const ids = defs.map((d) => fallbackSymbolId(s.language, s.path, d.qualified_name, d.start_line, d.signature));
  const lineCount = text.split("\n").length;
  const moduleId = fallbackSymbolId(s.language, s.path, MODULE, 1, null);
  const symbols: UnitSymbol[] = defs.map((d, i) => ({ symbol_id: ids[i]!, name: d.name, qualified_name: d.qualified_name, namespace: namespaceOf(d.qualified_name), language: s.language, file_path: s.path, start_line: d.start_line, end_line: d.end_line, kind: d.kind, signature: d.signature, boundary: d.kind !== "class" }));
  if (calls.some((c) => c.caller === -1)) symbols.push({ symbol_id: moduleId, name: MODULE, qualified_name: MODULE, namespace: "", language: s.language, file_path: s.path, start_line: 1, end_line: lineCount, kind: "module", signature: null, boundary: false });
  const edges: UnitEdge[] = calls.map((c) => ({ caller_id: c.caller === -1 ? moduleId : ids[c.caller]!, callee_id: null, callee_name: c.callee, file_path: s.path, line: c.line, edge_kind: "unresolved", precision }));
  return { ...base, files: [{ path: s.path, sha256: s.sha256, bytes: s.bytes, status: "indexed" }], symbols, edges };
}

/**
 * A SCIP unit: the attachment's definitions (methods, types, and terms the index declares as
 * functions) with their enclosing ranges — or the index's end line for the declaration on that
 * line — and each reference to a callable inside another definition as an edge: `direct` where
 * the index saw a call of that name on the line, `indirect` (a reference: a callback, a value)
 * where it did not; a type's reference only where the index saw it constructed. Names bound by
 * import statements are not references.
 */
function scipUnit(scip: ScipIndex, a: NativeAttachment, files: readonly SourceFile[], key: string, view: IndexView, text: (path: string) => string | null): UnitOutput {
  const wanted = new Map(files.map((f) => [f.path, f]));
  const symbols: UnitSymbol[] = [];
  const edges: UnitEdge[] = [];
  // Document paths are relative to where the indexer ran: each is the listed file it names (itself, or the one path ending in it).
  const pathOf = new Map<string, string>();
  for (const doc of scip.documents) {
    if (wanted.has(doc.path)) pathOf.set(doc.path, doc.path);
    else {
      const ends = [...wanted.keys()].filter((f) => f.endsWith(`/${doc.path}`));
      if (ends.length === 1) pathOf.set(doc.path, ends[0]!);
    }
  }
  const docs = scip.documents.filter((d) => pathOf.has(d.path)).map((d) => ({ ...d, path: pathOf.get(d.path)! }));
  const lineCache = new Map<string, string[]>();
  const linesOf = (p: string): string[] => {
    let l = lineCache.get(p);
    if (!l) lineCache.set(p, (l = text(p)?.split("\n") ?? []));
    return l;
  };
  // A symbol's catalog id and descriptor. A local (a nested function, say) is named by its text and scoped to its document.
  const describe = (o: ScipOccurrence, docPath: string | undefined) => {
    if (o.symbol.startsWith("local ")) {
      if (docPath === undefined || o.range[0] !== o.range[2]) return null;
      const name = (linesOf(docPath)[o.range[0]] ?? "").slice(o.range[1], o.range[3]);
      return /^[\w$]+$/.test(name) ? { id: `scip:local:${docPath}:${o.symbol.slice(6)}`, kind: "term" as const, name, owner: null, path: name, local: true } : null;
    }
    const d = scipDescriptor(o.symbol);
    return d ? { id: `scip:${o.symbol}`, ...d, local: false } : null;
  };
  const callable = new Set<string>();
  // Callables first, across the documents, so a call into another document is recognised.
  for (const doc of scip.documents) {
    const docPath = pathOf.get(doc.path);
    for (const o of doc.occurrences) {
      if ((o.roles & SCIP_ROLE.definition) === 0) continue;
      const d = describe(o, docPath);
      if (!d) continue;
      if (d.kind === "method" || (d.kind === "term" && indexFunctionAt(view, docPath ?? doc.path, o.range[0] + 1, d.name))) callable.add(d.id);
    }
  }
  for (const doc of docs) {
    const file = wanted.get(doc.path)!;
    const fileId = view.fileIdOf.get(doc.path);
    const defs: { id: string; start: number; end: number }[] = [];
    for (const o of doc.occurrences) {
      if ((o.roles & SCIP_ROLE.definition) === 0) continue;
      const d = describe(o, doc.path);
      if (!d || !(callable.has(d.id) || d.kind === "type")) continue;
      const start = o.range[0] + 1;
      const indexed = fileId === undefined ? undefined : (view.symbolsOf.get(fileId) ?? []).find((s) => s.line === start && (s.name === d.path || s.name.endsWith(`.${d.name}`) || s.name === d.name));
      const end = o.enclosing ? o.enclosing[2] + 1 : (indexed?.end_line ?? start);
      const qualified = d.local ? (indexed?.name ?? d.name) : d.path;
      const kind = d.kind === "type" ? (indexed?.kind ?? "class") : d.local ? (indexed?.kind ?? "function") : d.owner !== null && d.path.includes(".") ? "method" : "function";
      if (symbols.some((s) => s.symbol_id === d.id)) continue;
      symbols.push({ symbol_id: d.id, name: d.name, qualified_name: qualified, namespace: namespaceOf(qualified), language: file.language, file_path: doc.path, start_line: start, end_line: end, kind, signature: indexed?.signature ?? null, boundary: kind !== "class" && kind !== "interface" && kind !== "type" });
      defs.push({ id: d.id, start, end });
    }
    const moduleId = fallbackSymbolId(file.language, doc.path, MODULE, 1, null);
    const sourceLines = linesOf(doc.path);
    const imports = importStatementLines(view.importLines.get(fileId ?? -1) ?? [], text(doc.path));
    let moduleUsed = false;
    for (const o of doc.occurrences) {
      if ((o.roles & (SCIP_ROLE.definition | SCIP_ROLE.import)) !== 0) continue;
      const d = describe(o, doc.path);
      if (!d || !(callable.has(d.id) || d.kind === "type")) continue;
      const line = o.range[0] + 1;
      // A name an import statement binds is not a reference to follow (indexers mark it a plain occurrence).
      if (imports.has(line)) continue;
      const called = (fileId !== undefined && (view.callNamesAt.get(`${fileId}:${line}`)?.has(d.name) ?? false)) || calledAt(sourceLines, o.range);
      // A type's references are calls only where it is constructed (`new T()`); elsewhere they are annotations.
      if (d.kind === "type" && !called) continue;
      let caller: { id: string; start: number; end: number } | null = null;
      for (const def of defs) if (def.start <= line && def.end >= line && (!caller || def.end - def.start < caller.end - caller.start)) caller = def;
      edges.push({ caller_id: caller?.id ?? moduleId, callee_id: d.id, callee_name: d.name, file_path: doc.path, line, edge_kind: called ? "direct" : "indirect", precision: "semantic" });
      if (!caller) moduleUsed = true;
    }
    if (moduleUsed) symbols.push({ symbol_id: moduleId, name: MODULE, qualified_name: MODULE, namespace: "", language: file.language, file_path: doc.path, start_line: 1, end_line: Math.max(1, view.fileOf.get(fileId ?? -1)?.line_count ?? 1), kind: "module", signature: null, boundary: false });
  }
  const unitFiles: UnitFile[] = files.map((f) => ({ path: f.path, sha256: f.sha256, bytes: f.bytes, status: docs.some((d) => d.path === f.path) ? "indexed" : "failed" }));
  return { unit_schema: 1, unit_id: `scip:${a.path}`, cache_key: key, language: files[0]?.language ?? a.language, backend: a.indexer, backend_version: scip.tool.version || "unknown", precision: "semantic", files: unitFiles, symbols, edges };
}

/**
 * Whether the name at a SCIP range (0-based) is called: followed by `(` (after `?.`, `!` or type
 * arguments) or a template literal, or preceded by `new` or `@` (a decorator).
 */
function calledAt(lines: readonly string[], range: readonly [number, number, number, number]): boolean {
  const line = lines[range[2]];
  if (line === undefined || range[0] !== range[2]) return false;
  const after = line.slice(range[3]);
  const before = lines[range[0]]!.slice(0, range[1]);
  return /^\s*(?:\?\.|!)?\s*(?:<[^<>()]*(?:<[^<>()]*>[^<>()]*)*>)?\s*(?:\(|`)/.test(after) || /(?:\bnew\s+(?:[\w$]+\.)*|@\s*(?:[\w$]+\.)*)$/.test(before);
}

/** The lines of the import statements starting at `starts`: each up to the line naming its module (`from "m"`, or a lone string). */
function importStatementLines(starts: readonly number[], text: string | null): Set<number> {
  const out = new Set<number>(starts);
  if (text === null) return out;
  const lines = text.split("\n");
  for (const start of starts) {
    for (let l = start; l <= lines.length && l < start + 200; l++) {
      out.add(l);
      if (/\bfrom\s*["'`]|^\s*["'`][^"'`]*["'`]\s*\)?;?\s*$|;\s*$/.test(lines[l - 1]!) || (l === start && !/[{(,]\s*$/.test(lines[l - 1]!))) break;
    }
  }
  return out;
}

function indexFunctionAt(view: IndexView, path: string, line: number, name: string): boolean {
  const fileId = view.fileIdOf.get(path);
  if (fileId === undefined) return false;
  return (view.symbolsOf.get(fileId) ?? []).some((s) => s.line === line && (s.kind === "function" || s.kind === "method") && (s.name === name || s.name.endsWith(`.${name}`)));
}

function failedOutput(unit: PlannedUnit, sources: readonly SourceFile[]): UnitOutput {
  const byPath = new Map(sources.map((s) => [s.path, s]));
  const key = unit.key ?? sha256(`failed\0${unit.unit_id}\0${unit.files.map((f) => byPath.get(f)?.sha256 ?? "").join(",")}`);
  return { unit_schema: 1, unit_id: unit.unit_id, cache_key: key, language: unit.language, backend: unit.backend, backend_version: unit.backend_version, precision: unit.precision, files: unit.files.map((f) => ({ path: f, sha256: byPath.get(f)?.sha256 ?? "", bytes: byPath.get(f)?.bytes ?? 0, status: "failed" })), symbols: [], edges: [] };
}

// ---- deterministic partial coverage ----

/**
 * The four-tier queue: (1) targets from workspace/plan.json (`target_files`, `targets[].file`),
 * (2) changed units — a file whose digest the published catalog (or the baseline) does not hold
 * (deferred and never-built ones included) — and the files whose verified calls reach them, (3) the files of
 * their directories and the files tiers 1 and 2 call into, (4) the rest; unit-id order inside a tier.
 */
function priorityOrder(units: readonly PlannedUnit[], layout: StructuralLayout, facts: StructuralFacts, before: ReadonlyMap<string, string>): { unit: PlannedUnit; priority: number; changed: boolean }[] {
  const plan = readJsonObjectFile(join(layout.workspace, "plan.json"));
  const targets = new Set<string>();
  if (plan) {
    if (Array.isArray(plan.target_files)) for (const f of plan.target_files) if (typeof f === "string") targets.add(f);
    if (Array.isArray(plan.targets)) for (const t of plan.targets) if (t && typeof t === "object" && typeof (t as { file?: unknown }).file === "string") targets.add((t as { file: string }).file);
  }
  const digestOf = new Map(facts.files.map((f) => [f.path, f.content_hash]));
  const store = new UnitStore(layout.units);
  const isChanged = new Map(units.map((u) => [u, u.key !== null ? !store.has(u.key) : u.files.some((f) => before.get(f) === undefined || before.get(f) !== digestOf.get(f))]));
  const changed = new Set<string>();
  for (const [u, c] of isChanged) if (c) for (const f of u.files) changed.add(f);
  // Reverse dependencies of the changed files, and what tiers 1 and 2 call into.
  const pathOf = new Map(facts.files.map((f) => [f.id, f.path]));
  const fileOfSymbol = new Map(facts.symbols.map((s) => [s.id, pathOf.get(s.file_id)!]));
  const dependents = new Set<string>();
  const seeds = new Set([...targets, ...changed]);
  const calledFrom = new Set<string>();
  for (const e of facts.edges) {
    const from = fileOfSymbol.get(e.from_id);
    const to = fileOfSymbol.get(e.to_id);
    if (from === undefined || to === undefined || from === to) continue;
    if (changed.has(to)) dependents.add(from);
    if (seeds.has(from)) calledFrom.add(to);
  }
  const dirs = new Set([...seeds, ...dependents].map((f) => dirname(f)));
  const priorityOf = (u: PlannedUnit) =>
    u.files.some((f) => targets.has(f)) ? 1 : u.files.some((f) => changed.has(f) || dependents.has(f)) ? 2 : u.files.some((f) => dirs.has(dirname(f)) || calledFrom.has(f)) ? 3 : 4;
  return units
    .map((unit) => ({ unit, priority: priorityOf(unit), changed: isChanged.get(unit)! }))
    .sort((a, b) => a.priority - b.priority || (a.unit.unit_id < b.unit.unit_id ? -1 : a.unit.unit_id > b.unit.unit_id ? 1 : 0));
}

/** A baseline named by its manifest.json, its structural_index directory or its state root: what an overlay build compares with (close it after). */
function openBaselineFor(path: string) {
  const abs = resolvePath(path);
  const manifestPath = abs.endsWith(".json") ? abs : existsSync(join(abs, "manifest.json")) ? join(abs, "manifest.json") : structuralLayout(abs).manifest;
  const layout = layoutOfManifest(manifestPath);
  const manifest = readManifest(layout);
  const dbs = manifest ? openPublished(layout, manifest) : null;
  if (!manifest || !dbs) throw new MastError("INVALID_ARGUMENT", `no published structural index at ${manifestPath}`, { hint: "Pass --baseline the manifest.json of a structural index built by `mast structural build` (or the state root holding it)." });
  const close = () => {
    for (const db of dbs) db.close();
  };
  if (manifest.provider.kind !== "local-build") {
    close();
    throw new MastError("INVALID_ARGUMENT", `the baseline at ${manifestPath} is itself a ${manifest.provider.kind} index`, { hint: "A baseline is a complete local build; build one without --baseline." });
  }
  const main = dbs[0]!;
  return {
    manifest,
    manifestPath,
    keys: coverageKeys(main),
    digests: coverageDigests(main),
    files: coveredFiles(main),
    /** Its coverage counted without the files an overlay supersedes. */
    counts: (superseded: readonly string[]) => coverageCounts(main, {}, superseded),
    /** Its declarations at the fallback tiers, which an overlay's fallback calls may name. */
    fallbackSymbols: () => dbs.flatMap((db) => fallbackTierSymbols(db)),
    /** The files whose fallback-tier calls it resolved into declarations of `files`. */
    fallbackCallersOf: (files: ReadonlySet<string>): Set<string> => {
      const ids = new Set(dbs.flatMap((db) => fallbackTierSymbols(db)).filter((s) => files.has(s.file_path)).map((s) => s.symbol_id));
      return new Set(dbs.flatMap((db) => fallbackTierCalls(db)).filter((e) => ids.has(e.callee_id)).map((e) => e.file_path));
    },
    close,
  };
}

/** file → content digest, as the published catalog's coverage holds them (indexed files only). */
function publishedDigests(layout: StructuralLayout, manifest: StructuralManifest): Map<string, string> {
  const dbs = openPublished(layout, manifest);
  if (!dbs) return new Map();
  try {
    return coverageDigests(dbs[0]!);
  } finally {
    for (const db of dbs) db.close();
  }
}

// ---- the catalog's rows ----

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
function composeRows(outputs: readonly { unit: PlannedUnit; output: UnitOutput }[], deferred: readonly DeferredUnit[], plan: Plan, sources: readonly SourceFile[], unreadable: readonly { path: string; language: string }[], snapshotId: string, createdAt: string, layer: "baseline" | "overlay", baselineNames: readonly FallbackSymbol[]): Rows {
  const symbols: CatalogSymbol[] = [];
  const edges: CatalogEdge[] = [];
  const boundaries: CatalogBoundary[] = [];
  const coverage: CatalogCoverage[] = [];
  const units: CatalogUnit[] = [];
  const seen = new Set<string>();
  // Names the fallback tiers resolve a call by: a language's declarations at those tiers, by name.
  // Each file's own language keys its partition (a JavaScript file of a TypeScript project is JavaScript's).
  const languageOf = new Map(sources.map((s) => [s.path, s.language]));
  const fallbackByName = new Map<string, string[]>();
  const fallbackSymbols = [...outputs.filter(({ output }) => output.precision === "symbol-only" || output.precision === "heuristic").flatMap(({ output }) => output.symbols), ...baselineNames];
  for (const s of fallbackSymbols) {
    if (s.kind === "module" || s.kind === "class") continue;
    const k = `${s.language}\0${s.name}`;
    const l = fallbackByName.get(k);
    if (l) l.push(s.symbol_id);
    else fallbackByName.set(k, [s.symbol_id]);
  }
  for (const { unit, output } of outputs) {
    for (const s of output.symbols) {
      if (seen.has(s.symbol_id)) continue;
      seen.add(s.symbol_id);
      const pk = partitionKey(s.language, s.file_path);
      symbols.push({ symbol_id: s.symbol_id, name: s.name, qualified_name: s.qualified_name, namespace: s.namespace, language: s.language, file_path: s.file_path, start_line: s.start_line, end_line: s.end_line, kind: s.kind, signature: s.signature, backend: output.backend, precision: output.precision, partition_key: pk, unit_cache_key: output.cache_key, source_layer: layer });
      if (s.boundary) boundaries.push({ symbol_id: s.symbol_id, file_path: s.file_path, start_line: s.start_line, end_line: s.end_line, signature: s.signature, language: s.language });
    }
    for (const e of output.edges) {
      let calleeId = e.callee_id;
      let kind = e.edge_kind;
      if (calleeId === null && (e.precision === "symbol-only" || e.precision === "heuristic")) {
        const candidates = fallbackByName.get(`${output.language}\0${e.callee_name}`) ?? [];
        if (candidates.length === 1) {
          calleeId = candidates[0]!;
          kind = "direct";
        }
      }
      edges.push({ caller_id: e.caller_id, callee_id: calleeId, callee_name: e.callee_name, file_path: e.file_path, line: e.line, edge_kind: kind, partition_key: partitionKey(languageOf.get(e.file_path) ?? output.language, e.file_path), source_layer: layer, precision: e.precision, backend: output.backend });
    }
    for (const f of output.files) {
      coverage.push({ file_path: f.path, indexed: f.status === "indexed" ? 1 : 0, backend: output.backend, precision: output.precision, unit_cache_key: output.cache_key, status: f.status, partition_key: partitionKey(languageOf.get(f.path) ?? unit.language, f.path), sha256: f.sha256 });
    }
    units.push({ cache_key: output.cache_key, unit_id: output.unit_id, language: output.language, extractor_name: output.backend, extractor_version: output.backend_version, file_count: output.files.length, symbol_count: output.symbols.length, edge_count: output.edges.length, source_bytes: unit.source_bytes, created_at: createdAt, snapshot_id: snapshotId });
  }
  for (const d of deferred) {
    for (const f of d.files) coverage.push({ file_path: f, indexed: 0, backend: "none", precision: "coverage-only", unit_cache_key: null, status: "deferred", partition_key: partitionKey(d.language, f), sha256: null });
  }
  for (const [f, indexer] of plan.nativeDeferred) coverage.push({ file_path: f, indexed: 0, backend: indexer, precision: "deferred", unit_cache_key: null, status: "deferred", partition_key: partitionKey(languageOf.get(f) ?? "unknown", f), sha256: null });
  for (const s of plan.uncovered) coverage.push({ file_path: s.path, indexed: 0, backend: "grep", precision: "coverage-only", unit_cache_key: null, status: "empty", partition_key: partitionKey(s.language, s.path), sha256: null });
  for (const f of unreadable) coverage.push({ file_path: f.path, indexed: 0, backend: "none", precision: "coverage-only", unit_cache_key: null, status: "failed", partition_key: partitionKey(f.language, f.path), sha256: null });
  coverage.sort((a, b) => (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : 0));
  const deferredRows: CatalogDeferred[] = deferred.map((d) => ({ unit_id: d.unit_id, language: d.language, files: JSON.stringify(d.files), priority: d.priority, reason: d.reason, cache_key: null, created_at: createdAt }));
  return { symbols, edges, boundaries, coverage, units, deferred: deferredRows };
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
function writeCatalogs(pending: ReturnType<typeof pendingPaths>, rows: Rows, buildId: string, located: Located, options: BuildOptions): ShardEntry[] {
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
    writeCatalog(abs, { meta: { ...meta, partition_key: key }, symbols: symbolsBy.get(key) ?? [], edges: edgesBy.get(key) ?? [], boundaries: boundariesBy.get(key) ?? [], coverage: [], units: [], deferred: [] });
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
  const coverage = { total_files: rows.coverage.length, indexed_files: indexed.length, failed: rows.coverage.filter((c) => c.status === "failed").length, deferred: rows.coverage.filter((c) => c.status === "deferred").length, backends_used: [...new Set(rows.coverage.filter((c) => c.indexed === 1 || c.status === "deferred").map((c) => c.backend))].sort() };
  const header = { _provenance: true, snapshot_id: snapshotId, tool: `mast structural ${VERSION}`, full_export: full, symbol_count: rows.symbols.length, edge_count: rows.edges.length, coverage, call_languages: callLanguages(rows) };
  const lines = [JSON.stringify(header)];
  if (full) {
    const keyOf = new Map(rows.symbols.map((s) => [s.symbol_id, `${s.file_path}:${s.qualified_name}`]));
    const callsOf = group(rows.edges, (e) => e.caller_id);
    const boundary = new Set(rows.boundaries.map((b) => b.symbol_id));
    for (const s of rows.symbols) {
      lines.push(JSON.stringify({ _type: "function", key: `${s.file_path}:${s.qualified_name}`, symbol_id: s.symbol_id, name: s.name, qualified_name: s.qualified_name, namespace: s.namespace, language: s.language, file_path: s.file_path, kind: s.kind, start_line: s.start_line, end_line: s.end_line, signature: s.signature, precision: s.precision, backend: s.backend, boundary: boundary.has(s.symbol_id), calls: [...new Set((callsOf.get(s.symbol_id) ?? []).map((e) => e.callee_name))] }));
    }
    for (const e of rows.edges) lines.push(JSON.stringify({ _type: "call_edge", caller: keyOf.get(e.caller_id) ?? e.caller_id, callee: e.callee_id === null ? e.callee_name : (keyOf.get(e.callee_id) ?? e.callee_id), caller_id: e.caller_id, callee_id: e.callee_id, callee_name: e.callee_name, file: e.file_path, line: e.line, edge_kind: e.edge_kind, precision: e.precision, backend: e.backend }));
  }
  writeAtomic(path, Buffer.from(`${lines.join("\n")}\n`));
  return { full };
}
