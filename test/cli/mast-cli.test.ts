// End-to-end tests of the built `mast` CLI (dist/bin/mast.js, so run `npm run build` first),
// spawned as child processes against real temp projects: init/index/status output, config and
// state-dir priority, freshness, progress, structure.lock contention, crash recovery, errors.
import { spawnSync } from "node:child_process";
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Store } from "../../src/store/store.js";
import { MAST_BIN, assertBuilt, lines, runMast, spawnMast, startLockHolder, type CliResult } from "../helpers/cli.js";
import { BASE_FILES as SHARED_FILES, makeProject, tempSpace, type TestProject } from "../helpers/project.js";
import { dumpStore } from "../helpers/store-dump.js";
import { syntheticProject } from "../helpers/synthetic-project.js";

const BASE_FILES: Record<string, string> = {
  ...SHARED_FILES,
  // Excluded by the default exclude_patterns (build output and dependencies; test files are indexed).
  "dist/auth.js": "export const t = 1;\n",
  "node_modules/pkg/index.js": "module.exports = 1;\n",
};
const BASE_INDEXED = ["docs/guide.md", "src/auth.ts", "src/index.ts", "src/repo.ts"];
const SCHEMA_VERSION = "1.27.0";
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const space = tempSpace(BASE_FILES);
const project = space.project;
const tempDir = (prefix = "mast-cli-"): string => space.dir(prefix);
beforeAll(() => assertBuilt());

/** Parses stdout as JSON after checking the run succeeded (with stderr in the failure message). */
function ok(r: CliResult): Record<string, any> {
  expect(r.signal, r.stderr).toBeNull();
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, any>;
}

/** A named error: exit 1, nothing on stdout, exactly one stderr line `mast: error CODE: message (hint: ...)`. */
function expectError(r: CliResult, code: string): string {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe("");
  const errLines = lines(r.stderr);
  expect(errLines).toHaveLength(1);
  expect(errLines[0]).toMatch(new RegExp(`^mast: error ${code}: .+ \\(hint: .+\\)$`));
  return errLines[0]!;
}

/** A tool's own failure under `mast query`: as expectError, but stdout is the failure MCP would send, `{error: {code, message, recovery, details?}}`. */
function expectToolError(r: CliResult, code: string): string {
  const line = expectError({ ...r, stdout: "" }, code);
  const failure = JSON.parse(r.stdout) as { error: { code: string; message: string; recovery: string } };
  expect(Object.keys(failure.error).slice(0, 3)).toEqual(["code", "message", "recovery"]);
  expect(line).toBe(`mast: error ${code}: ${failure.error.message} (hint: ${failure.error.recovery})`);
  return line;
}

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, any>;
const manifestPaths = (stateDir: string) => Object.keys(readJson(join(stateDir, "file_manifest.json")));

function query<T>(stateDir: string, sql: string, ...params: unknown[]): T[] {
  const store = Store.open(join(stateDir, "graph.db"), { readonly: true });
  try {
    return store.db.prepare(sql).all(...params) as T[];
  } finally {
    store.close();
  }
}

describe("mast init", () => {
  it("indexes the project, reports exact counts and writes every state file", async () => {
    const p = project();
    const state = join(p.root, ".mast");
    const report = ok(await runMast(["init", p.root, "--json"]));
    expect(report).toMatchObject({
      mode: "full",
      state_dir: state,
      schema_reset: false,
      files_walked: 4,
      files_indexed: 4,
      files_unchanged: 0,
      files_deleted: 0,
      parse_errors: 0,
      write_errors: 0,
      read_errors: 0,
      skipped_binary: 0,
      skipped_too_large: 0,
      skipped_symlinks: 0,
      file_count: 4,
      chunk_count: 9,
      symbol_count: 6,
      threads: 0, // 4 files parse inline
      problems: [],
    });
    expect(report.bytes_parsed).toBe(BASE_INDEXED.reduce((n, f) => n + Buffer.byteLength(BASE_FILES[f]!), 0));
    expect(readdirSync(state).sort()).toEqual([
      ".gitignore",
      "config.json",
      "file-stamps.bin",
      "file_manifest.json",
      "graph.db",
      "graph.db-stamp",
      "index.json",
      "lock-metrics.jsonl",
      "structure.lock",
      "walk-cache.bin",
    ]);
    // git ignores the whole state dir, this file included.
    expect(readFileSync(join(state, ".gitignore"), "utf8")).toBe("# mast's index state: derived, never committed\n*\n");
    const index = readJson(join(state, "index.json"));
    expect(index).toMatchObject({ schema_version: SCHEMA_VERSION, file_count: 4, chunk_count: 9, parse_errors: 0, write_errors: 0 });
    expect(index.last_indexed).toMatch(ISO);
    expect(manifestPaths(state)).toEqual(BASE_INDEXED);
    const config = readJson(join(state, "config.json"));
    expect(config).toMatchObject({ project_root: p.root, state_dir: state, resolved_project_root: p.root, resolved_state_dir: state, context_lines: 3 });
    expect(readJson(join(state, "structure.lock"))).toMatchObject({ operation: "mast init", released: expect.stringMatching(ISO) }); // released: the record says so
  }, 20_000);

  it("leaves `git status` clean: the state dir ignores itself", async () => {
    const p = project();
    const git = (...args: string[]) => execFileSync("git", ["-C", p.root, ...args], { encoding: "utf8" });
    git("init", "-q");
    ok(await runMast(["init", p.root, "--json"]));
    expect(
      git("status", "--porcelain", "--untracked-files=all")
        .split("\n")
        .filter((l) => l.includes(".mast")),
    ).toEqual([]);
  });

  it("--no-index writes the config and an empty index.json, but no manifest or graph", async () => {
    const p = project();
    const state = join(p.root, ".mast");
    const out = ok(await runMast(["init", p.root, "--no-index", "--json"]));
    expect(out).toEqual({ state_dir: state, indexed: false });
    expect(readdirSync(state).sort()).toEqual([".gitignore", "config.json", "index.json", "lock-metrics.jsonl", "structure.lock"]);
    expect(readJson(join(state, "index.json"))).toEqual({ schema_version: SCHEMA_VERSION, last_indexed: null, file_count: 0, chunk_count: 0, parse_errors: 0, write_errors: 0 });
    const status = ok(await runMast(["status", p.root, "--json"]));
    expect(status).toMatchObject({ last_indexed: null, indexed_files: 0, index_fresh: false });
  }, 20_000);

  it("--extensions is trimmed, empty entries dropped, dot-normalized, persisted, and limits the walk", async () => {
    const p = project({ ...BASE_FILES, "src/app.js": "export const app = 1;\n", "src/view.tsx": "export const V = () => null;\n" });
    const state = join(p.root, ".mast");
    const report = ok(await runMast(["init", p.root, "--extensions", " ts, .md ,,", "--json"]));
    expect(readJson(join(state, "config.json")).file_extensions).toEqual([".ts", ".md"]);
    expect(report).toMatchObject({ files_walked: 4, files_indexed: 4 });
    expect(manifestPaths(state)).toEqual(BASE_INDEXED); // no .js, no .tsx
  }, 20_000);

  it("--extensions with an unsupported language fails before anything is created", async () => {
    const p = project();
    const r = await runMast(["init", p.root, "--extensions", "kt", "--json"]);
    const line = expectError(r, "INVALID_ARGUMENT");
    expect(line).toContain("command line: file_extensions must be a list of supported extensions");
    expect(line).toContain("not .kt");
    expect(existsSync(join(p.root, ".mast"))).toBe(false);
  }, 20_000);

  it("--exclude replaces the default excludes", async () => {
    const p = project({ ...BASE_FILES, "src/gen/out.ts": "export const gen = 1;\n", "lib/gen/deep.ts": "export const deep = 1;\n" });
    const state = join(p.root, ".mast");
    const report = ok(await runMast(["init", p.root, "--exclude", "docs/**, **/gen/**", "--json"]));
    expect(readJson(join(state, "config.json")).exclude_patterns).toEqual(["docs/**", "**/gen/**"]);
    // The defaults no longer apply: dist and node_modules are indexed; docs and gen are not.
    expect(manifestPaths(state)).toEqual(["dist/auth.js", "node_modules/pkg/index.js", "src/auth.ts", "src/index.ts", "src/repo.ts"]);
    expect(report.files_indexed).toBe(5);
  }, 20_000);
});

