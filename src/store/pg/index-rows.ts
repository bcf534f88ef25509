// A project's index as `mast publish` copies it: every row of graph.db a reader of the PostgreSQL
// store needs, read in one snapshot of the SQLite store (the caller's transaction). Each file's
// symbols, chunks and heritage come in an order fixed by their content (line, then the rest), so
// the same file text at the same path gives the same rows in the same order whichever index made
// them: that order is the `ord` that content-addressed units and the edges into them share.
import type { Db } from "../db.js";
import { CHECKER_BEHIND, CHECKER_META, fileSymbolTexts } from "../db.js";

export interface IndexedFile {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly contentHash: string;
  readonly size: number;
  readonly lineCount: number;
  readonly hasSyntaxErrors: boolean;
  readonly isTest: boolean;
}

export interface SymbolRow {
  readonly id: number;
  readonly name: string;
  readonly tail: string | null;
  readonly kind: string;
  readonly line: number;
  readonly endLine: number;
  readonly isExported: boolean;
  readonly hasBody: boolean;
  readonly parentName: string | null;
  readonly reexportModule: string | null;
  readonly reexportName: string | null;
  readonly aliasOf: string | null;
  readonly returnType: string | null;
  readonly signature: string | null;
  readonly doc: string | null;
  readonly params: string | null;
  /** Its place among the file's symbols by id: the extractor's order in an index built from scratch. */
  readonly seq: number;
}

export interface ChunkRow {
  readonly chunkKey: number;
  readonly startLine: number;
  readonly endLine: number;
  readonly contentStart: number;
  readonly contentEnd: number;
  readonly cutFrom: number | null;
  readonly cutTo: number | null;
  readonly content: Buffer | null;
  readonly type: string;
  readonly symbolName: string | null;
  readonly symbolTail: string | null;
  readonly parentSymbol: string | null;
  readonly isExported: boolean;
  readonly part: number;
  /** Its place among the file's chunks by id (as SymbolRow's). */
  readonly seq: number;
}

export interface HeritageRow {
  readonly className: string;
  readonly relation: string;
  readonly target: string;
}

export interface ImportRow {
  readonly fileId: number;
  readonly module: string;
  readonly symbols: string;
  readonly boundAs: string | null;
  readonly kind: string;
  readonly line: number;
  readonly isExternal: boolean;
  readonly resolvedFileId: number | null;
}

export interface EdgeRow {
  readonly fromId: number;
  readonly toId: number;
  readonly edgeType: number;
  readonly resolution: number | null;
  readonly callLine: number | null;
}

/** One file's content-derived rows. */
export interface FileRows {
  readonly symbols: readonly SymbolRow[];
  readonly chunks: readonly ChunkRow[];
  readonly heritage: readonly HeritageRow[];
  readonly calls: Buffer | null;
}

export interface IndexRows {
  readonly files: readonly IndexedFile[];
  /** A file's own rows, read when asked (a publish reads only the files whose unit is new). */
  rowsOf(fileId: number): FileRows;
  /** Every symbol id's file and its place in that file's ordered symbols. */
  readonly symbolPlace: ReadonlyMap<number, { readonly fileId: number; readonly ord: number }>;
  readonly symbolCount: number;
  readonly imports: readonly ImportRow[];
  readonly edges: readonly EdgeRow[];
  readonly reExports: ReadonlyArray<readonly [from: number, to: number]>;
  readonly verdicts: ReadonlyArray<{ readonly targetId: number; readonly fileId: number; readonly line: number; readonly verdict: string }>;
  /** The index's meta the answers read (INDEX_META_KEYS), by key. */
  readonly meta: Readonly<Record<string, string>>;
}

/** The meta keys of graph.db a published snapshot carries: what the answers read of the checker pass. */
export const INDEX_META_KEYS: readonly string[] = [CHECKER_META, CHECKER_BEHIND];

const bool = (v: unknown) => v === 1 || v === 1n;

/** The order of a file's symbols by their content: the same text gives the same order in any index. */
const SYMBOL_ORDER =
  "line, end_line, kind, name, coalesce(parent_name, ''), coalesce(reexport_module, ''), coalesce(reexport_name, ''), coalesce(alias_of, ''), coalesce(return_type, ''), is_exported, has_body, id";

