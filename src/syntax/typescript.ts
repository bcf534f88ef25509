// TypeScript/JavaScript extraction (docs/extraction.md), pass by pass: the whole-tree token pass
// (ts-tokens.ts), the declaration pass here — declaration-first chunks with synthesized class
// shells and per-method chunks, symbols with signatures, docs and stability hashes, interface
// members —, the export pass (ts-exports.ts), imports (ts-imports.ts) and call sites (calls.ts),
// assembled into the file's extraction. The records the declaration pass builds are ts-records.ts's.
import { firstLine, indentOf, lineStarts } from "../base/text.js";
import type { Grammar, Language } from "../lang/languages.js";
import { extractCalls, type CallNodes } from "./calls.js";
import { materializeChunks, shellOutline, type ChunkDraft, type OutlinePart } from "./chunking.js";
import { parseFlat, type FlatTree, type SyntaxNode } from "./flat-tree.js";
import { CLASS_TYPES, FUNCTION_VALUES, attachedDoc, instanceType, withDocComments, declarationOf, endLineOf, isDocComment, overloadImplementation, stringValue, unwrapAmbient } from "./es-nodes.js";
import { applyExportClauses, type Decl, type Draft, type Member } from "./ts-exports.js";
import { exportSourceOf, importOf, type ImportBinding } from "./ts-imports.js";
import { DeclarationRecords } from "./ts-records.js";
import { bagOf, collectTokensAndCalls, type Token } from "./ts-tokens.js";
import { DEFAULT_EXPORT_NAME, MAX_CHUNK_CHARS, moduleSymbol, type ExtractOptions, type ExtractResult, type FileExtraction, type ImportRecord, type SymbolKind } from "./types.js";

export function extractTypeScript(filePath: string, text: string, grammar: Grammar, language: Language, options: ExtractOptions): ExtractResult {
  const tree = parseFlat(grammar, text, options.parseTimeoutMs);
  if (tree === null) return { ok: false, error: `tree-sitter did not finish parsing within ${options.parseTimeoutMs} ms` };
  return { ok: true, extraction: new FileExtractor(filePath, text, tree, grammar, language, options).run() };
}

class FileExtractor extends DeclarationRecords {
  private readonly imports: ImportRecord[] = [];
  /** Local names bound by imports: local → where they come from. */
  private readonly importBindings = new Map<string, ImportBinding>();
  private tokens: Token[] = [];
  /** Call and binding nodes gathered by the token walk, for the call-site pass. */
  private callNodes: CallNodes = { calls: [], bindings: [], boundaries: [] };
  private readonly exportStatements: SyntaxNode[] = [];

  constructor(
    private readonly filePath: string,
    text: string,
    private readonly tree: FlatTree,
    private readonly grammar: Grammar,
    private readonly language: Language,
    private readonly options: ExtractOptions,
  ) {
    super(text);
  }

  run(): FileExtraction {
    const pass = collectTokensAndCalls(this.tree, this.text, this.grammar);
    this.tokens = pass.tokens;
    this.callNodes = pass.callNodes;
    this.imports.push(...pass.dynamicImports);
    const minified = this.isMinified();
    if (minified) {
      // Minified code: one block chunk (cut into pieces by the character cap), imports, no declarations.
      for (const stmt of this.tree.rootNode.namedChildren) {
        if (stmt.type === "import_statement") this.recordImport(stmt);
        else if (stmt.type === "export_statement") this.recordExportSource(stmt);
      }
      this.drafts.push({ startLine: 1, endLine: Math.max(1, this.lines.length), chunkType: "block", symbolName: null, parentSymbol: null, isExported: false, noContext: true });
    } else {
      this.walkTopLevel();
      applyExportClauses(this.exportStatements, { decls: this.decls, importBindings: this.importBindings, drafts: this.drafts, symbols: this.symbols, bagExclusions: this.bagExclusions });
    }
    const { calls, classes, nestedFunctions } = minified
      ? { calls: [], classes: [], nestedFunctions: [] }
      : extractCalls(this.tree.rootNode, this.text, this.lines, DEFAULT_EXPORT_NAME, this.callNodes, this.imports);
    for (const nested of nestedFunctions) this.declareNested(nested.node, nested.name, nested.parent);
    if (calls.some((c) => c.caller === null)) this.addModuleSymbol();
    const chunks = materializeChunks(this.filePath, { text: this.text, lines: this.lines, lineStarts: lineStarts(this.text) }, this.drafts, {
      chunkSplitThreshold: this.options.chunkSplitThreshold,
      contextLines: this.options.contextLines,
      identifiers: (draft, from, to) => this.bag(draft, from, to),
    });
    this.imports.sort((a, b) => a.line - b.line);
    return {
      language: this.language,
      chunks,
      symbols: this.symbols,
      imports: this.imports,
      calls,
      heritage: classes,
      lineCount: this.lines.length,
      hasSyntaxErrors: this.tree.rootNode.hasError,
    };
  }

