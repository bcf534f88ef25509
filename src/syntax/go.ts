// Go extraction: functions, methods (`Type.Method`, value or pointer receivers), structs (with
// their embedded types as heritage), interfaces (their methods as `Iface.Method`), other type
// declarations, consts and vars become chunks and symbols; capitalised names are exported; doc
// comments are the `//` lines above a declaration; import specs become import rows bound to the
// package's name; calls become call sites typed by what the file proves (the receiver, annotated
// parameters, `var x T`, `x := T{…}`, struct field types). Pure: a function of (path, text, options).
import { collapseWhitespace, firstLine } from "../base/text.js";
import * as GO from "../lang/go-nodes.js";
import { languageSpec } from "../lang/languages.js";
import { parseFlat, type SyntaxNode } from "./flat-tree.js";
import { bindLocal, leadingComments, TreeExtractor, type Known, type MutableDraft } from "./tree-extractor.js";
import type { CallReceiver, ExtractOptions, ExtractResult, FileExtraction, ParamRecord } from "./types.js";

const TOKENS: ReadonlySet<string> = new Set([GO.IDENTIFIER, GO.TYPE_IDENTIFIER, "field_identifier", GO.PACKAGE_IDENTIFIER]);
/** Calls, and the statements and literals that bind or rebind a local (read by position by the call pass). */
/** Calls chained on calls (`a.B().C().D()`) are followed this deep for a producer. */
const MAX_CHAIN = 8;
const EVENTS: ReadonlySet<string> = new Set([
  GO.CALL_EXPRESSION,
  GO.SHORT_VAR_DECLARATION,
  GO.VAR_SPEC,
  GO.CONST_SPEC,
  GO.ASSIGNMENT_STATEMENT,
  GO.FUNC_LITERAL,
  GO.RANGE_CLAUSE,
  GO.TYPE_SWITCH_STATEMENT,
  "receive_statement",
]);

type Receiver = { name: string | null; type: string } | null;

export function extractGo(filePath: string, text: string, grammar: string, language: string, options: ExtractOptions): ExtractResult {
  const tree = parseFlat(grammar, text, options.parseTimeoutMs);
  if (tree === null) return { ok: false, error: `parse timed out after ${options.parseTimeoutMs} ms` };
  return { ok: true, extraction: new GoExtractor(filePath, text, language, tree.rootNode, options).run() };
}

/** Go exports a name by capitalising it. */
export function isGoExported(name: string): boolean {
  return /^\p{Lu}/u.test(name);
}

class GoExtractor extends TreeExtractor {
  /** Import locals (a package's name or alias): `pkg.F()` is a call into that package. */
  private readonly packages = new Set<string>();
  /** Per struct of this file: field → the named type it holds. */
  private readonly fieldTypes = new Map<string, Map<string, string>>();
  /** Per struct of this file: field → its slice or map type as written (`[]*Command`). */
  private readonly fieldSlices = new Map<string, Map<string, string>>();
  /** The current function's parameters of a slice or map type, as written. */
  private slices = new Map<string, string>();
  private readonly spec = languageSpec(this.language);
  private readonly builtin = this.spec?.builtinTypes ?? new Set<string>();

  run(): FileExtraction {
    this.collect(TOKENS, EVENTS);
    const functions: SyntaxNode[] = [];
    for (const node of this.root.namedChildren) {
      switch (node.type) {
        case GO.FUNCTION_DECLARATION:
        case GO.METHOD_DECLARATION:
          this.flushBlock();
          functions.push(node);
          break;
        case GO.TYPE_DECLARATION:
          this.flushBlock();
          this.declareTypes(node);
          break;
        case GO.CONST_DECLARATION:
        case GO.VAR_DECLARATION:
          this.flushBlock();
          this.declareValues(node);
          break;
        case GO.COMMENT:
          break; // a doc comment is pulled into the declaration below it; others are between chunks
        default:
          // The package clause and imports (and anything else) form blocks.
          if (node.type === GO.IMPORT_DECLARATION) this.recordImports(node);
          this.extendBlock(node);
      }
    }
    this.flushBlock();
    // Functions last: their calls read the struct field types of the whole file.
    for (const fn of functions) this.declareFunction(fn);
    return this.finish();
  }

