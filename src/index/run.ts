// runIndex (docs/index-lifecycle.md#an-index-run): under structure.lock and inside one write transaction, walk the project,
// drop vanished files, decide the work set by content hash, parse it in the pool, write each file
// in path order, re-derive imports and edges, and commit — readers see the index before the run or
// after it, never between, and a killed run leaves the one before. Then file_manifest.json and
// index.json. Failures are counted per file, never fatal.
import { readGitHead } from "./git-checkout.js";
import { sha256 } from "../base/hash.js";
import { LANGUAGE_SPECS } from "../lang/languages.js";
import { absoluteIn } from "../base/paths.js";
import { MastError, errorMessage } from "../base/errors.js";
import { yieldToLoop } from "../base/loop.js";
import { createImportResolver } from "../resolve/imports.js";
import { CHECKER_BEHIND, CHECKER_LANGUAGES, CHECKER_META, CURRENT_SCHEMA_VERSION, isUnusableDatabase } from "../store/db.js";
import { Store, type StoreCounts } from "../store/store.js";
import type { FileStamps } from "../store/file-stamps.js";
import type { ExtractOptions } from "../syntax/types.js";
import type { ResolvedConfig } from "./config.js";
import { CLI_LOCK_POLICY, withStructureLock, type LockPolicy, type NoteProgress } from "./lock.js";
import type { ParseOutcome, ParseTask } from "./parse-task.js";
import { rederive, type LinkCount } from "./link.js";
import { compareWithIndex, pathsStatAsStamped, sameStat, stampPaths, stampStat } from "./read.js";
import {
  ensureStateDir,
  guardProjectRoot,
  guardSchema,
  persistConfig,
  readIndexJson,
  storeStamp,
  wipeDerivedState,
  writeJsonAtomic,
  writeStampCopies,
  type IndexJson,
  type StatePaths,
  readPackedStamps,
  readWalkCache,
  writeWalkCache,
} from "./state.js";
import { walkForConfigWhile, walkedFileAt, type WalkedFile, type WalkResult } from "./walk.js";
import type { WalkCache } from "./walk-cache.js";

export type IndexMode = "full" | "incremental";

export interface IndexProblem {
  readonly path: string;
  /** `syntax_error`: the file was indexed, but lines of it did not parse (declarations there may be missing). */
  readonly kind: "parse_error" | "write_error" | "read_error" | "walk_error" | "syntax_error";
  readonly message: string;
}

export interface IndexReport {
  readonly mode: IndexMode;
  readonly state_dir: string;
  readonly schema_reset: boolean;
  readonly files_walked: number;
  readonly files_indexed: number;
  readonly files_unchanged: number;
  readonly files_deleted: number;
  readonly parse_errors: number;
  readonly write_errors: number;
  readonly read_errors: number;
  readonly skipped_binary: number;
  readonly skipped_too_large: number;
  readonly skipped_symlinks: number;
  readonly files_with_syntax_errors: number;
  readonly chunks_added: number;
  readonly chunks_removed: number;
  readonly file_count: number;
  readonly chunk_count: number;
  readonly symbol_count: number;
  /** Files whose call-graph edges the run derived again (every file after a full run; those a change can reach after an incremental one). */
  readonly files_linked: number;
  readonly bytes_parsed: number;
  readonly threads: number;
  readonly duration_ms: number;
  /** Where the run's time went: see `Phases`. */
  readonly phases_ms: Phases;
  /** The checker pass's counts, when the run made one (`--checker`). */
  readonly checker?: CheckerReport;
  /** `--checker` asked for, and skipped: nothing changed since the last pass finished (every verdict stands). */
  readonly checker_up_to_date?: true;
  readonly problems: readonly IndexProblem[];
  readonly problems_truncated?: number;
}

/**
 * Where a run's time went, in ms (to 0.1 ms). The main thread's steps are wall time and add up to about
 * `duration_ms`: `walk` (with the index's stamps, read while the walk's files are stat'ed), `work_set` (stat and hash against the stamps), `parse_wait` (the writer
 * idle, waiting on the parse threads), `write` (rows), `search_index` (both FTS indexes), `indexes` (a first build's secondary indexes), `link`
 * (imports and the call graph), `commit`, `manifest` (file_manifest.json and index.json),
 * `checkpoint` (the WAL folded into graph.db at close). The parse threads' work is summed over
 * threads, so it overlaps the rest: `read` (read and hash), `parse` (tree-sitter), `extract`.
 */
