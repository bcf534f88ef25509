#!/usr/bin/env node
// MCP fuzz bench: does `mast serve` answer every call of every tool it offers, with a named error
// for a bad one — never crashing, hanging, answering INTERNAL, reading or writing outside the
// project, or answering more than the answer cap — when driven with seeded hostile input over MCP
// stdio by the real SDK client?
//
//   npm run build && npm run bench:fuzz                 # default: 4,000 calls, seed 0x66757a7a
//   node bench/fuzz-mcp.mjs --calls 500 --seed 7 --keep # --keep leaves the temp dir for a look
//   node bench/fuzz-mcp.mjs --only oversize-message,session-flood   # the message classes alone
//
// 1. A fresh temp dir (os.tmpdir()/mast-fuzz-*) holds: ws/project (a `.git` directory, so the
//    editing tools take it as the root; a copy of this repository's src/; crafted files under
//    fuzz/: regex-bomb lines, 5,000-char lines, a `}` file, CRLF, non-ASCII names and contents,
//    2 MB, NUL bytes; specials: a FIFO, symlinks to /dev/zero, /etc/passwd, /proc/self/fd/1, a
//    file and a directory outside), outside/ (canary files: each starts with its own `CNRY<hex>`
//    marker, short enough to survive a 10-character JSON.parse snippet), home/ (the server's HOME,
//    with canary ~/.ssh/id_rsa and ~/.bashrc) and hashpilot-home/ (HASHPILOT_HOME). The project's
//    .git/config and the server's environment (MAST_FUZZ_CANARY) carry canaries too.
// 2. `mast init <project>`, then `mast serve <project>` (cwd ws/, env PATH/HOME/HASHPILOT_HOME
//    only); the bench waits for the startup reindex after each (re)start.
// 3. --calls calls, round-robin over every tool client.listTools() lists; for each a seeded input
//    generator picks a mode: schema-valid values (real paths, identifiers, in-range lines, valid
//    hashes and patches), wrong types, missing required fields, unknown fields, 100 KB / 1 MB
//    strings, unicode (emoji, RTL, combining marks, lone surrogates), NUL bytes, FTS5 syntax,
//    traversal paths and special files, catastrophic regexes, hostile globs, odd numbers, answers
//    built to be big, non-object arguments, and for the writing tools targets outside the project
//    (valid hashes of outside files, `--- /dev/null` patches creating files outside, a planted
//    changeSet manifest under HASHPILOT_HOME).
// 4. Per call: wall time; no answer within 5 s = "unanswered after 5 s"; no answer within
//    --hang-ms (30 s; 6 s once that tool has hung on the same kind of input, e.g. a special file
//    or a regex bomb) = hung: the server is SIGKILLed and restarted. A server over 1.5 GiB RSS is
//    killed too (runaway memory). A server that exits on its own is a crash. After a given input
//    class (tool + tag) has hung or blown up once, further draws of it are redrawn (counted as
//    suppressed), so the run stays bounded. The answer's error code (edit envelope or index tool
//    `{error}`), INTERNAL examples, its size (largest per tool, against the 4 MiB cap), canaries in
//    the answer text that the input did not carry (outside reads), and heuristic wrong-class
//    answers (Node/SQLite phrases in messages, STALE_ANCHOR for a missing file, ...).
// 5. Outside writes: outside/, home/, the temp root and ws/ listings, project/.git, /etc/passwd and
//    /tmp (names with FUZZW, the marker of every file a fuzz write tries to create) are
//    snapshotted (sha256, size, mtime) and compared after every destructive call, and every 500
//    calls also HASHPILOT_HOME's changeSet manifests are validated (a manifest that is not one the
//    writer made, or names a file outside the project, is a planted one).
//
// 6. Two classes of whole messages, after the calls (--only picks classes): "oversize-message" — on
//    one stdio connection, requests over the SDK's 10 MiB read limit (replace_hash with 11 MiB of
//    new_content, an 11 MiB mast_search query) and answers built to pass it once escaped (grep_many
//    over 1,000 lines of 3,000 quotes, and of backslashes), each followed by a small call on the same
//    connection: server exits and client disconnects are counted; "session-flood" — --flood
//    `initialize` requests (100,000; 16 at a time) against `mast serve --http` on loopback with its
//    default session bounds, the server's RSS sampled, then a new SDK client served.
//
// This is a report, not a test: it exits 0 whether targets PASS or MISS, non-zero only when it
// could not run (no build, the server never starting, no call answered). Figures also go to
// bench/.out/fuzz-mcp.json. Write calls never target real system files except /etc/passwd with
// hashes and patches that cannot match (its sha256 is checked, and it is restored if it changed).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  BenchError,
  DIST,
  MAST,
  OUT_DIR,
  REPO,
  benchEnvironment,
  buildNotes,
  Distinct,
  diffSnapshots,
  distStamp,
  fmt,
  loadavg,
  lpad,
  missingBuild,
  pad,
  prng,
  publish,
  round,
  roundStats,
  runBench,
  stats,
  verdict,
} from "./corpus.mjs";

const OUT_JSON = path.join(OUT_DIR, "fuzz-mcp.json");

/** "fuzz": change it (or pass --seed) and every draw changes. */
const DEFAULT_SEED = 0x66757a7a;
const DEFAULT_CALLS = 4000;
/** The answer cap, read from dist/base/budget.js once the build is known to exist (main). */
let ANSWER_CAP;
const UNANSWERED_MS = 5_000;
/** Hung: not answered within this (the first time a tool hangs on a kind of input) ... */
const DEFAULT_HANG_MS = 30_000;
/** ... or within this once it has hung on that kind before. */
const REPEAT_HANG_MS = 6_000;
/** After this many hangs / memory kills of one input class (tool + tag), its draws are redrawn. */
const HANGS_PER_CLASS = 1;
const RSS_LIMIT = 1.5 * 1024 ** 3;
const CHECK_EVERY = 500;
const START_TIMEOUT_MS = 30_000;
const REINDEX_WAIT_MS = 30_000;
const INTERNAL_EXAMPLES = 20;
const LIST_LIMIT = 40;
/** The SDK client's stdio read buffer: an answer over it cannot be received at all. */
const SDK_READ_BUFFER = 10 * 1024 * 1024;
const CLASSES = ["calls", "oversize-message", "session-flood"];
/** session-flood: initialize requests, how many at a time, the longest it may take, and its RSS target. */
const DEFAULT_FLOOD = 100_000;
const FLOOD_CONCURRENCY = 16;
const FLOOD_LIMIT_MS = 15 * 60_000;
const FLOOD_RSS_TARGET_MB = 300;
const DESTRUCTIVE = new Set(["replace_hash", "diff_apply", "undo", "telemetry_prune", "telemetry_clear"]);
const PASSWD_MARKER = "root:x:0:0";
const PLANTED_ID = "cs-20990101T000000000Z-0badf00d";
const CHANGESET_FILE = /^cs-\d{8}T\d{9}Z-[0-9a-f]{8}\.json$/;
/** Phrases of Node, SQLite or a JS runtime failure: in a named (non-INTERNAL) error they mean the cause leaked through unclassified. */
const LEAK_PHRASES =
  /ERR_[A-Z_]{4,}|The argument '|The "[a-z]+" argument|SQLITE_|fts5:|\bE(NOENT|ISDIR|NOTDIR|LOOP|NAMETOOLONG|ACCES|BADF|NXIO|INVAL|PERM|AGAIN|MFILE)\b|Cannot read propert|is not a function|is not iterable|Maximum call stack|Invalid string length|Array buffer allocation|\n\s+at [^\n]+:\d+:\d+/;

// ---------------------------------------------------------------------------------------------
// small helpers

const sha256 = (data) => createHash("sha256").update(data).digest("hex");
const hash12 = (text) => sha256(text).slice(0, 12);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const within = (p, dir) => {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

/** Lines of a text as the editing tools see them (BOM dropped, LF or CRLF breaks — a lone CR is text —, no empty last line after a final break). */
function splitLines(raw) {
  const text = raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
  const lines = text.split(/\r?\n/);
  const terminated = lines.length > 1 && lines.at(-1) === "";
  if (terminated) lines.pop();
  return { lines, terminated };
}

/** The text of a regular file (following symlinks) under 3 MB, or null. */
function readText(abs) {
  try {
    const st = fs.statSync(abs);
    if (!st.isFile() || st.size > 3_000_000) return null;
    const buf = fs.readFileSync(abs);
    if (buf.includes(0)) return null;
    return buf.toString("utf8");
  } catch {
    return null;
  }
}

/** JSON of an input with long strings and arrays cut, for the reports. */
function abbrev(value, max = 320) {
  const seen = (v, depth) => {
    if (typeof v === "string") {
      const shown = v.length > 70 ? `${v.slice(0, 48)}…(${v.length} chars)` : v;
      return shown.replace(/[\u0000-\u001f\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    }
    if (Array.isArray(v)) {
      const head = v.slice(0, 4).map((x) => seen(x, depth + 1));
      return v.length > 4 ? [...head, `…(${v.length} items)`] : head;
    }
    if (v && typeof v === "object") {
      if (depth > 3) return "{…}";
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, seen(x, depth + 1)]));
    }
    return v;
  };
  let s;
  try {
    s = JSON.stringify(seen(value, 0));
  } catch {
    s = String(value);
  }
  return s === undefined ? String(value) : s.length > max ? `${s.slice(0, max)}…` : s;
}

const oneLine = (s, max) => {
  const t = String(s).replace(/\s+/g, " ");
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

/** A message with the temp root, numbers and hex ids replaced, for de-duplication. */
function normalise(msg, world) {
  return String(msg ?? "")
    .split(world.T)
    .join("<T>")
    .replace(/CNRY[0-9a-f]{6}/g, "<canary>")
    .replace(/[0-9a-f]{8,}/g, "<hex>")
    .replace(/\d+/g, "N")
    .replace(/"(?:[^"\\]|\\.){60,}"/g, '"<long>"')
    .slice(0, 160);
}

// ---------------------------------------------------------------------------------------------
// the world: project, outside, homes, canaries

