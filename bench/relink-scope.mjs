#!/usr/bin/env node
// Relink-scope bench: how many files a one-file change relinks in a real Go module (issue 35's
// target: a one-file change in a ~1,000-file Go module relinks ≤ 10% of it).
//
//   npm run build && npm run bench:relink [-- --tree <dir> --samples 40]
//
// The tree: prometheus as the scale bench copies it (bench/.scale/tree-<MB>/c00/prometheus, made by
// `npm run bench:scale`), or any Go tree given by --tree. It is copied to a temporary directory
// first (this bench edits files), indexed once, then for each kind of edit and each of `samples` Go
// files it applies to, spread over the sorted list: the edit made, `mast index --incremental`, its
// `files_linked` recorded, the file restored (bytes and mtime) and the index re-synced unmeasured.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const MAST = path.join(ROOT, "dist", "bin", "mast.js");
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
// Each edit gives the file's new text, or null where it does not apply (no such declaration in it).
const EDITS = [
  { kind: "a comment appended", edit: (t) => `${t}\n// relink probe\n` },
  { kind: "an unexported function appended", edit: (t) => `${t}\nfunc relinkProbe() {}\n` },
  { kind: "an exported function appended", edit: (t) => `${t}\nfunc RelinkProbe() int { return 1 }\n` },
  { kind: "a method appended to a struct", edit: (t) => ((m) => (m ? `${t}\nfunc (x *${m[1]}) RelinkProbe() int { return 1 }\n` : null))(/^type ([A-Z]\w*) struct/m.exec(t)) },
  { kind: "an exported function renamed", edit: (t) => swap(t, /^func ([A-Z]\w*)\(/m, (m) => `func ${m[1]}Probe(`) },
  { kind: "an exported method renamed", edit: (t) => swap(t, /^func (\(\w+ \*?\w+\)) ([A-Z]\w*)\(/m, (m) => `func ${m[1]} ${m[2]}Probe(`) },
  { kind: "a return type changed", edit: (t) => swap(t, /^(func [^\n{]*\)) (\*?[A-Z][\w.]*) \{$/m, (m) => `${m[1]} error {`) },
];

/** `text` with the first match of `re` replaced, or null when nothing matches. */
function swap(text, re, by) {
  const m = re.exec(text);
  return m ? text.slice(0, m.index) + by(m) + text.slice(m.index + m[0].length) : null;
}

function defaultTree() {
  const scale = path.join(ROOT, "bench", ".scale");
  const trees = fs.existsSync(scale)
    ? fs
        .readdirSync(scale)
        .filter((d) => d.startsWith("tree-"))
        .sort()
    : [];
  for (const t of trees) {
    const dir = path.join(scale, t, "c00", "prometheus");
    if (fs.existsSync(dir)) return dir;
  }
  return null;
}

const source = arg("tree", defaultTree());
const samples = Number(arg("samples", "40"));
if (!source || !fs.existsSync(source)) {
  console.error("relink-scope: no tree — run `npm run bench:scale` first (it copies prometheus), or pass --tree <a Go tree>");
  process.exit(2);
}
if (!fs.existsSync(MAST)) {
  console.error("relink-scope: dist/bin/mast.js is missing — run `npm run build` first");
  process.exit(2);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "mast-relink-"));
const tree = path.join(work, "tree");
const state = path.join(work, "state");
fs.cpSync(source, tree, { recursive: true });
const mast = (...a) => JSON.parse(execFileSync(process.execPath, [MAST, ...a, "--json"], { encoding: "utf8", maxBuffer: 1 << 28 }));
try {
  const files = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".go")) files.push(p);
    }
  };
  walk(tree);
  files.sort();
  mast("index", tree, "--state-dir", state);
  // `samples` of the files an edit applies to, spread over the sorted list.
  const spread = (list) => {
    const step = Math.max(1, Math.floor(list.length / samples));
    return list.filter((_, i) => i % step === 0).slice(0, samples);
  };
  console.log(`relink scope — ${path.relative(ROOT, source) || source}: ${files.length} Go files, up to ${samples} sampled per edit, ${os.cpus().length} cores, node ${process.version}`);
  console.log(`  ${"edit".padEnd(34)} ${"median".padStart(6)} ${"p90".padStart(5)} ${"max".padStart(5)}  ${"over 10%".padEnd(16)} link ms p50 / p90`);
  const results = [];
  for (const edit of EDITS) {
    const linked = [];
    for (const f of spread(files.filter((f) => edit.edit(fs.readFileSync(f, "utf8")) !== null))) {
      const before = fs.readFileSync(f);
      const st = fs.statSync(f);
      fs.writeFileSync(f, edit.edit(before.toString("utf8")));
      const r = mast("index", tree, "--state-dir", state, "--incremental");
      linked.push([r.files_linked, path.relative(tree, f), r.phases_ms.link]);
      fs.writeFileSync(f, before);
      fs.utimesSync(f, st.atime, st.mtime);
      mast("index", tree, "--state-dir", state, "--incremental");
    }
    linked.sort((a, b) => a[0] - b[0]);
    const at = (q) => linked[Math.min(linked.length - 1, Math.floor(q * linked.length))][0];
    const over = linked.filter(([n]) => n > files.length / 10).length;
    const ms = linked.map((l) => l[2]).sort((a, b) => a - b);
    const msAt = (q) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))];
    results.push({
      edit: edit.kind,
      median: at(0.5),
      p90: at(0.9),
      max: linked.at(-1)[0],
      max_file: linked.at(-1)[1],
      over_10_percent: over,
      samples: linked.length,
      link_ms_p50: msAt(0.5),
      link_ms_p90: msAt(0.9),
    });
    console.log(
      `  ${edit.kind.padEnd(34)} ${String(at(0.5)).padStart(6)} ${String(at(0.9)).padStart(5)} ${String(linked.at(-1)[0]).padStart(5)}  ${`${over} of ${linked.length}${over > 0 ? " (MISS)" : " (PASS)"}`.padEnd(16)} ${`${msAt(0.5).toFixed(0)} / ${msAt(0.9).toFixed(0)}`.padStart(9)}   max: ${linked.at(-1)[1]}`,
    );
  }
  const out = path.join(ROOT, "bench", ".out");
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, "relink-scope.json"), JSON.stringify({ tree: source, go_files: files.length, results }, null, 2));
  console.log("figures written to bench/.out/relink-scope.json");
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
