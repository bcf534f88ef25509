// Edit rules: what hashpilot's AST edits (syntax/ast-walk.ts and the edit modules beside it) read of a language's syntax tree —
// which nodes declare a name and where their bodies are, what a declaration's owner is, which
// wrappers an insertion anchors on, where names are bound and in which scope, which tokens are
// member names or keys, and how imports are written. Data and small functions over `RuleNode`,
// one table per language in its spec; `ast capabilities` is derived from them.
import type { RuleNode } from "./outline.js";

/** The AST operations hashpilot performs, in the contract's order. */
export const AST_OPERATIONS = ["find-symbols", "rename-symbol", "replace-body", "add-import", "remove-import", "insert-before", "insert-after"] as const;
export type AstOperation = (typeof AST_OPERATIONS)[number];

export type DeclarationKind = "function" | "method" | "class" | "interface" | "type" | "enum" | "namespace" | "variable" | "field" | "module";

export interface EditDeclaration {
  readonly kind: DeclarationKind | ((node: RuleNode) => DeclarationKind);
  /** The field holding the name (default `name`); a function for a node named otherwise. Several nodes: several names (`const A, B = 1, 2`). */
  readonly name?: string | ((node: RuleNode) => readonly RuleNode[]);
  /** The field (or a function finding the node) holding the body replace-body replaces; absent: nothing to replace. */
  readonly body?: string | ((node: RuleNode) => RuleNode | null);
  /** The node declares only where this holds (a Python assignment at module or class level). */
  where?(node: RuleNode): boolean;
  /** The type a member belongs to when its place does not say (a Go method: its receiver's type). */
  ownerName?(node: RuleNode): string | null;
}

export interface EditOwner {
  /** The owner's name (a class, a struct, the type of a Rust `impl`). */
  name(node: RuleNode): string | null;
  /** The node whose named children are the owner's members (a class body, a struct's field list). */
  members(node: RuleNode): RuleNode | null;
}

/**
 * A node that binds names: the tokens in `fields` (every named child when null), and through the
 * pattern nodes there (`EditRules.patterns`), are bound.
 */
export interface BindingRule {
  /** How contending bindings are listed (`parameter`, `variable_declarator`, `import`, ...). */
  readonly kind: string;
  readonly fields: readonly string[] | null;
  /**
   * The scope the names are bound in: the nearest scope above the node (`enclosing`), the nearest
   * function scope above it (`function`: a JavaScript `var`), or the node itself (`self`: a catch clause).
   */
  readonly scope: "enclosing" | "function" | "self";
  /** Visible only after the binding (Rust `let`): a later one shadows it, an earlier use is not its. */
  readonly sequential?: boolean;
  /** Binds the same variable again when its scope binds it already (assignments, `var`, Go `:=`, an overload signature). */
  readonly rebinds?: boolean;
  /** The node binds only where this holds (`for (x of …)` binds with a declaration keyword only). */
  where?(node: RuleNode): boolean;
}

/** Which children of a pattern node hold names: the fields listed, every named child (null), or every named child but those in the fields listed. */
export type PatternFields = readonly string[] | null | { readonly except: readonly string[] };

/** How a token an import binds is renamed: replaced (`* as ns`, an alias), or given an alias (`{ a }` → `{ a as b }`). */
export interface ImportBinding {
  readonly token: RuleNode;
  readonly rename: "replace" | "alias";
  /** The name bound when it is not the token's text (Rust's `use a::m::{self}` binds `m`). */
  readonly name?: string;
}

/** A change to a file's text, as the rules propose one: characters [start, end) become `text`. */
export interface RuleEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** What an import takes from one module, as add-import and remove-import read and write it. */
export interface ImportSpec {
  readonly module: string;
  /** The default import (`D from m`), a Python `import m as d` / Go package name. */
  readonly defaultName: string | null;
  /** `* as ns`. */
  readonly namespace: string | null;
  readonly names: ReadonlyArray<{ readonly name: string; readonly alias: string | null }>;
  /** `import type { … }`: no runtime form. */
  readonly typeOnly: boolean;
  /** For ECMAScript: the module system of an existing statement (`import` or `require`). */
  readonly system?: "esm" | "cjs";
}

