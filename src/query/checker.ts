// The opt-in checker pass (docs/call-graph.md#the-checker-pass, `mast index --checker`), the store's side: one pass, a
// backend per language, chosen by the file's LanguageSpec (`checker`): `compiler`, the TypeScript
// compiler's programs (checker-program.ts, in its own worker thread), and `scip-python`, pyright's
// SCIP indexer as a child process (checker-scip.ts). For each backend it takes the potential
// matches of every function and method of its languages (query/potential-sites.ts `potentialMatches`: the one
// definition of a candidate), has the analyzer say what each candidate line calls, and records the
// answers in `checker_verdicts`: `calls_target` with a POTENTIAL_CALL edge of resolution 'checker';
// `resolves_to_different` or `non_call_site`, which take the line out of the target's potential
// matches; `unresolved` when the analyzer cannot tell (the line stays potential). The analyzers
// start on the walked files while the run writes, candidates are handed over in chunks while more
// are collected, and verdicts are written as they come back. A candidate that already has a
// verdict is not checked again: a rewritten file has lost its verdicts. Each language with a
// backend is reported available or not with the reason (an analyzer not installed, one that
// failed), in the run's report and in meta for `mast status`: never a silent drop. The index run
// calls it (`RunIndexOptions.checker`) inside its transaction; the writes are the store's.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { errorMessage } from "../base/errors.js";
import { extensionInfo } from "../lang/languages.js";
import type { CheckerLanguage, CheckerPass, CheckerReport } from "../index/run.js";
import type { CheckerBackendName } from "../lang/spec.js";
import { CHECKER_BEHIND, CHECKER_LANGUAGES, CHECKER_META } from "../store/db.js";
import type { Store } from "../store/store.js";
import { CheckerPrograms, OUTSIDE, VERDICTS, type CheckTarget, type ProgramsReport, type VerdictBatch } from "./checker-program.js";
import { GoTypesAnalyzer, type GoTypeFacts } from "./checker-go.js";
import { RustAnalyzerScip, ScipPythonAnalyzer } from "./checker-scip.js";
import { PotentialMemo, potentialMatches } from "./potential-sites.js";
import { verifiedCallers } from "./callers.js";
import { tailOf } from "./navigation.js";

const WORKER_FILE = fileURLToPath(new URL("./checker-worker.js", import.meta.url));
/** Targets whose candidates are collected before they are handed to the compiler. */
const CHUNK_TARGETS = 128;
/** Names whose lines one scan of the chunks finds (theia's 22 K targets: three scans). */
const MEMO_NAMES = 4096;

/** What the worker is started with, and what it posts back. */
export interface CheckerWorkerData {
  readonly root: string;
  readonly files: readonly string[];
}
export type CheckerWorkerMessage =
  | { readonly kind: "batch"; readonly batch: VerdictBatch }
  | { readonly kind: "done"; readonly report: ProgramsReport }
  | { readonly kind: "failed"; readonly message: string };

interface Target extends CheckTarget {
  readonly id: number;
  readonly fileId: number;
  readonly tail: string;
}

/** One language's analyzer as the pass drives it (the compiler's programs, scip-python). */
interface Analyzer {
  /** Why it cannot run at all, known at start (none installed); null when it was started. */
  readonly unavailable: string | null;
  /** The targets; then candidate chunks, checked while more are collected; then the report. */
  begin(targets: readonly CheckTarget[], onBatch: (batch: VerdictBatch) => void): void;
  add(candidates: Int32Array): void;
  end(): Promise<ProgramsReport>;
  stop(): void;
  /** Interface implementations the analyzer verified (Go's method sets), once it ran; null when it did not. */
  implementations?(): Promise<GoTypeFacts | null>;
}

/** The backends by the name a LanguageSpec gives (`LanguageSpec.checker`). */
const BACKENDS: Record<CheckerBackendName, (root: string, files: readonly string[], stateDir: string | undefined) => Analyzer> = {
  compiler: (root, files) => startCompiler({ root, files }),
  "scip-python": (root, files) => new ScipPythonAnalyzer(root, files),
  "go-types": (root, files, stateDir) => new GoTypesAnalyzer(root, files, stateDir),
  "rust-analyzer": (root, files) => new RustAnalyzerScip(root, files),
};

