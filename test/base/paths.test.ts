// Tree order of project paths (base/paths.ts comparePaths): component by component, so a
// directory's files never fall behind a sibling directory whose name extends its own; and which
// paths are test files (isTestPath).
import { describe, expect, it } from "vitest";
import { comparePaths, isTestPath } from "../../src/base/paths.js";

describe("comparePaths", () => {
  it("orders by path components, not by the string", () => {
    const paths = ["Src/Foo.Tests/A.cs", "Src/Foo/Z.cs", "Src/Foo/Bar/B.cs", "Src/Foo-Bench/C.cs", "Src/Foo.cs", "README.md", "Src/Foo/A.cs"];
    expect([...paths].sort(comparePaths)).toEqual(["README.md", "Src/Foo/A.cs", "Src/Foo/Bar/B.cs", "Src/Foo/Z.cs", "Src/Foo-Bench/C.cs", "Src/Foo.Tests/A.cs", "Src/Foo.cs"]);
    // Plain string order, for contrast: "." and "-" sort before "/".
    expect([...paths].sort()).toEqual(["README.md", "Src/Foo-Bench/C.cs", "Src/Foo.Tests/A.cs", "Src/Foo.cs", "Src/Foo/A.cs", "Src/Foo/Bar/B.cs", "Src/Foo/Z.cs"]);
  });
  it("is zero only for equal paths, and antisymmetric", () => {
    expect(comparePaths("a/b", "a/b")).toBe(0);
    expect(Math.sign(comparePaths("a/b", "a.b"))).toBe(-1);
    expect(Math.sign(comparePaths("a.b", "a/b"))).toBe(1);
    expect(Math.sign(comparePaths("a", "a/b"))).toBe(-1);
  });
});

describe("isTestPath", () => {
  it("knows test files by name, test directories, and .NET test projects' directories", () => {
    const tests = [
      "src/a.test.ts",
      "pkg/a_test.go",
      "tests/test_a.py",
      "src/test/java/com/acme/GsonBuilderTest.java",
      "Src/Newtonsoft.Json.Tests/JsonReaderTests.cs",
      "test/Serilog.Tests/Core/LoggerTests.cs",
      "Foo.UnitTests/A.cs",
      "Foo.Test/A.cs",
    ];
    const products = ["src/a.ts", "Src/Newtonsoft.Json/JsonReader.cs", "Src/Newtonsoft.Json.TestConsole/Program.cs", "src/latest/a.ts", "lib/contest/a.c", "Src/Foo.Tests.cs", ".Tests/a.cs"];
    expect(tests.filter((p) => !isTestPath(p))).toEqual([]);
    expect(products.filter(isTestPath)).toEqual([]);
  });
});
