// Call sites of a TypeScript/JavaScript file with the local type environment of docs/call-graph.md#call-sites-and-the-local-type-environment:
// for every call (and `new`), the enclosing declaration, the called name and what its receiver
// is known to be — `this`, `super`, a typed field, parameter or `new` binding, a namespace
// import, a class, or nothing (a bare call). Only calls that could link are recorded; linking
// names to symbols is index/link.ts's. This module reads the tree (the locals' bindings through
// ts-locals.ts), and when in doubt records no receiver type.
import { CLASS_TYPES, FUNCTION_VALUES, instanceType, namedType, unwrapAmbient } from "./es-nodes.js";
import type { SyntaxNode } from "./flat-tree.js";
import {
  dottedPath,
  localEnvs,
  localType,
  nodeOf,
  patternNames,
  producerOf,
  throughParensAndBang,
  typeOfBinding,
  typeOfScoped,
  type BindingSite,
  type LocalEnvs,
  type LocalType,
} from "./ts-locals.js";
import type { CallReceiver, CallSite, ClassHeritage, ImportRecord } from "./types.js";

export interface CallExtraction {
  readonly calls: CallSite[];
  readonly classes: ClassHeritage[];
  /**
   * Function declarations nested in a function or method, each bound once there, named after it
   * (`error.getSizing`): the declaration pass makes them symbols, and a call by name in their scope links to them.
   * A function declared in code no declaration names (a test's callback at the top level, `it("…",
   * () => { function Page() {} })`) is listed by its own name with no parent, each one: a symbol
   * and a chunk, but no call links to it by name.
   */
  readonly nestedFunctions: ReadonlyArray<{ readonly name: string; readonly parent: string | null; readonly node: SyntaxNode }>;
}

interface Container {
  readonly caller: string | null;
  readonly node: SyntaxNode;
  readonly cls: ClassEnv | null;
  /** The node's character range, read once (each read crosses into the parser binding). */
  start: number;
  end: number;
}

interface ClassEnv {
  readonly name: string;
  readonly parent: string | null;
  /** Field and parameter-property names → their annotated type name. */
  readonly fields: ReadonlyMap<string, string>;
}

/** Node types whose body has its own `this` (an arrow function keeps the enclosing one). */
export const THIS_BOUNDARIES: ReadonlySet<string> = new Set([
  "function_expression",
  "function",
  "function_declaration",
  "generator_function",
  "generator_function_declaration",
  "method_definition",
  "class_declaration",
  "class",
  "abstract_class_declaration",
]);
/** Wrappers looked through to find a receiver: `(x)`, `x!`, `x as T`, `await x`, `x satisfies T`. */
const TRANSPARENT = new Set(["parenthesized_expression", "non_null_expression", "as_expression", "await_expression", "satisfies_expression"]);

/** What call extraction needs from one walk of the tree (the extractor's token walk). */
export interface CallNodes {
  readonly calls: SyntaxNode[];
  readonly bindings: BindingSite[];
  /** Start and end index of every THIS_BOUNDARIES node, flat pairs in document order. */
  readonly boundaries: number[];
}

