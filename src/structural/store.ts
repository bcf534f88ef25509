// The structural index in a PostgreSQL store (docs/organisation.md#the-structural-index): a
// build published from CI (`mast structural build --publish`) and the five operations answered from
// the store (`mast structural serve --store`), the remote provider MANTIS_STRUCTURAL_INDEX_URL
// points at. The operations are structural/query.ts's, over the store's rows (store/pg/catalog.ts):
// the same answers a local query of that build gives.
import { MastError } from "../base/errors.js";
import { openPg, openPgSync, type PgSyncSession } from "../store/pg/client.js";
import { pgCatalog, publishStructural, structuralBuild, type StructuralPublishReport } from "../store/pg/catalog.js";
import { checkSchema, ensureSchema } from "../store/pg/schema.js";
import type { StructuralLayout } from "./locate.js";
import { openPublished, readManifest, type StructuralManifest } from "./manifest.js";
import { queryFrom } from "./query.js";

/** Publishes the build at `layout` to the store as `repository`'s, made its active build. An overlay is refused: its baseline is not in the store. */
export async function publishBuild(layout: StructuralLayout, url: string, repository: string, keep: number | null = null): Promise<StructuralPublishReport> {
  const manifest = readManifest(layout);
  if (manifest === null) throw new MastError("NOT_INDEXED", `no structural index is published at ${layout.dir}`, { hint: "Run `mast structural build` first." });
  if (manifest.provider.kind === "baseline+overlay") {
    throw new MastError("INVALID_ARGUMENT", "this structural index is an overlay on a local baseline, which the store does not hold", {
      hint: "Publish the baseline build (a build without --baseline), as CI does.",
    });
  }
  const layers = openPublished(layout, manifest);
  if (layers === null) throw new MastError("INDEX_CORRUPT", `the structural index at ${layout.dir} names catalog files it does not have`, { hint: "Run `mast structural build` again." });
  const pg = await openPg(url, "--publish", { applicationName: "mast structural build" });
  try {
    await ensureSchema(pg);
    return await publishStructural(pg, repository, manifest as unknown as Record<string, unknown>, layers, keep);
  } finally {
    for (const db of layers) db.close();
    await pg.close();
  }
}

/** A reader of the store's structural builds: checks the schema once, then answers operations synchronously. */
export async function openStructuralStore(url: string): Promise<PgSyncSession> {
  const check = await openPg(url, "--store", { applicationName: "mast structural serve" });
  try {
    await checkSchema(check);
  } finally {
    await check.close();
  }
  return openPgSync(url, "--store", { applicationName: "mast structural serve" });
}

/** One operation over `repository`'s active build in the store (read at each call, so a new publish is answered at once). */
export function queryStore(pg: PgSyncSession, repository: string, op: string, args: unknown): Record<string, unknown> {
  const build = structuralBuild(pg, repository);
  if (build === null) {
    throw new MastError("NOT_INDEXED", `the store at ${pg.where} has no structural build of ${JSON.stringify(repository)}`, {
      hint: "Publish one: `mast structural build --publish <url> --repository <name>`.",
    });
  }
  const dbs = Array.from({ length: build.layers }, (_, layer) => pgCatalog(pg, build.build, layer));
  return queryFrom({ manifest: build.manifest as unknown as StructuralManifest, dbs, jsonl: null, baseline: null }, op, args);
}