/** The walked files of one backend, the languages they are, and its analyzer started on them. */
interface Group {
  readonly backend: CheckerBackendName;
  readonly languages: readonly string[];
  readonly files: readonly string[];
  readonly analyzer: Analyzer;
}

/** The pass as the index run is handed it: each backend's analyzer started on its languages' walked files, the candidates and the writes after the call graph. */
export const checkerPass: CheckerPass = {
  start(projectRoot, paths, stateDir) {
    const byBackend = new Map<CheckerBackendName, { languages: Set<string>; files: string[] }>();
    for (const path of paths) {
      const spec = extensionInfo(path)?.spec;
      if (spec?.checker === undefined) continue;
      const group = byBackend.get(spec.checker) ?? { languages: new Set<string>(), files: [] };
      group.languages.add(spec.name);
      group.files.push(path);
      byBackend.set(spec.checker, group);
    }
    // The compiler is started even without files, as before: its targets are counted, its candidates outside.
    if (!byBackend.has("compiler")) byBackend.set("compiler", { languages: new Set(), files: [] });
    const groups: Group[] = [...byBackend].map(([backend, g]) => ({ backend, languages: [...g.languages].sort(), files: g.files, analyzer: BACKENDS[backend](projectRoot, g.files, stateDir) }));
    return { finish: (store) => finish(store, projectRoot, groups), abandon: () => groups.forEach((g) => g.analyzer.stop()) };
  },
};

function backendOf(path: string): CheckerBackendName | undefined {
  return extensionInfo(path)?.spec.checker;
}

type Counts = { calls_target: number; edges: number; resolves_to_different: number; non_call_site: number; unresolved: number };

async function finish(store: Store, projectRoot: string, groups: readonly Group[]): Promise<CheckerReport> {
  const started = performance.now();
  const fileIds = new Map(store.db.prepare("SELECT path, id FROM files").raw().all() as Array<[string, number]>);
  const total = {
    projects: 0,
    skipped: [] as Array<{ config: string; reason: string }>,
    targets: 0,
    candidates: 0,
    calls_target: 0,
    edges: 0,
    resolves_to_different: 0,
    non_call_site: 0,
    unresolved: 0,
    outside: 0,
  };
  let implementsEdges: number | null = null;
  const languages: CheckerLanguage[] = [];
  let complete = true;
  for (const group of groups) {
    const r = await finishGroup(store, projectRoot, group, fileIds);
    complete &&= r.report.complete;
    total.projects += r.report.projects;
    total.skipped.push(...r.report.skipped);
    total.targets += r.targets;
    total.candidates += r.candidates;
    total.outside += r.outside;
    for (const k of ["calls_target", "edges", "resolves_to_different", "non_call_site", "unresolved"] as const) total[k] += r.counts[k];
    if (r.implements !== null) implementsEdges = (implementsEdges ?? 0) + r.implements;
    const unavailable = r.report.unavailable;
    for (const language of group.languages)
      languages.push(unavailable === undefined ? { language, available: true, backend: group.backend } : { language, available: false, backend: group.backend, reason: unavailable });
  }
  store.setMeta(CHECKER_META, new Date().toISOString());
  // A pass that could not judge everything (a program that failed to build, a lost worker, an
  // indexer that failed) leaves the next run to try again; an analyzer that is not installed does not.
  if (complete) store.deleteMeta(CHECKER_BEHIND);
  else store.setMeta(CHECKER_BEHIND, "1");
  store.setMeta(CHECKER_LANGUAGES, JSON.stringify(languages));
  const { outside, ...counts } = total;
  return { ...counts, ...(implementsEdges === null ? {} : { implements: implementsEdges }), outside_ts_scope: outside, languages, duration_ms: Math.round(performance.now() - started) };
}

