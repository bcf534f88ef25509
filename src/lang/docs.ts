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
    if (spec.callGraph.verified.length > 0) out.push("Verified callers (proven from the calling file's own evidence):", "", ...spec.callGraph.verified.map((r) => `- ${r}`), "");
    if (spec.callGraph.potentialOnly.length > 0) out.push(spec.callGraph.verified.length > 0 ? "Only potential matches:" : "Notes:", "", ...spec.callGraph.potentialOnly.map((r) => `- ${r}`), "");
  }
  return out.join("\n");
}
