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
//
// Python, Go and Rust (issue 32's intent bench per language), the same machinery on the corpora
// of bench/callers-oracle.mjs (bench/corpus.mjs CALLERS_CORPORA), each copied, committed and indexed:
//
//   node bench/intent-rename.mjs --language python|go|rust [--sample N]
//
//   population  exported top-level functions and types (Python def/class; Go func/struct/type/
//               interface; Rust fn/struct/enum/trait/type) with a plain name, outside tests, docs
//               and examples; members (`Type.method`) are counted, not drawn. SAMPLE spread evenly
//               over the language's corpora, the same seeded shuffle; the new name is
//               `<name>_renamed` (Python, Rust) or `<Name>Renamed` (Go: still exported).
//   truth       Python: jedi's get_references at the declaration's name (bench/oracles/py-calls.py
//               --refs); Go: every go/types Defs/Uses identifier of the declared object
//               (bench/oracles/go-calls/main.go -refs); Rust: no analyzer here (rust-analyzer is
//               not installed), so the word occurrences stand in, labelled an upper bound.
//   compile     after each completed rename, against the same check before (a regression only):
//               Python `python3 -m compileall -q` of the copy + importing the declaration's module
//               and every package module naming the old or new name, from the copy; Go `go build
//               ./...` in GOPATH mode (the Debian sources offline: GO111MODULE=off, the copy at its
//               import path under a temp GOPATH before /usr/share/gocode); Rust `rustc --test
//               --emit=metadata` of src/lib.rs with every feature and the Debian registry externs.
//   Figures go to bench/.out/intent-rename-<language>.json.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import ts from "typescript";
import { COMPILER_OPTIONS, corpusLanguageService } from "./ts-host.mjs";
import {
  BenchError,
  CALLERS_CORPORA,
  CORPUS,
  DIST,
  MAST,
  OUT_DIR,
  REPO,
  benchEnvironment,
  buildNotes,
  copyCorpus,
  distStamp,
  ensureCorpus,
  fmt,
  listFiles,
  missingBuild,
  pad,
  prng,
  publish,
  round,
  runBench,
  shuffled,
} from "./corpus.mjs";
import { externFlags, featureFlags } from "./oracles/rust-calls.mjs";

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
    const declares =
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isMethodSignature(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isPropertySignature(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node) ||
      ts.isPropertyAssignment(node);
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

/** `hashpilot intent rename-exported-symbol` of one symbol, unverified: the run, its envelope (null when stdout is no JSON) and the files git sees modified after it. */
function renameOnce(root, home, sym, newName) {
  const intent = JSON.stringify({ operation: "rename-exported-symbol", symbol: sym.name, newName, file: sym.file });
  const r = spawnSync(process.execPath, [HASHPILOT, "intent", intent, "--no-verify"], { cwd: root, encoding: "utf8", env: { ...process.env, HASHPILOT_HOME: home }, maxBuffer: 64 * 1024 * 1024 });
  let envelope = null;
  try {
    envelope = JSON.parse(r.stdout);
  } catch {
    envelope = null;
  }
  const modified = git(root, "status", "--porcelain", "--untracked-files=no")
    .split("\n")
    .filter(Boolean)
    .map((l) => l.slice(3));
  return { r, envelope, modified };
}

/** A refusal's or failure's reason, as its kind (Python, Go and Rust: their messages first). */
function reasonKind(code, reason, language = "typescript") {
  const languageKinds = [
    [/could not be resolved/, "uses in a file the AST rename cannot resolve (not certain there)"],
    [/binds '.*' from more than one import/, "a file binds the name from more than one import"],
    [/its language has no cross-file rename/, "a file of a language without cross-file rename imports it"],
    [/is exported by its spelling/, "the new name would unexport it"],
  ];
  const kinds = [
    ...(language === "typescript" ? [] : languageKinds),
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

async function typescriptMain() {
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
    const files = listFiles(root)
      .filter((f) => /\.(ts|tsx)$/.test(f) && !f.startsWith(".mast/"))
      .map(posix);
    const db = new Database(path.join(root, ".mast", "graph.db"), { readonly: true });
    const population = db
      .prepare(
        "SELECT s.name, s.kind, f.path AS file, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method') AND s.is_exported = 1 AND f.path LIKE '%.ts' ORDER BY f.path, s.line, s.name",
      )
      .all()
      // Constructors and default exports have no name a rename changes.
      .filter((s) => IDENT.test(s.name.slice(s.name.lastIndexOf(".") + 1)) && !/(^|\.)(constructor|default)$/.test(s.name));
    db.close();
    const ls = corpusLanguageService(
      root,
      files.map((f) => path.join(root, f)),
      COMPILER_OPTIONS,
      { live: true },
    );
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
      const { r, envelope, modified } = renameOnce(root, home, sym, newName);
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
      ...Object.entries(reasons)
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `  ${String(n).padStart(3)}  ${k}`),
    ];
    const misses = renamed.filter((r) => r.hit !== r.truth || r.hit !== r.predicted || !r.type_check_clean);
    if (misses.length)
      lines.push(
        "",
        "renames that differ from the compiler's",
        ...misses.map(
          (r) =>
            `  ${r.symbol} (${r.file}:${r.line}): edited ${r.predicted}, compiler ${r.truth}, agree ${r.hit}${r.type_check_clean ? "" : `; new errors: ${r.new_errors.join(" | ").slice(0, 200)}`}`,
        ),
      );
    const notes = buildNotes(env, distAtStart);
    publish(lines, notes, path.join(OUT_DIR, "intent-rename.json"), {
      seed: SEED,
      sample: rows.length,
      mast: {
        completed: renamed.length,
        type_check_clean: clean,
        refused: refused.length,
        failed: failed.length,
        left_modified: leftModified,
        precision: round(p(totals.mast)),
        recall: round(rc(totals.mast)),
        ...totals.mast,
      },
      rg: { type_check_clean: rgClean, precision: round(p(totals.rg)), recall: round(rc(totals.rg)), ...totals.rg },
      refusals: reasons,
      rows,
    });
    return 0;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Python, Go, Rust

const LANG_SAMPLE = 24;

/** A declaration's name on its line: after its keyword, or (a Go grouped `type (…)` spec) first on the line. */
const declared = (name) => new RegExp(`(?:\\b(?:def|class|func|type|fn|struct|enum|trait|union)\\s+|^\\s*)(${name})\\b`, "d");
const NOT_LIBRARY = /(^|\/)(tests?|testing|testdata|docs?|examples?|benches)\//;

/** Python: the directory a module is imported from (the first ancestor without __init__.py) and its dotted name; null outside a package. */
function pythonModule(root, file) {
  let dir = path.dirname(path.join(root, file));
  const parts = [path.basename(file, ".py")];
  if (parts[0] === "__init__") parts.pop();
  if (!fs.existsSync(path.join(dir, "__init__.py"))) return null;
  while (fs.existsSync(path.join(dir, "__init__.py"))) {
    parts.unshift(path.basename(dir));
    dir = path.dirname(dir);
  }
  return { from: dir, module: parts.join(".") };
}

const IMPORT_CHECK = `
import importlib, json, os, sys
root = os.path.realpath(sys.argv[1])
out = []
for where, mod in json.loads(sys.argv[2]):
    if where not in sys.path:
        sys.path.insert(0, where)
    try:
        m = importlib.import_module(mod)
        f = os.path.realpath(getattr(m, "__file__", None) or "")
        if not f.startswith(root + os.sep):
            out.append("%s: imported from %s, not the copy" % (mod, f))
    except BaseException as e:
        out.append("%s: %s: %s" % (mod, type(e).__name__, str(e).replace(root, ".")))
print(json.dumps(out))
`;

const lines = (text) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

/** Per language: files, population, the name position's column unit, the truth and the compile check. */
const LANGUAGES = {
  python: {
    ext: /\.py$/,
    kinds: ["function", "class"],
    library: (f) => !NOT_LIBRARY.test(f) && !/(^|\/)(test_[^/]*|[^/]*_test|conftest|setup)\.py$/.test(f),
    newName: (n) => `${n}_renamed`,
    truthLabel: "jedi get_references",
    checkLabel: "compileall + import clean after",
    byteColumns: false,
    truth: (ctx, targets) => runJson("python3", [path.join(REPO, "bench/oracles/py-calls.py"), "--refs", ctx.root], targets.join("\n"), {}),
    prepare(ctx) {
      ctx.env = { PYTHONPYCACHEPREFIX: path.join(ctx.tmp, "pycache"), PYTHONDONTWRITEBYTECODE: "1" };
      // The interpreter that imports the corpus's packages from the copy before any rename.
      const tops = [
        ...new Set(
          ctx.sample
            .map((s) => pythonModule(ctx.root, s.file))
            .filter(Boolean)
            .map((m) => JSON.stringify([m.from, m.module.split(".")[0]])),
        ),
      ].map((x) => JSON.parse(x));
      for (const py of ["python3", "/usr/bin/python3"]) {
        const errors = pythonImports(ctx, py, tops);
        if (errors !== null && errors.length === 0) {
          ctx.python = py;
          ctx.buildNote = `imports with ${py}`;
          return;
        }
        ctx.importErrors = errors;
      }
      ctx.python = "python3";
      ctx.buildNote = `the packages do not import with python3 or /usr/bin/python3 before any rename (${(ctx.importErrors ?? []).join("; ").slice(0, 200)}): import regressions only`;
    },
    check(ctx, sym, names) {
      const compiled = spawnSync(ctx.python, ["-m", "compileall", "-q", "."], { cwd: ctx.root, encoding: "utf8", env: { ...process.env, ...ctx.env } });
      const out = new Set(
        lines(`${compiled.stdout}${compiled.stderr}`)
          .filter((l) => !/^Listing /.test(l))
          .map((l) => `compileall ${l}`),
      );
      const files = filesNaming(ctx.root, ctx.files, names).filter((f) => ctx.lang.library(f));
      const mods = [
        ...new Set(
          [sym.file, ...files]
            .map((f) => pythonModule(ctx.root, f))
            .filter(Boolean)
            .map((m) => JSON.stringify([m.from, m.module])),
        ),
      ].map((x) => JSON.parse(x));
      for (const e of pythonImports(ctx, ctx.python, mods) ?? ["the import check did not run"]) out.add(`import ${e}`);
      return out;
    },
  },
  go: {
    ext: /\.go$/,
    kinds: ["function", "class", "type", "interface"],
    library: (f) => !NOT_LIBRARY.test(f) && !/_test\.go$/.test(f),
    newName: (n) => `${n}Renamed`,
    truthLabel: "go/types Defs + Uses",
    checkLabel: "go build ./... clean after",
    byteColumns: true,
    truth: (ctx, targets) =>
      runJson("go", ["run", path.join(REPO, "bench/oracles/go-calls/main.go"), "-refs", ctx.root], targets.join("\n"), { GO111MODULE: "off", GOPATH: "/usr/share/gocode", GOFLAGS: "" }),
    /** The copy at its import path under a GOPATH of its own, in front of the Debian sources. */
    relocate(tmp, root) {
      const module = /^module\s+(\S+)/m.exec(fs.readFileSync(path.join(root, "go.mod"), "utf8"))[1];
      const to = path.join(tmp, "gopath", "src", ...module.split("/"));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.renameSync(root, to);
      return to;
    },
    prepare(ctx) {
      ctx.env = { GO111MODULE: "off", GOPATH: `${path.join(ctx.tmp, "gopath")}:/usr/share/gocode`, GOFLAGS: "", GOPROXY: "off", GOTOOLCHAIN: "local", PWD: ctx.root };
      const before = this.check(ctx);
      ctx.buildable = before.size === 0;
      ctx.buildNote = ctx.buildable ? "go build ./... passes before (GOPATH mode, offline)" : `not buildable offline before any rename (${[...before].slice(0, 2).join("; ")}): no compile check`;
    },
    check(ctx) {
      if (ctx.buildable === false) return new Set();
      const r = spawnSync("go", ["build", "./..."], { cwd: ctx.root, encoding: "utf8", env: { ...process.env, ...ctx.env }, maxBuffer: 64 * 1024 * 1024 });
      return new Set(r.status === 0 ? [] : lines(r.stderr).filter((l) => !l.startsWith("#")));
    },
  },
  rust: {
    ext: /\.rs$/,
    kinds: ["function", "class", "enum", "interface", "type"],
    library: (f) => !NOT_LIBRARY.test(f),
    newName: (n) => `${n}_renamed`,
    truthLabel: "words outside comments (upper bound)",
    checkLabel: "rustc --test check clean after",
    byteColumns: false,
    truth: null,
    prepare(ctx) {
      ctx.rustc = [
        "--edition",
        ctx.spec.edition,
        "--crate-name",
        ctx.spec.crate,
        "--test",
        ...featureFlags(ctx.root),
        ...externFlags(ctx.spec.externs, path.join(ctx.tmp, "rust-externs")),
        "--emit=metadata",
        "--cap-lints",
        "allow",
        "--out-dir",
        path.join(ctx.tmp, "rust-check"),
        "src/lib.rs",
      ];
      const before = this.check(ctx);
      ctx.buildable = before.size === 0;
      ctx.buildNote = ctx.buildable ? "rustc --test (every feature, registry externs) passes before" : `does not compile before any rename (${[...before].slice(0, 2).join("; ")}): no compile check`;
    },
    check(ctx) {
      if (ctx.buildable === false) return new Set();
      const r = spawnSync("rustc", ctx.rustc, { cwd: ctx.root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
      // Each error with its location (`error[E…]: … --> file:line:col`).
      const ls = lines(r.stderr);
      return new Set(r.status === 0 ? [] : ls.flatMap((l, i) => (/^error(\[|:)/.test(l) && !/^error: aborting/.test(l) ? [`${l}${ls[i + 1]?.startsWith("-->") ? ` ${ls[i + 1]}` : ""}`] : [])));
    },
  },
};

/** Import errors of `[from, module]` pairs under interpreter `py` (null when it cannot run). */
function pythonImports(ctx, py, mods) {
  const r = spawnSync(py, ["-c", IMPORT_CHECK, ctx.root, JSON.stringify(mods)], { cwd: ctx.root, encoding: "utf8", env: { ...process.env, ...ctx.env }, maxBuffer: 64 * 1024 * 1024 });
  try {
    return JSON.parse(r.stdout);
  } catch {
    return null;
  }
}

function runJson(cmd, args, input, env) {
  const r = spawnSync(cmd, args, { input, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, env: { ...process.env, ...env } });
  if (r.error) throw new BenchError(`cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new BenchError(`${cmd} ${args.join(" ")} failed (exit ${r.status}):\n${r.stderr.slice(0, 2000)}`);
  return lines(r.stdout).map((l) => JSON.parse(l));
}

/** The declaration's name position, `{ line, col }` (0-based UTF-16 column), on its line or the next few (decorators). */
function declarationName(text, line, name) {
  const ls = text.split("\n");
  for (let i = line - 1; i < Math.min(ls.length, line + 4); i++) {
    const m = declared(name).exec(ls[i]);
    if (m) return { line: i + 1, col: m.indices[1][0] };
  }
  const col = ls[line - 1]?.search(new RegExp(`(?<![\\w$])${name}(?![\\w$])`)) ?? -1;
  return col >= 0 ? { line, col } : null;
}

const byteColumn = (lineText, col) => Buffer.byteLength(lineText.slice(0, col)) + 1;
const charColumn = (lineText, byteCol) =>
  Buffer.from(lineText)
    .subarray(0, byteCol - 1)
    .toString("utf8").length;

/** One corpus copied, committed and indexed, with its population (remove ctx.tmp when done). */
function openLanguageCorpus(language, spec) {
  const lang = LANGUAGES[language];
  const copied = copyCorpus(language, spec);
  const tmp = copied.tmp;
  const root = lang.relocate ? lang.relocate(tmp, copied.root) : copied.root;
  const ctx = { language, lang, spec, tmp, root };
  try {
    fs.appendFileSync(path.join(root, ".gitignore"), "\n.mast/\n");
    git(root, "init", "-q", ".");
    git(root, "add", "-A");
    git(root, "commit", "-qm", "corpus");
    const init = spawnSync(process.execPath, [MAST, "init", root], { encoding: "utf8" });
    if (init.status !== 0) throw new BenchError(`mast init failed: ${init.stderr}`);
    ctx.files = git(root, "ls-files")
      .split("\n")
      .filter((f) => lang.ext.test(f));
    const db = new Database(path.join(root, ".mast", "graph.db"), { readonly: true });
    const all = db
      .prepare(
        `SELECT s.name, s.kind, f.path AS file, s.line, s.is_exported FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path IN (SELECT value FROM json_each(?)) ORDER BY f.path, s.line, s.name`,
      )
      .all(JSON.stringify(ctx.files));
    db.close();
    const members = all.filter((s) => s.is_exported === 1 && s.kind === "method" && lang.library(s.file)).length;
    // A name declared more than once in a file (Python's `if …: def f` / `else: def f`, Rust's
    // `#[cfg(unix)] fn f` / `#[cfg(windows)] fn f`) is one symbol, drawn once: its first line.
    const seen = new Set();
    ctx.population = all.filter(
      (s) => s.is_exported === 1 && lang.kinds.includes(s.kind) && IDENT.test(s.name) && lang.library(s.file) && !seen.has(`${s.file}\0${s.name}`) && seen.add(`${s.file}\0${s.name}`),
    );
    ctx.members = members;
    return ctx;
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** A corpus's sample (`take` of its seeded shuffle) renamed one by one. */
function renameLanguageSample(ctx, take, totals) {
  const { language, lang, spec, tmp, root, population, members } = ctx;
  const home = path.join(tmp, "hashpilot-home");
  {
    ctx.sample = shuffled(population, prng(SEED)).slice(0, take);
    const texts = new Map();
    const textOf = (f) => texts.get(f) ?? texts.set(f, fs.readFileSync(path.join(root, f), "utf8")).get(f);
    for (const s of ctx.sample) s.at = declarationName(textOf(s.file), s.line, s.name);
    // The truth for every sampled declaration, asked once of the original tree.
    const truthOf = new Map();
    const located = ctx.sample.filter((s) => s.at);
    if (lang.truth) {
      const keyOf = (s) => `${s.file}:${s.at.line}:${lang.byteColumns ? byteColumn(textOf(s.file).split("\n")[s.at.line - 1], s.at.col) : s.at.col}`;
      const byTarget = new Map(located.map((s) => [keyOf(s), s]));
      for (const s of located) truthOf.set(s, new Set());
      for (const r of lang.truth(ctx, [...byTarget.keys()])) {
        const s = byTarget.get(r.target);
        if (!s) continue;
        const col = lang.byteColumns ? charColumn(textOf(r.file).split("\n")[r.line - 1] ?? "", r.col) : r.col;
        truthOf.get(s).add(`${r.file}:${r.line}:${col}`);
      }
    } else {
      // No analyzer: the word occurrences outside `//` comments (doc comments included), an upper bound.
      const code = (k) => {
        const [f, l, c] = k.split(":");
        const text = textOf(f).split("\n")[Number(l) - 1] ?? "";
        return !text.slice(0, Number(c)).includes("//");
      };
      for (const s of located) truthOf.set(s, new Set([...wordOccurrences(root, ctx.files, s.name)].filter(code)));
    }
    lang.prepare.call(lang, ctx);
    process.stderr.write(`${language}: ${spec.name}: ${population.length} exported functions and types (${members} members not drawn), ${ctx.sample.length} drawn; ${ctx.buildNote}\n`);
    const rows = [];
    for (const sym of ctx.sample) {
      const newName = lang.newName(sym.name);
      const row = { corpus: spec.name, symbol: sym.name, kind: sym.kind, file: sym.file, line: sym.line };
      if (!sym.at) {
        rows.push({ ...row, outcome: "unlocated" });
        continue;
      }
      const truth = truthOf.get(sym);
      const before = lang.check(ctx, sym, [sym.name]);
      const { r, envelope, modified } = renameOnce(root, home, sym, newName);
      const regressions = (after) => [...after].filter((e) => !before.has(e.replaceAll(newName, sym.name)) && !before.has(e));
      if (r.status === 0) {
        const edited = new Set();
        for (const f of modified) for (const k of changedTokens(f, git(root, "show", `HEAD:${f}`), fs.readFileSync(path.join(root, f), "utf8"))) edited.add(k);
        const s = score(edited, truth);
        const newErrors = regressions(lang.check(ctx, sym, [sym.name, newName]));
        for (const k of Object.keys(s)) totals.mast[k] += s[k];
        const lineAt = (k) => {
          const [f, l] = k.split(":");
          return `${k} ${(texts.get(f) ?? git(root, "show", `HEAD:${f}`)).split("\n")[Number(l) - 1]?.trim().slice(0, 100)}`;
        };
        const extra = [...edited].filter((k) => !truth.has(k)).map(lineAt);
        const missed = [...truth].filter((k) => !edited.has(k)).map(lineAt);
        const review = (envelope?.data?.plan?.review ?? []).map((x) => `${posix(path.relative(root, x.file))}:${x.line} ${x.context.slice(0, 100)}`);
        rows.push({
          ...row,
          outcome: "renamed",
          files: modified.length,
          ...s,
          compile_clean: newErrors.length === 0,
          new_errors: newErrors.slice(0, 5),
          extra: extra.slice(0, 5),
          missed: missed.slice(0, 5),
          review: review.slice(0, 5),
          review_lines: review.length,
        });
      } else {
        const code = envelope?.error?.code ?? `exit ${r.status}`;
        const reason = envelope?.error?.details?.plan?.unresolved?.[0]?.reason ?? envelope?.error?.message ?? r.stderr.slice(0, 200);
        rows.push({ ...row, outcome: r.status === 1 ? "refused" : "failed", code, reason: reason.replace(/^line \d+: /, ""), left_modified: modified.length, modified: modified.slice(0, 5) });
      }
      git(root, "checkout", "-q", "--", ".");
      spawnSync(process.execPath, [MAST, "index", root, "--incremental"], { encoding: "utf8" });
      // Baseline: the word-boundary text rename of the same name.
      const words = wordOccurrences(root, ctx.files, sym.name);
      const sb = score(words, truth);
      for (const k of Object.keys(sb)) totals.rg[k] += sb[k];
      const last = rows.at(-1);
      last.rg = sb;
      const touched = [...new Set([...words].map((k) => k.slice(0, k.indexOf(":"))))];
      const re = new RegExp(`(?<![\\w$])${sym.name}(?![\\w$])`, "g");
      for (const f of touched) fs.writeFileSync(path.join(root, f), fs.readFileSync(path.join(root, f), "utf8").replace(re, newName));
      last.rg_compile_clean = regressions(lang.check(ctx, sym, [sym.name, newName])).length === 0;
      git(root, "checkout", "-q", "--", ".");
      process.stderr.write(
        `  ${sym.name} (${sym.file}:${sym.line}): ${last.outcome}${last.outcome === "renamed" ? `, compile ${last.compile_clean ? "clean" : "NEW ERRORS"}, edited ${last.predicted} / truth ${last.truth} agree ${last.hit}` : `: ${last.reason?.slice(0, 100)}`}\n`,
      );
    }
    return {
      spec,
      rows,
      population: population.length,
      members,
      files: ctx.files.length,
      build: ctx.buildNote,
      buildable: ctx.buildable !== false,
      check_command: ctx.rustc ? `rustc ${ctx.rustc.join(" ").replaceAll(tmp, "<tmp>")}` : null,
    };
  }
}

async function languageMain(language, sampleSize) {
  const missing = missingBuild();
  if (missing || !fs.existsSync(HASHPILOT)) throw new BenchError(`${missing ?? "dist/bin/hashpilot.js"} is missing: run \`npm run build\` first`);
  const env = benchEnvironment();
  const distAtStart = distStamp();
  const lang = LANGUAGES[language];
  const corpora = CALLERS_CORPORA[language];
  const totals = { mast: { hit: 0, predicted: 0, truth: 0 }, rg: { hit: 0, predicted: 0, truth: 0 } };
  const opened = [];
  let results;
  try {
    for (const spec of corpora) opened.push(openLanguageCorpus(language, spec));
    // The sample spread evenly over the corpora; a corpus with fewer symbols than its share gives the rest to the others.
    const takes = opened.map(() => 0);
    for (let left = sampleSize, open = true; left > 0 && open; ) {
      open = false;
      for (let i = 0; i < opened.length && left > 0; i++) {
        if (takes[i] < opened[i].population.length) {
          takes[i]++;
          left--;
          open = true;
        }
      }
    }
    results = opened.map((ctx, i) => renameLanguageSample(ctx, takes[i], totals));
  } finally {
    for (const ctx of opened) fs.rmSync(ctx.tmp, { recursive: true, force: true });
  }
  const rows = results.flatMap((r) => r.rows);
  const renamed = rows.filter((r) => r.outcome === "renamed");
  const refused = rows.filter((r) => r.outcome === "refused");
  const failed = rows.filter((r) => r.outcome === "failed");
  const located = rows.filter((r) => r.outcome !== "unlocated");
  const leftModified = [...refused, ...failed].reduce((n, r) => n + (r.left_modified ?? 0), 0);
  const checkable = new Set(results.filter((r) => r.buildable).map((r) => r.spec.name));
  const clean = renamed.filter((r) => checkable.has(r.corpus) && r.compile_clean).length;
  const renamedCheckable = renamed.filter((r) => checkable.has(r.corpus)).length;
  const locatedCheckable = located.filter((r) => checkable.has(r.corpus));
  const rgClean = locatedCheckable.filter((r) => r.rg_compile_clean).length;
  const reasons = {};
  for (const r of [...refused, ...failed]) {
    const key = reasonKind(r.code, r.reason, language);
    reasons[key] = (reasons[key] ?? 0) + 1;
  }
  const p = (t) => (t.predicted ? t.hit / t.predicted : null);
  const rc = (t) => (t.truth ? t.hit / t.truth : null);
  const hasTruth = lang.truth !== null;
  const W = 54;
  const out = [
    `intent-rename bench (${language}): ${rows.length} sampled exported functions and types of ${corpora.map((c) => `${c.name} ${c.version}`).join(", ")}, seed 0x${SEED.toString(16)}`,
    ...results.map((r) => `  ${r.spec.name}: ${r.files} files, population ${r.population} (${r.members} exported members not drawn), ${r.rows.length} drawn; ${r.build}`),
    "",
    `${pad("", W)}${pad("mast intent", 14)}rg -w replace`,
    `${pad("renames completed", W)}${pad(`${renamed.length} / ${located.length}`, 14)}${located.length} / ${located.length}`,
    `${pad(lang.checkLabel, W)}${pad(`${clean} / ${renamedCheckable}`, 14)}${rgClean} / ${locatedCheckable.length}`,
    `${pad("refused (nothing written)", W)}${pad(String(refused.length), 14)}-`,
    `${pad("failed", W)}${pad(String(failed.length), 14)}-`,
    `${pad("files left modified (must be 0)", W)}${pad(String(leftModified), 14)}-`,
    `${pad(`edited spans vs ${lang.truthLabel}`, W)}${pad(`P ${fmt(p(totals.mast), 3)}`, 14)}${hasTruth ? `P ${fmt(p(totals.rg), 3)}` : "-"}`,
    `${pad("", W)}${pad(`R ${fmt(rc(totals.mast), 3)}`, 14)}${hasTruth ? `R ${fmt(rc(totals.rg), 3)}` : "-"}`,
    "",
    "refused and failed, by reason",
    ...Object.entries(reasons)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `  ${String(n).padStart(3)}  ${k}`),
  ];
  const misses = renamed.filter((r) => r.hit !== r.truth || r.hit !== r.predicted || !r.compile_clean);
  if (misses.length)
    out.push(
      "",
      `renames that differ from ${lang.truthLabel} or break the build`,
      ...misses.map(
        (r) =>
          `  ${r.corpus} ${r.symbol} (${r.file}:${r.line}): edited ${r.predicted}, truth ${r.truth}, agree ${r.hit}${r.extra.length ? `; extra ${r.extra[0]}` : ""}${r.missed.length ? `; missed ${r.missed[0]}` : ""}${r.compile_clean ? "" : `; new errors: ${r.new_errors.join(" | ").slice(0, 200)}`}`,
      ),
    );
  const notes = buildNotes(env, distAtStart);
  if (!hasTruth)
    notes.push(
      "no Rust analyzer is installed (rust-analyzer is not): the truth is every whole-word occurrence of the name outside `//` comments, an upper bound (it counts fields, variants, std items and other items of the same name); the compile check is the judge",
    );
  publish(out, notes, path.join(OUT_DIR, `intent-rename-${language}.json`), {
    language,
    seed: SEED,
    sample: rows.length,
    truth: lang.truthLabel,
    corpora: results.map((r) => ({
      name: r.spec.name,
      version: r.spec.version,
      files: r.files,
      population: r.population,
      members_not_drawn: r.members,
      drawn: r.rows.length,
      build: r.build,
      compile_checked: r.buildable,
      check_command: r.check_command,
    })),
    mast: {
      completed: renamed.length,
      compile_clean: clean,
      compile_checked: renamedCheckable,
      refused: refused.length,
      failed: failed.length,
      left_modified: leftModified,
      precision: round(p(totals.mast)),
      recall: round(rc(totals.mast)),
      ...totals.mast,
    },
    rg: { compile_clean: rgClean, compile_checked: locatedCheckable.length, precision: hasTruth ? round(p(totals.rg)) : null, recall: hasTruth ? round(rc(totals.rg)) : null, ...totals.rg },
    refusals: reasons,
    rows,
  });
  return 0;
}

async function main() {
  const { values } = parseArgs({ options: { language: { type: "string", default: "typescript" }, sample: { type: "string" } } });
  if (values.language === "typescript") return typescriptMain();
  if (!LANGUAGES[values.language]) throw new BenchError(`unknown --language ${values.language} (typescript, ${Object.keys(LANGUAGES).join(", ")})`);
  const sample = values.sample === undefined ? LANG_SAMPLE : Number(values.sample);
  if (!Number.isInteger(sample) || sample < 1) throw new BenchError(`--sample takes a positive integer, not ${values.sample}`);
  return languageMain(values.language, sample);
}

await runBench(main);
