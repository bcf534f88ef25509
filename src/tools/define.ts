// How a tool is declared: name, description, zod input schema, annotations and a handler over a
// ToolContext. Kept apart from the registry so tool modules can import it without a cycle.
import type { Db } from "../store/db.js";
import type { ToolContext } from "./context.js";
import type { z, ZodType } from "./schema.js";

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/**
 * `read`: mast's index tools; `edit`: hashpilot's reads with hashes, edits and undo; `more`: its
 * grep, diff generation, symbol lookup and changeSet history; `admin`: its telemetry,
 * provenance, configuration and route reports; `structural`: the structural index's five
 * operations (`mast structural build`). `edit`, `more` and `admin` answer with the apiVersion 1
 * envelope.
 */
export type Toolset = "read" | "edit" | "more" | "admin" | "structural";

/** What `mast serve` offers unless told otherwise (its compact listing within LISTING_BUDGET: test/mcp/serve.test.ts). */
export const DEFAULT_TOOLSETS: readonly Toolset[] = ["read", "edit"];
export const TOOLSETS: readonly Toolset[] = ["read", "edit", "more", "admin", "structural"];
/** hashpilot's toolsets: their answers, failures included, are the apiVersion 1 envelope. */
export const ENVELOPE_TOOLSETS: readonly Toolset[] = ["edit", "more", "admin"];

/**
 * A `hashpilot` command that calls a tool: its argv grammar, from which cli/hashpilot.ts parses
 * arguments and writes help (nothing about argv is restated there). A flag is an input key in
 * kebab case (`dry_run` → `--dry-run`) unless `flags` names it otherwise.
 */
export interface CliCommand {
  /** The command path: `replace-hash`, `diff generate`, `ast rename-symbol`. */
  readonly name: string;
  readonly summary: string;
  /** Input keys taken from positional arguments, in order; `...key` takes the rest (a list). */
  readonly positionals?: readonly string[];
  /** How usage names a key's value when not by the key (`symbol` as `import-spec`). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Positionals the command needs though the tool's input has them optional (route_edit's file is the command's, its files the batch's). */
  readonly required?: readonly string[];
  /**
   * Flags other than the key's kebab form, and short flags: flag → key (a key named here has only
   * the flags named here); `!key` sets a boolean key false (`no-recovery`).
   */
  readonly flags?: Readonly<Record<string, string>>;
  readonly short?: Readonly<Record<string, string>>;
  /** Input the command sets itself (`operation`, `method`). */
  readonly fixed?: Readonly<Record<string, unknown>>;
  /** Keys whose value may be `@file` (read from that file) or `@@text` (the literal `@text`). */
  readonly content?: readonly string[];
  /** A key read from the file its flag names, or from stdin with `-` or no flag. */
  readonly stdin?: string;
  /** Keys given as one comma-separated list. */
  readonly lists?: readonly string[];
  /** Input keys the command does not offer (they are the MCP call's, or another command's). */
  readonly hidden?: readonly string[];
}

/**
 * Where a tool lives, as docs/tools.md says it: paths relative to src/. `defined`: the module that
 * declares it (its text has `name: "<tool>"`); `answers`: the module below tools/ holding the
 * function its handler calls for the answer — through a tools/ helper, the module whose operation
 * the helper runs (edit-call.ts's `operations()` → edit/operations.ts). test/tools/registry.test.ts
 * holds both to the source: `answers` is imported by `defined`, or by a module it imports that
 * declares no tool.
 */
export interface ToolSourceFiles {
  readonly defined: string;
  readonly answers: string;
}

