// What mast knows about one language, as data: its extensions and grammars, and the rules the
// generic layers (index, store, query, tools) ask for instead of naming a language. One file per
// language in this folder declares one LanguageSpec; languages.ts lists them.
import type { EditRules } from "./edit-rules.js";
import type { OutlineSpec } from "./outline.js";

/** How a file of this language's import specifiers name project files (resolve/imports.ts). */
export type Resolver = "ecmascript" | "python" | "go" | "rust" | "java" | "include" | "ruby" | "php" | "none";

/** How a file of this language is turned into chunks, symbols, imports and calls (syntax/extract.ts). */
export type Extractor = "ecmascript" | "python" | "go" | "rust" | "outline" | "markdown";

/** The semantic backends of the checker pass. */
export type CheckerBackendName = "compiler" | "scip-python" | "go-types" | "rust-analyzer";

export interface LanguageSpec {
  /** The language's name in answers and in the `language` argument of the tools. */
  readonly name: string;
  /** Extension (with its dot) → the grammar that parses it (null: line-scanned, not parsed). */
  readonly extensions: Readonly<Record<string, string | null>>;
  /** Extensions indexed unless the configuration says otherwise. */
  readonly indexedByDefault: readonly string[];
  /** Grammar name → its tree-sitter language, loaded on first use (the only importer of the grammar's package). */
  readonly grammars: Readonly<Record<string, () => unknown>>;
  readonly extractor: Extractor;
  /**
   * Another registered language a file of this one's extensions is read as, by its text (null: this
   * one) — a `.h` header with no C++ in it is C.
   */
  readonly dialect?: (path: string, text: string) => string | null;
  /** The query file and hooks the `outline` extractor reads (languages indexed at breadth). */
  readonly outline?: OutlineSpec;
  /** What hashpilot's AST edits read of the language's trees; absent: no AST edits (hash and diff edits only). */
  readonly edits?: EditRules;
  readonly resolver: Resolver;
  /**
   * A function may be declared without its body (a C prototype in a header) apart from its one
   * definition: the definition answers for those declarations (callers, signature).
   */
  readonly declaredElsewhere?: boolean;
  /**
   * The analyzer the checker pass (`--checker`, query/checker.ts) asks about this language's
   * potential callers: `compiler` the TypeScript compiler's programs, `scip-python` pyright's SCIP
   * indexer, `go-types` go/types through the Go program query/checker-go.ts builds; absent: the
   * language has no semantic backend yet.
   */
  readonly checker?: CheckerBackendName;
  /**
   * Where the names a file declares are visible without an import: in the file itself, or in
   * every file of its directory of the same language (a Go package).
   */
  readonly scope: "file" | "directory";
  /**
   * Whether every name a file's edges read is written in the file's own rows (call sites,
   * declarations and their signatures, heritage) or in the face of a declaration one of those
   * names, to any depth — no fixture bound by a parameter's name, no re-export renaming a name,
   * no signature read but a type's (`returnedType` ignores its `declaration`), return types that
   * are types as written, never a producer's path (`p().m`) (Go): a change to
   * names then reaches only the files writing them (index/mention-reach.ts). Absent: it reaches
   * every file that imports the file, transitively.
   */
  readonly relinkByMention?: boolean;
  /** A type implements an interface by having all of its methods (Go), not only by declaring it. */
  readonly structuralInterfaces: boolean;
  /**
   * A variable may hold a function, so a producer path naming one is a call through its declared
   * type (ECMAScript's `h()` of `let h: Factory` returns what Factory's call signature says), not
   * the value it holds (Go's package-level `var x = T{}` produces a T).
   */
  readonly callableVariables?: boolean;
  /**
   * Interfaces from outside the project whose method sets are known, for a project interface that
   * embeds one: the module its import names and the name (`fmt.Stringer`, `encoding/json.Marshaler`),
   * or a predeclared name (`error`) → its methods.
   */
  readonly knownInterfaces?: Readonly<Record<string, readonly string[]>>;
  /**
   * How a call of a method on an instance is bound: at run time by the object's class (`virtual`:
   * any subclass may override it) or by the receiver's declared type (`static`: Go and Rust methods,
   * C++ and C# methods not declared virtual). The structural index's `virtual` edge kind.
   */
  readonly methodDispatch: "virtual" | "static";
  /**
   * A re-export of every name (`export_star`: `#include`, `require`, `from m import *`, `pub use
   * a::*`) also brings the names into the file's own scope; ECMAScript's `export * from` does not.
   */
  readonly starImportsBind: boolean;
  /**
   * A name a module imports is an attribute of the module that others import in turn (Python:
   * `from .models import User` in `pkg/__init__.py` makes `pkg.User`); elsewhere only what a file
   * declares or re-exports is.
   */
  readonly importsAreMembers?: boolean;
  /** What joins a module path's parts in code (`a.b` unless said: Rust's `a::b`). */
  readonly moduleSeparator?: string;
  /** Type names that are the language's, not the project's (never looked up as project types). */
  readonly builtinTypes: ReadonlySet<string>;
  /** Methods of the language's built-in types that project methods of the same name are confused with (`str.match(`). */
  readonly builtinMethods: ReadonlySet<string>;
  /** An identifier of the language, as a regular expression source without anchors. */
  readonly identifier: string;
  /** Prefixes of a trimmed line that is a comment (`//`, `/*`, `*` in a block comment). */
  readonly commentPrefixes: readonly string[];
  /** Delimiters of the string blocks that hold prose (Python's `"""` and `'''` docstrings, their `>>>` examples included). */
  readonly docStrings?: readonly string[];
  /**
   * The block comment's opener and closer (code may follow a comment's close on its line), and the
   * doc comment's opener: a doc comment's lines are prose even without a comment prefix (Javadoc
   * written without its `*` column).
   */
  readonly blockComment?: { readonly open: string; readonly close: string; readonly docOpen: string };
  /** A trimmed line that is an import (it binds a name, it does not call it), as a regular expression source. */
  readonly importLine: string;
  /** How the index answers for this language, one line per rule, for docs/languages.md: what a verified caller is proven by, what stays potential. */
  readonly callGraph: { readonly verified: readonly string[]; readonly potentialOnly: readonly string[] };
  /**
   * The one type a call's value has, from its callee's declared return type as written (`owner`:
   * the callee's class, for `Self`; `unwrapped`: the value went through the unwrap operator, Rust's
   * `?`), or null when the return type names no single project type plainly. `signature`: the
   * callee's declaration text, for a language whose generic parameters may shadow a type's name.
   * `RECEIVER_TYPE` when the value is the receiver itself (`-> Self` on an instance of a
   * subclass is the subclass): the linker reads the receiver's type, else the owner.
   */
  returnedType(returnType: string, owner: string | null, unwrapped: boolean, signature: string | null): string | null;
  /**
   * The element type a collection type written as a return type holds — what a `for`/`range` over
   * the call's value binds (Go's `[]*T`, Rust's `Vec<T>`, `&[T]`) — as written, or null when the
   * type is no plain collection; absent when the linker does not type loop variables.
   */
  elementType?(returnType: string): string | null;
  /**
   * The type a field is declared with, read from its type's declaration text (a struct's field by
   * name; `Variant.0`: an enum variant's single field), as written; null when the text does not
   * declare it plainly. Absent when the linker does not follow fields across files.
   */
  fieldType?(declaration: string, field: string): string | null;
  /**
   * Where a package's submodule `name` may live, for `from pkg import name` when the package file
   * (`pkg/__init__.py`) does not declare `name` itself; absent when modules cannot hold modules so.
   */
  submodulePaths?(packagePath: string, name: string): string[];
  /**
   * Where a test's fixtures may be declared besides its own file, nearest first (pytest's
   * `conftest.py` in the test's directory and each one above it); absent where tests take no
   * injected fixtures.
   */
  fixtureFiles?(testPath: string): string[];
  /** The directory whose tests a fixture file serves (`""`: the whole project), or null when the file is not one. */
  fixtureDirectory?(path: string): string | null;
  /** The name tests ask for the fixture a function's declaration text (decorators included) declares — its own, or the one the decorator gives — or null when it declares none. */
  fixtureName?(signature: string, functionName: string): string | null;
  /** The package files a module is a submodule of (their importers can reach it by name); absent likewise. */
  packagePaths?(modulePath: string): string[];
  /** An import of this module names something outside the project (a package, a builtin) unless a resolver maps it in. */
  isExternalImport(module: string): boolean;
}

/** The block and doc comments of the C family (C, C++, C#, Java, Go, Rust, ECMAScript, PHP). */
export const C_BLOCK_COMMENT = { open: "/*", close: "*/", docOpen: "/**" } as const;

/** What `returnedType` answers for a value that is the receiver itself (see there). */
export const RECEIVER_TYPE = "\0receiver";

/** Inheritance chains followed when a method is not declared on the receiver's own class (the call graph's linker, and queries naming an inherited member). */
export const MAX_INHERITANCE_DEPTH = 16;
