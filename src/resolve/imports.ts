// Import resolution against the indexed file set, by the importing file's language (its spec's
// resolver; Python's is resolve/python.ts, Go's go.ts, Rust's rust.ts, the breadth languages'
// conventions.ts). ECMAScript module specifiers (spec §13.7): relative specifiers with
// TypeScript's NodeNext extension substitution, the nearest tsconfig's `paths`/`baseUrl`
// (following `extends`) and npm/yarn/pnpm workspace packages. Every answer is a member of the
// indexed file set, whose paths are canonical already (the walker starts from the realpath'd
// root and never follows a symlink), so "realpath applied last" holds by construction; workspace
// names map to their real directories, never to node_modules links. The resolver fingerprints
// every config file it read, so a changed tsconfig, go.mod, Cargo.toml or composer.json triggers a
// relink.
import { realpathSync, statSync } from "node:fs";
import { STAT_WORDS, StatKind, statMany } from "../base/native.js";
import { dirname, join, posix } from "node:path";
import { parseJsonc, parseYaml } from "../base/formats.js";
import { sha256 } from "../base/hash.js";
import { DEFAULT_MAX_FILE_BYTES, readRegularFile } from "../base/read.js";
import { isExternalSpecifier, relativeInside } from "../base/paths.js";
import { extensionInfo } from "../lang/languages.js";
import { createIncludeResolver, createJavaResolver, createPhpResolver, createRubyResolver, readComposerAutoload } from "./conventions.js";
import { createGoResolver } from "./go.js";
import { resolvePythonModule } from "./python.js";
import { createRustResolver } from "./rust.js";

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
}

export interface ImportResolverOptions {
  /**
   * Read every config the resolver can depend on now, for the fingerprint (the default). false:
   * only what resolutions read — for a caller that knows by the configs' stats that the
   * fingerprint cannot have moved (reading them all is 36 ms on theia).
   */
  readonly readAll?: boolean;
}

interface PathsConfig {
  /** Directory (project-relative) that `paths` substitutions are relative to. */
  readonly base: string;
  readonly paths: ReadonlyArray<readonly [pattern: string, substitutions: readonly string[]]>;
  /** baseUrl (project-relative) for bare non-relative lookups, or null. */
  readonly baseUrl: string | null;
}

