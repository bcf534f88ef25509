// Installing mast for use on any project (README "Install"): `npm pack` of this checkout, the
// tarball installed globally into a temp prefix exactly as the README says (the native bindings
// built by their install scripts), then `mast` and `hashpilot` run from that prefix's bin on PATH
// against a project outside this checkout. The pack and install are slow by nature (better-sqlite3
// compiles from source): under `npm test` they run in the background from the start of the run
// (test/setup/install-background.ts) and this file, sequenced last, waits for them; run alone,
// it runs them itself (test/helpers/install-tarball.mjs, either way).
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt } from "../helpers/cli.js";
import { packAndInstall } from "../helpers/install-tarball.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; allowScripts: Record<string, boolean>; files: string[] };
const INSTALL_TIMEOUT_MS = 420_000;
/** The background install's directory (it owns it); unset when this file runs on its own. */
const BACKGROUND = process.env["MAST_INSTALL_WORK"];

interface Outcome {
  status: number | null;
  stdout: string;
  stderr: string;
}

let work = "";
beforeAll(() => {
  assertBuilt();
  work = BACKGROUND ?? mkdtempSync(join(tmpdir(), "mast-install-"));
});
afterAll(() => {
  if (BACKGROUND === undefined) rmSync(work, { recursive: true, force: true });
});

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: INSTALL_TIMEOUT_MS });
}

/** The background install's result once it is written (it is written last, by a rename). */
async function backgroundResult(dir: string): Promise<{ pack: Outcome; install: Outcome | null; filename: string | null }> {
  const file = join(dir, "result.json");
  for (const deadline = Date.now() + INSTALL_TIMEOUT_MS; !existsSync(file); await sleep(500)) {
    if (Date.now() > deadline) throw new Error(`the background install in ${dir} wrote no result in ${INSTALL_TIMEOUT_MS} ms`);
  }
  return JSON.parse(readFileSync(file, "utf8"));
}

/** The environment a user's shell has after the install: the prefix's bin first on PATH, no mast state inherited. */
function userEnv(prefix: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(prefix, "bin")}${delimiter}${process.env.PATH ?? ""}` };
  for (const key of Object.keys(env)) if (key.startsWith("MAST_") || key.startsWith("npm_") || key === "HASHPILOT_HOME") delete env[key];
  env.HASHPILOT_HOME = join(work, "hashpilot-home");
  return env;
}

describe("the packed tarball", () => {
  it(
    "installs globally into a prefix and both bins run from PATH on a project of their own",
    async () => {
      const { pack, install } = BACKGROUND === undefined ? await packAndInstall(ROOT, work) : await backgroundResult(work);
      expect(pack.status, pack.stderr).toBe(0);
      const packed = (JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[])[0]!;
      expect(packed.filename).toBe(`mast-${PKG.version}.tgz`);
      const shipped = packed.files.map((f) => f.path);
      // What ships is the bundled bins, the envelope schema and the native addon's C source with its
      // build script: no TypeScript sources, tests or unbundled modules.
      expect(shipped).toContain("dist/bin/mast.js");
      expect(shipped).toContain("dist/bin/schema.sql");
      expect(shipped).toContain("schema/hashpilot-envelope.schema.json");
      for (const source of ["native/addon.c", "native/flat_tree.c", "native/lstat_many.c", "native/deflate.c", "native/sqlite_ext.c", "native/mast_native.h", "scripts/fts5-header.mjs"])
        expect(shipped).toContain(source);
      expect(
        shipped.filter(
          (p) =>
            !/^(dist\/bin\/|schema\/|native\/(binding\.gyp|addon\.c|flat_tree\.c|lstat_many\.c|deflate\.c|sqlite_ext\.c|mast_native\.h)$|scripts\/(build-native|fts5-header)\.mjs$|package\.json$|README\.md$|LICENSE$)/.test(
              p,
            ),
        ),
      ).toEqual([]);

      const prefix = join(work, "prefix");
      expect(install?.status, install?.stderr).toBe(0);
      expect(readdirSync(join(prefix, "bin")).sort()).toEqual(["hashpilot", "mast"]);
      // The install built the native addon from source (the flat trees extraction reads).
      expect(existsSync(join(prefix, "lib", "node_modules", "mast", "native", "build", "Release", "mast_native.node"))).toBe(true);

      const env = userEnv(prefix);
      const project = join(work, "project");
      const src = join(project, "src");
      spawnSync("mkdir", ["-p", src]);
      writeFileSync(join(src, "auth.ts"), "export class AuthService {\n  validate(token: string): boolean {\n    return token.length > 0;\n  }\n}\n");
      writeFileSync(join(src, "main.ts"), 'import { AuthService } from "./auth.js";\n\nexport function main(): boolean {\n  return new AuthService().validate("t");\n}\n');

      const version = run("mast", ["--version"], env, work);
      expect(version.status, version.stderr).toBe(0);
      expect(version.stdout.trim()).toBe(PKG.version);

      const init = run("mast", ["init", project], env, work);
      expect(init.status, init.stderr).toBe(0);
      const status = run("mast", ["status", project, "--json"], env, work);
      expect(status.status, status.stderr).toBe(0);
      const health = JSON.parse(status.stdout) as { indexed_files: number; stale_files: number; index_fresh: boolean };
      expect(health).toMatchObject({ indexed_files: 2, stale_files: 0, index_fresh: true });

      const callers = run("mast", ["query", "mast_callers", JSON.stringify({ symbol: "AuthService.validate" }), project], env, work);
      expect(callers.status, callers.stderr).toBe(0);
      const answer = JSON.parse(callers.stdout) as { verified_callers: unknown[]; potential_matches: unknown[] };
      expect(answer.verified_callers).toEqual([{ file_path: "src/main.ts", resolution: "new_expression", sites: ['4 main: return new AuthService().validate("t");'] }]);
      expect(answer.potential_matches).toEqual([]);

      const read = run("hashpilot", ["read-hash", join(src, "auth.ts"), "2"], env, project);
      expect(read.status, read.stderr).toBe(0);
      const envelope = JSON.parse(read.stdout) as { ok: boolean; data: { line: number; content: string } };
      expect(envelope.ok).toBe(true);
      expect(envelope.data).toMatchObject({ line: 2, content: "  validate(token: string): boolean {" });
    },
    INSTALL_TIMEOUT_MS + 60_000,
  );
});
