// The scan budget of a reader's potential lines (PotentialOptions.scanChunks): past it, the chunks
// of the declaring file and of the files that import it are read first, and the chunks left unread
// are counted — never silently dropped; under it, the answer is the unbudgeted one.
import { expect, it } from "vitest";
import { potentialMatches } from "../../src/query/potential-sites.js";
import { verifiedCallers } from "../../src/query/callers.js";
import { indexedProject } from "../helpers/indexed.js";

/** `render` declared in src/view.ts, called by its importer src/page.ts and named by six unrelated files that never import it. */
const FILES: Record<string, string> = {
  "src/view.ts": "export function render(x: number) {\n  return x;\n}\nexport function again() {\n  return render(2);\n}\n",
  "src/page.ts": "import { render } from './view';\nexport function page() {\n  return render(1);\n}\n",
  ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`lib/other${i}.ts`, `export function use${i}(o: any) {\n  return o.render(${i});\n}\n`])),
};

const p = indexedProject(FILES);
// Twelve more files import view.ts without naming `render`: the tiers (the declaring file, its
// importers) hold more files than there are chunks naming it.
const wide = indexedProject({ ...FILES, ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`src/use${i}.ts`, `import { again } from './view';\nexport const v${i} = again();\n`])) });

// 1,100 files that never import view.ts name `render` (lib/, indexed first: lower chunk ids), then
// 70 importers name it: a tier past 64 files is told by the found chunks' files a slice at a time
// until it shows too sparse there, then by its own files' chunks — the same order either way.
const many = indexedProject({
  "src/view.ts": "export function render(x: number) {\n  return x;\n}\nexport const again = 1;\n",
  ...Object.fromEntries(Array.from({ length: 1_100 }, (_, i) => [`lib/o${String(i).padStart(4, "0")}.ts`, `export const u${i} = (o: any) => o.render(${i});\n`])),
  ...Object.fromEntries(
    Array.from({ length: 70 }, (_, i) => [`src/use${String(i).padStart(2, "0")}.ts`, `import { again } from './view';\nexport const v${i} = (o: any) => o.render(${i}) + again;\n`]),
  ),
});

function ask(scanChunks?: number, project = p) {
  const db = project.ctx.store().db;
  const t = db.prepare("SELECT s.id, s.name, s.file_id AS fileId, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = 'render'").get() as {
    id: number;
    name: string;
    fileId: number;
    path: string;
  };
  return potentialMatches(db, project.project.root, [t.name], { ids: [t.id], fileId: t.fileId, path: t.path }, verifiedCallers(db, [t.id], false), 50, scanChunks === undefined ? {} : { scanChunks });
}

it("under the budget: the unbudgeted answer, nothing unexamined", () => {
  const whole = ask();
  expect(whole.total).toBe(7);
  expect(whole.matches.map((m) => `${m.file_path}:${m.line}`)).toEqual([
    "lib/other0.ts:2",
    "lib/other1.ts:2",
    "lib/other2.ts:2",
    "lib/other3.ts:2",
    "lib/other4.ts:2",
    "lib/other5.ts:2",
    "src/page.ts:1",
  ]);
  expect(whole.unexamined).toBeUndefined();
  expect(ask(100)).toEqual(whole);
});

it("past the budget: the declaring file's and its importers' chunks first, the rest counted as unexamined", () => {
  // 10 chunks name `render`: view.ts's two (render, again), page.ts's two (its import, page), one in each other file.
  // Four are read: the declaring file's, then its importer's; the six files that never import it are counted, not read.
  const budgeted = ask(4);
  expect(budgeted.unexamined).toBe(6);
  expect(budgeted.total).toBe(1);
  expect(budgeted.matches.map((m) => `${m.file_path}:${m.line}`)).toEqual(["src/page.ts:1"]);
});

it("past the budget, with more importing files than chunks naming it: the same order, the same count", () => {
  // Each found chunk's file is then read by the chunk's id instead of each tier file's chunks.
  const budgeted = ask(4, wide);
  expect(budgeted.unexamined).toBe(6);
  expect(budgeted.total).toBe(1);
  expect(budgeted.matches.map((m) => `${m.file_path}:${m.line}`)).toEqual(["src/page.ts:1"]);
});

it("past the budget, with a tier of many files and many chunks naming it before it: the tier's chunks first, in id order", () => {
  const budgeted = ask(30, many);
  // 1,171 chunks name it: the declaring file's one, then 29 of the 70 importers' (by id: path order); 1,141 unexamined.
  expect(budgeted.unexamined).toBe(1_141);
  expect(budgeted.matches.map((m) => `${m.file_path}:${m.line}`)).toEqual(Array.from({ length: 29 }, (_, i) => `src/use${String(i).padStart(2, "0")}.ts:2`));
  expect(budgeted.total).toBe(29);
}, 60_000);
