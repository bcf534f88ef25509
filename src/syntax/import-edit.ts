// add-import and remove-import: a file's top-level import statements read through its spec's
// rules, an import merged into a statement of its module or written after the last one, and the
// names (or whole statements) of a module removed.
import { MastError } from "../base/errors.js";
import { sameNode, type EditRules, type ImportSpec, type ModuleSystem } from "../lang/edit-rules.js";
import { lineOf, walk, type TextEdit } from "./ast-walk.js";
import { NameIndex } from "./name-bindings.js";
import type { SyntaxNode, Tree } from "./parser.js";

// ---- add-import / remove-import ----

interface ImportStatementFound {
  readonly node: SyntaxNode;
  readonly specs: ImportSpec[];
}

/** The file's top-level import statements with what each imports. */
function importStatementsOf(rules: EditRules, tree: Tree): ImportStatementFound[] {
  return tree.rootNode.namedChildren.flatMap((node) => {
    const specs = rules.imports.read(node);
    return specs.length ? [{ node, specs }] : [];
  });
}

/** The module systems the file's imports are written in (ECMAScript: `import` and `require`). */
export function importSystems(rules: EditRules, tree: Tree): Set<ModuleSystem> {
  return new Set(importStatementsOf(rules, tree).flatMap((s) => s.specs.flatMap((p) => (p.system ? [p.system] : []))));
}

function parseSpec(rules: EditRules, spec: string): ImportSpec {
  const parsed = rules.imports.parse(spec);
  if (typeof parsed === "string") throw new MastError("INVALID_ARGUMENT", parsed);
  return parsed;
}

/** Whether `have` already brings in everything `want` asks for. */
function covers(have: ImportSpec, want: ImportSpec): boolean {
  if (have.module !== want.module || want.typeOnly !== have.typeOnly) return false;
  if (want.defaultName !== null && have.defaultName !== want.defaultName) return false;
  if (want.namespace !== null && have.namespace !== want.namespace) return false;
  return want.names.every((n) => have.names.some((h) => h.name === n.name && h.alias === n.alias));
}

/** The span of a node's whole lines, with the line break after them. */
function wholeLines(source: string, node: SyntaxNode): TextEdit {
  const start = source.lastIndexOf("\n", node.startIndex - 1) + 1;
  const lineEnd = source.indexOf("\n", node.endIndex);
  const end = lineEnd === -1 ? source.length : lineEnd + 1;
  // A statement that is the file's last line takes the line break before it instead.
  return end === source.length && lineEnd === -1 && start > 0 ? { start: start - 1, end, text: "" } : { start, end, text: "" };
}

/**
 * The edit adding an import: nothing when the file imports it already, merged into a statement
 * that can take it, or a new statement after the last import (the first after the file's
 * preamble: package clause, docstring, directives), in the module system given.
 */
export function planAddImport(rules: EditRules, tree: Tree, source: string, specText: string, system: ModuleSystem): { edits: TextEdit[]; message: string } {
  const asked = parseSpec(rules, specText);
  const statements = importStatementsOf(rules, tree);
  if (statements.some((s) => s.specs.some((have) => covers(have, asked)))) return { edits: [], message: `'${specText}' is imported already` };
  // Only the names the module's imports do not bring in yet.
  const present = statements.flatMap((s) => s.specs.filter((p) => p.module === asked.module && p.typeOnly === asked.typeOnly));
  const missing = asked.names.filter((n) => !present.some((p) => covers(p, { ...asked, defaultName: null, namespace: null, names: [n] })));
  const spec =
    asked.names.length > 0 && missing.length > 0 && (asked.defaultName === null || present.some((p) => p.defaultName === asked.defaultName)) && asked.namespace === null
      ? { ...asked, defaultName: null, names: missing }
      : asked;
  const locals = rules.imports.locals(spec);
  const w = walk(rules, tree, locals);
  for (const local of locals) {
    const bound = new NameIndex(rules, tree.rootNode, local, w).bindings.find((b) => sameNode(b.scope, tree.rootNode));
    if (bound) {
      throw new MastError("AMBIGUOUS_SYMBOL", `the import would bind '${local}', which line ${lineOf(bound.token)} binds already (${bound.kind}); nothing was added`, {
        hint: "Import it under another name (`{ a as b } from m`), or remove the other binding first.",
      });
    }
  }
  const rendered = rules.imports.render(spec, system, statements[0]?.node ?? null);
  if ("mismatch" in rendered) throw new MastError("MODULE_SYSTEM_MISMATCH", `${rendered.mismatch}; the file is ${system === "cjs" ? "CommonJS" : "an ES module"}`, { hint: rendered.recovery });
  const own = statements.filter((s) => s.specs.some((p) => p.module === spec.module));
  for (const s of [...own, ...[...statements].reverse()]) {
    const merged = rules.imports.merge(s.node, spec, source);
    if (merged) return { edits: [merged], message: `Added '${specText}' to the import at line ${lineOf(s.node)}` };
  }
  const last = statements.at(-1)?.node ?? (rules.imports.firstAfter(tree.rootNode) as SyntaxNode | null);
  if (last === null) {
    const next = source.split("\n", 1)[0]!;
    return { edits: [{ start: 0, end: 0, text: `${rendered.text}\n${next.trim() === "" ? "" : "\n"}` }], message: `Added '${specText}' at the top of the file` };
  }
  const lineEnd = source.indexOf("\n", last.endIndex - 1);
  const at = lineEnd === -1 ? source.length : lineEnd;
  const afterPreamble = statements.length === 0;
  const nextLine = source.slice(at + 1).split("\n", 1)[0] ?? "";
  const tail = afterPreamble && lineEnd !== -1 && nextLine.trim() !== "" ? "\n" : "";
  return { edits: [{ start: at, end: at, text: `\n${afterPreamble ? "\n" : ""}${rendered.text}${tail}` }], message: `Added '${specText}' after line ${lineOf(last)}` };
}

/** The edits removing an import: the names it lists from the statements that import them, or the module's whole statements. */
export function planRemoveImport(rules: EditRules, tree: Tree, source: string, specText: string): { edits: TextEdit[]; message: string } {
  const spec = parseSpec(rules, specText);
  const wanted = [...spec.names.map((n) => n.name), ...(spec.defaultName ? ["default"] : []), ...(spec.namespace ? ["*"] : [])];
  const edits: TextEdit[] = [];
  for (const s of importStatementsOf(rules, tree)) {
    const mine = s.specs.filter((p) => p.module === spec.module);
    if (mine.length === 0) continue;
    const holds =
      wanted.length === 0 ||
      mine.some(
        (p) =>
          p.names.some((n) => wanted.includes(n.name)) ||
          (p.defaultName !== null && wanted.includes("default")) ||
          (p.namespace !== null && (wanted.includes("*") || (p.system === "cjs" && wanted.includes("default")))),
      );
    if (!holds) continue;
    const edit = rules.imports.without(s.node, spec, source);
    edits.push(edit === "all" ? wholeLines(source, s.node) : edit);
  }
  if (edits.length === 0) throw new MastError("SYMBOL_NOT_FOUND", `the file has no import of '${specText}'`, { hint: "List the file's imports with mast_dependencies, or read its first lines." });
  return { edits, message: `Removed '${specText}' (${edits.length} statement${edits.length === 1 ? "" : "s"} changed)` };
}
