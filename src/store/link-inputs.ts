// The reads the call-graph derivation (index/link.ts) runs over the store: per-file symbols,
// import bindings, class heritage and call sites, for some files (their ids) or for all (null),
// and the set of files a change can reach. Pure reads; the derivation's writes are store/derived-rows.ts's.
import { unstoredCalls, type CallRow } from "./call-rows.js";
import { prepared, symbolTextsOf, type Db } from "./db.js";

export type { CallRow } from "./call-rows.js";

/** Restricts a query to the given file ids (`column IN (...)`), or to nothing when every file is read. */
function only(fileIds: readonly number[] | null, column: string, joiner: "WHERE" | "AND" = "WHERE"): { sql: string; args: string[] } {
  return fileIds === null ? { sql: "", args: [] } : { sql: ` ${joiner} ${column} IN (SELECT value FROM json_each(?))`, args: [JSON.stringify(fileIds)] };
}

export interface SymbolFactRow {
  id: number;
  name: string;
  kind: string;
  fileId: number;
  module: string | null;
  imported: string | null;
  aliasOf: string | null;
  returnType: string | null;
  parent: string | null;
}

export interface ImportFactRow {
  fileId: number;
  module: string;
  symbols: string;
  locals: string;
  kind: string;
  target: number | null;
}

export interface HeritageRow {
  fileId: number;
  className: string;
  relation: string;
  target: string;
}

/** The project files the given files import from (resolved imports). */
export function importedFileIds(db: Db, fileIds: readonly number[]): number[] {
  return prepared(db, "SELECT DISTINCT i.resolved_file_id FROM imports i WHERE i.file_id IN (SELECT value FROM json_each(?)) AND i.resolved_file_id IS NOT NULL")
    .pluck()
    .all(JSON.stringify(fileIds)) as number[];
}

export interface FileRow {
  id: number;
  path: string;
  language: string;
}

export function fileRows(db: Db, fileIds: readonly number[] | null): FileRow[] {
  const w = only(fileIds, "id");
  return prepared(db, `SELECT id, path, language FROM files${w.sql}`).all(...w.args) as FileRow[];
}

/** The ids of the indexed files among the given paths, in the paths' order. */
export function fileIdsByPaths(db: Db, paths: readonly string[]): number[] {
  if (paths.length === 0) return [];
  const rows = prepared(db, "SELECT id, path FROM files WHERE path IN (SELECT value FROM json_each(?))").all(JSON.stringify(paths)) as Array<{ id: number; path: string }>;
  const byPath = new Map(rows.map((r) => [r.path, r.id]));
  return paths.flatMap((p) => (byPath.has(p) ? [byPath.get(p)!] : []));
}

/** The files of a language directly in a directory (`""`: the root), by path: a directory-scoped language's package. */
export function filesInDirectory(db: Db, language: string, dir: string): number[] {
  if (dir === "") return prepared(db, "SELECT id FROM files WHERE language = ? AND instr(path, '/') = 0 ORDER BY path").pluck().all(language) as number[];
  // The paths below `dir/` sort between it and `dir0` ('0' follows '/'): a range of the path index.
  const rows = prepared(db, "SELECT id, path FROM files WHERE path > ? AND path < ? AND language = ? ORDER BY path").raw().all(`${dir}/`, `${dir}0`, language) as Array<[number, string]>;
  return rows.filter(([, path]) => !path.includes("/", dir.length + 1)).map(([id]) => id);
}

/** Every indexed file's id, in path order (a whole link pass's pages). */
export function fileIdsInPathOrder(db: Db): number[] {
  return prepared(db, "SELECT id FROM files ORDER BY path").pluck().all() as number[];
}

/** Every file of the given languages, by path. */
export function filesOfLanguages(db: Db, languages: readonly string[]): FileRow[] {
  return prepared(db, "SELECT id, path, language FROM files WHERE language IN (SELECT value FROM json_each(?)) ORDER BY path").all(JSON.stringify(languages)) as FileRow[];
}

