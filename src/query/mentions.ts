// The lines naming a name as a whole identifier: the chunks identifier_fts and chunk_words find for
// it (a common name's list kept per connection, a reader's scan budget spent on the likeliest
// files first), each line classified as chunk-lines.ts reads it; the name's patterns, a site's text.
import { LRUCache } from "../base/lru.js";
import { clipAround } from "../base/text.js";
import { isCommentLine } from "../lang/languages.js";
import { derivedOnce, idList, prepared, type Db } from "../store/db.js";
import { SourceLines } from "./source.js";
import { tailOf } from "./navigation.js";
import { CHUNK_ROWS, forEachChunkLine, forEachLineNaming, type ChunkRow } from "./chunk-lines.js";

/** A site's text longer than this is clipped around the name (`…` marks each cut), as `rg --max-columns` would. */
const MAX_CONTEXT_CHARS = 160;

/** A line that names a name: where, its text, how many call-shaped uses, whether inside an import clause, whether prose (documentation, a doc string). */
export interface MentionLine {
  file_path: string;
  line: number;
  context: string;
  fileId: number;
  calls: number;
  inImport: boolean;
  prose: boolean;
}

/**
 * Every line (deduplicated, in path and chunk order) that names one of `tails` as a whole
 * identifier, in the chunks identifier_fts finds for it; with `docComments`, then the comment lines
 * naming it in the other chunks whose text holds it (identifier_fts has code tokens only: a chunk
 * naming it in a doc comment alone is found by a scan of every chunk's text).
 */
export function mentionLines(db: Db, source: SourceLines, tails: readonly string[], docComments = false, budget: ScanBudget | null = null): MentionLine[] {
  // identifier_fts also matches other forms of the name (stems, snake_case parts: `get_all` for
  // `all`): a chunk whose text lacks the name as a word has no line naming it, and must not take a
  // place in the scan's budget (a class outline's lines are the file's).
  const naming = `JOIN identifier_fts ON identifier_fts.rowid = c.id WHERE identifier_fts MATCH ?
         AND (c.chunk_type = 'class_shell' OR c.id IN (SELECT rowid FROM chunk_words WHERE chunk_words MATCH ?))`;
  const params = [ftsPhrases(tails), wordsNaming(tails)];
  let chunks: ChunkRow[];
  if (budget === null) chunks = prepared(db, `${CHUNK_ROWS} ${naming} ORDER BY f.path, c.start_line, c.id`).all(...params) as ChunkRow[];
  else {
    // Ids first, rows after: past the budget, the chunks of the likeliest files (stable: then by
    // id) are read and the rest counted.
    const found = chunksMentioning(db, ftsPhrases(tails), wordsNaming(tails));
    const kept = found.length > budget.maxChunks ? keptByTier(db, found, budget) : found;
    budget.unexamined = found.length - kept.length;
    chunks = prepared(db, `${CHUNK_ROWS} WHERE c.id IN (SELECT value FROM json_each(?)) ORDER BY f.path, c.start_line, c.id`).all(JSON.stringify(kept)) as ChunkRow[];
  }
  const mention = mentionPattern(tails);
  const callShaped = callPattern(tails);
  const candidates: MentionLine[] = [];
  const seen = new Set<string>();
  const scan = (c: ChunkRow, keep: (text: string) => boolean) =>
    forEachLineNaming(c, source, tails, (line, text, inImport, prose) => {
      if (!mention.test(text) || !keep(text)) return;
      const key = `${c.path}:${line}`;
      if (seen.has(key)) return;
      seen.add(key);
      candidates.push(mentionLine(c, line, text, inImport, prose, callShaped));
    });
  for (const c of chunks) scan(c, () => true);
  if (docComments) {
    const found = new Set(chunks.map((c) => c.id));
    const byText = prepared(db, `${CHUNK_ROWS} WHERE c.id IN (SELECT rowid FROM chunk_words WHERE chunk_words MATCH ?) ORDER BY f.path, c.start_line, c.id`).all(wordsNaming(tails)) as ChunkRow[];
    for (const c of byText) if (!found.has(c.id)) scan(c, (text) => isCommentLine(text.trim(), c.path));
  }
  return candidates;
}

