// Extraction never relies on a tree-sitter node's JavaScript object identity. The binding keeps
// node objects in a weak cache, so after a garbage collection the same node comes back as a new
// object and `a === b` or `set.has(node)` silently turns false (a decorated class's methods once
// became module-level calls too, only in a loaded run). With that cache switched off — every access
// a new object, as if a collection ran between any two — each fixture extracts exactly as before.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { extractFile } from "../../src/syntax/extract.js";
import { GOLDEN_OPTIONS } from "../helpers/extraction.js";

const FIXTURES = path.resolve(import.meta.dirname, "..", "fixtures");
const DIRS = ["extract", "ast", "outline-language"];
const { Tree } = createRequire(import.meta.url)("tree-sitter") as { Tree: { prototype: Record<string, unknown> } };

function extractAll(): Map<string, string> {
  const out = new Map<string, string>();
  for (const dir of DIRS) {
    for (const name of fs.readdirSync(path.join(FIXTURES, dir)).sort()) {
      const file = path.join(FIXTURES, dir, name);
      if (!fs.statSync(file).isFile()) continue;
      const r = extractFile(`src/${name}`, fs.readFileSync(file, "utf8"), GOLDEN_OPTIONS);
      if (r.ok) out.set(`${dir}/${name}`, JSON.stringify(r.extraction));
    }
  }
  return out;
}

describe("node identity", () => {
  it("every fixture extracts the same with the binding's node cache off (each access a new object)", () => {
    const cached = extractAll();
    const saved = { one: Tree.prototype._cacheNode, many: Tree.prototype._cacheNodes };
    Tree.prototype._cacheNode = () => undefined;
    Tree.prototype._cacheNodes = () => undefined;
    let uncached: Map<string, string>;
    try {
      uncached = extractAll();
    } finally {
      Tree.prototype._cacheNode = saved.one;
      Tree.prototype._cacheNodes = saved.many;
    }
    expect([...cached.keys()].filter((k) => /\.(py|go|rs|ts|tsx|js|java|rb|php|cs|c|cpp)$/.test(k)).length).toBeGreaterThan(40);
    const differing = [...cached].filter(([k, v]) => uncached.get(k) !== v).map(([k]) => k);
    expect(differing).toEqual([]);
  });
});
