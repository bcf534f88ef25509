// The TypeScript/JavaScript export pass (pass 2 of docs/extraction.md#exports-the-two-pass-walk): after
// every top-level declaration is known, `export { a, b as c }`, `export default name`, `export =
// name` and `export … from` settle which declarations are exported — an alias gets a mirror chunk
// and symbol, a name re-exported from another module a marker symbol.
import type { ChunkDraft } from "./chunking.js";
import { exportSpecifiers, stringValue } from "./es-nodes.js";
import type { SyntaxNode } from "./flat-tree.js";
import type { ImportBinding } from "./ts-imports.js";
import { symbolRecord, type SymbolRecord } from "./types.js";

export type Draft = { -readonly [K in keyof ChunkDraft]: ChunkDraft[K] };
export type Sym = { -readonly [K in keyof SymbolRecord]: SymbolRecord[K] };

export interface Member {
  draft: Draft | null;
  symbol: Sym;
  isPrivate: boolean;
}

/** A top-level declared name, kept mutable until the export pass has settled exportedness. */
export interface Decl {
  name: string;
  draft: Draft;
  symbol: Sym;
  members: Member[];
}

/** What the export pass reads and extends: the declarations by name, the import bindings, and the file's drafts, symbols and bag exclusions. */
export interface ExportTable {
  readonly decls: ReadonlyMap<string, readonly Decl[]>;
  readonly importBindings: ReadonlyMap<string, ImportBinding>;
  readonly drafts: Draft[];
  readonly symbols: Sym[];
  readonly bagExclusions: Map<ChunkDraft, Array<[number, number]>>;
}

export function applyExportClauses(statements: readonly SyntaxNode[], table: ExportTable): void {
  for (const stmt of statements) {
    const source = stmt.childForFieldName("source");
    const value = stmt.childForFieldName("value");
    if (source) {
      const module = stringValue(source);
      const clause = stmt.namedChildren.find((c) => c.type === "export_clause");
      const specs = clause ? exportSpecifiers(clause) : [];
      for (const spec of specs) addMarker(table, stmt, spec.exported, { module, importedName: spec.local }, spec.local, specs.length);
      const ns = stmt.namedChildren.find((c) => c.type === "namespace_export");
      if (ns) addMarker(table, stmt, ns.namedChildren[0]?.text ?? ns.text.replace(/^\*\s*as\s*/, ""), { module, importedName: "*" }, null, 1);
      continue;
    }
    if (value?.type === "identifier") {
      markExported(table, value.text);
      continue;
    }
    const clause = stmt.namedChildren.find((c) => c.type === "export_clause");
    if (clause) {
      const specs = exportSpecifiers(clause);
      for (const spec of specs) exportLocal(table, stmt, spec.local, spec.exported, specs.length);
      continue;
    }
    // `export = name` (TypeScript)
    const target = stmt.namedChildren.find((c) => c.type === "identifier");
    if (target) markExported(table, target.text);
  }
}

function exportLocal(table: ExportTable, stmt: SyntaxNode, local: string, exported: string, names: number): void {
  const decls = table.decls.get(local);
  if (!decls) {
    const binding = table.importBindings.get(local);
    if (binding) addMarker(table, stmt, exported, binding, local, names);
    return;
  }
  if (exported === local || exported === "default") {
    markExported(table, local);
    return;
  }
  // A local alias: a mirror chunk and symbol under the exported name; the local name stays
  // unexported, but a class's public members are reachable through the alias, so they are exported.
  for (const d of decls) {
    for (const m of d.members) {
      if (m.isPrivate) continue;
      if (m.draft) m.draft.isExported = true;
      m.symbol.isExported = true;
    }
    const mirror: Draft = { ...d.draft, symbolName: exported, isExported: true, mirror: true };
    table.drafts.push(mirror);
    const exclusions = table.bagExclusions.get(d.draft);
    if (exclusions) table.bagExclusions.set(mirror, exclusions);
    table.symbols.push({ ...d.symbol, name: exported, isExported: true, aliasOf: local });
  }
}

function markExported(table: ExportTable, name: string): void {
  for (const d of table.decls.get(name) ?? []) {
    d.draft.isExported = true;
    d.symbol.isExported = true;
    for (const m of d.members) {
      if (m.isPrivate) continue;
      if (m.draft) m.draft.isExported = true;
      m.symbol.isExported = true;
    }
  }
}

/** A marker for `name`, one of the `names` a statement exports; `local` is the name its clause gives (`q` in `export { q as r }`), null for `* as ns`. */
function addMarker(table: ExportTable, stmt: SyntaxNode, name: string, reExport: { module: string; importedName: string }, local: string | null, names: number): void {
  table.symbols.push(symbolRecord(name, "export", stmt.startPosition.row + 1, stmt.endPosition.row + 1, true, { signature: markerSignature(stmt, name, local, names), reExport }));
}

/**
 * A marker's signature: the statement when it is one line exporting this name alone, else the
 * part of it that exports this name (`export type {\n  A,\n  B,\n} from './x'` → `export type { A }
 * from './x';`, `export { q as r, Def };` → `export { q as r };`): a statement of n names gives n
 * signatures of one name each, not n copies of itself (a generated one-line barrel of 367 types
 * stored 4 MB of signatures).
 */
function markerSignature(stmt: SyntaxNode, name: string, local: string | null, names: number): string {
  const text = stmt.text;
  if (names === 1 && !text.includes("\n")) return text;
  const head = /^export\s+type\b/.test(text) ? "export type" : "export";
  const what = local === null ? `* as ${name}` : `{ ${local === name ? name : `${local} as ${name}`} }`;
  const source = stmt.childForFieldName("source");
  return source ? `${head} ${what} from ${source.text};` : `${head} ${what};`;
}
