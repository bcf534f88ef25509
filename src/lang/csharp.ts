// C#: .cs, parsed by tree-sitter-c-sharp (the only importer of it), read at breadth through its
// query file (queries/csharp.scm): classes, structs, records, interfaces and enums in namespaces
// and `#if` regions (read through), methods, constructors, operators and local functions, `public`
// for exportedness, `///` docs, `this.M()` and `Type.M()` calls.
// The package is an ES module with top-level await, so its native binding is loaded directly.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { queryFile, type OutlineSpec } from "./outline.js";
import { C_BLOCK_COMMENT, type LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

function loadGrammar(): unknown {
  const root = dirname(require.resolve("tree-sitter-c-sharp/package.json"));
  const binding = (require("node-gyp-build") as (dir: string) => Record<string, unknown>)(root);
  binding.nodeTypeInfo = require(join(root, "src", "node-types.json")) as unknown;
  return binding;
}

const OUTLINE: OutlineSpec = {
  query: queryFile("csharp"),
  tokens: ["identifier"],
  comments: ["comment"],
  selfReceivers: ["this"],
  implicitMembers: true,
  /** `class C : Base, IFoo`: the first base not named like an interface (`I` + capital) extends, the rest implement. */
  bases: (names, node) => {
    const base = node.type === "interface_declaration" ? null : (names.find((b) => !/^I[A-Z]/.test(b)) ?? null);
    return { extends: base, implements: names.filter((b) => b !== base) };
  },
  exported: (node, ownerExported) => {
    const mods = node.namedChildren.filter((c) => c.type === "modifier").map((c) => c.text);
    if (node.parent?.parent?.type === "interface_declaration") return ownerExported !== false;
    return mods.includes("public") && ownerExported !== false;
  },
  preprocessor: true,
};

export const CSHARP: LanguageSpec = {
  name: "csharp",
  ...LANGUAGE_FILES.csharp,
  grammars: { c_sharp: loadGrammar },
  resolver: "none",
  extractor: "outline",
  outline: OUTLINE,
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "static",
  starImportsBind: true,
  builtinTypes: new Set("int long short byte char bool float double decimal void string object var dynamic String Object List Dictionary Task IEnumerable".split(" ")),
  builtinMethods: new Set("ToString Equals GetHashCode Add Remove Contains Count Select Where First Any ToList Dispose".split(" ")),
  identifier: "@?[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["//", "/*", "*"],
  blockComment: C_BLOCK_COMMENT,
  importLine: "^(?:global\\s+)?using\\s+[\\w.]+\\s*;",
  isExternalImport: () => true,
  returnedType: () => null,
  callGraph: {
    verified: ["`this.M()` and a bare `M()` of a method of the class, its own or inherited from a class of the file", "`Type.M()` and `new Type()` on a type of the file"],
    potentialOnly: ["types of other files (a `using` names a namespace, not a file)", "calls on fields, locals, parameters, properties and call results"],
  },
};