/** One backend's candidates collected and handed to its analyzer, its verdicts written as they come back. */
async function finishGroup(
  store: Store,
  projectRoot: string,
  group: Group,
  fileIds: ReadonlyMap<string, number>,
): Promise<{ report: ProgramsReport; targets: number; candidates: number; outside: number; counts: Counts; implements: number | null }> {
  const db = store.db;
  const analyzer = group.analyzer;
  const counts: Counts = { calls_target: 0, edges: 0, resolves_to_different: 0, non_call_site: 0, unresolved: 0 };
  if (analyzer.unavailable !== null) {
    // No analyzer: the implementations it verified before are let go with the language's other checker rows.
    if (analyzer.implementations) recordImplementations(store, group.files, fileIds, { implementations: [], whole: [] });
    return { report: { projects: 0, skipped: [], complete: true, unavailable: analyzer.unavailable }, targets: 0, candidates: 0, outside: 0, counts, implements: null };
  }
  const fileIndex = new Map(group.files.map((path, i) => [path, i]));
  const targets = targetsOf(store, group.backend);
  // A target's judged lines, as file id × 2^32 + line (asked per target: a large project has millions).
  const judged = db.prepare("SELECT file_id * 4294967296 + line FROM checker_verdicts WHERE target_id = ?").pluck();
  const handed: Handed = { target: [], fileId: [], line: [], outside: 0 };
  const feed = feedOf(analyzer, targets, verdictWriter(store, targets, handed, counts));

  // Candidates: each target's potential matches, as mast_callers finds them, minus those already
  // judged; handed to the compiler every CHUNK_TARGETS targets, so it checks while more are found.
  let candidates = 0;
  let memo: PotentialMemo | null = null;
  let memoEnd = 0; // the first target the memo holds no names for
  for (const [index, target] of targets.entries()) {
    if (memo === null || index === memoEnd) {
      const next = memoFrom(projectRoot, targets, index);
      memo = next.memo;
      memoEnd = next.end;
    }
    const verified = verifiedCallers(db, [target.id], false);
    const pool = potentialMatches(db, projectRoot, [target.name], { ids: [target.id], fileId: target.fileId, path: target.path }, verified, Number.MAX_SAFE_INTEGER, { unranked: true, memo });
    const known = new Set(judged.all(target.id) as number[]);
    for (const m of pool.matches) {
      const fileId = fileIds.get(m.file_path);
      if (fileId === undefined || known.has(fileId * 4294967296 + m.line)) continue;
      candidates++;
      const at = fileIndex.get(m.file_path);
      if (at === undefined) {
        handed.outside++;
        continue;
      }
      handed.target.push(index);
      handed.fileId.push(fileId);
      handed.line.push(m.line);
      feed.add(index, at, m.line);
    }
    if (targets[index + 1]?.tail !== target.tail) memo.forget(target.tail);
    if (index % CHUNK_TARGETS === CHUNK_TARGETS - 1) feed.hand();
  }
  feed.hand();
  const { report, implemented } = await endAnalyzer(store, group, fileIds, feed.begun());
  return { report, targets: targets.length, candidates, outside: handed.outside, counts, implements: implemented };
}

/**
 * The functions and methods of a backend's languages, those of one name side by side (every
 * `X.get`): their lines are found once, and let go after the last of them. Constructors are called
 * by `new C()`, which names the class, not `constructor`: no candidate of theirs is a call of them.
 */
function targetsOf(store: Store, backend: CheckerBackendName): Target[] {
  return (
    store.db
      .prepare("SELECT s.id, s.name, s.line, s.file_id AS fileId, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method') ORDER BY f.path, s.line, s.id")
      .all() as Target[]
  )
    .filter((t) => backendOf(t.path) === backend && tailOf(t.name) !== "constructor")
    .map((t) => ({ ...t, tail: tailOf(t.name) }))
    .sort((a, b) => (a.tail < b.tail ? -1 : a.tail > b.tail ? 1 : 0));
}

/** The candidates handed to the analyzer, by index: their target (an index into the targets), file id and line; and how many were outside its files. */
interface Handed {
  readonly target: number[];
  readonly fileId: number[];
  readonly line: number[];
  outside: number;
}

