// A file's rows in graph.db, written within the Store's write transaction: per-file
// delete-and-replace of its chunks (their search rows left waiting for the FTS indexes,
// search-index.ts), symbols with their texts and PARENT_OF edges, imports, call sites and
// heritage — or, for a rewrite whose link face held, its symbol rows kept in place under their
// ids — a stamp moved, a file removed; and what the transaction's file writes moved: the files
// generation to be, the totals, whether a path came or went.
import { deflate } from "../base/deflate.js";
import { hashKey, sha256 } from "../base/hash.js";
import { isTestPath } from "../base/paths.js";
import { chunkSearchWords, lineStarts, splitTerms, type ChunkSearchWords } from "../base/text.js";
import { extensionInfo } from "../lang/languages.js";
import type { Chunk, FileExtraction, ImportRecord, SymbolRecord } from "../syntax/types.js";
import type { Batchers } from "./batcher.js";
import { storedCalls, type CallSiteRow } from "./call-rows.js";
import { CHECKER_BEHIND, CHECKER_META, fileSymbolTexts, prepared, type Db, type Statement } from "./db.js";
import { EDGE, RESOLVED } from "./edge-codes.js";
import type { StampFields } from "./file-stamps.js";
import { heritageRowsOf, importNamesColumns, matchLinkFace, type LinkFaceHeritage, type LinkFaceImport, type LinkFaceSymbol } from "./link-face.js";
import { nextChunkId, SearchIndex } from "./search-index.js";
import { packedTextsOf } from "./symbol-texts.js";

/** Whether an import in the file at `path` names something outside the project, by the file's language. */
export function isExternalImport(path: string, module: string): boolean {
  return extensionInfo(path)?.spec.isExternalImport(module) ?? false;
}

/** A file as a write names it: its path, its language and the stamp of the read its rows come from. */
export interface FileMeta extends StampFields {
  readonly path: string;
  readonly language: string;
}

export interface ChunkDelta {
  readonly added: number;
  readonly removed: number;
  /**
   * Null: the file's rows were written anew. Else its symbol rows were kept where it still
   * declares them (`replaceFileRows`' `keepIds`), and these are the names whose face moved (none:
   * no other file's edges can tell the new text from the old).
   */
  readonly kept: ReadonlySet<string> | null;
}

/** The Store's file rows: written within its write transaction, which `begin` starts and `end` closes. */
export class FileRows {
  /** Rows of `files` this connection wrote (see Store.fileRowWrites). */
  fileWrites = 0;
  /** The files generation folded with every file row written in the open write transaction (see Store.filesGeneration). */
  filesChain = "";
  /** A file row came or went in the open write transaction (see Store.pathsVersion). */
  pathsMoved = false;
  /**
   * What the open write transaction's file writes moved the chunk and file totals by, or null once
   * a savepoint of it rolled back (unknown then): a commit that did not count carries the last
   * recorded totals forward by it (see CHUNK_TOTAL).
   */
  totalsMoved: { chunks: number; files: number } | null = null;
  /** The FTS indexes' waiting rows while a write transaction is open. */
  search: SearchIndex | null = null;

  constructor(
    private readonly db: Db,
    private readonly batchers: Batchers,
  ) {}

  /** A write transaction began: nothing written in it yet, the files generation `generation`. */
  begin(generation: string): void {
    this.pathsMoved = false;
    this.totalsMoved = { chunks: 0, files: 0 };
    this.filesChain = generation;
    this.search = new SearchIndex(this.db);
  }

  /** The write transaction ended (committed or rolled back). */
  end(): void {
    this.search = null;
  }

  /** A prepared statement, prepared once per connection. */
  private sql(text: string): Statement {
    return prepared(this.db, text);
  }

