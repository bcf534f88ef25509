// The plain-data result of extracting one file: chunks, symbols and imports. Everything
// downstream (store, queries) consumes these records and never sees a syntax tree.
import type { Language } from "../lang/languages.js";

/** Every kind of chunk extraction makes (the tools' `chunk_type` argument lists these). */
export const CHUNK_TYPES = ["function", "method", "class_shell", "interface", "type", "export", "block", "doc"] as const;
export type ChunkType = (typeof CHUNK_TYPES)[number];

export interface Chunk {
  /** sha256(file_path + ":" + start_line); a later chunk starting on the same line appends ":" + n. */
  readonly chunkId: string;
  /** The declaration's AST span, 1-based and inclusive (for a sub-chunk: its window). */
  readonly startLine: number;
  readonly endLine: number;
  /** The text: the span expanded by `context_lines` (the file's lines), or the synthesized class outline. */
  readonly content: string;
  /** The file line the first line of `content` comes from. */
  readonly contentStartLine: number;
  /**
   * Where `content` is in the file, when it is the file's own text (every chunk but a class
   * outline): the lines contentStartLine..endLine as base/text.ts splitLines gives them, joined by
   * `\n` — or, for a piece cut from inside one long line, that line's [fromCol, toCol). graph.db
   * keeps this instead of the text, which answers read from the file (query/source.ts).
   */
  readonly inFile: { readonly endLine: number; readonly cut: readonly [number, number] | null } | null;
  readonly chunkType: ChunkType;
  readonly symbolName: string | null;
  readonly parentSymbol: string | null;
  readonly isExported: boolean;
  /**
   * The part of `content` that full-text search indexes, as character offsets: the declaration and
   * its doc comment, without the context lines (which belong to neighbouring chunks).
   */
  readonly searchStart: number;
  readonly searchEnd: number;
  /** Sub-chunk index within a split declaration; 0 for an unsplit chunk. */
  readonly part: number;
  /** Deduplicated identifier tokens in the chunk's span (the identifier_fts bag); empty for docs. */
  readonly identifiers: readonly string[];
}

export type SymbolKind =
  | "function"
  | "class"
  | "interface"
  | "type"
  | "const"
  | "variable"
  | "enum"
  | "namespace"
  | "method"
  | "export"
  /** The file's top-level code, as the caller of the calls made there (name `MODULE_SYMBOL`). */
  | "module";

/** The name of a file's `module` symbol: no declaration can have it, no query can ask for it. */
export const MODULE_SYMBOL = "";

/** A symbol with every relation empty (no signature, doc, body, parent, re-export, alias, params or return type) but what `fields` gives. */
export function symbolRecord(name: string, kind: SymbolKind, line: number, endLine: number, isExported: boolean, fields: Partial<SymbolRecord> = {}): SymbolRecord {
  return { name, kind, line, endLine, isExported, signature: null, doc: null, hasBody: false, parent: null, reExport: null, aliasOf: null, params: null, returnType: null, ...fields };
}

/** A file's top-level code as a symbol (`MODULE_SYMBOL`), so calls made there have a caller to link from. */
export function moduleSymbol(lineCount: number): SymbolRecord {
  return symbolRecord(MODULE_SYMBOL, "module", 1, Math.max(1, lineCount), false);
}

export interface SymbolRecord {
  /** Declared name; `Class.member` for methods; the file stem for anonymous default exports. */
  readonly name: string;
  readonly kind: SymbolKind;
  /** Declaration line (1-based) and last line of the declaration. */
  readonly line: number;
  readonly endLine: number;
  readonly isExported: boolean;
  /** Declaration text up to (not including) its body; the whole text for interfaces and types. */
  readonly signature: string | null;
  /** The immediately preceding `/** *\/` or `//` comment, verbatim. */
  readonly doc: string | null;
  /** A declaration with a body: a definition, not a prototype, an abstract or bodiless signature, or a class without members (store: `has_body`). */
  readonly hasBody: boolean;
  /** The enclosing class for methods (drives the PARENT_OF edge). */
  readonly parent: string | null;
  /** For re-export marker symbols (`export { a as b } from './x'`): where the name comes from. */
  readonly reExport: { readonly module: string; readonly importedName: string } | null;
  /** Export aliases (`export { local as name }`): the local declaration this copy exports under `name`. */
  readonly aliasOf: string | null;
  /** Parameters of functions and methods, in order; null for other kinds. */
  readonly params: readonly ParamRecord[] | null;
  /**
   * The annotated return type of a function or method, as written; for a package-level variable
   * (Go), the one named type it holds; null when absent.
   */
  readonly returnType: string | null;
}

export interface ParamRecord {
  /** The parameter as named in source: `x`, `...rest`, or a destructuring pattern's text. */
  readonly name: string;
  /** The annotated type as written (whitespace collapsed), or null. */
  readonly type: string | null;
  /** True for `x?`, a default value, or a rest parameter. */
  readonly optional: boolean;
}

