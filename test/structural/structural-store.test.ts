// The structural index published to a real PostgreSQL and answered from it
// (structural/store.ts): every operation — names, callers with their unresolved same-name calls,
// callees, boundaries, coverage, pages, an unknown id — answers from the store exactly what the
// local build answers; a build published twice writes nothing; a rebuilt index published becomes
// what the store answers (--keep 1 deleting the first); an overlay is refused; `mast structural serve --store`'s HTTP answers
// are the same; a repository with no build is NOT_INDEXED.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { resolveConfig } from "../../src/index/config.js";
import { buildStructural } from "../../src/structural/build.js";
import { locate, type Located } from "../../src/structural/locate.js";
import { readManifest } from "../../src/structural/manifest.js";
import { queryLocal } from "../../src/structural/query.js";
import { structuralServer } from "../../src/structural/serve.js";
import { openStructuralStore, publishBuild, queryStore } from "../../src/structural/store.js";
import type { PgSyncSession } from "../../src/store/pg/client.js";
import { makeProject, type TestProject } from "../helpers/project.js";
import { startPostgres } from "../helpers/postgres-server.mjs";

const FILES = {
  "src/auth.ts": [
    "export class AuthService {",
    "  validate(token: string): boolean {",
    "    return check(token) && check(token.trim());",
    "  }",
    "}",
    "",
    "export function check(token: string): boolean {",
    "  return token.length > 3;",
    "}",
    "",
  ].join("\n"),
  "src/main.ts": [
    'import { AuthService, check } from "./auth.js";',
    "",
    "export function run(t: string): boolean {",
    "  if (!check(t)) return false;",
    "  return new AuthService().validate(t);",
    "}",
    "",
  ].join("\n"),
  "scripts/tool.py": ["def helper(x):", "    return x * 2", "", "def main():", "    print(helper(3))", "    check(1)", ""].join("\n"),
  "scripts/util.lua": ["local function double(x)", "  return x * 2", "end", "", "function quad(x)", "  return double(double(x))", "end", ""].join("\n"),
};

let server: Awaited<ReturnType<typeof startPostgres>>;
let project: TestProject;
let located: Located;
let session: PgSyncSession;
let url: string;

beforeAll(async () => {
  server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  await admin.query("CREATE DATABASE org");
  await admin.end();
  url = server.url("org");
  project = makeProject(FILES);
  located = locate({}, project.root, (root) => resolveConfig(root, {}).state_dir);
  await buildStructural(located, { maxPrecision: "ast", threads: 0 });
}, 120_000);

