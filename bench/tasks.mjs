#!/usr/bin/env node
// Task-finding bench (issue 39): does mast_search, given a task's words, name the files a real fix
// changed — and at what size — beside keyword top-10 (files ranked by tf-idf, read whole).
//
//   npm run build && npm run bench:tasks [-- --repo <owner/name>] [--tasks N]
//
// 1. Tasks come from the git history of real repositories (REPOS: eight, six languages), each
//    pinned at a commit: the newest TASKS_PER_REPO non-merge commits before it whose subject says
//    they fix something and that modify 1–3 existing non-test source files (of a language mast
//    indexes; added or deleted files are not findable in the parent and disqualify nothing), whose
//    text names at least MIN_TASK_WORDS words beside its verb ("fix mypy finding" is no task).
//    The repositories come from a local mirror (MAST_BENCH_MIRRORS, default /work/.mirror,
//    `<owner>+<name>/repo`) or are cloned bare from GitHub.
// 2. The task text: the subject and the first paragraph of the body, with PR and issue numbers,
//    trailers and URLs removed. The answer key: the modified non-test source files.
// 3. The index is of the fix's parent tree: unpacked in one directory per repository and indexed
//    incrementally from the previous task's (tasks in commit order), with dist/'s mast.
// 4. mast_search with the task text and default arguments (in-process, dist/tools/registry.js):
//    the files its answer names (results and the files it names beyond them) against the key —
//    all found, file recall — its size in tokens (@anthropic-ai/tokenizer), and the time of a
//    second identical call (the first may complete the index run's deferred text index).
// 5. Keyword top-10 in the same run: the tree's source files ranked by Σ tf·idf of the task's words
//    (lower-cased alphanumeric runs, identifiers split), the first 10 read whole.
//
// A report, not a test: exits 0 whether targets PASS or MISS, non-zero only when something could
// not run. Figures go to bench/.out/tasks.json (per task, per repository, overall).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { BenchError, DIST, MAST, OUT_DIR, fmt, lpad, median, missingBuild, openTools, pad, percentile, publish, round, runBench, verdict } from "./corpus.mjs";

const { countTokens } = createRequire(import.meta.url)("@anthropic-ai/tokenizer");

/** The repositories, each pinned at a commit (the newest its tasks may come from). */
const REPOS = [
  { repo: "encode/httpx", commit: "ae1b9f66238f75ced3ced5e4485408435de10768", language: "python" },
  { repo: "pallets/flask", commit: "2ac89889f4cc330eabd50f295dcef02828522c69", language: "python" },
  { repo: "urfave/cli", commit: "1305a08200f7c4d873e28bd2bbad1ff257c6cfc4", language: "go" },
  { repo: "colinhacks/zod", commit: "e516c3baf22615e20934116abebfed6c000222c2", language: "typescript" },
  { repo: "honojs/hono", commit: "28a9c128912de19f3fb28b00ae289c9b93f6f392", language: "typescript" },
  { repo: "jhy/jsoup", commit: "46b620860af930eedc193a705eaf7cea5aec89a6", language: "java" },
  { repo: "guzzle/guzzle", commit: "2779e868a00289e1b1fd854af030c43a06f4bcb4", language: "php" },
  { repo: "sinatra/sinatra", commit: "cb22afd7902b566b6eaba6c4ea89739494a65d12", language: "ruby" },
];
const TASKS_PER_REPO = 20;
/** A subject that says the commit fixes something. */
const FIX = /\b(?:fix(?:e[sd]|ing)?|bug|regression|crash(?:es)?|broken|incorrect(?:ly)?|wrong)\b/i;
/** Subjects that fix no behaviour a task would describe. */
const NOT_A_TASK = /\b(?:typos?|lint(?:ing)?|flake|ci|changelog|docs?|documentation|readme|spelling|formatting)\b/i;
const MAX_KEY_FILES = 3;
/** Words a task names beside its verb: "fix mypy finding", "Fix Javadoc format" describe no task an agent is given. */
const MIN_TASK_WORDS = 3;

