// `mast publish`'s writes (docs/organisation.md#publishing): one project's index copied into the
// PostgreSQL store as a snapshot of (repository, commit), in two phases.
//
// 1. Units: each file's content-derived rows (store/pg/schema.ts) keyed by the hash of the index
//    identity, its path and its content. Units the store has are reused; the others are written
//    with their file's bytes, a batch per transaction, each unit whole or not at all. They are
//    immutable, so a publisher killed here leaves only rows no snapshot names yet (a later prune
//    collects them), and publishers of other repositories wait on no lock of each other's.
// 2. The snapshot, in one transaction: its row, file list, imports, edges, re-exports and checker
//    verdicts, then the repository's active snapshot flipped to it unless a later one is active.
//    Readers see the previous snapshot or this one, never a mix; a killed publisher leaves nothing.
//
// Publishing a commit the store has with the same content writes nothing; with other content it is
// PUBLISH_CONFLICT. `keep` prunes the repository's older snapshots; the units and blobs no snapshot
// names are then collected — only while no publisher is between its phases (a shared advisory
// lock every publisher holds; the collector takes it exclusively, or skips).
import { sha256 } from "../../base/hash.js";
import { identifierParts, splitTerms } from "../../base/text.js";
import { MastError } from "../../base/errors.js";
import { chunkContent, type ChunkLines } from "../chunk-text.js";
import { PACKAGES_META } from "../db.js";
import type { PgSession, PgValue } from "./client.js";
import type { ChunkRow, IndexRows, IndexedFile, FileRows } from "./index-rows.js";

/** The advisory lock every publisher holds shared while it writes, and the collector of unnamed units takes exclusively. */
const PUBLISH_LOCK = 0x6d617375;
/** Units written per transaction, and the bytes of source at most (a few large files make a batch of their own). */
const UNIT_BATCH = 200;
const UNIT_BATCH_BYTES = 16 * 1024 * 1024;
/** Rows per statement for the snapshot's lists (one array per column). */
const ROW_BATCH = 20_000;
/** The characters of a chunk's text its search words are made from (a tsvector holds at most 1 MB). */
const MAX_WORDS_CHARS = 256 * 1024;
/** Everything but letters, digits, `_` and `$`: the characters between the words of code. */
const CODE_PUNCTUATION = /[^\p{L}\p{N}_$]+/gu;

export interface PublishRequest {
  readonly repository: string;
  readonly commit: string;
  /** The index's identity (schema version and hash): units of another identity are other rows. */
  readonly identity: string;
  /** Keep this many of the repository's snapshots (the active one always); null keeps all. */
  readonly keep: number | null;
  /** The packages the project provides (resolve/packages.ts), kept with the snapshot's index meta as `packages` (JSON). */
  readonly packages?: readonly unknown[];
}

export interface PublishReport {
  readonly repository: string;
  readonly commit: string;
  readonly snapshot: number;
  /** The commit was published before with this content: nothing was written. */
  readonly unchanged: boolean;
  /** This snapshot is the repository's active one now. */
  readonly active: boolean;
  readonly files: number;
  readonly units_written: number;
  readonly units_reused: number;
  readonly source_bytes_written: number;
  readonly symbols: number;
  readonly edges: number;
  readonly pruned_snapshots: number;
  /** Where the time went, ms: the index run (set by the caller), the units phase, the snapshot transaction, pruning. */
  readonly timings_ms: { index?: number; units: number; snapshot: number; prune: number };
}

/** A chunk's search input as the extractor made it: the searched range of its text (offsets) and its code identifiers, space-separated. */
export interface ChunkSearch {
  readonly from: number;
  readonly to: number;
  readonly identifiers: string;
}

/** A file's unit source: its bytes and each of its chunks' search input (null: unknown). */
export interface UnitSource {
  readonly bytes: Buffer;
  readonly search: (chunk: ChunkRow) => ChunkSearch | null;
}

/** Reads the files' bytes for their units, in the order given; they must be the bytes the index read (SOURCE_CHANGED otherwise). */
export type ReadSource = (files: readonly IndexedFile[]) => AsyncIterator<UnitSource>;

/** What identifies a snapshot's content: the index identity and every file's path and content hash. */
export function treeDigest(identity: string, files: readonly IndexedFile[]): string {
  return sha256(`${identity}\n${[...files.map((f) => `${f.path}\0${f.contentHash}`)].sort().join("\n")}`);
}

