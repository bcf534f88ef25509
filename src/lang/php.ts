// PHP: .php, parsed by tree-sitter-php's `php` grammar (the only importer of it), read at
// breadth through outline rules: classes, interfaces, traits and enums with their methods,
// functions, public unless `private`/`protected`, `/** */` docs, `$this->m()`, `self::m()` and
// `Type::m()` calls, `use A\B\C` resolved by path suffix (PSR-4) and `require`/`include` by path.
import { createRequire } from "node:module";
import { childrenOf, fieldText, lastSegment, type CallShape, type DeclarationRule, type OutlineImport, type OutlineRules, type RuleNode, type RuleParam } from "./outline.js";
import type { LanguageSpec } from "./spec.js";

const require = createRequire(import.meta.url);

const name = (node: RuleNode) => {
  const n = fieldText(node, "name");
  return n === null ? null : { name: n };
};

function params(node: RuleNode): RuleParam[] {
  return childrenOf(node.childForFieldName("parameters"), "simple_parameter", "variadic_parameter", "property_promotion_parameter").map((p) => ({
    name: fieldText(p, "name") ?? p.text,
    type: fieldText(p, "type"),
    optional: p.type === "variadic_parameter" || p.childForFieldName("default_value") !== null,
  }));
}

const typeRule = (kind: DeclarationRule["kind"], chunk: DeclarationRule["chunk"]): DeclarationRule => ({
  kind,
  chunk,
  name,
  members: "body",
  body: "body",
  heritage: (n) => {
    const base = n.namedChildren.find((c) => c.type === "base_clause")?.namedChildren[0]?.text;
    return { extends: base ? lastSegment(base) : null, implements: (n.namedChildren.find((c) => c.type === "class_interface_clause")?.namedChildren ?? []).map((c) => lastSegment(c.text)) };
  },
});

const INCLUDES = new Set(["require_expression", "require_once_expression", "include_expression", "include_once_expression"]);

/** The path a `require`/`include` names: its string literal (after `__DIR__ .`), or null. */
function includedPath(expr: RuleNode): string | null {
  const strings = [expr, ...expr.namedChildren, ...expr.namedChildren.flatMap((c) => c.namedChildren)].filter((c) => c.type === "string" || c.type === "encapsed_string");
  const text = strings.at(-1)?.namedChildren.find((c) => c.type === "string_content")?.text;
  return text ? `./${text.replace(/^\/+/, "")}` : null;
}

const RULES: OutlineRules = {
  tokens: ["name"],
  comments: ["comment"],
  transparent: { namespace_definition: "body" },
  declarations: {
    class_declaration: typeRule("class", "class_shell"),
    trait_declaration: typeRule("class", "class_shell"),
    interface_declaration: typeRule("interface", "interface"),
    enum_declaration: typeRule("enum", "type"),
    function_definition: { kind: "function", chunk: "function", name, body: "body", params, returnType: (n) => fieldText(n, "return_type") },
    method_declaration: { kind: "function", chunk: "function", name, body: "body", params, returnType: (n) => fieldText(n, "return_type") },
  },
  calls: {
    function_call_expression: (node): CallShape | null => {
      const fn = node.childForFieldName("function");
      if (fn?.type === "name") return { name: fn, receiver: { kind: "bare" } };
      if (fn?.type === "qualified_name") {
        const last = fn.namedChildren.at(-1);
        return last ? { name: last, receiver: { kind: "bare" } } : null;
      }
      return null;
    },
    member_call_expression: (node): CallShape | null => {
      const object = node.childForFieldName("object");
      const method = node.childForFieldName("name");
      return method && object?.type === "variable_name" && object.text === "$this" ? { name: method, receiver: { kind: "this" } } : null;
    },
    scoped_call_expression: (node): CallShape | null => {
      const scope = node.childForFieldName("scope");
      const method = node.childForFieldName("name");
      if (!scope || !method) return null;
      if (scope.text === "self" || scope.text === "static") return { name: method, receiver: { kind: "this" } };
      if (scope.type === "name" || scope.type === "qualified_name") return { name: method, receiver: { kind: "static", className: lastSegment(scope.text) } };
      return null;
    },
    object_creation_expression: (node): CallShape | null => {
      const type = node.namedChildren.find((c) => c.type === "name" || c.type === "qualified_name");
      const last = type?.type === "qualified_name" ? type.namedChildren.at(-1) : type;
      return last ? { name: last, receiver: { kind: "bare" }, isNew: true } : null;
    },
  },
  imports: (node): OutlineImport[] | null => {
    if (node.type === "namespace_use_declaration") {
      return childrenOf(node, "namespace_use_clause").flatMap((clause) => {
        const path = clause.namedChildren.find((c) => c.type === "qualified_name" || c.type === "name")?.text;
        if (!path) return [];
        const alias = fieldText(clause, "alias") ?? clause.namedChildren.find((c, i) => i > 0 && c.type === "name")?.text ?? lastSegment(path);
        return [{ module: path.replace(/^\\/, ""), names: [lastSegment(path)], locals: [alias] }];
      });
    }
    const expr = node.type === "expression_statement" ? node.namedChildren[0] : null;
    if (!expr || !INCLUDES.has(expr.type)) return null;
    const path = includedPath(expr);
    return path ? [{ module: path, names: ["*"], locals: [] }] : null;
  },
  innerScopes: ["anonymous_class", "declaration_list"],
  implicitMembers: false,
  exported: (node, ownerExported) => {
    const visibility = node.namedChildren.find((c) => c.type === "visibility_modifier")?.text;
    return ownerExported !== false && visibility !== "private" && visibility !== "protected";
  },
};

export const PHP: LanguageSpec = {
  name: "php",
  extensions: { ".php": "php" },
  indexedByDefault: [".php"],
  grammars: { php: () => (require("tree-sitter-php") as { php: unknown }).php },
  resolver: "php",
  extractor: "outline",
  outline: RULES,
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "virtual",
  starImportsBind: true,
  builtinTypes: new Set("int float string bool array object mixed void null callable iterable self static".split(" ")),
  builtinMethods: new Set("get set has count toArray __construct __toString".split(" ")),
  identifier: "\\$?[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["//", "#", "/*", "*"],
  importLine: "^(?:use\\s|(?:require|include)(?:_once)?\\b)",
  isExternalImport: (module) => !module.startsWith("."),
  returnedType: () => null,
  callGraph: {
    verified: [
      "`f()` of a function of the file or of a file it `require`s / `include`s",
      "`$this->m()`, `self::m()` and `static::m()` of a method of the class (in the same file)",
      "`Type::m()` and `new Type()` on a class of the file or imported with `use A\\B\\Type` (found by path suffix, PSR-4)",
    ],
    potentialOnly: ["calls on variables other than `$this`, properties and call results", "autoloaded classes not imported with `use`, dynamic calls (`$f()`, `call_user_func`)"],
  },
};
