// graph.db's two FTS indexes kept in step with the chunks within a write transaction: the rows of
// chunks written since the indexes were last fed wait here and go in in bulk — all of one index's
// rows, then the other's — by ranges of never-reused chunk ids; a removed chunk's rows go by exact
// rowid, and after many removals each index is merged whole.
import { prepared, type Db, type Statement } from "./db.js";

/** Chunks dropped from the FTS indexes in one transaction after which its commit merges each index whole (each leaves a tombstone until a merge). */
const OPTIMIZE_AFTER_DELETES = 20_000;

/** The id the next chunk written gets. */
export function nextChunkId(db: Db): number {
  // Chunk ids are never reused (AUTOINCREMENT's high-water mark): the FTS indexes track them by range.
  return ((prepared(db, "SELECT seq FROM sqlite_sequence WHERE name = 'chunks'").pluck().get() as number | undefined) ?? 0) + 1;
}

/**
 * What the FTS indexes lack within the open write transaction. Both are contentless, fed from the
 * chunks as they are written, and complete at every commit: they hold every chunk up to `through`
 * (chunk ids only grow, so the chunks written since are exactly those with a larger id), and the
 * rows of those above it wait in `rows` until `index`.
 */
export class SearchIndex {
  private through: number;
  /** By chunk id: [words, parts] for chunk_words, [identifiers, name_terms] for identifier_fts. */
  private readonly rows = new Map<number, readonly [string, string, string, string]>();
  /** Characters of chunk text written and not yet indexed. */
  pending = 0;
  /** Rows deleted by rowid in this transaction (each a tombstone until a merge: many are merged at once). */
  deleted = 0;

  constructor(private readonly db: Db) {
    this.through = nextChunkId(db) - 1;
  }

  private sql(text: string): Statement {
    return prepared(this.db, text);
  }

  /** A written chunk's search rows, waiting for `index`; its searched text counts toward `pending`. */
  add(chunkId: number, row: readonly [searched: string, parts: string, identifiers: string, nameTerms: string]): void {
    this.rows.set(chunkId, row);
    this.pending += row[0].length;
  }

  /** Takes removed chunks out of both indexes (a chunk not indexed yet, out of the waiting rows). */
  drop(chunkIds: readonly number[]): void {
    // A contentless row goes by its rowid alone (a chunk that had no identifier_fts row costs a no-op delete).
    const delWords = this.sql("DELETE FROM chunk_words WHERE rowid = ?");
    const delIdentifiers = this.sql("DELETE FROM identifier_fts WHERE rowid = ?");
    for (const id of chunkIds) {
      if (id > this.through) this.rows.delete(id);
      else {
        delWords.run(id);
        delIdentifiers.run(id);
        this.deleted++;
      }
    }
  }

  /**
   * Indexes the chunks written since the last call in both FTS indexes, all of one index's rows
   * and then the other's (FTS5 writes a segment whenever a statement touching another table comes
   * between its writes, so rows indexed file by file cost several times the same rows indexed at
   * once) — Store.indexSearch.
   */
  index(): void {
    const last = nextChunkId(this.db) - 1;
    if (last > this.through) {
      // Rows of chunks a rolled-back batch wrote (and no later one wrote again) have no chunk row.
      const written = new Set(this.sql("SELECT id FROM chunks WHERE id > ?").pluck().all(this.through) as number[]);
      const rows = [...this.rows].filter(([id]) => written.has(id)).sort((a, b) => a[0] - b[0]);
      const words = this.sql("INSERT INTO chunk_words(rowid, words, parts) VALUES (?, ?, ?)");
      for (const [id, [text, parts]] of rows) words.run(id, text, parts);
      const identifiers = this.sql("INSERT INTO identifier_fts(rowid, identifiers, name_terms) VALUES (?, ?, ?)");
      for (const [id, [, , bag, nameTerms]] of rows) if (bag !== "" || nameTerms !== "") identifiers.run(id, bag, nameTerms);
      this.rows.clear();
      this.through = last;
    }
    // Deleted rows stay in the indexes' segments until a merge: after a run that dropped many, one merge of each whole.
    if (this.deleted >= OPTIMIZE_AFTER_DELETES) {
      this.sql("INSERT INTO chunk_words(chunk_words) VALUES ('optimize')").run();
      this.sql("INSERT INTO identifier_fts(identifier_fts) VALUES ('optimize')").run();
      this.deleted = 0;
    }
    this.pending = 0;
  }
}
