// Go: .go, parsed by tree-sitter-go (the only importer of it). The package (a directory) is the
// unit of scope and of export (capitalised names); imports resolve through go.mod module paths.
import { createRequire } from "node:module";
import { GO_EDITS } from "./go-edits.js";
import type { LanguageSpec } from "./spec.js";

const require = createRequire(import.meta.url);

export const GO: LanguageSpec = {
  name: "go",
  extensions: { ".go": "go" },
  indexedByDefault: [".go"],
  grammars: { go: () => require("tree-sitter-go") as unknown },
  resolver: "go",
  extractor: "go",
  edits: GO_EDITS,
  scope: "directory",
  structuralInterfaces: true,
  methodDispatch: "static",
  starImportsBind: true,
  builtinTypes: new Set(
    "bool string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr byte rune float32 float64 complex64 complex128 error any comparable interface struct".split(" "),
  ),
  builtinMethods: new Set("Error String Close Read Write Len Less Swap Lock Unlock Done Err Value Deadline Wait Add".split(" ")),
  identifier: "[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["//", "/*", "*"],
  importLine: '^(?:import\\b|"[^"]*"$|[A-Za-z_.]\\w*\\s+"[^"]*"$)',
  // An import path names a project package only when it falls under a go.mod module path of the
  // project (the resolver maps those); any other path is the standard library or a dependency.
  isExternalImport: () => true,
  // The first result: `*T`, `T`, `pkg.T`, `(*T, error)`, `(t *T, err error)`.
  returnedType: (returnType) => {
    const first = returnType.trim().replace(/^\(/, "").replace(/\)$/, "").split(",")[0]!.trim();
    const m = /^(?:[a-z_]\w*\s+)?\*?((?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)(?:\[.*\])?$/.exec(first);
    return m && !/^(?:error|bool|string|int|any)$/.test(m[1]!) ? m[1]! : null;
  },
  callGraph: {
    verified: [
      "`f()` of a function of the package (any file of the directory)",
      "`pkg.F()` through an import of a project package (go.mod module paths, also several modules in one repository)",
      "`r.M()` where `r` is the method's receiver (value or pointer), up embedded structs",
      "`x.M()` where `x` is a parameter (of the function or of a function literal) or `var x T` of a named type (also `*T`, `pkg.T`), or bound by `x := T{…}` / `x := &T{…}`",
      "`x.M()` where `x` holds what a call returns (`x := NewT()`, `x, err := pkg.Open()`, `f().M()`): the callee's first declared result",
      "`r.field.M()` where the receiver's struct (in the same file) declares `field`'s type",
      "`V.M()` on a package-level variable (any file of the package) declared with a named type or bound to a composite literal (`var Uri = uriBinding{}`)",
      "implementors of an interface by method set: every type of the project that has all of the interface's methods",
    ],
    potentialOnly: [
      "results beyond a call's first, type assertions, method values, variables of other packages",
      "calls through interface values of types outside the project",
      "dot imports (`import . \"pkg\"`) and interfaces that embed other interfaces (not matched by method set)",
    ],
  },
};
