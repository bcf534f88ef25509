; What C and C++ share at breadth (queries/c.scm and queries/cpp.scm add to it). Captures: docs/languages.md.
; Function definitions: the name sits inside the declarator chain (`*f(…)`, `**f(…)`)
(function_definition
  type: (_) @returns
  declarator: (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters)
  body: (compound_statement) @body) @definition.function
(function_definition
  type: (_) @returns
  declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters))
  body: (compound_statement) @body) @definition.function
(function_definition
  type: (_) @returns
  declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters)))
  body: (compound_statement) @body) @definition.function

; Prototypes: declarations the call graph may target when no definition is in sight
(declaration
  type: (_)? @returns
  declarator: (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters)) @definition.prototype
(declaration
  type: (_) @returns
  declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters))) @definition.prototype

; Types
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @members) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @members) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type

; Macros
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro_function

; Parameters
(parameter_declaration type: (_) @parameter.type declarator: (_)? @parameter.name) @parameter

; Calls of a plain name
(call_expression function: (identifier) @name) @reference.call

; `#include "x.h"` and `#include <x.h>`: every name the header declares
(preproc_include path: (string_literal (string_content) @import.module)) @import @import.glob
(preproc_include path: (system_lib_string) @import.module) @import @import.glob
