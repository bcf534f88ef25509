// The store server's answering threads (src/tools/org-threads.ts) as built (dist/: the worker entry
// exists only there): calls wait for a free thread in turn, a call cancelled while it waits is
// never answered, an error crosses back with its code, and a search split between the threads
// answers what one thread answers.
import { describe, expect, it } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { OrgContexts, type ServedReplica } from "../../src/tools/org.js";
import { BASE_FILES, makeProject } from "../helpers/project.js";

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

  it("splits a search over many repositories between its threads and fuses the parts as one thread would", async () => {
    const a = makeProject(BASE_FILES);
    const b = makeProject({ "lib/finder.ts": "export function findAll(ids: string[]): string[] {\n  return ids.filter((id) => id.length > 0);\n}\n" });
    const threads = new OrgThreads(2, () => undefined);
    const inline = new OrgContexts();
    try {
      await runIndex(a.config(), { mode: "full" });
      await runIndex(b.config(), { mode: "full" });
      const replicas: ServedReplica[] = Array.from({ length: 8 }, (_, i) => ({ repository: `acme/r${i}`, commit: `c${i}`, dir: `/replica/${i}`, config: (i % 2 === 0 ? a : b).config() }));
      for (const query of ["find", "validate token", "no such words at all"]) {
        const split = await threads.answer(replicas, "mast_search", { query });
        const whole = await inline.answer(replicas, "mast_search", { query });
        expect(split).toEqual(whole);
      }
      const found = (await threads.answer(replicas, "mast_search", { query: "find" })).answer as { repositories_searched: number; results: Array<Record<string, unknown>> };
      expect(found.repositories_searched).toBe(8);
      expect(found.results.slice(0, 2).map((r) => [r["repository"], r["file_path"], r["symbol_name"]])).toEqual([
        ["acme/r0", "src/repo.ts", "Repo.find"],
        ["acme/r2", "src/repo.ts", "Repo.find"],
      ]);
    } finally {
      await threads.close();
      inline.close(null);
      a.cleanup();
      b.cleanup();
    }
  });
});
