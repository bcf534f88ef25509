// Python's AST edit rules (lang/edit-rules.ts): functions, classes and module- or class-level
// assignments as declarations, classes as owners, the scopes of modules, functions, classes (not
// seen from their methods), lambdas and comprehensions, and what binds a name there.
import { ancestorOf, appendItems, firstTypeName, sameNode, type EditRules, type ImportBinding, type ImportRules, type ImportSpec } from "./edit-rules.js";
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

// ---- imports ----

const IMPORTS = ["import_statement", "import_from_statement", "future_import_statement"];
const PY_NAME = "[A-Za-z_][A-Za-z0-9_]*";
const PY_DOTTED = `\\.*(?:${PY_NAME}(?:\\.${PY_NAME})*)?`;

function parseNames(list: string): ImportSpec["names"] | null {
  const out: Array<{ name: string; alias: string | null }> = [];
  for (const part of list
    .replace(/^\(|\)$/g, "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")) {
    const m = new RegExp(`^(${PY_NAME}|\\*)(?:\\s+as\\s+(${PY_NAME}))?$`).exec(part);
    if (!m) return null;
    out.push({ name: m[1]!, alias: m[2] ?? null });
  }
  return out;
}

/** `import a.b [as c]`, `from m import x, y as z`, or the ESM forms `{ x } from m` and `* as np from numpy`. */
function parseImport(raw: string): ImportSpec | string {
  const spec = raw.trim();
  const plain = new RegExp(`^import\\s+(${PY_DOTTED})(?:\\s+as\\s+(${PY_NAME}))?$`).exec(spec) ?? new RegExp(`^\\*\\s*as\\s+(${PY_NAME})\\s+from\\s+(${PY_DOTTED})$`).exec(spec);
  if (plain) {
    const esm = spec.startsWith("*");
    return { module: esm ? plain[2]! : plain[1]!, defaultName: null, namespace: esm ? plain[1]! : (plain[2] ?? null), names: [], typeOnly: false };
  }
  const from = new RegExp(`^from\\s+(${PY_DOTTED})\\s+import\\s+(.+)$`, "s").exec(spec) ?? new RegExp(`^\\{([^}]*)\\}\\s*from\\s+(${PY_DOTTED})$`).exec(spec);
  if (from) {
    const esm = spec.startsWith("{");
    const names = parseNames(esm ? from[1]! : from[2]!);
    if (names === null || names.length === 0) return `cannot read the names of ${JSON.stringify(raw)}`;
    return { module: esm ? from[2]! : from[1]!, defaultName: null, namespace: null, names, typeOnly: false };
  }
  if (new RegExp(`^${PY_DOTTED}$`).test(spec) && spec !== "") return { module: spec, defaultName: null, namespace: null, names: [], typeOnly: false };
  return `not a Python import: ${JSON.stringify(raw)} (write 'import a.b', 'import a as b', 'from m import x, y as z', or '{ x } from m')`;
}

function readImport(statement: RuleNode): ImportSpec[] {
  if (statement.type === "import_statement") {
    return statement.namedChildren.map((part) =>
      part.type === "aliased_import"
        ? { module: part.childForFieldName("name")!.text, defaultName: null, namespace: part.childForFieldName("alias")?.text ?? null, names: [], typeOnly: false }
        : { module: part.text, defaultName: null, namespace: null, names: [], typeOnly: false },
    );
  }
  if (statement.type !== "import_from_statement" && statement.type !== "future_import_statement") return [];
  const moduleNode = statement.childForFieldName("module_name");
  const module = statement.type === "future_import_statement" ? "__future__" : (moduleNode?.text ?? "");
  const names = importedNames(statement).map((n) =>
    n.type === "aliased_import" ? { name: n.childForFieldName("name")!.text, alias: n.childForFieldName("alias")?.text ?? null } : { name: n.type === "wildcard_import" ? "*" : n.text, alias: null },
  );
  return [{ module, defaultName: null, namespace: null, names, typeOnly: false }];
}

