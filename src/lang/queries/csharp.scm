; C# at breadth: what syntax/outline.ts reads (captures: docs/languages.md). `#if` regions are
; nodes that hold declarations: their declarations are found by position, in every branch.
(class_declaration name: (identifier) @name (base_list (_) @bases)? body: (declaration_list) @members) @definition.class
(struct_declaration name: (identifier) @name (base_list (_) @bases)? body: (declaration_list) @members) @definition.struct
(record_declaration name: (identifier) @name (parameter_list)? @parameters (base_list (_) @bases)? body: (declaration_list)? @members) @definition.record
(interface_declaration name: (identifier) @name (base_list (_) @bases)? body: (declaration_list) @members) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_member_declaration_list)) @definition.enum
(delegate_declaration type: (_) @returns name: (identifier) @name parameters: (parameter_list) @parameters) @definition.type

(method_declaration returns: (_) @returns name: (identifier) @name parameters: (parameter_list) @parameters body: (_)? @body) @definition.method
(constructor_declaration name: (identifier) @name parameters: (parameter_list) @parameters body: (_)? @body) @definition.constructor
(destructor_declaration name: (identifier) @name parameters: (parameter_list) @parameters body: (_)? @body) @definition.constructor
(operator_declaration type: (_) @returns operator: _ @name parameters: (parameter_list) @parameters body: (_)? @body) @definition.operator
(conversion_operator_declaration type: (_) @name @returns parameters: (parameter_list) @parameters body: (_)? @body) @definition.operator
(local_function_statement type: (_) @returns name: (identifier) @name parameters: (parameter_list) @parameters body: (_)? @body) @definition.function

(parameter type: (_)? @parameter.type name: (identifier) @parameter.name) @parameter

; Calls: `M()`, `this.M()`, `Type.M()` (any other receiver is potential only), `new T()`
(invocation_expression function: [(identifier) @name (generic_name (identifier) @name)]) @reference.call
(invocation_expression function: (member_access_expression expression: ["this" (identifier)] @receiver name: [(identifier) @name (generic_name (identifier) @name)])) @reference.call
(object_creation_expression type: [(identifier) @name (generic_name (identifier) @name)]) @reference.new

; `using A.B;` names a namespace, which spans files: recorded, bound to nothing
(using_directive [(identifier) (qualified_name)] @import.module .) @import
