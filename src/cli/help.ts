// mast's help text and its "Did you mean" hints, in the layout mast's help has always had
// (commander's): usage, the description wrapped, then options and commands in two columns, each
// description wrapped to the terminal's width (80 columns off a terminal).
import { boundedDistance } from "../base/text.js";

/** One row of a help list: the flag or command, and what it does. */
export interface HelpItem {
  readonly term: string;
  readonly description: string;
}

/** The sections of one command's help. */
export interface HelpPage {
  readonly usage: string;
  readonly description: string;
  readonly options: readonly HelpItem[];
  readonly commands: readonly HelpItem[];
}

/** Narrower than this, a description is not wrapped. */
const MIN_WRAP = 40;

/** Words wrapped to `width` columns, each line on its own (the space at a break dropped). */
function boxWrap(text: string, width: number): string {
  if (width < MIN_WRAP) return text;
  const wrapped: string[] = [];
  for (const line of text.split(/\r\n|\n/)) {
    const chunks = line.match(/\s*\S+/g);
    if (chunks === null) {
      wrapped.push("");
      continue;
    }
    let current = chunks.shift()!;
    for (const chunk of chunks) {
      if (current.length + chunk.length <= width) {
        current += chunk;
        continue;
      }
      wrapped.push(current);
      current = chunk.trimStart();
    }
    wrapped.push(current);
  }
  return wrapped.join("\n");
}

/** A row: the term padded to the column, the description wrapped beside it (left as it is when indented by hand). */
function formatItem(item: HelpItem, termWidth: number, width: number): string {
  const indent = "  ";
  if (!item.description) return indent + item.term;
  const remaining = width - termWidth - 4;
  const description = remaining < MIN_WRAP || /\n[^\S\r\n]/.test(item.description) ? item.description : boxWrap(item.description, remaining).replace(/\n/g, `\n${" ".repeat(termWidth + 2)}`);
  return `${indent}${item.term.padEnd(termWidth)}  ${description.replace(/\n/g, `\n${indent}`)}`;
}

/** A command's help, wrapped to `width` columns; it ends with a blank line's newline. */
export function formatHelp(page: HelpPage, width: number): string {
  const termWidth = Math.max(0, ...[...page.options, ...page.commands].map((i) => i.term.length));
  const list = (heading: string, items: readonly HelpItem[]) => (items.length === 0 ? [] : [heading, ...items.map((i) => formatItem(i, termWidth, width)), ""]);
  return [`Usage: ${page.usage}`, "", ...(page.description ? [boxWrap(page.description, width), ""] : []), ...list("Options:", page.options), ...list("Commands:", page.commands)].join("\n");
}

/** The width help is wrapped to on a stream: a terminal's, else 80. */
export const helpWidth = (stream: NodeJS.WriteStream): number => (stream.isTTY ? stream.columns : undefined) ?? 80;

const MAX_DISTANCE = 3;

/** The closest of `candidates` to a mistyped word (flags compared without their `--`), as a line to add to the error; "" when none is close. */
export function suggestSimilar(word: string, candidates: readonly string[]): string {
  const flags = word.startsWith("--");
  const bare = (s: string) => (flags ? s.slice(2) : s);
  let similar: string[] = [];
  let best = MAX_DISTANCE;
  for (const candidate of new Set(candidates.map(bare))) {
    if (candidate.length <= 1) continue;
    const distance = boundedDistance(bare(word), candidate, MAX_DISTANCE, { transpositions: true });
    const length = Math.max(bare(word).length, candidate.length);
    if ((length - distance) / length <= 0.4) continue;
    if (distance < best) {
      best = distance;
      similar = [candidate];
    } else if (distance === best) similar.push(candidate);
  }
  const named = similar.sort((a, b) => a.localeCompare(b)).map((s) => (flags ? `--${s}` : s));
  if (named.length > 1) return `\n(Did you mean one of ${named.join(", ")}?)`;
  return named.length === 1 ? `\n(Did you mean ${named[0]}?)` : "";
}
