// What a project's git checkout says of itself — the commit at HEAD and the origin remote's name —
// read from its `.git` directory without running git (a cloned project's config must run nothing). The project is untrusted input, so nothing in
// it can make this read outside it or block: `.git` must be a directory of the project (a
// worktree's `.git` file, which names a directory elsewhere, answers null), HEAD and the ref file
// are opened only where they are (no symlink on the path), as regular files of at most 64 KiB (a FIFO never blocks),
// a ref must be a plain `refs/…` name, only a 40- or 64-digit object name is returned, and a
// remote's URL loses any credentials before it names anything.
import { lstatSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile } from "../base/read.js";

const OBJECT_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** A ref as HEAD may name it: `refs/` then segments of safe characters, none `.`/`..` or starting with a dot. */
const REF_NAME = /^refs\/(?:[A-Za-z0-9_+@-][A-Za-z0-9_.+@-]*\/)*[A-Za-z0-9_+@-][A-Za-z0-9_.+@-]*$/;
const MAX_BYTES = 64 * 1024;
/** packed-refs may be long in a repository with many tags. */
const MAX_PACKED_BYTES = 16 * 1024 * 1024;

/** A small regular file's text, opened only if it is that path itself (no symlink on the way: `expect`). */
function readSmall(abs: string, maxBytes = MAX_BYTES): string | null {
  const r = readRegularFile(abs, { maxBytes, noFollow: true, expect: abs });
  return r.kind === "read" ? r.bytes.toString("utf8") : null;
}

/** The project's `.git` directory at its real path; null when there is none (a `.git` file or symlink is none). */
function gitDirOf(projectRoot: string): string | null {
  let root: string;
  try {
    root = realpathSync(projectRoot);
  } catch {
    return null;
  }
  const gitDir = join(root, ".git");
  return lstatSync(gitDir, { throwIfNoEntry: false })?.isDirectory() ? gitDir : null;
}

/** The commit HEAD points at (`.git/HEAD`, a loose ref or packed-refs), or null when there is none to read safely. */
export function readGitHead(projectRoot: string): string | null {
  const gitDir = gitDirOf(projectRoot);
  if (gitDir === null) return null;
  const head = readSmall(join(gitDir, "HEAD"))?.trim();
  if (head === undefined) return null;
  if (OBJECT_NAME.test(head)) return head;
  const ref = /^ref: (\S+)$/.exec(head)?.[1];
  if (ref === undefined || !REF_NAME.test(ref) || ref.split("/").some((s) => s.endsWith(".lock") || s.includes(".."))) return null;
  const loose = readSmall(join(gitDir, ref));
  if (loose !== null) {
    const name = loose.trim();
    return OBJECT_NAME.test(name) ? name : null;
  }
  const packed = readSmall(join(gitDir, "packed-refs"), MAX_PACKED_BYTES);
  const line = packed?.split("\n").find((l) => l.endsWith(` ${ref}`));
  const name = line?.split(" ")[0];
  return name !== undefined && OBJECT_NAME.test(name) ? name : null;
}

/**
 * The origin remote as a repository name — host and path, no scheme, user, password or `.git`
 * (`git@github.com:org/repo.git` → `github.com/org/repo`) — or null when there is none to read.
 */
export function readOriginName(projectRoot: string): string | null {
  const gitDir = gitDirOf(projectRoot);
  if (gitDir === null) return null;
  const config = readSmall(join(gitDir, "config"), MAX_PACKED_BYTES);
  if (config === null) return null;
  let inOrigin = false;
  for (const raw of config.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("[")) inOrigin = /^\[remote\s+"origin"\]$/.test(line);
    const url = inOrigin ? /^url\s*=\s*(\S+)$/.exec(line)?.[1] : undefined;
    if (url !== undefined) return remoteName(url);
  }
  return null;
}

/** A remote URL as `host/path`: scp-like (`user@host:path`) or a URL; null for a local path. */
export function remoteName(url: string): string | null {
  const scp = /^(?:[^@/\s]+@)?([A-Za-z0-9.-]+):(?!\/\/)(.+)$/.exec(url);
  let host: string;
  let path: string;
  if (scp) {
    host = scp[1]!;
    path = scp[2]!;
  } else {
    try {
      const u = new URL(url);
      if (u.protocol === "file:" || u.host === "") return null;
      host = u.host;
      path = u.pathname;
    } catch {
      return null;
    }
  }
  const clean = path.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "");
  return clean === "" ? null : `${host.toLowerCase()}/${clean}`;
}
