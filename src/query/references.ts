// Navigation by position (mast_definition, mast_references): the declaration a name at a position
// resolves to (name-resolver.ts) — its binding in the file, an import followed through re-exports,
// a member through its object's known type or the call graph's edge — else candidates by name; and
// every reference to one declaration (fields, properties and variables included), each line
// verified when its occurrence resolves to the declaration, potential when nothing proves it,
// counted when it provably names another declaration or names it only in a comment or string.
import { posix } from "node:path";
import { MastError } from "../base/errors.js";
import { extensionInfo } from "../lang/languages.js";
import { performance } from "node:perf_hooks";
import { prepared, type Db } from "../store/db.js";
import { reachableFiles } from "../store/link-inputs.js";
import type { FileNames, NameSite, TextPosition } from "../syntax/navigate.js";
import { verifiedCallers, withContexts } from "./callers.js";
import { linesNaming } from "./mentions.js";
import { findTarget } from "./targets.js";
import { SourceLines } from "./source.js";
import { requireIndexedFile, tailOf } from "./navigation.js";
import { NAME_CANDIDATES, Navigator, SYMBOL_ROW, TYPE_KINDS, familyOf, type Definition, type Resolution, type Resolved, type SymbolRow } from "./name-resolver.js";

/** Files mast_references parses to classify their lines, the declaring file and its importers first; lines in others are potential. */
export const MAX_PARSED_FILES = 300;
/** Of those, files that do not import the declaring file (nor share its directory): a reference there cannot be proven by an import, only told apart from other declarations'. */
export const MAX_OTHER_PARSED = 40;
/** And only while parsing has taken less than this (a name in hundreds of files answers in bounded time; the rest is potential, counted). */
export const PARSE_BUDGET_MS = 400;

// ---- mast_definition ----

export interface DefinitionAnswer {
  /** The name at the position and where it starts. */
  readonly name: string;
  readonly at: TextPosition;
  readonly resolution: Resolution;
  readonly definitions: Definition[];
  /** Candidates by name left out by the cap. */
  readonly definitions_truncated?: number;
}

/** The position checked against the file's text: INVALID_ARGUMENT past its end. */
function checkPosition(lines: readonly string[], path: string, at: TextPosition): void {
  const text = lines[at.line - 1];
  if (text === undefined || (at.line === lines.length && text === "" && lines.length > 1)) {
    throw new MastError("INVALID_ARGUMENT", `line ${at.line} is past the end of ${path} (${lines.length > 1 && lines.at(-1) === "" ? lines.length - 1 : lines.length} lines)`, {
      hint: "Lines and columns are 1-based; read the file to find the line.",
      usage: true,
    });
  }
  if (at.column > text.length + 1) {
    throw new MastError("INVALID_ARGUMENT", `column ${at.column} is past the end of line ${at.line} of ${path} (${text.length} characters)`, {
      hint: "Columns are 1-based and count characters; read the line to find the name's column.",
      usage: true,
    });
  }
}

/** The name token at a position, by the file's tree, or by the language's identifier pattern where it has no binding rules. */
function tokenAt(nav: Navigator, path: string, at: TextPosition): { name: string; line: number; column: number } | null {
  const names = nav.sources.names(path);
  if (names !== null) return names.tokenAt(at);
  const text = nav.sources.line(path, at.line) ?? "";
  const spec = extensionInfo(path)?.spec;
  const identifier = new RegExp(spec?.identifier ?? "[A-Za-z_$][\\w$]*", "g");
  for (const m of text.matchAll(identifier)) if (m.index < at.column && at.column - 1 <= m.index + m[0].length) return { name: m[0], line: at.line, column: m.index + 1 };
  return null;
}

/** The name at a position, its occurrence in the file's tree (null where the file has no binding rules), and what it resolves to. */
interface AtPosition {
  readonly nav: Navigator;
  readonly path: string;
  readonly token: { name: string; line: number; column: number };
  readonly site: NameSite | null;
  readonly resolved: Resolved;
}