export interface Phases {
  walk: number;
  work_set: number;
  parse_wait: number;
  write: number;
  search_index: number;
  /** A first build's secondary indexes, built once its rows are written (Store.withoutSecondaryIndexes). */
  indexes: number;
  link: number;
  commit: number;
  manifest: number;
  checkpoint: number;
  read: number;
  parse: number;
  extract: number;
}

function newPhases(): Phases {
  return { walk: 0, work_set: 0, parse_wait: 0, write: 0, search_index: 0, indexes: 0, link: 0, commit: 0, manifest: 0, checkpoint: 0, read: 0, parse: 0, extract: 0 };
}

/** Runs `fn`, adding its wall time to `phases[name]`. */
function timed<T>(phases: Phases, name: keyof Phases, fn: () => T): T {
  const t = performance.now();
  try {
    return fn();
  } finally {
    phases[name] += performance.now() - t;
  }
}

export interface IndexProgress {
  readonly done: number;
  readonly total: number;
  readonly bytes: number;
}

export interface RunIndexOptions {
  readonly mode: IndexMode;
  readonly operation?: string;
  readonly lockPolicy?: LockPolicy;
  readonly onProgress?: (p: IndexProgress) => void;
  /** Parse threads; 0 parses on the main thread. */
  readonly threads?: number;
  /** Persist the resolved config to <state_dir>/config.json once the lock is held (init, serve). */
  readonly persistConfig?: boolean;
  /**
   * The run may take over a state dir that holds another project's index (an explicit `mast index
   * <path>` / `mast init`); any other run (a server's, `mast_reindex`, after an edit) refuses it
   * with STATE_DIR_MISMATCH rather than replace that index with this project's.
   */
  readonly repoint?: boolean;
  /** The TypeScript-checker pass (query/checker.ts), run after the call graph in the same transaction. */
  readonly checker?: CheckerPass;
}

/**
 * The opt-in checker pass, handed in by the caller that asks for it (it reads through the query
 * layer). It is started as soon as the walk has found the files, so the compiler reads them while
 * the run writes; `finish` runs after the call graph, in the run's transaction; `abandon` stops
 * what it started (the run failed, or the pass finished).
 */
export interface CheckerPass {
  /** `stateDir`: where an analyzer may keep what it builds (the Go backend's compiled program). */
  start(projectRoot: string, paths: readonly string[], stateDir?: string): CheckerRun;
}

export interface CheckerRun {
  finish(store: Store): Promise<CheckerReport>;
  abandon(): void;
}

export interface CheckerReport {
  /** Projects the analyzers checked: tsconfig programs (and the inferred one when files outside every config had candidates), one per other backend that ran. */
  readonly projects: number;
  /** Configs that could not be used, with the parser's or the compiler's reason. */
  readonly skipped: ReadonlyArray<{ readonly config: string; readonly reason: string }>;
  readonly targets: number;
  /** Candidate lines (target, file, line) without a verdict before this pass. */
  readonly candidates: number;
  readonly calls_target: number;
  readonly edges: number;
  readonly resolves_to_different: number;
  readonly non_call_site: number;
  readonly unresolved: number;
  /** IMPLEMENTS edges an analyzer verified that the resolver had not drawn (Go's method sets). */
  readonly implements?: number;
  /** Candidates in files no analyzer reads (a language without a backend) or no program holds: left as they were. */
  readonly outside_ts_scope: number;
  /** Each language the pass has a backend for among the walked files: whether its analyzer ran, and why not (never a silent drop). */
  readonly languages: readonly CheckerLanguage[];
  readonly duration_ms: number;
}

/** One language of a checker pass: its backend, and whether its analyzer was available (the reason when not). */
export interface CheckerLanguage {
  readonly language: string;
  readonly backend: string;
  readonly available: boolean;
  readonly reason?: string;
}

/** Meta key holding the extraction settings the stored chunks were made with. */
const EXTRACT_SETTINGS = "extract_settings";
/** Meta key holding the resolver's config fingerprint: a changed tsconfig or workspace relinks everything. */
const RESOLVER_FINGERPRINT = "resolver_fingerprint";
/** Meta key holding the stat of every config path the resolver read or probed: [path, size, mtime, ino] or [path] when absent. */
const RESOLVER_INPUTS = "resolver_inputs";

