#!/usr/bin/env node
// Structural-index bench: `mast structural build` on a mixed-language repository — tauri
// (Rust, TypeScript, JavaScript, Kotlin, Swift, shell, Svelte) at a pinned commit — timed cold,
// re-run on the same snapshot (reused), and warm after one file changed (its units reused but
// one); the catalog's size; the precision mix per language; and, for TypeScript, the callers
// precision/recall of every tier (semantic from a real scip-typescript index, typecheck, ast,
// symbol-only through universal-ctags, heuristic) against the TypeScript compiler's answer.
//
//   npm run build && npm run bench:structural
//   npm run bench:structural -- --repo <git repository holding the pinned commit>
//
// 1. The tree: `git archive <commit>` of --repo (a clone or mirror of
//    https://github.com/tauri-apps/tauri; default: the workplace mirror when it is there) into a
//    temp dir, with a `.mantis_snapshot.json` sentinel naming the snapshot, so the build is pinned.
// 2. scip-typescript (pinned below, installed into bench/.tools/ by npm once) indexes each
//    tsconfig project; the index is attached under native/scip/ with the snapshot id — the
//    baseline tool's own time is reported beside mast's.
// 3. Builds: cold into a fresh state root; the same snapshot again (reuse-on-match); one Rust file
//    changed under a new snapshot id (units reused = N-1); then one build per tier cap.
// 4. Ground truth for TypeScript: bench/ts-oracle.mjs (findReferences call sites resolving to the
//    declaration) over the tree's .ts files; a seeded sample of its functions and methods; each
//    tier's find_callers (resolved edges; unresolved ones counted apart) scored per symbol.
//
// A report, not a test: exit 0 whatever the figures, non-zero only when something cannot run.
// Figures go to bench/.out/structural.json.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { BENCH_DIR, BenchError, DIST, MAST, OUT_DIR, benchEnvironment, buildNotes, distStamp, ensureNpmTool, fmt, have, lpad, pad, prng, publish, round, runBench, shuffled } from "./corpus.mjs";
import { createOracle, sampleOf, score } from "./ts-oracle.mjs";

const REPO_URL = "https://github.com/tauri-apps/tauri";
const COMMIT = "a8105eccb2122f003b4a36bbfb747998f53c5f10";
const MIRROR = "/work/.mirror/tauri-apps+tauri/repo";
const SCIP_TS = { name: "@sourcegraph/scip-typescript", version: "0.4.0" };
const SCIP_DIR = path.join(BENCH_DIR, ".tools", "scip-typescript");
const SCIP_BIN = path.join(SCIP_DIR, "node_modules", ".bin", "scip-typescript");
const OUT_JSON = path.join(OUT_DIR, "structural.json");
const TIERS = ["semantic", "typecheck", "ast", "symbol-only", "heuristic"];
const SEED = 0x73747275;
const SAMPLE_WITH_SITES = 80;
/** The file the warm build changes: a Rust source its build reads (appended a comment). */
const CHANGED_FILE = "crates/tauri/src/lib.rs";

const posix = (p) => p.split(path.sep).join("/");
const tempDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

function parseCommandLine(argv) {
  const { values } = parseArgs({ args: argv, options: { repo: { type: "string" } }, strict: true });
  const repo = values.repo ?? (fs.existsSync(MIRROR) ? MIRROR : null);
  if (!repo) throw new BenchError(`no repository: git clone ${REPO_URL} <dir> && npm run bench:structural -- --repo <dir>`);
  return { repo };
}

