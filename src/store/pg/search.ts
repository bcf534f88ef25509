// Which published repositories a search is worth asking (docs/organisation.md#searching-many-repositories):
// PostgreSQL ranks each repository by its active snapshot's best chunk for the query — the chunks'
// search words (`words`, a tsvector of what the SQLite index searches) by ts_rank_cd for any of
// the query's words, and their symbol names by pg_trgm similarity to the words run together — in
// one statement over every repository, where asking every replica costs milliseconds each. The
// store server asks the replicas of the best-ranked ones and says which it did not ask.
import { errorMessage } from "../../base/errors.js";
import { splitTerms } from "../../base/text.js";
import { openPg, type PgSession } from "./client.js";

const RELEVANCE = `
  WITH repos AS (SELECT * FROM unnest($1::text[], $2::bigint[]) AS r(name, snapshot)),
  by_words AS (SELECT r.name, max(ts_rank_cd(uc.words, to_tsquery('simple', $3), 32)) AS score
                 FROM repos r JOIN mast.snapshot_files sf ON sf.snapshot = r.snapshot JOIN mast.unit_chunks uc ON uc.unit = sf.unit
                WHERE uc.words @@ to_tsquery('simple', $3) GROUP BY r.name),
  by_name AS (SELECT r.name, max(similarity(uc.symbol_name, $4)) AS score
                FROM repos r JOIN mast.snapshot_files sf ON sf.snapshot = r.snapshot JOIN mast.unit_chunks uc ON uc.unit = sf.unit
               WHERE uc.symbol_name % $4 GROUP BY r.name)
  SELECT name, sum(score)::float8 AS score FROM (SELECT * FROM by_words UNION ALL SELECT * FROM by_name) s GROUP BY name`;

/** A repository as a search ranks it: the snapshot its replica answers from. */
export interface RankedSnapshot {
  readonly repository: string;
  readonly snapshot: number;
}

/**
 * Each repository's relevance to `query` in the snapshot given (0 to 2: its best chunk's words,
 * 0 to 1, plus its best name's similarity, 0 to 1); a repository the store finds nothing in is
 * left out.
 */
export async function repositoryRelevance(session: PgSession, snapshots: readonly RankedSnapshot[], query: string): Promise<Map<string, number>> {
  const words = splitTerms(query).filter((w) => /^[a-z0-9]+$/.test(w));
  if (words.length === 0 || snapshots.length === 0) return new Map();
  const rows = await session.query<{ name: string; score: number }>(RELEVANCE, [
    snapshots.map((s) => s.repository),
    snapshots.map((s) => s.snapshot),
    words.map((w) => `${w}:*`).join(" | "),
    words.join(""),
  ]);
  return new Map(rows.map((r) => [r.name, Number(r.score)]));
}

/** A server's way to rank repositories for a search: null when the store cannot say now (every repository is then asked). */
export interface StoreRelevance {
  rank(snapshots: readonly RankedSnapshot[], query: string): Promise<Map<string, number> | null>;
  close(): Promise<void>;
}

/** The longest a ranking may take before the search asks every repository instead, ms. */
const RANK_TIMEOUT_MS = 2_000;

/**
 * Rankings from the store at `url` over one session, opened at the first search and opened again
 * after a failure; a failure is logged once until the store answers again.
 */
export function storeRelevance(url: string, log: (line: string) => void): StoreRelevance {
  let session: Promise<PgSession> | null = null;
  let failing = false;
  return {
    async rank(snapshots, query) {
      try {
        session ??= openPg(url, "--store", { applicationName: "mast serve (search)", queryTimeoutMs: RANK_TIMEOUT_MS });
        const ranked = await repositoryRelevance(await session, snapshots, query);
        if (failing) log("mast serve: the store ranks searches again");
        failing = false;
        return ranked;
      } catch (err) {
        const broken = session;
        session = null;
        void broken?.then((s) => s.close()).catch(() => {});
        if (!failing) log(`mast serve: the store could not rank a search, so it asks every repository: ${errorMessage(err)}`);
        failing = true;
        return null;
      }
    },
    async close() {
      const open = session;
      session = null;
      await open?.then((s) => s.close()).catch(() => {});
    },
  };
}
