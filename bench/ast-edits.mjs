#!/usr/bin/env node
// AST edit bench: hashpilot's AST edits on real code nobody here wrote, in every AST language — the
// pinned TypeScript corpus (bench/corpus.mjs) and the pinned Debian-packaged Python (click), Go
// (gin) and Rust (regex-syntax) corpora of LANGUAGE_CORPORA. Part of `npm run bench:edits`.
//
//   npm run build && npm run bench:edits-ast
//
// Per language a seeded sample of tasks of six kinds: rename a top-level function used in 3 or
// more places, replace a body, add an import, remove an import, insert before and after a
// function (a Python body's docstring kept). Each task's expected text is computed here without mast's parser: TypeScript's
// compiler (findRenameLocations for a rename, its AST for spans), Python's own `ast` and
// `tokenize` (run through python3), and for gofmt'd Go and rustfmt'd Rust, a lexer of strings and
// comments plus the formatters' layout (top-level items at column 0). Each task runs the built
// `hashpilot ast …` on a fresh copy of its file. A result must parse (TypeScript's parser,
// Python's ast, `gofmt -e`, `rustfmt`) and equal the expected text byte for byte, which keeps
// every untouched line identical; a refusal must leave the file byte-identical. Reported per
// language: tasks, correct, refused (by code), silent corruptions (wrong text written while
// answering success — must be 0), median ms per edit (the CLI's wall time, Node's start
// included). A report, not a test: exits 0 whether the targets PASS or MISS, non-zero only when
// something could not run. Figures go to bench/.out/ast-edits.json.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import ts from "typescript";
import {
  BenchError,
  CORPUS,
  DIST,
  LANGUAGE_CORPORA,
  OUT_DIR,
  copyLanguageCorpus,
  distStamp,
  ensureCorpus,
  listFiles,
  lpad,
  machineFacts,
  median,
  pad,
  prng,
  publish,
  runBench,
  shuffled,
  verdict,
} from "./corpus.mjs";

const HASHPILOT = path.join(DIST, "bin", "hashpilot.js");
const SEED = 1515;
/** Tasks per kind and language. */
const PER_KIND = { "rename-symbol": 6, "replace-body": 6, "add-import": 4, "remove-import": 4, "insert-before": 4, "insert-after": 4 };
const NEW_NAME = "benchRenamed";

// ---------- shared ----------

const linesOf = (text) => text.split("\n");
const indentOf = (line) => /^[ \t]*/.exec(line)[0];
/** `text` with lines [from, to] (1-based, inclusive) replaced by `replacement` lines. */
const spliceLines = (text, from, to, replacement) => {
  const lines = linesOf(text);
  return [...lines.slice(0, from - 1), ...replacement, ...lines.slice(to)].join("\n");
};
/** Contiguous lines directly above `line` (1-based) for which `isLeading` holds: the first of them, or `line`. */
function leadingStart(lines, line, isLeading) {
  let first = line;
  while (first > 1 && isLeading(lines[first - 2])) first--;
  return first;
}

/**
 * Masks the strings and comments of C-like source (Go, Rust) with spaces, keeping offsets: what
 * remains is code, where a whole-word match of a name is a use of it. `raw` strings: Go's
 * backquotes, Rust's r"…" / r#"…"#; `nested` block comments (Rust); `lifetimes`: a quote not
 * closing a one-character literal (Rust 'a).
 */
