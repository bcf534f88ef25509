// The connection to a PostgreSQL store (docs/organisation.md): the only importer of `pg`. A
// connection string is checked before anything connects (postgres:// or postgresql://), never
// echoed with its password, and a server that cannot be reached, refuses the login or the TLS
// handshake is STORE_UNAVAILABLE with what to check. One client per command: a publish holds its
// session (its advisory locks live there) from the first statement to the last. A reader whose
// callers are synchronous (the structural operations) opens a synchronous session: the connection
// in a worker thread, the caller blocking on Atomics.wait until it answers (docs/decisions.md).
import { createRequire } from "node:module";
import { MessageChannel, Worker, receiveMessageOnPort } from "node:worker_threads";
import { MastError, errorMessage } from "../../base/errors.js";

/** A value a statement takes: what node-postgres sends (Buffers as bytea, arrays as arrays). */
export type PgValue = string | number | bigint | boolean | null | Buffer | readonly PgValue[];

/** One open session with a PostgreSQL store. */
export interface PgSession {
  /** Runs one statement; rows as objects keyed by column name. */
  query<R = Record<string, unknown>>(sql: string, values?: readonly PgValue[]): Promise<R[]>;
  /** `fn` inside BEGIN … COMMIT (ROLLBACK when it throws; the error is rethrown). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** The connection string without its password, for messages. */
  readonly where: string;
  close(): Promise<void>;
}

/** The connection string with its password (and any `password` parameter) replaced by `***`; only its scheme when it has no `//host` part to read one from. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || u.host === "") return `${u.protocol}(…)`;
    if (u.password) u.password = "***";
    if (u.searchParams.has("password")) u.searchParams.set("password", "***");
    return u.toString();
  } catch {
    return "(an unparsable connection string)";
  }
}

/** The connection string without its password (a password belongs in PGPASSWORD or ~/.pgpass, never in a file mast writes). */
export function withoutPassword(url: string): string {
  const u = new URL(url);
  u.password = "";
  u.searchParams.delete("password");
  return u.toString();
}

/** Refuses what is not a PostgreSQL connection string (INVALID_ARGUMENT), before any connection. */
export function checkStoreUrl(url: string, flag: string): void {
  if (!/^postgres(?:ql)?:\/\/[^/?#]+/i.test(url) || !URL.canParse(url)) {
    throw new MastError("INVALID_ARGUMENT", `${flag} takes a PostgreSQL connection string, not ${JSON.stringify(redactedUrl(url))}`, {
      hint: `Pass ${flag} postgres://USER@HOST:PORT/DATABASE (TLS: add ?sslmode=verify-full; the password from PGPASSWORD).`,
      usage: true,
    });
  }
}

/** Connection failures by their error codes: the server is down or unreachable, the login or TLS was refused, the database does not exist. */
const UNAVAILABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNRESET", "EHOSTUNREACH", "28P01", "28000", "3D000", "57P03"]);

/** Whether an error says the store could not be reached or used as a connection (not a statement's own failure). */
export function isUnavailable(err: unknown): boolean {
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  return UNAVAILABLE.has(code) || /Connection terminated|connect ECONNREFUSED|SSL|self[- ]signed/i.test(errorMessage(err));
}

/** Opens one session with the store at `url` (checked first); STORE_UNAVAILABLE when it cannot be reached. */
export async function openPg(url: string, flag: string, options: { applicationName?: string; queryTimeoutMs?: number } = {}): Promise<PgSession> {
  checkStoreUrl(url, flag);
  const where = redactedUrl(url);
  // Loaded on first use: a command that never opens a store (every hashpilot call) does not pay for pg's modules at startup.
  const { default: pg } = await import("pg");
  // TCP keepalive: a connection the network dropped is found dead, not waited on forever; a query
  // timeout (for a reader) gives up on a server that stopped answering.
  const client = new pg.Client({
    connectionString: url,
    application_name: options.applicationName ?? "mast",
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
    ...(options.queryTimeoutMs === undefined ? {} : { query_timeout: options.queryTimeoutMs }),
  });
  // An error on an idle session (the server restarted) is seen by the next statement; it must not crash the process.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw unavailable(where, err);
  }
  const session: PgSession = {
    where,
    async query<R>(sql: string, values: readonly PgValue[] = []): Promise<R[]> {
      try {
        return (await client.query({ text: sql, values: values as unknown[] })).rows as R[];
      } catch (err) {
        throw isUnavailable(err) ? unavailable(where, err) : err;
      }
    },
    async transaction<T>(fn: () => Promise<T>): Promise<T> {
      await session.query("BEGIN");
      try {
        const result = await fn();
        await session.query("COMMIT");
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      }
    },
    close: () => client.end().catch(() => {}),
  };
  return session;
}

