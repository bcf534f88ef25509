// How a hashpilot operation runs as a tool call (every editing tool's, intent's and
// verify_changes'): the call's merged configuration and route policy, its own changeSet, the mast
// index caught up with what it wrote, its telemetry event and the apiVersion 1 envelope; reports
// over hashpilot's own stores; the editing engine loaded by the first call that uses it.
import type { OpContext, OpResult, Warning } from "../edit/op-result.js";
import { extname, resolve } from "node:path";
import { ChangeSet, mintChangeSetId } from "../edit/snapshots.js";
import { isMastError } from "../base/errors.js";
import { loadHashpilotConfig, parsePolicy, type HashpilotConfig, type RoutePolicy } from "../edit/config.js";
import { projectBoundary } from "../edit/paths.js";
import { recordEvent, type TelemetryEvent } from "../edit/telemetry.js";
import { refreshIndexedFiles } from "../index/jit.js";
import { indexThreads } from "../query/index-threads.js";
import { extensionInfo } from "../lang/languages.js";
import type { ToolContext } from "./context.js";
import { okEnvelope, type Envelope } from "./envelope.js";

// The editing engine (the operations, AST edits and tree-sitter, routed edits, the reports) is
// loaded by the first call that uses it: a call of another tool (`mast query mast_search`) loads
// none of it (~20 ms of a CLI call's start-up). The modules stay loaded once imported.
export const operations = () => import("../edit/operations.js");
export const ast = () => import("../edit/ast.js");
export const routed = () => import("../edit/route-edit.js");
export const reports = () => import("../edit/reports.js");

/** What one call is, for its telemetry event. */
export interface CallMeta {
  /** The contract's operation name (`replace-hash`). */
  readonly operation: string;
  /** read | hash | diff | undo. */
  readonly route: string;
  /** The files the call is about (the first is the event's `file`). */
  readonly files: readonly string[];
  readonly actor?: string | undefined;
  readonly task_id?: string | undefined;
  readonly reason?: string | undefined;
}

const FALLBACK_REASONS: Partial<Record<string, string>> = { STALE_ANCHOR: "stale-anchor", AMBIGUOUS_ANCHOR: "ambiguous-anchor", PARSE_ERROR: "parse-error" };

/** The merged hashpilot configuration of a call. */
export function editConfig(ctx: ToolContext): HashpilotConfig {
  return loadHashpilotConfig({ cwd: ctx.cwd, configPath: ctx.editConfigPath });
}

/** The route policy of a call: the configured one with an inline policy's overrides merged over it. */
export function mergedPolicy(ctx: ToolContext, inlineJson: string | null | undefined, noFiles = false): RoutePolicy {
  const config = loadHashpilotConfig({ cwd: ctx.cwd, configPath: ctx.editConfigPath, noFiles });
  const inline = inlineJson ? parsePolicy(inlineJson) : {};
  return {
    ...config.routePolicy,
    ...inline,
    languageOverrides: { ...config.routePolicy.languageOverrides, ...inline.languageOverrides },
    operationOverrides: { ...config.routePolicy.operationOverrides, ...inline.operationOverrides },
  };
}

/** The operations' context of a call: the project's boundary (the state dir sealed, the configured read roots open to reads) and a fresh changeSet. */
export function opContext(ctx: ToolContext, tool: string, config: HashpilotConfig): OpContext {
  const boundary = projectBoundary(ctx.config.project_root, { stateDir: ctx.config.state_dir, readRoots: config.readRoots });
  return { boundary, cwd: ctx.cwd, changeSet: new ChangeSet(mintChangeSetId(), tool, boundary.realRoot) };
}

/** Bytes an edit may write and still have the index refreshed before it answers; a bigger write is refreshed by the next run or read. */
export const REFRESH_BUDGET_BYTES = 1024 * 1024;

/** The mast index caught up with the files a call wrote, within REFRESH_BUDGET_BYTES; INDEX_REFRESH_DEFERRED for the rest. */
async function refreshWritten(ctx: ToolContext, written: readonly string[], warnings: Warning[]): Promise<void> {
  const { deferred } = await refreshIndexedFiles(ctx.config, written, { maxBytes: REFRESH_BUDGET_BYTES, threads: indexThreads });
  if (deferred.length > 0) {
    warnings.push({
      code: "INDEX_REFRESH_DEFERRED",
      message:
        `the mast index was not refreshed for ${deferred.length} file(s) over ${REFRESH_BUDGET_BYTES} bytes written ` + `(${deferred.join(", ")}): the next index run or read of them catches up`,
      files: deferred,
    });
  }
}

/**
 * Runs one operation as a tool call: its own changeSet, the project's mast index caught up with
 * what it wrote (within REFRESH_BUDGET_BYTES, else deferred with INDEX_REFRESH_DEFERRED), one
 * telemetry event (unless `telemetry.enabled` is false), and the envelope.
 */
export async function runEditOperation(ctx: ToolContext, tool: string, meta: CallMeta, op: (oc: OpContext) => OpResult<unknown> | Promise<OpResult<unknown>>): Promise<Envelope> {
  const config = editConfig(ctx);
  const oc = opContext(ctx, tool, config);
  const started = performance.now();
  const file = meta.files[0] === undefined ? null : resolve(ctx.cwd, meta.files[0]);
  const event = (success: boolean, extra: Partial<TelemetryEvent>): TelemetryEvent => ({
    timestamp: new Date().toISOString(),
    session: process.env.HASHPILOT_SESSION || `ppid-${process.ppid}`,
    operation: meta.operation,
    route: meta.route,
    file,
    files_count: meta.files.length,
    language: file === null ? null : (extensionInfo(file)?.language ?? (extname(file).slice(1) || null)),
    success,
    errorCode: null,
    fallback_reason: null,
    retries: 0,
    verification_result: null,
    elapsed_ms: Math.round(performance.now() - started),
    changeSetId: null,
    actor: meta.actor ?? null,
    taskId: meta.task_id ?? null,
    reason: meta.reason ?? null,
    ranges: null,
    diff: null,
    ...extra,
  });
  let result: OpResult<unknown>;
  try {
    result = await op(oc);
  } catch (err) {
    const code = isMastError(err) ? err.code : "INTERNAL";
    if (config.telemetry.enabled) recordEvent(event(false, { errorCode: code, fallback_reason: FALLBACK_REASONS[code] ?? null }));
    throw err;
  }
  const wrote = result.written !== undefined && result.written.length > 0;
  const warnings: Warning[] = [...result.warnings];
  if (wrote) await refreshWritten(ctx, result.written!, warnings);
  if (config.telemetry.enabled) {
    const retries = (result.data as { retries?: unknown } | null)?.retries;
    // A routed edit records the route it took.
    const route = (result.data as { route?: unknown } | null)?.route;
    recordEvent(
      event(true, {
        ...(typeof route === "string" ? { route } : {}),
        retries: typeof retries === "number" ? retries : 0,
        changeSetId: wrote ? oc.changeSet.id : null,
        ranges: wrote ? [...(result.changedRanges ?? [])] : null,
        diff: wrote && config.telemetry.recordContent ? (result.unifiedDiff?.() ?? null) : null,
      }),
    );
  }
  return okEnvelope(tool, result.data, warnings);
}

/** A report over hashpilot's own stores: no event, no changeSet. */
export async function reportEnvelope(tool: string, result: OpResult<unknown> | Promise<OpResult<unknown>>): Promise<Envelope> {
  const { data, warnings } = await result;
  return okEnvelope(tool, data, warnings);
}
