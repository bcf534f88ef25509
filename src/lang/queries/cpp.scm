; C++ at breadth: added to queries/c-family.scm. Captures: docs/languages.md.
; Functions returning a reference, and templates' and operators' declarators
(function_definition
  type: (_)? @returns
  declarator: (reference_declarator (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters))
  body: (compound_statement) @body) @definition.function
; Constructors and destructors (no return type), in-class definitions of any shape
((function_definition
  !type
  declarator: (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters)
  body: (_) @body) @definition.function
  (#not-any-of? @name "TEST_F" "TEST_P" "TYPED_TEST" "TYPED_TEST_P"))

; A googletest test on a fixture is a method of a subclass of the fixture: `Fixture.Name`, whose
; bare calls are the fixture's members first
((function_definition
  !type
  declarator: (function_declarator
    declarator: (identifier) @_macro
    parameters: (parameter_list . (parameter_declaration type: (type_identifier) @owner) . (parameter_declaration type: (type_identifier) @name)))
  body: (compound_statement) @body) @definition.method
  (#any-of? @_macro "TEST_F" "TEST_P" "TYPED_TEST" "TYPED_TEST_P"))

; Methods declared in a class body
(field_declaration
  type: (_)? @returns
  declarator: (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters)) @definition.prototype
(field_declaration
  type: (_) @returns
  declarator: [(pointer_declarator declarator: (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters))
               (reference_declarator (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters))]) @definition.prototype
(declaration
  type: (_) @returns
  declarator: (reference_declarator (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters))) @definition.prototype

; Classes
(class_specifier
  name: (_) @name
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @bases)?
  body: (field_declaration_list) @members) @definition.class
(struct_specifier
  name: (_) @name
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @bases)?
  body: (field_declaration_list) @members) @definition.struct
(enum_specifier name: (qualified_identifier) @name body: (enumerator_list)) @definition.enum
(alias_declaration name: (type_identifier) @name) @definition.type

(optional_parameter_declaration type: (_) @parameter.type declarator: (_) @parameter.name) @parameter @parameter.optional

; `this->m()`, `Owner::m()`, `new T()`
(call_expression function: (field_expression argument: (this) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (qualified_identifier scope: (_) @receiver.type name: (identifier) @name)) @reference.call
(new_expression type: (type_identifier) @name) @reference.new
(variadic_parameter_declaration type: (_) @parameter.type declarator: (_) @parameter.name) @parameter @parameter.variadic
