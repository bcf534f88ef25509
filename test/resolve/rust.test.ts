// The Rust resolver's crate roots from each Cargo.toml (resolve/rust.ts), read as TOML: `[lib]`
// name and path, `[[bin]]`/`[[test]]`/`[[example]]`/`[[bench]]` paths, the package's name (dashes
// as underscores) — in the forms the old line scanner missed (literal strings, dotted keys, inline
// tables, comments) — and a manifest TOML cannot read leaving its crate the default roots.
import { describe, expect, it } from "vitest";
import { createRustResolver } from "../../src/resolve/rust.js";

/** A resolver over `files` with each directory's Cargo.toml from `manifests`. */
function resolver(files: readonly string[], manifests: Record<string, string>) {
  const dirs = new Set(Object.keys(manifests).map((m) => (m.includes("/") ? m.slice(0, m.lastIndexOf("/")) : "")));
  return createRustResolver(new Set(files), dirs, (rel) => manifests[rel] ?? null);
}

describe("the Rust resolver's Cargo.toml", () => {
  it("takes [lib] name and path, dotted keys and literal strings alike, and the package's name with dashes as underscores", () => {
    // A root's modules live beside it (a root file is no module directory).
    const files = ["core/src/engine.rs", "core/src/run.rs", "util/lib/root.rs", "util/lib/fmt.rs", "app/src/main.rs"];
    const resolve = resolver(files, {
      // Dotted keys and a literal string: the old scanner read `path = "..."` lines under a `[lib]` header only.
      "core/Cargo.toml": "package.name = 'core-engine' # the crate\nlib.path = 'src/engine.rs'\n",
      "util/Cargo.toml": '[package]\nname = "util"\n\n[lib]\n# renamed\nname = "helpers"\npath = """lib/root.rs"""\n',
      "app/Cargo.toml": '[package]\nname = "app"\n',
    });
    expect(resolve("app/src/main.rs", "core_engine::run")).toBe("core/src/run.rs");
    expect(resolve("app/src/main.rs", "helpers::fmt")).toBe("util/lib/fmt.rs");
    expect(resolve("app/src/main.rs", "util::fmt")).toBeNull();
    expect(resolve("util/lib/fmt.rs", "crate::fmt")).toBe("util/lib/fmt.rs");
  });

  it("makes each [[bin]], [[test]], [[example]] and [[bench]] path a root of its own, inline tables too", () => {
    const files = ["t/src/lib.rs", "t/tools/cli.rs", "t/tools/args.rs", "t/checks/it.rs", "t/checks/setup.rs", "t/demo/show.rs", "t/demo/step.rs"];
    const resolve = resolver(files, {
      "t/Cargo.toml": '[package]\nname = "t"\n\n[[bin]]\nname = "cli"\npath = "tools/cli.rs"\n\n[[test]]\npath = "checks/it.rs"\n\nexample = [{ name = "show", path = "demo/show.rs" }]\n',
    });
    expect(resolve("t/tools/cli.rs", "crate::args")).toBe("t/tools/args.rs");
    expect(resolve("t/checks/it.rs", "crate::setup")).toBe("t/checks/setup.rs");
    // `example = [...]` after [[test]] is a key of that test table, not the package's examples: no root.
    expect(resolve("t/demo/show.rs", "crate::step")).toBeNull();
  });

  it("gives a crate whose Cargo.toml TOML cannot read its default roots (src/lib.rs unnamed, src/main.rs)", () => {
    const files = ["x/src/lib.rs", "x/src/a.rs", "x/src/main.rs", "x/src/m.rs"];
    const resolve = resolver(files, { "x/Cargo.toml": '[package\nname = "x"\n' });
    expect(resolve("x/src/a.rs", "crate::a")).toBe("x/src/a.rs");
    expect(resolve("x/src/main.rs", "crate::m")).toBe("x/src/m.rs");
    expect(resolve("x/src/main.rs", "x::a")).toBeNull();
  });
});
