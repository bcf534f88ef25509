// The shapes mast_search answers in (results, suggestions, ranker D's telemetry) and the rows its
// steps hand each other: a fused candidate and a candidate chunk's row.
import type { ChunkPlace } from "../store/chunk-text.js";

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

/** What ranker D did in one search (docs/search.md#what-telemetry-records), for telemetry only. */
export interface DeclexFire {
  fired: true;
  top_match_channel: "full" | "segment";
  candidate_count: number;
  /** D's chunks by their fused (pre-dedup) rank with D's list and without it (null: only D found it). */
  window_effects: Array<{ chunk_id: string; symbol_name: string | null; rank_with_d: number | null; rank_without_d: number | null }>;
  _truncated?: number;
}

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

export interface Candidate {
  id: number;
  bm25: number | null;
  snippet: string | null;
  rrf: number;
  bestRank: number;
}

export interface ChunkRow extends ChunkPlace {
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
