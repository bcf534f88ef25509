// mast_implementors: the classes that implement or extend a type, breadth first through their
// subclasses, and the methods implementing one of its members.
import { posix } from "node:path";
import { extensionInfo } from "../lang/languages.js";
import { prepared, type Db } from "../store/db.js";
import { EDGE } from "../store/edge-codes.js";
import type { Target } from "./targets.js";

export interface Implementor {
  class_name: string;
  file_path: string;
  line: number;
  /** implements: names the type in its `implements` clause; extends: a subclass of it or of an implementor. */
  relation: "implements" | "extends";
  /** Indirect results: the class it inherits the relation through. */
  via?: string;
  methods: string[];
}

/** Classes that implement (or extend) the target type, then their subclasses, breadth first. */
export function implementorsOf(db: Db, ids: readonly number[]): Implementor[] {
  const direct = prepared(
    db,
    `SELECT a.id, a.name, f.path, a.line, a.file_id AS fileId, e.edge_type AS type FROM edges e JOIN symbols a ON a.id = e.from_id JOIN files f ON f.id = a.file_id
     WHERE e.to_id IN (SELECT value FROM json_each(?)) AND e.edge_type IN (${EDGE.IMPLEMENTS}, ${EDGE.EXTENDS}) ORDER BY f.path, a.line, a.id`,
  );
  const methods = prepared(db, "SELECT name FROM symbols WHERE file_id = ? AND kind = 'method' AND parent_name = ? ORDER BY line, id").pluck();
  const out: Implementor[] = [];
  const seen = new Set<number>(ids);
  let frontier: Array<{ ids: number[]; via: string | null }> = [{ ids: [...ids], via: null }];
  while (frontier.length > 0) {
    const next: Array<{ ids: number[]; via: string | null }> = [];
    for (const level of frontier) {
      const rows = direct.all(JSON.stringify(level.ids)) as Array<{ id: number; name: string; path: string; line: number; fileId: number; type: number }>;
      for (const r of rows) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        const names = (methods.all(r.fileId, r.name) as string[]).map((m) => m.slice(r.name.length + 1));
        out.push({
          class_name: r.name,
          file_path: r.path,
          line: r.line,
          relation: level.via === null && r.type === EDGE.IMPLEMENTS ? "implements" : "extends",
          ...(level.via === null ? {} : { via: level.via }),
          methods: [...new Set(names)],
        });
        next.push({ ids: [r.id], via: r.name });
      }
    }
    frontier = next;
  }
  return out;
}

/** A method that implements (or overrides) the member a query names, in an implementor of its type. */
export interface MemberImplementation {
  method: string;
  file_path: string;
  line: number;
  relation: "implements" | "extends";
  via?: string;
}

/**
 * For a member (`Router.match`, an interface or class method): the methods of that name in the
 * type's implementors and subclasses; null when the target is not a member. Implementors that
 * only inherit the member are left out.
 */
export function memberImplementations(db: Db, target: Target): MemberImplementation[] | null {
  const site = target.sites[0];
  if (!site || site.kind !== "method") return null;
  const dot = site.name.lastIndexOf(".");
  const owner = site.name.slice(0, dot);
  const member = site.name.slice(dot + 1);
  const ownerIds = prepared(db, "SELECT id FROM symbols WHERE file_id = ? AND name = ? AND kind IN ('class', 'interface', 'type') ORDER BY line, id").pluck().all(site.file_id, owner) as number[];
  const find = prepared(db, "SELECT f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? AND s.kind = 'method' ORDER BY f.path, s.line");
  const out: MemberImplementation[] = [];
  for (const impl of implementorsOf(db, ownerIds)) {
    const method = `${impl.class_name}.${member}`;
    // The implementor's own file, or (where a directory is one scope: a Go package) another file of its package.
    const packaged = extensionInfo(impl.file_path)?.spec.scope === "directory";
    const dir = posix.dirname(impl.file_path);
    const rows = find.all(method) as Array<{ path: string; line: number }>;
    const at =
      rows.find((r) => r.path === impl.file_path) ?? (packaged ? rows.find((r) => posix.dirname(r.path) === dir && extensionInfo(r.path)?.spec === extensionInfo(impl.file_path)?.spec) : undefined);
    if (at === undefined) continue;
    out.push({ method, file_path: at.path, line: at.line, relation: impl.relation, ...(impl.via === undefined ? {} : { via: impl.via }) });
  }
  return out;
}
