// Every indexed file's stamp by path (FileStamps), read from the files table or from its packed
// copy: the stamp columns of one files generation in one buffer (`<state_dir>/file-stamps.bin`, as
// git's index holds its stat data), written by an index run whose commit moved the version and
// read by status and the next run in place of 110,000 rows (at 1 GB: 70 ms against 400 ms and
// most of the garbage). The copy is used only while it names the files generation graph.db holds
// (`Store.filesGeneration`, the name of its file rows' history): a commit since (a server's
// refresh, another writer), a graph.db rebuilt or copied in by other writes make every reader fall
// back to the rows.
import { STAT_WORDS, type JoinedPaths } from "../base/native.js";

/** What a read of a file stamps its rows with: its stat, its content hash, and whether the stat alone can prove the bytes unchanged later (index/read.ts RACY_WINDOW_MS). */
export interface StampFields {
  readonly mtime: number;
  readonly size: number;
  readonly ino: number;
  readonly ctime: number;
  readonly contentHash: string;
  readonly statClean: boolean;
}

/** A file's row: its id and the stamp of the read that made its rows (index/read.ts). */
export interface FileStamp extends StampFields {
  readonly id: number;
  readonly path: string;
}

/** [id, path, mtime, size, ino, ctime, stat_clean] as the files table holds them. */
export type StoredStampRow = [number, string, number, number, number, number, number];

/** The numbers kept per file: id, mtime, size, ino, ctime. */
const WORDS = 5;
/** "MSTP", then the format; a reader refuses any other. */
const MAGIC = 0x5054534d;
const FORMAT = 1;
/** The numbers are read in place as float64s of the host's order, and written little-endian: a big-endian host reads the rows. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Bytes of the files generation's name (16 hex digits) in the header. */
const GENERATION_BYTES = 16;
/** magic u32, format u32, files generation (ASCII), count u32, paths' byte length u32. */
const HEADER = 8 + GENERATION_BYTES + 8;
/** The bytes of a packed copy that name its generation (packedGeneration reads them alone). */
export const PACKED_HEADER_BYTES = HEADER;

/**
 * Every indexed file's stamp by path (`Store.fileStamps`): the stat columns held in number arrays
 * and a FileStamp made when one is asked for, its content hash read from its row only then (while
 * the Store is open). At 1 GB, 110,000 stamp objects kept alive through a status were a third of
 * its garbage collection, and the hash, 64 characters a row, 40% of reading them.
 */
export class FileStamps {
  /** The last path a merge lookup was asked for (see `at`). */
  private last = "";
  private lastAt: number | undefined = undefined;
  private cursor = 0;
  /** Set by `alignWith`: the i-th path asked for by place is the i-th stamp's. */
  private aligned = false;

  private constructor(
    /** By path, its place in `numbers`; null while lookups are a merge over `sorted`. */
    private index: Map<string, number> | null,
    /** The paths in ascending order (as `<` orders them) when the stamps came packed, else null. */
    private readonly sorted: readonly string[] | null,
    /** WORDS numbers per file, in index order. */
    private readonly numbers: ArrayLike<number>,
    private readonly clean: ArrayLike<number>,
    private readonly hashOf: (id: number) => string,
    /** A packed copy's paths as they were read (NUL-joined UTF-8), else null. */
    private readonly pathBytes: Uint8Array | null = null,
  ) {}

  static fromRows(rows: Iterable<StoredStampRow>, hashOf: (id: number) => string): FileStamps {
    const index = new Map<string, number>();
    const numbers: number[] = [];
    const clean: number[] = [];
    for (const [id, path, mtime, size, ino, ctime, statClean] of rows) {
      index.set(path, clean.length);
      numbers.push(id, mtime, size, ino, ctime);
      clean.push(statClean);
    }
    return new FileStamps(index, null, numbers, clean, hashOf);
  }

