// Call sites of a TypeScript/JavaScript file with the local type environment of spec §10.3.1:
// for every call (and `new`), the enclosing declaration, the called name and what its receiver
// is known to be — `this`, `super`, a typed field, parameter or `new` binding, a namespace
// import, a class, or nothing (a bare call). Only calls that could link are recorded; linking
// names to symbols is index/link.ts's. This module reads the tree (binding names from the source
// text at each binding's start, types from the tree), and when in doubt records no receiver type.
import { CLASS_TYPES, FUNCTION_VALUES, instanceType, namedType, unwrapAmbient, type InstanceType } from "./es-nodes.js";
import type { SyntaxNode } from "./flat-tree.js";
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
export const THIS_BOUNDARIES: ReadonlySet<string> = new Set(["function_expression", "function", "function_declaration", "generator_function", "generator_function_declaration", "method_definition", "class_declaration", "class", "abstract_class_declaration"]);
/** Wrappers looked through to find a receiver: `(x)`, `x!`, `x as T`, `await x`, `x satisfies T`. */
const TRANSPARENT = new Set(["parenthesized_expression", "non_null_expression", "as_expression", "await_expression", "satisfies_expression"]);

/**
 * A binding node seen by the walk: its type, character range and the name it declares, read from
 * the source text at its start (null for destructuring patterns, which bind no tracked name, and
 * for JavaScript `formal_parameters`, whose identifiers are read from the tree when needed).
 * Only a name bound once is ever asked for its type, and that is read from the tree.
 */
export interface BindingSite {
  readonly kind: string;
  readonly start: number;
  readonly end: number;
  readonly name: string | null;
  /** The text after the name starts an annotation or `= new`: the tree may give it a type. */
  readonly typed: boolean;
}

/** What call extraction needs from one walk of the tree (the extractor's token walk). */
export interface CallNodes {
  readonly calls: SyntaxNode[];
  readonly bindings: BindingSite[];
  /** Start and end index of every THIS_BOUNDARIES node, flat pairs in document order. */
  readonly boundaries: number[];
}

