// The flat syntax tree (flat-tree.ts, native/flat_tree.c) against tree-sitter's own binding: the
// addon's words equal a walk of the binding's tree word for word, every flat node answers what the
// binding's node answers, a parse past its budget returns null, and every fixture extracts the same
// whichever producer made its tree. The addon must build on the machines mast is tested on: the
// first test fails where `npm ci` could not compile it (scripts/build-native.mjs says why).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { flatTreeProducer, parseFlat, type FlatNode } from "../../src/syntax/flat-tree.js";
import { parseSource, type SyntaxNode as BindingNode } from "../../src/syntax/parser.js";
import { GOLDEN_OPTIONS } from "../helpers/extraction.js";

const FIXTURES = path.resolve(import.meta.dirname, "..", "fixtures");
const GRAMMAR_OF: Record<string, string> = { ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".py": "python", ".go": "go", ".rs": "rust" };

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
  const facts = (n: BindingNode | FlatNode) => [n.type, n.typeId, n.isNamed, n.isMissing, n.hasError, n.startIndex, n.endIndex, n.startPosition, n.endPosition, n.childCount, n.namedChildCount, n.text];
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
  expect(f.namedChildren.map((n) => n.startIndex), at).toEqual(b.namedChildren.map((n) => n.startIndex));
  return nodes;
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
      return fixtureSources().map(([name, , text]) => JSON.stringify(extractFile(`src/${name}`, text, GOLDEN_OPTIONS)));
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
});
