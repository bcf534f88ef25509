// Python extraction: top-level functions and classes (with their decorators) become chunks and
// symbols with parameters and return types, methods become `Class.method` and class attributes
// `Class.attr` (what they hold), docstrings are the docs, `__all__` (else a leading underscore)
// decides exportedness and re-exports, `import` / `from … import` (also under module-level `if` /
// `try`) become import rows, and calls become call sites with what their receiver is known to be:
// `self`, `cls`, `super()`, a module, a class, an annotated or constructed local, a module-level
// variable, a `with … as` target, an attribute chain, a pytest fixture parameter. Other top-level
// statements are block chunks. Pure: a function of (path, text, options); never touches the disk.
import { languageSpec } from "../lang/languages.js";
import { annotatedClass } from "../lang/python.js";
import { collapseWhitespace, firstLine } from "../base/text.js";
import { parseFlat, type SyntaxNode } from "./flat-tree.js";
import { shellOutline, type OutlinePart } from "./chunking.js";
import { bindLocal, TreeExtractor, type Known, type MutableDraft, type MutableSymbol } from "./tree-extractor.js";
import { symbolRecord, type CallReceiver, type ExtractOptions, type ExtractResult, type FileExtraction, type ParamRecord } from "./types.js";

type Sym = MutableSymbol;
/** A receiver whose class is known: from a parameter's annotation or a `Name(…)` binding. */
type Draft = MutableDraft;

/** A top-level declaration: the node its span starts at (its first decorator) and the definition. */
interface Definition {
  readonly outer: SyntaxNode;
  readonly def: SyntaxNode;
}

export function extractPython(filePath: string, text: string, grammar: string, language: string, options: ExtractOptions): ExtractResult {
  const tree = parseFlat(grammar, text, options.parseTimeoutMs);
  if (tree === null) return { ok: false, error: `parse timed out after ${options.parseTimeoutMs} ms` };
  return { ok: true, extraction: new PythonExtractor(filePath, text, language, tree.rootNode, options).run() };
}

const TOKENS: ReadonlySet<string> = new Set(["identifier"]);
/** The events that bind a local's type (or take it away) as the call pass reads a scope. */
const BINDINGS: ReadonlySet<string> = new Set(["assignment", "augmented_assignment", "for_statement", "as_pattern"]);
/** Calls and the nodes that bind names, read by position by the call, binding and attribute passes. */
const EVENTS: ReadonlySet<string> = new Set([
  "call",
  "assignment",
  "augmented_assignment",
  "for_statement",
  "for_in_clause",
  "lambda",
  "as_pattern",
  "named_expression",
  "function_definition",
  "class_definition",
  "import_statement",
  "import_from_statement",
  "global_statement",
  "nonlocal_statement",
]);

class PythonExtractor extends TreeExtractor {
  private group: { start: SyntaxNode; end: SyntaxNode } | null = null;
  /** Locals bound by `import mod` / `import a.b as m`: calls on them are namespace calls. */
  private readonly moduleLocals = new Set<string>();
  /** Locals bound by `from m import Name`: `Name.f()` is a call on what the import names. */
  private readonly importedNames = new Set<string>();
  private readonly classNames = new Set<string>();
  private readonly baseOf = new Map<string, string>();
  /** Per class: `self.attr` → its class, from `self.attr = Name(…)`, `self.attr: T = …`, `self.attr = param` (annotated) and `attr: T` in the class body. */
  private readonly fieldTypes = new Map<string, Map<string, string>>();
  private exportList: Set<string> | null = null;
  private exportStatement: SyntaxNode | null = null;
  /** Module-level variables' symbols by name (the first binding's). */
  private readonly variables = new Map<string, MutableSymbol>();
  /** Module-level variables bound to one class (`typeModuleVariables`). */
  private readonly moduleTypes = new Map<string, Known>();
  /** Module-level pytest fixtures of this file whose value is one class: a later test's (or fixture's) parameter of that name holds it. */
  private readonly fixtureClasses = new Map<string, string>();

  run(): FileExtraction {
    this.collect(TOKENS, EVENTS);
    // `__all__` decides exportedness for every name, also those assigned above it.
    this.exportStatement = exportListStatement(this.root);
    this.exportList = exportListOf(this.exportStatement);
    const definitions: Definition[] = [];
    for (const stmt of this.root.namedChildren) {
      const def = stmt.type === "decorated_definition" ? stmt.childForFieldName("definition") : stmt;
      if (def && (def.type === "function_definition" || def.type === "class_definition")) {
        this.flushGroup();
        definitions.push({ outer: stmt, def });
        continue;
      }
      for (const imp of moduleImports(stmt)) this.recordImport(imp);
      // An assignment to one name (`NAME = …`) declares it: a block of its own.
      if (assignedName(stmt) !== null) {
        this.flushGroup();
        this.group = { start: stmt, end: stmt };
        this.flushGroup();
        continue;
      }
      if (stmt.type === "comment" && this.group === null) continue;
      this.group = this.group === null ? { start: stmt, end: stmt } : { ...this.group, end: stmt };
    }
    this.flushGroup();
    // Classes first: a bare call `Name()` of a class declared later in the file is still a class.
    for (const d of definitions) if (d.def.type === "class_definition") this.classNames.add(d.def.childForFieldName("name")?.text ?? "");
    this.typeModuleVariables();
    for (const d of definitions) {
      if (d.def.type === "class_definition") this.declareClass(d);
      else this.declareFunction(d, null);
    }
    this.recordTopLevelCalls(definitions);
    this.exportStarNames();
    return this.finish();
  }