  /** The file's top-level code as a symbol, so calls made there have a caller to link from. */
  private addModuleSymbol(): void {
    this.symbols.push(moduleSymbol(this.lines.length));
  }

  /**
   * A file is minified when a line longer than the chunk character cap starts several top-level
   * statements: chunking it by declaration would repeat that line in every declaration's chunk.
   */
  private isMinified(): boolean {
    const startsPerLongLine = new Map<number, number>();
    for (const stmt of this.tree.rootNode.namedChildren) {
      const row = stmt.startPosition.row;
      if ((this.lines[row]?.length ?? 0) <= MAX_CHUNK_CHARS) continue;
      const n = (startsPerLongLine.get(row) ?? 0) + 1;
      if (n > 1) return true;
      startsPerLongLine.set(row, n);
    }
    return false;
  }

  // ---- whole-tree pass: identifier tokens and require()/import() calls ----

  private bag(draft: ChunkDraft, from: number, to: number): string[] {
    return bagOf(this.tokens, this.bagExclusions.get(draft as Draft) ?? [], from, to);
  }

  // ---- pass 1: top-level statements ----

  private walkTopLevel(): void {
    const statements = this.tree.rootNode.namedChildren;
    let pendingComments: SyntaxNode[] = [];
    // Overload signatures of one function, merged into the declaration that ends the run.
    let overloads: SyntaxNode[] = [];
    let overloadDoc: SyntaxNode[] = [];
    for (let i = 0; i < statements.length; i++) {
      const stmt = statements[i]!;
      if (stmt.type === "comment") {
        // A blank line between comments breaks the doc run.
        const last = pendingComments[pendingComments.length - 1];
        if (last && last.endPosition.row + 1 < stmt.startPosition.row) {
          for (const c of pendingComments) this.addToGroup("block", c);
          pendingComments = [];
        }
        pendingComments.push(stmt);
        continue;
      }
      const doc = attachedDoc(pendingComments, stmt);
      for (const c of pendingComments.slice(0, pendingComments.length - doc.length)) this.addToGroup("block", c);
      pendingComments = [];
      const inner = declarationOf(stmt);
      if (inner?.type === "function_signature") {
        // Comments between overloads (per-overload TSDoc, trailing notes) do not break the run.
        let j = i + 1;
        while (statements[j]?.type === "comment") j++;
        const next = statements[j];
        const nextInner = next ? declarationOf(next) : null;
        const name = inner.childForFieldName("name")?.text;
        const continues = nextInner && (nextInner.type === "function_declaration" || nextInner.type === "function_signature");
        if (continues && nextInner.childForFieldName("name")?.text === name) {
          if (!overloads.length) overloadDoc = doc;
          overloads.push(stmt);
          i = j - 1; // the skipped comments lie inside the merged chunk
          continue;
        }
      }
      this.classifyStatement(stmt, overloads.length ? overloadDoc : doc, overloads);
      overloads = [];
      overloadDoc = [];
    }
    for (const c of pendingComments) this.addToGroup("block", c);
    this.flushGroup();
  }

