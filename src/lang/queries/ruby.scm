; Ruby at breadth: what syntax/outline.ts reads (captures: docs/languages.md). Definitions nest by
; position: `def`s under `class << self`, inside `included do … end` or `begin … rescue` are the
; enclosing class's.
(class name: [(constant) (scope_resolution)] @name superclass: (superclass (_) @extends)? body: (body_statement)? @members) @definition.class
(module name: [(constant) (scope_resolution)] @name body: (body_statement)? @members) @definition.module
(method name: (_) @name parameters: (method_parameters)? @parameters body: (_)? @body) @definition.method
(singleton_method object: (_) @owner name: (_) @name parameters: (method_parameters)? @parameters body: (_)? @body) @definition.method

(method_parameters (identifier) @parameter.name @parameter)
(method_parameters (optional_parameter name: (identifier) @parameter.name) @parameter @parameter.optional)
(method_parameters (keyword_parameter name: (identifier) @parameter.name) @parameter @parameter.optional)
(method_parameters (splat_parameter name: (identifier)? @parameter.name) @parameter @parameter.variadic)
(method_parameters (hash_splat_parameter name: (identifier)? @parameter.name) @parameter @parameter.variadic)
(method_parameters (block_parameter name: (identifier)? @parameter.name) @parameter @parameter.optional)

; `include M` / `extend M` / `prepend M` in a class body mix M's methods in
((call !receiver method: (identifier) @_mix arguments: (argument_list [(constant) (scope_resolution)] @implements)) @mixin
  (#any-of? @_mix "include" "extend" "prepend"))

; Calls: `m(…)`, `self.m`, `Const.m`, `Const.new` (any other receiver is potential only)
((call receiver: [(constant) (scope_resolution)] @name method: (identifier) @_new) @reference.new
  (#eq? @_new "new"))
(call !receiver method: (identifier) @name) @reference.call
(call receiver: (self) @receiver method: (identifier) @name) @reference.call
((call receiver: [(constant) (scope_resolution)] @receiver method: (identifier) @name) @reference.call
  (#not-eq? @name "new"))

; `require "x"` (a project file under lib/ or the root, else a gem), `require_relative "x"`: every name x defines
((call !receiver method: (identifier) @_req arguments: (argument_list . (string (string_content) @import.module))) @import @import.glob
  (#any-of? @_req "require" "load"))
((call !receiver method: (identifier) @_req arguments: (argument_list . (string (string_content) @import.relative))) @import @import.glob
  (#eq? @_req "require_relative"))