export interface ToolDefinition<S extends ZodType = ZodType, O = unknown> {
  readonly name: string;
  /** Absent means "read". */
  readonly toolset?: Toolset;
  readonly source: ToolSourceFiles;
  readonly title: string;
  /** What the MCP listing says: what the tool answers and how to call it (at most DESCRIPTION_LIMIT characters; more goes in details). */
  readonly description: string;
  /** More of the answer's contract, for docs/tools.md and `mast query --help` (not in the MCP listing). */
  readonly details?: string;
  readonly input: S;
  /**
   * Input keys the compact listing leaves out: settings a pipeline makes (provenance, baselines,
   * extra command-line arguments) and knobs whose default suits an agent. They are accepted all
   * the same, and listed by `mast serve --schemas full` and docs/tools.md.
   */
  readonly unlisted?: readonly string[];
  /** What the answer is (MCP `outputSchema`; the answer goes out as `structuredContent` too): tools/outputs.ts. */
  readonly output: ZodType;
  readonly annotations: ToolAnnotations;
  /**
   * Answers from the index: a call heals an interrupted index run first, and its answer carries
   * `indexing` while a run is writing (tools/registry.ts).
   */
  readonly readsIndex?: true;
  /** Its answers carry `_stats` and its calls are recorded in metrics.db (docs/telemetry.md#the-_stats-of-an-answer): the read tools that name files. */
  readonly stats?: true;
  /** The `hashpilot` commands that call it (the editing toolsets). */
  readonly cli?: readonly CliCommand[];
  /** The answer, computed by the tool (every tool but the refreshing read tools). */
  readonly handler?: (ctx: ToolContext, args: z.infer<S>, call: ToolCall) => O | Promise<O>;
  /** The answer of a read tool whose rows are refreshed just in time: the registry runs the refresh (tools/fresh.ts). */
  readonly read?: ReadPlan<z.infer<S>, unknown, O>;
}

/**
 * A read tool's answer as the just-in-time refresh runs it (docs/freshness.md): `first` names the
 * files to bring up to date before anything is computed (the file the call names; mast_signature's
 * declaring files), `rows` computes what the answer needs in one read snapshot, `files` names the
 * files those rows show (refreshed after, the rows computed again when one was rewritten), and
 * `answer` shapes the answer from the final rows — `busy` holds the files whose refresh lost (the
 * registry flags the whole answer; a tool may flag its results too). `rows` and `answer` only read.
 */
export interface ReadPlan<A, R, O> {
  first?(ctx: ToolContext, args: A): readonly string[];
  rows(ctx: ToolContext, args: A, db: Db): R;
  files?(ctx: ToolContext, args: A, rows: R): Iterable<string>;
  answer(ctx: ToolContext, args: A, rows: R, busy: ReadonlySet<string>): O;
}

/** What a surface gives one call beside its arguments. */
export interface ToolCall {
  /** Reports progress of a long call (MCP progress notifications, when the client sent a token). */
  readonly progress?: (progress: number, total: number | undefined, message: string) => void;
}

/** A tool as its module declares it: its input schema made when first asked for (`input: () => z.object(…)`), and either a handler or a read plan. */
export type ToolSource<S extends ZodType, O, R = unknown> = Omit<ToolDefinition<S, O>, "input" | "handler" | "read"> & { readonly input: () => S } & (
    | { readonly handler: NonNullable<ToolDefinition<S, O>["handler"]>; readonly read?: never }
    | { readonly read: ReadPlan<z.infer<S>, R, O>; readonly handler?: never }
  );

/**
 * A tool from its declaration. Its input schema is built on first use: a `mast query` validates one
 * tool's arguments and need not build the zod schemas of all of them (~6 ms of its start).
 */
export function defineTool<S extends ZodType, O, R = unknown>(tool: ToolSource<S, O, R>): ToolDefinition<S, O> {
  let input: S | undefined;
  const make = tool.input;
  return Object.defineProperty({ ...tool }, "input", { get: () => (input ??= make()), enumerable: true }) as unknown as ToolDefinition<S, O>;
}

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Tools that change files on disk. */
export const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

/** An editing call's provenance (who, for which task, why): set by a pipeline, so unlisted in the compact listing. */
export const PROVENANCE_KEYS = ["actor", "task_id", "reason"] as const;

/**
 * The compact listing's budget: 8 KB for the default toolsets (about 2K tokens), at most
 * LISTED_TOOL_AVERAGE bytes a tool on average — so a tool joins the default toolsets only as small
 * as the rest: a description within DESCRIPTION_LIMIT and the arguments a call needs
 * (test/tools/registry.test.ts, test/mcp/serve.test.ts).
 */
export const LISTING_BUDGET = 8_192;
export const LISTED_TOOL_AVERAGE = 370;
/** A description's length at most (the rest of the contract goes in `details`). */
export const DESCRIPTION_LIMIT = 120;

/** Said by every tool that looks a declaration up by name (signature, callers, implementors, rename impact). */
export const NOT_FOUND_NOTE = " A name no declaration has answers not_found: true with up to 5 did_you_mean names (another case first, then the nearest spellings).";
/** For the tools that read the file a call names again before answering (a declaration written since the last index run is then found). */
export const WRITTEN_SINCE_NOTE =
  " A declaration written since the last index run is found once a call names its file_path (that file is read again), after mast_reindex, or under mast serve --watch.";
