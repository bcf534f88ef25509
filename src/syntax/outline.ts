// The breadth extractor: runs a language's query file (lang/queries/<language>.scm) over its tree
// and turns the matches into chunks, symbols, imports and call sites, with the language's typed
// hooks (lang/outline.ts) where a query cannot say it. Definitions nest by position: one inside a
// class's `@members` is `Class.member`, one inside a function's `@body` is `function.inner`, and
// one inside a definition's other parts (a struct in a typedef) is a symbol of that definition's
// chunk. A class's chunk is an outline: its header, each member's first signature line and every
// other line of the body verbatim (fields, constants, sections, preprocessor lines). The comments
// directly above a definition are its doc; top-level code that declares nothing forms block chunks.
// Each call a query finds becomes a call site of the innermost definition around it: bare, `this`,
// or on a named type — and a bare call inside a class is `implicit`: its member if it has one,
// else the plain name (the linker decides). Where the parse broke, the matches are those
// outline-recovery.ts reads past the errors. Pure: a function of (path, text, options).
import { collapseWhitespace, firstLine, lineStarts } from "../base/text.js";
import type { Grammar } from "../lang/languages.js";
import { lastSegment, type OutlineSpec } from "../lang/outline.js";
import { parseFlatMatches, type FlatMatch, type FlatNode } from "./flat-tree.js";
import { shellOutline, type OutlinePart } from "./chunking.js";
import { linesOf, readPastErrors, type Span } from "./outline-recovery.js";
import { leadingComments, TreeExtractor, type MutableDraft, type MutableSymbol } from "./tree-extractor.js";
import type { CallReceiver, ChunkType, ExtractOptions, ExtractResult, FileExtraction, ParamRecord, SymbolKind } from "./types.js";

export function extractOutline(filePath: string, text: string, grammar: Grammar, language: string, spec: OutlineSpec, options: ExtractOptions): ExtractResult {
  const source = spec.normalize ? spec.normalize(text) : text;
  const query = spec.query.text();
  const parsed = parseFlatMatches(grammar, source, options.parseTimeoutMs, query);
  if (parsed === null) return { ok: false, error: `parse timed out after ${options.parseTimeoutMs} ms` };
  const { tree } = parsed;
  const { matches, recovered, unparsed } = readPastErrors(grammar, query, source, tree, parsed.matches, spec.preprocessor === true, options.parseTimeoutMs);
  const extraction = new OutlineExtractor(filePath, text, language, tree.rootNode, options, spec, matches, recovered).run();
  const spans = linesOf(source, unparsed);
  return { ok: true, extraction: spans.length > 0 ? { ...extraction, unparsedSpans: spans } : extraction };
}

/** What the query says about one definition. */
interface Definition {
  readonly node: FlatNode;
  readonly kind: string;
  name: FlatNode | null;
  /** `def Owner.m` (Ruby): the object the definition is made on. */
  owner: FlatNode | null;
  body: FlatNode | null;
  members: FlatNode | null;
  parameters: FlatNode | null;
  returns: FlatNode | null;
  readonly extends: FlatNode[];
  readonly implements: FlatNode[];
  readonly bases: FlatNode[];
  /** The extents of the node, its body and its members, once every match is read. */
  span: Span;
  bodySpan: Span | null;
  membersSpan: Span | null;
  /** The definition it sits in, and where: a member, inside a function body, or elsewhere in its node. */
  parent: Definition | null;
  role: "top" | "member" | "nested" | "part";
  /** Set once declared. */
  qualified?: string;
  exported?: boolean;
  symbol?: MutableSymbol;
  draft?: MutableDraft;
}

interface CallMatch {
  readonly name: FlatNode;
  /** Where the called name starts. */
  readonly at: number;
  readonly receiver: FlatNode | null;
  /** `@receiver.type`: the receiver is a type whatever it is named (`Type::m()`). */
  readonly typed: boolean;
  readonly isNew: boolean;
}

/** Where a call's caller is found: a function body, a class body or an inner scope (another `this`). */
interface Region {
  readonly start: number;
  readonly end: number;
  readonly caller: string | null;
  readonly owner: string | null;
  readonly inner: boolean;
}

