// The flat syntax tree the extractors read: a whole tree as one Uint32Array (FLAT_WORDS words a
// node, in document order), made by mast's native addon in one call per file (native/flat_tree.c,
// loaded by base/native.ts) or, where the addon did not build, by a walk of tree-sitter's own
// tree (`flatWords`). Its nodes answer the subset of tree-sitter's SyntaxNode the
// extractors use from those integers, without a call into native code (docs/decisions.md "Native
// flat trees"). `SyntaxNode` is that subset: tree-sitter's own nodes satisfy it too. A query
// (the breadth languages' query files) runs in the same call: its matches name flat nodes, and its
// text predicates (`#eq?`, `#match?`, `#any-of?` and their negations) are applied here, as
// tree-sitter's binding applies them.
import { nativeAddon } from "../base/native.js";
import { grammarLoader, type Grammar } from "../lang/languages.js";
import { parseSource, parseTime, queryMatches, type Tree } from "./parser.js";

/** Words per node, and what each holds (the layout native/flat_tree.c writes). */
const FLAT_WORDS = 10;
const W_SYMBOL_FIELD = 0; // symbol (alias when aliased) | field id << 16
const W_FLAGS = 1;
const W_START = 2; // UTF-16 code units, as SyntaxNode.startIndex
const W_END = 3;
const W_START_ROW = 4;
const W_START_COLUMN = 5; // UTF-16 code units
const W_END_ROW = 6;
const W_END_COLUMN = 7;
const W_PARENT = 8; // NO_PARENT for the root
const W_SUBTREE_END = 9; // the index after the node's last descendant
const FLAG = { named: 1, missing: 2, hasError: 8, error: 16 } as const;
const NO_PARENT = 0xffffffff;
const ERROR_SYMBOL = 0xffff;

export interface Point {
  readonly row: number;
  readonly column: number;
}

/** The part of tree-sitter's SyntaxNode the extractors use; a flat node and a binding node both are one. */
export interface SyntaxNode {
  /** Identity within its tree (never compare nodes with `===`: the binding may hand out two objects for one node). */
  readonly id: number;
  readonly typeId: number;
  readonly type: string;
  readonly isNamed: boolean;
  readonly isMissing: boolean;
  readonly hasError: boolean;
  readonly text: string;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly startPosition: Point;
  readonly endPosition: Point;
  readonly parent: SyntaxNode | null;
  readonly children: SyntaxNode[];
  childrenForFieldName(name: string): SyntaxNode[];
  readonly namedChildren: SyntaxNode[];
  readonly childCount: number;
  readonly namedChildCount: number;
  readonly firstChild: SyntaxNode | null;
  readonly firstNamedChild: SyntaxNode | null;
  readonly previousNamedSibling: SyntaxNode | null;
  child(index: number): SyntaxNode | null;
  namedChild(index: number): SyntaxNode | null;
  childForFieldName(name: string): SyntaxNode | null;
  fieldNameForChild(index: number): string | null;
  descendantsOfType(types: string | string[]): SyntaxNode[];
  descendantForIndex(start: number, end?: number): SyntaxNode;
}

/** A grammar's symbol names by symbol id, field names by field id and field ids by name (filled as trees are walked where the addon is absent). */
export interface GrammarNames {
  readonly symbols: string[];
  readonly fields: Array<string | null>;
  readonly fieldIds: Map<string, number>;
}

/** A query compiled by the addon: its handle, capture and string names by id, each pattern's predicate steps as [type, value id] pairs. */
interface NativeQuery {
  readonly handle: unknown;
  readonly captures: string[];
  readonly strings: string[];
  readonly predicates: Uint32Array[];
}

interface NativeAddon {
  parse(language: unknown, text: string, timeoutMs: number): Uint32Array | null;
  parse(language: unknown, text: string, timeoutMs: number, query: unknown): [Uint32Array, Uint32Array] | null;
  query(language: unknown, source: string): NativeQuery;
  names(language: unknown): [string[], Array<string | null>];
  FLAT_WORDS: number;
}

/** The addon's tree half, or null where it did not build (or was built for another layout). */
const addon = nativeAddon?.FLAT_WORDS === FLAT_WORDS ? (nativeAddon as unknown as NativeAddon) : null;

