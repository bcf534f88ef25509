// The source files a structural build covers: the index's (the languages a LanguageSpec parses)
// and the fallback walk's (heuristic.ts's languages, read here), each with its digest; the files no
// backend could read, which the catalog lists as failed; and a file's text and comment syntax for
// the backends that read it again.
import { join } from "node:path";
import { compileGlobs } from "../base/glob.js";
import { sha256 } from "../base/hash.js";
import { readRegularFile } from "../base/read.js";
import { decodeSource } from "../base/text.js";
import { heuristicLanguageOf, HEURISTIC_EXTENSIONS } from "../lang/heuristic.js";
import { extensionInfo } from "../lang/languages.js";
import type { ResolvedConfig } from "../index/config.js";
import type { IndexReport } from "../index/run.js";
import { walkForConfig, walkProject } from "../index/walk.js";
import type { StructuralFacts } from "../query/structural.js";
import type { Located } from "./locate.js";

/** A source file the build covers. */
export interface SourceFile {
  readonly path: string;
  readonly language: string;
  readonly sha256: string;
  readonly bytes: number;
  /** Read from the index (a LanguageSpec parses it) or by the fallback walk. */
  readonly parsed: boolean;
}

/** A source file no backend could read: a `failed` coverage row. */
export interface UnreadableFile {
  readonly path: string;
  readonly language: string;
}

/** Where a file's text is read from: the fallback walk's texts, else the code root. */
export interface TextSource {
  readonly located: Located;
  readonly config: ResolvedConfig;
  readonly fallbackTexts: Map<string, string>;
}

export interface BuildSources extends TextSource {
  /** In path order. */
  readonly sources: SourceFile[];
  readonly unreadable: UnreadableFile[];
  /** A digest of every source file's path and digest: what a native attachment may name instead of the snapshot. */
  readonly rootFingerprint: string;
}

/**
 * Every source file: the index's (code languages) and the fallback walk's. A file no backend
 * could read — one the index walked but holds no rows for (binary, over the size cap,
 * unreadable), one whose read or parse failed this run, a fallback file that is binary or too
 * large — is a `failed` coverage row, never silently absent.
 */
export function collectSources(located: Located, config: ResolvedConfig, facts: StructuralFacts, report: IndexReport): BuildSources {
  const failedReads = new Set(report.problems.filter((p) => p.kind === "read_error" || p.kind === "parse_error").map((p) => p.path));
  const isSource = (path: string) => extensionInfo(path)?.spec.extractor !== "markdown";
  const sources: SourceFile[] = facts.files
    .filter((f) => isSource(f.path) && !failedReads.has(f.path))
    .map((f) => ({ path: f.path, language: f.language, sha256: f.content_hash, bytes: f.size, parsed: true }));
  const indexed = new Set(facts.files.map((f) => f.path));
  const unreadable: UnreadableFile[] = walkForConfig(config)
    .paths.filter((path) => isSource(path) && (!indexed.has(path) || failedReads.has(path)))
    .map((path) => ({ path, language: extensionInfo(path)?.spec.name ?? "unknown" }));
  const fallbackTexts = new Map<string, string>();
  for (const file of walkFallbackSources(config)) {
    const read = readRegularFile(join(located.codeRoot, file.path), { maxBytes: config.max_file_bytes, noFollow: true });
    const decoded = read.kind === "read" ? decodeSource(read.bytes) : null;
    if (read.kind !== "read" || decoded?.kind !== "text") {
      unreadable.push(file);
      continue;
    }
    fallbackTexts.set(file.path, decoded.text);
    sources.push({ path: file.path, language: file.language, sha256: sha256(read.bytes), bytes: read.bytes.length, parsed: false });
  }
  sources.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const rootFingerprint = sha256(sources.map((s) => `${s.path}\0${s.sha256}\n`).join(""));
  return { located, config, fallbackTexts, sources, unreadable, rootFingerprint };
}

/** Files of the fallback languages (no LanguageSpec), walked with the index's excludes and .gitignore. */
function walkFallbackSources(config: ResolvedConfig): { path: string; language: string }[] {
  const walked = walkProject({
    root: config.project_root,
    extensions: [...HEURISTIC_EXTENSIONS.keys()],
    exclude: compileGlobs(config.exclude_patterns),
    respectGitignore: config.respect_gitignore,
    skipDirs: [config.state_dir],
  });
  return walked.paths.flatMap((path) => {
    const lang = heuristicLanguageOf(path);
    return lang ? [{ path, language: lang.name }] : [];
  });
}

/** A file's text: the fallback walk's, else read from the code root; null when it cannot be read as text. */
export function textOf(input: TextSource, path: string): string | null {
  const cached = input.fallbackTexts.get(path);
  if (cached !== undefined) return cached;
  const read = readRegularFile(join(input.located.codeRoot, path), { maxBytes: input.config.max_file_bytes, noFollow: true });
  if (read.kind !== "read") return null;
  const decoded = decodeSource(read.bytes);
  return decoded.kind === "text" ? decoded.text : null;
}

export function commentPrefixesOf(path: string): readonly string[] {
  return heuristicLanguageOf(path)?.commentPrefixes ?? extensionInfo(path)?.spec.commentPrefixes ?? ["//", "#"];
}