export type ModuleSystem = "esm" | "cjs";

export interface ImportRules {
  /** A spec as the user writes it (`{ a, b as c } from ./m`, `import os`, `"fmt"`, `std::io::Read`), or why it is not one. */
  parse(spec: string): ImportSpec | string;
  /** What a top-level statement imports (a Go import block: one spec per package), empty when it is no import. */
  read(statement: RuleNode): ImportSpec[];
  /**
   * The statement importing `spec` in the module system given, in the style (quotes, semicolon) of
   * `like`, an import the file has; `mismatch` says why it has no form there (MODULE_SYSTEM_MISMATCH).
   */
  render(spec: ImportSpec, system: ModuleSystem, like: RuleNode | null): { text: string } | { mismatch: string; recovery: string };
  /** The edit adding `spec` to an existing import statement (its module's, or a Go import block), or null when that statement cannot take it. */
  merge(statement: RuleNode, spec: ImportSpec, source: string): RuleEdit | null;
  /**
   * The edit taking what `spec` names out of a statement that imports it and keeps something else
   * (`default` and `*` name a default and a namespace binding; no names: the whole module), or
   * "all" when nothing would be left.
   */
  without(statement: RuleNode, spec: ImportSpec, source: string): RuleEdit | "all";
  /** The names an import of `spec` binds in the file (`{ a as b }` → b, `import a.b` → a, `"net/http"` → http). */
  locals(spec: ImportSpec): string[];
  /** The node the first import of a file goes after (a package clause, a module docstring, directives), or null for the start. */
  firstAfter(root: RuleNode): RuleNode | null;
  /** Extensions whose module system is fixed (`.mjs`, `.cjs`); absent: the language has one system. */
  readonly moduleSystems?: { readonly esm: readonly string[]; readonly cjs: readonly string[] };
}

