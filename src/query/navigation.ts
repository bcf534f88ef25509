// The navigation answers (docs/tools.md): project skeleton, a file's exports, a symbol's signature with
// its type context, a file's imports. Read-only over the store; every unbounded list is capped
// with an explicit truncation count.
import { LIST_BUDGET_BYTES, fitList } from "../base/budget.js";
import { MastError } from "../base/errors.js";
import { comparePaths, pathRole, projectPath } from "../base/paths.js";
import { MAX_INHERITANCE_DEPTH } from "../lang/spec.js";
import { extensionInfo } from "../lang/languages.js";
import { prepared, symbolTextReader, type Db } from "../store/db.js";
import { unpackParams } from "../store/param-rows.js";
import type { ParamRecord } from "../syntax/types.js";
import { scopeCondition, scopeFileIds } from "./scope.js";
import { isIndexEmpty } from "./search.js";
import { EDGE } from "../store/edge-codes.js";

// ---- mast_project_skeleton ----

export interface SkeletonInput {
  readonly directory?: string | null | undefined;
  readonly max_depth?: number | null | undefined;
  readonly file_pattern?: string | null | undefined;
  readonly limit: number;
  /** Names listed per file; the rest is counted in the file's exports_truncated. */
  readonly max_exports: number;
  /** Member names (methods, constructors) listed per product file; the rest, and a test file's, are counted in the file's members_truncated. */
  readonly max_members: number;
}

export interface FileSkeleton {
  file_path: string;
  /** The file's exported declarations in source order (nested types as `Outer.Inner`), and the names it re-exports; absent when none. */
  exports?: string[];
  exports_truncated?: number;
  /** Public members by their type's name, in source order: the types exported here, and types declared in another file that this file defines methods of. */
  members?: Record<string, string[]>;
  members_truncated?: number;
}

export interface SkeletonResponse {
  files: FileSkeleton[];
  files_truncated?: number;
  /** How many of the files left out are test files (they are listed last, so the cut takes them first). */
  test_files_truncated?: number;
  index_empty?: true;
  /** The directory or file_pattern matches no indexed file (not "nothing exported there"). */
  scope_empty?: true;
}

/**
 * Every file in scope — one declaring nothing public as its path alone — with its first exported
 * names and its types' first public members, in source order (a test file's members only counted:
 * they are its test cases). Product files come first and test files (`files.is_test`) after, each in
 * tree order (base/paths.ts comparePaths), so the cut to `input.limit` files and `maxBytes` of
 * message bytes takes tests first; files_truncated counts the files left out.
 */
export function projectSkeleton(db: Db, input: SkeletonInput, maxBytes = LIST_BUDGET_BYTES): SkeletonResponse {
  const directory = normaliseDirectory(input.directory);
  const ids = scopeFileIds(db, { file_pattern: input.file_pattern, directory });
  const scoped = (column: string) => scopeCondition(column, ids);
  const depthOk = (path: string) => input.max_depth === null || input.max_depth === undefined || depthBelow(directory, path) <= input.max_depth;
  const inScope = scoped("id");
  const files = (db.prepare(`SELECT id, path, is_test FROM files WHERE ${inScope.sql}`).all(...inScope.params) as Array<{ id: number; path: string; is_test: number }>).filter((f) => depthOk(f.path));
  const exports = new Map<number, Set<string>>();
  for (const r of skeletonDeclarations(db, scoped)) {
    const names = exports.get(r.file_id) ?? new Set<string>();
    names.add(r.name);
    exports.set(r.file_id, names);
  }
  const members = new Map<number, Array<{ type: string; name: string }>>();
  for (const r of skeletonMembers(db, scoped)) {
    const list = members.get(r.file_id) ?? [];
    list.push({ type: r.parent, name: r.name.startsWith(`${r.parent}.`) ? r.name.slice(r.parent.length + 1) : r.name.slice(r.name.lastIndexOf(".") + 1) });
    members.set(r.file_id, list);
  }
  const ordered = files.sort((a, b) => a.is_test - b.is_test || comparePaths(a.path, b.path));
  const all = ordered.map((f) =>
    fileSkeleton(f.path, [...(exports.get(f.id) ?? [])], members.get(f.id) ?? [], { max_exports: input.max_exports, max_members: f.is_test === 1 ? 0 : input.max_members }),
  );
  const fit = fitList(all, input.limit, maxBytes);
  const response: SkeletonResponse = { files: fit.items };
  if (fit.omitted > 0) {
    response.files_truncated = fit.omitted;
    const tests = ordered.slice(fit.items.length).filter((f) => f.is_test === 1).length;
    if (tests > 0) response.test_files_truncated = tests;
  }
  if (all.length === 0 && isIndexEmpty(db)) response.index_empty = true;
  else if (ids !== null && ids.length === 0) response.scope_empty = true;
  return response;
}