/** Which producer makes flat trees in this process: the addon, or a walk of the binding's tree. */
export const flatTreeProducer: "native" | "binding" = addon ? "native" : "binding";

const NAMES = new Map<Grammar, GrammarNames>();

function grammarNames(grammar: Grammar, language: unknown): GrammarNames {
  let names = NAMES.get(grammar);
  if (!names) {
    // Without the addon, symbol and field names are learnt from the trees walked (flatWords).
    const [symbols, fields] = addon ? addon.names(language) : [[], []];
    const fieldIds = new Map<string, number>();
    fields.forEach((f, i) => f && fieldIds.set(f, i));
    NAMES.set(grammar, (names = { symbols, fields, fieldIds }));
  }
  return names;
}

/** The TSLanguage handle (an external value) inside the language object a grammar package exports: what the addon takes. */
function languageHandle(grammar: Grammar): unknown {
  return (grammarLoader(grammar)() as { language?: unknown }).language;
}

/**
 * Parses `text` into a flat tree; null when the parse exceeded `timeoutMs` or the parser gave up.
 * `producer` "binding" walks the binding's tree even where the addon is loaded (tests and benches
 * compare the two).
 */
export function parseFlat(grammar: Grammar, text: string, timeoutMs: number, producer = flatTreeProducer): FlatTree | null {
  const last = lastParse.get(grammar);
  if (last !== undefined && last.text === text && last.producer === producer) return last.tree;
  const tree = parseWith(grammar, text, timeoutMs, producer, null)?.tree ?? null;
  if (tree) lastParse.set(grammar, { text, producer, tree });
  return tree;
}

/**
 * The last flat tree each grammar parsed, with its text: the edit gate's check of a text it then
 * writes, and the index refresh of that file, parse it once. Flat trees are never changed.
 */
const lastParse = new Map<Grammar, { readonly text: string; readonly producer: string; readonly tree: FlatTree }>();

/** A capture of a query match: its name in the query and the flat node it took. */
export interface FlatCapture {
  readonly name: string;
  readonly node: FlatNode;
}

/** A match of a query: the pattern that matched and its captures, in tree-sitter's order. */
export interface FlatMatch {
  readonly pattern: number;
  readonly captures: FlatCapture[];
}

/**
 * Parses `text` into a flat tree and runs a query over the whole of it (one call into the addon):
 * the matches tree-sitter's binding would return for that query, predicates applied, their nodes
 * the flat tree's. Null when the parse did not finish in time. Not cached: a file is queried once.
 */
export function parseFlatMatches(grammar: Grammar, text: string, timeoutMs: number, source: string, producer = flatTreeProducer): { tree: FlatTree; matches: FlatMatch[] } | null {
  return parseWith(grammar, text, timeoutMs, producer, source);
}

/** The one parse path: the addon's (timed as tree-sitter's parse) or a walk of the binding's tree; with a query source, its matches too. */
function parseWith(grammar: Grammar, text: string, timeoutMs: number, producer: string, source: string | null): { tree: FlatTree; matches: FlatMatch[] } | null {
  const language = languageHandle(grammar);
  const names = grammarNames(grammar, language);
  if (!addon || producer === "binding") {
    const tree = parseSource(grammar, text, timeoutMs);
    if (tree === null) return null;
    const flat = new FlatTree(flatWords(tree, names), text, names);
    return { tree: flat, matches: source === null ? [] : bindingMatches(grammar, source, tree, flat) };
  }
  const query = source === null ? null : compiledQuery(grammar, language, source);
  const started = performance.now();
  let parsed: Uint32Array | [Uint32Array, Uint32Array] | null;
  try {
    parsed = query === null ? addon.parse(language, text, timeoutMs) : addon.parse(language, text, timeoutMs, query.handle);
    parseTime.parses++;
  } finally {
    parseTime.ms += performance.now() - started;
  }
  if (parsed === null) return null;
  if (query === null) return { tree: new FlatTree(parsed as Uint32Array, text, names), matches: [] };
  const [words, found] = parsed as [Uint32Array, Uint32Array];
  const tree = new FlatTree(words, text, names);
  const matches: FlatMatch[] = [];
  for (let i = 0; i < found.length; ) {
    const pattern = found[i++]!;
    const count = found[i++]!;
    const captures: FlatCapture[] = new Array(count);
    for (let c = 0; c < count; c++, i += 2) captures[c] = { name: query.captures[found[i]!]!, node: tree.node(found[i + 1]!) };
    if (query.predicates[pattern]!.every((p) => p(captures))) matches.push({ pattern, captures });
  }
  return { tree, matches };
}

