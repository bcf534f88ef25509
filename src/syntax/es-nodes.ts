// ECMAScript node knowledge shared by the declaration pass (typescript.ts) and call-site
// extraction (calls.ts): which nodes are function values and classes, looking through `declare`
// and `export` wrappers, parameters, doc comments, overloads and export specifiers. One
// definition, so every pass reads a node the same way. Pure functions of nodes.
import { collapseWhitespace } from "../base/text.js";
import type { SyntaxNode } from "./flat-tree.js";
import type { ParamRecord } from "./types.js";

/** Expressions that are a function value (`const f = () => …`, `x = function () {}`). */
export const FUNCTION_VALUES: ReadonlySet<string> = new Set(["arrow_function", "function_expression", "function", "generator_function"]);
/** Class declarations and class expressions. */
export const CLASS_TYPES: ReadonlySet<string> = new Set(["class_declaration", "abstract_class_declaration", "class"]);

/**
 * The named type of an annotation: `Foo` or `Foo<T>`, also `Foo | undefined` and `Foo | null`
 * (a method call on it is one on `Foo`); null for other unions, arrays, literals and the like.
 */
export function namedType(annotation: SyntaxNode | null): string | null {
  const t = annotation?.type === "type_annotation" ? annotation.namedChildren[0] : annotation;
  if (!t) return null;
  if (t.type === "type_identifier") return t.text;
  if (t.type === "union_type") {
    // `A | B | C` nests as `(A | B) | C`.
    const members: SyntaxNode[] = [];
    const flatten = (u: SyntaxNode) => {
      for (const m of u.namedChildren)
        if (m.type === "union_type") flatten(m);
        else members.push(m);
    };
    flatten(t);
    const rest = members.filter((m) => !(m.type === "literal_type" && (m.text === "undefined" || m.text === "null")));
    return rest.length === 1 ? namedType(rest[0]!) : null;
  }
  if (t.type === "generic_type") {
    const name = t.childForFieldName("name");
    return name?.type === "type_identifier" ? name.text : null;
  }
  return null;
}

/** How a value's type was read: from its annotation, or from the `new` that makes it. */
export type InstanceType = { readonly type: string; readonly resolution: "parameter_type" | "new_expression" };

/**
 * The class a variable or field holds an instance of (docs/decisions.md, "Instances made with
 * `new`"): its annotation's named type, as the checker declares it; else the class a plain
 * `new C(…)` initializer names (`new C<T>()` too). `new` behind `??`, `||`, a call or an
 * assignment is not read: the other operand's type is the checker's to infer. Null otherwise.
 */
export function instanceType(node: SyntaxNode): InstanceType | null {
  const annotated = namedType(node.childForFieldName("type"));
  if (annotated) return { type: annotated, resolution: "parameter_type" };
  const value = node.childForFieldName("value");
  const ctor = value?.type === "new_expression" ? value.childForFieldName("constructor") : null;
  return ctor?.type === "identifier" ? { type: ctor.text, resolution: "new_expression" } : null;
}

/** The declaration inside `declare …` (an ambient declaration); any other node as it is. */
export function unwrapAmbient(node: SyntaxNode): SyntaxNode {
  if (node.type !== "ambient_declaration") return node;
  return node.namedChildren.find((c) => c.type !== "comment") ?? node;
}

/** Parameters of a function-like node: `(a: T, b?: U, ...rest)` or an arrow's lone `x`. */
export function paramsOf(fn: SyntaxNode): ParamRecord[] {
  const lone = fn.childForFieldName("parameter");
  if (lone) return [{ name: lone.text, type: null, optional: false }];
  const list = fn.childForFieldName("parameters");
  if (!list) return [];
  const out: ParamRecord[] = [];
  for (const p of list.namedChildren) {
    switch (p.type) {
      case "required_parameter":
      case "optional_parameter": {
        const pattern = p.childForFieldName("pattern");
        const type = p.childForFieldName("type");
        const name = collapseWhitespace(pattern?.text ?? p.text);
        out.push({
          name,
          type: type ? collapseWhitespace(type.text.replace(/^:\s*/, "")) : null,
          optional: p.type === "optional_parameter" || p.childForFieldName("value") !== null || name.startsWith("..."),
        });
        break;
      }
      case "identifier":
        out.push({ name: p.text, type: null, optional: false });
        break;
      case "assignment_pattern":
        out.push({ name: collapseWhitespace(p.childForFieldName("left")?.text ?? p.text), type: null, optional: true });
        break;
      case "rest_pattern":
        out.push({ name: collapseWhitespace(p.text), type: null, optional: true });
        break;
      case "comment":
        break;
      default:
        out.push({ name: collapseWhitespace(p.text), type: null, optional: false });
    }
  }
  return out;
}

