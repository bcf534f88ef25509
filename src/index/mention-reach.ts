// Which files a rewrite that kept its symbol rows reaches through the names whose face moved
// (store/link-face.ts), in a language whose files write every name their edges read
// (LanguageSpec.relinkByMention: Go). A file's edges are read from its own rows — its call sites,
// its declarations' return types and types' signatures, its heritage — and from the faces of the
// declarations those name, and of those theirs' name in turn (`p.NewT().F.M()` reads NewT's
// return type T, T's field F, F's type's method M). A value of a package's type reaches only files
// importing that package, or importing one that imports it, and so on: the files read are the
// changed files' packages and every package importing them, transitively. Of those, a moved name
// reaches the files writing it; where a declaration's face writes it (a return type, a struct's
// field type, an embedded type), that declaration's name moves too, to a fixpoint. Words are
// compared whole and by package: `a.T` names package a's T where the file imports it as `a`, a
// bare `T` its own package's (or a dot-import's); a word a call site's other strings may qualify,
// or a member written after a value, is taken to name it — a superset.
import { symbolTextReader, type Db } from "../store/db.js";
import { storedCallStrings, unstoredCalls, type CallRow, type CallStrings } from "../store/call-rows.js";
import { forEachCallPack, heritageFacts, importFacts, importerFileIds, symbolFaceRows } from "../store/link-inputs.js";

/** ASCII identifier characters. Any other bounds a word — a non-ASCII letter too: more files write a word so, never fewer. */
const WORD = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") WORD[c.charCodeAt(0)] = 1;
const inWord = (code: number): boolean => code < 128 && WORD[code] === 1;

/**
 * Whether `text` writes `word` whole (where `bounds` marks a string's start (1) or end (2), a word
 * is bounded there too) as `means` has it: given the word's qualifier where one is written before
 * it in the same string (`a.` in `a.T`: null when none), whether that occurrence may name it.
 */
function writes(text: string, word: string, means: (qualifier: string | null) => boolean, bounds?: Uint8Array): boolean {
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    const end = at + word.length;
    const starts = bounds !== undefined && (bounds[at]! & 1) !== 0;
    const before = at === 0 || starts || !inWord(text.charCodeAt(at - 1));
    const after = end === text.length || (bounds !== undefined && (bounds[end]! & 2) !== 0) || !inWord(text.charCodeAt(end));
    if (!before || !after) continue;
    let from = at - 1;
    if (starts || at === 0 || text.charCodeAt(from) !== 46 /* . */) {
      if (means(null)) return true;
      continue;
    }
    while (from > 0 && inWord(text.charCodeAt(from - 1)) && !(bounds !== undefined && (bounds[from]! & 1) !== 0)) from--;
    // A qualifier with a non-ASCII character is not read whole: "" (no import binds it) may name anything.
    const cut = from > 0 && text.charCodeAt(from - 1) >= 128 && !(bounds !== undefined && (bounds[from]! & 1) !== 0);
    if (means(cut ? "" : text.slice(from, at - 1))) return true;
  }
  return false;
}

/** An import row's local names (a JSON list: store/file-rows.ts), none when unreadable. */
function parseLocals(locals: string): string[] {
  try {
    const list: unknown = JSON.parse(locals);
    return Array.isArray(list) ? list.filter((l): l is string => typeof l === "string") : [];
  } catch {
    return [];
  }
}

/**
 * A declaration's face as others' edges read it — the values (its return type, alias, re-export)
 * and, for a type, its signature (a struct's fields' types) — and the name that moves when one of
 * those words did; a class's heritage (Go: the types a struct or interface embeds) moves its
 * method set with the embedded one's.
 */
interface Face {
  readonly values: string;
  readonly signature: string;
  /** The name it moves: a member's (a method's: what its callers write), or a declaration's own. */
  readonly gives: string;
  readonly member: boolean;
  readonly heritage: boolean;
  /** 0: held; 1: its method set moved (heritage only); 2: moved. */
  level: 0 | 1 | 2;
}

