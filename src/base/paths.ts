// Path helpers shared by every layer: project-relative POSIX paths, the inside-the-root check,
// and the local-versus-external classification of module specifiers.
import { isAbsolute, relative, sep } from "node:path";

/** Project-relative path with "/" separators for an absolute path, or null when it is outside the root. */
export function relativeInside(root: string, absolute: string): string | null {
  const rel = relative(root, absolute);
  if (rel === "" ) return "";
  if (rel.startsWith("..") || isAbsolute(rel)) return null;
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/** Bare specifiers (packages, node: builtins) are external; relative and absolute ones are local. */
export function isExternalSpecifier(module: string): boolean {
  return !(module.startsWith("./") || module.startsWith("../") || module === "." || module === ".." || module.startsWith("/"));
}
