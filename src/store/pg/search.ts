// Which published repositories a search is worth asking (docs/organisation.md#serving-from-the-store,
// "Searching many repositories"): PostgreSQL ranks each repository by what the store server's
// fusion puts first (tools/org.ts) — a declaration named by the query (its words run together, the
// name's last segment), then chunks holding every word of the query (their search words, a
// tsvector of what the SQLite index searches; prefixes included), more of them a little higher —
// in one statement over the snapshots the replicas hold, where asking every replica costs about a
// millisecond each. Cheap by design: no ts_rank_cd (it reads every matching chunk's words) and no
// any-word query (a common word's postings are most of the store).
import { errorMessage } from "../../base/errors.js";
import { splitTerms } from "../../base/text.js";
import { openPg, type PgSession } from "./client.js";

const RELEVANCE = `
  WITH repos AS (SELECT * FROM unnest($1::text[], $2::bigint[]) AS r(name, snapshot)),
  holding AS (SELECT r.name, count(*) AS n
                FROM repos r JOIN mast.snapshot_files sf ON sf.snapshot = r.snapshot JOIN mast.unit_chunks uc ON uc.unit = sf.unit
               WHERE uc.words @@ to_tsquery('simple', $3) GROUP BY r.name),
  named AS (SELECT DISTINCT r.name
              FROM repos r JOIN mast.snapshot_files sf ON sf.snapshot = r.snapshot JOIN mast.unit_chunks uc ON uc.unit = sf.unit
             WHERE uc.symbol_name ILIKE $5 AND replace(lower(regexp_replace(uc.symbol_name, '^.*[.]', '')), '_', '') = $4)
  SELECT coalesce(h.name, n.name) AS name,
         (CASE WHEN n.name IS NULL THEN 0 ELSE 2 END + CASE WHEN h.name IS NULL THEN 0 ELSE 1 + ln(1 + h.n) / 100 END)::float8 AS score
    FROM holding h FULL JOIN named n ON n.name = h.name`;

/** A repository as a search ranks it: the snapshot its replica answers from. */
export interface RankedSnapshot {
  readonly repository: string;
  readonly snapshot: number;
}

/**
 * Each repository's relevance to `query` in the snapshot given: 2 when one of its declarations is
 * named by the query (the name's last segment, `_` aside, is the query's words run together:
 * `openPool` and `open_pool` for "open pool"), 1 more when its chunks hold every word (a word of 3
 * or more characters as a prefix, as the index's search takes it; plus ln(1 + how many) / 100); a
 * repository with neither is left out.
 */
export async function repositoryRelevance(session: PgSession, snapshots: readonly RankedSnapshot[], query: string): Promise<Map<string, number>> {
  const words = splitTerms(query).filter((w) => /^[a-z0-9]+$/.test(w));
  if (words.length === 0 || snapshots.length === 0) return new Map();
  const rows = await session.query<{ name: string; score: number }>(RELEVANCE, [
    snapshots.map((s) => s.repository),
    snapshots.map((s) => s.snapshot),
    words.map((w) => (w.length >= 3 ? `${w}:*` : w)).join(" & "),
    words.join(""),
    // The trigram index finds the candidates: the words in order, anything between them.
    `%${words.join("%")}`,
  ]);
  return new Map(rows.map((r) => [r.name, Number(r.score)]));
}

/** A server's way to rank repositories for a search: null when the store cannot say now (every repository is then asked). */
export interface StoreRelevance {
  rank(snapshots: readonly RankedSnapshot[], query: string): Promise<Map<string, number> | null>;
  close(): Promise<void>;
}

/** How long a ranking may take before the search asks every repository instead, and how long after a failure the store is asked again, ms. */
const RANK_TIMEOUT_MS = 2_000;
const RETRY_AFTER_MS = 30_000;

/**
 * Rankings from the store at `url` over one session, opened at the first search. A ranking that
 * fails or takes longer than `timeoutMs` (an unreachable host's connect included) answers null,
 * and for `retryMs` after it every ranking answers null at once — the server asks every
 * repository from its replicas meanwhile — then a new session is opened; logged once until the
 * store ranks again.
 */
export function storeRelevance(url: string, log: (line: string) => void, options: { timeoutMs?: number; retryMs?: number } = {}): StoreRelevance {
  const { timeoutMs = RANK_TIMEOUT_MS, retryMs = RETRY_AFTER_MS } = options;
  let session: Promise<PgSession> | null = null;
  let failing = false;
  let retryAt = 0;
  /** Closes a session that failed, and forgets it unless another call has replaced it already. */
  const drop = (broken: Promise<PgSession>) => {
    if (session === broken) session = null;
    void broken.then((s) => s.close()).catch(() => {});
  };
  return {
    async rank(snapshots, query) {
      if (Date.now() < retryAt) return null;
      const mine = (session ??= openPg(url, "--store", { applicationName: "mast serve (search)", queryTimeoutMs: timeoutMs }));
      let timer: NodeJS.Timeout | undefined;
      try {
        const ranked = await Promise.race([
          mine.then((s) => repositoryRelevance(s, snapshots, query)),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no ranking within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        if (failing) log("mast serve: the store ranks searches again");
        failing = false;
        return ranked;
      } catch (err) {
        drop(mine);
        retryAt = Date.now() + retryMs;
        if (!failing) log(`mast serve: the store could not rank a search, so searches ask every repository (again in ${retryMs / 1000} s): ${errorMessage(err)}`);
        failing = true;
        return null;
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      const open = session;
      session = null;
      await open?.then((s) => s.close()).catch(() => {});
    },
  };
}
