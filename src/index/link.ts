// The call graph's second pass (spec §6.3, §10.3, §10.3.1): turns stored call sites, class
// heritage and re-export markers into POTENTIAL_CALL, EXTENDS, IMPLEMENTS and RE_EXPORTS edges
// once every file's symbols are in the store. Names resolve with their own file's evidence — the
// same file, the import's resolved file (through barrels), the receiver's type traced the same
// way — and a name that cannot be traced gets no edge: a missing verified caller is better than a
// false one. A full build links every file; an incremental one only the files a change can reach.
import { posix } from "node:path";
import { LANGUAGE_SPECS, languageSpec } from "../lang/languages.js";
import { MAX_INHERITANCE_DEPTH, RECEIVER_TYPE } from "../lang/spec.js";
import type { Db, Store } from "../store/db.js";
import { fileIdsByPaths, fileIdsInPathOrder, forEachCallRow, fileRows, filesInDirectory, filesOfLanguages, heritageFacts, heritageRows, implementsClauses, importFacts, importedFileIds, markerFileIds, reachableFiles, symbolFacts, symbolSignature, type CallRow } from "../store/link-inputs.js";
import { mentionReach } from "./mention-reach.js";
import { EDGE, resolutionCode, type EdgeResolution } from "../store/edge-codes.js";
import { DEFAULT_EXPORT_NAME, MODULE_SYMBOL } from "../syntax/types.js";

interface Sym {
  readonly id: number;
  readonly name: string;
  readonly kind: string;
  readonly fileId: number;
  /** Functions and methods: the declared return type as written (variables: the type they hold), and the enclosing class. */
  readonly returnType: string | null;
  readonly parent: string | null;
}

interface Marker {
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
  return { declared: new Map(), functions: new Map(), types: new Map(), aliases: new Map(), markers: new Map(), bindings: new Map(), moduleTargets: new Map(), stars: [], globs: [], parents: new Map(), implementing: new Set(), heritage: new Map(), modules: new Map(), path, language };
}

/** How the resolver linked a call (the checker pass's own is 'checker'). */
type CallResolution = Exclude<EdgeResolution, "checker">;

/** Languages whose files see every name their directory declares (`LanguageSpec.scope`). */
const DIRECTORY_SCOPED = LANGUAGE_SPECS.filter((s) => s.scope === "directory").map((s) => s.name);
/** Languages whose types implement an interface by method set (`LanguageSpec.structuralInterfaces`). */
const STRUCTURAL = LANGUAGE_SPECS.filter((s) => s.structuralInterfaces).map((s) => s.name);

/** Each file of a directory-scoped language → every file of its package (its directory, its language, in path order), itself included. */
interface Packages {
  get(fileId: number): readonly number[] | undefined;
}