/** The names a from-import lists (not its module). */
function importedNames(statement: RuleNode): RuleNode[] {
  const moduleNode = statement.childForFieldName("module_name");
  return statement.namedChildren.filter((c) => !sameNode(moduleNode, c) && c.type !== "comment");
}

const item = (n: { name: string; alias: string | null }) => (n.alias ? `${n.name} as ${n.alias}` : n.name);

/** Python's AST edit rules for imports (lang/edit-rules.ts). */
export const PYTHON_IMPORTS: ImportRules = {
  parse: parseImport,
  // `import a.b` binds `a`; `import a.b as c` and `from m import x as c` bind `c`.
  locals: (spec) =>
    (spec.names.length ? spec.names.map((n) => n.alias ?? n.name).filter((n) => n !== "*") : [spec.namespace ?? spec.module.replace(/^\.+/, "").split(".")[0]!]).filter((n) => n !== ""),
  read: readImport,
  render: (spec) => ({ text: spec.names.length ? `from ${spec.module} import ${spec.names.map(item).join(", ")}` : `import ${spec.module}${spec.namespace ? ` as ${spec.namespace}` : ""}` }),
  merge: (statement, spec, source) => {
    if (statement.type !== "import_from_statement" || spec.names.length === 0) return null;
    const current = readImport(statement)[0]!;
    if (current.module !== spec.module || current.names.some((n) => n.name === "*")) return null;
    return appendItems(importedNames(statement).at(-1)!, { start: statement.startIndex, end: statement.endIndex }, spec.names.map(item), source);
  },
  without: (statement, spec, source) => {
    if (statement.type === "import_statement" || spec.names.length === 0) {
      const parts = statement.namedChildren;
      const keep = parts.filter((p) => (p.type === "aliased_import" ? p.childForFieldName("name")!.text : p.text) !== spec.module);
      if (statement.type !== "import_statement" || keep.length === 0) return "all";
      return { start: parts[0]!.startIndex, end: parts.at(-1)!.endIndex, text: keep.map((k) => k.text).join(", ") };
    }
    const names = importedNames(statement);
    const removed = new Set(spec.names.map((n) => n.name));
    const keep = names.filter((n) => !removed.has(n.type === "aliased_import" ? n.childForFieldName("name")!.text : n.text));
    if (keep.length === 0) return "all";
    const text = source.slice(names[0]!.startIndex, names.at(-1)!.endIndex);
    const separator = text.includes("\n") ? `,\n${/^[ \t]*/.exec(source.slice(source.lastIndexOf("\n", names[0]!.startIndex - 1) + 1))![0]}` : ", ";
    return { start: names[0]!.startIndex, end: names.at(-1)!.endIndex, text: keep.map((k) => k.text).join(separator) };
  },
  // After leading comments, the module docstring and `from __future__` imports.
  firstAfter: (root) => {
    let after: RuleNode | null = null;
    let statements = 0;
    for (const c of root.namedChildren) {
      if (c.type === "comment" && statements === 0) after = c;
      else if (c.type === "expression_statement" && statements === 0 && c.namedChildren[0]?.type === "string") {
        after = c;
        statements++;
      } else if (c.type === "future_import_statement") {
        after = c;
        statements++;
      } else break;
    }
    return after;
  },
};

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
  hidingScopes: ["list_comprehension", "dictionary_comprehension", "set_comprehension", "generator_expression"],
  outsideScope: { default_parameter: ["value"], typed_default_parameter: ["value"] },
  scopeStatements: ["global_statement", "nonlocal_statement"],
  keywordUse: (token) => token.parent?.type === "keyword_argument" && sameNode(token.parent.childForFieldName("name"), token),
  bodyDoc: (body) => {
    const first = body.namedChildren[0];
    return first?.type === "expression_statement" && first.namedChildren.length === 1 && first.namedChildren[0]!.type === "string" ? first : null;
  },
  strings: ["string"],
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
    // `(x := …)` binds in the function around a comprehension (PEP 572).
    named_expression: { kind: "variable_declarator", fields: ["name"], scope: "function", rebinds: true },
    // A capture pattern (`case x:`, `case {"k": x}`): one name, not a dotted value pattern.
    case_pattern: {
      kind: "variable_declarator",
      fields: null,
      scope: "enclosing",
      rebinds: true,
      where: (n) => n.namedChildren[0]?.type === "dotted_name" && n.namedChildren[0].namedChildren.length === 1 && n.parent?.type !== "class_pattern",
    },
  },
  patterns: {
    dotted_name: null,
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
  access: {
    assignments: { assignment: "left", augmented_assignment: "left" },
    updates: [],
    calls: { call: "function" },
    nesting: ["pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "parenthesized_expression"],
  },
  pathScope: () => undefined,
  isKey: (token) => {
    const parent = token.parent;
    if (!parent) return false;
    if (parent.type === "keyword_argument") return sameNode(parent.childForFieldName("name"), token);
    // Module paths and imported names (`import a.b`, `from m import x as y`): what an import binds
    // is found before keys are. A dotted name elsewhere (a `case Point(…)` pattern) is a use.
    return parent.type === "dotted_name" && ancestorOf(parent, IMPORTS) !== null;
  },
  selfOwner: () => null,
  bindingType: (name) => {
    const parent = name.parent;
    if (!parent) return null;
    // A method's first parameter is its instance (or class).
    if (parent.type === "parameters" && sameNode(parent.namedChildren[0] ?? null, name)) {
      // A @staticmethod's first parameter is an argument like any other.
      const decorated = parent.parent?.parent?.type === "decorated_definition" ? parent.parent.parent : null;
      if (decorated?.namedChildren.some((d) => d.type === "decorator" && /^@\s*staticmethod\b/.test(d.text))) return null;
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
  // `case Point(x=0)`: the pattern matches Point's attribute x.
  literalFieldOwner: (token) => {
    const keyword = token.parent;
    if (keyword?.type !== "keyword_pattern" || !sameNode(keyword.namedChildren[0] ?? null, token)) return null;
    const cls = ancestorOf(keyword, ["class_pattern"]);
    const name = cls?.namedChildren[0];
    return name?.type === "dotted_name" ? (name.namedChildren.at(-1)?.text ?? null) : null;
  },
  importStatements: ["import_statement", "import_from_statement", "future_import_statement"],
  imports: PYTHON_IMPORTS,
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
  importedNameTokens: (root, name) => {
    // `from m import name` / `from m import name as b`, wherever it stands (under `if TYPE_CHECKING:`, in a function).
    const out: Array<{ token: RuleNode; statement: RuleNode }> = [];
    const stack = [root];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.type === "import_from_statement") {
        for (const part of importedNames(n)) {
          const token = part.type === "aliased_import" ? part.childForFieldName("name") : part.type === "dotted_name" ? part : null;
          if (token?.type === "dotted_name" && token.namedChildren.length === 1 && token.text === name) out.push({ token: token.namedChildren[0]!, statement: n });
        }
      } else if (n.type !== "string" && n.type !== "comment") stack.push(...n.namedChildren);
    }
    return out;
  },
  exportListNames: (root, name) => {
    // `__all__ = [...]`, `__all__ += [...]`, `__all__.extend([...])` / `.append("name")` at module level.
    const out: RuleNode[] = [];
    for (const statement of root.namedChildren) {
      const e = statement.type === "expression_statement" ? statement.namedChildren[0] : null;
      if (!e) continue;
      let list: RuleNode | null | undefined = null;
      if ((e.type === "assignment" || e.type === "augmented_assignment") && e.childForFieldName("left")?.text === "__all__") list = e.childForFieldName("right");
      else if (e.type === "call" && /^__all__\.(?:extend|append)$/.test(e.childForFieldName("function")?.text ?? "")) list = e.childForFieldName("arguments");
      if (!list) continue;
      const items =
        list.type === "list" || list.type === "tuple" || list.type === "argument_list" ? list.namedChildren.flatMap((c) => (c.type === "list" || c.type === "tuple" ? c.namedChildren : [c])) : [];
      for (const s of items) {
        const content = s.type === "string" ? s.namedChildren.filter((c) => c.type === "string_content") : [];
        if (content.length === 1 && content[0]!.text === name && s.namedChildren.length === 3) out.push(content[0]!);
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
