// What mast reads of a project's git checkout (index/git-checkout.ts): HEAD's commit and the
// origin remote's name, read without git. A cloned project is untrusted input, so a HEAD or ref
// that points outside the project (by `..`, a symlink, a symlinked directory, a `.git` file) or at
// a FIFO answers null — quickly — instead of reading there.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readGitHead, readOriginName, remoteName } from "../../src/index/git-checkout.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const OTHER = "fedcba9876543210fedcba9876543210fedcba98";
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A project with `.git` laid out as `files` says (paths under .git), and a directory outside it holding OTHER. */
function checkout(files: Record<string, string>): { root: string; outside: string } {
  const base = mkdtempSync(join(tmpdir(), "mast-git-"));
  dirs.push(base);
  const root = join(base, "project");
  const outside = join(base, "outside");
  mkdirSync(join(outside, "heads"), { recursive: true });
  writeFileSync(join(outside, "commit"), `${OTHER}\n`);
  writeFileSync(join(outside, "heads", "main"), `${OTHER}\n`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, ".git", path, ".."), { recursive: true });
    writeFileSync(join(root, ".git", path), text);
  }
  mkdirSync(join(root, ".git"), { recursive: true });
  return { root, outside };
}

describe("readGitHead", () => {
  it("reads a branch's loose ref, a packed ref and a detached HEAD", () => {
    expect(readGitHead(checkout({ HEAD: "ref: refs/heads/main\n", "refs/heads/main": `${SHA}\n` }).root)).toBe(SHA);
    expect(readGitHead(checkout({ HEAD: "ref: refs/heads/main\n", "packed-refs": `# pack-refs with: peeled\n${SHA} refs/heads/main\n` }).root)).toBe(SHA);
    expect(readGitHead(checkout({ HEAD: `${SHA}\n` }).root)).toBe(SHA);
    expect(readGitHead(checkout({}).root)).toBeNull();
  });

  it("never reads outside the project: a ref with .., a symlinked HEAD, ref or refs directory, a .git file", () => {
    const dotdot = checkout({ HEAD: "ref: refs/../../../outside/commit\n" });
    expect(readGitHead(dotdot.root)).toBeNull();
    const linkedHead = checkout({});
    symlinkSync(join(linkedHead.outside, "commit"), join(linkedHead.root, ".git", "HEAD"));
    expect(readGitHead(linkedHead.root)).toBeNull();
    const linkedRef = checkout({ HEAD: "ref: refs/heads/main\n" });
    mkdirSync(join(linkedRef.root, ".git", "refs", "heads"), { recursive: true });
    symlinkSync(join(linkedRef.outside, "commit"), join(linkedRef.root, ".git", "refs", "heads", "main"));
    expect(readGitHead(linkedRef.root)).toBeNull();
    const linkedDir = checkout({ HEAD: "ref: refs/heads/main\n" });
    symlinkSync(linkedDir.outside, join(linkedDir.root, ".git", "refs"));
    expect(readGitHead(linkedDir.root)).toBeNull();
    const worktree = checkout({});
    rmSync(join(worktree.root, ".git"), { recursive: true });
    writeFileSync(join(worktree.root, ".git"), `gitdir: ${worktree.outside}\n`);
    expect(readGitHead(worktree.root)).toBeNull();
  });

  it("a ref that is a FIFO answers null at once, and a ref that is no object name answers null", () => {
    const fifo = checkout({ HEAD: "ref: refs/heads/main\n" });
    mkdirSync(join(fifo.root, ".git", "refs", "heads"), { recursive: true });
    execFileSync("mkfifo", [join(fifo.root, ".git", "refs", "heads", "main")]);
    const started = Date.now();
    expect(readGitHead(fifo.root)).toBeNull();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(readGitHead(checkout({ HEAD: "ref: refs/heads/main\n", "refs/heads/main": "root:x:0:0:root:/root:/bin/bash\n" }).root)).toBeNull();
  });
});

describe("the origin remote's name", () => {
  it("is host/path without scheme, credentials or .git", () => {
    expect(remoteName("https://ci-bot:s3cret@github.com/acme/api.git")).toBe("github.com/acme/api");
    expect(remoteName("git@github.com:acme/api.git")).toBe("github.com/acme/api");
    expect(remoteName("ssh://git@gitlab.example.com:2222/team/svc")).toBe("gitlab.example.com:2222/team/svc");
    expect(remoteName("/srv/git/local.git")).toBeNull();
    expect(remoteName("file:///srv/git/local.git")).toBeNull();
  });

  it("is read from .git/config's origin section only", () => {
    const { root } = checkout({
      config:
        '[core]\n\tbare = false\n[remote "upstream"]\n\turl = https://github.com/other/fork.git\n[remote "origin"]\n\turl = https://token@github.com/acme/api.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
    });
    expect(readOriginName(root)).toBe("github.com/acme/api");
    expect(readOriginName(checkout({ config: "[core]\n\tbare = false\n" }).root)).toBeNull();
  });
});
