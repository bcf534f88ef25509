// The index speaks Python through every read tool: skeleton, signature, search, dependencies
// (relative, absolute and src-layout imports resolved to project files), verified callers
// (through imports, `self`, `cls`, `super()`, a module alias and a class name) and implementors.
import { describe, expect, it } from "vitest";
import { indexedProject } from "../helpers/indexed.js";
import { flat } from "../helpers/sites.js";

const p = indexedProject({
  "src/app/__init__.py": [
    "from .models import User",
    '__all__ = ["User", "make_user"]',
    "",
    "",
    "def make_user(name: str) -> User:",
    '    """Make a user. More text."""',
    "    return User(name)",
    "",
  ].join("\n"),
  "src/app/models.py": [
    "import json",
    "",
    "",
    "class Base:",
    "    def save(self) -> None:",
    "        self.validate()",
    "",
    "    def validate(self) -> bool:",
    "        return True",
    "",
    "",
    "class User(Base):",
    '    """A user of the system."""',
    "",
    "    def __init__(self, name: str):",
    "        super().validate()",
    "        self.name = name",
    "",
    "    @classmethod",
    '    def parse(cls, raw: str) -> "User":',
    '        return cls(json.loads(raw)["name"])',
    "",
    "    def rename(self, name: str) -> None:",
    "        self.name = name",
    "        self.save()",
    "",
    "",
    "class Registry:",
    '    store: "Base"',
    "",
    "    def __init__(self, user: User):",
    "        self.user = user",
    '        self.fresh = User("n")',
    "",
    "    def touch(self) -> None:",
    '        self.user.rename("a")',
    '        self.fresh.rename("b")',
    "        self.store.save()",
    "",
  ].join("\n"),
  "src/app/cli.py": [
    "from app.models import User",
    "from . import make_user",
    "import app.models as m",
    "",
    "",
    "def main(argv: list[str]) -> int:",
    "    u = make_user(argv[0])",
    '    u.rename("x")',
    '    User.parse("{}")',
    "    m.Base().save()",
    "    return 0",
    "",
    "",
    'def typed(user: User, other: "Optional[User]") -> None:',
    '    user.rename("y")',
    '    fresh = User("z")',
    '    fresh.rename("w")',
    '    [fresh][0].rename("v")',
    "",
  ].join("\n"),
  "src/app/api.py": ["from .models import *", '__all__ = ["Registry", "nowhere"]', ""].join("\n"),
  "tests/test_models.py": ["from app.models import User", "", "", "def test_parse():", '    assert User.parse("{}").name', ""].join("\n"),
});

