// TypeScript/JavaScript import and re-export statements as import rows: `import … from`,
// `import x = require(…)`, and the sources of `export … from` / `export * from`, with the local
// names each import binds (the export pass and the call-site pass read them).
import { exportSpecifiers, stringValue } from "./es-nodes.js";
import type { SyntaxNode } from "./flat-tree.js";
import type { ImportRecord } from "./types.js";

/** Where a local name an import binds comes from. */
export interface ImportBinding {
  readonly module: string;
  readonly importedName: string;
}

/** An `import` statement's row and the locals it binds, or null when it names no module. */
export function importOf(stmt: SyntaxNode): { record: ImportRecord; bindings: Array<[string, ImportBinding]> } | null {
  const line = stmt.startPosition.row + 1;
  const bindings: Array<[string, ImportBinding]> = [];
  const requireClause = stmt.namedChildren.find((c) => c.type === "import_require_clause");
  if (requireClause) {
    const source = requireClause.childForFieldName("source");
    const local = requireClause.namedChildren.find((c) => c.type === "identifier")?.text;
    if (!source) return null;
    const module = stringValue(source);
    if (local) bindings.push([local, { module, importedName: "default" }]);
    return { record: { module, names: ["default"], locals: local ? [local] : [], kind: "require", line }, bindings };
  }
  const source = stmt.childForFieldName("source");
  if (!source) return null;
  const module = stringValue(source);
  const names: string[] = [];
  const locals: string[] = [];
  const clause = stmt.namedChildren.find((c) => c.type === "import_clause");
  for (const part of clause?.namedChildren ?? []) {
    if (part.type === "identifier") {
      names.push("default");
      locals.push(part.text);
      bindings.push([part.text, { module, importedName: "default" }]);
    } else if (part.type === "namespace_import") {
      names.push("*");
      const local = part.namedChildren.find((c) => c.type === "identifier")?.text;
      locals.push(local ?? "*");
      if (local) bindings.push([local, { module, importedName: "*" }]);
    } else if (part.type === "named_imports") {
      for (const spec of part.namedChildren) {
        if (spec.type !== "import_specifier") continue;
        const imported = spec.childForFieldName("name");
        if (!imported) continue;
        const importedName = imported.type === "string" ? stringValue(imported) : imported.text;
        const alias = spec.childForFieldName("alias")?.text ?? importedName;
        names.push(importedName);
        locals.push(alias);
        bindings.push([alias, { module, importedName }]);
      }
    }
  }
  return { record: { module, names, locals, kind: "import", line }, bindings };
}

/** The row of an `export … from` / `export * from` statement's source, or null when it has none. */
export function exportSourceOf(stmt: SyntaxNode): ImportRecord | null {
  const source = stmt.childForFieldName("source");
  if (!source) return null;
  const module = stringValue(source);
  const line = stmt.startPosition.row + 1;
  const clause = stmt.namedChildren.find((c) => c.type === "export_clause");
  if (clause) return { module, names: exportSpecifiers(clause).map((s) => s.local), locals: [], kind: "export_from", line };
  if (stmt.namedChildren.some((c) => c.type === "namespace_export")) return { module, names: ["*"], locals: [], kind: "export_from", line };
  return { module, names: ["*"], locals: [], kind: "export_star", line };
}