/** The pinned commit's tree in a temp dir (blobs a partial clone lacks are left out and counted). */
function checkout(repo) {
  const has = spawnSync("git", ["-C", repo, "cat-file", "-e", `${COMMIT}^{commit}`]);
  if (has.status !== 0) throw new BenchError(`${repo} does not hold ${COMMIT}: git -C ${repo} fetch ${REPO_URL} ${COMMIT}`);
  const root = tempDir("mast-structural-tree-");
  const listing = spawnSync("git", ["-C", repo, "ls-tree", "-r", "-z", COMMIT], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const entries = listing.stdout
    .split("\0")
    .filter(Boolean)
    .map((e) => {
      const [meta, file] = e.split("\t");
      const [mode, type, oid] = meta.split(" ");
      return { mode, type, oid, file };
    })
    .filter((e) => e.type === "blob" && e.mode !== "120000");
  const batch = spawnSync("git", ["-C", repo, "cat-file", "--batch"], { input: entries.map((e) => e.oid).join("\n") + "\n", maxBuffer: 1024 * 1024 * 1024 });
  const out = batch.stdout;
  let pos = 0;
  let missing = 0;
  for (const e of entries) {
    const nl = out.indexOf(10, pos);
    const header = out.subarray(pos, nl).toString("utf8");
    pos = nl + 1;
    if (header.endsWith(" missing")) {
      missing++;
      continue;
    }
    const size = Number(header.split(" ")[2]);
    const abs = path.join(root, e.file);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, out.subarray(pos, pos + size));
    pos += size + 1;
  }
  return { root, files: entries.length - missing, missing };
}

const ensureScipTypescript = () => ensureNpmTool(SCIP_TS, SCIP_DIR, SCIP_BIN);

/** scip-typescript over each tsconfig project of the tree (not under node_modules), one index each; the files it covers. */
function scipIndex(root, nativeDir) {
  const configs = listTsconfigs(root);
  fs.mkdirSync(nativeDir, { recursive: true });
  const attachments = [];
  let ms = 0;
  for (const config of configs) {
    const dir = path.dirname(config);
    const out = path.join(nativeDir, `${dir.replace(/[/.]/g, "_") || "root"}.scip`);
    const t0 = performance.now();
    const r = spawnSync(SCIP_BIN, ["index", "--output", out, "--infer-tsconfig"], { cwd: path.join(root, dir), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    ms += performance.now() - t0;
    if (r.status !== 0 || !fs.existsSync(out)) continue;
    attachments.push({ config, out, dir });
  }
  return { attachments, ms };
}

function listTsconfigs(root, rel = "") {
  const out = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listTsconfigs(root, p));
    else if (e.name === "tsconfig.json") out.push(p);
  }
  return out.sort();
}

function structuralBuild(root, stateRoot, extra = []) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [MAST, "structural", "build", "--snapshot_root", root, "--state_root", stateRoot, "--json", ...extra], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new BenchError(`mast structural build failed (exit ${r.status}):\n${r.stderr.trim()}\n${r.stdout.slice(0, 2000)}`);
  return { wall_ms: wallMs, summary: JSON.parse(r.stdout) };
}

const sizeOf = (p) => (fs.existsSync(p) ? (fs.statSync(p).isDirectory() ? fs.readdirSync(p).reduce((n, e) => n + sizeOf(path.join(p, e)), 0) : fs.statSync(p).size) : 0);
const countFiles = (p) => (fs.existsSync(p) ? (fs.statSync(p).isDirectory() ? fs.readdirSync(p).reduce((n, e) => n + countFiles(path.join(p, e)), 0) : 1) : 0);

function setSnapshot(root, id) {
  fs.writeFileSync(path.join(root, ".mantis_snapshot.json"), `${JSON.stringify({ snapshot_id: id })}\n`);
}

function attachScip(nativeScip, attachments, snapshotId, root) {
  const entries = attachments.map((a) => ({
    kind: "scip",
    path: path.basename(a.out),
    snapshot_id: snapshotId,
    language: "typescript",
    indexer: "scip-typescript",
    precision: "semantic",
    files: scipDocuments(a.out)
      .map((d) => posix(path.join(a.dir, d)))
      .filter((f) => fs.existsSync(path.join(root, f))),
  }));
  fs.writeFileSync(path.join(nativeScip, "provenance.json"), `${JSON.stringify(entries, null, 2)}\n`);
  return entries;
}

let decodeScip = null;
function scipDocuments(file) {
  return decodeScip(fs.readFileSync(file)).documents.map((d) => d.path);
}

