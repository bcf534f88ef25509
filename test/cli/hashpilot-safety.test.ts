// Regression tests for "never silently wrong, never outside the project" (issue #9), through the
// built hashpilot bin on real files: low-entropy anchors are applied only where a pin says, reads
// and undo are confined like writes, special files and runaway patterns cannot hang a call,
// answers stay under the cap, final-newline markers are exact, and each failure has its code.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/base/errors.js";
import { MAX_ANSWER_BYTES } from "../../src/base/budget.js";
import { assertBuilt } from "../helpers/cli.js";
import { hashpilotProject as project, hp, sha12, space } from "../helpers/hashpilot.js";

beforeAll(() => assertBuilt());

/** Three functions, each closed by a `}` line (lines 3, 6 and 9). */
const THREE = ["function a() {", "  return 1;", "}", "function b() {", "  return 2;", "}", "function c() {", "  return 3;", "}", ""].join("\n");
const NOBODY = 65534;
const AS_ROOT = process.getuid?.() === 0;
/** As root an unreadable file needs another user: the bin runs as nobody, when it can. */
const CAN_BE_REFUSED = !AS_ROOT || spawnSync(process.execPath, ["-e", ""], { uid: NOBODY, gid: NOBODY }).status === 0;
const fileHashOf = (text: string) => sha12(text.replace(/\r?\n$/, "").replace(/\r\n/g, "\n"));

