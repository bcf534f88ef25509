// C++: .cc .cpp .cxx .hpp .hh .hxx and .h (a `.h` with no C++ in it is read as C), parsed by
// tree-sitter-cpp (the only importer of it), read at breadth through the C-family outline rules
// plus classes (members under `public:`/`private:` sections, `Owner::method` definitions outside
// the class), namespaces read through, `this->m()` and `Owner::m()` calls.
import { createRequire } from "node:module";
import { blankMacros, C_BUILTIN_TYPES, C_FAMILY_SYNTAX, isFileLocal } from "./c-family.js";
import { queryFile, type OutlineSpec } from "./outline.js";
import type { LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

/** C++ written outside comments and strings: a class, a namespace, a template, an access section, `::`, a C++ standard header. */
const CPP_CODE =
  /\b(?:class|namespace|template|typename|virtual|operator|constexpr|nullptr)\b|\b(?:public|private|protected)\s*:|::|#\s*include\s*<(?:iostream|string|vector|memory|map|functional|utility|cstdint|cstddef|type_traits)>/;

/** A `.h` header with no C++ in it is read as C (jq's, lua's headers); one with C++ as C++. */
function headerDialect(path: string, text: string): string | null {
  if (!path.endsWith(".h")) return null;
  const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:[^"\\\n]|\\.)*"/g, " ");
  return CPP_CODE.test(code) ? null : "c";
}

const OUTLINE: OutlineSpec = {
  query: queryFile("c-family", "cpp"),
  tokens: ["identifier", "type_identifier", "field_identifier", "namespace_identifier"],
  comments: ["comment"],
  scopes: "last",
  selfReceivers: ["this"],
  implicitMembers: true,
  // A member is public under the last `public:` before it, private under `private:`/`protected:`;
  // a `struct` starts public, a `class` private.
  sections: {
    initial: (body) => (body.parent?.type === "struct_specifier" ? "public" : "private"),
    opens: (member) => (member.type === "access_specifier" ? member.text.replace(/:$/, "").trim() : null),
  },
  exported: (node, ownerExported, section, path) => (ownerExported === null ? !isFileLocal(node, path) : ownerExported && section === "public"),
  normalize: (text) => blankMacros(text, true),
  preprocessor: true,
};

export const CPP: LanguageSpec = {
  name: "cpp",
  ...LANGUAGE_FILES.cpp,
  grammars: { cpp: () => require("tree-sitter-cpp") as unknown },
  ...C_FAMILY_SYNTAX,
  dialect: headerDialect,
  outline: OUTLINE,
  builtinTypes: new Set([...C_BUILTIN_TYPES, "auto", "std", "string", "vector", "map", "unique_ptr", "shared_ptr"]),
  builtinMethods: new Set("size empty begin end push_back emplace_back insert erase find at clear get reset c_str".split(" ")),
  callGraph: {
    verified: [
      '`f()` of a function defined or declared in the file, or declared in a header it includes with `#include "…"`',
      "`this->m()` of a method of the class; a bare `m()` inside a method is the class's member (its own or inherited, the class found in the file or an included header) when it has one, else the plain name",
      "`Owner::m()` on a class of the file or of an included header",
      "`new T()` of a class of the file or of an included header",
    ],
    potentialOnly: ["calls on objects (`obj.m()`, `p->m()`), templates' dependent names, overloads (one name, the first declaration)", "headers not found in the project and system headers"],
  },
};
