// mast_reindex: a synchronous reindex the agent calls after writing files (docs/index-lifecycle.md#mid-task-reindex);
// incremental unless `full`, under structure.lock with the server retry policy, in a worker
// thread (the server keeps answering meanwhile).
import { SERVER_LOCK_POLICY } from "../index/lock.js";
import { indexThreads } from "../query/index-threads.js";
import { defineTool } from "./define.js";
import { open } from "./outputs.js";
import { z } from "./schema.js";

export const reindexTool = defineTool({
  name: "mast_reindex",
  source: { defined: "tools/reindex.ts", answers: "index/run-thread.ts" },
  title: "Reindex",
  description: "Updates the index from the disk and returns when done: call it after writing files by other means.",
  details:
    "Bring the index up to date with the files on disk and return when done: call it after writing or creating files, before searching for what you wrote. " +
    "Incremental (files whose content changed, new and deleted files) unless full is true.",
  input: () => z.object({ full: z.boolean().default(false).describe("Re-parse every file instead of only changed ones.") }).strict(),
  output: open({
    files_indexed: z.number().int(),
    files_skipped: z.number().int(),
    files_deleted: z.number().int(),
    chunks_added: z.number().int(),
    chunks_removed: z.number().int(),
    parse_errors: z.number().int(),
    write_errors: z.number().int(),
    read_errors: z.number().int(),
    duration_ms: z.number(),
    checker: open({}).optional(),
    problems: z.array(open({ kind: z.string(), path: z.string(), message: z.string() })).optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, args, call) => {
    const report = call.progress;
    report?.(0, undefined, "walking the project");
    const r = await indexThreads.runIndex(
      ctx.config,
      { mode: args.full ? "full" : "incremental", operation: "mast_reindex", lockPolicy: SERVER_LOCK_POLICY, checker: ctx.config.checker },
      report ? (p) => report(p.done, p.total, `parsed ${p.done} of ${p.total} files`) : undefined,
    );
    return {
      files_indexed: r.files_indexed,
      files_skipped: r.files_unchanged,
      files_deleted: r.files_deleted,
      chunks_added: r.chunks_added,
      chunks_removed: r.chunks_removed,
      parse_errors: r.parse_errors,
      write_errors: r.write_errors,
      read_errors: r.read_errors,
      duration_ms: r.duration_ms,
      ...(r.checker ? { checker: r.checker } : {}),
      ...(r.problems.length ? { problems: r.problems } : {}),
    };
  },
});
