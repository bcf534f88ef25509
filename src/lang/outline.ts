// The breadth languages' outline specs: how a language read at breadth (Java, C, C++, C#, Ruby,
// PHP) is extracted by syntax/outline.ts. What the syntax tree says is in the language's query
// file (`queries/<language>.scm`, tags.scm-style captures documented in docs/languages.md:
// definitions, calls, imports, parameters, heritage); what a query cannot say is a small typed
// hook here (exportedness, access sections, how bases divide into extends and implements, source
// views for macros and preprocessor conditionals). A node is seen through `RuleNode`, the part of
// a tree-sitter node the hooks read, so this layer needs no parser.
import { readFileSync } from "node:fs";

/** The part of a syntax node the hooks read (a tree-sitter SyntaxNode has all of it). */
export interface RuleNode {
  readonly type: string;
  readonly text: string;
  readonly namedChildren: readonly RuleNode[];
  readonly children: readonly RuleNode[];
  readonly parent: RuleNode | null;
  readonly startIndex: number;
  readonly endIndex: number;
  childForFieldName(name: string): RuleNode | null;
  childrenForFieldName(name: string): RuleNode[];
}

export interface OutlineSpec {
  /** The query files (tags.scm-style captures: docs/languages.md, "Adding a breadth language"). */
  readonly query: QueryFiles;
  /** Node types of identifier tokens (the chunks' identifier bags). */
  readonly tokens: readonly string[];
  /** Comment node types; the comments directly above a declaration are its doc. */
  readonly comments: readonly string[];
  /** How a qualified name's scope names its owner (`a::B::m`, `A::B`): `::`-separated; `last`: the owner is the last scope segment (C++ namespaces are not owners), `full`: every segment (Ruby's `A::B` is `A.B`). */
  readonly scopes?: "last" | "full";
  /**
   * The separator of a `@namespace` (a package or namespace declaration) and a name in it (Java
   * `.`, PHP `\\`): a type the file names unqualified as a call's receiver or in `new`, neither
   * declared nor imported there, is looked up in its own namespace (an import of kind `namespace`).
   */
  readonly namespaceSeparator?: string;
  /** Receiver texts that are the current object (`this`, `self`, `$this`): a call on one is a `this` call. */
  readonly selfReceivers: readonly string[];
  /** A bare `m()` inside a method may name a member of its class (Java, C++, C#, Ruby); false where it names a function only (C, PHP). */
  readonly implicitMembers: boolean;
  /**
   * A class body's access sections (C++ `public:`, Ruby's bare `private`): the section a body
   * starts in, and the section a member node opens (null: it opens none). Absent where members say
   * their own visibility.
   */
  readonly sections?: {
    initial(body: RuleNode): string;
    opens(member: RuleNode): string | null;
    /** A container inside a body whose sections are its own, starting in the initial one (Ruby's `class << self`). */
    opensScope?(node: RuleNode): boolean;
  };
  /** Whether a declaration of the file at `path` is exported: a top-level one (`ownerExported` null) or a member of a class that is (or is not), in `section` when the language has sections. */
  exported(node: RuleNode, ownerExported: boolean | null, section: string | null, path: string): boolean;
  /** `@bases` (a base list that does not say which base is a class) divided into the class extended and the interfaces implemented. */
  bases?(names: readonly string[], node: RuleNode): { extends: string | null; implements: string[] };
  /**
   * The text the parser reads instead of the file's: the same length with every newline in place,
   * so positions and lines are the file's (export macros by shape blanked out: `class API_EXPORT X {`).
   */
  readonly normalize?: (text: string) => string;
  /** `#if`/`#ifdef` conditionals: when the file's parse has errors, views with the directives blanked out are parsed too and the one with the fewest errors is read. */
  readonly preprocessor?: boolean;
}

export interface QueryFiles {
  /** Their names, for the docs (`c-family`, `cpp`). */
  readonly files: readonly string[];
  /** Their text, one after the other (read once, on first use). */
  text(): string;
}

/** Query files shipped beside the language specs (`lang/queries/<name>.scm`, copied next to the bundle). */
export function queryFile(...names: string[]): QueryFiles {
  let text: string | undefined;
  return { files: names.map((n) => `src/lang/queries/${n}.scm`), text: () => (text ??= names.map((name) => readFileSync(new URL(`./queries/${name}.scm`, import.meta.url), "utf8")).join("\n")) };
}

// ---- helpers the hooks share ----

/** The text of the node's first named child of one of the types (a modifier list, a name). */
export function childText(node: RuleNode, ...types: string[]): string | null {
  return node.namedChildren.find((c) => types.includes(c.type))?.text ?? null;
}

/** The last `.`/`::`/`\` segment of a qualified type name, generic arguments dropped: `a.b.C<T>` → `C`. */
export function lastSegment(text: string): string {
  const bare = text.replace(/<.*$/s, "").trim();
  return bare
    .split(/::|\.|\\/)
    .pop()!
    .trim();
}

const DIRECTIVE = /^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b/;

/** `text` with the lines `blank` says to blank replaced by spaces (newlines and every other character's position kept). */
function blankLines(text: string, blank: (line: string, index: number) => boolean): string {
  const lines = text.split("\n");
  return lines.map((line, i) => (blank(line, i) ? line.replace(/[^\r]/g, " ") : line)).join("\n");
}

/**
 * Views of a file with preprocessor conditionals taken out, each the file's length with its lines
 * in place: every branch (the directives blanked: right when the branches are alternatives of a
 * part of a declaration, as `#if` in an enum), and the first branch of each conditional (the
 * `#else`/`#elif` branches blanked too: right when each branch is a whole alternative header).
 */
export function conditionalViews(text: string): string[] {
  if (!/^[ \t]*#[ \t]*if/m.test(text)) return [];
  const lines = text.split("\n");
  const directive = lines.map((l) => DIRECTIVE.exec(l)?.[1] ?? null);
  // Line continuations (`\` at the end) belong to the directive they continue.
  for (let i = 0; i + 1 < lines.length; i++) if (directive[i] !== null && /\\\r?$/.test(lines[i]!) && directive[i + 1] === null) directive[i + 1] = "continued";
  const all = blankLines(text, (_l, i) => directive[i] !== null);
  // First branches: a stack of "is this conditional past its first branch".
  const stack: boolean[] = [];
  const skipped = lines.map((_l, i) => {
    const d = directive[i];
    if (d === "if" || d === "ifdef" || d === "ifndef") stack.push(false);
    else if (d?.startsWith("el") === true && stack.length > 0) stack[stack.length - 1] = true;
    else if (d === "endif") stack.pop();
    return d !== null || stack.some((past) => past);
  });
  const first = blankLines(text, (_l, i) => skipped[i]!);
  return first === all ? [all] : [all, first];
}