  private classifyStatement(stmt: SyntaxNode, doc: SyntaxNode[], overloads: SyntaxNode[]): void {
    if (stmt.type === "export_statement") {
      const declaration = stmt.childForFieldName("declaration");
      if (declaration) {
        this.declare(stmt, unwrapAmbient(declaration), true, doc, overloads);
        return;
      }
      const value = stmt.childForFieldName("value");
      const isDefault = stmt.children.some((c) => c.type === "default");
      if (value && isDefault && (FUNCTION_VALUES.has(value.type) || CLASS_TYPES.has(value.type))) {
        this.declare(stmt, value, true, doc, overloads, DEFAULT_EXPORT_NAME);
        return;
      }
      this.exportStatements.push(stmt);
      if (value && isDefault && value.type !== "identifier") {
        // `export default <expression>`: an anonymous default export, named `default`.
        this.flushGroup();
        this.addDraft(stmt, "export", DEFAULT_EXPORT_NAME, true, doc);
        this.addSymbol(stmt, "const", DEFAULT_EXPORT_NAME, true, doc, { signature: firstLine(stmt.text), body: this.nodeText(stmt) });
        return;
      }
      this.recordExportSource(stmt);
      this.addToGroup("export", stmt, doc);
      return;
    }
    const inner = unwrapAmbient(stmt);
    if (this.declare(stmt, inner, false, doc, overloads)) return;
    if (stmt.type === "import_statement") this.recordImport(stmt);
    this.addToGroup("block", stmt, doc);
  }

  /** Handles a declaration; false when the statement is not a declaration (it then joins a block group). */
  private declare(outer: SyntaxNode, decl: SyntaxNode, exported: boolean, doc: SyntaxNode[], overloads: SyntaxNode[], defaultName: string | null = null): boolean {
    switch (decl.type) {
      case "function_declaration":
      case "generator_function_declaration":
      case "function_signature":
      case "function_expression":
      case "function":
      case "generator_function":
      case "arrow_function":
        this.declareFunctionLike(outer, decl, exported, defaultName, doc, overloads);
        return true;
      case "class_declaration":
      case "abstract_class_declaration":
      case "class":
        this.declareClass(outer, decl, exported, doc, defaultName);
        return true;
      case "interface_declaration":
      case "type_alias_declaration": {
        const name = decl.childForFieldName("name")?.text ?? defaultName ?? DEFAULT_EXPORT_NAME;
        const body = decl.childForFieldName(decl.type === "interface_declaration" ? "body" : "value");
        this.flushGroup();
        const draft = this.addDraft(outer, decl.type === "interface_declaration" ? "interface" : "type", name, exported, doc);
        const sym = this.addSymbol(outer, decl.type === "interface_declaration" ? "interface" : "type", name, exported, doc, {
          signature: this.nodeText(outer),
          declaration: body ? this.slice(outer.startIndex, body.startIndex).trimEnd() : this.nodeText(outer),
          body: body ? this.nodeText(body) : "",
        });
        const members = body && (body.type === "interface_body" || body.type === "object_type") ? this.typeMembers(body, name, exported) : [];
        this.remember({ name, draft, symbol: sym, members });
        return true;
      }
      case "lexical_declaration":
      case "variable_declaration":
        this.declareVariables(outer, decl, exported, doc);
        return true;
      case "enum_declaration":
      case "internal_module":
      case "module": {
        const nameNode = decl.childForFieldName("name");
        if (!nameNode) return false;
        const name = nameNode.type === "string" ? stringValue(nameNode) : nameNode.text;
        const body = decl.childForFieldName("body");
        const kind: SymbolKind = decl.type === "enum_declaration" ? "enum" : "namespace";
        this.flushGroup();
        const draft = this.addDraft(outer, "block", name, exported, doc);
        const declaration = body ? this.slice(outer.startIndex, body.startIndex).trimEnd() : this.nodeText(outer);
        const sym = this.addSymbol(outer, kind, name, exported, doc, {
          signature: kind === "enum" ? this.nodeText(outer) : declaration,
          declaration,
          body: body ? this.nodeText(body) : "",
        });
        const ambient = outer.type === "ambient_declaration" || outer.namedChildren.some((c) => c.type === "ambient_declaration");
        const members = kind === "namespace" && body?.type === "statement_block" && nameNode.type !== "string" ? this.namespaceMembers(body, name, exported, ambient) : [];
        this.remember({ name, draft, symbol: sym, members });
        return true;
      }
      case "expression_statement": {
        const only = decl.namedChildCount === 1 ? decl.namedChild(0) : null;
        return only !== null && only.type === "internal_module" ? this.declare(outer, only, exported, doc, overloads) : false;
      }
      default:
        return false;
    }
  }

