// The call-graph answers (spec §6.3, §9): mast_callers, mast_implementors and mast_rename_impact.
// Verified callers come from POTENTIAL_CALL edges only (and recurse over them alone); potential
// matches are every line of an identifier_fts hit that names the symbol and no verified edge
// explains, so a real call site the resolver missed is listed for review, never silently absent.
import { posix } from "node:path";
import { LRUCache } from "../base/lru.js";
import { isTestPath } from "../base/paths.js";
import { boundedDistance, clipAround, collapseWhitespace, splitTerms } from "../base/text.js";
import { reachableFiles } from "../store/link-inputs.js";
import { LANGUAGE_SPECS, ProseReader, extensionInfo, isCommentLine, withoutCommentLines, type LanguageSpec } from "../lang/languages.js";
import { CHECKER_META, derivedOnce, idList, prepared, symbolTextReader, type Db } from "../store/db.js";
import { CHUNK_PLACE_COLUMNS, SourceLines, chunkContent, type ChunkPlace } from "./source.js";
import { declaredName, methodOwnersOf, namesEndingWith, requireIndexedFile, resolveThroughReExports, tailOf } from "./navigation.js";
import { EDGE, RESOLVED, resolutionName } from "../store/edge-codes.js";

/** Default cap on potential_matches (spec: 50); the real count goes to summary.potential_total. */
export const POTENTIAL_LIMIT = 50;
/** The chunks naming a target a reader's potential-line scan reads at most (PotentialOptions.scanChunks). */
export const SCAN_CHUNKS = 500;
/** The bytes a potential line takes on average within the cap (`limit` lines of this many: a few long lines do not crowd out the rest). */
const POTENTIAL_LINE_BYTES = 100;
/** A site's text longer than this is clipped around the name (`…` marks each cut), as `rg --max-columns` would. */
const MAX_CONTEXT_CHARS = 160;
/** Levels a transitive callers query follows before it stops. */
const MAX_TRANSITIVE_DEPTH = 32;

// ---- declarations ----

interface DeclarationRow {
  id: number;
  name: string;
  kind: string;
  file_id: number;
  path: string;
  line: number;
  is_exported: number;
}

export interface DeclarationSite {
  file_path: string;
  line: number;
  kind: string;
  is_exported: boolean;
}

export interface Target {
  /** Every declaration of the name (in `file_path` when given), the one answered for first. */
  readonly sites: DeclarationRow[];
  /**
   * The ids edges to the first declaration point to: it, its overloads (same name, same file) and
   * its export aliases (`export { local as alias }` copies the declaration under the alias).
   */
  readonly ids: number[];
  /** Every name the declaration is called by: its own and its aliases, local and re-exported. */
  readonly names: string[];
}

/**
 * The declarations a query names: `symbol` (a name, or `Class.method`) everywhere — exported first,
 * then by path — or in `filePath`, following a barrel's re-exports to the declaration.
 */
/** Did-you-mean candidates offered with `not_found`. */
export const MAX_DID_YOU_MEAN = 5;

/**
 * What a graph or signature answer says when no declaration has the name: `not_found: true` and
 * up to five declared names it may have meant — the same name in another case first, then by
 * edit distance (at most a third of the name, at least 2), ties by case-sensitive distance, then
 * by name. An empty success would
 * read as "no callers".
 */