  // ---- top-level blocks ----

  private flushGroup(): void {
    if (this.group === null) return;
    const { start, end } = this.group;
    this.group = null;
    const startLine = start.startPosition.row + 1;
    const endLine = end.endPosition.row + 1;
    // A block that is one assignment to one name is that name's chunk and symbol.
    const name = start.id === end.id ? assignedName(start) : null;
    this.drafts.push({ startLine, endLine, chunkType: "block", symbolName: name, parentSymbol: null, isExported: name !== null && this.isPublic(name) });
    if (name !== null) {
      const text = this.slice(start.startIndex, start.endIndex);
      const sym = this.addSymbol(start, /^[A-Z][A-Z0-9_]*$/.test(name) ? "const" : "variable", name, this.isPublic(name), null, firstLine(text), text);
      if (!this.variables.has(name)) this.variables.set(name, sym);
    }
  }

  /**
   * Module-level variables bound to one class (`app = Flask(__name__)`, `app = flask.Flask(…)`,
   * `app: Flask = …`) by every binding the module makes (a name bound again otherwise, by a loop,
   * a definition or a function's `global`, has none): calls on them anywhere in the module are
   * typed, and the variable's symbol records the class for other modules (`from app import app`).
   */
  private typeModuleVariables(): void {
    const poisoned = new Set<string>();
    const typed = new Set<number>();
    for (const stmt of this.root.namedChildren) {
      const assign = stmt.type === "expression_statement" ? stmt.namedChild(0) : null;
      const left = assign?.type === "assignment" ? assign.childForFieldName("left") : null;
      if (assign && left?.type === "identifier") {
        const annotated = this.projectClass(assign.childForFieldName("type")?.text ?? null);
        bindLocal(
          this.moduleTypes,
          poisoned,
          left.text,
          annotated !== null ? { kind: "typed", typeName: annotated, resolution: "new_expression" } : this.knownValue(assign.childForFieldName("right"), null, this.moduleTypes),
        );
        typed.add(assign.startIndex);
      }
    }
    for (const name of this.scopeNames(this.root.startIndex, this.root.endIndex, typed)) bindLocal(this.moduleTypes, poisoned, name, null);
    for (const m of this.text.matchAll(/^[ \t]*(?:global|nonlocal)\s+([\w, \t]+)/gm)) for (const name of m[1]!.split(",")) bindLocal(this.moduleTypes, poisoned, name.trim(), null);
    for (const [name, known] of this.moduleTypes) {
      if (known.kind !== "typed") this.moduleTypes.delete(name);
      else {
        const sym = this.variables.get(name);
        if (sym && sym.returnType === null) sym.returnType = known.typeName;
      }
    }
  }

  private isPublic(name: string): boolean {
    return this.exportList ? this.exportList.has(name) : !name.startsWith("_");
  }

  // ---- declarations ----

  private declareFunction(d: Definition, cls: string | null): Sym {
    const name = d.def.childForFieldName("name")?.text ?? "";
    const qualified = cls === null ? name : `${cls}.${name}`;
    const body = d.def.childForFieldName("body");
    const exported = cls === null ? this.isPublic(name) : this.isPublic(cls) && isPublicMember(name);
    const doc = docstringOf(body);
    this.drafts.push({
      startLine: d.outer.startPosition.row + 1,
      endLine: d.outer.endPosition.row + 1,
      headerEndLine: (body ?? d.def).startPosition.row + 1,
      chunkType: cls === null ? "function" : "method",
      symbolName: qualified,
      parentSymbol: cls,
      isExported: exported,
    });
    const header = this.header(d, body);
    const sym = this.addSymbol(d.outer, cls === null ? "function" : "method", qualified, exported, doc, header, body ? this.slice(body.startIndex, body.endIndex) : "");
    // A definition's line is its `def` line (its decorators sit above it, in its chunk).
    sym.line = d.def.startPosition.row + 1;
    sym.parent = cls;
    sym.params = paramsOf(d.def.childForFieldName("parameters"), cls !== null && !isStatic(d.outer));
    const returns = d.def.childForFieldName("return_type");
    sym.returnType = returns ? collapseWhitespace(returns.text) : null;
    // Annotated parameters type their receivers (`def f(ctx: Context): ctx.invoke()`); a test's
    // (or fixture's) unannotated parameter is the fixture pytest passes under its name.
    const locals = new Set([...sym.params.map((p) => p.name), ...(body ? this.scopeNames(body.startIndex, body.endIndex) : [])]);
    const types = new Map([...this.moduleTypes].filter(([n]) => !locals.has(n)));
    const fixtureName = languageSpec(this.language)?.fixtureName?.(header, name) ?? null;
    const fixture = fixtureName !== null;
    const injected = fixture || /^test/.test(name);
    for (const p of sym.params) {
      if (!/^[A-Za-z_]\w*$/.test(p.name)) continue;
      const type = this.projectClass(p.type) ?? (p.type === null && injected ? (this.fixtureClasses.get(p.name) ?? null) : null);
      if (type !== null) types.set(p.name, { kind: "typed", typeName: type, resolution: "parameter_type" });
      else if (p.type === null && injected) types.set(p.name, { kind: "fixture", name: p.name });
    }
    this.recordCalls(body ?? d.def, qualified, cls, [], types, locals);
    if (fixture) {
      // A fixture without a return annotation gives what it always returns or yields.
      if (sym.returnType === null && body) sym.returnType = this.returnedValue(body, cls, types);
      // `@pytest.fixture(name="app")`: tests ask for it by that name (an alias of the function, as an export alias is).
      if (fixtureName !== name && cls === null) this.symbols.push({ ...sym, name: fixtureName!, isExported: false, aliasOf: name });
      const given = this.projectClass(sym.returnType);
      if (cls === null && given !== null) this.fixtureClasses.set(fixtureName!, given);
    }
    return sym;
  }