// The fact readers below iterate rather than return arrays: a whole tree's rows (1.5 million
// symbols at 1 GB) are read once into the call graph's own structures, never held twice. No other
// statement may run on the connection while one is iterated.

/** Every symbol of the files, in file and line order, with its re-export and alias columns. */
export function symbolFacts(db: Db, fileIds: readonly number[] | null): IterableIterator<SymbolFactRow> {
  const w = only(fileIds, "file_id");
  return prepared(
    db,
    `SELECT id, name, kind, file_id AS fileId, reexport_module AS module, reexport_name AS imported, alias_of AS aliasOf, return_type AS returnType, parent_name AS parent FROM symbols${w.sql} ORDER BY file_id, line, id`,
  ).iterate(...w.args) as IterableIterator<SymbolFactRow>;
}

/** The files' symbols with a link face (index/mention-reach.ts) — a value read, or a type — as arrays: [fileId, id, name, kind, parent, returnType, aliasOf, module, imported]. */
export type SymbolFaceRow = [number, number, string, string, string | null, string | null, string | null, string | null, string | null];

export function symbolFaceRows(db: Db, fileIds: readonly number[]): SymbolFaceRow[] {
  // A row with none of those columns, and no type's (whose signature and name are read), has no face.
  return prepared(
    db,
    "SELECT file_id, id, name, kind, parent_name, return_type, alias_of, reexport_module, reexport_name FROM symbols WHERE file_id IN (SELECT value FROM json_each(?)) AND (return_type IS NOT NULL OR alias_of IS NOT NULL OR reexport_module IS NOT NULL OR reexport_name IS NOT NULL OR kind IN ('class', 'type', 'interface'))",
  )
    .raw()
    .all(JSON.stringify(fileIds)) as SymbolFaceRow[];
}

/** A symbol's declaration text (its signature: store/symbol-texts.ts), or null. */
export function symbolSignature(db: Db, id: number): string | null {
  return symbolTextsOf(db, id).signature;
}

/** Every import row of the files with the project file it resolved to (null when external or unresolved). */
export function importFacts(db: Db, fileIds: readonly number[] | null): IterableIterator<ImportFactRow> {
  const w = only(fileIds, "i.file_id");
  return prepared(db, `SELECT i.file_id AS fileId, i.module, i.symbols, i.locals, i.kind, i.resolved_file_id AS target FROM imports i${w.sql} ORDER BY i.file_id, i.line, i.id`).iterate(
    ...w.args,
  ) as IterableIterator<ImportFactRow>;
}

/** Every heritage clause of the files' classes, in the order they were written (the last `extends` of a class wins). */
export function heritageFacts(db: Db, fileIds: readonly number[] | null): IterableIterator<HeritageRow> {
  const w = only(fileIds, "file_id");
  return prepared(db, `SELECT file_id AS fileId, class_name AS className, relation, target FROM heritage${w.sql} ORDER BY file_id, rowid`).iterate(...w.args) as IterableIterator<HeritageRow>;
}

/** How many files' call-site packs are read at a time: a whole tree's sites as objects at once took hundreds of MB at 1 GB. */
const CALL_PAGE_FILES = 256;

