// ECMAScript imports for add-import and remove-import: the spec in ESM form (`{ a, b as c } from
// ./m`, `D from m`, `* as ns from m`, `type { T } from ./t`, `./polyfill`), read from `import`
// statements and from `require` declarations, written in either module system — a CommonJS file
// gets `const { a } = require(…)` — in the quotes and semicolons the file's imports use, and
// merged into an existing statement of the same module.
import { appendItems, type ImportRules, type ImportSpec, type ModuleSystem, type RuleEdit } from "./edit-rules.js";
import type { RuleNode } from "./outline.js";

const IDENT = "[A-Za-z_$][\\w$]*";

/** `a`, `a as b`, `type a` (the `type` of one name is kept in its text). */
function parseNames(list: string): ImportSpec["names"] | null {
  const out: Array<{ name: string; alias: string | null }> = [];
  for (const part of list
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")) {
    const m = new RegExp(`^((?:type\\s+)?${IDENT})(?:\\s+as\\s+(${IDENT}))?$`).exec(part);
    if (!m) return null;
    out.push({ name: m[1]!, alias: m[2] ?? null });
  }
  return out;
}

function parse(raw: string): ImportSpec | string {
  let spec = raw.trim().replace(/;$/, "").trim();
  if (spec.startsWith("import ")) spec = spec.slice(7).trim();
  const typeOnly = /^type\s/.test(spec);
  if (typeOnly) spec = spec.slice(4).trim();
  const from = /^(.*?)\s+from\s+(\S+)$/s.exec(spec);
  const unquote = (m: string) => m.replace(/^(["'`])(.*)\1$/, "$2");
  if (!from) {
    if (/^\S+$/.test(spec) && !typeOnly) return { module: unquote(spec), defaultName: null, namespace: null, names: [], typeOnly: false };
    return `not an import spec: ${JSON.stringify(raw)} (write it in ESM form: '{ a, b as c } from ./m', 'D from m', '* as ns from m', 'type { T } from ./t' or './side-effect')`;
  }
  const clause = from[1]!.trim();
  const module = unquote(from[2]!);
  let defaultName: string | null = null;
  let namespace: string | null = null;
  let names: ImportSpec["names"] = [];
  const m = new RegExp(`^(?:(${IDENT})\\s*(?:,\\s*|$))?(?:\\*\\s*as\\s+(${IDENT})|\\{([^}]*)\\})?$`).exec(clause);
  if (!m || (!m[1] && !m[2] && m[3] === undefined)) return `cannot read the bindings ${JSON.stringify(clause)} of the import spec`;
  defaultName = m[1] ?? null;
  namespace = m[2] ?? null;
  if (m[3] !== undefined) {
    const parsed = parseNames(m[3]);
    if (parsed === null) return `cannot read the names {${m[3]}} of the import spec`;
    names = parsed;
  }
  return { module, defaultName, namespace, names, typeOnly };
}

const stringValue = (node: RuleNode | null): string | null => (node?.type === "string" ? node.text.slice(1, -1) : null);

/** The module a `require(…)` call node names, or null. */
function requiredModule(call: RuleNode | null): string | null {
  if (call?.type !== "call_expression" || call.childForFieldName("function")?.text !== "require") return null;
  const args = call.childForFieldName("arguments")?.namedChildren ?? [];
  return args.length === 1 ? stringValue(args[0]!) : null;
}

function readOne(statement: RuleNode): ImportSpec | null {
  if (statement.type === "import_statement") {
    const module = stringValue(statement.childForFieldName("source"));
    if (module === null) return null;
    const typeOnly = statement.children.some((c) => c.type === "type");
    let defaultName: string | null = null;
    let namespace: string | null = null;
    const names: Array<{ name: string; alias: string | null }> = [];
    const clause = statement.namedChildren.find((c) => c.type === "import_clause");
    for (const part of clause?.namedChildren ?? []) {
      if (part.type === "identifier") defaultName = part.text;
      else if (part.type === "namespace_import") namespace = part.namedChildren[0]?.text ?? null;
      else if (part.type === "named_imports") {
        for (const s of part.namedChildren) {
          if (s.type !== "import_specifier") continue;
          const name = s.childForFieldName("name")?.text;
          if (name) names.push({ name, alias: s.childForFieldName("alias")?.text ?? null });
        }
      }
    }
    return { module, defaultName, namespace, names, typeOnly, system: "esm" };
  }
  if (statement.type === "lexical_declaration" || statement.type === "variable_declaration") {
    const declarators = statement.namedChildren.filter((c) => c.type === "variable_declarator");
    if (declarators.length !== 1) return null;
    const d = declarators[0]!;
    const module = requiredModule(d.childForFieldName("value"));
    const name = d.childForFieldName("name");
    if (module === null || !name) return null;
    if (name.type === "identifier") return { module, defaultName: null, namespace: name.text, names: [], typeOnly: false, system: "cjs" };
    if (name.type !== "object_pattern") return null;
    const names: Array<{ name: string; alias: string | null }> = [];
    for (const p of name.namedChildren) {
      if (p.type === "shorthand_property_identifier_pattern") names.push({ name: p.text, alias: null });
      else if (p.type === "pair_pattern") names.push({ name: p.childForFieldName("key")?.text ?? "", alias: p.childForFieldName("value")?.text ?? null });
      else return null;
    }
    return { module, defaultName: null, namespace: null, names, typeOnly: false, system: "cjs" };
  }
  if (statement.type === "expression_statement") {
    const module = requiredModule(statement.namedChildren[0] ?? null);
    return module === null ? null : { module, defaultName: null, namespace: null, names: [], typeOnly: false, system: "cjs" };
  }
  return null;
}

const read = (statement: RuleNode): ImportSpec[] => {
  const spec = readOne(statement);
  return spec ? [spec] : [];
};

const named = (names: ImportSpec["names"], separator: string) => names.map((n) => (n.alias ? `${n.name}${separator}${n.alias}` : n.name)).join(", ");

function render(spec: ImportSpec, system: ModuleSystem, like: RuleNode | null): { text: string } | { mismatch: string; recovery: string } {
  // The quotes and semicolon the file's imports use.
  const q = like && /^[^"]*'/.test(like.text) ? "'" : '"';
  const semi = like && !like.text.trimEnd().endsWith(";") ? "" : ";";
  const m = `${q}${spec.module}${q}`;
  if (system === "esm") {
    const parts = [spec.defaultName, spec.namespace ? `* as ${spec.namespace}` : null, spec.names.length ? `{ ${named(spec.names, " as ")} }` : null].filter((p) => p !== null);
    return { text: parts.length ? `import ${spec.typeOnly ? "type " : ""}${parts.join(", ")} from ${m}${semi}` : `import ${m}${semi}` };
  }
  if (spec.typeOnly)
    return { mismatch: "a type-only import has no runtime form in a CommonJS file", recovery: "Reference the type in a JSDoc @typedef that imports it, or add it to a TypeScript file." };
  if (spec.defaultName && (spec.names.length || spec.namespace)) {
    return { mismatch: "a default binding together with named ones has no single require declaration", recovery: "Add them as two imports: 'D from m', then '{ a } from m'." };
  }
  const local = spec.defaultName ?? spec.namespace;
  if (local) return { text: `const ${local} = require(${m})${semi}` };
  if (spec.names.length) return { text: `const { ${named(spec.names, ": ")} } = require(${m})${semi}` };
  return { text: `require(${m})${semi}` };
}

/** The names list node of a statement (`{ a, b }` of an import, the object pattern of a require), or null. */
function namesList(statement: RuleNode): RuleNode | null {
  if (statement.type === "import_statement") return statement.namedChildren.find((c) => c.type === "import_clause")?.namedChildren.find((c) => c.type === "named_imports") ?? null;
  const name = statement.namedChildren.find((c) => c.type === "variable_declarator")?.childForFieldName("name");
  return name?.type === "object_pattern" ? name : null;
}

/** An edit adding items to a `{ … }` list: after its last item (appendItems), or into an empty one. */
function appendToList(list: RuleNode, items: readonly string[], source: string): RuleEdit {
  const last = list.namedChildren.filter((c) => c.type !== "comment").at(-1);
  if (!last) return { start: list.startIndex, end: list.endIndex, text: `{ ${items.join(", ")} }` };
  return appendItems(last, { start: list.startIndex, end: list.endIndex }, items, source);
}

/** An edit leaving only `keep` (items' own text) in a `{ … }` list, in its layout. */
function keepInList(list: RuleNode, keep: readonly RuleNode[], source: string): RuleEdit {
  const text = source.slice(list.startIndex, list.endIndex);
  if (!text.includes("\n")) return { start: list.startIndex, end: list.endIndex, text: `{ ${keep.map((k) => k.text).join(", ")} }` };
  const first = list.namedChildren[0]!;
  const lineStart = source.lastIndexOf("\n", first.startIndex - 1) + 1;
  const indent = /^[ \t]*/.exec(source.slice(lineStart))![0];
  const closeStart = source.lastIndexOf("\n", list.endIndex - 1) + 1;
  const closeIndent = /^[ \t]*/.exec(source.slice(closeStart))![0];
  const trailing = /,\s*}$/.test(text);
  return { start: list.startIndex, end: list.endIndex, text: `{\n${keep.map((k) => `${indent}${k.text}`).join(",\n")}${trailing ? "," : ""}\n${closeIndent}}` };
}

function merge(statement: RuleNode, spec: ImportSpec, source: string): RuleEdit | null {
  if (spec.defaultName || spec.namespace || spec.names.length === 0) return null;
  const current = readOne(statement);
  if (!current || current.module !== spec.module || current.typeOnly !== spec.typeOnly || (current.namespace !== null && current.system === "esm")) return null;
  const separator = current.system === "cjs" ? ": " : " as ";
  const items = spec.names.map((n) => (n.alias ? `${n.name}${separator}${n.alias}` : n.name));
  const list = namesList(statement);
  if (list) return appendToList(list, items, source);
  // `import D from "m"` takes `{ … }` after its default binding.
  if (statement.type === "import_statement" && current.defaultName) {
    const def = statement.namedChildren.find((c) => c.type === "import_clause")!.namedChildren.find((c) => c.type === "identifier")!;
    return { start: def.endIndex, end: def.endIndex, text: `, { ${items.join(", ")} }` };
  }
  return null;
}

function without(statement: RuleNode, spec: ImportSpec, source: string): RuleEdit | "all" {
  const current = readOne(statement)!;
  if (spec.names.length === 0 && !spec.defaultName && !spec.namespace) return "all";
  const names = [...spec.names.map((n) => n.name), ...(spec.defaultName ? ["default"] : []), ...(spec.namespace ? ["*"] : [])];
  const list = namesList(statement);
  const items = (list?.namedChildren ?? []).filter((c) => c.type !== "comment");
  const nameOf = (item: RuleNode) => (item.type === "import_specifier" ? item.childForFieldName("name")!.text : item.type === "pair_pattern" ? item.childForFieldName("key")!.text : item.text);
  const keep = items.filter((i) => !names.includes(nameOf(i)));
  const dropDefault = current.defaultName !== null && names.includes("default");
  // `const X = require(…)` is both what `D from m` and `* as X from m` write.
  const dropNamespace = current.namespace !== null && (names.includes("*") || (current.system === "cjs" && names.includes("default")));
  const left = keep.length + (current.defaultName && !dropDefault ? 1 : 0) + (current.namespace && !dropNamespace ? 1 : 0);
  if (left === 0) return "all";
  if (list && keep.length === 0) {
    // `import D, { a } from "m"` without `a`: the default stays.
    const clause = statement.namedChildren.find((c) => c.type === "import_clause")!;
    const before = clause.namedChildren[clause.namedChildren.indexOf(list) - 1]!;
    return { start: before.endIndex, end: list.endIndex, text: "" };
  }
  if (dropDefault && list) {
    const def = statement.namedChildren.find((c) => c.type === "import_clause")!.namedChildren.find((c) => c.type === "identifier")!;
    return { start: def.startIndex, end: list.startIndex, text: "" };
  }
  return keepInList(list!, keep, source);
}

/** A hashbang line and directive prologue (`"use strict"`) stay above the imports. */
function firstAfter(root: RuleNode): RuleNode | null {
  let after: RuleNode | null = null;
  for (const c of root.namedChildren) {
    if (c.type === "hashbang_line" || (c.type === "expression_statement" && c.namedChildren[0]?.type === "string")) after = c;
    else if (c.type !== "comment") break;
  }
  return after;
}

/** The names an import binds: the default, the namespace, each name or its alias. */
const locals = (spec: ImportSpec): string[] => [spec.defaultName, spec.namespace, ...spec.names.map((n) => n.alias ?? n.name.replace(/^type\s+/, ""))].filter((n): n is string => n !== null);

export const ECMASCRIPT_IMPORTS: ImportRules = { parse, read, render, merge, without, firstAfter, locals };

/** JavaScript's imports: `.mjs` (and `.jsx`, which bundlers read) is ESM and `.cjs` CommonJS whatever they contain. */
export const JAVASCRIPT_IMPORTS: ImportRules = { ...ECMASCRIPT_IMPORTS, moduleSystems: { esm: [".mjs", ".jsx"], cjs: [".cjs"] } };
