// A search query's text as the rankers read it: its words as chunk_words cuts them and its FTS5
// clauses, its identifier runs and chains (ranker D's tokens, a one-name query), ranker N's prose
// words, and its shape — a task's text, the path roles it does not ask for.
import type { PathRole } from "../base/paths.js";
import { splitTerms } from "../base/text.js";

/** English function words of 3+ letters, dropped from multi-word queries (see ftsExpression). */
export const STOP_WORDS = new Set(
  "the and for from with that this into onto over when then than what which who whom whose where why how are was were been being has have had does did doing not but all any each its our out off can could should would will shall may might must per via".split(
    " ",
  ),
);

/** A search word this long or longer also matches the longer words it begins (`valid` → validate, validator); shorter ones match whole words only. */
export const PREFIX_MIN = 3;

/**
 * A query term's words as chunk_words's tokenizer cuts them (unicode61 with `_` and `$` as word
 * characters): `res.json(` → res, json; `hash_password` stays one. Words of one character are left out.
 */
export function termWords(term: string): string[] {
  return term.split(/[^\p{L}\p{N}\p{Co}_$]+/u).filter((w) => w.length >= 2);
}

/**
 * The user's text as an FTS5 expression over chunk_words: each whitespace-separated term becomes
 * its words, each quoted (FTS5 syntax in it is literal), the last a prefix from PREFIX_MIN
 * characters; a term of several words is a phrase of the text's own words (`res.json(` →
 * words : ("res" + "json"*)); the terms are OR-ed, so BM25 ranks chunks matching more of them
 * higher. Null when no term has a word.
 */
export function ftsExpression(query: string): string | null {
  return (
    ftsClauses(query)
      ?.map((c) => c.text)
      .join(" OR ") ?? null
  );
}

/** One term of a query as FTS5 matches it; `word` is set when the clause is that one word (a prefix from PREFIX_MIN characters). */
export interface FtsClause {
  readonly text: string;
  readonly word: string | null;
}

/** ftsExpression's clauses, one per distinct term (null when no term has a word): OR-ed, or AND-ed for the chunks holding every term. */
export function ftsClauses(query: string): FtsClause[] | null {
  const all = query.split(/\s+/).filter((t) => termWords(t).length > 0);
  // Function words match nearly every chunk ("from" is on every import line); they are dropped
  // from multi-word queries unless nothing else is left.
  const content = all.filter((t) => !STOP_WORDS.has(t.toLowerCase()));
  const terms = content.length > 0 ? content : all;
  if (terms.length === 0) return null;
  const phrase = (w: string) => `"${w.replace(/"/g, '""')}"${w.length >= PREFIX_MIN ? "*" : ""}`;
  // Words in order, the last a prefix: a phrase.
  const sequence = (words: readonly string[]) => words.map((w, i) => (i === words.length - 1 ? phrase(w) : `"${w}"`)).join(" + ");
  const clauses = new Map<string, FtsClause>();
  for (const t of terms) {
    const cased = termWords(t);
    const words = cased.map((w) => w.toLowerCase());
    // A compound identifier is also its words inside a longer one: `invoiceNum` → nextInvoiceNumber.
    const inner = words.length > 1 ? [] : splitTerms(cased[0]!);
    const clause: FtsClause =
      words.length > 1
        ? { text: `words : (${sequence(words)})`, word: null }
        : inner.length > 1
          ? { text: `(${phrase(words[0]!)} OR parts : (${sequence(inner)}))`, word: null }
          : { text: phrase(words[0]!), word: words[0]! };
    clauses.set(clause.text, clause);
  }
  return [...clauses.values()];
}

/** Ranker D's eligible tokens: identifier runs with an uppercase letter, `_`, `$`, or a digit next to a letter. */
export function symbolShapedTokens(query: string): string[] {
  return symbolShaped(identifierChains(query).plain);
}

function symbolShaped(runs: readonly string[]): string[] {
  return [...new Set(runs.filter((t) => /[A-Z_$]/.test(t) || /[0-9][A-Za-z]|[A-Za-z][0-9]/.test(t)))];
}

const isIdentChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;

/**
 * A query's identifier runs (`[A-Za-z0-9_$]+`, a private name's `#` in front) in one left-to-right
 * pass: chains of runs joined by single dots (`AuthService.refresh`, `Router.#match`) are
 * `qualified`, lone runs `plain`. Linear in the query's length whatever its shape (a backtracking
 * regex over one 100 K-character token took 22 s).
 */
