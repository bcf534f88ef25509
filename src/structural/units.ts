// Semantic units (docs/structural.md#units-and-keys): what one unit's output holds,
// its content-addressed cache key (never the snapshot id), the fallback symbol ids, and the unit
// store under units/ab/cd/<key> — immutable outputs, written once, validated when read back.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeAtomic } from "../base/atomic.js";
import { sha256 } from "../base/hash.js";
import type { CatalogEdge, CatalogSymbol, Precision } from "../store/catalog.js";

/** Bumped when a unit's output format changes: part of every cache key. */
export const UNIT_SCHEMA_VERSION = 1;

/** A declaration as a unit holds it: the catalog's columns the unit decides, and whether it has a function boundary (functions, methods). */
export type UnitSymbol = Pick<CatalogSymbol, "symbol_id" | "name" | "qualified_name" | "namespace" | "language" | "file_path" | "start_line" | "end_line" | "kind" | "signature"> & {
  readonly boundary: boolean;
};

/** A call edge as a unit holds it (the catalog adds its partition, layer and backend). */
export type UnitEdge = Pick<CatalogEdge, "caller_id" | "callee_id" | "callee_name" | "file_path" | "line" | "edge_kind" | "precision">;

export interface UnitFile {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
  /** `failed`: the backend could not read or parse it (it keeps no rows). */
  readonly status: "indexed" | "failed";
}

export interface UnitOutput {
  readonly unit_schema: number;
  readonly unit_id: string;
  readonly cache_key: string;
  readonly language: string;
  readonly backend: string;
  readonly backend_version: string;
  readonly precision: Precision;
  readonly files: readonly UnitFile[];
  readonly symbols: readonly UnitSymbol[];
  readonly edges: readonly UnitEdge[];
}

export interface CacheKeyParts {
  readonly extractor: string;
  readonly extractorVersion: string;
  readonly language: string;
  /** The compile context's digest (a tsconfig, the resolver's config fingerprint); "" for none. */
  readonly compileContext: string;
  /** The unit's inputs in path order: each file's path and content digest (an output names its files, so two files of equal bytes are two units). */
  readonly inputs: readonly (readonly [path: string, digest: string])[];
  /** What the output depends on outside the unit (the declarations its edges resolve to); "" for none. */
  readonly dependency: string;
}

/** sha256 over the schema version, extractor@version, language, compile context, the inputs' paths and digests, and the dependency digest. */
export function unitCacheKey(p: CacheKeyParts): string {
  return sha256(JSON.stringify([UNIT_SCHEMA_VERSION, `${p.extractor}@${p.extractorVersion}`, p.language, p.compileContext, p.inputs, p.dependency]));
}

/** `fallback:{language}:{file_path}:{first 16 hex of sha256(qualified_name|start_line|signature)}`. */
export function fallbackSymbolId(language: string, filePath: string, qualifiedName: string, startLine: number, signature: string | null): string {
  return `fallback:${language}:${filePath}:${sha256(`${qualifiedName}|${startLine}|${signature ?? ""}`).slice(0, 16)}`;
}

/** `a.b.c` → `a.b`; "" at the top level. */
export function namespaceOf(qualifiedName: string): string {
  const dot = qualifiedName.lastIndexOf(".");
  return dot === -1 ? "" : qualifiedName.slice(0, dot);
}

/** units/ab/cd/<key>: immutable, content-addressed outputs. */
export class UnitStore {
  constructor(readonly dir: string) {}

  pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), key.slice(2, 4), key);
  }

  /** The stored output for `key`; null when absent or when it does not hold what its key names (never trusted then). */
  read(key: string): UnitOutput | null {
    const path = this.pathOf(key);
    if (!existsSync(path)) return null;
    try {
      const unit = JSON.parse(readFileSync(path, "utf8")) as UnitOutput;
      return unit.unit_schema === UNIT_SCHEMA_VERSION && unit.cache_key === key && Array.isArray(unit.symbols) && Array.isArray(unit.edges) && Array.isArray(unit.files) ? unit : null;
    } catch {
      return null;
    }
  }

  /** Whether an object is stored under `key` (not read: `read` validates it when it is used). */
  has(key: string): boolean {
    return existsSync(this.pathOf(key));
  }

  /** Stores an output under its key (atomically; a valid existing object is left as it is). */
  write(unit: UnitOutput): void {
    const path = this.pathOf(unit.cache_key);
    if (this.read(unit.cache_key) !== null) return;
    mkdirSync(dirname(path), { recursive: true });
    writeAtomic(path, Buffer.from(JSON.stringify(unit)));
  }
}
