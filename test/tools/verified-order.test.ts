// mast_callers lists verified callers in source files before those in test files (each group in
// path and line order), so a verified_limit cut keeps the source callers an agent acts on.
import { expect, it } from "vitest";
import { indexedProject } from "../helpers/indexed.js";

const p = indexedProject({
  "src/lib.ts": "export function audit(x: string) { return x; }\n",
  "src/a.test.ts": "import { audit } from './lib';\nexport function check() { audit('t'); }\n",
  "src/b.ts": "import { audit } from './lib';\nexport function run() { audit('b'); }\n",
  "src/c.ts": "import { audit } from './lib';\nexport function go() { audit('c'); }\n",
});

it("orders verified callers source first, and a cut keeps them", async () => {
  const all = await p.call("mast_callers", { symbol: "audit", include_potential: false });
  expect(all.verified_callers.map((g: { file_path: string }) => g.file_path)).toEqual(["src/b.ts", "src/c.ts", "src/a.test.ts"]);
  const cut = await p.call("mast_callers", { symbol: "audit", include_potential: false, verified_limit: 2 });
  expect(cut.verified_callers).toEqual([
    { file_path: "src/b.ts", resolution: "import", sites: ["2 run: export function run() { audit('b'); }"] },
    { file_path: "src/c.ts", resolution: "import", sites: ["2 go: export function go() { audit('c'); }"] },
  ]);
  expect(cut.summary).toEqual({ verified_count: 2, verified_total: 3, verified_truncated: 1, potential_count: 0 });
});
