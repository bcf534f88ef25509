// Import resolution against real files on disk: NodeNext extension substitution, index files,
// tsconfig paths/baseUrl through `extends` (JSONC), npm/yarn/pnpm workspaces with package entry
// fields, and a tsconfig change relinking on an incremental run exactly like a full one.
import { afterEach, describe, expect, it, vi } from "vitest";
import { join } from "node:path";
import { mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { runIndex } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { parseJsonc } from "../../src/base/formats.js";
import { createImportResolver } from "../../src/resolve/imports.js";
import { Store } from "../../src/store/store.js";
import { makeProject, type TestProject } from "../helpers/project.js";
import { dumpStore, queryStore } from "../helpers/store-dump.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function project(files: Record<string, string>): TestProject {
  const p = makeProject(files);
  cleanups.push(() => p.cleanup());
  return p;
}

function resolverFor(p: TestProject, files: string[]) {
  return createImportResolver(new Set(files), p.root);
}

describe("relative specifiers", () => {
  it("substitutes TypeScript sources for JS-family extensions, source first", () => {
    const files = ["src/a.ts", "src/repo.ts", "src/repo.js", "src/view.tsx", "src/m.mts", "src/c.cts", "src/plain.js", "src/dir/index.ts"];
    const p = project(Object.fromEntries(files.map((f) => [f, "export {};\n"])));
    const r = resolverFor(p, files);
    expect(r.resolve("src/a.ts", "./repo.js")).toBe("src/repo.ts");
    expect(r.resolve("src/a.ts", "./view.jsx")).toBe("src/view.tsx");
    expect(r.resolve("src/a.ts", "./view.js")).toBe("src/view.tsx");
    expect(r.resolve("src/a.ts", "./m.mjs")).toBe("src/m.mts");
    expect(r.resolve("src/a.ts", "./c.cjs")).toBe("src/c.cts");
    expect(r.resolve("src/a.ts", "./plain.js")).toBe("src/plain.js");
    expect(r.resolve("src/a.ts", "./repo")).toBe("src/repo.ts");
    expect(r.resolve("src/a.ts", "./dir")).toBe("src/dir/index.ts");
    expect(r.resolve("src/a.ts", "./dir/index.js")).toBe("src/dir/index.ts");
    expect(r.resolve("src/a.ts", "./missing.js")).toBeNull();
    expect(r.resolve("src/a.ts", "../../outside.js")).toBeNull();
    expect(r.resolve("src/a.ts", "react")).toBeNull();
  });
});

