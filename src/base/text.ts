// Turning file bytes into indexable text: binary detection (a NUL byte, as git and ripgrep do),
// UTF-8 decoding with replacement characters, BOM removal, line arithmetic, splitting
// identifiers into words, and the words the text index (store/schema.sql chunk_words) holds.

export type Decoded = { kind: "text"; text: string } | { kind: "binary" };

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });

/** A NUL byte anywhere marks a file binary (as git and ripgrep tell). */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}

/** Decodes file bytes; a NUL byte anywhere marks the file binary. Invalid UTF-8 becomes U+FFFD. */
export function decodeSource(bytes: Uint8Array): Decoded {
  if (isBinary(bytes)) return { kind: "binary" };
  return { kind: "text", text: decoder.decode(bytes) };
}

/** decodeSource's decoding of a part of a file (its leading BOM already left out): a U+FEFF at a part's start is text, not a BOM. */
export const sliceDecoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Start offsets (UTF-16 code units) of every line; lines split on \n (a \r before it stays in the line). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  let i = text.indexOf("\n");
  while (i !== -1) {
    starts.push(i + 1);
    i = text.indexOf("\n", i + 1);
  }
  return starts;
}

/**
 * The lines of a text as editors count them, without terminators: split on \n, a trailing \r
 * stripped (CRLF files read like LF ones), and a final newline does not open another line.
 */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/**
 * The classes of the UTF-16 code units identifiers are made of, by code: a table read in the scans
 * below (each character of every chunk's text passes through one), never a call.
 */
const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const UNDERSCORE = 8;
const DOLLAR = 16;
const CHAR_CLASS = new Uint8Array(65536);
for (let c = 65; c <= 90; c++) CHAR_CLASS[c] = UPPER;
for (let c = 97; c <= 122; c++) CHAR_CLASS[c] = LOWER;
for (let c = 48; c <= 57; c++) CHAR_CLASS[c] = DIGIT;
CHAR_CLASS[95] = UNDERSCORE;
CHAR_CLASS[36] = DOLLAR;
/** The class of the code unit at `i`; 0 past the end. */
const classAt = (text: string, i: number): number => (i < text.length ? CHAR_CLASS[text.charCodeAt(i)]! : 0);

/** Splits identifiers on camelCase, acronym, digit and snake/kebab boundaries, in one pass: getUserByID → get, user, by, id. */
export function splitTerms(query: string): string[] {
  const out = new Set<string>();
  let start = -1;
  for (let i = 0; i < query.length; i++) {
    const k = CHAR_CLASS[query.charCodeAt(i)]!;
    if (k === 0 || k === UNDERSCORE) {
      if (start >= 0 && i > start) out.add(query.slice(start, i).toLowerCase());
      start = -1;
      continue;
    }
    if (start >= 0 && k === UPPER) {
      const prev = CHAR_CLASS[query.charCodeAt(i - 1)]!;
      // fooBar, v2Beta → a new word at the capital; HTMLParser → at the capital that starts a lower-case run.
      if (prev === LOWER || prev === DIGIT || (prev === UPPER && classAt(query, i + 1) === LOWER)) {
        out.add(query.slice(start, i).toLowerCase());
        start = -1;
      }
    }
    if (start < 0) start = i;
  }
  if (start >= 0 && query.length > start) out.add(query.slice(start).toLowerCase());
  return [...out];
}

/**
 * What the search index stores for a chunk besides its text and identifier bag: the words inside
 * its compound identifiers (identifierParts) and its symbol name's words. Computed where the chunk
 * is extracted (a parse thread), so the thread writing rows does not.
 */
export type ChunkSearchWords = readonly [parts: string, nameTerms: string];

export function chunkSearchWords(searched: string, symbolName: string | null): ChunkSearchWords {
  return [identifierParts(searched), symbolName === null ? "" : splitTerms(symbolName).join(" ")];
}

