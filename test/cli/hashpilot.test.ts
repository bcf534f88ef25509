// The built `hashpilot` bin end to end, on real files in temp projects: every output is the
// apiVersion 1 envelope (validated against the shipped JSON Schema) and `ok` agrees with the exit
// code; each error code has its exit code and leaves the file byte-identical; hashes chain
// (#60, #101); anchors relocate, or refuse when ambiguous or gone; writes keep line endings, BOM,
// mode and the final-newline state, stay inside the project, pass the parse gate, and never lose
// an update under concurrent editors; grep-many's columns are exact (#105); --format precedence.
import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/index/config.js";
import { runIndex } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { Store } from "../../src/store/store.js";
import { assertBuilt, runHashpilot } from "../helpers/cli.js";
import { hashpilotProject as project, hp, sha12, space } from "../helpers/hashpilot.js";

const SOURCE = ["export function add(a: number, b: number): number {", "  return a + b;", "}", "", "export function sub(a: number, b: number): number {", "  return a - b;", "}", ""].join("\n");

beforeAll(() => assertBuilt());

describe("hashpilot read-hash and replace-hash", () => {
  it("chains: read-hash's 12-character lineHash anchors an edit (#60), and newHash/newRange anchor the next (#101)", async () => {
    const p = project({ "src/math.ts": SOURCE });
    const read = await hp(p, ["read-hash", "src/math.ts", "2", "-c", "1"]);
    expect(read.envelope.data).toEqual({
      path: p.path("src/math.ts"),
      line: 2,
      content: "  return a + b;",
      lineHash: sha12("  return a + b;"),
      contextHash: sha12(["export function add(a: number, b: number): number {", "  return a + b;", "}"].join("\n")),
      contextRange: { start: 1, end: 3 },
      contextBefore: ["export function add(a: number, b: number): number {"],
      contextAfter: ["}"],
      fileHash: sha12(SOURCE.replace(/\n$/, "")),
      error: null,
    });
    const first = await hp(p, ["replace-hash", "src/math.ts", read.envelope.data.lineHash, "  const sum = a + b;\n  return sum;", "--range", "2"]);
    expect(first.code).toBe(0);
    expect(first.envelope.data).toMatchObject({
      success: true,
      oldHash: sha12("  return a + b;"),
      newHash: sha12("  const sum = a + b;\n  return sum;"),
      newRange: { start: 2, end: 3 },
      linesChanged: 2,
      stale: false,
      retries: 0,
    });
    expect(first.envelope.data.fileHash).toBe(sha12(p.read("src/math.ts").replace(/\n$/, "")));
    const { newHash, newRange } = first.envelope.data;
    const second = await hp(p, ["replace-hash", "src/math.ts", newHash, "  return a + b + 0;", "--range", `${newRange.start}:${newRange.end}`]);
    expect(second.code).toBe(0);
    expect(p.read("src/math.ts")).toBe(SOURCE.replace("  return a + b;", "  return a + b + 0;"));
  });

  it("relocates an anchor whose lines moved, with ANCHOR_RELOCATED; refuses one that is ambiguous or gone (exit 3, file untouched)", async () => {
    const p = project({ "src/math.ts": SOURCE });
    const anchor = sha12(["export function sub(a: number, b: number): number {", "  return a - b;", "}"].join("\n"));
    writeFileSync(p.path("src/math.ts"), `// a header line\n${SOURCE}`);
    const moved = await hp(p, ["replace-hash", "src/math.ts", anchor, "export const sub = (a: number, b: number) => a - b;", "--range", "5:7"]);
    expect(moved.code).toBe(0);
    expect(moved.envelope.data).toMatchObject({ stale: true, retries: 1, relocatedTo: { start: 6, end: 8 }, newRange: { start: 6, end: 6 } });
    expect(moved.envelope.warnings.map((w) => w.code)).toEqual(["ANCHOR_RELOCATED"]);

    const twice = project({ "a.ts": "let x = 1;\nlet y = 2;\nlet x = 1;\nlet y = 2;\n" });
    const before = twice.read("a.ts");
    const ambiguous = await hp(twice, ["replace-hash", "a.ts", sha12("let x = 1;\nlet y = 2;"), "let z = 3;", "--range", "2:3"]);
    expect([ambiguous.code, ambiguous.envelope.error!.code]).toEqual([3, "AMBIGUOUS_ANCHOR"]);
    const gone = await hp(twice, ["replace-hash", "a.ts", sha12("nothing like this"), "x", "--range", "1:1"]);
    expect([gone.code, gone.envelope.error!.code]).toEqual([3, "STALE_ANCHOR"]);
    const noRecovery = await hp(twice, ["replace-hash", "a.ts", sha12("let y = 2;\nlet x = 1;"), "x", "--range", "1:2", "--no-recovery"]);
    expect([noRecovery.code, noRecovery.envelope.error!.code]).toEqual([3, "STALE_ANCHOR"]);
    expect(twice.read("a.ts")).toBe(before);
  });

  it("validates arguments before touching anything (INVALID_ARGUMENT, exit 1)", async () => {
    const p = project({ "a.ts": SOURCE });
    const anchor = sha12("  return a + b;");
    for (const args of [
      ["replace-hash", "a.ts", anchor, "x", "--range", "0:2"],
      ["replace-hash", "a.ts", anchor, "x", "--range", "3:2"],
      ["replace-hash", "a.ts", anchor, "x", "--range", "2:99"],
      ["replace-hash", "a.ts", anchor, "x", "--range", "two"],
      ["replace-hash", "a.ts", anchor.slice(0, 8), "x", "--range", "2"],
      ["replace-hash", "a.ts", anchor],
      ["replace-hash", "a.ts", anchor, "x", "--bogus"],
      ["read-hash", "a.ts", "0"],
      ["frobnicate"],
    ]) {
      const r = await hp(p, args);
      expect([args.join(" "), r.code, r.envelope.error!.code]).toEqual([args.join(" "), 1, "INVALID_ARGUMENT"]);
    }
    expect(p.read("a.ts")).toBe(SOURCE);
  });

  it("writes nothing outside the project, through a symlink that leaves it, or under .git (PATH_DENIED, exit 1)", async () => {
    const p = project({ "a.ts": SOURCE });
    const outside = space.dir("hashpilot-outside-");
    writeFileSync(join(outside, "b.ts"), SOURCE);
    symlinkSync(outside, p.path("linked"));
    writeFileSync(p.path(".git/config"), "[core]\n");
    const whole = sha12(SOURCE.replace(/\n$/, ""));
    for (const target of [join(outside, "b.ts"), "../b.ts", "linked/b.ts", ".git/config"]) {
      const r = await hp(p, ["replace-hash", target, whole, "x"]);
      expect([target, r.code, r.envelope.error!.code]).toEqual([target, 1, "PATH_DENIED"]);
    }
    expect(readFileSync(join(outside, "b.ts"), "utf8")).toBe(SOURCE);
    expect(p.read(".git/config")).toBe("[core]\n");
  });

  it("never writes an edit that breaks a cleanly parsing file (PARSE_ERROR, exit 2), not even with --allow-parse-errors; a broken file may be repaired", async () => {
    const p = project({ "a.ts": SOURCE, "notes.txt": "plain text\n" });
    const anchor = sha12("  return a + b;");
    for (const extra of [[], ["--allow-parse-errors"]]) {
      const broken = await hp(p, ["replace-hash", "a.ts", anchor, "  return (a + ;", "--range", "2", ...extra]);
      expect([broken.code, broken.envelope.error!.code]).toEqual([2, "PARSE_ERROR"]);
      expect(p.read("a.ts")).toBe(SOURCE);
    }
    // A file already broken may be edited, including by the edit that breaks it further or repairs it.
    writeFileSync(p.path("a.ts"), SOURCE.replace("  return a + b;", "  return (a + ;"));
    const repaired = await hp(p, ["replace-hash", "a.ts", sha12("  return (a + ;"), "  return a + b;", "--range", "2"]);
    expect(repaired.code).toBe(0);
    expect(p.read("a.ts")).toBe(SOURCE);
    // Files without a grammar are never gated.
    const text = await hp(p, ["replace-hash", "notes.txt", sha12("plain text"), "function (", "--range", "1"]);
    expect(text.code).toBe(0);
  });

  it("--dry-run previews the diff and writes nothing", async () => {
    const p = project({ "a.ts": SOURCE });
    const r = await hp(p, ["replace-hash", "a.ts", sha12("  return a + b;"), "  return b + a;", "--range", "2", "--dry-run"]);
    expect(r.envelope.data).toMatchObject({ dryRun: true, message: "Would replace 1 line with 1 line (range 2-2)" });
    expect(r.envelope.data.diff).toBe(["  1 | export function add(a: number, b: number): number {", "- 2 |   return a + b;", "+ 2 |   return b + a;", "  3 | }", "  4 | "].join("\n"));
    expect(p.read("a.ts")).toBe(SOURCE);
  });

  it("keeps CRLF and CR endings, the BOM, the missing final newline and the file mode; reads content from @file", async () => {
    const raw = "\uFEFFline one\r\nline two\r\nline three";
    const p = project({ "a.txt": raw, "new.txt": "LINE TWO\n" });
    chmodSync(p.path("a.txt"), 0o751);
    const r = await hp(p, ["replace-hash", "a.txt", sha12("line two"), "@new.txt", "--range", "2:2"]);
    expect(r.code).toBe(0);
    expect(readFileSync(p.path("a.txt"), "utf8")).toBe("\uFEFFline one\r\nLINE TWO\r\nline three");
    expect(statSync(p.path("a.txt")).mode & 0o777).toBe(0o751);
    // No temp file is left beside it.
    expect(readdirSync(p.root).filter((n) => n.includes("hashpilot"))).toEqual([]);
  });

  it("removes a temp file a killed writer left behind", async () => {
    const p = project({ "a.ts": SOURCE });
    const orphan = p.path(".a.ts.hashpilot-999999-0123abcd.tmp");
    writeFileSync(orphan, "half a file");
    await hp(p, ["replace-hash", "a.ts", sha12("  return a + b;"), "  return a + b;", "--range", "2"]);
    expect(readdirSync(p.root).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("reports a missing file or content file as an I/O error (exit 5)", async () => {
    const p = project({ "a.ts": SOURCE });
    const missing = await hp(p, ["replace-hash", "nope.ts", sha12("x"), "y"]);
    expect([missing.code, missing.envelope.error!.code]).toEqual([5, "FILE_NOT_FOUND"]);
    const content = await hp(p, ["replace-hash", "a.ts", sha12("x"), "@nope.txt"]);
    expect([content.code, content.envelope.error!.code]).toEqual([5, "FILE_NOT_FOUND"]);
    const read = await hp(p, ["read-hash", "nope.ts", "1"]);
    expect([read.code, read.envelope.error!.code]).toEqual([5, "FILE_NOT_FOUND"]);
  });

  it("8 processes editing one file at once never lose an update", async () => {
    const lines = Array.from({ length: 8 }, (_, i) => `const v${i} = ${i};`);
    const p = project({ "a.ts": `${lines.join("\n")}\n` });
    const results = await Promise.all(lines.map((line, i) => hp(p, ["replace-hash", "a.ts", sha12(line), `const v${i} = ${i * 10};`, "--range", String(i + 1)])));
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0));
    // No lock is left behind once every editor is done.
    expect(readdirSync(join(p.home, "locks"))).toEqual([]);
    expect(p.read("a.ts")).toBe(`${lines.map((_, i) => `const v${i} = ${i * 10};`).join("\n")}\n`);
  });
});

describe("hashpilot diff generate and diff apply", () => {
  it("generates a unified diff (--raw prints it alone; identical inputs say so) that diff apply applies", async () => {
    const p = project({ "a.ts": SOURCE, "new.ts": SOURCE.replace("a - b", "b - a") });
    const gen = await hp(p, ["diff", "generate", "a.ts", "@a.ts", "@new.ts", "-c", "1"]);
    expect(gen.envelope.data.diff).toBe(
      ["--- a/a.ts", "+++ b/a.ts", "@@ -5,3 +5,3 @@", " export function sub(a: number, b: number): number {", "-  return a - b;", "+  return b - a;", " }", ""].join("\n"),
    );
    const raw = await runHashpilot(["diff", "generate", "a.ts", "@a.ts", "@new.ts", "--raw"], { cwd: p.root, env: { HASHPILOT_HOME: p.home } });
    expect(raw.stdout.startsWith("--- a/a.ts\n+++ b/a.ts\n@@ -3,5 +3,5 @@")).toBe(true);
    const same = await runHashpilot(["diff", "generate", "a.ts", "@a.ts", "@a.ts", "--raw"], { cwd: p.root, env: { HASHPILOT_HOME: p.home } });
    expect(same.stdout).toBe("(no changes)\n");
    writeFileSync(p.path("fix.patch"), gen.envelope.data.diff);
    const applied = await hp(p, ["diff", "apply", "a.ts", "--patch", "fix.patch"]);
    expect(applied.envelope.data).toMatchObject({
      success: true,
      hunksApplied: 1,
      hunksFailed: 0,
      message: "Applied 1 hunk(s)",
      placements: [{ expectedAt: 5, appliedAt: 5, offset: 0 }],
      fuzzyPlacements: [],
    });
    expect(p.read("a.ts")).toBe(p.read("new.ts"));
  });

  it("places a hunk that moved and says so (within --fuzzy lines when given); refuses one that is gone, too far or ambiguous (exit 3, untouched)", async () => {
    const p = project({ "a.ts": SOURCE });
    const patch = (await hp(p, ["diff", "generate", "a.ts", "@a.ts", SOURCE.replace("a - b", "b - a"), "-c", "1"])).envelope.data.diff as string;
    writeFileSync(p.path("fix.patch"), patch);
    writeFileSync(p.path("a.ts"), `// one\n// two\n${SOURCE}`);
    const slid = await hp(p, ["diff", "apply", "a.ts", "--patch", "fix.patch"]);
    expect(slid.envelope.data).toMatchObject({
      placements: [{ expectedAt: 5, appliedAt: 7, offset: 2 }],
      fuzzyPlacements: [{ expectedAt: 5, appliedAt: 7, offset: 2 }],
      message: "Applied 1 hunk(s); 1 slid from where the patch placed them (5→7)",
    });
    expect(p.read("a.ts")).toBe(`// one\n// two\n${SOURCE.replace("a - b", "b - a")}`);

    const far = project({ "a.ts": `${"// pad\n".repeat(40)}${SOURCE}`, "fix.patch": patch });
    const tooFar = await hp(far, ["diff", "apply", "a.ts", "--patch", "fix.patch", "-f", "3"]);
    expect([tooFar.code, tooFar.envelope.error!.code]).toEqual([3, "STALE_ANCHOR"]);
    expect(far.read("a.ts")).toBe(`${"// pad\n".repeat(40)}${SOURCE}`);
    const anywhere = await hp(far, ["diff", "apply", "a.ts", "--patch", "fix.patch"]);
    expect(anywhere.envelope.data.placements).toEqual([{ expectedAt: 5, appliedAt: 45, offset: 40 }]);
    expect(far.read("a.ts")).toBe(`${"// pad\n".repeat(40)}${SOURCE.replace("a - b", "b - a")}`);
    // Not where the patch says, and in two places: which copy is meant cannot be known.
    const twice = project({ "a.ts": "x\ny\nx\ny\nz\n", "p.patch": "--- a/a.ts\n+++ b/a.ts\n@@ -5,1 +5,1 @@\n-x\n+X\n" });
    const ambiguous = await hp(twice, ["diff", "apply", "a.ts", "--patch", "p.patch"]);
    expect([ambiguous.code, ambiguous.envelope.error!.code, ambiguous.envelope.error!.details]).toEqual([3, "AMBIGUOUS_ANCHOR", { hunk: 1, candidates: [1, 3], total: 2 }]);
    expect(twice.read("a.ts")).toBe("x\ny\nx\ny\nz\n");
  });

  it("reads the patch from stdin, keeps CRLF endings, creates a file from a /dev/null patch, and undo deletes it", async () => {
    const p = project({ "a.txt": "one\r\ntwo\r\n" });
    const r = await runHashpilot(["diff", "apply", "a.txt", "--patch", "-"], {
      cwd: p.root,
      env: { HASHPILOT_HOME: p.home },
      input: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n",
    });
    expect(r.code).toBe(0);
    expect(p.read("a.txt")).toBe("one\r\nTWO\r\n");
    writeFileSync(p.path("new.patch"), "--- /dev/null\n+++ b/src/new/created.ts\n@@ -0,0 +1,2 @@\n+export const created = 1;\n+export const also = 2;\n");
    const created = await hp(p, ["diff", "apply", "src/new/created.ts", "--patch", "new.patch"]);
    expect(created.code).toBe(0);
    expect(p.read("src/new/created.ts")).toBe("export const created = 1;\nexport const also = 2;\n");
    const undone = await hp(p, ["undo", "--last"]);
    expect(undone.envelope.data.files).toEqual([{ path: p.path("src/new/created.ts"), action: "deleted" }]);
    expect(readdirSync(p.path("src/new"))).toEqual([]);
  });
});

const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
/** As root a refused write needs another user: the test runs the bin as nobody, when it can. */
const canBeRefused = !IS_ROOT || spawnSync(process.execPath, ["-e", ""], { uid: NOBODY, gid: NOBODY }).status === 0;

describe("hashpilot I/O and argument errors", () => {
  it("refuses binary and non-UTF-8 files (READ_FAILED, exit 5) and a --root that is not a directory (NOT_A_DIRECTORY, exit 1)", async () => {
    const p = project({ "a.ts": SOURCE });
    writeFileSync(p.path("blob.bin"), Buffer.from([0x61, 0x00, 0x62, 0x0a]));
    writeFileSync(p.path("latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    for (const file of ["blob.bin", "latin1.txt"]) {
      const before = readFileSync(p.path(file));
      const r = await hp(p, ["replace-hash", file, sha12("x"), "y"]);
      expect([file, r.code, r.envelope.error!.code]).toEqual([file, 5, "READ_FAILED"]);
      expect(readFileSync(p.path(file))).toEqual(before);
    }
    const root = await hp(p, ["read-hash", "a.ts", "1", "--root", "a.ts"]);
    expect([root.code, root.envelope.error!.code]).toEqual([1, "NOT_A_DIRECTORY"]);
  });

  it.runIf(canBeRefused)("reports a write the file system refuses (WRITE_FAILED, exit 5) and leaves the file as it was", async () => {
    const p = project({ "a.ts": SOURCE });
    chmodSync(p.home, 0o777);
    chmodSync(p.path("a.ts"), 0o644);
    // The directory refuses new files (the temp file); as root the bin runs as nobody to be refused.
    chmodSync(p.root, 0o555);
    try {
      const r = await runHashpilot(["replace-hash", "a.ts", sha12("  return a + b;"), "  return b + a;", "--range", "2"], {
        cwd: p.root,
        env: { HASHPILOT_HOME: p.home, CI: undefined },
        ...(IS_ROOT ? { uid: NOBODY, gid: NOBODY } : {}),
      });
      const envelope = JSON.parse(r.stdout);
      expect([r.code, envelope.ok, envelope.error.code]).toEqual([5, false, "WRITE_FAILED"]);
      expect(p.read("a.ts")).toBe(SOURCE);
    } finally {
      chmodSync(p.root, 0o755);
    }
  });
});

describe("hashpilot review fixes", () => {
  it("diff apply adding lines after an unterminated last line does not join them to it", async () => {
    const p = project({ "f.txt": "a" });
    const patch = (await hp(p, ["diff", "generate", "f.txt", "@f.txt", "a\nb"])).envelope.data.diff as string;
    expect(patch).toBe("--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n\\ No newline at end of file\n");
    writeFileSync(p.path("p.patch"), patch);
    const r = await hp(p, ["diff", "apply", "f.txt", "--patch", "p.patch"]);
    expect(r.code).toBe(0);
    expect(p.read("f.txt")).toBe("a\nb");
  });

  it("an edit through a symlink inside the project changes the target and keeps the link", async () => {
    const p = project({ "real.txt": "x\ny\n" });
    symlinkSync("real.txt", p.path("link.txt"));
    const r = await hp(p, ["replace-hash", "link.txt", sha12("y"), "z", "--range", "2"]);
    expect([r.code, r.envelope.data.path]).toEqual([0, p.path("real.txt")]);
    expect(p.read("real.txt")).toBe("x\nz\n");
    expect(readlinkSync(p.path("link.txt"))).toBe("real.txt");
  });

  it("a file with a 240-character name is edited, and a failed write leaves no changeSet behind", async () => {
    const name = `${"a".repeat(240)}.txt`;
    const p = project({ [name]: "hi\n" });
    const r = await hp(p, ["replace-hash", name, sha12("hi"), "ho", "--range", "1"]);
    expect(r.code).toBe(0);
    expect(p.read(name)).toBe("ho\n");
    const ro = project({ "a.ts": SOURCE });
    chmodSync(ro.home, 0o777);
    chmodSync(ro.root, 0o555);
    try {
      if (!canBeRefused) return;
      const failed = await runHashpilot(["replace-hash", "a.ts", sha12("  return a + b;"), "  return b + a;", "--range", "2"], {
        cwd: ro.root,
        env: { HASHPILOT_HOME: ro.home, CI: undefined },
        ...(IS_ROOT ? { uid: NOBODY, gid: NOBODY } : {}),
      });
      expect(JSON.parse(failed.stdout).error.code).toBe("WRITE_FAILED");
    } finally {
      chmodSync(ro.root, 0o755);
    }
    expect((await hp(ro, ["changesets"])).envelope.data.changeSets).toEqual([]);
  });

  it("undo over a file changed since its edit leaves every file as found (the check runs again under the locks)", async () => {
    const p = project({ "a.txt": "one\n", "b.txt": "two\n", "fix.patch": "--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+three\n" });
    await hp(p, ["replace-hash", "a.txt", sha12("one"), "ONE", "--range", "1"]);
    await hp(p, ["diff", "apply", "c.txt", "--patch", "fix.patch"]);
    writeFileSync(p.path("c.txt"), "changed\n");
    const refused = await hp(p, ["undo", "--last"]);
    expect([refused.code, refused.envelope.error!.code]).toEqual([3, "HASH_MISMATCH"]);
    expect([p.read("a.txt"), p.read("c.txt")]).toEqual(["ONE\n", "changed\n"]);
  });
});

describe("hashpilot regressions", () => {
  it("#98: a diff apply dry run answers the unified diff with sourceOmitted, not the file (--include-source gives it back)", async () => {
    const p = project({ "a.ts": SOURCE, "fix.patch": "--- a/a.ts\n+++ b/a.ts\n@@ -6,1 +6,1 @@\n-  return a - b;\n+  return b - a;\n" });
    const dry = await hp(p, ["diff", "apply", "a.ts", "--patch", "fix.patch", "--dry-run"]);
    expect(dry.envelope.data).toMatchObject({ dryRun: true, sourceOmitted: true, message: "Would apply 1 hunk(s)" });
    expect(dry.envelope.data.newSource).toBeUndefined();
    expect(dry.envelope.data.diff).toContain("-  return a - b;\n+  return b - a;\n");
    const withSource = await hp(p, ["diff", "apply", "a.ts", "--patch", "fix.patch", "--dry-run", "--include-source"]);
    expect(withSource.envelope.data.newSource).toBe(SOURCE.replace("a - b", "b - a"));
    expect(p.read("a.ts")).toBe(SOURCE);
  });

  it("#99: a range off by one (a 0-based row) lands on the anchored line, relocated and said so — never on the line above", async () => {
    const p = project({ "a.ts": SOURCE });
    // The anchor is line 6's hash; the caller passes 5 (its 0-based row), whose content differs.
    // A one-line anchor is not relocated by its text alone (#9): refused, the file untouched...
    const blind = await hp(p, ["replace-hash", "a.ts", sha12("  return a - b;"), "  return b - a;", "--range", "5"]);
    expect([blind.code, blind.envelope.error!.code, p.read("a.ts")]).toEqual([3, "STALE_ANCHOR", SOURCE]);
    // ...and with the read's file hash (the file is as read) it is the one line that has the hash.
    const r = await hp(p, ["replace-hash", "a.ts", sha12("  return a - b;"), "  return b - a;", "--range", "5", "--file-hash", sha12(SOURCE.replace(/\n$/, ""))]);
    expect(r.envelope.data).toMatchObject({ stale: true, relocatedTo: { start: 6, end: 6 } });
    expect(r.envelope.warnings.map((w) => w.code)).toEqual(["ANCHOR_RELOCATED"]);
    expect(p.read("a.ts")).toBe(SOURCE.replace("a - b", "b - a"));
  });
});

describe("hashpilot and the mast index", () => {
  it("reindexes what an edit writes: a new declaration in an indexed file, and a file the edit created, are found right after", async () => {
    const p = project({ "src/a.ts": SOURCE });
    const config = resolveConfig(p.root);
    await runIndex(config, { mode: "full" });
    const names = () => {
      const store = Store.open(statePaths(config.state_dir).graphDb, { readonly: true });
      try {
        return store.db.prepare("SELECT s.name FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind = 'function' ORDER BY f.path, s.line").pluck().all();
      } finally {
        store.close();
      }
    };
    expect(names()).toEqual(["add", "sub"]);
    const edit = await hp(p, [
      "replace-hash",
      "src/a.ts",
      sha12("}"),
      "}\n\nexport function mul(a: number, b: number): number {\n  return a * b;\n}",
      "--range",
      "7",
      "--file-hash",
      sha12(SOURCE.replace(/\n$/, "")),
    ]);
    expect(edit.code).toBe(0);
    expect(names()).toEqual(["add", "sub", "mul"]);
    writeFileSync(p.path("new.patch"), "--- /dev/null\n+++ b/src/b.ts\n@@ -0,0 +1,1 @@\n+export function div(a: number, b: number): number { return a / b; }\n");
    expect((await hp(p, ["diff", "apply", "src/b.ts", "--patch", "new.patch"])).code).toBe(0);
    expect(names()).toEqual(["add", "sub", "mul", "div"]);
  });
});

describe("hashpilot changesets and undo", () => {
  it("snapshots every write, lists it, and undoes it byte for byte (CRLF and BOM); an undone changeSet is not undone twice", async () => {
    const raw = "\uFEFFfirst\r\nsecond\r\nthird\r\n";
    const p = project({ "a.txt": raw });
    const edit = await hp(p, ["replace-hash", "a.txt", sha12("second"), "SECOND", "--range", "2"]);
    expect(edit.code).toBe(0);
    const list = await hp(p, ["changesets"]);
    expect(list.envelope.data.changeSets).toHaveLength(1);
    const [cs] = list.envelope.data.changeSets;
    expect(cs).toMatchObject({ command: "replace_hash", files: [p.path("a.txt")] });
    expect(cs.changeSetId).toMatch(/^cs-\d{8}T\d{9}Z-[0-9a-f]{8}$/);
    const dry = await hp(p, ["undo", "--last", "--dry-run"]);
    expect(dry.envelope.data).toMatchObject({ dryRun: true, files: [{ path: p.path("a.txt"), action: "restored" }] });
    expect(p.read("a.txt")).toBe("\uFEFFfirst\r\nSECOND\r\nthird\r\n");
    const undone = await hp(p, ["undo", cs.changeSetId]);
    expect(undone.envelope.data).toEqual({
      success: true,
      changeSetId: cs.changeSetId,
      files: [{ path: p.path("a.txt"), action: "restored" }],
      message: `Undid changeSet ${cs.changeSetId}: 1 file(s)`,
    });
    expect(readFileSync(p.path("a.txt"))).toEqual(Buffer.from(raw, "utf8"));
    // The undo is not a changeSet of its own, so --last cannot ping-pong.
    const again = await hp(p, ["undo", "--last"]);
    expect([again.code, again.envelope.error!.code]).toEqual([1, "INVALID_ARGUMENT"]);
    expect((await hp(p, ["changesets"])).envelope.data.changeSets[0].undoneAt).toEqual(expect.any(String));
  });

  it("refuses to undo over a file changed after the edit (HASH_MISMATCH, exit 3, file as found); --force restores it", async () => {
    const p = project({ "a.ts": SOURCE });
    await hp(p, ["replace-hash", "a.ts", sha12("  return a + b;"), "  return a + b + 1;", "--range", "2"]);
    const changed = p.read("a.ts").replace("a - b", "a - b - 1");
    writeFileSync(p.path("a.ts"), changed);
    const refused = await hp(p, ["undo", "--last"]);
    expect([refused.code, refused.envelope.error!.code]).toEqual([3, "HASH_MISMATCH"]);
    expect(refused.envelope.error!.details.files).toEqual([{ path: p.path("a.ts"), action: "skipped", reason: "the file changed after the edit" }]);
    expect(p.read("a.ts")).toBe(changed);
    const forced = await hp(p, ["undo", "--last", "--force"]);
    expect(forced.code).toBe(0);
    expect(p.read("a.ts")).toBe(SOURCE);
  });

  it("keeps snapshots out of the project and a dry run out of the changeSets", async () => {
    const p = project({ "a.ts": SOURCE });
    await hp(p, ["replace-hash", "a.ts", sha12("  return a + b;"), "  return b + a;", "--range", "2", "--dry-run"]);
    expect((await hp(p, ["changesets"])).envelope.data.changeSets).toEqual([]);
    expect(readdirSync(p.root).sort()).toEqual([".git", "a.ts"]);
  });
});

describe("hashpilot read-many and grep-many", () => {
  it("read-many returns each file's content and hash, and a per-file error for one it cannot read", async () => {
    const p = project({ "a.ts": SOURCE, "b.md": "# B\r\n" });
    const r = await hp(p, ["read-many", "a.ts", "b.md", "missing.ts"]);
    expect(r.code).toBe(0);
    expect(r.envelope.data).toEqual([
      { path: p.path("a.ts"), content: SOURCE, hash: sha12(SOURCE.replace(/\n$/, "")), lines: 7, error: null },
      { path: p.path("b.md"), content: "# B\r\n", hash: sha12("# B"), lines: 1, error: null },
      { path: p.path("missing.ts"), content: null, hash: null, lines: 0, error: { code: "FILE_NOT_FOUND", message: `${p.path("missing.ts")} does not exist` } },
    ]);
    const none = await hp(p, ["read-many", "missing.ts"]);
    expect([none.code, none.envelope.error!.code]).toEqual([5, "FILE_NOT_FOUND"]);
  });

  it("grep-many reports verbatim lines with exact 1-based columns, -i, --file-pattern, POSIX classes (#105) and the cap", async () => {
    const p = project({ "src/a.ts": "const alpha = 1;\n12: not a line number\n  function beta() {}\n", "src/b.js": "function Gamma() {}\n", "README.md": "function in prose\n" });
    const r = await hp(p, ["grep-many", "function\\s+\\w+", "src", "--file-pattern", "*.ts"]);
    expect(r.envelope.data.results).toEqual([{ path: p.path("src/a.ts"), line: 3, column: 3, content: "  function beta() {}", match: "function\\s+\\w+" }]);
    const verbatim = await hp(p, ["grep-many", "not a line", "src"]);
    expect(verbatim.envelope.data.results.map((m: any) => [m.content, m.column])).toEqual([["12: not a line number", 5]]);
    const posix = await hp(p, ["grep-many", "[[:upper:]][[:alpha:]]+\\(", "src"]);
    expect(posix.envelope.data.results.map((m: any) => [m.path, m.line, m.column])).toEqual([[p.path("src/b.js"), 1, 10]]);
    const ci = await hp(p, ["grep-many", "GAMMA", ".", "-i"]);
    expect(ci.envelope.data.results.map((m: any) => m.path)).toEqual([p.path("src/b.js")]);
    const capped = await hp(p, ["grep-many", "function", ".", "--max-results", "2"]);
    expect([capped.envelope.data.results.length, capped.envelope.data.truncated]).toEqual([2, true]);
    const bad = await hp(p, ["grep-many", "(unclosed", "."]);
    expect([bad.code, bad.envelope.error!.code]).toEqual([1, "INVALID_ARGUMENT"]);
  });
});

describe("hashpilot output format", () => {
  it("follows the precedence --format, then --json (deprecated, one stderr notice), then $CI, then JSON when piped; errors follow the format (#9 §5)", async () => {
    const p = project({ "a.ts": SOURCE });
    const text = await runHashpilot(["read-hash", "a.ts", "2", "--format", "text"], { cwd: p.root, env: { HASHPILOT_HOME: p.home } });
    expect(text.stdout).toBe(`${p.path("a.ts")}:2  lineHash ${sha12("  return a + b;")}  contextHash ${sha12(SOURCE.split("\n").slice(0, 5).join("\n"))} (lines 1-5)\n  return a + b;\n`);
    const json = await runHashpilot(["read-hash", "a.ts", "2", "--json"], { cwd: p.root, env: { HASHPILOT_HOME: p.home } });
    expect(JSON.parse(json.stdout).ok).toBe(true);
    expect(json.stderr).toBe("[deprecation] --json is deprecated; use --format json\n");
    const ci = await runHashpilot(["read-hash", "a.ts", "2"], { cwd: p.root, env: { HASHPILOT_HOME: p.home, CI: "true" } });
    expect(JSON.parse(ci.stdout).command).toBe("read-hash");
    const error = await runHashpilot(["read-hash", "a.ts", "99", "--format", "text"], { cwd: p.root, env: { HASHPILOT_HOME: p.home } });
    expect([error.code, error.stdout]).toEqual([1, `error INVALID_ARGUMENT: line 99 is not within ${p.path("a.ts")} (lines 1-7)\n  hint: Check the argument against the command's --help.\n`]);
    expect(error.stderr).toBe("");
    const piped = await runHashpilot(["read-hash", "a.ts", "99"], { cwd: p.root, env: { HASHPILOT_HOME: p.home, CI: undefined } });
    expect([piped.code, JSON.parse(piped.stdout).error.code]).toEqual([1, "INVALID_ARGUMENT"]);
  });
});
