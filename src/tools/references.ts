// Navigation by position: mast_definition (the declaration a name at a position resolves to) and
// mast_references (every reference to one declaration, fields and properties included, verified
// and potential, each line marked read, write or call). Both are read plans: the registry refreshes
// the files they name just in time (docs/freshness.md).
import { fitList } from "../base/budget.js";
import { MastError } from "../base/errors.js";
import { projectPath } from "../base/paths.js";
import { mentionPattern, siteText } from "../query/mentions.js";
import { notFound } from "../query/targets.js";
import { MAX_PARSED_FILES, PARSE_BUDGET_MS, definitionAt, referenceTargetAt, referenceTargetNamed, referencesTo, type ReferenceLine, type ReferenceTarget } from "../query/references.js";
import { NAME_CANDIDATES } from "../query/name-resolver.js";
import { isIndexEmpty } from "../query/search.js";
import type { ToolContext } from "./context.js";
import { READ_ONLY, defineTool } from "./define.js";
import { byFile, cutOf, fileOf } from "./graph.js";
import { NOT_FOUND, READ_MARKS, SITES_BY_FILE, open } from "./outputs.js";
import { nameInput, pathInput, z } from "./schema.js";

const DEFINED = "tools/references.ts";

const DEFINITION = open({ file_path: z.string(), line: z.number().int().min(1), column: z.number().int().min(1).nullable(), name: z.string(), kind: z.string(), signature: z.string().nullable() });
const RESOLUTION = z.enum(["scope", "import", "type", "checker", "name"]);
const position = { line: z.number().int().min(1), column: z.number().int().min(1) };

/** mast_references' default caps, as mast_callers' (verified sites, potential lines). */
const VERIFIED_LIMIT = 200;
const POTENTIAL_LIMIT = 50;
/** The bytes each list may take on the wire (about 1 MiB of JSON each). */
const LIST_BUDGET_BYTES = 2 * 1024 * 1024;

/** The `limit` items of `list` after the first `offset`. */
function page<T>(list: readonly T[], offset: number, limit: number): readonly T[] {
  return list.slice(offset, offset + limit);
}

