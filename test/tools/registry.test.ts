// The registry is the one definition of every tool: docs/tools.md and the CLI help are derived
// from it, and this test fails when either drifts.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderLanguagesDoc } from "../../src/lang/docs.js";
import { renderToolsDoc } from "../../src/tools/docs.js";
import { ENVELOPE_TOOLSETS } from "../../src/tools/define.js";
import { TOOLS, inputFields } from "../../src/tools/registry.js";

const ROOT = join(import.meta.dirname, "..", "..");

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
        expect(named.filter((k) => !keys.has(k)), `${c.name} names keys ${tool.name} does not take`).toEqual([]);
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

  it("`mast query --help` lists every tool", () => {
    const r = spawnSync(process.execPath, [join(ROOT, "dist", "bin", "mast.js"), "query", "--help"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    for (const t of TOOLS) expect(r.stdout).toContain(`  ${t.name}`);
  });
});
