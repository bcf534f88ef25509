#!/usr/bin/env node
// Trust bench: can a hostile project make the BUILT product (dist/bin/mast.js, dist/bin/hashpilot.js,
// `mast serve` over MCP stdio with the real SDK client) read, write, create or index anything
// outside it — by swapping a directory for a symlink while the tools work, or by committing files
// that name a state dir elsewhere?
//
//   npm run build && npm run bench:fuzz-trust               # ~80 s: a 60 s race, then the hostile projects
//   node bench/fuzz-trust.mjs --race-seconds 20 --only race --keep   # --only race|hostile; --keep leaves the temp dir
//   node bench/fuzz-trust.mjs --dist /tmp/before/dist       # another checkout's build (figures in fuzz-trust-<commit>.json)
//
// race (--race-seconds, default 60): a temp project (a `.git` dir; src/race/*.ts holding the marker
//    INSIDE) and, next to it, outside/ with same-named files holding canaries (CNRY<hex>) and the
//    same slot line. A Python 3 process exchanges src/race with the symlink src/race-link ->
//    ../../outside by renameat2(RENAME_EXCHANGE) in a tight loop, so half the time src/race is the
//    symlink. Meanwhile, until the time is up: an MCP client on `mast serve` calls read_many (every
//    src/race file), replace_hash (flipping a file's slot line, anchored by the line's hash from the
//    last read) and diff_apply (a `--- /dev/null` patch creating src/race/new-N/f.ts) as fast as it
//    can; `hashpilot` runs the same three commands; `mast index` (full and --incremental, in turn)
//    runs again and again, graph.db (read-only) checked for canary chunks after each run. Figures:
//    calls per tool and their outcomes (ok, PATH_DENIED caught at the open — the descriptor was not
//    the checked path —, PATH_DENIED at the boundary check, other codes); outside reads (a canary
//    in any answer or CLI output); outside writes and creates (outside/ snapshotted — sha256 and
//    names — after every index run and at the end, and watched with inotify for transient files
//    such as `.hashpilot-*.tmp`, each event listed with the calls in flight); outside chunks (canary
//    rows in graph.db after any run); canary bytes left in the state dir or HASHPILOT_HOME at the
//    end. The swap loop is stopped (src/race a directory again) before the last checks.
// hostile: projects whose committed files try to move mast's writes — mast.config.json state_dir
//    absolute elsewhere, ".", "../x" and "src"; a committed `.mast -> elsewhere`, `.mast/graph.db ->
//    elsewhere/f`, `.mast/workspace -> elsewhere`, `.mast/workspace/kb -> elsewhere` — plus a clean
//    control project. Each runs `mast init`, `mast index`, `mast status`, `mast serve` (start, one
//    mast_status call, stop) and `mast structural build`; per run: the error code (expected
//    STATE_DIR_UNSAFE; the control: ok), outside writes (everything next to the project, elsewhere/
//    and ../x included, snapshotted before and after) and changes to the project's tracked files
//    (a root config.json, src/config.json, ...) or any other project path.
//
// This is a report, not a test: it exits 0 whether targets PASS or MISS, non-zero only when it
// could not run (no build, no python3/renameat2, the server never starting). Every child process
// (the swap loop above all) is killed and the temp dir removed (unless --keep) on any exit.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Database from "better-sqlite3";
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { BenchError, DIST, OUT_DIR, REPO, benchEnvironment, buildNotes, Distinct, diffSnapshots, distStamp, fmt, loadavg, lpad, pad, publish, round, runBench, verdict } from "./corpus.mjs";

const DEFAULT_RACE_SECONDS = 60;
const RACE_FILES = ["alpha", "beta", "gamma", "delta"];
/** The line replace_hash flips (1-based): the same text inside and outside, so a write that lands outside matches its anchor. */
const SLOT_LINE = 3;
const SLOT = ["export const slot = 0;", "export const slot = 1;"];
const CALL_TIMEOUT_MS = 30_000;
const START_TIMEOUT_MS = 30_000;
const EXAMPLES = 20;
/**
 * The swap loop: exchanges argv[1] and argv[2] until SIGTERM, then ends on an even count (argv[1]
 * as it was) and prints the count. It also stops on its own when the bench is gone (its parent
 * changed) or after argv[3] seconds, so a killed bench never leaves it spinning.
 */
const SWAP_LOOP = `
import ctypes, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
swap = libc.renameat2
swap.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
a, b = sys.argv[1].encode(), sys.argv[2].encode()
parent, until = os.getppid(), time.time() + float(sys.argv[3])
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
n = 0
while not stop:
    if n % 4096 == 0 and (os.getppid() != parent or time.time() > until):
        break
    if swap(-100, a, -100, b, 2) != 0:
        sys.stderr.write("renameat2(RENAME_EXCHANGE) failed: errno %d\\n" % ctypes.get_errno())
        sys.exit(3)
    n += 1
    if n == 1:
        print("swapping", flush=True)
if n % 2 and swap(-100, a, -100, b, 2) == 0:
    n += 1
print(n, flush=True)
`;

const sha256 = (data) => createHash("sha256").update(data).digest("hex");
const hash12 = (text) => sha256(text).slice(0, 12);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** A sleep that does not keep the process alive (the losing side of a race against a child). */
const timeout = (ms) => new Promise((r) => setTimeout(r, ms).unref());
const count = (map, key, n = 1) => map.set(key, (map.get(key) ?? 0) + n);

/** Every child the bench started (the swap loop, servers, CLI runs): killed on any exit. */
const LIVE = new Set();
function killLive() {
  for (const pid of LIVE) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  LIVE.clear();
}

