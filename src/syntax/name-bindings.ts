// The binding analysis of one name in one file, which rename, navigation and add-import read: the
// bindings each scope holds, grouped into the variables they make, the variable each use refers
// to, member accesses, keys and module-path uses; and the owner a member access's object is known
// to be (`UseResolver`: any name's binding, each name analysed once).
import { sameNode, type BindingRule, type EditRules, type PatternFields } from "../lang/edit-rules.js";
import { contains, keyOf, visitTree, type AstDeclaration, type Walk } from "./ast-walk.js";
import type { SyntaxNode } from "./parser.js";

/** One binding of the name: its token, the node and scope that bind it, and how a rename rewrites it. */
export interface Binding {
  readonly token: SyntaxNode;
  /** The node that binds it (a sequential binding's own statement cannot see it). */
  readonly site: SyntaxNode;
  readonly kind: string;
  readonly scope: SyntaxNode;
  readonly sequential: boolean;
  readonly rebinds: boolean;
  /** How the token is rewritten: the new name, or an alias after it (`x` → `x as y`). */
  readonly rename: "replace" | "alias";
  /** The owner when the token also names a member (a Python method is bound in its class's scope). */
  member: string | null;
}

/** The bindings one scope holds of a name, as the variables they make. */
export type Group = Binding[];

/** The rename analysis of one name in one file. */
export class NameIndex {
  readonly bindings: Binding[] = [];
  readonly byScope = new Map<string, Binding[]>();
  readonly groupOf = new Map<Binding, Group>();
  readonly memberDecls: AstDeclaration[];
  readonly references: SyntaxNode[] = [];
  readonly memberRefs: Array<{ token: SyntaxNode; object: SyntaxNode }> = [];
  /** `a::x` in a macro's tokens: a path the tokens do not let the rename resolve. */
  readonly opaquePaths: SyntaxNode[] = [];
  /** Keyword arguments of the name (which function's parameter they set is not known here). */
  readonly keywordUses: SyntaxNode[] = [];
  /** Keys that may name a member of an object of unknown type. */
  readonly memberKeys: SyntaxNode[] = [];
  readonly literalKeys: Array<{ token: SyntaxNode; owner: string }> = [];
  /** Uses through a module path (`super::X`) with the scope the path names (null: one the file cannot say). */
  readonly pathUses: Array<{ token: SyntaxNode; scope: SyntaxNode | null }> = [];
  /** Scopes where two declarations of the name contend (a reference there cannot be resolved). */
  readonly conflicted = new Set<string>();

  constructor(
    private readonly rules: EditRules,
    private readonly root: SyntaxNode,
    readonly name: string,
    w: Walk,
  ) {
    this.memberDecls = w.declarations.filter((d) => d.owner !== null && d.name === name);
    const memberTokens = new Map(this.memberDecls.map((d) => [keyOf(d.nameNode), d.owner!]));
    const imported = new Map<string, "replace" | "alias">();
    for (const statement of w.imports) {
      for (const b of rules.importBindings(statement)) {
        // `use super::x` inside an inline module: the file's own `x` again, no binding of its own (read as a path use below);
        // a path out of the file (`use crate::x`, `use super::x` at the file's top) binds an import.
        const within = rules.pathScope(b.token);
        if ((b.name ?? b.token.text) !== name || (within !== undefined && within !== null)) continue;
        imported.set(keyOf(b.token as SyntaxNode), b.rename);
        this.add(b.token as SyntaxNode, statement, "import", this.scopeAbove(statement, rules.scopes), false, false, b.rename, null);
      }
    }
    for (const token of w.leaves.get(name) ?? []) {
      if (imported.has(keyOf(token))) continue;
      const owner = memberTokens.get(keyOf(token)) ?? null;
      const site = this.bindingSite(token);
      // A shorthand key (`S { f }`, `{ a }`) is a member's key as well as a variable's binding or use.
      const shorthandOwner = rules.shorthand(token) === "key" ? rules.literalFieldOwner(token) : null;
      if (shorthandOwner !== null) this.literalKeys.push({ token, owner: shorthandOwner });
      else if (rules.memberKey?.(token)) this.memberKeys.push(token);
      if (site) {
        const scope = site.rule.scope === "self" ? site.node : this.scopeAbove(site.node, site.rule.scope === "function" ? rules.functionScopes : rules.scopes);
        this.add(token, site.node, site.rule.kind, scope, site.rule.sequential === true, site.rule.rebinds === true, "replace", owner);
        continue;
      }
      if (owner !== null) continue; // a member's name: renamed with its owner's members
      const pathScope = rules.pathScope(token);
      if (pathScope !== undefined) {
        this.pathUses.push({ token, scope: pathScope as SyntaxNode | null });
        continue;
      }
      const parent = token.parent;
      if (parent && rules.opaque.includes(parent.type)) {
        // Tokens of a macro: `a.b` and `a::b` are read from their order.
        const separator = token.previousSibling;
        if (separator && (separator.type === "." || separator.type === "::")) {
          const object = separator.previousSibling;
          this.memberRefs.push({ token, object: object ?? separator });
          if (separator.type === "::") this.opaquePaths.push(token);
          continue;
        }
      }
      const access = parent ? rules.memberAccess[parent.type] : undefined;
      if (parent && access && sameNode(parent.childForFieldName(access.member), token)) {
        const object = parent.childForFieldName(access.object);
        if (object) this.memberRefs.push({ token, object });
        continue;
      }
      if (shorthandOwner === null) {
        const literalOwner = rules.literalFieldOwner(token);
        if (literalOwner !== null) {
          this.literalKeys.push({ token, owner: literalOwner });
          continue;
        }
      }
      if (rules.keywordUse?.(token)) {
        this.keywordUses.push(token);
        continue;
      }
      if (!rules.identifiers.includes(token.type) || rules.isKey(token)) continue;
      this.references.push(token);
    }
    this.group();
  }