/**
 * `namespace`: a name the file uses unqualified that its own package or namespace would provide
 * (Java's same-package `Util`, PHP's `Middleware` in `namespace GuzzleHttp;`), recorded at the
 * package declaration's line; it binds only when it resolves to a project file.
 */
export type ImportKind = "import" | "export_from" | "export_star" | "require" | "dynamic_import" | "namespace";

export interface ImportRecord {
  readonly module: string;
  /** Names taken from the module: `default`, `*` for a namespace or star, or the exported name. */
  readonly names: readonly string[];
  /** The local binding of each name (same order as `names`; empty when the statement binds nothing). */
  readonly locals: readonly string[];
  readonly kind: ImportKind;
  readonly line: number;
}

export type CallReceiver =
  /** `foo()`: an imported or same-file function, decided when linking. */
  | { readonly kind: "bare" }
  /** `this.foo()` inside a class (not inside a nested non-arrow function). */
  | { readonly kind: "this"; readonly className: string }
  /** `super.foo()` in a class that extends `className`. */
  | { readonly kind: "super"; readonly className: string }
  /** `x.foo()` where x's type is a named type known from an annotation or a `new`. */
  | { readonly kind: "typed"; readonly typeName: string; readonly resolution: "field_type" | "parameter_type" | "new_expression" }
  /** `ns.foo()` where `ns` is `import * as ns`. */
  | { readonly kind: "namespace"; readonly local: string }
  /** `Foo.bar()` where `Foo` names a class, imported or declared in the file. */
  | { readonly kind: "static"; readonly className: string }
  /**
   * `x.foo()` where `x` holds what a call returns (`x := NewT()`, `let x = T::open()?`,
   * `make().foo()`): `producer` is that call's callee as written — `f`, `ns.f` or `Type.f`, with a
   * trailing `?` when the language's unwrap operator took its value — and the linker reads the
   * producer's declared return type (`LanguageSpec.returnedType`).
   */
  | { readonly kind: "returned"; readonly producer: string }
  /** `x.foo()` where `x` is a test's (or fixture's) parameter that pytest fills with the fixture named `name`: typed by what the fixture returns. */
  | { readonly kind: "fixture"; readonly name: string }
  /**
   * `foo()` inside a method of `className` where the language lets a bare name mean a member
   * (C++, Java, C#, Ruby): the class's own or inherited member when it has one, else what `foo`
   * names in the file — decided when linking, where the class's members in other files are known.
   */
  | { readonly kind: "implicit"; readonly className: string };

export interface CallSite {
  /** The enclosing declaration (`fn`, `Class.method`, `Class` for field initialisers), null at top level. */
  readonly caller: string | null;
  readonly callee: string;
  readonly receiver: CallReceiver;
  /** `new Foo()` rather than a call. */
  readonly isNew: boolean;
  readonly line: number;
}

export interface ClassHeritage {
  readonly className: string;
  readonly line: number;
  readonly extends: string | null;
  readonly implements: readonly string[];
}

export interface FileExtraction {
  readonly language: Language;
  readonly chunks: readonly Chunk[];
  readonly symbols: readonly SymbolRecord[];
  readonly imports: readonly ImportRecord[];
  /** Call sites and `new` expressions with what their receivers are known to be (the call graph's input). */
  readonly calls: readonly CallSite[];
  /** Each class's `extends` and `implements`. */
  readonly heritage: readonly ClassHeritage[];
  readonly lineCount: number;
  /** True when the tree had ERROR or MISSING nodes; the file is still indexed from what parsed. */
  readonly hasSyntaxErrors: boolean;
  /**
   * Lines (first, last) of parse errors spanning lines that no reading of the file repaired:
   * declarations there may be missing (the index run reports them as `syntax_error` problems).
   */
  readonly unparsedSpans?: ReadonlyArray<readonly [number, number]>;
}

/** An extractor's answer: the extraction, or why there is none (never a throw). */
export type ExtractResult = { ok: true; extraction: FileExtraction } | { ok: false; error: string };

export interface ExtractOptions {
  /** A declaration longer than this many lines is split into overlapping sub-chunks. */
  readonly chunkSplitThreshold: number;
  /** Source lines added before and after a chunk's span in its stored content. */
  readonly contextLines: number;
  /** Deepest ATX heading level that starts a markdown `doc` chunk. */
  readonly markdownHeadingDepth: number;
  /** Parse budget per file; a parse that runs longer fails the file (a counted parse error). */
  readonly parseTimeoutMs: number;
}

/** Lines shared by consecutive sub-chunks of a split declaration. */
export const SPLIT_OVERLAP_LINES = 10;
/** A chunk whose content exceeds this many characters (e.g. one minified line) is cut into pieces. */
export const MAX_CHUNK_CHARS = 32_768;

/** The name of an anonymous default export (`export default () => …`, `export default class {}`), as `mast_exports` lists it. */
export const DEFAULT_EXPORT_NAME = "default";