  private doc(node: SyntaxNode): string | null {
    return this.docOf(node)?.text ?? null;
  }

  /** The doc comment above a declaration, with the line it starts on. */
  private docOf(node: SyntaxNode): { text: string; startLine: number } | null {
    return leadingComments(node, (n) => n.type === GO.COMMENT, stripComment);
  }

  /** The draft of a top-level declaration, its doc comment pulled in. */
  private draft(node: SyntaxNode, fields: Omit<MutableDraft, "startLine" | "endLine" | "docStartLine">, body: SyntaxNode | null = null): MutableDraft {
    const doc = this.docOf(node);
    const draft: MutableDraft = {
      startLine: node.startPosition.row + 1,
      endLine: node.endPosition.row + 1,
      headerEndLine: (body ?? node).startPosition.row + 1,
      ...fields,
    };
    if (doc !== null) draft.docStartLine = doc.startLine;
    this.drafts.push(draft);
    return draft;
  }

  // ---- functions and methods ----

  private declareFunction(node: SyntaxNode): void {
    const name = node.childForFieldName("name")?.text ?? "";
    const receiver = node.type === GO.METHOD_DECLARATION ? receiverOf(node.childForFieldName("receiver")) : null;
    const qualified = receiver ? `${receiver.type}.${name}` : name;
    const body = node.childForFieldName("body");
    const exported = isGoExported(name) && (receiver === null || isGoExported(receiver.type));
    this.draft(node, { chunkType: receiver ? "method" : "function", symbolName: qualified, parentSymbol: receiver?.type ?? null, isExported: exported }, body);
    const header = this.slice(node.startIndex, body ? body.startIndex : node.endIndex).trimEnd();
    const sym = this.addSymbol(node, receiver ? "method" : "function", qualified, exported, this.doc(node), header, body ? this.slice(body.startIndex, body.endIndex) : "");
    sym.parent = receiver?.type ?? null;
    sym.params = paramsOf(node.childForFieldName("parameters"));
    const result = node.childForFieldName("result");
    sym.returnType = result ? collapseWhitespace(result.text) : null;
    const types = new Map<string, Known>();
    this.slices = new Map();
    for (const p of sym.params) {
      const type = this.namedType(p.type);
      if (type !== null) types.set(p.name, { kind: "typed", typeName: type, resolution: "parameter_type" });
      else if (p.type !== null && !p.optional && this.spec?.elementType?.(p.type) != null) this.slices.set(p.name, p.type);
    }
    // Parameters of no named type and named results still shadow package-level names.
    const shadowing = [...sym.params.filter((p) => !types.has(p.name)).map((p) => p.name), ...paramsOf(result?.type === GO.PARAMETER_LIST ? result : null).map((p) => p.name)];
    if (body) this.recordCalls(body, qualified, receiver, types, new Set(shadowing));
  }

  // ---- types ----

  private declareTypes(decl: SyntaxNode): void {
    const specs = decl.namedChildren.filter((c) => c.type === GO.TYPE_SPEC || c.type === GO.TYPE_ALIAS);
    for (const spec of specs) {
      // A lone spec's span is the whole declaration (`type` keyword and doc comment included).
      const node = specs.length === 1 ? decl : spec;
      const name = spec.childForFieldName("name")?.text ?? "";
      const type = spec.childForFieldName("type");
      const exported = isGoExported(name);
      const text = specs.length === 1 ? this.slice(decl.startIndex, decl.endIndex) : `type ${this.slice(spec.startIndex, spec.endIndex)}`;
      const kind = spec.type === GO.TYPE_SPEC && type?.type === GO.STRUCT_TYPE ? "class" : spec.type === GO.TYPE_SPEC && type?.type === GO.INTERFACE_TYPE ? "interface" : "type";
      this.draft(node, { chunkType: kind === "class" ? "class_shell" : kind === "interface" ? "interface" : "type", symbolName: name, parentSymbol: null, isExported: exported });
      const sym = this.addSymbol(node, kind, name, exported, this.doc(node), text, text);
      sym.line = spec.startPosition.row + 1;
      if (kind === "class") this.declareStruct(name, type!);
      if (kind === "interface") this.declareInterface(name, type!, exported);
    }
  }