function unitHash(identity: string, file: IndexedFile): Buffer {
  return Buffer.from(sha256(`${identity}\0${file.path}\0${file.contentHash}`), "hex");
}

/** Copies `rows` into the store as (repository, commit) and makes it active (docs/organisation.md#publishing). */
export async function publishSnapshot(pg: PgSession, rows: IndexRows, request: PublishRequest, readSource: ReadSource): Promise<PublishReport> {
  const digest = treeDigest(request.identity, rows.files);
  await pg.query("INSERT INTO mast.repositories(name) VALUES ($1) ON CONFLICT (name) DO NOTHING", [request.repository]);
  const repositoryId = (await pg.query<{ id: number }>("SELECT id FROM mast.repositories WHERE name = $1", [request.repository]))[0]!.id;
  const base = { repository: request.repository, commit: request.commit, files: rows.files.length, symbols: rows.symbolCount, edges: rows.edges.length };
  const published = await existingSnapshot(pg, repositoryId, request.commit, digest);
  const timings = { units: 0, snapshot: 0, prune: 0 };
  if (published !== null) return { ...base, ...published, units_written: 0, units_reused: rows.files.length, source_bytes_written: 0, pruned_snapshots: 0, timings_ms: timings };
  await pg.query("SELECT pg_advisory_lock_shared($1)", [PUBLISH_LOCK]);
  let shared = true;
  try {
    const units = rows.files.map((f) => unitHash(request.identity, f));
    let started = performance.now();
    const written = await writeUnits(pg, rows, units, readSource);
    timings.units = Math.round(performance.now() - started);
    started = performance.now();
    const snapshot = await writeSnapshot(pg, rows, units, repositoryId, request, digest);
    timings.snapshot = Math.round(performance.now() - started);
    const done = { ...base, ...snapshot, units_written: written.units, units_reused: rows.files.length - written.units, source_bytes_written: written.bytes, timings_ms: timings };
    if (snapshot.unchanged) return { ...done, pruned_snapshots: 0 };
    await pg.query("SELECT pg_advisory_unlock_shared($1)", [PUBLISH_LOCK]);
    shared = false;
    started = performance.now();
    const pruned = request.keep === null ? 0 : await prune(pg, repositoryId, request.keep);
    timings.prune = Math.round(performance.now() - started);
    return { ...done, pruned_snapshots: pruned };
  } finally {
    if (shared) await pg.query("SELECT pg_advisory_unlock_shared($1)", [PUBLISH_LOCK]).catch(() => {});
  }
}

/** The snapshot of (repository, commit) when one is published: unchanged (this content) or PUBLISH_CONFLICT (other content); null when none is. */
async function existingSnapshot(pg: PgSession, repositoryId: number, commit: string, digest: string): Promise<{ snapshot: number; unchanged: true; active: boolean } | null> {
  const row = (
    await pg.query<{ id: string; tree_digest: string; active: boolean }>(
      "SELECT s.id, s.tree_digest, r.active_snapshot = s.id AS active FROM mast.snapshots s JOIN mast.repositories r ON r.id = s.repository_id WHERE s.repository_id = $1 AND s.commit = $2",
      [repositoryId, commit],
    )
  )[0];
  if (row === undefined) return null;
  if (row.tree_digest !== digest) {
    throw new MastError("PUBLISH_CONFLICT", `commit ${commit} is already published with other content (its files differ from this index's)`, { details: { snapshot: Number(row.id) } });
  }
  return { snapshot: Number(row.id), unchanged: true, active: row.active === true };
}

