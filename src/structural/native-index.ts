// The structural index's semantic tier: native indexes attached under the state root's native/
// (declared by a provenance.json, matched by snapshot id or root fingerprint), and the unit a SCIP
// attachment makes — its definitions, and each reference to a callable as a `direct` call or an
// `indirect` reference, told apart by the index's call sites and the source text.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SCIP_ROLE, scipDescriptor, type ScipDocument, type ScipIndex, type ScipOccurrence } from "../base/scip.js";
import { UNKNOWN_SNAPSHOT, type StructuralLayout } from "./locate.js";
import type { SourceFile } from "./sources.js";
import { MODULE, type IndexView } from "./unit-outputs.js";
import { fallbackSymbolId, namespaceOf, type UnitEdge, type UnitFile, type UnitOutput, type UnitSymbol } from "./units.js";

export interface NativeAttachment {
  readonly kind: string;
  readonly path: string;
  readonly abs: string;
  readonly language: string;
  readonly indexer: string;
  readonly files: readonly string[];
}

/** Attachments declared by native/provenance.json or native/<kind>/provenance.json that match the snapshot id or the root fingerprint. */
export function probeNative(layout: StructuralLayout, snapshotId: string, rootFingerprint: string): NativeAttachment[] {
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
      out.push({
        kind: e.kind,
        path: e.path,
        abs: join(dir, e.path),
        language: typeof e.language === "string" ? e.language : "",
        indexer: typeof e.indexer === "string" ? e.indexer : e.kind,
        files: Array.isArray(e.files) ? e.files.filter((f): f is string => typeof f === "string") : [],
      });
    }
  }
  return out;
}

/** A SCIP symbol as the unit names it: its catalog id and descriptor, and whether it is a document's local. */
type Described = NonNullable<ReturnType<typeof scipDescriptor>> & { id: string; local: boolean };

/** A definition's span in its document (1-based lines), for finding the innermost caller of a reference. */
interface Definition {
  readonly id: string;
  readonly start: number;
  readonly end: number;
}

/** What reading one SCIP attachment's documents shares: the index view, the source text, the symbols' descriptions, and the callables. */
interface ScipReading {
  readonly view: IndexView;
  readonly text: (path: string) => string | null;
  readonly linesOf: (path: string) => string[];
  readonly describe: (o: ScipOccurrence, docPath: string | undefined) => Described | null;
  readonly callable: ReadonlySet<string>;
}

/**
 * A SCIP unit: the attachment's definitions (methods, types, and terms the index declares as
 * functions) with their enclosing ranges — or the index's end line for the declaration on that
 * line — and each reference to a callable inside another definition as an edge: `direct` where
 * the index saw a call of that name on the line, `indirect` (a reference: a callback, a value)
 * where it did not; a type's reference only where the index saw it constructed. Names bound by
 * import statements are not references.
 */
export function scipUnit(scip: ScipIndex, a: NativeAttachment, files: readonly SourceFile[], key: string, view: IndexView, text: (path: string) => string | null): UnitOutput {
  const wanted = new Map(files.map((f) => [f.path, f]));
  const symbols: UnitSymbol[] = [];
  const edges: UnitEdge[] = [];
  const pathOf = documentPaths(scip, wanted);
  const docs = scip.documents.filter((d) => pathOf.has(d.path)).map((d) => ({ ...d, path: pathOf.get(d.path)! }));
  const lineCache = new Map<string, string[]>();
  const linesOf = (p: string): string[] => {
    let l = lineCache.get(p);
    if (!l) lineCache.set(p, (l = text(p)?.split("\n") ?? []));
    return l;
  };
  const describe = (o: ScipOccurrence, docPath: string | undefined) => describeOccurrence(o, docPath, linesOf);
  const reading: ScipReading = { view, text, linesOf, describe, callable: callablesOf(scip, pathOf, view, describe) };
  for (const doc of docs) {
    const file = wanted.get(doc.path)!;
    const fileId = view.fileIdOf.get(doc.path);
    const defs = documentDefinitions(reading, doc, file, fileId, symbols);
    const moduleId = fallbackSymbolId(file.language, doc.path, MODULE, 1, null);
    if (documentReferences(reading, doc, fileId, defs, moduleId, edges))
      symbols.push({
        symbol_id: moduleId,
        name: MODULE,
        qualified_name: MODULE,
        namespace: "",
        language: file.language,
        file_path: doc.path,
        start_line: 1,
        end_line: Math.max(1, view.fileOf.get(fileId ?? -1)?.line_count ?? 1),
        kind: "module",
        signature: null,
        boundary: false,
      });
  }
  const unitFiles: UnitFile[] = files.map((f) => ({ path: f.path, sha256: f.sha256, bytes: f.bytes, status: docs.some((d) => d.path === f.path) ? "indexed" : "failed" }));
  return {
    unit_schema: 1,
    unit_id: `scip:${a.path}`,
    cache_key: key,
    language: files[0]?.language ?? a.language,
    backend: a.indexer,
    backend_version: scip.tool.version || "unknown",
    precision: "semantic",
    files: unitFiles,
    symbols,
    edges,
  };
}

