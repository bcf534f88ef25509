// Rust's AST edit rules (lang/edit-rules.ts): items as declarations (functions in an `impl` or a
// trait are its type's members), structs, traits and `impl` blocks as owners, `let` bindings that
// shadow (visible after themselves), patterns in parameters, closures, `for`, `match` and
// `if let`, `use` trees, `self` and `Self`, and struct literals' field keys.
import { firstTypeName, sameNode, type EditRules, type ImportBinding, type ImportRules, type ImportSpec } from "./edit-rules.js";
import * as RUST from "./rust-nodes.js";
import type { RuleNode } from "./outline.js";

const TYPE_NAMES = [RUST.TYPE_IDENTIFIER];
/** Item containers whose functions are members, not free functions. */
const MEMBER_LISTS = [RUST.IMPL_ITEM, RUST.TRAIT_ITEM];

/** A function directly in an `impl` or trait body. */
const isMemberFunction = (fn: RuleNode): boolean => fn.parent?.type === RUST.DECLARATION_LIST && MEMBER_LISTS.includes(fn.parent.parent?.type ?? "");

/** The type an `impl` block is for (`impl<T> Trait for Vec<S<T>>` → `Vec`). */
const implType = (impl: RuleNode): string | null => {
  const type = impl.childForFieldName("type");
  return type?.type === RUST.TYPE_IDENTIFIER ? type.text : firstTypeName(type, TYPE_NAMES);
};

/** A struct literal's or pattern's type name (`S { … }`, `m::S { … }`, `Self { … }` in an impl), or null. */
const structName = (node: RuleNode | null | undefined): string | null => {
  const name = node?.childForFieldName(node.type === RUST.STRUCT_EXPRESSION ? "name" : "type");
  if (!name) return null;
  const text = name.type === RUST.TYPE_IDENTIFIER ? name.text : name.type === "scoped_type_identifier" ? (name.childForFieldName("name")?.text ?? null) : null;
  if (text !== "Self") return text;
  let impl: RuleNode | null = node!.parent;
  while (impl && impl.type !== RUST.IMPL_ITEM) impl = impl.parent;
  return impl ? implType(impl) : null;
};

// ---- imports ----

const RS_PATH = "(?:[A-Za-z_][A-Za-z0-9_]*|crate|self|super)(?:::[A-Za-z_][A-Za-z0-9_]*)*";

/** `std::io::Read`, `std::io::Read as R`, `std::io::{Read, Write}`, `serde`, optionally as `use …;`. */
function parseUse(raw: string): ImportSpec | string {
  const spec = raw
    .trim()
    .replace(/^(?:pub\s+)?use\s+/, "")
    .replace(/;$/, "")
    .trim();
  const list = new RegExp(`^(${RS_PATH})::\\{([^}]*)\\}$`).exec(spec);
  if (list) {
    const names = list[2]!
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p !== "")
      .map((p) => {
        const m = /^(\S+?)(?:\s+as\s+([A-Za-z_]\w*))?$/.exec(p)!;
        return { name: m[1]!, alias: m[2] ?? null };
      });
    return { module: list[1]!, defaultName: null, namespace: null, names, typeOnly: false };
  }
  const one = new RegExp(`^(${RS_PATH}|${RS_PATH}::\\*)(?:\\s+as\\s+([A-Za-z_]\\w*))?$`).exec(spec);
  if (!one) return `not a Rust use path: ${JSON.stringify(raw)} (write 'std::io::Read', 'std::io::{Read, Write}' or 'a::b as c')`;
  const cut = one[1]!.lastIndexOf("::");
  return {
    module: cut === -1 ? "" : one[1]!.slice(0, cut),
    defaultName: null,
    namespace: null,
    names: [{ name: cut === -1 ? one[1]! : one[1]!.slice(cut + 2), alias: one[2] ?? null }],
    typeOnly: false,
  };
}

const useItem = (n: { name: string; alias: string | null }) => (n.alias ? `${n.name} as ${n.alias}` : n.name);

