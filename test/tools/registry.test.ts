// The registry is the one definition of every tool: docs/tools.md and the CLI help are derived
// from it, and this test fails when either drifts.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { renderLanguagesDoc } from "../../src/lang/docs.js";
import { renderToolsDoc } from "../../src/tools/docs.js";
import { DEFAULT_TOOLSETS, DESCRIPTION_LIMIT, ENVELOPE_TOOLSETS, LISTED_TOOL_AVERAGE, LISTING_BUDGET, PROVENANCE_KEYS } from "../../src/tools/define.js";
import { TOOLS, inputFields, listedTools } from "../../src/tools/registry.js";

const ROOT = join(import.meta.dirname, "..", "..");
const SRC = join(ROOT, "src");

/** The layers below tools/ (ARCHITECTURE.md): where a tool's answer is computed. */
const BELOW_TOOLS = ["base", "lang", "syntax", "store", "resolve", "index", "query", "edit", "structural"];

/** The src/-relative modules a module imports, statically (`import type` left out: it runs nothing) or dynamically. */
function importsOf(module: string): string[] {
  const text = readFileSync(join(SRC, module), "utf8");
  const specs = [...text.matchAll(/^(?:import|export)(?! type )[^;]*?\bfrom "(\.[^"]+)"|\bimport\("(\.[^"]+)"\)/gm)].map((m) => (m[1] ?? m[2])!);
  return specs.map((spec) => posix.join(dirname(module), spec).replace(/\.js$/, ".ts"));
}

