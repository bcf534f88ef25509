// rust-calls: the call sites of a Rust crate's own functions and methods, as rustc resolves them —
// the ground truth of bench/callers-oracle.mjs for Rust. rustc (Debian's `rustc`) prints the MIR
// of every function of the crate, tests included (`--test`), with full paths
// (`-Ztrim-diagnostic-paths=false`) and each statement's source span (`-Zmir-include-spans`);
// RUSTC_BOOTSTRAP=1 lets a stable rustc take those -Z flags. Every `Call` terminator whose callee
// is declared in the crate becomes a site: the line in the call's span where the called name is
// written (a call the compiler made up — a derive, the test harness — names nothing there and is
// left out), and the callee as {target_file, target_name} in mast's naming (`Type.method`, a trait's
// default method as `Trait.method`, an inline module's item as `module.item`).
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

/** The Call terminators of MIR text: callee path and the span's file and lines. */
const CALL = /^\s*(?:_\d+ = )?(.+?)\(.*\) -> (?:\[return|unwind).*\/\/ scope \d+ at ([^:]+):(\d+):\d+: (\d+):\d+$/;

/** Removes `::<…>` generic arguments and lifetimes (`<'_>`), nesting included. */
function stripGenerics(p) {
  let out = "";
  let depth = 0;
  for (let i = 0; i < p.length; i++) {
    if (depth === 0 && p.startsWith("::<", i)) {
      depth = 1;
      i += 2;
      continue;
    }
    if (depth > 0) {
      if (p[i] === "<") depth++;
      else if (p[i] === ">") depth--;
      continue;
    }
    out += p[i];
  }
  return out;
}

/** `--cfg feature="…"` for every feature the crate's Cargo.toml declares: all of its code is compiled. */
export function featureFlags(root) {
  const text = fs.readFileSync(path.join(root, "Cargo.toml"), "utf8");
  const table = /^\[features\]\s*$([^]*?)(?=^\[|(?![^]))/m.exec(text)?.[1] ?? "";
  return [...table.matchAll(/^\s*([\w-]+)\s*=/gm)].flatMap((m) => ["--cfg", `feature="${m[1]}"`]);
}

/** Each dependency (a Debian registry crate, `{crate, source, edition}`) compiled to an rlib under `out`: rustc's `--extern` and `-L` flags. */
export function externFlags(externs, out) {
  if (externs.length === 0) return [];
  fs.mkdirSync(out, { recursive: true });
  return externs.flatMap((e) => {
    const r = spawnSync("rustc", ["--edition", e.edition, "--crate-type", "rlib", "--crate-name", e.crate, "--cap-lints", "allow", "--out-dir", out, path.join(e.source, "src/lib.rs")], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`rustc ${e.crate} failed (exit ${r.status}):\n${r.stderr.slice(0, 2000)}`);
    return ["--extern", `${e.crate}=${path.join(out, `lib${e.crate}.rlib`)}`, "-L", out];
  });
}

/** The crate's MIR, compiled once with every feature on and once with none (code under `cfg(feature)` and under `cfg(not(feature))` both counted). */
function mirText(root, crateName, edition, externs) {
  const deps = externFlags(externs, path.join(path.dirname(root), "rust-externs"));
  return [featureFlags(root), []]
    .map((features) => {
      const r = spawnSync("rustc", ["--edition", edition, "--crate-type", "lib", "--crate-name", crateName, "--test", ...features, ...deps, "-Zunpretty=mir", "-Zmir-include-spans", "-Ztrim-diagnostic-paths=false", "--cap-lints", "allow", "src/lib.rs"], {
        cwd: root,
        encoding: "utf8",
        maxBuffer: 1024 * 1024 * 1024,
        env: { ...process.env, RUSTC_BOOTSTRAP: "1" },
      });
      if (r.status !== 0) throw new Error(`rustc failed (exit ${r.status}):\n${r.stderr.slice(0, 2000)}`);
      return r.stdout;
    })
    .join("\n");
}

/** `corpus`: `{crate, edition, externs}` (bench/corpus.mjs CALLERS_CORPORA). */
export function rustCalls(root, corpus, symbolsByFile) {
  const src = path.join(root, "src");
  const mir = mirText(root, corpus.crate, corpus.edition, corpus.externs);
  const texts = new Map();
  const lines = (file) => {
    if (!texts.has(file)) texts.set(file, fs.existsSync(path.join(root, file)) ? fs.readFileSync(path.join(root, file), "utf8").split("\n") : []);
    return texts.get(file);
  };
  /** The file of a module path under src/ (`[]` → lib.rs), with the path's segments it did not use. */
  const moduleFile = (segs) => {
    for (let n = segs.length; n >= 0; n--) {
      const mod = segs.slice(0, n);
      const candidates = n === 0 ? ["lib.rs"] : [`${mod.join("/")}.rs`, `${mod.join("/")}/mod.rs`];
      for (const c of candidates) if (fs.existsSync(path.join(src, c))) return { file: `src/${c}`, rest: segs.slice(n) };
    }
    return null;
  };
  /** mast's name of a crate path's item in its file, or null when the file does not declare it. */
  const item = (segs) => {
    const m = moduleFile(segs);
    if (!m || m.rest.length === 0) return null;
    const name = m.rest.join(".");
    return symbolsByFile.get(m.file)?.has(name) ? { target_file: m.file, target_name: name } : null;
  };
  /** A type's method wherever the crate declares `Type.m` (an impl may sit in another module), when one file does. */
  const method = (type, m) => {
    const name = `${type}.${m}`;
    const files = [...symbolsByFile].filter(([, names]) => names.has(name)).map(([f]) => f);
    return files.length === 1 ? { target_file: files[0], target_name: name } : null;
  };
  const out = [];
  const seen = new Set();
  for (const line of mir.split("\n")) {
    const m = CALL.exec(line);
    if (!m) continue;
    const [, rawCallee, file, startLine, endLine] = m;
    const callee = stripGenerics(rawCallee.trim());
    let target = null;
    let called;
    const qualified = /^<(.+?) as (.+?)>::(\w+)$/.exec(callee);
    if (qualified) {
      // `<Type as Trait>::m`: the impl's method on Type, else the trait's own (default) method.
      const [, type, trait, m2] = qualified;
      called = m2;
      const typeSegs = type.split("::");
      const traitSegs = trait.split("::");
      target = (typeSegs.length > 1 ? item([...typeSegs, m2]) : null) ?? method(typeSegs[typeSegs.length - 1], m2) ?? item([...traitSegs, m2]);
    } else {
      const segs = callee.split("::");
      called = segs[segs.length - 1];
      if (segs[0] === "std" || segs[0] === "core" || segs[0] === "alloc") continue;
      target = item(segs) ?? (segs.length >= 2 ? method(segs[segs.length - 2], called) : null);
    }
    if (!target) continue;
    // The site is the line in the span where the called name is written.
    const text = lines(file);
    const re = new RegExp(`\\b${called}\\s*(?:\\(|::<|!)`);
    let at = null;
    for (let l = Number(startLine); l <= Number(endLine); l++) {
      if (re.test(text[l - 1] ?? "")) {
        at = l;
        break;
      }
    }
    // The declaration's own line (the test harness calls each `#[test]` fn "from" it) is no site.
    if (at === null || new RegExp(`\\bfn\\s+${called}\\b`).test(text[at - 1])) continue;
    const key = `${file}:${at}>${target.target_file}:${target.target_name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ file, line: at, ...target, name: called });
  }
  return out;
}