  private declareStruct(name: string, struct: SyntaxNode): void {
    const fields = new Map<string, string>();
    const slices = new Map<string, string>();
    const embedded: string[] = [];
    const list = struct.namedChildren.find((c) => c.type === GO.FIELD_DECLARATION_LIST);
    for (const decl of list?.namedChildren ?? []) {
      if (decl.type !== GO.FIELD_DECLARATION) continue;
      const type = decl.childForFieldName("type");
      const names = decl.namedChildren.filter((c) => c.type === "field_identifier");
      if (names.length === 0) {
        // An embedded field: its type's methods are the struct's own (promoted).
        const embeddedType = this.namedType(type?.text ?? null);
        if (embeddedType !== null) embedded.push(embeddedType);
        continue;
      }
      const typeName = this.namedType(type?.text ?? null);
      if (typeName !== null) for (const n of names) fields.set(n.text, typeName);
      else if (type && this.spec?.elementType?.(type.text) != null) for (const n of names) slices.set(n.text, collapseWhitespace(type.text));
    }
    this.fieldTypes.set(name, fields);
    this.fieldSlices.set(name, slices);
    // Only the first embedded type is followed for promoted methods (the linker walks one chain).
    if (embedded.length > 0) this.heritage.push({ className: name, line: struct.startPosition.row + 1, extends: embedded[0]!, implements: [] });
  }

  private declareInterface(name: string, iface: SyntaxNode, exported: boolean): void {
    const embedded: string[] = [];
    for (const member of iface.namedChildren) {
      if (member.type === GO.METHOD_ELEM) {
        const method = member.childForFieldName("name")?.text ?? "";
        const signature = collapseWhitespace(member.text);
        const sym = this.addSymbol(member, "method", `${name}.${method}`, exported && isGoExported(method), this.doc(member), signature, signature);
        sym.parent = name;
        sym.params = paramsOf(member.childForFieldName("parameters"));
        const result = member.childForFieldName("result");
        sym.returnType = result ? collapseWhitespace(result.text) : null;
      } else if (member.type === "type_elem") {
        // Every embedded element as written, `error` and `fmt.Stringer` too: the linker takes the
        // method sets it knows and leaves the interface out when one is not (`~int | ~string`).
        embedded.push(collapseWhitespace(member.text));
      }
    }
    if (embedded.length > 0) this.heritage.push({ className: name, line: iface.startPosition.row + 1, extends: embedded[0]!, implements: embedded.slice(1) });
  }

  // ---- consts and vars ----

  private declareValues(decl: SyntaxNode): void {
    const specs = decl.namedChildren.filter((c) => c.type === GO.CONST_SPEC || c.type === GO.VAR_SPEC || c.type === "var_spec_list");
    const flat = specs.flatMap((s) => (s.type === "var_spec_list" ? s.namedChildren.filter((c) => c.type === GO.VAR_SPEC) : [s]));
    const names = flat.flatMap((s) => s.namedChildren.filter((c) => c.type === GO.IDENTIFIER && isNameOf(s, c)));
    const kind = decl.type === GO.CONST_DECLARATION ? "const" : "variable";
    const lone = names.length === 1 ? names[0]!.text : null;
    this.draft(decl, { chunkType: "block", symbolName: lone, parentSymbol: null, isExported: lone !== null && isGoExported(lone) });
    for (const n of names) {
      const spec = n.parent!;
      const text = flat.length === 1 ? this.slice(decl.startIndex, decl.endIndex) : this.slice(spec.startIndex, spec.endIndex);
      const sym = this.addSymbol(spec, kind, n.text, isGoExported(n.text), this.doc(flat.length === 1 ? decl : spec), firstLine(text), text);
      sym.line = n.startPosition.row + 1;
      // A package-level variable of one named type (`var Uri = uriBinding{}`, `var v T`): calls on it
      // are typed by it in every file of the package (its `returnType` is the type it holds).
      if (kind === "variable") {
        const values = spec.childForFieldName("value")?.namedChildren ?? [];
        const names = spec.namedChildren.filter((c) => c.type === GO.IDENTIFIER && isNameOf(spec, c));
        const declared = this.namedType(spec.childForFieldName("type")?.text ?? null);
        const value = values.length === names.length ? values[names.findIndex((x) => x.text === n.text)] : undefined;
        const literal = value ? this.knownValue(value, null, new Map()) : null;
        sym.returnType = declared ?? (literal?.kind === "typed" ? literal.typeName : null);
      }
    }
    // Initialisers run at package load: their calls are the module's.
    this.recordCalls(decl, null, null, new Map());
  }