function codeOnly(text, { rustRaw = false, goRaw = false, nested = false, lifetimes = false }) {
  const out = text.split("");
  const blank = (from, to) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      blank(i, end === -1 ? text.length : end);
      i = end === -1 ? text.length : end;
    } else if (c === "/" && next === "*") {
      let depth = 1;
      let j = i + 2;
      while (j < text.length && depth > 0) {
        if (nested && text[j] === "/" && text[j + 1] === "*") depth++, (j += 2);
        else if (text[j] === "*" && text[j + 1] === "/") depth--, (j += 2);
        else j++;
      }
      blank(i, j);
      i = j;
    } else if (rustRaw && c === "r" && (next === '"' || next === "#") && !/\w/.test(text[i - 1] ?? "")) {
      const m = /^r(#*)"/.exec(text.slice(i));
      if (!m) {
        i++;
        continue;
      }
      const close = `"${m[1]}`;
      const end = text.indexOf(close, i + m[0].length);
      const j = end === -1 ? text.length : end + close.length;
      blank(i, j);
      i = j;
    } else if (goRaw && c === "`") {
      const end = text.indexOf("`", i + 1);
      const j = end === -1 ? text.length : end + 1;
      blank(i, j);
      i = j;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      blank(i, j + 1);
      i = j + 1;
    } else if (c === "'") {
      const m = /^'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'])'/.exec(text.slice(i));
      if (m) {
        blank(i, i + m[0].length);
        i += m[0].length;
      } else if (lifetimes) i++;
      else {
        const end = text.indexOf("'", i + 1);
        blank(i, end === -1 ? text.length : end + 1);
        i = end === -1 ? text.length : end + 1;
      }
    } else i++;
  }
  return out.join("");
}

/** Offsets of whole-word `name` in code-only text. */
function wordsAt(code, name) {
  const out = [];
  const re = new RegExp(`(?<![\\w$])${name}(?![\\w$])`, "g");
  for (let m; (m = re.exec(code)); ) out.push(m.index);
  return out;
}

function renamedAt(text, offsets, name, to) {
  let out = "";
  let at = 0;
  for (const o of [...offsets].sort((a, b) => a - b)) {
    out += text.slice(at, o) + to;
    at = o + name.length;
  }
  return out + text.slice(at);
}

/** The run of consecutive items around `item` that `next(a, b)` links, in order. */
function runOf(items, item, next) {
  let i = items.indexOf(item);
  let j = i;
  while (i > 0 && next(items[i - 1], items[i])) i--;
  while (j < items.length - 1 && next(items[j], items[j + 1])) j++;
  return items.slice(i, j + 1);
}

// ---------- TypeScript (the compiler as the oracle) ----------

