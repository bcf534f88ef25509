// PHP: .php, parsed by tree-sitter-php's `php` grammar (the only importer of it), read at
// breadth through its query file (queries/php.scm): classes, interfaces, traits and enums with their methods,
// functions, public unless `private`/`protected`, `/** */` docs, `$this->m()`, `self::m()` and
// `Type::m()` calls, `use A\B\C` resolved by path suffix (PSR-4) and `require`/`include` by path.
import { createRequire } from "node:module";
import { queryFile, type OutlineSpec } from "./outline.js";
import { C_BLOCK_COMMENT, type LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

const OUTLINE: OutlineSpec = {
  query: queryFile("php"),
  tokens: ["name"],
  comments: ["comment"],
  namespaceSeparator: "\\",
  selfReceivers: ["$this", "self", "static"],
  implicitMembers: false,
  exported: (node, ownerExported) => {
    const visibility = node.namedChildren.find((c) => c.type === "visibility_modifier")?.text;
    return ownerExported !== false && visibility !== "private" && visibility !== "protected";
  },
};

export const PHP: LanguageSpec = {
  name: "php",
  ...LANGUAGE_FILES.php,
  grammars: { php: () => (require("tree-sitter-php") as { php: unknown }).php },
  resolver: "php",
  extractor: "outline",
  outline: OUTLINE,
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "virtual",
  starImportsBind: true,
  builtinTypes: new Set("int float string bool array object mixed void null callable iterable self static".split(" ")),
  builtinMethods: new Set("get set has count toArray __construct __toString".split(" ")),
  identifier: "\\$?[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["//", "#", "/*", "*"],
  blockComment: C_BLOCK_COMMENT,
  importLine: "^(?:use\\s|(?:require|include)(?:_once)?\\b)",
  isExternalImport: (module) => !module.startsWith("."),
  returnedType: () => null,
  callGraph: {
    verified: [
      "`f()` of a function of the file or of a file it `require`s / `include`s",
      "`$this->m()`, `self::m()` and `static::m()` of a method of the class (in the same file)",
      "`Type::m()` and `new Type()` on a class of the file, imported with `use A\\B\\Type`, or of the file's own namespace (`Type` in `namespace A\\B;` is `A\\B\\Type`) — found by composer.json's autoload maps, else by path suffix",
    ],
    potentialOnly: ["calls on variables other than `$this`, properties and call results", "classes of other namespaces named without `use`, dynamic calls (`$f()`, `call_user_func`)"],
  },
};