  // ---- imports ----

  private recordImports(decl: SyntaxNode): void {
    const specs = decl.namedChildren.flatMap((c) => (c.type === GO.IMPORT_SPEC_LIST ? c.namedChildren : [c])).filter((c) => c.type === GO.IMPORT_SPEC);
    for (const spec of specs) {
      const path = spec.childForFieldName("path");
      if (!path) continue;
      const module = path.namedChildren.find((c) => c.type === "interpreted_string_literal_content" || c.type === "raw_string_literal_content")?.text ?? path.text.slice(1, -1);
      const alias = spec.childForFieldName("name");
      const line = spec.startPosition.row + 1;
      if (alias?.type === "blank_identifier") {
        this.imports.push({ module, names: [], locals: [], kind: "import", line });
      } else if (alias?.type === "dot") {
        this.imports.push({ module, names: ["*"], locals: [], kind: "import", line });
      } else {
        const local = alias?.text ?? packageNameOf(module);
        this.packages.add(local);
        this.imports.push({ module, names: ["*"], locals: [local], kind: "import", line });
      }
    }
  }

  // ---- calls ----

  /**
   * Every call under `node` as a call site of `caller`. `types` holds the locals whose value is
   * known (parameters, function literals' parameters, `var x T`, `x := T{…}` / `&T{…}`, `x := f()`);
   * a name bound again to anything else loses what it had, for the rest of the function.
   */
  private recordCalls(node: SyntaxNode, caller: string | null, receiver: Receiver, types: Map<string, Known>, poisoned = new Set<string>()): void {
    for (const { node: n } of this.eventsIn(node.startIndex, node.endIndex)) {
      if (n.type === GO.CALL_EXPRESSION) this.recordCall(n, caller, receiver, types, poisoned);
      else this.noteBinding(n, receiver, types, poisoned);
    }
  }

  private noteBinding(n: SyntaxNode, receiver: Receiver, types: Map<string, Known>, poisoned: Set<string>): void {
    const bind = (name: string, known: Known | null) => {
      if (name === "_") return;
      bindLocal(types, poisoned, name, known);
      this.slices.delete(name);
    };
    switch (n.type) {
      case GO.FUNC_LITERAL:
        for (const p of paramsOf(n.childForFieldName("parameters"))) {
          const type = this.namedType(p.type);
          bind(p.name, type === null ? null : { kind: "typed", typeName: type, resolution: "parameter_type" });
        }
        return;
      case GO.RANGE_CLAUSE: {
        // `for _, x := range xs`: the second name holds an element of what `xs` holds.
        const left = n.childForFieldName("left")?.namedChildren ?? [];
        const element = left.length === 2 ? this.elementOf(n.childForFieldName("right"), receiver, types) : null;
        left.forEach((l, i) => {
          if (l.type === GO.IDENTIFIER) bind(l.text, i === 1 ? element : null);
        });
        return;
      }
      case "receive_statement":
        for (const l of n.childForFieldName("left")?.namedChildren ?? []) if (l.type === GO.IDENTIFIER) bind(l.text, null);
        return;
      case GO.TYPE_SWITCH_STATEMENT:
        for (const l of n.childForFieldName("alias")?.namedChildren ?? []) if (l.type === GO.IDENTIFIER) bind(l.text, null);
        return;
      case GO.CONST_SPEC:
        for (const c of n.namedChildren) if (c.type === GO.IDENTIFIER && isNameOf(n, c)) bind(c.text, null);
        return;
      case GO.VAR_SPEC: {
        const names = n.namedChildren.filter((c) => c.type === GO.IDENTIFIER && isNameOf(n, c));
        const declared = this.namedType(n.childForFieldName("type")?.text ?? null);
        const values = n.childForFieldName("value")?.namedChildren ?? [];
        names.forEach((name, i) => {
          // A declared type is an annotation, as TypeScript's `const x: T` (composite literals construct).
          if (declared !== null) bind(name.text, { kind: "typed", typeName: declared, resolution: "parameter_type" });
          else bind(name.text, values.length === names.length ? this.knownValue(values[i]!, receiver, types) : i === 0 && values.length === 1 ? this.producedBy(values[0]!, receiver, types) : null);
        });
        return;
      }
      default: {
        const left = n.childForFieldName("left")?.namedChildren ?? [];
        const right = n.childForFieldName("right")?.namedChildren ?? [];
        left.forEach((l, i) => {
          if (l.type !== GO.IDENTIFIER) return;
          // `x, err := f()`: the first name holds f's first result. Assigning again what it held keeps it.
          // `v, ok := x.(T)`: the first name holds a T.
          const value =
            right.length === left.length
              ? this.knownValue(right[i]!, receiver, types)
              : i === 0 && right.length === 1
                ? (this.asserted(right[0]!) ?? this.producedBy(right[0]!, receiver, types))
                : null;
          bind(l.text, value);
        });
      }
    }
  }

