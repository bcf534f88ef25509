// The flat syntax tree (flat-tree.ts, native/flat_tree.c) against tree-sitter's own binding: the
// addon's words equal a walk of the binding's tree word for word, every flat node answers what the
// binding's node answers, a parse past its budget returns null, and every fixture extracts the same
// whichever producer made its tree. A query run in the same call (the breadth languages' query
// files) returns the binding's own matches, its text predicates applied alike. The addon must build on the machines mast is tested on: the
// first test fails where `npm ci` could not compile it (scripts/build-native.mjs says why).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { extensionInfo } from "../../src/lang/languages.js";
import { flatTreeProducer, parseFlat, parseFlatMatches, type FlatMatch, type FlatNode } from "../../src/syntax/flat-tree.js";
import { parseSource, queryMatches, type QueryMatch, type SyntaxNode as BindingNode } from "../../src/syntax/parser.js";
import { GOLDEN_OPTIONS } from "../helpers/extraction.js";

const FIXTURES = path.resolve(import.meta.dirname, "..", "fixtures");
const GRAMMAR_OF: Record<string, string> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".py": "python",
  ".go": "go",
  ".rs": "rust",
};

/** Sources the fixtures lack: broken code, non-ASCII and astral text, CRLF, an empty file. */
const EDGE_CASES: Array<[string, string]> = [
  ["broken.ts", "const = 5;\nfoo(\nclass { m( }\n"],
  ["unicode.ts", "const café = '😀'; /* ünï */ let 𝒳 = café + `${'é'}`;\r\nfunction f(a: number) {\r\n  return a.\r\n}\r\n"],
  ["broken.py", "def café(ñ):\n    return ñ.\nclass :\n    pass\n"],
  ["broken.go", "package p\n\nfunc Área(π float64) { if π > { } }\n"],
  ["broken.rs", "fn r#match(r#type: u8) -> u8 { r#type. }\nimpl<T> for {}\n"],
  ["empty.py", ""],
];

function fixtureSources(): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  for (const dir of ["extract", "ast"]) {
    for (const name of fs.readdirSync(path.join(FIXTURES, dir)).sort()) {
      const grammar = GRAMMAR_OF[path.extname(name)];
      if (grammar) out.push([`${dir}/${name}`, grammar, fs.readFileSync(path.join(FIXTURES, dir, name), "utf8")]);
    }
  }
  return [...out, ...EDGE_CASES.map(([name, text]): [string, string, string] => [`edge/${name}`, GRAMMAR_OF[path.extname(name)]!, text])];
}

function mustParse<T>(tree: T | null): T {
  if (tree === null) throw new Error("the parse did not finish");
  return tree;
}

/** Walks a binding node and its flat twin together; the first disagreement is thrown, naming where. */
function compare(b: BindingNode, f: FlatNode, where: string): number {
  const at = `${where} ${b.type}@${b.startIndex}`;
  const facts = (n: BindingNode | FlatNode) => [
    n.type,
    n.typeId,
    n.isNamed,
    n.isMissing,
    n.hasError,
    n.startIndex,
    n.endIndex,
    n.startPosition,
    n.endPosition,
    n.childCount,
    n.namedChildCount,
    n.text,
  ];
  expect(facts(f), at).toEqual(facts(b));
  const previous = (n: BindingNode | FlatNode) => n.previousNamedSibling && [n.previousNamedSibling.type, n.previousNamedSibling.startIndex];
  expect(previous(f), at).toEqual(previous(b));
  expect([f.parent?.startIndex, f.firstChild?.type, f.firstNamedChild?.type], at).toEqual([b.parent?.startIndex, b.firstChild?.type, b.firstNamedChild?.type]);
  const bc = b.children;
  const fc = f.children;
  let nodes = 1;
  for (let i = 0; i < bc.length; i++) {
    const fieldName = b.fieldNameForChild(i) ?? null;
    expect(f.fieldNameForChild(i), at).toBe(fieldName);
    if (fieldName) expect(f.childForFieldName(fieldName)?.startIndex, `${at} .${fieldName}`).toBe(b.childForFieldName(fieldName)?.startIndex);
    expect(f.child(i)?.id).toBe(fc[i]!.id);
    nodes += compare(bc[i]!, fc[i]!, where);
  }
  expect(
    f.namedChildren.map((n) => n.startIndex),
    at,
  ).toEqual(b.namedChildren.map((n) => n.startIndex));
  return nodes;
}