/** Phase 1: the units the store lacks, written with their files' bytes; how many and how many bytes. */
async function writeUnits(pg: PgSession, rows: IndexRows, units: readonly Buffer[], readSource: ReadSource): Promise<{ units: number; bytes: number }> {
  const present = new Set<string>();
  for (let i = 0; i < units.length; i += ROW_BATCH) {
    const have = await pg.query<{ hash: Buffer }>("SELECT hash FROM mast.units WHERE hash = ANY($1::bytea[])", [units.slice(i, i + ROW_BATCH)]);
    for (const h of have) present.add(h.hash.toString("hex"));
  }
  const missing = rows.files.map((f, i) => ({ file: f, unit: units[i]! })).filter((u) => !present.has(u.unit.toString("hex")));
  const sources = readSource(missing.map((m) => m.file));
  let written = 0;
  let bytes = 0;
  try {
    for (let i = 0; i < missing.length; ) {
      const batch: UnitBatch = [];
      let batchBytes = 0;
      for (; i < missing.length && batch.length < UNIT_BATCH && (batch.length === 0 || batchBytes + missing[i]!.file.size <= UNIT_BATCH_BYTES); i++) {
        const { file, unit } = missing[i]!;
        const next = await sources.next();
        if (next.done === true) throw new Error(`the unit source ended before ${file.path}`);
        const { bytes: source, search } = next.value;
        const fileRows = rows.rowsOf(file.id);
        const lines = source.toString("utf8").split("\n");
        batch.push({ file, unit, source, rows: fileRows, words: fileRows.chunks.map((c) => searchWords(file.path, c, lines)), search: fileRows.chunks.map(search) });
        batchBytes += source.length;
      }
      const inserted = await pg.transaction(() => insertUnits(pg, batch));
      written += inserted.count;
      bytes += inserted.bytes;
    }
  } finally {
    await sources.return?.();
  }
  return { units: written, bytes };
}

/** Units to write in one transaction: each file's bytes, rows and its chunks' search words. */
type UnitBatch = Array<{
  readonly file: IndexedFile;
  readonly unit: Buffer;
  readonly source: Buffer;
  readonly rows: FileRows;
  readonly words: readonly string[];
  readonly search: ReadonlyArray<ChunkSearch | null>;
}>;

/** Column arrays for an `INSERT … SELECT * FROM unnest(…)` of `items`. */
function columns<T>(items: readonly T[], pick: ReadonlyArray<(item: T) => PgValue>): PgValue[][] {
  return pick.map((get) => items.map(get));
}

