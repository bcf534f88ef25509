// Language conformance: each deep language's resolver rules as executable cases. A small project
// per language under test/fixtures/lang/<lang>/ says on its own lines what mast must answer:
//
//   x.m()        # calls: Class.m            a verified call edge from this line to that symbol
//   x.m()        # calls: Class.m in a/b.py  … declared in that file
//   y.n()        # potential: Class.n        no verified edge from this line; mast_callers of
//                                            Class.n lists the line among its potential matches
//   class C(B):  # implements: B             an EXTENDS or IMPLEMENTS edge from C to B
//   f().m()      # calls: f  # potential: T.m    several on one line
//
// (`//` instead of `#` in Go and Rust.) The index is built for real; every verified call edge and
// every heritage edge of the fixture must be annotated, and every annotation must hold: a rule's
// case is a line of its fixture, and docs/languages.md's claims are checked in `npm test`.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { statePaths } from "../../src/index/state.js";
import { indexedProject } from "../helpers/indexed.js";
import { queryStore } from "../helpers/store-dump.js";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "lang");
/** One annotation; a line may carry several (`# calls: Repo.lead  # potential: User.rename`). */
const ANNOTATION = /(?:#|\/\/)\s*(calls|potential|implements):\s*(.+?)\s*(?=#|\/\/|$)/g;

interface Expectation {
  readonly kind: "calls" | "potential" | "implements";
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly targetFile: string | null;
}

function filesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const abs = join(d, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else out[relative(dir, abs).split("\\").join("/")] = readFileSync(abs, "utf8");
    }
  };
  walk(dir);
  return out;
}

function expectationsOf(files: Record<string, string>): Expectation[] {
  const out: Expectation[] = [];
  for (const [file, text] of Object.entries(files)) {
    text.split("\n").forEach((lineText, i) => {
      for (const m of lineText.matchAll(ANNOTATION)) {
        for (const item of m[2]!.split(",")) {
          const [target, targetFile] = item.trim().split(/\s+in\s+/);
          out.push({ kind: m[1] as Expectation["kind"], file, line: i + 1, target: target!, targetFile: targetFile ?? null });
        }
      }
    });
  }
  return out;
}

const show = (e: { file: string; line: number; target: string; targetFile: string | null }) => `${e.file}:${e.line} -> ${e.target}${e.targetFile ? ` in ${e.targetFile}` : ""}`;

for (const language of readdirSync(FIXTURES).sort()) {
  describe(`conformance: ${language}`, () => {
    const files = filesOf(join(FIXTURES, language));
    const expectations = expectationsOf(files);
    const p = indexedProject(files);

    it("has a verified call edge for every `calls:` line and no other", () => {
      const rows = queryStore(
        statePaths(p.ctx.config.state_dir).graphDb,
        "SELECT ff.path AS file, e.call_line AS line, b.name AS target, tf.path AS target_file FROM edges e JOIN symbols a ON a.id = e.from_id JOIN files ff ON ff.id = a.file_id " +
          "JOIN symbols b ON b.id = e.to_id JOIN files tf ON tf.id = b.file_id WHERE e.edge_type = 'POTENTIAL_CALL' AND e.resolution IS NOT NULL",
      ) as Array<{ file: string; line: number; target: string; target_file: string }>;
      const wanted = expectations.filter((e) => e.kind === "calls");
      const actual = rows.map((r) => ({ file: r.file, line: r.line, target: r.target, targetFile: wanted.some((w) => w.file === r.file && w.line === r.line && w.target === r.target && w.targetFile !== null) ? r.target_file : null }));
      expect(actual.map(show).sort()).toEqual(wanted.map(show).sort());
    });

    it("lists every `potential:` line as a potential match and never as verified", async () => {
      const wanted = expectations.filter((e) => e.kind === "potential");
      const wrong: string[] = [];
      for (const e of wanted) {
        const answer = await p.call("mast_callers", { symbol: e.target, ...(e.targetFile ? { file_path: e.targetFile } : {}), potential_limit: 1000 });
        const lines = (groups: Array<{ file_path: string; sites: string[] }> | undefined) => (groups ?? []).flatMap((g) => g.sites.map((s) => `${g.file_path}:${/^(\d+)/.exec(s)![1]}`));
        const at = `${e.file}:${e.line}`;
        if (lines(answer.verified_callers).includes(at)) wrong.push(`${show(e)}: verified`);
        else if (!lines(answer.potential_matches).includes(at)) wrong.push(`${show(e)}: not among the potential matches`);
      }
      expect(wrong).toEqual([]);
    });

    it("has an EXTENDS or IMPLEMENTS edge for every `implements:` line and no other", () => {
      const rows = queryStore(
        statePaths(p.ctx.config.state_dir).graphDb,
        "SELECT ff.path AS file, a.line AS line, b.name AS target FROM edges e JOIN symbols a ON a.id = e.from_id JOIN files ff ON ff.id = a.file_id " +
          "JOIN symbols b ON b.id = e.to_id WHERE e.edge_type IN ('EXTENDS', 'IMPLEMENTS')",
      ) as Array<{ file: string; line: number; target: string }>;
      const wanted = expectations.filter((e) => e.kind === "implements");
      expect(rows.map((r) => show({ ...r, targetFile: null })).sort()).toEqual(wanted.map((w) => show({ ...w, targetFile: null })).sort());
    });
  });
}
