// The benches' shared corpus (index-speed, query-latency, callers-accuracy): the TypeScript source
// that eleven npm packages ship in their tarballs, fetched with `npm pack <name>@<exact version>`
// into bench/.corpus/ (gitignored) and checked against the integrity hashes pinned below. Only
// src/**/*.{ts,tsx,mts,cts} (minus .d.ts and *.test/*.spec files) plus each package's package.json
// and LICENSE are kept; compiled output (.js, .d.ts, dist/, build/), READMEs and source maps are
// deleted. The download is skipped when bench/.corpus/.stamp.json matches the pinned list.
// Also the helpers the benches share: statistics and formatting, the seeded PRNG, indexing the
// corpus and loading mast's tools from dist/, the run's environment and its build notes.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(BENCH_DIR, "..");
export const CORPUS = path.join(BENCH_DIR, ".corpus");
export const OUT_DIR = path.join(BENCH_DIR, ".out");
export const DIST = path.join(REPO, "dist");
export const MAST = path.join(DIST, "bin", "mast.js");
export const RG_INSTALL = "apt-get install -y ripgrep";
export const TIME = "/usr/bin/time";

/**
 * One real project per language beyond TypeScript, installed from a pinned Debian package (the
 * package version pins the source): the corpora of bench/index-languages.mjs (every language) and
 * bench/callers-oracle.mjs (Go, Python, Rust). `layout` "root": the package's directory is the project (its go.mod or
 * Cargo.toml is there); "package": it is copied under the project root as `<name>/`.
 */
export const LANGUAGE_CORPORA = {
  go: {
    name: "gin",
    version: "1.8.1",
    source: "/usr/share/gocode/src/github.com/gin-gonic/gin",
    install: "apt-get install -y golang-github-gin-gonic-gin-dev",
    layout: "root",
    ctags: "Go",
    rgType: "go",
  },
  python: { name: "click", version: "8.1.3", source: "/usr/lib/python3/dist-packages/click", install: "apt-get install -y python3-click", layout: "package", ctags: "Python", rgType: "py" },
  rust: {
    name: "regex-syntax",
    version: "0.6.27",
    source: "/usr/share/cargo/registry/regex-syntax-0.6.27",
    install: "apt-get install -y librust-regex-syntax-dev",
    layout: "root",
    ctags: "Rust",
    rgType: "rust",
  },
  // The languages read at breadth (index-languages only). No Debian package ships C# sources.
  java: {
    name: "java.util",
    version: "17.0.19",
    source: "/usr/lib/jvm/openjdk-17/lib/src.zip",
    zipMembers: ["java.base/java/util/*.java", "-x", "java.base/java/util/*/*"],
    install: "apt-get install -y openjdk-17-source",
    layout: "root",
    ctags: "Java",
    rgType: "java",
  },
  c: { name: "zlib-examples", version: "1.2.13", source: "/usr/share/doc/zlib1g-dev/examples", install: "apt-get install -y zlib1g-dev", layout: "root", ctags: "C", rgType: "c" },
  cpp: { name: "fmt", version: "9.1.0", source: "/usr/include/fmt", install: "apt-get install -y libfmt-dev", layout: "root", ctags: "C++", rgType: "cpp" },
  ruby: { name: "rack", version: "2.2.22", source: "/usr/share/rubygems-integration/all/gems/rack-2.2.22", install: "apt-get install -y ruby-rack", layout: "root", ctags: "Ruby", rgType: "ruby" },
  php: {
    name: "symfony-console",
    version: "5.4.53",
    source: "/usr/share/php/Symfony/Component/Console",
    install: "apt-get install -y php-symfony-console",
    layout: "root",
    ctags: "PHP",
    rgType: "php",
  },
};

/**
 * The deep languages' callers corpora (bench/callers-oracle.mjs): each language's corpus above
 * and real projects no resolver rule was written from (issue 32's flask, httpx, cobra,
 * urfave/cli, walkdir), each pinned by its Debian package. `crate`, `edition` and `externs`
 * (Debian registry crates compiled first and passed as `--extern`) are rustc's.
 */
