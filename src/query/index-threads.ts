// The index's worker threads as this layer provides them (index/run-thread.ts IndexThreads): the
// entry is run-worker.ts, beside this module both in dist/ and in the bundle's dist/bin/, and the
// checker pass is checker.ts's, loaded only by a run that asks for it.
import { fileURLToPath } from "node:url";
import { IndexThreads } from "../index/run-thread.js";
import type { CheckerPass } from "../index/run.js";

/** The checker pass, loaded on first use (the compiler behind it is loaded by its own worker). */
export const loadCheckerPass = (): Promise<CheckerPass> => import("./checker.js").then(({ checkerPass }) => checkerPass);

export const indexThreads = new IndexThreads({ workerEntry: fileURLToPath(new URL("./run-worker.js", import.meta.url)), checkerPass: loadCheckerPass });