describe("tsconfig paths", () => {
  it("maps aliases through extends, baseUrl and the longest matching pattern", () => {
    const files = ["apps/web/src/main.ts", "apps/web/src/ui/button.tsx", "libs/core/src/index.ts", "libs/core/src/deep/util.ts", "shared/types.ts"];
    const p = project({
      ...Object.fromEntries(files.map((f) => [f, "export {};\n"])),
      "tsconfig.base.json": `{
        // comments and trailing commas are fine in tsconfig
        "compilerOptions": {
          "baseUrl": ".",
          "paths": {
            "@core": ["libs/core/src/index.ts"],
            "@core/*": ["libs/core/src/*",],
            "@core/deep/*": ["libs/core/src/deep/*"],
            "~/*": ["missing/*", "shared/*"],
          },
        },
      }`,
      "apps/web/tsconfig.json": `{ "extends": "../../tsconfig.base.json", "compilerOptions": { "strict": true } }`,
    });
    const r = resolverFor(p, files);
    expect(r.resolve("apps/web/src/main.ts", "@core")).toBe("libs/core/src/index.ts");
    expect(r.resolve("apps/web/src/main.ts", "@core/deep/util")).toBe("libs/core/src/deep/util.ts");
    expect(r.resolve("apps/web/src/main.ts", "@core/deep/util.js")).toBe("libs/core/src/deep/util.ts");
    expect(r.resolve("apps/web/src/main.ts", "~/types")).toBe("shared/types.ts");
    // baseUrl lookups for bare paths
    expect(r.resolve("apps/web/src/main.ts", "shared/types")).toBe("shared/types.ts");
    expect(r.resolve("apps/web/src/main.ts", "lodash")).toBeNull();
  });

  it("uses paths relative to the tsconfig that declares them when there is no baseUrl", () => {
    const files = ["pkg/src/a.ts", "pkg/src/lib/b.ts"];
    const p = project({ ...Object.fromEntries(files.map((f) => [f, "export {};\n"])), "pkg/tsconfig.json": `{ "compilerOptions": { "paths": { "#lib/*": ["./src/lib/*"] } } }` });
    expect(resolverFor(p, files).resolve("pkg/src/a.ts", "#lib/b")).toBe("pkg/src/lib/b.ts");
  });

  it("reads a tsconfig.json that is a symlink to a file, and takes a directory of that name for none; the same answer without the native stat", async () => {
    const files = ["a/src/main.ts", "a/lib/x.ts", "b/tsconfig.json/keep.ts", "b/src/main.ts", "b/lib/x.ts"];
    const p = project({ ...Object.fromEntries(files.map((f) => [f, "export {};\n"])), "configs/a.json": '{ "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["lib/*"] } } }\n' });
    symlinkSync(join(p.root, "configs/a.json"), join(p.root, "a/tsconfig.json"));
    const answer = (create: typeof createImportResolver) => {
      const r = create(new Set(files), p.root);
      return [
        r.resolve("a/src/main.ts", "@lib/x"),
        r.resolve("b/src/main.ts", "@lib/x"),
        r.fingerprint,
        r.inputs
          .filter((i) => i.includes("tsconfig"))
          .map((i) => i.slice(p.root.length + 1))
          .sort(),
      ];
    };
    const native = answer(createImportResolver);
    expect(native.slice(0, 2)).toEqual(["a/lib/x.ts", null]);
    // Every directory's probe is an input (b/tsconfig.json, a directory, among them): a file appearing there is a change.
    expect(native[3]).toEqual([
      "a/lib/tsconfig.json",
      "a/src/tsconfig.json",
      "a/tsconfig.json",
      "b/lib/tsconfig.json",
      "b/src/tsconfig.json",
      "b/tsconfig.json",
      "b/tsconfig.json/tsconfig.json",
      "tsconfig.json",
    ]);
    vi.stubEnv("MAST_NATIVE", "0");
    vi.resetModules();
    try {
      const fallback = await import("../../src/resolve/imports.js");
      expect(answer(fallback.createImportResolver)).toEqual(native);
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });

  it("reads no config outside the project: a tsconfig symlinked out of it, or one extending a file beyond its root, is not followed", () => {
    const outside = mkdtempSync(join(tmpdir(), "mast-outside-"));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    const mapping = '{ "compilerOptions": { "paths": { "@lib/*": ["lib/*"] } } }\n';
    writeFileSync(join(outside, "base.json"), mapping);
    const files = ["a/src/main.ts", "a/lib/x.ts", "b/src/main.ts", "b/lib/x.ts", "c/src/main.ts", "c/lib/x.ts"];
    const p = project({
      ...Object.fromEntries(files.map((f) => [f, "export {};\n"])),
      "b/tsconfig.json": `{ "extends": "${join(outside, "base.json")}" }\n`,
      "c/tsconfig.json": mapping,
    });
    // Read, a/tsconfig.json would map @lib/* next to itself, as c's own does.
    symlinkSync(join(outside, "base.json"), join(p.root, "a/tsconfig.json"));
    const answer = () => {
      const r = createImportResolver(new Set(files), p.root);
      return { a: r.resolve("a/src/main.ts", "@lib/x"), c: r.resolve("c/src/main.ts", "@lib/x"), fingerprint: r.fingerprint };
    };
    const before = answer();
    expect([before.a, before.c]).toEqual([null, "c/lib/x.ts"]);
    // The outside file's bytes reach no answer and no fingerprint: it was not read.
    writeFileSync(join(outside, "base.json"), '{ "compilerOptions": { "paths": { "@other/*": ["lib/*"] } } }\n');
    expect(answer()).toEqual(before);
    // An inside config's bytes do.
    writeFileSync(join(p.root, "c/tsconfig.json"), '{ "compilerOptions": { "paths": { "@other/*": ["lib/*"] } } }\n');
    expect(answer().fingerprint).not.toBe(before.fingerprint);
  });

  it("parses JSONC without touching strings that look like comments or trailing commas, and refuses what is not JSONC", () => {
    expect(parseJsonc('{ "a": "http://x/*y*/", /* c */ "b": [1, 2,], // end\n }')).toEqual({ a: "http://x/*y*/", b: [1, 2] });
    // The hand-written parser's trailing-comma pass rewrote inside strings: "src/*, ]" lost its comma.
    expect(parseJsonc('{ "paths": { "@a/*": ["src/*, ]", "x,}"], }, }')).toEqual({ paths: { "@a/*": ["src/*, ]", "x,}"] } });
    expect(() => parseJsonc('{ "a": 1 "b": 2 }')).toThrow(SyntaxError);
    expect(() => parseJsonc("")).toThrow(SyntaxError);
  });
});

describe("workspaces", () => {
  it("resolves npm/yarn workspace packages by name, entry field and subpath", () => {
    const files = ["packages/shared/src/index.ts", "packages/shared/src/ids.ts", "packages/ui/lib/main.ts", "apps/api/src/server.ts"];
    const p = project({
      ...Object.fromEntries(files.map((f) => [f, "export {};\n"])),
      "package.json": JSON.stringify({ name: "root", private: true, workspaces: { packages: ["packages/*", "apps/*"] } }),
      "packages/shared/package.json": JSON.stringify({ name: "@acme/shared", main: "./dist/index.js" }),
      "packages/ui/package.json": JSON.stringify({ name: "@acme/ui", exports: { ".": { import: "./lib/main.js" } } }),
      "apps/api/package.json": JSON.stringify({ name: "api" }),
    });
    const r = resolverFor(p, files);
    expect(r.resolve("apps/api/src/server.ts", "@acme/shared")).toBe("packages/shared/src/index.ts");
    expect(r.resolve("apps/api/src/server.ts", "@acme/shared/ids")).toBe("packages/shared/src/ids.ts");
    expect(r.resolve("apps/api/src/server.ts", "@acme/ui")).toBe("packages/ui/lib/main.ts");
    expect(r.resolve("apps/api/src/server.ts", "@acme/other")).toBeNull();
  });

  it("reads pnpm-workspace.yaml", () => {
    const files = ["libs/log/src/index.ts", "app/main.ts"];
    const p = project({
      ...Object.fromEntries(files.map((f) => [f, "export {};\n"])),
      "pnpm-workspace.yaml": "packages:\n  - 'libs/*'\n  - \"!libs/ignored\"\n",
      "libs/log/package.json": JSON.stringify({ name: "@acme/log" }),
    });
    expect(resolverFor(p, files).resolve("app/main.ts", "@acme/log")).toBe("libs/log/src/index.ts");
  });

  it("reads pnpm-workspace.yaml as YAML: a flow list, comments, and `!` patterns leaving directories out", () => {
    const files = ["libs/log/src/index.ts", "libs/old/src/index.ts", "tools/gen/src/index.ts", "app/main.ts"];
    const p = project({
      ...Object.fromEntries(files.map((f) => [f, "export {};\n"])),
      // The line scanner read only `- item` lines: a flow list declared no package.
      "pnpm-workspace.yaml": "# workspace\npackages: ['libs/*', \"tools/**\", '!libs/old'] # all\ncatalog:\n  react: ^19\n",
      "libs/log/package.json": JSON.stringify({ name: "@acme/log" }),
      "libs/old/package.json": JSON.stringify({ name: "@acme/old" }),
      "tools/gen/package.json": JSON.stringify({ name: "@acme/gen" }),
    });
    const resolve = resolverFor(p, files).resolve;
    expect(["@acme/log", "@acme/gen", "@acme/old"].map((m) => resolve("app/main.ts", m))).toEqual(["libs/log/src/index.ts", "tools/gen/src/index.ts", null]);
  });

  it("reads no packages from a pnpm-workspace.yaml YAML cannot read, and the package.json workspaces still", () => {
    const files = ["libs/log/src/index.ts", "app/main.ts"];
    const p = project({
      ...Object.fromEntries(files.map((f) => [f, "export {};\n"])),
      "package.json": JSON.stringify({ name: "root", workspaces: ["libs/*"] }),
      "pnpm-workspace.yaml": "packages:\n  - 'libs/*\n  bad: [\n",
      "libs/log/package.json": JSON.stringify({ name: "@acme/log" }),
    });
    expect(resolverFor(p, files).resolve("app/main.ts", "@acme/log")).toBe("libs/log/src/index.ts");
  });
});

describe("relinking after a config change", () => {
  it("an edited tsconfig relinks every import on the next incremental run", async () => {
    const p = project({
      "src/a.ts": "import { b } from '@x/b';\nexport const a = b;\n",
      "src/lib/b.ts": "export const b = 1;\n",
      "tsconfig.json": `{ "compilerOptions": { "paths": { "@y/*": ["src/lib/*"] } } }`,
    });
    // Every file older than the racy window: the run records trusted stats of the configs, and the
    // next no-change run trusts them instead of reading them — an edit must still be seen.
    const past = new Date(Date.now() - 3_600_000);
    for (const f of ["src/a.ts", "src/lib/b.ts", "tsconfig.json"]) utimesSync(join(p.root, f), past, past);
    const state = mkdtempSync(join(tmpdir(), "mast-resolve-"));
    cleanups.push(() => rmSync(state, { recursive: true, force: true }));
    await runIndex(p.config({ stateDir: state }), { mode: "full" });
    expect(await runIndex(p.config({ stateDir: state }), { mode: "incremental" })).toMatchObject({ files_indexed: 0 });
    const resolvedPath = () => {
      const s = Store.open(statePaths(state).graphDb, { readonly: true });
      try {
        return s.db.prepare("SELECT (SELECT path FROM files WHERE id = resolved_file_id) AS resolved_path, is_external FROM imports").get();
      } finally {
        s.close();
      }
    };
    expect(resolvedPath()).toEqual({ resolved_path: null, is_external: 1 });
    p.write("tsconfig.json", `{ "compilerOptions": { "paths": { "@x/*": ["src/lib/*"] } } }`);
    const report = await runIndex(p.config({ stateDir: state }), { mode: "incremental" });
    expect(report.files_indexed).toBe(0);
    expect(resolvedPath()).toEqual({ resolved_path: "src/lib/b.ts", is_external: 0 });
    const fresh = mkdtempSync(join(tmpdir(), "mast-resolve-fresh-"));
    cleanups.push(() => rmSync(fresh, { recursive: true, force: true }));
    await runIndex(p.config({ stateDir: fresh }), { mode: "full" });
    expect(dumpStore(statePaths(state).graphDb)).toEqual(dumpStore(statePaths(fresh).graphDb));
  });

  it("relinkImports reads the rows a page at a time and resolves every one, of all files or of those named", async () => {
    const p = project({
      "src/a.ts": "import { b } from './b';\nimport { c } from './c';\nimport x from 'left-pad';\nexport const a = b + c + x;\n",
      "src/b.ts": "import { c } from './c';\nexport const b = c;\n",
      "src/c.ts": "import { d } from './d';\nexport const c = d;\n",
      "src/d.ts": "export const d = 1;\n",
    });
    const state = mkdtempSync(join(tmpdir(), "mast-resolve-"));
    cleanups.push(() => rmSync(state, { recursive: true, force: true }));
    await runIndex(p.config({ stateDir: state }), { mode: "full" });
    const store = Store.open(statePaths(state).graphDb);
    try {
      const rows = () =>
        store.db
          .prepare(
            "SELECT f.path, i.module, (SELECT path FROM files WHERE id = i.resolved_file_id) AS resolved, i.is_external AS external FROM imports i JOIN files f ON f.id = i.file_id ORDER BY i.id",
          )
          .all();
      const indexed = rows();
      expect(indexed).toEqual([
        { path: "src/a.ts", module: "./b", resolved: "src/b.ts", external: 0 },
        { path: "src/a.ts", module: "./c", resolved: "src/c.ts", external: 0 },
        { path: "src/a.ts", module: "left-pad", resolved: null, external: 1 },
        { path: "src/b.ts", module: "./c", resolved: "src/c.ts", external: 0 },
        { path: "src/c.ts", module: "./d", resolved: "src/d.ts", external: 0 },
      ]);
      const paths = new Set(["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts"]);
      const resolve = createImportResolver(paths, p.root).resolve;
      const idOf = (path: string) => (store.db.prepare("SELECT id FROM files WHERE path = ?").get(path) as { id: number }).id;
      const forget = () => store.db.prepare("UPDATE imports SET resolved_file_id = NULL, is_external = 0").run();
      // Two rows a page: three pages, the last one short; then five a page: one page exactly full and an empty one.
      for (const pageRows of [2, 5]) {
        forget();
        expect([...store.relinkImports(resolve, "all", pageRows)].sort()).toEqual(["src/a.ts", "src/b.ts", "src/c.ts"].map(idOf).sort());
        expect(rows()).toEqual(indexed);
      }
      forget();
      expect([...store.relinkImports(resolve, [idOf("src/b.ts"), idOf("src/c.ts")], 1)].sort()).toEqual([idOf("src/b.ts"), idOf("src/c.ts")].sort());
      expect(rows().map((r) => (r as { resolved: string | null }).resolved)).toEqual([null, null, null, "src/c.ts", "src/d.ts"]);
    } finally {
      store.close();
    }
  });

  it("an import's resolved file is the row at its path: a file gone and back (another row) is relinked to its new row", async () => {
    const p = project({
      "src/a.ts": "import { b } from './lib/b';\nexport const a = b;\n",
      "src/lib/b.ts": "export const b = 1;\n",
    });
    const state = mkdtempSync(join(tmpdir(), "mast-resolve-"));
    cleanups.push(() => rmSync(state, { recursive: true, force: true }));
    const resolved = () =>
      queryStore(
        statePaths(state).graphDb,
        "SELECT (SELECT path FROM files WHERE id = i.resolved_file_id) AS resolved_path, i.resolved_file_id, (SELECT id FROM files WHERE path = 'src/lib/b.ts') AS b FROM imports i",
      )[0]!;
    await runIndex(p.config({ stateDir: state }), { mode: "full" });
    const first = resolved();
    expect(first).toEqual({ resolved_path: "src/lib/b.ts", resolved_file_id: first.b, b: expect.any(Number) });
    p.remove("src/lib/b.ts");
    await runIndex(p.config({ stateDir: state }), { mode: "incremental" });
    expect(resolved()).toEqual({ resolved_path: null, resolved_file_id: null, b: null });
    // A file written first takes the id b's row had.
    p.write("src/c.ts", "export const c = 3;\n");
    p.write("src/lib/b.ts", "export const b = 2;\n");
    await runIndex(p.config({ stateDir: state }), { mode: "incremental" });
    const again = resolved();
    expect(again.b).not.toBe(first.b);
    expect(again).toEqual({ resolved_path: "src/lib/b.ts", resolved_file_id: again.b, b: again.b });
    // A full run over the index: whatever rows it writes, the import names b's.
    await runIndex(p.config({ stateDir: state }), { mode: "full" });
    const full = resolved();
    expect(full).toEqual({ resolved_path: "src/lib/b.ts", resolved_file_id: full.b, b: expect.any(Number) });
  });

  it("a tsconfig created where there was none relinks, though no source file changed", async () => {
    const p = project({
      "pkg/src/a.ts": "import { b } from '@x/b';\nexport const a = b;\n",
      "pkg/src/lib/b.ts": "export const b = 1;\n",
    });
    const past = new Date(Date.now() - 3_600_000);
    for (const f of ["pkg/src/a.ts", "pkg/src/lib/b.ts"]) utimesSync(join(p.root, f), past, past);
    const state = mkdtempSync(join(tmpdir(), "mast-resolve-"));
    cleanups.push(() => rmSync(state, { recursive: true, force: true }));
    await runIndex(p.config({ stateDir: state }), { mode: "full" });
    await runIndex(p.config({ stateDir: state }), { mode: "incremental" });
    const resolved = () => queryStore(statePaths(state).graphDb, "SELECT (SELECT path FROM files WHERE id = resolved_file_id) AS resolved_path FROM imports")[0]!.resolved_path;
    expect(resolved()).toBe(null);
    p.write("pkg/tsconfig.json", `{ "compilerOptions": { "paths": { "@x/*": ["src/lib/*"] } } }`);
    expect(await runIndex(p.config({ stateDir: state }), { mode: "incremental" })).toMatchObject({ files_indexed: 0 });
    expect(resolved()).toBe("pkg/src/lib/b.ts");
  });
});
