// Golden-file comparison for tests: `expectGolden(name, actual)` checks `actual` against
// test/goldens/<name>, or (re)writes that file when the environment sets UPDATE_GOLDENS=1.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

/** Root folder of all golden files (test/goldens). */
export const GOLDEN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "goldens");

/** True when this run should rewrite goldens instead of comparing against them. */
export const UPDATING_GOLDENS = process.env["UPDATE_GOLDENS"] === "1";

/**
 * Compares `actual` with the text file test/goldens/<name>. With UPDATE_GOLDENS=1 the file is
 * written (directories created) and the check passes; without it a missing golden fails.
 */
export function expectGolden(name: string, actual: string): void {
  const file = path.join(GOLDEN_DIR, name);
  if (UPDATING_GOLDENS) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const previous = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
    if (previous !== actual) fs.writeFileSync(file, actual);
    return;
  }
  if (!fs.existsSync(file)) {
    throw new Error(
      `golden file test/goldens/${name} does not exist; create it by running the test with UPDATE_GOLDENS=1 ` +
        `(e.g. UPDATE_GOLDENS=1 npx vitest run <test file>) and review the written file before committing it`,
    );
  }
  const expected = fs.readFileSync(file, "utf8");
  expect(actual, `output differs from golden test/goldens/${name} (rerun with UPDATE_GOLDENS=1 to accept, then review the diff)`).toBe(expected);
}
