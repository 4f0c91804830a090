import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The second reporter ends the run with a plain "tests: N passed, N failed" line.
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
