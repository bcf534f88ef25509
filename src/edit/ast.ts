// The AST operations of the hashpilot contract (ast capabilities, find-symbols, rename-symbol,
// replace-body, add-import, remove-import, insert-before/after) as functions to the contract's payloads: each finds the
// file's language spec, plans on the tree the edit transaction parsed (syntax/ast-walk.ts and the edit modules beside it), and
// writes through that transaction. A language without edit rules is UNSUPPORTED_OPERATION.
import { fitList } from "../base/budget.js";
import { MastError } from "../base/errors.js";
import { dirname, join } from "node:path";
import { AST_OPERATIONS, type EditRules, type ModuleSystem } from "../lang/edit-rules.js";
import { LANGUAGE_SPECS, extensionInfo, extensionOf } from "../lang/languages.js";
import { applyEdits, findSymbols as findInTree, type FoundSymbol, type TextEdit } from "../syntax/ast-walk.js";
import { planInsert, planReplaceBody } from "../syntax/declaration-edit.js";
import { importSystems, planAddImport, planRemoveImport } from "../syntax/import-edit.js";
import type { Tree } from "../syntax/parser.js";
import { planRename } from "../syntax/rename-edit.js";
import { gateParse } from "./gate.js";
import type { OpContext, OpResult, Warning } from "./op-result.js";
import { readEditable, sourceOrDiff } from "./operations.js";
import { readablePath } from "./paths.js";
import { fileHash, sourceOf, withSource, type EditableText } from "./text.js";
import { editTransaction, type Planned } from "./transaction.js";
import { readBytes } from "./writer.js";

export interface CapabilityEntry {
  lang: string;
  extensions: string[];
  operations: string[];
  limitations: string[];
}

/** Every language with AST edits: its extensions, the operations and what they cannot do — from the specs' edit rules. */
export function astCapabilities(): OpResult<CapabilityEntry[]> {
  const data = LANGUAGE_SPECS.flatMap((spec) =>
    spec.edits
      ? [{ lang: spec.name, extensions: Object.keys(spec.extensions).filter((e) => spec.extensions[e] !== null), operations: [...AST_OPERATIONS], limitations: [...spec.edits.limitations] }]
      : [],
  );
  return { data, warnings: [] };
}

/** The edit rules of a file's language; UNSUPPORTED_OPERATION when it has none. */
function rulesFor(path: string, operation: string): EditRules {
  const rules = path.endsWith(".d.ts") ? undefined : extensionInfo(path)?.spec.edits;
  if (!rules) {
    const supported = LANGUAGE_SPECS.flatMap((s) => (s.edits ? Object.keys(s.extensions) : [])).join(" ");
    throw new MastError("UNSUPPORTED_OPERATION", `ast ${operation} does not support ${path}: AST edits cover ${supported}`, { hint: "Edit it with replace-hash or diff apply." });
  }
  return rules;
}

export interface FindSymbolsData {
  path: string;
  symbols: FoundSymbol[];
  /** The walk stopped at the depth guard (SEARCH_TRUNCATED). */
  truncated: boolean;
  /** Declarations left out of `symbols` (over MAX_SYMBOLS or the answer cap). */
  omitted?: number;
}

/** Declarations find-symbols answers at most. */
export const MAX_SYMBOLS = 2000;
/** Unresolved accesses a rename lists at most (all are counted in unresolvedTotal). */
export const MAX_UNRESOLVED = 50;

