// Node's on-disk compile cache for the CLIs (module.enableCompileCache, Node >= 22.1): the chunks a
// command imports after the call are compiled once and read back by the runs after it. Where the
// cache lives is Node's choice (NODE_COMPILE_CACHE, else the OS temp dir — never the project), and
// NODE_DISABLE_COMPILE_CACHE=1 turns it off as it does for Node itself. Node 20 has none: a no-op.
import module from "node:module";

type EnableCompileCache = (directory?: string) => unknown;

/** Turns the compile cache on where this Node has one; whether it was asked to (Node's answer is its own: a cache it cannot open only costs the call). */
export function enableCompileCache(node: object = module): boolean {
  const enable = (node as { enableCompileCache?: unknown }).enableCompileCache;
  if (typeof enable !== "function") return false;
  try {
    (enable as EnableCompileCache).call(node);
    return true;
  } catch {
    return false;
  }
}