/** Files (or bytes of source) per write transaction. */
const WRITE_BATCH_FILES = 32;
const WRITE_BATCH_BYTES = 1024 * 1024;
/** Characters of chunk text written before the run indexes them for search (one FTS segment each). */
const SEARCH_INDEX_CHARS = 4 * 1024 * 1024;
/** How often a run notes its progress in the lock's record. */
const PROGRESS_NOTE_MS = 1_000;

/** Problems listed in a report; the counters always carry the full numbers. */
const MAX_LISTED_PROBLEMS = 50;

export function extractOptionsOf(config: ResolvedConfig): ExtractOptions {
  return {
    chunkSplitThreshold: config.chunk_split_threshold,
    contextLines: config.context_lines,
    markdownHeadingDepth: config.markdown_heading_depth,
    parseTimeoutMs: config.parse_timeout_ms,
  };
}

export async function runIndex(config: ResolvedConfig, options: RunIndexOptions): Promise<IndexReport> {
  const paths = ensureStateDir(config);
  return withStructureLock(paths.lock, options.operation ?? `mast index (${options.mode})`, options.lockPolicy ?? CLI_LOCK_POLICY, (note) => {
    if (!options.repoint) guardProjectRoot(paths, config.project_root);
    if (options.persistConfig) persistConfig(config);
    return indexHealing(config, paths, options, note);
  });
}

/**
 * A run that finds graph.db corrupt (SQLite says so mid-run, or a full run's quick check does)
 * wipes it and runs again from nothing, once: a corrupt store is rebuilt, never answered from.
 */
async function indexHealing(config: ResolvedConfig, paths: StatePaths, options: RunIndexOptions, note: NoteProgress): Promise<IndexReport> {
  try {
    return await indexLocked(config, paths, options, note);
  } catch (err) {
    if (!isUnusableDatabase(err)) throw err;
    wipeDerivedState(paths);
    return indexLocked(config, paths, options, note, { rebuilt: true });
  }
}

async function indexLocked(config: ResolvedConfig, paths: StatePaths, options: RunIndexOptions, note: NoteProgress, healing: { rebuilt: boolean } = { rebuilt: false }): Promise<IndexReport> {
  const started = performance.now();
  const phases = newPhases();
  const storeAtStart = storeStamp(paths);
  // A rebuild after a corrupt store is a reset: the report and the run's mode say so.
  const opened = openIndexStore(paths, guardSchema(paths) || healing.rebuilt, options.mode === "full");
  const store = opened.store;
  try {
    let committing = 0;
    const run = await store
      .transaction(async () => {
        const result = await writeRun(config, paths, store, opened.reset, options, note, phases);
        committing = performance.now();
        return result;
      })
      .catch((err: unknown) => {
        // A database failure (a full disk, an I/O error) ends the run; its transaction rolled back.
        // A corrupt database is rebuilt instead (indexHealing).
        if (!String((err as { code?: unknown }).code ?? "").startsWith("SQLITE_") || isUnusableDatabase(err)) throw err;
        throw new MastError("WRITE_FAILED", `the index run failed and was rolled back (the index is as it was before it): ${errorMessage(err)}`, { cause: err });
      });
    phases.commit = performance.now() - committing;
    const wroteState = performance.now();
    // The rows are committed: the manifest and index.json follow them (a run killed before these
    // writes leaves the lock's record of a dead holder, which status reports as an interrupted run).
    const previous = readIndexJson(paths);
    const manifest = writeStampCopies(paths, store, previous, storeAtStart);
    // Closed (checkpointed) first, so index.json records graph.db as this run left it: a file
    // that stats otherwise later was written by someone else, and status checks its pages.
    timed(phases, "checkpoint", () => store.close());
    const sourceCommit = readGitHead(config.project_root);
    const indexJson: IndexJson = {
      schema_version: CURRENT_SCHEMA_VERSION,
      last_indexed: new Date().toISOString(),
      file_count: run.totals.files,
      chunk_count: run.totals.chunks,
      parse_errors: run.counts.parse,
      write_errors: run.counts.write,
      ...(previous?.seed_commit ? { seed_commit: previous.seed_commit } : {}),
      ...(sourceCommit ? { source_commit: sourceCommit } : {}),
      project_root: config.project_root,
      ...stampOfStore(paths),
      ...manifest,
    };
    writeJsonAtomic(paths.indexJson, indexJson);
    if (run.walkCache && run.walkCacheChanged) writeWalkCache(paths, run.walkCache);
    phases.manifest = performance.now() - wroteState - phases.checkpoint;
    const { counts, problems } = run;
    return {
      mode: run.mode,
      state_dir: paths.dir,
      schema_reset: opened.reset,
      files_walked: run.walked,
      files_indexed: counts.indexed,
      files_unchanged: counts.unchanged,
      files_deleted: counts.deleted,
      parse_errors: counts.parse,
      write_errors: counts.write,
      read_errors: counts.read,
      skipped_binary: counts.binary,
      skipped_too_large: counts.large,
      skipped_symlinks: run.skippedSymlinks,
      files_with_syntax_errors: counts.syntax,
      chunks_added: counts.added,
      chunks_removed: counts.removed,
      file_count: run.totals.files,
      chunk_count: run.totals.chunks,
      symbol_count: run.totals.symbols,
      files_linked: run.linked,
      bytes_parsed: counts.bytes,
      threads: run.threads,
      duration_ms: Math.round(performance.now() - started),
      phases_ms: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, Math.round(v * 10) / 10])) as unknown as Phases,
      ...(run.checker ? { checker: run.checker } : run.checkerUpToDate ? { checker_up_to_date: true as const } : {}),
      problems: problems.slice(0, MAX_LISTED_PROBLEMS),
      ...(problems.length > MAX_LISTED_PROBLEMS ? { problems_truncated: problems.length - MAX_LISTED_PROBLEMS } : {}),
    };
  } finally {
    if (store.db.open) store.close();
  }
}

