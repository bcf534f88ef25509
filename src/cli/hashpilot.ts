#!/usr/bin/env node
// The `hashpilot` editing CLI (hashpilot contract): argv → the input of an editing tool of the
// one registry, by the command grammar the tool declares (`cli`: positionals, flags, content and
// list arguments; help and usage are written from it) → the apiVersion 1 envelope on stdout,
// whose `ok` always agrees with the exit code.
// Output is JSON or text by the contract's --format precedence; errors are always JSON;
// diagnostics go to stderr only.
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { MastError, errorMessage, isMastError, type ErrorCode } from "../base/errors.js";
import type { LineRange } from "../edit/anchor.js";
import { checkPathArgument } from "../edit/paths.js";
import { decodeUtf8 } from "../edit/text.js";
import { readBytes } from "../edit/writer.js";
import { resolveConfig } from "../index/config.js";
import { createToolContext } from "../tools/context.js";
import { errorEnvelope, okEnvelope, type Envelope } from "../tools/envelope.js";
import { VERSION } from "../base/version.js";
import { doctor, doctorText, removeComponents, runCommand, uninstallPlan, upgradePlan } from "./admin.js";
import { parseStrict, type Flag } from "./argv.js";
import { enableCompileCache } from "./compile-cache.js";
import type { CliCommand, ToolDefinition } from "../tools/define.js";
import { TOOLS, callTool, inputFields, type InputField } from "../tools/registry.js";

/**
 * Exit codes by error (docs/editing.md#exit-codes): usage 1, edit failed 2, stale/precondition 3, I/O 5,
 * internal 70. Exhaustive over the closed error set: a new code does not compile until it has one.
 */
const EXIT_CODES: Readonly<Record<ErrorCode, 1 | 2 | 3 | 4 | 5>> = {
  INVALID_ARGUMENT: 1,
  PATH_DENIED: 1,
  NOT_A_DIRECTORY: 1,
  CONFIG_INVALID: 1,
  // A state dir that cannot be used, or holds another project's index, or none yet: fix the invocation (`mast init` first).
  STATE_DIR_INVALID: 1,
  STATE_DIR_UNSAFE: 1,
  INDEX_CORRUPT: 5,
  STATE_DIR_MISMATCH: 1,
  NOT_INDEXED: 1,
  PARSE_ERROR: 2,
  SYMBOL_NOT_FOUND: 2,
  AMBIGUOUS_SYMBOL: 2,
  NO_NAME_AT_POSITION: 1,
  UNRESOLVED_REFERENCES: 2,
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
  REQUEST_TOO_LARGE: 1,
  REGEX_TIMEOUT: 1,
  FILE_NOT_FOUND: 5,
  READ_FAILED: 5,
  WRITE_FAILED: 5,
  STORE_UNAVAILABLE: 5,
  STORE_VERSION: 1,
  STORE_DAMAGED: 1,
  PUBLISH_CONFLICT: 3,
  SOURCE_CHANGED: 3,
  SNAPSHOT_INVALID: 5,
  SERVER_LOST: 5,
  // The edit applied but its verification failed, timed out or never ran (contract: all exit 4).
  VERIFY_FAILED: 4,
  VERIFY_TIMEOUT: 4,
  VERIFY_NO_CHECKS: 4,
  ROLLBACK_INCOMPLETE: 5,
};
const INTERNAL_EXIT = 70;

function exitCodeOf(code: ErrorCode | "INTERNAL"): number {
  return code === "INTERNAL" ? INTERNAL_EXIT : EXIT_CODES[code];
}

type Format = "json" | "text";
type Values = Record<string, string | boolean | undefined>;

/** How a command's success payload prints: as text (--format text), and raw with one flag (--raw, --ndjson). */
interface Renderer {
  text?(data: never): string;
  raw?: { readonly flag: string; render(data: never): string };
}

type ProvenanceRow = { timestamp: string; actor: string | null; taskId: string | null; reason: string | null; operation: string; success: boolean; changeSetId: string | null };
const provenanceText = (rows: ProvenanceRow[]) =>
  rows.length === 0
    ? "(no recorded edits)"
    : rows
        .map((r) => `${r.timestamp}  ${r.operation.padEnd(13)} ${r.success ? "ok  " : "FAIL"}  ${r.actor ?? "-"}  ${r.taskId ?? "-"}  ${r.reason ?? ""}  ${r.changeSetId ?? ""}`.trimEnd())
        .join("\n");
