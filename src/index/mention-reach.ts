// Which files a rewrite that kept its symbol rows reaches through the names whose face moved
// (store/link-face.ts), in a language whose files write every name their edges read
// (LanguageSpec.relinkByMention: Go). A file's edges are read from its own rows — its call sites,
// its declarations, their signatures and return types, its heritage — and from the faces of the
// declarations those name, and of those theirs' name in turn (`p.NewT().F.M()` reads NewT's
// return type T, T's field F, F's type's method M). So a name's change reaches the files whose
// rows write it, and, where a declaration's face writes it (a return type, a field's type, an
// embedded type, a signature), that declaration's name becomes changed too, in its package — to a
// fixpoint. Words are compared as identifiers, whatever package declares them: a superset.
import { symbolTextReader, type Db } from "../store/db.js";
import type { CallStrings } from "../store/call-rows.js";
import { forEachCallStrings, heritageFacts, importerFileIds, symbolFaceRows } from "../store/link-inputs.js";

/** ASCII identifier characters. Any other bounds a word — a non-ASCII letter too: more files write a word so, never fewer. */
const WORD = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") WORD[c.charCodeAt(0)] = 1;
const inWord = (code: number): boolean => code < 128 && WORD[code] === 1;

/** Whether `text` writes `word` whole; where `bounds` marks a string's start (1) or end (2), a word is bounded there too. */
function writes(text: string, word: string, bounds?: Uint8Array): boolean {
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    const end = at + word.length;
    const before = at === 0 || (bounds !== undefined && (bounds[at]! & 1) !== 0) || !inWord(text.charCodeAt(at - 1));
    const after = end === text.length || (bounds !== undefined && (bounds[end]! & 2) !== 0) || !inWord(text.charCodeAt(end));
    if (before && after) return true;
  }
  return false;
}

/**
 * What a declaration's face writes — the values others read (its return type, alias, re-export)
 * and its signature (where a struct's field types and a function's return type are read from) —
 * and the name that moves when one of those words did; a class's heritage (Go: the types a struct
 * or interface embeds) moves its method set with the embedded one's.
 */
interface Face {
  readonly values: string;
  readonly signature: string;
  /** Its own name's words and its parent's (a method's receiver is its own, not a word it reads). */
  readonly own: readonly string[];
  /** The name it moves: a member's (a method's: what its callers write), or a declaration's own. */
  readonly gives: string;
  readonly member: boolean;
  readonly heritage: boolean;
  /** 0: held; 1: its method set moved (heritage only); 2: moved. */
  level: 0 | 1 | 2;
}

