// Where a structural build reads and writes (docs/structural.md#locating-the-code-and-the-snapshot and
// docs/structural.md#layout): the code root and snapshot id from the locator flags, SNAPSHOT_ROOT, the
// state root's workspace/.mantis_state.json `active_snapshot`, else the current project in
// MODE-OFF (`snapshot_id: "unknown"`); whether the snapshot is pinned (its sentinel names it);
// and every path under the state root. Nothing here writes.
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { MastError } from "../base/errors.js";
import { readJsonObjectFile } from "../base/json.js";

/** The file at a pinned snapshot's root that says which snapshot the tree is: `{"snapshot_id": "..."}`. */
export const SNAPSHOT_SENTINEL = ".mantis_snapshot.json";
export const UNKNOWN_SNAPSHOT = "unknown";

export interface StructuralLayout {
  readonly stateRoot: string;
  readonly workspace: string;
  readonly mantisState: string;
  readonly dir: string;
  readonly manifest: string;
  readonly catalog: string;
  readonly units: string;
  readonly shards: string;
  readonly native: string;
  readonly tmp: string;
  readonly jsonl: string;
  readonly helpers: string;
  readonly queryHelper: string;
  /** The mast index a build keeps for a code root that is not the state root's own project. */
  readonly index: string;
}

export function structuralLayout(stateRoot: string): StructuralLayout {
  const workspace = join(stateRoot, "workspace");
  const kb = join(workspace, "kb");
  const dir = join(kb, "structural_index");
  const helpers = join(workspace, "helpers");
  return {
    stateRoot,
    workspace,
    mantisState: join(workspace, ".mantis_state.json"),
    dir,
    manifest: join(dir, "manifest.json"),
    catalog: join(dir, "catalog.sqlite"),
    units: join(dir, "units"),
    shards: join(dir, "shards"),
    native: join(dir, "native"),
    tmp: join(dir, "tmp"),
    jsonl: join(kb, "structural_index.jsonl"),
    helpers,
    queryHelper: join(helpers, "query_structural_index.py"),
    index: join(workspace, "mast"),
  };
}

/** The layout whose manifest is at `manifestPath` (…/workspace/kb/structural_index/manifest.json). */
export function layoutOfManifest(manifestPath: string): StructuralLayout {
  return structuralLayout(dirname(dirname(dirname(dirname(resolve(manifestPath))))));
}

export interface Locators {
  readonly targetRoot?: string | undefined;
  readonly snapshotRoot?: string | undefined;
  readonly snapshotId?: string | undefined;
  readonly stateRoot?: string | undefined;
}

export interface Located {
  readonly codeRoot: string;
  readonly snapshotId: string;
  /** The code root's sentinel names the snapshot id: the bytes are the snapshot's. */
  readonly pinned: boolean;
  /** `pinned`; `halt`: a snapshot id without a matching sentinel (the index is marked stale); `mode-off`: no snapshot id. */
  readonly mode: "pinned" | "halt" | "mode-off";
  readonly layout: StructuralLayout;
}

function directory(path: string, what: string): string {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new MastError("FILE_NOT_FOUND", `${what} does not exist: ${abs}`);
  if (!statSync(abs).isDirectory()) throw new MastError("NOT_A_DIRECTORY", `${what} is not a directory: ${abs}`);
  return realpathSync(abs);
}

/**
 * `.mantis_state.json`'s `active_snapshot` — a string (the id) or `{snapshot_id, code_root |
 * snapshot_root, snapshot_pinned}` — and `snapshot_pinned` (there or at the top level): the
 * orchestrator's word that the tree is the snapshot's bytes.
 */
function activeSnapshot(layout: StructuralLayout): { id: string | null; root: string | null; pinned: boolean } {
  const state = readJsonObjectFile(layout.mantisState);
  const active = state?.active_snapshot;
  const topPinned = state?.snapshot_pinned === true;
  if (typeof active === "string" && active.trim() !== "") return { id: active, root: null, pinned: topPinned };
  if (active && typeof active === "object" && !Array.isArray(active)) {
    const a = active as Record<string, unknown>;
    const id = typeof a.snapshot_id === "string" && a.snapshot_id.trim() !== "" ? a.snapshot_id : null;
    const root = typeof a.code_root === "string" ? a.code_root : typeof a.snapshot_root === "string" ? a.snapshot_root : null;
    return { id, root, pinned: topPinned || a.snapshot_pinned === true || a.pinned === true };
  }
  return { id: null, root: null, pinned: false };
}

