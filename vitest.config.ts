// Test runner settings: real processes and real SQLite files make some tests take seconds on
// a 2-core machine, so the per-test timeout is generous; nothing here is timed for speed. Under
// `npm test` the packed-tarball install (about two minutes of native builds) runs in the
// background from the start (test/setup/install-background.ts) and its test file is sequenced
// last, so the builds overlap the suite on the other core; run alone, that file installs itself.
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";

const LAST = "test/cli/install.test.ts";

class InstallLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => (f.moduleId.endsWith(LAST) ? 1 : 0);
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ["test/setup/install-background.ts"],
    sequence: { sequencer: InstallLast },
  },
});
