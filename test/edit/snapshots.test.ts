// The snapshot store in process, on a private HASHPILOT_HOME: a changeSet that created a file is
// undone by deleting it, several writes to one file undo to the bytes before the first, and old
// changeSets are pruned by age together with the settled blobs only they named.
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256 } from "../../src/base/hash.js";
import { undo } from "../../src/edit/operations.js";
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

/** What an edit does: record the write, then write. */
function edit(cs: ChangeSet, path: string, text: string): void {
  const before = existsSync(path) ? readFileSync(path) : null;
  const after = Buffer.from(text);
  cs.recordWrite(path, before, after);
  writeFileSync(path, after);
}

describe("snapshots", () => {
  it("undoes a changeSet: files it created are deleted, a file written twice goes back to its first bytes", async () => {
    const dir = space.dir("hashpilot-files-");
    const kept = join(dir, "kept.ts");
    const created = join(dir, "created.ts");
    writeFileSync(kept, "original\n");
    const cs = new ChangeSet(mintChangeSetId(), "diff apply");
    edit(cs, kept, "first edit\n");
    edit(cs, kept, "second edit\n");
    edit(cs, created, "new file\n");
    const result = await undo("last", { force: false, dryRun: false });
    expect(result.data.files).toEqual([
      { path: kept, action: "restored" },
      { path: created, action: "deleted" },
    ]);
    expect(readFileSync(kept, "utf8")).toBe("original\n");
    expect(existsSync(created)).toBe(false);
  });

  it("prunes changeSets older than the retention age, and the blobs no kept changeSet names", () => {
    const dir = space.dir("hashpilot-files-");
    const file = join(dir, "a.ts");
    writeFileSync(file, "v0\n");
    const old = new ChangeSet("cs-20200101T000000000Z-0000aaaa", "replace-hash");
    edit(old, file, "v1\n");
    // Backdate the old manifest beyond the retention age.
    const manifest = join(home, "snapshots", "changesets", "cs-20200101T000000000Z-0000aaaa.json");
    const record = JSON.parse(readFileSync(manifest, "utf8"));
    record.timestamp = new Date(Date.now() - (RETAIN_DAYS + 1) * 86_400_000).toISOString();
    writeFileSync(manifest, JSON.stringify(record));
    const longAgo = new Date(Date.now() - (RETAIN_DAYS + 1) * 86_400_000);
    for (const blob of readdirSync(join(home, "snapshots", "blobs"))) utimesSync(join(home, "snapshots", "blobs", blob), longAgo, longAgo);
    const fresh = new ChangeSet(mintChangeSetId(), "replace-hash");
    edit(fresh, file, "v2\n");
    expect(listChangeSets().map((c) => c.changeSetId)).toEqual([fresh.id]);
    // v0 was only the old changeSet's "before": gone. v1 (fresh's before) and v2 stay.
    expect(readdirSync(join(home, "snapshots", "blobs")).sort()).toEqual([sha256("v1\n"), sha256("v2\n")].sort());
  });
});
