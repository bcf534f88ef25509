// verify_changes in the `edit` toolset (hashpilot `verify-changes`): the checks of edit/verify.ts
// as a tool — one changeSet for what a formatter rewrites and what a revert puts back, the index
// caught up with both — whose verdict other than pass is the error code the contract gives it
// (VERIFY_FAILED, VERIFY_TIMEOUT, VERIFY_NO_CHECKS: exit 4), the whole result in its details.
import { MastError } from "../base/errors.js";
import { DEFAULT_VERIFY_TIMEOUT_MS } from "../edit/config.js";
import type { VerifyResult } from "../edit/verify.js";
import { DESTRUCTIVE, defineTool } from "./define.js";
import { runEditOperation } from "./edit-call.js";
import { ENVELOPE_OUTPUT } from "./outputs.js";
import { pathInput, z } from "./schema.js";

const commandLine = z.string().min(1).max(1000);

const VERDICT_MESSAGES: Record<Exclude<VerifyResult["overall"], "pass">, (r: VerifyResult) => string> = {
  fail: (r) =>
    `verification failed: ${r.checksRun.filter((c) => r[c] && !r[c]!.passed && !r[c]!.timedOut).join(", ")}${r.revertedFiles?.length ? `; ${r.revertedFiles.length} file(s) put back as before the edit` : ""}`,
  timeout: (r) => `verification timed out (${(r.timedOut ?? []).join(", ")}) without a verdict; the edit was kept`,
  skipped: () => "no check ran, so nothing was verified",
};

export const verifyChangesTool = defineTool({
  name: "verify_changes",
  toolset: "edit",
  source: { defined: "tools/verify.ts", answers: "edit/verify.ts" },
  cli: [
    {
      name: "verify-changes",
      summary: "Run the formatter, linter, type checker and the related tests on changed files (--auto-detect finds them); pass, fail, timeout or skipped.",
      positionals: ["...files"],
      flags: { "no-scope-tests": "!scope_tests", timeout: "timeout_ms" },
    },
  ],
  title: "Verify changed files",
  description: "Runs formatter, linter, type check and related tests on changed files (each opt-in, or auto_detect).",
  details:
    "Commands run without a shell in the nearest project directory of the first file (package.json, pyproject.toml, go.mod, Cargo.toml), only allowed programs (prettier, eslint, biome, tsc, vitest, jest, bun test, pytest or python -m pytest/mypy, mypy, ruff, black, go vet/test/build, cargo check/clippy/test/fmt, rustfmt, gofmt, node with a script), found in the project's node_modules/.bin or on PATH, or named by a path inside the project root; npx, npm exec, bunx and pnpm exec of those run the program itself. Nothing runs when a command is refused: an option that would run other code, however written (node -e, -pe, --eval=; python -c; go run, -toolexec; cargo --config, -Z; pytest -p), is INVALID_ARGUMENT; an argument naming a path outside the project root (absolute, .., ~, through a symlink, an option's value) is PATH_DENIED. " +
    "The formatter and linter get the files; tests are restricted to the related ones (vitest related, jest --findRelatedTests, go package directories, cargo test targets, pytest and bun test by naming convention) unless scope_tests is false — testScope says what ran and why. " +
    "record_baseline runs only the tests and records the failing names for this commit, runner and scope (recorded: false when there is no git repository or runner, or the run timed out; cached: true when one exists); use_baseline then counts only new failures (baseline.comparable: false when no usable baseline or the output cannot be parsed into names, and every failure counts). " +
    "overall is pass, fail (VERIFY_FAILED), timeout (VERIFY_TIMEOUT: never reverts) or skipped (VERIFY_NO_CHECKS); every non-pass is an error whose details hold the whole result, checksRun always present, each output capped at 256 KB per stream (truncated). revert_on_failure restores each file as it was before the newest changeSet that wrote it (revertedFiles; unrevertedFiles with reasons), recorded as a changeSet of its own; what a formatter rewrites is recorded too (formatted, changeSetId).",
  unlisted: ["timeout_ms", "scope_tests", "use_baseline", "record_baseline", "formatter_args", "linter_args", "test_args"],
  input: () =>
    z
      .object({
        files: z.array(pathInput()).min(1).max(1000),
        formatter: commandLine.optional().describe("e.g. `prettier --write` (files appended)."),
        linter: commandLine.optional().describe("e.g. `eslint` (files appended)."),
        typecheck: commandLine.optional().describe("e.g. `tsc --noEmit`."),
        test_runner: z.string().min(1).max(40).optional().describe("vitest, jest, bun test, pytest, go test, cargo test."),
        test_filter: z.string().min(1).max(500).optional().describe("Test name pattern."),
        auto_detect: z.boolean().default(false).describe("Checks from package.json, pyproject.toml, go.mod, Cargo.toml."),
        scope_tests: z.boolean().default(true).describe("Only tests related to the files (default)."),
        revert_on_failure: z.boolean().default(false).describe("On a failure, restore the files as before their edit."),
        timeout_ms: z.number().int().min(100).max(3_600_000).default(DEFAULT_VERIFY_TIMEOUT_MS).describe("Per check (default 30000)."),
        use_baseline: z.boolean().default(false).describe("Count only failures not in the recorded baseline."),
        record_baseline: z.boolean().default(false).describe("Record failing tests before editing; runs no check."),
        formatter_args: commandLine.optional(),
        linter_args: commandLine.optional(),
        test_args: commandLine.optional(),
      })
      .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: { ...DESTRUCTIVE, openWorldHint: true },
  handler: async (ctx, args) => {
    // The checks' runner and the TypeScript program lookup, loaded by the first verification.
    const [{ recordBaseline, verifyChanges }, { owningTsconfig }] = await Promise.all([import("../edit/verify.js"), import("../query/checker-program.js")]);
    const envelope = await runEditOperation(ctx, "verify_changes", { operation: "verify-changes", route: "verify", files: args.files }, (oc) => {
      const input = { ...args, tsconfigOf: (file: string) => owningTsconfig(file, ctx.config.project_root) };
      return args.record_baseline ? recordBaseline(oc, input) : verifyChanges(oc, input);
    });
    const result = envelope.data as VerifyResult | { recorded: boolean };
    if (!("overall" in result) || result.overall === "pass") return envelope;
    throw new MastError(result.errorCode!, VERDICT_MESSAGES[result.overall](result), { details: { ...result, warnings: envelope.warnings } });
  },
});