/** The declaration inside an export/ambient wrapper, or the statement itself. */
export function declarationOf(stmt: SyntaxNode): SyntaxNode | null {
  if (stmt.type === "export_statement") {
    const d = stmt.childForFieldName("declaration");
    return d ? unwrapAmbient(d) : null;
  }
  return unwrapAmbient(stmt);
}

/** The trailing comments that touch `node` (no blank line between), i.e. its doc comment run. */
export function attachedDoc(comments: SyntaxNode[], node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  let nextStart = node.startPosition.row;
  for (let i = comments.length - 1; i >= 0; i--) {
    const c = comments[i]!;
    if (c.endPosition.row + 1 < nextStart || !isDocComment(c)) break;
    out.unshift(c);
    nextStart = c.startPosition.row;
  }
  return out;
}

/** The non-comment nodes of a list, each with the doc comments attached right above it (`attachedDoc`). */
export function withDocComments(nodes: readonly SyntaxNode[]): Array<{ node: SyntaxNode; doc: SyntaxNode[] }> {
  const out: Array<{ node: SyntaxNode; doc: SyntaxNode[] }> = [];
  let pending: SyntaxNode[] = [];
  for (const node of nodes) {
    if (node.type === "comment") {
      pending.push(node);
      continue;
    }
    out.push({ node, doc: attachedDoc(pending, node).filter(isDocComment) });
    pending = [];
  }
  return out;
}

/**
 * When class member `i` is a method overload signature: the index of the implementation its run of
 * same-name overloads ends in (skipping comments and decorators in between), else -1.
 */
export function overloadImplementation(members: SyntaxNode[], i: number): number {
  const name = members[i]!.childForFieldName("name")?.text;
  for (let k = i + 1; k < members.length; k++) {
    const n = members[k]!;
    if (n.type === "comment" || n.type === "decorator") continue;
    if (n.type === "method_signature" && n.childForFieldName("name")?.text === name) continue;
    return n.type === "method_definition" && n.childForFieldName("name")?.text === name ? k : -1;
  }
  return -1;
}

/** Docs are `/** ... *\/` blocks or `//` line comments (docs/extraction.md#symbols-and-signatures); plain `/* *\/` blocks are not. */
export function isDocComment(node: SyntaxNode): boolean {
  const t = node.text;
  return t.startsWith("/**") || t.startsWith("//");
}

export function exportSpecifiers(clause: SyntaxNode): Array<{ local: string; exported: string }> {
  const out: Array<{ local: string; exported: string }> = [];
  for (const spec of clause.namedChildren) {
    if (spec.type !== "export_specifier") continue;
    const nameNode = spec.childForFieldName("name");
    if (!nameNode) continue;
    const local = nameNode.type === "string" ? stringValue(nameNode) : nameNode.text;
    const aliasNode = spec.childForFieldName("alias");
    const exported = aliasNode ? (aliasNode.type === "string" ? stringValue(aliasNode) : aliasNode.text) : local;
    out.push({ local, exported });
  }
  return out;
}

export function stringValue(node: SyntaxNode): string {
  const t = node.text;
  return t.length >= 2 && (t[0] === '"' || t[0] === "'" || t[0] === "`") ? t.slice(1, -1) : t;
}

/** Last line of a node; a node ending at column 0 ends on the previous line. */
export function endLineOf(node: SyntaxNode): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}