/** A path's real path, or the path itself when it has none (gone). */
function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function createImportResolver(files: ReadonlySet<string>, projectRoot: string, options: ImportResolverOptions = {}): ImportResolver {
  const read = new Map<string, string | null>();
  const rootReal = realOrSelf(projectRoot);
  const readText = (abs: string): string | null => {
    if (!read.has(abs)) {
      let text: string | null = null;
      try {
        // Most probes name no file (a package.json, tsconfig.json or go.mod per directory looked
        // for): answered without an exception each (a server's first refresh at 1 GB: 4.0–4.4 → 2.7 s with the path list below).
        if (statSync(abs, { throwIfNoEntry: false })?.isFile()) {
          // Read only where it really is inside the project, by the one reader (proven on the
          // descriptor): a repository's symlinked config or `extends: "../../x.json"` reaching out
          // of it must not make mast read another file (docs/decisions.md, the threat model).
          const real = realpathSync(abs);
          const file = relativeInside(rootReal, real) === null ? null : readRegularFile(real, { maxBytes: DEFAULT_MAX_FILE_BYTES, noFollow: true, expect: real });
          if (file?.kind === "read") text = file.bytes.toString("utf8");
        }
      } catch {
        text = null;
      }
      read.set(abs, text);
    }
    return read.get(abs)!;
  };
  // Parsed once each (a workspace's package.json is read again for every import of the package by name); never mutated.
  const parsed = new Map<string, Record<string, unknown> | null>();
  const readJson = (abs: string, jsonc = false): Record<string, unknown> | null => {
    const key = `${jsonc ? "c" : "j"}${abs}`;
    if (parsed.has(key)) return parsed.get(key)!;
    const text = readText(abs);
    let json: Record<string, unknown> | null = null;
    try {
      const v = text === null ? null : jsonc ? parseJsonc(text) : JSON.parse(text);
      json = v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
      json = null;
    }
    parsed.set(key, json);
    return json;
  };

  const probe = (base: string): string | null => {
    for (const ext of PROBE_EXTENSIONS) if (files.has(base + ext)) return base + ext;
    return null;
  };
  /** A project-relative target path to an indexed file: substitution, exact, extensions, index files. */
  const lookup = (target: string): string | null => {
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
  // ---- tsconfig: the nearest tsconfig.json above a file, with `extends` followed ----
  /** What a tsconfig (with what it extends) sets, as absolute paths: each resolved against the file that sets it, as tsc does. */
  type TsconfigOptions = { paths?: PathsConfig["paths"]; pathsBase?: string; baseUrl?: string; outDir?: string; rootDir?: string };
  const tsconfigAt = new Map<string, PathsConfig | null>();
  const loadTsconfig = (abs: string, depth: number): TsconfigOptions | null => {
    const json = readJson(abs, true);
    if (!json || depth > 8) return null;
    let inherited: TsconfigOptions = {};
    const ext = json.extends;
    for (const parent of (Array.isArray(ext) ? ext : ext === undefined ? [] : [ext]).filter((e): e is string => typeof e === "string")) {
      const parentAbs = parent.startsWith(".") || parent.startsWith("/") ? join(dirname(abs), parent) : join(projectRoot, "node_modules", parent);
      const candidates = parentAbs.endsWith(".json") ? [parentAbs] : [parentAbs, `${parentAbs}.json`, join(parentAbs, "tsconfig.json")];
      const found = candidates.find((c) => readText(c) !== null);
      const loaded = found ? loadTsconfig(found, depth + 1) : null;
      if (loaded) inherited = { ...inherited, ...loaded };
    }
    const options = (json.compilerOptions ?? {}) as Record<string, unknown>;
    const dir = dirname(abs);
    const result = { ...inherited };
    if (typeof options.baseUrl === "string") result.baseUrl = join(dir, options.baseUrl);
    if (typeof options.outDir === "string") result.outDir = join(dir, options.outDir);
    if (typeof options.rootDir === "string") result.rootDir = join(dir, options.rootDir);
    if (options.paths && typeof options.paths === "object") {
      result.paths = Object.entries(options.paths as Record<string, unknown>)
        .filter((e): e is [string, string[]] => Array.isArray(e[1]) && e[1].every((s) => typeof s === "string"))
        .map(([k, v]) => [k, v] as const);
      result.pathsBase = typeof options.baseUrl === "string" ? join(dir, options.baseUrl) : dir;
    }
    return result;
  };
  const toRel = (abs: string) => relativeInside(projectRoot, abs) ?? "..";
  const configFor = (dirRel: string): PathsConfig | null => {
    if (tsconfigAt.has(dirRel)) return tsconfigAt.get(dirRel)!;
    const abs = join(projectRoot, dirRel, "tsconfig.json");
    let config: PathsConfig | null;
    const loaded = readText(abs) !== null ? loadTsconfig(abs, 0) : null;
    if (loaded) {
      const baseUrl = loaded.baseUrl !== undefined ? toRel(loaded.baseUrl) : null;
      config = { base: loaded.pathsBase !== undefined ? toRel(loaded.pathsBase) : (baseUrl ?? dirRel), paths: loaded.paths ?? [], baseUrl };
    } else {
      config = dirRel === "" ? null : configFor(posix.dirname(dirRel) === "." ? "" : posix.dirname(dirRel));
    }
    tsconfigAt.set(dirRel, config);
    return config;
  };
  const viaTsconfig = (fromPath: string, specifier: string): string | null => {
    const dir = posix.dirname(fromPath);
    const config = configFor(dir === "." ? "" : dir);
    if (!config) return null;
    let best: { prefix: string; suffix: string; subs: readonly string[] } | null = null;
    for (const [pattern, subs] of config.paths) {
      const star = pattern.indexOf("*");
      const prefix = star === -1 ? pattern : pattern.slice(0, star);
      const suffix = star === -1 ? "" : pattern.slice(star + 1);
      const matches = star === -1 ? specifier === pattern : specifier.startsWith(prefix) && specifier.endsWith(suffix) && specifier.length >= prefix.length + suffix.length;
      if (matches && (!best || prefix.length > best.prefix.length)) best = { prefix, suffix, subs };
    }
    if (best) {
      const captured = specifier.slice(best.prefix.length, specifier.length - best.suffix.length);
      for (const sub of best.subs) {
        const found = lookup(posix.normalize(posix.join(config.base, sub.replace("*", captured))));
        if (found) return found;
      }
    }
    return config.baseUrl !== null ? lookup(posix.normalize(posix.join(config.baseUrl, specifier))) : null;
  };

  // ---- workspaces: package name → directory ----
  const workspaces = new Map<string, string>();
  const rootPkg = readJson(join(projectRoot, "package.json"));
  const patterns: string[] = [];
  const ws = rootPkg?.workspaces;
  if (Array.isArray(ws)) patterns.push(...ws.filter((p): p is string => typeof p === "string"));
  else if (ws && typeof ws === "object" && Array.isArray((ws as { packages?: unknown }).packages)) {
    patterns.push(...((ws as { packages: unknown[] }).packages.filter((p): p is string => typeof p === "string")));
  }
  const pnpm = readText(join(projectRoot, "pnpm-workspace.yaml"));
  if (pnpm !== null) {
    let doc: unknown = null;
    try {
      doc = parseYaml(pnpm);
    } catch {
      // A workspace file YAML cannot read declares no packages (pnpm refuses it too).
    }
    const listed = doc !== null && typeof doc === "object" ? (doc as { packages?: unknown }).packages : undefined;
    if (Array.isArray(listed)) patterns.push(...listed.filter((p): p is string => typeof p === "string"));
  }
  if (patterns.length) {
    const dirs = new Set<string>();
    for (const f of files) for (let d = posix.dirname(f); d !== "." && d !== ""; d = posix.dirname(d)) dirs.add(d);
    const globOf = (pattern: string) => {
      const p = pattern.replace(/^\.\//, "").replace(/\/+$/, "");
      return new RegExp(`^${p.split("/").map((seg) => (seg === "**" ? ".*" : seg.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*"))).join("/")}$`);
    };
    // A `!` pattern leaves out the directories it matches, whichever patterns list them (npm's and pnpm's workspaces alike).
    const excluded = patterns.filter((p) => p.startsWith("!")).map((p) => globOf(p.slice(1)));
    for (const pattern of patterns.filter((p) => !p.startsWith("!"))) {
      const re = globOf(pattern);
      for (const d of dirs) {
        if (!re.test(d) || excluded.some((x) => x.test(d))) continue;
        const name = readJson(join(projectRoot, d, "package.json"))?.name;
        if (typeof name === "string" && !workspaces.has(name)) workspaces.set(name, d);
      }
    }
  }
  /**
   * A package's build output mapped back to its sources: a path under the `outDir` of the package's
   * tsconfig, moved under its `rootDir` (`lib/common/index.js` → `src/common/index.ts`), as
   * TypeScript's project-reference redirects do. Null without both options, or outside `outDir`.
   */
  const outputs = new Map<string, { outDir: string; rootDir: string } | null>();
  const sourceOf = (dir: string, target: string): string | null => {
    if (!outputs.has(dir)) {
      const abs = join(projectRoot, dir, "tsconfig.json");
      const loaded = readText(abs) !== null ? loadTsconfig(abs, 0) : null;
      const outDir = loaded?.outDir !== undefined ? toRel(loaded.outDir) : null;
      const rootDir = loaded?.rootDir !== undefined ? toRel(loaded.rootDir) : null;
      outputs.set(dir, outDir !== null && rootDir !== null && outDir !== ".." && rootDir !== ".." && outDir !== rootDir ? { outDir, rootDir } : null);
    }
    const map = outputs.get(dir);
    if (!map || !target.startsWith(`${map.outDir}/`)) return null;
    const source = `${map.rootDir}/${target.slice(map.outDir.length + 1)}`;
    // A declaration file stands for its source module: `x.d.ts` → `x.ts`.
    return lookup(source.endsWith(".d.ts") ? `${source.slice(0, -".d.ts".length)}.ts` : source);
  };
  /** A package path: as written, else its source when it names the package's build output. */
  const inPackage = (dir: string, target: string): string | null => lookup(target) ?? sourceOf(dir, target);
  // Each workspace's place in the declaration order: of the names a specifier starts with, the first declared answers.
  const workspaceOrder = new Map([...workspaces.keys()].map((name, i) => [name, i]));
  const viaWorkspace = (specifier: string): string | null => {
    // The names a specifier can start with end where one of its segments does (an import of
    // theia's 80 workspace packages tried each name on each import: 100 ms of the link).
    let name: string | null = null;
    for (let end = specifier.indexOf("/"); ; end = specifier.indexOf("/", end + 1)) {
      const prefix = end < 0 ? specifier : specifier.slice(0, end);
      const order = workspaceOrder.get(prefix);
      if (order !== undefined && (name === null || order < workspaceOrder.get(name)!)) name = prefix;
      if (end < 0) break;
    }
    if (name !== null) {
      const dir = workspaces.get(name)!;
      const sub = specifier.slice(name.length + 1);
      if (sub) return inPackage(dir, posix.join(dir, sub)) ?? lookup(posix.join(dir, "src", sub));
      const pkg = readJson(join(projectRoot, dir, "package.json")) ?? {};
      const exp = pkg.exports;
      const dot = typeof exp === "string" ? exp : exp && typeof exp === "object" ? (exp as Record<string, unknown>)["."] : undefined;
      const entry = typeof dot === "string" ? dot : dot && typeof dot === "object" ? ((dot as Record<string, unknown>).import ?? (dot as Record<string, unknown>).default ?? (dot as Record<string, unknown>).types) : undefined;
      for (const field of [entry, pkg.source, pkg.module, pkg.main, pkg.types, pkg.typings]) {
        if (typeof field !== "string") continue;
        const found = inPackage(dir, posix.normalize(posix.join(dir, field)));
        if (found) return found;
      }
      return lookup(posix.join(dir, "src", "index")) ?? lookup(posix.join(dir, "index"));
    }
    return null;
  };

  // Read every config the resolver can depend on now, so the fingerprint covers them all.
  const dirsWithFiles = new Set<string>([""]);
  for (const f of files) for (let d = posix.dirname(f); d !== "." && d !== ""; d = posix.dirname(d)) dirsWithFiles.add(d);
  const present = new Set([...files].map((f) => extensionInfo(f)?.spec.resolver));
  const has = (resolver: string) => present.has(resolver as never);
  if (options.readAll !== false) {
    // Each directory is probed for its configs, and most have none: all stat'ed first in one call
    // (statMany, over two threads), each answered absent at once; one that is a file is read when
    // asked, as before (a server's first refresh at 1 GB, with the stamps below in one call too: 2.7 → 2.0–2.3 s).
    const names = ["tsconfig.json", ...(has("go") ? ["go.mod"] : []), ...(has("rust") ? ["Cargo.toml"] : []), ...(has("php") ? ["composer.json"] : [])];
    const probes = [...dirsWithFiles].flatMap((d) => names.map((n) => join(projectRoot, d, n)));
    const stats = statMany(probes);
    probes.forEach((abs, i) => {
      if (stats[i * STAT_WORDS] !== StatKind.FILE) read.set(abs, null);
    });
    for (const d of dirsWithFiles) configFor(d);
  }
  // Module manifests (go.mod, Cargo.toml, composer.json) are read only when files of their language are indexed.
  const readRel = (rel: string) => readText(join(projectRoot, rel));
  const resolvers = new Map<string, (fromPath: string, specifier: string) => string | null>();
  if (has("go")) resolvers.set("go", createGoResolver(files, dirsWithFiles, readRel));
  if (has("rust")) resolvers.set("rust", createRustResolver(files, dirsWithFiles, readRel));
  if (has("java")) resolvers.set("java", createJavaResolver(files));
  if (has("include")) resolvers.set("include", createIncludeResolver(files));
  if (has("ruby")) resolvers.set("ruby", createRubyResolver(files));
  if (has("php")) resolvers.set("php", createPhpResolver(files, readComposerAutoload(dirsWithFiles, readRel)));

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

  if (options.readAll === false) return { resolve, fingerprint: null, inputs: [] };
  const fingerprint = sha256(
    [...read]
      .filter(([, text]) => text !== null)
      .map(([abs, text]) => `${toRel(abs)}\0${text}`)
      .sort()
      .join("\0\0") + `\0workspaces:${[...workspaces].sort().join(",")}`,
  );
  return { resolve, fingerprint, inputs: [...read.keys()] };
}

