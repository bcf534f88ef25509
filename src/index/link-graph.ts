// The call graph's model of the store (index/link.ts reads it): what each file contributes to name
// resolution — its declarations, export aliases and re-export markers, import bindings, heritage —
// read per file on first use (or a page of files up front), the packages of directory-scoped
// languages, and the lookups a call is resolved by: a name in its file, a file's exports through
// barrels, a class's members up its `extends` chain, namespaces, fixtures.
import { posix } from "node:path";
import { LANGUAGE_SPECS, languageSpec } from "../lang/languages.js";
import { MAX_INHERITANCE_DEPTH } from "../lang/spec.js";
import type { Db } from "../store/db.js";
import { fileIdsByPaths, fileRows, filesInDirectory, filesOfLanguages, heritageFacts, importFacts, importedFileIds, symbolFacts, symbolSignature } from "../store/link-inputs.js";
import { DEFAULT_EXPORT_NAME } from "../syntax/types.js";

export interface Sym {
  readonly id: number;
  readonly name: string;
  readonly kind: string;
  readonly fileId: number;
  /** Functions and methods: the declared return type as written (variables: the type they hold), and the enclosing class. */
  readonly returnType: string | null;
  readonly parent: string | null;
}

export interface Marker {
  readonly id: number;
  readonly module: string;
  readonly imported: string;
}

interface ImportBinding {
  readonly target: number | null;
  readonly imported: string;
}

/** What one file contributes to name resolution. */
interface FileFacts {
  /** First declaration of each name in the file's scope (methods as `Class.method`); markers and export aliases excluded. */
  readonly declared: Map<string, Sym>;
  /** First function declaration of each name: a plain call means it even where a type of that name came first (C's `struct timer` and `timer()`). */
  readonly functions: Map<string, Sym>;
  /** The first type declaration (class, interface, type, enum) of each name: where a value shares it (`interface S` + `const S = Symbol()`). */
  readonly types: Map<string, Sym>;
  /** Export aliases (`export { local as name }`): exported name → the local name. */
  readonly aliases: Map<string, string>;
  /** Re-export markers by exported name. */
  readonly markers: Map<string, Marker>;
  /** Local name → the import that binds it. */
  readonly bindings: Map<string, ImportBinding>;
  /** Module specifier → the file it resolved to. */
  readonly moduleTargets: Map<string, number>;
  /** `export * from` targets. */
  readonly stars: number[];
  /** Targets of imports that bring every name into scope without binding one (`#include "x.h"`, `require_relative`, `use a::*`, `from m import *`; not ECMAScript's `export *`). */
  readonly globs: number[];
  /** Class name → the name its `extends` clause gives. */
  readonly parents: Map<string, string>;
  /** Classes that also implement, mix in or inherit from other names (`implements`, a C++ second base, Ruby's `include`). */
  readonly implementing: Set<string>;
  /** Class name → every name its heritage gives, in order (a Go interface's embedded interfaces). */
  readonly heritage: Map<string, string[]>;
  /** Import local → the module specifier as written (`fmt` → `fmt`, `json` → `encoding/json`). */
  readonly modules: Map<string, string>;
  /** The file's path and language (its spec reads return types and submodule paths). */
  readonly path: string;
  readonly language: string;
}

function emptyFacts(path: string, language: string): FileFacts {
  return {
    declared: new Map(),
    functions: new Map(),
    types: new Map(),
    aliases: new Map(),
    markers: new Map(),
    bindings: new Map(),
    moduleTargets: new Map(),
    stars: [],
    globs: [],
    parents: new Map(),
    implementing: new Set(),
    heritage: new Map(),
    modules: new Map(),
    path,
    language,
  };
}

/** Languages whose files see every name their directory declares (`LanguageSpec.scope`). */
export const DIRECTORY_SCOPED = LANGUAGE_SPECS.filter((s) => s.scope === "directory").map((s) => s.name);

/** Each file of a directory-scoped language → every file of its package (its directory, its language, in path order), itself included. */
export interface Packages {
  get(fileId: number): readonly number[] | undefined;
}

