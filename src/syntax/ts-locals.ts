// The local bindings of TypeScript/JavaScript code, as call extraction types receivers with them
// (docs/call-graph.md#call-sites-and-the-local-type-environment): binding sites read from the source text at their start (the token pass gathers
// them), and each container's environment built from them when first asked — how often a name is
// bound, in which scope, and the type its binding gives: an annotation, `new C`, or the path of
// the call that produced it (`producerOf`). When in doubt a binding gives no type.
import { instanceType, type InstanceType } from "./es-nodes.js";
import type { SyntaxNode } from "./flat-tree.js";

/** The piece of code a binding is in (call extraction's container): its node and where it starts. */
export interface BindingContainer {
  readonly node: SyntaxNode;
  readonly start: number;
}

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

/** Binding nodes; `formal_parameters` matters only in JavaScript, where parameters are bare identifiers. */
export const BINDING_NODE_TYPES: ReadonlySet<string> = new Set([
  "required_parameter",
  "optional_parameter",
  "variable_declarator",
  "function_declaration",
  "generator_function_declaration",
  "formal_parameters",
  "for_in_statement",
  "arrow_function",
  "catch_clause",
]);

/** Calls a producer path chains at most (`a().b().c().d`): each is one more return type to follow when linking. */
const MAX_PRODUCER_CALLS = 4;

/**
 * The callee path of the call an expression is, through `(…)` and `!` only (a cast or `await`
 * changes the type): `f`, `N.f`, `N.a.f` (a namespace's namespace) or `T.f`, and chains of them —
 * `p().m` for a method called on what producer `p` returns (`z.string().min`) — what `returned`
 * receivers name. Null for anything else (a `new`, `this.f()`, a computed callee, a chain longer
 * than MAX_PRODUCER_CALLS).
 */
export function producerOf(node: SyntaxNode | null, calls = 1): string | null {
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
export function dottedPath(node: SyntaxNode | null): string | null {
  if (node?.type === "identifier") return node.text;
  if (node?.type !== "member_expression") return null;
  const name = node.childForFieldName("property");
  const head = name?.type === "property_identifier" ? dottedPath(node.childForFieldName("object")) : null;
  return head === null ? null : `${head}.${name!.text}`;
}

/** An expression through `(…)` and `!` (which keep its type; a cast or `await` changes it). */
export function throughParensAndBang(node: SyntaxNode | null): SyntaxNode | null {
  let n = node;
  while (n && (n.type === "parenthesized_expression" || n.type === "non_null_expression")) n = n.namedChildren[0] ?? null;
  return n;
}

/** What a local's declaration says it holds: instanceType's annotation or `new`; else, for `const x = f()` without an annotation, the producing call (resolved through its declared return type when linking). */
export function localType(node: SyntaxNode): LocalType | null {
  const instance = instanceType(node);
  // An annotation says what the local holds (`const n: any = f()` holds any, whatever f returns).
  if (instance || node.type !== "variable_declarator" || node.childForFieldName("type") !== null) return instance;
  const producer = producerOf(node.childForFieldName("value"));
  return producer === null ? null : { type: producer, resolution: "return_type" };
}

/** A local's type: an InstanceType, or the callee path of the call it was bound to (`return_type`). */
export type LocalType = InstanceType | { readonly type: string; readonly resolution: "return_type" };

/** One container's locals: what binds each name there, and the types read so far. */
export interface LocalEnv {
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
export function patternNames(env: LocalEnv, root: SyntaxNode): Set<string> {
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
function bindSite(env: LocalEnv, b: BindingSite, container: BindingContainer, root: SyntaxNode, text: string): void {
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
export function typeOfScoped(env: LocalEnv, name: string, index: number, root: SyntaxNode): LocalType | undefined {
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
export function nodeOf(b: BindingSite, root: SyntaxNode): SyntaxNode | null {
  for (let n: SyntaxNode | null = root.descendantForIndex(b.start, b.end); n !== null; n = n.parent) {
    if (n.type === b.kind && n.startIndex === b.start) return n;
    if (n.startIndex < b.start) return null;
  }
  return null;
}

/** The type a name's only binding gives it, read from the tree: an annotation, or a `new` of a named class. */
export function typeOfBinding(env: LocalEnv, name: string, root: SyntaxNode): LocalType | undefined {
  if (env.types.has(name)) return env.types.get(name) ?? undefined;
  const b = env.sites.get(name);
  const type = b ? siteType(b, root) : null;
  env.types.set(name, type);
  return type ?? undefined;
}

/** The containers' local environments, and the names any binding in the file gives a type to. */
export interface LocalEnvs<C extends BindingContainer> {
  /** A call on a local name not among these cannot be typed. */
  readonly typable: ReadonlySet<string>;
  /** A container's environment, built from its bindings when one of its calls first asks about a local name. */
  of(c: C): LocalEnv;
}

export function localEnvs<C extends BindingContainer>(bindings: readonly BindingSite[], containerOf: (index: number) => C | null, root: SyntaxNode, text: string): LocalEnvs<C> {
  // Names some binding in the file gives a type to: a call on any other local cannot be typed.
  const typable = new Set<string>();
  const bindingsOf = new Map<C, BindingSite[]>();
  for (const b of bindings) {
    const c = containerOf(b.start);
    if (!c) continue;
    (bindingsOf.get(c) ?? bindingsOf.set(c, []).get(c)!).push(b);
    if (b.typed) typable.add(b.name!);
  }
  const envs = new Map<C, LocalEnv>();
  const of = (c: C): LocalEnv => {
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