export interface EditRules {
  readonly declarations: Readonly<Record<string, EditDeclaration>>;
  readonly owners: Readonly<Record<string, EditOwner>>;
  /** Nodes that wrap a declaration and belong to it (`export`, decorators, the statement of a declarator): an insertion anchors on the outermost. */
  readonly wrappers: readonly string[];
  /** Siblings directly above a declaration that belong to it (doc comments, attributes, decorators): insert-before goes above them. */
  readonly leading: readonly string[];
  /** The indentation step of a file that has no indented line to detect it from. */
  readonly indent: string;
  /** The body of a function is a block in braces (false: an indented block, Python). */
  readonly braces: boolean;
  /** Token types a rename may change: identifiers, type names, shorthand properties. */
  readonly identifiers: readonly string[];
  /**
   * A token that is a key and a name at once: renaming the name keeps the key — `key` writes
   * `a: b` (`{ a }`), `alias` writes `b as a` (`export { a }`); null for any other token.
   */
  shorthand(token: RuleNode): "key" | "alias" | null;
  /** Node types that open a scope for the names bound in them. */
  readonly scopes: readonly string[];
  /** Scopes that are one scope though written apart (the bodies of a TypeScript namespace declared twice): the key they share, else null. */
  scopeKey?(scope: RuleNode): string | null;
  /** The scopes a `function`-scoped binding goes to, and past which a class scope is not seen. */
  readonly functionScopes: readonly string[];
  /** Scopes whose names code in a nested function does not see (a Python class body). */
  readonly classScopes: readonly string[];
  /** Scopes that hide class scopes like functions do without being function scopes of their own (Python comprehensions). */
  readonly hidingScopes?: readonly string[];
  /** Node fields evaluated outside the function they belong to (a Python parameter's default value). */
  readonly outsideScope?: Readonly<Record<string, readonly string[]>>;
  /** Statements that move a name into another scope (Python `global`, `nonlocal`): a rename of a name they list is refused. */
  readonly scopeStatements?: readonly string[];
  /** A token that names a parameter at a call (a Python keyword argument): a parameter's or member's rename lists it, it cannot say which function it goes to. */
  keywordUse?(token: RuleNode): boolean;
  /** A key that declares a property of the object literal it is in (`{ a: 1 }`, `{ a }`): navigation's definition of it is itself. */
  literalKey?(token: RuleNode): boolean;
  /** A token that may name a member of an object of unknown type (an object key, a destructured key, a field of a literal whose type is left out): a member's rename lists it. */
  memberKey?(token: RuleNode): boolean;
  /**
   * Where the text cannot say what a name is: `bodies`, statements whose body looks a name up in an
   * object before the scopes around it (JavaScript `with`: type → the body's field), and `callee`,
   * the name of a call running code in the caller's scopes (a direct `eval`), with the test that a
   * leaf of that name is such a call's callee. A rename lists the uses they reach (and the call) as
   * unresolved and is refused unless that is accepted.
   */
  readonly dynamic?: { readonly bodies: Readonly<Record<string, string>>; readonly callee: string; isCall(token: RuleNode): boolean };
  /** Nodes that may use a name where the tree does not show it (a Rust format string `"{name}"`): a rename lists them. */
  embeddedUses?(root: RuleNode, name: string): RuleNode[];
  /** Type positions naming another module's type through a path (`pkg.Type` in Go, `m::Type` in Rust): the path and the name fields, for cross-file renames. */
  readonly qualifiedTypes?: Readonly<Record<string, { readonly object: string; readonly member: string }>>;
  /** A re-export binds the name in its module too (Rust's `pub use`), so the module's own uses follow a rename. */
  readonly reexportBinds?: boolean;
  /** Whether a name is exported by its spelling (Go's capital letter): a cross-file rename keeps it. */
  exportedByName?(name: string): boolean;
  /** The strings of the module's export list naming `name` (Python's `__all__ = ["name"]`): a rename of the module-level name rewrites them. */
  exportListNames?(root: RuleNode, name: string): RuleNode[];
  /** Why renaming a use to `newName` would change what it means (a JSX tag made lowercase is an element, not a component), or null. */
  renameProblem?(use: RuleNode, newName: string): string | null;
  /** A body's leading documentation (a Python docstring), which replace-body keeps unless the new body brings its own. */
  bodyDoc?(body: RuleNode): RuleNode | null;
  /** String literal node types that may span lines: content re-indented by an edit keeps their inner lines as written. */
  readonly strings: readonly string[];
  readonly bindings: Readonly<Record<string, BindingRule>>;
  /** Nodes a binding's names are found through (destructuring, parameter wrappers), with the children that hold names. */
  readonly patterns: Readonly<Record<string, PatternFields>>;
  /** Nodes whose contents are tokens, not a tree (a Rust macro's arguments): `a.b` there is read from the tokens' order. */
  readonly opaque: readonly string[];
  /**
   * How a use reads as a write or a call (mast_references' marks): assignment nodes → the field
   * holding their target, update nodes (`x++`), call nodes → the field holding the callee, and the
   * nodes a target may sit in on an assignment's left (destructuring, lists, parentheses).
   */
  readonly access: {
    readonly assignments: Readonly<Record<string, string>>;
    readonly updates: readonly string[];
    readonly calls: Readonly<Record<string, string>>;
    readonly nesting: readonly string[];
  };
  /** Member accesses: node type → its object and member fields (`a.b`, `a::b`). */
  readonly memberAccess: Readonly<Record<string, { readonly object: string; readonly member: string }>>;
  /**
   * A use of a name through a module path (`super::X`, `self::X`): the scope node the path names
   * (the names bound there), null when the path leads where the file cannot say (`crate::X`), or
   * undefined when the token is no such use.
   */
  pathScope(token: RuleNode): RuleNode | null | undefined;
  /** A token that is a key or another thing's name where it stands (an exported alias, a keyword argument, a field key): never a variable's use. */
  isKey(token: RuleNode): boolean;
  /** The owner a member access's object stands for when it is the instance or type itself (`this`, `self`, `Self`), else null. */
  selfOwner(object: RuleNode, ownerOf: (node: RuleNode) => string | null): string | null;
  /** The type a binding gives the name it binds when it says so plainly (`x: T`, `new T()`, `T{}`, a Python method's first parameter), else null. */
  bindingType(name: RuleNode): string | null;
  /** A field key of a literal of a type (`Server{name: …}`, `S { f }`): that type's name when `token` is one, else null. */
  literalFieldOwner(token: RuleNode): string | null;
  /** The import statements at the file's top level. */
  readonly importStatements: readonly string[];
  /** The tokens an import statement binds and how each is renamed. */
  importBindings(statement: RuleNode): ImportBinding[];
  /**
   * The tokens naming `name` as another module's export in the file's import and re-export
   * statements (`{ name }`, `{ name as b }`, `export { name } from`), each with its statement: what
   * a cross-file rename of the exported name rewrites (none in Go, whose imports name packages).
   */
  importedNameTokens(root: RuleNode, name: string): Array<{ token: RuleNode; statement: RuleNode }>;
  /**
   * add-parameter: the declaration's parameters (their count, and whether one is optional, has a
   * default or is a rest parameter, after which no required one can follow) and the edit appending
   * `text` as the last; null when the node has no parameter list the rules can extend.
   */
  parameterList?(declaration: RuleNode): { count: number; blocked: string | null; append(text: string): RuleEdit } | null;
  /**
   * add-parameter: when `node` is a call (or `new`) whose callee's own name is one of `names`, its
   * argument count and the edit appending `text`; "unplaceable" for a call whose arguments cannot
   * be counted (a spread, a tagged template); null for any other node.
   */
  callArguments?(node: RuleNode, names: readonly string[]): { count: number; append(text: string): RuleEdit } | "unplaceable" | null;
  readonly imports: ImportRules;
  /** What the operations cannot do for the language, for `ast capabilities`. */
  readonly limitations: readonly string[];
}