  /** The key of a scope: its node, or the key the rules give scopes that are one (a namespace's bodies). */
  private scopeKeyOf(scope: SyntaxNode): string {
    return this.rules.scopeKey?.(scope) ?? keyOf(scope);
  }

  private add(token: SyntaxNode, site: SyntaxNode, kind: string, scope: SyntaxNode, sequential: boolean, rebinds: boolean, rename: "replace" | "alias", member: string | null): void {
    const b: Binding = { token, site, kind, scope, sequential, rebinds, rename, member };
    this.bindings.push(b);
    const k = this.scopeKeyOf(scope);
    const list = this.byScope.get(k);
    if (list) list.push(b);
    else this.byScope.set(k, [b]);
  }

  scopeAbove(node: SyntaxNode, types: readonly string[]): SyntaxNode {
    for (let n = node.parent; n; n = n.parent) if (types.includes(n.type)) return n;
    return this.root;
  }

  /** The node binding `token` (climbing through patterns), or null when the token binds nothing. */
  private bindingSite(token: SyntaxNode): { node: SyntaxNode; rule: BindingRule } | null {
    // Only names bind (a field name in `S { f: x }` is a key).
    if (!this.rules.identifiers.includes(token.type)) return null;
    let node = token;
    for (let p = node.parent; p; node = p, p = p.parent) {
      const rule = this.rules.bindings[p.type];
      if (rule && inFields(p, node, rule.fields) && (rule.where?.(p) ?? true)) return { node: p, rule };
      const pattern = this.rules.patterns[p.type];
      if (pattern === undefined || !inFields(p, node, pattern)) return null;
    }
    return null;
  }

  /** Each scope's bindings as variables: one when at most one of them declares (the rest bind it again), else one per binding. */
  private group(): void {
    for (const [k, list] of this.byScope) {
      const hoisted = list.filter((b) => !b.sequential);
      const declaring = hoisted.filter((b) => !b.rebinds);
      if (declaring.length <= 1 && hoisted.length > 0) for (const b of hoisted) this.groupOf.set(b, hoisted);
      else {
        if (declaring.length > 1) this.conflicted.add(k);
        for (const b of hoisted) this.groupOf.set(b, [b]);
      }
      // A sequential binding that rebinds (Go's `a, err := …` after `x, err := …`) joins the earlier one of the scope.
      let previous: Group | null = null;
      for (const b of list) {
        if (!b.sequential) continue;
        if (b.rebinds && previous !== null) {
          previous.push(b);
          this.groupOf.set(b, previous);
        } else this.groupOf.set(b, (previous = [b]));
      }
    }
  }

