// The Python query helper a build leaves beside the index (<state_root>/workspace/helpers/
// query_structural_index.py): consumers without Node query the catalog with the standard library
// alone. Its first line is the version marker; an existing helper is kept only while its first
// line is this marker and its bytes are this build's, else it is regenerated.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { writeAtomic } from "../base/atomic.js";
import type { StructuralLayout } from "./locate.js";

export const HELPER_MARKER = "# MANTIS_HELPER_VERSION = 5";

/** The helper's source, shipped beside this module (dist/structural/ and dist/bin/). */
export function helperSource(): string {
  return readFileSync(fileURLToPath(new URL("./query_structural_index.py", import.meta.url)), "utf8");
}

/** Writes the query helper unless the one there carries the marker and the same text; true when it was (re)written. */
export function writeQueryHelper(layout: StructuralLayout): boolean {
  const source = helperSource();
  if (existsSync(layout.queryHelper)) {
    const current = readFileSync(layout.queryHelper, "utf8");
    if (current.split("\n", 1)[0] === HELPER_MARKER && current === source) return false;
  }
  mkdirSync(layout.helpers, { recursive: true });
  writeAtomic(layout.queryHelper, Buffer.from(source), { mode: 0o755 });
  return true;
}