/** The distinct words of 3+ letters a task's text has beside the fix words. */
function describedWords(text) {
  return new Set((text.toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []).filter((w) => !FIX.test(w))).size;
}
const KEYWORD_TOP = 10;
const TARGETS = { all_found: 0.85, per_repo: 0.75, median_tokens: 4000 };

const git = (gitDir, args, opts = {}) => {
  const r = spawnSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...opts });
  if (r.status !== 0) throw new BenchError(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
};

function gitDirOf(repo, tmp) {
  const [owner, name] = repo.split("/");
  const mirror = path.join(process.env.MAST_BENCH_MIRRORS ?? "/work/.mirror", `${owner}+${name}`, "repo");
  if (fs.existsSync(mirror)) return mirror;
  const clone = path.join(tmp, `${owner}+${name}.git`);
  const r = spawnSync("git", ["clone", "--bare", "--quiet", `https://github.com/${repo}`, clone], { encoding: "utf8" });
  if (r.status !== 0) throw new BenchError(`cannot clone ${repo} (no mirror at ${mirror}): ${r.stderr || r.error?.message || ""}`);
  return clone;
}

/** The task text of a commit message: subject and first body paragraph, without PR/issue numbers, trailers or URLs. */
export function taskText(message) {
  const [subject = "", ...rest] = message.replace(/\r/g, "").split("\n");
  const body =
    rest
      .join("\n")
      .trim()
      .split(/\n\s*\n/)[0] ?? "";
  const paragraph = body
    .split("\n")
    .filter((l) => !/^\s*(?:[\w-]+:\s|\*\s*$|-{3,}|closes?\b|fixes?\s*#|resolves?\b|see\s*#|refs?\b)/i.test(l) && !/^\s*[-*]\s*\[[ x]\]/i.test(l))
    .join(" ");
  return `${subject}\n${paragraph}`
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/\(\s*(?:#|gh-)\d+\s*\)/gi, " ")
    .replace(/(?:\b[\w.-]+\/[\w.-]+)?#\d+\b/g, " ")
    .replace(/\bgh-\d+\b/gi, " ")
    .replace(/[ \t]+/g, " ")
    .trim();
}

/** The qualifying fix commits of a repository, newest first: { sha, parent, text, key }. */
function tasksOf(gitDir, spec, limit, isSource) {
  const log = git(gitDir, ["log", "--no-merges", "--format=%H%x00%P%x00%B%x01", spec.commit]);
  const tasks = [];
  for (const entry of log.split("\x01")) {
    if (tasks.length >= limit) break;
    const [sha, parents, message] = entry.replace(/^\n/, "").split("\x00");
    if (!sha || !parents || parents.includes(" ") || message === undefined) continue;
    const subject = message.split("\n")[0] ?? "";
    if (!FIX.test(subject) || NOT_A_TASK.test(subject) || /^(?:chore|docs|test|ci|build)(?:\(|:)/i.test(subject)) continue;
    const changed = git(gitDir, ["diff-tree", "--no-commit-id", "-r", "--name-status", parents, sha])
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split("\t"));
    const key = changed.filter(([status, file]) => status === "M" && isSource(file)).map(([, file]) => file);
    if (key.length === 0 || key.length > MAX_KEY_FILES) continue;
    const text = taskText(message);
    if (describedWords(text) < MIN_TASK_WORDS) continue;
    tasks.push({ sha, parent: parents, text, key });
  }
  return tasks;
}

/** Lower-cased words of a text with identifiers split (camelCase, snake_case), 3+ characters. */
function words(text) {
  const out = [];
  for (const run of text.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) {
    for (const part of run.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/)) if (part.length >= 3) out.push(part.toLowerCase());
    if (/[a-z][A-Z]|[A-Z]{2}[a-z]/.test(run) && run.length >= 3) out.push(run.toLowerCase());
  }
  return out;
}

/** Keyword top-10: source files by Σ tf·idf of the task's words; the first KEYWORD_TOP read whole. */
function keywordTop(files, task) {
  const terms = [...new Set(words(task))];
  const df = new Map(terms.map((t) => [t, 0]));
  const tf = [];
  for (const f of files) {
    const counts = new Map();
    for (const w of f.words) if (df.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
    for (const t of counts.keys()) df.set(t, df.get(t) + 1);
    tf.push(counts);
  }
  const n = files.length;
  const scored = files.map((f, i) => {
    let score = 0;
    for (const [t, c] of tf[i]) score += (1 + Math.log(c)) * Math.log(n / df.get(t));
    return { path: f.path, score, text: f.text };
  });
  const top = scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
    .slice(0, KEYWORD_TOP);
  return { files: top.map((t) => t.path), tokens: top.reduce((sum, t) => sum + countTokens(t.text), 0) };
}

/** The files an answer names: its results', and those it names beyond them (`more_files`). */
function answerFiles(answer) {
  const named = new Set((answer.results ?? []).map((r) => r.file_path));
  for (const m of answer.more_files ?? []) named.add(typeof m === "string" ? m : m.file_path);
  return named;
}

function listTree(root, isSource) {
  const out = [];
  const walk = (dir, rel) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name === ".git" || e.name === "node_modules") continue;
        walk(path.join(dir, e.name), r);
      } else if (e.isFile() && isSource(r)) out.push(r);
    }
  };
  walk(root, "");
  return out;
}

async function main() {
  const { values } = parseArgs({ options: { repo: { type: "string", multiple: true }, tasks: { type: "string" } } });
  const missing = missingBuild();
  if (missing) throw new BenchError(`${missing} is missing: run \`npm run build\` first`);
  const limit = values.tasks ? Number(values.tasks) : TASKS_PER_REPO;
  if (!Number.isInteger(limit) || limit < 1) throw new BenchError("--tasks takes a positive integer");
  const repos = values.repo ? REPOS.filter((r) => values.repo.includes(r.repo)) : REPOS;
  if (repos.length === 0) throw new BenchError(`no such repository; one of: ${REPOS.map((r) => r.repo).join(", ")}`);
  const [{ isTestPath }, { extensionInfo }] = await Promise.all([import(pathToFileURL(path.join(DIST, "base", "paths.js")).href), import(pathToFileURL(path.join(DIST, "lang", "languages.js")).href)]);
  const isSource = (file) => {
    const spec = extensionInfo(file)?.spec;
    return spec !== undefined && spec.name !== "markdown" && !isTestPath(file);
  };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mast-tasks-"));
  const perTask = [];
  try {
    for (const spec of repos) {
      const gitDir = gitDirOf(spec.repo, tmp);
      const tasks = tasksOf(gitDir, spec, limit, isSource).reverse();
      const root = path.join(tmp, spec.repo.replace("/", "+"));
      const stateDir = path.join(tmp, `${spec.repo.replace("/", "+")}.state`);
      process.stderr.write(`${spec.repo}: ${tasks.length} tasks\n`);
      for (const task of tasks) {
        fs.rmSync(root, { recursive: true, force: true });
        fs.mkdirSync(root, { recursive: true });
        const r = spawnSync("sh", ["-c", 'git --git-dir="$1" archive "$2" | tar -x -C "$3"', "sh", gitDir, task.parent, root], { encoding: "utf8" });
        if (r.status !== 0) throw new BenchError(`cannot unpack ${spec.repo} at ${task.parent}: ${r.stderr}`);
        const index = spawnSync(process.execPath, [MAST, "index", root, "--state-dir", stateDir, "--json"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
        if (index.status !== 0) throw new BenchError(`mast index failed on ${spec.repo}@${task.parent}: ${index.stderr}`);
        const { ctx, callTool } = await openTools(stateDir, root);
        let answer;
        let ms;
        try {
          // The first search after an index run may complete its deferred text index: the second is the one timed.
          answer = await callTool(ctx, "mast_search", { query: task.text });
          const t0 = performance.now();
          await callTool(ctx, "mast_search", { query: task.text });
          ms = performance.now() - t0;
        } finally {
          ctx.close();
        }
        const named = answerFiles(answer);
        const files = listTree(root, isSource).map((p) => {
          const text = fs.readFileSync(path.join(root, p), "utf8");
          return { path: p, text, words: words(text) };
        });
        const keyword = keywordTop(files, task.text);
        const found = task.key.filter((f) => named.has(f)).length;
        const kwFound = task.key.filter((f) => keyword.files.includes(f)).length;
        perTask.push({
          repo: spec.repo,
          language: spec.language,
          sha: task.sha.slice(0, 12),
          task: task.text.slice(0, 300),
          key: task.key,
          mast: { files: [...named], found, recall: found / task.key.length, all: found === task.key.length, tokens: countTokens(JSON.stringify(answer)), ms: round(ms, 1) },
          keyword: { files: keyword.files, found: kwFound, recall: kwFound / task.key.length, all: kwFound === task.key.length, tokens: keyword.tokens },
        });
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  const summarize = (rows) => ({
    tasks: rows.length,
    mast_all: rows.filter((t) => t.mast.all).length / rows.length,
    mast_recall: rows.reduce((s, t) => s + t.mast.recall, 0) / rows.length,
    mast_tokens_p50: median(rows.map((t) => t.mast.tokens)),
    mast_tokens_p95: percentile(
      rows.map((t) => t.mast.tokens),
      0.95,
    ),
    mast_ms_p50: median(rows.map((t) => t.mast.ms)),
    keyword_all: rows.filter((t) => t.keyword.all).length / rows.length,
    keyword_recall: rows.reduce((s, t) => s + t.keyword.recall, 0) / rows.length,
    keyword_tokens_p50: median(rows.map((t) => t.keyword.tokens)),
  });
  const byRepo = Object.fromEntries(repos.map((r) => [r.repo, summarize(perTask.filter((t) => t.repo === r.repo))]).filter(([, s]) => s.tasks > 0));
  const overall = summarize(perTask);
  const row = (name, s) =>
    `  ${pad(name, 18)} ${lpad(s.tasks, 5)}  ${lpad(fmt(s.mast_all, 2), 5)} ${lpad(fmt(s.mast_recall, 2), 6)} ${lpad(Math.round(s.mast_tokens_p50), 7)} ${lpad(Math.round(s.mast_tokens_p95), 7)} ${lpad(fmt(s.mast_ms_p50, 0), 5)}   ${lpad(fmt(s.keyword_all, 2), 5)} ${lpad(fmt(s.keyword_recall, 2), 6)} ${lpad(Math.round(s.keyword_tokens_p50), 8)}`;
  const lines = [
    `task finding — ${perTask.length} fix commits from ${Object.keys(byRepo).length} repositories (${os.cpus().length} cores)`,
    "",
    `  ${pad("repository", 18)} ${lpad("tasks", 5)}  ${lpad("all", 5)} ${lpad("recall", 6)} ${lpad("tok p50", 7)} ${lpad("tok p95", 7)} ${lpad("ms", 5)}   ${lpad("kw all", 5)} ${lpad("recall", 6)} ${lpad("kw tok", 8)}`,
    ...Object.entries(byRepo).map(([name, s]) => row(name, s)),
    row("overall", overall),
    "",
    `  mast_search names every changed file: ${fmt(overall.mast_all, 3)}   target ≥ ${TARGETS.all_found}  ${verdict(overall.mast_all >= TARGETS.all_found)}`,
    `  worst repository: ${fmt(Math.min(...Object.values(byRepo).map((s) => s.mast_all)), 3)}   target ≥ ${TARGETS.per_repo}  ${verdict(Object.values(byRepo).every((s) => s.mast_all >= TARGETS.per_repo))}`,
    `  median answer: ${Math.round(overall.mast_tokens_p50)} tokens   target ≤ ${TARGETS.median_tokens}  ${verdict(overall.mast_tokens_p50 <= TARGETS.median_tokens)}`,
  ];
  const notes = [`${TASKS_PER_REPO === limit ? "" : `--tasks ${limit}; `}keyword top-${KEYWORD_TOP}: files by Σ tf·idf of the task's words, read whole`];
  publish(lines, notes, path.join(OUT_DIR, `tasks${values.repo ? `.${values.repo.map((r) => r.replace("/", "+")).join(",")}` : ""}.json`), {
    targets: TARGETS,
    overall,
    by_repo: byRepo,
    tasks: perTask,
  });
  return 0;
}

// Run as a script (a test or a script may import taskText alone).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await runBench(main);
