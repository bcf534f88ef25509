// Every tool's output schema against its real answers: each tool is called on a real indexed
// project (found, not found, empty, an edit, a refused edit), and the answer, as `mast serve`
// sends it, must satisfy the tool's whole schema (ajv, JSON Schema 2020-12) — the one docs/tools.md
// shows and `mast serve --schemas full` lists (the compact listing has none). A schema that names
// a key an answer lacks, or the wrong type, fails here.
import Ajv2020 from "ajv/dist/2020.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { TOOLS, listedTools, outputSchema, runTool } from "../../src/tools/registry.js";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";

const ajv = new Ajv2020.default({ strict: false, allErrors: true });

let project: TestProject;
let ctx: ToolContext;
let home: string;
const previousHome = process.env.HASHPILOT_HOME;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "mast-outputs-home-"));
  process.env.HASHPILOT_HOME = home;
  project = makeProject({
    ...BASE_FILES,
    "src/impl.ts":
      "import { Repo } from './repo.js';\nexport interface Store { get(k: string): string }\nexport class Mem implements Store { get(k: string) { return k; } }\nexport class Sub extends Repo {}\n",
  });
  await runIndex(project.config(), { mode: "full", persistConfig: true });
  ctx = createToolContext(project.config());
});
afterAll(() => {
  ctx?.close();
  project?.cleanup();
  rmSync(home, { recursive: true, force: true });
  if (previousHome === undefined) delete process.env.HASHPILOT_HOME;
  else process.env.HASHPILOT_HOME = previousHome;
});

/** Real calls of each tool: the shapes its answers take. */
const CALLS: Record<string, Array<Record<string, unknown>>> = {
  mast_search: [{ query: "validate" }, { query: "validate", fields: ["symbol_name"] }, { query: "zzqqxx" }, { query: "Guide", file_pattern: "nowhere/**" }],
  mast_project_skeleton: [{}, { directory: "src", max_exports: 1 }],
  mast_exports: [{ file_path: "src/index.ts" }, { file_path: "src/auth.ts" }],
  mast_signature: [{ symbol: "AuthService.validate" }, { symbol: "nothingLikeThis" }],
  mast_callers: [{ symbol: "Repo.find" }, { symbol: "Repo.find", transitive: true }, { symbol: "nothingLikeThis" }],
  mast_definition: [
    { file_path: "src/auth.ts", line: 9, column: 22 },
    { file_path: "src/auth.ts", line: 1, column: 10 },
  ],
  mast_references: [{ symbol: "Repo.find" }, { file_path: "src/auth.ts", line: 5, column: 32 }, { symbol: "nothingLikeThis" }],
  mast_dependencies: [{ file_path: "src/auth.ts" }],
  mast_implementors: [{ interface_name: "Store" }, { interface_name: "Repo" }, { interface_name: "Store.get" }, { interface_name: "Nope" }],
  mast_rename_impact: [{ symbol: "Repo" }, { symbol: "nothingLikeThis" }],
  mast_graph: [{ symbol: "Repo.find" }, { symbol: "Repo", format: "dot", max_nodes: 1 }, { symbol: "nothingLikeThis" }],
  mast_reindex: [{}],
  mast_status: [{}],
  mast_efficiency: [{}, { scope: "global", since_minutes: 5 }],
  read_many: [{ files: ["src/repo.ts", "src/missing.ts"] }],
  read_hash: [{ file: "src/repo.ts", line: 2 }],
  grep_many: [{ pattern: "find", paths: ["src"] }],
  replace_hash: [{ file: "src/repo.ts", old_hash: "000000000000", new_content: "x", range: "1" }],
  diff_generate: [{ file: "src/repo.ts", new_content: "export class Repo {}\n" }],
  changesets: [{}],
  symbol_lookup_many: [{ symbols: ["Repo", "nothing"] }],
  ast_capabilities: [{}],
  ast_find_symbols: [{ file: "src/auth.ts", name: "validate" }],
};

describe("output schemas", () => {
  it("every tool declares one: an object schema in the full listing, none in the compact one", () => {
    for (const t of listedTools(["read", "edit", "more", "admin", "structural"], "full")) {
      expect(t.outputSchema?.type, t.name).toBe("object");
      expect(Object.keys(t.outputSchema?.properties as object).length, t.name).toBeGreaterThan(0);
    }
    expect(listedTools(["read", "edit", "more", "admin", "structural"]).filter((t) => t.outputSchema !== undefined)).toEqual([]);
  });

  for (const [tool, calls] of Object.entries(CALLS)) {
    it(`${tool}: real answers satisfy the whole schema, as docs/tools.md and the full listing give it`, async () => {
      const def = TOOLS.find((t) => t.name === tool)!;
      const whole = ajv.compile(outputSchema(def));
      const listed = ajv.compile(listedTools([def.toolset ?? "read"], "full").find((t) => t.name === tool)!.outputSchema!);
      for (const args of calls) {
        let answer: unknown;
        try {
          answer = (await runTool(ctx, tool, args)).answer;
        } catch (err) {
          // A refusal is an MCP error without structured content; the hashpilot CLI answers an editing tool's with the envelope (checked below).
          if ((def.toolset ?? "read") === "read") throw err;
          const { errorEnvelope } = await import("../../src/tools/envelope.js");
          answer = errorEnvelope(tool, err);
        }
        const ok = whole(answer);
        expect(ok ? null : { args, errors: whole.errors, answer }).toBeNull();
        expect(listed(answer) ? null : { args, errors: listed.errors }).toBeNull();
      }
    });
  }

  it("a schema that lies is caught: the whole schema refuses a missing required key and a wrong type", () => {
    const exportsTool = TOOLS.find((t) => t.name === "mast_exports")!;
    const whole = ajv.compile(outputSchema(exportsTool));
    expect(whole({ file_path: "a.ts", exports: [], star_exports: [] })).toBe(true);
    expect(whole({ file_path: "a.ts", exports: [] })).toBe(false);
    expect(whole({ file_path: "a.ts", exports: [{ name: "x", kind: "function", signature: null, line: "1", doc: null }], star_exports: [] })).toBe(false);
  });
});
