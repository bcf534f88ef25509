// The hashpilot read and hash-edit operations (contract: read-many, read-hash, grep-many,
// replace-hash, diff generate/apply, changesets, undo, symbol-lookup-many), as plain functions
// from arguments to the contract's `data` payloads. Every path passes the project boundary
// (edit/paths.ts) before it is read or written; every list is cut to its limit and the answer
// budget with the count left out; paths in answers are absolute, as the contract's adapters
// expect. Writes go through the one writer, recorded in the changeSet before and confirmed after.
import { statSync } from "node:fs";
import { basename, relative, resolve } from "node:path";
import { LIST_BUDGET_BYTES, cutMarks, fitList, wireBytes } from "../base/budget.js";
import { MastError, errorMessage, isMastError, type ErrorCode } from "../base/errors.js";
import { yieldToLoop } from "../base/loop.js";
import { listed, planReplace, previewDiff, windows, type LineRange } from "./anchor.js";
import { generateDiff, generateDiffOffThread, patchCreatesFile, planPatch, type Placement } from "./diff.js";
import type { EditedLines } from "./gate.js";
import type { OpContext, OpResult, Warning } from "./op-result.js";
import { editTransaction } from "./transaction.js";
import { DEFAULT_GREP_TIMEOUT_MS, MAX_PATTERN_LENGTH, MAX_READ_FILES, filesUnder as walkFiles, grep, readLines, type GrepMatch, type GrepSkipped } from "./grep.js";
import { checkPathArgument, readablePath } from "./paths.js";
import { checkRestorable, currentHash, listChangeSets, markUndone, planUndo, type UndoFile } from "./snapshots.js";
import { decodeForEdit, fileHash, hash12, isEmptyText, parseText, rangeHash, renderText, replaceLines, type EditableText } from "./text.js";
import { extensionInfo } from "../lang/languages.js";
import { extractFile } from "../syntax/extract.js";
import { writeAtomic } from "../base/atomic.js";
import { removePinned } from "../base/confined.js";
import { EDIT_MAX_FILE_BYTES, readBytes, withFileLocks } from "./writer.js";

/** An array answer cut to `limit` and the answer budget, with a RESULT_TRUNCATED warning saying how many were left out. */
export function truncatedList<T>(result: OpResult<T[]>, limit: number): OpResult<T[]> {
  const fit = fitList(result.data, limit);
  if (fit.omitted === 0) return result;
  const warning: Warning = {
    code: "RESULT_TRUNCATED",
    message: `${fit.omitted} more result(s) were left out (limit ${Number.isFinite(limit) ? limit : "none"}, or the answer cap)`,
    omitted: fit.omitted,
  };
  return { ...result, data: fit.items, warnings: [...result.warnings, warning] };
}

/** A file's bytes; FILE_NOT_FOUND when it does not exist. */
function existingBytes(abs: string): Buffer {
  const bytes = readBytes(abs);
  if (bytes === null) throw new MastError("FILE_NOT_FOUND", `${abs} does not exist`);
  return bytes;
}

/** Reads a file as editable text; FILE_NOT_FOUND when it does not exist. */
export function readEditable(abs: string): EditableText {
  return decodeForEdit(abs, existingBytes(abs));
}

/** A file a read tool may read, as editable text: `path` as named, the text from its real path. */
function readInside(ctx: OpContext, file: string): { path: string; text: EditableText } {
  const { abs, real } = readablePath(file, ctx.boundary, ctx.cwd);
  return { path: abs, text: decodeForEdit(abs, existingBytes(real)) };
}

// ---- read-many ----

export interface ReadManyEntry {
  path: string;
  content: string | null;
  hash: string | null;
  lines: number;
  error: { code: ErrorCode; message: string } | null;
  /** The file the answer cap cut: `content` holds its lines 1..contentEndLine only (hash and lines are the whole file's). */
  truncated?: true;
  contentEndLine?: number;
}

