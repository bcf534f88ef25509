#!/usr/bin/env node
// The `hashpilot` editing CLI (hashpilot contract): argv → the input of an `edit` tool of the one
// registry → the apiVersion 1 envelope on stdout, whose `ok` always agrees with the exit code.
// Output is JSON or text by the contract's --format precedence; errors are always JSON;
// diagnostics go to stderr only.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { MastError, errorMessage, isMastError, type ErrorCode } from "../base/errors.js";
import type { LineRange } from "../edit/anchor.js";
import { checkPathArgument } from "../edit/paths.js";
import { decodeUtf8 } from "../edit/text.js";
import { readBytes } from "../edit/writer.js";
import { resolveConfig } from "../index/config.js";
import { createToolContext } from "../tools/context.js";
import { errorEnvelope, okEnvelope, type Envelope } from "../tools/envelope.js";
import { VERSION } from "../base/version.js";
import { doctor, doctorText, removeComponents, runNpm, uninstallPlan, upgradeCommand } from "./admin.js";
import { callTool } from "../tools/registry.js";

/**
 * Exit codes by error (contract "Exit Codes"): usage 1, edit failed 2, stale/precondition 3, I/O 5,
 * internal 70. Exhaustive over the closed error set: a new code does not compile until it has one.
 */
const EXIT_CODES: Readonly<Record<ErrorCode, 1 | 2 | 3 | 5>> = {
  INVALID_ARGUMENT: 1,
  PATH_DENIED: 1,
  NOT_A_DIRECTORY: 1,
  CONFIG_INVALID: 1,
  // A state dir that cannot be used, or holds another project's index, or none yet: fix the invocation (`mast init` first).
  STATE_DIR_INVALID: 1,
  STATE_DIR_MISMATCH: 1,
  NOT_INDEXED: 1,
  PARSE_ERROR: 2,
  SYMBOL_NOT_FOUND: 2,
  AMBIGUOUS_SYMBOL: 2,
  SEARCH_TRUNCATED: 2,
  MODULE_SYSTEM_MISMATCH: 2,
  UNSUPPORTED_OPERATION: 1,
  STALE_ANCHOR: 3,
  AMBIGUOUS_ANCHOR: 3,
  HASH_MISMATCH: 3,
  LOCK_HELD: 3,
  LOCK_TIMEOUT: 3,
  LOCK_COMPROMISED: 3,
  FILE_TOO_LARGE: 1,
  RESULT_TOO_LARGE: 1,
  REGEX_TIMEOUT: 1,
  FILE_NOT_FOUND: 5,
  READ_FAILED: 5,
  WRITE_FAILED: 5,
  SNAPSHOT_INVALID: 5,
};
const INTERNAL_EXIT = 70;

function exitCodeOf(code: ErrorCode | "INTERNAL"): number {
  return code === "INTERNAL" ? INTERNAL_EXIT : EXIT_CODES[code];
}

type Format = "json" | "text";

interface Command {
  /** The registry tool the command calls (absent for the install-management commands, which run here). */
  readonly tool?: string;
  /** Runs a command that is not a registry tool (doctor, upgrade, uninstall); returns its payload. */
  local?(positionals: string[], values: Record<string, string | boolean | undefined>, cwd: string): Promise<unknown>;
  readonly summary: string;
  readonly usage: string;
  readonly options: NonNullable<ParseArgsConfig["options"]>;
  /** argv → the tool's input object. */
  input(positionals: string[], values: Record<string, string | boolean | undefined>, cwd: string): Record<string, unknown>;
  text?(data: never): string;
  /** With --raw: the payload's raw text instead of the envelope (diff generate). */
  raw?(data: never): string;
}

const PROVENANCE = { actor: { type: "string" }, "task-id": { type: "string" }, reason: { type: "string" } } as const;

/** The provenance options a write command was given, as tool input. */
function provenance(values: Record<string, string | boolean | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof values.actor === "string") out.actor = values.actor;
  if (typeof values["task-id"] === "string") out.task_id = values["task-id"];
  if (typeof values.reason === "string") out.reason = values.reason;
  return out;
}

const AST_EDIT_OPTIONS = { "dry-run": { type: "boolean" }, "include-source": { type: "boolean" }, line: { type: "string" }, ...PROVENANCE } as const;

/** The options every AST edit takes, as tool input (--allow-parse-errors is global). */
function astEditInput(values: Record<string, string | boolean | undefined>): Record<string, unknown> {
  return { method: "ast", ...(values.line === undefined ? {} : { line: wholeNumber("--line", String(values.line)) }), ...editInput(values) };
}

/** The options every structured edit takes, as tool input (--allow-parse-errors is global). */
function editInput(values: Record<string, string | boolean | undefined>): Record<string, unknown> {
  return { dry_run: values["dry-run"] === true, include_source: values["include-source"] === true, allow_parse_errors: values["allow-parse-errors"] === true, ...provenance(values) };
}

