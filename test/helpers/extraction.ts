// Golden-test support for the TS/JS extractor: runs `extractFile` on a fixture from
// test/fixtures/extract and renders the result as a compact, reviewable text dump.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { sha256 } from "../../src/base/hash.js";
import { extractFile } from "../../src/syntax/extract.js";
import type { Chunk, ExtractOptions, FileExtraction } from "../../src/syntax/types.js";
import { expectGolden } from "./golden.js";

export const FIXTURE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "extract");

/** Golden defaults: the spec's split threshold, and no context lines so chunk contents do not overlap. */
export const GOLDEN_OPTIONS: ExtractOptions = { chunkSplitThreshold: 100, contextLines: 0, markdownHeadingDepth: 2, parseTimeoutMs: 10_000 };

/** The project-relative path a fixture is extracted under (the stem names anonymous default exports). */
export const fixturePath = (fixture: string): string => `src/${fixture}`;

export function readFixture(fixture: string): string {
  return fs.readFileSync(path.join(FIXTURE_DIR, fixture), "utf8");
}

/** Extracts `text` as if it were the file `filePath`, failing the test when extraction fails. */
export function extractOk(filePath: string, text: string, options: Partial<ExtractOptions> = {}): FileExtraction {
  const result = extractFile(filePath, text, { ...GOLDEN_OPTIONS, ...options });
  if (!result.ok) throw new Error(`extraction of ${filePath} failed: ${result.error}`);
  return result.extraction;
}

const short = (hash: string | null): string => (hash === null ? "-" : hash.slice(0, 8));
const orDash = (v: string | null | undefined): string => v ?? "-";
const quote = (s: string | null): string => (s === null ? "-" : JSON.stringify(s));

function chunkHeader(c: Chunk, i: number): string {
  const from = c.contentStartLine === c.startLine ? "" : ` content@${c.contentStartLine}`;
  // The searched text, when it is not the whole content: its first and last lines, quoted.
  const searched = c.content.slice(c.searchStart, c.searchEnd);
  const search = c.searchStart === 0 && c.searchEnd === c.content.length ? "" : ` search=${JSON.stringify(searched.split("\n")[0])}..${JSON.stringify(searched.split("\n").pop())}`;
  return `[${i}] ${c.chunkType} ${orDash(c.symbolName)} parent=${orDash(c.parentSymbol)} exported=${c.isExported} ${c.startLine}-${c.endLine} part=${c.part} id=${short(c.chunkId)}${from}${search}`;
}

/** Renders an extraction: chunks with indented contents, then symbols, imports and identifier bags. */
export function renderExtraction(filePath: string, x: FileExtraction): string {
  const out: string[] = [`# ${filePath} language=${x.language} lines=${x.lineCount} syntaxErrors=${x.hasSyntaxErrors}`, "", "## chunks"];
  x.chunks.forEach((c, i) => {
    out.push(chunkHeader(c, i));
    for (const line of c.content.split("\n")) out.push(`    | ${line}`);
  });
  out.push("", "## symbols");
  for (const s of x.symbols) {
    const reExport = s.reExport ? `${s.reExport.module}#${s.reExport.importedName}` : "-";
    out.push(
      `${s.kind} ${s.name} ${s.line}-${s.endLine} exported=${s.isExported} sig=${quote(s.signature)} doc=${s.doc === null ? "no" : "yes"} ` +
        `body=${s.hasBody ? "yes" : "no"} parent=${orDash(s.parent)} reExport=${reExport}${s.aliasOf === null ? "" : ` aliasOf=${s.aliasOf}`}`,
    );
    if (s.params !== null) {
      const params = s.params.map((p) => `${p.name}${p.optional ? "?" : ""}: ${p.type ?? "-"}`).join(", ");
      out.push(`    params=(${params}) returns=${s.returnType ?? "-"}`);
    }
  }
  out.push("", "## imports");
  for (const imp of x.imports) out.push(`${imp.kind} ${JSON.stringify(imp.module)} [${imp.names.join(", ")}] line=${imp.line}`);
  out.push("", "## identifiers");
  x.chunks.forEach((c, i) => out.push(`[${i}] ${c.identifiers.join(" ")}`));
  return out.join("\n") + "\n";
}

/** Invariants every extraction must satisfy, whatever the fixture. */
export function checkInvariants(filePath: string, x: FileExtraction): void {
  const ids = new Set<string>();
  for (const c of x.chunks) {
    expect(ids.has(c.chunkId), `duplicate chunk id for ${c.symbolName}`).toBe(false);
    ids.add(c.chunkId);
    expect(c.startLine).toBeGreaterThanOrEqual(1);
    expect(c.endLine).toBeGreaterThanOrEqual(c.startLine);
    expect(c.endLine).toBeLessThanOrEqual(x.lineCount);
    if (c.chunkType === "method") expect(c.parentSymbol).not.toBeNull();
    else if (c.chunkType === "block" && c.parentSymbol !== null) {
      // A class body's long non-member: a block inside its class shell's span.
      const shell = x.chunks.find((s) => s.chunkType === "class_shell" && s.symbolName === c.parentSymbol && s.startLine < c.startLine && c.endLine <= s.endLine);
      expect(shell, `block ${c.startLine}-${c.endLine} inside class ${c.parentSymbol}`).toBeDefined();
    } else if (c.chunkType === "function" && c.parentSymbol !== null) {
      // A nested function or a namespace's: inside a chunk of its parent's name.
      const parent = x.chunks.find((p) => p.symbolName === c.parentSymbol && p.startLine <= c.startLine && c.endLine <= p.endLine);
      expect(parent, `function ${c.symbolName} inside ${c.parentSymbol}`).toBeDefined();
    } else expect(c.parentSymbol).toBeNull();
  }
  // The first chunk at a line has the plain spec id sha256(path:line).
  const firstAt = new Map<number, Chunk>();
  for (const c of x.chunks) if (!firstAt.has(c.startLine)) firstAt.set(c.startLine, c);
  for (const [line, c] of firstAt) expect(c.chunkId).toBe(sha256(`${filePath}:${line}`));
}

/**
 * The one golden check: extracts test/fixtures/extract/<fixture> and compares the rendered dump
 * with test/goldens/extract/<fixture>[.<variant>].txt. Returns the extraction for direct assertions.
 */
export function checkExtraction(fixture: string, options: Partial<ExtractOptions> = {}, variant?: string): FileExtraction {
  const filePath = fixturePath(fixture);
  const x = extractOk(filePath, readFixture(fixture), options);
  checkInvariants(filePath, x);
  expectGolden(`extract/${fixture}${variant ? `.${variant}` : ""}.txt`, renderExtraction(filePath, x));
  return x;
}

/** Lookup helpers over one extraction, failing loudly on a missing or ambiguous name. */
export function lookup(x: FileExtraction) {
  const one = <T>(items: T[], what: string): T => {
    expect(items, what).toHaveLength(1);
    return items[0]!;
  };
  return {
    chunk: (name: string) =>
      one(
        x.chunks.filter((c) => c.symbolName === name && c.part === 0),
        `chunk ${name}`,
      ),
    chunks: (name: string) => x.chunks.filter((c) => c.symbolName === name),
    symbol: (name: string) =>
      one(
        x.symbols.filter((s) => s.name === name),
        `symbol ${name}`,
      ),
    symbols: (name: string) => x.symbols.filter((s) => s.name === name),
  };
}
