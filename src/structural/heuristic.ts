// The structural index's language-agnostic fallback (precision `heuristic`): declarations found
// by regular expressions over a file's lines (`function f`, `def f`, `fn f`, `func (r T) f`,
// `f = function`, `class C`, an indented `m(...) {` inside a class), each one's end read off its
// block (balanced braces, else indentation), and the call pass both this tier and the ctags tier
// run inside known boundaries: `name(` outside comments and strings. Pure functions of the text.

export interface FoundDefinition {
  readonly name: string;
  readonly qualified_name: string;
  readonly kind: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly signature: string | null;
}

export interface FoundCall {
  /** Index into the definitions of the innermost one holding the call; -1 for top-level code. */
  readonly caller: number;
  readonly callee: string;
  readonly line: number;
}

const IDENT = "[A-Za-z_$][\\w$]*";
const MODIFIERS =
  "(?:(?:export|default|pub(?:\\([^)]*\\))?|public|private|protected|internal|static|final|abstract|override|open|async|inline|suspend|extern|unsafe|local|virtual|sealed|data|tailrec|operator|infix|mutating|class)\\s+)*";
const FUNCTION_DEF = new RegExp(`^\\s*${MODIFIERS}(?:function|def|defp|defmacro|fn|func|fun|sub|proc|method|macro)\\s*\\*?\\s+(?:\\([^)]*\\)\\s*)?(${IDENT}(?:[.:]${IDENT})*)`);
const TYPE_DEF = new RegExp(`^\\s*${MODIFIERS}(?:class|struct|interface|trait|object|protocol|enum|module|defmodule|impl|record|extension|type)\\s+(${IDENT}(?:\\.${IDENT})*)`);
const ASSIGNED_FUNCTION = new RegExp(
  `^\\s*(?:(?:export\\s+)?(?:const|let|var|local|val)\\s+)?(${IDENT}(?:[.:]${IDENT})*)\\s*(?:=|<-|:=)\\s*(?:async\\s+)?(?:function\\b|\\([^()]*\\)\\s*(?::\\s*[^=]+)?=>|${IDENT}\\s*=>|fn\\b|lambda\\b|proc\\b)`,
);
const METHOD_DEF = new RegExp(`^\\s+${MODIFIERS}(?:(?:get|set|readonly)\\s+)?(${IDENT})\\s*(?:<[^>]*>)?\\s*\\([^;]*\\)\\s*(?::\\s*[^{;=]+)?\\{\\s*(?:\\}\\s*)?$`);
const CALL = new RegExp(`(${IDENT})\\s*\\(`, "g");

/** Words followed by `(` that are not calls in the languages this pass meets. */
const NOT_CALLS: ReadonlySet<string> = new Set([
  "if",
  "elif",
  "else",
  "for",
  "foreach",
  "while",
  "until",
  "switch",
  "case",
  "catch",
  "return",
  "throw",
  "function",
  "def",
  "fn",
  "func",
  "fun",
  "sub",
  "new",
  "typeof",
  "sizeof",
  "alignof",
  "instanceof",
  "when",
  "match",
  "unless",
  "and",
  "or",
  "not",
  "in",
  "with",
  "assert",
  "defined",
  "do",
  "then",
  "elsif",
  "super",
  "this",
  "self",
  "print",
  "echo",
  "local",
  "await",
  "yield",
  "import",
  "require",
  "export",
  "lambda",
  "async",
  "guard",
  "where",
  "select",
  "using",
]);

/** The line with string literals and a trailing line comment blanked (quotes kept, so columns and brace counts hold). */
function codeOf(line: string, commentPrefixes: readonly string[]): string {
  let out = "";
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote !== null) {
      if (ch === "\\") {
        out += "  ";
        i++;
        continue;
      }
      if (ch === quote) {
        quote = null;
        out += ch;
      } else out += " ";
      continue;
    }
    if (ch === '"' || ch === "'" || ch === "`") {
      quote = ch;
      out += ch;
      continue;
    }
    if (commentPrefixes.some((p) => p.length > 1 && line.startsWith(p, i)) || (commentPrefixes.includes("#") && ch === "#" && (i === 0 || /\s/.test(line[i - 1]!)))) break;
    out += ch;
  }
  return out;
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/** The last line of the block a declaration on `start` (0-based) opens: balanced braces when one opens within three lines, else the lines indented deeper. */
function blockEnd(code: readonly string[], start: number): number {
  let depth = 0;
  let opened = false;
  for (let i = start; i < code.length; i++) {
    const line = code[i]!;
    if (!opened && i > start + 2) break;
    if (!opened && i > start && /;\s*$/.test(code[i - 1]!)) break;
    for (const ch of line) {
      if (ch === "{") {
        depth++;
        opened = true;
      } else if (ch === "}") depth--;
    }
    if (opened && depth <= 0) return i;
  }
  const base = indentOf(code[start]!);
  let end = start;
  for (let i = start + 1; i < code.length; i++) {
    const line = code[i]!;
    if (line.trim() === "") continue;
    if (indentOf(line) <= base) {
      if (/^\s*(?:end\b|\}|\)|\])/.test(line)) end = i;
      break;
    }
    end = i;
  }
  return end;
}

