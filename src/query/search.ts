// mast_search (spec §7.3, §9): BM25 over chunk_words and the declaration-exact ranker D, fused by
// Reciprocal Rank Fusion over pools of 4x the limit; scope filters before ranking, chunk_type
// and only_exported after; shell/method dedup with backfill; zero-result suggestions.
import { statSync } from "node:fs";
import { join } from "node:path";
import { pathRole, type PathRole } from "../base/paths.js";
import { chunkId } from "../base/hash.js";
import { splitTerms } from "../base/text.js";
import { derivedOnce, doublesOf, ftsFunctions, idList, prepared, recordedChunkTotal, recordedFileTotal, type Db } from "../store/db.js";
import { scopeCondition, scopeFileIds, type ScopeInput } from "./scope.js";
import { sameStat, type FileStat } from "../index/read.js";
import { CHUNK_PLACE_COLUMNS, SourceLines, chunkContent, type ChunkPlace } from "./source.js";
import { EDGE } from "../store/edge-codes.js";

export interface SearchInput extends ScopeInput {
  readonly query: string;
  readonly limit: number;
  readonly chunk_type?: string | null | undefined;
  readonly only_exported?: boolean | undefined;
}

export interface SearchOptions {
  readonly projectRoot: string;
  readonly rrfK: number;
  readonly declarationExactRanker: boolean;
}

export interface SearchResult {
  file_path: string;
  start_line: number;
  end_line: number;
  /** The file line `content` starts at: before start_line when content opens with the doc comment and context lines. */
  content_start_line: number;
  content: string;
  chunk_type: string;
  symbol_name: string | null;
  parent_symbol: string | null;
  is_exported: boolean;
  /** The chunk is in a test file (base/paths.ts isTestPath). */
  is_test?: true;
  match_score: number | null;
  rank: number;
  match_snippet: string | null;
  related?: { parent_symbol: string } | { methods_matched: string[] } | { parts_matched: number[] };
  stale?: true;
}

export interface Suggestion {
  symbol: string;
  file_path: string;
  reason: "similar symbol name" | "matched split query terms" | "identifier near-miss";
}

/** What ranker D did in one search (spec §14.3 `declex_json`), for telemetry only. */
export interface DeclexFire {
  fired: true;
  top_match_channel: "full" | "segment";
  candidate_count: number;
  /** D's chunks by their fused (pre-dedup) rank with D's list and without it (null: only D found it). */
  window_effects: Array<{ chunk_id: string; symbol_name: string | null; rank_with_d: number | null; rank_without_d: number | null }>;
  _truncated?: number;
}

/** At most this many chunks are listed in `DeclexFire.window_effects`. */
const DECLEX_EFFECTS_CAP = 10;

export interface SearchResponse {
  results: SearchResult[];
  /** A task's text whose every word is common in the project (and names no file): the ranking had little to go on. */
  low_confidence?: true;
  /** The next files the ranking reached beyond the results, each by its best chunk's path, line and name. */
  more_files?: Array<{ file_path: string; start_line: number; symbol_name: string | null; related_to?: string }>;
  /** Set when ranker D fired (telemetry; the search tool keeps it out of its answer). */
  declex?: DeclexFire;
  suggestions?: Suggestion[];
  index_empty?: true;
  /** file_pattern or language matches no indexed file: nothing was searched. */
  scope_empty?: true;
}

interface Candidate {
  id: number;
  bm25: number | null;
  snippet: string | null;
  rrf: number;
  bestRank: number;
}

interface ChunkRow extends ChunkPlace {
  id: number;
  chunk_key: number;
  file_id: number;
  start_line: number;
  end_line: number;
  chunk_type: string;
  symbol_name: string | null;
  parent_symbol: string | null;
  is_exported: number;
  is_test: number;
  part: number;
}

/** English function words of 3+ letters, dropped from multi-word queries (see ftsExpression). */
const STOP_WORDS = new Set(
  "the and for from with that this into onto over when then than what which who whom whose where why how are was were been being has have had does did doing not but all any each its our out off can could should would will shall may might must per via".split(" "),
);

/** A search word this long or longer also matches the longer words it begins (`valid` → validate, validator); shorter ones match whole words only. */
const PREFIX_MIN = 3;

/**
 * A query term's words as chunk_words's tokenizer cuts them (unicode61 with `_` and `$` as word
 * characters): `res.json(` → res, json; `hash_password` stays one. Words of one character are left out.
 */
export function termWords(term: string): string[] {
  return term.split(/[^\p{L}\p{N}\p{Co}_$]+/u).filter((w) => w.length >= 2);
}

/**
 * The user's text as an FTS5 expression over chunk_words: each whitespace-separated term becomes
 * its words, each quoted (FTS5 syntax in it is literal), the last a prefix from PREFIX_MIN
 * characters; a term of several words is a phrase of the text's own words (`res.json(` →
 * words : ("res" + "json"*)); the terms are OR-ed, so BM25 ranks chunks matching more of them
 * higher. Null when no term has a word.
 */
export function ftsExpression(query: string): string | null {
  return ftsClauses(query)?.map((c) => c.text).join(" OR ") ?? null;
}

/** One term of a query as FTS5 matches it; `word` is set when the clause is that one word (a prefix from PREFIX_MIN characters). */
export interface FtsClause {
  readonly text: string;
  readonly word: string | null;
}

