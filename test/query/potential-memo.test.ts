// PotentialMemo (what the checker pass keeps across its thousands of targets) answers exactly what
// potentialMatches answers without it, target by target: the one scan of every chunk finds the
// same lines as identifier_fts one name at a time, `#private` names, `$` names, `a#b` and
// snake_case neighbours, class outlines read from the file and import clauses included.
import { expect, it } from "vitest";
import { PotentialMemo, potentialMatches } from "../../src/query/potential-sites.js";
import { verifiedCallers } from "../../src/query/callers.js";
import { tailOf } from "../../src/query/navigation.js";
import { indexedProject } from "../helpers/indexed.js";

const FILES: Record<string, string> = {
  "src/box.ts": [
    "export class Box {",
    "  #size = 0;",
    "  #grow(n: number) { this.#size += n; }",
    "  $peek() { return this.#size; }",
    "  get_size() { return this.#size; }",
    "  size() { this.#grow(1); return this.$peek(); }",
    "  /** size() and get_size() agree */",
    "  // not #grow's: a#grow, ##grow",
    "  // a#grow ##grow",
    "  check() { return this.size() === this.get_size(); }",
    "}",
    "export function size(b: Box) { return b.size(); }",
    "",
  ].join("\n"),
  "src/use.ts": [
    "import {",
    "  size,",
    "  Box,",
    "} from './box';",
    "const b = new Box();",
    "export const n = size(b) + b.size();",
    "const odd = 'a#size' + `size`;",
    "export function peek() { return b.$peek(); }",
    "export function sized() { return size; }",
    "",
  ].join("\n"),
};

const p = indexedProject(FILES);

it("finds the same potential lines with the memo as without it, for every function and method", () => {
  const db = p.ctx.store().db;
  const root = p.project.root;
  const targets = db.prepare("SELECT s.id, s.name, s.file_id AS fileId, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method') ORDER BY s.id").all() as Array<{
    id: number;
    name: string;
    fileId: number;
    path: string;
  }>;
  expect(targets.map((t) => t.name)).toEqual(["Box.#grow", "Box.$peek", "Box.get_size", "Box.size", "Box.check", "size", "peek", "sized"]);
  const memo = new PotentialMemo(
    root,
    targets.map((t) => tailOf(t.name)),
  );
  const answers = targets.map((t) => {
    const ask = (withMemo: boolean) =>
      potentialMatches(db, root, [t.name], { ids: [t.id], fileId: t.fileId, path: t.path }, verifiedCallers(db, [t.id], false), 1000, { unranked: true, ...(withMemo ? { memo } : {}) }).matches.map(
        (m) => `${m.file_path}:${m.line} ${m.context}`,
      );
    const plain = ask(false);
    expect(ask(true), t.name).toEqual(plain);
    return [t.name, plain] as const;
  });
  // The memo is not vacuous: names with lines, a `#private` one among them.
  const byName = Object.fromEntries(answers);
  expect(byName["Box.#grow"]).toEqual(["src/box.ts:8 // not #grow's: a#grow, ##grow"]);
  expect(byName["Box.size"]).toEqual([
    "src/box.ts:7 /** size() and get_size() agree */",
    "src/use.ts:2 size,",
    "src/use.ts:7 const odd = 'a#size' + `size`;",
    "src/use.ts:9 export function sized() { return size; }",
  ]);
});
