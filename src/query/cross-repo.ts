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
import { prepared, type Db } from "../store/db.js";
import { resolveThroughReExports } from "./navigation.js";
import type { SourceLines } from "./source.js";

/** The index meta key its publish kept the project's packages under (store/pg/publish.ts PACKAGES_META). */
const PACKAGES_META = "packages";

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
  const entryLeadsHere = (entry: string) => {
    const id = prepared(db, "SELECT id FROM files WHERE path = ?").pluck().get(entry) as number | undefined;
    const found = id === undefined ? null : resolveThroughReExports(db, id, name, new Set());
    return found !== null && found.path === decl.file_path && found.line === decl.line;
  };
  return providedPackages(db).flatMap((p) => importPathsInto(p, decl.file_path, name, entryLeadsHere));
}

/** One importing file's call sites of the declaration, each "LINE CALLER: text" ("LINE: text" at top level). */
export interface ImportedSites {
  readonly file_path: string;
  readonly verified: boolean;
  readonly sites: string[];
}

/** The call sites, in this index, of `name` imported through one of `paths` (an external import), by file in path order. */
export function importedCallSites(db: Db, source: SourceLines, paths: readonly ImportPath[], name: string): ImportedSites[] {
  if (paths.length === 0) return [];
  const rows = prepared(
    db,
    "SELECT i.file_id AS fileId, f.path, i.module, i.symbols, i.locals FROM imports i JOIN files f ON f.id = i.file_id WHERE i.is_external = 1 ORDER BY f.path, i.line, i.id",
  ).all() as Array<{ fileId: number; path: string; module: string; symbols: string; locals: string }>;
  const byFile = new Map<number, { path: string; verified: boolean; bare: Set<string>; namespaces: Set<string> }>();
  for (const r of rows) {
    const path = paths.find((p) => importNames(p, r.module));
    if (path === undefined) continue;
    const symbols = JSON.parse(r.symbols) as string[];
    const locals = JSON.parse(r.locals) as string[];
    const file = byFile.get(r.fileId) ?? { path: r.path, verified: false, bare: new Set<string>(), namespaces: new Set<string>() };
    symbols.forEach((s, i) => {
      const local = locals[i] ?? s;
      if (s === name) file.bare.add(local);
      else if (s === "*") file.namespaces.add(local);
      else return;
      file.verified ||= path.verified;
    });
    if (file.bare.size > 0 || file.namespaces.size > 0) byFile.set(r.fileId, file);
  }
  const callsOf = prepared(db, "SELECT calls FROM file_calls WHERE file_id = ?").pluck();
  const out: ImportedSites[] = [];
  for (const [fileId, f] of byFile) {
    const packed = callsOf.get(fileId) as Uint8Array | undefined;
    if (packed === undefined) continue;
    const lines = new Map<number, string | null>();
    for (const c of unstoredCalls(fileId, packed)) {
      const bare = c.receiver === "bare" && f.bare.has(c.callee);
      const viaNamespace = c.receiver === "namespace" && c.callee === name && c.receiverName !== null && f.namespaces.has(c.receiverName);
      if ((bare || viaNamespace) && !lines.has(c.line)) lines.set(c.line, c.caller);
    }
    if (lines.size === 0) continue;
    const sites = [...lines].map(([line, caller]) => `${line}${caller === null ? "" : ` ${caller}`}: ${(source.line(f.path, line) ?? "").trim()}`);
    out.push({ file_path: f.path, verified: f.verified, sites });
  }
  return out;
}