describe("low-entropy anchors (#9 §1)", () => {
  it("a `}` anchor after another writer shifted the file by the repeat period is refused with the candidates, never applied to the wrong brace", async () => {
    const p = project({ "a.ts": THREE });
    const read = await hp(p, ["read-hash", "a.ts", "6", "-c", "1"]);
    expect(read.envelope.warnings).toEqual([expect.objectContaining({ code: "ANCHOR_NOT_UNIQUE", occurrences: 3 })]);
    expect(read.envelope.data.fileHash).toBe(fileHashOf(THREE));
    // Another writer inserts three lines at the top: line 6 is now the first function's brace.
    const shifted = `// one\n// two\n// three\n${THREE}`;
    writeFileSync(p.path("a.ts"), shifted);
    const blind = await hp(p, ["replace-hash", "a.ts", read.envelope.data.lineHash, "} // end of b", "--range", "6"]);
    expect([blind.code, blind.envelope.error!.code, blind.envelope.error!.details.matches]).toEqual([
      3,
      "AMBIGUOUS_ANCHOR",
      [
        { start: 6, end: 6 },
        { start: 9, end: 9 },
        { start: 12, end: 12 },
      ],
    ]);
    // The read's file hash no longer matches, so it pins nothing: still refused.
    const stalePin = await hp(p, ["replace-hash", "a.ts", read.envelope.data.lineHash, "} // end of b", "--range", "6", "--file-hash", read.envelope.data.fileHash]);
    expect(stalePin.envelope.error!.code).toBe("AMBIGUOUS_ANCHOR");
    expect(p.read("a.ts")).toBe(shifted);
    // The read's context is in one place: the edit follows it to line 9, and says it moved.
    const { contextHash, contextRange } = read.envelope.data;
    const pinned = await hp(p, [
      "replace-hash",
      "a.ts",
      read.envelope.data.lineHash,
      "} // end of b",
      "--range",
      "6",
      "--context-hash",
      contextHash,
      "--context-range",
      `${contextRange.start}:${contextRange.end}`,
    ]);
    expect([pinned.code, pinned.envelope.data.relocatedTo, pinned.envelope.warnings.map((w) => w.code)]).toEqual([0, { start: 9, end: 9 }, ["ANCHOR_RELOCATED"]]);
    expect(p.read("a.ts")).toBe(shifted.replace("  return 2;\n}", "  return 2;\n} // end of b"));
  });

  it("an unchanged file's fileHash pins the range: no false refusal, and the chained fileHash pins the next edit", async () => {
    const p = project({ "a.ts": THREE });
    const read = await hp(p, ["read-hash", "a.ts", "6", "-c", "0"]);
    const edit = await hp(p, ["replace-hash", "a.ts", read.envelope.data.lineHash, "} // b", "--range", "6", "--file-hash", read.envelope.data.fileHash]);
    expect([edit.code, edit.envelope.data.stale]).toEqual([0, false]);
    const next = await hp(p, ["replace-hash", "a.ts", sha12("}"), "} // c", "--range", "9", "--file-hash", edit.envelope.data.fileHash]);
    expect(next.code).toBe(0);
    expect(p.read("a.ts")).toBe(THREE.replace("  return 2;\n}", "  return 2;\n} // b").replace("  return 3;\n}", "  return 3;\n} // c"));
    // A fileHash that matches while the range does not hold the hash: the hash is found elsewhere
    // (several copies: which one is meant cannot be known), or nowhere (the hash or range is wrong).
    const q = project({ "a.ts": THREE });
    const wrong = await hp(q, ["replace-hash", "a.ts", sha12("}"), "}", "--range", "2", "--file-hash", fileHashOf(THREE)]);
    expect([wrong.code, wrong.envelope.error!.code]).toEqual([3, "AMBIGUOUS_ANCHOR"]);
    const nowhere = await hp(q, ["replace-hash", "a.ts", sha12("no such line"), "x", "--range", "2", "--file-hash", fileHashOf(THREE)]);
    expect([nowhere.code, nowhere.envelope.error!.code]).toEqual([3, "STALE_ANCHOR"]);
    // In one place only: the line the caller read, with its range given off by one (#99).
    const once = await hp(q, ["replace-hash", "a.ts", sha12("  return 2;"), "  return 20;", "--range", "4", "--file-hash", fileHashOf(THREE)]);
    expect([once.code, once.envelope.data.relocatedTo]).toEqual([0, { start: 5, end: 5 }]);
  });

  it("a target edited by another writer is never replaced by its one remaining copy: not by the text alone, not against the read's context", async () => {
    // Two `}` lines: 3 (closing a) and 6 (closing b). The read is of line 6.
    const TWO = ["function a() {", "  return 1;", "}", "function b() {", "  return 2;", "}", ""].join("\n");
    const p = project({ "a.ts": TWO });
    const read = await hp(p, ["read-hash", "a.ts", "6", "-c", "1"]);
    const edited = TWO.replace("  return 2;\n}", "  return 2;\n} // another writer");
    writeFileSync(p.path("a.ts"), edited);
    const { lineHash, contextHash, contextRange, fileHash } = read.envelope.data;
    for (const pins of [[], ["--file-hash", fileHash], ["--context-hash", contextHash, "--context-range", `${contextRange.start}:${contextRange.end}`, "--file-hash", fileHash]]) {
      const r = await hp(p, ["replace-hash", "a.ts", lineHash, "} // edited", "--range", "6", ...pins]);
      expect([pins.length, r.code, r.envelope.error?.code]).toEqual([pins.length, 3, "STALE_ANCHOR"]);
    }
    writeFileSync(p.path("p.patch"), "--- a/a.ts\n+++ b/a.ts\n@@ -6,1 +6,1 @@\n-}\n+} // edited\n");
    const patched = await hp(p, ["diff", "apply", "a.ts", "--patch", "p.patch"]);
    expect([patched.code, patched.envelope.error?.code]).toEqual([3, "STALE_ANCHOR"]);
    expect(p.read("a.ts")).toBe(edited);
  });

  it("every repeated line the issue found (`}`, `  }`, `});`, `    return;`, a blank line, `  } else {`) is refused after a shift by its repeat period", async () => {
    for (const text of ["}", "  }", "});", "    return;", "", "  } else {"]) {
      const block = ["x();", text, "y();"];
      const source = [...block, ...block, ...block, ""].join("\n");
      const p = project({ "a.js": source });
      // The anchor is the second copy (line 5); another writer adds one block (the repeat period) on top, so line 5 now holds the first copy.
      const shifted = `${block.join("\n")}\n${source}`;
      writeFileSync(p.path("a.js"), shifted);
      const r = await hp(p, ["replace-hash", "a.js", sha12(text), `${text} // edited`, "--range", "5"]);
      expect([JSON.stringify(text), r.code, r.envelope.error?.code]).toEqual([JSON.stringify(text), 3, "AMBIGUOUS_ANCHOR"]);
      expect(p.read("a.js")).toBe(shifted);
    }
  });

  it("diff apply: a hunk whose lines occur twice is refused unless the file hash pins it; a -U0 insertion needs the file hash", async () => {
    const source = "a\n}\nb\n}\nc\n";
    const p = project({ "a.txt": source });
    const patch = (await hp(p, ["diff", "generate", "a.txt", "@a.txt", "a\n}\nb\n} // b\nc\n", "-c", "0"])).envelope.data.diff as string;
    writeFileSync(p.path("p.patch"), patch);
    const blind = await hp(p, ["diff", "apply", "a.txt", "--patch", "p.patch"]);
    expect([blind.code, blind.envelope.error!.code, blind.envelope.error!.details.candidates]).toEqual([3, "AMBIGUOUS_ANCHOR", [2, 4]]);
    expect(p.read("a.txt")).toBe(source);
    const pinned = await hp(p, ["diff", "apply", "a.txt", "--patch", "p.patch", "--file-hash", fileHashOf(source)]);
    expect([pinned.code, pinned.envelope.data.placements, pinned.envelope.data.fileHash]).toEqual([0, [{ expectedAt: 4, appliedAt: 4, offset: 0 }], fileHashOf("a\n}\nb\n} // b\nc\n")]);
    expect(p.read("a.txt")).toBe("a\n}\nb\n} // b\nc\n");
    // A pure insertion (no old lines) has nothing to be placed by.
    writeFileSync(p.path("ins.patch"), "--- a/a.txt\n+++ b/a.txt\n@@ -2,0 +3,1 @@\n+inserted\n");
    const insertion = await hp(p, ["diff", "apply", "a.txt", "--patch", "ins.patch"]);
    expect([insertion.code, insertion.envelope.error!.code]).toEqual([3, "AMBIGUOUS_ANCHOR"]);
    const placed = await hp(p, ["diff", "apply", "a.txt", "--patch", "ins.patch", "--file-hash", fileHashOf("a\n}\nb\n} // b\nc\n")]);
    expect(placed.code).toBe(0);
    expect(p.read("a.txt")).toBe("a\n}\ninserted\nb\n} // b\nc\n");
  });
});

