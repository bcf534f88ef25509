// The declarations a query names (mast_callers, mast_graph, mast_references, the rename plan): a
// name or `Owner.member` with its overloads, aliases and barrel re-exports — in a language that
// declares functions apart from their definitions, the one definition first — and did-you-mean.
import { boundedDistance, collapseWhitespace } from "../base/text.js";
import { extensionInfo, withoutCommentLines } from "../lang/languages.js";
import { prepared, symbolTextReader, type Db } from "../store/db.js";
import { declaredName, namesEndingWith, requireIndexedFile, resolveThroughReExports, sourceFirst } from "./navigation.js";
import { EDGE } from "../store/edge-codes.js";

interface DeclarationRow {
  id: number;
  name: string;
  kind: string;
  file_id: number;
  path: string;
  line: number;
  is_exported: number;
}

export interface DeclarationSite {
  file_path: string;
  line: number;
  kind: string;
  is_exported: boolean;
}

export interface Target {
  /** Every declaration of the name (in `file_path` when given), the one answered for first. */
  readonly sites: DeclarationRow[];
  /**
   * The ids edges to the first declaration point to: it, its overloads (same name, same file) and
   * its export aliases (`export { local as alias }` copies the declaration under the alias).
   */
  readonly ids: number[];
  /** Every name the declaration is called by: its own and its aliases, local and re-exported. */
  readonly names: string[];
}

/**
 * Whether the index may hold a declaration `query` names: one named it, or its last segment, or
 * whose last segment that is (every declaration a query resolves to — itself, an alias's member,
 * an inherited member, a qualified name ending in it — is one of these). False proves the answer
 * is not_found: a server over many repositories asks only those where it is true.
 */
export function mayDeclare(db: Db, query: string): boolean {
  const symbol = query.replaceAll("::", ".");
  const last = symbol.slice(symbol.lastIndexOf(".") + 1);
  return prepared(db, "SELECT 1 FROM symbols WHERE name = ? OR name = ? OR tail = ? LIMIT 1").get(symbol, last, last) !== undefined;
}

/** Did-you-mean candidates offered with `not_found`. */
export const MAX_DID_YOU_MEAN = 5;

/**
 * What a graph or signature answer says when no declaration has the name: `not_found: true` and
 * up to five declared names it may have meant — the same name in another case first, then by
 * edit distance (at most a third of the name, at least 2), ties by case-sensitive distance, then
 * by name. An empty success would
 * read as "no callers".
 */
