// A structural build's deterministic partial coverage: the four-tier priority queue over the
// planned units, and the bounded pass down it — a cached unit reused at no cost, the rest made
// until max_units or max_source_bytes (at least one a build), the remainder deferred with its
// reason, a unit whose backend threw recorded as failed.
import { dirname, join } from "node:path";
import { sha256 } from "../base/hash.js";
import { readJsonObjectFile } from "../base/json.js";
import type { StructuralFacts } from "../query/structural.js";
import type { StructuralLayout } from "./locate.js";
import type { DeferredUnit } from "./manifest.js";
import type { PlannedUnit } from "./plan.js";
import type { SourceFile } from "./sources.js";
import { UnitStore, type UnitOutput } from "./units.js";

const DEFAULT_MAX_UNITS = 10_000;
const DEFAULT_MAX_SOURCE_BYTES = 500 * 1024 * 1024;

/** A planned unit in the queue: its tier, and whether its output may differ from the last build's. */
export interface QueuedUnit {
  readonly unit: PlannedUnit;
  readonly priority: number;
  readonly changed: boolean;
}

/** A unit's output, and whether it was a stored one. */
export interface UnitResult {
  readonly unit: PlannedUnit;
  readonly output: UnitOutput;
  readonly reused: boolean;
}

export interface BuiltUnits {
  readonly outputs: UnitResult[];
  readonly deferred: DeferredUnit[];
  /** Units whose backend threw. */
  readonly failed: number;
}

/**
 * The four-tier queue: (1) targets from workspace/plan.json (`target_files`, `targets[].file`),
 * (2) changed units — a file whose digest the published catalog (or the baseline) does not hold
 * (deferred and never-built ones included) — and the files whose verified calls reach them, (3) the files of
 * their directories and the files tiers 1 and 2 call into, (4) the rest; unit-id order inside a tier.
 */
export function priorityOrder(units: readonly PlannedUnit[], layout: StructuralLayout, facts: StructuralFacts, before: ReadonlyMap<string, string>): QueuedUnit[] {
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

/** Down the queue, bounded by max_units / max_source_bytes (units to build only; a cached unit costs nothing). */
export function buildUnits(
  ordered: readonly QueuedUnit[],
  layout: StructuralLayout,
  sources: readonly SourceFile[],
  limits: { readonly maxUnits?: number; readonly maxSourceBytes?: number },
): BuiltUnits {
  const unitStore = new UnitStore(layout.units);
  const maxUnits = limits.maxUnits ?? DEFAULT_MAX_UNITS;
  const maxBytes = limits.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES;
  const outputs: UnitResult[] = [];
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
  return { outputs, deferred, failed: failedUnits };
}

function failedOutput(unit: PlannedUnit, sources: readonly SourceFile[]): UnitOutput {
  const byPath = new Map(sources.map((s) => [s.path, s]));
  const key = unit.key ?? sha256(`failed\0${unit.unit_id}\0${unit.files.map((f) => byPath.get(f)?.sha256 ?? "").join(",")}`);
  return {
    unit_schema: 1,
    unit_id: unit.unit_id,
    cache_key: key,
    language: unit.language,
    backend: unit.backend,
    backend_version: unit.backend_version,
    precision: unit.precision,
    files: unit.files.map((f) => ({ path: f, sha256: byPath.get(f)?.sha256 ?? "", bytes: byPath.get(f)?.bytes ?? 0, status: "failed" })),
    symbols: [],
    edges: [],
  };
}
