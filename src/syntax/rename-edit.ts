// rename-symbol: the binding-aware, file-scoped rename — a variable with every use that refers to
// it (the uses EditRules.dynamic makes uncertain set apart), or a member with its accesses through
// objects known to be its owner — and the edits one file needs when an exported name is renamed
// in every module (`planExportRename`).
import { MastError } from "../base/errors.js";
import { sameNode, type EditRules } from "../lang/edit-rules.js";
import { contains, keyOf, lineOf, MAX_AST_DEPTH, splitQualified, walk, type TextEdit, type Walk } from "./ast-walk.js";
import { NameIndex, objectOwner, UseResolver, type Binding, type Group } from "./name-bindings.js";
import type { SyntaxNode, Tree } from "./parser.js";

export interface RenamePlan {
  readonly edits: TextEdit[];
  /** Uses of the name the rename could not tie to its target (member accesses whose object's type is not known, ...): left as they are. */
  readonly unresolved: Array<{ line: number; text: string }>;
  /** Of those, the uses that may be the variable itself (EditRules.dynamic): renaming around them could change what the code does, so a rename is refused unless they are accepted. */
  readonly uncertain: Array<{ line: number; text: string }>;
  /** What was renamed: a variable's binding kind, or `member of Owner`. */
  readonly target: string;
  /** The name other files may know it by, as the index names it: a file-level binding's own (an import's not), a member's `Owner.member`; null for a local or a parameter. */
  readonly declaration: string | null;
}

/** Whether a node is inside a node of a type. */
function ancestorOfType(node: SyntaxNode, type: string): boolean {
  for (let n = node.parent; n; n = n.parent) if (n.type === type) return true;
  return false;
}

/** A node's first line, as an unresolved use is listed. */
const firstLine = (n: SyntaxNode, max = 200): string => (n.text.split("\n")[0] ?? "").slice(0, max);

/**
 * The edits renaming `query` (a name, or `Owner.member`) to `newName` in one file: a variable with
 * every use that refers to it, or a member with its accesses through objects known to be its
 * owner. Refused with AMBIGUOUS_SYMBOL when the name binds more than one thing and `line` does
 * not pick one, or when `newName` is already a name in the file (the rename would change what a
 * name refers to).
 */
export function planRename(rules: EditRules, tree: Tree, query: string, newName: string, line: number | null, options: { publicName?: boolean } = {}): RenamePlan {
  // publicName: the exported name changes too (a cross-file rename): `export { a }` and the import of the name are renamed, not aliased.
  const exported = options.publicName === true;
  const { owner: qualifiedOwner, name } = splitQualified(query);
  const w = walk(rules, tree, [name, newName, ...(rules.dynamic ? [rules.dynamic.callee] : [])]);
  if (w.truncated) throw new MastError("SEARCH_TRUNCATED", `the file nests deeper than the depth guard (${MAX_AST_DEPTH} levels): uses of '${name}' below it were not seen, so no rename is certain`);
  const index = new NameIndex(rules, tree.rootNode, name, w);
  const target = renameTarget(rules, w, index, query, qualifiedOwner, line);
  const moved = (w.leaves.get(name) ?? []).find((t) => rules.scopeStatements?.some((type) => ancestorOfType(t, type)));
  if (moved && target.kind === "variable") {
    throw new MastError(
      "AMBIGUOUS_SYMBOL",
      `'${name}' is moved between scopes at line ${lineOf(moved)} (${moved.parent!.type}): which uses are the same variable is not file-scope certain; nothing was renamed`,
      { hint: "Rename it with replace-hash, or remove the scope statement first." },
    );
  }
  const out = new RenameEdits(rules, name, newName);
  for (const use of rules.embeddedUses?.(tree.rootNode, name) ?? []) out.unresolve(use as SyntaxNode, `${firstLine(use as SyntaxNode)} (the name inside a string the language reads)`);
  if (target.kind === "variable") {
    renameVariable(rules, tree, w, index, target.group, out, exported);
    const declaration = target.group.some((b) => b.kind !== "import" && sameNode(b.scope, tree.rootNode)) ? name : null;
    return out.plan(target.group[0]!.kind, declaration);
  }
  renameMember(rules, tree, w, index, target.owner, out);
  return out.plan(`member of ${target.owner}`, `${target.owner}.${name}`);
}

/** What a rename renames: a variable (its bindings' group) or the members of an owner. */
type RenameTarget = { kind: "variable"; group: Group } | { kind: "member"; owner: string };

/**
 * The one variable or owner's member `query` names (on `line`, when given): SYMBOL_NOT_FOUND when
 * none, AMBIGUOUS_SYMBOL with every candidate's lines when more than one.
 */
