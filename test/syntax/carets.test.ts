// Caret-annotated fixtures, one project per language under test/fixtures/carets/<language>/: a
// comment line whose text is `^ <assertion>` states a fact about the line above it, the caret
// under the token it is about (tabs count as 4 columns). Each project is indexed for real, and
// every assertion is checked against the store and the tools:
//   symbol NAME KIND exported|private   a declaration of NAME (the caret on its name) on that line
//   calls TARGET RESOLUTION             a verified call to TARGET at that line, found that way
//   potential TARGET                    no verified call to TARGET there, but a potential match
//   import MODULE -> PATH|external      an import of MODULE at that line, resolved to PATH
//   implements TYPE IFACE               an IMPLEMENTS edge between the two
//   extends TYPE BASE                   an EXTENDS edge between the two
//   chunk TYPE NAME                     a chunk of that type for NAME spans the line
//   signature NAME TEXT…                NAME's signature (first line, whitespace collapsed) is TEXT
// A failing fixture lists every assertion that does not hold, with its file and line; and every
// verified call and heritage edge the index makes must be stated (a false edge fails as surely
// as a missing one). The `<language>-resolver` projects hold one case per rule of the language's
// `callGraph` lists (docs/languages.md).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { indexedProject } from "../helpers/indexed.js";
import { flat } from "../helpers/sites.js";
import { symbolTextReader } from "../../src/store/db.js";
import { EDGE } from "../../src/store/edge-codes.js";
import { edgeType, edgeResolution } from "../helpers/store-dump.js";

const ROOT = join(import.meta.dirname, "../fixtures/carets");

interface Assertion {
  readonly file: string;
  readonly line: number;
  /** The identifier the caret points at ("" when none). */
  readonly word: string;
  /** The line's text from the caret on. */
  readonly at: string;
  readonly words: readonly string[];
  /** The assertion as written, for verbs that take free text. */
  readonly text: string;
}

function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const abs = join(d, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else out[relative(dir, abs)] = readFileSync(abs, "utf8");
    }
  };
  walk(dir);
  return out;
}

