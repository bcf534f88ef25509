// Configuration resolution (docs/state-dir.md#configuration-resolution): the state directory first (flag/env, mast.config.json,
// default), then every other key by priority — CLI overrides, mast.config.json, the persisted
// <state_dir>/config.json (customisation keys only, never paths), built-in defaults. A cloned
// project is untrusted input: a state dir it names (or its default .mast) is refused unless it is
// a plain directory inside it; only the command line and the environment may put one elsewhere.
import { type Dirent, existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { relativeInside } from "../base/paths.js";
import { MastError, errorMessage } from "../base/errors.js";
import { DEFAULT_EXTENSIONS, SUPPORTED_EXTENSIONS } from "../lang/files.js";
import { readJsonObjectFile } from "../base/json.js";
import { DEFAULT_MAX_FILE_BYTES } from "../base/read.js";

export const PROJECT_CONFIG_FILE = "mast.config.json";
export const STATE_CONFIG_FILE = "config.json";

export interface MastSettings {
  readonly file_extensions: readonly string[];
  readonly exclude_patterns: readonly string[];
  readonly rrf_k: number;
  readonly declaration_exact_ranker: boolean;
  readonly chunk_split_threshold: number;
  readonly context_lines: number;
  readonly markdown_heading_depth: number;
  /** Honour .gitignore files and .git/info/exclude while walking (ripgrep-like). */
  readonly respect_gitignore: boolean;
  /** Per-file parse budget; a parse that runs longer is a counted parse error. */
  readonly parse_timeout_ms: number;
  /** Files larger than this are skipped and counted, never parsed. */
  readonly max_file_bytes: number;
  /** `mast index`, `mast init` and the server's startup reindex and mast_reindex run the TypeScript-checker pass (as with `--checker`). */
  readonly checker: boolean;
  /** Read tools' answers carry `_stats`, and `mast serve` records each call in <state_dir>/metrics.db (docs/telemetry.md); false turns both off. */
  readonly telemetry: boolean;
}

export interface ResolvedConfig extends MastSettings {
  /** Absolute, symlink-resolved project root. */
  readonly project_root: string;
  /** Absolute state directory. */
  readonly state_dir: string;
}

export interface ConfigOverrides {
  readonly stateDir?: string | undefined;
  readonly extensions?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
}

export const DEFAULT_SETTINGS: MastSettings = {
  file_extensions: [...DEFAULT_EXTENSIONS],
  exclude_patterns: ["**/node_modules/**", "**/dist/**", "**/build/**", "**/coverage/**", "**/.next/**", "**/.turbo/**", ".mast/**"],
  rrf_k: 60,
  declaration_exact_ranker: true,
  chunk_split_threshold: 100,
  context_lines: 3,
  markdown_heading_depth: 2,
  respect_gitignore: true,
  parse_timeout_ms: 10_000,
  max_file_bytes: DEFAULT_MAX_FILE_BYTES,
  checker: false,
  telemetry: true,
};

type Validator = (value: unknown) => string | null;

const isInt =
  (min: number, max: number): Validator =>
  (v) =>
    typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? null : `an integer from ${min} to ${max}`;
const isBool: Validator = (v) => (typeof v === "boolean" ? null : "true or false");
const isStringList: Validator = (v) => (Array.isArray(v) && v.every((x) => typeof x === "string") ? null : "an array of strings");

const VALIDATORS: Record<keyof MastSettings, Validator> = {
  file_extensions: (v) => isStringList(v) ?? unsupportedExtension(v as string[]),
  exclude_patterns: (v) => isStringList(v) ?? ((v as string[]).some((p) => p.startsWith("!")) ? "a list of globs to exclude; `!` re-includes are not supported (use .gitignore for those)" : null),
  rrf_k: isInt(1, 100_000),
  declaration_exact_ranker: isBool,
  chunk_split_threshold: isInt(20, 1_000_000),
  context_lines: isInt(0, 1_000),
  markdown_heading_depth: isInt(1, 6),
  respect_gitignore: isBool,
  parse_timeout_ms: isInt(1, 3_600_000),
  max_file_bytes: isInt(1, 2 ** 31 - 1),
  checker: isBool,
  telemetry: isBool,
};

function unsupportedExtension(list: string[]): string | null {
  const bad = normalizeExtensions(list).filter((e) => !SUPPORTED_EXTENSIONS.includes(e));
  return bad.length ? `a list of supported extensions (${SUPPORTED_EXTENSIONS.join(", ")}); not ${bad.join(", ")}` : null;
}

/** Comma-separated CLI list: trimmed, empty entries dropped. */
export function parseList(csv: string): string[] {
  return csv
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** `py` and `.py` both mean `.py`; duplicates are dropped, order kept. */
export function normalizeExtensions(list: readonly string[]): string[] {
  return [
    ...new Set(
      list
        .map((e) => e.trim())
        .filter((e) => e.length > 0)
        .map((e) => (e.startsWith(".") ? e : `.${e}`)),
    ),
  ];
}

/** The project root: the given directory (default: cwd), resolved through symlinks. */
export function resolveProjectRoot(path: string | undefined): string {
  const abs = resolve(path ?? ".");
  if (!existsSync(abs)) throw new MastError("FILE_NOT_FOUND", `project path does not exist: ${abs}`, { hint: "Name an existing directory (a relative path is taken from the current directory)." });
  if (!statSync(abs).isDirectory()) throw new MastError("NOT_A_DIRECTORY", `project path is not a directory: ${abs}`);
  return realpathSync(abs);
}

/**
 * The project a command in `path` (default: cwd) works on, found like git finds a repository:
 * the nearest of `path` and its ancestors holding a `.mast` directory or a mast.config.json;
 * `path` itself when none does. `mast init` does not walk (it makes `path` a project).
 */
export function findProjectRoot(path: string | undefined): string {
  const start = resolveProjectRoot(path);
  for (let dir = start; ; ) {
    if (isDirectory(join(dir, ".mast")) || existsSync(join(dir, PROJECT_CONFIG_FILE))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** docs/state-dir.md#which-state-directory: flag, then MAST_STATE_DIR, then mast.config.json's state_dir, then <root>/.mast. */
export function resolveStateDir(projectRoot: string, flag: string | undefined): string {
  if (flag !== undefined && flag.trim() !== "") return resolve(flag);
  const env = process.env.MAST_STATE_DIR;
  if (env !== undefined && env.trim() !== "") return resolve(env);
  const projectFile = join(projectRoot, PROJECT_CONFIG_FILE);
  const fromFile = readJsonObjectFile(projectFile)?.state_dir;
  if (fromFile !== undefined) {
    if (typeof fromFile !== "string" || fromFile.trim() === "") {
      throw new MastError("CONFIG_INVALID", `${projectFile}: state_dir must be a non-empty string`);
    }
    return checkProjectStateDir(projectRoot, resolve(projectRoot, fromFile), { source: `${projectFile}'s state_dir`, named: true });
  }
  return checkProjectStateDir(projectRoot, join(projectRoot, ".mast"), { source: "the default state dir", named: false });
}

/**
 * A state dir the project names is refused (STATE_DIR_UNSAFE) unless it lies strictly inside the
 * root, every existing component is a directory and no symlink, it holds no symlink (a committed
 * `.mast/graph.db -> /elsewhere` would be written through), and — named by mast.config.json and
 * not empty — it is one mast made (its structure.lock), never a source directory.
 */
function checkProjectStateDir(projectRoot: string, dir: string, by: { source: string; named: boolean }): string {
  const unsafe = (why: string) => new MastError("STATE_DIR_UNSAFE", `${by.source} ${dir} ${why}; nothing was written`, { details: { state_dir: dir, project_root: projectRoot } });
  const rel = relativeInside(projectRoot, dir);
  if (rel === "") throw unsafe("is the project root itself");
  if (rel === null) throw unsafe("is outside the project");
  let path = projectRoot;
  for (const part of rel.split("/")) {
    path = join(path, part);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st === undefined) return dir;
    if (st.isSymbolicLink()) throw unsafe(`is reached through the symlink ${path}`);
    if (!st.isDirectory()) throw unsafe(`is reached through ${path}, which is not a directory`);
  }
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw new MastError("STATE_DIR_INVALID", `cannot read the state dir ${dir}: ${errorMessage(err)}`);
  }
  const link = entries.find((e) => e.isSymbolicLink());
  if (link) throw unsafe(`holds the symlink ${link.name}`);
  if (by.named && entries.length > 0 && !entries.some((e) => e.name === "structure.lock")) throw unsafe("is a directory mast did not make (it has files and no structure.lock)");
  return dir;
}

/** Picks the known customisation keys out of a config object, validating each. */
function settingsFrom(source: string, obj: Record<string, unknown> | null, code: "CONFIG_INVALID" | "INVALID_ARGUMENT" = "CONFIG_INVALID"): Partial<MastSettings> {
  if (!obj) return {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(VALIDATORS) as Array<keyof MastSettings>) {
    if (!(key in obj) || obj[key] === undefined) continue;
    const problem = VALIDATORS[key](obj[key]);
    if (problem) throw new MastError(code, `${source}: ${key} must be ${problem}`);
    out[key] = key === "file_extensions" ? normalizeExtensions(obj[key] as string[]) : obj[key];
  }
  return out as Partial<MastSettings>;
}

/**
 * The persisted <state_dir>/config.json is derived state: when it is unreadable or holds values
 * this binary rejects, it is ignored (the next init or serve rewrites it) instead of blocking
 * every command, including the `mast init` that would repair it.
 */
function persistedSettings(stateFile: string): Partial<MastSettings> {
  try {
    return settingsFrom(stateFile, readJsonObjectFile(stateFile));
  } catch {
    return {};
  }
}

/** Resolves the full configuration for a project root (already resolved by resolveProjectRoot). */
export function resolveConfig(projectRoot: string, overrides: ConfigOverrides = {}): ResolvedConfig {
  const stateDir = resolveStateDir(projectRoot, overrides.stateDir);
  const projectFile = join(projectRoot, PROJECT_CONFIG_FILE);
  const stateFile = join(stateDir, STATE_CONFIG_FILE);
  const cli: Record<string, unknown> = {};
  if (overrides.extensions !== undefined) cli.file_extensions = normalizeExtensions(overrides.extensions);
  if (overrides.exclude !== undefined) cli.exclude_patterns = [...overrides.exclude];
  const settings: MastSettings = {
    ...DEFAULT_SETTINGS,
    ...persistedSettings(stateFile),
    ...settingsFrom(projectFile, readJsonObjectFile(projectFile)),
    ...settingsFrom("command line", cli, "INVALID_ARGUMENT"),
  };
  if (settings.file_extensions.length === 0) throw new MastError("INVALID_ARGUMENT", "no file extensions to index", { hint: `Pass some of: ${SUPPORTED_EXTENSIONS.join(",")}` });
  return { ...settings, project_root: projectRoot, state_dir: stateDir };
}

/** The object persisted to <state_dir>/config.json: the full resolved config (paths included, never read back). */
export function persistedConfig(config: ResolvedConfig): Record<string, unknown> {
  return {
    ...config,
    resolved_project_root: config.project_root,
    resolved_state_dir: config.state_dir,
  };
}
