// intent rename-exported-symbol in Python, Go and Rust, on real indexed projects written as text:
// every file compared whole after the rename — Python's `from m import x [as y]`, `import a.b.m`,
// `import m as x`, package `__init__` re-exports and `__all__` strings, a star import passing the
// name on; Go's package-qualified uses, the package's other files and qualified types, the
// exported spelling kept; Rust's `use` paths, `{self as x}`, `pub use` and `pub mod` chains
// (`util::core::Thing`), `crate::` paths. A plan with a gap refuses and writes nothing. Where the
// language's own toolchain is on PATH the renamed project is compiled too.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { onPath } from "../../src/base/programs.js";
import { indexedProject, type IndexedProject } from "../helpers/indexed.js";

beforeAll(() => {
  process.env.HASHPILOT_HOME = mkdtempSync(join(tmpdir(), "hp-home-"));
});

const read = (p: IndexedProject, file: string) => readFileSync(join(p.project.root, file), "utf8");
const intent = (p: IndexedProject, symbol: string, newName: string, { file, ...extra }: Record<string, unknown> = {}) =>
  p.call("intent", { intent: JSON.stringify({ operation: "rename-exported-symbol", symbol, newName, ...(file === undefined ? {} : { file }) }), verify: false, ...extra });

/** Runs a toolchain command in the project when the program is on PATH; null when it is not. */
function compiles(root: string, program: string, args: string[]): { ok: boolean; output: string } | null {
  if (onPath(program) === null) return null;
  const r = spawnSync(program, args, {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, GOFLAGS: "-mod=mod", GOPROXY: "off", GOTOOLCHAIN: "local", CARGO_TARGET_DIR: join(root, ".mast", "target") },
  });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.slice(0, 2000) };
}