/** A query compiled by the addon, with each pattern's predicates as functions of a match's captures. */
interface CompiledQuery {
  readonly handle: unknown;
  readonly captures: string[];
  readonly predicates: Array<Array<(captures: readonly FlatCapture[]) => boolean>>;
}

const QUERIES = new Map<Grammar, Map<string, CompiledQuery>>();

function compiledQuery(grammar: Grammar, language: unknown, source: string): CompiledQuery {
  let byGrammar = QUERIES.get(grammar);
  if (!byGrammar) QUERIES.set(grammar, (byGrammar = new Map()));
  let compiled = byGrammar.get(source);
  if (!compiled) {
    let native: NativeQuery;
    try {
      native = addon!.query(language, source);
    } catch (err) {
      throw new Error(`the ${grammar} query does not compile: ${err instanceof Error ? err.message : String(err)}`);
    }
    compiled = { handle: native.handle, captures: native.captures, predicates: native.predicates.map((steps) => predicatesOf(grammar, steps, native)) };
    byGrammar.set(source, compiled);
  }
  return compiled;
}

/** The predicates applied, by the test each makes. */
const PREDICATES = new Map<string, "eq" | "match" | "of">([
  ...(["eq?", "not-eq?", "any-eq?", "any-not-eq?"] as const).map((o) => [o, "eq"] as const),
  ...(["match?", "not-match?", "any-match?", "any-not-match?"] as const).map((o) => [o, "match"] as const),
  ...(["any-of?", "not-any-of?"] as const).map((o) => [o, "of"] as const),
]);
const STEP_DONE = 0;
const STEP_CAPTURE = 1;

/**
 * One pattern's predicates, with the semantics of tree-sitter's Node binding (index.js,
 * `Query.prototype._init`): `#eq?` / `#not-eq?` against a string or a capture hold for every
 * node the capture took (`#any-eq?`, `#any-not-eq?`: some node); `#match?` / `#not-match?` the
 * same with a regular expression, and a capture that took no node passes only the negation;
 * `#any-of?` / `#not-any-of?` whether every node's text is among the strings. Anything else (the
 * binding's `#set!` and `#is?` properties) is refused when the query compiles.
 */
function predicatesOf(grammar: Grammar, steps: Uint32Array, query: NativeQuery): Array<(captures: readonly FlatCapture[]) => boolean> {
  const out: Array<(captures: readonly FlatCapture[]) => boolean> = [];
  let args: Array<{ capture: string } | { string: string }> = [];
  for (let i = 0; i < steps.length; i += 2) {
    const [type, id] = [steps[i]!, steps[i + 1]!];
    if (type !== STEP_DONE) {
      args.push(type === STEP_CAPTURE ? { capture: query.captures[id]! } : { string: query.strings[id]! });
      continue;
    }
    const [head, ...rest] = args;
    args = [];
    const fail = (why: string): never => {
      throw new Error(`the ${grammar} query does not compile: ${why}`);
    };
    const operator = head !== undefined && "string" in head ? head.string : fail("a predicate must begin with its name");
    const kind = PREDICATES.get(operator) ?? fail(`the predicate #${operator} is not supported`);
    const first = rest[0];
    if (first === undefined || !("capture" in first)) fail(`the first argument of #${operator} must be a capture`);
    const texts = (captures: readonly FlatCapture[], name: string) => captures.filter((c) => c.name === name).map((c) => c.node.text);
    const name = (first as { capture: string }).capture;
    const positive = !operator.includes("not-");
    const every = !operator.startsWith("any-");
    switch (kind) {
      case "eq": {
        if (rest.length !== 2) fail(`#${operator} takes 2 arguments`);
        const other = rest[1]!;
        const test = (text: string, values: string[]) => values.some((v) => (v === text) === positive);
        out.push((captures) => {
          const values = "capture" in other ? texts(captures, other.capture) : [other.string];
          const mine = texts(captures, name);
          return every ? mine.every((t) => test(t, values)) : mine.some((t) => test(t, values));
        });
        break;
      }
      case "match": {
        const pattern = rest[1];
        if (rest.length !== 2 || !pattern || !("string" in pattern)) fail(`#${operator} takes a capture and a string`);
        const regex = new RegExp((pattern as { string: string }).string);
        out.push((captures) => {
          const mine = texts(captures, name);
          if (mine.length === 0) return !positive;
          return every ? mine.every((t) => regex.test(t) === positive) : mine.some((t) => regex.test(t) === positive);
        });
        break;
      }
      case "of": {
        const values = rest.slice(1).map((a) => ("string" in a ? a.string : fail(`the arguments of #${operator} after the capture must be strings`)));
        out.push((captures) => {
          const mine = texts(captures, name);
          if (mine.length === 0) return !positive;
          return mine.every((t) => values.includes(t)) === positive;
        });
        break;
      }
    }
  }
  return out;
}

