// Step 2 of a structural build: the backend of each partition, highest tier first — SCIP
// attachments (`semantic`; LSIF and Kythe recorded and deferred), the checker's projects and
// languages (`typecheck`), every other file a LanguageSpec parses (`ast`), universal-ctags
// (`symbol-only`) or the regular-expression pass (`heuristic`) for the rest — each a planned unit
// that knows how to make its output, and the backend version each language is covered at.
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { errorMessage } from "../base/errors.js";
import { sha256 } from "../base/hash.js";
import { decodeScip, type ScipIndex } from "../base/scip.js";
import { VERSION } from "../base/version.js";
import { languageSpec } from "../lang/languages.js";
import type { CheckerLanguage } from "../index/run.js";
import type { StructuralFacts } from "../query/structural.js";
import { PRECISIONS, type Precision } from "../store/catalog.js";
import { ctagsDefinitions, probeCtags, type CtagsBackend } from "./ctags.js";
import { blockEnds, type FoundDefinition } from "./heuristic.js";
import type { StructuralLayout } from "./locate.js";
import type { BackendVersion, NativeIndexEntry } from "./manifest.js";
import { scipUnit, type NativeAttachment } from "./native-index.js";
import { commentPrefixesOf, textOf, type SourceFile, type TextSource } from "./sources.js";
import { BUILDER_VERSION, extractorVersion, fallbackUnit, indexUnit, indexView, type IndexView } from "./unit-outputs.js";
import { unitCacheKey, UnitStore, type UnitOutput } from "./units.js";

const rank = (p: Precision) => PRECISIONS.length - PRECISIONS.indexOf(p);
/** Whether a build whose highest tier is `max` may use `tier`. */
export const allows = (max: Precision, tier: Precision) => rank(tier) <= rank(max);

