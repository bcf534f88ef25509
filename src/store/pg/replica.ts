// A published snapshot as a local replica (docs/organisation.md#serving-from-the-store): its files
// written into a fresh tree from their blobs and its rows into a fresh graph.db, so the one query
// layer answers from it exactly as from the index that was published. The inverse of
// store/pg/index-rows.ts: files keep their ids, each file's symbols, chunks and heritage come in
// their published order (symbols and chunks numbered in file and `ord` order), edges and verdicts
// find their symbols by (file, ord), and the full-text indexes are fed the search input the
// publish carried (the searched range of each chunk's text and its identifiers; a unit published
// before carried none is indexed from its whole text: counted as `approximate_chunks`).
//
// The store's rows are not trusted: a path that is not a plain relative one, a blob whose bytes do
// not hash to its name or a symbol reference to nothing refuses the replica (STORE_DAMAGED), and
// nothing is written outside the tree and the database the caller names, both of which must not
// exist yet (the caller builds them in a directory of its own and renames it into place).
import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { sha256 } from "../../base/hash.js";
import { MastError } from "../../base/errors.js";
import { chunkSearchWords, decodeSource } from "../../base/text.js";
import { chunkContent, type ChunkLines } from "../chunk-text.js";
import { PACKAGES_META, prepared, type Db } from "../db.js";
import { pathWordsOf } from "../file-rows.js";
import { SearchIndex } from "../search-index.js";
import { packSymbolTexts } from "../symbol-texts.js";
import type { PgSession } from "./client.js";
import { INDEX_META_KEYS } from "./index-rows.js";

/** Files read from the store per round (their blobs and rows), and their bytes at most. */
const FILE_BATCH = 500;
const BATCH_BYTES = 32 * 1024 * 1024;
/** The largest file a replica takes: far over any index's size cap (a larger blob is not what mast wrote). */
const MAX_BLOB_BYTES = 256 * 1024 * 1024;
/** A code identifier in text: what a unit published without its identifiers is indexed by. */
const IDENTIFIER = /[\p{L}_$][\p{L}\p{N}_$]*/gu;

export interface ReplicaCounts {
  readonly files: number;
  readonly symbols: number;
  readonly chunks: number;
  readonly edges: number;
  /** Chunks whose unit carried no search input, indexed from their whole text. */
  readonly approximate_chunks: number;
}

interface FileEntry {
  readonly id: number;
  readonly path: string;
  readonly unit: Buffer;
  readonly blob: Buffer;
  readonly language: string;
  readonly line_count: number;
  readonly has_syntax_errors: boolean;
  readonly is_test: boolean;
  readonly calls: Buffer | null;
  /** Its blob's bytes (PostgreSQL's bigint as text), null when the blob is missing. */
  readonly size: string | null;
}

/** A path as a store may name a file: relative, `/`-separated, no empty, `.` or `..` segment, no NUL or backslash. */
export function isPlainRelativePath(path: string): boolean {
  if (path.length === 0 || path.length > 4096 || path.startsWith("/") || /[\0\\]/.test(path)) return false;
  return path.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}

function damaged(what: string): MastError {
  return new MastError("STORE_DAMAGED", `the published snapshot cannot be read: ${what}`, { hint: "Publish the repository again (`mast publish`); the snapshot's rows are not what mast wrote." });
}

/**
 * Writes snapshot `snapshot` of the store into `tree` (its files) and `db` (an open, empty graph.db
 * with the schema in place), in one SQLite transaction, reading the store in one REPEATABLE READ
 * transaction: a prune deleting the snapshot meanwhile is seen whole or not at all
 * (SnapshotGone: the snapshot is not in the store).
 */
export async function writeReplica(pg: PgSession, snapshot: string, tree: string, db: Db): Promise<ReplicaCounts> {
  await pg.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    const counts = await readInto(pg, snapshot, tree, db);
    await pg.query("COMMIT");
    return counts;
  } catch (err) {
    await pg.query("ROLLBACK").catch(() => {});
    throw localFailure(err);
  }
}

/** What a replica's own writes refuse (two paths as a file and a directory, a name too long, a row naming a file the snapshot lacks) said as STORE_DAMAGED; anything else as it is. */
function localFailure(err: unknown): unknown {
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  if (["EEXIST", "ENOTDIR", "EISDIR", "ENAMETOOLONG"].includes(code) || code.startsWith("SQLITE_CONSTRAINT")) return damaged(`its rows cannot be written as a tree and an index (${code})`);
  return err;
}

/** Thrown when the snapshot asked for is not in the store (pruned since it was listed). */
export class SnapshotGone extends Error {}

