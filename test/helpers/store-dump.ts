// A logical dump of graph.db keyed by natural keys (paths, lines, names) instead of row ids,
// so an incremental store can be compared with a fresh full build of the same tree. It also
// checks that every chunk's FTS rows exist under its rowid and no orphan FTS row remains.
import { Store } from "../../src/store/db.js";

/** The rows one read-only query of graph.db answers. */
export function queryStore(graphDbPath: string, sql: string): Array<Record<string, unknown>> {
  const store = Store.open(graphDbPath, { readonly: true });
  try {
    return store.db.prepare(sql).all() as Array<Record<string, unknown>>;
  } finally {
    store.close();
  }
}

export function dumpStore(graphDbPath: string): string {
  const store = Store.open(graphDbPath, { readonly: true });
  try {
    const q = (sql: string) => store.db.prepare(sql).all() as Array<Record<string, unknown>>;
    const sections: Record<string, unknown> = {
      files: q("SELECT path, language, mtime, size, content_hash, fingerprint, line_count, has_syntax_errors FROM files ORDER BY path"),
      chunks: q(
        "SELECT f.path, c.chunk_id, c.start_line, c.end_line, c.content_start_line, c.content, c.chunk_type, c.symbol_name, c.parent_symbol, c.is_exported, c.part " +
          "FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.start_line, c.chunk_id",
      ),
      symbols: q(
        "SELECT f.path, s.name, s.kind, s.line, s.end_line, s.is_exported, s.signature, s.doc, s.declaration_hash, s.body_hash, s.parent_name, s.reexport_module, s.reexport_name, s.alias_of, s.params, s.return_type " +
          "FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.line, s.name, s.kind",
      ),
      edges: q(
        "SELECT ff.path AS from_path, a.name AS from_name, a.line AS from_line, tf.path AS to_path, b.name AS to_name, b.line AS to_line, e.edge_type, e.resolution, e.call_line, e.context " +
          "FROM edges e JOIN symbols a ON a.id = e.from_id JOIN files ff ON ff.id = a.file_id JOIN symbols b ON b.id = e.to_id JOIN files tf ON tf.id = b.file_id " +
          "ORDER BY from_path, from_line, from_name, to_path, to_line, to_name, edge_type",
      ),
      imports: q("SELECT f.path, i.module, i.symbols, i.kind, i.line, i.is_external, i.resolved_path FROM imports i JOIN files f ON f.id = i.file_id ORDER BY f.path, i.line, i.module"),
      re_export_files: q("SELECT a.path AS from_path, b.path AS to_path FROM re_export_files r JOIN files a ON a.id = r.from_file_id JOIN files b ON b.id = r.to_file_id ORDER BY 1, 2"),
      chunk_fts: q(
        "SELECT f.path, c.chunk_id, t.content AS fts_content, t.symbol_name IS c.symbol_name AS same_symbol, t.chunk_id = c.chunk_id AS same_id " +
          "FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN chunk_fts t ON t.rowid = c.id ORDER BY f.path, c.start_line, c.chunk_id",
      ),
      identifier_fts: q(
        "SELECT f.path, c.chunk_id, t.identifiers FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN identifier_fts t ON t.rowid = c.id ORDER BY f.path, c.start_line, c.chunk_id",
      ),
      orphans: {
        chunk_fts: (store.db.prepare("SELECT count(*) AS n FROM chunk_fts WHERE rowid NOT IN (SELECT id FROM chunks)").get() as { n: number }).n,
        identifier_fts: (store.db.prepare("SELECT count(*) AS n FROM identifier_fts WHERE rowid NOT IN (SELECT id FROM chunks)").get() as { n: number }).n,
      },
    };
    return JSON.stringify(sections, null, 1);
  } finally {
    store.close();
  }
}
