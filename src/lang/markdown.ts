// Markdown: documentation sections, line-scanned by heading (no grammar).
import type { LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

export const MARKDOWN: LanguageSpec = {
  name: "markdown",
  ...LANGUAGE_FILES.markdown,
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