function tsSource(file, text) {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

function tsParses(file, text) {
  return tsSource(file, text).parseDiagnostics.length === 0;
}

function tsRenameLocations(file, text, pos) {
  const host = {
    getScriptFileNames: () => [file],
    getScriptVersion: () => "1",
    getScriptSnapshot: (f) => (f === file ? ts.ScriptSnapshot.fromString(text) : undefined),
    getCurrentDirectory: () => "/",
    getCompilationSettings: () => ({ target: ts.ScriptTarget.Latest, noResolve: true, noLib: true }),
    getDefaultLibFileName: () => "lib.d.ts",
    fileExists: (f) => f === file,
    readFile: (f) => (f === file ? text : undefined),
  };
  const ls = ts.createLanguageService(host);
  return ls.findRenameLocations(file, pos, false, false, { providePrefixAndSuffixTextForRename: true }) ?? [];
}

function typescriptTasks(files, rand) {
  const tasks = [];
  for (const { rel, text } of files) {
    if (!tsParses(rel, text)) continue;
    const sf = tsSource(rel, text);
    const lines = linesOf(text);
    const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
    const functions = sf.statements.filter((s) => ts.isFunctionDeclaration(s) && s.name && s.body);
    for (const fn of functions) {
      const name = fn.name.text;
      const locations = tsRenameLocations(rel, text, fn.name.getStart(sf));
      if (locations.length >= 3 && locations.every((l) => l.fileName === rel)) {
        let out = "";
        let at = 0;
        for (const l of [...locations].sort((a, b) => a.textSpan.start - b.textSpan.start)) {
          out += text.slice(at, l.textSpan.start) + (l.prefixText ?? "") + NEW_NAME + (l.suffixText ?? "");
          at = l.textSpan.start + l.textSpan.length;
        }
        tasks.push({ kind: "rename-symbol", rel, text, args: [name, NEW_NAME], expected: out + text.slice(at) });
      }
      const body = fn.body;
      const open = lineOf(body.getStart(sf));
      const close = lineOf(body.end);
      const stmt = body.statements[0];
      if (close > open && stmt && lineOf(stmt.getStart(sf)) > open && lines[close - 1].trim() === "}") {
        const indent = indentOf(lines[lineOf(stmt.getStart(sf)) - 1]);
        const head = lines[open - 1].slice(0, body.getStart(sf) - sf.getPositionOfLineAndCharacter(open - 1, 0));
        const expected = spliceLines(text, open, close, [`${head}{`, `${indent}throw new Error("bench");`, `${indentOf(lines[close - 1])}}`]);
        tasks.push({ kind: "replace-body", rel, text, args: [name, 'throw new Error("bench");'], expected });
      }
      // Overload signatures and their implementation are one anchor.
      const run = runOf(sf.statements, fn, (a, b) => ts.isFunctionDeclaration(a) && ts.isFunctionDeclaration(b) && a.name?.text === b.name?.text);
      const start = lineOf(run[0].getStart(sf, true));
      const declStart = lineOf(run[0].getStart(sf));
      const end = lineOf(run.at(-1).end);
      const before = leadingStart(lines, start, (l) => /^\s*(\/\/|\/\*|\*)/.test(l));
      if (start === declStart || lines.slice(start - 1, declStart - 1).every((l) => /^\s*(\/\/|\/\*|\*)/.test(l))) {
        tasks.push({ kind: "insert-before", rel, text, args: [name, "// bench marker"], expected: spliceLines(text, Math.min(before, start), Math.min(before, start) - 1, ["// bench marker"]) });
      }
      tasks.push({ kind: "insert-after", rel, text, args: [name, "// bench marker"], expected: spliceLines(text, end + 1, end, ["// bench marker"]) });
    }
    const imports = sf.statements.filter(ts.isImportDeclaration);
    if (imports.length > 0) {
      const first = imports[0].getText(sf);
      const q = first.includes("'") && !first.includes('"') ? "'" : '"';
      const semi = first.trimEnd().endsWith(";") ? ";" : "";
      const last = lineOf(imports.at(-1).end);
      tasks.push({
        kind: "add-import",
        rel,
        text,
        args: ["{ benchThing } from ./bench-module"],
        expected: spliceLines(text, last + 1, last, [`import { benchThing } from ${q}./bench-module${q}${semi}`]),
      });
      for (const imp of imports) {
        const named = imp.importClause?.namedBindings;
        const module = imp.moduleSpecifier.text;
        const same = imports.filter((i) => i.moduleSpecifier.text === module).length;
        if (
          same === 1 &&
          !imp.importClause?.name &&
          named &&
          ts.isNamedImports(named) &&
          named.elements.length === 1 &&
          !named.elements[0].propertyName &&
          lineOf(imp.getStart(sf)) === lineOf(imp.end)
        ) {
          const line = lineOf(imp.getStart(sf));
          const typeOnly = imp.importClause.isTypeOnly ? "type " : "";
          tasks.push({ kind: "remove-import", rel, text, args: [`${typeOnly}{ ${named.elements[0].name.text} } from ${module}`], expected: spliceLines(text, line, line, []) });
        }
      }
    }
  }
  return tasks;
}

// ---------- Python (its own ast and tokenize as the oracle) ----------

const PY_HELPER = String.raw`
import ast, io, json, sys, tokenize
src = open(sys.argv[1], encoding="utf-8").read()
tree = ast.parse(src)
names = {}
for t in tokenize.generate_tokens(io.StringIO(src).readline):
    if t.type == tokenize.NAME:
        names.setdefault(t.string, []).append([t.start[0], t.start[1]])
bound = {}
for node in ast.walk(tree):
    for n in ([node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else []) + \
             ([node.id] if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) else []) + \
             ([node.arg] if isinstance(node, ast.arg) else []) + \
             ([(a.asname or a.name).split(".")[0] for a in node.names] if isinstance(node, (ast.Import, ast.ImportFrom)) else []) + \
             ([node.attr] if isinstance(node, ast.Attribute) else []) + ([node.arg] if isinstance(node, ast.keyword) and node.arg else []):
        bound[n] = bound.get(n, 0) + 1
fns = []
for i, s in enumerate(tree.body):
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fns.append({"index": i, "name": s.name, "line": s.lineno, "first": s.decorator_list[0].lineno if s.decorator_list else s.lineno,
                    "end": s.end_lineno, "body": s.body[0].lineno, "bodyEnd": s.body[-1].end_lineno, "bound": bound.get(s.name, 0),
                    "doc": s.body[0].end_lineno if isinstance(s.body[0], ast.Expr) and isinstance(getattr(s.body[0], "value", None), ast.Constant) and isinstance(s.body[0].value.value, str) else None,
                    "rest": s.body[1].lineno if len(s.body) > 1 else None})
imports = [{"line": s.lineno, "end": s.end_lineno, "kind": type(s).__name__, "names": [[a.name, a.asname] for a in s.names], "module": getattr(s, "module", None), "level": getattr(s, "level", 0)}
           for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
print(json.dumps({"fns": fns, "imports": imports, "names": names}))
`;

function pythonFacts(abs) {
  const r = spawnSync("python3", ["-c", PY_HELPER, abs], { encoding: "utf8" });
  if (r.status !== 0) return null;
  return JSON.parse(r.stdout);
}

const pyParses = (abs) => spawnSync("python3", ["-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())", abs]).status === 0;

function pythonTasks(files) {
  const tasks = [];
  for (const { rel, text, abs } of files) {
    const facts = pythonFacts(abs);
    if (!facts) continue;
    const lines = linesOf(text);
    const offset = (line, col) => lines.slice(0, line - 1).reduce((a, l) => a + l.length + 1, 0) + col;
    for (const fn of facts.fns) {
      const uses = facts.names[fn.name] ?? [];
      // Bound once (its def), never an attribute or keyword name: every NAME token is a use of it.
      if (fn.bound === 1 && uses.length >= 3) {
        tasks.push({
          kind: "rename-symbol",
          rel,
          text,
          args: [fn.name, "bench_renamed"],
          expected: renamedAt(
            text,
            uses.map(([l, c]) => offset(l, c)),
            fn.name,
            "bench_renamed",
          ),
        });
      }
      if (fn.body > fn.line && !/^\s*#/.test(lines[fn.body - 1])) {
        // The docstring stays: the body after it is replaced (inserted after it when it is all there is).
        const indent = indentOf(lines[fn.body - 1]);
        const expected =
          fn.doc === null
            ? spliceLines(text, fn.body, fn.bodyEnd, [`${indent}return None`])
            : fn.rest === null
              ? spliceLines(text, fn.doc + 1, fn.doc, [`${indent}return None`])
              : spliceLines(text, fn.rest, fn.bodyEnd, [`${indent}return None`]);
        if (fn.rest === null || !lines.slice(fn.doc ?? fn.body, fn.rest - 1).some((l) => /^\s*#/.test(l))) tasks.push({ kind: "replace-body", rel, text, args: [fn.name, "return None"], expected });
      }
      // Consecutive definitions of one name (`@overload` stubs, then the implementation) are one anchor.
      const run = runOf(facts.fns, fn, (a, b) => a.index + 1 === b.index && a.name === b.name);
      const before = leadingStart(lines, run[0].first, (l) => /^\s*#/.test(l));
      tasks.push({ kind: "insert-before", rel, text, args: [fn.name, "# bench marker"], expected: spliceLines(text, before, before - 1, ["# bench marker"]) });
      tasks.push({ kind: "insert-after", rel, text, args: [fn.name, "# bench marker"], expected: spliceLines(text, run.at(-1).end + 1, run.at(-1).end, ["# bench marker"]) });
    }
    if (facts.imports.length > 0) {
      const last = facts.imports.at(-1).end;
      tasks.push({ kind: "add-import", rel, text, args: ["import bench_module"], expected: spliceLines(text, last + 1, last, ["import bench_module"]) });
      for (const imp of facts.imports) {
        if (imp.line !== imp.end || imp.names.length !== 1 || imp.names[0][1] || imp.names[0][0] === "*") continue;
        const module = imp.kind === "Import" ? null : `${".".repeat(imp.level)}${imp.module ?? ""}`;
        const spec = module === null ? `import ${imp.names[0][0]}` : `from ${module} import ${imp.names[0][0]}`;
        tasks.push({ kind: "remove-import", rel, text, args: [spec], expected: spliceLines(text, imp.line, imp.line, []) });
      }
    }
  }
  return tasks;
}

// ---------- Go and Rust (the formatters' layout and a lexer as the oracle) ----------

/** Top-level functions of gofmt'd Go or rustfmt'd Rust: name, first line, the body's `{` line and closing `}` line (column 0). */
function topFunctions(lines, declaration) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = declaration.exec(lines[i]);
    if (!m) continue;
    let open = i;
    while (open < lines.length && !lines[open].endsWith("{")) open++;
    let close = open + 1;
    while (close < lines.length && lines[close] !== "}") close++;
    if (open < lines.length && close < lines.length && !lines[open].includes("}")) out.push({ name: m[1], line: i + 1, open: open + 1, close: close + 1 });
  }
  return out;
}

function cLikeTasks(files, language) {
  const go = language === "go";
  const tasks = [];
  for (const { rel, text } of files) {
    const lines = linesOf(text);
    const code = codeOnly(text, go ? { goRaw: true } : { rustRaw: true, nested: true, lifetimes: true });
    const fns = topFunctions(lines, go ? /^func ([A-Za-z_]\w*)\(/ : /^(?:pub(?:\([^)]*\))? )?(?:const |async |unsafe )*fn ([a-z_]\w*)/);
    const isLeading = go ? (l) => l.startsWith("//") : (l) => /^(\/\/|#\[)/.test(l);
    for (const fn of fns) {
      const uses = wordsAt(code, fn.name);
      // Every use a plain call or value (no `.x`/`::x` path, no rebinding): the rename is all of them.
      const plain = uses.every(
        (o) =>
          !/[.:]$/.test(code.slice(Math.max(0, o - 2), o)) &&
          !/^\s*(:=|=[^=]|:[^:])/.test(code.slice(o + fn.name.length, o + fn.name.length + 3)) &&
          !/\b(?:let|var|const)\s+(?:mut\s+)?$/.test(code.slice(Math.max(0, o - 12), o)),
      );
      const declared = uses.filter((o) => /\b(?:fn|func)\s+$/.test(code.slice(Math.max(0, o - 6), o))).length;
      if (uses.length >= 3 && plain && declared === 1 && (go ? /^[A-Z]/.test(fn.name) : true)) {
        tasks.push({ kind: "rename-symbol", rel, text, args: [fn.name, go ? "BenchRenamed" : "bench_renamed"], expected: renamedAt(text, uses, fn.name, go ? "BenchRenamed" : "bench_renamed") });
      }
      const body = go ? '\tpanic("bench")' : "    unimplemented!()";
      if (fn.close > fn.open + 1) tasks.push({ kind: "replace-body", rel, text, args: [fn.name, body.trim()], expected: spliceLines(text, fn.open + 1, fn.close - 1, [body]) });
      const before = leadingStart(lines, fn.line, isLeading);
      tasks.push({ kind: "insert-before", rel, text, args: [fn.name, "// bench marker"], expected: spliceLines(text, before, before - 1, ["// bench marker"]) });
      tasks.push({ kind: "insert-after", rel, text, args: [fn.name, "// bench marker"], expected: spliceLines(text, fn.close + 1, fn.close, ["// bench marker"]) });
    }
    if (go) {
      const open = lines.indexOf("import (");
      const close = open === -1 ? -1 : lines.indexOf(")", open);
      if (open !== -1 && close > open + 1) {
        tasks.push({ kind: "add-import", rel, text, args: ['"bench/module"'], expected: spliceLines(text, close + 1, close, ['\t"bench/module"']) });
        for (let i = open + 1; i < close; i++) {
          const m = /^\t(?:([\w.]+) )?"([^"]+)"$/.exec(lines[i]);
          if (m && close - open - 1 >= 2 && lines.filter((l) => l.includes(`"${m[2]}"`)).length === 1)
            tasks.push({ kind: "remove-import", rel, text, args: [`${m[1] ? `${m[1]} ` : ""}"${m[2]}"`], expected: spliceLines(text, i + 1, i + 1, []) });
        }
      }
    } else {
      const uses = lines.map((l, i) => [l, i + 1]).filter(([l]) => /^use /.test(l) && l.endsWith(";"));
      if (uses.length > 0) {
        const last = uses.at(-1)[1];
        tasks.push({ kind: "add-import", rel, text, args: ["bench::Module"], expected: spliceLines(text, last + 1, last, ["use bench::Module;"]) });
        for (const [l, line] of uses) {
          const m = /^use ((?:\w+::)+\w+);$/.exec(l);
          const module = m?.[1].slice(0, m[1].lastIndexOf("::"));
          if (m && uses.filter(([o]) => o.startsWith(`use ${module}::`)).length === 1) tasks.push({ kind: "remove-import", rel, text, args: [m[1]], expected: spliceLines(text, line, line, []) });
        }
      }
    }
  }
  return tasks;
}

const goParses = (abs) => spawnSync("gofmt", ["-e", "-l", abs], { encoding: "utf8" }).status === 0;
// From stdin, so rustfmt parses the one file and does not look for its `mod x;` files.
const rustParses = (abs) => spawnSync("rustfmt", ["--edition", "2018", "--emit", "stdout"], { input: fs.readFileSync(abs), encoding: "utf8" }).status === 0;

// ---------- the run ----------

function sample(tasks, rand) {
  const out = [];
  for (const [kind, n] of Object.entries(PER_KIND)) {
    const of = shuffled(
      tasks.filter((t) => t.kind === kind),
      rand,
    );
    // At most one task of a kind per file, so the sample spreads over the corpus.
    const seen = new Set();
    for (const t of of) {
      if (out.filter((o) => o.kind === kind).length >= n) break;
      if (seen.has(t.rel)) continue;
      seen.add(t.rel);
      out.push(t);
    }
  }
  return out;
}

function runTask(task, tmpRoot, parses, index) {
  const dir = path.join(tmpRoot, `t${index}`);
  const abs = path.join(dir, task.rel);
  fs.mkdirSync(path.join(dir, ".git"), { recursive: true });
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, task.text);
  const started = performance.now();
  const r = spawnSync(process.execPath, [HASHPILOT, "ast", task.kind, task.rel, ...task.args], { cwd: dir, encoding: "utf8", env: { ...process.env, HASHPILOT_HOME: path.join(dir, ".hp"), CI: "1" } });
  const ms = performance.now() - started;
  let envelope;
  try {
    envelope = JSON.parse(r.stdout);
  } catch {
    throw new BenchError(`hashpilot printed no envelope for ${task.kind} ${task.rel}: ${r.stderr.slice(0, 500)}`);
  }
  const after = fs.readFileSync(abs, "utf8");
  let outcome;
  if (!envelope.ok) outcome = after === task.text ? { result: "refused", code: envelope.error.code } : { result: "corrupted", why: `refused (${envelope.error.code}) but the file changed` };
  else if (after === task.expected) outcome = parses(abs) ? { result: "correct" } : { result: "corrupted", why: "the expected text does not parse" };
  else outcome = { result: "corrupted", why: "written text differs from the expected text", diffAt: firstDifference(after, task.expected) };
  return { ...outcome, ms, kind: task.kind, file: task.rel, args: task.args };
}

