// structure.lock in-process: exclusive holding, the holder named on contention, and a lock
// compromised mid-run raised at release as LOCK_COMPROMISED instead of crashing the process.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MastError } from "../../src/base/errors.js";
import { lockState, withStructureLock } from "../../src/index/lock.js";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function marker(): string {
  const dir = mkdtempSync(join(tmpdir(), "mast-lock-"));
  dirs.push(dir);
  const path = join(dir, "structure.lock");
  writeFileSync(path, "");
  return path;
}

const quick = { timeoutMs: 300, retryDelayMs: 50 };

describe("structure.lock", () => {
  it("records the holder while held and clears it after", async () => {
    const path = marker();
    const seen = await withStructureLock(path, "mast index", quick, async () => JSON.parse(readFileSync(path, "utf8")));
    expect(seen).toMatchObject({ pid: process.pid, operation: "mast index" });
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ pid: process.pid, operation: "mast index", released: expect.stringMatching(/^\d{4}-/) });
  });

  it("a second taker gives up with LOCK_HELD naming the holder", async () => {
    const path = marker();
    let inner: unknown;
    await withStructureLock(path, "mast index (full)", quick, async () => {
      inner = await withStructureLock(path, "mast index --incremental", quick, async () => "got it").catch((e: unknown) => e);
    });
    expect(inner).toBeInstanceOf(MastError);
    expect((inner as MastError).code).toBe("LOCK_HELD");
    expect((inner as MastError).message).toContain(`mast index (full) (pid ${process.pid}`);
  });

  it("releases the lock when the work throws", async () => {
    const path = marker();
    await expect(withStructureLock(path, "a", quick, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(withStructureLock(path, "b", quick, async () => "ok")).resolves.toBe("ok");
  });

  it("raises LOCK_COMPROMISED at release when the lock was removed mid-run, without an uncaught exception", async () => {
    const path = marker();
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on("uncaughtException", onUncaught);
    try {
      const result = withStructureLock(path, "mast index", quick, async () => {
        rmSync(`${path}.lock`, { recursive: true, force: true });
        // proper-lockfile checks its lock every stale/2 = 5 s; wait past one check.
        await new Promise((r) => setTimeout(r, 6_000));
        return "done";
      });
      await expect(result).rejects.toMatchObject({ code: "LOCK_COMPROMISED" });
    } finally {
      process.off("uncaughtException", onUncaught);
    }
    expect(uncaught).toEqual([]);
  }, 15_000);
});

describe("lockState", () => {
  /** A record naming `pid` on this host, with the lock directory its holder would have made. */
  function heldBy(pid: number, extra: Record<string, unknown> = {}): string {
    const path = marker();
    writeFileSync(path, JSON.stringify({ pid, host: hostname(), operation: "mast index (full)", since: "2026-12-01T00:00:00.000Z", ...extra }));
    mkdirSync(`${path}.lock`);
    return path;
  }

  it("reads a live holder as held, a released record as free, a dead holder as abandoned", () => {
    expect(lockState(heldBy(process.pid))).toMatchObject({ state: "held", holder: { pid: process.pid } });
    expect(lockState(heldBy(process.pid, { released: "2026-12-01T00:00:01.000Z" }))).toEqual({ state: "free" });
    expect(lockState(heldBy(2 ** 22 + 1))).toMatchObject({ state: "abandoned" }); // above Linux's pid_max
  });

  it.runIf(process.platform === "linux")("reads a zombie holder (killed, not yet reaped) as abandoned, its live parent as held", async () => {
    // sh starts a child that exits at once, then becomes `sleep`, which never reaps it: a zombie.
    const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 2"], { stdio: ["ignore", "pipe", "ignore"] });
    const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (d) => resolve(String(d)))));
    await new Promise((r) => setTimeout(r, 200));
    expect(readFileSync(`/proc/${zombie}/stat`, "utf8").split(" ")[2]).toBe("Z");
    expect(lockState(heldBy(zombie)).state).toBe("abandoned");
    expect(lockState(heldBy(parent.pid!)).state).toBe("held");
    parent.kill("SIGKILL");
  });
});
