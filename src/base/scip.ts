// SCIP ingestion (precision `semantic`): a minimal protobuf reader for the fields of scip.proto the
// structural index uses — Index.metadata.tool_info, Index.documents; Document.relative_path,
// language, occurrences, symbols; Occurrence.range, symbol, symbol_roles, enclosing_range;
// SymbolInformation.symbol, kind, display_name, enclosing_symbol — and the symbol grammar's
// descriptor suffixes (`m().` a method, `T#` a type, `v.` a term). Pure: bytes in, data out; a
// malformed index throws a ScipError the build records as a failed (deferred) attachment.

export class ScipError extends Error {}

export interface ScipOccurrence {
  /** 0-based [startLine, startChar, endLine, endChar]. */
  readonly range: readonly [number, number, number, number];
  readonly symbol: string;
  readonly roles: number;
  readonly enclosing: readonly [number, number, number, number] | null;
}

export interface ScipSymbolInfo {
  readonly symbol: string;
  readonly kind: number;
  readonly displayName: string;
}

export interface ScipDocument {
  readonly path: string;
  readonly language: string;
  readonly occurrences: readonly ScipOccurrence[];
  readonly symbols: readonly ScipSymbolInfo[];
}

export interface ScipIndex {
  readonly tool: { readonly name: string; readonly version: string };
  readonly projectRoot: string;
  readonly documents: readonly ScipDocument[];
}

/** SymbolRole bits. */
export const SCIP_ROLE = { definition: 1, import: 2, writeAccess: 4, readAccess: 8 } as const;

class Reader {
  pos = 0;
  constructor(
    readonly buf: Uint8Array,
    readonly end = buf.length,
  ) {}

  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.end) throw new ScipError("truncated varint");
      const b = this.buf[this.pos++]!;
      if (shift < 49) result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw new ScipError("varint too long");
    }
  }

  bytes(): Reader {
    const len = this.varint();
    if (this.pos + len > this.end) throw new ScipError("truncated field");
    const sub = new Reader(this.buf, this.pos + len);
    sub.pos = this.pos;
    this.pos += len;
    return sub;
  }

  string(): string {
    const sub = this.bytes();
    return new TextDecoder().decode(this.buf.subarray(sub.pos, sub.end));
  }

  /** Skips a field of `wire` type. */
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new ScipError(`unsupported wire type ${wire}`);
    if (this.pos > this.end) throw new ScipError("truncated field");
  }

  /** Each field of the message: its number, wire type, and the reader positioned at its value. */
  *fields(): Generator<[number, number]> {
    while (this.pos < this.end) {
      const tag = this.varint();
      yield [Math.floor(tag / 8), tag & 7];
    }
  }

  /** A repeated int32: packed (wire 2) or one value (wire 0). */
  int32s(wire: number, into: number[]): void {
    if (wire === 2) {
      const sub = this.bytes();
      while (sub.pos < sub.end) into.push(sub.varint() | 0);
    } else into.push(this.varint() | 0);
  }
}

function range(values: number[]): [number, number, number, number] | null {
  if (values.length === 3) return [values[0]!, values[1]!, values[0]!, values[2]!];
  if (values.length === 4) return [values[0]!, values[1]!, values[2]!, values[3]!];
  return null;
}

function occurrence(r: Reader): ScipOccurrence | null {
  const rng: number[] = [];
  const enc: number[] = [];
  let symbol = "";
  let roles = 0;
  for (const [field, wire] of r.fields()) {
    if (field === 1) r.int32s(wire, rng);
    else if (field === 2 && wire === 2) symbol = r.string();
    else if (field === 3 && wire === 0) roles = r.varint();
    else if (field === 7) r.int32s(wire, enc);
    else r.skip(wire);
  }
  const at = range(rng);
  return at && symbol !== "" ? { range: at, symbol, roles, enclosing: range(enc) } : null;
}

