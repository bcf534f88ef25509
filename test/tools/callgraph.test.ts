// mast_graph and `mast graph`: the call graph around a symbol on a real indexed fixture — verified
// callers and callees to a depth, potential neighbours dashed, the node cap stated — as Mermaid and
// DOT text compared whole, and as SVG rendered by Graphviz with its nodes and edges checked.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { indexedProject } from "../helpers/indexed.js";
import { runMast } from "../helpers/cli.js";

const FILES = {
  "src/a.ts": ["export function leaf(): number {", "  return 1;", "}", "", "export function mid(o: any): number {", "  o.helper();", "  const x = leaf();", "  return x + leaf();", "}", ""].join("\n"),
  "src/b.ts": ["import { mid } from './a.js';", "", "export function top(): number {", "  return mid();", "}", ""].join("\n"),
  "src/c.ts": ["export function loose(o: any): number {", "  return o.mid();", "}", ""].join("\n"),
  "src/h1.ts": ["export function helper(): void {}", ""].join("\n"),
  "src/h2.ts": ["export function helper(): void {}", ""].join("\n"),
};

const hasDot = spawnSync("dot", ["-V"]).status === 0;

describe("mast_graph", () => {
  const p = indexedProject(FILES);

  it("draws verified callers and callees solid, potential ones dashed, as Mermaid", async () => {
    const answer = await p.call("mast_graph", { symbol: "mid" });
    expect(answer).toEqual({
      declaration: { file_path: "src/a.ts", line: 5, kind: "function", is_exported: true },
      format: "mermaid",
      nodes: 6,
      edges: { verified: 2, potential: 3 },
      graph: [
        "flowchart LR",
        '  n0["mid<br/>src/a.ts:5"]',
        '  n1["top<br/>src/b.ts:3"]',
        '  n2["leaf<br/>src/a.ts:1"]',
        '  n3["loose<br/>src/c.ts:1"]',
        '  n4["helper<br/>src/h1.ts:1"]',
        '  n5["helper<br/>src/h2.ts:1"]',
        "  n1 --> n0",
        "  n0 -->|2| n2",
        "  n3 -.-> n0",
        "  n0 -.-> n4",
        "  n0 -.-> n5",
        "  style n0 stroke-width:3px",
      ].join("\n"),
    });
  });

  it("as DOT, one direction, a depth, and the node cap stated", async () => {
    const dot = await p.call("mast_graph", { symbol: "leaf", direction: "callers", format: "dot" });
    expect(dot.graph).toBe(
      [
        "digraph calls {",
        "  rankdir=LR;",
        '  node [shape=box, fontname="Helvetica"];',
        '  n0 [label="leaf\\nsrc/a.ts:1", style=bold];',
        '  n1 [label="mid\\nsrc/a.ts:5"];',
        '  n2 [label="top\\nsrc/b.ts:3"];',
        '  n1 -> n0 [label="2"];',
        "  n2 -> n1;",
        "}",
      ].join("\n"),
    );
    const shallow = await p.call("mast_graph", { symbol: "leaf", direction: "callers", depth: 1 });
    expect(shallow.nodes).toBe(2);
    const capped = await p.call("mast_graph", { symbol: "mid", max_nodes: 2 });
    expect(capped).toMatchObject({ nodes: 2, nodes_omitted: 4, edges_omitted: 4, edges: { verified: 1, potential: 0 } });
    const missing = await p.call("mast_graph", { symbol: "midd" });
    expect(missing).toMatchObject({ declaration: null, graph: null, not_found: true, did_you_mean: ["mid"] });
  });

  it.skipIf(!hasDot)("mast graph --format svg renders it with Graphviz: the nodes and edges are in the SVG", async () => {
    const r = await runMast(["graph", "mid", p.project.root, "--format", "svg"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd()).toMatch(/^<\?xml[\s\S]*<svg[\s\S]*<\/svg>$/);
    const titles = [...r.stdout.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1]!.replace(/&#45;/g, "-").replace(/&gt;/g, ">"));
    // Graphviz writes nodes and edges in its own layout order.
    expect(titles.sort()).toEqual(["calls", "n0", "n0->n2", "n0->n4", "n0->n5", "n1", "n1->n0", "n2", "n3", "n3->n0", "n4", "n5"]);
    // The potential edges are drawn dashed; the labels carry the declarations.
    expect((r.stdout.match(/stroke-dasharray/g) ?? []).length).toBe(3);
    expect(r.stdout).toContain(">src/b.ts:3<");
  });

  it("without Graphviz, svg is refused with how to get it; mermaid and dot still print", async () => {
    const r = await runMast(["graph", "mid", p.project.root, "--format", "svg"], { env: { MAST_DOT: "/nonexistent/dot" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("UNSUPPORTED_OPERATION");
    expect(r.stderr).toContain("apt-get install graphviz");
    const text = await runMast(["graph", "leaf", p.project.root, "--direction", "callers", "--format", "dot"]);
    expect(text.stdout.split("\n")[0]).toBe("digraph calls {");
    const unknown = await runMast(["graph", "midd", p.project.root]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("SYMBOL_NOT_FOUND");
    expect(unknown.stderr).toContain("Did you mean mid?");
  });
});

describe("mast_graph on private methods, top levels and many lines", () => {
  const many = indexedProject({
    "src/fmt.ts": ["export class Fmt {", "  #pad(s: string): string { return s; }", "  run(): string {", "    return this.#pad('x');", "  }", "}", ""].join("\n"),
    "src/pad.ts": ["export function pad(s: string): string { return s; }", ""].join("\n"),
    "src/t.ts": ["import { Fmt } from './fmt.js';", "new Fmt().run();", "const f: any = null;", "f.run();", ""].join("\n"),
    "src/noisy.ts": ["export function noisy(o: any): void {", ...Array.from({ length: 1_005 }, () => "  o.run();"), "}", ""].join("\n"),
  });

  it("a private method's call is its edge, not a same-named function's; a top level is one node; lines past the 1,000 drawn from are counted", async () => {
    const answer = await many.call("mast_graph", { symbol: "Fmt.run" });
    expect(answer).toEqual({
      declaration: { file_path: "src/fmt.ts", line: 3, kind: "method", is_exported: true },
      format: "mermaid",
      nodes: 4,
      edges: { verified: 2, potential: 2 },
      potential_lines_omitted: 6,
      graph: [
        "flowchart LR",
        '  n0["Fmt.run<br/>src/fmt.ts:3"]',
        '  n1["(top level)<br/>src/t.ts:1"]',
        '  n2["Fmt.#pad<br/>src/fmt.ts:2"]',
        '  n3["noisy<br/>src/noisy.ts:1"]',
        "  n1 --> n0",
        "  n0 --> n2",
        "  n1 -.-> n0",
        "  n3 -.->|999| n0",
        "  style n0 stroke-width:3px",
        "  %% left out: 6 more lines naming the symbol",
      ].join("\n"),
    });
  });
});
