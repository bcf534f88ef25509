// The snapshot store behind `changesets` and `undo` (docs/editing.md#atomic-writes-and-undo):
// before any write, the file's original bytes go to a content-addressed blob store and
// the write is recorded in its invocation's changeSet manifest (path, bytes before, bytes after).
// A write is recorded pending before the file is written and confirmed after, so a writer killed
// in between leaves no phantom. A changeSet belongs to the project it was made in; manifests and
// blobs are validated when read (a blob must hash to its name), never trusted. Undo restores a
// changeSet only when every file still holds what the changeSet wrote (or with --force), deletes
// files it created, and is not itself recorded. Old changeSets are pruned by count and age, and
// blobs no manifest names go with them. The store is owner-only (0700 directories, 0600 files).
import { readdirSync, rmSync, statSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import { sha256 } from "../base/hash.js";
import { MastError, errorMessage } from "../base/errors.js";
import { writeAtomic } from "../base/atomic.js";
import { readRegularFile } from "../base/read.js";
import { writablePath, type Boundary } from "./paths.js";
import { EDIT_MAX_FILE_BYTES, ensurePrivateDir, hashpilotHome } from "./writer.js";

/** ChangeSets kept at most, and their longest life. */
export const RETAIN_CHANGESETS = 200;
export const RETAIN_DAYS = 30;

export interface FileChange {
  readonly path: string;
  /** sha256 of the bytes before the write; null when the write created the file. */
  readonly before: string | null;
  /** sha256 of the bytes written. */
  readonly after: string;
  /** false while the write is pending (recorded, not yet confirmed on disk); absent in older manifests. */
  committed?: boolean;
}

export interface ChangeSetRecord {
  readonly changeSetId: string;
  readonly timestamp: string;
  readonly command: string;
  /** The real path of the project root the changeSet was made in. */
  readonly root: string;
  readonly files: FileChange[];
  /** Set when the changeSet was undone. */
  undoneAt?: string;
}

function storeDir(): string {
  return join(hashpilotHome(), "snapshots");
}
const blobsDir = () => join(storeDir(), "blobs");
const changeSetsDir = () => join(storeDir(), "changesets");
const ID = /^cs-\d{8}T\d{9}Z-[0-9a-f]{8}$/;

/** A new changeSet id: sortable by time (to the millisecond), unique per invocation. */
export function mintChangeSetId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:.]/g, "");
  return `cs-${stamp}-${sha256(`${process.pid}${now.getTime()}${Math.random()}`).slice(0, 8)}`;
}

/** One invocation's record of its writes; created lazily at the first write. */
export class ChangeSet {
  private record: ChangeSetRecord | null = null;
  constructor(
    readonly id: string,
    private readonly command: string,
    /** The real path of the project root. */
    private readonly root: string,
  ) {}

  /** Stores the original bytes and records the write as pending; call before writing `after` to `path`, and confirmLast() after. */
  recordWrite(path: string, before: Uint8Array | null, after: Uint8Array): void {
    try {
      ensurePrivateDir(blobsDir());
      ensurePrivateDir(changeSetsDir());
      if (this.record === null) {
        // Pruned before this changeSet stores anything, so its own blobs are never taken for unnamed ones.
        prune();
        this.record = { changeSetId: this.id, timestamp: new Date().toISOString(), command: this.command, root: this.root, files: [] };
      }
      const beforeHash = before === null ? null : storeBlob(before);
      const afterHash = storeBlob(after);
      this.record.files.push({ path, before: beforeHash, after: afterHash, committed: false });
      saveRecord(this.record);
    } catch (err) {
      throw new MastError("WRITE_FAILED", `cannot snapshot ${path} before writing it (${storeDir()}): ${errorMessage(err)}; nothing was written`);
    }
  }

  /** Confirms the last recorded write: the file now holds its bytes. */
  confirmLast(): void {
    const last = this.record?.files.at(-1);
    if (!last) return;
    last.committed = true;
    try {
      saveRecord(this.record!);
    } catch {
      // Left pending: a pending write whose file holds its bytes still counts (see effectiveFiles).
    }
  }

  /** Takes back the last recorded write, whose file write failed: undo must not expect it. */
  forgetLast(): void {
    if (this.record === null) return;
    this.record.files.pop();
    if (this.record.files.length > 0) saveRecord(this.record);
    else {
      rmSync(join(changeSetsDir(), `${this.record.changeSetId}.json`), { force: true });
      this.record = null;
    }
  }
}

function storeBlob(bytes: Uint8Array): string {
  const hash = sha256(bytes);
  const path = join(blobsDir(), hash);
  if (statSync(path, { throwIfNoEntry: false }) === undefined) writeAtomic(path, bytes, { mode: 0o600 });
  return hash;
}

function saveRecord(record: ChangeSetRecord): void {
  writeAtomic(join(changeSetsDir(), `${record.changeSetId}.json`), Buffer.from(`${JSON.stringify(record, null, 2)}\n`), { mode: 0o600 });
}

