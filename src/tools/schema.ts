// The only importer of zod: tool input schemas are declared with this `z`, so the validation
// library is swappable in one place — and the bounded string inputs every tool shares (no
// argument is unbounded: a 1 MB query once kept the server busy for 30 s).
import { z } from "zod";
import { MAX_GLOB_LENGTH } from "../base/glob.js";
import { MAX_PATH_LENGTH } from "../base/paths.js";

export { MAX_PATH_LENGTH };

export { z };
export type { ZodType } from "zod";

/** The longest name or query argument. */
export const MAX_NAME_LENGTH = 1000;

/** A path argument: relative to the project root, or absolute inside it. */
export const pathInput = () => z.string().min(1).max(MAX_PATH_LENGTH);
/** A glob argument. */
export const globInput = () => z.string().min(1).max(MAX_GLOB_LENGTH);
/** A symbol name or search query. */
export const nameInput = () => z.string().min(1).max(MAX_NAME_LENGTH);