/** Writes a batch of the analyzer's verdicts on handed candidates, with a POTENTIAL_CALL edge from the enclosing symbol for each `calls_target`. */
function verdictWriter(store: Store, targets: readonly Target[], handed: Handed, counts: Counts): (batch: VerdictBatch) => void {
  const enclosing = store.db.prepare(
    "SELECT id FROM symbols WHERE file_id = ? AND line <= ? AND end_line >= ? AND kind IN ('function', 'method', 'class', 'const', 'variable') ORDER BY end_line - line, id LIMIT 1",
  );
  const moduleSymbol = store.db.prepare("SELECT id FROM symbols WHERE file_id = ? AND kind = 'module' LIMIT 1");
  return ({ indices, codes }) => {
    const verdicts: Array<[number, number, number, string]> = [];
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k]!;
      const c = { target: targets[handed.target[i]!]!, fileId: handed.fileId[i]!, line: handed.line[i]! };
      const code = codes[k]!;
      if (code === OUTSIDE) {
        handed.outside++;
        continue;
      }
      const verdict = VERDICTS[code]!;
      verdicts.push([c.target.id, c.fileId, c.line, verdict]);
      counts[verdict]++;
      if (verdict !== "calls_target") continue;
      const from = (enclosing.pluck().get(c.fileId, c.line, c.line) ?? moduleSymbol.pluck().get(c.fileId)) as number | undefined;
      if (from === undefined) continue; // classified, but no symbol to draw the edge from
      store.addCheckerEdge(from, c.target.id, c.line);
      counts.edges++;
    }
    store.recordCheckerVerdicts(verdicts);
  };
}

/** Candidates gathered as (target, file index, line) triples and handed to the analyzer in chunks, begun with the targets on the first. */
function feedOf(analyzer: Analyzer, targets: readonly Target[], record: (batch: VerdictBatch) => void): { add(target: number, file: number, line: number): void; hand(): void; begun(): boolean } {
  let triples: number[] = [];
  let begun = false;
  return {
    add: (target, file, line) => triples.push(target, file, line),
    hand() {
      if (triples.length === 0) return;
      if (!begun)
        analyzer.begin(
          targets.map(({ name, line, path }) => ({ name, line, path })),
          record,
        );
      begun = true;
      analyzer.add(Int32Array.from(triples));
      triples = [];
    },
    begun: () => begun,
  };
}

/** A memo for the next MEMO_NAMES names from `index`: one scan of every chunk finds all their lines, and no more of them are held at once; `end`, the first target it holds no names for. */
function memoFrom(projectRoot: string, targets: readonly Target[], index: number): { memo: PotentialMemo; end: number } {
  const names = new Set<string>();
  let k = index;
  for (; k < targets.length && (names.size < MEMO_NAMES || names.has(targets[k]!.tail)); k++) names.add(targets[k]!.tail);
  return { memo: new PotentialMemo(projectRoot, names), end: k };
}

/**
 * The analyzer's report and the implementations it verified, written; then it is stopped. Nothing
 * handed (an incremental run whose rewritten files name no target): it is stopped unasked — unless
 * it also verifies implementations, which runs to its end either way (a changed method set anywhere can change them).
 */
async function endAnalyzer(store: Store, group: Group, fileIds: ReadonlyMap<string, number>, begun: boolean): Promise<{ report: ProgramsReport; implemented: number | null }> {
  const analyzer = group.analyzer;
  const report: ProgramsReport = begun ? await analyzer.end() : analyzer.implementations ? await analyzer.end() : { projects: 0, skipped: [], complete: true };
  let implemented: number | null = null;
  if (analyzer.implementations) {
    const found = await analyzer.implementations();
    if (found !== null) implemented = recordImplementations(store, group.files, fileIds, found);
  }
  analyzer.stop();
  return { report, implemented };
}

/**
 * Replaces the checker's IMPLEMENTS edges from the types of `files` with the verified ones (each
 * end the type or interface symbol of its name in its file, nearest its line), leaving out those
 * the resolver already drew, and drops the resolver's IMPLEMENTS edges between two types whose
 * method sets go/types knows whole when it found no implementation (a method of the name with
 * another signature); the number written.
 */
