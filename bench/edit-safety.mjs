#!/usr/bin/env node
// Edit-safety bench: does hashpilot put an edit on the right lines, refuse the edits it cannot
// place, never half-write a file, and undo what it wrote — on real source files nobody here wrote
// (a seeded sample of the pinned corpus shared through bench/corpus.mjs).
//
//   npm run build && npm run bench:edits
//
// 1. SAMPLE_FILES .ts files of the corpus are drawn with a seeded PRNG and copied into a temp
//    project (a directory holding `.git`, so hashpilot takes it as the root); CRLF_FILES of them are
//    converted to CRLF (the first of those also gets a BOM) and BOM_FILES get a BOM alone. Every
//    hashpilot process gets HASHPILOT_HOME in the temp dir (one per sampled file, so `undo --last`
//    is that file's own), never ~/.agentic-tools.
// 2. One mutation task per file, the kinds balanced: delete a statement line, flip a condition
//    (=== / !==, < / >=, && / ||), swap two call arguments, replace a function body (a multi-line
//    range), insert a line. The intended text is computed here, and must parse (TypeScript's
//    parser) as the original does.
// 3. Each task goes through two routes: `replace-hash` (the anchor is a window around the target,
//    widened until its content is unique in the file; single-line targets read it with
//    `read-hash -c`, a body range is hashed here: sha256 of the lines joined by "\n", 12 hex) and
//    `diff apply` (the patch from `diff generate <file> @old @new --raw`). The result must equal
//    the intended text byte for byte; then `undo --last` must bring the original bytes back.
// 4. Perturbations, between computing the anchor/patch and running the edit: lines inserted above
//    the target (shift), unrelated lines reformatted far from it, the target line itself edited,
//    the target block (the anchor window and the hunk's old lines) duplicated elsewhere. Outcomes
//    are classified against what a correct tool must do (see classify()).
// 5. Low-entropy anchors: a line's text is not its identity. A second seeded sample (LOW_SEED) picks
//    lines whose trimmed text is `}`, `});`, `return;`, `break;`, blank, `} else {` or a decorator and
//    that have an earlier copy in the file (the pinned corpus has no decorators), one per file, at most
//    LOW_PER_KIND per kind; the edit appends ` // edited` (a blank line becomes `// edited`) and must
//    parse. Each is read with `read-hash -c 2` (lineHash, contextHash/contextRange, fileHash; the
//    ANCHOR_NOT_UNIQUE warning must be there) and diffed with `-c 0` and the default context. Then
//    replace-hash (lineHash alone, + --file-hash, + --context-hash/--context-range, both) and diff
//    apply (-c 0 and -c 3 patches, without and with --file-hash) run on fresh copies: unchanged;
//    shifted by 1-3 lines at the top, or by the repeat period (the previous copy lands on the
//    target's line); an unrelated far line reformatted; the context window copied far away; the
//    target line changed by another writer. The bench decides which cases the given pins make
//    certain (lowCertainty) and classifies against that (classifyLow): a write anywhere but the
//    target is a corruption, a refusal of a certain case a false refusal.
// 6. Crash run: CRASH_RUNS replace-hash edits on the CRASH_LANES largest corpus files (one directory
//    and HASHPILOT_HOME each, run in parallel), each SIGKILLed a seeded 0-150 ms after it takes the
//    file's lock (seen with fs.watch on $HASHPILOT_HOME/locks); the file must then hold its old or
//    its new bytes, and no `.<name>.hashpilot-*.tmp` may remain after the next successful edit in
//    that directory (checked after every kill that left one, and on a planted orphan per lane).
//
// This is a report, not a test: it exits 0 whether targets PASS or MISS, non-zero only when
// something could not run (no build, no corpus, hashpilot failing every call). Figures also go to
// bench/.out/edit-safety.json.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import ts from "typescript";
import {
  BenchError,
  CORPUS,
  DIST,
  OUT_DIR,
  REPO,
  benchEnvironment,
  buildNotes,
  distStamp,
  ensureCorpus,
  fmt,
  listFiles,
  loadavg,
  lpad,
  median,
  pad,
  prng,
  publish,
  repairInterruptedEdit,
  round,
  roundStats,
  runBench,
  shuffled,
  stats,
  verdict,
} from "./corpus.mjs";

const HASHPILOT = path.join(DIST, "bin", "hashpilot.js");
const OUT_JSON = path.join(OUT_DIR, "edit-safety.json");

/** The sample's seed ("edit") and the crash run's ("kill"); change one and its draws change. */
const SEED = 0x65646974;
const CRASH_SEED = 0x6b696c6c;

const SAMPLE_FILES = 60;
/** Sampled files converted to CRLF (the first of them also gets a BOM), and LF files given a BOM. */
const CRLF_FILES = 3;
const BOM_FILES = 1;
/** Files eligible for the sample: at least this many lines, at most this many bytes. */
const MIN_LINES = 40;
const MAX_BYTES = 60_000;
/** hashpilot processes at a time (each file's calls stay sequential). */
const CONCURRENCY = 4;
const CALL_TIMEOUT_MS = 60_000;
/** Context lines of a single-line anchor window (widened up to MAX_CONTEXT until unique). */
const MIN_CONTEXT = 2;
const MAX_CONTEXT = 8;
/**
 * Shifts are reported up to and beyond this many lines: the contract's documented --fuzzy default
 * (a window diff apply once searched alone). The bench passes no --fuzzy: diff apply's own default.
 */
const FUZZY_BUCKET = 3;

const CRASH_RUNS = 200;
/**
 * Files killed in parallel, one directory each. A run mostly waits: the lock a killed run leaves is
 * broken only once it is 1 s old (10 s when the kill came before the holder was recorded).
 */
const CRASH_LANES = 8;
const KILL_MAX_MS = 150;
/** Attempts of an unkilled crash-lane edit that gives up with LOCK_HELD. */
const CLEAN_ATTEMPTS = 3;
/** A crash run that waited longer than this for the file's lock is listed. */
const SLOW_LOCK_MS = 5_000;

const KINDS = ["delete", "flip", "swap", "body", "insert"];
const SCENARIOS = ["none", "shift", "reformat", "edited", "duplicate"];
const ROUTES = ["replace-hash", "diff apply"];
const OUTCOMES = ["applied", "relocated", "refused", "false_refusal", "corruption", "wrong_refusal"];

const TARGETS = { corruptions: 0, shift_relocated: 0.99, torn: 0, temp_left_after_next_edit: 0 };

const MARK = "edit-safety";
const LIST_LIMIT = 12;

/**
 * The low-entropy class: lines whose text is not their identity (`}`, a blank line, ...) and occurs
 * 2+ times in the file. Its own seeded sample ("lowe"), at most LOW_PER_KIND targets per kind (one
 * per file), read with `read-hash -c LOW_CONTEXT`; duplicates and reformats keep LOW_FAR lines away.
 */
const LOW_SEED = 0x6c6f7765;
const LOW_PER_KIND = 11;
const LOW_CONTEXT = 2;
const LOW_FAR = 10;
const LOW_KINDS = {
  "}": (t) => t === "}",
  "});": (t) => t === "});",
  "return;": (t) => t === "return;",
  "break;": (t) => t === "break;",
  blank: (t) => t === "",
  "} else {": (t) => t === "} else {",
  decorator: (t) => /^@[A-Za-z_$][\w$.]*(\(.*\))?$/.test(t),
};
/** shift: 1, 2 or 3 lines at the top (rotating over the targets); shift_period: p lines, the previous copy lands on the target's line. */
const LOW_SCENARIOS = ["none", "shift", "shift_period", "reformat", "duplicate", "edited"];
/** Routes x pins: `line` = the lineHash and --range alone; `file` = --file-hash; `ctx` = --context-hash/--context-range; diff -c 0 / default context. */
const LOW_VARIANTS = [
  { name: "replace-hash line", route: "replace-hash", file: false, ctx: false },
  { name: "replace-hash line+file", route: "replace-hash", file: true, ctx: false },
  { name: "replace-hash line+ctx", route: "replace-hash", file: false, ctx: true },
  { name: "replace-hash line+file+ctx", route: "replace-hash", file: true, ctx: true },
  { name: "diff apply -c0", route: "diff apply", patch: "c0", file: false },
  { name: "diff apply -c0 +file", route: "diff apply", patch: "c0", file: true },
  { name: "diff apply -c3", route: "diff apply", patch: "c3", file: false },
  { name: "diff apply -c3 +file", route: "diff apply", patch: "c3", file: true },
];
const LOW_TARGETS = { corruptions: 0, false_refusals: 0 };

// ---------------------------------------------------------------------------------------------
// files as lines (every sampled file has one line ending throughout)

const BOM = "\uFEFF";

function parseModel(buf) {
  let text = buf.toString("utf8");
  const bom = text.startsWith(BOM);
  if (bom) text = text.slice(1);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(eol);
  const final = lines.length > 1 && lines.at(-1) === "";
  if (final) lines.pop();
  return { bom, eol, final, lines };
}

const render = (m, lines = m.lines) => Buffer.from(`${m.bom ? BOM : ""}${lines.join(m.eol)}${m.final ? m.eol : ""}`, "utf8");

/** hashpilot's range hash: sha256 of the lines joined by "\n", 12 hex characters. */
const hash12 = (lines) => createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 12);

/** An edit replaces `del` lines from line `at` (1-based) with `ins`; `shift` moves it down. */
function applyEdit(lines, edit, shift = 0) {
  const out = [...lines];
  out.splice(edit.at - 1 + shift, edit.del, ...edit.ins);
  return out;
}