/** What the closure reads of one file: the strings its call sites write, the names it declares, and its declarations' faces. */
interface FileText {
  readonly fileId: number;
  calls: CallStrings | null;
  /** The names of its declarations that have no parent (a type's, whose method set others read). */
  readonly declares: Set<string>;
  readonly faces: Face[];
  /** Every face's texts, for a quick look before each face's. */
  faceText: string;
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

/** A method's name as its member (`T.M` → `M`): what its callers write. */
function memberName(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}

function readTexts(db: Db, fileIds: readonly number[]): FileText[] {
  const byFile = new Map<number, FileText>(fileIds.map((fileId) => [fileId, { fileId, calls: null, declares: new Set(), faces: [], faceText: "" }]));
  const texts = symbolTextReader(db);
  for (const [fileId, id, name, kind, parent, ...read] of symbolFaceRows(db, fileIds)) {
    const file = byFile.get(fileId)!;
    if (parent === null) file.declares.add(name);
    const values = read.filter((t) => t !== null).join("\n");
    const written = kind === "class" || kind === "type" || kind === "interface" ? (texts(fileId, id).signature ?? "") : "";
    const signature = signatureRead(kind, written) ? written : "";
    if (values === "" && signature === "") continue;
    const own = parent === null ? name.split(".") : [...name.split("."), parent];
    file.faces.push({ values, signature, own, gives: memberName(name), member: parent !== null, heritage: false, level: 0 });
  }
  for (const h of heritageFacts(db, fileIds)) byFile.get(h.fileId)!.faces.push({ values: h.target, signature: "", own: [], gives: h.className, member: false, heritage: true, level: 0 });
  forEachCallStrings(db, fileIds, (fileId, strings) => void (byFile.get(fileId)!.calls = strings));
  for (const file of byFile.values()) file.faceText = file.faces.map((f) => `${f.values}\n${f.signature}`).join("\n");
  return [...byFile.values()];
}

/** A moved word, and its UTF-8 bytes as a latin1 string (how a call-site pack's strings are searched). */
interface Word {
  readonly text: string;
  readonly bytes: string;
}

function word(text: string): Word {
  return { text, bytes: Buffer.from(text, "utf8").toString("latin1") };
}

/** How many moved words the closure follows before it stops: past it, a change reaches every file importing its file. */
export const MENTION_WORDS = 256;

/**
 * The files whose edges the kept rewrites in `changed` (file → the names whose face moved) can
 * alter, or null past MENTION_WORDS moved words: the rewritten files, and of their packages and
 * the files importing them, those whose rows write a moved name or declare a type whose method
 * set moved (a method came, went or moved: its type's interfaces are derived again where it is
 * declared). A declaration of those whose face writes a moved name moves too — a member's name (a
 * method's) only where a value is read (a return type, a variable's producer path), not in a
 * signature, where it is a method's or a field's own — and a type embedding one whose method set
 * moved has its own moved; their packages and importers are read in turn.
 */
export function mentionReach(db: Db, packageOf: (fileId: number) => readonly number[] | undefined, changed: ReadonlyMap<number, ReadonlySet<string>>): number[] | null {
  // Moved names as their users write them: declarations' own, members' (`T.M` → `M`), and the types whose method set moved.
  const names = new Map<string, Word>();
  const members = new Map<string, Word>();
  const owners = new Set<string>();
  for (const set of changed.values()) {
    for (const name of set) {
      const dot = name.lastIndexOf(".");
      if (dot > 0) {
        owners.add(name.slice(0, dot));
        members.set(name.slice(dot + 1), word(name.slice(dot + 1)));
      } else if (name !== "") names.set(name, word(name));
    }
  }
  const calls = (file: FileText, words: Iterable<Word>): boolean => {
    if (file.calls === null) return false;
    for (const w of words) if (writes(file.calls.bytes, w.bytes, file.calls.bounds)) return true;
    return false;
  };
  const faceWrites = (text: string, face: Face, words: Iterable<Word>): boolean => {
    for (const w of words) if (!face.own.includes(w.text) && writes(text, w.text)) return true;
    return false;
  };
  // A face's values read a moved member (a producer path's method) or name; its signature a moved name.
  const anyFace = (file: FileText): boolean => {
    for (const w of [...names.values(), ...members.values()]) {
      if (!file.faceText.includes(w.text)) continue;
      if (file.faces.some((f) => faceWrites(f.values, f, [w]) || (names.has(w.text) && faceWrites(f.signature, f, [w])))) return true;
    }
    return false;
  };
  const out = new Set<number>(changed.keys());
  const read = new Map<number, FileText>();
  const packagesRead = new Set<number>();
  let pending = [...changed.keys()];
  while (pending.length > 0) {
    // The moved names' packages, and the files importing them: every file that can see them.
    const seen = new Set<number>();
    for (const fileId of pending) {
      const pkg = packageOf(fileId) ?? [fileId];
      if (packagesRead.has(pkg[0]!)) continue;
      packagesRead.add(pkg[0]!);
      for (const m of pkg) seen.add(m);
    }
    pending = [];
    const seeing = [...new Set([...seen, ...importerFileIds(db, [...seen])])].filter((id) => !read.has(id));
    for (const t of readTexts(db, seeing)) read.set(t.fileId, t);
    for (let grew = true; grew; ) {
      grew = false;
      if (names.size + members.size + owners.size > MENTION_WORDS) return null;
      const moved = [...names.values(), ...members.values()];
      for (const file of read.values()) {
        if (!out.has(file.fileId) && (calls(file, moved) || anyFace(file) || [...owners].some((o) => file.declares.has(o)))) out.add(file.fileId);
        // A face moves only where the file's faces write a moved word at all.
        if (!moved.some((w) => file.faceText.includes(w.text)) && ![...owners].some((o) => file.faceText.includes(o))) continue;
        for (const face of file.faces) {
          const whole = face.level < 2 && (faceWrites(face.values, face, moved) || faceWrites(face.signature, face, names.values()));
          const level = whole ? 2 : face.level < 1 && face.heritage && [...owners].some((o) => writes(face.values, o)) ? 1 : face.level;
          if (level === face.level) continue;
          face.level = level;
          out.add(file.fileId);
          pending.push(file.fileId);
          const into = level === 1 ? owners : face.member ? members : names;
          if (into.has(face.gives)) continue;
          if (into instanceof Set) into.add(face.gives);
          else into.set(face.gives, word(face.gives));
          grew = true;
        }
      }
    }
  }
  return [...out].sort((a, b) => a - b);
}