function resolveAt(db: Db, projectRoot: string, path: string, at: TextPosition): AtPosition {
  const file = requireIndexedFile(db, path);
  const nav = new Navigator(db, projectRoot);
  const source = nav.sources.read(file.path);
  if (source === null) throw new MastError("READ_FAILED", `cannot read ${file.path} as text`);
  checkPosition(source.lines, file.path, at);
  const token = tokenAt(nav, file.path, at);
  if (token === null) {
    const text = source.lines[at.line - 1]!;
    throw new MastError("NO_NAME_AT_POSITION", `no name at ${file.path}:${at.line}:${at.column} (${JSON.stringify(text.slice(Math.max(0, at.column - 11), at.column + 10))} around it)`, {
      details: { line: text.trim().slice(0, 200) },
    });
  }
  const site =
    nav.sources
      .names(file.path)
      ?.sites(token.name)
      .find((s) => s.line === token.line && s.column === token.column) ?? null;
  // An object literal's key declares the literal's own property — a candidate first, since the type the literal is given (which the file may not say) may declare it.
  const literalKey = (named: Resolved): Resolved =>
    site?.literal === true
      ? { resolution: "name", total: named.total + 1, definitions: [nav.declared(file.path, file.id, site, token.name, "property", null), ...named.definitions].slice(0, NAME_CANDIDATES) }
      : named;
  const resolved = (site === null ? null : nav.resolve(file.path, file.id, site, token.name)) ?? literalKey(nav.byName(token.name, file.path));
  return { nav, path: file.path, token, site, resolved };
}

/**
 * The declaration(s) the name at a position of an indexed file resolves to. NO_NAME_AT_POSITION
 * when the position is on no name; INVALID_ARGUMENT when it is past the file's end.
 */
export function definitionAt(db: Db, projectRoot: string, path: string, at: TextPosition): DefinitionAnswer {
  const { token, resolved } = resolveAt(db, projectRoot, path, at);
  return {
    name: token.name,
    at: { line: token.line, column: token.column },
    resolution: resolved.resolution,
    definitions: resolved.definitions,
    ...(resolved.total > resolved.definitions.length ? { definitions_truncated: resolved.total - resolved.definitions.length } : {}),
  };
}

/**
 * What mast_references answers for a position: the declaration its name resolves to — or, for the
 * name of a namespace or module import (`z` of `import * as z`), that binding itself, whose
 * references are its uses in its own file (the compiler's answer for an import alias). A name
 * nothing declares (a property of a type only inferred) has no declaration: every line naming it
 * is then potential.
 */
export interface ReferenceTarget {
  readonly name: string;
  readonly declaration: Definition | null;
  /** How the position's name was resolved; null for a declaration named by symbol. */
  readonly resolution: Resolution | null;
  /** The other candidates when resolved by name. */
  readonly other: Definition[];
  /** Where its references are looked for first: the declaration's file, else the position's. */
  readonly from: string;
  /** The file of the position asked about (null for a symbol): read first with the declaration's. */
  readonly origin: string | null;
  /** The declaration is a namespace import's binding: its references are in its own file only. */
  readonly fileOnly: boolean;
  /** It is a member (a field, property or method: named `o.name` or as a key), not a binding. */
  readonly member: boolean;
}

export function referenceTargetAt(db: Db, projectRoot: string, path: string, at: TextPosition): ReferenceTarget {
  const { nav, path: from, token, site, resolved } = resolveAt(db, projectRoot, path, at);
  const [first = null, ...other] = resolved.definitions;
  const binding = site?.binding;
  const fileId = nav.fileId(from);
  if (binding && binding !== "conflict" && binding.kind === "import" && fileId !== null && nav.importOf(fileId, token.name, binding.line)?.imported === "*") {
    const declaration: Definition = { file_path: from, line: binding.line, column: binding.column, name: token.name, kind: "import", signature: nav.sources.line(from, binding.line)?.trim() ?? null };
    return { name: token.name, declaration, resolution: "scope", other: [], from, origin: from, fileOnly: true, member: false };
  }
  const member = site === null ? first !== null && isMember(first) : site.role === "member" || site.role === "key" || (site.role === "declaration" && site.declared?.owner != null);
  return { name: token.name, declaration: first, resolution: resolved.resolution, other, from: first?.file_path ?? from, origin: from, fileOnly: false, member };
}

/** A member declaration (a method, field or property of a type), not a binding of a scope. */
function isMember(d: Definition): boolean {
  return d.name.includes(".") || d.kind === "field" || d.kind === "property" || d.kind === "method";
}

// ---- mast_references ----

