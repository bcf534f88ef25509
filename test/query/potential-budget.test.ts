// The scan budget of a reader's potential lines (PotentialOptions.scanChunks): past it, the chunks
// of the declaring file and of the files that import it are read first, and the chunks left unread
// are counted — never silently dropped; under it, the answer is the unbudgeted one.
import { expect, it } from "vitest";
import { potentialMatches, verifiedCallers } from "../../src/query/graph.js";
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

function ask(scanChunks?: number, project = p) {
  const db = project.ctx.store().db;
  const t = db.prepare("SELECT s.id, s.name, s.file_id AS fileId, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = 'render'").get() as { id: number; name: string; fileId: number; path: string };
  return potentialMatches(db, project.project.root, [t.name], { ids: [t.id], fileId: t.fileId, path: t.path }, verifiedCallers(db, [t.id], false), 50, scanChunks === undefined ? {} : { scanChunks });
}

it("under the budget: the unbudgeted answer, nothing unexamined", () => {
  const whole = ask();
  expect(whole.total).toBe(7);
  expect(whole.matches.map((m) => `${m.file_path}:${m.line}`)).toEqual(["lib/other0.ts:2", "lib/other1.ts:2", "lib/other2.ts:2", "lib/other3.ts:2", "lib/other4.ts:2", "lib/other5.ts:2", "src/page.ts:1"]);
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
