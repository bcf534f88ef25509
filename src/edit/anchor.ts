// Hash-anchored replacement, planned without touching the disk (hashpilot `replace-hash`): the
// anchor is the hash of the range the caller read (or of the whole file); a range whose content
// moved is relocated by sliding a same-height window, applied only when exactly one window
// matches. A whole-file anchor is never relocated: a mismatch there means the file changed.
import { MastError } from "../base/errors.js";
import { HASH_WIDTH, checkRange, fileHash, hash12, rangeHash, replaceLines, type EditableText } from "./text.js";

export interface LineRange {
  readonly start: number;
  readonly end: number;
}

export interface ReplaceRequest {
  readonly oldHash: string;
  /** 1-based inclusive; null anchors the whole file. */
  readonly range: LineRange | null;
  readonly content: string;
  /** Relocate a moved range anchor (`--no-recovery` turns it off). */
  readonly recovery: boolean;
}

export interface ReplacePlan {
  readonly before: EditableText;
  readonly after: EditableText;
  /** Where the anchor matched in the file as read (the requested range unless relocated). */
  readonly region: LineRange;
  /** The written region in the new file (empty when the replacement had no lines: start = end + 1). */
  readonly newRange: LineRange;
  readonly relocated: boolean;
}

/** `10:15` is lines 10 to 15; `7` is line 7 alone (1-based, inclusive). */
export function parseRange(value: string): LineRange {
  const m = /^(\d+)(?::(\d+))?$/.exec(value);
  if (!m) throw new MastError("INVALID_ARGUMENT", `--range must be <start>:<end> or <line>, not ${JSON.stringify(value)}`, { hint: "Ranges are 1-based and inclusive: --range 10:15 is six lines." });
  const start = Number(m[1]);
  return { start, end: m[2] === undefined ? start : Number(m[2]) };
}

const HEX = new RegExp(`^[0-9a-f]{${HASH_WIDTH}}$`);

export function planReplace(t: EditableText, req: ReplaceRequest): ReplacePlan {
  if (!HEX.test(req.oldHash)) {
    throw new MastError("INVALID_ARGUMENT", `old hash ${JSON.stringify(req.oldHash)} is not ${HASH_WIDTH} lowercase hex characters`, {
      hint: `Pass the lineHash, contextHash or hash that read-hash/read-many reported (${HASH_WIDTH} characters).`,
    });
  }
  if (req.range === null) {
    const current = fileHash(t);
    if (current !== req.oldHash) throw stale(req.oldHash, current, "the file changed since it was read");
    return apply(t, { start: 1, end: t.lines.length }, req.content, false);
  }
  checkRange(t, req.range.start, req.range.end);
  const current = rangeHash(t, req.range.start, req.range.end);
  if (current === req.oldHash) return apply(t, req.range, req.content, false);
  if (!req.recovery) throw stale(req.oldHash, current, `lines ${req.range.start}-${req.range.end} changed since they were read`);
  const matches = relocate(t, req.range.end - req.range.start + 1, req.oldHash);
  if (matches.length === 0) throw stale(req.oldHash, current, "no range of the same height has it, so it could not be relocated");
  if (matches.length > 1) {
    throw new MastError("AMBIGUOUS_ANCHOR", `anchor ${req.oldHash} matches ${matches.length} places (lines ${matches.map((m) => `${m.start}-${m.end}`).join(", ")})`, {
      hint: "Re-read the file and retry with a range whose content is unique.",
      details: { matches },
    });
  }
  return apply(t, matches[0]!, req.content, true);
}

/** Every same-height window whose hash is the anchor. */
function relocate(t: EditableText, height: number, anchor: string): LineRange[] {
  const out: LineRange[] = [];
  for (let start = 1; start + height - 1 <= t.lines.length; start++) {
    if (hash12(t.lines.slice(start - 1, start - 1 + height).join("\n")) === anchor) out.push({ start, end: start + height - 1 });
  }
  return out;
}

function apply(t: EditableText, region: LineRange, content: string, relocated: boolean): ReplacePlan {
  const after = replaceLines(t, region.start, region.end, content);
  const written = after.lines.length - (t.lines.length - (region.end - region.start + 1));
  return { before: t, after, region, newRange: { start: region.start, end: region.start + written - 1 }, relocated };
}

function stale(anchor: string, current: string, why: string): MastError {
  return new MastError("STALE_ANCHOR", `anchor ${anchor} no longer matches: ${why}. Re-read the file and retry.`, {
    hint: "Re-read the file (read-hash or read-many) and retry with the fresh hash.",
    details: { currentHash: current },
  });
}

/** The preview of a plan: removed lines (`- N | text`, old numbering), added lines (`+ N | text`) and two lines of context. */
export function previewDiff(plan: ReplacePlan, context = 2): string {
  const { before, after, region, newRange } = plan;
  const out: string[] = [];
  for (let n = Math.max(1, region.start - context); n < region.start; n++) out.push(`  ${n} | ${before.lines[n - 1]}`);
  for (let n = region.start; n <= region.end; n++) out.push(`- ${n} | ${before.lines[n - 1]}`);
  for (let n = newRange.start; n <= newRange.end; n++) out.push(`+ ${n} | ${after.lines[n - 1]}`);
  for (let n = newRange.end + 1; n <= Math.min(after.lines.length, newRange.end + context); n++) out.push(`  ${n} | ${after.lines[n - 1]}`);
  return out.join("\n");
}