/** What the closure reads of one file: the strings its call sites write, the names it declares, its declarations' faces. */
interface FileText {
  readonly fileId: number;
  calls: CallStrings | null;
  /** Its call-site pack as stored, unpacked (`sites`) only where a moved name's word is in its strings. */
  packed: Uint8Array | null;
  sites: CallRow[] | null;
  /** The names of its declarations that have no parent (a type's, whose method set others read). */
  readonly declares: Set<string>;
  readonly faces: Face[];
  /** Every face's texts, for a quick look before each face's. */
  faceText: string;
  /** How many of the moved words it has been read against. */
  checked: number;
  /** Its package (the key `packageKey` gives), each import's local name → the package it resolved to (null: outside the project), and the packages it imports binding no name (`.`). */
  readonly pkg: number;
  readonly imports: Map<string, number | null>;
  readonly dots: Set<number>;
}

/**
 * Whether others' edges read a declaration's signature: a struct's or a defined type's (its
 * fields' types, which LanguageSpec.fieldType reads from a `struct {…}` body). An interface's
 * lists its methods' names (their callers write them) and is read only for such a body; a
 * function's return type is its `returnType` (a relinkByMention language's `returnedType` reads no
 * signature).
 */
function signatureRead(kind: string, signature: string): boolean {
  return kind === "class" || kind === "type" || (kind === "interface" && signature.includes("struct"));
}

/**
 * A type's declaration without its struct tags and line comments, no field's type (fieldType reads
 * neither); block comments and quoted strings are scanned whole first (a backtick or `//` inside
 * one is neither), and kept (fieldType reads a field-shaped line inside a block comment).
 */
function withoutTagsAndLineComments(declaration: string): string {
  return declaration.replace(/\/\*[\s\S]*?\*\/|"(?:[^"\\\n]|\\.)*"|`[^`]*`|\/\/[^\n]*/g, (m) => (m.startsWith("/*") || m.startsWith('"') ? m : " "));
}

/** A method's name as its member (`T.M` → `M`): what its callers write. */
function memberName(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}

function readTexts(db: Db, fileIds: readonly number[], packageKey: (fileId: number) => number): FileText[] {
  const byFile = new Map<number, FileText>(
    fileIds.map((fileId) => [
      fileId,
      { fileId, calls: null, packed: null, sites: null, declares: new Set(), faces: [], faceText: "", checked: 0, pkg: packageKey(fileId), imports: new Map(), dots: new Set() },
    ]),
  );
  for (const im of importFacts(db, fileIds)) {
    const file = byFile.get(im.fileId)!;
    const target = im.target === null ? null : packageKey(im.target);
    const locals = parseLocals(im.locals);
    // An import binding no name brings its package's names into scope (Go's `import . "p"`).
    if (locals.length === 0 && target !== null) file.dots.add(target);
    for (const local of locals) file.imports.set(local, target);
  }
  const texts = symbolTextReader(db);
  for (const [fileId, id, name, kind, parent, ...read] of symbolFaceRows(db, fileIds)) {
    const file = byFile.get(fileId)!;
    if (parent === null) file.declares.add(name);
    const values = read.filter((t) => t !== null).join("\n");
    const written = kind === "class" || kind === "type" || kind === "interface" ? (texts(fileId, id).signature ?? "") : "";
    const signature = signatureRead(kind, written) ? withoutTagsAndLineComments(written) : "";
    if (values !== "" || signature !== "") file.faces.push({ values, signature, gives: memberName(name), member: parent !== null, heritage: false, level: 0 });
  }
  for (const h of heritageFacts(db, fileIds)) byFile.get(h.fileId)!.faces.push({ values: h.target, signature: "", gives: h.className, member: false, heritage: true, level: 0 });
  forEachCallPack(db, fileIds, (fileId, packed) => {
    const file = byFile.get(fileId)!;
    file.packed = packed;
    file.calls = storedCallStrings(fileId, packed);
  });
  for (const file of byFile.values()) file.faceText = file.faces.map((f) => `${f.values}\n${f.signature}`).join("\n");
  return [...byFile.values()];
}