  /** The class an annotation names (`annotatedClass`) unless it is one of the language's own. */
  private projectClass(type: string | null): string | null {
    const c = annotatedClass(type);
    return c !== null && !languageSpec(this.language)?.builtinTypes.has(c.slice(c.lastIndexOf(".") + 1)) ? c : null;
  }

  /**
   * What every `return`/`yield` of a body (not of the functions it nests) gives: one class
   * (`User`), or what one call returns written as that call (`Flask.test_client()`); else null.
   */
  private returnedValue(body: SyntaxNode, cls: string | null, types: ReadonlyMap<string, Known>): string | null {
    const found = new Set<string | null>();
    const visit = (node: SyntaxNode) => {
      for (const child of node.namedChildren) {
        if (child.type === "function_definition" || child.type === "lambda" || child.type === "class_definition") continue;
        if (child.type === "return_statement" || child.type === "yield") {
          const value = child.namedChild(0);
          const known = value === null ? null : value.type === "identifier" ? (types.get(value.text) ?? null) : this.knownValue(value, cls, types);
          found.add(known?.kind === "typed" ? known.typeName : known?.kind === "returned" && !known.producer.endsWith("?") ? `${known.producer}()` : null);
        } else visit(child);
      }
    };
    visit(body);
    return found.size === 1 ? [...found][0]! : null;
  }

  private declareClass(d: Definition): void {
    const name = d.def.childForFieldName("name")?.text ?? "";
    const body = d.def.childForFieldName("body");
    const exported = this.isPublic(name);
    const bases = (d.def.childForFieldName("superclasses")?.namedChildren ?? []).map(baseName).filter((b): b is string => b !== null);
    const relevant = bases.filter((b) => b !== "object");
    this.heritage.push({ className: name, line: d.def.startPosition.row + 1, extends: relevant[0] ?? null, implements: relevant.slice(1) });
    if (relevant[0]) this.baseOf.set(name, relevant[0]);
    const header = this.header(d, body);
    const shell: Draft = { startLine: d.outer.startPosition.row + 1, endLine: d.outer.endPosition.row + 1, chunkType: "class_shell", symbolName: name, parentSymbol: null, isExported: exported };
    this.drafts.push(shell);
    const doc = docstringOf(body);
    const methodRanges: Array<[number, number]> = [];
    let methodCount = 0;
    const classSym = this.addSymbol(d.outer, "class", name, exported, doc, header, "");
    classSym.line = d.def.startPosition.row + 1;
    if (body) {
      // Attributes as symbols (`Class.attr`, a variable holding what they hold), for receivers in
      // other files (`request.url.copy_with()`); a same-file `self.attr.m()` reads them directly.
      const attributes = this.collectAttributes(name, body);
      const methods = new Set(body.namedChildren.map((m) => (m.type === "decorated_definition" ? (m.childForFieldName("definition") ?? m) : m).childForFieldName("name")?.text));
      this.fieldTypes.set(name, new Map([...attributes].filter(([, a]) => !a.value.endsWith("()")).map(([attr, a]) => [attr, a.value])));
      for (const [attr, a] of attributes) {
        if (methods.has(attr)) continue;
        this.symbols.push(symbolRecord(`${name}.${attr}`, "variable", a.line, a.line, exported && isPublicMember(attr), { signature: `${attr}: ${a.value}`, parent: name, returnType: a.value }));
      }
    }
    const parts: OutlinePart[] = [];
    for (const member of body?.namedChildren ?? []) {
      const def = member.type === "decorated_definition" ? member.childForFieldName("definition") : member;
      if (def?.type !== "function_definition") {
        // Kept verbatim by the outline (a docstring over OUTLINE_RUN_LINES lines by its summary line).
        const summary = doc && member.id === body?.namedChild(0)?.id ? `${" ".repeat(member.startPosition.column)}"""${doc.split("\n")[0]}"""` : undefined;
        parts.push({ startLine: member.startPosition.row + 1, endLine: member.endPosition.row + 1, from: member.startIndex, to: member.endIndex, ...(summary === undefined ? {} : { summary }) });
        continue;
      }
      const method = this.declareFunction({ outer: member, def }, name);
      const methodBody = def.childForFieldName("body");
      if (methodBody) methodRanges.push([methodBody.startIndex, methodBody.endIndex]);
      // The signature as written (decorators first), at the member's own indentation, its body elided.
      const sigLines = (method.signature ?? "").split("\n");
      sigLines[0] = " ".repeat(member.startPosition.column) + sigLines[0];
      sigLines[sigLines.length - 1] += ": ...";
      parts.push({ startLine: member.startPosition.row + 1, endLine: member.endPosition.row + 1, from: member.startIndex, to: member.endIndex, signature: sigLines });
      methodCount++;
    }
    // The outline also runs this class body's own calls (class attributes' initialisers).
    if (body) this.recordCalls(body, name, name, methodRanges);
    const outline = shellOutline(this.text, { from: d.outer.startIndex, to: d.outer.endIndex, className: name }, parts);
    shell.synthesized = outline.text;
    this.drafts.push(...outline.blocks);
    // A class has a body when it has methods (C-style "definition, not a declaration" for the linker).
    classSym.hasBody = methodCount > 0;
    this.exclusions.set(shell, [...methodRanges, ...outline.excluded]);
  }

