// The records TypeScript/JavaScript's declaration pass (typescript.ts) builds, and how it adds
// them: chunk drafts, symbols with their signatures, docs, parameters and return types, the
// declarations by name the export pass settles, the identifier-bag exclusions of class shells, and
// the open group of consecutive non-declaration statements that share one block (or export) chunk.
import { collapseWhitespace, indentOf, splitLines } from "../base/text.js";
import type { ChunkDraft } from "./chunking.js";
import { declarationOf, endLineOf, paramsOf, unwrapAmbient } from "./es-nodes.js";
import type { SyntaxNode } from "./flat-tree.js";
import type { Decl, Draft, Sym } from "./ts-exports.js";
import { symbolRecord, type SymbolKind } from "./types.js";

export abstract class DeclarationRecords {
  protected readonly lines: string[];
  protected readonly drafts: Draft[] = [];
  protected readonly symbols: Sym[] = [];
  protected readonly decls = new Map<string, Decl[]>();
  /** Character ranges whose identifiers do not belong to a draft's bag (method bodies for shells). */
  protected readonly bagExclusions = new Map<Draft, Array<[number, number]>>();
  private pendingGroup: { type: "block" | "export"; start: number; end: number } | null = null;

  constructor(protected readonly text: string) {
    this.lines = splitLines(text);
  }

  protected addDraft(
    node: SyntaxNode,
    chunkType: ChunkDraft["chunkType"],
    symbolName: string | null,
    isExported: boolean,
    doc: SyntaxNode[],
    spanStart: SyntaxNode = node,
    body: SyntaxNode | null = null,
    parentSymbol: string | null = null,
  ): Draft {
    const draft: Draft = {
      startLine: spanStart.startPosition.row + 1,
      endLine: endLineOf(node),
      chunkType,
      symbolName,
      parentSymbol,
      isExported,
      headerEndLine: body ? body.startPosition.row + 1 : spanStart.startPosition.row + 1,
    };
    if (doc.length) draft.docStartLine = doc[0]!.startPosition.row + 1;
    this.drafts.push(draft);
    return draft;
  }

  protected addSymbol(node: SyntaxNode, kind: SymbolKind, name: string, isExported: boolean, doc: SyntaxNode[], parts: { signature: string; body: string; declaration?: string }): Sym {
    const sym: Sym = {
      ...symbolRecord(name, kind, node.startPosition.row + 1, endLineOf(node), isExported, {
        signature: parts.signature,
        doc: doc.length ? doc.map((d) => this.nodeText(d)).join("\n") : null,
        hasBody: parts.body !== "",
      }),
    };
    this.symbols.push(sym);
    return sym;
  }

  /**
   * The return type an implementation without one has through its overloads: the first overload's,
   * when every overload returns the same named type (`ZodTuple<[]>`, `ZodTuple<T>`); else null.
   */
  protected overloadsReturn(overloads: readonly SyntaxNode[]): string | null {
    const returns = overloads.map((o) => {
      const ret = unwrapAmbient(declarationOf(o) ?? o).childForFieldName("return_type");
      return ret ? collapseWhitespace(this.nodeText(ret).replace(/^:\s*/, "")) : null;
    });
    const head = (t: string | null) => (t === null ? null : (/^[A-Za-z_$][\w$.]*(?=\s*(?:<|$))/.exec(t)?.[0] ?? null));
    const first = head(returns[0] ?? null);
    return first !== null && returns.every((r) => head(r) === first) ? returns[0]! : null;
  }

  /** Records the parameters and return type of the function-like node behind a symbol. */
  protected setCallable(sym: Sym, fn: SyntaxNode): void {
    sym.params = paramsOf(fn);
    const ret = fn.childForFieldName("return_type");
    sym.returnType = ret ? collapseWhitespace(this.nodeText(ret).replace(/^:\s*/, "")) : null;
  }

  protected remember(decl: Decl): void {
    const list = this.decls.get(decl.name);
    if (list) list.push(decl);
    else this.decls.set(decl.name, [decl]);
  }

  /** Consecutive non-declaration statements share one block (or export) chunk. */
  protected addToGroup(type: "block" | "export", node: SyntaxNode, doc: SyntaxNode[] = []): void {
    const start = (doc[0] ?? node).startPosition.row + 1;
    const end = endLineOf(node);
    if (this.pendingGroup && this.pendingGroup.type === type) {
      this.pendingGroup.end = Math.max(this.pendingGroup.end, end);
      return;
    }
    this.flushGroup();
    this.pendingGroup = { type, start, end };
  }

  protected flushGroup(): void {
    const g = this.pendingGroup;
    if (!g) return;
    this.pendingGroup = null;
    this.drafts.push({
      startLine: g.start,
      endLine: g.end,
      chunkType: g.type,
      symbolName: null,
      parentSymbol: null,
      isExported: g.type === "export",
    });
  }

  protected docLines(doc: SyntaxNode[]): string[] {
    if (!doc.length) return [];
    const first = doc[0]!;
    return (indentOf(this.lines[first.startPosition.row] ?? "") + this.slice(first.startIndex, doc[doc.length - 1]!.endIndex)).split("\n").map((l) => l.replace(/\r$/, ""));
  }

  protected slice(from: number, to: number): string {
    return this.text.slice(from, to).replace(/\r\n/g, "\n");
  }

  /** A node's source text with CRLF normalized, so stored strings and hashes ignore line endings. */
  protected nodeText(node: SyntaxNode): string {
    return this.slice(node.startIndex, node.endIndex);
  }
}