describe("configuration priority", () => {
  it("CLI flag > mast.config.json > persisted config.json > defaults, for file_extensions", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "b.js": "export const b = 2;\n", "c.md": "# C\n\nText.\n" });
    const state = join(p.root, ".mast");
    // Defaults: every supported extension.
    expect(ok(await runMast(["index", p.root, "--json"])).files_walked).toBe(3);
    // A flag on init is persisted...
    expect(ok(await runMast(["init", p.root, "--extensions", "ts", "--json"])).files_walked).toBe(1);
    // ...and read back by a later run without flags.
    p.write("d.ts", "export const d = 4;\n");
    const persisted = ok(await runMast(["index", p.root, "--json"]));
    expect(persisted).toMatchObject({ files_walked: 2, files_indexed: 2 });
    expect(manifestPaths(state)).toEqual(["a.ts", "d.ts"]);
    // mast.config.json beats the persisted config.
    p.write("mast.config.json", JSON.stringify({ file_extensions: ["md"] }));
    const project_ = ok(await runMast(["index", p.root, "--incremental", "--json"]));
    expect(project_).toMatchObject({ files_walked: 1, files_indexed: 1, files_deleted: 2 });
    expect(manifestPaths(state)).toEqual(["c.md"]);
    // A CLI flag beats mast.config.json.
    const flag = ok(await runMast(["init", p.root, "--extensions", ".js", "--json"]));
    expect(flag).toMatchObject({ files_walked: 1 });
    expect(manifestPaths(state)).toEqual(["b.js"]);
    expect(readJson(join(state, "config.json")).file_extensions).toEqual([".js"]);
  }, 30_000);

  it("context_lines and chunk_split_threshold reach the stored chunks from each level", async () => {
    const body = Array.from({ length: 40 }, (_, i) => `  a = a + ${i};`);
    const p = project({
      "a.ts": ["const a1 = 1;", "const a2 = 2;", "", "export function f() {", "  return a1 + a2;", "}", "", "export function big(a: number): number {", ...body, "  return a;", "}", ""].join("\n"),
    });
    const state = join(p.root, ".mast");
    const fStart = () => query<{ content_start_line: number }>(state, "SELECT content_start_line FROM chunks WHERE symbol_name = 'f'").map((r) => r.content_start_line);
    const bigParts = () => query<{ part: number }>(state, "SELECT part FROM chunks WHERE symbol_name = 'big' ORDER BY part").map((r) => r.part);

    // Defaults: 3 context lines (clamped at line 1), `big` (43 lines) stays one chunk under the 100-line threshold.
    ok(await runMast(["init", p.root, "--json"]));
    expect(fStart()).toEqual([1]);
    expect(bigParts()).toEqual([0]);

    // A persisted config.json (as a previous init would leave it) beats the defaults.
    const persisted = readJson(join(state, "config.json"));
    writeFileSync(join(state, "config.json"), JSON.stringify({ ...persisted, context_lines: 2, chunk_split_threshold: 20 }));
    ok(await runMast(["index", p.root, "--json"]));
    expect(fStart()).toEqual([2]);
    expect(bigParts()).toEqual([0, 1, 2, 3]);

    // mast.config.json beats the persisted config, key by key: context_lines from the file, the threshold still persisted.
    p.write("mast.config.json", JSON.stringify({ context_lines: 0 }));
    ok(await runMast(["index", p.root, "--json"]));
    expect(fStart()).toEqual([4]);
    expect(bigParts()).toEqual([0, 1, 2, 3]);
    // `mast index` reads the persisted config but never rewrites it (only init and serve do).
    expect(readJson(join(state, "config.json"))).toMatchObject({ context_lines: 2, chunk_split_threshold: 20 });
  }, 30_000);

  it("never takes path keys from a persisted config.json", async () => {
    const p = project();
    const state = join(p.root, ".mast");
    ok(await runMast(["init", p.root, "--no-index", "--json"]));
    const elsewhere = join(tempDir(), "elsewhere");
    const persisted = readJson(join(state, "config.json"));
    writeFileSync(
      join(state, "config.json"),
      JSON.stringify({ ...persisted, state_dir: join(elsewhere, "state"), project_root: elsewhere, resolved_state_dir: join(elsewhere, "state"), resolved_project_root: elsewhere, context_lines: 5 }),
    );
    const report = ok(await runMast(["init", p.root, "--json"]));
    expect(report).toMatchObject({ state_dir: state, files_walked: 4, files_indexed: 4 });
    expect(existsSync(elsewhere)).toBe(false);
    // The customisation key was read back; the paths were rewritten from the current resolution.
    expect(readJson(join(state, "config.json"))).toMatchObject({ context_lines: 5, state_dir: state, project_root: p.root, resolved_state_dir: state, resolved_project_root: p.root });
  }, 20_000);

  it("resolves the state dir: --state-dir > MAST_STATE_DIR > mast.config.json state_dir > <root>/.mast", async () => {
    const p = project({ "a.ts": "export const a = 1;\n" });
    const init = async (args: string[], env: Record<string, string> = {}) => ok(await runMast(["init", p.root, "--no-index", "--json", ...args], { env })).state_dir as string;

    expect(await init([])).toBe(join(p.root, ".mast"));
    expect(existsSync(join(p.root, ".mast", "config.json"))).toBe(true);

    p.write("mast.config.json", JSON.stringify({ state_dir: "var/state" }));
    expect(await init([])).toBe(join(p.root, "var", "state")); // relative to the project root, not the cwd
    expect(existsSync(join(p.root, "var", "state", "config.json"))).toBe(true);

    const fromEnv = join(tempDir(), "env-state");
    expect(await init([], { MAST_STATE_DIR: fromEnv })).toBe(fromEnv);
    expect(existsSync(join(fromEnv, "config.json"))).toBe(true);

    const fromFlag = join(tempDir(), "flag-state");
    expect(await init(["--state-dir", fromFlag], { MAST_STATE_DIR: fromEnv })).toBe(fromFlag);
    expect(existsSync(join(fromFlag, "config.json"))).toBe(true);

    // status resolves the same way.
    expect(ok(await runMast(["status", p.root, "--json", "--state-dir", fromFlag], { env: { MAST_STATE_DIR: fromEnv } })).state_dir).toBe(fromFlag);
  }, 30_000);

  it("a state dir the project names is never outside it, the root, a source directory or through a symlink (STATE_DIR_UNSAFE, nothing written)", async () => {
    const elsewhere = tempDir("mast-elsewhere-");
    writeFileSync(join(elsewhere, "config.json"), "unrelated\n");
    const untouched = () => {
      expect(readFileSync(join(elsewhere, "config.json"), "utf8")).toBe("unrelated\n");
      expect(readdirSync(elsewhere)).toEqual(["config.json"]);
    };
    const hostile = async (files: Record<string, string>, setup: (root: string) => void = () => {}) => {
      const p = project({ "a.ts": "export const a = 1;\n", "config.json": "tracked\n", "src/config.json": "{}\n", ...files });
      setup(p.root);
      for (const command of ["init", "status", "index"]) {
        const line = expectError(await runMast([command, p.root, "--json"]), "STATE_DIR_UNSAFE");
        expect(line).toContain("nothing was written");
      }
      untouched();
      expect(readFileSync(join(p.root, "config.json"), "utf8")).toBe("tracked\n");
      expect(readFileSync(join(p.root, "src/config.json"), "utf8")).toBe("{}\n");
      return p;
    };
    await hostile({ "mast.config.json": JSON.stringify({ state_dir: elsewhere }) });
    await hostile({ "mast.config.json": JSON.stringify({ state_dir: "../" }) });
    await hostile({ "mast.config.json": JSON.stringify({ state_dir: "." }) });
    await hostile({ "mast.config.json": JSON.stringify({ state_dir: "src" }) });
    await hostile({}, (root) => symlinkSync(elsewhere, join(root, ".mast")));
    await hostile({ "mast.config.json": JSON.stringify({ state_dir: "var/state" }) }, (root) => symlinkSync(elsewhere, join(root, "var")));
    await hostile({ ".mast/.keep": "" }, (root) => symlinkSync(join(elsewhere, "config.json"), join(root, ".mast/graph.db")));
    await hostile({ ".mast/.keep": "" }, (root) => symlinkSync(elsewhere, join(root, ".mast/workspace")));
    // The command line and the environment may still put the index anywhere.
    const p = project({ "a.ts": "export const a = 1;\n", "mast.config.json": JSON.stringify({ state_dir: elsewhere }) });
    const flagged = join(tempDir(), "flag-state");
    expect(ok(await runMast(["init", p.root, "--json", "--state-dir", flagged])).state_dir).toBe(flagged);
    untouched();
  }, 60_000);

  it("a structural build never writes through a symlink in the project's committed state dir", async () => {
    const elsewhere = tempDir("mast-elsewhere-");
    const p = project({ "a.ts": "export const a = 1;\n" });
    ok(await runMast(["init", p.root, "--json"]));
    mkdirSync(join(p.root, ".mast/workspace"), { recursive: true });
    symlinkSync(elsewhere, join(p.root, ".mast/workspace/kb"));
    const r = await runMast(["structural", "build", "--json"], { cwd: p.root });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("STATE_DIR_UNSAFE");
    expect(readdirSync(elsewhere)).toEqual([]);
  }, 60_000);

  it("rejects a malformed or invalid mast.config.json with CONFIG_INVALID naming the file", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "mast.config.json": '{ "context_lines": 3,' });
    const file = join(p.root, "mast.config.json");
    for (const command of ["init", "index", "status"]) {
      const line = expectError(await runMast([command, p.root, "--json"]), "CONFIG_INVALID");
      // The failing position, never the file's text (#9 §3).
      expect(line.startsWith(`mast: error CONFIG_INVALID: ${file} is not valid JSON`)).toBe(true);
      expect(line).not.toContain("context_lines");
    }
    expect(existsSync(join(p.root, ".mast"))).toBe(false);

    p.write("mast.config.json", JSON.stringify({ context_lines: -1 }));
    expect(expectError(await runMast(["index", p.root]), "CONFIG_INVALID")).toContain(`${file}: context_lines must be an integer from 0 to 1000`);
    p.write("mast.config.json", JSON.stringify(["not", "an", "object"]));
    expect(expectError(await runMast(["index", p.root]), "CONFIG_INVALID")).toContain(`${file} must contain a JSON object`);
  }, 30_000);

  it("rejects a missing project path with FILE_NOT_FOUND and a file with NOT_A_DIRECTORY", async () => {
    const p = project({ "a.ts": "export const a = 1;\n" });
    const missing = join(p.root, "missing");
    const file = join(p.root, "a.ts");
    for (const command of ["init", "index", "status"]) {
      expect(expectError(await runMast([command, missing, "--json"]), "FILE_NOT_FOUND")).toContain(`project path does not exist: ${missing}`);
      expect(expectError(await runMast([command, file, "--json"]), "NOT_A_DIRECTORY")).toContain(`project path is not a directory: ${file}`);
    }
    expect(existsSync(missing)).toBe(false);
  }, 30_000);
});