/** Room kept under read-many's budget for the list of the files it left out. */
const OMITTED_LIST_BYTES = 64 * 1024;

/**
 * Every file with its content and whole-file hash, in order, until the answer budget: the file
 * that crosses it is cut at a line end (truncated, contentEndLine) and the files after it are not
 * read — a RESULT_TRUNCATED warning counts and lists them. A file that cannot be read carries its
 * error; when every file errs, the first error is the answer's.
 */
export function readMany(ctx: OpContext, files: readonly string[]): OpResult<ReadManyEntry[]> {
  if (files.length === 0) throw new MastError("INVALID_ARGUMENT", "read-many needs at least one file");
  if (files.length > MAX_READ_FILES) throw new MastError("INVALID_ARGUMENT", `read-many takes at most ${MAX_READ_FILES} files, not ${files.length}`);
  const named = (file: string) => (typeof file === "string" && !file.includes("\0") ? resolve(ctx.cwd, file) : String(file));
  const data: ReadManyEntry[] = [];
  let room = LIST_BUDGET_BYTES - OMITTED_LIST_BYTES;
  let cut: ReadManyEntry | null = null;
  for (const file of files) {
    const entry = readEntry(ctx, file, named(file));
    const size = wireBytes(entry.entry) + 1;
    if (size <= room) {
      data.push(entry.entry);
      room -= size;
      continue;
    }
    if (entry.text !== null) data.push((cut = cutEntry(entry.entry, entry.text, room)));
    break;
  }
  const left = files.slice(data.length).map(named);
  if (left.length === 0 && data.every((d) => d.error !== null)) {
    const first = data[0]!.error!;
    throw new MastError(first.code, first.message, { details: { files: data } });
  }
  if (left.length === 0 && cut === null) return { data, warnings: [] };
  const shown = fitList(left, Infinity, OMITTED_LIST_BYTES - 1024);
  const cutText = cut === null ? "" : `${cut.path} is cut after line ${cut.contentEndLine} of ${cut.lines}; `;
  const leftText = left.length === 0 ? "" : `${left.length} file(s) from ${left[0]} on were not read${shown.omitted > 0 ? ` (the first ${shown.items.length} are listed)` : ""}; `;
  const warning: Warning = {
    code: "RESULT_TRUNCATED",
    message: `read-many stopped at the answer cap: ${cutText}${leftText}read the rest in another call, or in parts with read-hash or the index tools`,
    omitted: left.length,
    files: shown.items,
  };
  return { data, warnings: [warning] };
}

/** One file's read-many entry, with its text when it was read. */
function readEntry(ctx: OpContext, file: string, named: string): { entry: ReadManyEntry; text: EditableText | null } {
  try {
    const { path, text } = readInside(ctx, file);
    return { entry: { path, content: renderText({ ...text, bom: false }), hash: fileHash(text), lines: text.lines.length, error: null }, text };
  } catch (err) {
    if (!isMastError(err)) throw err;
    return { entry: { path: named, content: null, hash: null, lines: 0, error: { code: err.code, message: err.message } }, text: null };
  }
}

/** The entry with its content cut to the whole lines that fit in `room` message bytes (base/budget.ts). */
function cutEntry(entry: ReadManyEntry, text: EditableText, room: number): ReadManyEntry {
  let free = room - wireBytes({ ...entry, content: "", truncated: true, contentEndLine: text.lines.length }) - 1;
  let end = 0;
  let content = "";
  for (; end < text.lines.length; end++) {
    const line = text.lines[end]! + text.endings[end]!;
    const size = wireBytes(line) - 2;
    if (size > free) break;
    free -= size;
    content += line;
  }
  return { ...entry, content, truncated: true, contentEndLine: end };
}

// ---- read-hash ----

export interface ReadHashData {
  path: string;
  line: number;
  content: string;
  lineHash: string;
  contextHash: string;
  /** The lines contextHash covers (the context clamped to the file): pass it as `--range`, or as `--context-range` with `--context-hash`. */
  contextRange: LineRange;
  contextBefore: string[];
  contextAfter: string[];
  /** The whole file's hash: pass it as `--file-hash` so an anchor whose text is not unique can be applied while the file is unchanged. */
  fileHash: string;
  error: null;
}

