// mast_status: the index health snapshot (docs/tools.md), the same producer as `mast status`, computed in
// a worker thread.
import { indexThreads } from "../query/index-threads.js";
import { READ_ONLY, defineTool } from "./define.js";
import { open } from "./outputs.js";
import { z } from "./schema.js";

export const statusTool = defineTool({
  name: "mast_status",
  source: { defined: "tools/status.ts", answers: "index/run-thread.ts" },
  title: "Index status",
  description: "Index health: counts, last run, stale files, errors, and whether a run is writing now.",
  details:
    "Index health: state dir, schema version of this binary, last index run, file and chunk counts, stale_files (changed, not yet indexed, or gone), parse and write errors; " +
    "freshness_cause interrupted_run when the last run died before it finished, corrupt when SQLite finds graph.db corrupt (the next reindex rebuilds it), indexing while a run is writing. Check it when results look wrong or before a long task.",
  input: () => z.object({}).strict(),
  output: open({
    state_dir: z.string(),
    schema_version: z.string().nullable(),
    last_indexed: z.string().nullable(),
    indexed_files: z.number().int(),
    chunk_count: z.number().int(),
    stale_files: z.number().int(),
    parse_errors: z.number().int(),
    write_errors: z.number().int(),
    index_fresh: z.boolean(),
    freshness_cause: z.string().nullable(),
  }),
  annotations: READ_ONLY,
  // Off the server's thread: the freshness pass walks the tree and hashes every file whose stat moved.
  handler: (ctx) => indexThreads.status(ctx.config),
});