describe("mast status", () => {
  it("finds the project's state dir from a subdirectory, like git; init does not walk", async () => {
    const p = project();
    ok(await runMast(["init", p.root, "--json"]));
    const sub = join(p.root, "src");
    const fromSub = ok(await runMast(["status", "--json"], { cwd: sub }));
    expect(fromSub).toMatchObject({ state_dir: join(p.root, ".mast"), indexed_files: 4, index_fresh: true });
    const query = ok(await runMast(["query", "mast_signature", '{"symbol":"AuthService"}', sub, "--json"]));
    expect(query.results.map((r: { file_path: string }) => r.file_path)).toEqual(["src/auth.ts"]);
    expect(existsSync(join(sub, ".mast"))).toBe(false);
    // `mast init` in the subdirectory makes it a project of its own.
    ok(await runMast(["init", sub, "--json"]));
    expect(existsSync(join(sub, ".mast"))).toBe(true);
  }, 30_000);

  it("on a never-indexed project reports nothing indexed and creates no state dir", async () => {
    const p = project();
    const status = ok(await runMast(["status", p.root, "--json"]));
    expect(status).toEqual({
      state_dir: join(p.root, ".mast"),
      schema_version: SCHEMA_VERSION,
      last_indexed: null,
      indexed_files: 0,
      chunk_count: 0,
      stale_files: 4,
      parse_errors: 0,
      write_errors: 0,
      index_fresh: false,
      freshness_cause: "phase1_stale",
      stale_breakdown: { changed: 0, unindexed: 4, vanished: 0 },
    });
    const human = await runMast(["status", p.root]);
    expect(human.code).toBe(0);
    expect(lines(human.stdout)).toContain("last_indexed:   never");
    expect(lines(human.stdout)).toContain("hint:           not indexed yet: run `mast init` or `mast index`");
    expect(existsSync(join(p.root, ".mast"))).toBe(false);
  }, 20_000);

  it("counts changed, unindexed and vanished files after an index", async () => {
    const p = project();
    const state = join(p.root, ".mast");
    ok(await runMast(["index", p.root, "--json"]));
    const lastIndexed = readJson(join(state, "index.json")).last_indexed as string;
    const fresh = ok(await runMast(["status", p.root, "--json"]));
    expect(fresh).toMatchObject({
      last_indexed: lastIndexed,
      indexed_files: 4,
      chunk_count: 9,
      stale_files: 0,
      index_fresh: true,
      freshness_cause: null,
      stale_breakdown: { changed: 0, unindexed: 0, vanished: 0 },
    });

    p.write("src/repo.ts", BASE_FILES["src/repo.ts"]!.replace("id.length", "id.trim().length"));
    p.write("src/extra.ts", "export const extra = 1;\n");
    p.remove("docs/guide.md");
    const before = readFileSync(join(state, "file_manifest.json"), "utf8");
    const stale = ok(await runMast(["status", p.root, "--json"]));
    expect(stale).toMatchObject({
      indexed_files: 4,
      stale_files: 3,
      index_fresh: false,
      freshness_cause: "phase1_stale",
      stale_breakdown: { changed: 1, unindexed: 1, vanished: 1 },
    });
    expect(readFileSync(join(state, "file_manifest.json"), "utf8")).toBe(before); // status is read-only

    const human = await runMast(["status", p.root]);
    expect(human.code).toBe(0);
    expect(human.stderr).toBe("");
    const out = lines(human.stdout);
    expect(out).toContain("freshness_cause: phase1_stale");
    expect(out).toContain("index_fresh:    false");
    expect(out).toContain("stale_files:    3 (1 changed, 1 not indexed, 1 gone)");
    expect(out).toContain("indexed_files:  4");
    expect(out).toContain(`schema_version: ${SCHEMA_VERSION}`);
    expect(out[0]).toBe(`state_dir:      ${state}`);
  }, 20_000);

  it("reads a graph.db without its schema (a run killed at start) as nothing indexed, and the next run heals it", async () => {
    const p = project();
    const state = join(p.root, ".mast");
    ok(await runMast(["init", p.root, "--no-index", "--json"]));
    writeFileSync(join(state, "graph.db"), "");
    expect(ok(await runMast(["status", p.root, "--json"]))).toMatchObject({
      last_indexed: null,
      indexed_files: 0,
      stale_files: 4,
      index_fresh: false,
      stale_breakdown: { changed: 0, unindexed: 4, vanished: 0 },
    });
    expect(ok(await runMast(["index", p.root, "--incremental", "--json"]))).toMatchObject({ files_indexed: 4, file_count: 4 });
    expect(ok(await runMast(["status", p.root, "--json"]))).toMatchObject({ stale_files: 0, index_fresh: true });
  }, 20_000);

  it("reports a graph.db of another schema version as wholly stale; the next incremental run resets it", async () => {
    const p = project();
    const state = join(p.root, ".mast");
    ok(await runMast(["init", p.root, "--json"]));
    const store = Store.open(join(state, "graph.db"));
    store.setMeta("schema_version", "1.0.0");
    store.close();
    expect(ok(await runMast(["status", p.root, "--json"]))).toMatchObject({
      schema_version: SCHEMA_VERSION,
      indexed_files: 4,
      stale_files: 4,
      index_fresh: false,
      freshness_cause: "phase1_stale",
      stale_breakdown: { changed: 0, unindexed: 4, vanished: 0 },
    });
    expect(ok(await runMast(["index", p.root, "--incremental", "--json"]))).toMatchObject({ mode: "full", schema_reset: true, files_indexed: 4 });
    expect(ok(await runMast(["status", p.root, "--json"]))).toMatchObject({ stale_files: 0, index_fresh: true });
  }, 20_000);
});

