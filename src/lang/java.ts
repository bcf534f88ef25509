// Java: .java, parsed by tree-sitter-java (the only importer of it), read at breadth through
// outline rules: classes, interfaces, enums and records with their methods and constructors,
// `public` for exportedness, Javadoc, `import a.b.C` resolved to `a/b/C.java`.
import { createRequire } from "node:module";
import { childrenOf, childText, fieldText, lastSegment, type CallShape, type OutlineRules, type RuleNode, type RuleParam } from "./outline.js";
import type { LanguageSpec } from "./spec.js";

const require = createRequire(import.meta.url);

const name = (node: RuleNode) => {
  const n = fieldText(node, "name");
  return n === null ? null : { name: n };
};

function params(node: RuleNode): RuleParam[] {
  return childrenOf(node.childForFieldName("parameters"), "formal_parameter", "spread_parameter").map((p) => ({
    name: fieldText(p, "name") ?? p.namedChildren.at(-1)?.text ?? p.text,
    type: fieldText(p, "type") ?? (p.type === "spread_parameter" ? `${p.namedChildren[0]?.text ?? ""}...` : null),
    optional: p.type === "spread_parameter",
  }));
}

const TYPE_BODY = { members: "body", body: "body" } as const;

const RULES: OutlineRules = {
  tokens: ["identifier", "type_identifier"],
  comments: ["line_comment", "block_comment"],
  transparent: { enum_body_declarations: null },
  declarations: {
    class_declaration: {
      kind: "class",
      chunk: "class_shell",
      name,
      ...TYPE_BODY,
      heritage: (node) => {
        const base = node.childForFieldName("superclass")?.namedChildren[0]?.text;
        return {
          extends: base ? lastSegment(base) : null,
          implements: childrenOf(node.childForFieldName("interfaces"), "type_list").flatMap((l) => l.namedChildren.map((t) => lastSegment(t.text))),
        };
      },
    },
    record_declaration: { kind: "class", chunk: "class_shell", name, ...TYPE_BODY },
    interface_declaration: {
      kind: "interface",
      chunk: "interface",
      name,
      ...TYPE_BODY,
      heritage: (node) => {
        const list = childrenOf(node, "extends_interfaces").flatMap((e) => childrenOf(e, "type_list")).flatMap((l) => l.namedChildren.map((t) => lastSegment(t.text)));
        return { extends: list[0] ?? null, implements: list.slice(1) };
      },
    },
    annotation_type_declaration: { kind: "interface", chunk: "interface", name, ...TYPE_BODY },
    enum_declaration: { kind: "enum", chunk: "type", name, ...TYPE_BODY },
    method_declaration: { kind: "function", chunk: "function", name, body: "body", params, returnType: (n) => fieldText(n, "type") },
    constructor_declaration: { kind: "function", chunk: "function", name, body: "body", params },
  },
  calls: {
    method_invocation: (node): CallShape | null => {
      const method = node.childForFieldName("name");
      if (!method) return null;
      const object = node.childForFieldName("object");
      if (!object) return { name: method, receiver: { kind: "bare" } };
      if (object.type === "this") return { name: method, receiver: { kind: "this" } };
      if (object.type === "identifier" && /^[A-Z]/.test(object.text)) return { name: method, receiver: { kind: "static", className: object.text } };
      return null;
    },
    object_creation_expression: (node): CallShape | null => {
      const type = node.childForFieldName("type");
      const named = type?.type === "generic_type" ? type.namedChildren[0] : type;
      return named?.type === "type_identifier" ? { name: named, receiver: { kind: "bare" }, isNew: true } : null;
    },
  },
  imports: (node) => {
    if (node.type !== "import_declaration" || /^import\s+static\b/.test(node.text)) return null;
    const path = childText(node, "scoped_identifier", "identifier");
    if (path === null) return null;
    if (node.namedChildren.some((c) => c.type === "asterisk")) return [{ module: path, names: ["*"], locals: [] }];
    const local = lastSegment(path);
    return [{ module: path, names: [local], locals: [local] }];
  },
  innerScopes: ["class_body", "interface_body", "enum_body"],
  implicitMembers: true,
  exported: (node, ownerExported) => {
    const mods = childText(node, "modifiers") ?? "";
    if (/\bprivate\b/.test(mods)) return false;
    const inInterface = node.parent?.type === "interface_body" || node.parent?.type === "annotation_type_body";
    if (/\bpublic\b/.test(mods) || inInterface) return ownerExported !== false;
    return false;
  },
};

export const JAVA: LanguageSpec = {
  name: "java",
  extensions: { ".java": "java" },
  indexedByDefault: [".java"],
  grammars: { java: () => require("tree-sitter-java") as unknown },
  resolver: "java",
  extractor: "outline",
  outline: RULES,
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "virtual",
  starImportsBind: true,
  builtinTypes: new Set("int long short byte char boolean float double void String Object Integer Long Boolean Double List Map Set Optional".split(" ")),
  builtinMethods: new Set("equals hashCode toString get set add put remove size isEmpty contains stream map filter collect forEach".split(" ")),
  identifier: "[A-Za-z_$][\\w$]*",
  commentPrefixes: ["//", "/*", "*"],
  importLine: "^import\\s",
  isExternalImport: () => true,
  returnedType: () => null,
  callGraph: {
    verified: [
      "`this.m()` and a bare `m()` of a method of the class, its own or inherited (the class and its bases found in the file or imported by name)",
      "`Type.m()` and `new Type()` on a class of the file or imported by name (`import a.b.Type` → `a/b/Type.java`)",
    ],
    potentialOnly: ["calls on any other receiver (fields, locals, parameters, call results)", "wildcard and static imports, classes of the same package in other files"],
  },
};
