// The only importer of tree-sitter: loads each grammar once per thread and parses text
// under a time budget (the last tree per grammar kept for a parse of the same text). A parse
// that cannot finish returns null instead of throwing; runs a language's queries over a tree.
import { createRequire } from "node:module";
import type TreeSitter from "tree-sitter";
import { GRAMMARS, grammarLoader, type Grammar } from "../lang/languages.js";

// A CommonJS package is required, not imported: ESM's import of CommonJS first scans its source
// for export names (~25 ms of every CLI start for `ignore` alone, and of every parse worker's).
// Required at the first parse, not with this module: a process that never parses (a `mast query`
// answered from the index) does not load the native binding (~8 ms).
let loaded: typeof TreeSitter | undefined;
const treeSitter = (): typeof TreeSitter => (loaded ??= createRequire(import.meta.url)("tree-sitter") as typeof TreeSitter);

export type SyntaxNode = TreeSitter.SyntaxNode;
export type Tree = TreeSitter.Tree;
export type TreeCursor = TreeSitter.TreeCursor;

const parsers = new Map<Grammar, TreeSitter>();

function parserFor(grammar: Grammar): TreeSitter {
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = new (treeSitter())();
    // Each grammar's native binding loads on first use: a run that parses only .ts never loads JavaScript's.
    parser.setLanguage(grammarLoader(grammar)() as TreeSitter.Language);
    parsers.set(grammar, parser);
  }
  return parser;
}

/** Time this thread has spent in tree-sitter's parse (ms) and the parses it ran: the index run's per-phase figures read them. */
export const parseTime = { ms: 0, parses: 0 };

/**
 * The last tree each grammar parsed, with its text: parsing the same text again reuses it — an
 * edit's after-write parse gate, then the index refresh of the file it wrote. Trees are never
 * edited, so one can serve every reader.
 */
const lastParse = new Map<Grammar, { readonly text: string; readonly tree: Tree }>();

/** Parses text with the grammar; null when the parse exceeded `timeoutMs` or the parser gave up. */
export function parseSource(grammar: Grammar, text: string, timeoutMs: number): Tree | null {
  const last = lastParse.get(grammar);
  if (last !== undefined && last.text === text) return last.tree;
  const started = performance.now();
  try {
    const tree = parseWithin(grammar, text, timeoutMs);
    parseTime.parses++;
    if (tree) lastParse.set(grammar, { text, tree });
    return tree;
  } finally {
    parseTime.ms += performance.now() - started;
  }
}

function parseWithin(grammar: Grammar, text: string, timeoutMs: number): Tree | null {
  const deadline = Date.now() + timeoutMs;
  const parser = parserFor(grammar);
  // bufferSize: large enough that big files are handed to the parser in few slices.
  const tree = parser.parse(text, null, {
    bufferSize: Math.min(Math.max(text.length + 1, 32 * 1024), 16 * 1024 * 1024),
    progressCallback: () => Date.now() > deadline,
  });
  if (!tree) {
    // An abandoned parse leaves state in the parser that the next parse would resume from.
    parser.reset();
    return null;
  }
  return tree;
}

const fragmentParsers = new Map<unknown, TreeSitter>();

/** Parses a fragment (an edit's new content) with the language a tree was parsed with; not kept, null when it does not finish in time. */
export function parseLike(tree: Tree, text: string, timeoutMs: number): Tree | null {
  const language = (tree as unknown as { language: unknown }).language;
  let parser = fragmentParsers.get(language);
  if (!parser) {
    parser = new (treeSitter())();
    parser.setLanguage(language as TreeSitter.Language);
    fragmentParsers.set(language, parser);
  }
  const deadline = Date.now() + timeoutMs;
  const parsed = parser.parse(text, null, { progressCallback: () => Date.now() > deadline });
  if (!parsed) parser.reset();
  return parsed ?? null;
}

const queries = new Map<Grammar, Map<string, TreeSitter.Query>>();

/** A query's matches (`captures`: name and node, in the query's capture order). */
export type QueryMatch = TreeSitter.QueryMatch;

/**
 * The matches of a query (tree-sitter's S-expression patterns, as a language's query file holds
 * them) over a node, the query compiled once per grammar and thread. A query that does not compile
 * is a defect of the query file: it throws, naming the grammar.
 */
export function queryMatches(grammar: Grammar, source: string, node: SyntaxNode): QueryMatch[] {
  let compiled = queries.get(grammar);
  if (!compiled) queries.set(grammar, (compiled = new Map()));
  let query = compiled.get(source);
  if (!query) {
    try {
      query = new (treeSitter().Query)(grammarLoader(grammar)() as TreeSitter.Language, source);
    } catch (err) {
      throw new Error(`the ${grammar} query does not compile: ${err instanceof Error ? err.message : String(err)}`);
    }
    compiled.set(source, query);
  }
  return query.matches(node);
}

/** Loads every grammar (used by `doctor`-style checks and tests); throws if one fails to load. */
export function loadAllGrammars(): Grammar[] {
  return GRAMMARS.map((g) => {
    parserFor(g);
    return g;
  });
}