/** A use tree's module and the names it takes. */
function readUse(statement: RuleNode): ImportSpec[] {
  if (statement.type !== RUST.USE_DECLARATION) return [];
  const arg = statement.childForFieldName("argument");
  const spec = (module: string, names: Array<{ name: string; alias: string | null }>): ImportSpec[] => [{ module, defaultName: null, namespace: null, names, typeOnly: false }];
  const split = (path: string) => {
    const cut = path.lastIndexOf("::");
    return cut === -1 ? { module: "", name: path } : { module: path.slice(0, cut), name: path.slice(cut + 2) };
  };
  if (!arg) return [];
  if (arg.type === RUST.SCOPED_USE_LIST) {
    const list = arg.childForFieldName("list");
    const names = (list?.namedChildren ?? [])
      .filter((c) => c.type !== RUST.LINE_COMMENT && c.type !== RUST.BLOCK_COMMENT)
      .map((c) => (c.type === RUST.USE_AS_CLAUSE ? { name: c.childForFieldName("path")!.text, alias: c.childForFieldName("alias")?.text ?? null } : { name: c.text, alias: null }));
    return spec(arg.childForFieldName("path")?.text ?? "", names);
  }
  if (arg.type === RUST.USE_AS_CLAUSE) {
    const { module, name } = split(arg.childForFieldName("path")!.text);
    return spec(module, [{ name, alias: arg.childForFieldName("alias")?.text ?? null }]);
  }
  const { module, name } = split(arg.text);
  return spec(module, [{ name, alias: null }]);
}