/** route-edit's and batch's flags (contract: AST-, hash- and diff-specific), as tool input. */
const ROUTE_EDIT_OPTIONS = {
  symbol: { type: "string" },
  "old-name": { type: "string" },
  "new-name": { type: "string" },
  "new-body": { type: "string" },
  "import-spec": { type: "string" },
  content: { type: "string" },
  "old-hash": { type: "string" },
  "new-content": { type: "string" },
  range: { type: "string" },
  "old-content": { type: "string" },
  "file-hash": { type: "string" },
  method: { type: "string" },
  policy: { type: "string" },
  ...AST_EDIT_OPTIONS,
} as const;

function routeEditInput(operation: string, values: Record<string, string | boolean | undefined>, cwd: string): Record<string, unknown> {
  const str = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  const symbol = str("symbol") ?? str("old-name") ?? str("import-spec");
  const content = str("new-body") ?? str("content") ?? str("new-content");
  const oldContent = str("old-content");
  return {
    operation,
    ...(symbol === undefined ? {} : { symbol }),
    ...(str("new-name") === undefined ? {} : { new_name: str("new-name") }),
    ...(content === undefined ? {} : { content: contentArg(cwd, content) }),
    ...(oldContent === undefined ? {} : { old_content: contentArg(cwd, oldContent) }),
    ...(str("old-hash") === undefined ? {} : { old_hash: str("old-hash") }),
    ...(str("range") === undefined ? {} : { range: str("range") }),
    ...(str("file-hash") === undefined ? {} : { expected_file_hash: str("file-hash") }),
    ...(str("line") === undefined ? {} : { line: wholeNumber("--line", str("line")!) }),
    ...(str("method") === undefined ? {} : { method: str("method") }),
    ...(str("policy") === undefined ? {} : { policy: str("policy") }),
    ...editInput(values),
  };
}

const astEditText = (d: { message: string; diff?: string }) => (d.diff ? `${d.message}\n${d.diff}` : d.message);

type ProvenanceRow = { timestamp: string; actor: string | null; taskId: string | null; reason: string | null; operation: string; success: boolean; changeSetId: string | null };
const provenanceText = (rows: ProvenanceRow[]) =>
  rows.length === 0
    ? "(no recorded edits)"
    : rows.map((r) => `${r.timestamp}  ${r.operation.padEnd(13)} ${r.success ? "ok  " : "FAIL"}  ${r.actor ?? "-"}  ${r.taskId ?? "-"}  ${r.reason ?? ""}  ${r.changeSetId ?? ""}`.trimEnd()).join("\n");