/**
 * Without the addon: the binding's own matches (its predicates applied), each captured node found
 * among the flat tree's by its start, end, type and depth (several nodes can share the first three).
 */
function bindingMatches(grammar: Grammar, source: string, tree: Tree, flat: FlatTree): FlatMatch[] {
  const depthOf = (node: SyntaxNode) => {
    let depth = 0;
    for (let n = node.parent; n !== null; n = n.parent) depth++;
    return depth;
  };
  const flatDepth = (i: number) => {
    let depth = 0;
    for (let p = flat.parentIndex(i); p !== NO_PARENT; p = flat.parentIndex(p)) depth++;
    return depth;
  };
  const find = (node: SyntaxNode): FlatNode => {
    const start = node.startIndex;
    let lo = 0;
    let hi = flat.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (flat.start(mid) < start) lo = mid + 1;
      else hi = mid;
    }
    const depth = depthOf(node);
    for (let i = lo; i < flat.length && flat.start(i) === start; i++) {
      if (flat.end(i) === node.endIndex && flat.typeId(i) === node.typeId && flatDepth(i) === depth) return flat.node(i);
    }
    throw new Error(`a ${grammar} query capture (${node.type} at ${start}) is not a node of the flat tree`);
  };
  return queryMatches(grammar, source, tree.rootNode).map((m) => ({ pattern: m.pattern, captures: m.captures.map((c) => ({ name: c.name, node: find(c.node) })) }));
}

/**
 * The flat tree of a text made by a walk of the binding's tree (where the addon did not build, or
 * when asked for): the same words the addon writes, symbol and field names learnt into `names` as
 * the walk meets them.
 */
function flatWords(tree: Tree, names: GrammarNames): Uint32Array {
  let words = new Uint32Array(1024 * FLAT_WORDS);
  const stack: number[] = [];
  const cursor = tree.walk();
  let count = 0;
  for (;;) {
    if ((count + 1) * FLAT_WORDS > words.length) {
      const grown = new Uint32Array(words.length * 2);
      grown.set(words);
      words = grown;
    }
    const typeId = cursor.nodeTypeId;
    names.symbols[typeId] ??= cursor.nodeType;
    const fieldId = cursor.currentFieldId ?? 0;
    if (fieldId > 0 && names.fields[fieldId] == null) {
      names.fields[fieldId] = cursor.currentFieldName;
      names.fieldIds.set(cursor.currentFieldName, fieldId);
    }
    const at = count * FLAT_WORDS;
    const start = cursor.startPosition;
    const end = cursor.endPosition;
    words[at + W_SYMBOL_FIELD] = typeId | (fieldId << 16);
    words[at + W_FLAGS] = (cursor.nodeIsNamed ? FLAG.named : 0) | (cursor.nodeIsMissing ? FLAG.missing | FLAG.hasError : 0) | (typeId === ERROR_SYMBOL ? FLAG.error | FLAG.hasError : 0);
    words[at + W_START] = cursor.startIndex;
    words[at + W_END] = cursor.endIndex;
    words[at + W_START_ROW] = start.row;
    words[at + W_START_COLUMN] = start.column;
    words[at + W_END_ROW] = end.row;
    words[at + W_END_COLUMN] = end.column;
    words[at + W_PARENT] = stack.length === 0 ? NO_PARENT : stack[stack.length - 1]!;
    const index = count++;
    if (cursor.gotoFirstChild()) {
      stack.push(index);
      continue;
    }
    // A leaf: it and every ancestor whose last child this was end here.
    words[index * FLAT_WORDS + W_SUBTREE_END] = count;
    for (;;) {
      if (cursor.gotoNextSibling()) break;
      if (stack.length === 0 || !cursor.gotoParent()) {
        // A node has an error when it is one (ERROR, MISSING) or holds one: carried up, last node first.
        for (let i = count - 1; i > 0; i--) if (words[i * FLAT_WORDS + W_FLAGS]! & FLAG.hasError) words[words[i * FLAT_WORDS + W_PARENT]! * FLAT_WORDS + W_FLAGS]! |= FLAG.hasError;
        return words.slice(0, count * FLAT_WORDS);
      }
      words[stack.pop()! * FLAT_WORDS + W_SUBTREE_END] = count;
    }
  }
}

