// Hash-anchored replacement, planned without touching the disk (hashpilot `replace-hash`): the
// anchor is the hash of the range the caller read (or of the whole file). An anchor's text is
// not its identity — `}` or a blank line occurs many times, and 12 hex characters can collide —
// so a range anchor is applied only where something pins it: the file is still as the caller read
// it (the read's file hash), or its context (the read's contextHash) is in one place, or — with no
// file hash to say the file changed — its content is in one place. A range whose content moved is
// relocated the same way; anything else is refused with the candidates. A whole-file anchor is
// never relocated; a mismatch there says whether the anchor is a line's hash given without its range.
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
  /** The whole-file hash of the read the anchor came from: while it matches, the range is where the caller saw it. */
  readonly expectedFileHash?: string | null;
  /** The read's contextHash and the lines it covered (they must contain the range). */
  readonly context?: { readonly hash: string; readonly range: LineRange } | null;
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

/** INVALID_ARGUMENT unless `value` is a hash the editing commands report (HASH_WIDTH lowercase hex). */
export function checkHash(value: string, what: string): void {
  if (!HEX.test(value)) {
    throw new MastError("INVALID_ARGUMENT", `${what} ${JSON.stringify(value.slice(0, 40))} is not ${HASH_WIDTH} lowercase hex characters`, {
      hint: `Pass the lineHash, contextHash, fileHash or hash that read-hash/read-many reported (${HASH_WIDTH} characters).`,
    });
  }
}

const rangeText = (r: LineRange) => `${r.start}-${r.end}`;

export function planReplace(t: EditableText, req: ReplaceRequest): ReplacePlan {
  checkHash(req.oldHash, "old hash");
  if (req.expectedFileHash) checkHash(req.expectedFileHash, "expected file hash");
  if (req.context) checkHash(req.context.hash, "context hash");
  if (req.range === null) {
    const current = fileHash(t);
    if (current !== req.oldHash) throw notTheFile(t, req.oldHash, current, req.expectedFileHash ?? null);
    return apply(t, { start: 1, end: t.lines.length }, req.content, false);
  }
  const range = req.range;
  checkRange(t, range.start, range.end);
  const ctx = req.context ?? null;
  if (ctx && (ctx.range.start > range.start || ctx.range.end < range.end || ctx.range.start < 1)) {
    throw new MastError("INVALID_ARGUMENT", `the context range ${rangeText(ctx.range)} does not contain the range ${rangeText(range)}`, {
      hint: "Pass read-hash's contextRange with its contextHash.",
    });
  }
  const current = rangeHash(t, range.start, range.end);
  const height = range.end - range.start + 1;
  // While the file is as the caller read it, the caller's range (or the one window with the hash) is what they saw.
  const unchanged = req.expectedFileHash ? fileHash(t) === req.expectedFileHash : false;
  if (unchanged) {
    if (current === req.oldHash) return apply(t, range, req.content, false);
    // The file is as read, so the anchor is lines the caller saw here: found in one place, it is them (a range given off by one, #99).
    const found = req.recovery ? windows(t, height, req.oldHash) : [];
    if (found.length === 1) return apply(t, found[0]!, req.content, true);
    if (found.length > 1) throw ambiguous(req.oldHash, found, "its content (the file is as read, but the range does not hold it)");
    throw stale(req.oldHash, current, `the file is as it was read, but lines ${rangeText(range)} do not have this hash (the range or the hash is wrong)`);
  }
  const candidates = windows(t, height, req.oldHash, current === req.oldHash ? t.lines.slice(range.start - 1, range.end) : undefined);
  if (candidates.length === 0) throw stale(req.oldHash, current, `lines ${rangeText(range)} changed since they were read, and no range of the same height has it, so it could not be relocated`);
  const atRange = candidates.some((c) => c.start === range.start);
  const allowed = req.recovery ? candidates : candidates.filter((c) => c.start === range.start);
  if (allowed.length === 0) throw stale(req.oldHash, current, `lines ${rangeText(range)} changed since they were read`);
  // The context pin: the read's context, shifted with the anchor, must be there too — and where it
  // is around no copy, the lines the caller read are gone (a copy elsewhere is not them).
  if (ctx) {
    const before = range.start - ctx.range.start;
    const ctxHeight = ctx.range.end - ctx.range.start + 1;
    const pinned = allowed.filter((c) => {
      const start = c.start - before;
      return start >= 1 && start + ctxHeight - 1 <= t.lines.length && rangeHash(t, start, start + ctxHeight - 1) === ctx.hash;
    });
    if (pinned.length === 1) return apply(t, pinned[0]!, req.content, pinned[0]!.start !== range.start);
    if (pinned.length > 1) throw ambiguous(req.oldHash, pinned, "its content and its context");
    throw stale(
      req.oldHash,
      current,
      `the lines around the anchor changed since they were read: its context ${ctx.hash} is around none of its ${allowed.length} cop${allowed.length === 1 ? "y" : "ies"} (lines ${listed(allowed.map(rangeText))})`,
    );
  }
  if (atRange) {
    if (candidates.length > 1) throw ambiguous(req.oldHash, candidates, "its content (also at the range you read, but the file may have moved since)");
    if (req.expectedFileHash) throw unproven(t, req.oldHash, current, req.expectedFileHash, "at its range");
    return apply(t, range, req.content, false);
  }
  if (allowed.length > 1) throw ambiguous(req.oldHash, allowed, "its content");
  if (req.expectedFileHash) throw unproven(t, req.oldHash, current, req.expectedFileHash, `at lines ${rangeText(allowed[0]!)} (read at ${rangeText(range)})`);
  // Relocation by the anchor's own text: only text that can be told from a copy.
  const text = t.lines.slice(allowed[0]!.start - 1, allowed[0]!.end);
  if (!distinctive(text)) {
    throw stale(
      req.oldHash,
      current,
      `lines ${rangeText(range)} changed since they were read, and an anchor with fewer than ${MIN_DISTINCTIVE_CHARS} letters and digits is not relocated to lines ${rangeText(allowed[0]!)} by its text alone (it may be another copy: the lines read may have been edited)`,
    );
  }
  return apply(t, allowed[0]!, req.content, true);
}

