// A file's link face: what the linker (index/link.ts) reads of a file when it resolves names in
// *other* files — its symbols' names, kinds, parents, re-export markers, export aliases, return
// types, exported flags and signatures, its imports (module, names, local bindings, kind), its
// heritage clauses, and the order each is read in (first declaration by line). A rewrite that
// leaves the face as it was (an edit inside a body, a comment) changes no other file's edges, so
// the writer keeps the file's symbol rows and their ids (store/db.ts replaceFileRows) and a run
// relinks that file alone (docs/decisions.md, "A body edit relinks its own file").
import type { ClassHeritage, FileExtraction } from "../syntax/types.js";

/** A stored symbol row as the face compares it, with its id and line. */
export interface LinkFaceSymbol {
  readonly id: number;
  readonly name: string;
  readonly kind: string;
  readonly parent: string | null;
  readonly module: string | null;
  readonly imported: string | null;
  readonly aliasOf: string | null;
  readonly returnType: string | null;
  readonly exported: number;
  readonly line: number;
}

/** A stored import row as the face compares it (`symbols` and `boundAs` as store/db.ts writes them). */
export interface LinkFaceImport {
  readonly id: number;
  readonly module: string;
  readonly symbols: string;
  readonly boundAs: string | null;
  readonly kind: string;
  readonly line: number;
}

export interface LinkFaceHeritage {
  readonly className: string;
  readonly relation: string;
  readonly target: string;
}

/** A file's heritage clauses as rows, in the order the heritage table keeps them. */
export function heritageRowsOf(heritage: readonly ClassHeritage[]): LinkFaceHeritage[] {
  return heritage.flatMap((h) => [...(h.extends ? [{ className: h.className, relation: "extends", target: h.extends }] : []), ...h.implements.map((target) => ({ className: h.className, relation: "implements", target }))]);
}

/** How an import's names and local bindings are stored: the names as JSON, the bindings only where they differ. */
export function importNamesColumns(names: readonly string[], locals: readonly string[]): { symbols: string; boundAs: string | null } {
  const symbols = JSON.stringify(names);
  const bound = JSON.stringify(locals);
  return { symbols, boundAs: bound === symbols ? null : bound };
}

/**
 * Whether an extraction has the link face the stored rows have: the same symbols, imports and
 * heritage rows, one for one in the order they were written (so each keeps its id), each the
 * same where the linker reads it, and read by line in the same order.
 */
export function linkFaceHolds(
  stored: { readonly symbols: readonly LinkFaceSymbol[]; readonly signatures: readonly (string | null)[]; readonly imports: readonly LinkFaceImport[]; readonly heritage: readonly LinkFaceHeritage[] },
  extraction: FileExtraction,
): boolean {
  const { symbols, imports } = extraction;
  if (symbols.length !== stored.symbols.length || imports.length !== stored.imports.length || stored.signatures.length !== symbols.length) return false;
  for (let i = 0; i < symbols.length; i++) {
    const s = symbols[i]!;
    const r = stored.symbols[i]!;
    if (
      s.name !== r.name ||
      s.kind !== r.kind ||
      s.parent !== r.parent ||
      (s.reExport?.module ?? null) !== r.module ||
      (s.reExport?.importedName ?? null) !== r.imported ||
      s.aliasOf !== r.aliasOf ||
      s.returnType !== r.returnType ||
      (s.isExported ? 1 : 0) !== r.exported ||
      s.signature !== stored.signatures[i]
    )
      return false;
  }
  for (let i = 0; i < imports.length; i++) {
    const im = imports[i]!;
    const r = stored.imports[i]!;
    const columns = importNamesColumns(im.names, im.locals);
    if (im.module !== r.module || im.kind !== r.kind || columns.symbols !== r.symbols || columns.boundAs !== r.boundAs) return false;
  }
  const heritage = heritageRowsOf(extraction.heritage);
  if (heritage.length !== stored.heritage.length || heritage.some((h, i) => h.className !== stored.heritage[i]!.className || h.relation !== stored.heritage[i]!.relation || h.target !== stored.heritage[i]!.target)) return false;
  // The linker reads a file's symbols and imports by line (the first declaration of a name wins).
  return sameLineOrder(symbols.map((s) => s.line), stored.symbols.map((r) => r.line)) && sameLineOrder(imports.map((im) => im.line), stored.imports.map((r) => r.line));
}

/** Whether two lists of lines, each in write order, sort (stably, by line) into the same permutation. */
function sameLineOrder(now: readonly number[], before: readonly number[]): boolean {
  const order = (lines: readonly number[]) => lines.map((line, i) => [line, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, i]) => i);
  const a = order(now);
  const b = order(before);
  return a.every((v, i) => v === b[i]);
}