  /**
   * What a class's attributes hold, where one binding (or several agreeing ones) says so: a class
   * (`attr: T` in the body, `self.attr: T = …`, `self.attr = Name(…)` or `mod.Name(…)`, `self.attr =
   * param` of an annotated parameter) or what one call returns, written as that call
   * (`self.config = self.make_config()` → `App.make_config()`); with each attribute's first line.
   */
  private collectAttributes(cls: string, body: SyntaxNode): Map<string, { value: string; line: number }> {
    const seen = new Map<string, { value: string | null; line: number }>();
    const note = (attr: string, value: string | null, line: number) => {
      const prev = seen.get(attr);
      seen.set(attr, prev === undefined ? { value, line } : { value: prev.value === value ? value : null, line: prev.line });
    };
    const typeNameOf = (known: Known | null) => (known?.kind === "typed" ? known.typeName : known?.kind === "returned" && !known.producer.endsWith("?") ? `${known.producer}()` : null);
    for (const member of body.namedChildren) {
      // `attr: T` / `attr: T = …` in the class body.
      const assign = member.type === "expression_statement" ? member.namedChild(0) : null;
      const left = assign?.type === "assignment" ? assign.childForFieldName("left") : null;
      if (assign && left?.type === "identifier" && assign.childForFieldName("type")) note(left.text, this.projectClass(assign.childForFieldName("type")!.text), left.startPosition.row + 1);
      const def = member.type === "decorated_definition" ? member.childForFieldName("definition") : member;
      if (def?.type !== "function_definition") continue;
      const params = new Map<string, Known>();
      for (const p of paramsOf(def.childForFieldName("parameters"), true)) {
        const type = this.projectClass(p.type);
        if (type !== null) params.set(p.name, { kind: "typed", typeName: type, resolution: "parameter_type" });
      }
      const scope = def.childForFieldName("body") ?? def;
      for (const { node: a } of this.eventsIn(scope.startIndex, scope.endIndex)) {
        if (a.type !== "assignment") continue;
        const target = a.childForFieldName("left");
        const object = target?.type === "attribute" ? target.childForFieldName("object") : null;
        const attr = target?.type === "attribute" ? target.childForFieldName("attribute")?.text : undefined;
        if (object?.type !== "identifier" || object.text !== "self" || !attr) continue;
        const annotation = a.childForFieldName("type");
        const right = a.childForFieldName("right");
        const value = annotation ? this.projectClass(annotation.text) : right?.type === "identifier" ? typeNameOf(params.get(right.text) ?? null) : typeNameOf(this.knownValue(right, cls, params));
        note(attr, value, target!.startPosition.row + 1);
      }
    }
    return new Map([...seen].filter((e): e is [string, { value: string; line: number }] => e[1].value !== null));
  }

  /** The declaration up to its body: decorators and the `def …(…) -> …` / `class …(…)` line(s), without the colon. */
  private header(d: Definition, body: SyntaxNode | null): string {
    // Up to the definition's own `:` (comments between it and the body's first statement are not the header's).
    const colon = d.def.children.find((c) => c.type === ":" && (!body || c.startIndex < body.startIndex));
    const end = colon ? colon.startIndex : body ? body.startIndex : d.def.endIndex;
    return this.slice(d.outer.startIndex, end).trimEnd().replace(/:$/, "");
  }

  // ---- imports ----

  private recordImport(stmt: SyntaxNode): void {
    const line = stmt.startPosition.row + 1;
    if (stmt.type === "import_statement") {
      // `import a.b` binds `a`; `import a.b as m` binds `m` to a.b.
      for (const part of stmt.namedChildren) {
        const dotted = part.type === "aliased_import" ? part.childForFieldName("name") : part.type === "dotted_name" ? part : null;
        if (!dotted) continue;
        const alias = part.type === "aliased_import" ? part.childForFieldName("alias")?.text : null;
        const local = alias ?? dotted.text.split(".")[0]!;
        this.moduleLocals.add(local);
        this.imports.push({ module: alias ? dotted.text : dotted.text.split(".")[0]!, names: ["*"], locals: [local], kind: "import", line });
      }
      return;
    }
    const moduleNode = stmt.childForFieldName("module_name");
    if (!moduleNode) return;
    const module = moduleNode.text.replace(/\s+/g, "");
    const reexports = this.reexports(stmt.parent?.type === "module", module);
    const names: string[] = [];
    const locals: string[] = [];
    for (const part of stmt.namedChildren) {
      if (part.id === moduleNode?.id) continue;
      if (part.type === "wildcard_import") {
        this.imports.push({ module, names: ["*"], locals: [], kind: "export_star", line });
        return;
      }
      const name = part.type === "aliased_import" ? part.childForFieldName("name") : part.type === "dotted_name" ? part : null;
      if (!name) continue;
      names.push(name.text);
      const local = part.type === "aliased_import" ? (part.childForFieldName("alias")?.text ?? name.text) : name.text;
      locals.push(local);
      this.importedNames.add(local);
      // `X as X` re-exports explicitly (PEP 484), whatever the module's other rules say.
      if (reexports(local) || (part.type === "aliased_import" && local === name.text)) {
        this.symbols.push(
          symbolRecord(local, "export", line, stmt.endPosition.row + 1, true, { signature: firstLine(this.slice(stmt.startIndex, stmt.endIndex)), reExport: { module, importedName: name.text } }),
        );
      }
    }
    this.imports.push({ module, names, locals, kind: "import", line });
  }

