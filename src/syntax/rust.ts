// Rust extraction: `fn` items, structs/enums/unions, traits (their methods as `Trait.m`),
// `impl Type` and `impl Trait for Type` blocks (methods as `Type.m`, the block as an outline
// chunk, the trait as IMPLEMENTS), consts, statics, type aliases and inline modules (their items
// as `mod.item`) become chunks and symbols, attributes kept with their item; `pub` decides
// exportedness; `///` and `//` lines above an item are its doc. `use` trees (rust-imports.ts) and
// `mod m;` become import rows (`pub use` and `pub mod` also re-export markers), calls become call
// sites typed by what the file proves (`self`, `Self::`, `Type::`, `module::`, annotated
// parameters and `let`s, `T { … }` literals, struct field types). Pure: a function of (path, text, options).
import { collapseWhitespace, firstLine } from "../base/text.js";
import { languageSpec } from "../lang/languages.js";
import * as RUST from "../lang/rust-nodes.js";
import { parseFlat, type SyntaxNode } from "./flat-tree.js";
import { fromFileModule, readUseRows } from "./rust-imports.js";
import { shellOutline, type OutlinePart } from "./chunking.js";
import { bindLocal, leadingComments, TreeExtractor, type Known, type MutableDraft } from "./tree-extractor.js";
import { symbolRecord, type CallReceiver, type ExtractOptions, type ExtractResult, type FileExtraction, type ParamRecord } from "./types.js";

const TOKENS: ReadonlySet<string> = new Set([RUST.IDENTIFIER, RUST.TYPE_IDENTIFIER, "field_identifier"]);
/** Calls, and what binds or rebinds a local (`let`, assignments, and the patterns of `for`, closures, `if let` and `match` arms), read by position by the call pass. */
const EVENTS: ReadonlySet<string> = new Set([
  RUST.CALL_EXPRESSION,
  "macro_invocation",
  RUST.LET_DECLARATION,
  RUST.ASSIGNMENT_EXPRESSION,
  RUST.FOR_EXPRESSION,
  RUST.CLOSURE_EXPRESSION,
  RUST.LET_CONDITION,
  RUST.MATCH_ARM,
]);
/** Calls chained on calls (`a.b().c().d()`) are followed this deep for a producer. */
const MAX_CHAIN = 8;
/** Inline modules nested deeper than this keep their items inside the module's chunk. */
const MAX_MODULE_DEPTH = 32;
/** The toolchain's own crates: a path through one (`std::mem::swap()`) is never another repository's. */
const SYSROOT_CRATES: ReadonlySet<string> = new Set(["std", "core", "alloc", "proc_macro", "test"]);
const TYPE_ITEMS: Readonly<Record<string, "class" | "enum">> = { [RUST.STRUCT_ITEM]: "class", [RUST.UNION_ITEM]: "class", [RUST.ENUM_ITEM]: "enum" };

/** Where a call is made: the enclosing item's symbol name and the type `self`/`Self` stand for. */
interface Scope {
  readonly caller: string | null;
  readonly self: string | null;
  /** The inline module the item is in (`tests.`), "" at the file's top level. */
  readonly module: string;
}

export function extractRust(filePath: string, text: string, grammar: string, language: string, options: ExtractOptions): ExtractResult {
  const tree = parseFlat(grammar, text, options.parseTimeoutMs);
  if (tree === null) return { ok: false, error: `parse timed out after ${options.parseTimeoutMs} ms` };
  return { ok: true, extraction: new RustExtractor(filePath, text, language, tree.rootNode, options).run() };
}

class RustExtractor extends TreeExtractor {
  /** Locals naming a module (`use a::b;` of a snake_case name, `mod m;`): `b::f()` is a call into it. */
  private readonly modules = new Set<string>();
  /** Type names declared in the file or imported (`Type::f()` is a call on the type). */
  private readonly typeNames = new Set<string>();
  /** Per struct of this file: field → the named type it holds. */
  private readonly fieldTypes = new Map<string, Map<string, string>>();
  private readonly spec = languageSpec(this.language);
  private readonly builtin = this.spec?.builtinTypes ?? new Set<string>();
  /** Built-in type names the crate defines itself, declared in this file or brought in by a crate-relative `use` (walkdir's `Error`). */
  private readonly ownBuiltins = new Set<string>();
  /** Call-site receivers that name a module by path (`crate::a::f()`): one import row per distinct path. */
  private readonly pathImports = new Set<string>();
  /** Every name the file binds anywhere — inline modules at any depth, every `use`, a function's own too: a path through one is never a crate's (externPath). */
  private readonly bound = new Set<string>();
  /** The inline module being declared (`m.`), "" at the top level. */
  private module = "";
  /** Functions declared in inline modules, by qualified name: a bare call there names its module's own first. */
  private readonly moduleFunctions = new Set<string>();
  private readonly functions: Array<{ node: SyntaxNode; name: string; scope: Scope }> = [];
  /** The current function's parameters of a collection type (`xs: &[T]`) → the element's type. */
  private elements = new Map<string, string>();
  /** The names of `fn` items declared inside the function whose calls are being read. */
  private localFunctions = new Set<string>();

  run(): FileExtraction {
    this.collect(TOKENS, EVENTS);
    this.noteOwnBuiltins();
    this.noteBoundNames();
    this.declareItems(this.root, "", true);
    this.flushBlock();
    // Calls last: they read every type name and struct field of the file.
    for (const f of this.functions) this.recordCalls(f.node, f.scope);
    return this.finish();
  }

