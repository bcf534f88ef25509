import fs from "node:fs"; import path from "node:path";
import Parser from "tree-sitter"; import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const [lang, dir, ext, qfile] = process.argv.slice(2);
const L = require(lang); const p = new Parser(); p.setLanguage(L);
const files = []; (function walk(d) { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const q = path.join(d, e.name); if (e.isDirectory()) walk(q); else if (new RegExp(ext).test(q)) files.push(q); } })(dir);
const trees = files.map((f) => p.parse(fs.readFileSync(f, "utf8")));
const src = fs.readFileSync(qfile, "utf8");
const variants = { full: src, nopred: src.replace(/\(#not-eq\? @name "new"\)/, "") };
for (const [k, s] of Object.entries(variants)) { const q = new Parser.Query(L, s); let best = 1e9; for (let r = 0; r < 4; r++) { const t = performance.now(); let n = 0; for (const tr of trees) n += q.matches(tr.rootNode).length; best = Math.min(best, performance.now() - t); } console.log(k, Math.round(best), "ms"); }
