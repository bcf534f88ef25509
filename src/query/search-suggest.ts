// mast_search's zero-result suggestions: similar declaration names by trigrams, and chunks matching
// the query's split terms whose own names carry them.
import { splitTerms } from "../base/text.js";
import { derivedOnce, prepared, type Db } from "../store/db.js";
import { scopeCondition } from "./scope.js";
import { bm25Of, chunkCount } from "./fts-rank.js";
import { PREFIX_MIN, termWords } from "./search-terms.js";
import type { Suggestion } from "./search-types.js";

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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

/** A name this Dice-similar to the query, by trigrams, is a "similar symbol name". */
const SIMILAR_MIN = 0.3;

function allSymbolNames(db: Db, scopeIds: number[] | null): Array<{ name: string; path: string }> {
  const scope = scopeCondition("s.file_id", scopeIds);
  return prepared(db, `SELECT s.name, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind != 'export' AND ${scope.sql}`).all(...scope.params) as Array<{ name: string; path: string }>;
}

/**
 * Every declaration's name by its trigrams, for the unscoped "similar symbol name" (kept per
 * connection until the data changes): each distinct name once, with the files declaring it, and
 * each trigram's names — a query compares only the names sharing one of its trigrams, not every
 * name's trigrams built again (a server fanning a search out to many indexes asks each).
 */
interface NameTrigrams {
  readonly names: ReadonlyArray<{ readonly name: string; readonly size: number; readonly paths: string[] }>;
  readonly postings: ReadonlyMap<string, readonly number[]>;
}

function nameTrigrams(db: Db): NameTrigrams {
  return derivedOnce(db, "symbol-name-trigrams", () => {
    const byName = new Map<string, { name: string; size: number; paths: string[] }>();
    for (const { name, path } of allSymbolNames(db, null)) {
      const entry = byName.get(name);
      if (entry === undefined) byName.set(name, { name, size: 0, paths: [path] });
      else entry.paths.push(path);
    }
    const names = [...byName.values()];
    const postings = new Map<string, number[]>();
    names.forEach((entry, i) => {
      const grams = trigrams(entry.name);
      entry.size = grams.size;
      for (const g of grams) {
        const list = postings.get(g);
        if (list === undefined) postings.set(g, [i]);
        else list.push(i);
      }
    });
    return { names, postings };
  });
}

/** The declarations (name and file) whose name's trigrams are at least `min` Dice-similar to `q`, each with its score. */
function similarNames(db: Db, q: Set<string>, scopeIds: number[] | null, min: number): Array<{ name: string; path: string; score: number }> {
  if (scopeIds !== null) {
    return allSymbolNames(db, scopeIds)
      .map((s) => ({ ...s, score: dice(q, trigrams(s.name)) }))
      .filter((s) => s.score >= min);
  }
  const { names, postings } = nameTrigrams(db);
  const shared = new Map<number, number>();
  for (const g of q) for (const i of postings.get(g) ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
  const out: Array<{ name: string; path: string; score: number }> = [];
  for (const [i, n] of shared) {
    const entry = names[i]!;
    const score = (2 * n) / (q.size + entry.size || 1);
    if (score >= min) for (const path of entry.paths) out.push({ name: entry.name, path, score });
  }
  return out;
}

/** The declarations whose name's last segment begins with the first two letters of a query word, any case, after any leading `_`, `__` or `$` (a typo seldom starts a word). */
export function symbolNamesBeginning(db: Db, query: string, scopeIds: number[] | null): Array<{ name: string; path: string }> {
  const scope = scopeCondition("c.file_id", scopeIds);
  const stmt = prepared(
    db,
    `SELECT DISTINCT c.symbol_name AS name, f.path FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.symbol_tail >= ? AND c.symbol_tail < ? AND c.symbol_name IS NOT NULL AND ${scope.sql}`,
  );
  const starts = new Set(
    termWords(query)
      .map((w) =>
        w
          .toLowerCase()
          .replace(/^[_$]+/, "")
          .slice(0, 2),
      )
      .filter((w) => w.length === 2),
  );
  const out = new Map<string, { name: string; path: string }>();
  for (const start of starts) {
    for (const lead of ["", "_", "__", "$"]) {
      for (const row of stmt.all(lead + start, `${lead}${start}\u{10FFFF}`, ...scope.params) as Array<{ name: string; path: string }>) out.set(`${row.name}\0${row.path}`, row);
    }
  }
  return [...out.values()];
}

/** Zero-result assist: "did you mean" symbols from three relaxations, de-duplicated, capped at `limit`. */
export function suggest(db: Db, query: string, scopeIds: number[] | null, limit: number): Suggestion[] {
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
    const similar =
      chunkCount(db) <= SUGGEST_SCAN_CHUNKS
        ? similarNames(db, q, scopeIds, SIMILAR_MIN)
        : symbolNamesBeginning(db, query, scopeIds)
            .map((s) => ({ ...s, score: dice(q, trigrams(s.name)) }))
            .filter((s) => s.score >= SIMILAR_MIN);
    similar
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
      prepared(
        db,
        `SELECT c.symbol_name AS name, f.path FROM ${table} JOIN chunks c ON c.id = ${table}.rowid JOIN files f ON f.id = c.file_id
           WHERE ${table} MATCH ? AND c.symbol_name IS NOT NULL AND ${chunkScope.sql} ORDER BY ${bm25Of(db, { table, weights: "" })}, c.chunk_key LIMIT ?`,
      ).all(expression, ...chunkScope.params, limit) as Array<{ name: string; path: string }>;
    named("chunk_words").forEach((h) => close(h.name) && add(h.name, h.path, "matched split query terms"));
    named("identifier_fts").forEach((h) => close(h.name) && add(h.name, h.path, "identifier near-miss"));
  }
  return out;
}
