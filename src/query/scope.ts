// Result scoping shared by every ranker and query: `file_pattern` (the walker's glob primitive)
// and `language`, compiled once per call into the set of file ids in scope.
import { compileGlobs } from "../base/glob.js";
import type { Db } from "../store/db.js";

export interface ScopeInput {
  readonly file_pattern?: string | null | undefined;
  readonly language?: string | null | undefined;
  /** Only files under this directory (project-relative, no trailing slash). */
  readonly directory?: string | null | undefined;
}

/** File ids in scope, or null when the scope is the whole index. */
export function scopeFileIds(db: Db, scope: ScopeInput): number[] | null {
  const pattern = scope.file_pattern ?? null;
  const language = scope.language ?? null;
  const directory = scope.directory ? scope.directory.replace(/\/+$/, "") : null;
  if (pattern === null && language === null && directory === null) return null;
  const glob = pattern === null ? null : compileGlobs([pattern]);
  const rows = db.prepare("SELECT id, path, language FROM files ORDER BY id").all() as Array<{ id: number; path: string; language: string }>;
  return rows
    .filter(
      (r) =>
        (language === null || r.language === language) &&
        (glob === null || glob.matches(r.path)) &&
        (directory === null || directory === "" || directory === "." || r.path.startsWith(`${directory}/`)),
    )
    .map((r) => r.id);
}

/** An SQL condition restricting `column` to the scope (a JSON array bound as one parameter). */
export function scopeCondition(column: string, ids: number[] | null): { sql: string; params: unknown[] } {
  if (ids === null) return { sql: "1", params: [] };
  return { sql: `${column} IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(ids)] };
}
