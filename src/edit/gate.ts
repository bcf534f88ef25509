// The parse-validity gate (hashpilot contract): an edit to a file in a language with a grammar
// is never written when the file parsed cleanly before and would not parse after — no flag waives
// that. A file that was already broken may be edited (the edit may be its repair); `.d.ts` files
// are never gated.
import { MastError } from "../base/errors.js";
import { extensionInfo } from "../lang/languages.js";
import { parseSource, type SyntaxNode } from "../syntax/parser.js";

/** How long one gate parse may take before the file counts as unparseable. */
const GATE_PARSE_TIMEOUT_MS = 10_000;

/** The first syntax error of a source as `line:column (node)`, null when it parses cleanly; undefined when no grammar applies. */
export function syntaxErrorOf(path: string, text: string): string | null | undefined {
  const grammar = path.endsWith(".d.ts") ? null : (extensionInfo(path)?.grammar ?? null);
  if (grammar === null) return undefined;
  const tree = parseSource(grammar, text, GATE_PARSE_TIMEOUT_MS);
  if (!tree) return "1:1 (parse timed out)";
  if (!tree.rootNode.hasError) return null;
  const bad = firstError(tree.rootNode);
  return bad ? `${bad.startPosition.row + 1}:${bad.startPosition.column + 1} (${bad.isMissing ? `missing ${bad.type}` : bad.type})` : "1:1 (ERROR)";
}

/** The first ERROR or MISSING node in document order, walked without recursion. */
function firstError(root: SyntaxNode): SyntaxNode | null {
  const cursor = root.walk();
  for (;;) {
    const node = cursor.currentNode;
    if (node.type === "ERROR" || node.isMissing) return node;
    if (node.hasError && cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) return null;
    }
  }
}

/** Refuses (PARSE_ERROR) an edit that would leave a cleanly parsing file with a syntax error. */
export function checkParseValidity(path: string, before: string, after: string): void {
  const was = syntaxErrorOf(path, before);
  if (was !== null) return; // no grammar, or already broken
  const now = syntaxErrorOf(path, after);
  if (now) {
    throw new MastError("PARSE_ERROR", `the edit would break ${path}: syntax error at ${now}; nothing was written`, {
      details: { at: now },
    });
  }
}
