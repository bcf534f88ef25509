// mast's command tree, read as mast has always read it (commander's rules, which its tests pin):
// a subcommand by name, `help [command]`, -V/--version anywhere, each command's flags and
// arguments; a usage error is `error: …` on stderr with the command's help after it, exit code 2.
import { flagTerm, scanLine, UsageError, type Flag, type Scanned } from "./argv.js";
import { formatHelp, helpWidth, suggestSimilar, type HelpItem } from "./help.js";

/** A command, or a group of them (`commands`). */
export interface CommandSpec<Options = Record<string, unknown>> {
  readonly name: string;
  readonly description: string;
  /** Its arguments as help shows them: `<name>` is required, `[name]` optional. */
  readonly args?: readonly string[];
  /** Its flags, in the order help lists them. */
  readonly flags?: readonly Flag[];
  /** Text help prints after the lists (examples, the tools). */
  readonly helpAfter?: string;
  readonly commands?: readonly CommandSpec<never>[];
  /** Runs the command: its arguments in order (undefined when not given), its flags' values by attribute (`--max-nodes` → maxNodes). */
  readonly run?: (args: Array<string | undefined>, options: Options) => Promise<void>;
}

/** The program: the top group, with its version. */
export interface ProgramSpec extends CommandSpec {
  readonly version: string;
}

const HELP: Flag = { name: "help", short: "h", help: "display help for command" };
const VERSION: Flag = { name: "version", short: "V", help: "output the version number" };

/** A command with the groups above it, the program first. */
type CommandPath = readonly CommandSpec<never>[];

const commandOf = (path: CommandPath): CommandSpec<never> => path[path.length - 1]!;
/** The flags a command's help lists: its own, the program's version, and help. */
const visibleFlags = (path: CommandPath, command: CommandSpec<never>): Flag[] => [...(command.flags ?? []), ...(command === path[0] ? [VERSION] : []), HELP];
const isHelp = (arg: string) => arg === "--help" || arg === "-h";
/** An argument that looks like a flag: a dash and more. */
const flagLike = (arg: string) => arg.length > 1 && arg.startsWith("-");

function helpPage(path: CommandPath, width: number): string {
  const command = commandOf(path);
  const term = (c: CommandSpec<never>) => [c.name, ...(c.flags?.length ? ["[options]"] : []), ...(c.args ?? [])].join(" ");
  const commands: HelpItem[] = command.commands ? [...command.commands.map((c) => ({ term: term(c), description: c.description })), { term: "help [command]", description: HELP.help! }] : [];
  const options = visibleFlags(path, command).map((flag): HelpItem => {
    const extra = [
      ...(flag.choices ? [`choices: ${flag.choices.map((c) => JSON.stringify(c)).join(", ")}`] : []),
      ...(flag.default !== undefined && (flag.value !== undefined || typeof flag.default === "boolean") ? [`default: ${JSON.stringify(flag.default)}`] : []),
    ];
    return { term: flagTerm(flag), description: extra.length ? `${flag.help} (${extra.join(", ")})` : flag.help! };
  });
  const usage = [...path.map((c) => c.name), "[options]", ...(command.commands ? ["[command]"] : []), ...(command.args ?? [])].join(" ");
  return formatHelp({ usage, description: command.description, options, commands }, width);
}

/** A command's help on a stream, with the text it adds after it. */
function writeHelp(path: CommandPath, stream: NodeJS.WriteStream): void {
  stream.write(helpPage(path, helpWidth(stream)));
  const after = commandOf(path).helpAfter;
  if (after) stream.write(`${after}\n`);
}

/** A usage error: its line, then the command's help, on stderr. */
function usageError(path: CommandPath, message: string): number {
  process.stderr.write(`error: ${message}\n\n`);
  writeHelp(path, process.stderr);
  return 2;
}