  /** What a value expression is known to be: a composite literal's type, a type assertion's, or a call's result. */
  private knownValue(value: SyntaxNode, receiver: Receiver, types: ReadonlyMap<string, Known>): Known | null {
    const literal = value.type === GO.UNARY_EXPRESSION && value.text.startsWith("&") ? value.childForFieldName("operand") : value;
    if (literal?.type === GO.COMPOSITE_LITERAL) {
      const type = this.namedType(literal.childForFieldName("type")?.text ?? null);
      return type === null ? null : { kind: "typed", typeName: type, resolution: "new_expression" };
    }
    return this.asserted(value) ?? this.producedBy(value, receiver, types);
  }

  /**
   * `x.field`: the receiver's field as its struct in this file declares it, or — for a struct of
   * another file, a typed local's or a call's result (`f().field`) — the field looked up in the type's declaration
   * by the linker (`T#field`); null when `x` is not known.
   */
  private fieldOf(selector: SyntaxNode, recv: Receiver, types: ReadonlyMap<string, Known>, locals: ReadonlySet<string>): Known | null {
    const operand = selector.childForFieldName("operand");
    const name = selector.childForFieldName("field")?.text;
    if (operand?.type === GO.CALL_EXPRESSION && name) {
      const produced = this.producedBy(operand, recv, types);
      return produced?.kind === "returned" ? { kind: "returned", producer: `${produced.producer}()#${name}` } : null;
    }
    if (operand?.type !== GO.IDENTIFIER || !name) return null;
    if (recv !== null && operand.text === recv.name) {
      const fieldType = this.fieldTypes.get(recv.type)?.get(name);
      if (fieldType !== undefined) return { kind: "typed", typeName: fieldType, resolution: "field_type" };
      return this.fieldTypes.has(recv.type) ? null : { kind: "returned", producer: `${recv.type}#${name}` };
    }
    if (locals.has(operand.text)) return null;
    const known = types.get(operand.text);
    if (known?.kind === "typed") return { kind: "returned", producer: `${known.typeName}#${name}` };
    if (known?.kind === "returned") return { kind: "returned", producer: `${known.producer}()#${name}` };
    return null;
  }

  /** `v.(T)` (also `v.(*T)`, `pkg.T`): the value is a T, as an annotation says. */
  private asserted(value: SyntaxNode): Known | null {
    if (value.type !== "type_assertion_expression") return null;
    const type = this.namedType(value.childForFieldName("type")?.text ?? null);
    return type === null ? null : { kind: "typed", typeName: type, resolution: "parameter_type" };
  }

