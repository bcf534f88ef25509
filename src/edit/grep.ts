// grep-many's search, run where a user's pattern cannot stop the process: in a worker thread the
// caller's thread watches. The worker walks the targets (sorted, no symlinks, skipped and sealed
// directories left out), reads each regular file under the size cap and matches line by line,
// publishing its progress in shared memory. The watcher answers with what was found when the
// time budget runs out (timedOut), and REGEX_TIMEOUT when one line's match stalls past
// STALL_MS (catastrophic backtracking) — terminating the worker either way. Unreadable, binary,
// oversized and special files are skipped and counted. From TypeScript sources (tests), where no
// compiled worker exists, the search runs inline with the budget checked between lines.
import { type Dirent, existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { MastError } from "../base/errors.js";
import { compileGlobs } from "../base/glob.js";
import { relativeInside } from "../base/paths.js";
import { readRegularFile } from "../base/read.js";
import { decodeForEdit } from "./text.js";

/** How long one line's match may run before the pattern is taken to backtrack catastrophically. */
const STALL_MS = 1_000;
/** The longest pattern accepted. */
export const MAX_PATTERN_LENGTH = 10_000;

/** Files read-many takes in one call at most. */
export const MAX_READ_FILES = 1000;

/** The default time budget of one search. */
export const DEFAULT_GREP_TIMEOUT_MS = 4_000;
/** Directories a search never descends into. */
const SKIPPED_DIRS = new Set([".git", "node_modules", ".mast", ".hg", ".svn"]);

export interface GrepTarget {
  /** The path as the caller named it (answers use it). */
  readonly abs: string;
  /** The real path to read. */
  readonly real: string;
  readonly isDir: boolean;
}

export interface GrepRequest {
  readonly source: string;
  readonly flags: string;
  /** The pattern as given (echoed in each match). */
  readonly pattern: string;
  readonly targets: readonly GrepTarget[];
  readonly filePattern: string | null;
  readonly maxResults: number;
  /** Directories never searched (hashpilot's store, the state dir). */
  readonly sealed: readonly string[];
  readonly maxFileBytes: number;
}

export interface GrepMatch {
  path: string;
  line: number;
  column: number;
  content: string;
  match: string;
}

export interface GrepSkipped {
  unreadable: number;
  binary: number;
  tooLarge: number;
  special: number;
}

export interface GrepOutcome {
  readonly results: GrepMatch[];
  readonly truncated: boolean;
  readonly timedOut: boolean;
  readonly filesSearched: number;
  readonly skipped: GrepSkipped;
}

/**
 * Shared progress slots: ticks (one per line and file), phase (1 reading, 2 matching), current
 * line, path length, then the counts (files searched and the four skipped kinds); then the
 * current path's UTF-8 bytes.
 */
const TICKS = 0;
const PHASE = 1;
const LINE = 2;
const PATH_LENGTH = 3;
const COUNTS = 4;
const HEADER_BYTES = 9 * 4;
const PATH_BYTES = 4096;

interface Counts extends GrepSkipped {
  files: number;
}

const COUNT_KEYS = ["files", "unreadable", "binary", "tooLarge", "special"] as const;

interface Reporter {
  match(m: GrepMatch): void;
  /** Called before each file (phase 1) and line (phase 2): false stops the search (the inline budget). */
  tick(path: string, line: number, phase: 1 | 2, counts: Counts): boolean;
}

function outcomeOf(results: GrepMatch[], counts: Counts, truncated: boolean, timedOut: boolean): GrepOutcome {
  const { files, ...skipped } = counts;
  return { results, truncated, timedOut, filesSearched: files, skipped };
}

/**
 * Files under `dir` in path order, depth first, without following symlinks or entering skipped
 * and sealed directories; unreadable directories and special files are counted in `skipped`.
 */
export function* filesUnder(dir: string, sealed: readonly string[], skipped: GrepSkipped): Generator<string> {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    skipped.unreadable++;
    return;
  }
  // Sorted as full paths sort: a directory's children follow its name plus "/".
  const named = entries.map((e) => ({ e, key: e.isDirectory() ? `${e.name}/` : e.name })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const { e } of named) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name) && !sealed.some((s) => relativeInside(s, path) !== null)) yield* filesUnder(path, sealed, skipped);
    } else if (e.isFile()) yield path;
    else if (!e.isSymbolicLink()) skipped.special++;
  }
}

