// vitest globalSetup: under `npm test` (MAST_INSTALL_BACKGROUND=1) the packed-tarball install of
// test/cli/install.test.ts starts in a child process before any test, so its two minutes of native
// builds overlap the suite; the test, sequenced last, waits for the result in MAST_INSTALL_WORK.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): (() => void) | undefined {
  if (process.env["MAST_INSTALL_BACKGROUND"] !== "1") return undefined;
  const root = join(import.meta.dirname, "..", "..");
  const work = mkdtempSync(join(tmpdir(), "mast-install-"));
  process.env["MAST_INSTALL_WORK"] = work;
  const child = spawn(process.execPath, [join(root, "test", "helpers", "install-tarball.mjs"), root, work], { stdio: "ignore" });
  return () => {
    if (child.exitCode === null) child.kill();
    rmSync(work, { recursive: true, force: true });
  };
}
