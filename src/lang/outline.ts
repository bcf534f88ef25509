// Outline rules: how a language read at breadth (Java, C, C++, C#, Ruby, PHP) turns its syntax
// tree into declarations, members, docs, imports and call sites — the data (and the few small
// functions over nodes) that syntax/outline.ts runs. A node is seen through `RuleNode`, the part
// of a tree-sitter node the rules read, so this layer needs no parser.

/** The part of a syntax node the rules read (a tree-sitter SyntaxNode has all of it). */
export interface RuleNode {
  readonly type: string;
  readonly text: string;
  readonly namedChildren: readonly RuleNode[];
  readonly children: readonly RuleNode[];
  readonly parent: RuleNode | null;
  readonly startIndex: number;
  readonly endIndex: number;
  childForFieldName(name: string): RuleNode | null;
  childrenForFieldName(name: string): RuleNode[];
}

export interface RuleParam {
  readonly name: string;
  readonly type: string | null;
  readonly optional: boolean;
}

export interface DeclarationRule {
  readonly kind: "function" | "class" | "interface" | "type" | "enum" | "namespace" | "const" | "variable";
  readonly chunk: "function" | "class_shell" | "interface" | "type" | "block";
  /**
   * The declared name, and for a member defined outside its class (`int Widget::draw() {…}`) the
   * class it belongs to; null when the node declares nothing after all (a C declaration of a variable).
   */
  name(node: RuleNode): { name: string; owner?: string } | null;
  /** The field holding the members (a class body): its declarations are `Owner.member`. */
  readonly members?: string;
  /** The field holding the body: the signature is the text before it. */
  readonly body?: string;
  heritage?(node: RuleNode): { extends: string | null; implements: string[] };
  params?(node: RuleNode): RuleParam[];
  returnType?(node: RuleNode): string | null;
}

/** A call as the rules read it: the called name's node and what its receiver is (null: a receiver the rules cannot name, potential only). */
export interface CallShape {
  readonly name: RuleNode;
  readonly receiver: { readonly kind: "bare" } | { readonly kind: "this" } | { readonly kind: "static"; readonly className: string };
  /** An instance creation (`new T()`): a call of the class. */
  readonly isNew?: boolean;
}

export interface OutlineImport {
  readonly module: string;
  /** `*` with no local: every name the target declares comes into scope (`#include`, `require`). */
  readonly names: readonly string[];
  readonly locals: readonly string[];
}

export interface OutlineRules {
  /** Node types of identifier tokens (the chunks' identifier bags). */
  readonly tokens: readonly string[];
  /** Comment node types; the comments directly above a declaration are its doc. */
  readonly comments: readonly string[];
  /** Containers read as the level they sit in (namespaces, templates, linkage blocks): node type → the field holding the children (null: the node's own children). */
  readonly transparent: Readonly<Record<string, string | null>>;
  /** Node types that are neither declarations nor code of their own (a template's parameter list): left out of chunks. */
  readonly ignored?: readonly string[];
  readonly declarations: Readonly<Record<string, DeclarationRule>>;
  /** Call node types → the call's shape, or null when the node is no call the rules read. */
  readonly calls: Readonly<Record<string, (node: RuleNode) => CallShape | null>>;
  /** The imports a node at the top level makes (an include, an import declaration, a `require`), or null. */
  imports(node: RuleNode): OutlineImport[] | null;
  /** Node types inside a function whose code has another `this` (anonymous and local classes): their `this` and implicit calls are not the enclosing class's. */
  readonly innerScopes?: readonly string[];
  /** A bare `m()` inside a method may name a member of its class (Java, C++, C#, Ruby); false where it names a function only (PHP). */
  readonly implicitMembers: boolean;
  /**
   * A class body's access sections (C++ `public:`, Ruby's bare `private`): the section a body
   * starts in, and the section a member node opens (null: it opens none). Absent where members say
   * their own visibility.
   */
  readonly sections?: { initial(body: RuleNode): string; opens(member: RuleNode): string | null };
  /** Whether a declaration is exported: a top-level one (`ownerExported` null) or a member of a class that is (or is not), in `section` when the language has sections. */
  exported(node: RuleNode, ownerExported: boolean | null, section: string | null): boolean;
}

// ---- helpers the rule files share ----

export function fieldText(node: RuleNode, name: string): string | null {
  return node.childForFieldName(name)?.text ?? null;
}

/** The node's named children of one of the types. */
export function childrenOf(node: RuleNode | null, ...types: string[]): RuleNode[] {
  return (node?.namedChildren ?? []).filter((c) => types.includes(c.type));
}

/** The text of the node's first named child of one of the types (a modifier list, a name). */
export function childText(node: RuleNode, ...types: string[]): string | null {
  return node.namedChildren.find((c) => types.includes(c.type))?.text ?? null;
}

/** The last `.`/`::`/`\` segment of a qualified type name, generic arguments dropped: `a.b.C<T>` → `C`. */
export function lastSegment(text: string): string {
  const bare = text.replace(/<.*$/s, "").trim();
  return bare.split(/::|\.|\\/).pop()!.trim();
}