/** Runs a command without blocking the event loop: exit code, signal, stdout, stderr, wall ms. */
function runAsync(cmd, args, { cwd, env, input = "", timeoutMs = 120_000 }) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    LIVE.add(child.pid);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (err) => (stderr += `\nspawn: ${err.message}`));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      LIVE.delete(child.pid);
      resolve({ code, signal, stdout, stderr, timedOut, ms: performance.now() - t0 });
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
}

/** A `mast` run's outcome: "ok", the error code it printed (`mast: error CODE: ...`), or how it ended. */
function cliOutcome(r) {
  if (r.code === 0) return "ok";
  if (r.timedOut) return "timed out";
  return /\berror ([A-Z][A-Z0-9_]+)\b/.exec(r.stderr)?.[1] ?? (r.signal ? `signal ${r.signal}` : `exit ${r.code}`);
}

/** PATH_DENIED split by where it was decided: at the open (the descriptor was not the checked path) or at the boundary check. */
function deniedWhere(message) {
  return /when it was opened|while it was being opened/.test(message ?? "") ? "PATH_DENIED@open" : "PATH_DENIED@check";
}

/** Each entry under `dir` (not following symlinks) → "dir", "link <target>", "file <sha256>" or "other"; `skip`: top-level names left out. */
function snapshotTree(dir, skip = new Set()) {
  const out = new Map();
  const walk = (abs, rel) => {
    let entries;
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (!rel && skip.has(e.name)) continue;
      const p = path.join(abs, e.name);
      try {
        if (e.isSymbolicLink()) out.set(r, `link ${fs.readlinkSync(p)}`);
        else if (e.isDirectory()) {
          out.set(r, "dir");
          walk(p, r);
        } else if (e.isFile()) out.set(r, `file ${sha256(fs.readFileSync(p))}`);
        else out.set(r, "other");
      } catch {
        out.set(r, "vanished while read");
      }
    }
  };
  walk(dir, "");
  return out;
}

/** Files under `dir` whose bytes hold a canary: [{ file, label }]. */
function canaryBytes(dir, canaries) {
  const found = [];
  for (const [rel, v] of snapshotTree(dir)) {
    if (!v.startsWith("file ")) continue;
    let bytes;
    try {
      bytes = fs.readFileSync(path.join(dir, rel));
    } catch {
      continue;
    }
    for (const c of canaries) if (bytes.includes(c.value)) found.push({ file: rel, label: c.label });
  }
  return found;
}

/** `mast serve` under the real SDK client: the pid tracked, stderr kept, the startup reindex awaited. */
async function startServer(mast, project, { cwd, env, waitReindex }) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [mast, "serve", project, "--toolsets", "read,edit"], env, cwd, stderr: "pipe" });
  const live = { client: new Client({ name: "mast-fuzz-trust", version: "1.0.0" }), pid: null, stderr: "", exited: false, reindexed: false };
  transport.stderr?.on("data", (d) => {
    live.stderr = (live.stderr + d.toString()).slice(-8000);
    if (/startup reindex (done|failed)/.test(live.stderr)) live.reindexed = true;
  });
  live.client.onclose = () => (live.exited = true);
  const connect = live.client.connect(transport).then(
    () => null,
    (err) => err,
  );
  const outcome = await Promise.race([connect, timeout(START_TIMEOUT_MS).then(() => new Error(`no MCP handshake within ${START_TIMEOUT_MS / 1000} s`))]);
  live.pid = transport.pid ?? null;
  if (live.pid) LIVE.add(live.pid);
  live.error = outcome;
  if (!outcome && waitReindex) {
    const t0 = performance.now();
    while (!live.reindexed && !live.exited && performance.now() - t0 < START_TIMEOUT_MS) await sleep(50);
  }
  return live;
}

/** Closes the client (stdin), waits for the server to exit, kills it after 6 s. */
async function stopServer(live) {
  await Promise.race([live.client.close().catch(() => undefined), timeout(6000)]);
  if (!live.pid) return;
  const t0 = performance.now();
  for (;;) {
    try {
      process.kill(live.pid, 0);
    } catch {
      break;
    }
    if (performance.now() - t0 > 6000) {
      try {
        process.kill(live.pid, "SIGKILL");
      } catch {
        // exited
      }
      break;
    }
    await sleep(50);
  }
  LIVE.delete(live.pid);
}

/** One MCP call: the answer's text, its parsed JSON, or the protocol error. */
async function callTool(live, name, args) {
  try {
    const r = await live.client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
    const text = typeof r?.content?.[0]?.text === "string" ? r.content[0].text : "";
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // reported as a defect by the caller
    }
    return { text, json };
  } catch (err) {
    return { text: "", json: null, protocolError: String(err?.message ?? err) };
  }
}

// ---------------------------------------------------------------------------------------------
// race

const raceFileText = (name, marker) => `// ${marker} ${name}\nexport const ${name} = "${marker}";\n${SLOT[0]}\nexport function ${name}Fn(): string {\n  return ${name};\n}\n`;

function raceWorld(T) {
  const root = path.join(T, "race");
  const w = { root, project: path.join(root, "project"), outside: path.join(root, "outside"), hp: path.join(root, "hashpilot-home"), home: path.join(root, "home"), canaries: [] };
  for (const d of [path.join(w.project, ".git"), path.join(w.project, "src", "race"), w.outside, w.hp, w.home]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(w.project, ".git", "HEAD"), "ref: refs/heads/main\n");
  fs.writeFileSync(path.join(w.project, "src", "main.ts"), 'import { alphaFn } from "./race/alpha.js";\nexport const main = alphaFn();\n');
  for (const name of RACE_FILES) {
    const canary = `CNRY${randomBytes(5).toString("hex")}`;
    w.canaries.push({ label: `outside/${name}.ts`, value: canary });
    fs.writeFileSync(path.join(w.project, "src", "race", `${name}.ts`), raceFileText(name, "INSIDE"));
    fs.writeFileSync(path.join(w.outside, `${name}.ts`), raceFileText(name, canary));
  }
  fs.symlinkSync("../../outside", path.join(w.project, "src", "race-link"));
  w.env = { PATH: process.env.PATH ?? "", HOME: w.home, HASHPILOT_HOME: w.hp };
  return w;
}