/** Letters and digits an anchor (or a hunk's old side) needs to be relocated by its text alone. */
export const MIN_DISTINCTIVE_CHARS = 12;

/**
 * Whether lines are enough to be told from a copy of themselves when they moved: at least
 * MIN_DISTINCTIVE_CHARS letters and digits among them. `}`, `});`, `return;`, `break;`,
 * `} else {`, a blank line, `@Input()` or a short run of them are not: text that plain is repeated
 * in most files, so when it is not where it was read, the copy found elsewhere is as likely
 * another one as the one that moved (the lines read may have been edited away).
 */
export function distinctive(lines: readonly string[]): boolean {
  let n = 0;
  for (const l of lines) {
    n += l.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
    if (n >= MIN_DISTINCTIVE_CHARS) return true;
  }
  return false;
}

/** Candidates listed in an AMBIGUOUS_ANCHOR error at most (the rest are counted). */
export const MAX_LISTED_CANDIDATES = 50;

/** A candidate list for a message: the first few, and how many more. */
export function listed(items: readonly string[], shown = 10): string {
  return items.length <= shown ? items.join(", ") : `${items.slice(0, shown).join(", ")} and ${items.length - shown} more`;
}

function ambiguous(anchor: string, matches: LineRange[], what: string): MastError {
  return new MastError("AMBIGUOUS_ANCHOR", `anchor ${anchor}: ${what} matches ${matches.length} places (lines ${listed(matches.map(rangeText))}); nothing was written`, {
    hint: "Pass the fileHash of your read (expected_file_hash / --file-hash) so the range can be trusted while the file is unchanged, or the read's contextHash and contextRange, or re-read and anchor a range whose content is unique.",
    details: { matches: matches.slice(0, MAX_LISTED_CANDIDATES), total: matches.length },
  });
}

/**
 * Every same-height window whose hash is the anchor. With `text` (the anchor's lines, when the
 * range still holds them) windows are compared line by line instead of hashed.
 */
export function windows(t: EditableText, height: number, anchor: string, text?: readonly string[]): LineRange[] {
  const out: LineRange[] = [];
  const lines = t.lines;
  for (let start = 1; start + height - 1 <= lines.length; start++) {
    if (text) {
      let k = 0;
      while (k < height && lines[start - 1 + k] === text[k]) k++;
      if (k < height) continue;
    } else if (hash12(lines.slice(start - 1, start - 1 + height).join("\n")) !== anchor) continue;
    out.push({ start, end: start + height - 1 });
  }
  return out;
}

function apply(t: EditableText, region: LineRange, content: string, relocated: boolean): ReplacePlan {
  const after = replaceLines(t, region.start, region.end, content);
  const written = after.lines.length - (t.lines.length - (region.end - region.start + 1));
  return { before: t, after, region, newRange: { start: region.start, end: region.start + written - 1 }, relocated };
}

/**
 * The file changed since the read its file hash names, and nothing but the anchor's own hash says
 * where the lines read are: 48 bits can collide (another writer's line with the same hash), so the
 * read's context must pin them.
 */
function unproven(t: EditableText, anchor: string, current: string, expectedFileHash: string, where: string): MastError {
  return stale(
    anchor,
    current,
    `the file changed since it was read (its hash is ${fileHash(t)}, not ${expectedFileHash}), and the anchor's hash ${where} is no proof these are the lines read; pass the read's --context-hash and --context-range to pin them`,
  );
}

/**
 * Why a whole-file anchor is not the file's hash, as exactly as the file can say: the hash of a
 * line (a lineHash given without its --range), a file as read (the --file-hash matches) with a
 * wrong anchor, or a file that changed (or a range's hash without its range).
 */
function notTheFile(t: EditableText, anchor: string, current: string, expectedFileHash: string | null): MastError {
  const lines = windows(t, 1, anchor).map((w) => w.start);
  if (lines.length > 0) {
    const which = lines.length === 1 ? `line ${lines[0]}` : `lines ${listed(lines.map(String))} (the same text)`;
    return new MastError("STALE_ANCHOR", `anchor ${anchor} is the hash of ${which}, not of the whole file: without --range an anchor is the file's hash (${current}); nothing was written.`, {
      hint:
        lines.length === 1
          ? `Pass the line with its lineHash (--range ${lines[0]}), or the file's hash (read-many's hash, read-hash's fileHash) to replace the whole file.`
          : "Pass the line you read with its lineHash (--range <line>) and the read's --file-hash or context hash to pin it, or the file's hash (read-many's hash, read-hash's fileHash) to replace the whole file.",
      details: { currentHash: current, lines: lines.slice(0, MAX_LISTED_CANDIDATES), total: lines.length },
    });
  }
  if (expectedFileHash === current)
    return stale(anchor, current, "the file is as it was read (its hash is the --file-hash given), but the anchor is not its hash nor any line's: a range's hash needs its --range");
  return stale(anchor, current, `it is not the file's hash (${current}) nor any line's: the file changed since it was read, or the anchor is a range's hash given without its --range`);
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