describe("mast index", () => {
  it("--incremental reindexes exactly the changed and added files", async () => {
    const p = project();
    const state = join(p.root, ".mast");
    ok(await runMast(["init", p.root, "--json"]));
    p.write("src/repo.ts", BASE_FILES["src/repo.ts"]!.replace("id.length", "id.trim().length"));
    p.write("src/auth.ts", BASE_FILES["src/auth.ts"]!.replace("validate", "check"));
    p.write("src/extra.ts", "export const extra = 1;\n");
    p.remove("docs/guide.md");
    const report = ok(await runMast(["index", p.root, "--incremental", "--json"]));
    expect(report).toMatchObject({ mode: "incremental", files_walked: 4, files_indexed: 3, files_unchanged: 1, files_deleted: 1, file_count: 4 });
    expect(manifestPaths(state)).toEqual(["src/auth.ts", "src/extra.ts", "src/index.ts", "src/repo.ts"]);
    // A second run finds nothing to do, and status agrees.
    expect(ok(await runMast(["index", p.root, "--incremental", "--json"]))).toMatchObject({ files_indexed: 0, files_unchanged: 4, files_deleted: 0 });
    expect(ok(await runMast(["status", p.root, "--json"]))).toMatchObject({ stale_files: 0, index_fresh: true });
  }, 20_000);

  it("--show-progress prints a line per tenth to a non-TTY stderr and keeps stdout clean JSON", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`src/m${String(i).padStart(2, "0")}.ts`] = `export function f${i}(x: number): number {\n  return x + ${i};\n}\n`;
    const p = project(files);
    const r = await runMast(["index", p.root, "--show-progress", "--json"]);
    const report = ok(r);
    expect(report).toMatchObject({ files_indexed: 30, file_count: 30 });
    const progress = lines(r.stderr);
    const done = progress.map((line) => {
      const m = /^\[([#-]{30})\] (\d+)\/30 files {2}\d+\.\d MB {2}\d+\.\d s$/.exec(line);
      expect(m, line).not.toBeNull();
      const n = Number(m![2]);
      expect(m![1]).toBe("#".repeat(n) + "-".repeat(30 - n)); // 30 files on a 30-wide bar: one # per file
      return n;
    });
    // One line each time the done/total decile changes: 1 (0%), 3 (10%), 6 (20%) ... 30 (100%).
    expect(done).toEqual([1, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30]);
    expect(r.stderr).not.toContain("\r");
    // Without the flag, a pipe gets no progress at all.
    expect((await runMast(["index", p.root, "--json"])).stderr).toBe("");
  }, 20_000);

  it("a terminal gets the progress bar by default, redrawn in place, and none with --no-progress", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 10; i++) files[`src/m${i}.ts`] = `export const v${i} = ${i};\n`;
    const p = project(files);
    // `script` runs the command on a pseudo-terminal (util-linux).
    const onTty = (args: string[]) => spawnSync("script", ["-qec", [process.execPath, MAST_BIN, ...args].map((a) => `'${a}'`).join(" "), "/dev/null"], { encoding: "utf8" });
    const bar = onTty(["index", p.root]);
    expect(bar.status).toBe(0);
    expect(bar.stdout).toMatch(/\r\[#{30}\] 10\/10 files {2}\d+\.\d MB {2}\d+\.\d s\r?\n/);
    const quiet = onTty(["index", p.root, "--no-progress"]);
    expect(quiet.status).toBe(0);
    expect(quiet.stdout).not.toContain("files  ");
    expect(quiet.stdout).toContain("indexed");
  }, 20_000);
});

describe("structure.lock", () => {
  it("a live holder makes `mast index` give up after ~2 s with LOCK_HELD naming it; after release it succeeds", async () => {
    const p = project();
    const state = join(p.root, ".mast");
    ok(await runMast(["init", p.root, "--no-index", "--json"]));
    const holder = await startLockHolder(join(state, "structure.lock"), "cli-test holder", 4_000);
    try {
      const [r, noIndex] = await Promise.all([runMast(["index", p.root, "--json"]), runMast(["init", p.root, "--no-index", "--json"])]);
      // init --no-index runs the schema guard (which may wipe graph.db), so it takes the lock too.
      expect(expectError(noIndex, "LOCK_HELD")).toContain(`index is locked by cli-test holder (pid ${holder.pid} `);
      const line = expectError(r, "LOCK_HELD");
      expect(line).toMatch(new RegExp(`^mast: error LOCK_HELD: index is locked by cli-test holder \\(pid ${holder.pid} on ${hostname()}, since \\d{4}-[^)]+\\); gave up after 2000 ms \\(hint: `));
      expect(r.ms).toBeGreaterThanOrEqual(2_000);
      expect(r.ms).toBeLessThan(3_500);
      expect(readJson(join(state, "index.json")).last_indexed).toBeNull(); // nothing was indexed
      // Status names the run in progress, as JSON and as text.
      expect(ok(await runMast(["status", p.root, "--json"])).indexing).toMatchObject({ in_progress: true, operation: "cli-test holder" });
      expect((await runMast(["status", p.root])).stdout).toMatch(/^indexing: +in progress: cli-test holder since \d{4}-/m);
    } finally {
      const exit = await holder.exited;
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.stdout).toBe("locked\nreleased\n");
    }
    expect(existsSync(join(state, "structure.lock.lock"))).toBe(false);
    expect(ok(await runMast(["index", p.root, "--json"]))).toMatchObject({ files_indexed: 4 });
  }, 20_000);

  it("a holder killed with SIGKILL does not block the next run until the 10 s staleness", async () => {
    const p = project();
    const state = join(p.root, ".mast");
    ok(await runMast(["init", p.root, "--no-index", "--json"]));
    const holder = await startLockHolder(join(state, "structure.lock"), "cli-test holder", 60_000);
    holder.child.kill("SIGKILL");
    expect((await holder.exited).signal).toBe("SIGKILL");
    // The killed holder left its lock directory and its record behind.
    expect(statSync(join(state, "structure.lock.lock")).isDirectory()).toBe(true);
    expect(readJson(join(state, "structure.lock"))).toMatchObject({ pid: holder.pid, operation: "cli-test holder" });

    const r = await runMast(["index", p.root, "--json"]);
    expect(ok(r)).toMatchObject({ files_indexed: 4 });
    expect(r.ms).toBeLessThan(5_000); // well under the 10 s staleness: the holder's pid is gone
    expect(existsSync(join(state, "structure.lock.lock"))).toBe(false);
    expect(readJson(join(state, "structure.lock"))).toMatchObject({ released: expect.stringMatching(ISO) });
  }, 20_000);
});

