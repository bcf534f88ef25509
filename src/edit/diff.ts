// Unified diffs for hashpilot's `diff generate` and `diff apply` (the only importer of `diff`):
// generating a patch between two texts (a missing final newline is a change, marked as `\ No
// newline at end of file`), and placing a patch's hunks on a file's lines — where the patch says
// while the file is as the patch's author read it (its file hash), otherwise where the hunk's
// lines are when they are in exactly one place — refusing a hunk whose lines are gone or
// ambiguous, and a patch whose end-of-file newline markers do not fit the file. Planning only;
// `diff generate` runs in a worker thread (diff-worker.ts), so a large diff never holds the server.
import { FILE_HEADERS_ONLY, createTwoFilesPatch, parsePatch } from "diff";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { MastError, errorMessage } from "../base/errors.js";
import { MAX_LISTED_CANDIDATES, MIN_DISTINCTIVE_CHARS, checkHash, distinctive, listed } from "./anchor.js";
import { fileHash, isEmptyText, parseText, type EditableText, type LineEnding } from "./text.js";

/** A text as LF line tokens, each with its "\n" — the last without one when the text does not end with a line break (an empty text has none). */
function lfTokens(text: string): string[] {
  const t = parseText(text);
  if (isEmptyText(t)) return [];
  return t.lines.map((l, i) => (i < t.lines.length - 1 || t.endings[i] !== "" ? `${l}\n` : l));
}

/** How long the minimal-diff search may take on what differs before the differing lines are answered as one replacement. */
export const DIFF_TIMEOUT_MS = 2_000;

const C_ESCAPES: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r", '"': '\\"', "\\": "\\\\" };

