// What every tree-walking extractor but ECMAScript's shares (Python, Go, Rust, and the query-driven
// breadth extractor): one pass over the flat tree that gathers identifier tokens (the chunks'
// identifier bags) and the nodes later passes read by position (calls, assignments, bindings), the symbol/chunk/call records being built, and the
// final assembly into a FileExtraction. Each language's extractor subclasses it and supplies the
// declarations; none scans the tree a second time.
import { lineStarts, splitLines } from "../base/text.js";
import { materializeChunks, type ChunkDraft } from "./chunking.js";
import { FlatNode, type GrammarNames, type SyntaxNode } from "./flat-tree.js";
import { moduleSymbol, symbolRecord, type CallReceiver, type CallSite, type ClassHeritage, type ExtractOptions, type FileExtraction, type ImportRecord, type SymbolRecord } from "./types.js";

/** What a local is known to hold: a named type, or what a call returns (the receivers the call pass types). */
export type Known = Extract<CallReceiver, { kind: "typed" } | { kind: "returned" } | { kind: "fixture" }>;

/**
 * One binding of a local, read in document order: a binding that agrees with what `name` already
 * holds keeps it; a binding to anything else (`known` null: unknown) takes it away for the rest of
 * the function — scopes are not modelled, so shadowing costs recall, never precision.
 */
export function bindLocal(types: Map<string, Known>, poisoned: Set<string>, name: string, known: Known | null): void {
  if (poisoned.has(name)) return;
  const had = types.get(name);
  if (known !== null && had === undefined) types.set(name, known);
  // The same type however it was learnt (`x := &T{}`, then a literal's parameter `x *T`) is kept.
  else if (!(known !== null && had !== undefined && (JSON.stringify(had) === JSON.stringify(known) || (had.kind === "typed" && known.kind === "typed" && had.typeName === known.typeName)))) {
    types.delete(name);
    poisoned.add(name);
  }
}

export type MutableSymbol = { -readonly [K in keyof SymbolRecord]: SymbolRecord[K] };
export type MutableDraft = { -readonly [K in keyof ChunkDraft]: ChunkDraft[K] };

/** A node a later pass reads, by where it starts. */
export interface NodeEvent {
  readonly start: number;
  readonly node: SyntaxNode;
}

const ScanKind = { Other: 0, Token: 1, Event: 2 } as const;
type ScanKind = (typeof ScanKind)[keyof typeof ScanKind];

/** Per extractor (keyed by its token set) and grammar (by its names): each type id's kind, filled as ids are first seen. */
const SCAN_KINDS = new WeakMap<ReadonlySet<string>, WeakMap<GrammarNames, ScanKind[]>>();

export abstract class TreeExtractor<Node extends SyntaxNode = SyntaxNode> {
  protected readonly lines: string[];
  protected readonly drafts: MutableDraft[] = [];
  protected readonly symbols: MutableSymbol[] = [];
  protected readonly imports: ImportRecord[] = [];
  protected readonly calls: CallSite[] = [];
  protected readonly heritage: ClassHeritage[] = [];
  /** Character ranges left out of a draft's identifier bag (a class outline's method bodies, which have chunks of their own). */
  protected readonly exclusions = new Map<ChunkDraft, Array<[number, number]>>();
  /** Identifier tokens in document order (start offset, text). */
  private readonly tokens: Array<[number, string]> = [];
  /** The nodes of `eventTypes` in document order (a node before the nodes inside it). */
  private readonly events: NodeEvent[] = [];
  /** The open block: consecutive top-level nodes that declare nothing share one block chunk. */
  private block: { start: SyntaxNode; end: SyntaxNode } | null = null;

  constructor(
    protected readonly filePath: string,
    protected readonly text: string,
    protected readonly language: string,
    protected readonly root: Node,
    protected readonly options: ExtractOptions,
  ) {
    this.lines = splitLines(text);
  }

  /** One pass over the flat tree's nodes: tokens of `tokenTypes`, and nodes of `eventTypes` for `eventsIn` (a node object built only for an event). */
  protected collect(tokenTypes: ReadonlySet<string>, eventTypes: ReadonlySet<string>): void {
    if (!(this.root instanceof FlatNode)) throw new Error("collect() reads a flat tree");
    const tree = this.root.tree;
    let byGrammar = SCAN_KINDS.get(tokenTypes);
    if (byGrammar === undefined) SCAN_KINDS.set(tokenTypes, (byGrammar = new WeakMap()));
    let kinds = byGrammar.get(tree.names);
    if (kinds === undefined) byGrammar.set(tree.names, (kinds = []));
    for (let i = 0; i < tree.length; i++) {
      const typeId = tree.typeId(i);
      let kind = kinds[typeId];
      if (kind === undefined) {
        const type = tree.typeName(typeId);
        kind = kinds[typeId] = tokenTypes.has(type) ? ScanKind.Token : eventTypes.has(type) ? ScanKind.Event : ScanKind.Other;
      }
      if (kind === ScanKind.Other) continue;
      const start = tree.start(i);
      if (kind === ScanKind.Token) {
        const end = tree.end(i);
        if (end > start) this.tokens.push([start, this.text.slice(start, end)]);
      } else this.events.push({ start, node: tree.node(i) });
    }
  }

