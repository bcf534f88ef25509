// The boundary of every editing tool, reads and writes alike: a path must lie inside the project
// root (reads may also reach the read roots a user configured), must not resolve through a
// symlink out of it, and must not be under `.git`, a deny-listed system or credential path, or a
// sealed directory (hashpilot's own store, the mast state dir, hashpilot's global config).
// Anything else is PATH_DENIED before a byte is read or written.
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { swapped } from "../base/confined.js";
import { MastError, ioErrorMessage } from "../base/errors.js";
import { MAX_PATH_LENGTH } from "../base/paths.js";
import { globalConfigPath } from "./config.js";
import { hashpilotHome } from "./writer.js";

export interface Boundary {
  /** The project root as given, and its real path. */
  readonly root: string;
  readonly realRoot: string;
  /** Real paths of the extra directories reads (never writes) may reach. */
  readonly readRoots: readonly string[];
  /** Real paths no tool reads or writes. */
  readonly sealed: readonly string[];
}

/** Paths no tool touches wherever the project root is (credentials, shell start-up files, the system). */
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

/**
 * `within`, ignoring case: what is refused (`.git`, the deny-list, sealed directories) is refused
 * in any spelling, since on a case-insensitive file system (macOS, Windows) `.GIT` is `.git`.
 */
const withinAnyCase = (path: string, dir: string): boolean => within(path.toLowerCase(), dir.toLowerCase());

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
  try {
    return join(realpathSync(existing), ...rest);
  } catch (err) {
    // A path that existed a moment ago and now fails to resolve is changing under the call (a
    // directory swapped for a symlink, or renamed away): refused as such, not as a failed read.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EINVAL" || code === "ENOENT" || code === "ENOTDIR") throw swapped(abs, ioErrorMessage(err));
    throw new MastError("READ_FAILED", `cannot resolve ${abs}: ${ioErrorMessage(err)}`);
  }
}

/** The first component of `abs` that is a symlink to nothing (a file would be created in its place), or null. */
function danglingLink(abs: string): string | null {
  for (let p = abs; !existsSync(p); ) {
    if (lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink()) return p;
    const parent = dirname(p);
    if (parent === p) return null;
    p = parent;
  }
  return null;
}

/** The boundary of a project: its root, the read roots a user configured, and the sealed directories (the state dir among them). */
export function projectBoundary(root: string, options: { stateDir?: string | undefined; readRoots?: readonly string[] } = {}): Boundary {
  const sealed = [hashpilotHome(), dirname(globalConfigPath()), ...(options.stateDir ? [options.stateDir] : [])];
  return {
    root,
    realRoot: realPath(resolve(root)),
    readRoots: (options.readRoots ?? []).map((r) => realPath(resolve(r))),
    sealed: [...new Set(sealed.flatMap((d) => [resolve(d), realPath(resolve(d))]))],
  };
}

/** Checks a path argument's form: INVALID_ARGUMENT for a NUL byte, an empty or an over-long path. */
export function checkPathArgument(file: string): void {
  if (file.length === 0) throw new MastError("INVALID_ARGUMENT", "a path is empty");
  if (file.includes("\0")) throw new MastError("INVALID_ARGUMENT", `the path ${JSON.stringify(file.slice(0, 200))} has a NUL byte`);
  if (file.length > MAX_PATH_LENGTH) throw new MastError("INVALID_ARGUMENT", `a path of ${file.length} characters is longer than ${MAX_PATH_LENGTH}`);
}

/** Whether `abs` (an absolute path) lies in a sealed directory of the boundary. */
function isSealed(b: Boundary, abs: string): boolean {
  return b.sealed.some((d) => withinAnyCase(abs, d));
}

function checked(file: string, b: Boundary, cwd: string, access: "read" | "write"): { abs: string; real: string } {
  checkPathArgument(file);
  const abs = resolve(cwd, file);
  const real = realPath(abs);
  const nothing = access === "read" ? "nothing was read" : "nothing was written";
  const deny = (why: string) => new MastError("PATH_DENIED", `${file}: ${why}; ${nothing}`, { details: { path: abs } });
  for (const d of denied()) if (withinAnyCase(abs, d) || withinAnyCase(real, d)) throw deny(`${d} is never ${access === "read" ? "read" : "edited"}`);
  if (isSealed(b, abs) || isSealed(b, real)) throw deny("it is in hashpilot's own store or the index's state directory, which no tool reads or edits");
  const roots = access === "read" ? [b.realRoot, ...b.readRoots] : [b.realRoot];
  if (!within(abs, b.root) && !roots.some((r) => within(abs, r))) throw deny(`it is outside the project root ${b.root}`);
  const dangling = danglingLink(abs);
  if (dangling !== null) throw deny(`${dangling} is a symlink to nothing; symlinks are left alone, never replaced by a file`);
  const home = roots.find((r) => within(real, r));
  if (home === undefined) throw deny(`it resolves through a symlink to ${real}, outside the project root`);
  if (
    relative(home, real)
      .split(sep)
      .some((part) => part.toLowerCase() === ".git")
  )
    throw deny("files under .git are never read or edited (in any case: .GIT is .git on macOS and Windows)");
  return { abs, real };
}

/**
 * The absolute path an edit of `file` (relative to `cwd`) writes — the real file when `file` is a
 * symlink inside the project, so the edit lands on the target instead of replacing the link;
 * PATH_DENIED when it may not.
 */
export function writablePath(file: string, b: Boundary, cwd: string): string {
  return checked(file, b, cwd, "write").real;
}

/** A path a read tool may open: `abs` as named (for answers) and `real`, the file to read; PATH_DENIED when it may not. */
export function readablePath(file: string, b: Boundary, cwd: string): { abs: string; real: string } {
  return checked(file, b, cwd, "read");
}
