// C#: .cs, parsed by tree-sitter-c-sharp (the only importer of it), read at breadth through
// outline rules: classes, structs, records, interfaces and enums in namespaces (read through),
// methods and constructors, `public` for exportedness, `///` docs, `this.M()` and `Type.M()` calls.
// The package is an ES module with top-level await, so its native binding is loaded directly.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { childrenOf, fieldText, lastSegment, type CallShape, type DeclarationRule, type OutlineRules, type RuleNode, type RuleParam } from "./outline.js";
import type { LanguageSpec } from "./spec.js";

const require = createRequire(import.meta.url);

function loadGrammar(): unknown {
  const root = dirname(require.resolve("tree-sitter-c-sharp/package.json"));
  const binding = (require("node-gyp-build") as (dir: string) => Record<string, unknown>)(root);
  binding.nodeTypeInfo = require(join(root, "src", "node-types.json")) as unknown;
  return binding;
}

const name = (node: RuleNode) => {
  const n = fieldText(node, "name");
  return n === null ? null : { name: n };
};

function params(node: RuleNode): RuleParam[] {
  return childrenOf(node.childForFieldName("parameters"), "parameter").map((p) => ({
    name: fieldText(p, "name") ?? p.text,
    type: fieldText(p, "type"),
    optional: p.namedChildren.some((c) => c.type === "equals_value_clause") || /^params\b/.test(p.text),
  }));
}

/** `class C : Base, IFoo`: the first base not named like an interface (`I` + capital) extends, the rest implement. */
function heritage(node: RuleNode): { extends: string | null; implements: string[] } {
  const bases = (node.namedChildren.find((c) => c.type === "base_list")?.namedChildren ?? []).map((b) => lastSegment(b.text));
  const base = node.type === "interface_declaration" ? null : (bases.find((b) => !/^I[A-Z]/.test(b)) ?? null);
  return { extends: base, implements: bases.filter((b) => b !== base) };
}

const typeRule = (kind: DeclarationRule["kind"], chunk: DeclarationRule["chunk"]): DeclarationRule => ({ kind, chunk, name, members: "body", body: "body", heritage });

const RULES: OutlineRules = {
  tokens: ["identifier"],
  comments: ["comment"],
  transparent: { namespace_declaration: "body", file_scoped_namespace_declaration: null },
  declarations: {
    class_declaration: typeRule("class", "class_shell"),
    struct_declaration: typeRule("class", "class_shell"),
    record_declaration: typeRule("class", "class_shell"),
    interface_declaration: typeRule("interface", "interface"),
    enum_declaration: { kind: "enum", chunk: "type", name },
    delegate_declaration: { kind: "type", chunk: "type", name },
    method_declaration: { kind: "function", chunk: "function", name, body: "body", params, returnType: (n) => fieldText(n, "returns") },
    constructor_declaration: { kind: "function", chunk: "function", name, body: "body", params },
  },
  calls: {
    invocation_expression: (node): CallShape | null => {
      const fn = node.childForFieldName("function");
      if (fn?.type === "identifier") return { name: fn, receiver: { kind: "bare" } };
      if (fn?.type === "generic_name") return fn.namedChildren[0] ? { name: fn.namedChildren[0], receiver: { kind: "bare" } } : null;
      if (fn?.type !== "member_access_expression") return null;
      const object = fn.childForFieldName("expression");
      const member = fn.childForFieldName("name");
      const called = member?.type === "generic_name" ? member.namedChildren[0] : member;
      if (!called) return null;
      if (object?.type === "this_expression" || object?.type === "this") return { name: called, receiver: { kind: "this" } };
      if (object?.type === "identifier" && /^[A-Z]/.test(object.text)) return { name: called, receiver: { kind: "static", className: object.text } };
      return null;
    },
    object_creation_expression: (node): CallShape | null => {
      const type = node.childForFieldName("type");
      return type?.type === "identifier" ? { name: type, receiver: { kind: "bare" }, isNew: true } : null;
    },
  },
  // `using A.B;` names a namespace, which spans files: recorded, bound to nothing.
  imports: (node) => {
    if (node.type !== "using_directive") return null;
    const target = node.namedChildren.at(-1);
    return target ? [{ module: target.text, names: [], locals: [] }] : null;
  },
  innerScopes: ["declaration_list"],
  implicitMembers: true,
  exported: (node, ownerExported) => {
    const mods = node.namedChildren.filter((c) => c.type === "modifier").map((c) => c.text);
    if (node.parent?.parent?.type === "interface_declaration") return ownerExported !== false;
    return mods.includes("public") && ownerExported !== false;
  },
};

export const CSHARP: LanguageSpec = {
  name: "csharp",
  extensions: { ".cs": "c_sharp" },
  indexedByDefault: [".cs"],
  grammars: { c_sharp: loadGrammar },
  resolver: "none",
  extractor: "outline",
  outline: RULES,
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "static",
  starImportsBind: true,
  builtinTypes: new Set("int long short byte char bool float double decimal void string object var dynamic String Object List Dictionary Task IEnumerable".split(" ")),
  builtinMethods: new Set("ToString Equals GetHashCode Add Remove Contains Count Select Where First Any ToList Dispose".split(" ")),
  identifier: "@?[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["//", "/*", "*"],
  importLine: "^(?:global\\s+)?using\\s+[\\w.]+\\s*;",
  isExternalImport: () => true,
  returnedType: () => null,
  callGraph: {
    verified: ["`this.M()` and a bare `M()` of a method of the class, its own or inherited from a class of the file", "`Type.M()` and `new Type()` on a type of the file"],
    potentialOnly: ["types of other files (a `using` names a namespace, not a file)", "calls on fields, locals, parameters, properties and call results"],
  },
};