const COMMANDS: Record<string, Command> = {
  "read-many": {
    tool: "read_many",
    summary: "Read files with their content hashes.",
    usage: "hashpilot read-many <file> [file ...]",
    options: {},
    input: (files) => {
      if (files.length === 0) throw usage("read-many", "at least one file is required");
      return { files };
    },
    text: (data: Array<{ path: string; hash: string | null; lines: number; error: { code: string } | null }>) =>
      data.map((d) => (d.error ? `${d.path}  error ${d.error.code}` : `${d.path}  ${d.hash}  ${d.lines} lines`)).join("\n"),
  },
  "read-hash": {
    tool: "read_hash",
    summary: "Read one line with its hash and the hash of its context.",
    usage: "hashpilot read-hash <file> <line> [-c <context-lines>]",
    options: { context: { type: "string", short: "c" } },
    input: ([file, line, ...rest], values) => {
      expectArgs("read-hash", [file, line], rest);
      return { file, line: wholeNumber("line", line!), ...(values.context === undefined ? {} : { context: wholeNumber("-c", String(values.context)) }) };
    },
    text: (d: { path: string; line: number; content: string; lineHash: string; contextHash: string; contextRange: LineRange }) =>
      `${d.path}:${d.line}  lineHash ${d.lineHash}  contextHash ${d.contextHash} (lines ${d.contextRange.start}-${d.contextRange.end})\n${d.content}`,
  },
  "grep-many": {
    tool: "grep_many",
    summary: "Search a regular expression across files and directories.",
    usage: "hashpilot grep-many <pattern> <path> [path ...] [-i] [--file-pattern <glob>] [--max-results <n>] [--timeout <ms>]",
    options: { "ignore-case": { type: "boolean", short: "i" }, "file-pattern": { type: "string" }, "max-results": { type: "string" }, timeout: { type: "string" } },
    input: ([pattern, ...paths], values) => {
      if (pattern === undefined || paths.length === 0) throw usage("grep-many", "a pattern and at least one path are required");
      return {
        pattern,
        paths,
        ignore_case: values["ignore-case"] === true,
        ...(typeof values["file-pattern"] === "string" ? { file_pattern: values["file-pattern"] } : {}),
        ...(values["max-results"] === undefined ? {} : { max_results: wholeNumber("--max-results", String(values["max-results"])) }),
        ...(values.timeout === undefined ? {} : { timeout_ms: wholeNumber("--timeout", String(values.timeout)) }),
      };
    },
    text: (d: { results: Array<{ path: string; line: number; column: number; content: string }> }) => d.results.map((r) => `${r.path}:${r.line}:${r.column}: ${r.content}`).join("\n"),
  },
  "replace-hash": {
    tool: "replace_hash",
    summary: "Replace the lines a hash anchors (relocating a moved anchor) with new content.",
    usage:
      "hashpilot replace-hash <file> <old-hash> <new-content|@file|@@literal> [--range start:end] [--file-hash <hash>] [--context-hash <hash> --context-range start:end] [--dry-run] [--no-recovery]",
    options: {
      range: { type: "string" },
      "file-hash": { type: "string" },
      "context-hash": { type: "string" },
      "context-range": { type: "string" },
      "dry-run": { type: "boolean" },
      "no-recovery": { type: "boolean" },
      ...PROVENANCE,
    },
    input: ([file, oldHash, content, ...rest], values, cwd) => {
      expectArgs("replace-hash", [file, oldHash, content], rest);
      return {
        file,
        old_hash: oldHash,
        new_content: contentArg(cwd, content!),
        ...(values.range === undefined ? {} : { range: String(values.range) }),
        ...(typeof values["file-hash"] === "string" ? { expected_file_hash: values["file-hash"] } : {}),
        ...(typeof values["context-hash"] === "string" ? { context_hash: values["context-hash"] } : {}),
        ...(typeof values["context-range"] === "string" ? { context_range: values["context-range"] } : {}),
        dry_run: values["dry-run"] === true,
        recovery: values["no-recovery"] !== true,
        ...provenance(values),
      };
    },
    text: (d: { message: string; diff: string }) => `${d.message}\n${d.diff}`,
  },
  "diff generate": {
    tool: "diff_generate",
    summary: "A unified diff between two contents (--raw prints the diff alone, not the envelope).",
    usage: "hashpilot diff generate <file> <old-content|@file|@@literal> <new-content|@file|@@literal> [-c <context-lines>] [--raw]",
    options: { context: { type: "string", short: "c" }, raw: { type: "boolean" } },
    input: ([file, oldContent, newContent, ...rest], values, cwd) => {
      expectArgs("diff generate", [file, oldContent, newContent], rest);
      return {
        file,
        old_content: contentArg(cwd, oldContent!),
        new_content: contentArg(cwd, newContent!),
        ...(values.context === undefined ? {} : { context: wholeNumber("-c", String(values.context)) }),
      };
    },
    text: (d: { diff: string }) => d.diff.replace(/\n$/, ""),
    raw: (d: { diff: string }) => (d.diff.endsWith("\n") ? d.diff : `${d.diff}\n`),
  },
  "diff apply": {
    tool: "diff_apply",
    summary: "Apply a one-file unified diff; a hunk that moved goes where its lines are when they are in one place (within --fuzzy lines if given), or the patch is refused.",
    usage: "hashpilot diff apply <file> [--patch <file>|-] [--file-hash <hash>] [--dry-run] [--include-source] [-f <fuzzy>]",
    options: { patch: { type: "string" }, "file-hash": { type: "string" }, "dry-run": { type: "boolean" }, "include-source": { type: "boolean" }, fuzzy: { type: "string", short: "f" }, ...PROVENANCE },
    input: ([file, ...rest], values, cwd) => {
      expectArgs("diff apply", [file], rest);
      const source = typeof values.patch === "string" ? values.patch : "-";
      return {
        file,
        patch: source === "-" ? readStdin() : contentArg(cwd, `@${source}`),
        ...(typeof values["file-hash"] === "string" ? { expected_file_hash: values["file-hash"] } : {}),
        dry_run: values["dry-run"] === true,
        include_source: values["include-source"] === true,
        ...(values.fuzzy === undefined ? {} : { fuzzy: wholeNumber("--fuzzy", String(values.fuzzy)) }),
        ...provenance(values),
      };
    },
    text: (d: { message: string }) => d.message,
  },
  changesets: {
    tool: "changesets",
    summary: "List recorded changeSets (one per editing invocation), newest first.",
    usage: "hashpilot changesets [--limit <n>]",
    options: { limit: { type: "string" } },
    input: (rest, values) => {
      expectArgs("changesets", [], rest);
      return values.limit === undefined ? {} : { limit: wholeNumber("--limit", String(values.limit)) };
    },
    text: (d: { changeSets: Array<{ changeSetId: string; timestamp: string; command: string; files: string[]; undoneAt?: string }> }) =>
      d.changeSets.map((c) => `${c.changeSetId}  ${c.timestamp}  ${c.command}${c.undoneAt ? "  (undone)" : ""}\n  ${c.files.join("\n  ")}`).join("\n"),
  },
  undo: {
    tool: "undo",
    summary: "Restore the files of a changeSet as they were before it (files it created are deleted).",
    usage: "hashpilot undo <changeSetId> | --last [--force] [--dry-run]",
    options: { last: { type: "boolean" }, force: { type: "boolean" }, "dry-run": { type: "boolean" } },
    input: ([id, ...rest], values) => {
      if ((id === undefined) === (values.last !== true)) throw usage("undo", "pass a changeSet id or --last");
      expectArgs("undo", [], rest);
      return { ...(id === undefined ? { last: true } : { change_set_id: id }), force: values.force === true, dry_run: values["dry-run"] === true };
    },
    text: (d: { message: string; files: Array<{ path: string; action: string }> }) => [d.message, ...d.files.map((f) => `  ${f.action} ${f.path}`)].join("\n"),
  },
  "provenance query": {
    tool: "provenance_query",
    summary: "Who changed a file (or one line of it), when and why, newest first.",
    usage: "hashpilot provenance query <file> [<line>] [--human] [--fuzzy] [--limit <n>]",
    options: { human: { type: "boolean" }, fuzzy: { type: "boolean" }, limit: { type: "string" } },
    input: ([file, line, ...rest], values) => {
      expectArgs("provenance query", [file], rest);
      return {
        file,
        ...(line === undefined ? {} : { line: wholeNumber("line", line) }),
        fuzzy: values.fuzzy === true,
        ...(values.limit === undefined ? {} : { limit: wholeNumber("--limit", String(values.limit)) }),
      };
    },
    text: provenanceText,
  },
  "provenance changeset": {
    tool: "provenance_changeset",
    summary: "Every recorded edit of one changeSet.",
    usage: "hashpilot provenance changeset <changeSetId> [--human]",
    options: { human: { type: "boolean" } },
    input: ([id, ...rest]) => {
      expectArgs("provenance changeset", [id], rest);
      return { change_set_id: id };
    },
    text: provenanceText,
  },
  "telemetry show": {
    tool: "telemetry_show",
    summary: "Recent telemetry events (default 20), newest first.",
    usage: "hashpilot telemetry show [-n <limit>]",
    options: { limit: { type: "string", short: "n" } },
    input: (rest, values) => {
      expectArgs("telemetry show", [], rest);
      return values.limit === undefined ? {} : { limit: wholeNumber("-n", String(values.limit)) };
    },
    text: (d: { events: Array<{ timestamp: string; operation: string; route: string; file: string | null; success: boolean; errorCode: string | null; elapsed_ms: number }> }) =>
      d.events.map((e) => `${e.timestamp}  ${e.route}:${e.operation}  ${e.success ? "ok" : e.errorCode ?? "FAIL"}  ${e.elapsed_ms} ms  ${e.file ?? ""}`.trimEnd()).join("\n"),
  },
  "telemetry summary": {
    tool: "telemetry_summary",
    summary: "Counts by route:operation with success rate and average time.",
    usage: "hashpilot telemetry summary",
    options: {},
    input: (rest) => (expectArgs("telemetry summary", [], rest), {}),
    text: (d: { byRouteOperation: Array<{ key: string; count: number; successRate: number; avgElapsedMs: number }> }) =>
      d.byRouteOperation.map((r) => `${r.key.padEnd(28)} ${String(r.count).padStart(6)}  ${r.successRate}% ok  ${r.avgElapsedMs} ms avg`).join("\n"),
  },
  "telemetry health": {
    tool: "telemetry_health",
    summary: "Health report over a window of days, with threshold warnings (--trend: against the previous window).",
    usage: "hashpilot telemetry health [-w <days>] [--trend]",
    options: { window: { type: "string", short: "w" }, trend: { type: "boolean", short: "t" } },
    input: (rest, values) => {
      expectArgs("telemetry health", [], rest);
      return { ...(values.window === undefined ? {} : { window: wholeNumber("-w", String(values.window)) }), trend: values.trend === true };
    },
  },
  "telemetry sessions": {
    tool: "telemetry_sessions",
    summary: "Per-session event counts, error rates and durations.",
    usage: "hashpilot telemetry sessions [-n <limit>]",
    options: { limit: { type: "string", short: "n" } },
    input: (rest, values) => {
      expectArgs("telemetry sessions", [], rest);
      return values.limit === undefined ? {} : { limit: wholeNumber("-n", String(values.limit)) };
    },
  },
  "telemetry export": {
    tool: "telemetry_export",
    summary: "Every event, optionally by date range or session (--ndjson: one compact event per line).",
    usage: "hashpilot telemetry export [--from <date>] [--to <date>] [--session <id>] [--limit <n>] [--ndjson]",
    options: { from: { type: "string" }, to: { type: "string" }, session: { type: "string" }, limit: { type: "string" }, ndjson: { type: "boolean" } },
    input: (rest, values) => {
      expectArgs("telemetry export", [], rest);
      return {
        ...Object.fromEntries((["from", "to", "session"] as const).filter((k) => typeof values[k] === "string").map((k) => [k, values[k]])),
        ...(values.limit === undefined ? {} : { limit: wholeNumber("--limit", String(values.limit)) }),
      };
    },
    raw: (d: { events: unknown[] }) => d.events.map((e) => `${JSON.stringify(e)}\n`).join(""),
  },
  "telemetry prune": {
    tool: "telemetry_prune",
    summary: "Delete rotated telemetry logs older than N days (default 30).",
    usage: "hashpilot telemetry prune [--older-than <days>]",
    options: { "older-than": { type: "string" } },
    input: (rest, values) => {
      expectArgs("telemetry prune", [], rest);
      return values["older-than"] === undefined ? {} : { older_than: wholeNumber("--older-than", String(values["older-than"])) };
    },
  },
  "telemetry clear": {
    tool: "telemetry_clear",
    summary: "Delete every telemetry log.",
    usage: "hashpilot telemetry clear",
    options: {},
    input: (rest) => (expectArgs("telemetry clear", [], rest), {}),
  },
  "symbol-lookup-many": {
    tool: "symbol_lookup_many",
    summary: "Where named declarations are, across files and directories.",
    usage: "hashpilot symbol-lookup-many <path> [path ...] --names <name1,name2> [--limit <n>] [--timeout <ms>]",
    options: { names: { type: "string" }, limit: { type: "string" }, timeout: { type: "string" } },
    input: (paths, values) => {
      if (paths.length === 0 || typeof values.names !== "string") throw usage("symbol-lookup-many", "at least one path and --names are required");
      return {
        paths,
        names: values.names.split(",").map((n) => n.trim()).filter((n) => n !== ""),
        ...(values.limit === undefined ? {} : { limit: wholeNumber("--limit", String(values.limit)) }),
        ...(values.timeout === undefined ? {} : { timeout_ms: wholeNumber("--timeout", String(values.timeout)) }),
      };
    },
    text: (d: Array<{ name: string; path: string; line: number; kind: string }>) => d.map((h) => `${h.path}:${h.line}  ${h.kind} ${h.name}`).join("\n"),
  },
  route: {
    tool: "route",
    summary: "Which route (ast, hash, diff) an operation on a file would take, and why.",
    usage: "hashpilot route <file> <operation> [--policy <json>] [--no-default-config]",
    options: { policy: { type: "string" }, "no-default-config": { type: "boolean" } },
    input: ([file, operation, ...rest], values) => {
      expectArgs("route", [file, operation], rest);
      return { file, operation, ...(typeof values.policy === "string" ? { policy: values.policy } : {}), no_default_config: values["no-default-config"] === true };
    },
    text: (d: { route: string; explanation: { reasons: string[] } }) => [`route: ${d.route}`, ...d.explanation.reasons.map((r) => `  ${r}`)].join("\n"),
  },
  "ast capabilities": {
    tool: "ast_capabilities",
    summary: "Languages with AST edits: extensions, operations and known limitations.",
    usage: "hashpilot ast capabilities",
    options: {},
    input: (rest) => (expectArgs("ast capabilities", [], rest), {}),
    text: (d: Array<{ lang: string; extensions: string[]; operations: string[] }>) => d.map((l) => `${l.lang.padEnd(11)} ${l.extensions.join(" ").padEnd(26)} ${l.operations.join(", ")}`).join("\n"),
  },
  "ast find-symbols": {
    tool: "ast_find_symbols",
    summary: "Every declaration in a file, with 1-based (startLine…) and 0-based (startRow…) coordinates.",
    usage: "hashpilot ast find-symbols <file>",
    options: {},
    input: ([file, ...rest]) => (expectArgs("ast find-symbols", [file], rest), { file }),
    text: (d: { symbols: Array<{ qualifiedName: string; kind: string; startLine: number; endLine: number }> }) => d.symbols.map((s) => `${String(s.startLine).padStart(5)}-${String(s.endLine).padEnd(5)} ${s.kind.padEnd(24)} ${s.qualifiedName}`).join("\n"),
  },
  "ast rename-symbol": {
    tool: "route_edit",
    summary: "Rename a binding and its uses in one file (Owner.member: a member and its accesses).",
    usage: "hashpilot ast rename-symbol <file> <old-name> <new-name> [--line <n>] [--dry-run] [--include-source]",
    options: AST_EDIT_OPTIONS,
    input: ([file, oldName, newName, ...rest], values) => {
      expectArgs("ast rename-symbol", [file, oldName, newName], rest);
      return { file, operation: "rename-symbol", symbol: oldName, new_name: newName, ...astEditInput(values) };
    },
    text: astEditText,
  },
  "ast replace-body": {
    tool: "route_edit",
    summary: "Replace a function's or method's body, re-indented to the target's own indentation.",
    usage: "hashpilot ast replace-body <file> <symbol-name> <new-body|@file|@@literal> [--line <n>] [--dry-run] [--include-source]",
    options: AST_EDIT_OPTIONS,
    input: ([file, symbol, body, ...rest], values, cwd) => {
      expectArgs("ast replace-body", [file, symbol, body], rest);
      return { file, operation: "replace-body", symbol, content: contentArg(cwd, body!), ...astEditInput(values) };
    },
    text: astEditText,
  },
  "ast add-import": {
    tool: "route_edit",
    summary: "Add an import (ESM form for TypeScript/JavaScript: '{ Foo } from ./bar'), merged into an existing import of the module.",
    usage: "hashpilot ast add-import <file> <import-spec> [--dry-run] [--include-source]",
    options: AST_EDIT_OPTIONS,
    input: ([file, spec, ...rest], values) => {
      expectArgs("ast add-import", [file, spec], rest);
      return { file, operation: "add-import", symbol: spec, ...astEditInput(values) };
    },
    text: astEditText,
  },
  "ast remove-import": {
    tool: "route_edit",
    summary: "Remove an import: the names a spec lists, or a module's whole import.",
    usage: "hashpilot ast remove-import <file> <import-spec> [--dry-run] [--include-source]",
    options: AST_EDIT_OPTIONS,
    input: ([file, spec, ...rest], values) => {
      expectArgs("ast remove-import", [file, spec], rest);
      return { file, operation: "remove-import", symbol: spec, ...astEditInput(values) };
    },
    text: astEditText,
  },
  "route-edit": {
    tool: "route_edit",
    summary: "One structured edit by the safest route the file allows (AST, else hash, else diff); --method forces one.",
    usage:
      "hashpilot route-edit <file> <operation> [--symbol|--old-name|--import-spec <s>] [--new-name <n>] [--new-body|--content|--new-content <text|@file>] [--old-hash <h> --range a:b] [--old-content <text|@file>] [--method ast|hash|diff] [--policy <json>] [--dry-run] [--include-source]",
    options: ROUTE_EDIT_OPTIONS,
    input: ([file, operation, ...rest], values, cwd) => {
      expectArgs("route-edit", [file, operation], rest);
      return { file, ...routeEditInput(operation!, values, cwd) };
    },
    text: (d: { message?: string; route: string; diff?: string }) => `[${d.route}] ${d.message ?? ""}${d.diff ? `\n${d.diff}` : ""}`,
  },
  batch: {
    tool: "route_edit",
    summary: "The same structured edit over many files: locks up front, parallel unless --serial; conflicts counted apart from failures.",
    usage: "hashpilot batch <operation> <file> [file ...] [route-edit options] [--serial]",
    options: { ...ROUTE_EDIT_OPTIONS, serial: { type: "boolean" } },
    input: ([operation, ...files], values, cwd) => {
      if (operation === undefined || files.length === 0) throw usage("batch", "an operation and at least one file are required");
      return { files, serial: values.serial === true, ...routeEditInput(operation, values, cwd) };
    },
    text: (d: { results: Array<{ file: string; success: boolean; route: string | null; errorCode?: string }>; summary: { total: number; succeeded: number; failed: number; conflicts: number } }) =>
      [...d.results.map((r) => `${r.success ? "ok  " : (r.errorCode ?? "FAIL").padEnd(4)} [${r.route ?? "-"}] ${r.file}`), `${d.summary.succeeded}/${d.summary.total} succeeded, ${d.summary.failed} failed, ${d.summary.conflicts} conflicts`].join("\n"),
  },
  "ast insert-before": {
    tool: "route_edit",
    summary: "Insert content on its own lines before a declaration (above its doc comments), at its indentation.",
    usage: "hashpilot ast insert-before <file> <symbol-name> <content|@file|@@literal> [--line <n>] [--dry-run] [--include-source]",
    options: AST_EDIT_OPTIONS,
    input: ([file, symbol, text, ...rest], values, cwd) => {
      expectArgs("ast insert-before", [file, symbol, text], rest);
      return { file, symbol, operation: "insert-before", content: contentArg(cwd, text!), ...astEditInput(values) };
    },
    text: astEditText,
  },
  "ast insert-after": {
    tool: "route_edit",
    summary: "Insert content on its own lines after a declaration, at its indentation.",
    usage: "hashpilot ast insert-after <file> <symbol-name> <content|@file|@@literal> [--line <n>] [--dry-run] [--include-source]",
    options: AST_EDIT_OPTIONS,
    input: ([file, symbol, text, ...rest], values, cwd) => {
      expectArgs("ast insert-after", [file, symbol, text], rest);
      return { file, symbol, operation: "insert-after", content: contentArg(cwd, text!), ...astEditInput(values) };
    },
    text: astEditText,
  },
  doctor: {
    summary: "Check this install: bins on PATH, config, snapshot and telemetry stores, grammars, the MCP server. Always exits 0.",
    usage: "hashpilot doctor [--json]",
    options: {},
    input: (rest) => (expectArgs("doctor", [], rest), {}),
    local: (_rest, _values, cwd) => doctor(VERSION, cwd),
    text: doctorText,
  },
  upgrade: {
    summary: "Upgrade through npm (`npm install --global mast@<tag>`); --dry-run shows the command.",
    usage: "hashpilot upgrade [--channel <channel>] [--target <dir>] [--keep-telemetry] [--force] [--dry-run]",
    options: { channel: { type: "string" }, target: { type: "string" }, "keep-telemetry": { type: "boolean" }, force: { type: "boolean" }, "dry-run": { type: "boolean" } },
    input: (rest) => (expectArgs("upgrade", [], rest), {}),
    local: async (_rest, values) => {
      const command = upgradeCommand(typeof values.channel === "string" ? values.channel : "main", typeof values.target === "string" ? values.target : null);
      if (values["dry-run"] !== true) runNpm(command);
      // Telemetry and snapshots live outside the package: an upgrade keeps them either way.
      return { success: true, ...(values["dry-run"] === true ? { dryRun: true } : {}), command };
    },
  },
  uninstall: {
    summary: "Remove the package through npm and hashpilot's data (--keep-config keeps config and telemetry); --dry-run lists it.",
    usage: "hashpilot uninstall [--keep-config] [--force] [--dry-run] [--target <dir>]",
    options: { "keep-config": { type: "boolean" }, force: { type: "boolean" }, "dry-run": { type: "boolean" }, target: { type: "string" } },
    input: (rest) => (expectArgs("uninstall", [], rest), {}),
    local: async (_rest, values) => {
      const plan = uninstallPlan(typeof values.target === "string" ? values.target : null, values["keep-config"] === true);
      if (values["dry-run"] !== true) {
        removeComponents(plan.components);
        runNpm(plan.command);
      }
      return { success: true, ...(values["dry-run"] === true ? { dryRun: true } : {}), command: plan.command, components: plan.components };
    },
  },
  config: {
    tool: "config",
    summary: "The configuration after merging the global file, .hashpilot.json, --config and HASHPILOT_ROUTE_POLICY.",
    usage: "hashpilot config [--config <path>]",
    options: {},
    input: (rest) => (expectArgs("config", [], rest), {}),
  },
};


