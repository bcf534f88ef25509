// Rust: .rs, parsed by tree-sitter-rust (the only importer of it). `pub` exports; `use` paths and
// `mod` declarations resolve to files through the crate's module tree (resolve/rust.ts).
import { createRequire } from "node:module";
import { RUST_EDITS } from "./rust-edits.js";
import { C_BLOCK_COMMENT, type LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

export const RUST: LanguageSpec = {
  name: "rust",
  ...LANGUAGE_FILES.rust,
  grammars: { rust: () => require("tree-sitter-rust") as unknown },
  resolver: "rust",
  extractor: "rust",
  edits: RUST_EDITS,
  scope: "file",
  moduleSeparator: "::",
  checker: "rust-analyzer",
  structuralInterfaces: false,
  methodDispatch: "static",
  starImportsBind: true,
  builtinTypes: new Set(
    "bool char str String u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 Self Option Result Vec Box Rc Arc RefCell Cell Mutex RwLock HashMap HashSet BTreeMap BTreeSet VecDeque Cow Path PathBuf Fn FnMut FnOnce Send Sync Sized Clone Copy Debug Default PartialEq Eq PartialOrd Ord Hash Iterator IntoIterator From Into AsRef Display Error".split(
      " ",
    ),
  ),
  builtinMethods: new Set(
    "new clone unwrap expect map and_then ok_or ok err is_some is_none iter into_iter collect push pop insert remove get get_mut len is_empty contains to_string to_owned as_str as_ref borrow borrow_mut lock read write join split trim parse from into fmt eq cmp".split(
      " ",
    ),
  ),
  identifier: "[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["//", "/*", "*"],
  blockComment: C_BLOCK_COMMENT,
  importLine: "^(?:pub(?:\\([^)]*\\))?\\s+)?(?:use\\s|mod\\s+\\w+\\s*;|extern\\s+crate\\b)",
  // `crate::`, `self::` and `super::` paths are the crate's own; any other first segment is an
  // external crate unless the resolver finds a child module or a workspace crate of that name.
  isExternalImport: (module) => !/^(?:crate|self|super)(?:::|$)/.test(module),
  // `Self` (the impl's type), `T`, `&T`, `a::T`; through `?`, the first type argument of `Result<…>` / `Option<…>`.
  returnedType: (returnType, owner, unwrapped) => {
    let type = returnType.trim();
    if (unwrapped) {
      const inner = /^(?:[a-z_]\w*::)*(?:Result|Option|io::Result)\s*<\s*([^,<>]+(?:<[^<>]*>)?)/.exec(type)?.[1];
      if (inner === undefined) return null;
      type = inner.trim();
    }
    // Method calls see through a smart pointer (`Box<Hir>`).
    const pointee = /^(?:Box|Rc|Arc)\s*<\s*(.+)>$/.exec(type.replace(/^&\s*(?:'\w+\s+)?(?:mut\s+)?/, ""))?.[1];
    if (pointee !== undefined) type = pointee.trim();
    const m = /^(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?((?:(?:crate|self|super|[a-z_]\w*)::)*)([A-Z]\w*)(?:\s*<.*>)?$/.exec(type);
    if (!m) return null;
    if (m[2] === "Self") return owner;
    // `m::T` through the module the file binds as `m` (`ast::Error` beside the file's own `Error`).
    const module = /^([a-z_]\w*)::$/.exec(m[1]!)?.[1];
    return module !== undefined && !/^(?:crate|self|super)$/.test(module) ? `${module}.${m[2]!}` : m[2]!;
  },
  // What `for x in` binds: `Vec<T>`, `&Vec<T>`, `&[T]`, `[T; N]`, `impl Iterator<Item = T>` → `T` (also `&T`).
  elementType: (returnType) => {
    const type = returnType.trim().replace(/^&\s*(?:'\w+\s+)?(?:mut\s+)?/, "");
    const m = /^(?:Vec\s*<\s*(.+)>|\[\s*([^;\]]+?)\s*(?:;[^\]]*)?\]|impl\s+(?:Iterator|IntoIterator|DoubleEndedIterator|ExactSizeIterator)\s*<\s*Item\s*=\s*(.+)>)$/.exec(type);
    return m ? (m[1] ?? m[2] ?? m[3])!.trim() : null;
  },
  // A struct's `name: T,` (any visibility), or `Variant(T)` of an enum for `Variant.0`; a type
  // written with a longer path than `m::T` is not read (`hir::translate::Translator`).
  fieldType: (declaration, field) => {
    if (!/^\w+(?:\.0)?$/.test(field)) return null;
    const variant = /^([A-Z]\w*)\.0$/.exec(field)?.[1];
    const line = variant
      ? new RegExp(`^\\s*${variant}\\s*\\(\\s*([^,()]+?)\\s*,?\\s*\\)\\s*,?\\s*(?://.*)?$`, "m")
      : new RegExp(`^\\s*(?:pub(?:\\s*\\([^)]*\\))?\\s+)?${field}\\s*:\\s*(.+?)\\s*,?\\s*(?://.*)?$`, "m");
    const type = line.exec(declaration)?.[1] ?? null;
    return type === null || /::\w+::|^(?:&\s*)?(?:crate|self|super)::/.test(type) ? null : type;
  },
  callGraph: {
    verified: [
      "`f()` of a function of the file or brought in by `use` (crate-relative, `self::`, `super::`, child modules, workspace crates by name, through `pub use` re-exports and glob imports)",
      "`m::f()` through `use a::m;` or `mod m;`, `crate::a::f()` / `super::f()` paths, and a workspace crate's path with no `use` (`acme_core::db::open()`; a dependency's, `memchr::memchr()`, is an external import that cross-repository callers follow)",
      "`self.m()` and `Self::m()` in an `impl` or a trait's default method",
      "`Type::m()` (also `m::Type::m()`) on a type of the file or brought in by `use` — a built-in name the crate defines itself (walkdir's `Error`) is the crate's type",
      "`x.m()` where `x` is a parameter or `let x: T` of a named type (also `&T`, `&mut T`), a parameter bounded by a trait (`S: Trait`, `where S: Trait`, `&dyn Trait`, `impl Trait`, also on the `impl`: `impl<V: Visit> Many<V>`), a parameter of type `Self` (the impl's type, or the trait in its default methods), or bound by `let x = T { … }`",
      "`x.m()` where `x` holds what a call returns (`let x = T::new()`, `let x = open()?`, `find().unwrap()`, `f().m()`): the callee's declared return type (`Self`, `T`, `&T`; through `?`, `.unwrap()` or `.expect(…)`, the `Result`/`Option` it unwraps) — also along a chain (`let r = dir.run(); r.errs()`, `a.b().c()`) and through `let (a, b) = (f(), g());`",
      "`x.m()` where `x` is an element of what a call returns (`for x in w.list()`, `let x = &w.list()[0]`: the callee's declared `Vec<T>`, `&[T]`, `[T; N]` or `impl Iterator<Item = T>`)",
      "`x.field.m()` where `x` is `self`, a typed local or a call's result and its struct (in any file) declares `field`'s type without a module path",
      "`Type::Variant(x) => x.m()` in a `match` arm: the variant's single field as the enum declares it (inside that arm only)",
      "calls inside macro arguments (`assert_eq!(x.len(), 3)`, `assert!(!f(x))`), read from the tokens with the same rules",
      "an inline module's items called from the same module (`mod tests { fn helper() … helper() }`)",
      "`impl Trait for Type` as IMPLEMENTS; trait bounds (`trait A: B`) as EXTENDS",
    ],
    potentialOnly: [
      "receivers whose type a return type does not name plainly (`Option<T>` without `?`, iterator adaptors, closures), pattern bindings other than a one-field variant's (`if let Some(x)`), fields declared with a module path (`hir: hir::Translator`)",
      "calls in `macro_rules!` bodies, methods from derived traits, trait default methods called on an implementing type, a `fn` item's name called in the body that declares a local `fn` of that name",
      "items inside inline modules called from outside them, `#[path]` modules, a type brought in only by a glob import (`use a::*; T::new()`), `super::f()` inside a macro's arguments",
    ],
  },
};
