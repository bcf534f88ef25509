// Navigation by position (mast_definition, mast_references): the declaration a name at a position
// resolves to — its binding in the file, an import followed through re-exports, a member through
// its object's known type or the call graph's edge — else candidates by name; and every reference
// to one declaration (fields, properties and variables included), each line verified when its
// occurrence resolves to the declaration, potential when nothing proves it, counted when it
// provably names another declaration or names it only in a comment or string.
import { join, posix } from "node:path";
import { MastError } from "../base/errors.js";
import { DEFAULT_MAX_FILE_BYTES, readRegularFile } from "../base/read.js";
import { decodeSource, splitLines } from "../base/text.js";
import { extensionInfo } from "../lang/languages.js";
import { performance } from "node:perf_hooks";
import { prepared, symbolTextReader, type Db } from "../store/db.js";
import type { SymbolTexts } from "../store/symbol-texts.js";
import { reachableFiles } from "../store/link-inputs.js";
import { fileNames, type FileNames, type NameSite, type SiteBinding, type TextPosition } from "../syntax/navigate.js";
import { findTarget, linesNaming, verifiedCallers, withContexts } from "./graph.js";
import { SourceLines } from "./source.js";
import { requireIndexedFile, resolveThroughReExports, tailOf } from "./navigation.js";
import { EDGE, RESOLVED } from "../store/edge-codes.js";

/** How a definition was found: the file's scopes, an import, the object's type, the checker pass's edge, or the name alone. */
export type Resolution = "scope" | "import" | "type" | "checker" | "name";

/** A declaration as navigation answers it: where its name is, what it is, its signature line. */
export interface Definition {
  file_path: string;
  line: number;
  /** The name's column; null when the file could not be read or parsed to find it. */
  column: number | null;
  /** `Owner.member` for a member. */
  name: string;
  kind: string;
  signature: string | null;
}

export interface Resolved {
  readonly resolution: Resolution;
  readonly definitions: Definition[];
  /** Candidates by name before the cap. */
  readonly total: number;
}

/** Candidates a name-only answer lists at most. */
export const NAME_CANDIDATES = 10;
/** Files mast_references parses to classify their lines, the declaring file and its importers first; lines in others are potential. */
export const MAX_PARSED_FILES = 300;
/** Of those, files that do not import the declaring file (nor share its directory): a reference there cannot be proven by an import, only told apart from other declarations'. */
export const MAX_OTHER_PARSED = 40;
/** And only while parsing has taken less than this (a name in hundreds of files answers in bounded time; the rest is potential, counted). */
export const PARSE_BUDGET_MS = 400;
/** Modules an imported name is followed through when each binds it by an import of its own (`export { z }` of `import * as z`). */
const MAX_IMPORT_HOPS = 8;
/** Export aliases of one declaration mast_references also looks for. */
const MAX_ALIASES = 20;
/** Levels of base classes a member is looked up through. */
const MAX_BASES = 5;
const TYPE_KINDS = ["class", "interface", "type", "enum", "struct", "trait"];

interface SymbolRow {
  id: number;
  name: string;
  kind: string;
  file_id: number;
  path: string;
  line: number;
  end_line: number;
}

const SYMBOL_ROW = "SELECT s.id, s.name, s.kind, s.file_id, f.path, s.line, s.end_line FROM symbols s JOIN files f ON f.id = s.file_id";

/** Project files' texts and navigation facts, read and parsed at most once per answer. */
class Sources {
  private readonly texts = new Map<string, { text: string; lines: string[] } | null>();
  private readonly facts = new Map<string, FileNames | null>();
  parsed = 0;
  constructor(private readonly root: string) {}

  read(path: string): { text: string; lines: string[] } | null {
    let got = this.texts.get(path);
    if (got === undefined) {
      const abs = join(this.root, path);
      const read = readRegularFile(abs, { maxBytes: DEFAULT_MAX_FILE_BYTES, noFollow: true, expect: abs });
      const decoded = read.kind === "read" ? decodeSource(read.bytes) : null;
      got = decoded?.kind === "text" ? { text: decoded.text, lines: splitLines(decoded.text) } : null;
      this.texts.set(path, got);
    }
    return got;
  }

