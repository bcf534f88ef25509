// The breadth extractor's source views and dialects, on the shapes real C-family code takes:
// export macros blanked by shape, `#if` views, ERROR regions read from the view that finds the
// most definitions, and a `.h` header read as C or C++ by what it holds.
import { describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { blankMacros } from "../../src/lang/c-family.js";
import { conditionalViews } from "../../src/lang/outline.js";
import { extractFile } from "../../src/syntax/extract.js";
import { makeProject } from "../helpers/project.js";

const OPTIONS = { parseTimeoutMs: 5000, chunkSplitThreshold: 120, contextLines: 0, maxFileBytes: 1 << 20 };
const symbols = (path: string, text: string) => {
  const r = extractFile(path, text, OPTIONS);
  if (!r.ok) throw new Error(r.error);
  return { language: r.extraction.language, names: r.extraction.symbols.map((s) => `${s.line} ${s.kind} ${s.name}`) };
};

describe("macros blanked by shape", () => {
  it("blanks export, inline and linkage macros and keeps every offset", () => {
    const text = [
      "LUA_API int lua_gettop (lua_State *L) {",
      "template <typename T> FMT_CONSTEXPR void ignore(const T&) {}",
      "FMT_NORETURN FMT_API void assert_fail(const char* file,",
      "SPDLOG_INLINE spdlog::logger::logger(std::string name)",
      "class LEVELDB_EXPORT DB {",
      "FMT_BEGIN_NAMESPACE",
      "BOOL f(x);",
      "enum { A,",
      "  LAST",
      "};",
    ].join("\n");
    const cpp = blankMacros(text, true);
    expect(cpp.length).toBe(text.length);
    expect(cpp.split("\n")).toEqual([
      "        int lua_gettop (lua_State *L) {",
      "template <typename T>               void ignore(const T&) {}",
      `${" ".repeat("FMT_NORETURN FMT_API ".length)}void assert_fail(const char* file,`,
      "              spdlog::logger::logger(std::string name)",
      "class                DB {",
      "                   ",
      "BOOL f(x);",
      "enum { A,",
      "  LAST",
      "};",
    ]);
    // In C a word before a bare name is its type.
    expect(blankMacros("    YY_BUFFER_STATE yy_create_buffer  (FILE * file)\n", false)).toBe("    YY_BUFFER_STATE yy_create_buffer  (FILE * file)\n");
  });
});

describe("preprocessor views", () => {
  it("blanks the directives (every branch) and the other branches (first branches), lines in place", () => {
    const text = "#ifdef X\nint f(int a) {\n#else\nint f(long a) {\n#endif\n  return 0;\n}\n";
    expect(conditionalViews(text)).toEqual([
      "        \nint f(int a) {\n     \nint f(long a) {\n      \n  return 0;\n}\n",
      "        \nint f(int a) {\n     \n               \n      \n  return 0;\n}\n",
    ]);
  });

  it("reads a region an #ifdef broke from the view that finds its definitions, and keeps #else definitions", () => {
    const text = [
      "jv jv_number(double x) {",
      "  jv j = {",
      "#ifdef USE_DECNUM",
      "    1,",
      "#else",
      "    2,",
      "#endif",
      "    0 };",
      "  return j;",
      "}",
      "",
      "#if !defined(lua_readline)",
      "#define lua_readline(b,p) readline(p)",
      "#else",
      "static char *lua_readline (char *buff, const char *prompt) {",
      "  return fgets(buff, 10, stdin);",
      "}",
      "#endif",
      "",
      "void after(void) { }",
    ].join("\n");
    expect(symbols("src/jv.c", text).names).toEqual(["1 function jv_number", "13 function lua_readline", "15 function lua_readline", "20 function after"]);
  });

  it("chunks a header whose last line is a stray #endif (an ERROR reaching past the last newline) at the file's own lines", () => {
    // leveldb's port/port_stdcxx.h: the region ran one line past the file and its chunking failed the file.
    for (const contextLines of [0, 3]) {
      const result = extractFile("port/port.h", "int a;\n#endif  // PORT_H_\n", { ...OPTIONS, contextLines });
      if (!result.ok) throw new Error(result.error);
      expect(result.extraction.chunks.map((c) => [c.chunkType, c.startLine, c.endLine, c.content])).toEqual([["block", 1, 2, "int a;\n#endif  // PORT_H_"]]);
    }
  });
});

describe("a .h header's dialect", () => {
  it("reads a header with no C++ in it as C, and one with a class, a namespace or `::` as C++", () => {
    expect(symbols("src/compile.h", '#ifdef __cplusplus\nextern "C" {\n#endif\n/* a class of blocks */\nint gen_noop(void);\n#ifdef __cplusplus\n}\n#endif\n')).toEqual({
      language: "c",
      names: ["5 function gen_noop"],
    });
    expect(symbols("include/db.h", "namespace leveldb {\nclass DB {\n public:\n  virtual ~DB();\n};\n}\n").language).toBe("cpp");
    expect(symbols("include/x.h", "int f(void) { return std::max(1, 2); }\n").language).toBe("cpp");
  });
});

describe("lines no reading parses", () => {
  // An initializer no reading parses (numbers without commas across two lines).
  const broken = ["int before(void) { return 0; }", "", "int table[] = {", "  1, 2,", "  3 4 5", "  6 7 8,", "};", "int after(void) { return 1; }", ""].join("\n");

  it("are counted with their lines, never silently lost", () => {
    const r = extractFile("src/builtin.c", broken, OPTIONS);
    if (!r.ok) throw new Error(r.error);
    expect(r.extraction.hasSyntaxErrors).toBe(true);
    expect(r.extraction.unparsedSpans).toEqual([[5, 6]]);
    expect(r.extraction.symbols.map((s) => s.name)).toEqual(["before", "after"]);
  });

  it("are reported by the index run as a syntax_error problem naming them", async () => {
    const p = makeProject({ "src/builtin.c": broken, "src/ok.c": "int ok(void) { return 0; }\n" });
    try {
      const report = await runIndex(p.config(), { mode: "full" });
      expect(report.files_with_syntax_errors).toBe(1);
      expect(report.problems).toEqual([{ path: "src/builtin.c", kind: "syntax_error", message: "lines 5-6 did not parse: declarations there may be missing" }]);
    } finally {
      p.cleanup();
    }
  });
});
