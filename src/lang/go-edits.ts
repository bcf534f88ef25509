// Go's AST edit rules (lang/edit-rules.ts): functions, methods (owned by their receiver's type),
// types with their struct fields and interface methods, consts and vars as declarations; block
// scoping with `if`/`for`/`switch` initialisers; `:=` binding again what its scope has bound; a
// receiver or parameter typed by its declaration; a composite literal's field keys.
import { ancestorOf, firstTypeName, sameNode, type EditRules, type ImportBinding, type ImportRules, type ImportSpec } from "./edit-rules.js";
import * as GO from "./go-nodes.js";
import type { RuleNode } from "./outline.js";

const TYPE_NAMES = [GO.TYPE_IDENTIFIER];
const FUNCTIONS = [GO.FUNCTION_DECLARATION, GO.METHOD_DECLARATION, GO.FUNC_LITERAL];

/** Every node of a field (`const A, B = 1, 2` has two names). */
const allNamed = (node: RuleNode, field: string): RuleNode[] => node.childrenForFieldName(field);

/** A field key of a composite literal whose type is left out (`[]T{{n: 1}}`). */
const GO_EDITS_MEMBER_KEY = (token: RuleNode): boolean => {
  const element = token.parent;
  const keyed = element?.type === "literal_element" ? element.parent : null;
  return keyed?.type === "keyed_element" && sameNode(keyed.childForFieldName("key"), element!) && keyed.parent?.parent?.type !== GO.COMPOSITE_LITERAL;
};

/** The type of a composite literal, `&T{…}` included, or null. */
const literalType = (value: RuleNode | null): string | null => {
  const literal = value?.type === GO.UNARY_EXPRESSION ? value.childForFieldName("operand") : value;
  if (literal?.type !== GO.COMPOSITE_LITERAL) return null;
  const type = literal.childForFieldName("type");
  // `pkg.T{}`: the qualified name (a file-scoped rename finds no owner of it; navigation follows the package).
  return type?.type === GO.TYPE_IDENTIFIER || type?.type === "qualified_type" ? type.text : null;
};

// ---- imports ----

/** `"fmt"`, `fmt`, `str "strings"`, `_ "embed"`, optionally after `import`. */
function parseImport(raw: string): ImportSpec | string {
  const m = /^(?:import\s+)?(?:([A-Za-z_][A-Za-z0-9_]*|\.)\s+)?"?([^"\s]+)"?$/.exec(raw.trim());
  if (!m) return `not a Go import: ${JSON.stringify(raw)} (write '"fmt"', 'net/http' or 'str "strings"')`;
  return { module: m[2]!, defaultName: m[1] ?? null, namespace: null, names: [], typeOnly: false };
}

const specText = (spec: ImportSpec) => `${spec.defaultName ? `${spec.defaultName} ` : ""}"${spec.module}"`;

function importSpecs(statement: RuleNode): RuleNode[] {
  if (statement.type !== GO.IMPORT_DECLARATION) return [];
  const list = statement.namedChildren.find((c) => c.type === GO.IMPORT_SPEC_LIST);
  return (list ? list.namedChildren : statement.namedChildren).filter((c) => c.type === GO.IMPORT_SPEC);
}

