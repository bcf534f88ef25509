// The just-in-time refresh (docs/freshness.md), one step for every answer that names files. A read
// tool declares its answer as a ReadPlan (tools/define.ts) and the registry runs it here
// (`planAnswer`): the files the call names read again first when they changed since the run (a
// declaration written there since is then found), the rows computed in one read snapshot, every
// file they name refreshed in one transaction (a stat each when nothing changed) and the rows
// computed again when a refresh rewrote any, then the answer shaped from them. A refresh that
// loses to another writer flags the whole answer (`file_busy_returning_stale_cache`): its rows are
// the last committed ones. The editing tools' reads of the index (`intent`, a file-scoped rename's
// check of other files' uses) refresh through `freshRows` the same way.
import { refreshFiles } from "../index/jit.js";
import type { ToolContext } from "./context.js";
import type { ReadPlan } from "./define.js";

/** Rows brought up to date with the files they name, and the files whose refresh lost (their rows are the last committed). */
export interface FreshRows<R> {
  readonly rows: R;
  readonly busy: ReadonlySet<string>;
}

/** `compute`'s rows after `first` is refreshed, then refreshed with the files they name (`filesOf`), computed again when a refresh rewrote rows. */
export async function freshRows<R>(ctx: ToolContext, compute: () => R, filesOf: (rows: R) => Iterable<string> = () => [], first: readonly string[] = []): Promise<FreshRows<R>> {
  const store = ctx.store();
  const busy = new Set<string>();
  await refreshed(ctx, first, busy);
  const rows = store.snapshot(compute);
  const changed = await refreshed(ctx, filesOf(rows), busy);
  return { rows: changed ? store.snapshot(compute) : rows, busy };
}

/** What to say of rows whose refresh lost to another writer: the files, and that their rows may be older than the files. */
export function busyReason(busy: ReadonlySet<string>): string {
  const files = [...busy].sort();
  return `another writer held the index, so the rows of ${files.slice(0, 5).join(", ")}${files.length > 5 ? ` and ${files.length - 5} more` : ""} could not be brought up to date with the files`;
}

/** Refreshes `paths` (none: nothing is looked at), adding those that lost to `busy`; true when a refresh rewrote or removed rows. */
async function refreshed(ctx: ToolContext, paths: Iterable<string>, busy: Set<string>): Promise<boolean> {
  const names = [...paths];
  if (names.length === 0 || ctx.pinned === true) return false;
  let changed = false;
  for (const [path, r] of await refreshFiles(ctx.store(), ctx.config, names)) {
    if (r === "busy") busy.add(path);
    else if (r === "refreshed" || r === "deleted") changed = true;
  }
  return changed;
}

/** A read tool's answer from its plan over fresh rows; flagged `file_busy_returning_stale_cache` when any refresh lost. */
export async function planAnswer<A, R, O>(ctx: ToolContext, plan: ReadPlan<A, R, O>, args: A): Promise<O> {
  const { rows, busy } = await freshRows(
    ctx,
    () => plan.rows(ctx, args, ctx.store().db),
    (r) => plan.files?.(ctx, args, r) ?? [],
    plan.first?.(ctx, args) ?? [],
  );
  const answer = ctx.store().snapshot(() => plan.answer(ctx, args, rows, busy));
  // The answer is the plan's own new object: flagged in place, so a telemetry note on it stays.
  if (busy.size > 0 && typeof answer === "object" && answer !== null) Object.assign(answer, { file_busy_returning_stale_cache: true });
  return answer;
}
