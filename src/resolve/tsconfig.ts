// ECMAScript specifiers through tsconfig.json: the nearest tsconfig above the importing file, with
// `extends` followed, its `paths` (longest prefix wins) and `baseUrl`; and a package's build output
// mapped back to its sources by its tsconfig's `outDir`/`rootDir`.
import { dirname, join, posix } from "node:path";
import { projectRelative, type ConfigReader } from "./config-files.js";

/** A project-relative target path to the indexed file it names, or null (imports.ts's lookup). */
export type FileLookup = (target: string) => string | null;

export interface PathsConfig {
  /** Directory (project-relative) that `paths` substitutions are relative to. */
  readonly base: string;
  readonly paths: ReadonlyArray<readonly [pattern: string, substitutions: readonly string[]]>;
  /** baseUrl (project-relative) for bare non-relative lookups, or null. */
  readonly baseUrl: string | null;
}

/** What a tsconfig (with what it extends) sets, as absolute paths: each resolved against the file that sets it, as tsc does. */
interface TsconfigOptions {
  paths?: PathsConfig["paths"];
  pathsBase?: string;
  baseUrl?: string;
  outDir?: string;
  rootDir?: string;
}

export interface TsconfigResolver {
  /** The `paths`/`baseUrl` in force in a project-relative directory ("" the root): its nearest tsconfig's; cached per directory. */
  configFor(dirRel: string): PathsConfig | null;
  /** A non-relative specifier through the importing file's tsconfig: its best `paths` pattern, else `baseUrl`. */
  viaTsconfig(fromPath: string, specifier: string): string | null;
  /**
   * A package's build output mapped back to its sources: a path under the `outDir` of the package's
   * tsconfig, moved under its `rootDir` (`lib/common/index.js` → `src/common/index.ts`), as
   * TypeScript's project-reference redirects do. Null without both options, or outside `outDir`.
   */
  sourceOf(dir: string, target: string): string | null;
}

/** A tsconfig's `compilerOptions` over what it inherits, each path resolved against the directory of the file setting it. */
function ownOptions(inherited: TsconfigOptions, options: Record<string, unknown>, dir: string): TsconfigOptions {
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
}

/** The `paths` pattern a specifier matches with the longest prefix, with its substitutions, or null. */
function bestPathsMatch(config: PathsConfig, specifier: string): { prefix: string; suffix: string; subs: readonly string[] } | null {
  let best: { prefix: string; suffix: string; subs: readonly string[] } | null = null;
  for (const [pattern, subs] of config.paths) {
    const star = pattern.indexOf("*");
    const prefix = star === -1 ? pattern : pattern.slice(0, star);
    const suffix = star === -1 ? "" : pattern.slice(star + 1);
    const matches = star === -1 ? specifier === pattern : specifier.startsWith(prefix) && specifier.endsWith(suffix) && specifier.length >= prefix.length + suffix.length;
    if (matches && (!best || prefix.length > best.prefix.length)) best = { prefix, suffix, subs };
  }
  return best;
}

export function createTsconfigResolver(projectRoot: string, reader: ConfigReader, lookup: FileLookup): TsconfigResolver {
  const { readText, readJson } = reader;
  const toRel = (abs: string) => projectRelative(projectRoot, abs);
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
    return ownOptions(inherited, (json.compilerOptions ?? {}) as Record<string, unknown>, dirname(abs));
  };

  const tsconfigAt = new Map<string, PathsConfig | null>();
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
    const best = bestPathsMatch(config, specifier);
    if (best) {
      const captured = specifier.slice(best.prefix.length, specifier.length - best.suffix.length);
      for (const sub of best.subs) {
        const found = lookup(posix.normalize(posix.join(config.base, sub.replace("*", captured))));
        if (found) return found;
      }
    }
    return config.baseUrl !== null ? lookup(posix.normalize(posix.join(config.baseUrl, specifier))) : null;
  };

  const outputs = new Map<string, { outDir: string; rootDir: string } | null>();
  const sourceOf = (dir: string, target: string): string | null => {
    if (!outputs.has(dir)) {
      const abs = join(projectRoot, dir, "tsconfig.json");
      const loaded = readText(abs) !== null ? loadTsconfig(abs, 0) : null;
      const outDir = loaded?.outDir !== undefined ? toRel(loaded.outDir) : null;
      const rootDir = loaded?.rootDir !== undefined ? toRel(loaded.rootDir) : null;
      const mapped = outDir !== null && rootDir !== null && outDir !== ".." && rootDir !== ".." && outDir !== rootDir;
      outputs.set(dir, mapped ? { outDir, rootDir } : null);
    }
    const map = outputs.get(dir);
    if (!map || !target.startsWith(`${map.outDir}/`)) return null;
    const source = `${map.rootDir}/${target.slice(map.outDir.length + 1)}`;
    // A declaration file stands for its source module: `x.d.ts` → `x.ts`.
    return lookup(source.endsWith(".d.ts") ? `${source.slice(0, -".d.ts".length)}.ts` : source);
  };

  return { configFor, viaTsconfig, sourceOf };
}
