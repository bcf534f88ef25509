// Python: .py and .pyi, parsed by tree-sitter-python (the only importer of it).
import { createRequire } from "node:module";
import { posix } from "node:path";
import { PYTHON_EDITS } from "./python-edits.js";
import { RECEIVER_TYPE, type LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

/** `@pytest.fixture`, `@pytest.fixture(…)`, `@fixture` (imported from pytest), with the `name=` it may give. */
const FIXTURE_DECORATOR = /^\s*@\s*(?:pytest\.)?fixture\b(?:\s*\([^)]*?\bname\s*=\s*["']([A-Za-z_]\w*)["'])?/m;

/**
 * The class an annotation names when it names one plainly, as written (`User`, `models.User`),
 * through `"User"`, `Optional[User]`, `t.Optional[User]`, `Union[User, None]`, `User | None`;
 * null for anything else (a generic, a union of two classes).
 */
export function annotatedClass(type: string | null): string | null {
  if (type === null) return null;
  let t = type.trim();
  for (;;) {
    const inner = /^(?:(?:t|typing)\.)?Optional\[(.+)\]$/.exec(t)?.[1] ?? /^["'](.+)["']$/.exec(t)?.[1] ?? /^(?:(?:t|typing)\.)?Union\[(.+)\]$/.exec(t)?.[1]?.replace(/,/g, "|");
    const parts = (inner ?? t).split("|").map((p) => p.trim());
    const rest = parts.filter((p) => p !== "None");
    if (inner === undefined && (parts.length === 1 || rest.length !== 1)) break;
    if (rest.length !== 1) return null;
    t = rest[0]!;
  }
  return /^[A-Za-z_][\w.]*$/.test(t) ? t : null;
}

export const PYTHON: LanguageSpec = {
  name: "python",
  ...LANGUAGE_FILES.python,
  grammars: { python: () => require("tree-sitter-python") as unknown },
  resolver: "python",
  checker: "scip-python",
  scope: "file",
  structuralInterfaces: false,
  methodDispatch: "virtual",
  starImportsBind: true,
  importsAreMembers: true,
  extractor: "python",
  edits: PYTHON_EDITS,
  builtinTypes: new Set(
    "int float complex bool str bytes bytearray None NoneType object type list dict set frozenset tuple range slice memoryview Any Optional Union List Dict Set FrozenSet Tuple Type Callable Iterable Iterator Generator AsyncIterator AsyncGenerator Awaitable Coroutine Sequence Mapping MutableMapping MutableSequence Literal Final ClassVar TypeVar Generic Protocol Self".split(
      " ",
    ),
  ),
  builtinMethods: new Set(
    "append extend insert remove pop clear index count sort reverse copy get items keys values update setdefault add discard split join strip lstrip rstrip replace format startswith endswith lower upper find encode decode read write close".split(
      " ",
    ),
  ),
  identifier: "[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["#"],
  docStrings: ['"""', "'''"],
  importLine: "^(?:from\\s+\\S+\\s+import\\b|import\\s)",
  // `from . import x`, `from .m import x` are the package's own; any other module is external
  // unless the resolver finds it in the project.
  isExternalImport: (module) => !module.startsWith("."),
  // `from pkg import mod`: `pkg/mod.py` or the package `pkg/mod/`, beside `pkg/__init__.py`.
  submodulePaths: (packagePath, name) => {
    if (!/(?:^|\/)__init__\.pyi?$/.test(packagePath)) return [];
    const dir = packagePath.replace(/\/?__init__\.pyi?$/, "");
    const base = dir === "" ? name : `${dir}/${name}`;
    return [`${base}.py`, `${base}.pyi`, `${base}/__init__.py`, `${base}/__init__.pyi`];
  },
  // `pkg/mod.py` and the subpackage `pkg/mod/__init__.py` are submodules of `pkg/__init__.py`.
  packagePaths: (modulePath) => {
    const parent = modulePath.replace(/(?:\/__init__\.pyi?|\.pyi?)$/, "").replace(/\/?[^/]+$/, "");
    return parent === "" ? [] : [`${parent}/__init__.py`, `${parent}/__init__.pyi`];
  },
  // A method that returns its own receiver's type (`-> Self`, `def m(self: T) -> T`) gives the receiver's class.
  returnedType: (returnType, owner, _unwrapped, signature) => {
    const named = annotatedClass(returnType);
    const selfType = signature === null ? null : (/\(\s*self\s*:\s*["']?([A-Za-z_]\w*)["']?/.exec(signature)?.[1] ?? null);
    return owner !== null && named !== null && (named === selfType || /^(?:typing(?:_extensions)?\.)?Self$/.test(named)) ? RECEIVER_TYPE : named;
  },
  fixtureFiles: (testPath) => {
    const out: string[] = [];
    for (let dir = posix.dirname(testPath); ; dir = posix.dirname(dir)) {
      out.push(dir === "." ? "conftest.py" : `${dir}/conftest.py`);
      if (dir === "." || dir === "/") return out;
    }
  },
  fixtureDirectory: (path) => (posix.basename(path) === "conftest.py" ? (posix.dirname(path) === "." ? "" : posix.dirname(path)) : null),
  fixtureName: (signature, functionName) => {
    const m = FIXTURE_DECORATOR.exec(signature);
    return m === null ? null : (m[1] ?? functionName);
  },
  callGraph: {
    verified: [
      "`f()` of a function of the module, imported with `from m import f` (relative, absolute, src-layout and script-directory modules) or with `from m import *`, through packages that re-export it (`pkg/__init__.py`'s `from .m import f`: a module's imports are its attributes)",
      "`mod.f()` through `import mod` / `import a.b as mod`, or `from pkg import mod` of a submodule; `pkg.mod.f()` and `mod.Class.m()` a module at a time",
      "`self.m()`, `cls.m()` and `super().m()` in a class (the first base), the method found up the class's bases",
      "`Name.m()` on a class of the module or an imported class",
      '`x.m()` where `x` is a parameter annotated with a class (`User`, `"User"`, `models.User`, `Optional[User]`, `User | None`, `Union[User, None]`) or a local bound by `x = Name(…)` / `x = mod.Name(…)`',
      "`x.m()` where `x` holds what a call returns (`x = make()`, `x = mod.make()`, `make().m()`): the callee's return annotation, read as parameters' are",
      "`self.attr.m()` where the class binds `self.attr` to one class (`self.attr = Name(…)`, an annotated parameter, `self.attr: T`, or `attr: T` in the class body)",
      "`x.prop.m()` and `self.prop.m()` where `prop` is a property (a method) with a return annotation",
      "pytest: a test's (or fixture's) unannotated parameter holds the fixture of that name — its own module's, else the nearest `conftest.py` up the tree, by its `name=` when it gives one — typed by the fixture's return annotation, else by the one class it always returns or yields, or what the one call it returns gives",
      "`Name()` constructing a class of the module or a capitalised imported name",
    ],
    potentialOnly: [
      "receivers without an annotation or a constructor binding (unannotated return values, attributes of other objects that are not properties), loop variables, lambda parameters",
      "decorator calls on module-level instances (`@app.route`) unless the instance is typed as above",
      "a name the function binds itself (a nested `def`, a parameter, a local assignment) called by that name",
      "fixtures from plugins (not declared in the project)",
      "names a package re-exports from modules it does not import, and namespace packages (no `__init__.py`)",
      "attributes set outside the class's own methods",
    ],
  },
};