async function insertUnits(pg: PgSession, unordered: UnitBatch): Promise<{ count: number; bytes: number }> {
  // Keys taken in one order by every publisher: two batches sharing blobs or units never wait on each other in a cycle.
  const batch = [...unordered].sort((a, b) => Buffer.compare(a.unit, b.unit));
  const byBlob = [...new Map(batch.map((b) => [b.file.contentHash, b.source])).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  await pg.query("INSERT INTO mast.blobs(hash, content) SELECT * FROM unnest($1::bytea[], $2::bytea[]) ON CONFLICT (hash) DO NOTHING", [
    byBlob.map(([hash]) => Buffer.from(hash, "hex")),
    byBlob.map(([, source]) => source),
  ]);
  const blobs = batch.map((b) => Buffer.from(b.file.contentHash, "hex"));
  // A unit another publisher wrote meanwhile is whole already (its rows came in its transaction): only the ones inserted here get rows.
  const inserted = await pg.query<{ hash: Buffer }>(
    `INSERT INTO mast.units(hash, path, language, blob, line_count, has_syntax_errors, is_test, calls)
       SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[], $4::bytea[], $5::int[], $6::bool[], $7::bool[], $8::bytea[])
       ON CONFLICT (hash) DO NOTHING RETURNING hash`,
    [
      batch.map((b) => b.unit),
      batch.map((b) => b.file.path),
      batch.map((b) => b.file.language),
      blobs,
      batch.map((b) => b.file.lineCount),
      batch.map((b) => b.file.hasSyntaxErrors),
      batch.map((b) => b.file.isTest),
      batch.map((b) => b.rows.calls),
    ],
  );
  const mine = new Set(inserted.map((r) => r.hash.toString("hex")));
  const own = batch.filter((b) => mine.has(b.unit.toString("hex")));
  const symbols = own.flatMap((b) => b.rows.symbols.map((s, ord) => ({ unit: b.unit, ord, s })));
  await pg.query(
    `INSERT INTO mast.unit_symbols SELECT * FROM unnest($1::bytea[], $2::int[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::bool[], $9::bool[],
       $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::int[])`,
    columns(symbols, [
      (x) => x.unit,
      (x) => x.ord,
      (x) => x.s.name,
      (x) => x.s.tail,
      (x) => x.s.kind,
      (x) => x.s.line,
      (x) => x.s.endLine,
      (x) => x.s.isExported,
      (x) => x.s.hasBody,
      (x) => x.s.parentName,
      (x) => x.s.reexportModule,
      (x) => x.s.reexportName,
      (x) => x.s.aliasOf,
      (x) => x.s.returnType,
      (x) => x.s.signature,
      (x) => x.s.doc,
      (x) => x.s.params,
      (x) => x.s.seq,
    ]),
  );
  const chunks = own.flatMap((b) => b.rows.chunks.map((c, ord) => ({ unit: b.unit, ord, c, words: b.words[ord]!, search: b.search[ord] ?? null })));
  await pg.query(
    `INSERT INTO mast.unit_chunks
       SELECT u, o, k, sl, el, cs, ce, cf, ct, content, ty, sn, st, ps, ex, pa, to_tsvector('simple', w), sf, stt, ids, sq
       FROM unnest($1::bytea[], $2::int[], $3::bigint[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::int[], $10::bytea[],
                   $11::text[], $12::text[], $13::text[], $14::text[], $15::bool[], $16::int[], $17::text[], $18::int[], $19::int[], $20::text[], $21::int[])
         AS t(u, o, k, sl, el, cs, ce, cf, ct, content, ty, sn, st, ps, ex, pa, w, sf, stt, ids, sq)`,
    columns(chunks, [
      (x) => x.unit,
      (x) => x.ord,
      (x) => String(x.c.chunkKey),
      (x) => x.c.startLine,
      (x) => x.c.endLine,
      (x) => x.c.contentStart,
      (x) => x.c.contentEnd,
      (x) => x.c.cutFrom,
      (x) => x.c.cutTo,
      (x) => x.c.content,
      (x) => x.c.type,
      (x) => x.c.symbolName,
      (x) => x.c.symbolTail,
      (x) => x.c.parentSymbol,
      (x) => x.c.isExported,
      (x) => x.c.part,
      (x) => x.words,
      (x) => x.search?.from ?? null,
      (x) => x.search?.to ?? null,
      (x) => x.search?.identifiers ?? null,
      (x) => x.c.seq,
    ]),
  );
  const heritage = own.flatMap((b) => b.rows.heritage.map((h, ord) => ({ unit: b.unit, ord, h })));
  await pg.query(
    "INSERT INTO mast.unit_heritage SELECT * FROM unnest($1::bytea[], $2::int[], $3::text[], $4::text[], $5::text[])",
    columns(heritage, [(x) => x.unit, (x) => x.ord, (x) => x.h.className, (x) => x.h.relation, (x) => x.h.target]),
  );
  return { count: own.length, bytes: own.reduce((n, b) => n + b.source.length, 0) };
}

/** A chunk's search words as the SQLite index has them: its text, the words inside its compound identifiers, its name's words. */
function searchWords(path: string, c: FileRows["chunks"][number], lines: readonly string[]): string {
  const inFile: ChunkLines = { line: (_, n) => lines[n - 1] ?? null, text: (_, first, last) => lines.slice(first - 1, last).join("\n") };
  const text = chunkContent({ ...c, path }, inFile) ?? "";
  const clipped = text.length > MAX_WORDS_CHARS ? text.slice(0, MAX_WORDS_CHARS) : text;
  // Punctuation apart, so PostgreSQL's parser reads `this.repo.find` as three words rather than one host name.
  return `${clipped.replace(CODE_PUNCTUATION, " ")}\n${identifierParts(clipped)}\n${c.symbolName === null ? "" : splitTerms(c.symbolName).join(" ")}`;
}

/** Phase 2: the snapshot's rows and the flip, in one transaction. */
async function writeSnapshot(
  pg: PgSession,
  rows: IndexRows,
  units: readonly Buffer[],
  repositoryId: number,
  request: PublishRequest,
  digest: string,
): Promise<{ snapshot: number; unchanged: boolean; active: boolean }> {
  return pg.transaction(async () => {
    const sourceBytes = rows.files.reduce((n, f) => n + f.size, 0);
    const made = await pg.query<{ id: string }>(
      `INSERT INTO mast.snapshots(repository_id, commit, tree_digest, index_identity, file_count, symbol_count, edge_count, source_bytes, index_meta)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (repository_id, commit) DO NOTHING RETURNING id`,
      [
        repositoryId,
        request.commit,
        digest,
        request.identity,
        rows.files.length,
        rows.symbolCount,
        rows.edges.length,
        sourceBytes,
        JSON.stringify({ ...rows.meta, ...(request.packages === undefined ? {} : { [PACKAGES_META]: JSON.stringify(request.packages) }) }),
      ],
    );
    // Another publisher of the same commit got there first (this insert waited for its commit).
    if (made.length === 0) return (await existingSnapshot(pg, repositoryId, request.commit, digest))!;
    const snapshot = made[0]!.id;
    const files = rows.files.map((f, i) => ({ f, unit: units[i]! }));
    await insertRows(pg, "INSERT INTO mast.snapshot_files SELECT $1::bigint, * FROM unnest($2::int[], $3::text[], $4::bytea[])", snapshot, files, [(x) => x.f.id, (x) => x.f.path, (x) => x.unit]);
    const ords = new Map<number, number>();
    const imports = rows.imports.map((i) => ({ i, ord: ords.set(i.fileId, (ords.get(i.fileId) ?? -1) + 1).get(i.fileId)! }));
    await insertRows(
      pg,
      "INSERT INTO mast.snapshot_imports SELECT $1::bigint, * FROM unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::bool[], $10::int[])",
      snapshot,
      imports,
      [(x) => x.i.fileId, (x) => x.ord, (x) => x.i.module, (x) => x.i.symbols, (x) => x.i.boundAs, (x) => x.i.kind, (x) => x.i.line, (x) => x.i.isExternal, (x) => x.i.resolvedFileId],
    );
    const place = (id: number) => {
      const p = rows.symbolPlace.get(id);
      if (p === undefined) throw new Error(`the index names symbol ${id}, which it does not hold`);
      return p;
    };
    await insertRows(
      pg,
      "INSERT INTO mast.snapshot_edges SELECT $1::bigint, * FROM unnest($2::int[], $3::int[], $4::int[], $5::int[], $6::smallint[], $7::smallint[], $8::int[])",
      snapshot,
      rows.edges,
      [(e) => place(e.fromId).fileId, (e) => place(e.fromId).ord, (e) => place(e.toId).fileId, (e) => place(e.toId).ord, (e) => e.edgeType, (e) => e.resolution, (e) => e.callLine],
    );
    await insertRows(pg, "INSERT INTO mast.snapshot_re_exports SELECT $1::bigint, * FROM unnest($2::int[], $3::int[])", snapshot, rows.reExports, [(r) => r[0], (r) => r[1]]);
    await insertRows(pg, "INSERT INTO mast.snapshot_verdicts SELECT $1::bigint, * FROM unnest($2::int[], $3::int[], $4::int[], $5::int[], $6::text[])", snapshot, rows.verdicts, [
      (v) => place(v.targetId).fileId,
      (v) => place(v.targetId).ord,
      (v) => v.fileId,
      (v) => v.line,
      (v) => v.verdict,
    ]);
    // The flip: only forward, so of two publishers of one repository the snapshot made later stays active.
    const flipped = await pg.query("UPDATE mast.repositories SET active_snapshot = $2, updated_at = now() WHERE id = $1 AND (active_snapshot IS NULL OR active_snapshot < $2) RETURNING id", [
      repositoryId,
      snapshot,
    ]);
    return { snapshot: Number(snapshot), unchanged: false, active: flipped.length > 0 };
  });
}

async function insertRows<T>(pg: PgSession, sql: string, snapshot: string, items: readonly T[], pick: ReadonlyArray<(item: T) => PgValue>): Promise<void> {
  for (let i = 0; i < items.length; i += ROW_BATCH) await pg.query(sql, [snapshot, ...columns(items.slice(i, i + ROW_BATCH), pick)]);
}

/** Deletes the repository's snapshots past the newest `keep` (never the active one), then the units and blobs none names — unless a publisher is mid-way. */
async function prune(pg: PgSession, repositoryId: number, keep: number): Promise<number> {
  const gone = await pg.query(
    `DELETE FROM mast.snapshots WHERE repository_id = $1
       AND id <> coalesce((SELECT active_snapshot FROM mast.repositories WHERE id = $1), 0)
       AND id NOT IN (SELECT id FROM mast.snapshots WHERE repository_id = $1 ORDER BY id DESC LIMIT $2)
     RETURNING id`,
    [repositoryId, keep],
  );
  if (gone.length === 0) return 0;
  await pg.transaction(async () => {
    const [lock] = await pg.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS ok", [PUBLISH_LOCK]);
    if (!lock?.ok) return;
    await pg.query("DELETE FROM mast.units u WHERE NOT EXISTS (SELECT 1 FROM mast.snapshot_files f WHERE f.unit = u.hash)");
    await pg.query("DELETE FROM mast.blobs b WHERE NOT EXISTS (SELECT 1 FROM mast.units u WHERE u.blob = b.hash)");
  });
  return gone.length;
}