/** Every directory-scoped file's package at once: for a whole pass, which asks of every file. */
export function allPackages(db: Db): Packages {
  const byKey = new Map<string, number[]>();
  const out = new Map<number, number[]>();
  for (const f of filesOfLanguages(db, DIRECTORY_SCOPED)) {
    const key = `${f.language}\0${posix.dirname(f.path)}`;
    const members = byKey.get(key) ?? [];
    members.push(f.id);
    byKey.set(key, members);
    out.set(f.id, members);
  }
  return out;
}

/**
 * A file's package read when asked (each directory once): for a pass over the files a change
 * reaches, which asks of those only — reading every Go file's row on each of a server's refreshes
 * cost ~90 ms at 1 GB whatever the change's language.
 */
export function packagesWhenAsked(db: Db): Packages {
  const byKey = new Map<string, number[]>();
  const out = new Map<number, number[] | undefined>();
  const scoped = new Set(DIRECTORY_SCOPED);
  return {
    get(fileId: number): readonly number[] | undefined {
      if (out.has(fileId)) return out.get(fileId);
      const row = fileRows(db, [fileId])[0];
      let members: number[] | undefined;
      if (row !== undefined && scoped.has(row.language)) {
        const dir = posix.dirname(row.path);
        const key = `${row.language}\0${dir}`;
        members = byKey.get(key);
        if (members === undefined) byKey.set(key, (members = filesInDirectory(db, row.language, dir === "." ? "" : dir)));
      }
      out.set(fileId, members);
      return members;
    },
  };
}

export const TYPE_KINDS = new Set(["class", "interface", "type", "enum"]);
export const CALLABLE_KINDS = new Set(["function", "class", "const", "variable"]);
export const VALUE_KINDS = new Set(["const", "variable"]);

/** Everything name resolution needs, read from the store per file on first use. */
export class Graph {
  private readonly facts = new Map<number, FileFacts>();
  /** `fixture`'s answers by file and name (a test file asks for the same few fixtures many times). */
  private readonly fixtures = new Map<string, Sym | null>();
  /** The package of each file of a directory-scoped language (`allPackages`, `packagesWhenAsked`). */
  readonly packages: Packages;

  /**
   * `preload`: files read up front in one pass per table, with the files they import from (where
   * most names resolve); null: every file. Any other file is read on first use.
   */
  constructor(
    private readonly db: Db,
    preload: readonly number[] | null,
    packages: Packages,
  ) {
    this.packages = packages;
    if (preload === null || preload.length === 0) {
      this.load(preload);
      return;
    }
    const imported = importedFileIds(db, preload);
    // A package's names are read from all of its files: load them with the files that ask.
    const files = new Set([...preload, ...imported]);
    for (const id of [...files]) for (const member of this.packages.get(id) ?? []) files.add(member);
    this.load([...files]);
  }

  private file(fileId: number): FileFacts {
    let facts = this.facts.get(fileId);
    if (!facts) {
      this.load([fileId]);
      facts = this.facts.get(fileId) ?? emptyFacts("", "");
      this.facts.set(fileId, facts);
    }
    return facts;
  }

