// hashpilot's install-management commands (docs/editing.md#commands-and-tools): the doctor's
// checks of what this install needs to work — bins on PATH, the config parsing, the snapshot and
// telemetry stores writable, every grammar loading, the MCP server starting and listing its tools —
// the upgrade of the git clone an install is linked from (never a registry install: the npm name
// `mast` is not this project's), and the npm command that removes the package. Never a downloaded script.
import { onPath } from "../base/programs.js";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MastError, errorMessage } from "../base/errors.js";
import { globalConfigPath, loadHashpilotConfig } from "../edit/config.js";
import { hashpilotHome } from "../edit/writer.js";
import { sqliteExtensionReport } from "../store/db.js";
import { flatTreeProducer } from "../syntax/flat-tree.js";
import { loadAllGrammars } from "../syntax/parser.js";

/** The npm package this install came from. */
export const PACKAGE_NAME = "mast";

/** The installed package's directory, symlinks resolved: the bins run from its dist/bin/. */
const PACKAGE_DIR = realpathSync(fileURLToPath(new URL("../..", import.meta.url)));

export interface Check {
  name: string;
  status: "pass" | "fail" | "warn" | "skip";
  message: string;
}

export interface DoctorReport {
  checks: Check[];
  healthy: boolean;
  timestamp: string;
  version: string;
}

const MAST_BIN = fileURLToPath(new URL("./mast.js", import.meta.url));
const SERVE_TIMEOUT_MS = 15_000;

function writable(dir: string): string | null {
  try {
    mkdirSync(dir, { recursive: true });
    const probe = join(dir, `.doctor-${process.pid}`);
    writeFileSync(probe, "ok");
    rmSync(probe);
    return null;
  } catch (err) {
    return errorMessage(err);
  }
}

/** Starts `mast serve` on an empty temp project and asks it for its tools over MCP stdio. */
function serveListsTools(): Promise<Check> {
  const dir = mkdtempSync(join(tmpdir(), "hashpilot-doctor-"));
  return new Promise<Check>((resolve) => {
    const child = spawn(process.execPath, [MAST_BIN, "serve", dir, "--state-dir", join(dir, ".mast")], { stdio: ["pipe", "pipe", "pipe"] });
    // The temp project goes once the server has exited (it may still be writing its index).
    child.on("exit", () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
    let out = "";
    let settled = false;
    const finish = (check: Check) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(check);
      child.kill();
    };
    const timer = setTimeout(() => finish({ name: "mcp-server", status: "fail", message: `mast serve did not list its tools within ${SERVE_TIMEOUT_MS / 1000} s` }), SERVE_TIMEOUT_MS);
    child.on("error", (err) => finish({ name: "mcp-server", status: "fail", message: `cannot start mast serve: ${err.message}` }));
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      for (const line of out.split("\n")) {
        let msg: { id?: number; result?: { tools?: unknown[] } };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          continue; // a partial line
        }
        if (msg.id === 2 && Array.isArray(msg.result?.tools)) finish({ name: "mcp-server", status: "pass", message: `mast serve started and listed ${msg.result.tools.length} tools` });
      }
    });
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hashpilot-doctor", version: "1" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  });
}

export async function doctor(version: string, cwd: string): Promise<DoctorReport> {
  const checks: Check[] = [];
  const bins = ["mast", "hashpilot"].map((b) => [b, onPath(b)] as const);
  const missing = bins.filter(([, p]) => p === null).map(([b]) => b);
  checks.push(
    missing.length === 0
      ? { name: "cli-executable", status: "pass", message: `On PATH: ${bins.map(([, p]) => p).join(", ")}` }
      : { name: "cli-executable", status: "warn", message: `Not on PATH: ${missing.join(", ")} (link them with \`npm install -g .\` in a clone of mast; this one runs from ${PACKAGE_DIR})` },
  );
  const configFiles = [globalConfigPath(), join(cwd, ".hashpilot.json")].filter((p) => existsSync(p));
  let telemetryEnabled = true;
  try {
    telemetryEnabled = loadHashpilotConfig({ cwd }).telemetry.enabled;
    checks.push(
      configFiles.length === 0
        ? { name: "config-file", status: "skip", message: "No config file — using defaults" }
        : { name: "config-file", status: "pass", message: `Parses: ${configFiles.join(", ")}` },
    );
  } catch (err) {
    checks.push({ name: "config-file", status: "fail", message: errorMessage(err) });
  }
  const home = hashpilotHome();
  const snapshots = writable(join(home, "snapshots"));
  checks.push(
    snapshots === null
      ? { name: "snapshot-store", status: "pass", message: `Writable: ${join(home, "snapshots")}` }
      : { name: "snapshot-store", status: "fail", message: `${join(home, "snapshots")}: ${snapshots}` },
  );
  if (!telemetryEnabled) checks.push({ name: "telemetry-store", status: "skip", message: "Telemetry is disabled in the config" });
  else {
    const telemetry = writable(join(home, "telemetry"));
    checks.push(
      telemetry === null
        ? { name: "telemetry-store", status: "pass", message: `Writable: ${join(home, "telemetry")}` }
        : { name: "telemetry-store", status: "fail", message: `${join(home, "telemetry")}: ${telemetry}` },
    );
  }
  try {
    checks.push({ name: "grammars", status: "pass", message: `Loaded: ${loadAllGrammars().join(", ")}` });
  } catch (err) {
    checks.push({ name: "grammars", status: "fail", message: `A grammar does not load (rebuild with \`npm rebuild\`): ${errorMessage(err)}` });
  }
  checks.push(
    flatTreeProducer === "native"
      ? { name: "native-addon", status: "pass", message: "Loaded: syntax trees are read as flat arrays (native/flat_tree.c)" }
      : {
          name: "native-addon",
          status: "warn",
          message: `Not built: indexing reads syntax trees through tree-sitter's binding, several times slower (build it with \`npm run build:native\` in ${PACKAGE_DIR}; it needs a C compiler, python3 and make)`,
        },
  );
  const sqlite = sqliteExtensionReport();
  checks.push(
    sqlite.fts
      ? { name: "sqlite-extension", status: "pass", message: "Loaded: long id lists cross from SQLite packed, search scores with the rows' sizes kept (native/sqlite_ext.c)" }
      : {
          name: "sqlite-extension",
          status: "warn",
          message: `${sqlite.loaded ? "Loaded without its FTS5 functions (built by an older mast)" : "Not loaded"}: id lists are read row by row and search scores through FTS5's bm25, slower (rebuild it with \`npm run build:native\` in ${PACKAGE_DIR})`,
        },
  );
  checks.push(await serveListsTools());
  return { checks, healthy: checks.every((c) => c.status !== "fail"), timestamp: new Date().toISOString(), version };
}