function setupWorld(seed, notes) {
  const r = prng((seed ^ 0x5eed5eed) >>> 0);
  const hex = (n) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join("");
  const T = fs.mkdtempSync(path.join(os.tmpdir(), "mast-fuzz-"));
  const ws = path.join(T, "ws");
  const project = path.join(ws, "project");
  const outside = path.join(T, "outside");
  const hp = path.join(T, "hashpilot-home");
  const home = path.join(T, "home");
  for (const d of [project, outside, hp, home, path.join(project, ".git", "hooks"), path.join(project, "fuzz"), path.join(outside, "nested"), path.join(home, ".ssh")])
    fs.mkdirSync(d, { recursive: true });
  const canaries = [];
  const canary = (label) => {
    const value = `CNRY${hex(6)}`;
    canaries.push({ label, value });
    return value;
  };
  const put = (abs, text) => {
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text);
  };
  // Outside: every file starts with its canary.
  put(path.join(outside, "secret.txt"), `${canary("outside/secret.txt")} top secret: nothing under the project may show this\n`);
  put(path.join(outside, ".bashrc"), `${canary("outside/.bashrc")}\nexport OUTSIDE_SECRET=1\n`);
  put(path.join(outside, "nested", "deep.ts"), `${canary("outside/nested/deep.ts")};\nexport const leaked = 1;\n`);
  put(path.join(outside, "victim.ts"), `${canary("outside/victim.ts")};\nexport const victim = 1;\nexport function untouched() {\n  return victim;\n}\n`);
  put(path.join(home, ".ssh", "id_rsa"), `${canary("~/.ssh/id_rsa")}\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n`);
  put(path.join(home, ".bashrc"), `${canary("~/.bashrc")}\nexport HOME_SECRET=1\n`);
  put(path.join(project, ".git", "config"), `${canary("project/.git/config")}\n[core]\n\trepositoryformatversion = 0\n\tbare = false\n`);
  put(path.join(project, ".git", "HEAD"), "ref: refs/heads/main\n");
  const envCanary = canary("server environment MAST_FUZZ_CANARY");

  // The project: this repository's own src/ plus crafted files.
  fs.cpSync(path.join(REPO, "src"), path.join(project, "src"), { recursive: true });
  const f = (rel) => path.join(project, rel);
  const redosLines = ["a".repeat(40) + "!", "x".repeat(5000)];
  for (let n = 28; n <= 40; n++) redosLines.push("a".repeat(n) + "b");
  redosLines.push("a ".repeat(30) + "!", "a".repeat(24) + "x".repeat(24));
  put(f("fuzz/redos.txt"), `${redosLines.join("\n")}\n`);
  put(f("fuzz/redos.ts"), `${redosLines.map((l) => `// ${l}`).join("\n")}\nexport const redos = 1;\n`);
  put(f("fuzz/braces.ts"), `export function braces() {\n${"}\n".repeat(3000)}`);
  put(f("fuzz/crlf.ts"), ["export class Crlf {", "  run(): number {", "    return 1;", "  }", "}", "export const crlf = new Crlf();", ""].join("\r\n"));
  put(f("fuzz/ünïcödé-名前.ts"), "export const naïve = '日本語 — ünïcödé 🙂';\nexport function 名前(x: number) {\n  return x; // עברית \u202E RTL\n}\nexport class Café {}\n");
  put(f("fuzz/no-newline.ts"), "export const last = 1;\nexport const noNewline = 2;");
  {
    const rows = [];
    let size = 0;
    for (let i = 0; size < 2 * 1024 * 1024; i++) {
      const row = `export const big${i} = "${"lorem ipsum dolor sit amet ".repeat(3)}${i}";`;
      rows.push(row);
      size += row.length + 1;
    }
    put(f("fuzz/big.ts"), `${rows.join("\n")}\n`);
  }
  put(f("fuzz/binary.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3, 0, 0xff, 0xfe, 0x0a, 0x00, 0x41]));
  fs.writeFileSync(f("fuzz/binary.ts"), Buffer.concat([Buffer.from("export const bin = 1;\n"), Buffer.from([0, 0, 0x01, 0x0a]), Buffer.from("export const after = 2;\n")]));
  put(f("fuzz/hashpilot.json"), "{}\n");
  put(f("fuzz/scratch.ts"), "export const scratch = 0;\n");
  // Specials.
  const mk = spawnSync("mkfifo", [f("fuzz/fifo")], { encoding: "utf8" });
  const haveFifo = !mk.error && mk.status === 0;
  if (!haveFifo) notes.push(`mkfifo failed (${mk.error?.message ?? mk.stderr.trim()}): no FIFO in the project`);
  fs.symlinkSync("/dev/zero", f("fuzz/zero"));
  fs.symlinkSync("/etc/passwd", f("fuzz/passwd"));
  fs.symlinkSync("/proc/self/fd/1", f("fuzz/stdout-link"));
  fs.symlinkSync(path.join(outside, "secret.txt"), f("fuzz/secret-link.txt"));
  fs.symlinkSync(outside, f("linked-outside"));

  const srcFiles = [];
  const walk = (dir, rel) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r2 = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r2);
      else if (e.isFile()) srcFiles.push(r2);
    }
  };
  walk(f("src"), "src");
  srcFiles.sort();
  const tsFiles = srcFiles.filter((x) => x.endsWith(".ts"));
  const dirs = [".", "fuzz", ...[...new Set(srcFiles.map((x) => path.posix.dirname(x)))].sort()];
  // Identifiers the index knows: declarations of the copied sources.
  const idents = new Set();
  const interfaces = new Set();
  const classes = [];
  for (const rel of tsFiles) {
    const text = fs.readFileSync(f(rel), "utf8");
    for (const m of text.matchAll(/\b(?:function|class|interface|type|const|enum)\s+([A-Za-z_$][\w$]*)/g)) idents.add(m[1]);
    for (const m of text.matchAll(/\binterface\s+([A-Za-z_$][\w$]*)/g)) interfaces.add(m[1]);
    for (const m of text.matchAll(/\bclass\s+([A-Za-z_$][\w$]*)[^{]*\{([\s\S]*?)\n\}/g)) {
      for (const mm of m[2].matchAll(/\n {2}(?:async |static |private |readonly )*([a-zA-Z_$][\w$]*)\(/g)) classes.push(`${m[1]}.${mm[1]}`);
    }
  }
  const passwd = fs.existsSync("/etc/passwd") ? fs.readFileSync("/etc/passwd") : null;
  if (!passwd || !passwd.toString("utf8").includes(PASSWD_MARKER)) notes.push(`/etc/passwd does not hold "${PASSWD_MARKER}": reads of it are not detected by content`);
  return {
    T,
    ws,
    project,
    outside,
    hp,
    home,
    canaries,
    envCanary,
    haveFifo,
    srcFiles,
    tsFiles,
    dirs,
    identifiers: [...idents].sort(),
    interfaces: [...interfaces].sort(),
    methods: [...new Set(classes)].sort(),
    passwd: passwd && { sha: sha256(passwd), bytes: passwd },
    crafted: ["fuzz/redos.txt", "fuzz/redos.ts", "fuzz/braces.ts", "fuzz/crlf.ts", "fuzz/ünïcödé-名前.ts", "fuzz/no-newline.ts", "fuzz/big.ts", "fuzz/binary.bin", "fuzz/binary.ts", "fuzz/scratch.ts"],
    changeSetIds: [],
  };
}

// ---------------------------------------------------------------------------------------------
// outside-write snapshots

/** path -> fingerprint of everything under root (lstat: links are not followed). */
function snapTree(root, out = new Map(), { recursive = true, prefix = root } = {}) {
  let st;
  try {
    st = fs.lstatSync(root);
  } catch {
    return out;
  }
  const key = root;
  if (st.isSymbolicLink()) out.set(key, `link:${fs.readlinkSync(root)}`);
  else if (st.isFile()) out.set(key, `file:${st.size}:${st.mtimeMs}:${st.size < 16 * 1024 * 1024 ? sha256(fs.readFileSync(root)) : "big"}`);
  else if (st.isDirectory()) {
    out.set(key, "dir");
    for (const name of fs.readdirSync(root)) {
      const child = path.join(root, name);
      if (recursive) snapTree(child, out, { recursive, prefix });
      else {
        const cst = fs.lstatSync(child, { throwIfNoEntry: false });
        out.set(child, cst ? (cst.isDirectory() ? "dir" : `${cst.isSymbolicLink() ? "link" : "entry"}:${cst.size}:${cst.mtimeMs}`) : "gone");
      }
    }
  } else out.set(key, `other:${st.mode}`);
  return out;
}

/** The fingerprints an outside write would change: everything outside the project we control, and .git. */
function snapshotOutside(world) {
  const m = new Map();
  snapTree(world.outside, m);
  snapTree(world.home, m);
  snapTree(path.join(world.project, ".git"), m);
  // The temp root and ws/ themselves: only their entries (project/ and the homes change legitimately).
  for (const dir of [world.T, world.ws]) {
    for (const name of fs.readdirSync(dir)) m.set(path.join(dir, name), "entry");
  }
  if (world.passwd) {
    try {
      m.set("/etc/passwd", `sha:${sha256(fs.readFileSync("/etc/passwd"))}`);
    } catch {
      m.set("/etc/passwd", "unreadable");
    }
  }
  return m;
}

/** Names with the FUZZW marker under /tmp (top level) and under HASHPILOT_HOME, and manifests that are not the writer's. */
function scanStores(world) {
  const found = [];
  try {
    for (const name of fs.readdirSync(os.tmpdir())) if (name.includes("FUZZW")) found.push({ path: path.join(os.tmpdir(), name), why: "a fuzz-created file outside the temp dir" });
  } catch {
    // no /tmp listing
  }
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.name.includes("FUZZW")) found.push({ path: abs, why: "a fuzz-named file in HASHPILOT_HOME" });
      if (e.isDirectory()) walk(abs);
    }
  };
  walk(world.hp);
  const csDir = path.join(world.hp, "snapshots", "changesets");
  let names = [];
  try {
    names = fs.readdirSync(csDir);
  } catch {
    // no changesets yet
  }
  const realProject = fs.realpathSync(world.project);
  for (const name of names) {
    const abs = path.join(csDir, name);
    if (!CHANGESET_FILE.test(name)) {
      found.push({ path: abs, why: "a file in the changeSet store that is not named like a manifest" });
      continue;
    }
    let rec;
    try {
      rec = JSON.parse(fs.readFileSync(abs, "utf8"));
    } catch {
      found.push({ path: abs, why: "a changeSet manifest that is not JSON" });
      continue;
    }
    if (name === `${PLANTED_ID}.json`) found.push({ path: abs, why: "the manifest the fuzzer tried to plant is in the store" });
    if (!rec || rec.changeSetId !== name.slice(0, -5) || !Array.isArray(rec.files)) found.push({ path: abs, why: "a manifest whose id or files do not fit" });
    else {
      const out = rec.files.filter((x) => typeof x?.path !== "string" || !(within(x.path, world.project) || within(x.path, realProject)));
      if (out.length) found.push({ path: abs, why: `a manifest naming a file outside the project: ${out.map((x) => x?.path).join(", ")}` });
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// the server

class Server {
  constructor(world, env) {
    this.world = world;
    this.env = env;
    this.starts = 0;
    this.reindexLineSeen = null;
    this.live = null;
  }

  async start() {
    let lastErr;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.startOnce();
        return;
      } catch (err) {
        lastErr = err;
        await this.kill();
      }
    }
    throw new BenchError(`mast serve did not start 3 times in a row: ${lastErr?.message ?? lastErr}\n${this.live?.stderr ?? ""}`);
  }

  async startOnce() {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAST, "serve", this.world.project, "--toolsets", "read,edit,more,admin"],
      env: this.env,
      cwd: this.world.ws,
      stderr: "pipe",
    });
    const live = { transport, client: null, pid: null, stderr: "", exited: false, killed: false, reindexed: false, proc: null, overflow: null };
    this.live = live;
    transport.stderr?.on("data", (d) => {
      live.stderr = (live.stderr + d.toString()).slice(-8000);
      if (/startup reindex (done|failed)/.test(live.stderr)) live.reindexed = true;
    });
    const client = new Client({ name: "mast-fuzz", version: "1.0.0" });
    live.client = client;
    client.onclose = () => {
      live.exited = true;
    };
    // The SDK client refuses a message over its read buffer (10 MiB) and drops the connection.
    client.onerror = (err) => {
      if (/ReadBuffer exceeded maximum size/.test(String(err?.message ?? err))) live.overflow = String(err.message ?? err);
    };
    const connect = client.connect(transport);
    connect.catch(() => undefined);
    // The pid is known as soon as start() spawned the process.
    const t0 = performance.now();
    const timeout = sleep(START_TIMEOUT_MS).then(() => "timeout");
    const outcome = await Promise.race([connect.then(() => "ok"), timeout]);
    live.pid = transport.pid ?? null;
    live.proc = transport._process ?? null;
    if (live.pid) LIVE_PIDS.add(live.pid);
    if (outcome !== "ok") throw new Error(`no MCP handshake within ${START_TIMEOUT_MS / 1000} s`);
    this.starts++;
    // Wait for the startup reindex so calls meet a steady server (skipped when the line never came).
    if (this.reindexLineSeen !== false) {
      while (!live.reindexed && !live.exited && performance.now() - t0 < REINDEX_WAIT_MS) await sleep(50);
      if (this.reindexLineSeen === null) this.reindexLineSeen = live.reindexed;
    }
    if (live.exited) throw new Error(`the server exited during startup: ${live.stderr.slice(-500)}`);
  }

  rss() {
    const pid = this.live?.pid;
    if (!pid) return 0;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
      return m ? Number(m[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  }

  async kill() {
    const live = this.live;
    if (!live) return;
    live.killed = true;
    const pid = live.pid ?? live.transport.pid;
    if (pid) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
      LIVE_PIDS.delete(pid);
    }
    // Not client.close(): with the process already dead it waits 2 s for a 'close' event that came.
    const t0 = performance.now();
    while (!live.exited && performance.now() - t0 < 3000) await sleep(20);
  }

  async restart() {
    await this.kill();
    await this.start();
  }

  async close() {
    const live = this.live;
    if (!live) return;
    live.killed = true;
    await Promise.race([live.client.close().catch(() => undefined), sleep(6000)]);
    if (live.pid) {
      try {
        process.kill(live.pid, "SIGKILL");
      } catch {
        // exited
      }
      LIVE_PIDS.delete(live.pid);
    }
  }
}

const LIVE_PIDS = new Set();

