// index/mention-reach.ts against a real Go project's store: the files a kept rewrite's moved names
// reach — those writing them among the package and its importers, through faces (a return type,
// an embedded type's method set) to a fixpoint — and none that only write a longer word, or that
// cannot see the package. The lifecycle tests check the same reach against a fresh build.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MENTION_WORDS, mentionReach } from "../../src/index/mention-reach.js";
import { runIndex } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { Store } from "../../src/store/store.js";
import { tempSpace } from "../helpers/project.js";

const space = tempSpace();

const FILES = {
  "go.mod": "module example.com/app\n\ngo 1.21\n",
  "a/t.go":
    'package a\n\ntype A struct{}\n\nfunc (A) M() {}\n\ntype T struct{ F A }\n\nfunc (T) Open() {}\n\nfunc NewT() T { return T{} }\n\ntype Maker interface{ NewT() T }\n\ntype Opts struct {\n\t// N is what NewT reads.\n\tN int `json:"NewT"`\n}\n',
  "a/u.go": "package a\n\nfunc Use() { NewT().Open() }\n",
  "b/b.go":
    'package b\n\nimport "example.com/app/a"\n\ntype S struct{ a.T }\n\nfunc Make() a.T { return a.NewT() }\n\nfunc Other() int { return 1 }\n\nfunc Build() a.Maker { return nil }\n\nfunc Conf() a.Opts { return a.Opts{} }\n',
  "c/c.go": 'package c\n\nimport "example.com/app/b"\n\ntype Closer interface{ Close() }\n\nfunc Go() { b.Make().Close() }\n\nfunc Other() { b.Other(); b.Build(); b.Conf() }\n',
  "d/d.go": 'package d\n\nimport "example.com/app/a"\n\ntype Files struct{}\n\nfunc (Files) OpenAll() {}\n\nfunc Plain() { a.NewT(); Files{}.OpenAll() }\n',
  "e/e.go": 'package e\n\nimport "example.com/app/c"\n\nfunc Far() { c.Other() }\n',
  "f/f.go": "package f\n\nfunc NewT() int { return 1 }\n\nfunc Close() {}\n\nfunc X() { NewT(); Close() }\n",
  "x/x.go": "package x\n\ntype T struct{}\n\nfunc New() T { return T{} }\n",
  "k/k.go": 'package k\n\nimport (\n\t"example.com/app/a"\n\t"example.com/app/x"\n)\n\nfunc K() { x.New(); a.NewT().Open() }\n',
  "l/l.go": 'package l\n\nimport "example.com/app/a"\n\nfunc L() { a.New() }\n',
  "m/m.go": 'package m\n\nimport "example.com/app/a"\n\nvar _ a.A\n\ntype Door struct{}\n\nfunc (Door) Open() {}\n\nfunc M(d Door) { d.Open() }\n',
  "n/n.go": 'package n\n\nimport "example.com/app/b"\n\nfunc N(s b.S) { s.Open() }\n',
  "g/g.go": 'package g\n\nimport (\n\t"example.com/app/a"\n\t"example.com/app/x"\n)\n\nvar _ a.A\n\nfunc Other() x.T { return x.T{} }\n',
  "h/h.go": 'package h\n\nimport "example.com/app/g"\n\nfunc Far() { g.Other() }\n',
  "i/i.go": 'package i\n\nimport . "example.com/app/a"\n\nfunc Y() T { return NewT() }\n',
  "j/j.go": 'package j\n\nimport "example.com/app/i"\n\nfunc Z() { i.Y().Open() }\n',
};

describe("mention reach", () => {
  it("reaches the files writing a moved name, and through faces those writing a name that moved with it", async () => {
    const p = space.project(FILES);
    const stateDir = join(p.root, ".mast");
    await runIndex(p.config({ stateDir }), { mode: "full" });
    const store = Store.open(statePaths(stateDir).graphDb, { readonly: true });
    try {
      const files = store.db.prepare("SELECT id, path FROM files WHERE language = 'go'").all() as Array<{ id: number; path: string }>;
      const id = (path: string) => files.find((f) => f.path === path)!.id;
      const dir = (path: string) => path.slice(0, path.lastIndexOf("/"));
      const packageOf = (fileId: number) => {
        const path = files.find((f) => f.id === fileId)!.path;
        return files
          .filter((f) => dir(f.path) === dir(path))
          .map((f) => f.id)
          .sort((x, y) => x - y);
      };
      const reach = (names: string[]) => {
        const out = mentionReach(store.db, packageOf, new Map([[id("a/t.go"), new Set(names)]]));
        return out === null ? null : out.map((f) => files.find((x) => x.id === f)!.path);
      };
      // A function no file calls: its own file.
      expect(reach(["Extra"])).toEqual(["a/t.go"]);
      // A function's callers by the package their call names: l's `a.New()`, not k's `x.New()`.
      expect(reach(["New"])).toEqual(["a/t.go", "l/l.go"]);
      // A function's face: the files calling it (f calls its own NewT: it does not import a). Maker
      // lists a method of that name: an interface's signature is not read, so Maker, and c's
      // `b.Build()` returning it, hold; Opts writes it in a comment and a tag: no field's type.
      expect(reach(["NewT"])).toEqual(["a/t.go", "a/u.go", "b/b.go", "d/d.go", "i/i.go", "k/k.go"]);
      // A method came or went: its callers (not d's `OpenAll`, nor m's `d.Open()` on its own Door;
      // j's through a dot-importer; n's on b's S, whose method set moved with T's, as b's did).
      expect(reach(["T.Open"])).toEqual(["a/t.go", "a/u.go", "b/b.go", "j/j.go", "k/k.go", "n/n.go"]);
      // T gains Close: c calls `b.Make().Close()` (it never writes T); f's `Close()` cannot see a.
      expect(reach(["T.Close"])).toEqual(["a/t.go", "b/b.go", "c/c.go"]);
      // T's fields moved: NewT and Make return it (their callers, c through Make), S embeds it; g's
      // Other returns x's T, another package's (so h, calling it, is not reached); i's Y returns it
      // through a dot-import (so j, calling Y, is).
      expect(reach(["T"])).toEqual(["a/t.go", "a/u.go", "b/b.go", "c/c.go", "d/d.go", "i/i.go", "j/j.go", "k/k.go", "n/n.go"]);
      // Past MENTION_WORDS moved words: null (the caller relinks every file reaching the change).
      expect(reach(Array.from({ length: MENTION_WORDS + 1 }, (_, i) => `Name${i}`))).toBeNull();
    } finally {
      store.close();
    }
  });
});
