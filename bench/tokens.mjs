// Tokens bench: what "the signature and the callers of X" costs an agent, in the Claude
// tokenizer's tokens (@anthropic-ai/tokenizer), for the symbols of the callers bench — mast's
// answer beside two grep baselines run in the same script, each with its recall of the
// TypeScript compiler's call sites.
//
//   npm run build && npm run bench:callers && npm run bench:tokens
//   node bench/callers-accuracy.mjs --corpus <dir> && node bench/tokens.mjs --corpus <dir>
//
// --corpus <dir> measures any directory the callers bench ran on with --corpus (its figures are
// read from bench/.out/callers-accuracy.<basename>.json and these go to tokens.<basename>.json).
//
// 1. The symbols (those with at least one call site) and their true call sites come from
//    bench/.out/callers-accuracy.json, written by `npm run bench:callers` on the pinned corpus
//    (its oracle is the TypeScript language service's findReferences).
// 2. The corpus is indexed fresh into a temp --state-dir.
// 3. mast: mast_callers (default arguments: potential_limit 50; its declaration states the
//    signature, so one call answers the question) through dist's callTool, the answer as the text
//    an MCP client hands the model (JSON.stringify of the answer, as `mast serve` sends it); and,
//    reported beside it, mast_signature + mast_callers (the signature's doc and type context too).
//    Recall: true sites among the verified callers and potential matches.
// 4. grep and read: `rg -n -w NAME` (the method's own name for Class.method) over the corpus, plus
//    every file it hits read whole — what an agent without an index does. Recall: true sites among
//    rg's lines.
// 5. rg -C 10: `rg -n -w -C 10 NAME` alone (same recall as 4).
// Reported: the median tokens of each, the median per-symbol ratio of mast to each baseline and
// each side's recall (macro over symbols). Targets: median ratio <= 5% of grep-and-read and
// <= 12% of rg -C 10, with mast's recall no lower than rg's.
// Also the default tools/list (`mast serve`'s read and edit toolsets, dist's listedTools): its
// bytes and tokens (src/tools/tokenizer.ts), compact (the default) and full (`--schemas full`),
// and the part a model is handed (name, description, input schema). Target: compact <= 8 KB.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { BenchError, CORPUS, DIST, OUT_DIR, RG_INSTALL, REPO, fmt, have, indexCorpus, lpad, median, missingBuild, openTools, pad, publish, round, run, runBench, verdict } from "./corpus.mjs";

const USAGE = "usage: node bench/tokens.mjs [--corpus <dir>]";

/** The corpus (the pinned one, or --corpus <dir> resolved) and where its figures are read and written. */
function corpusOf(argv) {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { corpus: { type: "string" } }, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new BenchError(`${err.message}\n${USAGE}`);
  }
  if (values.corpus === undefined) return { root: CORPUS, pinned: true, callers: path.join(OUT_DIR, "callers-accuracy.json"), out: path.join(OUT_DIR, "tokens.json") };
  const abs = path.resolve(values.corpus);
  if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw new BenchError(`--corpus ${values.corpus}: ${abs} is not a directory\n${USAGE}`);
  const root = fs.realpathSync(abs);
  const base = path.basename(root);
  return { root, pinned: false, callers: path.join(OUT_DIR, `callers-accuracy.${base}.json`), out: path.join(OUT_DIR, `tokens.${base}.json`) };
}
const { root: ROOT, pinned: PINNED, callers: CALLERS_JSON, out: OUT_JSON } = corpusOf(process.argv.slice(2));
const TARGETS = { vsGrepRead: 0.05, vsRgContext: 0.12, listingBytes: 8_192 };

const { countTokens } = createRequire(import.meta.url)("@anthropic-ai/tokenizer");