  line(path: string, line: number): string | null {
    return this.read(path)?.lines[line - 1] ?? null;
  }

  names(path: string): FileNames | null {
    let got = this.facts.get(path);
    if (got === undefined) {
      const source = this.read(path);
      got = source === null ? null : fileNames(path, source.text);
      if (got !== null) this.parsed++;
      this.facts.set(path, got);
    }
    return got;
  }
}

/** One answer's reads: the store, the files, and the ids of paths. */
class Navigator {
  readonly sources: Sources;
  /** Symbols' signatures (kept per file: store/symbol-texts.ts). */
  readonly texts: (fileId: number, id: number) => SymbolTexts;
  constructor(
    readonly db: Db,
    root: string,
  ) {
    this.sources = new Sources(root);
    this.texts = symbolTextReader(db);
  }

  fileId(path: string): number | null {
    return (prepared(this.db, "SELECT id FROM files WHERE path = ?").get(path) as { id: number } | undefined)?.id ?? null;
  }

  /** The declaration a symbol row is, with its name's position read from its file. */
  locate(row: SymbolRow): Definition {
    const tail = tailOf(row.name);
    const owner = row.name.includes(".") ? tailOf(row.name.slice(0, row.name.lastIndexOf("."))) : null;
    const sites = (this.sources.names(row.path)?.sites(tail) ?? []).filter((s) => s.role === "declaration" && (owner === null || s.declared?.owner === owner));
    const within = sites.filter((s) => s.line >= row.line && s.line <= row.end_line);
    const at = (within.length > 0 ? within : sites).reduce<NameSite | null>((best, s) => (best === null || Math.abs(s.line - row.line) < Math.abs(best.line - row.line) ? s : best), null);
    const line = at?.line ?? row.line;
    return { file_path: row.path, line, column: at?.column ?? null, name: row.name, kind: row.kind, signature: this.signatureOf(row, row.path, line) };
  }

  /** A declaration's signature line: the index's first line of the symbol's, else its source line. */
  signatureOf(symbol: SymbolRow | null, path: string, line: number): string | null {
    const first = (symbol === null ? null : this.texts(symbol.file_id, symbol.id).signature)?.split("\n")[0]?.trim();
    return first ? first : (this.sources.line(path, line)?.trim() ?? null);
  }

  /** The symbol row declared at a line of a file under one of these names. */
  symbolAt(fileId: number, names: readonly string[], line: number): SymbolRow | null {
    return (
      (prepared(this.db, `${SYMBOL_ROW} WHERE s.file_id = ? AND s.name IN (SELECT value FROM json_each(?)) AND s.kind != 'export' AND s.line <= ? AND s.end_line >= ? ORDER BY s.line DESC, s.id LIMIT 1`).get(
        fileId,
        JSON.stringify(names),
        line,
        line,
      ) as SymbolRow | undefined) ?? null
    );
  }

  /** A site's own declaration (a declaration's name, a binding): kind and signature from the index when it has it. */
  declared(path: string, fileId: number, at: TextPosition, name: string, kind: string, owner: string | null): Definition {
    const qualified = owner === null ? name : `${owner}.${name}`;
    const row = this.symbolAt(fileId, owner === null ? [name] : [qualified, ...this.qualifiedEnding(fileId, `${owner}.${name}`)], at.line);
    return {
      file_path: path,
      line: at.line,
      column: at.column,
      name: row?.name ?? qualified,
      kind: row?.kind ?? kind,
      signature: this.signatureOf(row !== null && row.line === at.line ? row : null, path, at.line),
    };
  }

  private qualifiedEnding(fileId: number, suffix: string): string[] {
    return prepared(this.db, "SELECT DISTINCT name FROM symbols WHERE file_id = ? AND substr(name, -length(?) - 1) = '.' || ?").pluck().all(fileId, suffix, suffix) as string[];
  }