export const CALLERS_CORPORA = {
  python: [
    LANGUAGE_CORPORA.python,
    // Whole repositories, tests and examples included (pytest fixtures are half of flask's calls).
    { name: "flask", version: "2ac8988 (3.1.3+)", git: { url: "https://github.com/pallets/flask", commit: "2ac89889f4cc330eabd50f295dcef02828522c69" }, layout: "root", rgType: "py" },
    { name: "httpx", version: "ae1b9f6 (1.0.0.beta0+)", git: { url: "https://github.com/encode/httpx", commit: "ae1b9f66238f75ced3ced5e4485408435de10768" }, layout: "root", rgType: "py" },
  ],
  go: [
    LANGUAGE_CORPORA.go,
    { name: "cobra", version: "1.6.1", source: "/usr/share/gocode/src/github.com/spf13/cobra", install: "apt-get install -y golang-github-spf13-cobra-dev", layout: "root", rgType: "go" },
    { name: "cli", version: "2.3.0", source: "/usr/share/gocode/src/github.com/urfave/cli/v2", install: "apt-get install -y golang-github-urfave-cli-v2-dev", layout: "root", rgType: "go" },
  ],
  rust: [
    { ...LANGUAGE_CORPORA.rust, crate: "regex_syntax", edition: "2018", externs: [] },
    {
      name: "walkdir",
      version: "2.3.2",
      source: "/usr/share/cargo/registry/walkdir-2.3.2",
      install: "apt-get install -y librust-walkdir-dev",
      layout: "root",
      rgType: "rust",
      crate: "walkdir",
      edition: "2018",
      externs: [{ crate: "same_file", source: "/usr/share/cargo/registry/same-file-1.0.6", edition: "2018" }],
    },
  ],
};

/** A temp copy of a language corpus: `{ tmp, root }` (remove `tmp` when done); a missing package names its apt-get line. */
export function copyLanguageCorpus(language) {
  return copyCorpus(language, LANGUAGE_CORPORA[language]);
}

/**
 * A repository at a pinned commit, unpacked under `root`: from a local mirror when one is there
 * (`MAST_BENCH_MIRRORS`, default /work/.mirror, laid out `<owner>+<name>/repo`), else cloned from
 * its URL (the commit is checked out either way, so both give the same tree).
 */
function unpackGit(git, tmp, root) {
  const [owner, name] = new URL(git.url).pathname.slice(1).split("/");
  const mirror = path.join(process.env.MAST_BENCH_MIRRORS ?? "/work/.mirror", `${owner}+${name}`, "repo");
  let gitDir = mirror;
  if (!fs.existsSync(mirror)) {
    gitDir = path.join(tmp, "clone.git");
    const clone = spawnSync("git", ["clone", "--bare", "--quiet", git.url, gitDir], { encoding: "utf8" });
    if (clone.status !== 0) throw new BenchError(`cannot clone ${git.url} (no mirror at ${mirror}): ${clone.stderr || clone.error?.message || ""}`);
  }
  fs.mkdirSync(root, { recursive: true });
  const r = spawnSync("sh", ["-c", 'git --git-dir="$1" archive "$2" | tar -x -C "$3"', "sh", gitDir, git.commit, root], { encoding: "utf8" });
  if (r.status !== 0) throw new BenchError(`cannot unpack ${git.url} at ${git.commit}: ${r.stderr}`);
}

/** A temp copy of corpus `c` of `language` (see copyLanguageCorpus). */
export function copyCorpus(language, c) {
  if (c.git) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `mast-${language}-`));
    const root = path.join(tmp, c.name);
    unpackGit(c.git, tmp, root);
    return { tmp, root };
  }
  if (!fs.existsSync(c.source)) throw new BenchError(`${c.source} is missing: ${c.install}`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `mast-${language}-`));
  const root = c.layout === "root" ? path.join(tmp, c.name) : path.join(tmp, "project");
  if (c.zipMembers) {
    // A part of a source archive (the JDK's src.zip): its members unpacked under the project root.
    fs.mkdirSync(root, { recursive: true });
    const r = spawnSync("unzip", ["-q", c.source, ...c.zipMembers, "-d", root], { encoding: "utf8" });
    if (r.status !== 0) throw new BenchError(`unzip ${c.source} failed (exit ${r.status}): ${r.stderr || r.error?.message || ""} (apt-get install -y unzip)`);
  } else fs.cpSync(c.source, c.layout === "root" ? root : path.join(root, c.name), { recursive: true, filter: (src) => !src.includes("__pycache__") });
  return { tmp, root };
}

