// node exspeed.mjs <dist> <root> <ext-regex> : in-process extraction time (best of 3 after a warm-up)
import fs from "node:fs"; import path from "node:path";
const [dist, dir, ext] = process.argv.slice(2);
const { extractFile } = await import(path.join(dist, "syntax/extract.js"));
const files = []; (function walk(d) { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (new RegExp(ext).test(p)) files.push(p); } })(dir);
const texts = files.map((f) => fs.readFileSync(f, "utf8"));
const opts = { parseTimeoutMs: 5000, chunkSplitThreshold: 120, contextLines: 3, maxFileBytes: 1e7 };
const once = () => { const t = performance.now(); for (let i = 0; i < files.length; i++) extractFile(path.relative(dir, files[i]), texts[i], opts); return performance.now() - t; };
once(); const best = Math.min(once(), once(), once());
console.log(JSON.stringify({ files: files.length, bytes: texts.reduce((a, b) => a + b.length, 0), ms: Math.round(best) }));
