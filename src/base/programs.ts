// Programs on PATH: the one lookup of an executable by name (mast's doctor, the checks
// verify-changes runs, the checker pass's analyzers). Only absolute PATH entries count: a relative
// one (`.`, `bin`) would make a file of whatever directory mast runs in — a cloned project — the
// program run.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** Whether `path` is a file this process may execute. */
export function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute PATH entries of `env`, in order. */
export function pathDirectories(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && isAbsolute(dir));
}

/** The first executable `name` in an absolute PATH entry, or null. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of pathDirectories(env)) if (isExecutable(join(dir, name))) return join(dir, name);
  return null;
}

/**
 * The environment for a program run inside a project (an analyzer whose own lookups search PATH —
 * pyright runs `python`): PATH cut to its absolute entries, so no lookup of the child's lands on a
 * file of the project either.
 */
export function childEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, PATH: pathDirectories(env).join(delimiter) };
}
