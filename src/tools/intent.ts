// intent in the `edit` toolset (hashpilot `intent '<json>'`): one editing intent with its whole
// blast radius. rename-exported-symbol is planned here on the index — the declaration
// (query/targets.ts findTarget), the imports, barrels and namespace uses of the name
// (query/rename-plan.ts), the verified callers that must all be reached, the potential matches
// listed for review — after the files it names are refreshed, and carried out by edit/intent.ts
// (one changeSet, verification, rollback). A result other than success is the error its failure
// names, with the plan and the execution in the details.
import { resolve } from "node:path";
import { projectPath } from "../base/paths.js";
import { MastError } from "../base/errors.js";
import { DEFAULT_VERIFY_TIMEOUT_MS } from "../edit/config.js";
import type { IntentResult, PlanGap, RenamePlanInput } from "../edit/intent.js";
import { extensionInfo } from "../lang/languages.js";
import { callersOf, withContexts } from "../query/callers.js";
import { notFound } from "../query/targets.js";
import { SourceLines } from "../query/source.js";
import { declaredParams, importRecorded, memberRisks, renameSites, type RenameSite } from "../query/rename-plan.js";
import type { ToolContext } from "./context.js";
import { DESTRUCTIVE, PROVENANCE_KEYS, defineTool } from "./define.js";
import { runEditOperation } from "./edit-call.js";
import { busyReason, freshRows } from "./fresh.js";
import { ENVELOPE_OUTPUT } from "./outputs.js";
import { z } from "./schema.js";
import type { EditRules } from "../lang/edit-rules.js";
import type { Tree } from "../syntax/parser.js";
// Loaded with the reference tools anyway (syntax/navigate.ts); tree-sitter itself loads at the first parse.
import { planAddParameter as planAddParameterEdits } from "../syntax/add-parameter.js";
import { planExportRename } from "../syntax/rename-edit.js";

const RenameIntent = z
  .object({
    operation: z.literal("rename-exported-symbol"),
    symbol: z.string().min(1).max(200),
    newName: z.string().min(1).max(200),
    file: z.string().min(1).max(4096).optional(),
  })
  .strict();

const AddParameterIntent = z
  .object({
    operation: z.literal("add-parameter"),
    symbol: z.string().min(1).max(200),
    param: z.object({ name: z.string().min(1).max(200), type: z.string().min(1).max(1000).optional(), default: z.string().min(1).max(10_000).optional() }).strict(),
    file: z.string().min(1).max(4096).optional(),
  })
  .strict();
type Intent = z.infer<typeof RenameIntent> | z.infer<typeof AddParameterIntent>;

/** Lines naming the symbol a rename plan may list for review, at most. */
const REVIEW_LIMIT = 1_000;