function recordImplementations(store: Store, files: readonly string[], fileIds: ReadonlyMap<string, number>, facts: GoTypeFacts): number {
  const ids = files.map((f) => fileIds.get(f)).filter((id): id is number => id !== undefined);
  const typeSymbol = store.db.prepare("SELECT id FROM symbols WHERE file_id = ? AND name = ? AND kind IN ('class', 'type', 'interface') ORDER BY abs(line - ?), id LIMIT 1").pluck();
  const symbolOf = (path: string, name: string, line: number) => {
    const fileId = fileIds.get(path);
    return fileId === undefined ? undefined : (typeSymbol.get(fileId, name, line) as number | undefined);
  };
  const rows: Array<[number, number]> = [];
  for (const f of facts.implementations) {
    const from = symbolOf(f.typePath, f.typeName, f.typeLine);
    const to = symbolOf(f.ifacePath, f.ifaceName, f.ifaceLine);
    if (from !== undefined && to !== undefined && from !== to) rows.push([from, to]);
  }
  const whole = facts.whole.map(([path, line, name]) => symbolOf(path, name, line)).filter((id): id is number => id !== undefined);
  return store.replaceCheckerImplements(ids, rows, whole);
}

/** What the worker is sent after it starts. */
export type CheckerWorkerRequest = { readonly kind: "begin"; readonly targets: readonly CheckTarget[] } | { readonly kind: "add"; readonly candidates: Int32Array } | { readonly kind: "end" };

/** The compiler's side, in a worker thread when the compiled worker is there (from TypeScript sources, in this thread). */
function startCompiler(data: CheckerWorkerData): Analyzer {
  if (!existsSync(WORKER_FILE)) {
    // In this thread the programs are built when asked for: building them early would only delay the run.
    let programs: CheckerPrograms | null = null;
    return {
      unavailable: null,
      begin(targets, onBatch) {
        programs = new CheckerPrograms(data.root, data.files);
        programs.begin(targets, onBatch);
      },
      add: (candidates) => programs!.add(candidates),
      end: async () => programs!.end(),
      stop() {},
    };
  }
  const worker = new Worker(WORKER_FILE, { workerData: data });
  // A worker that dies (out of memory, a compiler crash) ends the pass, never the run: what it answered is kept.
  let lost: string | null = null;
  let failed: unknown = null;
  let settle: ((report: ProgramsReport) => void) | null = null;
  let onBatch: (batch: VerdictBatch) => void = () => {};
  const gone = (reason: string): ProgramsReport => ({ projects: 0, skipped: [{ config: "(checker worker)", reason }], complete: false });
  const lose = (reason: string) => {
    if (lost !== null) return;
    lost = reason;
    settle?.(gone(reason));
  };
  const send = (msg: CheckerWorkerRequest, transfer: ArrayBuffer[] = []) => {
    if (lost === null && failed === null) worker.postMessage(msg, transfer);
  };
  worker.on("error", (err) => lose(errorMessage(err)));
  worker.on("exit", (code) => lose(`the checker worker exited (code ${code}) before it answered`));
  worker.on("message", (msg: CheckerWorkerMessage) => {
    if (lost !== null || failed !== null) return;
    if (msg.kind === "batch") {
      // A failed write (the store's) fails the run, as it would on this thread.
      try {
        onBatch(msg.batch);
      } catch (err) {
        failed = err;
        void worker.terminate();
      }
    } else if (msg.kind === "done") {
      lost = "answered";
      void worker.terminate();
      settle?.(msg.report);
    } else lose(msg.message);
  });
  return {
    unavailable: null,
    stop: () => void worker.terminate(),
    begin(targets, batches) {
      onBatch = batches;
      send({ kind: "begin", targets });
    },
    add: (candidates) => send({ kind: "add", candidates }, [candidates.buffer as ArrayBuffer]),
    end() {
      if (failed !== null) return Promise.reject(failed);
      if (lost !== null) return Promise.resolve(gone(lost));
      return new Promise((resolve, reject) => {
        settle = (report) => (failed !== null ? reject(failed) : resolve(report));
        send({ kind: "end" });
      });
    },
  };
}