/** The breadth fixtures (Java, C, C++, C#, Ruby, PHP) with their grammar and query, and broken code of each. */
function breadthSources(): Array<[string, string, string, string]> {
  const out: Array<[string, string, string, string]> = [];
  const root = path.join(FIXTURES, "carets");
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const info = extensionInfo(full);
        if (info?.spec.outline) out.push([path.relative(FIXTURES, full), info.grammar, info.spec.outline.query.text(), fs.readFileSync(full, "utf8")]);
      }
    }
  };
  walk(root);
  const broken: Array<[string, string]> = [
    ["broken.java", "class A { void m( { foo(); }\nint x = ;\n"],
    ["broken.c", "#if X\nint f(void) {\n#else\nint f(int a) {\n#endif\n  return g(1);\n}\nstruct { int a\n"],
    ["broken.rb", "class A\n  def m(\n    foo.bar(1\n  end\n"],
    ["broken.php", "<?php\nclass A { function m() { $this->x(; } }\n"],
    ["unicode.cs", 'class Ünï { void Café() { Ñ("😀"); } }\r\n'],
  ];
  for (const [name, text] of broken) {
    const info = extensionInfo(name)!;
    out.push([`edge/${name}`, info.grammar, info.spec.outline!.query.text(), text]);
  }
  return out;
}