const editText = (d: { message?: string; route?: string; diff?: string }) => `${d.route ? `[${d.route}] ` : ""}${d.message ?? ""}${d.diff ? `\n${d.diff}` : ""}`;

/** The text forms of the commands' payloads, by command (a command without one prints a key/value dump). */
const RENDERERS: Record<string, Renderer> = {
  "read-many": {
    text: (data: Array<{ path: string; hash: string | null; lines: number; error: { code: string } | null; contentEndLine?: number }>) =>
      data
        .map((d) => (d.error ? `${d.path}  error ${d.error.code}` : `${d.path}  ${d.hash}  ${d.lines} lines${d.contentEndLine === undefined ? "" : ` (content cut after line ${d.contentEndLine})`}`))
        .join("\n"),
  },
  "read-hash": {
    text: (d: { path: string; line: number; content: string; lineHash: string; contextHash: string; contextRange: LineRange }) =>
      `${d.path}:${d.line}  lineHash ${d.lineHash}  contextHash ${d.contextHash} (lines ${d.contextRange.start}-${d.contextRange.end})\n${d.content}`,
  },
  "grep-many": { text: (d: { results: Array<{ path: string; line: number; column: number; content: string }> }) => d.results.map((r) => `${r.path}:${r.line}:${r.column}: ${r.content}`).join("\n") },
  "replace-hash": { text: (d: { message: string; diff: string }) => `${d.message}\n${d.diff}` },
  "diff generate": { text: (d: { diff: string }) => d.diff.replace(/\n$/, ""), raw: { flag: "raw", render: (d: { diff: string }) => (d.diff.endsWith("\n") ? d.diff : `${d.diff}\n`) } },
  "diff apply": { text: (d: { message: string }) => d.message },
  changesets: {
    text: (d: { changeSets: Array<{ changeSetId: string; timestamp: string; command: string; files: string[]; undoneAt?: string }> }) =>
      d.changeSets.map((c) => `${c.changeSetId}  ${c.timestamp}  ${c.command}${c.undoneAt ? "  (undone)" : ""}\n  ${c.files.join("\n  ")}`).join("\n"),
  },
  undo: { text: (d: { message: string; files: Array<{ path: string; action: string }> }) => [d.message, ...d.files.map((f) => `  ${f.action} ${f.path}`)].join("\n") },
  "provenance query": { text: provenanceText },
  "provenance changeset": { text: provenanceText },
  "telemetry show": {
    text: (d: { events: Array<{ timestamp: string; operation: string; route: string; file: string | null; success: boolean; errorCode: string | null; elapsed_ms: number }> }) =>
      d.events.map((e) => `${e.timestamp}  ${e.route}:${e.operation}  ${e.success ? "ok" : (e.errorCode ?? "FAIL")}  ${e.elapsed_ms} ms  ${e.file ?? ""}`.trimEnd()).join("\n"),
  },
  "telemetry summary": {
    text: (d: { byRouteOperation: Array<{ key: string; count: number; successRate: number; avgElapsedMs: number }> }) =>
      d.byRouteOperation.map((r) => `${r.key.padEnd(28)} ${String(r.count).padStart(6)}  ${r.successRate}% ok  ${r.avgElapsedMs} ms avg`).join("\n"),
  },
  "telemetry export": { raw: { flag: "ndjson", render: (d: { events: unknown[] }) => d.events.map((e) => `${JSON.stringify(e)}\n`).join("") } },
  "symbol-lookup-many": { text: (d: Array<{ name: string; path: string; line: number; kind: string }>) => d.map((h) => `${h.path}:${h.line}  ${h.kind} ${h.name}`).join("\n") },
  route: { text: (d: { route: string; explanation: { reasons: string[] } }) => [`route: ${d.route}`, ...d.explanation.reasons.map((r) => `  ${r}`)].join("\n") },
  "ast capabilities": {
    text: (d: Array<{ lang: string; extensions: string[]; operations: string[] }>) => d.map((l) => `${l.lang.padEnd(11)} ${l.extensions.join(" ").padEnd(26)} ${l.operations.join(", ")}`).join("\n"),
  },
  "ast find-symbols": {
    text: (d: { symbols: Array<{ qualifiedName: string; kind: string; startLine: number; endLine: number }> }) =>
      d.symbols.map((s) => `${String(s.startLine).padStart(5)}-${String(s.endLine).padEnd(5)} ${s.kind.padEnd(24)} ${s.qualifiedName}`).join("\n"),
  },
  "route-edit": { text: editText },
  batch: {
    text: (d: { results: Array<{ file: string; success: boolean; route: string | null; errorCode?: string }>; summary: { total: number; succeeded: number; failed: number; conflicts: number } }) =>
      [
        ...d.results.map((r) => `${r.success ? "ok  " : (r.errorCode ?? "FAIL").padEnd(4)} [${r.route ?? "-"}] ${r.file}`),
        `${d.summary.succeeded}/${d.summary.total} succeeded, ${d.summary.failed} failed, ${d.summary.conflicts} conflicts`,
      ].join("\n"),
  },
  ...Object.fromEntries(["rename-symbol", "replace-body", "add-import", "remove-import", "insert-before", "insert-after"].map((op) => [`ast ${op}`, { text: editText }])),
  doctor: { text: doctorText },
};

