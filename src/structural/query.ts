// The structural index's consumption contract: the five operations (resolve_symbol, find_callers,
// find_callees, get_function_boundary, get_coverage) with the supplement's result shapes, over the
// published catalog and its shards, the compatibility JSONL when no catalog is there, or a remote
// provider (MANTIS_STRUCTURAL_INDEX_URL, or a manifest whose provider.kind is `remote`) that
// answers the same operations (`mast structural serve`). Every result carries precision, backend
// and edge kind; every answer carries coverage with its partition_status. Read-only.
import { existsSync, readFileSync } from "node:fs";
import { MastError } from "../base/errors.js";
import { sqliteCatalog, type BoundaryResult, type CatalogReader, type CoverageCounts, type EdgeResult, type SymbolResult } from "../store/catalog.js";
import { layoutOfManifest, type StructuralLayout } from "./locate.js";
import { isStoreBaseline, storeBaselineLayers } from "./store-baseline.js";
import { openPublished, readManifest, statusOf, type BuildStatus, type StructuralManifest } from "./manifest.js";

export const STRUCTURAL_OPERATIONS = ["resolve_symbol", "find_callers", "find_callees", "get_function_boundary", "get_coverage"] as const;
export type StructuralOperation = (typeof STRUCTURAL_OPERATIONS)[number];

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface Coverage {
  readonly partition_status: BuildStatus;
  readonly total_files: number;
  readonly indexed_files: number;
  readonly failed: number;
  readonly deferred: number;
  readonly backends_used: readonly string[];
  readonly snapshot_id: string | null;
  /** The index was built from a tree not pinned to its snapshot id (HALT): hints are advisory. */
  readonly stale: boolean;
}

/**
 * What the operations read: the catalog and shards (and a baseline's, when this index is an
 * overlay on it) — published SQLite files or a PostgreSQL store's rows — or the JSONL's records.
 */
export interface StructuralSource {
  readonly manifest: StructuralManifest | null;
  readonly dbs: readonly CatalogReader[] | null;
  readonly jsonl: JsonlIndex | null;
  /** The baseline's catalog and shards, and the files the overlay supersedes in it (its rows for them are never read). */
  readonly baseline: { readonly dbs: readonly CatalogReader[]; readonly superseded: ReadonlySet<string> } | null;
}
type Source = StructuralSource;

/** Each catalog with the files whose rows it must not answer for (a baseline's superseded files). */
function layers(source: Source): { db: CatalogReader; superseded: ReadonlySet<string> | null }[] {
  return [...(source.dbs ?? []).map((db) => ({ db, superseded: null })), ...(source.baseline?.dbs ?? []).map((db) => ({ db, superseded: source.baseline!.superseded }))];
}

export interface JsonlIndex {
  readonly header: Record<string, unknown>;
  readonly symbols: SymbolResult[];
  readonly edges: EdgeResult[];
  readonly boundaries: BoundaryResult[];
}

function openSource(layout: StructuralLayout): Source {
  const manifest = readManifest(layout);
  if (manifest) {
    const dbs = openPublished(layout, manifest);
    if (dbs) return { manifest, dbs: dbs.map(sqliteCatalog), jsonl: null, baseline: openBaseline(manifest) };
  }
  return { manifest, dbs: null, jsonl: readJsonl(layout.jsonl), baseline: null };
}

/** A baseline+overlay index's baseline: its published catalog, with the overlay's files superseded. */
function openBaseline(manifest: StructuralManifest): Source["baseline"] {
  if (manifest.provider.kind !== "baseline+overlay" || manifest.baseline.manifest_path === null) return null;
  if (isStoreBaseline(manifest.baseline.manifest_path)) {
    const dbs = storeBaselineLayers(manifest.baseline.manifest_path, manifest.baseline.build_id ?? null);
    return dbs ? { dbs, superseded: new Set(manifest.overlay.files) } : null;
  }
  const layout = layoutOfManifest(manifest.baseline.manifest_path);
  const base = readManifest(layout);
  // Only the baseline build the overlay was made against (a rebuilt baseline is another index).
  const dbs = base && (manifest.baseline.build_id == null || base.build_id === manifest.baseline.build_id) ? openPublished(layout, base) : null;
  return dbs ? { dbs: dbs.map(sqliteCatalog), superseded: new Set(manifest.overlay.files) } : null;
}