  /** Reads the facts of the given files, or of every file (null), in one pass per table. */
  private load(fileIds: readonly number[] | null): void {
    if (fileIds !== null && fileIds.length === 0) return;
    for (const f of fileRows(this.db, fileIds)) {
      this.facts.set(f.id, emptyFacts(f.path, f.language));
    }
    const symbols = symbolFacts(this.db, fileIds);
    for (const s of symbols) {
      const facts = this.facts.get(s.fileId);
      if (!facts) continue;
      if (s.aliasOf !== null) {
        if (!facts.aliases.has(s.name)) facts.aliases.set(s.name, s.aliasOf);
      } else if (s.kind === "export") {
        if (s.module !== null && s.imported !== null && !facts.markers.has(s.name)) facts.markers.set(s.name, { id: s.id, module: s.module, imported: s.imported });
      } else {
        const sym = { id: s.id, name: s.name, kind: s.kind, fileId: s.fileId, returnType: s.returnType, parent: s.parent };
        if (!facts.declared.has(s.name)) facts.declared.set(s.name, sym);
        if (s.kind === "function" && !facts.functions.has(s.name)) facts.functions.set(s.name, sym);
        if (TYPE_KINDS.has(s.kind) && !facts.types.has(s.name)) facts.types.set(s.name, sym);
      }
    }
    const imports = importFacts(this.db, fileIds);
    for (const i of imports) {
      const facts = this.facts.get(i.fileId);
      if (!facts) continue;
      if (i.target !== null) {
        facts.moduleTargets.set(i.module, i.target);
        if (i.kind === "export_star" && !facts.stars.includes(i.target)) facts.stars.push(i.target);
      }
      const names = JSON.parse(i.symbols) as string[];
      // `*` without a local (`#include`, `require`, `from m import *`, `use a::*`): every name the target exports is in scope.
      const binds = i.kind === "import" || (i.kind === "export_star" && languageSpec(facts.language)?.starImportsBind === true);
      if (i.target !== null && binds && names.length === 1 && names[0] === "*" && i.locals === "[]" && !facts.globs.includes(i.target)) facts.globs.push(i.target);
      // A name the file's own namespace would provide binds only where the namespace has it, and never over an import.
      if (i.kind === "namespace" && i.target === null) continue;
      (JSON.parse(i.locals) as string[]).forEach((local, k) => {
        if (i.kind === "namespace" && facts.bindings.has(local)) return;
        if (!facts.modules.has(local)) facts.modules.set(local, i.module);
        const binding = { target: i.target, imported: names[k] ?? local };
        const had = facts.bindings.get(local);
        // A name bound by two different imports (conditional imports, two scopes of one file) means neither for sure.
        facts.bindings.set(local, had === undefined || (had.target === binding.target && had.imported === binding.imported) ? binding : { target: null, imported: "" });
      });
    }
    for (const h of heritageFacts(this.db, fileIds)) {
      const facts = this.facts.get(h.fileId);
      if (!facts) continue;
      if (h.relation === "extends") facts.parents.set(h.className, h.target);
      else facts.implementing.add(h.className);
      const names = facts.heritage.get(h.className);
      if (names) names.push(h.target);
      else facts.heritage.set(h.className, [h.target]);
    }
  }

  /** A top-level declaration named `name` as a file exports it: its own, or through its re-exports. */
  exported(fileId: number, name: string, seen = new Set<number>()): Sym | null {
    if (seen.has(fileId)) return null;
    seen.add(fileId);
    const facts = this.file(fileId);
    if (name === "default") return this.defaultExport(fileId);
    const own = facts.declared.get(facts.aliases.get(name) ?? name) ?? this.inPackage(fileId, name);
    if (own && own.kind !== "method") return own;
    const marker = facts.markers.get(name);
    if (marker && marker.imported !== "*") {
      const target = facts.moduleTargets.get(marker.module);
      if (target !== undefined) return this.exported(target, marker.imported, seen);
    }
    for (const next of facts.stars) {
      const found = this.exported(next, name, seen);
      if (found) return found;
    }
    const binding = languageSpec(facts.language)?.importsAreMembers ? facts.bindings.get(name) : undefined;
    if (binding && binding.target !== null && binding.imported !== "*") return this.exported(binding.target, binding.imported, seen);
    return null;
  }

  /**
   * What `import x from './f'` binds: the store does not record which declaration is the default
   * export, so only the unambiguous case links — an anonymous default export (named after the file).
   */
  private defaultExport(fileId: number): Sym | null {
    const facts = this.file(fileId);
    const own = facts.declared.get(DEFAULT_EXPORT_NAME);
    return own && own.kind !== "method" ? own : null;
  }

  /** What a name means in a file: its own declaration, or the declaration its import binds. */
  resolveName(fileId: number, name: string): { sym: Sym; via: "same_file" | "same_package" | "import" } | null {
    const facts = this.file(fileId);
    const own = facts.declared.get(name);
    if (own && own.kind !== "method") return { sym: own, via: "same_file" };
    const pkg = this.inPackage(fileId, name);
    if (pkg && pkg.kind !== "method") return { sym: pkg, via: "same_package" };
    const binding = facts.bindings.get(name);
    if (binding) {
      if (binding.imported === "*" || binding.target === null) return null;
      const sym = this.exported(binding.target, binding.imported);
      return sym ? { sym, via: "import" } : null;
    }
    for (const target of facts.globs) {
      const sym = this.exported(target, name);
      if (sym) return { sym, via: "import" };
    }
    return null;
  }

