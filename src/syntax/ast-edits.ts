// hashpilot's AST edits as pure functions of (rules, tree, text) → text edits: the declarations a
// file has (find-symbols), a body replaced and re-indented, content inserted before or after a
// declaration, a binding-aware, file-scoped rename, and imports added (merged into a statement of
// their module) and removed. Every language's node knowledge comes from
// its spec's `EditRules` (lang/edit-rules.ts); nothing here names a language. Trees are walked
// with a cursor under MAX_AST_DEPTH, and a walk that stopped there says so (`truncated`).
import { MastError } from "../base/errors.js";
import { lineStarts } from "../base/text.js";
import { sameNode, type BindingRule, type DeclarationKind, type EditRules, type ImportSpec, type ModuleSystem, type PatternFields } from "../lang/edit-rules.js";
import { parseLike, type SyntaxNode, type Tree, type TreeCursor } from "./parser.js";

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
interface Walk {
  readonly declarations: AstDeclaration[];
  /** Leaves whose text is one of the names asked for, by name. */
  readonly leaves: Map<string, SyntaxNode[]>;
  /** Statements of the import types. */
  readonly imports: SyntaxNode[];
  readonly truncated: boolean;
}

const keyOf = (n: SyntaxNode): string => `${n.startIndex}:${n.endIndex}:${n.type}`;

/**
 * Visits a tree's nodes in document order through one cursor, no deeper than MAX_AST_DEPTH:
 * `enter` sees each node at the cursor and says whether to go into it, `leaf` each node without
 * children. Answers whether the guard left a subtree unvisited.
 */