/** Runs argv (under /usr/bin/time -f %M when `useTime`) and returns wall ms, peak RSS KB, stdout and stderr; a failure is a BenchError. */
export function measure(argv, { useTime }) {
  const [cmd, ...args] = useTime ? [TIME, "-f", "%M", ...argv] : argv;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw new BenchError(`cannot run ${cmd}: ${r.error.message}`);
  let stderr = r.stderr ?? "";
  let rssKb = null;
  if (useTime) {
    const lines = stderr.trimEnd().split("\n");
    const last = lines.at(-1)?.trim() ?? "";
    if (/^\d+$/.test(last)) {
      rssKb = Number(last);
      lines.pop();
      stderr = lines.join("\n");
    }
  }
  if (r.status !== 0) {
    throw new BenchError(`command failed (exit ${r.status}${r.signal ? `, signal ${r.signal}` : ""}):\n  ${argv.join(" ")}\n${stderr.trim()}\n${(r.stdout ?? "").slice(0, 2000)}`);
  }
  return { wallMs, rssKb, stdout: r.stdout, stderr };
}

/** Bump when the pruning rule changes, so an old corpus is rebuilt. */
export const CORPUS_FORMAT = 2;

/** Pinned corpus: exact versions and the registry's sha512 integrity of each tarball. */
export const PACKAGES = [
  { name: "rxjs", version: "7.8.1", integrity: "sha512-AA3TVj+0A2iuIoQkWEK/tqFjBq2j+6PO6Y0zJcvzLAFhEFIO3HL0vls9hWLncZbAAbK0mar7oZ4V079I/qPMxg==" },
  { name: "zod", version: "3.25.76", integrity: "sha512-gzUt/qt81nXsFGKIFcC3YnfEAx5NkunCfnDlvuBSSFS02bcXu4Lmea0AFIUwbLWxWPx3d9p8S5QoaujKcNQxcQ==" },
  { name: "@reduxjs/toolkit", version: "2.15.0", integrity: "sha512-tHrFdR/AAbhhnL0/D3Abu60mAeyRqMAaq3pMeIKWRFWpzZek9LbGKk9J2U+Cl43FixzEDaYKk3zUoK7sFl98FA==" },
  { name: "@tiptap/core", version: "3.35.0", integrity: "sha512-jrtRrAfgL7bXd2ecy0T7G4b6ozwzW9h67B3iQsDmgu7PWytkqbrUPFrki6LjyysrxZEK4jqgRMNCvfe2Yx2fKg==" },
  { name: "@trpc/server", version: "11.25.2", integrity: "sha512-zfFwyroSYSYlsAGo7yezGM+gAhHRBD9LyVMkXyCjWM2JuhorKGzl2fBzEUjHSKTtYlJ8l6DR3LHsBHBCTmAofQ==" },
  { name: "@trpc/client", version: "11.25.2", integrity: "sha512-x601Z/ZURzf+wMVk5LX3j/ujh/SrUy6D/ygN/YDq1WfQ2csSVTduMLLNnF0OD0FyszffUM5PoUnoabH3ZbLHJQ==" },
  { name: "@tanstack/query-core", version: "5.108.4", integrity: "sha512-2Ks5dlLWz4eXJrthOyG0qW3SLt3xx0RrQmAmN0rnmogiaaOYuWiAe6HAm9KE2b2v8nig+vraNz8fsfZ6fF6zFg==" },
  { name: "@tanstack/react-query", version: "5.108.4", integrity: "sha512-GlTa94kfEKTVsbzXe58rFA3GZ0ZE7N1aFtbZAfOS3XxMv8YNn4C+8rsz40LorHLazdm5PsqCroWaYAR+ZkMXMQ==" },
  { name: "mobx", version: "7.1.3", integrity: "sha512-H2NcS5ylMsqYn7v4WpSdzv5YWPmw5XTV6pG2NvY0qYbh95FXbswZJ7pn7wU0rOtUvRzk+3t4AOX2eircoN+vBg==" },
  { name: "immer", version: "11.2.13", integrity: "sha512-APCAndbWjj/fqxe7EXYq1TesdC30XCMPifhd0lyGVELvwLu6d5URaTzdvm6TX78NmuuuMa0/Nxv/D7BcXx5NnQ==" },
  { name: "@mswjs/interceptors", version: "0.41.9", integrity: "sha512-VVPPgHyQ6ShqnrmDWuxjmUIsO9gWyOZFmuOfLd9LfBGQJwZfy0gvv9pbHSJuoFNIYC7ZDX9aoFwowjcdSC4E8w==" },
];