  /**
   * `cls` and the classes its `extends` chain resolves to, in order, and whether the chain is
   * complete: it ends at a class that extends nothing (a base that does not resolve to a project
   * class ends it incomplete).
   */
  private ancestry(cls: Sym): { classes: Sym[]; complete: boolean } {
    const classes: Sym[] = [];
    for (let current: Sym | null = cls, depth = 0; current && depth < MAX_INHERITANCE_DEPTH; depth++) {
      classes.push(current);
      const parent = this.file(current.fileId).parents.get(current.name);
      if (parent === undefined) return { classes, complete: true };
      const next = this.resolveName(current.fileId, parent);
      current = next && next.sym.kind === "class" ? next.sym : null;
    }
    return { classes, complete: false };
  }

  /**
   * `Class.name` on the class itself or, failing that, up its `extends` chain; on an interface, also
   * in the project interfaces it extends or embeds (their methods are its own).
   */
  member(cls: Sym, name: string, depth = 0): Sym | null {
    for (const c of this.ancestry(cls).classes) {
      const own = this.file(c.fileId).declared.get(`${c.name}.${name}`) ?? this.inPackage(c.fileId, `${c.name}.${name}`);
      if (own) return own;
    }
    if (cls.kind !== "interface" || depth >= MAX_INHERITANCE_DEPTH) return null;
    for (const embedded of this.heritageOf(cls.fileId, cls.name)) {
      const iface = this.resolveType(cls.fileId, embedded);
      const found = iface?.sym.kind === "interface" ? this.member(iface.sym, name, depth + 1) : null;
      if (found) return found;
    }
    return null;
  }

  /** The fixture a test of `fileId` gets for a parameter `name`: its file's own (or imported), else the nearest conftest's. */
  fixture(fileId: number, name: string): Sym | null {
    const key = `${fileId}\0${name}`;
    if (!this.fixtures.has(key)) this.fixtures.set(key, this.findFixture(fileId, name));
    return this.fixtures.get(key)!;
  }

  private findFixture(fileId: number, name: string): Sym | null {
    const spec = languageSpec(this.file(fileId).language);
    if (!spec?.fixtureName) return null;
    // A fixture named by `name=` is an alias of its function.
    const inFile = (id: number) => this.functionIn(id, this.file(id).aliases.get(name) ?? name);
    const candidates = [
      inFile(fileId) ?? this.resolveName(fileId, name)?.sym ?? null,
      ...fileIdsByPaths(this.db, spec.fixtureFiles?.(this.file(fileId).path) ?? []).map((id) => inFile(id) ?? this.resolveName(id, name)?.sym ?? null),
    ];
    for (const f of candidates) if (f && f.kind === "function" && spec.fixtureName(this.signatureOf(f.id) ?? "", f.name) === name) return f;
    return null;
  }

  functionIn(fileId: number, name: string): Sym | null {
    return this.file(fileId).functions.get(name) ?? null;
  }

  /** Whether every class `cls` inherits from resolves in the project and none of them implements, mixes in or has a second base. */
  closedHierarchy(cls: Sym): boolean {
    const { classes, complete } = this.ancestry(cls);
    return complete && !classes.some((c) => this.file(c.fileId).implementing.has(c.name));
  }

  declaredIn(fileId: number, name: string): Sym | null {
    return this.file(fileId).declared.get(name) ?? null;
  }

  /** A name declared by another file of the file's package (directory-scoped languages), or null. */
  inPackage(fileId: number, name: string): Sym | null {
    for (const member of this.packages.get(fileId) ?? []) {
      if (member === fileId) continue;
      const found = this.file(member).declared.get(name);
      if (found) return found;
    }
    return null;
  }

  /** A type a receiver names: declared, imported, or qualified through a namespace import (`pkg.T`). */
  resolveType(fileId: number, name: string): { sym: Sym; via: "same_file" | "same_package" | "import" } | null {
    const direct = this.resolveName(fileId, name);
    if (direct) return direct;
    const dot = name.lastIndexOf(".");
    if (dot <= 0) return null;
    const file = this.namespaceTarget(fileId, name.slice(0, dot));
    const sym = file === null ? null : this.exported(file, name.slice(dot + 1));
    return sym ? { sym, via: "import" } : null;
  }

