// TypeScript: .ts, .mts, .cts and .tsx, parsed by tree-sitter-typescript (the only importer of it).
import { createRequire } from "node:module";
import { isExternalSpecifier } from "../base/paths.js";
import { ECMASCRIPT_BUILTIN_METHODS, ECMASCRIPT_BUILTIN_TYPES, ECMASCRIPT_COMMENT_PREFIXES, ECMASCRIPT_IDENTIFIER, ECMASCRIPT_IMPORT_LINE } from "./ecmascript.js";
import type { LanguageSpec } from "./spec.js";

const require = createRequire(import.meta.url);

export const TYPESCRIPT: LanguageSpec = {
  name: "typescript",
  extensions: { ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx" },
  indexedByDefault: [".ts", ".tsx", ".mts", ".cts"],
  grammars: {
    typescript: () => (require("tree-sitter-typescript") as { typescript: unknown }).typescript,
    tsx: () => (require("tree-sitter-typescript") as { tsx: unknown }).tsx,
  },
  resolver: "ecmascript",
  extractor: "ecmascript",
  builtinTypes: ECMASCRIPT_BUILTIN_TYPES,
  builtinMethods: ECMASCRIPT_BUILTIN_METHODS,
  identifier: ECMASCRIPT_IDENTIFIER,
  commentPrefixes: ECMASCRIPT_COMMENT_PREFIXES,
  importLine: ECMASCRIPT_IMPORT_LINE,
  isExternalImport: isExternalSpecifier,
};