/**
 * The words inside a text's compound identifiers (camelCase, acronyms, digits, `_`, `$`), space-
 * separated: `hashPassword(MAX_RETRIES, x)` → `hash password max retries`. chunk_words holds these
 * beside the whole tokens its tokenizer reads from the text itself (`hashpassword`, `max_retries`),
 * so a search word reaches the identifiers it is part of, and a name behind `_` or `$` its bare
 * self (`_PGFloat` → `pg float pgfloat`). One pass; a lone word adds nothing.
 */
export function identifierParts(text: string): string {
  let out = "";
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (CHAR_CLASS[text.charCodeAt(i)] === 0) {
      i++;
      continue;
    }
    const start = i;
    let compound = false;
    let prev = 0;
    for (; i < n; i++) {
      const k = CHAR_CLASS[text.charCodeAt(i)]!;
      if (k === 0) break;
      if (i > start && !compound) {
        // `_`/`$` inside, fooBar, v2Beta, HTMLParser: the identifier has words of its own.
        if (k === UNDERSCORE || k === DOLLAR || (k === UPPER && (prev === LOWER || prev === DIGIT || (prev === UPPER && classAt(text, i + 1) === LOWER)))) compound = true;
      }
      prev = k;
    }
    const k0 = CHAR_CLASS[text.charCodeAt(start)];
    // A lone word adds nothing; a name behind `_` or `$` (`_PGFloat`, `$scope`) also adds its bare self.
    if (compound || k0 === UNDERSCORE || k0 === DOLLAR) {
      const parts = partsOfIdentifier(text.slice(start, i), compound);
      if (parts !== "") out = out === "" ? parts : `${out} ${parts}`;
    }
  }
  return out;
}

/** Identifiers whose parts a thread keeps (a file's text repeats its names: ~40% of the scan): cleared when full. */
const PARTS_KEPT = 50_000;
const partsKept = new Map<string, string>();

/** The words of one identifier (its compound words, then its bare self behind `_`/`$`), space-separated. */
function partsOfIdentifier(token: string, compound: boolean): string {
  let parts = partsKept.get(token);
  if (parts !== undefined) return parts;
  const words = compound ? splitTerms(token) : [];
  const c0 = token.charCodeAt(0);
  if (c0 === 95 || c0 === 36) {
    const bare = token.replace(/^[_$]+|[_$]+$/g, "").toLowerCase();
    if (bare !== "" && !/[_$]/.test(bare) && !words.includes(bare)) words.push(bare);
  }
  parts = words.join(" ");
  if (partsKept.size >= PARTS_KEPT) partsKept.clear();
  // Kept by a copy of its own: a slice of 13 characters or more would keep the whole text it was cut from (V8's sliced strings).
  partsKept.set((" " + token).slice(1), parts);
  return parts;
}

/** Source text on one line: runs of whitespace (newlines included) become one space. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The first line of a text, without a trailing `\r` or trailing white space. */
export function firstLine(text: string): string {
  const i = text.indexOf("\n");
  return (i === -1 ? text : text.slice(0, i)).replace(/\r$/, "").trimEnd();
}

/** The leading spaces and tabs of a line. */
export function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/**
 * Levenshtein distance, or limit + 1 once it must exceed `limit` (rows cut off early). With
 * `transpositions`, an adjacent swap is one edit (optimal string alignment, as command-line
 * "Did you mean" hints count it); a row's minimum still never falls, so the cut-off holds.
 */
export function boundedDistance(a: string, b: string, limit: number, options: { readonly transpositions?: boolean } = {}): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (options.transpositions && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, before[j - 2]! + 1);
      row.push(v);
      if (v < best) best = v;
    }
    if (best > limit) return limit + 1;
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * A line cut to at most `max` characters around position `at` (the match): a third of the room
 * before it, the rest after; `…` marks each cut end. A line within `max` is returned as it is.
 */
export function clipAround(text: string, at: number, max: number): string {
  if (text.length <= max) return text;
  let start = Math.max(0, Math.min(at - Math.floor(max / 3), text.length - max));
  let end = start + max;
  // Never half a surrogate pair.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