function readSpec(spec: RuleNode): ImportSpec {
  const path = spec.childForFieldName("path")!.text.replace(/^["`]|["`]$/g, "");
  return { module: path, defaultName: spec.childForFieldName("name")?.text ?? null, namespace: null, names: [], typeOnly: false };
}

export const GO_IMPORTS: ImportRules = {
  parse: parseImport,
  // A package is named by its alias or its path's last segment (`_` and `.` bind no name).
  locals: (spec) => {
    const name = spec.defaultName ?? spec.module.slice(spec.module.lastIndexOf("/") + 1);
    return name === "_" || name === "." ? [] : [name];
  },
  read: (statement) => importSpecs(statement).map(readSpec),
  render: (spec) => ({ text: `import ${specText(spec)}` }),
  // Any import declaration takes another package: a block gets a line, a single import becomes a block.
  merge: (statement, spec, source) => {
    const specs = importSpecs(statement);
    // `import "C"` carries its cgo preamble: nothing joins it.
    if (specs.length === 0 || specs.some((s) => readSpec(s).module === "C")) return null;
    const list = statement.namedChildren.find((c) => c.type === GO.IMPORT_SPEC_LIST);
    if (list) {
      const last = specs.at(-1)!;
      const indent = /^[ \t]*/.exec(source.slice(source.lastIndexOf("\n", last.startIndex - 1) + 1))![0] || "\t";
      return { start: last.endIndex, end: last.endIndex, text: `\n${indent}${specText(spec)}` };
    }
    return { start: statement.startIndex, end: statement.endIndex, text: `import (\n\t${specs[0]!.text}\n\t${specText(spec)}\n)` };
  },
  without: (statement, spec, source) => {
    const specs = importSpecs(statement);
    const keep = specs.filter((s) => readSpec(s).module !== spec.module);
    if (keep.length === 0) return "all";
    const gone = specs.filter((s) => !keep.includes(s));
    // Each removed spec goes with its line.
    const first = gone[0]!;
    const start = source.lastIndexOf("\n", first.startIndex - 1);
    const last = gone.at(-1)!;
    if (gone.length === 1 || specs.indexOf(last) - specs.indexOf(first) === gone.length - 1) return { start, end: last.endIndex, text: "" };
    const list = statement.namedChildren.find((c) => c.type === GO.IMPORT_SPEC_LIST)!;
    const indent = /^[ \t]*/.exec(source.slice(source.lastIndexOf("\n", specs[0]!.startIndex - 1) + 1))![0];
    return { start: list.startIndex, end: list.endIndex, text: `(\n${keep.map((k) => `${indent}${k.text}`).join("\n")}\n)` };
  },
  firstAfter: (root) => root.namedChildren.find((c) => c.type === "package_clause") ?? null,
};

export const GO_EDITS: EditRules = {
  declarations: {
    [GO.FUNCTION_DECLARATION]: { kind: "function", body: "body" },
    [GO.METHOD_DECLARATION]: { kind: "method", body: "body", ownerName: (n) => firstTypeName(n.childForFieldName("receiver"), TYPE_NAMES) },
    [GO.TYPE_SPEC]: { kind: (n) => (n.childForFieldName("type")?.type === GO.INTERFACE_TYPE ? "interface" : n.childForFieldName("type")?.type === GO.STRUCT_TYPE ? "class" : "type") },
    [GO.TYPE_ALIAS]: { kind: "type" },
    [GO.CONST_SPEC]: { kind: "variable", name: (n) => allNamed(n, "name"), where: (n) => ancestorOf(n, FUNCTIONS) === null },
    [GO.VAR_SPEC]: { kind: "variable", name: (n) => allNamed(n, "name"), where: (n) => ancestorOf(n, FUNCTIONS) === null },
    [GO.FIELD_DECLARATION]: { kind: "field", name: (n) => allNamed(n, "name") },
    [GO.METHOD_ELEM]: { kind: "method" },
  },
  owners: {
    [GO.TYPE_SPEC]: {
      name: (n) => n.childForFieldName("name")?.text ?? null,
      members: (n) => {
        const type = n.childForFieldName("type");
        if (type?.type === GO.STRUCT_TYPE) return type.namedChildren.find((c) => c.type === GO.FIELD_DECLARATION_LIST) ?? null;
        return type?.type === GO.INTERFACE_TYPE ? type : null;
      },
    },
  },
  wrappers: [GO.TYPE_DECLARATION, GO.CONST_DECLARATION, GO.VAR_DECLARATION],
  leading: [GO.COMMENT],
  indent: "\t",
  braces: true,
  identifiers: [GO.IDENTIFIER, GO.TYPE_IDENTIFIER, GO.PACKAGE_IDENTIFIER],
  shorthand: () => null,
  scopes: [
    "source_file",
    GO.FUNCTION_DECLARATION,
    GO.METHOD_DECLARATION,
    GO.FUNC_LITERAL,
    "block",
    "if_statement",
    "for_statement",
    "expression_switch_statement",
    GO.TYPE_SWITCH_STATEMENT,
    "select_statement",
    "expression_case",
    "type_case",
    "default_case",
    "communication_case",
  ],
  functionScopes: FUNCTIONS,
  classScopes: [],
  bindings: {
    [GO.FUNCTION_DECLARATION]: { kind: GO.FUNCTION_DECLARATION, fields: ["name"], scope: "enclosing" },
    [GO.TYPE_SPEC]: { kind: GO.TYPE_SPEC, fields: ["name"], scope: "enclosing" },
    [GO.TYPE_ALIAS]: { kind: GO.TYPE_SPEC, fields: ["name"], scope: "enclosing" },
    [GO.CONST_SPEC]: { kind: GO.CONST_SPEC, fields: ["name"], scope: "enclosing" },
    [GO.VAR_SPEC]: { kind: GO.VAR_SPEC, fields: ["name"], scope: "enclosing" },
    [GO.PARAMETER_LIST]: { kind: "parameter", fields: null, scope: "enclosing", where: (n) => FUNCTIONS.includes(n.parent?.type ?? "") },
    // `:=` declares from the statement on (a use above it is the outer name's), and binds again a name the scope has.
    [GO.SHORT_VAR_DECLARATION]: { kind: "variable_declarator", fields: ["left"], scope: "enclosing", sequential: true, rebinds: true },
    [GO.RANGE_CLAUSE]: { kind: "variable_declarator", fields: ["left"], scope: "enclosing", sequential: true, rebinds: true, where: (n) => n.children.some((c) => c.type === ":=") },
    [GO.TYPE_SWITCH_STATEMENT]: { kind: "variable_declarator", fields: ["alias"], scope: "self" },
    type_parameter_declaration: { kind: "type_parameter", fields: ["name"], scope: "enclosing" },
  },
  patterns: { expression_list: null, [GO.PARAMETER_DECLARATION]: ["name"], [GO.VARIADIC_PARAMETER_DECLARATION]: ["name"] },
  opaque: [],
  memberAccess: { [GO.SELECTOR_EXPRESSION]: { object: "operand", member: "field" } },
  access: {
    assignments: { [GO.ASSIGNMENT_STATEMENT]: "left" },
    updates: ["inc_statement", "dec_statement"],
    calls: { [GO.CALL_EXPRESSION]: "function" },
    nesting: ["expression_list", GO.PARENTHESIZED_EXPRESSION],
  },
  pathScope: () => undefined,
  isKey: (token) => {
    const parent = token.parent;
    if (!parent) return false;
    if (GO_EDITS_MEMBER_KEY(token)) return true;
    // `pkg.Type`: a name in another package.
    if (parent.type === "qualified_type") return sameNode(parent.childForFieldName("name"), token);
    // `T{name: …}`: a struct literal's field key (a map literal's keys are expressions).
    if (parent.type === "literal_element" && parent.parent?.type === "keyed_element" && sameNode(parent.parent.childForFieldName("key"), parent)) {
      const literal = parent.parent.parent?.parent;
      const type = literal?.type === GO.COMPOSITE_LITERAL ? literal.childForFieldName("type") : null;
      return type !== null && type !== undefined && !["map_type", "slice_type", "array_type", "implicit_length_array_type"].includes(type.type);
    }
    return false;
  },
  selfOwner: () => null,
  bindingType: (name) => {
    const parent = name.parent;
    if (!parent) return null;
    if (parent.type === GO.PARAMETER_DECLARATION || parent.type === GO.VAR_SPEC)
      return firstTypeName(parent.childForFieldName("type"), TYPE_NAMES) ?? (parent.type === GO.VAR_SPEC ? literalType(parent.childForFieldName("value")?.namedChildren[0] ?? null) : null);
    if (parent.type === "expression_list" && parent.parent?.type === GO.SHORT_VAR_DECLARATION && sameNode(parent.parent.childForFieldName("left"), parent)) {
      const index = parent.namedChildren.findIndex((c) => sameNode(c, name));
      return literalType(parent.parent.childForFieldName("right")?.namedChildren[index] ?? null);
    }
    return null;
  },
  // `[]T{{n: 1}}`: a field key of a literal whose type is left out.
  memberKey: GO_EDITS_MEMBER_KEY,
  strings: ["raw_string_literal", "interpreted_string_literal"],
  literalFieldOwner: (token) => {
    const element = token.parent;
    const keyed = element?.type === "literal_element" ? element.parent : null;
    if (keyed?.type !== "keyed_element" || !sameNode(keyed.childForFieldName("key"), element!)) return null;
    const literal = keyed.parent?.parent;
    return literal?.type === GO.COMPOSITE_LITERAL ? literalType(literal) : null;
  },
  importStatements: [GO.IMPORT_DECLARATION],
  imports: GO_IMPORTS,
  importBindings: (statement) => {
    const out: ImportBinding[] = [];
    const stack = [...statement.namedChildren];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.type === GO.IMPORT_SPEC_LIST) stack.push(...n.namedChildren);
      else if (n.type === GO.IMPORT_SPEC) {
        const name = n.childForFieldName("name");
        if (name?.type === GO.PACKAGE_IDENTIFIER) out.push({ token: name, rename: "replace" });
      }
    }
    return out;
  },
  qualifiedTypes: { qualified_type: { object: "package", member: "name" } },
  exportedByName: (name) => /^\p{Lu}/u.test(name),
  // Go imports name packages, never their members: an intent renames `pkg.Name` uses (namespace sites), no import statement.
  importedNameTokens: () => [],
  limitations: [
    "rename-symbol is file-scoped, but a Go package spans its directory: names used by the package's other files are not changed there",
    "a package imported without a name cannot be renamed (its name is the package's own)",
    "a method or field is renamed where its object is a receiver, parameter or variable of the type (`var x T`, `x := T{…}`, `x := &T{…}`) and in the type's composite literals; other accesses are listed as unresolved",
  ],
};
