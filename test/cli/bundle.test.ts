// The shipped entry points (dist/bin/, scripts/bundle.mjs): package.json's `bin` names them, and a
// command loads only the chunks it uses — `mast status` never loads the tool registry (zod, every
// tool), the indexer or the MCP server. Module counts, not timings: the times are in bench/.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { MAST_BIN, assertBuilt } from "../helpers/cli.js";
import { tempSpace } from "../helpers/project.js";

const ROOT = join(import.meta.dirname, "..", "..");
const BIN_DIR = join(ROOT, "dist", "bin");
const space = tempSpace({ "src/a.ts": "export function alpha(): number {\n  return 1;\n}\n" });
beforeAll(() => assertBuilt());

/** What `recorded` logs for a call of Node's compile cache (module.enableCompileCache). */
const COMPILE_CACHE = "(compile cache on)";

/**
 * The files under dist/bin/ a `mast` command loads, in load order (an ESM load hook records them),
 * with COMPILE_CACHE where the command turned Node's compile cache on (a wrapper around Node's own
 * function records the call; on a Node without one, the wrapper stands in for it).
 */
function loadedChunks(args: string[], input?: string): string[] {
  const dir = space.dir("mast-bundle-");
  const log = join(dir, "loaded.txt");
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + "\\n"); return next(url, context); }\n`,
  );
  const register = join(dir, "register.mjs");
  writeFileSync(
    register,
    `import module, { register } from "node:module";\nimport { appendFileSync } from "node:fs";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n` +
      `const own = module.enableCompileCache;\nmodule.enableCompileCache = (...args) => { appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(`${COMPILE_CACHE}\n`)}); return own?.apply(module, args); };\n`,
  );
  writeFileSync(log, "");
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(register).href, MAST_BIN, ...args], { encoding: "utf8", ...(input === undefined ? {} : { input }) });
  expect(r.status, r.stderr).toBe(0);
  const prefix = pathToFileURL(BIN_DIR).href + "/";
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((url) => url.startsWith(prefix) || url === COMPILE_CACHE)
    .map((url) => (url === COMPILE_CACHE ? url : url.slice(prefix.length).replace(/-[\w-]{8}\.js$/, ".js")));
}

describe("the bundled CLIs", () => {
  it("are what package.json's bin runs, with the workers and the schema beside them", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ mast: "dist/bin/mast.js", hashpilot: "dist/bin/hashpilot.js" });
    const files = readdirSync(BIN_DIR);
    for (const name of ["mast.js", "hashpilot.js", "worker.js", "run-worker.js", "grep-worker.js", "diff-worker.js", "schema.sql"]) expect(files).toContain(name);
    expect(readFileSync(join(BIN_DIR, "schema.sql"), "utf8")).toBe(readFileSync(join(ROOT, "src", "store", "schema.sql"), "utf8"));
  });

  it("load only what the command uses: status reads the index without the indexer, the tools or the server", () => {
    const project = space.project();
    const state = join(project.root, ".mast");
    const init = spawnSync(process.execPath, [MAST_BIN, "init", project.root], { encoding: "utf8" });
    expect(init.status, init.stderr).toBe(0);
    expect(existsSync(join(state, "graph.db"))).toBe(true);

    const loaded = loadedChunks(["status", project.root, "--json"]);
    expect(loaded[0]).toBe("mast.js");
    // Node's compile cache is turned on once, before the command's own chunks load.
    expect(loaded.filter((c) => c === COMPILE_CACHE)).toHaveLength(1);
    expect(loaded.indexOf(COMPILE_CACHE)).toBeLessThan(loaded.indexOf("status.js"));
    const status = loaded.filter((c) => c !== COMPILE_CACHE);
    // The CLI, its config, the state files' helpers, the store and the walk: nothing else (the chunk the two CLIs share is named for its first module, cli/argv.ts;
    // define.js is the toolsets' names the CLI's serve flags check, shared with the store server's answering threads).
    expect([...status].sort()).toEqual([
      "argv.js",
      "base.js",
      "call-rows.js",
      "config.js",
      "db.js",
      "define.js",
      "files.js",
      "languages.js",
      "lock.js",
      "mast.js",
      "read.js",
      "rolldown-runtime.js",
      "state.js",
      "status.js",
      "store.js",
      "walk.js",
    ]);
    for (const heavy of ["registry.js", "server.js", "run.js", "parse-task.js"]) expect(status).not.toContain(heavy);

    const query = loadedChunks(["query", "mast_exports", JSON.stringify({ file_path: "src/a.ts" }), project.root]);
    expect(query).toContain("registry.js");
    expect(query).not.toContain("server.js");

    // The server answers initialize (and tools/list, from the listing the build wrote) before it
    // loads the registry and the tools' code: a session that ends there never loads them.
    const handshake = [
      { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ];
    const serve = loadedChunks(["serve", project.root, "--no-startup-reindex"], handshake.map((m) => JSON.stringify(m)).join("\n") + "\n");
    expect(serve).toContain("server.js");
    for (const heavy of ["registry.js", "parse-task.js", "graph.js"]) expect(serve).not.toContain(heavy);
  });
});