async function readInto(pg: PgSession, snapshot: string, tree: string, db: Db): Promise<ReplicaCounts> {
  const [meta] = await pg.query<{ index_meta: Record<string, string> | null }>("SELECT index_meta FROM mast.snapshots WHERE id = $1", [snapshot]);
  if (meta === undefined) throw new SnapshotGone(`snapshot ${snapshot} is not in the store`);
  const files = await pg.query<FileEntry>(
    `SELECT f.file AS id, f.path, f.unit, u.blob, octet_length(b.content)::bigint AS size, u.language, u.line_count, u.has_syntax_errors, u.is_test, u.calls
       FROM mast.snapshot_files f JOIN mast.units u ON u.hash = f.unit LEFT JOIN mast.blobs b ON b.hash = u.blob WHERE f.snapshot = $1 ORDER BY f.file`,
    [snapshot],
  );
  for (const f of files) {
    if (!isPlainRelativePath(f.path)) throw damaged(`a file path that is not a plain relative one (${JSON.stringify(f.path.slice(0, 200))})`);
    if (f.size === null || Number(f.size) > MAX_BLOB_BYTES) throw damaged(`the bytes of ${f.path} are missing or over ${MAX_BLOB_BYTES} bytes`);
  }
  const symbolIds = new Map<string, number>();
  const counts = { files: 0, symbols: 0, chunks: 0, edges: 0, approximate_chunks: 0 };
  db.exec("BEGIN IMMEDIATE");
  try {
    const search = new SearchIndex(db);
    let nextSymbol = 1;
    let nextChunk = 1;
    for (let i = 0; i < files.length; ) {
      const batch: FileEntry[] = [];
      for (let bytes = 0; i < files.length && batch.length < FILE_BATCH && bytes < BATCH_BYTES; i++) {
        batch.push(files[i]!);
        bytes += Number(files[i]!.size);
      }
      const rows = await unitRows(pg, batch);
      for (const f of batch) {
        const bytes = rows.blobs.get(f.blob.toString("hex"));
        if (bytes === undefined || sha256(bytes) !== f.blob.toString("hex")) throw damaged(`the bytes of ${f.path} are missing or do not hash to their name`);
        const absolute = join(tree, f.path);
        mkdirSync(dirname(absolute), { recursive: true });
        writeFileSync(absolute, bytes, { flag: "wx" });
        const unit = f.unit.toString("hex");
        // Ids in the file's own order (`seq`; `ord` for a unit published without it): ties between rows on one line follow it.
        const symbols = inFileOrder(rows.symbols.get(unit) ?? []);
        const chunks = inFileOrder(rows.chunks.get(unit) ?? []);
        writeFileRow(db, f, lstatSync(absolute), symbols, chunks.length);
        const firstSymbol = nextSymbol;
        for (const s of symbols) symbolIds.set(`${f.id}:${s.ord}`, nextSymbol++);
        writeSymbols(db, f.id, firstSymbol, symbols);
        const decoded = decodeSource(bytes);
        const lines = decoded.kind === "text" ? decoded.text.split("\n") : [];
        const inFile: ChunkLines = { line: (_, n) => lines[n - 1] ?? null, text: (_, first, last) => lines.slice(first - 1, last).join("\n") };
        for (const c of chunks) {
          const id = nextChunk++;
          counts.approximate_chunks += writeChunk(db, search, id, f, c, inFile) ? 0 : 1;
        }
        const insertHeritage = prepared(db, "INSERT INTO heritage(file_id, class_name, relation, target) VALUES (?, ?, ?, ?)");
        for (const h of rows.heritage.get(unit) ?? []) insertHeritage.run(f.id, h.class_name, h.relation, h.target);
        if (f.calls !== null) prepared(db, "INSERT INTO file_calls(file_id, calls) VALUES (?, ?)").run(f.id, f.calls);
        counts.files++;
        counts.symbols += symbols.length;
        counts.chunks += chunks.length;
      }
    }
    search.index();
    counts.edges = await writeSnapshotRows(pg, db, snapshot, (file, ord) => {
      const id = symbolIds.get(`${file}:${ord}`);
      if (id === undefined) throw damaged(`a row names symbol ${ord} of file ${file}, which the snapshot does not hold`);
      return id;
    });
    const setMeta = prepared(db, "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    // Only the keys a publish writes: a row must not move the replica's schema version or totals.
    for (const key of [...INDEX_META_KEYS, PACKAGES_META]) {
      const value = meta.index_meta?.[key];
      if (typeof value === "string") setMeta.run(key, value);
    }
    db.exec("COMMIT");
  } catch (err) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw err;
  }
  return counts;
}