/** The compatibility export's records, when it is a full one. */
function readJsonl(path: string): JsonlIndex | null {
  if (!existsSync(path)) return null;
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
  } catch {
    return null;
  }
  // A header-only export (over the threshold) holds no records to answer from.
  if (header._provenance !== true || header.full_export !== true) return null;
  const symbols: SymbolResult[] = [];
  const edges: EdgeResult[] = [];
  const boundaries: BoundaryResult[] = [];
  for (const line of lines.slice(1)) {
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (r._type === "function") {
      const s = r as unknown as SymbolResult & { boundary?: boolean };
      symbols.push({
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
        precision: s.precision,
        backend: s.backend,
      });
      if (s.boundary)
        boundaries.push({
          symbol_id: s.symbol_id,
          name: s.qualified_name,
          file_path: s.file_path,
          start_line: s.start_line,
          end_line: s.end_line,
          signature: s.signature,
          language: s.language,
          precision: s.precision,
          backend: s.backend,
        });
    } else if (r._type === "call_edge") {
      edges.push({
        caller_id: r.caller_id as string,
        caller_name: null,
        callee_id: (r.callee_id as string | null) ?? null,
        callee_name: r.callee_name as string,
        file_path: r.file as string,
        line: r.line as number,
        edge_kind: r.edge_kind as EdgeResult["edge_kind"],
        precision: r.precision as EdgeResult["precision"],
        backend: r.backend as string,
      });
    }
  }
  const names = new Map(symbols.map((s) => [s.symbol_id, s.qualified_name]));
  return { header, symbols, edges: edges.map((e) => ({ ...e, caller_name: names.get(e.caller_id) ?? null })), boundaries };
}

function closeSource(s: Source): void {
  for (const db of [...(s.dbs ?? []), ...(s.baseline?.dbs ?? [])]) db.close();
}

/** One operation over a source the caller opened (and closes): a PostgreSQL store's published build, say. */
export function queryFrom(source: StructuralSource, op: string, args: unknown): Record<string, unknown> {
  return run(source, op as StructuralOperation, checkArgs(op, args));
}

function coverageOf(source: Source, scope: { file?: string | undefined; languages?: readonly string[] | undefined }): Coverage {
  const snapshot = source.manifest?.snapshot_id ?? (typeof source.jsonl?.header.snapshot_id === "string" ? source.jsonl.header.snapshot_id : null);
  const stale = source.manifest?.stale ?? false;
  let counts: CoverageCounts;
  if (source.dbs) {
    counts = source.dbs[0]!.coverageCounts(scope);
    if (source.baseline) {
      const base = source.baseline.dbs[0]!.coverageCounts(scope, [...source.baseline.superseded]);
      counts = {
        total_files: counts.total_files + base.total_files,
        indexed_files: counts.indexed_files + base.indexed_files,
        failed: counts.failed + base.failed,
        deferred: counts.deferred + base.deferred,
        backends_used: [...new Set([...counts.backends_used, ...base.backends_used])].sort(),
      };
    }
  } else if (source.jsonl) {
    const c = (source.jsonl.header.coverage ?? {}) as Partial<CoverageCounts>;
    counts = { total_files: c.total_files ?? 0, indexed_files: c.indexed_files ?? 0, failed: c.failed ?? 0, deferred: c.deferred ?? 0, backends_used: c.backends_used ?? [] };
    if (scope.file !== undefined) {
      const has = source.jsonl.symbols.some((s) => s.file_path === scope.file);
      counts = { ...counts, total_files: has ? 1 : 0, indexed_files: has ? 1 : 0, failed: 0, deferred: 0 };
    }
  } else counts = { total_files: 0, indexed_files: 0, failed: 0, deferred: 0, backends_used: [] };
  // An overlay whose baseline cannot be read answers for its own files only: never complete.
  const baselineLost = source.manifest?.provider.kind === "baseline+overlay" && source.baseline === null;
  const status = statusOf(counts);
  return { partition_status: baselineLost && status === "complete" ? "partial" : status, ...counts, snapshot_id: snapshot, stale };
}

// ---- argument checks (the same for every provider) ----

