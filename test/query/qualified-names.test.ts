// A declaration named without its owners: `route` or `Base.get` for Ruby's `Sinatra.Base.route`
// (modules nest names), answered when one declaration ends that way, offered first in
// did_you_mean when several do; in a file, `reset` for the nested function `dedupeLink.reset`.
import { describe, expect, it } from "vitest";
import { indexedProject } from "../helpers/indexed.js";
import { flat } from "../helpers/sites.js";

const p = indexedProject({
  "lib/sinatra/base.rb": [
    "module Sinatra",
    "  class Base",
    "    class << self",
    "      def get(path)",
    "        route(path)",
    "      end",
    "",
    "      def route(path); end",
    "",
    "      def set(key); end",
    "    end",
    "  end",
    "",
    "  class Cookies",
    "    def set(key); end",
    "  end",
    "end",
    "",
  ].join("\n"),
  "src/dedupe.ts": [
    "export function dedupeLink(next: () => void) {",
    "  return observable((observer) => {",
    "    function reset() {",
    "      next();",
    "    }",
    "    return next({",
    "      error(e: unknown) {",
    "        reset();",
    "      },",
    "    });",
    "  });",
    "}",
    "",
    "declare function observable(f: (o: unknown) => unknown): unknown;",
    "",
  ].join("\n"),
  "src/other.ts": ["export class Timer {", "  reset(): void {}", "}", ""].join("\n"),
});
const call = (tool: string, args: Record<string, unknown>) => p.call(tool, args);

describe("a declaration named without its owners", () => {
  it("answers the one declaration whose name ends that way", async () => {
    const byMember = await call("mast_callers", { symbol: "route" });
    expect(byMember.declaration).toEqual({ file_path: "lib/sinatra/base.rb", line: 8, kind: "method", is_exported: true, signature: "def route(path); end" });
    expect(flat(byMember.verified_callers).map((c: { line: number; caller_symbol: string }) => [c.line, c.caller_symbol])).toEqual([[5, "Sinatra.Base.get"]]);
    const byClass = await call("mast_signature", { symbol: "Base.get" });
    expect(byClass.results.map((r: { file_path: string; line: number; signature: string }) => [r.file_path, r.line, r.signature])).toEqual([["lib/sinatra/base.rb", 4, "def get(path)"]]);
  });

  it("in a file, answers the declaration there a name without its owners ends (a nested function)", async () => {
    const r = await call("mast_callers", { symbol: "reset", file_path: "src/dedupe.ts" });
    expect(r.declaration).toEqual({ file_path: "src/dedupe.ts", line: 3, kind: "function", is_exported: false, signature: "function reset()" });
    expect(flat(r.verified_callers).map((c: { line: number; caller_symbol: string; resolution: string }) => [c.line, c.caller_symbol, c.resolution])).toEqual([[8, "dedupeLink", "same_file"]]);
  });

  it("offers every declaration ending that way first when several do", async () => {
    const r = await call("mast_callers", { symbol: "set" });
    expect(r.not_found).toBe(true);
    expect(r.did_you_mean.slice(0, 2)).toEqual(["Sinatra.Base.set", "Sinatra.Cookies.set"]);
  });
});
