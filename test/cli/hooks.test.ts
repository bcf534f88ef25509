// `mast install-hooks` through the built CLI in real git repositories: the three hooks created
// executable, an existing shell hook kept and chained after its shebang, a second run changing
// nothing, --uninstall restoring every hook byte for byte, a non-shell hook refused before
// anything is written — and a real `git commit` bringing the index up to date in the background.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, runMast } from "../helpers/cli.js";
import { makeProject, type TestProject } from "../helpers/project.js";

beforeAll(() => assertBuilt());

let projects: TestProject[] = [];
afterEach(() => {
  for (const p of projects) p.cleanup();
  projects = [];
});

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
};

function repo(files: Record<string, string> = { "src/a.ts": "export function a() {\n  return 1;\n}\n" }): TestProject {
  const p = makeProject(files);
  projects.push(p);
  git(p.root, "init", "-q");
  return p;
}

const hook = (p: TestProject, name: string) => join(p.root, ".git", "hooks", name);

describe("mast install-hooks", () => {
  it("creates the three hooks executable; a second run changes nothing; --uninstall removes what it created", async () => {
    const p = repo();
    const first = await runMast(["install-hooks", p.root, "--json"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).hooks.map((h: { hook: string; action: string }) => `${h.hook} ${h.action}`)).toEqual(["post-commit created", "post-checkout created", "post-merge created"]);
    const text = readFileSync(hook(p, "post-commit"), "utf8");
    expect(text.split("\n")[0]).toBe("#!/bin/sh");
    expect(text).toContain('index "$(git rev-parse --show-toplevel)" --incremental >/dev/null 2>&1 &)');
    expect(statSync(hook(p, "post-merge")).mode & 0o111).not.toBe(0);
    const again = await runMast(["install-hooks", p.root, "--json"]);
    expect(JSON.parse(again.stdout).hooks.map((h: { action: string }) => h.action)).toEqual(["unchanged", "unchanged", "unchanged"]);
    expect(readFileSync(hook(p, "post-commit"), "utf8")).toBe(text);
    const removed = await runMast(["install-hooks", p.root, "--uninstall", "--json"]);
    expect(JSON.parse(removed.stdout).hooks.map((h: { action: string }) => h.action)).toEqual(["removed", "removed", "removed"]);
    expect(existsSync(hook(p, "post-commit"))).toBe(false);
  });

  it("chains an existing shell hook after its shebang and restores it byte for byte; a non-shell hook is refused before anything is written", async () => {
    const p = repo();
    const mine = "#!/bin/bash\necho checked\nexit 0\n";
    writeFileSync(hook(p, "post-commit"), mine, { mode: 0o755 });
    const r = await runMast(["install-hooks", p.root, "--json"]);
    expect(JSON.parse(r.stdout).hooks.map((h: { hook: string; action: string }) => `${h.hook} ${h.action}`)).toEqual(["post-commit chained", "post-checkout created", "post-merge created"]);
    const chained = readFileSync(hook(p, "post-commit"), "utf8").split("\n");
    expect([chained[0], chained[1]!.startsWith("# >>> mast"), chained.slice(-3)]).toEqual(["#!/bin/bash", true, ["echo checked", "exit 0", ""]]);
    const back = await runMast(["install-hooks", p.root, "--uninstall", "--json"]);
    expect(JSON.parse(back.stdout).hooks.map((h: { action: string }) => h.action)).toEqual(["restored", "removed", "removed"]);
    expect(readFileSync(hook(p, "post-commit"), "utf8")).toBe(mine);

    const q = repo();
    writeFileSync(hook(q, "post-merge"), "#!/usr/bin/env python3\nprint('hi')\n", { mode: 0o755 });
    const refused = await runMast(["install-hooks", q.root]);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("mast: error INVALID_ARGUMENT:")]);
    expect(existsSync(hook(q, "post-commit"))).toBe(false);
    const outside = makeProject({});
    projects.push(outside);
    const notGit = await runMast(["install-hooks", outside.root]);
    expect(notGit.code).toBe(1);
  });

  it("a commit, a checkout and a merge bring the index up to date in the background", async () => {
    const p = repo();
    expect((await runMast(["init", p.root, "--json"])).code).toBe(0);
    expect((await runMast(["install-hooks", p.root])).code).toBe(0);
    /** Waits (at most 20 s) until mast_signature finds `symbol` in `file`, or finds it nowhere when file is null. */
    const indexed = async (symbol: string, file: string | null): Promise<boolean> => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const q = await runMast(["query", "mast_signature", JSON.stringify({ symbol }), p.root, "--json"]);
        const at = q.code === 0 ? (JSON.parse(q.stdout).results?.[0]?.file_path ?? null) : undefined;
        if (at === file) return true;
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    writeFileSync(join(p.root, ".gitignore"), ".mast/\n");
    p.write("src/b.ts", "export function freshlyCommitted() {\n  return 2;\n}\n");
    git(p.root, "add", ".");
    git(p.root, "commit", "-q", "-m", "add b");
    expect(await indexed("freshlyCommitted", "src/b.ts")).toBe(true);
    // A branch adds a file: checking out the first branch takes it away, checking out the branch brings it back (post-checkout), merging brings it too (post-merge).
    const main = git(p.root, "rev-parse", "--abbrev-ref", "HEAD").trim();
    git(p.root, "checkout", "-q", "-b", "feature");
    p.write("src/c.ts", "export function fromTheBranch() {\n  return 3;\n}\n");
    git(p.root, "add", ".");
    git(p.root, "commit", "-q", "-m", "add c");
    expect(await indexed("fromTheBranch", "src/c.ts")).toBe(true);
    git(p.root, "checkout", "-q", main);
    expect(await indexed("fromTheBranch", null)).toBe(true);
    // Only a run finds a file new to the index (a read refreshes the files it names): these are the hooks'.
    git(p.root, "checkout", "-q", "feature");
    expect(await indexed("fromTheBranch", "src/c.ts")).toBe(true);
    git(p.root, "checkout", "-q", main);
    expect(await indexed("fromTheBranch", null)).toBe(true);
    git(p.root, "merge", "-q", "--no-edit", "--no-ff", "feature");
    expect(await indexed("fromTheBranch", "src/c.ts")).toBe(true);
  });
});