function renameTarget(rules: EditRules, w: Walk, index: NameIndex, query: string, qualifiedOwner: string | null, line: number | null): RenameTarget {
  const owners = [...new Set(index.memberDecls.map((d) => d.owner!))];
  // `Owner.attr` of an owner the file declares, with no declaration of the attribute (`self.attr = …` in Python): its accesses.
  if (qualifiedOwner !== null && !owners.includes(qualifiedOwner) && w.declarations.some((d) => d.name === qualifiedOwner && rules.owners[d.node.type])) owners.push(qualifiedOwner);
  const variables = index.variables().map((group) => ({ kind: "variable" as const, group }));
  const members = owners.map((owner) => ({ kind: "member" as const, owner }));
  // A bare name is a variable's when one has it (a member is named Owner.member); a member's when only members do.
  let candidates: RenameTarget[] = qualifiedOwner !== null ? members.filter((m) => m.owner === qualifiedOwner) : line === null && variables.length === 1 ? variables : [...variables, ...members];
  const sites = (c: RenameTarget): Array<{ line: number; kind: string }> =>
    c.kind === "variable"
      ? c.group.map((b) => ({ line: lineOf(b.token), kind: b.kind }))
      : index.memberDecls.filter((d) => d.owner === c.owner).map((d) => ({ line: lineOf(d.nameNode), kind: d.node.type }));
  if (line !== null) candidates = candidates.filter((c) => sites(c).some((s) => s.line === line));
  if (candidates.length === 0) {
    const where = line !== null ? ` on line ${line}` : "";
    throw new MastError("SYMBOL_NOT_FOUND", `nothing named '${query}' is declared or bound in the file${where}`, {
      hint: "List the file's declarations with `ast find-symbols`; a member is named `Owner.member`.",
    });
  }
  if (candidates.length > 1) {
    const all = candidates.flatMap(sites).sort((a, b) => a.line - b.line);
    throw new MastError("AMBIGUOUS_SYMBOL", `'${query}' binds ${candidates.length} different symbols in the file: ${all.map((s) => `line ${s.line} (${s.kind})`).join(", ")}`, {
      hint: "Pass the line of the binding to rename (line), name a member as `Owner.member`, or rename each declaration separately.",
      details: { bindings: all },
    });
  }
  return candidates[0]!;
}

/** What a rename gathers: its edits (each checked with EditRules.renameProblem), the uses left as they are, and those of them that are uncertain. */
class RenameEdits {
  readonly edits: TextEdit[] = [];
  readonly unresolved: Array<{ line: number; text: string }> = [];
  readonly uncertain: Array<{ line: number; text: string }> = [];

  constructor(
    private readonly rules: EditRules,
    readonly name: string,
    readonly newName: string,
  ) {}

  /** A use left as it is: its line's text, or why. */
  unresolve(token: SyntaxNode, why?: string): void {
    this.unresolved.push({ line: lineOf(token), text: why ?? firstLine(token.parent!) });
  }

  /** A use left as it is that may be the variable itself (EditRules.dynamic). */
  unsure(token: SyntaxNode, why: string): void {
    this.unresolve(token, `${firstLine(token.parent!)} (${why})`);
    this.uncertain.push(this.unresolved.at(-1)!);
  }

  /** The token rewritten as `text`; INVALID_ARGUMENT when the language cannot have the new name there. */
  put(token: SyntaxNode, text: string): void {
    const problem = this.rules.renameProblem?.(token, this.newName);
    if (problem) throw new MastError("INVALID_ARGUMENT", `renaming '${this.name}' to '${this.newName}' at line ${lineOf(token)}: ${problem}`);
    this.edits.push({ start: token.startIndex, end: token.endIndex, text });
  }

  /** The plan: the edits once each, in text order. */
  plan(target: string, declaration: string | null): RenamePlan {
    const unique = new Map<string, TextEdit>();
    for (const e of this.edits) unique.set(`${e.start}:${e.end}`, e);
    return { edits: [...unique.values()].sort((a, b) => a.start - b.start), unresolved: this.unresolved, uncertain: this.uncertain, target, declaration };
  }
}

/**
 * A variable renamed: its bindings, the references that resolve to it, its path uses and its
 * module's export list; the uses dynamic code makes uncertain, contended ones, keyword arguments
 * and macro paths left. AMBIGUOUS_SYMBOL when the new name is a name in the file already.
 */
