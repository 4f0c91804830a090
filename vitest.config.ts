import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // SHA-256 inline, not on the thread pool: virtual time then depends on the code alone.
    setupFiles: ["./test/support/inline-digest-setup.ts"],
    // The second reporter ends the run with a plain "tests: N passed, N failed" line.
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
