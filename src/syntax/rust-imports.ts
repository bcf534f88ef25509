// Rust `use` declarations as import rows: a use tree (`a::{b, c as d, e::*}`, `self` in a list)
// flattened to the module each name comes from, `pub use` also as re-export markers; and
// `self::`/`super::` paths written inside an inline module rebased to the file's own module.
import { firstLine } from "../base/text.js";
import * as RUST from "../lang/rust-nodes.js";
import type { SyntaxNode } from "./flat-tree.js";
import { symbolRecord, type ImportRecord, type SymbolRecord } from "./types.js";

/** What one `use` declaration brings in. */
export interface UseRows {
  /** Its import rows: glob imports first, then one row per module the names come from. */
  readonly imports: ImportRecord[];
  /** The locals it binds, in the rows' order. */
  readonly locals: string[];
  /** `pub use`: a re-export marker per local. */
  readonly exports: SymbolRecord[];
  /** Every name it binds, whatever it names (`locals` leaves out items of the file's own inline modules). */
  readonly bound: string[];
}

/**
 * `use a::b::C;`, `use a::{b, c as d, e::*};`, `pub use …` (a re-export, `pub`): written in the
 * inline module `prefix` (`m.`, "" at the top level). An inline module's `use` binds in the file's
 * one name table (a name bound twice to different things is left unresolved by the linker).
 */
export function readUseRows(node: SyntaxNode, prefix: string, pub: boolean): UseRows {
  const out: UseRows = { imports: [], locals: [], exports: [], bound: [] };
  const arg = node.childForFieldName("argument");
  if (!arg) return out;
  const line = node.startPosition.row + 1;
  const rows = new Map<string, { names: string[]; locals: string[] }>();
  const add = (module: string, name: string, local: string) => {
    out.bound.push(local);
    const row = rows.get(module) ?? { names: [], locals: [] };
    row.names.push(name);
    row.locals.push(local);
    rows.set(module, row);
  };
  const star = (written: string) => {
    const module = fromFileModule(written, prefix);
    if (module !== null) out.imports.push({ module, names: ["*"], locals: [], kind: pub ? "export_star" : "import", line });
  };
  // An explicit stack of (use tree, path prefix), not recursion.
  const stack: Array<[SyntaxNode, string]> = [[arg, ""]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [tree, base] = top;
    const join = (p: string) => (base === "" ? p : `${base}::${p}`);
    switch (tree.type) {
      case RUST.IDENTIFIER:
      case RUST.CRATE:
      case RUST.SELF:
      case RUST.SUPER: {
        // `use a;` / `{a}`: a crate or a module; `self` in a list is the list's own module.
        if (tree.type === RUST.SELF && base !== "") {
          const cut = base.lastIndexOf("::");
          add(cut === -1 ? "" : base.slice(0, cut), base.slice(cut + 2), base.slice(cut + 2));
        } else add(base, tree.text, tree.text);
        break;
      }
      case RUST.SCOPED_IDENTIFIER: {
        const path = tree.childForFieldName("path");
        const name = tree.childForFieldName("name")?.text ?? "";
        add(join(path?.text.replace(/\s+/g, "") ?? ""), name, name);
        break;
      }
      case RUST.USE_AS_CLAUSE: {
        const path = tree.childForFieldName("path");
        const alias = tree.childForFieldName("alias")?.text ?? "";
        const full = join(path?.text.replace(/\s+/g, "") ?? "");
        const cut = full.lastIndexOf("::");
        add(cut === -1 ? "" : full.slice(0, cut), full.slice(cut + 2), alias);
        break;
      }
      case "use_wildcard":
        star(join(tree.text.replace(/\s+/g, "").replace(/::\*$/, "")));
        break;
      case RUST.SCOPED_USE_LIST: {
        const path = tree.childForFieldName("path");
        const list = tree.childForFieldName("list");
        for (const item of [...(list?.namedChildren ?? [])].reverse()) stack.push([item, join(path?.text.replace(/\s+/g, "") ?? "")]);
        break;
      }
      case RUST.USE_LIST:
        for (const item of [...tree.namedChildren].reverse()) stack.push([item, base]);
        break;
      default:
        break;
    }
  }
  for (const [written, { names, locals }] of rows) {
    const module = fromFileModule(written, prefix);
    if (module === null) continue; // an item of the file's own inline modules
    names.forEach((name, i) => {
      const local = locals[i]!;
      out.locals.push(local);
      if (pub) out.exports.push(symbolRecord(local, "export", line, node.endPosition.row + 1, true, { signature: firstLine(node.text), reExport: { module, importedName: name } }));
    });
    // A lone `use name;` (a crate or a sibling module) binds the module itself.
    if (module === "") out.imports.push({ module: names[0]!, names: ["*"], locals: [locals[0]!], kind: pub ? "export_from" : "import", line });
    else out.imports.push({ module, names, locals, kind: pub ? "export_from" : "import", line });
  }
  return out;
}

/**
 * A `self::`/`super::` path written inside an inline module, as the file's resolver reads paths
 * (from the file's own module): one `super` per inline level is the file itself; null when the
 * path stays inside the file's inline modules (their items are `m.item`, not a module file).
 */
export function fromFileModule(path: string, module: string): string | null {
  const depth = module === "" ? 0 : module.split(".").length - 1;
  if (depth === 0 || !/^(?:self|super)(?:::|$)/.test(path)) return path;
  const segs = path.split("::");
  if (segs[0] === "self") return null;
  let supers = 0;
  while (segs[supers] === "super") supers++;
  if (supers < depth) return null;
  const rest = segs.slice(supers);
  const up = Array<string>(supers - depth).fill("super");
  return [...(up.length > 0 ? up : ["self"]), ...rest].join("::");
}
