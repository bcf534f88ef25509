// Unit outputs made from what the index holds and from the fallback tiers: a unit of the index's
// rows (`typecheck` and `ast` — declarations, verified edges, the call sites no edge explains), a
// fallback-tier unit (ctags' declarations or the regular-expression pass's, and the call pass
// inside them), the index's facts keyed for both, and the builder's version every unit key names.
import { sha256 } from "../base/hash.js";
import { VERSION } from "../base/version.js";
import { languageSpec } from "../lang/languages.js";
import type { FactSymbol, StructuralFacts } from "../query/structural.js";
import type { EdgeKind, Precision } from "../store/catalog.js";
import { probeCtags } from "./ctags.js";
import { findCalls, findDefinitions, type FoundDefinition } from "./heuristic.js";
import { commentPrefixesOf, textOf, type SourceFile, type TextSource } from "./sources.js";
import { fallbackSymbolId, namespaceOf, unitCacheKey, type UnitEdge, type UnitFile, type UnitOutput, type UnitSymbol } from "./units.js";

/** The builder's own version: part of every unit's extractor version with mast's. */
export const BUILDER_VERSION = 2;

/** The qualified name of a file's module-level code, as a caller or a symbol. */
export const MODULE = "<module>";

const MAST_EXTRACTOR = `mast-tree-sitter`;
/** The version of mast's own extractors in a unit key: mast's with the builder's. */
export const extractorVersion = () => `${VERSION}+${BUILDER_VERSION}`;

/** The index's facts keyed for unit making. */
export interface IndexView {
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

/** `list` grouped by `key`, each group in list order. */
export function group<T, K>(list: readonly T[], key: (t: T) => K): Map<K, T[]> {
  const m = new Map<K, T[]>();
  for (const x of list) {
    const k = key(x);
    let l = m.get(k);
    if (!l) m.set(k, (l = []));
    l.push(x);
  }
  return m;
}

export function indexView(facts: StructuralFacts): IndexView {
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
export function indexUnit(unitId: string, language: string, files: readonly SourceFile[], precision: Precision, backend: string, compileContext: string, view: IndexView): UnitOutput {
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
        edges.push({
          caller_id: sid,
          callee_id: toId,
          callee_name: to.name.slice(to.name.lastIndexOf(".") + 1),
          file_path: f.path,
          line: e.line,
          edge_kind: edgeKindOf(e.resolution, to, toFile.language),
          precision: e.resolution === "checker" ? "typecheck" : "ast",
        });
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
      symbols.push({
        symbol_id: symbolIdOf(view, s),
        name: qualified.slice(qualified.lastIndexOf(".") + 1),
        qualified_name: qualified,
        namespace: s.name === "" ? "" : namespaceOf(qualified),
        language: info.language,
        file_path: f.path,
        start_line: s.name === "" ? 1 : s.line,
        end_line: s.name === "" ? Math.max(1, info.line_count) : s.end_line,
        kind: s.name === "" ? "module" : s.kind,
        signature: s.signature,
        boundary: BOUNDARY_KINDS.has(s.kind),
      });
    }
  }
  edges.sort((a, b) => (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : a.line - b.line || (a.callee_name < b.callee_name ? -1 : a.callee_name > b.callee_name ? 1 : 0)));
  const key = unitCacheKey({
    extractor: backend === "tree-sitter" ? MAST_EXTRACTOR : `${MAST_EXTRACTOR}+${backend}`,
    extractorVersion: extractorVersion(),
    language,
    compileContext,
    inputs: files.map((f) => [f.path, f.sha256] as const),
    dependency: sha256([...outside].sort().join("\n")),
  });
  const unitFiles: UnitFile[] = files.map((f) => ({ path: f.path, sha256: f.sha256, bytes: f.bytes, status: "indexed" }));
  return { unit_schema: 1, unit_id: unitId, cache_key: key, language, backend, backend_version: VERSION, precision, files: unitFiles, symbols, edges };
}

/**
 * A fallback-tier unit: ctags' declarations when it found any in the file, else the regex pass's
 * (and the unit says which: `universal-ctags`/`symbol-only` or `regex`/`heuristic`); the regex
 * call pass inside them; callees are resolved by name when the catalog is composed.
 */
export function fallbackUnit(input: TextSource, s: SourceFile, key: string, ctagsBatch: ((path: string) => FoundDefinition[] | null) | null): UnitOutput {
  const text = textOf(input, s.path);
  const tagged = text !== null && ctagsBatch ? ctagsBatch(s.path) : null;
  const ctags = tagged !== null && tagged.length > 0 ? probeCtags() : null;
  const precision: Precision = ctags ? "symbol-only" : "heuristic";
  const base = {
    unit_schema: 1,
    unit_id: `file:${s.path}`,
    cache_key: key,
    language: s.language,
    backend: ctags ? "universal-ctags" : "regex",
    backend_version: ctags ? ctags.version : extractorVersion(),
    precision,
  };
  if (text === null) return { ...base, files: [{ path: s.path, sha256: s.sha256, bytes: s.bytes, status: "failed" }], symbols: [], edges: [] };
  const prefixes = commentPrefixesOf(s.path);
  const defs = ctags ? tagged! : findDefinitions(text, prefixes);
  const calls = findCalls(text, prefixes, defs);
  const ids = defs.map((d) => fallbackSymbolId(s.language, s.path, d.qualified_name, d.start_line, d.signature));
  const lineCount = text.split("\n").length;
  const moduleId = fallbackSymbolId(s.language, s.path, MODULE, 1, null);
  const symbols: UnitSymbol[] = defs.map((d, i) => ({
    symbol_id: ids[i]!,
    name: d.name,
    qualified_name: d.qualified_name,
    namespace: namespaceOf(d.qualified_name),
    language: s.language,
    file_path: s.path,
    start_line: d.start_line,
    end_line: d.end_line,
    kind: d.kind,
    signature: d.signature,
    boundary: d.kind !== "class",
  }));
  if (calls.some((c) => c.caller === -1))
    symbols.push({
      symbol_id: moduleId,
      name: MODULE,
      qualified_name: MODULE,
      namespace: "",
      language: s.language,
      file_path: s.path,
      start_line: 1,
      end_line: lineCount,
      kind: "module",
      signature: null,
      boundary: false,
    });
  const edges: UnitEdge[] = calls.map((c) => ({
    caller_id: c.caller === -1 ? moduleId : ids[c.caller]!,
    callee_id: null,
    callee_name: c.callee,
    file_path: s.path,
    line: c.line,
    edge_kind: "unresolved",
    precision,
  }));
  return { ...base, files: [{ path: s.path, sha256: s.sha256, bytes: s.bytes, status: "indexed" }], symbols, edges };
}