/** One call with the clock and the watchdogs: answer | error | crash | hung | memory. */
async function invoke(server, name, args, hangMs) {
  const live = server.live;
  const t0 = performance.now();
  const p = live.client.callTool({ name, arguments: args }, undefined, { timeout: hangMs + 30_000 }).then(
    (r) => ({ kind: "answer", r }),
    (e) => ({ kind: "error", e }),
  );
  let rssPeak = 0;
  for (;;) {
    const got = await Promise.race([p, sleep(200).then(() => null)]);
    const ms = performance.now() - t0;
    if (got) {
      if (got.kind === "error" && !live.killed) await sleep(100);
      if (got.kind === "error" && live.overflow) {
        await server.kill();
        return { kind: "overflow", ms, rssPeak, error: live.overflow };
      }
      if (got.kind === "error" && live.exited && !live.killed) {
        const proc = live.proc;
        return { kind: "crash", ms, rssPeak, error: String(got.e?.message ?? got.e), exit: proc ? { code: proc.exitCode, signal: proc.signalCode } : null, stderr: live.stderr.slice(-1500) };
      }
      return { ...got, ms, rssPeak };
    }
    const rss = server.rss();
    rssPeak = Math.max(rssPeak, rss);
    if (rss > RSS_LIMIT) {
      const stderr = live.stderr.slice(-1500);
      await server.kill();
      return { kind: "memory", ms, rssPeak, stderr };
    }
    if (live.overflow && ms > 3000) {
      await server.kill();
      return { kind: "overflow", ms, rssPeak, error: live.overflow };
    }
    if (live.exited && !live.killed && ms > 2000) {
      const proc = live.proc;
      return {
        kind: "crash",
        ms,
        rssPeak,
        error: "the transport closed with the call unanswered",
        exit: proc ? { code: proc.exitCode, signal: proc.signalCode } : null,
        stderr: live.stderr.slice(-1500),
      };
    }
    if (ms > hangMs) {
      const stderr = live.stderr.slice(-1500);
      await server.kill();
      return { kind: "hung", ms, rssPeak, stderr };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// input generation

const FTS = [
  '"',
  "*",
  "NEAR(a b)",
  "a AND OR b",
  "^x",
  "col:term",
  "file_path:db",
  "(a OR b",
  "a)",
  "-x",
  "+",
  "'",
  '""',
  "AND",
  "NOT",
  "OR",
  "NEAR(",
  "{a b}",
  "x*y",
  "*Store",
  "Store*",
  '"unterminated',
  "a NOT",
  "NEAR(a b, -5)",
  "NEAR(a b, 99999999999)",
  "%",
  "_",
  "\\",
  ";DROP TABLE chunks;--",
  'content:"x"',
  "^",
  ":",
  ".",
  "a:b:c",
  "symbol_name:Store",
  "Store OR",
  "NEAR(Store runIndex, 2)",
  "(((((",
  ")))))",
  "a b c d e f g h i j k l m n o p q r s t u v w x y z",
];
const REDOS = [
  { tag: "(a+)+$", re: "(a+)+$" },
  { tag: "(a|a)*b$", re: "(a|a)*b$" },
  { tag: "(.*a){25}", re: "(.*a){25}" },
  { tag: "^(\\w+\\s?)*$", re: "^(\\w+\\s?)*$" },
  { tag: "(x+x+)+y", re: "(x+x+)+y" },
  { tag: "(a*)*c", re: "(a*)*c" },
];
const REGEXES = [
  "(",
  "[",
  "*",
  "a{2,1}",
  "\\",
  "(?<n>a)\\k<m>",
  "[[:alpha:]]+",
  "[[:bogus:]]",
  "(?<=ex)port",
  "\\p{L}",
  "^",
  "$",
  ".*",
  "(?:)",
  "|",
  "x|".repeat(5000) + "x",
  "\\0",
  "[\\s\\S]",
  "\\bStore\\b",
  "runIndex\\(",
  "export (async )?function",
  "[[:digit:]]{3}",
  "(?i)store",
  "a{0,99999}",
  "(((((((((a)))))))))",
  "\\u{1F642}",
];
const GLOBS = [
  "**/".repeat(200) + "*.ts",
  "[",
  "[a-",
  "{a,b",
  "*".repeat(10000),
  "**/*.{ts,tsx}",
  "!(*.ts)",
  "@(a|b)",
  "+(a|aa|aaa)*",
  "src/**/",
  "\\",
  "**/" + "a".repeat(100_000),
  "**",
  "?(*)",
  "{1..1000000}",
  "{" + "a,".repeat(5000) + "b}",
  "/etc/*",
  "../**",
  "../../outside/**",
  "*(a|a)*b",
  "**/*.ts\u0000",
  "src/**/[!a-z]*.ts",
  "**/*.{" + "ts,".repeat(2000) + "js}",
];
const UNICODE = [
  "🙂",
  "👨‍👩‍👧‍👦",
  "\u202Eevil.ts",
  "مرحبا",
  "e\u0301\u0302\u0303\u0304",
  "\ud800",
  "\udfff",
  "a\ud83d",
  "\uFEFF",
  "\u200B",
  "名前",
  "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324",
  "\uffff",
  "\u0085line",
  "\u2028sep",
];
const WRONG = [123, -1.5, true, false, null, [], [1, "a"], {}, { a: { b: { c: [1] } } }, "string", [[["deep"]]], 0];
const NUMBERS = [1e9, -1, 0, 1.5, "NaN", "10", 2 ** 53, -(2 ** 31), 1e308, true, null, "1e9", 9007199254740993, -0.0001, 100001, 1e6];
const OPERATIONS = ["replace-hash", "rename-symbol", "add-import", "diff-apply", "read-many", "", "__proto__", "x".repeat(300)];
const POLICIES = [
  '{"default":"hash"}',
  '{"languageOverrides":{"typescript":"diff"}}',
  "{",
  "[]",
  "null",
  '{"__proto__":{"polluted":true}}',
  '{"operationOverrides":{"replace-hash":"nonsense"}}',
  '"str"',
  "{".repeat(5000),
];
const DATES = ["2024-01-01", "2099-12-31T00:00:00Z", "yesterday", "0", "-1", "2024-13-45", "1e20"];
const MODE_WEIGHTS = {
  valid: 20,
  "wrong-type": 6,
  missing: 3,
  extra: 3,
  huge: 5,
  unicode: 5,
  nul: 4,
  fts: 40,
  traversal: 22,
  redos: 40,
  glob: 14,
  numbers: 5,
  "big-answer": 8,
  "write-outside": 40,
  "non-object": 1,
};

function propInfo(prop) {
  const info = { types: new Set(), enum: null, min: undefined, max: undefined, items: null };
  const visit = (p) => {
    if (!p || typeof p !== "object") return;
    if (Array.isArray(p.anyOf)) p.anyOf.forEach(visit);
    if (Array.isArray(p.type)) p.type.forEach((t) => info.types.add(t));
    else if (p.type) info.types.add(p.type);
    if (p.enum) info.enum = p.enum;
    if (p.minimum !== undefined) info.min = p.minimum;
    if (p.maximum !== undefined) info.max = p.maximum;
    if (p.items) info.items = p.items;
  };
  visit(prop);
  return info;
}

/** What a field is about, from its name and schema type. */
function fieldKind(name, info) {
  if (["file", "file_path", "directory", "config_path"].includes(name)) return "path";
  if (["files", "paths"].includes(name)) return "paths";
  if (name === "pattern") return "regex";
  if (name === "file_pattern") return "glob";
  if (name === "query") return "query";
  if (["symbol", "interface_name"].includes(name)) return "ident";
  if (name === "names") return "idents";
  if (name === "old_hash") return "hash";
  if (["new_content", "old_content"].includes(name)) return "content";
  if (name === "patch") return "patch";
  if (name === "range") return "range";
  if (name === "change_set_id") return "csid";
  if (name === "policy") return "policy";
  if (name === "operation") return "operation";
  if (["from", "to"].includes(name)) return "date";
  if (info.enum) return "enum";
  if (info.types.has("boolean")) return "bool";
  if (info.types.has("integer") || info.types.has("number")) return "int";
  if (info.types.has("array")) return "array";
  return "text";
}

class Generator {
  constructor(world, tools, rand) {
    this.w = world;
    this.rand = rand;
    this.tools = new Map(tools.map((t) => [t.name, t]));
    this.n = 0;
    const pool = (size, lines) => {
      const words = ["alpha", "beta", "Store", "runIndex", "export", "const", "{", "}", "return", "null", "🙂", "ünï"];
      const out = [];
      let len = 0;
      while (len < size) {
        const w = words[Math.floor(rand() * words.length)];
        out.push(w);
        len += w.length + 1;
      }
      return out.join(lines ? "\n" : " ").slice(0, size);
    };
    this.huge = {
      "100KB": "A".repeat(100 * 1024),
      "1MB": "B".repeat(1024 * 1024),
      "100KB-lines": pool(100 * 1024, true),
      "1MB-lines": pool(1024 * 1024, true),
      "1MB-lines-b": pool(1024 * 1024, true),
      // 1 MB of TypeScript that parses (so an edit passes the parse gate and reaches the diff).
      "1MB-ts": Array.from({ length: 40_000 }, (_, i) => `export const fz${i} = ${(i * 7919) % 10007};`)
        .join("\n")
        .slice(0, 1024 * 1024)
        .replace(/\n[^\n]*$/, "\n"),
    };
  }
  r() {
    return this.rand();
  }
  pick(xs) {
    return xs[Math.floor(this.rand() * xs.length)];
  }
  chance(p) {
    return this.rand() < p;
  }
  int(a, b) {
    return a + Math.floor(this.rand() * (b - a + 1));
  }
  abs(rel) {
    return path.join(this.w.project, rel);
  }

  // ---- value pools

  validPath(name) {
    const w = this.w;
    if (name === "directory") return this.pick([...w.dirs, null]);
    if (name === "config_path") return this.pick([null, "fuzz/hashpilot.json"]);
    const rel = this.chance(0.8) ? this.pick(w.tsFiles) : this.pick(w.crafted);
    return this.chance(0.15) ? this.abs(rel) : rel;
  }

  traversal() {
    const w = this.w;
    const rel = (abs) => path.relative(w.project, abs);
    const list = [
      ["../../etc/passwd", "../../etc/passwd"],
      ["rel-etc-passwd", rel("/etc/passwd")],
      ["abs-etc-passwd", "/etc/passwd"],
      ["tilde-ssh", "~/.ssh/id_rsa"],
      ["home-ssh-abs", path.join(w.home, ".ssh", "id_rsa")],
      ["home-bashrc-abs", path.join(w.home, ".bashrc")],
      ["outside-abs", path.join(w.outside, "secret.txt")],
      ["outside-rel", rel(path.join(w.outside, "secret.txt"))],
      ["outside-bashrc-rel", rel(path.join(w.outside, ".bashrc"))],
      ["outside-dir-rel", rel(w.outside)],
      ["linked-outside-file", "linked-outside/secret.txt"],
      ["linked-outside-dir", "linked-outside"],
      ["symlink-file-outside", "fuzz/secret-link.txt"],
      ["symlink-passwd", "fuzz/passwd"],
      ["git-config", ".git/config"],
      ["git-dir", ".git"],
      ["mast-db", ".mast/graph.db"],
      ["mast-config", ".mast/config.json"],
      ["hp-home", w.hp],
      ["hp-changesets", path.join(w.hp, "snapshots", "changesets")],
      ["hp-file", this.hpFile()],
      ["proc-environ", "/proc/self/environ"],
      ["fifo", "fuzz/fifo"],
      ["dev-stdin", "/dev/stdin"],
      ["stdout-link", "fuzz/stdout-link"],
      ["dev-zero-link", "fuzz/zero"],
      ["dev-zero-abs", "/dev/zero"],
      ["long-5000-segments", "a/".repeat(2500)],
      ["long-5000-name", "x".repeat(5000)],
      ["dotdot-chain", "../".repeat(40) + "etc/passwd"],
      ["file-url", "file:///etc/passwd"],
      ["backslashes", "..\\..\\outside\\secret.txt"],
      ["trailing-slash", "src/base/hash.ts/"],
      ["dir-as-file", "src"],
      ["dot", "."],
      ["empty", ""],
    ];
    if (!w.haveFifo)
      list.splice(
        list.findIndex(([t]) => t === "fifo"),
        1,
      );
    const [tag, value] = this.pick(list);
    return { tag, value };
  }

  hpFile() {
    const files = [];
    const walk = (d, depth) => {
      if (depth > 3 || files.length > 50) return;
      let es;
      try {
        es = fs.readdirSync(d, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of es) {
        if (e.isDirectory()) walk(path.join(d, e.name), depth + 1);
        else files.push(path.join(d, e.name));
      }
    };
    walk(this.w.hp, 0);
    return files.length ? this.pick(files.sort()) : path.join(this.w.hp, "snapshots", "changesets", `${PLANTED_ID}.json`);
  }

  ident() {
    const w = this.w;
    return this.chance(0.2) && w.methods.length ? this.pick(w.methods) : this.pick(w.identifiers);
  }

  unicodeString() {
    return Array.from({ length: this.int(1, 3) }, () => this.pick(UNICODE)).join(this.pick(["", " ", "/", "."]));
  }

  validValue(tool, name, info) {
    const kind = fieldKind(name, info);
    const nullable = info.types.has("null");
    if (nullable && this.chance(0.08)) return null;
    switch (kind) {
      case "path":
        return this.validPath(name);
      case "paths":
        return Array.from({ length: this.int(1, 2) }, () => (this.chance(0.3) ? this.pick(this.w.dirs) : this.validPath("file")));
      case "regex":
        return this.chance(0.6) ? this.ident() : this.pick(["export (async )?function", "\\bStore\\b", "[[:digit:]]+", "TODO|FIXME", "^import"]);
      case "glob":
        return this.pick(["**/*.ts", "src/edit/**", "*.ts", "src/**/index*.ts", "**/*.md"]);
      case "query":
        return this.chance(0.7) ? this.ident() : this.pick(["index files", "hash anchor", "lock", "parse error", "snapshot undo"]);
      case "ident":
        return name === "interface_name" && this.w.interfaces.length ? this.pick(this.w.interfaces) : this.ident();
      case "idents":
        return Array.from({ length: this.int(1, 3) }, () => this.ident());
      case "hash":
        return Array.from({ length: 12 }, () => this.int(0, 15).toString(16)).join("");
      case "content":
        return this.pick(["// fz", "export const fz = 1;", "", "\n", "a\r\nb", "\uFEFFbom", "x".repeat(1000), "line one\nline two\n"]);
      case "patch":
        return this.pick(this.brokenPatches());
      case "range":
        return this.pick(["1", "1:3", "2:2", "10:12"]);
      case "csid":
        return this.w.changeSetIds.length && this.chance(0.8) ? this.pick(this.w.changeSetIds) : "cs-20240101T000000000Z-00000000";
      case "policy":
        return this.pick(POLICIES.slice(0, 2));
      case "operation":
        return this.pick(OPERATIONS.slice(0, 5));
      case "date":
        return this.pick(DATES.slice(0, 2));
      case "enum":
        return this.pick(info.enum);
      case "bool":
        return this.chance(0.5);
      case "int": {
        const lo = info.min ?? 0;
        const hi = Math.min(info.max ?? 100, lo + 50);
        return this.int(lo, hi);
      }
      case "array":
        return [this.ident()];
      default:
        return this.pick(["fuzz-agent", "task-7", "because", "sess-1"]);
    }
  }

  valid(tool) {
    const props = tool.inputSchema?.properties ?? {};
    const required = new Set(tool.inputSchema?.required ?? []);
    const args = {};
    for (const [name, prop] of Object.entries(props)) {
      if (required.has(name) || this.chance(0.4)) args[name] = this.validValue(tool, name, propInfo(prop));
    }
    return this.fixValid(tool.name, args);
  }

  /** Tool-specific valid inputs: lines within the file, hashes and patches that match it, known changeSets. */
  fixValid(name, args) {
    const w = this.w;
    switch (name) {
      case "read_hash":
      case "provenance_query": {
        const rel = this.pick(w.tsFiles);
        args.file = rel;
        const text = readText(this.abs(rel));
        const n = text ? splitLines(text).lines.length : 1;
        if (name === "read_hash" || args.line !== undefined) args.line = this.int(1, n);
        break;
      }
      case "replace_hash": {
        const rel = this.chance(0.7) ? this.pick(w.tsFiles) : this.pick(["fuzz/scratch.ts", "fuzz/crlf.ts", "fuzz/no-newline.ts", "fuzz/ünïcödé-名前.ts", "fuzz/braces.ts"]);
        Object.assign(args, this.replaceFor(rel, this.abs(rel)));
        args.dry_run = this.chance(0.5);
        break;
      }
      case "diff_apply": {
        if (this.chance(0.15)) {
          const rel = `fuzz/new-${this.n}.ts`;
          args.file = rel;
          args.patch = `--- /dev/null\n+++ b/${rel}\n@@ -0,0 +1,1 @@\n+export const created${this.n} = 1;\n`;
        } else {
          const rel = this.chance(0.7) ? this.pick(w.tsFiles) : this.pick(["fuzz/scratch.ts", "fuzz/crlf.ts", "fuzz/no-newline.ts", "fuzz/ünïcödé-名前.ts"]);
          args.file = rel;
          args.patch = this.patchFor(rel, this.abs(rel), `// fz ${this.n}`) ?? this.pick(this.brokenPatches());
        }
        args.dry_run = this.chance(0.5);
        break;
      }
      case "diff_generate":
        args.file = this.validPath("file");
        args.old_content = "a\nb\nc\n";
        args.new_content = this.pick(["a\nB\nc\n", "a\nb\nc", "", "a\nb\nc\nd\n"]);
        break;
      case "grep_many":
        args.paths = [this.chance(0.5) ? this.pick(w.dirs) : this.pick(w.tsFiles)];
        break;
      case "undo":
        delete args.change_set_id;
        delete args.last;
        if (w.changeSetIds.length && this.chance(0.5)) args.change_set_id = this.pick(w.changeSetIds);
        else args.last = true;
        args.dry_run = this.chance(0.5);
        break;
      case "symbol_lookup_many":
        args.paths = [this.chance(0.85) ? this.pick(w.tsFiles) : this.pick(w.dirs.filter((d) => d !== "." && d !== "fuzz"))];
        break;
      case "mast_reindex":
        args.full = this.chance(0.08);
        break;
      case "mast_exports":
      case "mast_dependencies":
        args.file_path = this.pick(w.tsFiles);
        break;
      case "mast_signature":
      case "mast_callers":
      case "mast_rename_impact":
      case "mast_implementors":
        if (args.file_path !== undefined && args.file_path !== null) args.file_path = this.pick(w.tsFiles);
        break;
      case "mast_project_skeleton":
        if (typeof args.directory === "string" && args.directory === ".") args.directory = null;
        break;
      default:
        break;
    }
    return args;
  }

  /** A valid replace_hash input for the file at abs (range or whole-file hash), or a random hash when it has no text. */
  replaceFor(file, abs, marker = `// fz ${this.n}`) {
    const text = readText(abs);
    if (text === null) return { file, old_hash: this.validValue(null, "old_hash", { types: new Set() }), new_content: marker };
    const { lines } = splitLines(text);
    if (this.chance(0.4)) return { file, old_hash: hash12(lines.join("\n")), new_content: `${lines.join("\n")}\n${marker}\n` };
    const a = this.int(1, lines.length);
    const b = Math.min(lines.length, a + this.int(0, 2));
    const region = lines.slice(a - 1, b);
    return { file, old_hash: hash12(region.join("\n")), range: a === b ? String(a) : `${a}:${b}`, new_content: `${region.join("\n")}\n${marker}` };
  }

  /** A unified diff inserting `marker` after a random line of the file at abs, or null when it has no text. */
  patchFor(file, abs, marker) {
    const text = readText(abs);
    if (text === null) return null;
    const { lines, terminated } = splitLines(text);
    const i = this.int(0, lines.length - 1);
    const s = Math.max(0, i - 2);
    const e = Math.min(lines.length, i + 3);
    const body = [];
    for (let k = s; k < e; k++) {
      body.push(` ${lines[k]}`);
      if (k === lines.length - 1 && !terminated) body.push("\\ No newline at end of file");
      if (k === i) {
        // Inserted after the last line of a file without a final newline: the old last line changes.
        if (k === lines.length - 1 && !terminated) {
          body.splice(body.length - 2, 2, `-${lines[k]}`, "\\ No newline at end of file", `+${lines[k]}`, `+${marker}`, "\\ No newline at end of file");
        } else body.push(`+${marker}`);
      }
    }
    const oldCount = e - s;
    const newCount = oldCount + 1;
    return `--- a/${file}\n+++ b/${file}\n@@ -${s + 1},${oldCount} +${s + 1},${newCount} @@\n${body.join("\n")}\n`;
  }

  brokenPatches() {
    return [
      "garbage",
      "--- a/x\n+++ b/x\n",
      "@@ -1,999999999 +1,1 @@\n-a\n+b\n",
      "@@ -0,0 +0,0 @@\n",
      "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n",
      "--- a/f\n+++ b/f\n@@ -1 +1 @@\n\\ No newline at end of file\n\\ No newline at end of file\n",
      `--- a/f\n+++ b/f\n${"@@ -1,1 +1,1 @@\n-a\n+b\n".repeat(1000)}`,
      "--- a/f\n+++ b/f\n@@ -5,2 +5,2 @@\n-only one line\n",
      "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-a\n+b\n",
      "GIT binary patch\nliteral 0\nHcmV?d00001\n",
      "--- a/f\n+++ b/f\n@@ -1,-1 +1,-1 @@\n",
      "--- a/f\n+++ b/f\n@@ -9007199254740993,1 +1,1 @@\n-a\n+b\n",
      "\\ No newline at end of file\n",
      "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n",
    ];
  }

  // ---- modes

  applicable(tool) {
    const props = Object.keys(tool.inputSchema?.properties ?? {});
    const kinds = new Set(props.map((p) => fieldKind(p, propInfo(tool.inputSchema.properties[p]))));
    const ok = {
      valid: true,
      "wrong-type": true,
      missing: true,
      extra: true,
      huge: props.length > 0,
      unicode: [...kinds].some((k) => ["path", "paths", "query", "ident", "idents", "content", "text", "regex", "glob", "patch", "csid", "operation"].includes(k)),
      nul: [...kinds].some((k) => ["path", "paths", "query", "ident", "idents", "regex", "glob", "csid"].includes(k)),
      fts: kinds.has("query"),
      traversal: kinds.has("path") || kinds.has("paths"),
      redos: kinds.has("regex"),
      glob: kinds.has("glob"),
      numbers: kinds.has("int"),
      "big-answer": [
        "read_many",
        "replace_hash",
        "grep_many",
        "mast_project_skeleton",
        "telemetry_show",
        "telemetry_export",
        "provenance_query",
        "mast_search",
        "mast_callers",
        "mast_rename_impact",
        "diff_apply",
        "diff_generate",
        "symbol_lookup_many",
        "mast_signature",
      ].includes(tool.name),
      "write-outside": ["replace_hash", "diff_apply", "undo"].includes(tool.name),
      "non-object": true,
    };
    return Object.entries(MODE_WEIGHTS).filter(([m]) => ok[m]);
  }

  draw(tool) {
    this.n++;
    const modes = this.applicable(tool);
    const total = modes.reduce((a, [, wt]) => a + wt, 0);
    let x = this.r() * total;
    let mode = modes[0][0];
    for (const [m, wt] of modes) {
      if ((x -= wt) < 0) {
        mode = m;
        break;
      }
    }
    return this.make(tool, mode);
  }

  /** The string-valued fields of an input (top level or first array element), for the string mutations. */
  stringFields(tool, kinds = null) {
    return Object.entries(tool.inputSchema?.properties ?? {})
      .filter(([n, p]) => {
        const info = propInfo(p);
        const k = fieldKind(n, info);
        return (info.types.has("string") || info.types.has("array")) && (!kinds || kinds.includes(k));
      })
      .map(([n]) => n);
  }

  make(tool, mode) {
    const props = tool.inputSchema?.properties ?? {};
    const names = Object.keys(props);
    const args = this.valid(tool);
    const setStr = (field, s) => {
      if (Array.isArray(args[field]) || fieldKind(field, propInfo(props[field])) === "paths" || fieldKind(field, propInfo(props[field])) === "idents")
        args[field] = this.chance(0.5) ? [s] : [this.validValue(tool, field, propInfo(props[field]))[0] ?? "x", s];
      else args[field] = s;
    };
    switch (mode) {
      case "valid":
        return { args, mode, tag: "valid" };
      case "wrong-type": {
        const fields = names.length ? [this.pick(names), ...(this.chance(0.3) ? [this.pick(names)] : [])] : ["bogus"];
        const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);
        for (const fld of fields) {
          // A value of a JSON type the field does not take (an integer also passes as a number).
          const types = props[fld] ? propInfo(props[fld]).types : new Set();
          const wrongOnes = WRONG.filter(
            (v) => !types.has(jsonType(v)) && !(jsonType(v) === "integer" && types.has("number")) && !(typeof v === "number" && !Number.isInteger(v) && types.has("number")),
          );
          args[fld] = this.pick(wrongOnes.length ? wrongOnes : WRONG);
        }
        return { args, mode, tag: `wrong-type:${fields.join(",")}` };
      }
      case "missing": {
        const req = tool.inputSchema?.required ?? [];
        if (!req.length) return { args: {}, mode, tag: "missing:none-required" };
        const fld = this.pick(req);
        delete args[fld];
        return { args, mode, tag: `missing:${fld}` };
      }
      case "extra": {
        const extra = this.pick([{ unknown_field: 1 }, JSON.parse('{"__proto__":{"polluted":true}}'), { constructor: { prototype: { x: 1 } } }, { toString: "x" }, { ["x".repeat(1000)]: 1 }]);
        return { args: Object.assign(args, extra), mode, tag: `extra:${Object.keys(extra)[0].slice(0, 20)}` };
      }
      case "huge": {
        const fields = this.stringFields(tool);
        const size = this.pick(["100KB", "1MB", "100KB-lines", "1MB-lines"]);
        if (!fields.length) {
          args[`huge_${size}`] = this.huge[size];
          return { args, mode, tag: `huge:unknown-field:${size}` };
        }
        const fld = this.pick(fields);
        if (tool.name === "replace_hash" && this.chance(0.3)) {
          // A whole-file rewrite of the 2 MB file with 1 MB of different lines (dry run: the diff is the work).
          const text = readText(this.abs("fuzz/big.ts"));
          if (text) return { args: { file: "fuzz/big.ts", old_hash: hash12(splitLines(text).lines.join("\n")), new_content: this.huge["1MB-ts"], dry_run: true }, mode, tag: "huge:rewrite-2MB-file" };
        }
        if (tool.name === "diff_generate" && this.chance(0.5)) {
          args.old_content = this.huge["1MB-lines"];
          args.new_content = this.huge["1MB-lines-b"];
          return { args, mode, tag: "huge:two-1MB-contents" };
        }
        if (fieldKind(fld, propInfo(props[fld])) === "paths" && this.chance(0.3)) {
          args[fld] = Array.from({ length: 10_000 }, (_, i) => this.w.tsFiles[i % this.w.tsFiles.length]);
          return { args, mode, tag: `huge:${fld}:10000-items` };
        }
        setStr(fld, this.huge[size]);
        return { args, mode, tag: `huge:${fld}:${size}` };
      }
      case "unicode": {
        const fields = this.stringFields(tool, ["path", "paths", "query", "ident", "idents", "content", "text", "regex", "glob", "patch", "csid", "operation"]);
        const fld = this.pick(fields);
        if (!fld) return { args, mode: "valid", tag: "valid" };
        const kind = fieldKind(fld, propInfo(props[fld]));
        const u = this.unicodeString();
        let s = u;
        if (kind === "path" || kind === "paths") s = this.chance(0.3) ? "fuzz/ünïcödé-名前.ts" : `fuzz/${u}.ts`;
        setStr(fld, s);
        return { args, mode, tag: `unicode:${fld}` };
      }
      case "nul": {
        const fld = this.pick(this.stringFields(tool, ["path", "paths", "query", "ident", "idents", "regex", "glob", "csid"]));
        if (!fld) return { args, mode: "valid", tag: "valid" };
        const kind = fieldKind(fld, propInfo(props[fld]));
        const base = kind === "path" || kind === "paths" ? this.pick(this.w.tsFiles) : String(this.validValue(tool, fld, propInfo(props[fld])) ?? "x");
        const cut = this.int(0, base.length);
        setStr(fld, this.chance(0.5) ? `${base.slice(0, cut)}\u0000${base.slice(cut)}` : `${base}\u0000.txt`);
        return { args, mode, tag: `nul:${fld}` };
      }
      case "fts":
        args.query = this.chance(0.8) ? this.pick(FTS) : `${this.ident()} ${this.pick(FTS)}`;
        return { args, mode, tag: "fts" };
      case "traversal": {
        const fields = names.filter((n) => ["path", "paths"].includes(fieldKind(n, propInfo(props[n]))));
        const fld = this.pick(fields);
        const t = this.traversal();
        const kind = fieldKind(fld, propInfo(props[fld]));
        if (kind === "paths") args[fld] = this.chance(0.6) ? [t.value] : [this.pick(this.w.tsFiles), t.value];
        else args[fld] = t.value;
        if (tool.name === "read_hash") args.line = this.pick([1, 1, 2, 5]);
        if (tool.name === "replace_hash") Object.assign(args, { ...this.replaceFor(t.value, path.resolve(this.w.project, t.value)), file: t.value });
        if (tool.name === "diff_apply") {
          args.patch = this.patchFor(t.value, path.resolve(this.w.project, t.value), `// FUZZW-${this.n}`) ?? `--- /dev/null\n+++ b/${t.value}\n@@ -0,0 +1,1 @@\n+// FUZZW-${this.n}\n`;
          args.dry_run = this.chance(0.5);
        }
        if (tool.name === "grep_many") args.pattern = this.pick([".", "CNRY", "root", "^"]);
        return { args, mode, tag: `path:${t.tag}`, target: kind === "path" ? t.value : null };
      }
      case "redos": {
        if (this.chance(0.3)) {
          // Odd but not catastrophic: invalid syntax, POSIX classes, huge alternations, empty matches.
          args.pattern = this.pick(REGEXES);
          args.paths = [this.pick(["fuzz/redos.txt", ".", "src"])];
          return { args, mode, tag: `pattern:${oneLine(args.pattern, 20)}${args.pattern.length > 20 ? `…${args.pattern.length}` : ""}` };
        }
        const r = this.pick(REDOS);
        args.pattern = r.re;
        const where = this.pick(["long-lines-file", "long-lines-ts", "project-root", "fuzz-dir"]);
        args.paths = [{ "long-lines-file": "fuzz/redos.txt", "long-lines-ts": "fuzz/redos.ts", "project-root": ".", "fuzz-dir": "fuzz" }[where]];
        if (this.chance(0.3)) args.ignore_case = true;
        return { args, mode, tag: `regex:${r.tag}@${where}` };
      }
      case "glob":
        args.file_pattern = this.pick(GLOBS);
        if (tool.name === "grep_many") args.paths = ["."];
        return { args, mode, tag: `glob:${args.file_pattern.slice(0, 24)}${args.file_pattern.length > 24 ? `…${args.file_pattern.length}` : ""}` };
      case "numbers": {
        const ints = names.filter((n) => fieldKind(n, propInfo(props[n])) === "int");
        const fld = this.pick(ints);
        args[fld] = this.pick(NUMBERS);
        return { args, mode, tag: `numbers:${fld}` };
      }
      case "big-answer":
        return this.bigAnswer(tool, args);
      case "write-outside":
        return this.writeOutside(tool, args);
      case "non-object":
        return { args: this.pick([[], "string", 42, null, [{ file: "x" }], true]), mode, tag: "non-object" };
      default:
        throw new Error(`unknown mode ${mode}`);
    }
  }

  bigAnswer(tool, args) {
    const w = this.w;
    const mode = "big-answer";
    switch (tool.name) {
      case "read_many":
        return { args: { files: Array.from({ length: this.int(2, 4) }, () => "fuzz/big.ts") }, mode, tag: "big:read 2MB file x2-4" };
      case "grep_many":
        return { args: { pattern: this.pick(["^", ".", "e"]), paths: ["."], max_results: 100_000 }, mode, tag: "big:grep every line" };
      case "mast_project_skeleton":
        return { args: { limit: 10_000 }, mode, tag: "big:skeleton 10000" };
      case "telemetry_show":
        return { args: { limit: 10_000 }, mode, tag: "big:telemetry 10000" };
      case "telemetry_export":
        return { args: {}, mode, tag: "big:telemetry export" };
      case "provenance_query":
        return { args: { file: this.pick(["fuzz/scratch.ts", ...w.tsFiles.slice(0, 5)]), limit: 10_000, fuzzy: true }, mode, tag: "big:provenance 10000" };
      case "mast_search":
        return { args: { query: this.pick(["export", "const", "big", "lorem"]), limit: 100 }, mode, tag: "big:search 100" };
      case "mast_callers":
        return { args: { symbol: this.pick(["MastError", "join", "sha256", "readFileSync"]), transitive: true, potential_limit: 1000 }, mode, tag: "big:callers transitive" };
      case "mast_rename_impact":
        return { args: { symbol: this.pick(["MastError", "join", "sha256"]), potential_limit: 1000 }, mode, tag: "big:rename impact" };
      case "mast_signature":
        return { args: { symbol: this.pick(["constructor", "handler", "run", "big1"]), limit: 500 }, mode, tag: "big:signature 500" };
      case "symbol_lookup_many":
        return { args: { paths: ["."], names: w.identifiers.slice(0, 200) }, mode, tag: "big:lookup 200 names everywhere" };
      case "replace_hash": {
        // A whole-file rewrite of the 2 MB file with 1 MB of different lines (dry run: the diff is the work and the answer).
        const text = readText(this.abs("fuzz/big.ts"));
        if (text) return { args: { file: "fuzz/big.ts", old_hash: hash12(splitLines(text).lines.join("\n")), new_content: this.huge["1MB-ts"], dry_run: true }, mode, tag: "huge:rewrite-2MB-file" };
        return { args, mode, tag: "big:default" };
      }
      case "diff_generate":
        return { args: { file: "fuzz/big.ts", old_content: this.huge["1MB-lines"], new_content: "", context: 3 }, mode, tag: "big:diff 1MB to empty" };
      case "diff_apply": {
        const text = readText(this.abs("fuzz/big.ts"));
        if (text) {
          const { lines } = splitLines(text);
          return {
            args: { file: "fuzz/big.ts", patch: `--- a/fuzz/big.ts\n+++ b/fuzz/big.ts\n@@ -1,1 +1,2 @@\n ${lines[0]}\n+// fz\n`, dry_run: true, include_source: true },
            mode,
            tag: "big:dry-run include_source 2MB",
          };
        }
        return { args, mode, tag: "big:dry-run include_source 2MB" };
      }
      default:
        return { args, mode, tag: "big:default" };
    }
  }

  writeOutside(tool, args) {
    const w = this.w;
    const n = this.n;
    const rel = (abs) => path.relative(w.project, abs);
    const manifest = JSON.stringify(
      {
        changeSetId: PLANTED_ID,
        timestamp: "2099-01-01T00:00:00.000Z",
        command: "replace_hash",
        files: [
          {
            path: path.join(w.outside, "victim.ts"),
            before: sha256("FUZZW planted\n"),
            after: sha256(fs.existsSync(path.join(w.outside, "victim.ts")) ? fs.readFileSync(path.join(w.outside, "victim.ts")) : ""),
          },
        ],
      },
      null,
      2,
    );
    const targets = [
      { tag: "outside-rel-victim", file: rel(path.join(w.outside, "victim.ts")), real: path.join(w.outside, "victim.ts") },
      { tag: "outside-abs-victim", file: path.join(w.outside, "victim.ts"), real: path.join(w.outside, "victim.ts") },
      { tag: "linked-outside-victim", file: "linked-outside/victim.ts", real: path.join(w.outside, "victim.ts") },
      { tag: "symlink-file-outside", file: "fuzz/secret-link.txt", real: path.join(w.outside, "secret.txt") },
      { tag: "create-outside-rel", file: rel(path.join(w.outside, `FUZZW-new-${n}.ts`)), create: true },
      { tag: "create-linked-outside", file: `linked-outside/FUZZW-new-${n}.ts`, create: true },
      { tag: "create-ws-sibling", file: `../FUZZW-sibling-${n}.ts`, create: true },
      { tag: "create-literal-../../outside", file: `../../outside/FUZZW-lit-${n}.ts`, create: true },
      { tag: "create-tmp-abs", file: path.join(os.tmpdir(), `FUZZW-tmp-${process.pid}-${n}.ts`), create: true },
      { tag: "git-config", file: ".git/config", real: path.join(w.project, ".git", "config") },
      { tag: "git-hook-create", file: `.git/hooks/FUZZW-post-commit-${n}`, create: true },
      { tag: "home-bashrc", file: path.join(w.home, ".bashrc"), real: path.join(w.home, ".bashrc") },
      { tag: "home-create", file: path.join(w.home, `FUZZW-notes-${n}.txt`), create: true },
      { tag: "hp-manifest-plant", file: path.join(w.hp, "snapshots", "changesets", `${PLANTED_ID}.json`), create: true, content: manifest },
      { tag: "hp-blob-plant", file: path.join(w.hp, "snapshots", "blobs", sha256("FUZZW planted\n")), create: true, content: "FUZZW planted" },
      { tag: "etc-passwd-nomatch", file: "/etc/passwd", nomatch: true },
      { tag: "mast-config", file: ".mast/config.json", real: path.join(w.project, ".mast", "config.json") },
      { tag: "mast-index-json", file: ".mast/index.json", real: path.join(w.project, ".mast", "index.json") },
      { tag: "stdout-link", file: "fuzz/stdout-link", real: null },
      { tag: "dev-zero-link", file: "fuzz/zero", real: null },
      ...(w.haveFifo ? [{ tag: "fifo", file: "fuzz/fifo", real: null }] : []),
      { tag: "header-outside-file-inside", file: `fuzz/FUZZW-hdr-${n}.ts`, create: true, headerPath: `../../outside/FUZZW-hdr-${n}.ts` },
    ];
    const mode = "write-outside";
    if (tool.name === "undo") {
      const id = this.pick([PLANTED_ID, "../../outside/secret", `${PLANTED_ID}/../../../outside/secret`, "cs-../../x", "last"]);
      return { args: { change_set_id: id, force: this.chance(0.5), dry_run: this.chance(0.2) }, mode, tag: `undo:${id.slice(0, 30)}` };
    }
    const t = this.pick(targets);
    const marker = `// FUZZW-${n}`;
    if (tool.name === "replace_hash") {
      const base = t.real && !t.nomatch ? this.replaceFor(t.file, t.real, marker) : { file: t.file, old_hash: "0123456789ab", new_content: t.content ?? marker };
      return { args: { ...base, dry_run: this.chance(0.15) }, mode, tag: `write:${t.tag}`, target: t.file, outsideTarget: t.tag !== "mast-config" && t.tag !== "mast-index-json" };
    }
    // diff_apply
    let patch;
    if (t.create || t.nomatch || !t.real) {
      const body = (t.content ?? marker).split("\n");
      const header = t.headerPath ?? (path.isAbsolute(t.file) ? t.file : t.file);
      patch = `--- /dev/null\n+++ b/${header}\n@@ -0,0 +1,${body.length} @@\n${body.map((l) => `+${l}`).join("\n")}\n`;
      if (t.nomatch) patch = `--- a/etc/passwd\n+++ b/etc/passwd\n@@ -1,1 +1,2 @@\n FUZZW-no-such-line\n+${marker}\n`;
      if (this.chance(0.3)) patch = patch.replace(/\n$/, "\n\\ No newline at end of file\n");
    } else patch = this.patchFor(t.file, t.real, marker) ?? `--- /dev/null\n+++ b/${t.file}\n@@ -0,0 +1,1 @@\n+${marker}\n`;
    return {
      args: { file: t.file, patch, dry_run: this.chance(0.15) },
      mode,
      tag: `write:${t.tag}`,
      target: t.file,
      outsideTarget: t.tag !== "mast-config" && t.tag !== "mast-index-json" && t.tag !== "header-outside-file-inside",
    };
  }
}

/** The coarse kind of input a hang belongs to, so a tool that hung on one FIFO is not waited out 30 s on the next. */
function hangCategory(tag) {
  if (/^(path|write):(fifo|dev-stdin|stdout-link)$/.test(tag)) return "blocking-special";
  if (/^(path|write):dev-zero/.test(tag)) return "dev-zero";
  if (tag.startsWith("regex:")) return "redos";
  if (tag.startsWith("glob:")) return "glob";
  if (tag.startsWith("huge:")) return "huge";
  return tag;
}

// ---------------------------------------------------------------------------------------------
// answers

function classify(toolName, out, args, inputJson, world, pre, knownCodes) {
  const res = { code: null, message: null, bytes: 0, defects: [], reads: [], ok: false };
  const r = out.r;
  const text = r?.content?.[0]?.text;
  if (typeof text !== "string") {
    res.defects.push({ kind: "no text content", detail: abbrev(r, 200) });
    return res;
  }
  res.bytes = Buffer.byteLength(text);
  // Outside reads: a canary (or /etc/passwd's first line) in the answer that the input did not carry.
  for (const c of world.canaries) if (text.includes(c.value) && !inputJson.includes(c.value)) res.reads.push(c.label);
  if (text.includes(PASSWD_MARKER) && !inputJson.includes(PASSWD_MARKER)) res.reads.push("/etc/passwd");
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    res.defects.push({ kind: "answer is not JSON", detail: text.slice(0, 120) });
    return res;
  }
  const edit = !toolName.startsWith("mast_");
  if (edit) {
    if (!json || json.apiVersion !== "1" || typeof json.ok !== "boolean" || !("error" in json) || !Array.isArray(json.warnings))
      res.defects.push({ kind: "not an apiVersion 1 envelope", detail: text.slice(0, 120) });
    else if (json.command !== toolName) res.defects.push({ kind: "envelope command is not the tool name", detail: String(json.command) });
    if (json?.ok === false) {
      res.code = json.error?.code ?? "(no code)";
      res.message = json.error?.message ?? "";
    } else res.ok = json?.ok === true;
  } else if (json && typeof json === "object" && !Array.isArray(json) && json.error && typeof json.error === "object") {
    res.code = json.error.code ?? "(no code)";
    res.message = json.error.message ?? "";
  } else res.ok = true;
  if ((res.code !== null) !== (r.isError === true)) res.defects.push({ kind: `isError ${r.isError === true} but ${res.code === null ? "no error" : `error ${res.code}`}`, detail: "" });
  if (res.code !== null && res.code !== "INTERNAL" && !knownCodes.has(res.code)) res.defects.push({ kind: `unknown error code ${res.code}`, detail: res.message?.slice(0, 120) });
  if (res.ok && toolName === "changesets")
    for (const c of json.data?.changeSets ?? []) if (typeof c.changeSetId === "string" && !world.changeSetIds.includes(c.changeSetId)) world.changeSetIds.push(c.changeSetId);
  if (world.changeSetIds.length > 50) world.changeSetIds.splice(0, world.changeSetIds.length - 50);
  res.json = json;
  return res;
}

/** Heuristic wrong-class answers: the code does not fit what was asked, or the cause leaked through. */
function wrongClass(toolName, args, res, pre) {
  const out = [];
  const { code, message } = res;
  if (code && code !== "INTERNAL" && LEAK_PHRASES.test(message ?? ""))
    out.push(`${code} whose message carries a Node/SQLite/runtime phrase (${(LEAK_PHRASES.exec(message) ?? [""])[0].trim().slice(0, 30)})`);
  if (pre.target !== null && pre.target !== undefined) {
    if (["STALE_ANCHOR", "AMBIGUOUS_ANCHOR", "HASH_MISMATCH", "PARSE_ERROR"].includes(code) && !pre.exists && !pre.creates) out.push(`${code} for a file that does not exist`);
    if (code === "READ_FAILED" && !pre.exists && !pre.dangling) out.push("READ_FAILED for a file that does not exist (FILE_NOT_FOUND expected)");
    if (code === "FILE_NOT_FOUND" && pre.isFile && !toolName.startsWith("mast_")) out.push("FILE_NOT_FOUND for a regular file that exists");
  }
  if (res.ok && DESTRUCTIVE.has(toolName) && pre.outsideTarget && args?.dry_run !== true) out.push("a write tool answered ok for a target outside the project (or under .git)");
  if (res.ok && ["replace_hash", "diff_apply"].includes(toolName) && args?.dry_run !== true && typeof args?.file === "string" && /^\.mast(\/|$)/.test(args.file))
    out.push("a write tool wrote into the index state dir .mast/");
  return out;
}

/** What the bench knows about the single-file target before the call (for the wrong-class heuristics). */
function preState(world, drawn, toolName) {
  const args = drawn.args;
  const file = args && typeof args === "object" && !Array.isArray(args) && typeof args.file === "string" ? args.file : null;
  const target = drawn.target ?? (["read_hash", "replace_hash", "diff_apply"].includes(toolName) ? file : null);
  const pre = { target, exists: false, isFile: false, dangling: false, special: null, creates: false, outsideTarget: drawn.outsideTarget === true };
  if (target === null || typeof target !== "string") return pre;
  if (target.includes("\u0000") || target.length > 4000) {
    pre.target = null;
    return pre;
  }
  const abs = path.resolve(world.project, target);
  try {
    const st = fs.statSync(abs);
    pre.exists = true;
    pre.isFile = st.isFile();
    if (st.isFIFO()) pre.special = "FIFO";
    else if (st.isCharacterDevice()) pre.special = "character device";
  } catch (err) {
    // Only ENOENT says the file is not there (ENAMETOOLONG, ENOTDIR, ... say nothing).
    if (err?.code !== "ENOENT") pre.target = null;
    try {
      pre.dangling = fs.lstatSync(abs, { throwIfNoEntry: false }) !== undefined;
    } catch {
      pre.dangling = false;
    }
  }
  pre.creates = typeof args.patch === "string" && args.patch.startsWith("--- /dev/null");
  return pre;
}

// ---------------------------------------------------------------------------------------------
// whole messages: oversize requests and answers on stdio, an initialize flood over HTTP

/**
 * The oversize-message class on the server's stdio connection: each case, then a small call on the
 * same connection. A server that exits is restarted for the next case.
 */
async function oversizeMessages(server, world) {
  const lines = (ch) => `${ch.repeat(3000)}\n`.repeat(1000);
  fs.writeFileSync(path.join(world.project, "fuzz", "quotes.txt"), lines('"'));
  fs.writeFileSync(path.join(world.project, "fuzz", "backslashes.txt"), lines("\\"));
  const big = "x".repeat(11 * 2 ** 20);
  const cases = [
    { tag: "request: replace_hash, 11 MiB new_content", tool: "replace_hash", args: { file: "fuzz/scratch.ts", old_hash: "0123456789ab", new_content: big, range: "1" } },
    { tag: "request: mast_search, 11 MiB query", tool: "mast_search", args: { query: big } },
    { tag: "answer: grep_many '\"' over 1,000 x 3,000 quotes", tool: "grep_many", args: { pattern: '"', paths: ["fuzz/quotes.txt"], max_results: 100_000 } },
    { tag: "answer: grep_many '\\\\' over 1,000 x 3,000 backslashes", tool: "grep_many", args: { pattern: "\\\\", paths: ["fuzz/backslashes.txt"], max_results: 100_000 } },
  ];
  const rows = [];
  for (const c of cases) {
    if (server.live.exited) await server.restart();
    const out = await invoke(server, c.tool, c.args, DEFAULT_HANG_MS);
    const row = { tag: c.tag, tool: c.tool, outcome: out.kind, ms: Math.round(out.ms), server_exit: out.kind === "crash", client_disconnect: out.kind === "overflow" };
    if (out.kind === "error") Object.assign(row, { jsonrpc_code: out.e?.code ?? null, code: out.e?.data?.code ?? null, message: oneLine(String(out.e?.message ?? out.e), 200) });
    if (out.kind === "answer") {
      const answer = JSON.parse(out.r.content[0].text);
      Object.assign(row, {
        message_bytes: Buffer.byteLength(JSON.stringify(out.r)),
        code: answer.error?.code ?? null,
        matches: answer.data?.results?.length ?? null,
        omitted: answer.warnings?.find((w) => w.code === "RESULT_TRUNCATED")?.omitted ?? null,
      });
    }
    if (out.kind === "crash") row.exit = out.exit;
    if (out.kind === "overflow") row.message = out.error;
    if (["crash", "overflow", "hung", "memory"].includes(out.kind)) {
      if (out.kind === "crash" || out.kind === "overflow") await server.kill();
      row.next = "connection gone";
    } else {
      const next = await invoke(server, "read_hash", { file: "fuzz/scratch.ts", line: 1 }, UNANSWERED_MS);
      row.next = next.kind === "answer" ? "answered" : next.kind;
    }
    rows.push(row);
    process.stderr.write(`  oversize-message ${c.tag}: ${row.outcome} in ${row.ms} ms, next call ${row.next}\n`);
  }
  return rows;
}

/**
 * The session-flood class: `total` initialize requests, FLOOD_CONCURRENCY at a time, against
 * `mast serve --http` on loopback with its default session bounds; the server's RSS before, at its
 * peak (sampled every 500 ms) and a second after; then whether a new SDK client is served.
 */
async function sessionFlood(world, env, total) {
  const child = spawn(process.execPath, [MAST, "serve", world.project, "--http", "--port", "0", "--no-startup-reindex"], { cwd: world.ws, env, stdio: ["ignore", "ignore", "pipe"] });
  LIVE_PIDS.add(child.pid);
  let log = "";
  let exit = null;
  child.stderr.on("data", (d) => (log = (log + d.toString()).slice(-8000)));
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve((exit = { code, signal }))));
  const t0 = performance.now();
  while (!/listening on (\S+)/.test(log) && exit === null && performance.now() - t0 < START_TIMEOUT_MS) await sleep(50);
  const url = /listening on (\S+)/.exec(log)?.[1];
  if (!url) throw new BenchError(`mast serve --http did not start: ${log.slice(-500)}`);
  const rssMb = () => {
    try {
      return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) / 1024;
    } catch {
      return 0;
    }
  };
  const before = rssMb();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 500);
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "mast-fuzz-flood", version: "1" } } });
  const statuses = {};
  let sent = 0;
  let done = 0;
  let failed = 0;
  const flood0 = performance.now();
  const worker = async () => {
    while (sent < total && exit === null && performance.now() - flood0 < FLOOD_LIMIT_MS) {
      sent++;
      try {
        const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      } catch {
        failed++;
      }
      if (++done % 10_000 === 0) process.stderr.write(`  session-flood: ${done}/${total}, ${round((performance.now() - flood0) / 1000, 1)} s, RSS ${Math.round(rssMb())} MB\n`);
    }
  };
  await Promise.all(Array.from({ length: FLOOD_CONCURRENCY }, worker));
  const wallMs = performance.now() - flood0;
  await sleep(1000);
  clearInterval(sampler);
  const after = rssMb();
  peak = Math.max(peak, after);
  const serverExit = exit;
  let servedAfter = false;
  if (exit === null) {
    const client = new Client({ name: "mast-fuzz-after-flood", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const r = await client.callTool({ name: "mast_status", arguments: {} });
      servedAfter = r.isError !== true;
    } catch {
      servedAfter = false;
    }
    await client.close().catch(() => undefined);
  }
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(5000)]);
  if (exit === null) child.kill("SIGKILL");
  LIVE_PIDS.delete(child.pid);
  return {
    requests: sent,
    concurrency: FLOOD_CONCURRENCY,
    statuses,
    failed,
    wall_ms: round(wallMs),
    per_second: round(sent / (wallMs / 1000), 1),
    stopped_at_limit: sent < total && serverExit === null,
    rss_mb: { before: round(before, 1), peak: round(peak, 1), after: round(after, 1) },
    server_exit: serverExit,
    served_after: servedAfter,
    log_tail: serverExit ? log.slice(-1500).split(world.T).join("<T>") : null,
  };
}

