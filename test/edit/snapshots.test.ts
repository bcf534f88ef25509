// The snapshot store in process, on a private HASHPILOT_HOME: a changeSet that created a file is
// undone by deleting it, several writes to one file undo to the bytes before the first, old
// changeSets are pruned by age together with the settled blobs only they named; changeSets are
// per project, a pending write that never happened is no changeSet, and a manifest or blob that
// fails validation is never trusted.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256 } from "../../src/base/hash.js";
import type { OpContext } from "../../src/edit/op-result.js";
import { undo } from "../../src/edit/operations.js";
import { projectBoundary } from "../../src/edit/paths.js";
import { ChangeSet, RETAIN_DAYS, listChangeSets, mintChangeSetId } from "../../src/edit/snapshots.js";
import { tempSpace } from "../helpers/project.js";

const space = tempSpace({});
let savedHome: string | undefined;
let home: string;

beforeEach(() => {
  savedHome = process.env.HASHPILOT_HOME;
  home = space.dir("hashpilot-home-");
  process.env.HASHPILOT_HOME = home;
});
afterEach(() => {
  if (savedHome === undefined) delete process.env.HASHPILOT_HOME;
  else process.env.HASHPILOT_HOME = savedHome;
});

/** What an edit does: record the write, write, confirm (`confirm: false` stops after recording, as a killed writer does). */
function edit(cs: ChangeSet, path: string, text: string, options: { write?: boolean; confirm?: boolean } = {}): void {
  const before = existsSync(path) ? readFileSync(path) : null;
  const after = Buffer.from(text);
  cs.recordWrite(path, before, after);
  if (options.write !== false) writeFileSync(path, after);
  if (options.confirm !== false && options.write !== false) cs.confirmLast();
}

/** A project dir (its real path) and an operations context on it. */
function projectOf(): { dir: string; ctx: OpContext; changeSet: (command?: string) => ChangeSet } {
  const dir = realpathSync(space.dir("hashpilot-files-"));
  const boundary = projectBoundary(dir);
  const changeSet = (command = "replace-hash") => new ChangeSet(mintChangeSetId(), command, dir);
  return { dir, ctx: { boundary, cwd: dir, changeSet: changeSet() }, changeSet };
}

