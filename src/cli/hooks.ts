// `mast install-hooks` (docs/index-lifecycle.md#git-hooks): git hooks — post-commit, post-checkout, post-merge — that
// bring the project's index up to date in the background after git changes the tree. A hook the
// repository has is kept and chained (the block goes right after its shebang line, so an `exit`
// at its end cannot skip it); running it again changes nothing; `--uninstall` takes out only
// the block, deleting a hook only when it created it. Hooks of another interpreter are refused
// whole, before anything is written.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { writeAtomic } from "../base/atomic.js";
import { MastError, errorMessage } from "../base/errors.js";

export const HOOKS = ["post-commit", "post-checkout", "post-merge"] as const;

const BEGIN = "# >>> mast: refresh the index after git changes the tree (mast install-hooks) >>>";
const END = "# <<< mast <<<";
const CREATED_SHEBANG = "#!/bin/sh";

export type HookAction = "created" | "chained" | "updated" | "unchanged" | "removed" | "restored" | "absent";

export interface HooksReport {
  hooks_dir: string;
  hooks: Array<{ hook: string; path: string; action: HookAction }>;
}

/** The repository's hooks directory (`git rev-parse --git-path hooks`: worktrees and core.hooksPath included). */
export function hooksDir(root: string): string {
  const r = spawnSync("git", ["rev-parse", "--git-path", "hooks"], { cwd: root, encoding: "utf8" });
  if (r.error || r.status !== 0) {
    if (existsSync(join(root, ".git")) && statSync(join(root, ".git")).isDirectory()) return join(root, ".git", "hooks");
    throw new MastError("NOT_A_DIRECTORY", `${root} is not in a git repository${r.error ? ` (git: ${errorMessage(r.error)})` : ""}`, {
      hint: "Run it in a git work tree (git init), or pass its path.",
    });
  }
  const dir = r.stdout.trim();
  return isAbsolute(dir) ? dir : resolve(root, dir);
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The hook block: this mast (the node and script that installed it) if it is still there, else `mast` on PATH; nothing when neither is. */
export function hookBlock(node: string, script: string, stateDir: string | null): string[] {
  const args = `index "$(git rev-parse --show-toplevel)" --incremental${stateDir ? ` --state-dir ${quote(stateDir)}` : ""} >/dev/null 2>&1`;
  return [
    BEGIN,
    "# Runs in the background and never fails the git command; `mast install-hooks --uninstall` removes this block.",
    `if [ -x ${quote(node)} ] && [ -f ${quote(script)} ]; then`,
    `  (${quote(node)} ${quote(script)} ${args} &)`,
    "elif command -v mast >/dev/null 2>&1; then",
    `  (mast ${args} &)`,
    "fi",
    END,
  ];
}

interface Planned {
  readonly hook: string;
  readonly path: string;
  readonly action: HookAction;
  /** The new text (undefined: leave the file; null: delete it). */
  readonly text?: string | null;
}

/** A hook's text as lines, and where its block is. */
function blockIn(lines: readonly string[]): { begin: number; end: number } | null {
  const begin = lines.indexOf(BEGIN);
  if (begin === -1) return null;
  const end = lines.indexOf(END, begin);
  return end === -1 ? null : { begin, end };
}

/** Installs (or with uninstall, removes) the block in each hook; every hook is planned before any is written. */
export function installHooks(root: string, block: readonly string[], options: { uninstall: boolean }): HooksReport {
  const dir = hooksDir(root);
  const plans: Planned[] = HOOKS.map((hook) => {
    const path = join(dir, hook);
    const text = existsSync(path) ? readFileSync(path, "utf8") : null;
    if (options.uninstall) {
      if (text === null) return { hook, path, action: "absent" };
      const lines = text.split("\n");
      const at = blockIn(lines);
      if (at === null) return { hook, path, action: "unchanged" };
      const rest = [...lines.slice(0, at.begin), ...lines.slice(at.end + 1)];
      // A hook this command created (its shebang and the block alone) goes with the block.
      return rest.join("\n") === `${CREATED_SHEBANG}\n` ? { hook, path, action: "removed", text: null } : { hook, path, action: "restored", text: rest.join("\n") };
    }
    if (text === null) return { hook, path, action: "created", text: [CREATED_SHEBANG, ...block, ""].join("\n") };
    const lines = text.split("\n");
    const at = blockIn(lines);
    if (at !== null) {
      const next = [...lines.slice(0, at.begin), ...block, ...lines.slice(at.end + 1)].join("\n");
      return next === text ? { hook, path, action: "unchanged" } : { hook, path, action: "updated", text: next };
    }
    const shebang = lines[0] ?? "";
    if (shebang.startsWith("#!") && !/\b(?:sh|bash|dash|zsh|ksh)\b/.test(shebang)) {
      throw new MastError("INVALID_ARGUMENT", `${path} is a script of ${shebang.slice(2).trim()}, not of a shell: mast adds its block only to shell hooks; nothing was changed`, {
        hint: `Call \`mast index "$(git rev-parse --show-toplevel)" --incremental\` from that hook yourself.`,
      });
    }
    // After the shebang (or first, without one): an `exit` at the end of the hook cannot skip it.
    const cut = shebang.startsWith("#!") ? 1 : 0;
    return { hook, path, action: "chained", text: [...lines.slice(0, cut), ...block, ...lines.slice(cut)].join("\n") };
  });
  if (plans.some((p) => typeof p.text === "string")) mkdirSync(dir, { recursive: true });
  for (const p of plans) {
    if (p.text === undefined) continue;
    if (p.text === null) {
      unlinkSync(p.path);
      continue;
    }
    writeAtomic(p.path, Buffer.from(p.text, "utf8"));
    if (p.action === "created") chmodSync(p.path, 0o755);
  }
  return { hooks_dir: dir, hooks: plans.map(({ hook, path, action }) => ({ hook, path, action })) };
}
