// The read tools over every published repository (`mast serve --store`,
// docs/organisation.md#serving-from-the-store): a call runs the registry's own tool on each
// repository's replica (the same code and rows as that repository's index answers with) and the
// answers are merged, each naming its repository and commit. An optional `repository` argument (a
// glob over repository names, `*` not crossing `/`) narrows the repositories asked.
//
// mast_search's results are fused by rank — rank 1 of every repository, then rank 2, … (its
// reciprocal-rank fusion gives no score comparable across indexes); within a rank, a result whose
// name is the query first, then by how many of the query's words it holds, then by the store's
// relevance of its repository where the store server narrowed the search (SearchPlan), then by
// repository name — each result naming its repository and commit. Every other tool answers a list of the
// repositories where it found what was asked (`repositories`: each the tool's answer with
// `repository` and `commit`); where nothing was, it is `not_found` with the repositories' nearest
// names. At most 20 repositories' answers and 256 KB are listed: the rest are counted (`truncated`,
// `omitted`) and named (`omitted_repositories`). A repository whose answer failed is listed under
// `errors` and the answer says `incomplete`.
import { cutMarks, fitList } from "../base/budget.js";
import { MastError, errorMessage, isMastError } from "../base/errors.js";
import { compileGlobs } from "../base/glob.js";
import { splitTerms } from "../base/text.js";
import { importedCallSites, providedAs, providedPackages } from "../query/cross-repo.js";
import { SourceLines } from "../query/source.js";
import { mayDeclare } from "../query/targets.js";
import type { Db } from "../store/db.js";
import type { ResolvedConfig } from "../index/config.js";
import { createToolContext, type ToolContext } from "./context.js";
import { listedTools, runTool, type ListedTool, type ListingForm } from "./registry.js";

/** The read tools a store's server offers. */
export const ORG_TOOLS: readonly string[] = ["mast_search", "mast_signature", "mast_exports", "mast_callers", "mast_implementors", "mast_rename_impact", "mast_graph"];

/** A published repository as its replica answers for it. */
export interface OrgRepository {
  readonly repository: string;
  readonly commit: string;
  readonly ctx: ToolContext;
}

/** A replica as the server hands it to whichever thread answers: where it is, and whose snapshot it is. */
export interface ServedReplica {
  readonly repository: string;
  readonly commit: string;
  readonly dir: string;
  readonly config: ResolvedConfig;
}

/**
 * The tool contexts of one answering thread (tools/org-threads.ts), one per replica directory,
 * opened at the first call that asks it and kept until `close` (the replica retired).
 */
export class OrgContexts {
  private readonly byDir = new Map<string, OrgRepository>();

  /** `name`'s answer over `replicas` (a search narrowed by `plan`), and its JSON. */
  async answer(replicas: readonly ServedReplica[], name: string, args: unknown, plan?: SearchPlan): Promise<{ answer: Answer; text: string }> {
    const answer = await orgAnswer(this.opened(replicas), name, args, plan);
    return { answer, text: JSON.stringify(answer) };
  }

  /** Each of `replicas`' outcome of `name` with the tool's own arguments (`rest`): a part of an answer another thread merges. */
  outcomes(replicas: readonly ServedReplica[], name: string, rest: Record<string, unknown>): Promise<Outcome[]> {
    return repositoryOutcomes(this.opened(replicas), name, rest);
  }

  private opened(replicas: readonly ServedReplica[]): OrgRepository[] {
    return replicas.map((r) => {
      let repo = this.byDir.get(r.dir);
      if (repo === undefined) this.byDir.set(r.dir, (repo = { repository: r.repository, commit: r.commit, ctx: { ...createToolContext(r.config), pinned: true } }));
      return repo;
    });
  }

  /** Closes the contexts of `dirs` (every one when null). */
  close(dirs: readonly string[] | null): void {
    for (const dir of dirs ?? [...this.byDir.keys()]) {
      this.byDir.get(dir)?.ctx.close();
      this.byDir.delete(dir);
    }
  }
}

