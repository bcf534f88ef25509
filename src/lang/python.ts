// Python: .py and .pyi, parsed by tree-sitter-python (the only importer of it).
import { createRequire } from "node:module";
import type { LanguageSpec } from "./spec.js";

const require = createRequire(import.meta.url);

export const PYTHON: LanguageSpec = {
  name: "python",
  extensions: { ".py": "python", ".pyi": "python" },
  indexedByDefault: [".py", ".pyi"],
  grammars: { python: () => require("tree-sitter-python") as unknown },
  resolver: "python",
  extractor: "python",
  builtinTypes: new Set(
    "int float complex bool str bytes bytearray None NoneType object type list dict set frozenset tuple range slice memoryview Any Optional Union List Dict Set FrozenSet Tuple Type Callable Iterable Iterator Generator AsyncIterator AsyncGenerator Awaitable Coroutine Sequence Mapping MutableMapping MutableSequence Literal Final ClassVar TypeVar Generic Protocol Self".split(" "),
  ),
  builtinMethods: new Set(
    "append extend insert remove pop clear index count sort reverse copy get items keys values update setdefault add discard split join strip lstrip rstrip replace format startswith endswith lower upper find encode decode read write close".split(" "),
  ),
  identifier: "[A-Za-z_][A-Za-z0-9_]*",
  commentPrefixes: ["#"],
  importLine: "^(?:from\\s+\\S+\\s+import\\b|import\\s)",
  // `from . import x`, `from .m import x` are the package's own; any other module is external
  // unless the resolver finds it in the project.
  isExternalImport: (module) => !module.startsWith("."),
};
