// Where a cross-file edit of an exported declaration lands (hashpilot `intent
// rename-exported-symbol`, and add-parameter with the declaration's indexed parameters), read
// from the index's imports: the declaring file, every named import
// of the name from it, every namespace import of it (`ns.name`), every barrel's `export { name }
// from` — and, through a barrel that re-exports it under the same name (named or `export *`), the
// imports of the barrel in turn. What the edits cannot be planned for is named, never skipped: a
// `require` destructuring, a namespace re-export passed on again.
import { extensionInfo } from "../lang/languages.js";
import { prepared, symbolTextsOf, type Db } from "../store/db.js";
import { unpackParams } from "../store/param-rows.js";
import type { ParamRecord } from "../syntax/types.js";
import type { Target } from "./targets.js";

export interface RenameSite {
  readonly file_path: string;
  /** The declaration's line, or the import statement's. */
  readonly line: number;
  readonly kind: "declaration" | "import" | "export_from" | "namespace" | "package" | "member" | "export_list";
  /** import: the binding (the name itself when not aliased); namespace: the namespace's name; export_from: the name exported. */
  readonly local: string | null;
}

export interface RenameSites {
  readonly sites: RenameSite[];
  /** Uses of the name the planned edits cannot reach, each with its reason. */
  /** mentionOnly: a gap only when the file names the symbol (a require whose names the index does not record). */
  readonly unplanned: Array<{ file_path: string; line: number; reason: string; mentionOnly?: true }>;
}

interface ImportRow {
  path: string;
  kind: string;
  line: number;
  symbols: string;
  locals: string;
}

/** The import rows that resolve to a file, with the importing file's path. */
const IMPORTS_OF =
  "SELECT f.path, i.kind, i.line, i.symbols, i.locals FROM imports i JOIN files f ON f.id = i.file_id WHERE i.resolved_file_id = (SELECT id FROM files WHERE path = ?) ORDER BY f.path, i.line, i.id";

/** The rename sites of a target's first declaration (its name as declared; an export alias is not followed). */
export function renameSites(db: Db, target: Target): RenameSites {
  const decl = target.sites[0];
  if (!decl) return { sites: [], unplanned: [] };
  const name = decl.name;
  const sites: RenameSite[] = [{ file_path: decl.path, line: decl.line, kind: "declaration", local: name }];
  const unplanned: RenameSites["unplanned"] = [];
  const rows = prepared(db, IMPORTS_OF);
  // Modules that export the name under itself: the declaring file, then barrels passing it on.
  const sources = [decl.path];
  const seen = new Set(sources);
  const seenSite = new Set<string>();
  const add = (site: RenameSite) => {
    const key = `${site.file_path}:${site.line}:${site.kind}:${site.local}`;
    if (!seenSite.has(key)) {
      seenSite.add(key);
      sites.push(site);
    }
  };
  const passOn = (path: string) => {
    if (!seen.has(path)) {
      seen.add(path);
      sources.push(path);
    }
  };
  // A package that is a directory (Go): its other files use the name unqualified, and an import of the package resolves to any of its files.
  const spec = extensionInfo(decl.path)?.spec;
  if (spec?.scope === "directory") {
    const dir = decl.path.includes("/") ? decl.path.slice(0, decl.path.lastIndexOf("/") + 1) : "";
    const language = spec.name;
    for (const path of prepared(db, "SELECT path FROM files WHERE path LIKE ? ESCAPE '\\' ORDER BY path")
      .pluck()
      .all(`${dir.replace(/[\\%_]/g, "\\$&")}%`) as string[]) {
      if (path === decl.path || path.slice(dir.length).includes("/") || extensionInfo(path)?.spec.name !== language) continue;
      add({ file_path: path, line: 1, kind: "package", local: null });
      passOn(path);
    }
  }
  for (let i = 0; i < sources.length; i++) {
    for (const row of rows.all(sources[i]) as ImportRow[]) {
      const symbols = JSON.parse(row.symbols) as string[];
      const locals = JSON.parse(row.locals) as string[];
      // `const { name } = require(…)`, `await import(…)`: what is taken from the module is not recorded, so not rewritten.
      if (symbols.length === 0 && (row.kind === "require" || row.kind === "dynamic_import")) {
        unplanned.push({ file_path: row.path, line: row.line, reason: `a ${row.kind} of the module (the names it takes are not rewritten): edit it yourself`, mentionOnly: true });
      }
      symbols.forEach((imported, j) => {
        const local = locals[j] ?? imported;
        if (imported === name) {
          if (row.kind === "import") {
            // The declaring file's own import of it (Rust's `use super::name` in an inline module): its declaration's rename covers it.
            if (row.path === decl.path) return;
            add({ file_path: row.path, line: row.line, kind: "import", local });
            // A Python module's imports are its attributes: `from .m import name` in a package passes the name on.
            if (local === name && extensionInfo(row.path)?.spec.importsAreMembers) passOn(row.path);
          } else if (row.kind === "export_from") {
            add({ file_path: row.path, line: row.line, kind: "export_from", local });
            // Re-exported under the name itself: the barrel's importers import the new name too.
            if (local === name) passOn(row.path);
          } else unplanned.push({ file_path: row.path, line: row.line, reason: `a ${row.kind} of '${name}' (its destructuring or string is not rewritten): edit it yourself` });
        } else if (imported === "*") {
          // A Python `from .m import *` makes the public names of m the module's own.
          const python = extensionInfo(row.path)?.spec.importsAreMembers === true;
          if (row.kind === "export_star" || (row.kind === "import" && local === "*" && !name.startsWith("_") && python)) {
            passOn(row.path);
            // A Python module passing the names on lists them in its own `__all__`.
            if (python) add({ file_path: row.path, line: row.line, kind: "export_list", local: null });
          }
          // Go: `import . "p"` makes the package's names the file's own; `import _ "p"` binds nothing.
          else if (row.kind === "import" && local === ".") add({ file_path: row.path, line: row.line, kind: "package", local: null });
        }
      });
    }
    for (const site of moduleNames(db, sources[i]!, unplanned)) add(site);
    if (extensionInfo(sources[i]!)?.spec.importsAreMembers) for (const site of moduleAttributeSites(db, sources[i]!)) add(site);
  }
  return { sites, unplanned };
}

