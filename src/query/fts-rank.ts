// BM25 over the FTS5 indexes (chunk_words, identifier_fts): the chunks holding every term first, a
// word common in more than 10,000 chunks left out beside rarer ones, FTS5's best matches cut
// without reading a chunk row per match, scored by the addon's `mast_bm25` where it loaded, each
// phrase's matching rows counted once per connection (`phraseStats`), an OR cut among the chunks
// holding its rarest phrases when they decide it (`prunedBest`).
import { derivedOnce, doublesOf, ftsFunctions, prepared, recordedChunkTotal, type Db } from "../store/db.js";
import type { FtsClause } from "./search-terms.js";

/**
 * A word in more chunks than this, and than COMMON_TERM_SHARE of them, is left out of a text
 * ranking whose other terms are rarer: FTS5 walks every chunk holding a query's word twice (its
 * weight, then its matches), so on a 1 GB tree `test` or `new*` cost 50-300 ms a query, for a weight
 * of ~1 beside a rare word's ~8 (the common-terms cut of search engines; decisions.md).
 */
const COMMON_TERM_CHUNKS = 10_000;
const COMMON_TERM_SHARE = 0.02;

/**
 * The chunks holding a word (or, for a prefix, the sum over the words it begins of the chunks
 * holding each), exact up to `limit`; past it, some number above `limit` (all a caller compares).
 * FTS5 counts a word's chunks by reading its whole list (21 ms for `test` at 1 GB), so the word
 * itself is counted first by a match that stops past `limit` (~2 ms), and a prefix's words are
 * summed in order only until the sum passes it. Kept per connection until the data changes.
 */
function wordChunks(db: Db, word: string, prefix: boolean, limit: number): number {
  const cache = derivedOnce(db, "chunk-words-df", () => new Map<string, number>());
  const exactKey = `=${limit}:${word}`;
  let exact = cache.get(exactKey);
  if (exact === undefined) {
    exact = prepared(db, "SELECT count(*) FROM (SELECT 1 FROM chunk_words WHERE chunk_words MATCH ? LIMIT ?)")
      .pluck()
      .get(`"${word.replace(/"/g, '""')}"`, Math.floor(limit) + 1) as number;
    cache.set(exactKey, exact);
  }
  if (!prefix || exact > limit) return exact;
  const key = `*${limit}:${word}`;
  let n = cache.get(key);
  if (n === undefined) {
    // Made at each count, not once: it lives in the connection's temp schema, and an answer's read
    // transaction rolled back by an error takes it away again.
    db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunk_words_vocab USING fts5vocab(main, chunk_words, row)");
    // The first code point after every word beginning `word`: the prefix's range ends there.
    n = 0;
    for (const doc of prepared(db, "SELECT doc FROM temp.chunk_words_vocab WHERE term >= ? AND term < ?").pluck().iterate(word, `${word}\u{10FFFF}`) as IterableIterator<number>) {
      n += doc;
      if (n > limit) break;
    }
    cache.set(key, n);
  }
  return n;
}

/** The index's chunks, as the last index run recorded them or counted (1.7 million rows: 85–95 ms cold): kept per connection until the data changes. */
export function chunkCount(db: Db): number {
  return derivedOnce(db, "chunk-count", () => recordedChunkTotal(db) ?? (prepared(db, "SELECT count(*) FROM chunks").pluck().get() as number));
}

/**
 * The query's clauses without its common words (COMMON_TERM_CHUNKS), unless nothing rarer is left;
 * `stemmed`: each word counted as a prefix. When every word is common, a word common as itself
 * matches itself only, not the longer words it begins: they add chunks to a list already long, and
 * FTS5 merges every one of their lists before it ranks (`"test"* AND "info"* AND …` at 1 GB: 490 ms;
 * `"test" AND "info" AND …`: 45 ms; decisions.md).
 */
