// The TypeScript language service the compiler-judged benches use (callers-accuracy, intent-rename):
// a host over a corpus's files that resolves modules only to corpus files (the corpus has no
// node_modules, and the repo's own above it must not leak in). `live` reads every file from disk
// by content (a bench that edits and resets the tree); otherwise each file is read once.
import path from "node:path";
import ts from "typescript";

/** The options the corpus is compiled with (its files only; no lib types beyond the default). */
export const COMPILER_OPTIONS = {
  allowJs: false,
  target: ts.ScriptTarget.ES2022,
  // Bundler resolution maps both `./x` and `./x.js` to x.ts, the two styles the corpus mixes.
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.Preserve,
  skipLibCheck: true,
  noEmit: true,
  types: [],
};

export function corpusLanguageService(root, names, options, { live = false } = {}) {
  const snapshots = new Map();
  const inCorpus = (f) => f.startsWith(`${root}${path.sep}`);
  const cache = ts.createModuleResolutionCache(root, (f) => f, options);
  const snapshot = (f) => {
    const text = ts.sys.readFile(f);
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  };
  const host = {
    getScriptFileNames: () => names,
    getScriptVersion: (f) => {
      if (!live) return "1";
      const text = ts.sys.readFile(f) ?? "";
      return `${text.length}:${ts.sys.createHash ? ts.sys.createHash(text) : text}`;
    },
    getScriptSnapshot: (f) => {
      if (live) return snapshot(f);
      if (!snapshots.has(f)) snapshots.set(f, snapshot(f));
      return snapshots.get(f);
    },
    getCurrentDirectory: () => root,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
    readDirectory: ts.sys.readDirectory,
    realpath: ts.sys.realpath,
    resolveModuleNameLiterals: (literals, containingFile, redirected, opts) =>
      literals.map((lit) => {
        const r = ts.resolveModuleName(lit.text, containingFile, opts, ts.sys, cache, redirected);
        return r.resolvedModule && inCorpus(r.resolvedModule.resolvedFileName) ? r : { resolvedModule: undefined };
      }),
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}