/** ftsExpression's clauses, one per distinct term (null when no term has a word): OR-ed, or AND-ed for the chunks holding every term. */
export function ftsClauses(query: string): FtsClause[] | null {
  const all = query.split(/\s+/).filter((t) => termWords(t).length > 0);
  // Function words match nearly every chunk ("from" is on every import line); they are dropped
  // from multi-word queries unless nothing else is left.
  const content = all.filter((t) => !STOP_WORDS.has(t.toLowerCase()));
  const terms = content.length > 0 ? content : all;
  if (terms.length === 0) return null;
  const phrase = (w: string) => `"${w.replace(/"/g, '""')}"${w.length >= PREFIX_MIN ? "*" : ""}`;
  // Words in order, the last a prefix: a phrase.
  const sequence = (words: readonly string[]) => words.map((w, i) => (i === words.length - 1 ? phrase(w) : `"${w}"`)).join(" + ");
  const clauses = new Map<string, FtsClause>();
  for (const t of terms) {
    const cased = termWords(t);
    const words = cased.map((w) => w.toLowerCase());
    // A compound identifier is also its words inside a longer one: `invoiceNum` → nextInvoiceNumber.
    const inner = words.length > 1 ? [] : splitTerms(cased[0]!);
    const clause: FtsClause =
      words.length > 1 ? { text: `words : (${sequence(words)})`, word: null } : inner.length > 1 ? { text: `(${phrase(words[0]!)} OR parts : (${sequence(inner)}))`, word: null } : { text: phrase(words[0]!), word: words[0]! };
    clauses.set(clause.text, clause);
  }
  return [...clauses.values()];
}

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
    exact = prepared(db, "SELECT count(*) FROM (SELECT 1 FROM chunk_words WHERE chunk_words MATCH ? LIMIT ?)").pluck().get(`"${word.replace(/"/g, '""')}"`, Math.floor(limit) + 1) as number;
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
function chunkCount(db: Db): number {
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

/** Ranker D's eligible tokens: identifier runs with an uppercase letter, `_`, `$`, or a digit next to a letter. */
export function symbolShapedTokens(query: string): string[] {
  return symbolShaped(identifierChains(query).plain);
}

function symbolShaped(runs: readonly string[]): string[] {
  return [...new Set(runs.filter((t) => /[A-Z_$]/.test(t) || /[0-9][A-Za-z]|[A-Za-z][0-9]/.test(t)))];
}

const isIdentChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;

/**
 * A query's identifier runs (`[A-Za-z0-9_$]+`, a private name's `#` in front) in one left-to-right
 * pass: chains of runs joined by single dots (`AuthService.refresh`, `Router.#match`) are
 * `qualified`, lone runs `plain`. Linear in the query's length whatever its shape (a backtracking
 * regex over one 100 K-character token took 22 s).
 */
export function identifierChains(query: string): { qualified: string[]; plain: string[] } {
  const qualified = new Set<string>();
  const plain: string[] = [];
  let i = 0;
  // A `#` opens a part when an identifier character follows it.
  const privateAt = (at: number) => query.charCodeAt(at) === 35 && at + 1 < query.length && isIdentChar(query.charCodeAt(at + 1));
  while (i < query.length) {
    if (!isIdentChar(query.charCodeAt(i)) && !privateAt(i)) {
      i++;
      continue;
    }
    const start = i;
    let parts = 0;
    for (;;) {
      if (privateAt(i)) i++;
      while (i < query.length && isIdentChar(query.charCodeAt(i))) i++;
      parts++;
      // Another part follows only after exactly one dot.
      if (query.charCodeAt(i) === 46 && i + 1 < query.length && (isIdentChar(query.charCodeAt(i + 1)) || privateAt(i + 1))) i++;
      else break;
    }
    const token = query.slice(start, i);
    if (parts > 1) qualified.add(token);
    else plain.push(token);
  }
  return { qualified: [...qualified], plain };
}

/**
 * BM25 over chunk_words. With `sourceOnly`, the chunks of files that are not tests and are not
 * markdown (a list of its own when tests and documents crowd the source out of the first one).
 */
function bm25Ranking(db: Db, query: string, scopeIds: number[] | null, pool: number, sourceOnly = false): Candidate[] {
  const scope = scopeCondition("c.file_id", scopeIds);
  const all = ftsClauses(query);
  // No word in the query (`=>`, `::`): nothing for a text ranking to match.
  if (all === null) return [];
  const clauses = withoutCommonWords(db, all);
  const rank = (terms: readonly FtsClause[], op: FtsOperator): Array<{ id: number; score: number }> => {
    // Snippets are made later, for the returned chunks only: snippet() on every match costs 3x the ranking.
    if (scopeIds === null && !sourceOnly) return ftsBest(db, CHUNK_WORDS, terms, op, pool);
    if (scopeIds === null) {
      const best = sourceBest(db, terms, op, pool);
      if (best !== null) return best;
    }
    return prepared(
      db,
      `SELECT c.id AS id, ${bm25Of(db, CHUNK_WORDS)} AS score
       FROM chunk_words JOIN chunks c ON c.id = chunk_words.rowid${sourceOnly ? " JOIN files f ON f.id = c.file_id" : ""}
       WHERE chunk_words MATCH ? AND ${scope.sql}${sourceOnly ? " AND f.is_test = 0 AND c.chunk_type != 'doc'" : ""}
       ORDER BY score ASC, c.chunk_key ASC LIMIT ?`,
    ).all(joined(terms, op), ...scope.params, pool) as Array<{ id: number; score: number }>;
  };
  return allTermsFirst(clauses, pool, rank).map((r, i) => ({ id: r.id, bm25: r.score, snippet: null, rrf: 0, bestRank: i + 1 }));
}

export type FtsOperator = "AND" | "OR";

function joined(clauses: readonly FtsClause[], op: FtsOperator): string {
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
function allTermsFirst<R>(clauses: readonly FtsClause[], pool: number, rank: (clauses: readonly FtsClause[], op: FtsOperator) => R[]): R[] {
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
function bm25Of(db: Db, fts: FtsRanking): string {
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
  return prepared(db, `WITH m AS MATERIALIZED (SELECT rowid AS id, ${rank} AS score FROM ${t} WHERE ${t} MATCH ? ORDER BY score ASC LIMIT ?) ${outer}`).all(...rankParams, match, depth, ...params) as R[];
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
  const blob = prepared(db, `SELECT mast_fts_stats(${t}, ?) FROM ${t} WHERE ${t} MATCH ? LIMIT 1`)
    .pluck()
    .get(Buffer.from(known.buffer), joined(clauses, op)) as Buffer | undefined;
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
    const within = joined(rarest.slice(0, kept).map((i) => clauses[i]!), "OR");
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
function ftsBest(db: Db, fts: FtsRanking, clauses: readonly FtsClause[], op: FtsOperator, pool: number): Array<{ id: number; score: number }> {
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
function sourceBest(db: Db, clauses: readonly FtsClause[], op: FtsOperator, pool: number): Array<{ id: number; score: number }> | null {
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

interface DeclexRank {
  /** 0: the whole name, same case; 1: the whole name, other case; 2: the last `.`-segment only. */
  tier: number;
  multiplicity: number;
  chunkKey: number;
}

/** Ranker D's tokens: qualified chains whole (their parts are not tokens of their own), and symbol-shaped lone runs. */
function declexTokens(query: string): string[] {
  const chains = identifierChains(query);
  return [...chains.qualified, ...symbolShaped(chains.plain)];
}

/** A file vote's weight against one chunk ranker's (RRF): a file stem or a type name says where, not which chunk. */
const FILE_VOTE = 0.5;

/**
 * Ranker T, for a task's text: the files declaring the types named by its lower-case words of 4+
 * letters, whatever the case (`fix str(response.headers)` names the class Headers), rarer names
 * first. Only types: a lower-case word naming a function or a method is everyday prose ("hash",
 * "validate") as often.
 */
function typeNameRanking(db: Db, query: string, scopeIds: number[] | null, pool: number): number[] {
  const words = [...new Set(identifierChains(query).plain.filter((t) => t.length >= 4 && /^[a-z]+$/.test(t) && !STOP_WORDS.has(t)))];
  if (words.length === 0) return [];
  const scope = scopeCondition("c.file_id", scopeIds);
  const stmt = db
    // The chunk types that declare a type, as idx_chunks_type_tail's WHERE names them (so SQLite reads that index).
    .prepare(`SELECT c.file_id FROM chunks c WHERE c.symbol_tail = ? AND c.chunk_type IN ('class_shell', 'interface', 'type') AND lower(c.symbol_name) = c.symbol_tail AND ${scope.sql} ORDER BY c.chunk_key`)
    .pluck();
  const found = words.map((w) => stmt.all(w, ...scope.params) as number[]).filter((ids) => ids.length > 0);
  return [...new Set(found.sort((a, b) => a.length - b.length).flat())].slice(0, pool);
}

/**
 * Ranker D: chunks whose symbol name equals a token or ends with `.` + token (case-insensitive),
 * whole names before segments, exact case first, rarer names first, then chunk id. A qualified
 * token (`Class.method`) must equal the whole name; its parts are not matched on their own.
 */
function declarationExactRanking(db: Db, tokens: readonly string[], scopeIds: number[] | null, pool: number): { ids: number[]; whole: boolean } {
  if (tokens.length === 0) return { ids: [], whole: false };
  const scope = scopeCondition("c.file_id", scopeIds);
  const stmt = db.prepare(`SELECT c.id AS id, c.chunk_key AS chunkKey, c.symbol_name AS name FROM chunks c WHERE c.symbol_tail = ? AND ${scope.sql}`);
  const best = new Map<number, DeclexRank>();
  for (const token of tokens) {
    const isQualified = token.includes(".");
    const lower = token.toLowerCase();
    const rows = stmt.all(lower.slice(lower.lastIndexOf(".") + 1), ...scope.params) as Array<{ id: number; chunkKey: number; name: string }>;
    const tierOf = (name: string): number | null => {
      if (name === token) return 0;
      if (name.toLowerCase() === lower) return 1;
      return isQualified || !name.includes(".") ? null : 2;
    };
    const tiers = rows.map((r) => tierOf(r.name));
    // Multiplicity: how many chunks this token matches the same way (whole name vs segment).
    const segments = tiers.filter((t) => t === 2).length;
    const wholes = tiers.filter((t) => t === 0 || t === 1).length;
    for (let i = 0; i < rows.length; i++) {
      const tier = tiers[i];
      if (tier === null || tier === undefined) continue;
      const multiplicity = tier === 2 ? segments : wholes;
      const entry = { tier, multiplicity, chunkKey: rows[i]!.chunkKey };
      const prev = best.get(rows[i]!.id);
      if (!prev || compareDeclex(entry, prev) < 0) best.set(rows[i]!.id, entry);
    }
  }
  const ranked = [...best].sort(([, a], [, b]) => compareDeclex(a, b)).slice(0, pool);
  return { ids: ranked.map(([id]) => id), whole: ranked.length > 0 && ranked[0]![1].tier !== 2 };
}

function compareDeclex(a: DeclexRank, b: DeclexRank): number {
  if ((a.tier === 2) !== (b.tier === 2)) return a.tier === 2 ? 1 : -1;
  if (a.multiplicity !== b.multiplicity) return a.multiplicity - b.multiplicity;
  if (a.tier !== b.tier) return a.tier - b.tier;
  return a.chunkKey - b.chunkKey;
}

export function searchChunks(db: Db, input: SearchInput, options: SearchOptions): SearchResponse {
  const pool = input.limit * 4;
  const scopeIds = scopeFileIds(db, input);
  const candidates = new Map<number, Candidate>();
  const fuse = (ids: readonly number[]) =>
    ids.forEach((id, i) => {
      const rank = i + 1;
      const existing = candidates.get(id);
      if (existing) {
        existing.rrf += 1 / (options.rrfK + rank);
        existing.bestRank = Math.min(existing.bestRank, rank);
      } else {
        candidates.set(id, { id, bm25: null, snippet: null, rrf: 1 / (options.rrfK + rank), bestRank: rank });
      }
    });
  const bm25 = bm25Ranking(db, input.query, scopeIds, pool);
  bm25.forEach((c, i) => {
    c.rrf = 1 / (options.rrfK + i + 1);
    candidates.set(c.id, c);
  });
  fuse(nameTermRanking(db, input.query, scopeIds, pool));
  const task = isTaskText(input.query);
  const byPath = task ? pathTermRanking(db, input.query, scopeIds, input.limit) : [];
  const asName = queryAsName(input.query);
  // A query that is one name is D's one token whatever its shape (`compose`, `error`): the
  // declarations of that name must be candidates to take the first tier (decisions.md).
  let declex: { ids: number[]; whole: boolean } = { ids: [], whole: false };
  if (options.declarationExactRanker) {
    declex = declarationExactRanking(db, asName !== null ? [asName] : declexTokens(input.query), scopeIds, pool);
    fuse(declex.ids);
    if (asName !== null) fuse(prefixCandidates(db, asName, scopeIds, pool));
  }
  const rows = loadChunks(db, [...candidates.keys()]);
  // Tests, documents and examples rank after the source unless the query names them: when they
  // crowd the source out of BM25's list (full, and with fewer source chunks than the limit), a
  // list of the source's own best matches joins the fusion.
  const demoted = demotedRoles(input.query);
  const isDemoted = (row: ChunkRow) => demoted.has(chunkRole(row));
  if (demoted.size > 0 && bm25.length === pool && bm25.filter((c) => !isDemoted(rows.get(c.id)!)).length < input.limit) {
    const source = bm25Ranking(db, input.query, scopeIds, pool, true);
    fuse(source.map((c) => c.id));
    for (const c of source) candidates.get(c.id)!.bm25 ??= c.bm25;
    for (const [id, row] of loadChunks(db, source.map((c) => c.id).filter((id) => !rows.has(id)))) rows.set(id, row);
  }
  // A task's file stems and type names vote for files: each vote goes to the file's best chunk by its text (a new candidate only when the file has none).
  if (task) {
    const bestOf = new Map<number, Candidate>();
    for (const c of candidates.values()) {
      const row = rows.get(c.id);
      if (row === undefined) continue;
      const fileId = row.file_id;
      if ((bestOf.get(fileId)?.rrf ?? -1) < c.rrf) bestOf.set(fileId, c);
    }
    const words = new Set(proseWords(input.query));
    const voting = [byPath, typeNameRanking(db, input.query, scopeIds, pool)];
    const named = chunksNaming(db, [...new Set(voting.flat().filter((fileId) => !bestOf.has(fileId)))], words);
    const added: number[] = [];
    for (const files of voting) {
      files.forEach((fileId, i) => {
        const vote = FILE_VOTE / (options.rrfK + i + 1);
        const best = bestOf.get(fileId);
        if (best) {
          best.rrf += vote;
          return;
        }
        const id = named.get(fileId);
        if (id === undefined) return;
        const c: Candidate = { id, bm25: null, snippet: null, rrf: vote, bestRank: i + 1 };
        candidates.set(id, c);
        bestOf.set(fileId, c);
        added.push(id);
      });
    }
    for (const [loaded, row] of loadChunks(db, added)) rows.set(loaded, row);
  }
  const tierOf = new Map<number, number>();
  for (const c of candidates.values()) {
    const row = rows.get(c.id);
    tierOf.set(c.id, asName === null || row === undefined ? NO_NAME_TIER : nameTier(row.symbol_name, row.chunk_type, asName));
  }
  const roleOf = new Map<number, number>();
  for (const [id, row] of rows) roleOf.set(id, isDemoted(row) ? 1 : 0);
  const fused = [...candidates.values()]
    .filter((c) => rows.has(c.id))
    .sort(
      (a, b) =>
        tierOf.get(a.id)! - tierOf.get(b.id)! ||
        roleOf.get(a.id)! - roleOf.get(b.id)! ||
        b.rrf - a.rrf ||
        a.bestRank - b.bestRank ||
        rows.get(a.id)!.chunk_key - rows.get(b.id)!.chunk_key,
    )
    .filter((c) => {
      const row = rows.get(c.id)!;
      return (!input.chunk_type || row.chunk_type === input.chunk_type) && (!input.only_exported || row.is_exported === 1);
    });
  const declexFire = declex.ids.length > 0 ? declexEffects(db, declex, options.rrfK, fused, rows, (id) => tierOf.get(id)! * 2 + roleOf.get(id)!) : undefined;
  const { survivors, folded } = foldSplitParts(fused, rows);
  // A task's text wants files: each file's best chunk first, a file's second chunk only when no other file is left to name.
  const spread = task ? filesFirst(survivors, rows) : survivors;
  const kept = dedupShellsAndMethods(spread, rows, input.limit);
  for (const k of kept) {
    const parts = folded.get(k.candidate.id);
    if (parts && !k.related) k.related = { parts_matched: parts };
  }
  // The results' text, read from their files.
  const source = new SourceLines(options.projectRoot);
  const read = new Map(kept.map((k) => [k.candidate.id, chunkContent(rows.get(k.candidate.id)!, source)]));
  const texts = new Map([...read].map(([id, text]) => [id, text ?? ""]));
  addSnippets(input.query, kept.map((k) => k.candidate), texts);
  const results = kept.map((entry, i) => toResult(entry.candidate, rows.get(entry.candidate.id)!, texts.get(entry.candidate.id)!, i + 1, entry.related));
  flagStale(db, results, options.projectRoot);
  // A file that can no longer be read as the regular file indexed (gone, replaced by a symlink) gives no text: stale too.
  kept.forEach((k, i) => {
    if (read.get(k.candidate.id) === null) results[i]!.stale = true;
  });
  const more = spread === survivors ? [] : moreFiles(spread, rows, results, neighbourFiles(db, results.slice(0, NEIGHBOUR_HITS)));
  const weak = task && results.length > 0 && byPath.length === 0 && onlyCommonWords(db, proseWords(input.query));
  const response: SearchResponse = { results, ...(more.length > 0 ? { more_files: more } : {}), ...(weak ? { low_confidence: true as const } : {}), ...(declexFire ? { declex: declexFire } : {}) };
  if (results.length === 0) {
    response.suggestions = suggest(db, input.query, scopeIds, input.limit);
    if (isIndexEmpty(db)) response.index_empty = true;
    else if (scopeIds !== null && scopeIds.length === 0) response.scope_empty = true;
  }
  return response;
}

/** A chunk's id (sha256 of `path:start_line`, `:n` added for the n-th further chunk starting on that line), from its row: graph.db keeps only its hash key. */
function chunkIdOf(db: Db, row: ChunkRow): string {
  const n = prepared(db, "SELECT count(*) FROM chunks WHERE file_id = ? AND start_line = ? AND id < ?").pluck().get(row.file_id, row.start_line, row.id) as number;
  return chunkId(row.path, row.start_line, n);
}

/**
 * Ranker D's effect on one search: each of D's chunks (in D's order, the first 10) at its fused
 * rank with D and at the rank the same fusion gives without D's list — chunks D alone found have
 * none. Prefix candidates, fused after D, count on both sides.
 */
function declexEffects(
  db: Db,
  declex: { ids: number[]; whole: boolean },
  rrfK: number,
  fused: readonly Candidate[],
  rows: ReadonlyMap<number, ChunkRow>,
  tierOf: (id: number) => number,
): DeclexFire {
  const dTerm = new Map(declex.ids.map((id, i) => [id, 1 / (rrfK + i + 1)]));
  const rankWith = new Map(fused.map((c, i) => [c.id, i + 1]));
  // Without D: a chunk keeps its score less D's term; a chunk only D brought in is not a candidate.
  const without = fused
    .map((c) => ({ c, rest: { ...c, rrf: c.rrf - (dTerm.get(c.id) ?? 0) } }))
    .filter((w) => w.rest.rrf > 1e-12)
    .map((w) => ({ c: w.c, s: w.rest.rrf }))
    .sort((a, b) => tierOf(a.c.id) - tierOf(b.c.id) || b.s - a.s || rows.get(a.c.id)!.chunk_key - rows.get(b.c.id)!.chunk_key);
  const rankWithout = new Map(without.map((w, i) => [w.c.id, i + 1]));
  const effects = declex.ids.slice(0, DECLEX_EFFECTS_CAP).map((id) => {
    const row = rows.get(id);
    return { chunk_id: row ? chunkIdOf(db, row) : String(id), symbol_name: row?.symbol_name ?? null, rank_with_d: rankWith.get(id) ?? null, rank_without_d: rankWithout.get(id) ?? null };
  });
  const cut = declex.ids.length - effects.length;
  return { fired: true, top_match_channel: declex.whole ? "full" : "segment", candidate_count: declex.ids.length, window_effects: effects, ...(cut > 0 ? { _truncated: cut } : {}) };
}

/** The tier of every chunk when the query is not one name. */
const NO_NAME_TIER = 6;

/** The query as one declaration name (`compose`, `TrieRouter`, `Router.match`), or null when it is more than one token. */
function queryAsName(query: string): string | null {
  const q = query.trim();
  const { qualified, plain } = identifierChains(q);
  const only = qualified.length + plain.length === 1 ? (qualified[0] ?? plain[0]!) : null;
  return only !== null && only === q ? only : null;
}

/**
 * How a chunk's symbol name answers a one-name query: 0 the same name, same case; 1 a plain name
 * equal to the last `.`-segment of a function's name (a nested function or a namespace's:
 * `getSizing` → `error.getSizing`); 2 the same name in another case (`set` → `Set`); 3 a plain
 * name equal to the last segment of a method's (`match` → `TrieRouter.match`), so the functions of
 * a name come before the methods of it; 4 a
 * symbol-shaped name that begins the name or its last segment, same case (`hashPass` →
 * `hashPassword`); 5 the same in another case; 6 anything else. A one-name query ranks its
 * declarations by this tier first (decisions.md).
 */
function nameTier(symbol: string | null, chunkType: string, name: string): number {
  if (symbol === null) return NO_NAME_TIER;
  if (symbol === name) return 0;
  const tailMatch = !name.includes(".") && symbol.endsWith(`.${name}`);
  if (tailMatch && chunkType !== "method") return 1;
  const lower = name.toLowerCase();
  const symbolLower = symbol.toLowerCase();
  if (symbolLower === lower) return 2;
  if (name.includes(".")) return NO_NAME_TIER;
  if (tailMatch) return 3;
  if (!isPartialName(name)) return NO_NAME_TIER;
  const tail = symbol.slice(symbol.lastIndexOf(".") + 1);
  if (symbol.startsWith(name) || tail.startsWith(name)) return 4;
  if (symbolLower.startsWith(lower) || tail.toLowerCase().startsWith(lower)) return 5;
  return NO_NAME_TIER;
}

/** Query words that name each role but the source's: a query holding one wants that role's files as much as the source. */
const ROLE_WORDS: ReadonlyArray<[Exclude<PathRole, "source">, ReadonlySet<string>]> = [
  ["test", new Set(["test", "tests", "testing", "spec", "specs", "fixture", "fixtures", "mock", "mocks"])],
  ["doc", new Set(["doc", "docs", "documentation", "readme", "guide", "tutorial", "changelog", "documented"])],
  ["example", new Set(["example", "examples", "sample", "samples", "demo", "demos"])],
];
/** A query naming a file: a `/` or a file name with an extension. */
const PATH_SHAPED = /\/|[\w-]\.(?:md|mdx|rst|txt|json|ya?ml|toml|[cm]?[jt]sx?|py|pyi|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|hpp)\b/i;

/**
 * The roles a query does not ask for: tests, documents and examples rank after the source unless
 * the query names them ("test", "docs", "example", …) or names a file (decisions.md).
 */
function demotedRoles(query: string): ReadonlySet<PathRole> {
  if (PATH_SHAPED.test(query)) return new Set();
  const words = new Set(query.toLowerCase().split(/[^a-z0-9]+/));
  return new Set(ROLE_WORDS.filter(([, named]) => ![...named].some((w) => words.has(w))).map(([role]) => role));
}

/** A chunk's role: a test file's, a document's (markdown sections and files under docs/), an example's, else the source's. */
function chunkRole(row: ChunkRow): PathRole {
  if (row.is_test === 1) return "test";
  if (row.chunk_type === "doc") return "doc";
  return pathRole(row.path);
}

/** A one-name query may be the start of a longer name when it is symbol-shaped and four characters or more (`hashPass`, `OrderRepo`). */
function isPartialName(name: string): boolean {
  return name.length >= 4 && !name.includes(".") && symbolShaped([name]).length === 1;
}

/** Chunks whose name or last segment starts with a partial one-name query, shortest names first (the nearest completions). */
function prefixCandidates(db: Db, name: string, scopeIds: number[] | null, pool: number): number[] {
  if (!isPartialName(name)) return [];
  const scope = scopeCondition("c.file_id", scopeIds);
  const lower = name.toLowerCase();
  // symbol_tail is the lower-cased last segment: a range over idx_chunks_tail; whole names through idx_chunks_symbol.
  return db
    .prepare(
      `SELECT c.id FROM chunks c WHERE ((c.symbol_tail >= ? AND c.symbol_tail < ?) OR (c.symbol_name >= ? AND c.symbol_name < ?)) AND ${scope.sql}
       ORDER BY length(c.symbol_name), c.chunk_key LIMIT ?`,
    )
    .pluck()
    .all(lower, `${lower}\u{10FFFF}`, name, `${name}\u{10FFFF}`, ...scope.params, pool) as number[];
}

/**
 * Ranker N's words: for a query of two or more whitespace-separated terms (a lone name is ranker
 * D's and the name tier's), the words of its identifier runs split (camelCase, snake_case, dotted
 * paths: `client.send()` → client, send), function words dropped. A query of two or three terms
 * with punctuation outside identifiers is code to find literally (`f(a, b)`), BM25's alone; a
 * longer one is a task's text (a bug report, a commit subject), whose code spans are words too.
 */
export function proseWords(query: string): string[] {
  const terms = query.split(/\s+/).filter((t) => t !== "");
  if (terms.length < 2 || (terms.length < TASK_TERMS && terms.some((t) => !/^[A-Za-z0-9_$.]+$/.test(t)))) return [];
  return splitTerms(query).filter((t) => t.length >= 2 && !STOP_WORDS.has(t));
}

/** Terms from which a query is a task's text, whatever punctuation it holds. */
const TASK_TERMS = 3;

/** A query of TASK_TERMS or more whitespace-separated terms: a task's text (a bug report, a commit subject), answered by files. */
function isTaskText(query: string): boolean {
  return query.split(/\s+/).filter((t) => t !== "").length >= TASK_TERMS;
}

/**
 * Ranker N: the query's words (identifiers split on camelCase and `_`, function words dropped)
 * against each chunk's name words and identifier bag, stemmed (`matching` → `match`); a word in
 * the symbol's own name weighs six times one in its body, so "router matching" reaches
 * `TrieRouter.match`.
 */
function nameTermRanking(db: Db, query: string, scopeIds: number[] | null, pool: number): number[] {
  const words = proseWords(query);
  if (words.length === 0) return [];
  const scope = scopeCondition("c.file_id", scopeIds);
  // Stemmed, a word matches the words it begins as often as not: chunk_words's count of its prefix
  // says whether it is common here too.
  const clauses = withoutCommonWords(
    db,
    [...new Set(words)].map((w) => ({ text: `"${w.replace(/"/g, '""')}"`, word: w })),
    true,
  );
  return allTermsFirst(clauses, pool, (terms, op) => {
    if (scopeIds === null) return ftsBest(db, IDENTIFIERS, terms, op, pool).map((r) => r.id);
    return prepared(
      db,
      `SELECT c.id AS id FROM identifier_fts JOIN chunks c ON c.id = identifier_fts.rowid
       WHERE identifier_fts MATCH ? AND ${scope.sql}
       ORDER BY ${bm25Of(db, IDENTIFIERS)} ASC, c.chunk_key ASC LIMIT ?`,
    )
      .pluck()
      .all(joined(terms, op), ...scope.params, pool) as number[];
  });
}

/** A word in more than this share of the chunks says little about where a task's code is. */
const COMMON_SHARE = 0.05;
/** Below this many chunks, no word is judged common (too few to judge by). */
const COMMON_MIN_CHUNKS = 200;

/**
 * Whether every word the project has is in more than COMMON_SHARE of the chunks (their names and
 * identifiers, stemmed as ranker N matches them). A word no chunk has places nothing either way.
 */
function onlyCommonWords(db: Db, words: readonly string[]): boolean {
  const total = chunkCount(db);
  if (total < COMMON_MIN_CHUNKS || words.length === 0) return false;
  const count = db.prepare("SELECT count(*) FROM identifier_fts WHERE identifier_fts MATCH ?").pluck();
  return words.map((w) => count.get(`"${w.replace(/"/g, '""')}"`) as number).every((n) => n === 0 || n > total * COMMON_SHARE);
}

/** Files named beyond the results (`more_files`) at most. */
const MORE_FILES = 10;

/**
 * Ranker P: files whose path names the query's words — a directory, or the file's stem split into
 * words (`_multipart.py` for "multipart"; `digest_auth` for "digest auth") — each word weighted by
 * how few paths hold it (its inverse path frequency), so a word every path has weighs nothing.
 * File ids, best first, at most `limit`.
 */
function pathTermRanking(db: Db, query: string, scopeIds: number[] | null, limit: number): number[] {
  const words = new Set(proseWords(query).filter((w) => w.length >= 3));
  if (words.size === 0) return [];
  const inScope = scopeIds === null ? null : new Set(scopeIds);
  const n = scopeIds?.length ?? derivedOnce(db, "file count", () => recordedFileTotal(db) ?? (prepared(db, "SELECT count(*) FROM files").pluck().get() as number));
  // Each file's score summed word by word, in the query's order, by file id (a word every path has:
  // 30,000 files at 1 GB; a Map of them and a sort of all cost ~10 ms a query).
  const top = derivedOnce(db, "file id top", () => (prepared(db, "SELECT max(id) FROM files").pluck().get() as number | null) ?? 0);
  const scores = new Float64Array(top + 1);
  const scored = new Uint8Array(top + 1);
  const touched: number[] = [];
  for (const w of words) {
    const named = idList(db, "SELECT rowid AS id FROM path_words WHERE path_words MATCH ?", [`"${w.replace(/"/g, '""')}"`]);
    const holding = inScope === null ? named : named.filter((id) => inScope.has(id));
    if (holding.length === 0) continue;
    const weight = Math.log(n / holding.length);
    for (const id of holding) {
      // A text row no file row has (none should) is no file.
      if (id > top) continue;
      if (scored[id] === 0) {
        scored[id] = 1;
        touched.push(id);
      }
      scores[id]! += weight;
    }
  }
  // The best `limit` above the floor, best first, equal scores by file id: kept in order as they come.
  const best: number[] = [];
  const before = (a: number, b: number) => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
  for (const id of touched) {
    if (!(scores[id]! > Math.log(2))) continue;
    if (best.length === limit && !before(id, best[limit - 1]!)) continue;
    let at = best.length === limit ? limit - 1 : best.length;
    while (at > 0 && before(id, best[at - 1]!)) {
      best[at] = best[at - 1]!;
      at--;
    }
    best[at] = id;
  }
  return best;
}

/**
 * By file: the chunk whose name holds most of the query's words (its first chunk when none does; a
 * file without chunks is left out): a file's vote goes to its declaration the task names. Only the
 * names holding a word as text are read into JavaScript (splitTerms's words are ASCII, lower-cased
 * pieces of the name, and LIKE matches ASCII in any case; `_` or `%` in a word only widens it): a
 * generated file of 4,600 chunks voted for ten times over read 51,000 rows, ~140 ms.
 */
function chunksNaming(db: Db, fileIds: readonly number[], words: ReadonlySet<string>): Map<number, number> {
  const files = JSON.stringify(fileIds);
  const best = new Map<number, { id: number; most: number }>();
  const firsts = prepared(
    db,
    `SELECT f.value, (SELECT c.id FROM chunks c WHERE c.file_id = f.value AND c.start_line = (SELECT min(start_line) FROM chunks WHERE file_id = f.value) ORDER BY c.part, c.id LIMIT 1)
     FROM json_each(?) f`,
  )
    .raw()
    .all(files) as Array<[number, number | null]>;
  for (const [fileId, id] of firsts) if (id !== null) best.set(fileId, { id, most: 0 });
  if (words.size === 0) return new Map([...best].map(([fileId, b]) => [fileId, b.id]));
  const named = prepared(
    db,
    `SELECT file_id, id, symbol_name FROM chunks WHERE file_id IN (SELECT value FROM json_each(?)) AND (${[...words].map(() => "symbol_name LIKE ?").join(" OR ")})
     ORDER BY file_id, start_line, part, id`,
  )
    .raw()
    .all(files, ...[...words].map((w) => `%${w}%`)) as Array<[number, number, string]>;
  for (const [fileId, id, name] of named) {
    const b = best.get(fileId)!;
    const hits = splitTerms(name).filter((w) => words.has(w)).length;
    if (hits > b.most) [b.id, b.most] = [id, hits];
  }
  return new Map([...best].map(([fileId, b]) => [fileId, b.id]));
}

/** Candidates in rank order with each file's best first: later chunks of a file follow every other file's best. */
function filesFirst(fused: Candidate[], rows: Map<number, ChunkRow>): Candidate[] {
  const seen = new Set<string>();
  const firsts: Candidate[] = [];
  const rest: Candidate[] = [];
  for (const c of fused) {
    const path = rows.get(c.id)!.path;
    (seen.has(path) ? rest : firsts).push(c);
    seen.add(path);
  }
  return [...firsts, ...rest];
}

/** The first results whose neighbours (callers, callees, importers) may join more_files. */
const NEIGHBOUR_HITS = 3;
/** Neighbours named ahead of more_files' own MORE_FILES at most (a hub's importers are many). */
const NEIGHBOUR_SLOTS = 3;

/**
 * The files next to hits in the call graph and the import graph: the files of the verified callers
 * and callees of the declarations in each hit's lines, and the files importing the hit's file —
 * each mapped to the hit's path. A fix often touches a caller and its callee, a type and its users.
 */
function neighbourFiles(db: Db, hits: readonly SearchResult[]): Map<string, string> {
  const out = new Map<string, string>();
  const linked = db.prepare(
    `SELECT DISTINCT f.path FROM symbols a JOIN files fa ON fa.id = a.file_id JOIN edges e ON e.from_id = a.id AND e.edge_type = ${EDGE.POTENTIAL_CALL} JOIN symbols b ON b.id = e.to_id JOIN files f ON f.id = b.file_id
     WHERE fa.path = ? AND a.line BETWEEN ? AND ? AND b.file_id != a.file_id
     UNION
     SELECT DISTINCT f.path FROM symbols b JOIN files fb ON fb.id = b.file_id JOIN edges e ON e.to_id = b.id AND e.edge_type = ${EDGE.POTENTIAL_CALL} JOIN symbols a ON a.id = e.from_id JOIN files f ON f.id = a.file_id
     WHERE fb.path = ? AND b.line BETWEEN ? AND ? AND a.file_id != b.file_id
     UNION
     SELECT DISTINCT f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE i.resolved_file_id = (SELECT id FROM files WHERE path = ?)`,
  );
  for (const h of hits) {
    for (const path of linked.pluck().all(h.file_path, h.start_line, h.end_line, h.file_path, h.start_line, h.end_line, h.file_path) as string[]) if (!out.has(path)) out.set(path, h.file_path);
  }
  return out;
}

/**
 * The files the ranking reached past the results: path, line and name of each one's best chunk, at
 * most NEIGHBOUR_SLOTS next to a hit first (`related_to` the hit's path), then MORE_FILES more in rank order.
 */
function moreFiles(ranked: Candidate[], rows: Map<number, ChunkRow>, results: readonly SearchResult[], neighbours: ReadonlyMap<string, string>): NonNullable<SearchResponse["more_files"]> {
  const named = new Set(results.map((r) => r.file_path));
  const related: NonNullable<SearchResponse["more_files"]> = [];
  const rest: NonNullable<SearchResponse["more_files"]> = [];
  const order = new Map<string, number>();
  for (const c of ranked) {
    const row = rows.get(c.id)!;
    if (named.has(row.path)) continue;
    named.add(row.path);
    order.set(row.path, order.size);
    const next = neighbours.get(row.path);
    if (next !== undefined) related.push({ file_path: row.path, start_line: row.start_line, symbol_name: row.symbol_name, related_to: next });
    else rest.push({ file_path: row.path, start_line: row.start_line, symbol_name: row.symbol_name });
  }
  // Neighbours join ahead of the ranking's own next files; they take none of its MORE_FILES slots.
  const joined = related.slice(0, NEIGHBOUR_SLOTS);
  const own = [...rest, ...related.slice(NEIGHBOUR_SLOTS)].sort((a, b) => order.get(a.file_path)! - order.get(b.file_path)!);
  return [...joined, ...own.slice(0, MORE_FILES)];
}

/** Characters of the matched line a `match_snippet` shows around its first match. */
const SNIPPET_CHARS = 64;

/**
 * `match_snippet` for the BM25 hits that made the result list: the first line of the chunk's text
 * that holds one of the query's words (at a word's start, any case), that word marked with **,
 * clipped around it with `...` at each cut end.
 */
function addSnippets(query: string, candidates: Candidate[], texts: ReadonlyMap<number, string>): void {
  const expression = ftsExpression(query);
  if (expression === null) return;
  const words = [...new Set(query.split(/\s+/).flatMap(termWords).map((w) => w.toLowerCase()))].sort((a, b) => b.length - a.length);
  for (const c of candidates) {
    if (c.bm25 === null) continue;
    const text = texts.get(c.id);
    if (text !== undefined) c.snippet = wordSnippet(text, words);
  }
}

/** The line of `text` with the first of `words` (lower-cased, longest first) found at a word start, marked and clipped; null when none is. */
export function wordSnippet(text: string, words: readonly string[]): string | null {
  const lower = text.toLowerCase();
  let at = -1;
  let word = "";
  for (const w of words) {
    for (let i = lower.indexOf(w); i !== -1 && (at === -1 || i < at); i = lower.indexOf(w, i + 1)) {
      if (i > 0 && !isWordStartAfter(text, i)) continue;
      at = i;
      word = w;
      break;
    }
  }
  if (at === -1) return null;
  const lineStart = text.lastIndexOf("\n", at) + 1;
  const lineEnd = text.indexOf("\n", at) === -1 ? text.length : text.indexOf("\n", at);
  const end = at + word.length;
  const from = Math.max(lineStart, Math.min(at - Math.floor(SNIPPET_CHARS / 3), lineEnd - SNIPPET_CHARS));
  const to = Math.min(lineEnd, from + SNIPPET_CHARS);
  const body = `${text.slice(from, at)}**${text.slice(at, end)}**${text.slice(end, Math.max(to, end))}`.trim();
  return `${from > lineStart ? "..." : ""}${body}${to < lineEnd ? "..." : ""}`;
}

/** Whether a word starts at `i` (not 0): after a character that is not a letter or digit, or at a camelCase capital. */
function isWordStartAfter(text: string, i: number): boolean {
  const prev = text.charCodeAt(i - 1);
  const letterOrDigit = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  if (!letterOrDigit(prev)) return true;
  const c = text.charCodeAt(i);
  return c >= 65 && c <= 90 && !(prev >= 65 && prev <= 90);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function loadChunks(db: Db, ids: number[]): Map<number, ChunkRow> {
  if (ids.length === 0) return new Map();
  const rows = db
    .prepare(
      `SELECT c.id, c.chunk_key, c.file_id, c.start_line, c.end_line, ${CHUNK_PLACE_COLUMNS}, c.chunk_type, c.symbol_name, c.parent_symbol, c.is_exported, f.is_test, c.part
       FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(ids)) as ChunkRow[];
  return new Map(rows.map((r) => [r.id, r]));
}

interface Kept {
  candidate: Candidate;
  related?: SearchResult["related"];
}

/**
 * Keeps the higher-ranked half of every class_shell ↔ method pair (same class, same file) and
 * tells the survivor what was folded into it; suppressed slots are backfilled from the tail.
 */
function dedupShellsAndMethods(fused: Candidate[], rows: Map<number, ChunkRow>, limit: number): Kept[] {
  const kept: Kept[] = [];
  const shellOf = new Map<string, Kept>(); // "path\0Class" → kept shell
  const methodsOf = new Map<string, Kept[]>(); // "path\0Class" → kept methods
  const key = (row: ChunkRow, cls: string) => `${row.path}\0${cls}`;
  for (const c of fused) {
    // Past the limit, candidates only annotate the kept half of their pair (nothing new is kept).
    const full = kept.length >= limit;
    const row = rows.get(c.id)!;
    if (row.chunk_type === "method" && row.parent_symbol !== null) {
      const shell = shellOf.get(key(row, row.parent_symbol));
      if (shell) {
        const related = (shell.related ?? { methods_matched: [] }) as { methods_matched: string[] };
        if (row.symbol_name && !related.methods_matched.includes(row.symbol_name)) related.methods_matched.push(row.symbol_name);
        shell.related = related;
        continue;
      }
      if (full) continue;
      const entry: Kept = { candidate: c };
      const list = methodsOf.get(key(row, row.parent_symbol)) ?? [];
      list.push(entry);
      methodsOf.set(key(row, row.parent_symbol), list);
      kept.push(entry);
      continue;
    }
    if (row.chunk_type === "class_shell" && row.symbol_name !== null) {
      const methods = methodsOf.get(key(row, row.symbol_name));
      if (methods && methods.length > 0) {
        methods[0]!.related = { parent_symbol: row.symbol_name };
        continue;
      }
      if (full) continue;
      const entry: Kept = { candidate: c };
      shellOf.set(key(row, row.symbol_name), entry);
      kept.push(entry);
      continue;
    }
    if (!full) kept.push({ candidate: c });
  }
  return kept;
}

/**
 * A declaration split into overlapping parts takes one slot: the best-ranked part stays, and the
 * other matched parts' start lines are returned for its `related.parts_matched`. A chunk whose
 * lines a better-ranked chunk's own text holds (a nested function after the function around it,
 * a namespace's function after the namespace) is left out: the answer already shows it.
 */
function foldSplitParts(fused: Candidate[], rows: Map<number, ChunkRow>): { survivors: Candidate[]; folded: Map<number, number[]> } {
  const survivors: Candidate[] = [];
  const folded = new Map<number, number[]>();
  const first = new Map<string, Candidate[]>(); // "path\0type\0name" → kept parts of that name
  const verbatim = new Map<string, ChunkRow[]>(); // path → kept chunks whose text is the file's lines
  for (const c of fused) {
    const row = rows.get(c.id)!;
    const shown = verbatim.get(row.path) ?? [];
    // Strictly inside: the pieces of one long line share its line and hold different text.
    const inside = (k: ChunkRow) => k.start_line <= row.start_line && row.end_line <= k.end_line && (k.start_line < row.start_line || row.end_line < k.end_line);
    if (shown.some(inside)) continue;
    // A class outline's text is a summary, not the lines it spans.
    if (row.chunk_type !== "class_shell") verbatim.set(row.path, [...shown, row]);
    const key = row.symbol_name === null ? null : `${row.path}\0${row.chunk_type}\0${row.symbol_name}`;
    const same = key === null ? [] : (first.get(key) ?? []);
    const survivor = same.find((k) => partsOfOneDraft(rows.get(k.id)!, row));
    if (survivor) {
      folded.set(survivor.id, [...(folded.get(survivor.id) ?? []), row.start_line]);
      continue;
    }
    if (key !== null) first.set(key, [...same, c]);
    survivors.push(c);
  }
  return { survivors, folded };
}

/** Two chunks of one name, type and file are parts of one split declaration: their part numbers differ and one is a later part. */
function partsOfOneDraft(a: ChunkRow, b: ChunkRow): boolean {
  return a.part !== b.part && (a.part > 0 || b.part > 0);
}

function toResult(c: Candidate, row: ChunkRow, content: string, rank: number, related: SearchResult["related"] | undefined): SearchResult {
  return {
    file_path: row.path,
    start_line: row.start_line,
    end_line: row.end_line,
    content_start_line: row.contentStart,
    content,
    chunk_type: row.chunk_type,
    symbol_name: row.symbol_name,
    parent_symbol: row.parent_symbol,
    is_exported: row.is_exported === 1,
    ...(row.is_test === 1 ? { is_test: true as const } : {}),
    match_score: c.bm25,
    rank,
    match_snippet: c.snippet,
    ...(related ? { related } : {}),
  };
}

/** Stat-and-flag (spec §9.0): a result whose file no longer stats as indexed (size, mtime, inode, ctime), or is gone, is `stale`. */
function flagStale(db: Db, results: SearchResult[], projectRoot: string): void {
  const isStale = staleChecker(db, projectRoot);
  for (const r of results) if (isStale(r.file_path)) r.stale = true;
}

/**
 * A file's indexed line coordinates are untrustworthy: it stats otherwise than when indexed — a
 * rewrite that kept its mtime and size (`cp -p`) still moved its ctime — or it is gone.
 */
function staleOnDisk(projectRoot: string, path: string, indexed: FileStat): boolean {
  const st = statSync(join(projectRoot, path), { throwIfNoEntry: false });
  return st === undefined || !sameStat({ size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs }, indexed);
}

/** A stale check per path, each file stat'ed once: its file stats otherwise than indexed, or is gone, or is not indexed. */
export function staleChecker(db: Db, projectRoot: string): (path: string) => boolean {
  const stamp = db.prepare("SELECT size, mtime AS mtimeMs, ino, ctime AS ctimeMs FROM files WHERE path = ?");
  const seen = new Map<string, boolean>();
  return (path) => {
    let stale = seen.get(path);
    if (stale === undefined) {
      const indexed = stamp.get(path) as FileStat | undefined;
      seen.set(path, (stale = indexed === undefined || staleOnDisk(projectRoot, path, indexed)));
    }
    return stale;
  };
}

export function isIndexEmpty(db: Db): boolean {
  return db.prepare("SELECT 1 FROM chunks LIMIT 1").get() === undefined;
}

function trigrams(s: string): Set<string> {
  const t = `  ${s.toLowerCase()} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3));
  return out;
}

function dice(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const g of small) if (large.has(g)) shared++;
  return (2 * shared) / (a.size + b.size || 1);
}

/** Up to this many chunks, "similar symbol name" compares every symbol's name; past it, those begun as a query word is (every name's trigrams: seconds at 1 GB). */
const SUGGEST_SCAN_CHUNKS = 100_000;

function allSymbolNames(db: Db, scopeIds: number[] | null): Array<{ name: string; path: string }> {
  const scope = scopeCondition("s.file_id", scopeIds);
  return prepared(db, `SELECT s.name, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind != 'export' AND ${scope.sql}`).all(...scope.params) as Array<{ name: string; path: string }>;
}

/** The declarations whose name's last segment begins with the first two letters of a query word, any case, after any leading `_`, `__` or `$` (a typo seldom starts a word). */
export function symbolNamesBeginning(db: Db, query: string, scopeIds: number[] | null): Array<{ name: string; path: string }> {
  const scope = scopeCondition("c.file_id", scopeIds);
  const stmt = prepared(db, `SELECT DISTINCT c.symbol_name AS name, f.path FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.symbol_tail >= ? AND c.symbol_tail < ? AND c.symbol_name IS NOT NULL AND ${scope.sql}`);
  const starts = new Set(termWords(query).map((w) => w.toLowerCase().replace(/^[_$]+/, "").slice(0, 2)).filter((w) => w.length === 2));
  const out = new Map<string, { name: string; path: string }>();
  for (const start of starts) {
    for (const lead of ["", "_", "__", "$"]) {
      for (const row of stmt.all(lead + start, `${lead}${start}\u{10FFFF}`, ...scope.params) as Array<{ name: string; path: string }>) out.set(`${row.name}\0${row.path}`, row);
    }
  }
  return [...out.values()];
}

/** Zero-result assist: "did you mean" symbols from three relaxations, de-duplicated, capped at `limit`. */
function suggest(db: Db, query: string, scopeIds: number[] | null, limit: number): Suggestion[] {
  const out: Suggestion[] = [];
  const seen = new Set<string>();
  const add = (symbol: string | null, file_path: string, reason: Suggestion["reason"]) => {
    if (symbol === null || out.length >= limit) return;
    const k = `${symbol}\0${file_path}`;
    if (seen.has(k)) return;
    seen.add(k);
    out.push({ symbol, file_path, reason });
  };
  const q = trigrams(query.trim());
  if (q.size > 0) {
    const symbols = chunkCount(db) <= SUGGEST_SCAN_CHUNKS ? allSymbolNames(db, scopeIds) : symbolNamesBeginning(db, query, scopeIds);
    symbols
      .map((s) => ({ ...s, score: dice(q, trigrams(s.name)) }))
      .filter((s) => s.score >= 0.3)
      .sort((a, b) => b.score - a.score || cmp(a.name, b.name) || cmp(a.path, b.path))
      .slice(0, limit)
      .forEach((s) => add(s.name, s.path, "similar symbol name"));
  }
  const terms = splitTerms(query).filter((t) => t.length >= PREFIX_MIN);
  // A chunk that matched split terms is suggested only when its own name carries at least half of
  // them: "xyzzy_no_such_thing" must not suggest useDebugValue because some chunk says "such".
  const close = (name: string) => {
    const own = new Set(splitTerms(name));
    return terms.filter((t) => own.has(t)).length * 2 >= terms.length;
  };
  if (terms.length > 0) {
    const chunkScope = scopeCondition("c.file_id", scopeIds);
    const expression = terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
    const named = (table: "chunk_words" | "identifier_fts") =>
      db
        .prepare(
          `SELECT c.symbol_name AS name, f.path FROM ${table} JOIN chunks c ON c.id = ${table}.rowid JOIN files f ON f.id = c.file_id
           WHERE ${table} MATCH ? AND c.symbol_name IS NOT NULL AND ${chunkScope.sql} ORDER BY ${bm25Of(db, { table, weights: "" })}, c.chunk_key LIMIT ?`,
        )
        .all(expression, ...chunkScope.params, limit) as Array<{ name: string; path: string }>;
    named("chunk_words").forEach((h) => close(h.name) && add(h.name, h.path, "matched split query terms"));
    named("identifier_fts").forEach((h) => close(h.name) && add(h.name, h.path, "identifier near-miss"));
  }
  return out;
}