function parseIntent(text: string): Intent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new MastError("INVALID_ARGUMENT", `the intent is not JSON: ${(err as Error).message}`, {
      hint: `e.g. '{"operation":"rename-exported-symbol","symbol":"compose","newName":"composeMiddleware"}'`,
    });
  }
  const op = (value as { operation?: unknown } | null)?.operation;
  if (op === "remove-parameter") {
    throw new MastError("UNSUPPORTED_OPERATION", "remove-parameter is not implemented", { hint: "Remove a parameter with `ast replace-body` on the signature plus `diff apply` at each call site." });
  }
  if (op !== "rename-exported-symbol" && op !== "add-parameter") {
    throw new MastError("UNSUPPORTED_OPERATION", `intent ${JSON.stringify(op)} is not supported: the operations are add-parameter and rename-exported-symbol`);
  }
  const parsed = (op === "add-parameter" ? AddParameterIntent : RenameIntent).safeParse(value);
  if (!parsed.success) throw new MastError("INVALID_ARGUMENT", `invalid intent: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(intent)"}: ${i.message}`).join("; ")}`);
  return parsed.data;
}

/**
 * What both plans read from the index, once the files it names are fresh: the declaration (one, or
 * refused), its callers, its rename sites, its parameters; with `docComments`, the comment lines
 * naming it among the potential matches (query/potential-sites.ts PotentialOptions).
 */
async function indexedTarget(ctx: ToolContext, symbol: string, file: string | undefined, options: { docComments?: boolean } = {}) {
  const root = ctx.config.project_root;
  const filePath = file ? projectPath(resolve(ctx.cwd, file), root) : null;
  const db = ctx.store().db;
  const { rows: answer, busy } = await freshRows(
    ctx,
    () => {
      const callers = callersOf(db, root, { symbol, filePath, transitive: false, potentialLimit: REVIEW_LIMIT, docComments: options.docComments ?? false });
      const first = callers.target.sites[0];
      return { ...callers, planned: renameSites(db, callers.target), params: first ? declaredParams(db, first.id) : null };
    },
    (a) => [...a.target.sites.map((s) => s.path), ...a.planned.sites.map((s) => s.file_path), ...a.verified.map((v) => v.file_path)],
  );
  // A plan over rows older than their files could miss or misplace a site: refused, nothing written.
  if (busy.size > 0)
    throw new MastError("LOCK_HELD", `the intent was not planned: ${busyReason(busy)}`, { hint: "Retry once the index run or the other writer has finished (mast status shows a run in progress)." });
  const decl = answer.target.sites[0];
  if (!decl) throw new MastError("SYMBOL_NOT_FOUND", `no declaration named '${symbol}' is indexed`, { details: notFound(db, symbol) });
  if (answer.target.sites.length > 1 && !filePath) {
    throw new MastError("AMBIGUOUS_SYMBOL", `'${symbol}' is declared ${answer.target.sites.length} times: ${answer.target.sites.map((s) => `${s.path}:${s.line}`).join(", ")}`, {
      hint: 'Name the declaring file: "file" in the intent.',
    });
  }
  return { ...answer, verified: withContexts(answer.verified, new SourceLines(root)), decl, db, abs: (p: string) => resolve(root, p) };
}

type Indexed = Awaited<ReturnType<typeof indexedTarget>>;

/**
 * Refuses a rename the declaration's language has no AST edits for, a new name that is no
 * identifier there, one that changes what its spelling exports (Go's capital), or the name it has.
 */
async function checkRename(decl: Indexed["decl"], newName: string): Promise<void> {
  const rules = extensionInfo(decl.path)?.spec.edits;
  if (!rules)
    throw new MastError(
      "UNSUPPORTED_OPERATION",
      `a cross-file rename of a declaration in ${decl.path} is not supported: its language has no AST edits (TypeScript, JavaScript, Python, Go and Rust do)`,
      { hint: "Rename it by hand over the lines mast_rename_impact lists, with `diff apply`." },
    );
  const { checkIdentifier } = await import("../edit/ast.js");
  checkIdentifier(decl.path, newName);
  const oldName = decl.name.slice(decl.name.lastIndexOf(".") + 1);
  const exported = rules.exportedByName?.(oldName);
  if (exported !== undefined && exported !== rules.exportedByName!(newName)) {
    throw new MastError(
      "INVALID_ARGUMENT",
      `'${oldName}' is ${exported ? "exported" : "unexported"} by its spelling and '${newName}' would make it ${exported ? "unexported" : "exported"}: the rename keeps what other packages can use`,
      { hint: `Pick a name that starts with a ${exported ? "capital" : "lower-case"} letter.` },
    );
  }
  if (newName === oldName) throw new MastError("INVALID_ARGUMENT", `'${newName}' is the name '${decl.name}' already has`);
}

/** The sites to edit, by file: the planned rename sites and, for a member, its verified calls in other files. */
function sitesByFile({ planned, verified, potential, decl }: Pick<Indexed, "planned" | "verified" | "potential" | "decl">, member: boolean): Map<string, RenameSite[]> {
  const byFile = new Map<string, RenameSite[]>();
  for (const site of planned.sites) byFile.set(site.file_path, [...(byFile.get(site.file_path) ?? []), site]);
  // A member's verified calls in other files: the access on that line is renamed (one access of the name there, or it is a gap).
  if (member)
    for (const v of verified) if (v.file_path !== decl.path) byFile.set(v.file_path, [...(byFile.get(v.file_path) ?? []), { file_path: v.file_path, line: v.line, kind: "member", local: null }]);
  // A namespace or package site in a file that names the symbol nowhere has nothing to edit (every `import httpx` reaches
  // `httpx._utils`): not planned, so the impact counts what can change — unless the cap left lines naming it unlisted.
  if (potential && potential.total === potential.matches.length) {
    const naming = new Set([decl.path, ...potential.matches.map((m) => m.file_path), ...verified.map((v) => v.file_path)]);
    for (const [path, sites] of [...byFile]) {
      const kept = naming.has(path) ? sites : sites.filter((site) => site.kind !== "namespace" && site.kind !== "package");
      if (kept.length === 0) byFile.delete(path);
      else byFile.set(path, kept);
    }
  }
  return byFile;
}

/**
 * Takes out of `byFile` the files the rename cannot edit — in a language without a cross-file
 * rename (unparsed), or binding the name from more than one import (ambiguous) — as gaps.
 */
function setAsideUneditable(byFile: Map<string, RenameSite[]>, name: string, abs: Indexed["abs"]): { gaps: PlanGap[]; unparsed: number; ambiguous: number } {
  const gaps: PlanGap[] = [];
  let ambiguous = 0;
  let unparsed = 0;
  for (const [path, sites] of [...byFile]) {
    if (!extensionInfo(path)?.spec.edits) {
      unparsed += 1;
      byFile.delete(path);
      gaps.push({
        file: abs(path),
        operation: "rename",
        reason: `${path} imports '${name}' but its language has no cross-file rename`,
        resolution: `Edit ${path} yourself with \`diff apply\`.`,
      });
    } else if (sites.filter((s) => s.kind === "import" && s.local === name).length > 1) {
      ambiguous += 1;
      byFile.delete(path);
      gaps.push({
        file: abs(path),
        operation: "rename",
        reason: `${path} binds '${name}' from more than one import: which module's symbol each use means is not certain`,
        resolution: `Rename its uses yourself, or remove the duplicate import first.`,
      });
    }
  }
  return { gaps, unparsed, ambiguous };
}