/** Puts src/race back as the directory (after a swap loop that could not finish its own last exchange). */
function restoreRace(w) {
  const race = path.join(w.project, "src", "race");
  const link = path.join(w.project, "src", "race-link");
  if (!fs.lstatSync(race, { throwIfNoEntry: false })?.isSymbolicLink()) return false;
  const aside = `${race}.restore`;
  fs.renameSync(race, aside);
  fs.renameSync(link, race);
  fs.renameSync(aside, link);
  return true;
}

/** The swap loop: resolves once it has made its first exchange; a BenchError when it cannot. */
async function startSwap(w, seconds) {
  const child = spawn("python3", ["-c", SWAP_LOOP, path.join(w.project, "src", "race"), path.join(w.project, "src", "race-link"), String(seconds + 120)], { stdio: ["ignore", "pipe", "pipe"] });
  const swap = { child, stdout: "", stderr: "", exited: false, exit: null };
  if (child.pid) LIVE.add(child.pid);
  child.stdout.on("data", (d) => (swap.stdout += d));
  child.stderr.on("data", (d) => (swap.stderr += d));
  swap.done = new Promise((resolve) =>
    child.on("close", (code, signal) => {
      swap.exited = true;
      swap.exit = { code, signal };
      LIVE.delete(child.pid);
      resolve();
    }),
  );
  child.on("error", (err) => (swap.stderr += `spawn python3: ${err.message}`));
  const t0 = performance.now();
  while (!swap.stdout.includes("swapping") && !swap.exited && performance.now() - t0 < 10_000) await sleep(20);
  if (!swap.stdout.includes("swapping")) {
    child.kill("SIGKILL");
    throw new BenchError(`the swap loop did not start (python3 with ctypes renameat2 is needed): ${swap.stderr.trim() || "no output in 10 s"}`);
  }
  return swap;
}

/** Stops the swap loop (SIGTERM: it ends on an even count) and returns its exchange count; src/race is a directory afterwards. */
async function stopSwap(swap, w) {
  if (!swap.exited) swap.child.kill("SIGTERM");
  await Promise.race([swap.done, timeout(5000)]);
  if (!swap.exited) {
    swap.child.kill("SIGKILL");
    await swap.done;
  }
  const n = Number(swap.stdout.trim().split("\n").at(-1));
  return { exchanges: Number.isInteger(n) ? n : null, restored_by_bench: restoreRace(w), exit: swap.exit, stderr: swap.stderr.trim().slice(-500) };
}