  /**
   * The names `__all__` lists that the module neither declares nor imports by name come from its
   * `from m import *` imports (httpx's `__init__.py`): export rows of module `*`, the module that
   * provides each found when it is asked for.
   */
  private exportStarNames(): void {
    const all = this.exportStatement;
    if (all === null || !this.imports.some((i) => i.kind === "export_star")) return;
    const known = new Set([...this.symbols.map((s) => s.name), ...this.imports.flatMap((i) => i.locals)]);
    const line = all.startPosition.row + 1;
    for (const name of this.exportList!) {
      if (!known.has(name)) this.symbols.push(symbolRecord(name, "export", line, line, true, { signature: `__all__ = [..., "${name}", ...]`, reExport: { module: "*", importedName: name } }));
    }
  }

  /**
   * Which names a module-level `from … import` re-exports: those `__all__` lists; without one, a
   * package's (`__init__.py`) public names imported from its own modules (`from .m import X`).
   */
  private reexports(topLevel: boolean, module: string): (local: string) => boolean {
    if (!topLevel) return () => false;
    if (this.exportList !== null) return (local) => this.exportList!.has(local);
    const packageFile = /(?:^|\/)__init__\.pyi?$/.test(this.filePath);
    return (local) => packageFile && module.startsWith(".") && !local.startsWith("_");
  }

  // ---- calls ----

  /** Calls made by top-level statements outside any definition (the module's own code). */
  private recordTopLevelCalls(definitions: readonly Definition[]): void {
    const inside = new Set(definitions.map((d) => d.outer.id));
    for (const stmt of this.root.namedChildren) {
      // A top-level definition's decorators run in the module (`@app.route("/")`).
      const decorators = inside.has(stmt.id) ? stmt.namedChildren.filter((c) => c.type === "decorator") : [stmt];
      for (const node of decorators) this.recordCalls(node, null, null, [], new Map(this.moduleTypes));
    }
  }

  /**
   * Every `call` under `node` (not inside the ranges `skip` names) as a call site of `caller`.
   * `types` holds the receivers known so far: annotated parameters, and locals bound by
   * `x = Name(…)` to a class or by `x = f(…)` to what f returns (a name bound again to anything
   * else, or a loop variable, has no type for the rest of the scope).
   */
  private recordCalls(
    node: SyntaxNode,
    caller: string | null,
    cls: string | null,
    skip: ReadonlyArray<[number, number]> = [],
    types = new Map<string, Known>(),
    locals: ReadonlySet<string> | null = null,
  ): void {
    const poisoned = new Set<string>();
    for (const e of this.eventsIn(node.startIndex, node.endIndex)) {
      if (skip.length > 0 && skip.some(([s, t]) => e.start >= s && e.start < t)) continue;
      const type = e.node.type;
      if (type === "function_definition") {
        // In a function body (`locals` given): a nested function's parameters — annotated ones type
        // its body unless the enclosing scope binds the name itself; one that shadows a typed name
        // of the enclosing scope otherwise takes that type away (scopes are not modelled: recall is
        // lost, never precision).
        if (locals === null) continue;
        for (const p of paramsOf(e.node.childForFieldName("parameters"), false)) {
          const type = this.projectClass(p.type);
          const known: Known | null = type === null ? null : { kind: "typed", typeName: type, resolution: "parameter_type" };
          if (types.has(p.name)) bindLocal(types, poisoned, p.name, known);
          else if (locals.has(p.name)) bindLocal(types, poisoned, p.name, null);
          else if (known !== null && !poisoned.has(p.name)) types.set(p.name, known);
        }
      } else if (type === "call") {
        // `f()` where the function binds `f` itself (a nested def, a parameter, an assignment) is not the module's `f`.
        const fn = locals !== null && locals.size > 0 ? e.node.childForFieldName("function") : null;
        if (fn?.type !== "identifier" || !locals!.has(fn.text)) this.recordCall(e.node, caller, cls, types);
      } else if (BINDINGS.has(type)) this.noteBinding(e.node, cls, types, poisoned);
    }
  }

