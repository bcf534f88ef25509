// JSON config files and texts read the one way: a file through the safe reader (regular files
// only, size-capped), and a parse failure reported as CONFIG_INVALID with the failing position —
// never the text itself, which may be a secret (a config path pointed at any file echoed it).
import { MastError } from "./errors.js";
import { readRegularFile } from "./read.js";

/** The largest JSON config file read. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** JSON text parsed; CONFIG_INVALID naming `where` and the failing position. */
export function parseJsonText(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const at = /position (\d+)/.exec(err instanceof Error ? err.message : "")?.[1];
    throw new MastError("CONFIG_INVALID", `${where} is not valid JSON${at === undefined ? "" : ` (at character ${at})`}`);
  }
}

/**
 * A JSON object file (named in messages as `what` then the path, or the path alone); null when it
 * does not exist; CONFIG_INVALID when it is not one, READ_FAILED when it cannot be read.
 */
export function readJsonObjectFile(path: string, what = ""): Record<string, unknown> | null {
  const name = what ? `${what} ${path}` : path;
  const r = readRegularFile(path, { maxBytes: MAX_CONFIG_BYTES });
  if (r.kind === "missing") return null;
  if (r.kind === "too_large") throw new MastError("CONFIG_INVALID", `${name} is over ${MAX_CONFIG_BYTES} bytes`);
  if (r.kind === "not_regular") throw new MastError("CONFIG_INVALID", `${name} is ${r.what}, not a file`);
  if (r.kind !== "read") throw new MastError("READ_FAILED", `cannot read ${name}${r.kind === "error" ? `: ${r.error}` : ""}`);
  const value = parseJsonText(r.bytes.toString("utf8"), name);
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new MastError("CONFIG_INVALID", `${name} must contain a JSON object`);
  return value as Record<string, unknown>;
}
