// A file's link face: what the linker (index/link.ts) reads of a file when it resolves names in
// *other* files — its symbols' names, kinds, parents, re-export markers, export aliases, return
// types, exported flags and signatures, its imports (module, names, local bindings, kind), its
// heritage clauses, and the order each is read in (first declaration by line). A rewrite keeps the
// rows (and ids) of the symbols it still declares (store/file-rows.ts replaceFileRows), so the edges other
// files hold into them stand: one that moved no name's face (an edit inside a body, a comment) is
// relinked alone (docs/decisions.md, "A body edit relinks its own file"), and in Go one that moved
// names with the files writing them (index/mention-reach.ts).
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

/** A stored import row as the face compares it (`symbols` and `boundAs` as store/file-rows.ts writes them). */
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
  return heritage.flatMap((h) => [
    ...(h.extends ? [{ className: h.className, relation: "extends", target: h.extends }] : []),
    ...h.implements.map((target) => ({ className: h.className, relation: "implements", target })),
  ]);
}

/** How an import's names and local bindings are stored: the names as JSON, the bindings only where they differ. */
export function importNamesColumns(names: readonly string[], locals: readonly string[]): { symbols: string; boundAs: string | null } {
  const symbols = JSON.stringify(names);
  const bound = JSON.stringify(locals);
  return { symbols, boundAs: bound === symbols ? null : bound };
}

/** How a rewrite's symbols match the rows a file has: the row each keeps, and the names whose face moved. */
export interface LinkFaceMatch {
  /** For each extracted symbol, in order, the stored symbol (by its index in id order) whose row and id it keeps; null for a new one. */
  readonly keeps: ReadonlyArray<number | null>;
  /**
   * The names whose face moved: those of symbols gone, new, or read otherwise (re-export, alias, return type, export, signature, or their order by line among
   * the declarations of their name). Empty: the face held.
   */
  readonly changedNames: ReadonlySet<string>;
}

/**
 * How an extraction's link face compares with the stored rows': null when its imports or
 * heritage read otherwise, or when keeping the ids would order a name's declarations otherwise
 * than a fresh build (the file is written anew); else each symbol matched to the stored one of the
 * same name, kind and parent (the n-th of that key to the n-th), and the names whose face moved.
 */
export function matchLinkFace(
  stored: { readonly symbols: readonly LinkFaceSymbol[]; readonly signatures: readonly (string | null)[]; readonly imports: readonly LinkFaceImport[]; readonly heritage: readonly LinkFaceHeritage[] },
  extraction: FileExtraction,
): LinkFaceMatch | null {
  const { symbols, imports } = extraction;
  if (imports.length !== stored.imports.length) return null;
  for (let i = 0; i < imports.length; i++) {
    const im = imports[i]!;
    const r = stored.imports[i]!;
    const columns = importNamesColumns(im.names, im.locals);
    if (im.module !== r.module || im.kind !== r.kind || columns.symbols !== r.symbols || columns.boundAs !== r.boundAs) return null;
  }
  // The linker reads a file's imports by line (of two bindings of a name, the order decides).
  if (
    !sameLineOrder(
      imports.map((im) => im.line),
      stored.imports.map((r) => r.line),
    )
  )
    return null;
  const heritage = heritageRowsOf(extraction.heritage);
  if (
    heritage.length !== stored.heritage.length ||
    heritage.some((h, i) => h.className !== stored.heritage[i]!.className || h.relation !== stored.heritage[i]!.relation || h.target !== stored.heritage[i]!.target)
  )
    return null;

  const key = (name: string, kind: string, parent: string | null) => `${kind}\0${parent ?? ""}\0${name}`;
  const storedByKey = new Map<string, number[]>();
  stored.symbols.forEach((r, j) => {
    const k = key(r.name, r.kind, r.parent);
    const list = storedByKey.get(k);
    if (list) list.push(j);
    else storedByKey.set(k, [j]);
  });
  const taken = new Map<string, number>();
  const keeps = symbols.map((s) => {
    const k = key(s.name, s.kind, s.parent);
    const n = taken.get(k) ?? 0;
    taken.set(k, n + 1);
    return storedByKey.get(k)?.[n] ?? null;
  });
  const changed = new Set<string>();
  const change = (name: string) => void changed.add(name);
  const kept = new Set<number>();
  symbols.forEach((s, i) => {
    const j = keeps[i];
    if (j === null || j === undefined) return change(s.name);
    kept.add(j);
    const r = stored.symbols[j]!;
    if (
      (s.reExport?.module ?? null) !== r.module ||
      (s.reExport?.importedName ?? null) !== r.imported ||
      s.aliasOf !== r.aliasOf ||
      s.returnType !== r.returnType ||
      (s.isExported ? 1 : 0) !== r.exported ||
      s.signature !== stored.signatures[j]
    )
      change(s.name);
  });
  stored.symbols.forEach((r, j) => {
    if (!kept.has(j)) change(r.name);
  });
  // Of a name's declarations the first by line wins (ties by id): the kept ones must keep their
  // order, and the store's order of the new text must be a fresh build's (ids in write order).
  const byName = new Map<string, number[]>();
  symbols.forEach((s, i) => {
    const list = byName.get(s.name);
    if (list) list.push(i);
    else byName.set(s.name, [i]);
  });
  for (const [name, list] of byName) {
    if (list.length < 2) continue;
    // The id a symbol will have: a kept row's, else one past every kept id, in write order.
    const id = (i: number) => (keeps[i] === null ? Number.MAX_SAFE_INTEGER - symbols.length + i : stored.symbols[keeps[i]!]!.id);
    const fresh = [...list].sort((a, b) => symbols[a]!.line - symbols[b]!.line || a - b);
    const kept = [...list].sort((a, b) => symbols[a]!.line - symbols[b]!.line || id(a) - id(b));
    if (fresh.some((i, k) => i !== kept[k])) return null;
    const keptBefore = list.filter((i) => keeps[i] !== null);
    const before = [...keptBefore].sort((a, b) => stored.symbols[keeps[a]!]!.line - stored.symbols[keeps[b]!]!.line || id(a) - id(b));
    const now = [...keptBefore].sort((a, b) => symbols[a]!.line - symbols[b]!.line || a - b);
    if (before.some((i, k) => i !== now[k])) change(name);
  }
  return { keeps, changedNames: changed };
}

/** Whether two lists of lines, each in write order, sort (stably, by line) into the same permutation. */
function sameLineOrder(now: readonly number[], before: readonly number[]): boolean {
  const order = (lines: readonly number[]) =>
    lines
      .map((line, i) => [line, i] as const)
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .map(([, i]) => i);
  const a = order(now);
  const b = order(before);
  return a.every((v, i) => v === b[i]);
}