  /** Which built-in type names are the crate's own here: the file declares the type, or a `use` of `crate::`/`self::`/`super::` binds it. */
  private noteOwnBuiltins(): void {
    for (const node of this.root.namedChildren) {
      const name = node.childForFieldName("name")?.text ?? "";
      if (node.type in TYPE_ITEMS || node.type === RUST.TRAIT_ITEM || node.type === RUST.TYPE_ITEM) {
        if (this.builtin.has(name)) this.ownBuiltins.add(name);
      } else if (node.type === RUST.USE_DECLARATION && /^(?:crate|self|super)::/.test(node.childForFieldName("argument")?.text ?? "")) {
        for (const m of (node.childForFieldName("argument")?.text ?? "").matchAll(/\b([A-Z]\w*)\b(?!\s*(?:::|as\b))/g)) if (this.builtin.has(m[1]!)) this.ownBuiltins.add(m[1]!);
      }
    }
  }

  private noteBoundNames(): void {
    for (const node of this.root.descendantsOfType([RUST.MOD_ITEM, RUST.USE_DECLARATION])) {
      if (node.type === RUST.USE_DECLARATION) for (const name of readUseRows(node, "", false).bound) this.bound.add(name);
      else this.bound.add(node.childForFieldName("name")?.text ?? "");
    }
  }

  /** The items of a file or an inline module body; `prefix` qualifies their names (`m.`). */
  private declareItems(container: SyntaxNode, prefix: string, topLevel: boolean): void {
    const outer = this.module;
    this.module = prefix;
    for (const node of container.namedChildren) {
      const kind = node.type;
      if (kind === RUST.ATTRIBUTE_ITEM || kind === RUST.LINE_COMMENT || kind === RUST.BLOCK_COMMENT || kind === RUST.INNER_ATTRIBUTE_ITEM) {
        continue; // attributes and doc comments are pulled into the item below them
      }
      if (kind === RUST.USE_DECLARATION) this.recordUse(node, prefix);
      // A macro invoked at module level (`test_case!(…)`) expands to items: its calls are the module's.
      if (kind === "macro_invocation") this.functions.push({ node, name: "", scope: { caller: null, self: null, module: prefix } });
      const handled = kind === RUST.MOD_ITEM ? this.declareModule(node, prefix, topLevel) : this.declareItem(node, prefix);
      if (!topLevel) continue;
      if (handled) this.flushBlock();
      else this.extendBlock(node);
    }
    this.module = outer;
  }

  /** One item; false when it is not a declaration (a `use`, a macro call, …). */
  private declareItem(node: SyntaxNode, prefix: string): boolean {
    const name = node.childForFieldName("name")?.text ?? "";
    switch (node.type) {
      case RUST.FUNCTION_ITEM:
      case RUST.FUNCTION_SIGNATURE_ITEM:
        if (prefix !== "") this.moduleFunctions.add(`${prefix}${name}`);
        this.declareFunction(node, `${prefix}${name}`, null, isPub(node), { caller: `${prefix}${name}`, self: null, module: prefix });
        return true;
      case RUST.STRUCT_ITEM:
      case RUST.UNION_ITEM:
      case RUST.ENUM_ITEM: {
        const sym = this.declareWhole(node, TYPE_ITEMS[node.type]!, `${prefix}${name}`, node.type === RUST.ENUM_ITEM ? "type" : "class_shell");
        this.typeNames.add(sym.name);
        if (node.type === RUST.STRUCT_ITEM) this.fieldTypes.set(sym.name, this.structFields(node));
        return true;
      }
      case RUST.TYPE_ITEM:
        this.typeNames.add(`${prefix}${name}`);
        this.declareWhole(node, "type", `${prefix}${name}`, "type");
        return true;
      case RUST.CONST_ITEM:
      case RUST.STATIC_ITEM:
        this.declareWhole(node, node.type === RUST.CONST_ITEM ? "const" : "variable", `${prefix}${name}`, "block");
        return true;
      case RUST.TRAIT_ITEM:
        this.typeNames.add(`${prefix}${name}`);
        this.declareTrait(node, `${prefix}${name}`);
        return true;
      case RUST.IMPL_ITEM:
        this.declareImpl(node);
        return true;
      default:
        return false;
    }
  }

  /** Where an item's span starts: its first attribute (`#[derive]`, `#[test]`) above it. */
  private spanStart(node: SyntaxNode): SyntaxNode {
    let start = node;
    for (let prev = node.previousNamedSibling; prev?.type === RUST.ATTRIBUTE_ITEM; prev = prev.previousNamedSibling) start = prev;
    return start;
  }

  /** The first node of an item's span as its chunk has it: its doc comment's first line, else its first attribute, else itself. */
  private firstOf(node: SyntaxNode): SyntaxNode {
    const start = this.spanStart(node);
    const doc = this.docOf(node);
    if (doc === null) return start;
    let first = start;
    for (let prev = start.previousNamedSibling; prev !== null && prev.startPosition.row + 1 >= doc.startLine; prev = prev.previousNamedSibling) first = prev;
    return first;
  }

  private doc(node: SyntaxNode): string | null {
    return this.docOf(node)?.text ?? null;
  }

  /** The doc comment above a declaration, with the line it starts on. */
  private docOf(node: SyntaxNode): { text: string; startLine: number } | null {
    return leadingComments(this.spanStart(node), (n) => n.type === RUST.LINE_COMMENT || n.type === RUST.BLOCK_COMMENT, stripComment);
  }

  private draft(node: SyntaxNode, fields: Omit<MutableDraft, "startLine" | "endLine" | "docStartLine">, body: SyntaxNode | null): MutableDraft {
    const start = this.spanStart(node);
    const doc = this.docOf(node);
    const draft: MutableDraft = { startLine: start.startPosition.row + 1, endLine: node.endPosition.row + 1, headerEndLine: (body ?? node).startPosition.row + 1, ...fields };
    if (doc !== null) draft.docStartLine = doc.startLine;
    this.drafts.push(draft);
    return draft;
  }