/** A header name as written: as it is (UTF-8, as `git -c core.quotePath=false`), C-quoted only when it holds control characters, quotes or backslashes. */
function headerName(name: string): string {
  if (!/[\u0000-\u001f\u007f"\\]/.test(name)) return name;
  return `"${name.replace(/[\u0000-\u001f\u007f"\\]/g, (c) => C_ESCAPES[c] ?? `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`)}"`;
}

/** Hunk lines of tokens with a prefix, each followed by the no-newline marker when it has no line break. */
function marked(prefix: string, tokens: readonly string[]): string[] {
  return tokens.flatMap((t) => (t.endsWith("\n") ? [`${prefix}${t.slice(0, -1)}`] : [`${prefix}${t}`, "\\ No newline at end of file"]));
}

/**
 * A unified diff of two texts (compared as LF lines, the final newline included), or "(no
 * changes)". The lines both texts share at their start and end are set aside first, so a small
 * edit of a large file is diffed in what differs; when the minimal-diff search over that runs past
 * DIFF_TIMEOUT_MS, the differing lines are answered as one replacement hunk (a correct patch, not
 * a minimal one). Header names are written by headerName.
 */
export function generateDiff(oldName: string, newName: string, oldText: string, newText: string, context: number, timeoutMs = DIFF_TIMEOUT_MS): string {
  const a = lfTokens(oldText);
  const b = lfTokens(newText);
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  if (p === a.length && p === b.length) return "(no changes)";
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const before = Math.min(context, p);
  const after = Math.min(context, s);
  const from = p - before;
  const oldPart = a.slice(from, a.length - s + after);
  const newPart = b.slice(from, b.length - s + after);
  const header = `--- ${headerName(oldName)}\n+++ ${headerName(newName)}\n`;
  const patch = createTwoFilesPatch("a", "b", oldPart.join(""), newPart.join(""), "", "", { context, headerOptions: FILE_HEADERS_ONLY, timeout: timeoutMs }) as string | undefined;
  if (patch !== undefined) {
    // Hunk lines are relative to the parts: shift them by the lines set aside in front.
    const body = patch
      .slice("--- a\n+++ b\n".length)
      .replace(/^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/gm, (_m, os: string, oc: string, ns: string, nc: string) => `@@ -${Number(os) + from},${oc} +${Number(ns) + from},${nc} @@`);
    return header + body;
  }
  const oldCount = oldPart.length;
  const newCount = newPart.length;
  const start = (count: number) => (count === 0 ? from : from + 1);
  const lines = [
    `@@ -${start(oldCount)},${oldCount} +${start(newCount)},${newCount} @@`,
    ...marked(" ", a.slice(from, p)),
    ...marked("-", a.slice(p, a.length - s)),
    ...marked("+", b.slice(p, b.length - s)),
    ...marked(" ", a.slice(a.length - s, a.length - s + after)),
  ];
  return `${header}${lines.join("\n")}\n`;
}

export interface DiffRequest {
  readonly oldName: string;
  readonly newName: string;
  readonly oldText: string;
  readonly newText: string;
  readonly context: number;
}

const WORKER_FILE = fileURLToPath(new URL("./diff-worker.js", import.meta.url));

/**
 * generateDiff in a worker thread, bounded by its DIFF_TIMEOUT_MS search budget; inline from
 * TypeScript sources (tests), where no compiled worker exists. A worker out of memory is
 * RESULT_TOO_LARGE.
 */
export function generateDiffOffThread(req: DiffRequest): Promise<string> {
  if (!existsSync(WORKER_FILE)) return Promise.resolve(generateDiff(req.oldName, req.newName, req.oldText, req.newText, req.context));
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_FILE, { workerData: req, resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    worker.once("message", (diff: string) => {
      resolve(diff);
      void worker.terminate();
    });
    worker.once("error", (err: Error & { code?: string }) =>
      reject(
        err.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new MastError("RESULT_TOO_LARGE", "the diff ran out of memory and was stopped", { hint: "Diff smaller contents, or a part of the file at a time." })
          : err,
      ),
    );
    worker.once("exit", () => reject(new Error("the diff worker exited without an answer")));
  });
}

export interface Placement {
  expectedAt: number;
  appliedAt: number;
  offset: number;
}

export interface PatchPlan {
  /** The file after every hunk (a patch that removes every line leaves it empty). */
  readonly after: EditableText;
  readonly placements: Placement[];
  /** The lines of the new file each hunk wrote (start > end: the hunk only removed lines there). */
  readonly written: Array<{ start: number; end: number }>;
  /** The patch creates the file (`--- /dev/null`). */
  readonly creates: boolean;
}

interface Hunk {
  oldStart: number;
  oldLines: number;
  lines: string[];
}

/** Parses a single-file unified diff; INVALID_ARGUMENT when it is not one. */
function parseSingle(patch: string): { hunks: Hunk[]; creates: boolean } {
  let parsed: ReturnType<typeof parsePatch>;
  try {
    parsed = parsePatch(patch);
  } catch (err) {
    throw new MastError("INVALID_ARGUMENT", `the patch is not a unified diff: ${errorMessage(err)}`);
  }
  const withHunks = parsed.filter((p) => p.hunks.length > 0);
  if (withHunks.length === 0) throw new MastError("INVALID_ARGUMENT", "the patch has no hunks", { hint: "Pass a unified diff (`diff -u`, `git diff`, `hashpilot diff generate`)." });
  if (withHunks.length > 1) throw new MastError("INVALID_ARGUMENT", `the patch changes ${withHunks.length} files; diff apply takes one file's patch`);
  const p = withHunks[0]!;
  return { hunks: p.hunks, creates: p.oldFileName === "/dev/null" };
}

/** Whether a one-file patch creates its file (`--- /dev/null`); INVALID_ARGUMENT when it is not a patch. */
export function patchCreatesFile(patch: string): boolean {
  return parseSingle(patch).creates;
}

/** `arr.splice(start, deleteCount, ...items)` for any number of items (a spread of 100,000s of arguments overflows the stack). */
function replaceRange<T>(arr: T[], start: number, deleteCount: number, items: readonly T[]): void {
  arr.splice(start, deleteCount);
  const CHUNK = 8192;
  for (let i = 0; i < items.length; i += CHUNK) arr.splice(start + i, 0, ...items.slice(i, i + CHUNK));
}

export interface PatchOptions {
  /** How far a hunk may slide from where the patch puts it; null: anywhere it is unambiguous. */
  readonly fuzzy: number | null;
  /** The file hash of the read the patch was made against: while it matches, hunks go exactly where the patch says. */
  readonly expectedFileHash?: string | null;
}

/** A hunk's old and new lines, and whether each side's last line lacks its newline (`\ No newline at end of file`). */
function sidesOf(hunk: Hunk): { oldLines: string[]; newLines: string[]; oldNoEol: boolean; newNoEol: boolean } {
  const oldLines: string[] = [];
  const newLines: string[] = [];
  let oldNoEol = false;
  let newNoEol = false;
  hunk.lines.forEach((l, i) => {
    if (l.startsWith("\\")) {
      const prev = hunk.lines[i - 1]?.[0];
      if (prev === "-" || prev === " ") oldNoEol = true;
      if (prev === "+" || prev === " ") newNoEol = true;
      return;
    }
    if (l[0] === " " || l[0] === "-") oldLines.push(l.slice(1));
    if (l[0] === " " || l[0] === "+") newLines.push(l.slice(1));
  });
  return { oldLines, newLines, oldNoEol, newNoEol };
}

/** Where a hunk is placed: the file's lines so far, the hunk's old lines, and where the patch expects it. */
interface HunkSite {
  readonly lines: readonly string[];
  readonly oldLines: readonly string[];
  /** Where the patch puts the hunk, shifted by the earlier hunks' sizes. */
  readonly expected: number;
  /** Where it is looked for first: expected, moved as far as the previous hunk slid. */
  readonly center: number;
  /** The first line it may start at (hunks are in order and never overlap). */
  readonly floor: number;
  /** The hunk's number (from 1) and its name in messages. */
  readonly index: number;
  readonly name: string;
}

/**
 * The line a hunk goes at (see planPatch): where the patch says while the file is `unchanged`,
 * otherwise where its old lines are in exactly one place in reach; STALE_ANCHOR or
 * AMBIGUOUS_ANCHOR when that place is gone, too far, not distinctive, or not one.
 */
function locateHunk(site: HunkSite, unchanged: boolean, fuzzy: number | null): number {
  const { lines, oldLines, expected, center, floor, index, name } = site;
  const matchesAt = (at: number) => at >= 1 && at + oldLines.length - 1 <= lines.length && oldLines.every((l, k) => lines[at - 1 + k] === l);
  if (unchanged) {
    // The file is the one the patch was made against: the patch's own line numbers hold.
    if (oldLines.length === 0 ? expected < 1 || expected > lines.length + 1 : !matchesAt(expected)) {
      throw new MastError("STALE_ANCHOR", `${name}: the file is as it was read, but the hunk's lines are not at line ${expected}: the patch was not made against this file; nothing was written`, {
        hint: "Regenerate the patch against the file as it is (hashpilot diff generate).",
      });
    }
    return expected;
  }
  if (oldLines.length === 0) {
    // Nothing to match: certain only in a file with no lines.
    if (lines.length > 0) {
      throw new MastError("AMBIGUOUS_ANCHOR", `${name} has no old lines to place it by (a -U0 insertion), and the file's hash was not given; nothing was written`, {
        hint: "Pass the fileHash of the read the patch was made against (expected_file_hash / --file-hash), or regenerate the patch with context lines (-c 3).",
        details: { hunk: index, candidates: [] },
      });
    }
    return 1;
  }
  const found: number[] = [];
  for (let k = floor; k + oldLines.length - 1 <= lines.length; k++) if (matchesAt(k)) found.push(k);
  if (found.length > 1) {
    throw new MastError("AMBIGUOUS_ANCHOR", `${name}: its lines match at lines ${listed(found.map(String))}; nothing was written`, {
      hint: "Pass the fileHash of the read the patch was made against (expected_file_hash / --file-hash), or regenerate the patch with more context (-c).",
      details: { hunk: index, candidates: found.slice(0, MAX_LISTED_CANDIDATES), total: found.length },
    });
  }
  // Slid by its text alone only when that text can be told from a copy (see distinctive).
  if (found.length === 1 && found[0] !== center && !distinctive(oldLines)) {
    throw new MastError(
      "STALE_ANCHOR",
      `${name}: its lines are not at line ${center}, and old lines with fewer than ${MIN_DISTINCTIVE_CHARS} letters and digits are not slid to line ${found[0]} by their text alone; nothing was written`,
      {
        hint: "Pass the fileHash of the read the patch was made against (expected_file_hash / --file-hash), or regenerate the patch with more context (-c 3).",
        details: { hunk: index, candidates: found },
      },
    );
  }
  const inReach = fuzzy === null ? found : found.filter((k) => Math.abs(k - center) <= fuzzy);
  if (inReach.length === 0) {
    throw new MastError(
      "STALE_ANCHOR",
      `${name}: its lines are ${found.length ? `at line ${found[0]}, more than ${fuzzy} line(s) from line ${center}` : "no longer in the file"}; nothing was written`,
      {
        hint: "Re-read the file and regenerate the patch.",
      },
    );
  }
  return inReach[0]!;
}

/** The end-of-file markers: a hunk reaching the file's end must agree with its final newline (STALE_ANCHOR otherwise). */
function checkEndMarker(name: string, oldNoEol: boolean, reachesEnd: boolean, terminated: boolean): void {
  if (reachesEnd ? oldNoEol === terminated : oldNoEol) {
    throw new MastError(
      "STALE_ANCHOR",
      `${name}: the patch says the file's last line ${oldNoEol ? "has no" : "has a"} line break, and the file's ${reachesEnd ? (terminated ? "has one" : "has none") : "last line is not in this hunk"}; nothing was written`,
      {
        hint: "Regenerate the patch against the file as it is (hashpilot diff generate).",
      },
    );
  }
}

/**
 * Places every hunk of `patch` on `t` (null: the file does not exist yet). While the file is as
 * the patch was made against (`expectedFileHash` matches), each hunk goes exactly where the patch
 * says (shifted by the earlier hunks' sizes) and must match there. Otherwise a hunk goes where its
 * old lines are, if they are in exactly one place after the previous hunk (and, with `fuzzy`,
 * within that many lines of where the patch expects it) — away from where the patch expects it
 * only when those lines are distinctive (12 letters and digits); a hunk with no old lines (a
 * `-U0` insertion) has nothing to be placed by and needs the file hash. Otherwise the whole patch is
 * refused — STALE_ANCHOR when the lines are gone (or too far), AMBIGUOUS_ANCHOR when they are in
 * several places — because landing on the wrong copy is worse than not landing. The `\ No
 * newline at end of file` markers must fit the file and decide the result's final newline.
 */
export function planPatch(t: EditableText | null, patch: string, options: PatchOptions): PatchPlan {
  const { fuzzy } = options;
  if (fuzzy !== null && (!Number.isInteger(fuzzy) || fuzzy < 0)) throw new MastError("INVALID_ARGUMENT", `--fuzzy must be a whole number of lines, not ${fuzzy}`);
  if (options.expectedFileHash) checkHash(options.expectedFileHash, "expected file hash");
  const { hunks, creates } = parseSingle(patch);
  const base = t ?? { lines: [], endings: [], bom: false, eol: "\n" as LineEnding };
  const lines = [...base.lines];
  const endings = [...base.endings];
  // An existing file that is empty has one empty line; a patch against it sees none.
  if (t !== null && isEmptyText(t)) {
    lines.length = 0;
    endings.length = 0;
  }
  const unchanged = t !== null && !!options.expectedFileHash && fileHash(t) === options.expectedFileHash;
  // Whether the file's last line ends with a line break (an empty file has no line that lacks one).
  let terminated = lines.length === 0 || endings.at(-1) !== "";
  const placements: Placement[] = [];
  const written: Array<{ start: number; end: number }> = [];
  let sizeShift = 0; // line-count change of the hunks placed so far
  let carried = 0; // where the previous hunk landed relative to where it was expected
  let floor = 1; // the first line the next hunk may start at: hunks are in order and never overlap
  hunks.forEach((hunk, index) => {
    const { oldLines, newLines, oldNoEol, newNoEol } = sidesOf(hunk);
    // (The parser turns a pure insertion's "after line N" into "at line N + 1", so oldStart is where the hunk's first line goes.)
    const expected = hunk.oldStart + sizeShift;
    const center = expected + carried;
    const name = `hunk ${index + 1} (@@ -${hunk.oldStart},${hunk.oldLines})`;
    const at = locateHunk({ lines, oldLines, expected, center, floor, index: index + 1, name }, unchanged, fuzzy);
    const reachesEnd = at + oldLines.length - 1 === lines.length;
    checkEndMarker(name, oldNoEol, reachesEnd, terminated);
    const replaced = endings.slice(at - 1, at - 1 + oldLines.length);
    replaceRange(lines, at - 1, oldLines.length, newLines);
    replaceRange(
      endings,
      at - 1,
      oldLines.length,
      newLines.map((_, k) => replaced[k] || base.eol),
    );
    if (reachesEnd) terminated = !newNoEol;
    placements.push({ expectedAt: expected, appliedAt: at, offset: at - expected });
    written.push({ start: at, end: at + newLines.length - 1 });
    sizeShift += newLines.length - oldLines.length;
    carried = at - expected;
    floor = at + newLines.length;
  });
  if (lines.length === 0) return { after: { lines: [""], endings: [""], bom: base.bom, eol: base.eol }, placements, written, creates };
  // Every line but the last ends with a line break (lines added after an unterminated last line
  // must not be joined to it); the last has one unless the file ends without it.
  for (let i = 0; i < endings.length - 1; i++) if (endings[i] === "") endings[i] = base.eol;
  endings[endings.length - 1] = terminated ? endings.at(-1) || base.eol : "";
  return { after: { lines, endings, bom: base.bom, eol: base.eol }, placements, written, creates };
}
