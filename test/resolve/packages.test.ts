// The packages a project provides (resolve/packages.ts, through the import resolver's readers):
// npm's root and workspace packages with their entry files, Go modules, crates and a Python
// distribution, read from real manifests on disk; and the import paths into each that reach a
// declaration, verified or not.
import { describe, expect, it } from "vitest";
import { createImportResolver } from "../../src/resolve/imports.js";
import { importNames, importPathsInto } from "../../src/resolve/packages.js";
import { tempSpace } from "../helpers/project.js";

const space = tempSpace({});

describe("the packages a project provides", () => {
  it("reads npm's root and workspace packages with their entries, go.mod, Cargo.toml and pyproject.toml", () => {
    const files: Record<string, string> = {
      "package.json": JSON.stringify({ name: "@acme/root", main: "dist/index.js", source: "src/index.ts", workspaces: ["packages/*"] }),
      "src/index.ts": "export const a = 1;\n",
      "packages/ui/package.json": JSON.stringify({ name: "@acme/ui", exports: { ".": { import: "./src/main.ts" } } }),
      "packages/ui/src/main.ts": "export const b = 1;\n",
      "svc/go.mod": "module github.com/acme/svc\n\ngo 1.22\n",
      "svc/main.go": "package main\n",
      "crate/Cargo.toml": '[package]\nname = "acme-core"\n',
      "crate/src/lib.rs": "pub fn f() {}\n",
      "pyproject.toml": '[project]\nname = "Acme.Tools"\n',
      "acme_tools/__init__.py": "",
    };
    const p = space.project(files);
    const indexed = new Set(Object.keys(files).filter((f) => !/(package\.json|go\.mod|Cargo\.toml|pyproject\.toml)$/.test(f)));
    expect(createImportResolver(indexed, p.root).packages()).toEqual([
      { ecosystem: "npm", name: "@acme/root", dir: "", entry: "src/index.ts" },
      { ecosystem: "npm", name: "@acme/ui", dir: "packages/ui", entry: "packages/ui/src/main.ts" },
      { ecosystem: "pypi", name: "acme_tools", dir: "" },
      { ecosystem: "cargo", name: "acme_core", dir: "crate" },
      { ecosystem: "go", name: "github.com/acme/svc", dir: "svc" },
    ]);
  });

  it("says which import paths reach a declaration, and which imports name them", () => {
    const npm = { ecosystem: "npm", name: "@acme/ui", dir: "packages/ui", entry: "packages/ui/src/main.ts" } as const;
    expect(importPathsInto(npm, "packages/ui/src/button.ts", "Button", (entry) => entry === "packages/ui/src/main.ts")).toEqual([
      { ecosystem: "npm", module: "@acme/ui", prefix: false, verified: true },
      { ecosystem: "npm", module: "@acme/ui", prefix: true, verified: false },
    ]);
    expect(importPathsInto(npm, "src/other.ts", "Button", () => true)).toEqual([]);
    const go = { ecosystem: "go", name: "github.com/acme/svc", dir: "svc" } as const;
    const [viaGo] = importPathsInto(go, "svc/store/db.go", "Open", () => false);
    expect(viaGo).toEqual({ ecosystem: "go", module: "github.com/acme/svc/store", prefix: false, verified: true });
    expect(importPathsInto(go, "svc/store/db.go", "open", () => false)[0]!.verified).toBe(false);
    const [, subpath] = importPathsInto(npm, "packages/ui/src/button.ts", "Button", () => true);
    expect([importNames(subpath!, "@acme/ui/button"), importNames(subpath!, "@acme/uikit"), importNames(viaGo!, "github.com/acme/svc/store")]).toEqual([true, false, true]);
  });
});