/** The text as TypeScript's parser sees it: true when it has no syntax error. */
function parses(lines) {
  const sf = ts.createSourceFile("x.ts", lines.join("\n"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return sf.parseDiagnostics.length === 0;
}

/** Content for `replace-hash @file`: one trailing "\n" always, so a last empty line is kept (none for no lines). */
const contentOf = (lines) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`);

// ---------------------------------------------------------------------------------------------
// mutation candidates

const indentOf = (l) => /^\s*/.exec(l)[0];
const stripStrings = (l) => l.replace(/\\./g, "").replace(/'[^']*'|"[^"]*"/g, "''");
function balanced(l) {
  let depth = 0;
  for (const c of stripStrings(l)) {
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c) && --depth < 0) return false;
  }
  return depth === 0;
}
/** A line of code: not blank, not a comment, no template literal, no trailing comment. */
function codeLine(l) {
  const t = l.trim();
  return t !== "" && !/^(\/\/|\/\*|\*)/.test(t) && !l.includes("`") && !l.includes("//") && !l.includes("/*");
}
const statementLine = (l) => codeLine(l) && indentOf(l).length > 0 && l.trimEnd().endsWith(";") && balanced(l) && !/^\s*(import|export)\b/.test(l);

const FLIPS = [
  [" === ", " !== "],
  [" !== ", " === "],
  [" && ", " || "],
  [" || ", " && "],
  [" < ", " >= "],
  [" >= ", " < "],
];
const CALL_ARGS = /(?<![\w$])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(\s*([^(),\s][^(),]*?)\s*,\s*([^(),\s][^(),]*?)\s*\)/;
const NOT_CALLEES = new Set(["if", "for", "while", "switch", "catch", "function", "return", "typeof", "new"]);
const FUNCTION_HEADER =
  /(\bfunction\b[^;]*\{$|=>\s*\{$|^\s*(?:(?:public|private|protected|static|async|get|set|override|readonly)\s+)*[A-Za-z_$#][\w$]*\s*(?:<[^>]*>)?\([^)]*\)\s*(?::\s*[^={;]+)?\{$)/;
const CONTROL = /^\s*(\}\s*)?(if|for|while|switch|catch|else|do|try|finally)\b/;

/** Every candidate edit of a kind in a file: { edit, target (the line perturbation (iii) edits), describe }. */
function candidates(kind, lines) {
  const out = [];
  const n = lines.length;
  for (let i = 2; i <= n - 2; i++) {
    const l = lines[i - 1];
    if (kind === "delete" && statementLine(l)) out.push({ edit: { at: i, del: 1, ins: [] }, target: i, describe: `delete line ${i}` });
    else if (kind === "flip" && codeLine(l)) {
      let best = null;
      for (const [from, to] of FLIPS) {
        const at = l.indexOf(from);
        if (at >= 0 && (best === null || at < best.at)) best = { at, from, to };
      }
      if (best) out.push({ edit: { at: i, del: 1, ins: [l.slice(0, best.at) + best.to + l.slice(best.at + best.from.length)] }, target: i, describe: `flip "${best.from.trim()}" on line ${i}` });
    } else if (kind === "swap" && codeLine(l)) {
      const m = CALL_ARGS.exec(l);
      if (!m || NOT_CALLEES.has(m[1]) || m[2] === m[3] || /[:=?{}<>]|\.\.\./.test(m[2] + m[3])) continue;
      const open = m.index + m[1].length;
      const swapped = `${l.slice(0, open)}(${m[3]}, ${m[2]})${l.slice(m.index + m[0].length)}`;
      out.push({ edit: { at: i, del: 1, ins: [swapped] }, target: i, describe: `swap the arguments of ${m[1]}() on line ${i}` });
    } else if (kind === "insert" && statementLine(l)) {
      out.push({ edit: { at: i + 1, del: 0, ins: [`${indentOf(l)}void 0; // ${MARK}: inserted line`] }, target: i, describe: `insert a line after line ${i}` });
    } else if (kind === "body" && codeLine(l.replace(/\{$/, "{ ")) && l.trimEnd().endsWith("{") && FUNCTION_HEADER.test(l.trimEnd()) && !CONTROL.test(l)) {
      const indent = indentOf(l);
      let close = -1;
      for (let j = i + 1; j <= n; j++) {
        const k = lines[j - 1];
        if (k.trim() === "") continue;
        if (indentOf(k) === indent && k.trim().startsWith("}")) {
          close = j;
          break;
        }
        if (indentOf(k).length <= indent.length) break;
      }
      const height = close - i - 1;
      if (close < 0 || height < 2 || height > 40) continue;
      const inner = indentOf(lines.slice(i, close - 1).find((k) => k.trim() !== "") ?? `${indent}  `);
      out.push({
        edit: { at: i + 1, del: height, ins: [`${inner}throw new Error("${MARK}: body replaced");`] },
        target: i + 1,
        body: { start: i + 1, end: close - 1 },
        describe: `replace the ${height}-line body at lines ${i + 1}-${close - 1}`,
      });
    }
  }
  return out;
}

/** The narrowest window around lines lo..hi (widened by ctx each side) whose content appears once in the file. */
function uniqueWindow(lines, lo, hi, minCtx) {
  const n = lines.length;
  for (let c = minCtx; c <= MAX_CONTEXT; c++) {
    const ws = Math.max(1, lo - c);
    const we = Math.min(n, hi + c);
    const h = we - ws + 1;
    const key = lines.slice(ws - 1, we).join("\n");
    let count = 0;
    for (let s = 0; s + h <= n && count < 2; s++) if (lines[s] === lines[ws - 1] && lines.slice(s, s + h).join("\n") === key) count++;
    if (count === 1) return { start: ws, end: we, context: c };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// the sample

function eligibleFiles() {
  return listFiles(CORPUS)
    .filter((rel) => /\.ts$/.test(rel) && !/\.d\.ts$/.test(rel))
    .sort()
    .filter((rel) => {
      const abs = path.join(CORPUS, rel);
      if (fs.statSync(abs).size > MAX_BYTES) return false;
      const text = fs.readFileSync(abs, "utf8");
      return !text.includes("\r") && !text.startsWith(BOM) && text.split("\n").length >= MIN_LINES;
    });
}

/** Draws files in seeded order, giving each the least-served kind it supports, until SAMPLE_FILES tasks. */
function drawTasks(rand) {
  const counts = Object.fromEntries(KINDS.map((k) => [k, 0]));
  const tasks = [];
  let skipped = 0;
  for (const rel of shuffled(eligibleFiles(), rand)) {
    if (tasks.length === SAMPLE_FILES) break;
    const lines = parseModel(fs.readFileSync(path.join(CORPUS, rel))).lines;
    if (!parses(lines)) {
      skipped++;
      continue;
    }
    const order = [...KINDS].sort((a, b) => counts[a] - counts[b] || KINDS.indexOf(a) - KINDS.indexOf(b));
    let task = null;
    for (const kind of order) {
      for (const c of shuffled(candidates(kind, lines), rand).slice(0, 30)) {
        const intended = applyEdit(lines, c.edit);
        if (!parses(intended)) continue;
        const lo = c.body ? c.body.start : c.target;
        const hi = c.body ? c.body.end : c.target;
        const win = uniqueWindow(lines, lo, hi, c.body ? 0 : MIN_CONTEXT);
        if (!win) continue;
        task = { rel, kind, ...c, window: win };
        break;
      }
      if (task) break;
    }
    if (!task) {
      skipped++;
      continue;
    }
    counts[task.kind]++;
    tasks.push(task);
  }
  return { tasks, skipped };
}

// ---------------------------------------------------------------------------------------------
// running hashpilot

const calls = []; // { command, ms, exit }

function childEnv(home) {
  const env = { ...process.env, HASHPILOT_HOME: home, HASHPILOT_SESSION: `${MARK}-bench` };
  for (const k of ["MAST_STATE_DIR", "HASHPILOT_ROUTE_POLICY", "CI"]) delete env[k];
  return env;
}

/** One hashpilot process: exit code, the parsed envelope (null for --raw or no JSON), stdout, wall ms. */
function hashpilot(args, { cwd, home, label }) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [HASHPILOT, ...args], { cwd, env: childEnv(home), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), CALL_TIMEOUT_MS);
    child.on("error", (err) => reject(new BenchError(`cannot run hashpilot: ${err.message}`)));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - t0;
      let envelope = null;
      try {
        envelope = JSON.parse(stdout);
      } catch {
        // --raw output, or no JSON at all
      }
      calls.push({ command: label, ms, exit: code });
      resolve({ exit: signal ? `killed (${signal}, timeout)` : code, envelope, stdout, stderr, ms });
    });
  });
}

/** Runs fn over items with at most `n` in flight. */
async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

// ---------------------------------------------------------------------------------------------
// perturbations

/** Builds the four perturbed files of a task: { lines, expected (null: must refuse), moved, info }. */
function perturb(task, lines, span, rand) {
  const n = lines.length;
  const out = {};
  // (i) shift: k comment lines inserted at or above the first line of the target block
  {
    const k = rand() < 0.5 ? 1 + Math.floor(rand() * 3) : 4 + Math.floor(rand() * 17);
    const p = 1 + Math.floor(rand() * span.start);
    const ins = Array.from({ length: k }, (_, j) => `// ${MARK}: shifted line ${j + 1} of ${k}`);
    const perturbed = [...lines.slice(0, p - 1), ...ins, ...lines.slice(p - 1)];
    out.shift = { lines: perturbed, expected: applyEdit(perturbed, task.edit, k), moved: true, info: { lines_inserted: k, before_line: p } };
  }
  // (ii) reformat: up to 3 non-blank lines far from the block get trailing spaces or a new indentation
  {
    const far = (i) => i < span.start - 3 || i > span.end + 3;
    const pool = [];
    for (let i = 1; i <= n; i++) if (lines[i - 1].trim() !== "" && far(i)) pool.push(i);
    const preferred = pool.filter((i) => i < span.start - 10 || i > span.end + 10);
    const chosen = shuffled(preferred.length >= 3 ? preferred : pool, rand)
      .slice(0, 3)
      .sort((a, b) => a - b);
    const perturbed = [...lines];
    const how = [];
    for (const i of chosen) {
      const l = perturbed[i - 1];
      let v = Math.floor(rand() * 3);
      if (v === 2 && !l.startsWith(" ")) v = 1;
      perturbed[i - 1] = v === 0 ? `${l}  ` : v === 1 ? `  ${l}` : l.replace(/^ +/, "\t");
      how.push(`${i}: ${["trailing spaces", "indent +2", "indent -> tab"][v]}`);
    }
    out.reformat = chosen.length ? { lines: perturbed, expected: applyEdit(perturbed, task.edit, 0), moved: false, info: { lines: how } } : null;
  }
  // (iii) edited: the target line itself changed
  {
    const perturbed = [...lines];
    perturbed[task.target - 1] = `${perturbed[task.target - 1]} // ${MARK}: edited`;
    out.edited = { lines: perturbed, expected: null, moved: false, info: { line: task.target } };
  }
  // (iv) duplicate: the whole block (anchor window and hunk) copied elsewhere, never onto its own lines
  {
    const block = lines.slice(span.start - 1, span.end);
    const h = block.length;
    const places = [];
    if (span.start >= 9) places.push(["above, far", () => 1 + Math.floor(rand() * (span.start - 8))]);
    if (span.start >= 2) places.push(["above, near", () => span.start - (1 + Math.floor(rand() * Math.min(3, span.start - 1)))]);
    places.push(["below, near", () => Math.min(n + 1, span.end + 1 + Math.floor(rand() * 4))]);
    if (span.end + 9 <= n + 1) places.push(["below, far", () => span.end + 9 + Math.floor(rand() * (n + 1 - (span.end + 9) + 1))]);
    const [placement, at] = places[Math.floor(rand() * places.length)];
    const p = at(); // the copy goes before line p
    const perturbed = [...lines.slice(0, p - 1), ...block, ...lines.slice(p - 1)];
    const moved = p <= span.start;
    out.duplicate = { lines: perturbed, expected: applyEdit(perturbed, task.edit, moved ? h : 0), moved, info: { placement, before_line: p, block: `${span.start}-${span.end}`, height: h } };
  }
  return out;
}

/**
 * What a correct tool must do, and what this one did:
 * - no perturbation, shift, reformat: land the intended change (on the moved target after a
 *   shift) — `applied`, or `relocated` when the target had moved; a refusal is a `false_refusal`;
 * - edited: refuse with exit 3 and the file untouched — `refused` (another non-zero exit with the
 *   file untouched is a `wrong_refusal`);
 * - duplicate: refuse (exit 3, untouched) or land on the original block, never on the copy;
 * - `corruption`: exit 0 and the file is not the intended text, or a refusal that changed the file.
 */
function classify(scenario, exit, before, after, expected, moved) {
  if (exit === 0) return expected && after.equals(expected) ? (moved ? "relocated" : "applied") : "corruption";
  if (!after.equals(before)) return "corruption";
  if (scenario === "edited" || scenario === "duplicate") return exit === 3 ? "refused" : "wrong_refusal";
  return "false_refusal";
}

/** Where two texts first differ, for the report. */
function firstDifference(a, b) {
  const x = parseModel(a).lines;
  const y = parseModel(b).lines;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return { line: i + 1, expected: x[i] ?? null, actual: y[i] ?? null, expected_lines: x.length, actual_lines: y.length };
  }
  return { line: null, note: "same lines, different bytes (line endings, BOM or final newline)" };
}