/** `@definition.<kind>` → the symbol kind and chunk type. */
const KINDS = new Map<string, { kind: SymbolKind; chunk: ChunkType }>([
  ["function", { kind: "function", chunk: "function" }],
  ["method", { kind: "function", chunk: "function" }],
  ["constructor", { kind: "function", chunk: "function" }],
  ["prototype", { kind: "function", chunk: "function" }],
  ["macro_function", { kind: "function", chunk: "function" }],
  ["operator", { kind: "function", chunk: "function" }],
  ["class", { kind: "class", chunk: "class_shell" }],
  ["struct", { kind: "class", chunk: "class_shell" }],
  ["module", { kind: "class", chunk: "class_shell" }],
  ["trait", { kind: "class", chunk: "class_shell" }],
  ["record", { kind: "class", chunk: "class_shell" }],
  ["interface", { kind: "interface", chunk: "interface" }],
  ["annotation", { kind: "interface", chunk: "interface" }],
  ["enum", { kind: "enum", chunk: "type" }],
  ["type", { kind: "type", chunk: "type" }],
  ["macro", { kind: "const", chunk: "block" }],
]);

const key = (node: FlatNode) => `${node.startIndex}:${node.endIndex}:${node.typeId}`;
const spanOf = (node: FlatNode | null): Span | null => (node === null ? null : [node.startIndex, node.endIndex]);
const within = (inner: Span, outer: Span | null) => outer !== null && inner[0] >= outer[0] && inner[1] <= outer[1];

class OutlineExtractor extends TreeExtractor<FlatNode> {
  private readonly comments: ReadonlySet<string>;
  private readonly definitions: Definition[] = [];
  private readonly byNode = new Map<string, Definition>();
  private readonly callMatches: CallMatch[] = [];
  private readonly importMatches: FlatMatch[] = [];
  private readonly params = new Map<string, ParamRecord[]>();
  private readonly scopes: FlatNode[] = [];
  private readonly mixins: FlatMatch[] = [];
  private readonly seenCalls = new Set<number>();
  /** The file's package or namespace declaration's name. */
  private namespace: FlatNode | null = null;
  private readonly seenParams = new Set<string>();

  constructor(
    filePath: string,
    text: string,
    language: string,
    root: FlatNode,
    options: ExtractOptions,
    private readonly spec: OutlineSpec,
    matches: readonly FlatMatch[],
    /** Regions read from a view of the file: their definitions' nodes are not the tree's. */
    private readonly recovered: readonly Span[],
  ) {
    super(filePath, text, language, root, options);
    this.comments = new Set(spec.comments);
    this.read(matches);
    for (const def of this.definitions) {
      def.span = spanOf(def.node)!;
      def.bodySpan = spanOf(def.body);
      def.membersSpan = spanOf(def.members);
    }
    this.definitions.sort((a, b) => a.span[0] - b.span[0] || b.span[1] - a.span[1]);
  }

  run(): FileExtraction {
    this.collect(tokenSet(this.spec), NO_EVENTS);
    this.nest();
    for (const def of this.definitions) this.declare(def);
    this.outlines();
    this.blocks(this.root);
    this.flushBlock();
    this.recordImports();
    this.recordCalls();
    this.recordNamespaceNames();
    return this.finish();
  }

  // ---- the query's matches, sorted by what they say ----

