// The snapshot store behind `changesets` and `undo` (hashpilot contract, "Atomic writes and
// undo"): before any write, the file's original bytes go to a content-addressed blob store and
// the write is recorded in its invocation's changeSet manifest (path, bytes before, bytes after).
// Undo restores a changeSet only when every file still holds what the changeSet wrote (or with
// --force), deletes files it created, and is not itself recorded. Old changeSets are pruned by
// count and age, and blobs no manifest names go with them.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../base/hash.js";
import { MastError, errorMessage } from "../base/errors.js";
import { writeAtomic } from "../base/atomic.js";
import { hashpilotHome } from "./writer.js";

/** ChangeSets kept at most, and their longest life. */
export const RETAIN_CHANGESETS = 200;
export const RETAIN_DAYS = 30;

export interface FileChange {
  readonly path: string;
  /** sha256 of the bytes before the write; null when the write created the file. */
  readonly before: string | null;
  /** sha256 of the bytes written. */
  readonly after: string;
}

export interface ChangeSetRecord {
  readonly changeSetId: string;
  readonly timestamp: string;
  readonly command: string;
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
  ) {}

  /** Stores the original bytes and records the write; call before writing `after` to `path`. */
  recordWrite(path: string, before: Uint8Array | null, after: Uint8Array): void {
    try {
      mkdirSync(blobsDir(), { recursive: true });
      mkdirSync(changeSetsDir(), { recursive: true });
      if (this.record === null) {
        // Pruned before this changeSet stores anything, so its own blobs are never taken for unnamed ones.
        prune();
        this.record = { changeSetId: this.id, timestamp: new Date().toISOString(), command: this.command, files: [] };
      }
      const beforeHash = before === null ? null : storeBlob(before);
      const afterHash = storeBlob(after);
      this.record.files.push({ path, before: beforeHash, after: afterHash });
      saveRecord(this.record);
    } catch (err) {
      throw new MastError("WRITE_FAILED", `cannot snapshot ${path} before writing it (${storeDir()}): ${errorMessage(err)}; nothing was written`);
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
  if (!existsSync(path)) writeAtomic(path, bytes);
  return hash;
}

function saveRecord(record: ChangeSetRecord): void {
  writeAtomic(join(changeSetsDir(), `${record.changeSetId}.json`), Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
}

/** Every recorded changeSet, newest first; unreadable manifests are skipped. */
export function listChangeSets(): ChangeSetRecord[] {
  let names: string[];
  try {
    names = readdirSync(changeSetsDir());
  } catch {
    return [];
  }
  const out: ChangeSetRecord[] = [];
  for (const name of names.filter((n) => n.endsWith(".json")).sort().reverse()) {
    try {
      out.push(JSON.parse(readFileSync(join(changeSetsDir(), name), "utf8")) as ChangeSetRecord);
    } catch {
      // a manifest torn by a crash, or not ours: not listed
    }
  }
  return out;
}

function loadChangeSet(id: string): ChangeSetRecord {
  if (!ID.test(id)) throw new MastError("INVALID_ARGUMENT", `${JSON.stringify(id)} is not a changeSet id`, { hint: "List them with `hashpilot changesets`." });
  const found = listChangeSets().find((c) => c.changeSetId === id);
  if (!found) throw new MastError("INVALID_ARGUMENT", `no changeSet ${id} (it may have been pruned)`, { hint: "List them with `hashpilot changesets`." });
  return found;
}

/** Keeps the newest RETAIN_CHANGESETS - 1 changeSets younger than RETAIN_DAYS (room for the new one), and the blobs they name. */
function prune(): void {
  const all = listChangeSets();
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
 * What undoing a changeSet means, per file: the bytes before its first write. Without `force`, a
 * file that no longer holds what the changeSet last wrote fails the whole undo (HASH_MISMATCH):
 * nothing is restored.
 */
export function planUndo(idOrLast: string | "last", force: boolean): UndoPlan {
  const record = idOrLast === "last" ? listChangeSets().find((c) => !c.undoneAt) : loadChangeSet(idOrLast);
  if (!record) throw new MastError("INVALID_ARGUMENT", "there is no changeSet to undo", { hint: "List them with `hashpilot changesets`." });
  if (record.undoneAt) throw new MastError("INVALID_ARGUMENT", `changeSet ${record.changeSetId} was already undone at ${record.undoneAt}`);
  const byPath = new Map<string, { before: string | null; after: string }>();
  for (const f of record.files) {
    const seen = byPath.get(f.path);
    byPath.set(f.path, { before: seen ? seen.before : f.before, after: f.after });
  }
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
  const steps = checked.map((c): UndoStep => ({
    path: c.path,
    bytes: c.change.before === null ? null : readBlob(c.change.before),
    expect: force ? null : c.change.after,
    report: { path: c.path, action: c.change.before === null ? "deleted" : "restored", ...(c.changed ? { reason: `forced: ${c.reason}` } : {}) },
  }));
  return { record, steps };
}

/** Records that a changeSet was undone (an undo is not itself a changeSet). */
export function markUndone(record: ChangeSetRecord): void {
  record.undoneAt = new Date().toISOString();
  saveRecord(record);
}

/** sha256 of a file's bytes; null when it is not a readable file. */
export function currentHash(path: string): string | null {
  try {
    return existsSync(path) && statSync(path).isFile() ? sha256(readFileSync(path)) : null;
  } catch {
    return null;
  }
}

function readBlob(hash: string): Uint8Array {
  try {
    return readFileSync(join(blobsDir(), hash));
  } catch (err) {
    throw new MastError("READ_FAILED", `the snapshot ${hash} is missing from ${blobsDir()}: ${errorMessage(err)}`);
  }
}