/** The index's rows, read inside the caller's read transaction (rowsOf must be called inside it too). */
export function indexRows(db: Db): IndexRows {
  const files = (
    db.prepare("SELECT id, path, language, content_hash, size, line_count, has_syntax_errors, is_test FROM files ORDER BY path").raw().all() as Array<
      [number, string, string, string, number, number, number, number]
    >
  ).map(([id, path, language, contentHash, size, lineCount, errors, isTest]) => ({ id, path, language, contentHash, size, lineCount, hasSyntaxErrors: bool(errors), isTest: bool(isTest) }));
  const symbolPlace = new Map<number, { fileId: number; ord: number }>();
  const ids = db.prepare(`SELECT id, file_id FROM symbols ORDER BY file_id, ${SYMBOL_ORDER}`).raw().all() as Array<[number, number]>;
  let ord = 0;
  let last = -1;
  for (const [id, fileId] of ids) {
    ord = fileId === last ? ord + 1 : 0;
    last = fileId;
    symbolPlace.set(id, { fileId, ord });
  }
  const symbolsOf = db.prepare(
    `SELECT id, name, tail, kind, line, end_line, is_exported, has_body, parent_name, reexport_module, reexport_name, alias_of, return_type, row_number() OVER (ORDER BY id) - 1 AS seq
       FROM symbols WHERE file_id = ? ORDER BY ${SYMBOL_ORDER}`,
  );
  const chunksOf = db.prepare(
    `SELECT row_number() OVER (ORDER BY id) - 1 AS seq, chunk_key, start_line, end_line, content_start_line, content_end_line, cut_from, cut_to, content, chunk_type, symbol_name, symbol_tail, parent_symbol, is_exported, part
       FROM chunks WHERE file_id = ? ORDER BY start_line, part, chunk_key, end_line, chunk_type, id`,
  );
  const heritageOf = db.prepare("SELECT class_name, relation, target FROM heritage WHERE file_id = ? ORDER BY class_name, relation, target");
  const callsOf = db.prepare("SELECT calls FROM file_calls WHERE file_id = ?").pluck();
  const rowsOf = (fileId: number): FileRows => {
    const texts = fileSymbolTexts(db, fileId);
    const symbols = (symbolsOf.all(fileId) as Array<Record<string, unknown>>).map((r): SymbolRow => {
      const t = texts(r["id"] as number);
      return {
        id: r["id"] as number,
        name: r["name"] as string,
        tail: r["tail"] as string | null,
        kind: r["kind"] as string,
        line: r["line"] as number,
        endLine: r["end_line"] as number,
        isExported: bool(r["is_exported"]),
        hasBody: bool(r["has_body"]),
        parentName: r["parent_name"] as string | null,
        reexportModule: r["reexport_module"] as string | null,
        reexportName: r["reexport_name"] as string | null,
        aliasOf: r["alias_of"] as string | null,
        returnType: r["return_type"] as string | null,
        signature: t.signature,
        doc: t.doc,
        params: t.params,
        seq: r["seq"] as number,
      };
    });
    const chunks = (chunksOf.all(fileId) as Array<Record<string, unknown>>).map(
      (r): ChunkRow => ({
        chunkKey: r["chunk_key"] as number,
        startLine: r["start_line"] as number,
        endLine: r["end_line"] as number,
        contentStart: r["content_start_line"] as number,
        contentEnd: r["content_end_line"] as number,
        cutFrom: r["cut_from"] as number | null,
        cutTo: r["cut_to"] as number | null,
        content: r["content"] === null ? null : Buffer.from(r["content"] as Uint8Array),
        type: r["chunk_type"] as string,
        symbolName: r["symbol_name"] as string | null,
        symbolTail: r["symbol_tail"] as string | null,
        parentSymbol: r["parent_symbol"] as string | null,
        isExported: bool(r["is_exported"]),
        part: r["part"] as number,
        seq: r["seq"] as number,
      }),
    );
    const heritage = (heritageOf.all(fileId) as Array<Record<string, string>>).map((r) => ({ className: r["class_name"]!, relation: r["relation"]!, target: r["target"]! }));
    const calls = callsOf.get(fileId) as Uint8Array | undefined;
    return { symbols, chunks, heritage, calls: calls === undefined ? null : Buffer.from(calls) };
  };
  const imports = (
    db.prepare("SELECT file_id, module, symbols, bound_as, kind, line, is_external, resolved_file_id FROM imports ORDER BY file_id, line, id").raw().all() as Array<
      [number, string, string, string | null, string, number, number, number | null]
    >
  ).map(([fileId, module, symbols, boundAs, kind, line, external, resolvedFileId]) => ({ fileId, module, symbols, boundAs, kind, line, isExternal: bool(external), resolvedFileId }));
  const edges = (db.prepare("SELECT from_id, to_id, edge_type, resolution, call_line FROM edges").raw().all() as Array<[number, number, number, number | null, number | null]>).map(
    ([fromId, toId, edgeType, resolution, callLine]) => ({ fromId, toId, edgeType, resolution, callLine }),
  );
  const reExports = db.prepare("SELECT from_file_id, to_file_id FROM re_export_files").raw().all() as Array<[number, number]>;
  const verdicts = (db.prepare("SELECT target_id, file_id, line, verdict FROM checker_verdicts").raw().all() as Array<[number, number, number, string]>).map(([targetId, fileId, line, verdict]) => ({
    targetId,
    fileId,
    line,
    verdict,
  }));
  const meta = Object.fromEntries(
    db.prepare("SELECT key, value FROM meta WHERE key IN (SELECT value FROM json_each(?)) ORDER BY key").raw().all(JSON.stringify(INDEX_META_KEYS)) as Array<[string, string]>,
  );
  return { files, rowsOf, symbolPlace, symbolCount: ids.length, imports, edges, reExports, verdicts, meta };
}
