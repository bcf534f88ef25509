// The token passes over flat trees (ts-tokens.ts, tree-extractor.ts) against a plain walk of the
// binding's tree.
import { describe, expect, it } from "vitest";
import { parseSource, type SyntaxNode, type Tree } from "../../src/syntax/parser.js";
import { extractFile } from "../../src/syntax/extract.js";
import { parseFlat, type FlatTree } from "../../src/syntax/flat-tree.js";
import { collectTokensAndCalls } from "../../src/syntax/ts-tokens.js";

const SOURCE = [
  "// ünïcode and escapes: the identifier's end is not ASCII-decidable",
  "const café = 1, \\u0061bc = 2, $x_1 = café + abc;",
  "class Box { #secret = 0; get() { return this.#secret + $x_1; } }",
  "const f = function () { return new Box().get(); };",
  "const s = `a ${f()} b`, t = 'not(an, identifier)';",
  "",
].join("\n");

const TSX = 'export const C = () => <div data-test-id="x" aria-label={label}>{item.name}</div>;\n';

function flat(grammar: "typescript" | "tsx", text: string): FlatTree {
  const tree = parseFlat(grammar, text, 10_000);
  if (!tree) throw new Error("parse failed");
  return tree;
}

function parse(grammar: "typescript" | "tsx", text: string): Tree {
  const tree = parseSource(grammar, text, 10_000);
  if (!tree) throw new Error("parse failed");
  return tree;
}

/** Every node of the tree in document order, through the public API. */
function allNodes(node: SyntaxNode, out: SyntaxNode[] = []): SyntaxNode[] {
  out.push(node);
  for (const child of node.children) allNodes(child, out);
  return out;
}

describe("the token pass", () => {
  const walkTokens = (tree: Tree, text: string) =>
    allNodes(tree.rootNode)
      .filter((n) => n.isNamed && /identifier$/.test(n.type) && n.type !== "nested_identifier" && n.endIndex > n.startIndex)
      .map((n) => ({ index: n.startIndex, text: text.slice(n.startIndex, n.endIndex) }));

  it("reads the same identifier tokens a walk of the tree reads: non-ASCII, escaped, private, JSX names", () => {
    const tree = parse("typescript", SOURCE);
    const pass = collectTokensAndCalls(flat("typescript", SOURCE), SOURCE, "typescript");
    expect(pass.tokens).toEqual(walkTokens(tree, SOURCE));
    expect(pass.tokens.map((t) => t.text)).toContain("\\u0061bc");
    expect(pass.tokens.map((t) => t.text)).toContain("#secret");
    expect(pass.tokens.map((t) => t.text)).not.toContain("identifier");
    expect(pass.callNodes.calls.map((c) => c.text)).toEqual(["new Box().get()", "new Box()", "f()"]);

    const jsxPass = collectTokensAndCalls(flat("tsx", TSX), TSX, "tsx");
    expect(jsxPass.tokens.map((t) => t.text)).toEqual(["C", "div", "data-test-id", "aria-label", "label", "item", "name", "div"]);
  });

  it("drops zero-width identifiers that error recovery inserts", () => {
    const broken = "const = 5;\nfoo(\n";
    const tree = parse("typescript", broken);
    expect(tree.rootNode.hasError).toBe(true);
    const pass = collectTokensAndCalls(flat("typescript", broken), broken, "typescript");
    expect(pass.tokens).toEqual(walkTokens(tree, broken));
    expect(pass.tokens.map((t) => t.text)).toEqual(["foo"]);
  });
});

describe("the token scan of Python, Go and Rust (tree-extractor.ts collect)", () => {
  const OPTIONS = { chunkSplitThreshold: 100, contextLines: 0, markdownHeadingDepth: 2, parseTimeoutMs: 10_000 };
  const identifiers = (path: string, text: string) => {
    const result = extractFile(path, text, OPTIONS);
    if (!result.ok) throw new Error(result.error);
    return result.extraction.chunks.map((c) => [c.symbolName, c.identifiers]);
  };

  it("reads identifiers whose end the text cannot tell (non-ASCII, raw) from the tree", () => {
    expect(identifiers("a.py", "def café(ñ, x_1):\n    return ñ + x_1\n")).toEqual([["café", ["café", "ñ", "x_1"]]]);
    expect(identifiers("a.go", "package p\n\nfunc Área(π float64) float64 { return π * π }\n")).toEqual([
      [null, ["p"]],
      ["Área", ["Área", "π", "float64"]],
    ]);
    expect(identifiers("a.rs", "fn r#match(r#type: u8) -> u8 { r#type }\n")).toEqual([["r#match", ["r#match", "r#type"]]]);
  });

  it("leaves out the zero-width identifiers error recovery inserts", () => {
    // `a.` lacks its field name: recovery inserts a MISSING identifier (no text) after the dot.
    expect(identifiers("a.rs", "fn foo(a: A) {\n    a.\n}\n")).toEqual([["foo", ["foo", "a", "A"]]]);
    expect(identifiers("a.py", "def f(a):\n    return a.\n")).toEqual([["f", ["f", "a"]]]);
  });
});
