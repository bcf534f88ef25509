// Java: .java, parsed by tree-sitter-java (the only importer of it), read at breadth through its
// query file (queries/java.scm): classes, interfaces, enums, records and annotation types with
// their methods, constructors and elements, `public` for exportedness, Javadoc, `import a.b.C`
// resolved to `a/b/C.java`.
import { createRequire } from "node:module";
import { childText, queryFile, type OutlineSpec } from "./outline.js";
import { C_BLOCK_COMMENT, type LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

const OUTLINE: OutlineSpec = {
  query: queryFile("java"),
  tokens: ["identifier", "type_identifier"],
  comments: ["line_comment", "block_comment"],
  namespaceSeparator: ".",
  selfReceivers: ["this"],
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
  ...LANGUAGE_FILES.java,
  grammars: { java: () => require("tree-sitter-java") as unknown },
  resolver: "java",
  extractor: "outline",
  outline: OUTLINE,
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "virtual",
  starImportsBind: true,
  builtinTypes: new Set("int long short byte char boolean float double void String Object Integer Long Boolean Double List Map Set Optional".split(" ")),
  builtinMethods: new Set("equals hashCode toString get set add put remove size isEmpty contains stream map filter collect forEach".split(" ")),
  identifier: "[A-Za-z_$][\\w$]*",
  commentPrefixes: ["//", "/*", "*"],
  blockComment: C_BLOCK_COMMENT,
  importLine: "^import\\s",
  isExternalImport: () => true,
  returnedType: () => null,
  callGraph: {
    verified: [
      "`this.m()` and a bare `m()` of a method of the class, its own or inherited (the class and its bases found in the file or imported by name)",
      "`Type.m()` and `new Type()` on a class of the file, imported by name (`import a.b.Type` → `a/b/Type.java`), of the file's own package (`a/b/Type.java` beside it under the package path) or of a package imported whole (`import a.b.*`)",
    ],
    potentialOnly: ["calls on any other receiver (fields, locals, parameters, call results)", "static imports"],
  },
};
