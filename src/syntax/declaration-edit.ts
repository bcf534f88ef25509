// replace-body and insert-before/after: the edit at the one declaration a query names, its content
// re-indented in the file's own step (the lines of a multi-line string kept as written).
import { MastError } from "../base/errors.js";
import { sameNode, type EditRules } from "../lang/edit-rules.js";
import { ambiguous, keyOf, lineOf, listing, matching, notFound, splitQualified, visitTree, walk, type AstDeclaration, type TextEdit } from "./ast-walk.js";
import { parseLike, type SyntaxNode, type Tree } from "./parser.js";

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
    if (named.length > 0)
      throw new MastError("SYMBOL_NOT_FOUND", `'${query}' has no body to replace (${listing(named)})`, {
        hint: "replace-body edits functions and methods with a body; use replace-hash for other code.",
      });
    throw notFound(query, truncated);
  }
  if (withBody.length > 1)
    throw ambiguous(
      query,
      withBody.map((w) => w.d),
    );
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
    const bringsDoc = /^[rRbBuUfF]*("""|'''|"|')/.test(lines[0]!.trim());
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
