// A file as the editing commands see it (hashpilot contract): lines of text with the BOM
// stripped and every line ending normalised to LF for hashing, while each line's own ending,
// the BOM and the trailing-newline state are kept so a write restores them byte for byte. Lines
// end at LF or CRLF only — a lone CR is text, as tree-sitter's rows, the index and git count.
// Hashes are SHA-256 hex cut to 12 characters, over LF-joined lines with no trailing newline.
import { sha256 } from "../base/hash.js";
import { MastError } from "../base/errors.js";

/** The width of every hash the editing commands report or accept. */
export const HASH_WIDTH = 12;

export type LineEnding = "\n" | "\r\n";

export interface EditableText {
  /** Lines without their endings. A file ending in a newline has no empty last line here. */
  readonly lines: readonly string[];
  /** Each line's own ending; the last is "" when the file does not end with a newline. */
  readonly endings: readonly (LineEnding | "")[];
  readonly bom: boolean;
  /** The ending new lines get: the file's most common one (LF for a file with none). */
  readonly eol: LineEnding;
}

const BOM = "\uFEFF";

/** SHA-256 of text, hex, cut to HASH_WIDTH. */
export function hash12(text: string): string {
  return sha256(text).slice(0, HASH_WIDTH);
}

/** Splits decoded text into lines at LF and CRLF, remembering each line's ending and the BOM. */
export function parseText(raw: string): EditableText {
  const bom = raw.startsWith(BOM);
  const text = bom ? raw.slice(1) : raw;
  const lines: string[] = [];
  const endings: (LineEnding | "")[] = [];
  let start = 0;
  let crlf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", start)) {
    const cr = i > start && text.charCodeAt(i - 1) === 13;
    lines.push(text.slice(start, cr ? i - 1 : i));
    endings.push(cr ? "\r\n" : "\n");
    if (cr) crlf++;
    start = i + 1;
  }
  if (start < text.length || lines.length === 0) {
    lines.push(text.slice(start));
    endings.push("");
  }
  const lf = endings.length - crlf - (endings.at(-1) === "" ? 1 : 0);
  return { lines, endings, bom, eol: crlf > lf ? "\r\n" : "\n" };
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Bytes as UTF-8 text, the BOM kept; null when they are not valid UTF-8 (nothing is replaced by U+FFFD). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * A file's bytes as editable text. Only UTF-8 text is edited: a NUL byte or an invalid UTF-8
 * sequence is READ_FAILED (writing it back would replace bytes the editor never saw).
 */
export function decodeForEdit(path: string, bytes: Uint8Array): EditableText {
  if (bytes.indexOf(0) !== -1) throw new MastError("READ_FAILED", `${path} is binary (it has a NUL byte); only text files are edited`);
  const text = decodeUtf8(bytes);
  if (text === null) throw new MastError("READ_FAILED", `${path} is not valid UTF-8; only UTF-8 text is edited`);
  return parseText(text);
}

/** Whether a text has no bytes of lines at all (one empty line without a line break), as opposed to one blank line ("\n"). */
export function isEmptyText(t: EditableText): boolean {
  return t.lines.length === 1 && t.lines[0] === "" && t.endings[0] === "";
}

/** The file's text back, byte for byte as read when nothing changed. */
export function renderText(t: EditableText): string {
  let out = t.bom ? BOM : "";
  for (let i = 0; i < t.lines.length; i++) out += t.lines[i]! + t.endings[i]!;
  return out;
}

/** The whole file's hash: its lines joined by LF, BOM and original endings ignored. */
export function fileHash(t: EditableText): string {
  return hash12(t.lines.join("\n"));
}

/** The hash of lines start..end (1-based, inclusive). */
export function rangeHash(t: EditableText, start: number, end: number): string {
  return hash12(t.lines.slice(start - 1, end).join("\n"));
}

/** Checks a 1-based inclusive range against the file; INVALID_ARGUMENT when it does not fit. */
export function checkRange(t: EditableText, start: number, end: number): void {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start || end > t.lines.length) {
    throw new MastError("INVALID_ARGUMENT", `range ${start}:${end} is not within the file's lines 1:${t.lines.length}`, {
      hint: "Ranges are 1-based and inclusive at both ends, start <= end <= the last line.",
    });
  }
}

/**
 * Replaces lines start..end with the lines of `content` (LF or CRLF separated; one trailing
 * line break is the end of the last line, not an extra empty line). Untouched lines keep their
 * endings; the last line keeps the file's trailing-newline state.
 */
export function replaceLines(t: EditableText, start: number, end: number, content: string): EditableText {
  return spliceLines(t, start, end, content === "" ? [] : parseText(content).lines);
}

/** Lines start..end replaced by `incoming` (lines without endings), endings kept as replaceLines says. */
function spliceLines(t: EditableText, start: number, end: number, incoming: readonly string[]): EditableText {
  const lines = [...t.lines.slice(0, start - 1), ...incoming, ...t.lines.slice(end)];
  if (lines.length === 0) return { lines: [""], endings: [""], bom: t.bom, eol: t.eol };
  // A written line takes the ending of the line it replaces (a mixed-ending file stays as it was
  // where the edit did not reach); lines beyond the replaced count take the dominant ending.
  const replaced = t.endings.slice(start - 1, end);
  const endings: (LineEnding | "")[] = [...t.endings.slice(0, start - 1), ...incoming.map((_, i) => replaced[i] || t.eol), ...t.endings.slice(end)];
  for (let i = 0; i < endings.length - 1; i++) if (endings[i] === "") endings[i] = t.eol;
  const terminated = t.endings.at(-1) !== "";
  endings[endings.length - 1] = terminated ? endings.at(-1) || t.eol : "";
  return { lines, endings, bom: t.bom, eol: t.eol };
}

/** A file's lines as one LF-joined string (no BOM): the text AST edits parse and change. */
export function sourceOf(t: EditableText): string {
  return t.lines.join("\n");
}

/**
 * The file with its LF-joined text changed to `source`: the changed lines (between the longest
 * common prefix and suffix) replaced, so untouched lines keep their endings, the BOM and the
 * final-newline state. `edited` lists the new lines that differ.
 */
export function withSource(t: EditableText, source: string): { after: EditableText; edited: Array<{ start: number; end: number }> } {
  const next = source.split("\n");
  let head = 0;
  while (head < t.lines.length && head < next.length && t.lines[head] === next[head]) head++;
  let tail = 0;
  while (tail < t.lines.length - head && tail < next.length - head && t.lines[t.lines.length - 1 - tail] === next[next.length - 1 - tail]) tail++;
  const middle = next.slice(head, next.length - tail);
  const after = spliceLines(t, head + 1, t.lines.length - tail, middle);
  const edited: Array<{ start: number; end: number }> = [];
  if (middle.length === t.lines.length - tail - head) {
    for (let i = 0; i < middle.length; i++) if (middle[i] !== t.lines[head + i]) edited.push({ start: head + i + 1, end: head + i + 1 });
  } else edited.push({ start: head + 1, end: Math.max(head + 1, head + middle.length) });
  return { after, edited };
}