/** Symbols and edges of a catalog by language and precision (symbols) and edge kind (edges). */
function precisionMix(catalog) {
  const db = new Database(catalog, { readonly: true, fileMustExist: true });
  try {
    const symbols = db.prepare("SELECT language, precision, count(*) AS n FROM symbols GROUP BY language, precision ORDER BY language, precision").all();
    const edges = db
      .prepare("SELECT substr(partition_key, 6, instr(substr(partition_key, 6), ':') - 1) AS language, precision, edge_kind, count(*) AS n FROM call_edges GROUP BY 1, 2, 3 ORDER BY 1, 2, 3")
      .all();
    const coverage = db
      .prepare("SELECT substr(partition_key, 6, instr(substr(partition_key, 6), ':') - 1) AS language, backend, precision, count(*) AS files FROM coverage GROUP BY 1, 2, 3 ORDER BY 1, 2")
      .all();
    return { symbols, edges, coverage };
  } finally {
    db.close();
  }
}

async function main() {
  const { repo } = parseCommandLine(process.argv.slice(2));
  if (!fs.existsSync(MAST)) throw new BenchError("dist/ is missing: npm run build");
  const env = benchEnvironment();
  const distAtStart = distStamp();
  ({ decodeScip } = await import(pathToFileURL(path.join(DIST, "base", "scip.js")).href));
  const { queryLocal } = await import(pathToFileURL(path.join(DIST, "structural", "query.js")).href);
  const { structuralLayout } = await import(pathToFileURL(path.join(DIST, "structural", "locate.js")).href);
  const notes = [];
  const ctags = have("ctags", ["--version"])?.startsWith("Universal Ctags") ? have("ctags", ["--version"]).split("\n")[0] : null;
  if (!ctags) notes.push("universal-ctags is not on PATH: the symbol-only tier falls to heuristic (apt-get install -y universal-ctags)");

  const tree = checkout(repo);
  const root = tree.root;
  if (tree.missing) notes.push(`${tree.missing} blob(s) of the commit are absent from ${repo} (a partial clone): left out of the tree`);
  const snapshot = `tauri@${COMMIT.slice(0, 12)}`;
  setSnapshot(root, snapshot);
  const files = spawnSync("git", ["-C", repo, "ls-tree", "-r", "--name-only", COMMIT], { encoding: "utf8" })
    .stdout.trim()
    .split("\n")
    .filter((f) => fs.existsSync(path.join(root, f)));

  // 2. The semantic tier's input: scip-typescript per tsconfig project.
  const state = tempDir("mast-structural-state-");
  const layout = structuralLayout(state);
  const scipTool = ensureScipTypescript();
  let scip = { attachments: [], ms: 0 };
  if (scipTool.error) notes.push(`${scipTool.error}: the semantic tier is not measured`);
  else scip = scipIndex(root, path.join(layout.native, "scip"));
  const declared = attachScip(path.join(layout.native, "scip"), scip.attachments, snapshot, root);

  // The other baseline tool: universal-ctags over the whole tree (symbols only, no call graph).
  let ctagsMs = null;
  if (ctags) {
    const tags = path.join(tempDir("mast-structural-ctags-"), "tags");
    const t1 = performance.now();
    const r = spawnSync("ctags", ["-R", "--output-format=json", "--fields=+neKSZ", "-f", tags, root], { encoding: "utf8" });
    if (r.status === 0) ctagsMs = performance.now() - t1;
    fs.rmSync(path.dirname(tags), { recursive: true, force: true });
  }

  // 3. Cold, reused, warm after one change.
  const cold = structuralBuild(root, state);
  const again = structuralBuild(root, state);
  fs.appendFileSync(path.join(root, CHANGED_FILE), "\n// mast bench edit\n");
  const snapshot2 = `${snapshot}+edit`;
  setSnapshot(root, snapshot2);
  attachScip(path.join(layout.native, "scip"), scip.attachments, snapshot2, root);
  const warm = structuralBuild(root, state);
  const catalogBytes = sizeOf(layout.catalog) + sizeOf(layout.shards);
  const unitsBytes = sizeOf(layout.units);
  const mix = precisionMix(layout.catalog);

  // 4. TypeScript callers per tier against the compiler.
  const tsFiles = files.filter((f) => /\.(ts|tsx|mts|cts)$/.test(f) && !/\.d\.ts$/.test(f) && !f.split("/").includes("node_modules") && fs.existsSync(path.join(root, f)));
  const tierStates = {};
  const tierRuns = {};
  for (const tier of TIERS) {
    const s = tier === "semantic" ? state : tempDir(`mast-structural-${tier}-`);
    if (tier !== "semantic") {
      tierRuns[tier] = structuralBuild(root, s, ["--max_precision", tier]);
    } else tierRuns[tier] = warm;
    tierStates[tier] = structuralLayout(s);
  }
  const t0 = performance.now();
  const oracle = createOracle(root, tsFiles, new Set(tsFiles));
  const astLayout = tierStates.ast;
  const db = new Database(astLayout.catalog, { readonly: true });
  const population = db
    .prepare("SELECT name, qualified_name, file_path, start_line, kind FROM symbols WHERE language = 'typescript' AND kind IN ('function', 'method') ORDER BY file_path, start_line")
    .all()
    .map((r) => {
      const dot = r.qualified_name.lastIndexOf(".");
      return { name: r.qualified_name, kind: r.kind, file: r.file_path, line: r.start_line, member: r.name, owner: dot >= 0 ? r.qualified_name.slice(0, dot) : null };
    });
  db.close();
  const drawn = sampleOf(shuffled(population, prng(SEED)), oracle, SAMPLE_WITH_SITES);
  const oracleMs = performance.now() - t0;
  const byTier = {};
  for (const tier of TIERS) {
    const l = tierStates[tier];
    const preds = [];
    const unresolved = [];
    const references = [];
    for (const s of drawn.sample) {
      const found = queryLocal(l, "resolve_symbol", { name: s.member, file: s.file, limit: 1000 }).results;
      const near = found.filter((r) => r.kind !== "class" && r.kind !== "module").sort((a, b) => Math.abs(a.start_line - s.name_line) - Math.abs(b.start_line - s.name_line))[0];
      if (!near || Math.abs(near.start_line - s.name_line) > 6) {
        preds.push([]);
        continue;
      }
      // Calls are scored (direct, virtual, macro); references (indirect: a callback, a value) and unresolved names are counted apart.
      const keys = [];
      for (let offset = 0; ; offset += 1000) {
        const page = queryLocal(l, "find_callers", { symbol_id: near.symbol_id, limit: 1000, offset });
        for (const r of page.results) {
          if (r.edge_kind === "unresolved") unresolved.push(r);
          else if (r.edge_kind === "indirect") references.push(r);
          else keys.push(`${r.file_path}:${r.line}`);
        }
        if (!page.has_more) break;
      }
      preds.push(keys);
    }
    const scored = score(drawn.sample, preds);
    const missed = scored.per_symbol.flatMap((p, i) => p.missed.map((m) => `${drawn.sample[i].name} ← ${m.file}:${m.line} ${m.context}`)).slice(0, 10);
    byTier[tier] = {
      precision: scored.precision,
      recall: scored.recall,
      precision_micro: scored.precision_micro,
      recall_micro: scored.recall_micro,
      predicted: scored.predicted,
      true_positives: scored.true_positives,
      sites: scored.sites,
      unresolved_edges: unresolved.length,
      reference_edges: references.length,
      missed,
      backends: tierRuns[tier].summary.backends.typescript ?? null,
      build_ms: round(tierRuns[tier].wall_ms, 0),
    };
  }

  // Report.
  const lines = [];
  lines.push(`structural index bench — ${REPO_URL} @ ${COMMIT.slice(0, 12)} (${files.length} files in the tree)`);
  lines.push("");
  lines.push("builds (wall, including the index run)");
  lines.push(
    `  cold           ${lpad(fmt(cold.wall_ms / 1000, 2), 7)} s   units ${cold.summary.units_total} (${cold.summary.units_rebuilt} built), ${cold.summary.symbols} symbols, ${cold.summary.edges} edges, status ${cold.summary.status}`,
  );
  lines.push(`  same snapshot  ${lpad(fmt(again.wall_ms / 1000, 2), 7)} s   reused_index ${again.summary.reused_index}`);
  lines.push(
    `  one file edit  ${lpad(fmt(warm.wall_ms / 1000, 2), 7)} s   units ${warm.summary.units_total}: reused ${warm.summary.units_reused} (N-1 = ${warm.summary.units_total - 1}), built ${warm.summary.units_rebuilt}`,
  );
  lines.push(
    `  baselines: scip-typescript ${fmt(scip.ms / 1000, 2)} s (${scip.attachments.length} TypeScript project(s)); ctags -R ${ctagsMs === null ? "n/a" : `${fmt(ctagsMs / 1000, 2)} s`} (the whole tree, symbols only)`,
  );
  lines.push("");
  lines.push(`catalog.sqlite ${fmt(catalogBytes / 2 ** 20, 2)} MiB; units/ ${fmt(unitsBytes / 2 ** 20, 2)} MiB in ${countFiles(layout.units)} objects`);
  lines.push("");
  lines.push("coverage by language (backend, precision, files)");
  for (const c of mix.coverage) lines.push(`  ${pad(c.language, 12)} ${pad(c.backend, 20)} ${pad(c.precision, 14)} ${lpad(c.files, 5)}`);
  lines.push("");
  lines.push("symbols by language and precision");
  for (const s of mix.symbols) lines.push(`  ${pad(s.language, 12)} ${pad(s.precision, 14)} ${lpad(s.n, 7)}`);
  lines.push("");
  lines.push(`TypeScript callers per tier vs the compiler (${drawn.sample.length} symbols drawn, ${drawn.with_sites} with call sites, ${byTier.ast.sites} sites)`);
  lines.push(`  ${pad("tier", 12)} ${pad("backend", 20)} ${lpad("P", 6)} ${lpad("R", 6)} ${lpad("P micro", 8)} ${lpad("R micro", 8)} ${lpad("references", 11)} ${lpad("unresolved", 11)}`);
  for (const tier of TIERS) {
    const t = byTier[tier];
    lines.push(
      `  ${pad(tier, 12)} ${pad(t.backends ? `${t.backends.backend_name}` : "-", 20)} ${lpad(fmt(t.precision, 3), 6)} ${lpad(fmt(t.recall, 3), 6)} ${lpad(fmt(t.precision_micro, 3), 8)} ${lpad(fmt(t.recall_micro, 3), 8)} ${lpad(t.reference_edges, 11)} ${lpad(t.unresolved_edges, 11)}`,
    );
  }
  lines.push("  (P and R score the call edges — direct, virtual, macro; references are indirect edges, unresolved are calls of the name no symbol was resolved for)");
  lines.push(`  (the oracle: ${oracle.files} files, program ${fmt(oracle.programMs / 1000, 2)} s, sample ${fmt(oracleMs / 1000, 2)} s)`);
  notes.push(...buildNotes(env, distAtStart));
  if (declared.length === 0) notes.push("no SCIP attachment: the semantic row is the typecheck tier");
  publish(lines, notes, OUT_JSON, {
    environment: env,
    repo: { url: REPO_URL, commit: COMMIT, files: files.length, changed_file: CHANGED_FILE },
    builds: {
      cold: { wall_ms: round(cold.wall_ms, 0), ...cold.summary },
      same_snapshot: { wall_ms: round(again.wall_ms, 0), reused_index: again.summary.reused_index },
      one_file_edit: { wall_ms: round(warm.wall_ms, 0), ...warm.summary },
    },
    scip_typescript: { version: scipTool.version ?? null, projects: scip.attachments.map((a) => a.config), ms: round(scip.ms, 0) },
    ctags,
    ctags_ms: round(ctagsMs, 0),
    catalog_bytes: catalogBytes,
    units_bytes: unitsBytes,
    precision_mix: mix,
    typescript_callers: { sample: drawn.sample.length, with_sites: drawn.with_sites, by_tier: byTier },
  });
  for (const dir of [root, state, ...Object.values(tierStates).map((l) => l.stateRoot)]) fs.rmSync(dir, { recursive: true, force: true });
  return 0;
}

await runBench(main);
