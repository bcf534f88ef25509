// What TypeScript and JavaScript share: ECMAScript's extractor and resolver, built-in types and
// methods, identifier, comment and import-line syntax and external imports — one object both
// specs spread.
import { isExternalSpecifier } from "../base/paths.js";
import { ECMASCRIPT_EDITS } from "./ecmascript-edits.js";
import { C_BLOCK_COMMENT, RECEIVER_TYPE, type LanguageSpec } from "./spec.js";

export const ECMASCRIPT_BUILTIN_TYPES: ReadonlySet<string> = new Set(
  "string number boolean bigint symbol object unknown any never void undefined null true false this keyof typeof infer readonly unique asserts is extends in out Array ReadonlyArray Promise PromiseLike Record Partial Required Readonly Pick Omit Exclude Extract NonNullable ReturnType Parameters InstanceType Awaited Map Set WeakMap WeakSet Date RegExp Error Function Object String Number Boolean Symbol Iterable Iterator AsyncIterable AsyncIterator Generator AsyncGenerator IterableIterator Uint8Array ArrayBuffer".split(
    " ",
  ),
);

/** Common methods of the built-in types: `str.match(/re/)`, `map.get(k)` and `arr.find(f)` name them far more often than any project method. */
export const ECMASCRIPT_BUILTIN_METHODS: ReadonlySet<string> = new Set(
  "match matchAll replace replaceAll split search test exec get set has delete clear add push pop shift unshift map filter find findIndex some every reduce forEach includes indexOf join slice splice concat sort keys values entries then catch finally call apply bind toString parse stringify trim startsWith endsWith padStart padEnd charAt at fill flat flatMap reverse assign freeze".split(
    " ",
  ),
);

export const ECMASCRIPT_IDENTIFIER = "#?[A-Za-z_$][\\w$]*";
export const ECMASCRIPT_COMMENT_PREFIXES = ["//", "/*", "*"];

/** An import, re-export or require line. */
export const ECMASCRIPT_IMPORT_LINE = "^(?:import\\b|export\\s*(?:\\{|\\*|type\\s*\\{)[^]*\\bfrom\\b)|\\brequire\\s*\\(";

/** The rules of both ECMAScript specs (each adds its name, extensions and grammars). */
export const ECMASCRIPT_RULES = {
  extractor: "ecmascript",
  edits: ECMASCRIPT_EDITS,
  resolver: "ecmascript",
  checker: "compiler",
  scope: "file",
  structuralInterfaces: false,
  callableVariables: true,
  methodDispatch: "virtual",
  starImportsBind: false,
  builtinTypes: ECMASCRIPT_BUILTIN_TYPES,
  builtinMethods: ECMASCRIPT_BUILTIN_METHODS,
  identifier: ECMASCRIPT_IDENTIFIER,
  commentPrefixes: ECMASCRIPT_COMMENT_PREFIXES,
  blockComment: C_BLOCK_COMMENT,
  importLine: ECMASCRIPT_IMPORT_LINE,
  isExternalImport: isExternalSpecifier,
  // One named type: `User`, `Emitter<T>` (its methods are Emitter's), either with `| undefined` or
  // `| null` (a call on it is one on the type, as the checker reads it); other unions, arrays,
  // tuples, functions and literals name no one type. A promise names Promise, which no project declares.
  // `this` names the receiver's type.
  returnedType: (returnType, owner, _unwrapped, signature) => {
    // A method returning `this` returns its receiver (a builder's `min(n): this`): the receiver's type.
    if (owner !== null && returnType.trim() === "this") return RECEIVER_TYPE;
    const members = topLevelUnion(returnType).filter((m) => m !== "undefined" && m !== "null");
    const named = members.length === 1 ? namedTypeOf(members[0]!) : null;
    // A generic producer's own type parameter (`ident<Store>(x: Store): Store`) is no project type.
    return named !== null && signature !== null && typeParameters(signature).includes(named) ? null : named;
  },
  callGraph: {
    verified: [
      "`f()` of a function declared in the file or imported (named, an anonymous default export, through `export *` and named re-exports, tsconfig `paths`, workspace packages — a `main`, `typings` or deep import into the build output mapped to its source by the package tsconfig's `outDir`/`rootDir`)",
      "`ns.f()` through `import * as ns`, and `ns.sub.f()` through a namespace it re-exports (`export * as sub`)",
      "`f()` of a function declared inside the calling function or method (`outer.f`), in the block that declares it and bound once there",
      "`this.m()` and `super.m()` in a class (up its `extends` chain)",
      "`x.m()` where `x` is a local bound by `new C()` (bound more than once in a function: the binding whose scope holds the call), a top-level variable declared by `new C()` (in its file, and in importers when exported), or `this.x` a field initialised by `new C()`",
      "`C.m()` on a class declared or imported",
      "`f().m()`, `N.f().m()`, `C.f()?.m()`, chains of them (`ns.f().m().n()`, up to four calls), and `x.m()` where `x` is a local bound to such a call (`const x = f()`, no annotation), when each producer declares its return type as one named type (`T`, `T<…>`, either with `| undefined` or `| null`, or `this`: the receiver's); a method is looked up on the type, its `extends` chain and, for an interface, the interfaces it extends",
      "`new C()`",
    ],
    potentialOnly: [
      "receivers whose type is inferred (a producer without a declared return type, `await`ed promises, DI lookups, dynamic dispatch)",
      "`this.m()` inside a nested non-arrow function",
      "callbacks passed by name (`xs.map(f)`)",
    ],
  },
} as const satisfies Partial<LanguageSpec>;

/**
 * The one type a type expression names: `Store`, or `Store<…>` whose angle brackets close at its
 * very end (so not `A<T> & B`, `A<T> extends B ? C : D`, `A[]` or `A.B`).
 */
function namedTypeOf(type: string): string | null {
  const name = /^[A-Za-z_$][\w$]*/.exec(type)?.[0];
  if (!name) return null;
  if (name.length === type.length) return name;
  return type[name.length] === "<" && closingIndex(type, name.length) === type.length - 1 ? name : null;
}

/** The type parameters a declaration's text declares before its parameter list (`f<T, K extends X = Y>(…)` → T, K). */
function typeParameters(signature: string): string[] {
  const open = signature.indexOf("<");
  const paren = signature.indexOf("(");
  if (open === -1 || (paren !== -1 && paren < open)) return [];
  const close = closingIndex(signature, open);
  if (close === -1) return [];
  return splitTopLevel(signature.slice(open + 1, close), ",").flatMap((p) => /^\s*(?:const\s+|in\s+|out\s+)*([A-Za-z_$][\w$]*)/.exec(p)?.[1] ?? []);
}

/** The members of a type's top-level union (`A | B<C | D>` → `A`, `B<C | D>`), trimmed. */
function topLevelUnion(type: string): string[] {
  return splitTopLevel(type, "|")
    .map((m) => m.trim())
    .filter((m) => m !== "");
}

/** How the bracket depth changes at `i`: +1 at `<([{`, -1 at `>)]}` (the `>` of `=>` closes nothing). */
function depthStep(text: string, i: number): number {
  const ch = text[i]!;
  if ("<([{".includes(ch)) return 1;
  return ")]}".includes(ch) || (ch === ">" && text[i - 1] !== "=") ? -1 : 0;
}

/** `text` split at `separator` where no bracket is open. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    depth += depthStep(text, i);
    if (depth === 0 && text[i] === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** The index of the bracket that closes the one at `open`, or -1. */
function closingIndex(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    depth += depthStep(text, i);
    if (depth === 0) return i;
  }
  return -1;
}
