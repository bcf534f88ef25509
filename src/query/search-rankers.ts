// mast_search's rankers, each a list for the fusion: BM25 over chunk_words (and the source's own
// list), ranker N over name words, ranker D over declaration names and a one-name query's
// completions, and for a task's text the file votes of ranker P (path words) and ranker T (type names).
import { splitTerms } from "../base/text.js";
import { derivedOnce, idList, prepared, recordedFileTotal, type Db } from "../store/db.js";
import { scopeCondition } from "./scope.js";
import { CHUNK_WORDS, IDENTIFIERS, allTermsFirst, bm25Of, chunkCount, ftsBest, joined, sourceBest, withoutCommonWords, type FtsOperator } from "./fts-rank.js";
import { STOP_WORDS, ftsClauses, identifierChains, isPartialName, proseWords, type FtsClause } from "./search-terms.js";
import type { Candidate } from "./search-types.js";

/**
 * BM25 over chunk_words. With `sourceOnly`, the chunks of files that are not tests and are not
 * markdown (a list of its own when tests and documents crowd the source out of the first one).
 */
export function bm25Ranking(db: Db, query: string, scopeIds: number[] | null, pool: number, sourceOnly = false): Candidate[] {
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

interface DeclexRank {
  /** 0: the whole name, same case; 1: the whole name, other case; 2: the last `.`-segment only. */
  tier: number;
  multiplicity: number;
  chunkKey: number;
}

/**
 * Ranker T, for a task's text: the files declaring the types named by its lower-case words of 4+
 * letters, whatever the case (`fix str(response.headers)` names the class Headers), rarer names
 * first. Only types: a lower-case word naming a function or a method is everyday prose ("hash",
 * "validate") as often.
 */
export function typeNameRanking(db: Db, query: string, scopeIds: number[] | null, pool: number): number[] {
  const words = [...new Set(identifierChains(query).plain.filter((t) => t.length >= 4 && /^[a-z]+$/.test(t) && !STOP_WORDS.has(t)))];
  if (words.length === 0) return [];
  const scope = scopeCondition("c.file_id", scopeIds);
  // The chunk types that declare a type, as idx_chunks_type_tail's WHERE names them (so SQLite reads that index).
  const stmt = prepared(
    db,
    `SELECT c.file_id FROM chunks c WHERE c.symbol_tail = ? AND c.chunk_type IN ('class_shell', 'interface', 'type') AND lower(c.symbol_name) = c.symbol_tail AND ${scope.sql} ORDER BY c.chunk_key`,
  ).pluck();
  const found = words.map((w) => stmt.all(w, ...scope.params) as number[]).filter((ids) => ids.length > 0);
  return [...new Set(found.sort((a, b) => a.length - b.length).flat())].slice(0, pool);
}

/**
 * Ranker D: chunks whose symbol name equals a token or ends with `.` + token (case-insensitive),
 * whole names before segments, exact case first, rarer names first, then chunk id. A qualified
 * token (`Class.method`) must equal the whole name; its parts are not matched on their own.
 */
export function declarationExactRanking(db: Db, tokens: readonly string[], scopeIds: number[] | null, pool: number): { ids: number[]; whole: boolean } {
  if (tokens.length === 0) return { ids: [], whole: false };
  const scope = scopeCondition("c.file_id", scopeIds);
  const stmt = prepared(db, `SELECT c.id AS id, c.chunk_key AS chunkKey, c.symbol_name AS name FROM chunks c WHERE c.symbol_tail = ? AND ${scope.sql}`);
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

/** Chunks whose name or last segment starts with a partial one-name query, shortest names first (the nearest completions). */
export function prefixCandidates(db: Db, name: string, scopeIds: number[] | null, pool: number): number[] {
  if (!isPartialName(name)) return [];
  const scope = scopeCondition("c.file_id", scopeIds);
  const lower = name.toLowerCase();
  // symbol_tail is the lower-cased last segment: a range over idx_chunks_tail; whole names through idx_chunks_symbol.
  return prepared(
    db,
    `SELECT c.id FROM chunks c WHERE ((c.symbol_tail >= ? AND c.symbol_tail < ?) OR (c.symbol_name >= ? AND c.symbol_name < ?)) AND ${scope.sql}
       ORDER BY length(c.symbol_name), c.chunk_key LIMIT ?`,
  )
    .pluck()
    .all(lower, `${lower}\u{10FFFF}`, name, `${name}\u{10FFFF}`, ...scope.params, pool) as number[];
}

/**
 * Ranker N: the query's words (identifiers split on camelCase and `_`, function words dropped)
 * against each chunk's name words and identifier bag, stemmed (`matching` → `match`); a word in
 * the symbol's own name weighs six times one in its body, so "router matching" reaches
 * `TrieRouter.match`.
 */
export function nameTermRanking(db: Db, query: string, scopeIds: number[] | null, pool: number): number[] {
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
export function onlyCommonWords(db: Db, words: readonly string[]): boolean {
  const total = chunkCount(db);
  if (total < COMMON_MIN_CHUNKS || words.length === 0) return false;
  const count = prepared(db, "SELECT count(*) FROM identifier_fts WHERE identifier_fts MATCH ?").pluck();
  return words.map((w) => count.get(`"${w.replace(/"/g, '""')}"`) as number).every((n) => n === 0 || n > total * COMMON_SHARE);
}

/**
 * Ranker P: files whose path names the query's words — a directory, or the file's stem split into
 * words (`_multipart.py` for "multipart"; `digest_auth` for "digest auth") — each word weighted by
 * how few paths hold it (its inverse path frequency), so a word every path has weighs nothing.
 * File ids, best first, at most `limit`.
 */
export function pathTermRanking(db: Db, query: string, scopeIds: number[] | null, limit: number): number[] {
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
export function chunksNaming(db: Db, fileIds: readonly number[], words: ReadonlySet<string>): Map<number, number> {
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