/** How a module is reached deeper than its own names: `a.b.m`, Rust's `a::b::m`. */
const separatorOf = (path: string) => extensionInfo(path)?.spec.moduleSeparator ?? ".";
/** How deep a chain of module names (`a::b::m`) is followed. */
const MODULE_DEPTH = 4;

/**
 * The names a module goes by in other files, where `ns.name` names what it exports: a namespace
 * import (`import * as ns`, Rust's `use m::{self as ns}` and its path uses `crate::m::name`); a
 * module made a name of another (`export * as ns from "./m"`, Rust's `pub mod m;`), in that file,
 * in the files importing the name from it (`import { ns } from`, `use crate::m;`), and below the
 * names that file goes by in turn (`util::m::name`). A module name passed on again (`export { ns }
 * from`) is a gap.
 */
function moduleNames(db: Db, path: string, unplanned: RenameSites["unplanned"], depth = 0): RenameSite[] {
  const out: RenameSite[] = [];
  const rows = (resolved: string) => prepared(db, IMPORTS_OF).all(resolved) as ImportRow[];
  for (const row of rows(path)) {
    const locals = JSON.parse(row.locals) as string[];
    (JSON.parse(row.symbols) as string[]).forEach((imported, j) => {
      const local = locals[j] ?? imported;
      if (row.kind === "import" && ((imported === "*" && !["*", "_", "."].includes(local)) || imported === "self")) out.push({ file_path: row.path, line: row.line, kind: "namespace", local });
      if (row.kind !== "export_from" || imported !== "*" || local === "*") return;
      out.push({ file_path: row.path, line: row.line, kind: "namespace", local });
      for (const user of rows(row.path)) {
        const userLocals = JSON.parse(user.locals) as string[];
        (JSON.parse(user.symbols) as string[]).forEach((name, k) => {
          if (name !== local) return;
          if (user.kind === "import") out.push({ file_path: user.path, line: user.line, kind: "namespace", local: userLocals[k] ?? name });
          else
            unplanned.push({
              file_path: user.path,
              line: user.line,
              reason: `a ${user.kind} of the module '${local}' (its uses \`${userLocals[k] ?? name}${separatorOf(user.path)}…\` are not followed): edit them yourself`,
            });
        });
      }
      if (depth < MODULE_DEPTH) for (const outer of moduleNames(db, row.path, [], depth + 1)) out.push({ ...outer, local: `${outer.local}${separatorOf(row.path)}${local}` });
    });
  }
  return out;
}