const REPOSITORY_ARG = "a glob over the published repositories' names (`github.com/acme/*`); all when absent";

/** ORG_TOOLS as tools/list gives them: the read tools' own listing with the `repository` argument. */
export function orgListing(form: ListingForm): ListedTool[] {
  return listedTools(["read"], form)
    .filter((t) => ORG_TOOLS.includes(t.name))
    .map((t) => {
      const properties = (t.inputSchema["properties"] ?? {}) as Record<string, unknown>;
      const repository = form === "full" ? { type: "string", description: REPOSITORY_ARG } : { type: "string" };
      return { ...t, inputSchema: { ...t.inputSchema, properties: { ...properties, repository } } };
    });
}

/** The tools that answer for a declaration they name, by the argument naming it: a repository that cannot declare it answers not_found. */
const NAMED: Readonly<Record<string, string>> = {
  mast_signature: "symbol",
  mast_callers: "symbol",
  mast_implementors: "interface_name",
  mast_rename_impact: "symbol",
  mast_graph: "symbol",
};

/**
 * The repositories worth asking: for a tool naming a declaration, those that may declare it
 * (query/targets.ts mayDeclare) — all of them when none may, so the answer's did-you-mean names
 * come from every repository.
 */
function worthAsking(chosen: readonly OrgRepository[], name: string, args: Record<string, unknown>): readonly OrgRepository[] {
  const key = NAMED[name];
  const named = key === undefined ? undefined : args[key];
  if (typeof named !== "string" || named.length === 0) return chosen;
  const may = chosen.filter((r) => {
    try {
      return r.ctx.store().snapshot((db) => mayDeclare(db, named));
    } catch {
      return true; // its own call says what is wrong with it
    }
  });
  return may.length > 0 ? may : chosen;
}

/** The codes that say a repository lacks what was asked (a file it does not have): not an error of the answer. */
const ABSENT = new Set(["FILE_NOT_FOUND", "SYMBOL_NOT_FOUND"]);

type Answer = Record<string, unknown>;

/** One repository's answer, or why it has none, as data (an answering thread hands it over): its answer, absent (a file it lacks), or its error. */
export type Outcome = { readonly repository: string; readonly commit: string } & (
  | { readonly answer: Answer }
  | { readonly absent: true }
  | { readonly error: { readonly code: string; readonly message: string } }
);

/** A repository's failure as an answer lists it under `errors`. */
const failure = (err: unknown) => ({ code: isMastError(err) ? err.code : "INTERNAL", message: errorMessage(err) });

/** The repositories of `repos` that `args.repository` selects, and the tool's own arguments; INVALID_ARGUMENT when none is. */
export function selectRepositories<T extends { readonly repository: string }>(repos: readonly T[], name: string, args: unknown): { chosen: T[]; rest: Record<string, unknown> } {
  if (!ORG_TOOLS.includes(name)) throw new MastError("INVALID_ARGUMENT", `unknown tool ${JSON.stringify(name)}`, { hint: `This server answers ${ORG_TOOLS.join(", ")}.`, usage: true });
  const { repository, ...rest } = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  if (repository !== undefined && typeof repository !== "string") throw new MastError("INVALID_ARGUMENT", "repository must be a glob (a string)", { usage: true });
  const filter = repository === undefined ? null : compileGlobs([repository]);
  const chosen = repos.filter((r) => filter === null || filter.matches(r.repository));
  if (chosen.length === 0) {
    const names = repos.map((r) => r.repository);
    throw new MastError("INVALID_ARGUMENT", repository === undefined ? "no repository is published in the store yet" : `no published repository matches ${JSON.stringify(repository)}`, {
      hint: names.length === 0 ? "Publish one first: `mast publish <path> --to <url>`." : `Published: ${names.slice(0, 10).join(", ")}${names.length > 10 ? ` and ${names.length - 10} more` : ""}.`,
    });
  }
  return { chosen, rest };
}