export function notFound(db: Db, symbol: string): { not_found: true; did_you_mean: string[] } {
  const names = prepared(db, "SELECT DISTINCT name FROM symbols WHERE kind != 'export'").pluck().all() as string[];
  const lower = symbol.toLowerCase();
  const limit = Math.max(2, Math.floor(symbol.length / 3));
  const scored = names
    .map((name) => ({ name, d: name.toLowerCase() === lower ? -1 : boundedDistance(lower, name.toLowerCase(), limit) }))
    .filter((x) => x.d <= limit)
    .map((x) => ({ ...x, exact: boundedDistance(symbol, x.name, symbol.length + x.name.length) }))
    .sort((a, b) => a.d - b.d || a.exact - b.exact || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Declarations the name names without its owners (`route` → `Sinatra.Base.route`) come first.
  const qualified = namesEndingWith(db, symbol);
  const rest = scored.map((x) => x.name).filter((n) => !qualified.includes(n));
  return { not_found: true, did_you_mean: [...qualified, ...rest].slice(0, MAX_DID_YOU_MEAN) };
}


export function findTarget(db: Db, query: string, filePath: string | null): Target {
  const file = filePath === null ? null : requireIndexedFile(db, filePath);
  const symbol = declaredName(db, query);
  let sites = prepared(db, 
      `SELECT s.id, s.name, s.kind, s.file_id, f.path, s.line, s.is_exported FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE s.name = ? AND s.kind != 'export' ${file ? "AND s.file_id = ?" : ""}
       ORDER BY s.is_exported DESC, f.path, s.line, s.id`,
    )
    .all(...(file ? [symbol, file.id] : [symbol])) as DeclarationRow[];
  if (sites.length === 0 && file) {
    const found = resolveThroughReExports(db, file.id, symbol, new Set());
    sites = found ? [{ id: found.id, name: found.name, kind: found.kind, file_id: found.file_id, path: found.path, line: found.line, is_exported: found.is_exported }] : [];
  }
  // In a file, a name without its owners is the declaration there that it ends (`reset` for a
  // nested `dedupeLink.reset`), the first by line when several do.
  if (sites.length === 0 && file && !symbol.includes(".")) {
    sites = prepared(db,
      `SELECT s.id, s.name, s.kind, s.file_id, f.path, s.line, s.is_exported FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE s.file_id = ? AND s.kind != 'export' AND s.name IN (SELECT value FROM json_each(?))
       ORDER BY s.line, s.id`,
    ).all(file.id, JSON.stringify(namesEndingWith(db, symbol, file.id))) as DeclarationRow[];
  }
  if (!file) sites = definitionFirst(db, sites);
  const first = sites[0];
  if (!first) return { sites, ids: [], names: [symbol] };
  const group = prepared(db, 
      `SELECT s.id, s.name FROM symbols s JOIN symbols d ON d.id = ?
       WHERE s.file_id = d.file_id AND s.kind = d.kind
         AND (s.name = d.name OR s.name = coalesce(d.alias_of, d.name) OR s.alias_of = coalesce(d.alias_of, d.name))
       ORDER BY s.line, s.id`,
    )
    .all(first.id) as Array<{ id: number; name: string }>;
  const ids = group.map((g) => g.id);
  // A C/C++ definition answers for the prototypes that declare it elsewhere (a header's): calls the
  // linker tied to a prototype are calls of the definition.
  if (sites.length > 1 && declaredElsewhere(first)) ids.push(...sites.filter((s) => s.file_id !== first.file_id && s.kind === first.kind && declaredElsewhere(s) && !hasBody(db, s.id)).map((s) => s.id));
  // Every file that exports it (its own, named and star barrels) under the name it exports it as,
  // and the local names imports give it there (`import { cloneElement as cloneForDom }`).
  const exporters = [
    ...group.map((g) => ({ path: first.path, as: g.name })),
    ...barrelExports(db, ids, first.file_id, first.name).map((b) => ({ path: b.file_path, as: b.exported_as })),
  ];
  const importAliases = prepared(db, "SELECT i.symbols, i.locals FROM imports i WHERE i.resolved_file_id = (SELECT id FROM files WHERE path = ?) AND i.kind IN ('import', 'require') AND EXISTS (SELECT 1 FROM json_each(i.symbols) j WHERE j.value = ?)")
    .raw();
  const names = new Set([first.name, ...exporters.map((e) => e.as)]);
  for (const e of exporters) {
    for (const [symbols, locals] of importAliases.all(e.path, e.as) as Array<[string, string]>) {
      const imported = JSON.parse(symbols) as string[];
      (JSON.parse(locals) as string[]).forEach((local, k) => {
        if (imported[k] === e.as) names.add(local);
      });
    }
  }
  return { sites, ids, names: [...names] };
}

/** Whether the site's language declares functions apart from their definitions (`LanguageSpec.declaredElsewhere`). */
function declaredElsewhere(site: DeclarationRow): boolean {
  return extensionInfo(site.path)?.spec.declaredElsewhere === true;
}

function hasBody(db: Db, id: number): boolean {
  return prepared(db, "SELECT has_body FROM symbols WHERE id = ?").pluck().get(id) === 1;
}

/**
 * The sites with, in a language that declares functions apart from their definitions, the one
 * definition first when the others are bodiless declarations of it (prototypes in headers): the
 * definition is what a caller runs. Several definitions (one per platform) leave the order as it is.
 */
function definitionFirst(db: Db, sites: DeclarationRow[]): DeclarationRow[] {
  if (sites.length < 2 || !sites.every(declaredElsewhere)) return sites;
  const defined = sites.filter((s) => hasBody(db, s.id));
  if (defined.length !== 1 || defined[0] === sites[0]) return sites;
  return [defined[0]!, ...sites.filter((s) => s !== defined[0])];
}

export function declarationSite(row: DeclarationRow): DeclarationSite {
  return { file_path: row.path, line: row.line, kind: row.kind, is_exported: row.is_exported === 1 };
}

/**
 * A declaration's signature on one line, without its comment lines (null when it has none): each
 * run of white space one space, none inside brackets' ends, no trailing comma before a closing one.
 */
export function declarationSignature(db: Db, row: DeclarationRow): string | null {
  const signature = symbolTextReader(db)(row.file_id, row.id).signature;
  if (signature === null) return null;
  return collapseWhitespace(withoutCommentLines(signature, row.path))
    .replace(/([([{]) /g, "$1")
    .replace(/,? ?([)\]}])/g, "$1");
}

// ---- verified callers ----

/** A call site a POTENTIAL_CALL edge links to the target. */
export interface VerifiedSite {
  file_path: string;
  line: number;
  /** The declaration the call is in; null for a call in the file's top-level code. */
  caller_symbol: string | null;
  resolution: string;
  /** Transitive queries: 1 for a direct caller, 2 for a caller's caller, ... */
  depth?: number;
  /** Transitive queries: the symbol this site calls (the target, or a caller nearer to it). */
  callee_symbol?: string;
}

/** A verified site with its line's text, as answers show it. */
export interface VerifiedCaller extends VerifiedSite {
  context: string;
}

/** Verified sites with their lines' text (trimmed), read from their files; empty for a line the file no longer has. */
export function withContexts(sites: readonly VerifiedSite[], source: SourceLines): VerifiedCaller[] {
  return sites.map((s) => ({ ...s, context: (source.line(s.file_path, s.line) ?? "").trim() }));
}

interface EdgeSiteRow {
  file_path: string;
  line: number;
  caller_symbol: string | null;
  resolution: number;
  depth: number;
  callee_symbol: string;
}

/** Call sites linked to the target by POTENTIAL_CALL edges; with `transitive`, their callers too (verified edges only). */
export function verifiedCallers(db: Db, ids: readonly number[], transitive: boolean): VerifiedSite[] {
  if (ids.length === 0) return [];
  const rows = prepared(db, 
      `WITH RECURSIVE reach(id, depth) AS (
         SELECT value, 0 FROM json_each(?)
         UNION
         SELECT e.from_id, r.depth + 1 FROM edges e JOIN reach r ON e.to_id = r.id
         WHERE e.edge_type = ${EDGE.POTENTIAL_CALL} AND r.depth + 1 < ?
       ),
       nearest(id, depth) AS (SELECT id, min(depth) FROM reach GROUP BY id)
       SELECT f.path AS file_path, e.call_line AS line, CASE a.kind WHEN 'module' THEN NULL ELSE a.name END AS caller_symbol, e.resolution,
              n.depth + 1 AS depth, b.name AS callee_symbol
       FROM nearest n
       JOIN edges e ON e.to_id = n.id AND e.edge_type = ${EDGE.POTENTIAL_CALL}
       JOIN symbols a ON a.id = e.from_id
       JOIN symbols b ON b.id = e.to_id
       JOIN files f ON f.id = a.file_id
       ORDER BY depth, f.path, e.call_line, a.name, b.name`,
    )
    .all(JSON.stringify(ids), transitive ? MAX_TRANSITIVE_DEPTH : 1) as EdgeSiteRow[];
  const seen = new Set<string>();
  const out: VerifiedSite[] = [];
  for (const r of rows) {
    const key = `${r.file_path}:${r.line}:${r.caller_symbol}:${r.callee_symbol}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const entry: VerifiedSite = { file_path: r.file_path, line: r.line, caller_symbol: r.caller_symbol, resolution: resolutionName(r.resolution)! };
    out.push(transitive ? { ...entry, depth: r.depth, callee_symbol: r.callee_symbol } : entry);
  }
  return out;
}

// ---- potential matches ----

export interface PotentialMatch {
  file_path: string;
  line: number;
  context: string;
  reason: "identifier_match_no_resolved_edge";
}

export interface PotentialSet {
  matches: PotentialMatch[];
  /** Every unexplained line found (the cap applies to `matches` only). */
  total: number;
  /** With `omitNonCalls`: import and export lines left out because their file has a verified caller. */
  importsOmitted?: number;
  /** With `omitNonCalls`: comment lines left out. */
  commentsOmitted?: number;
  /** With `omitNonCalls`: prose lines left out (documentation files, doc strings and their examples). */
  docsOmitted?: number;
  /** Lines the checker pass found to be no call of the target (`non_call_site`) or a call of another declaration, left out. */
  checkerNonCallSite?: number;
  checkerDifferent?: number;
  /** With `scanChunks`: chunks naming it that were not read (their lines are neither in `matches` nor in `total`). */
  unexamined?: number;
}

export interface PotentialOptions {
  /** Leave out import lines in files with a verified caller, and comment lines (mast_callers; a rename must edit them). */
  readonly omitNonCalls?: boolean;
  /** Leave out every import line (a member's: a line importing its name imports something else). */
  readonly omitImports?: boolean;
  /** The checker pass's verdicts: lines it found no call of the target, or a call of another declaration, are left out and counted. */
  readonly verdicts?: LineVerdicts | null;
  /** The whole set in path and line order, without the likelihood ranking (the checker pass takes them all). */
  readonly unranked?: boolean;
  /** What is kept across calls over one unchanging index: targets of one name (every `X.get`) scan for it once. */
  readonly memo?: PotentialMemo;
  /** Also the comment lines naming it in chunks whose code does not (a doc comment's `{@link name}`, `@see name`): a rename plan lists them. Not with `memo`. */
  readonly docComments?: boolean;
  /** Read at most this many chunks naming it (the declaring file's and those that see it first) and count the rest in `unexamined`: a reader's answer (mast_callers, mast_rename_impact). Not with `memo`. */
  readonly scanChunks?: number;
}

/** The checker pass's verdicts on a target's lines, by `path:line` (query/checker.ts). */
export type LineVerdicts = ReadonlyMap<string, string>;

/** The checker's verdicts on the potential lines of the given declarations, or null when the pass never ran on this index. */
export function checkerVerdicts(db: Db, ids: readonly number[]): LineVerdicts | null {
  if (prepared(db, "SELECT 1 FROM meta WHERE key = ?").get(CHECKER_META) === undefined) return null;
  const rows = prepared(db, "SELECT f.path || ':' || v.line AS at, v.verdict FROM checker_verdicts v JOIN files f ON f.id = v.file_id WHERE v.target_id IN (SELECT value FROM json_each(?))").raw().all(JSON.stringify(ids)) as Array<[string, string]>;
  return new Map(rows);
}

const PATTERNS = new Map<string, RegExp>();

/** A language spec's regular expression source, compiled once. */
function pattern(source: string): RegExp {
  let re = PATTERNS.get(source);
  if (!re) PATTERNS.set(source, (re = new RegExp(source)));
  return re;
}

/** An import line in its file's language: it binds the name, it does not call it. */
function isImportLine(text: string, path: string): boolean {
  const spec = specOf(path);
  return spec !== null && pattern(spec.importLine).test(text);
}

/** A name as source code spells it in the declaring file's language (an identifier, or a `#private` member name). */
function isIdentifier(spec: LanguageSpec, name: string): boolean {
  return pattern(`^(?:${spec.identifier})$`).test(name);
}

/** The language of a file by its path (the declaring file's spec decides what a name and a comment look like). */
function specOf(path: string): LanguageSpec | null {
  return extensionInfo(path)?.spec ?? null;
}


/** A line that names a potential match's name: where, its text, how many call-shaped uses, whether inside an import clause, whether prose (documentation, a doc string). */
type MentionLine = PotentialMatch & { fileId: number; calls: number; inImport: boolean; prose: boolean };

/**
 * What potentialMatches keeps across calls (`PotentialOptions.memo`) for a caller that asks for
 * many targets of an index that does not change meanwhile (the checker pass): the lines naming each
 * name set, the files read for class outlines, and the verified call sites by the name they call.
 */
export class PotentialMemo {
  private readonly mentions = new Map<string, MentionLine[]>();
  private readonly source: SourceLines;
  private readonly wanted: ReadonlySet<string>;
  private eachScanned = false;
  private links: Map<string, LinkedSite[]> | null = null;

  /** `names`: the last names the caller will ask for alone, found in one scan of every chunk (ASCII identifiers; others are searched for one by one). */
  constructor(projectRoot: string, names: Iterable<string> = []) {
    this.source = new SourceLines(projectRoot);
    this.wanted = new Set([...names].filter((n) => /^#?[\w$]+$/.test(n)));
  }

  /** A name no more targets will ask for: its lines are let go. */
  forget(tail: string): void {
    this.mentions.delete(tail);
  }

  /** The lines naming one of `tails` (mentionLines), remembered. */
  mentionsOf(db: Db, tails: readonly string[]): MentionLine[] {
    const key = tails.join("\n");
    let lines = this.mentions.get(key);
    if (lines !== undefined) return lines;
    if (tails.length === 1 && this.wanted.has(tails[0]!) && !this.eachScanned) {
      this.eachScanned = true;
      for (const [tail, found] of mentionsOfEach(db, this.source, this.wanted)) this.mentions.set(tail, found);
      for (const tail of this.wanted) if (!this.mentions.has(tail)) this.mentions.set(tail, []);
      lines = this.mentions.get(key);
      if (lines !== undefined) return lines;
    }
    lines = mentionLines(db, this.source, tails);
    this.mentions.set(key, lines);
    return lines;
  }

  /** Every POTENTIAL_CALL edge's site whose callee's last name is one of `tails`, read once for all. */
  linkedSites(db: Db, tails: readonly string[]): LinkedSite[] {
    if (this.links === null) {
      this.links = new Map();
      for (const r of prepared(db, `${LINKED_SITES} WHERE e.edge_type = ${EDGE.POTENTIAL_CALL}`).all() as LinkedSite[]) {
        const tail = tailOf(r.name);
        (this.links.get(tail) ?? this.links.set(tail, []).get(tail)!).push(r);
      }
    }
    return tails.flatMap((t) => this.links!.get(t) ?? []);
  }
}

/**
 * Every line (deduplicated, in path and chunk order) that names one of `tails` as a whole
 * identifier, in the chunks identifier_fts finds for it; with `docComments`, then the comment lines
 * naming it in the other chunks whose text holds it (identifier_fts has code tokens only: a chunk
 * naming it in a doc comment alone is found by a scan of every chunk's text).
 */
function mentionLines(db: Db, source: SourceLines, tails: readonly string[], docComments = false, budget: ScanBudget | null = null): MentionLine[] {
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
interface ScanBudget {
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
function mentionsOfEach(db: Db, source: SourceLines, wanted: ReadonlySet<string>): Map<string, MentionLine[]> {
  const namesIn = new Map<number, Set<string>>();
  for (const tail of wanted) for (const id of idList(db, "SELECT rowid AS id FROM identifier_fts WHERE identifier_fts MATCH ?", [ftsPhrases([tail])])) (namesIn.get(id) ?? namesIn.set(id, new Set()).get(id)!).add(tail);
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

/** A chunk as mention scans read it. */
interface ChunkRow extends ChunkPlace {
  readonly id: number;
  readonly fileId: number;
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

const CHUNK_ROWS = `SELECT c.id, c.file_id AS fileId, c.chunk_type AS type, ${CHUNK_PLACE_COLUMNS}, c.start_line AS start, c.end_line AS end
       FROM chunks c JOIN files f ON f.id = c.file_id`;

/** A site's line text as an answer gives it: clipped to MAX_CONTEXT_CHARS around the first mention `named` finds. */
export function siteText(text: string, named: RegExp): string {
  return clipAround(text, named.exec(text)?.index ?? 0, MAX_CONTEXT_CHARS);
}

/** A mention of one of the names (their last segments) as a whole identifier. */
export function mentionPattern(names: readonly string[]): RegExp {
  return new RegExp(`(?<![\\w$#])(?:${alternation([...new Set(names.map(tailOf))])})(?![\\w$])`);
}

/** Names as regular-expression alternatives. */
function alternation(tails: readonly string[]): string {
  return tails.map((t) => t.replace(/\$/g, "\\$")).join("|");
}

/** Call-shaped uses of one of the names: `name(`, `name<T>(`, `name?.(`, `` name` ``, `new name`. */
function callPattern(tails: readonly string[]): RegExp {
  const alternatives = alternation(tails);
  return new RegExp(`(?<![\\w$#])(?:${alternatives})\\s*(?:<[^()]*>\\s*)?(?:\\?\\.\\s*)?[(\`]|\\bnew\\s+(?:${alternatives})(?![\\w$])`, "g");
}

function mentionLine(c: ChunkRow, line: number, text: string, inImport: boolean, prose: boolean, callShaped: RegExp, context = text.trim()): MentionLine {
  const calls = text.match(callShaped)?.length ?? 0;
  return { file_path: c.path, line, context, reason: "identifier_match_no_resolved_edge", fileId: c.fileId, calls, inImport, prose };
}

/** A line that opens a multi-line `import {` / `export {` clause; the clause ends at the line with `}` or `from`. */
const OPENS_CLAUSE = /^\s*(?:import\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{|export\s+(?:type\s+)?\{)[^}]*$/;
const CLOSES_CLAUSE = /[}]|\bfrom\b/;

/** A chunk's lines as the file has them: a class outline is a summary (members' signatures without bodies), so its lines are read from the file over the class's range; every other chunk is verbatim. */
function chunkText(c: ChunkRow, source: SourceLines): { lines: string[]; first: number } | null {
  if (c.type !== "class_shell") {
    const text = chunkContent(c, source);
    return text === null ? null : { lines: text.split("\n"), first: c.contentStart };
  }
  const lines = source.lines(c.path, c.start, c.end);
  return lines === null ? null : { lines, first: c.start };
}

/** Each line of a chunk with its line number, whether it is inside a multi-line `import {` / `export {` clause, and whether it is prose (ProseReader). */
function forEachChunkLine(c: ChunkRow, source: SourceLines, visit: (line: number, text: string, inImport: boolean, prose: boolean) => void): void {
  const chunk = chunkText(c, source);
  if (chunk === null) return;
  let prose = new ProseReader(c.path);
  let inClause = false;
  for (let i = 0; i < chunk.lines.length; i++) {
    const text = chunk.lines[i]!;
    // Context lines above the chunk's own first line may start inside a string (the previous
    // declaration's doc string closing): the reader starts again, outside any, at the declaration.
    if (chunk.first + i === c.start && i > 0) prose = new ProseReader(c.path);
    const opensClause = OPENS_CLAUSE.test(text);
    const inImport = inClause && !opensClause;
    if (opensClause) inClause = true;
    else if (inClause && CLOSES_CLAUSE.test(text)) inClause = false;
    visit(chunk.first + i, text, inImport, prose.read(text));
  }
}

/**
 * forEachChunkLine's visits of the lines holding one of `tails`, found by searching the chunk's
 * text instead of splitting it: a line's clause state is the first opener or closer above it
 * (an opener with no closer after it: inside; a closer, or none: outside), as the forward scan has it.
 */
function forEachLineNaming(c: ChunkRow, source: SourceLines, tails: readonly string[], visit: (line: number, text: string, inImport: boolean, prose: boolean) => void): void {
  if (c.type === "class_shell") {
    const chunk = chunkText(c, source);
    if (chunk === null) return;
    const at = (i: number) => chunk.lines[i]!;
    const prose = new ProseReader(c.path);
    for (let i = 0; i < chunk.lines.length; i++) {
      const naming = tails.some((t) => at(i).includes(t));
      const isProse = prose.read(at(i));
      if (naming) visit(chunk.first + i, at(i), inClauseAt(at, i), isProse);
    }
    return;
  }
  const text = chunkContent(c, source);
  if (text === null) return;
  const starts = new Set<number>();
  for (const t of tails) {
    for (let i = text.indexOf(t); i !== -1; ) {
      starts.add(text.lastIndexOf("\n", i - 1) + 1);
      const end = text.indexOf("\n", i);
      i = end === -1 ? -1 : text.indexOf(t, end + 1);
    }
  }
  if (starts.size === 0) return;
  let prose = new ProseReader(c.path);
  // The reader starts again at the chunk's own first line, as in forEachChunkLine (context lines above it may start inside a string).
  let from = 0;
  for (let k = c.contentStart; k < c.start && from !== -1; k++) from = text.indexOf("\n", from) + 1 || -1;
  let restart = from > 0;
  let passed = 0;
  let counted = 0;
  let line = c.contentStart;
  const lineAt = (start: number) => {
    const end = text.indexOf("\n", start);
    return text.slice(start, end === -1 ? undefined : end);
  };
  for (const start of [...starts].sort((a, b) => a - b)) {
    if (restart && start >= from) {
      prose = new ProseReader(c.path);
      passed = from;
      restart = false;
    }
    for (let nl = text.indexOf("\n", counted); nl !== -1 && nl < start; nl = text.indexOf("\n", nl + 1)) {
      line++;
      counted = nl + 1;
    }
    const own = lineAt(start);
    prose.pass(text.slice(passed, start));
    passed = start + own.length;
    visit(line, own, inClauseAbove(own, linesAbove(text, start)), prose.read(own));
  }
}

/** The lines of `text` above the line starting at `start`, nearest first. */
function* linesAbove(text: string, start: number): Generator<string> {
  for (let end = start - 1; end >= 0; ) {
    const s = end === 0 ? 0 : text.lastIndexOf("\n", end - 1) + 1;
    yield text.slice(s, end);
    end = s - 1;
  }
}

/** inClauseAbove over an array of lines, for line i. */
function inClauseAt(at: (i: number) => string, i: number): boolean {
  function* above(): Generator<string> {
    for (let k = i - 1; k >= 0; k--) yield at(k);
  }
  return inClauseAbove(at(i), above());
}

/** Whether a line is inside an import clause: not an opener itself, and the nearest opener or closer among the lines above it (nearest first) is an opener. */
function inClauseAbove(text: string, above: Iterable<string>): boolean {
  if (OPENS_CLAUSE.test(text)) return false;
  for (const prev of above) {
    if (OPENS_CLAUSE.test(prev)) return true;
    if (CLOSES_CLAUSE.test(prev)) return false;
  }
  return false;
}

/**
 * Lines that name the symbol (the last `.` segment of any of `names`, as a whole identifier) in
 * chunks identifier_fts finds for it, minus the lines verified edges already explain: sites linked
 * to the target, and lines whose every call of that name the resolver linked to another
 * declaration. Order (the cap keeps the first): call-shaped lines (`name(`, `name<T>(`, `new name`,
 * `` name` ``) before mere mentions, and within each, lines in files that can see the declaration
 * (its own, its importers, through barrels) first; then by path and line.
 */
export function potentialMatches(
  db: Db,
  projectRoot: string,
  names: readonly string[],
  target: { readonly ids: readonly number[]; readonly fileId: number | null; readonly path: string | null },
  verified: readonly VerifiedSite[],
  limit: number,
  options: PotentialOptions = {},
): PotentialSet {
  const { omitNonCalls = false, omitImports = false, verdicts = null, unranked = false } = options;
  const targetIds = target.ids;
  const spec = target.path === null ? null : specOf(target.path);
  const tails = [...new Set(names.map(tailOf))].filter((t) => (spec ? isIdentifier(spec, t) : LANGUAGE_SPECS.some((s) => isIdentifier(s, t))));
  if (tails.length === 0) return { matches: [], total: 0 };
  const explained = new Set(verified.filter((v) => v.depth === undefined || v.depth === 1).map((v) => `${v.file_path}:${v.line}`));
  const { memo } = options;
  // The files that see the declaring file (its importers, transitively): read first under a budget, ranked higher.
  let seen: Set<number> | null = null;
  const sees = () => (seen ??= new Set(target.fileId === null ? [] : reachableFiles(db, [target.fileId])));
  const budget: ScanBudget | null = memo || options.scanChunks === undefined ? null : { maxChunks: options.scanChunks, tiers: () => [target.fileId === null ? [] : [target.fileId], [...sees()]], unexamined: 0 };
  const mentions = memo ? memo.mentionsOf(db, tails) : mentionLines(db, new SourceLines(projectRoot), tails, options.docComments === true, budget);
  const scanned = budget !== null && budget.unexamined > 0 ? { unexamined: budget.unexamined } : {};
  const candidates = mentions.filter((c) => !explained.has(`${c.file_path}:${c.line}`));
  const fileIds = [...new Set(candidates.map((c) => c.fileId))];
  const elsewhere = linkedElsewhere(db, tails, targetIds, fileIds, memo);
  // A declaration's line (`function audit(`, `find(id) {`) is shaped like a call but is not one;
  // the target's own declaration lines are not potential callers at all.
  const own = new Set(ownDeclarationLines(db, targetIds));
  const unexplained = candidates.filter((c) => !own.has(`${c.file_path}:${c.line}`) && !(c.calls > 0 && (elsewhere.get(`${c.file_path}:${c.line}`) ?? 0) >= c.calls));
  // The import that a verified call in the same file resolved through says nothing new.
  const callerFiles = new Set(verified.map((v) => v.file_path));
  // Comment lines are no calls (the doc comment is the signature's).
  const withoutImports = omitNonCalls || omitImports ? unexplained.filter((c) => !((omitImports || callerFiles.has(c.file_path)) && (c.inImport || isImportLine(c.context, c.file_path)))) : unexplained;
  const uncommented = omitNonCalls ? withoutImports.filter((c) => !isCommentLine(c.context, c.file_path) && !c.prose) : withoutImports;
  // What the checker pass classified away: no call of the target, or a call of another declaration.
  const verdictOf = (c: { file_path: string; line: number }) => verdicts?.get(`${c.file_path}:${c.line}`);
  const open = verdicts ? uncommented.filter((c) => verdictOf(c) !== "non_call_site" && verdictOf(c) !== "resolves_to_different") : uncommented;
  const counted = verdicts ? { checkerNonCallSite: uncommented.filter((c) => verdictOf(c) === "non_call_site").length, checkerDifferent: uncommented.filter((c) => verdictOf(c) === "resolves_to_different").length } : {};
  const comments = omitNonCalls ? withoutImports.filter((c) => isCommentLine(c.context, c.file_path)).length : 0;
  const omitted = omitNonCalls ? { importsOmitted: unexplained.length - withoutImports.length, commentsOmitted: comments, docsOmitted: withoutImports.length - uncommented.length - comments } : {};
  // At most `limit` lines, and lines of POTENTIAL_LINE_BYTES on average (a long line is clipped around the name).
  const mention = mentionPattern(tails);
  const shown = (list: typeof open) => {
    const out: PotentialMatch[] = [];
    let bytes = 0;
    for (const { file_path, line, context, reason } of list.slice(0, limit)) {
      const clipped = siteText(context, mention);
      bytes += Buffer.byteLength(clipped) + String(line).length + 4;
      if (out.length > 0 && bytes > limit * POTENTIAL_LINE_BYTES) break;
      out.push({ file_path, line, context: clipped, reason });
    }
    return out;
  };
  if (unranked) return { matches: shown(open), total: open.length, ...omitted, ...counted, ...scanned };
  const declarations = declarationLines(db, tails, fileIds);
  const likelihood = new Likelihood(db, names, tails, spec, target.path);
  // Within a tier, source files before test files, then by path and line.
  const order = new Map(open.map((c) => [c, likelihood.tier(c, declarations.has(`${c.file_path}:${c.line}`), c.fileId === target.fileId, sees().has(c.fileId)) * 2 + (isTestPath(c.file_path) ? 1 : 0)]));
  open.sort((a, b) => order.get(a)! - order.get(b)! || (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : a.line - b.line));
  return { matches: shown(open), total: open.length, ...omitted, ...counted, ...scanned };
}

/**
 * How likely a potential line is a call of the target, as a tier (lower first): 0 a call in the
 * declaring file, or through a name the declaring file is bound to as a namespace
 * (`z.coerce.string(`); 1 a call on a receiver that may be the declaration's type (or a bare call)
 * in a file that sees it, 2 the same in a file that does not; 3 a call whose receiver names another type
 * declaring the same member (`c.req.header(` for `Context.header`) or a built-in's method
 * (`str.match(`); 4 a mention in code; 5 prose (a comment, documentation, a doc string), a mention
 * in a string only, or another declaration's line.
 */
class Likelihood {
  private readonly ownerWords: string[];
  private readonly otherOwnerWords: string[][];
  private readonly receiver: RegExp;
  private readonly mention: RegExp;
  private readonly builtin: boolean;
  /** Names the declaring file is bound to as a namespace anywhere (`import * as coerce`, `export * as coerce from`): a function's `coerce.name(` calls it. */
  private readonly namespaces: ReadonlySet<string>;

  constructor(db: Db, names: readonly string[], tails: readonly string[], spec: LanguageSpec | null, declaringPath: string | null) {
    const first = names[0] ?? "";
    const dot = first.lastIndexOf(".");
    const owner = dot > 0 ? first.slice(0, dot) : null;
    this.namespaces = owner === null && declaringPath !== null ? namespaceNames(db, declaringPath) : new Set();
    this.ownerWords = owner === null ? [] : splitTerms(owner);
    const others = new Set<string>();
    for (const t of tails) for (const o of methodOwnersOf(db, t)) if (o !== owner) others.add(o);
    this.otherOwnerWords = [...others].map((o) => splitTerms(o));
    const alternatives = alternation(tails);
    // The receiver's last identifier before `.name(` (`c.req.header(` → req, `this.x(` → this).
    this.receiver = new RegExp(`([A-Za-z_$][\\w$]*)\\s*(?:\\?\\.|\\.)\\s*(?:${alternatives})\\s*(?:<[^()]*>\\s*)?[(\`]`);
    this.mention = mentionPattern(tails);
    // A built-in's method of the declaring file's language (`str.match(` for `Router.match`).
    this.builtin = spec !== null && tails.some((t) => spec.builtinMethods.has(t));
  }

  tier(c: { context: string; calls: number; file_path: string; prose: boolean }, isDeclaration: boolean, inDeclaringFile: boolean, sees: boolean): number {
    const text = c.context;
    if (isDeclaration || c.prose || isCommentLine(text, c.file_path) || stringOnly(text, this.mention)) return 5;
    if (c.calls === 0) return 4;
    if (inDeclaringFile) return 0;
    const receiver = this.receiver.exec(text)?.[1] ?? null;
    if (receiver !== null && this.namespaces.has(receiver)) return 0;
    if (receiver !== null && receiver !== "this" && receiver !== "super") {
      const words = splitTerms(receiver);
      const fits = (owner: string[]) => words.some((w) => owner.some((o) => o.startsWith(w) || w.startsWith(o)));
      if (this.ownerWords.length > 0 && !fits(this.ownerWords) && this.otherOwnerWords.some(fits)) return 3;
      if (this.builtin && !fits(this.ownerWords)) return 3;
    }
    return sees ? 1 : 2;
  }
}

/** The local names of every namespace import or re-export of a file (`import * as z`, `export * as coerce from`). */
function namespaceNames(db: Db, path: string): Set<string> {
  const rows = prepared(db, `SELECT symbols, locals FROM imports WHERE resolved_file_id = (SELECT id FROM files WHERE path = ?) AND instr(symbols, '"*"') > 0`).raw().all(path) as Array<[string, string]>;
  const names = new Set<string>();
  for (const [symbols, locals] of rows) {
    const taken = JSON.parse(symbols) as string[];
    const bound = JSON.parse(locals) as string[];
    taken.forEach((t, k) => {
      if (t === "*" && bound[k] && bound[k] !== "*") names.add(bound[k]!);
    });
  }
  // `export * as coerce from './coerce'`: the marker symbol names it.
  const reExported = prepared(
    db,
    `SELECT DISTINCT s.name FROM symbols s JOIN imports i ON i.file_id = s.file_id AND i.module = s.reexport_module
      WHERE s.kind = 'export' AND s.reexport_name = '*' AND i.resolved_file_id = (SELECT id FROM files WHERE path = ?)`,
  )
    .pluck()
    .all(path) as string[];
  for (const name of reExported) names.add(name);
  return names;
}

/** The name appears on the line only inside string literals (`'header'`, `"match"`). */
function stringOnly(text: string, mention: RegExp): boolean {
  const code = text.replace(/(["'`])(?:\\.|(?!\1)[^\\])*\1/g, '""');
  return code !== text && !mention.test(code);
}

/** `path:line` of the target's declarations (with their overloads and aliases); a function's or method's every signature line (overloads folded into one declaration are its signature's lines). */
function ownDeclarationLines(db: Db, ids: readonly number[]): string[] {
  if (ids.length === 0) return [];
  const rows = prepared(db, "SELECT f.path, s.line, s.kind IN ('function', 'method'), s.file_id, s.id FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id IN (SELECT value FROM json_each(?))").raw().all(JSON.stringify(ids)) as Array<[string, number, number, number, number]>;
  const texts = symbolTextReader(db);
  return rows.flatMap(([path, line, callable, fileId, id]) => Array.from({ length: callable === 1 ? (texts(fileId, id).signature ?? "").split("\n").length : 1 }, (_, k) => `${path}:${line + k}`));
}

/** `path:line` of every declaration named by one of the tails (methods by their last segment) in these files. */
function declarationLines(db: Db, tails: readonly string[], fileIds: readonly number[]): Set<string> {
  if (fileIds.length === 0) return new Set();
  // By file, the names filtered here: a common tail (`constructor`) ends tens of thousands of names, and a lookup of each costs more than the files' symbols.
  const rows = prepared(db, "SELECT f.path, s.line, s.name FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.file_id IN (SELECT value FROM json_each(?)) AND s.kind != 'export'")
    .raw()
    .all(JSON.stringify(fileIds)) as Array<[string, number, string]>;
  const wanted = new Set(tails);
  return new Set(rows.filter(([, , name]) => wanted.has(tailOf(name))).map(([path, line]) => `${path}:${line}`));
}

/** A verified call site and the declaration it calls: linkedElsewhere's rows. */
interface LinkedSite {
  readonly fileId: number;
  readonly path: string;
  readonly line: number;
  readonly name: string;
  readonly to: number;
  /** store/edge-codes.ts's code. */
  readonly resolution: number | null;
}

const LINKED_SITES = `SELECT a.file_id AS fileId, f.path, e.call_line AS line, b.name, e.to_id AS "to", e.resolution FROM symbols a
       JOIN edges e ON e.from_id = a.id JOIN symbols b ON b.id = e.to_id JOIN files f ON f.id = a.file_id`;

/** Per `path:line`: verified call sites in these files that call a same-named declaration other than the target. */
function linkedElsewhere(db: Db, tails: readonly string[], targetIds: readonly number[], fileIds: readonly number[], memo?: PotentialMemo): Map<string, number> {
  const counts = new Map<string, number>();
  if (fileIds.length === 0) return counts;
  // The declarations named by a tail (as their name, or as its last segment: an index lookup each),
  // their edges from these files only (2-4x faster than every edge into them for a common name).
  const rows = memo
    ? memo.linkedSites(db, tails)
    : (prepared(db, `${LINKED_SITES} WHERE (b.name IN (SELECT value FROM json_each(?)) OR b.tail IN (SELECT value FROM json_each(?))) AND e.edge_type = ${EDGE.POTENTIAL_CALL} AND a.file_id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(tails), JSON.stringify(tails), JSON.stringify(fileIds)) as LinkedSite[]);
  const files = new Set(fileIds);
  for (const r of rows) {
    if (!files.has(r.fileId) || targetIds.includes(r.to) || !tails.includes(tailOf(r.name))) continue;
    // The analyzer's answer for a method call names the declared member (one of a union's, a base's):
    // the object at run time may be another class with this name (virtual dispatch), so it explains nothing away.
    if (r.resolution === RESOLVED.checker && r.name.includes(".")) continue;
    const key = `${r.path}:${r.line}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

// ---- callers: the answer mast_callers and mast_rename_impact share ----

export interface CallersQuery {
  readonly symbol: string;
  readonly filePath: string | null;
  readonly transitive: boolean;
  /** null skips the identifier search (include_potential: false). */
  readonly potentialLimit: number | null;
  /** Leave out import lines in files with a verified caller, and comment lines (mast_callers; a rename must edit them). */
  readonly omitNonCalls?: boolean;
  /** PotentialOptions.docComments. */
  readonly docComments?: boolean;
  /** PotentialOptions.omitImports. */
  readonly omitImports?: boolean;
  /** PotentialOptions.scanChunks. */
  readonly scanChunks?: number;
}

export interface Callers {
  readonly target: Target;
  readonly verified: VerifiedSite[];
  readonly potential: PotentialSet | null;
}

/** The declaration a query names, its verified callers and (unless skipped) its potential matches. */
export function callersOf(db: Db, projectRoot: string, query: CallersQuery): Callers {
  const target = findTarget(db, query.symbol, query.filePath);
  const verified = verifiedCallers(db, target.ids, query.transitive);
  const potential =
    query.potentialLimit === null
      ? null
      : potentialMatches(db, projectRoot, target.names, { ids: target.ids, fileId: target.sites[0]?.file_id ?? null, path: target.sites[0]?.path ?? null }, verified, query.potentialLimit, { omitNonCalls: query.omitNonCalls ?? false, omitImports: query.omitImports ?? false, docComments: query.docComments ?? false, verdicts: checkerVerdicts(db, target.ids), ...(query.scanChunks === undefined ? {} : { scanChunks: query.scanChunks }) });
  return { target, verified, potential };
}

// ---- implementors ----

export interface Implementor {
  class_name: string;
  file_path: string;
  line: number;
  /** implements: names the type in its `implements` clause; extends: a subclass of it or of an implementor. */
  relation: "implements" | "extends";
  /** Indirect results: the class it inherits the relation through. */
  via?: string;
  methods: string[];
}

/** Classes that implement (or extend) the target type, then their subclasses, breadth first. */
export function implementorsOf(db: Db, ids: readonly number[]): Implementor[] {
  const direct = prepared(db, 
    `SELECT a.id, a.name, f.path, a.line, a.file_id AS fileId, e.edge_type AS type FROM edges e JOIN symbols a ON a.id = e.from_id JOIN files f ON f.id = a.file_id
     WHERE e.to_id IN (SELECT value FROM json_each(?)) AND e.edge_type IN (${EDGE.IMPLEMENTS}, ${EDGE.EXTENDS}) ORDER BY f.path, a.line, a.id`,
  );
  const methods = prepared(db, "SELECT name FROM symbols WHERE file_id = ? AND kind = 'method' AND parent_name = ? ORDER BY line, id").pluck();
  const out: Implementor[] = [];
  const seen = new Set<number>(ids);
  let frontier: Array<{ ids: number[]; via: string | null }> = [{ ids: [...ids], via: null }];
  while (frontier.length > 0) {
    const next: Array<{ ids: number[]; via: string | null }> = [];
    for (const level of frontier) {
      const rows = direct.all(JSON.stringify(level.ids)) as Array<{ id: number; name: string; path: string; line: number; fileId: number; type: number }>;
      for (const r of rows) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        const names = (methods.all(r.fileId, r.name) as string[]).map((m) => m.slice(r.name.length + 1));
        out.push({
          class_name: r.name,
          file_path: r.path,
          line: r.line,
          relation: level.via === null && r.type === EDGE.IMPLEMENTS ? "implements" : "extends",
          ...(level.via === null ? {} : { via: level.via }),
          methods: [...new Set(names)],
        });
        next.push({ ids: [r.id], via: r.name });
      }
    }
    frontier = next;
  }
  return out;
}

/** A method that implements (or overrides) the member a query names, in an implementor of its type. */
export interface MemberImplementation {
  method: string;
  file_path: string;
  line: number;
  relation: "implements" | "extends";
  via?: string;
}

/**
 * For a member (`Router.match`, an interface or class method): the methods of that name in the
 * type's implementors and subclasses; null when the target is not a member. Implementors that
 * only inherit the member are left out.
 */
export function memberImplementations(db: Db, target: Target): MemberImplementation[] | null {
  const site = target.sites[0];
  if (!site || site.kind !== "method") return null;
  const dot = site.name.lastIndexOf(".");
  const owner = site.name.slice(0, dot);
  const member = site.name.slice(dot + 1);
  const ownerIds = prepared(db, "SELECT id FROM symbols WHERE file_id = ? AND name = ? AND kind IN ('class', 'interface', 'type') ORDER BY line, id")
    .pluck()
    .all(site.file_id, owner) as number[];
  const find = prepared(db, "SELECT f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? AND s.kind = 'method' ORDER BY f.path, s.line");
  const out: MemberImplementation[] = [];
  for (const impl of implementorsOf(db, ownerIds)) {
    const method = `${impl.class_name}.${member}`;
    // The implementor's own file, or (where a directory is one scope: a Go package) another file of its package.
    const packaged = extensionInfo(impl.file_path)?.spec.scope === "directory";
    const dir = posix.dirname(impl.file_path);
    const rows = find.all(method) as Array<{ path: string; line: number }>;
    const at = rows.find((r) => r.path === impl.file_path) ?? (packaged ? rows.find((r) => posix.dirname(r.path) === dir && extensionInfo(r.path)?.spec === extensionInfo(impl.file_path)?.spec) : undefined);
    if (at === undefined) continue;
    out.push({ method, file_path: at.path, line: at.line, relation: impl.relation, ...(impl.via === undefined ? {} : { via: impl.via }) });
  }
  return out;
}

// ---- barrel exports ----

export interface BarrelExport {
  file_path: string;
  /** The export statement's line; null for `export *` (a file-level re-export). */
  line: number | null;
  exported_as: string;
  via: "named" | "star";
}

/**
 * Files that re-export the target: `named` from RE_EXPORTS edges (the statement names it and must
 * be edited in a rename), then `star` from a walk up `re_export_files` from the declaring file and
 * from each named barrel (no edit needed, but consumers reach the symbol through them).
 */
export function barrelExports(db: Db, ids: readonly number[], declaringFileId: number, name: string): BarrelExport[] {
  if (ids.length === 0 || name.includes(".")) return [];
  const named = prepared(db, 
      `SELECT m.name AS exported_as, f.path, m.line, m.file_id AS fileId FROM edges e JOIN symbols m ON m.id = e.from_id JOIN files f ON f.id = m.file_id
       WHERE e.to_id IN (SELECT value FROM json_each(?)) AND e.edge_type = ${EDGE.RE_EXPORTS} ORDER BY f.path, m.line`,
    )
    .all(JSON.stringify(ids)) as Array<{ exported_as: string; path: string; line: number; fileId: number }>;
  const out: BarrelExport[] = named.map((r) => ({ file_path: r.path, line: r.line, exported_as: r.exported_as, via: "named" }));
  const stars = prepared(db, "SELECT r.from_file_id AS id, f.path FROM re_export_files r JOIN files f ON f.id = r.from_file_id WHERE r.to_file_id = ? ORDER BY f.path");
  const seen = new Set<number>([declaringFileId, ...named.map((r) => r.fileId)]);
  const queue: Array<{ fileId: number; as: string }> = [{ fileId: declaringFileId, as: name }, ...named.map((r) => ({ fileId: r.fileId, as: r.exported_as }))];
  for (let i = 0; i < queue.length; i++) {
    const { fileId, as } = queue[i]!;
    for (const s of stars.all(fileId) as Array<{ id: number; path: string }>) {
      if (seen.has(s.id)) continue;
      seen.add(s.id);
      out.push({ file_path: s.path, line: null, exported_as: as, via: "star" });
      queue.push({ fileId: s.id, as });
    }
  }
  return out;
}
