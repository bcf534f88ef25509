// The one way the product reads a file's bytes: opened without blocking (a FIFO never hangs the
// reader), checked to be a regular file on the open descriptor (a device, socket or directory is
// refused before a byte is read), and read up to a size cap (a file that grows past it mid-read
// is refused too), and — given the real path the caller checked — proven on the descriptor to be
// that file (a directory swapped for a symlink mid-read is refused, `confined.ts`). Outcomes are
// plain data; callers turn them into their own errors or rows.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { descriptorIs } from "./confined.js";
import { ioErrorMessage } from "./errors.js";

/** The default size cap of a source file (the index's `max_file_bytes` default, the editing tools' cap). */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

export type FileRead =
  | { readonly kind: "read"; readonly bytes: Buffer; readonly stat: Stats }
  | { readonly kind: "missing"; readonly error: string }
  | { readonly kind: "not_regular"; readonly what: string }
  | { readonly kind: "too_large"; readonly size: number }
  | { readonly kind: "symlink" }
  /** The descriptor is not the file at `expect`: a path component was swapped for a symlink. */
  | { readonly kind: "redirected" }
  | { readonly kind: "error"; readonly error: string };

export interface ReadOptions {
  /** Refuse a file over this many bytes. */
  readonly maxBytes: number;
  /** Refuse (kind "symlink") when the last path component is a symlink. */
  readonly noFollow?: boolean;
  /** The real path the opened descriptor must be (the path as the caller checked it); otherwise kind "redirected", nothing read. */
  readonly expect?: string;
}

/** What a non-regular file is, for messages. */
function fileKind(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  if (st.isSymbolicLink()) return "a symlink";
  return "not a regular file";
}

export function readRegularFile(abs: string, options: ReadOptions): FileRead {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing", error: ioErrorMessage(err) };
    if (code === "ELOOP" && options.noFollow) return { kind: "symlink" };
    if (code === "EISDIR") return { kind: "not_regular", what: "a directory" };
    return { kind: "error", error: ioErrorMessage(err) };
  }
  try {
    if (options.expect !== undefined && !descriptorIs(fd, options.expect)) return { kind: "redirected" };
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: "not_regular", what: fileKind(stat) };
    if (stat.size > options.maxBytes) return { kind: "too_large", size: stat.size };
    // Read to the end, not to the stat's size: the file may have grown (or shrunk) since.
    let buf = Buffer.allocUnsafe(Math.min(stat.size, options.maxBytes) + 1);
    let total = 0;
    for (;;) {
      if (total === buf.length) {
        if (total > options.maxBytes) return { kind: "too_large", size: total };
        const grown = Buffer.allocUnsafe(Math.min(buf.length * 2, options.maxBytes + 1));
        buf.copy(grown, 0, 0, total);
        buf = grown;
      }
      const n = readSync(fd, buf, total, buf.length - total, null);
      if (n === 0) break;
      total += n;
    }
    if (total > options.maxBytes) return { kind: "too_large", size: total };
    return { kind: "read", bytes: buf.subarray(0, total), stat };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EISDIR") return { kind: "not_regular", what: "a directory" };
    return { kind: "error", error: ioErrorMessage(err) };
  } finally {
    closeSync(fd);
  }
}