describe("python through the read tools", () => {
  it("lists each module's public names in the skeleton", async () => {
    expect((await p.call("mast_project_skeleton", {})).files).toEqual([
      // `User` is imported and listed in `__all__`: a re-export of the package.
      { file_path: "src/app/__init__.py", exports: ["User", "make_user"] },
      { file_path: "src/app/api.py", exports: ["Registry", "nowhere"] },
      { file_path: "src/app/cli.py", exports: ["main", "typed"] },
      // Each class's public methods beside it, `__init__` included.
      { file_path: "src/app/models.py", exports: ["Base", "User", "Registry"], members: { Base: ["save", "validate"], User: ["__init__", "parse", "rename"], Registry: ["__init__", "touch"] } },
      { file_path: "tests/test_models.py", exports: ["test_parse"] },
    ]);
  });

  it("answers a method's signature with its docstring's first sentence and its types (detail full)", async () => {
    const brief = await p.call("mast_signature", { symbol: "make_user" });
    expect(brief.results).toEqual([
      {
        kind: "function",
        file_path: "src/app/__init__.py",
        line: 5,
        is_exported: true,
        signature: "def make_user(name: str) -> User",
        doc: "Make a user.",
        type_context: [expect.objectContaining({ name: "User", file_path: "src/app/models.py", line: 12 })],
      },
    ]);
    const full = await p.call("mast_signature", { symbol: "User.parse", detail: "full" });
    expect(full.results[0]).toMatchObject({ line: 20, params: [{ name: "raw", type: "str", optional: false }], return_type: '"User"' });
  });

  it("resolves relative, absolute and src-layout imports to project files", async () => {
    const deps = await p.call("mast_dependencies", { file_path: "src/app/cli.py" });
    expect(deps.imports.map((i: { module: string; resolved_path: string | null; is_external: boolean }) => [i.module, i.resolved_path, i.is_external])).toEqual([
      ["app.models", "src/app/models.py", false],
      [".", "src/app/__init__.py", false],
      ["app.models", "src/app/models.py", false],
    ]);
    const models = await p.call("mast_dependencies", { file_path: "src/app/models.py" });
    expect(
      models.imports.map((i: { module: string; symbols: string[]; resolved_path?: string | null; is_external: boolean }) => [i.module, i.symbols, i.resolved_path ?? null, i.is_external]),
    ).toEqual([["json", ["* as json"], null, true]]);
  });

  it("verifies calls through an import, self, cls, super(), a module alias and a class name, tests included", async () => {
    const at = async (symbol: string) =>
      flat((await p.call("mast_callers", { symbol })).verified_callers).map(
        (c: { file_path: string; line: number; caller_symbol: string; resolution: string }) => `${c.file_path}:${c.line} ${c.caller_symbol} [${c.resolution}]`,
      );
    expect(await at("make_user")).toEqual(["src/app/cli.py:7 main [import]"]);
    expect(await at("Base.validate")).toEqual(["src/app/models.py:6 Base.save [this_method]", "src/app/models.py:16 User.__init__ [super_method]"]);
    expect(await at("User.parse")).toEqual(["src/app/cli.py:9 main [import]", "tests/test_models.py:5 test_parse [import]"]);
    // `m.Base()` through `import app.models as m`.
    expect(await at("Base")).toEqual(["src/app/cli.py:10 main [import]"]);
    // An annotated parameter and a `Name(…)` binding type their receivers, and `u = make_user(...)`
    // holds what make_user's annotation (`-> User`) says it returns.
    expect(await at("User.rename")).toEqual([
      "src/app/cli.py:8 main [return_type]",
      "src/app/cli.py:15 typed [parameter_type]",
      "src/app/cli.py:17 typed [new_expression]",
      // `self.user = user` (an annotated parameter) and `self.fresh = User(…)` type the attributes.
      "src/app/models.py:36 Registry.touch [field_type]",
      "src/app/models.py:37 Registry.touch [field_type]",
    ]);
    // A class-body annotation (`store: "Base"`) types `self.store`; `m.Base()` constructs a Base.
    expect(await at("Base.save")).toEqual(["src/app/cli.py:10 main [new_expression]", "src/app/models.py:25 User.rename [this_method]", "src/app/models.py:38 Registry.touch [field_type]"]);
    const rename = await p.call("mast_callers", { symbol: "User.rename" });
    expect(flat(rename.potential_matches, "potential").map((x: { file_path: string; line: number }) => `${x.file_path}:${x.line}`)).toEqual(["src/app/cli.py:18"]);
  });

  it("answers a member a class inherits with its base's declaration", async () => {
    const sig = await p.call("mast_signature", { symbol: "User.save" });
    expect(sig.results.map((r: { symbol: string; file_path: string; line: number }) => `${r.symbol} ${r.file_path}:${r.line}`)).toEqual(["Base.save src/app/models.py:5"]);
    const callers = await p.call("mast_callers", { symbol: "User.save" });
    expect(flat(callers.verified_callers).map((c: { file_path: string; line: number }) => `${c.file_path}:${c.line}`)).toEqual(["src/app/cli.py:10", "src/app/models.py:25", "src/app/models.py:38"]);
    // Not inherited and not declared: not_found, with what it may have meant.
    expect(await p.call("mast_signature", { symbol: "User.sav" })).toMatchObject({ results: [] });
  });

  it("lists what __all__ re-exports from star imports with the file that declares it", async () => {
    const r = await p.call("mast_exports", { file_path: "src/app/api.py" });
    expect(r.exports.map((e: { name: string; from?: string }) => [e.name, e.from ?? null])).toEqual([
      ["Registry", "src/app/models.py"],
      ["nowhere", "*"],
    ]);
  });

  it("lists subclasses as implementors", async () => {
    const r = await p.call("mast_implementors", { interface_name: "Base" });
    expect(r.implementors).toEqual([{ class_name: "User", file_path: "src/app/models.py", line: 12, relation: "extends", methods: ["__init__", "parse", "rename"] }]);
  });

  it("searches Python by name and by words", async () => {
    const r = await p.call("mast_search", { query: "make_user", limit: 1, fields: ["file_path", "symbol_name"] });
    expect(r.results).toEqual([{ file_path: "src/app/__init__.py", symbol_name: "make_user" }]);
    const lang = await p.call("mast_search", { query: "rename", language: "python", limit: 1, fields: ["symbol_name"] });
    expect(lang.results).toEqual([{ symbol_name: "User.rename" }]);
  });
});
