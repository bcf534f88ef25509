// route-edit and batch (hashpilot contract): one structured edit dispatched to the route its file
// and operation allow — AST, then hash, then diff — or the one `method` forces or the route policy
// picks, with ROUTE_FALLBACK when that is a less safe route than the operation's own; batch runs
// one such edit over many files, their locks taken up front, parallel unless serial, with stale
// anchors and locks counted as conflicts apart from failures.
import { errorMessage, isMastError, MastError, type ErrorCode } from "../base/errors.js";
import { astAddImport, astInsert, astRemoveImport, astRenameSymbol, astReplaceBody, type AstEditOptions } from "./ast.js";
import type { Route, RoutePolicy } from "./config.js";
import type { OpContext, OpResult, Warning } from "./op-result.js";
import { replaceHash, replaceContent } from "./operations.js";
import { writablePath } from "./paths.js";
import { chooseRoute, type RoutedOperation } from "./route.js";
import { parseRange } from "./anchor.js";
import { withFileLocks } from "./writer.js";

/** The route an operation is meant for: the AST operations' is ast. */
const OWN_ROUTE: Record<RoutedOperation, Route> = {
  "rename-symbol": "ast",
  "replace-body": "ast",
  "add-import": "ast",
  "remove-import": "ast",
  "insert-before": "ast",
  "insert-after": "ast",
  "replace-hash": "hash",
  "replace-content": "diff",
};
const SAFETY: Record<Route, number> = { diff: 0, hash: 1, ast: 2 };

export interface RouteEditRequest {
  readonly operation: RoutedOperation;
  /** AST: the symbol (rename: the old name), or the import spec. */
  readonly symbol?: string | null;
  readonly newName?: string | null;
  /** replace-body: the body; insert-*: the lines; hash and diff routes: the new content. */
  readonly content?: string | null;
  readonly line?: number | null;
  readonly oldHash?: string | null;
  readonly range?: string | null;
  readonly oldContent?: string | null;
  readonly expectedFileHash?: string | null;
  /** Forces a route. */
  readonly method?: Route | null;
  readonly options: AstEditOptions;
}

export interface Routed {
  route: Route;
  routeReason: string;
}

function need<T>(value: T | null | undefined, what: string, operation: string, route: Route): T {
  if (value === null || value === undefined) throw new MastError("INVALID_ARGUMENT", `${operation} by the ${route} route needs ${what}`);
  return value;
}

/** One edit by its route: the underlying operation's answer, with the route taken and why. */
export async function routeEdit(ctx: OpContext, file: string, req: RouteEditRequest, policy: RoutePolicy): Promise<OpResult<unknown>> {
  const choice = chooseRoute(file, req.operation, policy);
  const route = req.method ?? choice.route;
  const routeReason = req.method ? `--method forces route '${req.method}'` : choice.explanation.reasons.at(-1)!;
  const own = OWN_ROUTE[req.operation];
  const warnings: Warning[] =
    SAFETY[route] < SAFETY[own]
      ? [{ code: "ROUTE_FALLBACK", message: `'${req.operation}' on ${choice.language} took the ${route} route, not ${own}: ${routeReason}`, route, reasons: choice.explanation.reasons }]
      : [];
  const result = await dispatch(ctx, file, req, route);
  return { ...result, data: { ...(result.data as object), route, routeReason } satisfies Routed, warnings: [...warnings, ...result.warnings] };
}

function dispatch(ctx: OpContext, file: string, req: RouteEditRequest, route: Route): Promise<OpResult<unknown>> {
  const op = req.operation;
  if (route === "hash") {
    return replaceHash(ctx, file, need(req.oldHash, "old_hash", op, route), need(req.content, "new content", op, route), {
      range: req.range == null ? null : parseRange(req.range),
      dryRun: req.options.dryRun,
      recovery: true,
      expectedFileHash: req.expectedFileHash ?? null,
    });
  }
  if (route === "diff") return replaceContent(ctx, file, need(req.oldContent, "old_content", op, route), need(req.content, "new content", op, route), req.options);
  if (OWN_ROUTE[op] !== "ast")
    throw new MastError("UNSUPPORTED_OPERATION", `${op} is not an AST operation; it takes the ${OWN_ROUTE[op]} route`, { hint: `Pass method: ${OWN_ROUTE[op]}, or leave method out.` });
  const symbol = need(req.symbol, op.endsWith("import") ? "the import spec" : "symbol", op, route);
  switch (op) {
    case "rename-symbol":
      return astRenameSymbol(ctx, file, symbol, need(req.newName, "new_name", op, route), req.line ?? null, req.options);
    case "replace-body":
      return astReplaceBody(ctx, file, symbol, need(req.content, "the new body (content)", op, route), req.options, req.line ?? null);
    case "add-import":
      return astAddImport(ctx, file, symbol, req.options);
    case "remove-import":
      return astRemoveImport(ctx, file, symbol, req.options);
    default:
      return astInsert(ctx, file, symbol, need(req.content, "content", op, route), op === "insert-before" ? "before" : "after", req.options, req.line ?? null);
  }
}