/** How a site uses the declaration. */
export type Mark = "declaration" | "read" | "write" | "call";

export interface ReferenceLine {
  file_path: string;
  line: number;
  context: string;
  marks: Mark[];
  /** Verified lines: how the occurrence was tied to the declaration. */
  resolution?: string;
}

export interface References {
  readonly declaration: Definition | null;
  readonly verified: ReferenceLine[];
  readonly potential: ReferenceLine[];
  /** Lines naming it whose every occurrence provably refers to another declaration. */
  readonly elsewhere: number;
  /** Lines naming it only inside comments or strings. */
  readonly notCode: number;
  /** Lines naming it in files of other languages (which cannot refer to it). */
  readonly otherLanguage: number;
  /** Files with lines naming it that were not parsed (past MAX_PARSED_FILES or PARSE_BUDGET_MS, unreadable, or of a language without binding rules): their lines are potential, unmarked. */
  readonly unparsedFiles: number;
  /** Where in the file order PARSE_BUDGET_MS stopped the parsing (null: it did not): a later page parses exactly as far. */
  readonly parseUntil: number | null;
}

const at = (p: TextPosition, d: Definition): boolean => p.line === d.line && p.column === d.column;
/** Two answers name one declaration: its file, line and name — a module by its file alone (importers spell its specifier differently). */
const sameDeclaration = (a: Definition, b: Definition): boolean =>
  a.kind === "module" && b.kind === "module" ? a.file_path === b.file_path : a.file_path === b.file_path && a.line === b.line && tailOf(a.name) === tailOf(b.name);

/** The declaration a query names (a name or `Owner.member`, in a file when given): an indexed one, or a field or property its owner's file declares. */
export function declarationNamed(db: Db, projectRoot: string, symbol: string, filePath: string | null): Definition | null {
  const nav = new Navigator(db, projectRoot);
  const target = findTarget(db, symbol, filePath);
  const first = target.sites[0];
  if (first) {
    const row = prepared(db, `${SYMBOL_ROW} WHERE s.id = ?`).get(first.id) as SymbolRow;
    return nav.locate(row);
  }
  const normal = symbol.replaceAll("::", ".");
  const dot = normal.lastIndexOf(".");
  if (dot <= 0) return null;
  const ownerName = normal.slice(0, dot);
  const member = normal.slice(dot + 1);
  const fileId = filePath === null ? null : requireIndexedFile(db, filePath).id;
  const owners = (prepared(db, `${SYMBOL_ROW} WHERE s.name = ? ORDER BY s.is_exported DESC, f.path, s.line`).all(ownerName) as SymbolRow[]).filter(
    (r) => TYPE_KINDS.includes(r.kind) && (fileId === null || r.file_id === fileId),
  );
  for (const owner of owners) {
    const found = nav.member(owner, member);
    if (found) return found;
  }
  return null;
}

/** The target of a references query by symbol (declarationNamed), or null when nothing of that name is declared. */
export function referenceTargetNamed(db: Db, projectRoot: string, symbol: string, filePath: string | null): ReferenceTarget | null {
  const declaration = declarationNamed(db, projectRoot, symbol, filePath);
  return declaration === null
    ? null
    : { name: tailOf(declaration.name), declaration, resolution: null, other: [], from: declaration.file_path, origin: null, fileOnly: false, member: isMember(declaration) };
}

/** Where a declaration is visible by its binding: only its own file (a parameter or a local), or wherever files can import or reach it. */
function isLocal(nav: Navigator, d: Definition): boolean {
  if (d.column === null || d.name.includes(".")) return false;
  const site = nav.sources
    .names(d.file_path)
    ?.sites(d.name)
    .find((s) => s.line === d.line && s.column === d.column);
  const b = site?.binding;
  return b !== undefined && b !== null && b !== "conflict" && !b.fileLevel && site!.role !== "member" && site!.declared?.owner == null;
}

/**
 * Every reference to a declaration: each line naming it classified by resolving its occurrences —
 * verified when one resolves to the declaration (or a call-graph edge links it), potential when
 * nothing proves what it names, counted in `elsewhere` when every occurrence resolves to another
 * declaration and in `notCode` when it names it only in comments or strings. Lines come in path
 * and line order, each with its marks.
 */