  /**
   * A type a type position names (an annotation, a return type, `super`): as `resolveType`, but
   * where the name is also a value's in its file (theia's `interface ChatService` beside
   * `const ChatService = Symbol()`), the type's declaration.
   */
  resolveTypeName(fileId: number, name: string): { sym: Sym; via: "same_file" | "same_package" | "import" } | null {
    const found = this.resolveType(fileId, name);
    if (!found || TYPE_KINDS.has(found.sym.kind)) return found;
    const type = this.file(found.sym.fileId).types.get(found.sym.name);
    return type ? { sym: type, via: found.via } : found;
  }

  languageOf(fileId: number): string {
    return this.file(fileId).language;
  }

  /** A symbol's declaration text, read when a producer's return type is resolved (few are). */
  signatureOf(id: number): string | null {
    return symbolSignature(this.db, id);
  }

  /** The name a class's `extends` clause gives, or null. */
  extendsOf(fileId: number, name: string): string | null {
    return this.file(fileId).parents.get(name) ?? null;
  }

  /** Every name a class's heritage gives (extends first), in order. */
  heritageOf(fileId: number, name: string): readonly string[] {
    return this.file(fileId).heritage.get(name) ?? [];
  }

  /**
   * A qualified name's key outside the project: `pkg.Name` → the module its import names and
   * `Name` (`encoding/json.Marshaler`), a plain name as written (`error`); null when `pkg` is not an import.
   */
  externalKey(fileId: number, name: string): string | null {
    const dot = name.lastIndexOf(".");
    if (dot === -1) return name;
    const module = this.file(fileId).modules.get(name.slice(0, dot));
    return module === undefined ? null : `${module}.${name.slice(dot + 1)}`;
  }

  /** Every declaration of the given files (first of each name per file). */
  declarations(fileIds: readonly number[]): Array<{ fileId: number; sym: Sym }> {
    return fileIds.flatMap((fileId) => [...this.file(fileId).declared.values()].map((sym) => ({ fileId, sym })));
  }

  /**
   * The file a namespace name stands for: `import * as ns`, or a named import of `export * as ns
   * from`; a dotted name (`pkg.sub`, after `import pkg`) is followed a module at a time.
   */
  namespaceTarget(fileId: number, local: string): number | null {
    const [head, ...rest] = local.split(".");
    const binding = this.file(fileId).bindings.get(head!);
    if (!binding || binding.target === null) return null;
    let file: number | null = binding.imported === "*" ? binding.target : this.exportedNamespace(binding.target, binding.imported, new Set());
    for (const part of rest) file = file === null ? null : this.exportedNamespace(file, part, new Set());
    return file;
  }

  /** The file behind `export * as name from './f'` (or an alias of one) as a file exports it. */
  private exportedNamespace(fileId: number, name: string, seen: Set<number>): number | null {
    if (seen.has(fileId)) return null;
    seen.add(fileId);
    const facts = this.file(fileId);
    if (facts.declared.has(facts.aliases.get(name) ?? name)) return null;
    const marker = facts.markers.get(name);
    const target = marker ? facts.moduleTargets.get(marker.module) : undefined;
    // A marker that leads nowhere (`from . import json as json` names the package itself) leaves the submodule to find.
    const marked = marker && target !== undefined ? (marker.imported === "*" ? target : this.exportedNamespace(target, marker.imported, seen)) : null;
    if (marked !== null) return marked;
    for (const next of facts.stars) {
      const found = this.exportedNamespace(next, name, seen);
      if (found !== null) return found;
    }
    // A module a Python module imports is its attribute (`from . import json`, `import a.b as m`).
    const binding = languageSpec(facts.language)?.importsAreMembers ? facts.bindings.get(name) : undefined;
    const imported = binding && binding.target !== null ? (binding.imported === "*" ? binding.target : this.exportedNamespace(binding.target, binding.imported, seen)) : null;
    if (imported !== null) return imported;
    // `from pkg import mod`: a submodule the package file does not declare.
    const paths = languageSpec(facts.language)?.submodulePaths?.(facts.path, name) ?? [];
    return fileIdsByPaths(this.db, paths)[0] ?? null;
  }

  markersOf(fileId: number): ReadonlyMap<string, Marker> {
    return this.file(fileId).markers;
  }

  moduleTarget(fileId: number, module: string): number | null {
    return this.file(fileId).moduleTargets.get(module) ?? null;
  }
}
