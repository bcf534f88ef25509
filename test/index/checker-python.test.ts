// The checker pass's Python backend (query/checker-scip.ts) on real files and the real scip-python
// (mast's own dependency, pyright's SCIP indexer): a call only pyright can type (a local bound by
// an unannotated factory) becomes a verified `checker` edge; a same-named method of another class
// stays potential (`unresolved`: virtual dispatch may reach the target, and the pass never drops a
// real call); a mention in a comment is `non_call_site`; with no scip-python the
// pass says so for the language, and the syntactic edges stay as they were.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runIndex, type IndexReport } from "../../src/index/run.js";
import { checkerPass } from "../../src/query/checker.js";
import { proseSpans, ScipJudge, SCIP_PYTHON_ENV } from "../../src/query/checker-scip.js";
import { statePaths } from "../../src/index/state.js";
import { indexStatus } from "../../src/index/status.js";
import { createToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { tempSpace, type TestProject } from "../helpers/project.js";
import { edgeResolution, queryStore } from "../helpers/store-dump.js";

const FILES: Record<string, string> = {
  "shapes.py": [
    "class Circle:",
    "    def area(self):",
    "        return 3",
    "",
    "",
    "class Square:",
    "    def area(self):",
    "        return 4",
    "",
    "",
    "def make():",
    "    return Circle()",
    "",
    "",
    "def other():",
    "    return Square()",
    "",
  ].join("\n"),
  // A bare decorator names its function, and a property setter's `def` redefines the name: neither calls.
  "box.py": [
    "def logged(f):",
    "    return f",
    "",
    "",
    "class Box:",
    "    @property",
    "    def size(self):",
    "        return 1",
    "",
    "    @size.setter",
    "    @logged",
    "    def size(self, value):",
    "        pass",
    "",
  ].join("\n"),
  "app.py": ["from shapes import make, other", "", "", "def run():", "    x = make()", "    x.area()", "    # x.area() is cheap", "    y = other()", "    y.area()", "    return x", ""].join("\n"),
};

const space = tempSpace(FILES);
const pinned = process.env[SCIP_PYTHON_ENV];
afterEach(() => {
  if (pinned === undefined) delete process.env[SCIP_PYTHON_ENV];
  else process.env[SCIP_PYTHON_ENV] = pinned;
});

const index = (p: TestProject, mode: "full" | "incremental", checker: boolean, stateDir = join(p.root, ".mast")): Promise<IndexReport> =>
  runIndex(p.config({ stateDir }), { mode, threads: 0, ...(checker ? { checker: checkerPass } : {}) });

const VERDICTS_BY_NAME =
  "SELECT s.name AS target, f.path || ':' || v.line AS at, v.verdict FROM checker_verdicts v JOIN symbols s ON s.id = v.target_id JOIN files f ON f.id = v.file_id ORDER BY target, at, s.line";

async function callers(p: TestProject, symbol: string): Promise<Record<string, any>> {
  const ctx = createToolContext(p.config({ stateDir: join(p.root, ".mast") }));
  try {
    return (await callTool(ctx, "mast_callers", { symbol, file_path: "shapes.py" })) as Record<string, any>;
  } finally {
    ctx.close();
  }
}

const edges = (p: TestProject) =>
  queryStore(
    statePaths(join(p.root, ".mast")).graphDb,
    `SELECT a.name AS caller, b.name AS target, e.call_line AS line, ${edgeResolution("e")} AS resolution FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id ORDER BY line, target`,
  );

describe("the checker pass on Python (scip-python)", () => {
  it("verifies a call only pyright can type, and classifies another class's method and a comment away", async () => {
    const p = space.project();
    await index(p, "full", false);
    const syntactic = edges(p);
    const plain = await callers(p, "Circle.area");
    expect(plain.summary).toMatchObject({ verified_count: 0 });
    expect(plain.potential_matches.length).toBeGreaterThan(0);

    const report = await index(p, "incremental", true);
    expect(report.checker?.languages).toEqual([
      { language: "python", backend: "scip-python", available: true },
      // No TypeScript among the files: the compiler has nothing to read, and says nothing.
    ]);
    expect(report.checker).toMatchObject({
      projects: 1,
      skipped: [],
      targets: 8,
      candidates: 15,
      calls_target: 2,
      edges: 2,
      resolves_to_different: 0,
      non_call_site: 11,
      unresolved: 2,
      outside_ts_scope: 0,
    });
    // Each candidate line of each `area`: its own call, the other class's, the comment, the other declaration.
    expect(
      queryStore(
        statePaths(join(p.root, ".mast")).graphDb,
        "SELECT s.name AS target, f.path || ':' || v.line AS at, v.verdict FROM checker_verdicts v JOIN symbols s ON s.id = v.target_id JOIN files f ON f.id = v.file_id ORDER BY target, at",
      ),
    ).toEqual([
      // Two `Box.size` targets (the getter, line 7, and the setter, line 12): the `@size.setter` line and each other's `def` line call neither.
      { target: "Box.size", at: "box.py:10", verdict: "non_call_site" },
      { target: "Box.size", at: "box.py:10", verdict: "non_call_site" },
      { target: "Box.size", at: "box.py:12", verdict: "non_call_site" },
      { target: "Box.size", at: "box.py:7", verdict: "non_call_site" },
      { target: "Circle.area", at: "app.py:6", verdict: "calls_target" },
      { target: "Circle.area", at: "app.py:7", verdict: "non_call_site" },
      { target: "Circle.area", at: "app.py:9", verdict: "unresolved" },
      { target: "Circle.area", at: "shapes.py:7", verdict: "non_call_site" },
      { target: "Square.area", at: "app.py:6", verdict: "unresolved" },
      { target: "Square.area", at: "app.py:7", verdict: "non_call_site" },
      { target: "Square.area", at: "app.py:9", verdict: "calls_target" },
      { target: "Square.area", at: "shapes.py:2", verdict: "non_call_site" },
      // The imports of the factories name them, and call nothing.
      // A bare decorator is no call expression.
      { target: "logged", at: "box.py:11", verdict: "non_call_site" },
      { target: "make", at: "app.py:1", verdict: "non_call_site" },
      { target: "other", at: "app.py:1", verdict: "non_call_site" },
    ]);
    const circle = await callers(p, "Circle.area");
    expect(circle.verified_callers).toEqual([{ file_path: "app.py", resolution: "checker", sites: ["6 run: x.area()"] }]);
    // `y.area()` is Square.area's verified call now, but what pyright names for a method call is the declared
    // member (one of a union's): it explains nothing away, and the pass said `unresolved` for Circle.area there.
    expect(circle.potential_matches).toEqual([{ file_path: "app.py", sites: ["9: y.area()"] }]);
    expect(circle.summary).toMatchObject({ verified_count: 1, potential_count: 1, checker_classified_non_call_site: 1, checker_classified_different_declaration: 0 });
    const square = await callers(p, "Square.area");
    expect(square.verified_callers).toEqual([{ file_path: "app.py", resolution: "checker", sites: ["9 run: y.area()"] }]);
    expect(edges(p)).toEqual(
      [...syntactic, { caller: "run", target: "Circle.area", line: 6, resolution: "checker" }, { caller: "run", target: "Square.area", line: 9, resolution: "checker" }].sort(
        (a, b) => a.line - b.line || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0),
      ),
    );
  });

  it("a method called on a union keeps the call for every member's method: pyright's one answer verifies one, the others stay potential", async () => {
    const p = space.project({
      "fields.py": [
        "class FileField:",
        "    def get_length(self):",
        "        return 1",
        "",
        "",
        "class DataField:",
        "    def get_length(self):",
        "        return 2",
        "",
        "",
        'def total(fields: "list[FileField | DataField]"):',
        "    return sum(f.get_length() for f in fields)",
        "",
      ].join("\n"),
    });
    await index(p, "full", true);
    const ctx = createToolContext(p.config({ stateDir: join(p.root, ".mast") }));
    try {
      const lines = async (symbol: string) => {
        const r = (await callTool(ctx, "mast_callers", { symbol, file_path: "fields.py" })) as Record<string, any>;
        return { verified: r.verified_callers.flatMap((v: { sites: string[] }) => v.sites), potential: r.potential_matches.flatMap((m: { sites: string[] }) => m.sites) };
      };
      // Whichever member pyright names, the line is a call site of both: verified for one, potential for the other.
      const file = await lines("FileField.get_length");
      const data = await lines("DataField.get_length");
      expect([...file.verified, ...file.potential].map((s) => s.replace(/^(\d+)\D.*$/, "$1"))).toEqual(["12"]);
      expect([...data.verified, ...data.potential].map((s) => s.replace(/^(\d+)\D.*$/, "$1"))).toEqual(["12"]);
    } finally {
      ctx.close();
    }
  });

  it("checks only what a rewritten file brought, and an incremental run with the pass equals a full one", async () => {
    const p = space.project();
    await index(p, "full", true);
    appendFileSync(join(p.root, "app.py"), "\n\ndef again():\n    z = make()\n    z.area()\n");
    const report = await index(p, "incremental", true);
    // app.py lost its verdicts with its rows: its 10 candidates judged again, the new call among them; shapes.py and box.py keep theirs.
    expect(report.checker).toMatchObject({ candidates: 10, calls_target: 3, edges: 3 });
    const full = join(p.root, ".mast-full");
    await index(p, "full", true, full);
    expect(queryStore(statePaths(join(p.root, ".mast")).graphDb, VERDICTS_BY_NAME)).toEqual(queryStore(statePaths(full).graphDb, VERDICTS_BY_NAME));
    expect(edges(p).filter((e) => e.resolution === "checker")).toEqual([
      { caller: "run", target: "Circle.area", line: 6, resolution: "checker" },
      { caller: "run", target: "Square.area", line: 9, resolution: "checker" },
      { caller: "again", target: "Circle.area", line: 15, resolution: "checker" },
    ]);
  });

  it("says scip-python is unavailable, with the reason, and keeps the syntactic edges", async () => {
    const p = space.project();
    await index(p, "full", false);
    const syntactic = edges(p);
    process.env[SCIP_PYTHON_ENV] = join(p.root, "no-such-scip-python");
    const report = await index(p, "full", true);
    const said = [{ language: "python", backend: "scip-python", available: false, reason: `scip-python not found at ${join(p.root, "no-such-scip-python")} (${SCIP_PYTHON_ENV})` }];
    expect(report.checker?.languages).toEqual(said);
    // `mast status` says it too, until a pass says otherwise.
    expect((await indexStatus(p.config({ stateDir: join(p.root, ".mast") }))).checker).toEqual(said);
    expect(report.checker).toMatchObject({ candidates: 0, calls_target: 0, edges: 0 });
    expect(edges(p)).toEqual(syntactic);
    expect((await callers(p, "Circle.area")).potential_matches.length).toBeGreaterThan(0);
  });

  it("matches a reference to its definition without the package, and says nothing of a src/ layout's installed copy", () => {
    const p = tempSpace({ "src/pkg/mod.py": "def f():\n    pass\n", "app.py": "import pkg.mod\npkg.mod.f()\npkg.mod.f()\nlen([])\n" }).project();
    const occurrence = (line: number, col: number, symbol: string, roles: number) => ({ range: [line, col, line, col + 1] as const, symbol, roles, enclosing: null });
    const judge = new ScipJudge(p.root, {
      tool: { name: "scip-python", version: "0.6.6" },
      projectRoot: p.root,
      documents: [
        { path: "src/pkg/mod.py", language: "python", symbols: [], occurrences: [occurrence(0, 4, "scip-python python proj 0 `src.pkg.mod`/f().", 1)] },
        {
          path: "app.py",
          language: "python",
          symbols: [],
          occurrences: [
            occurrence(1, 8, "scip-python python Proj 1.0 `src.pkg.mod`/f().", 8),
            occurrence(2, 8, "scip-python python pkg 1.0 `pkg.mod`/f().", 8),
            occurrence(3, 0, "scip-python python python-stdlib 3.11 builtins/len().", 8),
          ],
        },
      ],
    });
    const f = { name: "f", line: 1, path: "src/pkg/mod.py" };
    expect([2, 3].map((line) => judge.verdict(f, "app.py", line))).toEqual(["calls_target", "unresolved"]);
    expect(judge.verdict({ name: "len", line: 1, path: "src/pkg/mod.py" }, "app.py", 4)).toBe("resolves_to_different");
    expect(judge.verdict(f, "elsewhere.py", 1)).toBeNull();
  });

  it("finds the comments and strings of a source, triple-quoted ones across lines", () => {
    expect([...proseSpans(['x = f("a # b")  # c', 's = """one', "two f()", '"""; g()', "h('it''s')"].join("\n"))]).toEqual([
      [
        0,
        [
          [6, 13],
          [16, 19],
        ],
      ],
      [1, [[4, 10]]],
      [2, [[0, 7]]],
      [3, [[0, 3]]],
      [
        4,
        [
          [2, 6],
          [6, 9],
        ],
      ],
    ]);
  });
});