/**
 * A file found by a walk, as lines; null (counted in `skipped`) when it is gone, unreadable,
 * special, over `maxBytes`, or binary or not UTF-8 (not searched, as grep -I does).
 */
export function readLines(real: string, maxBytes: number, skipped: GrepSkipped): readonly string[] | null {
  // The descriptor must be `real`: a directory swapped for a symlink after the walk listed it leads nowhere.
  const r = readRegularFile(real, { maxBytes, expect: real });
  if (r.kind !== "read") {
    if (r.kind === "too_large") skipped.tooLarge++;
    else if (r.kind === "not_regular") skipped.special++;
    else if (r.kind !== "missing") skipped.unreadable++;
    return null;
  }
  try {
    return decodeForEdit(real, r.bytes).lines;
  } catch {
    skipped.binary++;
    return null;
  }
}

/** The search itself (in the worker, or inline); stops at maxResults + 1 matches or when the reporter says so. */
function runSearch(req: GrepRequest, reporter: Reporter): { counts: Counts; truncated: boolean; stopped: boolean } {
  const re = new RegExp(req.source, req.flags);
  const glob = req.filePattern === null ? null : compileGlobs([req.filePattern]);
  const counts: Counts = { files: 0, unreadable: 0, binary: 0, tooLarge: 0, special: 0 };
  let found = 0;
  const end = (truncated: boolean, stopped: boolean) => ({ counts, truncated, stopped });
  for (const target of req.targets) {
    const files = target.isDir ? filesUnder(target.real, req.sealed, counts) : [target.real];
    for (const real of files) {
      const rel = target.isDir ? relative(target.real, real) : null;
      const shown = rel === null ? target.abs : join(target.abs, rel);
      if (glob && !(rel !== null && glob.matches(rel)) && !glob.matches(real.slice(real.lastIndexOf("/") + 1))) continue;
      if (!reporter.tick(shown, 0, 1, counts)) return end(true, true);
      const lines = readLines(real, req.maxFileBytes, counts);
      if (lines === null) continue;
      counts.files++;
      for (let i = 0; i < lines.length; i++) {
        if (!reporter.tick(shown, i + 1, 2, counts)) return end(true, true);
        const m = re.exec(lines[i]!);
        if (!m) continue;
        if (found === req.maxResults) return end(true, false);
        found++;
        reporter.match({ path: shown, line: i + 1, column: m.index + 1, content: lines[i]!, match: req.pattern });
      }
    }
  }
  return end(false, false);
}

/** The worker side: runs the search, publishing progress in `shared` and matches in batches. */
export function workerSearch(req: GrepRequest, shared: SharedArrayBuffer, post: (msg: unknown) => void): void {
  const slots = new Int32Array(shared, 0, HEADER_BYTES / 4);
  const pathBytes = new Uint8Array(shared, HEADER_BYTES, PATH_BYTES);
  const encoder = new TextEncoder();
  let batch: GrepMatch[] = [];
  let lastPath = "";
  const outcome = runSearch(req, {
    match(m) {
      batch.push(m);
      if (batch.length >= 256) {
        post({ type: "matches", matches: batch });
        batch = [];
      }
    },
    tick(path, line, phase, counts) {
      if (path !== lastPath) {
        const written = encoder.encodeInto(path, pathBytes).written;
        Atomics.store(slots, PATH_LENGTH, written);
        lastPath = path;
        COUNT_KEYS.forEach((k, i) => Atomics.store(slots, COUNTS + i, counts[k]));
      }
      Atomics.store(slots, LINE, line);
      Atomics.store(slots, PHASE, phase);
      Atomics.add(slots, TICKS, 1);
      return true;
    },
  });
  if (batch.length) post({ type: "matches", matches: batch });
  post({ type: "done", outcome });
}

