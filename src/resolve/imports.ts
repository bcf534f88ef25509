// Import resolution against the indexed file set, by the importing file's language (its spec's
// resolver; Python's is resolve/python.ts, Go's go.ts, Rust's rust.ts, the breadth languages'
// conventions.ts). ECMAScript module specifiers (docs/call-graph.md#import-resolution): relative specifiers with
// TypeScript's NodeNext extension substitution, the nearest tsconfig's `paths`/`baseUrl`
// (following `extends`: tsconfig.ts) and npm/yarn/pnpm workspace packages (workspaces.ts). Every
// answer is a member of the indexed file set, whose paths are canonical already (the walker starts
// from the realpath'd root and never follows a symlink), so "realpath applied last" holds by
// construction; workspace names map to their real directories, never to node_modules links. The
// resolver fingerprints every config file it read (config-files.ts), so a changed tsconfig, go.mod,
// Cargo.toml or composer.json triggers a relink.
import { STAT_WORDS, StatKind, statMany } from "../base/native.js";
import { join, posix } from "node:path";
import { sha256 } from "../base/hash.js";
import { isExternalSpecifier } from "../base/paths.js";
import { extensionInfo } from "../lang/languages.js";
import { createConfigReader, projectRelative, type ConfigReader } from "./config-files.js";
import { createIncludeResolver, createJavaResolver, createPhpResolver, createRubyResolver, readComposerAutoload } from "./conventions.js";
import { createGoResolver } from "./go.js";
import { resolvePythonModule } from "./python.js";
import { createRustResolver } from "./rust.js";
import { createTsconfigResolver, type FileLookup, type TsconfigResolver } from "./tsconfig.js";
import { manifestPackages, type PackageIdentity } from "./packages.js";
import { createWorkspaceResolver, type WorkspaceResolver } from "./workspaces.js";

/** `.js` names the compiled output: its TypeScript source is looked up first (tsc's order). */
const SUBSTITUTIONS: Readonly<Record<string, readonly string[]>> = {
  ".js": [".ts", ".tsx", ".js"],
  ".jsx": [".tsx", ".jsx"],
  ".mjs": [".mts", ".mjs"],
  ".cjs": [".cts", ".cjs"],
};

/** Extensions tried for an extensionless specifier, in tsc's preference order. */
const PROBE_EXTENSIONS = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"];

export interface ImportResolver {
  /** The project file a specifier imported from `fromPath` names, or null (external or missing). */
  resolve(fromPath: string, specifier: string): string | null;
  /** A hash of every tsconfig and package manifest the resolver depends on (null when built with `readAll: false`). */
  readonly fingerprint: string | null;
  /** Every absolute path the fingerprint's reads tried, present or absent (empty with `readAll: false`). */
  readonly inputs: readonly string[];
  /** The packages the project provides (resolve/packages.ts), npm's with their entry files. */
  packages(): PackageIdentity[];
}

export interface ImportResolverOptions {
  /**
   * Read every config the resolver can depend on now, for the fingerprint (the default). false:
   * only what resolutions read — for a caller that knows by the configs' stats that the
   * fingerprint cannot have moved (reading them all is 36 ms on theia).
   */
  readonly readAll?: boolean;
}

/** A language's own resolver (every resolver but ECMAScript's and Python's). */
type LanguageResolver = (fromPath: string, specifier: string) => string | null;

/** A project-relative target path to an indexed file: substitution, exact, extensions, index files. */
function fileLookup(files: ReadonlySet<string>): FileLookup {
  const probe = (base: string): string | null => {
    for (const ext of PROBE_EXTENSIONS) if (files.has(base + ext)) return base + ext;
    return null;
  };
  return (target: string): string | null => {
    if (target === ".." || target.startsWith("../")) return null;
    const ext = posix.extname(target);
    const substitutes = SUBSTITUTIONS[ext];
    if (substitutes) {
      const stem = target.slice(0, -ext.length);
      for (const s of substitutes) if (files.has(stem + s)) return stem + s;
    }
    if (files.has(target)) return target;
    return probe(target) ?? probe(target === "." || target === "" ? "index" : `${target}/index`);
  };
}

/** Every directory holding an indexed file, the root ("") included. */
function directoriesOf(files: ReadonlySet<string>): Set<string> {
  const dirs = new Set<string>([""]);
  for (const f of files) for (let d = posix.dirname(f); d !== "." && d !== ""; d = posix.dirname(d)) dirs.add(d);
  return dirs;
}

/**
 * Reads every config the resolver can depend on now, so the fingerprint covers them all. Each
 * directory is probed for its configs, and most have none: all stat'ed first in one call
 * (statMany, over two threads), each answered absent at once; one that is a file is read when
 * asked, as before (a server's first refresh at 1 GB, with the stamps in one call too: 2.7 → 2.0–2.3 s).
 */
