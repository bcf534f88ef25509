// The registered languages and what is derived from them: which extensions exist, which
// language each belongs to, which grammar parses it and how that grammar loads. Everything that
// dispatches on a file's kind reads this table; adding a language is adding its spec here.
import { C } from "./c.js";
import { CPP } from "./cpp.js";
import { CSHARP } from "./csharp.js";
import { GO } from "./go.js";
import { JAVA } from "./java.js";
import { JAVASCRIPT } from "./javascript.js";
import { MARKDOWN } from "./markdown.js";
import { PHP } from "./php.js";
import { PYTHON } from "./python.js";
import { RUBY } from "./ruby.js";
import { RUST } from "./rust.js";
import type { LanguageSpec } from "./spec.js";
import { TYPESCRIPT } from "./typescript.js";

export type { LanguageSpec } from "./spec.js";

export const LANGUAGE_SPECS: readonly LanguageSpec[] = [TYPESCRIPT, JAVASCRIPT, PYTHON, GO, RUST, JAVA, C, CPP, CSHARP, RUBY, PHP, MARKDOWN];

/** A registered language's name (`LanguageSpec.name`). */
export type Language = string;
/** A tree-sitter grammar a registered language declares (`LanguageSpec.grammars`). */
export type Grammar = string;

export interface ExtensionInfo {
  readonly language: Language;
  /** null: the language is line-scanned, not parsed. */
  readonly grammar: Grammar | null;
  readonly spec: LanguageSpec;
}

export const EXTENSIONS: Readonly<Record<string, ExtensionInfo>> = Object.fromEntries(
  LANGUAGE_SPECS.flatMap((spec) => Object.entries(spec.extensions).map(([ext, grammar]) => [ext, { language: spec.name, grammar, spec }])),
);

/** The names of the registered languages, for the tools' `language` argument. */
export const LANGUAGE_NAMES = LANGUAGE_SPECS.map((s) => s.name) as [string, ...string[]];

/** The spec of a language by name, or null. */
export function languageSpec(name: string): LanguageSpec | null {
  return LANGUAGE_SPECS.find((s) => s.name === name) ?? null;
}

/** The loader of a grammar some registered language declares; throws for an unknown grammar. */
export function grammarLoader(grammar: Grammar): () => unknown {
  for (const spec of LANGUAGE_SPECS) {
    const load = spec.grammars[grammar];
    if (load) return load;
  }
  throw new Error(`no registered language declares the grammar ${JSON.stringify(grammar)}`);
}

/** Every grammar the registered languages declare. */
export const GRAMMARS: readonly Grammar[] = LANGUAGE_SPECS.flatMap((s) => Object.keys(s.grammars));

/** The extension a path is indexed under (the longest table entry it ends with), or null. */
export function extensionOf(path: string): string | null {
  const dot = path.lastIndexOf(".");
  if (dot === -1 || dot < path.lastIndexOf("/")) return null;
  const ext = path.slice(dot);
  return ext in EXTENSIONS ? ext : null;
}

export function extensionInfo(path: string): ExtensionInfo | null {
  const ext = extensionOf(path);
  return ext === null ? null : (EXTENSIONS[ext] ?? null);
}

/** A trimmed line that is a comment in its file's language (`//`, `/*`, a JSDoc continuation `*`, `#`). */
export function isCommentLine(text: string, path: string): boolean {
  const spec = extensionInfo(path)?.spec;
  if (!spec?.commentPrefixes.some((p) => text.startsWith(p))) return false;
  // `/* note */ f();` is code after a comment; `/* a */ // b` a comment after one.
  const block = spec.blockComment;
  if (block === undefined || !text.startsWith(block.open)) return true;
  const end = text.indexOf(block.close, block.open.length);
  if (end === -1) return true;
  const rest = text.slice(end + block.close.length).trim();
  return rest === "" || isCommentLine(rest, path);
}

/** A declaration's text without its comment lines (the doc between overloads, in a type's body). */
export function withoutCommentLines(text: string, path: string): string {
  return text
    .split("\n")
    .filter((line) => !isCommentLine(line.trim(), path))
    .join("\n");
}

/**
 * Reads a file's lines in order (from a point outside any string or comment: a chunk's start) and
 * says which are prose: every line of a prose file; in code, a line in (or opening or closing) one
 * of its language's doc strings, and a line of a doc comment (`/**` at the line's start, to its
 * close; not a line where code follows the close). Only a line-leading doc opener counts, so a
 * plain `/*` line in a multi-line string (a .gitignore template) never hides the calls below it:
 * a plain block comment's lines stay code, listed as before. Text skipped over is passed, so its
 * delimiters still count.
 */
export class ProseReader {
  private readonly all: boolean;
  private readonly delimiters: readonly string[];
  private readonly inside: boolean[];
  private readonly block: { readonly open: string; readonly close: string; readonly docOpen: string } | null;
  private inBlock = false;

  constructor(path: string) {
    const spec = extensionInfo(path)?.spec;
    this.all = spec?.extractor === "markdown";
    this.delimiters = spec?.docStrings ?? [];
    this.inside = this.delimiters.map(() => false);
    this.block = spec?.blockComment ?? null;
  }

  /** Text passed over without asking (whole lines, or the rest of the line last read). */
  pass(text: string): void {
    this.passDocStrings(text);
    // Only a closer (inside) or an opener (outside) can change the block state: most passed text has neither.
    if (this.block !== null && text.includes(this.inBlock ? this.block.close : this.block.docOpen)) for (const line of text.split("\n")) this.blockLine(line);
  }

  /** Whether the next line is prose (and passes it). */
  read(line: string): boolean {
    if (this.all) return true;
    const prose = this.delimiters.some((d, k) => this.inside[k] || occurrences(line, d) % 2 === 1);
    this.passDocStrings(line);
    return this.blockLine(line) || prose;
  }

  /** Moves the doc-string states over text: an odd count of a delimiter opens or closes it. */
  private passDocStrings(text: string): void {
    this.delimiters.forEach((d, k) => {
      if (occurrences(text, d) % 2 === 1) this.inside[k] = !this.inside[k];
    });
  }

  /** Moves the doc-comment state over one line; true when the line is all comment (what follows a close is blank). */
  private blockLine(line: string): boolean {
    if (this.block === null) return false;
    const { open, close, docOpen } = this.block;
    let from: number;
    if (this.inBlock) from = 0;
    else {
      const lead = line.length - line.trimStart().length;
      if (!line.startsWith(docOpen, lead)) return false;
      from = lead + open.length; // `/**/` closes where it opens
    }
    const end = line.indexOf(close, from);
    this.inBlock = end === -1;
    return end === -1 || line.slice(end + close.length).trim() === "";
  }
}

function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** The language a file is read as: its extension's, or the dialect its text says (`LanguageSpec.dialect`). */
export function sourceInfo(path: string, text: string): ExtensionInfo | null {
  const info = extensionInfo(path);
  const name = info?.spec.dialect?.(path, text) ?? null;
  const spec = name === null ? null : languageSpec(name);
  if (info === null || spec === null) return info;
  const grammar = Object.keys(spec.grammars)[0] ?? null;
  return { language: spec.name, grammar, spec };
}
