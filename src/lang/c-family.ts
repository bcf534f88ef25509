// What C and C++ share at breadth: the query file's common part (queries/c-family.scm: functions,
// prototypes, structs, unions, enums, typedefs and macros, `#include "x.h"` as an import of
// everything the header declares, plain `f()` calls), `static` for file-local names, export and
// linkage macros blanked by shape before the parse, `#if` views when a conditional breaks it.
import type { RuleNode } from "./outline.js";
import { C_BLOCK_COMMENT } from "./spec.js";

/** A name is file-local when declared `static`, or when it is a macro a source file (not a header) defines. */
export function isFileLocal(node: RuleNode, path: string): boolean {
  if (node.type === "preproc_def" || node.type === "preproc_function_def") return !/\.(?:h|hh|hpp|hxx|inc)$/.test(path);
  return node.namedChildren.some((c) => c.type === "storage_class_specifier" && c.text === "static");
}

/** `class API_EXPORT Name {` / `struct API Name :`: the all-caps macro between the keyword and the name. */
const CLASS_MACRO = /\b(?:class|struct|union)[ \t]+([A-Z_][A-Z0-9_]*)(?=[ \t]+[A-Za-z_]\w*[ \t]*(?:final\b[ \t]*)?(?:[:{]|$))/gm;
/** An all-caps macro name: three characters or more, or with an underscore (`API`, `FMT_CONSTEXPR`; `T` and `X` are type parameters). */
const MACRO = "(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*|[A-Z][A-Z0-9]{2,})";
/**
 * A declaration's opening macros (`LUA_API int f(`, `template <class T> FMT_CONSTEXPR void f(`,
 * `FMT_NORETURN FMT_API void g(`, `SPDLOG_INLINE ns::C::C(`): macros after the template header
 * and storage words, before the type (or before a constructor's name), followed by a name and `(`.
 */
const LEADING_MACROS = new RegExp(
  `^([ \\t]*(?:template[ \\t]*<[^;{}\\n]*>[ \\t]*)?(?:(?:static|inline|extern|virtual|explicit|constexpr|friend)[ \\t]+)*)((?:${MACRO}[ \\t]+)+)(?=(?:[A-Za-z_][\\w:]*(?:<[^()\\n]*>)?[ \\t*&]+)*[*&]*\\(?~?[A-Za-z_][\\w:]*\\)?[ \\t]*\\()`,
  "gm",
);
/** A line holding only macros (`FMT_BEGIN_NAMESPACE`, `  FMT_CONSTEXPR_CHAR_TRAITS` above a declaration) after a line that ends a statement, block or directive. */
const LONE_MACROS = new RegExp(`((?:^|[;{})>/])[ \\t]*(?:\\r?\\n[ \\t]*)+)((?:${MACRO}[ \\t]*)+)(?=\\r?$)`, "gm");

const spaces = (text: string) => text.replace(/[^\n]/g, " ");

/**
 * The file with export, inline and linkage macros blanked out by their shape (same length, lines in
 * place). `constructors`: C++, where a declaration may be a bare name (`INLINE C::C(`); in C a word
 * before a bare name is its type (flex's `YY_BUFFER_STATE yy_create_buffer(`).
 */
export function blankMacros(text: string, constructors: boolean): string {
  if (!/[A-Z]{3}|[A-Z]_/.test(text)) return text;
  return (
    text
      .replace(CLASS_MACRO, (whole: string, macro: string) => whole.replace(macro, spaces(macro)))
      // Before a bare name (`BOOL f(x);`) only a C++ macro with an underscore: a short all-caps word there is a type.
      .replace(LEADING_MACROS, (whole: string, lead: string, macros: string, at: number, all: string) =>
        !/^[*&]*\(?~?[A-Za-z_][\w:]*\)?[ \t]*\(/.test(all.slice(at + whole.length)) || (constructors && macros.includes("_")) ? lead + spaces(macros) : whole,
      )
      .replace(LONE_MACROS, (_whole: string, before: string, macros: string) => before + spaces(macros))
  );
}

/** The syntax both C-family specs share: identifiers, comments, include lines, system headers as external. */
export const C_FAMILY_SYNTAX = {
  identifier: "[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["//", "/*", "*"],
  blockComment: C_BLOCK_COMMENT,
  importLine: "^#\\s*include\\b",
  isExternalImport: (module: string) => module.startsWith("<"),
  returnedType: () => null,
  resolver: "include",
  extractor: "outline",
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "static",
  starImportsBind: true,
  declaredElsewhere: true,
} as const;

export const C_BUILTIN_TYPES = "void char short int long float double signed unsigned bool size_t ssize_t uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t int64_t FILE".split(" ");