export function doctorText(r: DoctorReport): string {
  const mark = { pass: "ok  ", fail: "FAIL", warn: "warn", skip: "skip" } as const;
  return [
    ...r.checks.map((c) => `${mark[c.status]}  ${c.name.padEnd(16)} ${c.message}`),
    "",
    r.healthy ? `healthy (hashpilot ${r.version})` : `NOT healthy (hashpilot ${r.version}): fix the FAIL lines above`,
  ].join("\n");
}

// ---- upgrade / uninstall ----

export interface UpgradePlan {
  /** git-clone: the package is a clone's work tree (`npm install -g .` links it), upgraded in place. */
  install: "git-clone";
  packageDir: string;
  /** Run in order: the clone fast-forwarded, then its dependencies and build (`npm ci` runs `prepare`). */
  commands: string[][];
}

/**
 * How the install at `packageDir` upgrades: a git clone pulls (`channel`: that branch of origin,
 * else the checked-out branch's upstream) and reinstalls. Anything else — a tarball's copy — has no
 * source to upgrade from: UNSUPPORTED_OPERATION with the steps to take from a clone.
 */
export function upgradePlan(channel: string | null, packageDir = PACKAGE_DIR): UpgradePlan {
  const top = spawnSync("git", ["-C", packageDir, "rev-parse", "--show-toplevel"], { encoding: "utf8" });
  const clone = top.status === 0 && realpathSync(top.stdout.trim()) === packageDir;
  if (!clone) {
    const version = (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version?: string }).version ?? "<version>";
    throw new MastError(
      "UNSUPPORTED_OPERATION",
      `${packageDir} is an installed copy of ${PACKAGE_NAME}, not a git clone: there is nothing to upgrade it from, and hashpilot never installs "${PACKAGE_NAME}" from the npm registry (the name is not this project's)`,
      {
        hint: `In a clone of mast: \`git pull && npm ci && npm pack\`, then \`npm install -g ./${PACKAGE_NAME}-${version}.tgz --allow-scripts=<the packages in its package.json allowScripts>\` (README, "Install"); or link the clone instead with \`npm install -g .\`.`,
        details: { packageDir },
      },
    );
  }
  return {
    install: "git-clone",
    packageDir,
    commands: [
      ["git", "-C", packageDir, "pull", "--ff-only", ...(channel === null ? [] : ["origin", channel])],
      ["npm", "--prefix", packageDir, "ci"],
    ],
  };
}

export interface UninstallComponent {
  name: string;
  path: string | null;
  action: "remove" | "preserve";
}

/** What uninstall removes: the package, and hashpilot's data (snapshots, locks; telemetry and config unless kept). */
export function uninstallPlan(target: string | null, keepConfig: boolean): { command: string[]; components: UninstallComponent[] } {
  const home = hashpilotHome();
  return {
    command: ["npm", "uninstall", "--global", ...(target ? ["--prefix", target] : []), PACKAGE_NAME],
    components: [
      { name: "package", path: null, action: "remove" },
      { name: "snapshots", path: join(home, "snapshots"), action: "remove" },
      { name: "locks", path: join(home, "locks"), action: "remove" },
      { name: "telemetry", path: join(home, "telemetry"), action: keepConfig ? "preserve" : "remove" },
      { name: "config", path: join(globalConfigPath(), ".."), action: keepConfig ? "preserve" : "remove" },
    ],
  };
}

/** Runs a command (npm, git) with its output on stderr; throws with its exit status when it fails. */
export function runCommand(command: string[]): void {
  const r = spawnSync(command[0]!, command.slice(1), { stdio: ["ignore", process.stderr, process.stderr] });
  if (r.error) throw new Error(`cannot run ${command[0]}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${command.join(" ")} failed with exit status ${r.status}`);
}

export function removeComponents(components: readonly UninstallComponent[]): void {
  for (const c of components) if (c.action === "remove" && c.path !== null) rmSync(c.path, { recursive: true, force: true });
}
