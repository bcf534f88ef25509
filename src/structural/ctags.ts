// The structural index's `symbol-only` backend: universal-ctags on PATH, asked for a JSON symbol
// table of the files it covers in one run (its file list and tags file in the state root, never the code root),
// its definitions kept with their scope, signature and end line. The call pass inside their
// boundaries is heuristic.ts's. Probed once per program per process.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { writeAtomic } from "../base/atomic.js";
import type { FoundDefinition } from "./heuristic.js";

export interface CtagsBackend {
  readonly program: string;
  readonly version: string;
}

const probed = new Map<string, CtagsBackend | null>();

/** Universal-ctags with JSON output on PATH (or the program `MAST_CTAGS` names; empty: none), or null. */
export function probeCtags(): CtagsBackend | null {
  const program = process.env.MAST_CTAGS ?? "ctags";
  if (probed.has(program)) return probed.get(program)!;
  const found = program === "" ? null : probe(program);
  probed.set(program, found);
  return found;
}

function probe(program: string): CtagsBackend | null {
  const version = spawnSync(program, ["--version"], { encoding: "utf8", timeout: 5_000 });
  const first = version.status === 0 ? (version.stdout.split("\n")[0] ?? "") : "";
  if (!first.startsWith("Universal Ctags")) return null;
  const features = spawnSync(program, ["--list-features"], { encoding: "utf8", timeout: 5_000 });
  if (features.status !== 0 || !/^json\b/m.test(features.stdout)) return null;
  return { program, version: /Universal Ctags ([^\s,]+)/.exec(first)?.[1] ?? "unknown" };
}

/** ctags kinds kept as declarations; the rest (variables, fields, parameters, imports) are not. */
const DECLARATION_KINDS: ReadonlySet<string> = new Set([
  "function",
  "method",
  "procedure",
  "subroutine",
  "constructor",
  "macro",
  "singletonMethod",
  "func",
  "fun",
  "class",
  "struct",
  "interface",
  "trait",
  "object",
  "module",
  "namespace",
  "enum",
  "protocol",
  "type",
  "typedef",
  "implementation",
  "record",
]);
const TYPE_KINDS: ReadonlySet<string> = new Set(["class", "struct", "interface", "trait", "object", "module", "namespace", "enum", "protocol", "type", "typedef", "implementation", "record"]);

interface CtagsTag {
  readonly _type?: string;
  readonly name?: string;
  readonly line?: number;
  readonly end?: number;
  readonly kind?: string;
  readonly scope?: string;
  readonly signature?: string;
  readonly pattern?: string;
  readonly path?: string;
}

/**
 * The declarations ctags finds in each of `paths` (relative to `root`, listed in `listFile`, the
 * tags written to `tagsFile` — both under the state root), in line order; `ends(path, starts)`
 * supplies the end lines ctags gives none for. Null when ctags fails.
 */
export function ctagsDefinitions(
  backend: CtagsBackend,
  root: string,
  paths: readonly string[],
  files: { readonly list: string; readonly tags: string },
  ends: (path: string, starts: number[]) => number[],
): Map<string, FoundDefinition[]> | null {
  writeAtomic(files.list, Buffer.from(paths.map((p) => `${p}\n`).join("")));
  // ctags refuses to overwrite a file it does not take for a tags file — its own JSON output included.
  rmSync(files.tags, { force: true });
  const run = spawnSync(backend.program, ["--output-format=json", "--fields=+neKSZ", "--extras=-F", "-o", files.tags, "-L", files.list], { cwd: root, stdio: "ignore", timeout: 300_000 });
  if (run.status !== 0) return null;
  let text: string;
  try {
    text = readFileSync(files.tags, "utf8");
  } catch {
    return null;
  }
  const byPath = new Map<string, CtagsTag[]>(paths.map((p) => [p, []]));
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let tag: CtagsTag;
    try {
      tag = JSON.parse(line) as CtagsTag;
    } catch {
      return null;
    }
    if (tag._type === "tag" && typeof tag.name === "string" && typeof tag.line === "number" && DECLARATION_KINDS.has(tag.kind ?? "")) byPath.get(tag.path ?? "")?.push(tag);
  }
  const out = new Map<string, FoundDefinition[]>();
  for (const [path, tags] of byPath) {
    tags.sort((a, b) => a.line! - b.line! || a.name!.localeCompare(b.name!));
    const missing = tags.filter((t) => typeof t.end !== "number").map((t) => t.line!);
    const found = ends(path, missing);
    const endOf = new Map(missing.map((start, i) => [start, found[i]!]));
    out.set(
      path,
      tags.map((t) => {
        const scope = t.scope?.replace(/::|:/g, ".") ?? null;
        const qualified = scope ? `${scope}.${t.name}` : t.name!;
        const kind = TYPE_KINDS.has(t.kind!) ? "class" : scope ? "method" : "function";
        const signature = t.signature
          ? `${t.name}${t.signature}`
          : (t.pattern
              ?.replace(/^\/\^|\$\/$/g, "")
              .trim()
              .slice(0, 200) ?? null);
        return { name: t.name!, qualified_name: qualified, kind, start_line: t.line!, end_line: Math.max(t.line!, t.end ?? endOf.get(t.line!) ?? t.line!), signature };
      }),
    );
  }
  return out;
}