  private declareFunctionLike(outer: SyntaxNode, decl: SyntaxNode, exported: boolean, defaultName: string | null, doc: SyntaxNode[], overloads: SyntaxNode[]): void {
    const name = decl.childForFieldName("name")?.text ?? defaultName ?? DEFAULT_EXPORT_NAME;
    const body = decl.childForFieldName("body");
    const start = overloads[0] ?? outer;
    this.flushGroup();
    const draft = this.addDraft(outer, "function", name, exported, doc, start, body);
    const signatureEnd = body ? body.startIndex : outer.endIndex;
    // The signature (and so the declaration hash) spans every overload before the implementation.
    const sym = this.addSymbol(outer, "function", name, exported, doc, {
      signature: this.slice(start.startIndex, signatureEnd).trimEnd(),
      body: body ? this.nodeText(body) : "",
    });
    sym.line = start.startPosition.row + 1;
    this.setCallable(sym, decl);
    sym.returnType ??= this.overloadsReturn(overloads);
    this.remember({ name, draft, symbol: sym, members: [] });
  }

  /**
   * A function declared inside a function or method, as `outer.inner` (inside top-level code no
   * declaration names, by its own name): a symbol and a function chunk of its own, its lines also
   * in its container's chunk, so a search for its name answers with it.
   */
  private declareNested(fn: SyntaxNode, name: string, parent: string | null): void {
    const body = fn.childForFieldName("body");
    const doc = attachedDoc(this.commentsAbove(fn), fn);
    this.addDraft(fn, "function", name, false, doc, fn, body, parent);
    const sym = this.addSymbol(fn, "function", name, false, doc, {
      signature: this.slice(fn.startIndex, body ? body.startIndex : fn.endIndex).trimEnd(),
      body: body ? this.nodeText(body) : "",
    });
    if (parent !== null) sym.parent = parent;
    this.setCallable(sym, fn);
  }