  /** The import row binding `local` at (or before) a line of a file, and what it takes from its module. */
  importOf(fileId: number, local: string, line: number): { imported: string; module: string; resolved: string | null; line: number } | null {
    let rows = this.imports.get(fileId);
    if (rows === undefined) {
      const read = prepared(this.db, "SELECT i.symbols, i.locals, i.module, t.path AS resolved, i.line FROM imports i LEFT JOIN files t ON t.id = i.resolved_file_id WHERE i.file_id = ? AND i.kind IN ('import', 'require', 'dynamic_import', 'export_from') ORDER BY i.line DESC, i.id").all(fileId) as Array<{
        symbols: string;
        locals: string;
        module: string;
        resolved: string | null;
        line: number;
      }>;
      this.imports.set(fileId, (rows = read.map((r) => ({ symbols: JSON.parse(r.symbols) as string[], locals: JSON.parse(r.locals) as string[], module: r.module, resolved: r.resolved, line: r.line }))));
    }
    for (const r of rows) {
      if (r.line > line) continue;
      const k = r.locals.indexOf(local);
      if (k !== -1) return { imported: r.symbols[k] ?? local, module: r.module, resolved: r.resolved, line: r.line };
    }
    return null;
  }

  private readonly imports = new Map<number, Array<{ symbols: string[]; locals: string[]; module: string; resolved: string | null; line: number }>>();
  private readonly typeMemo = new Map<string, SymbolRow[]>();
  private readonly memberMemo = new Map<string, Definition | null>();

  /** The declaration a module exports as `name`, through re-exports — in a directory-scoped language (Go), in any file of the package. */
  exported(modulePath: string, name: string): SymbolRow | null {
    const id = this.fileId(modulePath);
    if (id === null) return null;
    const found = resolveThroughReExports(this.db, id, name, new Set());
    if (found && found.kind !== "export") return { id: found.id, name: found.name, kind: found.kind, file_id: found.file_id, path: found.path, line: found.line, end_line: found.end_line };
    return this.inPackage(modulePath, name)[0] ?? null;
  }

  /** Declarations of `name` in the other files of a path's directory, where the language makes a directory one scope (a Go package). */
  inPackage(path: string, name: string): SymbolRow[] {
    const spec = extensionInfo(path)?.spec;
    if (spec?.scope !== "directory") return [];
    const dir = posix.dirname(path);
    return (prepared(this.db, `${SYMBOL_ROW} WHERE s.name = ? AND s.kind != 'export' ORDER BY f.path, s.line, s.id`).all(name) as SymbolRow[]).filter(
      (r) => posix.dirname(r.path) === dir && extensionInfo(r.path)?.spec === spec,
    );
  }

  /** What an import binding of `local` leads to: the declaration it takes, the module itself for a namespace, or the import line for a module outside the project. */
  throughImport(path: string, fileId: number, binding: TextPosition, local: string, atBinding = false): Resolved | null {
    const imp = this.importOf(fileId, local, binding.line);
    if (imp === null) return null;
    if (imp.resolved === null) {
      return { resolution: "import", total: 1, definitions: [{ file_path: path, line: binding.line, column: binding.column, name: local, kind: "import", signature: this.sources.line(path, binding.line)?.trim() ?? null }] };
    }
    // A use of a namespace (`ns.f`'s `ns`, a Go package's name): the import that binds it, as the TypeScript compiler answers.
    // On the binding itself (`import * as ns`), the module, as the compiler answers it there.
    if (imp.imported === "*" && atBinding) return { resolution: "import", total: 1, definitions: [{ file_path: imp.resolved, line: 1, column: null, name: imp.module, kind: "module", signature: null }] };
    if (imp.imported === "*") {
      const own = binding.column > 0;
      return { resolution: "import", total: 1, definitions: [{ file_path: path, line: own ? binding.line : imp.line, column: own ? binding.column : null, name: local, kind: "import", signature: this.sources.line(path, own ? binding.line : imp.line)?.trim() ?? null }] };
    }
    const module = (file_path: string, name: string): Resolved => ({ resolution: "import", total: 1, definitions: [{ file_path, line: 1, column: null, name, kind: "module", signature: null }] });
    let taken: { imported: string; module: string; resolved: string } = { imported: imp.imported, module: imp.module, resolved: imp.resolved };
    for (let hop = 0; hop < MAX_IMPORT_HOPS; hop++) {
      const row = this.exported(taken.resolved, taken.imported);
      if (row !== null) return { resolution: "import", total: 1, definitions: [this.locate(row)] };
      // The module binds the name by an import of its own (`import * as z from './external'; export { z }`): followed, as the compiler does.
      const id = this.fileId(taken.resolved);
      // A namespace the module exports under this name (`export * as z from`, or `export { z as default }` of `import * as z`): that namespace's module.
      const namespace = id === null ? null : this.namespaceExport(id, taken.imported);
      if (namespace !== null) return module(namespace.path, namespace.module);
      const inner = id === null ? null : this.importOf(id, taken.imported, Number.MAX_SAFE_INTEGER);
      if (inner === null || inner.resolved === null) break;
      if (inner.imported === "*") return module(inner.resolved, inner.module);
      taken = { imported: inner.imported, module: inner.module, resolved: inner.resolved };
    }
    // A module (Python's `from pkg import mod`): the module.
    return module(taken.resolved, taken.module);
  }