describe("anchors the adversarial run made lie", () => {
  it("with the read's file hash no longer matching, a lineHash at its line is refused (STALE_ANCHOR) unless its context pins it — an edit elsewhere, or a line swapped in whose hash collides, alike", async () => {
    const p = project({ "a.ts": THREE });
    const read = await hp(p, ["read-hash", "a.ts", "5", "-c", "1"]);
    const { lineHash, contextHash, contextRange, fileHash } = read.envelope.data;
    const edited = THREE.replace("  return 1;", "  return 10;");
    writeFileSync(p.path("a.ts"), edited);
    const bare = await hp(p, ["replace-hash", "a.ts", lineHash, "  return 20;", "--range", "5", "--file-hash", fileHash]);
    expect([bare.code, bare.envelope.error?.code, bare.envelope.error?.message]).toEqual([
      3,
      "STALE_ANCHOR",
      `anchor ${lineHash} no longer matches: the file changed since it was read (its hash is ${fileHashOf(edited)}, not ${fileHash}), and the anchor's hash at its range is no proof these are the lines read; pass the read's --context-hash and --context-range to pin them. Re-read the file and retry.`,
    ]);
    expect(p.read("a.ts")).toBe(edited);
    const pinned = await hp(p, [
      "replace-hash",
      "a.ts",
      lineHash,
      "  return 20;",
      "--range",
      "5",
      "--file-hash",
      fileHash,
      "--context-hash",
      contextHash,
      "--context-range",
      `${contextRange.start}:${contextRange.end}`,
    ]);
    expect([pinned.code, pinned.envelope.data.stale]).toEqual([0, false]);
    expect(p.read("a.ts")).toBe(edited.replace("  return 2;", "  return 20;"));
  });

  it("a lineHash without --range on an unchanged file says it is line N's hash and names --range N, never that the file changed", async () => {
    const p = project({ "a.ts": THREE });
    const read = await hp(p, ["read-hash", "a.ts", "5"]);
    const r = await hp(p, ["replace-hash", "a.ts", read.envelope.data.lineHash, "  return 20;"]);
    expect([r.code, r.envelope.error?.code, r.envelope.error?.message, r.envelope.error?.recovery, r.envelope.error?.details]).toEqual([
      3,
      "STALE_ANCHOR",
      `anchor ${read.envelope.data.lineHash} is the hash of line 5, not of the whole file: without --range an anchor is the file's hash (${fileHashOf(THREE)}); nothing was written.`,
      "Pass the line with its lineHash (--range 5), or the file's hash (read-many's hash, read-hash's fileHash) to replace the whole file.",
      { currentHash: fileHashOf(THREE), lines: [5], total: 1 },
    ]);
    expect(p.read("a.ts")).toBe(THREE);
  });
});