  /** Store.replaceFileRows: the file's rows replaced; what its chunks moved by, and whether its symbol rows were kept. */
  replace(meta: FileMeta, extraction: FileExtraction, search?: readonly ChunkSearchWords[], keepIds = false): ChunkDelta {
    const { id: fileId, inserted } = this.upsertFileRow(meta, extraction);
    const changedNames = !inserted && keepIds ? this.keepSymbolRows(fileId, extraction) : null;
    // A file row is deleted with its rows in one transaction, so a new row has none to delete; the
    // checker pass is behind either way (a new file's calls are unchecked too).
    const removed = inserted ? 0 : this.deleteFileContents(fileId, changedNames !== null);
    this.markCheckerBehind();
    this.insertChunks(fileId, extraction.chunks, search);
    if (changedNames === null) {
      this.insertSymbols(fileId, extraction.symbols);
      this.insertImports(fileId, meta.path, extraction.imports);
      this.insertHeritage(fileId, extraction.heritage);
    }
    this.insertCalls(fileId, extraction);
    return { added: extraction.chunks.length, removed, kept: changedNames };
  }

  /**
   * A rewrite that keeps the file's symbol rows where it still declares them (matchLinkFace: the
   * same name, kind and parent), when its imports and heritage read as before: those rows move to
   * the new text under their ids (so the edges other files hold into them stand), the gone ones
   * are deleted (with every edge into them), the new ones added. Returns the names whose face
   * moved (empty after an edit inside a body), or null — touching nothing — when the file must be
   * written anew.
   */
  private keepSymbolRows(fileId: number, extraction: FileExtraction): ReadonlySet<string> | null {
    const symbols = this.sql(
      "SELECT id, name, kind, parent_name AS parent, reexport_module AS module, reexport_name AS imported, alias_of AS aliasOf, return_type AS returnType, is_exported AS exported, line FROM symbols WHERE file_id = ? ORDER BY id",
    ).all(fileId) as LinkFaceSymbol[];
    const imports = this.sql("SELECT id, module, symbols, bound_as AS boundAs, kind, line FROM imports WHERE file_id = ? ORDER BY id").all(fileId) as LinkFaceImport[];
    const heritage = this.sql("SELECT class_name AS className, relation, target FROM heritage WHERE file_id = ? ORDER BY rowid").all(fileId) as LinkFaceHeritage[];
    const texts = fileSymbolTexts(this.db, fileId);
    const signatures = symbols.map((r) => texts(r.id).signature);
    const match = matchLinkFace({ symbols, signatures, imports, heritage }, extraction);
    if (match === null) return null;
    const moveImport = this.sql("UPDATE imports SET line = ? WHERE id = ?");
    extraction.imports.forEach((im, i) => {
      if (im.line !== imports[i]!.line) moveImport.run(im.line, imports[i]!.id);
    });
    // The checker's verdicts on calls into the file, and its edges either way, were made against
    // the old text: they go as the symbols' deletion would have taken them.
    const ofFile = "(SELECT id FROM symbols WHERE file_id = ?)";
    this.sql(`DELETE FROM checker_verdicts WHERE target_id IN ${ofFile}`).run(fileId);
    this.sql(`DELETE FROM edges WHERE resolution = ${RESOLVED.checker} AND from_id IN ${ofFile}`).run(fileId);
    this.sql(`DELETE FROM edges WHERE resolution = ${RESOLVED.checker} AND to_id IN ${ofFile}`).run(fileId);
    const keptIds = new Set(match.keeps.flatMap((j) => (j === null ? [] : [symbols[j]!.id])));
    const gone = symbols.filter((r) => !keptIds.has(r.id)).map((r) => r.id);
    if (gone.length > 0) this.sql("DELETE FROM symbols WHERE id IN (SELECT value FROM json_each(?))").run(JSON.stringify(gone));
    // Its classes' PARENT_OF edges and its texts are written again with the rows.
    this.sql(`DELETE FROM edges WHERE edge_type = ${EDGE.PARENT_OF} AND from_id IN ${ofFile}`).run(fileId);
    this.sql("DELETE FROM symbol_texts WHERE file_id = ?").run(fileId);
    let next = match.keeps.some((j) => j === null) ? this.nextId("symbols") : 0;
    const ids = match.keeps.map((j) => (j === null ? next++ : symbols[j]!.id));
    this.writeSymbolRows(fileId, extraction.symbols, ids, keptIds);
    return match.changedNames;
  }

