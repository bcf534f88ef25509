// mast_project_skeleton over a small project in five languages: a Java class's public members beside
// it (constructor, overloads once, a nested class's own), a C file's macros and functions in source
// order, files declaring nothing public listed by path, a Go method filed under its type from
// another file, product files before test files and `Src/Foo/` before `Src/Foo.Bson/` — and what
// the cut takes first, and how many bytes the answer is.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wireBytes } from "../../src/base/budget.js";
import { runIndex } from "../../src/index/run.js";
import { projectSkeleton, type SkeletonInput } from "../../src/query/navigation.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { makeProject, type TestProject } from "../helpers/project.js";

const FILES: Record<string, string> = {
  "src/main/java/com/acme/GsonBuilder.java": [
    "package com.acme;",
    "",
    "/** Builds a Gson. */",
    "public final class GsonBuilder {",
    "  private boolean pretty;",
    "",
    "  public enum Style {",
    "    COMPACT;",
    "    public boolean indents() { return false; }",
    "  }",
    "",
    "  public GsonBuilder() {}",
    "",
    "  public GsonBuilder setPrettyPrinting() {",
    "    pretty = true;",
    "    return this;",
    "  }",
    "",
    "  public GsonBuilder setPrettyPrinting(boolean on) {",
    "    pretty = on;",
    "    return this;",
    "  }",
    "",
    "  private void reset() {}",
    "",
    "  public Gson create() {",
    "    return new Gson(pretty);",
    "  }",
    "",
    "  public static class Options {",
    "    public int indent() { return 2; }",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/main/java/com/acme/Gson.java": ["package com.acme;", "", "public class Gson {", "  Gson(boolean pretty) {}", '  public String toJson(Object o) { return ""; }', "}", ""].join("\n"),
  // A package-private class: nothing public to list, so its path alone.
  "src/main/java/com/acme/Internal.java": ["package com.acme;", "", "class Internal {", "  public void help() {}", "}", ""].join("\n"),
  "src/lib/buffer.c": [
    '#include "buffer.h"',
    "",
    "#define BUF_MIN 16",
    "",
    "int buf_init(struct buf *b) {",
    "  return grow(b, BUF_MIN);",
    "}",
    "",
    "static int grow(struct buf *b, int n) {",
    "  return n;",
    "}",
    "",
    "#define BUF_MAX 4096",
    "",
    "void buf_free(struct buf *b) {}",
    "",
  ].join("\n"),
  "Src/Acme.Json/JsonReader.cs": ["namespace Acme.Json;", "", "public class JsonReader {", "  public JsonReader(string text) {}", "  public bool Read() { return false; }", "}", ""].join("\n"),
  "Src/Acme.Json.Bson/BsonReader.cs": ["namespace Acme.Json.Bson;", "", "public class BsonReader {", "  public bool Read() { return false; }", "}", ""].join("\n"),
  "Src/Acme.Json.Tests/JsonReaderTests.cs": ["namespace Acme.Json.Tests;", "", "public class JsonReaderTests {", "  public void ReadsEmpty() {}", "}", ""].join("\n"),
  "src/web/app.ts": [
    "export class App {",
    "  constructor(private port: number) {}",
    "  start(): void {}",
    "  private stop(): void {}",
    "  get url(): string { return ''; }",
    "}",
    "",
    "export function serve(app: App): void {}",
    "",
  ].join("\n"),
  "srv/server.go": ["package srv", "", "type Server struct{}", "", "func New() *Server { return &Server{} }", ""].join("\n"),
  "srv/start.go": ["package srv", "", "func (s *Server) Start() error { return nil }", "", "func (s *Server) stop() {}", ""].join("\n"),
  // Test files (base/paths.ts isTestPath): `__tests__/` sorts before `lib/`, `src/test/` after `src/main/`; and the .NET test project above.
  "src/__tests__/buffer_test.c": ['#include "buffer.h"', "", "int test_init(void) { return 0; }", ""].join("\n"),
  "src/test/java/com/acme/GsonBuilderTest.java": ["package com.acme;", "", "public class GsonBuilderTest {", "  public void prettyPrinting() {}", "  public void create() {}", "}", ""].join("\n"),
  "README.md": "# Acme\n\nNothing to export.\n",
};

/** The whole answer: product files in tree order, then the three test files. */
const WHOLE = [
  { file_path: "README.md" },
  // `Src/Acme.Json/` before `Src/Acme.Json.Bson/` (plain string order puts "." before "/").
  { file_path: "Src/Acme.Json/JsonReader.cs", exports: ["JsonReader"], members: { JsonReader: ["JsonReader", "Read"] } },
  { file_path: "Src/Acme.Json.Bson/BsonReader.cs", exports: ["BsonReader"], members: { BsonReader: ["Read"] } },
  // Macros and functions in source order; the static function is not listed.
  { file_path: "src/lib/buffer.c", exports: ["buf_init", "buf_free"] },
  { file_path: "src/main/java/com/acme/Gson.java", exports: ["Gson"], members: { Gson: ["toJson"] } },
  {
    file_path: "src/main/java/com/acme/GsonBuilder.java",
    exports: ["GsonBuilder", "GsonBuilder.Style", "GsonBuilder.Options"],
    // Types in declaration order, though the nested enum's member comes first in the file.
    members: { GsonBuilder: ["GsonBuilder", "setPrettyPrinting", "create"], "GsonBuilder.Style": ["indents"], "GsonBuilder.Options": ["indent"] },
  },
  { file_path: "src/main/java/com/acme/Internal.java" },
  { file_path: "src/web/app.ts", exports: ["App", "serve"], members: { App: ["constructor", "start", "url"] } },
  { file_path: "srv/server.go", exports: ["Server", "New"] },
  // A method of a type declared in another file of the package, under the type's name.
  { file_path: "srv/start.go", members: { Server: ["Start"] } },
  // A test file's members are its test cases: counted, not listed.
  { file_path: "Src/Acme.Json.Tests/JsonReaderTests.cs", exports: ["JsonReaderTests"], members_truncated: 1 },
  { file_path: "src/__tests__/buffer_test.c", exports: ["test_init"] },
  { file_path: "src/test/java/com/acme/GsonBuilderTest.java", exports: ["GsonBuilderTest"], members_truncated: 2 },
];

let project: TestProject;
let ctx: ToolContext;
const call = async (args: Record<string, unknown>) => {
  const { _stats, ...answer } = (await callTool(ctx, "mast_project_skeleton", args)) as Record<string, unknown>;
  return answer;
};
const skeleton = (input: Partial<SkeletonInput>, maxBytes?: number) => ctx.store().snapshot((db) => projectSkeleton(db, { limit: 500, max_exports: 20, max_members: 20, ...input }, maxBytes));

beforeAll(async () => {
  project = makeProject(FILES);
  await runIndex(project.config(), { mode: "full" });
  ctx = createToolContext(project.config());
});
afterAll(() => {
  ctx.close();
  project.cleanup();
});

describe("mast_project_skeleton across languages", () => {
  it("lists every file, exports and public members in source order, products before tests", async () => {
    // As text, so the order of the keys (a file's types, in source order) counts too.
    expect(JSON.stringify(await call({}))).toBe(JSON.stringify({ files: WHOLE }));
  });

  it("cuts members per file to max_members, overloads once, and counts the rest", async () => {
    const r = await call({ file_pattern: "src/main/**", max_members: 1 });
    expect(r).toEqual({
      files: [
        { file_path: "src/main/java/com/acme/Gson.java", exports: ["Gson"], members: { Gson: ["toJson"] } },
        // The first member in the file is the nested enum's; the constructor, setPrettyPrinting (two overloads), create and Options.indent are left out.
        {
          file_path: "src/main/java/com/acme/GsonBuilder.java",
          exports: ["GsonBuilder", "GsonBuilder.Style", "GsonBuilder.Options"],
          members: { "GsonBuilder.Style": ["indents"] },
          members_truncated: 4,
        },
        { file_path: "src/main/java/com/acme/Internal.java" },
      ],
    });
    expect(await call({ file_pattern: "src/main/**/GsonBuilder.java", max_exports: 0, max_members: 0 })).toEqual({
      files: [{ file_path: "src/main/java/com/acme/GsonBuilder.java", exports_truncated: 3, members_truncated: 5 }],
    });
  });

  it("leaves test files out first when the limit cuts, and says how many of the files left out are tests", async () => {
    expect(await call({ limit: 10 })).toEqual({ files: WHOLE.slice(0, 10), files_truncated: 3, test_files_truncated: 3 });
    expect(await call({ limit: 9 })).toEqual({ files: WHOLE.slice(0, 9), files_truncated: 4, test_files_truncated: 3 });
    // Scoped to one directory, its test file still comes after its product files.
    expect(await call({ directory: "src", max_depth: 1 })).toEqual({ files: [WHOLE[3], WHOLE[7], WHOLE[11]] });
  });

  it("leaves test files out first when the byte budget cuts", () => {
    // A budget (message bytes, base/budget.ts fitList) that holds the ten product files and not the first test file.
    const products = 4 + WHOLE.slice(0, 10).reduce((n, f) => n + wireBytes(f), 0);
    expect(skeleton({}, products)).toEqual({ files: WHOLE.slice(0, 10), files_truncated: 3, test_files_truncated: 3 });
    expect(skeleton({}, products - 1)).toEqual({ files: WHOLE.slice(0, 9), files_truncated: 4, test_files_truncated: 3 });
  });

  it("answers this project in 1,248 bytes of JSON", async () => {
    expect(Buffer.byteLength(JSON.stringify(await call({})))).toBe(1248);
  });

  it("gives a class of 200 public methods an entry of 330 bytes: 20 members and a count", async () => {
    const methods = Array.from({ length: 200 }, (_, i) => `  public void method${String(i).padStart(3, "0")}() {}`);
    const big = makeProject({ "src/Big.java": ["package com.acme;", "", "public class Big {", ...methods, "}", ""].join("\n") });
    try {
      await runIndex(big.config(), { mode: "full" });
      const bigCtx = createToolContext(big.config());
      try {
        const { files } = (await callTool(bigCtx, "mast_project_skeleton", {})) as { files: unknown[] };
        expect(files).toEqual([{ file_path: "src/Big.java", exports: ["Big"], members: { Big: Array.from({ length: 20 }, (_, i) => `method${String(i).padStart(3, "0")}`) }, members_truncated: 180 }]);
        expect(Buffer.byteLength(JSON.stringify(files[0]))).toBe(330);
      } finally {
        bigCtx.close();
      }
    } finally {
      big.cleanup();
    }
  });
});
