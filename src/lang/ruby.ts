// Ruby: .rb, parsed by tree-sitter-ruby (the only importer of it), read at breadth through its
// query file (queries/ruby.scm): classes and modules with their methods (`def self.m`, `class <<
// self`, `def`s in blocks and setters too), methods public
// unless after `private`/`protected`, `#` comments above as docs, `require_relative` and
// `require` resolved to project files (everything they define comes into scope).
import { createRequire } from "node:module";
import { queryFile, type OutlineSpec } from "./outline.js";
import type { LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

const OUTLINE: OutlineSpec = {
  query: queryFile("ruby"),
  tokens: ["identifier", "constant"],
  comments: ["comment"],
  scopes: "full",
  selfReceivers: ["self"],
  implicitMembers: true,
  // A bare `private` / `protected` / `public` line opens a section of the class body.
  sections: {
    initial: () => "public",
    opens: (member) => (member.type === "identifier" && /^(?:private|protected|public)$/.test(member.text) ? member.text : null),
    opensScope: (node) => node.type === "singleton_class",
  },
  // `private` makes the instance methods after it private; `def self.m` is not one of them.
  exported: (node, _ownerExported, section) => node.type === "singleton_method" || section === null || section === "public",
};

export const RUBY: LanguageSpec = {
  name: "ruby",
  ...LANGUAGE_FILES.ruby,
  grammars: { ruby: () => require("tree-sitter-ruby") as unknown },
  resolver: "ruby",
  extractor: "outline",
  outline: OUTLINE,
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
    potentialOnly: [
      "calls on locals, instance variables and call results",
      "methods called without parentheses or arguments (`name` alone reads like a variable)",
      "metaprogramming (`send`, `define_method`), mixins",
    ],
  },
};
