// The PostgreSQL store's schema (docs/organisation.md#the-schema): created and migrated by mast,
// versioned in `mast.schema_info`. A writer (`mast publish`) creates it when missing and migrates
// an older version under an advisory lock, so concurrent first publishers create it once; a store
// of a version this mast does not know (a newer mast wrote it) is refused with STORE_VERSION, and a
// reader never creates or migrates anything.
//
// Rows are of three kinds. Content-addressed and shared by every snapshot and repository: `blobs`
// (a file's bytes by sha256) and `units` (what one file's text at one path extracts to — its
// symbols, chunks with their search words, heritage and call sites — keyed by the hash of the
// index identity, the path and the content). Per snapshot, since they depend on the other files:
// the file list, imports with the file each resolves to, call-graph edges, re-export links and
// checker verdicts. And the repositories with their active snapshot, flipped in one transaction.
// Version 2 adds the structural index's published builds, version 3 chunks' search input (MIGRATIONS).
import { MastError } from "../../base/errors.js";
import type { PgSession, PgValue } from "./client.js";

/** What reads the schema's version: an async session, or a synchronous one (its rows are awaited all the same). */
interface Querier {
  readonly where: string;
  query<R>(sql: string, values?: readonly PgValue[]): Promise<R[]> | R[];
}

/** The schema version this mast writes and reads. */
export const PG_SCHEMA_VERSION = 3;

/** The advisory lock key the schema's creation and migration take (a transaction lock). */
const SCHEMA_LOCK = 0x6d617374;