  /** The module a file exports a namespace of as `name` (a marker whose taken name is `*`), or null. */
  namespaceExport(fileId: number, name: string): { path: string; module: string } | null {
    const row = prepared(
      this.db,
      "SELECT t.path AS path, i.module AS module FROM symbols s JOIN imports i ON i.file_id = s.file_id AND i.module = s.reexport_module JOIN files t ON t.id = i.resolved_file_id WHERE s.file_id = ? AND s.name = ? AND s.kind = 'export' AND s.reexport_name = '*' LIMIT 1",
    ).get(fileId, name) as { path: string; module: string } | undefined;
    return row ?? null;
  }

  /** The names a declaration is re-exported under (`export { A as B } from`, `export type { A as B }` of an import), each checked to lead back to it; at most MAX_ALIASES. */
  aliasesOf(d: Definition): string[] {
    if (d.name.includes(".")) return [];
    const rows = prepared(
      this.db,
      "SELECT DISTINCT s.name, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind = 'export' AND s.reexport_name = ? AND s.name != ? ORDER BY f.path, s.name LIMIT ?",
    ).all(d.name, d.name, MAX_ALIASES) as Array<{ name: string; path: string }>;
    const names = new Set<string>();
    for (const r of rows) {
      const row = names.has(r.name) ? null : this.exported(r.path, r.name);
      if (row !== null && row.path === d.file_path && tailOf(row.name) === tailOf(d.name)) names.add(r.name);
    }
    return [...names];
  }

  /** The type declarations a type name means in a file: its own, an import's, its package's, else every one of the name. */
  types(path: string, fileId: number, name: string): SymbolRow[] {
    const key = `${fileId}:${name}`;
    let found = this.typeMemo.get(key);
    if (found === undefined) this.typeMemo.set(key, (found = this.typesOf(path, fileId, name)));
    return found;
  }

  private typesOf(path: string, fileId: number, name: string): SymbolRow[] {
    const typed = (rows: SymbolRow[]) => rows.filter((r) => TYPE_KINDS.includes(r.kind));
    // `pkg.Type`, `m::Type`: the type a module the file imports exports.
    const qualified = /^(.+?)(?:\.|::)([^.:]+)$/.exec(name);
    if (qualified) {
      const imp = this.importOf(fileId, qualified[1]!, Number.MAX_SAFE_INTEGER);
      const row = imp?.resolved ? this.exported(imp.resolved, qualified[2]!) : null;
      return row !== null && TYPE_KINDS.includes(row.kind) ? [row] : this.typesOf(path, fileId, qualified[2]!);
    }
    const own = typed(prepared(this.db, `${SYMBOL_ROW} WHERE s.file_id = ? AND s.name = ? ORDER BY s.line`).all(fileId, name) as SymbolRow[]);
    if (own.length > 0) return own;
    const imp = this.importOf(fileId, name, Number.MAX_SAFE_INTEGER);
    if (imp?.resolved) {
      const row = this.exported(imp.resolved, imp.imported);
      return row === null ? [] : [row];
    }
    const packaged = typed(this.inPackage(path, name));
    if (packaged.length > 0) return packaged;
    return typed(prepared(this.db, `${SYMBOL_ROW} WHERE s.name = ? ORDER BY s.is_exported DESC, f.path, s.line`).all(name) as SymbolRow[]);
  }