  /** The variable a use of the name refers to (null: none in the file; "conflict": contended). */
  resolve(token: SyntaxNode): Group | null | "conflict" {
    let passedFunction = false;
    // A default value is evaluated where its function is defined, not inside it.
    let outside = false;
    for (let child = token, a = token.parent; a; child = a, a = a.parent) {
      const fields = this.rules.outsideScope?.[a.type];
      if (fields && fields.some((f) => sameNode(a!.childForFieldName(f), child))) outside = true;
      if (outside && this.rules.functionScopes.includes(a.type)) {
        outside = false;
        passedFunction = true;
        continue;
      }
      if (this.rules.scopes.includes(a.type) && !(passedFunction && this.rules.classScopes.includes(a.type))) {
        const key = this.scopeKeyOf(a);
        const list = this.byScope.get(key);
        if (list) {
          const visible = list.filter((b) => b.sequential && b.token.startIndex < token.startIndex && !contains(b.site, token));
          if (visible.length > 0) return this.groupOf.get(visible[visible.length - 1]!)!;
          const hoisted = list.filter((b) => !b.sequential);
          if (hoisted.length > 0) return this.conflicted.has(key) ? "conflict" : this.groupOf.get(hoisted[0]!)!;
        }
      }
      if (this.rules.functionScopes.includes(a.type) || this.rules.hidingScopes?.includes(a.type)) passedFunction = true;
    }
    return null;
  }

  /** The distinct variables of the name, member-named ones apart. */
  variables(): Group[] {
    const seen = new Set<Group>();
    for (const b of this.bindings) if (b.member === null) seen.add(this.groupOf.get(b)!);
    return [...seen];
  }
}

function inFields(parent: SyntaxNode, child: SyntaxNode, fields: PatternFields): boolean {
  if (!child.isNamed) return false;
  if (fields === null) return true;
  if (Array.isArray(fields)) return fields.some((f) => parent.childrenForFieldName(f).some((c) => sameNode(c, child)));
  return !(fields as { except: readonly string[] }).except.some((f) => parent.childrenForFieldName(f).some((c) => sameNode(c, child)));
}

/** The owner a member access's object is known to be: itself (`this`, `self`), a type named directly, or a name bound with the type. */
export function objectOwner(rules: EditRules, uses: UseResolver, object: SyntaxNode, ownerNameOf: (n: SyntaxNode) => string | null): string | null {
  const self = rules.selfOwner(object, (n) => ownerNameOf(n as SyntaxNode));
  if (self !== null) return self;
  if (object.childCount !== 0 || !rules.identifiers.includes(object.type)) return null;
  const binding = uses.binding(object);
  if (binding === null) return null;
  // A type's own name (a static access): the binding is the owner's declaration.
  const site = binding.token.parent;
  if (site && rules.owners[site.type] && sameNode(site.childForFieldName("name"), binding.token)) return ownerNameOf(site);
  return rules.bindingType(binding.token);
}

/** What a use of any name refers to, each name analysed once (an object of a member access). */
export class UseResolver {
  private readonly indexes = new Map<string, NameIndex>();
  /** Every named leaf of the tree by its text, gathered by one walk when a name not collected up front is asked for. */
  private allLeaves: Map<string, SyntaxNode[]> | null = null;

  constructor(
    private readonly rules: EditRules,
    private readonly root: SyntaxNode,
    private readonly w: Walk,
  ) {}

  /** The binding a use refers to in the file; null when nothing in the file binds it, or it is contended. */
  binding(use: SyntaxNode): Binding | null {
    let index = this.indexes.get(use.text);
    if (!index) {
      const leaves = this.w.leaves.get(use.text) ?? (this.allLeaves ??= leavesByText(this.root)).get(use.text) ?? [];
      index = new NameIndex(this.rules, this.root, use.text, { ...this.w, leaves: new Map([[use.text, leaves]]) });
      this.indexes.set(use.text, index);
    }
    const g = index.resolve(use);
    return g === null || g === "conflict" ? null : g[0]!;
  }
}

/** The tree's named leaves by their text, by one walk (under the depth guard). */
function leavesByText(root: SyntaxNode): Map<string, SyntaxNode[]> {
  const out = new Map<string, SyntaxNode[]>();
  visitTree(
    root.walk(),
    () => true,
    (cursor) => {
      if (!cursor.nodeIsNamed) return;
      const text = cursor.nodeText;
      const list = out.get(text);
      if (list) list.push(cursor.currentNode);
      else out.set(text, [cursor.currentNode]);
    },
  );
  return out;
}