/** The chunks mentioning a common name whose lists are kept per connection (until the data changes), at most. */
const NAMING_KEPT = 8;
/** From this many chunks a name's list is kept (reading it costs 50–250 ms at 1 GB). */
const NAMING_KEPT_FROM = 20_000;

/**
 * The chunks naming `phrases` in identifier_fts whose text holds `words` as a word in chunk_words,
 * and the class outlines among those that do not (an outline's lines are its file's), ascending.
 * From the two indexes alone, without a chunk row read per match (a common name is in ~40,000
 * chunks of a 1 GB tree: 140-340 ms joined); the lists of the NAMING_KEPT names read last with
 * `keepFrom` (NAMING_KEPT_FROM) chunks or more are kept, most recent last: `is`, `from`, `constructor` end many
 * qualified names an agent asks about, and each walks two lists of ~250,000 postings.
 */
export function chunksMentioning(db: Db, phrases: string, words: string, keepFrom = NAMING_KEPT_FROM): readonly number[] {
  const kept = derivedOnce(db, "chunks mentioning", () => new LRUCache<string, readonly number[]>({ max: NAMING_KEPT }));
  const key = `${phrases}\u0000${words}`;
  const hit = kept.get(key);
  if (hit !== undefined) return hit;
  const named = idList(db, "SELECT rowid AS id FROM identifier_fts WHERE identifier_fts MATCH ? ORDER BY rowid", [phrases]);
  const worded = idList(db, "SELECT rowid AS id FROM chunk_words WHERE chunk_words MATCH ? ORDER BY rowid", [words]);
  // Both in rowid order: one merge splits the named chunks by the word (no set of the 200,000 chunks a common word is in).
  const [withWord, unworded] = splitBySorted(named, worded);
  const shells = outlinesAmong(db, unworded);
  const found = shells.length === 0 ? withWord : [...withWord, ...shells].sort((a, b) => a - b);
  if (found.length >= keepFrom) kept.set(key, found);
  return found;
}

/** Past this many ids, outlinesAmong merges them with every outline's id instead of probing each. */
const OUTLINE_PROBES = 2_000;

/**
 * The class outlines among `ids` (ascending), ascending. Up to `probes` ids are probed in the
 * outlines' own partial index (2 MB at 1 GB), not by reading each chunk's row; many (a common name's 120,000
 * chunks lacking it as a word: 30-90 ms probed) are merged with every outline's id, read once per
 * connection until the data changes (174,000 at 1 GB, ~55 ms).
 */
export function outlinesAmong(db: Db, ids: readonly number[], probes = OUTLINE_PROBES): number[] {
  if (ids.length === 0) return [];
  if (ids.length <= probes) {
    return prepared(db, "SELECT id FROM chunks INDEXED BY idx_chunks_shell WHERE chunk_type = 'class_shell' AND id IN (SELECT value FROM json_each(?))").pluck().all(JSON.stringify(ids)) as number[];
  }
  const outlines = derivedOnce(db, "outline ids", () => idList(db, "SELECT id FROM chunks INDEXED BY idx_chunks_shell WHERE chunk_type = 'class_shell' ORDER BY id", []));
  return splitBySorted(ids, outlines)[0];
}

/** `ids` split into those `sorted` holds and the rest, by one merge (both ascending). */
function splitBySorted(ids: ArrayLike<number>, sorted: ArrayLike<number>): [inside: number[], outside: number[]] {
  const inside: number[] = [];
  const outside: number[] = [];
  for (let i = 0, j = 0; i < ids.length; i++) {
    const id = ids[i]!;
    while (j < sorted.length && sorted[j]! < id) j++;
    (sorted[j] === id ? inside : outside).push(id);
  }
  return [inside, outside];
}

/**
 * The `budget.maxChunks` of `found` (chunk ids, ascending) to read: by tier, then id. A tier's
 * chunks among `found` are told either by its files' chunks (an index range per file) or by the
 * files of `found`'s chunks, read a slice at a time in id order: the second while the tier is
 * dense enough among them that the budget fills within a few slices (a hub's 7,500 importing files
 * hold 270,000 chunks, and the first 500 of them among a common name's 40,000 come in the first
 * slice), the first otherwise (a tier of few files at once).
 */