type ScopeSql = (column: string) => { sql: string; params: unknown[] };

/** Exported declarations by their chunks (no methods nor a namespace's or function's own functions: they are members), and the names a file re-exports (a barrel's, a package's `__init__.py`), by line. */
function skeletonDeclarations(db: Db, scoped: ScopeSql): Array<{ file_id: number; name: string }> {
  const chunks = scoped("c.file_id");
  const markers = scoped("s.file_id");
  return db
    .prepare(
      `SELECT file_id, name FROM (
         SELECT c.file_id, c.symbol_name AS name, c.start_line AS line, 0 AS kind, c.id AS ord FROM chunks c
         WHERE c.is_exported = 1 AND c.symbol_name IS NOT NULL AND c.chunk_type NOT IN ('method', 'doc') AND NOT (c.chunk_type = 'function' AND c.parent_symbol IS NOT NULL) AND ${chunks.sql}
         UNION ALL
         SELECT s.file_id, s.name, s.line, 1, s.id FROM symbols s
         WHERE s.kind = 'export' AND s.is_exported = 1 AND s.reexport_name IS NOT NULL AND s.reexport_name != '*' AND ${markers.sql}
       ) ORDER BY file_id, line, kind, ord`,
    )
    .all(...chunks.params, ...markers.params) as Array<{ file_id: number; name: string }>;
}

/**
 * Public methods and constructors (`Type.member`, parent_name the type) by line: of a type this
 * file exports, or of a type no declaration of this file names (a Go method, a C++ out-of-line
 * definition, a Rust impl beside the type's file) — not of a type the file keeps private.
 */
function skeletonMembers(db: Db, scoped: ScopeSql): Array<{ file_id: number; name: string; parent: string }> {
  const scope = scoped("s.file_id");
  return db
    .prepare(
      `SELECT s.file_id, s.name, s.parent_name AS parent FROM symbols s
       WHERE s.kind = 'method' AND s.is_exported = 1 AND s.parent_name IS NOT NULL AND ${scope.sql}
         AND (EXISTS (SELECT 1 FROM symbols p WHERE p.name = s.parent_name AND p.file_id = s.file_id AND p.is_exported = 1 AND p.kind NOT IN ('method', 'export'))
              OR NOT EXISTS (SELECT 1 FROM symbols p WHERE p.name = s.parent_name AND p.file_id = s.file_id))
       ORDER BY s.file_id, s.line, s.id`,
    )
    .all(...scope.params) as Array<{ file_id: number; name: string; parent: string }>;
}

