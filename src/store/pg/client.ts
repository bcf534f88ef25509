// The connection to a PostgreSQL store (docs/organisation.md): the only importer of `pg`. A
// connection string is checked before anything connects (postgres:// or postgresql://), never
// echoed with its password, and a server that cannot be reached, refuses the login or the TLS
// handshake is STORE_UNAVAILABLE with what to check. One client per command: a publish holds its
// session (its advisory locks live there) from the first statement to the last.
import pg from "pg";
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

/** The connection string with its password (and any `password` parameter) replaced by `***`. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    if (u.searchParams.has("password")) u.searchParams.set("password", "***");
    return u.toString();
  } catch {
    return "(an unparsable connection string)";
  }
}

/** Refuses what is not a PostgreSQL connection string (INVALID_ARGUMENT), before any connection. */
export function checkStoreUrl(url: string, flag: string): void {
  let protocol = "";
  try {
    protocol = new URL(url).protocol;
  } catch {
    // protocol stays empty: refused below.
  }
  if (protocol !== "postgres:" && protocol !== "postgresql:") {
    throw new MastError("INVALID_ARGUMENT", `${flag} takes a PostgreSQL connection string, not ${JSON.stringify(redactedUrl(url))}`, {
      hint: `Pass ${flag} postgres://USER@HOST:PORT/DATABASE (TLS: add ?sslmode=require; the password from PGPASSWORD or ~/.pgpass).`,
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
export async function openPg(url: string, flag: string, options: { applicationName?: string } = {}): Promise<PgSession> {
  checkStoreUrl(url, flag);
  const where = redactedUrl(url);
  const client = new pg.Client({ connectionString: url, application_name: options.applicationName ?? "mast", connectionTimeoutMillis: 10_000 });
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
