// The hashpilot read and hash-edit operations (contract: read-many, read-hash, grep-many,
// replace-hash), as plain functions from arguments to the contract's `data` payloads. Paths in
// answers are absolute, as the contract's adapters expect. Writes go through the one writer.
import { mkdirSync, readdirSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { MastError, errorMessage, isMastError, type ErrorCode } from "../base/errors.js";
import { compileGlobs } from "../base/glob.js";
import { planReplace, previewDiff, type LineRange } from "./anchor.js";
import { generateDiff, planPatch, type Placement } from "./diff.js";
import { checkParseValidity } from "./gate.js";
import { writablePath } from "./paths.js";
import { currentHash, listChangeSets, markUndone, planUndo, type ChangeSet, type UndoFile } from "./snapshots.js";
import { decodeForEdit, fileHash, hash12, rangeHash, renderText, type EditableText } from "./text.js";
import { extensionInfo } from "../lang/languages.js";
import { extractFile } from "../syntax/extract.js";
import { writeAtomic } from "../base/atomic.js";
import { readBytes, withFileLock, withFileLocks } from "./writer.js";

export interface OpContext {
  /** The project root: writes must stay inside it. */
  readonly root: string;
  /** Relative paths in arguments are resolved against this. */
  readonly cwd: string;
  /** This invocation's changeSet: every write is snapshotted into it first. */
  readonly changeSet: ChangeSet;
}

/** A non-fatal notice carried in the envelope's `warnings`. */
export interface Warning {
  readonly code: "ANCHOR_RELOCATED" | "TELEMETRY_LOG_CORRUPT" | "ROUTE_FALLBACK" | "VERIFY_NO_CHECKS";
  readonly message: string;
  readonly [key: string]: unknown;
}

export interface OpResult<T> {
  readonly data: T;
  readonly warnings: readonly Warning[];
  /** Absolute paths the operation wrote or deleted (the index refreshes them). */
  readonly written?: readonly string[];
  /** The unified diff of what a write changed (provenance). */
  readonly unifiedDiff?: string;
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

/** Every edit's write: the original bytes into the changeSet first, then the atomic write. Call inside the file's lock. */
function commitWrite(ctx: OpContext, path: string, before: Uint8Array | null, after: Uint8Array): void {
  ctx.changeSet.recordWrite(path, before, after);
  try {
    writeAtomic(path, after);
  } catch (err) {
    ctx.changeSet.forgetLast();
    throw err;
  }
}

// ---- read-many ----

export interface ReadManyEntry {
  path: string;
  content: string | null;
  hash: string | null;
  lines: number;
  error: { code: ErrorCode; message: string } | null;
}

/** Every file with its content and whole-file hash; a file that cannot be read carries its error. */
export function readMany(ctx: OpContext, files: readonly string[]): OpResult<ReadManyEntry[]> {
  if (files.length === 0) throw new MastError("INVALID_ARGUMENT", "read-many needs at least one file");
  const data = files.map((file): ReadManyEntry => {
    const path = resolve(ctx.cwd, file);
    try {
      const t = readEditable(path);
      return { path, content: renderText({ ...t, bom: false }), hash: fileHash(t), lines: t.lines.length, error: null };
    } catch (err) {
      if (!isMastError(err)) throw err;
      return { path, content: null, hash: null, lines: 0, error: { code: err.code, message: err.message } };
    }
  });
  if (data.every((d) => d.error !== null)) {
    const first = data[0]!.error!;
    throw new MastError(first.code, first.message, { details: { files: data } });
  }
  return { data, warnings: [] };
}

// ---- read-hash ----

export interface ReadHashData {
  path: string;
  line: number;
  content: string;
  lineHash: string;
  contextHash: string;
  /** The lines contextHash covers (the context clamped to the file): pass it as `--range`. */
  contextRange: LineRange;
  contextBefore: string[];
  contextAfter: string[];
  error: null;
}

export function readHash(ctx: OpContext, file: string, line: number, context: number): OpResult<ReadHashData> {
  if (!Number.isInteger(context) || context < 0) throw new MastError("INVALID_ARGUMENT", `-c must be a whole number of lines, not ${context}`);
  const path = resolve(ctx.cwd, file);
  const t = readEditable(path);
  if (!Number.isInteger(line) || line < 1 || line > t.lines.length) {
    throw new MastError("INVALID_ARGUMENT", `line ${line} is not within ${path} (lines 1-${t.lines.length})`);
  }
  const start = Math.max(1, line - context);
  const end = Math.min(t.lines.length, line + context);
  return {
    data: {
      path,
      line,
      content: t.lines[line - 1]!,
      lineHash: hash12(t.lines[line - 1]!),
      contextHash: rangeHash(t, start, end),
      contextRange: { start, end },
      contextBefore: t.lines.slice(start - 1, line - 1),
      contextAfter: t.lines.slice(line, end),
      error: null,
    },
    warnings: [],
  };
}

// ---- grep-many ----

export interface GrepOptions {
  readonly ignoreCase: boolean;
  /** Only files whose path (relative to the searched directory) or name matches this glob. */
  readonly filePattern: string | null;
  readonly maxResults: number;
}

export interface GrepMatch {
  path: string;
  line: number;
  column: number;
  content: string;
  match: string;
}

export interface GrepData {
  pattern: string;
  results: GrepMatch[];
  /** Present when maxResults cut the search short. */
  truncated?: true;
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
  const translated = pattern.replace(/\[:([a-z]+):\]/g, (m, name: string) => POSIX_CLASSES[name] ?? m);
  try {
    return new RegExp(translated, ignoreCase ? "i" : "");
  } catch (err) {
    throw new MastError("INVALID_ARGUMENT", `pattern ${JSON.stringify(pattern)} does not compile: ${errorMessage(err)}`);
  }
}

/** Directories a search never descends into. */
const SKIPPED_DIRS = new Set([".git", "node_modules", ".mast", ".hg", ".svn"]);

export function grepMany(ctx: OpContext, pattern: string, paths: readonly string[], options: GrepOptions): OpResult<GrepData> {
  const started = performance.now();
  if (paths.length === 0) throw new MastError("INVALID_ARGUMENT", "grep-many needs at least one path");
  if (!Number.isInteger(options.maxResults) || options.maxResults < 1) throw new MastError("INVALID_ARGUMENT", `--max-results must be a positive integer`);
  const re = grepRegExp(pattern, options.ignoreCase);
  const glob = options.filePattern === null ? null : compileGlobs([options.filePattern]);
  const results: GrepMatch[] = [];
  let truncated = false;
  const searchFile = (abs: string) => {
    const bytes = readBytes(abs);
    if (bytes === null) return;
    let t: EditableText;
    try {
      t = decodeForEdit(abs, bytes);
    } catch {
      return; // binary or not UTF-8: not searched, as grep -I does
    }
    for (let i = 0; i < t.lines.length; i++) {
      const m = re.exec(t.lines[i]!);
      if (!m) continue;
      if (results.length === options.maxResults) {
        truncated = true;
        return;
      }
      results.push({ path: abs, line: i + 1, column: m.index + 1, content: t.lines[i]!, match: pattern });
    }
  };
  for (const p of paths) {
    const { abs, isDir, files } = filesUnder(ctx, p);
    for (const f of files) {
      if (glob && !glob.matches(relative(isDir ? abs : resolve(abs, ".."), f)) && !glob.matches(basename(f))) continue;
      if (truncated) break;
      searchFile(f);
    }
  }
  return { data: { pattern, results, ...(truncated ? { truncated: true as const } : {}), error: null, elapsed_ms: Math.round(performance.now() - started) }, warnings: [] };
}

/** A path argument of a search: the file itself, or the files under the directory; FILE_NOT_FOUND when it is neither. */
function filesUnder(ctx: OpContext, p: string): { abs: string; isDir: boolean; files: string[] } {
  const abs = resolve(ctx.cwd, p);
  let isDir: boolean;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    throw new MastError("FILE_NOT_FOUND", `${abs} does not exist`);
  }
  return { abs, isDir, files: isDir ? listFiles(abs) : [abs] };
}

/** Files under a directory, sorted, without the skipped directories and without following symlinks. */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) stack.push(join(d, e.name));
      else if (e.isFile()) out.push(join(d, e.name));
    }
  }
  return out.sort();
}