/** A parsed text's nodes: index 0 is the root, a node's descendants follow it. */
export class FlatTree {
  readonly length: number;
  private readonly nodes: Array<FlatNode | undefined>;

  constructor(
    readonly words: Uint32Array,
    readonly text: string,
    readonly names: GrammarNames,
  ) {
    this.length = words.length / FLAT_WORDS;
    this.nodes = new Array(this.length);
  }

  get rootNode(): FlatNode {
    return this.node(0);
  }

  /** The node at a document-order index (one object per node). */
  node(i: number): FlatNode {
    return (this.nodes[i] ??= new FlatNode(this, i));
  }

  typeId(i: number): number {
    return this.words[i * FLAT_WORDS + W_SYMBOL_FIELD]! & 0xffff;
  }

  typeName(typeId: number): string {
    return typeId === ERROR_SYMBOL ? "ERROR" : (this.names.symbols[typeId] ?? "");
  }

  flags(i: number): number {
    return this.words[i * FLAT_WORDS + W_FLAGS]!;
  }

  start(i: number): number {
    return this.words[i * FLAT_WORDS + W_START]!;
  }

  end(i: number): number {
    return this.words[i * FLAT_WORDS + W_END]!;
  }

  fieldId(i: number): number {
    return this.words[i * FLAT_WORDS + W_SYMBOL_FIELD]! >>> 16;
  }

  parentIndex(i: number): number {
    return this.words[i * FLAT_WORDS + W_PARENT]!;
  }

  /** The index after node i's last descendant: its descendants are i+1 … subtreeEnd(i)-1. */
  subtreeEnd(i: number): number {
    return this.words[i * FLAT_WORDS + W_SUBTREE_END]!;
  }

  point(i: number, end: boolean): Point {
    const at = i * FLAT_WORDS + (end ? W_END_ROW : W_START_ROW);
    return { row: this.words[at]!, column: this.words[at + 1]! };
  }

  /** Node i's children's indices, in order. */
  childIndices(i: number): number[] {
    const out: number[] = [];
    const stop = this.subtreeEnd(i);
    for (let c = i + 1; c < stop; c = this.subtreeEnd(c)) out.push(c);
    return out;
  }
}

export class FlatNode implements SyntaxNode {
  constructor(
    readonly tree: FlatTree,
    readonly id: number,
  ) {}