/** The text of the first type-name token in a node's subtree (`&mut Server` → `Server`), searched without recursion. */
export function firstTypeName(node: RuleNode | null, types: readonly string[]): string | null {
  const stack: RuleNode[] = node ? [node] : [];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (types.includes(n.type)) return n.text;
    for (let i = n.namedChildren.length - 1; i >= 0; i--) stack.push(n.namedChildren[i]!);
  }
  return null;
}

/**
 * The edit adding items after the last item of a list that spans [start, end) — `{ a, b }`, a
 * Python name list: `, x` on one line; on a list of several lines one item per line at the last
 * item's indentation, after a trailing comma when the list has one.
 */
export function appendItems(last: RuleNode, span: { readonly start: number; readonly end: number }, items: readonly string[], source: string): RuleEdit {
  if (!source.slice(span.start, span.end).includes("\n")) return { start: last.endIndex, end: last.endIndex, text: items.map((i) => `, ${i}`).join("") };
  const indent = /^[ \t]*/.exec(source.slice(source.lastIndexOf("\n", last.startIndex - 1) + 1))![0];
  const tail = source.slice(last.endIndex, span.end);
  if (tail.trimStart().startsWith(",")) {
    const comma = last.endIndex + tail.indexOf(",") + 1;
    return { start: comma, end: comma, text: items.map((i) => `\n${indent}${i},`).join("") };
  }
  return { start: last.endIndex, end: last.endIndex, text: items.map((i) => `,\n${indent}${i}`).join("") };
}

/** Whether two nodes are the same node (tree-sitter answers new objects for one node). */
export const sameNode = (a: RuleNode | null | undefined, b: RuleNode): boolean => a != null && a.startIndex === b.startIndex && a.endIndex === b.endIndex && a.type === b.type;

/** The nearest ancestor of one of the types, or null. */
export function ancestorOf(node: RuleNode, types: readonly string[]): RuleNode | null {
  for (let n = node.parent; n; n = n.parent) if (types.includes(n.type)) return n;
  return null;
}
