// The AST edit rules of TypeScript, TSX and JavaScript (one table: the grammars share their node
// types; the TypeScript-only ones never occur in a JavaScript tree): declarations and their
// bodies, classes and interfaces as owners, bindings and their scopes, shorthand properties and
// export specifiers, `this`, and the types annotations and `new` give a name.
import { ancestorOf, firstTypeName, sameNode, type EditRules } from "./edit-rules.js";
import { ECMASCRIPT_IMPORTS } from "./ecmascript-imports.js";
import type { RuleNode } from "./outline.js";

const FUNCTION_VALUES = ["arrow_function", "function_expression", "function", "generator_function"];
/** Functions with their own `this` (an arrow function sees its enclosing one). */
const THIS_FUNCTIONS = ["function_declaration", "generator_function_declaration", "function_expression", "function", "generator_function"];
const TYPE_NAMES = ["type_identifier", "identifier"];
/** The nodes whose `name` is a JSX tag. */
const JSX_TAGS = ["jsx_opening_element", "jsx_closing_element", "jsx_self_closing_element"];
/** Code whose variables are locals. */
const LOCAL_SCOPES = [...THIS_FUNCTIONS, "arrow_function", "method_definition", "class_static_block"];
/** Parameter lists of types and signatures: their names bind nothing a body uses. */
const SIGNATURE_PARENTS = ["function_type", "constructor_type", "method_signature", "abstract_method_signature", "call_signature", "construct_signature", "function_signature"];

const fieldIs = (node: RuleNode, field: string, child: RuleNode): boolean => sameNode(node.childForFieldName(field), child);

/** The function a declarator's value is (`const f = () => …`), or null. */
const functionValue = (declarator: RuleNode): RuleNode | null => {
  const value = declarator.childForFieldName("value");
  return value && FUNCTION_VALUES.includes(value.type) ? value : null;
};

/** A constructor parameter with an accessibility or `readonly` modifier: a field of its class. */
const isParameterProperty = (n: RuleNode): boolean => n.children.some((c) => c.type === "accessibility_modifier" || c.type === "readonly" || c.type === "override_modifier");

/** The name of the class a node is in. */
const classOf = (n: RuleNode): string | null => ancestorOf(n, ["class_declaration", "abstract_class_declaration"])?.childForFieldName("name")?.text ?? null;

/** The name node when it is one identifier (not a destructuring pattern). */
const plainName = (node: RuleNode, field = "name"): RuleNode[] => {
  const name = node.childForFieldName(field);
  return name && name.namedChildren.length === 0 ? [name] : [];
};

