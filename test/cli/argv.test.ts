// The one command-line parser (cli/argv.ts) and mast's help hints (cli/help.ts): a mast command's
// line read by the rules its users know (commander's, whose messages mast-cli.test.ts checks on the
// built CLI), and hashpilot's read strictly, parseArgs' own errors passed through.
import { describe, expect, it } from "vitest";
import { MastError } from "../../src/base/errors.js";
import { type Flag, parseStrict, scanLine, UsageError } from "../../src/cli/argv.js";
import { formatHelp, suggestSimilar } from "../../src/cli/help.js";

const FLAGS: readonly Flag[] = [
  { name: "state-dir", value: "<dir>", help: "state directory" },
  { name: "json", help: "print the result as JSON" },
  { name: "format", value: "<format>", help: "mermaid, dot or svg", choices: ["mermaid", "dot", "svg"], default: "mermaid" },
  { name: "by-tool", help: "one row per tool", default: true },
  { name: "no-by-tool", help: "one row for all tools" },
  { name: "no-server", help: "answer in this process" },
  { name: "session", value: "[id]", help: "one session's calls" },
  {
    name: "threads",
    value: "<n>",
    help: "parse threads",
    parse: (v) => {
      if (!/^\d+$/.test(v)) throw new MastError("INVALID_ARGUMENT", `--threads must be an integer, not ${JSON.stringify(v)}`);
      return Number(v);
    },
  },
];

const scan = (...args: string[]) => scanLine(args, FLAGS);
const refused = (...args: string[]) => {
  try {
    scan(...args);
  } catch (err) {
    return err instanceof UsageError ? err.message : err;
  }
  return "not refused";
};

describe("a mast command's line", () => {
  it("fills in the defaults: a default given, true for a `no-` flag without a positive twin, the twin's own for one with", () => {
    expect(scan().values).toEqual({ format: "mermaid", byTool: true, server: true });
    expect(scan("--no-by-tool", "--no-server").values).toMatchObject({ byTool: false, server: false });
  });

  it("takes a flag's value as the next argument whatever it looks like, or inline; a missing one is refused at once", () => {
    const taken = scan("--state-dir", "--json", "p");
    expect(taken).toMatchObject({ values: { stateDir: "--json" }, operands: ["p"] });
    expect("json" in taken.values).toBe(false);
    expect(scan("--state-dir=x", "p")).toMatchObject({ values: { stateDir: "x" }, operands: ["p"], unknown: [] });
    expect(refused("--state-dir")).toBe("option '--state-dir <dir>' argument missing");
    expect(refused("--format", "png")).toBe("option '--format <format>' argument 'png' is invalid. Allowed choices are mermaid, dot, svg.");
    expect(scan("--threads", "3").values).toMatchObject({ threads: 3 });
    // A flag's own check throws its own error (the command's, not a usage line).
    expect(refused("--threads", "x")).toBeInstanceOf(MastError);
  });

  it("takes an optional value only when the next argument is not a flag (a negative number is not)", () => {
    expect(scan("--session").values).toMatchObject({ session: true });
    expect(scan("--session", "s1", "p")).toMatchObject({ values: { session: "s1" }, operands: ["p"] });
    expect(scan("--session", "--json")).toMatchObject({ values: { session: true, json: true }, operands: [] });
    expect(scan("--session", "-1")).toMatchObject({ values: { session: "-1" }, operands: [] });
    expect(scan("--session=s2").values).toMatchObject({ session: "s2" });
  });

  it("sets aside the first unknown flag with every argument after it; `--switch=x` and grouped short flags are unknown", () => {
    expect(scan("p", "--bogus", "q", "--json")).toMatchObject({ values: { json: true }, operands: ["p"], unknown: ["--bogus", "q"] });
    expect(scan("--json=1").unknown).toEqual(["--json=1"]);
    expect(scan("-hV").unknown).toEqual(["-hV"]);
    expect(scan("-h").unknown).toEqual(["-h"]);
    expect(scan("--bogus", "--", "--help").unknown).toEqual(["--bogus", "--", "--help"]);
  });

  it("reads a negative number as an argument, and everything after `--` as arguments", () => {
    expect(scan("-5", "-1.5").operands).toEqual(["-5", "-1.5"]);
    expect(scan("--", "--json", "-x")).toEqual({ values: { format: "mermaid", byTool: true, server: true }, operands: ["--json", "-x"], unknown: [] });
  });
});

describe("a hashpilot line", () => {
  it("is read strictly, parseArgs' errors passed through as they are", () => {
    const flags: Flag[] = [{ name: "context", value: "<n>", short: "c" }, { name: "dry-run" }];
    expect(parseStrict(["f", "-c", "2", "--dry-run"], flags)).toEqual({ values: { context: "2", "dry-run": true }, positionals: ["f"] });
    expect(() => parseStrict(["--bogus"], flags)).toThrow(expect.objectContaining({ code: "ERR_PARSE_ARGS_UNKNOWN_OPTION" }));
    // An option-like value is ambiguous to a strict reader (a mast line takes it).
    expect(() => parseStrict(["--context", "-5"], flags)).toThrow(expect.objectContaining({ code: "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" }));
  });
});

describe("mast's help", () => {
  it("suggests the closest flags or commands (an adjacent swap is one edit), none when nothing is close", () => {
    expect(suggestSimilar("--jsn", ["--json", "--help", "--version"])).toBe("\n(Did you mean --json?)");
    expect(suggestSimilar("--jsno", ["--json", "--help"])).toBe("\n(Did you mean --json?)");
    // Two swaps are two edits (three as plain Levenshtein: past the limit of 3, no suggestion).
    expect(suggestSimilar("badcfe", ["abcdef"])).toBe("\n(Did you mean abcdef?)");
    expect(suggestSimilar("statu", ["status", "serve", "help"])).toBe("\n(Did you mean status?)");
    expect(suggestSimilar("--vbc", ["--abc", "--vbd", "--help"])).toBe("\n(Did you mean one of --abc, --vbd?)");
    expect(suggestSimilar("frobnicate", ["init", "index", "help"])).toBe("");
  });

  it("lays out usage, the description and the lists in columns, each description wrapped beside its term", () => {
    const page = formatHelp(
      {
        usage: "mast status [options] [path]",
        description: "print index health",
        options: [
          { term: "--state-dir <dir>", description: "state directory (default: $MAST_STATE_DIR, mast.config.json, or <path>/.mast)" },
          { term: "-h, --help", description: "display help for command" },
        ],
        commands: [],
      },
      80,
    );
    expect(page).toBe(
      [
        "Usage: mast status [options] [path]",
        "",
        "print index health",
        "",
        "Options:",
        "  --state-dir <dir>  state directory (default: $MAST_STATE_DIR,",
        "                     mast.config.json, or <path>/.mast)",
        "  -h, --help         display help for command",
        "",
      ].join("\n"),
    );
  });
});
