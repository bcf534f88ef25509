#!/usr/bin/env node
// intent-rename bench: `hashpilot intent rename-exported-symbol` on a seeded sample of exported
// functions and methods of the pinned TypeScript corpus (bench/corpus.mjs: published sources of
// zod, hono and others), each in a fresh git checkout of a copy of it, judged by the TypeScript
// compiler — beside a baseline, the word-boundary text rename (`rg -w` + replace) of the same name.
//
//   npm run build && npm run bench:intent
//
// 1. The corpus is copied to a temp directory, committed to git and indexed (`mast init`).
// 2. The population: exported `function` and `method` symbols of graph.db with a plain name; a
//    seeded shuffle (mulberry32, SEED) draws SAMPLE of them, each renamed to `<name>Renamed`.
// 3. Ground truth: one ts.LanguageService over every corpus .ts/.tsx file (the options of
//    callers-accuracy.mjs): findRenameLocations at the declaration's name (no strings, no
//    comments, no prefix/suffix text) gives every span a correct rename edits.
// 4. mast: `hashpilot intent '{"operation":"rename-exported-symbol",…}' --no-verify` per symbol;
//    the spans it edited are read back from the files (the tokens that changed). Refusals are
//    counted by reason. After every run — done, refused or failed — `git status` must show no
//    file modified except by a completed rename ("left modified" must be 0); the tree is reset.
// 5. Type check after each completed rename: the compiler's diagnostics of the files that name the
//    old or the new name, against the same files before: "clean" = no new error.
// 6. Baseline: every whole-word occurrence of the name in corpus files (what `rg -w` finds and a
//    replace-all edits), scored the same way, and type-checked the same way.
//
// A report, not a test: exits 0 whatever the figures. Figures go to bench/.out/intent-rename.json.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import ts from "typescript";
import { COMPILER_OPTIONS, corpusLanguageService } from "./ts-host.mjs";
import { BenchError, CORPUS, DIST, MAST, OUT_DIR, benchEnvironment, buildNotes, distStamp, ensureCorpus, fmt, listFiles, missingBuild, pad, prng, publish, round, runBench, shuffled } from "./corpus.mjs";