/** The commands that manage the install and run here, not through a registry tool. */
interface LocalCommand {
  readonly summary: string;
  readonly usage: string;
  readonly flags: readonly Flag[];
  run(values: Values, cwd: string): Promise<unknown>;
}

const LOCAL_COMMANDS: Record<string, LocalCommand> = {
  doctor: {
    summary: "Check this install: bins on PATH, config, snapshot and telemetry stores, grammars, the MCP server. Always exits 0.",
    usage: "hashpilot doctor [--json]",
    flags: [],
    run: (_values, cwd) => doctor(VERSION, cwd),
  },
  upgrade: {
    summary: "Upgrade the git clone this install runs from (git pull --ff-only, npm ci), never from the npm registry; --dry-run shows the commands.",
    usage: "hashpilot upgrade [--channel <branch>] [--keep-telemetry] [--force] [--dry-run]",
    flags: [{ name: "channel", value: "<branch>" }, { name: "target", value: "<dir>" }, { name: "keep-telemetry" }, { name: "force" }, { name: "dry-run" }],
    run: async (values) => {
      if (values.target !== undefined) throw usage("upgrade", "--target: upgrade works on the install it runs from, in place");
      const plan = upgradePlan(typeof values.channel === "string" ? values.channel : null);
      if (values["dry-run"] !== true) for (const command of plan.commands) runCommand(command);
      // Telemetry and snapshots live outside the package: an upgrade keeps them either way.
      return { success: true, ...(values["dry-run"] === true ? { dryRun: true } : {}), ...plan };
    },
  },
  uninstall: {
    summary: "Remove the package through npm and hashpilot's data (--keep-config keeps config and telemetry); --dry-run lists it.",
    usage: "hashpilot uninstall [--keep-config] [--force] [--dry-run] [--target <dir>]",
    flags: [{ name: "keep-config" }, { name: "force" }, { name: "dry-run" }, { name: "target", value: "<dir>" }],
    run: async (values) => {
      const plan = uninstallPlan(typeof values.target === "string" ? values.target : null, values["keep-config"] === true);
      if (values["dry-run"] !== true) {
        removeComponents(plan.components);
        runCommand(plan.command);
      }
      return { success: true, ...(values["dry-run"] === true ? { dryRun: true } : {}), command: plan.command, components: plan.components };
    },
  },
};

/** A registry tool's command: its argv grammar (the tool's `cli`) over the tool's input fields. */
interface ToolCommand {
  readonly tool: ToolDefinition;
  readonly spec: CliCommand;
  readonly fields: ReadonlyMap<string, InputField>;
  /** Flag → the key it sets (`!key`: sets it false). */
  readonly flags: ReadonlyMap<string, string>;
}

const kebab = (key: string) => key.replace(/_/g, "-");

