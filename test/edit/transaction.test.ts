// The one edit transaction through the registry's edit tools on a real indexed project: a
// one-line edit parses its file at most twice (the gate before and after) and the index refresh
// reuses the after-parse; the index answers the edit at once; a refused edit writes nothing and
// leaves the index as it was.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { parseTime } from "../../src/syntax/parser.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { makeProject, type TestProject } from "../helpers/project.js";

const SOURCE = "export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function twice(x: number): number {\n  return add(x, x);\n}\n";
let p: TestProject;
let ctx: ToolContext;

beforeAll(async () => {
  process.env.HASHPILOT_HOME = mkdtempSync(join(tmpdir(), "hp-home-"));
  p = makeProject({ ".git/HEAD": "ref: refs/heads/main\n", "src/math.ts": SOURCE });
  const config = p.config({ stateDir: join(p.root, ".mast") });
  await runIndex(config, { mode: "full" });
  ctx = createToolContext(config);
});
afterAll(() => ctx.close());

async function parsesOf(call: () => Promise<unknown>): Promise<{ parses: number; result: any }> {
  const before = parseTime.parses;
  const result = await call();
  return { parses: parseTime.parses - before, result };
}

describe("the edit transaction", () => {
  it("a one-line hash edit and an AST rename each parse the file at most twice, the index refresh included", async () => {
    const hash = await parsesOf(() => callTool(ctx, "replace_hash", { file: "src/math.ts", old_hash: sha("  return a + b;"), range: "2", new_content: "  return b + a;" }));
    expect(hash.result).toMatchObject({ ok: true, data: { linesChanged: 1 } });
    expect(hash.parses).toBeLessThanOrEqual(2);

    const rename = await parsesOf(() => callTool(ctx, "route_edit", { file: "src/math.ts", operation: "rename-symbol", symbol: "add", new_name: "sum" }));
    expect(rename.result).toMatchObject({ ok: true, data: { changes: 2, route: "ast" } });
    expect(rename.parses).toBeLessThanOrEqual(2);
    // The index answers the rename at once: the callers of `sum` are found, `add` is gone.
    const callers = (await callTool(ctx, "mast_callers", { symbol: "sum" })) as { verified_callers: Array<{ file_path: string; sites: string[] }> };
    expect(callers.verified_callers.map((c) => [c.file_path, c.sites])).toEqual([["src/math.ts", ["6 twice: return sum(x, x);"]]]);
    expect(await callTool(ctx, "mast_callers", { symbol: "add" })).toMatchObject({ not_found: true });
  });

  it("a refused edit writes nothing, and reports its code", async () => {
    const before = readFileSync(join(p.root, "src/math.ts"), "utf8");
    await expect(callTool(ctx, "route_edit", { file: "src/math.ts", operation: "replace-body", symbol: "twice", content: "return (;" })).rejects.toMatchObject({ code: "PARSE_ERROR" });
    expect(readFileSync(join(p.root, "src/math.ts"), "utf8")).toBe(before);
  });
});

function sha(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}