function stampOfStore(paths: StatePaths): { store_stamp?: string } {
  const stamp = storeStamp(paths);
  return stamp === null ? {} : { store_stamp: stamp };
}

/** What one run wrote, for its report, the manifest and index.json. */
interface RunResult {
  readonly mode: IndexMode;
  readonly counts: Counters;
  readonly problems: IndexProblem[];
  readonly walked: number;
  readonly skippedSymlinks: number;
  readonly threads: number;
  readonly totals: StoreCounts;
  readonly walkCache: WalkCache | null;
  /** The walk read a directory afresh (or found one gone): its cache file is written again. */
  readonly walkCacheChanged: boolean;
  readonly checker: CheckerReport | null;
  readonly checkerUpToDate: boolean;
  /** The files whose edges the run derived again. */
  readonly linked: number;
}

let queriesHash: string | undefined;
/** A hash of every language's query files (read once per process). */
const QUERIES_HASH = () => (queriesHash ??= sha256(LANGUAGE_SPECS.map((s) => s.outline?.query.text() ?? "").join("\0")));

/** The run's writes, all inside the transaction `indexLocked` holds: rows, then what is derived from them. */
async function writeRun(config: ResolvedConfig, paths: StatePaths, store: Store, schemaReset: boolean, options: RunIndexOptions, note: NoteProgress, phases: Phases): Promise<RunResult> {
  // Chunks depend on these settings as much as on the files — and on the breadth languages' query
  // files, which an upgrade may change with no schema change: a change re-extracts everything.
  const extractKey = JSON.stringify({ ...extractOptionsOf(config), parseTimeoutMs: undefined, maxFileBytes: config.max_file_bytes, queries: QUERIES_HASH() });
  const settingsChanged = store.getMeta(EXTRACT_SETTINGS) !== extractKey;
  const mode: IndexMode = schemaReset || settingsChanged ? "full" : options.mode;
  const problems: IndexProblem[] = [];
  const counts: Counters = {
    indexed: 0,
    unchanged: 0,
    deleted: 0,
    parse: 0,
    write: 0,
    read: 0,
    binary: 0,
    large: 0,
    syntax: 0,
    bytes: 0,
    added: 0,
    removed: 0,
    pathsChanged: [],
    rewritten: [],
    kept: [],
  };
  // The index's stamps are read while the walk's files are stat'ed.
  const started = performance.now();
  const { walk, during: stamps } = await walkForConfigWhile(config, readWalkCache(paths), () => store.fileStamps(readPackedStamps(paths)));
  phases.walk += performance.now() - started;
  for (const p of walk.problems) {
    problems.push({ path: p.path, kind: "walk_error", message: p.error });
    counts.read++;
  }
  const checking = options.checker?.start(config.project_root, walk.paths, config.state_dir) ?? null;
  try {
    return await writeWalked(config, store, options, note, phases, { extractKey, settingsChanged, mode, problems, counts, walk, stamps }, checking);
  } finally {
    checking?.abandon();
  }
}