const SEED = 0x72656e61; // "rena"
const SAMPLE = 45;
const HASHPILOT = path.join(DIST, "bin", "hashpilot.js");
const IDENT = /^[A-Za-z_$][\w$]*$/;
const TOKEN = /[A-Za-z_$#][\w$]*/g;
const posix = (p) => p.split(path.sep).join("/");


function git(root, ...args) {
  const r = spawnSync("git", ["-c", "user.email=bench@mast", "-c", "user.name=bench", ...args], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new BenchError(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

/** The declaration's name position: the identifier `member` on `line` or the next few. */
function namePosition(program, root, file, line, member) {
  const sf = program.getSourceFile(path.join(root, file));
  if (!sf) return null;
  const starts = sf.getLineStarts();
  const from = starts[line - 1];
  const to = starts[line + 6] ?? sf.text.length;
  let found = null;
  const visit = (node) => {
    if (found !== null || node.end < from || node.pos > to) return;
    const declares = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isVariableDeclaration(node) || ts.isMethodSignature(node) || ts.isPropertyDeclaration(node) || ts.isPropertySignature(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) || ts.isPropertyAssignment(node);
    if (node.name && ts.isIdentifier(node.name) && node.name.text === member && declares) {
      const start = node.name.getStart(sf);
      if (start >= from && start < to) found = start;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** `file:line:col` of each span, 1-based line, 0-based column. */
function spanKeys(program, root, spans) {
  const out = new Set();
  for (const s of spans) {
    const sf = program.getSourceFile(s.fileName);
    if (!sf || !s.fileName.startsWith(`${root}${path.sep}`)) continue;
    const { line, character } = sf.getLineAndCharacterOfPosition(s.textSpan.start);
    out.add(`${posix(path.relative(root, s.fileName))}:${line + 1}:${character}`);
  }
  return out;
}

/** The tokens that changed between two versions of a file (same line count: a rename), as `file:line:col` of the old text. */
function changedTokens(file, before, after) {
  const out = new Set();
  const a = before.split("\n");
  const b = after.split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    const ta = [...(a[i] ?? "").matchAll(TOKEN)];
    const tb = [...(b[i] ?? "").matchAll(TOKEN)];
    for (let j = 0; j < Math.min(ta.length, tb.length); j++) if (ta[j][0] !== tb[j][0]) out.add(`${file}:${i + 1}:${ta[j].index}`);
  }
  return out;
}

/** Whole-word occurrences of `name` in the tree's files (the rg -w baseline), as `file:line:col`. */
function wordOccurrences(root, files, name) {
  const out = new Set();
  const re = new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`, "g");
  for (const f of files) {
    const text = fs.readFileSync(path.join(root, f), "utf8");
    if (!text.includes(name)) continue;
    text.split("\n").forEach((l, i) => {
      for (const m of l.matchAll(re)) out.add(`${f}:${i + 1}:${m.index}`);
    });
  }
  return out;
}

/** Error diagnostics of files, as `file code message` strings. */
function errorsOf(ls, root, files) {
  const out = new Set();
  for (const f of files) {
    const abs = path.join(root, f);
    for (const d of [...ls.getSyntacticDiagnostics(abs), ...ls.getSemanticDiagnostics(abs)]) {
      if (d.category === ts.DiagnosticCategory.Error) out.add(`${f} TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
    }
  }
  return out;
}

const filesNaming = (root, files, names) => files.filter((f) => names.some((n) => fs.readFileSync(path.join(root, f), "utf8").includes(n)));

/** A refusal's or failure's reason, as its kind. */
function reasonKind(code, reason) {
  const kinds = [
    [/is an interface|is a type:/, "member of an interface or type (implemented elsewhere)"],
    [/ (extends|implements) .*may declare/, "member of a class that extends or implements another type"],
    [/may override/, "member of a class another type extends or implements"],
    [/an access the member rename does not follow/, "member accessed in another file"],
    [/could not be resolved/, "uses the member rename cannot resolve (object keys)"],
    [/namespace re-export/, "a namespace re-export (`export * as ns`)"],
    [/verified call .* is reached by no planned edit/, "a verified call site no planned edit reaches"],
    [/require|dynamic_import/, "a require or dynamic import of the module"],
    [/does not parse/, "a file tree-sitter cannot parse (the AST gate refuses it)"],
  ];
  return kinds.find(([re]) => re.test(reason))?.[1] ?? `${code}: ${reason.slice(0, 80)}`;
}

function score(predicted, truth) {
  let hit = 0;
  for (const k of predicted) if (truth.has(k)) hit++;
  return { hit, predicted: predicted.size, truth: truth.size };
}

async function main() {
  const missing = missingBuild();
  if (missing || !fs.existsSync(HASHPILOT)) throw new BenchError(`${missing ?? "dist/bin/hashpilot.js"} is missing: run \`npm run build\` first`);
  const env = benchEnvironment();
  const distAtStart = distStamp();
  ensureCorpus();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-intent-"));
  const root = path.join(work, "corpus");
  const home = path.join(work, "hashpilot-home");
  try {
    fs.cpSync(CORPUS, root, { recursive: true });
    fs.writeFileSync(path.join(root, ".gitignore"), ".mast/\n");
    git(root, "init", "-q", ".");
    git(root, "add", "-A");
    git(root, "commit", "-qm", "corpus");
    const init = spawnSync(process.execPath, [MAST, "init", root], { encoding: "utf8" });
    if (init.status !== 0) throw new BenchError(`mast init failed: ${init.stderr}`);
    const files = listFiles(root).filter((f) => /\.(ts|tsx)$/.test(f) && !f.startsWith(".mast/")).map(posix);
    const db = new Database(path.join(root, ".mast", "graph.db"), { readonly: true });
    const population = db
      .prepare("SELECT s.name, s.kind, f.path AS file, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method') AND s.is_exported = 1 AND f.path LIKE '%.ts' ORDER BY f.path, s.line, s.name")
      .all()
      // Constructors and default exports have no name a rename changes.
      .filter((s) => IDENT.test(s.name.slice(s.name.lastIndexOf(".") + 1)) && !/(^|\.)(constructor|default)$/.test(s.name));
    db.close();
    const ls = corpusLanguageService(root, files.map((f) => path.join(root, f)), COMPILER_OPTIONS, { live: true });
    const sample = shuffled(population, prng(SEED)).slice(0, SAMPLE);
    const rows = [];
    const totals = { mast: { hit: 0, predicted: 0, truth: 0 }, rg: { hit: 0, predicted: 0, truth: 0 } };
    for (const sym of sample) {
      const member = sym.name.slice(sym.name.lastIndexOf(".") + 1);
      const newName = `${member}Renamed`;
      const program = ls.getProgram();
      const pos = namePosition(program, root, sym.file, sym.line, member);
      const row = { symbol: sym.name, kind: sym.kind, file: sym.file, line: sym.line };
      if (pos === null) {
        rows.push({ ...row, outcome: "unlocated" });
        continue;
      }
      const truth = spanKeys(program, root, ls.findRenameLocations(path.join(root, sym.file), pos, false, false, { providePrefixAndSuffixTextForRename: false }) ?? []);
      const checked = filesNaming(root, files, [member]);
      const before = errorsOf(ls, root, checked);
      const texts = new Map(checked.map((f) => [f, fs.readFileSync(path.join(root, f), "utf8")]));
      // mast
      const intent = JSON.stringify({ operation: "rename-exported-symbol", symbol: sym.name, newName, file: sym.file });
      const r = spawnSync(process.execPath, [HASHPILOT, "intent", intent, "--no-verify"], { cwd: root, encoding: "utf8", env: { ...process.env, HASHPILOT_HOME: home }, maxBuffer: 64 * 1024 * 1024 });
      let envelope = null;
      try {
        envelope = JSON.parse(r.stdout);
      } catch {
        envelope = null;
      }
      const modified = git(root, "status", "--porcelain", "--untracked-files=no").split("\n").filter(Boolean).map((l) => l.slice(3));
      if (r.status === 0) {
        const edited = new Set();
        for (const f of modified) for (const k of changedTokens(f, texts.get(f) ?? git(root, "show", `HEAD:${f}`), fs.readFileSync(path.join(root, f), "utf8"))) edited.add(k);
        const s = score(edited, truth);
        const after = errorsOf(ls, root, filesNaming(root, files, [member, newName]));
        const newErrors = [...after].filter((e) => !before.has(e.replace(newName, member)) && !before.has(e));
        for (const k of Object.keys(s)) totals.mast[k] += s[k];
        rows.push({ ...row, outcome: "renamed", files: modified.length, ...s, type_check_clean: newErrors.length === 0, new_errors: newErrors.slice(0, 3) });
      } else {
        const code = envelope?.error?.code ?? `exit ${r.status}`;
        const reason = envelope?.error?.details?.plan?.unresolved?.[0]?.reason ?? envelope?.error?.message ?? r.stderr.slice(0, 200);
        rows.push({ ...row, outcome: r.status === 1 ? "refused" : "failed", code, reason: reason.replace(/^line \d+: /, ""), left_modified: modified.length });
      }
      git(root, "checkout", "-q", "--", ".");
      // The index follows the reset (the next plan must see the original tree).
      spawnSync(process.execPath, [MAST, "index", root, "--incremental"], { encoding: "utf8" });
      // Baseline: the word-boundary text rename of the same name.
      const words = wordOccurrences(root, files, member);
      const sb = score(words, truth);
      for (const k of Object.keys(sb)) totals.rg[k] += sb[k];
      const last = rows.at(-1);
      last.rg = sb;
      const touched = [...new Set([...words].map((k) => k.slice(0, k.indexOf(":"))))];
      const re = new RegExp(`(?<![\\w$])${member.replace(/\$/g, "\\$")}(?![\\w$])`, "g");
      for (const f of touched) fs.writeFileSync(path.join(root, f), fs.readFileSync(path.join(root, f), "utf8").replace(re, newName));
      const rgAfter = errorsOf(ls, root, filesNaming(root, files, [member, newName]));
      last.rg_type_check_clean = [...rgAfter].filter((e) => !before.has(e.replace(newName, member)) && !before.has(e)).length === 0;
      git(root, "checkout", "-q", "--", ".");
    }
    const renamed = rows.filter((r) => r.outcome === "renamed");
    const refused = rows.filter((r) => r.outcome === "refused");
    const failed = rows.filter((r) => r.outcome === "failed");
    const leftModified = [...refused, ...failed].reduce((n, r) => n + (r.left_modified ?? 0), 0);
    const clean = renamed.filter((r) => r.type_check_clean).length;
    const located = rows.filter((r) => r.outcome !== "unlocated");
    const rgClean = located.filter((r) => r.rg_type_check_clean).length;
    const reasons = {};
    for (const r of [...refused, ...failed]) {
      const key = reasonKind(r.code, r.reason);
      reasons[key] = (reasons[key] ?? 0) + 1;
    }
    const p = (t) => (t.predicted ? t.hit / t.predicted : null);
    const rc = (t) => (t.truth ? t.hit / t.truth : null);
    const lines = [
      `intent-rename bench: ${rows.length} sampled exported functions and methods of the corpus (${files.length} TypeScript files), seed 0x${SEED.toString(16)}`,
      "",
      `${pad("", 34)}${pad("mast intent", 14)}rg -w replace`,
      `${pad("renames completed", 34)}${pad(`${renamed.length} / ${located.length}`, 14)}${located.length} / ${located.length}`,
      `${pad("type check clean after", 34)}${pad(`${clean} / ${renamed.length}`, 14)}${rgClean} / ${located.length}`,
      `${pad("refused (nothing written)", 34)}${pad(String(refused.length), 14)}-`,
      `${pad("failed", 34)}${pad(String(failed.length), 14)}-`,
      `${pad("files left modified (must be 0)", 34)}${pad(String(leftModified), 14)}-`,
      `${pad("edited spans vs findRenameLocations", 34)}${pad(`P ${fmt(p(totals.mast), 3)}`, 14)}P ${fmt(p(totals.rg), 3)}`,
      `${pad("", 34)}${pad(`R ${fmt(rc(totals.mast), 3)}`, 14)}R ${fmt(rc(totals.rg), 3)}`,
      "",
      "refused and failed, by reason",
      ...Object.entries(reasons).sort((a, b) => b[1] - a[1]).map(([k, n]) => `  ${String(n).padStart(3)}  ${k}`),
    ];
    const misses = renamed.filter((r) => r.hit !== r.truth || r.hit !== r.predicted || !r.type_check_clean);
    if (misses.length) lines.push("", "renames that differ from the compiler's", ...misses.map((r) => `  ${r.symbol} (${r.file}:${r.line}): edited ${r.predicted}, compiler ${r.truth}, agree ${r.hit}${r.type_check_clean ? "" : `; new errors: ${r.new_errors.join(" | ").slice(0, 200)}`}`));
    const notes = buildNotes(env, distAtStart);
    publish(lines, notes, path.join(OUT_DIR, "intent-rename.json"), {
      seed: SEED,
      sample: rows.length,
      mast: { completed: renamed.length, type_check_clean: clean, refused: refused.length, failed: failed.length, left_modified: leftModified, precision: round(p(totals.mast)), recall: round(rc(totals.mast)), ...totals.mast },
      rg: { type_check_clean: rgClean, precision: round(p(totals.rg)), recall: round(rc(totals.rg)), ...totals.rg },
      refusals: reasons,
      rows,
    });
    return 0;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await runBench(main);
