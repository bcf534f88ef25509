// Potential matches (docs/call-graph.md#potential-matches): the lines naming a declaration (mentions.ts) that no verified edge
// explains — its own declaration lines, sites linked to it, and lines whose every call the resolver
// linked elsewhere left out; imports, comments and the checker pass's verdicts left out on request —
// ranked by how likely each is a call of it, and PotentialMemo for a pass over many targets.
import { isTestPath } from "../base/paths.js";
import { splitTerms } from "../base/text.js";
import { reachableFiles } from "../store/link-inputs.js";
import { LANGUAGE_SPECS, extensionInfo, isCommentLine, type LanguageSpec } from "../lang/languages.js";
import { CHECKER_META, prepared, symbolTextReader, type Db } from "../store/db.js";
import { SourceLines } from "./source.js";
import { methodOwnersOf, tailOf } from "./navigation.js";
import { EDGE, RESOLVED } from "../store/edge-codes.js";
import { alternation, mentionLines, mentionPattern, mentionsOfEach, siteText, type MentionLine, type ScanBudget } from "./mentions.js";

/** Default cap on potential_matches (spec: 50); the real count goes to summary.potential_total. */
export const POTENTIAL_LIMIT = 50;
/** The chunks naming a target a reader's potential-line scan reads at most (PotentialOptions.scanChunks). */
export const SCAN_CHUNKS = 500;
/** The bytes a potential line takes on average within the cap (`limit` lines of this many: a few long lines do not crowd out the rest). */
const POTENTIAL_LINE_BYTES = 100;

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

/** A verified call site as a potential-line scan reads it (callers.ts VerifiedSite): a direct one (depth 1, or none) explains its line. */
export interface ExplainedSite {
  readonly file_path: string;
  readonly line: number;
  readonly depth?: number;
}

/** The checker pass's verdicts on a target's lines, by `path:line` (query/checker.ts). */
export type LineVerdicts = ReadonlyMap<string, string>;

/** The checker's verdicts on the potential lines of the given declarations, or null when the pass never ran on this index. */
export function checkerVerdicts(db: Db, ids: readonly number[]): LineVerdicts | null {
  if (prepared(db, "SELECT 1 FROM meta WHERE key = ?").get(CHECKER_META) === undefined) return null;
  const rows = prepared(db, "SELECT f.path || ':' || v.line AS at, v.verdict FROM checker_verdicts v JOIN files f ON f.id = v.file_id WHERE v.target_id IN (SELECT value FROM json_each(?))")
    .raw()
    .all(JSON.stringify(ids)) as Array<[string, string]>;
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
  verified: readonly ExplainedSite[],
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
  const budget: ScanBudget | null =
    memo || options.scanChunks === undefined ? null : { maxChunks: options.scanChunks, tiers: () => [target.fileId === null ? [] : [target.fileId], [...sees()]], unexamined: 0 };
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
  const withoutImports =
    omitNonCalls || omitImports ? unexplained.filter((c) => !((omitImports || callerFiles.has(c.file_path)) && (c.inImport || isImportLine(c.context, c.file_path)))) : unexplained;
  const uncommented = omitNonCalls ? withoutImports.filter((c) => !isCommentLine(c.context, c.file_path) && !c.prose) : withoutImports;
  // What the checker pass classified away: no call of the target, or a call of another declaration.
  const verdictOf = (c: { file_path: string; line: number }) => verdicts?.get(`${c.file_path}:${c.line}`);
  const open = verdicts ? uncommented.filter((c) => verdictOf(c) !== "non_call_site" && verdictOf(c) !== "resolves_to_different") : uncommented;
  const counted = verdicts
    ? { checkerNonCallSite: uncommented.filter((c) => verdictOf(c) === "non_call_site").length, checkerDifferent: uncommented.filter((c) => verdictOf(c) === "resolves_to_different").length }
    : {};
  const comments = omitNonCalls ? withoutImports.filter((c) => isCommentLine(c.context, c.file_path)).length : 0;
  const omitted = omitNonCalls ? { importsOmitted: unexplained.length - withoutImports.length, commentsOmitted: comments, docsOmitted: withoutImports.length - uncommented.length - comments } : {};
  // At most `limit` lines, and lines of POTENTIAL_LINE_BYTES on average (a long line is clipped around the name).
  const mention = mentionPattern(tails);
  const shown = (list: typeof open) => {
    const out: PotentialMatch[] = [];
    let bytes = 0;
    for (const { file_path, line, context } of list.slice(0, limit)) {
      const clipped = siteText(context, mention);
      bytes += Buffer.byteLength(clipped) + String(line).length + 4;
      if (out.length > 0 && bytes > limit * POTENTIAL_LINE_BYTES) break;
      out.push({ file_path, line, context: clipped, reason: "identifier_match_no_resolved_edge" });
    }
    return out;
  };
  if (unranked) return { matches: shown(open), total: open.length, ...omitted, ...counted, ...scanned };
  const declarations = declarationLines(db, tails, fileIds);
  const likelihood = new Likelihood(db, names, tails, spec, target.path);
  // Within a tier, source files before test files, then by path and line.
  const order = new Map(
    open.map((c) => [c, likelihood.tier(c, declarations.has(`${c.file_path}:${c.line}`), c.fileId === target.fileId, sees().has(c.fileId)) * 2 + (isTestPath(c.file_path) ? 1 : 0)]),
  );
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
  const rows = prepared(db, `SELECT symbols, locals FROM imports WHERE resolved_file_id = (SELECT id FROM files WHERE path = ?) AND instr(symbols, '"*"') > 0`).raw().all(path) as Array<
    [string, string]
  >;
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
  const rows = prepared(db, "SELECT f.path, s.line, s.kind IN ('function', 'method'), s.file_id, s.id FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id IN (SELECT value FROM json_each(?))")
    .raw()
    .all(JSON.stringify(ids)) as Array<[string, number, number, number, number]>;
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
    : (prepared(
        db,
        `${LINKED_SITES} WHERE (b.name IN (SELECT value FROM json_each(?)) OR b.tail IN (SELECT value FROM json_each(?))) AND e.edge_type = ${EDGE.POTENTIAL_CALL} AND a.file_id IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify(tails), JSON.stringify(tails), JSON.stringify(fileIds)) as LinkedSite[]);
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
