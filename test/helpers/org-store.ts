// A real PostgreSQL for one test file (test/helpers/postgres-server.mjs), with an `org` database
// the tests publish to and an admin session on the server: started before the file's tests,
// stopped after them.
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { startPostgres } from "./postgres-server.mjs";

export interface OrgStore {
  /** The server (to open other databases on it). */
  server(): Awaited<ReturnType<typeof startPostgres>>;
  /** The `org` database's connection string. */
  url(): string;
  /** A session on the server's default database. */
  admin(): pg.Client;
}

export function orgStore(): OrgStore {
  let server: Awaited<ReturnType<typeof startPostgres>> | undefined;
  let admin: pg.Client | undefined;
  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Client({ connectionString: server.url() });
    await admin.connect();
    await admin.query("CREATE DATABASE org");
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });
  return { server: () => server!, url: () => server!.url("org"), admin: () => admin! };
}