/** Every declaration in a file, with 1-based and 0-based coordinates; truncated (with SEARCH_TRUNCATED) when the walk hit the depth guard. */
export function astFindSymbols(ctx: OpContext, file: string): OpResult<FindSymbolsData> {
  const { abs, real } = readablePath(file, ctx.boundary, ctx.cwd);
  const rules = rulesFor(abs, "find-symbols");
  const text = readEditable(real);
  const parsed = gateParse(abs, sourceOf(text));
  if (parsed === null || parsed.tree === null) throw new MastError("PARSE_ERROR", `${abs} could not be parsed in time`);
  const { symbols: all, truncated } = findInTree(rules, parsed.tree);
  const warnings: Warning[] = truncated ? [{ code: "SEARCH_TRUNCATED", message: `the file nests deeper than the depth guard; declarations below it are not listed` }] : [];
  if (parsed.error !== null) warnings.push({ code: "SEARCH_TRUNCATED", message: `the file has a syntax error at ${parsed.error}; declarations in the broken part may be missing` });
  const fit = fitList(all, MAX_SYMBOLS);
  if (fit.omitted > 0)
    warnings.push({
      code: "RESULT_TRUNCATED",
      message: `${fit.omitted} more declaration(s) were left out (at most ${MAX_SYMBOLS}, or the answer cap); read the file in parts with the index tools`,
      omitted: fit.omitted,
    });
  return { data: { path: abs, symbols: fit.items, truncated, ...(fit.omitted > 0 ? { omitted: fit.omitted } : {}) }, warnings };
}

export interface AstEditOptions {
  readonly dryRun: boolean;
  readonly includeSource: boolean;
  readonly allowParseErrors: boolean;
  /** rename-symbol: rename although some uses may be the variable or not (RenamePlan.uncertain), leaving those as they are. */
  readonly yes?: boolean;
  /** rename-symbol: what the project's index knows of other files' uses of the renamed declaration (tools/route-edit.ts asks it); without it they are not checked. */
  readonly crossFileUses?: (declaration: RenamedDeclaration) => Promise<CrossFileUses>;
}

/** A declaration a rename changed that other files may name: its file (absolute) and its name as the index has it (`Owner.member`). */
export interface RenamedDeclaration {
  readonly path: string;
  readonly name: string;
}

/** Other files' uses of a declaration, from the index, one per line: how many (of them verified calls), in how many files, the first of them (project-relative); or why they could not be counted. */
export type CrossFileUses =
  | { readonly total: number; readonly verified: number; readonly fileCount: number; readonly sites: ReadonlyArray<{ readonly path: string; readonly line: number }> }
  | { readonly unchecked: string };

/** Sites a CROSS_FILE_USES warning names at most. */
export const MAX_CROSS_FILE_SITES = 5;

export interface AstEditData {
  success: true;
  path: string;
  operation: string;
  changes: number;
  message: string;
  dryRun?: true;
  /** The file's hash after the edit (a next hash edit's expected_file_hash). */
  fileHash: string;
  /** The new-file lines the edit changed. */
  changedLines: Array<{ start: number; end: number }>;
  newSource?: string;
  diff?: string;
  sourceOmitted?: true;
  /** rename-symbol: accesses of the name it could not resolve (objects of unknown type, module paths), left as they were — the first MAX_UNRESOLVED. */
  unresolved?: Array<{ line: number; text: string }>;
  unresolvedTotal?: number;
}

/** One AST edit of one file through the edit transaction: `plan` turns the tree and text into text edits. */
function astEdit(
  ctx: OpContext,
  file: string,
  operation: string,
  options: AstEditOptions,
  plan: (rules: EditRules, tree: Tree, source: string, path: string) => { edits: TextEdit[]; changes: number; message: string; unresolved?: Array<{ line: number; text: string }> },
): Promise<OpResult<AstEditData>> {
  return editTransaction(
    ctx,
    file,
    { operation: `ast ${operation}`, dryRun: options.dryRun, gate: "ast", allowParseErrors: options.allowParseErrors },
    ({ path, text, tree }): Planned<AstEditData> => {
      const rules = rulesFor(path, operation);
      const before = text as EditableText;
      const source = sourceOf(before);
      const result = plan(rules, tree!, source, path);
      const { after, edited } = withSource(before, applyEdits(source, result.edits));
      const warnings: Warning[] = result.unresolved?.length
        ? [
            {
              code: "UNRESOLVED_REFERENCES",
              message: `${result.unresolved.length} use(s) of the name that could not be resolved were left as they are (lines ${result.unresolved
                .slice(0, MAX_UNRESOLVED)
                .map((u) => u.line)
                .join(", ")}${result.unresolved.length > MAX_UNRESOLVED ? ", …" : ""}); check them`,
              total: result.unresolved.length,
            },
          ]
        : [];
      return {
        after,
        edited,
        warnings,
        noop: result.edits.length === 0,
        data: {
          success: true,
          path,
          operation,
          changes: result.changes,
          message: options.dryRun ? `Would: ${result.message}` : result.message,
          ...(options.dryRun ? { dryRun: true as const } : {}),
          fileHash: fileHash(after),
          changedLines: edited,
          ...sourceOrDiff(path, before, after, options),
          ...(result.unresolved?.length ? { unresolved: result.unresolved.slice(0, MAX_UNRESOLVED), unresolvedTotal: result.unresolved.length } : {}),
        },
      };
    },
  );
}