/** Document paths are relative to where the indexer ran: each is the listed file it names (itself, or the one path ending in it). */
function documentPaths(scip: ScipIndex, wanted: ReadonlyMap<string, SourceFile>): Map<string, string> {
  const pathOf = new Map<string, string>();
  for (const doc of scip.documents) {
    if (wanted.has(doc.path)) pathOf.set(doc.path, doc.path);
    else {
      const ends = [...wanted.keys()].filter((f) => f.endsWith(`/${doc.path}`));
      if (ends.length === 1) pathOf.set(doc.path, ends[0]!);
    }
  }
  return pathOf;
}

/** A symbol's catalog id and descriptor. A local (a nested function, say) is named by its text and scoped to its document. */
function describeOccurrence(o: ScipOccurrence, docPath: string | undefined, linesOf: (path: string) => string[]): Described | null {
  if (o.symbol.startsWith("local ")) {
    if (docPath === undefined || o.range[0] !== o.range[2]) return null;
    const name = (linesOf(docPath)[o.range[0]] ?? "").slice(o.range[1], o.range[3]);
    return /^[\w$]+$/.test(name) ? { id: `scip:local:${docPath}:${o.symbol.slice(6)}`, kind: "term" as const, name, owner: null, path: name, local: true } : null;
  }
  const d = scipDescriptor(o.symbol);
  return d ? { id: `scip:${o.symbol}`, ...d, local: false } : null;
}

/** The callables the index defines — methods, and terms the index view declares as functions — across every document, so a call into another document is recognised. */
function callablesOf(scip: ScipIndex, pathOf: ReadonlyMap<string, string>, view: IndexView, describe: ScipReading["describe"]): Set<string> {
  const callable = new Set<string>();
  for (const doc of scip.documents) {
    const docPath = pathOf.get(doc.path);
    for (const o of doc.occurrences) {
      if ((o.roles & SCIP_ROLE.definition) === 0) continue;
      const d = describe(o, docPath);
      if (!d) continue;
      if (d.kind === "method" || (d.kind === "term" && indexFunctionAt(view, docPath ?? doc.path, o.range[0] + 1, d.name))) callable.add(d.id);
    }
  }
  return callable;
}

/**
 * A document's definitions of callables and types, added to `symbols` (each id once across the
 * unit), with their spans: the enclosing range, else the index view's end line for the declaration.
 */
function documentDefinitions(reading: ScipReading, doc: ScipDocument, file: SourceFile, fileId: number | undefined, symbols: UnitSymbol[]): Definition[] {
  const { view, describe, callable } = reading;
  const defs: Definition[] = [];
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
    symbols.push({
      symbol_id: d.id,
      name: d.name,
      qualified_name: qualified,
      namespace: namespaceOf(qualified),
      language: file.language,
      file_path: doc.path,
      start_line: start,
      end_line: end,
      kind,
      signature: indexed?.signature ?? null,
      boundary: kind !== "class" && kind !== "interface" && kind !== "type",
    });
    defs.push({ id: d.id, start, end });
  }
  return defs;
}

/**
 * A document's references to callables (and constructions of types) as edges from the innermost
 * enclosing definition, else from the module; whether any came from the module.
 */
function documentReferences(reading: ScipReading, doc: ScipDocument, fileId: number | undefined, defs: readonly Definition[], moduleId: string, edges: UnitEdge[]): boolean {
  const { view, describe, callable } = reading;
  const sourceLines = reading.linesOf(doc.path);
  const imports = importStatementLines(view.importLines.get(fileId ?? -1) ?? [], reading.text(doc.path));
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
    let caller: Definition | null = null;
    for (const def of defs) if (def.start <= line && def.end >= line && (!caller || def.end - def.start < caller.end - caller.start)) caller = def;
    edges.push({ caller_id: caller?.id ?? moduleId, callee_id: d.id, callee_name: d.name, file_path: doc.path, line, edge_kind: called ? "direct" : "indirect", precision: "semantic" });
    if (!caller) moduleUsed = true;
  }
  return moduleUsed;
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
