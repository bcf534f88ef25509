// `intent rename-exported-symbol` (docs/editing.md#verification-and-intents): a whole-project rename planned on the
// mast index (tools/intent.ts hands the plan over: the declaring file, the imports, barrels and
// namespace uses of the name, what cannot be planned, the potential matches to review) and carried
// out here: one edit transaction per file (the AST gate before and after), all in the call's one
// changeSet; then the verification of edit/verify.ts over the edited files; a failed step or a
// failed verification rolls every edited file back to its bytes before the plan, and a rollback
// that cannot write a file back says so (unrevertedFiles, ROLLBACK_INCOMPLETE).
import { writeAtomic } from "../base/atomic.js";
import { MastError, errorMessage, isMastError, type ErrorCode } from "../base/errors.js";
import { extensionInfo } from "../lang/languages.js";
import type { EditRules } from "../lang/edit-rules.js";
import { applyEdits, type TextEdit } from "../syntax/ast-walk.js";
import type { Tree } from "../syntax/parser.js";
import { generateDiff } from "./diff.js";
import type { OpContext, OpResult, Warning } from "./op-result.js";
import { writablePath } from "./paths.js";
import { renderText, sourceOf, withSource, type EditableText } from "./text.js";
import { editTransaction } from "./transaction.js";
import { verifyChanges, type VerifyResult } from "./verify.js";
import { readBytes, withFileLock } from "./writer.js";
import { relative } from "node:path";

export interface PlanGap {
  readonly file: string;
  readonly operation: string;
  readonly reason: string;
  readonly resolution: string;
}

export interface RenamePlanInput {
  readonly intent: Readonly<Record<string, unknown>>;
  /** The contract's operation (rename-exported-symbol, add-parameter) and the declaration's name. */
  readonly operation: string;
  readonly name: string;
  readonly definition: { readonly file: string; readonly line: number; readonly kind: string };
  /** The files to edit (absolute), each with the edits its tree gets (and the uses it could not place). */
  readonly files: ReadonlyArray<{ readonly file: string; edit(rules: EditRules, tree: Tree): { edits: TextEdit[]; unresolved: Array<{ line: number; text: string }> } }>;
  readonly unresolved: readonly PlanGap[];
  readonly reconciliation: { readonly resolved: number; readonly unresolved: number; readonly ambiguous: number };
  /** Lines naming the symbol that no planned edit covers: listed, never edited. */
  readonly review: ReadonlyArray<{ readonly file: string; readonly line: number; readonly context: string }>;
  /** Lines naming the symbol the index's list left out (its cap). */
  readonly reviewOmitted: number;
  /** The impact summary up to its count of lines to review, which the review as answered completes. */
  readonly impact: string;
}

export interface IntentOptions {
  readonly dryRun: boolean;
  readonly yes: boolean;
  readonly verify: boolean;
  readonly revert: boolean;
  readonly timeoutMs: number;
  readonly tsconfigOf?: (file: string) => string | null;
}

export interface IntentStep {
  file: string;
  operation: string;
  status: "applied" | "planned" | "failed" | "skipped";
  changes: number;
  changedLines?: Array<{ start: number; end: number }>;
  diff?: string;
  errorCode?: string;
  message?: string;
}

export interface IntentExecution {
  steps: IntentStep[];
  summary: { total: number; applied: number; failed: number; skipped: number; changes: number };
  verification?: VerifyResult;
  reverted: boolean;
  revertReason?: "verification-failed" | "step-failed";
  unrevertedFiles?: string[];
  changeSetId?: string;
}

export interface IntentResult {
  success: boolean;
  dryRun?: true;
  plan: Omit<RenamePlanInput, "files" | "name" | "operation" | "review" | "reviewOmitted" | "impact"> & {
    files: string[];
    review: Array<RenamePlanInput["review"][number]>;
    /** Present when the index's cap left lines naming the symbol out of review. */
    reviewOmitted?: number;
    impactSummary: string;
  };
  execution: IntentExecution;
  /** Why the intent did not succeed (the tool answers it as this error, the result in its details). */
  failure?: { code: ErrorCode; message: string };
}

/** Puts each file back to its bytes before the plan; the files that could not be written back. */
async function rollBack(originals: ReadonlyMap<string, Buffer>): Promise<string[]> {
  const failed: string[] = [];
  for (const [file, bytes] of [...originals].reverse()) {
    try {
      await withFileLock(file, "intent rollback", () => writeAtomic(file, bytes, { pinned: true }));
    } catch {
      failed.push(file);
    }
  }
  return failed;
}