  private read(matches: readonly FlatMatch[]): void {
    for (const match of matches) {
      const capture = (name: string) => match.captures.find((c) => c.name === name)?.node ?? null;
      const all = (name: string) => match.captures.filter((c) => c.name === name).map((c) => c.node);
      const head = match.captures.find(
        (c) =>
          c.name.startsWith("definition.") || c.name.startsWith("reference.") || c.name === "import" || c.name === "parameter" || c.name === "scope" || c.name === "mixin" || c.name === "namespace",
      );
      if (!head) continue;
      if (head.name.startsWith("definition.")) {
        const kind = head.name.slice("definition.".length);
        if (!KINDS.has(kind)) throw new Error(`unknown definition kind @${head.name} in the ${this.language} query`);
        const k = key(head.node);
        const had = this.byNode.get(k);
        // Two patterns matching one node (declarator shapes): the first names it, the others may add parts.
        const def: Definition = had ?? {
          node: head.node,
          span: [0, 0],
          bodySpan: null,
          membersSpan: null,
          kind,
          name: null,
          owner: null,
          body: null,
          members: null,
          parameters: null,
          returns: null,
          extends: [],
          implements: [],
          bases: [],
          parent: null,
          role: "top",
        };
        def.name ??= capture("name");
        def.owner ??= capture("owner");
        def.body ??= capture("body");
        def.members ??= capture("members");
        def.parameters ??= capture("parameters");
        def.returns ??= capture("returns");
        // A pattern matches once per base it captures: the lists gather every match's.
        for (const part of ["extends", "implements", "bases"] as const) {
          for (const n of all(part)) if (!def[part].some((d) => d.startIndex === n.startIndex)) def[part].push(n);
        }
        if (!had) {
          this.byNode.set(k, def);
          this.definitions.push(def);
        }
      } else if (head.name === "reference.call" || head.name === "reference.new") {
        const name = capture("name");
        const at = name?.startIndex ?? -1;
        if (!name || this.seenCalls.has(at)) continue;
        this.seenCalls.add(at);
        const typed = capture("receiver.type");
        this.callMatches.push({ name, at, receiver: typed ?? capture("receiver"), typed: typed !== null, isNew: head.name === "reference.new" });
      } else if (head.name === "import") this.importMatches.push(match);
      else if (head.name === "parameter") {
        const list = head.node.parent;
        const name = capture("parameter.name");
        if (!list || this.seenParams.has(key(head.node))) continue;
        this.seenParams.add(key(head.node));
        const k = key(list);
        const params = this.params.get(k) ?? [];
        const type = capture("parameter.type");
        const variadic = capture("parameter.variadic");
        // The name without a declarator's `*`/`&`; the type is the text from the type to the name (`char *` → `char*`, `String...`).
        const word = name === null ? -1 : name.text.search(/[A-Za-z_$]/);
        const nameText = name === null || word < 0 ? null : name.text.slice(word);
        const typeEnd = name !== null && type !== null && word >= 0 && name.startIndex >= type.endIndex ? name.startIndex + word : (type?.endIndex ?? 0);
        params.push({
          name: nameText ?? (variadic ? "..." : "_"),
          type: type === null ? null : collapseWhitespace(this.slice(type.startIndex, typeEnd)).replace(/\s+(?=[*&]|\.\.\.)/g, ""),
          optional: capture("parameter.optional") !== null || variadic !== null,
        });
        this.params.set(k, params);
      } else if (head.name === "scope") this.scopes.push(head.node);
      else if (head.name === "mixin") this.mixins.push(match);
      else if (head.name === "namespace") this.namespace ??= head.node;
    }
  }

  /** Each definition's parent (the innermost definition containing it) and its role there. */
  private nest(): void {
    const open: Definition[] = [];
    for (const def of this.definitions) {
      while (open.length > 0 && !within(def.span, open.at(-1)!.span)) open.pop();
      const parent = open.at(-1) ?? null;
      def.parent = parent;
      if (parent === null) def.role = "top";
      else if (within(def.span, parent.membersSpan)) def.role = "member";
      else if (within(def.span, parent.bodySpan)) def.role = "nested";
      else def.role = "part";
      open.push(def);
    }
  }

  // ---- declarations ----