const SCHEMA_V1 = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE SCHEMA IF NOT EXISTS mast;
CREATE TABLE mast.schema_info (
  one     boolean PRIMARY KEY DEFAULT true CHECK (one),
  version integer NOT NULL
);
CREATE TABLE mast.repositories (
  id              serial PRIMARY KEY,
  name            text NOT NULL UNIQUE,
  active_snapshot bigint,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE mast.snapshots (
  id             bigserial PRIMARY KEY,
  repository_id  integer NOT NULL REFERENCES mast.repositories(id) ON DELETE CASCADE,
  commit         text NOT NULL,
  tree_digest    text NOT NULL,
  index_identity text NOT NULL,
  published_at   timestamptz NOT NULL DEFAULT now(),
  file_count     integer NOT NULL,
  symbol_count   integer NOT NULL,
  edge_count     integer NOT NULL,
  source_bytes   bigint NOT NULL,
  UNIQUE (repository_id, commit)
);
ALTER TABLE mast.repositories ADD FOREIGN KEY (active_snapshot) REFERENCES mast.snapshots(id);
CREATE TABLE mast.blobs (
  hash       bytea PRIMARY KEY,
  content    bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE mast.units (
  hash              bytea PRIMARY KEY,
  path              text NOT NULL,
  language          text NOT NULL,
  blob              bytea NOT NULL REFERENCES mast.blobs(hash),
  line_count        integer NOT NULL,
  has_syntax_errors boolean NOT NULL,
  is_test           boolean NOT NULL,
  calls             bytea,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX units_blob ON mast.units(blob);
CREATE TABLE mast.unit_symbols (
  unit            bytea NOT NULL REFERENCES mast.units(hash) ON DELETE CASCADE,
  ord             integer NOT NULL,
  name            text NOT NULL,
  tail            text,
  kind            text NOT NULL,
  line            integer NOT NULL,
  end_line        integer NOT NULL,
  is_exported     boolean NOT NULL,
  has_body        boolean NOT NULL,
  parent_name     text,
  reexport_module text,
  reexport_name   text,
  alias_of        text,
  return_type     text,
  signature       text,
  doc             text,
  params          text,
  PRIMARY KEY (unit, ord)
);
CREATE INDEX unit_symbols_name ON mast.unit_symbols(name);
CREATE INDEX unit_symbols_tail ON mast.unit_symbols(tail) WHERE tail IS NOT NULL;
CREATE INDEX unit_symbols_trgm ON mast.unit_symbols USING gin (name gin_trgm_ops);
CREATE TABLE mast.unit_chunks (
  unit               bytea NOT NULL REFERENCES mast.units(hash) ON DELETE CASCADE,
  ord                integer NOT NULL,
  chunk_key          bigint NOT NULL,
  start_line         integer NOT NULL,
  end_line           integer NOT NULL,
  content_start_line integer NOT NULL,
  content_end_line   integer NOT NULL,
  cut_from           integer,
  cut_to             integer,
  content            bytea,
  chunk_type         text NOT NULL,
  symbol_name        text,
  symbol_tail        text,
  parent_symbol      text,
  is_exported        boolean NOT NULL,
  part               integer NOT NULL,
  words              tsvector NOT NULL,
  PRIMARY KEY (unit, ord)
);
CREATE INDEX unit_chunks_words ON mast.unit_chunks USING gin (words);
CREATE INDEX unit_chunks_symbol_trgm ON mast.unit_chunks USING gin (symbol_name gin_trgm_ops) WHERE symbol_name IS NOT NULL;
CREATE TABLE mast.unit_heritage (
  unit       bytea NOT NULL REFERENCES mast.units(hash) ON DELETE CASCADE,
  ord        integer NOT NULL,
  class_name text NOT NULL,
  relation   text NOT NULL,
  target     text NOT NULL,
  PRIMARY KEY (unit, ord)
);
CREATE TABLE mast.snapshot_files (
  snapshot bigint NOT NULL REFERENCES mast.snapshots(id) ON DELETE CASCADE,
  file     integer NOT NULL,
  path     text NOT NULL,
  unit     bytea NOT NULL REFERENCES mast.units(hash),
  PRIMARY KEY (snapshot, file),
  UNIQUE (snapshot, path)
);
CREATE INDEX snapshot_files_unit ON mast.snapshot_files(unit);
CREATE TABLE mast.snapshot_imports (
  snapshot      bigint NOT NULL REFERENCES mast.snapshots(id) ON DELETE CASCADE,
  file          integer NOT NULL,
  ord           integer NOT NULL,
  module        text NOT NULL,
  symbols       text NOT NULL,
  bound_as      text,
  kind          text NOT NULL,
  line          integer NOT NULL,
  is_external   boolean NOT NULL,
  resolved_file integer,
  PRIMARY KEY (snapshot, file, ord)
);
CREATE INDEX snapshot_imports_target ON mast.snapshot_imports(snapshot, resolved_file) WHERE resolved_file IS NOT NULL;
CREATE TABLE mast.snapshot_edges (
  snapshot   bigint NOT NULL REFERENCES mast.snapshots(id) ON DELETE CASCADE,
  from_file  integer NOT NULL,
  from_ord   integer NOT NULL,
  to_file    integer NOT NULL,
  to_ord     integer NOT NULL,
  edge_type  smallint NOT NULL,
  resolution smallint,
  call_line  integer
);
CREATE INDEX snapshot_edges_to ON mast.snapshot_edges(snapshot, to_file, to_ord);
CREATE INDEX snapshot_edges_from ON mast.snapshot_edges(snapshot, from_file, from_ord);
CREATE TABLE mast.snapshot_re_exports (
  snapshot  bigint NOT NULL REFERENCES mast.snapshots(id) ON DELETE CASCADE,
  from_file integer NOT NULL,
  to_file   integer NOT NULL,
  PRIMARY KEY (snapshot, from_file, to_file)
);
CREATE TABLE mast.snapshot_verdicts (
  snapshot    bigint NOT NULL REFERENCES mast.snapshots(id) ON DELETE CASCADE,
  target_file integer NOT NULL,
  target_ord  integer NOT NULL,
  file        integer NOT NULL,
  line        integer NOT NULL,
  verdict     text NOT NULL
);
CREATE INDEX snapshot_verdicts_target ON mast.snapshot_verdicts(snapshot, target_file, target_ord);
`;

/**
 * The steps from each version to the next: MIGRATIONS[v - 1] takes a store of version v to v + 1.
 * 1 → 2: the structural index's published builds (docs/organisation.md#the-structural-index): a
 * build per (repository, build id) with its manifest, and each of its catalog's layers (the main
 * catalog, then its shards) with the catalog's own rows, the active build flipped like a snapshot.
 * 2 → 3: each chunk's search input as the extractor made it — the searched range of its text
 * (`search_from`, `search_to`: offsets into the text) and its code identifiers — so a replica's
 * full-text indexes are the ones `mast index` builds (store/pg/replica.ts); NULL in units
 * published before — each symbol's and chunk's place in its file by id (`seq`: the extractor's
 * order, which ties between rows on one line follow), and the snapshot's index meta the answers
 * read (the checker pass's state).
 */
const MIGRATIONS: readonly string[] = [
  `
ALTER TABLE mast.repositories ADD COLUMN active_structural bigint;
CREATE TABLE mast.structural_builds (
  id            bigserial PRIMARY KEY,
  repository_id integer NOT NULL REFERENCES mast.repositories(id) ON DELETE CASCADE,
  build_id      text NOT NULL,
  snapshot_id   text NOT NULL,
  manifest      jsonb NOT NULL,
  published_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (repository_id, build_id)
);
ALTER TABLE mast.repositories ADD FOREIGN KEY (active_structural) REFERENCES mast.structural_builds(id);
CREATE TABLE mast.structural_layers (
  build bigint NOT NULL REFERENCES mast.structural_builds(id) ON DELETE CASCADE,
  layer integer NOT NULL,
  meta  jsonb NOT NULL,
  PRIMARY KEY (build, layer)
);
CREATE TABLE mast.structural_symbols (
  build bigint NOT NULL, layer integer NOT NULL,
  FOREIGN KEY (build, layer) REFERENCES mast.structural_layers(build, layer) ON DELETE CASCADE,
  symbol_id text NOT NULL, name text NOT NULL, qualified_name text NOT NULL, namespace text NOT NULL, language text NOT NULL,
  file_path text NOT NULL, start_line integer NOT NULL, end_line integer NOT NULL, kind text NOT NULL, signature text,
  precision text NOT NULL, backend text NOT NULL
);
CREATE INDEX structural_symbols_name ON mast.structural_symbols(build, layer, name);
CREATE INDEX structural_symbols_qualified ON mast.structural_symbols(build, layer, qualified_name);
CREATE INDEX structural_symbols_id ON mast.structural_symbols(build, layer, symbol_id);
CREATE TABLE mast.structural_edges (
  build bigint NOT NULL, layer integer NOT NULL,
  FOREIGN KEY (build, layer) REFERENCES mast.structural_layers(build, layer) ON DELETE CASCADE,
  edge_id integer NOT NULL, caller_id text NOT NULL, callee_id text, callee_name text NOT NULL, file_path text NOT NULL, line integer NOT NULL,
  edge_kind text NOT NULL, precision text NOT NULL, backend text NOT NULL, partition_key text NOT NULL
);
CREATE INDEX structural_edges_callee ON mast.structural_edges(build, layer, callee_id);
CREATE INDEX structural_edges_caller ON mast.structural_edges(build, layer, caller_id);
CREATE INDEX structural_edges_name ON mast.structural_edges(build, layer, callee_name) WHERE callee_id IS NULL;
CREATE TABLE mast.structural_boundaries (
  build bigint NOT NULL, layer integer NOT NULL,
  FOREIGN KEY (build, layer) REFERENCES mast.structural_layers(build, layer) ON DELETE CASCADE,
  symbol_id text NOT NULL, file_path text NOT NULL, start_line integer NOT NULL, end_line integer NOT NULL, signature text, language text NOT NULL
);
CREATE INDEX structural_boundaries_file ON mast.structural_boundaries(build, layer, file_path, start_line, end_line);
CREATE TABLE mast.structural_coverage (
  build bigint NOT NULL, layer integer NOT NULL,
  FOREIGN KEY (build, layer) REFERENCES mast.structural_layers(build, layer) ON DELETE CASCADE,
  file_path text NOT NULL, indexed integer NOT NULL, backend text NOT NULL, status text NOT NULL, partition_key text NOT NULL,
  unit_cache_key text, sha256 text
);
CREATE INDEX structural_coverage_file ON mast.structural_coverage(build, layer, file_path);
`,
  `
ALTER TABLE mast.unit_chunks ADD COLUMN search_from integer, ADD COLUMN search_to integer, ADD COLUMN identifiers text, ADD COLUMN seq integer;
ALTER TABLE mast.unit_symbols ADD COLUMN seq integer;
ALTER TABLE mast.snapshots ADD COLUMN index_meta jsonb;
`,
];

/** The store's schema version, or null when it has none (no `mast.schema_info`). */
export async function storeVersion(pg: Querier): Promise<number | null> {
  const exists = await pg.query<{ t: string | null }>("SELECT to_regclass('mast.schema_info')::text AS t");
  if (exists[0]?.t == null) return null;
  const rows = await pg.query<{ version: number }>("SELECT version FROM mast.schema_info");
  return rows[0]?.version ?? null;
}

function tooNew(pg: Querier, version: number): MastError {
  return new MastError("STORE_VERSION", `the PostgreSQL store at ${pg.where} has schema version ${version}; this mast knows versions up to ${PG_SCHEMA_VERSION}`, {
    hint: "A newer mast wrote this store: upgrade mast to read or publish to it (nothing was changed).",
  });
}

/** A reader's check: the store has this mast's schema version (STORE_VERSION otherwise; a store with none says to publish first). */
export async function checkSchema(pg: Querier): Promise<void> {
  const version = await storeVersion(pg);
  if (version === PG_SCHEMA_VERSION) return;
  if (version === null) throw new MastError("STORE_VERSION", `the PostgreSQL store at ${pg.where} holds no mast schema`, { hint: "Publish an index to it first: `mast publish <path> --to <url>`." });
  if (version > PG_SCHEMA_VERSION) throw tooNew(pg, version);
  throw new MastError("STORE_VERSION", `the PostgreSQL store at ${pg.where} has schema version ${version}, older than this mast's ${PG_SCHEMA_VERSION}`, {
    hint: "Run `mast publish` with this mast once (a writer migrates the store), then read it.",
  });
}

/** A writer's step: creates the schema when missing, migrates an older one, refuses a newer one; under one advisory lock, so concurrent writers do it once. */
export async function ensureSchema(pg: PgSession): Promise<void> {
  if ((await storeVersion(pg)) === PG_SCHEMA_VERSION) return;
  await pg.transaction(async () => {
    await pg.query("SELECT pg_advisory_xact_lock($1)", [SCHEMA_LOCK]);
    const version = await storeVersion(pg);
    if (version === null) {
      await pg.query(SCHEMA_V1);
      await pg.query("INSERT INTO mast.schema_info(version) VALUES ($1)", [1]);
    } else if (version > PG_SCHEMA_VERSION) {
      throw tooNew(pg, version);
    }
    for (let v = version ?? 1; v < PG_SCHEMA_VERSION; v++) {
      await pg.query(MIGRATIONS[v - 1]!);
      await pg.query("UPDATE mast.schema_info SET version = $1", [v + 1]);
    }
  });
}