/** Each stored call-site pack of the files (all when null), by file, read a page of files at a time; `fn` may run SQL. */
export function forEachCallPack(db: Db, fileIds: readonly number[] | null, fn: (fileId: number, packed: Uint8Array) => void): void {
  const page = (packs: Array<[number, Uint8Array]>) => {
    for (const [fileId, packed] of packs) fn(fileId, packed);
  };
  if (fileIds === null) {
    const next = prepared(db, "SELECT file_id, calls FROM file_calls WHERE file_id > ? ORDER BY file_id LIMIT ?").raw();
    for (let after = -1; ; ) {
      const packs = next.all(after, CALL_PAGE_FILES) as Array<[number, Uint8Array]>;
      if (packs.length === 0) return;
      page(packs);
      after = packs[packs.length - 1]![0];
    }
  }
  const sorted = [...fileIds].sort((a, b) => a - b);
  const some = prepared(db, "SELECT x.file_id, x.calls FROM file_calls x WHERE x.file_id IN (SELECT value FROM json_each(?)) ORDER BY x.file_id").raw();
  for (let i = 0; i < sorted.length; i += CALL_PAGE_FILES) page(some.all(JSON.stringify(sorted.slice(i, i + CALL_PAGE_FILES))) as Array<[number, Uint8Array]>);
}

/** Each call site of the files (all when null), by file and line (sites on one line in the extractor's order), read a page of files at a time; `fn` may run SQL. */
export function forEachCallRow(db: Db, fileIds: readonly number[] | null, fn: (c: CallRow) => void): void {
  forEachCallPack(db, fileIds, (fileId, packed) => {
    for (const c of unstoredCalls(fileId, packed)) fn(c);
  });
}

/** The files' call sites as one list (forEachCallRow's order). */
export function callRows(db: Db, fileIds: readonly number[] | null): CallRow[] {
  const out: CallRow[] = [];
  forEachCallRow(db, fileIds, (c) => out.push(c));
  return out;
}

export function heritageRows(db: Db, fileIds: readonly number[] | null): HeritageRow[] {
  const w = only(fileIds, "x.file_id");
  return prepared(db, `SELECT x.file_id AS fileId, x.class_name AS className, x.relation, x.target FROM heritage x${w.sql} ORDER BY x.file_id, x.class_name, x.relation, x.target`).all(
    ...w.args,
  ) as HeritageRow[];
}

/** Every `implements` heritage clause of the files of the given languages (a Go type's embedded interfaces). */
export function implementsClauses(db: Db, languages: readonly string[]): HeritageRow[] {
  return prepared(
    db,
    "SELECT x.file_id AS fileId, x.class_name AS className, x.relation, x.target FROM heritage x JOIN files f ON f.id = x.file_id WHERE x.relation = 'implements' AND f.language IN (SELECT value FROM json_each(?)) ORDER BY x.file_id, x.rowid",
  ).all(JSON.stringify(languages)) as HeritageRow[];
}

/** The files that hold re-export markers (`export { x } from`, kind export symbols). */
export function markerFileIds(db: Db, fileIds: readonly number[] | null): number[] {
  const w = only(fileIds, "x.file_id", "AND");
  return prepared(db, `SELECT DISTINCT x.file_id FROM symbols x WHERE x.kind = 'export'${w.sql} ORDER BY x.file_id`)
    .pluck()
    .all(...w.args) as number[];
}

/** The files with an import that resolved to one of `targets` (a Go package's importers: its imports resolve to one of its files). */
export function importerFileIds(db: Db, targets: readonly number[]): number[] {
  return prepared(db, "SELECT DISTINCT file_id FROM imports WHERE resolved_file_id IN (SELECT value FROM json_each(?)) ORDER BY 1").pluck().all(JSON.stringify(targets)) as number[];
}

/**
 * Files whose edges a change to `changed` can alter: the changed files and every file that imports
 * from them, transitively — an edge can depend on a file its caller does not import (a method
 * inherited from a class in a third file, a return type named in the producer's file), and a
 * barrel passes names on.
 */
export function reachableFiles(db: Db, changed: readonly number[]): number[] {
  return prepared(
    db,
    `WITH RECURSIVE reach(id) AS (
       SELECT id FROM files WHERE id IN (SELECT value FROM json_each(?))
       UNION
       SELECT i.file_id FROM reach r JOIN imports i ON i.resolved_file_id = r.id
     )
     SELECT id FROM reach ORDER BY 1`,
  )
    .pluck()
    .all(JSON.stringify(changed)) as number[];
}
