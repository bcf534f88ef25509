// JavaScript: .js, .jsx, .mjs and .cjs, parsed by tree-sitter-javascript (the only importer of it).
import { createRequire } from "node:module";
import { ECMASCRIPT_EDITS } from "./ecmascript-edits.js";
import { JAVASCRIPT_IMPORTS } from "./ecmascript-imports.js";
import { ECMASCRIPT_RULES } from "./ecmascript.js";
import type { LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

export const JAVASCRIPT: LanguageSpec = {
  name: "javascript",
  ...LANGUAGE_FILES.javascript,
  grammars: { javascript: () => require("tree-sitter-javascript") as unknown },
  ...ECMASCRIPT_RULES,
  edits: { ...ECMASCRIPT_EDITS, imports: JAVASCRIPT_IMPORTS },
};
