// tree-sitter-go's node types that Go's extractor (syntax/go.ts) and its AST edit rules
// (go-edits.ts) both read, spelled once: a grammar that renames one is followed here. A name only
// one of them reads stays a literal there.

// ---- declarations, their parts and the comments above them ----
export const FUNCTION_DECLARATION = "function_declaration";
export const METHOD_DECLARATION = "method_declaration";
export const FUNC_LITERAL = "func_literal";
export const TYPE_DECLARATION = "type_declaration";
export const TYPE_SPEC = "type_spec";
export const TYPE_ALIAS = "type_alias";
export const STRUCT_TYPE = "struct_type";
export const INTERFACE_TYPE = "interface_type";
export const FIELD_DECLARATION_LIST = "field_declaration_list";
export const FIELD_DECLARATION = "field_declaration";
export const METHOD_ELEM = "method_elem";
export const CONST_DECLARATION = "const_declaration";
export const CONST_SPEC = "const_spec";
export const VAR_DECLARATION = "var_declaration";
export const VAR_SPEC = "var_spec";
export const PARAMETER_LIST = "parameter_list";
export const PARAMETER_DECLARATION = "parameter_declaration";
export const VARIADIC_PARAMETER_DECLARATION = "variadic_parameter_declaration";
export const COMMENT = "comment";

// ---- imports ----
export const IMPORT_DECLARATION = "import_declaration";
export const IMPORT_SPEC_LIST = "import_spec_list";
export const IMPORT_SPEC = "import_spec";

// ---- name tokens ----
export const IDENTIFIER = "identifier";
export const TYPE_IDENTIFIER = "type_identifier";
export const PACKAGE_IDENTIFIER = "package_identifier";

// ---- what binds a local, and the expressions a receiver is read from ----
export const SHORT_VAR_DECLARATION = "short_var_declaration";
export const ASSIGNMENT_STATEMENT = "assignment_statement";
export const RANGE_CLAUSE = "range_clause";
export const TYPE_SWITCH_STATEMENT = "type_switch_statement";
export const CALL_EXPRESSION = "call_expression";
export const SELECTOR_EXPRESSION = "selector_expression";
export const COMPOSITE_LITERAL = "composite_literal";
export const UNARY_EXPRESSION = "unary_expression";
export const PARENTHESIZED_EXPRESSION = "parenthesized_expression";
