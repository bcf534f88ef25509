// Navigation facts of one file's text (mast_definition, mast_references): the name at a position
// and every occurrence of a name with what it is — declaration, binding, use and the binding it
// refers to, member access and its object's owner — and whether it is read, written or called.
// A pure function of (path, text): the tree stays inside; callers get plain data.
import { sourceInfo } from "../lang/languages.js";
import { nameSites, nameTokenAt, type NameSite, type TextPosition } from "./name-sites.js";
import { parseSource } from "./parser.js";

export type { NameSite, SiteBinding, TextPosition } from "./name-sites.js";

/** A navigation parse gives up after this long (a file that large is answered by name). */
const PARSE_TIMEOUT_MS = 3000;

export interface FileNames {
  /** The name token at a position, or null when the position is on no name. */
  tokenAt(position: TextPosition): { name: string; line: number; column: number } | null;
  /** Every occurrence of `name`, in document order (memoised per name). */
  sites(name: string): readonly NameSite[];
}

/** The navigation facts of a file, or null when its language has no binding rules (no AST edits) or the parse does not finish. */
export function fileNames(path: string, text: string): FileNames | null {
  const info = sourceInfo(path, text);
  const rules = info?.spec.edits;
  if (!info || !rules || info.grammar === null) return null;
  const tree = parseSource(info.grammar, text, PARSE_TIMEOUT_MS);
  if (tree === null) return null;
  const memo = new Map<string, readonly NameSite[]>();
  return {
    tokenAt: (position) => nameTokenAt(rules, tree, text, position),
    sites: (name) => {
      let found = memo.get(name);
      if (found === undefined) memo.set(name, (found = nameSites(rules, tree, text, name).sites));
      return found;
    },
  };
}