export const ECMASCRIPT_EDITS: EditRules = {
  declarations: {
    function_declaration: { kind: "function", body: "body" },
    generator_function_declaration: { kind: "function", body: "body" },
    function_signature: { kind: "function" },
    class_declaration: { kind: "class" },
    abstract_class_declaration: { kind: "class" },
    interface_declaration: { kind: "interface" },
    type_alias_declaration: { kind: "type" },
    enum_declaration: { kind: "enum" },
    internal_module: { kind: "namespace", name: (n) => plainName(n) },
    method_definition: { kind: "method", body: "body" },
    method_signature: { kind: "method" },
    abstract_method_signature: { kind: "method" },
    public_field_definition: { kind: "field", body: (n) => functionValue(n)?.childForFieldName("body") ?? null },
    field_definition: { kind: "field", name: (n) => plainName(n, "property"), body: (n) => functionValue(n)?.childForFieldName("body") ?? null },
    property_signature: { kind: "field" },
    enum_assignment: { kind: "field" },
    property_identifier: { kind: "field", name: (n) => [n], where: (n) => n.parent?.type === "enum_body" },
    // `constructor(private repo: Repo)`: a parameter that declares a field of the class.
    required_parameter: { kind: "field", name: (n) => plainName(n, "pattern"), where: isParameterProperty, ownerName: classOf },
    optional_parameter: { kind: "field", name: (n) => plainName(n, "pattern"), where: isParameterProperty, ownerName: classOf },
    variable_declarator: {
      kind: (n) => (functionValue(n) ? "function" : "variable"),
      name: (n) => plainName(n),
      // A function's locals are no declarations of the file, unless they hold a function.
      where: (n) => functionValue(n) !== null || ancestorOf(n, LOCAL_SCOPES) === null,
      body: (n) => functionValue(n)?.childForFieldName("body") ?? null,
    },
  },
  owners: {
    class_declaration: { name: (n) => n.childForFieldName("name")?.text ?? null, members: (n) => n.childForFieldName("body") },
    abstract_class_declaration: { name: (n) => n.childForFieldName("name")?.text ?? null, members: (n) => n.childForFieldName("body") },
    interface_declaration: { name: (n) => n.childForFieldName("name")?.text ?? null, members: (n) => n.childForFieldName("body") },
    enum_declaration: { name: (n) => n.childForFieldName("name")?.text ?? null, members: (n) => n.childForFieldName("body") },
    type_alias_declaration: {
      name: (n) => n.childForFieldName("name")?.text ?? null,
      members: (n) => {
        const value = n.childForFieldName("value");
        return value?.type === "object_type" ? value : null;
      },
    },
  },
  wrappers: ["export_statement", "lexical_declaration", "variable_declaration", "ambient_declaration", "expression_statement"],
  leading: ["comment", "decorator"],
  indent: "  ",
  braces: true,
  identifiers: ["identifier", "type_identifier", "shorthand_property_identifier", "shorthand_property_identifier_pattern"],
  shorthand: (token) => {
    if (token.type === "shorthand_property_identifier" || token.type === "shorthand_property_identifier_pattern") return "key";
    const parent = token.parent;
    return parent?.type === "export_specifier" && parent.childForFieldName("alias") === null && fieldIs(parent, "name", token) ? "alias" : null;
  },
  scopes: [
    "program",
    "statement_block",
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
    "class_declaration",
    "abstract_class_declaration",
    "interface_declaration",
    "type_alias_declaration",
    "for_statement",
    "for_in_statement",
    "catch_clause",
    "switch_body",
    "class_static_block",
  ],
  // `namespace N { … }` written twice is one namespace: its bodies share their names.
  scopeKey: (scope) => {
    const ns = scope.type === "statement_block" && scope.parent?.type === "internal_module" ? scope.parent : null;
    const outer = ns ? ancestorOf(ns, ["program", "statement_block"]) : null;
    return ns && outer ? `namespace ${ns.childForFieldName("name")?.text ?? ""} in ${outer.startIndex}` : null;
  },
  functionScopes: [
    "program",
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
    "class_static_block",
  ],
  classScopes: [],
  bindings: {
    lexical_declaration: { kind: "variable_declarator", fields: null, scope: "enclosing" },
    variable_declaration: { kind: "variable_declarator", fields: null, scope: "function", rebinds: true },
    function_declaration: { kind: "function_declaration", fields: ["name"], scope: "enclosing" },
    generator_function_declaration: { kind: "function_declaration", fields: ["name"], scope: "enclosing" },
    function_signature: { kind: "function_declaration", fields: ["name"], scope: "enclosing", rebinds: true },
    function_expression: { kind: "function_expression", fields: ["name"], scope: "self" },
    class_declaration: { kind: "class_declaration", fields: ["name"], scope: "enclosing" },
    abstract_class_declaration: { kind: "class_declaration", fields: ["name"], scope: "enclosing" },
    // Interfaces merge with each other and with a class of their name: one symbol.
    interface_declaration: { kind: "interface_declaration", fields: ["name"], scope: "enclosing", rebinds: true },
    type_alias_declaration: { kind: "type_alias_declaration", fields: ["name"], scope: "enclosing" },
    enum_declaration: { kind: "enum_declaration", fields: ["name"], scope: "enclosing" },
    internal_module: { kind: "namespace", fields: ["name"], scope: "enclosing", rebinds: true },
    formal_parameters: { kind: "parameter", fields: null, scope: "enclosing", where: (n) => !SIGNATURE_PARENTS.includes(n.parent?.type ?? "") },
    arrow_function: { kind: "parameter", fields: ["parameter"], scope: "self" },
    catch_clause: { kind: "parameter", fields: ["parameter"], scope: "self" },
    for_in_statement: { kind: "variable_declarator", fields: ["left"], scope: "self", where: (n) => n.childForFieldName("kind") !== null },
    type_parameter: { kind: "type_parameter", fields: ["name"], scope: "enclosing" },
  },
  patterns: {
    variable_declarator: ["name"],
    object_pattern: null,
    array_pattern: null,
    pair_pattern: ["value"],
    assignment_pattern: ["left"],
    object_assignment_pattern: ["left"],
    rest_pattern: null,
    required_parameter: ["pattern"],
    optional_parameter: ["pattern"],
  },
  opaque: [],
  memberAccess: { member_expression: { object: "object", member: "property" } },
  access: {
    assignments: { assignment_expression: "left", augmented_assignment_expression: "left" },
    updates: ["update_expression"],
    calls: { call_expression: "function", new_expression: "constructor" },
    nesting: ["object_pattern", "array_pattern", "pair_pattern", "assignment_pattern", "object_assignment_pattern", "rest_pattern", "parenthesized_expression", "non_null_expression"],
  },
  pathScope: () => undefined,
  isKey: (token) => {
    const parent = token.parent;
    if (!parent) return false;
    // `<div>`: a lowercase tag is an element, not a name.
    if (JSX_TAGS.includes(parent.type) && /^[a-z]/.test(token.text)) return true;
    if (parent.type === "export_specifier") return fieldIs(parent, "alias", token);
    if (parent.type === "import_specifier") return parent.childForFieldName("alias") !== null && fieldIs(parent, "name", token);
    if (parent.type === "nested_type_identifier") return fieldIs(parent, "name", token);
    return false;
  },
  selfOwner: (object, ownerOf) => {
    if (object.type !== "this") return null;
    for (let n = object.parent; n; n = n.parent) {
      // An object literal's method has the object as `this`.
      if (THIS_FUNCTIONS.includes(n.type) || (n.type === "method_definition" && n.parent?.type === "object")) return null;
      if (n.type === "class_body") return n.parent ? ownerOf(n.parent) : null;
    }
    return null;
  },
  bindingType: (name) => {
    const parent = name.parent;
    if (!parent) return null;
    if ((parent.type === "required_parameter" || parent.type === "optional_parameter") && fieldIs(parent, "pattern", name)) {
      return firstTypeName(parent.childForFieldName("type"), TYPE_NAMES);
    }
    if (parent.type === "variable_declarator" && fieldIs(parent, "name", name)) {
      const annotated = firstTypeName(parent.childForFieldName("type"), TYPE_NAMES);
      if (annotated) return annotated;
      const value = parent.childForFieldName("value");
      return value?.type === "new_expression" ? (value.childForFieldName("constructor")?.text ?? null) : null;
    }
    return null;
  },
  literalFieldOwner: () => null,
  // `with (o) { x }`: x may be o.x. `eval(code)` (called by its own name, not `?.`: a direct eval) runs code that sees and may declare the caller's names.
  dynamic: {
    bodies: { with_statement: "body" },
    callee: "eval",
    isCall: (token) => token.parent?.type === "call_expression" && fieldIs(token.parent, "function", token) && token.parent.childForFieldName("optional_chain") === null,
  },
  literalKey: (token) => token.type === "shorthand_property_identifier" || (token.type === "property_identifier" && token.parent?.type === "pair" && fieldIs(token.parent, "key", token)),
  memberKey: (token) =>
    token.type === "shorthand_property_identifier" ||
    token.type === "shorthand_property_identifier_pattern" ||
    (token.type === "property_identifier" && (token.parent?.type === "pair" || token.parent?.type === "pair_pattern") && fieldIs(token.parent, "key", token)),
  renameProblem: (use, newName) => (JSX_TAGS.includes(use.parent?.type ?? "") && /^[a-z]/.test(newName) ? "a JSX tag with a lowercase name is an HTML element, not this component" : null),
  strings: ["string", "template_string"],
  importStatements: ["import_statement"],
  imports: ECMASCRIPT_IMPORTS,
  importBindings: (statement) => {
    const out: Array<{ token: RuleNode; rename: "replace" | "alias" }> = [];
    const clause = statement.namedChildren.find((c) => c.type === "import_clause");
    for (const part of clause?.namedChildren ?? []) {
      if (part.type === "identifier") out.push({ token: part, rename: "replace" });
      else if (part.type === "namespace_import") {
        const id = part.namedChildren.find((c) => c.type === "identifier");
        if (id) out.push({ token: id, rename: "replace" });
      } else if (part.type === "named_imports") {
        for (const spec of part.namedChildren) {
          if (spec.type !== "import_specifier") continue;
          const alias = spec.childForFieldName("alias");
          const name = spec.childForFieldName("name");
          if (alias) out.push({ token: alias, rename: "replace" });
          else if (name?.type === "identifier") out.push({ token: name, rename: "alias" });
        }
      }
    }
    return out;
  },
  parameterList: (declaration) => {
    const fn = declaration.type === "variable_declarator" ? declaration.childForFieldName("value") : declaration;
    const params = fn?.childForFieldName("parameters");
    if (!fn || !params || params.type !== "formal_parameters") return null;
    const items = params.namedChildren.filter((c) => c.type !== "comment");
    const last = items.at(-1);
    const blocking = items.find(
      (p) => p.type === "optional_parameter" || p.childForFieldName("value") !== null || p.childForFieldName("pattern")?.type === "rest_pattern" || p.type === "rest_pattern",
    );
    return {
      count: items.length,
      blocked: blocking ? `its parameter \`${blocking.text.slice(0, 60)}\` is optional, has a default or takes the rest, so a required one cannot follow it` : null,
      append: (text) => (last ? { start: last.endIndex, end: last.endIndex, text: `, ${text}` } : { start: params.startIndex + 1, end: params.startIndex + 1, text }),
    };
  },
  callArguments: (node, names) => {
    if (node.type !== "call_expression" && node.type !== "new_expression") return null;
    const fn = node.childForFieldName(node.type === "new_expression" ? "constructor" : "function");
    const callee = fn?.type === "member_expression" ? fn.childForFieldName("property")?.text : fn?.text;
    if (callee === undefined || !names.includes(callee)) return null;
    const args = node.childForFieldName("arguments");
    if (!args || args.type !== "arguments") return "unplaceable";
    const items = args.namedChildren.filter((c) => c.type !== "comment");
    if (items.some((c) => c.type === "spread_element")) return "unplaceable";
    const last = items.at(-1);
    return {
      count: items.length,
      append: (text) => (last ? { start: last.endIndex, end: last.endIndex, text: `, ${text}` } : { start: args.startIndex + 1, end: args.startIndex + 1, text }),
    };
  },
  importedNameTokens: (root, name) => {
    const out: Array<{ token: RuleNode; statement: RuleNode }> = [];
    for (const statement of root.namedChildren) {
      if (statement.type !== "import_statement" && (statement.type !== "export_statement" || !statement.childForFieldName("source"))) continue;
      const stack = [...statement.namedChildren];
      while (stack.length > 0) {
        const n = stack.pop()!;
        if (n.type === "import_specifier" || n.type === "export_specifier") {
          const imported = n.childForFieldName("name");
          if (imported?.text === name) out.push({ token: imported, statement });
        } else if (n.type === "named_imports" || n.type === "import_clause" || n.type === "export_clause") stack.push(...n.namedChildren);
      }
    }
    return out;
  },
  limitations: [
    "rename-symbol is file-scoped: importers of an exported name are not changed (plan a cross-file rename with mast_rename_impact)",
    "a member is renamed where its object is `this`, the class itself, or a name annotated with or constructed as the class; other accesses of the name are listed as unresolved, not changed",
    "a variable's uses inside a `with` body, or in the function of a direct `eval` that sees it, cannot be told from the text: they are listed as unresolved and the rename is refused unless accepted (--yes)",
  ],
};