function stringArg(args: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const v = args[key];
  if (v === undefined || v === null) {
    if (required) throw new MastError("INVALID_ARGUMENT", `${key} is required`);
    return undefined;
  }
  if (typeof v !== "string" || v.trim() === "") throw new MastError("INVALID_ARGUMENT", `${key} must be a non-empty string`);
  return v;
}

function intArg(args: Record<string, unknown>, key: string, fallback: number, min: number, max: number): number {
  const v = args[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw new MastError("INVALID_ARGUMENT", `${key} must be an integer from ${min} to ${max}`);
  return v;
}

/**
 * How an operation's argument is given: a string (`?`: optional), a 1-based line, or a page's
 * limit or offset (optional both).
 */
export type StructuralArg = "string" | "string?" | "line" | "limit" | "offset";

/**
 * Each operation's arguments — the one list the MCP tools' schemas (tools/structural.ts), this
 * module's check and, by a parity test, the Python helper's KNOWN_ARGS follow.
 */
export const STRUCTURAL_ARGS: { readonly [op in StructuralOperation]: Readonly<Record<string, StructuralArg>> } = {
  resolve_symbol: { name: "string", language: "string?", file: "string?", namespace: "string?", limit: "limit", offset: "offset" },
  find_callers: { symbol_id: "string", limit: "limit", offset: "offset" },
  find_callees: { symbol_id: "string", limit: "limit", offset: "offset" },
  get_function_boundary: { file: "string", line: "line" },
  get_coverage: { file: "string?", language: "string?" },
};

export function isStructuralOperation(op: string): op is StructuralOperation {
  return (STRUCTURAL_OPERATIONS as readonly string[]).includes(op);
}

function checkArgs(op: string, args: unknown): Record<string, unknown> {
  if (!isStructuralOperation(op)) throw new MastError("INVALID_ARGUMENT", `unknown operation ${JSON.stringify(op)}`, { hint: `One of ${STRUCTURAL_OPERATIONS.join(", ")}.` });
  if (args === null || typeof args !== "object" || Array.isArray(args)) throw new MastError("INVALID_ARGUMENT", "the arguments must be a JSON object");
  const a = args as Record<string, unknown>;
  const known = STRUCTURAL_ARGS[op];
  const unknown = Object.keys(a).filter((k) => !Object.hasOwn(known, k));
  if (unknown.length > 0) throw new MastError("INVALID_ARGUMENT", `${op} takes no ${unknown.join(", ")}`, { hint: `Its arguments: ${Object.keys(known).join(", ")}.` });
  return a;
}

// ---- the operations ----

function page<T>(all: readonly T[], limit: number, offset: number): { results: T[]; total: number; has_more: boolean } {
  return { results: all.slice(offset, offset + limit), total: all.length, has_more: offset + limit < all.length };
}

const bySite = (a: { file_path: string; line?: number; start_line?: number }, b: { file_path: string; line?: number; start_line?: number }) =>
  a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : (a.line ?? a.start_line ?? 0) - (b.line ?? b.start_line ?? 0);

function findSymbol(source: Source, id: string): SymbolResult | null {
  if (source.dbs) {
    for (const { db, superseded } of layers(source)) {
      const s = db.symbolById(id);
      if (s && !superseded?.has(s.file_path)) return s;
    }
    return null;
  }
  return source.jsonl?.symbols.find((s) => s.symbol_id === id) ?? null;
}

/** The languages whose files can call a symbol of `language` (the catalog's `call_languages`: one resolver's languages, TypeScript and JavaScript say), itself when unlisted. */
function callingLanguages(source: Source, language: string | null): string[] {
  if (language === null) return [];
  const maps = source.dbs
    ? [source.dbs[0]!, ...(source.baseline ? [source.baseline.dbs[0]!] : [])].map((db) => JSON.parse(db.meta().call_languages ?? "{}") as Record<string, string[]>)
    : [(source.jsonl?.header.call_languages ?? {}) as Record<string, string[]>];
  const found = maps.flatMap((m) => m[language] ?? []);
  return found.length > 0 ? [...new Set(found)].sort() : [language];
}

/** What each layer answers, a baseline's rows for superseded files left out. */
function fromLayers<T extends { file_path: string }>(source: Source, read: (db: CatalogReader) => T[]): T[] {
  return layers(source).flatMap(({ db, superseded }) => (superseded ? read(db).filter((r) => !superseded.has(r.file_path)) : read(db)));
}

function run(source: Source, op: StructuralOperation, a: Record<string, unknown>): Record<string, unknown> {
  switch (op) {
    case "resolve_symbol":
      return resolveSymbol(source, a);
    case "find_callers":
    case "find_callees":
      return findEdges(source, op, a);
    case "get_function_boundary":
      return functionBoundary(source, a);
    case "get_coverage":
      return coverageAnswer(source, a);
  }
}

/** resolve_symbol: the declarations of a name (or qualified name), narrowed by language, file and namespace, in site order. */
function resolveSymbol(source: Source, a: Record<string, unknown>): Record<string, unknown> {
  const filter = { name: stringArg(a, "name", true)!, language: stringArg(a, "language", false), file: stringArg(a, "file", false), namespace: stringArg(a, "namespace", false) };
  const all = source.dbs
    ? fromLayers(source, (db) => db.symbolsNamed(filter)).sort(bySite)
    : (source.jsonl?.symbols ?? [])
        .filter(
          (s) =>
            (s.name === filter.name || s.qualified_name === filter.name) &&
            (filter.language === undefined || s.language === filter.language) &&
            (filter.file === undefined || s.file_path === filter.file) &&
            (filter.namespace === undefined || s.namespace === filter.namespace),
        )
        .sort(bySite);
  const p = page(all, intArg(a, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT), intArg(a, "offset", 0, 0, Number.MAX_SAFE_INTEGER));
  return {
    results: p.results,
    total: p.total,
    ambiguous: p.total > 1,
    has_more: p.has_more,
    coverage: coverageOf(source, { file: filter.file, languages: filter.language === undefined ? undefined : [filter.language] }),
  };
}

/** find_callers / find_callees: a page of the symbol's call edges, with coverage over the languages involved. */
function findEdges(source: Source, op: "find_callers" | "find_callees", a: Record<string, unknown>): Record<string, unknown> {
  const id = stringArg(a, "symbol_id", true)!;
  const limit = intArg(a, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
  const offset = intArg(a, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
  const symbol = findSymbol(source, id);
  const all =
    op === "find_callers"
      ? callerEdgesOf(source, id, symbol)
      : source.dbs
        ? fromLayers(source, (db) => db.calleeEdges(id)).sort(bySite)
        : (source.jsonl?.edges ?? []).filter((e) => e.caller_id === id).sort(bySite);
  const p = page(all, limit, offset);
  // Callers may be in any language that can call the symbol: coverage counts their files.
  return {
    results: p.results,
    total: p.total,
    has_more: p.has_more,
    symbol_found: symbol !== null,
    coverage: coverageOf(source, { languages: symbol ? (op === "find_callers" ? callingLanguages(source, symbol.language) : [symbol.language]) : undefined }),
  };
}

/** The edges calling `id`: resolved calls, then unresolved calls of its name from the languages that can call it, each in site order. */
function callerEdgesOf(source: Source, id: string, symbol: SymbolResult | null): EdgeResult[] {
  const name = symbol?.name ?? id;
  const languages = callingLanguages(source, symbol?.language ?? null);
  if (source.dbs) {
    const all = fromLayers(source, (db) => db.callerEdges(id, name, languages));
    // Shards answer separately: resolved calls first, then the unresolved ones of the name, each in site order.
    return layers(source).length > 1 ? [...all.filter((e) => e.callee_id !== null).sort(bySite), ...all.filter((e) => e.callee_id === null).sort(bySite)] : all;
  }
  // JSONL records carry an edge's language through its caller's symbol.
  const languageOf = new Map((source.jsonl?.symbols ?? []).map((s) => [s.symbol_id, s.language]));
  const inLanguages = (e: EdgeResult) => languages.includes(languageOf.get(e.caller_id) ?? "");
  const edges = source.jsonl?.edges ?? [];
  return edges
    .filter((e) => e.callee_id === id)
    .sort(bySite)
    .concat(edges.filter((e) => e.callee_id === null && e.edge_kind === "unresolved" && e.callee_name === name && inLanguages(e)).sort(bySite));
}

/** get_function_boundary: the innermost boundary enclosing a file's line (all nulls when none does). */
function functionBoundary(source: Source, a: Record<string, unknown>): Record<string, unknown> {
  const file = stringArg(a, "file", true)!;
  const line = intArg(a, "line", 0, 1, Number.MAX_SAFE_INTEGER);
  if (a.line === undefined || a.line === null) throw new MastError("INVALID_ARGUMENT", "line is required");
  const found = innermostAt(source, file, line);
  const coverage = coverageOf(source, { file });
  return found
    ? {
        symbol_id: found.symbol_id,
        name: found.name,
        file_path: found.file_path,
        start_line: found.start_line,
        end_line: found.end_line,
        signature: found.signature,
        language: found.language,
        precision: found.precision,
        backend: found.backend,
        coverage,
      }
    : { symbol_id: null, name: null, file_path: file, start_line: null, end_line: null, signature: null, language: null, precision: null, backend: null, coverage };
}

/** The shortest boundary enclosing `line` of `file` across the layers (a baseline's superseded files skipped), or the JSONL's. */
function innermostAt(source: Source, file: string, line: number): BoundaryResult | null {
  let found: BoundaryResult | null = null;
  if (source.dbs) {
    for (const { db, superseded } of layers(source)) {
      if (superseded?.has(file)) continue;
      const b = db.innermostBoundary(file, line);
      if (b && (!found || b.end_line - b.start_line < found.end_line - found.start_line)) found = b;
    }
  } else {
    for (const b of source.jsonl?.boundaries ?? [])
      if (
        b.file_path === file &&
        b.start_line <= line &&
        b.end_line >= line &&
        (!found || b.end_line - b.start_line < found.end_line - found.start_line || (b.end_line - b.start_line === found.end_line - found.start_line && b.start_line > found.start_line))
      )
        found = b;
  }
  return found;
}

/** get_coverage: the counts for a file or language (or the whole index), with the build's status. */
function coverageAnswer(source: Source, a: Record<string, unknown>): Record<string, unknown> {
  const language = stringArg(a, "language", false);
  const c = coverageOf(source, { file: stringArg(a, "file", false), languages: language === undefined ? undefined : [language] });
  return {
    total_files: c.total_files,
    indexed_files: c.indexed_files,
    failed: c.failed,
    deferred: c.deferred,
    partition_status: c.partition_status,
    backends_used: c.backends_used,
    snapshot_id: c.snapshot_id,
    stale: c.stale,
    status: source.manifest?.status ?? c.partition_status,
  };
}

/** One operation over the local index at `layout`. */
export function queryLocal(layout: StructuralLayout, op: string, args: unknown): Record<string, unknown> {
  const a = checkArgs(op, args);
  const source = openSource(layout);
  try {
    return run(source, op as StructuralOperation, a);
  } finally {
    closeSource(source);
  }
}

/** The remote provider's URL: MANTIS_STRUCTURAL_INDEX_URL, else a `remote` manifest's `provider.catalog`. */
export function remoteUrl(layout: StructuralLayout): string | null {
  const env = process.env.MANTIS_STRUCTURAL_INDEX_URL?.trim();
  if (env) return env;
  const m = readManifest(layout);
  return m?.provider.kind === "remote" && /^https?:\/\//.test(m.provider.catalog) ? m.provider.catalog : null;
}

/** One operation, answered by the remote provider when one is configured, else locally. */
export async function queryStructural(layout: StructuralLayout, op: string, args: unknown): Promise<Record<string, unknown>> {
  const url = remoteUrl(layout);
  if (url === null) return queryLocal(layout, op, args);
  checkArgs(op, args);
  let response: Response;
  try {
    response = await fetch(`${url.replace(/\/+$/, "")}/v1/${op}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(args), signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new MastError("READ_FAILED", `the structural index at ${url} did not answer: ${(err as Error).message}`, {
      hint: "Check MANTIS_STRUCTURAL_INDEX_URL and that `mast structural serve` runs there; unset it to query the local index.",
    });
  }
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (!response.ok || body === null) {
    const error = (body?.error ?? {}) as { code?: string; message?: string };
    throw new MastError(error.code === "INVALID_ARGUMENT" ? "INVALID_ARGUMENT" : "READ_FAILED", `the structural index at ${url} answered ${response.status}: ${error.message ?? "no JSON body"}`);
  }
  return body;
}
