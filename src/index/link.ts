// The call graph's second pass (docs/call-graph.md#linking): turns stored call sites, class
// heritage and re-export markers into POTENTIAL_CALL, EXTENDS, IMPLEMENTS and RE_EXPORTS edges
// once every file's symbols are in the store. Names resolve with their own file's evidence — the
// same file, the import's resolved file (through barrels), the receiver's type traced the same
// way — and a name that cannot be traced gets no edge: a missing verified caller is better than a
// false one. A full build links every file; an incremental one only the files a change can reach.
// The files' facts and the lookups names resolve by are link-graph.ts's.
import { posix } from "node:path";
import { LANGUAGE_SPECS, languageSpec } from "../lang/languages.js";
import { MAX_INHERITANCE_DEPTH, RECEIVER_TYPE } from "../lang/spec.js";
import type { Db } from "../store/db.js";
import type { Store } from "../store/store.js";
import { fileIdsByPaths, fileIdsInPathOrder, forEachCallRow, fileRows, filesOfLanguages, heritageRows, implementsClauses, markerFileIds, reachableFiles, type CallRow } from "../store/link-inputs.js";
import { allPackages, CALLABLE_KINDS, DIRECTORY_SCOPED, Graph, packagesWhenAsked, TYPE_KINDS, VALUE_KINDS, type Packages, type Sym } from "./link-graph.js";
import { mentionReach } from "./mention-reach.js";
import { EDGE, resolutionCode, type EdgeResolution } from "../store/edge-codes.js";
import { MODULE_SYMBOL } from "../syntax/types.js";

/** How the resolver linked a call (the checker pass's own is 'checker'). */
type CallResolution = Exclude<EdgeResolution, "checker">;

/** Languages whose types implement an interface by method set (`LanguageSpec.structuralInterfaces`). */
const STRUCTURAL = LANGUAGE_SPECS.filter((s) => s.structuralInterfaces).map((s) => s.name);

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
 * every IMPLEMENTS edge into it from such types (store/derived-rows.ts replaceDerivedEdges), its
 * own method-set pairs and these alike, and derives both again.
 */
function declaredImplementsInto(g: Graph, db: Db, fileIds: readonly number[]): EdgeRow[] {
  const scoped = fileRows(db, fileIds)
    .filter((f) => STRUCTURAL.includes(f.language))
    .map((f) => f.id);
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
  for (const id of fileIdsByPaths(
    db,
    rows.flatMap((r) => languageSpec(r.language)?.packagePaths?.(r.path) ?? []),
  ))
    out.add(id);
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
    deriveEdges(
      db,
      new Graph(db, page, packages),
      page,
      (e) => {
        if (e[2] === EDGE.IMPLEMENTS) declared.add(key(e));
        emit(e);
      },
      false,
    );
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
export function linkEdges(
  store: Store,
  scope: "all" | readonly number[],
  pathsChanged: readonly string[] = [],
  pageFiles = LINK_PAGE_FILES,
  alone: readonly number[] = [],
  bodies: readonly number[] = [],
): LinkCount {
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
          const g = new Graph(
            db,
            [...files, ...callsOnly].sort((a, b) => a - b),
            packages,
          );
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
