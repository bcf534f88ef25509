// JavaScript: .js, .jsx, .mjs and .cjs, parsed by tree-sitter-javascript (the only importer of it).
import { createRequire } from "node:module";
import { isExternalSpecifier } from "../base/paths.js";
import { ECMASCRIPT_BUILTIN_METHODS, ECMASCRIPT_BUILTIN_TYPES, ECMASCRIPT_COMMENT_PREFIXES, ECMASCRIPT_IDENTIFIER, ECMASCRIPT_IMPORT_LINE } from "./ecmascript.js";
import type { LanguageSpec } from "./spec.js";

const require = createRequire(import.meta.url);

export const JAVASCRIPT: LanguageSpec = {
  name: "javascript",
  extensions: { ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript" },
  indexedByDefault: [".js", ".jsx", ".mjs", ".cjs"],
  grammars: { javascript: () => require("tree-sitter-javascript") as unknown },
  resolver: "ecmascript",
  extractor: "ecmascript",
  builtinTypes: ECMASCRIPT_BUILTIN_TYPES,
  builtinMethods: ECMASCRIPT_BUILTIN_METHODS,
  identifier: ECMASCRIPT_IDENTIFIER,
  commentPrefixes: ECMASCRIPT_COMMENT_PREFIXES,
  importLine: ECMASCRIPT_IMPORT_LINE,
  isExternalImport: isExternalSpecifier,
};