/** Declarations of a file's text by the patterns above; names inside a type's block are qualified by it. */
export function findDefinitions(text: string, commentPrefixes: readonly string[]): FoundDefinition[] {
  const lines = text.split(/\r?\n/);
  const code = lines.map((l) => (commentPrefixes.some((p) => l.trimStart().startsWith(p)) ? "" : codeOf(l, commentPrefixes)));
  const defs: FoundDefinition[] = [];
  const types: { name: string; end: number }[] = [];
  for (let i = 0; i < code.length; i++) {
    const line = code[i]!;
    if (line.trim() === "") continue;
    while (types.length > 0 && types[types.length - 1]!.end < i) types.pop();
    const owner = types[types.length - 1]?.name ?? null;
    let kind: string;
    let name: string;
    const fn = FUNCTION_DEF.exec(line) ?? ASSIGNED_FUNCTION.exec(line);
    const type = fn ? null : TYPE_DEF.exec(line);
    const method = fn || type || owner === null ? null : METHOD_DEF.exec(line);
    if (fn) {
      name = fn[1]!;
      kind = owner === null && !/[.:]/.test(name) ? "function" : "method";
    } else if (type) {
      name = type[1]!;
      kind = "class";
    } else if (method && !NOT_CALLS.has(method[1]!)) {
      name = method[1]!;
      kind = "method";
    } else continue;
    const end = blockEnd(code, i);
    const qualified = owner !== null && !/[.:]/.test(name) ? `${owner}.${name}` : name.replace(/:/g, ".");
    defs.push({ name: qualified.slice(qualified.lastIndexOf(".") + 1), qualified_name: qualified, kind, start_line: i + 1, end_line: end + 1, signature: lines[i]!.trim().slice(0, 200) });
    if (kind === "class" && end > i) types.push({ name: qualified, end });
  }
  return defs;
}

/** `name(` sites outside comments and strings, each given the innermost definition holding it; a definition's own name on its first line is not a call. */
export function findCalls(text: string, commentPrefixes: readonly string[], defs: readonly FoundDefinition[]): FoundCall[] {
  const lines = text.split(/\r?\n/);
  const calls: FoundCall[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (commentPrefixes.some((p) => raw.trimStart().startsWith(p))) continue;
    const line = codeOf(raw, commentPrefixes);
    const lineNo = i + 1;
    let caller = -1;
    let span = Infinity;
    for (let d = 0; d < defs.length; d++) {
      const def = defs[d]!;
      if (def.start_line <= lineNo && def.end_line >= lineNo && def.end_line - def.start_line < span) {
        caller = d;
        span = def.end_line - def.start_line;
      }
    }
    const own = caller !== -1 && defs[caller]!.start_line === lineNo ? defs[caller]!.name : null;
    const seen = new Set<string>();
    for (const m of line.matchAll(CALL)) {
      const callee = m[1]!;
      if (NOT_CALLS.has(callee) || callee === own || seen.has(callee) || /^\d/.test(callee)) continue;
      seen.add(callee);
      calls.push({ caller, callee, line: lineNo });
    }
  }
  return calls;
}

/** The last line (1-based) of the block each declaration starting at `starts` (1-based) opens, for a backend that gives start lines only. */
export function blockEnds(text: string, commentPrefixes: readonly string[], starts: readonly number[]): number[] {
  const lines = text.split(/\r?\n/);
  const code = lines.map((l) => (commentPrefixes.some((p) => l.trimStart().startsWith(p)) ? "" : codeOf(l, commentPrefixes)));
  return starts.map((s) => (s >= 1 && s <= code.length ? blockEnd(code, s - 1) + 1 : s));
}