  private noteBinding(node: SyntaxNode, cls: string | null, types: Map<string, Known>, poisoned: Set<string>): void {
    if (node.type === "as_pattern") {
      // `with Name(…) as x` / `async with`: x is what the class's `__enter__` / `__aenter__` returns.
      const target = node.childForFieldName("alias")?.namedChild(0);
      if (node.parent?.type !== "with_item" || target?.type !== "identifier" || poisoned.has(target.text)) return;
      const value = this.knownValue(node.namedChild(0), cls, types);
      const async = node.parent.parent?.parent?.firstChild?.type === "async";
      const enter = async ? "__aenter__" : "__enter__";
      const held = value?.kind === "typed" ? `${value.typeName}.${enter}` : value?.kind === "returned" && !value.producer.endsWith("?") ? `${value.producer}().${enter}` : null;
      bindLocal(types, poisoned, target.text, held === null ? null : { kind: "returned", producer: held });
      return;
    }
    const left = node.childForFieldName("left");
    if (left?.type !== "identifier" || poisoned.has(left.text)) return;
    bindLocal(types, poisoned, left.text, node.type === "assignment" ? this.knownValue(node.childForFieldName("right"), cls, types) : null);
  }

  /** `Name(…)` of a class of the file (or a capitalised imported name) constructs it; any other `f(…)`, `mod.f(…)`, `Name.f(…)` or `self.f(…)` produces what f returns. */
  private knownValue(value: SyntaxNode | null, cls: string | null, types: ReadonlyMap<string, Known>): Known | null {
    if (value?.type === "attribute") return this.attributeValue(value, cls, types);
    const fn = value?.type === "call" ? value.childForFieldName("function") : null;
    if (fn?.type === "identifier") {
      if (this.classNames.has(fn.text) || (this.importedNames.has(fn.text) && /^[A-Z]/.test(fn.text))) return { kind: "typed", typeName: fn.text, resolution: "new_expression" };
      return { kind: "returned", producer: fn.text };
    }
    const object = fn?.type === "attribute" ? fn.childForFieldName("object") : null;
    const name = fn?.type === "attribute" ? fn.childForFieldName("attribute")?.text : undefined;
    // `mod.Name(…)`, `pkg.mod.make(…)`: a class (capitalised) or a function through a module.
    const path = fn && object?.type === "attribute" ? this.modulePath(fn) : null;
    if (path !== null) return /^[A-Z]/.test(name ?? "") ? { kind: "typed", typeName: path, resolution: "new_expression" } : { kind: "returned", producer: path };
    if (object?.type !== "identifier" || !name) return null;
    if (this.mayBeModule(object.text) && /^[A-Z]/.test(name)) return { kind: "typed", typeName: `${object.text}.${name}`, resolution: "new_expression" };
    const known = types.get(object.text);
    if (known?.kind === "typed") return { kind: "returned", producer: `${known.typeName}.${name}` };
    if ((object.text === "self" || object.text === "cls") && cls !== null) return { kind: "returned", producer: `${cls}.${name}` };
    if (this.moduleLocals.has(object.text) || this.classNames.has(object.text) || this.importedNames.has(object.text)) return { kind: "returned", producer: `${object.text}.${name}` };
    return null;
  }

  /**
   * `self.attr`, `x.attr` with `x` of a known class, `make().attr`, `a.b.attr`: what the owner's
   * `attr` holds (an attribute's recorded value, a property's return annotation) — the producer
   * `Owner#attr` (`p()#attr`, `Owner#b#attr`), decided when linking.
   */
  private attributeValue(node: SyntaxNode, cls: string | null, types: ReadonlyMap<string, Known>): Known | null {
    const object = node.childForFieldName("object");
    const attribute = node.childForFieldName("attribute")?.text;
    if (!object || !attribute) return null;
    let owner: string | null = null;
    if (object.type === "identifier") {
      const known = types.get(object.text);
      owner = object.text === "self" && cls !== null ? cls : known?.kind === "typed" ? known.typeName : known?.kind === "returned" && !known.producer.endsWith("?") ? `${known.producer}()` : null;
    } else if (object.type === "attribute" || object.type === "call") {
      const inner = this.knownValue(object, cls, types);
      owner =
        inner?.kind === "typed"
          ? inner.typeName
          : inner?.kind === "returned" && !inner.producer.endsWith("?")
            ? inner.producer.includes("#") && object.type === "attribute"
              ? inner.producer
              : `${inner.producer}()`
            : null;
    }
    return owner === null ? null : { kind: "returned", producer: `${owner}#${attribute}` };
  }

  /**
   * The names the code between two offsets binds in its own scope (Python's rule: any binding
   * makes a name local) — nested `def`/`class` names, assignment, `for`, `with … as`, `except …
   * as`, walrus and import targets, and (scopes of their own, counted as the enclosing one's: a
   * shadowed name costs recall, never precision) comprehension variables and lambda parameters;
   * not inside the functions and classes it nests, and not names it declares `global`/`nonlocal`
   * — read from the collected events; `skip`: binding nodes (by start offset) not to count.
   */
  private scopeNames(from: number, to: number, skip: ReadonlySet<number> = new Set()): Set<string> {
    const out = new Set<string>();
    const declared = new Set<string>();
    let nestedEnd = -1;
    for (const { node, start } of this.eventsIn(from, to)) {
      if (start < nestedEnd || skip.has(start)) continue;
      switch (node.type) {
        case "function_definition":
        case "class_definition":
          targetNames(node.childForFieldName("name"), out);
          nestedEnd = node.endIndex;
          break;
        case "assignment":
        case "augmented_assignment":
        case "for_statement":
        case "for_in_clause":
          targetNames(node.childForFieldName("left"), out);
          break;
        case "lambda":
          for (const p of paramsOf(node.childForFieldName("parameters"), false)) out.add(p.name);
          break;
        case "as_pattern":
          targetNames(node.childForFieldName("alias")?.namedChild(0) ?? null, out);
          break;
        case "named_expression":
          targetNames(node.childForFieldName("name"), out);
          break;
        case "import_statement":
        case "import_from_statement":
          for (const local of importedLocals(node)) out.add(local);
          break;
        case "global_statement":
        case "nonlocal_statement":
          for (const c of node.namedChildren) declared.add(c.text);
          break;
      }
    }
    for (const name of declared) out.delete(name);
    return out;
  }