/** An import of the name the index holds no row for (inside a function or a block): a certain use no edit reaches, as gaps. */
function unrecordedImports({ potential, decl, db, abs }: Pick<Indexed, "potential" | "decl" | "db" | "abs">, importLines: ReadonlySet<string>): PlanGap[] {
  const gaps: PlanGap[] = [];
  const importLine = new Map<string, RegExp | null>();
  for (const m of potential?.matches ?? []) {
    const spec = extensionInfo(m.file_path)?.spec;
    const re = spec ? (importLine.get(spec.name) ?? importLine.set(spec.name, new RegExp(spec.importLine)).get(spec.name)!) : null;
    if (!re || importLines.has(`${m.file_path}:${m.line}`) || !re.test(m.context.trim()) || importRecorded(db, m.file_path, m.line)) continue;
    gaps.push({
      file: abs(m.file_path),
      operation: "rename-import",
      reason: `line ${m.line} imports '${decl.name}' (${m.context.trim().slice(0, 120)}) where the index records no import (inside a function or a block): the rename does not reach it`,
      resolution: `Edit line ${m.line} of ${m.file_path} and the uses after it yourself.`,
    });
  }
  return gaps;
}

/**
 * One file's rename edits on its tree, and the uses they leave: a verified call on a line no edit
 * reaches would be left calling the old name (a module reached in a way the plan does not follow).
 */