export const definitionTool = defineTool({
  name: "mast_definition",
  source: { defined: DEFINED, answers: "query/references.ts" },
  title: "Go to definition",
  description: "Go to definition: the declaration the name at file_path:line:column resolves to, with its signature.",
  details:
    "The declaration the name at a position resolves to, as an editor's go-to-definition: a local binding (parameter, variable, nested function) answers its own line; an import follows the module's re-exports and barrels to the declaration (a module outside the project, a use of a namespace import or of a Go package name: the import itself, kind import, as the TypeScript compiler answers; the namespace binding itself or a module imported by name: the module, kind module); " +
    "a member (`obj.member`) resolves through the object's type where the file says it (`this`/`self`, an annotated or constructed name, the type itself, base classes followed) or through the call graph's edge for a call on that line (checker when the opt-in checker pass proved it); " +
    "fields and properties (declared, or first assigned through this/self) are answered as well as methods. Otherwise the declarations of the name (and members `X.name`) are candidates, resolution name, at most " +
    `${NAME_CANDIDATES} (definitions_truncated counts the rest). ` +
    "Each definition has file_path, line and column of its name, name (Owner.member for a member), kind and its signature line. A position on no name is NO_NAME_AT_POSITION; a line or column past the end is INVALID_ARGUMENT. The caret may also sit just after the name.",
  input: () => z.object({ file_path: pathInput(), ...position }).strict(),
  output: open({
    name: z.string(),
    at: open(position),
    resolution: RESOLUTION,
    definitions: z.array(DEFINITION),
    definitions_truncated: z.number().int().optional(),
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  read: {
    rows: (ctx, args, db) => definitionAt(db, ctx.config.project_root, projectPath(args.file_path, ctx.config.project_root), { line: args.line, column: args.column }),
    files: (ctx, args, a) => [projectPath(args.file_path, ctx.config.project_root), ...a.definitions.map((d) => d.file_path)],
    answer: (_ctx, _args, definition) => definition,
  },
});

/** Reference lines by file, each `"LINE MARKS: text"` then ` [resolution]` unless the file states one for all. */
function sitesByFile(lines: readonly ReferenceLine[], name: string): Array<{ file_path: string; is_test?: true; resolution?: string; sites: string[] }> {
  const named = mentionPattern([name]);
  return byFile(lines).map(({ file_path, entries }) => {
    const first = entries[0]!.resolution;
    const shared = entries.every((e) => e.resolution === first) ? first : undefined;
    const sites = entries.map(
      (e) => `${e.line}${e.marks.length > 0 ? ` ${e.marks.join(",")}` : ""}: ${siteText(e.context, named)}${shared === undefined && e.resolution !== undefined ? ` [${e.resolution}]` : ""}`,
    );
    return { ...fileOf(file_path), ...(shared === undefined ? {} : { resolution: shared }), sites };
  });
}

/** What a references query names: a symbol's declaration (null when none), or the target of the name at a position. */
function targetOf(ctx: ToolContext, args: { symbol?: string | null; file_path?: string | null; line?: number | null; column?: number | null }): ReferenceTarget | null {
  const db = ctx.store().db;
  const root = ctx.config.project_root;
  const path = args.file_path ? projectPath(args.file_path, root) : null;
  if (args.symbol) return referenceTargetNamed(db, root, args.symbol, path);
  if (path === null || args.line == null || args.column == null) {
    throw new MastError("INVALID_ARGUMENT", "mast_references takes a symbol, or a position: file_path, line and column", {
      hint: "Pass symbol (a name or Owner.member), or file_path with line and column (1-based).",
      usage: true,
    });
  }
  return referenceTargetAt(db, root, path, { line: args.line, column: args.column });
}

export const referencesTool = defineTool({
  name: "mast_references",
  source: { defined: DEFINED, answers: "query/references.ts" },
  title: "References of a declaration",
  description: "References to any declaration (fields too) by symbol or file_path:line:column, verified or potential, read/write marked.",
  details:
    "Every reference to one declaration (a function, class, method, field, property, variable or parameter), named by symbol (a name or Owner.member; file_path picks among same-named ones) or by the name at file_path, line and column (1-based; resolved as mast_definition does, its resolution given). " +
    "Each line naming it is classified by resolving its occurrences as mast_definition does: verified (an occurrence resolves to the declaration — by the file's scopes, an import, the object's known type — or the call graph links a call there; safe to act on), potential (nothing proves what it names: an object of unknown type, a file not parsed — review), " +
    "or counted in summary: elsewhere_omitted (every occurrence resolves to another declaration), not_code_omitted (it is named only in comments or strings) and other_language_omitted (lines in files of another language; TypeScript and JavaScript are one). A local (a parameter, a variable in a function) and a namespace import's name (`z` of `import * as z`: its uses, as the compiler answers an alias) are looked for in their own file only. " +
    "A position whose name nothing declares (a property of an inferred type) answers declaration null with every line naming it potential; a declaration chosen by name is a guess too, so an occurrence resolving to another member stays potential. Potential lines come likeliest first: occurrences of the target's sort (member accesses for a member), then the declaration's and the position's files, importers and directory (for a guess: the files nearest the position). " +
    'Sites are grouped by file ({file_path, is_test?, resolution?, sites}), each one line of text "LINE MARKS: text": marks are declaration, read, write (an assignment\'s target, ++, a destructuring assignment, o.f = …) and call, comma-separated; [resolution] ends a verified site unless its file states one for all. ' +
    `Files are parsed the declaring file first, then the files importing it; past ${MAX_PARSED_FILES} parsed files or ${PARSE_BUDGET_MS} ms of parsing (or where a language has no binding rules) lines are potential unmarked, counted in summary.unparsed_files. ` +
    `Both lists are capped (verified_limit, default ${VERIFIED_LIMIT}; potential_limit, default ${POTENTIAL_LIMIT}); a cut is counted in summary (verified_total/verified_truncated, potential_total/potential_truncated) and summary.next holds the arguments that list the rest (verified_offset, potential_offset, and parse_until when the parse time budget cut the files parsed, so every page classifies alike; the order is stable while the index is).`,
  unlisted: ["verified_limit", "verified_offset", "potential_offset", "parse_until"],
  input: () =>
    z
      .object({
        symbol: nameInput().nullish(),
        file_path: pathInput().nullish(),
        line: z.number().int().min(1).nullish(),
        column: z.number().int().min(1).nullish(),
        verified_limit: z.number().int().min(1).max(10_000).default(VERIFIED_LIMIT),
        potential_limit: z.number().int().min(1).max(1000).default(POTENTIAL_LIMIT),
        verified_offset: z.number().int().min(0).default(0),
        potential_offset: z.number().int().min(0).default(0),
        parse_until: z.number().int().min(0).nullish(),
      })
      .strict(),
  output: open({
    declaration: DEFINITION.nullable(),
    resolution: RESOLUTION.optional(),
    other_declarations: z.array(DEFINITION).optional(),
    verified: SITES_BY_FILE,
    potential: SITES_BY_FILE,
    summary: open({ verified_count: z.number().int(), potential_count: z.number().int() }),
    ...NOT_FOUND,
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  read: {
    rows: (ctx, args, db) => {
      const target = targetOf(ctx, args);
      return { target, references: target === null ? null : referencesTo(db, ctx.config.project_root, target, args.parse_until ?? null) };
    },
    // The files the answer shows: the position's, the declaration's and this page's lines'.
    files: (ctx, args, a) => [
      ...(args.file_path && !args.symbol ? [projectPath(args.file_path, ctx.config.project_root)] : []),
      ...(a.target?.declaration ? [a.target.declaration.file_path] : []),
      ...(a.references
        ? [...page(a.references.verified, args.verified_offset, args.verified_limit), ...page(a.references.potential, args.potential_offset, args.potential_limit)].map((l) => l.file_path)
        : []),
    ],
    answer: (ctx, args, { target, references: refs }) => {
      const db = ctx.store().db;
      if (target === null || refs === null) {
        const empty = { verified: [], potential: [], summary: { verified_count: 0, potential_count: 0 } };
        return { declaration: null, ...empty, ...(args.symbol ? notFound(db, args.symbol) : {}), ...(isIndexEmpty(db) ? { index_empty: true as const } : {}) };
      }
      const verified = fitList(refs.verified.slice(args.verified_offset), args.verified_limit, LIST_BUDGET_BYTES).items;
      const potential = fitList(refs.potential.slice(args.potential_offset), args.potential_limit, LIST_BUDGET_BYTES).items;
      const more = {
        ...(args.verified_offset + verified.length < refs.verified.length ? { verified_offset: args.verified_offset + verified.length } : {}),
        ...(args.potential_offset + potential.length < refs.potential.length ? { potential_offset: args.potential_offset + potential.length } : {}),
      };
      // A page cut by the parse time budget hands its cut on, so the next page lists the same lines.
      const next = Object.keys(more).length > 0 && refs.parseUntil !== null ? { ...more, parse_until: refs.parseUntil } : more;
      return {
        declaration: target.declaration,
        ...(target.resolution === null ? {} : { resolution: target.resolution }),
        ...(target.other.length > 0 ? { other_declarations: target.other } : {}),
        verified: sitesByFile(verified, target.name),
        potential: sitesByFile(potential, target.name),
        summary: {
          verified_count: verified.length,
          ...cutOf("verified", refs.verified.length, verified.length),
          potential_count: potential.length,
          ...cutOf("potential", refs.potential.length, potential.length),
          ...(Object.keys(next).length > 0 ? { next } : {}),
          ...(refs.elsewhere > 0 ? { elsewhere_omitted: refs.elsewhere } : {}),
          ...(refs.notCode > 0 ? { not_code_omitted: refs.notCode } : {}),
          ...(refs.otherLanguage > 0 ? { other_language_omitted: refs.otherLanguage } : {}),
          ...(refs.unparsedFiles > 0 ? { unparsed_files: refs.unparsedFiles } : {}),
        },
      };
    },
  },
});