/** The comment the one-file-change step appends (and removes again). */
export const EDIT_MARK = "\n// mast bench edit ";

// What mast indexes by default (src/index/config.ts DEFAULT_SETTINGS), mirrored to describe the corpus.
export const MAST_EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".py", ".pyi", ".go", ".rs", ".md"];
export const MAST_EXCLUDED_DIRS = new Set(["node_modules", "dist", "build", "coverage", ".next", ".turbo", ".mast", ".git"]);
export const MAST_EXCLUDED_FILE = /\.(test|spec)\.ts$/;

// The corpus pruning rule: TypeScript sources under src/, no declarations, no tests.
export const KEEP_SOURCE = /\.(ts|tsx|mts|cts)$/;
const DECLARATION = /\.d\.(ts|mts|cts)$/;
const TEST_FILE = /\.(test|spec)\.(ts|tsx|mts|cts)$/;
const KEEP_TOP = /^(package\.json|LICEN[CS]E(\.[a-z]+)?)$/i;

export class BenchError extends Error {}

// ---------------------------------------------------------------------------------------------
// small helpers

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...opts });
  if (r.error) throw new BenchError(`cannot run ${cmd}: ${r.error.message}`);
  return r;
}

export function have(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return r.error ? null : `${r.stdout}${r.stderr}`;
}

export function listFiles(dir, rel = "") {
  const out = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, r));
    else if (entry.isFile()) out.push(r);
  }
  return out;
}

/** Nearest-rank percentile: the smallest sample with at least p of the samples at or below it. */
export const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)];
};
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
export const stats = (xs) =>
  xs.length === 0 ? null : { n: xs.length, p50: percentile(xs, 0.5), p95: percentile(xs, 0.95), max: Math.max(...xs), min: Math.min(...xs), mean: xs.reduce((a, b) => a + b, 0) / xs.length };
export const round = (x, d = 3) => (x === null || x === undefined ? null : Number(x.toFixed(d)));
export const roundStats = (s) => s && Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === "n" ? v : round(v)]));
export const fmt = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? "n/a" : x.toFixed(digits));
export const pad = (s, n) => String(s).padEnd(n);
export const lpad = (s, n) => String(s).padStart(n);
export const verdict = (ok) => (ok === null ? "n/a " : ok ? "PASS" : "MISS");
export const loadavg = () => os.loadavg().map((x) => Number(x.toFixed(2)));

/** mulberry32: a small seeded PRNG, so a drawn set is the same on every machine. */
/** Counts into a keyed list of distinct examples (the first example kept, the rest counted). */
export class Distinct {
  constructor(limit = Infinity) {
    this.limit = limit;
    this.map = new Map();
    this.total = 0;
  }
  add(key, example) {
    this.total++;
    const hit = this.map.get(key);
    if (hit) hit.count++;
    else if (this.map.size < this.limit) this.map.set(key, { count: 1, ...example });
    else this.dropped = (this.dropped ?? 0) + 1;
  }
  list() {
    return [...this.map.values()];
  }
}

/** What changed between two snapshots (Map path → stamp), by path: [{ path, change: created | changed | removed }]. */
export function diffSnapshots(before, after) {
  const changes = [];
  for (const [p, v] of after) {
    if (!before.has(p)) changes.push({ path: p, change: "created" });
    else if (before.get(p) !== v) changes.push({ path: p, change: "changed" });
  }
  for (const p of before.keys()) if (!after.has(p)) changes.push({ path: p, change: "removed" });
  return changes.sort((a, b) => (a.path < b.path ? -1 : 1));
}

export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded Fisher-Yates shuffle of a copy of xs (which must already be in a fixed order). */
export function shuffled(xs, rand) {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function removeEmptyDirs(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) removeEmptyDirs(path.join(dir, entry.name));
  }

  if (fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
}

// ---------------------------------------------------------------------------------------------
// corpus

function stampOf(packages) {
  return { format: CORPUS_FORMAT, packages: packages.map((p) => `${p.name}@${p.version} ${p.integrity}`) };
}