/**
 * Every editing tool's commands, from the registry. A command's fields and flags come from its
 * tool's JSON Schema, made on first use: one invocation converts one schema, not every tool's.
 */
function toolCommands(): Map<string, ToolCommand> {
  const out = new Map<string, ToolCommand>();
  for (const tool of TOOLS) {
    for (const spec of tool.cli ?? []) {
      let grammar: Pick<ToolCommand, "fields" | "flags"> | null = null;
      const made = () => (grammar ??= commandGrammar(tool, spec));
      out.set(spec.name, {
        tool,
        spec,
        get fields() {
          return made().fields;
        },
        get flags() {
          return made().flags;
        },
      });
    }
  }
  return out;
}

/** A command's input fields and its flags (flag → key) over its tool's input. */
function commandGrammar(tool: ToolDefinition, spec: CliCommand): Pick<ToolCommand, "fields" | "flags"> {
  const fields = new Map(inputFields(tool).map((f) => [f.key, f]));
  const aliases = Object.entries(spec.flags ?? {});
  // A key named in `flags` has only the flags named there.
  const named = new Set(aliases.map(([, k]) => k.replace(/^!/, "")));
  const offered = [...fields.keys()].filter(
    (k) => !(spec.positionals ?? []).some((p) => p.replace(/^\.\.\./, "") === k) && !(k in (spec.fixed ?? {})) && !(spec.hidden ?? []).includes(k) && !named.has(k),
  );
  return { fields, flags: new Map([...offered.map((k) => [kebab(k), k] as const), ...aliases]) };
}

/** The usage line of a tool's command, from its grammar. */
function usageOf(c: ToolCommand): string {
  const label = (k: string) => c.spec.labels?.[k] ?? kebab(k);
  const content = (k: string) => (c.spec.content?.includes(k) ? `${label(k)}|@file|@@literal` : label(k));
  const positionals = (c.spec.positionals ?? []).map((p) => {
    if (p.startsWith("...")) return `<${label(p.slice(3))}> [${label(p.slice(3))} ...]`;
    return requiredIn(c, p) ? `<${content(p)}>` : `[<${content(p)}>]`;
  });
  const shortOf = (key: string) => Object.entries(c.spec.short ?? {}).find(([, k]) => k === key)?.[0];
  const flags = [...c.flags].map(([flag, key]) => {
    const k = key.replace(/^!/, "");
    const field = c.fields.get(k);
    const name = shortOf(k) && kebab(k) === flag ? `-${shortOf(k)}|--${flag}` : `--${flag}`;
    if (k === c.spec.stdin) return `[${name} <file|->]`;
    return key.startsWith("!") || field?.kind === "boolean" ? `[${name}]` : field?.required ? `${name} <${content(k)}>` : `[${name} <${content(k)}>]`;
  });
  const raw = RENDERERS[c.spec.name]?.raw;
  return ["hashpilot", c.spec.name, ...positionals, ...flags, ...(c.spec.stdin ? [`(${kebab(c.spec.stdin)} from stdin without it)`] : []), ...(raw ? [`[--${raw.flag}]`] : [])].join(" ");
}

/** Whether a command needs a key: the tool's input requires it, or the command does. */
function requiredIn(c: ToolCommand, key: string): boolean {
  return c.fields.get(key)?.required === true || (c.spec.required ?? []).includes(key);
}

/** The flags of a tool's command: a boolean input or a `!key` is a switch, any other takes a value. */
function flagsOf(c: ToolCommand): Flag[] {
  const flags: Flag[] = [];
  for (const [flag, key] of c.flags) {
    const k = key.replace(/^!/, "");
    const short = Object.entries(c.spec.short ?? {}).find(([, sk]) => sk === k && kebab(k) === flag)?.[0];
    flags.push({ name: flag, ...(key.startsWith("!") || c.fields.get(k)?.kind === "boolean" ? {} : { value: `<${flag}>` }), ...(short ? { short } : {}) });
  }
  const raw = RENDERERS[c.spec.name]?.raw;
  if (raw) flags.push({ name: raw.flag });
  if (c.spec.name.startsWith("provenance ")) flags.push({ name: "human" });
  return flags;
}