export const RUST_IMPORTS: ImportRules = {
  parse: parseUse,
  // `use a::b::C` binds C, `self` in a list the module's own name, `*` no one name.
  locals: (spec) =>
    spec.names.flatMap((n) => (n.alias ? [n.alias] : n.name === "*" ? [] : n.name === "self" ? [spec.module.slice(spec.module.lastIndexOf(":") + 1)] : [n.name.slice(n.name.lastIndexOf(":") + 1)])),
  read: readUse,
  render: (spec) => {
    const prefix = spec.module === "" ? "" : `${spec.module}::`;
    return { text: spec.names.length === 1 ? `use ${prefix}${useItem(spec.names[0]!)};` : `use ${prefix}{${spec.names.map(useItem).join(", ")}};` };
  },
  merge: (statement, spec) => {
    const current = readUse(statement)[0];
    if (!current || current.module !== spec.module || spec.module === "" || current.names.some((n) => n.name === "*")) return null;
    const arg = statement.childForFieldName("argument")!;
    const list = arg.type === RUST.SCOPED_USE_LIST ? arg.childForFieldName("list") : null;
    if (list) {
      const items = list.namedChildren;
      const last = items.at(-1);
      if (!last) return { start: list.startIndex, end: list.endIndex, text: `{${spec.names.map(useItem).join(", ")}}` };
      return { start: last.endIndex, end: last.endIndex, text: spec.names.map((n) => `, ${useItem(n)}`).join("") };
    }
    return { start: arg.startIndex, end: arg.endIndex, text: `${spec.module}::{${[...current.names, ...spec.names].map(useItem).join(", ")}}` };
  },
  without: (statement, spec) => {
    const current = readUse(statement)[0]!;
    if (spec.names.length === 0) return "all";
    const removed = new Set(spec.names.map((n) => n.name));
    const keep = current.names.filter((n) => !removed.has(n.name));
    if (keep.length === 0) return "all";
    const arg = statement.childForFieldName("argument")!;
    const list = arg.childForFieldName("list")!;
    return { start: list.startIndex, end: list.endIndex, text: `{${keep.map(useItem).join(", ")}}` };
  },
  // After the crate's inner attributes and inner doc comments.
  firstAfter: (root) => {
    let after: RuleNode | null = null;
    for (const c of root.namedChildren) {
      if (c.type === RUST.INNER_ATTRIBUTE_ITEM || ((c.type === RUST.LINE_COMMENT || c.type === RUST.BLOCK_COMMENT) && /^\/[/*]!/.test(c.text))) after = c;
      else break;
    }
    return after;
  },
};

export const RUST_EDITS: EditRules = {
  declarations: {
    [RUST.FUNCTION_ITEM]: { kind: (n) => (isMemberFunction(n) ? "method" : "function"), body: "body" },
    [RUST.FUNCTION_SIGNATURE_ITEM]: { kind: "method" },
    [RUST.STRUCT_ITEM]: { kind: "class" },
    [RUST.ENUM_ITEM]: { kind: "enum" },
    [RUST.UNION_ITEM]: { kind: "class" },
    [RUST.TRAIT_ITEM]: { kind: "interface" },
    [RUST.TYPE_ITEM]: { kind: "type" },
    [RUST.CONST_ITEM]: { kind: "variable" },
    [RUST.STATIC_ITEM]: { kind: "variable" },
    [RUST.MOD_ITEM]: { kind: "module" },
    macro_definition: { kind: "function" },
    [RUST.FIELD_DECLARATION]: { kind: "field" },
  },
  owners: {
    [RUST.STRUCT_ITEM]: { name: (n) => n.childForFieldName("name")?.text ?? null, members: (n) => n.childForFieldName("body") },
    [RUST.UNION_ITEM]: { name: (n) => n.childForFieldName("name")?.text ?? null, members: (n) => n.childForFieldName("body") },
    [RUST.TRAIT_ITEM]: { name: (n) => n.childForFieldName("name")?.text ?? null, members: (n) => n.childForFieldName("body") },
    [RUST.IMPL_ITEM]: { name: implType, members: (n) => n.childForFieldName("body") },
  },
  wrappers: [],
  leading: [RUST.LINE_COMMENT, RUST.BLOCK_COMMENT, RUST.ATTRIBUTE_ITEM],
  indent: "    ",
  braces: true,
  identifiers: [RUST.IDENTIFIER, RUST.TYPE_IDENTIFIER, "shorthand_field_identifier"],
  shorthand: (token) => (token.type === "shorthand_field_identifier" || token.parent?.type === "shorthand_field_initializer" ? "key" : null),
  scopes: [
    "source_file",
    RUST.MOD_ITEM,
    RUST.FUNCTION_ITEM,
    RUST.CLOSURE_EXPRESSION,
    "block",
    RUST.MATCH_ARM,
    RUST.FOR_EXPRESSION,
    "if_expression",
    "while_expression",
    RUST.IMPL_ITEM,
    RUST.TRAIT_ITEM,
    RUST.STRUCT_ITEM,
    RUST.ENUM_ITEM,
    RUST.TYPE_ITEM,
  ],
  functionScopes: [RUST.FUNCTION_ITEM, RUST.CLOSURE_EXPRESSION],
  classScopes: [],
  bindings: {
    [RUST.FUNCTION_ITEM]: { kind: RUST.FUNCTION_ITEM, fields: ["name"], scope: "enclosing", where: (n) => !isMemberFunction(n) },
    [RUST.STRUCT_ITEM]: { kind: RUST.STRUCT_ITEM, fields: ["name"], scope: "enclosing" },
    [RUST.ENUM_ITEM]: { kind: RUST.ENUM_ITEM, fields: ["name"], scope: "enclosing" },
    [RUST.UNION_ITEM]: { kind: RUST.UNION_ITEM, fields: ["name"], scope: "enclosing" },
    [RUST.TRAIT_ITEM]: { kind: RUST.TRAIT_ITEM, fields: ["name"], scope: "enclosing" },
    [RUST.TYPE_ITEM]: { kind: RUST.TYPE_ITEM, fields: ["name"], scope: "enclosing" },
    [RUST.CONST_ITEM]: { kind: RUST.CONST_ITEM, fields: ["name"], scope: "enclosing" },
    [RUST.STATIC_ITEM]: { kind: RUST.STATIC_ITEM, fields: ["name"], scope: "enclosing" },
    [RUST.MOD_ITEM]: { kind: RUST.MOD_ITEM, fields: ["name"], scope: "enclosing" },
    macro_definition: { kind: "macro_definition", fields: ["name"], scope: "enclosing" },
    [RUST.LET_DECLARATION]: { kind: RUST.LET_DECLARATION, fields: ["pattern"], scope: "enclosing", sequential: true },
    [RUST.PARAMETER]: { kind: "parameter", fields: ["pattern"], scope: "enclosing" },
    closure_parameters: { kind: "parameter", fields: null, scope: "enclosing" },
    [RUST.FOR_EXPRESSION]: { kind: "variable_declarator", fields: ["pattern"], scope: "self" },
    [RUST.MATCH_ARM]: { kind: "variable_declarator", fields: ["pattern"], scope: "self" },
    [RUST.LET_CONDITION]: { kind: "variable_declarator", fields: ["pattern"], scope: "enclosing" },
    type_parameters: { kind: "type_parameter", fields: null, scope: "enclosing" },
  },
  patterns: {
    [RUST.TUPLE_PATTERN]: null,
    [RUST.TUPLE_STRUCT_PATTERN]: { except: ["type"] },
    struct_pattern: { except: ["type"] },
    field_pattern: ["name", "pattern"],
    ref_pattern: null,
    mut_pattern: null,
    reference_pattern: null,
    slice_pattern: null,
    or_pattern: null,
    captured_pattern: null,
    match_pattern: { except: ["condition"] },
    constrained_type_parameter: ["left"],
  },
  opaque: [RUST.TOKEN_TREE],
  memberAccess: { [RUST.FIELD_EXPRESSION]: { object: "value", member: "field" }, [RUST.SCOPED_IDENTIFIER]: { object: "path", member: "name" } },
  access: {
    assignments: { [RUST.ASSIGNMENT_EXPRESSION]: "left", compound_assignment_expr: "left" },
    updates: [],
    calls: { [RUST.CALL_EXPRESSION]: "function" },
    nesting: [RUST.TUPLE_EXPRESSION, "parenthesized_expression"],
  },
  pathScope: (token) => {
    const parent = token.parent;
    if (!parent) return undefined;
    // `super::x`, `self::T`, and `use super::{x, …}`: the path before the name.
    const path =
      (parent.type === RUST.SCOPED_IDENTIFIER || parent.type === "scoped_type_identifier") && sameNode(parent.childForFieldName("name"), token)
        ? parent.childForFieldName("path")
        : parent.type === RUST.USE_LIST && parent.parent?.type === RUST.SCOPED_USE_LIST
          ? parent.parent.childForFieldName("path")
          : undefined;
    if (path === undefined || path === null) return undefined;
    // `m::x` of an inline `mod m` of the file: the names bound in its body.
    if (path.type === RUST.IDENTIFIER) {
      let root: RuleNode = token;
      while (root.parent) root = root.parent;
      // An inline module is the scope its items are bound in.
      const module = root.namedChildren.find((c) => c.type === RUST.MOD_ITEM && c.childForFieldName("name")?.text === path.text);
      // `mod m;` without a body is another file: its names are not the file's.
      return module === undefined ? undefined : module.childForFieldName("body") ? module : null;
    }
    if (path.type !== RUST.SELF && path.type !== RUST.SUPER) return path.type === RUST.CRATE ? null : undefined;
    // The module the use is in (an inline `mod` or the file), then its parent for `super`.
    let module: RuleNode | null = token.parent;
    while (module && module.type !== RUST.MOD_ITEM && module.type !== "source_file") module = module.parent;
    if (path.type === RUST.SUPER) {
      if (!module || module.type === "source_file") return null;
      module = module.parent;
      while (module && module.type !== RUST.MOD_ITEM && module.type !== "source_file") module = module.parent;
    }
    return module;
  },
  isKey: (token) => {
    const parent = token.parent;
    if (!parent) return false;
    // `a::b` paths in `use` (the bound name is found before keys are) and `m::T` type paths.
    if (parent.type === RUST.SCOPED_IDENTIFIER || parent.type === "scoped_type_identifier") return sameNode(parent.childForFieldName("name"), token);
    // `Entry(Entry)`: an enum variant's name is the enum's member, not a use of a type named like it.
    if (parent.type === "enum_variant") return sameNode(parent.childForFieldName("name"), token);
    return parent.type === RUST.USE_AS_CLAUSE && sameNode(parent.childForFieldName("path"), token);
  },
  selfOwner: (object, ownerOf) => {
    if (object.type !== RUST.SELF && object.text !== "Self") return null;
    for (let n = object.parent; n; n = n.parent) if (n.type === RUST.IMPL_ITEM || n.type === RUST.TRAIT_ITEM) return ownerOf(n);
    return null;
  },
  bindingType: (name) => {
    const parent = name.parent;
    if (!parent) return null;
    if (parent.type === RUST.PARAMETER && sameNode(parent.childForFieldName("pattern"), name)) return firstTypeName(parent.childForFieldName("type"), TYPE_NAMES);
    if (parent.type === RUST.LET_DECLARATION && sameNode(parent.childForFieldName("pattern"), name)) {
      const annotated = firstTypeName(parent.childForFieldName("type"), TYPE_NAMES);
      if (annotated) return annotated;
      const value = parent.childForFieldName("value");
      if (value?.type === RUST.STRUCT_EXPRESSION) return structName(value);
      // `let x = T::new(…)`: a constructor-like associated function of a type.
      const fn = value?.type === RUST.CALL_EXPRESSION ? value.childForFieldName("function") : null;
      const path = fn?.type === RUST.SCOPED_IDENTIFIER ? fn.childForFieldName("path") : null;
      return path?.type === RUST.IDENTIFIER && /^[A-Z]/.test(path.text) && fn!.childForFieldName("name")?.text === "new" ? path.text : null;
    }
    return null;
  },
  // `println!("{name}")`: a format string naming a variable inside a macro's tokens.
  embeddedUses: (root, name) => {
    const out: RuleNode[] = [];
    const stack = [root];
    const uses = new RegExp(`\\{${name}(?:[:}])`);
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.type === "string_literal" || n.type === "raw_string_literal") {
        if (n.parent?.type === RUST.TOKEN_TREE && uses.test(n.text)) out.push(n);
        continue;
      }
      for (const c of n.namedChildren) stack.push(c);
    }
    return out;
  },
  strings: ["string_literal", "raw_string_literal"],
  literalFieldOwner: (token) => {
    const parent = token.parent;
    if (!parent) return null;
    if (parent.type === "field_initializer" && sameNode(parent.childForFieldName("field"), token)) return structName(parent.parent?.parent);
    if (parent.type === "shorthand_field_initializer") return structName(parent.parent?.parent);
    if (parent.type === "field_pattern" && sameNode(parent.childForFieldName("name"), token)) return structName(parent.parent);
    return null;
  },
  importStatements: [RUST.USE_DECLARATION],
  imports: RUST_IMPORTS,
  importBindings: (statement) => {
    const out: ImportBinding[] = [];
    const stack = [statement.childForFieldName("argument")];
    while (stack.length > 0) {
      const n = stack.pop();
      if (!n) continue;
      if (n.type === RUST.IDENTIFIER) out.push({ token: n, rename: "alias" });
      else if (n.type === RUST.SCOPED_IDENTIFIER) {
        const last = n.childForFieldName("name");
        if (last?.type === RUST.IDENTIFIER) out.push({ token: last, rename: "alias" });
      } else if (n.type === RUST.USE_AS_CLAUSE) {
        const alias = n.childForFieldName("alias");
        if (alias) out.push({ token: alias, rename: "replace" });
      } else if (n.type === RUST.SCOPED_USE_LIST) {
        // `use a::m::{self, …}` binds `m` too.
        const list = n.childForFieldName("list");
        const self = list?.namedChildren.find((c) => c.type === RUST.SELF);
        const path = n.childForFieldName("path");
        const last = path?.type === RUST.SCOPED_IDENTIFIER ? path.childForFieldName("name") : path;
        if (self && last) out.push({ token: self, rename: "alias", name: last.text });
        stack.push(list);
      } else if (n.type === RUST.USE_LIST) stack.push(...n.namedChildren);
    }
    return out;
  },
  qualifiedTypes: { scoped_type_identifier: { object: "path", member: "name" } },
  reexportBinds: true,
  importedNameTokens: (root, name) => {
    // The last segment of a `use` path (`use a::name;`, `use a::{name as b}`), wherever the `use` stands.
    const out: Array<{ token: RuleNode; statement: RuleNode }> = [];
    const stack = [root];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.type !== RUST.USE_DECLARATION) {
        if (n.type !== "string_literal" && n.type !== RUST.LINE_COMMENT && n.type !== RUST.BLOCK_COMMENT) stack.push(...n.namedChildren);
        continue;
      }
      const paths = [n.childForFieldName("argument")];
      while (paths.length > 0) {
        const p = paths.pop();
        if (!p) continue;
        if (p.type === RUST.IDENTIFIER && p.text === name) out.push({ token: p, statement: n });
        else if (p.type === RUST.SCOPED_IDENTIFIER && p.childForFieldName("name")?.text === name) out.push({ token: p.childForFieldName("name")!, statement: n });
        else if (p.type === RUST.USE_AS_CLAUSE) paths.push(p.childForFieldName("path"));
        else if (p.type === RUST.SCOPED_USE_LIST) paths.push(p.childForFieldName("list"));
        else if (p.type === RUST.USE_LIST) paths.push(...p.namedChildren);
      }
    }
    return out;
  },
  limitations: [
    "rename-symbol is file-scoped: other modules' `use` of the name are not changed",
    "a macro's body is tokens: names in `macro_rules!` definitions are renamed as tokens, not by their meaning",
    "a method or field is renamed where its object is `self`, `Self` or the type, a parameter or `let` of the type (annotated, a struct literal, `T::new(…)`), and in the type's struct literals and patterns; other accesses are listed as unresolved",
  ],
};
