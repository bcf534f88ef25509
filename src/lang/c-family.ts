// What C and C++ share at breadth: declarators (a function's name sits inside nested pointer and
// function declarators), functions, prototypes, structs, unions, enums, typedefs and macros,
// `#include "x.h"` as an import of everything the header declares, `static` for file-local
// names, and plain `f()` calls.
import { childrenOf, fieldText, type CallShape, type DeclarationRule, type OutlineImport, type RuleNode, type RuleParam } from "./outline.js";

/** The function declarator a declaration's declarator chain ends in (`*f(…)`, `(*f)(…)` excluded), or null. */
export function functionDeclarator(node: RuleNode): RuleNode | null {
  let d = node.childForFieldName("declarator");
  for (let depth = 0; d && depth < 16; depth++) {
    if (d.type === "function_declarator") return d;
    if (d.type !== "pointer_declarator" && d.type !== "reference_declarator" && d.type !== "attributed_declarator") return null;
    d = d.childForFieldName("declarator") ?? d.namedChildren.at(-1) ?? null;
  }
  return null;
}

/** A function's name, and for `Owner::name` (C++) its owner. */
export function declaredFunction(node: RuleNode): { name: string; owner?: string } | null {
  const fd = functionDeclarator(node);
  const d = fd?.childForFieldName("declarator");
  if (!d) return null;
  if (d.type === "qualified_identifier") {
    const scope = d.childForFieldName("scope")?.text;
    const inner = d.childForFieldName("name");
    if (!inner || inner.type === "qualified_identifier") return null;
    return scope ? { name: inner.text, owner: scope.replace(/<.*$/s, "") } : { name: inner.text };
  }
  return /^[~A-Za-z_]\w*$/.test(d.text) ? { name: d.text } : null;
}

export function cParams(node: RuleNode): RuleParam[] {
  return childrenOf(functionDeclarator(node)?.childForFieldName("parameters") ?? null, "parameter_declaration", "optional_parameter_declaration", "variadic_parameter").map((p) => {
    if (p.type === "variadic_parameter") return { name: "...", type: null, optional: true };
    const declarator = p.childForFieldName("declarator");
    const name = declarator?.text.replace(/^[*&\s]+/, "") ?? "";
    const type = fieldText(p, "type");
    const stars = declarator?.text.match(/^[*&\s]+/)?.[0].replace(/\s/g, "") ?? "";
    return { name: name || "_", type: type === null ? null : `${type}${stars}`, optional: p.type === "optional_parameter_declaration" };
  });
}

export const FUNCTION_DEFINITION: DeclarationRule = {
  kind: "function",
  chunk: "function",
  name: declaredFunction,
  body: "body",
  params: cParams,
  returnType: (n) => fieldText(n, "type"),
};

/** A declaration that is a prototype (`int f(int);`); any other declaration (a variable) declares nothing here. */
export const PROTOTYPE: DeclarationRule = { ...FUNCTION_DEFINITION, body: undefined };

const typeName = (n: RuleNode) => {
  const name = fieldText(n, "name");
  // An anonymous struct/enum declares nothing; a forward declaration (`struct s;`) neither.
  return name !== null && n.childForFieldName("body") !== null ? { name } : null;
};

export const C_DECLARATIONS: Readonly<Record<string, DeclarationRule>> = {
  function_definition: FUNCTION_DEFINITION,
  declaration: PROTOTYPE,
  struct_specifier: { kind: "class", chunk: "class_shell", name: typeName },
  union_specifier: { kind: "class", chunk: "class_shell", name: typeName },
  enum_specifier: { kind: "enum", chunk: "type", name: typeName },
  type_definition: {
    kind: "type",
    chunk: "type",
    name: (n) => {
      const d = n.childForFieldName("declarator");
      return d && /^\w+$/.test(d.text) ? { name: d.text } : null;
    },
  },
  preproc_def: { kind: "const", chunk: "block", name: (n) => (fieldText(n, "name") ? { name: fieldText(n, "name")! } : null) },
  preproc_function_def: { kind: "function", chunk: "function", name: (n) => (fieldText(n, "name") ? { name: fieldText(n, "name")! } : null) },
};

/** `#include "x.h"`: every name the header declares is in scope; `<x.h>` names a system header. */
export function includeOf(node: RuleNode): OutlineImport[] | null {
  if (node.type !== "preproc_include") return null;
  const path = node.childForFieldName("path");
  if (!path) return null;
  const module = path.type === "system_lib_string" ? path.text : (path.namedChildren.find((c) => c.type === "string_content")?.text ?? path.text.replace(/^"|"$/g, ""));
  return [{ module, names: ["*"], locals: [] }];
}

/** `f()` of a plain name: a function of the file or of an included header. */
export function plainCall(node: RuleNode): CallShape | null {
  const fn = node.childForFieldName("function");
  return fn?.type === "identifier" ? { name: fn, receiver: { kind: "bare" } } : null;
}

/** A name is file-local when declared `static`. */
export function isStatic(node: RuleNode): boolean {
  return node.namedChildren.some((c) => c.type === "storage_class_specifier" && c.text === "static");
}

export const C_TRANSPARENT: Readonly<Record<string, string | null>> = {
  preproc_ifdef: null,
  preproc_if: null,
  preproc_else: null,
  preproc_elif: null,
  linkage_specification: "body",
  declaration_list: null,
};

/** The syntax both C-family specs share: identifiers, comments, include lines, system headers as external. */
export const C_FAMILY_SYNTAX = {
  identifier: "[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["//", "/*", "*"],
  importLine: "^#\\s*include\\b",
  isExternalImport: (module: string) => module.startsWith("<"),
  returnedType: () => null,
  resolver: "include",
  extractor: "outline",
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "static",
  starImportsBind: true,
} as const;

export const C_BUILTIN_TYPES = "void char short int long float double signed unsigned bool size_t ssize_t uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t int64_t FILE".split(" ");