export function referencesTo(db: Db, projectRoot: string, target: ReferenceTarget, parseUntil: number | null = null): References {
  const nav = new Navigator(db, projectRoot);
  const { name, declaration, from } = target;
  // A declaration chosen by name (or none) is a guess: an occurrence resolving to another declaration of the same sort may still be this one's.
  const guess = declaration === null || target.resolution === "name";
  const declaringId = nav.fileId(from);
  const local = target.fileOnly || (declaration !== null && isLocal(nav, declaration));
  // Only files of the declaration's language (TypeScript and JavaScript are one) can name it; other languages' lines are counted.
  const family = familyOf(from);
  // The names it is exported under too (`export { AnyRouter as AnyTRPCRouter }`): an importer's use of the alias is a reference.
  const spellings = declaration === null || local ? [name] : [name, ...nav.aliasesOf(declaration)];
  const named = local ? [] : linesNaming(db, projectRoot, spellings);
  const candidates = named.filter((c) => familyOf(c.file_path) === family);
  const otherLanguage = named.length - candidates.length;
  const byFile = new Map<string, Array<{ line: number; context: string }>>();
  if (declaringId !== null) byFile.set(from, []);
  for (const c of candidates) (byFile.get(c.file_path) ?? byFile.set(c.file_path, []).get(c.file_path)!).push(c);
  // The declaring file and the files that import it (transitively) first: a reference elsewhere cannot be proven by an import.
  const near = new Set(
    declaringId === null
      ? []
      : (prepared(db, "SELECT path FROM files WHERE id IN (SELECT value FROM json_each(?))")
          .pluck()
          .all(JSON.stringify(reachableFiles(db, [declaringId]))) as string[]),
  );
  const origin = target.origin ?? from;
  if (!byFile.has(origin) && nav.fileId(origin) !== null) byFile.set(origin, []);
  const dir = posix.dirname(from);
  const order = [...byFile.keys()].sort((a, b) => rankOf(a) - rankOf(b) || (a < b ? -1 : a > b ? 1 : 0));
  // The declaration's file and the position's first; then its importers and its directory — or, for a guess, the files nearest the position's in the tree.
  function rankOf(path: string): number {
    if (path === from || path === origin) return 0;
    if (guess) return 1 + distance(origin, path);
    return near.has(path) || posix.dirname(path) === dir ? 1 : 2;
  }
  const lines = new Map<string, Entry>();
  let notCode = 0;
  let unparsedFiles = 0;
  let parsedFiles = 0;
  let otherParsed = 0;
  // The parse budget in time, or — for a later page — where the first page's ran out (`parseUntil`), so every page classifies alike.
  const deadline = performance.now() + PARSE_BUDGET_MS;
  let stoppedAt: number | null = null;
  const inTime = (i: number) => {
    if (parseUntil !== null) return i < parseUntil;
    if (stoppedAt === null && performance.now() >= deadline) stoppedAt = i;
    return stoppedAt === null;
  };
  for (const [i, path] of order.entries()) {
    const found = byFile.get(path)!;
    const parse = parsedFiles < MAX_PARSED_FILES && (rankOf(path) === 0 || inTime(i)) && (guess || rankOf(path) < 2 || otherParsed++ < MAX_OTHER_PARSED);
    const names = parse ? nav.sources.names(path) : null;
    if (names === null) {
      unparsedFiles++;
      for (const c of found) Object.assign(entryAt(lines, path, c.line, c.context), { state: "potential", fits: true });
      continue;
    }
    parsedFiles++;
    const seen = classifyOccurrences(nav, path, names, target, spellings, local, guess, lines);
    for (const c of found) if (!seen.has(c.line) && !lines.has(`${path}:${c.line}`)) notCode++;
  }
  if (!local && declaration !== null && nav.fileId(declaration.file_path) !== null) addProvenCalls(db, projectRoot, declaration, lines);
  const byPath = (a: Entry, b: Entry) => (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : a.line - b.line);
  const sorted = [...lines.values()].sort(byPath);
  // Potential lines: an occurrence of the target's sort first (a member access for a member, a name for a binding), then by file rank.
  const likely = (a: Entry, b: Entry) => Number(b.fits) - Number(a.fits) || rankOf(a.file_path) - rankOf(b.file_path) || byPath(a, b);
  const strip = ({ state: _state, fits: _fits, ...rest }: Entry): ReferenceLine => rest;
  return {
    declaration,
    verified: sorted.filter((e) => e.state === "verified").map(strip),
    potential: sorted
      .filter((e) => e.state === "potential")
      .sort(likely)
      .map(strip),
    elsewhere: sorted.filter((e) => e.state === "elsewhere").length,
    notCode,
    otherLanguage,
    unparsedFiles,
    parseUntil: parseUntil ?? stoppedAt,
  };
}

