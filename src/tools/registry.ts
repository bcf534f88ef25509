// The one tool registry: each tool is a name, a description, a zod input schema, annotations
// and a handler over a ToolContext. The MCP server, `mast query`, the CLI help and
// docs/tools.md are all derived from this list.
import { boundedDistance } from "../base/text.js";
import { MAX_ANSWER_BYTES, MAX_MESSAGE_BYTES, messageBytes } from "../base/budget.js";
import { MastError, errorMessage } from "../base/errors.js";
import { indexThreads } from "../query/index-threads.js";
import { indexingNow } from "../index/status.js";
import { isUnusableDatabase } from "../store/db.js";
import type { ToolContext } from "./context.js";
import type { ToolAnnotations, ToolCall, ToolDefinition, Toolset } from "./define.js";
import { planAnswer } from "./fresh.js";
import { EDIT_TOOLS } from "./hashpilot.js";
import { intentTool } from "./intent.js";
import { verifyChangesTool } from "./verify.js";
import { efficiencyTool } from "./efficiency.js";
import { callersTool, graphTool, implementorsTool, renameImpactTool } from "./graph.js";
import { dependenciesTool, exportsTool, signatureTool, skeletonTool } from "./navigation.js";
import { definitionTool, referencesTool } from "./references.js";
import { reindexTool } from "./reindex.js";
import { searchTool } from "./search.js";
import { statusTool } from "./status.js";
import { STRUCTURAL_TOOLS } from "./structural.js";
import { z } from "./schema.js";
import { TELEMETRY_NOTE, answerStats, type AnswerStats, cappedJson, referencedFiles, resultIdentities, resultsJson, type TelemetryNote } from "./telemetry.js";

function declexOf(answer: unknown): string | null {
  const declex = (answer as { [TELEMETRY_NOTE]?: TelemetryNote })[TELEMETRY_NOTE]?.declex;
  return declex === undefined ? null : JSON.stringify(declex);
}

export const TOOLS: readonly ToolDefinition[] = [
  searchTool,
  skeletonTool,
  exportsTool,
  signatureTool,
  callersTool,
  definitionTool,
  referencesTool,
  dependenciesTool,
  implementorsTool,
  renameImpactTool,
  graphTool,
  reindexTool,
  statusTool,
  efficiencyTool,
  ...EDIT_TOOLS,
  verifyChangesTool,
  intentTool,
  ...STRUCTURAL_TOOLS,
] as unknown as ToolDefinition[];