  /** Store.touchFile: only the file's stamp moves. */
  touch(meta: Omit<FileMeta, "language">): void {
    this.wroteFileRow(["touched", meta.path, meta.mtime, meta.size, meta.ino, meta.ctime, meta.contentHash, meta.statClean]);
    this.sql("UPDATE files SET mtime = ?, size = ?, ino = ?, ctime = ?, content_hash = ?, stat_clean = ? WHERE path = ?").run(
      meta.mtime,
      meta.size,
      meta.ino,
      meta.ctime,
      meta.contentHash,
      meta.statClean ? 1 : 0,
      meta.path,
    );
  }

  /** Store.removeFileRows: the file and everything derived from it removed; how many chunks went. */
  remove(path: string): number {
    const row = this.sql("SELECT id, chunk_rows AS chunks FROM files WHERE path = ?").get(path) as { id: number; chunks: number } | undefined;
    if (!row) return 0;
    if (this.totalsMoved !== null) {
      this.totalsMoved.chunks -= row.chunks;
      this.totalsMoved.files--;
    }
    const removed = this.deleteFileContents(row.id);
    this.markCheckerBehind();
    this.sql("DELETE FROM files WHERE id = ?").run(row.id);
    this.sql("DELETE FROM path_words WHERE rowid = ?").run(row.id);
    this.wroteFileRow(["removed", path]);
    this.pathsMoved = true;
    return removed;
  }

  /** Counts a file row written (or removed) and folds `record` of it into the files generation to be. */
  wroteFileRow(record: readonly unknown[]): void {
    this.fileWrites++;
    this.filesChain = sha256(`${this.filesChain}\n${JSON.stringify(record)}`);
  }