/** The plan as answered: its files, the review given (the summary counts it, and says what the cap left out). */
function shownPlan(plan: RenamePlanInput, review: IntentResult["plan"]["review"]): IntentResult["plan"] {
  const { name: _name, operation: _operation, impact, reviewOmitted, ...rest } = plan;
  return {
    ...rest,
    files: plan.files.map((f) => f.file),
    review,
    ...(reviewOmitted > 0 ? { reviewOmitted } : {}),
    impactSummary: `${impact}; ${review.length} line(s) to review${reviewOmitted > 0 ? ` (and ${reviewOmitted} more left out by the cap)` : ""}, never edited`,
  };
}

/**
 * A file's planned edits on its tree, each range once, in order; refused (unless `yes`) when the
 * plan found uses there it could not tie to the symbol (a key of an object whose type is not
 * known): never half-renamed silently.
 */
function fileEdits(plan: RenamePlanInput, target: RenamePlanInput["files"][number], path: string, tree: Tree, yes: boolean): TextEdit[] {
  const rules = extensionInfo(path)?.spec.edits;
  if (!rules) throw new MastError("UNSUPPORTED_OPERATION", `${path} is in a language without AST edits`);
  const unique = new Map<string, TextEdit>();
  const planned = target.edit(rules, tree);
  for (const e of planned.edits) unique.set(`${e.start}:${e.end}`, e);
  const unresolvedUses = planned.unresolved;
  if (unresolvedUses.length > 0 && !yes) {
    throw new MastError(
      "UNSUPPORTED_OPERATION",
      `${unresolvedUses.length} use(s) of '${plan.name}' in ${path} could not be ${plan.operation === "add-parameter" ? "given the argument" : "resolved"} (lines ${unresolvedUses
        .slice(0, 10)
        .map((u) => u.line)
        .join(", ")}): the rename is not certain there`,
      {
        hint: "Check those lines and pass --yes to rename without them, or rename them yourself.",
      },
    );
  }
  return [...unique.values()].sort((a, b) => a.start - b.start);
}

/** One file's step: its edits in one AST-gated edit transaction (a dry run answers the diff); `original` is its bytes before, when the step wrote it. */
async function runStep(oc: OpContext, plan: RenamePlanInput, target: RenamePlanInput["files"][number], options: IntentOptions): Promise<{ step: IntentStep; original: Buffer | null }> {
  const path = writablePath(target.file, oc.boundary, oc.cwd);
  const before = readBytes(path);
  const r = await editTransaction(oc, path, { operation: `intent ${plan.operation}`, dryRun: options.dryRun, gate: "ast" }, ({ text, tree }) => {
    const t = text as EditableText;
    const edits = fileEdits(plan, target, path, tree!, options.yes);
    const { after, edited } = withSource(t, applyEdits(sourceOf(t), edits));
    const rel = relative(oc.boundary.root, path);
    return {
      after,
      edited,
      noop: edits.length === 0,
      data: { changes: edits.length, changedLines: [...edited], ...(options.dryRun ? { diff: generateDiff(`a/${rel}`, `b/${rel}`, renderText(t), renderText(after), 3) } : {}) },
    };
  });
  const step: IntentStep = {
    file: path,
    operation: plan.operation,
    status: options.dryRun ? "planned" : "applied",
    changes: r.data.changes,
    changedLines: r.data.changedLines,
    ...(r.data.diff ? { diff: r.data.diff } : {}),
  };
  return { step, original: !options.dryRun && before !== null && r.written && r.written.length > 0 ? before : null };
}

/** The steps' count by outcome (a planned step counts as applied) and their changes in all. */
function summaryOf(steps: readonly IntentStep[]): IntentExecution["summary"] {
  const count = (s: IntentStep["status"]) => steps.filter((x) => x.status === s).length;
  return { total: steps.length, applied: count("applied") + count("planned"), failed: count("failed"), skipped: count("skipped"), changes: steps.reduce((n, s) => n + s.changes, 0) };
}

