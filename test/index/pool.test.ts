// The parse pool's compiler flags: what an index run sets in V8, and that a flag the process was
// started with is left as given.
import { describe, expect, it } from "vitest";
import { indexingCompilerFlags } from "../../src/index/pool.js";

describe("indexingCompilerFlags", () => {
  it("sets both flags in a process started without them", () => {
    expect(indexingCompilerFlags([], "")).toEqual(["--max-inlined-bytecode-size-cumulative=150", "--interrupt-budget=270336"]);
    expect(indexingCompilerFlags(["--enable-source-maps"], "--max-old-space-size=4096")).toEqual(["--max-inlined-bytecode-size-cumulative=150", "--interrupt-budget=270336"]);
  });

  it("leaves a flag given on the command line or in NODE_OPTIONS, in either spelling", () => {
    expect(indexingCompilerFlags(["--interrupt-budget=1000"], "")).toEqual(["--max-inlined-bytecode-size-cumulative=150"]);
    expect(indexingCompilerFlags([], "--max_inlined_bytecode_size_cumulative=920  --interrupt_budget=67584")).toEqual([]);
  });
});
