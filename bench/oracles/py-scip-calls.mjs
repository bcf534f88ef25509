// py-scip-calls: the call sites of a Python project's own functions and methods, as pyright
// resolves them — through scip-python (npm @sourcegraph/scip-python, a pyright that writes a SCIP
// index), the second Python oracle of bench/callers-oracle.mjs beside jedi (bench/oracles/py-calls.py).
// Every call's called name (py-calls.py --sites, the standard library's ast) is looked up among
// the index's occurrences at that position; its symbol, when a function or method (`().`) of the
// called name that the project defines, is the callee at its definition's line. Output rows as py-calls.py's.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

/** `{file, line, target_file, target_line, name}` per call site of a project function; `decodeScip` is dist/base/scip.js's. */
export function pyScipCalls(root, repo, decodeScip) {
  const bin = path.join(repo, "node_modules", ".bin", "scip-python");
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: npm ci installs @sourcegraph/scip-python (a devDependency)`);
  const out = path.join(path.dirname(root), "index.scip");
  const r = spawnSync(bin, ["index", ".", "--project-name", path.basename(root), "--project-version", "0", "--output", out, "--quiet"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0 || !fs.existsSync(out)) throw new Error(`scip-python failed (exit ${r.status}):\n${(r.stderr || r.stdout).slice(0, 2000)}`);
  const index = decodeScip(fs.readFileSync(out));
  const definitions = new Map();
  const at = new Map();
  for (const doc of index.documents) {
    for (const o of doc.occurrences) {
      if (o.roles & 1) definitions.set(o.symbol, { file: doc.path, line: o.range[0] + 1 });
      else at.set(`${doc.path}:${o.range[0] + 1}:${o.range[1]}`, o.symbol);
    }
  }
  const sites = spawnSync("python3", [path.join(repo, "bench/oracles/py-calls.py"), "--sites", root], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (sites.status !== 0) throw new Error(`py-calls.py --sites failed (exit ${sites.status}):\n${sites.stderr.slice(0, 2000)}`);
  const rows = [];
  for (const line of sites.stdout.split("\n")) {
    if (line.trim() === "") continue;
    const s = JSON.parse(line);
    const symbol = at.get(`${s.file}:${s.line}:${s.col}`);
    // The symbol must name what is called: scip-python 0.6.6 gives some re-exported classes the
    // symbol of another function of their module (`httpx.Timeout(…)` → `create_ssl_context().`).
    const def = symbol && /\(\)\.$/.test(symbol) && new RegExp(`[/#.\`]${s.name}\\(\\)\\.$`).test(symbol) ? definitions.get(symbol) : undefined;
    if (def) rows.push({ file: s.file, line: s.line, target_file: def.file, target_line: def.line, name: s.name });
  }
  return rows;
}
