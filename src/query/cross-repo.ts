// Calls from one repository into a package another provides (docs/organisation.md
// #cross-repository-callers), in two steps over two indexes. On the providing side, `providedAs`:
// the import paths a declaration is reached by, from the packages the index's publish recorded
// (resolve/packages.ts importPathsInto says which, by ecosystem) — verified where the path
// resolves to exactly this declaration, which for a package entry this index checks by following
// the entry file's exports and re-exports. On the importing side,
// `importedCallSites`: the files importing the name from such a path (an import the importing
// index left unresolved: external to it) and their call sites of it — `local()` for a named
// import, `ns.name()` through a namespace — read from each file's call rows.
import { importNames, importPathsInto, type ImportPath, type PackageIdentity } from "../resolve/packages.js";
import { unstoredCalls } from "../store/call-rows.js";
import { PACKAGES_META, prepared, type Db } from "../store/db.js";
import { resolveThroughReExports } from "./navigation.js";
import type { SourceLines } from "./source.js";

/** The packages the index's publish recorded; none for an index that was never published. */
export function providedPackages(db: Db): PackageIdentity[] {
  const raw = prepared(db, "SELECT value FROM meta WHERE key = ?").pluck().get(PACKAGES_META) as string | undefined;
  if (raw === undefined) return [];
  try {
    const list = JSON.parse(raw) as unknown;
    return Array.isArray(list) ? list.filter((p): p is PackageIdentity => typeof p?.name === "string" && typeof p?.dir === "string" && typeof p?.ecosystem === "string") : [];
  } catch {
    return [];
  }
}

/** The import paths from which other repositories reach the declaration of `name` at `file`:`line`. */
export function providedAs(db: Db, decl: { file_path: string; line: number }, name: string): ImportPath[] {
  // A member is called through a value, never imported by name.
  if (name.includes(".")) return [];
  const idOf = (file: string) => prepared(db, "SELECT id FROM files WHERE path = ?").pluck().get(file) as number | undefined;
  const leadsHere = (file: string) => {
    const id = idOf(file);
    const found = id === undefined ? null : resolveThroughReExports(db, id, name, new Set());
    return found !== null && found.path === decl.file_path && found.line === decl.line;
  };
  return providedPackages(db).flatMap((p) => importPathsInto(p, decl.file_path, name, { has: (file) => idOf(file) !== undefined, leadsHere }));
}

/** One importing file's call sites of the declaration, each "LINE CALLER: text" ("LINE: text" at top level). */
export interface ImportedSites {
  readonly file_path: string;
  readonly verified: boolean;
  readonly sites: string[];
}

/** A JSON list of strings from a row (an unreadable one: none). */
function names(json: string): string[] {
  try {
    const list = JSON.parse(json) as unknown;
    return Array.isArray(list) ? list.map((v) => (typeof v === "string" ? v : "")) : [];
  } catch {
    return [];
  }
}

/**
 * The call sites, in this index, of `name` imported through one of `paths` (an external import),
 * by file in path order — a file's sites through a verified path apart from its other ones: each
 * site is as sure as the import of the binding it calls.
 */
export function importedCallSites(db: Db, source: SourceLines, paths: readonly ImportPath[], name: string): ImportedSites[] {
  if (paths.length === 0) return [];
  // Only the imports of these paths' modules are read (a module starting with a path's module: importNames decides).
  const starts = [...new Set(paths.map((p) => p.module))];
  const rows = prepared(
    db,
    `SELECT i.file_id AS fileId, f.path, i.module, i.symbols, i.locals FROM imports i JOIN files f ON f.id = i.file_id
      WHERE i.is_external = 1 AND EXISTS (SELECT 1 FROM json_each(?) m WHERE substr(i.module, 1, length(m.value)) = m.value) ORDER BY f.path, i.line, i.id`,
  ).all(JSON.stringify(starts)) as Array<{ fileId: number; path: string; module: string; symbols: string; locals: string }>;
  // Per file, each local binding of the name (bare) or of the package (namespace), and whether its import is verified.
  const byFile = new Map<number, { path: string; bare: Map<string, boolean>; namespaces: Map<string, boolean> }>();
  for (const r of rows) {
    const path = paths.find((p) => importNames(p, r.module));
    if (path === undefined) continue;
    const locals = names(r.locals);
    const file = byFile.get(r.fileId) ?? { path: r.path, bare: new Map<string, boolean>(), namespaces: new Map<string, boolean>() };
    names(r.symbols).forEach((s, i) => {
      const local = locals[i] || s;
      const into = s === name ? file.bare : s === "*" ? file.namespaces : null;
      if (into !== null) into.set(local, (into.get(local) ?? false) || path.verified);
    });
    if (file.bare.size > 0 || file.namespaces.size > 0) byFile.set(r.fileId, file);
  }
  const callsOf = prepared(db, "SELECT calls FROM file_calls WHERE file_id = ?").pluck();
  const out: ImportedSites[] = [];
  for (const [fileId, f] of byFile) {
    const packed = callsOf.get(fileId) as Uint8Array | undefined;
    if (packed === undefined) continue;
    const lines = new Map<number, { caller: string | null; verified: boolean }>();
    for (const c of unstoredCalls(fileId, packed)) {
      const sure = c.receiver === "bare" ? f.bare.get(c.callee) : c.receiver === "namespace" && c.callee === name && c.receiverName !== null ? f.namespaces.get(c.receiverName) : undefined;
      if (sure !== undefined) lines.set(c.line, { caller: c.caller, verified: (lines.get(c.line)?.verified ?? false) || sure });
    }
    for (const verified of [true, false]) {
      const sites = [...lines].filter(([, s]) => s.verified === verified).map(([line, s]) => `${line}${s.caller === null ? "" : ` ${s.caller}`}: ${(source.line(f.path, line) ?? "").trim()}`);
      if (sites.length > 0) out.push({ file_path: f.path, verified, sites });
    }
  }
  return out;
}