function renameEdits(name: string, newName: string, path: string, sites: readonly RenameSite[], verified: Indexed["verified"], member: boolean): RenamePlanInput["files"][number]["edit"] {
  return (rules: EditRules, tree: Tree) => {
    const plans = sites.map((s) => planExportRename(rules, tree, name, newName, { kind: s.kind, line: s.line, local: s.local }));
    const edits = plans.flatMap((p) => p.edits);
    const reached = new Set(edits.map((e) => tree.rootNode.descendantForIndex(e.start).startPosition.row + 1));
    const named = new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`);
    const missed = member
      ? []
      : verified
          .filter((v) => v.file_path === path && !reached.has(v.line) && named.test(v.context))
          .map((v) => ({ line: v.line, text: `${v.context.trim().slice(0, 160)} (a verified call the rename does not reach)` }));
    return { edits, unresolved: [...plans.flatMap((p) => p.unresolved), ...missed] };
  };
}

/** The rename plan on the index as it is once the files it names are fresh. */
async function planRename(ctx: ToolContext, intent: z.infer<typeof RenameIntent>): Promise<RenamePlanInput> {
  const root = ctx.config.project_root;
  // A member's doc mentions are its bare name, as common as `open`: not listed.
  const indexed = await indexedTarget(ctx, intent.symbol, intent.file, { docComments: !intent.symbol.includes(".") });
  const { target, verified, potential, planned, decl, db, abs } = indexed;
  await checkRename(decl, intent.newName);
  const member = decl.name.includes(".");
  const byFile = sitesByFile(indexed, member);
  const { gaps: unresolved, unparsed, ambiguous } = setAsideUneditable(byFile, decl.name, abs);
  const mentioning = new Set([...(potential?.matches ?? []).map((m) => m.file_path), ...verified.map((v) => v.file_path)]);
  for (const u of planned.unplanned)
    if (!u.mentionOnly || mentioning.has(u.file_path))
      unresolved.push({ file: abs(u.file_path), operation: "rename", reason: `line ${u.line}: ${u.reason}`, resolution: `Edit line ${u.line} of ${u.file_path} yourself.` });
  // A verified call site the planned edits do not reach would be left calling the old name.
  for (const v of verified) {
    if (!byFile.has(v.file_path) && !unresolved.some((u) => u.file === abs(v.file_path))) {
      unresolved.push({
        file: abs(v.file_path),
        operation: "rename-call-site",
        reason: `the verified call at ${v.file_path}:${v.line} (${v.resolution}) is reached by no planned edit`,
        resolution: `Edit it yourself after the rename.`,
      });
    }
  }
  const importLines = new Set(planned.sites.map((s) => `${s.file_path}:${s.line}`));
  let review = (potential?.matches ?? []).filter((m) => !importLines.has(`${m.file_path}:${m.line}`)).map((m) => ({ file: abs(m.file_path), line: m.line, context: m.context }));
  unresolved.push(...unrecordedImports(indexed, importLines));
  // A member is renamed in its own file only: what names it elsewhere, and the types it shares it with, are gaps, not lines to skim.
  if (member) {
    for (const risk of memberRisks(db, target))
      unresolved.push({ file: abs(decl.path), operation: "rename-member", reason: risk, resolution: "Rename the other declarations too (one intent each, with --yes), or rename by hand." });
    const calls = new Set(verified.map((v) => `${abs(v.file_path)}:${v.line}`));
    const elsewhere = review.filter((r) => r.file !== abs(decl.path) && !calls.has(`${r.file}:${r.line}`));
    for (const r of elsewhere)
      unresolved.push({
        file: r.file,
        operation: "rename-member-access",
        reason: `line ${r.line} names '${decl.name.slice(decl.name.lastIndexOf(".") + 1)}' (${r.context.slice(0, 120)}): an access the member rename does not follow`,
        resolution: `Check line ${r.line} of ${r.file.slice(root.length + 1)} and edit it yourself.`,
      });
    review = review.filter((r) => r.file === abs(decl.path));
  }
  const count = (k: RenameSite["kind"]) => [...byFile.values()].flat().filter((s) => s.kind === k).length;
  return {
    intent,
    operation: "rename-exported-symbol",
    name: decl.name,
    definition: { file: abs(decl.path), line: decl.line, kind: decl.kind },
    files: [...byFile].map(([path, sites]) => ({ file: abs(path), edit: renameEdits(decl.name, intent.newName, path, sites, verified, member) })),
    unresolved,
    reconciliation: { resolved: verified.length + count("import") + count("export_from") + count("namespace"), unresolved: unparsed, ambiguous },
    review,
    reviewOmitted: potential ? potential.total - potential.matches.length : 0,
    impact: `${byFile.size} file(s): the declaration, ${count("import")} import(s), ${count("export_from")} re-export(s), ${count("namespace")} namespace import(s); ${verified.length} verified call site(s)`,
  };
}

/** The add-parameter plan: the declaration's parameter list, and the argument at every verified call site (files refreshed first). */
async function planAddParameter(ctx: ToolContext, intent: z.infer<typeof AddParameterIntent>): Promise<RenamePlanInput> {
  const { verified, potential, planned, params, decl, abs } = await indexedTarget(ctx, intent.symbol, intent.file);
  if (!extensionInfo(decl.path)?.spec.edits?.parameterList)
    throw new MastError("UNSUPPORTED_OPERATION", `add-parameter of a declaration in ${decl.path} is not supported: TypeScript and JavaScript so far`, {
      hint: "Edit the signature with `ast replace-body` and the call sites mast_callers lists with `diff apply`.",
    });
  const { checkIdentifier } = await import("../edit/ast.js");
  checkIdentifier(decl.path, intent.param.name);
  if (params?.some((p) => p.name === intent.param.name)) throw new MastError("INVALID_ARGUMENT", `'${decl.name}' already has a parameter '${intent.param.name}'`);
  const member = decl.name.slice(decl.name.lastIndexOf(".") + 1);
  const typed = intent.param.type !== undefined && /\.[cm]?tsx?$/.test(decl.path);
  const paramText = `${intent.param.name}${typed ? `: ${intent.param.type}` : ""}`;
  const unresolved: PlanGap[] = [];
  // The names a call of it goes by in each file: its own, and the local names imports give it there.
  const names = new Map<string, Set<string>>();
  for (const s of planned.sites) if (s.kind === "import" && s.local) names.set(s.file_path, new Set([...(names.get(s.file_path) ?? []), s.local]));
  const rows = new Map<string, number[]>([[decl.path, []]]);
  for (const v of verified) rows.set(v.file_path, [...(rows.get(v.file_path) ?? []), v.line]);
  if (intent.param.default === undefined) {
    for (const [path, lines] of rows) {
      if (lines.length === 0) continue;
      unresolved.push({
        file: abs(path),
        operation: "insert-call-arg",
        reason: `no default given for '${intent.param.name}', so the argument to pass at each call site cannot be computed`,
        resolution: `Re-run with "param": {"name": "${intent.param.name}", "default": "<value>"}, or edit the call sites in ${path} yourself with \`diff apply\`.`,
      });
    }
  }
  // A call the index could not verify would be left without the new argument.
  const importLines = new Set(planned.sites.map((s) => `${s.file_path}:${s.line}`));
  const verifiedLines = new Set(verified.map((v) => `${v.file_path}:${v.line}`));
  const callShaped = new RegExp(`(?<![\\w$])${member.replace(/\$/g, "\\$")}\\s*\\(`);
  const review: RenamePlanInput["review"][number][] = [];
  for (const m of potential?.matches ?? []) {
    if (verifiedLines.has(`${m.file_path}:${m.line}`) || importLines.has(`${m.file_path}:${m.line}`) || (m.file_path === decl.path && m.line === decl.line)) continue;
    if (callShaped.test(m.context))
      unresolved.push({
        file: abs(m.file_path),
        operation: "insert-call-arg",
        reason: `line ${m.line} may call '${member}' (${m.context.slice(0, 120)}) but the index could not verify it`,
        resolution: `Check line ${m.line} of ${m.file_path} and pass the argument yourself.`,
      });
    else review.push({ file: abs(m.file_path), line: m.line, context: m.context });
  }
  const arity = params?.length ?? null;
  return {
    intent,
    operation: "add-parameter",
    name: decl.name,
    definition: { file: abs(decl.path), line: decl.line, kind: decl.kind },
    files: [...rows].map(([path, lines]) => ({
      file: abs(path),
      edit: (rules: EditRules, tree: Tree) =>
        planAddParameterEdits(
          rules,
          tree,
          { query: decl.name, line: decl.line, declare: path === decl.path, rows: lines, names: [member, ...(names.get(path) ?? [])], arity },
          paramText,
          intent.param.default ?? null,
        ),
    })),
    unresolved,
    reconciliation: { resolved: verified.length, unresolved: 0, ambiguous: 0 },
    review,
    reviewOmitted: potential ? potential.total - potential.matches.length : 0,
    impact: `the declaration in ${decl.path} gets '${paramText}'; ${verified.length} verified call site(s) in ${rows.size} file(s) get ${intent.param.default === undefined ? "no argument (no default given)" : `'${intent.param.default}'`}`,
  };
}