export function withoutCommonWords(db: Db, clauses: readonly FtsClause[], stemmed = false, cut = Math.max(COMMON_TERM_CHUNKS, chunkCount(db) * COMMON_TERM_SHARE)): readonly FtsClause[] {
  if (clauses.length < 2 || chunkCount(db) <= cut) return clauses;
  const counted = clauses.map((c) => ({ c, n: c.word === null ? null : wordChunks(db, c.word.toLowerCase(), stemmed || c.text.endsWith("*"), cut) }));
  // A word no chunk holds matches nothing: it is no rarer word to leave the others out for (`read
  // stheader`, `stheader` only ever inside `readSTHeader`, searched `stheader*` alone and found
  // nothing), unless every word is one.
  const held = counted.filter((x) => x.n !== 0);
  if (held.length === 0) return clauses;
  const rare = held.filter((x) => x.n === null || x.n <= cut).map((x) => x.c);
  if (rare.length > 0) return rare;
  const common = held.map((x) => x.c);
  if (stemmed) return common;
  return common.map((c) => (c.word !== null && c.text.endsWith("*") && wordChunks(db, c.word.toLowerCase(), false, cut) > cut ? { text: c.text.slice(0, -1), word: c.word } : c));
}

export type FtsOperator = "AND" | "OR";

export function joined(clauses: readonly FtsClause[], op: FtsOperator): string {
  return clauses.map((c) => c.text).join(` ${op} `);
}

/**
 * A ranking of an FTS query's terms (`clauses`) by `rank`: the chunks holding every term, when
 * they fill the pool; else the chunks holding any. FTS5 scores every match before it cuts, and on
 * a 300 MB tree three common words match 80,000 chunks (70-130 ms); the chunks holding all three
 * are a few hundred, found by seeking the rarest word's list (3-8 ms). A chunk's BM25 is the same
 * in both queries (the same phrases, the same weights), so the AND list is the OR list without the
 * chunks missing a term (decisions.md).
 */
export function allTermsFirst<R>(clauses: readonly FtsClause[], pool: number, rank: (clauses: readonly FtsClause[], op: FtsOperator) => R[]): R[] {
  if (clauses.length > 1) {
    const all = rank(clauses, "AND");
    if (all.length >= pool) return all;
  }
  return rank(clauses, "OR");
}

/**
 * How many more of FTS5's best matches the unscoped BM25 list takes than it keeps: equal scores
 * (the same text in several files) are ordered by chunk id after the cut, as the joined query
 * orders them, unless a group of equal scores straddles the cut by more than this.
 */
const TIE_MARGIN = 64;

/** An FTS index and its BM25 column weights (none: 1 each). */
export interface FtsRanking {
  readonly table: "chunk_words" | "identifier_fts";
  readonly weights: string;
}

export const CHUNK_WORDS: FtsRanking = { table: "chunk_words", weights: "" };
/** A word in the symbol's own name weighs six times one in its body. */
export const IDENTIFIERS: FtsRanking = { table: "identifier_fts", weights: ", 1.0, 6.0" };

/**
 * The BM25 of an FTS index's matches: the addon's `mast_bm25`, the same scores as FTS5's bm25 with
 * each row's size kept by the connection (FTS5 reads it with a statement per match: three quarters
 * of its time on a common word), else bm25 itself.
 */
export function bm25Of(db: Db, fts: FtsRanking): string {
  return ftsFunctions(db) ? `mast_bm25(${fts.table}, 0, NULL, '${fts.table}'${fts.weights})` : `bm25(${fts.table}${fts.weights})`;
}

/**
 * The most one phrase adds to a chunk's BM25: its IDF times k1 + 1 (k1 = 1.2 in FTS5's bm25), a
 * bound the term-frequency factor stays strictly below (SQLite's fts5_aux.c).
 */
const BM25_PHRASE_FACTOR = 2.2;

/**
 * The rows of `outer`, a query over `m`: FTS5's best `depth` matches of `clauses` joined by `op`
 * (`id`, `score`: BM25, lower first). `outer` also selects `(SELECT count(*) FROM m) AS n` and
 * `(SELECT max(score) FROM m) AS worst`; its `?`s follow ours. With the addon's FTS5 functions and
 * single phrases, their rows are counted through phraseStats and an OR is cut by prunedBest when it
 * can be; otherwise every match is scored.
 */
