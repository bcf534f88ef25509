// A baseline held by a PostgreSQL store (docs/organisation.md#the-structural-index): an overlay
// built locally over the build CI published (`--baseline postgres://…`), and read back by the
// overlay's queries. The overlay's manifest names it as `postgres://…#<repository>` without any
// password (the session takes it from PGPASSWORD or ~/.pgpass) with the build's id, so a query
// reads that very build; a store that cannot be reached leaves the overlay answering for its own
// files only, as a lost local baseline does (partial, never complete).
import { MastError } from "../base/errors.js";
import type { CatalogReader } from "../store/catalog.js";
import { openPgSync, withoutPassword, type PgSyncSession } from "../store/pg/client.js";
import { baselineRows, pgCatalog, structuralBuild } from "../store/pg/catalog.js";
import { checkSchema } from "../store/pg/schema.js";
import { fallbackCallers, type Baseline } from "./baseline.js";
import type { StructuralManifest } from "./manifest.js";

/** Whether a baseline is named by a store (`postgres://…#repository`) rather than a path. */
export function isStoreBaseline(path: string): boolean {
  return /^postgres(?:ql)?:\/\//.test(path);
}

function parse(path: string): { url: string; repository: string } {
  const hash = path.lastIndexOf("#");
  if (hash < 0 || hash === path.length - 1) {
    throw new MastError("INVALID_ARGUMENT", "a baseline in a store is named postgres://…#<repository>", { hint: "Pass --baseline postgres://… with --repository <name>.", usage: true });
  }
  return { url: path.slice(0, hash), repository: decodeURIComponent(path.slice(hash + 1)) };
}

/** The store's active build of the repository as an overlay build's baseline (close it after). */
export async function openStoreBaseline(path: string): Promise<Baseline> {
  const { url, repository } = parse(path);
  const pg = openPgSync(url, "--baseline", { applicationName: "mast structural build" });
  try {
    await checkSchema(pg);
    const build = structuralBuild(pg, repository);
    if (build === null)
      throw new MastError("INVALID_ARGUMENT", `the store at ${pg.where} has no structural build of ${JSON.stringify(repository)} to be a baseline`, {
        hint: "Publish one from CI: `mast structural build --publish`.",
      });
    const manifest = build.manifest as unknown as StructuralManifest;
    const rows = baselineRows(pg, build.build);
    const main = pgCatalog(pg, build.build, 0);
    return {
      manifest,
      manifestPath: `${withoutPassword(url)}#${encodeURIComponent(repository)}`,
      keys: rows.keys,
      digests: rows.digests,
      files: rows.files,
      counts: (superseded) => main.coverageCounts({}, superseded),
      fallbackSymbols: () => rows.fallbackSymbols,
      fallbackCallersOf: (files) => fallbackCallers(rows.fallbackSymbols, rows.fallbackCalls, files),
      close: () => pg.close(),
    };
  } catch (err) {
    pg.close();
    throw err;
  }
}

/** The layers of the stored build an overlay names, for its queries; null when the store or the build cannot be read. */
export function storeBaselineLayers(path: string, buildId: string | null): CatalogReader[] | null {
  let pg: PgSyncSession | undefined;
  try {
    const { url, repository } = parse(path);
    pg = openPgSync(url, "--baseline");
    const build = structuralBuild(pg, repository, buildId);
    if (build === null) {
      pg.close();
      return null;
    }
    const session = pg;
    const layers = Array.from({ length: build.layers }, (_, layer) => pgCatalog(session, build.build, layer));
    // The session closes with the last layer closed.
    let open = layers.length;
    return layers.map((reader) => ({ ...reader, close: () => (--open === 0 ? session.close() : undefined) }));
  } catch {
    pg?.close();
    return null;
  }
}
