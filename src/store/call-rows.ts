// A file's call sites as graph.db keeps them: one row per file (`file_calls`), its sites packed —
// a table of the file's strings and seven numbers per site — instead of a row per site. A
// function's name, a callee and a receiver's type recur across a file's sites; packed, each is
// written once (604,000 sites of the 95 MB bench tree: 45 MB as rows with their index, 16 as packs).
// A pack is bytes: a format byte, the strings' count and byte lengths, the strings (UTF-8), then
// per site its line (as the zigzag of the step from the site before) and six string indexes or
// flags, each a varint (55% of the JSON schema 1.19 stored, and faster to read than JSON.parse: 45
// against 78 ms for 7,500 files' packs; deflated JSON was 32% but 158 ms). graph.db keeps a pack
// deflated (base/deflate.ts: 43% of it, 116 → 50 MB at 1 GB, for ~1 s more in a whole link's
// reads). The writer stores (store/file-rows.ts), the call graph's reads unstore (store/link-inputs.ts).

import { deflate, inflateRow } from "../base/deflate.js";
import { damagedRow } from "../base/errors.js";

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

/** The first byte of a pack in this format. */
const FORMAT = 1;

/** The sites (in their order) as one pack. */
export function packCalls(sites: readonly CallSiteRow[]): Buffer {
  const strings: Buffer[] = [];
  const index = new Map<string, number>();
  const ref = (s: string | null): number => {
    if (s === null) return -1;
    let i = index.get(s);
    if (i === undefined) {
      index.set(s, (i = strings.length));
      strings.push(Buffer.from(s, "utf8"));
    }
    return i;
  };
  const numbers: number[] = [];
  let line = 0;
  for (const c of sites) {
    const step = c.line - line;
    line = c.line;
    // Zigzag: a step back (never written: sites are in line order) stays a non-negative varint; the indexes are shifted past -1.
    numbers.push(step < 0 ? -2 * step - 1 : 2 * step, ref(c.caller) + 1, ref(c.callee) + 1, ref(c.receiver) + 1, ref(c.receiverName) + 1, ref(c.resolution) + 1, c.isNew);
  }
  const head: number[] = [FORMAT];
  varint(head, strings.length);
  for (const s of strings) varint(head, s.length);
  const tail: number[] = [];
  for (const n of numbers) varint(tail, n);
  return Buffer.concat([Buffer.from(head), ...strings, Buffer.from(tail)]);
}

function varint(out: number[], value: number): void {
  let v = value;
  while (v >= 128) {
    out.push((v % 128) | 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** The sites as file_calls keeps them: their pack, deflated. */
export function storedCalls(sites: readonly CallSiteRow[]): Buffer {
  return deflate(packCalls(sites));
}

/** The sites of a file_calls row (storedCalls' bytes): bytes that do not inflate are a damaged pack too. */
export function unstoredCalls(fileId: number, stored: Uint8Array): CallRow[] {
  return unpackCalls(fileId, inflateRow(stored, `a damaged call-site pack (file ${fileId})`));
}

/** A pack's head: its format checked, its strings' byte lengths, and a reader of the varints after them (a pack cut short is refused). */
function packHead(fileId: number, buf: Buffer): { lengths: number[]; start: number; at: () => number; seek: (to: number) => void; read: () => number; bad: (why: string) => Error } {
  const bad = (why: string) => damagedRow(`a damaged call-site pack (file ${fileId}): ${why}`);
  if (buf[0] !== FORMAT) throw bad(`format ${buf[0]}`);
  let i = 1;
  const read = (): number => {
    let v = 0;
    let scale = 1;
    // A varint is at most 8 bytes here (2^53).
    for (let n = 0; n < 8 && i < buf.length; n++) {
      const b = buf[i++]!;
      v += (b & 127) * scale;
      if (b < 128) return v;
      scale *= 128;
    }
    throw bad("a number runs past its end");
  };
  const lengths = Array.from({ length: read() }, read);
  return { lengths, start: i, at: () => i, seek: (to) => void (i = to), read, bad };
}

/** A pack's strings as storedCallStrings reads them. */
export interface CallStrings {
  readonly bytes: string;
  readonly bounds: Uint8Array;
}

/**
 * The strings a file_calls row's sites write (callers, callees, receivers, their names and
 * resolutions), without reading a site: their bytes as one latin1 string (a character per byte),
 * and `bounds`, 1 where a string starts and 2 where one ends (a word may end one string and
 * the next start with a word: they are not one word).
 */
export function storedCallStrings(fileId: number, stored: Uint8Array): CallStrings {
  const buf = inflateRow(stored, `a damaged call-site pack (file ${fileId})`);
  const { lengths, start, bad } = packHead(fileId, buf);
  const total = lengths.reduce((a, b) => a + b, 0);
  if (start + total > buf.length) throw bad("a string runs past its end");
  const bounds = new Uint8Array(total + 1);
  let at = 0;
  for (const n of lengths) {
    bounds[at]! |= 1;
    at += n;
    bounds[at]! |= 2;
  }
  return { bytes: buf.toString("latin1", start, start + total), bounds };
}

/** The sites of one file's pack, in the order they were packed; a pack that is not whole (cut short, an index past its table) is refused, never misread. */
export function unpackCalls(fileId: number, stored: Uint8Array): CallRow[] {
  const buf = Buffer.isBuffer(stored) ? stored : Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const { lengths, start, at, seek, read, bad } = packHead(fileId, buf);
  let i = start;
  const strings = lengths.map((n) => {
    if (i + n > buf.length) throw bad("a string runs past its end");
    return buf.toString("utf8", i, (i += n));
  });
  seek(i);
  const str = (k: number) => {
    if (k > strings.length) throw bad("a string index past the table");
    return k === 0 ? null : strings[k - 1]!;
  };
  const out: CallRow[] = [];
  let line = 0;
  while (at() < buf.length) {
    const z = read();
    line += z % 2 === 1 ? -(z + 1) / 2 : z / 2;
    const caller = str(read());
    const callee = str(read());
    const receiver = str(read());
    if (callee === null || receiver === null) throw bad("a site without its callee or receiver");
    const receiverName = str(read());
    const resolution = str(read());
    out.push({ fileId, line, caller, callee, receiver, receiverName, resolution, isNew: read() });
  }
  return out;
}
