// The only importer of tree-sitter: loads each grammar once per thread and parses text
// under a time budget. A parse that cannot finish returns null instead of throwing.
import Parser from "tree-sitter";
import { GRAMMARS, grammarLoader, type Grammar } from "../lang/languages.js";

export type SyntaxNode = Parser.SyntaxNode;
export type Tree = Parser.Tree;
export type TreeCursor = Parser.TreeCursor;

const parsers = new Map<Grammar, Parser>();

function parserFor(grammar: Grammar): Parser {
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = new Parser();
    // Each grammar's native binding loads on first use: a run that parses only .ts never loads JavaScript's.
    parser.setLanguage(grammarLoader(grammar)() as Parser.Language);
    parsers.set(grammar, parser);
  }
  return parser;
}

/** Parses text with the grammar; null when the parse exceeded `timeoutMs` or the parser gave up. */
export function parseSource(grammar: Grammar, text: string, timeoutMs: number): Tree | null {
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