afterAll(async () => {
  session?.close();
  await server?.stop();
  project?.cleanup();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const local = (op: string, args: Record<string, unknown>): any => queryLocal(located.layout, op, args);
const idOf = (name: string): string => local("resolve_symbol", { name }).results[0].symbol_id;

const OPS = (): [string, Record<string, unknown>][] => [
  ["resolve_symbol", { name: "check" }],
  ["resolve_symbol", { name: "AuthService.validate" }],
  ["resolve_symbol", { name: "main", language: "python" }],
  ["resolve_symbol", { name: "nothing" }],
  ["find_callers", { symbol_id: idOf("check") }],
  ["find_callers", { symbol_id: idOf("check"), limit: 1, offset: 1 }],
  ["find_callers", { symbol_id: idOf("double") }],
  ["find_callers", { symbol_id: "fallback:typescript:src/none.ts:0000000000000000" }],
  ["find_callees", { symbol_id: idOf("run") }],
  ["find_callees", { symbol_id: idOf("quad") }],
  ["get_function_boundary", { file: "src/auth.ts", line: 3 }],
  ["get_function_boundary", { file: "scripts/tool.py", line: 99 }],
  ["get_coverage", {}],
  ["get_coverage", { file: "scripts/util.lua" }],
  ["get_coverage", { language: "typescript" }],
];

describe("the structural index in a PostgreSQL store", () => {
  it("answers every operation from the store as the local build does", async () => {
    const report = await publishBuild(located.layout, url, "acme/app");
    expect(report).toMatchObject({ repository: "acme/app", unchanged: false, active: true, layers: 1 });
    expect(report.symbols).toBeGreaterThan(6);
    session = await openStructuralStore(url);
    for (const [op, args] of OPS()) expect({ op, args, answer: queryStore(session, "acme/app", op, args) }).toEqual({ op, args, answer: local(op, args) });
    // The callers of check: validate's line (its two calls one edge) and run's; Python's unresolved `check(1)` is not TypeScript's.
    expect(local("find_callers", { symbol_id: idOf("check") }).results.map((r: { file_path: string; line: number }) => `${r.file_path}:${r.line}`)).toEqual(["src/auth.ts:3", "src/main.ts:4"]);
  });

  it("a build published again writes nothing; a new build published is what the store answers", async () => {
    expect(await publishBuild(located.layout, url, "acme/app")).toMatchObject({ unchanged: true, active: true });
    project.write("src/extra.ts", 'import { check } from "./auth.js";\n\nexport function extra(): boolean {\n  return check("xxxxx");\n}\n');
    await buildStructural(located, { maxPrecision: "ast", threads: 0 });
    expect(await publishBuild(located.layout, url, "acme/app", 1)).toMatchObject({ unchanged: false, active: true, pruned_builds: 1 });
    session ??= await openStructuralStore(url);
    expect(session.query("SELECT count(*)::int AS n FROM mast.structural_builds b JOIN mast.repositories r ON r.id = b.repository_id WHERE r.name = 'acme/app'")).toEqual([{ n: 1 }]);
    for (const [op, args] of OPS()) expect({ op, args, answer: queryStore(session, "acme/app", op, args) }).toEqual({ op, args, answer: local(op, args) });
    expect(queryStore(session, "acme/app", "find_callers", { symbol_id: idOf("check") }).total).toBe(3);
  });

  it("serves the store's answers over HTTP, and names a repository with no build NOT_INDEXED", async () => {
    session ??= await openStructuralStore(url);
    const http = structuralServer((op, args) => queryStore(session, "acme/app", op, args));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
    const port = (http.address() as { port: number }).port;
    try {
      for (const [op, args] of OPS()) {
        const response = await fetch(`http://127.0.0.1:${port}/v1/${op}`, { method: "POST", body: JSON.stringify(args) });
        expect({ op, args, answer: await response.json() }).toEqual({ op, args, answer: local(op, args) });
      }
    } finally {
      await new Promise<void>((r) => http.close(() => r()));
    }
    expect(() => queryStore(session, "acme/other", "get_coverage", {})).toThrow(expect.objectContaining({ code: "NOT_INDEXED" }));
  });

  it("a local overlay over the store's build answers as an overlay over the same build's files does; its manifest keeps no password", async () => {
    const ci = makeProject(FILES);
    const dev = makeProject(FILES);
    const viaFile = makeProject({});
    try {
      const ciAt = locate({}, ci.root, (root) => resolveConfig(root, {}).state_dir);
      await buildStructural(ciAt, { maxPrecision: "ast", threads: 0 });
      await publishBuild(ciAt.layout, url, "acme/overlay");
      // The developer's tree: run's file changed, tool.py gone, a file added.
      for (const p of [dev]) {
        p.write("src/main.ts", `// moved\n${FILES["src/main.ts"]}`);
        p.remove("scripts/tool.py");
        p.write("scripts/more.lua", "function twice_quad(x)\n  return quad(quad(x))\nend\n");
      }
      const withPassword = url.replace("mast@", "mast:s3cret@");
      const storeAt = locate({}, dev.root, (root) => resolveConfig(root, {}).state_dir);
      const overlay = await buildStructural(storeAt, { maxPrecision: "ast", threads: 0, baseline: `${withPassword}#acme%2Foverlay` });
      const manifest = readManifest(storeAt.layout)!;
      expect(manifest.baseline.manifest_path).toBe(`${url}#acme%2Foverlay`);
      // The same overlay over the CI build's own files, in another state root: the same units built and left to the baseline.
      const fileAt = locate({ stateRoot: viaFile.root }, dev.root, () => viaFile.root);
      const overFile = await buildStructural(fileAt, { maxPrecision: "ast", threads: 0, baseline: ciAt.layout.manifest });
      const units = (b: typeof overlay) => [b.provider, b.status, b.units_total, b.units_reused, b.units_rebuilt];
      expect(units(overlay)).toEqual(units(overFile));
      expect(units(overlay)).toEqual(["baseline+overlay", "complete", 4, 2, 2]);
      const fromStore = (op: string, args: Record<string, unknown>) => queryLocal(storeAt.layout, op, args);
      const fromFile = (op: string, args: Record<string, unknown>) => queryLocal(fileAt.layout, op, args);
      const id = (name: string) => (fromFile("resolve_symbol", { name }) as { results: { symbol_id: string }[] }).results[0]!.symbol_id;
      for (const [op, args] of [
        ["resolve_symbol", { name: "check" }],
        ["resolve_symbol", { name: "helper" }],
        ["find_callers", { symbol_id: id("check") }],
        ["find_callers", { symbol_id: id("quad") }],
        ["get_function_boundary", { file: "src/main.ts", line: 5 }],
        ["get_function_boundary", { file: "src/auth.ts", line: 3 }],
        ["get_coverage", {}],
      ] as const) {
        const { snapshot_id: _a, ...a } = fromStore(op, args as Record<string, unknown>) as Record<string, unknown> & { snapshot_id?: unknown };
        const { snapshot_id: _b, ...b } = fromFile(op, args as Record<string, unknown>) as Record<string, unknown> & { snapshot_id?: unknown };
        expect({ op, args, answer: a }).toEqual({ op, args, answer: b });
      }
      expect(fromStore("get_coverage", {})).toMatchObject({ total_files: 4, indexed_files: 4, partition_status: "complete" });
      // An overlay is not published: its baseline would be missing from what the store answers.
      await expect(publishBuild(storeAt.layout, url, "acme/overlay")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    } finally {
      ci.cleanup();
      dev.cleanup();
      viaFile.cleanup();
    }
  });
});