// ---- replace-hash ----

export interface ReplaceHashOptions {
  readonly range: LineRange | null;
  readonly dryRun: boolean;
  readonly recovery: boolean;
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

export async function replaceHash(ctx: OpContext, file: string, oldHash: string, content: string, options: ReplaceHashOptions): Promise<OpResult<ReplaceHashData>> {
  const path = writablePath(file, ctx.root, ctx.cwd);
  return withFileLock(path, "replace-hash", () => {
    const beforeBytes = existingBytes(path);
    const before = decodeForEdit(path, beforeBytes);
    const plan = planReplace(before, { oldHash, range: options.range, content, recovery: options.recovery });
    const afterText = renderText(plan.after);
    checkParseValidity(path, renderText(before), afterText);
    if (!options.dryRun) commitWrite(ctx, path, beforeBytes, Buffer.from(afterText, "utf8"));
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
    return { data, warnings, written: options.dryRun ? [] : [path], unifiedDiff: generateDiff(path, path, renderText(before), afterText, 0) };
  });
}

// ---- changesets and undo ----

export interface ChangeSetsData {
  changeSets: Array<{ changeSetId: string; timestamp: string; command: string; files: string[]; undoneAt?: string }>;
}

/** Recorded changeSets, newest first. */
export function changeSets(limit: number): OpResult<ChangeSetsData> {
  if (!Number.isInteger(limit) || limit < 1) throw new MastError("INVALID_ARGUMENT", "--limit must be a positive integer");
  const data = listChangeSets()
    .slice(0, limit)
    .map((c) => ({ changeSetId: c.changeSetId, timestamp: c.timestamp, command: c.command, files: [...new Set(c.files.map((f) => f.path))], ...(c.undoneAt ? { undoneAt: c.undoneAt } : {}) }));
  return { data: { changeSets: data }, warnings: [] };
}

export interface UndoData {
  success: true;
  changeSetId: string;
  dryRun?: true;
  files: UndoFile[];
  message: string;
}

/**
 * Restores every file of a changeSet (the newest not yet undone for "last") to its bytes before
 * the changeSet, deleting files it created. Each file is checked again inside its lock; an undo
 * is not itself snapshotted.
 */
export async function undo(idOrLast: string, options: { force: boolean; dryRun: boolean }): Promise<OpResult<UndoData>> {
  const plan = planUndo(idOrLast, options.force);
  const files = plan.steps.map((s) => s.report);
  if (!options.dryRun) {
    // Every file is locked and checked again before any is written: an undo restores all or none.
    await withFileLocks(
      plan.steps.map((s) => s.path),
      "undo",
      () => {
        const changed = plan.steps.filter((s) => s.expect !== null && currentHash(s.path) !== s.expect);
        if (changed.length > 0) {
          throw new MastError("HASH_MISMATCH", `${changed.map((s) => s.path).join(", ")} changed while the undo ran; nothing was restored`, {
            details: { changeSetId: plan.record.changeSetId, files: plan.steps.map((s) => ({ path: s.path, action: "skipped", reason: changed.includes(s) ? "the file changed after the edit" : "not restored: another file of the changeSet changed" })) },
          });
        }
        for (const step of plan.steps) {
          if (step.bytes !== null) writeAtomic(step.path, step.bytes);
          else {
            try {
              unlinkSync(step.path);
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new MastError("WRITE_FAILED", `cannot delete ${step.path}: ${errorMessage(err)}`);
            }
          }
        }
      },
    );
    markUndone(plan.record);
  }
  const verb = options.dryRun ? "Would undo" : "Undid";
  return {
    data: { success: true, changeSetId: plan.record.changeSetId, ...(options.dryRun ? { dryRun: true as const } : {}), files, message: `${verb} changeSet ${plan.record.changeSetId}: ${files.length} file(s)` },
    warnings: [],
    written: options.dryRun ? [] : plan.steps.map((s) => s.path),
  };
}

// ---- diff generate / diff apply ----

export interface DiffGenerateData {
  diff: string;
}

/** A unified diff between two contents (headers name `file` as a/ and b/). */
export function diffGenerate(ctx: OpContext, file: string, oldContent: string, newContent: string, context: number): OpResult<DiffGenerateData> {
  if (!Number.isInteger(context) || context < 0) throw new MastError("INVALID_ARGUMENT", `-c must be a whole number of lines, not ${context}`);
  const rel = relative(ctx.root, resolve(ctx.cwd, file)) || basename(file);
  return { data: { diff: generateDiff(`a/${rel}`, `b/${rel}`, oldContent, newContent, context) }, warnings: [] };
}

export interface DiffApplyData {
  success: true;
  dryRun?: true;
  hunksApplied: number;
  hunksFailed: 0;
  message: string;
  /** The file after the patch: on a dry run only with includeSource (#98). */
  newSource?: string;
  /** A dry run's unified diff of what would change, in place of the file (#98). */
  diff?: string;
  sourceOmitted?: true;
  placements: Placement[];
  fuzzyPlacements: Placement[];
}

export interface DiffApplyOptions {
  readonly dryRun: boolean;
  /** On a dry run, answer the whole post-patch file instead of the diff. */
  readonly includeSource: boolean;
  /** How far a hunk may slide from where the patch puts it; null: anywhere it is unambiguous. */
  readonly fuzzy: number | null;
}

/** Applies a one-file unified diff: every hunk placed (exactly or within the fuzzy window) or nothing written. */
export async function diffApply(ctx: OpContext, file: string, patch: string, options: DiffApplyOptions): Promise<OpResult<DiffApplyData>> {
  const path = writablePath(file, ctx.root, ctx.cwd);
  return withFileLock(path, "diff apply", () => {
    const beforeBytes = readBytes(path);
    const before = beforeBytes === null ? null : decodeForEdit(path, beforeBytes);
    const plan = planPatch(before, patch, options.fuzzy);
    if (before === null && !plan.creates) throw new MastError("FILE_NOT_FOUND", `${path} does not exist (the patch does not create it)`);
    if (before !== null && plan.creates && !(before.lines.length === 1 && before.lines[0] === "")) {
      throw new MastError("STALE_ANCHOR", `the patch creates ${path}, which already exists; nothing was written`, { hint: "Re-read the file and regenerate the patch against it." });
    }
    const afterText = renderText(plan.after);
    if (before !== null) checkParseValidity(path, renderText(before), afterText);
    if (!options.dryRun) {
      // A file the patch creates may live in directories that do not exist yet (inside the root: checked above).
      if (before === null) mkdirSync(dirname(path), { recursive: true });
      commitWrite(ctx, path, beforeBytes, Buffer.from(afterText, "utf8"));
    }
    const fuzzyPlacements = plan.placements.filter((p) => p.offset !== 0);
    const n = plan.placements.length;
    return {
      data: {
        success: true,
        ...(options.dryRun ? { dryRun: true as const } : {}),
        hunksApplied: n,
        hunksFailed: 0,
        message: `${options.dryRun ? "Would apply" : "Applied"} ${n} hunk(s)${fuzzyPlacements.length ? `; ${fuzzyPlacements.length} slid from where the patch placed them (${fuzzyPlacements.map((p) => `${p.expectedAt}→${p.appliedAt}`).join(", ")})` : ""}`,
        ...(options.dryRun && !options.includeSource
          ? { diff: generateDiff(path, path, before === null ? "" : renderText(before), afterText, 3), sourceOmitted: true as const }
          : { newSource: renderText({ ...plan.after, bom: false }) }),
        placements: plan.placements,
        fuzzyPlacements,
      },
      warnings: [],
      written: options.dryRun ? [] : [path],
      unifiedDiff: generateDiff(path, path, before === null ? "" : renderText(before), afterText, 0),
    };
  });
}

// ---- symbol-lookup-many ----

export interface SymbolHit {
  name: string;
  path: string;
  line: number;
  kind: string;
}

/** Declarations named `names` (a method by `Class.method` or by its own name) in the files under `paths`. */
export function symbolLookupMany(ctx: OpContext, paths: readonly string[], names: readonly string[]): OpResult<SymbolHit[]> {
  if (paths.length === 0 || names.length === 0) throw new MastError("INVALID_ARGUMENT", "symbol-lookup-many needs at least one path and one name (--names a,b)");
  const wanted = new Set(names);
  const hits: SymbolHit[] = [];
  for (const p of paths) {
    for (const path of filesUnder(ctx, p).files) {
      if (extensionInfo(path)?.grammar == null) continue;
      let t: EditableText;
      try {
        t = readEditable(path);
      } catch {
        continue;
      }
      const result = extractFile(path, t.lines.join("\n"), SYMBOL_EXTRACT_OPTIONS);
      if (!result.ok) continue;
      for (const s of result.extraction.symbols) {
        if (s.kind === "export" || s.kind === "module") continue;
        if (wanted.has(s.name) || wanted.has(s.name.slice(s.name.lastIndexOf(".") + 1))) hits.push({ name: s.name, path, line: s.line, kind: s.kind });
      }
    }
  }
  return { data: hits, warnings: [] };
}

/** Extraction settings for a symbol lookup (chunking does not matter here). */
const SYMBOL_EXTRACT_OPTIONS = { chunkSplitThreshold: 100, contextLines: 0, markdownHeadingDepth: 2, parseTimeoutMs: 10_000 };
