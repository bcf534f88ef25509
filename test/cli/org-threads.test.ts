// The store server's answering threads (src/tools/org-threads.ts) as built (dist/: the worker entry
// exists only there): calls wait for a free thread in turn, a call cancelled while it waits is
// never answered, and an error crosses back with its code.
import { describe, expect, it } from "vitest";

type OrgThreadsModule = typeof import("../../src/tools/org-threads.js");
const { OrgThreads } = (await import(new URL("../../dist/tools/org-threads.js", import.meta.url).href)) as OrgThreadsModule;

describe("OrgThreads (built)", () => {
  it("answers on its threads in turn, drops a call cancelled while it waited, and revives errors", async () => {
    const logged: string[] = [];
    const threads = new OrgThreads(1, (l) => logged.push(l));
    try {
      expect(threads.size).toBe(1);
      const cancelled = new AbortController();
      const outcome = (p: Promise<unknown>) =>
        p.then(
          () => "answered",
          (err: { code?: string; message: string }) => `${err.code}: ${err.message}`,
        );
      // One thread: the first call is sent at once, the next two wait; the second's client gives up before its turn.
      const first = outcome(threads.answer([], "mast_search", { query: "x" }));
      const second = outcome(threads.answer([], "mast_search", { query: "x" }, cancelled.signal));
      const third = outcome(threads.answer([], "mast_nope", {}));
      cancelled.abort();
      expect(await Promise.all([first, second, third])).toEqual([
        "INVALID_ARGUMENT: no repository is published in the store yet",
        "INVALID_ARGUMENT: the call was cancelled before it was answered",
        'INVALID_ARGUMENT: unknown tool "mast_nope"',
      ]);
      await threads.release(["/nowhere"]);
      expect(logged).toEqual([]);
    } finally {
      await threads.close();
    }
  });
});