function readEveryConfig(projectRoot: string, dirsWithFiles: ReadonlySet<string>, has: (resolver: string) => boolean, reader: ConfigReader, tsconfig: TsconfigResolver): void {
  const names = ["tsconfig.json", ...(has("go") ? ["go.mod"] : []), ...(has("rust") ? ["Cargo.toml"] : []), ...(has("php") ? ["composer.json"] : [])];
  const probes = [...dirsWithFiles].flatMap((d) => names.map((n) => join(projectRoot, d, n)));
  const stats = statMany(probes);
  probes.forEach((abs, i) => {
    if (stats[i * STAT_WORDS] !== StatKind.FILE) reader.markAbsent(abs);
  });
  for (const d of dirsWithFiles) tsconfig.configFor(d);
}

/**
 * The resolvers of the other languages whose files are indexed. Module manifests (go.mod,
 * Cargo.toml, composer.json) are read only when files of their language are indexed.
 */
function languageResolvers(
  files: ReadonlySet<string>,
  projectRoot: string,
  dirsWithFiles: ReadonlySet<string>,
  has: (resolver: string) => boolean,
  reader: ConfigReader,
): Map<string, LanguageResolver> {
  const readRel = (rel: string) => reader.readText(join(projectRoot, rel));
  const resolvers = new Map<string, LanguageResolver>();
  if (has("go")) resolvers.set("go", createGoResolver(files, dirsWithFiles, readRel));
  if (has("rust")) resolvers.set("rust", createRustResolver(files, dirsWithFiles, readRel));
  if (has("java")) resolvers.set("java", createJavaResolver(files));
  if (has("include")) resolvers.set("include", createIncludeResolver(files));
  if (has("ruby")) resolvers.set("ruby", createRubyResolver(files));
  if (has("php")) resolvers.set("php", createPhpResolver(files, readComposerAutoload(dirsWithFiles, readRel)));
  return resolvers;
}

/** A hash of every config read (by project-relative path) and the workspace packages found. */
function configFingerprint(projectRoot: string, reader: ConfigReader, workspaces: WorkspaceResolver): string {
  return sha256(
    [...reader.tried]
      .filter(([, text]) => text !== null)
      .map(([abs, text]) => `${projectRelative(projectRoot, abs)}\0${text}`)
      .sort()
      .join("\0\0") + `\0workspaces:${[...workspaces.packages].sort().join(",")}`,
  );
}

export function createImportResolver(files: ReadonlySet<string>, projectRoot: string, options: ImportResolverOptions = {}): ImportResolver {
  const reader = createConfigReader(projectRoot);
  const lookup = fileLookup(files);
  const tsconfig = createTsconfigResolver(projectRoot, reader, lookup);
  const workspaces = createWorkspaceResolver(files, projectRoot, reader, lookup, tsconfig.sourceOf);
  const { viaTsconfig } = tsconfig;
  const { viaWorkspace } = workspaces;

  const dirsWithFiles = directoriesOf(files);
  const present = new Set([...files].map((f) => extensionInfo(f)?.spec.resolver));
  const has = (resolver: string) => present.has(resolver as never);
  if (options.readAll !== false) readEveryConfig(projectRoot, dirsWithFiles, has, reader, tsconfig);
  const resolvers = languageResolvers(files, projectRoot, dirsWithFiles, has, reader);

  const resolve = (fromPath: string, specifier: string): string | null => {
    const resolver = extensionInfo(fromPath)?.spec.resolver ?? "none";
    if (resolver === "python") return resolvePythonModule(files, fromPath, specifier);
    if (resolver !== "ecmascript" && resolver !== "none") return resolvers.get(resolver)?.(fromPath, specifier) ?? null;
    if (resolver === "none") return null;
    const clean = specifier.split("?")[0]!;
    if (!isExternalSpecifier(clean)) {
      if (clean.startsWith("/")) return null;
      return lookup(posix.normalize(posix.join(posix.dirname(fromPath), clean)));
    }
    return viaTsconfig(fromPath, clean) ?? viaWorkspace(clean);
  };

  const packages = (): PackageIdentity[] => {
    const npm: PackageIdentity[] = [];
    const root = reader.readJson(join(projectRoot, "package.json"))?.name;
    const named: Array<[string, string]> = [...(typeof root === "string" && root.length > 0 ? [[root, ""] as [string, string]] : []), ...workspaces.packages];
    for (const [name, dir] of named) {
      const entry = workspaces.entryOf(dir);
      npm.push({ ecosystem: "npm", name, dir, ...(entry === null ? {} : { entry }) });
    }
    return [...npm, ...manifestPackages(dirsWithFiles, (rel) => reader.readText(join(projectRoot, rel)))];
  };
  if (options.readAll === false) return { resolve, fingerprint: null, inputs: [], packages };
  return { resolve, fingerprint: configFingerprint(projectRoot, reader, workspaces), inputs: [...reader.tried.keys()], packages };
}
