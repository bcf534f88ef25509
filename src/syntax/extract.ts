// The extraction entry point: dispatches a file to the extractor its language's spec names.
// A pure function of (path, text, options); failures come back as data, never as throws. Every
// extraction gets the qualified compounds (`Class.method`) of its calls in its identifier bags.
import { errorMessage } from "../base/errors.js";
import { sourceInfo } from "../lang/languages.js";
import type { Extractor } from "../lang/spec.js";
import { extractGo } from "./go.js";
import { extractMarkdown } from "./markdown.js";
import { extractOutline } from "./outline.js";
import { extractPython } from "./python.js";
import { extractRust } from "./rust.js";
import { extractTypeScript } from "./typescript.js";
import type { CallSite, Chunk, ExtractOptions, ExtractResult } from "./types.js";

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
  const info = sourceInfo(filePath, text);
  if (info === null) return { ok: false, error: `no extractor for ${filePath}` };
  try {
    if (info.spec.extractor === "markdown") return { ok: true, extraction: extractMarkdown(filePath, text, options) };
    if (info.grammar === null) return { ok: false, error: `no grammar for ${filePath}` };
    let result: ExtractResult;
    if (info.spec.extractor === "outline") {
      if (!info.spec.outline) return { ok: false, error: `no outline rules for ${info.language}` };
      result = extractOutline(filePath, text, info.grammar, info.language, info.spec.outline, options);
    } else result = TREE_EXTRACTORS[info.spec.extractor](filePath, text, info.grammar, info.language, options);
    return result.ok ? { ok: true, extraction: { ...result.extraction, chunks: withQualifiedNames(result.extraction.chunks, result.extraction.calls) } } : result;
  } catch (err) {
    // An extractor bug must not abort an indexing run: the file becomes a counted parse error.
    return { ok: false, error: `extractor failed: ${errorMessage(err)}` };
  }
}

/**
 * Qualified compounds appended to identifier bags (docs/extraction.md#identifier-bags): a method chunk's own
 * `Class.method`, and `Type.method` for every call in the chunk whose receiver type is known, so a
 * phrase query for `Class.method` finds its mentions. Class outlines get no call compounds.
 */
function withQualifiedNames(chunks: readonly Chunk[], calls: readonly CallSite[]): Chunk[] {
  // Only calls with a known receiver type make compounds: found once, not once per chunk.
  const typed: Array<{ line: number; compound: string }> = [];
  for (const call of calls) {
    const r = call.receiver;
    const type = r.kind === "typed" ? r.typeName : r.kind === "this" || r.kind === "super" || r.kind === "static" ? r.className : null;
    if (type !== null) typed.push({ line: call.line, compound: `${type}.${call.callee}` });
  }
  return chunks.map((c) => {
    const extra: string[] = [];
    if (c.chunkType === "method" && c.symbolName !== null) extra.push(c.symbolName);
    if (c.chunkType !== "class_shell" && c.chunkType !== "doc") {
      for (const t of typed) if (t.line >= c.startLine && t.line <= c.endLine) extra.push(t.compound);
    }
    if (extra.length === 0) return c;
    const have = new Set(c.identifiers);
    const added: string[] = [];
    for (const x of extra) {
      if (have.has(x)) continue;
      have.add(x);
      added.push(x);
    }
    return added.length ? { ...c, identifiers: [...c.identifiers, ...added] } : c;
  });
}
