// The read tools' just-in-time refresh (docs/freshness.md), one step for every tool whose answer names
// files: the file a call names (`file_path`) read again first when it changed since the run (a
// declaration written there since is then found), the answer computed, every file it names
// refreshed in one transaction (a stat each when nothing changed) and the answer computed again
// when a refresh rewrote rows. A refresh that loses to another writer flags the whole answer
// (`busyFlag`): its rows are the last committed ones.
import { refreshFiles } from "../index/jit.js";
import type { ToolContext } from "./context.js";

/** `compute`'s answer over rows brought up to date with the files it names (`filesOf`) and the one the call names (`named`); `busy` when a refresh lost. */
export async function freshAnswer<T>(ctx: ToolContext, compute: () => T, filesOf: (answer: T) => Iterable<string> = () => [], named: string | null = null): Promise<{ answer: T; busy: boolean }> {
  const store = ctx.store();
  const namedBusy = await namedFileRefreshed(ctx, named);
  const first = store.snapshot(compute);
  const files = [...filesOf(first)];
  if (files.length === 0) return { answer: first, busy: namedBusy };
  const refreshes = [...(await refreshFiles(store, ctx.config, files)).values()];
  const changed = refreshes.some((r) => r === "refreshed" || r === "deleted");
  return { answer: changed ? store.snapshot(compute) : first, busy: namedBusy || refreshes.includes("busy") };
}

/** The file a call names read again when it changed since the run; true when another writer held it. */
export async function namedFileRefreshed(ctx: ToolContext, filePath: string | null): Promise<boolean> {
  if (filePath === null) return false;
  return [...(await refreshFiles(ctx.store(), ctx.config, [filePath])).values()].includes("busy");
}

/** The envelope flag of an answer a refresh could not bring up to date: present only when true (docs/freshness.md). */
export function busyFlag(busy: boolean): { file_busy_returning_stale_cache?: true } {
  return busy ? { file_busy_returning_stale_cache: true } : {};
}