/** A path resolved through symlinks as far as it exists (a state root may not exist yet). */
function canonical(path: string): string {
  const abs = resolve(path);
  for (let dir = abs, rest = ""; ; ) {
    if (existsSync(dir)) return rest === "" ? realpathSync(dir) : join(realpathSync(dir), rest);
    const parent = dirname(dir);
    if (parent === dir) return abs;
    rest = rest === "" ? relative(parent, dir) : join(relative(parent, dir), rest);
    dir = parent;
  }
}

/** The snapshot id a code root's sentinel declares, or null. */
export function sentinelSnapshot(codeRoot: string): string | null {
  const sentinel = readJsonObjectFile(join(codeRoot, SNAPSHOT_SENTINEL));
  const id = sentinel?.snapshot_id;
  return typeof id === "string" && id.trim() !== "" ? id : null;
}

/**
 * Resolves the locators. `defaultStateRoot(codeRoot)` names the state root when no flag does: the
 * project's mast state dir. The state root's `.mantis_state.json` (the flag's, else the default's)
 * may name the active snapshot and its tree. A snapshot is pinned when the orchestrator says so
 * there (`snapshot_pinned`) or the tree's sentinel names its id. With a snapshot id the code root
 * is never written under; in MODE-OFF only the project's own state dir may be inside it (it is never
 * walked). Paths are compared through symlinks.
 */
export function locate(flags: Locators, cwd: string, defaultStateRoot: (codeRoot: string) => string): Located {
  const flagState = flags.stateRoot !== undefined && flags.stateRoot.trim() !== "" ? canonical(flags.stateRoot) : null;
  const envRoot = process.env.SNAPSHOT_ROOT?.trim() ? process.env.SNAPSHOT_ROOT : undefined;
  const explicitRoot = flags.targetRoot ?? flags.snapshotRoot ?? envRoot ?? null;
  const provisional = explicitRoot === null ? null : directory(explicitRoot, "the code root");
  const fromState = activeSnapshot(structuralLayout(flagState ?? defaultStateRoot(provisional ?? directory(cwd, "the current directory"))));
  const rootFlag = explicitRoot ?? fromState.root;
  const codeRoot = provisional ?? directory(rootFlag ?? cwd, rootFlag === null ? "the current directory" : "the code root");
  const defaultRoot = canonical(defaultStateRoot(codeRoot));
  const stateRoot = flagState ?? defaultRoot;
  const sentinel = sentinelSnapshot(codeRoot);
  const snapshotId = flags.snapshotId?.trim() || fromState.id || sentinel || UNKNOWN_SNAPSHOT;
  const pinned = snapshotId !== UNKNOWN_SNAPSHOT && (sentinel === snapshotId || (fromState.pinned && fromState.id === snapshotId));
  const mode = snapshotId === UNKNOWN_SNAPSHOT ? "mode-off" : pinned ? "pinned" : "halt";
  if (isWithin(stateRoot, codeRoot) && (mode !== "mode-off" || !isWithin(stateRoot, defaultRoot))) {
    throw new MastError("INVALID_ARGUMENT", `the state root ${stateRoot} is inside the code root ${codeRoot}`, {
      hint:
        mode !== "mode-off"
          ? "A snapshot's tree is never written under: pass a --state_root outside it."
          : `Pass a --state_root outside the code root (or leave it out: the default is the project's state dir, ${defaultRoot}).`,
    });
  }
  if (flagState === null) refuseSymlinks(structuralLayout(stateRoot).workspace);
  return { codeRoot, snapshotId, pinned, mode, layout: structuralLayout(stateRoot) };
}

/**
 * The default state root is the project's own state dir, which a cloned project may have
 * committed: a symlink anywhere in its workspace (`workspace/kb -> /elsewhere`) would carry the
 * build's writes out of it, so one is refused (STATE_DIR_UNSAFE) before anything is written.
 */
function refuseSymlinks(workspace: string): void {
  if (!lstatSync(workspace, { throwIfNoEntry: false })?.isDirectory()) {
    if (lstatSync(workspace, { throwIfNoEntry: false }) === undefined) return;
    throw new MastError("STATE_DIR_UNSAFE", `${workspace} is not a plain directory; nothing was written`, { details: { path: workspace } });
  }
  const link = readdirSync(workspace, { withFileTypes: true, recursive: true }).find((e) => e.isSymbolicLink());
  if (link) {
    const path = join(link.parentPath, link.name);
    throw new MastError("STATE_DIR_UNSAFE", `the structural workspace holds the symlink ${path}; nothing was written`, { details: { path } });
  }
}

/** `child` is `parent` or below it. */
export function isWithin(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel));
}