function firstDifference(a, b) {
  const la = linesOf(a);
  const lb = linesOf(b);
  for (let i = 0; i < Math.max(la.length, lb.length); i++) if (la[i] !== lb[i]) return { line: i + 1, got: la[i] ?? null, expected: lb[i] ?? null };
  return null;
}

function corpusFiles(language) {
  if (language === "typescript") {
    ensureCorpus();
    return {
      files: listFiles(CORPUS)
        .filter((f) => /\.(ts|tsx)$/.test(f) && !/\.d\.ts$|\.test\.|\.spec\./.test(f))
        .map((rel) => ({ rel, abs: path.join(CORPUS, rel), text: fs.readFileSync(path.join(CORPUS, rel), "utf8") })),
      cleanup: () => {},
      source: "the pinned TypeScript corpus",
    };
  }
  const { tmp, root } = copyLanguageCorpus(language);
  const ext = { python: ".py", go: ".go", rust: ".rs" }[language];
  const files = listFiles(root)
    .filter((f) => f.endsWith(ext) && !/_test\.go$/.test(f))
    .map((rel) => ({ rel, abs: path.join(root, rel), text: fs.readFileSync(path.join(root, rel), "utf8") }));
  const c = LANGUAGE_CORPORA[language];
  return { files, cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }), source: `${c.name} ${c.version}` };
}