  /**
   * The stamps of the files table read as two values (Store.fileStamps): `columns` holds
   * id, mtime, size, ino, ctime, stat_clean per row and `joined` the paths NUL-joined, both in the
   * order of the table's path index (bytewise: the code-unit order lookups merge in, but for paths
   * holding characters past U+FFFF, which then get a map). Null when they do not match up.
   */
  static fromColumns(columns: Float64Array, joined: string, hashOf: (id: number) => string): FileStamps | null {
    const count = columns.length / 6;
    const paths = count === 0 ? [] : joined.split("\0");
    if (!Number.isInteger(count) || paths.length !== count) return null;
    const numbers = new Float64Array(count * WORDS);
    const clean = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      numbers.set(columns.subarray(i * 6, i * 6 + WORDS), i * WORDS);
      clean[i] = columns[i * 6 + 5]!;
    }
    for (let i = 1; i < count; i++) {
      if (!(paths[i - 1]! < paths[i]!)) return new FileStamps(new Map(paths.map((path, at) => [path, at])), null, numbers, clean, hashOf);
    }
    return new FileStamps(null, paths, numbers, clean, hashOf);
  }

  /** The stamps of a packed copy (`packStamps`) of files generation `generation`; null when it is of another (or none), format or shape. */
  static fromPacked(packed: Uint8Array, generation: string | null, hashOf: (id: number) => string): FileStamps | null {
    if (!LITTLE_ENDIAN || generation === null || packedGeneration(packed) !== generation) return null;
    const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
    const count = view.getUint32(8 + GENERATION_BYTES, true);
    const pathBytes = view.getUint32(12 + GENERATION_BYTES, true);
    const numbersEnd = HEADER + count * WORDS * 8;
    if (packed.byteLength !== numbersEnd + count + pathBytes) return null;
    // Float64Array needs its offset aligned to 8: bytes that are not (a pooled small read) are copied (`new Uint8Array` copies; a Buffer's slice would not).
    const aligned = (packed.byteOffset + HEADER) % 8 === 0;
    const numbers = aligned ? new Float64Array(packed.buffer, packed.byteOffset + HEADER, count * WORDS) : new Float64Array(new Uint8Array(packed.subarray(HEADER, numbersEnd)).buffer);
    const clean = packed.subarray(numbersEnd, numbersEnd + count);
    const paths =
      count === 0
        ? []
        : Buffer.from(packed.buffer, packed.byteOffset + numbersEnd + count, pathBytes)
            .toString("utf8")
            .split("\0");
    if (paths.length !== count) return null;
    // Strictly ascending, as packStamps writes them: no path twice, and a merge finds every one.
    for (let i = 1; i < count; i++) if (!(paths[i - 1]! < paths[i]!)) return null;
    return new FileStamps(null, paths, numbers, clean, hashOf, packed.subarray(numbersEnd + count, numbersEnd + count + pathBytes));
  }

  /**
   * Whether `list` (a walk's paths, as its cache held them) is byte for byte the packed copy's
   * paths: then the walk's i-th path is the i-th stamp's, and `statProves` takes it by its place
   * with no lookup (at 1 GB, merging 110,000 paths was 18 ms of every status). False otherwise
   * (stamps read from rows, or another list): lookups stay by path.
   */
  alignWith(list: JoinedPaths | undefined): boolean {
    const mine = this.pathBytes;
    this.aligned = mine !== null && list?.bytes !== undefined && list.count === this.sorted!.length && Buffer.compare(mine, list.bytes) === 0;
    return this.aligned;
  }

  /**
   * A path's place, or undefined. Packed stamps asked in ascending order (a walk's sorted files,
   * as status and an index run ask) are looked up by a merge; the first path asked out of order
   * builds the map (110,000 entries: 60 ms at 1 GB).
   */
  private at(path: string): number | undefined {
    const sorted = this.sorted;
    if (this.index === null && sorted !== null) {
      // The same path asked again (statProves, then get) is where the merge left it.
      if (path === this.last) return this.lastAt;
      if (path > this.last) {
        this.last = path;
        // Equal first: a walk's next path is most often the next stamp's, and `<` on two equal
        // paths reads them whole, as `===` then does again.
        if (sorted[this.cursor] === path) return (this.lastAt = this.cursor);
        while (this.cursor < sorted.length && sorted[this.cursor]! < path) this.cursor++;
        return (this.lastAt = sorted[this.cursor] === path ? this.cursor : undefined);
      }
    }
    return this.map().get(path);
  }

  private map(): Map<string, number> {
    if (this.index === null) {
      this.index = new Map();
      this.sorted!.forEach((path, i) => this.index!.set(path, i));
    }
    return this.index;
  }

  get size(): number {
    return this.index?.size ?? this.sorted!.length;
  }

  has(path: string): boolean {
    return this.at(path) !== undefined;
  }

  get(path: string): FileStamp | undefined {
    const at = this.at(path);
    if (at === undefined) return undefined;
    const n = this.numbers;
    const s = at * WORDS;
    return new StoredStamp(n[s]!, path, n[s + 1]!, n[s + 2]!, n[s + 3]!, n[s + 4]!, this.clean[at] === 1, this.hashOf);
  }

  /**
   * Whether the `index`th stat of an lstatMany answer (base/native.ts: a walk's `stats`) proves the
   * path's indexed bytes unchanged — its stamp trusted (stat_clean) and the stat equal to it, as index/read.ts statProvesUnchanged decides — with no stamp made (a
   * status of 110,000 files made as many, and their garbage); undefined when the path has no stamp.
   * Aligned with the walk (`alignWith`), the `index`th stamp is the path's.
   */
  statProves(path: string, stats: Float64Array, index: number): boolean | undefined {
    const at = this.aligned ? index : this.at(path);
    if (at === undefined) return undefined;
    const n = this.numbers;
    const s = at * WORDS;
    const w = index * STAT_WORDS;
    return this.clean[at] === 1 && n[s + 1] === stats[w + 2] && n[s + 2] === stats[w + 1] && n[s + 3] === stats[w + 3] && n[s + 4] === stats[w + 4];
  }

  /** Forgets a path (an index run drops the paths it has handled). */
  delete(path: string): boolean {
    this.aligned = false;
    return this.map().delete(path);
  }

  keys(): IterableIterator<string> {
    return this.index?.keys() ?? this.sorted!.values();
  }
}

