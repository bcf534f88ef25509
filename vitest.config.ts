// Test runner settings: real processes and real SQLite files make some tests take seconds on
// a 2-core machine, so the per-test timeout is generous; nothing here is timed for speed. The
// packed-tarball install (about a minute and a half of native builds) starts first, whatever the
// cache says, so it overlaps the rest of the suite instead of ending it.
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";

const FIRST = ["test/cli/install.test.ts"];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = FIRST.findIndex((name) => f.moduleId.endsWith(name));
      return i === -1 ? FIRST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { sequencer: SlowFirst },
  },
});