const DECORATORS_AND_MODIFIERS = /^(?:@[\w$.]+(?:\([^()]*\))?\s*|(?:public|private|protected|readonly|override)\s+)*(?:\.\.\.\s*)?/;
/** A leading identifier that is the whole pattern (not the start of `f(x)` or `a.b` in a tree recovered from errors). */
const LEADING_NAME = /^[A-Za-z_$][\w$]*(?![\w$])(?!\s*[(.[<`])/;
const FUNCTION_NAME = /^(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/;
const FOR_BINDING = /^for\s*(?:await\s*)?\(\s*(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s+(?:of|in)\b/;
const FOR_PATTERN = /^for\s*(?:await\s*)?\(\s*(?:const|let|var)\s*[{[]/;
const LONE_PARAMETER = /^(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/;
const CATCH_PARAMETER = /^catch\s*\(\s*([A-Za-z_$][\w$]*)\s*[):]/;

/** What may type a binding, read from the text after its name: an annotation, `= new …`, or `= f(…)` / `= N.a.f<T>(…)` (a producer; localType decides). */
const TYPE_HINT = /^[!?]?\s*(?::|=\s*new\b|=\s*\(*\s*[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*\s*[(<])/;

/** A binding site read from the source text at its start (`text` starts at the node). */
export function bindingSite(kind: string, start: number, end: number, text: string): BindingSite {
  let name: string | null = null;
  let after = "";
  if (kind === "required_parameter" || kind === "optional_parameter" || kind === "variable_declarator") {
    const rest = kind === "variable_declarator" ? text : text.slice(DECORATORS_AND_MODIFIERS.exec(text)![0].length);
    name = LEADING_NAME.exec(rest)?.[0] ?? null;
    if (name === "this") name = null;
    if (name !== null) after = rest.slice(name.length);
  } else if (kind === "function_declaration" || kind === "generator_function_declaration") name = FUNCTION_NAME.exec(text)?.[1] ?? null;
  // `for (const x of xs)` binds x (typed by the checker's inference only); `for (x of xs)` assigns one bound elsewhere.
  else if (kind === "for_in_statement") return { kind, start, end, name: FOR_BINDING.exec(text)?.[1] ?? null, typed: false };
  // An arrow's lone parameter (`s => …`, no parentheses) and a `catch (e)` parameter: untyped bindings of their own scope.
  else if (kind === "arrow_function") return { kind, start, end, name: LONE_PARAMETER.exec(text)?.[1] ?? null, typed: false };
  else if (kind === "catch_clause") return { kind, start, end, name: CATCH_PARAMETER.exec(text)?.[1] ?? null, typed: false };
  return { kind, start, end, name, typed: name !== null && TYPE_HINT.test(after) };
}

/** The character range a binding's name is read from (its first line is enough). */
export const BINDING_TEXT_CHARS = 200;

/** The first name of a call's receiver chain (`this` in `(await this.repo).find()`). */
const LEADING_RECEIVER = /^[\s(]*(?:(?:await|new)\s+[\s(]*)*(#?[A-Za-z_$][\w$]*)/;
const LEADING_RECEIVER_CHARS = 120;

/** Binding nodes; `formal_parameters` matters only in JavaScript, where parameters are bare identifiers. */
export const BINDING_NODE_TYPES: ReadonlySet<string> = new Set(["required_parameter", "optional_parameter", "variable_declarator", "function_declaration", "generator_function_declaration", "formal_parameters", "for_in_statement", "arrow_function", "catch_clause"]);

export function extractCalls(root: SyntaxNode, text: string, lines: readonly string[], fileStem: string, nodes: CallNodes, imports: readonly ImportRecord[]): CallExtraction {
  const scope = topLevelScope(root, fileStem, imports);
  const containerOf = containerFinder(scope.containers);
  const { nestedIn, unnamedIn } = nestedDeclarations(nodes, containerOf);
  const envs = localEnvs(nodes, containerOf, root, text);
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

/** The containers' local environments, and the names any binding in the file gives a type to. */
interface LocalEnvs {
  /** A call on a local name not among these cannot be typed. */
  readonly typable: ReadonlySet<string>;
  /** A container's environment, built from its bindings when one of its calls first asks about a local name. */
  of(c: Container): LocalEnv;
}

function localEnvs(nodes: CallNodes, containerOf: (index: number) => Container | null, root: SyntaxNode, text: string): LocalEnvs {
  // Names some binding in the file gives a type to: a call on any other local cannot be typed.
  const typable = new Set<string>();
  const bindingsOf = new Map<Container, BindingSite[]>();
  for (const b of nodes.bindings) {
    const c = containerOf(b.start);
    if (!c) continue;
    (bindingsOf.get(c) ?? bindingsOf.set(c, []).get(c)!).push(b);
    if (b.typed) typable.add(b.name!);
  }
  const envs = new Map<Container, LocalEnv>();
  const of = (c: Container): LocalEnv => {
    let env = envs.get(c);
    if (!env) {
      env = { counts: new Map(), sites: new Map(), all: new Map(), opaque: new Set(), types: new Map(), scoped: new Map(), patterns: [], patternNames: null };
      for (const b of bindingsOf.get(c) ?? []) bindSite(env, b, c, root, text);
      envs.set(c, env);
    }
    return env;
  };
  return { typable, of };
}

/** The file's call sites that can link, classified. */
function classifyCalls(
  root: SyntaxNode,
  text: string,
  nodes: CallNodes,
  file: FileEnv,
  containerOf: (index: number) => Container | null,
  nestedIn: ReadonlyMap<Container, ReadonlyMap<string, BindingSite>>,
  envs: LocalEnvs,
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

/** Calls a producer path chains at most (`a().b().c().d`): each is one more return type to follow when linking. */
const MAX_PRODUCER_CALLS = 4;

/**
 * The callee path of the call an expression is, through `(…)` and `!` only (a cast or `await`
 * changes the type): `f`, `N.f`, `N.a.f` (a namespace's namespace) or `T.f`, and chains of them —
 * `p().m` for a method called on what producer `p` returns (`z.string().min`) — what `returned`
 * receivers name. Null for anything else (a `new`, `this.f()`, a computed callee, a chain longer
 * than MAX_PRODUCER_CALLS).
 */
function producerOf(node: SyntaxNode | null, calls = 1): string | null {
  const n = throughParensAndBang(node);
  if (n?.type !== "call_expression") return null;
  const fn = n.childForFieldName("function");
  if (fn?.type === "identifier") return fn.text;
  if (fn?.type !== "member_expression") return null;
  const name = fn.childForFieldName("property");
  if (name?.type !== "property_identifier") return null;
  const head = fn.childForFieldName("object");
  const path = dottedPath(head);
  if (path !== null) return `${path}.${name.text}`;
  const inner = calls < MAX_PRODUCER_CALLS ? producerOf(head, calls + 1) : null;
  return inner === null ? null : `${inner}().${name.text}`;
}

/** `a` or `a.b.c`: a member chain of plain names, else null. */
function dottedPath(node: SyntaxNode | null): string | null {
  if (node?.type === "identifier") return node.text;
  if (node?.type !== "member_expression") return null;
  const name = node.childForFieldName("property");
  const head = name?.type === "property_identifier" ? dottedPath(node.childForFieldName("object")) : null;
  return head === null ? null : `${head}.${name!.text}`;
}

/** An expression through `(…)` and `!` (which keep its type; a cast or `await` changes it). */
function throughParensAndBang(node: SyntaxNode | null): SyntaxNode | null {
  let n = node;
  while (n && (n.type === "parenthesized_expression" || n.type === "non_null_expression")) n = n.namedChildren[0] ?? null;
  return n;
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

/** What a local's declaration says it holds: instanceType's annotation or `new`; else, for `const x = f()` without an annotation, the producing call (resolved through its declared return type when linking). */
function localType(node: SyntaxNode): LocalType | null {
  const instance = instanceType(node);
  // An annotation says what the local holds (`const n: any = f()` holds any, whatever f returns).
  if (instance || node.type !== "variable_declarator" || node.childForFieldName("type") !== null) return instance;
  const producer = producerOf(node.childForFieldName("value"));
  return producer === null ? null : { type: producer, resolution: "return_type" };
}

/** A local's type: an InstanceType, or the callee path of the call it was bound to (`return_type`). */
type LocalType = InstanceType | { readonly type: string; readonly resolution: "return_type" };

function receiverOf(node: SyntaxNode): SyntaxNode {
  let n = node;
  while (TRANSPARENT.has(n.type)) {
    const inner = n.namedChildren[0];
    if (!inner) break;
    n = inner;
  }
  return n;
}

interface LocalEnv {
  /** How often each name is bound in the container (a parameter, variable or function). */
  readonly counts: Map<string, number>;
  /** The (last) binding site of each name. */
  readonly sites: Map<string, BindingSite>;
  /** Every binding site of each name, in document order. */
  readonly all: Map<string, BindingSite[]>;
  /** Names a JavaScript `formal_parameters` binds (no site of their own, so no scope to compare). */
  readonly opaque: Set<string>;
  /** The type a name's only binding gives it, once read from the tree (null: none). */
  readonly types: Map<string, LocalType | null>;
  /** Per binding site (by start): its scope's range and the type it gives, once read. */
  readonly scoped: Map<number, { start: number; end: number; type: LocalType | null } | null>;
  /** Binding sites whose name is a destructuring pattern (`const { a, b: c } = x`), and the names they bind, read when first asked. */
  readonly patterns: BindingSite[];
  patternNames: Set<string> | null;
}

/** The names the container's destructuring patterns bind (defaults' expressions and property keys left out). */
function patternNames(env: LocalEnv, root: SyntaxNode): Set<string> {
  if (env.patternNames) return env.patternNames;
  const names = new Set<string>();
  const collect = (n: SyntaxNode): void => {
    if (n.type === "identifier" || n.type === "shorthand_property_identifier_pattern") names.add(n.text);
    else if (n.type === "assignment_pattern" || n.type === "object_assignment_pattern") {
      const left = n.childForFieldName("left");
      if (left) collect(left);
    } else if (n.type === "pair_pattern") {
      const value = n.childForFieldName("value");
      if (value) collect(value);
    } else for (const c of n.namedChildren) collect(c);
  };
  for (const b of env.patterns) {
    const node = nodeOf(b, root);
    const pattern = node ? boundName(node) : null;
    if (pattern && (pattern.type === "object_pattern" || pattern.type === "array_pattern")) collect(pattern);
  }
  return (env.patternNames = names);
}

/** Records the name one binding declares in its container's environment. */
function bindSite(env: LocalEnv, b: BindingSite, container: Container, root: SyntaxNode, text: string): void {
  // The container's own name is not a local: `function fact() { fact() }` calls itself (an arrow's lone parameter is one).
  if (b.start === container.start && b.kind === container.node.type && b.kind !== "arrow_function") return;
  if (b.kind === "formal_parameters") {
    // JavaScript parameters are bare identifiers directly in formal_parameters.
    for (const p of nodeOf(b, root)?.namedChildren ?? []) {
      if (p.type !== "identifier") continue;
      env.counts.set(p.text, (env.counts.get(p.text) ?? 0) + 1);
      env.opaque.add(p.text);
    }
    return;
  }
  if (b.name === null) {
    // `{`/`[` where a name would be: a destructuring pattern (`for ([a, b] of …)` without a declaration assigns, binds nothing).
    const head = text.slice(b.start, b.start + BINDING_TEXT_CHARS);
    const at = b.kind === "for_in_statement" ? FOR_PATTERN.test(head) : /^[{[]/.test(head.replace(DECORATORS_AND_MODIFIERS, ""));
    if (at) env.patterns.push(b);
    return;
  }
  env.counts.set(b.name, (env.counts.get(b.name) ?? 0) + 1);
  env.sites.set(b.name, b);
  (env.all.get(b.name) ?? env.all.set(b.name, []).get(b.name)!).push(b);
}

const FUNCTION_SCOPES = new Set(["function_declaration", "generator_function_declaration", "function_expression", "function", "generator_function", "arrow_function", "method_definition"]);
const BLOCK_SCOPES = new Set(["statement_block", "program", "for_statement", "for_in_statement", "switch_body", "class_static_block"]);

/**
 * The range a binding is seen in, as the language scopes it: a `let`/`const` (and a function
 * declaration) in its block, a `var` and a parameter in its function. Null when the tree does not say.
 */
function scopeOf(b: BindingSite, root: SyntaxNode): { start: number; end: number } | null {
  const node = nodeOf(b, root);
  if (!node) return null;
  // A `let`/`const` loop variable is seen in its loop, a `var` one in its function; an arrow's lone parameter in the arrow, a catch parameter in its clause.
  if (b.kind === "arrow_function" || b.kind === "catch_clause") return { start: node.startIndex, end: node.endIndex };
  if (b.kind === "for_in_statement" && node.childForFieldName("kind")?.text !== "var") return { start: node.startIndex, end: node.endIndex };
  const functionScoped = b.kind === "required_parameter" || b.kind === "optional_parameter" || b.kind === "for_in_statement" || node.parent?.type === "variable_declaration";
  for (let n = node.parent; n !== null; n = n.parent) {
    if (functionScoped ? FUNCTION_SCOPES.has(n.type) : BLOCK_SCOPES.has(n.type) || FUNCTION_SCOPES.has(n.type)) return { start: n.startIndex, end: n.endIndex };
  }
  return null;
}

/**
 * The type of a name bound more than once in the container, at `index`: the binding whose scope
 * is the innermost holding the call (`let tracker: Tracker` in each of several `describe` bodies).
 * Undefined when no scope or two bindings of one scope hold it, or a JavaScript parameter binds it.
 */
function typeOfScoped(env: LocalEnv, name: string, index: number, root: SyntaxNode): LocalType | undefined {
  if (env.opaque.has(name)) return undefined;
  let best: { start: number; type: LocalType | null } | null = null;
  let tie = false;
  for (const b of env.all.get(name) ?? []) {
    let seen = env.scoped.get(b.start);
    if (seen === undefined) {
      const scope = scopeOf(b, root);
      seen = scope ? { ...scope, type: siteType(b, root) } : null;
      env.scoped.set(b.start, seen);
    }
    if (seen === null) return undefined;
    if (index < seen.start || index >= seen.end) continue;
    if (best === null || seen.start > best.start) {
      best = { start: seen.start, type: seen.type };
      tie = false;
    } else if (seen.start === best.start) tie = true;
  }
  return best === null || tie ? undefined : (best.type ?? undefined);
}

/** The type a binding site gives its name (null when it gives none): localType of its node, when the text hinted at one and the name is a plain identifier. */
function siteType(b: BindingSite, root: SyntaxNode): LocalType | null {
  const node = b.typed ? nodeOf(b, root) : null;
  return node && boundName(node)?.type === "identifier" ? localType(node) : null;
}

/** What a binding node binds: a declarator's `name`, a loop's `left`, a parameter's `pattern`. */
function boundName(node: SyntaxNode): SyntaxNode | null {
  return node.childForFieldName(node.type === "variable_declarator" ? "name" : node.type === "for_in_statement" ? "left" : "pattern");
}

/** The binding node a site was read from. */
function nodeOf(b: BindingSite, root: SyntaxNode): SyntaxNode | null {
  for (let n: SyntaxNode | null = root.descendantForIndex(b.start, b.end); n !== null; n = n.parent) {
    if (n.type === b.kind && n.startIndex === b.start) return n;
    if (n.startIndex < b.start) return null;
  }
  return null;
}

/** The type a name's only binding gives it, read from the tree: an annotation, or a `new` of a named class. */
function typeOfBinding(env: LocalEnv, name: string, root: SyntaxNode): LocalType | undefined {
  if (env.types.has(name)) return env.types.get(name) ?? undefined;
  const b = env.sites.get(name);
  const type = b ? siteType(b, root) : null;
  env.types.set(name, type);
  return type ?? undefined;
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
  if (target.type !== "member_expression" || isNew) return null;
  const property = target.childForFieldName("property");
  const object = target.childForFieldName("object");
  if (!property || !object || (property.type !== "property_identifier" && property.type !== "private_property_identifier")) return null;
  const callee = property.text;
  const recv = receiverOf(object);
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
