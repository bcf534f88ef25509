// The one edit transaction every single-file write runs through (replace-hash, diff apply, every
// AST operation): the path through the write boundary, the file's lock, one read, a pure plan,
// the parse gate, and the write — recorded in the changeSet before and confirmed after. The tool
// layer adds provenance and the index refresh (tools/edit-call.ts `runEditOperation`). An AST plan gets the tree the
// gate parsed, so a one-file edit parses the file twice: once before, once after.
import { dirname } from "node:path";
import { writeAtomic } from "../base/atomic.js";
import { makeDirectories } from "../base/confined.js";
import { MastError } from "../base/errors.js";
import type { Tree } from "../syntax/parser.js";
import { generateDiff } from "./diff.js";
import { addedSyntaxError, checkParseValidity, gateCheck, gateParse, type EditedLines } from "./gate.js";
import type { OpContext, OpResult, Warning } from "./op-result.js";
import { writablePath } from "./paths.js";
import { decodeForEdit, renderText, type EditableText } from "./text.js";
import { readBytes, withFileLock } from "./writer.js";

/** The file as the plan sees it: its path, text, and (for AST plans) the parsed tree. */
export interface Before {
  readonly path: string;
  /** null when the file does not exist (only a plan that creates it sees this). */
  readonly text: EditableText | null;
  /** The tree of the file's LF-joined lines (`sourceOf`), parsed once by the gate (AST plans only). */
  readonly tree: Tree | null;
}

/** What a plan decides: the new text, the lines it changed, and the payload. */
export interface Planned<T> {
  readonly after: EditableText;
  /** New-file lines written (the gate's error nearest them is named; provenance records them). */
  readonly edited: readonly EditedLines[];
  readonly data: T;
  readonly warnings?: readonly Warning[];
  /** The plan changes nothing (an import already there): nothing is written or snapshotted. */
  readonly noop?: boolean;
}

export interface TransactionOptions {
  readonly operation: string;
  readonly dryRun: boolean;
  /**
   * `ast`: the file must parse before (unless `allowParseErrors`) and after (never waived), and the
   * plan gets the tree; `text`: a cleanly parsing file must still parse after (hash and diff edits).
   */
  readonly gate: "ast" | "text";
  readonly allowParseErrors?: boolean;
  /** The plan may create the file (a patch from /dev/null). */
  readonly mayCreate?: boolean;
}

/**
 * Runs one edit of one file: lock → read → plan (pure) → gate → write (snapshotted first) and
 * answers the plan's payload with what was written; nothing is written on a dry run or on any
 * refusal.
 */
export async function editTransaction<T>(ctx: OpContext, file: string, options: TransactionOptions, plan: (before: Before) => Planned<T>): Promise<OpResult<T>> {
  const path = writablePath(file, ctx.boundary, ctx.cwd);
  return withFileLock(path, options.operation, () => {
    const bytes = readBytes(path);
    if (bytes === null && !options.mayCreate) throw new MastError("FILE_NOT_FOUND", `${path} does not exist`);
    const text = bytes === null ? null : decodeForEdit(path, bytes);
    let tree: Tree | null = null;
    if (options.gate === "ast" && text !== null) {
      const parsed = gateParse(path, text.lines.join("\n"));
      if (parsed === null || parsed.tree === null)
        throw new MastError("UNSUPPORTED_OPERATION", `${options.operation} needs a language with AST edits; ${path} has none${parsed ? " (its parse timed out)" : ""}`);
      if (parsed.error !== null && !options.allowParseErrors) {
        throw new MastError("PARSE_ERROR", `${path} does not parse (syntax error at ${parsed.error}); no edit was attempted`, {
          hint: "Fix the syntax error first, or pass --allow-parse-errors (MCP: allow_parse_errors) to edit a knowingly broken file.",
          details: { at: parsed.error },
        });
      }
      tree = parsed.tree;
    }
    const planned = plan({ path, text, tree });
    const afterText = renderText(planned.after);
    if (options.gate === "ast") {
      // The file's text as written (without a BOM, as the index decodes it): the index refresh reuses this parse.
      const after = gateCheck(path, renderText({ ...planned.after, bom: false }), planned.edited);
      // A file that parsed must parse after; one that did not (waived) must gain no error of the edit's.
      const added = after === null || after.error === null ? null : tree!.rootNode.hasError && after.root ? addedSyntaxError(tree!.rootNode, after.root, planned.edited) : after.error;
      if (added !== null) {
        throw new MastError("PARSE_ERROR", `the edit would leave ${path} with a syntax error at ${added}; nothing was written`, { details: { at: added } });
      }
    } else if (text !== null) checkParseValidity(path, renderText(text), afterText, planned.edited);
    const unchanged = planned.noop === true;
    if (!options.dryRun && !unchanged) {
      // A file the plan creates may live in directories that do not exist yet (inside the root: checked above).
      if (bytes === null) makeDirectories(ctx.boundary.realRoot, dirname(path));
      commitWrite(ctx, path, bytes, Buffer.from(afterText, "utf8"));
    }
    return {
      data: planned.data,
      warnings: planned.warnings ?? [],
      written: options.dryRun || unchanged ? [] : [path],
      changedRanges: planned.edited,
      unifiedDiff: () => generateDiff(path, path, text === null ? "" : renderText(text), afterText, 0),
    };
  });
}

/**
 * Every edit's write: recorded in the changeSet (original bytes kept) as pending, the atomic
 * write, then confirmed — a writer killed in between leaves no changeSet undo would trip on.
 * Call inside the file's lock.
 */
function commitWrite(ctx: OpContext, path: string, before: Uint8Array | null, after: Uint8Array): void {
  ctx.changeSet.recordWrite(path, before, after);
  try {
    writeAtomic(path, after, { pinned: true });
  } catch (err) {
    ctx.changeSet.forgetLast();
    throw err;
  }
  ctx.changeSet.confirmLast();
}
