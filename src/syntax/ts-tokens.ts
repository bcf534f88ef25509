// The TypeScript/JavaScript whole-tree pass: one pass over the flat tree's nodes (flat-tree.ts)
// for the node types it needs — identifiers for the chunks' identifier bags; the
// call, `new` and binding nodes the call-site pass reads; `require()` / `import()` calls as import
// rows — classified by numeric type id, cached per grammar.
import type { Grammar } from "../lang/languages.js";
import { THIS_BOUNDARIES, type CallNodes } from "./calls.js";
import { stringValue } from "./es-nodes.js";
import type { FlatTree, SyntaxNode } from "./flat-tree.js";
import { BINDING_NODE_TYPES, BINDING_TEXT_CHARS, bindingSite } from "./ts-locals.js";
import type { ImportRecord } from "./types.js";

/** Leaf node types whose text is an identifier token in the identifier_fts bag. */
const IDENTIFIER_TYPES = ["identifier", "property_identifier", "type_identifier", "shorthand_property_identifier", "shorthand_property_identifier_pattern", "private_property_identifier"];

const NodeKind = { Other: 0, Identifier: 1, Call: 2, New: 3, Binding: 4, Boundary: 5, BindingBoundary: 6 } as const;
type NodeKind = (typeof NodeKind)[keyof typeof NodeKind];
/** Per grammar: node type id → what the token pass does with it, filled as ids are first seen. */
const NODE_KINDS: Partial<Record<Grammar, NodeKind[]>> = {};
/** Per grammar: node type id → its type name, for the ids the pass has seen. */
const NODE_TYPES: Partial<Record<Grammar, string[]>> = {};

/** JavaScript's `formal_parameters` binds names; TypeScript's parameters are bound one by one. */
const bindsParameters = (grammar: Grammar) => grammar === "javascript";

function kindOf(node: SyntaxNode, grammar: Grammar): NodeKind {
  // An anonymous node shares its name with a named one (the `function` and `class` keywords).
  if (!node.isNamed) return NodeKind.Other;
  const type = node.type;
  if (IDENTIFIER_TYPES.includes(type)) return NodeKind.Identifier;
  if (type === "call_expression") return NodeKind.Call;
  if (type === "new_expression") return NodeKind.New;
  const boundary = THIS_BOUNDARIES.has(type);
  if (BINDING_NODE_TYPES.has(type) && (type !== "formal_parameters" || bindsParameters(grammar))) return boundary ? NodeKind.BindingBoundary : NodeKind.Binding;
  return boundary ? NodeKind.Boundary : NodeKind.Other;
}

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

export function collectTokensAndCalls(tree: FlatTree, text: string, grammar: Grammar): TokenPass {
  const pass: TokenPass = { tokens: [], callNodes: { calls: [], bindings: [], boundaries: [] }, dynamicImports: [] };
  const nodeKinds = (NODE_KINDS[grammar] ??= []);
  const nodeTypes = (NODE_TYPES[grammar] ??= []);
  for (let i = 0; i < tree.length; i++) {
    const typeId = tree.typeId(i);
    let kind = nodeKinds[typeId];
    if (kind === undefined) {
      const node = tree.node(i);
      nodeTypes[typeId] = node.type;
      kind = nodeKinds[typeId] = kindOf(node, grammar);
    }
    if (kind === NodeKind.Other) continue;
    const start = tree.start(i);
    if (kind === NodeKind.Identifier) {
      const end = tree.end(i);
      if (end > start) pass.tokens.push({ index: start, text: text.slice(start, end) });
    } else if (kind === NodeKind.Call) {
      const call = tree.node(i);
      pass.callNodes.calls.push(call);
      // Only a call whose text starts `require` or `import` can be one (its function is its first child).
      if (text.startsWith("require", start) || text.startsWith("import", start)) {
        const imported = dynamicImportOf(call);
        if (imported) pass.dynamicImports.push(imported);
      }
    } else if (kind === NodeKind.New) {
      pass.callNodes.calls.push(tree.node(i));
    } else {
      const end = tree.end(i);
      if (kind !== NodeKind.Boundary) pass.callNodes.bindings.push(bindingSite(nodeTypes[typeId]!, start, end, text.slice(start, start + BINDING_TEXT_CHARS)));
      if (kind !== NodeKind.Binding) pass.callNodes.boundaries.push(start, end);
    }
  }
  return pass;
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