/** What to say about a tool name no tool has: the nearest names (a third of the name's length or less away), else where the list is. */
export function unknownToolHint(name: string, names: readonly string[]): string {
  const limit = Math.max(2, Math.floor(name.length / 3));
  const near = names
    .map((n) => ({ n, d: boundedDistance(name, n, limit) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || (a.n < b.n ? -1 : 1))
    .slice(0, 3)
    .map((x) => x.n);
  return near.length > 0 ? `Did you mean ${near.join(" or ")}? (\`mast query --help\` lists every tool.)` : "`mast query --help` (or an MCP tools/list) lists every tool.";
}

export function findTool(name: string): ToolDefinition {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) {
    throw new MastError("INVALID_ARGUMENT", `unknown tool ${JSON.stringify(name)}`, {
      hint: unknownToolHint(
        name,
        TOOLS.map((t) => t.name),
      ),
      usage: true,
    });
  }
  return tool;
}

/** One tool as `tools/list` offers it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: { type: "object"; [k: string]: unknown };
  outputSchema?: { type: "object"; [k: string]: unknown };
  annotations?: Partial<ToolAnnotations> & { title?: string };
}

/**
 * How `tools/list` gives the tools: `compact` (the default) is what a model needs to call them —
 * clients hand it name, description and input schema, and nothing else (docs/decisions.md) — and
 * `full` (`mast serve --schemas full`) is every schema whole, for clients that validate answers.
 */
export type ListingForm = "compact" | "full";

/** One tool's listings and toolset. */
export interface ToolListing {
  readonly toolset: Toolset;
  readonly compact: ListedTool;
  readonly full: ListedTool;
}

/**
 * The tools of `toolsets` as `tools/list` offers them. Compact, sized for a context window (the
 * default toolsets within LISTING_BUDGET and LISTED_TOOL_AVERAGE bytes a tool: tests measure
 * both): the short description, the input schema without what the server enforces and reports by
 * itself (`$schema`, bounds, the `null` alternative of optional arguments, `additionalProperties`,
 * argument descriptions) and without the tool's `unlisted` keys, no output schema and no title,
 * and only the hints MCP does not assume. Full: the whole input schema with every argument's
 * description, the whole output schema, the title and all four hints.
 */
export function listedTools(toolsets: readonly Toolset[], form: ListingForm = "compact"): ListedTool[] {
  return TOOLS.filter((t) => toolsets.includes(t.toolset ?? "read")).map((t) => listedTool(t, form));
}

/** Every tool in both listing forms, with its toolset: what the build writes to tool-listing.json (mcp/listing.ts). */
export function toolListings(): ToolListing[] {
  return TOOLS.map((t) => ({ toolset: t.toolset ?? "read", compact: listedTool(t, "compact"), full: listedTool(t, "full") }));
}

function listedTool(t: ToolDefinition, form: ListingForm): ListedTool {
  if (form === "full") {
    return {
      name: t.name,
      description: t.description,
      inputSchema: withoutDialect(z.toJSONSchema(t.input, { io: "input" })) as ListedTool["inputSchema"],
      outputSchema: withoutDialect(outputSchema(t)) as ListedTool["outputSchema"] & object,
      annotations: { title: t.title, ...t.annotations },
    };
  }
  const inputSchema = compactSchema(z.toJSONSchema(t.input, { io: "input" })) as ListedTool["inputSchema"] & { properties?: Record<string, unknown> };
  for (const key of t.unlisted ?? []) delete inputSchema.properties?.[key];
  const hints = assertedHints(t.annotations);
  return { name: t.name, description: t.description, inputSchema, ...(Object.keys(hints).length > 0 ? { annotations: hints } : {}) };
}

/**
 * The hints clients act on, where they say what MCP does not assume: `readOnlyHint` (Claude Code
 * runs such tools in plan mode and in parallel; clients approve them without asking) and a writing
 * tool's `destructiveHint: false` (MCP assumes destructive). The full listing has all four.
 */
function assertedHints(a: ToolAnnotations): Partial<ToolAnnotations> {
  if (a.readOnlyHint) return { readOnlyHint: true };
  return a.destructiveHint ? {} : { destructiveHint: false };
}

function withoutDialect(schema: object): object {
  const { $schema: _, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/** A tool's whole output schema as JSON Schema (docs/tools.md, the full listing, and the tests that check real answers against it). */
export function outputSchema(tool: ToolDefinition): JsonSchemaNode {
  return z.toJSONSchema(tool.output, { io: "output" }) as JsonSchemaNode;
}

interface JsonSchemaNode {
  type?: string | string[];
  const?: unknown;
  anyOf?: JsonSchemaNode[];
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  [k: string]: unknown;
}

/** One input key of a tool, as a command line reads it. */
export interface InputField {
  readonly key: string;
  readonly kind: "boolean" | "number" | "string" | "list";
  readonly required: boolean;
}

/** A tool's input keys with their kinds (from its JSON Schema), in declaration order. */
export function inputFields(tool: ToolDefinition): InputField[] {
  const schema = z.toJSONSchema(tool.input, { io: "input" }) as { properties?: Record<string, JsonProperty>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([key, p]) => {
    const type = p.type ?? p.anyOf?.find((a) => a.type !== "null")?.type;
    return {
      key,
      kind: type === "boolean" ? "boolean" : type === "integer" || type === "number" ? "number" : type === "array" ? "list" : "string",
      required: (schema.required ?? []).includes(key) && p.default === undefined,
    };
  });
}

interface JsonProperty {
  type?: string;
  anyOf?: Array<{ type?: string }>;
  default?: unknown;
}

/** Left out of compact schemas: enforced and reported by the server (INVALID_ARGUMENT names the rule: string lengths, list sizes, number bounds), and argument descriptions (docs/tools.md has them; the tool's description names what is not obvious). */
const DROPPED_SCHEMA_KEYS = new Set(["$schema", "minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum", "additionalProperties", "description"]);

function compactSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactSchema);
  if (typeof node !== "object" || node === null) return node;
  const obj = node as Record<string, unknown>;
  const anyOf = obj["anyOf"];
  // `X | null` for an optional argument: X (null is still accepted; omitting it says the same).
  if (Array.isArray(anyOf) && anyOf.length === 2 && anyOf.some((a) => (a as { type?: unknown }).type === "null")) {
    const { anyOf: _, ...rest } = obj;
    const kept = anyOf.find((a) => (a as { type?: unknown }).type !== "null") as Record<string, unknown>;
    return compactSchema({ ...kept, ...rest });
  }
  // Of the defaults only a flag that is on when left out stays (a model would guess it off); the
  // caps' and formats' defaults are in docs/tools.md, and an answer a cap cut counts what it left out.
  const implied = (k: string, v: unknown) => k === "default" && v !== true;
  return Object.fromEntries(
    Object.entries(obj)
      .filter(([k, v]) => !DROPPED_SCHEMA_KEYS.has(k) && !implied(k, v))
      .map(([k, v]) => [k, compactSchema(v)]),
  );
}

/**
 * An index tool's answer while an index run is writing says so: it comes from the index as it was
 * before the run (the run's rows become visible at its commit, all at once).
 */
function withIndexing(ctx: ToolContext, answer: unknown): unknown {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer) || "indexing" in answer) return answer;
  const indexing = indexingNow(ctx.config);
  return indexing ? { ...answer, indexing } : answer;
}