interface SymbolEntry {
  readonly ord: number;
  readonly seq: number | null;
  readonly name: string;
  readonly tail: string | null;
  readonly kind: string;
  readonly line: number;
  readonly end_line: number;
  readonly is_exported: boolean;
  readonly has_body: boolean;
  readonly parent_name: string | null;
  readonly reexport_module: string | null;
  readonly reexport_name: string | null;
  readonly alias_of: string | null;
  readonly return_type: string | null;
  readonly signature: string | null;
  readonly doc: string | null;
  readonly params: string | null;
}

interface ChunkEntry {
  readonly seq: number | null;
  readonly chunk_key: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly content_start_line: number;
  readonly content_end_line: number;
  readonly cut_from: number | null;
  readonly cut_to: number | null;
  readonly content: Buffer | null;
  readonly chunk_type: string;
  readonly symbol_name: string | null;
  readonly symbol_tail: string | null;
  readonly parent_symbol: string | null;
  readonly is_exported: boolean;
  readonly part: number;
  readonly search_from: number | null;
  readonly search_to: number | null;
  readonly identifiers: string | null;
}

/** Rows (read in `ord` order) by `seq`, else as read. */
function inFileOrder<R extends { seq: number | null }>(rows: readonly R[]): R[] {
  return rows
    .map((r, i) => [r.seq ?? i, r] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, r]) => r);
}

interface HeritageEntry {
  readonly class_name: string;
  readonly relation: string;
  readonly target: string;
}

/** A batch's blobs and its units' rows, each unit's in `ord` order. */
async function unitRows(pg: PgSession, batch: readonly FileEntry[]) {
  const units = [...new Map(batch.map((f) => [f.unit.toString("hex"), f.unit])).values()];
  const blobs = [...new Map(batch.map((f) => [f.blob.toString("hex"), f.blob])).values()];
  const byUnit = <R>(rows: Array<R & { unit: Buffer }>) => {
    const out = new Map<string, R[]>();
    for (const r of rows) {
      const key = r.unit.toString("hex");
      (out.get(key) ?? out.set(key, []).get(key)!).push(r);
    }
    return out;
  };
  return {
    blobs: new Map((await pg.query<{ hash: Buffer; content: Buffer }>("SELECT hash, content FROM mast.blobs WHERE hash = ANY($1::bytea[])", [blobs])).map((b) => [b.hash.toString("hex"), b.content])),
    symbols: byUnit(await pg.query<SymbolEntry & { unit: Buffer }>("SELECT * FROM mast.unit_symbols WHERE unit = ANY($1::bytea[]) ORDER BY unit, ord", [units])),
    chunks: byUnit(
      await pg.query<ChunkEntry & { unit: Buffer }>(
        `SELECT unit, seq, chunk_key, start_line, end_line, content_start_line, content_end_line, cut_from, cut_to, content, chunk_type, symbol_name, symbol_tail, parent_symbol,
                is_exported, part, search_from, search_to, identifiers
           FROM mast.unit_chunks WHERE unit = ANY($1::bytea[]) ORDER BY unit, ord`,
        [units],
      ),
    ),
    heritage: byUnit(await pg.query<HeritageEntry & { unit: Buffer }>("SELECT unit, class_name, relation, target FROM mast.unit_heritage WHERE unit = ANY($1::bytea[]) ORDER BY unit, ord", [units])),
  };
}

/** The file's row, stamped with the written file's stat (the replica's files are never rewritten: the stamp holds). */
function writeFileRow(db: Db, f: FileEntry, stat: { mtimeMs: number; size: number; ino: number; ctimeMs: number }, symbols: readonly SymbolEntry[], chunks: number): void {
  prepared(
    db,
    `INSERT INTO files(id, path, language, mtime, size, ino, ctime, content_hash, stat_clean, line_count, has_syntax_errors, is_test, chunk_rows, symbol_rows)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)`,
  ).run(
    f.id,
    f.path,
    f.language,
    stat.mtimeMs,
    stat.size,
    stat.ino,
    stat.ctimeMs,
    f.blob.toString("hex"),
    f.line_count,
    f.has_syntax_errors ? 1 : 0,
    f.is_test ? 1 : 0,
    chunks,
    symbols.reduce((n, s) => (s.kind === "module" ? n : n + 1), 0),
  );
  prepared(db, "INSERT INTO path_words(rowid, words) VALUES (?, ?)").run(f.id, pathWordsOf(f.path));
}