export function identifierChains(query: string): { qualified: string[]; plain: string[] } {
  const qualified = new Set<string>();
  const plain: string[] = [];
  let i = 0;
  // A `#` opens a part when an identifier character follows it.
  const privateAt = (at: number) => query.charCodeAt(at) === 35 && at + 1 < query.length && isIdentChar(query.charCodeAt(at + 1));
  while (i < query.length) {
    if (!isIdentChar(query.charCodeAt(i)) && !privateAt(i)) {
      i++;
      continue;
    }
    const start = i;
    let parts = 0;
    for (;;) {
      if (privateAt(i)) i++;
      while (i < query.length && isIdentChar(query.charCodeAt(i))) i++;
      parts++;
      // Another part follows only after exactly one dot.
      if (query.charCodeAt(i) === 46 && i + 1 < query.length && (isIdentChar(query.charCodeAt(i + 1)) || privateAt(i + 1))) i++;
      else break;
    }
    const token = query.slice(start, i);
    if (parts > 1) qualified.add(token);
    else plain.push(token);
  }
  return { qualified: [...qualified], plain };
}

/** Ranker D's tokens: qualified chains whole (their parts are not tokens of their own), and symbol-shaped lone runs. */
export function declexTokens(query: string): string[] {
  const chains = identifierChains(query);
  return [...chains.qualified, ...symbolShaped(chains.plain)];
}

/** The query as one declaration name (`compose`, `TrieRouter`, `Router.match`), or null when it is more than one token. */
export function queryAsName(query: string): string | null {
  const q = query.trim();
  const { qualified, plain } = identifierChains(q);
  const only = qualified.length + plain.length === 1 ? (qualified[0] ?? plain[0]!) : null;
  return only !== null && only === q ? only : null;
}

/** Query words that name each role but the source's: a query holding one wants that role's files as much as the source. */
const ROLE_WORDS: ReadonlyArray<[Exclude<PathRole, "source">, ReadonlySet<string>]> = [
  ["test", new Set(["test", "tests", "testing", "spec", "specs", "fixture", "fixtures", "mock", "mocks"])],
  ["doc", new Set(["doc", "docs", "documentation", "readme", "guide", "tutorial", "changelog", "documented"])],
  ["example", new Set(["example", "examples", "sample", "samples", "demo", "demos"])],
];
/** A query naming a file: a `/` or a file name with an extension. */
const PATH_SHAPED = /\/|[\w-]\.(?:md|mdx|rst|txt|json|ya?ml|toml|[cm]?[jt]sx?|py|pyi|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|hpp)\b/i;

/**
 * The roles a query does not ask for: tests, documents and examples rank after the source unless
 * the query names them ("test", "docs", "example", …) or names a file (decisions.md).
 */
export function demotedRoles(query: string): ReadonlySet<PathRole> {
  if (PATH_SHAPED.test(query)) return new Set();
  const words = new Set(query.toLowerCase().split(/[^a-z0-9]+/));
  return new Set(ROLE_WORDS.filter(([, named]) => ![...named].some((w) => words.has(w))).map(([role]) => role));
}

/** A one-name query may be the start of a longer name when it is symbol-shaped and four characters or more (`hashPass`, `OrderRepo`). */
export function isPartialName(name: string): boolean {
  return name.length >= 4 && !name.includes(".") && symbolShaped([name]).length === 1;
}

/**
 * Ranker N's words: for a query of two or more whitespace-separated terms (a lone name is ranker
 * D's and the name tier's), the words of its identifier runs split (camelCase, snake_case, dotted
 * paths: `client.send()` → client, send), function words dropped. A query of two or three terms
 * with punctuation outside identifiers is code to find literally (`f(a, b)`), BM25's alone; a
 * longer one is a task's text (a bug report, a commit subject), whose code spans are words too.
 */
export function proseWords(query: string): string[] {
  const terms = query.split(/\s+/).filter((t) => t !== "");
  if (terms.length < 2 || (terms.length < TASK_TERMS && terms.some((t) => !/^[A-Za-z0-9_$.]+$/.test(t)))) return [];
  return splitTerms(query).filter((t) => t.length >= 2 && !STOP_WORDS.has(t));
}

/** Terms from which a query is a task's text, whatever punctuation it holds. */
const TASK_TERMS = 3;

/** A query of TASK_TERMS or more whitespace-separated terms: a task's text (a bug report, a commit subject), answered by files. */
export function isTaskText(query: string): boolean {
  return query.split(/\s+/).filter((t) => t !== "").length >= TASK_TERMS;
}