/**
 * Validates raw arguments against the tool's schema and runs it; bad arguments are
 * INVALID_ARGUMENT with the zod issues, and an answer over MAX_ANSWER_BYTES of JSON, or over
 * MAX_MESSAGE_BYTES as an MCP message carries it, is RESULT_TOO_LARGE (tools cut their lists
 * below both; this is the guarantee).
 */
export async function callTool(ctx: ToolContext, name: string, rawArgs: unknown): Promise<unknown> {
  return (await runTool(ctx, name, rawArgs, { telemetry: false })).answer;
}

/**
 * callTool's answer with its JSON (what a surface sends), and — for a surface, unless
 * `telemetry` is false — telemetry done: the answer's `stats` (docs/telemetry.md#the-_stats-of-an-answer, kept beside
 * the answer, never in it: MCP sends them in the result's `_meta`, out of the model's way) when the
 * context asks for them, the call recorded when it has a recorder.
 */
export async function runTool(ctx: ToolContext, name: string, rawArgs: unknown, options: { telemetry?: boolean } & ToolCall = {}): Promise<{ answer: unknown; text: string; stats?: AnswerStats }> {
  const started = performance.now();
  const tool = findTool(name);
  const measured = options.telemetry !== false && tool.stats === true && (ctx.stats || ctx.recorder !== undefined);
  const call: ToolCall = options.progress ? { progress: options.progress } : {};
  try {
    const { answer, raw, text, files, stats } = await answerOf(ctx, tool, rawArgs, call, measured, started);
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > MAX_ANSWER_BYTES) {
      throw new MastError("RESULT_TOO_LARGE", `the answer of ${name} would be ${bytes} bytes, over the ${MAX_ANSWER_BYTES}-byte answer cap`);
    }
    const message = messageBytes(text);
    if (message > MAX_MESSAGE_BYTES) {
      throw new MastError(
        "RESULT_TOO_LARGE",
        `the answer of ${name} would take ${message} bytes as an MCP message (its JSON and the escaped text copy), over the ${MAX_MESSAGE_BYTES}-byte message cap`,
      );
    }
    if (measured && ctx.recorder) {
      const row = rowFields(tool.name, started);
      // Everything but the time is worked out after the answer has gone.
      ctx.recorder.record(() => {
        const stale = text.includes('"stale":true') || text.includes('"file_busy_returning_stale_cache"');
        return {
          ...row,
          args_json: cappedJson(rawArgs ?? {}),
          status: stale ? "stale_returned" : "ok",
          results_json: resultsJson(resultIdentities(raw)),
          declex_json: declexOf(raw),
          text,
          files: files ?? referencedFiles(raw),
        };
      });
    }
    return stats ? { answer, text, stats } : { answer, text };
  } catch (err) {
    if (measured && ctx.recorder) {
      const row = rowFields(tool.name, started);
      ctx.recorder.record(() => ({ ...row, args_json: cappedJson(rawArgs ?? {}), status: "error", results_json: null, declex_json: null, text: null, files: [] }));
    }
    // A store error is an error, never an answer (and never an empty one).
    if (isUnusableDatabase(err)) throw new MastError("INDEX_CORRUPT", `${name}: the index is corrupt (${errorMessage(err)}); nothing was answered from it`, { cause: err });
    const code = String((err as { code?: unknown } | null)?.code ?? "");
    if (code === "SQLITE_FULL" || code.startsWith("SQLITE_IOERR")) {
      throw new MastError("READ_FAILED", `${name}: the index could not be used (${errorMessage(err)}); nothing was answered`, {
        cause: err,
        hint: "Free space on the state dir's disk (or fix its I/O error), then retry.",
      });
    }
    throw err;
  }
}

