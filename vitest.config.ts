import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Most files spend their time waiting on processes they started (the CLI, PostgreSQL, Redis,
    // other runtimes, Chromium), so two files at a time keep a two-core machine busy where vitest's
    // default (cores − 1) would run one. Every file starts its own servers on free loopback ports and
    // works in its own temp folders, so files never share state.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // SHA-256 inline, not on the thread pool: virtual time then depends on the code alone.
    setupFiles: ["./test/support/inline-digest-setup.ts"],
    // The second reporter ends the run with a plain "tests: N passed, N failed" line.
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
