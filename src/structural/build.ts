// `mast structural build`: the mantis structural index as an adapter over mast's own index. The
// index run (the same extraction, LanguageSpecs and call resolver mast_callers answers from, with
// the TypeScript checker for ECMAScript files under a tsconfig) supplies the `typecheck` and `ast`
// tiers; a matching SCIP attachment declared in native/ the `semantic` one; universal-ctags and
// the regular-expression pass (heuristic.ts) the files no grammar reads. Units (units.ts) are
// content-addressed and reused across snapshots; a deterministic priority queue bounds a build;
// the catalog, shards and compatibility export are written under tmp/ and published by the
// manifest's rename (manifest.ts). Steps follow the spec's numbering: this module runs them in
// turn — the sources (sources.ts), the plan (plan.ts), the queue (queue.ts), a baseline's
// overlay (baseline.ts), publishing (publish.ts).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveConfig, type ResolvedConfig } from "../index/config.js";
import { withStructureLock } from "../index/lock.js";
import type { CheckerLanguage, CheckerPass, IndexReport } from "../index/run.js";
import { statePaths } from "../index/state.js";
import { CHECKER_LANGUAGES } from "../store/db.js";
import { Store } from "../store/store.js";
import type { Precision } from "../store/catalog.js";
import { structuralFacts, type StructuralFacts } from "../query/structural.js";
import { keepOverlay, openBaselineFor, publishedDigests } from "./baseline.js";
import { isStoreBaseline, openStoreBaseline } from "./store-baseline.js";
import { writeQueryHelper } from "./helper.js";
import { UNKNOWN_SNAPSHOT, type Located, type StructuralLayout } from "./locate.js";
import { finishCommit, openPublished, readManifest, type BackendVersion, type BuildStatus, type NativeIndexEntry, type StructuralManifest } from "./manifest.js";
import { probeNative } from "./native-index.js";
import { allows, planUnits } from "./plan.js";
import { publishBuild } from "./publish.js";
import { buildUnits, priorityOrder } from "./queue.js";
import { collectSources } from "./sources.js";

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
const EMPTY_MESSAGE = "Structural index is empty — structural context unavailable.";

/** The mast config a build indexes the code root with: the project's own index when the state root is its state dir, else one kept under the state root. */
export function indexConfigFor(located: Located): ResolvedConfig {
  const own = resolveConfig(located.codeRoot, {});
  return !located.pinned && own.state_dir === located.layout.stateRoot ? own : resolveConfig(located.codeRoot, { stateDir: located.layout.index });
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
    const indexed = await indexCodeRoot(config, layout, options, maxPrecision);
    const { facts } = indexed;
    const collected = collectSources(located, config, facts, indexed.report);

    // Step 2: the backend of each partition, highest first.
    const native = allows(maxPrecision, "semantic") ? probeNative(layout, located.snapshotId, collected.rootFingerprint) : [];
    const plan = planUnits({ ...collected, layout, facts, native, maxPrecision, checkerRan: indexed.checkerRan, checkerLanguages: indexed.checkerLanguages, skippedConfigs: indexed.skippedConfigs });

    // A baseline: the files it covers, each with the unit key it was indexed under.
    const baseline = options.baseline === undefined ? null : isStoreBaseline(options.baseline) ? await openStoreBaseline(options.baseline) : openBaselineFor(options.baseline);
    try {
      // Deterministic partial coverage: the queue, bounded by max_units / max_source_bytes.
      const ordered = priorityOrder(plan.units, layout, facts, baseline ? baseline.digests : published ? publishedDigests(layout, published) : new Map());
      const built = buildUnits(ordered, layout, collected.sources, options);
      // Over a baseline, the units whose output it holds are its own: the overlay is the rest.
      const fromBaseline = baseline ? keepOverlay(baseline, built.outputs, built.deferred) : 0;
      if (options.crashAt === "units") throw new Error("crash injected after the units");

      const publishing = publishBuild({ located, collected, plan, built, baseline, fromBaseline, options, started });
      return summaryOf(located, publishing.manifest, false, publishing.symbols, publishing.edges);
    } finally {
      baseline?.close();
    }
  });
}

/** What the index run gives a build: the index's facts, and what its checker pass covered. */
interface IndexedRoot {
  readonly report: IndexReport;
  readonly facts: StructuralFacts;
  /** The checker pass ran (or had nothing new to check): the typecheck tier is there. */
  readonly checkerRan: boolean;
  readonly checkerLanguages: readonly CheckerLanguage[];
  /** The tsconfigs the pass skipped. */
  readonly skippedConfigs: ReadonlySet<string>;
}

/** The index run: mast's extraction and call graph, the checker for the typecheck tier; then the index's facts, read in one snapshot. */
async function indexCodeRoot(config: ResolvedConfig, layout: StructuralLayout, options: BuildOptions, maxPrecision: Precision): Promise<IndexedRoot> {
  const { runIndex } = await import("../index/run.js");
  const wantChecker = allows(maxPrecision, "typecheck") && options.checker !== undefined;
  // The build's own index (under the state root) follows its code root, which a pinned snapshot moves; the project's own index is never re-pointed.
  const report: IndexReport = await runIndex(config, {
    mode: "incremental",
    operation: "mast structural build",
    repoint: config.state_dir === layout.index,
    ...(wantChecker ? { checker: options.checker! } : {}),
    ...(options.threads === undefined ? {} : { threads: options.threads }),
  });
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
  return { report, facts, checkerRan: wantChecker && (report.checker !== undefined || report.checker_up_to_date === true), checkerLanguages, skippedConfigs };
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
      return {
        manifest: layout.manifest,
        catalog: layout.catalog,
        query_helper: layout.queryHelper,
        reused_index: true,
        snapshot_id: located.snapshotId,
        mode: located.mode,
        provider: "local-build",
        overlay_files: 0,
        status: "complete",
        units_total: 0,
        units_reused: 0,
        units_rebuilt: 0,
        units_failed: 0,
        units_deferred: 0,
        symbols: typeof header.symbol_count === "number" ? header.symbol_count : 0,
        edges: typeof header.edge_count === "number" ? header.edge_count : 0,
        backends: {},
        coverage: empty,
        native_indexes: [],
        build_duration_ms: 0,
      };
    }
  } catch {
    // not a readable export: rebuild
  }
  return null;
}