async function raceClass(T, bin, seconds, notes) {
  const w = raceWorld(T);
  const t = {
    tools: new Map(), // "surface tool" → { calls, units, outcomes: Map }
    outsideReads: new Distinct(EXAMPLES),
    outsideEvents: [],
    outsideChanges: new Map(), // "path change" → first seen
    chunkLeaks: new Distinct(EXAMPLES),
    canaryRows: 0,
    dbChecks: 0,
    dbErrors: new Distinct(EXAMPLES),
    defects: new Distinct(EXAMPLES),
    messages: new Distinct(100),
    index: { walked: 0, read_errors: 0, swapped_listed: 0 },
    inFlight: new Set(),
    restarts: 0,
  };
  const tool = (key) => {
    if (!t.tools.has(key)) t.tools.set(key, { calls: 0, units: 0, outcomes: new Map() });
    return t.tools.get(key);
  };
  for (const key of ["mcp read_many", "mcp replace_hash", "mcp diff_apply", "hashpilot read-many", "hashpilot replace-hash", "hashpilot diff apply", "mast index (full)", "mast index --incremental"])
    tool(key);
  /** Counts one outcome of a unit (a file read, an edit, a run), with the first message of each refusal kept. */
  const outcome = (key, error) => {
    const s = tool(key);
    s.units++;
    if (!error) return count(s.outcomes, "ok");
    const code = error.code === "PATH_DENIED" ? deniedWhere(error.message) : (error.code ?? "(no code)");
    count(s.outcomes, code);
    t.messages.add(`${key}|${code}`, {
      tool: key,
      code,
      message: String(error.message ?? "")
        .split(T)
        .join("<T>")
        .slice(0, 240),
    });
  };
  const t0 = performance.now();
  const elapsed = () => round((performance.now() - t0) / 1000, 2);
  const scan = (text, source) => {
    for (const c of w.canaries) {
      const at = text.indexOf(c.value);
      if (at >= 0)
        t.outsideReads.add(`${source}|${c.label}`, {
          source,
          read: c.label,
          at_s: elapsed(),
          excerpt: text
            .slice(Math.max(0, at - 80), at + 60)
            .split(T)
            .join("<T>"),
        });
    }
  };
  const flight = (what) => {
    const entry = { what, at: elapsed() };
    t.inFlight.add(entry);
    return () => t.inFlight.delete(entry);
  };

  process.stderr.write(`fuzz-trust race: mast init ${w.project}\n`);
  const init = await runAsync(process.execPath, [bin.mast, "init", w.project], { cwd: w.root, env: w.env });
  if (init.code !== 0) throw new BenchError(`mast init of the race project failed (${cliOutcome(init)}):\n${init.stderr.slice(-2000)}`);
  const outside0 = snapshotTree(w.outside);
  const outsideCheck = (label) => {
    for (const c of diffSnapshots(outside0, snapshotTree(w.outside))) {
      const key = `${c.path} ${c.change}`;
      if (!t.outsideChanges.has(key)) t.outsideChanges.set(key, { ...c, first_seen: label, at_s: elapsed() });
    }
  };
  const watcher = fs.watch(w.outside, (event, name) => {
    if (t.outsideEvents.length < 200) t.outsideEvents.push({ event, name: String(name), at_s: elapsed(), in_flight: [...t.inFlight].map((f) => f.what) });
    else t.outsideEventsDropped = (t.outsideEventsDropped ?? 0) + 1;
  });
  const dbCheck = (label) => {
    const file = path.join(w.project, ".mast", "graph.db");
    if (!fs.existsSync(file)) return;
    let db;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
      const rows = db.prepare("SELECT f.path AS path, c.content AS content FROM chunks c JOIN files f ON f.id = c.file_id WHERE instr(c.content, 'CNRY') > 0").all();
      t.dbChecks++;
      t.canaryRows += rows.length;
      for (const row of rows)
        for (const c of w.canaries) if (row.content.includes(c.value)) t.chunkLeaks.add(`${row.path}|${c.label}`, { path: row.path, read: c.label, first_after: label, at_s: elapsed() });
    } catch (err) {
      t.dbErrors.add(String(err?.code ?? err?.message).slice(0, 60), { after: label, message: String(err?.message ?? err).slice(0, 200) });
    } finally {
      db?.close();
    }
  };

  const known = new Map(RACE_FILES.map((n) => [n, SLOT[0]]));
  const files = RACE_FILES.map((n) => `src/race/${n}.ts`);
  /** A read answer's entry: its outcome, and the slot line a next edit anchors on. */
  const readEntry = (key, name, entry) => {
    if (entry?.error) return outcome(key, entry.error);
    const content = entry?.content ?? "";
    outcome(key, null);
    if (!content.includes("INSIDE") && !w.canaries.some((c) => content.includes(c.value)))
      t.defects.add(`${key} content`, { what: `${key} answered ok for ${name} with neither the INSIDE marker nor a canary`, excerpt: content.slice(0, 120) });
    const line = content.split("\n")[SLOT_LINE - 1];
    if (SLOT.includes(line)) known.set(name, line);
  };
  /** An edit answer's outcome (the envelope's ok or error code). */
  const editOutcome = (key, json) => {
    if (!json || json.apiVersion !== "1") outcome(key, { code: "no envelope", message: "" });
    else outcome(key, json.ok ? null : (json.error ?? {}));
    return json?.ok === true;
  };
  /** A read's answer, file by file (a read whose every file failed answers their entries in error.details.files). */
  const readAnswer = (key, json) => {
    const entries = Array.isArray(json?.data) ? json.data : json?.error?.details?.files;
    if (Array.isArray(entries)) entries.forEach((entry, i) => readEntry(key, RACE_FILES[i], entry));
    else editOutcome(key, json);
  };
  const createPatch = (rel, k) => `--- /dev/null\n+++ b/${rel}\n@@ -0,0 +1,2 @@\n+// INSIDE created ${k}\n+export const created${k} = ${k};\n`;

  let server = await startServer(bin.mast, w.project, { cwd: w.root, env: w.env, waitReindex: true });
  if (server.error) throw new BenchError(`mast serve did not start: ${server.error.message}\n${server.stderr.slice(-1500)}`);
  const swap = await startSwap(w, seconds);
  const deadline = performance.now() + seconds * 1000;
  const running = () => performance.now() < deadline;
  process.stderr.write(`fuzz-trust race: swapping src/race for ${seconds} s\n`);

  const mcpLoop = async () => {
    for (let n = 0; running(); n++) {
      const name = RACE_FILES[Math.floor(n / 3) % RACE_FILES.length];
      let call;
      if (n % 3 === 0) call = { tool: "read_many", args: { files } };
      else if (n % 3 === 1) {
        const line = known.get(name);
        call = { tool: "replace_hash", args: { file: `src/race/${name}.ts`, old_hash: hash12(line), range: String(SLOT_LINE), new_content: SLOT[1 - SLOT.indexOf(line)] } };
      } else {
        const rel = `src/race/new-${n}/f.ts`;
        call = { tool: "diff_apply", args: { file: rel, patch: createPatch(rel, n) } };
      }
      const key = `mcp ${call.tool}`;
      tool(key).calls++;
      const done = flight(`${key} ${call.args.file ?? "src/race/*.ts"}`);
      const r = await callTool(server, call.tool, call.args);
      done();
      scan(r.text, key);
      if (r.protocolError) {
        outcome(key, { code: "protocol error", message: r.protocolError });
        if (server.exited) {
          t.restarts++;
          t.defects.add("server exited", { what: `mast serve exited during the race: ${server.stderr.slice(-300)}` });
          server = await startServer(bin.mast, w.project, { cwd: w.root, env: w.env, waitReindex: false });
          if (server.error) return;
        }
        continue;
      }
      if (call.tool === "read_many") readAnswer(key, r.json);
      else if (editOutcome(key, r.json) && call.tool === "replace_hash") known.set(name, call.args.new_content);
    }
  };

  const hashpilotLoop = async () => {
    for (let n = 0; running(); n++) {
      const name = RACE_FILES[Math.floor(n / 3) % RACE_FILES.length];
      let argv;
      let input = "";
      let newLine = null;
      if (n % 3 === 0) argv = ["read-many", ...files];
      else if (n % 3 === 1) {
        const line = known.get(name);
        newLine = SLOT[1 - SLOT.indexOf(line)];
        argv = ["replace-hash", `src/race/${name}.ts`, hash12(line), newLine, "--range", String(SLOT_LINE)];
      } else {
        const rel = `src/race/hp-new-${n}/f.ts`;
        argv = ["diff", "apply", rel];
        input = createPatch(rel, n);
      }
      const key = `hashpilot ${argv[0] === "diff" ? "diff apply" : argv[0]}`;
      tool(key).calls++;
      const done = flight(`${key} ${argv[0] === "read-many" ? "src/race/*.ts" : argv[argv[0] === "diff" ? 2 : 1]}`);
      const r = await runAsync(process.execPath, [bin.hashpilot, ...argv], { cwd: w.project, env: w.env, input, timeoutMs: CALL_TIMEOUT_MS });
      done();
      scan(r.stdout + r.stderr, key);
      let json = null;
      try {
        json = JSON.parse(r.stdout);
      } catch {
        t.defects.add(`${key} output`, { what: `${key} printed no envelope (${cliOutcome(r)}): ${r.stderr.slice(0, 160)}` });
      }
      if (argv[0] === "read-many") readAnswer(key, json);
      else if (editOutcome(key, json) && newLine !== null) known.set(name, newLine);
    }
  };

  const indexLoop = async () => {
    for (let n = 0; running(); n++) {
      const incremental = n % 2 === 1;
      const key = `mast index${incremental ? " --incremental" : " (full)"}`;
      const s = tool(key);
      s.calls++;
      const done = flight(key);
      const r = await runAsync(process.execPath, [bin.mast, "index", w.project, "--json", ...(incremental ? ["--incremental"] : [])], { cwd: w.root, env: w.env });
      done();
      scan(r.stdout + r.stderr, key);
      const code = cliOutcome(r);
      outcome(key, code === "ok" ? null : { code, message: r.stderr.trim() });
      try {
        const report = JSON.parse(r.stdout);
        t.index.walked += report.files_walked ?? 0;
        t.index.read_errors += report.read_errors ?? 0;
        for (const p of report.problems ?? []) {
          if (/swapped for a symlink/.test(p.message)) t.index.swapped_listed++;
          t.messages.add(`${key}|problem ${p.kind}`, { tool: key, code: `problem ${p.kind}`, message: `${p.path}: ${String(p.message).split(T).join("<T>")}`.slice(0, 240) });
        }
      } catch {
        // an error run prints none
      }
      dbCheck(`${key} #${s.calls}`);
      outsideCheck(`${key} #${s.calls}`);
    }
  };

  let swapResult;
  try {
    await Promise.all([mcpLoop(), hashpilotLoop(), indexLoop()]);
  } finally {
    swapResult = await stopSwap(swap, w);
  }
  if (swapResult.exit?.code !== 0) notes.push(`the swap loop ended with ${JSON.stringify(swapResult.exit)}: ${swapResult.stderr}`);
  if (swapResult.restored_by_bench) notes.push("the swap loop left src/race as the symlink; the bench put the directory back");
  await stopServer(server);
  await sleep(300);
  watcher.close();
  outsideCheck("the end");
  dbCheck("the end");
  const stateCanaries = [
    ...canaryBytes(path.join(w.project, ".mast"), w.canaries).map((f) => ({ ...f, file: `project/.mast/${f.file}` })),
    ...canaryBytes(w.hp, w.canaries).map((f) => ({ ...f, file: `hashpilot-home/${f.file}` })),
  ];
  const created = [...t.outsideChanges.values()].filter((c) => c.change === "created");
  const written = [...t.outsideChanges.values()].filter((c) => c.change !== "created");
  const eventNames = new Set(t.outsideEvents.map((e) => e.name));
  const createdNames = new Set([...created.map((c) => c.path), ...[...eventNames].filter((n) => !outside0.has(n))]);
  const writtenNames = new Set([...written.map((c) => c.path), ...[...eventNames].filter((n) => outside0.has(n))]);
  const tools = Object.fromEntries([...t.tools].map(([k, s]) => [k, { calls: s.calls, units: s.units, outcomes: Object.fromEntries([...s.outcomes].sort((a, b) => b[1] - a[1])) }]));
  const denied = (where) =>
    [...t.tools.values()].reduce((a, s) => a + (where ? (s.outcomes.get(where) ?? 0) : (s.outcomes.get("PATH_DENIED@open") ?? 0) + (s.outcomes.get("PATH_DENIED@check") ?? 0)), 0);
  const okUnits = [...t.tools].filter(([k]) => !k.startsWith("mast index")).reduce((a, [, s]) => a + (s.outcomes.get("ok") ?? 0), 0);
  return {
    seconds,
    swap: swapResult,
    tools,
    path_denied: { total: denied(null), at_open: denied("PATH_DENIED@open"), at_check: denied("PATH_DENIED@check") },
    ok_units: okUnits,
    internal: [...t.tools.values()].reduce((a, s) => a + (s.outcomes.get("INTERNAL") ?? 0), 0),
    outside_reads: { total: t.outsideReads.total, examples: t.outsideReads.list() },
    outside_writes: { files: [...writtenNames].sort(), changes: written },
    outside_creates: { names: [...createdNames].sort(), changes: created },
    outside_events: { listed: t.outsideEvents, dropped: t.outsideEventsDropped ?? 0 },
    outside_chunks: { rows_summed_over_checks: t.canaryRows, distinct: t.chunkLeaks.list(), db_checks: t.dbChecks, db_errors: t.dbErrors.list() },
    index: t.index,
    state_canaries: stateCanaries,
    server_restarts: t.restarts,
    defects: t.defects.list(),
    refusals: t.messages.list(),
  };
}

