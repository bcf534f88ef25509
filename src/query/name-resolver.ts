// How one occurrence of a name resolves (mast_definition, mast_references): its binding in the
// file's scopes, an import followed through re-exports (and modules binding it by imports of their
// own), a member through its object's known type and base classes, the call graph's edge on its
// line, else candidates by name — over one answer's reads of the store and the files (Navigator).
import { join, posix } from "node:path";
import { DEFAULT_MAX_FILE_BYTES, readRegularFile } from "../base/read.js";
import { decodeSource, splitLines } from "../base/text.js";
import { extensionInfo } from "../lang/languages.js";
import { prepared, symbolTextReader, type Db } from "../store/db.js";
import type { SymbolTexts } from "../store/symbol-texts.js";
import { fileNames, type FileNames, type NameSite, type SiteBinding, type TextPosition } from "../syntax/navigate.js";
import { resolveThroughReExports, tailOf } from "./navigation.js";
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
/** Modules an imported name is followed through when each binds it by an import of its own (`export { z }` of `import * as z`). */
const MAX_IMPORT_HOPS = 8;
/** Export aliases of one declaration mast_references also looks for. */
const MAX_ALIASES = 20;
/** Levels of base classes a member is looked up through. */
const MAX_BASES = 5;
/** The kinds of declaration a type name names (a member's owner). */
export const TYPE_KINDS = ["class", "interface", "type", "enum", "struct", "trait"];

export interface SymbolRow {
  id: number;
  name: string;
  kind: string;
  file_id: number;
  path: string;
  line: number;
  end_line: number;
}

export const SYMBOL_ROW = "SELECT s.id, s.name, s.kind, s.file_id, f.path, s.line, s.end_line FROM symbols s JOIN files f ON f.id = s.file_id";

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
export class Navigator {
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
      (prepared(
        this.db,
        `${SYMBOL_ROW} WHERE s.file_id = ? AND s.name IN (SELECT value FROM json_each(?)) AND s.kind != 'export' AND s.line <= ? AND s.end_line >= ? ORDER BY s.line DESC, s.id LIMIT 1`,
      ).get(fileId, JSON.stringify(names), line, line) as SymbolRow | undefined) ?? null
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
      const read = prepared(
        this.db,
        "SELECT i.symbols, i.locals, i.module, t.path AS resolved, i.line FROM imports i LEFT JOIN files t ON t.id = i.resolved_file_id WHERE i.file_id = ? AND i.kind IN ('import', 'require', 'dynamic_import', 'export_from') ORDER BY i.line DESC, i.id",
      ).all(fileId) as Array<{
        symbols: string;
        locals: string;
        module: string;
        resolved: string | null;
        line: number;
      }>;
      this.imports.set(
        fileId,
        (rows = read.map((r) => ({ symbols: JSON.parse(r.symbols) as string[], locals: JSON.parse(r.locals) as string[], module: r.module, resolved: r.resolved, line: r.line }))),
      );
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
      return {
        resolution: "import",
        total: 1,
        definitions: [{ file_path: path, line: binding.line, column: binding.column, name: local, kind: "import", signature: this.sources.line(path, binding.line)?.trim() ?? null }],
      };
    }
    // A use of a namespace (`ns.f`'s `ns`, a Go package's name): the import that binds it, as the TypeScript compiler answers.
    // On the binding itself (`import * as ns`), the module, as the compiler answers it there.
    if (imp.imported === "*" && atBinding)
      return { resolution: "import", total: 1, definitions: [{ file_path: imp.resolved, line: 1, column: null, name: imp.module, kind: "module", signature: null }] };
    if (imp.imported === "*") {
      const own = binding.column > 0;
      return {
        resolution: "import",
        total: 1,
        definitions: [
          {
            file_path: path,
            line: own ? binding.line : imp.line,
            column: own ? binding.column : null,
            name: local,
            kind: "import",
            signature: this.sources.line(path, own ? binding.line : imp.line)?.trim() ?? null,
          },
        ],
      };
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
    if (assigned)
      return {
        file_path: owner.path,
        line: assigned.line,
        column: assigned.column,
        name: `${ownerTail}.${member}`,
        kind: "property",
        signature: this.sources.line(owner.path, assigned.line)?.trim() ?? null,
      };
    if (depth >= MAX_BASES) return null;
    const bases = prepared(
      this.db,
      `${SYMBOL_ROW} JOIN edges e ON e.to_id = s.id WHERE e.from_id = ? AND e.edge_type IN (${EDGE.EXTENDS}, ${EDGE.IMPLEMENTS}) ORDER BY e.edge_type = ${EDGE.EXTENDS} DESC, f.path, s.line`,
    ).all(owner.id) as SymbolRow[];
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

/** The language family of a file: its spec's extractor (TypeScript and JavaScript share one), or its language. */
export function familyOf(path: string): string | null {
  const spec = extensionInfo(path)?.spec;
  return spec === undefined ? null : spec.extractor === "outline" ? spec.name : spec.extractor;
}