/** The packed copy of the files table's stamps `rows`, in ascending order of path (as `<` orders them), at files generation `generation` (FileStamps.fromPacked reads it). */
export function packStamps(rows: ReadonlyArray<readonly [...StoredStampRow, ...unknown[]]>, generation: string): Buffer {
  if (!/^[0-9a-f]{16}$/.test(generation)) throw new Error(`not a files generation: ${JSON.stringify(generation)}`);
  const paths = Buffer.from(rows.map((r) => r[1]).join("\0"), "utf8");
  const count = rows.length;
  const out = Buffer.alloc(HEADER + count * WORDS * 8 + count + paths.byteLength);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(FORMAT, 4);
  out.write(generation, 8, "latin1");
  out.writeUInt32LE(count, 8 + GENERATION_BYTES);
  out.writeUInt32LE(paths.byteLength, 12 + GENERATION_BYTES);
  let at = HEADER;
  for (const [id, , mtime, size, ino, ctime] of rows) {
    for (const v of [id, mtime, size, ino, ctime]) at = out.writeDoubleLE(v, at);
  }
  for (const r of rows) out[at++] = r[6] === 1 ? 1 : 0;
  paths.copy(out, at);
  return out;
}

/** The files generation a packed copy is of, from its header alone; null when it is not one. */
export function packedGeneration(header: Uint8Array): string | null {
  if (header.byteLength < HEADER) return null;
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== FORMAT) return null;
  return Buffer.from(header.buffer, header.byteOffset + 8, GENERATION_BYTES).toString("latin1");
}

/** A stamp of `FileStamps`: its content hash read from its row when asked. */
class StoredStamp implements FileStamp {
  constructor(
    readonly id: number,
    readonly path: string,
    readonly mtime: number,
    readonly size: number,
    readonly ino: number,
    readonly ctime: number,
    readonly statClean: boolean,
    private readonly hashOf: (id: number) => string,
  ) {}

  get contentHash(): string {
    return this.hashOf(this.id);
  }
}