function renameVariable(rules: EditRules, tree: Tree, w: Walk, index: NameIndex, group: Group, out: RenameEdits, exported: boolean): void {
  const { name, newName } = out;
  const members = new Set<Binding>(group);
  const isTarget = (g: Group | null | "conflict"): boolean => g !== null && g !== "conflict" && g.some((b) => members.has(b));
  const reach = dynamicReach(rules, w, index, group, (t) => isTarget(index.resolve(t)));
  for (const call of reach.calls) out.unsure(call, `the code it runs may use or declare '${name}'`);
  for (const b of group) {
    const why = reach.why(b.token);
    if (why) out.unsure(b.token, why);
    else out.put(b.token, b.rename === "alias" && !exported ? `${b.token.text} as ${newName}` : rewrite(rules, b.token, name, newName, exported));
  }
  for (const ref of index.references) {
    const g = index.resolve(ref);
    if (g === "conflict") out.unresolve(ref, `${firstLine(ref.parent!)} (contended: the name is declared twice where this use is)`);
    else if (isTarget(g)) {
      const why = reach.why(ref);
      if (why) out.unsure(ref, why);
      else out.put(ref, rewrite(rules, ref, name, newName, exported));
    }
  }
  // A parameter is also named by keyword arguments, of calls the file cannot tie to its function.
  if (group.some((b) => b.kind === "parameter")) for (const k of index.keywordUses) out.unresolve(k);
  for (const { token, scope } of index.pathUses) {
    if (scope === null) out.unresolved.push({ line: lineOf(token), text: token.parent!.text.slice(0, 200) });
    else if (group.some((b) => sameNode(b.scope, scope))) out.put(token, newName);
  }
  for (const token of index.opaquePaths) out.unresolve(token);
  // The module's export list names its module-level names as strings (`__all__`).
  if (group.some((b) => sameNode(b.scope, tree.rootNode))) for (const s of rules.exportListNames?.(tree.rootNode, name) ?? []) out.put(s as SyntaxNode, newName);
  if (clashes(rules, w, newName)) throw clash(newName, w);
}

/**
 * An owner's member renamed: its declarations, the accesses through objects known to be the owner
 * and its literal keys; accesses of unknown owners, keys and other types' members of the name left.
 * AMBIGUOUS_SYMBOL when the owner has a member of the new name; SYMBOL_NOT_FOUND when nothing was renamed.
 */
function renameMember(rules: EditRules, tree: Tree, w: Walk, index: NameIndex, owner: string, out: RenameEdits): void {
  const { name, newName } = out;
  const ownerNameOf = (n: SyntaxNode): string | null => rules.owners[n.type]?.name(n) ?? null;
  for (const d of index.memberDecls) if (d.owner === owner) out.put(d.nameNode, newName);
  const memberGroups = new Set(index.bindings.filter((b) => b.member === owner).map((b) => index.groupOf.get(b)!));
  for (const ref of index.references) {
    const g = index.resolve(ref);
    if (g !== null && g !== "conflict" && memberGroups.has(g)) out.put(ref, newName);
  }
  const uses = new UseResolver(rules, tree.rootNode, w);
  // Types the file declares, and which of them declare a member of the name themselves.
  const ownerTypes = new Set(w.declarations.filter((d) => rules.owners[d.node.type]).map((d) => d.name));
  const declaring = new Set(index.memberDecls.map((d) => d.owner!));
  for (const { token, object } of index.memberRefs) {
    const of = objectOwner(rules, uses, object, ownerNameOf);
    if (of === owner) out.put(token, newName);
    // Another type of the file with a member of its own of the name is left; any other type may inherit this one.
    else if (of === null || !ownerTypes.has(of) || !declaring.has(of)) out.unresolve(token);
  }
  for (const { token, owner: o } of index.literalKeys) if (o === owner) out.put(token, rules.shorthand(token) === "key" ? `${newName}: ${name}` : newName);
  for (const k of [...index.memberKeys, ...index.keywordUses]) out.unresolve(k);
  for (const d of index.memberDecls) if (d.owner !== owner) out.unresolve(d.nameNode, `${d.qualifiedName}: another type's member of this name (an override or an implementation?)`);
  const taken = w.declarations.find((d) => d.owner === owner && d.name === newName);
  if (taken) throw new MastError("AMBIGUOUS_SYMBOL", `${owner} already has a member named '${newName}' (line ${lineOf(taken.nameNode)}); renaming '${name}' to it would merge two members`);
  if (out.edits.length === 0)
    throw new MastError("SYMBOL_NOT_FOUND", `${owner} has no member '${name}' in the file, and no access of one was found`, { hint: "List the file's declarations with `ast find-symbols`." });
}

