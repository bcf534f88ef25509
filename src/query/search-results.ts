// mast_search's answer from its ranked candidates: split parts in one slot, class outline ↔ method
// dedup with backfill, a task's files first and `more_files` (neighbours in the call and import
// graphs first), match snippets, and the stale flags (a file that stats otherwise than indexed).
import { statSync } from "node:fs";
import { join } from "node:path";
import { sameStat, type FileStat } from "../index/read.js";
import { prepared, type Db } from "../store/db.js";
import { EDGE } from "../store/edge-codes.js";
import { chunkContent } from "../store/chunk-text.js";
import { SourceLines } from "./source.js";
import { ftsExpression, termWords } from "./search-terms.js";
import type { Candidate, ChunkRow, SearchResponse, SearchResult } from "./search-types.js";

/** Files named beyond the results (`more_files`) at most. */
const MORE_FILES = 10;

/** Candidates in rank order with each file's best first: later chunks of a file follow every other file's best. */
export function filesFirst(fused: Candidate[], rows: Map<number, ChunkRow>): Candidate[] {
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
export const NEIGHBOUR_HITS = 3;
/** Neighbours named ahead of more_files' own MORE_FILES at most (a hub's importers are many). */
const NEIGHBOUR_SLOTS = 3;

/**
 * The files next to hits in the call graph and the import graph: the files of the verified callers
 * and callees of the declarations in each hit's lines, and the files importing the hit's file —
 * each mapped to the hit's path. A fix often touches a caller and its callee, a type and its users.
 */
export function neighbourFiles(db: Db, hits: readonly SearchResult[]): Map<string, string> {
  const out = new Map<string, string>();
  const linked = prepared(
    db,
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
export function moreFiles(ranked: Candidate[], rows: Map<number, ChunkRow>, results: readonly SearchResult[], neighbours: ReadonlyMap<string, string>): NonNullable<SearchResponse["more_files"]> {
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
  const words = [
    ...new Set(
      query
        .split(/\s+/)
        .flatMap(termWords)
        .map((w) => w.toLowerCase()),
    ),
  ].sort((a, b) => b.length - a.length);
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

export interface Kept {
  candidate: Candidate;
  related?: SearchResult["related"];
}

/**
 * Keeps the higher-ranked half of every class_shell ↔ method pair (same class, same file) and
 * tells the survivor what was folded into it; suppressed slots are backfilled from the tail.
 */
export function dedupShellsAndMethods(fused: Candidate[], rows: Map<number, ChunkRow>, limit: number): Kept[] {
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
export function foldSplitParts(fused: Candidate[], rows: Map<number, ChunkRow>): { survivors: Candidate[]; folded: Map<number, number[]> } {
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

/** The kept candidates as results: their text read from their files, BM25 hits' snippets, ranks, stale flags. */
export function resultsOf(db: Db, query: string, kept: readonly Kept[], rows: ReadonlyMap<number, ChunkRow>, projectRoot: string): SearchResult[] {
  const source = new SourceLines(projectRoot);
  const read = new Map(kept.map((k) => [k.candidate.id, chunkContent(rows.get(k.candidate.id)!, source)]));
  const texts = new Map([...read].map(([id, text]) => [id, text ?? ""]));
  addSnippets(
    query,
    kept.map((k) => k.candidate),
    texts,
  );
  const results = kept.map((entry, i) => toResult(entry.candidate, rows.get(entry.candidate.id)!, texts.get(entry.candidate.id)!, i + 1, entry.related));
  flagStale(db, results, projectRoot);
  // A file that can no longer be read as the regular file indexed (gone, replaced by a symlink) gives no text: stale too.
  kept.forEach((k, i) => {
    if (read.get(k.candidate.id) === null) results[i]!.stale = true;
  });
  return results;
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

/** Stat-and-flag (docs/freshness.md): a result whose file no longer stats as indexed (size, mtime, inode, ctime), or is gone, is `stale`. */
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
  const stamp = () => prepared(db, "SELECT size, mtime AS mtimeMs, ino, ctime AS ctimeMs FROM files WHERE path = ?");
  const seen = new Map<string, boolean>();
  return (path) => {
    let stale = seen.get(path);
    if (stale === undefined) {
      const indexed = stamp().get(path) as FileStat | undefined;
      seen.set(path, (stale = indexed === undefined || staleOnDisk(projectRoot, path, indexed)));
    }
    return stale;
  };
}
