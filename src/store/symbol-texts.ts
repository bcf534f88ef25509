// A file's symbol texts as graph.db keeps them: one `symbol_texts` row per file, its symbols'
// signatures, doc comments and packed parameters (store/param-rows.ts) in symbol-id order, as JSON
// deflated together (base/deflate.ts). A file's declarations repeat its words — its types, its
// parameter names, `self, `, `&self`, `Promise<` — so together they deflate to 27% where one row's
// ~80 characters would barely shrink (1 GB tree: 210 → 57 MB, the symbols table 384 → ~170 MB).
// The writer packs (store/file-rows.ts insertSymbols); answers read a symbol's through store/db.ts
// symbolTexts, which unpacks a file's once per connection until the data changes.

import { deflate, inflateRow } from "../base/deflate.js";
import { damagedRow, errorMessage } from "../base/errors.js";
import type { SymbolRecord } from "../syntax/types.js";
import { packParams } from "./param-rows.js";

/** What a symbol's row no longer holds itself. */
export interface SymbolTexts {
  readonly signature: string | null;
  readonly doc: string | null;
  /** store/param-rows.ts packParams' text, or null for a symbol that takes none. */
  readonly params: string | null;
}

type Row = [signature: string | null, doc: string | null, params: string | null];

/** The texts of a file's symbols, in the order their ids were given, as symbol_texts keeps them. */
export function packSymbolTexts(texts: readonly SymbolTexts[]): Buffer {
  return deflate(JSON.stringify(texts.map((t): Row => [t.signature, t.doc, t.params])));
}

/** The packed texts of a file's extracted symbols, in their order. */
export function packedTextsOf(symbols: readonly SymbolRecord[]): Buffer {
  return packSymbolTexts(symbols.map((s) => ({ signature: s.signature, doc: s.doc, params: s.params === null ? null : packParams(s.params) })));
}

/** packSymbolTexts' bytes back, each entry checked; bytes that are not its are refused, never misread. */
export function unpackSymbolTexts(fileId: number, stored: Uint8Array): SymbolTexts[] {
  const what = `damaged symbol texts (file ${fileId})`;
  const bad = (why: string) => damagedRow(`${what}: ${why}`);
  const json = inflateRow(stored, what).toString("utf8");
  let rows: unknown;
  try {
    rows = JSON.parse(json);
  } catch (err) {
    throw bad(`not JSON (${errorMessage(err)})`);
  }
  if (!Array.isArray(rows)) throw bad("not a list");
  const text = (v: unknown) => v === null || typeof v === "string";
  return rows.map((r: unknown) => {
    if (!Array.isArray(r) || r.length !== 3 || !r.every(text)) throw bad("an entry that is not [signature, doc, params]");
    const [signature, doc, params] = r as Row;
    return { signature, doc, params };
  });
}