/**
 * Where the text cannot tie a use to the variable (EditRules.dynamic): inside a body that looks
 * names up in an object first, between the use and the variable's scope (the name may be the
 * object's property); or in the function of a dynamic-code call that sees the variable (its code
 * may declare the name again). Answers those calls — each a use the text does not show — and why a
 * token of the variable is not certain, or null.
 */
function dynamicReach(rules: EditRules, w: Walk, index: NameIndex, group: Group, seesTarget: (token: SyntaxNode) => boolean): { calls: SyntaxNode[]; why(token: SyntaxNode): string | null } {
  const dynamic = rules.dynamic;
  if (!dynamic) return { calls: [], why: () => null };
  const calls = (w.leaves.get(dynamic.callee) ?? []).filter((leaf) => dynamic.isCall(leaf) && seesTarget(leaf));
  const reached = calls.map((call) => ({ call, scope: index.scopeAbove(call, rules.functionScopes) }));
  const scopes = new Set(group.map((b) => keyOf(b.scope)));
  return {
    calls,
    why: (token) => {
      for (let child = token, a = token.parent; a && !scopes.has(keyOf(a)); child = a, a = a.parent) {
        const body = dynamic.bodies[a.type];
        if (body !== undefined && sameNode(a.childForFieldName(body), child)) return `inside \`${firstLine(a, 120)}\` at line ${lineOf(a)}: the name may be a property of its object`;
      }
      const run = reached.find((r) => contains(r.scope, token));
      return run ? `in reach of the code run at line ${lineOf(run.call)}, which may declare '${token.text}' again` : null;
    },
  };
}

/** The new text of a use: the new name, or for a shorthand the key kept (`{ a }` → `{ a: b }`, `export { a }` → `export { b as a }`). */
function rewrite(rules: EditRules, token: SyntaxNode, name: string, newName: string, exported = false): string {
  const shorthand = rules.shorthand(token);
  return shorthand === "key" ? `${name}: ${newName}` : shorthand === "alias" && !exported ? `${newName} as ${name}` : newName;
}

/** Where a cross-file rename of an exported name touches one file (query/rename-plan.ts finds them on the index). */
export interface ExportRenameSite {
  /**
   * declaration: the declaring file (the declaration on `line`, its uses and `export { name }`);
   * import: an import of the name (with no alias, the binding and its uses; with one, the imported name only);
   * export_from: a barrel's `export { name } from` (the imported name); namespace: `local.name` accesses through a namespace import;
   * package: the name's free uses (bound by no declaration of the file) in another file of its package (Go), or of a dot import;
   * member: a member's verified call on `line` in another file (`x.name(`, `T::name(`): the one access of the name there;
   * export_list: a module that passes the name on by a star import: the strings of its export list (`__all__`).
   */
  readonly kind: "declaration" | "import" | "export_from" | "namespace" | "package" | "member" | "export_list";
  readonly line: number;
  readonly local: string | null;
}

/**
 * The edits one file needs when the exported `name` becomes `newName` in every module: by the
 * site's kind (ExportRenameSite).
 */