function writeSymbols(db: Db, fileId: number, first: number, symbols: readonly SymbolEntry[]): void {
  if (symbols.length === 0) return;
  const insert = prepared(
    db,
    `INSERT INTO symbols(id, name, tail, kind, file_id, line, end_line, is_exported, has_body, parent_name, reexport_module, reexport_name, alias_of, return_type)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  symbols.forEach((s, i) =>
    insert.run(first + i, s.name, s.tail, s.kind, fileId, s.line, s.end_line, s.is_exported ? 1 : 0, s.has_body ? 1 : 0, s.parent_name, s.reexport_module, s.reexport_name, s.alias_of, s.return_type),
  );
  prepared(db, "INSERT INTO symbol_texts(file_id, first_id, ids, texts) VALUES (?, ?, NULL, ?)").run(fileId, first, packSymbolTexts(symbols));
}

/** A chunk's row and its search rows; false when its unit carried no search input (indexed from its whole text). */
function writeChunk(db: Db, search: SearchIndex, id: number, f: FileEntry, c: ChunkEntry, lines: ChunkLines): boolean {
  prepared(
    db,
    `INSERT INTO chunks(id, chunk_key, file_id, start_line, end_line, content_start_line, content_end_line, cut_from, cut_to, content, chunk_type, symbol_name, symbol_tail, parent_symbol, is_exported, part)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    Number(c.chunk_key),
    f.id,
    c.start_line,
    c.end_line,
    c.content_start_line,
    c.content_end_line,
    c.cut_from,
    c.cut_to,
    c.content,
    c.chunk_type,
    c.symbol_name,
    c.symbol_tail,
    c.parent_symbol,
    c.is_exported ? 1 : 0,
    c.part,
  );
  const text = chunkContent({ path: f.path, contentStart: c.content_start_line, contentEnd: c.content_end_line, cutFrom: c.cut_from, cutTo: c.cut_to, content: c.content }, lines) ?? "";
  const exact = c.search_from !== null && c.search_to !== null && c.identifiers !== null;
  const searched = exact ? text.slice(c.search_from!, c.search_to!) : text;
  const identifiers = exact ? c.identifiers! : [...new Set(text.match(IDENTIFIER) ?? [])].join(" ");
  const [parts, nameTerms] = chunkSearchWords(searched, c.symbol_name);
  search.add(id, [searched, parts, identifiers, nameTerms]);
  return exact;
}

/** The snapshot's imports, edges, re-exports and verdicts; how many edges. */
async function writeSnapshotRows(pg: PgSession, db: Db, snapshot: string, symbolId: (file: number, ord: number) => number): Promise<number> {
  const imports = await pg.query<{ file: number; module: string; symbols: string; bound_as: string | null; kind: string; line: number; is_external: boolean; resolved_file: number | null }>(
    "SELECT file, module, symbols, bound_as, kind, line, is_external, resolved_file FROM mast.snapshot_imports WHERE snapshot = $1 ORDER BY file, ord",
    [snapshot],
  );
  const insertImport = prepared(db, "INSERT INTO imports(file_id, module, symbols, bound_as, kind, line, is_external, resolved_file_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (const i of imports) insertImport.run(i.file, i.module, i.symbols, i.bound_as, i.kind, i.line, i.is_external ? 1 : 0, i.resolved_file);
  const edges = await pg.query<{ from_file: number; from_ord: number; to_file: number; to_ord: number; edge_type: number; resolution: number | null; call_line: number | null }>(
    "SELECT from_file, from_ord, to_file, to_ord, edge_type, resolution, call_line FROM mast.snapshot_edges WHERE snapshot = $1",
    [snapshot],
  );
  const insertEdge = prepared(db, "INSERT INTO edges(from_id, to_id, edge_type, resolution, call_line) VALUES (?, ?, ?, ?, ?)");
  for (const e of edges) insertEdge.run(symbolId(e.from_file, e.from_ord), symbolId(e.to_file, e.to_ord), e.edge_type, e.resolution, e.call_line);
  const insertReExport = prepared(db, "INSERT INTO re_export_files(from_file_id, to_file_id) VALUES (?, ?)");
  for (const r of await pg.query<{ from_file: number; to_file: number }>("SELECT from_file, to_file FROM mast.snapshot_re_exports WHERE snapshot = $1", [snapshot])) {
    insertReExport.run(r.from_file, r.to_file);
  }
  const insertVerdict = prepared(db, "INSERT INTO checker_verdicts(target_id, file_id, line, verdict) VALUES (?, ?, ?, ?)");
  for (const v of await pg.query<{ target_file: number; target_ord: number; file: number; line: number; verdict: string }>(
    "SELECT target_file, target_ord, file, line, verdict FROM mast.snapshot_verdicts WHERE snapshot = $1",
    [snapshot],
  )) {
    insertVerdict.run(symbolId(v.target_file, v.target_ord), v.file, v.line, v.verdict);
  }
  return edges.length;
}