  /** A local bound to a module: `import a`, or a lower-case name `from pkg import mod` may bind to a submodule (linking decides). */
  private mayBeModule(local: string): boolean {
    return this.moduleLocals.has(local) || (this.importedNames.has(local) && /^[a-z_]/.test(local));
  }

  /** `a.b.c` when `node` is a chain of plain attributes whose root may be a module (`mayBeModule`), else null. */
  private modulePath(node: SyntaxNode): string | null {
    if (node.type === "identifier") return this.mayBeModule(node.text) ? node.text : null;
    const object = node.type === "attribute" ? node.childForFieldName("object") : null;
    const attribute = node.type === "attribute" ? node.childForFieldName("attribute") : null;
    const head = object ? this.modulePath(object) : null;
    return head !== null && attribute ? `${head}.${attribute.text}` : null;
  }

  private recordCall(call: SyntaxNode, caller: string | null, cls: string | null, types: ReadonlyMap<string, Known>): void {
    const fn = call.childForFieldName("function");
    if (!fn) return;
    let callee: string;
    let receiver: CallReceiver;
    if (fn.type === "identifier") {
      if (fn.text === "super") return; // `super()` itself; `super().m()` is the call
      callee = fn.text;
      receiver = { kind: "bare" };
    } else if (fn.type === "attribute") {
      const object = fn.childForFieldName("object");
      const attribute = fn.childForFieldName("attribute");
      if (!object || !attribute) return;
      callee = attribute.text;
      const objectCall = object.type === "call" ? object.childForFieldName("function") : null;
      const selfAttr = object.type === "attribute" && object.childForFieldName("object")?.text === "self" ? object.childForFieldName("attribute")?.text : undefined;
      const fieldType = selfAttr !== undefined && cls !== null ? this.fieldTypes.get(cls)?.get(selfAttr) : undefined;
      if (fieldType !== undefined) receiver = { kind: "typed", typeName: fieldType, resolution: "field_type" };
      else if (object.type === "identifier" && object.text === "self" && cls !== null) receiver = { kind: "this", className: cls };
      else if (object.type === "identifier" && object.text === "cls" && cls !== null) receiver = { kind: "static", className: cls };
      else if (objectCall?.type === "identifier" && objectCall.text === "super" && cls !== null) {
        const base = this.baseOf.get(cls);
        if (!base) return;
        receiver = { kind: "super", className: base };
      } else if (object.type === "identifier" && types.has(object.text)) receiver = types.get(object.text)!;
      else if (object.type === "call") {
        // `make().m()`, `User().m()`: a method of what the call returns or constructs.
        const known = this.knownValue(object, cls, types);
        if (known === null) return;
        receiver = known;
      } else if (object.type === "identifier" && this.moduleLocals.has(object.text)) receiver = { kind: "namespace", local: object.text };
      // `pkg.mod.f()`, `mod.Class.m()`: a module's submodule's function or a module's class's method (tried in that order).
      else if (object.type === "attribute" && this.modulePath(object) !== null) receiver = { kind: "static", className: this.modulePath(object)! };
      else if (object.type === "attribute") {
        // `self.prop.m()`, `request.url.m()`: a method of what the attribute (a property) holds.
        const known = this.attributeValue(object, cls, types);
        if (known === null) return;
        receiver = known;
      }
      // `Name.m()` on a class of the file or an imported name: linked only if the name is a class with that method.
      else if (object.type === "identifier" && (this.classNames.has(object.text) || this.importedNames.has(object.text))) receiver = { kind: "static", className: object.text };
      else return; // a receiver whose type is unknown: the potential set covers it
    } else return;
    // `Name()` of a class of the file, or of a capitalised imported name, constructs it (linked to the class, as `new` is).
    const isNew = receiver.kind === "bare" && (this.classNames.has(callee) || (this.importedNames.has(callee) && /^[A-Z]/.test(callee)));
    this.addCall(caller, callee, receiver, isNew, fn.type === "attribute" ? (fn.childForFieldName("attribute") ?? fn) : fn);
  }
}

/**
 * The imports a module-level statement makes: itself, or those inside its `if` / `try` blocks
 * (`if TYPE_CHECKING:`, `try: import x except ImportError: …`) — not inside a function or class.
 */