export function readHash(ctx: OpContext, file: string, line: number, context: number): OpResult<ReadHashData> {
  if (!Number.isInteger(context) || context < 0) throw new MastError("INVALID_ARGUMENT", `-c must be a whole number of lines, not ${context}`);
  const { path, text: t } = readInside(ctx, file);
  if (!Number.isInteger(line) || line < 1 || line > t.lines.length) {
    throw new MastError("INVALID_ARGUMENT", `line ${line} is not within ${path} (lines 1-${t.lines.length})`);
  }
  const start = Math.max(1, line - context);
  const end = Math.min(t.lines.length, line + context);
  const content = t.lines[line - 1]!;
  const lineHash = hash12(content);
  const occurrences = windows(t, 1, lineHash, [content]);
  const warnings: Warning[] =
    occurrences.length > 1
      ? [
          {
            code: "ANCHOR_NOT_UNIQUE",
            message: `line ${line}'s text occurs ${occurrences.length} times in the file (lines ${listed(occurrences.map((o) => String(o.start)))}): its lineHash alone cannot say which; edit with --file-hash ${fileHash(t)}, or anchor on the contextHash`,
            occurrences: occurrences.length,
          },
        ]
      : [];
  return {
    data: {
      path,
      line,
      content,
      lineHash,
      contextHash: rangeHash(t, start, end),
      contextRange: { start, end },
      contextBefore: t.lines.slice(start - 1, line - 1),
      contextAfter: t.lines.slice(line, end),
      fileHash: fileHash(t),
      error: null,
    },
    warnings,
  };
}

// ---- grep-many ----

export interface GrepOptions {
  readonly ignoreCase: boolean;
  /** Only files whose path (relative to the searched directory) or name matches this glob. */
  readonly filePattern: string | null;
  readonly maxResults: number;
  /** The search's time budget; what was found by then is answered with timedOut. */
  readonly timeoutMs?: number;
}

/** A line longer than this is answered as a slice of it (contentColumn says where it starts). */
export const MAX_LINE_CHARS = 4096;

export interface GrepResult extends GrepMatch {
  /** Present when content is a slice of a longer line: the 1-based column the slice starts at. */
  contentColumn?: number;
  contentTruncated?: true;
}

export interface GrepData {
  pattern: string;
  results: GrepResult[];
  /** Present when maxResults, the time budget or the answer cap cut the search short. */
  truncated?: true;
  /** Present when the time budget ran out (results are what was found by then). */
  timedOut?: true;
  filesSearched: number;
  /** Files not searched: unreadable, binary or not UTF-8, over the size cap, special (FIFOs, sockets, devices). */
  skipped: GrepSkipped;
  error: null;
  elapsed_ms: number;
}

/** POSIX bracket classes grep users write, as JavaScript classes (#105: columns stay exact). */
const POSIX_CLASSES: Record<string, string> = {
  alpha: "A-Za-z",
  digit: "0-9",
  alnum: "A-Za-z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: "\\s",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
  word: "\\w",
};

/** A grep pattern as a JavaScript RegExp; INVALID_ARGUMENT when it does not compile. */
export function grepRegExp(pattern: string, ignoreCase: boolean): RegExp {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new MastError("INVALID_ARGUMENT", `a pattern of ${pattern.length} characters is longer than ${MAX_PATTERN_LENGTH}`);
  const translated = pattern.replace(/\[:([a-z]+):\]/g, (m, name: string) => POSIX_CLASSES[name] ?? m);
  try {
    return new RegExp(translated, ignoreCase ? "i" : "");
  } catch (err) {
    throw new MastError("INVALID_ARGUMENT", `pattern ${JSON.stringify(pattern.slice(0, 200))} does not compile: ${errorMessage(err)}`);
  }
}

