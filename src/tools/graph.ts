// The call-graph tools (docs/tools.md): mast_callers, mast_implementors, mast_rename_impact and mast_graph, read
// from the last committed index (every write commits its edges with its rows, so there is nothing
// to relink here). All four are read plans the registry refreshes just in time (docs/freshness.md):
// the file a call names first; for mast_callers and mast_rename_impact every file the answer names
// too. mast_implementors also stats and flags each result.
import { barrelExports, declarationSignature, notFound, declarationSite, findTarget, type DeclarationSite, type Target } from "../query/targets.js";
import { callersOf, type VerifiedCaller, type VerifiedSite, withContexts } from "../query/callers.js";
import { POTENTIAL_LIMIT, SCAN_CHUNKS, type PotentialMatch, type PotentialSet } from "../query/potential-sites.js";
import { mentionPattern, siteText } from "../query/mentions.js";
import { implementorsOf, memberImplementations } from "../query/implementors.js";
import { SourceLines } from "../query/source.js";
import { fitList } from "../base/budget.js";
import { isTestPath, projectPath } from "../base/paths.js";
import { isIndexEmpty } from "../query/search.js";
import { staleChecker } from "../query/search-results.js";
import type { ToolContext } from "./context.js";
import type { Db } from "../store/db.js";
import { NOT_FOUND_NOTE, READ_ONLY, WRITTEN_SINCE_NOTE, defineTool } from "./define.js";
import { DECLARATION_SITE, NOT_FOUND, READ_MARKS, SITES_BY_FILE, open } from "./outputs.js";
import { nameInput, pathInput, z } from "./schema.js";
import { withNote } from "./telemetry.js";
import { callGraph, toDot, toMermaid } from "../query/callgraph.js";

const DEFINED = "tools/graph.ts";

/** What the checker pass took out of the potential set, once it has run on this index (docs/call-graph.md#the-checker-pass). */
function checkerCounts(p: PotentialSet | null): { checker_classified_non_call_site?: number; checker_classified_different_declaration?: number } {
  return p?.checkerNonCallSite === undefined ? {} : { checker_classified_non_call_site: p.checkerNonCallSite, checker_classified_different_declaration: p.checkerDifferent ?? 0 };
}

/** The chunks naming the target a capped scan did not read (PotentialSet.unexamined): their lines are in no list and no count. */
function unexamined(p: PotentialSet | null): { potential_unexamined_chunks?: number } {
  return p?.unexamined ? { potential_unexamined_chunks: p.unexamined } : {};
}

/** Verified callers with the sites in test files after the others, each kept in the resolver's order (a cap then keeps source callers first). */
function sourceFirst(callers: readonly VerifiedSite[]): VerifiedSite[] {
  const depth = (c: VerifiedSite) => c.depth ?? 1;
  return [...callers].sort((a, b) => depth(a) - depth(b) || Number(isTestPath(a.file_path)) - Number(isTestPath(b.file_path)));
}

/** When a list was cut: its real size and how many the cap left out (only then present). */
export function cutOf<K extends "potential" | "verified">(list: K, total: number, shown: number): Partial<Record<`${K}_total` | `${K}_truncated`, number>> {
  return (total > shown ? { [`${list}_total`]: total, [`${list}_truncated`]: total - shown } : {}) as Partial<Record<`${K}_total` | `${K}_truncated`, number>>;
}

/** `index_empty` on an empty answer from an index with no files (docs/freshness.md). */
function emptyFlag(db: Db, empty: boolean): { index_empty?: true } {
  return empty && isIndexEmpty(db) ? { index_empty: true } : {};
}

/** The file a call names (`file_path`) as a project path, or null: the file refreshed first and the name looked up in. */
function namedFile(ctx: ToolContext, filePath: string | null | undefined): string | null {
  return filePath ? projectPath(filePath, ctx.config.project_root) : null;
}