describe("undo is confined like every write (#9 §2)", () => {
  it("another project's changeSets are neither listed nor undone", async () => {
    const a = project({ "a.ts": THREE });
    const b = { ...project({ "b.ts": THREE }), home: a.home };
    const edit = await hp(b, ["replace-hash", "b.ts", sha12("  return 2;"), "  return 20;", "--range", "5"]);
    expect(edit.code).toBe(0);
    expect((await hp(a, ["changesets"])).envelope.data.changeSets).toEqual([]);
    const last = await hp(a, ["undo", "--last"]);
    expect([last.code, last.envelope.error!.code]).toEqual([1, "INVALID_ARGUMENT"]);
    const id = (await hp(b, ["changesets"])).envelope.data.changeSets[0].changeSetId;
    const byId = await hp(a, ["undo", id, "--force"]);
    expect([byId.code, byId.envelope.error!.code]).toEqual([1, "INVALID_ARGUMENT"]);
    expect(b.read("b.ts")).toBe(THREE.replace("return 2;", "return 20;"));
  });

  it("an undo through a symlink swapped in after the edit is PATH_DENIED and writes nothing", async () => {
    const p = project({ "a.ts": THREE });
    const outside = space.dir("hashpilot-outside-");
    writeFileSync(join(outside, "victim.txt"), "keep\n");
    expect((await hp(p, ["replace-hash", "a.ts", sha12("  return 2;"), "  return 20;", "--range", "5"])).code).toBe(0);
    unlinkSync(p.path("a.ts"));
    symlinkSync(join(outside, "victim.txt"), p.path("a.ts"));
    const r = await hp(p, ["undo", "--last", "--force"]);
    expect([r.code, r.envelope.error!.code]).toEqual([1, "PATH_DENIED"]);
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("keep\n");
  });

  it("the snapshot store and the state dir are never written or read through an edit tool, even inside the project", async () => {
    const p = project({ "a.ts": THREE });
    const home = p.path("store"); // HASHPILOT_HOME inside the root, as with `mast serve ~`
    const env = { HASHPILOT_HOME: home };
    expect((await hp(p, ["replace-hash", "a.ts", sha12("  return 2;"), "  return 20;", "--range", "5"], env)).code).toBe(0);
    const id = (await hp(p, ["changesets"], env)).envelope.data.changeSets[0].changeSetId;
    const manifest = `store/snapshots/changesets/${id}.json`;
    const forged = "--- /dev/null\n+++ b/store/snapshots/changesets/cs-20991231T000000000Z-00000000.json\n@@ -0,0 +1 @@\n+{}\n";
    writeFileSync(p.path("forge.patch"), forged);
    mkdirSync(p.path(".mast"));
    writeFileSync(p.path(".mast/config.json"), "{}\n");
    for (const args of [
      ["diff", "apply", "store/snapshots/changesets/cs-20991231T000000000Z-00000000.json", "--patch", "forge.patch"],
      ["replace-hash", manifest, sha12(readFileSync(p.path(manifest), "utf8").replace(/\n$/, "")), "{}"],
      ["replace-hash", ".mast/config.json", sha12("{}"), "{ }"],
      ["read-many", manifest],
      ["read-hash", ".mast/config.json", "1"],
    ]) {
      const r = await hp(p, args, env);
      expect([args[0], r.code, r.envelope.error!.code]).toEqual([args[0], 1, "PATH_DENIED"]);
    }
    // A search of the whole project skips the store (its manifests say "changeSetId") but not the project.
    const grep = await hp(p, ["grep-many", "changeSetId|return 20", "."], env);
    expect(grep.envelope.data.results.map((m: { path: string; line: number }) => [m.path, m.line])).toEqual([[p.path("a.ts"), 5]]);
  });
});