function unavailable(where: string, err: unknown): MastError {
  return new MastError("STORE_UNAVAILABLE", `the PostgreSQL store at ${where} cannot be used: ${errorMessage(err)}`, {
    cause: err,
    hint: "Check that the server is running and reachable, the user and password (PGPASSWORD or ~/.pgpass), sslmode, and that the database exists.",
  });
}

/** One session whose statements run synchronously: the connection lives in a worker thread and the caller blocks until it answers. */
export interface PgSyncSession {
  query<R = Record<string, unknown>>(sql: string, values?: readonly PgValue[]): R[];
  readonly where: string;
  close(): void;
}

/**
 * The worker's code, evaluated (so it runs from the TypeScript sources and from the bundle alike):
 * it loads pg from the path it is given, answers each statement on its port and wakes the caller.
 */
const SYNC_WORKER = `
const { workerData } = require("node:worker_threads");
const flag = new Int32Array(workerData.shared);
const port = workerData.port;
const wake = () => { Atomics.store(flag, 0, 1); Atomics.notify(flag, 0); };
let pg;
try { pg = require(workerData.pgPath); } catch (err) { port.postMessage({ error: { message: err.message } }); wake(); throw err; }
const client = new pg.Client({ connectionString: workerData.url, application_name: workerData.name, connectionTimeoutMillis: 10000, statement_timeout: workerData.statementTimeout });
client.on("error", () => {});
client.connect().then(
  () => { port.postMessage({ ok: true }); wake(); },
  (err) => { port.postMessage({ error: { message: err.message, code: err.code } }); wake(); },
);
port.on("message", (m) => {
  if (m.close) { client.end().finally(() => { port.postMessage({ ok: true }); wake(); port.close(); }); return; }
  client.query({ text: m.sql, values: m.values }).then(
    (r) => { port.postMessage({ rows: r.rows }); wake(); },
    (err) => { port.postMessage({ error: { message: err.message, code: err.code } }); wake(); },
  );
});
`;

/** The longest a synchronous statement may take before the session gives up on the server; the server cancels it sooner (STATEMENT_TIMEOUT_MS). */
const SYNC_TIMEOUT_MS = 60_000;
const STATEMENT_TIMEOUT_MS = 50_000;

/** Opens a synchronous session with the store at `url` (checked first); STORE_UNAVAILABLE when it cannot be reached. */
export function openPgSync(url: string, flag: string, options: { applicationName?: string } = {}): PgSyncSession {
  checkStoreUrl(url, flag);
  const where = redactedUrl(url);
  const shared = new SharedArrayBuffer(4);
  const signal = new Int32Array(shared);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(SYNC_WORKER, {
    eval: true,
    workerData: { pgPath: createRequire(import.meta.url).resolve("pg"), url, name: options.applicationName ?? "mast", shared, port: port2, statementTimeout: STATEMENT_TIMEOUT_MS },
    transferList: [port2],
  });
  worker.unref();
  // A session that timed out is done: a late reply must never be read as the next statement's.
  let broken: string | null = null;
  const reply = (): { rows?: unknown[]; error?: { message: string; code?: string } } => {
    if (broken !== null) return { error: { message: broken } };
    const waited = Atomics.wait(signal, 0, 0, SYNC_TIMEOUT_MS);
    Atomics.store(signal, 0, 0);
    const message = receiveMessageOnPort(port1)?.message as { rows?: unknown[]; error?: { message: string; code?: string } } | undefined;
    if (message !== undefined) return message;
    broken = waited === "timed-out" ? `no answer in ${SYNC_TIMEOUT_MS} ms: the session was closed` : "the connection's thread stopped";
    void worker.terminate();
    return { error: { message: broken } };
  };
  const failure = (error: { message: string; code?: string }) => {
    const err = Object.assign(new Error(error.message), { code: error.code });
    return isUnavailable(err) || error.code === undefined ? unavailable(where, err) : err;
  };
  const opened = reply();
  if (opened.error) {
    void worker.terminate();
    throw unavailable(where, Object.assign(new Error(opened.error.message), { code: opened.error.code }));
  }
  return {
    where,
    query<R>(sql: string, values: readonly PgValue[] = []): R[] {
      if (broken === null) port1.postMessage({ sql, values });
      const r = reply();
      if (r.error) throw failure(r.error);
      return r.rows as R[];
    },
    close() {
      if (broken === null) {
        port1.postMessage({ close: true });
        reply();
      }
      port1.close();
      void worker.terminate();
    },
  };
}