/** Every directory-scoped file's package at once: for a whole pass, which asks of every file. */
function allPackages(db: Db): Packages {
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
function packagesWhenAsked(db: Db): Packages {
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

const TYPE_KINDS = new Set(["class", "interface", "type", "enum"]);
const CALLABLE_KINDS = new Set(["function", "class", "const", "variable"]);
const VALUE_KINDS = new Set(["const", "variable"]);

/** Everything name resolution needs, read from the store per file on first use. */
class Graph {
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
    const candidates = [inFile(fileId) ?? this.resolveName(fileId, name)?.sym ?? null, ...fileIdsByPaths(this.db, spec.fixtureFiles?.(this.file(fileId).path) ?? []).map((id) => inFile(id) ?? this.resolveName(id, name)?.sym ?? null)];
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

/** The callee symbol and how it was found, or null when the call cannot be traced. */
function resolveCall(g: Graph, c: CallRow): { target: Sym; resolution: CallResolution } | null {
  switch (c.receiver) {
    case "bare": {
      // A plain call (not `new`) of a name the file declares both as a type and a function means the function.
      const fn = c.isNew ? null : g.functionIn(c.fileId, c.callee);
      if (fn) return { target: fn, resolution: "same_file" };
      const r = g.resolveName(c.fileId, c.callee);
      return r && CALLABLE_KINDS.has(r.sym.kind) ? { target: r.sym, resolution: r.via } : null;
    }
    case "this": {
      const cls = g.declaredIn(c.fileId, c.receiverName ?? "") ?? g.inPackage(c.fileId, c.receiverName ?? "");
      const target = cls ? g.member(cls, c.callee) : null;
      return target ? { target, resolution: "this_method" } : null;
    }
    case "implicit": {
      // A member of the class (declared here, in the package or in what the file imports, or
      // inherited) first; the plain name only when the class and all it inherits from are known
      // and none of them takes members from anywhere else — else it may be a member we cannot see.
      const own = g.declaredIn(c.fileId, c.receiverName ?? "") ?? g.inPackage(c.fileId, c.receiverName ?? "") ?? g.resolveType(c.fileId, c.receiverName ?? "")?.sym ?? null;
      if (!own || !TYPE_KINDS.has(own.kind)) return null;
      const target = g.member(own, c.callee);
      if (target) return { target, resolution: "this_method" };
      return g.closedHierarchy(own) ? resolveCall(g, { ...c, receiver: "bare" }) : null;
    }
    case "super":
    case "typed":
    case "static": {
      // `Type.m()` names a value; a typed receiver and `super` name a type.
      const named = c.receiver === "static" ? g.resolveType(c.fileId, c.receiverName ?? "") : g.resolveTypeName(c.fileId, c.receiverName ?? "");
      if (!named && c.receiver === "static") return resolveCall(g, { ...c, receiver: "namespace" });
      // `x.m()` on an imported variable whose declaration types it (`export const store = new Store()`).
      const type = named && c.receiver === "static" && VALUE_KINDS.has(named.sym.kind) ? heldType(g, named) : named;
      // `N.f()` on a TypeScript namespace: its exported function `N.f`.
      if (!type || !(TYPE_KINDS.has(type.sym.kind) || (c.receiver === "static" && type.sym.kind === "namespace"))) return null;
      const target = g.member(type.sym, c.callee);
      if (!target) return null;
      const resolution: CallResolution = c.receiver === "super" ? "super_method" : c.receiver === "static" ? type.via : (c.resolution as CallResolution);
      return { target, resolution };
    }
    case "returned": {
      // The producing call's callee, then the one type its declared return type names, then the method on it.
      const type = producedType(g, c.fileId, c.receiverName ?? "");
      const target = type ? g.member(type, c.callee) : null;
      return target ? { target, resolution: "return_type" } : null;
    }
    case "fixture": {
      // A pytest fixture parameter: what the fixture gives (`recordedType`), then the method on it.
      const fixture = g.fixture(c.fileId, c.receiverName ?? "");
      const type = fixture ? recordedType(g, fixture, 0) : null;
      const target = type ? g.member(type, c.callee) : null;
      return target ? { target, resolution: "parameter_type" } : null;
    }
    case "namespace": {
      const file = g.namespaceTarget(c.fileId, c.receiverName ?? "");
      const target = file === null ? null : g.exported(file, c.callee);
      return target && CALLABLE_KINDS.has(target.kind) ? { target, resolution: "import" } : null;
    }
    default:
      return null;
  }
}

/** The type a variable holds, as its declaration records it (`returnType`), resolved where it is declared. */
function heldType(g: Graph, variable: { sym: Sym; via: "same_file" | "same_package" | "import" }): { sym: Sym; via: "same_file" | "same_package" | "import" } | null {
  if (variable.sym.returnType === null) return null;
  const type = g.resolveTypeName(variable.sym.fileId, variable.sym.returnType);
  return type ? { sym: type.sym, via: variable.via } : null;
}

/**
 * The project type a producer path's value has: its callee's declared return type (`?`: as the
 * unwrap operator leaves it; `[]`: an element of it, as `for`/`range` binds one), resolved where
 * the callee is declared.
 */
function producedType(g: Graph, fileId: number, path: string, depth = 0): Sym | null {
  if (depth > MAX_INHERITANCE_DEPTH) return null;
  const element = path.endsWith("[]");
  const rest = element ? path.slice(0, -2) : path;
  const hash = rest.lastIndexOf("#");
  if (hash > 0) return fieldType(g, fileId, rest.slice(0, hash), rest.slice(hash + 1), element, depth);
  const unwrapped = rest.endsWith("?");
  const producer = resolveProducer(g, fileId, unwrapped ? rest.slice(0, -1) : rest, depth);
  if (!producer || producer.returnType === null) return null;
  const spec = languageSpec(g.languageOf(producer.fileId));
  const returned = element ? (spec?.elementType?.(producer.returnType) ?? null) : producer.returnType;
  const typeName = returned === null ? null : (spec?.returnedType(returned, producer.parent, unwrapped && !element, g.signatureOf(producer.id)) ?? null);
  // The receiver itself (`-> Self` inherited from a base): the receiver's class when the path names it.
  const receiver = typeName === RECEIVER_TYPE ? receiverType(g, fileId, unwrapped ? rest.slice(0, -1) : rest, depth) : null;
  if (receiver) return receiver;
  const type = typeName === null ? null : g.resolveTypeName(producer.fileId, typeName === RECEIVER_TYPE ? (producer.parent ?? "") : typeName);
  return type && TYPE_KINDS.has(type.sym.kind) ? type.sym : null;
}

/** The type a producer path's method is called on (`Type.m`, `p().m`), or null (a function, a namespace's). */
function receiverType(g: Graph, fileId: number, path: string, depth: number): Sym | null {
  const chained = path.lastIndexOf("().");
  if (chained > 0) return producedType(g, fileId, path.slice(0, chained), depth + 1);
  const dot = path.lastIndexOf(".");
  const type = dot > 0 ? g.resolveType(fileId, path.slice(0, dot)) : null;
  return type && TYPE_KINDS.has(type.sym.kind) ? type.sym : null;
}

/**
 * The project type a field holds (`T#field`, `p()#field`: of type `T`, or of what producer `p`
 * returns; `E#Variant.0`: an enum variant's first field), as the type's declaration writes it —
 * or an element of it — resolved where the type is declared.
 */
function fieldType(g: Graph, fileId: number, owner: string, field: string, element: boolean, depth: number): Sym | null {
  const base = owner.endsWith("()") || owner.includes("#") ? producedType(g, fileId, owner.endsWith("()") ? owner.slice(0, -2) : owner, depth + 1) : (g.resolveTypeName(fileId, owner)?.sym ?? null);
  if (!base || !TYPE_KINDS.has(base.kind)) return null;
  const spec = languageSpec(g.languageOf(base.fileId));
  // A language whose attributes are declarations of their own (Python's `Class.attr`, a property): what the member records.
  if (!spec?.fieldType) {
    const member = element ? null : g.member(base, field);
    return member && (member.kind === "variable" || member.kind === "method") ? recordedType(g, member, depth + 1) : null;
  }
  const declaration = g.signatureOf(base.id);
  const written = declaration === null ? null : (spec?.fieldType?.(declaration, field) ?? null);
  const held = written === null || !element ? written : (spec?.elementType?.(written) ?? null);
  const named = held === null ? null : (spec?.returnedType(held, base.name, false, declaration) ?? null);
  const typeName = named === RECEIVER_TYPE ? base.name : named;
  const type = typeName === null ? null : g.resolveTypeName(base.fileId, typeName);
  return type && TYPE_KINDS.has(type.sym.kind) ? type.sym : null;
}

/**
 * The project type a declaration's recorded value has: its `returnType` read as a type, or —
 * written `p()` (Python's inferred fixture and attribute values) — what producer `p` returns.
 */
function recordedType(g: Graph, sym: Sym, depth: number): Sym | null {
  if (sym.returnType === null || depth > MAX_INHERITANCE_DEPTH) return null;
  if (sym.returnType.endsWith("()")) return producedType(g, sym.fileId, sym.returnType.slice(0, -2), depth + 1);
  const named = languageSpec(g.languageOf(sym.fileId))?.returnedType(sym.returnType, sym.parent, false, g.signatureOf(sym.id)) ?? null;
  const typeName = named === RECEIVER_TYPE ? sym.parent : named;
  const type = typeName === null ? null : g.resolveTypeName(sym.fileId, typeName);
  return type && TYPE_KINDS.has(type.sym.kind) ? type.sym : null;
}

/**
 * The function or method a producer path names: `f` (declared or imported), `ns.f` (a namespace
 * import's), `Type.f` (a type's), `p().m` (a method of what producer `p` returns); or a typed variable.
 */
function resolveProducer(g: Graph, fileId: number, path: string, depth = 0): Sym | null {
  const chained = path.lastIndexOf("().");
  if (chained > 0) {
    const type = producedType(g, fileId, path.slice(0, chained), depth + 1);
    const member = type ? g.member(type, path.slice(chained + 3)) : null;
    return member && (member.kind === "method" || member.kind === "function") ? member : null;
  }
  // A function named with its module (`tests.fixture`, an inline module's) is one declared name; a
  // variable that records the type it holds (Go's package-level `var x = T{}`) produces that type.
  const whole = g.resolveName(fileId, path);
  // A variable's `returnType` is the type it holds, its value's, not a call's (LanguageSpec.callableVariables).
  const holds = whole?.sym.kind === "variable" && whole.sym.returnType !== null && languageSpec(g.languageOf(whole.sym.fileId))?.callableVariables !== true;
  if (whole?.sym.kind === "function" || holds) return whole!.sym;
  const dot = path.lastIndexOf(".");
  if (dot === -1) return null;
  const head = path.slice(0, dot);
  const name = path.slice(dot + 1);
  const file = g.namespaceTarget(fileId, head);
  if (file !== null) {
    const sym = g.exported(file, name);
    return sym && sym.kind === "function" ? sym : null;
  }
  // `Type.f` a type's method, or `N.f` a namespace's function (merged with a class or interface too).
  const type = g.resolveType(fileId, head);
  const member = type && (TYPE_KINDS.has(type.sym.kind) || type.sym.kind === "namespace") ? g.member(type.sym, name) : null;
  return member && (member.kind === "method" || member.kind === "function") ? member : null;
}

/** An edge as the store writes it: its type and resolution by code (store/edge-codes.ts). */
type EdgeRow = [from: number, to: number, type: number, resolution: number | null, line: number | null];

/** The POTENTIAL_CALL edges of the files' call sites (every file's when null). */
function deriveCallEdges(db: Db, g: Graph, fileIds: readonly number[] | null, emit: (e: EdgeRow) => void): void {
  // A call edge starts at a declaration of the site's file: only two sites of one file can make the same edge.
  let seen = new Set<string>();
  let file = -1;
  forEachCallRow(db, fileIds, (c) => {
    if (c.fileId !== file) {
      file = c.fileId;
      seen = new Set();
    }
    const from = g.declaredIn(c.fileId, c.caller ?? MODULE_SYMBOL);
    const hit = from ? resolveCall(g, c) : null;
    if (!from || !hit) return;
    const key = `${from.id} ${hit.target.id} ${c.line}`;
    if (seen.has(key)) return;
    seen.add(key);
    emit([from.id, hit.target.id, EDGE.POTENTIAL_CALL, resolutionCode(hit.resolution), c.line]);
  });
}

/**
 * Every derived edge whose source lies in the given files (all files when null), handed to `emit`
 * once as it is found (a whole tree derives millions: they are written as they come, not held).
 * `structural` false leaves out the structural IMPLEMENTS pairs (a paged whole pass derives them
 * once, `linkAll`).
 */
function deriveEdges(db: Db, g: Graph, fileIds: readonly number[] | null, emit: (e: EdgeRow) => void, structural = true): void {
  const seen = new Set<string>();
  const add = (e: EdgeRow) => {
    const key = `${e[0]} ${e[1]} ${e[2]} ${e[4]}`;
    if (!seen.has(key)) {
      seen.add(key);
      emit(e);
    }
  };
  deriveCallEdges(db, g, fileIds, emit);
  for (const h of heritageRows(db, fileIds)) {
    const from = g.declaredIn(h.fileId, h.className);
    const to = g.resolveName(h.fileId, h.target);
    if (from && to && TYPE_KINDS.has(to.sym.kind)) add([from.id, to.sym.id, h.relation === "extends" ? EDGE.EXTENDS : EDGE.IMPLEMENTS, null, null]);
  }
  if (structural) for (const e of structuralImplements(g, db, fileIds)) add(e);
  if (structural && fileIds !== null) for (const e of declaredImplementsInto(g, db, fileIds)) add(e);
  const markerFiles = markerFileIds(db, fileIds);
  for (const fileId of markerFiles) {
    for (const m of g.markersOf(fileId).values()) {
      if (m.imported === "*") continue;
      const target = g.moduleTarget(fileId, m.module);
      const sym = target === null ? null : g.exported(target, m.imported);
      if (sym) add([m.id, sym.id, EDGE.RE_EXPORTS, null, null]);
    }
  }
}

/**
 * The IMPLEMENTS edges a type outside `fileIds` declares by heritage into a type of them (a Go
 * interface embedding one of the scope's), for a structural language: a pass over a scope deletes
 * every IMPLEMENTS edge into it from such types (store/db.ts replaceDerivedEdges), its own method-set
 * pairs and these alike, and derives both again.
 */
function declaredImplementsInto(g: Graph, db: Db, fileIds: readonly number[]): EdgeRow[] {
  const scoped = fileRows(db, fileIds).filter((f) => STRUCTURAL.includes(f.language)).map((f) => f.id);
  if (scoped.length === 0) return [];
  const inScope = new Set(fileIds);
  const names = new Set(g.declarations(scoped).map((d) => d.sym.name));
  const out: EdgeRow[] = [];
  for (const h of implementsClauses(db, STRUCTURAL)) {
    if (inScope.has(h.fileId) || !names.has(h.target.slice(h.target.lastIndexOf(".") + 1))) continue;
    const from = g.declaredIn(h.fileId, h.className);
    const to = g.resolveName(h.fileId, h.target);
    if (from && to && TYPE_KINDS.has(to.sym.kind) && inScope.has(to.sym.fileId)) out.push([from.id, to.sym.id, EDGE.IMPLEMENTS, null, null]);
  }
  return out;
}

/**
 * IMPLEMENTS by method set, for the languages whose types implement interfaces structurally: a
 * type of the given files (all when null) implements every interface of those languages in the
 * project whose methods it has, its own or promoted from what it embeds (`Graph.member`). An
 * interface's method set takes in the interfaces it embeds — the project's, through their own
 * embeds, and those outside it the language's `knownInterfaces` lists (`fmt.Stringer`); an
 * interface embedding anything else is left out: its method set is not known.
 */
function structuralImplements(g: Graph, db: Db, fileIds: readonly number[] | null): EdgeRow[] {
  if (STRUCTURAL.length === 0) return [];
  // A pair needs a side in scope: a scope without a file of these languages has none, and reads
  // none of their files (a TypeScript edit read every Go file's row and declaration: 370 ms of a
  // one-file change at 300 MB).
  if (fileIds !== null && !fileRows(db, fileIds).some((f) => STRUCTURAL.includes(f.language))) return [];
  const files = filesOfLanguages(db, STRUCTURAL);
  if (files.length === 0) return [];
  const inScope = fileIds === null ? null : new Set(fileIds);
  const decls = g.declarations(files.map((f) => f.id));
  const interfaces = new Map(decls.filter((d) => d.sym.kind === "interface").map((d) => [`${d.fileId}\0${d.sym.name}`, d.sym]));
  // Every type is a candidate: an interface of the scope may have gained or lost implementors anywhere.
  const types = decls.filter((d) => d.sym.kind === "class" || d.sym.kind === "type");
  // An interface's methods, and candidates by method name: the types declaring a method of that
  // name in their package, plus every type that embeds another (its promoted methods are not in
  // this index).
  const packageOf = (fileId: number) => g.packages.get(fileId)?.[0] ?? fileId;
  const typeKey = (fileId: number, name: string) => `${packageOf(fileId)}\0${name}`;
  const byKey = new Map(types.map((t) => [typeKey(t.fileId, t.sym.name), t]));
  const methodsOf = new Map<number, string[]>();
  const byMethod = new Map<string, Set<(typeof types)[number]>>();
  for (const { fileId, sym } of decls) {
    const dot = sym.name.indexOf(".");
    if (sym.kind !== "method" || dot <= 0) continue;
    const owner = sym.name.slice(0, dot);
    const method = sym.name.slice(dot + 1);
    const iface = interfaces.get(`${fileId}\0${owner}`);
    if (iface) {
      const list = methodsOf.get(iface.id);
      if (list) list.push(method);
      else methodsOf.set(iface.id, [method]);
    }
    const type = byKey.get(typeKey(fileId, owner));
    if (type) byMethod.set(method, (byMethod.get(method) ?? new Set()).add(type));
  }
  // The whole method set of an interface, or null when an embedded one is not known.
  const sets = new Map<number, string[] | null>();
  const methodSet = (iface: Sym, depth: number): string[] | null => {
    if (sets.has(iface.id)) return sets.get(iface.id)!;
    sets.set(iface.id, null); // an embedding cycle is no method set
    if (depth > MAX_INHERITANCE_DEPTH) return null;
    const known = languageSpec(g.languageOf(iface.fileId))?.knownInterfaces;
    const out = new Set(methodsOf.get(iface.id) ?? []);
    for (const name of g.heritageOf(iface.fileId, iface.name)) {
      const project = g.resolveType(iface.fileId, name);
      const key = project ? null : g.externalKey(iface.fileId, name);
      const methods = project ? (project.sym.kind === "interface" ? methodSet(project.sym, depth + 1) : null) : key === null ? null : (known?.[key] ?? null);
      if (methods === null) return null;
      for (const m of methods) out.add(m);
    }
    const set = [...out];
    sets.set(iface.id, set);
    return set;
  };
  const embedding = types.filter((t) => g.extendsOf(t.fileId, t.sym.name) !== null);
  const edges: EdgeRow[] = [];
  for (const { fileId, sym: iface } of decls) {
    const methods = iface.kind === "interface" ? methodSet(iface, 0) : null;
    if (!methods || methods.length === 0) continue;
    // A pair is derived when either side is in scope: a type of the scope against every interface, an interface of the scope against every type.
    const whole = inScope === null || inScope.has(fileId);
    const rarest = methods.reduce((a, b) => ((byMethod.get(a)?.size ?? 0) <= (byMethod.get(b)?.size ?? 0) ? a : b));
    const candidates = new Set([...(byMethod.get(rarest) ?? []), ...embedding]);
    for (const t of candidates) if ((whole || inScope.has(t.fileId)) && methods.every((m) => g.member(t.sym, m) !== null)) edges.push([t.sym.id, iface.id, EDGE.IMPLEMENTS, null, null]);
  }
  return edges;
}

/**
 * The files whose edges a change to `changed` can alter before following imports: with them, the
 * package files they are submodules of and the rest of their packages (directory-scoped
 * languages). A structural language's IMPLEMENTS pairs reach further, and are derived for either
 * side in scope (`structuralImplements`). A path that came or went (`pathsChanged`; a gone one's
 * rows, and so its package, are gone already) brings in the directory-scoped files of its
 * directory: its package mates, whose names and method sets it added to or took from.
 */
function expandScope(db: Db, changed: readonly number[], pathsChanged: readonly string[], packages: Packages): number[] {
  const rows = fileRows(db, changed);
  const out = new Set(changed);
  if (pathsChanged.length > 0) {
    const dirs = new Set(pathsChanged.map((p) => posix.dirname(p)));
    for (const f of filesOfLanguages(db, [...STRUCTURAL, ...DIRECTORY_SCOPED])) if (dirs.has(posix.dirname(f.path))) out.add(f.id);
  }
  // A changed submodule reaches the importers of its package (`from pkg import mod; mod.f()`).
  for (const id of fileIdsByPaths(db, rows.flatMap((r) => languageSpec(r.language)?.packagePaths?.(r.path) ?? []))) out.add(id);
  for (const id of changed) for (const member of packages.get(id) ?? []) out.add(member);
  return [...out].sort((a, b) => a - b);
}

/**
 * Every file importing one of `seeds`, transitively (store/link-inputs.ts reachableFiles), with
 * the package of each directory-scoped one reached and, in turn, what imports those: a Go file
 * can get a value of a type from a package mate that imports it.
 */
function reachWithPackages(db: Db, seeds: readonly number[], packages: Packages): number[] {
  const out = new Set<number>();
  const scoped = new Set(DIRECTORY_SCOPED);
  for (let next = [...seeds]; next.length > 0; ) {
    const reached = reachableFiles(db, next).filter((id) => !out.has(id));
    for (const id of reached) out.add(id);
    const mates = new Set<number>();
    for (const r of fileRows(db, reached)) if (scoped.has(r.language)) for (const m of packages.get(r.id) ?? []) if (!out.has(m)) mates.add(m);
    next = [...mates];
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * `files` and, for each fixture file among them (a conftest.py a change reached, itself or through
 * what it imports), every file below it: tests take its fixtures without importing it.
 */
function withFixtureUsers(db: Db, files: readonly number[]): number[] {
  const out = new Set(files);
  for (const r of fileRows(db, files)) {
    const dir = languageSpec(r.language)?.fixtureDirectory?.(r.path);
    if (dir !== null && dir !== undefined) for (const f of filesOfLanguages(db, [r.language])) if (dir === "" || f.path.startsWith(`${dir}/`)) out.add(f.id);
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * Files a whole pass links at a time: a page's facts, and those of the files it imports from or
 * reaches, are read for it and let go after it. One Graph of every file held all of their facts
 * at once (a 1 GB build's link grew its process from 0.6 to 1.5 GB).
 */
export const LINK_PAGE_FILES = 4_096;

/**
 * Every file's edges, page by page in path order (a package's files together, so a page reads
 * mostly its own), then the structural IMPLEMENTS pairs of the whole project once, those a class
 * declared by heritage left out (`deriveEdges` derives each edge once; pages cannot see each other's).
 */
function linkAll(db: Db, packages: Packages, emit: (e: EdgeRow) => void, pageFiles: number): void {
  const ids = fileIdsInPathOrder(db);
  const declared = new Set<string>();
  const key = (e: EdgeRow) => `${e[0]} ${e[1]} ${e[2]}`;
  for (let at = 0; at < ids.length; at += pageFiles) {
    const page = ids.slice(at, at + pageFiles).sort((a, b) => a - b);
    deriveEdges(db, new Graph(db, page, packages), page, (e) => {
      if (e[2] === EDGE.IMPLEMENTS) declared.add(key(e));
      emit(e);
    }, false);
  }
  if (STRUCTURAL.length === 0) return;
  // Their files read in one pass, with what they import and their package mates.
  const structural = filesOfLanguages(db, STRUCTURAL).map((f) => f.id);
  for (const e of structuralImplements(new Graph(db, structural, packages), db, null)) if (!declared.has(key(e))) emit(e);
}

/**
 * Rebuilds the derived edges: of every file ("all", LINK_PAGE_FILES at a time), or of the files
 * the given changed files can reach (their own edges went with their old symbols), of the files
 * in `alone` (their own edges: files a kept rewrite's moved names reach), and the call edges of
 * those in `bodies` (a kept rewrite that moved no name's face: its heritage, its method sets and
 * its re-exports read as before, so only its call sites' edges can differ).
 * Returns the edges written. A savepoint of the caller's transaction when it has one: the edges
 * commit with the rows they are derived from.
 */
export function linkEdges(store: Store, scope: "all" | readonly number[], pathsChanged: readonly string[] = [], pageFiles = LINK_PAGE_FILES, alone: readonly number[] = [], bodies: readonly number[] = []): LinkCount {
  const db = store.db;
  return store.batch(() => {
    const packages = scope === "all" ? allPackages(db) : packagesWhenAsked(db);
    const files = scope === "all" ? null : [...new Set([...withFixtureUsers(db, reachWithPackages(db, expandScope(db, scope, pathsChanged, packages), packages)), ...alone])].sort((a, b) => a - b);
    const inFiles = new Set(files ?? []);
    const callsOnly = files === null ? [] : [...new Set(bodies)].filter((id) => !inFiles.has(id)).sort((a, b) => a - b);
    // A structural type outside the scope may implement an interface of it: those pairs are derived again too.
    const edges = store.replaceDerivedEdges(
      files,
      STRUCTURAL,
      (emit) => {
        if (files === null) linkAll(db, packages, emit, pageFiles);
        else if (files.length + callsOnly.length > 0) {
          const g = new Graph(db, [...files, ...callsOnly].sort((a, b) => a - b), packages);
          if (files.length > 0) deriveEdges(db, g, files, emit);
          if (callsOnly.length > 0) deriveCallEdges(db, g, callsOnly, emit);
        }
      },
      callsOnly,
    );
    return { edges, files: files === null ? "all" : files.length + callsOnly.length };
  });
}

/** What a link pass derived: its edges, and the files whose edges it rebuilt ("all" for a whole pass). */
export interface LinkCount {
  readonly edges: number;
  readonly files: number | "all";
}

/**
 * What rows a write changed: "all" (a full run, a new resolver), or the files rewritten and the
 * paths that came or went — with, among the rewritten, those whose symbol rows were kept (their
 * link face held: store/link-face.ts), which no other file's edges depend on having changed.
 */
export type RowChange = "all" | { readonly rewritten: readonly number[]; readonly pathsChanged: readonly string[]; readonly kept?: ReadonlyMap<number, ReadonlySet<string>> };

/**
 * Recomputes everything derived across files after `change`: import resolutions,
 * `re_export_files` and the derived edges. Call it inside the transaction that wrote the rows, so
 * no reader ever sees rows without the data derived from them (the one rule of every write path:
 * index runs, just-in-time refreshes, a vanished file). A path that came or went can change how
 * any specifier resolves, so every import is re-resolved then; edges are rebuilt for the files
 * whose rows or resolutions changed and everything they reach.
 */
export function rederive(store: Store, resolve: (fromPath: string, module: string) => string | null, change: RowChange): LinkCount {
  if (change === "all") {
    store.relinkImports(resolve, "all");
    return linkEdges(store, "all");
  }
  const relinked = store.relinkImports(resolve, change.pathsChanged.length > 0 ? "all" : change.rewritten);
  // A rewrite that kept its symbol rows and moved no name's face (an edit inside a body) reaches
  // no other file's edges; in a language whose files write every name their edges read, one that
  // moved names reaches the files writing them (index/mention-reach.ts). Anything else — or
  // imports that resolve otherwise now — reaches every file that can reach it.
  const kept = change.kept ?? new Map<number, ReadonlySet<string>>();
  const contained = new Set<number>();
  const bodies: number[] = [];
  const packages = packagesWhenAsked(store.db);
  const byMention = new Map<number, ReadonlySet<string>>();
  for (const r of kept.size === 0 ? [] : fileRows(store.db, [...kept.keys()])) {
    const names = kept.get(r.id)!;
    if (relinked.has(r.id)) continue;
    if (names.size === 0) bodies.push(r.id);
    else if (languageSpec(r.language)?.relinkByMention === true) byMention.set(r.id, names);
    else continue;
    contained.add(r.id);
  }
  const reach = byMention.size === 0 ? [] : mentionReach(store.db, (id) => packages.get(id), byMention);
  if (reach === null) for (const id of byMention.keys()) contained.delete(id);
  const seeds = [...new Set([...change.rewritten.filter((id) => !contained.has(id)), ...relinked])].sort((a, b) => a - b);
  return linkEdges(store, seeds, change.pathsChanged, LINK_PAGE_FILES, reach ?? [], bodies);
}