/** An unknown flag, with the closest flag of the command and the groups above it. */
function unknownFlag(path: CommandPath, arg: string): number {
  const candidates = arg.startsWith("--") ? [...path].reverse().flatMap((c) => visibleFlags(path, c).map((f) => `--${f.name}`)) : [];
  return usageError(path, `unknown option '${arg}'${suggestSimilar(arg, candidates)}`);
}

/**
 * Runs the command a line names (the program's name left off); its exit code: 0, or 2 for a usage
 * error (printed here). A command's own failure is thrown, for the caller to name.
 */
export async function runProgram(program: ProgramSpec, args: readonly string[]): Promise<number> {
  // The program reads its own flag first, wherever it is (short flags may be grouped after it).
  for (const arg of args) {
    if (arg === "--") break;
    if (arg === "--version" || arg.startsWith("-V")) {
      process.stdout.write(`${program.version}\n`);
      return 0;
    }
  }
  return dispatch([program], args);
}

function dispatch(path: CommandPath, args: readonly string[]): Promise<number> {
  return commandOf(path).commands ? dispatchGroup(path, args) : runCommand(path, args);
}

/** A group's line: the arguments up to its first flag-like one are its operands, the first naming the subcommand. */
async function dispatchGroup(path: CommandPath, args: readonly string[]): Promise<number> {
  const group = commandOf(path);
  const operands: Array<{ arg: string; at: number }> = [];
  let unknown: readonly string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      operands.push(...args.slice(i + 1).map((a, j) => ({ arg: a, at: i + 1 + j })));
      break;
    }
    if (flagLike(arg)) {
      unknown = args.slice(i);
      break;
    }
    operands.push({ arg, at: i });
  }
  const [first, second] = operands;
  const sub = group.commands!.find((c) => c.name === first?.arg);
  if (sub && first) return dispatch([...path, sub], [...args.slice(0, first.at), ...args.slice(first.at + 1)]);
  if (first?.arg === "help") return helpCommand(path, second?.arg);
  if (operands.length === 0 && unknown.length === 0) {
    writeHelp(path, process.stderr);
    return 2;
  }
  if (unknown.some(isHelp)) {
    writeHelp(path, process.stdout);
    return 0;
  }
  if (first) return usageError(path, `unknown command '${first.arg}'${suggestSimilar(first.arg, [...group.commands!.map((c) => c.name), "help"])}`);
  return unknownFlag(path, unknown[0]!);
}

/** `help [command]`: the group's help, or its subcommand's; a name it does not have shows the group's as an error. */
function helpCommand(path: CommandPath, name: string | undefined): number {
  const sub = name === undefined ? undefined : commandOf(path).commands!.find((c) => c.name === name);
  if (name !== undefined && !sub) {
    writeHelp(path, process.stderr);
    return 2;
  }
  writeHelp(sub ? [...path, sub] : path, process.stdout);
  return 0;
}

/** A command's line: its flags, then help if asked for, an unknown flag, its arguments' count; then it runs. */
async function runCommand(path: CommandPath, args: readonly string[]): Promise<number> {
  const command = commandOf(path);
  let scanned: Scanned;
  try {
    scanned = scanLine(args, command.flags ?? []);
  } catch (err) {
    if (err instanceof UsageError) return usageError(path, err.message);
    throw err;
  }
  const { values, operands, unknown } = scanned;
  if (unknown.some(isHelp)) {
    writeHelp(path, process.stdout);
    return 0;
  }
  if (unknown.length > 0) return unknownFlag(path, unknown[0]!);
  const declared = command.args ?? [];
  const missing = declared.find((a, i) => a.startsWith("<") && operands[i] === undefined);
  if (missing) return usageError(path, `missing required argument '${missing.slice(1, -1)}'`);
  if (operands.length > declared.length) {
    return usageError(path, `too many arguments for '${command.name}'. Expected ${declared.length} argument${declared.length === 1 ? "" : "s"} but got ${operands.length}.`);
  }
  await command.run!(
    declared.map((_, i) => operands[i]),
    values as never,
  );
  return 0;
}