describe("crash recovery and concurrency (400-file project)", () => {
  const MODULES = 400;
  let big: TestProject;
  let total: number;
  let freshDumpCache: string | null = null;

  beforeAll(() => {
    const files = syntheticProject(MODULES);
    total = Object.keys(files).length;
    big = makeProject(files);
  });
  afterAll(() => big?.cleanup());

  /** A fresh full build of the (never modified) big project, through the CLI, in its own state dir. */
  async function freshDump(): Promise<string> {
    if (freshDumpCache === null) {
      const dir = mkdtempSync(join(tmpdir(), "mast-cli-fresh-"));
      try {
        expect(ok(await runMast(["index", big.root, "--state-dir", dir, "--json"]))).toMatchObject({ files_indexed: total, parse_errors: 0, write_errors: 0 });
        freshDumpCache = dumpStore(join(dir, "graph.db"));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    return freshDumpCache;
  }

  function committedFiles(graphDb: string): number {
    try {
      const store = Store.open(graphDb, { readonly: true });
      try {
        return (store.db.prepare("SELECT count(*) AS n FROM files").get() as { n: number }).n;
      } finally {
        store.close();
      }
    } catch {
      return 0; // not created yet, or the schema is still being written
    }
  }

  it("a same-size rewrite that keeps its mtime (cp -p, touch -r) is seen: status stale, answers and incremental runs follow it", async () => {
    const p = project({ "src/a.ts": "export function alpha(x: number) {\n  return x;\n}\n" });
    const file = join(p.root, "src/a.ts");
    const old = new Date("2026-01-01T00:00:00Z");
    utimesSync(file, old, old); // past the racy window: the index trusts the stamp it takes (index/read.ts RACY_WINDOW_MS)
    ok(await runMast(["init", p.root, "--json"]));
    expect(ok(await runMast(["status", p.root, "--json"]))).toMatchObject({ index_fresh: true });
    const before = statSync(file);
    writeFileSync(file, "export function omega(x: number) {\n  return x;\n}\n"); // same size, same inode
    utimesSync(file, old, old);
    expect(statSync(file)).toMatchObject({ size: before.size, ino: before.ino, mtimeMs: before.mtimeMs });
    expect(ok(await runMast(["status", p.root, "--json"]))).toMatchObject({ index_fresh: false, stale_breakdown: { changed: 1 } });
    // The old declaration is no longer answered: the file an answer names is refreshed first.
    expect(ok(await runMast(["query", "mast_signature", '{"symbol":"alpha"}', p.root, "--json"]))).toMatchObject({ results: [], not_found: true });
    // Once more, for the incremental run to find.
    ok(await runMast(["index", p.root, "--json"]));
    writeFileSync(file, "export function sigma(x: number) {\n  return x;\n}\n");
    utimesSync(file, old, old);
    expect(ok(await runMast(["index", p.root, "--incremental", "--json"]))).toMatchObject({ files_indexed: 1 });
    expect(ok(await runMast(["status", p.root, "--json"]))).toMatchObject({ index_fresh: true });
    expect(ok(await runMast(["query", "mast_signature", '{"symbol":"sigma"}', p.root, "--json"])).results[0]).toMatchObject({ file_path: "src/a.ts", line: 1 });
  }, 60_000);

  it("an index killed with SIGKILL mid-run commits nothing, status says interrupted_run, and the next incremental run builds it all", async () => {
    const state = tempDir("mast-cli-killed-");
    const graphDb = join(state, "graph.db");
    const run = spawnMast(["index", big.root, "--state-dir", state, "--json", "--show-progress"]);
    const deadline = Date.now() + 20_000;
    // Rows are being written once half the files are parsed (the bar's line per 10%); the run commits only after the last.
    let halfway = false;
    run.child.stderr!.on("data", (d: string) => {
      for (const [, done, total] of String(d).matchAll(/(\d+)\/(\d+) files/g)) if (Number(done) * 2 >= Number(total) && Number(done) < Number(total)) halfway = true;
    });
    while (!halfway && Date.now() < deadline && run.child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    run.child.kill("SIGKILL");
    const killed = await run.done;
    expect(killed.signal, `the index finished before it could be killed: ${killed.stdout.slice(0, 200)}`).toBe("SIGKILL");
    expect(existsSync(join(state, "structure.lock.lock"))).toBe(true);
    expect(readJson(join(state, "index.json")).last_indexed).toBeNull();
    expect(existsSync(join(state, "file_manifest.json"))).toBe(false);
    // Everything the run wrote was one uncommitted transaction: a reader sees no file.
    expect(committedFiles(graphDb)).toBe(0);
    expect(ok(await runMast(["status", big.root, "--state-dir", state, "--json"]))).toMatchObject({ index_fresh: false, freshness_cause: "interrupted_run", indexed_files: 0 });
    expect((await runMast(["status", big.root, "--state-dir", state])).stdout).toContain("hint:           the last index run died before it finished");

    const heal = await runMast(["index", big.root, "--state-dir", state, "--incremental", "--json"]);
    const report = ok(heal);
    expect(heal.stderr).toBe("");
    // The killed run's lock is broken because its pid is gone, not waited out to the 10 s staleness.
    expect(heal.ms).toBeLessThan(9_500);
    // An empty store has no recorded extraction settings, so the run is a full one.
    expect(report).toMatchObject({ mode: "full", files_indexed: total, files_unchanged: 0, files_walked: total, file_count: total, parse_errors: 0, write_errors: 0, read_errors: 0 });
    expect(dumpStore(graphDb)).toEqual(await freshDump());
    expect(ok(await runMast(["status", big.root, "--state-dir", state, "--json"]))).toMatchObject({ stale_files: 0, index_fresh: true, freshness_cause: null, indexed_files: total });
  }, 60_000);

  it("two concurrent `mast index` runs: each succeeds or fails with LOCK_HELD, and the store equals a fresh build", async () => {
    const state = tempDir("mast-cli-concurrent-");
    const a = spawnMast(["index", big.root, "--state-dir", state, "--json"]);
    const b = spawnMast(["index", big.root, "--state-dir", state, "--json"]);
    const results = await Promise.all([a.done, b.done]);
    const pids = [a.child.pid!, b.child.pid!];
    results.forEach((r, i) => {
      expect(r.signal).toBeNull();
      if (r.code === 0) {
        expect(JSON.parse(r.stdout)).toMatchObject({ files_indexed: total, file_count: total });
      } else {
        const line = expectError(r, "LOCK_HELD");
        expect(line).toContain(`index is locked by mast index (pid ${pids[1 - i]} on ${hostname()}`);
      }
    });
    expect(results.filter((r) => r.code === 0).length).toBeGreaterThanOrEqual(1);
    expect(existsSync(join(state, "structure.lock.lock"))).toBe(false);
    expect(dumpStore(join(state, "graph.db"))).toEqual(await freshDump());
  }, 60_000);
});

// Reading a chmod-000 file fails for anyone but root; as root the CLI is run as `nobody` instead.
const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
const nobodyCanRun = IS_ROOT && spawnSync(process.execPath, ["-e", ""], { uid: NOBODY, gid: NOBODY }).status === 0;
function chmodBlocksReads(): boolean {
  const dir = mkdtempSync(join(tmpdir(), "mast-cli-perm-"));
  try {
    const f = join(dir, "f");
    writeFileSync(f, "x");
    chmodSync(f, 0o000);
    try {
      readFileSync(f);
      return false;
    } catch {
      return true;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const unreadableMode: "nobody" | "self" | null = nobodyCanRun ? "nobody" : !IS_ROOT && chmodBlocksReads() ? "self" : null;

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), uid, gid);
}

describe("a corrupt store", () => {
  it("a graph.db with 200 KB of random bytes mid-file: status says corrupt, a query answers INDEX_CORRUPT, and a full run rebuilds it equal to a clean build", async () => {
    const small = project(syntheticProject(60));
    const state = tempDir("mast-cli-corrupt-");
    const graphDb = join(state, "graph.db");
    const total = ok(await runMast(["index", small.root, "--state-dir", state, "--json"])).files_indexed as number;
    const clean = dumpStore(graphDb);
    expect(ok(await runMast(["status", small.root, "--state-dir", state, "--json"]))).toMatchObject({ index_fresh: true, freshness_cause: null });
    // A query writes nothing: graph.db stays as the run left it, so its recorded stamp is not written again.
    const recorded = () => {
      const st = statSync(`${graphDb}-stamp`);
      return `${st.ino}:${st.mtimeMs}`;
    };
    const before = recorded();
    expect((await runMast(["query", "mast_search", '{"query":"user service"}', small.root, "--state-dir", state])).code).toBe(0);
    expect(recorded()).toBe(before);
    // A write by mast after the run (a server's refresh): its checkpoint records the file's stamp, which status trusts.
    const store = Store.open(graphDb);
    store.batch(() => store.setMeta("note", "a write after the run"));
    store.close();
    const after = statSync(graphDb);
    expect(readFileSync(`${graphDb}-stamp`, "utf8")).toBe(`${after.size}:${after.mtimeMs}:${after.ctimeMs}:${after.ino}`);
    expect(ok(await runMast(["status", small.root, "--state-dir", state, "--json"]))).toMatchObject({ index_fresh: true, freshness_cause: null });
    const size = statSync(graphDb).size;
    const fd = openSync(graphDb, "r+");
    writeSync(fd, randomBytes(Math.min(200_000, Math.floor(size / 4))), 0, undefined, Math.floor(size / 2));
    closeSync(fd);
    expect(ok(await runMast(["status", small.root, "--state-dir", state, "--json"]))).toMatchObject({ index_fresh: false, freshness_cause: "corrupt" });
    const queried = await runMast(["query", "mast_search", '{"query":"user service order","limit":50}', small.root, "--state-dir", state]);
    expect(queried.code, queried.stdout).toBe(1);
    expect(queried.stderr).toMatch(/^mast: error INDEX_CORRUPT: /);
    const healed = ok(await runMast(["index", small.root, "--state-dir", state, "--json"]));
    expect(healed).toMatchObject({ schema_reset: true, files_indexed: total, write_errors: 0 });
    expect(ok(await runMast(["status", small.root, "--state-dir", state, "--json"]))).toMatchObject({ index_fresh: true, freshness_cause: null });
    expect(dumpStore(graphDb)).toBe(clean);
  }, 120_000);

  it("a symbol's texts or a class outline whose deflated bytes do not read back: a query answers INDEX_CORRUPT, never a wrong text, and a full run rewrites them", async () => {
    const small = project(syntheticProject(20));
    const state = tempDir("mast-cli-damaged-");
    const graphDb = join(state, "graph.db");
    ok(await runMast(["index", small.root, "--state-dir", state, "--json"]));
    const clean = dumpStore(graphDb);
    const store = Store.open(graphDb);
    const target = store.db.prepare("SELECT s.name, f.path, s.file_id FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind = 'function' ORDER BY f.path, s.line LIMIT 1").get() as {
      name: string;
      path: string;
      file_id: number;
    };
    const outline = store.db.prepare("SELECT c.symbol_name AS name, f.path FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.content IS NOT NULL ORDER BY f.path LIMIT 1").get() as {
      name: string;
      path: string;
    };
    store.batch(() => {
      store.db.prepare("UPDATE symbol_texts SET texts = x'ff00ff' WHERE file_id = ?").run(target.file_id);
      store.db.prepare("UPDATE chunks SET content = x'ff00ff' WHERE content IS NOT NULL").run();
    });
    store.close();
    const signature = await runMast(["query", "mast_signature", JSON.stringify({ symbol: target.name, file_path: target.path }), small.root, "--state-dir", state]);
    expect(signature.code, signature.stdout).toBe(1);
    expect(signature.stderr).toMatch(new RegExp(`^mast: error INDEX_CORRUPT: mast_signature: the index is corrupt \\(damaged symbol texts \\(file ${target.file_id}\\): not deflated`));
    const search = await runMast(["query", "mast_search", JSON.stringify({ query: outline.name, limit: 50 }), small.root, "--state-dir", state]);
    expect(search.code, search.stdout).toBe(1);
    expect(search.stderr).toMatch(/^mast: error INDEX_CORRUPT: mast_search: the index is corrupt \(a damaged class outline \([^)]*\): not deflated \(/);
    ok(await runMast(["index", small.root, "--state-dir", state, "--json"]));
    expect(dumpStore(graphDb)).toBe(clean);
    expect((await runMast(["query", "mast_signature", JSON.stringify({ symbol: target.name, file_path: target.path }), small.root, "--state-dir", state])).code).toBe(0);
  }, 120_000);
});

describe("unreadable files", () => {
  it.skipIf(unreadableMode === null)(
    `an unreadable file is a counted read error, the rest are indexed (run as ${unreadableMode ?? "n/a"})`,
    async () => {
      const p = project();
      const state = tempDir("mast-cli-state-");
      const as = unreadableMode === "nobody" ? { uid: NOBODY, gid: NOBODY } : {};
      if (unreadableMode === "nobody") {
        chownTree(p.root, NOBODY, NOBODY);
        chownTree(state, NOBODY, NOBODY);
      }
      const secret = join(p.root, "src", "repo.ts");
      chmodSync(secret, 0o000);
      const r = await runMast(["index", p.root, "--state-dir", state, "--json"], as);
      const report = ok(r);
      expect(report).toMatchObject({ files_walked: 4, files_indexed: 3, read_errors: 1, parse_errors: 0, write_errors: 0, file_count: 3 });
      // Messages name the project-relative path only, never the absolute one.
      expect(report.problems).toEqual([{ path: "src/repo.ts", kind: "read_error", message: "EACCES: permission denied" }]);
      expect(lines(r.stderr)).toEqual(["mast: warning: read_error src/repo.ts: EACCES: permission denied"]);
      expect(manifestPaths(state)).toEqual(["docs/guide.md", "src/auth.ts", "src/index.ts"]);
      // An unreadable file is on disk but not in the index: it is stale until it can be read and indexed.
      expect(ok(await runMast(["status", p.root, "--state-dir", state, "--json"], as))).toMatchObject({
        indexed_files: 3,
        stale_files: 1,
        stale_breakdown: { changed: 0, unindexed: 1, vanished: 0 },
        index_fresh: false,
      });
    },
    20_000,
  );
});

describe("exclude patterns", () => {
  it("refuses a negated pattern instead of excluding everything", async () => {
    const p = project();
    const line = expectError(await runMast(["init", p.root, "--exclude", "**/*.test.ts,!src/keep.test.ts"]), "INVALID_ARGUMENT");
    expect(line).toContain("`!` re-includes are not supported");
    expect(existsSync(join(p.root, ".mast"))).toBe(false);
  });
});

describe("error output", () => {
  it("every named error is one stderr line `mast: error CODE: ...` with exit 1", async () => {
    const p = project({ "a.ts": "export const a = 1;\n", "not-a-dir": "x" });
    const cases: Array<[string[], string, string]> = [
      [["status", join(p.root, "nope")], "FILE_NOT_FOUND", "project path does not exist"],
      [["index", join(p.root, "a.ts")], "NOT_A_DIRECTORY", "project path is not a directory"],
      [["init", p.root, "--extensions", " , ,"], "INVALID_ARGUMENT", "no file extensions to index"],
      [["init", p.root, "--extensions", "kt,swift"], "INVALID_ARGUMENT", "not .kt, .swift"],
      [["index", p.root, "--state-dir", join(p.root, "not-a-dir")], "STATE_DIR_INVALID", `state dir is not a directory: ${join(p.root, "not-a-dir")}`],
    ];
    for (const [args, code, text] of cases) {
      const r = await runMast(args);
      expect(expectError(r, code)).toContain(text);
    }
  }, 30_000);

  it("refuses another project's state dir (STATE_DIR_MISMATCH) and leaves its index whole", async () => {
    const a = project(BASE_FILES);
    const stateDir = join(tempDir(), "state");
    ok(await runMast(["index", a.root, "--state-dir", stateDir, "--json"]));
    const other = project({ "b.ts": "export const b = 1;\n" });
    const before = query<{ n: number }>(stateDir, "SELECT count(*) AS n FROM files")[0]!.n;
    const r = await runMast(["query", "mast_callers", JSON.stringify({ symbol: "AuthService.validate" }), other.root, "--state-dir", stateDir]);
    expect(expectToolError(r, "STATE_DIR_MISMATCH")).toContain(`the index at ${stateDir} is of ${a.root}, not of ${other.root}`);
    expect(query<{ n: number }>(stateDir, "SELECT count(*) AS n FROM files")[0]!.n).toBe(before);
    expect(before).toBe(BASE_INDEXED.length);
    // A reindex from the other project (a tool, a server's startup run) is refused too: only `mast index <path>` re-points.
    const reindex = await runMast(["query", "mast_reindex", "{}", other.root, "--state-dir", stateDir]);
    expect(expectToolError(reindex, "STATE_DIR_MISMATCH")).toContain(`is of ${a.root}`);
    expect(query<{ n: number }>(stateDir, "SELECT count(*) AS n FROM files")[0]!.n).toBe(before);
    // Nor does `mast status` measure that index against the other tree (every file would look gone).
    expect(expectError(await runMast(["status", other.root, "--state-dir", stateDir]), "STATE_DIR_MISMATCH")).toContain(`is of ${a.root}`);
    // The project's own root still answers; indexing the other project into the dir re-points it.
    ok(await runMast(["query", "mast_status", "{}", a.root, "--state-dir", stateDir]));
    ok(await runMast(["index", other.root, "--state-dir", stateDir, "--json"]));
    expect(readJson(join(stateDir, "index.json")).project_root).toBe(other.root);
  }, 30_000);

  it("unknown commands and options exit non-zero with commander's message", async () => {
    const unknownCommand = await runMast(["frobnicate"]);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stdout).toBe("");
    expect(lines(unknownCommand.stderr)[0]).toBe("error: unknown command 'frobnicate'");

    const unknownOption = await runMast(["index", "--frobnicate"]);
    expect(unknownOption.code).toBe(2);
    expect(lines(unknownOption.stderr)[0]).toBe("error: unknown option '--frobnicate'");

    const missingValue = await runMast(["status", "--state-dir"]);
    expect(missingValue.code).toBe(2);
    expect(lines(missingValue.stderr)[0]).toBe("error: option '--state-dir <dir>' argument missing");

    const version = await runMast(["--version"]);
    expect(version).toMatchObject({ code: 0, stdout: "0.1.0\n", stderr: "" });
  }, 20_000);
});

describe("mast structural's flags", () => {
  it("are kebab-case like every other flag, the contract's snake_case names taken as aliases (`--name value` and `--name=value`)", async () => {
    const p = space.project();
    const root = space.dir("mast-structural-");
    const env = { MAST_CTAGS: "" };
    const kebab = await runMast(["structural", "build", "--max-precision", "ast", "--max-units", "1", "--state-root", root, "--json"], { cwd: p.root, env });
    expect(kebab.code, kebab.stderr).toBe(0);
    expect(JSON.parse(kebab.stdout)).toMatchObject({ units_rebuilt: 1 });
    const snake = await runMast(["structural", "build", "--max_precision=ast", "--max_units", "100", "--state_root", root, "--json"], { cwd: p.root, env });
    expect(snake.code, snake.stderr).toBe(0);
    expect(JSON.parse(snake.stdout)).toMatchObject({ units_deferred: 0 });
    const coverage = (flag: string) => runMast(["structural", "query", "get_coverage", "{}", flag, root], { cwd: p.root }).then((r) => JSON.parse(r.stdout));
    expect(await coverage("--state-root")).toEqual(await coverage("--state_root"));
    expect((await coverage("--state-root")).partition_status).toBe("complete");
    // Help names each flag once, in kebab-case; an unknown spelling is still refused.
    const help = await runMast(["structural", "build", "--help"]);
    expect(help.stdout).toContain("--max-precision <tier>");
    expect(help.stdout).not.toContain("--max_precision");
    const bad = await runMast(["structural", "build", "--max_unit", "3"], { cwd: p.root });
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("unknown option '--max_unit'")]);
    // Another command's line is read as given: the contract's names are structural's alone.
    const other = await runMast(["index", "--state_root", root], { cwd: p.root });
    expect([other.code, other.stderr]).toEqual([2, expect.stringContaining("unknown option '--state_root'")]);
  });
});
