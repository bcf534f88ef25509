// Which files each registered language reads, as data: its extensions (each with the tree-sitter
// grammar that parses it; null: line-scanned) and those indexed unless the configuration says
// otherwise. Each LanguageSpec takes its entry from here, and the configuration reads only this
// file — not the languages' rules, 13 ms of every CLI start. In the order of LANGUAGE_SPECS.
interface LanguageFiles {
  readonly extensions: Readonly<Record<string, string | null>>;
  readonly indexedByDefault: readonly string[];
}

export const LANGUAGE_FILES = {
  typescript: { extensions: { ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx" }, indexedByDefault: [".ts", ".tsx", ".mts", ".cts"] },
  javascript: { extensions: { ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript" }, indexedByDefault: [".js", ".jsx", ".mjs", ".cjs"] },
  python: { extensions: { ".py": "python", ".pyi": "python" }, indexedByDefault: [".py", ".pyi"] },
  go: { extensions: { ".go": "go" }, indexedByDefault: [".go"] },
  rust: { extensions: { ".rs": "rust" }, indexedByDefault: [".rs"] },
  java: { extensions: { ".java": "java" }, indexedByDefault: [".java"] },
  c: { extensions: { ".c": "c" }, indexedByDefault: [".c"] },
  cpp: {
    extensions: { ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".h": "cpp" },
    indexedByDefault: [".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".h"],
  },
  csharp: { extensions: { ".cs": "c_sharp" }, indexedByDefault: [".cs"] },
  ruby: { extensions: { ".rb": "ruby" }, indexedByDefault: [".rb"] },
  php: { extensions: { ".php": "php" }, indexedByDefault: [".php"] },
  markdown: { extensions: { ".md": null, ".markdown": null }, indexedByDefault: [".md"] },
} as const satisfies Readonly<Record<string, LanguageFiles>>;

const files: readonly LanguageFiles[] = Object.values(LANGUAGE_FILES);

/** Every extension a registered language reads. */
export const SUPPORTED_EXTENSIONS: readonly string[] = files.flatMap((l) => Object.keys(l.extensions));

/** What the configuration indexes unless told otherwise. */
export const DEFAULT_EXTENSIONS: readonly string[] = files.flatMap((l) => l.indexedByDefault);
