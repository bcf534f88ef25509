// Languages are data: which extensions exist, which language each belongs to and which
// grammar parses it. Everything that dispatches on a file's kind reads this table.

export type Language = "typescript" | "javascript" | "markdown";
/** The tree-sitter grammar a file is parsed with; markdown is line-scanned, not parsed. */
export type Grammar = "typescript" | "tsx" | "javascript";

export interface ExtensionInfo {
  readonly language: Language;
  readonly grammar: Grammar | null;
}

export const EXTENSIONS: Readonly<Record<string, ExtensionInfo>> = {
  ".ts": { language: "typescript", grammar: "typescript" },
  ".mts": { language: "typescript", grammar: "typescript" },
  ".cts": { language: "typescript", grammar: "typescript" },
  ".tsx": { language: "typescript", grammar: "tsx" },
  ".js": { language: "javascript", grammar: "javascript" },
  ".jsx": { language: "javascript", grammar: "javascript" },
  ".mjs": { language: "javascript", grammar: "javascript" },
  ".cjs": { language: "javascript", grammar: "javascript" },
  ".md": { language: "markdown", grammar: null },
  ".markdown": { language: "markdown", grammar: null },
};

export const SUPPORTED_EXTENSIONS: readonly string[] = Object.keys(EXTENSIONS);

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