function symbolInfo(r: Reader): ScipSymbolInfo {
  let symbol = "";
  let kind = 0;
  let displayName = "";
  for (const [field, wire] of r.fields()) {
    if (field === 1 && wire === 2) symbol = r.string();
    else if (field === 5 && wire === 0) kind = r.varint();
    else if (field === 6 && wire === 2) displayName = r.string();
    else r.skip(wire);
  }
  return { symbol, kind, displayName };
}

function document(r: Reader): ScipDocument {
  let path = "";
  let language = "";
  const occurrences: ScipOccurrence[] = [];
  const symbols: ScipSymbolInfo[] = [];
  for (const [field, wire] of r.fields()) {
    if (field === 1 && wire === 2) path = r.string();
    else if (field === 2 && wire === 2) {
      const o = occurrence(r.bytes());
      if (o) occurrences.push(o);
    } else if (field === 3 && wire === 2) symbols.push(symbolInfo(r.bytes()));
    else if (field === 4 && wire === 2) language = r.string();
    else r.skip(wire);
  }
  if (path === "") throw new ScipError("a document without relative_path");
  return { path, language, occurrences, symbols };
}

/** Decodes a SCIP index (scip.proto's `Index`). */
export function decodeScip(bytes: Uint8Array): ScipIndex {
  const r = new Reader(bytes);
  let tool = { name: "", version: "" };
  let projectRoot = "";
  const documents: ScipDocument[] = [];
  for (const [field, wire] of r.fields()) {
    if (field === 1 && wire === 2) {
      const m = r.bytes();
      for (const [mf, mw] of m.fields()) {
        if (mf === 2 && mw === 2) {
          const t = m.bytes();
          for (const [tf, tw] of t.fields()) {
            if (tf === 1 && tw === 2) tool = { ...tool, name: t.string() };
            else if (tf === 2 && tw === 2) tool = { ...tool, version: t.string() };
            else t.skip(tw);
          }
        } else if (mf === 3 && mw === 2) projectRoot = m.string();
        else m.skip(mw);
      }
    } else if (field === 2 && wire === 2) documents.push(document(r.bytes()));
    else r.skip(wire);
  }
  return { tool, projectRoot, documents };
}

// ---- the symbol grammar (`scheme manager package version descriptors`) ----

type DescriptorKind = "method" | "type" | "term" | "namespace" | "macro" | "parameter" | "type-parameter" | "meta";

/**
 * What a SCIP symbol's last descriptor says it is, its name, the descriptor before it (the owner)
 * and the dotted path of its non-namespace descriptors; null for locals, parameters, type
 * parameters, meta descriptors, namespaces and unparsable symbols.
 */
export function scipDescriptor(symbol: string): { kind: "method" | "type" | "term" | "macro"; name: string; owner: string | null; path: string } | null {
  if (symbol.startsWith("local ")) return null;
  const parts = symbol.split(" ");
  if (parts.length < 5) return null;
  const descriptors = parts.slice(4).join(" ");
  const re = /(`(?:[^`]|``)*`|[^\s`/#.:!()[\]]+)(\([^)]*\)\.|[#./:!])|\[([^\]]*)\]|\(([^)]*)\)/g;
  const list: { kind: DescriptorKind; name: string }[] = [];
  for (const m of descriptors.matchAll(re)) {
    if (m[3] !== undefined) list.push({ kind: "type-parameter", name: m[3] });
    else if (m[4] !== undefined) list.push({ kind: "parameter", name: m[4] });
    else {
      const name = m[1]!.replace(/^`|`$/g, "").replace(/``/g, "`");
      const suffix = m[2]!;
      list.push({ kind: suffix.startsWith("(") ? "method" : suffix === "#" ? "type" : suffix === "." ? "term" : suffix === "/" ? "namespace" : suffix === "!" ? "macro" : "meta", name });
    }
  }
  const last = list.at(-1);
  if (!last || (last.kind !== "method" && last.kind !== "type" && last.kind !== "term" && last.kind !== "macro")) return null;
  const named = list.filter((d) => d.kind !== "namespace");
  const owner = named.length > 1 ? named[named.length - 2]!.name : null;
  return { kind: last.kind, name: last.name, owner, path: named.map((d) => d.name).join(".") };
}
