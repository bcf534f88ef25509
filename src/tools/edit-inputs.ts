// The input fields hashpilot's tools share, each named after the field it fills: a file path, file
// content, a hash, the provenance an edit carries, and the fileHash of the read an edit is based on.
import { EDIT_MAX_FILE_BYTES } from "../edit/writer.js";
import { pathInput, z } from "./schema.js";

export const file = pathInput().describe("Path of the file (relative to the project root, or absolute inside it).");
/** File content an argument may carry: no more than the largest file the tools edit. */
export const content = z.string().max(EDIT_MAX_FILE_BYTES);
export const hash = z.string().max(64);
export const provenance = {
  actor: z.string().min(1).max(200).optional().describe("Who makes the edit (e.g. the agent's model name; at most 200 characters)."),
  task_id: z.string().min(1).max(200).optional().describe("The task or issue the edit belongs to (at most 200 characters)."),
  reason: z.string().min(1).max(2000).optional().describe("Why the edit is made (at most 2,000 characters)."),
};
export const fileHashInput = hash
  .nullish()
  .describe(
    "The fileHash (read_hash, replace_hash, diff_apply) or hash (read_many) of the read this edit is based on: " +
      "while the file still has it, the edit goes exactly where that read saw the lines, even when their text occurs elsewhere too.",
  );