/** Checks a new name against the language's identifier syntax. */
export function checkIdentifier(path: string, name: string): void {
  const spec = extensionInfo(path)?.spec;
  if (spec && !new RegExp(`^(?:${spec.identifier})$`).test(name)) throw new MastError("INVALID_ARGUMENT", `'${name}' is not an identifier in ${spec.name}`);
}

/**
 * A file-scoped rename; when what it renamed may be named by other files (a file-level declaration,
 * a member), CROSS_FILE_USES counts the uses the index knows there — still under the old name, for
 * `intent rename-exported-symbol` to reach — and CROSS_FILE_UNCHECKED says when they were not counted.
 */
export async function astRenameSymbol(ctx: OpContext, file: string, oldName: string, newName: string, line: number | null, options: AstEditOptions): Promise<OpResult<AstEditData>> {
  if (oldName === newName) throw new MastError("INVALID_ARGUMENT", "the old and new names are the same");
  let declaration: string | null = null;
  const result = await astEdit(ctx, file, "rename-symbol", options, (rules, tree) => {
    checkIdentifier(file, newName);
    const plan = planRename(rules, tree, oldName, newName, line);
    declaration = plan.edits.length > 0 ? plan.declaration : null;
    const unsure = plan.uncertain;
    if (unsure.length > 0 && !options.yes) {
      throw new MastError(
        "UNRESOLVED_REFERENCES",
        `${unsure.length} use(s) of '${oldName}' may or may not be this variable, which the text cannot tell (lines ${unsure
          .slice(0, MAX_UNRESOLVED)
          .map((u) => u.line)
          .join(", ")}${unsure.length > MAX_UNRESOLVED ? ", …" : ""}): a rename around them could change what the code does; nothing was renamed`,
        {
          details: { unresolved: unsure.slice(0, MAX_UNRESOLVED), unresolvedTotal: unsure.length },
        },
      );
    }
    const n = plan.edits.length;
    return { edits: plan.edits, changes: n, message: `Renamed ${n} occurrence${n === 1 ? "" : "s"} of '${oldName}' to '${newName}' (${plan.target})`, unresolved: plan.unresolved };
  });
  if (declaration === null) return result;
  const uses = options.crossFileUses ? await options.crossFileUses({ path: result.data.path, name: declaration }) : { unchecked: "no index was consulted" };
  return { ...result, warnings: [...result.warnings, ...crossFileWarnings(declaration, uses)] };
}

/** The warning a rename's cross-file uses make: none when no other file names the declaration. */
function crossFileWarnings(declaration: string, uses: CrossFileUses): Warning[] {
  const name = declaration.slice(declaration.lastIndexOf(".") + 1);
  if ("unchecked" in uses) {
    return [
      {
        code: "CROSS_FILE_UNCHECKED",
        message: `other files' uses of '${declaration}' were not checked (${uses.unchecked}): any that name '${name}' still do; mast_rename_impact lists them once the project is indexed`,
      },
    ];
  }
  if (uses.total === 0) return [];
  const examples = uses.sites.map((s) => `${s.path}:${s.line}`).join(", ");
  return [
    {
      code: "CROSS_FILE_USES",
      message: `${uses.total} use(s) in ${uses.fileCount} other file(s) (e.g. ${examples}) still name '${name}'; rename across files with \`hashpilot intent rename-exported-symbol\``,
      symbol: declaration,
      total: uses.total,
      verified: uses.verified,
      fileCount: uses.fileCount,
      sites: uses.sites,
    },
  ];
}