/** A unit planned for this build: which files, at which tier, by which backend, and how to make its output. */
export interface PlannedUnit {
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

export interface Plan {
  readonly units: PlannedUnit[];
  readonly native: NativeIndexEntry[];
  /** Files a native index covers without being ingested: deferred coverage, no lower tier. */
  readonly nativeDeferred: Map<string, string>;
  readonly backends: Record<string, BackendVersion>;
  /** Files no backend covers (`coverage-only`). */
  readonly uncovered: SourceFile[];
}

export interface PlanInput extends TextSource {
  readonly layout: StructuralLayout;
  readonly facts: StructuralFacts;
  readonly sources: readonly SourceFile[];
  readonly native: readonly NativeAttachment[];
  readonly maxPrecision: Precision;
  readonly checkerRan: boolean;
  /** Each language the checker pass has a backend for, and whether its analyzer ran (the reason when not). */
  readonly checkerLanguages: readonly CheckerLanguage[];
  readonly skippedConfigs: ReadonlySet<string>;
}

/** What the tiers' steps add to as they go: the units, the files a higher tier claimed, each language's best backend. */
interface Planning {
  readonly units: PlannedUnit[];
  readonly claimed: Set<string>;
  readonly backends: Record<string, BackendVersion>;
  readonly index: IndexView;
}

/** Records `b` as the language's backend unless it already has a higher tier's. */
function note(planning: Planning, language: string, b: BackendVersion): void {
  const prev = planning.backends[language];
  if (!prev || rank(b.precision as Precision) > rank(prev.precision as Precision)) planning.backends[language] = b;
}

export function planUnits(input: PlanInput): Plan {
  const { maxPrecision } = input;
  const planning: Planning = { units: [], claimed: new Set(), backends: {}, index: indexView(input.facts) };
  const { native, nativeDeferred } = planNativeUnits(input, planning);
  const typecheckRan = allows(maxPrecision, "typecheck") && input.checkerRan;
  if (typecheckRan) planCheckerUnits(input, planning);
  // ast: every other file a LanguageSpec parses, one unit per file.
  if (allows(maxPrecision, "ast")) {
    for (const s of input.sources) {
      if (planning.claimed.has(s.path) || !s.parsed) continue;
      planning.units.push({
        unit_id: `file:${s.path}`,
        language: s.language,
        files: [s.path],
        source_bytes: s.bytes,
        precision: "ast",
        backend: "tree-sitter",
        backend_version: VERSION,
        key: null,
        make: () => indexUnit(`file:${s.path}`, s.language, [s], "ast", "tree-sitter", input.facts.resolverFingerprint, planning.index),
      });
      planning.claimed.add(s.path);
      note(planning, s.language, { backend_name: "tree-sitter", backend_version: VERSION, precision: "ast" });
    }
  }
  const uncovered = planFallbackUnits(input, planning);
  for (const s of uncovered) note(planning, s.language, { backend_name: "grep", backend_version: "", precision: "coverage-only" });
  const { backends } = planning;
  // A language the pass was asked for whose analyzer could not run stays below typecheck, saying why.
  if (typecheckRan) {
    for (const l of input.checkerLanguages) {
      const b = backends[l.language];
      if (!l.available && b !== undefined) backends[l.language] = { ...b, reason: `typecheck unavailable (${l.backend}): ${l.reason ?? "not run"}` };
    }
  }
  return { units: planning.units, native, nativeDeferred, backends, uncovered };
}

/** semantic: SCIP attachments (ingested); LSIF and Kythe are recorded and deferred. */
function planNativeUnits(input: PlanInput, planning: Planning): { native: NativeIndexEntry[]; nativeDeferred: Map<string, string> } {
  const { units, claimed, index } = planning;
  const native: NativeIndexEntry[] = [];
  const nativeDeferred = new Map<string, string>();
  const byPath = new Map(input.sources.map((s) => [s.path, s]));
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
    const key = unitCacheKey({
      extractor: `scip:${a.indexer}`,
      extractorVersion: `${scip.tool.version}+${BUILDER_VERSION}`,
      language,
      compileContext: digest,
      inputs: files.map((f) => [f.path, f.sha256] as const),
      dependency: "",
    });
    const version = scip.tool.version || "unknown";
    const decoded = scip;
    units.push({
      unit_id: `scip:${a.path}`,
      language,
      files: covered,
      source_bytes: files.reduce((n, f) => n + f.bytes, 0),
      precision: "semantic",
      backend: a.indexer,
      backend_version: version,
      key,
      make: () => scipUnit(decoded, a, files, key, index, (p) => textOf(input, p)),
    });
    for (const f of covered) claimed.add(f);
    note(planning, language, { backend_name: a.indexer, backend_version: version, precision: "semantic" });
  }
  return { native, nativeDeferred };
}

/**
 * typecheck: the TypeScript compiler's languages (LanguageSpec.checker "compiler"), files under a
 * tsconfig the checker read, one unit per project; then the other languages with a backend
 * (scip-python, go/types, rust-analyzer): one unit per language whose analyzer ran.
 */