  /** The declared name and the owner its qualified name says (`A::B::m` → B, or A.B with `scopes: "full"`). */
  private nameOf(def: Definition): { name: string; owner: string | null } | null {
    if (def.name === null) return null;
    // `(name)` (a macro-proof C declarator), template arguments and spaces (`operator ==`) dropped.
    const text = def.name.text
      .replace(/^\((.*)\)$/s, "$1")
      .replace(/(?<=\w)<[^<>]*(?:<[^<>]*>[^<>]*)*>(?=::|$)/g, "")
      .replace(/\s+/g, "");
    // A pointer or reference declarator (`(*handler)(int)`) declares a variable, not a function.
    if (text === "" || /^[*&]+\w/.test(text)) return null;
    const parts = text.split("::").filter((p) => p !== "");
    if (parts.length === 0) return null;
    const on = def.owner?.text.replace(/\s+/g, "");
    if (on !== undefined && on !== "" && !this.spec.selfReceivers.includes(on)) parts.unshift(...on.split("::"));
    let name = parts.pop()!;
    // `@definition.operator`'s name is the operator (`+`, `==`) or the type it converts to.
    if (def.kind === "operator" && !name.startsWith("operator")) name = `operator${/^\w/.test(name) ? " " : ""}${name}`;
    if (parts.length === 0) return { name, owner: null };
    return { name, owner: this.spec.scopes === "full" ? parts.join(".") : parts.at(-1)! };
  }

