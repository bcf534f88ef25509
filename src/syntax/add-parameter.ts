// add-parameter in one file: a parameter appended to a declaration and an argument to the calls on
// its verified call-site lines; what cannot be placed is listed, not edited.
import { MastError } from "../base/errors.js";
import type { EditRules } from "../lang/edit-rules.js";
import { listing, matching, notFound, walk, type TextEdit } from "./ast-walk.js";
import type { SyntaxNode, Tree } from "./parser.js";

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
    if (list.blocked)
      throw new MastError("UNSUPPORTED_OPERATION", `'${site.query}': ${list.blocked}`, { hint: "Add the parameter by hand (ast replace-body on the signature), or give it a default there instead." });
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
        else if (before !== null && call.count !== before)
          unresolved.push({
            line: node.startPosition.row + 1,
            text: `${node.text.split("\n")[0]!.slice(0, 120)} (passes ${call.count} argument(s) where ${before} parameter(s) come before the new one)`,
          });
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
