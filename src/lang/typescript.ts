// TypeScript: .ts, .mts, .cts and .tsx, parsed by tree-sitter-typescript (the only importer of it).
import { createRequire } from "node:module";
import { ECMASCRIPT_RULES } from "./ecmascript.js";
import type { LanguageSpec } from "./spec.js";
import { LANGUAGE_FILES } from "./files.js";

const require = createRequire(import.meta.url);

export const TYPESCRIPT: LanguageSpec = {
  name: "typescript",
  ...LANGUAGE_FILES.typescript,
  grammars: {
    typescript: () => (require("tree-sitter-typescript") as { typescript: unknown }).typescript,
    tsx: () => (require("tree-sitter-typescript") as { tsx: unknown }).tsx,
  },
  ...ECMASCRIPT_RULES,
  callGraph: {
    verified: [
      ...ECMASCRIPT_RULES.callGraph.verified,
      "`x.m()` where `x` is an annotated parameter or an annotated field (a constructor parameter property too)",
      "calls on a receiver typed by an interface, to the interface's member (also where a value shares the interface's name, as dependency-injection tokens do), and by `T | undefined` or `T | null` as by `T`",
      "`N.f()` of a function a namespace exports (also when the namespace merges with an interface or class of its name)",
    ],
    potentialOnly: [...ECMASCRIPT_RULES.callGraph.potentialOnly, "receivers typed by a generic type parameter"],
  },
};
