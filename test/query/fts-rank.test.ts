// The addon's FTS5 functions (native/sqlite_ext.c) against FTS5's own bm25 on a real graph.db:
// mast_bm25 scores every match as bm25 does (with the rows' sizes kept by the connection, across
// writes that add and remove rows), over a query's first phrases as bm25 scores those phrases
// alone, and refuses a row without a size record; mast_fts_stats gives the IDFs bm25 counts; and
// search's max-score cut (query/fts-rank.ts prunedBest) keeps exactly the best matches every match's
// scoring keeps, or declines.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { nativeAddonPath } from "../../src/base/native.js";
import { CHUNK_WORDS, IDENTIFIERS, phraseStats, prunedBest, type FtsRanking } from "../../src/query/fts-rank.js";
import type { FtsClause } from "../../src/query/search-terms.js";
import { doublesOf, ftsFunctions } from "../../src/store/db.js";
import { Store } from "../../src/store/store.js";
import { extractFile } from "../../src/syntax/extract.js";
import { GOLDEN_OPTIONS } from "../helpers/extraction.js";

let dir: string;
let store: Store;

const meta = (path: string) => ({ path, language: "typescript", mtime: 1, size: 10, ino: 1, ctime: 1, contentHash: "0".repeat(64), statClean: true });

/** File i: one function whose body names `common` (every file), `rareword` (i < 130), `shortword` (i < 100) and `zebra` (i < 20), a varying number of times. */
function source(i: number): string {
  const words = [`common${"\n  common".repeat(i % 3)}`, i < 130 ? `rareword${"\n  rareword".repeat(i % 4)}` : "", i < 100 ? "shortword" : "", i < 20 ? "zebra" : "", `filler${i} `.repeat(i % 7)];
  return `export function handle${i}(input: number) {\n  ${words.join("\n  ")}\n  return input;\n}\n`;
}