/**
 * A moved word: a declaration's name (`name`), a member's (`member`: a method's, which its callers'
 * sites write; a face — a type as written — never does), or a type whose method set moved
 * (`owner`: its declarations and the types embedding it); with its UTF-8 bytes as a latin1 string
 * (how call-site packs are searched).
 */
interface Moved {
  readonly text: string;
  readonly bytes: string;
  readonly as: "name" | "member" | "owner";
  /** The package declaring it (`packageKey`). */
  readonly pkg: number;
}

/** Receivers that are values: a site on one calls a member (a method), never a declaration by its name. */
const VALUE_RECEIVERS = new Set(["this", "super", "typed", "returned"]);

/** How many moved words the closure follows before it stops: past it, a change reaches every file importing its file. */
export const MENTION_WORDS = 256;

/**
 * The changed files' packages and every package importing one of them, transitively: the files a
 * value of a type they declare can reach.
 */
function importingPackages(db: Db, packageOf: (fileId: number) => readonly number[] | undefined, changed: Iterable<number>): number[] {
  const files = new Set<number>();
  let next = [...changed];
  while (next.length > 0) {
    const members: number[] = [];
    for (const fileId of next) {
      for (const m of packageOf(fileId) ?? [fileId]) {
        if (files.has(m)) continue;
        files.add(m);
        members.push(m);
      }
    }
    next = importerFileIds(db, members).filter((id) => !files.has(id));
  }
  return [...files];
}

/**
 * The files whose edges the kept rewrites in `changed` (file → the names whose face moved) can
 * alter, or null past MENTION_WORDS moved words: of the files importing their packages
 * (transitively), the rewritten files, those whose call sites write a moved name or member, those
 * declaring a type whose method set moved (a method came, went or moved: its interfaces are
 * derived again where it is declared), and those with a declaration whose face writes a moved
 * word — which moves that declaration's name too (a type embedding one whose method set moved: its
 * method set), to a fixpoint.
 */
