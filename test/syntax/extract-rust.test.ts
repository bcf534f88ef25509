// Rust extraction rules asserted directly: a symbol spans its item (attributes above it are its
// chunk's, not its end), and a built-in type name the crate defines is the crate's type.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { extractOk } from "../helpers/extraction.js";

const source = (...lines: string[]): string => [...lines, ""].join("\n");

describe("rust extraction", () => {
  it("gives an attributed item its own line and its last line (never an end before its start)", () => {
    const x = extractOk(
      "src/lib.rs",
      source("#[derive(Debug)]", "pub struct A {", "    x: u8,", "}", "", "#[cfg(test)]", "mod tests {", "    #[test]", "    #[ignore]", "    fn x() {", "        assert!(true);", "    }", "}"),
    );
    expect(x.symbols.map((s) => [s.name, s.line, s.endLine])).toEqual([
      ["A", 2, 4],
      ["tests", 7, 13],
      ["tests.x", 10, 12],
    ]);
    expect(x.chunks.find((c) => c.symbolName === "tests.x")?.startLine).toBe(8);
  });

  it("never ends a symbol before its start line in the resolver fixture crate", () => {
    const dir = join(import.meta.dirname, "../fixtures/carets/rust-resolver/src");
    const backwards = readdirSync(dir).flatMap((f) =>
      extractOk(`src/${f}`, readFileSync(join(dir, f), "utf8"))
        .symbols.filter((s) => s.endLine < s.line)
        .map((s) => `${f}:${s.name}`),
    );
    expect(backwards).toEqual([]);
  });

  it("reads a built-in type name the file declares or brings in from the crate as the crate's type", () => {
    const declared = extractOk("src/error.rs", source("pub struct Error { depth: usize }", "", "impl Error {", "    pub fn depth(&self) -> usize { self.depth }", "}"));
    expect(declared.symbols.map((s) => s.name)).toEqual(["Error", "Error.depth"]);
    const imported = extractOk("src/a.rs", source("use crate::error::Error;", "", "fn f(e: &Error) -> usize { e.depth() }"));
    expect(imported.calls.map((c) => [c.callee, c.receiver])).toEqual([["depth", { kind: "typed", typeName: "Error", resolution: "parameter_type" }]]);
    const std = extractOk("src/b.rs", source("use std::error::Error;", "", "fn f(e: &dyn Error) { e.source(); }"));
    expect(std.calls).toEqual([]);
  });

  it("reads a call through a crate's path with no `use` as that path's own import; std, primitives and bound names are not", () => {
    const x = extractOk(
      "src/prefilter.rs",
      source(
        "use std::fmt;",
        "mod util;",
        "fn find(h: &[u8]) -> Option<usize> {",
        "    let n = u8::from(true);",
        "    std::mem::drop(n);",
        "    util::helper();",
        "    assert_eq!(memchr::memchr2(b'a', b'b', h), None);",
        '    let _ = ::memchr::memmem::find(h, b"ab");',
        "    memchr::memchr(b'a', h).or(memchr::memchr(b'b', h))",
        "}",
      ),
    );
    expect(x.imports.filter((i) => i.module !== "std" && i.module !== "self::util").map((i) => [i.module, i.names, i.locals, i.line])).toEqual([
      ["memchr", ["*"], ["::memchr"], 7],
      ["memchr::memmem", ["*"], ["::memchr::memmem"], 8],
    ]);
    expect(x.calls.map((c) => [c.line, c.receiver.kind === "namespace" ? `${c.receiver.local}::${c.callee}` : c.callee])).toEqual([
      [6, "util::helper"],
      [7, "::memchr::memchr2"],
      [8, "::memchr::memmem::find"],
      [9, "or"],
      [9, "::memchr::memchr"],
      [9, "::memchr::memchr"],
    ]);
  });

  it("never reads a path through a name the file binds as a crate's: an inline module, a function's own `use`, a macro's variable", () => {
    const x = extractOk(
      "src/lib.rs",
      source(
        "use memchr::memmem;",
        "mod helpers {",
        "    pub fn f() {}",
        "}",
        "fn g(name: u8) {",
        "    use std::io;",
        "    helpers::f();",
        "    io::stdout();",
        "    quote! { #name::new() };",
        '    memmem::find(b"a", b"a");',
        "    memchr::memchr(b'a', b\"a\");",
        "}",
      ),
    );
    // `memmem` is bound by the `use`; `memchr` only names the crate the `use` reads from.
    expect(x.imports.filter((i) => i.locals.some((l) => l.startsWith("::"))).map((i) => [i.module, i.locals])).toEqual([["memchr", ["::memchr"]]]);
    expect(x.calls.filter((c) => c.receiver.kind === "namespace").map((c) => [c.line, c.receiver.kind === "namespace" ? c.receiver.local : "", c.callee])).toEqual([
      [10, "memmem", "find"],
      [11, "::memchr", "memchr"],
    ]);
  });
});