/** What writeWalked's steps share: the walk, the index's stamps, and the counts and problems they add to. */
interface WalkedRun {
  readonly extractKey: string;
  readonly settingsChanged: boolean;
  readonly mode: IndexMode;
  readonly problems: IndexProblem[];
  readonly counts: Counters;
  readonly walk: WalkResult;
  readonly stamps: FileStamps;
}

/** writeRun after the walk. */
async function writeWalked(config: ResolvedConfig, store: Store, options: RunIndexOptions, note: NoteProgress, phases: Phases, run: WalkedRun, checking: CheckerRun | null): Promise<RunResult> {
  const { extractKey, settingsChanged, mode, problems, counts, walk, stamps } = run;
  const writesBefore = store.fileRowWrites;
  const wasEmpty = stamps.size === 0;
  // A run over an index that links only what its changes reach; it keeps the symbol rows a
  // rewritten file still declares (store/link-face.ts), so a body edit relinks that file alone.
  const incremental = mode === "incremental" && !wasEmpty;

  const workSetStarted = performance.now();
  const { work, matched } = workSetOf(config, store, run);
  phases.work_set = performance.now() - workSetStarted;
  // Into a store holding no file yet, rows go in without the indexes nothing reads before the link.
  const restoreIndexes = wasEmpty && work.length > 0 ? store.withoutSecondaryIndexes() : null;
  await dropVanished(store, run, matched, phases);
  // The parser loads only when there is something to parse (no-change runs never pay for it).
  const threads = work.length > 0 ? await parseAndWrite(config, store, options, note, phases, run, work, incremental) : 0;

  timed(phases, "search_index", () => store.indexSearch());
  if (restoreIndexes !== null) timed(phases, "indexes", restoreIndexes);

  const linkStarted = performance.now();
  const linked = linkWritten(config, store, run, incremental, writesBefore);
  if (settingsChanged) store.setMeta(EXTRACT_SETTINGS, extractKey);
  phases.link = performance.now() - linkStarted;
  // Nothing rewritten (by this run or any write since the last pass), no path come or gone, and the
  // last pass done: every verdict stands and no candidate is new.
  const unchanged = incremental && counts.rewritten.length === 0 && counts.pathsChanged.length === 0 && store.getMeta(CHECKER_META) !== null && store.getMeta(CHECKER_BEHIND) === null;
  const checker = checking && !unchanged ? await checking.finish(store) : null;
  // A full run without the pass rewrote every file, so none of its verdicts is left: the answers stop saying it ran.
  if (!options.checker && mode === "full") {
    store.deleteMeta(CHECKER_META);
    store.deleteMeta(CHECKER_BEHIND);
    store.deleteMeta(CHECKER_LANGUAGES);
  }
  const totals = store.counts();
  const linkedFiles = linked === null ? 0 : linked.files === "all" ? totals.files : linked.files;
  return {
    walkCache: walk.cache ?? null,
    walkCacheChanged: walk.cacheChanged ?? true,
    mode,
    counts,
    problems,
    walked: walk.paths.length,
    skippedSymlinks: walk.skippedSymlinks,
    threads,
    totals,
    checker,
    checkerUpToDate: checking !== null && unchanged,
    linked: linkedFiles,
  };
}

/**
 * The work set: every file on a full run; on an incremental run, files whose content changed
 * (those found unchanged are counted, and re-stamped where their stamp moved). `matched`: the
 * walked files the index holds a stamp for.
 */