// ---------------------------------------------------------------------------------------------
// hostile projects

const HOSTILE_CASES = [
  { name: "state_dir: absolute elsewhere", config: (c) => ({ state_dir: c.elsewhere }) },
  { name: 'state_dir: "."', config: () => ({ state_dir: "." }) },
  { name: 'state_dir: "../x"', config: () => ({ state_dir: "../x" }) },
  { name: 'state_dir: "src"', config: () => ({ state_dir: "src" }) },
  { name: ".mast -> elsewhere", link: (c) => [".mast", c.elsewhere] },
  { name: ".mast/graph.db -> elsewhere/f", link: (c) => [".mast/graph.db", path.join(c.elsewhere, "f")] },
  { name: ".mast/workspace -> elsewhere", link: (c) => [".mast/workspace", c.elsewhere] },
  // Only the structural build writes under workspace/, so only it must refuse a symlink nested there.
  { name: ".mast/workspace/kb -> elsewhere", link: (c) => [".mast/workspace/kb", c.elsewhere], refusedBy: ["structural build"] },
  { name: "control: a clean project", control: true },
];
const COMMANDS = ["init", "index", "status", "serve", "structural build"];
const EXPECTED_CODE = "STATE_DIR_UNSAFE";

/** A case's project (tracked files, the committed config or symlink) and, beside it, elsewhere/. */
function hostileWorld(T, i, spec) {
  const dir = path.join(T, "hostile", `case-${i}`);
  const c = { dir, project: path.join(dir, "project"), elsewhere: path.join(dir, "elsewhere") };
  const put = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(c.project, rel)), { recursive: true });
    fs.writeFileSync(path.join(c.project, rel), text);
  };
  put(".git/HEAD", "ref: refs/heads/main\n");
  put("config.json", '{ "tracked": "the project\'s own root config.json" }\n');
  put("src/config.json", '{ "tracked": "the project\'s own src/config.json" }\n');
  put("src/a.ts", "export function a(): number {\n  return 1;\n}\n");
  put("src/b.ts", 'import { a } from "./a.js";\nexport const b = a() + 1;\n');
  fs.mkdirSync(c.elsewhere, { recursive: true });
  fs.writeFileSync(path.join(c.elsewhere, "f"), "elsewhere/f: a file outside the project\n");
  fs.writeFileSync(path.join(c.elsewhere, "keep.txt"), "elsewhere/keep.txt\n");
  if (spec.config) put("mast.config.json", `${JSON.stringify(spec.config(c))}\n`);
  if (spec.link) {
    const [rel, target] = spec.link(c);
    fs.mkdirSync(path.dirname(path.join(c.project, rel)), { recursive: true });
    fs.symlinkSync(target, path.join(c.project, rel));
  }
  c.tracked = [...snapshotTree(c.project)].filter(([, v]) => v.startsWith("file ")).map(([p]) => p);
  return c;
}

