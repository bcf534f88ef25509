// The extraction entry point: dispatches a file to the extractor its language's spec names.
// A pure function of (path, text, options); failures come back as data, never as throws.
import { errorMessage } from "../base/errors.js";
import { sha256 } from "../base/hash.js";
import { extensionInfo } from "../lang/languages.js";
import type { Extractor } from "../lang/spec.js";
import { extractGo } from "./go.js";
import { extractMarkdown } from "./markdown.js";
import { extractOutline } from "./outline.js";
import { extractPython } from "./python.js";
import { extractRust } from "./rust.js";
import { extractTypeScript } from "./typescript.js";
import type { ExtractOptions, ExtractResult, FileExtraction } from "./types.js";

export type { ExtractResult } from "./types.js";

type TreeExtract = (filePath: string, text: string, grammar: string, language: string, options: ExtractOptions) => ExtractResult;

/** The extractor of each parsed language family, by the name its spec gives. */
const TREE_EXTRACTORS: Readonly<Record<Exclude<Extractor, "markdown" | "outline">, TreeExtract>> = {
  ecmascript: extractTypeScript,
  python: extractPython,
  go: extractGo,
  rust: extractRust,
};

export function extractFile(filePath: string, text: string, options: ExtractOptions): ExtractResult {
  const info = extensionInfo(filePath);
  if (info === null) return { ok: false, error: `no extractor for ${filePath}` };
  try {
    if (info.spec.extractor === "markdown") return { ok: true, extraction: extractMarkdown(filePath, text, options) };
    if (info.grammar === null) return { ok: false, error: `no grammar for ${filePath}` };
    if (info.spec.extractor === "outline") {
      if (!info.spec.outline) return { ok: false, error: `no outline rules for ${info.language}` };
      return extractOutline(filePath, text, info.grammar, info.language, info.spec.outline, options);
    }
    return TREE_EXTRACTORS[info.spec.extractor](filePath, text, info.grammar, info.language, options);
  } catch (err) {
    // An extractor bug must not abort an indexing run: the file becomes a counted parse error.
    return { ok: false, error: `extractor failed: ${errorMessage(err)}` };
  }
}

/** The extraction's identity: equal fingerprints mean byte-identical chunks, symbols and imports. */
export function extractionFingerprint(extraction: FileExtraction): string {
  return sha256(JSON.stringify(extraction));
}