describe("snapshots", () => {
  it("undoes a changeSet: files it created are deleted, a file written twice goes back to its first bytes", async () => {
    const { dir, ctx, changeSet } = projectOf();
    const kept = join(dir, "kept.ts");
    const created = join(dir, "created.ts");
    writeFileSync(kept, "original\n");
    const cs = changeSet("diff apply");
    edit(cs, kept, "first edit\n");
    edit(cs, kept, "second edit\n");
    edit(cs, created, "new file\n");
    const result = await undo(ctx, "last", { force: false, dryRun: false });
    expect(result.data.files).toEqual([
      { path: kept, action: "restored" },
      { path: created, action: "deleted" },
    ]);
    expect(readFileSync(kept, "utf8")).toBe("original\n");
    expect(existsSync(created)).toBe(false);
  });

  it("prunes changeSets older than the retention age, and the blobs no kept changeSet names", () => {
    const { dir, changeSet } = projectOf();
    const file = join(dir, "a.ts");
    writeFileSync(file, "v0\n");
    const old = new ChangeSet("cs-20200101T000000000Z-0000aaaa", "replace-hash", dir);
    edit(old, file, "v1\n");
    // Backdate the old manifest beyond the retention age.
    const manifest = join(home, "snapshots", "changesets", "cs-20200101T000000000Z-0000aaaa.json");
    const record = JSON.parse(readFileSync(manifest, "utf8"));
    record.timestamp = new Date(Date.now() - (RETAIN_DAYS + 1) * 86_400_000).toISOString();
    writeFileSync(manifest, JSON.stringify(record));
    const longAgo = new Date(Date.now() - (RETAIN_DAYS + 1) * 86_400_000);
    for (const blob of readdirSync(join(home, "snapshots", "blobs"))) utimesSync(join(home, "snapshots", "blobs", blob), longAgo, longAgo);
    const fresh = changeSet();
    edit(fresh, file, "v2\n");
    expect(listChangeSets(dir).map((c) => c.changeSetId)).toEqual([fresh.id]);
    // v0 was only the old changeSet's "before": gone. v1 (fresh's before) and v2 stay.
    expect(readdirSync(join(home, "snapshots", "blobs")).sort()).toEqual([sha256("v1\n"), sha256("v2\n")].sort());
  });

  it("a write recorded but never made (the writer killed in between) is no changeSet: undo --last takes the one before (#9 §5)", async () => {
    const { dir, ctx, changeSet } = projectOf();
    const file = join(dir, "a.ts");
    writeFileSync(file, "v0\n");
    const first = changeSet();
    edit(first, file, "v1\n");
    const phantom = changeSet();
    edit(phantom, file, "v2\n", { write: false });
    expect(listChangeSets(dir).map((c) => c.changeSetId)).toEqual([first.id]);
    const result = await undo(ctx, "last", { force: false, dryRun: false });
    expect(result.data.changeSetId).toBe(first.id);
    expect(readFileSync(file, "utf8")).toBe("v0\n");
    // Killed after the write but before the confirmation: the write happened and is undone.
    const written = changeSet();
    edit(written, file, "v3\n", { confirm: false });
    expect(listChangeSets(dir).map((c) => c.changeSetId)[0]).toBe(written.id);
    expect((await undo(ctx, "last", { force: false, dryRun: false })).data.changeSetId).toBe(written.id);
    expect(readFileSync(file, "utf8")).toBe("v0\n");
  });

  it("changeSets belong to their project: another project's are not listed and cannot be undone from here (#9 §2)", async () => {
    const a = projectOf();
    const b = projectOf();
    writeFileSync(join(b.dir, "b.ts"), "b0\n");
    const other = b.changeSet();
    edit(other, join(b.dir, "b.ts"), "b1\n");
    expect(listChangeSets(a.dir)).toEqual([]);
    await expect(undo(a.ctx, "last", { force: false, dryRun: false })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(undo(a.ctx, other.id, { force: true, dryRun: false })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(readFileSync(join(b.dir, "b.ts"), "utf8")).toBe("b1\n");
  });

  it("a manifest naming a path outside the project, or a blob that does not hold its name's bytes, is refused and nothing is written (#9 §2)", async () => {
    const { dir, ctx, changeSet } = projectOf();
    const outside = realpathSync(space.dir("hashpilot-outside-"));
    const victim = join(outside, "victim.txt");
    writeFileSync(victim, "keep\n");
    const forged = changeSet();
    const file = join(dir, "a.ts");
    writeFileSync(file, "v0\n");
    edit(forged, file, "v1\n");
    const manifest = join(home, "snapshots", "changesets", `${forged.id}.json`);
    const record = JSON.parse(readFileSync(manifest, "utf8"));
    record.files.push({ path: victim, before: sha256("v0\n"), after: sha256("keep\n"), committed: true });
    writeFileSync(manifest, JSON.stringify(record));
    await expect(undo(ctx, forged.id, { force: true, dryRun: false })).rejects.toMatchObject({ code: "PATH_DENIED" });
    expect([readFileSync(victim, "utf8"), readFileSync(file, "utf8")]).toEqual(["keep\n", "v1\n"]);
    // A tampered blob: its bytes no longer hash to its name.
    record.files.pop();
    writeFileSync(manifest, JSON.stringify(record));
    writeFileSync(join(home, "snapshots", "blobs", sha256("v0\n")), "tampered\n");
    await expect(undo(ctx, forged.id, { force: false, dryRun: false })).rejects.toMatchObject({ code: "SNAPSHOT_INVALID" });
    expect(readFileSync(file, "utf8")).toBe("v1\n");
    // A manifest that is not one: SNAPSHOT_INVALID, never trusted.
    writeFileSync(manifest, "{ not json");
    await expect(undo(ctx, forged.id, { force: true, dryRun: false })).rejects.toMatchObject({ code: "SNAPSHOT_INVALID" });
  });

  it("the store is owner-only: directories 0700, blobs and manifests 0600 (#9 §5)", () => {
    const { dir, changeSet } = projectOf();
    const file = join(dir, ".env");
    writeFileSync(file, "SECRET=1\n", { mode: 0o600 });
    const cs = changeSet();
    edit(cs, file, "SECRET=2\n");
    const modes = (p: string) => statSync(p).mode & 0o777;
    expect([modes(home), modes(join(home, "snapshots")), modes(join(home, "snapshots", "blobs")), modes(join(home, "snapshots", "changesets"))]).toEqual([0o700, 0o700, 0o700, 0o700]);
    for (const blob of readdirSync(join(home, "snapshots", "blobs"))) expect(modes(join(home, "snapshots", "blobs", blob))).toBe(0o600);
    expect(modes(join(home, "snapshots", "changesets", `${cs.id}.json`))).toBe(0o600);
  });
});