  /**
   * What an element of a ranged expression holds: of a call's result or a local holding one (the
   * callee's declared slice or map type, read by the linker), of a parameter or a field of the
   * receiver declared `[]T` / `[]*T` / `map[K]T`.
   */
  private elementOf(value: SyntaxNode | null, receiver: Receiver, types: ReadonlyMap<string, Known>): Known | null {
    if (value === null) return null;
    const known = value.type === GO.IDENTIFIER ? types.get(value.text) : value.type === GO.CALL_EXPRESSION ? this.producedBy(value, receiver, types) : undefined;
    if (known?.kind === "returned") return { kind: "returned", producer: `${known.producer}[]` };
    let declared: string | undefined;
    if (value.type === GO.IDENTIFIER) declared = this.slices.get(value.text);
    else if (value.type === GO.SELECTOR_EXPRESSION && receiver !== null && value.childForFieldName("operand")?.text === receiver.name) {
      declared = this.fieldSlices.get(receiver.type)?.get(value.childForFieldName("field")?.text ?? "");
      // A struct of another file: the linker reads the field's declared type.
      if (declared === undefined && !this.fieldSlices.has(receiver.type)) return { kind: "returned", producer: `${receiver.type}#${value.childForFieldName("field")?.text ?? ""}[]` };
    } else if (value.type === GO.SELECTOR_EXPRESSION) {
      const held = this.fieldOf(value, receiver, types, new Set());
      if (held?.kind === "returned") return { kind: "returned", producer: `${held.producer}[]` };
    }
    const written = declared === undefined ? null : (this.spec?.elementType?.(declared) ?? null);
    const element = this.namedType(written);
    return element === null ? null : { kind: "typed", typeName: element, resolution: known === undefined && value.type === GO.IDENTIFIER ? "parameter_type" : "field_type" };
  }

  /**
   * `f(…)`, `pkg.F(…)`, `x.M(…)` (x of a known type, or holding what a call returns), `f().M(…)`
   * as a producer of a value; null for any other expression.
   */
  private producedBy(value: SyntaxNode, receiver: Receiver, types: ReadonlyMap<string, Known>, depth = 0): Known | null {
    if (value.type !== GO.CALL_EXPRESSION) return null;
    const fn = value.childForFieldName("function");
    if (fn?.type === GO.IDENTIFIER) return types.has(fn.text) ? null : { kind: "returned", producer: fn.text };
    if (fn?.type !== GO.SELECTOR_EXPRESSION) return null;
    const operand = fn.childForFieldName("operand");
    const name = fn.childForFieldName("field")?.text;
    if (!operand || !name) return null;
    // A method of what another call returns: `a.B().C()` (a bounded chain).
    const inner = operand.type === GO.CALL_EXPRESSION && depth < MAX_CHAIN ? this.producedBy(operand, receiver, types, depth + 1) : null;
    if (inner?.kind === "returned") return { kind: "returned", producer: `${inner.producer}().${name}` };
    if (operand.type !== GO.IDENTIFIER) return null;
    const known = types.get(operand.text);
    if (known?.kind === "typed") return { kind: "returned", producer: `${known.typeName}.${name}` };
    if (known?.kind === "returned") return { kind: "returned", producer: `${known.producer}().${name}` };
    if (receiver !== null && operand.text === receiver.name) return { kind: "returned", producer: `${receiver.type}.${name}` };
    if (this.packages.has(operand.text)) return { kind: "returned", producer: `${operand.text}.${name}` };
    return null;
  }

