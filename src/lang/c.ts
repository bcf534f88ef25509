// C: .c, parsed by tree-sitter-c (the only importer of it), read at breadth through the
// C-family outline rules (lang/c-family.ts).
import { createRequire } from "node:module";
import { C_BUILTIN_TYPES, C_FAMILY_SYNTAX, C_DECLARATIONS, C_TRANSPARENT, includeOf, isStatic, plainCall } from "./c-family.js";
import type { OutlineRules } from "./outline.js";
import type { LanguageSpec } from "./spec.js";

const require = createRequire(import.meta.url);

const RULES: OutlineRules = {
  tokens: ["identifier", "type_identifier", "field_identifier"],
  comments: ["comment"],
  transparent: C_TRANSPARENT,
  declarations: C_DECLARATIONS,
  calls: { call_expression: plainCall },
  imports: includeOf,
  implicitMembers: false,
  exported: (node) => !isStatic(node),
};

export const C: LanguageSpec = {
  name: "c",
  // `.h` is C++'s (as ctags maps it): the C++ grammar reads C headers too.
  extensions: { ".c": "c" },
  indexedByDefault: [".c"],
  grammars: { c: () => require("tree-sitter-c") as unknown },
  ...C_FAMILY_SYNTAX,
  outline: RULES,
  builtinTypes: new Set(C_BUILTIN_TYPES),
  builtinMethods: new Set(),
  callGraph: {
    verified: ["`f()` of a function defined or declared in the file, or declared in a header it includes with `#include \"…\"` (the header's prototype is the target)"],
    potentialOnly: ["calls through function pointers and struct fields (`s->f()`)", "functions declared only in system headers or headers not found in the project", "macros"],
  },
};