export function planExportRename(rules: EditRules, tree: Tree, name: string, newName: string, site: ExportRenameSite): RenamePlan {
  const onStatement = () =>
    rules
      .importedNameTokens(tree.rootNode, name)
      .filter((t) => (t.statement as SyntaxNode).startPosition.row === site.line - 1)
      .map((t) => t.token as SyntaxNode);
  if (site.kind === "declaration") return planRename(rules, tree, name, newName, site.line, { publicName: true });
  // An import binding the name itself — and a re-export that binds it in its module too (Rust's `pub use`).
  if ((site.kind === "import" || (site.kind === "export_from" && rules.reexportBinds)) && site.local === name) {
    // The binding's own line: an import statement may span lines (`import {\n  a,\n  name,\n} from`).
    const tokens = onStatement();
    const plan = planRename(rules, tree, name, newName, tokens[0] ? tokens[0].startPosition.row + 1 : null, { publicName: true });
    // `from m import name as name` (the explicit re-export): the imported name is a token of its own beside the binding.
    const edited = new Set(plan.edits.map((e) => e.start));
    return {
      ...plan,
      edits: [...plan.edits, ...tokens.filter((t) => !edited.has(t.startIndex)).map((t) => ({ start: t.startIndex, end: t.endIndex, text: newName }))].sort((a, b) => a.start - b.start),
    };
  }
  if (site.kind === "export_list") {
    const edits = (rules.exportListNames?.(tree.rootNode, name) ?? []).map((t) => ({ start: t.startIndex, end: t.endIndex, text: newName }));
    return { edits, unresolved: [], uncertain: [], target: "the module's export list", declaration: null };
  }
  if (site.kind === "member") {
    const member = name.slice(name.lastIndexOf(".") + 1);
    const w = walk(rules, tree, [member]);
    const accesses = (w.leaves.get(member) ?? []).filter((t) => t.startPosition.row === site.line - 1 && accessObject(rules, t) !== undefined);
    if (accesses.length === 1)
      return { edits: [{ start: accesses[0]!.startIndex, end: accesses[0]!.endIndex, text: newName }], unresolved: [], uncertain: [], target: "a verified call of the member", declaration: null };
    const why = accesses.length === 0 ? "no access of the name on the line" : `${accesses.length} accesses of the name on the line`;
    return {
      edits: [],
      unresolved: [{ line: site.line, text: `a verified call of '${name}' (${why}: which one is the call is not certain)` }],
      uncertain: [],
      target: "a verified call of the member",
      declaration: null,
    };
  }
  if (site.kind === "package") {
    const w = walk(rules, tree, [name, newName]);
    if (w.truncated) throw new MastError("SEARCH_TRUNCATED", `the file nests deeper than the depth guard (${MAX_AST_DEPTH} levels): uses of '${name}' below it were not seen`);
    const index = new NameIndex(rules, tree.rootNode, name, w);
    const free = index.references.filter((ref) => index.resolve(ref) === null);
    if (free.length > 0 && clashes(rules, w, newName)) throw clash(newName, w);
    return {
      edits: free.map((t) => ({ start: t.startIndex, end: t.endIndex, text: newName })),
      unresolved: opaqueMentions(rules, w, name),
      uncertain: [],
      target: "uses in the package",
      declaration: null,
    };
  }
  if (site.kind === "namespace") {
    const w = walk(rules, tree, [name]);
    const edits: TextEdit[] = [];
    for (const token of w.leaves.get(name) ?? []) if (accessObject(rules, token, true)?.text === site.local) edits.push({ start: token.startIndex, end: token.endIndex, text: newName });
    return { edits, unresolved: opaqueMentions(rules, w, name), uncertain: [], target: `accesses through namespace ${site.local}`, declaration: null };
  }
  const tokens = onStatement();
  if (tokens.length === 0)
    throw new MastError("SYMBOL_NOT_FOUND", `no import or re-export of '${name}' on line ${site.line}: the index is behind the file`, { hint: "Run `mast index --incremental` and plan again." });
  return {
    edits: tokens.map((t) => ({ start: t.startIndex, end: t.endIndex, text: newName })),
    unresolved: [],
    uncertain: [],
    target: site.kind === "export_from" ? "re-export" : "aliased import",
    declaration: null,
  };
}

/**
 * The object of the member access `token` is the member of (`obj` in `obj.name`, `m` in `m::name`;
 * with `qualified`, a type path's too: `pkg.Type`), or undefined when it is none.
 */
function accessObject(rules: EditRules, token: SyntaxNode, qualified = false): SyntaxNode | null | undefined {
  const parent = token.parent;
  const access = parent ? (rules.memberAccess[parent.type] ?? (qualified ? rules.qualifiedTypes?.[parent.type] : undefined)) : undefined;
  return access && sameNode(parent!.childForFieldName(access.member), token) ? parent!.childForFieldName(access.object) : undefined;
}

/** Mentions of the name inside nodes the rules cannot read (a Rust macro's token tree: `vec![m::Thing]`): uses no edit can be sure of. */
function opaqueMentions(rules: EditRules, w: Walk, name: string): Array<{ line: number; text: string }> {
  return (w.leaves.get(name) ?? [])
    .filter((t) => rules.opaque.some((type) => ancestorOfType(t, type)))
    .map((t) => ({ line: lineOf(t), text: `${firstLine(t.parent!)} (inside a macro's tokens: the rename cannot tell what it names)` }));
}

/** Whether the new name is already used as a name in the file (bound, or a use of something bound elsewhere). */
function clashes(rules: EditRules, w: Walk, newName: string): boolean {
  return (w.leaves.get(newName) ?? []).some((t) => rules.identifiers.includes(t.type) && !rules.isKey(t) && accessObject(rules, t) === undefined);
}

function clash(newName: string, w: Walk): MastError {
  const at = (w.leaves.get(newName) ?? [])[0];
  return new MastError("AMBIGUOUS_SYMBOL", `'${newName}' is already a name in the file${at ? ` (line ${lineOf(at)})` : ""}: renaming to it could change what a name refers to; nothing was renamed`, {
    hint: "Pick a name the file does not use yet.",
  });
}