  /** The project type a type expression names plainly: `T`, `*T`, `pkg.T`, `T[X]` (generic) → `T`; builtins and composites are none. */
  private namedType(type: string | null): string | null {
    if (type === null) return null;
    const m = /^\*?\s*((?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)(?:\[.*\])?$/s.exec(type.trim());
    if (!m || this.builtin.has(m[1]!)) return null;
    return m[1]!;
  }

  private recordCall(call: SyntaxNode, caller: string | null, recv: Receiver, types: ReadonlyMap<string, Known>, locals: ReadonlySet<string>): void {
    const fn = call.childForFieldName("function");
    if (!fn) return;
    let receiver: CallReceiver;
    let callee: string;
    if (fn.type === GO.IDENTIFIER) {
      // A local or parameter holding a function value: not a call of a package's function.
      if (types.has(fn.text) || locals.has(fn.text)) return;
      callee = fn.text;
      receiver = { kind: "bare" };
    } else if (fn.type === GO.SELECTOR_EXPRESSION) {
      const operand = fn.childForFieldName("operand");
      const method = fn.childForFieldName("field");
      if (!operand || !method) return;
      callee = method.text;
      if (operand.type === GO.IDENTIFIER && recv !== null && operand.text === recv.name) receiver = { kind: "this", className: recv.type };
      else if (operand.type === GO.IDENTIFIER && types.has(operand.text)) receiver = types.get(operand.text)!;
      // A local shadows an import and a package-level name alike: its type is unknown.
      else if (operand.type === GO.IDENTIFIER && locals.has(operand.text)) return;
      else if (operand.type === GO.IDENTIFIER && this.packages.has(operand.text)) receiver = { kind: "namespace", local: operand.text };
      // Any other name is the package's own: a package-level variable holds the type it was declared with.
      else if (operand.type === GO.IDENTIFIER && operand.text !== "_" && operand.text !== recv?.name) receiver = { kind: "returned", producer: operand.text };
      else if (operand.type === GO.SELECTOR_EXPRESSION) {
        const held = this.fieldOf(operand, recv, types, locals);
        if (held === null) return;
        receiver = held;
      } else if (operand.type === "type_assertion_expression") {
        const known = this.asserted(operand);
        if (known === null) return;
        receiver = known;
      } else if (operand.type === GO.PARENTHESIZED_EXPRESSION && operand.namedChildCount === 1) {
        // `(T{…}).M()`
        const known = this.knownValue(operand.namedChild(0)!, recv, types);
        if (known === null) return;
        receiver = known;
      } else if (operand.type === GO.CALL_EXPRESSION) {
        // `f().M()`: a method of what f returns.
        const produced = this.producedBy(operand, recv, types);
        if (produced === null) return;
        receiver = produced;
      } else return; // a receiver whose type is unknown: the potential set covers it
    } else return;
    this.addCall(caller, callee, receiver, false, fn.type === GO.SELECTOR_EXPRESSION ? (fn.childForFieldName("field") ?? fn) : fn);
  }
}

/** `(s *Server)`, `(Server)`, `(s *List[T])` → the receiver's name and its type's name. */
function receiverOf(list: SyntaxNode | null): { name: string | null; type: string } | null {
  const param = list?.namedChildren.find((c) => c.type === GO.PARAMETER_DECLARATION);
  if (!param) return null;
  const m = /^\*?\s*([A-Za-z_]\w*)/.exec(param.childForFieldName("type")?.text ?? "");
  return m ? { name: param.childForFieldName("name")?.text ?? null, type: m[1]! } : null;
}

/** Whether `node` is one of `spec`'s `name` fields (not an identifier inside its value). */
function isNameOf(spec: SyntaxNode, node: SyntaxNode): boolean {
  for (let i = 0; i < spec.childCount; i++) if (spec.child(i)?.id === node.id) return spec.fieldNameForChild(i) === "name";
  return false;
}

/** The name a package is imported under without an alias: its path's last element, a major-version suffix (`/v2`, `.v3`) dropped. */
export function packageNameOf(path: string): string {
  const parts = path.split("/");
  let last = parts[parts.length - 1] ?? path;
  if (/^v\d+$/.test(last) && parts.length > 1) last = parts[parts.length - 2]!;
  return last
    .replace(/\.v\d+$/, "")
    .replace(/^go-/, "")
    .replace(/[-.]/g, "_");
}

/** Parameters as `{name, type, optional}`: `a, b int` is two, `opts ...T` is optional, an unnamed one is `_`. */
function paramsOf(list: SyntaxNode | null): ParamRecord[] {
  const out: ParamRecord[] = [];
  for (const p of list?.namedChildren ?? []) {
    if (p.type !== GO.PARAMETER_DECLARATION && p.type !== GO.VARIADIC_PARAMETER_DECLARATION) continue;
    const typeText = collapseWhitespace(p.childForFieldName("type")?.text ?? "") || null;
    const variadic = p.type === GO.VARIADIC_PARAMETER_DECLARATION;
    const type = variadic && typeText !== null ? `...${typeText}` : typeText;
    const names = p.namedChildren.filter((c) => c.type === GO.IDENTIFIER);
    if (names.length === 0) out.push({ name: "_", type, optional: variadic });
    for (const n of names) out.push({ name: n.text, type, optional: variadic });
  }
  return out;
}

function stripComment(text: string): string {
  return text.startsWith("//") ? text.replace(/^\/\/ ?/, "") : text.replace(/^\/\*+\s?|\s*\*\/$/g, "");
}