/** The plans alone (no process start, no write) on the corpus's largest TypeScript file, through the built modules. */
async function timeInProcess() {
  const { extensionInfo } = await import(path.join(DIST, "lang", "languages.js"));
  const { parseSource } = await import(path.join(DIST, "syntax", "parser.js"));
  const ast = Object.assign({}, ...(await Promise.all(["ast-walk.js", "rename-edit.js", "declaration-edit.js", "import-edit.js"].map((f) => import(path.join(DIST, "syntax", f))))));
  const rel = "zod/src/v3/types.ts";
  const text = fs.readFileSync(path.join(CORPUS, rel), "utf8");
  const info = extensionInfo(rel);
  const rules = info.spec.edits;
  const median7 = (f) => {
    const xs = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      f();
      xs.push(performance.now() - t);
    }
    return Math.round(median(xs) * 10) / 10;
  };
  // A fresh text each time, so the parser's last-tree reuse does not answer.
  let n = 0;
  const ms = { parse: median7(() => parseSource(info.grammar, `${text}${" ".repeat(++n)}`, 10_000)) };
  const tree = parseSource(info.grammar, text, 10_000);
  ms["find-symbols"] = median7(() => ast.findSymbols(rules, tree));
  ms["rename member ZodType.parse"] = median7(() => ast.planRename(rules, tree, "ZodType.parse", "parseIt", null));
  ms["rename function processCreateParams"] = median7(() => ast.planRename(rules, tree, "processCreateParams", "pcp", null));
  ms["replace-body ZodString.min"] = median7(() => ast.planReplaceBody(rules, tree, text, "ZodString.min", "return this;"));
  ms["add-import"] = median7(() => ast.planAddImport(rules, tree, text, "{ x } from ./x", "esm"));
  return { file: rel, lines: text.split("\n").length, ms };
}