/** A line naming the target while its file is classified: its state, and whether an occurrence there is of the target's sort (potential lines of that sort come first). */
type Entry = ReferenceLine & { state: "verified" | "potential" | "elsewhere"; fits: boolean };

/** The entry of a line, made (naming another declaration, unmarked) when it has none yet. */
function entryAt(lines: Map<string, Entry>, path: string, line: number, context: string): Entry {
  const key = `${path}:${line}`;
  let e = lines.get(key);
  if (!e) lines.set(key, (e = { file_path: path, line, context, marks: [], state: "elsewhere", fits: false }));
  return e;
}

function mark(e: Entry, m: Mark): void {
  if (!e.marks.includes(m)) e.marks.push(m);
}

/**
 * Each occurrence of the target's spellings in a parsed file, resolved: verified when it is the
 * target, potential when nothing proves what it names (or, for a guess, it resolves to a
 * declaration of the target's sort). The lines holding an occurrence.
 */
function classifyOccurrences(
  nav: Navigator,
  path: string,
  names: FileNames,
  target: ReferenceTarget,
  spellings: readonly string[],
  local: boolean,
  guess: boolean,
  lines: Map<string, Entry>,
): Set<number> {
  const { declaration } = target;
  const fileId = nav.fileId(path)!;
  const seen = new Set<number>();
  for (const [spelling, site] of spellings.flatMap((n) => names.sites(n).map((site) => [n, site] as const))) {
    seen.add(site.line);
    const e = entryAt(lines, path, site.line, nav.sources.line(path, site.line)?.trim() ?? "");
    // The declaration's own name, or an occurrence its binding in the file is (a use of a parameter, a local, an import).
    const own =
      declaration !== null &&
      path === declaration.file_path &&
      (((site.role === "declaration" || site.role === "binding") && at(site, declaration)) ||
        (site.role !== "member" && site.binding !== null && site.binding !== "conflict" && at(site.binding, declaration)));
    // A local or an import binding is named by no member access (`o.z` is a property, whatever `o` is).
    if (!own && local && site.role === "member") continue;
    const resolved = own ? null : nav.resolve(path, fileId, site, spelling);
    const isTarget = own || (declaration !== null && resolved !== null && resolved.definitions.some((d) => sameDeclaration(d, declaration)));
    if (isTarget) {
      e.state = "verified";
      e.resolution ??= own ? "scope" : resolved!.resolution;
      mark(e, site.access);
    } else if (resolved === null || resolved.resolution === "name" || (guess && resolved.definitions.some((d) => isMember(d) === target.member))) {
      if (e.state !== "verified") e.state = "potential";
      if (e.state === "potential") mark(e, site.access);
      e.fits ||= (site.role === "member" || site.role === "key") === target.member;
    }
  }
  return seen;
}

/** Calls the call graph proved (through return types, chains, the checker pass): verified lines too. */
function addProvenCalls(db: Db, projectRoot: string, declaration: Definition, lines: Map<string, Entry>): void {
  const target = findTarget(db, declaration.name, declaration.file_path);
  if (!target.sites[0] || target.sites[0].line > declaration.line) return;
  for (const v of withContexts(verifiedCallers(db, target.ids, false), new SourceLines(projectRoot))) {
    const e = entryAt(lines, v.file_path, v.line, v.context);
    if (e.state !== "verified") {
      e.state = "verified";
      e.marks = [];
      e.resolution = v.resolution === "checker" ? "checker" : v.resolution;
    }
    mark(e, "call");
  }
}

/** How far apart two files are in the tree: the directories between them (0 for one directory). */
function distance(a: string, b: string): number {
  const x = posix.dirname(a).split("/");
  const y = posix.dirname(b).split("/");
  let common = 0;
  while (common < x.length && common < y.length && x[common] === y[common]) common++;
  return x.length + y.length - 2 * common;
}