  private declare(def: Definition): void {
    const named = this.nameOf(def);
    if (named === null) return;
    const parent = def.parent;
    if (parent !== null && parent.qualified === undefined) return; // inside a definition that declared nothing
    if (def.role === "nested" && def.kind === "prototype") return; // a local declaration of a function declared elsewhere
    const { kind, chunk } = KINDS.get(def.kind)!;
    const prefix = parent === null ? named.owner : def.role === "part" ? (parent.parent?.qualified ?? named.owner) : [parent.qualified, named.owner].filter((p) => p !== null).join(".");
    const cls = prefix === "" ? null : prefix;
    const qualified = cls === null ? named.name : `${cls}.${named.name}`;
    const isMethod = cls !== null && kind === "function" && def.role !== "nested";
    const section = def.role === "member" ? this.sectionOf(def, parent!) : null;
    const ownerExported = def.role === "member" ? (parent!.exported ?? false) : def.role === "top" ? null : false;
    const exported = def.role === "nested" ? false : this.spec.exported(def.node, ownerExported, section, this.filePath);
    def.qualified = qualified;
    def.exported = exported;
    const doc = leadingComments(def.node, (n) => this.comments.has(n.type), stripComment);
    const body = def.body;
    const signatureEnd = def.members?.startIndex ?? body?.startIndex ?? def.node.endIndex;
    const whole = def.members === null && body === null && kind !== "function";
    const signature = this.slice(def.node.startIndex, whole ? def.node.endIndex : signatureEnd).trimEnd();
    const sym = this.addSymbol(
      def.node,
      isMethod ? "method" : kind,
      qualified,
      exported,
      doc?.text ?? null,
      signature.replace(/\s*[;{=]\s*$/, ""),
      body ? this.slice(body.startIndex, body.endIndex) : "",
    );
    def.symbol = sym;
    if (cls !== null) sym.parent = cls;
    if (def.parameters) sym.params = this.params.get(key(def.parameters)) ?? [];
    sym.returnType = def.returns === null ? null : collapseWhitespace(def.returns.text);
    const heritage = this.heritageOf(def);
    if (heritage.extends !== null || heritage.implements.length > 0) this.heritage.push({ className: qualified, line: def.node.startPosition.row + 1, ...heritage });
    // A part of another definition (the struct a typedef names) shares its chunk.
    if (def.role === "part") return;
    const draft: MutableDraft = {
      startLine: def.node.startPosition.row + 1,
      endLine: def.node.endPosition.row + 1,
      headerEndLine: (def.members ?? body ?? def.node).startPosition.row + 1,
      chunkType: isMethod ? "method" : chunk,
      symbolName: qualified,
      parentSymbol: cls,
      isExported: exported,
    };
    if (doc !== null) draft.docStartLine = doc.startLine;
    def.draft = draft;
    this.drafts.push(draft);
    if (def.members !== null) this.classes.push({ def, draft });
  }

  /** The access section a member sits in: the last section its parent's body opens before it. */
  private sectionOf(def: Definition, parent: Definition): string | null {
    const sections = this.spec.sections;
    if (!sections || parent.members === null) return null;
    let map = this.sectionMaps.get(parent);
    if (map === undefined) {
      map = new Map();
      this.sectionMaps.set(parent, map);
      this.walkSections(parent.members, sections.initial(parent.members), map, 0);
    }
    return map.get(def.span[0]) ?? null;
  }

  private readonly sectionMaps = new Map<Definition, Map<number, string>>();

  /**
   * One pass over a class body: the section each definition in it starts in, through containers
   * that are no definition (`#if`); one with sections of its own (Ruby's `class << self`) starts
   * in the initial section and leaves the body's as it was. Returns the section after `node`.
   */
  private walkSections(node: FlatNode, section: string, map: Map<number, string>, depth: number): string {
    const sections = this.spec.sections!;
    for (const child of node.namedChildren) {
      const [start, end] = spanOf(child)!;
      if (this.byNode.has(key(child))) {
        map.set(start, section);
        continue;
      }
      const opened = sections.opens(child);
      if (opened !== null) section = opened;
      else if (depth < 32 && this.startsWithin(start, end)) {
        if (sections.opensScope?.(child)) this.walkSections(child, sections.initial(child), map, depth + 1);
        else section = this.walkSections(child, section, map, depth + 1);
      }
    }
    return section;
  }

  /** Whether a definition starts in [start, end). */
  private startsWithin(start: number, end: number): boolean {
    const i = this.firstFrom(start);
    return i < this.definitions.length && this.definitions[i]!.span[0] < end;
  }

  /** The index of the first definition (in document order) starting at `start` or after. */
  private firstFrom(start: number): number {
    let lo = 0;
    let hi = this.definitions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.definitions[mid]!.span[0] < start) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private heritageOf(def: Definition): { extends: string | null; implements: string[] } {
    const clean = (n: FlatNode) => lastSegment(n.text);
    let ext = def.extends.map(clean)[0] ?? null;
    const impl = def.implements.map(clean);
    if (def.bases.length > 0) {
      const names = def.bases.map(clean);
      const split = this.spec.bases ? this.spec.bases(names, def.node) : { extends: names[0] ?? null, implements: names.slice(1) };
      ext ??= split.extends;
      impl.push(...split.implements);
    }
    // `include M` in a class body (a mixin match inside the members, not inside a member).
    for (const m of this.mixins) {
      const at = spanOf(m.captures[0]!.node)!;
      if (!within(at, def.membersSpan) || this.definitions.some((d) => d !== def && d.parent === def && within(at, d.span))) continue;
      impl.push(...m.captures.filter((c) => c.name === "implements").map((c) => clean(c.node)));
    }
    return { extends: ext, implements: impl };
  }

  private readonly classes: Array<{ def: Definition; draft: MutableDraft }> = [];

  /**
   * Each class's chunk, once every member is declared: chunking.ts's shell outline of its text —
   * each member by its first signature line (members have chunks of their own), every other line
   * verbatim, a non-member over OUTLINE_RUN_LINES lines (a static initializer) a block of its own.
   */
  private outlines(): void {
    const starts = this.classes.length > 0 ? lineStarts(this.text) : [];
    const lineOffset = (line: number) => starts[line - 1] ?? 0;
    for (const { def, draft } of this.classes) {
      const members = this.definitions.filter((d) => d.parent === def && d.role === "member" && d.draft !== undefined);
      const parts: OutlinePart[] = members.map((m) => {
        const first = m.draft!.docStartLine ?? m.draft!.startLine;
        const lineText = this.lines[m.draft!.startLine - 1] ?? "";
        return {
          startLine: first,
          endLine: m.draft!.endLine,
          from: Math.min(lineOffset(first), m.span[0]),
          to: m.span[1],
          signature: [lineText.match(/^\s*/)![0] + firstLine(m.symbol!.signature ?? lineText.trim())],
        };
      });
      // The body's other statements, through containers that hold members (`#if`, `class << self`): long ones become blocks.
      const stack: FlatNode[] = [def.members!];
      for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
        for (const child of node.namedChildren) {
          const span = spanOf(child)!;
          if (members.some((m) => m.span[0] === span[0] && m.span[1] === span[1])) continue;
          if (members.some((m) => within(m.span, span))) stack.push(child);
          else if (!this.comments.has(child.type)) parts.push({ startLine: child.startPosition.row + 1, endLine: child.endPosition.row + 1, from: span[0], to: span[1] });
        }
      }
      const from = draft.docStartLine === undefined ? def.span[0] : lineOffset(draft.docStartLine);
      const outline = shellOutline(this.text, { from, to: def.span[1], className: def.qualified! }, parts);
      draft.synthesized = outline.text;
      this.drafts.push(...outline.blocks);
      const bodies = members.filter((m) => m.bodySpan !== null).map((m): [number, number] => [m.bodySpan![0], m.bodySpan![1]]);
      this.exclusions.set(
        draft,
        [...bodies, ...outline.excluded].sort((a, b) => a[0] - b[0]),
      );
    }
  }