/**
 * Where a Python module is reached as an attribute of its package, so `ns.name` names what it
 * declares: `import a.b.m` (the binding `a`, uses `a.b.m.name`) and `from a.b import m` / `from .
 * import m` (the binding `m`, or its alias). Read from the import rows of its package's
 * `__init__.py`, which such imports resolve to.
 */
function moduleAttributeSites(db: Db, path: string): RenameSite[] {
  const parts = path.replace(/\.pyi?$/, "").split("/");
  if (parts.at(-1) === "__init__") parts.pop();
  const stem = parts.at(-1);
  if (stem === undefined || parts.length < 2) return [];
  const out: RenameSite[] = [];
  const rows = (where: string, value: string) =>
    prepared(db, `SELECT f.path, i.kind, i.line, i.module, i.symbols, i.locals FROM imports i JOIN files f ON f.id = i.file_id WHERE ${where} AND i.kind = 'import' ORDER BY f.path, i.line, i.id`).all(
      value,
    ) as Array<ImportRow & { module: string }>;
  // `import a.b.m` unaliased binds `a` (its row names the package `a`): `a.b.m.name` reaches the
  // module wherever `a` is bound so, its dotted name being a suffix of its path.
  for (let k = 2; k <= parts.length; k++) {
    const first = parts[parts.length - k]!;
    for (const row of rows("i.module = ?", first))
      if (row.symbols === '["*"]' && row.locals === JSON.stringify([first])) out.push({ file_path: row.path, line: row.line, kind: "namespace", local: parts.slice(-k).join(".") });
  }
  // `from a.b import m`, `from . import m as mm`: the package's import, the module a name it gives.
  for (const row of rows("i.resolved_file_id = (SELECT id FROM files WHERE path = ?)", `${parts.slice(0, -1).join("/")}/__init__.py`)) {
    const locals = JSON.parse(row.locals) as string[];
    (JSON.parse(row.symbols) as string[]).forEach((imported, j) => {
      if (imported === stem) out.push({ file_path: row.path, line: row.line, kind: "namespace", local: locals[j] ?? imported });
    });
  }
  return out;
}

/**
 * Why renaming a member (`Owner.member`) in its own file alone may break code the plan cannot
 * edit: the owner is an interface (object literals and classes implement it), it extends or
 * implements another type (which may declare the member), or another type extends or implements
 * it (which may override the member). Empty for a declaration that is no member.
 */
export function memberRisks(db: Db, target: Target): string[] {
  const decl = target.sites[0];
  const dot = decl ? decl.name.lastIndexOf(".") : -1;
  if (!decl || dot === -1) return [];
  const owner = decl.name.slice(0, dot);
  const member = decl.name.slice(dot + 1);
  const risks: string[] = [];
  const kind = prepared(db, "SELECT kind FROM symbols WHERE file_id = ? AND name = ? AND kind IN ('class', 'interface', 'type') LIMIT 1").pluck().get(decl.file_id, owner) as string | undefined;
  if (kind === "interface" || kind === "type")
    risks.push(`${owner} is ${kind === "interface" ? "an interface" : "a type"}: the object literals and classes that implement it name '${member}' too, and the rename does not follow them`);
  for (const h of prepared(db, "SELECT relation, target FROM heritage WHERE file_id = ? AND class_name = ? ORDER BY target").all(decl.file_id, owner) as Array<{ relation: string; target: string }>) {
    risks.push(`${owner} ${h.relation} ${h.target}, which may declare '${member}': renaming it in ${owner} alone may break that contract`);
  }
  for (const h of prepared(db, "SELECT f.path, h.class_name, h.relation FROM heritage h JOIN files f ON f.id = h.file_id WHERE h.target = ? ORDER BY f.path, h.class_name").all(owner) as Array<{
    path: string;
    class_name: string;
    relation: string;
  }>) {
    risks.push(`${h.class_name} (${h.path}) ${h.relation} ${owner} and may override '${member}'`);
  }
  return risks;
}

/** A declaration's parameters as indexed (name, type, optional), or null when it has none recorded. */
export function declaredParams(db: Db, id: number): ParamRecord[] | null {
  const text = symbolTextsOf(db, id).params;
  return text === null ? null : unpackParams(text);
}

/** Whether the index holds an import row for `path`:`line` (a Python import inside a function, a Rust `use` in a fn body: none). */
export function importRecorded(db: Db, path: string, line: number): boolean {
  return prepared(db, "SELECT 1 FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path = ? AND i.line = ? LIMIT 1").pluck().get(path, line) !== undefined;
}
