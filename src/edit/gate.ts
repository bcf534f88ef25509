// The parse-validity gate (hashpilot contract): an edit to a file in a language with a grammar
// is never written when the file parsed cleanly before and would not parse after — no flag waives
// that. A file that was already broken may be hash- or diff-edited (the edit may be its repair);
// an AST edit refuses it unless waived (edit/transaction.ts). `.d.ts` files are never gated.
import { MastError } from "../base/errors.js";
import { extensionInfo } from "../lang/languages.js";
import { parseFlat, type SyntaxNode } from "../syntax/flat-tree.js";
import { parseSource, type Tree } from "../syntax/parser.js";

/** How long one gate parse may take before the file counts as unparseable. */
const GATE_PARSE_TIMEOUT_MS = 10_000;

/** A span of 1-based lines an edit wrote (empty when start > end: lines were removed there). */
export interface EditedLines {
  readonly start: number;
  readonly end: number;
}

/** Error nodes looked at most when picking the one to report. */
const MAX_ERROR_NODES = 10_000;

/**
 * The syntax error of a source nearest the edited lines as `line:column (node)` — the smallest
 * ERROR or MISSING node closest to them (all of them when none are given) — null when it parses
 * cleanly; undefined when no grammar applies.
 */
export function syntaxErrorOf(path: string, text: string, edited: readonly EditedLines[] = []): string | null | undefined {
  return gateCheck(path, text, edited)?.error;
}

/** The grammar the gate parses a path with (none for `.d.ts` files), or null. */
export function gateGrammar(path: string): string | null {
  return path.endsWith(".d.ts") ? null : (extensionInfo(path)?.grammar ?? null);
}

// Sources are parsed as ending in a newline: a file's last line is terminated for the language
// whether or not the file ends in one (tree-sitter-go reads `var f int` at the very end as an error,
// Go does not); every offset before the end is the same.
const terminated = (text: string) => (text.endsWith("\n") ? text : `${text}\n`);

/**
 * A source parsed as the gate parses it, for an AST plan (the binding's tree, which the AST edits
 * read): the tree (null when the parse timed out) and the syntax error nearest the edited lines
 * (null when it parses cleanly); null when no grammar applies.
 */
export function gateParse(path: string, text: string, edited: readonly EditedLines[] = []): { tree: Tree | null; error: string | null } | null {
  const grammar = gateGrammar(path);
  if (grammar === null) return null;
  const tree = parseSource(grammar, terminated(text), GATE_PARSE_TIMEOUT_MS);
  return tree ? { tree, error: errorAt(tree.rootNode, edited) } : { tree: null, error: "1:1 (parse timed out)" };
}

/**
 * The gate's check of a text an edit would write: the flat tree's root (the one the index refresh
 * of the written file then reuses) and the syntax error nearest the edited lines, as `gateParse`.
 */
export function gateCheck(path: string, text: string, edited: readonly EditedLines[] = []): { root: SyntaxNode | null; error: string | null } | null {
  const grammar = gateGrammar(path);
  if (grammar === null) return null;
  const tree = parseFlat(grammar, terminated(text), GATE_PARSE_TIMEOUT_MS);
  return tree ? { root: tree.rootNode, error: errorAt(tree.rootNode, edited) } : { root: null, error: "1:1 (parse timed out)" };
}

/** The syntax error of a tree nearest the edited lines as `line:column (node)`, null when it has none. */
function errorAt(root: SyntaxNode, edited: readonly EditedLines[]): string | null {
  if (!root.hasError) return null;
  const bad = nearestError(root, edited);
  return bad ? describe(bad) : "1:1 (ERROR)";
}

const describe = (bad: SyntaxNode) => `${bad.startPosition.row + 1}:${bad.startPosition.column + 1} (${bad.isMissing ? `missing ${bad.type}` : bad.type})`;

/** Lines between a node and the nearest edited span (0 when they overlap). */
function distance(node: SyntaxNode, edited: readonly EditedLines[]): number {
  if (edited.length === 0) return 0;
  const first = node.startPosition.row + 1;
  const last = node.endPosition.row + 1;
  let best = Infinity;
  for (const e of edited) {
    const end = Math.max(e.start, e.end);
    best = Math.min(best, last < e.start ? e.start - last : first > end ? first - end : 0);
  }
  return best;
}

/** The ERROR or MISSING node nearest the edited lines, smallest first, then first in the file. */
function nearestError(root: SyntaxNode, edited: readonly EditedLines[]): SyntaxNode | null {
  let best: { node: SyntaxNode; distance: number; size: number } | null = null;
  for (const node of errorNodes(root)) {
    const d = distance(node, edited);
    const size = node.endIndex - node.startIndex;
    if (best === null || d < best.distance || (d === best.distance && size < best.size)) best = { node, distance: d, size };
  }
  return best?.node ?? null;
}

/**
 * For a file that did not parse before (an AST edit with the pre-check waived): the syntax error
 * the edit added — one in the edited lines, or any when the tree has more errors than before —
 * as `line:column (node)`, or null when it added none.
 */
export function addedSyntaxError(before: SyntaxNode, after: SyntaxNode, edited: readonly EditedLines[]): string | null {
  const inEdit = errorNodes(after).find((n) => distance(n, edited) === 0);
  const bad = inEdit ?? (errorNodes(after).length > errorNodes(before).length ? nearestError(after, edited) : null);
  return bad ? describe(bad) : null;
}

/** The ERROR and MISSING nodes of a tree in document order (at most MAX_ERROR_NODES), only subtrees holding an error entered; walked without recursion. */
function errorNodes(root: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0 && out.length < MAX_ERROR_NODES) {
    const node = stack.pop()!;
    if (node.type === "ERROR" || node.isMissing) out.push(node);
    if (node.hasError) {
      const children = node.children;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
  }
  return out;
}

/** Refuses (PARSE_ERROR) an edit that would leave a cleanly parsing file with a syntax error, naming the error nearest the edited lines. */
export function checkParseValidity(path: string, before: string, after: string, edited: readonly EditedLines[] = []): void {
  const was = syntaxErrorOf(path, before);
  if (was !== null) return; // no grammar, or already broken
  const now = syntaxErrorOf(path, after, edited);
  if (now) {
    throw new MastError("PARSE_ERROR", `the edit would break ${path}: syntax error at ${now}; nothing was written`, {
      details: { at: now },
    });
  }
}