  /** The collected nodes that start in [from, to), in document order. */
  protected eventsIn(from: number, to: number): NodeEvent[] {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid]!.start < from) lo = mid + 1;
      else hi = mid;
    }
    const out: NodeEvent[] = [];
    for (let i = lo; i < this.events.length && this.events[i]!.start < to; i++) out.push(this.events[i]!);
    return out;
  }

  private bag(draft: ChunkDraft, from: number, to: number): string[] {
    const out = new Set<string>();
    const skip = this.exclusions.get(draft) ?? [];
    let lo = 0;
    let hi = this.tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tokens[mid]![0] < from) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.tokens.length; i++) {
      const [at, name] = this.tokens[i]!;
      if (at >= to) break;
      if (skip.length > 0 && skip.some(([s, e]) => at >= s && at < e)) continue;
      out.add(name);
    }
    return [...out];
  }

  /** Adds a top-level node that declares nothing to the open block chunk. */
  protected extendBlock(node: SyntaxNode): void {
    this.block = this.block === null ? { start: node, end: node } : { start: this.block.start, end: node };
  }

  /** Closes the open block chunk (a declaration ends it). */
  protected flushBlock(): void {
    if (this.block === null) return;
    const { start, end } = this.block;
    this.block = null;
    this.drafts.push({ startLine: start.startPosition.row + 1, endLine: end.endPosition.row + 1, chunkType: "block", symbolName: null, parentSymbol: null, isExported: false });
  }

  /** A symbol spanning `node`, with its signature, and whether it has a body. */
  protected addSymbol(node: SyntaxNode, kind: MutableSymbol["kind"], name: string, isExported: boolean, doc: string | null, signature: string, body: string): MutableSymbol {
    const sym: MutableSymbol = { ...symbolRecord(name, kind, node.startPosition.row + 1, node.endPosition.row + 1, isExported, { signature, doc, hasBody: body !== "" }) };
    this.symbols.push(sym);
    return sym;
  }

  /** A call site; `name` is the called name's node (the site's line is where the name is written, as in a text search). */
  protected addCall(caller: string | null, callee: string, receiver: CallReceiver, isNew: boolean, name: SyntaxNode): void {
    const line = name.startPosition.row + 1;
    this.calls.push({ caller, callee, receiver, isNew, line });
  }

  protected slice(from: number, to: number): string {
    return this.text.slice(from, to);
  }

  /** The records gathered, as the file's extraction (with a module symbol when top-level code calls). */
  protected finish(): FileExtraction {
    if (this.calls.some((c) => c.caller === null)) this.symbols.push(moduleSymbol(this.lines.length));
    this.drafts.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
    const chunks = materializeChunks(this.filePath, { text: this.text, lines: this.lines, lineStarts: lineStarts(this.text) }, this.drafts, {
      chunkSplitThreshold: this.options.chunkSplitThreshold,
      contextLines: this.options.contextLines,
      identifiers: (draft, from, to) => this.bag(draft, from, to),
    });
    return {
      language: this.language,
      chunks,
      symbols: this.symbols,
      imports: this.imports,
      calls: this.calls,
      heritage: this.heritage,
      lineCount: this.lines.length,
      hasSyntaxErrors: this.root.hasError,
    };
  }
}

/**
 * The comments directly above `node` (no blank line between): their text with the markers
 * stripped, and the line the first of them starts on (1-based); null when there are none.
 */
export function leadingComments(node: SyntaxNode, isComment: (n: SyntaxNode) => boolean, strip: (text: string) => string): { text: string; startLine: number } | null {
  const parts: string[] = [];
  let next = node;
  for (let prev = node.previousNamedSibling; prev && isComment(prev) && prev.endPosition.row >= next.startPosition.row - 1; prev = prev.previousNamedSibling) {
    parts.unshift(strip(prev.text));
    next = prev;
  }
  const doc = parts.join("\n").trim();
  return doc === "" ? null : { text: doc, startLine: next.startPosition.row + 1 };
}
