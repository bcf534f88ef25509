// The only importer of tree-sitter: loads each grammar once per thread and parses text
// under a time budget. A parse that cannot finish returns null instead of throwing.
import { createRequire } from "node:module";
import type TreeSitter from "tree-sitter";
import { GRAMMARS, grammarLoader, type Grammar } from "../lang/languages.js";

// A CommonJS package is required, not imported: ESM's import of CommonJS first scans its source
// for export names (~25 ms of every CLI start for `ignore` alone, and of every parse worker's).
const Parser = createRequire(import.meta.url)("tree-sitter") as typeof TreeSitter;

export type SyntaxNode = TreeSitter.SyntaxNode;
export type Tree = TreeSitter.Tree;
export type TreeCursor = TreeSitter.TreeCursor;

const parsers = new Map<Grammar, TreeSitter>();

function parserFor(grammar: Grammar): TreeSitter {
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = new Parser();
    // Each grammar's native binding loads on first use: a run that parses only .ts never loads JavaScript's.
    parser.setLanguage(grammarLoader(grammar)() as TreeSitter.Language);
    parsers.set(grammar, parser);
  }
  return parser;
}

/** Time this thread has spent in tree-sitter's parse (ms): the index run's per-phase figures read it. */
export const parseTime = { ms: 0 };

/** Parses text with the grammar; null when the parse exceeded `timeoutMs` or the parser gave up. */
export function parseSource(grammar: Grammar, text: string, timeoutMs: number): Tree | null {
  const started = performance.now();
  try {
    return parseWithin(grammar, text, timeoutMs);
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

/** Loads every grammar (used by `doctor`-style checks and tests); throws if one fails to load. */
export function loadAllGrammars(): Grammar[] {
  return GRAMMARS.map((g) => {
    parserFor(g);
    return g;
  });
}

const FIELD_GETTERS: Record<string, string> = {};

/**
 * `node.childForFieldName(name)` through the binding's generated per-type getter (`functionNode`
 * for `function`), which skips the field-name lookup on every call — call-site extraction does
 * this for every call in the project. Falls back to the lookup when the type has no such getter.
 */
export function field(node: SyntaxNode, name: string): SyntaxNode | null {
  const getter = (FIELD_GETTERS[name] ??= `${name.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())}Node`);
  const value = (node as unknown as Record<string, SyntaxNode | null | undefined>)[getter];
  return value === undefined ? node.childForFieldName(name) : value;
}