  /** Top-level code that declares nothing, in block chunks; containers holding definitions (namespaces, `#if`, `begin`) are read through. */
  private blocks(container: FlatNode): void {
    const stack: Array<{ node: FlatNode; next: number }> = [{ node: container, next: 0 }];
    while (stack.length > 0) {
      const top = stack.at(-1)!;
      const child = top.node.namedChild(top.next++);
      if (child === null) {
        stack.pop();
        continue;
      }
      if (this.comments.has(child.type)) continue;
      const def = this.byNode.get(key(child));
      if (def !== undefined) {
        if (def.draft !== undefined) this.flushBlock();
        else this.extendBlock(child);
        continue;
      }
      const span = spanOf(child)!;
      if (this.holdsDefinition(span)) {
        stack.push({ node: child, next: 0 });
        continue;
      }
      // A piece of a broken parse a recovered definition spans is in that definition's chunk.
      const recovered = this.recovered.some((r) => within(span, r)) && this.definitions.some((d) => d.draft !== undefined && d.role !== "member" && within(span, d.span));
      if (!recovered) this.extendBlock(child);
    }
  }

  /** Whether a definition with a chunk starts inside the node. */
  private holdsDefinition([start, end]: Span): boolean {
    for (let i = this.firstFrom(start); i < this.definitions.length && this.definitions[i]!.span[0] < end; i++) {
      if (this.definitions[i]!.draft !== undefined) return true;
    }
    return false;
  }

  // ---- imports and calls ----

  private recordImports(): void {
    for (const match of this.importMatches) {
      const capture = (name: string) => match.captures.find((c) => c.name === name)?.node ?? null;
      const relative = capture("import.relative");
      const moduleNode = relative ?? capture("import.module");
      if (!moduleNode) continue;
      let module = moduleNode.text.replace(/^\\/, "");
      if (relative) module = `./${module.replace(/^\.?\/+/, "")}`;
      else if (/^".*"$|^'.*'$/s.test(module)) module = module.slice(1, -1);
      const glob = capture("import.glob") !== null;
      const named = match.captures.filter((c) => c.name === "import.name").map((c) => c.node.text);
      const bind = capture("import.bind") !== null;
      const alias = capture("import.alias")?.text ?? null;
      let names: string[];
      let locals: string[];
      if (glob) [names, locals] = [["*"], []];
      else if (named.length > 0) [names, locals] = [named, named];
      else if (bind) {
        const last = module.split(/::|\.|\\/).pop()!;
        [names, locals] = [[last], [alias ?? last]];
      } else [names, locals] = [[], []];
      // An import of every name without a binding (`#include`, `require`) is transitive in these
      // languages: what the target brings in comes with it (an export_star).
      const star = names.length === 1 && names[0] === "*" && locals.length === 0;
      this.imports.push({ module, names, locals, kind: star ? "export_star" : "import", line: match.captures[0]!.node.startPosition.row + 1 });
    }
  }