  /** The item's text from its attributes up to its body (the whole item when it has none). */
  private header(node: SyntaxNode, body: SyntaxNode | null): string {
    return this.slice(this.spanStart(node).startIndex, body ? body.startIndex : node.endIndex)
      .trimEnd()
      .replace(/;$/, "");
  }

  /** An item whose whole text is its signature (types, consts). */
  private declareWhole(node: SyntaxNode, kind: "class" | "enum" | "type" | "const" | "variable", name: string, chunkType: MutableDraft["chunkType"]) {
    const exported = isPub(node);
    this.draft(node, { chunkType, symbolName: name, parentSymbol: null, isExported: exported }, null);
    const text = this.slice(this.spanStart(node).startIndex, node.endIndex);
    const sym = this.addSymbol(node, kind, name, exported, this.doc(node), kind === "const" || kind === "variable" ? firstLine(text) : text, text);
    // A const or static initialiser's calls are the module's.
    if (kind === "const" || kind === "variable") this.functions.push({ node, name, scope: { caller: null, self: null, module: this.module } });
    return sym;
  }

  private declareFunction(node: SyntaxNode, name: string, parent: string | null, exported: boolean, scope: Scope) {
    const body = node.childForFieldName("body");
    this.draft(node, { chunkType: parent === null ? "function" : "method", symbolName: name, parentSymbol: parent, isExported: exported }, body);
    const sym = this.addSymbol(node, parent === null ? "function" : "method", name, exported, this.doc(node), this.header(node, body), body ? this.slice(body.startIndex, body.endIndex) : "");
    sym.parent = parent;
    sym.params = paramsOf(node.childForFieldName("parameters"));
    const returns = node.childForFieldName("return_type");
    sym.returnType = returns ? collapseWhitespace(returns.text) : null;
    if (body) this.functions.push({ node, name, scope });
    return sym;
  }

  private declareTrait(node: SyntaxNode, name: string): void {
    const body = node.childForFieldName("body");
    const exported = isPub(node);
    this.draft(node, { chunkType: "interface", symbolName: name, parentSymbol: null, isExported: exported }, body);
    this.addSymbol(node, "interface", name, exported, this.doc(node), this.header(node, body), "");
    const bounds =
      node
        .childForFieldName("bounds")
        ?.namedChildren.map((b) => this.namedType(b.text))
        .filter((b): b is string => b !== null) ?? [];
    if (bounds.length > 0) this.heritage.push({ className: name, line: node.startPosition.row + 1, extends: bounds[0]!, implements: bounds.slice(1) });
    for (const member of body?.namedChildren ?? []) {
      if (member.type !== RUST.FUNCTION_ITEM && member.type !== RUST.FUNCTION_SIGNATURE_ITEM) continue;
      const method = member.childForFieldName("name")?.text ?? "";
      this.declareFunction(member, `${name}.${method}`, name, exported, { caller: `${name}.${method}`, self: name, module: this.module });
    }
  }

  /** `impl Type { … }` / `impl Trait for Type { … }`: an outline chunk and the methods as `Type.m`. */
  private declareImpl(node: SyntaxNode): void {
    const type = this.namedType(node.childForFieldName("type")?.text ?? null);
    const body = node.childForFieldName("body");
    if (type === null || body === null) return;
    const trait = node.childForFieldName("trait");
    const traitName = trait ? this.namedType(trait.text) : null;
    if (traitName !== null) this.heritage.push({ className: type, line: node.startPosition.row + 1, extends: null, implements: [traitName] });
    const bodies: Array<[number, number]> = [];
    const parts: OutlinePart[] = [];
    for (const member of body.namedChildren) {
      if (member.type === RUST.FUNCTION_ITEM || member.type === RUST.FUNCTION_SIGNATURE_ITEM) {
        const method = member.childForFieldName("name")?.text ?? "";
        // A trait's methods are as public as the type that implements them.
        const exported = trait !== null || isPub(member);
        const sym = this.declareFunction(member, `${type}.${method}`, type, exported, { caller: `${type}.${method}`, self: type, module: this.module });
        const methodBody = member.childForFieldName("body");
        if (methodBody) bodies.push([methodBody.startIndex, methodBody.endIndex]);
        const sig = (sym.signature ?? "").split("\n");
        sig[0] = " ".repeat(member.startPosition.column) + sig[0];
        // The method's span, as its chunk has it: from its doc comment or first attribute.
        const first = this.firstOf(member);
        parts.push({
          startLine: first.startPosition.row + 1,
          endLine: member.endPosition.row + 1,
          from: first.startIndex,
          to: member.endIndex,
          signature: [...sig.slice(0, -1), `${sig[sig.length - 1]};`],
        });
      } else parts.push({ startLine: member.startPosition.row + 1, endLine: member.endPosition.row + 1, from: member.startIndex, to: member.endIndex });
    }
    const outline = shellOutline(this.text, { from: this.firstOf(node).startIndex, to: node.endIndex, className: type }, parts);
    const shell = this.draft(node, { chunkType: "class_shell", symbolName: type, parentSymbol: null, isExported: false, synthesized: outline.text }, body);
    this.drafts.push(...outline.blocks);
    this.exclusions.set(shell, [...bodies, ...outline.excluded]);
  }

