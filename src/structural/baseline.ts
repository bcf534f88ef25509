// What a structural build compares with: a baseline index (`--baseline`: a complete local build,
// its coverage keys and digests, its fallback-tier declarations and calls) whose units an overlay
// build leaves to it, or the published index's digests (what "changed" means in the queue).
import { existsSync } from "node:fs";
import { join, resolve as resolvePath } from "node:path";
import { MastError } from "../base/errors.js";
import { coverageCounts, coverageDigests, coverageKeys, coveredFiles, fallbackTierCalls, fallbackTierSymbols, type CoverageCounts, type FallbackSymbol } from "../store/catalog.js";
import { layoutOfManifest, structuralLayout, type StructuralLayout } from "./locate.js";
import { openPublished, readManifest, type DeferredUnit, type StructuralManifest } from "./manifest.js";
import type { UnitResult } from "./queue.js";
import type { UnreadableFile } from "./sources.js";
import type { UnitOutput } from "./units.js";

/** What an overlay build compares with: a complete build, local (its manifest's catalog files) or held by a PostgreSQL store (structural/store.ts). */
export interface Baseline {
  readonly manifest: StructuralManifest;
  /** Where the overlay's queries find it again: the manifest's path, or the store's `postgres://…#repository` (no password). */
  readonly manifestPath: string;
  /** file → the unit key it was indexed under. */
  readonly keys: Map<string, string>;
  /** file → content digest (indexed files only). */
  readonly digests: Map<string, string>;
  readonly files: string[];
  /** Its coverage counted without the files an overlay supersedes. */
  counts(superseded: readonly string[]): CoverageCounts;
  /** Its declarations at the fallback tiers, which an overlay's fallback calls may name. */
  fallbackSymbols(): FallbackSymbol[];
  /** The files whose fallback-tier calls it resolved into declarations of `files`. */
  fallbackCallersOf(files: ReadonlySet<string>): Set<string>;
  close(): void;
}

/** The files whose fallback-tier calls (`calls`) resolved into declarations (`symbols`) of `files`. */
export function fallbackCallers(symbols: readonly FallbackSymbol[], calls: readonly { file_path: string; callee_id: string }[], files: ReadonlySet<string>): Set<string> {
  const ids = new Set(symbols.filter((s) => files.has(s.file_path)).map((s) => s.symbol_id));
  return new Set(calls.filter((e) => ids.has(e.callee_id)).map((e) => e.file_path));
}

/** A baseline named by its manifest.json, its structural_index directory or its state root: what an overlay build compares with (close it after). */
export function openBaselineFor(path: string): Baseline {
  const abs = resolvePath(path);
  const manifestPath = abs.endsWith(".json") ? abs : existsSync(join(abs, "manifest.json")) ? join(abs, "manifest.json") : structuralLayout(abs).manifest;
  const layout = layoutOfManifest(manifestPath);
  const manifest = readManifest(layout);
  const dbs = manifest ? openPublished(layout, manifest) : null;
  if (!manifest || !dbs)
    throw new MastError("INVALID_ARGUMENT", `no published structural index at ${manifestPath}`, {
      hint: "Pass --baseline the manifest.json of a structural index built by `mast structural build` (or the state root holding it).",
    });
  const close = () => {
    for (const db of dbs) db.close();
  };
  if (manifest.provider.kind !== "local-build") {
    close();
    throw new MastError("INVALID_ARGUMENT", `the baseline at ${manifestPath} is itself a ${manifest.provider.kind} index`, {
      hint: "A baseline is a complete local build; build one without --baseline.",
    });
  }
  const main = dbs[0]!;
  return {
    manifest,
    manifestPath,
    keys: coverageKeys(main),
    digests: coverageDigests(main),
    files: coveredFiles(main),
    counts: (superseded: readonly string[]) => coverageCounts(main, {}, superseded),
    fallbackSymbols: () => dbs.flatMap((db) => fallbackTierSymbols(db)),
    fallbackCallersOf: (files: ReadonlySet<string>): Set<string> =>
      fallbackCallers(
        dbs.flatMap((db) => fallbackTierSymbols(db)),
        dbs.flatMap((db) => fallbackTierCalls(db)),
        files,
      ),
    close,
  };
}

/** file → content digest, as the published catalog's coverage holds them (indexed files only). */
export function publishedDigests(layout: StructuralLayout, manifest: StructuralManifest): Map<string, string> {
  const dbs = openPublished(layout, manifest);
  if (!dbs) return new Map();
  try {
    return coverageDigests(dbs[0]!);
  } finally {
    for (const db of dbs) db.close();
  }
}

/**
 * Over a baseline, a unit whose output the baseline holds (same key for each of its files) is the
 * baseline's: `outputs` keeps the overlay, the rest; how many units the baseline answers for.
 */
export function keepOverlay(baseline: Baseline, outputs: UnitResult[], deferred: readonly DeferredUnit[]): number {
  const differs = (output: UnitOutput) => !output.files.every((f) => baseline.keys.get(f.path) === output.cache_key);
  // A fallback-tier call was resolved by name into a declaration's id when the baseline was
  // composed: the baseline files calling into a file the overlay rebuilds are rebuilt too.
  const rebuilt = new Set([...outputs.filter(({ output }) => differs(output)).flatMap(({ output }) => output.files.map((f) => f.path)), ...deferred.flatMap((d) => d.files)]);
  const callers = baseline.fallbackCallersOf(rebuilt);
  const overlayOutputs = outputs.filter(({ output }) => differs(output) || output.files.some((f) => callers.has(f.path)));
  const fromBaseline = outputs.length - overlayOutputs.length;
  outputs.splice(0, outputs.length, ...overlayOutputs);
  return fromBaseline;
}

/** The files the overlay supersedes in the baseline: those it indexed or deferred, and those gone since. */
export function supersededFiles(baseline: Baseline, outputs: readonly UnitResult[], deferred: readonly DeferredUnit[], unreadable: readonly UnreadableFile[], present: ReadonlySet<string>): string[] {
  return [
    ...new Set([
      ...outputs.flatMap(({ output }) => output.files.map((f) => f.path)),
      ...deferred.flatMap((d) => d.files),
      ...unreadable.map((f) => f.path),
      ...baseline.files.filter((f) => !present.has(f)),
    ]),
  ].sort();
}