/** A path argument of a search: the file or directory it names, inside the boundary; FILE_NOT_FOUND when it is neither. */
function searchTarget(ctx: OpContext, p: string): { abs: string; real: string; isDir: boolean } {
  const { abs, real } = readablePath(p, ctx.boundary, ctx.cwd);
  const st = statSync(real, { throwIfNoEntry: false });
  if (st === undefined) throw new MastError("FILE_NOT_FOUND", `${abs} does not exist`);
  return { abs, real, isDir: st.isDirectory() };
}

/** A match as answered: a line over MAX_LINE_CHARS becomes a slice around the match. */
function answerMatch(m: GrepMatch): GrepResult {
  if (m.content.length <= MAX_LINE_CHARS) return m;
  const from = Math.max(0, Math.min(m.column - 1 - 256, m.content.length - MAX_LINE_CHARS));
  return { ...m, content: m.content.slice(from, from + MAX_LINE_CHARS), contentColumn: from + 1, contentTruncated: true };
}

export async function grepMany(ctx: OpContext, pattern: string, paths: readonly string[], options: GrepOptions): Promise<OpResult<GrepData>> {
  const started = performance.now();
  if (paths.length === 0) throw new MastError("INVALID_ARGUMENT", "grep-many needs at least one path");
  if (!Number.isInteger(options.maxResults) || options.maxResults < 1) throw new MastError("INVALID_ARGUMENT", `--max-results must be a positive integer`);
  const re = grepRegExp(pattern, options.ignoreCase);
  const targets = paths.map((p) => searchTarget(ctx, p));
  const outcome = await grep(
    { source: re.source, flags: re.flags, pattern, targets, filePattern: options.filePattern, maxResults: options.maxResults, sealed: ctx.boundary.sealed, maxFileBytes: EDIT_MAX_FILE_BYTES },
    options.timeoutMs ?? DEFAULT_GREP_TIMEOUT_MS,
  );
  const fit = fitList(outcome.results.map(answerMatch), Infinity);
  const truncated = outcome.truncated || fit.omitted > 0;
  return {
    data: {
      pattern,
      results: fit.items,
      ...(truncated ? { truncated: true as const } : {}),
      ...(outcome.timedOut ? { timedOut: true as const } : {}),
      filesSearched: outcome.filesSearched,
      skipped: outcome.skipped,
      error: null,
      elapsed_ms: Math.round(performance.now() - started),
    },
    warnings: [
      ...(outcome.timedOut
        ? [
            {
              code: "SEARCH_TRUNCATED" as const,
              message: `the search ran out of its ${options.timeoutMs ?? DEFAULT_GREP_TIMEOUT_MS} ms budget after ${outcome.filesSearched} file(s); the results are what was found by then (narrow the paths, or raise the time budget)`,
            },
          ]
        : []),
      ...(fit.omitted > 0
        ? [{ code: "RESULT_TRUNCATED" as const, message: `${fit.omitted} more match(es) were left out (the answer cap): narrow the paths or the pattern`, omitted: fit.omitted }]
        : []),
    ],
  };
}

// ---- replace-hash ----

export interface ReplaceHashOptions {
  readonly range: LineRange | null;
  readonly dryRun: boolean;
  readonly recovery: boolean;
  /** The fileHash of the read the anchor came from. */
  readonly expectedFileHash?: string | null;
  /** The read's contextHash and contextRange. */
  readonly context?: { readonly hash: string; readonly range: LineRange } | null;
}

export interface ReplaceHashData {
  path: string;
  success: true;
  dryRun?: true;
  oldHash: string;
  newHash: string;
  fileHash: string;
  newRange: LineRange;
  linesChanged: number;
  stale: boolean;
  retries: number;
  relocatedTo?: LineRange;
  message: string;
  diff: string;
}

/** The lines of a new range as the gate and provenance take them: an empty range (lines removed) is the line where they were. */
export const editedOf = (r: LineRange): EditedLines => ({ start: r.start, end: Math.max(r.start, r.end) });