  /** `mod m;` binds `m` to the file `m.rs` / `m/mod.rs`; `mod m { … }` declares its items as `m.item`. */
  private declareModule(node: SyntaxNode, prefix: string, topLevel: boolean): boolean {
    const name = node.childForFieldName("name")?.text ?? "";
    const body = node.childForFieldName("body");
    const line = node.startPosition.row + 1;
    if (body === null) {
      const module = `self::${name}`;
      this.modules.add(name);
      this.imports.push({ module, names: ["*"], locals: [name], kind: isPub(node) ? "export_from" : "import", line });
      // A marker either way: a private module is still visible to the module's children (`use super::m`).
      this.symbols.push(symbolRecord(name, "export", line, line, isPub(node), { signature: firstLine(node.text), reExport: { module, importedName: "*" } }));
      return false; // a line of the surrounding block
    }
    if (topLevel) this.flushBlock();
    const qualified = `${prefix}${name}`;
    this.draft(node, { chunkType: "block", symbolName: qualified, parentSymbol: null, isExported: isPub(node) }, body);
    this.addSymbol(node, "namespace", qualified, isPub(node), this.doc(node), this.header(node, body), "");
    // Nested inline modules are descended to a bounded depth (the walk recurses once per module).
    if (qualified.split(".").length <= MAX_MODULE_DEPTH) this.declareItems(body, `${qualified}.`, false);
    return true;
  }

  private structFields(node: SyntaxNode): Map<string, string> {
    const fields = new Map<string, string>();
    const list = node.childForFieldName("body");
    for (const f of list?.type === "field_declaration_list" ? list.namedChildren : []) {
      if (f.type !== RUST.FIELD_DECLARATION) continue;
      const type = this.namedType(f.childForFieldName("type")?.text ?? null);
      const name = f.childForFieldName("name")?.text;
      if (type !== null && name) fields.set(name, type);
    }
    return fields;
  }

  // ---- use ----

  /** `use a::b::C;`, `use a::{b, c as d, e::*};`, `pub use …` (a re-export). */
  private recordUse(node: SyntaxNode, prefix: string): void {
    const use = readUseRows(node, prefix, isPub(node));
    this.imports.push(...use.imports);
    this.symbols.push(...use.exports);
    // A snake_case name is a module or a function; a capitalised one a type, a trait or a variant.
    for (const local of use.locals) (/^[A-Z]/.test(local) ? this.typeNames : this.modules).add(local);
  }

  // ---- calls ----