// ---------------------------------------------------------------------------------------------
// one file: its task through both routes, every scenario

async function runTask(task, ctx) {
  const { proj, scratch, homes } = ctx;
  const home = homes(task);
  const abs = path.join(proj, task.rel);
  const original = fs.readFileSync(abs);
  const m = parseModel(original);
  const { lines } = m;
  const rand = prng((SEED ^ Math.imul(task.index + 1, 0x9e3779b1)) >>> 0);
  const intended = applyEdit(lines, task.edit);
  const intendedBytes = render(m, intended);
  const opts = (label) => ({ cwd: proj, home, label });
  const tmp = (name) => path.join(scratch, `${task.index}-${name}`);
  const result = { file: task.rel, kind: task.kind, describe: task.describe, eol: m.eol === "\r\n" ? "CRLF" : "LF", bom: m.bom, lines: lines.length, harness_errors: [], cases: [], undo: [] };

  // replace-hash anchor: the window's hash, read with read-hash -c for a single-line target
  const win = task.window;
  let anchor = hash12(lines.slice(win.start - 1, win.end));
  if (!task.body) {
    const r = await hashpilot(["read-hash", task.rel, String(task.target), "-c", String(win.context), "--format", "json"], opts("read-hash"));
    const d = r.envelope?.data;
    if (r.exit !== 0 || !d) result.harness_errors.push(`read-hash exited ${r.exit}: ${r.stdout.slice(0, 300)}`);
    else if (d.contextHash !== anchor || d.contextRange?.start !== win.start || d.contextRange?.end !== win.end) {
      result.harness_errors.push(`read-hash says ${d.contextHash} for lines ${d.contextRange?.start}-${d.contextRange?.end}; the bench computed ${anchor} for ${win.start}-${win.end}`);
      result.hash_disagreement = true;
      anchor = d.contextHash;
    }
  }
  const windowNew = applyEdit(lines.slice(win.start - 1, win.end), { ...task.edit, at: task.edit.at - win.start + 1 });
  const viaWindow = [...lines.slice(0, win.start - 1), ...windowNew, ...lines.slice(win.end)];
  if (viaWindow.join("\n") !== intended.join("\n")) throw new BenchError(`${task.rel}: the window edit does not give the intended text (bench bug)`);
  fs.writeFileSync(tmp("content"), contentOf(windowNew));

  // diff apply patch: diff generate between the file and the intended text
  fs.writeFileSync(tmp("old"), original);
  fs.writeFileSync(tmp("new"), intendedBytes);
  const g = await hashpilot(["diff", "generate", task.rel, `@${tmp("old")}`, `@${tmp("new")}`, "--raw"], opts("diff generate"));
  let patchOk = g.exit === 0 && g.stdout.startsWith("---");
  const hunks = [...g.stdout.matchAll(/^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/gm)].map((h) => ({ start: Number(h[1]), count: h[2] === undefined ? 1 : Number(h[2]) }));
  if (!patchOk || hunks.length === 0) {
    result.harness_errors.push(`diff generate exited ${g.exit}: ${g.stdout.slice(0, 300)} ${g.stderr.slice(0, 300)}`);
    patchOk = false;
  }
  fs.writeFileSync(tmp("patch"), g.stdout);
  const hunkSpan = hunks.length
    ? { start: Math.min(...hunks.map((h) => (h.count ? h.start : h.start + 1))), end: Math.max(...hunks.map((h) => (h.count ? h.start + h.count - 1 : h.start))) }
    : { start: task.target, end: task.target };
  result.anchor = { range: `${win.start}:${win.end}`, hash: anchor, context: win.context };
  result.patch = { hunks: hunks.length, old_lines: `${hunkSpan.start}-${hunkSpan.end}` };
  const span = { start: Math.min(win.start, hunkSpan.start), end: Math.max(win.end, hunkSpan.end) };
  const perturbed = perturb(task, lines, span, rand);

  const runRoute = (route) =>
    route === "replace-hash"
      ? hashpilot(["replace-hash", task.rel, anchor, `@${tmp("content")}`, "--range", `${win.start}:${win.end}`, "--format", "json"], opts("replace-hash"))
      : hashpilot(["diff", "apply", task.rel, "--patch", tmp("patch"), "--format", "json"], opts("diff apply"));

  for (const route of ROUTES) {
    if (route === "diff apply" && !patchOk) continue;
    for (const scenario of SCENARIOS) {
      const p = scenario === "none" ? { lines, expected: intended, moved: false, info: null } : perturbed[scenario];
      if (!p) continue;
      const before = scenario === "none" ? original : render(m, p.lines);
      fs.writeFileSync(abs, before);
      const r = await runRoute(route);
      const after = fs.existsSync(abs) ? fs.readFileSync(abs) : Buffer.alloc(0);
      const expected = p.expected ? render(m, p.expected) : null;
      const outcome = classify(scenario, r.exit, before, after, expected, p.moved);
      const d = r.envelope?.data;
      const reportedRelocation = r.exit === 0 ? (route === "replace-hash" ? d?.relocatedTo !== undefined : (d?.fuzzyPlacements?.length ?? 0) > 0) : null;
      const c = {
        route,
        scenario,
        outcome,
        exit: r.exit,
        error_code: r.envelope?.error?.code ?? null,
        ok_agrees: r.envelope ? r.envelope.ok === (r.exit === 0) : null,
        relocation_reported: reportedRelocation,
        ms: round(r.ms, 1),
        info: p.info,
      };
      if (r.exit !== 0) c.message = r.envelope?.error?.message ?? r.stderr.slice(0, 300);
      if (outcome === "corruption")
        c.difference = expected ? firstDifference(expected, after) : { note: "the file was written although the edit had to be refused", ...firstDifference(before, after) };
      if (r.exit !== 0 && r.exit !== 3 && ![2, 5].includes(r.exit)) result.harness_errors.push(`${route} (${scenario}) exited ${r.exit}: ${c.message}`);
      result.cases.push(c);
      // undo: every edit of the unperturbed task, back to the bytes before it
      if (scenario === "none" && r.exit === 0) {
        const u = await hashpilot(["undo", "--last", "--format", "json"], opts("undo"));
        const back = fs.readFileSync(abs);
        result.undo.push({ route, exit: u.exit, restored: back.equals(before), error_code: u.envelope?.error?.code ?? null });
      }
      fs.writeFileSync(abs, original);
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// low-entropy anchors: a line whose text occurs many times, pinned (or not) by the file hash or
// the read's context

const lowKindOf = (l) => Object.keys(LOW_KINDS).find((k) => LOW_KINDS[k](l.trim())) ?? null;

/** Where the lines `seq` occur in `lines` (1-based starts). */
function occurrencesOf(lines, seq) {
  const out = [];
  for (let s = 0; s + seq.length <= lines.length; s++) {
    let k = 0;
    while (k < seq.length && lines[s + k] === seq[k]) k++;
    if (k === seq.length) out.push(s + 1);
  }
  return out;
}

/** Low-entropy lines of a file with an earlier copy of the same text: { kind: [{ line, period }] } (period: lines back to the previous copy). */
function lowCandidates(lines) {
  const out = Object.fromEntries(Object.keys(LOW_KINDS).map((k) => [k, []]));
  const last = new Map();
  lines.forEach((l, i) => {
    const kind = lowKindOf(l);
    if (kind === null) return;
    if (last.has(l)) out[kind].push({ line: i + 1, period: i - last.get(l) });
    last.set(l, i);
  });
  return out;
}

/** The line the intended edit writes, and the one "another writer" puts there (scenario edited). */
const lowEdit = (l) => (l.trim() === "" ? "// edited" : `${l} // edited`);
const lowOther = (l) => (l.trim() === "" ? `// ${MARK}: another writer` : `${l} // ${MARK}: another writer`);

/**
 * A seeded sample of corpus files, one target per file, each given the rarest kind it offers (the
 * kind fewest files offer, so `break;` is not used up on files that also offer `}`) that has fewer
 * than LOW_PER_KIND targets.
 */
function drawLowEntropy() {
  const rand = prng(LOW_SEED);
  const kinds = Object.keys(LOW_KINDS);
  const counts = Object.fromEntries(kinds.map((k) => [k, 0]));
  const candidatesSeen = Object.fromEntries(kinds.map((k) => [k, 0]));
  const files = shuffled(eligibleFiles(), rand).map((rel) => {
    const lines = parseModel(fs.readFileSync(path.join(CORPUS, rel))).lines;
    return { rel, lines, byKind: lowCandidates(lines) };
  });
  const offering = Object.fromEntries(kinds.map((k) => [k, files.filter((f) => f.byKind[k].length).length]));
  const targets = [];
  for (const { rel, lines, byKind } of files) {
    for (const k of kinds) candidatesSeen[k] += byKind[k].length;
    const order = kinds.filter((k) => counts[k] < LOW_PER_KIND && byKind[k].length).sort((a, b) => offering[a] - offering[b] || counts[a] - counts[b] || kinds.indexOf(a) - kinds.indexOf(b));
    if (order.length === 0 || !parses(lines)) continue;
    let target = null;
    for (const kind of order) {
      for (const c of shuffled(byKind[kind], rand).slice(0, 30)) {
        const text = lines[c.line - 1];
        if (!parses(applyEdit(lines, { at: c.line, del: 1, ins: [lowEdit(text)] }))) continue;
        target = { rel, kind, line: c.line, period: c.period, text, occurrences: occurrencesOf(lines, [text]).length };
        break;
      }
      if (target) break;
    }
    if (!target) continue;
    counts[target.kind]++;
    targets.push(target);
  }
  return { targets, files: files.length, candidates: candidatesSeen, files_offering: offering };
}

/**
 * The perturbed files of a low-entropy target, each from the original: { lines, at (the target's
 * line in them; null when it is gone), info }. The context window is lines cs..ce.
 */
function lowPerturb(tg, lines, cs, ce, rand) {
  const n = lines.length;
  const top = (k) => Array.from({ length: k }, (_, j) => `// ${MARK}: shifted line ${j + 1} of ${k}`);
  const out = { none: { lines, at: tg.line, info: null } };
  const k = 1 + (tg.index % 3);
  out.shift = { lines: [...top(k), ...lines], at: tg.line + k, info: { lines_inserted: k } };
  out.shift_period = { lines: [...top(tg.period), ...lines], at: tg.line + tg.period, info: { lines_inserted: tg.period, note: "the previous copy of the text is now on the target's old line" } };
  // reformat: one non-blank line far from the context window, of another text, gets two trailing spaces
  const far = [];
  for (let i = 1; i <= n; i++) if ((i < cs - LOW_FAR || i > ce + LOW_FAR) && lines[i - 1].trim() !== "" && lines[i - 1] !== tg.text) far.push(i);
  if (far.length) {
    const i = far[Math.floor(rand() * far.length)];
    const perturbed = [...lines];
    perturbed[i - 1] = `${perturbed[i - 1]}  `;
    out.reformat = { lines: perturbed, at: tg.line, info: { line: i } };
  } else out.reformat = null;
  // duplicate: the context window copied before line q, at least LOW_FAR lines from it
  const block = lines.slice(cs - 1, ce);
  const places = [];
  for (let q = 1; q <= n + 1; q++) if (q <= cs - LOW_FAR || q >= ce + 1 + LOW_FAR) places.push(q);
  if (places.length) {
    const q = places[Math.floor(rand() * places.length)];
    const moved = q <= cs;
    out.duplicate = {
      lines: [...lines.slice(0, q - 1), ...block, ...lines.slice(q - 1)],
      at: tg.line + (moved ? block.length : 0),
      info: { before_line: q, block: `${cs}-${ce}`, placement: moved ? "above" : "below" },
    };
  } else out.duplicate = null;
  const edited = [...lines];
  edited[tg.line - 1] = lowOther(tg.text);
  out.edited = { lines: edited, at: null, info: { line: tg.line } };
  return out;
}

/** hashpilot's rule for text that may be relocated by itself: at least 12 letters and digits in it. */
const distinctive = (seq) => seq.join("").match(/[\p{L}\p{N}]/gu)?.length >= 12;

/**
 * Whether the pins given determine the place (computed here, not taken from hashpilot): the file
 * hash while the file is unchanged; else the context window's content in exactly one place (a
 * context pin that is nowhere contradicts every copy: not certain); else the anchor's line — for
 * diff apply the hunk's old lines — in exactly one place, and that place either where the read
 * saw it or the text distinctive enough to be told from a copy (a lone `}` found elsewhere may be
 * another one: the line read may have been edited away). Returns what decided it, or null.
 */
function lowCertainty(v, perturbed, unchanged, read, patch) {
  if (v.file && unchanged) return "file hash";
  const alone = (seq, at) => {
    const found = occurrencesOf(perturbed, seq);
    return found.length === 1 && (found[0] === at || distinctive(seq));
  };
  if (v.route === "diff apply") return alone(patch.old, patch.start) ? "hunk lines unique" : null;
  if (v.ctx) {
    const n = occurrencesOf(perturbed, read.contextLines).length;
    return n === 1 ? "context unique" : null;
  }
  return alone([read.text], read.line) ? "anchor unique" : null;
}

/**
 * - exit 0: `applied` / `relocated` when the file is the intended text on the target, else `corruption`;
 * - a refusal that changed the file: `corruption`;
 * - a refusal of a certain case (not edited): `false_refusal`; otherwise `refused` (exit 3) or `wrong_refusal` (another exit).
 * edited: the target is gone, so any write is a corruption and a refusal is right.
 */
function classifyLow(scenario, certain, exit, before, after, expected, moved) {
  if (exit === 0) return expected && after.equals(expected) ? (moved ? "relocated" : "applied") : "corruption";
  if (!after.equals(before)) return "corruption";
  if (certain && scenario !== "edited") return "false_refusal";
  return exit === 3 ? "refused" : "wrong_refusal";
}

/** The old lines and start of a one-hunk patch (null unless it has exactly one hunk). */
function hunkOf(patch) {
  const heads = [...patch.matchAll(/^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/gm)];
  if (heads.length !== 1) return null;
  const body = patch.slice(heads[0].index).split("\n").slice(1);
  const old = body.filter((l) => l.startsWith(" ") || l.startsWith("-")).map((l) => l.slice(1));
  return { start: Number(heads[0][1]), old };
}

async function runLowTarget(tg, { proj, scratch, home }) {
  const abs = path.join(proj, tg.copy);
  const original = fs.readFileSync(abs);
  const m = parseModel(original);
  const { lines } = m;
  const rand = prng((LOW_SEED ^ Math.imul(tg.index + 1, 0x9e3779b1)) >>> 0);
  const opts = (label) => ({ cwd: proj, home, label: `${label} (low-entropy)` });
  const tmp = (name) => path.join(scratch, `low-${tg.index}-${name}`);
  const result = { file: tg.rel, line: tg.line, kind: tg.kind, text: tg.text, occurrences: tg.occurrences, period: tg.period, lines: lines.length, harness_errors: [], cases: [] };

  // the read
  const r = await hashpilot(["read-hash", tg.copy, String(tg.line), "-c", String(LOW_CONTEXT), "--format", "json"], opts("read-hash"));
  const d = r.envelope?.data;
  if (r.exit !== 0 || !d?.contextRange || !d.fileHash) {
    result.harness_errors.push(`read-hash exited ${r.exit}: ${r.stdout.slice(0, 300)}`);
    return result;
  }
  const warning = (r.envelope.warnings ?? []).find((w) => w.code === "ANCHOR_NOT_UNIQUE");
  const { start: cs, end: ce } = d.contextRange;
  const read = { text: tg.text, line: tg.line, contextLines: lines.slice(cs - 1, ce) };
  result.read = { lineHash: d.lineHash, contextHash: d.contextHash, contextRange: `${cs}-${ce}`, fileHash: d.fileHash, warned: !!warning, warned_occurrences: warning?.occurrences ?? null };
  const want = { start: Math.max(1, tg.line - LOW_CONTEXT), end: Math.min(lines.length, tg.line + LOW_CONTEXT) };
  if (d.lineHash !== hash12([tg.text]) || d.contextHash !== hash12(read.contextLines) || cs !== want.start || ce !== want.end) {
    result.harness_errors.push(
      `read-hash says lineHash ${d.lineHash}, contextHash ${d.contextHash} for ${cs}-${ce}; the bench computed ${hash12([tg.text])}, ${hash12(lines.slice(want.start - 1, want.end))} for ${want.start}-${want.end}`,
    );
    result.hash_disagreement = true;
  }
  if (warning && warning.occurrences !== tg.occurrences) result.harness_errors.push(`ANCHOR_NOT_UNIQUE says ${warning.occurrences} occurrences, the bench counts ${tg.occurrences}`);

  // the edit: content for replace-hash, patches with -c 0 and the default context
  const edit = { at: tg.line, del: 1, ins: [lowEdit(tg.text)] };
  fs.writeFileSync(tmp("content"), contentOf(edit.ins));
  fs.writeFileSync(tmp("old"), original);
  fs.writeFileSync(tmp("new"), render(m, applyEdit(lines, edit)));
  const patches = {};
  for (const [name, extra] of [
    ["c0", ["-c", "0"]],
    ["c3", []],
  ]) {
    const g = await hashpilot(["diff", "generate", tg.copy, `@${tmp("old")}`, `@${tmp("new")}`, ...extra, "--raw"], opts("diff generate"));
    const hunk = g.exit === 0 && g.stdout.startsWith("---") ? hunkOf(g.stdout) : null;
    if (!hunk) {
      result.harness_errors.push(`diff generate ${extra.join(" ") || "(default context)"} exited ${g.exit} without one hunk: ${g.stdout.slice(0, 300)}`);
      continue;
    }
    fs.writeFileSync(tmp(`patch-${name}`), g.stdout);
    patches[name] = { file: tmp(`patch-${name}`), ...hunk };
  }
  result.patches = Object.fromEntries(Object.entries(patches).map(([k, p]) => [k, { start: p.start, old_lines: p.old.length }]));

  const perturbed = lowPerturb(tg, lines, cs, ce, rand);
  for (const v of LOW_VARIANTS) {
    const patch = v.route === "diff apply" ? patches[v.patch] : null;
    if (v.route === "diff apply" && !patch) continue;
    const args =
      v.route === "replace-hash"
        ? [
            "replace-hash",
            tg.copy,
            d.lineHash,
            `@${tmp("content")}`,
            "--range",
            `${tg.line}:${tg.line}`,
            ...(v.file ? ["--file-hash", d.fileHash] : []),
            ...(v.ctx ? ["--context-hash", d.contextHash, "--context-range", `${cs}:${ce}`] : []),
          ]
        : ["diff", "apply", tg.copy, "--patch", patch.file, ...(v.file ? ["--file-hash", d.fileHash] : [])];
    for (const scenario of LOW_SCENARIOS) {
      const p = perturbed[scenario];
      if (!p) continue;
      const before = render(m, p.lines);
      const unchanged = before.equals(original);
      const certain = lowCertainty(v, p.lines, unchanged, read, patch);
      const expected = p.at === null ? null : render(m, applyEdit(p.lines, { ...edit, at: p.at }));
      const moved = p.at !== null && p.at !== tg.line;
      fs.writeFileSync(abs, before);
      const res = await hashpilot([...args, "--format", "json"], opts(v.route));
      const after = fs.existsSync(abs) ? fs.readFileSync(abs) : Buffer.alloc(0);
      const outcome = classifyLow(scenario, certain, res.exit, before, after, expected, moved);
      const data = res.envelope?.data;
      const error = res.envelope?.error;
      const c = {
        variant: v.name,
        route: v.route,
        scenario,
        certain,
        outcome,
        exit: res.exit,
        error_code: error?.code ?? null,
        ok_agrees: res.envelope ? res.envelope.ok === (res.exit === 0) : null,
        relocation_reported: res.exit === 0 ? (v.route === "replace-hash" ? data?.relocatedTo !== undefined : (data?.fuzzyPlacements?.length ?? 0) > 0) : null,
        ms: round(res.ms, 1),
        info: p.info,
        context_copies: occurrencesOf(p.lines, read.contextLines).length,
      };
      // An ambiguity refusal must list the real target among its candidates (when the list is complete).
      if (error?.code === "AMBIGUOUS_ANCHOR" && p.at !== null) {
        const det = error.details ?? {};
        const listedAll = det.total === undefined || (det.matches ?? det.candidates ?? []).length === det.total;
        const hunkAt = patch ? patch.start + (p.at - tg.line) : null;
        const found = v.route === "replace-hash" ? (det.matches ?? []).some((x) => x.start === p.at) : (det.candidates ?? []).includes(hunkAt);
        c.candidates_include_target = found || (listedAll ? false : null);
        c.candidates_total = det.total ?? null;
      }
      if (res.exit !== 0) c.message = error?.message ?? res.stderr.slice(0, 300);
      if (outcome === "corruption") c.difference = expected ? firstDifference(expected, after) : { note: "the file was written although its target was gone", ...firstDifference(before, after) };
      if (![0, 2, 3, 5].includes(res.exit)) result.harness_errors.push(`${v.name} (${scenario}) exited ${res.exit}: ${c.message}`);
      result.cases.push(c);
    }
  }
  fs.writeFileSync(abs, original);
  return result;
}

// ---------------------------------------------------------------------------------------------
// crash run

/** Temp files of the writer left in a directory for `name`. */
const tempsOf = (dir, name) => fs.readdirSync(dir).filter((f) => f.startsWith(`.${name}.hashpilot-`) && f.endsWith(".tmp"));

/**
 * Starts a replace-hash that turns the lane's file from state `from` into the other state; kills
 * it `delayMs` after it takes the file's lock (null: never). Resolves when the process is gone.
 */
function crashEdit(lane, from, delayMs) {
  const to = from === "A" ? "B" : "A";
  const args = ["replace-hash", lane.rel, lane.hash[from], `@${lane.content[to]}`, "--range", `${lane.range.start}:${lane.range.end}`, "--format", "json"];
  const locks = path.join(lane.home, "locks");
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let tLock = null;
    let tKill = null;
    let timer = null;
    let done = false;
    const child = spawn(process.execPath, [HASHPILOT, ...args], { cwd: lane.proj, env: childEnv(lane.home), stdio: ["ignore", "pipe", "ignore"] });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const arm = () => {
      if (tLock !== null || done) return;
      tLock = performance.now();
      if (delayMs !== null) {
        timer = setTimeout(() => {
          if (done) return;
          tKill = performance.now();
          child.kill("SIGKILL");
        }, delayMs);
      }
    };
    const check = (tries) => {
      if (tLock !== null || done) return;
      if (fs.readdirSync(locks).some((f) => f.endsWith(".lock"))) arm();
      else if (tries > 0) setTimeout(() => check(tries - 1), 1);
    };
    const watcher = fs.watch(locks, (_event, f) => {
      if (f && String(f).endsWith(".lock")) check(50);
    });
    const guard = setTimeout(() => child.kill("SIGKILL"), CALL_TIMEOUT_MS);
    child.on("error", (err) => reject(new BenchError(`cannot run hashpilot: ${err.message}`)));
    child.on("close", (code, signal) => {
      done = true;
      clearTimeout(timer);
      clearTimeout(guard);
      watcher.close();
      const tEnd = performance.now();
      calls.push({ command: delayMs === null ? "replace-hash (crash lane, not killed)" : "replace-hash (crash run)", ms: tEnd - t0, exit: code });
      let errorCode = null;
      try {
        errorCode = JSON.parse(stdout).error?.code ?? null;
      } catch {
        // killed before it answered
      }
      resolve({
        exit: code,
        pid: child.pid,
        error_code: errorCode,
        killed: signal === "SIGKILL" && tKill !== null,
        to,
        ms_to_lock: tLock === null ? null : tLock - t0,
        ms_lock_to_exit: tLock === null || tKill !== null ? null : tEnd - tLock,
        delay_ms: delayMs,
      });
    });
  });
}

async function crashLane(lane, runs, rand) {
  const r = {
    file: lane.rel,
    bytes: lane.A.length,
    eol: lane.eol,
    runs: 0,
    killed: 0,
    completed: 0,
    refused: [],
    inconsistent: [],
    old: 0,
    new: 0,
    torn: [],
    temps_left_by_kill: 0,
    cleanups: [],
    planted_orphan: null,
    ms_to_lock: [],
    ms_lock_to_exit: [],
    slow_locks: [],
    detail: [],
  };
  let previous = null;
  let deadPid = null;
  const stateOf = (b) => (b === null ? null : b.equals(lane.A) ? "A" : b.equals(lane.B) ? "B" : null);
  const read = () => (fs.existsSync(lane.abs) ? fs.readFileSync(lane.abs) : null);
  /**
   * An edit nobody kills, retried (up to CLEAN_ATTEMPTS) while a killed run's lock makes it give up
   * with LOCK_HELD: once it succeeds, no temp file may be left.
   */
  const cleanEdit = async (why) => {
    const refusals = [];
    for (;;) {
      const from = stateOf(read());
      const e = await crashEdit(lane, from ?? "A", null);
      const after = stateOf(read());
      if (e.exit !== 0 && e.error_code === "LOCK_HELD" && refusals.length + 1 < CLEAN_ATTEMPTS) {
        refusals.push(e.error_code);
        continue;
      }
      const c = { why, exit: e.exit, error_code: e.error_code, refused_first: refusals, landed: e.exit === 0 && after === e.to, temps_remaining: e.exit === 0 ? tempsOf(lane.dir, lane.name) : null };
      r.cleanups.push(c);
      return c;
    }
  };
  for (let i = 0; i < runs; i++) {
    let from = stateOf(read());
    if (from === null) {
      fs.writeFileSync(lane.abs, lane.A);
      from = "A";
    }
    const delay = rand() * KILL_MAX_MS;
    const e = await crashEdit(lane, from, delay);
    r.runs++;
    if (e.ms_to_lock !== null) r.ms_to_lock.push(e.ms_to_lock);
    if (e.killed) deadPid = e.pid;
    if ((e.ms_to_lock ?? 0) > SLOW_LOCK_MS || e.error_code === "LOCK_HELD")
      r.slow_locks.push({ run: i, ms_to_lock: e.ms_to_lock === null ? null : round(e.ms_to_lock, 0), error_code: e.error_code, previous_run: previous });
    if (e.ms_lock_to_exit !== null) r.ms_lock_to_exit.push(e.ms_lock_to_exit);
    const after = read();
    const state = stateOf(after);
    if (e.killed) r.killed++;
    else if (e.exit === 0) r.completed++;
    else r.refused.push({ run: i, exit: e.exit, error_code: e.error_code });
    if (state === from) r.old++;
    else if (state === e.to) r.new++;
    else {
      r.torn.push({ run: i, delay_ms: round(delay, 1), bytes: after === null ? null : after.length, missing: after === null, empty: after !== null && after.length === 0 });
      fs.writeFileSync(lane.abs, lane.A);
    }
    if (!e.killed && e.exit === 0 && state !== e.to) r.inconsistent.push({ run: i, exit: 0, note: "exit 0 but the new content is not there" });
    if (!e.killed && e.exit !== 0 && state !== from) r.inconsistent.push({ run: i, exit: e.exit, note: "a refusal that changed the file" });
    const temps = tempsOf(lane.dir, lane.name);
    const outcome = state === from ? "old" : state === e.to ? "new" : "torn";
    previous = { run: i, killed: e.killed, delay_ms: round(delay, 1), exit: e.exit, outcome };
    r.detail.push({ ...previous, error_code: e.error_code, ms_to_lock: e.ms_to_lock === null ? null : round(e.ms_to_lock, 1), temps_left: temps.length });
    if (temps.length) {
      r.temps_left_by_kill++;
      await cleanEdit(`after run ${i} (${temps.join(", ")})`);
    }
  }
  // Kills rarely land in the ~1 ms between the temp file's creation and its rename, so the cleanup
  // rule is also checked on a planted orphan: a temp file named for a killed run's (dead) pid.
  const planted = `.${lane.name}.hashpilot-${deadPid ?? 999999}-deadbeef.tmp`;
  fs.writeFileSync(path.join(lane.dir, planted), lane.A.subarray(0, lane.A.length >> 1));
  const c = await cleanEdit(`end of lane, with the planted orphan ${planted}`);
  r.planted_orphan = { name: planted, removed: c.landed && !fs.existsSync(path.join(lane.dir, planted)) };
  return r;
}

/** The CRASH_LANES largest corpus .ts files, each in its own directory of the project; the first is CRLF. */
function crashLanes(proj, tmpRoot) {
  const bySize = listFiles(CORPUS)
    .filter((rel) => /\.ts$/.test(rel) && !/\.d\.ts$/.test(rel))
    .map((rel) => ({ rel, size: fs.statSync(path.join(CORPUS, rel)).size }))
    .sort((a, b) => b.size - a.size || (a.rel < b.rel ? -1 : 1))
    .slice(0, CRASH_LANES);
  return bySize.map((f, i) => {
    const dir = path.join(proj, "crash", `lane-${i + 1}`);
    fs.mkdirSync(dir, { recursive: true });
    const name = path.basename(f.rel);
    const abs = path.join(dir, name);
    let text = fs.readFileSync(path.join(CORPUS, f.rel), "utf8");
    if (i === 0) text = text.replace(/\n/g, "\r\n");
    const A = Buffer.from(text, "utf8");
    const m = parseModel(A);
    // The toggled block: a line of code with a line of context each side, unique in the file.
    const mid = Math.floor(m.lines.length / 2);
    const order = [...Array(m.lines.length).keys()].map((k) => k + 1).sort((a, b) => Math.abs(a - mid) - Math.abs(b - mid) || a - b);
    let range = null;
    for (const t of order) {
      const l = m.lines[t - 1];
      if (t < 3 || t > m.lines.length - 2 || !codeLine(l) || !balanced(l) || indentOf(l) === "") continue;
      const w = uniqueWindow(m.lines, t, t, 1);
      const toggled = [...m.lines];
      toggled[t - 1] = `${toggled[t - 1]} // ${MARK}: crash toggle`;
      if (w && w.context === 1 && parses(toggled)) {
        range = { start: t - 1, end: t + 1, toggled };
        break;
      }
    }
    if (!range) throw new BenchError(`${f.rel}: no statement line to toggle for the crash run`);
    const B = render(m, range.toggled);
    fs.writeFileSync(abs, A);
    const home = path.join(tmpRoot, `home-crash-${i + 1}`);
    fs.mkdirSync(path.join(home, "locks"), { recursive: true });
    const content = { A: path.join(tmpRoot, "scratch", `crash-${i + 1}-A`), B: path.join(tmpRoot, "scratch", `crash-${i + 1}-B`) };
    fs.writeFileSync(content.A, contentOf(m.lines.slice(range.start - 1, range.end)));
    fs.writeFileSync(content.B, contentOf(range.toggled.slice(range.start - 1, range.end)));
    return {
      corpus: f.rel,
      rel: path.relative(proj, abs),
      abs,
      dir,
      name,
      proj,
      home,
      A,
      B,
      eol: i === 0 ? "CRLF" : "LF",
      range: { start: range.start, end: range.end },
      hash: { A: hash12(m.lines.slice(range.start - 1, range.end)), B: hash12(range.toggled.slice(range.start - 1, range.end)) },
      content,
      rand: prng(CRASH_SEED + i),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// report

function tally(cases) {
  const t = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
  for (const c of cases) t[c.outcome]++;
  return { cases: cases.length, ...t };
}

async function main() {
  if (!fs.existsSync(HASHPILOT)) {
    process.stderr.write(`bench: ${path.relative(REPO, HASHPILOT)} is missing: run \`npm run build\` first\n`);
    return 2;
  }
  const env = benchEnvironment();
  const distAtStart = distStamp();
  env.mast_dist_built = new Date(distAtStart).toISOString();
  env.typescript = ts.version;
  const fetched = ensureCorpus();
  repairInterruptedEdit();

  const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-edits-"));
  const cleanup = () => fs.rmSync(tmpRoot, { recursive: true, force: true });
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.once(sig, () => {
      cleanup();
      process.exit(130);
    });
  }
  const proj = path.join(tmpRoot, "project");
  const scratch = path.join(tmpRoot, "scratch");
  fs.mkdirSync(path.join(proj, ".git"), { recursive: true });
  fs.mkdirSync(scratch, { recursive: true });

  let drawn, results, low, lowResults, lanes, crash, wallTasks, wallLow, wallCrash;
  try {
    // ----- the sample
    const rand = prng(SEED);
    drawn = drawTasks(rand);
    if (drawn.tasks.length === 0) throw new BenchError("no corpus file offered a mutation task");
    const picks = shuffled([...drawn.tasks.keys()], rand);
    const crlf = new Set(picks.slice(0, CRLF_FILES));
    const bom = new Set([picks[0], ...picks.slice(CRLF_FILES, CRLF_FILES + BOM_FILES)]);
    drawn.tasks.forEach((t, i) => {
      t.index = i;
      let text = fs.readFileSync(path.join(CORPUS, t.rel), "utf8");
      if (crlf.has(i)) text = text.replace(/\n/g, "\r\n");
      if (bom.has(i)) text = BOM + text;
      fs.mkdirSync(path.dirname(path.join(proj, t.rel)), { recursive: true });
      fs.writeFileSync(path.join(proj, t.rel), text);
    });
    const homes = (task) => path.join(tmpRoot, `home-${task.index + 1}`);

    process.stderr.write(`edit-safety: ${drawn.tasks.length} tasks x ${ROUTES.length} routes x ${SCENARIOS.length} scenarios, ${CONCURRENCY} files at a time ...\n`);
    const t0 = performance.now();
    let done = 0;
    results = await pool(drawn.tasks, CONCURRENCY, async (task) => {
      const r = await runTask(task, { proj, scratch, homes });
      if (++done % 10 === 0) process.stderr.write(`  ${done}/${drawn.tasks.length} files\n`);
      return r;
    });
    wallTasks = performance.now() - t0;

    // ----- low-entropy anchors: their own sample, one copy and HASHPILOT_HOME per target
    low = drawLowEntropy();
    low.targets.forEach((tg, i) => {
      tg.index = i;
      tg.copy = path.join("low-entropy", String(i + 1), tg.rel);
      fs.mkdirSync(path.dirname(path.join(proj, tg.copy)), { recursive: true });
      fs.copyFileSync(path.join(CORPUS, tg.rel), path.join(proj, tg.copy));
    });
    process.stderr.write(`low-entropy anchors: ${low.targets.length} targets x ${LOW_VARIANTS.length} routes/pins x ${LOW_SCENARIOS.length} scenarios, ${CONCURRENCY} at a time ...\n`);
    const tLow = performance.now();
    let lowDone = 0;
    lowResults = await pool(low.targets, CONCURRENCY, async (tg) => {
      const r = await runLowTarget(tg, { proj, scratch, home: path.join(tmpRoot, `home-low-${tg.index + 1}`) });
      if (++lowDone % 10 === 0) process.stderr.write(`  ${lowDone}/${low.targets.length} targets\n`);
      return r;
    });
    wallLow = performance.now() - tLow;

    // ----- crash run
    process.stderr.write(`crash run: ${CRASH_RUNS} replace-hash runs SIGKILLed 0-${KILL_MAX_MS} ms after taking the lock, ${CRASH_LANES} lanes ...\n`);
    const t1 = performance.now();
    lanes = crashLanes(proj, tmpRoot);
    const perLane = lanes.map((_, i) => Math.floor(CRASH_RUNS / CRASH_LANES) + (i < CRASH_RUNS % CRASH_LANES ? 1 : 0));
    crash = await Promise.all(lanes.map((lane, i) => crashLane(lane, perLane[i], lane.rand)));
    wallCrash = performance.now() - t1;
  } finally {
    cleanup();
  }
  env.loadavg_at_end = loadavg();

  // ----- figures
  const cases = results.flatMap((r) => r.cases.map((c) => ({ ...c, file: r.file, kind: r.kind, describe: r.describe, eol: r.eol, bom: r.bom })));
  const by = (f) => cases.filter(f);
  const table = {};
  for (const s of SCENARIOS) for (const route of ROUTES) table[`${s}|${route}`] = tally(by((c) => c.scenario === s && c.route === route));
  const totals = tally(cases);
  const perRoute = Object.fromEntries(ROUTES.map((route) => [route, tally(by((c) => c.route === route))]));
  const shiftRate = Object.fromEntries(
    ROUTES.map((route) => {
      const s = table[`shift|${route}`];
      return [route, s.cases ? s.relocated / s.cases : null];
    }),
  );
  const shiftBuckets = Object.fromEntries(
    ROUTES.map((route) => {
      const xs = by((c) => c.scenario === "shift" && c.route === route);
      const small = xs.filter((c) => c.info.lines_inserted <= FUZZY_BUCKET);
      const large = xs.filter((c) => c.info.lines_inserted > FUZZY_BUCKET);
      return [route, { [`<=${FUZZY_BUCKET}`]: tally(small), [`>${FUZZY_BUCKET}`]: tally(large) }];
    }),
  );
  const placements = [...new Set(by((c) => c.scenario === "duplicate").map((c) => c.info.placement))].sort();
  const dupByPlacement = Object.fromEntries(
    ROUTES.map((route) => [route, Object.fromEntries(placements.map((pl) => [pl, tally(by((c) => c.scenario === "duplicate" && c.route === route && c.info.placement === pl))]))]),
  );
  const controlByKind = Object.fromEntries(KINDS.map((k) => [k, Object.fromEntries(ROUTES.map((route) => [route, tally(by((c) => c.scenario === "none" && c.route === route && c.kind === k))]))]));
  const endings = Object.fromEntries(["LF", "CRLF"].flatMap((e) => [false, true].map((b) => [`${e}${b ? "+BOM" : ""}`, tally(by((c) => c.eol === e && c.bom === b))])).filter(([, t]) => t.cases > 0));
  const undos = results.flatMap((r) => r.undo);
  const undoOk = undos.filter((u) => u.exit === 0 && u.restored).length;
  const unreported = by((c) => c.outcome === "relocated" && c.relocation_reported === false);
  const misreported = by((c) => c.outcome === "applied" && c.relocation_reported === true);
  const disagreements = by((c) => c.ok_agrees === false);
  const harness = results.flatMap((r) => r.harness_errors.map((e) => `${r.file}: ${e}`));
  const hashDisagreements = results.filter((r) => r.hash_disagreement).length;
  const errorCodes = {};
  for (const c of cases) if (c.exit !== 0) errorCodes[`${c.route} ${c.error_code ?? `exit ${c.exit}`}`] = (errorCodes[`${c.route} ${c.error_code ?? `exit ${c.exit}`}`] ?? 0) + 1;

  const crashTotals = {
    runs: crash.reduce((a, l) => a + l.runs, 0),
    killed: crash.reduce((a, l) => a + l.killed, 0),
    completed_before_kill: crash.reduce((a, l) => a + l.completed, 0),
    refused: crash.flatMap((l) => l.refused.map((f) => ({ file: l.file, ...f }))),
    inconsistent: crash.flatMap((l) => l.inconsistent.map((f) => ({ file: l.file, ...f }))),
    old: crash.reduce((a, l) => a + l.old, 0),
    new: crash.reduce((a, l) => a + l.new, 0),
    torn: crash.flatMap((l) => l.torn.map((t) => ({ file: l.file, ...t }))),
    temps_left_by_kill: crash.reduce((a, l) => a + l.temps_left_by_kill, 0),
    cleanups: crash.flatMap((l) => l.cleanups.map((c) => ({ file: l.file, ...c }))),
    slow_locks: crash.flatMap((l) => l.slow_locks.map((x) => ({ file: l.file, ...x }))),
  };
  const tempsRemaining = crashTotals.cleanups.filter((c) => c.landed && c.temps_remaining.length > 0).length;
  const plantedRemoved = crash.filter((l) => l.planted_orphan?.removed).length;
  const cleanupFailed = crashTotals.cleanups.filter((c) => !c.landed).length;

  const timing = {};
  for (const label of [...new Set(calls.map((c) => c.command))]) {
    const xs = calls.filter((c) => c.command === label).map((c) => c.ms);
    timing[label] = roundStats(stats(xs));
  }
  const lockMs = crash.flatMap((l) => l.ms_to_lock);
  const lockToExit = crash.flatMap((l) => l.ms_lock_to_exit);

  // low-entropy figures
  const lowKinds = Object.keys(LOW_KINDS);
  const lowCases = lowResults.flatMap((r) => r.cases.map((c) => ({ ...c, file: r.file, line: r.line, kind: r.kind, text: r.text, occurrences: r.occurrences, period: r.period })));
  const lowBy = (f) => lowCases.filter(f);
  const lowTally = (xs) => ({ ...tally(xs), certain: xs.filter((c) => c.certain && c.scenario !== "edited").length });
  const lowTable = {};
  for (const s of LOW_SCENARIOS) for (const v of LOW_VARIANTS) lowTable[`${s}|${v.name}`] = lowTally(lowBy((c) => c.scenario === s && c.variant === v.name));
  const lowByVariant = Object.fromEntries(LOW_VARIANTS.map((v) => [v.name, lowTally(lowBy((c) => c.variant === v.name))]));
  const lowByKind = Object.fromEntries(lowKinds.map((k) => [k, lowTally(lowBy((c) => c.kind === k))]));
  const lowTotals = lowTally(lowCases);
  const lowShift = {
    ...Object.fromEntries([1, 2, 3].map((k) => [`${k} line(s)`, lowTally(lowBy((c) => c.scenario === "shift" && c.info.lines_inserted === k))])),
    "period p": lowTally(lowBy((c) => c.scenario === "shift_period")),
  };
  const lowCodes = {};
  for (const c of lowCases) if (c.exit !== 0) lowCodes[`${c.route} ${c.error_code ?? `exit ${c.exit}`}`] = (lowCodes[`${c.route} ${c.error_code ?? `exit ${c.exit}`}`] ?? 0) + 1;
  const lowFalseUnchanged = lowBy((c) => c.outcome === "false_refusal" && c.scenario === "none" && c.certain === "file hash").length;
  // edited: writes where nothing told the copy from the target (its text, or its hunk, in one place once the target changed)
  const lowEditedWrites = lowBy((c) => c.scenario === "edited" && c.outcome === "corruption");
  // ... of which the context pin was given and its context is nowhere in the file (the pin contradicts every copy)
  const lowEditedContradicted = lowEditedWrites.filter((c) => c.variant.includes("ctx") && c.context_copies === 0);
  // ... and the others: the anchor's text, its context or the hunk left in exactly one place (a repeated block, or the one other copy)
  const lowEditedLone = lowEditedWrites.filter((c) => !lowEditedContradicted.includes(c) && c.certain !== null);
  const lowWarned = lowResults.filter((r) => r.read?.warned).length;
  const lowRead = lowResults.filter((r) => r.read).length;
  const lowHarness = lowResults.flatMap((r) => r.harness_errors.map((e) => `${r.file}:${r.line}: ${e}`));
  const lowCandidatesMissed = lowBy((c) => c.candidates_include_target === false);
  const lowUnreported = lowBy((c) => c.outcome === "relocated" && c.relocation_reported === false);
  const lowMisreported = lowBy((c) => c.outcome === "applied" && c.relocation_reported === true);
  const lowDisagree = lowBy((c) => c.ok_agrees === false);
  const lowStat = (xs) => (xs.length ? `median ${median(xs)} (${Math.min(...xs)}-${Math.max(...xs)})` : "n/a");

  const targets = [
    { name: "silent corruptions (all routes and scenarios)", target: `= ${TARGETS.corruptions}`, value: totals.corruption, pass: totals.corruption <= TARGETS.corruptions },
    ...ROUTES.map((route) => ({
      name: `shift-only relocated correctly, ${route}`,
      target: `>= ${TARGETS.shift_relocated * 100}%`,
      value: shiftRate[route] === null ? null : round(shiftRate[route] * 100, 1),
      pass: shiftRate[route] === null ? null : shiftRate[route] >= TARGETS.shift_relocated,
    })),
    {
      name: "low-entropy: silent wrong-line edits (corruptions)",
      target: `= ${LOW_TARGETS.corruptions}`,
      value: lowTotals.corruption,
      pass: lowCases.length ? lowTotals.corruption <= LOW_TARGETS.corruptions : null,
    },
    {
      name: "low-entropy: false refusals (certain cases)",
      target: `= ${LOW_TARGETS.false_refusals}`,
      value: lowTotals.false_refusal,
      pass: lowCases.length ? lowTotals.false_refusal <= LOW_TARGETS.false_refusals : null,
    },
    { name: "torn files after SIGKILL", target: `= ${TARGETS.torn}`, value: crashTotals.torn.length, pass: crashTotals.torn.length <= TARGETS.torn },
    { name: "temp files left after the next successful edit", target: `= ${TARGETS.temp_left_after_next_edit}`, value: tempsRemaining, pass: tempsRemaining <= TARGETS.temp_left_after_next_edit },
  ];

  const notes = [];
  const controls = by((c) => c.scenario === "none");
  const controlOk = controls.filter((c) => c.exit === 0).length;
  const failedToRun = controlOk === 0 || crashTotals.runs === 0;
  if (failedToRun) notes.push("no unperturbed edit succeeded (or the crash run did not run): hashpilot is not working; the figures measure its error path");
  if (harness.length) notes.push(`${harness.length} unexpected answer(s) (usage/internal errors, failed reads or generates), e.g. ${harness[0]}`);
  if (hashDisagreements) notes.push(`read-hash's contextHash disagreed with sha256(lines joined by "\\n") for ${hashDisagreements} file(s)`);
  if (disagreements.length) notes.push(`${disagreements.length} answer(s) whose envelope ok disagreed with the exit code`);
  if (unreported.length) notes.push(`${unreported.length} edit(s) landed on a moved target without reporting a relocation (relocatedTo / fuzzyPlacements)`);
  if (misreported.length) notes.push(`${misreported.length} edit(s) on an unmoved target reported a relocation`);
  if (crashTotals.slow_locks.length) {
    const held = crashTotals.slow_locks.filter((x) => x.error_code === "LOCK_HELD").length;
    const before = crashTotals.slow_locks.map((x) => x.previous_run?.delay_ms).filter((d) => d !== undefined && d !== null);
    notes.push(
      `${crashTotals.slow_locks.length} crash run(s) found the file locked by the run killed before them for over ${SLOW_LOCK_MS / 1000} s (${held} gave up with LOCK_HELD, exit 3); ` +
        `those kills came ${before.length ? `${fmt(Math.min(...before), 1)}-${fmt(Math.max(...before), 1)} ms` : "?"} after the lock was taken. ` +
        "A dead holder's lock is broken after 1 s only when its marker names it; a kill after the lock is taken but before the pid is recorded, " +
        "or after the marker is cleared at release but before the lock is removed, leaves a lock that is waited out until stale (10 s), which the next edit waits out (its lock timeout is 2 s longer than the staleness)",
    );
  }
  if (crashTotals.inconsistent.length)
    notes.push(`${crashTotals.inconsistent.length} crash-lane edit(s) not killed left the file inconsistent with their exit code, e.g. ${JSON.stringify(crashTotals.inconsistent[0])}`);
  if (cleanupFailed)
    notes.push(`${cleanupFailed} unkilled crash-lane edit(s) did not land (after up to ${CLEAN_ATTEMPTS} attempts): ${JSON.stringify(crashTotals.cleanups.filter((c) => !c.landed)[0])}`);
  const retried = crashTotals.cleanups.filter((c) => c.refused_first.length).length;
  if (retried) notes.push(`${retried} unkilled crash-lane edit(s) gave up with LOCK_HELD first and were run again`);
  if (lowHarness.length) notes.push(`low-entropy: ${lowHarness.length} unexpected answer(s) (failed reads or generates, hash disagreements, odd exit codes), e.g. ${lowHarness[0]}`);
  if (lowRead - lowWarned) notes.push(`low-entropy: read-hash gave no ANCHOR_NOT_UNIQUE warning for ${lowRead - lowWarned} of ${lowRead} targets whose text occurs 2+ times`);
  if (lowCandidatesMissed.length)
    notes.push(`low-entropy: ${lowCandidatesMissed.length} AMBIGUOUS_ANCHOR refusal(s) whose complete candidate list left out the real target, e.g. ${JSON.stringify(lowCandidatesMissed[0])}`);
  if (lowUnreported.length) notes.push(`low-entropy: ${lowUnreported.length} edit(s) landed on a moved target without reporting a relocation`);
  if (lowMisreported.length) notes.push(`low-entropy: ${lowMisreported.length} edit(s) on an unmoved target reported a relocation`);
  if (lowDisagree.length) notes.push(`low-entropy: ${lowDisagree.length} answer(s) whose envelope ok disagreed with the exit code`);
  if (!lowKinds.every((k) => low.targets.some((t) => t.kind === k)))
    notes.push(`low-entropy: no target of kind ${lowKinds.filter((k) => !low.targets.some((t) => t.kind === k)).join(", ")}: no such line occurs twice in a file of the eligible corpus`);
  if (drawn.tasks.length < SAMPLE_FILES) notes.push(`only ${drawn.tasks.length} files offered a task (wanted ${SAMPLE_FILES})`);
  notes.push(...buildNotes(env, distAtStart));

  // ----- print
  const L = [];
  const cols = ["cases", "applied", "relocated", "refused", "false_refusal", "corruption", "wrong_refusal"];
  const head = (first, w = 24) =>
    `  ${pad(first, w)}${pad("route", 14)}${cols.map((c, i) => lpad(["cases", "applied", "relocated", "refused", "false ref.", "corrupt", "wrong ref."][i], 11)).join("")}`;
  const row = (first, route, t, w = 24) => `  ${pad(first, w)}${pad(route, 14)}${cols.map((c) => lpad(t[c], 11)).join("")}`;
  L.push(`mast edit-safety bench — ${env.date}`);
  L.push(`machine: nproc ${env.nproc}, ${env.cpu}, ${env.total_mem_gb} GiB, ${env.platform}, node ${env.node}, typescript ${ts.version}`);
  L.push(`mast ${env.mast_commit ?? "?"}${env.src_modified ? " (src/ modified)" : ""}, dist built ${env.mast_dist_built}`);
  L.push(`load average (1/5/15 min): start ${env.loadavg_at_start.join(" ")}, end ${env.loadavg_at_end.join(" ")}`);
  L.push("");
  const eols = results.reduce((a, r) => ((a[`${r.eol}${r.bom ? "+BOM" : ""}`] = (a[`${r.eol}${r.bom ? "+BOM" : ""}`] ?? 0) + 1), a), {});
  const eolList = Object.entries(eols)
    .map(([k, v]) => `${v} ${k}`)
    .join(", ");
  L.push(
    `corpus: ${path.relative(REPO, CORPUS)}/ (${fetched.downloaded ? "downloaded now" : "cached, stamp matches"}); sample (seed 0x${SEED.toString(16)}): ${drawn.tasks.length} .ts files (${eolList}), ${drawn.skipped} drawn files offered no task`,
  );
  const bodies = drawn.tasks.filter((t) => t.body).length;
  L.push(
    `tasks: ${KINDS.map((k) => `${drawn.tasks.filter((t) => t.kind === k).length} ${k}`).join(", ")}; replace-hash anchors: ${drawn.tasks.length - bodies} read with read-hash -c, ${bodies} body ranges hashed here`,
  );
  L.push(
    `every hashpilot process: temp HASHPILOT_HOME (one per file), cwd = temp project with .git; ${calls.length} processes; tasks ${fmt(wallTasks / 1000, 1)} s wall, low-entropy ${fmt(wallLow / 1000, 1)} s, crash run ${fmt(wallCrash / 1000, 1)} s`,
  );
  L.push("");
  L.push("unperturbed edits and undo");
  L.push(head("mutation kind"));
  for (const k of KINDS) for (const route of ROUTES) L.push(row(k, route, controlByKind[k][route]));
  L.push(`  undo --last after each successful unperturbed edit: ${undoOk}/${undos.length} restored the bytes before the edit`);
  L.push(
    `  by line endings (all scenarios): ${Object.entries(endings)
      .map(([k, t]) => `${k} ${t.cases} cases, ${t.corruption} corrupt, ${t.false_refusal} false ref.`)
      .join("; ")}`,
  );
  L.push("");
  L.push("perturbations (anchor/patch computed on the original, the file changed, then the edit run)");
  L.push(head("perturbation"));
  for (const s of SCENARIOS) for (const route of ROUTES) L.push(row(s === "none" ? "none (control)" : s, route, table[`${s}|${route}`]));
  L.push(row("total", "both", totals));
  for (const route of ROUTES) L.push(row("total", route, perRoute[route]));
  L.push("");
  L.push(`shift by lines inserted (diff apply runs without --fuzzy; the contract documents a default of ${FUZZY_BUCKET})`);
  for (const route of ROUTES) for (const [b, t] of Object.entries(shiftBuckets[route])) L.push(row(`  ${b} lines`, route, t));
  L.push("duplicate by where the copy went");
  for (const route of ROUTES) for (const pl of placements) L.push(row(`  ${pl}`, route, dupByPlacement[route][pl]));
  L.push(
    `refusal codes: ${
      Object.entries(errorCodes)
        .sort()
        .map(([k, v]) => `${k} ${v}`)
        .join(", ") || "none"
    }`,
  );
  L.push("");
  if (!cases.some((c) => ["corruption", "wrong_refusal", "false_refusal"].includes(c.outcome))) L.push("corruptions, wrong refusals, false refusals: none");
  for (const outcome of ["corruption", "wrong_refusal", "false_refusal"]) {
    const bad = cases.filter((c) => c.outcome === outcome);
    if (bad.length === 0) continue;
    L.push(`${outcome.replace("_", " ")}s: ${bad.length}${bad.length > LIST_LIMIT / 2 ? ` (first ${LIST_LIMIT / 2} shown; all in the JSON)` : ""}`);
    for (const c of bad.slice(0, LIST_LIMIT / 2)) {
      const reported = c.relocation_reported === null ? "" : `, relocation ${c.relocation_reported ? "reported" : "not reported"}`;
      L.push(
        `  ${c.route}  ${c.scenario}  ${c.file} (${c.describe}${c.eol === "CRLF" ? ", CRLF" : ""}${c.bom ? ", BOM" : ""})  exit ${c.exit}${c.error_code ? ` ${c.error_code}` : ""}${reported}${c.info ? `  ${JSON.stringify(c.info)}` : ""}`,
      );
      if (c.difference) L.push(`      first difference: ${JSON.stringify(c.difference)}`);
      else if (c.message) L.push(`      ${c.message.slice(0, 200)}`);
    }
  }
  L.push("");
  // low-entropy anchors
  const kindCount = (k) => low.targets.filter((t) => t.kind === k).length;
  L.push(
    `low-entropy anchors (seed 0x${LOW_SEED.toString(16)}): ${low.targets.length} targets, one per file, lines whose text occurs 2+ times in the file; edit: the line + " // edited" (a blank line: "// edited")`,
  );
  L.push(`  targets by kind: ${lowKinds.map((k) => `${k} ${kindCount(k)}`).join(", ")} (at most ${LOW_PER_KIND} each)`);
  L.push(`  such lines with an earlier copy in the ${low.files} eligible files: ${lowKinds.map((k) => `${k} ${low.candidates[k]} (${low.files_offering[k]} files)`).join(", ")}`);
  L.push(`  copies of the target's text in its file: ${lowStat(low.targets.map((t) => t.occurrences))}; repeat period (lines back to the previous copy): ${lowStat(low.targets.map((t) => t.period))}`);
  L.push(`  read-hash -c ${LOW_CONTEXT} warned ANCHOR_NOT_UNIQUE: ${lowWarned}/${lowRead} (misses ${lowRead - lowWarned}); ${lowCases.length} edits, ${fmt(wallLow / 1000, 1)} s wall`);
  L.push(
    "  pins: line = lineHash + --range; file = --file-hash of the read; ctx = its --context-hash/--context-range; diff -c0 / -c3 = patch context; certain = cases the pins given decide (computed here)",
  );
  L.push("  shift: 1, 2 or 3 lines at the top (by target); shift_period: the repeat period, so the previous copy lands on the target's line");
  const lowCols = ["certain", "cases", "applied", "relocated", "refused", "false_refusal", "corruption", "wrong_refusal"];
  const lowHead = `  ${pad("scenario", 16)}${pad("route + pins", 28)}${["certain", "cases", "applied", "relocated", "refused", "false ref.", "corrupt", "wrong ref."].map((h) => lpad(h, 11)).join("")}`;
  const lowRow = (first, second, t) => `  ${pad(first, 16)}${pad(second, 28)}${lowCols.map((c) => lpad(t[c], 11)).join("")}`;
  L.push(lowHead);
  for (const sc of LOW_SCENARIOS) for (const v of LOW_VARIANTS) L.push(lowRow(sc === "none" ? "none (control)" : sc, v.name, lowTable[`${sc}|${v.name}`]));
  for (const v of LOW_VARIANTS) L.push(lowRow("total", v.name, lowByVariant[v.name]));
  L.push(lowRow("total", "all", lowTotals));
  L.push("  by kind (all routes, pins and scenarios)");
  for (const k of lowKinds) if (kindCount(k)) L.push(lowRow(`  ${k}`, "all", lowByKind[k]));
  L.push("  shift by lines inserted (all routes and pins)");
  for (const [b, t] of Object.entries(lowShift)) L.push(lowRow(`  ${b}`, "all", t));
  L.push(
    `  refusal codes: ${
      Object.entries(lowCodes)
        .sort()
        .map(([k, v]) => `${k} ${v}`)
        .join(", ") || "none"
    }`,
  );
  L.push(
    `  summary: ${low.targets.length} targets, ${lowCases.length} edits: silent wrong-line edits (corruptions) ${lowTotals.corruption}` +
      `${lowEditedWrites.length ? ` (all ${lowEditedWrites.length === lowTotals.corruption ? "" : `but ${lowTotals.corruption - lowEditedWrites.length} `}in edited: ${lowEditedContradicted.length} with the context pin given and its context nowhere in the file, ${lowEditedLone.length} where the anchor's text, context or hunk was left in exactly one place, ${lowEditedWrites.length - lowEditedContradicted.length - lowEditedLone.length} other)` : ""}, ` +
      `false refusals ${lowTotals.false_refusal} (${lowFalseUnchanged} with the file unchanged and --file-hash given) — ${verdict(lowTotals.corruption <= LOW_TARGETS.corruptions && lowTotals.false_refusal <= LOW_TARGETS.false_refusals)}`,
  );
  for (const outcome of ["corruption", "false_refusal", "wrong_refusal"]) {
    // corruptions outside edited first, then writes against a contradicted context pin
    const rank = (c) => (c.scenario !== "edited" ? 0 : lowEditedContradicted.includes(c) ? 1 : 2);
    const bad = lowBy((c) => c.outcome === outcome).sort((a, b) => rank(a) - rank(b));
    if (bad.length === 0) continue;
    L.push(`  ${outcome.replace("_", " ")}s: ${bad.length}${bad.length > LIST_LIMIT / 2 ? ` (first ${LIST_LIMIT / 2} shown; all in the JSON)` : ""}`);
    for (const c of bad.slice(0, LIST_LIMIT / 2)) {
      L.push(
        `    ${c.variant}  ${c.scenario}  ${c.file}:${c.line} (${c.kind}, ${c.occurrences} copies, period ${c.period}${c.certain ? `, ${c.scenario === "edited" ? "left in one place" : "certain"}: ${c.certain}` : ""}, context copies ${c.context_copies})  exit ${c.exit}${c.error_code ? ` ${c.error_code}` : ""}${c.info ? `  ${JSON.stringify(c.info)}` : ""}`,
      );
      if (c.difference) L.push(`        first difference: ${JSON.stringify(c.difference)}`);
      if (c.message) L.push(`        ${c.message.slice(0, 200)}`);
    }
  }
  L.push("");
  L.push(`crash run (seed 0x${CRASH_SEED.toString(16)}): ${crashTotals.runs} replace-hash runs on ${lanes.length} files, SIGKILL 0-${KILL_MAX_MS} ms after the edit took the file's lock`);
  for (const l of crash)
    L.push(
      `  ${pad(l.file, 70)}${lpad(`${Math.round(l.bytes / 1000)} KB`, 8)} ${pad(l.eol, 5)} runs ${lpad(l.runs, 3)}  old ${lpad(l.old, 3)}  new ${lpad(l.new, 3)}  torn ${l.torn.length}  temp left ${l.temps_left_by_kill}`,
    );
  const refusedCodes = Object.entries(crashTotals.refused.reduce((a, x) => ((a[x.error_code ?? `exit ${x.exit}`] = (a[x.error_code ?? `exit ${x.exit}`] ?? 0) + 1), a), {}));
  const refusedList = refusedCodes.length ? ` (${refusedCodes.map(([k, v]) => `${k} ${v}`).join(", ")})` : "";
  L.push(`  killed ${crashTotals.killed}, finished before the kill ${crashTotals.completed_before_kill}, refused before the kill ${crashTotals.refused.length}${refusedList}`);
  const tornKinds = `empty ${crashTotals.torn.filter((t) => t.empty).length}, missing ${crashTotals.torn.filter((t) => t.missing).length}`;
  L.push(`  file afterwards: old ${crashTotals.old}, new ${crashTotals.new}, torn ${crashTotals.torn.length} (${tornKinds}); exit code and file disagreeing: ${crashTotals.inconsistent.length}`);
  L.push(`  temp files left by a kill: ${crashTotals.temps_left_by_kill}; planted orphans (named for a killed run's pid) removed by the next edit: ${plantedRemoved}/${crash.length}`);
  L.push(`  temp files still there after the next successful edit: ${tempsRemaining} (${crashTotals.cleanups.length} unkilled edits, ${crashTotals.cleanups.length - cleanupFailed} landed)`);
  const ms = (xs, f) => fmt(xs.length ? f(xs) : null, 0);
  L.push(`  spawn -> lock taken: median ${ms(lockMs, median)} ms (max ${ms(lockMs, (xs) => Math.max(...xs))} ms); lock -> exit when not killed: median ${ms(lockToExit, median)} ms`);
  L.push("");
  L.push(`timings: wall ms per hashpilot process (${CONCURRENCY} at a time during the tasks, ${CRASH_LANES} lanes in the crash run, where a run includes its wait for the lock)`);
  L.push(`  ${pad("command", 40)}${lpad("calls", 7)}${lpad("median", 9)}${lpad("p95", 9)}${lpad("max", 9)}`);
  for (const [label, s] of Object.entries(timing)) L.push(`  ${pad(label, 40)}${lpad(s.n, 7)}${lpad(fmt(s.p50, 0), 9)}${lpad(fmt(s.p95, 0), 9)}${lpad(fmt(s.max, 0), 9)}`);
  L.push("");
  L.push("targets");
  for (const x of targets) L.push(`  ${verdict(x.pass)}  ${pad(x.name, 50)}${pad(x.target, 10)}${lpad(x.value === null ? "n/a" : x.value, 8)}`);

  // ----- JSON
  publish(L, notes, OUT_JSON, {
    environment: env,
    dist_stamp: { at_start: new Date(distAtStart).toISOString(), at_end: new Date(distStamp()).toISOString() },
    settings: {
      seed: SEED,
      crash_seed: CRASH_SEED,
      sample_files: SAMPLE_FILES,
      crlf_files: CRLF_FILES,
      bom_files: BOM_FILES,
      min_lines: MIN_LINES,
      max_bytes: MAX_BYTES,
      concurrency: CONCURRENCY,
      anchor_context: { min: MIN_CONTEXT, max: MAX_CONTEXT },
      diff_apply_fuzzy: "none passed (the tool's default)",
      crash_runs: CRASH_RUNS,
      crash_lanes: CRASH_LANES,
      kill_delay_ms: `0-${KILL_MAX_MS} after the lock is taken`,
      percentile: "nearest-rank",
    },
    sample: results.map((r, i) => {
      const { cases: _cases, ...rest } = r;
      return { ...rest, task: { edit: drawn.tasks[i].edit, target: drawn.tasks[i].target } };
    }),
    outcomes: {
      totals,
      per_route: perRoute,
      by_scenario_and_route: table,
      control_by_kind: controlByKind,
      shift_by_lines_inserted: shiftBuckets,
      duplicate_by_placement: dupByPlacement,
      by_line_endings: endings,
      refusal_codes: errorCodes,
    },
    undo: { runs: undos.length, restored: undoOk, failures: undos.filter((u) => !(u.exit === 0 && u.restored)) },
    cases,
    low_entropy: {
      settings: { seed: LOW_SEED, per_kind: LOW_PER_KIND, read_context: LOW_CONTEXT, far_lines: LOW_FAR, scenarios: LOW_SCENARIOS, variants: LOW_VARIANTS },
      eligible_files: low.files,
      candidates_by_kind: low.candidates,
      files_offering_kind: low.files_offering,
      targets_by_kind: Object.fromEntries(lowKinds.map((k) => [k, kindCount(k)])),
      targets: lowResults.map(({ cases: _cases, ...rest }) => rest),
      anchor_not_unique: { read: lowRead, warned: lowWarned, misses: lowRead - lowWarned },
      outcomes: { totals: lowTotals, by_variant: lowByVariant, by_scenario_and_variant: lowTable, by_kind: lowByKind, shift_by_lines_inserted: lowShift, refusal_codes: lowCodes },
      corruptions: lowTotals.corruption,
      corruptions_in_edited: { total: lowEditedWrites.length, context_pin_contradicted: lowEditedContradicted.length, one_copy_left: lowEditedLone.length },
      false_refusals: lowTotals.false_refusal,
      false_refusals_file_unchanged_with_file_hash: lowFalseUnchanged,
      cases: lowCases,
    },
    crash: {
      totals: { ...crashTotals, temps_remaining_after_next_edit: tempsRemaining },
      lanes: crash.map((l, i) => ({ ...l, corpus: lanes[i].corpus, range: lanes[i].range, ms_to_lock: roundStats(stats(l.ms_to_lock)), ms_lock_to_exit: roundStats(stats(l.ms_lock_to_exit)) })),
    },
    timings_ms: timing,
    wall_ms: { tasks: round(wallTasks), low_entropy: round(wallLow), crash: round(wallCrash) },
    targets,
    notes,
  });
  return failedToRun ? 1 : 0;
}

await runBench(main);