describe("flat trees", () => {
  it("are made by the native addon on this machine", () => {
    expect(flatTreeProducer).toBe("native");
  });

  it("hold, word for word, what a walk of the binding's tree holds", () => {
    let files = 0;
    for (const [name, grammar, text] of fixtureSources()) {
      const native = mustParse(parseFlat(grammar, text, 10_000, "native"));
      const walked = mustParse(parseFlat(grammar, text, 10_000, "binding"));
      expect([...walked.words], name).toEqual([...native.words]);
      files++;
    }
    expect(files).toBeGreaterThan(40);
  });

  it("answer every node question as the binding's nodes do", () => {
    let nodes = 0;
    for (const [name, grammar, text] of fixtureSources()) {
      const flat = mustParse(parseFlat(grammar, text, 10_000));
      nodes += compare(mustParse(parseSource(grammar, text, 10_000)).rootNode, flat.rootNode, name);
    }
    expect(nodes).toBeGreaterThan(10_000);
  });

  it("find descendants by type and by range as the binding does", () => {
    const text = fs.readFileSync(path.join(FIXTURES, "extract", "coverage.ts"), "utf8");
    const b = mustParse(parseSource("typescript", text, 10_000)).rootNode;
    const f = mustParse(parseFlat("typescript", text, 10_000)).rootNode;
    const spans = (nodes: Array<{ type: string; startIndex: number; endIndex: number }>) => nodes.map((n) => [n.type, n.startIndex, n.endIndex]);
    expect(spans(f.descendantsOfType(["identifier", "call_expression"]))).toEqual(spans(b.descendantsOfType(["identifier", "call_expression"])));
    expect(f.descendantsOfType("identifier").length).toBe(b.descendantsOfType("identifier").length);
    expect(f.descendantsOfType("identifier").length).toBeGreaterThan(40);
    for (let start = 0; start < text.length; start += 7) {
      for (const width of [0, 1, 5, 40]) {
        const end = Math.min(text.length, start + width);
        expect(spans([f.descendantForIndex(start, end)]), `[${start}, ${end}]`).toEqual(spans([b.descendantForIndex(start, end)]));
      }
    }
  });

  it("give up a parse past its budget (null), then parse the next text normally", () => {
    const big = "const a = [" + "1, ".repeat(400_000) + "];\n";
    expect(parseFlat("typescript", big, 0)).toBeNull();
    expect(mustParse(parseFlat("typescript", "let x = 1;\n", 1_000)).rootNode.namedChildren.map((n) => n.type)).toEqual(["lexical_declaration"]);
  });

  it("extract every fixture the same whichever producer made the tree", async () => {
    const extractAll = async () => {
      const { extractFile } = await import("../../src/syntax/extract.js");
      const sources = [...fixtureSources().map(([name, , text]) => [name, text]), ...breadthSources().map(([name, , , text]) => [name, text])];
      expect(sources.length).toBeGreaterThan(70);
      return sources.map(([name, text]) => JSON.stringify(extractFile(`src/${name}`, text!, GOLDEN_OPTIONS)));
    };
    const native = await extractAll();
    vi.stubEnv("MAST_NATIVE", "0");
    vi.resetModules();
    try {
      const { flatTreeProducer: producer } = await import("../../src/syntax/flat-tree.js");
      expect(producer).toBe("binding");
      expect(await extractAll()).toEqual(native);
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });

  const seen = (matches: ReadonlyArray<FlatMatch | QueryMatch>) => matches.map((m) => [m.pattern, ...m.captures.map((c) => [c.name, c.node.type, c.node.startIndex, c.node.endIndex])]);

  it("run a query in the same call and return the binding's matches, in its order, naming the tree's nodes", () => {
    let matches = 0;
    for (const [name, grammar, query, text] of breadthSources()) {
      const expected = queryMatches(grammar, query, mustParse(parseSource(grammar, text, 10_000)).rootNode);
      const native = mustParse(parseFlatMatches(grammar, text, 10_000, query, "native"));
      const walked = mustParse(parseFlatMatches(grammar, text, 10_000, query, "binding"));
      expect(seen(native.matches), name).toEqual(seen(expected));
      expect(seen(walked.matches), name).toEqual(seen(expected));
      // A capture is the tree's own node: its parent and index agree with the words.
      for (const m of native.matches) for (const c of m.captures) expect(native.tree.node(c.node.id)).toBe(c.node);
      matches += expected.length;
    }
    expect(matches).toBeGreaterThan(200);
  });

  it("apply #eq?, #match?, #any-of? and their negations as the binding applies them", () => {
    const text = "class A\n  include Foo\n  extend Bar\n  prepend Baz\n  require 'x'\n  def new; end\n  def other; new; other; end\n  def make; one; two; end\nend\n";
    const call = "(call method: (identifier) @m) @c";
    const body = "(method name: (identifier) @a (body_statement (identifier) @b))";
    const quantified = "(method name: (identifier) @a (body_statement (identifier)+ @b))";
    const queries = [
      `(${call} (#eq? @m "include"))`,
      `(${call} (#not-eq? @m "include"))`,
      `(${call} (#any-of? @m "include" "extend"))`,
      `(${call} (#not-any-of? @m "include" "extend"))`,
      `(${call} (#match? @m "^(ex|pre)"))`,
      `(${call} (#not-match? @m "^(ex|pre)"))`,
      `(${body} (#eq? @a @b))`,
      `(${body} (#not-eq? @a @b))`,
      `(${quantified} (#any-not-eq? @b "other"))`,
      `(${quantified} (#match? @b "^o"))`,
    ];
    const tree = mustParse(parseSource("ruby", text, 10_000)).rootNode;
    const counts = queries.map((query) => {
      const expected = queryMatches("ruby", query, tree);
      expect(seen(mustParse(parseFlatMatches("ruby", text, 10_000, query, "native")).matches), query).toEqual(seen(expected));
      return expected.length;
    });
    // Each predicate kept some matches and left out others (a predicate that filters nothing tests nothing).
    expect(counts).toEqual([1, 3, 2, 2, 2, 2, 1, 3, 2, 1]);
  });

  it("refuse a query that does not compile or uses a predicate it cannot apply, saying why", () => {
    expect(() => parseFlatMatches("ruby", "x\n", 1_000, "(call method: (nonexistent_node) @m)")).toThrow(/the ruby query does not compile: .*node type error at byte \d+/);
    expect(() => parseFlatMatches("ruby", "x\n", 1_000, '((identifier) @x (#set! "k" "v"))')).toThrow(/the ruby query does not compile: the predicate #set! is not supported/);
  });
});