function overBest<R extends BestRow>(db: Db, fts: FtsRanking, clauses: readonly FtsClause[], op: FtsOperator, depth: number, outer: string, params: readonly unknown[]): R[] {
  const t = fts.table;
  if (clauses.some((c) => c.word === null) || !ftsFunctions(db)) return bestBy<R>(db, fts, bm25Of(db, fts), joined(clauses, op), [], depth, outer, params);
  const stats = phraseStats(db, fts, clauses, op);
  if (stats === undefined) return [];
  const pruned = op === "OR" ? prunedBest<R>(db, fts, clauses, stats, depth, outer, params) : null;
  return pruned ?? bestBy<R>(db, fts, `mast_bm25(${t}, 0, ?, '${t}'${fts.weights})`, joined(clauses, op), [stats], depth, outer, params);
}

interface BestRow {
  readonly n: number;
  readonly worst: number;
}

function bestBy<R>(db: Db, fts: FtsRanking, rank: string, match: string, rankParams: readonly unknown[], depth: number, outer: string, params: readonly unknown[]): R[] {
  const t = fts.table;
  return prepared(db, `WITH m AS MATERIALIZED (SELECT rowid AS id, ${rank} AS score FROM ${t} WHERE ${t} MATCH ? ORDER BY score ASC LIMIT ?) ${outer}`).all(
    ...rankParams,
    match,
    depth,
    ...params,
  ) as R[];
}

/** Phrases whose matching rows a connection keeps per FTS index, at most (past it they are all dropped). */
const PHRASE_ROWS_KEPT = 20_000;

/**
 * `mast_fts_stats` of `clauses` (single phrases) joined by `op`: the index's rows, each phrase's
 * matching rows and IDF, as bm25 counts them — or undefined when nothing matches. A phrase counted
 * before on this connection is not counted again until the data changes: FTS5 counts a phrase by
 * walking its whole list for every query (a task's common word, `test` or `type`: 10-30 ms at 1 GB),
 * and an agent's queries repeat their words.
 */
export function phraseStats(db: Db, fts: FtsRanking, clauses: readonly FtsClause[], op: FtsOperator): Buffer | undefined {
  const t = fts.table;
  const counted = derivedOnce(db, `phrase rows ${t}`, () => new Map<string, number>());
  const known = Float64Array.from(clauses, (c) => counted.get(c.text) ?? Number.NaN);
  const blob = prepared(db, `SELECT mast_fts_stats(${t}, ?) FROM ${t} WHERE ${t} MATCH ? LIMIT 1`).pluck().get(Buffer.from(known.buffer), joined(clauses, op)) as Buffer | undefined;
  if (blob === undefined) return undefined;
  const stats = doublesOf(blob);
  if (counted.size + clauses.length > PHRASE_ROWS_KEPT) counted.clear();
  clauses.forEach((c, i) => counted.set(c.text, stats[1 + i]!));
  return blob;
}

/**
 * overBest's rows for an OR of single phrases cut among the chunks holding its rarest phrases, or
 * null when that cut cannot decide. `stats`: phraseStats of the OR. FTS5 scores every match before
 * it cuts: three words of which one is common (`name`, 196,000 chunks at 1 GB) cost ~290 ms. A chunk
 * holding none of the kept phrases scores at most what the others can add (each its IDF times
 * BM25_PHRASE_FACTOR): when the depth-th best of the chunks holding a kept phrase, scored by
 * `mast_bm25` exactly as bm25 scores the whole OR, is above that, no other chunk reaches the list
 * (the max-score pruning of search engines; ~55 ms for the same query). Rarer phrases are kept one
 * at a time until it is; null once they match half the chunks the OR matches.
 */
