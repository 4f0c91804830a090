// vitest for the suites a runtime other than the host's Node runs (test/runtimes/suites/*), started
// by test/runtimes/*.test.ts with that runtime's binary; the host's `npm test` never collects them.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/runtimes/suites/*.journal.ts"],
    testTimeout: 60_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