function moduleImports(stmt: SyntaxNode): SyntaxNode[] {
  if (stmt.type === "import_statement" || stmt.type === "import_from_statement") return [stmt];
  if (!/^(?:if_statement|elif_clause|else_clause|try_statement|except_clause|finally_clause|block)$/.test(stmt.type)) return [];
  return stmt.namedChildren.flatMap(moduleImports);
}

/** The names a binding target binds: an identifier, or each of a tuple's or list's. */
function targetNames(node: SyntaxNode | null, out: Set<string>): void {
  if (node === null) return;
  if (node.type === "identifier") out.add(node.text);
  else if (node.type === "pattern_list" || node.type === "tuple_pattern" || node.type === "list_pattern" || node.type === "tuple" || node.type === "list")
    for (const c of node.namedChildren) targetNames(c, out);
}

/** The local names an import statement binds (`import a.b` → `a`, `import a as m` → `m`, `from m import x as y` → `y`). */
function importedLocals(stmt: SyntaxNode): string[] {
  const module = stmt.type === "import_from_statement" ? stmt.childForFieldName("module_name") : null;
  return stmt.namedChildren
    .flatMap((c) => (c.id === module?.id ? [] : c.type === "aliased_import" ? [c.childForFieldName("alias")?.text ?? ""] : c.type === "dotted_name" ? [c.namedChild(0)?.text ?? ""] : []))
    .filter((n) => n !== "");
}

/** A base class as named in `class C(Base, mod.Base, Generic[T])` (`metaclass=` and other keywords are none). */
function baseName(node: SyntaxNode): string | null {
  if (node.type === "identifier" || node.type === "attribute") return node.text;
  if (node.type === "subscript") {
    const value = node.childForFieldName("value");
    return value ? baseName(value) : null;
  }
  return null;
}

/** The names the module-level `__all__ = [...]` (or tuple) statement lists, or null when there is none. */
function exportListOf(statement: SyntaxNode | null): Set<string> | null {
  const right = statement?.namedChild(0)?.childForFieldName("right");
  return right ? new Set(right.namedChildren.filter((c) => c.type === "string").map((c) => stringText(c))) : null;
}

/** The module-level `__all__ = [...]` (or tuple) statement, or null. */
function exportListStatement(root: SyntaxNode): SyntaxNode | null {
  for (const stmt of root.namedChildren) {
    const assign = stmt.type === "expression_statement" ? stmt.namedChild(0) : null;
    const left = assign?.type === "assignment" ? assign.childForFieldName("left") : null;
    const right = assign ? assign.childForFieldName("right") : null;
    if (left?.text === "__all__" && right && (right.type === "list" || right.type === "tuple")) return stmt;
  }
  return null;
}

/** The one name a top-level `NAME = …` / `NAME: T = …` statement assigns (not `__all__`), or null. */
function assignedName(stmt: SyntaxNode): string | null {
  const assign = stmt.type === "expression_statement" && stmt.namedChildCount === 1 ? stmt.namedChild(0) : null;
  const left = assign?.type === "assignment" ? assign.childForFieldName("left") : null;
  return left?.type === "identifier" && left.text !== "__all__" ? left.text : null;
}

/** A method name is public unless it starts with `_` (dunder methods such as `__init__` are public). */
function isPublicMember(name: string): boolean {
  return !name.startsWith("_") || (name.startsWith("__") && name.endsWith("__"));
}

/** A method decorated `@staticmethod` has no `self`/`cls` first parameter to drop. */
function isStatic(outer: SyntaxNode): boolean {
  return outer.type === "decorated_definition" && outer.namedChildren.some((c) => c.type === "decorator" && /^@\s*staticmethod\b/.test(c.text));
}

/** A body's docstring: its first statement when that is a string, as the string's text. */
function docstringOf(body: SyntaxNode | null): string | null {
  const first = body?.namedChild(0);
  const string = first?.type === "expression_statement" ? first.namedChild(0) : null;
  return string?.type === "string" ? stringText(string).trim() : null;
}

/** A string literal's content (without its quotes and prefix). */
function stringText(node: SyntaxNode): string {
  return node.namedChildren
    .filter((c) => c.type === "string_content")
    .map((c) => c.text)
    .join("");
}

/** Parameters as `{name, type, optional}`; a method's first parameter (`self`, `cls`) left out. */
function paramsOf(params: SyntaxNode | null, dropFirst: boolean): ParamRecord[] {
  const out: ParamRecord[] = [];
  for (const p of params?.namedChildren ?? []) {
    switch (p.type) {
      case "identifier":
        out.push({ name: p.text, type: null, optional: false });
        break;
      case "typed_parameter": {
        const name = p.namedChildren.find((c) => c.type !== "type");
        out.push({ name: name?.text ?? p.text, type: collapseWhitespace(p.childForFieldName("type")?.text ?? "") || null, optional: name?.type !== "identifier" });
        break;
      }
      case "default_parameter":
      case "typed_default_parameter":
        out.push({
          name: p.childForFieldName("name")?.text ?? p.text,
          type: p.type === "typed_default_parameter" ? collapseWhitespace(p.childForFieldName("type")?.text ?? "") || null : null,
          optional: true,
        });
        break;
      case "list_splat_pattern":
      case "dictionary_splat_pattern":
        out.push({ name: p.text, type: null, optional: true });
        break;
      default:
        break; // `*` and `/` separators bind nothing
    }
  }
  return dropFirst ? out.slice(1) : out;
}