describe("reads are confined like writes (#9 §3)", () => {
  it("read-many, read-hash, grep-many and symbol-lookup-many refuse paths outside the project, through escaping symlinks and under .git, and never quote them", async () => {
    const p = project({ "a.ts": THREE });
    const outside = space.dir("hashpilot-outside-");
    writeFileSync(join(outside, "secret.ts"), "export function CANARY_SECRET() {}\n");
    symlinkSync(outside, p.path("linked"));
    symlinkSync(join(outside, "secret.ts"), p.path("secret-link.ts"));
    writeFileSync(p.path(".git/config"), "[core] CANARY_GIT\n");
    for (const target of ["/etc/passwd", join(outside, "secret.ts"), "../secret.ts", "linked/secret.ts", "secret-link.ts", ".git/config"]) {
      for (const args of [
        ["read-many", target],
        ["read-hash", target, "1"],
        ["grep-many", "CANARY", target],
        ["symbol-lookup-many", target, "--names", "CANARY_SECRET"],
      ]) {
        const r = await hp(p, args);
        expect([args.join(" "), r.code, r.envelope.error?.code]).toEqual([args.join(" "), 1, "PATH_DENIED"]);
        expect(r.stdout).not.toContain("CANARY_");
        expect(r.stdout).not.toContain("root:x:0:0");
      }
    }
    // A directory search inside the project does not follow the escaping symlinks either.
    const all = await hp(p, ["grep-many", "CANARY", "."]);
    expect([all.code, all.envelope.data.results]).toEqual([0, []]);
    const lookup = await hp(p, ["symbol-lookup-many", ".", "--names", "CANARY_SECRET"]);
    expect([lookup.code, lookup.envelope.data]).toEqual([0, []]);
  });

  it("readRoots in the global config open a directory to reads, never to writes", async () => {
    const user = space.dir("hashpilot-user-");
    const shared = space.dir("hashpilot-shared-");
    writeFileSync(join(shared, "lib.ts"), "export const shared = 1;\n");
    mkdirSync(join(user, ".config", "hashpilot"), { recursive: true });
    writeFileSync(join(user, ".config", "hashpilot", "config.json"), JSON.stringify({ readRoots: [shared] }));
    const p = project({ "a.ts": THREE });
    const read = await hp(p, ["read-many", join(shared, "lib.ts")], { HOME: user });
    expect([read.code, read.envelope.data[0].content]).toEqual([0, "export const shared = 1;\n"]);
    const write = await hp(p, ["replace-hash", join(shared, "lib.ts"), sha12("export const shared = 1;"), "x"], { HOME: user });
    expect([write.code, write.envelope.error!.code]).toEqual([1, "PATH_DENIED"]);
    expect((await hp(p, ["read-many", join(shared, "lib.ts")])).envelope.error!.code).toBe("PATH_DENIED");
  });
});