function keptByTier(db: Db, found: readonly number[], budget: ScanBudget): number[] {
  const tiers = budget.tiers();
  const tierOf = new Map<number, number>();
  tiers.forEach((files, tier) => files.forEach((f) => tierOf.has(f) || tierOf.set(f, tier)));
  const kept: number[] = [];
  const room = () => budget.maxChunks - kept.length;
  // The file of each found chunk, read a slice at a time (each slice once, whichever tier asks).
  const fileOf: number[] = [];
  const fileAt = (i: number): number => {
    while (i >= fileOf.length) {
      const slice = found.slice(fileOf.length, fileOf.length + FILE_SLICE);
      const files = new Map(prepared(db, "SELECT id, file_id FROM chunks WHERE id IN (SELECT value FROM json_each(?))").raw().all(JSON.stringify(slice)) as Array<[number, number]>);
      for (const id of slice) fileOf.push(files.get(id) ?? -1);
    }
    return fileOf[i]!;
  };
  // Each tier's chunks when read by its files (a file counts in the first tier holding it).
  const byFile: Array<Set<number> | null> = tiers.map(() => null);
  const readByFile = (tier: number): void => {
    const own = tiers[tier]!.filter((f) => tierOf.get(f) === tier);
    byFile[tier] = new Set(idList(db, "SELECT id FROM chunks WHERE file_id IN (SELECT value FROM json_each(?))", [JSON.stringify(own)]));
  };
  const tierAt = (i: number): number => {
    if (i < fileOf.length) return tierOf.get(fileOf[i]!) ?? tiers.length;
    if (byFile.every((ids) => ids !== null)) {
      const at = byFile.findIndex((ids) => ids!.has(found[i]!));
      return at < 0 ? tiers.length : at;
    }
    return tierOf.get(fileAt(i)) ?? tiers.length;
  };
  tiers.forEach((files, tier) => {
    if (files.length <= FEW_FILES) readByFile(tier);
    let hits = 0;
    for (let i = 0; i < found.length && room() > 0; i++) {
      // At each slice's end: too sparse here to fill the budget within a few more slices, the tier is read by its files.
      if (byFile[tier] === null && i > 0 && i % FILE_SLICE === 0 && (hits === 0 || (room() * i) / hits > SCAN_SLICES * FILE_SLICE)) readByFile(tier);
      const ids = byFile[tier]!;
      if (ids !== null ? ids.has(found[i]!) : tierAt(i) === tier) {
        kept.push(found[i]!);
        hits++;
      }
    }
  });
  for (let i = 0; i < found.length && room() > 0; i++) if (tierAt(i) === tiers.length) kept.push(found[i]!);
  return kept;
}

/** A tier of at most this many files has its chunks read by file at once (keptByTier). */
const FEW_FILES = 64;
/** Found chunks whose files keptByTier reads at once. */
const FILE_SLICE = 1_000;
/** Slices of found chunks keptByTier expects to read for a tier before it reads the tier's files' chunks instead. */
const SCAN_SLICES = 4;

/**
 * How many chunks naming a target a potential-line scan reads (each of its lines classified): past
 * it, the chunks of the files likeliest to call it (`rank`, lower first) are read and the rest
 * counted in `unexamined`. A common name (`name`, `map`) is in tens of thousands of chunks of a
 * large tree, and a reader's answer shows 50 lines of them.
 */
export interface ScanBudget {
  readonly maxChunks: number;
  /** The files whose chunks are read first, as tiers (best first; a file is in the first tier holding it); the files of no tier come last. */
  readonly tiers: () => ReadonlyArray<readonly number[]>;
  unexamined: number;
}

/** Every line naming one of `tails` as a whole identifier (in identifier_fts's chunks; class outlines' lines read from the file), in path and line order: mast_references' candidates. */
export function linesNaming(db: Db, projectRoot: string, tails: readonly string[]): Array<{ file_path: string; fileId: number; line: number; context: string }> {
  return mentionLines(db, new SourceLines(projectRoot), tails)
    .map(({ file_path, fileId, line, context }) => ({ file_path, fileId, line, context }))
    .sort((a, b) => (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : a.line - b.line));
}

