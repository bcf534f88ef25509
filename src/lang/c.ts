// C: .c, parsed by tree-sitter-c (the only importer of it), read at breadth through the
// C-family outline rules (lang/c-family.ts).
import { createRequire } from "node:module";
import { blankMacros, C_BUILTIN_TYPES, C_FAMILY_SYNTAX, isFileLocal } from "./c-family.js";
import { queryFile, type OutlineSpec } from "./outline.js";
import type { LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

const OUTLINE: OutlineSpec = {
  query: queryFile("c-family", "c"),
  tokens: ["identifier", "type_identifier", "field_identifier"],
  comments: ["comment"],
  selfReceivers: [],
  implicitMembers: false,
  exported: (node, _owner, _section, path) => !isFileLocal(node, path),
  normalize: (text) => blankMacros(text, false),
  preprocessor: true,
};

export const C: LanguageSpec = {
  name: "c",
  // `.h` is C++'s (as ctags maps it): the C++ grammar reads C headers too.
  ...LANGUAGE_FILES.c,
  grammars: { c: () => require("tree-sitter-c") as unknown },
  ...C_FAMILY_SYNTAX,
  outline: OUTLINE,
  builtinTypes: new Set(C_BUILTIN_TYPES),
  builtinMethods: new Set(),
  callGraph: {
    verified: [
      '`f()` of a function defined or declared in the file, or declared in a header it includes with `#include "…"` (the edge goes to the header\'s prototype; the one definition of the name answers for it)',
    ],
    potentialOnly: ["calls through function pointers and struct fields (`s->f()`)", "functions declared only in system headers or headers not found in the project", "macros"],
  },
};
