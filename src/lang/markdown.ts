// Markdown: documentation sections, line-scanned by heading (no grammar).
import type { LanguageSpec } from "./spec.js";

export const MARKDOWN: LanguageSpec = {
  name: "markdown",
  extensions: { ".md": null, ".markdown": null },
  indexedByDefault: [".md"],
  grammars: {},
  extractor: "markdown",
  builtinTypes: new Set(),
  builtinMethods: new Set(),
  identifier: "[A-Za-z_][\\w]*",
  commentPrefixes: [],
  isExternalImport: () => false,
};