/** `mast serve` on a case: start, one mast_status call, stop; its outcome as a code. */
async function serveOnce(bin, c, env) {
  const live = await startServer(bin.mast, c.project, { cwd: c.project, env, waitReindex: false });
  try {
    if (live.error) return /\berror ([A-Z][A-Z0-9_]+)\b/.exec(live.stderr)?.[1] ?? `no handshake: ${String(live.error.message).slice(0, 80)}`;
    const r = await callTool(live, "mast_status", {});
    if (r.protocolError) return `protocol error: ${r.protocolError.slice(0, 80)}`;
    return r.json?.error?.code ?? (r.json ? "ok" : "no JSON answer");
  } finally {
    await stopServer(live);
  }
}

async function hostileClass(T, bin) {
  const env = { PATH: process.env.PATH ?? "", HOME: path.join(T, "hostile", "home"), HASHPILOT_HOME: path.join(T, "hostile", "hashpilot-home") };
  fs.mkdirSync(env.HOME, { recursive: true });
  const cases = [];
  for (const [i, spec] of HOSTILE_CASES.entries()) {
    const c = hostileWorld(T, i, spec);
    process.stderr.write(`fuzz-trust hostile: ${spec.name}\n`);
    const outside0 = snapshotTree(c.dir, new Set(["project"]));
    const project0 = snapshotTree(c.project);
    const runs = [];
    for (const command of COMMANDS) {
      const outsideBefore = snapshotTree(c.dir, new Set(["project"]));
      const projectBefore = snapshotTree(c.project);
      const t0 = performance.now();
      let outcome;
      if (command === "serve") outcome = await serveOnce(bin, c, env);
      else {
        const args = command === "structural build" ? ["structural", "build"] : [command, c.project];
        outcome = cliOutcome(await runAsync(process.execPath, [bin.mast, ...args], { cwd: c.project, env }));
      }
      const outside = diffSnapshots(outsideBefore, snapshotTree(c.dir, new Set(["project"])));
      const project = diffSnapshots(projectBefore, snapshotTree(c.project));
      runs.push({ command, outcome, ms: Math.round(performance.now() - t0), outside_changes: outside, project_changes: project.map((x) => `${x.change} ${x.path}`) });
    }
    const project = diffSnapshots(project0, snapshotTree(c.project));
    cases.push({
      name: spec.name,
      control: spec.control === true,
      refusedBy: spec.refusedBy ?? COMMANDS,
      runs,
      outside_changes: diffSnapshots(outside0, snapshotTree(c.dir, new Set(["project"]))),
      tracked_changed: project.filter((x) => c.tracked.includes(x.path)),
      project_changes: project.length,
    });
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// main

async function main() {
  const { values } = parseArgs({
    options: { "race-seconds": { type: "string" }, dist: { type: "string" }, only: { type: "string" }, keep: { type: "boolean", default: false } },
    allowPositionals: false,
  });
  const seconds = values["race-seconds"] === undefined ? DEFAULT_RACE_SECONDS : Number(values["race-seconds"]);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new BenchError(`--race-seconds must be a positive number, not ${values["race-seconds"]}`);
  if (values.only !== undefined && !["race", "hostile"].includes(values.only)) throw new BenchError(`--only takes race or hostile, not ${values.only}`);
  const dist = path.resolve(values.dist ?? DIST);
  const bin = { mast: path.join(dist, "bin", "mast.js"), hashpilot: path.join(dist, "bin", "hashpilot.js") };
  const missing = Object.values(bin).find((f) => !fs.existsSync(f));
  if (missing) {
    process.stderr.write(`bench: ${missing} is missing: run \`npm run build\`${values.dist ? " in that checkout" : ""} first\n`);
    return 2;
  }
  const ownDist = dist === path.resolve(DIST);
  const distRev = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: path.dirname(dist), encoding: "utf8" });
  const distCommit = distRev.status === 0 ? distRev.stdout.trim() : null;
  const outJson = path.join(OUT_DIR, ownDist ? "fuzz-trust.json" : `fuzz-trust-${distCommit ?? path.basename(path.dirname(dist))}.json`);
  const env = benchEnvironment();
  const distAtStart = distStamp(dist);
  env.dist = path.relative(REPO, dist) || dist;
  env.dist_commit = distCommit;
  env.mast_dist_built = new Date(distAtStart).toISOString();
  const notes = [];
  const wall0 = performance.now();

  const T = fs.mkdtempSync(path.join(os.tmpdir(), "mast-trust-"));
  let cleaned = false;
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    killLive();
    const race = { project: path.join(T, "race", "project") };
    try {
      restoreRace(race);
    } catch {
      // no race world
    }
    if (!values.keep) fs.rmSync(T, { recursive: true, force: true });
  };
  process.once("exit", cleanup);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.once(sig, () => {
      cleanup();
      process.exit(130);
    });
  }

  try {
    const race = values.only === "hostile" ? null : await raceClass(T, bin, seconds, notes);
    const hostile = values.only === "race" ? null : await hostileClass(T, bin);
    const wallMs = performance.now() - wall0;
    env.loadavg_at_end = loadavg();

    const L = [];
    L.push(`mast trust bench — ${env.date}`);
    L.push(`machine: nproc ${env.nproc}, ${env.cpu}, ${env.total_mem_gb} GiB, ${env.platform}, node ${env.node}`);
    L.push(`build: ${env.dist} (commit ${distCommit ?? "?"}${ownDist && env.src_modified ? ", src/ modified" : ""}), built ${env.mast_dist_built}`);
    L.push(`load average (1/5/15 min): start ${env.loadavg_at_start.join(" ")}, end ${env.loadavg_at_end.join(" ")}; wall ${fmt(wallMs / 1000, 1)} s`);
    const targets = [];
    if (race) {
      const ex = race.swap.exchanges;
      L.push("", `race: ${race.seconds} s; swap loop ${ex ?? "?"} exchanges of src/race with src/race-link -> ../../outside (${ex ? fmt(ex / race.seconds / 1000, 1) : "?"}k/s)`);
      L.push(`  ${pad("surface tool", 30)}${lpad("calls", 7)}${lpad("units", 8)}${lpad("ok", 7)}${lpad("denied@open", 13)}${lpad("denied@check", 14)}  other outcomes`);
      for (const [k, s] of Object.entries(race.tools)) {
        const o = s.outcomes;
        const other = Object.entries(o).filter(([c]) => !["ok", "PATH_DENIED@open", "PATH_DENIED@check"].includes(c));
        L.push(
          `  ${pad(k, 30)}${lpad(s.calls, 7)}${lpad(s.units, 8)}${lpad(o.ok ?? 0, 7)}${lpad(o["PATH_DENIED@open"] ?? 0, 13)}${lpad(o["PATH_DENIED@check"] ?? 0, 14)}  ${other.map(([c, n]) => `${c} ${n}`).join(", ")}`,
        );
      }
      L.push(
        "  (units: files for read_many/read-many, else calls or runs; denied@open: the opened descriptor was not the checked path; denied@check: the path resolved outside at the boundary check)",
      );
      L.push(
        `  index runs: ${race.index.walked} files walked, read_errors ${race.index.read_errors} (${race.index.swapped_listed} of the problems listed, at most 50 a run: "a directory on its path was swapped for a symlink"); graph.db checks ${race.outside_chunks.db_checks}${
          race.outside_chunks.db_errors.length
            ? ` (${race.outside_chunks.db_errors.length} failed to open: ${race.outside_chunks.db_errors
                .map((e) => e.message)
                .join("; ")
                .slice(0, 200)})`
            : ""
        }; server restarts ${race.server_restarts}`,
      );
      L.push(
        `  outside reads ${race.outside_reads.total}; outside writes ${race.outside_writes.files.length} files; outside creates ${race.outside_creates.names.length} names; inotify events on outside/ ${race.outside_events.listed.length + race.outside_events.dropped}; canary chunk rows ${race.outside_chunks.rows_summed_over_checks} (summed over checks); canary bytes in state files at the end ${race.state_canaries.length}`,
      );
      const list = (xs, line, limit = 8) => {
        for (const x of xs.slice(0, limit)) L.push(`    ${line(x)}`);
        if (xs.length > limit) L.push(`    ... ${xs.length - limit} more in the JSON`);
      };
      list(race.outside_reads.examples, (x) => `read    ${x.source}: ${x.read} x${x.count}, first at ${x.at_s} s: …${x.excerpt.replace(/\s+/g, " ")}…`);
      list(race.outside_writes.changes, (x) => `write   outside/${x.path} ${x.change}, first seen after ${x.first_seen}`);
      list(race.outside_creates.changes, (x) => `create  outside/${x.path}, first seen after ${x.first_seen}`);
      list(race.outside_events.listed, (e) => `inotify ${e.event} outside/${e.name} at ${e.at_s} s; in flight: ${e.in_flight.join(", ") || "nothing"}`);
      list(race.outside_chunks.distinct, (x) => `chunk   ${x.path} holds ${x.read} (x${x.count}), first after ${x.first_after}`);
      list(race.state_canaries, (x) => `state   ${x.file} holds ${x.label}`);
      list(race.defects, (x) => `defect  ${x.what} (x${x.count})`);
      targets.push(
        { name: "race: outside reads (canary in an answer)", target: "= 0", value: race.outside_reads.total, pass: race.outside_reads.total === 0 },
        { name: "race: outside writes (files changed)", target: "= 0", value: race.outside_writes.files.length, pass: race.outside_writes.files.length === 0 },
        { name: "race: outside creates (new names)", target: "= 0", value: race.outside_creates.names.length, pass: race.outside_creates.names.length === 0 },
        { name: "race: outside chunks indexed (canary rows)", target: "= 0", value: race.outside_chunks.rows_summed_over_checks, pass: race.outside_chunks.rows_summed_over_checks === 0 },
        { name: "race: refused with PATH_DENIED (the race was hit)", target: "> 0", value: race.path_denied.total, pass: race.path_denied.total > 0 },
        { name: "race: INTERNAL answers (an unnamed error)", target: "= 0", value: race.internal, pass: race.internal === 0 },
      );
      L.push("  refusals (the first message of each tool and outcome):");
      for (const x of race.refusals) L.push(`    ${x.tool} ${x.code} x${x.count}: ${x.message.replace(/\s+/g, " ").slice(0, 200)}`);
      L.push(`  PATH_DENIED ${race.path_denied.total} (at the open ${race.path_denied.at_open}, at the check ${race.path_denied.at_check}) vs ok ${race.ok_units} (reads and edits)`);
    }
    if (hostile) {
      L.push("", "hostile projects: the outcome of each run (expected STATE_DIR_UNSAFE; the control: ok)");
      L.push(`  ${pad("case", 36)}${COMMANDS.map((c) => pad(c, 18)).join("")}${lpad("outside", 8)}${lpad("tracked", 8)}${lpad("project", 8)}`);
      for (const c of hostile)
        L.push(
          `  ${pad(c.name, 36)}${c.runs.map((r) => pad(r.outcome.slice(0, 17), 18)).join("")}${lpad(c.outside_changes.length, 8)}${lpad(c.tracked_changed.length, 8)}${lpad(c.project_changes, 8)}`,
        );
      L.push("  (outside: paths changed or created next to the project — elsewhere/, ../x; tracked: the project's own files changed; project: any project path changed or created)");
      for (const c of hostile) {
        for (const r of c.runs) {
          if (!r.outside_changes.length) continue;
          const shown = r.outside_changes.slice(0, 3).map((x) => `${x.change} ${x.path}`);
          L.push(`    ${c.name} / ${r.command}: ${r.outside_changes.length} outside: ${shown.join(", ")}${r.outside_changes.length > 3 ? ", ... (all in the JSON)" : ""}`);
        }
      }
      for (const c of hostile) for (const x of c.tracked_changed) L.push(`    ${c.name}: tracked ${x.path} ${x.change}`);
      const attacks = hostile.filter((c) => !c.control);
      const control = hostile.find((c) => c.control);
      const outside = hostile.reduce((a, c) => a + c.outside_changes.length, 0);
      const tracked = hostile.reduce((a, c) => a + c.tracked_changed.length, 0);
      const unexpected = attacks.flatMap((c) => c.runs.filter((r) => c.refusedBy.includes(r.command))).filter((r) => r.outcome !== EXPECTED_CODE).length;
      const controlOk = control ? control.runs.filter((r) => r.outcome === "ok").length : null;
      for (const c of attacks.filter((x) => x.outside_changes.length === 0 && x.tracked_changed.length === 0)) {
        const accepted = c.runs.filter((r) => r.outcome !== EXPECTED_CODE).map((r) => r.command);
        if (accepted.length) notes.push(`${c.name}: ${accepted.join(", ")} answered without ${EXPECTED_CODE}, yet nothing outside and no tracked file changed`);
      }
      targets.push(
        { name: "hostile: outside writes (paths changed or created)", target: "= 0", value: outside, pass: outside === 0 },
        { name: "hostile: tracked project files changed", target: "= 0", value: tracked, pass: tracked === 0 },
        { name: `hostile: runs that write there not refused with ${EXPECTED_CODE}`, target: "= 0", value: unexpected, pass: unexpected === 0 },
        { name: "hostile: control runs ok (the harness sees success)", target: `= ${COMMANDS.length}`, value: controlOk, pass: controlOk === COMMANDS.length },
      );
    }
    L.push("", "targets");
    for (const x of targets) L.push(`  ${verdict(x.pass)}  ${pad(x.name, 56)}${pad(x.target, 8)}${lpad(x.value, 8)}`);
    if (ownDist) notes.push(...buildNotes(env, distAtStart));
    else if (distStamp(dist) !== distAtStart) notes.push(`${env.dist} changed while the bench ran: the figures may mix two builds, run again`);
    if (values.keep) notes.push(`temp dir kept: ${T}`);
    publish(L, notes, outJson, { environment: env, settings: { race_seconds: seconds, only: values.only ?? null, race_files: RACE_FILES, slot_line: SLOT_LINE }, race, hostile, targets, notes });
    return 0;
  } finally {
    cleanup();
  }
}

await runBench(main, killLive);
