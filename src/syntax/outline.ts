// The breadth extractor: runs a language's outline rules (lang/outline.ts) over its tree. Every
// declaration the rules name becomes a chunk and a symbol (members of a class as `Class.member`,
// a class as an outline of its members' signatures), the comments directly above it its doc;
// the rest of the top level forms block chunks; imports come from the rules; each call the rules
// read becomes a call site: bare, `this`, or on a named type — and a bare call inside a class is
// `implicit`: its member if it has one, else the plain name (the linker decides). Pure: a function of (path, text, options).
import { collapseWhitespace, firstLine } from "../base/text.js";
import type { DeclarationRule, OutlineRules } from "../lang/outline.js";
import { field, parseSource, type SyntaxNode } from "./parser.js";
import { leadingComments, TreeExtractor, type MutableDraft } from "./tree-extractor.js";
import type { CallReceiver, ExtractOptions, ExtractResult, FileExtraction } from "./types.js";

/** Containers nested deeper than this (namespaces in namespaces, classes in classes) are not descended. */
const MAX_DEPTH = 32;

export function extractOutline(filePath: string, text: string, grammar: string, language: string, rules: OutlineRules, options: ExtractOptions): ExtractResult {
  const tree = parseSource(grammar, text, options.parseTimeoutMs);
  if (tree === null) return { ok: false, error: `parse timed out after ${options.parseTimeoutMs} ms` };
  return { ok: true, extraction: new OutlineExtractor(filePath, text, language, tree.rootNode, options, rules).run() };
}

interface Pending {
  /** A function-like declaration whose body's calls are read once every declaration is known. */
  readonly body: SyntaxNode;
  readonly caller: string;
  readonly owner: string | null;
}

class OutlineExtractor extends TreeExtractor {
  private readonly pending: Pending[] = [];
  /** Top-level statements that are not declarations: their calls are the module's. */
  private readonly topLevel: SyntaxNode[] = [];
  private readonly comments: ReadonlySet<string>;
  private readonly ignored: ReadonlySet<string>;
  private readonly innerScopes: ReadonlySet<string>;

  constructor(
    filePath: string,
    text: string,
    language: string,
    root: SyntaxNode,
    options: ExtractOptions,
    private readonly rules: OutlineRules,
  ) {
    super(filePath, text, language, root, options);
    this.comments = new Set(rules.comments);
    this.ignored = new Set(rules.ignored ?? []);
    this.innerScopes = new Set(rules.innerScopes ?? []);
  }

  run(): FileExtraction {
    this.collect(new Set(this.rules.tokens), new Set([...Object.keys(this.rules.calls), ...this.innerScopes]));
    // An explicit stack of containers, not recursion: (node, owner class, its exportedness, depth).
    this.declareLevel(this.root, 0);
    this.flushBlock();
    for (const p of this.pending) this.recordCalls(p.body, p.caller, p.owner);
    for (const node of this.topLevel) this.recordCalls(node, null, null);
    return this.finish();
  }

  /** The children of a top-level container: declarations, transparent containers read in place, the rest grouped into blocks. */
  private declareLevel(container: SyntaxNode, depth: number): void {
    for (const node of container.namedChildren) {
      if (this.comments.has(node.type) || this.ignored.has(node.type)) continue;
      const through = this.rules.transparent[node.type];
      if (through !== undefined && depth < MAX_DEPTH) {
        const inner = through === null ? node : field(node, through);
        if (inner) {
          this.declareLevel(inner, depth + 1);
          continue;
        }
      }
      const rule = this.rules.declarations[node.type];
      if (rule && this.declare(node, rule, null, null, depth)) {
        this.flushBlock();
        continue;
      }
      const imports = this.rules.imports(node);
      // An import of every name without a binding (`#include`, `require`) is transitive in these
      // languages: what the target brings in comes with it (an export_star).
      for (const i of imports ?? []) {
        const glob = i.names.length === 1 && i.names[0] === "*" && i.locals.length === 0;
        this.imports.push({ module: i.module, names: [...i.names], locals: [...i.locals], kind: glob ? "export_star" : "import", line: node.startPosition.row + 1 });
      }
      this.topLevel.push(node);
      this.extendBlock(node);
    }
  }