/** The pinned packages' sources under `root` (the benches' corpus by default), fetched and pruned when the stamp does not match. */
export function ensureCorpus(root = CORPUS, packages = PACKAGES) {
  const stampFile = path.join(root, ".stamp.json");
  const want = JSON.stringify(stampOf(packages));
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8").trim() === want && packages.every((p) => fs.existsSync(path.join(root, p.name)))) {
    return { downloaded: false };
  }
  if (!have("npm", ["--version"])) throw new BenchError("npm is not on PATH; it is needed to fetch the corpus");
  if (!have("tar", ["--version"])) throw new BenchError("tar is not on PATH; it is needed to unpack the corpus");
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const packDir = fs.mkdtempSync(path.join(os.tmpdir(), "mast-bench-pack-"));
  try {
    for (const pkg of packages) {
      const spec = `${pkg.name}@${pkg.version}`;
      process.stderr.write(`fetching ${spec} ...\n`);
      const r = run("npm", ["pack", spec, "--ignore-scripts", "--json", "--pack-destination", packDir], { cwd: packDir });
      if (r.status !== 0) throw new BenchError(`npm pack ${spec} failed (exit ${r.status}):\n${r.stderr.trim()}`);
      const filename = JSON.parse(r.stdout)[0]?.filename;
      const tgz = path.join(packDir, filename ?? "");
      if (!filename || !fs.existsSync(tgz)) throw new BenchError(`npm pack ${spec} produced no tarball`);
      const integrity = `sha512-${createHash("sha512").update(fs.readFileSync(tgz)).digest("base64")}`;
      if (integrity !== pkg.integrity) throw new BenchError(`${spec}: tarball integrity ${integrity} does not match the pinned ${pkg.integrity}`);
      const dest = path.join(root, pkg.name);
      fs.mkdirSync(dest, { recursive: true });
      const t = run("tar", ["-xzf", tgz, "-C", dest, "--strip-components=1", "--no-same-owner"]);
      if (t.status !== 0) throw new BenchError(`tar -xzf ${filename} failed:\n${t.stderr.trim()}`);
      prunePackage(dest);
    }
  } finally {
    fs.rmSync(packDir, { recursive: true, force: true });
  }
  fs.writeFileSync(stampFile, `${want}\n`);
  return { downloaded: true };
}

/**
 * Keeps src/**\/*.{ts,tsx,mts,cts} (no declarations, no tests) and the top-level package.json and
 * LICENSE (a LICENSE.md becomes LICENSE.txt, which mast does not index); deletes everything else.
 */
function prunePackage(dir) {
  for (const rel of listFiles(dir)) {
    const abs = path.join(dir, rel);
    const keep = rel.includes("/") ? rel.startsWith("src/") && KEEP_SOURCE.test(rel) && !DECLARATION.test(rel) && !TEST_FILE.test(rel) : KEEP_TOP.test(rel);
    if (!keep) fs.rmSync(abs);
    else if (/\.md$/i.test(rel)) fs.renameSync(abs, abs.replace(/\.md$/i, ".txt"));
  }
  removeEmptyDirs(dir);
}

/** A run killed mid-edit (SIGKILL) may have left its comment in a tree's file (the corpus's by default): cut it off. */
export function repairInterruptedEdit(root = CORPUS) {
  for (const rel of listFiles(root)) {
    if (!KEEP_SOURCE.test(rel)) continue;
    const abs = path.join(root, rel);
    const text = fs.readFileSync(abs);
    const cut = text.indexOf(EDIT_MARK);
    if (cut >= 0) {
      fs.writeFileSync(abs, text.subarray(0, cut));
      process.stderr.write(`bench: removed a leftover bench edit from ${rel}\n`);
    }
  }
}

/**
 * The files mast would index with its default config, walked the way mast does (no symlinks).
 * root defaults to the pinned corpus; for another directory `packages` is null.
 */
