#!/usr/bin/env node
// Token-estimate bench (issue 36): does @anthropic-ai/tokenizer (3.8 MB, Claude-2 era) earn its
// place over the bytes estimate (BYTES_PER_TOKEN_ESTIMATE bytes a token) on what mast counts? On an
// indexed tree (default: the scale bench's 100 MB tree and state; `--tree`/`--state-dir` another):
// real answers — mast_search over words drawn from the index's symbol names, mast_signature,
// mast_callers and mast_exports of sampled symbols and files, as the JSON text an MCP client hands
// the model — and the full files those answers name (the efficiency figure's counterfactual), each
// counted exactly and estimated. Reported: estimate / exact per item (median, p5, p95), over the
// sums, and the savings ratio (answer tokens over full-file tokens) both ways.
//
//   npm run build && node bench/token-estimate.mjs [--tree <dir> --state-dir <dir>] [--answers 400]
//
// A report, not a test: exits 0 with figures, non-zero only when something could not run.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { BENCH_DIR, BenchError, DIST, OUT_DIR, fmt, percentile, publish, round, runBench, prng, shuffled } from "./corpus.mjs";

async function main() {
  const { values } = parseArgs({
    options: {
      tree: { type: "string", default: path.join(BENCH_DIR, ".scale", "tree-100") },
      "state-dir": { type: "string", default: path.join(BENCH_DIR, ".scale", "state-100") },
      answers: { type: "string", default: "400" },
    },
  });
  const graph = path.join(values["state-dir"], "graph.db");
  if (!fs.existsSync(graph)) throw new BenchError(`${graph} is missing: run \`node bench/scale.mjs --sizes 100\` (or index --tree into --state-dir) first`);
  const { countTokens, estimateTokens, BYTES_PER_TOKEN_ESTIMATE } = await import(path.join(DIST, "tools", "tokenizer.js"));
  const { resolveConfig } = await import(path.join(DIST, "index", "config.js"));
  const { createToolContext } = await import(path.join(DIST, "tools", "context.js"));
  const { runTool } = await import(path.join(DIST, "tools", "registry.js"));
  const config = resolveConfig(values.tree, { stateDir: values["state-dir"] });
  const ctx = createToolContext(config, config.project_root);
  const n = Number(values.answers);
  const random = prng(0x70c3);
  const db = new Database(graph, { readonly: true });
  const symbols = shuffled(
    db.prepare("SELECT s.name, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method', 'class') AND length(s.name) > 3 LIMIT 20000").all(),
    random,
  ).slice(0, n);
  db.close();
  const calls = symbols.flatMap((s, i) => {
    const words =
      s.name
        .split(/(?=[A-Z])|_/)
        .filter((w) => w.length > 2)
        .join(" ") || s.name;
    return [
      ["mast_search", { query: words, limit: 5 }],
      ["mast_signature", { symbol: s.name, file_path: s.path }],
      ...(i % 2 === 0 ? [["mast_callers", { symbol: s.name }]] : [["mast_exports", { file_path: s.path }]]),
    ];
  });
  const rows = [];
  const files = new Set();
  for (const [tool, args] of calls) {
    let text;
    try {
      text = (await runTool(ctx, tool, args, { telemetry: false })).text;
    } catch {
      continue;
    }
    rows.push({ kind: tool, bytes: Buffer.byteLength(text), exact: countTokens(text) });
    for (const m of text.matchAll(/"(?:file_path|path|file)":"([^"]+)"/g)) files.add(m[1]);
  }
  const fileRows = [];
  for (const rel of files) {
    const abs = path.join(config.project_root, rel);
    if (!fs.existsSync(abs)) continue;
    const text = fs.readFileSync(abs, "utf8");
    fileRows.push({ kind: "full file", bytes: Buffer.byteLength(text), exact: countTokens(text) });
  }
  ctx.close();
  const ratio = (r) => estimateTokens(r.bytes) / Math.max(1, r.exact);
  const summary = (label, list) => {
    const rs = list.map(ratio);
    const sumExact = list.reduce((a, r) => a + r.exact, 0);
    const sumEst = list.reduce((a, r) => a + estimateTokens(r.bytes), 0);
    return {
      label,
      n: list.length,
      bytes_per_token: round(list.reduce((a, r) => a + r.bytes, 0) / Math.max(1, sumExact), 2),
      median: round(percentile(rs, 0.5), 3),
      p5: round(percentile(rs, 0.05), 3),
      p95: round(percentile(rs, 0.95), 3),
      over_sums: round(sumEst / Math.max(1, sumExact), 3),
      exact: sumExact,
      estimated: sumEst,
    };
  };
  const answers = rows;
  const kinds = [...new Set(rows.map((r) => r.kind))];
  const table = [
    summary("all answers", answers),
    ...kinds.map((k) =>
      summary(
        k,
        rows.filter((r) => r.kind === k),
      ),
    ),
    summary("full files named", fileRows),
  ];
  const exactAnswers = answers.reduce((a, r) => a + r.exact, 0);
  const exactFiles = fileRows.reduce((a, r) => a + r.exact, 0);
  const estAnswers = answers.reduce((a, r) => a + estimateTokens(r.bytes), 0);
  const estFiles = fileRows.reduce((a, r) => a + estimateTokens(r.bytes), 0);
  const savings = { exact: round(exactAnswers / exactFiles, 4), estimated: round(estAnswers / estFiles, 4) };
  const lines = [
    `token estimate — estimate (${BYTES_PER_TOKEN_ESTIMATE} bytes a token) over @anthropic-ai/tokenizer's count, on ${answers.length} answers and ${fileRows.length} files of ${path.relative(process.cwd(), values.tree) || values.tree}`,
    "",
    `  ${"".padEnd(20)}${"n".padStart(6)}${"bytes/tok".padStart(11)}${"median".padStart(9)}${"p5".padStart(8)}${"p95".padStart(8)}${"over sums".padStart(11)}`,
    ...table.map(
      (t) =>
        `  ${t.label.padEnd(20)}${String(t.n).padStart(6)}${fmt(t.bytes_per_token).padStart(11)}${fmt(t.median, 3).padStart(9)}${fmt(t.p5, 3).padStart(8)}${fmt(t.p95, 3).padStart(8)}${fmt(t.over_sums, 3).padStart(11)}`,
    ),
    "",
    `  savings ratio (answer tokens / full-file tokens): exact ${fmt(savings.exact, 4)}, estimated ${fmt(savings.estimated, 4)}`,
  ];
  publish(lines, [], path.join(OUT_DIR, "token-estimate.json"), { tree: values.tree, table, savings });
  return 0;
}

await runBench(main);