  /**
   * One declaration (and, for a class, its members); false when the rule finds it declares
   * nothing. `owner`: the class it is a member of, with that class's exportedness.
   */
  private declare(node: SyntaxNode, rule: DeclarationRule, owner: string | null, ownerExported: boolean | null, depth: number, section: string | null = null): boolean {
    const named = rule.name(node);
    if (named === null || named.name === "") return false;
    const cls = owner ?? named.owner ?? null;
    const qualified = cls === null ? named.name : `${cls}.${named.name}`;
    const isMethod = cls !== null && rule.kind === "function";
    const exported = this.rules.exported(node, owner === null ? null : ownerExported, section);
    const body = rule.body ? field(node, rule.body) : null;
    const doc = leadingComments(node, (n) => this.comments.has(n.type), stripComment);
    const draft: MutableDraft = {
      startLine: node.startPosition.row + 1,
      endLine: node.endPosition.row + 1,
      headerEndLine: (body ?? node).startPosition.row + 1,
      chunkType: isMethod ? "method" : rule.chunk,
      symbolName: qualified,
      parentSymbol: cls,
      isExported: exported,
    };
    if (doc !== null) draft.docStartLine = doc.startLine;
    this.drafts.push(draft);
    const header = this.slice(node.startIndex, body ? body.startIndex : node.endIndex).trimEnd();
    const membersNode = rule.members ? field(node, rule.members) : null;
    // A class's signature is its header before the members; a function's, before its body; anything else is whole.
    const signature = membersNode ? this.slice(node.startIndex, membersNode.startIndex).trimEnd() : rule.body !== undefined || rule.kind === "function" ? header : this.slice(node.startIndex, node.endIndex);
    const sym = this.addSymbol(node, isMethod ? "method" : rule.kind, qualified, exported, doc?.text ?? null, signature.replace(/\s*[;{=]\s*$/, ""), body ? this.slice(body.startIndex, body.endIndex) : "");
    if (cls !== null) sym.parent = cls;
    if (rule.params) sym.params = rule.params(node);
    const returns = rule.returnType?.(node) ?? null;
    sym.returnType = returns === null ? null : collapseWhitespace(returns);
    if (rule.heritage) {
      const h = rule.heritage(node);
      if (h.extends !== null || h.implements.length > 0) this.heritage.push({ className: qualified, line: node.startPosition.row + 1, extends: h.extends, implements: h.implements });
    }
    if (body && rule.kind === "function") this.pending.push({ body, caller: qualified, owner: cls });
    if (membersNode && depth < MAX_DEPTH) this.declareMembers(node, membersNode, draft, qualified, exported, signature, depth + 1);
    return true;
  }

  /** A class body: its member declarations, and an outline of them (header, each member's first signature line, the closing line) as the class's chunk. */
  private declareMembers(node: SyntaxNode, members: SyntaxNode, draft: MutableDraft, cls: string, exported: boolean, header: string, depth: number): void {
    const outline = [members.text.startsWith("{") ? `${header} {` : header];
    const bodies: Array<[number, number]> = [];
    const list: SyntaxNode[] = [];
    // Members can sit inside transparent wrappers (a Java enum's declarations, C++ templates).
    const stack: Array<[SyntaxNode, number]> = [[members, depth]];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      for (const child of top[0].namedChildren) {
        const through = this.rules.transparent[child.type];
        const inner = through === undefined ? null : through === null ? child : field(child, through);
        if (inner && top[1] < MAX_DEPTH) stack.push([inner, top[1] + 1]);
        else list.push(child);
      }
    }
    list.sort((a, b) => a.startIndex - b.startIndex);
    let section = this.rules.sections?.initial(members) ?? null;
    for (const member of list) {
      const opened = this.rules.sections?.opens(member) ?? null;
      if (opened !== null) section = opened;
      const rule = this.rules.declarations[member.type];
      const at = this.symbols.length;
      if (!rule || !this.declare(member, rule, cls, exported, depth, section)) {
        // Field initialisers and other statements of the body: their calls are the class's.
        if (!this.comments.has(member.type)) this.pending.push({ body: member, caller: cls, owner: cls });
        continue;
      }
      // The member's own symbol (a nested class's members come after it).
      const sym = this.symbols[at]!;
      outline.push(" ".repeat(member.startPosition.column) + firstLine(sym.signature ?? member.text));
      const body = rule.body ? field(member, rule.body) : null;
      if (body) bodies.push([body.startIndex, body.endIndex]);
    }
    const closing = node.text.split("\n").at(-1)!.trim();
    if (closing === "}" || closing === "};" || closing === "end") outline.push(" ".repeat(node.startPosition.column) + closing);
    draft.synthesized = outline.join("\n");
    this.exclusions.set(draft, bodies);
  }

  // ---- calls ----

  private recordCalls(node: SyntaxNode, caller: string | null, owner: string | null): void {
    const inner = this.innerScopes;
    // Where the anonymous or local classes inside `node` end: inside one, `this` is another object.
    const scopes: number[] = [];
    for (const { start, node: call } of this.eventsIn(node.startIndex, node.endIndex)) {
      while (scopes.length > 0 && start >= scopes.at(-1)!) scopes.pop();
      if (inner.has(call.type)) {
        if (call.startIndex > node.startIndex) scopes.push(call.endIndex);
        if (!this.rules.calls[call.type]) continue;
      }
      const shape = this.rules.calls[call.type]?.(call);
      if (!shape) continue;
      const name = shape.name as SyntaxNode;
      const nested = scopes.length > 0;
      let receiver: CallReceiver;
      if (shape.receiver.kind === "this") {
        if (owner === null || nested) continue;
        receiver = { kind: "this", className: owner };
      } else if (shape.receiver.kind === "static") receiver = { kind: "static", className: shape.receiver.className };
      else if (!shape.isNew && owner !== null && this.rules.implicitMembers) {
        if (nested) continue;
        receiver = { kind: "implicit", className: owner };
      } else receiver = { kind: "bare" };
      this.addCall(caller, name.text, receiver, shape.isNew === true, name);
    }
  }
}

function stripComment(text: string): string {
  return text
    .replace(/^\/\*\*?\s?|\s*\*\/$/g, "")
    .split("\n")
    .map((l) => l.replace(/^\s*(?:\/\/\/?|#|\*)\s?/, ""))
    .join("\n")
    .trim();
}