function planCheckerUnits(input: PlanInput, planning: Planning): void {
  const { facts, sources, located } = input;
  const { units, claimed, index } = planning;
  const projects = new Map<string, SourceFile[]>();
  for (const s of sources) {
    if (claimed.has(s.path) || !s.parsed || languageSpec(s.language)?.checker !== "compiler") continue;
    const tsconfig = nearestTsconfig(located.codeRoot, s.path);
    if (tsconfig === null || input.skippedConfigs.has(tsconfig)) continue;
    let list = projects.get(tsconfig);
    if (!list) projects.set(tsconfig, (list = []));
    list.push(s);
    claimed.add(s.path);
  }
  for (const [tsconfig, files] of [...projects].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const context = sha256(`${readTextOr(join(located.codeRoot, tsconfig))}\0${facts.resolverFingerprint}`);
    const language = files[0]!.language;
    units.push({
      unit_id: `project:${tsconfig}`,
      language,
      files: files.map((f) => f.path),
      source_bytes: files.reduce((n, f) => n + f.bytes, 0),
      precision: "typecheck",
      backend: "typescript-checker",
      backend_version: VERSION,
      key: null,
      make: () => indexUnit(`project:${tsconfig}`, language, files, "typecheck", "typescript-checker", context, index),
    });
    for (const f of files) note(planning, f.language, { backend_name: "typescript-checker", backend_version: VERSION, precision: "typecheck" });
  }
  for (const l of input.checkerLanguages) {
    if (!l.available || languageSpec(l.language)?.checker === "compiler") continue;
    const files = sources.filter((s) => !claimed.has(s.path) && s.parsed && s.language === l.language);
    if (files.length === 0) continue;
    const context = sha256(`${l.backend}\0${facts.resolverFingerprint}`);
    units.push({
      unit_id: `project:${l.language}`,
      language: l.language,
      files: files.map((f) => f.path),
      source_bytes: files.reduce((n, f) => n + f.bytes, 0),
      precision: "typecheck",
      backend: l.backend,
      backend_version: VERSION,
      key: null,
      make: () => indexUnit(`project:${l.language}`, l.language, files, "typecheck", l.backend, context, index),
    });
    for (const f of files) claimed.add(f.path);
    note(planning, l.language, { backend_name: l.backend, backend_version: VERSION, precision: "typecheck" });
  }
}

/** symbol-only (ctags) or heuristic (the regex pass): one unit per file no higher tier claimed; the files no tier covers. */
function planFallbackUnits(input: PlanInput, planning: Planning): SourceFile[] {
  const { units, claimed } = planning;
  const ctags = allows(input.maxPrecision, "symbol-only") ? probeCtags() : null;
  const heuristicAllowed = allows(input.maxPrecision, "heuristic");
  const uncovered: SourceFile[] = [];
  const ctagsFiles: SourceFile[] = [];
  for (const s of input.sources) {
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
    units.push({
      unit_id: `file:${s.path}`,
      language: s.language,
      files: [s.path],
      source_bytes: s.bytes,
      precision,
      backend,
      backend_version: version,
      key,
      make: () => fallbackUnit(input, s, key, ctags ? batch.definitions : null),
      ...(ctags ? { cacheable: () => batch.ran() } : {}),
    });
    note(planning, s.language, { backend_name: backend, backend_version: version, precision });
  }
  const batch = ctagsBatch(input, ctags, ctagsFiles, new Map(units.map((u) => [u.unit_id, u.key])));
  return uncovered;
}

/**
 * ctags runs once over every file it is asked about that needs a build; filled on the first unit
 * made (`ran` false: the run failed). `keyOf`: each planned unit's key by its id.
 */
function ctagsBatch(
  input: PlanInput,
  ctags: CtagsBackend | null,
  ctagsFiles: readonly SourceFile[],
  keyOf: ReadonlyMap<string, string | null>,
): { definitions: (path: string) => FoundDefinition[] | null; ran: () => boolean } {
  let ctagsResult: Map<string, FoundDefinition[]> | null | undefined;
  const definitions = (path: string): FoundDefinition[] | null => {
    if (!ctags) return null;
    if (ctagsResult === undefined) {
      const store = new UnitStore(input.layout.units);
      // A name with a line break cannot be listed to ctags: the regex pass reads it.
      const needed = ctagsFiles.filter((f) => !/[\r\n]/.test(f.path) && !store.has(keyOf.get(`file:${f.path}`) ?? ""));
      mkdirSync(input.layout.helpers, { recursive: true });
      ctagsResult = ctagsDefinitions(
        ctags,
        input.located.codeRoot,
        needed.map((f) => f.path),
        { list: join(input.layout.helpers, "ctags-files.txt"), tags: join(input.layout.helpers, "tags") },
        (p, starts) => {
          const text = textOf(input, p);
          return text === null ? starts : blockEnds(text, commentPrefixesOf(p), starts);
        },
      );
    }
    return ctagsResult?.get(path) ?? null;
  };
  return { definitions, ran: () => ctagsResult !== null };
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