const GLOBAL_OPTIONS = {
  config: { type: "string" },
  format: { type: "string" },
  json: { type: "boolean" },
  "allow-parse-errors": { type: "boolean" },
  root: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function usage(command: string, message: string): MastError {
  return new MastError("INVALID_ARGUMENT", `${command}: ${message}`, { hint: `Usage: ${COMMANDS[command]?.usage ?? "hashpilot --help"}` });
}

function expectArgs(command: string, required: Array<string | undefined>, extra: string[]): void {
  if (required.some((a) => a === undefined)) throw usage(command, "missing arguments");
  if (extra.length) throw usage(command, `unexpected arguments: ${extra.join(" ")}`);
}

/** The patch piped to `diff apply` (`--patch -`, or no --patch). */
function readStdin(): string {
  try {
    return readFileSync(0, "utf8");
  } catch (err) {
    throw new MastError("READ_FAILED", `cannot read the patch from stdin: ${errorMessage(err)}`);
  }
}

function wholeNumber(name: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new MastError("INVALID_ARGUMENT", `${name} must be a whole number, not ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * `@path` reads content from a file (relative to the working directory); `@@text` is the literal
 * text `@text` (content that starts with `@`); anything else is the content itself.
 */
function contentArg(cwd: string, value: string): string {
  if (value.startsWith("@@")) return value.slice(1);
  if (!value.startsWith("@")) return value;
  checkPathArgument(value.slice(1));
  const path = resolve(cwd, value.slice(1));
  const bytes = readBytes(path);
  if (bytes === null) throw new MastError("FILE_NOT_FOUND", `cannot read content from ${path}: it does not exist`, { hint: "Content that starts with @ is written @@ (\"@@log\" is the text \"@log\")." });
  const text = decodeUtf8(bytes);
  if (text === null) throw new MastError("READ_FAILED", `cannot read content from ${path}: it is not valid UTF-8`);
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

/** The project root edits must stay in: --root, else the nearest ancestor with a .git, else the working directory. */
function projectRoot(cwd: string, explicit: string | undefined): string {
  if (explicit !== undefined) {
    const root = resolve(cwd, explicit);
    if (!existsSync(root) || !statSync(root).isDirectory()) throw new MastError("NOT_A_DIRECTORY", `--root ${explicit} is not a directory`);
    return root;
  }
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}

/** The contract's precedence: --format, then the deprecated --json, then $CI, then a TTY, then JSON. */
function chooseFormat(values: Record<string, unknown>, stderr: NodeJS.WritableStream, isTTY: boolean): Format {
  if (typeof values.format === "string") {
    if (values.format !== "json" && values.format !== "text") throw new MastError("INVALID_ARGUMENT", `--format must be json or text, not ${JSON.stringify(values.format)}`);
    return values.format;
  }
  if (values.json === true) {
    stderr.write("[deprecation] --json is deprecated; use --format json\n");
    return "json";
  }
  const ci = process.env.CI;
  if (ci && ci !== "0" && ci.toLowerCase() !== "false") return "json";
  return isTTY ? "text" : "json";
}

/** A compact key/value dump for results without a renderer of their own. */
function dump(data: unknown): string {
  if (data === null || typeof data !== "object") return String(data);
  if (Array.isArray(data)) return data.map((d) => JSON.stringify(d)).join("\n");
  return Object.entries(data)
    .map(([k, v]) => `${k}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`)
    .join("\n");
}

function helpText(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    "hashpilot — hash-anchored reads and edits that never land on the wrong lines",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}\n  ${" ".repeat(width)}  ${c.usage}`),
    "",
    "Global options: --format json|text, --root <dir>, --config <file>, --allow-parse-errors (lets an AST edit change a file that does not parse; no edit may add a syntax error)",
    "Every command prints the apiVersion 1 envelope; the exit code says how it ended (0 ok, 1 usage, 2 edit failed, 3 stale anchor, 5 I/O).",
  ].join("\n");
}

interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream;
  readonly cwd: string;
}

/** Runs one invocation; returns the exit code. */
async function runHashpilot(argv: readonly string[], io: CliIo): Promise<number> {
  // Two-word commands (`diff generate`) are looked up before one-word ones.
  const twoWords = argv.length >= 2 ? `${argv[0]} ${argv[1]}` : "";
  const [name, ...rest] = twoWords in COMMANDS ? [twoWords, ...argv.slice(2)] : argv;
  let format: Format = "json";
  let raw = false;
  const commandName = name ?? "";
  const finish = (envelope: Envelope): number => {
    // A batch exits with the worst of its entries' codes.
    const entries = (envelope.error?.details as { results?: Array<{ errorCode?: ErrorCode }> } | undefined)?.results;
    const exit = envelope.ok ? 0 : Math.max(exitCodeOf(envelope.error!.code), ...(entries ?? []).flatMap((e) => (e.errorCode ? [exitCodeOf(e.errorCode)] : [])));
    const command = COMMANDS[envelope.command];
    if (envelope.ok && raw && command?.raw) {
      io.stdout.write(command.raw(envelope.data as never));
      return exit;
    }
    const text =
      format !== "text"
        ? null
        : envelope.ok
          ? command?.text
            ? command.text(envelope.data as never)
            : dump(envelope.data)
          : `error ${envelope.error!.code}: ${envelope.error!.message}${envelope.error!.recovery ? `\n  hint: ${envelope.error!.recovery}` : ""}`;
    io.stdout.write(`${text ?? JSON.stringify(envelope)}\n`);
    for (const w of envelope.warnings) if (format === "text") io.stderr.write(`warning ${w.code}: ${w.message}\n`);
    return exit;
  };
  try {
    if (name === undefined || name === "--help" || name === "-h" || name === "help") {
      io.stdout.write(`${helpText()}\n`);
      return name === undefined ? 1 : 0;
    }
    const command = COMMANDS[name];
    if (!command) throw new MastError("INVALID_ARGUMENT", `unknown command ${JSON.stringify(name)}`, { hint: `Commands: ${Object.keys(COMMANDS).join(", ")}` });
    let parsed;
    try {
      parsed = parseArgs({ args: [...rest], options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true, strict: true });
    } catch (err) {
      throw usage(name, errorMessage(err));
    }
    const values = parsed.values as Record<string, string | boolean | undefined>;
    // --human (provenance) is text; --raw and --ndjson print the payload's raw form.
    // doctor reads as a summary unless asked for JSON (its --json is not the deprecated alias).
    const doctorJson = name === "doctor" && values.json === true;
    format = doctorJson ? "json" : values.human === true || (name === "doctor" && values.format === undefined) ? "text" : chooseFormat(values, io.stderr, io.stdout.isTTY === true);
    raw = values.raw === true || values.ndjson === true;
    if (values.help) {
      io.stdout.write(`${command.usage}\n${command.summary}\n`);
      return 0;
    }
    const input = command.input(parsed.positionals, values, io.cwd);
    if (command.local) return finish(okEnvelope(name, await command.local(parsed.positionals, values, io.cwd), []));
    const root = projectRoot(io.cwd, typeof values.root === "string" ? values.root : undefined);
    const ctx = createToolContext(resolveConfig(root, {}), io.cwd, typeof values.config === "string" ? values.config : undefined);
    try {
      const envelope = (await callTool(ctx, command.tool!, input)) as Envelope;
      return finish({ ...envelope, command: name });
    } finally {
      ctx.close();
    }
  } catch (err) {
    if (!isMastError(err)) io.stderr.write(`hashpilot: internal error: ${err instanceof Error && err.stack ? err.stack : String(err)}\n`);
    return finish(errorEnvelope(commandName, err));
  }
}

runHashpilot(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`hashpilot: internal error: ${errorMessage(err)}\n`);
    process.exitCode = INTERNAL_EXIT;
  },
);