export function mentionReach(db: Db, packageOf: (fileId: number) => readonly number[] | undefined, changed: ReadonlyMap<number, ReadonlySet<string>>): number[] | null {
  const packageKey = (fileId: number): number => packageOf(fileId)?.[0] ?? fileId;
  const moved: Moved[] = [];
  const known = new Set<string>();
  // The owners and member names moved so far, kept as they grow (every site check reads them).
  const owners: Moved[] = [];
  const members = new Set<string>();
  const move = (text: string, as: Moved["as"], pkg: number): void => {
    const key = `${as}\0${pkg}\0${text}`;
    if (known.has(key)) return;
    known.add(key);
    const w: Moved = { text, bytes: Buffer.from(text, "utf8").toString("latin1"), as, pkg };
    moved.push(w);
    if (as === "owner") owners.push(w);
    else if (as === "member") members.add(text);
  };
  for (const [fileId, set] of changed) {
    for (const name of set) {
      const dot = name.lastIndexOf(".");
      if (dot > 0) {
        move(name.slice(0, dot), "owner", packageKey(fileId));
        move(name.slice(dot + 1), "member", packageKey(fileId));
      } else if (name !== "") move(name, "name", packageKey(fileId));
    }
  }
  // Whether an occurrence in `file` may name `w`: qualified, by an import of w's package (or by a
  // word no import binds: a value's field, as may be); unqualified, in w's package or one importing
  // it with `.` — or in a call site's strings, where another string of the site may qualify it
  // (`a` and `F` of `a.F()`). A member is written after a value: any occurrence may name it.
  const means =
    (file: FileText, w: Moved, site: boolean) =>
    (qualifier: string | null): boolean => {
      if (w.as === "member") return true;
      if (qualifier === null) return site || file.pkg === w.pkg || file.dots.has(w.pkg);
      const target = file.imports.get(qualifier);
      return target === undefined || target === w.pkg;
    };
  // A site's callee names a declaration (not a member) when the site is bare (its package's, or a
  // dot-import's) or qualified by a namespace or a type name another package's may stand for.
  const sitesOf = (file: FileText): CallRow[] => (file.sites ??= file.packed === null ? [] : unstoredCalls(file.fileId, file.packed));
  // Whether a site on a value whose type it writes (a typed receiver, `this`) calls a member of
  // `owner` or of a type embedding it (those are owners too): its type is the owner, or not one
  // this reads (a field's type, `T#f`; a producer's, `p()`: taken to be).
  const onOwner = (file: FileText, c: CallRow, owner: Moved): boolean => {
    const written = c.receiverName ?? "";
    const m = /^[*[\]]*((?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)(?:\[.*\])?$/.exec(written);
    if (m === null) return true;
    const dot = m[1]!.lastIndexOf(".");
    return m[1]!.slice(dot + 1) === owner.text && means(file, owner, false)(dot < 0 ? null : m[1]!.slice(0, dot));
  };
  // Whether one of the file's sites reads `w`: a declaration's name as its callee on a bare call
  // (its package, or a dot-importer) or on a namespace or type qualifier bound to its package (a
  // call on a value is a member's); a member's as its callee on a value of an owner's type, or of
  // a type not written (a producer's), or on a qualifier; either as a word of the receiver's path
  // (`a.NewT().F`: the producer's return type is read).
  const siteReads = (file: FileText, w: Moved): boolean => {
    const q = means(file, w, false);
    return sitesOf(file).some((c) => {
      if (c.callee === w.text) {
        const value = VALUE_RECEIVERS.has(c.receiver);
        if (w.as === "member") {
          if (c.receiver !== "bare" && (!value || c.receiver === "returned" || owners.some((o) => onOwner(file, c, o)))) return true;
        } else if (c.receiver === "bare") {
          if (q(null)) return true;
        } else if (c.receiver === "namespace" || c.receiver === "static") {
          if (q(c.receiverName ?? "")) return true;
        } else if (!value) return true;
      }
      return [c.receiverName, c.resolution].some((t) => t !== null && writes(t, w.text, q));
    });
  };
  // An owner new to the fixpoint: the file's sites calling a moved member on a value of its type.
  const ownerSites = (file: FileText, owner: Moved): boolean =>
    members.size > 0 && sitesOf(file).some((c) => members.has(c.callee) && (c.receiver === "typed" || c.receiver === "this" || c.receiver === "super") && onOwner(file, c, owner));
  const out = new Set<number>(changed.keys());
  const files = readTexts(db, importingPackages(db, packageOf, changed.keys()), packageKey);
  for (let total = 0; total < moved.length; ) {
    if (moved.length > MENTION_WORDS) return null;
    total = moved.length;
    for (const file of files) {
      const fresh = moved.slice(file.checked, total);
      file.checked = total;
      if (fresh.length === 0) continue;
      if (!out.has(file.fileId)) {
        const calls = file.calls;
        const reads = (w: Moved) =>
          w.as === "owner"
            ? (file.pkg === w.pkg && file.declares.has(w.text)) || (calls !== null && writes(calls.bytes, w.bytes, means(file, w, true), calls.bounds) && ownerSites(file, w))
            : calls !== null && writes(calls.bytes, w.bytes, means(file, w, true), calls.bounds) && siteReads(file, w);
        if (fresh.some(reads)) out.add(file.fileId);
      }
      if (!fresh.some((w) => file.faceText.includes(w.text))) continue;
      for (const face of file.faces) {
        let level = face.level;
        for (const w of fresh) {
          const named = (text: string) => writes(text, w.text, means(file, w, false));
          if (w.as === "owner" ? face.heritage && level < 1 && named(face.values) : w.as === "name" && level < 2 && (named(face.values) || named(face.signature))) level = w.as === "owner" ? 1 : 2;
        }
        if (level === face.level) continue;
        face.level = level;
        out.add(file.fileId);
        move(face.gives, level === 1 ? "owner" : face.member ? "member" : "name", file.pkg);
      }
    }
  }
  return [...out].sort((a, b) => a - b);
}