function assertionsOf(files: Record<string, string>): Assertion[] {
  const out: Assertion[] = [];
  for (const [file, text] of Object.entries(files)) {
    const lines = text.split("\n");
    let target = -1;
    lines.forEach((raw, i) => {
      const line = raw.replace(/\t/g, "    ");
      const m = /^\s*(?:\/\/|#)\s*\^\s+(.*)$/.exec(line);
      if (!m || target < 0) {
        target = i;
        return;
      }
      const col = line.indexOf("^");
      const at = (lines[target] ?? "").replace(/\t/g, "    ").slice(col);
      const word = /^[\w$]*/.exec(at)![0];
      out.push({ file, line: target + 1, word, at, words: m[1]!.trim().split(/\s+/), text: m[1]!.trim() });
    });
  }
  return out;
}

const LANGUAGES = readdirSync(ROOT).sort();
/** Each fixture states at least this many facts: a parser change that drops annotations fails here. */
const MIN_ASSERTIONS = 12;

describe.each(LANGUAGES)("caret fixtures: %s", (language) => {
  const files = filesUnder(join(ROOT, language));
  const assertions = assertionsOf(files);
  const p = indexedProject(files);

  it(`states at least ${MIN_ASSERTIONS} facts`, () => {
    expect(assertions.length).toBeGreaterThanOrEqual(MIN_ASSERTIONS);
  });

  it("holds every stated fact", async () => {
    const db = p.ctx.store().db;
    const failures: string[] = [];
    for (const a of assertions) {
      const where = `${a.file}:${a.line} ${a.words.join(" ")}`;
      const fail = (why: string) => failures.push(`${where}: ${why}`);
      const [verb, ...rest] = a.words;
      switch (verb) {
        case "symbol": {
          const [name, kind, visibility] = rest as [string, string, string];
          const row = db.prepare("SELECT s.kind, s.is_exported AS exported FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.name = ? AND s.line = ?").get(a.file, name, a.line) as
            | { kind: string; exported: number }
            | undefined;
          if (!row) fail("no such symbol on this line");
          else if (row.kind !== kind) fail(`kind is ${row.kind}`);
          else if ((row.exported === 1) !== (visibility === "exported")) fail(`is_exported is ${row.exported}`);
          // A name is an identifier, or what a language allows beside one (`reset!`, `name=`, `<=>`, `operator +`).
          const tail = name.slice(name.lastIndexOf(".") + 1);
          const written = new RegExp(`^${[...tail].map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s*")}(?![\\w$])`);
          if (!written.test(a.at)) fail(`the caret points at "${a.at.slice(0, tail.length + 2)}", not the name`);
          break;
        }
        case "calls":
        case "potential": {
          const [target, resolution] = rest as [string, string | undefined];
          if (a.word === "") fail("the caret points at no identifier");
          const edges = db
            .prepare(
              `SELECT ${edgeResolution("e")} AS resolution FROM edges e JOIN symbols t ON t.id = e.to_id JOIN symbols s ON s.id = e.from_id JOIN files f ON f.id = s.file_id WHERE e.edge_type = ${EDGE.POTENTIAL_CALL} AND t.name = ? AND f.path = ? AND e.call_line = ?`,
            )
            .all(target, a.file, a.line) as Array<{ resolution: string }>;
          if (verb === "calls") {
            if (edges.length === 0) fail("no verified call edge");
            else if (!edges.some((e) => e.resolution === resolution)) fail(`resolution is ${edges.map((e) => e.resolution).join(",")}`);
          } else {
            if (edges.length > 0) fail(`verified (${edges[0]!.resolution}), expected potential only`);
            const answer = await p.call("mast_callers", { symbol: target, potential_limit: 200 });
            const sites = flat(answer.potential_matches ?? [], "potential");
            if (!sites.some((s) => s.file_path === a.file && s.line === a.line)) fail("not among the potential matches");
          }
          break;
        }
        case "import": {
          const [module, arrow, path] = rest as [string, string, string];
          expect(arrow).toBe("->");
          const rows = db
            .prepare(
              "SELECT (SELECT path FROM files WHERE id = i.resolved_file_id) AS resolved, i.is_external AS external FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path = ? AND i.module = ? AND i.line = ?",
            )
            .all(a.file, module, a.line) as Array<{
            resolved: string | null;
            external: number;
          }>;
          if (rows.length === 0) fail("no such import on this line");
          else if (path === "external" ? !rows.every((r) => r.resolved === null && r.external === 1) : !rows.some((r) => r.resolved === path))
            fail(`resolved to ${rows.map((r) => r.resolved ?? (r.external ? "external" : "nothing")).join(",")}`);
          break;
        }
        case "implements":
        case "extends": {
          const [type, iface] = rest as [string, string];
          const edge = db
            .prepare("SELECT 1 FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.edge_type = ? AND a.name = ? AND b.name = ?")
            .get(EDGE[verb === "implements" ? "IMPLEMENTS" : "EXTENDS"], type, iface);
          if (!edge) fail(`no ${verb.toUpperCase()} edge`);
          break;
        }
        case "chunk": {
          const [type, name] = rest as [string, string];
          const chunk = db
            .prepare("SELECT 1 FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ? AND c.chunk_type = ? AND c.symbol_name = ? AND c.start_line <= ? AND c.end_line >= ?")
            .get(a.file, type, name, a.line, a.line);
          if (!chunk) fail("no such chunk spans the line");
          break;
        }
        case "signature": {
          const name = rest[0]!;
          const expected = a.text.slice(a.text.indexOf(name) + name.length).trim();
          const row = db.prepare("SELECT s.id, s.file_id FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.name = ? AND s.line = ?").get(a.file, name, a.line) as
            | { id: number; file_id: number }
            | undefined;
          const actual = ((row && symbolTextReader(db)(row.file_id, row.id).signature) ?? "").split("\n")[0]!.replace(/\s+/g, " ").trim();
          if (!row) fail("no such symbol on this line");
          else if (actual !== expected) fail(`signature is "${actual}"`);
          break;
        }
        default:
          fail(`unknown assertion "${verb}"`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("states every verified call and heritage edge the index makes", () => {
    const db = p.ctx.store().db;
    const stated = new Set(assertions.filter((a) => a.words[0] === "calls").map((a) => `${a.file}:${a.line} ${a.words[1]}`));
    const heritage = new Set(assertions.filter((a) => a.words[0] === "implements" || a.words[0] === "extends").map((a) => `${a.words[0]!.toUpperCase()} ${a.words[1]} ${a.words[2]}`));
    const calls = db
      .prepare(
        `SELECT f.path, e.call_line AS line, t.name FROM edges e JOIN symbols t ON t.id = e.to_id JOIN symbols s ON s.id = e.from_id JOIN files f ON f.id = s.file_id WHERE e.edge_type = ${EDGE.POTENTIAL_CALL}`,
      )
      .all() as Array<{ path: string; line: number; name: string }>;
    const inherits = db
      .prepare(
        `SELECT ${edgeType("e")} AS type, a.name AS type_name, b.name AS base FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.edge_type IN (${EDGE.EXTENDS}, ${EDGE.IMPLEMENTS})`,
      )
      .all() as Array<{ type: string; type_name: string; base: string }>;
    const unstated = [...calls.map((c) => `${c.path}:${c.line} ${c.name}`).filter((k) => !stated.has(k)), ...inherits.map((h) => `${h.type} ${h.type_name} ${h.base}`).filter((k) => !heritage.has(k))];
    expect([...new Set(unstated)].sort()).toEqual([]);
  });
});