async function main() {
  if (!fs.existsSync(HASHPILOT)) throw new BenchError(`${path.relative(process.cwd(), HASHPILOT)} is missing: run \`npm run build\` first`);
  for (const [tool, args, install] of [
    ["python3", ["--version"], "python3"],
    ["gofmt", ["-h"], "apt-get install -y golang-go"],
    ["rustfmt", ["--version"], "rustup component add rustfmt"],
  ]) {
    if (spawnSync(tool, args).error) throw new BenchError(`${tool} is missing (${install}): the bench checks that results parse with it`);
  }
  const env = machineFacts();
  const distAtStart = distStamp();
  const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-ast-"));
  const languages = [
    ["typescript", (files) => typescriptTasks(files), (abs) => tsParses(abs, fs.readFileSync(abs, "utf8"))],
    ["python", (files) => pythonTasks(files), pyParses],
    ["go", (files) => cLikeTasks(files, "go"), goParses],
    ["rust", (files) => cLikeTasks(files, "rust"), rustParses],
  ];
  const report = [];
  try {
    let index = 0;
    for (const [language, makeTasks, parses] of languages) {
      const corpus = corpusFiles(language);
      try {
        const rand = prng(SEED);
        const tasks = sample(makeTasks(corpus.files), rand);
        process.stderr.write(`${language}: ${tasks.length} tasks on ${corpus.source} ...\n`);
        const results = tasks.map((t) => runTask(t, tmpRoot, parses, index++));
        const refused = {};
        for (const r of results) if (r.result === "refused") refused[r.code] = (refused[r.code] ?? 0) + 1;
        report.push({
          language,
          corpus: corpus.source,
          tasks: results.length,
          by_kind: Object.fromEntries(Object.keys(PER_KIND).map((k) => [k, results.filter((r) => r.kind === k).length])),
          correct: results.filter((r) => r.result === "correct").length,
          refused,
          silent_corruptions: results.filter((r) => r.result === "corrupted").length,
          median_ms: Math.round(median(results.map((r) => r.ms))),
          failures: results.filter((r) => r.result !== "correct"),
        });
      } finally {
        corpus.cleanup();
      }
    }
  } finally {
    fs.rmSync(tmpRoot, { recursive: true, force: true });
  }
  const rows = report.map(
    (r) =>
      `${pad(r.language, 11)} ${pad(r.corpus, 32)} ${lpad(r.tasks, 5)} ${lpad(r.correct, 7)}  ${pad(
        Object.entries(r.refused)
          .map(([c, n]) => `${c} ${n}`)
          .join(", ") || "-",
        28,
      )} ${lpad(r.silent_corruptions, 11)} ${lpad(r.median_ms, 9)}`,
  );
  const corruptions = report.reduce((a, r) => a + r.silent_corruptions, 0);
  const lines = [
    `AST edits on real code (hashpilot ast …, one CLI process per edit), seed ${SEED}, ${env.nproc} CPUs, load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
    `${pad("language", 11)} ${pad("corpus", 32)} ${lpad("tasks", 5)} ${lpad("correct", 7)}  ${pad("refused (code)", 28)} ${lpad("corruptions", 11)} ${lpad("median ms", 9)}`,
    ...rows,
    "",
    `silent corruptions: ${corruptions} (target 0): ${verdict(corruptions === 0)}`,
    ...report.flatMap((r) =>
      r.failures.map(
        (f) =>
          `  ${r.language} ${f.kind} ${f.file} ${JSON.stringify(f.args)}: ${f.result}${f.code ? ` ${f.code}` : ""}${f.why ? ` — ${f.why}` : ""}${f.diffAt ? ` at line ${f.diffAt.line}: got ${JSON.stringify(f.diffAt.got)}, expected ${JSON.stringify(f.diffAt.expected)}` : ""}`,
      ),
    ),
  ];
  const inProcess = await timeInProcess();
  lines.push(
    "",
    `in process, on ${inProcess.file} (${inProcess.lines} lines), median of 7: ${Object.entries(inProcess.ms)
      .map(([k, v]) => `${k} ${v} ms`)
      .join(", ")}`,
  );
  const notes = distStamp() === distAtStart ? [] : ["dist/ was rebuilt while the bench ran: figures mix two builds"];
  publish(lines, notes, path.join(OUT_DIR, "ast-edits.json"), { env, dist_built: new Date(distAtStart).toISOString(), seed: SEED, per_kind: PER_KIND, languages: report, in_process: inProcess });
}

runBench(main);
