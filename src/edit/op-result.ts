// What every edit operation takes and gives (edit/operations.ts, edit/transaction.ts, the AST,
// intent, route and verify operations, the tool layer): its context — the project boundary, the
// working directory, the invocation's changeSet —, its result with the envelope's warnings and
// what a write changed, and the warning codes an envelope may carry.
import type { LineRange } from "./anchor.js";
import type { Boundary } from "./paths.js";
import type { ChangeSet } from "./snapshots.js";

export interface OpContext {
  /** Where reads and writes may go: the project root and what is sealed in it. */
  readonly boundary: Boundary;
  /** Relative paths in arguments are resolved against this. */
  readonly cwd: string;
  /** This invocation's changeSet: every write is snapshotted into it first. */
  readonly changeSet: ChangeSet;
}

/** A non-fatal notice carried in the envelope's `warnings`. */
export interface Warning {
  readonly code:
    | "ANCHOR_RELOCATED"
    | "ANCHOR_NOT_UNIQUE"
    | "TELEMETRY_LOG_CORRUPT"
    | "ROUTE_FALLBACK"
    | "VERIFY_NO_CHECKS"
    | "RESULT_TRUNCATED"
    | "SEARCH_TRUNCATED"
    | "INDEX_REFRESH_DEFERRED"
    | "UNRESOLVED_REFERENCES"
    | "CROSS_FILE_USES"
    | "CROSS_FILE_UNCHECKED";
  readonly message: string;
  readonly [key: string]: unknown;
}

export interface OpResult<T> {
  readonly data: T;
  readonly warnings: readonly Warning[];
  /** Absolute paths the operation wrote or deleted (the index refreshes them). */
  readonly written?: readonly string[];
  /** The new-file lines a write changed (provenance by line). */
  readonly changedRanges?: readonly LineRange[];
  /** The unified diff of what a write changed (provenance), made only when telemetry.recordContent asks for it. */
  readonly unifiedDiff?: () => string;
}