const WORKER_FILE = fileURLToPath(new URL("./grep-worker.js", import.meta.url));

/** Runs a search within `timeoutMs`, off this thread when the compiled worker exists. */
export function grep(req: GrepRequest, timeoutMs: number): Promise<GrepOutcome> {
  // The glob is compiled here first, so one that does not compile is INVALID_ARGUMENT here, not a
  // worker error (the pattern's source comes from a RegExp the caller compiled).
  if (req.filePattern !== null) compileGlobs([req.filePattern]);
  if (!existsSync(WORKER_FILE)) return Promise.resolve(grepInline(req, timeoutMs));
  return new Promise((resolve, reject) => {
    const shared = new SharedArrayBuffer(HEADER_BYTES + PATH_BYTES);
    const slots = new Int32Array(shared, 0, HEADER_BYTES / 4);
    const results: GrepMatch[] = [];
    const started = Date.now();
    let lastTicks = -1;
    let lastChange = started;
    let settled = false;
    const worker = new Worker(WORKER_FILE, { workerData: { req, shared }, resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearInterval(watch);
      void worker.terminate();
      fn();
    };
    const watch = setInterval(() => {
      const ticks = Atomics.load(slots, TICKS);
      const now = Date.now();
      if (ticks !== lastTicks) {
        lastTicks = ticks;
        lastChange = now;
      }
      if (Atomics.load(slots, PHASE) === 2 && now - lastChange >= STALL_MS) {
        const path = new TextDecoder().decode(new Uint8Array(shared, HEADER_BYTES, Atomics.load(slots, PATH_LENGTH)).slice());
        const line = Atomics.load(slots, LINE);
        finish(() =>
          reject(
            new MastError("REGEX_TIMEOUT", `the pattern ran over ${STALL_MS} ms on one line (${path}:${line}) and was stopped: it backtracks catastrophically`, {
              details: { path, line },
            }),
          ),
        );
      } else if (now - started >= timeoutMs) {
        const counts = Object.fromEntries(COUNT_KEYS.map((k, i) => [k, Atomics.load(slots, COUNTS + i)])) as unknown as Counts;
        finish(() => resolve(outcomeOf(results, counts, true, true)));
      }
    }, 50);
    worker.on("message", (msg: { type: "matches"; matches: GrepMatch[] } | { type: "done"; outcome: ReturnType<typeof runSearch> }) => {
      if (msg.type === "matches") results.push(...msg.matches);
      else finish(() => resolve(outcomeOf(results, msg.outcome.counts, msg.outcome.truncated, false)));
    });
    worker.on("error", (err: Error & { code?: string }) => {
      finish(() =>
        reject(
          err.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new MastError("RESULT_TOO_LARGE", "the search ran out of memory and was stopped", { hint: "Search fewer or smaller files, or lower max_results." })
            : err,
        ),
      );
    });
    worker.on("exit", () => finish(() => reject(new Error("the grep worker exited without an answer"))));
  });
}

/** The search on this thread (no compiled worker): the budget is checked between lines, so it cannot stop a single runaway match. */
function grepInline(req: GrepRequest, timeoutMs: number): GrepOutcome {
  const results: GrepMatch[] = [];
  const deadline = Date.now() + timeoutMs;
  let calls = 0;
  const outcome = runSearch(req, { match: (m) => results.push(m), tick: () => (++calls & 255) !== 0 || Date.now() < deadline });
  return outcomeOf(results, outcome.counts, outcome.truncated, outcome.stopped);
}