export function describeCorpus(root = CORPUS) {
  const all = listFiles(root);
  const indexable = all.filter((rel) => {
    const parts = rel.split("/");
    if (parts.slice(0, -1).some((d) => MAST_EXCLUDED_DIRS.has(d))) return false;
    const name = parts.at(-1);
    return MAST_EXTENSIONS.some((e) => name.endsWith(e)) && !MAST_EXCLUDED_FILE.test(name);
  });
  const sized = indexable.map((rel) => ({ rel, size: fs.statSync(path.join(root, rel)).size }));
  const packages =
    root !== CORPUS
      ? null
      : PACKAGES.map((p) => {
          const mine = sized.filter((f) => f.rel.startsWith(`${p.name}/`));
          const byExt = {};
          for (const f of mine) {
            const ext = path.extname(f.rel);
            byExt[ext] = (byExt[ext] ?? 0) + 1;
          }
          const largest = mine.reduce((a, f) => (a === null || f.size > a.size ? f : a), null);
          return {
            name: p.name,
            version: p.version,
            files: mine.length,
            bytes: mine.reduce((a, f) => a + f.size, 0),
            by_extension: byExt,
            largest: largest && { path: largest.rel, bytes: largest.size },
          };
        });
  const byExt = {};
  for (const f of sized) byExt[path.extname(f.rel)] = (byExt[path.extname(f.rel)] ?? 0) + 1;
  // The one-file-change target: the median-size file (ties broken by path), a typical edit.
  const bySize = [...sized].sort((a, b) => a.size - b.size || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const editTarget = bySize[bySize.length >> 1];
  return {
    root,
    files: sized.length,
    bytes: sized.reduce((a, f) => a + f.size, 0),
    by_extension: byExt,
    has_js: sized.some((f) => /\.(js|jsx|mjs|cjs)$/.test(f.rel)),
    has_tsx: sized.some((f) => f.rel.endsWith(".tsx")),
    packages,
    edit_target: editTarget && { path: editTarget.rel, bytes: editTarget.size },
  };
}

/** Newest mtime under dist/ (or another build's dist): a change during a run means mast was rebuilt under the bench. */
export function distStamp(dist = DIST) {
  return Math.max(...listFiles(dist).map((rel) => fs.statSync(path.join(dist, rel)).mtimeMs));
}

/** The machine and build a bench ran on, for its JSON report. */
export function machineFacts() {
  const nprocOut = have("nproc", []);
  const rev = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO, encoding: "utf8" });
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpu: os.cpus()[0]?.model ?? "unknown",
    nproc: nprocOut ? Number(nprocOut.trim()) : os.availableParallelism(),
    total_mem_gb: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    mast_commit: rev.status === 0 ? rev.stdout.trim() : null,
  };
}

/** The machine, build and load a bench's run starts on (machineFacts plus src/ state and load). */
export function benchEnvironment() {
  const dirty = spawnSync("git", ["status", "--porcelain", "--", "src"], { cwd: REPO, encoding: "utf8" });
  return { ...machineFacts(), src_modified: dirty.status === 0 ? dirty.stdout.trim() !== "" : null, loadavg_at_start: loadavg() };
}

/** Notes on the build and the machine that make a run's figures doubtful (env from benchEnvironment). */
export function buildNotes(env, distAtStart) {
  const notes = [];
  if (distStamp() !== distAtStart) notes.push("dist/ changed while the bench ran (someone rebuilt mast): the figures may mix two builds, run again");
  const srcNewer = listFiles(path.join(REPO, "src")).filter((rel) => fs.statSync(path.join(REPO, "src", rel)).mtimeMs > distAtStart);
  if (srcNewer.length)
    notes.push(
      `src/ is newer than dist/ (${srcNewer
        .slice(0, 3)
        .map((r) => `src/${r}`)
        .join(", ")}${srcNewer.length > 3 ? ", ..." : ""}): the figures are for an older build, run \`npm run build\` first`,
    );
  if (env.src_modified) notes.push("src/ has uncommitted changes: dist/ may be built from a work in progress, not from the commit shown");
  if (env.loadavg_at_start[0] > env.nproc / 2) notes.push(`1-minute load average was ${env.loadavg_at_start[0]} at start on ${env.nproc} CPUs: other work was running, timings are noisy`);
  return notes;
}

/**
 * Installs a pinned npm package into `dir` (bench/.tools/<name>, gitignored) once, and checks its
 * `bin`: `{ version }`, or `{ error }` when npm cannot (the bench then says what it skipped).
 */
