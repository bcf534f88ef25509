// The order of potential matches, most likely calls first: calls in the declaring file, calls on a
// receiver that may be the declaration's type, calls on a receiver naming another type that
// declares the member or on a built-in's method, mentions in code, then comments, strings and
// other declarations; source before tests within a tier.
import { expect, it } from "vitest";
import { indexedProject } from "../helpers/indexed.js";
import { flat } from "../helpers/sites.js";

const FILES: Record<string, string> = {
  "src/context.ts": [
    "export class Context {",
    "  header(name: string): void {}",
    "  reset(): void {",
    "    const self = make();",
    "    self.header('x');",
    "  }",
    "}",
    "function make(): any { return null; }",
    "",
  ].join("\n"),
  "src/request.ts": ["export class HonoRequest {", "  header(name: string): string { return name; }", "}", ""].join("\n"),
  "src/use.ts": [
    "import { Context } from './context';",
    "/** Call c.header() to set one. */",
    "export function handle(c: any): void {",
    "  // c.header is the setter",
    "  c.req.header('a');",
    "  const label = 'header';",
    "  c.header('b');",
    "  const fn = c.header;",
    "}",
    "",
  ].join("\n"),
  "src/router.ts": ["export class Router {", "  match(path: string): boolean { return path === '/'; }", "}", ""].join("\n"),
  "src/route-use.ts": ["export function go(router: any, text: string): void {", "  text.match(/x/);", "  router.match('/');", "}", ""].join("\n"),
  "src/use.test.ts": ["export function check(c: any): void {", "  c.header('t');", "}", ""].join("\n"),
};

const p = indexedProject(FILES);

it("orders potential matches by how likely each is a call of the declaration, grouped by file in the order of each file's best site", async () => {
  const r = (await p.call("mast_callers", { symbol: "Context.header" })) as {
    potential_matches: Array<{ file_path: string; is_test?: true; sites: string[] }>;
    summary: Record<string, number>;
  };
  expect(r.potential_matches.map((g) => [g.file_path, g.sites])).toEqual([
    // A call in the declaring file.
    ["src/context.ts", ["5: self.header('x');"]],
    [
      "src/use.ts",
      [
        // A call on a receiver that may be a Context, in a file that sees it.
        "7: c.header('b');",
        // `c.req` names HonoRequest, which declares header too.
        "5: c.req.header('a');",
        // A mention in code, then a string-only mention.
        "8: const fn = c.header;",
        "6: const label = 'header';",
      ],
    ],
    // The same kind of call in a test file comes after the source file's.
    ["src/use.test.ts", ["2: c.header('t');"]],
    // Another type's declaration of the name.
    ["src/request.ts", ["2: header(name: string): string { return name; }"]],
  ]);
  expect(r.potential_matches.filter((g) => g.is_test).map((g) => g.file_path)).toEqual(["src/use.test.ts"]);
  // The two comment lines of src/use.ts are left out of mast_callers and counted; a rename lists them, last.
  expect(r.summary.comments_omitted).toBe(2);
  const rename = (await p.call("mast_rename_impact", { symbol: "Context.header" })) as { potential_matches: Array<{ file_path: string; sites: string[] }> };
  expect(rename.potential_matches.find((g) => g.file_path === "src/use.ts")!.sites.slice(-3)).toEqual([
    "2: /** Call c.header() to set one. */",
    "4: // c.header is the setter",
    "6: const label = 'header';",
  ]);
});

it("puts a built-in's method call below a call on a receiver named like the declaring type", async () => {
  const r = (await p.call("mast_callers", { symbol: "Router.match" })) as { potential_matches: Array<{ file_path: string; sites: unknown[] }> };
  expect(flat(r.potential_matches, "potential").map((m) => `${m.file_path}:${m.line}`)).toEqual(["src/route-use.ts:3", "src/route-use.ts:2"]);
});

const prose = indexedProject({
  "src/run.py": ["def run(command):", '    """Run a command.', "", "    >>> run('ls')", "    'done'", '    """', "    return 'done'", ""].join("\n"),
  "src/use.py": ["from src.run import run as go", "", "def main(run):", "    run('x')", "", "def later(x):", `    return x.run(${"'a', ".repeat(60)}'z')`, ""].join("\n"),
  ".github/ISSUE_TEMPLATE/bug.md": ["# run() fails", "", "Call `run('x')` and see.", ""].join("\n"),
  "src/decorate.ts": [
    "/** Query by name. */",
    "export function Query(name: string): MethodDecorator;",
    "/** Query by type. */",
    "export function Query(type: () => unknown): MethodDecorator;",
    "export function Query(arg: unknown): MethodDecorator {",
    "  return () => undefined;",
    "}",
    "",
  ].join("\n"),
  "src/resolver.ts": ["import { Query } from './decorate';", "export class Resolver {", "  @Query(() => String)", "  find(): string { return ''; }", "}", ""].join("\n"),
});

it("leaves prose out of mast_callers — documentation files, doc strings and their examples — counted in docs_omitted; a rename lists it last", async () => {
  const r = (await prose.call("mast_callers", { symbol: "run", file_path: "src/run.py" })) as { potential_matches: Array<{ file_path: string; sites: string[] }>; summary: Record<string, number> };
  // Code only; a site over 160 characters is clipped around the name, `…` at each cut.
  const long = `return x.run(${"'a', ".repeat(60)}'z')`;
  expect(r.potential_matches.map((g) => [g.file_path, g.sites])).toEqual([["src/use.py", ["4: run('x')", `7: ${long.slice(0, 160)}…`, "1: from src.run import run as go", "3: def main(run):"]]]);
  expect(r.summary).toMatchObject({ potential_count: 4, docs_omitted: 3 });
  const rename = (await prose.call("mast_rename_impact", { symbol: "run", file_path: "src/run.py" })) as { potential_matches: Array<{ file_path: string; sites: string[] }> };
  expect(rename.potential_matches.map((g) => g.file_path)).toEqual(["src/use.py", ".github/ISSUE_TEMPLATE/bug.md", "src/run.py"]);
  expect(rename.potential_matches.at(-1)!.sites).toEqual(["4: >>> run('ls')"]);
});

