// Python extraction: chunks (functions, class outlines with their methods, blocks), symbols with
// parameters and return types, docstrings, exportedness by __all__ (else a leading underscore),
// import rows, call sites and class heritage — one golden, plus direct assertions on the rules.
import { describe, expect, it } from "vitest";
import { checkExtraction, extractOk, lookup } from "../helpers/extraction.js";

describe("python extraction", () => {
  const x = checkExtraction("models.py");
  const { chunk, symbol } = lookup(x);

  it("makes function, class outline, method and block chunks, decorators included", () => {
    expect(x.language).toBe("python");
    expect(chunk("User")).toMatchObject({ chunkType: "class_shell", startLine: 22, isExported: true });
    expect(chunk("User.parse")).toMatchObject({ chunkType: "method", parentSymbol: "User", startLine: 35 });
    expect(chunk("make_user")).toMatchObject({ chunkType: "function", startLine: 50, endLine: 53 });
    expect(chunk("DEFAULT_NAME")).toMatchObject({ chunkType: "block", isExported: true });
  });

  it("gives symbols their def line, parameters (self and cls left out), return type and docstring", () => {
    expect(symbol("User.parse")).toMatchObject({ kind: "method", line: 36, signature: '@staticmethod\n    def parse(raw: str) -> "User"', returnType: '"User"' });
    expect(symbol("User.__init__").params).toEqual([
      { name: "name", type: "str", optional: false },
      { name: "email", type: "Optional[str]", optional: true },
      { name: "*tags", type: null, optional: true },
      { name: "**extra", type: null, optional: true },
    ]);
    expect(symbol("User.empty").params).toEqual([]);
    expect(symbol("User").doc).toBe("A user of the system.\n\n    Longer text.");
    expect(symbol("make_user")).toMatchObject({ doc: "Make a user. More text.", returnType: "User", params: [{ name: "name", type: "str", optional: true }] });
    expect(symbol("DEFAULT_NAME").kind).toBe("const");
  });

  it("exports what __all__ names, and members of exported classes unless _private (dunders are public)", () => {
    expect(symbol("_cache").isExported).toBe(false);
    expect(symbol("_helper").isExported).toBe(false);
    expect(symbol("User._secret").isExported).toBe(false);
    expect(symbol("User.__repr__").isExported).toBe(true);
    // `__all__` also decides for a name assigned above it.
    const above = extractOk("src/pre.py", "a = 1\nb = 2\n__all__ = ['b']\n");
    expect(above.symbols.map((s) => [s.name, s.isExported])).toEqual([
      ["a", false],
      ["b", true],
    ]);
    const without = extractOk("src/plain.py", "def a(): pass\ndef _b(): pass\n");
    expect(without.symbols.map((s) => [s.name, s.isExported])).toEqual([
      ["a", true],
      ["_b", false],
    ]);
  });

  it("re-exports imported names that __all__ lists, a package's public relative imports, and `X as X`", () => {
    const exportsOf = (path: string, text: string) =>
      extractOk(path, text)
        .symbols.filter((s) => s.kind === "export")
        .map((s) => [s.name, s.line, s.reExport?.module, s.reExport?.importedName]);
    expect(exportsOf("httpx/__init__.py", "from ._api import get, stream\nfrom ._models import Response as Resp, _private\nimport os\n__all__ = ['get', 'Resp', '_private']\n")).toEqual([
      ["get", 1, "._api", "get"],
      ["Resp", 2, "._models", "Response"],
      ["_private", 2, "._models", "_private"],
    ]);
    // No `__all__`: a package file re-exports what it imports from its own modules, public names only.
    expect(exportsOf("pkg/__init__.py", "from .app import Flask, _hidden\nfrom json import dumps\nfrom . import views\n")).toEqual([
      ["Flask", 1, ".app", "Flask"],
      ["views", 3, ".", "views"],
    ]);
    // A name `__all__` lists that the module neither declares nor imports by name comes from its star imports.
    expect(exportsOf("httpx/__init__.py", "from ._api import *\nfrom ._models import Response\n__all__ = ['get', 'Response', 'Local']\nclass Local: pass\n")).toEqual([
      ["Response", 2, "._models", "Response"],
      ["get", 3, "*", "get"],
    ]);
    // A plain module re-exports only `X as X` (PEP 484); imports inside functions never.
    expect(exportsOf("pkg/util.py", "from .app import Flask\nfrom .app import Blueprint as Blueprint\ndef f():\n    from .x import y\n")).toEqual([["Blueprint", 2, ".app", "Blueprint"]]);
  });

  it("records imports with their local bindings", () => {
    expect(x.imports.map((i) => [i.module, i.names, i.locals, i.kind, i.line])).toEqual([
      ["json", ["*"], ["json"], "import", 2],
      ["os.path", ["*"], ["osp"], "import", 3],
      ["typing", ["Optional"], ["Optional"], "import", 4],
      [".store", ["save_all", "Store"], ["save_all", "Backend"], "import", 5],
    ]);
    expect(extractOk("src/star.py", "from .a import *\nimport x.y\n").imports.map((i) => [i.module, i.names, i.locals, i.kind])).toEqual([
      [".a", ["*"], [], "export_star"],
      ["x", ["*"], ["x"], "import"],
    ]);
  });

  it("records calls on self, cls, super(), imported modules and names, call results, and bare calls; an unknown receiver records none", () => {
    const calls = x.calls.map(
      (c) =>
        `${c.caller ?? "<top>"} -> ${c.isNew ? "new " : ""}${c.callee} [${c.receiver.kind}${"className" in c.receiver ? `:${c.receiver.className}` : "local" in c.receiver ? `:${c.receiver.local}` : "producer" in c.receiver ? `:${c.receiver.producer}` : ""}] @${c.line}`,
    );
    expect(calls).toEqual([
      "Base.save -> validate [this:Base] @15",
      "Base.save -> flush [static:Backend] @16",
      "User.__init__ -> validate [super:Base] @32",
      "User.parse -> new User [bare] @37",
      "User.parse -> loads [namespace:json] @37",
      "User.empty -> parse [static:User] @41",
      "User.__repr__ -> join [namespace:osp] @47",
      "make_user -> save_all [bare] @52",
      "make_user -> new User [bare] @53",
      // `unknown().call()`: a method of what `unknown` returns (linked only if its annotation names a class).
      "_helper -> call [returned:unknown] @57",
      "_helper -> unknown [bare] @57",
      "<top> -> make_user [bare] @61",
    ]);
    expect(x.heritage).toEqual([
      { className: "Base", line: 13, extends: null, implements: [] },
      { className: "User", line: 23, extends: "Base", implements: [] },
    ]);
  });
});