function visitTree(cursor: TreeCursor, enter: (c: TreeCursor) => boolean, leaf: (c: TreeCursor) => void = () => {}): boolean {
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
function walk(rules: EditRules, tree: Tree, names: readonly string[] = []): Walk {
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
function splitQualified(query: string): { owner: string | null; name: string } {
  const m = /^(.+?)(?:\.|::)([^.:]+)$/.exec(query);
  return m ? { owner: m[1]!, name: m[2]! } : { owner: null, name: query };
}

/** The declarations a query names (`name` or `Owner.name`), only the one starting on `line` when given. */
function matching(declarations: readonly AstDeclaration[], query: string, line: number | null = null): AstDeclaration[] {
  const { owner, name } = splitQualified(query);
  return declarations.filter((d) => d.name === name && (owner === null || d.owner === owner) && (line === null || lineOf(d.node) === line || lineOf(d.nameNode) === line || lineOf(d.anchor) === line));
}

const lineOf = (n: SyntaxNode): number => n.startPosition.row + 1;
const listing = (ds: readonly AstDeclaration[]): string => ds.map((d) => `${d.node.type} at line ${lineOf(d.node)}`).join(", ");

/** SEARCH_TRUNCATED, not SYMBOL_NOT_FOUND, when the walk stopped early: "I stopped looking" is not "it is not there". */
function notFound(query: string, truncated: boolean, extra = ""): MastError {
  if (truncated) return new MastError("SEARCH_TRUNCATED", `no declaration named '${query}' was found above the depth guard (${MAX_AST_DEPTH} levels); deeper code was not searched, so it may be there`);
  return new MastError("SYMBOL_NOT_FOUND", `no declaration named '${query}' in the file${extra}`, { hint: "List the file's declarations with `ast find-symbols`; a member is named `Owner.member`." });
}

// ---- replace-body ----

/** The first line's leading whitespace of the line a node starts on. */
function lineIndent(text: string, index: number): string {
  const start = text.lastIndexOf("\n", index - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** The indentation step the file uses: a tab when its indented lines start with tabs, else the most common step between lines. */
export function indentUnit(text: string, fallback: string): string {
  let tabs = 0;
  let spaces = 0;
  const steps = new Map<number, number>();
  let previous = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const ws = /^[ \t]*/.exec(line)![0];
    if (ws.startsWith("\t")) tabs++;
    else if (ws.length > 0) spaces++;
    const width = ws.length;
    if (!ws.startsWith("\t") && width > previous) steps.set(width - previous, (steps.get(width - previous) ?? 0) + 1);
    previous = ws.startsWith("\t") ? previous : width;
  }
  if (tabs > spaces) return "\t";
  if (spaces === 0) return fallback;
  let best = 0;
  let count = 0;
  for (const [step, n] of steps) if (n > count || (n === count && step < best)) [best, count] = [step, n];
  return best > 0 && best <= 8 ? " ".repeat(best) : fallback;
}

/** Content as an edit writes it: LF line ends, no trailing line breaks, no leading blank lines. */
function contentLines(content: string): string[] {
  const lines = content.replace(/\r\n/g, "\n").replace(/\n+$/, "").split("\n");
  while (lines.length > 0 && lines[0]!.trim() === "") lines.shift();
  return lines;
}

/**
 * The lines of content that lie inside a string literal spanning lines (parsed with the file's
 * language): re-indenting them would change the string.
 */
function stringLines(rules: EditRules, tree: Tree, lines: readonly string[]): Set<number> {
  const out = new Set<number>();
  if (lines.length < 2) return out;
  const parsed = parseLike(tree, lines.join("\n"), 2_000);
  if (!parsed) return out;
  visitTree(parsed.walk(), (cursor) => {
    if (!rules.strings.includes(cursor.nodeType)) return true;
    for (let row = cursor.startPosition.row + 1; row <= cursor.endPosition.row; row++) out.add(row);
    return false;
  });
  return out;
}

/**
 * Content re-indented under `base`: its common indentation removed, each line's own levels
 * (counted in the content's step) written in the file's step `unit`, blank lines left empty, and
 * the lines inside a multi-line string (`verbatim`) as they are.
 */
export function reindent(content: string, base: string, unit: string, verbatim: ReadonlySet<number> = new Set()): string[] {
  const lines = contentLines(content);
  const widths = lines.filter((l, i) => l.trim() !== "" && !verbatim.has(i)).map((l) => /^[ \t]*/.exec(l)![0]);
  const common = widths.reduce((a, w) => Math.min(a, w.length), Infinity);
  const relative = widths.map((w) => w.slice(Number.isFinite(common) ? common : 0)).filter((w) => w.length > 0);
  const contentUnit = relative.some((w) => w.startsWith("\t")) ? 1 : relative.reduce((a, w) => (a === 0 ? w.length : Math.min(a, w.length)), 0);
  return lines.map((line, i) => {
    if (verbatim.has(i)) return line;
    if (line.trim() === "") return "";
    const ws = /^[ \t]*/.exec(line)![0].slice(Number.isFinite(common) ? common : 0);
    const width = ws.replace(/\t/g, contentUnit === 1 ? " " : " ".repeat(contentUnit || 1)).length;
    const levels = contentUnit > 0 ? Math.floor(width / contentUnit) : 0;
    const rest = contentUnit > 0 ? width % contentUnit : 0;
    return base + unit.repeat(levels) + " ".repeat(rest) + line.trimStart();
  });
}

/** reindent, keeping the inner lines of the content's multi-line strings as written. */
function reindentCode(rules: EditRules, tree: Tree, content: string, base: string, unit: string): string[] {
  return reindent(content, base, unit, stringLines(rules, tree, contentLines(content)));
}

export interface BodyEdit {
  readonly edit: TextEdit;
  readonly target: AstDeclaration;
}

/**
 * The edit replacing the body of the one function or method `query` names with `body`, re-indented
 * to the target's own body indentation. A brace body may be given with or without its braces.
 */
export function planReplaceBody(rules: EditRules, tree: Tree, text: string, query: string, body: string, line: number | null = null): BodyEdit {
  const { declarations, truncated } = walk(rules, tree);
  const named = matching(declarations, query, line);
  const withBody = named.flatMap((d) => {
    const rule = rules.declarations[d.node.type]!.body;
    const b = rule === undefined ? null : typeof rule === "function" ? (rule(d.node) as SyntaxNode | null) : d.node.childForFieldName(rule);
    return b ? [{ d, b }] : [];
  });
  if (withBody.length === 0) {
    if (named.length > 0) throw new MastError("SYMBOL_NOT_FOUND", `'${query}' has no body to replace (${listing(named)})`, { hint: "replace-body edits functions and methods with a body; use replace-hash for other code." });
    throw notFound(query, truncated);
  }
  if (withBody.length > 1) throw ambiguous(query, withBody.map((w) => w.d));
  const { d: target, b } = withBody[0]!;
  const base = lineIndent(text, target.node.startIndex);
  const unit = indentUnit(text, rules.indent);
  if (!rules.braces) {
    // An indented block: its first statement's column is the body's indentation.
    const bodyIndent = b.startPosition.row > target.node.startPosition.row ? lineIndent(text, b.startIndex) : base + unit;
    const lines = reindentCode(rules, tree, body, bodyIndent, unit);
    if (lines.length === 0) throw new MastError("INVALID_ARGUMENT", "the new body is empty; an indented block needs at least one statement (`pass`)");
    // The body's documentation stays unless the new body brings its own.
    const doc = rules.bodyDoc?.(b) as SyntaxNode | null | undefined;
    const bringsDoc = /^[rRbBuUfF]*("""|\'\'\'|"|')/.test(lines[0]!.trim());
    if (doc && !bringsDoc) {
      const rest = doc.nextNamedSibling;
      if (!rest) return { edit: { start: doc.endIndex, end: b.endIndex, text: `\n${lines.join("\n")}` }, target };
      return { edit: { start: text.lastIndexOf("\n", rest.startIndex - 1) + 1, end: b.endIndex, text: lines.join("\n") }, target };
    }
    const start = b.startPosition.row > target.node.startPosition.row ? text.lastIndexOf("\n", b.startIndex - 1) + 1 : b.startIndex;
    const lead = b.startPosition.row > target.node.startPosition.row ? "" : "\n";
    return { edit: { start, end: b.endIndex, text: lead + lines.join("\n") }, target };
  }
  let inner = body.replace(/\r\n/g, "\n").trim();
  if (inner.startsWith("{") && inner.endsWith("}")) inner = inner.slice(1, -1);
  // The body's own indentation when it has a statement on a line of its own, else one step in.
  const first = b.namedChildren.find((c) => c.type !== "comment" && c.startPosition.row > b.startPosition.row);
  const bodyIndent = first ? lineIndent(text, first.startIndex) : base + unit;
  const lines = reindentCode(rules, tree, inner, bodyIndent, unit);
  const closing = lineIndent(text, b.endIndex - 1);
  const closeIndent = b.endPosition.row > b.startPosition.row && text.slice(text.lastIndexOf("\n", b.endIndex - 1) + 1, b.endIndex - 1).trim() === "" ? closing : base;
  const replacement = lines.length === 0 ? "{}" : `{\n${lines.join("\n")}\n${closeIndent}}`;
  return { edit: { start: b.startIndex, end: b.endIndex, text: replacement }, target };
}

function ambiguous(query: string, ds: readonly AstDeclaration[]): MastError {
  return new MastError("AMBIGUOUS_SYMBOL", `'${query}' names ${ds.length} declarations: ${listing(ds)}`, {
    hint: "Name a member as `Owner.member`, or pass the line the declaration starts on (line).",
    details: { candidates: ds.map((d) => ({ kind: d.node.type, line: lineOf(d.node), name: d.qualifiedName })) },
  });
}

// ---- insert-before / insert-after ----

/**
 * The edit inserting `content` on lines of its own before or after the one declaration `query`
 * names, at its indentation (before: above its doc comments and attributes).
 */
export function planInsert(rules: EditRules, tree: Tree, text: string, query: string, content: string, where: "before" | "after", line: number | null = null): BodyEdit {
  const w = walk(rules, tree, [splitQualified(query).name]);
  const named = matching(w.declarations, query, line);
  const anchors = new Map<string, AstDeclaration>();
  for (const d of named) if (!anchors.has(keyOf(d.anchor))) anchors.set(keyOf(d.anchor), d);
  if (anchors.size === 0) {
    const other = w.leaves.get(splitQualified(query).name)?.find((n) => n.parent && rules.identifiers.includes(n.type));
    const found = other ? `; it is only a name in ${other.parent!.type} at line ${lineOf(other)}, which is no statement or declaration to insert at` : "";
    throw notFound(query, w.truncated, found);
  }
  const run = adjacentRun(rules, [...anchors.values()]);
  if (run === null) throw ambiguous(query, [...anchors.values()]);
  // Overloads (`function f(a): T;` above `function f(a) {…}`) are one declaration: before the first, after the last.
  const target = where === "before" ? run[0]! : run[run.length - 1]!;
  const indent = lineIndent(text, target.anchor.startIndex);
  const lines = reindentCode(rules, tree, content, indent, indentUnit(text, rules.indent));
  if (lines.length === 0) throw new MastError("INVALID_ARGUMENT", "the content to insert is empty");
  if (where === "before") {
    let first: SyntaxNode = target.anchor;
    for (let prev = first.previousNamedSibling; prev && rules.leading.includes(prev.type) && adjacentAbove(prev, first); prev = prev.previousNamedSibling) first = prev;
    const lineStart = text.lastIndexOf("\n", first.startIndex - 1) + 1;
    return { edit: { start: lineStart, end: lineStart, text: `${lines.join("\n")}\n` }, target };
  }
  const lineEnd = text.indexOf("\n", target.anchor.endIndex - 1);
  const at = lineEnd === -1 ? text.length : lineEnd;
  return { edit: { start: at, end: at, text: `\n${lines.join("\n")}` }, target };
}

/** Declarations whose anchors follow one another as siblings (comments between allowed), in order; null when they do not. */
function adjacentRun(rules: EditRules, ds: readonly AstDeclaration[]): AstDeclaration[] | null {
  const sorted = [...ds].sort((a, b) => a.anchor.startIndex - b.anchor.startIndex);
  for (let i = 1; i < sorted.length; i++) {
    let next = sorted[i - 1]!.anchor.nextNamedSibling;
    while (next && rules.leading.includes(next.type)) next = next.nextNamedSibling;
    if (!next || !sameNode(next, sorted[i]!.anchor)) return null;
  }
  return sorted;
}

/** Whether `prev` ends on the line right above `next` (a line comment that takes its newline ends at column 0 of the next line). */
function adjacentAbove(prev: SyntaxNode, next: SyntaxNode): boolean {
  const lastRow = prev.endPosition.column === 0 && prev.endPosition.row > prev.startPosition.row ? prev.endPosition.row - 1 : prev.endPosition.row;
  return lastRow === next.startPosition.row - 1;
}

// ---- rename-symbol ----

interface Binding {
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
type Group = Binding[];

export interface RenamePlan {
  readonly edits: TextEdit[];
  /** Uses of the name the rename could not tie to its target (member accesses whose object's type is not known, ...): left as they are. */
  readonly unresolved: Array<{ line: number; text: string }>;
  /** Of those, the uses that may be the variable itself (EditRules.dynamic): renaming around them could change what the code does, so a rename is refused unless they are accepted. */
  readonly uncertain: Array<{ line: number; text: string }>;
  /** What was renamed: a variable's binding kind, or `member of Owner`. */
  readonly target: string;
  /** The name other files may know it by, as the index names it: a file-level binding's own (an import's not), a member's `Owner.member`; null for a local or a parameter. */
  readonly declaration: string | null;
}

/** The rename analysis of one name in one file. */
class NameIndex {
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

/** Whether a node is inside a node of a type. */
function ancestorOfType(node: SyntaxNode, type: string): boolean {
  for (let n = node.parent; n; n = n.parent) if (n.type === type) return true;
  return false;
}

const contains = (outer: SyntaxNode, inner: SyntaxNode): boolean => inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;

/** A node's first line, as an unresolved use is listed. */
const firstLine = (n: SyntaxNode, max = 200): string => (n.text.split("\n")[0] ?? "").slice(0, max);

function inFields(parent: SyntaxNode, child: SyntaxNode, fields: PatternFields): boolean {
  if (!child.isNamed) return false;
  if (fields === null) return true;
  if (Array.isArray(fields)) return fields.some((f) => parent.childrenForFieldName(f).some((c) => sameNode(c, child)));
  return !(fields as { except: readonly string[] }).except.some((f) => parent.childrenForFieldName(f).some((c) => sameNode(c, child)));
}

/**
 * The edits renaming `query` (a name, or `Owner.member`) to `newName` in one file: a variable with
 * every use that refers to it, or a member with its accesses through objects known to be its
 * owner. Refused with AMBIGUOUS_SYMBOL when the name binds more than one thing and `line` does
 * not pick one, or when `newName` is already a name in the file (the rename would change what a
 * name refers to).
 */
export function planRename(rules: EditRules, tree: Tree, query: string, newName: string, line: number | null, options: { publicName?: boolean } = {}): RenamePlan {
  // publicName: the exported name changes too (a cross-file rename): `export { a }` and the import of the name are renamed, not aliased.
  const exported = options.publicName === true;
  const { owner: qualifiedOwner, name } = splitQualified(query);
  const w = walk(rules, tree, [name, newName, ...(rules.dynamic ? [rules.dynamic.callee] : [])]);
  if (w.truncated) throw new MastError("SEARCH_TRUNCATED", `the file nests deeper than the depth guard (${MAX_AST_DEPTH} levels): uses of '${name}' below it were not seen, so no rename is certain`);
  const index = new NameIndex(rules, tree.rootNode, name, w);
  const ownerNameOf = (n: SyntaxNode): string | null => rules.owners[n.type]?.name(n) ?? null;
  const owners = [...new Set(index.memberDecls.map((d) => d.owner!))];
  // `Owner.attr` of an owner the file declares, with no declaration of the attribute (`self.attr = …` in Python): its accesses.
  if (qualifiedOwner !== null && !owners.includes(qualifiedOwner) && w.declarations.some((d) => d.name === qualifiedOwner && rules.owners[d.node.type])) owners.push(qualifiedOwner);
  type Candidate = { kind: "variable"; group: Group } | { kind: "member"; owner: string };
  const variables = index.variables().map((group) => ({ kind: "variable" as const, group }));
  const members = owners.map((owner) => ({ kind: "member" as const, owner }));
  // A bare name is a variable's when one has it (a member is named Owner.member); a member's when only members do.
  let candidates: Candidate[] = qualifiedOwner !== null ? members.filter((m) => m.owner === qualifiedOwner) : line === null && variables.length === 1 ? variables : [...variables, ...members];
  const sites = (c: Candidate): Array<{ line: number; kind: string }> =>
    c.kind === "variable" ? c.group.map((b) => ({ line: lineOf(b.token), kind: b.kind })) : index.memberDecls.filter((d) => d.owner === c.owner).map((d) => ({ line: lineOf(d.nameNode), kind: d.node.type }));
  if (line !== null) candidates = candidates.filter((c) => sites(c).some((s) => s.line === line));
  if (candidates.length === 0) {
    const where = line !== null ? ` on line ${line}` : "";
    throw new MastError("SYMBOL_NOT_FOUND", `nothing named '${query}' is declared or bound in the file${where}`, { hint: "List the file's declarations with `ast find-symbols`; a member is named `Owner.member`." });
  }
  if (candidates.length > 1) {
    const all = candidates.flatMap(sites).sort((a, b) => a.line - b.line);
    throw new MastError("AMBIGUOUS_SYMBOL", `'${query}' binds ${candidates.length} different symbols in the file: ${all.map((s) => `line ${s.line} (${s.kind})`).join(", ")}`, {
      hint: "Pass the line of the binding to rename (line), name a member as `Owner.member`, or rename each declaration separately.",
      details: { bindings: all },
    });
  }
  const target = candidates[0]!;
  const moved = (w.leaves.get(name) ?? []).find((t) => rules.scopeStatements?.some((type) => ancestorOfType(t, type)));
  if (moved && target.kind === "variable") {
    throw new MastError("AMBIGUOUS_SYMBOL", `'${name}' is moved between scopes at line ${lineOf(moved)} (${moved.parent!.type}): which uses are the same variable is not file-scope certain; nothing was renamed`, { hint: "Rename it with replace-hash, or remove the scope statement first." });
  }
  const edits: TextEdit[] = [];
  const unresolved: Array<{ line: number; text: string }> = [];
  const uncertain: Array<{ line: number; text: string }> = [];
  const unresolve = (token: SyntaxNode, why?: string) => unresolved.push({ line: lineOf(token), text: why ?? firstLine(token.parent!) });
  const unsure = (token: SyntaxNode, why: string) => {
    unresolve(token, `${firstLine(token.parent!)} (${why})`);
    uncertain.push(unresolved.at(-1)!);
  };
  const put = (token: SyntaxNode, text: string) => {
    const problem = rules.renameProblem?.(token, newName);
    if (problem) throw new MastError("INVALID_ARGUMENT", `renaming '${name}' to '${newName}' at line ${lineOf(token)}: ${problem}`);
    edits.push({ start: token.startIndex, end: token.endIndex, text });
  };
  for (const use of rules.embeddedUses?.(tree.rootNode, name) ?? []) unresolve(use as SyntaxNode, `${firstLine(use as SyntaxNode)} (the name inside a string the language reads)`);
  let label: string;
  let declaration: string | null;
  if (target.kind === "variable") {
    label = target.group[0]!.kind;
    declaration = target.group.some((b) => b.kind !== "import" && sameNode(b.scope, tree.rootNode)) ? name : null;
    const members = new Set<Binding>(target.group);
    const isTarget = (g: Group | null | "conflict"): boolean => g !== null && g !== "conflict" && g.some((b) => members.has(b));
    const reach = dynamicReach(rules, w, index, target.group, (t) => isTarget(index.resolve(t)));
    for (const call of reach.calls) unsure(call, `the code it runs may use or declare '${name}'`);
    for (const b of target.group) {
      const why = reach.why(b.token);
      if (why) unsure(b.token, why);
      else put(b.token, b.rename === "alias" && !exported ? `${b.token.text} as ${newName}` : rewrite(rules, b.token, name, newName, exported));
    }
    for (const ref of index.references) {
      const g = index.resolve(ref);
      if (g === "conflict") unresolve(ref, `${firstLine(ref.parent!)} (contended: the name is declared twice where this use is)`);
      else if (isTarget(g)) {
        const why = reach.why(ref);
        if (why) unsure(ref, why);
        else put(ref, rewrite(rules, ref, name, newName, exported));
      }
    }
    // A parameter is also named by keyword arguments, of calls the file cannot tie to its function.
    if (target.group.some((b) => b.kind === "parameter")) for (const k of index.keywordUses) unresolve(k);
    for (const { token, scope } of index.pathUses) {
      if (scope === null) unresolved.push({ line: lineOf(token), text: token.parent!.text.slice(0, 200) });
      else if (target.group.some((b) => sameNode(b.scope, scope))) put(token, newName);
    }
    for (const token of index.opaquePaths) unresolve(token);
    // The module's export list names its module-level names as strings (`__all__`).
    if (target.group.some((b) => sameNode(b.scope, tree.rootNode))) for (const s of rules.exportListNames?.(tree.rootNode, name) ?? []) put(s as SyntaxNode, newName);
    if (clashes(rules, w, newName)) throw clash(newName, w);
  } else {
    const owner = target.owner;
    label = `member of ${owner}`;
    declaration = `${owner}.${name}`;
    for (const d of index.memberDecls) if (d.owner === owner) put(d.nameNode, newName);
    const memberGroups = new Set(index.bindings.filter((b) => b.member === owner).map((b) => index.groupOf.get(b)!));
    for (const ref of index.references) {
      const g = index.resolve(ref);
      if (g !== null && g !== "conflict" && memberGroups.has(g)) put(ref, newName);
    }
    const uses = new UseResolver(rules, tree.rootNode, w);
    // Types the file declares, and which of them declare a member of the name themselves.
    const ownerTypes = new Set(w.declarations.filter((d) => rules.owners[d.node.type]).map((d) => d.name));
    const declaring = new Set(index.memberDecls.map((d) => d.owner!));
    for (const { token, object } of index.memberRefs) {
      const of = objectOwner(rules, uses, object, ownerNameOf);
      if (of === owner) put(token, newName);
      // Another type of the file with a member of its own of the name is left; any other type may inherit this one.
      else if (of === null || !ownerTypes.has(of) || !declaring.has(of)) unresolve(token);
    }
    for (const { token, owner: o } of index.literalKeys) if (o === owner) put(token, rules.shorthand(token) === "key" ? `${newName}: ${name}` : newName);
    for (const k of [...index.memberKeys, ...index.keywordUses]) unresolve(k);
    for (const d of index.memberDecls) if (d.owner !== owner) unresolve(d.nameNode, `${d.qualifiedName}: another type's member of this name (an override or an implementation?)`);
    const taken = w.declarations.find((d) => d.owner === owner && d.name === newName);
    if (taken) throw new MastError("AMBIGUOUS_SYMBOL", `${owner} already has a member named '${newName}' (line ${lineOf(taken.nameNode)}); renaming '${name}' to it would merge two members`);
    if (edits.length === 0) throw new MastError("SYMBOL_NOT_FOUND", `${owner} has no member '${name}' in the file, and no access of one was found`, { hint: "List the file's declarations with `ast find-symbols`." });
  }
  const unique = new Map<string, TextEdit>();
  for (const e of edits) unique.set(`${e.start}:${e.end}`, e);
  return { edits: [...unique.values()].sort((a, b) => a.start - b.start), unresolved, uncertain, target: label, declaration };
}

/**
 * Where the text cannot tie a use to the variable (EditRules.dynamic): inside a body that looks
 * names up in an object first, between the use and the variable's scope (the name may be the
 * object's property); or in the function of a dynamic-code call that sees the variable (its code
 * may declare the name again). Answers those calls — each a use the text does not show — and why a
 * token of the variable is not certain, or null.
 */
function dynamicReach(rules: EditRules, w: Walk, index: NameIndex, group: Group, seesTarget: (token: SyntaxNode) => boolean): { calls: SyntaxNode[]; why(token: SyntaxNode): string | null } {
  const dynamic = rules.dynamic;
  if (!dynamic) return { calls: [], why: () => null };
  const calls = (w.leaves.get(dynamic.callee) ?? []).filter((leaf) => dynamic.isCall(leaf) && seesTarget(leaf));
  const reached = calls.map((call) => ({ call, scope: index.scopeAbove(call, rules.functionScopes) }));
  const scopes = new Set(group.map((b) => keyOf(b.scope)));
  return {
    calls,
    why: (token) => {
      for (let child = token, a = token.parent; a && !scopes.has(keyOf(a)); child = a, a = a.parent) {
        const body = dynamic.bodies[a.type];
        if (body !== undefined && sameNode(a.childForFieldName(body), child)) return `inside \`${firstLine(a, 120)}\` at line ${lineOf(a)}: the name may be a property of its object`;
      }
      const run = reached.find((r) => contains(r.scope, token));
      return run ? `in reach of the code run at line ${lineOf(run.call)}, which may declare '${token.text}' again` : null;
    },
  };
}

/** The new text of a use: the new name, or for a shorthand the key kept (`{ a }` → `{ a: b }`, `export { a }` → `export { b as a }`). */
function rewrite(rules: EditRules, token: SyntaxNode, name: string, newName: string, exported = false): string {
  const shorthand = rules.shorthand(token);
  return shorthand === "key" ? `${name}: ${newName}` : shorthand === "alias" && !exported ? `${newName} as ${name}` : newName;
}

/** Where a cross-file rename of an exported name touches one file (query/rename-plan.ts finds them on the index). */
export interface ExportRenameSite {
  /**
   * declaration: the declaring file (the declaration on `line`, its uses and `export { name }`);
   * import: an import of the name (with no alias, the binding and its uses; with one, the imported name only);
   * export_from: a barrel's `export { name } from` (the imported name); namespace: `local.name` accesses through a namespace import;
   * package: the name's free uses (bound by no declaration of the file) in another file of its package (Go), or of a dot import;
   * member: a member's verified call on `line` in another file (`x.name(`, `T::name(`): the one access of the name there;
   * export_list: a module that passes the name on by a star import: the strings of its export list (`__all__`).
   */
  readonly kind: "declaration" | "import" | "export_from" | "namespace" | "package" | "member" | "export_list";
  readonly line: number;
  readonly local: string | null;
}

/**
 * The edits one file needs when the exported `name` becomes `newName` in every module: by the
 * site's kind (ExportRenameSite).
 */
export function planExportRename(rules: EditRules, tree: Tree, name: string, newName: string, site: ExportRenameSite): RenamePlan {
  const onStatement = () =>
    rules
      .importedNameTokens(tree.rootNode, name)
      .filter((t) => (t.statement as SyntaxNode).startPosition.row === site.line - 1)
      .map((t) => t.token as SyntaxNode);
  if (site.kind === "declaration") return planRename(rules, tree, name, newName, site.line, { publicName: true });
  // An import binding the name itself — and a re-export that binds it in its module too (Rust's `pub use`).
  if ((site.kind === "import" || (site.kind === "export_from" && rules.reexportBinds)) && site.local === name) {
    // The binding's own line: an import statement may span lines (`import {\n  a,\n  name,\n} from`).
    const tokens = onStatement();
    const plan = planRename(rules, tree, name, newName, tokens[0] ? tokens[0].startPosition.row + 1 : null, { publicName: true });
    // `from m import name as name` (the explicit re-export): the imported name is a token of its own beside the binding.
    const edited = new Set(plan.edits.map((e) => e.start));
    return { ...plan, edits: [...plan.edits, ...tokens.filter((t) => !edited.has(t.startIndex)).map((t) => ({ start: t.startIndex, end: t.endIndex, text: newName }))].sort((a, b) => a.start - b.start) };
  }
  if (site.kind === "export_list") {
    const edits = (rules.exportListNames?.(tree.rootNode, name) ?? []).map((t) => ({ start: t.startIndex, end: t.endIndex, text: newName }));
    return { edits, unresolved: [], uncertain: [], target: "the module's export list", declaration: null };
  }
  if (site.kind === "member") {
    const member = name.slice(name.lastIndexOf(".") + 1);
    const w = walk(rules, tree, [member]);
    const accesses = (w.leaves.get(member) ?? []).filter((t) => t.startPosition.row === site.line - 1 && accessObject(rules, t) !== undefined);
    if (accesses.length === 1) return { edits: [{ start: accesses[0]!.startIndex, end: accesses[0]!.endIndex, text: newName }], unresolved: [], uncertain: [], target: "a verified call of the member", declaration: null };
    const why = accesses.length === 0 ? "no access of the name on the line" : `${accesses.length} accesses of the name on the line`;
    return { edits: [], unresolved: [{ line: site.line, text: `a verified call of '${name}' (${why}: which one is the call is not certain)` }], uncertain: [], target: "a verified call of the member", declaration: null };
  }
  if (site.kind === "package") {
    const w = walk(rules, tree, [name, newName]);
    if (w.truncated) throw new MastError("SEARCH_TRUNCATED", `the file nests deeper than the depth guard (${MAX_AST_DEPTH} levels): uses of '${name}' below it were not seen`);
    const index = new NameIndex(rules, tree.rootNode, name, w);
    const free = index.references.filter((ref) => index.resolve(ref) === null);
    if (free.length > 0 && clashes(rules, w, newName)) throw clash(newName, w);
    return { edits: free.map((t) => ({ start: t.startIndex, end: t.endIndex, text: newName })), unresolved: opaqueMentions(rules, w, name), uncertain: [], target: "uses in the package", declaration: null };
  }
  if (site.kind === "namespace") {
    const w = walk(rules, tree, [name]);
    const edits: TextEdit[] = [];
    for (const token of w.leaves.get(name) ?? []) if (accessObject(rules, token, true)?.text === site.local) edits.push({ start: token.startIndex, end: token.endIndex, text: newName });
    return { edits, unresolved: opaqueMentions(rules, w, name), uncertain: [], target: `accesses through namespace ${site.local}`, declaration: null };
  }
  const tokens = onStatement();
  if (tokens.length === 0) throw new MastError("SYMBOL_NOT_FOUND", `no import or re-export of '${name}' on line ${site.line}: the index is behind the file`, { hint: "Run `mast index --incremental` and plan again." });
  return { edits: tokens.map((t) => ({ start: t.startIndex, end: t.endIndex, text: newName })), unresolved: [], uncertain: [], target: site.kind === "export_from" ? "re-export" : "aliased import", declaration: null };
}

/**
 * The object of the member access `token` is the member of (`obj` in `obj.name`, `m` in `m::name`;
 * with `qualified`, a type path's too: `pkg.Type`), or undefined when it is none.
 */
function accessObject(rules: EditRules, token: SyntaxNode, qualified = false): SyntaxNode | null | undefined {
  const parent = token.parent;
  const access = parent ? (rules.memberAccess[parent.type] ?? (qualified ? rules.qualifiedTypes?.[parent.type] : undefined)) : undefined;
  return access && sameNode(parent!.childForFieldName(access.member), token) ? parent!.childForFieldName(access.object) : undefined;
}

/** Mentions of the name inside nodes the rules cannot read (a Rust macro's token tree: `vec![m::Thing]`): uses no edit can be sure of. */
function opaqueMentions(rules: EditRules, w: Walk, name: string): Array<{ line: number; text: string }> {
  return (w.leaves.get(name) ?? []).filter((t) => rules.opaque.some((type) => ancestorOfType(t, type))).map((t) => ({ line: lineOf(t), text: `${firstLine(t.parent!)} (inside a macro's tokens: the rename cannot tell what it names)` }));
}

/** Whether the new name is already used as a name in the file (bound, or a use of something bound elsewhere). */
function clashes(rules: EditRules, w: Walk, newName: string): boolean {
  return (w.leaves.get(newName) ?? []).some((t) => rules.identifiers.includes(t.type) && !rules.isKey(t) && accessObject(rules, t) === undefined);
}

function clash(newName: string, w: Walk): MastError {
  const at = (w.leaves.get(newName) ?? [])[0];
  return new MastError("AMBIGUOUS_SYMBOL", `'${newName}' is already a name in the file${at ? ` (line ${lineOf(at)})` : ""}: renaming to it could change what a name refers to; nothing was renamed`, {
    hint: "Pick a name the file does not use yet.",
  });
}

/** The owner a member access's object is known to be: itself (`this`, `self`), a type named directly, or a name bound with the type. */
function objectOwner(rules: EditRules, uses: UseResolver, object: SyntaxNode, ownerNameOf: (n: SyntaxNode) => string | null): string | null {
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
class UseResolver {
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

// ---- add-import / remove-import ----

interface ImportStatementFound {
  readonly node: SyntaxNode;
  readonly specs: ImportSpec[];
}

/** The file's top-level import statements with what each imports. */
function importStatementsOf(rules: EditRules, tree: Tree): ImportStatementFound[] {
  return tree.rootNode.namedChildren.flatMap((node) => {
    const specs = rules.imports.read(node);
    return specs.length ? [{ node, specs }] : [];
  });
}

/** The module systems the file's imports are written in (ECMAScript: `import` and `require`). */
export function importSystems(rules: EditRules, tree: Tree): Set<ModuleSystem> {
  return new Set(importStatementsOf(rules, tree).flatMap((s) => s.specs.flatMap((p) => (p.system ? [p.system] : []))));
}

function parseSpec(rules: EditRules, spec: string): ImportSpec {
  const parsed = rules.imports.parse(spec);
  if (typeof parsed === "string") throw new MastError("INVALID_ARGUMENT", parsed);
  return parsed;
}

/** Whether `have` already brings in everything `want` asks for. */
function covers(have: ImportSpec, want: ImportSpec): boolean {
  if (have.module !== want.module || want.typeOnly !== have.typeOnly) return false;
  if (want.defaultName !== null && have.defaultName !== want.defaultName) return false;
  if (want.namespace !== null && have.namespace !== want.namespace) return false;
  return want.names.every((n) => have.names.some((h) => h.name === n.name && h.alias === n.alias));
}

/** The span of a node's whole lines, with the line break after them. */
function wholeLines(source: string, node: SyntaxNode): TextEdit {
  const start = source.lastIndexOf("\n", node.startIndex - 1) + 1;
  const lineEnd = source.indexOf("\n", node.endIndex);
  const end = lineEnd === -1 ? source.length : lineEnd + 1;
  // A statement that is the file's last line takes the line break before it instead.
  return end === source.length && lineEnd === -1 && start > 0 ? { start: start - 1, end, text: "" } : { start, end, text: "" };
}

/**
 * The edit adding an import: nothing when the file imports it already, merged into a statement
 * that can take it, or a new statement after the last import (the first after the file's
 * preamble: package clause, docstring, directives), in the module system given.
 */
export function planAddImport(rules: EditRules, tree: Tree, source: string, specText: string, system: ModuleSystem): { edits: TextEdit[]; message: string } {
  const asked = parseSpec(rules, specText);
  const statements = importStatementsOf(rules, tree);
  if (statements.some((s) => s.specs.some((have) => covers(have, asked)))) return { edits: [], message: `'${specText}' is imported already` };
  // Only the names the module's imports do not bring in yet.
  const present = statements.flatMap((s) => s.specs.filter((p) => p.module === asked.module && p.typeOnly === asked.typeOnly));
  const missing = asked.names.filter((n) => !present.some((p) => covers(p, { ...asked, defaultName: null, namespace: null, names: [n] })));
  const spec = asked.names.length > 0 && missing.length > 0 && (asked.defaultName === null || present.some((p) => p.defaultName === asked.defaultName)) && asked.namespace === null ? { ...asked, defaultName: null, names: missing } : asked;
  const locals = rules.imports.locals(spec);
  const w = walk(rules, tree, locals);
  for (const local of locals) {
    const bound = new NameIndex(rules, tree.rootNode, local, w).bindings.find((b) => sameNode(b.scope, tree.rootNode));
    if (bound) {
      throw new MastError("AMBIGUOUS_SYMBOL", `the import would bind '${local}', which line ${lineOf(bound.token)} binds already (${bound.kind}); nothing was added`, {
        hint: "Import it under another name (`{ a as b } from m`), or remove the other binding first.",
      });
    }
  }
  const rendered = rules.imports.render(spec, system, statements[0]?.node ?? null);
  if ("mismatch" in rendered) throw new MastError("MODULE_SYSTEM_MISMATCH", `${rendered.mismatch}; the file is ${system === "cjs" ? "CommonJS" : "an ES module"}`, { hint: rendered.recovery });
  const own = statements.filter((s) => s.specs.some((p) => p.module === spec.module));
  for (const s of [...own, ...[...statements].reverse()]) {
    const merged = rules.imports.merge(s.node, spec, source);
    if (merged) return { edits: [merged], message: `Added '${specText}' to the import at line ${lineOf(s.node)}` };
  }
  const last = statements.at(-1)?.node ?? (rules.imports.firstAfter(tree.rootNode) as SyntaxNode | null);
  if (last === null) {
    const next = source.split("\n", 1)[0]!;
    return { edits: [{ start: 0, end: 0, text: `${rendered.text}\n${next.trim() === "" ? "" : "\n"}` }], message: `Added '${specText}' at the top of the file` };
  }
  const lineEnd = source.indexOf("\n", last.endIndex - 1);
  const at = lineEnd === -1 ? source.length : lineEnd;
  const afterPreamble = statements.length === 0;
  const nextLine = source.slice(at + 1).split("\n", 1)[0] ?? "";
  const tail = afterPreamble && lineEnd !== -1 && nextLine.trim() !== "" ? "\n" : "";
  return { edits: [{ start: at, end: at, text: `\n${afterPreamble ? "\n" : ""}${rendered.text}${tail}` }], message: `Added '${specText}' after line ${lineOf(last)}` };
}

/** The edits removing an import: the names it lists from the statements that import them, or the module's whole statements. */
export function planRemoveImport(rules: EditRules, tree: Tree, source: string, specText: string): { edits: TextEdit[]; message: string } {
  const spec = parseSpec(rules, specText);
  const wanted = [...spec.names.map((n) => n.name), ...(spec.defaultName ? ["default"] : []), ...(spec.namespace ? ["*"] : [])];
  const edits: TextEdit[] = [];
  for (const s of importStatementsOf(rules, tree)) {
    const mine = s.specs.filter((p) => p.module === spec.module);
    if (mine.length === 0) continue;
    const holds = wanted.length === 0 || mine.some((p) => p.names.some((n) => wanted.includes(n.name)) || (p.defaultName !== null && wanted.includes("default")) || (p.namespace !== null && (wanted.includes("*") || (p.system === "cjs" && wanted.includes("default")))));
    if (!holds) continue;
    const edit = rules.imports.without(s.node, spec, source);
    edits.push(edit === "all" ? wholeLines(source, s.node) : edit);
  }
  if (edits.length === 0) throw new MastError("SYMBOL_NOT_FOUND", `the file has no import of '${specText}'`, { hint: "List the file's imports with mast_dependencies, or read its first lines." });
  return { edits, message: `Removed '${specText}' (${edits.length} statement${edits.length === 1 ? "" : "s"} changed)` };
}

/**
 * add-parameter in one file: `param` appended to the declaration `query` (on `line`) when
 * `declare`, and `argument` appended to the calls on `rows` (1-based lines of verified call sites)
 * whose callee's name is one of `names`. What cannot be placed — a declaration whose last
 * parameter is optional or rest, a call with another argument count than the parameters before,
 * a spread, a line with no such call — comes back in `unresolved`, not edited.
 */
export function planAddParameter(
  rules: EditRules,
  tree: Tree,
  site: { readonly query: string; readonly line: number | null; readonly declare: boolean; readonly rows: readonly number[]; readonly names: readonly string[]; readonly arity: number | null },
  param: string,
  argument: string | null,
): { edits: TextEdit[]; unresolved: Array<{ line: number; text: string }>; calls: number } {
  if (!rules.parameterList || !rules.callArguments) throw new MastError("UNSUPPORTED_OPERATION", "add-parameter is not supported in this language yet");
  const edits: TextEdit[] = [];
  const unresolved: Array<{ line: number; text: string }> = [];
  let before: number | null = site.arity;
  const { declarations, truncated } = walk(rules, tree);
  const named = matching(declarations, site.query, site.line);
  const decl = named[0];
  if (site.declare) {
    if (!decl) throw notFound(site.query, truncated);
    const list = rules.parameterList(decl.node);
    if (!list) throw new MastError("UNSUPPORTED_OPERATION", `'${site.query}' has no parameter list add-parameter can extend (${listing([decl])})`);
    if (list.blocked) throw new MastError("UNSUPPORTED_OPERATION", `'${site.query}': ${list.blocked}`, { hint: "Add the parameter by hand (ast replace-body on the signature), or give it a default there instead." });
    before = list.count;
    edits.push(list.append(param));
  }
  let calls = 0;
  const rows = new Set(site.rows.map((r) => r - 1));
  const first = Math.min(...rows);
  const last = Math.max(...rows);
  const found = new Set<number>();
  const visit = (node: SyntaxNode) => {
    if (node.endPosition.row < first || node.startPosition.row > last) return;
    if (rows.has(node.startPosition.row)) {
      const call = rules.callArguments!(node, site.names);
      if (call === "unplaceable") {
        unresolved.push({ line: node.startPosition.row + 1, text: `${node.text.split("\n")[0]!.slice(0, 120)} (its arguments cannot be counted)` });
        found.add(node.startPosition.row);
      } else if (call !== null) {
        found.add(node.startPosition.row);
        if (argument === null) unresolved.push({ line: node.startPosition.row + 1, text: `${node.text.split("\n")[0]!.slice(0, 120)} (no default given: the argument to pass cannot be computed)` });
        else if (before !== null && call.count !== before) unresolved.push({ line: node.startPosition.row + 1, text: `${node.text.split("\n")[0]!.slice(0, 120)} (passes ${call.count} argument(s) where ${before} parameter(s) come before the new one)` });
        else {
          edits.push(call.append(argument));
          calls += 1;
        }
      }
    }
    for (const child of node.namedChildren) visit(child);
  };
  if (rows.size > 0) visit(tree.rootNode);
  for (const r of rows) if (!found.has(r)) unresolved.push({ line: r + 1, text: "the verified call site is not a call the rules can extend here" });
  return { edits: edits.sort((a, b) => a.start - b.start), unresolved, calls };
}


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
  const groupBinding = (g: Group | null | "conflict"): SiteBinding | null | "conflict" => (g === null || g === "conflict" ? g : bindingOf([...g].sort((a, b) => a.token.startIndex - b.token.startIndex)[0]!));
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
      const group = binding ? index.groupOf.get(binding) ?? null : null;
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
