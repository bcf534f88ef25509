// Unified diffs for hashpilot's `diff generate` and `diff apply` (the only importer of `diff`):
// generating a patch between two texts, and placing a patch's hunks on a file's lines — at the
// line the patch expects, or where the hunk's lines moved to when they are in exactly one place,
// refusing a hunk whose lines are gone or ambiguous. Planning only: no disk.
import { FILE_HEADERS_ONLY, createTwoFilesPatch, parsePatch } from "diff";
import { MastError, errorMessage } from "../base/errors.js";
import { parseText, type EditableText, type LineEnding } from "./text.js";

/** A unified diff of two texts (compared as LF lines), or "(no changes)". */
export function generateDiff(oldName: string, newName: string, oldText: string, newText: string, context: number): string {
  const a = parseText(oldText).lines.join("\n");
  const b = parseText(newText).lines.join("\n");
  if (a === b) return "(no changes)";
  return createTwoFilesPatch(oldName, newName, `${a}\n`, `${b}\n`, "", "", { context, headerOptions: FILE_HEADERS_ONLY });
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
  let parsed;
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

/**
 * Places every hunk of `patch` on `t` (null: the file does not exist yet). A hunk lands where the
 * patch says (shifted by the earlier hunks' sizes and by how far the previous hunk slid) when its
 * old lines are there; otherwise where they are, if they are in exactly one place in the whole
 * file and, with `fuzzy`, within that many lines. Otherwise the whole patch is refused —
 * STALE_ANCHOR when the lines are gone (or too far), AMBIGUOUS_ANCHOR when they are in several
 * places — because landing on the wrong copy is worse than not landing.
 */
export function planPatch(t: EditableText | null, patch: string, fuzzy: number | null): PatchPlan {
  if (fuzzy !== null && (!Number.isInteger(fuzzy) || fuzzy < 0)) throw new MastError("INVALID_ARGUMENT", `--fuzzy must be a whole number of lines, not ${fuzzy}`);
  const { hunks, creates } = parseSingle(patch);
  const base = t ?? { lines: [], endings: [], bom: false, eol: "\n" as LineEnding };
  const lines = [...base.lines];
  const endings = [...base.endings];
  // An existing file that is empty has one empty line; a patch against it sees none.
  if (t !== null && lines.length === 1 && lines[0] === "") {
    lines.length = 0;
    endings.length = 0;
  }
  const placements: Placement[] = [];
  let sizeShift = 0; // line-count change of the hunks placed so far
  let carried = 0; // where the previous hunk landed relative to where it was expected
  hunks.forEach((hunk, index) => {
    const body = hunk.lines.filter((l) => !l.startsWith("\\"));
    const oldLines = body.filter((l) => l[0] === " " || l[0] === "-").map((l) => l.slice(1));
    const newLines = body.filter((l) => l[0] === " " || l[0] === "+").map((l) => l.slice(1));
    // (The parser turns a pure insertion's "after line N" into "at line N + 1", so oldStart is where the hunk's first line goes.)
    const expected = hunk.oldStart + sizeShift;
    const center = expected + carried;
    const name = `hunk ${index + 1} (@@ -${hunk.oldStart},${hunk.oldLines})`;
    const matchesAt = (at: number) => at >= 1 && at + oldLines.length - 1 <= lines.length && oldLines.every((l, k) => lines[at - 1 + k] === l);
    let at: number;
    if (oldLines.length === 0) {
      // Nothing to match: it goes where the patch says.
      if (center < 1 || center > lines.length + 1) throw new MastError("STALE_ANCHOR", `${name}: line ${center} is past the end of the file; nothing was written`);
      at = center;
    } else if (matchesAt(center)) {
      at = center; // where the patch says (shifted like the hunks before it): as replace-hash trusts a matching range
    } else {
      // It moved: it goes where its lines are, if they are in exactly one place in the whole file.
      const found: number[] = [];
      for (let k = 1; k + oldLines.length - 1 <= lines.length; k++) if (matchesAt(k)) found.push(k);
      const inReach = fuzzy === null ? found : found.filter((k) => Math.abs(k - center) <= fuzzy);
      if (found.length > 1) {
        throw new MastError("AMBIGUOUS_ANCHOR", `${name}: its lines are not at line ${center} and match at lines ${found.join(", ")}; nothing was written`, {
          hint: "Re-read the file and regenerate the patch with more context (-c).",
          details: { hunk: index + 1, candidates: found },
        });
      }
      if (inReach.length === 0) {
        throw new MastError("STALE_ANCHOR", `${name}: its lines are ${found.length ? `at line ${found[0]}, more than ${fuzzy} line(s) from line ${center}` : "no longer in the file"}; nothing was written`, {
          hint: "Re-read the file and regenerate the patch.",
        });
      }
      at = inReach[0]!;
    }
    const replaced = endings.slice(at - 1, at - 1 + oldLines.length);
    lines.splice(at - 1, oldLines.length, ...newLines);
    endings.splice(at - 1, oldLines.length, ...newLines.map((_, k) => replaced[k] || base.eol));
    placements.push({ expectedAt: expected, appliedAt: at, offset: at - expected });
    sizeShift += newLines.length - oldLines.length;
    carried = at - expected;
  });
  if (lines.length === 0) return { after: { lines: [""], endings: [""], bom: base.bom, eol: base.eol }, placements, creates };
  // Every line but the last ends with a line break (lines added after an unterminated last line
  // must not be joined to it); the file keeps its final-newline state (a new file ends with one).
  for (let i = 0; i < endings.length - 1; i++) if (endings[i] === "") endings[i] = base.eol;
  const terminated = t === null || t.endings.at(-1) !== "";
  endings[endings.length - 1] = terminated ? endings.at(-1) || base.eol : "";
  return { after: { lines, endings, bom: base.bom, eol: base.eol }, placements, creates };
}