const siteKey = (file, line) => `${file}:${line}`;
const siteLines = (s) => [siteKey(s.file, s.line), siteKey(s.file, s.name_line)];
/** mast_callers groups sites by file ({file_path, sites}). */
/** A site is an object with its line (verified callers) or `"LINE: text"` (potential matches). */
const lineOf = (site) => (typeof site === "string" ? Number.parseInt(site, 10) : site.line);
const keysOf = (groups) => (groups ?? []).flatMap((g) => g.sites.map((s) => siteKey(g.file_path, lineOf(s))));
const recallOf = (sites, predicted) => (sites.length === 0 ? null : sites.filter((s) => siteLines(s).some((k) => predicted.has(k))).length / sites.length);
const mean = (xs) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/** rg over the corpus for one name as a whole word; stdout (empty when nothing matched). */
function rg(name, extra) {
  const r = run("rg", ["-n", "--no-heading", "-w", "--sort", "path", ...extra, "-e", name, "."], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0 && r.status !== 1) throw new BenchError(`rg failed (exit ${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** The default tools/list, compact and full: bytes and tokens of the whole and of what a model is handed. */
async function listingFigures() {
  const load = (rel) => import(pathToFileURL(path.join(DIST, rel)).href);
  const [{ listedTools }, { DEFAULT_TOOLSETS }, tokenizer] = await Promise.all([load("tools/registry.js"), load("tools/define.js"), load("tools/tokenizer.js")]);
  const measure = (tools) => {
    const text = JSON.stringify({ tools });
    const seen = JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })));
    return { tools: tools.length, bytes: Buffer.byteLength(text), tokens: tokenizer.countTokens(text), model_bytes: Buffer.byteLength(seen), model_tokens: tokenizer.countTokens(seen) };
  };
  return { compact: measure(listedTools(DEFAULT_TOOLSETS)), full: measure(listedTools(DEFAULT_TOOLSETS, "full")) };
}

async function main() {
  const missing = missingBuild();
  if (missing) throw new BenchError(`${missing} is missing: run \`npm run build\` first`);
  const listing = await listingFigures();
  if (!have("rg", ["--version"])) throw new BenchError(`ripgrep is needed for the baselines: ${RG_INSTALL}`);
  if (!fs.existsSync(CALLERS_JSON))
    throw new BenchError(`no ${path.relative(REPO, CALLERS_JSON)}: run \`npm run bench:callers${PINNED ? "" : ` -- --corpus ${ROOT}`}\` first (it draws the symbols and their true call sites)`);
  const callers = JSON.parse(fs.readFileSync(CALLERS_JSON, "utf8"));
  if (PINNED && callers.corpus?.root !== "bench/.corpus") throw new BenchError(`${path.relative(REPO, CALLERS_JSON)} is not from the pinned corpus; rerun \`npm run bench:callers\``);
  const symbols = callers.sample.symbols.filter((s) => s.sites.length > 0);

  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-tokens-"));
  const fileTokens = new Map();
  const tokensOfFile = (rel) => {
    let n = fileTokens.get(rel);
    if (n === undefined) fileTokens.set(rel, (n = countTokens(fs.readFileSync(path.join(ROOT, rel), "utf8"))));
    return n;
  };
  const rows = [];
  try {
    indexCorpus(stateDir, ROOT);
    const { ctx, callTool } = await openTools(stateDir, ROOT);
    try {
      for (const s of symbols) {
        const signature = await callTool(ctx, "mast_signature", { symbol: s.name, file_path: s.file });
        const answer = await callTool(ctx, "mast_callers", { symbol: s.name, file_path: s.file });
        // mast_callers states the declaration's signature: one call answers "the signature and the callers".
        const callersTokens = countTokens(JSON.stringify(answer));
        const mastTokens = callersTokens;
        const mastFound = new Set([...keysOf(answer.verified_callers), ...keysOf(answer.potential_matches)]);
        const name = s.name.slice(s.name.lastIndexOf(".") + 1);
        const hits = rg(name, []);
        const hitLines = hits.split("\n").filter(Boolean);
        const rgFound = new Set(hitLines.map((l) => l.replace(/^\.\//, "").split(":").slice(0, 2).join(":")));
        const hitFiles = [...new Set(hitLines.map((l) => l.replace(/^\.\//, "").split(":")[0]))];
        const grepRead = countTokens(hits) + hitFiles.reduce((sum, f) => sum + tokensOfFile(f), 0);
        const rgContext = countTokens(rg(name, ["-C", "10"]));
        rows.push({
          symbol: s.name,
          file: s.file,
          sites: s.sites.length,
          mast_tokens: mastTokens,
          signature_tokens: countTokens(JSON.stringify(signature)),
          two_call_tokens: countTokens(JSON.stringify(signature)) + callersTokens,
          grep_read_tokens: grepRead,
          rg_context_tokens: rgContext,
          rg_files: hitFiles.length,
          mast_recall: recallOf(s.sites, mastFound),
          rg_recall: recallOf(s.sites, rgFound),
        });
      }
    } finally {
      ctx.close();
    }
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }

  const ratioGrepRead = median(rows.map((r) => r.mast_tokens / r.grep_read_tokens));
  const ratioRgContext = median(rows.map((r) => r.mast_tokens / r.rg_context_tokens));
  const mastRecall = mean(rows.map((r) => r.mast_recall));
  const rgRecall = mean(rows.map((r) => r.rg_recall));
  const figures = {
    symbols: rows.length,
    median_tokens: {
      mast: median(rows.map((r) => r.mast_tokens)),
      mast_signature: median(rows.map((r) => r.signature_tokens)),
      mast_signature_and_callers: median(rows.map((r) => r.two_call_tokens)),
      grep_and_read: median(rows.map((r) => r.grep_read_tokens)),
      rg_context_10: median(rows.map((r) => r.rg_context_tokens)),
    },
    median_ratio: {
      vs_grep_and_read: round(ratioGrepRead, 4),
      vs_rg_context_10: round(ratioRgContext, 4),
      two_calls_vs_grep_and_read: round(median(rows.map((r) => r.two_call_tokens / r.grep_read_tokens)), 4),
      two_calls_vs_rg_context_10: round(median(rows.map((r) => r.two_call_tokens / r.rg_context_tokens)), 4),
    },
    recall: { mast: round(mastRecall), rg: round(rgRecall) },
    default_listing: listing,
    targets: {
      default_listing_bytes: { target: TARGETS.listingBytes, met: listing.compact.bytes <= TARGETS.listingBytes },
      vs_grep_and_read: { target: TARGETS.vsGrepRead, met: ratioGrepRead <= TARGETS.vsGrepRead },
      vs_rg_context_10: { target: TARGETS.vsRgContext, met: ratioRgContext <= TARGETS.vsRgContext },
      recall_not_below_rg: { met: mastRecall >= rgRecall },
    },
    rows,
  };
  const m = figures.median_tokens;
  const lines = [
    `tokens bench: signature + callers of ${rows.length} symbols (the callers bench's sample with call sites), @anthropic-ai/tokenizer`,
    "",
    `${pad("predictor", 34)}${lpad("median tokens", 14)}${lpad("recall", 9)}`,
    `${pad("mast_callers (states the signature)", 34)}${lpad(m.mast, 14)}${lpad(fmt(mastRecall, 3), 9)}`,
    `${pad("mast_signature + mast_callers", 34)}${lpad(m.mast_signature_and_callers, 14)}${lpad(fmt(mastRecall, 3), 9)}   (${fmt(figures.median_ratio.two_calls_vs_grep_and_read, 4)} of grep + read, ${fmt(figures.median_ratio.two_calls_vs_rg_context_10, 4)} of rg -C 10)`,
    `${pad("  of which mast_signature", 34)}${lpad(m.mast_signature, 14)}`,
    `${pad("rg -n -w NAME + read hit files", 34)}${lpad(m.grep_and_read, 14)}${lpad(fmt(rgRecall, 3), 9)}`,
    `${pad("rg -n -w -C 10 NAME", 34)}${lpad(m.rg_context_10, 14)}${lpad(fmt(rgRecall, 3), 9)}`,
    "",
    "targets",
    `  ${verdict(figures.targets.vs_grep_and_read.met)}  median mast / (grep + read)    <= ${TARGETS.vsGrepRead}   ${fmt(ratioGrepRead, 4)}`,
    `  ${verdict(figures.targets.vs_rg_context_10.met)}  median mast / rg -C 10         <= ${TARGETS.vsRgContext}   ${fmt(ratioRgContext, 4)}`,
    `  ${verdict(figures.targets.recall_not_below_rg.met)}  mast recall >= rg recall          ${fmt(mastRecall, 3)} vs ${fmt(rgRecall, 3)}`,
    `  ${verdict(figures.targets.default_listing_bytes.met)}  default tools/list <= ${TARGETS.listingBytes} bytes    ${listing.compact.bytes}`,
    "",
    `default tools/list (read and edit toolsets, ${listing.compact.tools} tools)`,
    `${pad("listing", 34)}${lpad("bytes", 8)}${lpad("tokens", 8)}${lpad("model bytes", 13)}${lpad("model tokens", 14)}`,
    ...["compact", "full"].map((form) => {
      const l = listing[form];
      return `${pad(form === "compact" ? "compact (default)" : "full (--schemas full)", 34)}${lpad(l.bytes, 8)}${lpad(l.tokens, 8)}${lpad(l.model_bytes, 13)}${lpad(l.model_tokens, 14)}`;
    }),
    "  (model: name, description and input schema, what Claude Code hands the model)",
  ];
  publish(lines, [], OUT_JSON, figures);
}

await runBench(main);