export function prunedBest<R extends BestRow>(db: Db, fts: FtsRanking, clauses: readonly FtsClause[], stats: Buffer, depth: number, outer: string, params: readonly unknown[]): R[] | null {
  const n = clauses.length;
  const counts = doublesOf(stats);
  if (n < 2 || counts.length !== 1 + 2 * n) return null;
  const t = fts.table;
  const expression = joined(clauses, "OR");
  const hits = (i: number) => counts[1 + i]!;
  const idf = (i: number) => counts[1 + n + i]!;
  const rarest = [...clauses.keys()].sort((a, b) => idf(b) - idf(a) || a - b);
  let matches = 0;
  for (let i = 0; i < n; i++) matches += hits(i);
  let keptHits = 0;
  for (let kept = 1; kept < n; kept++) {
    keptHits += hits(rarest[kept - 1]!);
    if (keptHits < depth) continue;
    if (keptHits * 2 > matches) break;
    let rest = 0;
    for (let i = kept; i < n; i++) rest += idf(rarest[i]!) * BM25_PHRASE_FACTOR;
    const within = joined(
      rarest.slice(0, kept).map((i) => clauses[i]!),
      "OR",
    );
    const rows = bestBy<R>(db, fts, `mast_bm25(${t}, ${n}, ?, '${t}'${fts.weights})`, `(${expression}) AND (${within})`, [stats], depth, outer, params);
    const first = rows[0];
    // The depth-th best beyond the rest's reach (a relative margin for the sums' rounding).
    if (first !== undefined && first.n === depth && -first.worst > rest * (1 + 1e-9)) return rows;
  }
  return null;
}

/**
 * The `pool` best matches of an FTS index by BM25, equal scores by chunk id: FTS5's own best
 * `pool + TIE_MARGIN` first, without reading a chunk row for every match (on a 300 MB tree a
 * three-word query matches 80,000 chunks), then the cut. Unscoped queries only: a scope filters on
 * the chunk row.
 */
export function ftsBest(db: Db, fts: FtsRanking, clauses: readonly FtsClause[], op: FtsOperator, pool: number): Array<{ id: number; score: number }> {
  const rows = overBest<{ id: number; score: number } & BestRow>(
    db,
    fts,
    clauses,
    op,
    pool + TIE_MARGIN,
    `SELECT m.id AS id, m.score AS score, (SELECT count(*) FROM m) AS n, (SELECT max(score) FROM m) AS worst
     FROM m JOIN chunks c ON c.id = m.id ORDER BY m.score ASC, c.chunk_key ASC LIMIT ?`,
    [pool],
  );
  return rows.map(({ id, score }) => ({ id, score }));
}

/**
 * How much deeper than the pool sourceBest reads FTS5's best: the source's own list is asked for
 * when fewer than a page of the pool is source.
 */
const SOURCE_DEPTH = 16;

/**
 * The source's own BM25 list (chunks of files that are not tests, not documents), from FTS5's best
 * SOURCE_DEPTH times the pool deep (every match scored, no chunk and file row read per match), when
 * that list decides it: it holds a pool of source chunks and the pool's last score is below the
 * deepest score read (so no chunk tied with a kept one was cut off), or it holds every match. Null
 * otherwise: every match is then joined and ranked.
 */
export function sourceBest(db: Db, clauses: readonly FtsClause[], op: FtsOperator, pool: number): Array<{ id: number; score: number }> | null {
  const depth = (pool + TIE_MARGIN) * SOURCE_DEPTH;
  const rows = overBest<{ id: number; score: number } & BestRow>(
    db,
    CHUNK_WORDS,
    clauses,
    op,
    depth,
    `SELECT m.id AS id, m.score AS score, (SELECT count(*) FROM m) AS n, (SELECT max(score) FROM m) AS worst
     FROM m JOIN chunks c ON c.id = m.id JOIN files f ON f.id = c.file_id WHERE f.is_test = 0 AND c.chunk_type != 'doc'
     ORDER BY m.score ASC, c.chunk_key ASC LIMIT ?`,
    [pool],
  );
  const first = rows[0];
  if (first === undefined) return null;
  const decided = first.n < depth || (rows.length >= pool && rows[pool - 1]!.score < first.worst);
  return decided ? rows.map(({ id, score }) => ({ id, score })) : null;
}