describe("Python", () => {
  const CORE = ['__all__ = ["make_thing", "Thing"]', "", "", "class Thing:", "    def run(self):", "        return make_thing()", "", "", "def make_thing():", "    return Thing()", ""].join("\n");
  const INIT = ["from .core import make_thing, Thing", "from . import core", "", '__all__ = ["make_thing", "Thing", "core"]', ""].join("\n");
  const STAR = ["from .core import *", ""].join("\n");
  const APP = [
    "import pkg",
    "import pkg.core",
    "from pkg import make_thing as mk",
    "from pkg.core import make_thing",
    "import pkg.core as pc",
    "from pkg import core as c",
    "from pkg.star import make_thing as st",
    "",
    "",
    "def main():",
    "    make_thing()",
    "    mk()",
    "    st()",
    "    pkg.make_thing()",
    "    pkg.core.make_thing()",
    "    pc.make_thing()",
    "    c.make_thing()",
    '    return "make_thing"',
    "",
  ].join("\n");
  // Reaches pkg.core as an attribute, but names nothing of it: no edit there, not in the plan.
  const OTHER = "import pkg.core\n\nprint(pkg.core.Thing)\n";
  const py = indexedProject({ "pkg/core.py": CORE, "pkg/__init__.py": INIT, "pkg/star.py": STAR, "app.py": APP, "other.py": OTHER });

  it("renames the declaration, __all__, the package's re-export, every import form and module-attribute use; strings stay", async () => {
    const r = await intent(py, "make_thing", "build_thing");
    expect(r.data.success).toBe(true);
    expect(r.data.plan.unresolved).toEqual([]);
    expect(r.data.plan.files.map((f: string) => f.slice(py.project.root.length + 1)).sort()).toEqual(["app.py", "pkg/__init__.py", "pkg/core.py", "pkg/star.py"]);
    expect(read(py, "other.py")).toBe(OTHER);
    expect(read(py, "pkg/core.py")).toBe(CORE.replaceAll("make_thing", "build_thing"));
    expect(read(py, "pkg/__init__.py")).toBe(INIT.replaceAll("make_thing", "build_thing"));
    expect(read(py, "pkg/star.py")).toBe(STAR);
    expect(read(py, "app.py")).toBe(APP.replaceAll("make_thing", "build_thing").replace('return "build_thing"', 'return "make_thing"'));
    const run = spawnSync("python3", ["-c", "import app; app.main()"], { cwd: py.project.root, encoding: "utf8" });
    if (run.error === undefined) expect(run.status, run.stderr).toBe(0);
  });

  describe("a method", () => {
    const m = indexedProject({
      "pkg/__init__.py": "",
      "pkg/urls.py": [
        "class URLPattern:",
        "    def matches(self, other):",
        "        return other == 1",
        "",
        "    def twice(self, other):",
        "        return self.matches(other) and self.matches(other)",
        "",
      ].join("\n"),
      "pkg/route.py": [
        "from pkg.urls import URLPattern",
        "",
        "",
        "def route(pattern: URLPattern, url, other):",
        "    if pattern.matches(url):",
        "        return url",
        "    return other.matches(url)",
        "",
      ].join("\n"),
    });
    it("renames the method, its calls through self and the verified call in another file; an untyped call elsewhere is a gap, renamed only with yes", async () => {
      const refused = await intent(m, "URLPattern.matches", "is_match").catch((e: { code: string; details: { plan: { unresolved: Array<{ file: string; operation: string }> } } }) => e);
      expect(refused.code).toBe("UNSUPPORTED_OPERATION");
      expect(refused.details.plan.unresolved.map((u) => [u.file.slice(m.project.root.length + 1), u.operation])).toEqual([["pkg/route.py", "rename-member-access"]]);
      const r = await intent(m, "URLPattern.matches", "is_match", { yes: true });
      expect(r.data.success).toBe(true);
      expect(read(m, "pkg/urls.py")).toBe(
        [
          "class URLPattern:",
          "    def is_match(self, other):",
          "        return other == 1",
          "",
          "    def twice(self, other):",
          "        return self.is_match(other) and self.is_match(other)",
          "",
        ].join("\n"),
      );
      expect(read(m, "pkg/route.py")).toBe(
        ["from pkg.urls import URLPattern", "", "", "def route(pattern: URLPattern, url, other):", "    if pattern.is_match(url):", "        return url", "    return other.matches(url)", ""].join(
          "\n",
        ),
      );
    });
  });

  describe("a gap", () => {
    const twice = indexedProject({
      "pkg/__init__.py": "",
      "pkg/core.py": "def load():\n    return 1\n",
      "pkg/alias.py": "from pkg.core import load\n",
      "app.py": "from pkg.core import load\nfrom pkg.alias import load\n\n\ndef main():\n    return load()\n",
    });
    it("a file binding the name from two imports refuses the plan (UNSUPPORTED_OPERATION) and writes no file", async () => {
      const before = { core: read(twice, "pkg/core.py"), alias: read(twice, "pkg/alias.py"), app: read(twice, "app.py") };
      const r = await intent(twice, "load", "fetch").catch((e: { code: string; details: { plan: { unresolved: Array<{ file: string; reason: string }> } } }) => e);
      expect(r.code).toBe("UNSUPPORTED_OPERATION");
      expect(r.details.plan.unresolved.map((u) => [u.file.slice(twice.project.root.length + 1), u.reason])).toEqual([
        ["app.py", "app.py binds 'load' from more than one import: which module's symbol each use means is not certain"],
      ]);
      expect({ core: read(twice, "pkg/core.py"), alias: read(twice, "pkg/alias.py"), app: read(twice, "app.py") }).toEqual(before);
    });
  });
});

