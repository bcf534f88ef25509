// enableCompileCache (cli/compile-cache.ts): Node's compile cache turned on where this Node has one
// (module.enableCompileCache, Node >= 22.1), nothing where it has none or it refuses. That the CLIs
// call it before their commands' chunks load is checked on the built CLI (bundle.test.ts).
import module from "node:module";
import { describe, expect, it } from "vitest";
import { enableCompileCache } from "../../src/cli/compile-cache.js";

describe("enableCompileCache", () => {
  it("calls Node's function once, with no directory (Node's own choice), and says so", () => {
    const calls: unknown[][] = [];
    const node = { enableCompileCache: (...args: unknown[]) => void calls.push(args) };
    expect(enableCompileCache(node)).toBe(true);
    expect(calls).toEqual([[]]);
  });

  it("does nothing on a Node without one, and a refusal costs only the call", () => {
    expect(enableCompileCache({})).toBe(false);
    expect(enableCompileCache({ enableCompileCache: "not a function" })).toBe(false);
    expect(
      enableCompileCache({
        enableCompileCache: () => {
          throw new Error("EACCES: permission denied");
        },
      }),
    ).toBe(false);
    // This Node's answer: Node 20 has none.
    expect(enableCompileCache(module)).toBe(typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function");
  });
});
