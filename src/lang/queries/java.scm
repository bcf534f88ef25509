; Java at breadth: what syntax/outline.ts reads (captures: docs/languages.md, "Adding a breadth language").
; Definitions
(class_declaration
  name: (identifier) @name
  superclass: (superclass (_) @extends)?
  interfaces: (super_interfaces (type_list (_) @implements))?
  body: (class_body) @members) @definition.class

(record_declaration
  name: (identifier) @name
  parameters: (formal_parameters) @parameters
  interfaces: (super_interfaces (type_list (_) @implements))?
  body: (class_body) @members) @definition.record

(interface_declaration
  name: (identifier) @name
  (extends_interfaces (type_list (_) @bases))?
  body: (interface_body) @members) @definition.interface

(annotation_type_declaration
  name: (identifier) @name
  body: (annotation_type_body) @members) @definition.annotation

(enum_declaration
  name: (identifier) @name
  interfaces: (super_interfaces (type_list (_) @implements))?
  body: (enum_body) @members) @definition.enum

(method_declaration
  type: (_) @returns
  name: (identifier) @name
  parameters: (formal_parameters) @parameters
  body: (block)? @body) @definition.method

(constructor_declaration
  name: (identifier) @name
  parameters: (formal_parameters) @parameters
  body: (constructor_body) @body) @definition.constructor

(compact_constructor_declaration
  name: (identifier) @name
  body: (block) @body) @definition.constructor

(annotation_type_element_declaration
  type: (_) @returns
  name: (identifier) @name) @definition.method

; Parameters
(formal_parameter type: (_) @parameter.type name: (identifier) @parameter.name) @parameter
(spread_parameter
  [(type_identifier) (generic_type) (scoped_type_identifier) (array_type) (integral_type) (floating_point_type) (boolean_type)] @parameter.type
  (variable_declarator name: (identifier) @parameter.name)) @parameter @parameter.variadic

; Calls: `m()`, `this.m()`, `Type.m()` (any other receiver is potential only), `new T()`
(method_invocation !object name: (identifier) @name) @reference.call
(method_invocation object: [(this) (identifier)] @receiver name: (identifier) @name) @reference.call
(object_creation_expression type: [(type_identifier) @name (generic_type (type_identifier) @name)]) @reference.new

; An anonymous class body: another `this`
(object_creation_expression (class_body) @scope)

; Imports: `import a.b.C;` binds C, `import a.b.*;` every name; static imports are not read
((import_declaration [(scoped_identifier) (identifier)] @import.module (asterisk) @import.glob) @import
  (#not-match? @import "^import\\s+static"))
((import_declaration [(scoped_identifier) (identifier)] @import.module @import.bind .) @import
  (#not-match? @import "^import\\s+static"))

; The file's package: a class it names unqualified, neither declared nor imported, is the package's
(package_declaration [(scoped_identifier) (identifier)] @namespace)
