// What every AST edit shares: one cursor walk of a tree under the depth guard (MAX_AST_DEPTH; a
// walk that stopped there says so: `truncated`) gathering declarations (find-symbols), the leaves
// of the names asked for and the import statements; the declarations a query names and the errors
// when it names none or several; text edits and applying them. Every language's node knowledge
// comes from its spec's `EditRules` (lang/edit-rules.ts); nothing here names a language.
import { MastError } from "../base/errors.js";
import { sameNode, type DeclarationKind, type EditRules } from "../lang/edit-rules.js";
import type { SyntaxNode, Tree, TreeCursor } from "./parser.js";

/** The runaway depth guard every AST walk shares: deeper subtrees are not visited (`truncated`). */
export const MAX_AST_DEPTH = 200;

/** A change to the text: characters [start, end) become `text`. */
export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export interface AstDeclaration {
  readonly name: string;
  /** `Owner.name` for a member, else the name. */
  readonly qualifiedName: string;
  readonly owner: string | null;
  readonly kind: DeclarationKind;
  readonly node: SyntaxNode;
  readonly nameNode: SyntaxNode;
  /** The statement the declaration is (its wrappers included: `export`, decorators, the declarator's statement). */
  readonly anchor: SyntaxNode;
}

/** What one walk of a tree found. */
export interface Walk {
  readonly declarations: AstDeclaration[];
  /** Leaves whose text is one of the names asked for, by name. */
  readonly leaves: Map<string, SyntaxNode[]>;
  /** Statements of the import types. */
  readonly imports: SyntaxNode[];
  readonly truncated: boolean;
}

/** A node's identity in its tree: its span and type. */
export const keyOf = (n: SyntaxNode): string => `${n.startIndex}:${n.endIndex}:${n.type}`;

/**
 * Visits a tree's nodes in document order through one cursor, no deeper than MAX_AST_DEPTH:
 * `enter` sees each node at the cursor and says whether to go into it, `leaf` each node without
 * children. Answers whether the guard left a subtree unvisited.
 */
export function visitTree(cursor: TreeCursor, enter: (c: TreeCursor) => boolean, leaf: (c: TreeCursor) => void = () => {}): boolean {
  let depth = 0;
  let truncated = false;
  for (;;) {
    if (enter(cursor)) {
      if (depth < MAX_AST_DEPTH && cursor.gotoFirstChild()) {
        depth++;
        continue;
      }
      if (depth >= MAX_AST_DEPTH && cursor.currentNode.childCount > 0) truncated = true;
      else leaf(cursor);
    }
    for (;;) {
      if (cursor.gotoNextSibling()) break;
      if (!cursor.gotoParent()) return truncated;
      depth--;
    }
  }
}

/**
 * One walk: declarations, the leaves named `names`, import statements. Nodes are read through
 * the cursor (type, span) and made objects only where they are kept.
 */
export function walk(rules: EditRules, tree: Tree, names: readonly string[] = []): Walk {
  const declarations: AstDeclaration[] = [];
  const leaves = new Map<string, SyntaxNode[]>(names.map((n) => [n, []]));
  const lengths = new Set(names.map((n) => n.length));
  const imports: SyntaxNode[] = [];
  const truncated = visitTree(
    tree.walk(),
    (cursor) => {
      const type = cursor.nodeType;
      const rule = rules.declarations[type];
      if (rule && cursor.nodeIsNamed) {
        const node = cursor.currentNode;
        if (rule.where?.(node) ?? true) for (const nameNode of nameNodes(rule.name, node)) declarations.push(declaration(rules, node, nameNode, rule.kind));
      }
      if (rules.importStatements.includes(type)) imports.push(cursor.currentNode);
      return true;
    },
    (cursor) => {
      if (!cursor.nodeIsNamed || !lengths.has(cursor.endIndex - cursor.startIndex)) return;
      leaves.get(cursor.nodeText)?.push(cursor.currentNode);
    },
  );
  return { declarations, leaves, imports, truncated };
}

function nameNodes(name: EditRules["declarations"][string]["name"], node: SyntaxNode): SyntaxNode[] {
  if (typeof name === "function") return name(node) as SyntaxNode[];
  const found = node.childForFieldName(name ?? "name");
  return found ? [found] : [];
}

function declaration(rules: EditRules, node: SyntaxNode, nameNode: SyntaxNode, kind: EditRules["declarations"][string]["kind"]): AstDeclaration {
  const anchor = anchorOf(rules, node);
  const owner = rules.declarations[node.type]!.ownerName?.(node) ?? ownerOf(rules, anchor);
  const name = nameNode.text;
  const resolved = typeof kind === "function" ? kind(node) : kind;
  return { name, qualifiedName: owner ? `${owner}.${name}` : name, owner, kind: owner && resolved === "function" ? "method" : resolved, node, nameNode, anchor };
}