export interface BatchEntry {
  file: string;
  success: boolean;
  route: Route | null;
  routeReason: string;
  errorCode?: ErrorCode;
  message?: string;
  stale?: true;
  result?: unknown;
}

export interface BatchData {
  results: BatchEntry[];
  summary: { total: number; succeeded: number; failed: number; conflicts: number; elapsed_ms: number };
  success: boolean;
}

/** How long a batch waits for its files' locks before it gives up on all of them (LOCK_TIMEOUT). */
export const BATCH_LOCK_TIMEOUT_MS = 2_000;

/** Failures a concurrent writer causes: retryable after a re-read, counted as conflicts. */
const CONFLICTS: ReadonlySet<ErrorCode> = new Set(["STALE_ANCHOR", "AMBIGUOUS_ANCHOR", "HASH_MISMATCH", "LOCK_HELD", "LOCK_TIMEOUT", "LOCK_COMPROMISED"]);

/**
 * One edit over many files: every file's lock taken up front (all LOCK_TIMEOUT, route null, when
 * one cannot be), then each file routed and edited — in parallel unless serial. Answers the
 * entries and the counts; when any failed or conflicted, the error carries them (its code the
 * first failure's, else the first conflict's).
 */
export async function batchEdit(ctx: OpContext, files: readonly string[], req: RouteEditRequest, policy: RoutePolicy, serial: boolean): Promise<OpResult<BatchData>> {
  const started = performance.now();
  if (files.length === 0) throw new MastError("INVALID_ARGUMENT", "batch needs at least one file");
  const paths = files.map((f) => writablePath(f, ctx.boundary, ctx.cwd));
  const written: string[] = [];
  const changedRanges: Array<{ start: number; end: number }> = [];
  const warnings: Warning[] = [];
  const one = async (file: string, i: number): Promise<BatchEntry> => {
    try {
      const r = await routeEdit(ctx, file, req, policy);
      written.push(...(r.written ?? []));
      changedRanges.push(...(r.changedRanges ?? []));
      warnings.push(...r.warnings.map((w) => ({ ...w, file: paths[i] })));
      const { route, routeReason, ...result } = r.data as Routed & Record<string, unknown>;
      return { file: paths[i]!, success: true, route, routeReason, result };
    } catch (err) {
      if (!isMastError(err)) throw err;
      const chosen = req.method ?? chooseRoute(file, req.operation, policy).route;
      return { file: paths[i]!, success: false, route: chosen, routeReason: "", errorCode: err.code, message: err.message, ...(CONFLICTS.has(err.code) ? { stale: true as const } : {}) };
    }
  };
  let results: BatchEntry[];
  try {
    results = await withFileLocks(
      paths,
      "batch",
      async () => {
        if (serial) {
          const out: BatchEntry[] = [];
          for (let i = 0; i < files.length; i++) out.push(await one(files[i]!, i));
          return out;
        }
        return Promise.all(files.map((f, i) => one(f, i)));
      },
      BATCH_LOCK_TIMEOUT_MS,
    );
  } catch (err) {
    if (!isMastError(err) || err.code !== "LOCK_HELD") throw err;
    results = paths.map((file) => ({ file, success: false, route: null, routeReason: "lock timeout", errorCode: "LOCK_TIMEOUT" as const, message: errorMessage(err), stale: true as const }));
  }
  const conflicts = results.filter((r) => !r.success && CONFLICTS.has(r.errorCode!)).length;
  const failed = results.filter((r) => !r.success).length - conflicts;
  const data: BatchData = {
    results,
    summary: { total: results.length, succeeded: results.length - failed - conflicts, failed, conflicts, elapsed_ms: Math.round(performance.now() - started) },
    success: failed === 0 && conflicts === 0,
  };
  if (!data.success) {
    const first = results.find((r) => !r.success && !CONFLICTS.has(r.errorCode!)) ?? results.find((r) => !r.success)!;
    throw new MastError(first.errorCode!, `batch: ${failed} failed and ${conflicts} conflicted of ${results.length}; first: ${first.message}`, {
      details: { ...data },
      hint: "Each entry of details.results says what happened to its file; conflicts are retryable after re-reading the file.",
    });
  }
  return { data, warnings, written, changedRanges };
}