/** The first name of a call's receiver chain (`this` in `(await this.repo).find()`). */
const LEADING_RECEIVER = /^[\s(]*(?:(?:await|new)\s+[\s(]*)*(#?[A-Za-z_$][\w$]*)/;
const LEADING_RECEIVER_CHARS = 120;

export function extractCalls(root: SyntaxNode, text: string, lines: readonly string[], fileStem: string, nodes: CallNodes, imports: readonly ImportRecord[]): CallExtraction {
  const scope = topLevelScope(root, fileStem, imports);
  const containerOf = containerFinder(scope.containers);
  const { nestedIn, unnamedIn } = nestedDeclarations(nodes, containerOf);
  const envs = localEnvs(nodes.bindings, containerOf, root, text);
  const file: FileEnv = { namespaces: scope.namespaces, classNames: scope.classNames, importedNames: scope.importedNames, callable: scope.callable, instances: scope.instances, lines };
  const calls = classifyCalls(root, text, nodes, file, containerOf, nestedIn, envs);
  const nestedFunctions: Array<{ name: string; parent: string | null; node: SyntaxNode }> = [];
  for (const [c, byName] of nestedIn) {
    for (const [name, b] of byName) {
      const node = envs.of(c).counts.get(name) === 1 ? nodeOf(b, root) : null;
      if (node) nestedFunctions.push({ name: `${c.caller}.${name}`, parent: c.caller!, node });
    }
  }
  for (const b of unnamedIn) {
    const node = nodeOf(b, root);
    if (node) nestedFunctions.push({ name: b.name!, parent: null, node });
  }
  return { calls, classes: scope.classes, nestedFunctions };
}

/** What the file's top level declares, and its containers: each piece of code a call in it is made by, in document order. */
interface TopLevelScope {
  readonly namespaces: Set<string>;
  readonly classNames: Set<string>;
  readonly importedNames: Set<string>;
  /** Names a bare call can resolve to: imports and top-level declarations (anything else is a global or a local). */
  readonly callable: Set<string>;
  readonly containers: Container[];
  readonly classes: ClassHeritage[];
  /** Top-level variables typed by their declaration (`const store = new Store()`), null when bound twice. */
  readonly instances: Map<string, LocalType | null>;
}

// The extraction's passes are separate functions, each compiled by itself: one 180-line function
// inlining its helpers cost V8's optimizing compiler ~160 ms a thread (docs/decisions.md, "The
// compiler flags of an index run").
function topLevelScope(root: SyntaxNode, fileStem: string, imports: readonly ImportRecord[]): TopLevelScope {
  const scope: TopLevelScope = { namespaces: new Set(), classNames: new Set(), importedNames: new Set(), callable: new Set(), containers: [], classes: [], instances: new Map() };
  const { namespaces, classNames, importedNames, callable, containers, classes, instances } = scope;

  // The file's ES imports, as the declaration pass recorded them (the statements are not parsed twice).
  for (const i of imports) {
    if (i.kind !== "import") continue;
    i.locals.forEach((local, k) => (i.names[k] === "*" ? namespaces : importedNames).add(local));
  }

  for (const stmt of root.namedChildren) {
    if (stmt.type === "import_statement") continue;
    const decl = unwrap(stmt);
    if (decl.type === "interface_declaration") {
      const own = interfaceHeritage(decl);
      if (own !== null) classes.push(own);
      continue;
    }
    if (CLASS_TYPES.has(decl.type)) {
      const cls = classEnv(decl, fileStem);
      classNames.add(cls.name);
      callable.add(cls.name);
      classes.push(heritage(decl, cls));
      classContainers(stmt, decl, cls, containers);
      continue;
    }
    if (decl.type === "function_declaration" || decl.type === "generator_function_declaration" || FUNCTION_VALUES.has(decl.type)) {
      const caller = decl.childForFieldName("name")?.text ?? fileStem;
      callable.add(caller);
      containers.push({ caller, node: decl, cls: null, start: 0, end: 0 });
      continue;
    }
    if (decl.type === "lexical_declaration" || decl.type === "variable_declaration") {
      const declarators = decl.namedChildren.filter((c) => c.type === "variable_declarator");
      // Each declarator is its own container: calls in `const x = f(() => g())` are made by `x`.
      let named = false;
      for (const d of declarators) {
        const name = d.childForFieldName("name");
        if (name?.type !== "identifier") continue;
        // A top-level name declared twice is not typed by either declaration.
        const type = localType(d);
        instances.set(name.text, callable.has(name.text) || instances.has(name.text) ? null : type);
        callable.add(name.text);
        containers.push({ caller: name.text, node: d, cls: null, start: 0, end: 0 });
        named = true;
      }
      if (named) continue;
    }
    // `namespace N { export function f() }`: `N.f()` is a static call, here as from an importer.
    const ns = decl.type === "expression_statement" && decl.namedChildCount === 1 ? decl.namedChild(0)! : decl;
    const nsName = ns.type === "internal_module" ? ns.childForFieldName("name") : null;
    if (nsName?.type === "identifier") {
      classNames.add(nsName.text);
      callable.add(nsName.text);
    }
    containers.push({ caller: null, node: stmt, cls: null, start: 0, end: 0 });
  }
  for (const name of importedNames) callable.add(name);
  // Every gathered node belongs to the container whose span holds it (containers never overlap).
  for (const c of containers) {
    c.start = c.node.startIndex;
    c.end = c.node.endIndex;
  }
  containers.sort((a, b) => a.start - b.start);
  return scope;
}

/** A class's containers: its methods, field values and static blocks, and its decorators (the class's own and each member's). */
function classContainers(stmt: SyntaxNode, decl: SyntaxNode, cls: ClassEnv, containers: Container[]): void {
  // Decorators run when the class is defined: the class's own (`@Resolver()`, before or after
  // `export`) are its calls, a member's (`@Query()` before a method, `@Field()` in a field) its member's.
  const decorate = (node: SyntaxNode, caller: string) => containers.push({ caller, node, cls, start: 0, end: 0 });
  for (const d of [...(stmt.id === decl.id ? [] : stmt.namedChildren), ...decl.namedChildren]) if (d.type === "decorator") decorate(d, cls.name);
  const pending: SyntaxNode[] = [];
  for (const member of decl.childForFieldName("body")?.namedChildren ?? []) {
    if (member.type === "decorator") {
      pending.push(member);
      continue;
    }
    const name = (member.childForFieldName("name") ?? member.childForFieldName("property"))?.text;
    if (member.type === "method_definition" && name) containers.push({ caller: `${cls.name}.${name}`, node: member, cls, start: 0, end: 0 });
    else if ((member.type === "public_field_definition" || member.type === "field_definition") && name) {
      const value = member.childForFieldName("value");
      if (value) containers.push({ caller: FUNCTION_VALUES.has(value.type) ? `${cls.name}.${name}` : cls.name, node: value, cls, start: 0, end: 0 });
      for (const d of member.namedChildren) if (d.type === "decorator") decorate(d, cls.name);
    } else if (member.type === "class_static_block") containers.push({ caller: cls.name, node: member, cls, start: 0, end: 0 });
    if (member.type !== "comment") for (const d of pending.splice(0)) decorate(d, member.type === "method_definition" && name ? `${cls.name}.${name}` : cls.name);
  }
  for (const d of pending) decorate(d, cls.name);
}

/** The container whose span holds a character index, by binary search over the sorted containers; null in none. */
function containerFinder(containers: readonly Container[]): (index: number) => Container | null {
  return (index) => {
    let lo = 0;
    let hi = containers.length - 1;
    let found: Container | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (containers[mid]!.start <= index) {
        found = containers[mid]!;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found && index < found.end ? found : null;
  };
}

/**
 * Function declarations nested in a named container (its lexical scope's own functions, by name),
 * and those in top-level code no declaration names.
 */
function nestedDeclarations(nodes: CallNodes, containerOf: (index: number) => Container | null): { nestedIn: Map<Container, Map<string, BindingSite>>; unnamedIn: BindingSite[] } {
  const nestedIn = new Map<Container, Map<string, BindingSite>>();
  const unnamedIn: BindingSite[] = [];
  for (const b of nodes.bindings) {
    if ((b.kind !== "function_declaration" && b.kind !== "generator_function_declaration") || b.name === null) continue;
    const c = containerOf(b.start);
    // In top-level code no declaration names (not a namespace's body: its members are `N.f`).
    if (c !== null && c.caller === null && b.start !== c.start && !isNamespace(c.node)) unnamedIn.push(b);
    // Not in a class body's own container (a static block, a field value): `Class.f` names its methods.
    if (!c || c.caller === null || (c.cls !== null && c.caller === c.cls.name) || (b.start === c.start && c.node.type === b.kind)) continue;
    (nestedIn.get(c) ?? nestedIn.set(c, new Map()).get(c)!).set(b.name, b);
  }
  return { nestedIn, unnamedIn };
}

/** The file's call sites that can link, classified. */
function classifyCalls(
  root: SyntaxNode,
  text: string,
  nodes: CallNodes,
  file: FileEnv,
  containerOf: (index: number) => Container | null,
  nestedIn: ReadonlyMap<Container, ReadonlyMap<string, BindingSite>>,
  envs: LocalEnvs<Container>,
): CallSite[] {
  const { callable, namespaces } = file;
  const envOf = envs.of;
  const calls: CallSite[] = [];
  for (const call of nodes.calls) {
    const start = call.startIndex;
    // Only a call whose receiver chain starts with `this`, `super`, an import, a top-level name
    // or a local some binding types can link: anything else is not classified at all.
    const lead = LEADING_RECEIVER.exec(text.slice(start, start + LEADING_RECEIVER_CHARS))?.[1];
    const c = lead === undefined ? null : containerOf(start);
    if (lead === undefined || !(lead === "this" || lead === "super" || callable.has(lead) || namespaces.has(lead) || envs.typable.has(lead) || (c !== null && nestedIn.get(c)?.has(lead)))) continue;
    if (!c) continue;
    const locals: Locals = {
      nestedFunction: (name) => {
        const b = nestedIn.get(c)?.get(name);
        return b && envOf(c).counts.get(name) === 1 && !patternNames(envOf(c), root).has(name) && inScope(b, start, root) ? `${c.caller}.${name}` : null;
      },
      has: (name) => envOf(c).counts.has(name) || patternNames(envOf(c), root).has(name),
      typeOf: (name) => {
        const env = envOf(c);
        // A name a destructuring pattern binds somewhere in the container is typed by none of its bindings.
        if (patternNames(env, root).has(name)) return undefined;
        const count = env.counts.get(name) ?? 0;
        if (count === 1) return typeOfBinding(env, name, root);
        return count > 1 ? typeOfScoped(env, name, start, root) : undefined;
      },
    };
    const site = classify(call, c, file, locals, () => thisIsInstance(start, c, nodes.boundaries));
    if (site) calls.push(site);
  }
  return calls;
}

/** A top-level statement that is a namespace (`namespace N {}`, `export namespace N {}`, `declare namespace N {}`). */
function isNamespace(stmt: SyntaxNode): boolean {
  const decl = unwrap(stmt);
  const ns = decl.type === "expression_statement" && decl.namedChildCount === 1 ? decl.namedChild(0)! : decl;
  return ns.type === "internal_module" || ns.type === "module";
}

/**
 * Whether a nested function declaration is in scope at `index`: a function declaration is hoisted
 * to the top of the block (or function body) that holds it, and seen throughout that block.
 */
function inScope(b: BindingSite, index: number, root: SyntaxNode): boolean {
  const block = nodeOf(b, root)?.parent;
  return block !== null && block !== undefined && block.startIndex <= index && index < block.endIndex;
}

/**
 * `this` at `index` is the class instance unless a non-arrow function (or a nested class) inside
 * the container encloses it. `boundaries` holds the boundary nodes' ranges in document order.
 */
function thisIsInstance(index: number, container: Container, boundaries: readonly number[]): boolean {
  // First boundary starting at or after the container's start.
  let lo = 0;
  let hi = boundaries.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (boundaries[mid * 2]! < container.start) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo * 2; i < boundaries.length && boundaries[i]! <= index; i += 2) {
    const start = boundaries[i]!;
    const end = boundaries[i + 1]!;
    if (start === container.start && end === container.end) continue; // the container itself (a method)
    if (end <= container.end && index < end) return false;
  }
  return true;
}

interface FileEnv {
  readonly namespaces: ReadonlySet<string>;
  readonly classNames: ReadonlySet<string>;
  readonly importedNames: ReadonlySet<string>;
  readonly callable: ReadonlySet<string>;
  readonly instances: ReadonlyMap<string, LocalType | null>;
  readonly lines: readonly string[];
}

function unwrap(stmt: SyntaxNode): SyntaxNode {
  let node = stmt;
  if (node.type === "export_statement") node = node.childForFieldName("declaration") ?? node.childForFieldName("value") ?? node;
  return unwrapAmbient(node);
}

function classEnv(decl: SyntaxNode, fileStem: string): ClassEnv {
  const name = decl.childForFieldName("name")?.text ?? fileStem;
  const fields = new Map<string, string>();
  for (const member of decl.childForFieldName("body")?.namedChildren ?? []) {
    if (member.type === "public_field_definition" || member.type === "field_definition") {
      const fieldName = (member.childForFieldName("name") ?? member.childForFieldName("property"))?.text;
      const type = instanceType(member)?.type;
      if (fieldName && type) fields.set(fieldName, type);
    }
    if (member.type === "method_definition" && member.childForFieldName("name")?.text === "constructor") {
      for (const p of member.childForFieldName("parameters")?.namedChildren ?? []) {
        const isProperty = p.namedChildren.some((c) => c.type === "accessibility_modifier" || c.type === "override_modifier") || p.children.some((c) => c.type === "readonly");
        const pattern = p.childForFieldName("pattern");
        const type = namedType(p.childForFieldName("type"));
        if (isProperty && pattern?.type === "identifier" && type) fields.set(pattern.text, type);
      }
    }
  }
  return { name, parent: heritageNames(decl).extends, fields };
}

function heritageNames(decl: SyntaxNode): { extends: string | null; implements: string[] } {
  const heritage = decl.namedChildren.find((c) => c.type === "class_heritage");
  let ext: string | null = null;
  const impl: string[] = [];
  for (const clause of heritage?.namedChildren ?? []) {
    if (clause.type === "extends_clause") ext = dottedPath(clause.childForFieldName("value") ?? clause.namedChildren[0] ?? null);
    else if (clause.type === "implements_clause") {
      for (const t of clause.namedChildren) {
        const name = typeName(t);
        if (name) impl.push(name);
      }
    }
  }
  // JavaScript: `class A extends B` has the identifier directly under class_heritage.
  if (!ext && heritage && heritage.namedChildren.length === 1 && heritage.namedChildren[0]!.type === "identifier") ext = heritage.namedChildren[0]!.text;
  return { extends: ext, implements: impl };
}

/** A type's name in a heritage clause without its type arguments: `B`, `ns.B` (`B<T>` → `B`). */
function typeName(t: SyntaxNode): string | null {
  const named = t.type === "generic_type" ? t.childForFieldName("name") : t;
  return named?.type === "type_identifier" || named?.type === "nested_type_identifier" ? named.text.replace(/\s+/g, "") : null;
}

/** `interface I extends A, B<T>`: the interfaces it extends, the first as `extends` and the rest as `implements` (as every language's heritage is recorded). */
function interfaceHeritage(decl: SyntaxNode): ClassHeritage | null {
  const name = decl.childForFieldName("name")?.text;
  const clause = decl.namedChildren.find((c) => c.type === "extends_type_clause");
  const bases = (clause?.namedChildren ?? []).map(typeName).filter((n): n is string => n !== null);
  return name && bases.length > 0 ? { className: name, line: decl.startPosition.row + 1, extends: bases[0]!, implements: bases.slice(1) } : null;
}

function heritage(decl: SyntaxNode, cls: ClassEnv): ClassHeritage {
  const names = heritageNames(decl);
  return { className: cls.name, line: decl.startPosition.row + 1, extends: names.extends, implements: names.implements };
}

/**
 * Whether a type guard may have narrowed the receiver at this call, so its declared type is not
 * what the checker would resolve the call on: an enclosing `if`, `?:` or `&&` whose condition
 * passes the receiver to a call (`if (hasAccessCapability(this.delegate)) this.delegate.fsPath()`),
 * tests it with `instanceof` or `in`. A plain truthiness test (`if (this.editor)`) narrows nothing
 * a method call sees.
 */
function narrowed(call: SyntaxNode, container: Container, receiver: string): boolean {
  // Built only for a condition that names the receiver at all (most name nothing of it).
  let guard: RegExp | null = null;
  for (let n: SyntaxNode | null = call.parent, child: SyntaxNode = call; n !== null && n.startIndex >= container.start; child = n, n = n.parent) {
    const condition =
      n.type === "if_statement" || n.type === "ternary_expression"
        ? unparenthesized(n.childForFieldName("condition"))
        : n.type === "binary_expression" && n.childForFieldName("operator")?.type === "&&" && n.childForFieldName("right")?.startIndex === child.startIndex
          ? n.childForFieldName("left")
          : null;
    if (condition === null || condition.startIndex === child.startIndex) continue;
    const text = condition.text;
    if (!text.includes(receiver)) continue;
    if (guard === null) {
      const r = receiver.replace(/[.$]/g, "\\$&");
      guard = new RegExp(`[(,]\\s*${r}\\s*[,)]|(?<![\\w$.])${r}\\s+instanceof\\b|\\bin\\s+${r}(?![\\w$])`);
    }
    if (guard.test(text)) return true;
  }
  return false;
}

/** An `if`'s condition without its own parentheses. */
function unparenthesized(node: SyntaxNode | null): SyntaxNode | null {
  return node?.type === "parenthesized_expression" ? (node.namedChildren[0] ?? null) : node;
}

/** The class a receiver constructs, through `(…)` and `!` only: `C` for `new C(…)` or `new C<T>(…)`; null for anything else. */
function constructedClass(node: SyntaxNode | null): string | null {
  const n = throughParensAndBang(node);
  const ctor = n?.type === "new_expression" ? n.childForFieldName("constructor") : null;
  return ctor?.type === "identifier" ? ctor.text : null;
}

/**
 * Whether a producer path names what the file declares or imports, not a local that shadows it:
 * `f` (and `f().m`) a top-level function or import no binding in the container hides (nor a
 * nested function); `N.f` on a class, namespace or import `N` no local hides.
 */
function fileProducer(producer: string, file: FileEnv, locals: Locals): boolean {
  const head = LEADING_IDENTIFIER.exec(producer)?.[0] ?? "";
  if (producer.charAt(head.length) !== ".") return file.callable.has(head) && !locals.has(head) && locals.nestedFunction(head) === null;
  return !locals.has(head) && (file.classNames.has(head) || file.importedNames.has(head) || file.namespaces.has(head));
}

const LEADING_IDENTIFIER = /^[A-Za-z_$][\w$]*/;

/**
 * A producer path the linker can follow: one the file names (fileProducer), or one headed by a
 * local its binding types (`c.min` of `const c = z.string()` → `z.string().min`; of `c: T` →
 * `T.min`, a method of T) — unless a guard may have narrowed the local.
 */
function linkableProducer(producer: string, file: FileEnv, locals: Locals, isNarrowed: (name: string) => boolean): string | null {
  if (fileProducer(producer, file, locals)) return producer;
  const head = LEADING_IDENTIFIER.exec(producer)?.[0] ?? "";
  if (producer.charAt(head.length) !== ".") return null;
  const bound = locals.has(head) ? locals.typeOf(head) : (file.instances.get(head) ?? undefined);
  if (!bound || isNarrowed(head)) return null;
  const rest = producer.slice(head.length);
  if (bound.resolution === "return_type") return fileProducer(bound.type, file, locals) ? `${bound.type}()${rest}` : null;
  return `${bound.type}${rest}`;
}

function receiverOf(node: SyntaxNode): SyntaxNode {
  let n = node;
  while (TRANSPARENT.has(n.type)) {
    const inner = n.namedChildren[0];
    if (!inner) break;
    n = inner;
  }
  return n;
}

interface Locals {
  /** The name is bound inside the container (a parameter, variable or function). */
  has(name: string): boolean;
  /** The symbol name of the nested function a bare call of `name` calls here (bound once, in scope), or null. */
  nestedFunction(name: string): string | null;
  /** The type a name's single binding gives it; undefined when untyped or bound more than once. */
  typeOf(name: string): LocalType | undefined;
}

function classify(call: SyntaxNode, container: Container, file: FileEnv, locals: Locals, thisIsInstance: () => boolean): CallSite | null {
  const isNew = call.type === "new_expression";
  let target = call.childForFieldName(isNew ? "constructor" : "function");
  // tree-sitter-typescript parses `await x.m<T>(…)` as a call of `await x.m` with type arguments.
  if (target?.type === "await_expression" && call.childForFieldName("type_arguments")) target = target.namedChildren[0] ?? null;
  if (!target) return null;
  const line = call.startPosition.row + 1;
  const site = (callee: string, receiver: CallReceiver): CallSite => ({
    caller: container.caller,
    callee,
    receiver,
    isNew,
    line,
  });
  if (target.type === "identifier") {
    const name = target.text;
    const nested = isNew ? null : locals.nestedFunction(name);
    if (nested !== null) return site(nested, { kind: "bare" });
    // Only imports and top-level declarations can be linked; a local binding (a parameter, a
    // variable) shadows any function of that name.
    if (!file.callable.has(name) || locals.has(name)) return null;
    return site(name, { kind: "bare" });
  }
  if (target.type !== "member_expression") return null;
  const property = target.childForFieldName("property");
  const object = target.childForFieldName("object");
  if (!property || !object || (property.type !== "property_identifier" && property.type !== "private_property_identifier")) return null;
  const callee = property.text;
  const recv = receiverOf(object);
  if (isNew) {
    // `new ns.Class()`, `new ns.sub.Class()`: a class a namespace import binds (no other member is followed for `new`).
    const path = dottedPath(recv);
    const head = path === null ? null : LEADING_IDENTIFIER.exec(path)![0];
    return head !== null && !locals.has(head) && file.namespaces.has(head) ? site(callee, { kind: "namespace", local: path! }) : null;
  }
  const cls = container.cls;
  // Whether `this` is the instance is asked only of receivers that use it (walking up is costly).
  if (recv.type === "this") return cls && thisIsInstance() ? site(callee, { kind: "this", className: cls.name }) : null;
  if (recv.type === "super") return cls?.parent ? site(callee, { kind: "super", className: cls.parent }) : null;
  if (recv.type === "member_expression" && cls && receiverOf(recv.childForFieldName("object") ?? recv).type === "this" && thisIsInstance()) {
    const inner = receiverOf(recv.childForFieldName("object") ?? recv);
    const member = recv.childForFieldName("property")?.text;
    const fieldType = inner.type === "this" && member ? cls.fields.get(member) : undefined;
    return fieldType && !narrowed(call, container, recv.text) ? site(callee, { kind: "typed", typeName: fieldType, resolution: "field_type" }) : null;
  }
  // `new C().m()`, `(new C<T>()).m()`: an instance of the class constructed, as `const x = new C()` types x.
  const constructed = constructedClass(object);
  if (constructed !== null) {
    const named = !locals.has(constructed) && (file.classNames.has(constructed) || file.importedNames.has(constructed));
    return named ? site(callee, { kind: "typed", typeName: constructed, resolution: "new_expression" }) : null;
  }
  // `f().m()`, `N.f()?.m()`, `T.f()!.m()`: what the producing call returns (its declared return type, read when linking).
  const producer = producerOf(object);
  if (producer !== null) {
    const linked = linkableProducer(producer, file, locals, (name) => narrowed(call, container, name));
    return linked === null ? null : site(callee, { kind: "returned", producer: linked });
  }
  if (recv.type === "identifier") {
    const bound = locals.typeOf(recv.text);
    // A local's binding, else a top-level variable's declaration (`const schema = z.string()` at the top of the file).
    const typed = bound ?? (locals.has(recv.text) ? undefined : (file.instances.get(recv.text) ?? undefined));
    if (typed) {
      if (narrowed(call, container, recv.text)) return null;
      if (typed.resolution === "return_type") return fileProducer(typed.type, file, locals) ? site(callee, { kind: "returned", producer: typed.type }) : null;
      return site(callee, { kind: "typed", typeName: typed.type, resolution: typed.resolution });
    }
    if (locals.has(recv.text)) return null;
    if (file.namespaces.has(recv.text)) return site(callee, { kind: "namespace", local: recv.text });
    if (file.classNames.has(recv.text) || file.importedNames.has(recv.text)) return site(callee, { kind: "static", className: recv.text });
    return null;
  }
  // `z.coerce.string()`: a member of a namespace an import binds (`export * as coerce`, an imported namespace), followed when linking.
  const path = dottedPath(recv);
  const head = path === null ? null : LEADING_IDENTIFIER.exec(path)![0];
  if (head !== null && !locals.has(head) && (file.namespaces.has(head) || file.importedNames.has(head))) return site(callee, { kind: "namespace", local: path! });
  return null;
}
