// mast_search (docs/search.md): the rankers' lists (search-rankers.ts: BM25 over chunk_words, the
// declaration-exact ranker D, ...) fused by Reciprocal Rank Fusion over pools of 4x the limit, a
// one-name query's name tiers and the roles it does not ask for ranked first; scope filters before
// ranking, chunk_type and only_exported after; the answer shaped by search-results.ts (shell/method
// dedup with backfill), zero-result suggestions by search-suggest.ts.
import { pathRole, type PathRole } from "../base/paths.js";
import { chunkId } from "../base/hash.js";
import { prepared, type Db } from "../store/db.js";
import { scopeFileIds, type ScopeInput } from "./scope.js";
import { CHUNK_PLACE_COLUMNS } from "./source.js";
import { declexTokens, demotedRoles, isPartialName, isTaskText, proseWords, queryAsName } from "./search-terms.js";
import { bm25Ranking, chunksNaming, declarationExactRanking, nameTermRanking, onlyCommonWords, pathTermRanking, prefixCandidates, typeNameRanking } from "./search-rankers.js";
import { NEIGHBOUR_HITS, dedupShellsAndMethods, filesFirst, foldSplitParts, moreFiles, neighbourFiles, resultsOf } from "./search-results.js";
import { suggest } from "./search-suggest.js";
import type { Candidate, ChunkRow, DeclexFire, SearchResponse } from "./search-types.js";

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

/** At most this many chunks are listed in `DeclexFire.window_effects`. */
const DECLEX_EFFECTS_CAP = 10;

/** A file vote's weight against one chunk ranker's (RRF): a file stem or a type name says where, not which chunk. */
const FILE_VOTE = 0.5;

/**
 * The chunks a query finds, best first: the rankers' lists fused by RRF — BM25, ranker N, ranker D
 * and a one-name query's completions, the source's own BM25 list when tests and documents crowd it
 * out, a task's file votes — ordered by name tier and role first, filtered, split parts folded,
 * outlines and methods deduplicated to `limit`, their text read from their files.
 */