export function astReplaceBody(ctx: OpContext, file: string, symbol: string, body: string, options: AstEditOptions, line: number | null = null): Promise<OpResult<AstEditData>> {
  return astEdit(ctx, file, "replace-body", options, (rules, tree, source) => {
    const { edit, target } = planReplaceBody(rules, tree, source, symbol, body, line);
    return { edits: [edit], changes: 1, message: `Replaced body of '${target.qualifiedName}'` };
  });
}

/**
 * The module system an import is written in: fixed by the extension (`.mjs`, `.cjs`), else the one
 * the file's imports use, else the nearest package.json's `type` (Node's default, CommonJS, when
 * it has none). A file that uses both with nothing to settle it is MODULE_SYSTEM_MISMATCH.
 */
function moduleSystem(ctx: OpContext, path: string, rules: EditRules, tree: Tree): ModuleSystem {
  const fixed = rules.imports.moduleSystems;
  if (!fixed) return "esm";
  const ext = extensionOf(path) ?? "";
  if (fixed.esm.includes(ext)) return "esm";
  if (fixed.cjs.includes(ext)) return "cjs";
  const used = importSystems(rules, tree);
  const declared = packageType(ctx, path);
  if (used.size === 1) return [...used][0]!;
  if (used.size === 2 && declared === null) {
    throw new MastError("MODULE_SYSTEM_MISMATCH", `${path} uses both require and import, and neither its extension nor a package.json "type" says which system Node loads it with`, {
      hint: 'Rename the file .mjs (ES module) or .cjs (CommonJS), or set "type": "module" or "commonjs" in its package.json, then add the import again.',
    });
  }
  return declared ?? "cjs";
}

/** The `type` of the nearest package.json between the file and the project root ("module" → esm, "commonjs" → cjs), or null. */
function packageType(ctx: OpContext, path: string): ModuleSystem | null {
  for (let dir = dirname(path); dir.startsWith(ctx.boundary.root); dir = dirname(dir)) {
    const bytes = readBytes(join(dir, "package.json"), { unchecked: true });
    if (bytes !== null) {
      try {
        const type = (JSON.parse(bytes.toString("utf8")) as { type?: unknown }).type;
        return type === "module" ? "esm" : type === "commonjs" ? "cjs" : null;
      } catch {
        return null;
      }
    }
    if (dir === ctx.boundary.root || dirname(dir) === dir) break;
  }
  return null;
}

export function astAddImport(ctx: OpContext, file: string, spec: string, options: AstEditOptions): Promise<OpResult<AstEditData>> {
  return astEdit(ctx, file, "add-import", options, (rules, tree, source, path) => {
    const plan = planAddImport(rules, tree, source, spec, moduleSystem(ctx, path, rules, tree));
    return { edits: plan.edits, changes: plan.edits.length, message: plan.message };
  });
}

export function astRemoveImport(ctx: OpContext, file: string, spec: string, options: AstEditOptions): Promise<OpResult<AstEditData>> {
  return astEdit(ctx, file, "remove-import", options, (rules, tree, source) => {
    const plan = planRemoveImport(rules, tree, source, spec);
    return { edits: plan.edits, changes: plan.edits.length, message: plan.message };
  });
}

export function astInsert(
  ctx: OpContext,
  file: string,
  symbol: string,
  content: string,
  where: "before" | "after",
  options: AstEditOptions,
  line: number | null = null,
): Promise<OpResult<AstEditData>> {
  return astEdit(ctx, file, `insert-${where}`, options, (rules, tree, source) => {
    const { edit, target } = planInsert(rules, tree, source, symbol, content, where, line);
    return {
      edits: [edit],
      changes: 1,
      message: `Inserted ${content.split("\n").length} line(s) ${where} '${target.qualifiedName}' (${target.anchor.type} at line ${target.anchor.startPosition.row + 1})`,
    };
  });
}
