// Reading past a broken parse, for the breadth extractor (outline.ts): the spans of a tree's
// outermost ERROR nodes; in a file with preprocessor conditionals, the regions they disturbed read
// again from the view of the file (lang/outline.ts conditionalViews) that parses them best; and
// what stays unparsed, as line ranges for the file's extraction.
import type { Grammar } from "../lang/languages.js";
import { conditionalViews } from "../lang/outline.js";
import { parseFlatMatches, type FlatMatch, type FlatTree } from "./flat-tree.js";

/** A node's extent. */
export type Span = readonly [number, number];

/**
 * The matches to read for a file whose tree has errors: where a view of the file (`preprocessor`
 * languages) reads a region better than the tree, that view's matches there in place of the tree's.
 * Also the spans so read (their definitions' nodes are not the tree's) and the spans left unparsed.
 * A tree without errors: its own matches, nothing recovered, nothing unparsed.
 */
export function readPastErrors(
  grammar: Grammar,
  query: string,
  source: string,
  tree: FlatTree,
  matches: readonly FlatMatch[],
  preprocessor: boolean,
  timeoutMs: number,
): { matches: readonly FlatMatch[]; recovered: Span[]; unparsed: Span[] } {
  if (!tree.rootNode.hasError) return { matches, recovered: [], unparsed: [] };
  const recovered = preprocessor ? recover(grammar, query, source, tree, matches, timeoutMs) : { spans: [], matches: [], unparsed: errorRegions(tree) };
  if (recovered.spans.length === 0) return { matches, recovered: [], unparsed: recovered.unparsed };
  const outside = (m: FlatMatch) => {
    const at = m.captures[0]!.node.startIndex;
    return !recovered.spans.some(([s, e]) => at >= s && at < e);
  };
  return { matches: [...matches.filter(outside), ...recovered.matches], recovered: recovered.spans, unparsed: recovered.unparsed };
}

/** Character spans that cover more than one line, as (first, last) lines. */
export function linesOf(text: string, spans: readonly Span[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [s, e] of spans) {
    const first = lineAt(text, s);
    const last = lineAt(text, Math.max(s, e - 1));
    if (last > first) out.push([first, last]);
  }
  return out;
}

const lineAt = (text: string, offset: number) => {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
};

/**
 * What the parse lost to preprocessor conditionals (a brace closed in one branch, an `#else`
 * header): each outermost ERROR region of the file's tree, widened to the top-level declarations
 * it disturbed, is read from the view of the file (conditionalViews: same length, lines in place)
 * that finds the most definitions there, then has the fewest characters in error — when that beats
 * the file's own tree. The spans so read and their matches; the file's tree stays the one read
 * everywhere else.
 */
function recover(grammar: Grammar, query: string, source: string, tree: FlatTree, primary: readonly FlatMatch[], timeoutMs: number): { spans: Span[]; matches: FlatMatch[]; unparsed: Span[] } {
  const errors = errorRegions(tree);
  const texts = conditionalViews(source);
  if (errors.length === 0 || texts.length === 0) return { spans: [], matches: [], unparsed: errors };
  // Widened to the top-level nodes each overlaps, overlapping regions merged.
  const top = tree.rootNode.namedChildren.map((n): Span => [n.startIndex, n.endIndex]);
  const regions: Array<[number, number]> = [];
  // An error inside a line of a body (a macro's argument read as an expression) broke no
  // declaration; one spanning lines, or starting a line at its first column, may have.
  const suspect = ([s, e]: Span) => source.slice(s, e).includes("\n") || s === 0 || source[s - 1] === "\n";
  for (const [s, e] of errors.filter(suspect)) {
    let [start, end] = [s, e];
    for (const [ts, te] of top) if (ts < end && te > start) [start, end] = [Math.min(start, ts), Math.max(end, te)];
    const last = regions.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else regions.push([start, end]);
  }
  // The file's own tree first, then each view: parsed (and queried) once, when a region asks.
  const candidates: Array<{ errors: Array<[number, number]>; matches: FlatMatch[] } | null> = [{ errors, matches: [] }];
  const candidate = (i: number) => {
    if (i === 0 || candidates[i] !== undefined) return candidates[i] ?? null;
    const parsed = parseFlatMatches(grammar, texts[i - 1]!, timeoutMs, query);
    candidates[i] = parsed === null ? null : { errors: errorRegions(parsed.tree), matches: parsed.matches };
    return candidates[i]!;
  };
  const spans: Span[] = [];
  const matches: FlatMatch[] = [];
  const unparsed: Span[] = [];
  for (const [start, end] of regions) {
    // A region with no conditional in it reads the same in every view.
    if (!CONDITIONAL.test(source.slice(start, end))) {
      unparsed.push(...errors.filter(([s, e]) => s < end && e > start));
      continue;
    }
    const inRegion = (m: FlatMatch) => {
      const at = m.captures[0]!.node.startIndex;
      return at >= start && at < end;
    };
    const errorsIn = (list: Array<[number, number]>) => list.reduce((n, [s, e]) => n + Math.max(0, Math.min(e, end) - Math.max(s, start)), 0);
    // Definitions parsed whole: one an error runs through may be a piece of something else.
    const definitionsIn = (list: readonly FlatMatch[]) => list.filter((m) => inRegion(m) && m.captures.some((c) => c.name.startsWith("definition.") && !c.node.hasError)).length;
    // The reading that finds the most whole definitions there (a view that blanks an `#else` finds fewer), then the fewest errors.
    let best = 0;
    let bestScore: [number, number] = [definitionsIn(primary), errorsIn(errors)];
    for (let i = 1; i <= texts.length; i++) {
      const c = candidate(i);
      if (c === null) continue;
      const score: [number, number] = [definitionsIn(c.matches), errorsIn(c.errors)];
      if (score[0] > bestScore[0] || (score[0] === bestScore[0] && score[1] < bestScore[1])) [best, bestScore] = [i, score];
      // An error-free reading of every branch: a first-branches view only drops code.
      if (best === 1 && bestScore[1] === 0) break;
    }
    // What stays unparsed in the region: the errors of the reading taken there.
    const taken = best === 0 ? errors : candidates[best]!.errors;
    unparsed.push(...taken.filter(([s, e]) => s < end && e > start));
    if (best === 0) continue;
    spans.push([start, end]);
    matches.push(...candidates[best]!.matches.filter(inRegion));
  }
  return { spans, matches, unparsed };
}

const CONDITIONAL = /^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b/m;

/** The spans of the outermost ERROR nodes. */
function errorRegions(tree: FlatTree): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < tree.length; ) {
    const node = tree.node(i);
    if (node.type === "ERROR") out.push([node.startIndex, node.endIndex]);
    else if (node.hasError) {
      i++;
      continue;
    }
    i = tree.subtreeEnd(i);
  }
  return out;
}
