// npm/yarn/pnpm workspace packages: their names mapped to their real directories (package.json
// `workspaces`, pnpm-workspace.yaml `packages`, `!` patterns leaving directories out), and a
// specifier naming one resolved to its file — a subpath, or the package's entry (`exports`,
// `source`, `module`, `main`, `types`), build output mapped back to its sources.
import { join, posix } from "node:path";
import { parseYaml } from "../base/formats.js";
import type { ConfigReader } from "./config-files.js";
import type { FileLookup, TsconfigResolver } from "./tsconfig.js";

export interface WorkspaceResolver {
  /** Workspace package name → its project-relative directory, in declaration order. */
  readonly packages: ReadonlyMap<string, string>;
  /** The project file a specifier naming a workspace package (or a path inside one) resolves to, or null. */
  viaWorkspace(specifier: string): string | null;
  /** The file the entry of the package in project-relative `dir` ("" for the root) resolves to, or null. */
  entryOf(dir: string): string | null;
}

/** The strings of a `workspaces`/`packages` list. */
function stringsOf(list: unknown): string[] {
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : [];
}

/** The workspace patterns the root package.json and pnpm-workspace.yaml declare, in that order. */
function workspacePatterns(projectRoot: string, reader: ConfigReader): string[] {
  const patterns: string[] = [];
  const ws = reader.readJson(join(projectRoot, "package.json"))?.workspaces;
  if (Array.isArray(ws)) patterns.push(...stringsOf(ws));
  else if (ws && typeof ws === "object" && Array.isArray((ws as { packages?: unknown }).packages)) {
    patterns.push(...stringsOf((ws as { packages: unknown[] }).packages));
  }
  const pnpm = reader.readText(join(projectRoot, "pnpm-workspace.yaml"));
  if (pnpm !== null) {
    let doc: unknown = null;
    try {
      doc = parseYaml(pnpm);
    } catch {
      // A workspace file YAML cannot read declares no packages (pnpm refuses it too).
    }
    const listed = doc !== null && typeof doc === "object" ? (doc as { packages?: unknown }).packages : undefined;
    if (Array.isArray(listed)) patterns.push(...stringsOf(listed));
  }
  return patterns;
}

/** A workspace pattern as a regular expression over project-relative directories (`*` one segment, `**` any). */
function globOf(pattern: string): RegExp {
  const p = pattern.replace(/^\.\//, "").replace(/\/+$/, "");
  const segments = p.split("/").map((seg) => (seg === "**" ? ".*" : seg.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")));
  return new RegExp(`^${segments.join("/")}$`);
}

/** Each workspace package's name → its directory: the first directory a pattern matches that names it. */
function findWorkspaces(files: ReadonlySet<string>, projectRoot: string, reader: ConfigReader): Map<string, string> {
  const workspaces = new Map<string, string>();
  const patterns = workspacePatterns(projectRoot, reader);
  if (!patterns.length) return workspaces;
  const dirs = new Set<string>();
  for (const f of files) for (let d = posix.dirname(f); d !== "." && d !== ""; d = posix.dirname(d)) dirs.add(d);
  // A `!` pattern leaves out the directories it matches, whichever patterns list them (npm's and pnpm's workspaces alike).
  const excluded = patterns.filter((p) => p.startsWith("!")).map((p) => globOf(p.slice(1)));
  for (const pattern of patterns.filter((p) => !p.startsWith("!"))) {
    const re = globOf(pattern);
    for (const d of dirs) {
      if (!re.test(d) || excluded.some((x) => x.test(d))) continue;
      const name = reader.readJson(join(projectRoot, d, "package.json"))?.name;
      if (typeof name === "string" && !workspaces.has(name)) workspaces.set(name, d);
    }
  }
  return workspaces;
}

/** The entry `exports` gives a package's root (`"."`: its `import`, else `default`, else `types`), if a string. */
function exportsEntry(exp: unknown): unknown {
  const dot = typeof exp === "string" ? exp : exp && typeof exp === "object" ? (exp as Record<string, unknown>)["."] : undefined;
  if (typeof dot === "string") return dot;
  if (!dot || typeof dot !== "object") return undefined;
  const conditions = dot as Record<string, unknown>;
  return conditions.import ?? conditions.default ?? conditions.types;
}

export function createWorkspaceResolver(files: ReadonlySet<string>, projectRoot: string, reader: ConfigReader, lookup: FileLookup, sourceOf: TsconfigResolver["sourceOf"]): WorkspaceResolver {
  const workspaces = findWorkspaces(files, projectRoot, reader);
  /** A package path: as written, else its source when it names the package's build output. */
  const inPackage = (dir: string, target: string): string | null => lookup(target) ?? sourceOf(dir, target);
  /** A package's root: its entry's file, else `src/index` or `index`. */
  const packageEntry = (dir: string): string | null => {
    const pkg = reader.readJson(join(projectRoot, dir, "package.json")) ?? {};
    for (const field of [exportsEntry(pkg.exports), pkg.source, pkg.module, pkg.main, pkg.types, pkg.typings]) {
      if (typeof field !== "string") continue;
      const found = inPackage(dir, posix.normalize(posix.join(dir, field)));
      if (found) return found;
    }
    return lookup(posix.join(dir, "src", "index")) ?? lookup(posix.join(dir, "index"));
  };
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
    if (name === null) return null;
    const dir = workspaces.get(name)!;
    const sub = specifier.slice(name.length + 1);
    if (sub) return inPackage(dir, posix.join(dir, sub)) ?? lookup(posix.join(dir, "src", sub));
    return packageEntry(dir);
  };
  return { packages: workspaces, viaWorkspace, entryOf: packageEntry };
}
