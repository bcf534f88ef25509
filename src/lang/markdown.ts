// Markdown: documentation sections, line-scanned by heading (no grammar).
import type { LanguageSpec } from "./spec.js";

export const MARKDOWN: LanguageSpec = {
  name: "markdown",
  extensions: { ".md": null, ".markdown": null },
  indexedByDefault: [".md"],
  grammars: {},
  resolver: "none",
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "static",
  starImportsBind: false,
  extractor: "markdown",
  builtinTypes: new Set(),
  builtinMethods: new Set(),
  identifier: "[A-Za-z_][\\w]*",
  commentPrefixes: [],
  importLine: "(?!)",
  isExternalImport: () => false,
  returnedType: () => null,
  callGraph: { verified: [], potentialOnly: ["documentation sections are searched and listed; they have no symbols or calls"] },
};