export function searchChunks(db: Db, input: SearchInput, options: SearchOptions): SearchResponse {
  const pool = input.limit * 4;
  const scopeIds = scopeFileIds(db, input);
  const fusion = new Fusion(options.rrfK);
  const bm25 = bm25Ranking(db, input.query, scopeIds, pool);
  fusion.addScored(bm25);
  fusion.add(nameTermRanking(db, input.query, scopeIds, pool));
  const task = isTaskText(input.query);
  const byPath = task ? pathTermRanking(db, input.query, scopeIds, input.limit) : [];
  const asName = queryAsName(input.query);
  // A query that is one name is D's one token whatever its shape (`compose`, `error`): the
  // declarations of that name must be candidates to take the first tier (decisions.md).
  let declex: { ids: number[]; whole: boolean } = { ids: [], whole: false };
  if (options.declarationExactRanker) {
    declex = declarationExactRanking(db, asName !== null ? [asName] : declexTokens(input.query), scopeIds, pool);
    fusion.add(declex.ids);
    if (asName !== null) fusion.add(prefixCandidates(db, asName, scopeIds, pool));
  }
  const rows = loadChunks(db, [...fusion.candidates.keys()]);
  // Tests, documents and examples rank after the source unless the query names them: when they
  // crowd the source out of BM25's list (full, and with fewer source chunks than the limit), a
  // list of the source's own best matches joins the fusion.
  const demoted = demotedRoles(input.query);
  const isDemoted = (row: ChunkRow) => demoted.has(chunkRole(row));
  if (demoted.size > 0 && bm25.length === pool && bm25.filter((c) => !isDemoted(rows.get(c.id)!)).length < input.limit) fuseSourceList(db, input.query, scopeIds, pool, fusion, rows);
  if (task) voteForFiles(db, input.query, scopeIds, pool, byPath, fusion, rows);
  const { fused, placeOf } = ranked(fusion.candidates, rows, asName, isDemoted, input);
  const declexFire = declex.ids.length > 0 ? declexEffects(db, declex, options.rrfK, fused, rows, placeOf) : undefined;
  const { survivors, folded } = foldSplitParts(fused, rows);
  // A task's text wants files: each file's best chunk first, a file's second chunk only when no other file is left to name.
  const spread = task ? filesFirst(survivors, rows) : survivors;
  const kept = dedupShellsAndMethods(spread, rows, input.limit);
  for (const k of kept) {
    const parts = folded.get(k.candidate.id);
    if (parts && !k.related) k.related = { parts_matched: parts };
  }
  const results = resultsOf(db, input.query, kept, rows, options.projectRoot);
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

/** The candidates the rankers' lists are fused into by Reciprocal Rank Fusion, by chunk id. */
class Fusion {
  readonly candidates = new Map<number, Candidate>();

  constructor(readonly rrfK: number) {}

  /** BM25's list, the first fused: its candidates as they are, each given 1 / (k + rank). */
  addScored(list: readonly Candidate[]): void {
    list.forEach((c, i) => {
      c.rrf = 1 / (this.rrfK + i + 1);
      this.candidates.set(c.id, c);
    });
  }

  /** A ranker's list of chunk ids, best first: each chunk gains 1 / (k + rank), a new one a candidate. */
  add(ids: readonly number[]): void {
    ids.forEach((id, i) => {
      const rank = i + 1;
      const existing = this.candidates.get(id);
      if (existing) {
        existing.rrf += 1 / (this.rrfK + rank);
        existing.bestRank = Math.min(existing.bestRank, rank);
      } else {
        this.candidates.set(id, { id, bm25: null, snippet: null, rrf: 1 / (this.rrfK + rank), bestRank: rank });
      }
    });
  }
}

/** The source's own BM25 list (no tests, no documents) fused in, its chunks' rows loaded and their BM25 scores kept. */
function fuseSourceList(db: Db, query: string, scopeIds: number[] | null, pool: number, fusion: Fusion, rows: Map<number, ChunkRow>): void {
  const source = bm25Ranking(db, query, scopeIds, pool, true);
  fusion.add(source.map((c) => c.id));
  for (const c of source) fusion.candidates.get(c.id)!.bm25 ??= c.bm25;
  for (const [id, row] of loadChunks(
    db,
    source.map((c) => c.id).filter((id) => !rows.has(id)),
  ))
    rows.set(id, row);
}

/** A task's file stems and type names vote for files: each vote goes to the file's best chunk by its text (a new candidate only when the file has none). */
function voteForFiles(db: Db, query: string, scopeIds: number[] | null, pool: number, byPath: readonly number[], fusion: Fusion, rows: Map<number, ChunkRow>): void {
  const bestOf = new Map<number, Candidate>();
  for (const c of fusion.candidates.values()) {
    const row = rows.get(c.id);
    if (row === undefined) continue;
    const fileId = row.file_id;
    if ((bestOf.get(fileId)?.rrf ?? -1) < c.rrf) bestOf.set(fileId, c);
  }
  const words = new Set(proseWords(query));
  const voting = [byPath, typeNameRanking(db, query, scopeIds, pool)];
  const named = chunksNaming(db, [...new Set(voting.flat().filter((fileId) => !bestOf.has(fileId)))], words);
  const added: number[] = [];
  for (const files of voting) {
    files.forEach((fileId, i) => {
      const vote = FILE_VOTE / (fusion.rrfK + i + 1);
      const best = bestOf.get(fileId);
      if (best) {
        best.rrf += vote;
        return;
      }
      const id = named.get(fileId);
      if (id === undefined) return;
      const c: Candidate = { id, bm25: null, snippet: null, rrf: vote, bestRank: i + 1 };
      fusion.candidates.set(id, c);
      bestOf.set(fileId, c);
      added.push(id);
    });
  }
  for (const [loaded, row] of loadChunks(db, added)) rows.set(loaded, row);
}

/**
 * The candidates with a row, in rank order — a one-name query's name tier, then the source before
 * the roles it does not ask for, then the fused score, the best single rank, the chunk key — then
 * filtered by chunk_type and only_exported; `placeOf`: a candidate's tier and role as one number.
 */
function ranked(
  candidates: ReadonlyMap<number, Candidate>,
  rows: ReadonlyMap<number, ChunkRow>,
  asName: string | null,
  isDemoted: (row: ChunkRow) => boolean,
  input: SearchInput,
): { fused: Candidate[]; placeOf: (id: number) => number } {
  const tierOf = new Map<number, number>();
  for (const c of candidates.values()) {
    const row = rows.get(c.id);
    tierOf.set(c.id, asName === null || row === undefined ? NO_NAME_TIER : nameTier(row.symbol_name, row.chunk_type, asName));
  }
  const roleOf = new Map<number, number>();
  for (const [id, row] of rows) roleOf.set(id, isDemoted(row) ? 1 : 0);
  const fused = [...candidates.values()]
    .filter((c) => rows.has(c.id))
    .sort((a, b) => tierOf.get(a.id)! - tierOf.get(b.id)! || roleOf.get(a.id)! - roleOf.get(b.id)! || b.rrf - a.rrf || a.bestRank - b.bestRank || rows.get(a.id)!.chunk_key - rows.get(b.id)!.chunk_key)
    .filter((c) => {
      const row = rows.get(c.id)!;
      return (!input.chunk_type || row.chunk_type === input.chunk_type) && (!input.only_exported || row.is_exported === 1);
    });
  return { fused, placeOf: (id) => tierOf.get(id)! * 2 + roleOf.get(id)! };
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
function declexEffects(db: Db, declex: { ids: number[]; whole: boolean }, rrfK: number, fused: readonly Candidate[], rows: ReadonlyMap<number, ChunkRow>, tierOf: (id: number) => number): DeclexFire {
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

/** A chunk's role: a test file's, a document's (markdown sections and files under docs/), an example's, else the source's. */
function chunkRole(row: ChunkRow): PathRole {
  if (row.is_test === 1) return "test";
  if (row.chunk_type === "doc") return "doc";
  return pathRole(row.path);
}

function loadChunks(db: Db, ids: number[]): Map<number, ChunkRow> {
  if (ids.length === 0) return new Map();
  const rows = prepared(
    db,
    `SELECT c.id, c.chunk_key, c.file_id, c.start_line, c.end_line, ${CHUNK_PLACE_COLUMNS}, c.chunk_type, c.symbol_name, c.parent_symbol, c.is_exported, f.is_test, c.part
       FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ids)) as ChunkRow[];
  return new Map(rows.map((r) => [r.id, r]));
}

export function isIndexEmpty(db: Db): boolean {
  return prepared(db, "SELECT 1 FROM chunks LIMIT 1").get() === undefined;
}