/** A read plan's `first`: the named file, when the call names one. */
const firstNamed = (ctx: ToolContext, args: { file_path?: string | null | undefined }): string[] => {
  const named = namedFile(ctx, args.file_path);
  return named === null ? [] : [named];
};

/** mast_callers' default and largest verified_limit, and the message bytes its verified sites may take (about 1 MiB of JSON). */
const VERIFIED_LIMIT = 200;
const MAX_VERIFIED_LIMIT = 10_000;
const VERIFIED_BUDGET_BYTES = 2 * 1024 * 1024;

const symbolInput = nameInput().describe("Symbol name: a function, class or const, or a method as Class.method.");
const filePathInput = pathInput().nullish().describe("Disambiguates a name declared in several files: the declaration in (or re-exported by) this file.");
const potentialLimitInput = z
  .number()
  .int()
  .min(1)
  .max(1000)
  .default(POTENTIAL_LIMIT)
  .describe("Maximum potential_matches (default 50); when more exist, summary.potential_total is the real count and summary.potential_truncated how many were left out.");

/** Sites of one file, each one line of text: the file named once, `is_test` when it is a test file. */
export interface FileSites {
  file_path: string;
  is_test?: true;
  sites: string[];
}

/** Entries grouped by file, files in the order of their first entry (so a ranked list stays ranked by its best site per file). */
export function byFile<T extends { file_path: string }>(entries: readonly T[]): Array<{ file_path: string; entries: T[] }> {
  const groups = new Map<string, T[]>();
  for (const e of entries) (groups.get(e.file_path) ?? groups.set(e.file_path, []).get(e.file_path)!).push(e);
  return [...groups].map(([file_path, list]) => ({ file_path, entries: list }));
}

/** The file named once, `is_test` when it is a test file. */
export function fileOf(file_path: string): { file_path: string; is_test?: true } {
  return { file_path, ...(isTestPath(file_path) ? { is_test: true as const } : {}) };
}

/**
 * Verified callers by file, each site one line of text: `"LINE CALLER: text"` (`"LINE: text"` at
 * top level), then ` [resolution]` unless every site of the file shares one (stated once on the
 * file as `resolution`), then ` (depth N via CALLEE)` for a transitive caller's caller.
 */
function verifiedByFile(callers: readonly VerifiedCaller[], names: readonly string[]): Array<FileSites & { resolution?: string }> {
  const called = mentionPattern(names);
  return byFile(callers).map(({ file_path, entries }) => {
    const shared = entries.every((x) => x.resolution === entries[0]!.resolution) ? entries[0]!.resolution : null;
    const sites = entries.map(
      (c) =>
        `${c.line}${c.caller_symbol === null ? "" : ` ${c.caller_symbol}`}: ${siteText(c.context, called)}` +
        (shared === null ? ` [${c.resolution}]` : "") +
        (c.depth === undefined || c.depth === 1 ? "" : ` (depth ${c.depth} via ${c.callee_symbol})`),
    );
    return { ...fileOf(file_path), ...(shared === null ? {} : { resolution: shared }), sites };
  });
}

/** Potential matches by file, each site as `grep -n` writes it: `"LINE: text"`. */
function potentialByFile(matches: readonly PotentialMatch[]): Array<FileSites> {
  return byFile(matches).map(({ file_path, entries }) => ({ ...fileOf(file_path), sites: entries.map((m) => `${m.line}: ${m.context}`) }));
}

function declarationFiles(target: Target): string[] {
  return target.sites.map((s) => s.path);
}