/** One file's entry: its first max_exports names and first max_members members in source order (overloads once), each cut counted, empty lists left out. */
function fileSkeleton(file_path: string, names: string[], members: ReadonlyArray<{ type: string; name: string }>, caps: { max_exports: number; max_members: number }): FileSkeleton {
  const entry: FileSkeleton = { file_path };
  if (names.length > 0 && caps.max_exports > 0) entry.exports = names.slice(0, caps.max_exports);
  if (names.length > caps.max_exports) entry.exports_truncated = names.length - caps.max_exports;
  const byType = new Map<string, string[]>();
  const seen = new Set<string>();
  let cut = 0;
  for (const m of members) {
    const key = `${m.type}\0${m.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > caps.max_members) cut += 1;
    else if (byType.has(m.type)) byType.get(m.type)!.push(m.name);
    else byType.set(m.type, [m.name]);
  }
  // Types in the order the file declares them (an outer class before a nested one whose member comes first), types declared elsewhere last.
  const rank = (type: string) => {
    const at = names.indexOf(type);
    return at < 0 ? names.length : at;
  };
  if (byType.size > 0) entry.members = Object.fromEntries([...byType].sort(([a], [b]) => rank(a) - rank(b)));
  if (cut > 0) entry.members_truncated = cut;
  return entry;
}

function normaliseDirectory(directory: string | null | undefined): string | null {
  if (directory === null || directory === undefined) return null;
  const d = directory
    .replace(/\\/g, "/")
    .replace(/^\.\/+/, "")
    .replace(/\/+$/, "");
  if (d.startsWith("/") || d === ".." || d.startsWith("../")) {
    throw new MastError("PATH_DENIED", `directory must be inside the project: ${directory}`);
  }
  return d === "." ? "" : d;
}

/** Directories between `directory` and the file: a file directly inside it has depth 0. */
function depthBelow(directory: string | null, path: string): number {
  const rel = directory ? path.slice(directory.length + 1) : path;
  return rel.split("/").length - 1;
}

// ---- shared symbol rows ----

interface SymbolRow {
  id: number;
  name: string;
  kind: string;
  path: string;
  file_id: number;
  line: number;
  end_line: number;
  is_exported: number;
  signature: string | null;
  doc: string | null;
  params: string | null;
  return_type: string | null;
  reexport_module: string | null;
  reexport_name: string | null;
}

const SYMBOL_COLUMNS = `s.id, s.name, s.kind, f.path, s.file_id, s.line, s.end_line, s.is_exported, s.return_type, s.reexport_module, s.reexport_name`;

type BareSymbolRow = Omit<SymbolRow, "signature" | "doc" | "params">;

/** Symbol rows with their texts (signature, doc, params: kept per file, store/symbol-texts.ts). */
function withTexts(db: Db, rows: readonly BareSymbolRow[]): SymbolRow[] {
  const texts = symbolTextReader(db);
  return rows.map((r) => ({ ...r, ...texts(r.file_id, r.id) }));
}

/** The symbol rows `sql` (selecting SYMBOL_COLUMNS) finds, with their texts. */
function symbolRows(db: Db, sql: string, ...args: unknown[]): SymbolRow[] {
  return withTexts(db, prepared(db, sql).all(...args) as BareSymbolRow[]);
}

/** The indexed file row for a project-relative path; FILE_NOT_FOUND when it is not indexed. */
export function requireIndexedFile(db: Db, path: string): { id: number; path: string } {
  const row = db.prepare("SELECT id, path FROM files WHERE path = ?").get(normalisePath(path)) as { id: number; path: string } | undefined;
  if (!row) {
    throw new MastError("FILE_NOT_FOUND", `not in the index: ${path}`, { hint: "Paths are relative to the project root; a new file is indexed by mast_reindex." });
  }
  return row;
}

/** A project-relative path argument, normalised (tools make absolute in-project paths relative first). */
export function normalisePath(path: string): string {
  return projectPath(path, null);
}

// ---- mast_exports ----

export interface ExportEntry {
  name: string;
  kind: string;
  signature: string | null;
  line: number;
  doc: string | null;
  /** Re-exports: the module the name comes from. */
  from?: string;
}

export interface ExportsResponse {
  file_path: string;
  exports: ExportEntry[];
  /** `export * from` modules: names not listed one by one. */
  star_exports: string[];
}

export function fileExports(db: Db, filePath: string): ExportsResponse {
  const file = requireIndexedFile(db, filePath);
  const rows = symbolRows(
    db,
    `SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.file_id = ? AND s.is_exported = 1 AND s.kind != 'method' ORDER BY s.line, s.id`,
    file.id,
  );
  const stars = db.prepare("SELECT module FROM imports WHERE file_id = ? AND kind = 'export_star' ORDER BY line, id").pluck().all(file.id) as string[];
  return {
    file_path: file.path,
    exports: rows.map((r) => ({
      name: r.name,
      kind: r.kind,
      signature: r.signature,
      line: r.line,
      doc: r.doc,
      ...(r.reexport_module !== null ? { from: r.reexport_module === "*" ? starSource(db, file.id, r.name) : r.reexport_module } : {}),
    })),
    star_exports: stars,
  };
}

// ---- mast_signature ----

export interface TypeContextEntry {
  name: string;
  signature: string;
  file_path: string;
  line: number;
  /** Present when the declaration was cut to its first lines. */
  truncated?: true;
}

export interface SignatureEntry {
  symbol: string;
  kind: string;
  file_path: string;
  line: number;
  is_exported: boolean;
  signature: string | null;
  doc: string | null;
  params: ParamRecord[] | null;
  return_type: string | null;
  type_context: TypeContextEntry[];
}

/**
 * A doc comment's summary, as Javadoc defines it: its first sentence (up to a `.` followed by
 * white space, within the text before the first blank line or `@tag`), without the comment markers
 * (`/**`, `*` at line starts, `*\/`, `//`), lines joined by spaces. The whole comment when it has no
 * text before a tag.
 */
export function docSummary(doc: string): string {
  const lines = doc
    .replace(/^\s*\/\*\*?/, "")
    .replace(/\*\/\s*$/, "")
    .split("\n")
    .map((l) => l.replace(/^\s*(?:\*(?!\/)|\/\/\/?)\s?/, "").trimEnd());
  const out: string[] = [];
  for (const line of lines) {
    if (line.trim() === "") {
      if (out.length > 0) break;
      continue;
    }
    if (/^\s*@/.test(line)) break;
    out.push(line.trim());
  }
  if (out.length === 0)
    return lines
      .map((l) => l.trim())
      .filter(Boolean)
      .join(" ");
  const text = out.join(" ");
  const end = /\.\s/.exec(text);
  return end === null ? text : text.slice(0, end.index + 1);
}

export interface SignatureResponse {
  results: SignatureEntry[];
  results_truncated?: number;
}

/** Lines of a type declaration kept in type_context before it is cut (rule 8). */
const TYPE_CONTEXT_MAX_LINES = 50;
const TYPE_KINDS = ["interface", "type", "class", "enum"];

/**
 * The declared name a query means: the name itself when some declaration has it, else for
 * `Alias.member` where `Alias` is an export alias of a class (`export { Hono as HonoBase }`), the
 * member under the class's own name (`Hono.member`), else the member a class inherits
 * (`Client.send` → `BaseClient.send`). A path written with `::` is read with `.`.
 */
export function declaredName(db: Db, query: string): string {
  // Declared names join their segments with `.`; `Type::method` (Rust, C++) means `Type.method`.
  const symbol = query.replaceAll("::", ".");
  const dot = symbol.lastIndexOf(".");
  const exists = db.prepare("SELECT 1 FROM symbols WHERE name = ? AND kind != 'export' LIMIT 1");
  if (exists.get(symbol) !== undefined) return symbol;
  if (dot <= 0) return oneQualified(db, symbol) ?? symbol;
  const origins = db.prepare("SELECT DISTINCT alias_of FROM symbols WHERE name = ? AND alias_of IS NOT NULL ORDER BY alias_of").pluck().all(symbol.slice(0, dot)) as string[];
  for (const origin of origins) {
    const member = `${origin}${symbol.slice(dot)}`;
    if (exists.get(member) !== undefined) return member;
  }
  return inheritedMember(db, symbol.slice(0, dot), symbol.slice(dot + 1)) ?? oneQualified(db, symbol) ?? symbol;
}

/** The declared names (in one file, when given) that end with `.name` (`route` → `Sinatra.Base.route`, `Base.get` → `Sinatra.Base.get`), by name. */
export function namesEndingWith(db: Db, name: string, fileId: number | null = null): string[] {
  if (fileId !== null) {
    return db
      .prepare("SELECT DISTINCT name FROM symbols WHERE file_id = ? AND kind != 'export' AND length(name) > length(?) + 1 AND substr(name, -length(?) - 1) = '.' || ? ORDER BY name")
      .pluck()
      .all(fileId, name, name, name) as string[];
  }
  // The qualified names by last segment, kept per connection while the data stands (not a scan of every symbol per call).
  const candidates = qualifiedNamesEndingIn(db, tailOf(name)).filter((q) => q.length > name.length + 1 && q.endsWith(`.${name}`));
  if (candidates.length === 0) return [];
  return db.prepare("SELECT DISTINCT name FROM symbols WHERE name IN (SELECT value FROM json_each(?)) AND kind != 'export' ORDER BY name").pluck().all(JSON.stringify(candidates)) as string[];
}

/** The last `.` segment of a qualified name (`Class.method` → `method`). */
export function tailOf(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}

/** The qualified names (`Class.method`, `ns.f`, `outer.inner`) whose last segment is `tail`, by symbols.tail's index. */
function qualifiedNamesEndingIn(db: Db, tail: string): string[] {
  return prepared(db, "SELECT DISTINCT name FROM symbols WHERE tail = ?").pluck().all(tail) as string[];
}

/** The types declaring a method named `member` (`header` → Context, HonoRequest). */
export function methodOwnersOf(db: Db, member: string): string[] {
  return prepared(db, "SELECT DISTINCT parent_name FROM symbols WHERE tail = ? AND kind = 'method' AND name = parent_name || '.' || tail").pluck().all(member) as string[];
}

/** The one declared name that ends with `.name` when exactly one does (a member or a nested declaration named without its owners), else null. */
function oneQualified(db: Db, name: string): string | null {
  const found = namesEndingWith(db, name);
  return found.length === 1 ? found[0]! : null;
}

/** `Base.member` for the nearest class up `cls`'s EXTENDS edges that declares `member` (`Client.send` → `BaseClient.send`), else null. */
function inheritedMember(db: Db, cls: string, member: string): string | null {
  const bases = db.prepare(
    `SELECT DISTINCT b.id, b.name FROM edges e JOIN symbols b ON b.id = e.to_id WHERE e.edge_type = ${EDGE.EXTENDS} AND e.from_id IN (SELECT value FROM json_each(?)) ORDER BY b.name, b.id`,
  );
  const exists = db.prepare("SELECT 1 FROM symbols WHERE name = ? AND kind != 'export' LIMIT 1");
  let level = db.prepare("SELECT id FROM symbols WHERE name = ? AND kind IN ('class', 'interface', 'type')").pluck().all(cls) as number[];
  const seen = new Set(level);
  for (let depth = 0; depth < MAX_INHERITANCE_DEPTH && level.length > 0; depth++) {
    const found = bases.all(JSON.stringify(level)) as Array<{ id: number; name: string }>;
    const hit = found.find((b) => exists.get(`${b.name}.${member}`) !== undefined);
    if (hit) return `${hit.name}.${member}`;
    level = found.map((b) => b.id).filter((id) => !seen.has(id));
    for (const id of level) seen.add(id);
  }
  return null;
}

/** The indexed files declaring the name a query means (through export aliases, as `declaredName`), by path (at most `limit`). */
export function declaringPaths(db: Db, query: string, limit: number): string[] {
  return db.prepare("SELECT DISTINCT f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? ORDER BY f.path LIMIT ?").pluck().all(declaredName(db, query), limit) as string[];
}

/**
 * Declarations in their order (exported first, then by path) but a source file's before a test's,
 * an example's or a document's of the same exportedness: `group` in click is its package's
 * decorator, not the one an example script declares.
 */
export function sourceFirst<T extends { readonly path: string; readonly is_exported: number }>(rows: readonly T[]): T[] {
  const aside = (r: T) => (pathRole(r.path) === "source" ? 0 : 1);
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.is_exported - a.r.is_exported || aside(a.r) - aside(b.r) || a.i - b.i)
    .map((x) => x.r);
}

export function symbolSignatures(db: Db, query: string, filePath: string | null, limit: number): SignatureResponse {
  const file = filePath === null ? null : requireIndexedFile(db, filePath);
  const symbol = declaredName(db, query);
  // The texts are read for the rows answered: a name declared 30,000 times is not 30,000 files unpacked.
  let rows: BareSymbolRow[] = prepared(
    db,
    `SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
       WHERE s.name = ? AND s.kind != 'export' ${file ? "AND s.file_id = ?" : ""}
       ORDER BY s.is_exported DESC, f.path, s.line, s.id`,
  ).all(...(file ? [symbol, file.id] : [symbol])) as BareSymbolRow[];
  if (rows.length === 0 && file) {
    // A barrel: follow its re-exports to the declaration.
    const target = resolveThroughReExports(db, file.id, symbol, new Set());
    rows = target ? [target] : [];
  }
  const results = withTexts(db, sourceFirst(rows).slice(0, limit)).map((r) => ({
    symbol: r.name,
    kind: r.kind,
    file_path: r.path,
    line: r.line,
    is_exported: r.is_exported === 1,
    signature: r.signature,
    doc: r.doc,
    params: r.params === null ? null : unpackParams(r.params),
    return_type: r.return_type,
    type_context: typeContext(db, r),
  }));
  const response: SignatureResponse = { results };
  if (rows.length > limit) response.results_truncated = rows.length - limit;
  return response;
}

/** Where a name listed by `__all__` and brought in by one of the file's star imports is declared (its path), or `*` when none of them declares it. */
function starSource(db: Db, fileId: number, name: string): string {
  return resolveThroughReExports(db, fileId, name, new Set())?.path ?? "*";
}

/** The declaration of `name` as seen from a file: in it, or through its named and star re-exports. */
export function resolveThroughReExports(db: Db, fileId: number, name: string, seen: Set<number>): SymbolRow | null {
  if (seen.has(fileId)) return null;
  seen.add(fileId);
  const [local] = symbolRows(
    db,
    `SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.file_id = ? AND s.name = ? AND s.kind != 'method' ORDER BY s.line LIMIT 1`,
    fileId,
    name,
  );
  if (local && local.kind !== "export") return local;
  if (local && local.reexport_module !== null && local.reexport_name !== null && local.reexport_name !== "*") {
    const target = resolvedFileId(db, fileId, local.reexport_module);
    if (target !== null) return resolveThroughReExports(db, target, local.reexport_name, seen);
  }
  const stars = db.prepare("SELECT to_file_id FROM re_export_files WHERE from_file_id = ? ORDER BY to_file_id").pluck().all(fileId) as number[];
  for (const next of stars) {
    const found = resolveThroughReExports(db, next, name, seen);
    if (found) return found;
  }
  return null;
}

function resolvedFileId(db: Db, fromFileId: number, module: string): number | null {
  const row = db.prepare("SELECT i.resolved_file_id AS id FROM imports i WHERE i.file_id = ? AND i.module = ? AND i.resolved_file_id IS NOT NULL LIMIT 1").get(fromFileId, module) as
    | { id: number }
    | undefined;
  return row?.id ?? null;
}

/** Named types in a symbol's parameters and return type, resolved one level deep (docs/call-graph.md#barrels-and-the-types-a-signature-names). */
function typeContext(db: Db, sym: SymbolRow): TypeContextEntry[] {
  const texts: string[] = [];
  if (sym.params !== null) for (const p of unpackParams(sym.params)) if (p.type) texts.push(p.type);
  if (sym.return_type) texts.push(sym.return_type);
  // Names in the type expressions that are the language's own are not the project's.
  const spec = extensionInfo(sym.path)?.spec;
  if (!spec) return [];
  const identifier = new RegExp(spec.identifier, "g");
  const names = [...new Set(texts.flatMap((t) => t.match(identifier) ?? []))].filter((n) => !spec.builtinTypes.has(n));
  const out: TypeContextEntry[] = [];
  for (const name of names) {
    const decl = resolveType(db, sym.file_id, name);
    if (!decl || decl.signature === null) continue;
    const lines = decl.signature.split("\n");
    out.push({
      name,
      signature: lines.slice(0, TYPE_CONTEXT_MAX_LINES).join("\n"),
      file_path: decl.path,
      line: decl.line,
      ...(lines.length > TYPE_CONTEXT_MAX_LINES ? { truncated: true as const } : {}),
    });
  }
  return out;
}

function resolveType(db: Db, fileId: number, name: string): SymbolRow | null {
  const kinds = TYPE_KINDS.map(() => "?").join(", ");
  const [sameFile] = symbolRows(
    db,
    `SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.file_id = ? AND s.name = ? AND s.kind IN (${kinds}) ORDER BY s.line LIMIT 1`,
    fileId,
    name,
    ...TYPE_KINDS,
  );
  if (sameFile) return sameFile;
  const imports = db
    .prepare("SELECT i.resolved_file_id FROM imports i JOIN json_each(i.symbols) j WHERE i.file_id = ? AND j.value = ? AND i.resolved_file_id IS NOT NULL ORDER BY i.line")
    .pluck()
    .all(fileId, name) as number[];
  for (const target of imports) {
    const found = resolveThroughReExports(db, target, name, new Set());
    if (found && TYPE_KINDS.includes(found.kind)) return found;
  }
  const viaStars = resolveThroughReExports(db, fileId, name, new Set());
  return viaStars && TYPE_KINDS.includes(viaStars.kind) ? viaStars : null;
}

// ---- mast_dependencies ----

export interface DependencyEntry {
  module: string;
  symbols: string[];
  kind: string;
  line: number;
  is_external: boolean;
  resolved_path?: string;
}

export interface DependenciesResponse {
  file_path: string;
  imports: DependencyEntry[];
}

/** The names an import takes, the module itself as what it binds it to (`import datetime` → `* as datetime`, `import * as ns` → `* as ns`). */
function importedNames(names: readonly string[], locals: readonly string[]): string[] {
  return names.map((n, i) => (n === "*" && locals[i] !== undefined && locals[i] !== "*" ? `* as ${locals[i]}` : n));
}

export function fileDependencies(db: Db, filePath: string): DependenciesResponse {
  const file = requireIndexedFile(db, filePath);
  const rows = db
    // A name the file's namespace would provide is a dependency where a project file provides it.
    .prepare(
      "SELECT i.module, i.symbols, i.locals, i.kind, i.line, i.is_external, t.path AS resolved_path FROM imports i LEFT JOIN files t ON t.id = i.resolved_file_id WHERE i.file_id = ? AND (i.kind != 'namespace' OR i.resolved_file_id IS NOT NULL) ORDER BY i.line, i.id",
    )
    .all(file.id) as Array<{ module: string; symbols: string; locals: string; kind: string; line: number; is_external: number; resolved_path: string | null }>;
  return {
    file_path: file.path,
    imports: rows.map((r) => ({
      module: r.module,
      symbols: importedNames(JSON.parse(r.symbols) as string[], JSON.parse(r.locals) as string[]),
      kind: r.kind,
      line: r.line,
      is_external: r.is_external === 1,
      ...(r.resolved_path !== null ? { resolved_path: r.resolved_path } : {}),
    })),
  };
}