/** argv → the tool's input, by the command's grammar: positionals in order, flags to their keys, numbers, lists, @file content, stdin. */
function inputOf(c: ToolCommand, positionals: string[], values: Values, cwd: string): Record<string, unknown> {
  const input: Record<string, unknown> = { ...(c.spec.fixed ?? {}) };
  const convert = (key: string, value: string, shown: string): unknown => {
    const field = c.fields.get(key);
    if (field?.kind === "number") return wholeNumber(shown, value);
    if (c.spec.lists?.includes(key))
      return value
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== "");
    if (c.spec.content?.includes(key)) return contentArg(cwd, value);
    return value;
  };
  const names = c.spec.positionals ?? [];
  let i = 0;
  for (const p of names) {
    if (p.startsWith("...")) {
      if (i < positionals.length) input[p.slice(3)] = positionals.slice(i);
      else if (requiredIn(c, p.slice(3))) throw usage(c.spec.name, "missing arguments");
      i = positionals.length;
      continue;
    }
    const value = positionals[i++];
    if (value === undefined) {
      if (requiredIn(c, p)) throw usage(c.spec.name, "missing arguments");
      continue;
    }
    input[p] = convert(p, value, p);
  }
  if (i < positionals.length) throw usage(c.spec.name, `unexpected arguments: ${positionals.slice(i).join(" ")}`);
  for (const [flag, key] of c.flags) {
    const value = values[flag];
    if (value === undefined) continue;
    if (key.startsWith("!")) input[key.slice(1)] = value !== true;
    else input[key] = typeof value === "boolean" ? value : convert(key, value, `--${flag}`);
  }
  if (c.spec.stdin) {
    const source = input[c.spec.stdin];
    input[c.spec.stdin] = source === undefined || source === "-" ? readStdin() : contentArg(cwd, `@${String(source)}`);
  }
  if (values["allow-parse-errors"] === true && c.fields.has("allow_parse_errors")) input.allow_parse_errors = true;
  return input;
}

const GLOBAL_FLAGS: readonly Flag[] = [
  { name: "config", value: "<file>" },
  { name: "format", value: "<format>" },
  { name: "json" },
  { name: "allow-parse-errors" },
  { name: "root", value: "<dir>" },
  // The contract's name for it on `intent` (and accepted everywhere).
  { name: "project-root", value: "<dir>" },
  { name: "help", short: "h" },
];

const COMMANDS = toolCommands();

function usageLine(name: string): string {
  const tool = COMMANDS.get(name);
  return tool ? usageOf(tool) : (LOCAL_COMMANDS[name]?.usage ?? "hashpilot --help");
}

