// A logical dump of graph.db keyed by natural keys (paths, lines, names) instead of row ids,
// so an incremental store can be compared with a fresh full build of the same tree. It also
// lists what both FTS indexes hold per chunk, counts index entries of no chunk, and runs FTS5's
// integrity check (the index against the chunks it was built from).
import { inflate } from "../../src/base/deflate.js";
import { symbolTextReader } from "../../src/store/db.js";
import { Store } from "../../src/store/store.js";
import { EDGE_RESOLUTIONS, EDGE_TYPES } from "../../src/store/edge-codes.js";

const named = (column: string, names: readonly string[]) => `CASE ${column} ${names.map((n, i) => `WHEN ${i} THEN '${n}'`).join(" ")} END`;
/** SQL of an edge's type by name (edges store a code, store/edge-codes.ts): `${edgeType("e")} AS type`. */
export const edgeType = (alias: string) => named(`${alias}.edge_type`, EDGE_TYPES);
/** SQL of an edge's resolution by name (NULL for none). */
export const edgeResolution = (alias: string) => named(`${alias}.resolution`, EDGE_RESOLUTIONS);

/** The rows one read-only query of graph.db answers. */
export function queryStore(graphDbPath: string, sql: string): Array<Record<string, unknown>> {
  const store = Store.open(graphDbPath, { readonly: true });
  try {
    return store.db.prepare(sql).all() as Array<Record<string, unknown>>;
  } finally {
    store.close();
  }
}

/** `integrity: false` skips FTS5's integrity check, which needs the write lock (a reader during a run). */
export function dumpStore(graphDbPath: string, options: { integrity?: boolean } = {}): string {
  const store = Store.open(graphDbPath, { readonly: true });
  try {
    const q = (sql: string) => store.db.prepare(sql).all() as Array<Record<string, unknown>>;
    const texts = symbolTextReader(store.db);
    const sections: Record<string, unknown> = {
      // ino and stat_clean are how far a stat can be trusted (index/read.ts), not what was indexed.
      files: q("SELECT path, language, mtime, size, content_hash, line_count, has_syntax_errors FROM files ORDER BY path"),
      // A class outline's text as it reads (stored deflated).
      chunks: q(
        "SELECT f.path, c.chunk_key, c.start_line, c.end_line, c.content_start_line, c.content_end_line, c.cut_from, c.cut_to, c.content, c.chunk_type, c.symbol_name, c.parent_symbol, c.is_exported, c.part " +
          "FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.start_line, c.chunk_key",
      ).map((c) => ({ ...c, content: c.content === null ? null : inflate(c.content as Uint8Array).toString("utf8") })),
      // Each with its texts (kept per file), without the ids they are read by.
      symbols: q(
        "SELECT s.id, s.file_id, f.path, s.name, s.kind, s.line, s.end_line, s.is_exported, s.has_body, s.parent_name, s.reexport_module, s.reexport_name, s.alias_of, s.return_type " +
          "FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.line, s.name, s.kind",
      ).map(({ id, file_id, ...s }) => ({ ...s, ...texts(file_id as number, id as number) })),
      edges: q(
        "SELECT ff.path AS from_path, a.name AS from_name, a.line AS from_line, tf.path AS to_path, b.name AS to_name, b.line AS to_line, e.edge_type, e.resolution, e.call_line " +
          "FROM edges e JOIN symbols a ON a.id = e.from_id JOIN files ff ON ff.id = a.file_id JOIN symbols b ON b.id = e.to_id JOIN files tf ON tf.id = b.file_id " +
          "ORDER BY from_path, from_line, from_name, to_path, to_line, to_name, edge_type",
      ),
      // The resolved file's row by its path: a fresh build and an incremental one agree on it whatever its id.
      imports: q(
        "SELECT f.path, i.module, i.symbols, i.bound_as, i.kind, i.line, i.is_external, t.path AS resolved_file FROM imports i JOIN files f ON f.id = i.file_id LEFT JOIN files t ON t.id = i.resolved_file_id ORDER BY f.path, i.line, i.module",
      ),
      checker_verdicts: q(
        "SELECT tf.path AS target_path, t.name AS target, t.line AS target_line, f.path, v.line, v.verdict FROM checker_verdicts v JOIN symbols t ON t.id = v.target_id JOIN files tf ON tf.id = t.file_id JOIN files f ON f.id = v.file_id ORDER BY 1, 3, 2, 4, 5",
      ),
      re_export_files: q("SELECT a.path AS from_path, b.path AS to_path FROM re_export_files r JOIN files a ON a.id = r.from_file_id JOIN files b ON b.id = r.to_file_id ORDER BY 1, 2"),
      // What each FTS index holds per chunk (its token instances, read from the index itself
      // through fts5vocab: a contentless table has no columns to read back).
      chunk_words: ftsDocs(store, "chunk_words"),
      identifier_fts: ftsDocs(store, "identifier_fts"),
      orphans: { chunk_words: ftsOrphans(store, "chunk_words"), identifier_fts: ftsOrphans(store, "identifier_fts") },
      ...(options.integrity === false ? {} : { integrity: ftsIntegrity(graphDbPath) }),
    };
    return JSON.stringify(sections, null, 1);
  } finally {
    store.close();
  }
}

type FtsTable = "chunk_words" | "identifier_fts";

function vocab(store: Store, table: FtsTable): string {
  const name = `${table}_instances`;
  store.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${name} USING fts5vocab(main, '${table}', 'instance')`);
  return `temp.${name}`;
}

/** Per chunk (by natural key): how many token instances the FTS index holds for it (null: none). */
function ftsDocs(store: Store, table: FtsTable): unknown[] {
  const v = vocab(store, table);
  return store.db
    .prepare(
      `SELECT f.path, c.chunk_key, t.n FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN (SELECT doc, count(*) AS n FROM ${v} GROUP BY doc) t ON t.doc = c.id ORDER BY f.path, c.start_line, c.chunk_key`,
    )
    .all();
}

/** Index entries whose rowid is no chunk's. */
function ftsOrphans(store: Store, table: FtsTable): number {
  return (store.db.prepare(`SELECT count(DISTINCT doc) AS n FROM ${vocab(store, table)} WHERE doc NOT IN (SELECT id FROM chunks)`).get() as { n: number }).n;
}

/** FTS5's integrity check of both indexes against their content ("ok", or the error). */
function ftsIntegrity(graphDbPath: string): Record<FtsTable, string> {
  const store = Store.open(graphDbPath);
  try {
    const check = (table: FtsTable) => {
      try {
        store.db.exec(`INSERT INTO ${table}(${table}, rank) VALUES ('integrity-check', 1)`);
        return "ok";
      } catch (err) {
        return String((err as Error).message);
      }
    };
    return { chunk_words: check("chunk_words"), identifier_fts: check("identifier_fts") };
  } finally {
    store.close();
  }
}