/** Each repository's outcome of `name` (those that may declare a name it asks for), in order; a malformed argument is thrown, whichever repository said so first. */
export async function repositoryOutcomes(chosen: readonly OrgRepository[], name: string, rest: Record<string, unknown>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const repo of worthAsking(chosen, name, rest)) {
    const { repository, commit } = repo;
    try {
      outcomes.push({ repository, commit, answer: (await runTool(repo.ctx, name, rest, { telemetry: false })).answer as Answer });
    } catch (err) {
      if (isMastError(err) && err.usage) throw err;
      outcomes.push(isMastError(err) && ABSENT.has(err.code) ? { repository, commit, absent: true } : { repository, commit, error: failure(err) });
    }
  }
  return outcomes;
}

/**
 * How the store server narrowed a search over more repositories than it asks
 * (docs/organisation.md#serving-from-the-store): the store's relevance of each repository
 * asked (what orders one rank's results from different repositories before their names), and the
 * repositories it did not ask, best-ranked first.
 */
export interface SearchPlan {
  readonly relevance: Readonly<Record<string, number>>;
  readonly notAsked: readonly string[];
}

/** The repositories not asked an answer names at most (the rest counted). */
const MAX_NOT_ASKED_NAMED = 20;

/**
 * A search over `chosen` narrowed to the `most` the store ranks highest (`ranked`: a repository's
 * relevance, none for one the store found nothing in; ties by name): the repositories to ask, and
 * the plan their answer is fused by.
 */
export function narrowSearch<T extends { readonly repository: string }>(chosen: readonly T[], ranked: ReadonlyMap<string, number>, most: number): { asked: T[]; plan: SearchPlan } {
  const score = (r: T) => ranked.get(r.repository) ?? 0;
  const ordered = [...chosen].sort((a, b) => score(b) - score(a) || (a.repository < b.repository ? -1 : 1));
  const asked = ordered.slice(0, most);
  return { asked, plan: { relevance: Object.fromEntries(asked.map((r) => [r.repository, score(r)])), notAsked: ordered.slice(most).map((r) => r.repository) } };
}

/** The answer the outcomes of `chosen` repositories make: mast_search's fused (by `plan`, when narrowed), another tool's grouped, with the errors. */
export function mergeOutcomes(
  name: string,
  rest: Record<string, unknown>,
  searched: number,
  outcomes: readonly Outcome[],
  options: { readonly extend?: (merged: Answer, answered: readonly Answered[]) => void; readonly plan?: SearchPlan | undefined } = {},
): Answer {
  const { extend, plan } = options;
  const errors = outcomes.flatMap((o) => ("error" in o ? [{ repository: o.repository, commit: o.commit, ...o.error }] : []));
  const answered = outcomes.flatMap((o) => ("answer" in o ? [o] : []));
  const merged = name === "mast_search" ? fuseSearch(answered, typeof rest["query"] === "string" ? rest["query"] : "", plan?.relevance ?? {}) : groupAnswers(answered);
  extend?.(merged, answered);
  const allErrors = [...errors, ...(Array.isArray(merged["errors"]) ? (merged["errors"] as Answer[]) : [])];
  const notAsked =
    plan !== undefined && plan.notAsked.length > 0
      ? {
          not_asked: {
            count: plan.notAsked.length,
            repositories: plan.notAsked.slice(0, MAX_NOT_ASKED_NAMED),
            why: `the store's full-text search ranked them below the ${searched} asked; pass \`repository\` to ask them`,
          },
        }
      : {};
  return { ...merged, repositories_searched: searched, ...notAsked, ...(allErrors.length > 0 ? { incomplete: true, errors: allErrors } : {}) };
}

