// Ruby: .rb, parsed by tree-sitter-ruby (the only importer of it), read at breadth through
// outline rules: classes and modules with their methods (`def self.m` too), methods public
// unless after `private`/`protected`, `#` comments above as docs, `require_relative` and
// `require` resolved to project files (everything they define comes into scope).
import { createRequire } from "node:module";
import { childrenOf, fieldText, lastSegment, type CallShape, type OutlineRules, type RuleNode, type RuleParam } from "./outline.js";
import type { LanguageSpec } from "./spec.js";

const require = createRequire(import.meta.url);

const name = (node: RuleNode) => {
  const n = fieldText(node, "name");
  return n === null ? null : { name: lastSegment(n) };
};

function params(node: RuleNode): RuleParam[] {
  return (node.childForFieldName("parameters")?.namedChildren ?? []).map((p) => ({
    name: p.type === "identifier" ? p.text : (fieldText(p, "name") ?? p.text),
    type: null,
    optional: p.type !== "identifier",
  }));
}

/** The string a `require "x"` / `require_relative "x"` call names, or null. */
function requiredPath(node: RuleNode): { relative: boolean; path: string } | null {
  if (node.type !== "call" || node.childForFieldName("receiver")) return null;
  const method = fieldText(node, "method");
  if (method !== "require" && method !== "require_relative") return null;
  const arg = node.childForFieldName("arguments")?.namedChildren[0];
  const content = arg?.type === "string" ? childrenOf(arg, "string_content").map((c) => c.text).join("") : null;
  return content ? { relative: method === "require_relative", path: content } : null;
}

const RULES: OutlineRules = {
  tokens: ["identifier", "constant"],
  comments: ["comment"],
  transparent: {},
  declarations: {
    class: {
      kind: "class",
      chunk: "class_shell",
      name,
      members: "body",
      // `include M` / `extend M` / `prepend M` in the body mix M's methods in.
      heritage: (n) => {
        const s = n.childForFieldName("superclass")?.namedChildren[0]?.text;
        const mixins = (n.childForFieldName("body")?.namedChildren ?? [])
          .filter((c) => c.type === "call" && /^(?:include|extend|prepend)$/.test(fieldText(c, "method") ?? "") && !c.childForFieldName("receiver"))
          .flatMap((c) => (c.childForFieldName("arguments")?.namedChildren ?? []).map((a) => lastSegment(a.text)));
        return { extends: s ? lastSegment(s) : null, implements: mixins };
      },
    },
    // A module holds methods as a class does (`Util.helper`).
    module: { kind: "class", chunk: "class_shell", name, members: "body" },
    method: { kind: "function", chunk: "function", name, body: "body", params },
    singleton_method: { kind: "function", chunk: "function", name, body: "body", params },
  },
  calls: {
    call: (node): CallShape | null => {
      const method = node.childForFieldName("method");
      if (!method || method.type !== "identifier") return null;
      const receiver = node.childForFieldName("receiver");
      if (!receiver) return { name: method, receiver: { kind: "bare" } };
      if (receiver.type === "self") return { name: method, receiver: { kind: "this" } };
      if (receiver.type === "constant") return method.text === "new" ? { name: receiver, receiver: { kind: "bare" }, isNew: true } : { name: method, receiver: { kind: "static", className: receiver.text } };
      return null;
    },
  },
  // `require_relative "x"` is `./x.rb` from the file; `require "x"` a project file under lib/ or the root, else a gem.
  imports: (node) => {
    const req = requiredPath(node);
    if (!req) return null;
    return [{ module: req.relative ? `./${req.path.replace(/^\.\//, "")}` : req.path, names: ["*"], locals: [] }];
  },
  innerScopes: ["class", "module", "singleton_class"],
  implicitMembers: true,
  // A bare `private` / `protected` / `public` line opens a section of the class body.
  sections: {
    initial: () => "public",
    opens: (member) => (member.type === "identifier" && /^(?:private|protected|public)$/.test(member.text) ? member.text : null),
  },
  exported: (_node, _ownerExported, section) => section === null || section === "public",
};

export const RUBY: LanguageSpec = {
  name: "ruby",
  extensions: { ".rb": "ruby" },
  indexedByDefault: [".rb"],
  grammars: { ruby: () => require("tree-sitter-ruby") as unknown },
  resolver: "ruby",
  extractor: "outline",
  outline: RULES,
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "virtual",
  starImportsBind: true,
  builtinTypes: new Set("String Integer Float Array Hash Symbol NilClass Object Kernel".split(" ")),
  builtinMethods: new Set("each map select reject find puts print to_s to_i to_a inspect length size include? empty? nil? new call send".split(" ")),
  identifier: "[A-Za-z_][A-Za-z0-9_]*[?!]?",
  commentPrefixes: ["#"],
  importLine: "^(?:require|require_relative|load)\\b",
  isExternalImport: (module) => !module.startsWith("."),
  returnedType: () => null,
  callGraph: {
    verified: [
      "`m()` of a method of the file or of a file loaded with `require_relative` / `require` (a project file)",
      "`self.m` and a bare `m(…)` of a method of the class; `Const.m` and `Const.new` on a class or module of the file or of a required file",
    ],
    potentialOnly: ["calls on locals, instance variables and call results", "methods called without parentheses or arguments (`name` alone reads like a variable)", "metaprogramming (`send`, `define_method`), mixins"],
  },
};
