// Go: .go, parsed by tree-sitter-go (the only importer of it). The package (a directory) is the
// unit of scope and of export (capitalised names); imports resolve through go.mod module paths.
import { createRequire } from "node:module";
import { GO_EDITS } from "./go-edits.js";
import { C_BLOCK_COMMENT, type LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

export const GO: LanguageSpec = {
  name: "go",
  ...LANGUAGE_FILES.go,
  grammars: { go: () => require("tree-sitter-go") as unknown },
  resolver: "go",
  extractor: "go",
  edits: GO_EDITS,
  scope: "directory",
  // Exported names are capitalized; a _test.go file's declarations are its package's tests' alone.
  relinkByMention: true,
  structuralInterfaces: true,
  checker: "go-types",
  knownInterfaces: {
    error: ["Error"],
    "fmt.Stringer": ["String"],
    "fmt.GoStringer": ["GoString"],
    "fmt.Formatter": ["Format"],
    "io.Reader": ["Read"],
    "io.Writer": ["Write"],
    "io.Closer": ["Close"],
    "io.Seeker": ["Seek"],
    "io.ReadWriter": ["Read", "Write"],
    "io.ReadCloser": ["Read", "Close"],
    "io.WriteCloser": ["Write", "Close"],
    "io.ReadWriteCloser": ["Read", "Write", "Close"],
    "io.ReadSeeker": ["Read", "Seek"],
    "io.ReaderAt": ["ReadAt"],
    "io.WriterTo": ["WriteTo"],
    "io.ReaderFrom": ["ReadFrom"],
    "io.StringWriter": ["WriteString"],
    "io.ByteReader": ["ReadByte"],
    "io.ByteWriter": ["WriteByte"],
    "io.RuneReader": ["ReadRune"],
    "sort.Interface": ["Len", "Less", "Swap"],
    "flag.Value": ["String", "Set"],
    "flag.Getter": ["String", "Set", "Get"],
    "sync.Locker": ["Lock", "Unlock"],
    "context.Context": ["Deadline", "Done", "Err", "Value"],
    "encoding.TextMarshaler": ["MarshalText"],
    "encoding.TextUnmarshaler": ["UnmarshalText"],
    "encoding.BinaryMarshaler": ["MarshalBinary"],
    "encoding.BinaryUnmarshaler": ["UnmarshalBinary"],
    "encoding/json.Marshaler": ["MarshalJSON"],
    "encoding/json.Unmarshaler": ["UnmarshalJSON"],
    "net/http.Handler": ["ServeHTTP"],
    "net/http.ResponseWriter": ["Header", "Write", "WriteHeader"],
    "net/http.Flusher": ["Flush"],
    "net/http.Hijacker": ["Hijack"],
    "net/http.CloseNotifier": ["CloseNotify"],
    "net/http.Pusher": ["Push"],
    "net.Error": ["Error", "Timeout", "Temporary"],
  },
  methodDispatch: "static",
  starImportsBind: true,
  builtinTypes: new Set(
    "bool string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr byte rune float32 float64 complex64 complex128 error any comparable interface struct".split(" "),
  ),
  builtinMethods: new Set("Error String Close Read Write Len Less Swap Lock Unlock Done Err Value Deadline Wait Add".split(" ")),
  identifier: "[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["//", "/*", "*"],
  blockComment: C_BLOCK_COMMENT,
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
  // The value a `range` over a slice, an array or a map binds second: `[]*T`, `[4]T`, `map[K]T` → `*T` / `T`.
  elementType: (returnType) => /^(?:\[\d*\]|map\[[^[\]]+\])(\*?(?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)$/.exec(returnType.trim())?.[1] ?? null,
  // `name T`, `a, name T` on a line of `type S struct { … }` (a tag and a comment after it allowed).
  fieldType: (declaration, field) => {
    if (!/^\w+$/.test(field)) return null;
    const line = new RegExp(`^\\s*(?:\\w+\\s*,\\s*)*${field}(?:\\s*,\\s*\\w+)*\\s+([^\\s\`/][^\`]*?)\\s*(?:\`[^\`]*\`)?\\s*(?://.*)?$`, "m");
    const body = /\bstruct\s*\{([\s\S]*)\}/.exec(declaration)?.[1];
    return body === undefined ? null : (line.exec(body)?.[1] ?? null);
  },
  callGraph: {
    verified: [
      '`f()` of a function of the package (any file of the directory), also through a dot import (`import . "pkg"`)',
      "`pkg.F()` through an import of a project package (go.mod module paths, also several modules in one repository)",
      "`r.M()` where `r` is the method's receiver (value or pointer), up embedded structs",
      "`x.M()` where `x` is a parameter (of the function or of a function literal) or `var x T` of a named type (also `*T`, `pkg.T`), or bound by `x := T{…}` / `x := &T{…}`",
      "`x.M()` where `x` holds what a call returns (`x := NewT()`, `x, err := pkg.Open()`, `f().M()`): the callee's first declared result — also along a chain (`y := x.Inner(); y.M()`, `NewT().Inner().M()`)",
      "`x.M()` where `x` is the value `range` binds over a call's result (`for _, c := range root.Commands()`: the callee's declared `[]*T` / `map[K]T`), a parameter declared `[]T`, or a receiver's field so declared",
      "`x.M()` where `x` holds a type assertion (`x, ok := v.(T)`, `v.(*T).M()`)",
      "`x.field.M()` where `x` is the receiver, a typed local or a call's result (`f().field.M()`) and its struct (in any file of the project) declares `field`'s type; `range` over such a field declared `[]T`",
      "`V.M()` on a package-level variable (any file of the package) declared with a named type or bound to a composite literal (`var Uri = uriBinding{}`)",
      "`x.M()` on an interface value reaches the methods of the interfaces it embeds",
      "implementors of an interface by method set: every type of the project that has all of the interface's methods — its own and those of the interfaces it embeds, the project's and common standard-library ones (`error`, `fmt.Stringer`, `io.Reader`, `sort.Interface`, …)",
    ],
    potentialOnly: [
      "results beyond a call's first, method values, variables of other packages, fields two deep (`r.a.b.M()`) and fields promoted from embedded structs",
      "calls through interface values of types outside the project",
      "interfaces that embed one neither the project nor the standard-library table declares (not matched by method set)",
    ],
  },
};