const HEX64 = /^[0-9a-f]{64}$/;
/** The largest manifest read (a changeSet of thousands of files stays far below it). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** A manifest's record when it is one (right shape, named after its id); null otherwise. */
function validRecord(value: unknown, fileName: string): ChangeSetRecord | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const r = value as Record<string, unknown>;
  const absolute = (p: unknown) => typeof p === "string" && isAbsolute(p) && !p.includes("\0") && p.length <= 4096;
  if (typeof r.changeSetId !== "string" || !ID.test(r.changeSetId) || `${r.changeSetId}.json` !== fileName) return null;
  if (typeof r.timestamp !== "string" || Number.isNaN(Date.parse(r.timestamp)) || typeof r.command !== "string" || !absolute(r.root)) return null;
  if (r.undoneAt !== undefined && typeof r.undoneAt !== "string") return null;
  if (!Array.isArray(r.files) || r.files.length > 100_000) return null;
  for (const f of r.files as unknown[]) {
    if (f === null || typeof f !== "object") return null;
    const c = f as Record<string, unknown>;
    if (!absolute(c.path) || !(c.before === null || (typeof c.before === "string" && HEX64.test(c.before))) || typeof c.after !== "string" || !HEX64.test(c.after)) return null;
    if (c.committed !== undefined && typeof c.committed !== "boolean") return null;
  }
  return value as ChangeSetRecord;
}

/** A manifest as read: its record, or "invalid" (torn by a crash, or not ours). */
function readManifest(name: string): ChangeSetRecord | "invalid" {
  const r = readRegularFile(join(changeSetsDir(), name), { maxBytes: MAX_MANIFEST_BYTES, noFollow: true });
  if (r.kind !== "read") return "invalid";
  try {
    return validRecord(JSON.parse(r.bytes.toString("utf8")), name) ?? "invalid";
  } catch {
    return "invalid";
  }
}

/**
 * The writes of a changeSet that happened: confirmed ones, and pending ones whose file holds the
 * bytes they wrote (the writer was killed after writing, before confirming). A pending write
 * whose file does not hold them never happened.
 */
function effectiveFiles(record: ChangeSetRecord): FileChange[] {
  return record.files.filter((f) => f.committed !== false || currentHash(f.path) === f.after);
}

/** Every valid manifest as written, newest first (pending writes included). */
function manifests(): ChangeSetRecord[] {
  let names: string[];
  try {
    names = readdirSync(changeSetsDir());
  } catch {
    return [];
  }
  const out: ChangeSetRecord[] = [];
  for (const name of names
    .filter((n) => n.endsWith(".json") && ID.test(n.slice(0, -5)))
    .sort()
    .reverse()) {
    const record = readManifest(name);
    if (record !== "invalid") out.push(record);
  }
  return out;
}

/**
 * The changeSets made in the project whose real root is `root`, newest first, each with its
 * writes as they happened; a changeSet none of whose writes happened (its writer was killed
 * first) is not listed.
 */
export function listChangeSets(root: string): ChangeSetRecord[] {
  return manifests()
    .filter((c) => c.root === root)
    .map((c) => ({ ...c, files: effectiveFiles(c) }))
    .filter((c) => c.files.length > 0);
}

function loadChangeSet(id: string, root: string): ChangeSetRecord {
  if (!ID.test(id)) throw new MastError("INVALID_ARGUMENT", `${JSON.stringify(id)} is not a changeSet id`, { hint: "List them with `hashpilot changesets`." });
  const missing = () => new MastError("INVALID_ARGUMENT", `no changeSet ${id} in this project (it may have been pruned)`, { hint: "List them with `hashpilot changesets`." });
  const record = readManifest(`${id}.json`);
  if (record === "invalid") {
    if (statSync(join(changeSetsDir(), `${id}.json`), { throwIfNoEntry: false }) === undefined) throw missing();
    throw new MastError("SNAPSHOT_INVALID", `the manifest of changeSet ${id} fails validation; it is not trusted and nothing was restored`);
  }
  // Another project's changeSet is not undone from here: it is as good as absent.
  if (record.root !== root) throw missing();
  const files = effectiveFiles(record);
  if (files.length === 0) throw missing();
  return { ...record, files };
}

