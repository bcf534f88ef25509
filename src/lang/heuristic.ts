// Source languages mast has no grammar for, as data for the structural index's fallback tiers
// (universal-ctags' symbol table, then a language-agnostic regular-expression pass): the
// extensions that make a file one of them and its line-comment prefixes (how a block ends is
// read off each declaration: braces, else indentation).
// A language with a LanguageSpec is never listed here; its files are parsed.

export interface HeuristicLanguage {
  readonly name: string;
  readonly extensions: readonly string[];
  /** Prefixes of a trimmed line that is a comment. */
  readonly commentPrefixes: readonly string[];
}

export const HEURISTIC_LANGUAGES: readonly HeuristicLanguage[] = [
  { name: "kotlin", extensions: [".kt", ".kts"], commentPrefixes: ["//", "/*", "*"] },
  { name: "swift", extensions: [".swift"], commentPrefixes: ["//", "/*", "*"] },
  { name: "scala", extensions: [".scala", ".sc"], commentPrefixes: ["//", "/*", "*"] },
  { name: "dart", extensions: [".dart"], commentPrefixes: ["//", "/*", "*"] },
  { name: "groovy", extensions: [".groovy", ".gradle"], commentPrefixes: ["//", "/*", "*"] },
  { name: "objective-c", extensions: [".m", ".mm"], commentPrefixes: ["//", "/*", "*"] },
  { name: "zig", extensions: [".zig"], commentPrefixes: ["//"] },
  { name: "shell", extensions: [".sh", ".bash", ".zsh"], commentPrefixes: ["#"] },
  { name: "perl", extensions: [".pl", ".pm"], commentPrefixes: ["#"] },
  { name: "r", extensions: [".r", ".R"], commentPrefixes: ["#"] },
  { name: "lua", extensions: [".lua"], commentPrefixes: ["--"] },
  { name: "elixir", extensions: [".ex", ".exs"], commentPrefixes: ["#"] },
  { name: "julia", extensions: [".jl"], commentPrefixes: ["#"] },
  { name: "nim", extensions: [".nim"], commentPrefixes: ["#"] },
  { name: "crystal", extensions: [".cr"], commentPrefixes: ["#"] },
  { name: "haskell", extensions: [".hs"], commentPrefixes: ["--"] },
  { name: "ocaml", extensions: [".ml", ".mli"], commentPrefixes: ["(*"] },
  { name: "fsharp", extensions: [".fs", ".fsx"], commentPrefixes: ["//", "(*"] },
  { name: "clojure", extensions: [".clj", ".cljs", ".cljc"], commentPrefixes: [";"] },
  { name: "erlang", extensions: [".erl"], commentPrefixes: ["%"] },
  { name: "vb", extensions: [".vb"], commentPrefixes: ["'"] },
  { name: "pascal", extensions: [".pas"], commentPrefixes: ["//", "{"] },
  { name: "fortran", extensions: [".f90", ".f95", ".f03"], commentPrefixes: ["!"] },
  { name: "powershell", extensions: [".ps1", ".psm1"], commentPrefixes: ["#"] },
  { name: "solidity", extensions: [".sol"], commentPrefixes: ["//", "/*", "*"] },
  { name: "vue", extensions: [".vue"], commentPrefixes: ["//", "/*", "*", "<!--"] },
  { name: "svelte", extensions: [".svelte"], commentPrefixes: ["//", "/*", "*", "<!--"] },
];

/** Extension → its heuristic language. */
export const HEURISTIC_EXTENSIONS: ReadonlyMap<string, HeuristicLanguage> = new Map(HEURISTIC_LANGUAGES.flatMap((l) => l.extensions.map((e) => [e, l] as const)));

/** The heuristic language of a path by its extension; null when none is listed. */
export function heuristicLanguageOf(path: string): HeuristicLanguage | null {
  const dot = path.lastIndexOf(".");
  return dot === -1 || dot < path.lastIndexOf("/") ? null : (HEURISTIC_EXTENSIONS.get(path.slice(dot)) ?? null);
}
