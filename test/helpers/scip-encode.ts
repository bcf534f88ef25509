// A minimal SCIP encoder for tests: scip.proto's Index → Metadata (tool_info, project_root) and
// Documents (relative_path, language, occurrences with range, symbol, symbol_roles and
// enclosing_range; symbols with symbol and display_name), in protobuf's wire format — so a
// committed-free `.scip` of a fixture can be written in a test's set-up and ingested for real.

export interface EncodedOccurrence {
  /** 0-based [line, startChar, endChar] or [startLine, startChar, endLine, endChar]. */
  readonly range: readonly number[];
  readonly symbol: string;
  readonly roles?: number;
  readonly enclosing?: readonly number[];
}

export interface EncodedDocument {
  readonly path: string;
  readonly language: string;
  readonly occurrences: readonly EncodedOccurrence[];
  readonly symbols?: readonly { readonly symbol: string; readonly displayName: string }[];
}

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0 === n ? n : n < 0 ? 2 ** 64 + n : n;
  do {
    let b = v % 128;
    v = Math.floor(v / 128);
    if (v > 0) b |= 0x80;
    out.push(b);
  } while (v > 0);
  return out;
}

const tag = (field: number, wire: number) => varint(field * 8 + wire);
const bytesField = (field: number, bytes: readonly number[]) => [...tag(field, 2), ...varint(bytes.length), ...bytes];
const stringField = (field: number, s: string) => bytesField(field, [...Buffer.from(s, "utf8")]);
const packed = (field: number, values: readonly number[]) =>
  bytesField(
    field,
    values.flatMap((v) => varint(v)),
  );

export function encodeScip(tool: { name: string; version: string }, projectRoot: string, documents: readonly EncodedDocument[]): Buffer {
  const toolInfo = [...stringField(1, tool.name), ...stringField(2, tool.version)];
  const metadata = [...tag(1, 0), ...varint(0), ...bytesField(2, toolInfo), ...stringField(3, projectRoot)];
  const out: number[] = [...bytesField(1, metadata)];
  for (const d of documents) {
    const doc: number[] = [...stringField(4, d.language), ...stringField(1, d.path)];
    for (const o of d.occurrences) {
      const occ = [...packed(1, o.range), ...stringField(2, o.symbol), ...(o.roles ? [...tag(3, 0), ...varint(o.roles)] : []), ...(o.enclosing ? packed(7, o.enclosing) : [])];
      doc.push(...bytesField(2, occ));
    }
    for (const s of d.symbols ?? []) doc.push(...bytesField(3, [...stringField(1, s.symbol), ...stringField(6, s.displayName)]));
    out.push(...bytesField(2, doc));
  }
  return Buffer.from(out);
}
