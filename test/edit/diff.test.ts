// Unified diffs as data: every patch `generateDiff` writes — the minimal one and the one-hunk
// replacement it falls back to when the minimal search runs out of time — applies with
// `planPatch` (the file hash pinning it) to exactly the new text, final newline included, for
// seeded random small texts full of repeated lines; a two-megabyte pair answers within its budget.
import { describe, expect, it } from "vitest";
import { generateDiff, planPatch } from "../../src/edit/diff.js";
import { fileHash, parseText, renderText } from "../../src/edit/text.js";

function prng(seed: number): () => number {
  return () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

const WORDS = ["a", "b", "}", "", "x();", "return;"];

/** Pairs of texts: a random one and an edit of it (lines removed, inserted, changed; final newline either way). */
function pairs(count: number): Array<[string, string]> {
  const rand = prng(0x64696666);
  const out: Array<[string, string]> = [];
  for (let i = 0; i < count; i++) {
    const lines = Array.from({ length: Math.floor(rand() * 12) }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
    const edited = [...lines];
    for (let k = Math.floor(rand() * 4); k > 0; k--) {
      const at = Math.floor(rand() * (edited.length + 1));
      const op = rand();
      if (op < 0.33) edited.splice(at, 1);
      else if (op < 0.66) edited.splice(at, 0, WORDS[Math.floor(rand() * WORDS.length)]!);
      else edited[at] = "changed";
    }
    const end = (ls: string[]) => (ls.length && rand() < 0.7 ? "\n" : "");
    out.push([lines.join("\n") + end(lines), edited.join("\n") + end(edited)]);
  }
  return out;
}

describe("generateDiff and planPatch", () => {
  it("every generated patch applies to exactly the new text, the minimal one and the timed-out replacement alike", () => {
    const failures: unknown[] = [];
    for (const [a, b] of pairs(1500)) {
      for (const context of [0, 1, 3]) {
        for (const timeoutMs of [undefined, -1]) {
          const patch = generateDiff("a/f", "b/f", a, b, context, timeoutMs);
          if (patch === "(no changes)") {
            if (a !== b) failures.push({ a, b, context, patch });
            continue;
          }
          const before = parseText(a);
          const after = renderText(planPatch(before, patch, { fuzzy: null, expectedFileHash: fileHash(before) }).after);
          if (after !== b) failures.push({ a, b, context, timeoutMs, patch, after });
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("a one-line edit in a large file is diffed in what differs; two unrelated 2 MB texts answer as one replacement within the budget", () => {
    const big = Array.from({ length: 60_000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    expect(generateDiff("a/f", "b/f", big, big.replace("line 30000\n", "line 30000 edited\n"), 1)).toBe(
      "--- a/f\n+++ b/f\n@@ -30000,3 +30000,3 @@\n line 29999\n-line 30000\n+line 30000 edited\n line 30001\n",
    );
    const rand = prng(7);
    const noise = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join("\n") + "\n";
    const [x, y] = [noise(300_000), noise(300_000)];
    const started = performance.now();
    const patch = generateDiff("a/f", "b/f", x, y, 3, 500);
    expect(performance.now() - started).toBeLessThan(10_000);
    const before = parseText(x);
    expect(renderText(planPatch(before, patch, { fuzzy: null, expectedFileHash: fileHash(before) }).after)).toBe(y);
  });

  it("an empty text and a single blank line differ", () => {
    expect(generateDiff("a/f", "b/f", "\n", "", 3)).toBe("--- a/f\n+++ b/f\n@@ -1,1 +0,0 @@\n-\n");
  });
});
