// The only importer of zod: tool input schemas are declared with this `z`, so the validation
// library is swappable in one place.
export { z } from "zod";
export type { ZodType } from "zod";