/** The declaration with its wrappers: the outermost node of the wrapper types around it. */
function anchorOf(rules: EditRules, node: SyntaxNode): SyntaxNode {
  let anchor = node;
  while (anchor.parent && rules.wrappers.includes(anchor.parent.type)) anchor = anchor.parent;
  return anchor;
}

/** The owner whose member list holds the anchor (a class body, a struct's fields), within a few levels. */
function ownerOf(rules: EditRules, anchor: SyntaxNode): string | null {
  const container = anchor.parent;
  if (!container) return null;
  let up: SyntaxNode | null = container;
  for (let i = 0; i < 3 && up; i++, up = up.parent) {
    const owner = rules.owners[up.type];
    if (owner && sameNode(owner.members(up) as SyntaxNode | null, container)) return owner.name(up);
  }
  return null;
}

// ---- find-symbols ----

export interface FoundSymbol {
  name: string;
  qualifiedName: string;
  /** The declaring node's type (`function_declaration`). */
  kind: string;
  symbolKind: DeclarationKind;
  startRow: number;
  endRow: number;
  startCol: number;
  endCol: number;
  startLine: number;
  endLine: number;
  startColumn: number;
  endColumn: number;
}

export function findSymbols(rules: EditRules, tree: Tree): { symbols: FoundSymbol[]; truncated: boolean } {
  const { declarations, truncated } = walk(rules, tree);
  return {
    symbols: declarations.map((d) => {
      const { startPosition: s, endPosition: e } = d.node;
      return {
        name: d.name,
        qualifiedName: d.qualifiedName,
        kind: d.node.type,
        symbolKind: d.kind,
        startRow: s.row,
        endRow: e.row,
        startCol: s.column,
        endCol: e.column,
        startLine: s.row + 1,
        endLine: e.row + 1,
        startColumn: s.column + 1,
        endColumn: e.column + 1,
      };
    }),
    truncated,
  };
}

// ---- lookup ----

/** `Owner.member` (or `Owner::member`) → its parts; a bare name has no owner. */
export function splitQualified(query: string): { owner: string | null; name: string } {
  const m = /^(.+?)(?:\.|::)([^.:]+)$/.exec(query);
  return m ? { owner: m[1]!, name: m[2]! } : { owner: null, name: query };
}

/** The declarations a query names (`name` or `Owner.name`), only the one starting on `line` when given. */
export function matching(declarations: readonly AstDeclaration[], query: string, line: number | null = null): AstDeclaration[] {
  const { owner, name } = splitQualified(query);
  return declarations.filter((d) => d.name === name && (owner === null || d.owner === owner) && (line === null || lineOf(d.node) === line || lineOf(d.nameNode) === line || lineOf(d.anchor) === line));
}

export const lineOf = (n: SyntaxNode): number => n.startPosition.row + 1;
export const listing = (ds: readonly AstDeclaration[]): string => ds.map((d) => `${d.node.type} at line ${lineOf(d.node)}`).join(", ");

/** SEARCH_TRUNCATED, not SYMBOL_NOT_FOUND, when the walk stopped early: "I stopped looking" is not "it is not there". */
export function notFound(query: string, truncated: boolean, extra = ""): MastError {
  if (truncated)
    return new MastError("SEARCH_TRUNCATED", `no declaration named '${query}' was found above the depth guard (${MAX_AST_DEPTH} levels); deeper code was not searched, so it may be there`);
  return new MastError("SYMBOL_NOT_FOUND", `no declaration named '${query}' in the file${extra}`, { hint: "List the file's declarations with `ast find-symbols`; a member is named `Owner.member`." });
}

export function ambiguous(query: string, ds: readonly AstDeclaration[]): MastError {
  return new MastError("AMBIGUOUS_SYMBOL", `'${query}' names ${ds.length} declarations: ${listing(ds)}`, {
    hint: "Name a member as `Owner.member`, or pass the line the declaration starts on (line).",
    details: { candidates: ds.map((d) => ({ kind: d.node.type, line: lineOf(d.node), name: d.qualifiedName })) },
  });
}

/** Whether `inner` lies within `outer`'s span. */
export const contains = (outer: SyntaxNode, inner: SyntaxNode): boolean => inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;

// ---- text edits ----

/** Applies non-overlapping edits (sorted or not) to a text. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) throw new Error(`overlapping edits at ${e.start}`);
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}
