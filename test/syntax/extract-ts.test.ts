// Golden-file and value tests for the TS/JS extractor (spec §10.1, §10.2, §6.1): every chunk type
// and export form, class shells and method chunks, imports, comments, the split rule, context
// lines, stability hashes, and hostile input (minified bundles, deep nesting, parse timeouts).
import { describe, expect, it } from "vitest";
import { checkExtraction } from "../helpers/extraction.js";

describe("extractFile golden dumps", () => {
  const fixtures = [
    "functions.ts",
    "class-shell.ts",
    "class-abstract.ts",
    "class-exportedness.ts",
    "overloads.ts",
    "interface-type.ts",
    "enum-namespace-const.ts",
    "export-wrapped.ts",
    "handler.ts",
    "widget.ts",
    "settings.ts",
    "default-identifier.ts",
    "default-named.ts",
    "export-local-aliases.ts",
    "re-exports.ts",
    "imports.ts",
    "top-level-blocks.ts",
    "comments.ts",
    "crlf.ts",
    "syntax-errors.ts",
    "component.tsx",
    "class-fields.js",
    "esm-module.mjs",
    "commonjs.cjs",
    "module-ts.mts",
    "commonjs-ts.cts",
  ];
  it.each(fixtures)("%s", (fixture) => {
    checkExtraction(fixture);
  });
  it("split-long-function.ts", () => {
    checkExtraction("split-long-function.ts");
  });
  it("split-long-header.ts", () => {
    checkExtraction("split-long-header.ts", { chunkSplitThreshold: 20 });
  });
  it("context-lines.ts", () => {
    checkExtraction("context-lines.ts", { contextLines: 0 }, "context0");
    checkExtraction("context-lines.ts", { contextLines: 3 }, "context3");
  });
});