function workSetOf(config: ResolvedConfig, store: Store, run: WalkedRun): { work: WalkedFile[]; matched: number } {
  const { mode, counts, walk, stamps } = run;
  const work: WalkedFile[] = [];
  let matched = 0;
  const { paths, stats } = walk;
  stamps.alignWith(walk.list);
  for (let i = 0; i < paths.length; i++) {
    const proven = stamps.statProves(paths[i]!, stats, i);
    if (proven !== undefined) matched++;
    // A trusted stamp the walk's stat matches: unchanged, unread, its stamp as it is.
    if (proven === true && mode !== "full") {
      counts.unchanged++;
      continue;
    }
    const file = walkedFileAt(walk, i);
    if (mode === "full" || proven === undefined) {
      work.push(file);
      continue;
    }
    const stamp = stamps.get(file.path)!;
    // Stat first, content decides: a trusted stamp the walk's stat matches is unchanged unread; any
    // other file whose bytes hash the same is unchanged whatever its mtime says, and is re-stamped.
    const current = compareWithIndex(file.path, config.project_root, config.max_file_bytes, stamp, file);
    if (current.state === "unchanged") {
      // Re-stamped only when the stamp moves (a file still in the racy window reads as it was stamped).
      const fresh = current.stamp;
      if (fresh && !(fresh.statClean === stamp.statClean && sameStat(stampStat(fresh), stampStat(stamp)))) store.touchFile({ path: file.path, ...fresh });
      counts.unchanged++;
      continue;
    }
    work.push(file);
  }
  return { work, matched };
}

/**
 * Removes the files the index holds that the walk no longer finds (deleted, excluded, or no longer
 * matched). Under a directory the walk could not read nothing is known, so nothing there is
 * dropped. The walk lists a path once: when every stamp matched a walked file, none vanished.
 */
async function dropVanished(store: Store, run: WalkedRun, matched: number, phases: Phases): Promise<void> {
  const { counts, walk, stamps } = run;
  const unreadable = walk.problems.map((p) => p.path);
  const walked = matched === stamps.size ? null : new Set(walk.paths);
  const vanished = walked === null ? [] : [...stamps.keys()].filter((path) => !walked.has(path) && !unreadable.some((u) => path === u || path.startsWith(`${u}/`))).sort();

  // Vanishing paths (and new ones, once written: a new file that turns out binary or unreadable
  // adds no path) can change how any import resolves.
  for (const path of vanished) counts.pathsChanged.push(path);
  for (let i = 0; i < vanished.length; i += WRITE_BATCH_FILES * 16) {
    const slice = vanished.slice(i, i + WRITE_BATCH_FILES * 16);
    timed(phases, "write", () =>
      store.batch(() => {
        for (const path of slice) counts.removed += store.removeFileRows(path);
      }),
    );
    for (const path of slice) stamps.delete(path);
    counts.deleted += slice.length;
    await yieldToLoop();
  }
}

/** Parses the work set in the pool and writes each outcome in path order, a batch at a time; the pool's threads. */
async function parseAndWrite(
  config: ResolvedConfig,
  store: Store,
  options: RunIndexOptions,
  note: NoteProgress,
  phases: Phases,
  run: WalkedRun,
  work: readonly WalkedFile[],
  incremental: boolean,
): Promise<number> {
  const { counts } = run;
  const extractOptions = extractOptionsOf(config);
  const { createParsePool } = await import("./pool.js");
  const pool = createParsePool(work.length, options.threads);
  const tasks: ParseTask[] = work.map((f) => ({ path: f.path, abs: absoluteIn(config.project_root, f.path), options: extractOptions, maxFileBytes: config.max_file_bytes }));
  let done = 0;
  // Readers see the run's progress in the lock's record (their answers' `indexing`), noted at most once a second.
  let notedAt = performance.now();
  note({ files_done: 0, files_total: work.length });
  let batch: ParseOutcome[] = [];
  let batchBytes = 0;
  // Written strictly in path order, so two runs over one tree build the same store; each batch is
  // a savepoint of the run's transaction.
  const flush = () => {
    const outcomes = batch;
    batch = [];
    batchBytes = 0;
    timed(phases, "write", () => writeBatch(store, outcomes, run, incremental));
  };
  try {
    let waitFrom = performance.now();
    for await (const outcome of pool.map(tasks)) {
      phases.parse_wait += performance.now() - waitFrom;
      if (outcome.timing) {
        phases.read += outcome.timing.read;
        phases.parse += outcome.timing.parse;
        phases.extract += outcome.timing.extract;
      }
      batch.push(outcome);
      batchBytes += outcome.kind === "parsed" ? outcome.stamp.size : 0;
      if (batch.length >= WRITE_BATCH_FILES || batchBytes >= WRITE_BATCH_BYTES) flush();
      if (store.pendingSearchChars() >= SEARCH_INDEX_CHARS) timed(phases, "search_index", () => store.indexSearch());
      options.onProgress?.({ done: ++done, total: work.length, bytes: counts.bytes + batchBytes });
      if (performance.now() - notedAt >= PROGRESS_NOTE_MS) {
        notedAt = performance.now();
        note({ files_done: done, files_total: work.length });
      }
      waitFrom = performance.now();
    }
    if (batch.length) flush();
  } finally {
    await pool.close();
  }
  return pool.threads;
}

