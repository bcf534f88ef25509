// The extraction entry point: dispatches a file to the extractor its language's spec names.
// A pure function of (path, text, options); failures come back as data, never as throws.
import { errorMessage } from "../base/errors.js";
import { sha256 } from "../base/hash.js";
import { extensionInfo } from "../lang/languages.js";
import { extractMarkdown } from "./markdown.js";
import { extractPython } from "./python.js";
import { extractTypeScript } from "./typescript.js";
import type { ExtractOptions, ExtractResult, FileExtraction } from "./types.js";

export type { ExtractResult } from "./types.js";

export function extractFile(filePath: string, text: string, options: ExtractOptions): ExtractResult {
  const info = extensionInfo(filePath);
  if (info === null) return { ok: false, error: `no extractor for ${filePath}` };
  try {
    switch (info.spec.extractor) {
      case "markdown":
        return { ok: true, extraction: extractMarkdown(filePath, text, options) };
      case "python":
        if (info.grammar === null) return { ok: false, error: `no grammar for ${filePath}` };
        return extractPython(filePath, text, info.grammar, info.language, options);
      case "ecmascript":
        if (info.grammar === null) return { ok: false, error: `no grammar for ${filePath}` };
        return extractTypeScript(filePath, text, info.grammar, info.language, options);
    }
  } catch (err) {
    // An extractor bug must not abort an indexing run: the file becomes a counted parse error.
    return { ok: false, error: `extractor failed: ${errorMessage(err)}` };
  }
}

/** The extraction's identity: equal fingerprints mean byte-identical chunks, symbols and imports. */
export function extractionFingerprint(extraction: FileExtraction): string {
  return sha256(JSON.stringify(extraction));
}