  /** The comments right before a node among its siblings, in file order. */
  private commentsAbove(node: SyntaxNode): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    for (let c = node.previousNamedSibling; c !== null && c.type === "comment"; c = c.previousNamedSibling) out.unshift(c);
    return out;
  }

  private declareVariables(outer: SyntaxNode, decl: SyntaxNode, exported: boolean, doc: SyntaxNode[]): void {
    const declarators = decl.namedChildren.filter((c) => c.type === "variable_declarator");
    const named = declarators.filter((d) => d.childForFieldName("name")?.type === "identifier");
    const only = declarators.length === 1 ? named[0] : undefined;
    const onlyValue = only?.childForFieldName("value");
    this.flushGroup();
    if (only && onlyValue && FUNCTION_VALUES.has(onlyValue.type)) {
      // `const f = (...) => ...` is a function chunk named after the variable.
      const name = only.childForFieldName("name")!.text;
      const body = onlyValue.childForFieldName("body");
      const draft = this.addDraft(outer, "function", name, exported, doc, outer, body);
      const signatureEnd = body ? body.startIndex : outer.endIndex;
      const sym = this.addSymbol(outer, "function", name, exported, doc, {
        signature: this.slice(outer.startIndex, signatureEnd).trimEnd(),
        body: body ? this.nodeText(body) : "",
      });
      this.setCallable(sym, onlyValue);
      this.remember({ name, draft, symbol: sym, members: [] });
      return;
    }
    const isConst = decl.type === "lexical_declaration" && decl.child(0)?.type === "const";
    // A declaration of several names (or a destructuring) is an unnamed block; it is still exported
    // when it carries the `export` modifier (docs/extraction.md#exports-the-two-pass-walk).
    const draft = this.addDraft(outer, "block", only ? only.childForFieldName("name")!.text : null, exported, doc);
    for (const d of named) {
      const name = d.childForFieldName("name")!.text;
      const value = d.childForFieldName("value");
      const declaration = (this.keywordPrefix(outer, decl) + this.slice(d.startIndex, value ? value.startIndex : d.endIndex)).replace(/\s*=\s*$/, "").trimEnd();
      const sym = this.addSymbol(d, isConst ? "const" : "variable", name, exported, doc, { signature: declaration, body: value ? this.nodeText(value) : "" });
      sym.line = d.startPosition.row + 1;
      // A variable's type, where its declaration says it, in the column a function's return type uses:
      // `x.m()` in an importer links through it.
      sym.returnType = instanceType(d)?.type ?? null;
      this.remember({ name, draft, symbol: sym, members: [] });
    }
  }

  private keywordPrefix(outer: SyntaxNode, decl: SyntaxNode): string {
    const firstDeclarator = decl.namedChildren.find((c) => c.type === "variable_declarator");
    return firstDeclarator ? this.slice(outer.startIndex, firstDeclarator.startIndex) : "";
  }

  private declareClass(outer: SyntaxNode, decl: SyntaxNode, exported: boolean, doc: SyntaxNode[], defaultName: string | null): void {
    const className = decl.childForFieldName("name")?.text ?? defaultName ?? DEFAULT_EXPORT_NAME;
    const body = decl.childForFieldName("body");
    this.flushGroup();
    const header = this.slice(outer.startIndex, body ? body.startIndex : outer.endIndex).trimEnd();
    const shell = this.addDraft(outer, "class_shell", className, exported, doc, outer, body);
    const shellIndex = this.drafts.length - 1;
    const classSym = this.addSymbol(outer, "class", className, exported, doc, { signature: header, body: "" });
    const decl_: Decl = { name: className, draft: shell, symbol: classSym, members: [] };
    const parts: OutlinePart[] = [];
    let memberCount = 0;
    const exclusions: Array<[number, number]> = [];
    // What is not a member with a chunk of its own stays in the outline verbatim (`shellOutline`).
    const other = (from: SyntaxNode, to: SyntaxNode, summary?: string) =>
      parts.push({ startLine: from.startPosition.row + 1, endLine: endLineOf(to), from: from.startIndex, to: to.endIndex, ...(summary === undefined ? {} : { summary }) });
    if (body) {
      const members = body.namedChildren;
      let pendingDoc: SyntaxNode[] = [];
      let pendingDecorators: SyntaxNode[] = [];
      for (let i = 0; i < members.length; i++) {
        const m = members[i]!;
        if (m.type === "comment") {
          const last = pendingDoc[pendingDoc.length - 1];
          if (last && last.endPosition.row + 1 < m.startPosition.row) {
            for (const c of pendingDoc) other(c, c);
            pendingDoc = [];
          }
          pendingDoc.push(m);
          continue;
        }
        if (m.type === "decorator") {
          pendingDecorators.push(m);
          continue;
        }
        const start = pendingDecorators[0] ?? m;
        const memberDoc = attachedDoc(pendingDoc, start).filter(isDocComment);
        for (const c of pendingDoc.slice(0, pendingDoc.length - memberDoc.length)) other(c, c);
        pendingDoc = [];
        pendingDecorators = [];
        // Overload signatures merge into the implementation that ends their run (comments and the
        // implementation's decorators may sit between them): one member spanning from `start`.
        const impl = m.type === "method_signature" ? overloadImplementation(members, i) : -1;
        if (impl !== -1) i = impl;
        const last = members[i]!;
        const member = this.classMember(last, start, className, exported, memberDoc);
        const first = memberDoc[0] ?? start;
        if (!member) {
          other(first, last);
          continue;
        }
        const lineIndent = indentOf(this.lines[start.startPosition.row] ?? "");
        const sigLines = member.signature.split("\n");
        memberCount++;
        if (member.bodyRange) exclusions.push(member.bodyRange);
        if (member.member) {
          decl_.members.push(member.member);
          parts.push({
            startLine: first.startPosition.row + 1,
            endLine: endLineOf(last),
            from: first.startIndex,
            to: last.endIndex,
            signature: [...this.docLines(memberDoc), lineIndent + sigLines[0], ...sigLines.slice(1)],
          });
        } else other(first, last, lineIndent + sigLines[0]);
      }
      for (const n of [...pendingDoc, ...pendingDecorators]) other(n, n);
    }
    const outline = shellOutline(this.text, { from: (doc[0] ?? outer).startIndex, to: outer.endIndex, className }, parts);
    shell.synthesized = outline.text;
    classSym.hasBody = memberCount > 0;
    // In file order: the bag reads them in one forward pass.
    this.bagExclusions.set(
      shell,
      [...exclusions, ...outline.excluded].sort((a, b) => a[0] - b[0]),
    );
    // A long non-member's block sits among the class's method chunks in line order.
    const methods = this.drafts.splice(shellIndex + 1);
    this.drafts.push(...[...methods, ...outline.blocks].sort((a, b) => a.startLine - b.startLine));
    this.remember(decl_);
  }

  /**
   * The callable members of an interface or object type (`match(m: string): R`, `match: (m:
   * string) => R`) as `Type.member` method symbols, so they are addressable like class methods and
   * a call on a receiver of that type links to them. They have no chunks: the type's own chunk
   * holds them.
   */
  private typeMembers(body: SyntaxNode, typeName: string, exported: boolean): Member[] {
    const members: Member[] = [];
    for (const { node: m, doc } of withDocComments(body.namedChildren)) {
      const nameNode = m.childForFieldName("name");
      if (!nameNode || (nameNode.type !== "property_identifier" && nameNode.type !== "identifier")) continue;
      const annotation = m.type === "property_signature" ? (m.childForFieldName("type")?.namedChild(0) ?? null) : null;
      const callable = m.type === "method_signature" ? m : annotation !== null && annotation.type === "function_type" ? annotation : null;
      if (callable === null) continue;
      const signature = this.nodeText(m).replace(/[;,]$/, "");
      const sym = this.addSymbol(m, "method", `${typeName}.${nameNode.text}`, exported, doc, { signature, body: "" });
      sym.parent = typeName;
      this.setCallable(sym, callable);
      members.push({ draft: null, symbol: sym, isPrivate: false });
    }
    return members;
  }

  /**
   * The functions a namespace exports (`export namespace nls { export function localize() }`; in a
   * `declare namespace` every function) as `Ns.fn` symbols, so `nls.localize()` links to them as
   * `Type.m()` does — also when the namespace merges with an interface or class of its name. Each
   * has a function chunk of its own (its lines also in the namespace's), so a search for
   * `nls.localize` answers with it. Overloads are one symbol and one chunk, from the first.
   */
  private namespaceMembers(body: SyntaxNode, nsName: string, exported: boolean, ambient: boolean): Member[] {
    const byName = new Map<string, Member>();
    const spans = new Map<string, { first: SyntaxNode; last: SyntaxNode; doc: SyntaxNode[]; body: SyntaxNode | null }>();
    for (const { node: stmt, doc } of withDocComments(body.namedChildren)) {
      const isExport = stmt.type === "export_statement";
      if (!isExport && !ambient) continue;
      const decl = isExport ? stmt.childForFieldName("declaration") : stmt;
      if (!decl) continue;
      let fn: SyntaxNode | null = null;
      let name: string | undefined;
      if (decl.type === "function_declaration" || decl.type === "generator_function_declaration" || decl.type === "function_signature") {
        fn = decl;
        name = decl.childForFieldName("name")?.text;
      } else if (decl.type === "lexical_declaration" || decl.type === "variable_declaration") {
        const declarators = decl.namedChildren.filter((c) => c.type === "variable_declarator");
        const value = declarators.length === 1 ? declarators[0]!.childForFieldName("value") : null;
        if (value && FUNCTION_VALUES.has(value.type) && declarators[0]!.childForFieldName("name")?.type === "identifier") {
          fn = value;
          name = declarators[0]!.childForFieldName("name")!.text;
        }
      }
      if (!fn || !name) continue;
      const fnBody = fn.childForFieldName("body");
      const parts = {
        signature: this.slice(stmt.startIndex, fnBody ? fnBody.startIndex : stmt.endIndex)
          .trimEnd()
          .replace(/;$/, ""),
        body: fnBody ? this.nodeText(fnBody) : "",
      };
      const seen = byName.get(name);
      if (seen) {
        // The implementation after its overload signatures: its body, the first signature's line.
        if (fnBody) {
          seen.symbol.hasBody = true;
          seen.symbol.endLine = endLineOf(stmt);
          this.setCallable(seen.symbol, fn);
          const span = spans.get(name)!;
          span.last = stmt;
          span.body = fnBody;
        }
        continue;
      }
      const sym = this.addSymbol(stmt, "function", `${nsName}.${name}`, exported, doc, parts);
      sym.parent = nsName;
      this.setCallable(sym, fn);
      byName.set(name, { draft: null, symbol: sym, isPrivate: false });
      spans.set(name, { first: stmt, last: stmt, doc, body: fnBody });
    }
    for (const [name, span] of spans) this.addDraft(span.last, "function", `${nsName}.${name}`, exported, span.doc, span.first, span.body, nsName);
    return [...byName.values()];
  }

  /** One class member starting at `start` (its first decorator or overload): its outline signature, and for methods a chunk and a symbol. */
  private classMember(
    m: SyntaxNode,
    start: SyntaxNode,
    className: string,
    classExported: boolean,
    doc: SyntaxNode[],
  ): { signature: string; bodyRange: [number, number] | null; member: Member | null } | null {
    const nameNode = m.childForFieldName("name") ?? m.childForFieldName("property");
    const name = nameNode?.text ?? null;
    const isPrivate = nameNode?.type === "private_property_identifier" || m.namedChildren.some((c) => c.type === "accessibility_modifier" && c.text === "private");
    let body: SyntaxNode | null = null;
    let isMethod = false;
    switch (m.type) {
      case "method_definition":
        body = m.childForFieldName("body");
        isMethod = true;
        break;
      case "method_signature":
      case "abstract_method_signature":
        isMethod = true;
        break;
      case "public_field_definition":
      case "field_definition": {
        const value = m.childForFieldName("value");
        if (value && FUNCTION_VALUES.has(value.type)) {
          body = value.childForFieldName("body");
          isMethod = true;
        } else {
          const text = this.slice(start.startIndex, m.endIndex);
          const oneLine = !text.includes("\n") ? text : value ? `${this.slice(start.startIndex, value.startIndex).trimEnd()} …` : firstLine(text);
          const signature = oneLine.replace(/;$/, "") + ";";
          return { signature, bodyRange: null, member: null };
        }
        break;
      }
      case "class_static_block":
        // Not decomposed into a chunk, so its identifiers stay in the shell's bag (no body range).
        return { signature: "static { … }", bodyRange: null, member: null };
      default:
        return { signature: this.slice(start.startIndex, m.endIndex).trim().replace(/;$/, "") + ";", bodyRange: null, member: null };
    }
    if (!isMethod || name === null) return null;
    const signature = (body ? this.slice(start.startIndex, body.startIndex) : this.slice(start.startIndex, m.endIndex)).trimEnd().replace(/;$/, "") + ";";
    const qualified = `${className}.${name}`;
    const exported = classExported && !isPrivate;
    const draft = this.addDraft(m, "method", qualified, exported, doc, start, body, className);
    const sym = this.addSymbol(m, "method", qualified, exported, doc, {
      signature: signature.slice(0, -1),
      body: body ? this.nodeText(body) : "",
    });
    sym.parent = className;
    sym.line = start.startPosition.row + 1;
    const fieldValue = m.type === "public_field_definition" || m.type === "field_definition" ? m.childForFieldName("value") : null;
    this.setCallable(sym, fieldValue ?? m);
    const bodyRange: [number, number] | null = body ? [body.startIndex, body.endIndex] : null;
    return { signature, bodyRange, member: { draft, symbol: sym, isPrivate } };
  }

  // ---- imports ----

  private recordImport(stmt: SyntaxNode): void {
    const found = importOf(stmt);
    if (!found) return;
    this.imports.push(found.record);
    for (const [local, binding] of found.bindings) this.importBindings.set(local, binding);
  }

  private recordExportSource(stmt: SyntaxNode): void {
    const record = exportSourceOf(stmt);
    if (record) this.imports.push(record);
  }
}
