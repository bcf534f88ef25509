// The checker pass's Rust backend (query/checker-scip.ts, rust-analyzer's `scip`): it loads the
// workspace as cargo does — the crate's build scripts and proc macros run — so it runs only when
// MAST_RUST_ANALYZER names the program; otherwise, or when what it names does not run, the pass
// says so for the language and the syntactic edges stay. Where MAST_RUST_ANALYZER is set for the
// test run, the real rust-analyzer judges a small crate: a method called on a binding of a tuple
// pattern (typed only by inference) becomes a verified `checker` edge, another type's method of
// the name stays potential, a mention in a comment stays as it was.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runIndex, type IndexReport } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { checkerPass } from "../../src/query/checker.js";
import { RUST_ANALYZER_ENV } from "../../src/query/checker-scip.js";
import { tempSpace, type TestProject } from "../helpers/project.js";
import { queryStore } from "../helpers/store-dump.js";
import { RESOLVED } from "../../src/store/edge-codes.js";

const FILES: Record<string, string> = {
  "Cargo.toml": '[package]\nname = "seqs"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
  "src/lib.rs": [
    "pub struct Seq {", //                                        1
    "    v: Vec<u8>,", //                                         2
    "}", //                                                       3
    "", //                                                        4
    "impl Seq {", //                                              5
    "    pub fn size(&self) -> usize {", //                       6
    "        self.v.len()", //                                    7
    "    }", //                                                   8
    "}", //                                                       9
    "", //                                                       10
    "pub struct Other;", //                                      11
    "", //                                                       12
    "impl Other {", //                                           13
    "    pub fn size(&self) -> usize {", //                      14
    "        0", //                                              15
    "    }", //                                                  16
    "}", //                                                      17
    "", //                                                       18
    "pub fn pair() -> (Seq, Other) {", //                        19
    "    (Seq { v: Vec::new() }, Other)", //                     20
    "}", //                                                      21
    "", //                                                       22
    "// s.size() is cheap", //                                   23
    "pub fn total() -> usize {", //                              24
    "    let (s, _o) = pair();", //                              25
    "    s.size()", //                                           26
    "}", //                                                      27
    "", //                                                       28
    "pub fn other(o: &Other) -> usize {", //                     29
    "    o.size()", //                                           30
    "}", //                                                      31
    "",
  ].join("\n"),
};

const space = tempSpace(FILES);
const given = process.env[RUST_ANALYZER_ENV];
afterEach(() => {
  if (given === undefined) delete process.env[RUST_ANALYZER_ENV];
  else process.env[RUST_ANALYZER_ENV] = given;
});

const index = (p: TestProject, checker: boolean): Promise<IndexReport> =>
  runIndex(p.config({ stateDir: join(p.root, ".mast") }), { mode: "full", threads: 0, ...(checker ? { checker: checkerPass } : {}) });
const db = (p: TestProject) => statePaths(join(p.root, ".mast")).graphDb;

describe("the checker pass on Rust (rust-analyzer)", () => {
  it("without MAST_RUST_ANALYZER it is unavailable, saying why, and the syntactic edges stay", async () => {
    delete process.env[RUST_ANALYZER_ENV];
    const p = space.project();
    const report = await index(p, true);
    const rust = report.checker!.languages.find((l) => l.language === "rust");
    expect(rust).toMatchObject({ language: "rust", backend: "rust-analyzer", available: false });
    expect(rust!.reason).toMatch(/^rust-analyzer runs the crate's build scripts and proc macros, so it is run only when MAST_RUST_ANALYZER names it \(/);
    expect(queryStore(db(p), `SELECT count(*) AS n FROM edges WHERE resolution = ${RESOLVED.checker}`)).toEqual([{ n: 0 }]);
  });

  it("a named program that does not run (a rustup proxy without the component) is unavailable with its error, not a failed pass", async () => {
    const p = space.project();
    const proxy = join(p.root, "..", `ra-proxy-${Date.now()}`);
    writeFileSync(proxy, "#!/bin/sh\necho \"error: Unknown binary 'rust-analyzer' in official toolchain\" >&2\nexit 1\n");
    chmodSync(proxy, 0o755);
    process.env[RUST_ANALYZER_ENV] = proxy;
    const report = await index(p, true);
    expect(report.checker!.languages.find((l) => l.language === "rust")).toEqual({
      language: "rust",
      backend: "rust-analyzer",
      available: false,
      reason: `${proxy} does not run (exit 1): error: Unknown binary 'rust-analyzer' in official toolchain`,
    });
    process.env[RUST_ANALYZER_ENV] = "relative/rust-analyzer";
    expect((await index(space.project(), true)).checker!.languages.find((l) => l.language === "rust")!.reason).toBe(
      "rust-analyzer not found at relative/rust-analyzer (MAST_RUST_ANALYZER; an absolute path)",
    );
  });

  it.runIf(given !== undefined && given !== "")("judges the crate with the real rust-analyzer (MAST_RUST_ANALYZER set for this run)", async () => {
    const p = space.project();
    const report = await index(p, true);
    expect(report.checker!.languages.find((l) => l.language === "rust")).toEqual({ language: "rust", backend: "rust-analyzer", available: true });
    const verdicts = queryStore(db(p), "SELECT s.name AS target, v.line, v.verdict FROM checker_verdicts v JOIN symbols s ON s.id = v.target_id WHERE s.name LIKE '%.size' ORDER BY target, v.line");
    // Seq.size: `s.size()` is its call (only inference types `s`, from the tuple); Other.size's is `o.size()`, verified
    // syntactically (no candidate). A comment's mention is not read for prose in Rust: it stays unresolved (potential).
    expect(verdicts).toEqual([
      { target: "Other.size", line: 6, verdict: "non_call_site" },
      { target: "Other.size", line: 23, verdict: "unresolved" },
      { target: "Other.size", line: 26, verdict: "unresolved" },
      { target: "Seq.size", line: 14, verdict: "non_call_site" },
      { target: "Seq.size", line: 23, verdict: "unresolved" },
      { target: "Seq.size", line: 26, verdict: "calls_target" },
    ]);
    expect(
      queryStore(
        db(p),
        `SELECT a.name AS caller, b.name AS target, e.call_line AS line FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.resolution = ${RESOLVED.checker}`,
      ),
    ).toEqual([{ caller: "total", target: "Seq.size", line: 26 }]);
  });
});

if (given === undefined || given === "") console.log(`checker-rust: the real rust-analyzer case is skipped — set ${RUST_ANALYZER_ENV} to an absolute rust-analyzer path to run it`);