it("verifies a decorator's call and never lists an overloaded function's own headers", async () => {
  const r = (await prose.call("mast_callers", { symbol: "Query" })) as { declaration: unknown; verified_callers: Array<{ file_path: string; sites: string[] }>; potential_matches: unknown[] };
  // The declaration states its signature on one line, its overloads' doc comments left out.
  const signature = "export function Query(name: string): MethodDecorator; export function Query(type: () => unknown): MethodDecorator; export function Query(arg: unknown): MethodDecorator";
  expect(r.declaration).toEqual({ file_path: "src/decorate.ts", line: 2, kind: "function", is_exported: true, signature });
  expect(Buffer.byteLength(JSON.stringify(r))).toBe(515);
  expect(r.verified_callers).toEqual([{ file_path: "src/resolver.ts", resolution: "import", sites: ["3 Resolver.find: @Query(() => String)"] }]);
  expect(r.potential_matches).toEqual([]);
});

const namespaced = indexedProject({
  "src/coerce.ts": "export function string(): string { return ''; }\n",
  "src/schemas.ts": "export function string(): string { return 's'; }\n",
  "src/index.ts": "export * as coerce from './coerce';\nexport * from './schemas';\n",
  "src/use.ts": ["import * as z from './index';", "export const c = (o: any) => o.string();", "export const b = z.coerce.string();", "export const a = z.string();", ""].join("\n"),
});

it("links a call through a namespace the declaring file is re-exported as (`z.coerce.string()` for coerce.ts's string)", async () => {
  const r = (await namespaced.call("mast_callers", { symbol: "string", file_path: "src/coerce.ts" })) as {
    verified_callers: unknown[];
    potential_matches: Array<{ file_path: string; sites: string[] }>;
  };
  // `z.coerce` is coerce.ts through `export * as coerce`: a verified call. `z.string()` is schemas.ts's (linked there, so no
  // potential line of coerce.ts's); a call on an object of unknown type is potential, another declaration of the name last.
  expect(r.verified_callers).toEqual([{ file_path: "src/use.ts", resolution: "import", sites: ["3 b: export const b = z.coerce.string();"] }]);
  expect(r.potential_matches).toEqual([
    { file_path: "src/use.ts", sites: ["2: export const c = (o: any) => o.string();"] },
    { file_path: "src/schemas.ts", sites: ["1: export function string(): string { return 's'; }"] },
  ]);
});

const afterDocString = indexedProject({
  "src/jobs.py": ["def run(command):", "    return command", ""].join("\n"),
  "src/view.py": [
    "class View:",
    "    def dispatch(self):",
    '        """Subclasses implement this.',
    '        """',
    "        raise NotImplementedError()",
    "",
    "    def as_view(self):",
    "        def view():",
    "            return current.run('y')",
    "        return view",
    "",
  ].join("\n"),
});

it("reads a doc string's closing line in a chunk's context lines as the end of prose, not its start: the call below it is listed", async () => {
  // as_view's chunk carries the three lines above it (context_lines), the first of them dispatch's closing `"""`.
  const r = (await afterDocString.call("mast_callers", { symbol: "run", file_path: "src/jobs.py" })) as {
    potential_matches: Array<{ file_path: string; sites: string[] }>;
    summary: Record<string, number>;
  };
  expect(r.potential_matches.map((g) => [g.file_path, g.sites])).toEqual([["src/view.py", ["9: return current.run('y')"]]]);
  expect(r.summary.docs_omitted).toBeUndefined();
});

const blockComments = indexedProject({
  "src/main/java/p/Parser.java": ["package p;", "", "public class Parser {", "    /**", "     Parses one line.", "     */", "    public static String parse(String s) { return s; }", "}", ""].join(
    "\n",
  ),
  "src/main/java/p/Use.java": [
    "package p;",
    "",
    "class Use {",
    "    /**",
    "     Calls o.parse(line) for each line,",
    "     then o.parse(rest).",
    "     */",
    "    void all(Object o) {",
    '        String glob = "src/**" +',
    '            "/*.java"; o.parse("a");',
    '        /* first */ o.parse("b");',
    '        String ignore = """',
    "            /*",
    '            """; o.parse("c");',
    '        /* o.parse("x") */ // o.parse("y")',
    '        o.parse("d");',
    "    }",
    "}",
    "",
  ].join("\n"),
});

it("leaves a doc comment's lines out of mast_callers though they have no `*` column (Javadoc), and never takes a `/*` in a string, or code after a comment, for a comment", async () => {
  const r = (await blockComments.call("mast_callers", { symbol: "Parser.parse" })) as { potential_matches: Array<{ file_path: string; sites: string[] }>; summary: Record<string, number> };
  expect(r.potential_matches.map((g) => [g.file_path, g.sites])).toEqual([
    ["src/main/java/p/Use.java", ['10: "/*.java"; o.parse("a");', '11: /* first */ o.parse("b");', '16: o.parse("d");', '14: """; o.parse("c");']],
  ]);
  expect(r.summary).toMatchObject({ potential_count: 4, docs_omitted: 2, comments_omitted: 1 });
});
