// tree-sitter-rust's node types that Rust's extractor (syntax/rust.ts, rust-imports.ts) and its
// AST edit rules (rust-edits.ts) both read, spelled once: a grammar that renames one is followed
// here. A name only one of them reads stays a literal there.

// ---- items, their parts, attributes and comments ----
export const FUNCTION_ITEM = "function_item";
export const FUNCTION_SIGNATURE_ITEM = "function_signature_item";
export const STRUCT_ITEM = "struct_item";
export const UNION_ITEM = "union_item";
export const ENUM_ITEM = "enum_item";
export const TYPE_ITEM = "type_item";
export const CONST_ITEM = "const_item";
export const STATIC_ITEM = "static_item";
export const TRAIT_ITEM = "trait_item";
export const IMPL_ITEM = "impl_item";
export const MOD_ITEM = "mod_item";
export const DECLARATION_LIST = "declaration_list";
export const FIELD_DECLARATION = "field_declaration";
export const PARAMETER = "parameter";
export const ATTRIBUTE_ITEM = "attribute_item";
export const INNER_ATTRIBUTE_ITEM = "inner_attribute_item";
export const LINE_COMMENT = "line_comment";
export const BLOCK_COMMENT = "block_comment";

// ---- `use` trees and paths ----
export const USE_DECLARATION = "use_declaration";
export const USE_AS_CLAUSE = "use_as_clause";
export const USE_LIST = "use_list";
export const SCOPED_USE_LIST = "scoped_use_list";
export const SCOPED_IDENTIFIER = "scoped_identifier";
export const CRATE = "crate";
export const SELF = "self";
export const SUPER = "super";

// ---- name tokens ----
export const IDENTIFIER = "identifier";
export const TYPE_IDENTIFIER = "type_identifier";

// ---- what binds a local, and the expressions a receiver is read from ----
export const LET_DECLARATION = "let_declaration";
export const LET_CONDITION = "let_condition";
export const ASSIGNMENT_EXPRESSION = "assignment_expression";
export const FOR_EXPRESSION = "for_expression";
export const CLOSURE_EXPRESSION = "closure_expression";
export const MATCH_ARM = "match_arm";
export const TUPLE_PATTERN = "tuple_pattern";
export const TUPLE_STRUCT_PATTERN = "tuple_struct_pattern";
export const CALL_EXPRESSION = "call_expression";
export const FIELD_EXPRESSION = "field_expression";
export const STRUCT_EXPRESSION = "struct_expression";
export const TUPLE_EXPRESSION = "tuple_expression";
export const TOKEN_TREE = "token_tree";
