// What each occurrence of a name in a file is, as navigation reads it — declaration, binding, use
// with the binding it refers to, member access with its object's owner, key — and whether it is
// read, written or called; and the name token at a position. On the rename's binding analysis.
import { lineStarts } from "../base/text.js";
import { sameNode, type DeclarationKind, type EditRules } from "../lang/edit-rules.js";
import { keyOf, walk } from "./ast-walk.js";
import { NameIndex, objectOwner, UseResolver, type Binding, type Group } from "./name-bindings.js";
import type { SyntaxNode, Tree } from "./parser.js";

// ---- navigation: what each occurrence of a name is ----

/** A position in the text: 1-based line and column (columns count UTF-16 code units, as JavaScript strings do). */
export interface TextPosition {
  readonly line: number;
  readonly column: number;
}

/** The binding a use of a name refers to in its file (its first binding when it is bound more than once). */
export interface SiteBinding extends TextPosition {
  /** How it is bound (`parameter`, `variable_declarator`, `import`, `function_declaration`, ...). */
  readonly kind: string;
  /** Bound in the file's top scope (other files may name it), not inside a function or block. */
  readonly fileLevel: boolean;
}

/** One occurrence of a name in a file, as navigation reads it. */
export interface NameSite extends TextPosition {
  /** declaration: a declaration's name (a member's too); binding: another binding (a parameter, a local, an import); use: a use of a variable; member: the member of an access (`o.name`); key: an object or literal key, a keyword argument. */
  readonly role: "declaration" | "binding" | "use" | "member" | "key";
  /** A declaration's kind and owner (the type a member belongs to). */
  readonly declared: { readonly kind: DeclarationKind; readonly owner: string | null } | null;
  /** What a declaration, binding or use refers to in the file; null when nothing in the file binds it; "conflict" when two declarations contend. */
  readonly binding: SiteBinding | null | "conflict";
  /** A member access's (or a literal key's) owner when the file says it: `this`, the type itself, a name annotated with or constructed as the type. */
  readonly owner: string | null;
  /** A member access whose object is a plain name: that name and its binding in the file (an imported module or package: `ns.f`). */
  readonly object: { readonly name: string; readonly binding: SiteBinding | null } | null;
  /** A key declaring a property of the object literal it is in (EditRules.literalKey). */
  readonly literal: boolean;
  /** write: an assignment's target, `x++`, a destructuring assignment's target, `o.f = …`; call: the callee of a call or `new`; declaration: a declaration or binding that is none of those. */
  readonly access: "read" | "write" | "call" | "declaration";
}

function positionOf(starts: readonly number[], index: number): TextPosition {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= index) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: index - starts[lo]! + 1 };
}

/** Whether a token (or the access it is the member of) is written, called or read where it stands. */
function accessOf(rules: EditRules, token: SyntaxNode): "read" | "write" | "call" {
  const { assignments, updates, calls, nesting } = rules.access;
  let node = token;
  const up = node.parent;
  const access = up ? rules.memberAccess[up.type] : undefined;
  if (up && access && sameNode(up.childForFieldName(access.member), token)) node = up;
  const direct = node.parent;
  if (direct) {
    const callee = calls[direct.type];
    if (callee && sameNode(direct.childForFieldName(callee), node)) return "call";
  }
  for (let p = node.parent; p; node = p, p = p.parent) {
    if (updates.includes(p.type)) return "write";
    const left = assignments[p.type];
    if (left) return p.childrenForFieldName(left).some((c) => sameNode(c, node)) ? "write" : "read";
    if (!nesting.includes(p.type)) return "read";
  }
  return "read";
}

/**
 * Every occurrence of `name` in a file — declarations (members with their owner), bindings, uses
 * with the binding they refer to, member accesses with their object's owner when the file says it,
 * keys — each with its position and whether it is read, written or called. Occurrences inside
 * strings and comments are not tokens and are not listed; below the depth guard `truncated` says
 * some were not seen.
 */