  /** The file's row, updated or inserted (`inserted`: it had none). */
  private upsertFileRow(meta: FileMeta, extraction: FileExtraction): { id: number; inserted: boolean } {
    const existing = this.sql("SELECT id, chunk_rows AS chunks FROM files WHERE path = ?").get(meta.path) as { id: number; chunks: number } | undefined;
    const symbolRows = extraction.symbols.reduce((n, s) => (s.kind === "module" ? n : n + 1), 0);
    const values = [
      meta.language,
      meta.mtime,
      meta.size,
      meta.ino,
      meta.ctime,
      meta.contentHash,
      meta.statClean ? 1 : 0,
      extraction.lineCount,
      extraction.hasSyntaxErrors ? 1 : 0,
      isTestPath(meta.path) ? 1 : 0,
      extraction.chunks.length,
      symbolRows,
    ];
    this.wroteFileRow(["written", meta.path, existing?.id ?? null, ...values]);
    if (this.totalsMoved !== null) {
      this.totalsMoved.chunks += extraction.chunks.length - (existing?.chunks ?? 0);
      if (!existing) this.totalsMoved.files++;
    }
    if (existing) {
      this.sql(
        "UPDATE files SET language = ?, mtime = ?, size = ?, ino = ?, ctime = ?, content_hash = ?, stat_clean = ?, line_count = ?, has_syntax_errors = ?, is_test = ?, chunk_rows = ?, symbol_rows = ? WHERE id = ?",
      ).run(...values, existing.id);
      return { id: existing.id, inserted: false };
    }
    const info = this.sql(
      "INSERT INTO files(path, language, mtime, size, ino, ctime, content_hash, stat_clean, line_count, has_syntax_errors, is_test, chunk_rows, symbol_rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(meta.path, ...values);
    this.pathsMoved = true;
    const id = Number(info.lastInsertRowid);
    this.sql("INSERT INTO path_words(rowid, words) VALUES (?, ?)").run(id, pathWordsOf(meta.path));
    return { id, inserted: true };
  }

  /** Deletes a file's derived rows (but its symbols, imports and heritage when they were `kept`: keepSymbolRows wrote them); returns how many chunks went. */
  private deleteFileContents(fileId: number, kept = false): number {
    const chunks = this.sql("SELECT id FROM chunks WHERE file_id = ?").pluck().all(fileId) as number[];
    const s = this.search;
    if (!s) throw new Error("a file's rows were replaced outside a write transaction");
    s.drop(chunks);
    this.sql("DELETE FROM chunks WHERE file_id = ?").run(fileId);
    if (!kept) {
      this.sql("DELETE FROM symbols WHERE file_id = ?").run(fileId);
      this.sql("DELETE FROM symbol_texts WHERE file_id = ?").run(fileId);
      this.sql("DELETE FROM imports WHERE file_id = ?").run(fileId);
      this.sql("DELETE FROM heritage WHERE file_id = ?").run(fileId);
    }
    this.sql("DELETE FROM file_calls WHERE file_id = ?").run(fileId);
    // A verdict holds only for the content it was computed against: the file's lines wait for the next pass.
    this.sql("DELETE FROM checker_verdicts WHERE file_id = ?").run(fileId);
    return chunks.length;
  }

  /** Marks the checker pass behind the index (when one has run): a file's rows changed. */
  private markCheckerBehind(): void {
    // Read first: inside an index run's transaction a write statement costs ~38 µs even when it
    // writes nothing (theia: 136 ms of the writer's time, once per file), a read ~1 µs.
    if (this.sql("SELECT 1 FROM meta WHERE key = ?").pluck().get(CHECKER_META) === undefined) return;
    this.sql("INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO NOTHING").run(CHECKER_BEHIND);
  }

  private nextId(table: "chunks" | "symbols"): number {
    if (table === "chunks") return nextChunkId(this.db);
    return ((this.sql(`SELECT max(id) AS m FROM ${table}`).get() as { m: number | null }).m ?? 0) + 1;
  }

  private insertChunks(fileId: number, chunks: readonly Chunk[], search: readonly ChunkSearchWords[] | undefined): void {
    let id = this.nextId("chunks");
    const rows: unknown[][] = [];
    const s = this.search;
    if (!s) throw new Error("a file's rows were written outside a write transaction");
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!;
      // The file's own text is kept as its place in the file; a class outline's, which no file holds, as text.
      const place =
        c.inFile === null ? [c.contentStartLine + lineStarts(c.content).length - 1, null, null, deflate(c.content)] : [c.inFile.endLine, c.inFile.cut?.[0] ?? null, c.inFile.cut?.[1] ?? null, null];
      rows.push([
        id,
        hashKey(c.chunkId),
        fileId,
        c.startLine,
        c.endLine,
        c.contentStartLine,
        ...place,
        c.chunkType,
        c.symbolName,
        symbolTail(c.symbolName),
        c.parentSymbol,
        c.isExported ? 1 : 0,
        c.part,
      ]);
      const searched = c.content.slice(c.searchStart, c.searchEnd);
      const [parts, nameTerms] = search?.[i] ?? chunkSearchWords(searched, c.symbolName);
      s.add(id, [searched, parts, c.identifiers.join(" "), nameTerms]);
      id++;
    }
    this.batchers
      .get("chunks", [
        "id",
        "chunk_key",
        "file_id",
        "start_line",
        "end_line",
        "content_start_line",
        "content_end_line",
        "cut_from",
        "cut_to",
        "content",
        "chunk_type",
        "symbol_name",
        "symbol_tail",
        "parent_symbol",
        "is_exported",
        "part",
      ])
      .insert(rows);
  }

  private insertSymbols(fileId: number, symbols: readonly SymbolRecord[]): void {
    const first = this.nextId("symbols");
    this.writeSymbolRows(
      fileId,
      symbols,
      symbols.map((_, i) => first + i),
      new Set(),
    );
  }

