// The opt-in TypeScript-checker pass (spec §10.3.2, `mast index --checker`), the store's side. It
// takes the potential matches of every TypeScript/JavaScript function and method (query/graph.ts
// `potentialMatches`: the one definition of a candidate), has the compiler (checker-program.ts, in
// its own worker thread) say what each candidate line calls, and records the answers in
// `checker_verdicts`: `calls_target` with a POTENTIAL_CALL edge of resolution 'checker';
// `resolves_to_different` or `non_call_site`, which take the line out of the target's potential
// matches; `unresolved` when the compiler cannot tell (the line stays potential). The worker
// builds the largest project's program while this thread collects the candidates, and verdicts are
// written as they come back, so the compiler is never idle waiting on the store. A candidate that
// already has a verdict is not checked again: a rewritten file has lost its verdicts. The index
// run calls it (`RunIndexOptions.checker`) inside its transaction; the writes are the store's.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { errorMessage } from "../base/errors.js";
import { extensionInfo } from "../lang/languages.js";
import type { CheckerPass, CheckerReport } from "../index/run.js";
import { CHECKER_BEHIND, CHECKER_META, type Store } from "../store/db.js";
import { CheckerPrograms, OUTSIDE, VERDICTS, type CheckTarget, type ProgramsReport, type VerdictBatch } from "./checker-program.js";
import { PotentialMemo, potentialMatches, tailOf, verifiedCallers } from "./graph.js";

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
export type CheckerWorkerMessage = { readonly kind: "batch"; readonly batch: VerdictBatch } | { readonly kind: "done"; readonly report: ProgramsReport } | { readonly kind: "failed"; readonly message: string };

interface Target extends CheckTarget {
  readonly id: number;
  readonly fileId: number;
  readonly tail: string;
}

/** The pass as the index run is handed it: the compiler started on the walked files, the candidates and the writes after the call graph. */
export const checkerPass: CheckerPass = {
  start(projectRoot, paths) {
    // What the compiler reads: the files whose imports resolve as ECMAScript modules.
    const files = paths.filter(checkable);
    const compiler = startCompiler({ root: projectRoot, files });
    return { finish: (store) => finish(store, projectRoot, files, compiler), abandon: () => compiler.stop() };
  },
};

function checkable(path: string): boolean {
  return extensionInfo(path)?.spec.resolver === "ecmascript";
}