export const intentTool = defineTool({
  name: "intent",
  toolset: "edit",
  source: { defined: "tools/intent.ts", answers: "edit/intent.ts" },
  cli: [
    {
      name: "intent",
      summary: "One editing intent with its whole blast radius (rename-exported-symbol, add-parameter), planned on the index, verified, rolled back on failure.",
      positionals: ["intent"],
      flags: { "no-verify": "!verify", "no-revert": "!revert", timeout: "timeout_ms" },
    },
  ],
  title: "Project-wide edit intent",
  description: 'Across files: rename-exported-symbol {"operation","symbol","newName"} or add-parameter {…,"param":{name,type,default}}.',
  details:
    'The intent is JSON: {"operation":"rename-exported-symbol","symbol":"compose","newName":"composeMiddleware","file"?:"src/compose.ts"}. The plan comes from the mast index (its files refreshed first): the declaring file (the declaration, its uses and `export { name }`), every named import of it (with no alias the binding and its uses, with one the imported name only), every barrel\'s `export { name } from` and, through barrels that pass the name on, their importers; `ns.name` through namespace imports and modules made names of others (`export * as ns`, Rust\'s `pub mod`, also in chains `a::b::name`). Python: `from m import name [as y]`, a package\'s (or star) imports passing it on, `import a.b.m` / `import m as x` / `from pkg import m` attribute uses, `__all__` strings. Go: the package\'s other files (unqualified uses), `pkg.Name` in expressions and types; a new name that changes exportedness (its capital) is INVALID_ARGUMENT. Rust: `use` paths and lists, `{self as m}`, `pub use`, `crate::`/module paths. A member (`Class.method`) is renamed in its own file and at its verified calls in other files (the one access of the name on that line); other lines naming it elsewhere are plan.unresolved. ' +
    "plan.unresolved lists what it cannot do (a require destructuring, a module name re-exported again, a file binding the name twice, a language without AST edits, a verified call site or call line no edit reaches) and refuses the intent (UNSUPPORTED_OPERATION) unless yes; plan.review lists the lines naming the symbol that no planned edit covers (doc comments naming it too: `{@link name}`, `@see name`) — never edited; impactSummary counts exactly what it lists, and reviewOmitted what the cap left out. dry_run answers the plan and each file's diff. " +
    "Each file is one AST-gated edit in one changeSet (undo takes it back); after all steps the edited files are verified (auto-detected checks; verify: false skips it); a failed step (skipped verification) or failed verification rolls every file back (execution.reverted, revertReason), unless revert: false for verification; a rollback that cannot write a file back is ROLLBACK_INCOMPLETE with unrevertedFiles. A verification timeout keeps the edit (VERIFY_TIMEOUT). " +
    'add-parameter ({"operation":"add-parameter","symbol":"f","param":{"name":"x","type":"string","default":"\'a\'"}}) appends the parameter to the declaration and param.default as the last argument of every verified call (a call with another argument count than the parameters before it, a spread, or an unverified call-shaped match is plan.unresolved); without a default the plan is refused unless yes, which adds only the parameter. remove-parameter is UNSUPPORTED_OPERATION.',
  unlisted: ["yes", "timeout_ms", ...PROVENANCE_KEYS],
  input: () =>
    z
      .object({
        intent: z
          .string()
          .min(2)
          .max(64 * 1024)
          .describe('JSON, e.g. {"operation":"rename-exported-symbol","symbol":"f","newName":"g"}.'),
        dry_run: z.boolean().default(false),
        yes: z.boolean().default(false).describe("Apply despite plan.unresolved."),
        verify: z.boolean().default(true),
        revert: z.boolean().default(true).describe("Roll back on failed verification."),
        timeout_ms: z.number().int().min(100).max(3_600_000).default(DEFAULT_VERIFY_TIMEOUT_MS),
        actor: z.string().min(1).max(200).optional(),
        task_id: z.string().min(1).max(200).optional(),
        reason: z.string().min(1).max(2000).optional(),
      })
      .strict(),
  output: ENVELOPE_OUTPUT,
  annotations: { ...DESTRUCTIVE, openWorldHint: true },
  handler: async (ctx, args) => {
    const intent = parseIntent(args.intent);
    const plan = intent.operation === "add-parameter" ? await planAddParameter(ctx, intent) : await planRename(ctx, intent);
    // The intent runner (AST edits, the writer, verification), loaded by the first intent.
    const [{ runIntent }, { owningTsconfig }] = await Promise.all([import("../edit/intent.js"), import("../query/checker-program.js")]);
    const envelope = await runEditOperation(
      ctx,
      "intent",
      { operation: `intent ${intent.operation}`, route: "intent", files: plan.files.map((f) => f.file), actor: args.actor, task_id: args.task_id, reason: args.reason },
      (oc) =>
        runIntent(oc, plan, {
          dryRun: args.dry_run,
          yes: args.yes,
          verify: args.verify,
          revert: args.revert,
          timeoutMs: args.timeout_ms,
          tsconfigOf: (file) => owningTsconfig(file, ctx.config.project_root),
        }),
    );
    const result = envelope.data as IntentResult;
    if (!result.failure) return envelope;
    const { failure, ...rest } = result;
    throw new MastError(failure.code, failure.message, { details: { ...rest, warnings: envelope.warnings } });
  },
});
