// A file's call sites as graph.db keeps them: one row per file (`file_calls`), its sites packed as
// JSON — a table of the file's strings and seven numbers per site — instead of a row per site. A
// function's name, a callee and a receiver's type recur across a file's sites; packed, each is
// written once (604,000 sites of the 95 MB bench tree: 45 MB as rows with their index, 16 as packs).
// The writer packs (store/db.ts), the call graph's reads unpack (store/link-inputs.ts). A pack is
// stored deflated (zlib level 1: a third of the JSON's bytes, ~40 µs a file; 212 → ~70 MB at 1 GB);
// an index written before keeps its packs as JSON text, read as they are.
import { deflateRawSync, inflateRawSync } from "node:zlib";

/** One call site, as the call graph's derivation reads it. */
export interface CallRow {
  fileId: number;
  caller: string | null;
  callee: string;
  receiver: string;
  receiverName: string | null;
  resolution: string | null;
  /** 1 for `new C()` (and a class's `C()` in Python), else 0. */
  isNew: number;
  line: number;
}

/** A site as the writer hands it over: a CallRow without its file. */
export type CallSiteRow = Omit<CallRow, "fileId">;

/** Numbers per site: line, caller, callee, receiver, receiver name, resolution (string indexes, -1 for none), is-new. */
const FIELDS = 7;

/** The sites (in their order) as one JSON text, `{"strings": [...], "sites": [FIELDS numbers per site]}`, deflated. */
export function packCalls(sites: readonly CallSiteRow[]): Buffer {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const ref = (s: string | null): number => {
    if (s === null) return -1;
    let i = index.get(s);
    if (i === undefined) {
      index.set(s, (i = strings.length));
      strings.push(s);
    }
    return i;
  };
  const numbers: number[] = [];
  for (const c of sites) numbers.push(c.line, ref(c.caller), ref(c.callee), ref(c.receiver), ref(c.receiverName), ref(c.resolution), c.isNew);
  return deflateRawSync(JSON.stringify({ strings, sites: numbers }), { level: 1 });
}

/** The sites of one file's pack (deflated, or JSON text as an older index wrote it), in the order they were packed. */
export function unpackCalls(fileId: number, stored: string | Uint8Array): CallRow[] {
  const text = typeof stored === "string" ? stored : inflateRawSync(stored).toString("utf8");
  const { strings: s, sites: c } = JSON.parse(text) as { strings: string[]; sites: number[] };
  const str = (i: number) => (i === -1 ? null : s[i]!);
  const out: CallRow[] = [];
  for (let k = 0; k + FIELDS <= c.length; k += FIELDS) {
    out.push({ fileId, line: c[k]!, caller: str(c[k + 1]!), callee: s[c[k + 2]!]!, receiver: s[c[k + 3]!]!, receiverName: str(c[k + 4]!), resolution: str(c[k + 5]!), isNew: c[k + 6]! });
  }
  return out;
}
