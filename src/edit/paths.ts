// Where the editing commands may write: inside the project root, never through a symlink that
// leaves it, never into the version-control directory or a deny-listed system or credential
// path. Anything else is PATH_DENIED before a byte is read for writing.
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { MastError } from "../base/errors.js";

/** Paths no edit may touch wherever the project root is (credentials, shell start-up files, the system). */
function denied(): string[] {
  const home = homedir();
  return [
    ...[".ssh", ".gnupg", ".aws", ".kube", ".docker", ".config/gcloud", ".netrc", ".npmrc", ".pypirc"].map((p) => join(home, p)),
    ...[".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".config/fish/config.fish"].map((p) => join(home, p)),
    "/etc",
    "/usr",
    "/bin",
    "/sbin",
    "/boot",
    "/dev",
    "/proc",
    "/sys",
  ];
}

function within(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The real path of `abs`, or of its nearest existing ancestor joined with the rest (a file about to be created). */
function realPath(abs: string): string {
  let existing = abs;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    existing = parent;
  }
  return join(realpathSync(existing), ...rest);
}

/**
 * The absolute path an edit of `file` (relative to `cwd`) writes — the real file when `file` is a
 * symlink inside the project, so the edit lands on the target instead of replacing the link;
 * PATH_DENIED when it may not.
 */
export function writablePath(file: string, root: string, cwd = process.cwd()): string {
  const abs = resolve(cwd, file);
  const realRoot = realpathSync(root);
  const real = realPath(abs);
  const deny = (why: string) => new MastError("PATH_DENIED", `${file}: ${why}; nothing was written`, { details: { path: abs } });
  for (const d of denied()) if (within(abs, d) || within(real, d)) throw deny(`${d} is never edited`);
  if (!within(abs, root) && !within(abs, realRoot)) throw deny(`it is outside the project root ${root}`);
  if (!within(real, realRoot)) throw deny(`it resolves through a symlink to ${real}, outside the project root`);
  if (relative(realRoot, real).split(sep).includes(".git")) throw deny("files under .git are never edited");
  return real;
}