async function finish(store: Store, projectRoot: string, files: readonly string[], compiler: Compiler): Promise<CheckerReport> {
  const started = performance.now();
  const db = store.db;
  const fileIds = new Map(db.prepare("SELECT path, id FROM files").raw().all() as Array<[string, number]>);
  const fileIndex = new Map(files.map((path, i) => [path, i]));
  // Constructors are called by `new C()`, which names the class, not `constructor`: no candidate of theirs is a call of them.
  // Targets of one name side by side (every `X.get`): their lines are found once, and let go after the last of them.
  const targets = (db.prepare("SELECT s.id, s.name, s.line, s.file_id AS fileId, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method') ORDER BY f.path, s.line, s.id").all() as Target[])
    .filter((t) => checkable(t.path) && tailOf(t.name) !== "constructor")
    .map((t) => ({ ...t, tail: tailOf(t.name) }))
    .sort((a, b) => (a.tail < b.tail ? -1 : a.tail > b.tail ? 1 : 0));
  // A target's judged lines, as file id × 2^32 + line (asked per target: a large project has millions).
  const judged = db.prepare("SELECT file_id * 4294967296 + line FROM checker_verdicts WHERE target_id = ?").pluck();

  // The candidates handed to the compiler, by index: their target (an index into targets), file id, line and text.
  const list = { target: [] as number[], fileId: [] as number[], line: [] as number[], context: [] as string[] };
  let outside = 0;
  const counts = { calls_target: 0, edges: 0, resolves_to_different: 0, non_call_site: 0, unresolved: 0 };
  const enclosing = db.prepare(
    "SELECT id FROM symbols WHERE file_id = ? AND line <= ? AND end_line >= ? AND kind IN ('function', 'method', 'class', 'const', 'variable') ORDER BY end_line - line, id LIMIT 1",
  );
  const moduleSymbol = db.prepare("SELECT id FROM symbols WHERE file_id = ? AND kind = 'module' LIMIT 1");
  const record = ({ indices, codes }: VerdictBatch) => {
    const verdicts: Array<[number, number, number, string]> = [];
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k]!;
      const c = { target: targets[list.target[i]!]!, fileId: list.fileId[i]!, line: list.line[i]!, context: list.context[i]! };
      const code = codes[k]!;
      if (code === OUTSIDE) {
        outside++;
        continue;
      }
      const verdict = VERDICTS[code]!;
      verdicts.push([c.target.id, c.fileId, c.line, verdict]);
      counts[verdict]++;
      if (verdict !== "calls_target") continue;
      const from = (enclosing.pluck().get(c.fileId, c.line, c.line) ?? moduleSymbol.pluck().get(c.fileId)) as number | undefined;
      if (from === undefined) continue; // classified, but no symbol to draw the edge from
      store.addCheckerEdge(from, c.target.id, c.line, c.context);
      counts.edges++;
    }
    store.recordCheckerVerdicts(verdicts);
  };

  // Candidates: each target's potential matches, as mast_callers finds them, minus those already
  // judged; handed to the compiler every CHUNK_TARGETS targets, so it checks while more are found.
  let triples: number[] = [];
  let begun = false;
  const hand = () => {
    if (triples.length === 0) return;
    if (!begun) compiler.begin(targets.map(({ name, line, path }) => ({ name, line, path })), record);
    begun = true;
    compiler.add(Int32Array.from(triples));
    triples = [];
  };
  let candidates = 0;
  let memo: PotentialMemo | null = null;
  let memoEnd = 0; // the first target the memo holds no names for
  for (const [index, target] of targets.entries()) {
    // A memo for the next MEMO_NAMES names: one scan of every chunk finds all their lines, and no more of them are held at once.
    if (memo === null || index === memoEnd) {
      const names = new Set<string>();
      let k = index;
      for (; k < targets.length && (names.size < MEMO_NAMES || names.has(targets[k]!.tail)); k++) names.add(targets[k]!.tail);
      memo = new PotentialMemo(projectRoot, names);
      memoEnd = k;
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
        outside++;
        continue;
      }
      list.target.push(index);
      list.fileId.push(fileId);
      list.line.push(m.line);
      list.context.push(m.context);
      triples.push(index, at, m.line);
    }
    if (targets[index + 1]?.tail !== target.tail) memo.forget(target.tail);
    if (index % CHUNK_TARGETS === CHUNK_TARGETS - 1) hand();
  }
  hand();
  // Nothing to check (an incremental run whose rewritten files name no target): the compiler is stopped unasked.
  const report: ProgramsReport = begun ? await compiler.end() : { projects: 0, skipped: [], complete: true };
  compiler.stop();
  store.setMeta(CHECKER_META, new Date().toISOString());
  // A pass that could not judge everything (a program that failed to build, a lost worker) leaves the next run to try again.
  if (report.complete) store.deleteMeta(CHECKER_BEHIND);
  else store.setMeta(CHECKER_BEHIND, "1");
  return { projects: report.projects, skipped: report.skipped, targets: targets.length, candidates, ...counts, outside_ts_scope: outside, duration_ms: Math.round(performance.now() - started) };
}

/** The compiler's side, in a worker thread when the compiled worker is there (from TypeScript sources, in this thread). */
interface Compiler {
  /** The targets; then candidate chunks, checked while more are collected; then the report. */
  begin(targets: readonly CheckTarget[], onBatch: (batch: VerdictBatch) => void): void;
  add(candidates: Int32Array): void;
  end(): Promise<ProgramsReport>;
  stop(): void;
}

/** What the worker is sent after it starts. */
export type CheckerWorkerRequest =
  | { readonly kind: "begin"; readonly targets: readonly CheckTarget[] }
  | { readonly kind: "add"; readonly candidates: Int32Array }
  | { readonly kind: "end" };

function startCompiler(data: CheckerWorkerData): Compiler {
  if (!existsSync(WORKER_FILE)) {
    // In this thread the programs are built when asked for: building them early would only delay the run.
    let programs: CheckerPrograms | null = null;
    return {
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