function usage(command: string, message: string): MastError {
  return new MastError("INVALID_ARGUMENT", `${command}: ${message}`, { hint: `Usage: ${usageLine(command)}` });
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
  const bytes = readBytes(path, { unchecked: true });
  if (bytes === null) throw new MastError("FILE_NOT_FOUND", `cannot read content from ${path}: it does not exist`, { hint: 'Content that starts with @ is written @@ ("@@log" is the text "@log").' });
  const text = decodeUtf8(bytes);
  if (text === null) throw new MastError("READ_FAILED", `cannot read content from ${path}: it is not valid UTF-8`);
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

/** The project root edits must stay in: --root, else the nearest ancestor with a .git, else the working directory. */
function projectRoot(cwd: string, explicit: string | undefined): string {
  if (explicit !== undefined) {
    const root = resolve(cwd, explicit);
    if (!existsSync(root) || !statSync(root).isDirectory()) throw new MastError("NOT_A_DIRECTORY", `--root ${explicit} is not a directory`);
    // Through its symlinks, as mast resolves a project root: the index reads files by their real paths.
    return realpathSync(root);
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
  const summaries = [...[...COMMANDS].map(([name, c]) => [name, c.spec.summary] as const), ...Object.entries(LOCAL_COMMANDS).map(([name, c]) => [name, c.summary] as const)];
  const width = Math.max(...summaries.map(([name]) => name.length));
  return [
    "hashpilot — hash-anchored reads and edits that never land on the wrong lines",
    "",
    "Commands:",
    ...summaries.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}\n  ${" ".repeat(width)}  ${usageLine(name)}`),
    "",
    "Global options: --format json|text, --root <dir> (or --project-root), --config <file>, --allow-parse-errors (lets an AST edit change a file that does not parse; no edit may add a syntax error)",
    "Every command prints the apiVersion 1 envelope; the exit code says how it ended (0 ok, 1 usage, 2 edit failed, 3 stale anchor, 4 verification failed, timed out or never ran, 5 I/O).",
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
  const known = (n: string) => COMMANDS.has(n) || n in LOCAL_COMMANDS;
  const [name, ...rest] = known(twoWords) ? [twoWords, ...argv.slice(2)] : argv;
  let format: Format = "json";
  let raw = false;
  const commandName = name ?? "";
  const finish = (envelope: Envelope): number => {
    // A batch exits with the worst of its entries' codes.
    const entries = (envelope.error?.details as { results?: Array<{ errorCode?: ErrorCode }> } | undefined)?.results;
    const exit = envelope.ok ? 0 : Math.max(exitCodeOf(envelope.error!.code), ...(entries ?? []).flatMap((e) => (e.errorCode ? [exitCodeOf(e.errorCode)] : [])));
    const renderer = RENDERERS[envelope.command];
    if (envelope.ok && raw && renderer?.raw) {
      io.stdout.write(renderer.raw.render(envelope.data as never));
      return exit;
    }
    const text =
      format !== "text"
        ? null
        : envelope.ok
          ? renderer?.text
            ? renderer.text(envelope.data as never)
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
    const tool = COMMANDS.get(name);
    const local = LOCAL_COMMANDS[name];
    if (!tool && !local) throw new MastError("INVALID_ARGUMENT", `unknown command ${JSON.stringify(name)}`, { hint: `Commands: ${[...COMMANDS.keys(), ...Object.keys(LOCAL_COMMANDS)].join(", ")}` });
    let parsed: ReturnType<typeof parseStrict>;
    try {
      parsed = parseStrict(rest, [...GLOBAL_FLAGS, ...(tool ? flagsOf(tool) : local!.flags)]);
    } catch (err) {
      throw usage(name, errorMessage(err));
    }
    const values: Values = parsed.values;
    // --human (provenance) is text; --raw and --ndjson print the payload's raw form.
    // doctor reads as a summary unless asked for JSON (its --json is not the deprecated alias).
    const doctorJson = name === "doctor" && values.json === true;
    format = doctorJson ? "json" : values.human === true || (name === "doctor" && values.format === undefined) ? "text" : chooseFormat(values, io.stderr, io.stdout.isTTY === true);
    const rawFlag = RENDERERS[name]?.raw?.flag;
    raw = rawFlag !== undefined && values[rawFlag] === true;
    if (values.help) {
      io.stdout.write(`${usageLine(name)}\n${tool ? tool.spec.summary : local!.summary}\n`);
      return 0;
    }
    if (local) {
      if (parsed.positionals.length > 0) throw usage(name, `unexpected arguments: ${parsed.positionals.join(" ")}`);
      return finish(okEnvelope(name, await local.run(values, io.cwd), []));
    }
    const input = inputOf(tool!, parsed.positionals, values, io.cwd);
    const given = typeof values.root === "string" ? values.root : typeof values["project-root"] === "string" ? values["project-root"] : undefined;
    const root = projectRoot(io.cwd, given);
    const ctx = createToolContext(resolveConfig(root, {}), io.cwd, typeof values.config === "string" ? values.config : undefined);
    try {
      const envelope = (await callTool(ctx, tool!.tool.name, input)) as Envelope;
      return finish({ ...envelope, command: name });
    } finally {
      ctx.close();
    }
  } catch (err) {
    if (!isMastError(err)) io.stderr.write(`hashpilot: internal error: ${err instanceof Error && err.stack ? err.stack : String(err)}\n`);
    return finish(errorEnvelope(commandName, err));
  }
}

// The chunks the command loads from here on (its static imports are compiled already).
enableCompileCache();
runHashpilot(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`hashpilot: internal error: ${errorMessage(err)}\n`);
    process.exitCode = INTERNAL_EXIT;
  },
);