/** `name`'s answer over the repositories `args.repository` selects from `repos` (a search narrowed by `plan`). */
export async function orgAnswer(repos: readonly OrgRepository[], name: string, args: unknown, plan?: SearchPlan): Promise<Answer> {
  const { chosen, rest } = selectRepositories(repos, name, args);
  const outcomes = await repositoryOutcomes(chosen, name, rest);
  const symbol = rest["symbol"];
  return mergeOutcomes(name, rest, chosen.length, outcomes, {
    plan,
    extend: (merged, answered) => {
      if (name === "mast_callers" && typeof symbol === "string") addCrossRepositoryCallers(merged, answered, chosen, symbol);
    },
  });
}

/** The repositories' answers one answer lists at most, and their bytes: a context window's share, not the sum of every repository's answer. */
const MAX_REPOSITORIES = 20;
const MAX_GROUPED_BYTES = 256 * 1024;

/** An outcome that answered. */
type Answered = Extract<Outcome, { answer: Answer }>;

const named = (o: { readonly repository: string; readonly commit: string }) => ({ repository: o.repository, commit: o.commit });

/**
 * How many of the query's words a result holds (in its name, path or text), and whether its name
 * is the query: what orders results of one rank from different repositories (each repository's
 * own ranking gives no score comparable with another's).
 */
function closeness(terms: readonly string[], compact: string, r: Answer): [number, number] {
  const name = typeof r["symbol_name"] === "string" ? r["symbol_name"] : "";
  const text = `${name} ${String(r["file_path"] ?? "")} ${typeof r["content"] === "string" ? r["content"] : ""}`.toLowerCase();
  const tail = name.slice(name.lastIndexOf(".") + 1).toLowerCase();
  return [terms.filter((t) => text.includes(t)).length, tail !== "" && tail === compact ? 1 : 0];
}

/**
 * mast_search's results of every repository fused by rank (within a rank, the closer to the query
 * first, then the repository the store ranks higher, then by repository name), as many as the
 * longest list.
 */
function fuseSearch(answered: readonly Answered[], query: string, relevance: Readonly<Record<string, number>>): Answer {
  const rel = (o: Answered) => relevance[o.repository] ?? 0;
  const terms = splitTerms(query);
  const compact = terms.join("");
  // A repository that says its answer is weak (low_confidence) comes after every other one at each rank.
  const lists = answered
    .map((o) => ({ o, results: Array.isArray(o.answer["results"]) ? (o.answer["results"] as Answer[]) : [], weak: o.answer["low_confidence"] === true }))
    .sort((a, b) => Number(a.weak) - Number(b.weak));
  const longest = Math.max(0, ...lists.map((l) => l.results.length));
  if (longest === 0) {
    // Nothing anywhere: the first repository's answer says why and what it suggests.
    const first = answered[0]?.answer ?? {};
    return { ...first, results: [] };
  }
  const fused: Answer[] = [];
  for (let rank = 0; rank < longest && fused.length < longest; rank++) {
    const level = lists
      .flatMap(({ o, results, weak }) => (results[rank] === undefined ? [] : [{ o, weak, r: results[rank]!, close: closeness(terms, compact, results[rank]!) }]))
      .sort((a, b) => Number(a.weak) - Number(b.weak) || b.close[1] - a.close[1] || b.close[0] - a.close[0] || rel(b.o) - rel(a.o) || (a.o.repository < b.o.repository ? -1 : 1));
    for (const { o, r } of level) if (fused.length < longest) fused.push({ ...named(o), ...r, rank: fused.length + 1 });
  }
  return { results: fused };
}

/** Files of other repositories listed per declaration at most (the rest counted). */
const MAX_CROSS_FILES = 100;

/**
 * Each found declaration's calls from the other repositories asked (query/cross-repo.ts): the files
 * importing it from a package its repository provides, with their call sites — verified when the
 * import path resolves to exactly this declaration, else potential — as `cross_repository_callers`
 * with their counts in `cross_repository`. A declaration no package provides gets neither.
 */