export function nameSites(rules: EditRules, tree: Tree, text: string, name: string): { sites: NameSite[]; truncated: boolean } {
  const w = walk(rules, tree, [name]);
  const index = new NameIndex(rules, tree.rootNode, name, w);
  const uses = new UseResolver(rules, tree.rootNode, w);
  const ownerNameOf = (n: SyntaxNode): string | null => rules.owners[n.type]?.name(n) ?? null;
  const starts = lineStarts(text);
  const at = (n: SyntaxNode): TextPosition => positionOf(starts, n.startIndex);
  const bindingOf = (b: Binding): SiteBinding => ({ ...at(b.token), kind: b.kind, fileLevel: sameNode(b.scope, tree.rootNode) });
  const groupBinding = (g: Group | null | "conflict"): SiteBinding | null | "conflict" =>
    g === null || g === "conflict" ? g : bindingOf([...g].sort((a, b) => a.token.startIndex - b.token.startIndex)[0]!);
  const declared = new Map(w.declarations.filter((d) => d.name === name).map((d) => [keyOf(d.nameNode), d]));
  const bound = new Map(index.bindings.map((b) => [keyOf(b.token), b]));
  const memberRefs = new Map(index.memberRefs.map((r) => [keyOf(r.token), r.object]));
  const keys = new Set([...index.memberKeys, ...index.keywordUses, ...index.literalKeys.map((k) => k.token)].map(keyOf));
  const literalOwners = new Map(index.literalKeys.map((k) => [keyOf(k.token), k.owner]));
  const references = new Set(index.references.map(keyOf));
  const sites: NameSite[] = [];
  for (const token of w.leaves.get(name) ?? []) {
    const key = keyOf(token);
    const decl = declared.get(key);
    const binding = bound.get(key);
    const base = { ...at(token), declared: null, binding: null, owner: null, object: null, literal: rules.literalKey?.(token) === true };
    const written = accessOf(rules, token);
    if (decl || binding) {
      const group = binding ? (index.groupOf.get(binding) ?? null) : null;
      sites.push({
        ...base,
        role: decl ? "declaration" : "binding",
        declared: decl ? { kind: decl.kind, owner: decl.owner } : null,
        binding: group ? groupBinding(group) : null,
        owner: decl?.owner ?? null,
        access: written === "write" ? "write" : "declaration",
      });
      continue;
    }
    const object = memberRefs.get(key);
    if (object !== undefined) {
      const plain = object.childCount === 0 && rules.identifiers.includes(object.type) ? uses.binding(object) : null;
      sites.push({
        ...base,
        role: "member",
        owner: objectOwner(rules, uses, object, ownerNameOf),
        object: object.childCount === 0 ? { name: object.text, binding: plain ? bindingOf(plain) : null } : null,
        access: written,
      });
      continue;
    }
    if (keys.has(key)) {
      // A literal's field key (`T{f: x}`, `S { f }`) initialises the field: a write.
      const literalOwner = literalOwners.get(key) ?? null;
      sites.push({ ...base, role: "key", owner: literalOwner, access: literalOwner === null ? written : "write" });
      continue;
    }
    if (references.has(key)) sites.push({ ...base, role: "use", binding: groupBinding(index.resolve(token)), access: written });
    // Any other name token (a method name in an object literal, a label): a key of something the file cannot say.
    else if (isNameToken(rules, token)) sites.push({ ...base, role: "key", access: written });
  }
  return { sites, truncated: w.truncated };
}

/**
 * The name token at a position: a named leaf that is an identifier (a name, a type name, a member
 * or field name) spanning the column — or ending just before it, as editors place a caret after
 * a word; null when the position is on no name.
 */
export function nameTokenAt(rules: EditRules, tree: Tree, text: string, position: TextPosition): { name: string; line: number; column: number } | null {
  const starts = lineStarts(text);
  const lineStart = starts[position.line - 1];
  if (lineStart === undefined) return null;
  const index = lineStart + position.column - 1;
  const isName = (n: SyntaxNode | null): n is SyntaxNode => n !== null && n.isNamed && n.childCount === 0 && n.endIndex > n.startIndex && isNameToken(rules, n);
  for (const i of [index, index - 1]) {
    if (i < lineStart) continue;
    const node = tree.rootNode.descendantForIndex(i, i);
    if (isName(node) && node.startIndex <= i && i < node.endIndex) return { name: node.text, ...positionOf(starts, node.startIndex) };
  }
  return null;
}

/** A leaf that names something (an identifier, a type, field or property name), not a string's or comment's text. */
function isNameToken(rules: EditRules, n: SyntaxNode): boolean {
  return (rules.identifiers.includes(n.type) || /identifier/.test(n.type)) && !rules.strings.includes(n.type);
}