describe("tool registry", () => {
  it("docs/languages.md is generated from the language specs (run `npm run docs:languages` after changing one)", () => {
    expect(readFileSync(join(ROOT, "docs", "languages.md"), "utf8")).toBe(renderLanguagesDoc());
  });

  it("docs/tools.md is generated from the registry (run `npm run docs:tools` after changing a tool)", () => {
    expect(readFileSync(join(ROOT, "docs", "tools.md"), "utf8")).toBe(renderToolsDoc());
  });

  it("every editing tool has a hashpilot command, and every key a command names is an input of its tool (the CLI is derived from these)", () => {
    const names: string[] = [];
    for (const tool of TOOLS.filter((t) => ENVELOPE_TOOLSETS.includes(t.toolset ?? "read"))) {
      expect(tool.cli?.length ?? 0, `${tool.name} has no hashpilot command`).toBeGreaterThan(0);
      const keys = new Set(inputFields(tool).map((f) => f.key));
      for (const c of tool.cli ?? []) {
        names.push(c.name);
        const named = [
          ...(c.positionals ?? []).map((p) => p.replace(/^\.\.\./, "")),
          ...(c.required ?? []),
          ...Object.values(c.flags ?? {}).map((k) => k.replace(/^!/, "")),
          ...Object.values(c.short ?? {}),
          ...Object.keys(c.fixed ?? {}),
          ...(c.content ?? []),
          ...(c.lists ?? []),
          ...(c.stdin ? [c.stdin] : []),
          ...(c.hidden ?? []),
          ...Object.keys(c.labels ?? {}),
        ];
        expect(
          named.filter((k) => !keys.has(k)),
          `${c.name} names keys ${tool.name} does not take`,
        ).toEqual([]);
      }
    }
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain("ast rename-symbol");
  });

  it("names are unique (mast_-prefixed index tools, the contract's names for the edit toolset), and every tool has a description and an object schema", () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    const inSet = (set: string) => TOOLS.filter((t) => t.toolset === set).map((t) => t.name);
    expect(inSet("edit")).toEqual(["read_many", "read_hash", "replace_hash", "diff_apply", "undo", "route_edit", "verify_changes", "intent"]);
    expect(inSet("more")).toEqual(["grep_many", "diff_generate", "changesets", "symbol_lookup_many", "ast_capabilities", "ast_find_symbols"]);
    expect(inSet("admin")).toEqual([
      "provenance_query",
      "provenance_changeset",
      "telemetry_show",
      "telemetry_summary",
      "telemetry_health",
      "telemetry_sessions",
      "telemetry_export",
      "telemetry_prune",
      "telemetry_clear",
      "config",
      "route",
    ]);
    for (const t of TOOLS) {
      expect(t.name).toMatch((t.toolset ?? "read") !== "read" ? /^[a-z_]+$/ : /^mast_[a-z_]+$/);
      expect(t.description.length).toBeGreaterThan(40);
      expect(t.input.safeParse(null).success).toBe(false);
    }
  });

  it("the compact listing keeps within its budget: 8 KB, 370 bytes a tool on average, descriptions of 120 characters (the rule a tool joining the default toolsets follows)", () => {
    const listing = listedTools(DEFAULT_TOOLSETS);
    const bytes = Buffer.byteLength(JSON.stringify({ tools: listing }));
    expect(bytes).toBeLessThanOrEqual(Math.min(LISTING_BUDGET, LISTED_TOOL_AVERAGE * listing.length));
    const long = TOOLS.filter((t) => DEFAULT_TOOLSETS.includes(t.toolset ?? "read") && t.description.length > DESCRIPTION_LIMIT).map((t) => `${t.name}: ${t.description.length}`);
    expect(long).toEqual([]);
    // What a model is handed: no output schema, no title, no argument description or bound, only a default that is on.
    const text = JSON.stringify(listing);
    for (const key of ['"outputSchema"', '"title"', '"description":{', '"minimum"', '"maximum"', '"default":false', '"default":10', '"$schema"']) expect(text, key).not.toContain(key);
    expect(listing.find((t) => t.name === "mast_callers")!.inputSchema.properties).toEqual({
      symbol: { type: "string" },
      file_path: { type: "string" },
      transitive: { type: "boolean" },
      include_potential: { default: true, type: "boolean" },
      potential_limit: { type: "integer" },
    });
  });

  it("an unlisted key is an optional input of its tool, and the full listing and docs/tools.md name it", () => {
    const full = listedTools(["read", "edit", "more", "admin", "structural"], "full");
    const compact = listedTools(["read", "edit", "more", "admin", "structural"]);
    const unlisted = TOOLS.filter((t) => t.unlisted?.length);
    expect(unlisted.map((t) => t.name)).toEqual([
      "mast_search",
      "mast_project_skeleton",
      "mast_signature",
      "mast_callers",
      "mast_references",
      "mast_graph",
      "mast_efficiency",
      "replace_hash",
      "diff_apply",
      "route_edit",
      "verify_changes",
      "intent",
    ]);
    for (const t of unlisted) {
      const fields = new Map(inputFields(t).map((f) => [f.key, f]));
      for (const key of t.unlisted!) expect([t.name, key, fields.get(key)?.required]).toEqual([t.name, key, false]);
      expect(Object.keys(full.find((l) => l.name === t.name)!.inputSchema["properties"] as object)).toEqual(expect.arrayContaining([...t.unlisted!]));
      expect(Object.keys(compact.find((l) => l.name === t.name)!.inputSchema["properties"] as object).filter((k) => t.unlisted!.includes(k))).toEqual([]);
    }
    // Every other key is listed, under its own name (a key named like a schema keyword is not lost).
    for (const t of TOOLS) {
      const listed = Object.keys(compact.find((l) => l.name === t.name)!.inputSchema["properties"] as object);
      expect([t.name, listed]).toEqual([
        t.name,
        inputFields(t)
          .map((f) => f.key)
          .filter((k) => !t.unlisted?.includes(k)),
      ]);
    }
    // Provenance is a pipeline's: every editing tool that takes it leaves it out.
    for (const t of TOOLS.filter((t) => DEFAULT_TOOLSETS.includes(t.toolset ?? "read") && inputFields(t).some((f) => f.key === "actor")))
      expect([t.name, PROVENANCE_KEYS.every((k) => t.unlisted?.includes(k))]).toEqual([t.name, true]);
    expect(readFileSync(join(ROOT, "docs", "tools.md"), "utf8")).toContain(
      "Left out of the compact listing (accepted all the same; `mast serve --schemas full` lists them): `recovery`, `actor`, `task_id`, `reason`.",
    );
  });

  it('every tool\'s source is true: `defined` is the one tools/ module with its `name: "<tool>"`; `answers`, a module below tools/, is imported by `defined`, by a tools/ helper it imports that declares no tool, or through a facade', () => {
    /** Modules that only hand a tool's work to the layer that does it (index work to its worker threads). */
    const FACADES = ["query/index-threads.ts"];
    const toolModules = readdirSync(join(SRC, "tools")).filter((f) => f.endsWith(".ts"));
    const declares = (module: string, name: string) => readFileSync(join(SRC, module), "utf8").includes(`name: ${JSON.stringify(name)},`);
    const declaresTools = (module: string) => module.startsWith("tools/") && readFileSync(join(SRC, module), "utf8").includes("defineTool({");
    for (const t of TOOLS) {
      const { defined, answers } = t.source;
      expect([t.name, toolModules.filter((f) => declares(`tools/${f}`, t.name)).map((f) => `tools/${f}`)]).toEqual([t.name, [defined]]);
      expect([t.name, answers, existsSync(join(SRC, answers)), BELOW_TOOLS.includes(answers.split("/")[0]!)]).toEqual([t.name, answers, true, true]);
      const direct = importsOf(defined);
      // One hop only through a tools/ helper that declares no tool (edit-call.ts), or a facade handing the work to another layer.
      const hop = (m: string) => ((m.startsWith("tools/") && !declaresTools(m)) || FACADES.includes(m)) && existsSync(join(SRC, m));
      const reached = direct.includes(answers) || direct.some((m) => hop(m) && importsOf(m).includes(answers));
      expect([t.name, answers, reached]).toEqual([t.name, answers, true]);
    }
  });

  it("`mast query --help` and `mast help query` list every tool", () => {
    for (const argv of [
      ["query", "--help"],
      ["help", "query"],
    ]) {
      const r = spawnSync(process.execPath, [join(ROOT, "dist", "bin", "mast.js"), ...argv], { encoding: "utf8" });
      expect(r.status).toBe(0);
      for (const t of TOOLS) expect([argv, r.stdout.includes(`\n  ${t.name} `)]).toEqual([argv, true]);
    }
  });
});