/** New content is text: a NUL byte is refused (the result could never be read or edited again). */
function checkText(content: string, what: string): void {
  if (content.includes("\0")) throw new MastError("INVALID_ARGUMENT", `${what} has a NUL byte; only text is written`);
}

export async function replaceHash(ctx: OpContext, file: string, oldHash: string, content: string, options: ReplaceHashOptions): Promise<OpResult<ReplaceHashData>> {
  checkText(content, "the new content");
  return editTransaction(ctx, file, { operation: "replace-hash", dryRun: options.dryRun, gate: "text" }, ({ path, text }) => {
    const before = text!;
    const plan = planReplace(before, { oldHash, range: options.range, content, recovery: options.recovery, expectedFileHash: options.expectedFileHash ?? null, context: options.context ?? null });
    const { region, newRange } = plan;
    const replaced = region.end - region.start + 1;
    const written = newRange.end - newRange.start + 1;
    const where = plan.relocated ? `anchor relocated to ${region.start}-${region.end}` : `range ${region.start}-${region.end}`;
    const data: ReplaceHashData = {
      path,
      success: true,
      ...(options.dryRun ? { dryRun: true as const } : {}),
      oldHash,
      newHash: hash12(plan.after.lines.slice(newRange.start - 1, newRange.end).join("\n")),
      fileHash: fileHash(plan.after),
      newRange,
      linesChanged: written,
      stale: plan.relocated,
      retries: plan.relocated ? 1 : 0,
      ...(plan.relocated ? { relocatedTo: region } : {}),
      message: `${options.dryRun ? "Would replace" : "Replaced"} ${replaced} line${replaced === 1 ? "" : "s"} with ${written} line${written === 1 ? "" : "s"} (${where})`,
      diff: previewDiff(plan),
    };
    const warnings: Warning[] = plan.relocated
      ? [{ code: "ANCHOR_RELOCATED", message: `the anchor moved: the edit applied at lines ${region.start}-${region.end}, not ${options.range!.start}-${options.range!.end}`, relocatedTo: region }]
      : [];
    return { after: plan.after, edited: [editedOf(newRange)], data, warnings };
  });
}

// ---- changesets and undo ----

export interface ChangeSetsData {
  changeSets: Array<{ changeSetId: string; timestamp: string; command: string; files: string[]; undoneAt?: string }>;
  truncated?: true;
  omitted?: number;
}

/** This project's recorded changeSets, newest first. */
export function changeSets(ctx: OpContext, limit: number): OpResult<ChangeSetsData> {
  if (!Number.isInteger(limit) || limit < 1) throw new MastError("INVALID_ARGUMENT", "--limit must be a positive integer");
  const all = listChangeSets(ctx.boundary.realRoot).map((c) => ({
    changeSetId: c.changeSetId,
    timestamp: c.timestamp,
    command: c.command,
    files: [...new Set(c.files.map((f) => f.path))],
    ...(c.undoneAt ? { undoneAt: c.undoneAt } : {}),
  }));
  const fit = fitList(all, limit);
  return { data: { changeSets: fit.items, ...cutMarks(fit.omitted) }, warnings: [] };
}

export interface UndoData {
  success: true;
  changeSetId: string;
  dryRun?: true;
  files: UndoFile[];
  message: string;
}

/**
 * Restores every file of one of this project's changeSets (the newest not yet undone for "last")
 * to its bytes before the changeSet, deleting files it created. Every path passes the write
 * boundary again; each file is locked and checked again before any is written; an undo is not
 * itself snapshotted.
 */