  /** A member of a type: a method the index has, a field or property its file declares (or, undeclared, first assigns through `this`/`self`), else its bases'. */
  member(owner: SymbolRow, member: string, depth = 0): Definition | null {
    const key = `${owner.id}:${member}:${depth}`;
    let found = this.memberMemo.get(key);
    if (found === undefined) this.memberMemo.set(key, (found = this.memberOf(owner, member, depth)));
    return found;
  }

  private memberOf(owner: SymbolRow, member: string, depth: number): Definition | null {
    const methods = prepared(this.db, `${SYMBOL_ROW} WHERE s.name = ? AND s.kind != 'export' ORDER BY s.file_id = ? DESC, f.path, s.line`).all(`${owner.name}.${member}`, owner.file_id) as SymbolRow[];
    const method = methods.find((m) => m.file_id === owner.file_id) ?? methods.find((m) => this.inPackage(owner.path, m.name).some((r) => r.id === m.id));
    if (method) return this.locate(method);
    const ownerTail = tailOf(owner.name);
    const sites = this.sources.names(owner.path)?.sites(member) ?? [];
    const field = sites.find((s) => s.role === "declaration" && s.declared?.owner === ownerTail);
    if (field) return this.declared(owner.path, owner.file_id, field, member, field.declared!.kind, ownerTail);
    const assigned = sites.find((s) => s.role === "member" && s.owner === ownerTail && s.access === "write");
    if (assigned) return { file_path: owner.path, line: assigned.line, column: assigned.column, name: `${ownerTail}.${member}`, kind: "property", signature: this.sources.line(owner.path, assigned.line)?.trim() ?? null };
    if (depth >= MAX_BASES) return null;
    const bases = prepared(this.db, `${SYMBOL_ROW} JOIN edges e ON e.to_id = s.id WHERE e.from_id = ? AND e.edge_type IN (${EDGE.EXTENDS}, ${EDGE.IMPLEMENTS}) ORDER BY e.edge_type = ${EDGE.EXTENDS} DESC, f.path, s.line`).all(owner.id) as SymbolRow[];
    for (const base of bases) {
      const found = this.member(base, member, depth + 1);
      if (found) return found;
    }
    return null;
  }

  /** The declarations the call graph linked a call of `name` on this line to. */
  callEdges(fileId: number, line: number, name: string): Resolved | null {
    const rows = prepared(
      this.db,
      `SELECT DISTINCT b.id, b.name, b.kind, b.file_id, f.path, b.line, b.end_line, e.resolution FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id JOIN files f ON f.id = b.file_id
       WHERE a.file_id = ? AND e.call_line = ? AND e.edge_type = ${EDGE.POTENTIAL_CALL} ORDER BY f.path, b.line`,
    ).all(fileId, line) as Array<SymbolRow & { resolution: number | null }>;
    const named = rows.filter((r) => tailOf(r.name) === name);
    if (named.length === 0) return null;
    const unique = [...new Map(named.map((r) => [r.id, r])).values()];
    return { resolution: named.some((r) => r.resolution === RESOLVED.checker) ? "checker" : "type", total: unique.length, definitions: unique.map((r) => this.locate(r)) };
  }

