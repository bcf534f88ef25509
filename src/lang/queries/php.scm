; PHP at breadth: what syntax/outline.ts reads (captures: docs/languages.md).
(class_declaration name: (name) @name (base_clause (_) @extends)? (class_interface_clause (_) @implements)? body: (declaration_list) @members) @definition.class
(trait_declaration name: (name) @name body: (declaration_list) @members) @definition.trait
(interface_declaration name: (name) @name (base_clause (_) @bases)? body: (declaration_list) @members) @definition.interface
(enum_declaration name: (name) @name (class_interface_clause (_) @implements)? body: (enum_declaration_list) @members) @definition.enum
(function_definition name: (name) @name parameters: (formal_parameters) @parameters return_type: (_)? @returns body: (compound_statement) @body) @definition.function
(method_declaration name: (name) @name parameters: (formal_parameters) @parameters return_type: (_)? @returns body: (compound_statement)? @body) @definition.method

(simple_parameter type: (_)? @parameter.type name: (variable_name) @parameter.name default_value: (_)? @parameter.optional) @parameter
(property_promotion_parameter type: (_)? @parameter.type name: (variable_name) @parameter.name default_value: (_)? @parameter.optional) @parameter
(variadic_parameter type: (_)? @parameter.type name: (variable_name) @parameter.name) @parameter @parameter.variadic

; Calls: `f()`, `$this->m()`, `self::m()`/`static::m()`, `Type::m()` (any other receiver is potential only), `new T()`
(function_call_expression function: [(name) @name (qualified_name (name) @name .)]) @reference.call
((member_call_expression object: (variable_name) @receiver name: (name) @name) @reference.call
  (#eq? @receiver "$this"))
(scoped_call_expression scope: (_) @receiver.type name: (name) @name) @reference.call
(object_creation_expression [(name) @name (qualified_name (name) @name .)]) @reference.new

; An anonymous class: another `$this`
(anonymous_class) @scope

; `use A\B\C [as D];` binds C (or D); `require`/`include` of a path: every name the file declares
(namespace_use_clause [(qualified_name) (name)] @import.module @import.bind alias: (name)? @import.alias) @import
(require_expression [(string (string_content) @import.relative) (encapsed_string (string_content) @import.relative)
  (binary_expression right: [(string (string_content) @import.relative) (encapsed_string (string_content) @import.relative)])]) @import @import.glob
(require_once_expression [(string (string_content) @import.relative) (encapsed_string (string_content) @import.relative)
  (binary_expression right: [(string (string_content) @import.relative) (encapsed_string (string_content) @import.relative)])]) @import @import.glob
(include_expression [(string (string_content) @import.relative) (encapsed_string (string_content) @import.relative)
  (binary_expression right: [(string (string_content) @import.relative) (encapsed_string (string_content) @import.relative)])]) @import @import.glob
(include_once_expression [(string (string_content) @import.relative) (encapsed_string (string_content) @import.relative)
  (binary_expression right: [(string (string_content) @import.relative) (encapsed_string (string_content) @import.relative)])]) @import @import.glob

; The file's namespace: a class it names unqualified, neither declared nor imported, is the namespace's
(namespace_definition name: (namespace_name) @namespace)
