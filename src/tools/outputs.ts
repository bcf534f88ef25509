// The output schemas tools declare (MCP `outputSchema`; answers go out as `structuredContent`
// beside the text): the fragments several tools share — a declaration site, call sites
// grouped by file, the not-found fields, the editing tools' apiVersion 1 envelope. Objects are
// open: an answer may carry more keys than its schema names (`indexing`, cut markers), never
// fewer of the required ones or another type (test/tools/outputs.test.ts checks real answers).
import { z } from "./schema.js";

/** An open object: these keys with these types, others allowed. */
export const open = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);

/** What every index read answer may carry beside its own keys. */
export const READ_MARKS = {
  indexing: open({}).optional(),
  index_empty: z.literal(true).optional(),
  file_busy_returning_stale_cache: z.literal(true).optional(),
};

export const DECLARATION_SITE = open({ file_path: z.string(), line: z.number().int().min(1), kind: z.string(), is_exported: z.boolean() });

/** A name no declaration has. */
export const NOT_FOUND = { not_found: z.literal(true).optional(), did_you_mean: z.array(z.string()).optional() };

/** Call sites grouped by file, one line each (`"<line> <caller>: <text>"`). */
export const SITES_BY_FILE = z.array(open({ file_path: z.string(), resolution: z.string().optional(), sites: z.array(z.string()) }));

/** The apiVersion 1 envelope every editing tool answers with (its `data` is the command's payload). */
export const ENVELOPE_OUTPUT = open({
  apiVersion: z.literal("1"),
  ok: z.boolean(),
  command: z.string(),
  data: z.unknown(),
  error: open({ code: z.string(), message: z.string(), recovery: z.string().optional() }).nullable(),
  warnings: z.array(open({ code: z.string() })),
});