  /** Candidates by name in the language of `from`: declarations of the name, or members of it (`X.name`), exported first, at most NAME_CANDIDATES. */
  byName(name: string, from: string): Resolved {
    const family = familyOf(from);
    const all = prepared(
      this.db,
      `${SYMBOL_ROW} WHERE (s.name = ? OR (length(s.name) > length(?) + 1 AND substr(s.name, -length(?) - 1) = '.' || ?)) AND s.kind != 'export' ORDER BY s.is_exported DESC, f.path, s.line, s.id`,
    ).all(name, name, name, name) as SymbolRow[];
    // A name in one language does not name another's declarations.
    const rows = all.filter((r) => familyOf(r.path) === family);
    return { resolution: "name", total: rows.length, definitions: rows.slice(0, NAME_CANDIDATES).map((r) => this.locate(r)) };
  }

  /** What one occurrence of a name resolves to; null when nothing but its name says (the caller falls back to byName). */
  resolve(path: string, fileId: number, site: NameSite, name: string): Resolved | null {
    const one = (d: Definition, resolution: Resolution): Resolved => ({ resolution, total: 1, definitions: [d] });
    switch (site.role) {
      case "declaration":
        return one(this.declared(path, fileId, site, name, site.declared!.kind, site.declared!.owner), "scope");
      case "binding":
      case "use": {
        const b = site.binding;
        if (b === "conflict") return null;
        if (b === null) {
          const imported = this.importOf(fileId, name, site.line);
          if (imported !== null) return this.throughImport(path, fileId, { line: imported.line, column: 0 }, name);
          const packaged = this.inPackage(path, name);
          if (packaged.length > 0) return { resolution: "scope", total: packaged.length, definitions: packaged.slice(0, NAME_CANDIDATES).map((r) => this.locate(r)) };
          return site.access === "call" ? this.callEdges(fileId, site.line, name) : null;
        }
        if (b.kind === "import") return this.throughImport(path, fileId, b, name, site.line === b.line && site.column === b.column);
        return one(this.bound(path, fileId, b, name), "scope");
      }
      case "member": {
        const object = site.object;
        if (object !== null && (object.binding === null || object.binding.kind === "import")) {
          const imp = this.importOf(fileId, object.name, object.binding?.line ?? site.line);
          if (imp?.resolved) {
            const row = this.exported(imp.resolved, name);
            if (row) return one(this.locate(row), "import");
          }
        }
        if (site.owner !== null) {
          for (const owner of this.types(path, fileId, site.owner)) {
            const found = this.member(owner, name);
            if (found) return one(found, "type");
          }
        }
        return this.callEdges(fileId, site.line, name);
      }
      case "key":
        if (site.owner !== null) {
          for (const owner of this.types(path, fileId, site.owner)) {
            const found = this.member(owner, name);
            if (found) return one(found, "type");
          }
        }
        return null;
    }
  }

  /** A binding's declaration: a file-level one as the index has it, a local one (a parameter, a variable) at its own line. */
  bound(path: string, fileId: number, b: SiteBinding, name: string): Definition {
    return this.declared(path, fileId, b, name, bindingKind(b.kind), null);
  }
}

/** A binding rule's kind as a declaration kind: `variable_declarator` → variable, `function_declaration` → function. */
function bindingKind(kind: string): string {
  return kind.replace(/_declarat(?:ion|or)$/, "").replace(/^type_alias$/, "type");
}

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
    throw new MastError("INVALID_ARGUMENT", `line ${at.line} is past the end of ${path} (${lines.length > 1 && lines.at(-1) === "" ? lines.length - 1 : lines.length} lines)`, { hint: "Lines and columns are 1-based; read the file to find the line.", usage: true });
  }
  if (at.column > text.length + 1) {
    throw new MastError("INVALID_ARGUMENT", `column ${at.column} is past the end of line ${at.line} of ${path} (${text.length} characters)`, { hint: "Columns are 1-based and count characters; read the line to find the name's column.", usage: true });
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
  const site = nav.sources.names(file.path)?.sites(token.name).find((s) => s.line === token.line && s.column === token.column) ?? null;
  // An object literal's key declares the literal's own property — a candidate first, since the type the literal is given (which the file may not say) may declare it.
  const literalKey = (named: Resolved): Resolved =>
    site?.literal === true ? { resolution: "name", total: named.total + 1, definitions: [nav.declared(file.path, file.id, site, token.name, "property", null), ...named.definitions].slice(0, NAME_CANDIDATES) } : named;
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
  return declaration === null ? null : { name: tailOf(declaration.name), declaration, resolution: null, other: [], from: declaration.file_path, origin: null, fileOnly: false, member: isMember(declaration) };
}

