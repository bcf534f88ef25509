// The checker pass's Go backend (query/checker-go.ts) on real files and the real `go`: the
// program is compiled into the state dir and type-checks a small two-package module. A call
// through a struct field of a value the syntactic resolver cannot type (a type assertion on
// context.Context's Value) becomes a verified `checker` edge; a call of another type's method of
// the same name is `resolves_to_different`; a call through an interface stays potential for the
// types that implement it (`unresolved`: dispatch may reach them) and is `resolves_to_different`
// for one that does not; a method expression and a function value are no calls; implementors of
// an interface embedding fmt.Stringer are go/types' exact set; without `go` the pass says so.
import { appendFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { onPath } from "../../src/base/programs.js";
import { runIndex, type IndexReport } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { indexStatus } from "../../src/index/status.js";
import { checkerPass } from "../../src/query/checker.js";
import { GoTypesAnalyzer } from "../../src/query/checker-go.js";
import { createToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { tempSpace, type TestProject } from "../helpers/project.js";
import { edgeResolution, edgeType, queryStore } from "../helpers/store-dump.js";
import { EDGE, RESOLVED } from "../../src/store/edge-codes.js";

const FILES: Record<string, string> = {
  "go.mod": "module example.com/app\n\ngo 1.18\n\ntoolchain go1.99.0\n",
  "shapes/shapes.go": [
    "package shapes", //                                 1
    "", //                                               2
    "import (", //                                       3
    '\t"bytes"; "fmt"', //                               4
    "", //                                               5
    '\t"github.com/nowhere/lib"', //                     6
    ")", //                                              7
    "", //                                               8
    "type Namer interface {", //                         9
    "\tfmt.Stringer", //                                10
    "\tName() string", //                               11
    "}", //                                             12
    "", //                                              13
    "type Circle struct{ R int }", //                   14
    "", //                                              15
    'func (c Circle) Name() string { return "circle" }', // 16
    'func (c Circle) String() string { return "c" }', //  17
    "", //                                              18
    "type Square struct{}", //                          19
    "", //                                              20
    'func (s *Square) Name() string { return "square" }', // 21
    'func (s *Square) String() string { return "s" }', //  22
    "", //                                              23
    "type Label struct{}", //                           24
    "", //                                              25
    'func (l Label) Name() string { return "label" }', // 26
    "", //                                              27
    "type Holder struct {", //                          28
    "\tExt   lib.Thing", //                             29
    "\tShape Circle", //                                30
    "}", //                                             31
    "", //                                              32
    "// Sized's method set holds bytes.Buffer's: only go/types sees that Buf has it.", // 33
    "type Sized interface {", //                        34
    "\tfmt.Stringer", //                                35
    "\tLen() int", //                                   36
    "}", //                                             37
    "", //                                              38
    "type Buf struct{ *bytes.Buffer }", //              39
    "", //                                              40
    "// Fake has Namer's method names, not its signatures.", // 41
    "type Fake struct{}", //                            42
    "", //                                              43
    'func (Fake) Name(x int) string { return "" }', //  44
    'func (Fake) String() string { return "" }', //     45
    "", //                                              46
  ].join("\n"),
  "app/app.go": [
    "package app", //                                   1
    "", //                                              2
    "import (", //                                      3
    '\t"context"', //                                   4
    "", //                                              5
    '\t"example.com/app/shapes"', //                    6
    ")", //                                             7
    "", //                                              8
    "type key struct{}", //                             9
    "", //                                             10
    "func Run(ctx context.Context, n shapes.Namer, list []shapes.Holder) string {", // 11
    "\th := ctx.Value(key{}).(*shapes.Holder)", //     12
    "\ta := h.Shape.Name()", //                        13
    "\tb := list[0].Ext.Name()", //                    14
    "\tc := n.Name()", //                              15
    "\tf := shapes.Label.Name", //                     16
    "\tcmd := Command{RunE: helper}", //               17
    "\treturn a + b + c + f(shapes.Label{}) + cmd.RunE()", // 18
    "}", //                                            19
    "", //                                             20
    "type Command struct{ RunE func() string }", //    21
    "", //                                             22
    'func helper() string { return "" }', //           23
    "", //                                             24
    "func first[T any](xs []T) T { return xs[0] }", // 25
    "", //                                             26
    "func More(list []shapes.Holder, m map[string]*shapes.Holder) {", // 27
    "\tfirst(list).Shape.Name()", //                   28
    '\tm["a"].Shape.Name()', //                        29
    "\tfor _, h := range list {", //                   30
    "\t\th.Shape.Name()", //                            31
    "\t}", //                                           32
    "}", //                                            33
    "", //                                             34
    "func Show[T shapes.Namer](x T) string { return x.Name() }", // 35
    "", //                                             36
  ].join("\n"),
};

const GO = onPath("go");
const space = tempSpace(FILES);

const index = (p: TestProject, mode: "full" | "incremental", checker: boolean, stateDir = join(p.root, ".mast")): Promise<IndexReport> =>
  runIndex(p.config({ stateDir }), { mode, threads: 0, ...(checker ? { checker: checkerPass } : {}) });

const VERDICTS =
  "SELECT s.name AS target, f.path || ':' || v.line AS at, v.verdict FROM checker_verdicts v JOIN symbols s ON s.id = v.target_id JOIN files f ON f.id = v.file_id ORDER BY target, at, s.line";
const verdicts = (p: TestProject, stateDir = join(p.root, ".mast")) => queryStore(statePaths(stateDir).graphDb, VERDICTS);
const checkerEdges = (p: TestProject) =>
  queryStore(
    statePaths(join(p.root, ".mast")).graphDb,
    `SELECT a.name AS source, b.name AS target, ${edgeType("e")} AS type, e.call_line AS line FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.resolution = ${RESOLVED.checker} ORDER BY type, line, source, target`,
  );

async function tool(p: TestProject, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const ctx = createToolContext(p.config({ stateDir: join(p.root, ".mast") }));
  try {
    return (await callTool(ctx, name, args)) as Record<string, any>;
  } finally {
    ctx.close();
  }
}

if (GO === null) console.log("checker-go tests skipped: go is not on PATH");

const APP_VERDICTS =
  "SELECT s.name AS target, v.line, v.verdict FROM checker_verdicts v JOIN symbols s ON s.id = v.target_id JOIN files f ON f.id = v.file_id WHERE f.path = 'app/app.go' ORDER BY target, v.line";
const IMPLEMENTS = `SELECT a.name AS type, b.name AS iface, ${edgeResolution("e")} AS resolution FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.edge_type = ${EDGE.IMPLEMENTS} ORDER BY iface, type`;

describe.skipIf(GO === null)("the checker pass on Go (go/types)", () => {
  it("verifies a call only go/types can type, classifies other types' methods away and keeps interface calls potential", async () => {
    const p = space.project();
    await index(p, "full", false);
    const plain = await tool(p, "mast_callers", { symbol: "Circle.Name", file_path: "shapes/shapes.go" });
    // `first(list).Shape.Name()` and `m["a"].Shape.Name()`: the syntactic resolver cannot type the receiver.
    expect(plain.verified_callers).toEqual([{ file_path: "app/app.go", resolution: "return_type", sites: ["13 Run: a := h.Shape.Name()", "31 More: h.Shape.Name()"] }]);
    expect(plain.potential_matches[0]).toEqual({
      file_path: "app/app.go",
      sites: ["14: b := list[0].Ext.Name()", "28: first(list).Shape.Name()", '29: m["a"].Shape.Name()', "35: func Show[T shapes.Namer](x T) string { return x.Name() }", "16: f := shapes.Label.Name"],
    });
    const syntactic = queryStore(statePaths(join(p.root, ".mast")).graphDb, IMPLEMENTS);
    expect(syntactic).toEqual([
      { type: "Circle", iface: "Namer", resolution: null },
      { type: "Fake", iface: "Namer", resolution: null },
      { type: "Square", iface: "Namer", resolution: null },
    ]);

    const report = await index(p, "incremental", true);
    expect(report.checker?.languages).toEqual([{ language: "go", backend: "go-types", available: true }]);
    expect(report.checker).toMatchObject({
      projects: 1,
      skipped: [],
      targets: 14,
      candidates: 52,
      calls_target: 3,
      edges: 3,
      resolves_to_different: 10,
      non_call_site: 32,
      unresolved: 7,
      implements: 1,
      outside_ts_scope: 0,
    });
    // The program is built in the state dir, never in the project (whose go.mod's `toolchain` line downloads nothing).
    expect(readdirSync(join(p.root, ".mast", "checker")).filter((f) => f.startsWith("gotypes-"))).toHaveLength(1);
    expect(readdirSync(p.root).sort()).toEqual([".mast", "app", "go.mod", "shapes"]);
    expect(queryStore(statePaths(join(p.root, ".mast")).graphDb, APP_VERDICTS)).toEqual([
      // lib.Thing cannot be imported: go/types cannot say what `Ext.Name` is, and the line stays potential.
      { target: "Circle.Name", line: 14, verdict: "unresolved" },
      // A method expression is no call.
      { target: "Circle.Name", line: 16, verdict: "non_call_site" },
      { target: "Circle.Name", line: 28, verdict: "calls_target" },
      { target: "Circle.Name", line: 29, verdict: "calls_target" },
      // Through a type parameter constrained by Namer: Circle implements it, dispatch may reach it.
      { target: "Circle.Name", line: 35, verdict: "unresolved" },
      // Fake has a Name, not Namer's: the interface call cannot reach it.
      { target: "Fake.Name", line: 14, verdict: "unresolved" },
      { target: "Fake.Name", line: 16, verdict: "non_call_site" },
      { target: "Fake.Name", line: 28, verdict: "resolves_to_different" },
      { target: "Fake.Name", line: 29, verdict: "resolves_to_different" },
      { target: "Fake.Name", line: 35, verdict: "resolves_to_different" },
      { target: "Label.Name", line: 14, verdict: "unresolved" },
      { target: "Label.Name", line: 16, verdict: "non_call_site" },
      { target: "Label.Name", line: 28, verdict: "resolves_to_different" },
      { target: "Label.Name", line: 29, verdict: "resolves_to_different" },
      { target: "Label.Name", line: 35, verdict: "resolves_to_different" },
      { target: "Namer.Name", line: 14, verdict: "unresolved" },
      { target: "Namer.Name", line: 16, verdict: "non_call_site" },
      { target: "Namer.Name", line: 28, verdict: "resolves_to_different" },
      { target: "Namer.Name", line: 29, verdict: "resolves_to_different" },
      { target: "Namer.Name", line: 35, verdict: "calls_target" },
      { target: "Square.Name", line: 14, verdict: "unresolved" },
      { target: "Square.Name", line: 16, verdict: "non_call_site" },
      { target: "Square.Name", line: 28, verdict: "resolves_to_different" },
      { target: "Square.Name", line: 29, verdict: "resolves_to_different" },
      { target: "Square.Name", line: 35, verdict: "unresolved" },
      // A function value in a composite literal is no call.
      { target: "helper", line: 17, verdict: "non_call_site" },
    ]);
    const circle = await tool(p, "mast_callers", { symbol: "Circle.Name", file_path: "shapes/shapes.go" });
    expect(circle.verified_callers).toEqual([
      {
        file_path: "app/app.go",
        sites: ["13 Run: a := h.Shape.Name() [return_type]", "28 More: first(list).Shape.Name() [checker]", '29 More: m["a"].Shape.Name() [checker]', "31 More: h.Shape.Name() [return_type]"],
      },
    ]);
    // `x.Name()` through the constraint is Namer.Name's verified call now, and for Circle and Square
    // (which implement Namer) the checker said `unresolved`: dispatch may reach them, the line stays
    // potential (a checker edge to a method explains no other target's line away).
    const potential = [{ file_path: "app/app.go", sites: ["14: b := list[0].Ext.Name()", "35: func Show[T shapes.Namer](x T) string { return x.Name() }"] }];
    expect(circle.potential_matches).toEqual(potential);
    expect((await tool(p, "mast_callers", { symbol: "Square.Name", file_path: "shapes/shapes.go" })).potential_matches).toEqual(potential);
    // Label does not implement Namer: line 35 is classified away.
    expect((await tool(p, "mast_callers", { symbol: "Label.Name", file_path: "shapes/shapes.go" })).potential_matches).toEqual([{ file_path: "app/app.go", sites: ["14: b := list[0].Ext.Name()"] }]);
    const namer = await tool(p, "mast_callers", { symbol: "Namer.Name", file_path: "shapes/shapes.go" });
    expect(namer.verified_callers).toEqual([
      { file_path: "app/app.go", sites: ["15 Run: c := n.Name() [parameter_type]", "35 Show: func Show[T shapes.Namer](x T) string { return x.Name() } [checker]"] },
    ]);
    // Implementors by method set: Buf gets Sized's String and Len from *bytes.Buffer (only go/types sees it); Fake's Name has another signature.
    expect(queryStore(statePaths(join(p.root, ".mast")).graphDb, IMPLEMENTS)).toEqual([
      { type: "Circle", iface: "Namer", resolution: null },
      { type: "Square", iface: "Namer", resolution: null },
      { type: "Buf", iface: "Sized", resolution: "checker" },
    ]);
    expect((await tool(p, "mast_implementors", { interface_name: "Namer" })).implementors.map((i: { class_name: string }) => i.class_name)).toEqual(["Circle", "Square"]);
    expect((await tool(p, "mast_implementors", { interface_name: "Sized" })).implementors).toEqual([
      { class_name: "Buf", file_path: "shapes/shapes.go", line: 39, relation: "implements", methods: [] },
    ]);
  });

  it("judges again what a rewritten file brought, and an incremental run with the pass equals a full one", async () => {
    const p = space.project();
    await index(p, "full", true);
    appendFileSync(join(p.root, "app/app.go"), "func Again(list []shapes.Holder) string {\n\treturn first(list).Shape.Name()\n}\n");
    const report = await index(p, "incremental", true);
    // app/app.go lost its verdicts with its rows: its 26 candidates are judged again, with the 5 of the new call's line; shapes.go keeps its own.
    expect(report.checker).toMatchObject({ candidates: 31, calls_target: 4, edges: 4, implements: 1 });
    const full = join(p.root, ".mast-full");
    await index(p, "full", true, full);
    expect(verdicts(p)).toEqual(verdicts(p, full));
    expect(checkerEdges(p)).toEqual([
      { source: "Buf", target: "Sized", type: "IMPLEMENTS", line: null },
      { source: "More", target: "Circle.Name", type: "POTENTIAL_CALL", line: 28 },
      { source: "More", target: "Circle.Name", type: "POTENTIAL_CALL", line: 29 },
      { source: "Show", target: "Namer.Name", type: "POTENTIAL_CALL", line: 35 },
      { source: "Again", target: "Circle.Name", type: "POTENTIAL_CALL", line: 37 },
    ]);
    // Nothing changed: the pass is not run again, every verdict and edge stands.
    expect((await index(p, "incremental", true)).checker_up_to_date).toBe(true);
    expect(checkerEdges(p)).toHaveLength(5);
  });

  it("says go is unavailable when it is not on PATH, and keeps the syntactic edges", async () => {
    const p = space.project();
    await index(p, "full", false);
    const db = statePaths(join(p.root, ".mast")).graphDb;
    const syntactic = queryStore(db, IMPLEMENTS);
    const path = process.env.PATH;
    process.env.PATH = join(p.root, "no-bin");
    try {
      const report = await index(p, "full", true);
      const said = [{ language: "go", backend: "go-types", available: false, reason: "go not on PATH" }];
      expect(report.checker?.languages).toEqual(said);
      expect((await indexStatus(p.config({ stateDir: join(p.root, ".mast") }))).checker).toEqual(said);
      expect(report.checker).toMatchObject({ candidates: 0, calls_target: 0, edges: 0 });
    } finally {
      process.env.PATH = path;
    }
    expect(queryStore(db, IMPLEMENTS)).toEqual(syntactic);
    expect(queryStore(db, "SELECT count(*) AS n FROM checker_verdicts")).toEqual([{ n: 0 }]);
    expect(existsSync(join(p.root, ".mast", "checker"))).toBe(false);
  });

  it("checks only the files under the root it was given, and names the program's absence", async () => {
    const p = space.project();
    const analyzer = new GoTypesAnalyzer(p.root, ["app/app.go", "../outside.go", "/etc/passwd.go"], join(p.root, ".mast"));
    const batches: Array<{ indices: number[]; codes: number[] }> = [];
    analyzer.begin([{ name: "helper", line: 23, path: "app/app.go" }], (b) => batches.push({ indices: [...b.indices], codes: [...b.codes] }));
    analyzer.add(Int32Array.from([0, 0, 17, 0, 0, 18, 0, 1, 1, 0, 2, 1]));
    expect(await analyzer.end()).toEqual({ projects: 1, skipped: [], complete: true });
    // helper passed as a value (non_call_site, 2), cmd.RunE() is another name's call (non_call_site), the two paths outside were never read (outside, 255).
    expect(batches).toEqual([{ indices: [0, 1, 2, 3], codes: [2, 2, 255, 255] }]);
    expect(new GoTypesAnalyzer(p.root, [], undefined, { PATH: "" }).unavailable).toBe("go not on PATH");
  });
});