  /**
   * Writes a file's symbols under the given ids — a new row each, or the row `existing` says the
   * file keeps, updated — with their texts and the PARENT_OF edges from each class to its methods.
   */
  private writeSymbolRows(fileId: number, symbols: readonly SymbolRecord[], ids: readonly number[], existing: ReadonlySet<number>): void {
    const rows: unknown[][] = [];
    const update =
      existing.size > 0
        ? this.sql("UPDATE symbols SET line = ?, end_line = ?, is_exported = ?, has_body = ?, reexport_module = ?, reexport_name = ?, alias_of = ?, return_type = ? WHERE id = ?")
        : null;
    const classIds = new Map<string, number>();
    const edges: unknown[][] = [];
    symbols.forEach((s, i) => {
      const id = ids[i]!;
      const columns = [s.line, s.endLine, s.isExported ? 1 : 0, s.hasBody ? 1 : 0, s.reExport?.module ?? null, s.reExport?.importedName ?? null, s.aliasOf, s.returnType];
      if (existing.has(id)) update!.run(...columns, id);
      else rows.push([id, s.name, s.name.includes(".") ? s.name.slice(s.name.lastIndexOf(".") + 1) : null, s.kind, fileId, s.parent, ...columns]);
      if (s.kind === "class" && !classIds.has(s.name)) classIds.set(s.name, id);
      if (s.kind === "method" && s.parent !== null) {
        const parentId = classIds.get(s.parent);
        if (parentId !== undefined) edges.push([parentId, id, EDGE.PARENT_OF]);
      }
    });
    this.batchers
      .get("symbols", ["id", "name", "tail", "kind", "file_id", "parent_name", "line", "end_line", "is_exported", "has_body", "reexport_module", "reexport_name", "alias_of", "return_type"])
      .insert(rows);
    if (symbols.length > 0) {
      // Kept rows and new ones can leave the ids out of one run: then they are listed.
      const contiguous = ids.every((id, i) => id === ids[0]! + i);
      this.sql("INSERT INTO symbol_texts(file_id, first_id, ids, texts) VALUES (?, ?, ?, ?)").run(fileId, ids[0]!, contiguous ? null : JSON.stringify(ids), packedTextsOf(symbols));
    }
    this.batchers.get("edges", ["from_id", "to_id", "edge_type"], "INSERT OR IGNORE").insert(edges);
  }

  private insertImports(fileId: number, path: string, imports: readonly ImportRecord[]): void {
    const rows = imports.map((i) => {
      // Four imports in five bind each name as itself: stored as nothing (schema.sql's `locals` gives them back).
      const { symbols, boundAs } = importNamesColumns(i.names, i.locals);
      return [fileId, i.module, symbols, boundAs, i.kind, i.line, isExternalImport(path, i.module) ? 1 : 0];
    });
    this.batchers.get("imports", ["file_id", "module", "symbols", "bound_as", "kind", "line", "is_external"]).insert(rows);
  }

  private insertCalls(fileId: number, extraction: FileExtraction): void {
    const sites: CallSiteRow[] = extraction.calls.map((c) => {
      const r = c.receiver;
      const receiverName =
        r.kind === "typed" ? r.typeName : r.kind === "namespace" ? r.local : r.kind === "returned" ? r.producer : r.kind === "fixture" ? r.name : r.kind === "bare" ? null : r.className;
      return { line: c.line, caller: c.caller, callee: c.callee, receiver: r.kind, receiverName, resolution: r.kind === "typed" ? r.resolution : null, isNew: c.isNew ? 1 : 0 };
    });
    // In line order (a stable sort: sites on one line keep the extractor's order).
    sites.sort((a, b) => a.line - b.line);
    if (sites.length > 0) this.sql("INSERT INTO file_calls(file_id, calls) VALUES (?, ?)").run(fileId, storedCalls(sites));
  }

  private insertHeritage(fileId: number, heritage: FileExtraction["heritage"]): void {
    this.batchers.get("heritage", ["file_id", "class_name", "relation", "target"]).insert(heritageRowsOf(heritage).map((h) => [fileId, h.className, h.relation, h.target]));
  }
}

/** A path's words as path_words holds them: its directories and stem (the extension left out), split as identifiers. */
export function pathWordsOf(path: string): string {
  return splitTerms(path.replace(/\.[^./]+$/, "")).join(" ");
}

/** The lower-cased last '.'-segment of a symbol name: `AuthService.validate` → `validate`. */
export function symbolTail(name: string | null): string | null {
  if (name === null) return null;
  return name.slice(name.lastIndexOf(".") + 1).toLowerCase();
}