/** Keeps the newest RETAIN_CHANGESETS - 1 changeSets younger than RETAIN_DAYS (room for the new one), and the blobs they name. */
function prune(): void {
  const all = manifests();
  const cutoff = Date.now() - RETAIN_DAYS * 86_400_000;
  const keep = all.filter((c, i) => i < RETAIN_CHANGESETS - 1 && Date.parse(c.timestamp) >= cutoff);
  if (keep.length === all.length) return;
  for (const c of all) if (!keep.includes(c)) rmSync(join(changeSetsDir(), `${c.changeSetId}.json`), { force: true });
  const named = new Set(keep.flatMap((c) => c.files.flatMap((f) => [f.before, f.after])));
  // A blob stored in the last hour may belong to a concurrent invocation whose manifest is not written yet.
  const settled = Date.now() - 3_600_000;
  for (const blob of readdirSync(blobsDir())) {
    const path = join(blobsDir(), blob);
    if (!named.has(blob) && (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < settled) rmSync(path, { force: true });
  }
}

export interface UndoFile {
  path: string;
  action: "restored" | "deleted" | "skipped";
  reason?: string;
}

export interface UndoStep {
  readonly path: string;
  /** The bytes to put back; null deletes the file (the changeSet created it). */
  readonly bytes: Uint8Array | null;
  /** sha256 the file must still have (what the changeSet wrote); null when forced. */
  readonly expect: string | null;
  readonly report: UndoFile;
}

export interface UndoPlan {
  readonly record: ChangeSetRecord;
  readonly steps: UndoStep[];
}

/**
 * What undoing a changeSet of this project means, per file: the bytes before its first write.
 * Every path passes the write boundary again, as it is now (PATH_DENIED for a path that left the
 * project or became a symlink since). Without `force`, a file that no longer holds what the
 * changeSet last wrote fails the whole undo (HASH_MISMATCH): nothing is restored.
 */
export function planUndo(idOrLast: string | "last", force: boolean, boundary: Boundary): UndoPlan {
  const record = idOrLast === "last" ? listChangeSets(boundary.realRoot).find((c) => !c.undoneAt) : loadChangeSet(idOrLast, boundary.realRoot);
  if (!record) throw new MastError("INVALID_ARGUMENT", "there is no changeSet of this project to undo", { hint: "List them with `hashpilot changesets`." });
  if (record.undoneAt) throw new MastError("INVALID_ARGUMENT", `changeSet ${record.changeSetId} was already undone at ${record.undoneAt}`);
  const byPath = new Map<string, { before: string | null; after: string }>();
  for (const f of record.files) {
    const seen = byPath.get(f.path);
    byPath.set(f.path, { before: seen ? seen.before : f.before, after: f.after });
  }
  checkRestorable([...byPath.keys()], boundary);
  const checked = [...byPath].map(([path, change]) => {
    const current = currentHash(path);
    return { path, change, changed: current !== change.after, reason: current === null ? "the file is gone" : "the file changed after the edit" };
  });
  const conflicts = checked.filter((c) => c.changed);
  if (conflicts.length > 0 && !force) {
    const files: UndoFile[] = checked.map((c) => ({ path: c.path, action: "skipped", reason: c.changed ? c.reason : "not restored: another file of the changeSet changed" }));
    throw new MastError("HASH_MISMATCH", `${conflicts.length} file(s) changed after changeSet ${record.changeSetId}: ${conflicts.map((c) => c.path).join(", ")}; nothing was restored`, {
      details: { changeSetId: record.changeSetId, files },
    });
  }
  const steps = checked.map(
    (c): UndoStep => ({
      path: c.path,
      bytes: c.change.before === null ? null : readBlob(c.change.before),
      expect: force ? null : c.change.after,
      report: { path: c.path, action: c.change.before === null ? "deleted" : "restored", ...(c.changed ? { reason: `forced: ${c.reason}` } : {}) },
    }),
  );
  return { record, steps };
}

/**
 * Every path an undo writes passes the write boundary as it is now: PATH_DENIED for one that left
 * the project or whose real path is no longer the recorded one (a symlink took its place).
 * planUndo checks before planning; undo checks again inside the files' locks.
 */
export function checkRestorable(paths: readonly string[], boundary: Boundary): void {
  for (const path of paths) {
    const now = writablePath(path, boundary, boundary.root);
    if (now !== path) throw new MastError("PATH_DENIED", `${path} now resolves to ${now} (a symlink took its place); nothing was restored`, { details: { path } });
  }
}

/** Records that a changeSet was undone (an undo is not itself a changeSet). */
export function markUndone(record: ChangeSetRecord): void {
  record.undoneAt = new Date().toISOString();
  saveRecord(record);
}

/** sha256 of a file's bytes; null when it is not a regular file that can be read. */
export function currentHash(path: string): string | null {
  const r = readRegularFile(path, { maxBytes: EDIT_MAX_FILE_BYTES, noFollow: true });
  return r.kind === "read" ? sha256(r.bytes) : null;
}

/** A blob's bytes, which must hash to its name (SNAPSHOT_INVALID otherwise: a blob is never trusted). */
export function readBlob(hash: string): Uint8Array {
  const path = join(blobsDir(), hash);
  const r = readRegularFile(path, { maxBytes: EDIT_MAX_FILE_BYTES, noFollow: true });
  if (r.kind === "missing") throw new MastError("READ_FAILED", `the snapshot ${hash} is missing from ${blobsDir()}; nothing was restored`);
  if (r.kind !== "read" || sha256(r.bytes) !== hash)
    throw new MastError("SNAPSHOT_INVALID", `the snapshot blob ${basename(path)} does not hold the bytes its name says; it is not trusted and nothing was restored`);
  return r.bytes;
}