export function notFound(db: Db, symbol: string): { not_found: true; did_you_mean: string[] } {
  const names = prepared(db, "SELECT DISTINCT name FROM symbols WHERE kind != 'export'").pluck().all() as string[];
  const lower = symbol.toLowerCase();
  const limit = Math.max(2, Math.floor(symbol.length / 3));
  const scored = names
    .map((name) => ({ name, d: name.toLowerCase() === lower ? -1 : boundedDistance(lower, name.toLowerCase(), limit) }))
    .filter((x) => x.d <= limit)
    .map((x) => ({ ...x, exact: boundedDistance(symbol, x.name, symbol.length + x.name.length) }))
    .sort((a, b) => a.d - b.d || a.exact - b.exact || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Declarations the name names without its owners (`route` → `Sinatra.Base.route`) come first.
  const qualified = namesEndingWith(db, symbol);
  const rest = scored.map((x) => x.name).filter((n) => !qualified.includes(n));
  return { not_found: true, did_you_mean: [...qualified, ...rest].slice(0, MAX_DID_YOU_MEAN) };
}

/**
 * The declarations a query names: `symbol` (a name, or `Class.method`) everywhere — exported first,
 * then by path — or in `filePath`, following a barrel's re-exports to the declaration.
 */
export function findTarget(db: Db, query: string, filePath: string | null): Target {
  const file = filePath === null ? null : requireIndexedFile(db, filePath);
  const symbol = declaredName(db, query);
  let sites = prepared(
    db,
    `SELECT s.id, s.name, s.kind, s.file_id, f.path, s.line, s.is_exported FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE s.name = ? AND s.kind != 'export' ${file ? "AND s.file_id = ?" : ""}
       ORDER BY s.is_exported DESC, f.path, s.line, s.id`,
  ).all(...(file ? [symbol, file.id] : [symbol])) as DeclarationRow[];
  if (sites.length === 0 && file) {
    const found = resolveThroughReExports(db, file.id, symbol, new Set());
    sites = found ? [{ id: found.id, name: found.name, kind: found.kind, file_id: found.file_id, path: found.path, line: found.line, is_exported: found.is_exported }] : [];
  }
  // In a file, a name without its owners is the declaration there that it ends (`reset` for a
  // nested `dedupeLink.reset`), the first by line when several do.
  if (sites.length === 0 && file && !symbol.includes(".")) {
    sites = prepared(
      db,
      `SELECT s.id, s.name, s.kind, s.file_id, f.path, s.line, s.is_exported FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE s.file_id = ? AND s.kind != 'export' AND s.name IN (SELECT value FROM json_each(?))
       ORDER BY s.line, s.id`,
    ).all(file.id, JSON.stringify(namesEndingWith(db, symbol, file.id))) as DeclarationRow[];
  }
  if (!file) sites = definitionFirst(db, sourceFirst(sites));
  const first = sites[0];
  if (!first) return { sites, ids: [], names: [symbol] };
  const group = prepared(
    db,
    `SELECT s.id, s.name FROM symbols s JOIN symbols d ON d.id = ?
       WHERE s.file_id = d.file_id AND s.kind = d.kind
         AND (s.name = d.name OR s.name = coalesce(d.alias_of, d.name) OR s.alias_of = coalesce(d.alias_of, d.name))
       ORDER BY s.line, s.id`,
  ).all(first.id) as Array<{ id: number; name: string }>;
  const ids = group.map((g) => g.id);
  // A C/C++ definition answers for the prototypes that declare it elsewhere (a header's): calls the
  // linker tied to a prototype are calls of the definition.
  if (sites.length > 1 && declaredElsewhere(first))
    ids.push(...sites.filter((s) => s.file_id !== first.file_id && s.kind === first.kind && declaredElsewhere(s) && !hasBody(db, s.id)).map((s) => s.id));
  // Every file that exports it (its own, named and star barrels) under the name it exports it as,
  // and the local names imports give it there (`import { cloneElement as cloneForDom }`).
  const exporters = [...group.map((g) => ({ path: first.path, as: g.name })), ...barrelExports(db, ids, first.file_id, first.name).map((b) => ({ path: b.file_path, as: b.exported_as }))];
  const importAliases = prepared(
    db,
    "SELECT i.symbols, i.locals FROM imports i WHERE i.resolved_file_id = (SELECT id FROM files WHERE path = ?) AND i.kind IN ('import', 'require') AND EXISTS (SELECT 1 FROM json_each(i.symbols) j WHERE j.value = ?)",
  ).raw();
  const names = new Set([first.name, ...exporters.map((e) => e.as)]);
  for (const e of exporters) {
    for (const [symbols, locals] of importAliases.all(e.path, e.as) as Array<[string, string]>) {
      const imported = JSON.parse(symbols) as string[];
      (JSON.parse(locals) as string[]).forEach((local, k) => {
        if (imported[k] === e.as) names.add(local);
      });
    }
  }
  return { sites, ids, names: [...names] };
}

/** Whether the site's language declares functions apart from their definitions (`LanguageSpec.declaredElsewhere`). */
function declaredElsewhere(site: DeclarationRow): boolean {
  return extensionInfo(site.path)?.spec.declaredElsewhere === true;
}

function hasBody(db: Db, id: number): boolean {
  return prepared(db, "SELECT has_body FROM symbols WHERE id = ?").pluck().get(id) === 1;
}

/**
 * The sites with, in a language that declares functions apart from their definitions, the one
 * definition first when the others are bodiless declarations of it (prototypes in headers): the
 * definition is what a caller runs. Several definitions (one per platform) leave the order as it is.
 */
function definitionFirst(db: Db, sites: DeclarationRow[]): DeclarationRow[] {
  if (sites.length < 2 || !sites.every(declaredElsewhere)) return sites;
  const defined = sites.filter((s) => hasBody(db, s.id));
  if (defined.length !== 1 || defined[0] === sites[0]) return sites;
  return [defined[0]!, ...sites.filter((s) => s !== defined[0])];
}

export function declarationSite(row: DeclarationRow): DeclarationSite {
  return { file_path: row.path, line: row.line, kind: row.kind, is_exported: row.is_exported === 1 };
}

/**
 * A declaration's signature on one line, without its comment lines (null when it has none): each
 * run of white space one space, none inside brackets' ends, no trailing comma before a closing one.
 */
export function declarationSignature(db: Db, row: DeclarationRow): string | null {
  const signature = symbolTextReader(db)(row.file_id, row.id).signature;
  if (signature === null) return null;
  return collapseWhitespace(withoutCommentLines(signature, row.path))
    .replace(/([([{]) /g, "$1")
    .replace(/,? ?([)\]}])/g, "$1");
}

export interface BarrelExport {
  file_path: string;
  /** The export statement's line; null for `export *` (a file-level re-export). */
  line: number | null;
  exported_as: string;
  via: "named" | "star";
}

/**
 * Files that re-export the target: `named` from RE_EXPORTS edges (the statement names it and must
 * be edited in a rename), then `star` from a walk up `re_export_files` from the declaring file and
 * from each named barrel (no edit needed, but consumers reach the symbol through them).
 */
export function barrelExports(db: Db, ids: readonly number[], declaringFileId: number, name: string): BarrelExport[] {
  if (ids.length === 0 || name.includes(".")) return [];
  const named = prepared(
    db,
    `SELECT m.name AS exported_as, f.path, m.line, m.file_id AS fileId FROM edges e JOIN symbols m ON m.id = e.from_id JOIN files f ON f.id = m.file_id
       WHERE e.to_id IN (SELECT value FROM json_each(?)) AND e.edge_type = ${EDGE.RE_EXPORTS} ORDER BY f.path, m.line`,
  ).all(JSON.stringify(ids)) as Array<{ exported_as: string; path: string; line: number; fileId: number }>;
  const out: BarrelExport[] = named.map((r) => ({ file_path: r.path, line: r.line, exported_as: r.exported_as, via: "named" }));
  const stars = prepared(db, "SELECT r.from_file_id AS id, f.path FROM re_export_files r JOIN files f ON f.id = r.from_file_id WHERE r.to_file_id = ? ORDER BY f.path");
  const seen = new Set<number>([declaringFileId, ...named.map((r) => r.fileId)]);
  const queue: Array<{ fileId: number; as: string }> = [{ fileId: declaringFileId, as: name }, ...named.map((r) => ({ fileId: r.fileId, as: r.exported_as }))];
  for (let i = 0; i < queue.length; i++) {
    const { fileId, as } = queue[i]!;
    for (const s of stars.all(fileId) as Array<{ id: number; path: string }>) {
      if (seen.has(s.id)) continue;
      seen.add(s.id);
      out.push({ file_path: s.path, line: null, exported_as: as, via: "star" });
      queue.push({ fileId: s.id, as });
    }
  }
  return out;
}
