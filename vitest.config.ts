// Test runner settings: real processes and real SQLite files make some tests take seconds on
// a 2-core machine, so the per-test timeout is generous; nothing here is timed for speed.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