// ---------------------------------------------------------------------------------------------
// main

async function main() {
  const { values } = parseArgs({
    options: {
      calls: { type: "string" },
      seed: { type: "string" },
      keep: { type: "boolean", default: false },
      "hang-ms": { type: "string" },
      verbose: { type: "boolean", default: false },
      only: { type: "string" },
      flood: { type: "string" },
    },
    allowPositionals: false,
  });
  const only = new Set(values.only === undefined ? CLASSES : values.only.split(",").map((c) => c.trim()));
  for (const c of only) if (!CLASSES.includes(c)) throw new BenchError(`--only takes some of ${CLASSES.join(", ")}, not ${c}`);
  const FLOOD = values.flood === undefined ? DEFAULT_FLOOD : Number(values.flood);
  if (!Number.isInteger(FLOOD) || FLOOD < 1) throw new BenchError(`--flood must be a positive integer, not ${values.flood}`);
  const CALLS = !only.has("calls") ? 0 : values.calls === undefined ? DEFAULT_CALLS : Number(values.calls);
  const SEED = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
  const HANG_MS = values["hang-ms"] === undefined ? DEFAULT_HANG_MS : Number(values["hang-ms"]);
  if (!Number.isInteger(CALLS) || (only.has("calls") && CALLS < 1)) throw new BenchError(`--calls must be a positive integer, not ${values.calls}`);
  if (!Number.isInteger(SEED)) throw new BenchError(`--seed must be an integer (0x... allowed), not ${values.seed}`);
  if (!Number.isFinite(HANG_MS) || HANG_MS < UNANSWERED_MS) throw new BenchError(`--hang-ms must be at least ${UNANSWERED_MS}`);
  const missing = missingBuild();
  if (missing) {
    process.stderr.write(`bench: ${missing} is missing: run \`npm run build\` first\n`);
    return 2;
  }
  const { ERROR_CODES } = await import(pathToFileURL(path.join(DIST, "base", "errors.js")).href);
  ({ MAX_ANSWER_BYTES: ANSWER_CAP } = await import(pathToFileURL(path.join(DIST, "base", "budget.js")).href));
  const knownCodes = new Set([...Object.keys(ERROR_CODES), "INTERNAL"]);
  const env = benchEnvironment();
  const distAtStart = distStamp();
  env.mast_dist_built = new Date(distAtStart).toISOString();
  const notes = [];
  const wall0 = performance.now();

  const world = setupWorld(SEED, notes);
  let server = null;
  let cleaned = false;
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    for (const pid of LIVE_PIDS) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    LIVE_PIDS.clear();
    if (world.passwd) {
      try {
        if (sha256(fs.readFileSync("/etc/passwd")) !== world.passwd.sha) fs.writeFileSync("/etc/passwd", world.passwd.bytes);
      } catch {
        // nothing to restore
      }
    }
    try {
      for (const name of fs.readdirSync(os.tmpdir())) if (name.startsWith(`FUZZW-tmp-${process.pid}-`)) fs.rmSync(path.join(os.tmpdir(), name), { force: true });
    } catch {
      // no /tmp
    }
    if (!values.keep) fs.rmSync(world.T, { recursive: true, force: true });
  };
  process.once("exit", cleanup);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.once(sig, () => {
      cleanup();
      process.exit(130);
    });
  }

  try {
    const serverEnv = { PATH: process.env.PATH ?? "", HOME: world.home, HASHPILOT_HOME: world.hp, MAST_FUZZ_CANARY: world.envCanary };
    process.stderr.write(`fuzz-mcp: temp dir ${world.T}; mast init ...\n`);
    const init = spawnSync(process.execPath, [MAST, "init", world.project], { cwd: world.ws, env: serverEnv, encoding: "utf8", timeout: 180_000 });
    if (init.error || init.status !== 0) throw new BenchError(`mast init failed (${init.error?.message ?? `exit ${init.status}`}):\n${init.stderr.slice(-2000)}`);
    const initSummary = init.stdout.trim().split("\n").slice(0, 2).join("; ");

    server = new Server(world, serverEnv);
    await server.start();
    const listed = await server.live.client.listTools();
    const tools = [...listed.tools].sort((a, b) => (a.name < b.name ? -1 : 1));
    if (tools.length === 0) throw new BenchError("mast serve lists no tools");
    const gen = new Generator(world, tools, prng(SEED));
    process.stderr.write(`fuzz-mcp: ${tools.length} tools, ${CALLS} calls, seed 0x${SEED.toString(16)}, hang ${HANG_MS / 1000} s (${REPEAT_HANG_MS / 1000} s for a kind already seen hanging)\n`);

    // ----- tallies
    const perTool = Object.fromEntries(
      tools.map((t) => [t.name, { calls: 0, ok: 0, errors: {}, max_bytes: 0, max_bytes_tag: null, ms: [], unanswered: 0, hung: 0, crashes: 0, memory: 0, protocol_errors: 0 }]),
    );
    const modes = {};
    const latencies = [];
    const crashes = [];
    const hangs = new Distinct();
    const memoryKills = new Distinct();
    const unanswered = new Distinct();
    const internal = new Distinct(INTERNAL_EXAMPLES);
    const outsideReads = new Distinct();
    const outsideWrites = [];
    const wrong = new Distinct();
    const oversized = new Distinct();
    const defects = new Distinct();
    const protocol = new Distinct();
    const storeFindings = new Distinct();
    const hangCount = new Map();
    const hungCategories = new Set();
    let suppressed = 0;
    let restarts = 0;
    let overflows = 0;
    let answered = 0;
    let largest = { bytes: 0, tool: null, tag: null };
    let baseline = snapshotOutside(world);
    const checks = [];

    const outsideCheck = (i, tool, drawn) => {
      const now = snapshotOutside(world);
      const changes = diffSnapshots(baseline, now);
      if (changes.length) {
        outsideWrites.push({ call: i, tool, tag: drawn?.tag ?? null, input: drawn ? abbrev(drawn.args) : null, changes: changes.map((c) => ({ ...c, path: c.path.split(world.T).join("<T>") })) });
        baseline = now;
      }
      return changes.length;
    };
    const storeCheck = (i) => {
      for (const f of scanStores(world)) storeFindings.add(`${f.why}|${f.path}`, { at_call: i, path: f.path.split(world.T).join("<T>"), why: f.why });
    };

    for (let i = 0; i < CALLS; i++) {
      const tool = tools[i % tools.length];
      const stat = perTool[tool.name];
      if (server.live.exited && !server.live.killed) {
        // The server died after answering the previous call: that call's crash.
        const prev = tools[(i + tools.length - 1) % tools.length].name;
        crashes.push({
          call: i - 1,
          tool: prev,
          tag: "(exited after answering)",
          input: "",
          error: "the server exited between calls",
          exit: server.live.proc ? { code: server.live.proc.exitCode, signal: server.live.proc.signalCode } : null,
          stderr_tail: server.live.stderr.slice(-1500).split(world.T).join("<T>"),
        });
        perTool[prev].crashes++;
        restarts++;
        await server.restart();
      }
      // ----- draw, redrawing classes already seen hanging
      let drawn = gen.draw(tool);
      for (let k = 0; k < 20 && (hangCount.get(`${tool.name}|${drawn.tag}`) ?? 0) >= HANGS_PER_CLASS; k++) {
        suppressed++;
        drawn = gen.draw(tool);
      }
      if ((hangCount.get(`${tool.name}|${drawn.tag}`) ?? 0) >= HANGS_PER_CLASS) drawn = { args: gen.valid(tool), mode: "valid", tag: "valid" };
      const cls = `${tool.name}|${drawn.tag}`;
      const cat = `${tool.name}|${hangCategory(drawn.tag)}`;
      const hangMs = hungCategories.has(cat) ? REPEAT_HANG_MS : HANG_MS;
      let inputJson;
      try {
        inputJson = JSON.stringify(drawn.args) ?? "";
      } catch {
        inputJson = "";
      }
      const pre = preState(world, drawn, tool.name);
      modes[drawn.mode] = (modes[drawn.mode] ?? 0) + 1;
      stat.calls++;
      const example = () => ({ tool: tool.name, tag: drawn.tag, input: abbrev(drawn.args) });

      const out = await invoke(server, tool.name, drawn.args, hangMs);
      const slow = out.ms > UNANSWERED_MS;
      if (slow) {
        stat.unanswered++;
        unanswered.add(cls, { ...example(), ms: Math.round(out.ms), outcome: out.kind });
      }
      if (values.verbose) process.stderr.write(`  #${i} ${tool.name} ${drawn.tag} ${out.kind} ${Math.round(out.ms)} ms\n`);
      if (out.kind === "answer" || out.kind === "error") {
        answered++;
        stat.ms.push(out.ms);
        latencies.push(out.ms);
      }
      if (out.kind === "answer") {
        const res = classify(tool.name, out, drawn.args, inputJson, world, pre, knownCodes);
        if (res.ok) stat.ok++;
        if (res.code) stat.errors[res.code] = (stat.errors[res.code] ?? 0) + 1;
        if (res.bytes > stat.max_bytes) {
          stat.max_bytes = res.bytes;
          stat.max_bytes_tag = drawn.tag;
        }
        if (res.bytes > largest.bytes) largest = { bytes: res.bytes, tool: tool.name, tag: drawn.tag, input: abbrev(drawn.args) };
        if (res.bytes > ANSWER_CAP) oversized.add(`${tool.name}|${drawn.tag.replace(/\d+$/, "")}`, { ...example(), bytes: res.bytes });
        if (res.code === "INTERNAL") internal.add(`${tool.name}|${normalise(res.message, world)}`, { ...example(), message: oneLine(String(res.message).split(world.T).join("<T>"), 300) });
        if (res.reads.length) {
          const key = `${tool.name}|${drawn.tag}`;
          outsideReads.add(key, { ...example(), read: [], ok: res.ok, code: res.code, excerpt: excerptAround(out.r.content[0].text, world, res.reads[0]) });
          const entry = outsideReads.map.get(key);
          if (entry) for (const label of res.reads) if (!entry.read.includes(label)) entry.read.push(label);
        }
        for (const d of res.defects) defects.add(`${tool.name}|${d.kind}`, { ...example(), kind: d.kind, detail: String(d.detail).split(world.T).join("<T>") });
        for (const why of wrongClass(tool.name, drawn.args, res, pre))
          wrong.add(`${tool.name}|${why}|${res.code}`, {
            ...example(),
            why,
            code: res.code,
            message: oneLine(
              String(res.message ?? "")
                .split(world.T)
                .join("<T>"),
              240,
            ),
          });
      } else if (out.kind === "error") {
        stat.protocol_errors++;
        const msg = String(out.e?.message ?? out.e).replace(/\s+/g, " ");
        const code = out.e?.code;
        stat.errors[`protocol ${code ?? "?"}`] = (stat.errors[`protocol ${code ?? "?"}`] ?? 0) + 1;
        protocol.add(`${tool.name}|${code}|${normalise(msg, world).slice(0, 60)}`, { ...example(), code, message: msg.split(world.T).join("<T>").slice(0, 240) });
      } else {
        // crash, hung or memory: the server is gone (or killed); restart it.
        hangCount.set(cls, (hangCount.get(cls) ?? 0) + (out.kind === "hung" || out.kind === "memory" ? 1 : 0));
        if (out.kind === "hung" || out.kind === "memory") hungCategories.add(cat);
        if (out.kind === "crash") {
          stat.crashes++;
          crashes.push({ call: i, ...example(), ms: Math.round(out.ms), error: out.error, exit: out.exit, stderr_tail: out.stderr?.split(world.T).join("<T>") });
        } else if (out.kind === "overflow") {
          stat.overflow = (stat.overflow ?? 0) + 1;
          overflows++;
          oversized.add(`${tool.name}|${drawn.tag.replace(/\d+$/, "")}`, { ...example(), bytes: `> ${SDK_READ_BUFFER} (the SDK client dropped the connection: ${out.error})` });
          if (largest.bytes <= SDK_READ_BUFFER) largest = { bytes: SDK_READ_BUFFER + 1, lower_bound: true, tool: tool.name, tag: drawn.tag, input: abbrev(drawn.args) };
          if (stat.max_bytes <= SDK_READ_BUFFER) {
            stat.max_bytes = SDK_READ_BUFFER + 1;
            stat.max_bytes_tag = `${drawn.tag} (lower bound)`;
          }
        } else if (out.kind === "hung") {
          stat.hung++;
          hangs.add(cls, { ...example(), waited_ms: Math.round(out.ms), rss_peak_mb: Math.round(out.rssPeak / 2 ** 20) });
        } else {
          stat.memory++;
          memoryKills.add(cls, { ...example(), after_ms: Math.round(out.ms), rss_peak_mb: Math.round(out.rssPeak / 2 ** 20) });
        }
        process.stderr.write(`  #${i} ${tool.name} ${drawn.tag}: ${out.kind} after ${Math.round(out.ms)} ms, restarting the server\n`);
        restarts++;
        await server.restart();
      }
      if (DESTRUCTIVE.has(tool.name) || out.kind !== "answer") outsideCheck(i, tool.name, drawn);
      if ((i + 1) % CHECK_EVERY === 0) {
        const changed = outsideCheck(i, tool.name, null);
        storeCheck(i);
        checks.push({ at_call: i + 1, outside_changes: changed, store_findings: storeFindings.map.size, elapsed_s: round((performance.now() - wall0) / 1000, 1) });
        process.stderr.write(`  ${i + 1}/${CALLS} calls, ${round((performance.now() - wall0) / 1000, 1)} s, restarts ${restarts}\n`);
      }
    }
    outsideCheck(CALLS, "(end)", null);
    storeCheck(CALLS);
    const oversize = only.has("oversize-message") ? await oversizeMessages(server, world) : null;
    const closeT0 = performance.now();
    await server.close();
    const closeMs = performance.now() - closeT0;
    // After the server is gone, nothing may still be writing.
    await sleep(300);
    outsideCheck(CALLS, "(after close)", null);
    const flood = only.has("session-flood") ? await sessionFlood(world, serverEnv, FLOOD) : null;
    const wallMs = performance.now() - wall0;
    env.loadavg_at_end = loadavg();

    // ----- figures
    const lat = stats(latencies);
    const outsideWriteCount = outsideWrites.reduce((a, w) => a + w.changes.length, 0) + storeFindings.map.size;
    const unansweredTotal = Object.values(perTool).reduce((a, s) => a + s.unanswered, 0);
    const hungTotal = hangs.total;
    const oversizeExits = oversize?.filter((r) => r.server_exit).length;
    const oversizeDisconnects = oversize?.filter((r) => r.client_disconnect).length;
    const targets = [
      ...(CALLS > 0
        ? [
            { name: "crashes (server exits on its own)", target: "= 0", value: crashes.length, pass: crashes.length === 0 },
            { name: "unanswered after 5 s", target: "= 0", value: unansweredTotal, pass: unansweredTotal === 0 },
            { name: "runaway memory (killed over 1.5 GiB RSS)", target: "= 0", value: memoryKills.total, pass: memoryKills.total === 0 },
            { name: "INTERNAL answers", target: "= 0", value: internal.total, pass: internal.total === 0 },
            { name: "outside reads", target: "= 0", value: outsideReads.total, pass: outsideReads.total === 0 },
            { name: "outside writes (files changed + planted store entries)", target: "= 0", value: outsideWriteCount, pass: outsideWriteCount === 0 },
            { name: "largest answer (bytes)", target: `<= ${ANSWER_CAP}`, value: largest.bytes, pass: largest.bytes <= ANSWER_CAP },
          ]
        : []),
      ...(oversize
        ? [
            { name: "oversize-message: server exits", target: "= 0", value: oversizeExits, pass: oversizeExits === 0 },
            { name: "oversize-message: client disconnects", target: "= 0", value: oversizeDisconnects, pass: oversizeDisconnects === 0 },
          ]
        : []),
      ...(flood
        ? [
            {
              name: `session-flood: server RSS after ${flood.requests} sessions (MB)`,
              target: `<= ${FLOOD_RSS_TARGET_MB}`,
              value: flood.rss_mb.after,
              pass: flood.rss_mb.after <= FLOOD_RSS_TARGET_MB,
            },
            { name: "session-flood: server exits", target: "= 0", value: flood.server_exit ? 1 : 0, pass: flood.server_exit === null },
          ]
        : []),
    ];
    if (answered === 0 && CALLS > 0) notes.push("no call was answered: the server is not working; the figures measure nothing");
    if (suppressed) notes.push(`${suppressed} draws were redrawn because their input class (tool + tag) had already hung or blown up ${HANGS_PER_CLASS} time(s)`);
    if (server.reindexLineSeen === false) notes.push("the server never logged its startup reindex; calls started without waiting for it");
    if (closeMs > 3000) notes.push(`closing the server's stdin took ${fmt(closeMs / 1000, 1)} s (it did not exit promptly)`);
    notes.push(
      "inputs are seeded, but valid hashes, patches and changeSet ids are computed from the project as earlier calls left it: a run after a fix draws the same modes and tags, not byte-identical inputs",
    );
    notes.push(...buildNotes(env, distAtStart));

    // ----- print
    const L = [];
    L.push(`mast MCP fuzz bench — ${env.date}`);
    L.push(`machine: nproc ${env.nproc}, ${env.cpu}, ${env.total_mem_gb} GiB, ${env.platform}, node ${env.node}`);
    L.push(`mast ${env.mast_commit ?? "?"}${env.src_modified ? " (src/ modified)" : ""}, dist built ${env.mast_dist_built}`);
    L.push(`load average (1/5/15 min): start ${env.loadavg_at_start.join(" ")}, end ${env.loadavg_at_end.join(" ")}`);
    L.push(`project: ${world.srcFiles.length} files copied from src/ + ${world.crafted.length} crafted + FIFO/symlinks; init: ${initSummary}`);
    L.push(
      `seed 0x${SEED.toString(16)}, ${CALLS} calls over ${tools.length} tools${CALLS === 0 ? ` (--only ${[...only].join(",")})` : ""}, wall ${fmt(wallMs / 1000, 1)} s; hang = ${HANG_MS / 1000} s (${REPEAT_HANG_MS / 1000} s once the tool hung on that kind of input)`,
    );
    if (CALLS > 0) {
      L.push(
        `modes: ${Object.entries(modes)
          .sort((a, b) => b[1] - a[1])
          .map(([m, n]) => `${m} ${n}`)
          .join(", ")}`,
      );
      L.push("");
      L.push(
        `  ${pad("tool", 22)}${lpad("calls", 6)}${lpad("ok", 6)}${lpad("err", 6)}${lpad("p50ms", 8)}${lpad("p95ms", 8)}${lpad(">5s", 5)}${lpad("hung", 5)}${lpad("mem", 5)}${lpad("crash", 6)}${lpad("INT", 5)}${lpad("max bytes", 11)}  top error codes`,
      );
      for (const t of tools) {
        const s = perTool[t.name];
        const st = stats(s.ms);
        const errs = Object.entries(s.errors).sort((a, b) => b[1] - a[1]);
        const nErr = errs.reduce((a, [, n]) => a + n, 0);
        L.push(
          `  ${pad(t.name, 22)}${lpad(s.calls, 6)}${lpad(s.ok, 6)}${lpad(nErr, 6)}${lpad(fmt(st?.p50, 0), 8)}${lpad(fmt(st?.p95, 0), 8)}${lpad(s.unanswered, 5)}${lpad(s.hung, 5)}${lpad(s.memory, 5)}${lpad(s.crashes, 6)}${lpad(s.errors.INTERNAL ?? 0, 5)}${lpad(s.max_bytes, 11)}  ${errs
            .slice(0, 3)
            .map(([c, n]) => `${c} ${n}`)
            .join(", ")}`,
        );
      }
      L.push("");
      L.push(
        `calls ${CALLS}, answered ${answered}; restarts ${restarts} (crashes ${crashes.length}, hung ${hungTotal}, memory kills ${memoryKills.total}, answers over the SDK client's ${SDK_READ_BUFFER / 2 ** 20} MiB read buffer ${overflows}); unanswered after 5 s ${unansweredTotal}`,
      );
      L.push(
        `INTERNAL ${internal.total} (${internal.map.size} distinct); protocol errors ${protocol.total}; answer defects ${defects.total}; wrong-class candidates ${wrong.total} (${wrong.map.size} distinct)`,
      );
      L.push(
        `outside reads ${outsideReads.total} (${outsideReads.map.size} distinct); outside writes ${outsideWriteCount} (${outsideWrites.length} events, ${storeFindings.map.size} store findings); oversized answers ${oversized.total}`,
      );
      L.push(
        `largest answer ${largest.lower_bound ? "over " : ""}${largest.bytes} bytes (${largest.tool}, ${largest.tag}) vs cap ${ANSWER_CAP}; latency of answered calls p50 ${fmt(lat?.p50, 1)} ms, p95 ${fmt(lat?.p95, 1)} ms, max ${fmt(lat?.max, 0)} ms`,
      );
    }
    const section = (title, d, fmtItem, limit = LIST_LIMIT) => {
      const xs = d.list ? d.list() : d;
      if (!xs.length) return;
      L.push("", `${title} (${xs.length}${xs.length > limit ? `, first ${limit} shown; all in the JSON` : ""})`);
      for (const x of xs.slice(0, limit)) L.push(`  ${fmtItem(x)}`);
    };
    section("crashes", crashes, (c) => `#${c.call} ${c.tool} ${c.tag}: ${c.error} exit ${JSON.stringify(c.exit)}  ${c.input}`);
    section("hung (no answer, server killed)", hangs, (h) => `${h.tool} ${h.tag} x${h.count}: waited ${h.waited_ms} ms  ${h.input}`);
    section("runaway memory (killed)", memoryKills, (h) => `${h.tool} ${h.tag} x${h.count}: ${h.rss_peak_mb} MB after ${h.after_ms} ms  ${h.input}`);
    section(
      "answered, but after 5 s",
      unanswered.list().filter((u) => u.outcome === "answer" || u.outcome === "error"),
      (u) => `${u.tool} ${u.tag} x${u.count}: ${u.ms} ms  ${u.input}`,
    );
    section("INTERNAL", internal, (x) => `${x.tool} ${x.tag} x${x.count}: ${x.message}  ${x.input}`);
    section("outside reads", outsideReads, (x) => `${x.tool} ${x.tag} x${x.count}: ${x.read} (${x.ok ? "ok" : x.code})  ${x.input}`);
    section("outside writes", outsideWrites, (x) => `#${x.call} ${x.tool} ${x.tag ?? ""}: ${x.changes.map((c) => `${c.change} ${c.path}`).join(", ")}  ${x.input ?? ""}`);
    section("snapshot store findings", storeFindings, (x) => `${x.why}: ${x.path} (by call ${x.at_call})`);
    section("oversized answers (> cap)", oversized, (x) => `${x.tool} ${x.tag} x${x.count}: ${x.bytes} bytes  ${x.input}`);
    section("wrong-class candidates", wrong, (x) => `${x.tool} ${x.tag} x${x.count}: ${x.why}: ${x.code} ${x.message.slice(0, 140)}`);
    section("answer defects", defects, (x) => `${x.tool} ${x.tag} x${x.count}: ${x.kind} ${x.detail}`);
    section("protocol errors (JSON-RPC level)", protocol, (x) => `${x.tool} ${x.tag} x${x.count}: ${x.code} ${x.message.slice(0, 120)}`, 15);
    if (oversize) {
      L.push("", `oversize-message (stdio; the SDK client reads at most ${SDK_READ_BUFFER / 2 ** 20} MiB a message): server exits ${oversizeExits}, client disconnects ${oversizeDisconnects}`);
      for (const r of oversize) {
        const what =
          r.outcome === "error"
            ? `JSON-RPC error ${r.jsonrpc_code} ${r.code ?? ""}`
            : r.outcome === "answer"
              ? `answered${r.code ? ` ${r.code}` : ""}: ${r.matches ?? "?"} matches${r.omitted ? `, ${r.omitted} left out (RESULT_TRUNCATED)` : ""}, message ${fmt(r.message_bytes / 2 ** 20, 2)} MiB`
              : r.outcome === "crash"
                ? `server exited ${JSON.stringify(r.exit)}`
                : r.outcome === "overflow"
                  ? "client disconnected (message over its read buffer)"
                  : r.outcome;
        L.push(`  ${pad(r.tag, 52)}${lpad(r.ms, 6)} ms  ${what}; next call ${r.next}`);
      }
    }
    if (flood) {
      const codes = Object.entries(flood.statuses)
        .map(([status, n]) => `${status} x${n}`)
        .join(", ");
      L.push(
        "",
        `session-flood (HTTP on loopback, default session bounds): ${flood.requests} initialize, ${flood.concurrency} at a time, in ${fmt(flood.wall_ms / 1000, 1)} s (${flood.per_second}/s)${flood.stopped_at_limit ? `, stopped at the ${FLOOD_LIMIT_MS / 60_000} min limit` : ""}`,
      );
      L.push(
        `  answers ${codes || "none"}; failed requests ${flood.failed}; server RSS ${fmt(flood.rss_mb.before, 0)} MB before, ${fmt(flood.rss_mb.peak, 0)} MB peak, ${fmt(flood.rss_mb.after, 0)} MB after; server exits ${flood.server_exit ? JSON.stringify(flood.server_exit) : 0}; a new client served after: ${flood.served_after ? "yes" : "no"}`,
      );
    }
    L.push("");
    L.push("targets");
    for (const x of targets) L.push(`  ${verdict(x.pass)}  ${pad(x.name, 56)}${pad(x.target, 12)}${lpad(x.value, 10)}`);

    publish(L, notes, OUT_JSON, {
      environment: env,
      dist_stamp: { at_start: new Date(distAtStart).toISOString(), at_end: new Date(distStamp()).toISOString() },
      settings: {
        classes: CLASSES.filter((c) => only.has(c)),
        seed: SEED,
        calls: CALLS,
        flood: only.has("session-flood") ? { initialize: FLOOD, concurrency: FLOOD_CONCURRENCY, limit_ms: FLOOD_LIMIT_MS, rss_target_mb: FLOOD_RSS_TARGET_MB } : null,
        answer_cap_bytes: ANSWER_CAP,
        unanswered_ms: UNANSWERED_MS,
        hang_ms: HANG_MS,
        repeat_hang_ms: REPEAT_HANG_MS,
        hangs_per_class_before_redraw: HANGS_PER_CLASS,
        rss_limit_bytes: RSS_LIMIT,
        check_every: CHECK_EVERY,
        mode_weights: MODE_WEIGHTS,
        percentile: "nearest-rank",
      },
      world: {
        temp_dir: values.keep ? world.T : null,
        src_files: world.srcFiles.length,
        crafted: world.crafted,
        fifo: world.haveFifo,
        canaries: world.canaries.map((c) => c.label),
        identifiers: world.identifiers.length,
        init: initSummary,
      },
      totals: {
        calls: CALLS,
        answered,
        restarts,
        crashes: crashes.length,
        hung: hungTotal,
        memory_kills: memoryKills.total,
        sdk_read_buffer_overflows: overflows,
        unanswered_after_5s: unansweredTotal,
        suppressed_redraws: suppressed,
        internal: internal.total,
        protocol_errors: protocol.total,
        answer_defects: defects.total,
        wrong_class_candidates: wrong.total,
        outside_reads: outsideReads.total,
        outside_writes: outsideWriteCount,
        oversized_answers: oversized.total,
        largest_answer: largest,
        latency_ms: roundStats(lat),
        wall_ms: round(wallMs),
      },
      per_tool: Object.fromEntries(Object.entries(perTool).map(([k, s]) => [k, { ...s, ms: roundStats(stats(s.ms)) }])),
      modes,
      lists: {
        crashes,
        hung: hangs.list(),
        memory_kills: memoryKills.list(),
        unanswered_after_5s: unanswered.list(),
        internal: internal.list(),
        internal_distinct_dropped: internal.dropped ?? 0,
        outside_reads: outsideReads.list(),
        outside_writes: outsideWrites,
        store_findings: storeFindings.list(),
        oversized: oversized.list(),
        wrong_class: wrong.list(),
        answer_defects: defects.list(),
        protocol_errors: protocol.list(),
      },
      integrity_checks: checks,
      oversize_message: oversize,
      session_flood: flood,
      targets,
      notes,
    });
    return answered === 0 && CALLS > 0 ? 1 : 0;
  } finally {
    if (server) await server.kill().catch(() => undefined);
    cleanup();
  }
}

/** Up to 60 characters around the first canary (or passwd marker) of an answer, for the report. */
function excerptAround(text, world, label) {
  const needle = label === "/etc/passwd" ? PASSWD_MARKER : world.canaries.find((c) => c.label === label)?.value;
  const at = needle ? text.indexOf(needle) : -1;
  if (at < 0) return "";
  return text
    .slice(Math.max(0, at - 30), at + 40)
    .split(world.T)
    .join("<T>");
}

await runBench(main, () => {
  for (const pid of LIVE_PIDS) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
});
