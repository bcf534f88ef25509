// The parse-validity gate (hashpilot contract): an edit to a file in a language with a grammar
// is never written when the file parsed cleanly before and would not parse after — no flag waives
// that. A file that was already broken may be hash- or diff-edited (the edit may be its repair);
// an AST edit refuses it unless waived (edit/transaction.ts). `.d.ts` files are never gated.
import { MastError } from "../base/errors.js";
import { extensionInfo } from "../lang/languages.js";
import { parseSource, type SyntaxNode, type Tree } from "../syntax/parser.js";

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
  return gateParse(path, text, edited)?.error;
}

/** The grammar the gate parses a path with (none for `.d.ts` files), or null. */
export function gateGrammar(path: string): string | null {
  return path.endsWith(".d.ts") ? null : (extensionInfo(path)?.grammar ?? null);
}

/**
 * A source parsed as the gate parses it: the tree (null when the parse timed out) and the syntax
 * error nearest the edited lines (null when it parses cleanly); null when no grammar applies.
 */
export function gateParse(path: string, text: string, edited: readonly EditedLines[] = []): { tree: Tree | null; error: string | null } | null {
  const grammar = gateGrammar(path);
  if (grammar === null) return null;
  // Parsed as ending in a newline: a file's last line is terminated for the language whether or not
  // the file ends in one (tree-sitter-go reads `var f int` at the very end as an error, Go does not);
  // every offset before the end is the same.
  const tree = parseSource(grammar, text.endsWith("\n") ? text : `${text}\n`, GATE_PARSE_TIMEOUT_MS);
  if (!tree) return { tree: null, error: "1:1 (parse timed out)" };
  if (!tree.rootNode.hasError) return { tree, error: null };
  const bad = nearestError(tree.rootNode, edited);
  return { tree, error: bad ? `${bad.startPosition.row + 1}:${bad.startPosition.column + 1} (${bad.isMissing ? `missing ${bad.type}` : bad.type})` : "1:1 (ERROR)" };
}

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

/** The ERROR or MISSING node nearest the edited lines, smallest first, then first in the file; walked without recursion. */
function nearestError(root: SyntaxNode, edited: readonly EditedLines[]): SyntaxNode | null {
  const cursor = root.walk();
  let best: { node: SyntaxNode; distance: number; size: number } | null = null;
  let seen = 0;
  for (;;) {
    const node = cursor.currentNode;
    if (node.type === "ERROR" || node.isMissing) {
      const d = distance(node, edited);
      const size = node.endIndex - node.startIndex;
      if (best === null || d < best.distance || (d === best.distance && size < best.size)) best = { node, distance: d, size };
      if (++seen >= MAX_ERROR_NODES) return best.node;
    }
    if (node.hasError && cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) return best?.node ?? null;
    }
  }
}

/**
 * For a file that did not parse before (an AST edit with the pre-check waived): the syntax error
 * the edit added — one in the edited lines, or any when the tree has more errors than before —
 * as `line:column (node)`, or null when it added none.
 */
export function addedSyntaxError(before: Tree, after: Tree, edited: readonly EditedLines[]): string | null {
  const inEdit = errorNodes(after.rootNode).find((n) => distance(n, edited) === 0);
  const bad = inEdit ?? (errorNodes(after.rootNode).length > errorNodes(before.rootNode).length ? nearestError(after.rootNode, edited) : null);
  return bad ? `${bad.startPosition.row + 1}:${bad.startPosition.column + 1} (${bad.isMissing ? `missing ${bad.type}` : bad.type})` : null;
}

/** The ERROR and MISSING nodes of a tree (at most MAX_ERROR_NODES), walked without recursion. */
function errorNodes(root: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const cursor = root.walk();
  for (;;) {
    const node = cursor.currentNode;
    if ((node.type === "ERROR" || node.isMissing) && out.push(node) >= MAX_ERROR_NODES) return out;
    if (node.hasError && cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) return out;
    }
  }
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