/** The verification of edit/verify.ts over the written files (auto-detected checks scoped to them, no baseline, no revert of its own). */
function verifyWritten(oc: OpContext, written: string[], options: IntentOptions): Promise<OpResult<VerifyResult>> {
  return verifyChanges(oc, {
    files: written,
    auto_detect: true,
    scope_tests: true,
    revert_on_failure: false,
    timeout_ms: options.timeoutMs,
    use_baseline: false,
    record_baseline: false,
    ...(options.tsconfigOf ? { tsconfigOf: options.tsconfigOf } : {}),
  });
}

/** Runs a rename plan: refused while it has gaps (unless `yes`), steps in order, then verification; rolled back on a failure. */
export async function runIntent(oc: OpContext, plan: RenamePlanInput, options: IntentOptions): Promise<OpResult<IntentResult>> {
  if (plan.unresolved.length > 0 && !options.yes) {
    throw new MastError("UNSUPPORTED_OPERATION", `the plan has ${plan.unresolved.length} part(s) it cannot carry out (plan.unresolved); nothing was written`, {
      hint: "Edit those places yourself, or pass --yes to apply only what the plan could compute (they stay listed in plan.unresolved).",
      details: { plan: shownPlan(plan, [...plan.review]) },
    });
  }
  const steps: IntentStep[] = [];
  const originals = new Map<string, Buffer>();
  const written: string[] = [];
  const warnings: Warning[] = [];
  let failure: { code: ErrorCode; message: string } | null = null;
  for (const target of plan.files) {
    if (failure) {
      steps.push({ file: target.file, operation: plan.operation, status: "skipped", changes: 0 });
      continue;
    }
    try {
      const { step, original } = await runStep(oc, plan, target, options);
      if (original) {
        originals.set(step.file, original);
        written.push(step.file);
      }
      steps.push(step);
    } catch (err) {
      const code: ErrorCode = isMastError(err) ? err.code : "WRITE_FAILED";
      failure = { code, message: errorMessage(err) };
      steps.push({ file: target.file, operation: plan.operation, status: "failed", changes: 0, errorCode: code, message: errorMessage(err) });
    }
  }
  // A line the plan edited is no longer one to review.
  const edited = new Set(steps.flatMap((s) => (s.changedLines ?? []).flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => `${s.file}:${r.start + i}`))));
  const shown = shownPlan(
    plan,
    plan.review.filter((r) => !edited.has(`${r.file}:${r.line}`)),
  );
  const execution: IntentExecution = { steps, summary: summaryOf(steps), reverted: false };
  if (written.length > 0) execution.changeSetId = oc.changeSet.id;
  const result: IntentResult = { success: false, ...(options.dryRun ? { dryRun: true as const } : {}), plan: shown, execution };
  // A verdict other than success is returned, not thrown, so the caller refreshes the index over what was written (and put back) first.
  const done = (failure: IntentResult["failure"]): OpResult<IntentResult> => ({ data: { ...result, ...(failure ? { failure } : {}) }, warnings, written });
  const undoAll = async (reason: "verification-failed" | "step-failed", code: ErrorCode, message: string): Promise<OpResult<IntentResult>> => {
    if (reason === "step-failed" || options.revert) {
      const unreverted = await rollBack(originals);
      if (unreverted.length > 0) {
        execution.unrevertedFiles = unreverted;
        return done({ code: "ROLLBACK_INCOMPLETE", message: `${message}; the rollback could not write back ${unreverted.length} file(s): ${unreverted.join(", ")}` });
      }
      execution.reverted = originals.size > 0;
      if (execution.reverted) execution.revertReason = reason;
    }
    return done({ code, message });
  };
  // A half-applied tree is not verified: its failures would be the plan's, not the change's.
  if (failure) return undoAll("step-failed", failure.code, `a step failed (${failure.message}); nothing of the plan is kept`);
  if (!options.dryRun && options.verify && written.length > 0) {
    const v = await verifyWritten(oc, written, options);
    execution.verification = v.data;
    warnings.push(...v.warnings);
    if (v.data.overall === "fail")
      return undoAll(
        "verification-failed",
        "VERIFY_FAILED",
        `the rename applied, but verification failed (${v.data.checksRun.filter((c) => v.data[c] && !v.data[c]!.passed).join(", ")})${options.revert ? "; every file was put back" : "; kept (--no-revert)"}`,
      );
    if (v.data.overall === "timeout") {
      result.success = true;
      return done({ code: "VERIFY_TIMEOUT", message: "the rename applied and was kept; verification timed out without a verdict" });
    }
  }
  result.success = true;
  return { data: result, warnings, written };
}
