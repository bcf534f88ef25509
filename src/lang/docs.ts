// docs/languages.md, derived from the registered LanguageSpecs: each language's extensions
// (those indexed by default marked), grammars, and what its verified callers are proven by and
// what stays a potential match. A test fails when the committed file drifts from this.
import { LANGUAGE_SPECS } from "./languages.js";

export function renderLanguagesDoc(): string {
  const out = [
    "# Languages",
    "",
    "Generated from the language specs (`src/lang/`) by `npm run docs:languages`; do not edit by hand.",
    "Every read tool answers for every language below; what differs is what the call graph can prove.",
    "",
  ];
  for (const spec of LANGUAGE_SPECS) {
    const extensions = Object.keys(spec.extensions).map((e) => (spec.indexedByDefault.includes(e) ? `\`${e}\`` : `\`${e}\` (not by default)`));
    const grammars = Object.keys(spec.grammars);
    out.push(`## ${spec.name}`, "", `Extensions: ${extensions.join(", ")}. ${grammars.length > 0 ? `Grammars: ${grammars.map((g) => `\`${g}\``).join(", ")}.` : "No grammar: line-scanned."}`, "");
    if (spec.outline) out.push(`Read at breadth from its query files: ${spec.outline.query.files.map((f) => `\`${f}\``).join(", ")}.`, "");
    if (spec.callGraph.verified.length > 0) out.push("Verified callers (proven from the calling file's own evidence):", "", ...spec.callGraph.verified.map((r) => `- ${r}`), "");
    if (spec.callGraph.potentialOnly.length > 0) out.push(spec.callGraph.verified.length > 0 ? "Only potential matches:" : "Notes:", "", ...spec.callGraph.potentialOnly.map((r) => `- ${r}`), "");
  }
  out.push(...ADDING_A_LANGUAGE);
  return out.join("\n");
}

/** How a language is added at breadth: a spec entry and a query file (the test test/syntax/outline-language.test.ts does it from fixtures alone). */
const ADDING_A_LANGUAGE = [
  "## Adding a breadth language",
  "",
  'A language read at breadth is a `LanguageSpec` (`src/lang/<language>.ts`, registered in `src/lang/languages.ts`) with `extractor: "outline"` and an `outline` entry, plus a query file `src/lang/queries/<language>.scm` — no extractor code. Steps:',
  "",
  "1. Add the grammar package (an exact version in `package.json`, `allowScripts` if it builds) and load it in the spec's `grammars` (the spec is its only importer).",
  "2. Start the query file from the grammar's own `queries/tags.scm` and rename its captures to the ones below; `npm run build` copies it next to the bundle.",
  "3. Fill the spec's hooks where a query cannot say it: `exported` (always), `sections` (access sections in a class body), `bases` (a base list that does not say which base is the class), `selfReceivers`, `implicitMembers`, `scopes`, and `normalize`/`preprocessor` for C-family sources.",
  "4. Add a caret fixture project under `test/fixtures/carets/<language>/` and a corpus to `bench/breadth-accuracy.mjs`; run `npm run docs:languages`.",
  "",
  "Captures the extractor (`src/syntax/outline.ts`) reads:",
  "",
  "- `@definition.<kind>` on a declaration — kinds `function`, `method`, `constructor`, `operator`, `prototype` (a declaration without its body: a definition elsewhere answers for it), `macro`, `macro_function`, `class`, `struct`, `module`, `trait`, `record`, `interface`, `annotation`, `enum`, `type` — with `@name` (a `::`-qualified name names its owner), `@owner` (`def Owner.m`), `@body` (the signature is the text before it; calls inside are the definition's), `@members` (definitions inside are `Owner.member`; the class chunk is an outline of the body), `@parameters`, `@returns`, `@extends`, `@implements`, `@bases`. Definitions nest by position: inside `@members` a member, inside `@body` a nested definition (`outer.inner`), elsewhere in the node a symbol sharing its chunk (the struct a typedef names).",
  "- `@parameter` on one parameter inside a definition's `@parameters`, with `@parameter.name`, `@parameter.type` (the type is the text from it to the name), `@parameter.optional`, `@parameter.variadic`.",
  "- `@reference.call` (with `@name` and `@receiver` or `@receiver.type`) and `@reference.new` (with `@name`): call sites. A receiver in `selfReceivers` is a `this` call, a capitalised name (or any `@receiver.type`) a static call on that type, any other receiver potential only.",
  "- `@scope`: a node whose code has another `this` (an anonymous class).",
  "- `@mixin` with `@implements`: a statement in a class body that mixes a module in (`include M`).",
  "- `@import` with `@import.module` (or `@import.relative`: resolved from the importing file), `@import.name`, `@import.alias`, `@import.bind` (binds the module's last segment), `@import.glob` (every name the target declares).",
  "",
];
