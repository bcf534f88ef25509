// ECMAScript node-type knowledge shared by the declaration pass (typescript.ts) and call-site
// extraction (calls.ts): which nodes are function values and classes, and looking through
// `declare` wrappers. One definition, so the two passes classify a node the same way.
import type { SyntaxNode } from "./parser.js";

/** Expressions that are a function value (`const f = () => …`, `x = function () {}`). */
export const FUNCTION_VALUES: ReadonlySet<string> = new Set(["arrow_function", "function_expression", "function", "generator_function"]);
/** Class declarations and class expressions. */
export const CLASS_TYPES: ReadonlySet<string> = new Set(["class_declaration", "abstract_class_declaration", "class"]);

/** The declaration inside `declare …` (an ambient declaration); any other node as it is. */
export function unwrapAmbient(node: SyntaxNode): SyntaxNode {
  if (node.type !== "ambient_declaration") return node;
  return node.namedChildren.find((c) => c.type !== "comment") ?? node;
}