/** Writes a batch of outcomes on one savepoint; when it fails, again file by file, so only the failing file is lost. */
function writeBatch(store: Store, outcomes: readonly ParseOutcome[], run: WalkedRun, incremental: boolean): void {
  const { problems, counts, stamps } = run;
  // The counters' lists are cut back as the numbers are put back (a shallow copy shares them).
  const before = { counts: { ...counts }, rewritten: counts.rewritten.length, kept: counts.kept.length, pathsChanged: counts.pathsChanged.length, problems: problems.length };
  try {
    store.batch(() => {
      for (const o of outcomes) applyOutcome(store, o, stamps.has(o.path), counts, problems, "batched", incremental);
    });
  } catch (err) {
    // A write failed and the batch rolled back to its savepoint: redo it file by file, each on
    // its own savepoint, so only the failing file is lost (and counted as a write error). An
    // error that ended the whole transaction ends the run: nothing of it is committed.
    store.assertInTransaction(err);
    Object.assign(counts, before.counts, {
      rewritten: counts.rewritten.slice(0, before.rewritten),
      kept: counts.kept.slice(0, before.kept),
      pathsChanged: counts.pathsChanged.slice(0, before.pathsChanged),
    });
    problems.length = before.problems;
    for (const o of outcomes) {
      applyOutcome(store, o, stamps.has(o.path), counts, problems, "atomic", incremental);
      store.assertInTransaction(new Error(`the index transaction ended while writing ${o.path}`));
    }
  }
}

/**
 * Derived data, in the same transaction as the rows: import resolutions, `export *` closure and
 * edges — of everything after a full run, a first build or a new resolver config; otherwise of
 * what the rewritten files (and any paths that came or went) can reach. Null when nothing was derived.
 */
function linkWritten(config: ResolvedConfig, store: Store, run: WalkedRun, incremental: boolean, writesBefore: number): LinkCount | null {
  const { counts, walk, stamps } = run;
  // What follows reads the stamps' paths and ids only: a run that wrote no file row, or whose rows
  // kept their paths (none came or went: a rewritten file keeps its id), has them as it started
  // (reading 110,000 again: 370 ms at 1 GB).
  const finalStamps = store.fileRowWrites === writesBefore || counts.pathsChanged.length === 0 ? stamps : store.fileStamps();
  // No path came or went and every config the resolver read last time stats as it did: its
  // fingerprint cannot have moved (stat first, as for sources). Then nothing is derived when
  // nothing was written, and a rewritten file's imports are resolved reading only what they need.
  const configsAsBefore = incremental && counts.pathsChanged.length === 0 && pathsStatAsStamped(store.getMeta(RESOLVER_INPUTS), walk.dirStats);
  const idOf = (path: string) => finalStamps.get(path)?.id;
  const changes = () => ({
    rewritten: counts.rewritten.flatMap((path) => idOf(path) ?? []),
    kept: new Map(counts.kept.flatMap(([path, names]) => (idOf(path) === undefined ? [] : [[idOf(path)!, names] as const]))),
    pathsChanged: counts.pathsChanged,
  });
  let linked: LinkCount | null = null;
  if (configsAsBefore) {
    if (counts.rewritten.length > 0) linked = rederive(store, createImportResolver(new Set(finalStamps.keys()), config.project_root, { readAll: false }).resolve, changes());
  } else {
    const resolver = createImportResolver(new Set(finalStamps.keys()), config.project_root);
    const resolverChanged = store.getMeta(RESOLVER_FINGERPRINT) !== resolver.fingerprint;
    if (!incremental || resolverChanged) linked = rederive(store, resolver.resolve, "all");
    else if (counts.rewritten.length > 0 || counts.pathsChanged.length > 0) linked = rederive(store, resolver.resolve, changes());
    if (resolverChanged) store.setMeta(RESOLVER_FINGERPRINT, resolver.fingerprint!);
    store.setMeta(RESOLVER_INPUTS, stampPaths(resolver.inputs));
  }
  return linked;
}