export const callersTool = defineTool({
  name: "mast_callers",
  source: { defined: DEFINED, answers: "query/callers.ts" },
  title: "Callers of a symbol",
  description: "A symbol's signature and call sites by file: verified_callers are proven (act on them), potential_matches unproven.",
  details:
    "The declaration (its file, line, kind and signature without comment lines; mast_signature adds its doc and the types it names) and its call sites, in two sets. verified_callers: sites the resolver linked to this declaration " +
    "(through an import, an annotated field or parameter, a `new` binding, a declared return type, the same file, this or super) — safe to act on. " +
    "potential_matches: other lines naming it (factories, DI, inferred types, dynamic dispatch, comments) — review each before a refactor. " +
    "transitive follows callers of callers over verified edges only. The answer is for the first declaration (exported first, a source file's before a test's, an example's or a document's, then by path); " +
    'others are listed in other_declarations — pass file_path to pick one. Import lines in a file with a verified caller, comment lines and prose (documentation files, doc strings and their examples) are left out (counted in summary.imports_omitted, summary.comments_omitted, summary.docs_omitted; mast_rename_impact lists them). A site\'s text over 160 characters is clipped around the name (… marks a cut). Both sets are grouped by file ({file_path, is_test?, sites}), each site one line of text: a verified one "LINE CALLER: text" ' +
    '("LINE: text" at top level) with [resolution] unless the file states one for all, (depth N via CALLEE) for a caller\'s caller (transitive); a potential one "LINE: text". ' +
    "Files come in the order of their best site, verified callers in source files before those in tests; potential matches come most likely first (calls in the declaring file, calls on a receiver that may be its type, " +
    "calls on other types or built-ins, mentions, then comments and strings). Both sets are capped (verified_limit, potential_limit — potential lines also to about 100 bytes each on average, so a few long lines do not crowd out the rest); a cut is counted in summary (verified_total/verified_truncated, potential_total/potential_truncated). " +
    `A name in more than ${SCAN_CHUNKS} chunks (a common one: name, map) has the chunks of the declaring file and of the files that import it read first and the rest counted in summary.potential_unexamined_chunks, their lines in no list and no count.` +
    NOT_FOUND_NOTE +
    WRITTEN_SINCE_NOTE,
  unlisted: ["verified_limit"],
  input: () =>
    z
      .object({
        symbol: symbolInput,
        file_path: filePathInput,
        transitive: z.boolean().default(false).describe("Also callers of callers (verified edges only), each with its depth."),
        include_potential: z.boolean().default(true).describe("false skips the identifier search: verified callers only."),
        potential_limit: potentialLimitInput,
        verified_limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_VERIFIED_LIMIT)
          .default(VERIFIED_LIMIT)
          .describe(
            "Maximum verified call sites (default 200); when more exist, summary.verified_total is the real count and summary.verified_truncated how many were left out (mast_rename_impact lists them all).",
          ),
      })
      .strict(),
  output: open({
    declaration: DECLARATION_SITE.extend({ signature: z.string().optional() }).nullable(),
    other_declarations: z.array(DECLARATION_SITE).optional(),
    verified_callers: SITES_BY_FILE,
    potential_matches: SITES_BY_FILE,
    summary: open({ verified_count: z.number().int(), potential_count: z.number().int() }),
    ...NOT_FOUND,
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  read: {
    first: firstNamed,
    rows: (ctx, args, db) => {
      const callers = callersOf(db, ctx.config.project_root, {
        symbol: args.symbol,
        filePath: namedFile(ctx, args.file_path),
        transitive: args.transitive,
        potentialLimit: args.include_potential ? args.potential_limit : null,
        omitNonCalls: true,
        scanChunks: SCAN_CHUNKS,
      });
      const declared = callers.target.sites[0];
      return { ...callers, signature: declared ? declarationSignature(db, declared) : null };
    },
    // The files the answer can show: verified sites past the limit are cut, so their files are not refreshed.
    files: (_ctx, args, a) => [
      ...declarationFiles(a.target),
      ...sourceFirst(a.verified)
        .slice(0, args.verified_limit)
        .map((v) => v.file_path),
      ...(a.potential?.matches.map((p) => p.file_path) ?? []),
    ],
    answer: (ctx, args, answer) => {
      const db = ctx.store().db;
      const [first, ...others] = answer.target.sites;
      const potential = answer.potential?.matches ?? [];
      // The verified sites source files first (then by depth, path and line, the resolver's order), cut to the limit and to a byte budget, never silently.
      const verified = fitList(withContexts(sourceFirst(answer.verified).slice(0, args.verified_limit), new SourceLines(ctx.config.project_root)), args.verified_limit, VERIFIED_BUDGET_BYTES).items;
      const { signature } = answer;
      return {
        declaration: first ? { ...declarationSite(first), ...(signature === null ? {} : { signature }) } : null,
        ...(first ? {} : notFound(db, args.symbol)),
        ...(others.length > 0 ? { other_declarations: others.map(declarationSite) } : {}),
        verified_callers: verifiedByFile(verified, answer.target.names),
        potential_matches: potentialByFile(potential),
        summary: {
          verified_count: verified.length,
          ...cutOf("verified", answer.verified.length, verified.length),
          potential_count: potential.length,
          ...(args.transitive ? { transitive: true } : {}),
          ...(answer.potential ? cutOf("potential", answer.potential.total, potential.length) : {}),
          ...(answer.potential?.importsOmitted ? { imports_omitted: answer.potential.importsOmitted } : {}),
          ...(answer.potential?.commentsOmitted ? { comments_omitted: answer.potential.commentsOmitted } : {}),
          ...(answer.potential?.docsOmitted ? { docs_omitted: answer.potential.docsOmitted } : {}),
          ...checkerCounts(answer.potential),
          ...unexamined(answer.potential),
        },
        ...emptyFlag(db, answer.verified.length === 0 && potential.length === 0),
      };
    },
  },
});

export const implementorsTool = defineTool({
  name: "mast_implementors",
  source: { defined: DEFINED, answers: "query/implementors.ts" },
  title: "Implementors of a type",
  description: "Classes implementing an interface or extending a class, and their methods; for Type.member, its overrides.",
  details:
    "Classes that implement an interface (or extend a class), then their subclasses, each with its methods; " +
    "for a member (`Router.match`), the methods that implement or override it ({method, file_path, line, relation}). " +
    "relation is implements or extends; via names the class an indirect result inherits through. A result whose file changed since indexing carries stale: true." +
    NOT_FOUND_NOTE +
    WRITTEN_SINCE_NOTE,
  input: () =>
    z
      .object({
        interface_name: nameInput().describe("The interface (or class) name, or one of its members as `Type.member`."),
        file_path: filePathInput,
      })
      .strict(),
  output: open({
    declaration: DECLARATION_SITE.nullable(),
    other_declarations: z.array(DECLARATION_SITE).optional(),
    implementors: z.array(open({ file_path: z.string(), line: z.number().int(), relation: z.enum(["implements", "extends"]) })),
    ...NOT_FOUND,
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  read: {
    first: firstNamed,
    rows: (ctx, args, db) => {
      const target = findTarget(db, args.interface_name, namedFile(ctx, args.file_path));
      const isStale = staleChecker(db, ctx.config.project_root);
      const flagStale = <R extends { file_path: string }>(r: R): R | (R & { stale: true }) => (isStale(r.file_path) ? { ...r, stale: true as const } : r);
      // A member (`Router.match`): the methods that implement it; a type: its implementing classes.
      const members = memberImplementations(db, target);
      const implementors = members === null ? implementorsOf(db, target.ids).map(flagStale) : members.map(flagStale);
      return { target, implementors };
    },
    answer: (ctx, args, { target, implementors }) => {
      const db = ctx.store().db;
      const [first, ...others] = target.sites;
      return {
        declaration: first ? declarationSite(first) : null,
        ...(first ? {} : notFound(db, args.interface_name)),
        ...(others.length > 0 ? { other_declarations: others.map(declarationSite) } : {}),
        implementors,
        ...emptyFlag(db, implementors.length === 0),
      };
    },
  },
});

export const renameImpactTool = defineTool({
  name: "mast_rename_impact",
  source: { defined: DEFINED, answers: "query/callers.ts" },
  title: "Rename impact",
  description: "What a rename touches: declarations, verified callers, potential matches to review, barrel exports.",
  details:
    "Everything a rename of a symbol touches, in one call: declaration_sites, verified_callers (direct call sites to edit, grouped by file like mast_callers'), " +
    "potential_matches (identifier matches the resolver could not prove — review each; the declaration's own line is in declaration_sites, not here), " +
    "barrel_exports (named re-exports to edit, and export * files consumers reach it through) and a checklist sentence. " +
    "Run it again after the rename: the old name should come back empty (not_found)." +
    NOT_FOUND_NOTE +
    WRITTEN_SINCE_NOTE,
  input: () => z.object({ symbol: symbolInput, file_path: filePathInput, potential_limit: potentialLimitInput }).strict(),
  output: open({
    declaration_sites: z.array(DECLARATION_SITE),
    verified_callers: SITES_BY_FILE,
    potential_matches: SITES_BY_FILE,
    barrel_exports: z.array(open({ file_path: z.string(), line: z.number().int().nullable(), exported_as: z.string(), via: z.enum(["named", "star"]) })),
    summary: open({ declaration_count: z.number().int(), verified_count: z.number().int(), potential_count: z.number().int(), barrel_count: z.number().int(), checklist: z.string() }),
    ...NOT_FOUND,
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  read: {
    first: firstNamed,
    rows: (ctx, args, db) => {
      const filePath = namedFile(ctx, args.file_path);
      const callers = callersOf(db, ctx.config.project_root, { symbol: args.symbol, filePath, transitive: false, potentialLimit: args.potential_limit, scanChunks: SCAN_CHUNKS });
      const declared = callers.target.sites[0];
      return { ...callers, potential: callers.potential!, barrels: declared ? barrelExports(db, callers.target.ids, declared.file_id, declared.name) : [] };
    },
    files: (_ctx, _args, a) => [...declarationFiles(a.target), ...a.verified.map((v) => v.file_path), ...a.potential.matches.map((p) => p.file_path), ...a.barrels.map((b) => b.file_path)],
    answer: (ctx, args, answer) => {
      const db = ctx.store().db;
      const declarations: DeclarationSite[] = answer.target.sites.map(declarationSite);
      const { barrels } = answer;
      const verified = withContexts(answer.verified, new SourceLines(ctx.config.project_root));
      const potential = answer.potential.matches;
      const empty = declarations.length === 0 && verified.length === 0 && potential.length === 0 && barrels.length === 0;
      return {
        declaration_sites: declarations,
        ...(declarations.length > 0 ? {} : notFound(db, args.symbol)),
        verified_callers: verifiedByFile(verified, answer.target.names),
        potential_matches: potentialByFile(potential),
        barrel_exports: barrels,
        summary: {
          declaration_count: declarations.length,
          verified_count: verified.length,
          potential_count: potential.length,
          barrel_count: barrels.length,
          ...unexamined(answer.potential),
          checklist:
            `${verified.length} verified call site(s) to update, ${potential.length} review-required identifier match(es), ${barrels.length} barrel export(s) to update.` +
            (answer.potential.unexamined ? ` ${answer.potential.unexamined} more chunk(s) name it and were not read (a common name): search them before renaming.` : ""),
          ...cutOf("potential", answer.potential.total, potential.length),
          ...checkerCounts(answer.potential),
        },
        ...emptyFlag(db, empty),
      };
    },
  },
});

/** Nodes a graph answer draws unless max_nodes says otherwise. */
const DEFAULT_GRAPH_NODES = 40;

export const graphTool = defineTool({
  name: "mast_graph",
  source: { defined: DEFINED, answers: "query/callgraph.ts" },
  title: "Call graph picture",
  description: "The calls around a symbol as a Mermaid or DOT picture: verified edges solid, potential dashed.",
  details:
    "Draws the declaration's verified callers and callees (breadth first over verified call edges, to `depth` levels; direction callers, callees or both) and its potential neighbours one level out: " +
    "lines naming it that no verified edge explains (by their enclosing declaration, or a file's top level) and its own calls that no edge resolved, to the declarations of the name called " +
    "(a name more than 3 declarations share is one node saying how many; names no project declaration has are left out). Edges carry their number of call sites when more than one. " +
    "Past max_nodes, nodes and the edges to them are left out and counted in nodes_omitted / edges_omitted; potential callers are drawn from the 1,000 most call-like lines naming it, the rest counted in potential_lines_omitted; the picture ends with a comment saying what was left out. Paste the Mermaid into a Markdown ```mermaid block; render DOT with Graphviz (`mast graph --format svg` does)." +
    NOT_FOUND_NOTE +
    WRITTEN_SINCE_NOTE,
  unlisted: ["max_nodes", "format"],
  input: () =>
    z
      .object({
        symbol: nameInput().describe("The declaration: a name or `Class.method`."),
        file_path: filePathInput,
        depth: z.number().int().min(1).max(5).default(2).describe("Levels of verified callers and callees (default 2, at most 5)."),
        direction: z.enum(["callers", "callees", "both"]).default("both").describe("Which way to follow calls (default both)."),
        max_nodes: z.number().int().min(1).max(500).default(DEFAULT_GRAPH_NODES).describe(`Nodes drawn at most (default ${DEFAULT_GRAPH_NODES}), the root first.`),
        format: z.enum(["mermaid", "dot"]).default("mermaid").describe("mermaid (default) or dot."),
      })
      .strict(),
  output: open({
    declaration: DECLARATION_SITE.nullable(),
    format: z.enum(["mermaid", "dot"]),
    graph: z.string().nullable(),
    nodes: z.number().int(),
    edges: open({ verified: z.number().int(), potential: z.number().int() }),
    nodes_omitted: z.number().int().optional(),
    edges_omitted: z.number().int().optional(),
    potential_lines_omitted: z.number().int().optional(),
    ...NOT_FOUND,
    ...READ_MARKS,
  }),
  annotations: READ_ONLY,
  readsIndex: true,
  stats: true,
  read: {
    first: firstNamed,
    rows: (ctx, args, db) => {
      const target = findTarget(db, args.symbol, namedFile(ctx, args.file_path));
      return { target, graph: target.sites.length === 0 ? null : callGraph(db, ctx.config.project_root, target, { depth: args.depth, direction: args.direction, maxNodes: args.max_nodes }) };
    },
    answer: (ctx, args, { target, graph: g }) => {
      const first = target.sites[0];
      if (!first || g === null) return { declaration: null, ...notFound(ctx.store().db, args.symbol), format: args.format, graph: null, nodes: 0, edges: { verified: 0, potential: 0 } };
      const answer = {
        declaration: declarationSite(first),
        format: args.format,
        graph: args.format === "dot" ? toDot(g) : toMermaid(g),
        nodes: g.nodes.length,
        edges: { verified: g.edges.filter((e) => e.kind === "verified").length, potential: g.edges.filter((e) => e.kind === "potential").length },
        ...(g.nodes_omitted > 0 ? { nodes_omitted: g.nodes_omitted } : {}),
        ...(g.edges_omitted > 0 ? { edges_omitted: g.edges_omitted } : {}),
        ...(g.potential_lines_omitted > 0 ? { potential_lines_omitted: g.potential_lines_omitted } : {}),
      };
      // The files the picture names, for telemetry (the graph text names them, not a file_path key).
      return withNote(answer, { files: g.nodes.flatMap((n) => (n.file_path === null ? [] : [n.file_path])) });
    },
  },
});