  get typeId(): number {
    return this.tree.typeId(this.id);
  }
  get type(): string {
    return this.tree.typeName(this.tree.typeId(this.id));
  }
  get isNamed(): boolean {
    return (this.tree.flags(this.id) & FLAG.named) !== 0;
  }
  get isMissing(): boolean {
    return (this.tree.flags(this.id) & FLAG.missing) !== 0;
  }
  get hasError(): boolean {
    return (this.tree.flags(this.id) & FLAG.hasError) !== 0;
  }
  get startIndex(): number {
    return this.tree.start(this.id);
  }
  get endIndex(): number {
    return this.tree.end(this.id);
  }
  get text(): string {
    return this.tree.text.slice(this.tree.start(this.id), this.tree.end(this.id));
  }
  get startPosition(): Point {
    return this.tree.point(this.id, false);
  }
  get endPosition(): Point {
    return this.tree.point(this.id, true);
  }
  get parent(): FlatNode | null {
    const p = this.tree.parentIndex(this.id);
    return p === NO_PARENT ? null : this.tree.node(p);
  }
  get children(): FlatNode[] {
    return this.tree.childIndices(this.id).map((c) => this.tree.node(c));
  }
  get namedChildren(): FlatNode[] {
    const out: FlatNode[] = [];
    for (const c of this.tree.childIndices(this.id)) if (this.tree.flags(c) & FLAG.named) out.push(this.tree.node(c));
    return out;
  }
  get childCount(): number {
    return this.tree.childIndices(this.id).length;
  }
  get namedChildCount(): number {
    let n = 0;
    for (const c of this.tree.childIndices(this.id)) if (this.tree.flags(c) & FLAG.named) n++;
    return n;
  }
  get firstChild(): FlatNode | null {
    return this.child(0);
  }
  get firstNamedChild(): FlatNode | null {
    return this.namedChild(0);
  }
  get previousNamedSibling(): FlatNode | null {
    const p = this.tree.parentIndex(this.id);
    if (p === NO_PARENT) return null;
    let previous = -1;
    for (let c = p + 1; c < this.id; c = this.tree.subtreeEnd(c)) if (this.tree.flags(c) & FLAG.named) previous = c;
    return previous < 0 ? null : this.tree.node(previous);
  }
  child(index: number): FlatNode | null {
    const c = this.tree.childIndices(this.id)[index];
    return c === undefined ? null : this.tree.node(c);
  }
  namedChild(index: number): FlatNode | null {
    let n = 0;
    for (const c of this.tree.childIndices(this.id)) if (this.tree.flags(c) & FLAG.named && n++ === index) return this.tree.node(c);
    return null;
  }
  childrenForFieldName(name: string): FlatNode[] {
    const field = this.tree.names.fieldIds.get(name);
    const out: FlatNode[] = [];
    if (field === undefined) return out;
    const stop = this.tree.subtreeEnd(this.id);
    for (let c = this.id + 1; c < stop; c = this.tree.subtreeEnd(c)) if (this.tree.fieldId(c) === field) out.push(this.tree.node(c));
    return out;
  }
  childForFieldName(name: string): FlatNode | null {
    const field = this.tree.names.fieldIds.get(name);
    if (field === undefined) return null;
    const stop = this.tree.subtreeEnd(this.id);
    for (let c = this.id + 1; c < stop; c = this.tree.subtreeEnd(c)) if (this.tree.fieldId(c) === field) return this.tree.node(c);
    return null;
  }
  fieldNameForChild(index: number): string | null {
    const c = this.tree.childIndices(this.id)[index];
    return c === undefined ? null : (this.tree.names.fields[this.tree.fieldId(c)] ?? null);
  }
  descendantsOfType(types: string | string[]): FlatNode[] {
    const wanted = new Set(typeof types === "string" ? [types] : types);
    const out: FlatNode[] = [];
    const stop = this.tree.subtreeEnd(this.id);
    for (let i = this.id; i < stop; i++) if (wanted.has(this.tree.typeName(this.tree.typeId(i)))) out.push(this.tree.node(i));
    return out;
  }
  /** The smallest node spanning [start, end], as tree-sitter's `ts_node_descendant_for_byte_range` finds it. */
  descendantForIndex(start: number, end = start): FlatNode {
    let node = this.id;
    for (let descended = true; descended; ) {
      descended = false;
      const stop = this.tree.subtreeEnd(node);
      for (let c = node + 1; c < stop; c = this.tree.subtreeEnd(c)) {
        const childEnd = this.tree.end(c);
        if (childEnd < end) continue;
        const empty = this.tree.start(c) === childEnd;
        if (empty ? childEnd < start : childEnd <= start) continue;
        if (start < this.tree.start(c)) break;
        node = c;
        descended = true;
        break;
      }
    }
    return this.tree.node(node);
  }
}