/**
 * Opens graph.db for an index run. A database of another schema version, without a schema, that
 * SQLite cannot read as a database or — checked by a full run — finds corrupt is derived state: it
 * is wiped and rebuilt by a full run.
 */
function openIndexStore(paths: StatePaths, alreadyReset: boolean, check: boolean): { store: Store; reset: boolean } {
  try {
    const store = Store.open(paths.graphDb, { bulk: true });
    if (store.hasCurrentSchema() && (!check || store.passesQuickCheck())) return { store, reset: alreadyReset };
    store.close();
  } catch (err) {
    if (!isUnusableDatabase(err)) throw err;
  }
  wipeDerivedState(paths);
  return { store: Store.open(paths.graphDb, { bulk: true }), reset: true };
}

/** Removes a file that can no longer be indexed; an indexed one changes the path set, so every import is re-resolved. */
function dropFile(store: Store, path: string, wasIndexed: boolean, counts: Counters): void {
  if (!wasIndexed) return;
  counts.pathsChanged.push(path);
  counts.removed += store.deleteFile(path);
}

type Counters = {
  indexed: number;
  unchanged: number;
  deleted: number;
  parse: number;
  write: number;
  read: number;
  binary: number;
  large: number;
  syntax: number;
  bytes: number;
  added: number;
  removed: number;
  /** The paths that came or went: when any did, every import is re-resolved. */
  pathsChanged: string[];
  /** Files whose rows were rewritten (in write order). */
  rewritten: string[];
  /** Of those, the files whose symbol rows were kept, with the names whose face moved (store/link-face.ts). */
  kept: Array<[path: string, changedNames: ReadonlySet<string>]>;
};

/**
 * Records one parse outcome in the store and the counters. "batched" runs inside an open batch
 * transaction and lets a write failure propagate (the caller rolls the batch back); "atomic" gives
 * each file its own transaction and counts a failure as a write error.
 */
function applyOutcome(store: Store, outcome: ParseOutcome, wasIndexed: boolean, counts: Counters, problems: IndexProblem[], writes: "batched" | "atomic", keepIds: boolean): void {
  switch (outcome.kind) {
    case "parsed": {
      const meta = { path: outcome.path, language: outcome.language, ...outcome.stamp };
      try {
        const delta = writes === "batched" ? store.replaceFileRows(meta, outcome.extraction, outcome.search, keepIds) : store.writeFile(meta, outcome.extraction, outcome.search, keepIds);
        counts.indexed++;
        counts.rewritten.push(outcome.path);
        if (delta.kept !== null) counts.kept.push([outcome.path, delta.kept]);
        if (!wasIndexed) counts.pathsChanged.push(outcome.path);
        counts.added += delta.added;
        counts.removed += delta.removed;
        counts.bytes += outcome.stamp.size;
        if (outcome.extraction.hasSyntaxErrors) counts.syntax++;
        const unparsed = outcome.extraction.unparsedSpans ?? [];
        if (unparsed.length > 0) {
          const lines = unparsed.map(([a, b]) => `${a}-${b}`).join(", ");
          problems.push({ path: outcome.path, kind: "syntax_error", message: `lines ${lines} did not parse: declarations there may be missing` });
        }
      } catch (err) {
        if (writes === "batched") throw err;
        counts.write++;
        problems.push({ path: outcome.path, kind: "write_error", message: String(err instanceof Error ? err.message : err) });
      }
      return;
    }
    case "parse_error":
      counts.parse++;
      problems.push({ path: outcome.path, kind: "parse_error", message: outcome.error });
      return;
    case "binary":
      counts.binary++;
      dropFile(store, outcome.path, wasIndexed, counts);
      return;
    case "too_large":
      counts.large++;
      dropFile(store, outcome.path, wasIndexed, counts);
      return;
    case "vanished":
      counts.read++;
      problems.push({ path: outcome.path, kind: "read_error", message: outcome.error });
      dropFile(store, outcome.path, wasIndexed, counts);
      return;
    case "read_error":
      counts.read++;
      problems.push({ path: outcome.path, kind: "read_error", message: outcome.error });
      return;
  }
}