describe("nothing stops a call (#9 §4)", () => {
  it("a catastrophic pattern is stopped with REGEX_TIMEOUT within seconds; a slow search answers what it found by its time budget", async () => {
    const p = project({ "a.txt": `${"a".repeat(40)}b\n`, "slow.txt": `${"x".repeat(22)}\n`.repeat(2000) });
    const runaway = await hp(p, ["grep-many", "(a+)+$", "a.txt"]);
    expect([runaway.code, runaway.envelope.error!.code, runaway.envelope.error!.details]).toEqual([1, "REGEX_TIMEOUT", { path: p.path("a.txt"), line: 1 }]);
    expect(runaway.ms).toBeLessThan(5_000);
    const slow = await hp(p, ["grep-many", "(x+x+)+y", "slow.txt", "--timeout", "400"]);
    expect([slow.code, slow.envelope.data.timedOut, slow.envelope.data.truncated, slow.envelope.warnings.map((w) => w.code)]).toEqual([0, true, true, ["SEARCH_TRUNCATED"]]);
    expect(slow.ms).toBeLessThan(5_000);
  });

  it("a FIFO, a device and a directory are refused before any read (no hang); a directory search skips them and counts them", async () => {
    const p = project({ "a.ts": THREE, "sub/b.ts": "b\n" });
    expect(spawnSync("mkfifo", [p.path("pipe.ts")]).status).toBe(0);
    symlinkSync("/dev/zero", p.path("zero.ts"));
    const fifo = await hp(p, ["read-many", "pipe.ts"]);
    expect([fifo.code, fifo.envelope.error!.code]).toEqual([5, "READ_FAILED"]);
    expect((await hp(p, ["read-hash", "pipe.ts", "1"])).envelope.error!.code).toBe("READ_FAILED");
    expect((await hp(p, ["replace-hash", "pipe.ts", sha12("x"), "y"])).envelope.error!.code).toBe("READ_FAILED");
    expect((await hp(p, ["read-many", "sub"])).envelope.error!.code).toBe("READ_FAILED");
    expect((await hp(p, ["read-many", "zero.ts"])).envelope.error!.code).toBe("PATH_DENIED");
    const grep = await hp(p, ["grep-many", "return", "."]);
    expect([grep.code, grep.envelope.data.results.length, grep.envelope.data.skipped]).toEqual([0, 3, { unreadable: 0, binary: 0, tooLarge: 0, special: 1 }]);
  });

  it.skipIf(!CAN_BE_REFUSED)("an unreadable file in a directory search is skipped and counted, the search goes on", async () => {
    const p = project({ "a.ts": THREE, "locked.ts": "return locked;\n" });
    chmodSync(p.path("locked.ts"), 0o000);
    chmodSync(p.root, 0o755);
    chmodSync(p.home, 0o777);
    const { runHashpilot } = await import("../helpers/cli.js");
    const r = await runHashpilot(["grep-many", "return", "."], { cwd: p.root, env: { HASHPILOT_HOME: p.home, CI: undefined }, ...(AS_ROOT ? { uid: NOBODY, gid: NOBODY } : {}) });
    const envelope = JSON.parse(r.stdout);
    expect([r.code, envelope.data.results.map((m: { line: number }) => m.line), envelope.data.skipped.unreadable]).toEqual([0, [2, 5, 8], 1]);
  });

  it("every answer stays under the cap: read-many cuts the file that crosses it and lists the files after it, telemetry export is limited", async () => {
    const line = "// filler line of text\n";
    const big = line.repeat(110_000); // ~2.5 MB each
    const p = project({ "a.txt": big, "b.txt": big, "c.txt": "small\n" });
    const r = await hp(p, ["read-many", "a.txt", "b.txt", "c.txt"]);
    expect(r.code).toBe(0);
    expect(r.envelope.data.map((d: { path: string; error: unknown; truncated?: true }) => [d.path, d.error, d.truncated ?? false])).toEqual([
      [p.path("a.txt"), null, false],
      [p.path("b.txt"), null, true],
    ]);
    const cut = r.envelope.data[1];
    expect([cut.hash, cut.lines, cut.content]).toEqual([fileHashOf(big), 110_000, line.repeat(cut.contentEndLine)]);
    expect(cut.contentEndLine).toBeGreaterThan(50_000);
    expect(r.envelope.warnings).toEqual([
      {
        code: "RESULT_TRUNCATED",
        message: `read-many stopped at the answer cap: ${p.path("b.txt")} is cut after line ${cut.contentEndLine} of 110000; 1 file(s) from ${p.path("c.txt")} on were not read; read the rest in another call, or in parts with read-hash or the index tools`,
        omitted: 1,
        files: [p.path("c.txt")],
      },
    ]);
    expect(Buffer.byteLength(r.stdout)).toBeLessThan(MAX_ANSWER_BYTES);
    for (let i = 0; i < 3; i++) await hp(p, ["read-hash", "c.txt", "1"]);
    const exported = await hp(p, ["telemetry", "export", "--limit", "2"]);
    expect([exported.envelope.data.events.length, exported.envelope.data.truncated, exported.envelope.data.omitted]).toEqual([2, true, 2]);
  });
});