function rowFields(tool: string, started: number) {
  return { tool_name: tool, call_timestamp: Date.now() / 1000, duration_ms: Math.round(performance.now() - started) };
}

async function answerOf(
  ctx: ToolContext,
  tool: ToolDefinition,
  rawArgs: unknown,
  call: ToolCall,
  measured: boolean,
  started: number,
): Promise<{ answer: unknown; raw: unknown; text: string; files: readonly string[] | null; stats?: AnswerStats }> {
  const name = tool.name;
  const bad = badString(rawArgs, "");
  if (bad !== null) throw new MastError("INVALID_ARGUMENT", `invalid arguments for ${name}: ${bad}`, { hint: "Arguments are text: no NUL bytes, no unpaired surrogates.", usage: true });
  const parsed = tool.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 10)
      .map((i) => `${i.path.length ? i.path.join(".").slice(0, 200) : "(arguments)"}: ${i.message.slice(0, 300)}`)
      .join("; ");
    throw new MastError("INVALID_ARGUMENT", `invalid arguments for ${name}: ${issues}${parsed.error.issues.length > 10 ? ` (and ${parsed.error.issues.length - 10} more)` : ""}`, {
      hint: "See docs/tools.md for each tool's input.",
      usage: true,
    });
  }
  if (tool.readsIndex && ctx.pinned !== true) await indexThreads.healInterruptedRun(ctx.config);
  // A refreshing read tool's plan runs here, the refresh around it (tools/fresh.ts); any other tool answers itself.
  const raw = tool.read ? await planAnswer(ctx, tool.read, parsed.data) : await tool.handler!(ctx, parsed.data, call);
  const answer = tool.readsIndex ? withIndexing(ctx, raw) : raw;
  const text = JSON.stringify(answer) ?? "null";
  // The note a tool attached rides on its own answer object, `raw` (withIndexing's copy has none).
  if (!measured || !ctx.stats || typeof answer !== "object" || answer === null || Array.isArray(answer)) return { answer, raw, text, files: null };
  const files = referencedFiles(raw);
  const sizes = files.length > 0 ? ctx.store().fileSizes(files) : new Map<string, number>();
  return { answer, raw, text, files, stats: answerStats(name, Buffer.byteLength(text, "utf8"), files, sizes, performance.now() - started) };
}

/**
 * Where an argument holds a string no tool accepts — a NUL byte (a path cut short, a file that
 * could never be read back) or an unpaired UTF-16 surrogate (which UTF-8 cannot carry: it would be
 * written as U+FFFD) — or null. Arguments nested deeper than 32 levels are refused too.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function badString(value: unknown, at: string, depth = 0): string | null {
  if (depth > 32) return `${at || "(arguments)"}: nested too deeply`;
  if (typeof value === "string") {
    if (value.includes("\0")) return `${at || "(arguments)"}: has a NUL byte`;
    if (LONE_SURROGATE.test(value)) return `${at || "(arguments)"}: has an unpaired surrogate (not valid Unicode)`;
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  for (const [k, v] of Object.entries(value)) {
    const found = badString(v, at ? `${at}.${k.slice(0, 100)}` : k.slice(0, 100), depth + 1);
    if (found !== null) return found;
  }
  return null;
}
