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
    const index = (files: readonly string[], leads: readonly string[]) => ({ has: (f: string) => files.includes(f), leadsHere: (f: string) => leads.includes(f) });
    const npm = { ecosystem: "npm", name: "@acme/ui", dir: "packages/ui", entry: "packages/ui/src/main.ts" } as const;
    expect(importPathsInto(npm, "packages/ui/src/button.ts", "Button", index([], ["packages/ui/src/main.ts"]))).toEqual([
      { ecosystem: "npm", module: "@acme/ui", prefix: false, verified: true },
      { ecosystem: "npm", module: "@acme/ui", prefix: true, verified: false },
    ]);
    expect(importPathsInto(npm, "src/other.ts", "Button", index([], ["src/other.ts"]))).toEqual([]);
    const go = { ecosystem: "go", name: "github.com/acme/svc", dir: "svc" } as const;
    const [viaGo] = importPathsInto(go, "svc/store/db.go", "Open", index([], []));
    expect(viaGo).toEqual({ ecosystem: "go", module: "github.com/acme/svc/store", prefix: false, verified: true });
    expect(importPathsInto(go, "svc/store/db.go", "open", index([], []))[0]!.verified).toBe(false);
    const [, subpath] = importPathsInto(npm, "packages/ui/src/button.ts", "Button", index([], []));
    expect([importNames(subpath!, "@acme/ui/button"), importNames(subpath!, "@acme/uikit"), importNames(viaGo!, "github.com/acme/svc/store")]).toEqual([true, false, true]);
  });

  it("reaches a Python declaration by its module and by each package whose __init__ re-exports it", () => {
    const pypi = { ecosystem: "pypi", name: "acme_tools", dir: "" } as const;
    const files = ["src/acme/__init__.py", "src/acme/cli/__init__.py", "src/acme/cli/core.py", "tests/test_core.py", "setup_helpers.py"];
    const has = (f: string) => files.includes(f);
    // acme/__init__.py re-exports it (`from .cli.core import Command`); acme/cli/__init__.py does not.
    expect(importPathsInto(pypi, "src/acme/cli/core.py", "Command", { has, leadsHere: (f) => f === "src/acme/cli/core.py" || f === "src/acme/__init__.py" })).toEqual([
      { ecosystem: "pypi", module: "acme.cli.core", prefix: false, verified: true },
      { ecosystem: "pypi", module: "acme", prefix: false, verified: true },
      { ecosystem: "pypi", module: "acme", prefix: true, verified: false },
    ]);
    // A test outside any package is imported by no one; a top-level module is one of its own.
    expect(importPathsInto(pypi, "tests/test_core.py", "helper", { has, leadsHere: () => true })).toEqual([]);
    expect(importPathsInto(pypi, "setup_helpers.py", "run", { has, leadsHere: () => true })[0]).toEqual({ ecosystem: "pypi", module: "setup_helpers", prefix: false, verified: true });
    // A script's directory is no package.
    expect(importPathsInto(pypi, "scripts/release.py", "main", { has, leadsHere: () => true })).toEqual([]);
  });

  it("reads a Python module through namespace packages above its package, and a package's own __init__.pyi", () => {
    const pypi = { ecosystem: "pypi", name: "google_cloud_storage", dir: "" } as const;
    const files = ["src/google/cloud/storage/__init__.py", "src/google/cloud/storage/__init__.pyi", "src/google/cloud/storage/client.py"];
    const index = { has: (f: string) => files.includes(f), leadsHere: (f: string) => files.includes(f) };
    expect(importPathsInto(pypi, "src/google/cloud/storage/client.py", "Client", index)).toEqual([
      { ecosystem: "pypi", module: "google.cloud.storage.client", prefix: false, verified: true },
      { ecosystem: "pypi", module: "google.cloud.storage", prefix: false, verified: true },
      { ecosystem: "pypi", module: "google", prefix: true, verified: false },
    ]);
    // Declared in the stub: the package's module is the stub's.
    expect(importPathsInto(pypi, "src/google/cloud/storage/__init__.pyi", "Client", { ...index, leadsHere: (f) => f.endsWith(".pyi") })[0]).toEqual({
      ecosystem: "pypi",
      module: "google.cloud.storage",
      prefix: false,
      verified: true,
    });
  });

  it("reaches a Rust declaration by its module path and by each enclosing module that re-exports it, the crate root too", () => {
    const cargo = { ecosystem: "cargo", name: "acme_core", dir: "crate" } as const;
    const files = ["crate/src/lib.rs", "crate/src/store/mod.rs", "crate/src/store/db.rs", "crate/src/main.rs"];
    const has = (f: string) => files.includes(f);
    // lib.rs has `pub use store::db::Pool;`; store/mod.rs only `pub mod db;`.
    expect(importPathsInto(cargo, "crate/src/store/db.rs", "Pool", { has, leadsHere: (f) => f === "crate/src/store/db.rs" || f === "crate/src/lib.rs" })).toEqual([
      { ecosystem: "cargo", module: "acme_core::store::db", prefix: false, verified: true },
      { ecosystem: "cargo", module: "acme_core", prefix: false, verified: true },
      { ecosystem: "cargo", module: "acme_core", prefix: true, verified: false },
    ]);
    expect(importPathsInto(cargo, "crate/src/main.rs", "main", { has, leadsHere: () => true })).toEqual([]);
    const [, root] = importPathsInto(cargo, "crate/src/lib.rs", "init", { has, leadsHere: () => true });
    // The rest of the crate, its root itself included (`acme_core::init()` with no re-export seen), is potential.
    expect([root, importNames(root!, "acme_core::store"), importNames(root!, "acme_core"), importNames(root!, "acme_core_extra")]).toEqual([
      { ecosystem: "cargo", module: "acme_core", prefix: true, verified: false },
      true,
      true,
      false,
    ]);
  });
});