  /** Types the calls name unqualified that the file neither declares nor imports by name: its own namespace's or a whole-namespace import's, if anyone's (ImportKind `namespace`). */
  private recordNamespaceNames(): void {
    const separator = this.spec.namespaceSeparator;
    if (separator === undefined || this.namespace === null) return;
    const declared = new Set(this.symbols.map((s) => s.name.slice(s.name.lastIndexOf(".") + 1)));
    const bound = new Set(this.imports.flatMap((i) => i.locals));
    const named = new Set<string>();
    for (const c of this.calls) {
      const type = c.receiver.kind === "static" ? c.receiver.className : c.isNew && c.receiver.kind === "bare" ? c.callee : null;
      if (type !== null && /^[A-Z]\w*$/.test(type) && !declared.has(type) && !bound.has(type)) named.add(type);
    }
    // The file's own namespace first, then the namespaces it imports whole (Java's `import a.b.*`):
    // the first that resolves binds, as the language looks them up.
    const spaces = [
      { name: this.namespace.text.replace(/\s+/g, "").replace(/^\\/, ""), line: this.namespace.startPosition.row + 1 },
      ...this.imports.filter((i) => i.kind === "export_star" && i.names[0] === "*").map((i) => ({ name: i.module, line: i.line })),
    ];
    for (const name of [...named].sort()) {
      for (const ns of spaces) this.imports.push({ module: `${ns.name}${separator}${name}`, names: [name], locals: [name], kind: "namespace", line: ns.line });
    }
  }

  private recordCalls(): void {
    const regions: Region[] = [];
    for (const def of this.definitions) {
      if (def.qualified === undefined) continue;
      const isFunction = KINDS.get(def.kind)!.kind === "function";
      const owner = def.role === "nested" ? null : (def.symbol?.parent ?? null);
      if (isFunction && def.bodySpan) regions.push({ start: def.bodySpan[0], end: def.bodySpan[1], caller: def.qualified, owner, inner: false });
      // Field initialisers and other statements of a class body: their calls are the class's.
      if (def.membersSpan) regions.push({ start: def.membersSpan[0], end: def.membersSpan[1], caller: def.qualified, owner: def.qualified, inner: false });
    }
    for (const s of this.scopes) regions.push({ start: s.startIndex, end: s.endIndex, caller: null, owner: null, inner: true });
    regions.sort((a, b) => a.start - b.start || b.end - a.end);
    const calls = [...this.callMatches].sort((a, b) => a.at - b.at);
    const open: Region[] = [];
    let next = 0;
    const self = new Set(this.spec.selfReceivers);
    for (const call of calls) {
      const at = call.at;
      while (next < regions.length && regions[next]!.start <= at) {
        const r = regions[next++]!;
        while (open.length > 0 && open.at(-1)!.end <= r.start) open.pop();
        open.push(r);
      }
      while (open.length > 0 && open.at(-1)!.end <= at) open.pop();
      // An inner scope (an anonymous class) between the call and its function: another `this`.
      let nested = false;
      let region: Region | null = null;
      for (let i = open.length - 1; i >= 0; i--) {
        const r = open[i]!;
        if (r.end <= at) continue;
        if (r.inner) nested = true;
        else {
          region = r;
          break;
        }
      }
      const caller = region?.caller ?? null;
      const owner = region?.owner ?? null;
      let receiver: CallReceiver;
      const recv = call.receiver;
      if (recv !== null) {
        const className = lastSegment(recv.text);
        if (self.has(recv.text) || self.has(className) || className === "") {
          if (owner === null || nested) continue;
          receiver = { kind: "this", className: owner };
        } else if (call.typed || /^[A-Z]\w*(?:::[A-Z]\w*)*$/.test(recv.text.replace(/<.*$/s, ""))) receiver = { kind: "static", className };
        else continue; // a receiver the query cannot name: potential only
      } else if (!call.isNew && owner !== null && this.spec.implicitMembers) {
        if (nested) continue;
        receiver = { kind: "implicit", className: owner };
      } else receiver = { kind: "bare" };
      this.addCall(caller, call.name.text, receiver, call.isNew, call.name);
    }
  }
}

const TOKEN_SETS = new WeakMap<OutlineSpec, ReadonlySet<string>>();
const tokenSet = (spec: OutlineSpec) => TOKEN_SETS.get(spec) ?? TOKEN_SETS.set(spec, new Set(spec.tokens)).get(spec)!;
const NO_EVENTS: ReadonlySet<string> = new Set();

function stripComment(text: string): string {
  return text
    .replace(/^\/\*\*?\s?|\s*\*\/$/g, "")
    .split("\n")
    .map((l) => l.replace(/^\s*(?:\/\/\/?|#|\*)\s?/, ""))
    .join("\n")
    .trim();
}