export async function undo(ctx: OpContext, idOrLast: string, options: { force: boolean; dryRun: boolean }): Promise<OpResult<UndoData>> {
  const plan = planUndo(idOrLast, options.force, ctx.boundary);
  const files = plan.steps.map((s) => s.report);
  if (!options.dryRun) {
    // Every file is locked and checked again before any is written: an undo restores all or none.
    await withFileLocks(
      plan.steps.map((s) => s.path),
      "undo",
      () => {
        checkRestorable(
          plan.steps.map((s) => s.path),
          ctx.boundary,
        );
        const changed = plan.steps.filter((s) => s.expect !== null && currentHash(s.path) !== s.expect);
        if (changed.length > 0) {
          throw new MastError("HASH_MISMATCH", `${changed.map((s) => s.path).join(", ")} changed while the undo ran; nothing was restored`, {
            details: {
              changeSetId: plan.record.changeSetId,
              files: plan.steps.map((s) => ({
                path: s.path,
                action: "skipped",
                reason: changed.includes(s) ? "the file changed after the edit" : "not restored: another file of the changeSet changed",
              })),
            },
          });
        }
        for (const step of plan.steps) {
          if (step.bytes !== null) writeAtomic(step.path, step.bytes, { pinned: true });
          else {
            try {
              removePinned(step.path);
            } catch (err) {
              if (isMastError(err)) throw err;
              throw new MastError("WRITE_FAILED", `cannot delete ${step.path}: ${errorMessage(err)}`);
            }
          }
        }
      },
    );
    markUndone(plan.record);
  }
  const verb = options.dryRun ? "Would undo" : "Undid";
  return {
    data: {
      success: true,
      changeSetId: plan.record.changeSetId,
      ...(options.dryRun ? { dryRun: true as const } : {}),
      files,
      message: `${verb} changeSet ${plan.record.changeSetId}: ${files.length} file(s)`,
    },
    warnings: [],
    written: options.dryRun ? [] : plan.steps.map((s) => s.path),
  };
}

// ---- diff generate / diff apply ----

export interface DiffGenerateData {
  diff: string;
}

/** A unified diff between two contents (headers name `file`, relative to the root, as a/ and b/). */
export async function diffGenerate(ctx: OpContext, file: string, oldContent: string, newContent: string, context: number): Promise<OpResult<DiffGenerateData>> {
  if (!Number.isInteger(context) || context < 0) throw new MastError("INVALID_ARGUMENT", `-c must be a whole number of lines, not ${context}`);
  checkPathArgument(file);
  const rel = relative(ctx.boundary.root, resolve(ctx.cwd, file)) || basename(file);
  return { data: { diff: await generateDiffOffThread({ oldName: `a/${rel}`, newName: `b/${rel}`, oldText: oldContent, newText: newContent, context }) }, warnings: [] };
}

export interface DiffApplyData {
  success: true;
  dryRun?: true;
  hunksApplied: number;
  hunksFailed: 0;
  message: string;
  /** The file's hash after the patch (the anchor for a next edit's expected file hash). */
  fileHash: string;
  /** The new-file lines each hunk wrote. */
  newRanges: LineRange[];
  /** The whole file after the patch: only with includeSource. */
  newSource?: string;
  /** A dry run's unified diff of what would change, in place of the file (#98). */
  diff?: string;
  sourceOmitted?: true;
  placements: Placement[];
  fuzzyPlacements: Placement[];
}

export interface DiffApplyOptions {
  readonly dryRun: boolean;
  /** Answer the whole post-patch file (newSource). */
  readonly includeSource: boolean;
  /** How far a hunk may slide from where the patch puts it; null: anywhere it is unambiguous. */
  readonly fuzzy: number | null;
  /** The fileHash of the read the patch was made against. */
  readonly expectedFileHash?: string | null;
}

