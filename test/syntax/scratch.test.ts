import { it } from "vitest";
import { parseSource } from "../../src/syntax/parser.js";
import { extractFile } from "../../src/syntax/extract.js";
const O = { chunkSplitThreshold: 100, contextLines: 3, markdownHeadingDepth: 2, parseTimeoutMs: 60000 };
it("scratch", () => {
  for (const n of [20000, 60000, 172500]) {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`function f${i}(a){return a+1};`);
  const line = parts.join("");
  let t0 = Date.now();
  const tree = parseSource("javascript", line, 60000);
  const tp = Date.now() - t0;
  t0 = Date.now();
  const r = extractFile("src/bundle.js", line + "\n", O);
  console.log(n, "parse", tp, "extract", Date.now() - t0, tree !== null, r.ok);
  }
}, 60000);
