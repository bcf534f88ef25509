// Where a structural build reads and writes (mantis-structural-index.md, Step 0, and the
// supplement's layout): the code root and snapshot id from the locator flags, SNAPSHOT_ROOT, the
// state root's workspace/.mantis_state.json `active_snapshot`, else the current project in
// MODE-OFF (`snapshot_id: "unknown"`); whether the snapshot is pinned (its sentinel names it);
// and every path under the state root. Nothing here writes.
import { existsSync, realpathSync, statSync } from "node:fs";
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

/** `active_snapshot` as a string (the id) or `{snapshot_id, code_root | snapshot_root}`. */
function activeSnapshot(layout: StructuralLayout): { id: string | null; root: string | null } {
  const state = readJsonObjectFile(layout.mantisState);
  const active = state?.active_snapshot;
  if (typeof active === "string" && active.trim() !== "") return { id: active, root: null };
  if (active && typeof active === "object" && !Array.isArray(active)) {
    const a = active as Record<string, unknown>;
    const id = typeof a.snapshot_id === "string" && a.snapshot_id.trim() !== "" ? a.snapshot_id : null;
    const root = typeof a.code_root === "string" ? a.code_root : typeof a.snapshot_root === "string" ? a.snapshot_root : null;
    return { id, root };
  }
  return { id: null, root: null };
}

/** The snapshot id a code root's sentinel declares, or null. */
export function sentinelSnapshot(codeRoot: string): string | null {
  const sentinel = readJsonObjectFile(join(codeRoot, SNAPSHOT_SENTINEL));
  const id = sentinel?.snapshot_id;
  return typeof id === "string" && id.trim() !== "" ? id : null;
}

/**
 * Resolves the locators. `defaultStateRoot(codeRoot)` names the state root when no flag does: the
 * project's mast state dir, the one place inside an unpinned code root a state root may be (it is
 * never walked); a pinned code root is never written under.
 */
export function locate(flags: Locators, cwd: string, defaultStateRoot: (codeRoot: string) => string): Located {
  const flagState = flags.stateRoot !== undefined && flags.stateRoot.trim() !== "" ? resolve(flags.stateRoot) : null;
  const fromState = flagState ? activeSnapshot(structuralLayout(flagState)) : { id: null, root: null };
  const envRoot = process.env.SNAPSHOT_ROOT?.trim() ? process.env.SNAPSHOT_ROOT : undefined;
  const rootFlag = flags.targetRoot ?? flags.snapshotRoot ?? envRoot ?? fromState.root ?? null;
  const codeRoot = directory(rootFlag ?? cwd, rootFlag === null ? "the current directory" : "the code root");
  const stateRoot = flagState ?? defaultStateRoot(codeRoot);
  const sentinel = sentinelSnapshot(codeRoot);
  const snapshotId = flags.snapshotId?.trim() || fromState.id || sentinel || UNKNOWN_SNAPSHOT;
  const pinned = snapshotId !== UNKNOWN_SNAPSHOT && sentinel === snapshotId;
  const mode = snapshotId === UNKNOWN_SNAPSHOT ? "mode-off" : pinned ? "pinned" : "halt";
  const defaultRoot = defaultStateRoot(codeRoot);
  if (isWithin(stateRoot, codeRoot) && (pinned || !isWithin(stateRoot, defaultRoot))) {
    throw new MastError("INVALID_ARGUMENT", `the state root ${stateRoot} is inside the code root ${codeRoot}`, {
      hint: pinned ? "A pinned snapshot is never written under: pass a --state_root outside it." : `Pass a --state_root outside the code root (or leave it out: the default is the project's state dir, ${defaultRoot}).`,
    });
  }
  return { codeRoot, snapshotId, pinned, mode, layout: structuralLayout(stateRoot) };
}

/** `child` is `parent` or below it. */
export function isWithin(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel));
}
