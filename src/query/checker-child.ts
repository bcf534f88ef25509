// What the child-process backends of the checker pass share (checker-scip.ts, checker-go.ts): an
// analyzer run as a child process with a timeout, its stderr's tail kept as the reason when it
// fails; and the backend's shape as the pass drives it (unavailable at start, or started on the
// files; targets, then candidate chunks kept as triples; at the end each answered by a judge over
// the analyzer's output and handed back as verdict batches, checker-program.ts's codes).
import { spawn, type ChildProcess } from "node:child_process";
import { errorMessage } from "../base/errors.js";
import { OUTSIDE, VERDICTS, type CheckTarget, type CheckerVerdict, type ProgramsReport, type VerdictBatch } from "./checker-program.js";

/** Verdicts per batch handed back. */
const BATCH = 16_384;
/** The child's stderr kept for the reason (its tail). */
const STDERR_KEEP = 4000;

export interface ChildRun {
  /** What the failure reasons name the analyzer as. */
  readonly label: string;
  readonly bin: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  /** Written to the child's stdin, which is then closed (ignored when absent). */
  readonly stdin?: string;
  /** The child's stdout as it comes (ignored when absent). */
  readonly onStdout?: (chunk: string) => void;
  /** The child, once started (to stop it). */
  readonly onChild?: (child: ChildProcess) => void;
}

/** Runs a child to its end: null when it exited 0, else why it failed (start, timeout, exit with its stderr). */
export function runChild(run: ChildRun): Promise<string | null> {
  return new Promise((resolve) => {
    let stderr = "";
    let settled = false;
    const done = (reason: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reason);
    };
    let child: ChildProcess;
    try {
      child = spawn(run.bin, [...run.args], { cwd: run.cwd, env: run.env ?? process.env, stdio: [run.stdin === undefined ? "ignore" : "pipe", run.onStdout ? "pipe" : "ignore", "pipe"] });
    } catch (err) {
      resolve(`${run.label} could not start: ${errorMessage(err)}`);
      return;
    }
    run.onChild?.(child);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done(`${run.label} timed out after ${run.timeoutMs / 1000} s`);
    }, run.timeoutMs);
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP);
    });
    if (run.onStdout) {
      child.stdout!.setEncoding("utf8");
      child.stdout!.on("data", run.onStdout);
    }
    if (run.stdin !== undefined) {
      child.stdin!.on("error", () => {}); // a child that exits early: its exit says why
      child.stdin!.end(run.stdin);
    }
    child.on("error", (err) => done(`${run.label} could not start: ${errorMessage(err)}`));
    child.on("close", (code, signal) => done(code === 0 ? null : `${run.label} failed (${signal ?? `exit ${code}`})${stderr.trim() === "" ? "" : `: ${stderr.trim()}`}`));
  });
}

/** Candidate triples (target index, file index, line) kept until the analyzer can answer them. */
export class Candidates {
  /** The chunks as handed over (no copy: a large project has millions of candidates). */
  private readonly chunks: Int32Array[] = [];

  add(candidates: Int32Array): void {
    this.chunks.push(candidates);
  }

  /** Each candidate judged in order (null: outside what the analyzer read), handed back in batches. */
  answer(targets: readonly CheckTarget[], files: readonly string[], judge: (target: CheckTarget, path: string, line: number) => CheckerVerdict | null, emit: (batch: VerdictBatch) => void): void {
    let indices: number[] = [];
    let codes: number[] = [];
    const flush = () => {
      if (indices.length === 0) return;
      emit({ indices: Int32Array.from(indices), codes: Uint8Array.from(codes) });
      indices = [];
      codes = [];
    };
    let i = 0;
    for (const t of this.chunks)
      for (let k = 0; k < t.length; k += 3, i++) {
        const verdict = judge(targets[t[k]!]!, files[t[k + 1]!]!, t[k + 2]!);
        indices.push(i);
        codes.push(verdict === null ? OUTSIDE : VERDICTS.indexOf(verdict));
        if (indices.length >= BATCH) flush();
      }
    flush();
  }
}

/** A judge of candidates: the verdict on `path`:`line` as a call of `target`, null outside what the analyzer read. */
export type Judge = (target: CheckTarget, path: string, line: number) => CheckerVerdict | null;

/**
 * A backend whose analyzer runs as a child process (started by the subclass when it is found):
 * `output` is its run — what it produced, or why it failed — and null when it could not start
 * (`unavailable` says why). `judge` answers the candidates from what it produced.
 */
export abstract class ChildAnalyzer<Output extends object> {
  abstract readonly unavailable: string | null;
  protected abstract readonly output: Promise<Output | { reason: string }> | null;
  protected child: ChildProcess | null = null;
  private targets: readonly CheckTarget[] = [];
  private emit: (batch: VerdictBatch) => void = () => {};
  private readonly candidates = new Candidates();

  protected constructor(
    /** The skipped config's name in the report when the analyzer fails. */
    private readonly label: string,
    protected readonly files: readonly string[],
  ) {}

  protected abstract judge(output: Output): Judge;

  begin(targets: readonly CheckTarget[], onBatch: (batch: VerdictBatch) => void): void {
    this.targets = targets;
    this.emit = onBatch;
  }

  add(candidates: Int32Array): void {
    this.candidates.add(candidates);
  }

  async end(): Promise<ProgramsReport> {
    if (this.output === null) return { projects: 0, skipped: [], complete: true, unavailable: this.unavailable ?? `${this.label} not found` };
    const result = await this.output;
    this.child = null;
    if ("reason" in result) return { projects: 0, skipped: [{ config: this.label, reason: result.reason }], complete: false, unavailable: result.reason };
    this.candidates.answer(this.targets, this.files, this.judge(result), this.emit);
    return { projects: 1, skipped: [], complete: true };
  }

  stop(): void {
    this.child?.kill("SIGKILL");
    this.child = null;
  }
}