  private recordCalls(node: SyntaxNode, scope: Scope): void {
    const types = new Map<string, Known>();
    const poisoned = new Set<string>();
    this.elements = new Map();
    const params = node.type === RUST.FUNCTION_ITEM ? paramsOf(node.childForFieldName("parameters")) : [];
    // The function's own bounded generics, and its `impl`'s or trait's (`impl<I: Interval> Set<I>`).
    const owner = node.parent?.type === RUST.DECLARATION_LIST ? node.parent.parent : null;
    const bounds = node.type === RUST.FUNCTION_ITEM ? new Map([...(owner ? this.genericBounds(owner) : []), ...this.genericBounds(node)]) : new Map<string, string>();
    for (const p of params) {
      // `&mut dyn Trait`, `impl Trait` and a generic `V` bounded by a trait (`V: Visitor`) are the trait; `Self` the impl's type or the trait.
      const bare = (p.type ?? "")
        .replace(/^&\s*(?:'\w+\s+)?(?:mut\s+)?/, "")
        .replace(/^(?:dyn|impl)\s+/, "")
        .trim();
      const type = bare === "Self" ? scope.self : (bounds.get(bare) ?? this.namedType(bare === "" ? null : bare));
      if (type !== null && /^[a-z_]\w*$/.test(p.name)) types.set(p.name, { kind: "typed", typeName: type, resolution: "parameter_type" });
      else if (p.type !== null && /^[a-z_]\w*$/.test(p.name)) {
        // `xs: &[T]` / `Vec<T>`: what `for x in xs` binds.
        const element = this.namedType(this.spec?.elementType?.(p.type) ?? null);
        if (element !== null) this.elements.set(p.name, element);
      }
    }
    const body = node.type === RUST.FUNCTION_ITEM ? node.childForFieldName("body") : node;
    if (!body) return;
    // A `fn` item declared inside the body shadows the module's of that name: its bare calls are not traced.
    this.localFunctions = new Set(body.descendantsOfType(RUST.FUNCTION_ITEM).map((f) => f.childForFieldName("name")?.text ?? ""));
    // A `match` arm's variant binding holds only inside its arm: what the name held before comes back after it.
    const arms: Array<{ end: number; name: string; had: Known | undefined; poisoned: boolean }> = [];
    for (const { node: n } of this.eventsIn(body.startIndex, body.endIndex)) {
      for (let arm = arms.at(-1); arm !== undefined && arm.end <= n.startIndex; arm = arms.at(-1)) {
        arms.pop();
        if (arm.had === undefined) types.delete(arm.name);
        else types.set(arm.name, arm.had);
        if (arm.poisoned) poisoned.add(arm.name);
        else poisoned.delete(arm.name);
      }
      const variant = n.type === RUST.MATCH_ARM ? this.variantBinding(n.childForFieldName("pattern"), scope) : null;
      if (variant !== null) {
        arms.push({ end: n.endIndex, name: variant.name, had: types.get(variant.name), poisoned: poisoned.has(variant.name) });
        types.set(variant.name, variant.known);
        poisoned.delete(variant.name);
      } else if (n.type === RUST.CALL_EXPRESSION) this.recordCall(n, scope, types);
      else if (n.type === "macro_invocation") this.recordMacroCalls(n, scope, types);
      else this.noteBinding(n, scope, types, poisoned);
    }
  }

  /** A function's generic parameters bounded by one project trait (`<V: Visitor>`, `where V: Visitor`): parameter → trait. */
  private genericBounds(fn: SyntaxNode): Map<string, string> {
    const out = new Map<string, string>();
    const note = (name: string | undefined, bounds: SyntaxNode | null) => {
      const traits = (bounds?.namedChildren ?? []).map((b) => this.namedType(b.text)).filter((t): t is string => t !== null);
      if (name && traits.length >= 1 && !out.has(name)) out.set(name, traits[0]!);
    };
    for (const tp of fn.childForFieldName("type_parameters")?.namedChildren ?? []) if (tp.type === "type_parameter") note(tp.childForFieldName("name")?.text, tp.childForFieldName("bounds"));
    const where = fn.namedChildren.find((c) => c.type === "where_clause");
    for (const wp of where?.namedChildren ?? []) if (wp.type === "where_predicate") note(wp.childForFieldName("left")?.text, wp.childForFieldName("bounds"));
    return out;
  }

  /**
   * `let x: T = …`, `let x = T { … }` and `let x = f(…)` (also through `?`) give `x` what it holds;
   * binding `x` again to anything else — or in a pattern — takes it away for the rest of the function.
   */
  private noteBinding(n: SyntaxNode, scope: Scope, types: Map<string, Known>, poisoned: Set<string>): void {
    const bind = (name: string, known: Known | null) => {
      bindLocal(types, poisoned, name, known);
      this.elements.delete(name);
    };
    if (n.type === RUST.LET_DECLARATION || n.type === RUST.ASSIGNMENT_EXPRESSION) {
      const pattern = n.childForFieldName(n.type === RUST.LET_DECLARATION ? "pattern" : "left");
      const value = n.childForFieldName(n.type === RUST.LET_DECLARATION ? "value" : "right");
      const declared = n.type === RUST.LET_DECLARATION ? n.childForFieldName("type") : null;
      // `let (a, b) = (f(), g());`: each name holds its own value.
      const names = pattern?.type === RUST.TUPLE_PATTERN ? pattern.namedChildren : [];
      const values = value?.type === RUST.TUPLE_EXPRESSION ? value.namedChildren : [];
      if (declared === null && names.length > 0 && names.length === values.length && names.every((p) => p.type === RUST.IDENTIFIER)) {
        names.forEach((p, i) => bind(p.text, this.knownValue(values[i]!, scope, types)));
        return;
      }
      if (pattern?.type !== RUST.IDENTIFIER) {
        for (const id of pattern ? identifiersIn(pattern) : []) bind(id, null);
        return;
      }
      const type = declared ? this.namedType(declared.text) : null;
      // `let x: T` is an annotation (`parameter_type`, as TypeScript's `const x: T`); `T { … }` constructs.
      bind(pattern.text, type !== null ? { kind: "typed", typeName: type, resolution: "parameter_type" } : value ? this.knownValue(value, scope, types) : null);
      return;
    }
    const pattern = n.childForFieldName(n.type === RUST.CLOSURE_EXPRESSION ? "parameters" : "pattern");
    if (n.type === RUST.FOR_EXPRESSION && pattern?.type === RUST.IDENTIFIER) {
      // `for x in f()` / `for x in xs` (xs holding what a call returns): an element of the callee's declared collection.
      const value = n.childForFieldName("value");
      // `for x in xs`, `&xs`, `xs.iter()` over a parameter declared `&[T]` / `Vec<T>`.
      const collection = value === null ? null : collectionName(value);
      const element = collection === null ? undefined : this.elements.get(collection);
      if (element !== undefined) {
        bind(pattern.text, { kind: "typed", typeName: element, resolution: "parameter_type" });
        return;
      }
      const known = value?.type === RUST.IDENTIFIER ? types.get(value.text) : value ? this.knownValue(value, scope, types) : null;
      bind(pattern.text, known?.kind === "returned" && !known.producer.endsWith("?") ? { kind: "returned", producer: `${known.producer}[]` } : null);
      return;
    }
    for (const id of pattern ? identifiersIn(pattern) : []) bind(id, null);
  }

  /**
   * `self.field` as the impl's struct in this file declares it; or — a struct of another file, a
   * typed local's, a call result's — the field the linker looks up in the type's declaration (`T#field`).
   */
  private fieldOf(access: SyntaxNode, scope: Scope, types: ReadonlyMap<string, Known>): Known | null {
    const value = access.childForFieldName("value");
    const name = access.childForFieldName("field")?.text;
    if (!value || !name || !/^[a-z_]\w*$/.test(name)) return null;
    if (value.type === RUST.SELF && scope.self !== null) {
      const fieldType = this.fieldTypes.get(scope.self)?.get(name);
      if (fieldType !== undefined) return { kind: "typed", typeName: fieldType, resolution: "field_type" };
      return this.fieldTypes.has(scope.self) ? null : { kind: "returned", producer: `${scope.self}#${name}` };
    }
    const known = value.type === RUST.IDENTIFIER ? types.get(value.text) : value.type === RUST.CALL_EXPRESSION ? this.knownValue(value, scope, types) : undefined;
    if (known?.kind === "typed") return { kind: "returned", producer: `${known.typeName}#${name}` };
    if (known?.kind === "returned") return { kind: "returned", producer: `${known.producer}()#${name}` };
    return null;
  }

  /**
   * `Type::Variant(x)` in a `match` arm: `x` holds the variant's single field, as the enum's
   * declaration writes it (read by the linker: `Type#Variant.0`); null for any other pattern.
   */
  private variantBinding(pattern: SyntaxNode | null, scope: Scope): { name: string; known: Known } | null {
    if (pattern === null) return null;
    const tuple = pattern.type === RUST.TUPLE_STRUCT_PATTERN ? pattern : pattern.namedChildren.find((c) => c.type === RUST.TUPLE_STRUCT_PATTERN);
    const path = tuple ? tuple.childForFieldName("type") : null;
    if (!tuple || path?.type !== RUST.SCOPED_IDENTIFIER) return null;
    const parts = tuple.namedChildren.filter((c) => c.id !== path.id);
    const names = parts.length === 1 ? identifiersIn(parts[0]!) : [];
    if (names.length !== 1 || !/^(?:identifier|ref_pattern|mut_pattern)$/.test(parts[0]!.type)) return null;
    const head = path.childForFieldName("path");
    const variant = path.childForFieldName("name")?.text ?? "";
    const owner = head === null ? null : head.text === "Self" ? scope.self : this.namedType(head.text);
    return owner === null || !/^[A-Z]\w*$/.test(variant) ? null : { name: names[0]!, known: { kind: "returned", producer: `${owner}#${variant}.0` } };
  }

  /** A struct literal's type, what a call (or `call?`) returns, or an element of what one returns (`&f()[0]`, `xs[i]`). */
  private knownValue(value: SyntaxNode, scope: Scope, types: ReadonlyMap<string, Known>, depth = 0): Known | null {
    if (value.type === "reference_expression") {
      const inner = value.childForFieldName("value");
      return inner && depth < MAX_CHAIN ? this.knownValue(inner, scope, types, depth + 1) : null;
    }
    if (value.type === "index_expression") {
      const base = value.namedChild(0);
      const index = value.namedChild(1);
      // An element, not a slice (`xs[1..]`).
      if (!base || !index || index.type === "range_expression" || depth >= MAX_CHAIN) return null;
      const known = base.type === RUST.IDENTIFIER ? types.get(base.text) : this.knownValue(base, scope, types, depth + 1);
      return known?.kind === "returned" && !known.producer.endsWith("?") && !known.producer.endsWith("[]") ? { kind: "returned", producer: `${known.producer}[]` } : null;
    }
    if (value.type === RUST.CALL_EXPRESSION && value.childForFieldName("arguments")?.namedChildCount === 0) {
      // `x.clone()` is a value of x's own type.
      const fn = value.childForFieldName("function");
      const of = fn?.type === RUST.FIELD_EXPRESSION && fn.childForFieldName("field")?.text === "clone" ? fn.childForFieldName("value") : null;
      if (of?.type === RUST.IDENTIFIER && types.has(of.text)) return types.get(of.text)!;
    }
    if (value.type === RUST.STRUCT_EXPRESSION) {
      const type = this.namedType(value.childForFieldName("name")?.text.replace(/^Self$/, scope.self ?? "Self") ?? null);
      return type === null ? null : { kind: "typed", typeName: type, resolution: "new_expression" };
    }
    // `f()?`, and `f().unwrap()` / `f().expect(…)`, which unwrap the same way.
    let call: SyntaxNode | null = value;
    let unwrapped = false;
    if (value.type === "try_expression") {
      call = value.namedChild(0);
      unwrapped = true;
    } else if (value.type === RUST.CALL_EXPRESSION) {
      const fn = value.childForFieldName("function");
      const inner = fn?.type === RUST.FIELD_EXPRESSION ? fn.childForFieldName("value") : null;
      if (inner?.type === RUST.CALL_EXPRESSION && /^(?:unwrap|expect)$/.test(fn!.childForFieldName("field")?.text ?? "")) {
        call = inner;
        unwrapped = true;
      }
    }
    if (call?.type !== RUST.CALL_EXPRESSION) return null;
    const producer = this.producerOf(call.childForFieldName("function"), scope, types, call, depth);
    return producer === null ? null : { kind: "returned", producer: unwrapped ? `${producer}?` : producer };
  }

  /** A callee as a producer path: `f`, `Type.f` (`Self::f` in an impl), `module.f`, `crate::a.f`, `Type.m` for `x.m()` on a typed `x`. */
  private producerOf(fn: SyntaxNode | null, scope: Scope, types: ReadonlyMap<string, Known>, call: SyntaxNode, depth = 0): string | null {
    if (!fn) return null;
    if (fn.type === RUST.IDENTIFIER) return this.bareName(fn.text, scope);
    if (fn.type === RUST.SCOPED_IDENTIFIER) {
      const path = fn.childForFieldName("path");
      const name = fn.childForFieldName("name")?.text;
      if (!path || !name) return null;
      const receiver = this.pathReceiver(path, scope, call);
      if (receiver === null) return null;
      return `${receiver.kind === "static" ? receiver.className : receiver.kind === "namespace" ? receiver.local : ""}.${name}`;
    }
    if (fn.type === RUST.FIELD_EXPRESSION) {
      const value = fn.childForFieldName("value");
      const name = fn.childForFieldName("field")?.text;
      if (!value || !name) return null;
      if (value.type === RUST.SELF && scope.self !== null) return `${scope.self}.${name}`;
      // A method of what a call returns (`let r = dir.run(); r.errs()`, `a.b().c()`): a bounded chain.
      const known =
        value.type === RUST.IDENTIFIER
          ? types.get(value.text)
          : (value.type === RUST.CALL_EXPRESSION || value.type === "try_expression") && depth < MAX_CHAIN
            ? this.knownValue(value, scope, types, depth + 1)
            : undefined;
      if (known?.kind === "typed") return `${known.typeName}.${name}`;
      if (known?.kind === "returned") return `${known.producer}().${name}`;
    }
    return null;
  }

  /** What a path before `::` names: the impl's own type (`Self`), a type, a module, or a `crate::`/`self::`/`super::` path (an import of its own). */
  private pathReceiver(path: SyntaxNode, scope: Scope, call: SyntaxNode): Extract<CallReceiver, { kind: "static" } | { kind: "namespace" }> | null {
    const head = path.text.replace(/\s+/g, "");
    if (head === "Self" && scope.self !== null) return { kind: "static", className: scope.self };
    if (path.type !== RUST.SCOPED_IDENTIFIER && this.typeNames.has(head)) return { kind: "static", className: head };
    if (path.type !== RUST.SCOPED_IDENTIFIER && this.modules.has(head)) return { kind: "namespace", local: head };
    // `m::Type::f()` through a module the file binds.
    const qualified = /^([a-z_]\w*)::([A-Z]\w*)$/.exec(head);
    if (qualified && this.modules.has(qualified[1]!)) return { kind: "static", className: `${qualified[1]}.${qualified[2]}` };
    if (/^(?:crate|self|super)(?:::[a-z_]\w*)*$/.test(head)) {
      // `crate::a::f()`: the path is an import of its own, bound to a local no source name can have.
      const module = fromFileModule(head, scope.module);
      if (module === null) return null;
      if (!this.pathImports.has(module)) {
        this.pathImports.add(module);
        this.imports.push({ module, names: ["*"], locals: [module], kind: "import", line: call.startPosition.row + 1 });
      }
      return { kind: "namespace", local: module };
    }
    const local = this.externPath(head, call);
    return local === null ? null : { kind: "namespace", local };
  }

  /**
   * `memchr::memchr()`, `::memchr::memmem::find()`: a path through a crate of the extern prelude
   * (a dependency, or a crate of the workspace) that no `use` brings in, read as that path's own
   * import, bound to a local no source name can have (`::memchr`); the standard library's crates,
   * primitive types and names the file binds are not. Null for any other path.
   */
  private externPath(head: string, call: SyntaxNode): string | null {
    const m = /^(?:::)?([a-z_]\w*)((?:::[a-z_]\w*)*)$/.exec(head);
    const first = m?.[1] ?? "";
    if (!m || SYSROOT_CRATES.has(first) || this.builtin.has(first) || this.bound.has(first) || this.typeNames.has(first)) return null;
    const module = `${first}${m[2]}`;
    const local = `::${module}`;
    if (!this.pathImports.has(local)) {
      this.pathImports.add(local);
      this.imports.push({ module, names: ["*"], locals: [local], kind: "import", line: call.startPosition.row + 1 });
    }
    return local;
  }

  /** The project type a type expression names plainly: `T`, `&T`, `&mut T`, `T<X>`, `a::T` → `T`; builtins are none. */
  private namedType(type: string | null): string | null {
    if (type === null) return null;
    const m = /^(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?((?:(?:crate|self|super|[a-z_]\w*)::)*)([A-Z]\w*)(?:\s*<.*>)?$/s.exec(type.trim());
    if (!m || (this.builtin.has(m[2]!) && !this.ownBuiltins.has(m[2]!))) return null;
    const qualifier = m[1]!.replace(/::$/, "");
    if (qualifier === "") return m[2]!;
    // `m::T` through a module the file binds; any longer path is not followed (a same-named type
    // elsewhere must not be taken for it).
    return this.modules.has(qualifier) ? `${qualifier}.${m[2]!}` : null;
  }

  private recordCall(call: SyntaxNode, scope: Scope, types: ReadonlyMap<string, Known>): void {
    const fn = call.childForFieldName("function");
    if (!fn) return;
    let receiver: CallReceiver;
    let callee: string;
    if (fn.type === RUST.IDENTIFIER) {
      if (this.localFunctions.has(fn.text)) return;
      callee = this.bareName(fn.text, scope);
      receiver = { kind: "bare" };
    } else if (fn.type === RUST.SCOPED_IDENTIFIER) {
      const path = fn.childForFieldName("path");
      callee = fn.childForFieldName("name")?.text ?? "";
      const r = path ? this.pathReceiver(path, scope, call) : null;
      if (r === null) return;
      receiver = r;
    } else if (fn.type === RUST.FIELD_EXPRESSION) {
      const value = fn.childForFieldName("value");
      callee = fn.childForFieldName("field")?.text ?? "";
      if (!value) return;
      if (value.type === RUST.SELF && scope.self !== null) receiver = { kind: "this", className: scope.self };
      else if (value.type === RUST.IDENTIFIER && types.has(value.text)) receiver = types.get(value.text)!;
      else if (value.type === RUST.FIELD_EXPRESSION) {
        const held = this.fieldOf(value, scope, types);
        if (held === null) return;
        receiver = held;
      } else if (value.type === RUST.CALL_EXPRESSION || value.type === "try_expression" || value.type === RUST.STRUCT_EXPRESSION) {
        // `T::new().m()`, `open()?.m()`: a method of what the call returns.
        const known = this.knownValue(value, scope, types);
        if (known === null) return;
        receiver = known;
      } else return;
    } else return;
    this.addCall(scope.caller, callee, receiver, false, fn.childForFieldName(fn.type === RUST.FIELD_EXPRESSION ? "field" : "name") ?? fn);
  }

  /** A bare name as the item it calls: a function of the caller's own inline module (`tests.helper`), else the name. */
  private bareName(name: string, scope: Scope): string {
    return scope.module !== "" && this.moduleFunctions.has(`${scope.module}${name}`) ? `${scope.module}${name}` : name;
  }

  /**
   * Calls inside a macro's arguments (`assert_eq!(self.len(), 3)`, `format!("{}", x.name())`): the
   * grammar leaves them as tokens, so they are read from the token sequence — `name(…)`,
   * `self.name(…)`, `x.name(…)` on a typed local, `Type::name(…)` / `Self::name(…)` / `m::name(…)` —
   * with the same receiver rules as calls outside macros.
   */
  private recordMacroCalls(macro: SyntaxNode, scope: Scope, types: ReadonlyMap<string, Known>): void {
    // An explicit stack, not recursion: token trees nest as deep as the source does.
    const stack = macro.namedChildren.filter((c) => c.type === RUST.TOKEN_TREE);
    for (let tree = stack.pop(); tree !== undefined; tree = stack.pop()) {
      const cs = tree.children;
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (c.type === RUST.TOKEN_TREE) {
          stack.push(c);
          continue;
        }
        const next = cs[i + 1];
        // A method may share a primitive type's name (`self.char()`): the token is then a `primitive_type`.
        if ((c.type !== RUST.IDENTIFIER && !(c.type === "primitive_type" && cs[i - 1]?.type === ".")) || next?.type !== RUST.TOKEN_TREE || next.child(0)?.type !== "(") continue;
        const before = cs[i - 1]?.type;
        const object = cs[i - 2];
        let receiver: CallReceiver | null = null;
        if (before === ".") {
          if (object?.type === RUST.SELF && scope.self !== null) receiver = { kind: "this", className: scope.self };
          else if (object?.type === RUST.IDENTIFIER && cs[i - 3]?.type !== "." && cs[i - 3]?.type !== "::") receiver = types.get(object.text) ?? null;
          else if (object?.type === RUST.TOKEN_TREE && object.child(0)?.type === "(" && cs[i - 3]?.type === RUST.IDENTIFIER) {
            // `f(…).m(…)` and `Type::f(…).m(…)`: a method of what the call returns.
            const fn = cs[i - 3]!;
            const sep = cs[i - 4]?.type;
            const head = cs[i - 5];
            if (sep !== "." && sep !== "::") receiver = { kind: "returned", producer: this.bareName(fn.text, scope) };
            else if (sep === "::" && head?.type === RUST.IDENTIFIER && cs[i - 6]?.type !== "::") {
              const owner = head.text === "Self" ? scope.self : this.typeNames.has(head.text) || this.modules.has(head.text) ? head.text : null;
              if (owner !== null) receiver = { kind: "returned", producer: `${owner}.${fn.text}` };
            }
          }
        } else if (before === "::") {
          // Not `a::b::f(…)`, nor a macro's own variable (`#name::new()` in `quote!`, `$t::new()`).
          if (object?.type === RUST.IDENTIFIER && cs[i - 3]?.type !== "::" && cs[i - 3]?.type !== "#" && cs[i - 3]?.type !== "$") {
            const head = object.text;
            if (head === "Self" && scope.self !== null) receiver = { kind: "static", className: scope.self };
            else if (this.typeNames.has(head)) receiver = { kind: "static", className: head };
            else if (this.modules.has(head)) receiver = { kind: "namespace", local: head };
            else {
              const local = this.externPath(head, c);
              if (local !== null) receiver = { kind: "namespace", local };
            }
          }
        } else if (before !== "fn" && !this.localFunctions.has(c.text)) receiver = { kind: "bare" };
        if (receiver !== null) this.addCall(scope.caller, receiver.kind === "bare" ? this.bareName(c.text, scope) : c.text, receiver, false, c);
      }
    }
  }
}

/** The local a `for` loop iterates: `xs`, `&xs`, `&mut xs`, `xs.iter()`, `xs.iter_mut()`, `xs.into_iter()`; null for anything else. */
function collectionName(value: SyntaxNode): string | null {
  let v: SyntaxNode | null = value;
  if (v.type === "reference_expression") v = v.childForFieldName("value");
  if (v?.type === RUST.CALL_EXPRESSION && v.childForFieldName("arguments")?.namedChildCount === 0) {
    const fn = v.childForFieldName("function");
    if (fn?.type === RUST.FIELD_EXPRESSION && /^(?:iter|iter_mut|into_iter)$/.test(fn.childForFieldName("field")?.text ?? "")) v = fn.childForFieldName("value");
  }
  return v?.type === RUST.IDENTIFIER ? v.text : null;
}

/** Every identifier a pattern binds (or names: a path in a pattern binds nothing, and poisoning it is harmless). */
function identifiersIn(pattern: SyntaxNode): string[] {
  if (pattern.type === RUST.IDENTIFIER) return [pattern.text];
  return pattern.descendantsOfType(RUST.IDENTIFIER).map((n) => n.text);
}

/** `pub`, `pub(crate)`, `pub(super)`, `pub(in path)` export; `pub(self)` does not. */
function isPub(node: SyntaxNode): boolean {
  const vis = node.namedChildren.find((c) => c.type === "visibility_modifier");
  return vis !== undefined && !/^pub\s*\(\s*self\s*\)$/.test(vis.text);
}

/** Parameters as `{name, type, optional}`; `self` is left out. */
function paramsOf(list: SyntaxNode | null): ParamRecord[] {
  const out: ParamRecord[] = [];
  for (const p of list?.namedChildren ?? []) {
    if (p.type === RUST.PARAMETER)
      out.push({ name: collapseWhitespace(p.childForFieldName("pattern")?.text ?? p.text), type: collapseWhitespace(p.childForFieldName("type")?.text ?? "") || null, optional: false });
    else if (p.type === "variadic_parameter") out.push({ name: "...", type: null, optional: true });
  }
  return out;
}

function stripComment(text: string): string {
  return text.startsWith("//") ? text.replace(/^\/\/[/!]?\s?/, "").trimEnd() : text.replace(/^\/\*[*!]?\s?|\s*\*\/$/g, "");
}
