// The one command-line parser of both CLIs: node:util's parseArgs over a table of `Flag`s.
// hashpilot reads its lines strictly (`parseStrict`: parseArgs' own errors, which its envelopes
// carry); mast's commands read theirs by the rules their users know (`scanLine`, cli/program.ts).
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A flag of a command line: its long name, the value it takes, its help. */
export interface Flag {
  /** The long name without its dashes (`state-dir`); a `no-<name>` flag sets `<name>` false (true by default). */
  readonly name: string;
  /** The value as help shows it: `<dir>` is required, `[id]` optional (mast only); none: a switch. */
  readonly value?: string;
  /** A one-letter alias (`-h`). */
  readonly short?: string;
  /** What it does (mast's help lists it; hashpilot's usage lines are written from its commands' grammar). */
  readonly help?: string;
  /** Its value when not given. */
  readonly default?: string | boolean;
  /** The values it takes: any other is a usage error. */
  readonly choices?: readonly string[];
  /** A given value's checks and conversion (what it throws leaves as the command's error). */
  readonly parse?: (value: string) => unknown;
}

/** A usage error in a line `scanLine` read, worded as mast prints it after `error: `. */
export class UsageError extends Error {}

/** The help's name of a flag: `-h, --help`, `--state-dir <dir>`. */
export const flagTerm = (flag: Flag): string => `${flag.short ? `-${flag.short}, ` : ""}--${flag.name}${flag.value ? ` ${flag.value}` : ""}`;

/** The key a flag's value is kept under: camelCase, a `no-` flag's without it (`--no-by-tool` → byTool). */
const attributeOf = (flag: Flag): string => flag.name.replace(/^no-/, "").replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const takesValue = (flag: Flag): boolean => flag.value?.startsWith("<") === true;

/** parseArgs' options for a table (a later flag of the same name wins). */
function parseArgsOptions(flags: readonly Flag[]): NonNullable<ParseArgsConfig["options"]> {
  return Object.fromEntries(flags.map((f) => [f.name, { type: takesValue(f) ? "string" : "boolean", ...(f.short ? { short: f.short } : {}) }] as const));
}

/** A line read strictly: every flag known, a value where one is due; parseArgs' errors thrown as they are. */
export function parseStrict(args: readonly string[], flags: readonly Flag[]): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const { values, positionals } = parseArgs({ args: [...args], options: parseArgsOptions(flags), allowPositionals: true, strict: true });
  // No flag is declared `multiple`: each value is one string or switch.
  return { values: values as Record<string, string | boolean | undefined>, positionals };
}

/** A line `scanLine` read: the flags' values by attribute (defaults filled in), the arguments, and the first unknown flag with every argument after it. */
export interface Scanned {
  readonly values: Record<string, unknown>;
  readonly operands: string[];
  readonly unknown: string[];
}

const NEGATIVE_NUMBER = /^-(\d+|\d*\.\d+)(e[+-]?\d+)?$/;

/** The flags' values before the line's: the defaults, and true for a `no-` flag without a positive twin. */
function defaults(flags: readonly Flag[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const flag of flags) {
    if (flag.default !== undefined) values[attributeOf(flag)] = flag.default;
    else if (flag.name.startsWith("no-") && !flags.some((f) => f.name === flag.name.slice(3))) values[attributeOf(flag)] = true;
  }
  return values;
}

/** A value given to a flag: one of its choices, through its parse. */
function givenValue(flag: Flag, value: string): unknown {
  if (flag.choices && !flag.choices.includes(value)) throw new UsageError(`option '${flagTerm(flag)}' argument '${value}' is invalid. Allowed choices are ${flag.choices.join(", ")}.`);
  return flag.parse ? flag.parse(value) : value;
}

/**
 * A command's line read by commander's rules, which mast's users (and tests) know: a flag's value
 * is the next argument whatever it looks like; a `[value]` is taken only when the next argument is
 * not a flag; `--switch=x` and a group of short flags are unknown; a negative number is an argument;
 * from the first unknown flag on, every argument is set aside with it; `--` ends the flags.
 * A value missing or refused is a UsageError at once; an unknown flag is the caller's to report.
 */
export function scanLine(args: readonly string[], flags: readonly Flag[]): Scanned {
  const byName = new Map(flags.map((f) => [f.name, f]));
  const { tokens } = parseArgs({ args: [...args], options: parseArgsOptions(flags), allowPositionals: true, strict: false, tokens: true });
  const values = defaults(flags);
  const operands: string[] = [];
  const unknown: string[] = [];
  let dest = operands;
  // The last argument read: a short group's later letters, an optional value taken.
  let read = -1;
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    if (token.index <= read) continue;
    if (token.kind === "option-terminator") {
      if (dest === unknown) unknown.push("--");
      dest.push(...args.slice(token.index + 1));
      break;
    }
    const raw = args[token.index]!;
    read = token.index;
    if (token.kind === "positional" || NEGATIVE_NUMBER.test(raw)) {
      dest.push(raw);
      continue;
    }
    const flag = byName.get(token.name);
    // A flag is known as itself, or with its value inline (`--name=value`); `-abc` (several at once) and `--switch=x` are not.
    if (!flag || (raw !== token.rawName && !(token.inlineValue && flag.value !== undefined))) {
      dest = unknown;
      unknown.push(raw);
      continue;
    }
    if (flag.value === undefined) {
      values[attributeOf(flag)] = !flag.name.startsWith("no-");
      continue;
    }
    if (takesValue(flag)) {
      if (token.value === undefined) throw new UsageError(`option '${flagTerm(flag)}' argument missing`);
      values[attributeOf(flag)] = givenValue(flag, token.value);
      continue;
    }
    // An optional value: inline, or the next argument unless it is a flag (a negative number is not).
    const next = tokens[t + 1];
    const given = token.inlineValue
      ? token.value
      : next && next.index === token.index + 1 && (next.kind === "positional" || (next.kind === "option" && NEGATIVE_NUMBER.test(args[next.index]!)))
        ? args[next.index]
        : undefined;
    if (given !== undefined && !token.inlineValue) read = token.index + 1;
    values[attributeOf(flag)] = given === undefined ? true : givenValue(flag, given);
  }
  return { values, operands, unknown };
}