function addCrossRepositoryCallers(merged: Answer, answered: readonly Answered[], chosen: readonly OrgRepository[], symbol: string): void {
  const groups = Array.isArray(merged["repositories"]) ? (merged["repositories"] as Answer[]) : [];
  const failed: Answer[] = [];
  /** `fn` over a repository's index; its failure listed with the answer's errors, never the whole answer's. */
  const over = <T>(r: OrgRepository, fallback: T, fn: (db: Db) => T): T => {
    try {
      return r.ctx.store().snapshot(fn);
    } catch (err) {
      failed.push({ ...named(r), ...failure(err) });
      return fallback;
    }
  };
  // A package more than one repository provides (a fork, two versions): no import of it is proof of which one it reaches.
  // Counted once per answer, and only when some path would be verified.
  let providers: Map<string, number> | null = null;
  const providersOf = (key: string) => {
    if (providers === null) {
      providers = new Map();
      for (const r of chosen) for (const p of over(r, [], providedPackages)) providers.set(`${p.ecosystem}\0${p.name}`, (providers.get(`${p.ecosystem}\0${p.name}`) ?? 0) + 1);
    }
    return providers.get(key) ?? 0;
  };
  for (const group of groups) {
    const provider = answered.some((o) => o.repository === group["repository"]) ? chosen.find((r) => r.repository === group["repository"]) : undefined;
    const decl = group["declaration"] as { file_path?: unknown; line?: unknown } | null | undefined;
    if (provider === undefined || typeof decl?.file_path !== "string" || typeof decl.line !== "number") continue;
    const at = { file_path: decl.file_path, line: decl.line };
    const paths = over(provider, [], (db) => providedAs(db, at, symbol)).map((p) => (p.verified && providersOf(`${p.ecosystem}\0${p.module}`) > 1 ? { ...p, verified: false } : p));
    if (paths.length === 0) continue;
    const files = chosen
      .filter((r) => r !== provider)
      .flatMap((r) => over(r, [], (db) => importedCallSites(db, new SourceLines(r.ctx.config.project_root), paths, symbol)).map((f) => ({ ...named(r), ...f })));
    files.sort((a, b) => Number(b.verified) - Number(a.verified));
    const count = (verified: boolean) => files.filter((f) => f.verified === verified).reduce((n, f) => n + f.sites.length, 0);
    const { items, omitted } = fitList(files, MAX_CROSS_FILES, MAX_GROUPED_BYTES / 4);
    group["cross_repository_callers"] = items;
    group["cross_repository"] = { verified_count: count(true), potential_count: count(false), ...cutMarks(omitted) };
  }
  if (failed.length > 0) {
    merged["incomplete"] = true;
    merged["errors"] = [...(Array.isArray(merged["errors"]) ? (merged["errors"] as Answer[]) : []), ...failed];
  }
}

/** The answers that found what was asked, each naming its repository; `not_found` with the nearest names when none did. */
function groupAnswers(answered: readonly Answered[]): Answer {
  const found = answered.filter((o) => o.answer["not_found"] !== true);
  if (found.length === 0) {
    const suggestions = [...new Set(answered.flatMap((o) => (Array.isArray(o.answer["did_you_mean"]) ? (o.answer["did_you_mean"] as unknown[]) : [])))];
    return { not_found: true, did_you_mean: suggestions.slice(0, 5), repositories: [] };
  }
  const all = found.map((o) => ({ ...named(o), ...o.answer }));
  const fitted = fitList(all, MAX_REPOSITORIES, MAX_GROUPED_BYTES);
  // The first repository's answer even over the budget: it is within its own tool's caps.
  const { items, omitted } = fitted.items.length === 0 ? { items: all.slice(0, 1), omitted: all.length - 1 } : fitted;
  // The repositories left out are named, so a call with `repository` set can ask them.
  const left = found.slice(items.length).map((o) => o.repository);
  return { repositories: items, ...cutMarks(omitted), ...(left.length > 0 ? { omitted_repositories: left.slice(0, 100) } : {}) };
}