/** Where a declaration is visible by its binding: only its own file (a parameter or a local), or wherever files can import or reach it. */
function isLocal(nav: Navigator, d: Definition): boolean {
  if (d.column === null || d.name.includes(".")) return false;
  const site = nav.sources.names(d.file_path)?.sites(d.name).find((s) => s.line === d.line && s.column === d.column);
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
  const near = new Set(declaringId === null ? [] : (prepared(db, "SELECT path FROM files WHERE id IN (SELECT value FROM json_each(?))").pluck().all(JSON.stringify(reachableFiles(db, [declaringId]))) as string[]));
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
  // Potential lines: an occurrence of the target's sort first (a member access for a member, a name for a binding), then by file rank.
  type Entry = ReferenceLine & { state: "verified" | "potential" | "elsewhere"; fits: boolean };
  const lines = new Map<string, Entry>();
  let notCode = 0;
  let unparsedFiles = 0;
  const entry = (path: string, line: number, context: string): Entry => {
    const key = `${path}:${line}`;
    let e = lines.get(key);
    if (!e) lines.set(key, (e = { file_path: path, line, context, marks: [], state: "elsewhere", fits: false }));
    return e;
  };
  const mark = (e: Entry, m: Mark) => {
    if (!e.marks.includes(m)) e.marks.push(m);
  };
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
      for (const c of found) Object.assign(entry(path, c.line, c.context), { state: "potential", fits: true });
      continue;
    }
    parsedFiles++;
    const fileId = nav.fileId(path)!;
    const seen = new Set<number>();
    for (const [spelling, site] of spellings.flatMap((n) => names.sites(n).map((site) => [n, site] as const))) {
      seen.add(site.line);
      const e = entry(path, site.line, nav.sources.line(path, site.line)?.trim() ?? "");
      // The declaration's own name, or an occurrence its binding in the file is (a use of a parameter, a local, an import).
      const own =
        declaration !== null &&
        path === declaration.file_path &&
        (((site.role === "declaration" || site.role === "binding") && at(site, declaration)) || (site.role !== "member" && site.binding !== null && site.binding !== "conflict" && at(site.binding, declaration)));
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
    for (const c of found) if (!seen.has(c.line) && !lines.has(`${path}:${c.line}`)) notCode++;
  }
  // Calls the call graph proved (through return types, chains, the checker pass) are verified too.
  if (!local && declaration !== null && nav.fileId(declaration.file_path) !== null) {
    const target = findTarget(db, declaration.name, declaration.file_path);
    if (target.sites[0] && target.sites[0].line <= declaration.line) {
      for (const v of withContexts(verifiedCallers(db, target.ids, false), new SourceLines(projectRoot))) {
        const e = entry(v.file_path, v.line, v.context);
        if (e.state !== "verified") {
          e.state = "verified";
          e.marks = [];
          e.resolution = v.resolution === "checker" ? "checker" : v.resolution;
        }
        mark(e, "call");
      }
    }
  }
  const byPath = (a: Entry, b: Entry) => (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : a.line - b.line);
  const sorted = [...lines.values()].sort(byPath);
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

/** How far apart two files are in the tree: the directories between them (0 for one directory). */
function distance(a: string, b: string): number {
  const x = posix.dirname(a).split("/");
  const y = posix.dirname(b).split("/");
  let common = 0;
  while (common < x.length && common < y.length && x[common] === y[common]) common++;
  return x.length + y.length - 2 * common;
}

/** The language family of a file: its spec's extractor (TypeScript and JavaScript share one), or its language. */
function familyOf(path: string): string | null {
  const spec = extensionInfo(path)?.spec;
  return spec === undefined ? null : spec.extractor === "outline" ? spec.name : spec.extractor;
}
