// The read tools over every published repository (`mast serve --store`,
// docs/organisation.md#serving-from-the-store): a call runs the registry's own tool on each
// repository's replica (the same code and rows as that repository's index answers with) and the
// answers are merged, each naming its repository and commit. An optional `repository` argument (a
// glob over repository names, `*` not crossing `/`) narrows the repositories asked.
//
// mast_search's results are fused by rank — rank 1 of every repository, then rank 2, … (its
// reciprocal-rank fusion gives no score comparable across indexes), ties by repository name —
// each result naming its repository and commit. Every other tool answers a list of the
// repositories where it found what was asked (`repositories`: each the tool's answer with
// `repository` and `commit`); where nothing was, it is `not_found` with the repositories' nearest
// names. A repository whose answer failed is listed under `errors` and the answer says `incomplete`.
import { LIST_BUDGET_BYTES, cutMarks, fitList } from "../base/budget.js";
import { MastError, errorMessage, isMastError } from "../base/errors.js";
import { compileGlobs } from "../base/glob.js";
import { mayDeclare } from "../query/targets.js";
import type { ToolContext } from "./context.js";
import { listedTools, runTool, type ListedTool, type ListingForm } from "./registry.js";

/** The read tools a store's server offers. */
export const ORG_TOOLS: readonly string[] = ["mast_search", "mast_signature", "mast_exports", "mast_callers", "mast_implementors", "mast_rename_impact", "mast_graph"];

/** A published repository as its replica answers for it. */
export interface OrgRepository {
  readonly repository: string;
  readonly commit: string;
  readonly ctx: ToolContext;
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

/** One repository's answer, or why it has none. */
type Outcome = { readonly repo: OrgRepository; readonly answer: Answer } | { readonly repo: OrgRepository; readonly absent: true } | { readonly repo: OrgRepository; readonly error: unknown };

/** `name`'s answer over the repositories `args.repository` selects from `repos`. */
export async function orgAnswer(repos: readonly OrgRepository[], name: string, args: unknown): Promise<Answer> {
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
  const outcomes: Outcome[] = [];
  for (const repo of worthAsking(chosen, name, rest)) {
    try {
      outcomes.push({ repo, answer: (await runTool(repo.ctx, name, rest, { telemetry: false })).answer as Answer });
    } catch (err) {
      // A malformed argument is the caller's, whichever repository said so first.
      if (isMastError(err) && err.usage) throw err;
      outcomes.push(isMastError(err) && ABSENT.has(err.code) ? { repo, absent: true } : { repo, error: err });
    }
  }
  const errors = outcomes.flatMap((o) =>
    "error" in o ? [{ repository: o.repo.repository, commit: o.repo.commit, code: isMastError(o.error) ? o.error.code : "INTERNAL", message: errorMessage(o.error) }] : [],
  );
  const answered = outcomes.flatMap((o) => ("answer" in o ? [o] : []));
  const merged = name === "mast_search" ? fuseSearch(answered) : groupAnswers(answered);
  return { ...merged, repositories_searched: chosen.length, ...(errors.length > 0 ? { incomplete: true, errors } : {}) };
}

const named = (o: { repo: OrgRepository }) => ({ repository: o.repo.repository, commit: o.repo.commit });

/** mast_search's results of every repository fused by rank, as many as the longest list. */
function fuseSearch(answered: ReadonlyArray<{ repo: OrgRepository; answer: Answer }>): Answer {
  const lists = answered.map((o) => ({ o, results: Array.isArray(o.answer["results"]) ? (o.answer["results"] as Answer[]) : [] }));
  const longest = Math.max(0, ...lists.map((l) => l.results.length));
  if (longest === 0) {
    // Nothing anywhere: the first repository's answer says why and what it suggests.
    const first = answered[0]?.answer ?? {};
    return { ...first, results: [] };
  }
  const fused: Answer[] = [];
  for (let rank = 0; rank < longest && fused.length < longest; rank++) {
    for (const { o, results } of lists) {
      const r = results[rank];
      if (r !== undefined && fused.length < longest) fused.push({ ...named(o), ...r, rank: fused.length + 1 });
    }
  }
  return { results: fused };
}

/** The answers that found what was asked, each naming its repository; `not_found` with the nearest names when none did. */
function groupAnswers(answered: ReadonlyArray<{ repo: OrgRepository; answer: Answer }>): Answer {
  const found = answered.filter((o) => o.answer["not_found"] !== true);
  if (found.length === 0) {
    const suggestions = [...new Set(answered.flatMap((o) => (Array.isArray(o.answer["did_you_mean"]) ? (o.answer["did_you_mean"] as unknown[]) : [])))];
    return { not_found: true, did_you_mean: suggestions.slice(0, 5), repositories: [] };
  }
  const { items, omitted } = fitList(
    found.map((o) => ({ ...named(o), ...o.answer })),
    found.length,
    LIST_BUDGET_BYTES / 2,
  );
  return { repositories: items, ...cutMarks(omitted) };
}