export function ensureNpmTool({ name, version }, dir, bin) {
  const installed = path.join(dir, "node_modules", ...name.split("/"), "package.json");
  const current = () => (fs.existsSync(installed) ? JSON.parse(fs.readFileSync(installed, "utf8")).version : null);
  if (current() !== version) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ private: true, dependencies: { [name]: version } }, null, 2)}\n`);
    process.stderr.write(`installing ${name}@${version} into ${path.relative(REPO, dir)} ...\n`);
    const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) return { error: `npm install ${name}@${version} failed: ${(r.stderr || r.error?.message || "").trim().slice(0, 500)}` };
  }
  if (current() !== version || !fs.existsSync(bin)) return { error: `${name}@${version} is not installed in ${dir}` };
  return { version };
}

// ---------------------------------------------------------------------------------------------
// mast from dist/

const TOOL_MODULES = [path.join(DIST, "tools", "context.js"), path.join(DIST, "tools", "registry.js"), path.join(DIST, "index", "config.js")];

/** The first dist/ file the in-process benches need that is missing (repo-relative), or null. */
export function missingBuild() {
  const missing = [MAST, ...TOOL_MODULES].find((f) => !fs.existsSync(f));
  return missing ? path.relative(REPO, missing) : null;
}

/**
 * Makes `dir` a project of its own: a mast.config.json (`{}`, the defaults) when it has none. A
 * command given a directory works on the nearest project at or above it, like git (`.mast` or
 * mast.config.json): without this, a corpus inside a checkout that has its own `.mast` would be
 * measured as that checkout.
 */
export function ownProject(dir) {
  const file = path.join(dir, "mast.config.json");
  if (!fs.existsSync(file)) fs.writeFileSync(file, "{}\n");
}

/** A fresh `mast index <root> --state-dir <stateDir> --json` (root: the pinned corpus by default): its wall time and JSON report. */
export function indexCorpus(stateDir, root = CORPUS, extraArgs = [], { rss = false } = {}) {
  ownProject(root);
  const argv = [MAST, "index", root, "--state-dir", stateDir, "--json", ...extraArgs];
  const t0 = performance.now();
  // With `rss`, under /usr/bin/time -f %M: the peak RSS of mast or of any child it waited for (an analyzer).
  const r = rss
    ? spawnSync(TIME, ["-f", "%M", process.execPath, ...argv], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    : spawnSync(process.execPath, argv, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const wallMs = performance.now() - t0;
  if (r.error) throw new BenchError(`cannot run mast index: ${r.error.message}`);
  if (r.status !== 0) throw new BenchError(`mast index failed (exit ${r.status}):\n${r.stderr.trim()}\n${r.stdout.slice(0, 2000)}`);
  const last = rss ? (r.stderr.trimEnd().split("\n").at(-1)?.trim() ?? "") : "";
  const rssKb = /^\d+$/.test(last) ? Number(last) : null;
  let report;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    throw new BenchError(`mast index printed no JSON report:\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(0, 2000)}`);
  }
  return { wall_ms: wallMs, rss_kb: rssKb, report };
}

/** A ToolContext on root's (by default the pinned corpus's) index in stateDir and dist/'s callTool; close the context when done. */
export async function openTools(stateDir, root = CORPUS) {
  const [{ createToolContext }, { callTool }, { resolveConfig, resolveProjectRoot }] = await Promise.all(TOOL_MODULES.map((f) => import(pathToFileURL(f).href)));
  const ctx = createToolContext(resolveConfig(resolveProjectRoot(root), { stateDir }));
  return { ctx, callTool };
}

// ---------------------------------------------------------------------------------------------
// reports

/** Prints a bench's report lines (its notes last) and writes its figures as JSON to `outJson`. */
export function publish(lines, notes, outJson, figures) {
  if (notes.length) lines.push("", "notes", ...notes.map((n) => `  - ${n}`));
  lines.push("", `figures written to ${path.relative(REPO, outJson)}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  fs.mkdirSync(path.dirname(outJson), { recursive: true });
  fs.writeFileSync(outJson, `${JSON.stringify(figures, null, 2)}\n`);
}

/**
 * Runs a bench's main and sets the exit code from it; a BenchError is one line on stderr and exit
 * 1. `onError` runs first on any failure (e.g. to kill child processes the bench started).
 */
export async function runBench(main, onError = () => {}) {
  try {
    process.exitCode = await main();
  } catch (err) {
    onError();
    if (!(err instanceof BenchError)) throw err;
    process.stderr.write(`bench: ${err.message}\n`);
    process.exitCode = 1;
  }
}
