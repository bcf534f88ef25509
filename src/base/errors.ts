// The closed set of named errors every surface reports: a stable code, a message and a
// recovery hint. Tests assert codes, never prose; surfaces map codes to exit codes.

export const ERROR_CODES = {
  INVALID_ARGUMENT: "Check the argument against the command's --help.",
  FILE_NOT_FOUND: "Check the path; paths are relative to the project root.",
  NOT_A_DIRECTORY: "Pass the project's root directory.",
  PATH_DENIED: "Only paths inside the project root can be used.",
  CONFIG_INVALID: "Fix the JSON in the named config file, or delete it to use the defaults.",
  STATE_DIR_INVALID: "Pass a --state-dir that is a directory (or does not exist yet) and is writable.",
  STATE_DIR_UNSAFE:
    "A state dir the project names (mast.config.json's state_dir, or .mast) must be a plain directory inside it, not the root, through no symlink: remove the symlink or the state_dir entry, or pass --state-dir (or MAST_STATE_DIR) to keep the index elsewhere.",
  STATE_DIR_MISMATCH:
    "The state dir holds another project's index: run the command from that project (or pass its path), or give this project its own --state-dir; `mast index <path> --state-dir <dir>` re-points it.",
  LOCK_HELD: "Another indexer holds the lock; wait for it to finish and retry.",
  LOCK_TIMEOUT: "Another editor holds one of the batch's files; re-read the files and run the batch again.",
  LOCK_COMPROMISED: "The index lock was taken over mid-run; run the command again.",
  NOT_INDEXED: "Run `mast init` (or `mast index`) on the project first.",
  INDEX_CORRUPT: "SQLite finds the index (graph.db) corrupt, so nothing is answered from it: run `mast index` (or mast_reindex), which rebuilds it.",
  READ_FAILED: "Check the file's permissions and that it still exists.",
  WRITE_FAILED: "Check disk space and permissions of the state directory.",
  STALE_ANCHOR: "Re-read the file and retry with the fresh hash.",
  AMBIGUOUS_ANCHOR: "Re-read the file and retry with a range whose content is unique.",
  PARSE_ERROR: "The edit would turn a cleanly parsing file into a broken one: fix the new content and retry.",
  HASH_MISMATCH: "The file changed after the edit; inspect it, then retry with --force to overwrite.",
  FILE_TOO_LARGE: "The file is over the size cap for this operation; edit or read a smaller file, or use the index tools (mast_search, mast_signature) for parts of it.",
  RESULT_TOO_LARGE: "The answer would be over the answer cap; ask for less (fewer files, a narrower path or pattern, a lower limit).",
  REQUEST_TOO_LARGE: "The request is over the server's message limit: send less per call (split a large new_content into several replace_hash or diff_apply calls over parts of the file).",
  REGEX_TIMEOUT: "The pattern backtracks catastrophically (nested quantifiers such as (a+)+ or (.*a){20}); simplify it and retry.",
  SYMBOL_NOT_FOUND: "List the file's declarations with `hashpilot ast find-symbols <file>`; name a member as `Owner.member`.",
  NO_NAME_AT_POSITION:
    "Point at a name: line and column are 1-based (column counts characters from 1); read the line first (hashpilot read, or mast_signature for the declaration) and pass a column inside the identifier.",
  AMBIGUOUS_SYMBOL: "The name binds more than one thing: pick one (a member as `Owner.member`, or the binding's line), or rename each separately.",
  UNRESOLVED_REFERENCES:
    "Some uses of the name may or may not be the renamed variable, and the text cannot tell (in JavaScript: inside a `with` body, or where a direct `eval` runs): check the lines listed, then pass --yes to rename the others and leave those as they are, or rename by hand.",
  SEARCH_TRUNCATED: "The search stopped at the depth guard before it could be sure; edit the deeply nested code with replace-hash instead.",
  UNSUPPORTED_OPERATION: "Run `hashpilot ast capabilities` for what each language supports, or use replace-hash or diff apply.",
  MODULE_SYSTEM_MISMATCH: "The import has no form in the file's module system; follow the recovery step (it names the concrete next step).",
  VERIFY_FAILED: "A check failed: read its output in the result (error.details), fix the code and verify again; with --revert-on-failure the edit was put back (revertedFiles).",
  VERIFY_TIMEOUT: "A check hit --timeout without a verdict; the edit was kept. Raise --timeout or narrow the tests (--test-filter); do not treat it as a failure.",
  VERIFY_NO_CHECKS: "No check ran, so nothing was verified: name a --formatter, --linter, --typecheck or --test-runner, or pass --auto-detect.",
  ROLLBACK_INCOMPLETE: "The rollback itself failed: stop, restore the files listed in unrevertedFiles (hashpilot undo, or by hand) before retrying anything.",
  SERVER_LOST:
    "The running `mast serve` closed the connection before it answered (it stopped or crashed), so the call may or may not have run: check its effect (re-read the files an edit named), then run the command again; --no-server answers in the command's own process.",
  STORE_UNAVAILABLE: "Check that the PostgreSQL server is running and reachable, the user and password (PGPASSWORD or ~/.pgpass), sslmode, and that the database exists; then retry.",
  STORE_VERSION: "The PostgreSQL store's schema is not this mast's: upgrade mast for a newer store, or publish with this mast once to migrate an older one.",
  STORE_DAMAGED: "A published snapshot's rows are not what mast writes (a path outside its tree, bytes that do not hash to their name, a row naming nothing): publish the repository again.",
  PUBLISH_CONFLICT: "That commit is already published with other content: commit the changes (or pass --commit with a label of their own), then publish again.",
  SOURCE_CHANGED: "A file changed while it was being published, so nothing of this publish was made active: run the command again once the files are still.",
  SNAPSHOT_INVALID: "hashpilot's snapshot store holds a manifest or blob that fails validation; it is never trusted. Inspect or delete it under $HASHPILOT_HOME/snapshots.",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class MastError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly details: Record<string, unknown> | undefined;
  /** The arguments a command or tool was called with cannot be taken as they are (a CLI exits 2 for it). */
  readonly usage: boolean;

  constructor(code: ErrorCode, message: string, options: { hint?: string; details?: Record<string, unknown>; cause?: unknown; usage?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MastError";
    this.code = code;
    this.hint = options.hint ?? ERROR_CODES[code];
    this.details = options.details;
    this.usage = options.usage === true;
  }
}

export function isMastError(err: unknown): err is MastError {
  return err instanceof MastError;
}

/** The code of damagedRow's errors: a store read found bytes of its own it cannot read (store/db.ts isUnusableDatabase takes it as corruption). */
export const DAMAGED_ROW = "MAST_DAMAGED_ROW";

/** An error for bytes graph.db keeps (a pack, deflated texts) that do not read back: the index is corrupt, never misread. */
export function damagedRow(message: string): Error {
  return Object.assign(new Error(message), { code: DAMAGED_ROW });
}

/** An error as plain data: what crosses a worker thread's boundary (`errorData`, then `fromErrorData` on the other side). */
export interface ErrorData {
  readonly code?: string;
  readonly message: string;
  readonly hint?: string;
  readonly usage?: boolean;
  readonly details?: Record<string, unknown>;
}

export function errorData(err: unknown): ErrorData {
  return isMastError(err) ? { code: err.code, message: err.message, hint: err.hint, usage: err.usage, ...(err.details ? { details: err.details } : {}) } : { message: errorMessage(err) };
}

/** The error `errorData` made: a MastError with its code, hint, details and usage, else a plain Error. */
export function fromErrorData(e: ErrorData): Error {
  if (e.code === undefined || !(e.code in ERROR_CODES)) return new Error(e.message);
  return new MastError(e.code as ErrorCode, e.message, { ...(e.hint === undefined ? {} : { hint: e.hint }), ...(e.details ? { details: e.details } : {}), usage: e.usage === true });
}

/** A short message for any thrown value (errors from libraries, strings, ...). */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** An I/O error as "CODE: description", without the syscall and absolute path Node appends. */
export function ioErrorMessage(err: unknown): string {
  const message = errorMessage(err);
  const syscall = (err as NodeJS.ErrnoException | undefined)?.syscall;
  if (typeof syscall === "string") {
    const cut = message.indexOf(`, ${syscall}`);
    if (cut > 0) return message.slice(0, cut);
  }
  return message;
}