/** Applies a one-file unified diff: every hunk placed with certainty, or nothing written. */
export async function diffApply(ctx: OpContext, file: string, patch: string, options: DiffApplyOptions): Promise<OpResult<DiffApplyData>> {
  checkText(patch, "the patch");
  const creates = patchCreatesFile(patch);
  return editTransaction(ctx, file, { operation: "diff apply", dryRun: options.dryRun, gate: "text", mayCreate: creates }, ({ path, text: before }) => {
    if (before !== null && creates && !isEmptyText(before)) {
      throw new MastError("STALE_ANCHOR", `the patch creates ${path}, which already exists; nothing was written`, { hint: "Re-read the file and regenerate the patch against it." });
    }
    const plan = planPatch(before, patch, { fuzzy: options.fuzzy, expectedFileHash: options.expectedFileHash ?? null });
    const fuzzyPlacements = plan.placements.filter((p) => p.offset !== 0);
    const n = plan.placements.length;
    const data: DiffApplyData = {
      success: true,
      ...(options.dryRun ? { dryRun: true as const } : {}),
      hunksApplied: n,
      hunksFailed: 0,
      message: `${options.dryRun ? "Would apply" : "Applied"} ${n} hunk(s)${fuzzyPlacements.length ? `; ${fuzzyPlacements.length} slid from where the patch placed them (${fuzzyPlacements.map((p) => `${p.expectedAt}→${p.appliedAt}`).join(", ")})` : ""}`,
      fileHash: fileHash(plan.after),
      newRanges: plan.written,
      ...sourceOrDiff(path, before, plan.after, options),
      placements: plan.placements,
      fuzzyPlacements,
    };
    return { after: plan.after, edited: plan.written.map(editedOf), data };
  });
}

export interface ReplaceContentData {
  success: true;
  path: string;
  operation: "replace-content";
  changes: number;
  message: string;
  dryRun?: true;
  fileHash: string;
  changedLines: LineRange[];
  newSource?: string;
  diff?: string;
  sourceOmitted?: true;
}

/**
 * The diff route's edit (route-edit `replace-content`): the lines of `oldContent`, found in exactly
 * one place, become `newContent`; STALE_ANCHOR when they are nowhere, AMBIGUOUS_ANCHOR when they
 * are in several places.
 */
export async function replaceContent(
  ctx: OpContext,
  file: string,
  oldContent: string,
  newContent: string,
  options: { dryRun: boolean; includeSource: boolean },
): Promise<OpResult<ReplaceContentData>> {
  checkText(newContent, "the new content");
  const old = parseText(oldContent).lines;
  if (old.length === 0 || (old.length === 1 && old[0] === "")) throw new MastError("INVALID_ARGUMENT", "old_content is empty; say which lines to replace");
  return editTransaction(ctx, file, { operation: "replace-content", dryRun: options.dryRun, gate: "text" }, ({ path, text }) => {
    const before = text!;
    const at = windows(before, old.length, hash12(old.join("\n")), old);
    if (at.length === 0) throw new MastError("STALE_ANCHOR", `the old content (${old.length} line(s)) is not in ${path}; nothing was written`);
    if (at.length > 1)
      throw new MastError("AMBIGUOUS_ANCHOR", `the old content is in ${at.length} places in ${path} (lines ${listed(at.map((w) => String(w.start)))}); nothing was written`, {
        hint: "Give more lines of context in old_content, or edit by hash with read-hash's range.",
      });
    const { start } = at[0]!;
    const after = replaceLines(before, start, start + old.length - 1, newContent);
    const written = newContent === "" ? 0 : parseText(newContent).lines.length;
    const changed = { start, end: Math.max(start, start + written - 1) };
    return {
      after,
      edited: [changed],
      data: {
        success: true,
        path,
        operation: "replace-content",
        changes: 1,
        message: `${options.dryRun ? "Would replace" : "Replaced"} lines ${start}-${start + old.length - 1} with ${written} line(s)`,
        ...(options.dryRun ? { dryRun: true as const } : {}),
        fileHash: fileHash(after),
        changedLines: [changed],
        ...sourceOrDiff(path, before, after, options),
      },
    };
  });
}

/** What a write answers of the new file: all of it with includeSource, a dry run's unified diff otherwise (#98), nothing for a write. */
export function sourceOrDiff(
  path: string,
  before: EditableText | null,
  after: EditableText,
  options: { dryRun: boolean; includeSource: boolean },
): { newSource?: string; diff?: string; sourceOmitted?: true } {
  if (options.includeSource) return { newSource: renderText({ ...after, bom: false }) };
  if (!options.dryRun) return {};
  return { diff: generateDiff(path, path, before === null ? "" : renderText(before), renderText(after), 3), sourceOmitted: true };
}

