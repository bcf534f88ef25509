// The TypeScript/JavaScript whole-tree pass: one cursor walk (node kinds cached per grammar by
// numeric type id) that gathers identifier tokens for the chunks' identifier bags, the call, `new`
// and binding nodes the call-site pass reads, and `require()` / `import()` calls as import rows.
import type { Grammar } from "../lang/languages.js";
import { BINDING_NODE_TYPES, BINDING_TEXT_CHARS, THIS_BOUNDARIES, bindingSite, type CallNodes } from "./calls.js";
import { stringValue } from "./es-nodes.js";
import type { SyntaxNode, Tree } from "./parser.js";
import type { ImportRecord } from "./types.js";

/**
 * Named nodes whose subtree holds no identifier, call or binding: a string's fragments and
 * escapes, a comment, a number, a regex's pattern and flags. (A template string holds
 * substitutions, so it is walked.)
 */
const LEAF_TYPES = new Set(["string", "comment", "number", "regex", "html_comment", "escape_sequence", "string_fragment"]);

/** Leaf node types whose text is an identifier token in the identifier_fts bag. */
const IDENTIFIER_TYPES = new Set([
  "identifier",
  "property_identifier",
  "type_identifier",
  "shorthand_property_identifier",
  "shorthand_property_identifier_pattern",
  "private_property_identifier",
]);

const NodeKind = { Other: 0, Identifier: 1, Call: 2, New: 3, Binding: 4, Boundary: 5, BindingBoundary: 6, Leaf: 7 } as const;
type NodeKind = (typeof NodeKind)[keyof typeof NodeKind];
/** Per grammar: node type id → what the token pass does with it, filled as ids are first seen. */
const NODE_KINDS: Partial<Record<Grammar, NodeKind[]>> = {};


export interface Token {
  index: number;
  text: string;
}

export interface TokenPass {
  /** Identifier tokens in document order. */
  readonly tokens: Token[];
  readonly callNodes: CallNodes;
  /** `require(…)` and `import(…)` calls of a string, in document order. */
  readonly dynamicImports: ImportRecord[];
}

export function collectTokensAndCalls(tree: Tree, text: string, grammar: Grammar): TokenPass {
  const pass: TokenPass = { tokens: [], callNodes: { calls: [], bindings: [], boundaries: [] }, dynamicImports: [] };
  const nodeKinds = (NODE_KINDS[grammar] ??= []);
  const cursor = tree.walk();
  for (;;) {
    // Classify by numeric type id (cached per grammar): far cheaper than the type name per node.
    const typeId = cursor.nodeTypeId;
    let kind = nodeKinds[typeId];
    if (kind === undefined) {
      const type = cursor.nodeType;
      kind = nodeKinds[typeId] = IDENTIFIER_TYPES.has(type)
        ? NodeKind.Identifier
        : !cursor.nodeIsNamed || LEAF_TYPES.has(type)
          ? NodeKind.Leaf
        : type === "call_expression"
          ? NodeKind.Call
          : type === "new_expression"
            ? NodeKind.New
            : BINDING_NODE_TYPES.has(type) && (type !== "formal_parameters" || grammar === "javascript")
              ? THIS_BOUNDARIES.has(type)
                ? NodeKind.BindingBoundary
                : NodeKind.Binding
              : THIS_BOUNDARIES.has(type)
                ? NodeKind.Boundary
                : NodeKind.Other;
    }
    if (kind === NodeKind.Identifier) {
      const start = cursor.startIndex;
      const end = cursor.endIndex;
      // A MISSING identifier (error recovery) is zero-width: no token.
      if (end > start) pass.tokens.push({ index: start, text: text.slice(start, end) });
    } else if (kind === NodeKind.Call) {
      const call = cursor.currentNode;
      pass.callNodes.calls.push(call);
      // Only a call whose text starts `require` or `import` can be one (its function is its first child).
      const start = cursor.startIndex;
      if (text.startsWith("require", start) || text.startsWith("import", start)) {
        const imported = dynamicImportOf(call);
        if (imported) pass.dynamicImports.push(imported);
      }
    } else if (kind === NodeKind.New) {
      pass.callNodes.calls.push(cursor.currentNode);
    } else if (kind !== NodeKind.Other && kind !== NodeKind.Leaf) {
      const start = cursor.startIndex;
      const end = cursor.endIndex;
      if (kind !== NodeKind.Boundary) pass.callNodes.bindings.push(bindingSite(cursor.nodeType, start, end, text.slice(start, start + BINDING_TEXT_CHARS)));
      if (kind !== NodeKind.Binding) pass.callNodes.boundaries.push(start, end);
    }
    // Identifiers, anonymous tokens and the leaf-like nodes below have no children worth a visit.
    if (kind !== NodeKind.Identifier && kind !== NodeKind.Leaf && cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) return pass;
    }
  }
}

/** A `require(…)` or `import(…)` call of a string as an import row, or null. */
function dynamicImportOf(call: SyntaxNode): ImportRecord | null {
  const fn = call.childForFieldName("function");
  if (!fn) return null;
  const isRequire = fn.type === "identifier" && fn.text === "require";
  if (!isRequire && fn.type !== "import") return null;
  const arg = call.childForFieldName("arguments")?.firstNamedChild;
  if (!arg || arg.type !== "string") return null;
  return { module: stringValue(arg), names: [], locals: [], kind: isRequire ? "require" : "dynamic_import", line: call.startPosition.row + 1 };
}

/** Distinct identifier tokens between two offsets, minus the excluded ranges (sorted, disjoint). */
export function bagOf(tokens: readonly Token[], excluded: ReadonlyArray<[number, number]>, from: number, to: number): string[] {
  const seen = new Set<string>();
  let x = 0;
  for (let i = lowerBound(tokens, from); i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (tok.index >= to) break;
    while (x < excluded.length && excluded[x]![1] <= tok.index) x++;
    if (x < excluded.length && tok.index >= excluded[x]![0]) continue;
    seen.add(tok.text);
  }
  return [...seen];
}

function lowerBound(tokens: readonly Token[], offset: number): number {
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokens[mid]!.index < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