function write(path: string, text: string): void {
  const r = extractFile(path, text, GOLDEN_OPTIONS);
  if (!r.ok) throw new Error(r.error);
  store.writeFile(meta(path), r.extraction);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mast-fts-rank-"));
  store = Store.open(join(dir, "graph.db"));
  for (let i = 0; i < 300; i++) write(`src/f${i}.ts`, source(i));
  // 60 long bodies (2,000 words) naming `longword` once: each scores low for it.
  ftsFunctions(store.db); // loads the extension into the connection
  for (let i = 0; i < 60; i++) write(`src/long${i}.ts`, `export function long${i}() {\n  longword\n${"  pad pad pad pad pad pad pad pad pad pad\n".repeat(200)}}\n`);
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const weightsOf = (fts: FtsRanking) => fts.weights;

/** Every match's [rowid, score] by FTS5's bm25 and by mast_bm25 over all phrases with the kept sizes. */
function bothScores(fts: FtsRanking, expression: string): [Array<[number, number]>, Array<[number, number]>] {
  const t = fts.table;
  const ours = store.db
    .prepare(`SELECT rowid, mast_bm25(${t}, 0, NULL, '${t}'${weightsOf(fts)}) FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid`)
    .raw()
    .all(expression) as Array<[number, number]>;
  const theirs = store.db
    .prepare(`SELECT rowid, bm25(${t}${weightsOf(fts)}) FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid`)
    .raw()
    .all(expression) as Array<[number, number]>;
  return [ours, theirs];
}

it("loads the FTS5 functions with the addon", () => {
  expect(nativeAddonPath).not.toBeNull(); // built by npm ci (native/), as test/base/native.test.ts requires
  expect(ftsFunctions(store.db)).toBe(true);
});

it("scores every match as FTS5's bm25 does, to the bit, with and without column weights", () => {
  const cases: Array<[FtsRanking, string, number]> = [
    [CHUNK_WORDS, '"common"', 300],
    [CHUNK_WORDS, '"rare"*', 130],
    [CHUNK_WORDS, '"rareword" OR "zebra" OR "common"', 300],
    [CHUNK_WORDS, '"rareword" AND "common"', 130],
    [IDENTIFIERS, '"input" OR "rareword"', 300],
    [IDENTIFIERS, '"zebra" AND "common"', 20],
  ];
  for (const [fts, expression, matches] of cases) {
    const [ours, theirs] = bothScores(fts, expression);
    expect(ours).toHaveLength(matches);
    expect(ours).toEqual(theirs);
    // Not one score for all: the lengths and counts differ, and so do the scores.
    expect(new Set(ours.map(([, s]) => s)).size).toBeGreaterThan(1);
  }
});

it("scores a query's first phrases as bm25 scores them alone, with the IDFs mast_fts_stats gives", () => {
  const t = "chunk_words";
  const full = '"zebra" OR "rareword" OR "common"';
  const blob = store.db.prepare(`SELECT mast_fts_stats(${t}) FROM ${t} WHERE ${t} MATCH ? LIMIT 1`).pluck().get(full) as Buffer;
  const stats = [...doublesOf(blob)];
  const rows = store.db.prepare(`SELECT count(*) FROM ${t}_docsize`).pluck().get() as number;
  const idf = (hits: number) => Math.max(Math.log((rows - hits + 0.5) / (hits + 0.5)), 1e-6);
  expect(stats.slice(0, 4)).toEqual([rows, 20, 130, 300]);
  expect(stats.slice(4)).toEqual([idf(20), idf(130), idf(300)]);
  expect(stats[6]).toBe(1e-6); // in every row: FTS5's floor
  const theirs = new Map(store.db.prepare(`SELECT rowid, bm25(${t}) FROM ${t} WHERE ${t} MATCH ?`).raw().all(full) as Array<[number, number]>);
  for (const idfs of [blob, null]) {
    const within = store.db.prepare(`SELECT rowid, mast_bm25(${t}, 3, ?, '${t}') FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid`).raw().all(idfs, `(${full}) AND ("zebra" OR "rareword")`) as Array<
      [number, number]
    >;
    expect(within).toHaveLength(130);
    for (const [id, score] of within) expect(score).toBe(theirs.get(id));
  }
});

it("keeps no size across a write: rows added into a block already read and rows removed score as bm25 does", () => {
  const t = "chunk_words";
  // Every block read, the last one (the long files' rows) before the rows added below are in it.
  bothScores(CHUNK_WORDS, '"common" OR "pad"');
  write("src/late.ts", "export function late() {\n  common\n  common\n  rareword\n}\n");
  store.deleteFile("src/f3.ts");
  write("src/f5.ts", "export function handle5() {\n  common rareword rareword zebra zebra zebra\n}\n");
  const [ours, theirs] = bothScores(CHUNK_WORDS, '"common"');
  expect(ours).toEqual(theirs);
  expect(ours).toHaveLength(300); // 300 - f3 + late
  const late = store.db.prepare(`SELECT rowid FROM ${t} WHERE ${t} MATCH '"late"'`).pluck().get() as number;
  expect(ours.some(([id]) => id === late)).toBe(true);
});

it("refuses a match whose size record is missing instead of scoring it", () => {
  const scratch = Store.open(join(dir, "scratch.db"));
  try {
    expect(ftsFunctions(scratch.db)).toBe(true);
    const r = extractFile("src/a.ts", "export function a() {\n  zebra\n}\n", GOLDEN_OPTIONS);
    if (!r.ok) throw new Error(r.error);
    scratch.writeFile(meta("src/a.ts"), r.extraction);
    // better-sqlite3 guards FTS5's shadow tables (SQLite's defensive mode) unless asked not to.
    scratch.db.unsafeMode(true);
    scratch.db.exec("DELETE FROM chunk_words_docsize");
    scratch.db.unsafeMode(false);
    const score = () => scratch.db.prepare(`SELECT mast_bm25(chunk_words, 0, NULL, 'chunk_words') FROM chunk_words WHERE chunk_words MATCH '"zebra"'`).all();
    expect(score).toThrow(/malformed|corrupt/i);
    expect(() => scratch.db.prepare(`SELECT mast_bm25(chunk_words, 0, NULL, 'chunk_words"; --') FROM chunk_words WHERE chunk_words MATCH '"zebra"'`).all()).toThrow(/mismatch/i);
  } finally {
    scratch.close();
  }
});

const OUTER = "SELECT m.id AS id, m.score AS score, (SELECT count(*) FROM m) AS n, (SELECT max(score) FROM m) AS worst FROM m ORDER BY m.score ASC, m.id ASC";

/** The depth best matches by every match's bm25, in score then rowid order. */
function everyMatchBest(fts: FtsRanking, expression: string, depth: number): Array<{ id: number; score: number }> {
  const t = fts.table;
  return store.db.prepare(`SELECT rowid AS id, bm25(${t}${fts.weights}) AS score FROM ${t} WHERE ${t} MATCH ? ORDER BY score ASC, rowid ASC LIMIT ?`).all(expression, depth) as Array<{
    id: number;
    score: number;
  }>;
}

/** prunedBest of an OR of single phrases, with their statistics as overBest reads them. */
function pruned(fts: FtsRanking, clauses: readonly FtsClause[], depth: number): Array<{ id: number; score: number; n: number; worst: number }> | null {
  return prunedBest(store.db, fts, clauses, phraseStats(store.db, fts, clauses, "OR")!, depth, OUTER, []);
}

it("cuts an OR among the chunks holding its rarest phrases when they decide it, as scoring every match does", () => {
  const clauses = [
    { text: '"rareword"', word: "rareword" },
    { text: '"common"', word: "common" },
  ];
  // 130 chunks hold rareword, 300 common: the 40 best are among rareword's, each above what common alone can score.
  const cut = pruned(CHUNK_WORDS, clauses, 40);
  expect(cut).not.toBeNull();
  const expected = everyMatchBest(CHUNK_WORDS, '"rareword" OR "common"', 40);
  expect(cut!.map(({ id, score }) => ({ id, score }))).toEqual(expected);
  expect(cut![0]!.n).toBe(40);
  // Deeper than the rare phrase's chunks: no cut, the caller scores every match.
  expect(pruned(CHUNK_WORDS, clauses, 140)).toBeNull();
});

it("counts each phrase's rows as bm25 does, again once the data changed; nothing matching is no statistics", () => {
  const t = "chunk_words";
  const clauses = [
    { text: '"zebra"', word: "zebra" },
    { text: '"common"', word: "common" },
  ];
  const matching = (phrase: string) => store.db.prepare(`SELECT count(*) FROM ${t} WHERE ${t} MATCH ?`).pluck().get(phrase) as number;
  const zebras = matching('"zebra"');
  const stats = () => [...doublesOf(phraseStats(store.db, CHUNK_WORDS, clauses, "OR")!)];
  const before = stats();
  expect(before.slice(1, 3)).toEqual([zebras, matching('"common"')]);
  // Counted before: given, not counted again (the function takes what it is told).
  const told = store.db
    .prepare(`SELECT mast_fts_stats(${t}, ?) FROM ${t} WHERE ${t} MATCH '"zebra"' LIMIT 1`)
    .pluck()
    .get(Buffer.from(new Float64Array([7]).buffer)) as Buffer;
  expect([...doublesOf(told)].slice(0, 2)).toEqual([before[0], 7]);
  expect(() => store.db.prepare(`SELECT mast_fts_stats(${t}, ?) FROM ${t} WHERE ${t} MATCH '"zebra"' LIMIT 1`).get(Buffer.alloc(16))).toThrow(/mismatch/i);
  write("src/zebra2.ts", "export function z() {\n  zebra\n}\n");
  const after = stats();
  expect([after[0], ...after.slice(1, 3)]).toEqual([before[0]! + 1, zebras + 1, matching('"common"')]);
  expect(
    phraseStats(
      store.db,
      CHUNK_WORDS,
      [
        { text: '"nowhere"', word: "nowhere" },
        { text: '"nothing"', word: "nothing" },
      ],
      "OR",
    ),
  ).toBeUndefined();
});

it("declines a cut the rest could still overturn: the rare phrase's chunks all below what a commoner one can add", () => {
  const clauses = [
    { text: '"longword"', word: "longword" },
    { text: '"shortword"', word: "shortword" },
  ];
  // longword: 60 long chunks, each scoring low; shortword's 99 short chunks score above them.
  expect(pruned(CHUNK_WORDS, clauses, 40)).toBeNull();
  const expected = everyMatchBest(CHUNK_WORDS, '"longword" OR "shortword"', 40);
  const longs = new Set(store.db.prepare(`SELECT rowid FROM chunk_words WHERE chunk_words MATCH '"longword"'`).pluck().all() as number[]);
  expect(expected.filter((r) => !longs.has(r.id))).toHaveLength(40);
});
