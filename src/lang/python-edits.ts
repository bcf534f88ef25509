// Python's AST edit rules (lang/edit-rules.ts): functions, classes and module- or class-level
// assignments as declarations, classes as owners, the scopes of modules, functions, classes (not
// seen from their methods), lambdas and comprehensions, and what binds a name there.
import { firstTypeName, type EditRules, type ImportBinding } from "./edit-rules.js";
import type { RuleNode } from "./outline.js";

/** A statement directly in the module or in a class body. */
const atModuleOrClassLevel = (node: RuleNode): boolean => {
  const statement = node.parent?.type === "expression_statement" ? node.parent : null;
  const container = statement?.parent;
  return container?.type === "module" || (container?.type === "block" && container.parent?.type === "class_definition");
};

/** The class a function is a method of (its body's class), or null. */
const methodClass = (fn: RuleNode | null): RuleNode | null => {
  const host = fn?.parent?.type === "decorated_definition" ? fn.parent : fn;
  const block = host?.parent;
  return block?.type === "block" && block.parent?.type === "class_definition" ? block.parent : null;
};

const sameNode = (a: RuleNode | null, b: RuleNode): boolean => a !== null && a.startIndex === b.startIndex && a.type === b.type;

export const PYTHON_EDITS: EditRules = {
  declarations: {
    function_definition: { kind: "function", body: "body" },
    class_definition: { kind: "class" },
    assignment: {
      kind: "variable",
      name: (n) => {
        const left = n.childForFieldName("left");
        return left?.type === "identifier" ? [left] : [];
      },
      where: atModuleOrClassLevel,
    },
  },
  owners: {
    class_definition: { name: (n) => n.childForFieldName("name")?.text ?? null, members: (n) => n.childForFieldName("body") },
  },
  wrappers: ["decorated_definition", "expression_statement"],
  leading: ["comment"],
  indent: "    ",
  braces: false,
  identifiers: ["identifier"],
  shorthand: () => null,
  scopes: ["module", "function_definition", "class_definition", "lambda", "list_comprehension", "dictionary_comprehension", "set_comprehension", "generator_expression"],
  functionScopes: ["function_definition", "lambda"],
  classScopes: ["class_definition"],
  bindings: {
    function_definition: { kind: "function_definition", fields: ["name"], scope: "enclosing" },
    class_definition: { kind: "class_definition", fields: ["name"], scope: "enclosing" },
    parameters: { kind: "parameter", fields: null, scope: "enclosing" },
    lambda_parameters: { kind: "parameter", fields: null, scope: "enclosing" },
    assignment: { kind: "variable_declarator", fields: ["left"], scope: "enclosing", rebinds: true },
    augmented_assignment: { kind: "variable_declarator", fields: ["left"], scope: "enclosing", rebinds: true },
    for_statement: { kind: "variable_declarator", fields: ["left"], scope: "enclosing", rebinds: true },
    for_in_clause: { kind: "variable_declarator", fields: ["left"], scope: "enclosing", rebinds: true },
    as_pattern: { kind: "variable_declarator", fields: ["alias"], scope: "enclosing", rebinds: true },
    named_expression: { kind: "variable_declarator", fields: ["name"], scope: "enclosing", rebinds: true },
  },
  patterns: {
    pattern_list: null,
    tuple_pattern: null,
    list_pattern: null,
    list_splat_pattern: null,
    dictionary_splat_pattern: null,
    as_pattern_target: null,
    default_parameter: ["name"],
    typed_parameter: { except: ["type"] },
    typed_default_parameter: ["name"],
  },
  opaque: [],
  memberAccess: { attribute: { object: "object", member: "attribute" } },
  pathScope: () => undefined,
  isKey: (token) => {
    const parent = token.parent;
    if (!parent) return false;
    if (parent.type === "keyword_argument") return sameNode(parent.childForFieldName("name"), token);
    // Module paths and imported names (`import a.b`, `from m import x as y`): what an import binds is found before keys are.
    return parent.type === "dotted_name";
  },
  selfOwner: () => null,
  bindingType: (name) => {
    const parent = name.parent;
    if (!parent) return null;
    // A method's first parameter is its instance (or class).
    if (parent.type === "parameters" && sameNode(parent.namedChildren[0] ?? null, name)) {
      const cls = methodClass(parent.parent);
      return cls?.childForFieldName("name")?.text ?? null;
    }
    if ((parent.type === "typed_parameter" || parent.type === "typed_default_parameter") && !sameNode(parent.childForFieldName("type"), name)) {
      return firstTypeName(parent.childForFieldName("type"), ["identifier"]);
    }
    if (parent.type === "assignment" && sameNode(parent.childForFieldName("left"), name)) {
      const annotated = firstTypeName(parent.childForFieldName("type"), ["identifier"]);
      if (annotated) return annotated;
      const right = parent.childForFieldName("right");
      const fn = right?.type === "call" ? right.childForFieldName("function") : null;
      return fn?.type === "identifier" ? fn.text : null;
    }
    return null;
  },
  literalFieldOwner: () => null,
  importStatements: ["import_statement", "import_from_statement", "future_import_statement"],
  importBindings: (statement) => {
    const out: ImportBinding[] = [];
    const names = statement.type === "import_from_statement" ? statement.namedChildren.filter((c) => !sameNode(statement.childForFieldName("module_name"), c)) : statement.namedChildren;
    for (const part of names) {
      if (part.type === "aliased_import") {
        const alias = part.childForFieldName("alias");
        if (alias) out.push({ token: alias, rename: "replace" });
      } else if (part.type === "dotted_name" && part.namedChildren.length === 1) {
        // `import os` binds `os`; `import a.b` binds `a` to the package, which a rename cannot alias.
        out.push({ token: part.namedChildren[0]!, rename: "alias" });
      }
    }
    return out;
  },
  limitations: [
    "rename-symbol is file-scoped: modules importing the name are not changed",
    "`global` and `nonlocal` declarations are not followed: a name they share between scopes is refused as ambiguous",
    "an attribute is renamed where its object is `self` (a method's first parameter), the class itself, or a name annotated with or constructed as the class; other accesses are listed as unresolved",
  ],
};