// ---- symbol-lookup-many ----

export interface SymbolHit {
  name: string;
  path: string;
  line: number;
  kind: string;
}

export interface SymbolLookupOptions {
  /** Hits answered at most (the rest are counted in a RESULT_TRUNCATED warning). */
  readonly limit: number;
  /** The lookup's time budget, checked between files (SEARCH_TRUNCATED when it runs out). */
  readonly timeoutMs: number;
}

/** A file over this is not parsed by a lookup (counted as skipped). */
const LOOKUP_MAX_FILE_BYTES = 2 * 1024 * 1024;

/**
 * Declarations named `names` (a method by `Class.method` or by its own name) in the files under
 * `paths`, giving the event loop a turn between files and stopping at the time budget.
 */
export async function symbolLookupMany(ctx: OpContext, paths: readonly string[], names: readonly string[], options: SymbolLookupOptions): Promise<OpResult<SymbolHit[]>> {
  if (paths.length === 0 || names.length === 0) throw new MastError("INVALID_ARGUMENT", "symbol-lookup-many needs at least one path and one name (--names a,b)");
  const wanted = new Set(names);
  const hits: SymbolHit[] = [];
  const targets = paths.map((p) => searchTarget(ctx, p));
  const deadline = Date.now() + options.timeoutMs;
  const skipped: GrepSkipped = { unreadable: 0, binary: 0, tooLarge: 0, special: 0 };
  let searched = 0;
  let timedOut = false;
  outer: for (const target of targets) {
    const files = target.isDir ? walkFiles(target.real, ctx.boundary.sealed, skipped) : [target.real];
    for (const real of files) {
      if (extensionInfo(real)?.grammar == null) continue;
      if (Date.now() > deadline) {
        timedOut = true;
        break outer;
      }
      const shown = target.isDir ? resolve(target.abs, relative(target.real, real)) : target.abs;
      const lines = readLines(real, LOOKUP_MAX_FILE_BYTES, skipped);
      if (lines === null) continue;
      searched++;
      const result = extractFile(real, lines.join("\n"), SYMBOL_EXTRACT_OPTIONS);
      if (result.ok) {
        for (const s of result.extraction.symbols) {
          if (s.kind === "export" || s.kind === "module") continue;
          if (wanted.has(s.name) || wanted.has(s.name.slice(s.name.lastIndexOf(".") + 1))) hits.push({ name: s.name, path: shown, line: s.line, kind: s.kind });
        }
      }
      await yieldToLoop();
    }
  }
  const result = truncatedList({ data: hits, warnings: [] }, options.limit);
  const notRead = skipped.unreadable + skipped.binary + skipped.tooLarge + skipped.special;
  const incomplete: Warning[] = [
    ...(timedOut
      ? [
          {
            code: "SEARCH_TRUNCATED" as const,
            message: `the lookup ran out of its ${options.timeoutMs} ms budget after ${searched} file(s); declarations in the files not read are missing (narrow the paths)`,
            filesSearched: searched,
          },
        ]
      : []),
    ...(notRead > 0
      ? [
          {
            code: "SEARCH_TRUNCATED" as const,
            message: `${notRead} file(s) were not read (unreadable, not text, over ${LOOKUP_MAX_FILE_BYTES} bytes, or special): declarations in them are missing`,
            skipped,
          },
        ]
      : []),
  ];
  return incomplete.length ? { ...result, warnings: [...result.warnings, ...incomplete] } : result;
}

/** Extraction settings for a symbol lookup (chunking does not matter here). */
const SYMBOL_EXTRACT_OPTIONS = { chunkSplitThreshold: 100, contextLines: 0, markdownHeadingDepth: 2, parseTimeoutMs: 2_000 };