/** mentionLines for each of `wanted` (ASCII names, `#private` ones included) alone, in one scan of the chunks identifier_fts finds for any. */
export function mentionsOfEach(db: Db, source: SourceLines, wanted: ReadonlySet<string>): Map<string, MentionLine[]> {
  const namesIn = new Map<number, Set<string>>();
  for (const tail of wanted)
    for (const id of idList(db, "SELECT rowid AS id FROM identifier_fts WHERE identifier_fts MATCH ?", [ftsPhrases([tail])])) (namesIn.get(id) ?? namesIn.set(id, new Set()).get(id)!).add(tail);
  const found = new Map<string, MentionLine[]>();
  const seen = new Set<string>();
  const patterns = new Map<string, RegExp>();
  for (const c of prepared(db, `${CHUNK_ROWS} ORDER BY f.path, c.start_line, c.id`).iterate() as IterableIterator<ChunkRow>) {
    const names = namesIn.get(c.id);
    if (names === undefined) continue;
    forEachChunkLine(c, source, (line, text, inImport, prose) => {
      let context: string | null = null; // one copy of the line for every name on it
      // A maximal `#?[\w$]+` run is a whole identifier (mentionLines' test) unless a `#` run follows a name character or another `#`.
      for (const m of text.matchAll(/#?[\w$]+/g)) {
        const tail = m[0];
        if (!names.has(tail) || (tail.startsWith("#") && m.index > 0 && /[\w$#]/.test(text[m.index - 1]!))) continue;
        const key = `${tail}\n${c.path}:${line}`;
        if (seen.has(key)) continue;
        seen.add(key);
        let callShaped = patterns.get(tail);
        if (!callShaped) patterns.set(tail, (callShaped = callPattern([tail])));
        context ??= text.trim();
        (found.get(tail) ?? found.set(tail, []).get(tail)!).push(mentionLine(c, line, text, inImport, prose, callShaped, context));
      }
    });
  }
  return found;
}

/** The identifier_fts query for lines naming one of the names: identifier_fts splits on `#`, `_` and punctuation, so a phrase of each name's own tokens. */
function ftsPhrases(tails: readonly string[]): string {
  return tails.map((t) => `"${t.replace(/^#/, "")}"`).join(" OR ");
}

/** The chunk_words query for the chunks whose text has one of the names as a word (any case: a superset of the text holding it). */
function wordsNaming(tails: readonly string[]): string {
  return tails.map((t) => `words : "${t.replace(/^#/, "")}"`).join(" OR ");
}

/** A site's line text as an answer gives it: clipped to MAX_CONTEXT_CHARS around the first mention `named` finds. */
export function siteText(text: string, named: RegExp): string {
  return clipAround(text, named.exec(text)?.index ?? 0, MAX_CONTEXT_CHARS);
}

/** A mention of one of the names (their last segments) as a whole identifier. */
export function mentionPattern(names: readonly string[]): RegExp {
  return new RegExp(`(?<![\\w$#])(?:${alternation([...new Set(names.map(tailOf))])})(?![\\w$])`);
}

/** Names as regular-expression alternatives. */
export function alternation(tails: readonly string[]): string {
  return tails.map((t) => t.replace(/\$/g, "\\$")).join("|");
}

/** Call-shaped uses of one of the names: `name(`, `name<T>(`, `name?.(`, `` name` ``, `new name`. */
function callPattern(tails: readonly string[]): RegExp {
  const alternatives = alternation(tails);
  return new RegExp(`(?<![\\w$#])(?:${alternatives})\\s*(?:<[^()]*>\\s*)?(?:\\?\\.\\s*)?[(\`]|\\bnew\\s+(?:${alternatives})(?![\\w$])`, "g");
}

function mentionLine(c: ChunkRow, line: number, text: string, inImport: boolean, prose: boolean, callShaped: RegExp, context = text.trim()): MentionLine {
  const calls = text.match(callShaped)?.length ?? 0;
  return { file_path: c.path, line, context, fileId: c.fileId, calls, inImport, prose };
}
