// C++: .cc .cpp .cxx .hpp .hh .hxx and .h (C headers included, as ctags maps them), parsed by
// tree-sitter-cpp (the only importer of it), read at breadth through the C-family outline rules
// plus classes (members under `public:`/`private:` sections, `Owner::method` definitions outside
// the class), namespaces read through, `this->m()` and `Owner::m()` calls.
import { createRequire } from "node:module";
import { C_BUILTIN_TYPES, C_FAMILY_SYNTAX, C_DECLARATIONS, C_TRANSPARENT, FUNCTION_DEFINITION, PROTOTYPE, functionDeclarator, includeOf, isStatic, plainCall } from "./c-family.js";
import { fieldText, lastSegment, type CallShape, type DeclarationRule, type OutlineRules } from "./outline.js";
import type { LanguageSpec } from "./spec.js";

const require = createRequire(import.meta.url);

const classRule = (kind: "class"): DeclarationRule => ({
  kind,
  chunk: "class_shell",
  name: (n) => {
    const name = fieldText(n, "name");
    return name !== null && n.childForFieldName("body") !== null ? { name: lastSegment(name) } : null;
  },
  members: "body",
  heritage: (n) => {
    const bases = (n.namedChildren.find((c) => c.type === "base_class_clause")?.namedChildren ?? []).filter((c) => c.type !== "access_specifier").map((c) => lastSegment(c.text));
    return { extends: bases[0] ?? null, implements: bases.slice(1) };
  },
});

const RULES: OutlineRules = {
  tokens: ["identifier", "type_identifier", "field_identifier", "namespace_identifier"],
  comments: ["comment"],
  transparent: { ...C_TRANSPARENT, namespace_definition: "body", template_declaration: null },
  ignored: ["template_parameter_list"],
  declarations: {
    ...C_DECLARATIONS,
    class_specifier: classRule("class"),
    struct_specifier: classRule("class"),
    // Inside a class: a method declared (`int draw(int) const;`) or defined inline.
    field_declaration: { ...PROTOTYPE, name: (n) => (functionDeclarator(n) ? (FUNCTION_DEFINITION.name(n) ?? null) : null) },
  },
  calls: {
    call_expression: (node): CallShape | null => {
      const plain = plainCall(node);
      if (plain) return plain;
      const fn = node.childForFieldName("function");
      if (fn?.type === "field_expression" && fn.childForFieldName("argument")?.type === "this") {
        const field = fn.childForFieldName("field");
        return field ? { name: field, receiver: { kind: "this" } } : null;
      }
      if (fn?.type === "qualified_identifier") {
        const scope = fn.childForFieldName("scope");
        const name = fn.childForFieldName("name");
        if (scope && name?.type === "identifier") return { name, receiver: { kind: "static", className: scope.text.replace(/<.*$/s, "") } };
      }
      return null;
    },
    new_expression: (node): CallShape | null => {
      const type = node.childForFieldName("type");
      return type?.type === "type_identifier" ? { name: type, receiver: { kind: "bare" }, isNew: true } : null;
    },
  },
  imports: includeOf,
  innerScopes: ["field_declaration_list"],
  implicitMembers: true,
  // A member is public under the last `public:` before it, private under `private:`/`protected:`;
  // a `struct` starts public, a `class` private.
  sections: {
    initial: (body) => (body.parent?.type === "struct_specifier" ? "public" : "private"),
    opens: (member) => (member.type === "access_specifier" ? member.text.replace(/:$/, "").trim() : null),
  },
  exported: (node, ownerExported, section) => (ownerExported === null ? !isStatic(node) : ownerExported && section === "public"),
};

export const CPP: LanguageSpec = {
  name: "cpp",
  extensions: { ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".h": "cpp" },
  indexedByDefault: [".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".h"],
  grammars: { cpp: () => require("tree-sitter-cpp") as unknown },
  ...C_FAMILY_SYNTAX,
  outline: RULES,
  builtinTypes: new Set([...C_BUILTIN_TYPES, "auto", "std", "string", "vector", "map", "unique_ptr", "shared_ptr"]),
  builtinMethods: new Set("size empty begin end push_back emplace_back insert erase find at clear get reset c_str".split(" ")),
  callGraph: {
    verified: [
      "`f()` of a function defined or declared in the file, or declared in a header it includes with `#include \"…\"`",
      "`this->m()` of a method of the class; a bare `m()` inside a method is the class's member (its own or inherited, the class found in the file or an included header) when it has one, else the plain name",
      "`Owner::m()` on a class of the file or of an included header",
      "`new T()` of a class of the file or of an included header",
    ],
    potentialOnly: ["calls on objects (`obj.m()`, `p->m()`), templates' dependent names, overloads (one name, the first declaration)", "headers not found in the project and system headers"],
  },
};