describe("Go", () => {
  const GO_MOD = "module example.com/shop\n\ngo 1.19\n";
  const UTIL = [
    "package util",
    "",
    "// MakeThing builds a thing.",
    "func MakeThing(n int) int { return helper(n) + 1 }",
    "",
    "func helper(n int) int { return n * 2 }",
    "",
    "type Thing struct{ Name string }",
    "",
    "func (t Thing) Run() int { return MakeThing(len(t.Name)) }",
    "",
  ].join("\n");
  const MORE = ["package util", "", "func Twice(n int) int { return MakeThing(n) + MakeThing(n) }", "", 'func Make() Thing { return Thing{Name: "a"} }', ""].join("\n");
  const MAIN = [
    "package main",
    "",
    "import (",
    '\t"fmt"',
    "",
    '\tu "example.com/shop/util"',
    ")",
    "",
    "func main() {",
    "\tvar t u.Thing = u.Make()",
    '\tfmt.Println(u.MakeThing(1), t.Run(), "MakeThing")',
    "}",
    "",
  ].join("\n");
  // A file of the package ending in a declaration with a type (`var limit int`): the AST gate parses it as the file is, newline-terminated.
  const VARS = "package util\n\nvar limit int\n";
  const go = indexedProject({ "go.mod": GO_MOD, "util/util.go": UTIL, "util/more.go": MORE, "util/vars.go": VARS, "cmd/main.go": MAIN });

  it("renames a function in its file, the package's other files and every package-qualified use; the project builds", async () => {
    const r = await intent(go, "MakeThing", "BuildThing");
    expect(r.data.success).toBe(true);
    expect(read(go, "util/util.go")).toBe(UTIL.replace("func MakeThing", "func BuildThing").replace("return MakeThing(", "return BuildThing("));
    expect(read(go, "util/more.go")).toBe(MORE.replaceAll("MakeThing(n)", "BuildThing(n)"));
    expect(read(go, "cmd/main.go")).toBe(MAIN.replace("u.MakeThing(1)", "u.BuildThing(1)"));
    expect(read(go, "util/vars.go")).toBe(VARS);
    // The doc comment names it: listed for review, never edited.
    expect(r.data.plan.review.map((x: { line: number; context: string }) => [x.line, x.context])).toEqual([[3, "// MakeThing builds a thing."]]);
    const built = compiles(go.project.root, "go", ["build", "./..."]);
    if (built !== null) expect(built.ok, built.output).toBe(true);
  });

  it("renames a type in qualified type positions (`u.Thing`) and composite literals", async () => {
    const r = await intent(go, "Thing", "Item");
    expect(r.data.success).toBe(true);
    // The function renamed by the test before is BuildThing now; every `Thing` that names the type is Item, the function's name keeps its letters.
    const renamed = (text: string) => text.replace(/\bMakeThing\(/g, "BuildThing(").replace(/\bThing\b/g, "Item");
    expect(read(go, "util/more.go")).toBe(renamed(MORE));
    expect(read(go, "cmd/main.go")).toBe(renamed(MAIN));
    expect(read(go, "util/util.go")).toBe(renamed(UTIL));
    const built = compiles(go.project.root, "go", ["build", "./..."]);
    if (built !== null) expect(built.ok, built.output).toBe(true);
  });

  it("refuses a new name that would unexport it (INVALID_ARGUMENT), writing nothing", async () => {
    const before = read(go, "util/more.go");
    const r = await intent(go, "Twice", "twice").catch((e: { code: string; message: string }) => e);
    expect(r.code).toBe("INVALID_ARGUMENT");
    expect(r.message).toBe("'Twice' is exported by its spelling and 'twice' would make it unexported: the rename keeps what other packages can use");
    expect(read(go, "util/more.go")).toBe(before);
  });
});

describe("Rust", () => {
  const CARGO = '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n';
  const LIB = ["pub mod util;", "pub mod app;", "", "pub use util::make_thing;", "pub use util::core::Thing;", ""].join("\n");
  const MOD = ["pub mod core;", "pub use self::core::make_thing;", ""].join("\n");
  const CORE = [
    "/// Builds a thing.",
    "pub fn make_thing(n: usize) -> Thing {",
    "    Thing { n }",
    "}",
    "",
    "pub struct Thing {",
    "    pub n: usize,",
    "}",
    "",
    "impl Thing {",
    "    pub fn run(&self) -> usize {",
    "        make_thing(self.n).n",
    "    }",
    "}",
    "",
  ].join("\n");
  const APP = [
    "use crate::util;",
    "use crate::util::core::{self as c, make_thing as mk};",
    "use crate::make_thing;",
    "use crate::Thing;",
    "",
    "pub fn main_like() -> usize {",
    "    let a: Thing = make_thing(1);",
    "    let b = mk(2);",
    "    let d = util::make_thing(3);",
    "    let e = c::make_thing(4);",
    "    let f = crate::util::core::make_thing(5);",
    "    let g: util::core::Thing = Thing::run(&a).into_thing();",
    "    a.n + b.n + d.n + e.n + f.n + g.n",
    "}",
    "",
    "trait IntoThing { fn into_thing(self) -> Thing; }",
    "impl IntoThing for usize { fn into_thing(self) -> Thing { crate::util::core::make_thing(self) } }",
    "",
  ].join("\n");
  const rs = indexedProject({ "Cargo.toml": CARGO, "src/lib.rs": LIB, "src/util/mod.rs": MOD, "src/util/core.rs": CORE, "src/app.rs": APP });

  it("renames a function through `use` paths, `{self as c}`, `pub use` and `pub mod` chains and `crate::` paths; the crate checks", async () => {
    const r = await intent(rs, "make_thing", "build_thing");
    expect(r.data.success).toBe(true);
    expect(r.data.plan.unresolved).toEqual([]);
    for (const [file, text] of [
      ["src/lib.rs", LIB],
      ["src/util/mod.rs", MOD],
      ["src/util/core.rs", CORE],
      ["src/app.rs", APP],
    ] as const) {
      expect(read(rs, file), file).toBe(text.replaceAll("make_thing", "build_thing"));
    }
    const checked = compiles(rs.project.root, "cargo", ["check", "--offline", "-q"]);
    if (checked !== null) expect(checked.ok, checked.output).toBe(true);
  });

  it("renames a struct in type paths through modules (`util::core::Thing`), literals, impls and `Thing::run`", async () => {
    const r = await intent(rs, "Thing", "Item");
    expect(r.data.success).toBe(true);
    expect(read(rs, "src/app.rs")).toBe(APP.replaceAll("make_thing", "build_thing").replaceAll("Thing", "Item").replaceAll("IntoItem", "IntoThing"));
    expect(read(rs, "src/util/core.rs")).toBe(CORE.replaceAll("make_thing", "build_thing").replace(/\bThing\b/g, "Item"));
    const checked = compiles(rs.project.root, "cargo", ["check", "--offline", "-q"]);
    if (checked !== null) expect(checked.ok, checked.output).toBe(true);
  });
});

// Cases the per-language intent bench (bench/intent-rename.mjs --language …) found on click, httpx, walkdir and regex-syntax.
describe("bench regressions", () => {
  const pyStar = indexedProject({
    "pkg/__init__.py": "",
    "pkg/star.py": '__all__ = ["make"]\n\n\ndef make():\n    return 1\n',
    "pkg2/__init__.py": 'from pkg.star import *\n\n__all__ = ["make"]\n',
  });
  it("Python: a package passing the name on by a star import has its `__all__` renamed too", async () => {
    const r = await intent(pyStar, "make", "make_renamed");
    expect(r.data.success).toBe(true);
    expect(read(pyStar, "pkg2/__init__.py")).toBe('from pkg.star import *\n\n__all__ = ["make_renamed"]\n');
    expect(read(pyStar, "pkg/star.py")).toBe('__all__ = ["make_renamed"]\n\n\ndef make_renamed():\n    return 1\n');
  });

  const pyAlias = indexedProject({
    "pkg/core.py": "def make():\n    return 1\n",
    "pkg/__init__.py": "from .core import make as make\n",
    "app.py": "from pkg import make\n\nprint(make())\n",
    "late.py": "def run():\n    from pkg.core import make\n\n    return make()\n",
  });
  it("Python: an import inside a function (no import row) is a gap that refuses the plan, writing nothing; with yes, `from .m import x as x` renames both names", async () => {
    const refused = await intent(pyAlias, "make", "make_renamed", { file: "pkg/core.py" }).catch(
      (e: { code: string; details: { plan: { unresolved: Array<{ file: string; operation: string }> } } }) => e,
    );
    expect(refused.code).toBe("UNSUPPORTED_OPERATION");
    expect(refused.details.plan.unresolved.map((u) => [u.file.slice(pyAlias.project.root.length + 1), u.operation])).toEqual([["late.py", "rename-import"]]);
    expect(read(pyAlias, "pkg/__init__.py")).toBe("from .core import make as make\n");
    const yes = await intent(pyAlias, "make", "make_renamed", { file: "pkg/core.py", yes: true });
    expect(yes.data.success).toBe(true);
    expect(read(pyAlias, "pkg/__init__.py")).toBe("from .core import make_renamed as make_renamed\n");
    expect(read(pyAlias, "app.py")).toBe("from pkg import make_renamed\n\nprint(make_renamed())\n");
  });

  const rust = indexedProject({
    "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2018"\n',
    "src/lib.rs": "pub mod m;\nmod dent;\npub mod user;\n\npub use crate::dent::Entry;\n\npub fn first(v: &[Entry]) -> Option<&Entry> {\n    v.first()\n}\n",
    "src/dent.rs": "pub struct Entry;\n",
    "src/m.rs": "pub struct Thing;\n\n#[cfg(test)]\nmod tests {\n    use super::Thing;\n\n    #[test]\n    fn t() {\n        let _x = Thing;\n    }\n}\n",
    "src/user.rs": "use crate::m;\n\npub fn c() -> usize {\n    std::mem::size_of::<m::Thing>() + vec![m::Thing].len()\n}\n",
  });
  it("Rust: `pub use` binds the name in its module (its own uses follow); `use super::X` in an inline test module is the declaration file's", async () => {
    const r = await intent(rust, "Entry", "Entry_renamed");
    expect(r.data.success).toBe(true);
    expect(read(rust, "src/lib.rs")).toBe(
      "pub mod m;\nmod dent;\npub mod user;\n\npub use crate::dent::Entry_renamed;\n\npub fn first(v: &[Entry_renamed]) -> Option<&Entry_renamed> {\n    v.first()\n}\n",
    );
    const checked = compiles(rust.project.root, "cargo", ["check", "--offline", "-q"]);
    if (checked !== null) expect(checked.ok, checked.output).toBe(true);
  });
  it("Rust: a path inside a macro's tokens (`vec![m::Thing]`) is a gap, not left silently; `use super::Thing` in the declaring file's test module is renamed with it", async () => {
    const refused = await intent(rust, "Thing", "Thing_renamed").catch((e: { code: string; message: string }) => e);
    expect(refused.code).toBe("UNSUPPORTED_OPERATION");
    expect(refused.message).toMatch(/^a step failed \(1 use\(s\) of 'Thing' in .*src\/user\.rs could not be resolved \(lines 4\)/);
    expect(read(rust, "src/m.rs")).toContain("pub struct Thing;");
    const yes = await intent(rust, "Thing", "Thing_renamed", { yes: true });
    expect(yes.data.success).toBe(true);
    expect(read(rust, "src/m.rs")).toBe(
      "pub struct Thing_renamed;\n\n#[cfg(test)]\nmod tests {\n    use super::Thing_renamed;\n\n    #[test]\n    fn t() {\n        let _x = Thing_renamed;\n    }\n}\n",
    );
    expect(read(rust, "src/user.rs")).toBe("use crate::m;\n\npub fn c() -> usize {\n    std::mem::size_of::<m::Thing_renamed>() + vec![m::Thing].len()\n}\n");
  });
});

describe("Rust: an enum variant named like the type it wraps", () => {
  const lib = "pub struct Entry;\n\npub enum Kind {\n    Entry(Entry),\n}\n\npub fn is_entry(k: &Kind) -> bool {\n    match k {\n        Kind::Entry(_) => true,\n    }\n}\n";
  const p = indexedProject({ "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2018"\n', "src/lib.rs": lib });
  it("keeps the variant's name: only the payload type is renamed", async () => {
    const r = await intent(p, "Entry", "Entry_renamed", { file: "src/lib.rs" });
    expect(r.data.success).toBe(true);
    expect(read(p, "src/lib.rs")).toBe(lib.replace("pub struct Entry;", "pub struct Entry_renamed;").replace("Entry(Entry),", "Entry(Entry_renamed),"));
  });
});