describe("final newlines, small answers, right error classes (#9 §5)", () => {
  it("diff generate sees a final newline change; diff apply honours the marker both ways, byte for byte, and refuses a patch that does not fit", async () => {
    const p = project({ "a.txt": "a\nb\n" });
    const drop = (await hp(p, ["diff", "generate", "a.txt", "a\nb\n", "a\nb"])).envelope.data.diff as string;
    expect(drop).toBe("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n");
    writeFileSync(p.path("drop.patch"), drop);
    const applied = await hp(p, ["diff", "apply", "a.txt", "--patch", "drop.patch"]);
    expect([applied.code, p.read("a.txt")]).toEqual([0, "a\nb"]);
    const add = (await hp(p, ["diff", "generate", "a.txt", "a\nb", "a\nb\n"])).envelope.data.diff as string;
    writeFileSync(p.path("add.patch"), add);
    expect((await hp(p, ["diff", "apply", "a.txt", "--patch", "add.patch"])).code).toBe(0);
    expect(p.read("a.txt")).toBe("a\nb\n");
    // The file has its newline; a patch that says it has none cannot apply exactly.
    const misfit = await hp(p, ["diff", "apply", "a.txt", "--patch", "add.patch"]);
    expect([misfit.code, misfit.envelope.error!.code, p.read("a.txt")]).toEqual([3, "STALE_ANCHOR", "a\nb\n"]);
    expect((await hp(p, ["diff", "generate", "a.txt", "a\nb\n", "a\r\nb\r\n"])).envelope.data.diff).toBe("(no changes)");
  });

  it("a real diff apply answers placements, ranges and the file hash, not the file (include_source asks for it)", async () => {
    const body = Array.from({ length: 3000 }, (_, i) => `export const value${i} = ${i};`).join("\n");
    const p = project({ "big.ts": `${body}\n` });
    const patch = (await hp(p, ["diff", "generate", "big.ts", "@big.ts", `${body.replace("value1500 = 1500", "value1500 = -1")}\n`])).envelope.data.diff as string;
    writeFileSync(p.path("p.patch"), patch);
    const r = await hp(p, ["diff", "apply", "big.ts", "--patch", "p.patch"]);
    expect(r.code).toBe(0);
    expect(Buffer.byteLength(r.stdout)).toBeLessThan(1_000);
    expect(r.envelope.data).toMatchObject({ newRanges: [{ start: 1498, end: 1504 }], fileHash: sha12(body.replace("value1500 = 1500", "value1500 = -1")) });
    expect(r.envelope.data.newSource).toBeUndefined();
  });

  it("PARSE_ERROR names the error nearest the edited lines", async () => {
    const source = Array.from({ length: 30 }, (_, i) => `export function f${i}() {\n  return ${i};\n}`).join("\n") + "\n";
    const p = project({ "a.ts": source });
    const r = await hp(p, ["replace-hash", "a.ts", sha12("  return 20;"), "  return (20;", "--range", "62"]);
    expect([r.code, r.envelope.error!.code, r.envelope.error!.details.at]).toEqual([2, "PARSE_ERROR", "62:13 (missing ))"]);
  });

  it("absolute in-project paths are accepted; over-long patterns and globs are INVALID_ARGUMENT; diff apply on a missing file is FILE_NOT_FOUND", async () => {
    const p = project({ "a.ts": THREE });
    expect((await hp(p, ["read-hash", p.path("a.ts"), "2"])).envelope.data.content).toBe("  return 1;");
    expect((await hp(p, ["grep-many", "return 2", p.root])).envelope.data.results).toHaveLength(1);
    for (const args of [
      ["grep-many", "x".repeat(100_001), "."],
      ["grep-many", "x", ".", "--file-pattern", "*".repeat(70_000)],
    ]) {
      const r = await hp(p, args);
      expect([args[0], r.code, r.envelope.error!.code]).toEqual([args[0], 1, "INVALID_ARGUMENT"]);
    }
    writeFileSync(p.path("p.patch"), "--- a/gone.ts\n+++ b/gone.ts\n@@ -1,1 +1,1 @@\n-x\n+y\n");
    const gone = await hp(p, ["diff", "apply", "gone.ts", "--patch", "p.patch"]);
    expect([gone.code, gone.envelope.error!.code]).toEqual([5, "FILE_NOT_FOUND"]);
    expect(p.read("a.ts")).toBe(THREE);
  });

  it("content starting with @ is written with @@; @file reads a file", async () => {
    const p = project({ "a.txt": THREE, "body.txt": "  return 10;\n" });
    const literal = await hp(p, ["replace-hash", "a.txt", sha12("  return 1;"), "@@log() {}", "--range", "2"]);
    expect(literal.code).toBe(0);
    expect(p.read("a.txt").split("\n")[1]).toBe("@log() {}");
    expect((await hp(p, ["replace-hash", "a.txt", sha12("  return 2;"), "@body.txt", "--range", "5"])).code).toBe(0);
    expect(p.read("a.txt").split("\n")[4]).toBe("  return 10;");
  });

  it("an edit of a file over the refresh budget answers once written, and says the index refresh was deferred", async () => {
    const line = "export const filler = 1; // padding to make the file large\n";
    const source = `export function target() {\n  return 1;\n}\n${line.repeat(20_000)}`;
    const p = project({ "src/big.ts": source });
    const { resolveConfig } = await import("../../src/index/config.js");
    const { runIndex } = await import("../../src/index/run.js");
    await runIndex(resolveConfig(p.root), { mode: "full" });
    const r = await hp(p, ["replace-hash", "src/big.ts", sha12("  return 1;"), "  return 2;", "--range", "2"]);
    expect([r.code, r.envelope.warnings.map((w) => w.code)]).toEqual([0, ["INDEX_REFRESH_DEFERRED"]]);
    expect(p.read("src/big.ts")).toBe(source.replace("return 1;", "return 2;"));
    expect(statSync(p.path("src/big.ts")).size).toBeGreaterThan(1024 * 1024);
  });

  it("every error code is in the shipped envelope schema", () => {
    const schema = JSON.parse(readFileSync(new URL("../../schema/hashpilot-envelope.schema.json", import.meta.url), "utf8"));
    const codes: string[] = schema.properties.error.oneOf[1].properties.code.enum;
    expect(Object.keys(ERROR_CODES).filter((c) => !codes.includes(c))).toEqual([]);
  });
});
